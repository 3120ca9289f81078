// corpusinduction: per-sentence induced-tree F1 over a corpus (see corpusinduction.h).
#include "core/eval/corpusinduction.h"

#include <algorithm>
#include <chrono>

#include "core/eval/inductioneval.h"

namespace treelens {

std::vector<std::pair<int, int>> referenceBrackets(const Sentence &s, bool *fromConstituency)
{
    std::vector<std::pair<int, int>> out;
    const int n = static_cast<int>(s.tokens.size());
    if (s.constituency && !s.constituency->empty()) {
        *fromConstituency = true;
        for (const auto &sp : s.constituency->spans(false))
            out.emplace_back(sp.start, sp.end);
        return out;
    }
    *fromConstituency = false;
    if (!s.dependency || s.dependency->size() != static_cast<std::size_t>(n))
        return out;
    const auto &heads = s.dependency->heads;
    std::vector<int> lo(static_cast<std::size_t>(n)), hi(static_cast<std::size_t>(n)), count(static_cast<std::size_t>(n), 1);
    for (int i = 0; i < n; ++i)
        lo[static_cast<std::size_t>(i)] = hi[static_cast<std::size_t>(i)] = i;
    // Propagate each word's position up its head chain (trees are shallow; n·depth).
    for (int i = 0; i < n; ++i) {
        int h = heads[static_cast<std::size_t>(i)] - 1;
        for (int guard = 0; h >= 0 && guard < n; ++guard) {
            lo[static_cast<std::size_t>(h)] = std::min(lo[static_cast<std::size_t>(h)], i);
            hi[static_cast<std::size_t>(h)] = std::max(hi[static_cast<std::size_t>(h)], i);
            ++count[static_cast<std::size_t>(h)];
            h = heads[static_cast<std::size_t>(h)] - 1;
        }
    }
    for (int i = 0; i < n; ++i) {
        const int a = lo[static_cast<std::size_t>(i)], b = hi[static_cast<std::size_t>(i)] + 1;
        if (b - a == count[static_cast<std::size_t>(i)]) // contiguous
            out.emplace_back(a, b);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

Result<CorpusInduction> scoreCorpusInduction(Encoder &encoder, const std::vector<Sentence> &corpus, const RunControl *control)
{
    const auto t0 = std::chrono::steady_clock::now();
    CorpusInduction result;
    const std::size_t total = corpus.size();
    result.rows.resize(total);
    const int maxTokens = encoder.info().maxTokens;
    const int cls = encoder.info().hasClsToken ? 1 : 0;
    constexpr std::size_t batchSize = 16;
    if (!encoder.info().outputs.inducedTree)
        return Error{"this model (" + encoder.info().family + ") induces no trees: it has no constituent prior, so there is no F1 to score"};
    AnalyzeOptions options;
    options.attention = false; // the table needs links and brackets only
    bool anyConstituency = false;
    double f1Sum = 0.0;
    for (std::size_t start = 0; start < total; start += batchSize) {
        if (control && control->isCancelled())
            return cancelledError();
        std::vector<EncoderInput> batch;
        std::vector<std::size_t> index;
        std::vector<std::vector<std::pair<int, int>>> gold;
        std::vector<int> lengths;
        for (std::size_t i = start; i < std::min(total, start + batchSize); ++i) {
            const Sentence &s = corpus[i];
            result.rows[i].words = static_cast<int>(s.tokens.size());
            bool fromConstituency = false;
            auto reference = referenceBrackets(s, &fromConstituency);
            std::vector<std::string> words = s.words();
            if (fromConstituency) {
                // eval-induction's protocol: the model reads the words without punctuation.
                InductionGold g = inductionGold(*s.constituency);
                words = std::move(g.words);
                reference = std::move(g.brackets);
            }
            if (words.empty() || (fromConstituency && words.size() < 2) ||
                (maxTokens > 0 && static_cast<int>(words.size()) + cls > maxTokens))
                continue;
            anyConstituency = anyConstituency || fromConstituency;
            batch.push_back(EncoderInput{std::move(words), std::nullopt, std::nullopt, {}, {}, {}});
            index.push_back(i);
            gold.push_back(fromConstituency || s.dependency ? std::move(reference) : std::vector<std::pair<int, int>>{});
            lengths.push_back(fromConstituency || s.dependency ? static_cast<int>(batch.back().words.size()) : -1);
        }
        if (!batch.empty()) {
            auto analyses = encoder.analyze(batch, options, control);
            if (!analyses)
                return analyses.error();
            for (std::size_t k = 0; k < index.size(); ++k) {
                const Analysis &a = (*analyses)[k];
                auto &row = result.rows[index[k]];
                if (!a.linkProbs.empty() && !a.linkProbs.back().empty()) {
                    double sum = 0.0;
                    for (float v : a.linkProbs.back())
                        sum += v;
                    row.meanTopLink = sum / static_cast<double>(a.linkProbs.back().size());
                }
                if (lengths[k] >= 0) {
                    row.f1 = scoreBrackets({gold[k]}, {a.inducedBrackets}, {lengths[k]}).perSentence.front();
                    f1Sum += row.f1;
                    ++result.scored;
                }
            }
        }
        if (control)
            control->report(std::min(total, start + batchSize), total, "Analysing corpus");
    }
    result.reference = anyConstituency ? "gold constituency" : "gold dependency subtrees";
    result.meanF1 = result.scored ? f1Sum / result.scored : -1.0;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

} // namespace treelens
