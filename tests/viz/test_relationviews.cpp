// The Dependency-Transformer's views against independent references: the
// relation matrix of the reference fixture README's hand-worked example ("The old
// man saw a red kite ."), built by core's depTreeFeatures, and hand-set gates and
// attention whose values the views must show where the README says they belong.
#include <cmath>
#include <map>
#include <set>

#include <QApplication>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QMouseEvent>

#include "core/data/overlays.h"
#include "core/encoders/deptransformer/deptreefeatures.h"
#include "viz/qcustomplot.h"
#include "core/formats/ptb.h"
#include "viz/constituencyview.h"
#include "viz/dependencyview.h"
#include "viz/gateoverview.h"
#include "viz/relationheatmap.h"
#include "testutil.h"

using namespace treelens;

namespace {

QApplication &app()
{
    static int argc = 1;
    static char arg0[] = "test";
    static char *argv[] = {arg0, nullptr};
    static QApplication *a = new QApplication(argc, argv);
    return *a;
}

const std::vector<std::string> kWords = {"The", "old", "man", "saw", "a", "red", "kite", "."};

std::shared_ptr<const Sentence> kiteSentence()
{
    auto s = std::make_shared<Sentence>();
    s->id = "kite";
    const std::vector<std::string> tags = {"DET", "ADJ", "NOUN", "VERB", "DET", "ADJ", "NOUN", "PUNCT"};
    for (std::size_t i = 0; i < kWords.size(); ++i) {
        Token t;
        t.text = kWords[i];
        t.upos = tags[i];
        s->tokens.push_back(t);
    }
    s->dependency = DependencyTree{{3, 3, 4, 0, 7, 7, 4, 4}, {"det", "amod", "nsubj", "root", "det", "amod", "obj", "punct"}};
    return s;
}

// Hand-set values per (layer, head, row, column); distinct so a wrong layer, head
// or transposition shows. Gate in (0, 1), attention rows need not sum to 1 here.
float gateValue(int l, int h, int r, int c) { return static_cast<float>((r * 11 + c * 7 + l * 5 + h * 3) % 89) / 89.0f; }
float combinedValue(int l, int h, int r, int c) { return static_cast<float>((r * 13 + c * 5 + l * 17 + h * 29) % 97) / 97.0f; }
float plainValue(int l, int h, int r, int c) { return 0.5f * combinedValue(l, h, c, r); }
float relationValue(int l, int h, int r, int c) { return 1.0f - combinedValue(l, h, r, c); }

/// A Dependency-Transformer analysis of the kite sentence: [root] first, 2 layers × 2 heads,
/// the relation matrix from core's depTreeFeatures with T = 3 (the fixture's vocabulary).
std::shared_ptr<const Analysis> kiteAnalysis()
{
    auto vocab = RelationVocabulary::fromLabels({"[pad]", "[none]", "[self]", "det", "amod", "nsubj", "root", "obj", "punct",
                                                 "dep", "2:0", "1:1", "0:2", "3:0", "2:1", "1:2", "0:3"},
                                                "test");
    EXPECT_TRUE(vocab) << vocab.message();
    auto f = depTreeFeatures(*kiteSentence()->dependency, *vocab, 3, 8);
    EXPECT_TRUE(f) << f.message();
    auto a = std::make_shared<Analysis>();
    a->family = "dependency-transformer";
    a->words = kWords;
    a->tokens = {"[root]"};
    for (std::size_t i = 0; i < kWords.size(); ++i) {
        a->tokens.push_back(kWords[i]);
        a->wordToken.push_back(static_cast<int>(i) + 1);
    }
    const int n = 9;
    a->layers = 2;
    a->heads = 2;
    TokenRelations r;
    r.n = n;
    r.ids = f->relations;
    r.names = vocab->labels();
    r.distance = f->distance;
    r.levels = f->levels;
    r.noneId = vocab->noneId();
    a->relations = r;
    auto fill = [&](std::vector<std::vector<Matrix>> &maps, float (*value)(int, int, int, int)) {
        maps.assign(2, std::vector<Matrix>(2, Matrix(n, n)));
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 2; ++h)
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j)
                        maps[l][h].at(i, j) = value(l, h, i, j);
    };
    fill(a->attention, combinedValue);
    fill(a->attentionRaw, plainValue);
    fill(a->attentionRelation, relationValue);
    fill(a->relationGate, gateValue);
    return a;
}

std::set<std::pair<int, int>> treeArcPairsBothWays()
{
    // Token pairs (the [root] token is 0, word k is k + 1) of the tree's arcs.
    const std::vector<int> heads = {3, 3, 4, 0, 7, 7, 4, 4};
    std::set<std::pair<int, int>> out;
    for (int k = 0; k < 8; ++k) {
        out.insert({k + 1, heads[static_cast<std::size_t>(k)]});
        out.insert({heads[static_cast<std::size_t>(k)], k + 1});
    }
    return out;
}

} // namespace

TEST(RelationHeatmap, LabelsEveryCellAsTheReadmeTable)
{
    app();
    RelationHeatmap view;
    view.setData({kiteSentence(), kiteAnalysis()});
    view.setState(ViewState{});
    ASSERT_EQ(view.rowCount(), 9);
    // The README's table (row i attends column j); [self] unlabelled, [none] a dot.
    const std::vector<std::vector<std::string>> table = {
        {"", "0:3", "0:3", "0:2", "root", "0:3", "0:3", "0:2", "0:2"},
        {"3:0", "", "1:1", "det", "2:0", "·", "·", "2:1", "2:1"},
        {"3:0", "1:1", "", "amod", "2:0", "·", "·", "2:1", "2:1"},
        {"2:0", "det", "amod", "", "nsubj", "1:2", "1:2", "1:1", "1:1"},
        {"root", "0:2", "0:2", "nsubj", "", "0:2", "0:2", "obj", "punct"},
        {"3:0", "·", "·", "2:1", "2:0", "", "1:1", "det", "2:1"},
        {"3:0", "·", "·", "2:1", "2:0", "1:1", "", "amod", "2:1"},
        {"2:0", "1:2", "1:2", "1:1", "obj", "det", "amod", "", "1:1"},
        {"2:0", "1:2", "1:2", "1:1", "punct", "1:2", "1:2", "1:1", ""},
    };
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j) {
            EXPECT_EQ(view.cellLabel(i, j).toStdString(), table[i][j]) << i << "," << j;
            // Colour = tree distance a + b: 0 on the diagonal, 1 on arcs, a + b in the label otherwise.
            const std::string &t = table[i][j];
            double expected = 0;
            if (t.size() == 3 && t[1] == ':')
                expected = (t[0] - '0') + (t[2] - '0');
            else if (t == "·")
                expected = 4; // every [none] pair of this tree: 2 up to "saw", 2 down
            else if (!t.empty())
                expected = 1;
            EXPECT_EQ(view.cellValue(i, j), expected) << i << "," << j;
        }
    // [none] pairs are farther than T = 3: The -> a is 2 up to saw and 2 down.
    EXPECT_EQ(view.cellValue(1, 5), 4.0);
    EXPECT_NE(view.cellText(1, 5).indexOf(QStringLiteral("[none], tree distance 4 (2 up, 2 down)")), -1)
        << view.cellText(1, 5).toStdString();
    EXPECT_NE(view.cellText(3, 4).indexOf(QStringLiteral("man \u2192 saw: nsubj, tree distance 1 (1 up, 0 down)")), -1)
        << view.cellText(3, 4).toStdString();
    EXPECT_NE(view.cellText(0, 1).indexOf(QStringLiteral("0:3, tree distance 3 (0 up, 3 down)")), -1);
}

TEST(RelationHeatmap, ATreeTransformerAnalysisSaysItHasNoRelations)
{
    app();
    auto a = std::make_shared<Analysis>(*kiteAnalysis());
    a->family = "tree-transformer";
    a->relations.reset();
    a->relationGate.clear();
    RelationHeatmap relations;
    GateHeatmap gate;
    for (HeatmapView *view : std::initializer_list<HeatmapView *>{&relations, &gate}) {
        view->setData({kiteSentence(), a});
        view->setState(ViewState{});
        EXPECT_EQ(view->rowCount(), 0);
        ASSERT_FALSE(view->titleLines().isEmpty());
        EXPECT_NE(view->titleLines().front().indexOf(QStringLiteral("This model reads no dependency relations")), -1);
    }
}

TEST(GateHeatmap, ShowsTheSelectedHeadsGateWithTheTreeArcsBoxed)
{
    app();
    GateHeatmap view;
    view.setData({kiteSentence(), kiteAnalysis()});
    ViewState s;
    s.layer = 1;
    s.head = 0;
    view.setState(s);
    ASSERT_EQ(view.rowCount(), 9);
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j)
            EXPECT_FLOAT_EQ(static_cast<float>(view.cellValue(i, j)), gateValue(1, 0, i, j)) << i << "," << j;
    const auto boxes = view.cellBoxes();
    const auto expected = treeArcPairsBothWays();
    const std::set<std::pair<int, int>> drawn(boxes.begin(), boxes.end());
    EXPECT_EQ(drawn, expected);
    EXPECT_EQ(boxes.size(), 16u);
    EXPECT_NE(view.cellText(7, 4).indexOf(QStringLiteral("layer 2, head 1; kite \u2192 saw: obj")), -1)
        << view.cellText(7, 4).toStdString();
}

TEST(GateOverview, MeansOverAllPairsAndOverTheArcs)
{
    app();
    auto a = kiteAnalysis();
    const auto arcs = treeArcPairsBothWays();
    GateOverview view;
    view.setData({kiteSentence(), a});
    view.setState(ViewState{});
    ASSERT_EQ(view.gridLayers(), 2);
    ASSERT_EQ(view.gridHeads(), 2);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h) {
            double all = 0, onArcs = 0;
            for (int i = 0; i < 9; ++i)
                for (int j = 0; j < 9; ++j) {
                    if (i == j)
                        continue;
                    all += gateValue(l, h, i, j);
                    if (arcs.count({i, j}))
                        onArcs += gateValue(l, h, i, j);
                }
            EXPECT_NEAR(view.cellValue(l, h), all / 72.0, 1e-6);
            const GateMeans g = gateMeans(a->relationGate[l][h], *a->relations);
            EXPECT_NEAR(g.arcs, onArcs / 16.0, 1e-6);
            EXPECT_EQ(view.cellLabel(l, h), QStringLiteral("%1\narcs %2").arg(all / 72.0, 0, 'f', 2).arg(onArcs / 16.0, 0, 'f', 2));
        }
    ViewState s;
    s.layer = 1;
    s.head = 1;
    view.setState(s);
    EXPECT_EQ(view.selectedCell(), std::make_pair(1, 1));
}

TEST(GateOverview, ClickingACellSelectsItsLayerAndHead)
{
    app();
    GateOverview view;
    view.resize(500, 400);
    view.setData({kiteSentence(), kiteAnalysis()});
    view.setState(ViewState{});
    view.plot()->replot();
    int layer = -1, head = -1;
    QObject::connect(&view, &GateOverview::cellActivated, [&](int l, int h) {
        layer = l;
        head = h;
    });
    const QPointF at(view.plot()->xAxis->coordToPixel(1), view.plot()->yAxis->coordToPixel(0));
    QMouseEvent press(QEvent::MouseButtonPress, at, view.plot()->mapToGlobal(at.toPoint()), Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QApplication::sendEvent(view.plot(), &press);
    EXPECT_EQ(layer, 0);
    EXPECT_EQ(head, 1);
}

TEST(DependencyViewRelationMode, ArcsAreColouredByTheGateAndSizedByTheChosenAttention)
{
    app();
    DependencyView view;
    view.setData({kiteSentence(), kiteAnalysis()});
    ViewState s;
    s.layer = 0;
    s.head = 1;
    s.threshold = 0.5;
    view.setState(s);
    const auto arcs = view.treeArcItems();
    ASSERT_EQ(arcs.size(), 8u); // the root arc included
    for (const auto &[item, pair] : arcs) {
        const int from = pair.first + 1, to = pair.second + 1; // tokens; the root arc goes to [root] (0)
        const auto *path = static_cast<QGraphicsPathItem *>(item);
        EXPECT_EQ(path->pen().color(), sequentialColor(gateValue(0, 1, from, to))) << from << "->" << to;
    }
    // Width grows with the selected attention: compare the arcs' widths with their weights.
    auto widthOrder = [&](float (*value)(int, int, int, int)) {
        std::vector<std::pair<float, double>> wv;
        for (const auto &[item, pair] : arcs)
            wv.push_back({value(0, 1, pair.first + 1, pair.second + 1), static_cast<QGraphicsPathItem *>(item)->pen().widthF()});
        std::sort(wv.begin(), wv.end());
        for (std::size_t k = 1; k < wv.size(); ++k)
            EXPECT_LE(wv[k - 1].second, wv[k].second + 1e-9);
        EXPECT_LT(wv.front().second, wv.back().second);
    };
    widthOrder(combinedValue);
    s.relationAttention = true;
    view.setState(s);
    const auto relArcs = view.treeArcItems();
    ASSERT_EQ(relArcs.size(), 8u);
    std::vector<std::pair<float, double>> wv;
    for (const auto &[item, pair] : relArcs)
        wv.push_back({relationValue(0, 1, pair.first + 1, pair.second + 1), static_cast<QGraphicsPathItem *>(item)->pen().widthF()});
    std::sort(wv.begin(), wv.end());
    EXPECT_LT(wv.front().second, wv.back().second);
    // Below the words: every other pair at or above the threshold, never a dependent -> head pair;
    // dashed exactly where the model reads [none].
    const std::set<std::pair<int, int>> depToHead = {{0, 2}, {1, 2}, {2, 3}, {4, 6}, {5, 6}, {6, 3}, {7, 3}};
    int expected = 0;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            if (i != j && !depToHead.count({i, j}) && relationValue(0, 1, i + 1, j + 1) >= 0.5f)
                ++expected;
    const auto below = view.attentionArcItems();
    EXPECT_EQ(static_cast<int>(below.size()), expected);
    const TokenRelations &r = *kiteAnalysis()->relations;
    for (const auto &arc : below) {
        EXPECT_FALSE(depToHead.count({arc.from, arc.to}));
        const auto *path = static_cast<QGraphicsPathItem *>(arc.item);
        const bool none = r.kind(arc.from + 1, arc.to + 1) == TokenRelations::Kind::None;
        EXPECT_EQ(path->pen().style(), none ? Qt::DashLine : Qt::SolidLine) << arc.from << "->" << arc.to;
        EXPECT_EQ(path->pen().color().rgb(), sequentialColor(gateValue(0, 1, arc.from + 1, arc.to + 1)).rgb());
        EXPECT_NE(path->toolTip().indexOf(QStringLiteral("relation")), -1);
    }
    // The legend names the gate and the attention shown.
    QStringList legend;
    for (QGraphicsItem *item : view.scene()->items())
        if (item->data(0).toString() == QLatin1String("legend"))
            if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item))
                legend << t->text();
    EXPECT_NE(legend.join(QLatin1Char('|')).indexOf(QStringLiteral("relation gate g")), -1);
    EXPECT_NE(legend.join(QLatin1Char('|')).indexOf(QStringLiteral("relation softmax")), -1);
}

TEST(DependencyViewRelationMode, PlainAttentionIsTheSelectedMatrixToo)
{
    app();
    auto a = kiteAnalysis();
    ViewState s;
    s.weightedAttention = false;
    EXPECT_EQ(selectedAttention(*a, s), &a->attentionRaw[0][0]);
    s.relationAttention = true;
    EXPECT_EQ(selectedAttention(*a, s), &a->attentionRelation[0][0]);
    EXPECT_EQ(attentionVariantSuffix(*a, s), QStringLiteral("-relation"));
    s.relationAttention = false;
    s.weightedAttention = true;
    EXPECT_EQ(selectedAttention(*a, s), &a->attention[0][0]);
    EXPECT_EQ(attentionVariantName(*a, s), QStringLiteral("combined (gated)"));
    // A model without a relation attention ignores the choice.
    auto plain = std::make_shared<Analysis>(*a);
    plain->attentionRelation.clear();
    s.relationAttention = true;
    EXPECT_EQ(selectedAttention(*plain, s), &plain->attention[0][0]);
}

// The Tree Aggregation Transformer's node attention on the constituency view's
// edges: each phrase -> child edge carries the weight of the selected head
// (hand-set), children found by the TAT's post-order phrase ids.
/// "The cat sat ." with its tree, and a TAT analysis of it: node attention of 2 heads (one per stream).
std::pair<std::shared_ptr<Sentence>, std::shared_ptr<Analysis>> tatCatSat()
{
    auto trees = readPtb("(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))", "t");
    EXPECT_TRUE(trees);
    auto s = std::make_shared<Sentence>();
    for (const char *w : {"The", "cat", "sat", "."}) {
        Token t;
        t.text = w;
        s->tokens.push_back(t);
    }
    s->constituency = trees->front();
    auto a = std::make_shared<Analysis>();
    a->family = "tree-aggregation-transformer";
    a->words = {"The", "cat", "sat", "."};
    a->tokens = a->words;
    a->wordToken = {0, 1, 2, 3};
    a->heads = 2;
    a->layers = 1;
    auto node = [](int id, std::vector<int> targets, std::vector<std::vector<float>> weights) {
        NodeAttention n;
        n.node = id;
        n.targets = std::move(targets);
        n.weights = std::move(weights);
        return n;
    };
    // The aggregation records a TAT analysis carries (core/data/overlays.h): NP = 0 (level 1),
    // VP = 1 (level 1), S = 2 (level 0), their spans and L_v = children + 2.
    a->gates[overlay::kAggregationNodeLevel] = NamedArray{{3}, {1, 1, 0}};
    a->gates[overlay::kAggregationNodeSpan] = NamedArray{{3, 2}, {0, 2, 2, 3, 0, 4}};
    a->gates[overlay::kAggregationNodeLength] = NamedArray{{3}, {4, 3, 5}};
    a->nodeAttention = {node(0, {-1, -2}, {{0.2f, 0.7f}, {0.6f, 0.1f}}), node(1, {-3}, {{0.9f}, {0.3f}}),
                        node(2, {0, 1, -4}, {{0.05f, 0.5f, 0.4f}, {0.3f, 0.3f, 0.3f}})};
    return {s, a};
}

TEST(ConstituencyViewNodeAttention, EdgesCarryThePhrasesAttentionOverTheirChildren)
{
    app();
    auto [s, a] = tatCatSat();
    // TAT post-order: NP = 0, VP = 1, S = 2. Weights per head: 2 heads x children.
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setData({s, a});
    ViewState st;
    st.head = 0;
    view.setState(st);
    auto weights = [&] {
        std::multiset<double> widths;
        for (QGraphicsItem *item : view.scene()->items())
            if (item->data(0).toString() == QLatin1String("node-attention"))
                widths.insert(std::round(item->data(1).toDouble() * 1000.0) / 1000.0);
        return widths;
    };
    auto width = [](double w) { return std::round((0.9 + 4.0 * w) * 1000.0) / 1000.0; };
    // Head 1: S->NP 0.05, S->VP 0.5, S->. 0.4, NP->The 0.2, NP->cat 0.7, VP->sat 0.9.
    EXPECT_EQ(weights(), (std::multiset<double>{width(0.05), width(0.5), width(0.4), width(0.2), width(0.7), width(0.9)}));
    st.head = 1;
    view.setState(st);
    EXPECT_EQ(weights(), (std::multiset<double>{width(0.3), width(0.3), width(0.3), width(0.6), width(0.1), width(0.3)}));
    bool legend = false;
    for (QGraphicsItem *item : view.scene()->items())
        if (item->data(0).toString() == QLatin1String("node-attention-legend"))
            legend = static_cast<QGraphicsSimpleTextItem *>(item)->text().contains(QStringLiteral("syntactic head 1"));
    EXPECT_TRUE(legend); // 2 heads in all: one per stream, the semantic first, so head 2 is the syntactic stream's
    // Node attention without the aggregation records (another family's) is not drawn as TAT weights.
    auto other = std::make_shared<Analysis>(*a);
    other->gates.erase(overlay::kAggregationNodeLevel);
    view.setData({s, other});
    EXPECT_TRUE(weights().empty());
}

TEST(ConstituencyViewNodeAttention, StepsThroughTheAggregationAndNamesEveryWeight)
{
    app();
    auto [s, a] = tatCatSat();
    // TAT post-order: NP = 0 (level 1), VP = 1 (level 1), S = 2 (level 0); one head per stream.
    // [N, 1 head, Lmax 5]: start, children, end (0 on padding).
    a->gates["aggregation.attention_semantic"] = NamedArray{{3, 1, 5}, {0.05f, 0.2f, 0.7f, 0.05f, 0, 0.05f, 0.9f, 0.05f, 0, 0, 0.02f, 0.05f, 0.5f, 0.4f, 0.03f}};
    a->gates["aggregation.attention_syntactic"] = NamedArray{{3, 1, 5}, {0.1f, 0.6f, 0.1f, 0.2f, 0, 0.3f, 0.3f, 0.4f, 0, 0, 0.05f, 0.3f, 0.3f, 0.3f, 0.05f}};
    a->gates["aggregation.node_norm_semantic"] = NamedArray{{3}, {1.5f, 2.5f, 3.5f}};
    a->gates["aggregation.node_norm_syntactic"] = NamedArray{{3}, {0.5f, 0.25f, 0.125f}};

    // The record as the views read it.
    auto nodes = aggregationNodesOf(*a);
    ASSERT_TRUE(nodes);
    EXPECT_EQ(nodes->heads, 1);
    EXPECT_EQ(nodes->maxLevel, 1);
    EXPECT_EQ(nodes->steps(), 2);
    EXPECT_EQ(nodes->nodes[2].sem, (std::vector<std::vector<float>>{{0.02f, 0.05f, 0.5f, 0.4f, 0.03f}}));
    EXPECT_EQ(nodes->nodes[1].syn, (std::vector<std::vector<float>>{{0.3f, 0.3f, 0.4f}}));
    EXPECT_EQ(phrasePositionLabels(*nodes, 2, *s->constituency, {"The", "cat", "sat", "."}),
              (std::vector<std::string>{"start (S)", "NP The cat", "VP sat", ".", "end (S)"}));

    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setData({s, a});
    auto phases = [&] {
        std::map<int, int> m;
        for (const auto &[id, phase] : view.tatPhrasePhases())
            m[id] = phase;
        return m;
    };
    const int done = static_cast<int>(AggregationPhase::Done), current = static_cast<int>(AggregationPhase::Current),
              pending = static_cast<int>(AggregationPhase::Pending);
    EXPECT_EQ(phases(), (std::map<int, int>{{0, done}, {1, done}, {2, done}}));
    auto weightedEdges = [&] {
        int n = 0;
        for (QGraphicsItem *item : view.scene()->items())
            n += item->data(0).toString() == QLatin1String("node-attention");
        return n;
    };
    EXPECT_EQ(weightedEdges(), 6);
    ViewState st;
    st.aggregationStep = 1; // the deepest level: NP and VP; S waits, its edges carry no weight yet
    view.setState(st);
    EXPECT_EQ(phases(), (std::map<int, int>{{0, current}, {1, current}, {2, pending}}));
    EXPECT_EQ(weightedEdges(), 3);
    EXPECT_NE(view.notes().join(QStringLiteral(" ")).indexOf(QStringLiteral("Aggregation step 1 of 2: level 1 (2 phrases")), -1)
        << view.notes().join(QStringLiteral(" | ")).toStdString();
    st.aggregationStep = 2;
    view.setState(st);
    EXPECT_EQ(phases(), (std::map<int, int>{{0, done}, {1, done}, {2, current}}));
    EXPECT_EQ(weightedEdges(), 6);
    // The root's hover names every position and weight of both streams, its level, step and norms.
    QString hover;
    for (QGraphicsItem *item : view.scene()->items())
        if (item->data(2).isValid() && item->data(2).toInt() == 2)
            hover = item->data(0).toString();
    EXPECT_NE(hover.indexOf(QStringLiteral("TAT node 2, level 0: aggregated at step 2 of 2")), -1) << hover.toStdString();
    EXPECT_NE(hover.indexOf(QStringLiteral("semantic head 1: start (S) 0.02 | NP The cat 0.05 | VP sat 0.50 | . 0.40 | end (S) 0.03")), -1)
        << hover.toStdString();
    EXPECT_NE(hover.indexOf(QStringLiteral("syntactic head 1: start (S) 0.05 | NP The cat 0.30")), -1) << hover.toStdString();
    EXPECT_NE(hover.indexOf(QStringLiteral("‖w^e‖ = 3.500, ‖w^n‖ = 0.125")), -1) << hover.toStdString();
    // In a pair whose other tree is one level deeper, step 1 aggregates that deeper level:
    // nothing of this tree yet; step 2 its level-1 phrases.
    view.setAggregationDepth(2);
    st.aggregationStep = 1;
    view.setState(st);
    EXPECT_EQ(phases(), (std::map<int, int>{{0, pending}, {1, pending}, {2, pending}}));
    EXPECT_NE(view.notes().join(QStringLiteral(" ")).indexOf(QStringLiteral("Aggregation step 1 of 3: level 2 (0 phrases")), -1);
    st.aggregationStep = 2;
    view.setState(st);
    EXPECT_EQ(phases(), (std::map<int, int>{{0, current}, {1, current}, {2, pending}}));
    view.setAggregationDepth(-1);
    // An analysis without the aggregation records (another family's) ignores the step.
    auto other = std::make_shared<Analysis>(*a);
    for (const char *key : {overlay::kAggregationNodeLevel, overlay::kAggregationNodeSpan, overlay::kAggregationNodeLength})
        other->gates.erase(key);
    view.setData({s, other});
    EXPECT_TRUE(view.tatPhrasePhases().empty());
}
