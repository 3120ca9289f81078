#pragma once
/// \file render.h
/// The views of the app drawn offscreen for the Python module (treelens.render,
/// an analysis' _repr_svg_): the view registry's views (ui/viewregistry.h) through
/// the export service the app and `treelens --export-view` use (ui/exportservice.h).
/// Built with the GUI; a headless build's render says that it was built without it.

#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/analysis.h"
#include "core/data/sentence.h"

namespace treelens {

/// The bytes of the view `view` of `sentence` (and `analysis`, may be null: the trees
/// only) as an SVG, PNG (at `dpi`) or PDF file (`format`). `layer`, `head`: 0-based, −1
/// for the app's default (the first); `attention`: "model", "plain" or "relation" as
/// `--export-view --attention`. Errors: the view's refusal ("the prior view draws the
/// constituent prior C, which ..."), an unknown view or format, a layer or head the
/// analysis lacks. Creates a QApplication on the "offscreen" platform (unless one
/// exists or QT_QPA_PLATFORM names another) on the first call: call from one thread.
Result<std::string> renderAnalysisView(const Sentence &sentence, std::shared_ptr<const Analysis> analysis,
                                       const std::string &view, int layer, int head, const std::string &format,
                                       int dpi, const std::string &attention);

/// The view the app shows first for this sentence and analysis: the first of the main
/// window's views with something to draw ("" when none, or without the GUI).
std::string defaultAnalysisView(const Sentence &sentence, const Analysis *analysis);

/// The names render takes (the main window's exportable views; empty without the GUI).
std::vector<std::string> renderableViews();

} // namespace treelens
