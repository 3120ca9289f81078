// The pair workbench's lists (see pairworkbench.h): the questions (or, for
// classification corpora, the pairs) with their filter, the selected question's
// candidates (their panels and how they are filled), and the export of the question
// and slice tables.
#include "ui/pairworkbench.h"

#include <algorithm>
#include <string>
#include <utility>

#include <QColor>
#include <QComboBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSaveFile>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/pairscoring.h"
#include "ui/pairworkbenchparts.h"

namespace treelens {

using namespace pairworkbench;

namespace {

QString sentenceText(const Sentence &s)
{
    return QString::fromStdString(s.text.empty() ? [&] {
        std::string t;
        for (const auto &w : s.words())
            t += (t.empty() ? "" : " ") + w;
        return t;
    }() : s.text);
}

} // namespace

QWidget *PairWorkbench::buildQuestionList()
{
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter: text in the question or a candidate"));
    m_filter->setClearButtonEnabled(true);
    leftLayout->addWidget(m_filter);
    m_questions = new QTableWidget;
    m_questions->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_questions->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_questions->setSortingEnabled(true);
    m_questions->verticalHeader()->hide();
    leftLayout->addWidget(m_questions);
    connect(m_filter, &QLineEdit::textChanged, this, [this] {
        rebuildTables();
        updateMetrics();
        updateSlices();
    });
    connect(m_questions, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_questions->selectionModel()->selectedRows();
        if (rows.isEmpty())
            return;
        const int r = m_questions->item(rows.front().row(), 0)->data(Qt::UserRole).toInt();
        if (r != m_currentRow)
            selectQuestion(r);
        updateMetrics();
    });
    return left;
}

void PairWorkbench::buildCandidateList()
{
    m_candidates = new QTableWidget;
    m_candidates->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_candidates->setSelectionMode(QAbstractItemView::SingleSelection);
    m_candidates->verticalHeader()->hide();
    connect(m_candidates, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_candidates->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            showPair(m_candidates->item(rows.front().row(), 0)->data(Qt::UserRole).toInt());
    });
}

void PairWorkbench::rebuildTables()
{
    if (!m_corpus || !m_scores)
        return;
    const QString filter = m_filter->text().trimmed();
    auto matches = [&](const SentencePair &p) {
        return filter.isEmpty() || sentenceText(p.first).contains(filter, Qt::CaseInsensitive) ||
               sentenceText(p.second).contains(filter, Qt::CaseInsensitive);
    };
    m_questions->setSortingEnabled(false);
    m_questions->clear();
    if (m_corpus->task == kRankingTask) {
        auto rows = treelens::questionRows(*m_corpus, m_scores->a, m_scores->b ? &*m_scores->b : nullptr);
        if (!rows) {
            m_status->setText(QString::fromStdString(rows.message()));
            return;
        }
        m_rows = std::move(*rows);
        sortWorstFirst(m_rows);
        const bool b = m_scores->b.has_value();
        QStringList head = {tr("qid"), tr("question"), tr("cands"), tr("AP"), tr("RR"), tr("1st correct")};
        if (b)
            head << tr("AP (B)") << tr("ΔAP");
        m_questions->setColumnCount(head.size());
        m_questions->setHorizontalHeaderLabels(head);
        m_questions->setRowCount(0);
        for (std::size_t r = 0; r < m_rows.size(); ++r) {
            const QuestionRow &q = m_rows[r];
            bool any = false;
            for (int p : q.ranked)
                any = any || matches(m_corpus->pairs[static_cast<std::size_t>(p)]);
            if (!any)
                continue;
            const int row = m_questions->rowCount();
            m_questions->insertRow(row);
            auto *id = item(QString::fromStdString(q.group));
            id->setData(Qt::UserRole, static_cast<int>(r));
            m_questions->setItem(row, 0, id);
            m_questions->setItem(row, 1, item(QString::fromStdString(q.question)));
            m_questions->item(row, 1)->setToolTip(QString::fromStdString(q.question));
            m_questions->setItem(row, 2, number(q.candidates, 0));
            m_questions->setItem(row, 3, q.used ? number(q.ap) : item(tr("—")));
            m_questions->setItem(row, 4, q.used ? number(q.rr) : item(tr("—")));
            m_questions->setItem(row, 5, q.firstCorrectRank ? number(q.firstCorrectRank, 0) : item(tr("none")));
            if (b) {
                m_questions->setItem(row, 6, q.used ? number(q.apB) : item(tr("—")));
                m_questions->setItem(row, 7, q.used ? number(q.deltaAp()) : item(tr("—")));
            }
            if (q.used && q.ap < 0.5)
                for (int c = 0; c < m_questions->columnCount(); ++c)
                    if (m_questions->item(row, c))
                        m_questions->item(row, c)->setBackground(QColor(253, 236, 234));
        }
    } else {
        // Classification: one row per pair, wrong predictions first.
        m_rows.clear();
        const QStringList head = {tr("id"), tr("text / hypothesis"), tr("gold"), tr("predicted")};
        m_questions->setColumnCount(head.size());
        m_questions->setHorizontalHeaderLabels(head);
        m_questions->setRowCount(0);
        std::vector<int> order;
        if (!m_selectedPairs.empty())
            order = m_selectedPairs;
        else
            for (std::size_t i = 0; i < m_corpus->pairs.size(); ++i)
                order.push_back(static_cast<int>(i));
        std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
            const bool wx = m_scores->a.predicted[static_cast<std::size_t>(x)] != m_corpus->pairs[static_cast<std::size_t>(x)].label;
            const bool wy = m_scores->a.predicted[static_cast<std::size_t>(y)] != m_corpus->pairs[static_cast<std::size_t>(y)].label;
            return wx > wy;
        });
        for (int i : order) {
            const auto &p = m_corpus->pairs[static_cast<std::size_t>(i)];
            if (!matches(p))
                continue;
            QuestionRow q;
            q.group = p.group;
            q.question = p.first.text;
            q.ranked = {i};
            m_rows.push_back(q);
            const int row = m_questions->rowCount();
            m_questions->insertRow(row);
            auto *id = item(QString::fromStdString(p.group));
            id->setData(Qt::UserRole, static_cast<int>(m_rows.size() - 1));
            m_questions->setItem(row, 0, id);
            m_questions->setItem(row, 1, item(sentenceText(p.first) + QStringLiteral("  ⟶  ") + sentenceText(p.second)));
            m_questions->setItem(row, 2, item(QString::fromStdString(p.label)));
            m_questions->setItem(row, 3, item(QString::fromStdString(m_scores->a.predicted[static_cast<std::size_t>(i)])));
        }
    }
    m_questions->setSortingEnabled(true);
    m_questions->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_questions->resizeColumnToContents(0);
}

void PairWorkbench::selectQuestion(int row, int pair)
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return;
    m_currentRow = row;
    fillCandidates();
    const QuestionRow &q = m_rows[static_cast<std::size_t>(row)];
    const int target = pair >= 0 ? pair : q.ranked.front();
    for (int r = 0; r < m_candidates->rowCount(); ++r)
        if (m_candidates->item(r, 0)->data(Qt::UserRole).toInt() == target) {
            m_candidates->selectRow(r);
            break;
        }
}

void PairWorkbench::fillCandidates()
{
    m_candidates->clear();
    if (m_currentRow < 0 || !m_scores)
        return;
    const QuestionRow &q = m_rows[static_cast<std::size_t>(m_currentRow)];
    const bool b = m_scores->b.has_value();
    QStringList head = {tr("rank"), tr("gold"), tr("score A"), tr("candidate")};
    if (b)
        head.insert(3, tr("score B"));
    m_candidates->setColumnCount(head.size());
    m_candidates->setHorizontalHeaderLabels(head);
    m_candidates->setRowCount(static_cast<int>(q.ranked.size()));
    for (std::size_t k = 0; k < q.ranked.size(); ++k) {
        const int p = q.ranked[k];
        const auto &pair = m_corpus->pairs[static_cast<std::size_t>(p)];
        const int r = static_cast<int>(k);
        auto *rank = number(static_cast<double>(k + 1), 0);
        rank->setData(Qt::UserRole, p);
        m_candidates->setItem(r, 0, rank);
        const bool correct = pair.label == "1" || pair.label == "YES";
        m_candidates->setItem(r, 1, item(correct ? tr("✔ %1").arg(QString::fromStdString(pair.label))
                                                 : QString::fromStdString(pair.label)));
        m_candidates->setItem(r, 2, number(m_scores->a.scores[static_cast<std::size_t>(p)], 4));
        int c = 3;
        if (b)
            m_candidates->setItem(r, c++, number(m_scores->b->scores[static_cast<std::size_t>(p)], 4));
        m_candidates->setItem(r, c, item(sentenceText(pair.second)));
        m_candidates->item(r, c)->setToolTip(sentenceText(pair.second));
        if (correct)
            for (int col = 0; col < m_candidates->columnCount(); ++col)
                m_candidates->item(r, col)->setBackground(QColor(228, 244, 234));
    }
    m_candidates->horizontalHeader()->setSectionResizeMode(m_candidates->columnCount() - 1, QHeaderView::Stretch);
    m_candidates->resizeColumnsToContents();
}

void PairWorkbench::setFilter(const QString &text)
{
    m_filter->setText(text);
}

void PairWorkbench::exportTable(bool questions)
{
    if (!m_corpus || !m_scores)
        return;
    const QString path = QFileDialog::getSaveFileName(this, questions ? tr("Export question table") : tr("Export slice table"),
                                                      {}, tr("CSV (*.csv);;JSON (*.json)"));
    if (path.isEmpty())
        return;
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    std::string text;
    if (questions) {
        text = json ? questionRowsJson(m_rows) : questionRowsCsv(m_rows);
    } else {
        auto rows = sliceRows(*m_corpus, m_scores->a, static_cast<SliceKind>(m_sliceKind->currentData().toInt()));
        if (!rows)
            return;
        const bool ranking = m_corpus->task == kRankingTask;
        text = json ? sliceRowsJson(*rows, ranking) : sliceRowsCsv(*rows, ranking);
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit())
        QMessageBox::warning(this, tr("Export"), tr("Could not write %1: %2").arg(path, f.errorString()));
}

} // namespace treelens
