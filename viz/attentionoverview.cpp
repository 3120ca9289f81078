#include "viz/attentionoverview.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

#include "viz/heatmaplabels.h"
#include "viz/plotstyle.h"

namespace treelens {

namespace {

constexpr double kTickPt = kPlotTickPt;
constexpr double kAxisLabelPt = kPlotAxisLabelPt;
constexpr double kTitlePt = kPlotTitlePt;

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

/// A head the analysis was made without: a red frame and cross over its map, and "off".
class AblatedMark : public QCPItemRect {
public:
    explicit AblatedMark(QCustomPlot *plot) : QCPItemRect(plot) { setSelectable(false); }

protected:
    void draw(QCPPainter *painter) override
    {
        const QRectF r = QRectF(topLeft->pixelPosition(), bottomRight->pixelPosition()).normalized();
        painter->setRenderHint(QPainter::Antialiasing, true);
        QColor veil(Qt::white);
        veil.setAlpha(120);
        painter->fillRect(r, veil);
        painter->setPen(QPen(ablationColor(), 2.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(r.adjusted(-1, -1, 1, 1));
        painter->drawLine(r.topLeft(), r.bottomRight());
        painter->drawLine(r.topRight(), r.bottomLeft());
        QFont f = painter->font();
        f.setBold(true);
        painter->setFont(f);
        const QRectF label(r.center() - QPointF(14, 8), QSizeF(28, 16));
        painter->fillRect(label, Qt::white);
        painter->drawText(label, Qt::AlignCenter, QStringLiteral("off"));
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

/// The height of the band under each map (pixels).
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

/// The band under one map: filled by how syntactic the head is, with its share and
/// direction as text (the share alone when narrow).
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

} // namespace

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
            handleClick(e->position(), m_clickAblates || (e->modifiers() & Qt::ControlModifier));
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
        .arg(hits.causal                        ? QStringLiteral("later\u2192earlier")
             : hits.depToHead >= hits.headToDep ? QStringLiteral("d\u2192h")
                                                : QStringLiteral("h\u2192d"));
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

const Matrix *AttentionOverview::attentionAt(int layer, int head) const
{
    ViewState s = m_state;
    s.layer = layer;
    s.head = head;
    return selectedAttention(*m_data.analysis, s);
}

void AttentionOverview::clear()
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
}

void AttentionOverview::rebuild()
{
    clear();
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
    m_title = new PlotTitle(m_plot, plotFont(kTitlePt, true));
    m_title->setText(title);
    top->addElement(0, 0, m_title);
    auto *grid = new QCPLayoutGrid;
    top->addElement(1, 0, grid);
    grid->setRowSpacing(4);
    grid->setColumnSpacing(4);

    m_upper = sharedScaleTop();
    m_cells.resize(static_cast<std::size_t>(m_layers * m_heads));
    countTreeHits();
    const bool afterC = !a->constituentPrior.empty() && m_state.weightedAttention;
    setTitleLines(afterC);
    QCPColorScale *scale = addColourScale(afterC);
    addGridLabels(grid);
    for (int l = 0; l < m_layers; ++l)
        for (int h = 0; h < m_heads; ++h)
            addCell(grid, scale, l, h);
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
    markAblated();
    updateSelection();
    m_plot->replot();
}

double AttentionOverview::sharedScaleTop() const
{
    // One scale for all maps: in long sentences attention is spread thin and a fixed
    // 0..1 scale leaves every map dark. Larger values saturate; the note gives the range.
    std::vector<float> values;
    for (int l = 0; l < m_layers; ++l)
        for (int h = 0; h < m_heads; ++h)
            if (const Matrix *m = attentionAt(l, h))
                for (int r = 0; r < m->rows; ++r)
                    for (int c = 0; c < m->cols; ++c)
                        if (!causallyMasked(*m_data.analysis, r, c)) // not possible: no part of the scale
                            values.push_back(m->at(r, c));
    return attentionScaleTop(std::move(values));
}

void AttentionOverview::countTreeHits()
{
    const Analysis &a = *m_data.analysis;
    const Sentence *sentence = m_data.sentence.get();
    if (!sentence || !sentence->dependency || sentence->dependency->size() != a.wordToken.size() ||
        a.wordToken.size() < 2)
        return;
    for (int l = 0; l < m_layers; ++l)
        for (int h = 0; h < m_heads; ++h) {
            const Matrix *m = attentionAt(l, h);
            if (!m)
                continue;
            // A causal head sees an arc only as its later word attending the earlier one (core arcHits).
            auto hits = arcHits(*sentence->dependency, *m, a.wordToken, 5, a.causalAttention);
            if (!hits || hits->arcs == 0)
                continue;
            m_cells[static_cast<std::size_t>(l * m_heads + h)].hits = *hits;
            m_tree = *hits;
            m_bands = true;
        }
}

QString AttentionOverview::bandCaption() const
{
    const std::string source = m_data.sentence->metadataValue("dependency_source");
    const QString tree = source == "gold" || source == "edited" ? QString::fromStdString(source) : QStringLiteral("parsed");
    const QString offset = QStringLiteral("%1%2: %3%")
                               .arg(m_tree.bestOffset > 0 ? QStringLiteral("+") : QString())
                               .arg(m_tree.bestOffset)
                               .arg(std::lround(100.0 * m_tree.offsetHits / m_tree.arcs));
    if (m_tree.causal)
        return QStringLiteral("bands: how syntactic each head is: of the %2 arcs of the %1 dependency tree, the share whose "
                              "later word attends most (among the words before it) to the earlier one (later\u2192earlier), "
                              "the only direction a causal head can see an arc in; bold: above the best leftward fixed "
                              "offset (%3)")
            .arg(tree)
            .arg(m_tree.arcs)
            .arg(offset);
    return QStringLiteral("bands: how syntactic each head is: of the %2 arcs of the %1 dependency tree, the share whose "
                          "dependent attends most to its head (d\u2192h) or head to the dependent (h\u2192d), the better; "
                          "bold: above the best fixed offset (%3)")
        .arg(tree)
        .arg(m_tree.arcs)
        .arg(offset);
}

void AttentionOverview::setTitleLines(bool afterC)
{
    std::vector<PlotTitle::Line> lines{{attentionScaleNote(afterC, m_upper, true), QColor(60, 60, 60)}};
    if (m_data.analysis->causalAttention)
        lines.push_back({QStringLiteral("hatched: ") + causalNote(), QColor(60, 60, 60), PlotTitle::Glyph::Hatch});
    if (m_bands)
        lines.push_back({bandCaption(), QColor(60, 60, 60)});
    if (const QString note = unknownWordsNote(m_data.analysis.get()); !note.isEmpty())
        lines.push_back({note, noteColor()});
    if (const QString badge = ablationBadge(m_data.analysis.get()); !badge.isEmpty())
        lines.insert(lines.begin(), {badge + QStringLiteral(" (crossed out below; Ctrl+click a head to switch it on or off)"),
                                     ablationColor()});
    m_title->setLines(std::move(lines));
}

QCPColorScale *AttentionOverview::addColourScale(bool afterC)
{
    QCPLayoutGrid *top = m_plot->plotLayout();
    auto *scale = new QCPColorScale(m_plot);
    top->addElement(1, 1, scale);
    scale->setType(QCPAxis::atRight);
    scale->setBarWidth(12);
    scale->setGradient(viridisGradient());
    scale->setDataRange(QCPRange(0.0, m_upper));
    scale->axis()->setLabel(attentionScaleLabel(afterC));
    scale->axis()->setLabelFont(plotFont(kAxisLabelPt));
    scale->axis()->setTickLabelFont(plotFont(kTickPt));
    top->setColumnStretchFactor(1, 0.01);
    top->setRowStretchFactor(0, 0.01);
    return scale;
}

void AttentionOverview::addGridLabels(QCPLayoutGrid *grid)
{
    // Head titles in row 0, layer titles in column 0: small and fixed.
    for (int h = 0; h < m_heads; ++h)
        grid->addElement(0, h + 1, new QCPTextElement(m_plot, QStringLiteral("H%1").arg(h + 1), plotFont(kTickPt)));
    for (int l = 0; l < m_layers; ++l)
        grid->addElement(mapRow(l), 0, new RowLabel(m_plot, QStringLiteral("L%1").arg(l + 1), plotFont(kTickPt)));
    grid->setRowStretchFactor(0, 0.001);
    grid->setColumnStretchFactor(0, 0.001);
}

void AttentionOverview::addCell(QCPLayoutGrid *grid, QCPColorScale *scale, int l, int h)
{
    const Matrix *m = attentionAt(l, h);
    auto *rect = new QCPAxisRect(m_plot, true);
    grid->addElement(mapRow(l), h + 1, rect);
    Cell &cell = m_cells[static_cast<std::size_t>(l * m_heads + h)];
    if (m_bands) {
        const double share = syntacticScore(l, h);
        grid->addElement(mapRow(l) + 1, h + 1,
                         new SyntaxBand(m_plot, std::isnan(share) ? 0.0 : share, syntacticLabel(l, h),
                                        std::lround(cell.hits.share() * cell.hits.arcs) > m_tree.offsetHits));
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
        return;
    auto *map = new QCPColorMap(x, y);
    map->setInterpolate(false);
    map->setSelectable(QCP::stNone);
    QCPColorGradient gradient = viridisGradient();
    gradient.setNanHandling(QCPColorGradient::nhTransparent); // the hatching shows through
    map->setGradient(gradient);
    map->setColorScale(scale);
    map->setDataRange(QCPRange(0.0, m_upper));
    QCPColorMapData *d = map->data();
    d->setSize(cell.n, cell.n);
    d->setRange(QCPRange(0, cell.n - 1), QCPRange(0, cell.n - 1));
    const Analysis &a = *m_data.analysis;
    for (int r = 0; r < cell.n; ++r)
        for (int c = 0; c < cell.n; ++c)
            d->setCell(c, r, causallyMasked(a, r, c) ? std::nan("") : static_cast<double>(m->at(r, c)));
    cell.map = map;
    if (a.causalAttention) // a causal head's attention to later words: not possible, hatched
        new CausalHatch(m_plot, cell.n, x, y);
}

QCPItemRect *AttentionOverview::coverMap(QCPItemRect *item, const Cell &cell)
{
    item->setClipToAxisRect(false);
    for (QCPItemPosition *p : {item->topLeft, item->bottomRight}) {
        p->setType(QCPItemPosition::ptAxisRectRatio);
        p->setAxisRect(cell.rect);
    }
    item->topLeft->setCoords(0.0, 0.0);
    item->bottomRight->setCoords(1.0, 1.0);
    return item;
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
    m_selection = coverMap(new SelectionBox(m_plot), *cell);
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

void AttentionOverview::handleClick(const QPointF &pos, bool toggle)
{
    int l = -1, h = -1;
    if (!hitCell(pos, &l, &h))
        return;
    if (toggle)
        Q_EMIT ablationToggled(l, h);
    else
        Q_EMIT cellActivated(l, h);
}

QRect AttentionOverview::mapRect(int layer, int head) const
{
    const Cell *cell = cellAt(layer, head);
    return cell ? cell->rect->rect() : QRect();
}

bool AttentionOverview::isAblated(int layer, int head) const
{
    if (!m_data.analysis)
        return false;
    for (const auto &[l, h] : m_data.analysis->ablated)
        if (l == layer && (h < 0 || h == head))
            return true;
    return false;
}

void AttentionOverview::markAblated()
{
    for (int l = 0; l < m_layers; ++l)
        for (int h = 0; h < m_heads; ++h) {
            const Cell *cell = cellAt(l, h);
            if (!cell || !isAblated(l, h))
                continue;
            coverMap(new AblatedMark(m_plot), *cell);
        }
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
            text += causallyMasked(*m_data.analysis, r, c)
                        ? QStringLiteral(": attention[%1 \u2192 %2]: %3").arg(fullToken(tokens, r), fullToken(tokens, c), causalNote())
                        : QStringLiteral(": attention[%1 \u2192 %2] = %3")
                              .arg(fullToken(tokens, r), fullToken(tokens, c))
                              .arg(cellValue(l, h, r, c), 0, 'f', 4);
        }
    }
    if (cell->hits.arcs > 0 && cell->hits.causal)
        text += QStringLiteral("; on the tree: later\u2192earlier %1/%2").arg(cell->hits.laterToEarlier).arg(cell->hits.arcs);
    else if (cell->hits.arcs > 0)
        text += QStringLiteral("; on the tree: d\u2192h %1/%3, h\u2192d %2/%3")
                    .arg(cell->hits.depToHead)
                    .arg(cell->hits.headToDep)
                    .arg(cell->hits.arcs);
    text += isAblated(l, h) ? QStringLiteral(" — switched off") : QString();
    text += m_clickAblates ? QStringLiteral(" (click to switch this head off or on)")
                           : QStringLiteral(" (click to select; Ctrl+click to switch it off or on)");
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
