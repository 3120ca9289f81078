#include "viz/inductionview.h"

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

#include "viz/plotstyle.h"
#include "viz/qcustomplot.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

const QColor kModelInk(68, 114, 196);

constexpr double kChartWidth = 820.0;
constexpr double kChartHeight = 330.0;

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
    styleChart(m_chart, tr("F1 (%)"));
    m_title = addPlotTitle(m_chart, QString(), plotFont(kPlotTitlePt, true));
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

    m_list = newSentenceList(QStringLiteral("inductionSentences"),
                             tr("Worst first by the model's sentence F1. Double-click to open the sentence"));
    m_sentenceLabel = newSentenceLabel();
    m_brackets = new BracketSpanView;
    m_bracketScroll = newScrollArea(m_brackets);

    auto *detail = new QWidget;
    auto *detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_sentenceLabel);
    detailLayout->addWidget(m_bracketScroll);
    detailLayout->addStretch(1);
    layOutView(this, top,
               newSplit(Qt::Vertical, m_chart, newSplit(Qt::Horizontal, m_list, detail, 1, 3), 3, 2));

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
        item->setToolTip(joinedWords(words));
        m_list->addItem(item);
    }
}

void InductionView::selectSentence(int row)
{
    selectListRow(m_list, row, [this] { showSelected(); });
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
    m_sentenceLabel->setText(
        QStringLiteral("<b>%1</b>%2<br>%3").arg(id.toHtmlEscaped(), score, joinedWords(words).toHtmlEscaped()));
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
    if (!beginExport(painter, target, natural))
        return;
    renderPlotAndDiagram(painter, target, natural, m_chart, QSizeF(kChartWidth, kChartHeight), m_brackets,
                         !m_brackets->words().empty());
}

bool InductionView::exportPlots(const QString &path, QString *error, int dpi)
{
    return exportView(*this, path, error, dpi);
}

} // namespace treelens
