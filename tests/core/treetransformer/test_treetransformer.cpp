// Tree Transformer parity with the official implementation
// (../shared/fixtures/tree-transformer-official, see its README): every tensor
// to 1e-5 absolute, brackets exactly, the 24 parser-only cases exactly.
// Weights and expected tensors are read with LibTorch's own pickle reader from
// the plain-dict files, independently of TreeLens's checkpoint importer.
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/data/induction.h"
#include "core/encoders/treetransformer/treetransformer.h"
#include "core/encoders/treetransformer/treetransformernet.h"
#include "core/encoders/common/vocabulary.h"
#include "core/model/modelfile.h"
#include "testutil.h"

using namespace treelens;

namespace {

const char *kFixture = "fixtures/tree-transformer-official";

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

c10::Dict<c10::IValue, c10::IValue> loadPlainDict(const std::string &path)
{
    const std::string bytes = slurp(path);
    const std::vector<char> data(bytes.begin(), bytes.end());
    return torch::pickle_load(data).toGenericDict();
}

TensorData toData(const torch::Tensor &t)
{
    auto c = t.to(torch::kFloat32).contiguous();
    std::vector<float> v(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    return TensorData::fromFloat(std::vector<std::int64_t>(c.sizes().begin(), c.sizes().end()), v);
}

TensorMap plainStateDict()
{
    TensorMap m;
    for (const auto &e : loadPlainDict(test::sharedPath(std::string(kFixture) + "/state_dict_plain.pt")))
        m[e.key().toStringRef()] = toData(e.value().toTensor());
    return m;
}

nlohmann::json summary() { return nlohmann::json::parse(slurp(test::sharedPath(std::string(kFixture) + "/summary.json"))); }

TreeTransformerConfig fixtureConfig()
{
    const auto c = summary()["config"];
    TreeTransformerConfig cfg;
    cfg.layers = c["N"];
    cfg.dModel = c["d_model"];
    cfg.heads = c["h"];
    cfg.dFF = c["d_ff"];
    cfg.vocabSize = c["vocab_size"];
    return cfg;
}

double maxAbsDiff(const torch::Tensor &a, const torch::Tensor &b)
{
    EXPECT_EQ(a.sizes(), b.sizes());
    if (a.sizes() != b.sizes())
        return 1e9;
    return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

std::vector<std::pair<int, int>> bracketsFromJson(const nlohmann::json &j)
{
    std::vector<std::pair<int, int>> b;
    for (const auto &x : j)
        b.push_back({x[0].get<int>(), x[1].get<int>()});
    std::sort(b.begin(), b.end());
    return b;
}

} // namespace

TEST(TreeTransformerParity, EveryTensorMatchesTheOfficialCode)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/tensors.pt");
    const auto cfg = fixtureConfig();
    const TensorMap weights = plainStateDict();
    ASSERT_TRUE(validateTreeTransformerWeights(cfg, weights, "state_dict_plain.pt").ok());
    auto net = tt::Net::fromTensors(cfg, weights, torch::kCPU);
    ASSERT_TRUE(net.ok()) << net.message();

    auto expected = loadPlainDict(test::sharedPath(std::string(kFixture) + "/tensors.pt"));
    auto get = [&](const char *k) { return expected.at(k).toTensor(); };
    const auto ids = get("input_ids").to(torch::kInt64);
    const auto mask = ids.ne(0);

    torch::InferenceMode guard;
    tt::ForwardOptions o;
    o.keepAttention = o.keepPrior = o.keepLayerOut = o.logits = true;
    const auto out = tt::forward(*net, ids, mask, o);
    const double tol = 1e-5;
    EXPECT_LE(maxAbsDiff(out.embed, get("embed")), tol) << "embed";
    EXPECT_LE(maxAbsDiff(torch::stack(out.breakProb, 1), get("break_prob")), tol) << "break_prob";
    EXPECT_LE(maxAbsDiff(torch::stack(out.groupProb, 1), get("group_prob")), tol) << "group_prob";
    EXPECT_LE(maxAbsDiff(torch::stack(out.attnRaw, 1), get("attn_raw")), tol) << "attn_raw";
    EXPECT_LE(maxAbsDiff(torch::stack(out.attn, 1), get("attn")), tol) << "attn";
    EXPECT_LE(maxAbsDiff(torch::stack(out.layerOut, 1), get("layer_out")), tol) << "layer_out";
    EXPECT_LE(maxAbsDiff(out.finalHidden, get("final_hidden")), tol) << "final_hidden";
    EXPECT_LE(maxAbsDiff(out.logits, get("logits")), tol) << "logits";
    // The benchmark's official-style operation sequence computes the same numbers.
    tt::ForwardOptions ref = o;
    ref.officialStyle = true;
    const auto refOut = tt::forward(*net, ids, mask, ref);
    EXPECT_LE(maxAbsDiff(torch::stack(refOut.groupProb, 1), get("group_prob")), tol) << "official-style group_prob";
    EXPECT_LE(maxAbsDiff(refOut.logits, get("logits")), tol) << "official-style logits";
    // The test can fail: a paper-style LayerNorm (biased variance, eps inside) does not match.
    auto ln = torch::layer_norm(out.layerOut[0], {cfg.dModel}, net->param("norm.a_2"), net->param("norm.b_2"), 1e-6);
    auto official = tt::officialLayerNorm(out.layerOut[0], net->param("norm.a_2"), net->param("norm.b_2"), 1e-6);
    EXPECT_GT(maxAbsDiff(ln, official), 1e-4);
}

TEST(TreeTransformerParity, EncoderLinksAndBracketsMatch)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/summary.json");
    const auto s = summary();
    ModelFile file;
    auto vocab = Vocabulary::fromDictionaryJson(slurp(test::sharedPath(std::string(kFixture) + "/dictionary.json")), "dictionary.json");
    ASSERT_TRUE(vocab.ok()) << vocab.message();
    file.vocab = vocab->tokens();
    file.tensors = plainStateDict();
    file.configJson = nlohmann::json{{"family", "tree-transformer"}, {"model", nlohmann::json::parse(fixtureConfig().toJson())}}.dump();
    auto enc = createTreeTransformer(file, DeviceConfig{"cpu", 0, 2});
    ASSERT_TRUE(enc.ok()) << enc.message();
    std::vector<EncoderInput> batch;
    for (const auto &sent : s["sentences"])
        batch.push_back(EncoderInput{sent["words"].get<std::vector<std::string>>(), {}, {}, {}, {}, {}});
    // Ids as the official script made them (lower case, [CLS] first).
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto want = s["sentences"][i]["input_ids"].get<std::vector<int>>();
        const auto got = vocab->encode(batch[i].words);
        EXPECT_EQ(got, std::vector<int>(want.begin(), want.begin() + static_cast<long>(got.size())));
    }
    auto res = (*enc)->analyze(batch);
    ASSERT_TRUE(res.ok()) << res.message();
    ASSERT_EQ(res->size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        const auto &a = (*res)[i];
        const auto &sent = s["sentences"][i];
        const auto links = sent["link_probs_word_level"];
        ASSERT_EQ(a.linkProbs.size(), links.size());
        for (std::size_t l = 0; l < links.size(); ++l)
            for (std::size_t k = 0; k < links[l].size(); ++k)
                EXPECT_NEAR(a.linkProbs[l][k + 1], links[l][k].get<float>(), 1e-5) << "layer " << l << " link " << k;
        EXPECT_EQ(a.inducedBrackets, bracketsFromJson(sent["brackets"])) << sent["text"];
        EXPECT_EQ(a.tokens.size(), sent["words"].size() + 1);
        EXPECT_EQ(a.attention.size(), 4u);
        EXPECT_EQ(a.attention[0].size(), 4u);
        EXPECT_EQ(a.constituentPrior[0].rows, static_cast<int>(a.tokens.size()));
        EXPECT_EQ(a.embedding.size(), 32u);
    }
    // Batching with padding: the same sentence alone gives the same numbers.
    auto alone = (*enc)->analyze({batch[1]});
    ASSERT_TRUE(alone.ok());
    for (std::size_t l = 0; l < 4; ++l)
        for (std::size_t k = 0; k < (*alone)[0].linkProbs[l].size(); ++k)
            EXPECT_NEAR((*alone)[0].linkProbs[l][k], (*res)[1].linkProbs[l][k], 1e-6);
}

TEST(TreeTransformerParity, TwentyFourParserCases)
{
    TREELENS_REQUIRE_SHARED(std::string(kFixture) + "/summary.json");
    const auto cases = summary()["parser_cases"];
    ASSERT_EQ(cases.size(), 24u);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto links = cases[i]["word_links"].get<std::vector<std::vector<float>>>();
        EXPECT_EQ(induceBrackets(links), bracketsFromJson(cases[i]["brackets"])) << "case " << i << " length " << cases[i]["length"];
    }
}

TEST(TreeTransformerInduction, HandCheckedSmallCases)
{
    // One layer above minLayer clamps: 3 layers, min 2, start 2.
    InductionConfig c;
    c.minLayer = 0;
    // Words a b c d: weakest link between b and c splits; sides are [a b] and [c d].
    EXPECT_EQ(induceBrackets({{0.9f, 0.1f, 0.9f}}, c), (std::vector<std::pair<int, int>>{{0, 2}, {2, 4}}));
    // All links strong at the minimum layer: one flat span (the whole sentence, removed).
    EXPECT_TRUE(induceBrackets({{0.9f, 0.95f, 0.9f}}, c).empty());
    // Fewer than two words: nothing.
    EXPECT_TRUE(induceBrackets({{}}, c).empty());
    const auto tree = bracketsToTree({"a", "b", "c", "d"}, {{0, 2}, {2, 4}});
    EXPECT_EQ(tree.spans().size(), 3u);
    EXPECT_EQ(leftBranchingBrackets(4), (std::vector<std::pair<int, int>>{{0, 2}, {0, 3}}));
    EXPECT_EQ(rightBranchingBrackets(4), (std::vector<std::pair<int, int>>{{1, 4}, {2, 4}}));
    EXPECT_EQ(randomBinaryBrackets(5, 7).size(), 3u);
}

TEST(TreeTransformerVocabulary, OfficialNormalisation)
{
    EXPECT_EQ(Vocabulary::normalize("The"), "the");
    EXPECT_EQ(Vocabulary::normalize("1,234.5"), "N,N.N");
    EXPECT_EQ(Vocabulary::normalize("A4"), "aN");
    auto v = Vocabulary::fromTokens({"[PAD]", "[UNK]", "[MASK]", "[CLS]", "the", "N"});
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->encode({"The", "1999", "zebra"}), (std::vector<int>{3, 4, 5, 1}));
    EXPECT_FALSE(Vocabulary::fromTokens({}).ok());
    EXPECT_FALSE(Vocabulary::fromTokens({"[PAD]", "[UNK]", "[MASK]", "[CLS]", "a", "a"}).ok());
    EXPECT_FALSE(Vocabulary::fromDictionaryJson("{\"a\": 3}", "d.json").ok());
    // The Tree Transformer's rules: the specials present, no entry empty.
    EXPECT_TRUE(Vocabulary::withSpecials({"[PAD]", "[UNK]", "[MASK]", "[CLS]", "the"}).ok());
    EXPECT_FALSE(Vocabulary::withSpecials({"[PAD]", "[UNK]", "[CLS]", "the"}).ok());
    EXPECT_FALSE(Vocabulary::withSpecials({"[PAD]", "[UNK]", "[MASK]", "[CLS]", ""}).ok());
}

TEST(Vocabulary, TheFamiliesMatchingRules)
{
    // Hand-checked: each family's rule on a vocabulary holding "Paris", "the" and "N".
    auto v = Vocabulary::fromTokens({"<pad>", "<unk>", "Paris", "the", "N"});
    ASSERT_TRUE(v.ok());
    using M = Vocabulary::Match;
    EXPECT_EQ(v->id("The", M::Exact), -1);
    EXPECT_EQ(v->id("The", M::Lowercase), 3);
    EXPECT_EQ(v->id("Paris", M::Lowercase), -1);  // looked up as "paris"
    EXPECT_EQ(v->id("1999", M::Normalized), 4);
    EXPECT_EQ(v->id("Paris", M::AnyForm), 2);     // as written first
    EXPECT_EQ(v->id("THE", M::AnyForm), 3);       // then lower-cased
    EXPECT_EQ(v->id("42", M::AnyForm), 4);        // then normalised
    EXPECT_EQ(v->ids({"the", "zebra", "7"}, M::AnyForm, 1), (std::vector<std::int64_t>{3, 1, 4}));
    EXPECT_EQ(v->padId(), -1);  // no Tree Transformer specials
    // A model file's list as it stands: the first of two equal tokens keeps its id.
    const Vocabulary lenient = Vocabulary::lenient({"a", "b", "a"});
    EXPECT_EQ(lenient.id("a"), 0);
    EXPECT_EQ(lenient.size(), 3);
    EXPECT_FALSE(Vocabulary::fromTokens({"a", "b", "a"}).ok());
}

TEST(TreeTransformerPriorOff, IsAPlainTransformerOfTheSameWeights)
{
    // constituent_prior = false (the probing baseline): C = 1, so the attention
    // after ×C equals the softmax before it, and each layer is
    // x + Attn(LN x) then x + FF(LN x) with the same weights as the tree model.
    TreeTransformerConfig cfg;
    cfg.layers = 2;
    cfg.dModel = 16;
    cfg.heads = 2;
    cfg.dFF = 32;
    cfg.vocabSize = 30;
    cfg.maxLen = 16;
    const TensorMap w = randomTreeTransformerWeights(cfg, 7);
    TreeTransformerConfig off = cfg;
    off.constituentPrior = false;
    auto parsed = TreeTransformerConfig::fromJson(off.toJson());
    ASSERT_TRUE(parsed.ok());
    EXPECT_FALSE(parsed->constituentPrior);
    EXPECT_TRUE(TreeTransformerConfig::fromJson(cfg.toJson())->constituentPrior);
    auto treeNet = tt::Net::fromTensors(cfg, w, torch::kCPU);
    auto plainNet = tt::Net::fromTensors(off, w, torch::kCPU);
    ASSERT_TRUE(treeNet.ok() && plainNet.ok());
    torch::InferenceMode guard;
    auto ids = torch::tensor({{5, 9, 11, 3, 7, 2}, {4, 8, 6, 0, 0, 0}}, torch::kInt64);
    auto mask = ids.ne(0);
    mask.index_put_({0, 0}, true);
    tt::ForwardOptions o;
    o.keepAttention = true;
    const auto plain = tt::forward(*plainNet, ids, mask, o);
    const auto tree = tt::forward(*treeNet, ids, mask, o);
    ASSERT_EQ(plain.attn.size(), 2u);
    for (int l = 0; l < 2; ++l) {
        EXPECT_TRUE(torch::equal(plain.attn[l], plain.attnRaw[l]));
        EXPECT_TRUE(torch::all(plain.groupProb[l] == 1).item<bool>());
        // The tree model really does reweight attention (else this test proves nothing).
        EXPECT_GT((tree.attn[l] - tree.attnRaw[l]).abs().max().item<double>(), 1e-3);
    }
    // Layer 0 by hand: x0 = lut[ids]·sqrt(d) + pe; h = LN(x0); softmax(QK^T/sqrt(dk)) V, out proj.
    auto W = [&](const std::string &n) {
        const auto v = w.at(n).toFloat();
        return torch::tensor(v).view(w.at(n).shape);
    };
    auto x0 = torch::embedding(W("word_embed.0.lut.weight"), ids) * std::sqrt(16.0) + tt::sinusoidalPositions(16, 16).narrow(0, 0, 6);
    auto h = tt::officialLayerNorm(x0, W("layers.0.sublayer.0.norm.a_2"), W("layers.0.sublayer.0.norm.b_2"), cfg.layerNormEps);
    auto lin = [&](const torch::Tensor &t, int k) {
        return torch::matmul(t, W("layers.0.self_attn.linears." + std::to_string(k) + ".weight").t())
               + W("layers.0.self_attn.linears." + std::to_string(k) + ".bias");
    };
    auto split = [](const torch::Tensor &t) { return t.view({2, 6, 2, 8}).transpose(1, 2); };
    auto scores = torch::matmul(split(lin(h, 0)), split(lin(h, 1)).transpose(-2, -1)) / std::sqrt(8.0);
    scores = scores.masked_fill(mask.unsqueeze(1).logical_or(torch::eye(6, torch::kBool).unsqueeze(0)).unsqueeze(1).logical_not(), -1e9);
    auto att = torch::softmax(scores, -1);
    EXPECT_TRUE(torch::allclose(att, plain.attn[0], 1e-5, 1e-6));
}

namespace {

/// The word of id `id` (>= 4) in pllModelFile's vocabulary: "wa", "wb", ... (no digits: the
/// vocabulary reads digits as N).
std::string pllWord(int id) { return std::string("w") + static_cast<char>('a' + id - 4); }

/// A Tree Transformer model file of `weights` over the vocabulary [PAD] [UNK] [MASK] [CLS] wa .. (26 words).
ModelFile pllModelFile(const TreeTransformerConfig &cfg, TensorMap weights)
{
    ModelFile file;
    file.vocab = {"[PAD]", "[UNK]", "[MASK]", "[CLS]"};
    for (int i = 4; i < cfg.vocabSize; ++i)
        file.vocab.push_back(pllWord(i));
    file.tensors = std::move(weights);
    file.configJson = nlohmann::json{{"family", "tree-transformer"}, {"name", "pll-test"}, {"model", nlohmann::json::parse(cfg.toJson())}}.dump();
    return file;
}

/// A small random Tree Transformer's configuration (3 layers of 4 heads, 30 words).
TreeTransformerConfig pllConfig()
{
    TreeTransformerConfig cfg;
    cfg.layers = 3;
    cfg.dModel = 16;
    cfg.heads = 4;
    cfg.dFF = 32;
    cfg.vocabSize = 30;
    cfg.maxLen = 16;
    return cfg;
}

} // namespace

// Head ablation is the fixture README's zero ablation: switching head h of layer l off gives
// exactly what the same network gives with the output projection's columns of that head
// (h·dk .. (h+1)·dk − 1 of self_attn.linears.3.weight) set to zero, its bias kept, and a
// whole layer what it gives with every column zeroed. An independent route to the same
// numbers: the weights changed, nothing switched off.
TEST(TreeTransformerAblation, SwitchingAHeadOffIsZeroingItsOutputProjectionColumns)
{
    const TreeTransformerConfig cfg = pllConfig();
    const TensorMap w = randomTreeTransformerWeights(cfg, 11);
    auto zeroed = [&](int layer, int head) {
        TensorMap z = w;
        const std::string name = "layers." + std::to_string(layer) + ".self_attn.linears.3.weight";
        std::vector<float> v = z.at(name).toFloat();
        const int dk = cfg.dModel / cfg.heads;
        for (int r = 0; r < cfg.dModel; ++r)
            for (int c = 0; c < cfg.dModel; ++c)
                if (head < 0 || c / dk == head)
                    v[static_cast<std::size_t>(r * cfg.dModel + c)] = 0.0f;
        z[name] = TensorData::fromFloat(z.at(name).shape, v);
        return z;
    };
    auto net = tt::Net::fromTensors(cfg, w, torch::kCPU);
    ASSERT_TRUE(net.ok());
    torch::InferenceMode guard;
    auto ids = torch::tensor({{5, 9, 11, 3, 7, 2}, {4, 8, 6, 0, 0, 0}}, torch::kInt64);
    auto mask = ids.ne(0);
    tt::ForwardOptions o;
    o.keepAttention = true;
    const auto plain = tt::forward(*net, ids, mask, o);
    for (const HeadAblation a : {HeadAblation{1, 2}, HeadAblation{0, 0}, HeadAblation{2, -1}}) {
        auto byWeights = tt::Net::fromTensors(cfg, zeroed(a.layer, a.head), torch::kCPU);
        ASSERT_TRUE(byWeights.ok());
        tt::ForwardOptions ablated = o;
        ablated.ablate = {a};
        const auto off = tt::forward(*net, ids, mask, ablated);
        const auto ref = tt::forward(*byWeights, ids, mask, o);
        const std::string what = "layer " + std::to_string(a.layer) + " head " + std::to_string(a.head);
        EXPECT_TRUE(torch::allclose(off.finalHidden, ref.finalHidden, 1e-5, 1e-6)) << what;
        for (int l = 0; l < cfg.layers; ++l) {
            EXPECT_TRUE(torch::allclose(off.breakProb[l], ref.breakProb[l], 1e-5, 1e-6)) << what << ", links of layer " << l;
            EXPECT_TRUE(torch::allclose(off.attn[l], ref.attn[l], 1e-5, 1e-6)) << what << ", attention of layer " << l;
        }
        // The ablation changed the network after its layer (else this proves nothing), not before it.
        EXPECT_GT((off.finalHidden - plain.finalHidden).abs().max().item<double>(), 1e-4) << what;
        EXPECT_TRUE(torch::equal(off.attn[a.layer], plain.attn[a.layer])) << what;
    }
}

// The views word their note from what the analysis says the model is, never from the
// family name: the shipped plain Transformer (a Tree Transformer with the prior off)
// says so, the Tree Transformer says nothing more than its family.
TEST(TreeTransformerPriorOff, TheAnalysisSaysItIsAPlainTransformer)
{
    const std::string plain = findShippedModel("transformer-en-small.safetensors");
    const std::string tree = findShippedModel("tree-transformer-en-small.safetensors");
    if (plain.empty() || tree.empty())
        GTEST_SKIP() << "the shipped transformer-en-small / tree-transformer-en-small models are not found";
    for (const auto &[path, architecture] : {std::make_pair(plain, std::string("a plain Transformer")), std::make_pair(tree, std::string())}) {
        auto enc = loadEncoder(path);
        ASSERT_TRUE(enc.ok()) << enc.message();
        auto r = (*enc)->analyze({EncoderInput{{"the", "cat", "sat"}, {}, {}, {}, {}, {}}});
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_EQ(r->front().family, "tree-transformer");
        EXPECT_EQ(r->front().architecture, architecture) << path;
        EXPECT_EQ(r->front().constituentPrior.empty(), !architecture.empty()) << path;
    }
}


// The pseudo-log-likelihood (Salazar et al. 2020) by hand: with the vocabulary projection's
// weights zero, every masked word is predicted by the projection's bias b alone, so log p(word)
// = b[id] - log sum exp(b) whatever the network does, and the sentence's score is the sum over
// its words (a word the vocabulary lacks counts as [UNK], id 1). A file without the projection
// gives no sentence score and says why.
TEST(TreeTransformerPseudoLogLikelihood, AConstantHeadGivesTheLogSoftmaxOfItsBias)
{
    const TreeTransformerConfig cfg = pllConfig();
    TensorMap w = randomTreeTransformerWeights(cfg, 5);
    std::vector<float> bias(static_cast<std::size_t>(cfg.vocabSize));
    for (int i = 0; i < cfg.vocabSize; ++i)
        bias[static_cast<std::size_t>(i)] = 0.25f * static_cast<float>((i * 7) % 11) - 1.0f;
    w["proj.weight"] = TensorData::fromFloat({cfg.vocabSize, cfg.dModel}, std::vector<float>(static_cast<std::size_t>(cfg.vocabSize * cfg.dModel), 0.0f));
    w["proj.bias"] = TensorData::fromFloat({cfg.vocabSize}, bias);
    auto enc = createTreeTransformer(pllModelFile(cfg, w), DeviceConfig{"cpu", 0, 2});
    ASSERT_TRUE(enc.ok()) << enc.message();
    EXPECT_EQ((*enc)->info().sentenceScore, SentenceScore::PseudoLogLikelihood);
    double lse = 0.0;
    for (float b : bias)
        lse += std::exp(static_cast<double>(b));
    lse = std::log(lse);
    const std::vector<std::string> words = {pllWord(5), pllWord(17), "unheard", pllWord(9)};
    const std::vector<int> ids = {5, 17, 1, 9};
    AnalyzeOptions o;
    o.pseudoLogLikelihood = true;
    auto res = (*enc)->analyze({EncoderInput{words, {}, {}, {}, {}, {}}}, o);
    ASSERT_TRUE(res.ok()) << res.message();
    const Analysis &a = (*res)[0];
    ASSERT_TRUE(a.logprob.has_value());
    ASSERT_EQ(a.surprisal.size(), words.size());
    double want = 0.0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const double lp = static_cast<double>(bias[static_cast<std::size_t>(ids[i])]) - lse;
        EXPECT_NEAR(a.surprisal[i], -lp, 1e-5) << words[i];
        want += lp;
    }
    EXPECT_NEAR(*a.logprob, want, 1e-5);
    // Without asking, no score; without the projection, none can be given.
    auto plain = (*enc)->analyze({EncoderInput{words, {}, {}, {}, {}, {}}});
    ASSERT_TRUE(plain.ok());
    EXPECT_FALSE((*plain)[0].logprob.has_value());
    w.erase("proj.weight");
    w.erase("proj.bias");
    auto headless = createTreeTransformer(pllModelFile(cfg, w), DeviceConfig{"cpu", 0, 2});
    ASSERT_TRUE(headless.ok()) << headless.message();
    EXPECT_EQ((*headless)->info().sentenceScore, SentenceScore::None);
    EXPECT_NE((*headless)->info().sentenceScoreNote.find("vocabulary projection"), std::string::npos);
    auto none = (*headless)->analyze({EncoderInput{words, {}, {}, {}, {}, {}}}, o);
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE((*none)[0].logprob.has_value());
}

// Each word's term is the network's prediction at that word with [MASK] (id 2) in its place and
// every other word as it is: the same numbers as running each masked copy alone through the
// forward pass with the full [L, V] logits, with and without a head switched off, and whatever
// the other sentences of the batch.
TEST(TreeTransformerPseudoLogLikelihood, EachWordIsPredictedWithItselfMasked)
{
    const TreeTransformerConfig cfg = pllConfig();
    const TensorMap w = randomTreeTransformerWeights(cfg, 7);
    auto enc = createTreeTransformer(pllModelFile(cfg, w), DeviceConfig{"cpu", 0, 2});
    ASSERT_TRUE(enc.ok()) << enc.message();
    auto net = tt::Net::fromTensors(cfg, w, torch::kCPU);
    ASSERT_TRUE(net.ok());
    const std::vector<std::vector<int>> sentences = {{5, 9, 11, 7, 6}, {4, 8}, {12, 13, 14}};
    std::vector<EncoderInput> batch;
    for (const auto &s : sentences) {
        std::vector<std::string> words;
        for (int id : s)
            words.push_back(pllWord(id));
        batch.push_back(EncoderInput{words, {}, {}, {}, {}, {}});
    }
    for (const std::vector<HeadAblation> &ablate : {std::vector<HeadAblation>{}, std::vector<HeadAblation>{{1, 2}}}) {
        AnalyzeOptions o;
        o.pseudoLogLikelihood = true;
        o.attention = false;
        o.ablate = ablate;
        auto res = (*enc)->analyze(batch, o);
        ASSERT_TRUE(res.ok()) << res.message();
        auto alone = (*enc)->analyze({batch[0]}, o);
        ASSERT_TRUE(alone.ok()) << alone.message();
        EXPECT_NEAR(*(*alone)[0].logprob, *(*res)[0].logprob, 1e-9);
        torch::InferenceMode guard;
        for (std::size_t s = 0; s < sentences.size(); ++s) {
            double total = 0.0;
            for (std::size_t k = 0; k < sentences[s].size(); ++k) {
                std::vector<std::int64_t> ids = {3};
                for (int id : sentences[s])
                    ids.push_back(id);
                ids[k + 1] = 2;
                const auto t = torch::tensor(ids, torch::kInt64).unsqueeze(0);
                tt::ForwardOptions fo;
                fo.logits = true;
                fo.ablate = ablate;
                const auto out = tt::forward(*net, t, t.ne(0), fo);
                const double lp = out.logits[0][static_cast<std::int64_t>(k + 1)].to(torch::kFloat64).log_softmax(-1)[sentences[s][k]].item<double>();
                EXPECT_NEAR((*res)[s].surprisal[k], -lp, 1e-4) << "sentence " << s << " word " << k;
                total += lp;
            }
            EXPECT_NEAR(*(*res)[s].logprob, total, 1e-4) << "sentence " << s;
        }
    }
}
