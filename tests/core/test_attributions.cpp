// Attributions (issue 34): Integrated Gradients and gradient x input on a function
// differentiated by hand, attention rollout and subtree sums worked out by hand, and
// the shipped Dependency-Transformer and GGSA models: completeness within 2% at 256
// steps, f(input) equal to analyze's log-probability and to score-pairs' score.
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <string>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/encodercache.h"
#include "core/encoders/encoder.h"
#include "core/eval/attribution.h"
#include "core/eval/pairtable.h"
#include "core/eval/rankcontrast.h"
#include "core/formats/ptb.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::string shipped(const char *name) { return std::string(TREELENS_SOURCE_DIR) + "/resources/models/" + name; }

// f(x) = (a . sum_t x_t)^2 over two tokens of dimension 2, x looked up from a 3-row
// table: with the zero baseline, x(alpha) = alpha e, f = alpha^2 (a.s)^2 with s = e_0 + e_1.
// IG: attribution_t = e_t . int_0^1 2 alpha (a.s) a dalpha = (a.s)(a.e_t) (the midpoint rule
// is exact on the linear integrand), summing to (a.s)^2 = f(e) - f(0).
// Gradient x input: attribution_t = e_t . 2 (a.s) a = 2 (a.s)(a.e_t).
struct HandFunction {
    torch::Tensor weight = torch::tensor({{0.0f, 0.0f}, {1.0f, 2.0f}, {-3.0f, 0.5f}});
    torch::Tensor a = torch::tensor({0.5f, -1.0f});
    torch::Tensor ids = torch::tensor({1, 2}, torch::kLong);
    torch::Tensor operator()(std::int64_t copies) const
    {
        auto x = inputEmbedding(weight, ids.unsqueeze(0).expand({copies, 2}).contiguous()); // [S, 2, 2]
        auto s = x.sum(1);                                                                   // [S, 2]
        return (s * a).sum(1).pow(2);
    }
};

/// "the film is not funny ." with its tree by hand: the→film det, film→funny nsubj,
/// is→funny cop, not→funny advmod, funny root, .→funny punct.
EncoderInput filmIsNotFunny()
{
    EncoderInput in;
    in.words = {"the", "film", "is", "not", "funny", "."};
    in.dependency = DependencyTree{{2, 5, 5, 5, 0, 5}, {"det", "nsubj", "cop", "advmod", "root", "punct"}};
    return in;
}

/// analyze's prediction of `in`, and its attributions with `o` (256 steps unless set):
/// the attributions must add up to f(input) − f(baseline) within 2%.
std::optional<std::pair<Prediction, Attribution>> analyseAndExplain(Encoder &enc, const EncoderInput &in, ExplainOptions o = {})
{
    o.steps = o.steps == ExplainOptions{}.steps ? 256 : o.steps;
    auto analysed = enc.analyze({in});
    if (!analysed || !analysed->front().prediction) {
        ADD_FAILURE() << (analysed ? "no prediction" : analysed.message());
        return std::nullopt;
    }
    auto r = enc.explain({in}, o);
    if (!r) {
        ADD_FAILURE() << r.message();
        return std::nullopt;
    }
    const Attribution &a = r->front();
    EXPECT_LT(std::abs(a.completenessGap()), 0.02 * std::abs(a.fInput - a.fBaseline))
        << "sum " << a.total() << " vs " << a.fInput - a.fBaseline;
    return std::make_pair(*analysed->front().prediction, a);
}

} // namespace

TEST(Attributions, IntegratedGradientsOnAFunctionDifferentiatedByHand)
{
    HandFunction f;
    // e_0 = (1, 2), e_1 = (-3, 0.5): a.e_0 = 0.5 - 2 = -1.5, a.e_1 = -1.5 - 0.5 = -2, a.s = -3.5.
    ExplainOptions o;
    o.steps = 7;      // any count: the integrand is linear
    o.stepBatch = 3;  // and any batching
    Attribution out;
    auto ig = integrateGradients(f, {torch::zeros({2})}, o, out);
    ASSERT_TRUE(ig) << ig.message();
    ASSERT_EQ(ig->size(), 1u);
    ASSERT_EQ(ig->front().size(), 2u);
    EXPECT_NEAR(ig->front()[0], -3.5 * -1.5, 1e-5);
    EXPECT_NEAR(ig->front()[1], -3.5 * -2.0, 1e-5);
    EXPECT_NEAR(out.fInput, 12.25, 1e-5);
    EXPECT_NEAR(out.fBaseline, 0.0, 1e-9);
    EXPECT_EQ(out.steps, 7);
    EXPECT_EQ(out.method, "ig");

    ExplainOptions g;
    g.method = ExplainOptions::Method::GradientInput;
    Attribution gout;
    auto gi = integrateGradients(f, {torch::zeros({2})}, g, gout);
    ASSERT_TRUE(gi);
    EXPECT_NEAR(gi->front()[0], 2 * -3.5 * -1.5, 1e-5);
    EXPECT_NEAR(gi->front()[1], 2 * -3.5 * -2.0, 1e-5);
    EXPECT_EQ(gout.steps, 0);

    // Another baseline b = (1, 1) for every token: x(alpha) = b + alpha (e - b); f(b) = (a.2b)^2 = 1;
    // IG_t = (e_t - b) . int 2 (a.x_sum(alpha)) a dalpha with a.x_sum(alpha) = -1 + alpha (-3.5 + 1),
    // int_0^1 2(-1 - 2.5 alpha) dalpha = -2 - 2.5 = -4.5: IG_t = -4.5 a.(e_t - b).
    // a.(e_0 - b) = a.(0, 1) = -1 -> 4.5; a.(e_1 - b) = a.(-4, -0.5) = -2 + 0.5 = -1.5 -> 6.75.
    Attribution bout;
    auto ib = integrateGradients(f, {torch::ones({2})}, o, bout);
    ASSERT_TRUE(ib);
    EXPECT_NEAR(ib->front()[0], 4.5, 1e-5);
    EXPECT_NEAR(ib->front()[1], 6.75, 1e-5);
    EXPECT_NEAR(bout.fBaseline, 1.0, 1e-5);
    EXPECT_NEAR(ib->front()[0] + ib->front()[1], bout.fInput - bout.fBaseline, 1e-5);
}

TEST(Attributions, RolloutAndSubtreesByHand)
{
    // Two tokens, one layer, one head: A = [[0.5, 0.5], [0, 1]]. Â = ½A + ½I = [[0.75, 0.25], [0, 1]]
    // (rows sum to 1). From token 0: (0.75, 0.25). Two layers of it: Â² = [[0.5625, 0.4375], [0, 1]].
    Analysis a;
    a.tokens = {"[root]", "dogs"};
    a.words = {"dogs"};
    a.wordToken = {1};
    Matrix m(2, 2);
    m.at(0, 0) = 0.5f;
    m.at(0, 1) = 0.5f;
    m.at(1, 1) = 1.0f;
    a.attention = {{m}};
    auto r = attentionRollout(a, true);
    ASSERT_TRUE(r) << r.message();
    ASSERT_EQ(r->sides.size(), 1u);
    EXPECT_NEAR(r->sides[0].token[0], 0.75, 1e-12);
    EXPECT_NEAR(r->sides[0].token[1], 0.25, 1e-12);
    EXPECT_NEAR(r->sides[0].word[0], 0.25, 1e-12);
    EXPECT_NEAR(r->sides[0].specials, 0.75, 1e-12);
    EXPECT_TRUE(std::isnan(r->fInput));
    a.attention = {{m}, {m}};
    r = attentionRollout(a, true);
    EXPECT_NEAR(r->sides[0].token[0], 0.5625, 1e-12);
    EXPECT_NEAR(r->sides[0].token[1], 0.4375, 1e-12);
    // Without a [CLS]: the mean of the words' rows (here the one word's row: (0, 1)).
    r = attentionRollout(a, false);
    EXPECT_NEAR(r->sides[0].token[1], 1.0, 1e-12);
    a.attention.clear();
    EXPECT_FALSE(attentionRollout(a, true));

    // Subtrees: "the big cat sat": the→cat, big→cat, cat→sat, sat root; (S (NP the big cat) (VP sat)).
    auto read = readPtbSentences("(S (NP (DT the) (JJ big) (NN cat)) (VP (VBD sat)))", "t");
    ASSERT_TRUE(read);
    Sentence s = read->front();
    s.dependency = DependencyTree{{3, 3, 4, 0}, {"det", "amod", "nsubj", "root"}};
    const std::vector<double> w = {0.5, -0.25, 1.0, -2.0};
    auto st = subtreeAttributions(s, w);
    ASSERT_TRUE(st) << st.message();
    // Dependency: cat's subtree {0,1,2} = 1.25; sat's {0..3} = -0.75. Constituents: S = -0.75, NP = 1.25.
    ASSERT_EQ(st->size(), 4u);
    EXPECT_EQ((*st)[0].kind, "dependency");
    EXPECT_EQ((*st)[0].head, 2);
    EXPECT_EQ((*st)[0].label, "nsubj");
    EXPECT_EQ((*st)[0].words, (std::vector<int>{0, 1, 2}));
    EXPECT_DOUBLE_EQ((*st)[0].attribution, 1.25);
    EXPECT_EQ((*st)[1].head, 3);
    EXPECT_DOUBLE_EQ((*st)[1].attribution, -0.75);
    EXPECT_EQ((*st)[2].kind, "constituent");
    EXPECT_EQ((*st)[2].label, "S");
    EXPECT_DOUBLE_EQ((*st)[2].attribution, -0.75);
    EXPECT_EQ((*st)[3].label, "NP");
    EXPECT_DOUBLE_EQ((*st)[3].attribution, 1.25);
    EXPECT_FALSE(subtreeAttributions(s, {1.0, 2.0}));

    // Issue 47: the whole sentence apart, units of the same words merged, a mean per word.
    EXPECT_FALSE((*st)[0].wholeSentence);
    EXPECT_TRUE((*st)[1].wholeSentence); // sat's subtree: all four words
    EXPECT_TRUE((*st)[2].wholeSentence); // S
    EXPECT_FALSE((*st)[3].wholeSentence);
    const RankedSubtrees ranked = rankedSubtrees(*st);
    EXPECT_TRUE(ranked.hasWholeSentence);
    EXPECT_DOUBLE_EQ(ranked.wholeSentence, -0.75);
    EXPECT_EQ(ranked.wholeNames, (std::vector<std::string>{"dependency root", "constituent S"}));
    ASSERT_EQ(ranked.subtrees.size(), 1u); // cat's subtree and NP: the same three words
    EXPECT_EQ(ranked.subtrees[0].kind, "dependency + constituent");
    EXPECT_EQ(ranked.subtrees[0].label, "nsubj / NP");
    EXPECT_DOUBLE_EQ(ranked.subtrees[0].attribution, 1.25);
    EXPECT_DOUBLE_EQ(ranked.subtrees[0].perWord(), 1.25 / 3);
    // The dock's list: the four words, then the one merged subtree (no whole sentence).
    const auto units = unitAttributions(s, w);
    ASSERT_EQ(units.size(), 5u);
    EXPECT_EQ(units[4].label, "nsubj / NP");

    // Rollout on a word-piece analysis: each word's piece count, and the rule said only
    // when a word has more than one piece. Units [CLS] dogs barked; pieces [CLS] dogs bark ##ed.
    Analysis p;
    p.tokens = {"[CLS]", "dogs", "barked"};
    p.words = {"dogs", "barked"};
    p.wordToken = {1, 2};
    p.pieces = {"[CLS]", "dogs", "bark", "##ed"};
    p.pieceToken = {0, 1, 2, 2};
    Matrix u(3, 3, 1.0f / 3);
    p.attention = {{u}};
    auto pr = attentionRollout(p, true);
    ASSERT_TRUE(pr) << pr.message();
    EXPECT_EQ(pr->sides[0].pieces, (std::vector<int>{1, 2}));
    EXPECT_NE(rolloutWordRule(pr->sides[0]).find("sum over its pieces"), std::string::npos);
    p.pieces = {"[CLS]", "dogs", "barked"};
    p.pieceToken = {0, 1, 2};
    pr = attentionRollout(p, true);
    EXPECT_EQ(pr->sides[0].pieces, (std::vector<int>{1, 1}));
    EXPECT_EQ(rolloutWordRule(pr->sides[0]), "");
}

TEST(Attributions, DependencyTransformerPolarityIsComplete)
{
    auto enc = loadEncoder(shipped("dependency-transformer-en-polarity.safetensors"));
    ASSERT_TRUE(enc) << enc.message();
    const EncoderInput in = filmIsNotFunny();
    auto pa = analyseAndExplain(**enc, in);
    ASSERT_TRUE(pa);
    const auto &[p, a] = *pa;
    EXPECT_EQ(a.target, p.label) << "the predicted label by default";
    const auto k = static_cast<std::size_t>(std::find(p.labels.begin(), p.labels.end(), p.label) - p.labels.begin());
    EXPECT_NEAR(a.fInput, std::log(p.probabilities[k]), 1e-4) << "f(input) is analyze's log-probability";
    ExplainOptions o;
    o.steps = 256;
    ASSERT_EQ(a.sides.size(), 1u);
    EXPECT_EQ(a.sides[0].tokens.front(), "[root]");
    EXPECT_EQ(a.sides[0].word.size(), 6u);
    // Another target; a label the model lacks is refused naming the labels.
    o.target = p.labels[1 - k];
    auto other = (*enc)->explain({in}, o);
    ASSERT_TRUE(other);
    EXPECT_NEAR(other->front().fInput, std::log(p.probabilities[1 - k]), 1e-4);
    o.target = "neutral";
    auto bad = (*enc)->explain({in}, o);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.message().find("is not a label of the model"), std::string::npos) << bad.message();
    // Gradient x input and the pad baseline run too.
    o.target.clear();
    o.method = ExplainOptions::Method::GradientInput;
    o.baseline = "pad";
    auto gi = (*enc)->explain({in}, o);
    ASSERT_TRUE(gi) << gi.message();
    EXPECT_EQ(gi->front().method, "grad-input");
    o.baseline = "no-such-token-xyz";
    EXPECT_FALSE((*enc)->explain({in}, o));
}

TEST(Attributions, GgsaPairScoreIsComplete)
{
    auto enc = loadEncoder(shipped("ggsa-en-wikiqa.safetensors"));
    ASSERT_TRUE(enc) << enc.message();
    EncoderInput in;
    in.words = {"who", "wrote", "hamlet", "?"};
    in.secondWords = {"hamlet", "is", "a", "play", "by", "shakespeare", "."};
    auto analysed = (*enc)->analyze({in});
    ASSERT_TRUE(analysed) << analysed.message();
    ExplainOptions o;
    o.steps = 256;
    auto r = (*enc)->explain({in}, o);
    ASSERT_TRUE(r) << r.message();
    const Attribution &a = r->front();
    EXPECT_EQ(a.target, "score");
    EXPECT_NEAR(a.fInput, analysed->front().prediction->score, 1e-5) << "f(input) is the pair's score";
    EXPECT_LT(std::abs(a.completenessGap()), 0.02 * std::abs(a.fInput - a.fBaseline))
        << "sum " << a.total() << " vs " << a.fInput - a.fBaseline;
    ASSERT_EQ(a.sides.size(), 2u);
    EXPECT_EQ(a.sides[1].word.size(), 7u);
    // A single sentence is refused: it reads pairs.
    EncoderInput single;
    single.words = in.words;
    EXPECT_FALSE((*enc)->explain({single}, o));
}

// A family that looks the same words up twice (the Tree-LSTM's sentence vector and its
// leaves) gets one leaf: f = (a.s1)(a.s2) with both lookups the same embeddings is the
// hand function above, (a.s)^2 alpha^2, and its attributions are the same.
TEST(Attributions, TwoLookupsOfOneSideShareOneLeaf)
{
    const HandFunction h;
    auto twice = [&](std::int64_t copies) {
        const auto ids = h.ids.unsqueeze(0).expand({copies, 2}).contiguous();
        const auto x1 = inputEmbedding(h.weight, ids), x2 = inputEmbedding(h.weight, ids);
        return (x1.sum(1) * h.a).sum(1) * (x2.sum(1) * h.a).sum(1);
    };
    ExplainOptions o;
    o.steps = 3;
    Attribution once, both;
    auto r1 = integrateGradients(h, {torch::zeros({2})}, o, once);
    auto r2 = integrateGradients(twice, {torch::zeros({2})}, o, both);
    ASSERT_TRUE(r1 && r2);
    // (a.s) = 0.5*(1-3) - (2+0.5) = -3.5; a.e_0 = 0.5 - 2 = -1.5, a.e_1 = -1.5 - 0.5 = -2.
    EXPECT_NEAR((*r2)[0][0], -3.5 * -1.5, 1e-5);
    EXPECT_NEAR((*r2)[0][1], -3.5 * -2.0, 1e-5);
    EXPECT_NEAR((*r2)[0][0], (*r1)[0][0], 1e-6);
    EXPECT_TRUE(both.warning.empty());
}

// The Tree Aggregation Transformer: one LM sequence <s> q </s></s> a </s>; f(input) is
// score-pairs' score (p(relevant)), the attributions of both sentences and their separators
// sum to f(input) - f(baseline) within 2% at 256 steps.
TEST(Attributions, TreeAggregationTransformerPairScoreIsComplete)
{
    auto enc = loadEncoder(shipped("tat-en-wikiqa.safetensors"));
    ASSERT_TRUE(enc) << enc.message();
    auto q = readPtbSentences("(ROOT (SBARQ (WHNP (WP who)) (SQ (VP (VBD wrote) (NP (NNP hamlet)))) (. ?)))", "q");
    auto a = readPtbSentences("(ROOT (S (NP (NNP hamlet)) (VP (VBZ is) (NP (NP (DT a) (NN play)) (PP (IN by) (NP (NNP shakespeare))))) (. .)))", "a");
    ASSERT_TRUE(q && a);
    EncoderInput in;
    in.words = q->front().words();
    in.constituency = q->front().constituency;
    in.secondWords = a->front().words();
    in.secondConstituency = a->front().constituency;
    auto analysed = (*enc)->analyze({in});
    ASSERT_TRUE(analysed) << analysed.message();
    ExplainOptions o;
    o.steps = 256;
    auto r = (*enc)->explain({in}, o);
    ASSERT_TRUE(r) << r.message();
    const Attribution &at = r->front();
    EXPECT_EQ(at.target, "score");
    EXPECT_NEAR(at.fInput, analysed->front().prediction->score, 1e-5) << "f(input) is the pair's score";
    EXPECT_LT(std::abs(at.completenessGap()), 0.02 * std::abs(at.fInput - at.fBaseline))
        << "sum " << at.total() << " vs " << at.fInput - at.fBaseline;
    ASSERT_EQ(at.sides.size(), 2u);
    EXPECT_EQ(at.sides[0].tokens.front(), "<s>");
    EXPECT_EQ(at.sides[1].tokens.front(), "</s>");
    EXPECT_EQ(at.sides[0].word.size(), 4u);
    EXPECT_EQ(at.sides[1].word.size(), 7u);
    EXPECT_NEAR(at.sides[0].specials, at.sides[0].token.front() + at.sides[0].token.back(), 1e-12);
}

// The recursive models: the DTT + edges polarity classifier (f = log p(predicted), whose
// zero baseline is a jump of f: it says so, and its default baseline is the unknown word)
// and the cross-query Tree-LSTM on an RTE pair (both sentences' words feed the other's
// query and their own leaves).
TEST(Attributions, RecursiveModelsAreComplete)
{
    {
        auto enc = loadEncoder(shipped("dtt-edges-en-polarity.safetensors"));
        ASSERT_TRUE(enc) << enc.message();
        const EncoderInput in = filmIsNotFunny();
        auto pa = analyseAndExplain(**enc, in);
        ASSERT_TRUE(pa);
        const auto &[p, a] = *pa;
        EXPECT_EQ(a.target, p.label);
        EXPECT_NEAR(a.fInput, std::log(p.score), 1e-4) << "f(input) is analyze's log-probability";
        EXPECT_EQ(a.baseline, "<unk>");
        EXPECT_TRUE(a.warning.empty()) << a.warning;
        ExplainOptions o;
        o.steps = 256;
        o.baseline = "zero";
        auto z = (*enc)->explain({in}, o);
        ASSERT_TRUE(z) << z.message();
        EXPECT_NE(z->front().warning.find("f jumps at the baseline"), std::string::npos) << z->front().warning;
    }
    {
        auto enc = loadEncoder(shipped("tree-lstm-attention-en-rte.safetensors"));
        ASSERT_TRUE(enc) << enc.message();
        auto first = readPtbSentences("(ROOT (S (NP (DT a) (NN man)) (VP (VBZ is) (VP (VBG playing) (NP (DT a) (NN guitar)))) (. .)))", "1");
        auto second = readPtbSentences("(ROOT (S (NP (DT a) (NN person)) (VP (VBZ plays) (NP (NN music))) (. .)))", "2");
        ASSERT_TRUE(first && second);
        EncoderInput in;
        in.words = first->front().words();
        in.constituency = first->front().constituency;
        in.dependency = DependencyTree{{2, 4, 4, 0, 6, 4, 4}, {"det", "nsubj", "aux", "root", "det", "obj", "punct"}};
        in.secondWords = second->front().words();
        in.secondConstituency = second->front().constituency;
        in.secondDependency = DependencyTree{{2, 3, 0, 3, 3}, {"det", "nsubj", "root", "obj", "punct"}};
        auto pa = analyseAndExplain(**enc, in);
        ASSERT_TRUE(pa);
        const auto &[p, a] = *pa;
        EXPECT_EQ(a.target, p.label);
        EXPECT_NEAR(a.fInput, std::log(p.score), 1e-4);
        ASSERT_EQ(a.sides.size(), 2u);
        EXPECT_EQ(a.sides[1].word.size(), 5u);
        double secondMass = 0.0;
        for (double v : a.sides[1].word)
            secondMass += std::abs(v);
        EXPECT_GT(secondMass, 0.0) << "the second sentence's words reach the prediction";
    }
}

TEST(Attributions, AFamilyWithoutAPredictionSaysSo)
{
    auto enc = loadEncoder(defaultModelPath());
    ASSERT_TRUE(enc) << enc.message();
    EncoderInput in;
    in.words = {"dogs", "bark"};
    auto r = (*enc)->explain({in}, ExplainOptions{});
    ASSERT_FALSE(r);
    EXPECT_NE(r.message().find("makes no prediction to explain"), std::string::npos) << r.message();
}

// The app reaches encoders through the cache, whose wrapper forwards explain too.
TEST(Attributions, TheEncoderCacheForwardsExplain)
{
    EncoderCache cache;
    auto enc = cache.get(shipped("dependency-transformer-en-polarity.safetensors"));
    ASSERT_TRUE(enc) << enc.message();
    EncoderInput in;
    in.words = {"a", "fine", "film"};
    in.dependency = DependencyTree{{3, 3, 0}, {"det", "amod", "root"}};
    ExplainOptions o;
    o.steps = 8;
    auto r = (*enc)->explain({in}, o);
    ASSERT_TRUE(r) << r.message();
    EXPECT_EQ(r->front().sides.front().word.size(), 3u);
}

// The rank contrast's parts add up to the score difference, worked by hand: top pair
// f = 0.9, f(baseline) = 0.5, question tokens (0.1, 0.2 | special 0.05), candidate 0.1
// (sum 0.45, gap 0.05); other pair f = 0.4, f(baseline) = 0.45, question (0.3, -0.2 |
// 0.0), candidate -0.2 (sum -0.1, gap -0.05).
TEST(Attributions, RankContrastSplitsTheScoreDifferenceByHand)
{
    auto pair = [](double f, double fb, std::vector<double> q, double qs, std::vector<double> c) {
        Attribution a;
        a.method = "ig";
        a.quantity = "pair score";
        a.fInput = f;
        a.fBaseline = fb;
        SideAttribution question, candidate;
        question.words = {"who", "wrote"};
        question.word = q;
        question.token = {qs, q[0], q[1]};
        question.specials = qs;
        candidate.words = {"x"};
        candidate.word = c;
        candidate.token = c;
        a.sides = {question, candidate};
        return a;
    };
    const Attribution top = pair(0.9, 0.5, {0.1, 0.2}, 0.05, {0.1}), other = pair(0.4, 0.45, {0.3, -0.2}, 0.0, {-0.2});
    auto c = rankContrast(top, other);
    ASSERT_TRUE(c) << c.message();
    EXPECT_NEAR(c->scoreDifference(), 0.5, 1e-12);
    EXPECT_NEAR(c->baselineDifference, 0.05, 1e-12);
    EXPECT_NEAR(c->questionDifference(), 0.35 - 0.1, 1e-12);
    EXPECT_NEAR(c->candidateDifference(), 0.3, 1e-12);
    EXPECT_NEAR(c->gapTop, 0.05, 1e-12);
    EXPECT_NEAR(c->gapOther, -0.05, 1e-12);
    // 0.05 + 0.25 + 0.3 - 0.1 = 0.5.
    EXPECT_NEAR(c->sumOfParts(), c->scoreDifference(), 1e-12);
    ASSERT_EQ(c->questionWords.size(), 2u);
    EXPECT_NEAR(c->questionWords[0], -0.2, 1e-12);
    EXPECT_NEAR(c->questionWords[1], 0.4, 1e-12);
    // Another question, another quantity, one side, rollout: refused with the reason.
    Attribution q2 = other;
    q2.sides[0].words = {"where", "is"};
    EXPECT_FALSE(rankContrast(top, q2));
    Attribution k2 = other;
    k2.quantity = "log p(YES)";
    EXPECT_FALSE(rankContrast(top, k2));
    Attribution one = other;
    one.sides.pop_back();
    EXPECT_FALSE(rankContrast(top, one));
    Attribution roll = other;
    roll.fInput = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(rankContrast(top, roll));
}
