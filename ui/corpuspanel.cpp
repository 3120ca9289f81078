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

namespace treelens {

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

    m_model = new CorpusModel(this);
    m_proxy = new QSortFilterProxyModel(this);
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
}

void CorpusPanel::setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus, const QString &path)
{
    m_model->setCorpus(std::move(corpus), path);
    setSearch(QString()); // a search typed for the previous corpus would hide this one's rows
    m_table->resizeColumnToContents(CorpusModel::IndexColumn);
    m_table->resizeColumnToContents(CorpusModel::WordsColumn);
    m_table->setColumnWidth(CorpusModel::F1Column, m_table->fontMetrics().horizontalAdvance(QStringLiteral("100.0  ")));
    m_score->setEnabled(m_model->rowCount() > 0);
    updateSummary();
}

void CorpusPanel::setAnalysis(std::shared_ptr<const CorpusAnalysis> analysis)
{
    m_model->setAnalysis(std::move(analysis));
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
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, CorpusModel::TextColumn));
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

void CorpusPanel::updateSummary()
{
    if (!m_model->corpus()) {
        m_summary->setText(tr("No corpus open."));
        return;
    }
    QString text = tr("%1: %n sentence(s)", nullptr, m_model->rowCount()).arg(QFileInfo(m_model->path()).fileName());
    if (m_proxy->rowCount() != m_model->rowCount())
        text += tr(", %n shown", nullptr, m_proxy->rowCount());
    if (const auto a = m_model->analysis(); a && a->scored > 0)
        text += tr("\nInduced trees vs %1: mean sentence F1 %2 over %3 sentences (%4 s).")
                    .arg(a->reference)
                    .arg(a->meanF1, 0, 'f', 1)
                    .arg(a->scored)
                    .arg(a->seconds, 0, 'f', 1);
    m_summary->setText(text);
}

} // namespace treelens
