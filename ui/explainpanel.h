#pragma once
/// \file explainpanel.h
/// The Explain dock (issue 34): attributes the shown analysis' prediction to its words
/// (Integrated Gradients, gradient × input, attention rollout: core/encoders/explain.h)
/// off the GUI thread, then shows the result three ways: bands under the words of the
/// dependency view (the analysis shown gets overlay::kAttributionWord), the quantity
/// explained with f(input), f(baseline) and the completeness gap, and the subtrees and
/// constituents ranked from the most positive to the most negative.
#include <memory>
#include <string>

#include <QString>
#include <QWidget>

#include "core/encoders/explain.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace treelens {

class AnalysisDocument;
class JobRunner;

/// A ranked list's name of a unit kind of core/eval/attribution ("word", "dependency",
/// "constituent"): word, subtree, constituent.
QString unitName(const std::string &kind);

class ExplainPanel : public QWidget {
    Q_OBJECT
public:
    ExplainPanel(AnalysisDocument *document, JobRunner *jobs, QWidget *parent = nullptr);

    /// Explains the document's current analysis with the panel's settings.
    void explain();
    void setMethod(ExplainOptions::Method method);
    void setSteps(int steps);
    /// The last result (null before the first, or after a new sentence).
    std::shared_ptr<const Attribution> result() const { return m_result; }
    QString summary() const;
    QTreeWidget *rankedList() const { return m_list; }

Q_SIGNALS:
    /// An explanation arrived (ok) or failed (the message is in summary()).
    void explained(bool ok);

private:
    void show(std::shared_ptr<const Attribution> result);
    void refreshTargets();
    AnalysisDocument *m_document;
    JobRunner *m_jobs;
    QComboBox *m_method = nullptr, *m_target = nullptr;
    QSpinBox *m_steps = nullptr;
    QPushButton *m_run = nullptr;
    QLabel *m_summary = nullptr;
    QTreeWidget *m_list = nullptr;
    std::shared_ptr<const Attribution> m_result;
    bool m_applying = false; ///< the panel itself is putting the attributions into the document
};

} // namespace treelens
