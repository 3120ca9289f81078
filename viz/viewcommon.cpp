#include "viz/viewcommon.h"

#include "core/data/treeedit.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>

#include <QFontMetricsF>
#include <QStringList>

#include "core/text/punctuation.h"

namespace treelens {

QColor divergingColor(double value)
{
    const double t = std::clamp(value, -1.0, 1.0);
    const QColor lo(33, 102, 172), mid(247, 247, 247), hi(178, 24, 43);
    const QColor &end = t < 0 ? lo : hi;
    const double k = std::abs(t);
    auto mix = [k](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * k)); };
    return QColor(mix(mid.red(), end.red()), mix(mid.green(), end.green()), mix(mid.blue(), end.blue()));
}

QColor textOnColor(const QColor &fill, const QColor &ink)
{
    const double luminance = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
    return luminance < 0.55 ? QColor(Qt::white) : ink;
}

std::vector<int> recursiveNodeHeights(const std::vector<NodeAttention> &nodes)
{
    std::vector<int> h(nodes.size(), 1);
    for (std::size_t v = 0; v < nodes.size(); ++v) // post-order: children first
        for (int t : nodes[v].targets)
            if (t >= 0 && static_cast<std::size_t>(t) < v)
                h[v] = std::max(h[v], h[static_cast<std::size_t>(t)] + 1);
    return h;
}

QColor sequentialColor(double value)
{
    // Viridis sampled at 9 stops (matplotlib's _viridis_data at 0, 1/8, ..., 1); linear in between.
    static constexpr std::array<std::array<double, 3>, 9> stops{{
        {0.267004, 0.004874, 0.329415}, {0.281412, 0.155834, 0.469201}, {0.244972, 0.287675, 0.537260},
        {0.190631, 0.407061, 0.556089}, {0.147607, 0.511733, 0.556929}, {0.119699, 0.618490, 0.536347},
        {0.208030, 0.718701, 0.472873}, {0.430983, 0.808473, 0.346476}, {0.993248, 0.906157, 0.143936},
    }};
    if (!std::isfinite(value))
        value = 0.0;
    const double v = std::clamp(value, 0.0, 1.0) * 8.0;
    const int i = std::min(7, static_cast<int>(std::floor(v)));
    const double t = v - i;
    auto mix = [&](int c) { return (stops[i][c] * (1.0 - t) + stops[i + 1][c] * t); };
    return QColor::fromRgbF(static_cast<float>(mix(0)), static_cast<float>(mix(1)), static_cast<float>(mix(2)));
}

QLinearGradient sequentialGradient(const QPointF &from, const QPointF &to)
{
    QLinearGradient g(from, to);
    for (int i = 0; i <= 16; ++i)
        g.setColorAt(i / 16.0, sequentialColor(i / 16.0));
    return g;
}

const Matrix *headMatrix(const std::vector<std::vector<Matrix>> &maps, int layer, int head)
{
    if (layer < 0 || layer >= static_cast<int>(maps.size()))
        return nullptr;
    const auto &heads = maps[static_cast<std::size_t>(layer)];
    if (head < 0 || head >= static_cast<int>(heads.size()))
        return nullptr;
    const Matrix &m = heads[static_cast<std::size_t>(head)];
    return m.empty() ? nullptr : &m;
}

const Matrix *selectedAttention(const Analysis &analysis, const ViewState &state)
{
    const auto &source = (state.relationAttention && !analysis.attentionRelation.empty()) ? analysis.attentionRelation
        : (!state.weightedAttention && !analysis.attentionRaw.empty())                  ? analysis.attentionRaw
                                                                                        : analysis.attention;
    return headMatrix(source, state.layer, state.head);
}

QString attentionVariantName(const Analysis &analysis, const ViewState &state)
{
    if (!analysis.attentionRelation.empty()) {
        if (state.relationAttention)
            return QStringLiteral("relation softmax(S\u02b3)");
        return state.weightedAttention ? QStringLiteral("combined (gated)") : QStringLiteral("plain softmax(S\u1d49)");
    }
    if (analysis.constituentPrior.empty())
        return QString();
    return state.weightedAttention ? QStringLiteral("after \u00d7C") : QStringLiteral("softmax before \u00d7C");
}

QString attentionVariantSuffix(const Analysis &analysis, const ViewState &state)
{
    if (state.relationAttention && !analysis.attentionRelation.empty())
        return QStringLiteral("-relation");
    return (!state.weightedAttention && !analysis.attentionRaw.empty()) ? QStringLiteral("-raw") : QString();
}

float wordAttention(const Analysis &analysis, const ViewState &state, int from, int to)
{
    const Matrix *m = selectedAttention(analysis, state);
    const int words = static_cast<int>(analysis.wordToken.size());
    if (!m || from < 0 || to < 0 || from >= words || to >= words)
        return 0.0f;
    const int r = analysis.wordToken[static_cast<std::size_t>(from)];
    const int c = analysis.wordToken[static_cast<std::size_t>(to)];
    if (r < 0 || c < 0 || r >= m->rows || c >= m->cols)
        return 0.0f;
    return m->at(r, c);
}

QString causalNote(const QString &unit)
{
    return QStringLiteral("not possible: a causal model's %1 attends only to itself and the %1s before it").arg(unit);
}

QColor hatchFill() { return QColor(236, 236, 236); }
QColor hatchInk() { return QColor(150, 150, 150); }

void paintHatch(QPainter &painter, const QPainterPath &area, double spacing)
{
    if (area.isEmpty())
        return;
    painter.save();
    painter.setPen(Qt::NoPen);
    painter.setBrush(hatchFill());
    painter.drawPath(area);
    painter.setClipPath(area, Qt::IntersectClip);
    // Lines drawn, not a Qt pattern brush: a pattern's pixels do not scale with an export's
    // resolution, and SVG has no such brush.
    QPen pen(hatchInk(), std::max(0.5, spacing / 6.0));
    pen.setCapStyle(Qt::FlatCap);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    const QRectF b = area.boundingRect();
    for (double x = b.left() - b.height(); x < b.right(); x += spacing)
        painter.drawLine(QPointF(x, b.bottom()), QPointF(x + b.height(), b.top()));
    painter.restore();
}

QString ablationBadge(const std::vector<std::pair<int, int>> &ablated)
{
    if (ablated.empty())
        return {};
    QStringList parts;
    for (const auto &[layer, head] : ablated)
        parts << (head < 0 ? QStringLiteral("L%1 (every head)").arg(layer + 1) : QStringLiteral("L%1 H%2").arg(layer + 1).arg(head + 1));
    return parts.join(QStringLiteral(", ")) + QStringLiteral(" ablated");
}

QString ablationBadge(const Analysis *analysis) { return analysis ? ablationBadge(analysis->ablated) : QString(); }

QColor ablationColor() { return QColor(0xb0, 0x10, 0x10); }

QString unknownWordsNote(const Analysis *analysis)
{
    if (!analysis || !analysis->unknownWords || analysis->words.empty())
        return QString();
    // Punctuation aside (Analysis::unknownWords does not list it either).
    const auto wordCount = std::count_if(analysis->words.begin(), analysis->words.end(),
                                         [](const std::string &w) { return !isPunctuationToken(w); });
    if (wordCount == 0)
        return QString();
    const auto unknown = static_cast<double>(analysis->unknownWords->size());
    const auto words = static_cast<double>(wordCount);
    if (unknown == 0.0)
        return QString();
    if (unknown / words <= kUnknownWordWarningRate) {
        // A few: named, so a reader knows which words the model did not see (issue 47).
        QStringList names;
        for (int w : *analysis->unknownWords)
            if (w >= 0 && w < static_cast<int>(analysis->words.size()) && names.size() < 6)
                names << QString::fromStdString(analysis->words[static_cast<std::size_t>(w)]);
        if (analysis->unknownWords->size() > 6)
            names << QStringLiteral("...");
        return QStringLiteral("Not in the model's vocabulary (it saw its unknown token): %1").arg(names.join(QStringLiteral(", ")));
    }
    return QStringLiteral("%1 of %2 words (%3%) are not in the model's vocabulary: it saw its unknown token "
                          "instead, so its attention, prior and induced tree say little about them (another "
                          "language?)")
        .arg(analysis->unknownWords->size())
        .arg(wordCount)
        .arg(std::lround(100.0 * unknown / words));
}

QString noPriorNote(const Analysis *analysis)
{
    if (!analysis || !analysis->constituentPrior.empty() || analysis->attention.empty())
        return QString();
    if (analysis->architecture.empty())
        return QStringLiteral("A %1 model has no constituent prior: no prior C, no cohesion, no link probabilities and "
                              "no induced tree to show")
            .arg(QString::fromStdString(analysis->family));
    return QStringLiteral("This model has no constituent prior (%1): no prior C, no cohesion, no "
                          "link probabilities and no induced tree to show")
        .arg(QString::fromStdString(analysis->architecture));
}

QString treeSourceNote(const Sentence &sentence, TreeKind kind)
{
    const bool constituency = kind == TreeKind::Constituency;
    if (constituency ? !sentence.constituency : !sentence.dependency)
        return QString();
    const QString what = constituency ? QStringLiteral("Tree") : QStringLiteral("Dependency tree");
    if (const std::string edited = editedTreeNote(sentence, constituency); !edited.empty()) {
        QString text = QStringLiteral("%1: %2").arg(what, QString::fromStdString(edited));
        if (!constituency && !sentence.dependency->isProjective())
            text += QStringLiteral("; non-projective (arcs cross)");
        return text;
    }
    if (sentence.metadataValue(constituency ? "constituency_source" : "dependency_source") == "gold") {
        QString text = QStringLiteral("%1: gold, from the corpus file").arg(what);
        if (constituency) {
            const QString traces = QString::fromStdString(sentence.metadataValue("ptb.traces_removed"));
            const QString tags = QString::fromStdString(sentence.metadataValue("ptb.function_tags_removed"));
            QStringList removed;
            if (!traces.isEmpty())
                removed << QStringLiteral("%1 trace(s)").arg(traces);
            if (!tags.isEmpty())
                removed << QStringLiteral("%1 function tag(s)").arg(tags);
            if (!removed.isEmpty())
                text += QStringLiteral(" (its %1 are not shown)").arg(removed.join(QStringLiteral(" and ")));
        }
        return text;
    }
    const std::string parser = sentence.metadataValue("parser");
    if (parser.empty())
        return QString();
    if (parser == "file")
        return QStringLiteral("%1: from the parsed file %2 (looked up by the words)")
            .arg(what, QString::fromStdString(sentence.metadataValue("parser.file")));
    return constituency ? QStringLiteral("Tree: predicted by the %1 parser, not gold").arg(QString::fromStdString(parser))
                        : QStringLiteral("Dependency tree: predicted by the %1 parser, not gold (arcs and UD relation "
                                         "labels are its guesses)")
                              .arg(QString::fromStdString(parser));
}

QColor noteColor() { return QColor(0xa0, 0x4a, 0x00); }

QStringList wrapToWidth(const QString &text, const QFont &font, double width)
{
    const QFontMetricsF fm(font);
    // A word wider than the line (a file's path) is cut after a '/' (or '-', '_', '.'),
    // else between characters, into pieces that fit.
    QStringList words;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        QString rest = word;
        while (fm.horizontalAdvance(rest) > width && rest.size() > 1) {
            int cut = 1;
            while (cut < rest.size() && fm.horizontalAdvance(rest.left(cut + 1)) <= width)
                ++cut;
            for (int k = cut; k > cut / 2; --k)
                if (QStringLiteral("/-_.").contains(rest.at(k - 1))) {
                    cut = k;
                    break;
                }
            words << rest.left(cut);
            rest = rest.mid(cut);
        }
        words << rest;
    }
    QStringList lines;
    QString line;
    for (const QString &word : words) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && fm.horizontalAdvance(candidate) > width) {
            lines << line;
            line = word;
        } else {
            line = candidate;
        }
    }
    if (!line.isEmpty() || lines.isEmpty())
        lines << line;
    return lines;
}

} // namespace treelens

#include "viz/qcustomplot.h"

namespace treelens {
QString qcustomplotVersion() { return QStringLiteral(QCUSTOMPLOT_VERSION_STR); }
PaintedExportView::PaintedExportView(QWidget *parent) : QWidget(parent)
{
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

QSizeF PaintedExportView::exportSize() const
{
    const QSize s = sizeHint();
    return QSizeF(s.width() * 0.75, s.height() * 0.75);
}

void PaintedExportView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    paint(p, size());
}

void PaintedExportView::renderTo(QPainter *painter, const QRectF &target)
{
    const QSize s = sizeHint();
    painter->save();
    painter->translate(target.topLeft());
    painter->scale(target.width() / s.width(), target.height() / s.height());
    painter->fillRect(QRectF(QPointF(0, 0), QSizeF(s)), Qt::white);
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setFont(font());
    paint(*painter, s);
    painter->restore();
}

} // namespace treelens
