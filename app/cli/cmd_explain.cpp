// explain: attributions of a model's prediction on words and subtrees (issue 34).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/base/strings.h"
#include "core/encoders/encoder.h"
#include "core/eval/attribution.h"
#include "core/eval/pairtable.h"
#include "core/formats/pairs.h"
#include "core/parsing/parser.h"

namespace treelens::cli {

namespace {

using nlohmann::json;

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.5f", v);
    return buf;
}

/// One side's words, tokens and subtrees as JSON (words and subtree words from 1).
Result<json> sideJson(const SideAttribution &side, const Sentence &sentence)
{
    json j;
    json words = json::array();
    for (std::size_t k = 0; k < side.word.size(); ++k)
        words.push_back({{"index", k + 1}, {"word", k < side.words.size() ? side.words[k] : ""}, {"attribution", side.word[k]}});
    j["words"] = words;
    json tokens = json::array();
    for (std::size_t k = 0; k < side.token.size(); ++k)
        tokens.push_back({{"token", k < side.tokens.size() ? side.tokens[k] : ""}, {"attribution", side.token[k]}});
    j["tokens"] = tokens;
    j["specials"] = side.specials;
    auto subtrees = subtreeAttributions(sentence, side.word);
    if (!subtrees)
        return subtrees.error();
    json st = json::array();
    for (const SubtreeAttribution &s : *subtrees) {
        json w = json::array();
        for (int x : s.words)
            w.push_back(x + 1);
        json e = {{"kind", s.kind}, {"label", s.label}, {"words", w}, {"attribution", s.attribution}};
        if (s.head >= 0)
            e["head"] = s.head + 1;
        st.push_back(e);
    }
    j["subtrees"] = st;
    return j;
}

/// The text form of one side: each word, then the strongest subtrees of each sign.
Result<std::string> sideText(const SideAttribution &side, const Sentence &sentence)
{
    std::string out;
    for (std::size_t k = 0; k < side.word.size(); ++k)
        out += "  " + std::to_string(k + 1) + "\t" + (k < side.words.size() ? side.words[k] : "") + "\t" + num(side.word[k]) + "\n";
    if (side.specials != 0.0)
        out += "  special tokens\t" + num(side.specials) + "\n";
    auto subtrees = subtreeAttributions(sentence, side.word);
    if (!subtrees)
        return subtrees.error();
    std::vector<SubtreeAttribution> s = *subtrees;
    std::sort(s.begin(), s.end(), [](const SubtreeAttribution &a, const SubtreeAttribution &b) { return a.attribution > b.attribution; });
    const auto words = sentence.words();
    auto show = [&](const SubtreeAttribution &t) {
        std::string w;
        for (int x : t.words)
            w += (w.empty() ? "" : " ") + words[static_cast<std::size_t>(x)];
        return "  " + num(t.attribution) + "  " + t.kind + " " + t.label + ": " + w + "\n";
    };
    if (!s.empty() && s.front().attribution > 0) {
        out += " most positive subtrees:\n";
        for (std::size_t k = 0; k < s.size() && k < 3 && s[k].attribution > 0; ++k)
            out += show(s[k]);
    }
    if (!s.empty() && s.back().attribution < 0) {
        out += " most negative subtrees:\n";
        for (std::size_t k = 0; k < s.size() && k < 3 && s[s.size() - 1 - k].attribution < 0; ++k)
            out += show(s[s.size() - 1 - k]);
    }
    return out;
}

} // namespace

void addExplainCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("explain", "Attribute a model's prediction to its input words and to the subtrees of the "
                                              "sentence's trees (Integrated Gradients, gradient x input, attention rollout)");
    struct Spec {
        InputSpec input;
        DeviceSpec dev;
        std::string pairs, method = "ig", target, baseline, out;
        int steps = 64;
        bool json = false;
    };
    auto spec = std::make_shared<Spec>();
    addInputOptions(cmd, spec->input, true);
    cmd->add_option("--pairs", spec->pairs, "A sentence-pair corpus instead (a pair scorer's or classifier's pairs)")->type_name("PAIRS");
    addModelOptions(cmd, spec->dev);
    cmd->add_option("--method", spec->method, "ig (Integrated Gradients), grad-input (gradient x input) or rollout (attention "
                                              "rollout, not a gradient)")
        ->check(CLI::IsMember({"ig", "grad-input", "rollout"}))
        ->capture_default_str();
    cmd->add_option("--steps", spec->steps, "Integrated Gradients: interpolation points")->capture_default_str()->check(CLI::Range(1, 4096));
    cmd->add_option("--target", spec->target, "The label explained (default: the predicted one; a pair scorer: its score)")->type_name("L");
    cmd->add_option("--baseline", spec->baseline,
                    "The baseline embedding: zero, pad, or a token of the model's vocabulary (default: zero; the models that "
                    "layer-normalise their word vectors, where f jumps at zero: the unknown word)")
        ->type_name("B");
    cmd->add_flag("--json", spec->json, "JSON Lines: one object per sentence or pair (keys in docs/cli.md)");
    cmd->add_option("-o,--output", spec->out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto enc = openModel(spec->dev);
            if (!enc)
                return fail(enc.message());
            const EncoderInfo &info = (*enc)->info();
            ExplainOptions options;
            options.method = spec->method == "ig"           ? ExplainOptions::Method::IntegratedGradients
                             : spec->method == "grad-input" ? ExplainOptions::Method::GradientInput
                                                            : ExplainOptions::Method::Rollout;
            options.steps = spec->steps;
            options.target = spec->target;
            options.baseline = spec->baseline;
            const bool pairMode = !spec->pairs.empty();
            if (!pairMode)
                if (const std::string why = singleSentenceRefusal(info); !why.empty())
                    return fail(why);
            // The inputs, with both trees (the subtrees need them; tree-reading models too).
            std::vector<Sentence> firsts, seconds;
            std::string source;
            if (pairMode) {
                auto corpus = readPairCorpus(spec->pairs);
                if (!corpus)
                    return fail(corpus.message());
                source = corpus->source;
                for (const SentencePair &p : corpus->pairs) {
                    firsts.push_back(p.first);
                    seconds.push_back(p.second);
                }
            } else {
                auto read = readInput(spec->input);
                if (!read)
                    return fail(read.message());
                source = inputSourceName(spec->input);
                firsts = std::move(*read);
            }
            std::unique_ptr<Parser> parser;
            const auto openParser = parserOnDemand(parser);
            for (auto *side : {&firsts, &seconds})
                if (!side->empty())
                    if (auto st = completeTrees(*side, true, true, source, openParser); !st)
                        return fail(st.message());
            const bool pairModel = pairMode && info.pairInput;
            std::string text;
            for (std::size_t i = 0; i < firsts.size(); ++i) {
                // A single-sentence model given pairs explains each side on its own.
                std::vector<std::pair<const Sentence *, const Sentence *>> jobs;
                if (pairModel)
                    jobs.push_back({&firsts[i], &seconds[i]});
                else {
                    jobs.push_back({&firsts[i], nullptr});
                    if (pairMode)
                        jobs.push_back({&seconds[i], nullptr});
                }
                std::vector<Attribution> results;
                for (const auto &[first, second] : jobs) {
                    EncoderInput in = second ? pairEncoderInput(*first, *second)
                                             : EncoderInput{first->words(), first->dependency, first->constituency, {}, {}, {}};
                    if (options.method == ExplainOptions::Method::Rollout) {
                        auto analysed = (*enc)->analyze({in});
                        if (!analysed)
                            return fail(analysed.message());
                        auto r = attentionRollout(analysed->front(), info.hasClsToken);
                        if (!r)
                            return fail(source + ": sentence " + std::to_string(i + 1) + ": " + r.message());
                        results.push_back(std::move(*r));
                    } else {
                        auto r = (*enc)->explain({in}, options);
                        if (!r)
                            return fail(source + ": sentence " + std::to_string(i + 1) + ": " + r.message());
                        results.push_back(std::move(r->front()));
                    }
                }
                for (std::size_t k = 0; k < results.size(); ++k) {
                    const Attribution &a = results[k];
                    const Sentence *sides[2] = {jobs[k].first, jobs[k].second};
                    if (spec->json) {
                        json j;
                        j[pairMode ? "pair" : "sentence"] = i + 1;
                        if (pairMode && !pairModel)
                            j["side"] = k == 0 ? "first" : "second";
                        j["method"] = a.method;
                        j["target"] = a.target;
                        j["quantity"] = a.quantity;
                        if (a.steps > 0)
                            j["steps"] = a.steps;
                        if (!std::isnan(a.fInput)) {
                            j["baseline"] = a.baseline;
                            j["f_input"] = a.fInput;
                            j["f_baseline"] = a.fBaseline;
                            j["sum"] = a.total();
                            j["completeness_gap"] = a.completenessGap();
                            if (!a.warning.empty())
                                j["warning"] = a.warning;
                        }
                        for (std::size_t s = 0; s < a.sides.size() && s < 2; ++s) {
                            const Sentence *sentence = sides[s] ? sides[s] : nullptr;
                            if (!sentence)
                                continue;
                            auto sj = sideJson(a.sides[s], *sentence);
                            if (!sj)
                                return fail(sj.message());
                            if (pairModel)
                                j[s == 0 ? "first" : "second"] = *sj;
                            else
                                j.update(*sj);
                        }
                        text += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
                        continue;
                    }
                    text += (pairMode ? "pair " + std::to_string(i + 1) + (pairModel ? "" : k == 0 ? ", first" : ", second")
                                      : "sentence " + std::to_string(i + 1)) +
                            ": " + a.method + ", " + a.quantity;
                    if (!std::isnan(a.fInput)) {
                        char buf[160];
                        std::snprintf(buf, sizeof buf, "; f(input) %.5f, f(baseline %s) %.5f, sum %.5f, gap %+.5f (%.1f%%)", a.fInput,
                                      a.baseline.c_str(), a.fBaseline, a.total(), a.completenessGap(),
                                      100.0 * std::abs(a.completenessGap()) / std::max(1e-12, std::abs(a.fInput - a.fBaseline)));
                        text += buf;
                    }
                    text += "\n";
                    if (!a.warning.empty())
                        text += " warning: " + a.warning + "\n";
                    for (std::size_t s = 0; s < a.sides.size() && s < 2; ++s) {
                        if (!sides[s])
                            continue;
                        if (pairModel)
                            text += s == 0 ? " first:\n" : " second:\n";
                        auto st = sideText(a.sides[s], *sides[s]);
                        if (!st)
                            return fail(st.message());
                        text += *st;
                    }
                }
            }
            return writeOutput(spec->out, text);
        };
    });
}

} // namespace treelens::cli
