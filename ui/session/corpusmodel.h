#pragma once
/// \file corpusmodel.h
/// A thin table-model adapter over a loaded corpus (thousands of sentences):
/// columns #, words, induced-tree F1 (once a corpus analysis has run), the
/// occurrences of the corpus query (once one has matched) and the sentence text.
/// Sorting uses Qt::UserRole (numbers as numbers); searching and the query's filter
/// are a QSortFilterProxyModel (see CorpusPanel).

#include <memory>
#include <string>
#include <vector>

#include <QAbstractTableModel>

#include "core/base/result.h"
#include "core/data/sentence.h"
#include "ui/session/jobrunner.h"

namespace treelens {

class CorpusModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { IndexColumn, WordsColumn, F1Column, MatchesColumn, TextColumn, ColumnCount };

    explicit CorpusModel(QObject *parent = nullptr);

    void setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus, const QString &path);
    std::shared_ptr<const std::vector<Sentence>> corpus() const { return m_corpus; }
    QString path() const { return m_path; }
    void setAnalysis(std::shared_ptr<const CorpusAnalysis> analysis);
    std::shared_ptr<const CorpusAnalysis> analysis() const { return m_analysis; }
    /// The corpus query's occurrences per row (the Matches column); empty: no query (the
    /// column is blank). A list of another length than the corpus is ignored.
    void setMatchCounts(std::vector<int> counts);
    bool hasMatchCounts() const { return !m_matches.empty(); }
    /// Row `row`'s occurrences (0 without a query).
    int matchCount(int row) const;
    /// The sentence in corpus row `row` (nullptr when out of range). Shares ownership with the corpus.
    std::shared_ptr<const Sentence> sentenceAt(int row) const;
    /// The row of the sentence with id `id` and, when `sameWords` is given, the
    /// same words (files without sent_id number their sentences s1, s2, ... each,
    /// so an id alone may name another file's sentence); -1 when there is none.
    int findSentence(const std::string &id, const Sentence *sameWords = nullptr) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const std::vector<Sentence>> m_corpus;
    std::shared_ptr<const CorpusAnalysis> m_analysis;
    std::vector<int> m_matches;
    QString m_path;
};

/// Reads a corpus file as the app shows it (format from the extension; PTB
/// traces and function tags stripped: the views show words). The error names
/// the file and line.
Result<std::shared_ptr<const std::vector<Sentence>>> readCorpusAsShown(const QString &path);

/// The text a corpus row shows: "# text" when present, else the words joined.
QString sentenceDisplayText(const Sentence &sentence);

} // namespace treelens
