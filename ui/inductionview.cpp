#include "ui/inductionview.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <QCheckBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/worddiagram.h"
#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

const QColor &kGoldInk = kDiagramGoldInk;
const QColor &kCorrectInk = kDiagramCorrectInk;
const QColor &kWrongInk = kDiagramWrongInk;
const QColor kModelInk(68, 114, 196);

constexpr double kLabelMargin = 74.0;
constexpr double kLegendHeight = 24.0;
constexpr double kWordBand = 24.0;
constexpr double kLevelGap = 11.0;
constexpr double kChartWidth = 820.0;
constexpr double kChartHeight = 330.0;

constexpr double kWordPadding = 16.0;

int maxLevel(const std::vector<WordSpan> &spans)
{
    const auto levels = spanLevels(spans);
    return levels.empty() ? -1 : *std::max_element(levels.begin(), levels.end());
}

const InductionScore &pick(const InductionSplit &split, int which)
{
    switch (which) {
    case 1: return split.left;
    case 2: return split.right;
    case 3: return split.random;
    default: return split.model;
    }
}

} // namespace

// ---------------------------------------------------------------------------
// Pure helpers

std::vector<WordSpan> scoredBrackets(const std::vector<WordSpan> &brackets, int n)
{
    std::set<WordSpan> out;
    for (const auto &b : brackets)
        if (b.second - b.first >= 2 && !(b.first == 0 && b.second == n) && b.first >= 0 && b.second <= n)
            out.insert(b);
    return {out.begin(), out.end()};
}

EdgeClasses classifyBrackets(const std::vector<WordSpan> &gold, const std::vector<WordSpan> &predicted, int n)
{
    return classifyEdges(scoredBrackets(gold, n), scoredBrackets(predicted, n));
}

std::vector<int> spanLevels(const std::vector<WordSpan> &spans)
{
    // Inner spans first: a span's level only depends on shorter spans.
    std::vector<int> order(spans.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto &sa = spans[static_cast<std::size_t>(a)];
        const auto &sb = spans[static_cast<std::size_t>(b)];
        return sa.second - sa.first < sb.second - sb.first;
    });
    std::vector<int> level(spans.size(), 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto &outer = spans[static_cast<std::size_t>(order[k])];
        int l = 0;
        for (std::size_t m = 0; m < k; ++m) {
            const auto &inner = spans[static_cast<std::size_t>(order[m])];
            if (inner != outer && inner.first >= outer.first && inner.second <= outer.second)
                l = std::max(l, level[static_cast<std::size_t>(order[m])] + 1);
        }
        level[static_cast<std::size_t>(order[k])] = l;
    }
    return level;
}

std::vector<int> inductionWorstFirst(const std::vector<double> &perSentence)
{
    std::vector<int> order(perSentence.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return perSentence[static_cast<std::size_t>(a)] < perSentence[static_cast<std::size_t>(b)];
    });
    return order;
}

// ---------------------------------------------------------------------------
// BracketSpanView

BracketSpanView::BracketSpanView(QWidget *parent) : QWidget(parent)
{
    setAutoFillBackground(true);
    QPalette p = palette();
    p.setColor(QPalette::Window, Qt::white);
    setPalette(p);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void BracketSpanView::setSentence(const std::vector<std::string> &words, const std::vector<WordSpan> &gold,
                                  const std::vector<WordSpan> &predicted, bool predictedKnown)
{
    const int n = static_cast<int>(words.size());
    m_words = words;
    m_gold = scoredBrackets(gold, n);
    m_predictedKnown = predictedKnown;
    m_classes = predictedKnown ? classifyBrackets(gold, predicted, n) : EdgeClasses{};
    updateGeometry();
    update();
}

void BracketSpanView::clear()
{
    setSentence({}, {}, {}, true);
}

int BracketSpanView::goldLevels() const
{
    return maxLevel(m_gold) + 1;
}

int BracketSpanView::predictedLevels() const
{
    std::vector<WordSpan> predicted = m_classes.correct;
    predicted.insert(predicted.end(), m_classes.wrong.begin(), m_classes.wrong.end());
    return maxLevel(predicted) + 1;
}

double BracketSpanView::naturalWidth() const
{
    return wordDiagramWidth(m_words, QFontMetricsF(plotFont(10.0)), kLabelMargin, kWordPadding);
}

QSize BracketSpanView::sizeHint() const
{
    return exportSize().toSize();
}

QSize BracketSpanView::minimumSizeHint() const
{
    return QSize(static_cast<int>(std::ceil(naturalWidth())), static_cast<int>(std::ceil(exportSize().height())));
}

QSizeF BracketSpanView::exportSize() const
{
    const int levels = std::max(goldLevels(), 2) + std::max(predictedLevels(), 2);
    return QSizeF(naturalWidth(), kLegendHeight + kWordBand + levels * kLevelGap + 28.0);
}

void BracketSpanView::renderTo(QPainter *painter, const QRectF &target)
{
    painter->save();
    painter->fillRect(target, Qt::white);
    paintContent(painter, target);
    painter->restore();
}

void BracketSpanView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    paintContent(&painter, QRectF(rect()));
}

void BracketSpanView::paintContent(QPainter *painter, const QRectF &rect) const
{
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setRenderHint(QPainter::TextAntialiasing, true);
    const QFont wordFont = plotFont(10.0);
    const QFont smallFont = plotFont(8.5);
    if (paintNoSentence(painter, rect, m_words, wordFont)) {
        painter->restore();
        return;
    }
    const QPen goldPen(kGoldInk, 1.6);
    const QPen missedPen(kGoldInk, 1.6, Qt::DashLine);
    const QPen correctPen(kCorrectInk, 2.0);
    const QPen wrongPen(kWrongInk, 2.0);

    // Legend.
    painter->setFont(smallFont);
    const QFontMetricsF sfm(smallFont);
    std::vector<std::pair<QPen, QString>> legend = {{goldPen, QObject::tr("gold bracket")}};
    if (m_predictedKnown) {
        legend.emplace_back(missedPen, QObject::tr("gold, not predicted"));
        legend.emplace_back(correctPen, QObject::tr("predicted, in gold"));
        legend.emplace_back(wrongPen, QObject::tr("predicted, not in gold"));
    }
    paintLineLegend(painter, rect, kLegendHeight, legend);

    const int goldRows = std::max(goldLevels(), 1);
    const int predRows = std::max(predictedLevels(), 1);
    // Share the spare height between the two sides.
    const double spare = std::max(0.0, rect.height() - kLegendHeight - kWordBand - 16.0 - (goldRows + predRows) * kLevelGap);
    const double bandTop = rect.top() + kLegendHeight + goldRows * kLevelGap + 8.0 + spare / 2.0;
    const double bandBottom = bandTop + kWordBand;
    const QFontMetricsF fm(wordFont);
    const auto cells = wordCells(m_words, fm, rect.left() + kLabelMargin, rect.right() - 12.0, kWordPadding);
    const int n = static_cast<int>(m_words.size());

    painter->setFont(smallFont);
    painter->setPen(QColor(60, 60, 60));
    painter->drawText(QRectF(rect.left() + 4.0, bandTop - goldRows * kLevelGap - 6.0, kLabelMargin - 8.0,
                             goldRows * kLevelGap + 2.0),
                      Qt::AlignLeft | Qt::AlignBottom, QObject::tr("gold"));
    painter->drawText(QRectF(rect.left() + 4.0, bandBottom + 2.0, kLabelMargin - 8.0, 2.0 * sfm.height() + 4.0),
                      Qt::AlignLeft | Qt::AlignTop, m_predictedKnown ? QObject::tr("predicted") : QObject::tr("predicted:\nn/a"));

    // One bracket: a line over its words with short ticks towards them.
    auto drawSpan = [&](const WordSpan &s, int level, bool above) {
        if (s.first < 0 || s.second > n || s.first >= s.second)
            return;
        const double xl = cells[static_cast<std::size_t>(s.first)].first + 5.0;
        const double xr = cells[static_cast<std::size_t>(s.second - 1)].second - 5.0;
        const double y = above ? bandTop - 3.0 - (level + 1) * kLevelGap + 4.0 : bandBottom + 3.0 + (level + 1) * kLevelGap - 4.0;
        const double tick = above ? 5.0 : -5.0;
        const QPointF points[] = {QPointF(xl, y + tick), QPointF(xl, y), QPointF(xr, y), QPointF(xr, y + tick)};
        painter->drawPolyline(points, 4);
    };
    const std::set<WordSpan> missed(m_classes.missed.begin(), m_classes.missed.end());
    const std::vector<int> goldLevel = spanLevels(m_gold);
    for (std::size_t i = 0; i < m_gold.size(); ++i) {
        painter->setPen(m_predictedKnown && missed.count(m_gold[i]) ? missedPen : goldPen);
        drawSpan(m_gold[i], goldLevel[i], true);
    }
    std::vector<WordSpan> predicted = m_classes.correct;
    predicted.insert(predicted.end(), m_classes.wrong.begin(), m_classes.wrong.end());
    const std::set<WordSpan> wrong(m_classes.wrong.begin(), m_classes.wrong.end());
    const std::vector<int> predLevel = spanLevels(predicted);
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        painter->setPen(wrong.count(predicted[i]) ? wrongPen : correctPen);
        drawSpan(predicted[i], predLevel[i], false);
    }

    painter->setFont(wordFont);
    painter->setPen(QColor(20, 20, 20));
    for (int i = 0; i < n; ++i) {
        const auto &c = cells[static_cast<std::size_t>(i)];
        painter->drawText(QRectF(c.first, bandTop, c.second - c.first, kWordBand), Qt::AlignCenter,
                          diagramWordLabel(m_words[static_cast<std::size_t>(i)]));
    }
    painter->restore();
}

// ---------------------------------------------------------------------------
// InductionView

InductionView::InductionView(QWidget *parent) : QWidget(parent)
{
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("inductionStatus"));
    m_short = new QCheckBox(tr("Only sentences of ≤ 10 words"));
    m_short->setObjectName(QStringLiteral("inductionShort"));
    auto *top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(m_short);

    m_chart = new QCustomPlot;
    m_chart->setMinimumSize(420, 240);
    m_chart->setBackground(Qt::white);
    styleAxis(m_chart->xAxis);
    styleAxis(m_chart->yAxis);
    m_chart->yAxis->grid()->setVisible(true);
    m_chart->yAxis->grid()->setPen(QPen(QColor(225, 225, 225), 1, Qt::DotLine));
    m_chart->yAxis->setLabel(tr("F1 (%)"));
    m_title = new QCPTextElement(m_chart, QString(), plotFont(kPlotTitlePt, true));
    m_chart->plotLayout()->insertRow(0);
    m_chart->plotLayout()->addElement(0, 0, m_title);
    m_chart->legend->setVisible(true);
    m_chart->legend->setFont(plotFont(kPlotTickPt));
    m_chart->legend->setBorderPen(Qt::NoPen);
    // Row 1: the axis rect and, right of it, the legend with its rows packed at
    // the top (a nested grid, so the title above spans both).
    auto *body = new QCPLayoutGrid;
    QCPAxisRect *axisRect = m_chart->axisRect();
    m_chart->plotLayout()->take(axisRect);
    m_chart->plotLayout()->addElement(1, 0, body);
    body->addElement(0, 0, axisRect);
    auto *side = new QCPLayoutGrid;
    body->addElement(0, 1, side);
    body->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, m_chart->legend);
    side->addElement(1, 0, new QCPLayoutElement(m_chart));
    side->setRowStretchFactor(0, 0.001);

    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("inductionSentences"));
    m_list->setToolTip(tr("Worst first by the model's sentence F1. Double-click to open the sentence"));
    m_list->setMinimumWidth(220);
    m_sentenceLabel = new QLabel;
    m_sentenceLabel->setWordWrap(true);
    m_sentenceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_brackets = new BracketSpanView;
    m_bracketScroll = new QScrollArea;
    m_bracketScroll->setWidget(m_brackets);
    m_bracketScroll->setWidgetResizable(true);
    m_bracketScroll->setFrameShape(QFrame::NoFrame);

    auto *detail = new QWidget;
    auto *detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_sentenceLabel);
    detailLayout->addWidget(m_bracketScroll);
    detailLayout->addStretch(1);
    auto *lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(m_list);
    lower->addWidget(detail);
    lower->setStretchFactor(0, 1);
    lower->setStretchFactor(1, 3);
    lower->setChildrenCollapsible(false);

    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_chart);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_short, &QCheckBox::toggled, this, [this](bool on) { setShortSentences(on); });
    connect(m_list, &QListWidget::currentRowChanged, this, [this] { showSelected(); });
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { activateSentence(m_list->row(item)); });
    setResult(nullptr);
}

bool InductionView::hasModelScores() const
{
    return m_result && m_result->applicable && m_result->report.all.model.perSentence.size() == m_result->words.size();
}

int InductionView::configuredStartLayer() const
{
    if (!m_result)
        return -1;
    if (m_result->report.config.startLayer >= 0)
        return m_result->report.config.startLayer;
    int top = -1;
    for (const auto &s : m_result->report.byStartLayer)
        top = std::max(top, s.layer);
    return top;
}

void InductionView::setResult(std::shared_ptr<const ProbeRunInduction> result)
{
    m_result = std::move(result);
    m_short->setEnabled(m_result != nullptr);
    if (!m_result)
        m_status->clear();
    else if (!m_result->applicable)
        m_status->setText(tr("<b>Model: n/a</b> — %1. Only the baselines are shown.")
                              .arg(QString::fromStdString(m_result->reason.empty() ? std::string("not applicable") : m_result->reason)
                                       .toHtmlEscaped()));
    else
        m_status->setText(tr("Model starting at layer %1: sentence F1 %2, corpus F1 %3 over %4 sentences (≤ 10 words: %5, %6)")
                              .arg(configuredStartLayer() + 1)
                              .arg(m_result->report.all.model.sentenceF1, 0, 'f', 1)
                              .arg(m_result->report.all.model.corpusF1, 0, 'f', 1)
                              .arg(m_result->report.all.model.sentences)
                              .arg(m_result->report.upTo10.model.sentenceF1, 0, 'f', 1)
                              .arg(m_result->report.upTo10.model.corpusF1, 0, 'f', 1));
    rebuildChart();
    fillList();
    selectSentence(m_order.empty() ? -1 : 0);
}

void InductionView::setShortSentences(bool on)
{
    if (m_short->isChecked() != on) {
        m_short->setChecked(on); // back here through toggled
        return;
    }
    const int keep = selectedSentence();
    rebuildChart();
    fillList();
    int row = m_order.empty() ? -1 : 0;
    for (std::size_t r = 0; r < m_order.size(); ++r)
        if (m_order[r] == keep)
            row = static_cast<int>(r);
    selectSentence(row);
}

bool InductionView::shortSentences() const
{
    return m_short->isChecked();
}

void InductionView::rebuildChart()
{
    m_chart->clearPlottables();
    m_chart->clearItems();
    if (!m_result) {
        m_title->setText(tr("Unsupervised parsing: no results"));
        m_chart->legend->setVisible(false);
        m_chart->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_chart->legend->setVisible(true);
    const bool shortOnly = shortSentences();
    const InductionSplit &split = shortOnly ? m_result->report.upTo10 : m_result->report.all;
    const QString which = shortOnly ? tr("sentences of ≤ 10 words") : tr("all sentences");
    const QString names[] = {tr("model"), tr("left-branching"), tr("right-branching"), tr("random binary")};
    const QColor colours[] = {kModelInk, QColor(230, 140, 20), QColor(44, 150, 44), QColor(120, 120, 120)};
    const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashDotLine, Qt::DashLine, Qt::DotLine};

    if (!m_result->applicable) {
        // Baselines only: sentence and corpus F1 side by side.
        m_title->setText(tr("Unsupervised parsing F1 (%1, %2): model n/a, baselines only").arg(which).arg(split.left.sentences));
        auto *sentence = new QCPBars(m_chart->xAxis, m_chart->yAxis);
        auto *corpus = new QCPBars(m_chart->xAxis, m_chart->yAxis);
        sentence->setName(tr("sentence F1"));
        corpus->setName(tr("corpus F1"));
        sentence->setBrush(QColor(120, 150, 200));
        corpus->setBrush(QColor(200, 200, 200));
        auto *group = new QCPBarsGroup(m_chart);
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        double top = 10.0;
        for (int k = 1; k <= 3; ++k) {
            const InductionScore &s = pick(split, k);
            sentence->addData(k, s.sentenceF1);
            corpus->addData(k, s.corpusF1);
            ticker->addTick(k, names[k]);
            top = std::max({top, s.sentenceF1, s.corpusF1});
        }
        for (QCPBars *b : {sentence, corpus}) {
            b->setPen(Qt::NoPen);
            b->setWidth(0.35);
            b->setBarsGroup(group);
        }
        m_chart->xAxis->setTicker(ticker);
        m_chart->xAxis->setLabel(QString());
        m_chart->xAxis->setRange(0.4, 3.6);
        m_chart->yAxis->setRange(0.0, std::min(100.0, top * 1.15 + 2.0));
        m_chart->replot(QCustomPlot::rpQueuedReplot);
        return;
    }

    m_title->setText(tr("Unsupervised parsing F1 by start layer (%1, %2)").arg(which).arg(split.model.sentences));
    // The model's points: every start layer, or the configured one alone.
    QVector<double> layers, sentenceF1, corpusF1;
    for (const auto &s : m_result->report.byStartLayer) {
        const InductionScore &score = shortOnly ? s.upTo10 : s.all;
        layers << s.layer;
        sentenceF1 << score.sentenceF1;
        corpusF1 << score.corpusF1;
    }
    if (layers.isEmpty()) {
        layers << std::max(configuredStartLayer(), 0);
        sentenceF1 << split.model.sentenceF1;
        corpusF1 << split.model.corpusF1;
    }
    const double lo = *std::min_element(layers.begin(), layers.end()) - 0.5;
    const double hi = *std::max_element(layers.begin(), layers.end()) + 0.5;
    double top = 10.0;

    QCPGraph *model = m_chart->addGraph();
    model->setName(tr("model, sentence F1"));
    model->setData(layers, sentenceF1);
    model->setPen(QPen(kModelInk, 2.2));
    model->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kModelInk, kModelInk, 7));
    QCPGraph *modelCorpus = m_chart->addGraph();
    modelCorpus->setName(tr("model, corpus F1"));
    modelCorpus->setData(layers, corpusF1);
    modelCorpus->setPen(QPen(kModelInk, 1.6, Qt::DashLine));
    modelCorpus->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(kModelInk, 1.4), QBrush(Qt::white), 6));
    for (int i = 0; i < layers.size(); ++i)
        top = std::max({top, sentenceF1[i], corpusF1[i]});
    for (int k = 1; k <= 3; ++k) {
        const InductionScore &s = pick(split, k);
        QCPGraph *g = m_chart->addGraph();
        g->setName(tr("%1: %2 (corpus %3)").arg(names[k]).arg(s.sentenceF1, 0, 'f', 1).arg(s.corpusF1, 0, 'f', 1));
        g->setData(QVector<double>{lo, hi}, QVector<double>{s.sentenceF1, s.sentenceF1});
        g->setPen(QPen(colours[k], 1.6, styles[k]));
        top = std::max(top, s.sentenceF1);
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (double l : layers)
        ticker->addTick(l, QString::number(static_cast<int>(l) + 1)); // numbered from 1, as the View dock
    m_chart->xAxis->setTicker(ticker);
    m_chart->xAxis->setLabel(tr("layer the top-down parse starts at (from 1; baselines: sentence F1)"));
    m_chart->xAxis->setRange(lo, hi);
    const double yTop = std::min(100.0, top * 1.15 + 2.0);
    m_chart->yAxis->setRange(0.0, yTop);

    const int configured = configuredStartLayer();
    if (configured >= 0 && layers.size() > 1) {
        auto *line = new QCPItemStraightLine(m_chart);
        line->point1->setCoords(configured, 0.0);
        line->point2->setCoords(configured, 1.0);
        line->setPen(QPen(QColor(150, 150, 150), 1.0, Qt::DotLine));
        auto *label = new QCPItemText(m_chart);
        label->position->setCoords(configured, yTop);
        label->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
        label->setText(tr("configured"));
        label->setFont(plotFont(kPlotTickPt - 0.5));
        label->setColor(QColor(110, 110, 110));
        label->setBrush(Qt::white);
    }
    m_chart->replot(QCustomPlot::rpQueuedReplot);
}

void InductionView::fillList()
{
    const QSignalBlocker block(m_list);
    m_list->clear();
    m_order.clear();
    if (!m_result)
        return;
    const bool scores = hasModelScores();
    const auto &per = m_result->report.all.model.perSentence;
    std::vector<int> order;
    if (scores)
        order = inductionWorstFirst(per);
    else
        for (std::size_t i = 0; i < m_result->words.size(); ++i)
            order.push_back(static_cast<int>(i));
    const bool shortOnly = shortSentences();
    for (int i : order) {
        const auto &words = m_result->words[static_cast<std::size_t>(i)];
        if (shortOnly && words.size() > 10)
            continue;
        m_order.push_back(i);
        const QString head = scores ? tr("F1 %1").arg(per[static_cast<std::size_t>(i)], 0, 'f', 1)
                                    : (static_cast<std::size_t>(i) < m_result->sentenceIds.size()
                                           ? QString::fromStdString(m_result->sentenceIds[static_cast<std::size_t>(i)])
                                           : QString::number(i + 1));
        auto *item = new QListWidgetItem(head + QStringLiteral(" · ") + sentencePreview(words));
        QStringList full;
        for (const auto &w : words)
            full << QString::fromStdString(w);
        item->setToolTip(full.join(QLatin1Char(' ')));
        m_list->addItem(item);
    }
}

void InductionView::selectSentence(int row)
{
    if (row < -1 || row >= m_list->count())
        return;
    if (m_list->currentRow() == row) {
        showSelected();
        return;
    }
    m_list->setCurrentRow(row);
}

int InductionView::selectedRow() const
{
    return m_list->currentRow();
}

int InductionView::selectedSentence() const
{
    const int row = m_list->currentRow();
    return row >= 0 && row < static_cast<int>(m_order.size()) ? m_order[static_cast<std::size_t>(row)] : -1;
}

void InductionView::activateSentence(int row)
{
    if (row >= 0 && row < static_cast<int>(m_order.size()))
        Q_EMIT openSentence(m_order[static_cast<std::size_t>(row)]);
}

void InductionView::showSelected()
{
    const int i = selectedSentence();
    if (!m_result || i < 0 || static_cast<std::size_t>(i) >= m_result->words.size()) {
        m_brackets->clear();
        m_sentenceLabel->clear();
        return;
    }
    const auto index = static_cast<std::size_t>(i);
    const auto &words = m_result->words[index];
    static const std::vector<WordSpan> none;
    const auto &gold = index < m_result->gold.size() ? m_result->gold[index] : none;
    const bool predictedKnown = m_result->applicable && index < m_result->predicted.size();
    const auto &predicted = predictedKnown ? m_result->predicted[index] : none;
    m_brackets->setSentence(words, gold, predicted, predictedKnown);
    m_bracketScroll->setFixedHeight(static_cast<int>(std::ceil(m_brackets->exportSize().height())) + 18);
    const QString id = index < m_result->sentenceIds.size() ? QString::fromStdString(m_result->sentenceIds[index])
                                                            : tr("sentence %1").arg(i + 1);
    QString score;
    if (hasModelScores()) {
        const EdgeClasses &c = m_brackets->brackets();
        score = tr(" · sentence F1 %1 · %2 of %3 predicted brackets in gold, %4 gold brackets missed")
                    .arg(m_result->report.all.model.perSentence[index], 0, 'f', 1)
                    .arg(c.correct.size())
                    .arg(c.correct.size() + c.wrong.size())
                    .arg(c.missed.size());
    }
    QStringList text;
    for (const auto &w : words)
        text << QString::fromStdString(w);
    m_sentenceLabel->setText(QStringLiteral("<b>%1</b>%2<br>%3").arg(id.toHtmlEscaped(), score, text.join(QLatin1Char(' ')).toHtmlEscaped()));
}

QSizeF InductionView::exportSize() const
{
    if (!m_result)
        return {};
    const QSizeF brackets = m_brackets->exportSize();
    const bool withSentence = !m_brackets->words().empty();
    return QSizeF(std::max(kChartWidth, withSentence ? brackets.width() : 0.0),
                  kChartHeight + (withSentence ? 10.0 + brackets.height() : 0.0));
}

void InductionView::renderTo(QPainter *painter, const QRectF &target)
{
    const QSizeF natural = exportSize();
    painter->save();
    painter->fillRect(target, Qt::white);
    painter->restore();
    if (natural.isEmpty())
        return;
    const double sx = target.width() / natural.width(), sy = target.height() / natural.height();
    const QSize chartSize(static_cast<int>(kChartWidth), static_cast<int>(kChartHeight));
    layOutPlotAt(m_chart, chartSize);
    paintPlot(m_chart, painter,
              QRectF(target.left() + (natural.width() - kChartWidth) / 2.0 * sx, target.top(), kChartWidth * sx, kChartHeight * sy),
              chartSize);
    m_chart->setViewport(m_chart->rect());
    if (m_brackets->words().empty())
        return;
    painter->save();
    painter->translate(target.left(), target.top() + (kChartHeight + 10.0) * sy);
    painter->scale(sx, sy);
    m_brackets->renderTo(painter, QRectF(0.0, 0.0, natural.width(), m_brackets->exportSize().height()));
    painter->restore();
}

bool InductionView::exportPlots(const QString &path, QString *error, int dpi)
{
    const Status status = exportView(*this, path, dpi);
    if (!status && error)
        *error = QString::fromStdString(status.message());
    return status.ok();
}

} // namespace treelens
