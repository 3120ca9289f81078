#include "ui/session/corpusmodel.h"

#include "core/formats/corpus.h"

namespace treelens {

QString sentenceDisplayText(const Sentence &sentence)
{
    if (!sentence.text.empty())
        return QString::fromStdString(sentence.text);
    QStringList words;
    for (const auto &t : sentence.tokens)
        words << QString::fromStdString(t.text);
    return words.join(QLatin1Char(' '));
}

CorpusModel::CorpusModel(QObject *parent) : QAbstractTableModel(parent) {}

void CorpusModel::setCorpus(std::shared_ptr<const std::vector<Sentence>> corpus, const QString &path)
{
    beginResetModel();
    m_corpus = std::move(corpus);
    m_analysis.reset();
    m_matches.clear();
    m_path = path;
    endResetModel();
}

void CorpusModel::setAnalysis(std::shared_ptr<const CorpusAnalysis> analysis)
{
    if (!m_corpus || (analysis && analysis->rows.size() != m_corpus->size()))
        return;
    m_analysis = std::move(analysis);
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, F1Column), index(rowCount() - 1, F1Column));
}

void CorpusModel::setMatchCounts(std::vector<int> counts)
{
    if (!counts.empty() && (!m_corpus || counts.size() != m_corpus->size()))
        return;
    m_matches = std::move(counts);
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, MatchesColumn), index(rowCount() - 1, MatchesColumn));
}

int CorpusModel::matchCount(int row) const
{
    return row >= 0 && static_cast<std::size_t>(row) < m_matches.size() ? m_matches[static_cast<std::size_t>(row)] : 0;
}

std::shared_ptr<const Sentence> CorpusModel::sentenceAt(int row) const
{
    if (!m_corpus || row < 0 || row >= static_cast<int>(m_corpus->size()))
        return nullptr;
    // Aliasing constructor: the sentence keeps the whole corpus alive, no copy.
    return std::shared_ptr<const Sentence>(m_corpus, &(*m_corpus)[static_cast<std::size_t>(row)]);
}

int CorpusModel::findSentence(const std::string &id, const Sentence *sameWords) const
{
    if (!m_corpus)
        return -1;
    for (std::size_t i = 0; i < m_corpus->size(); ++i)
        if ((*m_corpus)[i].id == id && (!sameWords || (*m_corpus)[i].words() == sameWords->words()))
            return static_cast<int>(i);
    return -1;
}

int CorpusModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_corpus ? 0 : static_cast<int>(m_corpus->size());
}

int CorpusModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CorpusModel::data(const QModelIndex &index, int role) const
{
    if (!m_corpus || !index.isValid() || index.row() >= rowCount())
        return {};
    const Sentence &s = (*m_corpus)[static_cast<std::size_t>(index.row())];
    const double f1 = m_analysis ? m_analysis->rows[static_cast<std::size_t>(index.row())].f1 : -1.0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case IndexColumn: return index.row() + 1;
        case WordsColumn: return static_cast<int>(s.tokens.size());
        case F1Column: return f1 >= 0 ? QString::number(f1, 'f', 1) : QString();
        case MatchesColumn: return hasMatchCounts() ? QVariant(matchCount(index.row())) : QVariant();
        case TextColumn: return sentenceDisplayText(s);
        default: return {};
        }
    }
    if (role == Qt::UserRole) { // sort key
        switch (index.column()) {
        case IndexColumn: return index.row();
        case WordsColumn: return static_cast<int>(s.tokens.size());
        case F1Column: return f1;
        case MatchesColumn: return matchCount(index.row());
        default: return sentenceDisplayText(s);
        }
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(s.id);
        if (s.line > 0)
            tip += QStringLiteral(" (line %1)").arg(s.line);
        if (f1 >= 0 && m_analysis)
            tip += QStringLiteral("\ninduced-tree F1 vs %1: %2").arg(m_analysis->reference).arg(f1, 0, 'f', 2);
        return tip;
    }
    if (role == Qt::TextAlignmentRole && index.column() != TextColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant CorpusModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IndexColumn: return tr("#");
    case WordsColumn: return tr("Words");
    case F1Column: return tr("F1");
    case MatchesColumn: return tr("Matches");
    case TextColumn: return tr("Sentence");
    default: return {};
    }
}

Result<std::shared_ptr<const std::vector<Sentence>>> readCorpusAsShown(const QString &path)
{
    CorpusReadOptions options;
    options.stripTraces = true; // the views show words; traces are not tokens
    options.stripFunctionTags = true;
    auto r = readCorpusFile(path.toStdString(), formatFromPath(path.toStdString()), options);
    if (!r)
        return Error{r.message(), r.code()};
    return std::make_shared<const std::vector<Sentence>>(std::move(*r));
}

} // namespace treelens
