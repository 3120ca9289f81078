// The Query attention dock (see queryattentionpanel.h).
#include "ui/queryattentionpanel.h"

#include <algorithm>
#include <numeric>

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/session/corpusmodel.h"
#include "ui/session/jobrunner.h"
#include "ui/session/sentencepipeline.h"
#include "ui/viewregistry.h"
#include "viz/queryattentionview.h"
#include "viz/viewexport.h"

namespace treelens {

namespace {

const QString kGroup = QStringLiteral("query-attention");

} // namespace

QueryAttentionPanel::QueryAttentionPanel(JobRunner *jobs, QWidget *parent) : QWidget(parent), m_jobs(jobs)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_status = new QLabel(tr("Type a pattern with two named nodes in the Corpus dock, then press its Attention button."), this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_baseline = new QCheckBox(tr("Show the fixed-offset baseline"), this);
    m_baseline->setToolTip(tr("The same statistic for the word at the fixed offset from the first node that finds the second "
                              "node's word most often: what a head that only counts positions would score"));
    m_baseline->setEnabled(false);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setEnabled(false);
    m_export = new QPushButton(tr("Export figure…"), this);
    m_export->setEnabled(false);
    top->addWidget(m_status, 1);
    top->addWidget(m_baseline);
    top->addWidget(m_stop);
    top->addWidget(m_export);
    layout->addLayout(top);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_view = buildView<QueryAttentionView>(QStringLiteral("query-attention"), split);
    auto *listBox = new QWidget(split);
    auto *listLayout = new QVBoxLayout(listBox);
    listLayout->setContentsMargins(0, 0, 0, 0);
    m_cellLabel = new QLabel(tr("Click a cell to list the occurrences behind it, largest value first."), listBox);
    m_cellLabel->setWordWrap(true);
    m_list = new QListWidget(listBox);
    m_list->setToolTip(tr("Double-click (or Enter) to open the sentence at this layer and head"));
    listLayout->addWidget(m_cellLabel);
    listLayout->addWidget(m_list, 1);
    split->addWidget(m_view);
    split->addWidget(listBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({640, 560}); // the list's lines (value, sentence, bindings) need room too
    layout->addWidget(split, 1);

    connect(m_baseline, &QCheckBox::toggled, m_view, &QueryAttentionView::setShowBaseline);
    connect(m_stop, &QPushButton::clicked, this, &QueryAttentionPanel::cancel);
    connect(m_export, &QPushButton::clicked, this, &QueryAttentionPanel::exportFigure);
    connect(m_view, &QueryAttentionView::cellClicked, this, &QueryAttentionPanel::selectCell);
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { activateOccurrence(m_list->row(item)); });
}

QueryAttentionPanel::~QueryAttentionPanel()
{
    if (m_jobs)
        m_jobs->cancelGroup(kGroup);
}

QString QueryAttentionPanel::statusText() const { return m_status->text(); }

void QueryAttentionPanel::setStatus(const QString &text) { m_status->setText(text); }

void QueryAttentionPanel::run(std::shared_ptr<const CorpusQueryResult> query, int from, int to, const QString &modelPath,
                              const ParserConfig &parser)
{
    if (!query || !query->pattern || !m_jobs)
        return;
    m_query = std::move(query);
    m_list->clear();
    m_cellLayer = m_cellHead = -1;
    const auto &names = m_query->pattern->names();
    const QString what = tr("Attention %1 → %2")
                             .arg(QString::fromStdString(names.at(static_cast<std::size_t>(from))),
                                  QString::fromStdString(names.at(static_cast<std::size_t>(to))));
    m_running = true;
    m_stop->setEnabled(true);
    setStatus(tr("%1: analysing %2 matched sentence(s)…").arg(what).arg(m_query->sentencesMatched));
    EncoderCache *encoders = &m_jobs->encoders();
    auto q = m_query;
    m_jobs->submit<QueryAttentionRun>(
        JobRunner::Lane::Background, kGroup, this,
        [q, from, to, encoders, parser, model = modelPath.toStdString()](const RunControl &control) {
            SentencePipeline pipeline(*encoders); // this job's own parser, if a sentence needs one
            return queryAttention(*q, from, to, pipeline, parser, model, control);
        },
        [this](quint64, std::shared_ptr<const QueryAttentionRun> r) { showResult(std::move(r)); },
        [this, what](quint64, const QString &message) {
            m_running = false;
            m_stop->setEnabled(false);
            setStatus(message == QLatin1String("cancelled") ? tr("%1: stopped.").arg(what) : tr("%1: %2").arg(what, message));
            Q_EMIT finished(false);
        },
        [this, what](const JobProgress &p) {
            if (p.total > 0)
                setStatus(tr("%1: %2 of %3 sentences analysed…").arg(what).arg(p.done).arg(p.total));
        });
}

void QueryAttentionPanel::cancel()
{
    if (m_running && m_jobs)
        m_jobs->requestStop(kGroup); // it still reports how it ended ("cancelled")
}

void QueryAttentionPanel::showResult(std::shared_ptr<const QueryAttentionRun> run)
{
    m_running = false;
    m_stop->setEnabled(false);
    m_result = std::move(run);
    m_view->setFigure(queryAttentionFigure(*m_result, *m_query));
    const AttentionStat &st = m_result->stat;
    m_baseline->setEnabled(!st.baseline.cells.empty());
    if (st.baseline.cells.empty())
        m_baseline->setChecked(false);
    m_view->setShowBaseline(m_baseline->isChecked());
    m_export->setEnabled(st.layers > 0);
    QString text = tr("Attention %1 → %2 with %3: %4 occurrence(s) in %5 sentence(s)")
                       .arg(QString::fromStdString(st.from), QString::fromStdString(st.to), QString::fromStdString(m_result->model))
                       .arg(st.occurrences)
                       .arg(m_result->sentences);
    if (st.skipped > 0)
        text += tr(", %1 left out (a node bound to the anchor or to a constituent of several words, or no attention)").arg(st.skipped);
    if (st.layers == 0)
        text += tr(". The model gives no word-level attention to average.");
    setStatus(text + QLatin1Char('.'));
    Q_EMIT finished(true);
}

QString QueryAttentionPanel::occurrenceText(int row, int occurrence, float value) const
{
    const Sentence &s = (*m_query->corpus)[static_cast<std::size_t>(row)];
    const auto &names = m_query->pattern->names();
    QStringList bound;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const int w = m_query->word(row, occurrence, static_cast<int>(i));
        if (w >= 1 && static_cast<std::size_t>(w) <= s.tokens.size())
            bound << QStringLiteral("%1=%2").arg(QString::fromStdString(names[i]), QString::fromStdString(s.tokens[w - 1].text));
    }
    QString sentence = sentenceDisplayText(s);
    if (sentence.size() > 90)
        sentence = sentence.left(87) + QStringLiteral("…");
    return QStringLiteral("%1   %2   %3 — %4")
        .arg(value, 0, 'f', 3)
        .arg(QString::fromStdString(s.id), bound.join(QLatin1Char(' ')), sentence);
}

void QueryAttentionPanel::selectCell(int layer, int head)
{
    m_list->clear();
    if (!m_result || layer < 0 || head < 0 || layer >= m_result->stat.layers || head >= m_result->stat.heads)
        return;
    m_cellLayer = layer;
    m_cellHead = head;
    m_view->setSelected(layer, head);
    const AttentionStat &st = m_result->stat;
    const std::size_t cell = static_cast<std::size_t>(layer * st.heads + head);
    std::vector<std::size_t> order(st.values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return st.values[a][cell] > st.values[b][cell]; });
    for (std::size_t i : order) {
        const auto [row, occurrence] = m_result->counted[i];
        auto *item = new QListWidgetItem(occurrenceText(row, occurrence, st.values[i][cell]), m_list);
        item->setData(Qt::UserRole, row);
        item->setData(Qt::UserRole + 1, static_cast<double>(st.values[i][cell]));
    }
    m_cellLabel->setText(tr("Layer %1, head %2: the %3 occurrence(s) by their attention %4 → %5 there, largest first. "
                            "Double-click one to open its sentence at this layer and head.")
                             .arg(layer + 1)
                             .arg(head + 1)
                             .arg(order.size())
                             .arg(QString::fromStdString(st.from), QString::fromStdString(st.to)));
}

void QueryAttentionPanel::activateOccurrence(int row)
{
    const QListWidgetItem *item = m_list->item(row);
    if (item)
        Q_EMIT occurrenceActivated(item->data(Qt::UserRole).toInt(), m_cellLayer, m_cellHead);
}

void QueryAttentionPanel::exportFigure()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the heatmap"), QStringLiteral("query-attention.png"),
                                                      tr("Images (*.png *.svg *.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportView(*m_view, path, &error))
        setStatus(error);
}

} // namespace treelens
