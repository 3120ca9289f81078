#pragma once
/// \file viewhost.h
/// The views of one AnalysisDocument, kept in step with it. Creates the views by
/// name; when the document changes (sentence, analysis, selection) gives the new
/// data and selection to the views the user can see, and to a hidden view only
/// when it is shown or asked for (a 200-word sentence costs ~50 ms in the
/// constituency layout alone); writes what the user does in a view (clicks a
/// word, an overview cell, plays the link strip's layers) back into the
/// document's selection. The main window puts the views into its tabs; the
/// offscreen export (offscreenexport.h) creates only the views it writes.
/// GUI thread only.

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <QHash>
#include <QObject>
#include <QStringList>

#include "ui/session/analysisdocument.h"
#include "viz/backgroundwork.h"
#include "viz/viewcommon.h"

class QWidget;

namespace treelens {

class AttentionHeatmap;
class AttentionOverview;
class ConstituencyView;
class DependencyView;
class GateHeatmap;
class GateOverview;
class LinkStripView;
class PriorHeatmap;
class RelationHeatmap;
class TreeTextView;

class ViewHost : public QObject {
    Q_OBJECT
public:
    /// Creates the named views (viewRegistry() names; unknown names are ignored) as
    /// children of `viewParent`, which owns them (and may hand them on to tabs). The
    /// document must outlive the host.
    ViewHost(AnalysisDocument *document, QWidget *viewParent, const QStringList &views, BackgroundWork work = {},
             QObject *parent = nullptr);

    /// The main window's views that export (PNG/SVG/PDF, trees also LaTeX), in menu order
    /// (viewRegistry(); `--export-view` names).
    static QStringList exportableViewNames();
    /// Every view the main window shows (viewRegistry()): the exportable ones and "text".
    static QStringList allViewNames();
    /// Why the view `name` has nothing to draw for this sentence and analysis (either may
    /// be null), for the user: "the prior view draws the constituent prior C, which this
    /// dependency-transformer model does not have"; "" when it has (ViewSpec::refusal).
    static QString viewRefusal(const QString &name, const Sentence *sentence, const Analysis *analysis);

    /// Takes `view` (created by its registry entry) as the view `name`: it gets the
    /// document's data and selection, and its hover text (if it has any) goes out as hovered().
    template <class View>
    void adopt(View *view, const QString &name)
    {
        ViewSlot v;
        v.name = name;
        v.widget = view;
        v.exportable = view;
        v.setData = [view](const ViewData &d) { view->setData(d); };
        v.setState = [view](const ViewState &s) { view->setState(s); };
        m_slots.push_back(std::move(v));
        if constexpr (HasHover<View>::value)
            connect(view, &View::hovered, this, &ViewHost::hovered);
    }
    /// Takes the text view (kept up to date whether shown or not: it is cheap).
    void setTextView(TreeTextView *view) { m_text = view; }

    // The views, brought up to date first; nullptr when not created.
    ConstituencyView *constituencyView();
    DependencyView *dependencyView();
    PriorHeatmap *priorView();
    AttentionHeatmap *attentionView();
    AttentionOverview *overviewView();
    LinkStripView *linkView();
    RelationHeatmap *relationView();
    GateHeatmap *gateView();
    GateOverview *gateOverviewView();
    /// The text view (always up to date: it is cheap); nullptr when not created.
    TreeTextView *textView() const { return m_text; }
    /// The view exported as `name`, brought up to date; nullptr for an unknown name
    /// or a view this host did not create.
    ExportableView *exportableView(const QString &name);
    /// The widget of the view named `name` as it is (for tabs), nullptr when not created.
    QWidget *widget(const QString &name) const;

    /// Gives `view` the document's data and selection if it lacks them.
    void syncView(QWidget *view);
    /// Syncs every view the user can see now (every view with setSyncsHiddenViews()).
    void syncVisibleViews();
    /// true: every view is given each change at once, shown or not (the pair workbench:
    /// a few views of short sentences, read by its exports and steps while hidden);
    /// false (the default): a hidden view when it is shown or asked for.
    void setSyncsHiddenViews(bool all) { m_syncHidden = all; }
    /// false: the display options below apply to this host's views only and are not saved
    /// in the settings (the pair workbench keeps its own); true (the default): saved.
    void setSavesViewOptions(bool saves) { m_savesOptions = saves; }

    /// The views' display options (ViewOption::Scope::Display of viewRegistry(), by
    /// ViewOption::key(): "constituency.mode" as ConstituencyView::Mode's int): applied to
    /// this host's views and saved under the option's settingsKey ("view/constituencyMode").
    /// restoreViewOptions() reads them back. An unknown key is ignored.
    void setViewOption(const QString &key, int value);
    /// The option's value (its default until set or restored); 0 for an unknown key.
    int viewOption(const QString &key) const { return m_options.value(key); }
    /// Whether the tree views let the user edit the tree (DependencyView::setEditable,
    /// ConstituencyView::setEditable); their requests come out as treeEditRequested().
    /// Off by default (the pair workbench); the main window turns it on.
    void setTreesEditable(bool editable);
    bool treesEditable() const { return m_treesEditable; }
    /// A word-piece model's special tokens folded away from what the views draw
    /// (foldSpecialTokens(), core/data/specialtokens.h); saved as "view/foldSpecialTokens".
    void setFoldSpecialTokens(bool fold);
    bool foldSpecialTokens() const { return m_foldSpecial; }
    /// A language model's surprisal as a band under the tree views' words (on by default;
    /// DependencyView/ConstituencyView::setShowSurprisal); saved as "view/surprisalBand".
    void setSurprisalBand(bool show);
    bool surprisalBand() const { return m_surprisalBand; }
    /// The corpus query's marks (PatternMarks, viewcommon.h): the tree views outline them
    /// while the document shows their sentence (the same id and words), from now or from
    /// when it arrives; null clears them.
    void setPatternMarks(std::shared_ptr<const PatternMarks> marks);
    /// The marks the views were last given (null when none fit the sentence shown).
    std::shared_ptr<const PatternMarks> patternMarks() const { return m_viewData.marks; }
    /// Reads the saved display options (those with a settingsKey) and the folding back
    /// from the settings and applies them.
    void restoreViewOptions();

    /// Milliseconds the GUI thread spent giving the latest sentence to the views.
    double lastUpdateMs() const { return m_lastUpdateMs; }

public Q_SLOTS:
    // What a user does in a view, written into the document's selection (views connect
    // their signals here in their registry entries).
    /// Makes `word` the focus word; the focus word again clears it.
    void focusWord(int word);
    /// Selects a layer and head (a cell of an overview).
    void selectLayerHead(int layer, int head);
    /// Selects a layer (the link strip's player).
    void selectLayer(int layer);

Q_SIGNALS:
    /// Every visible view has been given the document's new sentence/analysis.
    void viewsUpdated();
    /// A tree view asks for an edit of the tree, in the edit language of core/data/treeedit.h.
    void treeEditRequested(const QString &edit);
    /// Text for the inspector: exact values under the mouse in any view.
    void hovered(const QString &text);

private:
    template <class View, class = void>
    struct HasHover : std::false_type {};
    template <class View>
    struct HasHover<View, std::void_t<decltype(&View::hovered)>> : std::true_type {};

    template <class View>
    View *synced(const char *name)
    {
        auto *view = qobject_cast<View *>(widget(QString::fromLatin1(name)));
        syncView(view);
        return view;
    }
    void applyViewOptions();
    void onDocumentChanged(AnalysisDocument::Changes what);
    void updateData();

    struct ViewSlot {
        QString name;
        QWidget *widget = nullptr;
        ExportableView *exportable = nullptr;
        std::function<void(const ViewData &)> setData;
        std::function<void(const ViewState &)> setState;
        quint64 dataGeneration = 0;
        ViewState state;
        bool hasState = false;
    };

    AnalysisDocument *m_document;
    std::vector<ViewSlot> m_slots;
    TreeTextView *m_text = nullptr;
    ViewData m_viewData;
    std::shared_ptr<const PatternMarks> m_marks; ///< setPatternMarks(): given to the views when they fit
    quint64 m_dataGeneration = 0;
    double m_lastUpdateMs = 0.0;
    bool m_syncHidden = false;
    bool m_savesOptions = true;
    QHash<QString, int> m_options; ///< the display options by key, from their defaults
    bool m_foldSpecial = false;
    bool m_surprisalBand = true;
    bool m_treesEditable = false;
};

} // namespace treelens
