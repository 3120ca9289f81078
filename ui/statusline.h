#pragma once
/// \file statusline.h
/// The main window's status bar: one line of text (what is running, what was
/// shown, opened or written), a progress bar while a job runs (indeterminate
/// until the job reports totals) and Cancel.

#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;
class QPushButton;
class QStatusBar;

namespace treelens {

struct Sentence;

class StatusLine : public QObject {
    Q_OBJECT
public:
    /// Puts its widgets into `bar` (the text left, progress and Cancel on the right).
    explicit StatusLine(QStatusBar *bar);

    void setText(const QString &text);
    /// Shows the progress bar (indeterminate) and enables Cancel while busy.
    void setBusy(bool busy);
    /// `done` of `total` units of `stage` (total 0: indeterminate), also as text.
    void showProgress(int done, int total, const QString &stage);
    /// What the status line says of a shown sentence: its words, the parser,
    /// where gold trees came from, a parse error and why there is no analysis.
    static QString describe(const Sentence &sentence, const QString &modelMessage);

Q_SIGNALS:
    void cancelRequested();

private:
    QLabel *m_text = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
};

} // namespace treelens
