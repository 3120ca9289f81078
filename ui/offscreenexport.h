#pragma once
/// \file offscreenexport.h
/// `treelens --export-view`: writes views of one sentence, or of every sentence
/// of a corpus file, without a window. Builds only what that needs: an
/// AnalysisDocument, a JobRunner (parser and encoder on its worker thread, the
/// parser restored from the settings like the app's), the named views (never
/// shown) in a ViewHost and an ExportService. Sentences are analysed one at a
/// time; each is exported when its result arrives. GUI thread, event loop needed.

#include <memory>

#include <QMap>
#include <QObject>
#include <QPair>
#include <QStringList>
#include <QVariant>
#include <QWidget>

#include "ui/exportservice.h"
#include "ui/session/analysisdocument.h"
#include "ui/session/corpusmodel.h"
#include "ui/session/jobrunner.h"
#include "ui/session/settings.h"
#include "ui/viewhost.h"

namespace treelens {

struct ViewOption;

struct OffscreenExportOptions {
    QStringList views;           ///< names from ViewHost::exportableViewNames()
    /// One sentence: the file every view is written to (so, one view). A corpus:
    /// the directory (created) that receives NNNN-ID-VIEW.FORMAT per sentence (from 0001;
    /// ID the sentence's id, core/base/strings.h numberedFileStem).
    QString out;
    QString format = QStringLiteral("svg"); ///< a corpus' file format: png, svg, pdf or tex
    int layer = -1;              ///< 0-based; -1: the document's default (the first); beyond the model's: refused
    int head = -1;               ///< 0-based; -1: the document's default (the first); beyond the model's: refused
    int dpi = 300;               ///< PNG resolution
    /// The views' export options (ViewOption::Scope::Export of the view registry: `--step`,
    /// `--attention`) by ViewOption::key(), as ViewOption::parse() reads them; an option not
    /// here has its default. Each is written into the selection the views are drawn with,
    /// and a value the analysis cannot draw is refused (ViewOption::refusal).
    QMap<QString, QVariant> viewOptions;
    QString modelPath;           ///< the encoder ("" = trees only)
    QString precision = QStringLiteral("fp32"); ///< DeviceConfig::precision of the encoder
};

class OffscreenExport : public QObject {
    Q_OBJECT
public:
    explicit OffscreenExport(OffscreenExportOptions options, QObject *parent = nullptr);
    ~OffscreenExport() override;

    /// Parses and analyses `text`, then writes the view(s) to options.out.
    void runSentence(const QString &text);
    /// Reads the corpus file (CoNLL-U, PTB, JSON, text; its trees kept, a missing
    /// one parsed) and writes the views of every sentence into options.out.
    void runCorpus(const QString &path);

    const AnalysisDocument &document() const { return m_document; }

Q_SIGNALS:
    /// One line for the user (an error, or the batch summary), without a prefix.
    void reported(const QString &line);
    /// Queued once the run is over: 0 when every file was written, 1 when a file
    /// could not be, 2 when the layer or head is not the model's (nothing written).
    void finished(int exitCode);

private:
    void next();
    void onResult(quint64 generation, std::shared_ptr<const Sentence> sentence, std::shared_ptr<const Analysis> analysis,
                  const QString &modelError);
    void onFailed(quint64 generation, const QString &message);
    /// Why the requested layer/head cannot be drawn ("" when it can): the model has fewer.
    QString selectionRefusal() const;
    /// The value of the export option `option` (given, or its default).
    QVariant optionValue(const ViewOption &option) const;
    /// The same from the loaded model's own counts (known before its first result).
    QString modelRefusal() const;
    /// The refusal of --layer/--head against a model of `layers` and `heads` (0: unknown).
    QString refusal(int layers, int heads) const;
    void exportCurrent();
    void sentenceDone();
    void finish(int exitCode);

    /// First member, so nothing built after it writes: a batch export leaves the
    /// user's settings (history, recent files, view options) as they were.
    Settings::ReadOnlyScope m_readOnly;
    OffscreenExportOptions m_options;
    AnalysisDocument m_document;
    JobRunner m_jobs;
    QWidget m_viewParent; ///< owns the views; never shown
    ViewHost m_views;
    ExportService m_service;
    CorpusModel m_corpus;
    bool m_batch = false;
    quint64 m_request = 0;
    int m_index = 0;
    int m_written = 0;
    bool m_failed = false;
    bool m_dirMade = false;   ///< a batch's output directory exists (made with its first file)
    /// A batch's views that had nothing to draw for some sentences: view -> (sentences, why).
    QMap<QString, QPair<int, QString>> m_skipped;
    std::shared_ptr<const EncoderInfo> m_modelInfo; ///< set when the model has loaded
};

} // namespace treelens
