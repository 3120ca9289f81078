#include "viz/linkstripview.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPicture>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include "viz/plotstyle.h"
#include "viz/worddiagram.h"

namespace treelens {

namespace {

constexpr double kTickPt = kPlotTickPt;
constexpr double kAxisLabelPt = kPlotAxisLabelPt;
constexpr double kTitlePt = kPlotTitlePt;
constexpr double kWordPt = 10.0;
constexpr double kNotePt = 8.5;
// Merge strip geometry (points).
constexpr double kStripPad = 10.0;
constexpr double kWordGap = 14.0;
constexpr double kWordPadX = 6.0;
constexpr double kGroupPad = 4.0;
// Chart geometry (points).
constexpr double kGapMinWidth = 18.0;
constexpr double kLayerRow = 16.0;
constexpr double kChartHeight = 140.0;

/// A word as the strip labels it: at most 12 characters.
QString shortWord(const std::string &w) { return elidedWord(w, 12); }

/// The words of the analysis: its own word list, else the first token of each word.
std::vector<std::string> analysisWords(const Analysis &a)
{
    if (a.words.size() == a.wordToken.size())
        return a.words;
    std::vector<std::string> out;
    for (int t : a.wordToken)
        out.push_back(t >= 0 && t < static_cast<int>(a.tokens.size()) ? a.tokens[static_cast<std::size_t>(t)]
                                                                      : std::string("?"));
    return out;
}

} // namespace

/// The bottom strip: words in one row, the current layer's groups enclosed.
class MergeStripWidget : public QWidget {
public:
    MergeStripWidget(LinkStripView *view, QWidget *parent) : QWidget(parent), m_view(view) {}
    QSize sizeHint() const override { return m_view->mergeStripSize().toSize(); }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.fillRect(rect(), Qt::white);
        m_view->paintMergeStrip(&p, QRectF(rect()));
    }

private:
    LinkStripView *m_view;
};

LinkStripView::LinkStripView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildContent(), 1);
    layout->addLayout(buildControls());
    connectControls();

    buildPlotLayout();
    styleChart();
    addChartItems();
    addLayerMap();

    connect(m_plot, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent *e) { handleHover(e->position(), e->globalPosition().toPoint()); });
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] {
        const int before = m_tickStep;
        const bool rotated = m_rotated;
        updateGapTicks(m_mapRect->width());
        if (before != m_tickStep || rotated != m_rotated)
            m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    rebuild();
}

QWidget *LinkStripView::buildContent()
{
    // Chart and strip scroll together: long sentences get wide.
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget;
    content->setAutoFillBackground(true);
    QPalette pal = content->palette();
    pal.setColor(QPalette::Window, Qt::white);
    content->setPalette(pal);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->setSpacing(0);
    m_plot = new QCustomPlot(content);
    m_plot->setBackground(Qt::white);
    contentLayout->addWidget(m_plot, 1);
    m_mergeStrip = new MergeStripWidget(this, content);
    contentLayout->addWidget(m_mergeStrip, 0);
    scroll->setWidget(content);
    return scroll;
}

QLayout *LinkStripView::buildControls()
{
    auto *controls = new QHBoxLayout;
    controls->setContentsMargins(6, 2, 6, 4);
    m_play = new QPushButton(tr("Play"), this);
    m_play->setToolTip(tr("Animate the merging from the lowest to the top layer"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setRange(0, 0);
    m_slider->setPageStep(1);
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_layerLabel = new QLabel(this);
    m_layerLabel->setMinimumWidth(QFontMetrics(m_layerLabel->font()).horizontalAdvance(QStringLiteral("Layer 88 / 88")));
    m_speed = new QSpinBox(this);
    m_speed->setRange(50, 10000);
    m_speed->setSingleStep(100);
    m_speed->setValue(800);
    m_speed->setSuffix(tr(" ms/layer"));
    m_speed->setToolTip(tr("Animation speed: milliseconds per layer"));
    controls->addWidget(m_play);
    controls->addWidget(m_layerLabel);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_speed);
    return controls;
}

void LinkStripView::connectControls()
{
    m_timer = new QTimer(this);
    m_timer->setInterval(800);
    connect(m_timer, &QTimer::timeout, this, &LinkStripView::step);
    connect(m_play, &QPushButton::clicked, this, [this] {
        if (isPlaying()) {
            stop();
            m_resumeLayer = m_layer; // Pause: Play continues from here
        } else {
            play();
        }
    });
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        m_resumeLayer = -1;
        showLayer(v, true);
    });
    connect(m_speed, qOverload<int>(&QSpinBox::valueChanged), this, [this](int ms) { m_timer->setInterval(ms); });
}

void LinkStripView::buildPlotLayout()
{
    m_title = new PlotTitle(m_plot, plotFont(kTitlePt, true));
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_chartRect = m_plot->axisRect();
    m_mapRect = new QCPAxisRect(m_plot, true);
    m_plot->plotLayout()->addElement(2, 0, m_mapRect);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(2, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(12);
    m_scale->setGradient(viridisGradient());
    m_scale->setDataRange(QCPRange(0.0, 1.0));
    m_scale->axis()->setLabel(QStringLiteral("link probability"));
    // The bar is only ~110 pt tall for a few layers: three labelled ticks stay apart at any export size.
    QSharedPointer<QCPAxisTickerFixed> ticks(new QCPAxisTickerFixed);
    ticks->setTickStep(0.5);
    ticks->setScaleStrategy(QCPAxisTickerFixed::ssNone);
    m_scale->axis()->setTicker(ticks);
    m_scale->axis()->setSubTicks(false);
    m_scale->axis()->setLabelFont(plotFont(kAxisLabelPt));
    m_scale->axis()->setTickLabelFont(plotFont(kTickPt));
    m_plot->plotLayout()->setColumnStretchFactor(1, 0.01);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.01);
    m_plot->plotLayout()->setRowSpacing(2);

    // Gap columns of the chart and the map line up; the scale spans the map.
    m_columns = new QCPMarginGroup(m_plot);
    m_chartRect->setMarginGroup(QCP::msLeft | QCP::msRight, m_columns);
    m_mapRect->setMarginGroup(QCP::msLeft | QCP::msRight, m_columns);
    m_rows = new QCPMarginGroup(m_plot);
    m_mapRect->setMarginGroup(QCP::msTop | QCP::msBottom, m_rows);
    m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, m_rows);
}

void LinkStripView::styleChart()
{
    for (QCPAxisRect *r : {m_chartRect, m_mapRect}) {
        styleAxis(r->axis(QCPAxis::atBottom));
        styleAxis(r->axis(QCPAxis::atLeft));
    }
    QCPAxis *chartX = m_chartRect->axis(QCPAxis::atBottom);
    QCPAxis *chartY = m_chartRect->axis(QCPAxis::atLeft);
    chartX->setTickLabels(false); // the map below carries the gap labels
    chartY->setRange(0.0, 1.05);
    chartY->setLabel(QStringLiteral("link probability"));
    chartY->grid()->setVisible(true);
    chartY->grid()->setPen(QPen(QColor(225, 225, 225), 1, Qt::SolidLine));
    m_mapRect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("layer"));
    m_mapRect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("gap between words"));

    m_graph = m_plot->addGraph(chartX, chartY);
    m_graph->setPen(QPen(sequentialColor(0.3), 2.0));
    m_graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, sequentialColor(0.3), sequentialColor(0.3), 6));
    m_graph->setSelectable(QCP::stNone);
    m_graph->setAntialiased(true);
}

void LinkStripView::addThresholdLine(QCPItemStraightLine *&line, QCPItemText *&text, Qt::PenStyle style, Qt::Alignment vertical)
{
    // Outside the chart on the right, where no data point or line can run through the label.
    QCPAxis *chartX = m_chartRect->axis(QCPAxis::atBottom);
    QCPAxis *chartY = m_chartRect->axis(QCPAxis::atLeft);
    line = new QCPItemStraightLine(m_plot);
    line->setClipAxisRect(m_chartRect);
    line->point1->setAxes(chartX, chartY);
    line->point2->setAxes(chartX, chartY);
    line->setPen(QPen(QColor(90, 90, 90), 1.2, style));
    line->setSelectable(false);
    text = new QCPItemText(m_plot);
    text->setClipToAxisRect(false);
    text->position->setAxisRect(m_chartRect);
    text->position->setAxes(chartX, chartY);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    text->setPositionAlignment(Qt::AlignLeft | vertical);
    text->setPadding(QMargins(4, 0, 0, 0));
    text->setFont(plotFont(8.0));
    text->setColor(QColor(70, 70, 70));
    text->setSelectable(false);
}

void LinkStripView::addChartItems()
{
    // Merge above its line, descend below its own: the two rarely lie more than 0.1 apart.
    addThresholdLine(m_thresholdLine, m_thresholdText, Qt::DashLine, Qt::AlignBottom);
    addThresholdLine(m_descendLine, m_descendText, Qt::DotLine, Qt::AlignTop);
    m_chartMessage = new QCPItemText(m_plot);
    m_chartMessage->setClipAxisRect(m_chartRect);
    m_chartMessage->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_chartMessage->position->setAxisRect(m_chartRect);
    m_chartMessage->position->setCoords(0.5, 0.5);
    m_chartMessage->setPositionAlignment(Qt::AlignCenter);
    m_chartMessage->setFont(plotFont(kAxisLabelPt));
    m_chartMessage->setColor(QColor(110, 110, 110));
    m_chartMessage->setSelectable(false);
}

void LinkStripView::addLayerMap()
{
    m_map = new QCPColorMap(m_mapRect->axis(QCPAxis::atBottom), m_mapRect->axis(QCPAxis::atLeft));
    m_map->setInterpolate(false);
    m_map->setGradient(viridisGradient());
    m_map->setColorScale(m_scale);
    m_map->setDataRange(QCPRange(0.0, 1.0));
    m_map->setSelectable(QCP::stNone);

    m_layerBox = new QCPItemRect(m_plot);
    m_layerBox->setClipAxisRect(m_mapRect);
    m_layerBox->setClipToAxisRect(false);
    m_layerBox->topLeft->setAxes(m_mapRect->axis(QCPAxis::atBottom), m_mapRect->axis(QCPAxis::atLeft));
    m_layerBox->bottomRight->setAxes(m_mapRect->axis(QCPAxis::atBottom), m_mapRect->axis(QCPAxis::atLeft));
    m_layerBox->setPen(QPen(QColor(20, 20, 20), 2.0));
    m_layerBox->setBrush(Qt::NoBrush);
    m_layerBox->setSelectable(false);
}

void LinkStripView::setData(const ViewData &data)
{
    stop();
    m_resumeLayer = -1;
    m_data = data;
    rebuild();
}

void LinkStripView::setState(const ViewState &state)
{
    m_state = state;
    // The main window echoes layerChanged back here: no signal, no loop.
    showLayer(state.layer, false);
}

void LinkStripView::setMergeThreshold(double threshold)
{
    m_thresholdOverride = threshold;
    showLayer(m_layer, false);
}

double LinkStripView::mergeThreshold() const
{
    if (m_thresholdOverride)
        return *m_thresholdOverride;
    if (m_data.analysis && m_data.analysis->induction)
        return m_data.analysis->induction->threshold;
    return 0.5;
}

std::optional<double> LinkStripView::descendThreshold() const
{
    if (m_thresholdOverride || !m_data.analysis || !m_data.analysis->induction)
        return std::nullopt;
    return m_data.analysis->induction->descend;
}

QStringList LinkStripView::titleLines() const { return m_title->lineTexts(); }
QStringList LinkStripView::caption() const { return stripCaption(); }
QString LinkStripView::thresholdLabel() const { return m_thresholdText->visible() ? m_thresholdText->text() : QString(); }
QString LinkStripView::descendLabel() const { return m_descendText->visible() ? m_descendText->text() : QString(); }
QString LinkStripView::chartMessage() const { return m_chartMessage->visible() ? m_chartMessage->text() : QString(); }

int LinkStripView::layerCount() const
{
    return m_data.analysis ? static_cast<int>(m_data.analysis->linkProbs.size()) : 0;
}

int LinkStripView::gapCount() const
{
    if (!m_data.analysis || layerCount() == 0)
        return 0;
    return std::max(0, static_cast<int>(m_data.analysis->wordToken.size()) - 1);
}

double LinkStripView::linkAt(int layer, int gap) const
{
    if (!m_data.analysis || layer < 0 || layer >= layerCount() || gap < 0 || gap >= gapCount())
        return std::nan("");
    const Analysis &a = *m_data.analysis;
    // Tokens k and k+1 across the gap: the last token of word `gap` (word pieces
    // before it are inside the word) and the first token of the next word.
    const int k = a.wordToken[static_cast<std::size_t>(gap) + 1] - 1;
    const auto &links = a.linkProbs[static_cast<std::size_t>(layer)];
    if (k < 0 || k >= static_cast<int>(links.size()))
        return std::nan("");
    return static_cast<double>(links[static_cast<std::size_t>(k)]);
}

double LinkStripView::gapValue(int layer, int gap) const
{
    if (layer < 0 || gap < 0 || layer >= layerCount() || gap >= gapCount())
        return std::nan("");
    return m_map->data()->cell(gap, layer);
}

std::vector<std::pair<int, int>> LinkStripView::groups() const
{
    std::vector<std::pair<int, int>> out;
    if (!m_data.analysis)
        return out;
    const int words = static_cast<int>(m_data.analysis->wordToken.size());
    const double threshold = mergeThreshold();
    int start = 0;
    for (int w = 0; w + 1 < words; ++w) {
        const double p = gapValue(m_layer, w);
        // Above the threshold joins, as in the induced tree (a span whose weakest link is
        // at most the threshold is split there); NaN (no link known) separates.
        if (!(p > threshold)) {
            out.emplace_back(start, w + 1);
            start = w + 1;
        }
    }
    if (words > 0)
        out.emplace_back(start, words);
    return out;
}

void LinkStripView::rebuild()
{
    const int layers = layerCount();
    const int gaps = gapCount();
    const std::vector<std::string> words =
        m_data.analysis ? analysisWords(*m_data.analysis) : std::vector<std::string>{};

    QCPColorMapData *d = m_map->data();
    d->setSize(std::max(gaps, 1), std::max(layers, 1));
    d->setRange(QCPRange(0, std::max(gaps - 1, 0)), QCPRange(0, std::max(layers - 1, 0)));
    d->fill(std::nan(""));
    for (int l = 0; l < layers; ++l)
        for (int g = 0; g < gaps; ++g)
            d->setCell(g, l, linkAt(l, g));
    m_map->setVisible(gaps > 0);

    const double hi = std::max(gaps, 1) - 0.5;
    m_chartRect->axis(QCPAxis::atBottom)->setRange(-0.5, hi);
    m_mapRect->axis(QCPAxis::atBottom)->setRange(-0.5, hi);
    m_mapRect->axis(QCPAxis::atLeft)->setRange(-0.5, std::max(layers, 1) - 0.5);

    QSharedPointer<QCPAxisTickerText> layerTicks(new QCPAxisTickerText);
    const int layerStep = layers > 16 ? 2 : 1;
    for (int l = 0; l < layers; l += layerStep)
        layerTicks->addTick(l, QString::number(l + 1));
    layerTicks->setSubTickCount(0);
    m_mapRect->axis(QCPAxis::atLeft)->setTicker(layerTicks);

    m_gapLabels.clear();
    for (int g = 0; g < gaps; ++g)
        m_gapLabels.push_back(shortWord(words[static_cast<std::size_t>(g)]) + QLatin1Char('|') +
                              shortWord(words[static_cast<std::size_t>(g) + 1]));
    m_tickStep = 0;

    {
        const QSignalBlocker block(m_slider);
        m_slider->setRange(0, std::max(layers - 1, 0));
    }
    m_slider->setEnabled(layers > 1);
    m_play->setEnabled(layers > 1);

    // What the figure cannot show, under the title (before the sizes: it takes room).
    std::vector<PlotTitle::Line> notes;
    if (const QString badge = ablationBadge(m_data.analysis.get()); !badge.isEmpty())
        notes.push_back({badge, ablationColor()});
    for (const QString &note : {noPriorNote(m_data.analysis.get()), unknownWordsNote(m_data.analysis.get())})
        if (!note.isEmpty())
            notes.push_back({note, noteColor()});
    m_title->setLines(std::move(notes));

    // Outer heights: the map row holds the layer rows plus the rotated gap labels.
    m_plot->plotLayout()->setRowStretchFactor(1, kChartHeight);
    m_plot->plotLayout()->setRowStretchFactor(2, mapBlockHeight());
    const QSize natural = chartSize();
    m_plot->setMinimumSize(natural.width(), natural.height());
    m_mergeStrip->updateGeometry();

    const int layer = std::clamp(m_state.layer, 0, std::max(layers - 1, 0));
    m_layer = -1; // forces showLayer to refresh everything
    showLayer(layer, false);
    updateGapTicks(m_mapRect->width());
}

void LinkStripView::updateGapTicks(double axisPixels)
{
    const int gaps = gapCount();
    QCPAxis *x = m_mapRect->axis(QCPAxis::atBottom);
    const QFontMetricsF fm(plotFont(kTickPt));
    const double perCell = gaps > 0 ? axisPixels / gaps : 0.0;
    double widest = 0.0;
    for (const QString &label : m_gapLabels)
        widest = std::max(widest, fm.horizontalAdvance(label));
    const bool rotate = widest + 6.0 > perCell;
    const int step = perCell > 0.0 ? std::max(1, static_cast<int>(std::ceil(fm.height() * 1.1 / perCell))) : 1;
    if (step == m_tickStep && rotate == m_rotated)
        return;
    m_tickStep = step;
    m_rotated = rotate;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int g = 0; g < gaps; g += rotate ? step : 1)
        ticker->addTick(g, m_gapLabels[static_cast<std::size_t>(g)]);
    ticker->setSubTickCount(0);
    x->setTicker(ticker);
    x->setTickLabelRotation(rotate ? 90.0 : 0.0);
    // The chart above gets the same ticks, without labels, so columns read across.
    m_chartRect->axis(QCPAxis::atBottom)->setTicker(ticker);
}

void LinkStripView::showLayer(int layer, bool notify)
{
    const int layers = layerCount();
    layer = std::clamp(layer, 0, std::max(layers - 1, 0));
    const bool changed = layer != m_layer;
    m_layer = layer;
    const int gaps = gapCount();

    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(layer);
    }
    m_layerLabel->setText(layers > 0 ? tr("Layer %1 / %2").arg(layer + 1).arg(layers) : tr("No links"));

    QVector<double> keys, values;
    for (int g = 0; g < gaps; ++g) {
        keys.push_back(g);
        values.push_back(gapValue(layer, g));
    }
    m_graph->setData(keys, values, true);
    const double merge = mergeThreshold();
    const std::optional<double> descend = descendThreshold();
    const bool drawDescend = descend && std::abs(*descend - merge) > 1e-9;
    for (auto [line, text, value, show] : {std::make_tuple(m_thresholdLine, m_thresholdText, merge, gaps > 0),
                                           std::make_tuple(m_descendLine, m_descendText, descend.value_or(0.0),
                                                           gaps > 0 && drawDescend)}) {
        line->point1->setCoords(-0.5, value);
        line->point2->setCoords(std::max(gaps, 1) - 0.5, value);
        text->position->setCoords(1.0, value);
        line->setVisible(show);
        text->setVisible(show);
    }
    m_thresholdText->setText(
        QStringLiteral("%1 %2").arg(descend && !drawDescend ? QStringLiteral("merge, descend") : QStringLiteral("merge")).arg(merge, 0, 'f', 2));
    m_descendText->setText(QStringLiteral("descend %1").arg(descend.value_or(0.0), 0, 'f', 2));
    m_chartMessage->setText(layers > 0 && gaps == 0 ? QStringLiteral("One word: no gap between words, nothing to link")
                                                    : layers == 0 ? QStringLiteral("No link probabilities") : QString());
    m_chartMessage->setVisible(!m_chartMessage->text().isEmpty());
    m_layerBox->setVisible(gaps > 0);
    m_layerBox->topLeft->setCoords(-0.5, layer + 0.5);
    m_layerBox->bottomRight->setCoords(gaps - 0.5, layer - 0.5);
    m_title->setText(layers > 0 ? QStringLiteral("Link probabilities \u2014 layer %1 of %2")
                                      .arg(layer + 1)
                                      .arg(layers)
                                : QStringLiteral("Link probabilities \u2014 not available for this model"));
    m_chartRect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("P(link), layer %1").arg(layer + 1));

    m_mergeStrip->update();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    if (changed && notify)
        Q_EMIT layerChanged(layer);
}

void LinkStripView::play()
{
    const int top = layerCount() - 1;
    if (top <= 0)
        return;
    const int start = (m_resumeLayer >= 0 && m_resumeLayer < top) ? m_resumeLayer : 0;
    m_resumeLayer = -1;
    showLayer(start, true);
    m_timer->start();
    m_play->setText(tr("Pause"));
}

void LinkStripView::stop()
{
    m_timer->stop();
    m_play->setText(tr("Play"));
}

bool LinkStripView::isPlaying() const
{
    return m_timer->isActive();
}

void LinkStripView::setStepInterval(int ms)
{
    m_timer->setInterval(std::max(1, ms));
    const QSignalBlocker block(m_speed);
    m_speed->setValue(std::clamp(ms, m_speed->minimum(), m_speed->maximum()));
}

void LinkStripView::step()
{
    const int top = layerCount() - 1;
    if (m_layer >= top) {
        stop();
        return;
    }
    showLayer(m_layer + 1, true);
    // Stop on arrival so the top layer stays on screen.
    if (m_layer >= top)
        stop();
}

void LinkStripView::handleHover(const QPointF &pos, const QPoint &globalPos)
{
    const int gaps = gapCount();
    if (gaps == 0)
        return;
    QString text;
    const QPoint p = pos.toPoint();
    if (m_mapRect->rect().contains(p)) {
        const int g = static_cast<int>(std::lround(m_mapRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x())));
        const int l = static_cast<int>(std::lround(m_mapRect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y())));
        if (g >= 0 && g < gaps && l >= 0 && l < layerCount())
            text = QStringLiteral("link[%1] = %2, layer %3")
                       .arg(m_gapLabels[static_cast<std::size_t>(g)])
                       .arg(gapValue(l, g), 0, 'f', 4)
                       .arg(l + 1);
    } else if (m_chartRect->rect().contains(p)) {
        const int g = static_cast<int>(std::lround(m_chartRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x())));
        if (g >= 0 && g < gaps)
            text = QStringLiteral("link[%1] = %2, layer %3 (merge threshold %4)")
                       .arg(m_gapLabels[static_cast<std::size_t>(g)])
                       .arg(gapValue(m_layer, g), 0, 'f', 4)
                       .arg(m_layer + 1)
                       .arg(mergeThreshold(), 0, 'f', 2);
    }
    if (text.isEmpty()) {
        QToolTip::hideText();
        return;
    }
    Q_EMIT hovered(text);
    QToolTip::showText(globalPos, text, m_plot);
}

QStringList LinkStripView::stripCaption() const
{
    if (layerCount() == 0)
        return {QStringLiteral("No link probabilities for this model")};
    if (gapCount() == 0)
        return {QStringLiteral("One word: nothing to group")};
    const double merge = mergeThreshold();
    QStringList lines{QStringLiteral("Constituents at layer %1 (neighbours with link probability > %2 merged)")
                          .arg(std::max(m_layer, 0) + 1)
                          .arg(merge, 0, 'f', 2)};
    if (m_thresholdOverride)
        lines << QStringLiteral("%1: a threshold chosen for this view").arg(merge, 0, 'f', 2);
    else if (const auto descend = descendThreshold())
        lines << QStringLiteral("%1 and %2 are the model's own unsupervised-parse settings: its induced tree splits a "
                                "span at its weakest link where that is at most %1 (else it looks one layer lower), and "
                                "splits a part whose links all exceed %2 using the layer below")
                     .arg(merge, 0, 'f', 2)
                     .arg(*descend, 0, 'f', 2);
    else
        lines << QStringLiteral("%1: a display threshold (the analysis carries no unsupervised-parse settings)")
                     .arg(merge, 0, 'f', 2);
    return lines;
}

QSizeF LinkStripView::mergeStripSize() const
{
    const QFontMetricsF fm(plotFont(kWordPt));
    double w = 2 * kStripPad;
    if (m_data.analysis) {
        const auto words = analysisWords(*m_data.analysis);
        for (const auto &word : words)
            w += fm.horizontalAdvance(shortWord(word)) + 2 * kWordPadX + kWordGap;
        w -= words.empty() ? 0.0 : kWordGap;
    }
    // The caption's first line needs its room too (short sentences); the second wraps.
    const QStringList caption = stripCaption();
    w = std::max({w, fm.horizontalAdvance(caption.value(0)) + 2 * kStripPad, 540.0});
    return QSizeF(w, fm.height() * 2.0 + 2 * kGroupPad + 2 * kStripPad + 8.0 + captionNoteHeight(caption, w));
}

double LinkStripView::captionNoteHeight(const QStringList &caption, double width) const
{
    if (caption.size() < 2)
        return 0.0;
    const QFontMetricsF fm(plotFont(kNotePt));
    return fm.boundingRect(QRectF(0, 0, width - 2 * kStripPad, 1e5), Qt::TextWordWrap, caption[1]).height() + 2.0;
}

void LinkStripView::paintMergeStrip(QPainter *painter, const QRectF &rect) const
{
    if (!m_data.analysis)
        return;
    const auto words = analysisWords(*m_data.analysis);
    const QFont font = plotFont(kWordPt);
    const QFontMetricsF fm(font);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setRenderHint(QPainter::TextAntialiasing, true);
    painter->setFont(font);

    // Caption first: what the boxes mean at this layer, and where the threshold comes from.
    const QStringList caption = stripCaption();
    const double noteH = captionNoteHeight(caption, rect.width());
    const double captionH = fm.height() + 4.0 + noteH;
    painter->setPen(QColor(60, 60, 60));
    painter->drawText(QRectF(rect.left() + kStripPad, rect.top() + 2.0, rect.width() - 2 * kStripPad, fm.height() + 4.0),
                      Qt::AlignLeft | Qt::AlignVCenter, caption.value(0));
    if (noteH > 0.0) {
        painter->setFont(plotFont(kNotePt));
        painter->setPen(QColor(95, 95, 95));
        painter->drawText(QRectF(rect.left() + kStripPad, rect.top() + 2.0 + fm.height() + 4.0,
                                 rect.width() - 2 * kStripPad, noteH),
                          Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, caption[1]);
        painter->setFont(font);
    }

    // Word boxes at fixed positions, so the animation only changes the groups.
    const double boxH = fm.height() + 8.0;
    const double y = rect.top() + captionH + kGroupPad + 4.0;
    std::vector<QRectF> boxes;
    double x = rect.left() + kStripPad;
    for (const auto &word : words) {
        const double w = fm.horizontalAdvance(shortWord(word)) + 2 * kWordPadX;
        boxes.emplace_back(x, y, w, boxH);
        x += w + kWordGap;
    }

    if (layerCount() > 0) {
        for (const auto &[start, end] : groups()) {
            if (end - start < 2 || end > static_cast<int>(boxes.size()))
                continue;
            // Tint by the weakest link inside the group: how sure the merge is.
            double weakest = 1.0;
            for (int g = start; g + 1 < end; ++g)
                weakest = std::min(weakest, gapValue(m_layer, g));
            const QRectF group = QRectF(boxes[static_cast<std::size_t>(start)].topLeft(),
                                        boxes[static_cast<std::size_t>(end) - 1].bottomRight())
                                     .adjusted(-kGroupPad, -kGroupPad, kGroupPad, kGroupPad);
            QColor fill = sequentialColor(weakest);
            fill.setAlpha(90);
            painter->setBrush(fill);
            painter->setPen(QPen(sequentialColor(0.1), 1.5));
            painter->drawRoundedRect(group, 7.0, 7.0);
        }
    }

    for (std::size_t i = 0; i < words.size(); ++i) {
        painter->setBrush(Qt::white);
        painter->setPen(QPen(QColor(150, 150, 150), 1.0));
        painter->drawRoundedRect(boxes[i], 3.0, 3.0);
        painter->setPen(Qt::black);
        painter->drawText(boxes[i], Qt::AlignCenter, shortWord(words[i]));
    }
    painter->restore();
}

QSize LinkStripView::chartSize() const
{
    const int gaps = gapCount();
    double widest = 0.0;
    const QFontMetricsF fm(plotFont(kTickPt));
    for (const QString &label : m_gapLabels)
        widest = std::max(widest, fm.horizontalAdvance(label));
    // Few gaps: wide enough for horizontal "the|cat" labels.
    const double perGap = gaps <= 12 ? std::max(kGapMinWidth, widest + 12.0) : kGapMinWidth;
    const double width = std::max({560.0, gaps * perGap + 170.0, mergeStripSize().width()});
    // Title (and its notes), link chart, map block (layer rows and gap labels).
    const double height = 30.0 + m_title->linesHeight() + kChartHeight + mapBlockHeight() + 6.0;
    return QSize(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
}

double LinkStripView::mapBlockHeight() const
{
    double widest = 0.0;
    const QFontMetricsF fm(plotFont(kTickPt));
    for (const QString &label : m_gapLabels)
        widest = std::max(widest, fm.horizontalAdvance(label));
    // At least ~110 pt of map so the colour scale beside it stays readable.
    const double rows = std::max(110.0, std::max(layerCount(), 1) * kLayerRow);
    // Up to 12 gaps get columns wide enough for horizontal labels (chartSize).
    const double labels = gapCount() <= 12 ? fm.height() : std::min(widest, 110.0);
    return rows + labels + 45.0;
}

QSizeF LinkStripView::exportSize() const
{
    const QSize chart = chartSize();
    const QSizeF strip = mergeStripSize();
    return QSizeF(std::max<double>(chart.width(), strip.width()), chart.height() + strip.height());
}

void LinkStripView::renderTo(QPainter *painter, const QRectF &target)
{
    const QSizeF natural = exportSize();
    const QSize chart = chartSize();
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->translate(target.topLeft());
    painter->scale(target.width() / natural.width(), target.height() / natural.height());
    // Lay out at the export size so the gap labels are thinned for it.
    const QSize size(static_cast<int>(natural.width()), chart.height());
    layOutPlotAt(m_plot, size);
    updateGapTicks(m_mapRect->width());
    paintPlot(m_plot, painter, QRectF(QPointF(0, 0), QSizeF(size)), size);
    m_plot->setViewport(m_plot->rect());
    m_tickStep = 0; // the widget's labels are re-thinned after the queued replot
    paintMergeStrip(painter, QRectF(0, chart.height(), natural.width(), natural.height() - chart.height()));
    painter->restore();
}

} // namespace treelens
