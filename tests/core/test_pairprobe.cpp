// The pair-vector probes (core/probing/pairprobe.h) against an encoder whose pair
// vector is known: it encodes the candidate's tree depth (one-hot) and length, and
// nothing of its top constituents. The probe must find what is there and only that.
#include <gtest/gtest.h>

#include "core/encoders/encoder.h"
#include "core/formats/ptb.h"
#include "core/probing/pairprobe.h"

using namespace treelens;

namespace {

class DepthLengthPairEncoder : public Encoder {
public:
    DepthLengthPairEncoder()
    {
        m_info.family = "fake-pairs";
        m_info.name = "depth-and-length";
        m_info.pairInput = true;
        m_info.input = InputKind::WordsWithConstituency;
    }
    const EncoderInfo &info() const override { return m_info; }
    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &, const AnalyzeOptions &, const RunControl *) override
    {
        return Error{"not used"};
    }
    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &,
                                                  const RunControl *) override
    {
        std::vector<std::vector<float>> out;
        for (const auto &in : batch) {
            if (in.secondWords.size() > 40)
                return Error{"too long"}; // one refused pair must not cost its batch
            std::vector<float> v(12, 0.0f);
            v[static_cast<std::size_t>(std::min(in.secondConstituency->depth(), 10))] = 1.0f;
            v[11] = static_cast<float>(in.secondWords.size()) / 10.0f;
            out.push_back(v);
        }
        return out;
    }
    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &, const RunControl *) override
    {
        return Error{"not used"};
    }

private:
    EncoderInfo m_info;
};

/// A candidate whose depth grows with `nest` PPs and whose top constituents alternate with `k`.
std::string candidate(int nest, int k)
{
    std::string pp;
    for (int i = 0; i < nest; ++i)
        pp = "(PP (IN in) (NP (NN box" + std::to_string(i) + ")" + (pp.empty() ? "" : " " + pp) + "))";
    const std::string vp = "(VP (VBD sat)" + (pp.empty() ? "" : " " + pp) + ")";
    return k % 2 ? "(S (NP (DT the) (NN cat)) " + vp + " (. .))" : "(S (ADVP (RB then)) (NP (PRP it)) " + vp + " (. !))";
}

PairCorpus corpus(int n, int seed, bool withTooLong)
{
    PairCorpus c;
    c.task = kRankingTask;
    c.labels = {"0", "1"};
    c.source = "generated";
    auto q = readPtbSentences("(SBARQ (WHNP (WP what)) (SQ (VBD sat)) (. ?))", "q");
    for (int i = 0; i < n; ++i) {
        const int nest = (i / 2 + seed) % 4; // both shapes at every depth
        auto a = readPtbSentences(candidate(nest, i + seed), "a");
        SentencePair p;
        p.group = "g" + std::to_string(i / 5);
        p.first = q->front();
        p.second = a->front();
        p.label = i % 5 == 0 ? "1" : "0";
        c.pairs.push_back(p);
    }
    if (withTooLong) {
        std::string words;
        for (int i = 0; i < 45; ++i)
            words += " (NN w" + std::to_string(i) + ")";
        SentencePair p = c.pairs.front();
        p.second = readPtbSentences("(S (NP" + words + "))", "long")->front();
        c.pairs.push_back(p);
    }
    return c;
}

} // namespace

TEST(PairProbe, FindsWhatThePairVectorEncodesAndNotWhatItLacks)
{
    DepthLengthPairEncoder enc;
    ProbeTrainOptions o;
    o.maxEpochs = 60;
    o.patience = 0;
    auto report = runPairProbes(enc, corpus(400, 1, true), corpus(80, 2, false), corpus(120, 3, true),
                                {ProbeTask::TreeDepth, ProbeTask::SentLen, ProbeTask::TopConst}, o);
    ASSERT_TRUE(report) << report.message();
    EXPECT_EQ(report->dim, 12);
    EXPECT_EQ(report->pairs[0], 400u);
    EXPECT_EQ(report->leftOut[0], 1u); // the refused long pair, alone
    EXPECT_EQ(report->leftOut[2], 1u);
    ASSERT_EQ(report->rows.size(), 3u);
    const auto &depth = report->rows[0], &length = report->rows[1], &top = report->rows[2];
    EXPECT_EQ(depth.task, "treedepth");
    EXPECT_EQ(depth.classes, 4);
    EXPECT_GT(depth.test_.macroF1, 0.95);
    EXPECT_LT(depth.majorityMacroF1, 0.2);
    EXPECT_TRUE(length.regression);
    EXPECT_LT(length.test_.mse, 0.1 * length.meanMse);
    // Top constituents alternate with the pair's index parity, which the vector does not carry
    // (depth and length do not tell the two shapes apart: "the cat sat ... ." and "then it sat ... !" have as many words).
    EXPECT_EQ(top.classes, 3); // two sequences + "other"
    EXPECT_LT(top.test_.accuracy, 0.75);
}
