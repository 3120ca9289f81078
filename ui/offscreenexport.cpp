#include "ui/offscreenexport.h"

#include <string>

#include <QDir>

#include "core/base/strings.h"
#include "ui/parserchoice.h"
#include "ui/viewregistry.h"

namespace treelens {

OffscreenExport::OffscreenExport(OffscreenExportOptions options, QObject *parent)
    : QObject(parent), m_options(std::move(options)), m_views(&m_document, &m_viewParent, m_options.views),
      m_service(m_document, m_views)
{
    m_views.restoreViewOptions(); // the tree modes the user chose in the app
    m_jobs.setParserConfig(savedParserConfig());
    m_jobs.encoders().setPrecision(m_options.precision.toStdString());
    m_jobs.setModelPath(m_options.modelPath);
    connect(&m_jobs, &JobRunner::resultAvailable, this, &OffscreenExport::onResult);
    connect(&m_jobs, &JobRunner::jobFailed, this, &OffscreenExport::onFailed);
    // The model's layer and head counts, known before its first result: a --layer or
    // --head it lacks is refused before anything is written, whatever the sentences.
    connect(&m_jobs, &JobRunner::modelLoaded, this,
            [this](const QString &, std::shared_ptr<const EncoderInfo> info) { m_modelInfo = std::move(info); });
}

OffscreenExport::~OffscreenExport() = default;

void OffscreenExport::runSentence(const QString &text)
{
    m_batch = false;
    m_request = m_jobs.requestParse(text.trimmed());
}

void OffscreenExport::runCorpus(const QString &path)
{
    m_batch = true;
    auto corpus = readCorpusAsShown(path);
    if (!corpus) {
        Q_EMIT reported(QString::fromStdString(corpus.message()));
        finish(1);
        return;
    }
    if ((*corpus)->empty()) {
        Q_EMIT reported(QStringLiteral("%1: no sentences").arg(path));
        finish(1);
        return;
    }
    m_corpus.setCorpus(*corpus, path);
    m_options.out = QDir::cleanPath(m_options.out); // "figures/" names the same directory as "figures"
    next(); // the directory is made with the first file (a refused run leaves none)
}

void OffscreenExport::next()
{
    if (m_index >= m_corpus.rowCount()) {
        for (auto it = m_skipped.cbegin(); it != m_skipped.cend(); ++it)
            Q_EMIT reported(QStringLiteral("%1 not written for %2 sentence(s): %3").arg(it.key()).arg(it.value().first).arg(it.value().second));
        Q_EMIT reported(QStringLiteral("exported %1 file(s) for %2 sentence(s) to %3").arg(m_written).arg(m_index).arg(m_options.out));
        finish(m_failed || m_written == 0 ? 1 : 0);
        return;
    }
    m_request = m_jobs.requestSentence(m_corpus.sentenceAt(m_index));
}

void OffscreenExport::onResult(quint64 generation, std::shared_ptr<const Sentence> sentence,
                               std::shared_ptr<const Analysis> analysis, const QString &modelError)
{
    if (generation != m_request)
        return;
    m_document.setResult(std::move(sentence), std::move(analysis), modelError);
    if (!modelError.isEmpty()) {
        // A model was asked for and gave nothing (it would not load, or refused the sentence):
        // a figure without its data would pass for the model's, so nothing is written.
        Q_EMIT reported(QStringLiteral("model: %1").arg(modelError));
        if (m_batch && m_index > 0)
            Q_EMIT reported(QStringLiteral("stopped after %1 sentence(s); %2 file(s) written to %3")
                                .arg(m_index)
                                .arg(m_written)
                                .arg(m_options.out));
        finish(1);
        return;
    }
    QString refusal = modelRefusal();
    if (refusal.isEmpty())
        refusal = selectionRefusal();
    if (!refusal.isEmpty()) {
        // A layer or head the model does not have: nothing is drawn in its place.
        Q_EMIT reported(refusal);
        finish(2);
        return;
    }
    exportCurrent();
    sentenceDone();
}

void OffscreenExport::onFailed(quint64 generation, const QString &message)
{
    if (generation != m_request)
        return;
    m_document.setError(message);
    Q_EMIT reported(message);
    m_failed = true;
    sentenceDone();
}

QString OffscreenExport::refusal(int layers, int heads) const
{
    auto refuse = [](const char *flag, int value, int count, const char *what) {
        return QStringLiteral("%1 %2: the model has %3 %4; choose 1 to %3")
            .arg(QLatin1String(flag))
            .arg(value + 1)
            .arg(count)
            .arg(QLatin1String(what));
    };
    if (layers > 0 && m_options.layer >= layers)
        return refuse("--layer", m_options.layer, layers, "layers");
    if (heads > 0 && m_options.head >= heads)
        return refuse("--head", m_options.head, heads, "heads");
    return QString();
}

QString OffscreenExport::selectionRefusal() const
{
    const auto a = m_document.analysisFits() ? m_document.analysis() : nullptr;
    if (!a)
        return QString();
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Export))
        if (option->refusal)
            if (const QString why = option->refusal(*a, optionValue(*option)); !why.isEmpty())
                return why;
    return refusal(a->layers, a->heads);
}

QVariant OffscreenExport::optionValue(const ViewOption &option) const
{
    return m_options.viewOptions.value(option.key(), option.defaultValue);
}

QString OffscreenExport::modelRefusal() const
{
    return m_modelInfo ? refusal(m_modelInfo->layers, m_modelInfo->heads) : QString();
}

void OffscreenExport::exportCurrent()
{
    ViewState s = m_document.selection();
    if (m_options.layer >= 0)
        s.layer = m_options.layer;
    if (m_options.head >= 0)
        s.head = m_options.head;
    for (const ViewOption *option : viewOptions(ViewOption::Scope::Export))
        if (option->applyToSelection)
            option->applyToSelection(s, optionValue(*option));
    m_document.setSelection(s);
    if (m_batch && !m_dirMade) {
        if (!QDir().mkpath(m_options.out)) {
            Q_EMIT reported(QStringLiteral("%1: cannot create the output directory").arg(m_options.out));
            m_failed = true;
            return;
        }
        m_dirMade = true;
    }
    const auto sentence = m_document.sentence();
    const auto analysis = m_document.analysisFits() ? m_document.analysis() : nullptr;
    for (const QString &view : m_options.views) {
        // A view with nothing to draw is not written: an empty or stand-in figure would
        // pass for the model's. One sentence: refused (exit 1); a corpus: counted and said.
        if (const QString why = ViewHost::viewRefusal(view, sentence.get(), analysis.get()); !why.isEmpty()) {
            if (!m_batch) {
                Q_EMIT reported(why);
                m_failed = true;
            } else {
                auto &skip = m_skipped[view];
                ++skip.first;
                skip.second = why;
            }
            continue;
        }
        // NNNN-ID-VIEW.FORMAT: the number keeps the input's order, the id joins the figure
        // back to the corpus (issue 47).
        const QString stem = QString::fromStdString(numberedFileStem(static_cast<std::size_t>(m_index) + 1, sentence ? sentence->id : std::string(), 4));
        const QString path = m_batch ? QDir(m_options.out).filePath(QStringLiteral("%1-%2.%3").arg(stem, view, m_options.format))
                                     : m_options.out;
        if (const Status st = m_service.exportView(view, path, m_options.dpi); !st) {
            Q_EMIT reported(QStringLiteral("%1: %2").arg(path, QString::fromStdString(st.message())));
            m_failed = true;
        } else {
            ++m_written;
        }
    }
}

void OffscreenExport::sentenceDone()
{
    if (!m_batch) {
        finish(m_failed ? 1 : 0);
        return;
    }
    ++m_index;
    // The next request from the event loop, not from inside this result's signal.
    QMetaObject::invokeMethod(this, &OffscreenExport::next, Qt::QueuedConnection);
}

void OffscreenExport::finish(int exitCode)
{
    QMetaObject::invokeMethod(this, [this, exitCode] { Q_EMIT finished(exitCode); }, Qt::QueuedConnection);
}

} // namespace treelens
