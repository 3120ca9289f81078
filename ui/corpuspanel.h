#pragma once
/// \file corpuspanel.h
/// The "Corpus" dock: a corpus file (CoNLL-U, PTB, TreeLens JSON or plain text)
/// as a searchable, sortable list of thousands of sentences (model/view: a
/// CorpusModel behind a QSortFilterProxyModel). Activating a row asks for that
/// sentence to be analysed; "Score corpus" runs the encoder over all of it and
/// fills the F1 column so the worst sentences can be sorted to the top.

#include <memory>
#include <vector>

#include <QWidget>

#include "ui/session/corpusmodel.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace treelens {

class CorpusPanel : public QWidget {
    Q_OBJECT
public:
    explicit CorpusPanel(QWidget *parent = nullptr);

    CorpusModel *model() { return m_model; }
    void setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus, const QString &path);
    void setAnalysis(std::shared_ptr<const CorpusAnalysis> analysis);
    /// Moves the selection by `delta` visible rows and activates the sentence there.
    void step(int delta);
    /// Selects and activates corpus row `row` (source row).
    void activateRow(int row);
    int currentRow() const;
    void setSearch(const QString &text);
    int visibleRows() const;

Q_SIGNALS:
    void sentenceActivated(std::shared_ptr<const treelens::Sentence> sentence, int row);
    void openRequested();
    void scoreRequested();

private:
    void updateSummary();

    CorpusModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QLineEdit *m_search = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_score = nullptr;
};

} // namespace treelens
