#pragma once
/// \file modelpanel.h
/// The "Model" dock: the model file in use, Load… and recent models, and the
/// model card built from the file's metadata (family, size, training data and
/// metrics from treelens.config) plus the Markdown card shipped next to it
/// (MODEL.md for MODEL.safetensors), when there is one.

#include <memory>

#include <QWidget>

#include "core/encoders/encoder.h"

class QLabel;
class QMenu;
class QPushButton;
class QTextBrowser;

namespace treelens {

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget *parent = nullptr);

    void setLoading(const QString &path);
    void setModel(const QString &path, const EncoderInfo &info);
    void setError(const QString &path, const QString &message);
    void setRecent(const QStringList &paths);
    /// The card's HTML (for tests).
    QString cardHtml() const;

Q_SIGNALS:
    void loadRequested();
    void modelChosen(const QString &path);

private:
    QLabel *m_title = nullptr;
    QPushButton *m_recent = nullptr;
    QMenu *m_recentMenu = nullptr;
    QTextBrowser *m_card = nullptr;
};

/// The model card as HTML from the encoder's info and its config JSON.
QString modelCardHtml(const QString &path, const EncoderInfo &info);

} // namespace treelens
