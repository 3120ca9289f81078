// The compute context (core/runtime/computecontext.h): thread counts change only
// where a program applies them or for the span of a ThreadScope, and OpenBLAS's one
// pool is shared by concurrent scopes without losing a count.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/encoders/encoder.h"
#include "core/runtime/computecontext.h"

using namespace treelens;

namespace {

/// Two threads stepping through numbered phases together.
class Phases {
public:
    void reach(int phase)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_phase = std::max(m_phase, phase);
        m_changed.notify_all();
    }
    void await(int phase)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [&] { return m_phase >= phase; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_phase = 0;
};

} // namespace

TEST(ComputeContext, AScopeRestoresBothPoolsWhenItCloses)
{
    setCpuThreads(3);
    ASSERT_EQ(cpuThreads(), 3);
    {
        const ThreadScope one(1);
        EXPECT_EQ(cpuThreads(), 1);
        if (blasThreads() > 0) {
            EXPECT_EQ(blasThreads(), 1);
        }
        {
            const ThreadScope two(2); // nested: the inner count while it is open
            EXPECT_EQ(cpuThreads(), 2);
        }
        EXPECT_EQ(cpuThreads(), 1);
    }
    EXPECT_EQ(cpuThreads(), 3);
    if (blasThreads() > 0) {
        EXPECT_EQ(blasThreads(), 3);
    }
    {
        const ThreadScope none(0); // 0 keeps what is there
        EXPECT_EQ(cpuThreads(), 3);
    }
    setCpuThreads(1);
}

TEST(ComputeContext, ConcurrentScopesShareOpenBlasWithoutLosingTheProcessCount)
{
    setCpuThreads(4);
    if (blasThreads() == 0)
        GTEST_SKIP() << "LibTorch's BLAS here is not OpenBLAS (no process-wide pool to share)";
    Phases phases;
    int seenByA = 0, seenAfterA = 0;
    // A asks for 2, B for 3: the pool runs with 2 while both are open, B's 3 once A
    // closes, and the process's 4 when B closes too. Saving and restoring a count per
    // scope would end at 2 or 3 here, depending on the order.
    std::thread a([&] {
        {
            const ThreadScope scope(2);
            phases.reach(1);
            phases.await(2); // B's scope is open
            seenByA = blasThreads();
        }
        phases.reach(3);
    });
    std::thread b([&] {
        phases.await(1);
        {
            const ThreadScope scope(3);
            phases.reach(2);
            phases.await(3); // A's scope closed
            seenAfterA = blasThreads();
        }
    });
    a.join();
    b.join();
    EXPECT_EQ(seenByA, 2);
    EXPECT_EQ(seenAfterA, 3);
    EXPECT_EQ(blasThreads(), 4);
    EXPECT_EQ(cpuThreads(), 4); // this thread's count was never touched
    setCpuThreads(1);
}

TEST(ComputeContext, ApplyingItSetsBothPools)
{
    ComputeContext c;
    c.threads = 2;
    applyComputeContext(c);
    EXPECT_EQ(cpuThreads(), 2);
    if (blasThreads() > 0) {
        EXPECT_EQ(blasThreads(), 2);
    }
    c.threads = 1;
    applyComputeContext(c);
    EXPECT_EQ(cpuThreads(), 1);
}

// Loading a model and analysing with DeviceConfig::threads changes no process-wide
// count behind the caller's back (before, loading set them for good).
TEST(ComputeContext, AnEncoderRunsWithItsThreadsAndLeavesTheProcessCounts)
{
    const std::string path = defaultModelPath();
    if (path.empty())
        GTEST_SKIP() << "the shipped default model is not found";
    setCpuThreads(2);
    for (const char *model : {"tree-transformer-en-small.safetensors", "ggsa-en-wikiqa.safetensors"}) {
        const std::string file = findShippedModel(model);
        if (file.empty())
            continue;
        DeviceConfig dc;
        dc.device = "cpu";
        dc.threads = 1;
        auto enc = loadEncoder(file, dc);
        ASSERT_TRUE(enc.ok()) << enc.message();
        EXPECT_EQ(cpuThreads(), 2) << model;
        EncoderInput in;
        in.words = {"the", "cat", "sat"};
        if ((*enc)->info().pairInput)
            in.secondWords = {"a", "cat", "sat", "down"};
        auto r = (*enc)->analyze({in});
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_EQ(cpuThreads(), 2) << model;
        if (blasThreads() > 0) {
            EXPECT_EQ(blasThreads(), 2) << model;
        }
    }
    setCpuThreads(1);
}
