#pragma once
/// \file mainwindow.h
/// The main window: composes the sentence input, the views and the status bar.
/// Owns the AnalysisDocument and the JobRunner; holds no analysis logic itself.

#include <QMainWindow>

#include "ui/session/analysisdocument.h"
#include "ui/session/jobrunner.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace treelens {

class TreeTextView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    AnalysisDocument *document() { return &m_document; }
    JobRunner *jobRunner() { return &m_jobs; }
    TreeTextView *treeTextView() { return m_textView; }

    /// The encoder run on every analysed sentence ("" = trees only).
    void setModelPath(const QString &path);

    /// Puts `text` in the input box and analyses it.
    void analyse(const QString &text);

Q_SIGNALS:
    /// Emitted after a result (or an error) for the latest request has been shown.
    void analysisShown(bool ok);

private:
    void onDocumentChanged(AnalysisDocument::Changes what);
    void showAbout();

    AnalysisDocument m_document;
    JobRunner m_jobs;
    QComboBox *m_input = nullptr;
    QPushButton *m_analyse = nullptr;
    QPushButton *m_cancel = nullptr;
    TreeTextView *m_textView = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
};

} // namespace treelens
