#pragma once
/// \file rankexplainpanel.h
/// The pair workbench's "Why this rank" tab (issue 34): explains the pair shown (its
/// question's and its candidate's words, Integrated Gradients or gradient × input over
/// the system's pair score, Encoder::explain), and for a ranked question the top
/// candidate against the correct one (the best-ranked correct candidate; when the top
/// one is correct, the best-ranked wrong one): the score difference split into the
/// baselines', the question's and the candidates' parts (core/eval/rankcontrast.h), the
/// question words that favoured the top candidate, and each candidate's subtrees and
/// words ranked. The workbench draws the attributions on the trees of the pair it shows
/// (attributionFor); the tables export as CSV or JSON. Work runs on the JobRunner.

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <QString>
#include <QWidget>

#include "core/encoders/explain.h"
#include "core/eval/rankcontrast.h"
#include "core/formats/pairs.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace treelens {

class JobRunner;

class RankExplainPanel : public QWidget {
    Q_OBJECT
public:
    explicit RankExplainPanel(JobRunner &jobs, QWidget *parent = nullptr);

    /// The corpus and system A (a model path; "" or the IDF baseline: nothing to explain).
    void setCorpus(std::shared_ptr<const PairCorpus> corpus, const QString &modelPath);
    /// The question shown: its candidates best first by system A (corpus indices; empty for
    /// a classification corpus), and the pair the pair view shows.
    void setQuestion(std::vector<int> ranked, int shownPair);

    /// Explains the pair shown.
    void explainPair();
    /// Explains the question's top candidate and the one it is contrasted with.
    void explainRank();
    void setMethod(ExplainOptions::Method method);
    void setSteps(int steps);

    /// The explanation of corpus pair `pair` (null when it has none yet).
    std::shared_ptr<const Attribution> attributionFor(int pair) const;
    /// The last rank contrast, its top and other pair (-1 before one).
    const std::optional<RankContrast> &contrast() const { return m_contrast; }
    int topPair() const { return m_top; }
    int otherPair() const { return m_other; }
    QString summary() const;
    QTreeWidget *table() const { return m_table; }
    /// The table as CSV (RFC 4180) or JSON.
    QString tableText(bool json) const;

Q_SIGNALS:
    /// Explanations arrived (ok) or failed (the message is in summary()).
    void explained(bool ok);
    /// Pair `pair` has attributions now (the workbench redraws it if it shows it).
    void attributionsReady(int pair);
    /// The user asked to see pair `pair` on the trees.
    void showPairRequested(int pair);

private:
    struct Row {
        QString section, words, unit, label;
        double top = 0, other = 0, difference = 0;
        bool hasTop = false, hasOther = false, hasDifference = false;
    };
    ExplainOptions options() const;
    bool isCorrect(int pair) const;
    QString candidateText(int pair) const;
    void showPairExplanation(int pair);
    void showContrast();
    void fillTable();
    void exportTable();
    void updateButtons();

    JobRunner &m_jobs;
    std::shared_ptr<const PairCorpus> m_corpus;
    QString m_model;
    std::vector<int> m_ranked;
    int m_shown = -1, m_top = -1, m_other = -1;
    /// Bumped when the corpus, the question or the settings change: a job of an older one is dropped.
    quint64 m_generation = 0;
    std::map<int, std::shared_ptr<const Attribution>> m_explained; ///< by corpus pair, for the current settings
    std::optional<RankContrast> m_contrast;
    std::vector<Row> m_rows;

    QComboBox *m_method = nullptr;
    QSpinBox *m_steps = nullptr;
    QPushButton *m_pairButton = nullptr, *m_rankButton = nullptr, *m_showTop = nullptr, *m_showOther = nullptr,
                *m_export = nullptr;
    QLabel *m_summary = nullptr;
    QTreeWidget *m_table = nullptr;
};

} // namespace treelens
