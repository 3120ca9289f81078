#pragma once
/// \file viewregistry.h
/// Every view of the app in one table (viewregistry.cpp): its name (`--export-view`,
/// the export menu, file names), its pane (the main window's tabs, the pair workbench,
/// a dock) and tab label, whether it exports, when its tab is shown, why it has nothing
/// to draw, its options, and how to create it. ViewHost creates the document's views
/// from it, the main window builds its tabs from it, the docks and the pair workbench
/// build their views through it, `--export-view`, its help and the export menu list it,
/// and the View dock, the settings and the GUI's command line read its options. A view
/// says what it needs of an analysis (its refusal), never which family made it.
///
/// Adding a view: the view's own files in viz/, and one entry in viewregistry.cpp
/// (docs/architecture.md, "Adding a view").

#include <functional>
#include <vector>

#include <QString>
#include <QStringList>
#include <QVariant>

#include "core/data/viewstate.h"
#include "viz/backgroundwork.h"

class QWidget;

namespace treelens {

struct Analysis;
struct Sentence;
class PairWorkbench;
class ViewHost;

/// One option a view declares (ViewSpec::options): what it selects, its values (a
/// choice, an integer from a minimum, or a text the option reads), its default, its
/// help, whether it is saved in the settings, and how it is applied. ViewHost applies,
/// saves and restores the display options and the View dock shows them; the GUI's
/// command line has a flag for every option that names one (app/gui/main.cpp), and
/// checks its value. A value is the index of a choice, an integer, or (with `read`) what
/// `read` returns.
struct ViewOption {
    /// What the option sets, and so where it is applied.
    enum class Scope {
        Display, ///< how the view draws, per ViewHost (the View dock, the settings): applyToView
        Export,  ///< the selection `--export-view` draws with: applyToSelection (and refusal)
        Pairs,   ///< the pair workbench (`--pairs`): applyToPairs, at start or each time a pair is shown
    };
    QString view;                      ///< the view that declares it (set by the registry; "pairs" for the pair view's own)
    QString name;                      ///< within the view: "mode"
    Scope scope = Scope::Display;
    /// A choice: its values as the command line spells them ("parser", "induced", ...); the
    /// value is the index. Empty: an integer from `minimum` (or a text, with `read`).
    QStringList values;
    /// The View dock's names of a choice's values ("Parser tree", ...), translated in context
    /// "ViewRegistry"; with a panelLabel the dock shows the option as a choice.
    std::vector<const char *> valueLabels;
    const char *panelLabel = nullptr;  ///< the View dock's row ("Constituency:"); nullptr: not in the dock
    int minimum = 0;                   ///< an integer's smallest value
    QVariant defaultValue = 0;         ///< the value when nothing sets it
    QString settingsKey;               ///< "view/constituencyMode": saved there (ViewHost); "": not saved
    /// The command line's names without "--": the first the one to use, the others older
    /// spellings that work alike (`--help` says so). Empty: no flag.
    QStringList flags;
    QString valueName;                 ///< "K", "KIND" (in `--help`)
    QString help;                      ///< `--help`: what the option selects
    /// A text value: returns what the option's apply reads, or an invalid QVariant when the
    /// text is not one (the error is then the option's `expected`).
    std::function<QVariant(const QString &text)> read;
    QString expected;                  ///< with `read`: what the value must be ("q:ID or a:ID")
    /// Pairs: applied each time a pair is shown (its trees decide steps and node ids), not once at start.
    bool eachPair = false;

    std::function<void(QWidget *view, int value)> applyToView;                   ///< Display
    std::function<void(ViewState &selection, const QVariant &value)> applyToSelection; ///< Export
    /// Export: why the analysis cannot be drawn with this value ("" when it can), for the user.
    std::function<QString(const Analysis &analysis, const QVariant &value)> refusal;
    std::function<void(PairWorkbench &pairs, const QVariant &value)> applyToPairs; ///< Pairs

    /// "constituency.mode": the option's key in ViewHost, the View dock and OffscreenExportOptions.
    QString key() const { return view + QLatin1Char('.') + name; }
    /// "--aggregation-step" ("" without a flag).
    QString flag() const { return flags.isEmpty() ? QString() : QStringLiteral("--") + flags.front(); }
    /// The value of `text` as given on the command line; an invalid QVariant and `*error`
    /// ("--attention must be model, plain or relation, not 'x'") when it is not one.
    QVariant parse(const QString &text, QString *error) const;
    /// The `--help` text: `help`, and which older spellings still work.
    QString helpText() const;
};

/// An option and its value (the command line's, for the workbench and the offscreen export).
struct ViewOptionValue {
    const ViewOption *option = nullptr;
    QVariant value;
};

struct ViewSpec {
    /// Where the view is shown. The main window's tree and plot tabs (and `--export-view`)
    /// take Trees and Plots only; the others are built by their window or dock through
    /// buildView() (or, Pair views that a document feeds, by that side's ViewHost).
    enum class Pane {
        Trees,     ///< the main window's tree tabs
        Plots,     ///< the main window's plot tabs
        Pair,      ///< the pair workbench, below a pair's trees (`--pair-detail` chooses among them)
        PairCorpus,///< the pair workbench's charts of a scored corpus
        Dock,      ///< a dock of the main window (the What-if dock's comparison)
        Probing,   ///< the Probing dock's result tabs
    };
    QString name;                ///< "prior": the view's name everywhere
    Pane pane = Pane::Plots;     ///< the main window's tab row, or the window or dock that shows it
    const char *tabLabel = "";   ///< with its accelerator ("&Prior C"); translated in context "ViewRegistry"
    QString summary;             ///< Pair: what it shows, for `--help` ("what connects the two sentences")
    bool exportable = true;      ///< PNG/SVG/PDF (trees also LaTeX); the text view is not
    /// The pair workbench shows this tree view on each side of a pair, in this tab (0: the
    /// first, and the default of `--pair-trees`); -1: not there.
    int pairTreeTab = -1;
    /// Whether the main window shows the tab for this analysis (null: no model output);
    /// empty: always shown.
    std::function<bool(const Analysis *)> tabShown;
    /// Why the view has nothing to draw for this sentence and analysis (either may be
    /// null), for the user; "" when it has something. Every view a ViewHost feeds has one.
    std::function<QString(const Sentence *, const Analysis *)> refusal;
    /// A view the document feeds: creates it as a child of `parent` and hands it to `host`
    /// (ViewHost::adopt).
    std::function<void(ViewHost &host, QWidget *parent, const BackgroundWork &work)> create;
    /// A view its window or dock feeds itself (the panes Pair without `create`, PairCorpus,
    /// Dock, Probing): creates it as a child of `parent` (buildView()).
    std::function<QWidget *(QWidget *parent)> build;
    /// What the user may set about the view (ViewOption).
    std::vector<ViewOption> options;
};

/// Every view, in the order of the main window's tabs (trees, then plots) and the export menu,
/// then the pair workbench's, the docks'.
const std::vector<ViewSpec> &viewRegistry();
/// Whether the main window shows the view (its tabs, export menu, `--export-view`).
inline bool inMainWindow(const ViewSpec &spec)
{
    return spec.pane == ViewSpec::Pane::Trees || spec.pane == ViewSpec::Pane::Plots;
}
/// The entry named `name`, nullptr when there is none.
const ViewSpec *findViewSpec(const QString &name);
/// The view's tab label (ViewSpec::tabLabel, translated); "" for an unknown name.
QString viewTabLabel(const QString &name);

/// Every option of `scope`: the views' (registry order), and for Pairs first the pair
/// view's own choices among the registry's views (`--pair-trees`: the entries with a
/// pairTreeTab; `--pair-detail`: the Pair entries).
std::vector<const ViewOption *> viewOptions(ViewOption::Scope scope);
/// The option whose key() is `key`, nullptr when there is none.
const ViewOption *findViewOption(const QString &key);

/// Builds the view `name` (an entry with `build`) as a child of `parent`: the one way a
/// window or dock creates a view it feeds itself. nullptr when there is no such entry
/// or it is not a V.
template <class V>
V *buildView(const QString &name, QWidget *parent = nullptr)
{
    const ViewSpec *spec = findViewSpec(name);
    return spec && spec->build ? dynamic_cast<V *>(spec->build(parent)) : nullptr;
}

} // namespace treelens
