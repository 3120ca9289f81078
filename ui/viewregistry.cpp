#include "ui/viewregistry.h"

#include <QObject>

#include "core/data/analysis.h"
#include "core/data/overlays.h"
#include "core/data/sentence.h"
#include "ui/viewhost.h"
#include "viz/attentionheatmap.h"
#include "viz/attentionoverview.h"
#include "viz/compositionview.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/gateoverview.h"
#include "viz/linkstripview.h"
#include "viz/pairviews.h"
#include "viz/priorheatmap.h"
#include "viz/relationheatmap.h"
#include "viz/surprisalview.h"
#include "viz/treetextview.h"

namespace treelens {

namespace {

/// "the prior view draws the constituent prior C, which this dependency-transformer model
/// does not have" (or, without an analysis, that no model analysed the sentence).
QString lacks(const QString &view, const Analysis *a, const QString &what)
{
    if (!a)
        return QStringLiteral("the %1 view draws %2: no model analysed the sentence (give one with --model)").arg(view, what);
    return QStringLiteral("the %1 view draws %2, which this %3 model does not have")
        .arg(view, what, QString::fromStdString(a->family));
}

/// A refusal when `has(a)` is false: the view draws `what` of an analysis.
std::function<QString(const Sentence *, const Analysis *)> needs(const QString &view, const QString &what,
                                                                  std::function<bool(const Analysis &)> has)
{
    return [view, what, has = std::move(has)](const Sentence *, const Analysis *a) {
        return a && has(*a) ? QString() : lacks(view, a, what);
    };
}

/// Creates a view of type V (constructed from `args` and the parent) and adopts it.
template <class V, class... Args>
std::function<void(ViewHost &, QWidget *, const BackgroundWork &)> make(const QString &name, Args... args)
{
    return [name, args...](ViewHost &host, QWidget *parent, const BackgroundWork &) {
        host.adopt(new V(args..., parent), name);
    };
}

bool hasRelations(const Analysis *a) { return a && a->relations; }
bool hasAttention(const Analysis &a) { return !a.attention.empty(); }
bool hasRelationGate(const Analysis &a) { return !a.relationGate.empty(); }

ViewSpec entry(const QString &name, ViewSpec::Pane pane, const char *tabLabel)
{
    ViewSpec spec;
    spec.name = name;
    spec.pane = pane;
    spec.tabLabel = tabLabel;
    return spec;
}


std::vector<ViewSpec> makeRegistry()
{
    using Pane = ViewSpec::Pane;
    std::vector<ViewSpec> r;

    ViewSpec constituency = entry(QStringLiteral("constituency"), Pane::Trees, QT_TRANSLATE_NOOP("ViewRegistry", "&Constituency"));
    constituency.refusal = [](const Sentence *s, const Analysis *a) {
        if ((s && s->constituency) || (a && a->inducedTree))
            return QString();
        return QStringLiteral("the constituency view draws a constituency tree, and the sentence has none (the parser "
                              "gave none, and the model induces none)");
    };
    constituency.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &work) {
        auto *view = new ConstituencyView(parent);
        view->setBackgroundWork(work); // long trees' dot layout off the GUI thread
        QObject::connect(view, &ConstituencyView::wordClicked, &host, &ViewHost::focusWord);
        QObject::connect(view, &ConstituencyView::treeEditRequested, &host, &ViewHost::treeEditRequested);
        host.adopt(view, QStringLiteral("constituency"));
    };
    r.push_back(constituency);

    ViewSpec dependency = entry(QStringLiteral("dependency"), Pane::Trees, QT_TRANSLATE_NOOP("ViewRegistry", "&Dependency"));
    dependency.refusal = [](const Sentence *s, const Analysis *) {
        return s && s->dependency ? QString()
                                  : QStringLiteral("the dependency view draws a dependency tree, and the sentence has "
                                                   "none (the parser gave none)");
    };
    dependency.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &) {
        auto *view = new DependencyView(parent);
        QObject::connect(view, &DependencyView::wordClicked, &host, &ViewHost::focusWord);
        QObject::connect(view, &DependencyView::treeEditRequested, &host, &ViewHost::treeEditRequested);
        host.adopt(view, QStringLiteral("dependency"));
    };
    r.push_back(dependency);

    ViewSpec text = entry(QStringLiteral("text"), Pane::Trees, QT_TRANSLATE_NOOP("ViewRegistry", "Te&xt"));
    text.exportable = false;
    text.refusal = [](const Sentence *, const Analysis *) { return QString(); };
    text.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &) { host.setTextView(new TreeTextView(parent)); };
    r.push_back(text);

    ViewSpec prior = entry(QStringLiteral("prior"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Prior C"));
    prior.refusal = needs(prior.name, QStringLiteral("the constituent prior C"),
                          [](const Analysis &a) { return !a.constituentPrior.empty(); });
    prior.create = make<PriorHeatmap>(prior.name);
    r.push_back(prior);

    ViewSpec attention = entry(QStringLiteral("attention"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Attention"));
    attention.refusal = needs(attention.name, QStringLiteral("attention matrices"), hasAttention);
    attention.create = make<AttentionHeatmap>(attention.name);
    r.push_back(attention);

    // A word-piece model's attention as it computed it, between the pieces (the other views show it per word).
    ViewSpec pieces = entry(QStringLiteral("pieces"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Word pieces"));
    pieces.tabShown = [](const Analysis *a) { return a && !a->pieceAttention.empty(); };
    pieces.refusal = needs(pieces.name, QStringLiteral("the attention between word pieces"),
                           [](const Analysis &a) { return !a.pieceAttention.empty(); });
    pieces.create = make<PieceHeatmap>(pieces.name);
    r.push_back(pieces);

    // A language model's surprisal per word (bars stacked by its pieces); its tab only for analyses that have it.
    ViewSpec surprisal = entry(QStringLiteral("surprisal"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "Sur&prisal"));
    surprisal.tabShown = [](const Analysis *a) { return a && !a->surprisal.empty(); };
    surprisal.refusal = [](const Sentence *, const Analysis *a) {
        if (a && !a->surprisal.empty())
            return QString();
        if (!a)
            return lacks(QStringLiteral("surprisal"), a, QStringLiteral("a language model's surprisal per word"));
        return QStringLiteral("the surprisal view draws a language model's surprisal per word, which this model does not compute");
    };
    surprisal.create = make<SurprisalView>(surprisal.name);
    r.push_back(surprisal);

    ViewSpec overview = entry(QStringLiteral("overview"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Heads overview"));
    overview.refusal = needs(overview.name, QStringLiteral("attention matrices"), hasAttention);
    overview.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &) {
        auto *view = new AttentionOverview(parent);
        QObject::connect(view, &AttentionOverview::cellActivated, &host, &ViewHost::selectLayerHead);
        host.adopt(view, QStringLiteral("overview"));
    };
    r.push_back(overview);

    ViewSpec links = entry(QStringLiteral("links"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Link strip"));
    links.refusal = needs(links.name, QStringLiteral("link probabilities"), [](const Analysis &a) { return !a.linkProbs.empty(); });
    links.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &) {
        auto *view = new LinkStripView(parent);
        QObject::connect(view, &LinkStripView::layerChanged, &host, &ViewHost::selectLayer);
        host.adopt(view, QStringLiteral("links"));
    };
    r.push_back(links);

    // A relation-aware model's views (the Dependency-Transformer): their tabs only for its analyses.
    ViewSpec relations = entry(QStringLiteral("relations"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Relations"));
    relations.tabShown = hasRelations;
    relations.refusal = needs(relations.name, QStringLiteral("the relation matrix a relation-aware model reads"),
                              [](const Analysis &a) { return static_cast<bool>(a.relations); });
    relations.create = make<RelationHeatmap>(relations.name);
    r.push_back(relations);

    ViewSpec gate = entry(QStringLiteral("gate"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Gate"));
    gate.tabShown = hasRelations;
    gate.refusal = needs(gate.name, QStringLiteral("a relation gate"), hasRelationGate);
    gate.create = make<GateHeatmap>(gate.name);
    r.push_back(gate);

    ViewSpec gates = entry(QStringLiteral("gates"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "Gate o&verview"));
    gates.tabShown = hasRelations;
    gates.refusal = needs(gates.name, QStringLiteral("a relation gate"), hasRelationGate);
    gates.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &) {
        auto *view = new GateOverview(parent);
        QObject::connect(view, &GateOverview::cellActivated, &host, &ViewHost::selectLayerHead);
        host.adopt(view, QStringLiteral("gates"));
    };
    r.push_back(gates);

    // The recursive tree models' bottom-up composition (node attention with node heights).
    ViewSpec composition = entry(QStringLiteral("composition"), Pane::Trees, QT_TRANSLATE_NOOP("ViewRegistry", "Co&mposition"));
    composition.tabShown = [](const Analysis *a) { return a && overlay::hasComposition(*a); };
    composition.refusal = needs(composition.name, QStringLiteral("a recursive model's bottom-up composition"), overlay::hasComposition);
    composition.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &) {
        auto *view = new CompositionView(parent);
        QObject::connect(view, &CompositionView::wordClicked, &host, &ViewHost::focusWord);
        host.adopt(view, QStringLiteral("composition"));
    };
    r.push_back(composition);

    // The pair workbench's: what connects a pair's two sentences (cross attention, bridge
    // scores); the analysis of the first sentence with the second's in Analysis::second.
    ViewSpec bridge = entry(QStringLiteral("bridge"), Pane::Pair, QT_TRANSLATE_NOOP("ViewRegistry", "Between the sentences"));
    bridge.refusal = [](const Sentence *, const Analysis *a) {
        if (a && !a->second.empty())
            return QString();
        return QStringLiteral("the bridge view draws what connects a pair's two sentences, and this is the analysis of one "
                              "sentence (open the pair in the pair workbench)");
    };
    bridge.create = make<PairBridgeView>(bridge.name);
    r.push_back(bridge);
    return r;
}

} // namespace

const std::vector<ViewSpec> &viewRegistry()
{
    static const std::vector<ViewSpec> registry = makeRegistry();
    return registry;
}

const ViewSpec *findViewSpec(const QString &name)
{
    for (const ViewSpec &spec : viewRegistry())
        if (spec.name == name)
            return &spec;
    return nullptr;
}

} // namespace treelens
