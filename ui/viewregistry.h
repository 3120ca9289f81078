#pragma once
/// \file viewregistry.h
/// Every view of the app in one table (viewregistry.cpp): its name (`--export-view`,
/// the export menu, file names), the main window's pane and tab label, whether it
/// exports, when its tab is shown, why it has nothing to draw, and how to create it.
/// ViewHost creates the views from it, the main window builds its tabs from it, and
/// `--export-view`, its help and the export menu list it. A view says what it needs of
/// an analysis (its refusal), never which family made it.
///
/// Adding a view: the view's own file in viz/, and one entry in viewregistry.cpp
/// (docs/architecture.md, "Adding a view").

#include <functional>
#include <vector>

#include <QString>
#include <QStringList>

#include "viz/backgroundwork.h"

class QWidget;

namespace treelens {

struct Analysis;
struct Sentence;
class ViewHost;

struct ViewSpec {
    /// Where the view is shown: the main window's tree or plot tabs, or only the pair
    /// workbench's pair view (a view of two sentences; not in the main window, its export
    /// menu or `--export-view`).
    enum class Pane { Trees, Plots, Pair };
    QString name;                ///< "prior": the view's name everywhere
    Pane pane = Pane::Plots;     ///< the main window's tab row (or the pair workbench's)
    const char *tabLabel = "";   ///< with its accelerator ("&Prior C"); translated in context "ViewRegistry"
    bool exportable = true;      ///< PNG/SVG/PDF (trees also LaTeX); the text view is not
    /// Whether the main window shows the tab for this analysis (null: no model output);
    /// empty: always shown.
    std::function<bool(const Analysis *)> tabShown;
    /// Why the view has nothing to draw for this sentence and analysis (either may be
    /// null), for the user; "" when it has something.
    std::function<QString(const Sentence *, const Analysis *)> refusal;
    /// Creates the view as a child of `parent` and hands it to `host` (ViewHost::adopt).
    std::function<void(ViewHost &host, QWidget *parent, const BackgroundWork &work)> create;
};

/// Every view, in the order of the main window's tabs (trees, then plots) and the export menu,
/// then the pair workbench's.
const std::vector<ViewSpec> &viewRegistry();
/// Whether the main window shows the view (its tabs, export menu, `--export-view`).
inline bool inMainWindow(const ViewSpec &spec) { return spec.pane != ViewSpec::Pane::Pair; }
/// The entry named `name`, nullptr when there is none.
const ViewSpec *findViewSpec(const QString &name);

} // namespace treelens
