// The pair workbench's analysis tabs (see pairworkbench.h): corpus metrics (the whole
// corpus, the filtered list, the selection) with the confusion matrix, metrics per
// slice as a table and a chart, and the comparison of systems A and B: their panels and
// how they are filled.
#include "ui/pairworkbench.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/eval/paireval.h"
#include "ui/pairscoring.h"
#include "ui/pairworkbenchparts.h"
#include "ui/viewregistry.h"
#include "viz/pairviews.h"

namespace treelens {

using namespace pairworkbench;

void PairWorkbench::buildMetricsTabs()
{
    m_tabs = new QTabWidget;
    m_tabs->addTab(buildMetricsPage(), tr("Metrics"));
    m_tabs->addTab(buildSlicePage(), tr("Slices"));
    m_tabs->addTab(buildComparePage(), tr("Compare"));
}

QWidget *PairWorkbench::buildMetricsPage()
{
    auto *metricsPage = new QWidget;
    auto *ml = new QVBoxLayout(metricsPage);
    m_metrics = new QLabel;
    m_metrics->setTextFormat(Qt::RichText);
    m_metrics->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_metrics->setWordWrap(true);
    ml->addWidget(m_metrics);
    m_confusion = new QTableWidget;
    m_confusion->setToolTip(tr("Click a cell to list its pairs"));
    ml->addWidget(m_confusion, 1);
    connect(m_confusion, &QTableWidget::cellClicked, this, [this](int gold, int predicted) {
        if (!m_corpus || !m_scores || m_corpus->task == kRankingTask)
            return;
        m_selectedPairs.clear();
        for (std::size_t i = 0; i < m_corpus->pairs.size(); ++i)
            if (m_corpus->pairs[i].label == m_corpus->labels[static_cast<std::size_t>(gold)] &&
                m_scores->a.predicted[i] == m_corpus->labels[static_cast<std::size_t>(predicted)])
                m_selectedPairs.push_back(static_cast<int>(i));
        rebuildTables();
    });
    return metricsPage;
}

QWidget *PairWorkbench::buildSlicePage()
{
    auto *slicePage = new QWidget;
    auto *sl = new QVBoxLayout(slicePage);
    auto *sliceBar = new QHBoxLayout;
    m_sliceKind = new QComboBox;
    for (SliceKind k : {SliceKind::QuestionWord, SliceKind::QuestionLength, SliceKind::CandidateLength,
                        SliceKind::Overlap, SliceKind::TreeDepth})
        m_sliceKind->addItem(QString::fromStdString(sliceKindName(k)), static_cast<int>(k));
    m_sliceMetric = new QComboBox;
    sliceBar->addWidget(new QLabel(tr("Slice by")));
    sliceBar->addWidget(m_sliceKind, 1);
    sliceBar->addWidget(m_sliceMetric);
    sl->addLayout(sliceBar);
    m_sliceNote = new QLabel;
    m_sliceNote->setWordWrap(true);
    m_sliceNote->setStyleSheet(QStringLiteral("color:#a04a00"));
    m_sliceNote->hide();
    sl->addWidget(m_sliceNote);
    m_sliceTable = new QTableWidget;
    m_sliceTable->verticalHeader()->hide();
    sl->addWidget(m_sliceTable, 1);
    m_sliceChart = buildView<SliceBarChart>(QStringLiteral("slices")); // the view registry's
    sl->addWidget(m_sliceChart, 1);
    connect(m_sliceKind, &QComboBox::currentIndexChanged, this, &PairWorkbench::updateSlices);
    connect(m_sliceMetric, &QComboBox::currentIndexChanged, this, &PairWorkbench::updateSlices);
    return slicePage;
}

QWidget *PairWorkbench::buildComparePage()
{
    auto *comparePage = new QWidget;
    auto *cl = new QVBoxLayout(comparePage);
    m_scatter = buildView<ScoreScatterPlot>(QStringLiteral("scores")); // the view registry's
    cl->addWidget(m_scatter, 1);
    m_compareNote = new QLabel;
    m_compareNote->setWordWrap(true);
    m_compareNote->setStyleSheet(QStringLiteral("color:#a04a00"));
    m_compareNote->hide();
    cl->addWidget(m_compareNote);
    cl->addWidget(new QLabel(tr("Questions where A and B put different answers first (ΔAP = B − A):")));
    m_disagreements = new QTableWidget;
    m_disagreements->verticalHeader()->hide();
    m_disagreements->setSelectionBehavior(QAbstractItemView::SelectRows);
    cl->addWidget(m_disagreements, 1);
    connect(m_scatter, &ScoreScatterPlot::pairClicked, this, [this](int pair) {
        if (!m_corpus)
            return;
        for (std::size_t r = 0; r < m_rows.size(); ++r)
            for (int p : m_rows[r].ranked)
                if (p == pair) {
                    selectQuestion(static_cast<int>(r), pair);
                    return;
                }
        showPair(pair);
    });
    connect(m_disagreements, &QTableWidget::cellClicked, this, [this](int row, int) {
        selectQuestion(m_disagreements->item(row, 0)->data(Qt::UserRole).toInt());
    });
    return comparePage;
}

QString PairWorkbench::metricsText() const
{
    return m_metrics->text();
}

void PairWorkbench::updateMetrics()
{
    if (!m_corpus || !m_scores)
        return;
    auto fmt = [](double x) { return QString::number(x, 'f', 4); };
    QString html;
    // The list as filtered (when a filter is set) and the selection: the pairs of their rows.
    std::vector<int> filtered;
    if (!m_filter->text().trimmed().isEmpty())
        for (int r = 0; r < m_questions->rowCount(); ++r)
            for (int p : m_rows[static_cast<std::size_t>(m_questions->item(r, 0)->data(Qt::UserRole).toInt())].ranked)
                filtered.push_back(p);
    std::sort(filtered.begin(), filtered.end());
    std::vector<int> selected;
    for (const auto &index : m_questions->selectionModel()->selectedRows())
        for (int p : m_rows[static_cast<std::size_t>(m_questions->item(index.row(), 0)->data(Qt::UserRole).toInt())].ranked)
            selected.push_back(p);
    std::sort(selected.begin(), selected.end());
    auto systems = std::vector<const PairSystem *>{&m_scores->a};
    if (m_scores->b)
        systems.push_back(&*m_scores->b);
    if (m_corpus->task == kRankingTask) {
        html += tr("<b>%1</b>: %2 pairs; clean protocol<br><table cellspacing=6><tr><th></th><th>MAP</th><th>MRR</th><th>P@1</th><th>questions</th></tr>")
                    .arg(QFileInfo(m_path).fileName())
                    .arg(m_corpus->pairs.size());
        for (const PairSystem *s : systems) {
            auto e = evaluateRanking(*m_corpus, s->scores);
            if (e)
                html += QStringLiteral("<tr><td>%1 (all)</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                            .arg(QString::fromStdString(s->name), fmt(e->map), fmt(e->mrr), fmt(e->precisionAt1))
                            .arg(e->groupsUsed);
            if (!filtered.empty()) {
                auto ef = evaluateRankingSlice(*m_corpus, s->scores, PairSlice{"filter", filtered});
                if (ef)
                    html += QStringLiteral("<tr><td>%1 (filter '%6')</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                                .arg(QString::fromStdString(s->name), fmt(ef->map), fmt(ef->mrr), fmt(ef->precisionAt1))
                                .arg(ef->groupsUsed)
                                .arg(m_filter->text().trimmed().toHtmlEscaped());
            }
            if (!selected.empty()) {
                auto es = evaluateRankingSlice(*m_corpus, s->scores, PairSlice{"selection", selected});
                if (es)
                    html += QStringLiteral("<tr><td>%1 (selection)</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                                .arg(QString::fromStdString(s->name), fmt(es->map), fmt(es->mrr), fmt(es->precisionAt1))
                                .arg(es->groupsUsed);
            }
        }
        html += QStringLiteral("</table>");
        m_confusion->hide();
    } else {
        auto e = evaluateClassification(*m_corpus, m_scores->a.predicted);
        if (!e) {
            m_metrics->setText(QString::fromStdString(e.message()));
            return;
        }
        html += tr("<b>%1</b> with %2: accuracy %3, macro-F1 %4 (%5 pairs)<br>")
                    .arg(QFileInfo(m_path).fileName(), QString::fromStdString(m_scores->a.name), fmt(e->accuracy),
                         fmt(e->macroF1))
                    .arg(e->total);
        for (const auto &l : e->perLabel)
            html += tr("%1: P %2 R %3 F1 %4<br>").arg(QString::fromStdString(l.label), fmt(l.precision), fmt(l.recall), fmt(l.f1));
        html += tr("Confusion matrix (rows gold, columns predicted; click a cell):");
        m_confusion->show();
        const int n = static_cast<int>(e->labels.size());
        m_confusion->setRowCount(n);
        m_confusion->setColumnCount(n);
        QStringList names;
        for (const auto &l : e->labels)
            names << QString::fromStdString(l);
        m_confusion->setHorizontalHeaderLabels(names);
        m_confusion->setVerticalHeaderLabels(names);
        for (int g = 0; g < n; ++g)
            for (int pr = 0; pr < n; ++pr)
                m_confusion->setItem(g, pr, number(static_cast<double>(e->confusion[static_cast<std::size_t>(g)][static_cast<std::size_t>(pr)]), 0));
    }
    m_metrics->setText(dataNotesHtml() + html);
    m_compareNote->setText(dataNoteText());
    m_compareNote->setVisible(!m_compareNote->text().isEmpty());
}

QString PairWorkbench::dataNoteText() const
{
    if (!m_scores)
        return QString();
    QStringList lines;
    for (const auto &n : m_scores->dataNotes)
        lines << QString::fromStdString(n);
    return lines.join(QLatin1Char('\n'));
}

QString PairWorkbench::dataNotesHtml() const
{
    const QString text = dataNoteText();
    return text.isEmpty() ? QString()
                          : QStringLiteral("<p style='color:#a04a00'>%1</p>").arg(text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
}

QString PairWorkbench::sliceNoteText() const { return m_sliceNote ? m_sliceNote->text() : QString(); }

void PairWorkbench::updateSlices()
{
    if (!m_corpus || !m_scores)
        return;
    const bool ranking = m_corpus->task == kRankingTask;
    if (m_sliceMetric->count() == 0 || m_sliceMetric->property("ranking").toBool() != ranking) {
        QSignalBlocker block(m_sliceMetric);
        m_sliceMetric->clear();
        if (ranking)
            m_sliceMetric->addItems({QStringLiteral("MAP"), QStringLiteral("MRR"), QStringLiteral("P@1")});
        else
            m_sliceMetric->addItems({tr("accuracy"), tr("macro-F1")});
        m_sliceMetric->setProperty("ranking", ranking);
    }
    const auto kind = static_cast<SliceKind>(m_sliceKind->currentData().toInt());
    auto systems = std::vector<const PairSystem *>{&m_scores->a};
    if (m_scores->b && ranking)
        systems.push_back(&*m_scores->b);
    QStringList sliceNames, systemNames;
    std::vector<std::vector<double>> values;
    std::vector<std::vector<SliceRow>> all;
    for (const PairSystem *s : systems) {
        auto rows = sliceRows(*m_corpus, *s, kind);
        if (!rows)
            return;
        all.push_back(*rows);
        systemNames << QString::fromStdString(s->name);
    }
    const int metric = m_sliceMetric->currentIndex();
    m_sliceTable->clear();
    QStringList head = {tr("slice"), tr("pairs")};
    if (ranking)
        head << tr("questions");
    for (const QString &s : systemNames)
        head << QStringLiteral("%1 %2").arg(s, m_sliceMetric->currentText());
    m_sliceTable->setColumnCount(head.size());
    m_sliceTable->setHorizontalHeaderLabels(head);
    m_sliceTable->setRowCount(static_cast<int>(all.front().size()));
    values.resize(all.size());
    for (std::size_t r = 0; r < all.front().size(); ++r) {
        const SliceRow &row = all.front()[r];
        sliceNames << QString::fromStdString(row.slice);
        m_sliceTable->setItem(static_cast<int>(r), 0, item(QString::fromStdString(row.slice)));
        m_sliceTable->setItem(static_cast<int>(r), 1, number(static_cast<double>(row.pairs), 0));
        int c = 2;
        if (ranking)
            m_sliceTable->setItem(static_cast<int>(r), c++, number(row.questions, 0));
        for (std::size_t s = 0; s < all.size(); ++s) {
            const SliceRow &x = all[s][r];
            const bool empty = ranking ? x.questions == 0 : x.pairs == 0;
            const double v = empty ? NAN
                             : ranking ? (metric == 0 ? x.map : metric == 1 ? x.mrr : x.p1)
                                       : (metric == 0 ? x.accuracy : x.macroF1);
            values[s].push_back(v);
            m_sliceTable->setItem(static_cast<int>(r), c++, number(v, 4));
        }
    }
    m_sliceTable->resizeColumnsToContents();
    // Why candidate-side slices run above the whole set, and whose training data this is.
    QStringList notes;
    if (ranking && sliceSplitsQuestions(kind)) { // otherwise sliceProtocolNote says nothing
        int questionSlices = 0;
        for (const SliceRow &row : all.front())
            questionSlices += row.questions;
        auto whole = evaluateRanking(*m_corpus, m_scores->a.scores);
        const std::string note = sliceProtocolNote(kind, questionSlices, whole ? whole->groupsUsed : 0);
        if (!note.empty())
            notes << tr("Ranked within each slice: %1.").arg(QString::fromStdString(note));
    }
    if (const QString data = dataNoteText(); !data.isEmpty())
        notes << data;
    m_sliceNote->setText(notes.join(QLatin1Char('\n')));
    m_sliceNote->setVisible(!notes.isEmpty());
    m_sliceChart->setData(tr("%1 per %2 slice%3")
                              .arg(m_sliceMetric->currentText(), m_sliceKind->currentText(),
                                   m_scores->dataNotes.empty() ? QString() : tr(" (on the model's own training or development data)")),
                          m_sliceMetric->currentText(), sliceNames, systemNames, values);
}

void PairWorkbench::updateComparison()
{
    m_disagreements->clear();
    if (!m_corpus || !m_scores || !m_scores->b || m_corpus->task != kRankingTask) {
        m_tabs->setTabEnabled(2, false);
        return;
    }
    m_tabs->setTabEnabled(2, true);
    std::vector<bool> correct;
    for (const auto &p : m_corpus->pairs)
        correct.push_back(p.label == "1");
    m_scatter->setData(QString::fromStdString(m_scores->a.name), QString::fromStdString(m_scores->b->name),
                       m_scores->a.scores, m_scores->b->scores, correct);
    const QStringList head = {tr("qid"), tr("question"), tr("AP A"), tr("AP B"), tr("ΔAP")};
    m_disagreements->setColumnCount(head.size());
    m_disagreements->setHorizontalHeaderLabels(head);
    std::vector<std::size_t> order;
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].topDisagrees())
            order.push_back(r);
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return std::abs(m_rows[x].deltaAp()) > std::abs(m_rows[y].deltaAp());
    });
    m_disagreements->setRowCount(static_cast<int>(order.size()));
    for (std::size_t i = 0; i < order.size(); ++i) {
        const QuestionRow &q = m_rows[order[i]];
        auto *id = item(QString::fromStdString(q.group));
        id->setData(Qt::UserRole, static_cast<int>(order[i]));
        m_disagreements->setItem(static_cast<int>(i), 0, id);
        m_disagreements->setItem(static_cast<int>(i), 1, item(QString::fromStdString(q.question)));
        m_disagreements->setItem(static_cast<int>(i), 2, number(q.ap));
        m_disagreements->setItem(static_cast<int>(i), 3, number(q.apB));
        m_disagreements->setItem(static_cast<int>(i), 4, number(q.deltaAp()));
    }
    m_disagreements->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
}

} // namespace treelens
