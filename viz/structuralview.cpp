#include "viz/structuralview.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

const QColor kGoldBar(170, 170, 170);
const QColor kPredictedBar(68, 114, 196);

QString rhoText(double rho)
{
    return std::isfinite(rho) ? QStringLiteral("ρ %1").arg(rho, 0, 'f', 2) : QStringLiteral("ρ n/a");
}

double edgeAccuracy(const StructuralSentenceResult &r)
{
    return r.goldEdges.empty() ? 1.0 : static_cast<double>(r.correctEdges) / static_cast<double>(r.goldEdges.size());
}

/// Ascending with NaN after every number.
int compareRho(double a, double b)
{
    const bool fa = std::isfinite(a), fb = std::isfinite(b);
    if (fa != fb)
        return fa ? -1 : 1;
    if (!fa || a == b)
        return 0;
    return a < b ? -1 : 1;
}

} // namespace

// ---------------------------------------------------------------------------
// Pure helpers

std::vector<int> structuralWorstFirst(StructuralProbeKind kind, const std::vector<StructuralSentenceResult> &results)
{
    std::vector<int> order(results.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto &ra = results[static_cast<std::size_t>(a)];
        const auto &rb = results[static_cast<std::size_t>(b)];
        if (kind == StructuralProbeKind::Distance) {
            const double aa = edgeAccuracy(ra), ab = edgeAccuracy(rb);
            if (aa != ab)
                return aa < ab;
        } else {
            const bool wa = ra.predictedRoot != ra.goldRoot, wb = rb.predictedRoot != rb.goldRoot;
            if (wa != wb)
                return wa;
        }
        return compareRho(ra.spearman, rb.spearman) < 0;
    });
    return order;
}

QString structuralLayerName(int layer)
{
    return layer == 0 ? QStringLiteral("Embeddings") : QStringLiteral("Layer %1").arg(layer);
}

QString structuralRowText(StructuralProbeKind kind, const StructuralSentenceResult &result,
                          const std::vector<std::string> &words)
{
    const QString head = kind == StructuralProbeKind::Distance
                             ? QStringLiteral("%1/%2 edges").arg(result.correctEdges).arg(result.goldEdges.size())
                             : (result.predictedRoot == result.goldRoot ? QStringLiteral("root ok")
                                                                        : QStringLiteral("root wrong"));
    return head + QStringLiteral(" · ") + rhoText(result.spearman) + QStringLiteral(" · ") + sentencePreview(words);
}

// ---------------------------------------------------------------------------
// StructuralView

StructuralView::StructuralView(QWidget *parent) : QWidget(parent)
{
    m_layerCombo = new QComboBox;
    m_layerCombo->setObjectName(QStringLiteral("structuralLayer"));
    m_layerCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("structuralSummary"));
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Layer:")));
    top->addWidget(m_layerCombo);
    top->addSpacing(12);
    top->addWidget(m_summary, 1);

    m_list = newSentenceList(QStringLiteral("structuralSentences"), tr("Worst first. Double-click to open the sentence"));
    m_sentenceLabel = newSentenceLabel();

    QWidget *distancePage = buildDistancePage();
    buildDepthPlot();
    auto *empty = new QLabel(tr("No structural probe results."));
    empty->setAlignment(Qt::AlignCenter);
    m_stack = new QStackedWidget;
    m_stack->addWidget(empty);
    m_stack->addWidget(distancePage);
    m_stack->addWidget(m_depthPlot);

    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_sentenceLabel);
    rightLayout->addWidget(m_stack, 1);

    layOutView(this, top, newSplit(Qt::Horizontal, m_list, right, 1, 3));

    connect(m_layerCombo, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int index) {
        if (index >= 0)
            setLayer(m_layerCombo->itemData(index).toInt());
    });
    connect(m_list, &QListWidget::currentRowChanged, this, [this] { showSelected(); });
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { activateSentence(m_list->row(item)); });
    connect(m_heatPlot, &QCustomPlot::afterReplot, this, [this] {
        if (updateHeatTicks())
            m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(m_heatPlot, &QCustomPlot::mouseMove, this, &StructuralView::showHeatTip);
    setResult(nullptr);
}

QWidget *StructuralView::buildDistancePage()
{
    // Two heatmaps on one colour scale + the arc diagram.
    m_heatPlot = new QCustomPlot;
    m_heatPlot->setMinimumSize(480, 260);
    m_heatPlot->setBackground(Qt::white);
    QCPLayoutGrid *grid = m_heatPlot->plotLayout();
    grid->clear();
    m_goldRect = new QCPAxisRect(m_heatPlot);
    m_predRect = new QCPAxisRect(m_heatPlot);
    m_goldTitle = new QCPTextElement(m_heatPlot, tr("Gold: tree distance d(i, j)"), plotFont(kPlotTitlePt, true));
    m_predTitle = new QCPTextElement(m_heatPlot, tr("Predicted: squared distance ‖B(hᵢ − hⱼ)‖²"),
                                     plotFont(kPlotTitlePt, true));
    m_scale = new QCPColorScale(m_heatPlot);
    grid->addElement(0, 0, m_goldTitle);
    grid->addElement(0, 1, m_predTitle);
    grid->addElement(1, 0, m_goldRect);
    grid->addElement(1, 1, m_predRect);
    grid->addElement(1, 2, m_scale);
    grid->setColumnStretchFactor(2, 0.01);
    auto *margins = new QCPMarginGroup(m_heatPlot);
    for (QCPAxisRect *r : {m_goldRect, m_predRect}) {
        for (QCPAxis *a : r->axes()) {
            styleAxis(a);
            a->setVisible(a->axisType() == QCPAxis::atBottom || a->axisType() == QCPAxis::atLeft);
        }
        r->axis(QCPAxis::atLeft)->setRangeReversed(true);
        r->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        r->setRangeDrag({});
        r->setRangeZoom({});
    }
    m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(14);
    styleAxis(m_scale->axis());
    m_scale->axis()->setLabel(tr("distance"));
    m_goldMap = new QCPColorMap(m_goldRect->axis(QCPAxis::atBottom), m_goldRect->axis(QCPAxis::atLeft));
    m_predMap = new QCPColorMap(m_predRect->axis(QCPAxis::atBottom), m_predRect->axis(QCPAxis::atLeft));
    for (QCPColorMap *map : {m_goldMap, m_predMap}) {
        map->setInterpolate(false);
        map->setTightBoundary(false);
        map->setSelectable(QCP::stNone);
        map->setColorScale(m_scale);
    }
    m_scale->setGradient(viridisGradient()); // once attached: the scale sets every map's gradient
    m_scale->setDataRange(QCPRange(0.0, 1.0));

    m_arcs = new StructuralArcView;
    m_arcScroll = newScrollArea(m_arcs);

    // The arcs keep their natural height (plus a scroll bar); the heatmaps take the rest.
    m_arcScroll->setFixedHeight(static_cast<int>(std::ceil(m_arcs->exportSize().height())) + 18);
    auto *distancePage = new QWidget;
    auto *distanceLayout = new QVBoxLayout(distancePage);
    distanceLayout->setContentsMargins(0, 0, 0, 0);
    distanceLayout->setSpacing(4);
    distanceLayout->addWidget(m_heatPlot, 1);
    distanceLayout->addWidget(m_arcScroll);
    return distancePage;
}

void StructuralView::buildDepthPlot()
{
    // Gold vs predicted bars, roots marked.
    m_depthPlot = new QCustomPlot;
    m_depthPlot->setMinimumSize(400, 260);
    styleChart(m_depthPlot, tr("depth (arcs from the root)"));
    m_depthTitle = new QCPTextElement(m_depthPlot, tr("Gold depth vs predicted depth ‖Bhᵢ‖²"), plotFont(kPlotTitlePt, true));
    m_depthSubtitle = new QCPTextElement(m_depthPlot, QString(), plotFont(kPlotAxisLabelPt));
    m_depthPlot->plotLayout()->insertRow(0);
    m_depthPlot->plotLayout()->addElement(0, 0, m_depthTitle);
    m_depthPlot->plotLayout()->insertRow(1);
    m_depthPlot->plotLayout()->addElement(1, 0, m_depthSubtitle);
    auto *goldBars = new QCPBars(m_depthPlot->xAxis, m_depthPlot->yAxis);
    auto *predBars = new QCPBars(m_depthPlot->xAxis, m_depthPlot->yAxis);
    goldBars->setName(tr("gold depth"));
    predBars->setName(tr("predicted depth"));
    goldBars->setPen(Qt::NoPen);
    goldBars->setBrush(kGoldBar);
    predBars->setPen(Qt::NoPen);
    predBars->setBrush(kPredictedBar);
    auto *group = new QCPBarsGroup(m_depthPlot);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    for (QCPBars *b : {goldBars, predBars}) {
        b->setWidth(0.38);
        b->setBarsGroup(group);
        b->setSelectable(QCP::stNone);
    }
    QCPGraph *goldRoot = m_depthPlot->addGraph();
    goldRoot->setName(tr("gold root"));
    goldRoot->setLineStyle(QCPGraph::lsNone);
    goldRoot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2), QBrush(Qt::black), 10));
    QCPGraph *predRoot = m_depthPlot->addGraph();
    predRoot->setName(tr("predicted root"));
    predRoot->setLineStyle(QCPGraph::lsNone);
    m_depthPlot->legend->setVisible(true);
    m_depthPlot->legend->setFont(plotFont(kPlotTickPt));
    m_depthPlot->legend->setBorderPen(Qt::NoPen);
    m_depthPlot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    // The legend in one row under the plot, centred.
    auto *legendRow = new QCPLayoutGrid;
    m_depthPlot->plotLayout()->addElement(3, 0, legendRow);
    m_depthPlot->plotLayout()->setRowStretchFactor(3, 0.001);
    legendRow->addElement(0, 0, new QCPLayoutElement(m_depthPlot));
    legendRow->addElement(0, 1, m_depthPlot->legend);
    legendRow->addElement(0, 2, new QCPLayoutElement(m_depthPlot));
    legendRow->setColumnStretchFactor(1, 0.001);
}

void StructuralView::showHeatTip(QMouseEvent *e)
{
    const StructuralSentenceResult *r = selectedResult();
    if (!r || m_words.empty())
        return;
    const int n = static_cast<int>(m_words.size());
    for (QCPColorMap *map : {m_goldMap, m_predMap}) {
        QCPAxisRect *rect = map->keyAxis()->axisRect();
        if (!rect->rect().contains(e->pos()))
            continue;
        const int col = static_cast<int>(std::lround(map->keyAxis()->pixelToCoord(e->pos().x())));
        const int row = static_cast<int>(std::lround(map->valueAxis()->pixelToCoord(e->pos().y())));
        if (row < 0 || col < 0 || row >= n || col >= n)
            break;
        const QString pair = QStringLiteral("(%1, %2)")
                                 .arg(QString::fromStdString(m_words[static_cast<std::size_t>(row)]),
                                      QString::fromStdString(m_words[static_cast<std::size_t>(col)]));
        const QString text = map == m_goldMap
                                 ? tr("gold tree distance %1 = %2").arg(pair).arg(map->data()->cell(col, row))
                                 : tr("predicted squared distance %1 = %2").arg(pair).arg(map->data()->cell(col, row), 0, 'f', 3);
        QToolTip::showText(e->globalPosition().toPoint(), text, m_heatPlot);
        return;
    }
    QToolTip::hideText();
}

const std::vector<StructuralSentenceResult> *StructuralView::layerResults() const
{
    if (!m_result)
        return nullptr;
    auto it = m_result->byLayer.find(m_layer);
    return it == m_result->byLayer.end() ? nullptr : &it->second;
}

std::vector<std::string> StructuralView::wordsOf(const StructuralSentenceResult &r) const
{
    std::vector<std::string> words;
    if (m_result && r.sentence >= 0 && r.sentence < static_cast<int>(m_result->sentences.size()))
        words = m_result->sentences[static_cast<std::size_t>(r.sentence)].words();
    if (static_cast<int>(words.size()) != r.length) {
        words.clear();
        for (int i = 0; i < r.length; ++i)
            words.push_back("w" + std::to_string(i + 1));
    }
    return words;
}

std::vector<char> StructuralView::punctOf(const StructuralSentenceResult &r) const
{
    std::vector<char> punct;
    if (m_result && r.sentence >= 0 && r.sentence < static_cast<int>(m_result->sentences.size())) {
        const auto &tokens = m_result->sentences[static_cast<std::size_t>(r.sentence)].tokens;
        if (static_cast<int>(tokens.size()) == r.length)
            for (const auto &t : tokens)
                punct.push_back(isPunctuationToken(t) ? 1 : 0);
    }
    return punct;
}

void StructuralView::setResult(std::shared_ptr<const ProbeRunStructural> result)
{
    m_result = std::move(result);
    m_layer = -1;
    {
        const QSignalBlocker block(m_layerCombo);
        m_layerCombo->clear();
        if (m_result) {
            for (const auto &entry : m_result->byLayer) {
                QString label = structuralLayerName(entry.first);
                if (entry.first == m_result->bestLayer)
                    label += tr(" (best)");
                m_layerCombo->addItem(label, entry.first);
            }
        }
        m_layerCombo->setEnabled(m_layerCombo->count() > 0);
    }
    if (!m_result || m_result->byLayer.empty()) {
        m_order.clear();
        {
            const QSignalBlocker block(m_list);
            m_list->clear();
        }
        m_summary->setText(m_result ? tr("The probe evaluated no sentences.") : QString());
        m_stack->setCurrentIndex(0);
        clearPlots();
        return;
    }
    const int layer = m_result->byLayer.count(m_result->bestLayer) ? m_result->bestLayer : m_result->byLayer.begin()->first;
    setLayer(layer);
}

void StructuralView::setLayer(int layer)
{
    if (!m_result || !m_result->byLayer.count(layer) || layer == m_layer)
        return;
    const int keepSentence = selectedSentence();
    m_layer = layer;
    {
        const QSignalBlocker block(m_layerCombo);
        m_layerCombo->setCurrentIndex(m_layerCombo->findData(layer));
    }
    m_stack->setCurrentIndex(m_result->kind == StructuralProbeKind::Distance ? 1 : 2);
    fillList();
    // Keep the sentence the user was looking at when changing layers.
    int row = 0;
    for (std::size_t r = 0; r < m_order.size(); ++r)
        if ((*layerResults())[static_cast<std::size_t>(m_order[r])].sentence == keepSentence && keepSentence >= 0)
            row = static_cast<int>(r);
    selectSentence(m_order.empty() ? -1 : row);
    Q_EMIT layerChanged(layer);
}

void StructuralView::fillList()
{
    const auto *results = layerResults();
    const QSignalBlocker block(m_list);
    m_list->clear();
    m_order.clear();
    if (!results)
        return;
    const StructuralProbeKind kind = m_result->kind;
    m_order = structuralWorstFirst(kind, *results);
    long correct = 0, total = 0, roots = 0;
    for (int index : m_order) {
        const auto &r = (*results)[static_cast<std::size_t>(index)];
        correct += r.correctEdges;
        total += static_cast<long>(r.goldEdges.size());
        roots += r.predictedRoot == r.goldRoot ? 1 : 0;
        const std::vector<std::string> words = wordsOf(r);
        auto *item = new QListWidgetItem(structuralRowText(kind, r, words));
        item->setToolTip(joinedWords(words));
        const bool bad = kind == StructuralProbeKind::Distance ? r.correctEdges < static_cast<int>(r.goldEdges.size())
                                                                : r.predictedRoot != r.goldRoot;
        if (bad && kind == StructuralProbeKind::Depth)
            item->setForeground(kDiagramWrongInk.darker(120));
        m_list->addItem(item);
    }
    const QString where = structuralLayerName(m_layer);
    const auto n = static_cast<long>(results->size());
    if (kind == StructuralProbeKind::Distance)
        m_summary->setText(tr("%1: UUAS %2% (%3/%4 gold edges) over %5 sentences")
                               .arg(where)
                               .arg(total > 0 ? 100.0 * correct / total : 0.0, 0, 'f', 1)
                               .arg(correct)
                               .arg(total)
                               .arg(n));
    else
        m_summary->setText(tr("%1: root accuracy %2% (%3/%4 sentences)")
                               .arg(where)
                               .arg(n > 0 ? 100.0 * roots / n : 0.0, 0, 'f', 1)
                               .arg(roots)
                               .arg(n));
}

void StructuralView::selectSentence(int row)
{
    selectListRow(m_list, row, [this] { showSelected(); });
}

int StructuralView::selectedRow() const
{
    return m_list->currentRow();
}

const StructuralSentenceResult *StructuralView::selectedResult() const
{
    const auto *results = layerResults();
    const int row = m_list->currentRow();
    if (!results || row < 0 || row >= static_cast<int>(m_order.size()))
        return nullptr;
    return &(*results)[static_cast<std::size_t>(m_order[static_cast<std::size_t>(row)])];
}

int StructuralView::selectedSentence() const
{
    const StructuralSentenceResult *r = selectedResult();
    return r ? r->sentence : -1;
}

void StructuralView::activateSentence(int row)
{
    const auto *results = layerResults();
    if (!results || row < 0 || row >= static_cast<int>(m_order.size()))
        return;
    const int sentence = (*results)[static_cast<std::size_t>(m_order[static_cast<std::size_t>(row)])].sentence;
    if (sentence >= 0)
        Q_EMIT openSentence(sentence);
}

QCustomPlot *StructuralView::currentPlot() const
{
    if (!m_result)
        return nullptr;
    return m_result->kind == StructuralProbeKind::Distance ? m_heatPlot : m_depthPlot;
}

void StructuralView::clearPlots()
{
    m_words.clear();
    m_sentenceLabel->clear();
    m_goldMap->data()->clear();
    m_predMap->data()->clear();
    m_arcs->clear();
    for (QCPAxisRect *r : {m_goldRect, m_predRect}) {
        r->axis(QCPAxis::atBottom)->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerText));
        r->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerText));
    }
    for (int i = 0; i < m_depthPlot->plottableCount(); ++i) {
        if (auto *bars = qobject_cast<QCPBars *>(m_depthPlot->plottable(i)))
            bars->data()->clear();
        else if (auto *graph = qobject_cast<QCPGraph *>(m_depthPlot->plottable(i)))
            graph->data()->clear();
    }
    m_depthSubtitle->setText(QString());
    m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
    m_depthPlot->replot(QCustomPlot::rpQueuedReplot);
}

void StructuralView::showSelected()
{
    const StructuralSentenceResult *r = selectedResult();
    if (!r) {
        clearPlots();
        return;
    }
    m_words = wordsOf(*r);
    QString id;
    if (m_result && r->sentence >= 0 && r->sentence < static_cast<int>(m_result->sentences.size()))
        id = QString::fromStdString(m_result->sentences[static_cast<std::size_t>(r->sentence)].id);
    const QString score = m_result->kind == StructuralProbeKind::Distance
                              ? tr("%1/%2 gold edges recovered").arg(r->correctEdges).arg(r->goldEdges.size())
                              : (r->predictedRoot == r->goldRoot ? tr("root correct") : tr("root wrong"));
    m_sentenceLabel->setText(tr("<b>%1</b> · %2 · %3 · loss %4<br>%5")
                                 .arg((id.isEmpty() ? tr("sentence %1").arg(r->sentence + 1) : id).toHtmlEscaped(), score,
                                      rhoText(r->spearman))
                                 .arg(r->loss, 0, 'f', 3)
                                 .arg(joinedWords(m_words).toHtmlEscaped()));
    if (m_result->kind == StructuralProbeKind::Distance)
        showDistance(*r);
    else
        showDepth(*r);
}

void StructuralView::showDistance(const StructuralSentenceResult &r)
{
    const int n = r.length;
    const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    m_arcs->setSentence(m_words, punctOf(r), r.goldEdges, r.predictedEdges);
    if (n <= 0 || r.gold.size() != cells || r.predicted.size() != cells) {
        m_goldMap->data()->clear();
        m_predMap->data()->clear();
        m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    double top = 1.0;
    for (std::size_t k = 0; k < cells; ++k)
        top = std::max({top, static_cast<double>(r.gold[k]), static_cast<double>(r.predicted[k])});
    for (QCPColorMap *map : {m_goldMap, m_predMap}) {
        map->data()->setSize(n, n);
        map->data()->setRange(QCPRange(0, std::max(n - 1, 1)), QCPRange(0, std::max(n - 1, 1)));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const std::size_t k = static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
                // key = column j (x), value = row i (y, row 0 at the top).
                map->data()->setCell(j, i, map == m_goldMap ? static_cast<double>(r.gold[k]) : static_cast<double>(r.predicted[k]));
            }
        map->keyAxis()->setRange(-0.5, n - 0.5);
        map->valueAxis()->setRange(-0.5, n - 0.5);
    }
    m_scale->setDataRange(QCPRange(0.0, top));
    m_tickStep = 0; // force new tickers
    updateHeatTicks();
    m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
}

bool StructuralView::updateHeatTicks()
{
    const int n = static_cast<int>(m_words.size());
    if (n == 0 || m_goldMap->data()->keySize() != n)
        return false;
    const QFontMetricsF fm(plotFont(kPlotTickPt));
    const double cell = std::max(1, std::min(m_goldRect->width(), m_goldRect->height())) / static_cast<double>(n);
    const int step = std::max(1, static_cast<int>(std::ceil(fm.height() * 1.1 / cell)));
    double widest = 0.0;
    for (const auto &w : m_words)
        widest = std::max(widest, fm.horizontalAdvance(diagramWordLabel(w)));
    const bool rotate = widest > cell * step * 0.9;
    if (step == m_tickStep && (m_goldRect->axis(QCPAxis::atBottom)->tickLabelRotation() != 0.0) == rotate)
        return false;
    m_tickStep = step;
    for (QCPAxisRect *rect : {m_goldRect, m_predRect}) {
        for (QCPAxis *axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
            QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
            for (int i = 0; i < n; i += step)
                ticker->addTick(i, diagramWordLabel(m_words[static_cast<std::size_t>(i)]));
            ticker->setSubTickCount(0);
            axis->setTicker(ticker);
        }
        rect->axis(QCPAxis::atBottom)->setTickLabelRotation(rotate ? 90.0 : 0.0);
    }
    return true;
}

void StructuralView::showDepth(const StructuralSentenceResult &r)
{
    const int n = r.length;
    auto *goldBars = qobject_cast<QCPBars *>(m_depthPlot->plottable(0));
    auto *predBars = qobject_cast<QCPBars *>(m_depthPlot->plottable(1));
    QCPGraph *goldRoot = m_depthPlot->graph(0);
    QCPGraph *predRoot = m_depthPlot->graph(1);
    if (n <= 0 || static_cast<int>(r.gold.size()) != n || static_cast<int>(r.predicted.size()) != n) {
        clearPlots();
        return;
    }
    QVector<double> keys, gold, pred;
    double top = 1.0;
    for (int i = 0; i < n; ++i) {
        keys << i;
        gold << r.gold[static_cast<std::size_t>(i)];
        pred << r.predicted[static_cast<std::size_t>(i)];
        top = std::max({top, gold.back(), pred.back()});
    }
    goldBars->setData(keys, gold, true);
    predBars->setData(keys, pred, true);
    auto barTop = [&](int i) { return std::max(gold[i], pred[i]); };
    const double step = top * 0.07;
    goldRoot->data()->clear();
    predRoot->data()->clear();
    if (r.goldRoot >= 0 && r.goldRoot < n)
        goldRoot->addData(r.goldRoot, barTop(r.goldRoot) + step);
    const bool correct = r.predictedRoot == r.goldRoot;
    const QColor rootInk = correct ? kDiagramCorrectInk : kDiagramWrongInk;
    predRoot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, QPen(rootInk, 1.2), QBrush(rootInk), 11));
    if (r.predictedRoot >= 0 && r.predictedRoot < n)
        predRoot->addData(r.predictedRoot, barTop(r.predictedRoot) + (correct ? 2.2 : 1.0) * step);
    auto wordAt = [&](int i) {
        return i >= 0 && i < n ? QStringLiteral("“%1”").arg(QString::fromStdString(m_words[static_cast<std::size_t>(i)]))
                               : tr("none");
    };
    m_depthSubtitle->setText(correct ? tr("root correct: %1").arg(wordAt(r.goldRoot))
                                     : tr("root wrong: gold %1, predicted %2").arg(wordAt(r.goldRoot), wordAt(r.predictedRoot)));
    m_depthSubtitle->setTextColor(rootInk.darker(115));

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double widest = 0.0;
    const QFontMetricsF fm(plotFont(kPlotTickPt));
    for (int i = 0; i < n; ++i) {
        ticker->addTick(i, diagramWordLabel(m_words[static_cast<std::size_t>(i)]));
        widest = std::max(widest, fm.horizontalAdvance(diagramWordLabel(m_words[static_cast<std::size_t>(i)])));
    }
    ticker->setSubTickCount(0);
    m_depthPlot->xAxis->setTicker(ticker);
    // Rotate the words when they would not fit side by side in the widget or the export.
    const double perWord = (std::max(m_depthPlot->width(), 420) - 90.0) / n;
    m_depthPlot->xAxis->setTickLabelRotation(widest + 6.0 > perWord ? 60.0 : 0.0);
    m_depthPlot->xAxis->setRange(-0.6, n - 0.4);
    m_depthPlot->yAxis->setRange(0.0, top * 1.22 + 0.2);
    m_depthPlot->replot(QCustomPlot::rpQueuedReplot);
}

QSizeF StructuralView::heatExportSize() const
{
    const int n = std::max(static_cast<int>(m_words.size()), 1);
    const double side = std::clamp(n * 24.0, 200.0, 480.0);
    const QFontMetricsF fm(plotFont(kPlotTickPt));
    double widest = 0.0;
    for (const auto &w : m_words)
        widest = std::max(widest, fm.horizontalAdvance(diagramWordLabel(w)));
    return QSizeF(2.0 * (side + widest + 30.0) + 90.0, side + widest + 70.0);
}

QSizeF StructuralView::exportSize() const
{
    if (!m_result || !selectedResult())
        return {};
    if (m_result->kind == StructuralProbeKind::Depth)
        return QSizeF(std::max(520.0, static_cast<double>(m_words.size()) * 44.0 + 160.0), 380.0);
    const QSizeF heat = heatExportSize();
    const QSizeF arcs = m_arcs->exportSize();
    return QSizeF(std::max(heat.width(), arcs.width()), heat.height() + 10.0 + arcs.height());
}

void StructuralView::renderTo(QPainter *painter, const QRectF &target)
{
    const QSizeF natural = exportSize();
    if (!beginExport(painter, target, natural))
        return;
    if (m_result->kind == StructuralProbeKind::Depth) {
        const QSize size = natural.toSize();
        layOutPlotAt(m_depthPlot, size);
        paintPlot(m_depthPlot, painter, target, size);
        m_depthPlot->setViewport(m_depthPlot->rect());
        return;
    }
    renderPlotAndDiagram(painter, target, natural, m_heatPlot, heatExportSize(), m_arcs, true,
                         [this] { updateHeatTicks(); });
}

QString StructuralView::exportName() const
{
    if (m_result && m_result->kind == StructuralProbeKind::Depth)
        return QStringLiteral("structural-depth");
    return QStringLiteral("structural-distance");
}

bool StructuralView::exportPlots(const QString &path, QString *error, int dpi)
{
    return exportView(*this, path, error, dpi);
}

} // namespace treelens
