#include "core/eval/minimalpairscoring.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

namespace treelens {

std::string noLogprobRefusal(const EncoderInfo &info, const std::string &model)
{
    return model + " gives no sentence log-probability" +
           (info.sentenceScoreNote.empty() ? std::string() : " (" + info.sentenceScoreNote + ")") +
           ": minimal pairs score a language model, a decoder folder (GPT-2, Pythia, Llama, Qwen, Gemma) by log p, or a "
           "masked language model with its vocabulary head (a Tree Transformer saved with keep_projection, a "
           "BertForMaskedLM or RobertaForMaskedLM folder) by its pseudo-log-likelihood";
}

std::string sentenceScoreName(SentenceScore score)
{
    return score == SentenceScore::PseudoLogLikelihood ? "pseudo-log-likelihood" : "log-probability";
}

Status languageModelOnly(const EncoderInfo &info, const std::string &model)
{
    if (info.sentenceScore == SentenceScore::None) // a model of trees or pairs gives none either
        return Error{noLogprobRefusal(info, model), ErrorCode::Refused};
    return {};
}

Result<std::vector<ScoredPair>> scorePairs(Encoder &encoder, const std::vector<MinimalPair> &pairs, std::size_t begin,
                                           std::size_t end, const AnalyzeOptions &runOptions, const std::string &source,
                                           const std::string &model, const RunControl *control)
{
    AnalyzeOptions options = runOptions;
    options.pseudoLogLikelihood = true; // a masked language model's score (a decoder's log p needs nothing)
    auto inputs = [&](std::size_t i) {
        return std::vector<EncoderInput>{EncoderInput{pairWords(pairs[i].good), {}, {}, {}, {}, {}},
                                         EncoderInput{pairWords(pairs[i].bad), {}, {}, {}, {}, {}}};
    };
    std::vector<EncoderInput> batch;
    for (std::size_t i = begin; i < end; ++i)
        for (auto &in : inputs(i))
            batch.push_back(std::move(in));
    auto analysed = encoder.analyze(batch, options, control);
    if (!analysed && analysed.code() != ErrorCode::Refused)
        return makeError(source + ":" + std::to_string(pairs[begin].line) + "-" + std::to_string(pairs[end - 1].line),
                         analysed.message(), analysed.code());
    std::vector<ScoredPair> out;
    for (std::size_t i = begin; i < end; ++i) {
        ScoredPair sp;
        if (analysed) {
            sp.good = std::move((*analysed)[2 * (i - begin)]);
            sp.bad = std::move((*analysed)[2 * (i - begin) + 1]);
        } else { // a batch the model refused (a sentence over its context): this pair alone
            auto alone = encoder.analyze(inputs(i), options, control);
            if (alone) {
                sp.good = std::move((*alone)[0]);
                sp.bad = std::move((*alone)[1]);
            } else if (alone.code() == ErrorCode::Refused) {
                std::string why = alone.message(); // "sentence 1: ..." is the good one, "sentence 2: ..." the bad
                if (why.rfind("sentence 1: ", 0) == 0)
                    why = "good: " + why.substr(12);
                else if (why.rfind("sentence 2: ", 0) == 0)
                    why = "bad: " + why.substr(12);
                sp.skipped = why;
            } else {
                return makeError(source + ":" + std::to_string(pairs[i].line), alone.message(), alone.code());
            }
        }
        if (sp.skipped.empty() && (!sp.good.logprob || !sp.bad.logprob))
            return Error{noLogprobRefusal(encoder.info(), model), ErrorCode::Refused};
        out.push_back(std::move(sp));
    }
    return out;
}

Result<PairOutcomes> pairOutcomes(Encoder &encoder, const std::vector<MinimalPair> &pairs, const AnalyzeOptions &options,
                                  const std::string &source, const std::string &model, const RunControl *control,
                                  const std::function<void(std::size_t)> &onBlock)
{
    constexpr std::size_t kBlock = 64;
    PairOutcomes o;
    for (std::size_t start = 0; start < pairs.size(); start += kBlock) {
        const std::size_t end = std::min(pairs.size(), start + kBlock);
        auto scored = scorePairs(encoder, pairs, start, end, options, source, model, control);
        if (!scored)
            return scored.error();
        for (const ScoredPair &sp : *scored) {
            if (!sp.skipped.empty()) {
                o.correct.push_back(-1);
                o.margin.push_back(std::nan(""));
                continue;
            }
            const double m = *sp.good.logprob - *sp.bad.logprob;
            o.correct.push_back(m > 0 ? 1 : 0);
            o.margin.push_back(m);
        }
        if (onBlock)
            onBlock(end);
    }
    return o;
}

PairedChange pairedChange(const std::vector<double> &d)
{
    PairedChange c;
    if (d.empty())
        return c;
    const double n = static_cast<double>(d.size());
    double mean = 0.0;
    for (double x : d)
        mean += x / n;
    double var = 0.0;
    for (double x : d)
        var += (x - mean) * (x - mean) / std::max(1.0, n - 1.0);
    const double half = 1.96 * std::sqrt(var / n);
    c.valid = true;
    c.change = mean;
    c.low = mean - half;
    c.high = mean + half;
    return c;
}

SweepCell sweepCell(int layer, int head, const PairOutcomes &base, const PairOutcomes &ablated)
{
    SweepCell cell;
    cell.layer = layer;
    cell.head = head;
    std::vector<double> dc, dm;
    int hits = 0;
    const std::size_t n = std::min(base.correct.size(), ablated.correct.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (base.correct[i] < 0 || ablated.correct[i] < 0)
            continue;
        hits += ablated.correct[i];
        dc.push_back(ablated.correct[i] - base.correct[i]);
        dm.push_back(ablated.margin[i] - base.margin[i]);
        if (base.correct[i] == 1 && ablated.correct[i] == 0)
            cell.flippedToWrong.push_back(i);
        else if (base.correct[i] == 0 && ablated.correct[i] == 1)
            cell.flippedToRight.push_back(i);
    }
    cell.pairs = static_cast<int>(dc.size());
    cell.accuracy = dc.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(dc.size());
    cell.accuracyChange = pairedChange(dc);
    cell.marginChange = pairedChange(dm);
    return cell;
}

namespace {

PairedChange changeFrom(const nlohmann::json &value, const nlohmann::json &interval)
{
    PairedChange c;
    if (!value.is_number() || !interval.is_array() || interval.size() != 2)
        return c;
    c.valid = true;
    c.change = value.get<double>();
    c.low = interval[0].get<double>();
    c.high = interval[1].get<double>();
    return c;
}

} // namespace

Result<SweepTable> readSweepJson(const std::string &text, const std::string &source)
{
    try {
        const auto j = nlohmann::json::parse(text);
        SweepTable t;
        t.model = j.at("model").get<std::string>();
        t.input = j.at("input").get<std::string>();
        t.layers = j.at("layers").get<int>();
        t.heads = j.at("heads").get<int>();
        t.baseline = j.at("baseline").at("accuracy").get<double>();
        t.baselinePairs = j.at("baseline").at("pairs").get<int>();
        if (t.layers <= 0 || t.heads <= 0)
            return makeError(source, "an ablate-sweep result needs layers and heads above 0");
        for (const auto &c : j.at("cells")) {
            SweepCell cell;
            cell.layer = c.at("layer").get<int>() - 1;
            cell.head = c.at("head").is_null() ? -1 : c.at("head").get<int>() - 1;
            if (cell.layer < 0 || cell.layer >= t.layers || cell.head < -1 || cell.head >= t.heads)
                return makeError(source, "a cell outside the model's " + std::to_string(t.layers) + " layers and " +
                                             std::to_string(t.heads) + " heads");
            cell.pairs = c.at("pairs").get<int>();
            cell.accuracy = c.at("accuracy").get<double>();
            cell.accuracyChange = changeFrom(c.at("accuracy_change"), c.at("accuracy_change_ci95"));
            cell.marginChange = changeFrom(c.at("mean_margin_change"), c.at("mean_margin_change_ci95"));
            for (std::size_t k = 0; k < c.at("flipped_to_wrong").size(); ++k)
                cell.flippedToWrong.push_back(k);
            for (std::size_t k = 0; k < c.at("flipped_to_right").size(); ++k)
                cell.flippedToRight.push_back(k);
            t.cells.push_back(std::move(cell));
        }
        return t;
    } catch (const std::exception &e) {
        return makeError(source, std::string("not an ablate-sweep --json result: ") + e.what());
    }
}

} // namespace treelens
