#include "ui/corpuspanel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/corpusquery.h"
#include "ui/corpusquerybar.h"

namespace treelens {

/// The table's filter: the text search on the sentence, and with a query only its matched rows.
class CorpusFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void refilter() { invalidateRowsFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const auto *m = static_cast<const CorpusModel *>(sourceModel());
        if (m->hasMatchCounts() && m->matchCount(row) == 0)
            return false;
        return QSortFilterProxyModel::filterAcceptsRow(row, parent);
    }
};

CorpusPanel::CorpusPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    auto *open = new QPushButton(tr("Open…"), this);
    open->setToolTip(tr("Open a CoNLL-U, PTB (.mrg), TreeLens JSON or plain-text file (or drop it on the window)"));
    m_score = new QPushButton(tr("Score corpus"), this);
    m_score->setToolTip(tr("Run the encoder over every sentence and score its induced tree against the gold trees"));
    m_score->setEnabled(false);
    row->addWidget(open);
    row->addWidget(m_score);
    row->addStretch(1);
    layout->addLayout(row);

    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search sentences…"));
    m_search->setClearButtonEnabled(true);
    layout->addWidget(m_search);
    m_query = new CorpusQueryBar(this);
    layout->addWidget(m_query);

    m_model = new CorpusModel(this);
    m_proxy = new CorpusFilter(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(CorpusModel::TextColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setSortRole(Qt::UserRole);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(CorpusModel::IndexColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    layout->addWidget(m_table, 1);
    m_summary = new QLabel(tr("No corpus open."), this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    connect(open, &QPushButton::clicked, this, &CorpusPanel::openRequested);
    connect(m_score, &QPushButton::clicked, this, &CorpusPanel::scoreRequested);
    connect(m_search, &QLineEdit::textChanged, this, &CorpusPanel::setSearch);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) {
        const int row = m_proxy->mapToSource(index).row();
        if (auto s = m_model->sentenceAt(row))
            Q_EMIT sentenceActivated(std::move(s), row);
    });
    connect(m_table, &QTableView::clicked, m_table, &QTableView::activated);
    m_table->setColumnHidden(CorpusModel::MatchesColumn, true);
    m_table->setColumnHidden(CorpusModel::F1Column, true);
    connect(m_query, &CorpusQueryBar::resultChanged, this, &CorpusPanel::queryResultChanged);
    connect(m_query, &CorpusQueryBar::matchingChanged, this, [this] { updateSummary(); });
    connect(m_query, &CorpusQueryBar::attentionRequested, this, &CorpusPanel::attentionRequested);
}

void CorpusPanel::setJobRunner(JobRunner *jobs) { m_query->setJobRunner(jobs); }

void CorpusPanel::setPattern(const QString &pattern, bool now)
{
    m_query->setPattern(pattern);
    if (now)
        m_query->matchNow();
}

std::shared_ptr<const CorpusQueryResult> CorpusPanel::queryResult() const { return m_query->result(); }

std::shared_ptr<const PatternMarks> CorpusPanel::patternMarks(int row) const
{
    const auto r = m_query->result();
    return r ? r->marks(row) : nullptr;
}

std::shared_ptr<const std::vector<Sentence>> CorpusPanel::matchedSentences() const
{
    const auto r = m_query->result();
    if (!r)
        return nullptr;
    if (!m_matched)
        m_matched = r->matchedSentences();
    return m_matched;
}

void CorpusPanel::queryResultChanged()
{
    const auto r = m_query->result();
    m_matched.reset();
    m_model->setMatchCounts(r ? r->counts() : std::vector<int>{});
    m_table->setColumnHidden(CorpusModel::MatchesColumn, !r);
    if (r)
        m_table->resizeColumnToContents(CorpusModel::MatchesColumn);
    m_proxy->refilter();
    updateSummary();
    Q_EMIT queryChanged();
}

void CorpusPanel::setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus, const QString &path)
{
    m_model->setCorpus(corpus, path);
    setSearch(QString()); // a search typed for the previous corpus would hide this one's rows
    m_query->setCorpus(std::move(corpus)); // a pattern in the field is matched against this corpus
    m_table->resizeColumnToContents(CorpusModel::IndexColumn);
    m_table->resizeColumnToContents(CorpusModel::WordsColumn);
    m_table->setColumnWidth(CorpusModel::F1Column, m_table->fontMetrics().horizontalAdvance(QStringLiteral("100.0  ")));
    m_table->setColumnHidden(CorpusModel::F1Column, true); // until the corpus is scored: the dock is narrow
    m_score->setEnabled(m_model->rowCount() > 0);
    updateSummary();
}

void CorpusPanel::setAnalysis(std::shared_ptr<const CorpusAnalysis> analysis)
{
    m_model->setAnalysis(std::move(analysis));
    m_table->setColumnHidden(CorpusModel::F1Column, !m_model->analysis());
    updateSummary();
}

void CorpusPanel::setSearch(const QString &text)
{
    if (m_search->text() != text)
        m_search->setText(text);
    m_proxy->setFilterFixedString(text);
    updateSummary();
}

int CorpusPanel::visibleRows() const { return m_proxy->rowCount(); }

int CorpusPanel::currentRow() const
{
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? m_proxy->mapToSource(i).row() : -1;
}

void CorpusPanel::activateRow(int row)
{
    // The row's first cell: making the text cell current scrolled the narrow dock's table sideways.
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, CorpusModel::IndexColumn));
    if (!index.isValid())
        return;
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    if (auto s = m_model->sentenceAt(row))
        Q_EMIT sentenceActivated(std::move(s), row);
}

void CorpusPanel::step(int delta)
{
    if (m_proxy->rowCount() == 0)
        return;
    const QModelIndex cur = m_table->currentIndex();
    const int r = cur.isValid() ? std::clamp(cur.row() + delta, 0, m_proxy->rowCount() - 1) : 0;
    activateRow(m_proxy->mapToSource(m_proxy->index(r, CorpusModel::TextColumn)).row());
}

QString CorpusPanel::summaryText() const { return m_summary->text(); }

void CorpusPanel::updateSummary()
{
    if (!m_model->corpus()) {
        m_summary->setText(tr("No corpus open."));
        return;
    }
    QString text = tr("%1: %n sentence(s)", nullptr, m_model->rowCount()).arg(QFileInfo(m_model->path()).fileName());
    if (m_proxy->rowCount() != m_model->rowCount())
        text += tr(", %n shown", nullptr, m_proxy->rowCount());
    if (const auto q = m_query->result()) {
        text += tr("\n%1 occurrences in %2 of %3 sentences")
                    .arg(q->total)
                    .arg(q->sentencesMatched)
                    .arg(m_model->rowCount());
        if (q->withoutTree > 0)
            text += tr("; %1 sentence(s) have no %2 tree, which the %3 needs: the dock does not parse a corpus (open a "
                       "treebank, or parse the file with treelens-cli parse first)")
                        .arg(q->withoutTree)
                        .arg(q->pattern->tree() == TreeKind::Dependency ? tr("dependency") : tr("constituency"))
                        .arg(QString::fromStdString(q->pattern->languageName()));
        if (q->capped > 0)
            text += tr("; in %1 sentence(s) only the first %2 occurrences are kept").arg(q->capped).arg(CorpusQueryResult::kPerSentenceLimit);
        text += QLatin1Char('.');
    }
    if (m_query->isMatching())
        text += tr("\nMatching the pattern…");
    if (const auto a = m_model->analysis(); a && a->scored > 0)
        text += tr("\nInduced trees vs %1: mean sentence F1 %2 over %3 sentences (%4 s).")
                    .arg(a->reference)
                    .arg(a->meanF1, 0, 'f', 1)
                    .arg(a->scored)
                    .arg(a->seconds, 0, 'f', 1);
    m_summary->setText(text);
}

} // namespace treelens
