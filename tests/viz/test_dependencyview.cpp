#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include <QApplication>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>

#include "viz/dependencyview.h"
#include "viz/graphlayout.h"
#include "testutil.h"
#include "zoomcheck.h"

using namespace treelens;

namespace {

QApplication &app()
{
    static int argc = 1;
    static char arg0[] = "test";
    static char *argv[] = {arg0, nullptr};
    // Never destroyed: a static QApplication dies after Qt\'s own statics (crash at exit).
    static QApplication *a = new QApplication(argc, argv);
    return *a;
}

Sentence makeSentence(const std::vector<std::string> &words, const std::vector<std::string> &tags,
                      const std::vector<int> &heads, const std::vector<std::string> &rels)
{
    Sentence s;
    s.id = "t";
    for (std::size_t i = 0; i < words.size(); ++i) {
        Token t;
        t.text = words[i];
        t.upos = i < tags.size() ? tags[i] : "X";
        s.tokens.push_back(t);
    }
    if (!heads.empty())
        s.dependency = DependencyTree{heads, rels};
    return s;
}

/// "The cat sat on the mat ." with sat as root.
std::shared_ptr<const Sentence> catSentence()
{
    return std::make_shared<const Sentence>(makeSentence({"The", "cat", "sat", "on", "the", "mat", "."},
                                                         {"DET", "NOUN", "VERB", "ADP", "DET", "NOUN", "PUNCT"},
                                                         {2, 3, 0, 6, 6, 3, 3},
                                                         {"det", "nsubj", "root", "case", "det", "obl", "punct"}));
}

// Hand-set word-level attention of layer 0 head 0 (from, to) → weight; every other
// off-diagonal word pair is 0.02, the diagonal 0.3 (self-attention, never drawn).
const std::map<std::pair<int, int>, float> kLayer0Head0 = {
    {{0, 1}, 0.70f}, {{1, 2}, 0.231f}, {{3, 5}, 0.45f}, {{4, 5}, 0.90f}, {{5, 2}, 0.12f},
    {{6, 2}, 0.05f}, {{2, 1}, 0.35f},  {{2, 5}, 0.15f}, {{2, 6}, 0.08f},
};

/// An analysis with a [CLS] token first (word i is token i+1), 2 layers × 2 heads.
/// The [CLS] row/column holds 0.4 everywhere: a view that ignored wordToken would draw it.
std::shared_ptr<const Analysis> catAnalysis()
{
    auto a = std::make_shared<Analysis>();
    a->family = "tree-transformer";
    a->tokens = {"[CLS]", "The", "cat", "sat", "on", "the", "mat", "."};
    a->words = {"The", "cat", "sat", "on", "the", "mat", "."};
    a->wordToken = {1, 2, 3, 4, 5, 6, 7};
    a->layers = 2;
    a->heads = 2;
    a->attention.assign(2, std::vector<Matrix>(2, Matrix(8, 8, 0.0f)));
    Matrix &m = a->attention[0][0];
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c)
            m.at(r, c) = (r == 0 || c == 0) ? 0.4f : (r == c ? 0.3f : 0.02f);
    for (const auto &[pair, w] : kLayer0Head0)
        m.at(pair.first + 1, pair.second + 1) = w;
    // Layer 1 head 1: only sat → The.
    a->attention[1][1].at(3, 1) = 0.5f;
    return a;
}

std::set<std::pair<int, int>> drawnPairs(const DependencyView &view)
{
    std::set<std::pair<int, int>> out;
    for (const auto &arc : view.attentionArcItems())
        out.insert({arc.from, arc.to});
    return out;
}

/// The scene rectangle of an arc's geometry (its path), without pen or hover margins.
QRectF pathRect(QGraphicsItem *item)
{
    auto *path = dynamic_cast<QGraphicsPathItem *>(item);
    return path ? path->mapRectToScene(path->path().boundingRect()) : QRectF();
}

std::vector<QGraphicsItem *> itemsOfKind(const DependencyView &view, const QString &kind)
{
    std::vector<QGraphicsItem *> out;
    for (QGraphicsItem *item : view.scene()->items())
        if (item->data(0).toString() == kind)
            out.push_back(item);
    return out;
}

/// A random tree over n words (each word's head drawn among words placed before it
/// in a random order): many long and crossing arcs, a stress test for the layout.
enum class Shape { Chain, Random, Projective };

/// Flat projective subtrees over [l, r) attached to `parent` (-1: root): a random
/// head per span, its sides cut into chunks that each become a dependent subtree.
void projectiveSpan(std::mt19937 &rng, std::vector<int> &heads, int l, int r, int parent)
{
    if (l >= r)
        return;
    const int h = l + static_cast<int>(rng() % static_cast<unsigned>(r - l));
    heads[static_cast<std::size_t>(h)] = parent + 1;
    for (int a = l; a < h;) {
        const int b = std::min(h, a + 1 + static_cast<int>(rng() % 5));
        projectiveSpan(rng, heads, a, b, h);
        a = b;
    }
    for (int a = h + 1; a < r;) {
        const int b = std::min(r, a + 1 + static_cast<int>(rng() % 5));
        projectiveSpan(rng, heads, a, b, h);
        a = b;
    }
}

Sentence randomSentence(int n, unsigned seed, Shape shape)
{
    std::mt19937 rng(seed);
    static const std::vector<std::string> vocab = {"a", "I", "extraordinarily", "cat", "on", "internationalisation", "sat",
                                                   "the", "mat", "of", "representations", "we", ",", "quickly"};
    static const std::vector<std::string> rels = {"det", "nsubj", "compound:prt", "obl", "case", "nmod:poss", "advmod",
                                                  "punct", "acl:relcl", "amod", "conj", "cc"};
    static const std::vector<std::string> tags = {"DET", "PRON", "ADV", "NOUN", "ADP", "NOUN", "VERB", "DET", "NOUN", "ADP",
                                                  "NOUN", "PRON", "PUNCT", "ADV"};
    std::vector<std::string> words, wordTags, deprels;
    std::vector<int> heads(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
        const std::size_t v = rng() % vocab.size();
        words.push_back(vocab[v]);
        wordTags.push_back(tags[v]);
        deprels.push_back(rels[rng() % rels.size()]);
    }
    if (shape == Shape::Projective) {
        projectiveSpan(rng, heads, 0, n, -1);
    } else if (shape == Shape::Chain) {
        // Right-branching with short arcs: word i depends on i+1, the last is the root.
        for (int i = 0; i < n; ++i)
            heads[static_cast<std::size_t>(i)] = i + 1 < n ? i + 2 : 0;
    } else {
        std::vector<int> order(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            order[static_cast<std::size_t>(i)] = i;
        std::shuffle(order.begin(), order.end(), rng);
        for (int k = 1; k < n; ++k)
            heads[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = order[rng() % static_cast<unsigned>(k)] + 1;
        heads[static_cast<std::size_t>(order[0])] = 0;
    }
    deprels[static_cast<std::size_t>(std::find(heads.begin(), heads.end(), 0) - heads.begin())] = "root";
    return makeSentence(words, wordTags, heads, deprels);
}

/// Uniform-ish attention over n words with a few strong entries per row.
std::shared_ptr<const Analysis> randomAnalysis(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    auto a = std::make_shared<Analysis>();
    for (int i = 0; i < n; ++i)
        a->wordToken.push_back(i);
    a->layers = 1;
    a->heads = 1;
    Matrix m(n, n, 0.01f);
    // Mostly local, like trained heads: targets a few words away, rarely far.
    for (int r = 0; r < n; ++r)
        for (int k = 0; k < 5; ++k) {
            const int reach = (rng() % 6 == 0) ? n : 4;
            const int c = std::clamp(r + static_cast<int>(rng() % static_cast<unsigned>(2 * reach + 1)) - reach, 0, n - 1);
            m.at(r, c) = 0.1f + 0.18f * static_cast<float>(k);
        }
    a->attention = {{m}};
    return a;
}

void savePng(DependencyView &view, const char *name)
{
    // Only on request: the images are for looking at, not for checking.
    const char *dir = std::getenv("TREELENS_DEPVIEW_PNG");
    if (!dir || !*dir)
        return;
    const QSizeF size = view.exportSize() * 2;
    QImage img(size.toSize(), QImage::Format_ARGB32);
    img.fill(Qt::transparent);
    QPainter p(&img);
    view.renderTo(&p, QRectF(QPointF(0, 0), size));
    p.end();
    const QString base = QString::fromUtf8(dir) + QStringLiteral("/depview-") + QString::fromUtf8(name);
    img.save(base + QStringLiteral(".png"));
    // A viewport-sized piece at full resolution: what a user sees before scrolling.
    if (img.width() > 1600)
        img.copy(0, std::max(0, img.height() - 1100), 1600, std::min(img.height(), 1100)).save(base + QStringLiteral("-left.png"));
}

bool graphvizWorks()
{
    GraphLayoutRequest r;
    r.nodeSizes = {QSizeF(20, 10), QSizeF(20, 10)};
    r.edges = {{0, 1}};
    auto res = layoutGraph(r);
    return res.ok() && res->centers.size() == 2;
}

} // namespace

TEST(DependencyView, WordsInOrderOnOneBaseline)
{
    app();
    DependencyView view;
    view.setData({catSentence(), nullptr});
    const auto words = view.wordItems();
    ASSERT_EQ(words.size(), 7u);
    for (std::size_t i = 0; i < words.size(); ++i) {
        EXPECT_EQ(words[i]->data(1).toInt(), static_cast<int>(i));
        if (i > 0) {
            EXPECT_GT(words[i]->pos().x(), words[i - 1]->pos().x());
            EXPECT_DOUBLE_EQ(words[i]->pos().y(), words[0]->pos().y());
            EXPECT_FALSE(words[i]->sceneBoundingRect().intersects(words[i - 1]->sceneBoundingRect()));
        }
    }
    EXPECT_TRUE(words[1]->toolTip().contains(QStringLiteral("cat")));
    EXPECT_TRUE(words[1]->toolTip().contains(QStringLiteral("NOUN")));
}

TEST(DependencyView, OneTreeArcPerDependencyWithRootAboveWords)
{
    app();
    DependencyView view;
    view.setData({catSentence(), nullptr});
    const auto arcs = view.treeArcItems();
    ASSERT_EQ(arcs.size(), 7u);
    std::set<std::pair<int, int>> got;
    for (const auto &a : arcs)
        got.insert(a.second);
    const std::set<std::pair<int, int>> expected = {{0, 1}, {1, 2}, {2, -1}, {3, 5}, {4, 5}, {5, 2}, {6, 2}};
    EXPECT_EQ(got, expected);
    // Arcs above the words; labels too, one per arc ("root" for the root).
    const double wordTop = view.wordItems().front()->sceneBoundingRect().top();
    for (const auto &a : arcs)
        EXPECT_LE(pathRect(a.first).bottom(), wordTop);
    const auto labels = itemsOfKind(view, QStringLiteral("relation-label"));
    EXPECT_EQ(labels.size(), 7u);
    std::set<QString> labelTexts;
    for (QGraphicsItem *l : labels)
        labelTexts.insert(l->data(1).toString());
    EXPECT_EQ(labelTexts, (std::set<QString>{"det", "nsubj", "root", "case", "obl", "punct"}));
    // The longer obl arc (sat → mat, span 3) is higher than the case arc (span 2) it contains.
    QGraphicsItem *obl = nullptr, *caseArc = nullptr;
    for (const auto &a : arcs) {
        if (a.second == std::make_pair(5, 2))
            obl = a.first;
        if (a.second == std::make_pair(3, 5))
            caseArc = a.first;
    }
    ASSERT_TRUE(obl && caseArc);
    EXPECT_LT(obl->sceneBoundingRect().top(), caseArc->sceneBoundingRect().top());
    // Without an analysis: one plain colour, no legend, no attention arcs.
    for (const auto &a : arcs)
        EXPECT_EQ(static_cast<QGraphicsPathItem *>(a.first)->pen().color(), QColor(40, 40, 40));
    EXPECT_TRUE(itemsOfKind(view, QStringLiteral("legend")).empty());
    EXPECT_TRUE(view.attentionArcItems().empty());
}

TEST(DependencyView, TreeArcsColouredByAttentionDependentToHead)
{
    app();
    DependencyView view;
    view.setData({catSentence(), catAnalysis()});
    int checked = 0;
    for (const auto &[item, pair] : view.treeArcItems()) {
        if (pair.second < 0)
            continue;
        // Hand-set values; unlisted pairs are the 0.02 filler.
        const auto it = kLayer0Head0.find(pair);
        const float w = it == kLayer0Head0.end() ? 0.02f : it->second;
        auto *path = dynamic_cast<QGraphicsPathItem *>(item);
        ASSERT_NE(path, nullptr);
        EXPECT_EQ(path->pen().color(), sequentialColor(w)) << pair.first << "->" << pair.second;
        ++checked;
    }
    EXPECT_EQ(checked, 6);
    EXPECT_FALSE(itemsOfKind(view, QStringLiteral("legend")).empty());
    // Hover text with exact values.
    for (const auto &[item, pair] : view.treeArcItems())
        if (pair == std::make_pair(1, 2)) {
            EXPECT_TRUE(item->toolTip().startsWith(QStringLiteral("nsubj: cat ← sat, attention 0.231"))) << item->toolTip().toStdString();
        }
    // Hovering an arc reports the same text through hovered().
    QString hoverText;
    QObject::connect(&view, &DependencyView::hovered, [&](const QString &t) { hoverText = t; });
    for (const auto &[item, pair] : view.treeArcItems())
        if (pair == std::make_pair(4, 5)) {
            QGraphicsSceneHoverEvent enter(QEvent::GraphicsSceneHoverEnter);
            view.scene()->sendEvent(item, &enter);
        }
    EXPECT_TRUE(hoverText.startsWith(QStringLiteral("det: the ← mat, attention 0.900"))) << hoverText.toStdString();
    // Hiding attention removes the colouring and the legend.
    view.setShowAttention(false);
    for (const auto &a : view.treeArcItems())
        EXPECT_EQ(static_cast<QGraphicsPathItem *>(a.first)->pen().color(), QColor(40, 40, 40));
    EXPECT_TRUE(itemsOfKind(view, QStringLiteral("legend")).empty());
    EXPECT_TRUE(view.attentionArcItems().empty());
}

TEST(DependencyView, AttentionArcsFollowThresholdLayerHeadAndFocus)
{
    app();
    DependencyView view;
    view.setData({catSentence(), catAnalysis()});
    ViewState state;
    state.threshold = 0.1;
    view.setState(state);
    // >= 0.1 among the hand-set values; the 0.3 diagonal and the [CLS] 0.4 are not word pairs.
    EXPECT_EQ(drawnPairs(view), (std::set<std::pair<int, int>>{{0, 1}, {1, 2}, {3, 5}, {4, 5}, {5, 2}, {2, 1}, {2, 5}}));
    for (const auto &arc : view.attentionArcItems()) {
        EXPECT_FLOAT_EQ(arc.weight, kLayer0Head0.at({arc.from, arc.to}));
        ASSERT_NE(arc.item, nullptr);
        // Below the words.
        EXPECT_GE(pathRect(arc.item).top(), view.wordItems().front()->sceneBoundingRect().bottom());
    }
    // Width grows with the weight.
    const auto arcs = view.attentionArcItems();
    auto widthOf = [&](int from, int to) {
        for (const auto &a : arcs)
            if (a.from == from && a.to == to)
                return static_cast<QGraphicsPathItem *>(a.item)->pen().widthF();
        return -1.0;
    };
    EXPECT_GT(widthOf(4, 5), widthOf(0, 1));
    EXPECT_GT(widthOf(0, 1), widthOf(5, 2));

    state.threshold = 0.2;
    view.setState(state);
    EXPECT_EQ(drawnPairs(view), (std::set<std::pair<int, int>>{{0, 1}, {1, 2}, {3, 5}, {4, 5}, {2, 1}}));

    state.threshold = 0.1;
    state.focusWord = 2;
    view.setState(state);
    EXPECT_EQ(drawnPairs(view), (std::set<std::pair<int, int>>{{2, 1}, {2, 5}}));

    state.focusWord = -1;
    state.layer = 1;
    state.head = 1;
    view.setState(state);
    EXPECT_EQ(drawnPairs(view), (std::set<std::pair<int, int>>{{2, 0}}));

    state.head = 0; // all zeros
    view.setState(state);
    EXPECT_TRUE(view.attentionArcItems().empty());

    state.layer = 5; // no such layer: no arcs, plain tree
    view.setState(state);
    EXPECT_TRUE(view.attentionArcItems().empty());
    EXPECT_TRUE(itemsOfKind(view, QStringLiteral("legend")).empty());
}

TEST(DependencyView, LongSentenceKeepsTopKPerRow)
{
    app();
    const int n = 60;
    DependencyView view;
    auto analysis = randomAnalysis(n, 7);
    view.setData({std::make_shared<const Sentence>(randomSentence(n, 3, Shape::Random)), analysis});
    ViewState state;
    state.threshold = 0.1;
    view.setState(state);
    // Expected from the matrix itself: per row, the kTopPerRow largest >= threshold (self excluded).
    const Matrix &m = analysis->attention[0][0];
    std::size_t expected = 0;
    for (int r = 0; r < n; ++r) {
        int above = 0;
        for (int c = 0; c < n; ++c)
            above += (c != r && m.at(r, c) >= 0.1f) ? 1 : 0;
        expected += static_cast<std::size_t>(std::min(above, DependencyView::kTopPerRow));
    }
    EXPECT_EQ(view.attentionArcItems().size(), expected);
    std::map<int, int> perRow;
    for (const auto &arc : view.attentionArcItems()) {
        EXPECT_NE(arc.from, arc.to);
        EXPECT_GE(arc.weight, 0.1f);
        ++perRow[arc.from];
    }
    for (const auto &[row, count] : perRow)
        EXPECT_LE(count, DependencyView::kTopPerRow);
    // With a focus word every outgoing weight >= threshold is shown again.
    state.focusWord = 10;
    view.setState(state);
    std::size_t focusExpected = 0;
    for (int c = 0; c < n; ++c)
        focusExpected += (c != 10 && m.at(10, c) >= 0.1f) ? 1 : 0;
    EXPECT_EQ(view.attentionArcItems().size(), focusExpected);
}

TEST(DependencyView, SixtyWordsNoOverlappingWordsOrLabels)
{
    app();
    for (Shape shape : {Shape::Chain, Shape::Random, Shape::Projective}) {
        const int n = 60;
        DependencyView view;
        view.setData({std::make_shared<const Sentence>(randomSentence(n, 11, shape)), randomAnalysis(n, 5)});
        const auto words = view.wordItems();
        ASSERT_EQ(words.size(), static_cast<std::size_t>(n));
        if (shape != Shape::Random) {
            EXPECT_TRUE(randomSentence(n, 11, shape).dependency->isProjective());
        }
        EXPECT_EQ(view.treeArcItems().size(), static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < words.size(); ++i)
            for (std::size_t j = i + 1; j < words.size(); ++j)
                EXPECT_FALSE(words[i]->sceneBoundingRect().intersects(words[j]->sceneBoundingRect())) << i << " " << j;
        const auto labels = itemsOfKind(view, QStringLiteral("relation-label"));
        EXPECT_EQ(labels.size(), static_cast<std::size_t>(n));
        const double wordTop = words.front()->sceneBoundingRect().top();
        for (std::size_t i = 0; i < labels.size(); ++i) {
            EXPECT_LT(labels[i]->sceneBoundingRect().bottom(), wordTop);
            for (std::size_t j = i + 1; j < labels.size(); ++j)
                EXPECT_FALSE(labels[i]->sceneBoundingRect().intersects(labels[j]->sceneBoundingRect()))
                    << labels[i]->data(1).toString().toStdString() << " / " << labels[j]->data(1).toString().toStdString();
        }
        // Never squashed: readable width per word, so the view scrolls instead.
        EXPECT_GT(view.exportSize().width(), n * 20.0);
        savePng(view, shape == Shape::Chain ? "60-chain" : shape == Shape::Random ? "60-random" : "60-projective");
    }
}

TEST(DependencyView, RenderToPaintsOnWhite)
{
    app();
    DependencyView view;
    view.setData({catSentence(), catAnalysis()});
    const QSizeF size = view.exportSize();
    ASSERT_GT(size.width(), 50);
    ASSERT_GT(size.height(), 50);
    QImage img(size.toSize(), QImage::Format_ARGB32);
    img.fill(Qt::transparent);
    QPainter p(&img);
    view.renderTo(&p, QRectF(QPointF(0, 0), size));
    p.end();
    int nonWhite = 0, transparent = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QRgb c = img.pixel(x, y);
            transparent += qAlpha(c) < 255 ? 1 : 0;
            nonWhite += (c & 0xffffff) != 0xffffff ? 1 : 0;
        }
    EXPECT_EQ(transparent, 0); // white background everywhere
    EXPECT_GT(nonWhite, 500);
    savePng(view, "cat");
    ViewState s;
    s.focusWord = 2;
    view.setState(s);
    savePng(view, "cat-focus");
}

TEST(DependencyView, ClickingAWordEmitsWordClicked)
{
    app();
    DependencyView view;
    view.setData({catSentence(), nullptr});
    view.resize(700, 300);
    view.show();
    int clicked = -1;
    QObject::connect(&view, &DependencyView::wordClicked, [&](int w) { clicked = w; });
    QGraphicsItem *word = view.wordItems()[4];
    const QPoint at = view.mapFromScene(word->sceneBoundingRect().center());
    QMouseEvent press(QEvent::MouseButtonPress, QPointF(at), view.viewport()->mapToGlobal(QPointF(at)), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &press);
    EXPECT_EQ(clicked, 4);
}

TEST(DependencyView, HierarchicalPutsHeadsAboveDependents)
{
    app();
    if (!graphvizWorks())
        GTEST_SKIP() << "layoutGraph() does not work yet";
    DependencyView view;
    view.setData({catSentence(), catAnalysis()});
    view.setLayout(DependencyView::Layout::Hierarchical);
    EXPECT_EQ(view.layoutMode(), DependencyView::Layout::Hierarchical);
    const auto words = view.wordItems();
    ASSERT_EQ(words.size(), 7u);
    const auto arcs = view.treeArcItems();
    ASSERT_EQ(arcs.size(), 7u);
    for (const auto &[item, pair] : arcs) {
        if (pair.second < 0)
            continue;
        EXPECT_LT(words[static_cast<std::size_t>(pair.second)]->sceneBoundingRect().center().y(),
                  words[static_cast<std::size_t>(pair.first)]->sceneBoundingRect().center().y())
            << pair.first << "<-" << pair.second;
    }
    // The root word is the topmost.
    for (std::size_t i = 0; i < words.size(); ++i)
        if (i != 2) {
            EXPECT_LT(words[2]->sceneBoundingRect().top(), words[i]->sceneBoundingRect().top());
        }
    savePng(view, "cat-hier");
    // Relation labels never overlap in the hierarchical layout either.
    for (unsigned seed : {4u, 5u}) {
        view.setData({std::make_shared<const Sentence>(randomSentence(40, seed, Shape::Random)), nullptr});
        const auto labels = itemsOfKind(view, QStringLiteral("relation-label"));
        EXPECT_EQ(labels.size(), 40u);
        for (std::size_t i = 0; i < labels.size(); ++i)
            for (std::size_t j = i + 1; j < labels.size(); ++j)
                EXPECT_FALSE(labels[i]->sceneBoundingRect().intersects(labels[j]->sceneBoundingRect()));
    }
    view.setData({std::make_shared<const Sentence>(randomSentence(40, 4, Shape::Projective)), randomAnalysis(40, 2)});
    savePng(view, "40-hier");
}

TEST(DependencyView, BuildTimeFor120Words)
{
    app();
    const int n = 120;
    auto sentence = std::make_shared<const Sentence>(randomSentence(n, 21, Shape::Projective));
    auto analysis = randomAnalysis(n, 9);
    DependencyView view;
    const auto start = std::chrono::steady_clock::now();
    view.setData({sentence, analysis});
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ info ] DependencyView: 120-word sentence built in %.1f ms (%zu attention arcs)\n", ms,
                view.attentionArcItems().size());
    EXPECT_EQ(view.wordItems().size(), static_cast<std::size_t>(n));
    savePng(view, "120-random");
    view.setData({std::make_shared<const Sentence>(randomSentence(40, 8, Shape::Projective)), randomAnalysis(40, 3)});
    savePng(view, "40-random");
}

TEST(DependencyView, ALongNoteWrapsToTheTreeInsteadOfWideningTheFigure)
{
    // Issue 30: a long caption set the scene's width, so a 7-word tree filled a quarter of
    // the pane (and of an export).
    app();
    DependencyView view;
    view.setData({catSentence(), nullptr});
    const double plain = view.scene()->sceneRect().width();
    Sentence noted = *catSentence();
    noted.setMetadata("parser", "file");
    noted.setMetadata("parser.file", "/home/someone/projects/a-very-long-folder-name/with/many/levels/of/subfolders/"
                                     "and-a-file-name-that-goes-on-and-on-for-a-while.conllu");
    view.setData({std::make_shared<const Sentence>(noted), nullptr});
    ASSERT_FALSE(view.notes().isEmpty());
    EXPECT_LE(view.scene()->sceneRect().width(), std::max(plain, 360.0 + 40.0))
        << "the note set the width: " << view.notes().join(QLatin1Char('|')).toStdString();
    // The whole note is still there, over several lines.
    std::vector<std::pair<double, QString>> lines;
    for (QGraphicsItem *item : view.scene()->items())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item); t && t->data(0).toString() == QLatin1String("note"))
            lines.emplace_back(t->sceneBoundingRect().top(), t->text());
    std::sort(lines.begin(), lines.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    QString drawn;
    for (const auto &l : lines)
        drawn += l.second;
    EXPECT_TRUE(drawn.contains(QStringLiteral("and-a-file-name-that-goes-on-and-on-for-a-while.conllu"))) << drawn.toStdString();
}

TEST(DependencyView, KeyboardZoomKeepsTheViewsCentre)
{
    app();
    DependencyView view;
    view.resize(400, 300);
    view.setData({std::make_shared<const Sentence>(randomSentence(40, 4, Shape::Projective)), nullptr});
    view.show();
    QApplication::processEvents();
    test::expectKeyboardZoomKeepsCentre(view);
}
