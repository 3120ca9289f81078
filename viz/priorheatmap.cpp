#include "viz/priorheatmap.h"

#include <algorithm>

#include "viz/heatmaplabels.h"
#include "viz/plotstyle.h"

namespace treelens {

namespace {

/// An induced bracket: the box is drawn twice (wide black, thin white) so it
/// stays visible on both ends of viridis. One item per bracket.
class BracketBox : public QCPItemRect {
public:
    BracketBox(QCustomPlot *plot, int wordStart, int wordEnd)
        : QCPItemRect(plot), m_wordStart(wordStart), m_wordEnd(wordEnd)
    {
        setBrush(Qt::NoBrush);
        setPen(QPen(Qt::white, 1.5));
        setSelectable(false);
    }
    int wordStart() const { return m_wordStart; }
    int wordEnd() const { return m_wordEnd; }

protected:
    void draw(QCPPainter *painter) override
    {
        const QRectF r = QRectF(topLeft->pixelPosition(), bottomRight->pixelPosition()).normalized();
        if (!clipRect().intersects(r.toRect().adjusted(-3, -3, 3, 3)))
            return;
        PlotTitle::drawBracketBox(painter, r); // the title's key shows the same glyph
    }

private:
    int m_wordStart;
    int m_wordEnd;
};

/// Token range [first, last) of the words [start, end).
std::pair<int, int> wordsToTokens(const Analysis &a, int start, int end)
{
    const int words = static_cast<int>(a.wordToken.size());
    if (start < 0 || end > words || start >= end)
        return {-1, -1};
    const int first = a.wordToken[static_cast<std::size_t>(start)];
    // The next word's first token closes the range, so word pieces of the last
    // word are inside; the sentence's last word ends after its first token.
    const int last = end < words ? a.wordToken[static_cast<std::size_t>(end)]
                                 : a.wordToken[static_cast<std::size_t>(words - 1)] + 1;
    return {first, last};
}

} // namespace

PriorHeatmap::PriorHeatmap(QWidget *parent) : HeatmapView(parent)
{
    rebuild();
}

const Matrix *PriorHeatmap::currentMatrix() const
{
    if (!m_data.analysis)
        return nullptr;
    const Analysis &a = *m_data.analysis;
    if (m_state.layer < 0 || m_state.layer >= static_cast<int>(a.constituentPrior.size()))
        return nullptr;
    const Matrix &m = a.constituentPrior[static_cast<std::size_t>(m_state.layer)];
    return m.empty() ? nullptr : &m;
}

HeatmapView::Figure PriorHeatmap::describe(const Matrix *m) const
{
    Figure f;
    f.title = m ? QStringLiteral("Constituent prior C \u2014 layer %1").arg(m_state.layer + 1)
                : QStringLiteral("Constituent prior C \u2014 not available");
    if (m && !m_data.analysis->inducedBrackets.empty())
        f.lines.push_back({QStringLiteral("the model's induced tree: one box per bracket, its words \u00d7 its words "
                                          "(made from the link probabilities of several layers: the same boxes on "
                                          "every layer)"),
                           QColor(60, 60, 60), true});
    f.lines.push_back({noPriorNote(m_data.analysis.get()), noteColor()});
    f.scaleLabel = QStringLiteral("constituent prior C");
    f.xLabel = QStringLiteral("token j");
    f.yLabel = QStringLiteral("token i");
    return f;
}

void PriorHeatmap::addItems(int n)
{
    // One item per induced bracket, over tokens.
    const Analysis &a = *m_data.analysis;
    for (const auto &[start, end] : a.inducedBrackets) {
        auto [first, last] = wordsToTokens(a, start, end);
        if (first < 0 || last > n || first >= last)
            continue;
        auto *box = new BracketBox(m_plot, start, end);
        box->topLeft->setCoords(first - 0.5, first - 0.5);
        box->bottomRight->setCoords(last - 0.5, last - 0.5);
    }
}

std::vector<std::pair<int, int>> PriorHeatmap::bracketBoxes() const
{
    std::vector<std::pair<int, int>> out;
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto *box = dynamic_cast<BracketBox *>(m_plot->item(i)))
            out.emplace_back(box->wordStart(), box->wordEnd());
    std::sort(out.begin(), out.end());
    return out;
}

QString PriorHeatmap::describeCell(int r, int c) const
{
    const auto &tokens = axisTokens();
    return QStringLiteral("C[%1][%2] = %3, layer %4")
        .arg(fullToken(tokens, r), fullToken(tokens, c), QString::number(cellValue(r, c), 'f', 4))
        .arg(m_state.layer + 1);
}

} // namespace treelens
