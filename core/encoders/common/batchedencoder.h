#pragma once
/// \file batchedencoder.h
/// The base every encoder family derives from: it holds the EncoderInfo and the
/// device settings, runs a family's work over batches (with the settings' threads
/// on the calling thread, computecontext.h) while asking the RunControl to stop
/// between them, and splits sentence pairs into sides for the families whose pair
/// model reads each sentence alone. Torch-free.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/runcontrol.h"
#include "core/encoders/encoder.h"

namespace treelens {

class BatchedEncoder : public Encoder {
public:
    const EncoderInfo &info() const final { return m_info; }

protected:
    /// `device.batchSize` below 1 counts as 1.
    BatchedEncoder(EncoderInfo info, const DeviceConfig &device);

    /// Calls run(start, end) for consecutive batches [start, end) of [0, count) in
    /// order, asking `control` before each, with the device settings' threads
    /// (a ThreadScope); stops at the first error, and with the error
    /// "<what>: cancelled" (ErrorCode::Cancelled) when asked to. An exception from the
    /// batch (LibTorch's c10::Error, std::bad_alloc, any std::exception) becomes an
    /// ErrorCode::Internal error naming the model and the batch's sentences: item k of
    /// the run is input `(*order)[k]` when `order` is given (a family that sorts its inputs
    /// by length), else input k.
    Status forEachBatch(std::size_t count, const RunControl *control,
                        const std::function<Status(std::size_t start, std::size_t end)> &run,
                        const char *what = "analyze", const std::vector<std::size_t> *order = nullptr) const;

    /// forEachBatch over the items of `order` (a family's inputs sorted by length: item k is
    /// input order[k]), so that an error names the inputs.
    Status forEachBatchOrdered(const std::vector<std::size_t> &order, const RunControl *control,
                               const std::function<Status(std::size_t start, std::size_t end)> &run,
                               const char *what = "analyze") const
    {
        return forEachBatch(order.size(), control, run, what, &order);
    }

    /// forEachBatch, each batch appending to `out`: `out` when every batch ran, else the
    /// first error.
    template <class T>
    Result<T> collectBatches(std::size_t count, const RunControl *control, T out,
                             const std::function<Status(std::size_t start, std::size_t end, T &out)> &run,
                             const char *what = "analyze") const
    {
        if (auto s = forEachBatch(count, control, [&](std::size_t start, std::size_t end) { return run(start, end, out); }, what); !s)
            return s.error();
        return out;
    }

    using AnalyzeFn = std::function<Result<std::vector<Analysis>>(const std::vector<EncoderInput> &, const AnalyzeOptions &,
                                                                  const RunControl *)>;
    /// layerStates() of a family that records them in its analysis: `analyze` (the
    /// encoder's own when empty) without attention and with layer states, the states taken.
    Result<std::vector<std::vector<Matrix>>> layerStatesByAnalysis(const std::vector<EncoderInput> &batch,
                                                                   const RunControl *control, const AnalyzeFn &analyze = {});

    /// embed() of a family whose vectors are in its analysis: `analyze` (the encoder's
    /// own when empty) with `options`, then vectorOf(analysis) for each input.
    Result<std::vector<std::vector<float>>> embedByAnalysis(const std::vector<EncoderInput> &batch, const RunControl *control,
                                                            const AnalyzeOptions &options,
                                                            const std::function<std::vector<float>(const Analysis &)> &vectorOf,
                                                            const AnalyzeFn &analyze = {});

    /// A pair model that reads each sentence alone: pair i's sentences become
    /// inputs 2i and 2i + 1 (a pair without a second sentence is refused with
    /// singleSentenceRefusal), go through `analyzeSentences`, and an error naming
    /// "sentence k" is told as "pair ⌈k/2⌉ (first|second sentence)".
    Result<std::vector<Analysis>> analyzePairSides(
        const std::vector<EncoderInput> &pairs,
        const std::function<Result<std::vector<Analysis>>(const std::vector<EncoderInput> &)> &analyzeSentences) const;

    /// The mean of rows firstRow.. of `m` (a sentence vector pooled from one layer's states).
    static std::vector<float> meanOfRows(const Matrix &m, int firstRow);

    EncoderInfo m_info;
    std::size_t m_batch;
    int m_threads;  ///< DeviceConfig::threads: 0 = the process's count
};

/// "sentence 3" → "pair 2 (first sentence)" in a message about the sides of pairs
/// (input 2i + 1 and 2i + 2 of the sides are pair i + 1's). Other messages unchanged.
std::string pairSideMessage(std::string message);

} // namespace treelens
