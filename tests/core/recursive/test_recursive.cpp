// The recursive tree models of seed 004 against independent references: the
// fixture README's derived node tables and tensors, hand-checked trees, and the
// node-by-node recursion the level batching must equal; deep, wide and bad input.
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/encoders/encoder.h"
#include "core/encoders/fixture.h"
#include "core/encoders/recursive/recnet.h"
#include "core/encoders/recursive/recursive.h"
#include "core/formats/ptb.h"
#include "core/model/modelfile.h"
#include "testutil.h"

using namespace treelens;
using nlohmann::json;

namespace {

const char *kFixture = "fixtures/recursive-tree-transformer-reference";
constexpr RecModel kModels[] = {RecModel::Ctt, RecModel::Dtt, RecModel::Dtte, RecModel::TreeLstmChildSum, RecModel::TreeLstmBinary};

ConstituencyTree ptbTree(const std::string &text)
{
    auto trees = readPtb(text, "test");
    EXPECT_TRUE(trees && trees->size() == 1) << text;
    return trees->front();
}

/// "(NP 0 1) ..." style summary: label, span, children (w3 = word 3, n2 = node 2), height.
std::string describe(const RecTree &t)
{
    std::string s;
    for (const auto &n : t.nodes) {
        s += n.label + "[" + std::to_string(n.start) + "," + std::to_string(n.end) + ")h" + std::to_string(n.height) + ":";
        for (const auto &c : n.children)
            s += (c.node ? " n" : " w") + std::to_string(c.index);
        s += "; ";
    }
    return s;
}

std::vector<std::string> relations()
{
    return {"root", "nsubj", "obj", "det", "amod", "case", "nmod", "punct", "advmod", "aux"};
}

RecConfig smallConfig(RecModel m)
{
    RecConfig c;
    c.model = m;
    c.vocab = 50;
    c.dModel = 16;
    c.branches = 4;
    c.dK = 4;
    c.dFF = 20;
    c.memDim = 12;
    c.headHidden = 10;
    c.relations = relations();
    return c;
}

/// A random dependency tree over n tokens (heads drawn among the other tokens, acyclic by construction).
DependencyTree randomDependency(int n, std::mt19937 &rng)
{
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        order[static_cast<std::size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    DependencyTree t;
    t.heads.assign(static_cast<std::size_t>(n), 0);
    t.deprels.assign(static_cast<std::size_t>(n), "root");
    const auto rels = relations();
    for (int k = 1; k < n; ++k) {
        const int tok = order[static_cast<std::size_t>(k)];
        const int head = order[static_cast<std::size_t>(std::uniform_int_distribution<int>(0, k - 1)(rng))];
        t.heads[static_cast<std::size_t>(tok)] = head + 1;
        t.deprels[static_cast<std::size_t>(tok)] = rels[1 + static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 8)(rng))];
    }
    return t;
}

/// A random bracketing of n words as PTB text (every word under a preterminal).
std::string randomPtb(int lo, int hi, std::mt19937 &rng)
{
    if (hi - lo == 1)
        return "(NN w" + std::to_string(lo) + ")";
    std::string s = "(X";
    int start = lo;
    while (start < hi) {
        const int len = std::uniform_int_distribution<int>(1, std::max(1, (hi - start + 1) / 2))(rng);
        s += " " + randomPtb(start, std::min(hi, start + len), rng);
        start += len;
    }
    return s + ")";
}

std::vector<std::int64_t> randomIds(int n, std::mt19937 &rng)
{
    std::vector<std::int64_t> ids;
    for (int i = 0; i < n; ++i)
        ids.push_back(std::uniform_int_distribution<int>(1, 49)(rng));
    return ids;
}

double maxDiff(const torch::Tensor &a, const torch::Tensor &b)
{
    EXPECT_EQ(a.sizes(), b.sizes());
    return a.numel() == 0 ? 0.0 : (a - b).abs().max().item<double>();
}

std::string tempPath(const std::string &name)
{
    return (std::filesystem::temp_directory_path() / ("treelens-rec-" + std::to_string(::getpid()) + "-" + name)).string();
}

} // namespace

TEST(RecTree, ConstituencyTreesAreCollapsedAndLeftFactoredAsTheReadmeSays)
{
    // Hand-checked: preterminals become words, the ROOT wrapper goes, post-order ids.
    const auto t = ptbTree("(ROOT (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)))");
    auto nary = constituencyRecTree(t, false);
    ASSERT_TRUE(nary) << nary.message();
    EXPECT_EQ(describe(*nary), "NP[0,2)h1: w0 w1; NP[4,6)h1: w4 w5; PP[3,6)h2: w3 n1; VP[2,6)h3: w2 n2; S[0,7)h4: n0 n3 w6; ");
    // Left-factored: S(NP, VP, .) becomes S(@S(NP, VP), .); the dummy comes right before S.
    auto bin = constituencyRecTree(t, true);
    ASSERT_TRUE(bin) << bin.message();
    EXPECT_EQ(describe(*bin), "NP[0,2)h1: w0 w1; NP[4,6)h1: w4 w5; PP[3,6)h2: w3 n1; VP[2,6)h3: w2 n2; @S[0,6)h4: n0 n3; S[0,7)h5: n4 w6; ");
    EXPECT_TRUE(bin->nodes[4].dummy);
    EXPECT_EQ(bin->nodes[4].parent, 5);
    // Four children: X(a, b, c, d) -> X(@X(@X(a, b), c), d).
    auto four = constituencyRecTree(ptbTree("(X (A a) (B b) (C c) (D d))"), true);
    ASSERT_TRUE(four);
    EXPECT_EQ(describe(*four), "@X[0,2)h1: w0 w1; @X[0,3)h2: n0 w2; X[0,4)h3: n1 w3; ");
    // Unary chains: a phrase over a phrase collapses to "UPPER+LOWER", a phrase over one word to the word.
    auto unary = constituencyRecTree(ptbTree("(ROOT (S (NP (NP (DT a) (NN dog))) (VP (VBZ barks))))"), false);
    ASSERT_TRUE(unary) << unary.message();
    EXPECT_EQ(describe(*unary), "NP+NP[0,2)h1: w0 w1; S[0,3)h2: n0 w2; ");
    auto word = constituencyRecTree(ptbTree("(ROOT (S (VP (VB Go))))"), false);
    ASSERT_TRUE(word);
    EXPECT_TRUE(word->nodes.empty());
    EXPECT_EQ(word->rootWord, 0);
    // Traces are skipped.
    auto trace = constituencyRecTree(ptbTree("(S (NP (-NONE- *T*-1)) (NP (PRP it)) (VP (VBZ is)))"), false);
    ASSERT_TRUE(trace) << trace.message();
    EXPECT_EQ(describe(*trace), "S[0,2)h1: w0 w1; ");
}

TEST(RecTree, DependencyTreesArePostOrderedWithTheHeadWordFirst)
{
    // "The old man is playing": man <- The, old; playing <- man, is (root).
    DependencyTree d{{3, 3, 5, 5, 0}, {"det", "amod", "nsubj", "aux", "root"}};
    auto t = dependencyRecTree(d, relations());
    ASSERT_TRUE(t) << t.message();
    ASSERT_EQ(t->nodes.size(), 2u);
    EXPECT_EQ(t->nodes[0].headWord, 2);
    EXPECT_EQ(describe(*t), "nsubj[0,3)h1: w0 w1; root[0,5)h2: n0 w3; "); // a node is labelled with its head word's relation
    EXPECT_EQ(t->nodes[0].relations, (std::vector<int>{3, 4}));
    EXPECT_EQ(t->nodes[1].relations, (std::vector<int>{1, 9}));
    EXPECT_EQ(t->tokenNode, (std::vector<int>{-1, -1, 0, -1, 1}));
    // Subtypes fall back to their universal relation; an unknown label is named with its token.
    DependencyTree sub{{2, 0}, {"nmod:poss", "root"}};
    auto ts = dependencyRecTree(sub, relations());
    ASSERT_TRUE(ts) << ts.message();
    EXPECT_EQ(ts->nodes[0].relations, (std::vector<int>{6}));
    DependencyTree unknown{{2, 0}, {"reparandum", "root"}};
    auto tu = dependencyRecTree(unknown, relations());
    ASSERT_FALSE(tu);
    EXPECT_NE(tu.message().find("token 1: relation 'reparandum'"), std::string::npos) << tu.message();
    // Cycles and several roots are refused.
    auto cyc = dependencyRecTree(DependencyTree{{2, 3, 1, 0}, {"a", "b", "c", "root"}}, {});
    ASSERT_FALSE(cyc);
    EXPECT_NE(cyc.message().find("cycle"), std::string::npos) << cyc.message();
    EXPECT_FALSE(dependencyRecTree(DependencyTree{{0, 0}, {"root", "root"}}, {}));
}

TEST(RecTree, NodeTablesAreTheFixturesDerivedTables)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/inputs.json");
    std::ifstream in(test::sharedPath(kFixture) + "/inputs.json");
    const json inputs = json::parse(in);
    std::ifstream cin(test::sharedPath(kFixture) + "/config.json");
    const auto rels = json::parse(cin).at("dependency_relations").get<std::vector<std::string>>();
    int checked = 0;
    for (const auto &pair : inputs.at("pairs"))
        for (const char *s : {"a", "b"}) {
            const json &side = pair.at(s);
            const auto t = ptbTree(side.at("ptb"));
            for (bool binary : {false, true}) {
                auto rt = constituencyRecTree(t, binary);
                ASSERT_TRUE(rt) << rt.message();
                const json &table = side.at(binary ? "binary_nodes" : "nary_nodes");
                ASSERT_EQ(rt->nodes.size(), table.size());
                for (std::size_t v = 0; v < table.size(); ++v) {
                    EXPECT_EQ(rt->nodes[v].label, table[v]["label"]);
                    EXPECT_EQ(rt->nodes[v].dummy, table[v]["dummy"].get<bool>());
                    EXPECT_EQ(rt->nodes[v].height, table[v]["height"].get<int>());
                    EXPECT_EQ(rt->nodes[v].parent, table[v]["parent"].get<int>());
                    EXPECT_EQ(rt->nodes[v].start, table[v]["span"][0].get<int>());
                    ++checked;
                }
            }
            DependencyTree d{side.at("heads").get<std::vector<int>>(), side.at("rels").get<std::vector<std::string>>()};
            auto dt = dependencyRecTree(d, rels);
            ASSERT_TRUE(dt) << dt.message();
            const auto heights = side.at("dep_height").get<std::vector<int>>();
            const auto spans = side.at("dep_spans").get<std::vector<std::vector<int>>>();
            for (const auto &n : dt->nodes) {
                EXPECT_EQ(n.height, heights[static_cast<std::size_t>(n.headWord)]);
                EXPECT_EQ(n.start, spans[static_cast<std::size_t>(n.headWord)][0]);
                EXPECT_EQ(n.end, spans[static_cast<std::size_t>(n.headWord)][1]);
                ++checked;
            }
        }
    EXPECT_GT(checked, 40);
}

TEST(RecursiveFixture, ReproducesEveryTensorOfThePublicFixture)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/expected.json");
    auto req = readFixtureDirectory(test::sharedPath(kFixture));
    ASSERT_TRUE(req) << req.message();
    auto fam = fixtureFamily(*req);
    ASSERT_TRUE(fam) << fam.message();
    auto computed = (*fam)->computeFixture(*req);
    ASSERT_TRUE(computed) << computed.message();
    std::ifstream in(test::sharedPath(kFixture) + "/expected.json");
    const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto report = compareWithExpected(*computed, expected, "expected.json", fixtureTolerance(*req));
    ASSERT_TRUE(report) << report.message();
    EXPECT_EQ(report->checks.size(), 547u);
    for (const auto &c : report->checks)
        EXPECT_TRUE(c.ok) << c.name << " " << c.problem << " " << c.maxAbsDiff;
    EXPECT_TRUE(report->passed());
}

TEST(RecursiveNet, LevelBatchingEqualsNodeByNodeEvaluation)
{
    std::mt19937 rng(7);
    std::vector<rec::Sentence> dep, con, bin;
    for (int i = 0; i < 12; ++i) {
        const int n = 1 + static_cast<int>(rng() % 25);
        auto d = dependencyRecTree(randomDependency(n, rng), relations());
        ASSERT_TRUE(d) << d.message();
        const auto ids = randomIds(n, rng);
        dep.push_back({ids, *d});
        const auto t = ptbTree(randomPtb(0, n, rng));
        auto c = constituencyRecTree(t, false);
        auto b = constituencyRecTree(t, true);
        ASSERT_TRUE(c && b) << c.message() << b.message();
        con.push_back({ids, *c});
        bin.push_back({ids, *b});
    }
    torch::NoGradGuard ng;
    for (RecModel m : kModels) {
        const RecConfig c = smallConfig(m);
        auto net = rec::Net::fromTensors(c, rec::Net::randomTensors(c, 3), torch::Device(torch::kCPU), "test");
        ASSERT_TRUE(net) << net.message();
        const auto &pool = c.dependency() ? dep : (m == RecModel::TreeLstmBinary ? bin : con);
        std::vector<const rec::Sentence *> left, right;
        for (std::size_t i = 0; i < pool.size(); i += 2) {
            left.push_back(&pool[i]);
            right.push_back(&pool[i + 1]);
        }
        for (const char *query : {"cross", "self"}) {
            if (!c.treeLstm() && std::string(query) == "self")
                continue;
            const auto batched = net->forwardPairs(left, right, true, rec::Order::LevelBatched, query);
            const auto single = net->forwardPairs(left, right, true, rec::Order::NodeByNode, query);
            const std::string what = std::string(recModelName(m)) + " " + query;
            EXPECT_LT(maxDiff(batched.head.logits, single.head.logits), 1e-5) << what;
            for (const auto *side : {&batched.a, &batched.b}) {
                const auto &other = side == &batched.a ? single.a : single.b;
                EXPECT_LT(maxDiff(side->roots, other.roots), 1e-5) << what;
                for (std::size_t s = 0; s < side->sentences.size(); ++s) {
                    EXPECT_LT(maxDiff(side->sentences[s].states, other.sentences[s].states), 1e-5) << what;
                    for (std::size_t v = 0; v < side->sentences[s].nodes.size(); ++v) {
                        const auto &x = side->sentences[s].nodes[v], &y = other.sentences[s].nodes[v];
                        EXPECT_LT(maxDiff(x.attn, y.attn), 1e-5) << what << " node " << v;
                        // Every attention row over the real members sums to 1: padded keys got exactly 0.
                        EXPECT_LT((x.attn.sum(-1) - 1).abs().max().item<double>(), 1e-5) << what;
                        if (m == RecModel::Dtte) {
                            EXPECT_LT(maxDiff(x.edgeFwdAttn, y.edgeFwdAttn), 1e-5) << what;
                        }
                        if (c.treeLstm()) {
                            EXPECT_LT(maxDiff(x.gates, y.gates), 1e-5) << what;
                        }
                    }
                }
            }
        }
    }
}

TEST(RecursiveNet, TheAblationCompositionsBatchLikeTheirRecursion)
{
    // Table 8.3's single-head and multi-head compositions and Table 8.2's positional encoding.
    std::mt19937 rng(11);
    std::vector<rec::Sentence> dep, con;
    for (int i = 0; i < 8; ++i) {
        const int n = 2 + static_cast<int>(rng() % 20);
        auto d = dependencyRecTree(randomDependency(n, rng), relations());
        auto c = constituencyRecTree(ptbTree(randomPtb(0, n, rng)), false);
        ASSERT_TRUE(d && c);
        dep.push_back({randomIds(n, rng), *d});
        con.push_back({randomIds(n, rng), *c});
    }
    torch::NoGradGuard ng;
    for (RecModel m : {RecModel::Ctt, RecModel::Dtte}) {
        for (const char *variant : {"multi-head", "single-head", "positional"}) {
            RecConfig c = smallConfig(m);
            if (std::string(variant) == "positional") {
                c.positional = true;
            } else {
                c.composition = variant;
                if (c.composition == "single-head") {
                    c.branches = 1;
                    c.dK = c.dModel;
                }
            }
            auto net = rec::Net::fromTensors(c, rec::Net::randomTensors(c, 4), torch::Device(torch::kCPU), "test");
            ASSERT_TRUE(net) << net.message();
            const auto &pool = c.dependency() ? dep : con;
            std::vector<const rec::Sentence *> left, right;
            for (std::size_t i = 0; i < pool.size(); i += 2) {
                left.push_back(&pool[i]);
                right.push_back(&pool[i + 1]);
            }
            const auto batched = net->forwardPairs(left, right, true, rec::Order::LevelBatched);
            const auto single = net->forwardPairs(left, right, true, rec::Order::NodeByNode);
            EXPECT_LT(maxDiff(batched.head.logits, single.head.logits), 1e-5) << recModelName(m) << " " << variant;
            EXPECT_LT(maxDiff(batched.a.roots, single.a.roots), 1e-5) << recModelName(m) << " " << variant;
        }
    }
    // Positional encoding changes the result; the multi-branch tensors are absent in the other compositions.
    RecConfig mh = smallConfig(RecModel::Ctt);
    mh.composition = "multi-head";
    EXPECT_EQ(rec::Net::shapes(mh).count("ctt.mb.kappa"), 0u);
    RecConfig bad = smallConfig(RecModel::Ctt);
    bad.composition = "multi-head";
    bad.dK = 5;
    EXPECT_FALSE(bad.validate());
}

TEST(RecursiveNet, ThousandLevelTreesAndTwoHundredChildrenRunWithoutRecursion)
{
    torch::NoGradGuard ng;
    const int n = 1001;
    // A dependency chain: token i heads token i + 1 (1,000 levels).
    DependencyTree chain;
    for (int i = 0; i < n; ++i) {
        chain.heads.push_back(i); // token 1 has head 0 (root), token i+1 has head i
        chain.deprels.push_back(i == 0 ? "root" : "nmod");
    }
    auto dt = dependencyRecTree(chain, relations());
    ASSERT_TRUE(dt) << dt.message();
    EXPECT_EQ(dt->height(), 1000);
    // A right-branching binary constituency tree over 1,001 words (1,000 levels).
    std::string ptb;
    for (int i = 0; i < n - 1; ++i)
        ptb += "(X (NN w" + std::to_string(i) + ") ";
    ptb += "(NN w" + std::to_string(n - 1) + ")" + std::string(static_cast<std::size_t>(n - 1), ')');
    auto ct = constituencyRecTree(ptbTree(ptb), true);
    ASSERT_TRUE(ct) << ct.message();
    EXPECT_EQ(ct->height(), 1000);
    // A head with 200 dependents and a flat phrase of 200 words.
    DependencyTree wide{{0}, {"root"}};
    for (int i = 1; i <= 200; ++i) {
        wide.heads.push_back(1);
        wide.deprels.push_back("amod");
    }
    auto wt = dependencyRecTree(wide, relations());
    ASSERT_TRUE(wt);
    EXPECT_EQ(wt->nodes.front().children.size(), 200u);
    std::string flat = "(X";
    for (int i = 0; i < 200; ++i)
        flat += " (NN w" + std::to_string(i) + ")";
    auto ft = constituencyRecTree(ptbTree(flat + ")"), false);
    ASSERT_TRUE(ft);
    std::mt19937 rng(1);
    for (RecModel m : kModels) {
        const RecConfig c = smallConfig(m);
        auto net = rec::Net::fromTensors(c, rec::Net::randomTensors(c, 5), torch::Device(torch::kCPU), "test");
        ASSERT_TRUE(net);
        rec::Sentence deep{randomIds(n, rng), c.dependency() ? *dt : *ct};
        rec::Sentence broad{randomIds(c.dependency() ? 201 : 200, rng), c.dependency() ? *wt : *ft};
        if (m == RecModel::TreeLstmBinary) {
            auto fb = constituencyRecTree(ptbTree(flat + ")"), true);
            ASSERT_TRUE(fb);
            broad.tree = *fb;
        }
        const auto out = net->forwardPairs({&deep}, {&broad}, false);
        EXPECT_TRUE(torch::isfinite(out.head.logits).all().item<bool>()) << recModelName(m);
        EXPECT_TRUE(torch::isfinite(out.a.roots).all().item<bool>()) << recModelName(m);
        // A one-word sentence has no internal node: its root is the word itself (as a leaf).
        auto oneTree = c.dependency() ? dependencyRecTree(DependencyTree{{0}, {"root"}}, relations())
                                      : constituencyRecTree(ptbTree("(S (NN word))"), m == RecModel::TreeLstmBinary);
        ASSERT_TRUE(oneTree) << oneTree.message();
        EXPECT_TRUE(oneTree->nodes.empty());
        rec::Sentence one{{7}, *oneTree};
        const auto single = net->forwardPairs({&one}, {&broad}, true);
        EXPECT_TRUE(torch::isfinite(single.head.logits).all().item<bool>()) << recModelName(m);
        if (!c.treeLstm()) {
            EXPECT_LT(maxDiff(single.a.roots[0].narrow(0, 0, c.dModel), net->parameters().at("embed.word.weight")[7]), 1e-6);
        }
    }
    // Past the limits: a clear error, not a crash.
    RecTreeLimits limits;
    limits.maxChildren = 100;
    auto refused = dependencyRecTree(wide, relations(), limits);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("token 1 has 200 dependents"), std::string::npos) << refused.message();
    limits.maxHeight = 500;
    limits.maxChildren = 512;
    auto tooDeep = constituencyRecTree(ptbTree(ptb), true, limits);
    ASSERT_FALSE(tooDeep);
    EXPECT_NE(tooDeep.message().find("more than 500 levels"), std::string::npos) << tooDeep.message();
}

TEST(RecursiveImport, RefusesTensorsThatDoNotMatchTheConfigurationByName)
{
    // Three branches' tensors under a configuration of four.
    RecConfig three = smallConfig(RecModel::Dtte);
    three.branches = 3;
    RecConfig four = smallConfig(RecModel::Dtte);
    auto r = rec::Net::fromTensors(four, rec::Net::randomTensors(three, 1), torch::Device(torch::kCPU), "m.safetensors");
    ASSERT_FALSE(r);
    EXPECT_NE(r.message().find("m.safetensors"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("dtte.mb."), std::string::npos) << r.message();
    // A relation table of another size than the edge-label vectors.
    RecConfig fewer = smallConfig(RecModel::Dtte);
    fewer.relations.pop_back();
    auto e = rec::Net::fromTensors(fewer, rec::Net::randomTensors(smallConfig(RecModel::Dtte), 1), torch::Device(torch::kCPU), "m");
    ASSERT_FALSE(e);
    EXPECT_NE(e.message().find("dtte.edge_embed.weight"), std::string::npos) << e.message();
}

TEST(RecursiveImport, TheFixturesCheckpointNeedsASubmodelAndImportsEach)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/state_dict.pt");
    auto req = readFixtureDirectory(test::sharedPath(kFixture));
    ASSERT_TRUE(req) << req.message();
    auto none = importRecursiveCheckpoint(importRequestFor(*req));
    ASSERT_FALSE(none);
    EXPECT_NE(none.message().find("--submodel"), std::string::npos) << none.message();
    for (RecModel m : kModels) {
        ImportRequest ir = importRequestFor(*req);
        ir.submodel = recModelName(m);
        auto file = importRecursiveCheckpoint(ir);
        ASSERT_TRUE(file) << file.message();
        for (const auto &[name, t] : file->tensors)
            EXPECT_TRUE(name == "embed.word.weight" || name.rfind(std::string(recModelName(m)) + ".", 0) == 0) << name;
    }
    ImportRequest bad = importRequestFor(*req);
    bad.submodel = "lstm";
    EXPECT_FALSE(importRecursiveCheckpoint(bad));
}

TEST(RecursiveEncoder, AnalysesPairsAndNamesBadTrees)
{
    const RecConfig c = smallConfig(RecModel::Dtte);
    ModelFile file;
    file.configJson = recursiveConfigJson(c, "test-dtte", "{}");
    for (int i = 0; i < c.vocab; ++i)
        file.vocab.push_back(i == 0 ? "<pad>" : i == 1 ? "<unk>" : "w" + std::to_string(i));
    file.tensors = rec::Net::randomTensors(c, 2);
    const std::string path = tempPath("dtte.safetensors");
    ASSERT_TRUE(saveModelFile(path, file));
    auto enc = loadEncoder(path);
    ASSERT_TRUE(enc) << enc.message();
    EXPECT_EQ((*enc)->info().input, InputKind::WordsWithDependency);
    EXPECT_TRUE((*enc)->info().pairInput);
    EncoderInput in;
    in.words = {"w2", "w3", "w4", "w5"};
    in.dependency = DependencyTree{{2, 3, 0, 3}, {"det", "nsubj", "root", "punct"}};
    in.secondWords = {"w6", "w7"};
    in.secondDependency = DependencyTree{{2, 0}, {"nsubj", "root"}};
    auto r = (*enc)->analyze({in});
    ASSERT_TRUE(r) << r.message();
    const Analysis &a = r->front();
    ASSERT_TRUE(a.prediction);
    EXPECT_GE(a.prediction->score, 1.0f);
    EXPECT_LE(a.prediction->score, 5.0f);
    ASSERT_EQ(a.second.size(), 1u);
    // Tokens with dependents: w2 <- w1 (node 0: head 1), w3 <- w2, w4 (node 1: the root, head 2).
    ASSERT_EQ(a.nodeAttention.size(), 2u);
    const NodeAttention &root = a.nodeAttention[1];
    EXPECT_EQ(root.headWord, 2);
    EXPECT_EQ(root.targets, (std::vector<int>{-3, 0, -4})); // its own word, node 0, word 3
    ASSERT_EQ(root.weights.size(), static_cast<std::size_t>(c.branches));
    for (const auto &w : root.weights) {
        float sum = 0;
        for (float x : w)
            sum += x;
        EXPECT_NEAR(sum, 1.0f, 1e-5);
    }
    EXPECT_EQ(root.arrays.at("attn").shape, (std::vector<int>{4, 3, 3}));
    EXPECT_EQ(root.arrays.at("edge_fwd.attn").shape, (std::vector<int>{4, 2, 2}));
    EXPECT_EQ(a.gates.at("composition.branch_kappa").shape, (std::vector<int>{4}));
    EXPECT_EQ(a.embedding.size(), static_cast<std::size_t>(2 * c.dModel));
    // Probing features: layer 0 = the word vectors, layer 1 = each token's subtree state; the root
    // token's is the word traversal's half of the root vector [r_u; r_v].
    auto states = (*enc)->layerStates({in});
    ASSERT_TRUE(states) << states.message();
    ASSERT_EQ(states->front().size(), 2u);
    const Matrix &node = states->front()[1];
    ASSERT_EQ(node.rows, 4);
    ASSERT_EQ(node.cols, c.dModel);
    for (int k = 0; k < c.dModel; ++k)
        EXPECT_NEAR(node.at(2, k), a.embedding[static_cast<std::size_t>(k)], 1e-5);
    // A leaf token keeps its word vector in both layers.
    for (int k = 0; k < c.dModel; ++k)
        EXPECT_FLOAT_EQ(node.at(0, k), states->front()[0].at(0, k));
    // Bad input is named: a tree over fewer words, an unknown relation, no tree.
    EncoderInput shortTree = in;
    shortTree.dependency = DependencyTree{{2, 0, 2}, {"det", "root", "punct"}};
    auto s = (*enc)->analyze({in, shortTree});
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("pair 2"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("covers 3 words but the sentence has 4"), std::string::npos) << s.message();
    EncoderInput unknown = in;
    unknown.dependency->deprels[0] = "goeswith";
    auto u = (*enc)->analyze({unknown});
    ASSERT_FALSE(u);
    EXPECT_NE(u.message().find("relation 'goeswith'"), std::string::npos) << u.message();
    EncoderInput noTree = in;
    noTree.dependency.reset();
    auto nt = (*enc)->analyze({noTree});
    ASSERT_FALSE(nt);
    EXPECT_NE(nt.message().find("needs a dependency tree"), std::string::npos) << nt.message();
    std::filesystem::remove(path);
}
