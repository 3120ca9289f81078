#include "ui/modelpanel.h"

#include <algorithm>
#include <cmath>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

namespace treelens {

namespace {
QString row(const QString &key, const QString &value)
{
    return QStringLiteral("<tr><td style='color:#555;padding-right:8px'>%1</td><td>%2</td></tr>").arg(key, value);
}
} // namespace

QString trainingDataText(const QJsonObject &training, const std::string &task)
{
    const QLocale loc(QLocale::English);
    const QJsonObject data = training.value(QStringLiteral("data")).toObject();
    auto count = [&](const char *key) { return data.value(QLatin1String(key)).toInteger(-1); };
    auto n = [&](qint64 v) { return loc.toString(v); };
    // Each family's trainer records its data under its own keys.
    if (count("sentences") >= 0) {
        QString text = QObject::tr("%1 sentences, %2 words").arg(n(count("sentences")), n(count("words")));
        if (count("validation_sentences") > 0)
            text += QObject::tr("; %1 held out for validation").arg(n(count("validation_sentences")));
        return text;
    }
    if (count("train_pairs") >= 0) {
        QString text = QObject::tr("%1 pairs").arg(n(count("train_pairs")));
        if (count("triples") > 0)
            text += QObject::tr(" (%1 training triples)").arg(n(count("triples")));
        if (count("dev_pairs") > 0)
            text += QObject::tr("; development %1 pairs").arg(n(count("dev_pairs")));
        return text;
    }
    if (count("train") >= 0) {
        const QString unit = task.find("pair") != std::string::npos ? QObject::tr("pairs") : QObject::tr("sentences");
        QString text = QStringLiteral("%1 %2").arg(n(count("train")), unit);
        QStringList held;
        if (count("dev") > 0)
            held << QObject::tr("development %1").arg(n(count("dev")));
        if (count("test") > 0)
            held << QObject::tr("test %1").arg(n(count("test")));
        if (!held.isEmpty())
            text += QStringLiteral("; ") + held.join(QStringLiteral(", "));
        return text;
    }
    if (training.contains(QStringLiteral("train_sentences")))
        return QObject::tr("%1 sentences").arg(n(training.value(QStringLiteral("train_sentences")).toInteger()));
    return QObject::tr("not recorded in the file");
}

/// "760 KB", "1.5 GB": a model file's size, or a folder's (every file in it, shards included).
static QString sizeText(const QString &path)
{
    const QFileInfo fi(path);
    qint64 bytes = fi.isDir() ? 0 : fi.size();
    if (fi.isDir()) {
        QDirIterator it(path, QDir::Files | QDir::NoSymLinks, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            bytes += it.fileInfo().size();
        }
    }
    const QLocale loc(QLocale::English);
    if (bytes < 1024 * 1024)
        return QObject::tr("%1 KB").arg(loc.toString(static_cast<double>(bytes) / 1024.0, 'f', 0));
    if (bytes < 1024LL * 1024 * 1024)
        return QObject::tr("%1 MB").arg(loc.toString(static_cast<double>(bytes) / 1048576.0, 'f', 1));
    return QObject::tr("%1 GB").arg(loc.toString(static_cast<double>(bytes) / 1073741824.0, 'f', 2));
}

QString modelCardHtml(const QString &path, const EncoderInfo &info)
{
    const QLocale loc(QLocale::English);
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(QString::fromStdString(info.name).toHtmlEscaped());
    html += row(QObject::tr("Family"), QString::fromStdString(info.family));
    if (!info.architecture.empty())
        html += row(QObject::tr("Architecture"), QString::fromStdString(info.architecture).toHtmlEscaped());
    html += row(QObject::tr("Task"), QString::fromStdString(info.task));
    if (!info.labels.empty()) {
        QStringList labels;
        for (const auto &l : info.labels)
            labels << QString::fromStdString(l).toHtmlEscaped();
        html += row(QObject::tr("Labels"), labels.join(QStringLiteral(", ")));
    }
    switch (info.input) {
    case InputKind::Words: break;
    case InputKind::WordsWithDependency:
        html += row(QObject::tr("Input"), QObject::tr("words and their dependency tree (the corpus file's, or the "
                                                      "parser's for typed text)"));
        break;
    case InputKind::WordsWithConstituency:
        html += row(QObject::tr("Input"), QObject::tr("words and their constituency tree (the corpus file's, or the "
                                                      "parser's for typed text)"));
        break;
    }
    html += row(QObject::tr("Size"), QObject::tr("%1 layers, %2 heads, d_model %3, d_ff %4")
                                         .arg(info.layers).arg(info.heads).arg(info.dModel).arg(info.dFF));
    html += row(QObject::tr("Parameters"), loc.toString(info.parameters));
    html += row(QObject::tr("Vocabulary"), loc.toString(info.vocabSize));
    if (info.maxTokens > 0)
        html += row(QObject::tr("Longest input"), QObject::tr("%1 tokens (its context)").arg(loc.toString(info.maxTokens)));
    if (!info.storedDtype.empty())
        html += row(QObject::tr("Stored as"), QString::fromStdString(info.storedDtype));
    html += row(QObject::tr("Runs on"), QStringLiteral("%1 · %2").arg(QString::fromStdString(info.device),
                                                                     QString::fromStdString(info.precision)));
    if (!info.precisionNote.empty())
        html += row(QObject::tr("Precision"), QString::fromStdString(info.precisionNote).toHtmlEscaped());
    html += row(QFileInfo(path).isDir() ? QObject::tr("Folder") : QObject::tr("File"),
                QStringLiteral("%1 (%2)").arg(QFileInfo(path).fileName().toHtmlEscaped(), sizeText(path)));
    const QJsonObject config = QJsonDocument::fromJson(QByteArray::fromStdString(info.configJson)).object();
    const QJsonObject training = config.value(QStringLiteral("training")).toObject();
    if (!training.isEmpty()) {
        html += row(QObject::tr("Training data"), trainingDataText(training, info.task));
        const QJsonObject data = training.value(QStringLiteral("data")).toObject();
        QStringList sources;
        const QJsonObject by = data.value(QStringLiteral("by_source")).toObject();
        for (auto it = by.begin(); it != by.end(); ++it)
            sources << QStringLiteral("%1 %2").arg(it.key(), loc.toString(it.value().toInteger()));
        if (!sources.isEmpty())
            html += row(QObject::tr("Sources"), sources.join(QStringLiteral(", ")).toHtmlEscaped());
        // The steps the kept weights had (a best-on-dev snapshot can be earlier than the run's
        // end), and the recipe's budget when that differs; the time is the wall clock up to them.
        const QJsonObject recipe = training.value(QStringLiteral("recipe")).toObject();
        const qint64 planned = recipe.value(QStringLiteral("training")).toObject().value(QStringLiteral("steps")).toInteger(-1);
        const qint64 steps = training.value(QStringLiteral("steps")).toInteger(-1);
        if (steps >= 0) {
            QString text = loc.toString(steps);
            if (training.contains(QStringLiteral("epochs")) && training.value(QStringLiteral("epochs")).toInteger() > 0)
                text += QObject::tr(" (%n epoch(s))", nullptr, static_cast<int>(training.value(QStringLiteral("epochs")).toInteger()));
            if (planned > 0 && planned != steps)
                text += QObject::tr("; the recipe allowed %1").arg(loc.toString(planned));
            html += row(QObject::tr("Training steps"), text);
        } else if (planned > 0) {
            html += row(QObject::tr("Training steps"), QObject::tr("%1 (the recipe's budget)").arg(loc.toString(planned)));
        }
        if (training.contains(QStringLiteral("final_validation_mlm_loss")))
            html += row(QObject::tr("Validation MLM loss"),
                        QString::number(training.value(QStringLiteral("final_validation_mlm_loss")).toDouble(), 'f', 3));
        if (training.contains(QStringLiteral("elapsed_seconds"))) {
            const double secs = training.value(QStringLiteral("elapsed_seconds")).toDouble();
            html += row(QObject::tr("Training time"), secs < 3600 ? QObject::tr("%1 min (wall clock, up to these weights)").arg(secs / 60.0, 0, 'f', 1)
                                                                   : QObject::tr("%1 h (wall clock, up to these weights)").arg(secs / 3600.0, 0, 'f', 2));
        }
    }
    const QJsonObject metrics = config.value(QStringLiteral("metrics")).toObject();
    for (auto it = metrics.begin(); it != metrics.end(); ++it)
        html += row(it.key().toHtmlEscaped(), it.value().isDouble() ? QString::number(it.value().toDouble(), 'f', 2)
                                                                    : it.value().toString().toHtmlEscaped());
    html += QStringLiteral("</table>");
    return html;
}

ModelPanel::ModelPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *row = new QHBoxLayout;
    auto *load = new QPushButton(tr("Load model…"), this);
    m_recent = new QPushButton(tr("Recent"), this);
    m_recentMenu = new QMenu(m_recent);
    m_recent->setMenu(m_recentMenu);
    row->addWidget(load);
    row->addWidget(m_recent);
    row->addStretch(1);
    layout->addLayout(row);
    m_title = new QLabel(tr("No model"), this);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    m_prediction = new QLabel(this);
    m_prediction->setTextFormat(Qt::RichText);
    m_prediction->setWordWrap(true);
    m_prediction->setVisible(false);
    layout->addWidget(m_prediction);
    m_card = new QTextBrowser(this);
    m_card->setOpenExternalLinks(false);
    layout->addWidget(m_card, 1);
    connect(load, &QPushButton::clicked, this, &ModelPanel::loadRequested);
}

void ModelPanel::setLoading(const QString &path)
{
    m_title->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    m_card->clear();
}

void ModelPanel::setModel(const QString &path, const EncoderInfo &info)
{
    m_title->setText(QFileInfo(path).absoluteFilePath());
    m_title->setToolTip(path);
    QString html = modelCardHtml(path, info);
    // The Markdown card shipped next to the model (its training log summary and results).
    QFile md(QFileInfo(path).absolutePath() + QLatin1Char('/') + QFileInfo(path).completeBaseName() + QStringLiteral(".md"));
    if (md.open(QIODevice::ReadOnly)) {
        QTextDocument doc;
        doc.setMarkdown(QString::fromUtf8(md.readAll()));
        html += QStringLiteral("<hr>") + doc.toHtml();
    }
    m_card->setHtml(html);
}

void ModelPanel::setError(const QString &path, const QString &message)
{
    m_title->setText(tr("Could not load %1").arg(QFileInfo(path).fileName()));
    m_card->setPlainText(message);
}

void ModelPanel::setRecent(const QStringList &paths)
{
    m_recentMenu->clear();
    for (const QString &p : paths)
        m_recentMenu->addAction(QFileInfo(p).fileName(), this, [this, p] { Q_EMIT modelChosen(p); })->setToolTip(p);
    m_recent->setEnabled(!paths.isEmpty());
}

QString ModelPanel::cardHtml() const { return m_card->toHtml(); }

QString predictionHtml(const Analysis &analysis)
{
    if (!analysis.prediction)
        return QString();
    const Prediction &p = *analysis.prediction;
    QString html = QObject::tr("Prediction for this sentence: <b>%1</b> %2")
                       .arg(QString::fromStdString(p.label).toHtmlEscaped())
                       .arg(static_cast<double>(p.score), 0, 'f', 3);
    if (!p.probabilities.empty()) {
        html += QStringLiteral("<table cellspacing='2'>");
        for (std::size_t k = 0; k < p.probabilities.size(); ++k) {
            const double v = static_cast<double>(p.probabilities[k]);
            const QString label = k < p.labels.size() ? QString::fromStdString(p.labels[k]) : QString::number(k);
            const int width = static_cast<int>(std::lround(120.0 * std::clamp(v, 0.0, 1.0)));
            html += QStringLiteral("<tr><td>%1</td><td><table cellspacing='0' cellpadding='0'><tr><td width='%2' "
                                   "bgcolor='#3b528b' height='10'></td><td width='%3' bgcolor='#e8e8e8'></td></tr></table>"
                                   "</td><td align='right'>%4</td></tr>")
                        .arg(label.toHtmlEscaped())
                        .arg(std::max(width, 1))
                        .arg(std::max(120 - width, 1))
                        .arg(v, 0, 'f', 3);
        }
        html += QStringLiteral("</table>");
    }
    return html;
}

void ModelPanel::setPrediction(const Analysis *analysis)
{
    const QString html = analysis ? predictionHtml(*analysis) : QString();
    m_prediction->setText(html);
    m_prediction->setVisible(!html.isEmpty());
}

QString ModelPanel::predictionText() const
{
    if (m_prediction->text().isEmpty())
        return QString();
    QTextDocument doc;
    doc.setHtml(m_prediction->text());
    return doc.toPlainText();
}

} // namespace treelens
