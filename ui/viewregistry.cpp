#include "ui/viewregistry.h"

#include <algorithm>
#include <QCoreApplication>
#include <QObject>
#include <QRegularExpression>

#include "core/data/analysis.h"
#include "core/data/overlays.h"
#include "core/data/sentence.h"
#include "ui/pairworkbench.h"
#include "ui/viewhost.h"
#include "viz/attentionheatmap.h"
#include "viz/attentionoverview.h"
#include "viz/compositionview.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/gateoverview.h"
#include "viz/inductionview.h"
#include "viz/linkprobabilityplot.h"
#include "viz/linkstripview.h"
#include "viz/minimalpairview.h"
#include "viz/pairviews.h"
#include "viz/phraseview.h"
#include "viz/priorheatmap.h"
#include "viz/probeattentionview.h"
#include "viz/probecurveplot.h"
#include "viz/relationheatmap.h"
#include "viz/structuralview.h"
#include "viz/surprisalview.h"
#include "viz/queryattentionview.h"
#include "viz/sweepheatmap.h"
#include "viz/treetextview.h"
#include "viz/whatifview.h"

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

/// Builds a view of type V that its window or dock feeds itself.
template <class V>
std::function<QWidget *(QWidget *)> built()
{
    return [](QWidget *parent) -> QWidget * { return new V(parent); };
}

/// Applies a display option's value to a view of type V (other widgets are left alone).
template <class V>
std::function<void(QWidget *, int)> onView(std::function<void(V &, int)> apply)
{
    return [apply = std::move(apply)](QWidget *widget, int value) {
        if (auto *view = qobject_cast<V *>(widget))
            apply(*view, value);
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

/// A display choice shown in the View dock and saved under `settingsKey`.
ViewOption displayChoice(const QString &name, const QStringList &values, std::vector<const char *> labels,
                         const char *panelLabel, int defaultValue, const QString &settingsKey)
{
    ViewOption o;
    o.name = name;
    o.scope = ViewOption::Scope::Display;
    o.values = values;
    o.valueLabels = std::move(labels);
    o.panelLabel = panelLabel;
    o.defaultValue = defaultValue;
    o.settingsKey = settingsKey;
    return o;
}

/// "a, b or c".
QString spelledList(const QStringList &items)
{
    if (items.size() < 2)
        return items.join(QString());
    return items.mid(0, items.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") + items.back();
}

std::vector<ViewOption> constituencyOptions()
{
    ViewOption mode = displayChoice(
        QStringLiteral("mode"),
        {QStringLiteral("parser"), QStringLiteral("induced"), QStringLiteral("side-by-side"), QStringLiteral("compare")},
        {QT_TRANSLATE_NOOP("ViewRegistry", "Parser tree"), QT_TRANSLATE_NOOP("ViewRegistry", "Induced tree"),
         QT_TRANSLATE_NOOP("ViewRegistry", "Side by side"), QT_TRANSLATE_NOOP("ViewRegistry", "Compare brackets")},
        QT_TRANSLATE_NOOP("ViewRegistry", "Constituency:"), static_cast<int>(ConstituencyView::Mode::Compare),
        QStringLiteral("view/constituencyMode"));
    mode.applyToView = onView<ConstituencyView>(
        [](ConstituencyView &v, int m) { v.setMode(static_cast<ConstituencyView::Mode>(m)); });
    ViewOption overlay = displayChoice(
        QStringLiteral("overlay"), {QStringLiteral("none"), QStringLiteral("cohesion"), QStringLiteral("focus-attention")},
        {QT_TRANSLATE_NOOP("ViewRegistry", "No overlay"), QT_TRANSLATE_NOOP("ViewRegistry", "Cohesion (prior C)"),
         QT_TRANSLATE_NOOP("ViewRegistry", "Attention from word")},
        QT_TRANSLATE_NOOP("ViewRegistry", "Overlay:"), static_cast<int>(ConstituencyView::Overlay::Cohesion),
        QStringLiteral("view/constituencyOverlay"));
    overlay.applyToView = onView<ConstituencyView>(
        [](ConstituencyView &v, int o) { v.setOverlay(static_cast<ConstituencyView::Overlay>(o)); });
    return {mode, overlay};
}

std::vector<ViewOption> dependencyOptions()
{
    ViewOption layout = displayChoice(
        QStringLiteral("layout"), {QStringLiteral("arcs"), QStringLiteral("hierarchical")},
        {QT_TRANSLATE_NOOP("ViewRegistry", "Arcs (displaCy)"), QT_TRANSLATE_NOOP("ViewRegistry", "Hierarchical")},
        QT_TRANSLATE_NOOP("ViewRegistry", "Dependency:"), static_cast<int>(DependencyView::Layout::Arcs),
        QStringLiteral("view/dependencyLayout"));
    layout.applyToView = onView<DependencyView>(
        [](DependencyView &v, int l) { v.setLayout(static_cast<DependencyView::Layout>(l)); });
    return {layout};
}

/// `--attention`: which attention the exported views draw.
ViewOption attentionKindOption()
{
    ViewOption o;
    o.name = QStringLiteral("kind");
    o.scope = ViewOption::Scope::Export;
    o.values = {QStringLiteral("model"), QStringLiteral("plain"), QStringLiteral("relation")};
    o.flags = {QStringLiteral("attention")};
    o.valueName = QStringLiteral("KIND");
    o.help = QStringLiteral("Attention to show: model (default: after xC, or the gated combination of a model that reads "
                            "dependency relations), plain (the softmax before xC / of the plain score) or relation (the "
                            "relation attention of a model that reads dependency relations).");
    o.applyToSelection = [](ViewState &s, const QVariant &v) {
        s.weightedAttention = v.toInt() != 1;
        s.relationAttention = v.toInt() == 2;
    };
    o.refusal = [](const Analysis &a, const QVariant &v) {
        return v.toInt() == 2 && a.attentionRelation.empty()
                   ? QStringLiteral("--attention relation: this model has no relation attention (it reads no dependency relations)")
                   : QString();
    };
    return o;
}

/// `--step`: the composition drawn up to a height in the exported views.
ViewOption compositionStepOption()
{
    ViewOption o;
    o.name = QStringLiteral("step");
    o.scope = ViewOption::Scope::Export;
    o.flags = {QStringLiteral("step")};
    o.valueName = QStringLiteral("K");
    o.help = QStringLiteral("--export-view composition: show the composition up to this height (0 = all).");
    o.applyToSelection = [](ViewState &s, const QVariant &v) { s.aggregationStep = std::max(0, v.toInt()); };
    return o;
}

/// The phrase view's: the pair view's aggregation step and the phrase shown.
std::vector<ViewOption> phraseOptions()
{
    ViewOption step;
    step.name = QStringLiteral("aggregation-step");
    step.scope = ViewOption::Scope::Pairs;
    step.eachPair = true; // the pair's trees decide the steps
    step.flags = {QStringLiteral("aggregation-step"), QStringLiteral("tat-step")};
    step.valueName = QStringLiteral("K");
    step.help = QStringLiteral("The pair view: with a model that aggregates phrases level by level, show the aggregation "
                               "up to this step (1 = the deepest level); with a recursive tree model, the composition up "
                               "to this height (0 = all).");
    step.applyToPairs = [](PairWorkbench &pairs, const QVariant &v) {
        if (v.toInt() > 0)
            pairs.setAggregationStep(v.toInt());
    };

    ViewOption node;
    node.name = QStringLiteral("node");
    node.scope = ViewOption::Scope::Pairs;
    node.eachPair = true; // the pair's trees decide the node ids
    node.flags = {QStringLiteral("phrase-node"), QStringLiteral("tat-node")};
    node.valueName = QStringLiteral("SIDE:ID");
    node.help = QStringLiteral("The phrase view shows this phrase of a model that aggregates phrases level by level: q:ID "
                               "(the question's) or a:ID (the candidate's), by post-order node id; default the question's root.");
    node.read = [](const QString &text) {
        static const QRegularExpression form(QStringLiteral("^[qa]:[0-9]+$"));
        return form.match(text).hasMatch() ? QVariant(text) : QVariant();
    };
    node.expected = QStringLiteral("q:ID or a:ID (a post-order node id)");
    node.applyToPairs = [](PairWorkbench &pairs, const QVariant &v) {
        const QString text = v.toString();
        pairs.selectPhrase(text.startsWith(QLatin1Char('a')) ? 1 : 0, text.section(QLatin1Char(':'), 1).toInt());
    };
    return {step, node};
}

void addTreeViews(std::vector<ViewSpec> &r)
{
    using Pane = ViewSpec::Pane;
    ViewSpec constituency = entry(QStringLiteral("constituency"), Pane::Trees, QT_TRANSLATE_NOOP("ViewRegistry", "&Constituency"));
    constituency.pairTreeTab = 1;
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
    constituency.options = constituencyOptions();
    r.push_back(constituency);

    ViewSpec dependency = entry(QStringLiteral("dependency"), Pane::Trees, QT_TRANSLATE_NOOP("ViewRegistry", "&Dependency"));
    dependency.pairTreeTab = 0;
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
    dependency.options = dependencyOptions();
    r.push_back(dependency);

    ViewSpec text = entry(QStringLiteral("text"), Pane::Trees, QT_TRANSLATE_NOOP("ViewRegistry", "Te&xt"));
    text.exportable = false;
    text.refusal = [](const Sentence *, const Analysis *) { return QString(); };
    text.create = [](ViewHost &host, QWidget *parent, const BackgroundWork &) { host.setTextView(new TreeTextView(parent)); };
    r.push_back(text);
}

void addHeatmapViews(std::vector<ViewSpec> &r)
{
    using Pane = ViewSpec::Pane;
    ViewSpec prior = entry(QStringLiteral("prior"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Prior C"));
    prior.refusal = needs(prior.name, QStringLiteral("the constituent prior C"),
                          [](const Analysis &a) { return !a.constituentPrior.empty(); });
    prior.create = make<PriorHeatmap>(prior.name);
    r.push_back(prior);

    ViewSpec attention = entry(QStringLiteral("attention"), Pane::Plots, QT_TRANSLATE_NOOP("ViewRegistry", "&Attention"));
    attention.refusal = needs(attention.name, QStringLiteral("attention matrices"), hasAttention);
    attention.create = make<AttentionHeatmap>(attention.name);
    attention.options = {attentionKindOption()};
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
}

/// A relation-aware model's views (they draw what such a model reads): their tabs only for its analyses.
void addRelationViews(std::vector<ViewSpec> &r)
{
    using Pane = ViewSpec::Pane;
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
    composition.options = {compositionStepOption()};
    r.push_back(composition);
}

/// The pair workbench's: below a pair's trees (Pair), and its corpus charts (PairCorpus).
void addPairViews(std::vector<ViewSpec> &r)
{
    using Pane = ViewSpec::Pane;
    // What connects a pair's two sentences (cross attention, bridge scores): the analysis of
    // the first sentence with the second's in Analysis::second, fed by the first side's ViewHost.
    ViewSpec bridge = entry(QStringLiteral("bridge"), Pane::Pair, QT_TRANSLATE_NOOP("ViewRegistry", "Between the sentences"));
    bridge.summary = QStringLiteral("what connects the two sentences");
    bridge.refusal = [](const Sentence *, const Analysis *a) {
        if (a && !a->second.empty())
            return QString();
        return QStringLiteral("the bridge view draws what connects a pair's two sentences, and this is the analysis of one "
                              "sentence (open the pair in the pair workbench)");
    };
    bridge.create = make<PairBridgeView>(bridge.name);
    r.push_back(bridge);

    // One phrase of a model that aggregates phrases level by level, in this pair and another
    // of the question (the workbench fills it: PairWorkbench::updateNodeView).
    ViewSpec phrase = entry(QStringLiteral("phrase"), Pane::Pair, QT_TRANSLATE_NOOP("ViewRegistry", "Phrase (tree aggregation)"));
    phrase.summary = QStringLiteral("one phrase's attention over its children, with a model that aggregates phrases level "
                                    "by level");
    phrase.build = built<PhraseView>();
    phrase.options = phraseOptions();
    r.push_back(phrase);

    ViewSpec slices = entry(QStringLiteral("slices"), Pane::PairCorpus, "");
    slices.build = built<SliceBarChart>();
    r.push_back(slices);

    ViewSpec scores = entry(QStringLiteral("scores"), Pane::PairCorpus, "");
    scores.build = built<ScoreScatterPlot>();
    r.push_back(scores);
}

/// The main window's docks: the What-if dock's comparison, the Probing dock's results, the
/// Minimal pairs dock's views and the Query attention dock's heatmap.
void addDockViews(std::vector<ViewSpec> &r)
{
    using Pane = ViewSpec::Pane;
    ViewSpec whatIf = entry(QStringLiteral("whatif"), Pane::Dock, "");
    whatIf.build = built<WhatIfView>();
    r.push_back(whatIf);

    ViewSpec curves = entry(QStringLiteral("probe-curves"), Pane::Probing, QT_TRANSLATE_NOOP("ViewRegistry", "Learning curves"));
    curves.build = built<ProbeCurvePlot>();
    r.push_back(curves);
    ViewSpec heatmap = entry(QStringLiteral("probe-heatmap"), Pane::Probing, QT_TRANSLATE_NOOP("ViewRegistry", "Attention"));
    heatmap.build = built<ProbeAttentionView>();
    r.push_back(heatmap);
    ViewSpec linkProbs =
        entry(QStringLiteral("probe-link-probs"), Pane::Probing, QT_TRANSLATE_NOOP("ViewRegistry", "Link probabilities"));
    linkProbs.build = built<LinkProbabilityPlot>();
    r.push_back(linkProbs);
    // Their parts (the arc diagram, the bracket spans: worddiagram.h) are built by the views.
    ViewSpec structural = entry(QStringLiteral("structural"), Pane::Probing, QT_TRANSLATE_NOOP("ViewRegistry", "Structural probes"));
    structural.build = built<StructuralView>();
    r.push_back(structural);
    ViewSpec induction =
        entry(QStringLiteral("induction"), Pane::Probing, QT_TRANSLATE_NOOP("ViewRegistry", "Unsupervised parsing"));
    induction.build = built<InductionView>();
    r.push_back(induction);

    // The Minimal pairs dock (issue 46): the selected pair on its tree, and the ablation sweep.
    ViewSpec pair = entry(QStringLiteral("minimal-pair"), Pane::Dock, QT_TRANSLATE_NOOP("ViewRegistry", "Pair"));
    pair.build = built<MinimalPairView>();
    r.push_back(pair);
    ViewSpec sweep = entry(QStringLiteral("ablation-sweep"), Pane::Dock, QT_TRANSLATE_NOOP("ViewRegistry", "Head sweep"));
    sweep.build = built<SweepHeatmap>();
    r.push_back(sweep);

    // The Query attention dock (issue 48): the attention between two nodes of the corpus query.
    ViewSpec queryAttention =
        entry(QStringLiteral("query-attention"), Pane::Dock, QT_TRANSLATE_NOOP("ViewRegistry", "Query attention"));
    queryAttention.build = built<QueryAttentionView>();
    r.push_back(queryAttention);
}

std::vector<ViewSpec> makeRegistry()
{
    std::vector<ViewSpec> r;
    addTreeViews(r);
    addHeatmapViews(r);
    addRelationViews(r);
    addPairViews(r);
    addDockViews(r);
    for (ViewSpec &spec : r)
        for (ViewOption &option : spec.options)
            option.view = spec.name;
    return r;
}

/// The pair view's own options: which of the registry's views it shows on each side
/// (`--pair-trees`) and below the trees (`--pair-detail`).
std::vector<ViewOption> makePairViewOptions()
{
    std::vector<const ViewSpec *> trees, details;
    for (const ViewSpec &spec : viewRegistry()) {
        if (spec.pairTreeTab >= 0)
            trees.push_back(&spec);
        if (spec.pane == ViewSpec::Pane::Pair)
            details.push_back(&spec);
    }
    std::sort(trees.begin(), trees.end(), [](const ViewSpec *a, const ViewSpec *b) { return a->pairTreeTab < b->pairTreeTab; });
    auto choice = [](const QString &name, const std::vector<const ViewSpec *> &specs, const QString &intro) {
        ViewOption o;
        o.view = QStringLiteral("pairs");
        o.name = name;
        o.scope = ViewOption::Scope::Pairs;
        o.flags = {QStringLiteral("pair-") + name};
        o.valueName = QStringLiteral("KIND");
        QStringList described;
        for (const ViewSpec *spec : specs) {
            o.values << spec->name;
            described << (described.isEmpty() ? spec->name + QStringLiteral(" (default)")
                          : spec->summary.isEmpty() ? spec->name
                                                    : QStringLiteral("%1 (%2)").arg(spec->name, spec->summary));
        }
        o.help = intro + spelledList(described) + QLatin1Char('.');
        return o;
    };
    ViewOption treeTabs = choice(QStringLiteral("trees"), trees, QStringLiteral("The pair view's trees: "));
    treeTabs.applyToPairs = [values = treeTabs.values](PairWorkbench &pairs, const QVariant &v) {
        pairs.showTreeView(values.value(v.toInt()));
    };
    ViewOption detail = choice(QStringLiteral("detail"), details, QStringLiteral("Below the pair's trees: "));
    detail.applyToPairs = [values = detail.values](PairWorkbench &pairs, const QVariant &v) {
        pairs.showDetail(values.value(v.toInt()));
    };
    return {treeTabs, detail};
}

const std::vector<ViewOption> &pairViewOptions()
{
    static const std::vector<ViewOption> options = makePairViewOptions();
    return options;
}

} // namespace

QVariant ViewOption::parse(const QString &text, QString *error) const
{
    QVariant value;
    QString expect;
    if (!values.isEmpty()) {
        if (const int i = values.indexOf(text); i >= 0)
            value = i;
        expect = spelledList(values);
    } else if (read) {
        value = read(text);
        expect = expected;
    } else {
        bool ok = false;
        const int v = text.toInt(&ok);
        if (ok && v >= minimum)
            value = v;
        expect = QStringLiteral("an integer, %1 or more").arg(minimum);
    }
    if (!value.isValid() && error)
        *error = QStringLiteral("%1 must be %2, not '%3'").arg(flag(), expect, text);
    return value;
}

QString ViewOption::helpText() const
{
    QString text = help;
    for (int i = 1; i < flags.size(); ++i)
        text += QStringLiteral(" --%1 is its former spelling and still works.").arg(flags[i]);
    return text;
}

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

QString viewTabLabel(const QString &name)
{
    const ViewSpec *spec = findViewSpec(name);
    return spec ? QCoreApplication::translate("ViewRegistry", spec->tabLabel) : QString();
}

std::vector<const ViewOption *> viewOptions(ViewOption::Scope scope)
{
    std::vector<const ViewOption *> out;
    for (const ViewOption &option : pairViewOptions())
        if (option.scope == scope)
            out.push_back(&option);
    for (const ViewSpec &spec : viewRegistry())
        for (const ViewOption &option : spec.options)
            if (option.scope == scope)
                out.push_back(&option);
    return out;
}

const ViewOption *findViewOption(const QString &key)
{
    for (ViewOption::Scope scope : {ViewOption::Scope::Display, ViewOption::Scope::Export, ViewOption::Scope::Pairs})
        for (const ViewOption *option : viewOptions(scope))
            if (option->key() == key)
                return option;
    return nullptr;
}

} // namespace treelens
