#include "viz/relationheatmap.h"

#include <algorithm>

#include "viz/heatmaplabels.h"
#include "viz/plotstyle.h"

namespace treelens {

namespace {

/// Distances above this share the darkest colour.
constexpr int kRelationDistanceCap = 6;
/// Cells are labelled up to this many tokens.
constexpr int kRelationLabelMaxTokens = 30;

/// What is missing, "This model reads no dependency relations: ..." ("" without an analysis).
QString noRelationsNote(const Analysis *a)
{
    if (!a)
        return QString();
    return QStringLiteral("This model reads no dependency relations: it has no relation matrix and no relation gate");
}

/// What the model reads for the pair (r, c), for the hover texts:
/// "saw → kite: obj, tree distance 1 (0 up, 1 down)".
QString relationPairText(const TokenRelations &rel, const std::vector<std::string> &tokens, int r, int c)
{
    const auto [up, down] = rel.dist(r, c);
    return QStringLiteral("%1 \u2192 %2: %3, tree distance %4 (%5 up, %6 down)")
        .arg(fullToken(tokens, r), fullToken(tokens, c), QString::fromStdString(rel.name(r, c)))
        .arg(up + down)
        .arg(up)
        .arg(down);
}

/// One cell outlined like a bracket box (a tree arc on the gate).
class CellBox : public QCPItemRect {
public:
    CellBox(QCustomPlot *plot, int row, int column) : QCPItemRect(plot), m_row(row), m_column(column)
    {
        setBrush(Qt::NoBrush);
        setSelectable(false);
    }
    int row() const { return m_row; }
    int column() const { return m_column; }

protected:
    void draw(QCPPainter *painter) override
    {
        const QRectF r = QRectF(topLeft->pixelPosition(), bottomRight->pixelPosition()).normalized();
        if (!clipRect().intersects(r.toRect().adjusted(-3, -3, 3, 3)))
            return;
        PlotTitle::drawBracketBox(painter, r.adjusted(1.5, 1.5, -1.5, -1.5));
    }

private:
    int m_row, m_column;
};

} // namespace

// ---------------------------------------------------------------------------
// RelationHeatmap

RelationHeatmap::RelationHeatmap(QWidget *parent) : HeatmapView(parent)
{
    rebuild();
}

void RelationHeatmap::prepareMatrix()
{
    // The relation matrix as tree distances (what its colours show) and its cell texts.
    m_distance = Matrix();
    m_labels.clear();
    if (!m_data.analysis || !m_data.analysis->relations)
        return;
    const TokenRelations &r = *m_data.analysis->relations;
    m_distance = Matrix(r.n, r.n);
    m_labels.assign(static_cast<std::size_t>(r.n), std::vector<QString>(static_cast<std::size_t>(r.n)));
    for (int i = 0; i < r.n; ++i)
        for (int j = 0; j < r.n; ++j) {
            const auto [up, down] = r.dist(i, j);
            m_distance.at(i, j) = static_cast<float>(std::min(up + down, kRelationDistanceCap));
            QString label;
            switch (r.kind(i, j)) {
            case TokenRelations::Kind::Self: break;
            case TokenRelations::Kind::None: label = QStringLiteral("\u00b7"); break;
            default: label = QString::fromStdString(r.name(i, j)); break;
            }
            if (label.size() > 7)
                label = label.left(6) + QChar(0x2026);
            m_labels[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = label;
        }
}

const Matrix *RelationHeatmap::currentMatrix() const
{
    return m_data.analysis && !m_distance.empty() ? &m_distance : nullptr;
}

HeatmapView::Figure RelationHeatmap::describe(const Matrix *m) const
{
    Figure f;
    f.title = m ? QStringLiteral("Relation matrix") : QStringLiteral("Relation matrix \u2014 not available");
    if (m)
        f.lines.push_back({QStringLiteral("what the model reads for each token pair: the arc label (both directions), "
                                          "a:b = a arcs up from the row token and b down to the column token, "
                                          "\u00b7 = [none] (farther than the model's T); colour: the tree distance "
                                          "a + b, bright = adjacent"),
                           QColor(60, 60, 60)});
    else
        f.lines.push_back({noRelationsNote(m_data.analysis.get()), noteColor()});
    f.nearIsBright = true;
    f.scaleLabel = QStringLiteral("tree distance a + b");
    f.upper = kRelationDistanceCap;
    f.xLabel = QStringLiteral("key token j");
    f.yLabel = QStringLiteral("query token i");
    return f;
}

void RelationHeatmap::addItems(int n)
{
    // The labels while they can be read (the export gives each cell ~34 pt).
    if (n > kRelationLabelMaxTokens)
        return;
    const QFont font = plotFont(6.5);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const QString &label = m_labels[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
            if (label.isEmpty())
                continue;
            auto *t = new QCPItemText(m_plot);
            t->position->setCoords(j, i);
            t->setText(label);
            t->setFont(font);
            t->setSelectable(false);
            // Dark text on the bright (near) cells, light text on the dark (far) ones.
            const double d = static_cast<double>(m_distance.at(i, j));
            t->setColor(d <= 2.0 ? QColor(20, 20, 20) : QColor(245, 245, 245));
            t->setClipToAxisRect(true);
        }
}

QString RelationHeatmap::cellLabel(int r, int c) const
{
    if (r < 0 || c < 0 || r >= static_cast<int>(m_labels.size()) ||
        c >= static_cast<int>(m_labels[static_cast<std::size_t>(r)].size()) || m_rows > kRelationLabelMaxTokens)
        return QString();
    return m_labels[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
}

QString RelationHeatmap::describeCell(int r, int c) const
{
    const TokenRelations &rel = *m_data.analysis->relations;
    return QStringLiteral("relation %1 (id %2)").arg(relationPairText(rel, axisTokens(), r, c)).arg(rel.id(r, c));
}

double RelationHeatmap::exportCellPoints(int n) const
{
    return n <= kRelationLabelMaxTokens ? 34.0 : 22.0;
}

double RelationHeatmap::exportSideLimit() const
{
    return 1020.0;
}

// ---------------------------------------------------------------------------
// GateHeatmap

GateHeatmap::GateHeatmap(QWidget *parent) : HeatmapView(parent)
{
    rebuild();
}

const Matrix *GateHeatmap::currentMatrix() const
{
    if (!m_data.analysis || !m_data.analysis->relations)
        return nullptr;
    return headMatrix(m_data.analysis->relationGate, m_state.layer, m_state.head);
}

HeatmapView::Figure GateHeatmap::describe(const Matrix *m) const
{
    Figure f;
    f.title = m ? QStringLiteral("Relation gate g \u2014 layer %1, head %2").arg(m_state.layer + 1).arg(m_state.head + 1)
                : QStringLiteral("Relation gate g \u2014 not available");
    if (m)
        f.lines.push_back({QStringLiteral("the tree's arcs (both directions); g mixes the scores: (1 \u2212 g)\u00b7S\u1d49 + "
                                          "g\u00b7S\u02b3 (0: the plain score, 1: the relation score)"),
                           QColor(60, 60, 60), true});
    else
        f.lines.push_back({noRelationsNote(m_data.analysis.get()), noteColor()});
    f.scaleLabel = QStringLiteral("gate g");
    f.xLabel = QStringLiteral("key token j");
    f.yLabel = QStringLiteral("query token i (the gate's word)");
    return f;
}

void GateHeatmap::addItems(int n)
{
    const TokenRelations &r = *m_data.analysis->relations;
    for (int i = 0; i < std::min(n, r.n); ++i)
        for (int j = 0; j < std::min(n, r.n); ++j)
            if (r.kind(i, j) == TokenRelations::Kind::Arc) {
                auto *box = new CellBox(m_plot, i, j);
                box->topLeft->setCoords(j - 0.5, i - 0.5);
                box->bottomRight->setCoords(j + 0.5, i + 0.5);
            }
}

std::vector<std::pair<int, int>> GateHeatmap::cellBoxes() const
{
    std::vector<std::pair<int, int>> out;
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto *box = dynamic_cast<CellBox *>(m_plot->item(i)))
            out.emplace_back(box->row(), box->column());
    std::sort(out.begin(), out.end());
    return out;
}

QString GateHeatmap::describeCell(int r, int c) const
{
    const TokenRelations &rel = *m_data.analysis->relations;
    return QStringLiteral("gate g = %1, layer %2, head %3; %4")
        .arg(QString::number(cellValue(r, c), 'f', 4))
        .arg(m_state.layer + 1)
        .arg(m_state.head + 1)
        .arg(relationPairText(rel, axisTokens(), r, c));
}

} // namespace treelens
