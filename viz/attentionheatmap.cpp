#include "viz/attentionheatmap.h"

#include <algorithm>
#include <cmath>

#include "core/data/overlays.h"
#include "viz/heatmaplabels.h"
#include "viz/plotstyle.h"

namespace treelens {

namespace {

/// Gated group self-attention (the analysis carries each token's group per head):
/// why the map is made of blocks. "" for other analyses.
QString groupAttentionNote(const Analysis &a, int head)
{
    const auto gid = a.gates.find(overlay::kTokenGroupId);
    const auto off = a.gates.find(overlay::kTokenGroupOffsets);
    if (gid == a.gates.end() || off == a.gates.end() || gid->second.shape.size() != 2 || head < 0 ||
        head >= gid->second.shape[0] || static_cast<std::size_t>(head) >= off->second.data.size())
        return QString();
    const int len = gid->second.shape[1];
    const float *g = gid->second.data.data() + static_cast<std::size_t>(head) * static_cast<std::size_t>(len);
    int largest = 0;
    for (int i = 0, run = 0; i < len; ++i) {
        run = i > 0 && g[i] == g[i - 1] ? run + 1 : 1;
        largest = std::max(largest, run);
    }
    return QStringLiteral("group attention: each token attends only within its group (groups of up to %1 tokens, this "
                          "head's first group cut at offset %2): each block is a group, the cells outside are 0")
        .arg(largest)
        .arg(static_cast<int>(off->second.data[static_cast<std::size_t>(head)]));
}

/// Whether every row of `m` sums to 1 (or is empty: a word without pieces). A word-piece
/// model's word matrix loses part of each row when its special tokens are folded away or
/// when it is one sentence of a pair: said from the rows themselves.
bool rowsWhole(const Matrix &m)
{
    bool whole = true;
    for (int r = 0; r < m.rows && whole; ++r) {
        double sum = 0.0;
        for (int c = 0; c < m.cols; ++c)
            sum += static_cast<double>(m.at(r, c));
        whole = sum == 0.0 || std::abs(sum - 1.0) < 1e-3;
    }
    return whole;
}

/// The values a causal model's heads can have (on and left of the diagonal), or all of `m`.
std::vector<float> possibleValues(const Matrix &m, bool causal)
{
    if (!causal)
        return m.data;
    std::vector<float> out;
    out.reserve(m.data.size() / 2 + static_cast<std::size_t>(m.rows));
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c <= r && c < m.cols; ++c)
            out.push_back(m.at(r, c));
    return out;
}

/// A piece as an axis label: a line break or a run of spaces would be an empty label.
std::string visiblePiece(std::string piece)
{
    const bool blank = !piece.empty() && piece.find_first_not_of(' ') == std::string::npos;
    if (blank) {
        std::string out;
        for (std::size_t i = 0; i < piece.size(); ++i)
            out += "\u2423"; // OPEN BOX, the visible space
        return out;
    }
    std::string out;
    for (char ch : piece) {
        if (ch == '\n')
            out += "\u21b5";
        else if (ch == '\t')
            out += "\u21e5";
        else if (ch != '\r')
            out += ch;
    }
    return out;
}

} // namespace

AttentionHeatmap::AttentionHeatmap(QWidget *parent, bool build) : HeatmapView(parent)
{
    if (build)
        rebuild();
}

AttentionHeatmap::Wording AttentionHeatmap::wording() const
{
    return {QStringLiteral("Attention"), QStringLiteral("token"), true, QString(), QStringLiteral("word")};
}

bool AttentionHeatmap::cellMasked(int r, int c) const
{
    return causallyMasked(*m_data.analysis, r, c);
}

bool AttentionHeatmap::notPossible(int r, int c) const
{
    return m_data.analysis && r >= 0 && c >= 0 && r < m_rows && c < m_rows && cellMasked(r, c);
}

void AttentionHeatmap::addItems(int n)
{
    if (m_data.analysis->causalAttention)
        new CausalHatch(m_plot, n);
}

const CausalHatch *AttentionHeatmap::causalHatch() const
{
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto *hatch = dynamic_cast<const CausalHatch *>(m_plot->item(i)))
            return hatch;
    return nullptr;
}

const Matrix *AttentionHeatmap::currentMatrix() const
{
    return m_data.analysis ? selectedAttention(*m_data.analysis, m_state) : nullptr;
}

QString AttentionHeatmap::attentionVariant() const
{
    return m_data.analysis ? attentionVariantName(*m_data.analysis, m_state) : QString();
}

HeatmapView::Figure AttentionHeatmap::describe(const Matrix *m) const
{
    const Wording w = wording();
    Figure f;
    f.title = QStringLiteral("%1 \u2014 layer %2, head %3").arg(w.subject).arg(m_state.layer + 1).arg(m_state.head + 1);
    const QString variant = w.variantInTitle ? attentionVariant() : QString();
    if (!variant.isEmpty())
        f.title += QStringLiteral(", ") + variant;
    if (!m)
        f.title = w.subject + QStringLiteral(" \u2014 not available");
    const bool causal = m_data.analysis && m_data.analysis->causalAttention;
    f.upper = m ? attentionScaleTop(possibleValues(*m, causal)) : 1.0;
    const bool afterC = m_data.analysis && !m_data.analysis->constituentPrior.empty() && m_state.weightedAttention;
    f.scaleLabel = attentionScaleLabel(afterC);
    if (m) {
        const bool whole = m_data.analysis->pieces.empty() || rowsWhole(*m);
        f.lines.push_back({attentionScaleNote(afterC, f.upper, false, whole), QColor(60, 60, 60)});
        if (const QString groups = groupAttentionNote(*m_data.analysis, m_state.head); !groups.isEmpty())
            f.lines.push_back({groups, QColor(60, 60, 60)});
        if (!w.note.isEmpty())
            f.lines.push_back({w.note, QColor(60, 60, 60)});
        if (causal)
            f.lines.push_back({QStringLiteral("hatched: ") + causalNote(w.causalUnit), QColor(60, 60, 60), false, true});
    }
    f.xLabel = QStringLiteral("key %1 (attended to)").arg(w.unit);
    f.yLabel = QStringLiteral("query %1 (attending)").arg(w.unit);
    return f;
}

QString AttentionHeatmap::describeCell(int r, int c) const
{
    const auto &tokens = axisTokens();
    if (cellMasked(r, c))
        return QStringLiteral("attention[%1 \u2192 %2]: %3 (layer %4, head %5)")
            .arg(fullToken(tokens, r), fullToken(tokens, c), causalNote(wording().causalUnit))
            .arg(m_state.layer + 1)
            .arg(m_state.head + 1);
    QString text = QStringLiteral("attention[%1 \u2192 %2] = %3, layer %4, head %5")
                       .arg(fullToken(tokens, r), fullToken(tokens, c), QString::number(cellValue(r, c), 'f', 4))
                       .arg(m_state.layer + 1)
                       .arg(m_state.head + 1);
    const QString variant = attentionVariant();
    if (!variant.isEmpty())
        text += QStringLiteral(" (") + variant + QLatin1Char(')');
    if (const Matrix *m = currentMatrix()) {
        double sum = 0.0;
        for (int k = 0; k < m->cols; ++k)
            sum += static_cast<double>(m->at(r, k));
        text += QStringLiteral("; row sum %1").arg(sum, 0, 'f', 3);
    }
    return text;
}

// ---------------------------------------------------------------------------
// PieceHeatmap

PieceHeatmap::PieceHeatmap(QWidget *parent) : AttentionHeatmap(parent, false)
{
    rebuild();
}

AttentionHeatmap::Wording PieceHeatmap::wording() const
{
    return {QStringLiteral("Attention between word pieces"), QStringLiteral("piece"), false,
            QStringLiteral("as the model computed it; the trees and the Attention tab pool it per word"),
            QStringLiteral("piece")};
}

void PieceHeatmap::prepareMatrix()
{
    m_labels.clear();
    if (!m_data.analysis)
        return;
    const Analysis &a = *m_data.analysis;
    const bool readable = a.pieceText.size() == a.pieces.size();
    for (std::size_t i = 0; i < a.pieces.size(); ++i)
        m_labels.push_back(visiblePiece(readable ? a.pieceText[i] : a.pieces[i]));
}

const Matrix *PieceHeatmap::currentMatrix() const
{
    return m_data.analysis ? headMatrix(m_data.analysis->pieceAttention, m_state.layer, m_state.head) : nullptr;
}

const std::vector<std::string> &PieceHeatmap::axisTokens() const
{
    return m_labels;
}

} // namespace treelens
