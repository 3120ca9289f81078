#pragma once
/// \file exportservice.h
/// Everything TreeLens writes about the current document: any view as PNG, SVG
/// or PDF (viz/viewexport.h), the trees as LaTeX (`forest`, `tikz-dependency`
/// with the selected head's attention arcs; core/formats/latex.h), the analysis
/// as JSON (the keys of `treelens-cli analyze --json`) and the selected layer's
/// and head's matrices as CSV (core/formats/analysisjson.h). Every file is
/// written atomically (QSaveFile): a failed export leaves no partial file and
/// keeps an older one. No dialogs: errors come back as a Status naming the file.
/// Driven by the main window's File ▸ Export actions (exportactions.h) and by
/// the offscreen `treelens --export-view` (offscreenexport.h). GUI thread only.

#include <string>
#include <vector>

#include <QString>

#include "core/base/result.h"
#include "core/formats/latex.h"
#include "viz/viewcommon.h"

namespace treelens {

class AnalysisDocument;
class ViewHost;

class ExportService {
public:
    /// Exports `document` through the views of `views`; both must outlive the service.
    ExportService(const AnalysisDocument &document, ViewHost &views);

    /// Writes the view named `viewName` (ViewHost::exportableViewNames()) to
    /// `path`; the extension picks the format: .png (at `dpi`), .svg, .pdf, or
    /// .tex for the constituency (the induced tree when the view shows only that,
    /// else the parser's) and dependency trees.
    Status exportView(const QString &viewName, const QString &path, int dpi = 300) const;
    /// The analysis as indented JSON with attention; an error without an analysis.
    Status exportAnalysisJson(const QString &path) const;
    /// Writes into `dir` the selected layer's prior C (prior-layerL.csv), the
    /// selected head's attention (attention-layerL-headH.csv, "-raw" before ×C)
    /// and the link probabilities (link-probs.csv), those the analysis has, 1-based
    /// numbers. Stops at the first failure; an error without an analysis.
    Status exportMatrices(const QString &dir) const;

private:
    Status exportLatex(const QString &viewName, const QString &path) const;

    const AnalysisDocument &m_document;
    ViewHost &m_views;
};

/// Writes `text` to `path` atomically (QSaveFile); the error names the path.
Status writeTextFileAtomically(const QString &path, const std::string &text);

/// The attention arcs of the LaTeX dependency export: the selected head's
/// attention between distinct words at or above the threshold (only from the
/// focus word when there is one). Empty without an analysis of these words.
std::vector<LatexArc> latexAttentionArcs(const Sentence &sentence, const Analysis *analysis, const ViewState &state);
/// What those arcs are, for the figure's caption (LatexOptions::attentionCaption):
/// kind (after or before ×C), layer and head (1-based, as the app shows them),
/// threshold, focus word.
std::string latexAttentionCaption(const Analysis &analysis, const ViewState &state);

} // namespace treelens
