// Errors in one place (issue 44): an Error's code survives the callers that say where it
// happened; a batch that throws becomes an internal error naming the model and its
// sentences; cancellation is a code, not a message to search; a loaded encoder whose
// forward throws returns a Status from analyze (the Hugging Face folder of faultymodel.h).
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/base/result.h"
#include "core/encoders/common/batchedencoder.h"
#include "core/encoders/encoder.h"
#include "faultymodel.h"
#include "testutil.h"

using namespace treelens;

namespace {

/// An encoder whose batches run `fault` (a throw) for the inputs whose first word is "boom".
class ThrowingEncoder : public BatchedEncoder {
public:
    enum class Fault { Torch, Memory, None };
    ThrowingEncoder(Fault fault, int batch) : BatchedEncoder(infoOf(), deviceOf(batch)), m_fault(fault) {}

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &,
                                          const RunControl *control) override
    {
        // Sorted the other way round, as a family that batches by length reorders its inputs.
        std::vector<std::size_t> order;
        for (std::size_t i = batch.size(); i-- > 0;)
            order.push_back(i);
        std::vector<Analysis> out(batch.size());
        auto s = forEachBatchOrdered(order, control, [&](std::size_t start, std::size_t end) -> Status {
            for (std::size_t k = start; k < end; ++k)
                if (!batch[order[k]].words.empty() && batch[order[k]].words.front() == "boom") {
                    if (m_fault == Fault::Memory)
                        throw std::bad_alloc();
                    // What c10::Error's what() looks like: a message, then a backtrace.
                    throw std::runtime_error("index out of range in self\nException raised from embedding at ...\nframe #0: ...");
                }
            return {};
        });
        if (!s)
            return s.error();
        return out;
    }
    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &, const EmbedOptions &, const RunControl *) override
    {
        return Error{"not used"};
    }
    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &, const RunControl *) override
    {
        return Error{"not used"};
    }

private:
    static EncoderInfo infoOf()
    {
        EncoderInfo i;
        i.family = "test";
        i.name = "thrower";
        return i;
    }
    static DeviceConfig deviceOf(int batch)
    {
        DeviceConfig d;
        d.batchSize = batch;
        return d;
    }
    Fault m_fault;
};

std::vector<EncoderInput> inputs(const std::vector<std::string> &first)
{
    std::vector<EncoderInput> out;
    for (const std::string &w : first)
        out.push_back(EncoderInput{{w, "x"}, {}, {}, {}, {}, {}});
    return out;
}

} // namespace

TEST(Errors, ACallerThatSaysWhereKeepsTheCode)
{
    const Error inner = cancelledError("analyze");
    EXPECT_EQ(inner.message, "analyze: cancelled");
    EXPECT_TRUE(isCancelled(inner));
    const Error outer = makeError("corpus.conllu:12", inner);
    EXPECT_EQ(outer.message, "corpus.conllu:12: analyze: cancelled");
    EXPECT_EQ(outer.code, ErrorCode::Cancelled);
    const Status s = outer;
    EXPECT_EQ(s.code(), ErrorCode::Cancelled);
    // A plain message is a data error unless said otherwise.
    EXPECT_EQ(makeError("f", "bad").code, ErrorCode::Data);
    EXPECT_EQ(makeError("f", "too long", ErrorCode::Refused).code, ErrorCode::Refused);
    EXPECT_FALSE(isCancelled(makeError("f", "the word cancelled in a message")));
    const Result<int> r = makeError("x", Error{"gone", ErrorCode::Io});
    EXPECT_EQ(r.code(), ErrorCode::Io);
}

TEST(Errors, ABatchThatThrowsIsAnInternalErrorNamingTheModelAndItsSentences)
{
    // Batches of 2 over 5 inputs in reverse order: input 2 ("boom") is item 3, in the batch of items 2-3 = inputs 3, 2.
    ThrowingEncoder enc(ThrowingEncoder::Fault::Torch, 2);
    auto r = enc.analyze(inputs({"a", "boom", "c", "d", "e"}), {}, nullptr);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), ErrorCode::Internal);
    EXPECT_EQ(r.message(), "thrower, analyze, sentences 3, 2 (one batch): the computation failed (index out of range in self)");
    // One sentence a batch names it exactly; the backtrace is never in the message.
    ThrowingEncoder single(ThrowingEncoder::Fault::Torch, 1);
    auto one = single.analyze(inputs({"a", "boom", "c"}), {}, nullptr);
    ASSERT_FALSE(one);
    EXPECT_EQ(one.message(), "thrower, analyze, sentence 2: the computation failed (index out of range in self)");
    ThrowingEncoder memory(ThrowingEncoder::Fault::Memory, 1);
    auto oom = memory.analyze(inputs({"boom"}), {}, nullptr);
    ASSERT_FALSE(oom);
    EXPECT_EQ(oom.code(), ErrorCode::Internal);
    EXPECT_NE(oom.message().find("out of memory"), std::string::npos) << oom.message();
}

TEST(Errors, CancellationIsACode)
{
    ThrowingEncoder enc(ThrowingEncoder::Fault::None, 1);
    RunControl control;
    control.cancelled = [] { return true; };
    auto r = enc.analyze(inputs({"a", "b"}), {}, &control);
    ASSERT_FALSE(r);
    EXPECT_TRUE(isCancelled(r.error()));
    EXPECT_EQ(r.message(), "analyze: cancelled");
}

TEST(Errors, AForwardThatThrowsInALoadedModelComesBackAsAStatus)
{
    std::string temp = ::testing::TempDir() + "treelens-faulty-XXXXXX";
    const std::string dir = test::faultyHfModel(std::string(mkdtemp(temp.data())) + "/bert-faulty");
    if (dir.empty())
        GTEST_SKIP() << "SKIPPED: shared data 'fixtures/hf-transformers-reference' not found";
    auto enc = loadEncoder(dir);
    ASSERT_TRUE(enc) << enc.message();
    std::vector<EncoderInput> batch = {EncoderInput{{"The", "old", "man"}, {}, {}, {}, {}, {}}};
    Result<std::vector<Analysis>> r = Error{"not run"};
    EXPECT_NO_THROW(r = (*enc)->analyze(batch, {}, nullptr));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), ErrorCode::Internal);
    EXPECT_NE(r.message().find("sentence 1: the computation failed (index out of range"), std::string::npos) << r.message();
    EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
    // The other doors of the encoder too.
    Result<std::vector<std::vector<float>>> e = Error{"not run"};
    EXPECT_NO_THROW(e = (*enc)->embed(batch, {}, nullptr));
    ASSERT_FALSE(e);
    EXPECT_EQ(e.code(), ErrorCode::Internal);
    Result<std::vector<std::vector<Matrix>>> l = Error{"not run"};
    EXPECT_NO_THROW(l = (*enc)->layerStates(batch, nullptr));
    ASSERT_FALSE(l);
    EXPECT_EQ(l.code(), ErrorCode::Internal);
}
