#pragma once
/// \file sentencepanel.h
/// The "Sentence" dock: an input box for a typed or pasted sentence (Enter or
/// Analyse asks for it to be analysed) above the history of analysed sentences
/// (click one to analyse it again), restored from and saved to the settings.

#include <QWidget>

class QComboBox;
class QListWidget;

namespace treelens {

class SentencePanel : public QWidget {
    Q_OBJECT
public:
    explicit SentencePanel(QWidget *parent = nullptr);

    QString text() const;
    /// Shows `text` in the input box (does not analyse it).
    void setText(const QString &text);
    /// Puts `text` at the top of the history, once, and saves the history.
    void remember(const QString &text);
    /// Focuses the input box with its text selected (Ctrl+L).
    void focusInput();

Q_SIGNALS:
    /// The user asked for `text` to be analysed (as typed: not trimmed).
    void analyseRequested(const QString &text);

private:
    QComboBox *m_input = nullptr;
    QListWidget *m_history = nullptr;
};

} // namespace treelens
