#include "viz/heatmapview.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QPicture>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

#include "core/data/overlays.h"
#include "core/probing/attentiontree.h"
#include "viz/plotstyle.h"

namespace treelens {

namespace {

constexpr double kTickPt = kPlotTickPt;
constexpr double kMinTickPt = 6.5; // the smallest token label before labels are thinned
constexpr double kAxisLabelPt = kPlotAxisLabelPt;
constexpr double kTitlePt = kPlotTitlePt;

/// Token labels are cut so one long word piece cannot eat the plot.
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

/// Every k-th token label, with k chosen so labels of `labelExtent` pixels do
/// not overlap when one cell is `pixelsPerCell` wide.
int labelStep(double pixelsPerCell, double labelExtent)
{
    if (pixelsPerCell <= 0.0)
        return 1;
    return std::max(1, static_cast<int>(std::ceil(labelExtent * 1.15 / pixelsPerCell)));
}

void setTokenTicks(QCPAxis *axis, const std::vector<std::string> &tokens, int n, int step)
{
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < n; i += step)
        ticker->addTick(i, tokenLabel(tokens, i));
    ticker->setSubTickCount(0);
    axis->setTicker(ticker);
}

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

/// Relation kind: distances above this share the darkest colour.
constexpr int kRelationDistanceCap = 6;
/// Relation kind: cells are labelled up to this many tokens.
constexpr int kRelationLabelMaxTokens = 30;

/// What is missing, "This model reads no dependency relations: ..." ("" without an analysis).
QString noRelationsNote(const Analysis *a)
{
    if (!a)
        return QString();
    return QStringLiteral("This model reads no dependency relations: it has no relation matrix and no relation gate");
}

/// One cell outlined like a bracket box (Gate kind: a tree arc).
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

/// The selected map's outline, a few pixels outside the map so it hides no
/// cell (the gap is in pixels, whatever size the map is laid out at).
class SelectionBox : public QCPItemRect {
public:
    explicit SelectionBox(QCustomPlot *plot) : QCPItemRect(plot) { setSelectable(false); }

protected:
    void draw(QCPPainter *painter) override
    {
        const QRectF r = QRectF(topLeft->pixelPosition(), bottomRight->pixelPosition()).normalized();
        painter->setBrush(Qt::NoBrush);
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(QPen(QColor(20, 20, 20), 2.5));
        painter->drawRect(r.adjusted(-2.5, -2.5, 2.5, 2.5));
    }
};

/// A row title of a layout grid. A plain QCPTextElement caps its row at the
/// text height, which would squash the maps beside it.
class RowLabel : public QCPTextElement {
public:
    RowLabel(QCustomPlot *plot, const QString &text, const QFont &font) : QCPTextElement(plot, text, font) {}
    QSize maximumOuterSizeHint() const override
    {
        return QSize(QCPTextElement::maximumOuterSizeHint().width(), QWIDGETSIZE_MAX);
    }
};

/// The height of the band under each map of the heads overview (pixels).
constexpr int kSyntaxBandHeight = 13;

/// How syntactic a head is, in [0, 1]: white to dark orange, apart from the
/// maps' viridis so the two scales cannot be mistaken for each other.
QColor syntaxColor(double share)
{
    const double t = std::clamp(share, 0.0, 1.0);
    const QColor lo(255, 245, 235), hi(166, 54, 3);
    auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
    return QColor(mix(lo.red(), hi.red()), mix(lo.green(), hi.green()), mix(lo.blue(), hi.blue()));
}

/// The band under one map of the heads overview: filled by how syntactic the head
/// is, with its share and direction as text (the share alone when narrow).
class SyntaxBand : public QCPLayoutElement {
public:
    SyntaxBand(QCustomPlot *plot, double share, const QString &text, bool bold)
        : QCPLayoutElement(plot), m_share(share), m_text(text), m_bold(bold)
    {
    }
    QSize minimumOuterSizeHint() const override { return QSize(20, kSyntaxBandHeight); }
    QSize maximumOuterSizeHint() const override { return QSize(QWIDGETSIZE_MAX, kSyntaxBandHeight); }

protected:
    void draw(QCPPainter *painter) override
    {
        const QRectF r = QRectF(mRect).adjusted(1, 1, -1, 0);
        const QColor fill = syntaxColor(m_share);
        painter->setPen(QPen(QColor(190, 190, 190), 0.8));
        painter->setBrush(fill);
        painter->drawRect(r);
        QFont font = plotFont(kPlotTickPt - 1.0, m_bold);
        painter->setFont(font);
        painter->setPen(textOnColor(fill));
        QString text = m_text;
        if (QFontMetricsF(font).horizontalAdvance(text) > r.width() - 2)
            text = text.section(QLatin1Char(' '), 0, 0); // "67%"
        painter->drawText(r, Qt::AlignCenter, text);
    }

private:
    double m_share;
    QString m_text;
    bool m_bold;
};

/// What the attention colours measure: a short name for the colour scale (a long one
/// ran past both ends of the bar), and the rest for a line under the title. What a
/// row adds up to: the softmax's rows sum to 1; after ×C (not renormalised) to less.
QString attentionScaleLabel(bool afterC)
{
    return afterC ? QStringLiteral("attention \u00d7 C") : QStringLiteral("attention weight");
}

/// `rowsWhole`: the rows shown sum to 1 (false: a part of each row is elsewhere, e.g. a
/// word-piece model's special tokens folded away, or the other sentence of a pair).
QString attentionScaleNote(bool afterC, double upper, bool shared, bool rowsWhole = true)
{
    QString note = QStringLiteral("colour: ") + attentionScaleLabel(afterC) +
                   (afterC || !rowsWhole ? QStringLiteral(" (rows sum to less than 1)") : QStringLiteral(" (rows sum to 1)"));
    if (shared)
        note += QStringLiteral("; one scale for every map");
    if (upper < 1.0)
        note += QStringLiteral("; values \u2265 %1 saturate").arg(upper, 0, 'f', 2);
    return note;
}

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

// ---------------------------------------------------------------------------
// HeatmapView

HeatmapView::HeatmapView(Kind kind, QWidget *parent) : QWidget(parent), m_kind(kind)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(320, 280);
    m_plot->setBackground(Qt::white);
    layout->addWidget(m_plot);

    m_title = new PlotTitle(m_plot, plotFont(kTitlePt, true));
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_title);

    // Row 0 (the first query token) at the top; the colour scale as tall as the map.
    const MatrixPlotParts parts = addMatrixPlot(m_plot);
    m_map = parts.map;
    m_scale = parts.scale;
    m_margins = parts.margins;

    connect(m_plot, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent *e) { handleHover(e->position(), e->globalPosition().toPoint()); });
    // Labels are thinned for the size the map actually got; re-check after each
    // layout (converges at once: thinning hardly changes the margins).
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] {
        if (updateTicks(static_cast<double>(std::min(m_plot->axisRect()->width(), m_plot->axisRect()->height()))))
            m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    rebuild();
}

void HeatmapView::setData(const ViewData &data)
{
    m_data = data;
    rebuild();
}

void HeatmapView::setState(const ViewState &state)
{
    m_state = state;
    rebuild();
}

const Matrix *HeatmapView::currentMatrix() const
{
    if (!m_data.analysis)
        return nullptr;
    const Analysis &a = *m_data.analysis;
    if (m_kind == Kind::Attention)
        return selectedAttention(a, m_state);
    if (m_kind == Kind::Pieces)
        return headMatrix(a.pieceAttention, m_state.layer, m_state.head);
    if (m_kind == Kind::Relation)
        return m_distance.empty() ? nullptr : &m_distance;
    if (m_kind == Kind::Gate)
        return a.relations ? headMatrix(a.relationGate, m_state.layer, m_state.head) : nullptr;
    if (m_state.layer < 0 || m_state.layer >= static_cast<int>(a.constituentPrior.size()))
        return nullptr;
    const Matrix &m = a.constituentPrior[static_cast<std::size_t>(m_state.layer)];
    return m.empty() ? nullptr : &m;
}

const std::vector<std::string> &HeatmapView::axisTokens() const
{
    return m_kind == Kind::Pieces ? m_data.analysis->pieces : m_data.analysis->tokens;
}

QString HeatmapView::attentionVariant() const
{
    return m_data.analysis ? attentionVariantName(*m_data.analysis, m_state) : QString();
}

void HeatmapView::rebuild()
{
    // The relation matrix as tree distances (what its colours show) and its cell texts.
    m_distance = Matrix();
    m_labels.clear();
    if (m_kind == Kind::Relation && m_data.analysis && m_data.analysis->relations) {
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
    const Matrix *m = currentMatrix();
    m_rows = m ? std::min(m->rows, m->cols) : 0;
    m_tickStep = 0;
    const int n = m_rows;

    std::vector<PlotTitle::Line> lines;
    if (m_kind == Kind::Prior) {
        m_title->setText(m ? QStringLiteral("Constituent prior C \u2014 layer %1").arg(m_state.layer + 1)
                           : QStringLiteral("Constituent prior C \u2014 not available"));
        if (m && !m_data.analysis->inducedBrackets.empty())
            lines.push_back({QStringLiteral("the model's induced tree: one box per bracket, its words \u00d7 its words "
                                            "(made from the link probabilities of several layers: the same boxes on "
                                            "every layer)"),
                             QColor(60, 60, 60), PlotTitle::Glyph::BracketBox});
        lines.push_back({noPriorNote(m_data.analysis.get()), noteColor()});
        m_scale->axis()->setLabel(QStringLiteral("constituent prior C"));
        m_map->setDataRange(QCPRange(0.0, 1.0));
        m_scale->setDataRange(QCPRange(0.0, 1.0));
        m_plot->xAxis->setLabel(QStringLiteral("token j"));
        m_plot->yAxis->setLabel(QStringLiteral("token i"));
    } else if (m_kind == Kind::Relation) {
        m_title->setText(m ? QStringLiteral("Relation matrix") : QStringLiteral("Relation matrix \u2014 not available"));
        if (m)
            lines.push_back({QStringLiteral("what the model reads for each token pair: the arc label (both directions), "
                                            "a:b = a arcs up from the row token and b down to the column token, "
                                            "\u00b7 = [none] (farther than the model's T); colour: the tree distance "
                                            "a + b, bright = adjacent"),
                             QColor(60, 60, 60)});
        else
            lines.push_back({noRelationsNote(m_data.analysis.get()), noteColor()});
        m_map->setGradient(viridisGradient().inverted());
        m_scale->setGradient(viridisGradient().inverted());
        m_scale->axis()->setLabel(QStringLiteral("tree distance a + b"));
        m_map->setDataRange(QCPRange(0.0, kRelationDistanceCap));
        m_scale->setDataRange(QCPRange(0.0, kRelationDistanceCap));
        m_plot->xAxis->setLabel(QStringLiteral("key token j"));
        m_plot->yAxis->setLabel(QStringLiteral("query token i"));
    } else if (m_kind == Kind::Gate) {
        m_title->setText(m ? QStringLiteral("Relation gate g \u2014 layer %1, head %2").arg(m_state.layer + 1).arg(m_state.head + 1)
                           : QStringLiteral("Relation gate g \u2014 not available"));
        if (m)
            lines.push_back({QStringLiteral("the tree's arcs (both directions); g mixes the scores: (1 \u2212 g)\u00b7S\u1d49 + "
                                            "g\u00b7S\u02b3 (0: the plain score, 1: the relation score)"),
                             QColor(60, 60, 60), PlotTitle::Glyph::BracketBox});
        else
            lines.push_back({noRelationsNote(m_data.analysis.get()), noteColor()});
        m_scale->axis()->setLabel(QStringLiteral("gate g"));
        m_map->setDataRange(QCPRange(0.0, 1.0));
        m_scale->setDataRange(QCPRange(0.0, 1.0));
        m_plot->xAxis->setLabel(QStringLiteral("key token j"));
        m_plot->yAxis->setLabel(QStringLiteral("query token i (the gate's word)"));
    } else {
        const QString what = m_kind == Kind::Pieces ? QStringLiteral("Attention between word pieces") : QStringLiteral("Attention");
        QString title = QStringLiteral("%1 \u2014 layer %2, head %3").arg(what).arg(m_state.layer + 1).arg(m_state.head + 1);
        const QString variant = m_kind == Kind::Pieces ? QString() : attentionVariant();
        if (!variant.isEmpty())
            title += QStringLiteral(", ") + variant;
        if (!m)
            title = what + QStringLiteral(" \u2014 not available");
        m_title->setText(title);
        // Attention rows sum to at most 1, so in long sentences every weight is
        // small: scale the colours to the 99.5th percentile (larger values saturate).
        double upper = 1.0;
        if (m && !m->data.empty()) {
            std::vector<float> values = m->data;
            const auto k = static_cast<std::size_t>(static_cast<double>(values.size() - 1) * 0.995);
            std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
            upper = std::clamp(std::ceil(static_cast<double>(values[k]) * 20.0) / 20.0, 0.05, 1.0);
        }
        m_map->setDataRange(QCPRange(0.0, upper));
        m_scale->setDataRange(QCPRange(0.0, upper));
        const bool afterC = m_data.analysis && !m_data.analysis->constituentPrior.empty() && m_state.weightedAttention;
        m_scale->axis()->setLabel(attentionScaleLabel(afterC));
        if (m) {
            // A word-piece model's word matrix loses part of each row when its special tokens
            // are folded away or when it is one sentence of a pair: said from the rows themselves.
            bool rowsWhole = true;
            for (int r = 0; r < m->rows && rowsWhole && !m_data.analysis->pieces.empty(); ++r) {
                double sum = 0.0;
                for (int c = 0; c < m->cols; ++c)
                    sum += static_cast<double>(m->at(r, c));
                rowsWhole = sum == 0.0 || std::abs(sum - 1.0) < 1e-3; // an empty row: a word without pieces
            }
            lines.push_back({attentionScaleNote(afterC, upper, false, rowsWhole), QColor(60, 60, 60)});
            if (const QString groups = groupAttentionNote(*m_data.analysis, m_state.head); !groups.isEmpty())
                lines.push_back({groups, QColor(60, 60, 60)});
            if (m_kind == Kind::Pieces)
                lines.push_back({QStringLiteral("as the model computed it; the trees and the Attention tab pool it per word"),
                                 QColor(60, 60, 60)});
        }
        const QString unit = m_kind == Kind::Pieces ? QStringLiteral("piece") : QStringLiteral("token");
        m_plot->xAxis->setLabel(QStringLiteral("key %1 (attended to)").arg(unit));
        m_plot->yAxis->setLabel(QStringLiteral("query %1 (attending)").arg(unit));
    }

    // Cell (key = column c, value = row r) sits at coordinate (c, r).
    QCPColorMapData *d = m_map->data();
    d->setSize(std::max(n, 1), std::max(n, 1));
    d->setRange(QCPRange(0, std::max(n - 1, 0)), QCPRange(0, std::max(n - 1, 0)));
    if (n > 0) {
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                d->setCell(c, r, static_cast<double>(m->at(r, c)));
    } else {
        d->fill(std::nan(""));
    }
    m_map->setVisible(n > 0);
    const double hi = std::max(n, 1) - 0.5;
    m_plot->xAxis->setRange(-0.5, hi);
    m_plot->yAxis->setRange(-0.5, hi);

    // Bracket boxes (Prior only): one item per induced bracket, over tokens.
    m_plot->clearItems();
    if (m_kind == Kind::Prior && n > 0) {
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

    if ((m_kind == Kind::Relation || m_kind == Kind::Gate) && n > 0)
        addRelationItems(n);

    lines.push_back({unknownWordsNote(m_data.analysis.get()), noteColor()});
    lines.erase(std::remove_if(lines.begin(), lines.end(), [](const PlotTitle::Line &l) { return l.text.isEmpty(); }),
                lines.end());
    m_title->setLines(std::move(lines));

    updateTicks(static_cast<double>(std::min(m_plot->axisRect()->width(), m_plot->axisRect()->height())));
    m_plot->replot();
}

void HeatmapView::addRelationItems(int n)
{
    const TokenRelations &r = *m_data.analysis->relations;
    if (m_kind == Kind::Gate) {
        for (int i = 0; i < std::min(n, r.n); ++i)
            for (int j = 0; j < std::min(n, r.n); ++j)
                if (r.kind(i, j) == TokenRelations::Kind::Arc) {
                    auto *box = new CellBox(m_plot, i, j);
                    box->topLeft->setCoords(j - 0.5, i - 0.5);
                    box->bottomRight->setCoords(j + 0.5, i + 0.5);
                }
        return;
    }
    // Relation: the labels while they can be read (the export gives each cell ~34 pt).
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

std::vector<std::pair<int, int>> HeatmapView::cellBoxes() const
{
    std::vector<std::pair<int, int>> out;
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto *box = dynamic_cast<CellBox *>(m_plot->item(i)))
            out.emplace_back(box->row(), box->column());
    std::sort(out.begin(), out.end());
    return out;
}

QString HeatmapView::cellLabel(int r, int c) const
{
    if (m_kind != Kind::Relation || r < 0 || c < 0 || r >= static_cast<int>(m_labels.size())
        || c >= static_cast<int>(m_labels[static_cast<std::size_t>(r)].size()) || m_rows > kRelationLabelMaxTokens)
        return QString();
    return m_labels[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
}

QStringList HeatmapView::titleLines() const
{
    return m_title->lineTexts();
}

QString HeatmapView::scaleLabel() const
{
    return m_scale->axis()->label();
}

bool HeatmapView::updateTicks(double axisPixels)
{
    const int n = m_rows;
    if (n <= 0) {
        if (m_tickStep == -1)
            return false;
        m_tickStep = -1;
        QSharedPointer<QCPAxisTickerText> empty(new QCPAxisTickerText);
        m_plot->xAxis->setTicker(empty);
        m_plot->yAxis->setTicker(empty);
        return true;
    }
    const std::vector<std::string> &tokens = axisTokens();
    const double perCell = axisPixels / n;
    // A small pane (the plots' tab under the trees) first gets smaller labels, down to
    // kMinTickPt; only below that are labels thinned (8 words once lost every other one).
    const double fullHeight = QFontMetricsF(plotFont(kTickPt)).height();
    const double pt = std::clamp(kTickPt * perCell / (fullHeight * 1.15), kMinTickPt, kTickPt);
    const QFontMetricsF fm(plotFont(pt));
    const int step = labelStep(perCell, fm.height());
    // Horizontal labels only when every label fits its column.
    double widest = 0.0;
    for (int i = 0; i < n; ++i)
        widest = std::max(widest, fm.horizontalAdvance(tokenLabel(tokens, i)));
    const bool rotate = widest + 4.0 > perCell;
    if (step == m_tickStep && rotate == m_rotated && std::abs(pt - m_tickPt) < 0.05)
        return false;
    m_tickStep = step;
    m_rotated = rotate;
    m_tickPt = pt;
    m_plot->xAxis->setTickLabelFont(plotFont(pt));
    m_plot->yAxis->setTickLabelFont(plotFont(pt));
    setTokenTicks(m_plot->xAxis, tokens, n, step);
    setTokenTicks(m_plot->yAxis, tokens, n, step);
    m_plot->xAxis->setTickLabelRotation(rotate ? 90.0 : 0.0);
    return true;
}

int HeatmapView::rowCount() const
{
    return m_rows;
}

double HeatmapView::cellValue(int r, int c) const
{
    if (r < 0 || c < 0 || r >= m_rows || c >= m_rows)
        return std::nan("");
    return m_map->data()->cell(c, r);
}

std::vector<std::pair<int, int>> HeatmapView::bracketBoxes() const
{
    std::vector<std::pair<int, int>> out;
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto *box = dynamic_cast<BracketBox *>(m_plot->item(i)))
            out.emplace_back(box->wordStart(), box->wordEnd());
    std::sort(out.begin(), out.end());
    return out;
}

void HeatmapView::handleHover(const QPointF &pos, const QPoint &globalPos)
{
    if (m_rows <= 0 || !m_plot->axisRect()->rect().contains(pos.toPoint())) {
        QToolTip::hideText();
        return;
    }
    const int c = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pos.x())));
    const int r = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pos.y())));
    if (r < 0 || c < 0 || r >= m_rows || c >= m_rows)
        return;
    const QString text = cellText(r, c);
    Q_EMIT hovered(text);
    QToolTip::showText(globalPos, text, m_plot);
}

QString HeatmapView::cellText(int r, int c) const
{
    if (r < 0 || c < 0 || r >= m_rows || c >= m_rows || !m_data.analysis)
        return QString();
    const auto &tokens = axisTokens();
    const QString value = QString::number(cellValue(r, c), 'f', 4);
    QString text;
    if (m_kind == Kind::Relation || m_kind == Kind::Gate) {
        const TokenRelations &rel = *m_data.analysis->relations;
        const auto [up, down] = rel.dist(r, c);
        const QString pair = QStringLiteral("%1 \u2192 %2: %3, tree distance %4 (%5 up, %6 down)")
                                 .arg(fullToken(tokens, r), fullToken(tokens, c), QString::fromStdString(rel.name(r, c)))
                                 .arg(up + down)
                                 .arg(up)
                                 .arg(down);
        if (m_kind == Kind::Relation)
            return QStringLiteral("relation %1 (id %2)").arg(pair).arg(rel.id(r, c));
        return QStringLiteral("gate g = %1, layer %2, head %3; %4").arg(value).arg(m_state.layer + 1).arg(m_state.head + 1).arg(pair);
    }
    if (m_kind == Kind::Prior) {
        text = QStringLiteral("C[%1][%2] = %3, layer %4")
                   .arg(fullToken(tokens, r), fullToken(tokens, c), value)
                   .arg(m_state.layer + 1);
    } else {
        text = QStringLiteral("attention[%1 \u2192 %2] = %3, layer %4, head %5")
                   .arg(fullToken(tokens, r), fullToken(tokens, c), value)
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
    }
    return text;
}

QSizeF HeatmapView::exportSize() const
{
    const int n = std::max(m_rows, 1);
    // Cells between ~3 and 30 pt: small sentences are not blown up, long ones
    // stay on a page (labels are thinned instead).
    // The relation matrix's labels need wider cells.
    const double perCell = (m_kind == Kind::Relation && n <= kRelationLabelMaxTokens) ? 34.0 : 22.0;
    const double side = std::clamp(n * perCell, 240.0, m_kind == Kind::Relation ? 1020.0 : 720.0);
    double widest = 0.0;
    if (m_rows > 0) {
        const QFontMetricsF fm(plotFont(kTickPt));
        for (int i = 0; i < m_rows; ++i)
            widest = std::max(widest, fm.horizontalAdvance(tokenLabel(m_data.analysis->tokens, i)));
    }
    // At least as wide as the title and its lines (a short sentence's map is narrower).
    return QSizeF(std::max(side + widest + 150.0, static_cast<double>(m_title->neededWidth())),
                  side + widest + 90.0 + m_title->linesHeight());
}

void HeatmapView::renderTo(QPainter *painter, const QRectF &target)
{
    const QSizeF natural = exportSize();
    const QSize size(static_cast<int>(std::ceil(natural.width())), static_cast<int>(std::ceil(natural.height())));
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->restore();
    // Lay the map out at the export size first so label thinning fits it.
    layOutPlotAt(m_plot, size);
    updateTicks(static_cast<double>(std::min(m_plot->axisRect()->width(), m_plot->axisRect()->height())));
    paintPlot(m_plot, painter, target, size);
    m_plot->setViewport(m_plot->rect());
    // The queued replot lays the widget out again and afterReplot re-thins its labels.
    m_tickStep = 0;
}

QString HeatmapView::exportName() const
{
    switch (m_kind) {
    case Kind::Prior: return QStringLiteral("prior");
    case Kind::Attention: return QStringLiteral("attention");
    case Kind::Relation: return QStringLiteral("relations");
    case Kind::Gate: return QStringLiteral("gate");
    case Kind::Pieces: return QStringLiteral("pieces");
    }
    return QString();
}

// ---------------------------------------------------------------------------
// AttentionOverview

AttentionOverview::AttentionOverview(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_plot = new QCustomPlot;
    m_plot->setBackground(Qt::white);
    m_scroll->setWidget(m_plot);
    layout->addWidget(m_scroll);

    connect(m_plot, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent *e) { handleHover(e->position(), e->globalPosition().toPoint()); });
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) {
        if (e->button() == Qt::LeftButton)
            handleClick(e->position());
    });
    rebuild();
}

void AttentionOverview::setData(const ViewData &data)
{
    m_data = data;
    rebuild();
}

void AttentionOverview::setState(const ViewState &state)
{
    const bool sameMaps = state.weightedAttention == m_state.weightedAttention && state.relationAttention == m_state.relationAttention;
    m_state = state;
    if (sameMaps && !m_cells.empty()) {
        updateSelection(); // only the outline moves
        m_plot->replot();
    } else {
        rebuild();
    }
}

QStringList AttentionOverview::titleLines() const
{
    return m_title ? m_title->lineTexts() : QStringList();
}

double AttentionOverview::syntacticScore(int layer, int head) const
{
    if (!m_bands || layer < 0 || head < 0 || layer >= m_layers || head >= m_heads)
        return std::nan("");
    const ArcHits &hits = m_cells[static_cast<std::size_t>(layer * m_heads + head)].hits;
    return hits.arcs == 0 ? std::nan("") : hits.share();
}

QString AttentionOverview::syntacticLabel(int layer, int head) const
{
    const double share = syntacticScore(layer, head);
    if (std::isnan(share))
        return QString();
    const ArcHits &hits = m_cells[static_cast<std::size_t>(layer * m_heads + head)].hits;
    return QStringLiteral("%1% %2")
        .arg(std::lround(100.0 * share))
        .arg(hits.depToHead >= hits.headToDep ? QStringLiteral("d\u2192h") : QStringLiteral("h\u2192d"));
}

double AttentionOverview::offsetBaseline() const
{
    return m_tree.arcs > 0 ? static_cast<double>(m_tree.offsetHits) / m_tree.arcs : std::nan("");
}

int AttentionOverview::gridLayers() const
{
    return m_layers;
}

int AttentionOverview::gridHeads() const
{
    return m_heads;
}

const AttentionOverview::Cell *AttentionOverview::cellAt(int layer, int head) const
{
    if (layer < 0 || head < 0 || layer >= m_layers || head >= m_heads)
        return nullptr;
    const Cell &cell = m_cells[static_cast<std::size_t>(layer * m_heads + head)];
    return cell.rect ? &cell : nullptr;
}

double AttentionOverview::cellValue(int layer, int head, int r, int c) const
{
    const Cell *cell = cellAt(layer, head);
    if (!cell || !cell->map || r < 0 || c < 0 || r >= cell->n || c >= cell->n)
        return std::nan("");
    return cell->map->data()->cell(c, r);
}

void AttentionOverview::rebuild()
{
    m_plot->clearItems();
    m_plot->clearPlottables();
    m_plot->plotLayout()->clear();
    m_plot->plotLayout()->simplify();
    m_selection = nullptr;
    m_title = nullptr;
    m_cells.clear();
    m_layers = 0;
    m_heads = 0;
    m_bands = false;
    m_tree = ArcHits();

    const Analysis *a = m_data.analysis.get();
    if (a) {
        m_layers = static_cast<int>(a->attention.size());
        for (const auto &heads : a->attention)
            m_heads = std::max(m_heads, static_cast<int>(heads.size()));
    }
    if (m_layers == 0 || m_heads == 0) {
        m_layers = m_heads = 0;
        m_plot->plotLayout()->addElement(0, 0,
                                         new QCPTextElement(m_plot, QStringLiteral("No attention to show"),
                                                            plotFont(kTitlePt)));
        m_plot->setMinimumSize(200, 100);
        m_plot->replot();
        return;
    }

    QCPLayoutGrid *top = m_plot->plotLayout();
    QString title = QStringLiteral("Attention of every layer and head");
    if (const QString variant = attentionVariantName(*a, m_state); !variant.isEmpty())
        title += QStringLiteral(" (%1)").arg(variant);
    auto *titleElement = new PlotTitle(m_plot, plotFont(kTitlePt, true));
    titleElement->setText(title);
    top->addElement(0, 0, titleElement);
    m_title = titleElement;
    auto *grid = new QCPLayoutGrid;
    top->addElement(1, 0, grid);
    grid->setRowSpacing(4);
    grid->setColumnSpacing(4);

    // One shared scale for all maps, up to the 99.5th percentile of their values:
    // in long sentences attention is spread thin and a fixed 0..1 scale leaves every
    // map dark. Larger values saturate; the label gives the range.
    double upper = 1.0;
    {
        std::vector<float> values;
        for (int l = 0; l < m_layers; ++l)
            for (int h = 0; h < m_heads; ++h) {
                ViewState s = m_state;
                s.layer = l;
                s.head = h;
                if (const Matrix *m = selectedAttention(*a, s))
                    values.insert(values.end(), m->data.begin(), m->data.end());
            }
        if (!values.empty()) {
            const auto k = static_cast<std::size_t>(static_cast<double>(values.size() - 1) * 0.995);
            std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
            upper = std::clamp(std::ceil(static_cast<double>(values[k]) * 20.0) / 20.0, 0.05, 1.0);
        }
    }
    m_upper = upper;
    // How syntactic each head is on the sentence's dependency tree (when it has one of its words).
    m_cells.resize(static_cast<std::size_t>(m_layers * m_heads));
    const Sentence *sentence = m_data.sentence.get();
    if (sentence && sentence->dependency && sentence->dependency->size() == a->wordToken.size() &&
        a->wordToken.size() >= 2) {
        for (int l = 0; l < m_layers; ++l)
            for (int h = 0; h < m_heads; ++h) {
                ViewState s = m_state;
                s.layer = l;
                s.head = h;
                const Matrix *m = selectedAttention(*a, s);
                if (!m)
                    continue;
                auto hits = arcHits(*sentence->dependency, *m, a->wordToken);
                if (!hits || hits->arcs == 0)
                    continue;
                m_cells[static_cast<std::size_t>(l * m_heads + h)].hits = *hits;
                m_tree = *hits;
                m_bands = true;
            }
    }

    const bool afterC = !a->constituentPrior.empty() && m_state.weightedAttention;
    std::vector<PlotTitle::Line> titleLines{{attentionScaleNote(afterC, upper, true), QColor(60, 60, 60)}};
    if (m_bands) {
        const std::string source = sentence->metadataValue("dependency_source");
        titleLines.push_back(
            {QStringLiteral("bands: how syntactic each head is: of the %2 arcs of the %1 dependency tree, the share whose "
                            "dependent attends most to its head (d\u2192h) or head to the dependent (h\u2192d), the better; "
                            "bold: above the best fixed offset (%3%4: %5%)")
                 .arg(source == "gold" || source == "edited" ? QString::fromStdString(source) : QStringLiteral("parsed"))
                 .arg(m_tree.arcs)
                 .arg(m_tree.bestOffset > 0 ? QStringLiteral("+") : QString())
                 .arg(m_tree.bestOffset)
                 .arg(std::lround(100.0 * m_tree.offsetHits / m_tree.arcs)),
             QColor(60, 60, 60)});
    }
    if (const QString note = unknownWordsNote(a); !note.isEmpty())
        titleLines.push_back({note, noteColor()});
    titleElement->setLines(std::move(titleLines));
    auto *scale = new QCPColorScale(m_plot);
    top->addElement(1, 1, scale);
    scale->setType(QCPAxis::atRight);
    scale->setBarWidth(12);
    scale->setGradient(viridisGradient());
    scale->setDataRange(QCPRange(0.0, upper));
    scale->axis()->setLabel(attentionScaleLabel(afterC));
    scale->axis()->setLabelFont(plotFont(kAxisLabelPt));
    scale->axis()->setTickLabelFont(plotFont(kTickPt));
    top->setColumnStretchFactor(1, 0.01);
    top->setRowStretchFactor(0, 0.01);

    // Head titles in row 0, layer titles in column 0: small and fixed.
    for (int h = 0; h < m_heads; ++h)
        grid->addElement(0, h + 1, new QCPTextElement(m_plot, QStringLiteral("H%1").arg(h + 1), plotFont(kTickPt)));
    // A layer's maps in grid row mapRow(l), their bands (if any) in the row under it.
    auto mapRow = [this](int l) { return m_bands ? 2 * l + 1 : l + 1; };
    for (int l = 0; l < m_layers; ++l)
        grid->addElement(mapRow(l), 0, new RowLabel(m_plot, QStringLiteral("L%1").arg(l + 1), plotFont(kTickPt)));
    grid->setRowStretchFactor(0, 0.001);
    grid->setColumnStretchFactor(0, 0.001);

    for (int l = 0; l < m_layers; ++l) {
        for (int h = 0; h < m_heads; ++h) {
            ViewState s = m_state;
            s.layer = l;
            s.head = h;
            const Matrix *m = selectedAttention(*a, s);
            auto *rect = new QCPAxisRect(m_plot, true);
            grid->addElement(mapRow(l), h + 1, rect);
            Cell &cell = m_cells[static_cast<std::size_t>(l * m_heads + h)];
            if (m_bands) {
                const double share = syntacticScore(l, h);
                grid->addElement(mapRow(l) + 1, h + 1,
                                 new SyntaxBand(m_plot, std::isnan(share) ? 0.0 : share, syntacticLabel(l, h),
                                                std::max(cell.hits.depToHead, cell.hits.headToDep) > m_tree.offsetHits));
            }
            rect->setAutoMargins(QCP::msNone);
            rect->setMargins(QMargins(1, 1, 1, 1));
            rect->setMinimumSize(24, 24);
            for (QCPAxis *axis : rect->axes()) {
                axis->setVisible(false);
                axis->grid()->setVisible(false);
            }
            QCPAxis *x = rect->axis(QCPAxis::atBottom);
            QCPAxis *y = rect->axis(QCPAxis::atLeft);
            y->setRangeReversed(true);
            cell.rect = rect;
            cell.n = m ? std::min(m->rows, m->cols) : 0;
            const int n = std::max(cell.n, 1);
            x->setRange(-0.5, n - 0.5);
            y->setRange(-0.5, n - 0.5);
            // A light frame so empty or dark cells still read as a grid.
            rect->setBackground(QBrush(QColor(245, 245, 245)));
            if (!m)
                continue;
            auto *map = new QCPColorMap(x, y);
            map->setInterpolate(false);
            map->setSelectable(QCP::stNone);
            map->setGradient(viridisGradient());
            map->setColorScale(scale);
            map->setDataRange(QCPRange(0.0, upper));
            QCPColorMapData *d = map->data();
            d->setSize(cell.n, cell.n);
            d->setRange(QCPRange(0, cell.n - 1), QCPRange(0, cell.n - 1));
            for (int r = 0; r < cell.n; ++r)
                for (int c = 0; c < cell.n; ++c)
                    d->setCell(c, r, static_cast<double>(m->at(r, c)));
            cell.map = map;
        }
    }
    // The colour scale spans the maps, not the head titles above them, and
    // both leave room at the bottom for the scale's "0" label.
    int headRow = 0;
    for (int h = 0; h < m_heads; ++h)
        headRow = std::max(headRow, grid->element(0, h + 1)->minimumOuterSizeHint().height());
    grid->setAutoMargins(QCP::msNone);
    grid->setMargins(QMargins(0, 0, 0, 8));
    scale->setAutoMargins(QCP::msLeft | QCP::msRight);
    scale->setMargins(QMargins(0, headRow + grid->rowSpacing(), 0, 8));

    const QSize natural = exportSize().toSize();
    m_plot->setMinimumSize(natural.width() * 3 / 4, natural.height() * 3 / 4);
    updateSelection();
    m_plot->replot();
}

void AttentionOverview::updateSelection()
{
    if (m_selection) {
        m_plot->removeItem(m_selection);
        m_selection = nullptr;
    }
    const Cell *cell = cellAt(m_state.layer, m_state.head);
    if (!cell)
        return;
    auto *box = new SelectionBox(m_plot);
    box->setClipToAxisRect(false);
    for (QCPItemPosition *p : {box->topLeft, box->bottomRight}) {
        p->setType(QCPItemPosition::ptAxisRectRatio);
        p->setAxisRect(cell->rect);
    }
    box->topLeft->setCoords(0.0, 0.0);
    box->bottomRight->setCoords(1.0, 1.0);
    m_selection = box;
}

bool AttentionOverview::hitCell(const QPointF &pos, int *layer, int *head) const
{
    for (int l = 0; l < m_layers; ++l)
        for (int h = 0; h < m_heads; ++h) {
            const Cell *cell = cellAt(l, h);
            if (cell && cell->rect->rect().contains(pos.toPoint())) {
                *layer = l;
                *head = h;
                return true;
            }
        }
    return false;
}

void AttentionOverview::handleClick(const QPointF &pos)
{
    int l = -1, h = -1;
    if (hitCell(pos, &l, &h))
        Q_EMIT cellActivated(l, h);
}

void AttentionOverview::handleHover(const QPointF &pos, const QPoint &globalPos)
{
    int l = -1, h = -1;
    if (!hitCell(pos, &l, &h)) {
        QToolTip::hideText();
        return;
    }
    const Cell *cell = cellAt(l, h);
    QString text = QStringLiteral("Layer %1, head %2").arg(l + 1).arg(h + 1);
    if (cell->map) {
        const QCPAxisRect *rect = cell->rect;
        const int c = static_cast<int>(std::lround(rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x())));
        const int r = static_cast<int>(std::lround(rect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y())));
        if (r >= 0 && c >= 0 && r < cell->n && c < cell->n) {
            const auto &tokens = m_data.analysis->tokens;
            text += QStringLiteral(": attention[%1 \u2192 %2] = %3")
                        .arg(fullToken(tokens, r), fullToken(tokens, c))
                        .arg(cellValue(l, h, r, c), 0, 'f', 4);
        }
    }
    if (cell->hits.arcs > 0)
        text += QStringLiteral("; on the tree: d\u2192h %1/%3, h\u2192d %2/%3")
                    .arg(cell->hits.depToHead)
                    .arg(cell->hits.headToDep)
                    .arg(cell->hits.arcs);
    text += QStringLiteral(" (click to select)");
    Q_EMIT hovered(text);
    QToolTip::showText(globalPos, text, m_plot);
}

QSizeF AttentionOverview::exportSize() const
{
    if (m_layers == 0 || m_heads == 0)
        return QSizeF(240, 120);
    const double cell = m_heads <= 6 ? 80.0 : (m_heads <= 12 ? 60.0 : 44.0);
    const double band = m_bands ? kSyntaxBandHeight + 4.0 : 0.0;
    return QSizeF(std::max(m_heads * (cell + 4) + 130.0, m_title ? static_cast<double>(m_title->neededWidth()) : 0.0),
                  m_layers * (cell + 4 + band) + 60.0 + (m_title ? m_title->linesHeight() : 0));
}

void AttentionOverview::renderTo(QPainter *painter, const QRectF &target)
{
    const QSizeF natural = exportSize();
    const QSize size(static_cast<int>(std::ceil(natural.width())), static_cast<int>(std::ceil(natural.height())));
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->restore();
    paintPlot(m_plot, painter, target, size);
}

} // namespace treelens
