#include <QApplication>
#include <QKeyEvent>
#include <QElapsedTimer>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

#include "core/data/induction.h"
#include "core/eval/inductioneval.h"
#include "core/formats/ptb.h"
#include "ui/backgroundjobs.h"
#include "viz/constituencyview.h"
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

using Spans = std::vector<std::pair<int, int>>;

// 8 words: The black cat sat on the mat .
// Parser spans: S[0,8) NP[0,3) VP[3,7) PP[4,7) NP[5,7).
const char *kTree = "(S (NP (DT The) (JJ black) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))";

Sentence sentenceFrom(const std::string &ptb)
{
    auto s = readPtbSentences(ptb, "t");
    EXPECT_TRUE(s.ok());
    return s->front();
}

/// "(S (NP (NN w0) (NN w1)) (VP ...))" over n words, with varied nesting:
/// spans split at a third so depths differ between words.
std::string syntheticTree(int n)
{
    std::function<std::string(int, int, int)> build = [&](int lo, int hi, int depth) -> std::string {
        if (hi - lo == 1)
            return "(NN w" + std::to_string(lo) + ")";
        if (hi - lo == 2 || depth > 6) {
            std::string s = "(NP";
            for (int i = lo; i < hi; ++i)
                s += " (NN w" + std::to_string(i) + ")";
            return s + ")";
        }
        const int mid = lo + std::max(1, (hi - lo) / 3);
        return std::string(depth % 2 ? "(VP " : "(NP ") + build(lo, mid, depth + 1) + " " + build(mid, hi, depth + 1) +
               ")";
    };
    return "(S " + build(0, n, 0) + ")";
}

/// An analysis over tokens [CLS] + words (wordToken[w] = w + 1) with two layers of
/// C and attention whose values are known functions of the indices.
std::shared_ptr<Analysis> makeAnalysis(int words, const Spans &brackets)
{
    auto a = std::make_shared<Analysis>();
    a->family = "tree-transformer";
    const int t = words + 1;
    a->tokens.push_back("[CLS]");
    for (int w = 0; w < words; ++w) {
        a->tokens.push_back("w" + std::to_string(w));
        a->words.push_back("w" + std::to_string(w));
        a->wordToken.push_back(w + 1);
    }
    a->layers = 2;
    a->heads = 1;
    for (int l = 0; l < 2; ++l) {
        Matrix c(t, t), att(t, t);
        for (int r = 0; r < t; ++r)
            for (int k = 0; k < t; ++k) {
                c.at(r, k) = static_cast<float>(l == 0 ? (r * t + k) / double(t * t) : 1.0 - (r * t + k) / double(t * t));
                att.at(r, k) = static_cast<float>(((r + 2 * k + l) % t) / double(t * t) * 2.0);
            }
        a->constituentPrior.push_back(c);
        a->attention.push_back({att});
    }
    a->inducedBrackets = brackets;
    return a;
}

QColor fillOf(QGraphicsItem *item)
{
    auto *p = dynamic_cast<QGraphicsPathItem *>(item);
    return p ? p->brush().color() : QColor();
}

QString textOf(QGraphicsItem *item)
{
    for (QGraphicsItem *c : item->childItems())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(c))
            return t->text();
    return QString();
}

void expectLeavesInOrder(const ConstituencyView &view, const std::vector<std::string> &words)
{
    const auto leaves = view.leafItems();
    ASSERT_EQ(leaves.size(), words.size());
    for (std::size_t i = 0; i < leaves.size(); ++i) {
        EXPECT_EQ(textOf(leaves[i]).toStdString(), words[i]) << i;
        if (i > 0) {
            const QRectF a = leaves[i - 1]->sceneBoundingRect();
            const QRectF b = leaves[i]->sceneBoundingRect();
            EXPECT_LT(a.center().x(), b.center().x()) << i;
            EXPECT_LE(a.right(), b.left()) << "leaves " << i - 1 << " and " << i << " overlap";
            EXPECT_NEAR(a.center().y(), b.center().y(), 0.01) << i;
        }
    }
}

Spans sortedSpans(const ConstituencyView &view)
{
    Spans s;
    for (const auto &p : view.phraseItems())
        s.push_back(p.second);
    std::sort(s.begin(), s.end());
    return s;
}

Spans treeSpans(const ConstituencyTree &tree)
{
    Spans s;
    for (const auto &l : tree.spans(true))
        s.push_back({l.start, l.end});
    std::sort(s.begin(), s.end());
    return s;
}

QGraphicsItem *phraseWithSpan(const ConstituencyView &view, std::pair<int, int> span)
{
    for (const auto &p : view.phraseItems())
        if (p.second == span)
            return p.first;
    return nullptr;
}

QImage render(ConstituencyView &view, double scale = 1.0)
{
    const QSizeF size = view.exportSize() * scale;
    QImage img(size.toSize(), QImage::Format_ARGB32);
    img.fill(Qt::transparent);
    QPainter p(&img);
    view.renderTo(&p, QRectF(QPointF(0, 0), size));
    p.end();
    return img;
}

/// Writes a PNG for eyeballing when TREELENS_VIEW_PNG_DIR is set.
void maybeSave(ConstituencyView &view, const char *name)
{
    const char *dir = std::getenv("TREELENS_VIEW_PNG_DIR");
    if (!dir)
        return;
    const QString base = QString::fromUtf8(dir) + QStringLiteral("/constituency-") + QString::fromUtf8(name);
    const QImage img = render(view, 2.0);
    img.save(base + QStringLiteral(".png"));
    if (img.width() > 2400) // a readable piece of a wide tree, at print size
        img.copy(0, 0, 2000, std::min(img.height(), 1400)).save(base + QStringLiteral("-left.png"));
}

} // namespace

TEST(GraphLayout, KeepsFortyLeafRankInOrderAndOnePathPerEdge)
{
    // A root over 40 leaves whose edges are listed scrambled and not ordered:
    // only the same-rank group can put the leaves in 0..39 order.
    GraphLayoutRequest req;
    req.nodeSizes.push_back(QSizeF(30, 16));
    std::vector<int> leaves;
    for (int i = 0; i < 40; ++i) {
        req.nodeSizes.push_back(QSizeF(20 + (i % 5) * 6, 16));
        leaves.push_back(i + 1);
    }
    for (int i = 0; i < 40; ++i)
        req.edges.push_back({0, 1 + (i * 17) % 40});
    req.sameRank.push_back(leaves);
    req.orderedChildren = false;
    auto r = layoutGraph(req);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->centers.size(), 41u);
    ASSERT_EQ(r->edgePaths.size(), req.edges.size());
    for (int i = 1; i < 40; ++i) {
        const QPointF a = r->centers[static_cast<std::size_t>(leaves[i - 1])];
        const QPointF b = r->centers[static_cast<std::size_t>(leaves[i])];
        EXPECT_LT(a.x(), b.x()) << i;
        EXPECT_DOUBLE_EQ(a.y(), b.y());
        // Sizes are honoured: neighbours do not overlap (node separation 8 pt).
        const double halfA = req.nodeSizes[static_cast<std::size_t>(leaves[i - 1])].width() / 2;
        const double halfB = req.nodeSizes[static_cast<std::size_t>(leaves[i])].width() / 2;
        EXPECT_GE(b.x() - a.x(), halfA + halfB + 7.9) << i;
    }
    // Root above the leaves (Qt y grows downwards), rank separation respected.
    EXPECT_LT(r->centers[0].y() + 8 + 28 - 0.1, r->centers[1].y() - 8 + 0.2);
    // Each path runs from its tail's border to its head's border, inside the bounds.
    for (std::size_t e = 0; e < req.edges.size(); ++e) {
        const QPainterPath &p = r->edgePaths[e];
        ASSERT_FALSE(p.isEmpty());
        const QPointF tail = r->centers[static_cast<std::size_t>(req.edges[e].first)];
        const QPointF head = r->centers[static_cast<std::size_t>(req.edges[e].second)];
        EXPECT_LT(QLineF(p.pointAtPercent(0), tail).length(), QLineF(p.pointAtPercent(0), head).length());
        EXPECT_NEAR(p.pointAtPercent(1).y(), head.y() - 8.0, 1.5) << e;
        EXPECT_TRUE(r->bounds.adjusted(-1, -1, 1, 1).contains(p.boundingRect())) << e;
    }
    for (const QPointF &c : r->centers)
        EXPECT_TRUE(r->bounds.contains(c));
}

TEST(GraphLayout, RejectsBadIndicesAndReportsVersion)
{
    GraphLayoutRequest req;
    req.nodeSizes = {QSizeF(10, 10), QSizeF(10, 10)};
    req.edges = {{0, 2}};
    EXPECT_FALSE(layoutGraph(req).ok());
    req.edges = {{0, 1}};
    req.sameRank = {{1, -1}};
    EXPECT_FALSE(layoutGraph(req).ok());
    EXPECT_FALSE(graphvizVersion().isEmpty());
    auto empty = layoutGraph(GraphLayoutRequest{});
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->centers.empty());
}

TEST(ConstituencyView, ParserTreeLeavesAndPhrases)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setData({sent, nullptr});
    expectLeavesInOrder(view, {"The", "black", "cat", "sat", "on", "the", "mat", "."});
    EXPECT_EQ(sortedSpans(view), (Spans{{0, 3}, {0, 8}, {3, 7}, {4, 7}, {5, 7}}));
    // Every phrase sits above all the leaves it spans.
    const auto leaves = view.leafItems();
    for (const auto &[item, span] : view.phraseItems())
        for (int w = span.first; w < span.second; ++w)
            EXPECT_LT(item->sceneBoundingRect().bottom(), leaves[static_cast<std::size_t>(w)]->sceneBoundingRect().top());
    // No analysis: nothing to compare, no overlay colours.
    EXPECT_TRUE(view.sharedSpans().empty());
    for (const auto &p : view.phraseItems())
        EXPECT_EQ(fillOf(p.first), QColor(Qt::white));
    maybeSave(view, "parser");
}

TEST(ConstituencyView, FortyWordTreeKeepsSentenceOrder)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(syntheticTree(40)));
    ASSERT_EQ(sent->words().size(), 40u);
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setData({sent, nullptr});
    expectLeavesInOrder(view, sent->words());
    EXPECT_EQ(sortedSpans(view), treeSpans(*sent->constituency));
    maybeSave(view, "forty");
}

TEST(ConstituencyView, CompareClassifiesSpans)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    // (2,3) is a single word and not compared. Scored as eval-induction scores it, the
    // final '.' is not a word: the induced [3,8) is [3,7) without it (so not an extra).
    auto a = makeAnalysis(8, {{0, 2}, {0, 3}, {2, 3}, {3, 7}, {3, 8}, {4, 7}});
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Compare);
    view.setOverlay(ConstituencyView::Overlay::None);
    view.setData({sent, a});
    // Parser informative spans {[0,3) [3,7) [4,7) [5,7)}; induced {[0,2) [0,3) [3,7) [4,7)}.
    EXPECT_EQ(view.sharedSpans(), (Spans{{0, 3}, {3, 7}, {4, 7}}));
    EXPECT_EQ(view.missingSpans(), (Spans{{5, 7}}));
    EXPECT_EQ(view.extraSpans(), (Spans{{0, 2}}));
    // Shared nodes get a solid outline, missing ones a dashed one.
    auto *shared = dynamic_cast<QGraphicsPathItem *>(phraseWithSpan(view, {0, 3}));
    auto *missing = dynamic_cast<QGraphicsPathItem *>(phraseWithSpan(view, {5, 7}));
    auto *whole = dynamic_cast<QGraphicsPathItem *>(phraseWithSpan(view, {0, 8}));
    ASSERT_TRUE(shared && missing && whole);
    EXPECT_EQ(shared->pen().style(), Qt::SolidLine);
    EXPECT_EQ(missing->pen().style(), Qt::DashLine);
    EXPECT_NE(shared->pen().color(), missing->pen().color());
    EXPECT_NE(whole->pen().color(), shared->pen().color());
    EXPECT_NE(whole->pen().color(), missing->pen().color());
    maybeSave(view, "compare");

    // An analysis that only has a tree (no bracket list) compares the same.
    auto b = std::make_shared<Analysis>(*a);
    b->inducedTree = bracketsToTree(sent->words(), a->inducedBrackets);
    b->inducedBrackets.clear();
    view.setData({sent, b});
    EXPECT_EQ(view.sharedSpans(), (Spans{{0, 3}, {3, 7}, {4, 7}}));
    EXPECT_EQ(view.extraSpans(), (Spans{{0, 2}}));
}

TEST(ConstituencyView, SpansAndWordsNumberedAsAPersonCounts)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    auto a = makeAnalysis(8, {{0, 2}, {0, 3}, {3, 5}, {3, 7}, {4, 7}});
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Compare);
    view.setOverlay(ConstituencyView::Overlay::None);
    view.setData({sent, a});
    // The extra (induced-only) brackets [0,2) and [3,5) are labelled by their words
    // from 1, "words 1–2" and "words 4–5", in the label and the hover text.
    QStringList labels, hovers;
    for (QGraphicsItem *item : view.scene()->items())
        if (auto *text = dynamic_cast<QGraphicsSimpleTextItem *>(item)) {
            labels << text->text();
            hovers << text->toolTip();
        }
    EXPECT_TRUE(labels.contains(QStringLiteral("words 1–2"))) << labels.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("words 4–5")));
    EXPECT_FALSE(hovers.filter(QStringLiteral("extra: induced bracket words 1–2 “The black” is not a parser constituent"))
                     .isEmpty())
        << hovers.join(QLatin1Char('|')).toStdString();
    for (const QString &l : labels)
        EXPECT_FALSE(l.contains(QLatin1Char('[')) && l.contains(QLatin1Char(')'))) << l.toStdString();
    // A phrase's hover names its words the same way; a word its position from 1.
    EXPECT_TRUE(phraseWithSpan(view, {0, 3})->toolTip().startsWith(QStringLiteral("NP words 1–3 “The black cat”")))
        << phraseWithSpan(view, {0, 3})->toolTip().toStdString();
    const auto leaves = view.leafItems();
    ASSERT_FALSE(leaves.empty());
    EXPECT_TRUE(leaves.front()->toolTip().startsWith(QStringLiteral("“The” word 1")))
        << leaves.front()->toolTip().toStdString();
}

TEST(ConstituencyView, CohesionFillFollowsPriorAndLayer)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    auto a = makeAnalysis(8, {{0, 3}, {3, 8}});
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setOverlay(ConstituencyView::Overlay::Cohesion);
    ViewState st;
    st.layer = 0;
    view.setState(st);
    view.setData({sent, a});
    // Span [i, j) reads C[wordToken[i]][wordToken[j-1]] = C[i+1][j].
    for (const auto &[item, span] : view.phraseItems())
        EXPECT_EQ(fillOf(item), sequentialColor(a->constituentPrior[0].at(span.first + 1, span.second)))
            << span.first << "," << span.second;
    const QColor before = fillOf(phraseWithSpan(view, {3, 7}));
    st.layer = 1;
    view.setState(st);
    for (const auto &[item, span] : view.phraseItems())
        EXPECT_EQ(fillOf(item), sequentialColor(a->constituentPrior[1].at(span.first + 1, span.second)));
    EXPECT_NE(fillOf(phraseWithSpan(view, {3, 7})), before);
    // Hover text carries the exact value.
    const QString hover = phraseWithSpan(view, {3, 7})->toolTip();
    // The span as a person counts words (was "[3,7)", 0-based half-open).
    EXPECT_TRUE(hover.contains(QStringLiteral("VP words 4–7 cohesion at layer 2: %1")
                                   .arg(a->constituentPrior[1].at(4, 7), 0, 'f', 3)))
        << hover.toStdString();
    maybeSave(view, "cohesion");
}

TEST(ConstituencyView, FocusAttentionColoursLeavesAndSumsPhrases)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    auto a = makeAnalysis(8, {{0, 3}});
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setOverlay(ConstituencyView::Overlay::FocusAttention);
    view.setData({sent, a});
    ViewState st;
    st.layer = 1;
    st.focusWord = 2; // "cat", token 3
    view.setState(st);
    const Matrix &att = a->attention[1][0];
    const auto leaves = view.leafItems();
    ASSERT_EQ(leaves.size(), 8u);
    for (int w = 0; w < 8; ++w)
        EXPECT_EQ(fillOf(leaves[static_cast<std::size_t>(w)]), sequentialColor(att.at(3, w + 1))) << w;
    double vp = 0;
    for (int w = 3; w < 7; ++w)
        vp += att.at(3, w + 1);
    EXPECT_EQ(fillOf(phraseWithSpan(view, {3, 7})), sequentialColor(vp));
    // Another focus word recolours the leaves.
    st.focusWord = 5;
    view.setState(st);
    for (int w = 0; w < 8; ++w)
        EXPECT_EQ(fillOf(view.leafItems()[static_cast<std::size_t>(w)]), sequentialColor(att.at(6, w + 1))) << w;
    maybeSave(view, "focus");
}

TEST(ConstituencyView, ModesSwitchTheScene)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    const Spans brackets{{0, 2}, {0, 3}, {3, 7}, {3, 8}, {4, 7}};
    auto a = makeAnalysis(8, brackets);
    ConstituencyView view;
    view.setOverlay(ConstituencyView::Overlay::Cohesion);
    view.setData({sent, a});
    view.setMode(ConstituencyView::Mode::Induced);
    expectLeavesInOrder(view, sent->words());
    // The induced tree's phrases are the brackets plus the whole sentence.
    Spans expected = brackets;
    expected.push_back({0, 8});
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(sortedSpans(view), expected);
    maybeSave(view, "induced");

    view.setMode(ConstituencyView::Mode::SideBySide);
    // The primary tree is the parser's; both are in the scene.
    EXPECT_EQ(sortedSpans(view), (Spans{{0, 3}, {0, 8}, {3, 7}, {4, 7}, {5, 7}}));
    int wordBoxes = 0;
    for (QGraphicsItem *item : view.scene()->items())
        if (item->data(1).isValid())
            ++wordBoxes;
    EXPECT_EQ(wordBoxes, 16);
    maybeSave(view, "sidebyside");

    view.setMode(ConstituencyView::Mode::Parser);
    EXPECT_TRUE(view.sharedSpans().empty());
    view.setMode(ConstituencyView::Mode::Compare);
    EXPECT_EQ(view.sharedSpans().size(), 3u);
}

TEST(ConstituencyView, NoTreeShowsMessageAndRenders)
{
    app();
    Sentence s;
    s.tokens.resize(2);
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setData({std::make_shared<Sentence>(s), nullptr});
    EXPECT_TRUE(view.leafItems().empty());
    bool message = false;
    for (QGraphicsItem *item : view.scene()->items())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item))
            message = message || t->text().contains(QStringLiteral("No constituency tree"));
    EXPECT_TRUE(message);
    EXPECT_GT(view.exportSize().width(), 0);
}

TEST(ConstituencyView, RenderToPaintsOnWhite)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    ConstituencyView view;
    view.setData({sent, makeAnalysis(8, {{0, 3}, {3, 8}})});
    const QSizeF size = view.exportSize();
    EXPECT_GT(size.width(), 100);
    EXPECT_GT(size.height(), 50);
    const QImage img = render(view);
    int white = 0, ink = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QRgb p = img.pixel(x, y);
            EXPECT_EQ(qAlpha(p), 255);
            if (p == qRgb(255, 255, 255))
                ++white;
            else
                ++ink;
        }
    EXPECT_GT(ink, 500);
    EXPECT_GT(white, ink); // a white page with a drawing on it
    // The corner is background.
    EXPECT_EQ(img.pixel(0, 0), qRgb(255, 255, 255));
}

TEST(ConstituencyView, ClickOnWordEmitsWordClicked)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setData({sent, makeAnalysis(8, {})});
    view.resize(900, 400);
    view.show();
    std::vector<int> clicked;
    std::vector<QString> hovered;
    QObject::connect(&view, &ConstituencyView::wordClicked, [&](int w) { clicked.push_back(w); });
    QObject::connect(&view, &ConstituencyView::hovered, [&](const QString &t) { hovered.push_back(t); });
    const QPoint at = view.mapFromScene(view.leafItems()[4]->sceneBoundingRect().center());
    QMouseEvent move(QEvent::MouseMove, at, view.viewport()->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &move);
    ASSERT_GE(hovered.size(), 1u);
    // "on" is the fifth word: counted from 1 as a person counts (the hover said "word 4").
    EXPECT_TRUE(hovered.back().contains(QStringLiteral("“on” word 5"))) << hovered.back().toStdString();
    QMouseEvent press(QEvent::MouseButtonPress, at, view.viewport()->mapToGlobal(at), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &press);
    QMouseEvent release(QEvent::MouseButtonRelease, at, view.viewport()->mapToGlobal(at), Qt::LeftButton,
                        Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &release);
    ASSERT_EQ(clicked.size(), 1u);
    EXPECT_EQ(clicked.front(), 4);
}

TEST(ConstituencyView, HundredTwentyWordsTiming)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(syntheticTree(120)));
    ASSERT_EQ(sent->words().size(), 120u);
    const auto brackets = rightBranchingBrackets(120);
    auto a = makeAnalysis(120, brackets);
    ConstituencyView view;
    ViewState st;
    st.focusWord = 3;
    view.setState(st);
    QElapsedTimer timer;
    timer.start();
    view.setData({sent, a});
    const qint64 layoutMs = timer.elapsed();
    QImage img(view.exportSize().toSize(), QImage::Format_ARGB32);
    QPainter p(&img);
    view.renderTo(&p, QRectF(QPointF(0, 0), view.exportSize()));
    p.end();
    const qint64 totalMs = timer.elapsed();
    timer.restart();
    st.layer = 1;
    view.setState(st); // cached layout: colours only
    const qint64 relayerMs = timer.elapsed();
    std::printf("[ timing ] 120 words: layout+scene %lld ms, +render %lld ms total, layer switch %lld ms\n",
                static_cast<long long>(layoutMs), static_cast<long long>(totalMs), static_cast<long long>(relayerMs));
    expectLeavesInOrder(view, sent->words());
    maybeSave(view, "120");
}

TEST(ConstituencyView, LongTreesAreLaidOutOffTheGuiThreadWhenAsked)
{
    app();
    auto big = std::make_shared<Sentence>(sentenceFrom(syntheticTree(150)));
    auto small = std::make_shared<Sentence>(sentenceFrom(syntheticTree(12)));
    auto other = std::make_shared<Sentence>(sentenceFrom(syntheticTree(120)));
    JobRunner jobs; // the app's job system runs the layouts
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setBackgroundWork(backgroundWorkOf(jobs, JobRunner::Lane::Layout));

    // Below the threshold: synchronous as ever.
    view.setData({small, nullptr});
    EXPECT_FALSE(view.layoutPending());
    expectLeavesInOrder(view, small->words());

    // 150 words: the view says it is laying out, then draws the tree once the
    // worker's result arrives on this thread.
    bool finished = false;
    QObject::connect(&view, &ConstituencyView::layoutFinished, [&] { finished = true; });
    view.setData({big, nullptr});
    ASSERT_TRUE(view.layoutPending());
    EXPECT_TRUE(view.leafItems().empty());
    QElapsedTimer t;
    t.start();
    while (!finished && t.elapsed() < 30000)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    ASSERT_TRUE(finished);
    EXPECT_FALSE(view.layoutPending());
    expectLeavesInOrder(view, big->words());
    EXPECT_EQ(sortedSpans(view), treeSpans(*big->constituency));

    // A newer sentence wins: the first job's result is dropped.
    finished = false;
    view.setData({big, nullptr});
    view.setData({other, nullptr});
    t.restart();
    while (!finished && t.elapsed() < 30000)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    ASSERT_TRUE(finished);
    for (int i = 0; i < 20; ++i) // any late result of the dropped job
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    expectLeavesInOrder(view, other->words());

    // An export never sees the placeholder: it finishes the layout itself.
    view.setData({big, nullptr});
    ASSERT_TRUE(view.layoutPending());
    const QSizeF size = view.exportSize();
    EXPECT_FALSE(view.layoutPending());
    EXPECT_GT(size.width(), 1000.0); // 150 words side by side
    expectLeavesInOrder(view, big->words());

    // Destroyed with a job in flight: no crash, no late delivery.
    {
        ConstituencyView gone;
        gone.setBackgroundWork(backgroundWorkOf(jobs, JobRunner::Lane::Layout));
        gone.setData({big, nullptr});
        EXPECT_TRUE(gone.layoutPending());
    }
    for (int i = 0; i < 20; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
}

// ---- One F1 (eval-induction's protocol), notes, one-word constituents ----

namespace {

QStringList sceneTexts(const ConstituencyView &view)
{
    QStringList out;
    for (QGraphicsItem *item : view.scene()->items())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item))
            out << t->text();
    return out;
}

} // namespace

TEST(ConstituencyView, HeaderF1IsEvalInductionsPunctuationFreeScore)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom(kTree));
    // Without the final '.', 7 words; gold brackets (hand-listed): NP[0,3) VP[3,7) PP[4,7) NP[5,7).
    auto a = makeAnalysis(8, {{0, 8}});
    PunctuationFreeParse parse;
    parse.words = {0, 1, 2, 3, 4, 5, 6};
    parse.brackets = {{0, 3}, {1, 3}, {3, 7}, {4, 6}}; // the model run on the 7 words
    parse.rerun = true;
    a->withoutPunctuation = parse;
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Compare);
    view.setOverlay(ConstituencyView::Overlay::None);
    view.setData({sent, a});
    // 2 of 4 induced brackets are gold, 2 of 4 gold brackets induced: P = R = F1 = 50 %.
    EXPECT_EQ(view.scoreText(), QStringLiteral("Parser vs. induced brackets: P 50.00  R 50.00  F1 50.00 (%)"));
    EXPECT_EQ(view.sharedSpans(), (Spans{{0, 3}, {3, 7}}));
    EXPECT_EQ(view.missingSpans(), (Spans{{4, 7}, {5, 7}}));
    EXPECT_EQ(view.extraSpans(), (Spans{{1, 3}, {4, 6}}));
    const QStringList texts = sceneTexts(view);
    EXPECT_TRUE(texts.filter(QStringLiteral("Scored as eval-induction scores it: punctuation removed before the model reads "
                                            "the words"))
                    .size() == 1)
        << texts.join(QLatin1Char('|')).toStdString();

    // Without a punctuation-free run the model's brackets lose the '.' afterwards:
    // [3,8) becomes [3,7) and [4,8) becomes [4,7): 3 of 3 right, 3 of 4 found.
    auto b = makeAnalysis(8, {{0, 3}, {3, 8}, {4, 8}});
    view.setData({sent, b});
    EXPECT_EQ(view.scoreText(), QStringLiteral("Parser vs. induced brackets: P 100.00  R 75.00  F1 85.71 (%)"));
    EXPECT_EQ(view.missingSpans(), (Spans{{5, 7}}));
    EXPECT_TRUE(view.extraSpans().empty());
    EXPECT_FALSE(sceneTexts(view).filter(QStringLiteral("the model read the punctuation")).isEmpty());

    // Another mode: nothing compared, no score left over from Compare.
    view.setMode(ConstituencyView::Mode::Parser);
    EXPECT_EQ(view.scoreText(), QString());
    EXPECT_TRUE(view.sharedSpans().empty());
}

TEST(ConstituencyView, TheIssuesSentenceScoresWhatTheEvaluatorScores)
{
    app();
    // "Time flies like an arrow, but fruit flies like a banana." with its gold tree and
    // the right-branching tree over its 11 punctuation-free words as the induced one.
    const std::string ptb =
        "(S (S (NP (NN Time)) (VP (VBZ flies) (PP (IN like) (NP (DT an) (NN arrow))))) (, ,) (CC but) "
        "(S (NP (NN fruit) (NNS flies)) (VP (VBP like) (NP (DT a) (NN banana)))) (. .))";
    auto sent = std::make_shared<Sentence>(sentenceFrom(ptb));
    ASSERT_EQ(sent->tokens.size(), 13u);
    auto a = makeAnalysis(13, {});
    PunctuationFreeParse parse;
    parse.words = {0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11};
    for (int s = 1; s < 10; ++s)
        parse.brackets.push_back({s, 11});
    parse.rerun = true;
    a->withoutPunctuation = parse;
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Compare);
    view.setData({sent, a});
    // The evaluator's scorer on the same brackets (inductioneval.h), independent of the view.
    const InductionGold gold = inductionGold(*sent->constituency);
    ASSERT_EQ(gold.words.size(), 11u);
    const InductionScore expected = scoreBrackets({gold.brackets}, {parse.brackets}, {11});
    EXPECT_TRUE(view.scoreText().endsWith(QStringLiteral("F1 %1 (%)").arg(expected.perSentence.front(), 0, 'f', 2)))
        << view.scoreText().toStdString();
    // Hand count over the 11 words: gold {[0,5) [1,5) [2,5) [3,5) [6,8) [6,11) [8,11) [9,11)},
    // right-branching {[1,11) ... [9,11)}: shared [6,11) [8,11) [9,11) → P 3/9, R 3/8, F1 6/17.
    EXPECT_EQ(gold.brackets, (Spans{{0, 5}, {1, 5}, {2, 5}, {3, 5}, {6, 8}, {6, 11}, {8, 11}, {9, 11}}));
    EXPECT_NEAR(expected.perSentence.front(), 600.0 / 17.0, 1e-9);
}

TEST(ConstituencyView, OneWordConstituentsHaveNoCohesion)
{
    app();
    auto sent = std::make_shared<Sentence>(sentenceFrom("(S (NP (PRP It)) (VP (VBZ rains) (ADVP (RB hard))) (. .))"));
    auto a = makeAnalysis(4, {});
    // C's diagonal is 0 by construction: a word with itself.
    for (auto &c : a->constituentPrior)
        for (int i = 0; i < c.rows; ++i)
            c.at(i, i) = 0.0f;
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    view.setOverlay(ConstituencyView::Overlay::Cohesion);
    view.setData({sent, a});
    QGraphicsItem *np = phraseWithSpan(view, {0, 1});
    QGraphicsItem *vp = phraseWithSpan(view, {1, 3});
    ASSERT_TRUE(np && vp);
    EXPECT_EQ(fillOf(np), ConstituencyView::notApplicableColor());
    EXPECT_TRUE(np->toolTip().contains(QStringLiteral("one word: cohesion does not apply"))) << np->toolTip().toStdString();
    // A two-word constituent keeps its value and colour.
    EXPECT_EQ(fillOf(vp), sequentialColor(a->constituentPrior[0].at(2, 3)));
    EXPECT_TRUE(sceneTexts(view).contains(QStringLiteral("n/a: one word")));
    maybeSave(view, "cohesion-one-word");
}

TEST(ConstituencyView, NotesSayWhatTheFigureCannotShow)
{
    app();
    // Gold PTB with a trace and function tags: the note counts what is not drawn.
    // Read as the app opens a .mrg corpus (core/formats/corpus.cpp): traces and function tags stripped.
    PtbReadOptions stripped;
    stripped.stripTraces = true;
    stripped.stripFunctionTags = true;
    auto read = readPtbSentences("(S (NP-SBJ-1 (NNS Dogs)) (VP (VBP bark) (NP (-NONE- *-1)) (ADVP-TMP (RB loudly))) (. .))",
                                 "t.mrg", stripped);
    ASSERT_TRUE(read.ok()) << read.message();
    auto sent = std::make_shared<Sentence>(read->front());
    ASSERT_EQ(sent->tokens.size(), 4u);
    EXPECT_EQ(sent->metadataValue("ptb.traces_removed"), "1");
    EXPECT_EQ(sent->metadataValue("ptb.function_tags_removed"), "2");
    sent->setMetadata("constituency_source", "gold");
    auto a = makeAnalysis(4, {{0, 2}});
    ConstituencyView view;
    view.setData({sent, a});
    EXPECT_EQ(view.notes(), QStringList{QStringLiteral(
                                "Tree: gold, from the corpus file (its 1 trace(s) and 2 function tag(s) are not shown)")});

    // Predicted by a parser: said; most words unknown to the model: said.
    auto predicted = std::make_shared<Sentence>(sentenceFrom("(S (NP (NN Hunde)) (VP (VBP bellen) (ADVP (RB laut))) (. .))"));
    predicted->setMetadata("parser", "neural");
    auto b = makeAnalysis(4, {{0, 2}});
    b->unknownWords = std::vector<int>{0, 1, 2};
    view.setData({predicted, b});
    ASSERT_EQ(view.notes().size(), 2) << view.notes().join(QLatin1Char('|')).toStdString();
    EXPECT_EQ(view.notes()[0], QStringLiteral("Tree: predicted by the neural parser, not gold"));
    EXPECT_TRUE(view.notes()[1].startsWith(QStringLiteral("3 of 4 words (75%) are not in the model's vocabulary")))
        << view.notes()[1].toStdString();
    // One unknown word of four (25%) is ordinary English: no warning, but the word is named
    // (issue 47: unknown words were reported nowhere below the warning's rate).
    b->unknownWords = std::vector<int>{0};
    view.setData({predicted, b});
    ASSERT_EQ(view.notes().size(), 2);
    EXPECT_EQ(view.notes()[1], QStringLiteral("Not in the model's vocabulary (it saw its unknown token): ") +
                                   QString::fromStdString(b->words[0]))
        << view.notes()[1].toStdString();
    b->unknownWords = std::vector<int>{};
    view.setData({predicted, b});
    EXPECT_EQ(view.notes().size(), 1);

    // A model without a constituent prior (a plain Transformer): said, and no cohesion drawn.
    auto plain = makeAnalysis(4, {});
    plain->constituentPrior.clear();
    plain->architecture = "a plain Transformer"; // as the Tree Transformer with its prior off says
    view.setOverlay(ConstituencyView::Overlay::Cohesion);
    view.setData({predicted, plain});
    EXPECT_TRUE(view.notes().contains(QStringLiteral("This model has no constituent prior (a plain Transformer): no prior "
                                                     "C, no cohesion, no link probabilities and no induced tree to show")))
        << view.notes().join(QLatin1Char('|')).toStdString();
    for (const auto &[item, span] : view.phraseItems())
        EXPECT_NE(fillOf(item), sequentialColor(1.0)) << span.first << "," << span.second;
    const QStringList texts = sceneTexts(view);
    // Said once (the note above), not again under a cohesion key that has nothing to key
    // (issue 47: the header said it twice, under "Cohesion of each constituent: prior C ...").
    for (const QString &t : texts) {
        EXPECT_FALSE(t.contains(QStringLiteral("no cohesion to show"))) << t.toStdString();
        EXPECT_FALSE(t.startsWith(QStringLiteral("Cohesion of each constituent"))) << t.toStdString();
    }
    maybeSave(view, "no-prior");
}

TEST(ConstituencyView, ALongNoteWrapsToTheTreeAndKeyboardZoomKeepsTheCentre)
{
    // Issue 30: a long caption set the scene's width, so a 7-word tree filled a quarter of
    // the pane, and zooming from the keyboard did not stay centred.
    app();
    ConstituencyView view;
    view.setMode(ConstituencyView::Mode::Parser);
    auto s = std::make_shared<Sentence>(sentenceFrom(kTree));
    view.setData({s, nullptr});
    view.finishPendingLayouts();
    const double plain = view.scene()->sceneRect().width();
    s = std::make_shared<Sentence>(*s);
    s->setMetadata("parser", "file");
    s->setMetadata("parser.file", "/home/someone/projects/a-very-long-folder-name/with/many/levels/of/subfolders/"
                                  "and-a-file-name-that-goes-on-and-on-for-a-while.mrg");
    view.setData({s, nullptr});
    view.finishPendingLayouts();
    ASSERT_FALSE(view.notes().isEmpty());
    EXPECT_LE(view.scene()->sceneRect().width(), std::max(plain, 420.0 + 40.0))
        << view.notes().join(QLatin1Char('|')).toStdString();
    std::vector<std::pair<double, QString>> lines;
    for (QGraphicsItem *item : view.scene()->items())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item); t && t->brush().color() == noteColor())
            lines.emplace_back(t->sceneBoundingRect().top(), t->text());
    std::sort(lines.begin(), lines.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    QString drawn;
    for (const auto &l : lines)
        drawn += l.second;
    EXPECT_TRUE(drawn.contains(QStringLiteral("and-a-file-name-that-goes-on-and-on-for-a-while.mrg"))) << drawn.toStdString();

    // In a large pane the short tree is enlarged to use it (at most 1.6 times print size).
    view.resize(900, 500);
    view.show();
    QApplication::processEvents();
    view.setData({s, nullptr});
    view.finishPendingLayouts();
    QApplication::processEvents();
    const QRectF shown = view.mapFromScene(view.scene()->sceneRect()).boundingRect();
    EXPECT_GT(shown.width(), 0.5 * view.viewport()->width()) << shown.width() << " of " << view.viewport()->width();

    view.resize(300, 200);
    QApplication::processEvents();
    test::expectKeyboardZoomKeepsCentre(view);
}
