#pragma once
/// \file modelpanel.h
/// The "Model" dock: the model file in use, Load… and recent models, and the
/// model card built from the file's metadata (family, size, training data and
/// metrics from treelens.config) plus the Markdown card shipped next to it
/// (MODEL.md for MODEL.safetensors), when there is one; for a model with an
/// output head, its labels in the card and its prediction for the sentence shown.

#include <memory>
#include <string>

#include <QJsonObject>
#include <QWidget>

#include "core/data/analysis.h"
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
    /// The model's prediction for the sentence shown (a model with an output
    /// head: the label, its probability and every label's); hidden without one.
    void setPrediction(const Analysis *analysis);
    /// The prediction line's text (for tests; "" when hidden).
    QString predictionText() const;

Q_SIGNALS:
    void loadRequested();
    void modelChosen(const QString &path);

private:
    QLabel *m_title = nullptr;
    QPushButton *m_recent = nullptr;
    QMenu *m_recentMenu = nullptr;
    QTextBrowser *m_card = nullptr;
    QLabel *m_prediction = nullptr;
};

/// The prediction of `analysis` as HTML: "Prediction: <b>negative</b> 0.83" and a
/// bar per label; "" when the analysis has none.
QString predictionHtml(const Analysis &analysis);

/// The model card as HTML from the encoder's info and its config JSON.
QString modelCardHtml(const QString &path, const EncoderInfo &info);

/// The card's "Training data" line from treelens.config "training" (each family's
/// trainer records its own keys: sentences and words, train/dev/test counts, pairs).
QString trainingDataText(const QJsonObject &training, const std::string &task);

} // namespace treelens
