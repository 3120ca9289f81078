// The base of every encoder family (see batchedencoder.h).
#include "core/encoders/common/batchedencoder.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <new>
#include <utility>

#include "core/runtime/computecontext.h"

namespace treelens {

BatchedEncoder::BatchedEncoder(EncoderInfo info, const DeviceConfig &device)
    : m_info(std::move(info)), m_batch(static_cast<std::size_t>(std::max(1, device.batchSize))), m_threads(device.threads)
{
}

Status BatchedEncoder::forEachBatch(std::size_t count, const RunControl *control,
                                    const std::function<Status(std::size_t, std::size_t)> &run, const char *what,
                                    const std::vector<std::size_t> *order) const
{
    const ThreadScope threads(m_threads);
    for (std::size_t start = 0; start < count; start += m_batch) {
        if (control && control->isCancelled())
            return cancelledError(what);
        const std::size_t end = std::min(count, start + m_batch);
        Status s;
        try {
            s = run(start, end);
        } catch (const std::bad_alloc &) {
            return internalModelError(m_info, what, batchInputsText(start, end, order), "out of memory");
        } catch (const std::exception &e) {
            return internalModelError(m_info, what, batchInputsText(start, end, order), exceptionText(e.what()));
        }
        if (!s)
            return s;
    }
    return {};
}

std::string pairSideMessage(std::string m)
{
    const auto at = m.find("sentence ");
    if (at == std::string::npos)
        return m;
    std::size_t k = 0, digits = at + 9;
    while (digits < m.size() && std::isdigit(static_cast<unsigned char>(m[digits])))
        k = k * 10 + static_cast<std::size_t>(m[digits++] - '0');
    if (k > 0)
        m.replace(at, digits - at, "pair " + std::to_string((k + 1) / 2) + (k % 2 ? " (first sentence)" : " (second sentence)"));
    return m;
}

Result<std::vector<Analysis>> BatchedEncoder::analyzePairSides(
    const std::vector<EncoderInput> &pairs,
    const std::function<Result<std::vector<Analysis>>(const std::vector<EncoderInput> &)> &analyzeSentences) const
{
    std::vector<EncoderInput> sides;
    sides.reserve(2 * pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto &in = pairs[i];
        if (in.secondWords.empty())
            return makeError("pair " + std::to_string(i + 1), singleSentenceRefusal(m_info));
        sides.push_back(EncoderInput{in.words, in.dependency, in.constituency, {}, {}, {}});
        sides.push_back(EncoderInput{in.secondWords, in.secondDependency, in.secondConstituency, {}, {}, {}});
    }
    auto analysed = analyzeSentences(sides);
    if (!analysed)
        return Error{pairSideMessage(analysed.message()), analysed.code()};
    return analysed;
}

Result<std::vector<std::vector<Matrix>>> BatchedEncoder::layerStatesByAnalysis(const std::vector<EncoderInput> &batch,
                                                                               const RunControl *control,
                                                                               const AnalyzeFn &analyzeFn)
{
    AnalyzeOptions o;
    o.attention = false;
    o.layerStates = true;
    auto r = analyzeFn ? analyzeFn(batch, o, control) : analyze(batch, o, control);
    if (!r)
        return r.error();
    std::vector<std::vector<Matrix>> states;
    states.reserve(r->size());
    for (auto &a : *r)
        states.push_back(std::move(a.layerStates));
    return states;
}

Result<std::vector<std::vector<float>>> BatchedEncoder::embedByAnalysis(
    const std::vector<EncoderInput> &batch, const RunControl *control, const AnalyzeOptions &options,
    const std::function<std::vector<float>(const Analysis &)> &vectorOf, const AnalyzeFn &analyzeFn)
{
    auto r = analyzeFn ? analyzeFn(batch, options, control) : analyze(batch, options, control);
    if (!r)
        return r.error();
    std::vector<std::vector<float>> v;
    v.reserve(r->size());
    for (const auto &a : *r)
        v.push_back(vectorOf(a));
    return v;
}

std::vector<float> BatchedEncoder::meanOfRows(const Matrix &m, int firstRow)
{
    std::vector<float> out(static_cast<std::size_t>(m.cols), 0.0f);
    const auto count = static_cast<float>(std::max(1, m.rows - firstRow));
    for (int r = firstRow; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c)
            out[static_cast<std::size_t>(c)] += m.at(r, c) / count;
    return out;
}

} // namespace treelens
