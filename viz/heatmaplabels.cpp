#include "viz/heatmaplabels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <QChar>

namespace treelens {

QString tokenLabel(const std::vector<std::string> &tokens, int i)
{
    if (i < 0 || i >= static_cast<int>(tokens.size()))
        return QString::number(i + 1);
    QString s = QString::fromStdString(tokens[static_cast<std::size_t>(i)]);
    if (s.size() > 14)
        s = s.left(13) + QChar(0x2026);
    return s;
}

QString fullToken(const std::vector<std::string> &tokens, int i)
{
    if (i < 0 || i >= static_cast<int>(tokens.size()))
        return QString::number(i + 1);
    return QString::fromStdString(tokens[static_cast<std::size_t>(i)]);
}

QString attentionScaleLabel(bool afterC)
{
    return afterC ? QStringLiteral("attention \u00d7 C") : QStringLiteral("attention weight");
}

QString attentionScaleNote(bool afterC, double upper, bool shared, bool rowsWhole)
{
    QString note = QStringLiteral("colour: ") + attentionScaleLabel(afterC) +
                   (afterC || !rowsWhole ? QStringLiteral(" (rows sum to less than 1)") : QStringLiteral(" (rows sum to 1)"));
    if (shared)
        note += QStringLiteral("; one scale for every map");
    if (upper < 1.0)
        note += QStringLiteral("; values \u2265 %1 saturate").arg(upper, 0, 'f', 2);
    return note;
}

double attentionScaleTop(std::vector<float> values)
{
    if (values.empty())
        return 1.0;
    const auto k = static_cast<std::size_t>(static_cast<double>(values.size() - 1) * 0.995);
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    return std::clamp(std::ceil(static_cast<double>(values[k]) * 20.0) / 20.0, 0.05, 1.0);
}

} // namespace treelens
