// Head ablation in the tree-structured families (docs/minimal-pairs.md, "Head ablation"):
// switching head h of layer l off zeroes the head's output before the layer's output
// projection, so it must give exactly what the same model gives with the projection's input
// columns of that head (h·dk .. (h+1)·dk − 1) set to zero and nothing switched off. An
// independent route to the same numbers: the weights changed in the file, the code path of
// an ordinary analysis. Run on the shipped models of each family.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/encoders/encoder.h"
#include "core/encoders/family.h"
#include "core/formats/ptb.h"
#include "core/model/modelfile.h"
#include "testutil.h"

using namespace treelens;

namespace {

std::string shipped(const std::string &name) { return std::string(TREELENS_SOURCE_DIR) + "/resources/models/" + name; }

/// `file` with the input columns [from, from + width) of the [out, in] weight `name` set to zero.
ModelFile withZeroColumns(ModelFile file, const std::string &name, int from, int width)
{
    const TensorData &t = file.tensors.at(name);
    std::vector<float> v = t.toFloat();
    const auto rows = t.shape[0], cols = t.shape[1];
    for (std::int64_t r = 0; r < rows; ++r)
        for (int c = from; c < from + width; ++c)
            v[static_cast<std::size_t>(r * cols + c)] = 0.0f;
    file.tensors[name] = TensorData::fromFloat(t.shape, v);
    return file;
}

std::unique_ptr<Encoder> create(const ModelFile &file)
{
    const EncoderFamily *f = findEncoderFamily(nlohmann::json::parse(file.configJson).at("family").get<std::string>());
    EXPECT_NE(f, nullptr);
    DeviceConfig dc;
    dc.device = "cpu";
    auto enc = f->create(file, dc);
    EXPECT_TRUE(enc) << enc.message();
    return enc ? std::move(*enc) : nullptr;
}

/// The analyses' predictions, sentence vectors and (first layer after the ablated one's)
/// attention agree; and the ablation changed something (else the check proves nothing).
void expectSame(const std::vector<Analysis> &off, const std::vector<Analysis> &ref, const std::vector<Analysis> &plain,
                const std::string &what)
{
    ASSERT_EQ(off.size(), ref.size());
    double moved = 0.0;
    for (std::size_t i = 0; i < off.size(); ++i) {
        ASSERT_EQ(off[i].embedding.size(), ref[i].embedding.size()) << what;
        for (std::size_t k = 0; k < off[i].embedding.size(); ++k) {
            EXPECT_NEAR(off[i].embedding[k], ref[i].embedding[k], 2e-5) << what << ", input " << i << " component " << k;
            moved = std::max(moved, static_cast<double>(std::abs(off[i].embedding[k] - plain[i].embedding[k])));
        }
        ASSERT_TRUE(off[i].prediction && ref[i].prediction) << what;
        for (std::size_t k = 0; k < off[i].prediction->probabilities.size(); ++k)
            EXPECT_NEAR(off[i].prediction->probabilities[k], ref[i].prediction->probabilities[k], 2e-5) << what;
        EXPECT_FALSE(off[i].ablated.empty()) << what << ": the analysis says what was switched off";
    }
    EXPECT_GT(moved, 1e-4) << what << ": switching the head off changed nothing";
}

/// For each of `cases`: the analysis of `in` with that head switched off equals the analysis by
/// the model `zeroed(case)` (the file with the head's projection zeroed), and differs from the
/// plain analysis.
void expectAblationIsZeroedWeights(Encoder &enc, const EncoderInput &in, const std::vector<HeadAblation> &cases,
                                   const std::function<ModelFile(const HeadAblation &)> &zeroed)
{
    auto plain = enc.analyze({in});
    ASSERT_TRUE(plain) << plain.message();
    for (const HeadAblation a : cases) {
        AnalyzeOptions o;
        o.ablate = {a};
        auto off = enc.analyze({in}, o);
        ASSERT_TRUE(off) << off.message();
        auto ref = create(zeroed(a))->analyze({in});
        ASSERT_TRUE(ref) << ref.message();
        expectSame(*off, *ref, *plain, "layer " + std::to_string(a.layer) + " head " + std::to_string(a.head));
    }
}

/// The columns of a head (head -1: every head) of `heads` heads of width `width`.
std::pair<int, int> headColumns(const HeadAblation &a, int heads, int width)
{
    return a.head < 0 ? std::make_pair(0, heads * width) : std::make_pair(a.head * width, width);
}

ConstituencyTree tree(const std::string &ptb)
{
    auto t = readPtb(ptb, "test");
    EXPECT_TRUE(t && t->size() == 1) << (t ? "" : t.message());
    return t->front();
}

} // namespace

TEST(DependencyTransformerAblation, SwitchingAHeadOffIsZeroingItsOutputProjectionColumns)
{
    auto file = loadModelFile(shipped("dependency-transformer-en-polarity.safetensors"));
    ASSERT_TRUE(file) << file.message();
    auto enc = create(*file);
    ASSERT_TRUE(enc);
    EncoderInput in;
    in.words = {"The", "old", "man", "saw", "a", "red", "kite", "."};
    in.dependency = DependencyTree{{3, 3, 4, 0, 7, 7, 4, 4}, {"det", "amod", "nsubj", "root", "det", "amod", "obj", "punct"}};
    const int H = enc->info().heads, dk = enc->info().dModel / H;
    expectAblationIsZeroedWeights(*enc, in, {HeadAblation{1, 2}, HeadAblation{0, 0}, HeadAblation{2, -1}}, [&](const HeadAblation &a) {
        const auto [from, width] = headColumns(a, H, dk);
        return withZeroColumns(*file, "layers." + std::to_string(a.layer) + ".attn.o.weight", from, width);
    });
    AnalyzeOptions outside;
    outside.ablate = {HeadAblation{enc->info().layers, 0}};
    auto refused = enc->analyze({in}, outside);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("outside the model"), std::string::npos) << refused.message();
}

// GGSA's two encoders (question, answer) have the same layers x heads: head h of layer l is
// switched off in both.
TEST(GgsaAblation, SwitchingAHeadOffIsZeroingItsOutputProjectionColumnsInBothEncoders)
{
    auto file = loadModelFile(shipped("ggsa-en-wikiqa.safetensors"));
    ASSERT_TRUE(file) << file.message();
    auto enc = create(*file);
    ASSERT_TRUE(enc);
    EncoderInput in;
    in.words = {"who", "wrote", "the", "old", "man", "and", "the", "sea"};
    in.secondWords = {"the", "old", "man", "and", "the", "sea", "is", "a", "novel", "by", "ernest", "hemingway"};
    const int H = enc->info().heads, dk = enc->info().dModel / H;
    expectAblationIsZeroedWeights(*enc, in, {HeadAblation{1, 1}, HeadAblation{0, -1}}, [&](const HeadAblation &a) {
        const auto [from, width] = headColumns(a, H, dk);
        ModelFile zeroed = *file;
        for (const char *side : {"q_enc", "a_enc"})
            zeroed = withZeroColumns(zeroed, std::string(side) + ".layers." + std::to_string(a.layer) + ".attn.w_o.weight", from, width);
        return zeroed;
    });
}

// The Tree Aggregation Transformer's one aggregation layer: heads numbered as its views number
// them, 1..H the semantic stream's, H+1..2H the syntactic stream's (0-based here).
TEST(TatAblation, SwitchingAHeadOffIsZeroingItsStreamsOutputProjectionColumns)
{
    auto file = loadModelFile(shipped("tat-en-wikiqa.safetensors"));
    ASSERT_TRUE(file) << file.message();
    auto enc = create(*file);
    ASSERT_TRUE(enc);
    EncoderInput in;
    in.words = {"who", "wrote", "the", "book"};
    in.constituency = tree("(ROOT (SBARQ (WHNP (WP who)) (SQ (VP (VBD wrote) (NP (DT the) (NN book))))))");
    in.secondWords = {"the", "old", "man", "wrote", "the", "book"};
    in.secondConstituency = tree("(ROOT (S (NP (DT the) (JJ old) (NN man)) (VP (VBD wrote) (NP (DT the) (NN book)))))");
    const int H = enc->info().heads;
    const int dkSem = static_cast<int>(file->tensors.at("tat.attn_sem.o.weight").shape[1]) / H,
              dkSyn = static_cast<int>(file->tensors.at("tat.attn_syn.o.weight").shape[1]) / H;
    expectAblationIsZeroedWeights(*enc, in, {HeadAblation{0, 1}, HeadAblation{0, H}, HeadAblation{0, -1}}, [&](const HeadAblation &a) {
        ModelFile zeroed = *file;
        if (a.head < H) { // the semantic stream's heads (and both streams' for -1)
            const auto [from, width] = headColumns(a, H, dkSem);
            zeroed = withZeroColumns(zeroed, "tat.attn_sem.o.weight", from, width);
        }
        if (a.head < 0 || a.head >= H) {
            const auto [from, width] = headColumns(HeadAblation{0, a.head < 0 ? -1 : a.head - H}, H, dkSyn);
            zeroed = withZeroColumns(zeroed, "tat.attn_syn.o.weight", from, width);
        }
        return zeroed;
    });
    AnalyzeOptions lm;
    lm.ablate = {HeadAblation{1, 0}}; // the language-model stand-in's layers are not the model's layers
    EXPECT_FALSE(enc->analyze({in}, lm));
}

// The recursive Tree Transformer with edges (multi-branch): its one recursive layer's branches
// are its heads; branch h's attention output goes through its own W_h^b (B_h = A_h W_h^b + X),
// so switching it off is zeroing that branch's slice of mb.wb.
TEST(RecursiveAblation, SwitchingABranchOffIsZeroingItsProjection)
{
    auto file = loadModelFile(shipped("dtt-edges-en-polarity.safetensors"));
    ASSERT_TRUE(file) << file.message();
    auto enc = create(*file);
    ASSERT_TRUE(enc);
    EncoderInput in;
    in.words = {"The", "old", "man", "saw", "a", "red", "kite", "."};
    in.dependency = DependencyTree{{3, 3, 4, 0, 7, 7, 4, 4}, {"det", "amod", "nsubj", "root", "det", "amod", "obj", "punct"}};
    const std::string wb = "dtte.mb.wb";
    const TensorData &t = file->tensors.at(wb);
    const auto per = t.shape[1] * t.shape[2];
    expectAblationIsZeroedWeights(*enc, in, {HeadAblation{0, 2}, HeadAblation{0, -1}}, [&](const HeadAblation &a) {
        ModelFile zeroed = *file;
        std::vector<float> v = t.toFloat();
        for (std::int64_t h = 0; h < t.shape[0]; ++h)
            if (a.head < 0 || a.head == h)
                std::fill(v.begin() + h * per, v.begin() + (h + 1) * per, 0.0f);
        zeroed.tensors[wb] = TensorData::fromFloat(t.shape, v);
        return zeroed;
    });
}

// A Tree-LSTM's attention over a node's children is no set of heads: --ablate is refused with
// that reason before anything runs (never an analysis as if nothing were switched off).
TEST(RecursiveAblation, ATreeLstmSaysItHasNoHeads)
{
    auto file = loadModelFile(shipped("tree-lstm-attention-en-rte.safetensors"));
    ASSERT_TRUE(file) << file.message();
    auto enc = create(*file);
    ASSERT_TRUE(enc);
    EncoderInput in;
    in.words = {"a", "man", "sleeps"};
    in.secondWords = {"a", "person", "sleeps"};
    AnalyzeOptions o;
    o.ablate = {HeadAblation{0, 0}};
    auto refused = enc->analyze({in}, o);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.code(), ErrorCode::Refused);
    EXPECT_NE(refused.message().find("no attention heads to switch off"), std::string::npos) << refused.message();
}
