// explain: attributions of a model's prediction on words and subtrees (issue 34).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/queryfilter.h"
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
    for (std::size_t k = 0; k < side.word.size(); ++k) {
        json w = {{"index", k + 1}, {"word", k < side.words.size() ? side.words[k] : ""}, {"attribution", side.word[k]}};
        if (k < side.pieces.size())
            w["pieces"] = side.pieces[k];
        words.push_back(w);
    }
    j["words"] = words;
    if (const std::string rule = rolloutWordRule(side); !rule.empty())
        j["word_rule"] = rule;
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
        json e = {{"kind", s.kind}, {"label", s.label}, {"words", w}, {"attribution", s.attribution},
                  {"per_word", s.perWord()}, {"whole_sentence", s.wholeSentence}};
        if (s.head >= 0)
            e["head"] = s.head + 1;
        st.push_back(e);
    }
    j["subtrees"] = st;
    const RankedSubtrees ranked = rankedSubtrees(*subtrees);
    if (ranked.hasWholeSentence)
        j["whole_sentence"] = {{"attribution", ranked.wholeSentence}, {"units", ranked.wholeNames}};
    return j;
}

/// The text form of one side: each word, then the strongest subtrees of each sign.
Result<std::string> sideText(const SideAttribution &side, const Sentence &sentence)
{
    std::string out;
    for (std::size_t k = 0; k < side.word.size(); ++k) {
        out += "  " + std::to_string(k + 1) + "\t" + (k < side.words.size() ? side.words[k] : "") + "\t" + num(side.word[k]);
        if (k < side.pieces.size() && side.pieces[k] > 1)
            out += "\t(" + std::to_string(side.pieces[k]) + " pieces)";
        out += "\n";
    }
    if (const std::string rule = rolloutWordRule(side); !rule.empty())
        out += " words: " + rule + "\n";
    if (side.specials != 0.0)
        out += "  special tokens\t" + num(side.specials) + "\n";
    auto subtrees = subtreeAttributions(sentence, side.word);
    if (!subtrees)
        return subtrees.error();
    // The whole sentence is one sum, said apart; the subtrees ranked by their sum and by
    // their mean per word (the sum favours long subtrees), units of the same words merged.
    const RankedSubtrees ranked = rankedSubtrees(*subtrees);
    if (ranked.hasWholeSentence) {
        std::string names;
        for (const auto &n : ranked.wholeNames)
            names += (names.empty() ? "" : ", ") + n;
        out += " whole sentence\t" + num(ranked.wholeSentence) + " (the sum over its words: " + names + ")\n";
    }
    const auto words = sentence.words();
    auto show = [&](const SubtreeAttribution &t, double v) {
        std::string w;
        for (int x : t.words)
            w += (w.empty() ? "" : " ") + words[static_cast<std::size_t>(x)];
        return "  " + num(v) + "  " + t.kind + " " + t.label + ": " + w + "\n";
    };
    auto ranking = [&](const char *title, double (*value)(const SubtreeAttribution &)) {
        std::vector<SubtreeAttribution> s = ranked.subtrees;
        std::stable_sort(s.begin(), s.end(), [&](const auto &a, const auto &b) { return value(a) > value(b); });
        if (!s.empty() && value(s.front()) > 0) {
            out += std::string(" most positive subtrees") + title + ":\n";
            for (std::size_t k = 0; k < s.size() && k < 3 && value(s[k]) > 0; ++k)
                out += show(s[k], value(s[k]));
        }
        if (!s.empty() && value(s.back()) < 0) {
            out += std::string(" most negative subtrees") + title + ":\n";
            for (std::size_t k = 0; k < s.size() && k < 3 && value(s[s.size() - 1 - k]) < 0; ++k)
                out += show(s[s.size() - 1 - k], value(s[s.size() - 1 - k]));
        }
    };
    ranking("", [](const SubtreeAttribution &t) { return t.attribution; });
    ranking(" per word (the mean over their words)", [](const SubtreeAttribution &t) { return t.perWord(); });
    return out;
}

/// explain's flags.
struct ExplainSpec {
    InputSpec input;
    DeviceSpec dev;
    std::string pairs, method = "ig", target, baseline, out;
    int steps = 64;
    int targetWord = 0; ///< 1-based; 0 = the last word
    bool json = false;
    bool prependBos = false;
    std::vector<std::string> ablate;
    WhereSpec where;
};

void addExplainOptions(CLI::App *cmd, ExplainSpec &spec)
{
    addInputOptions(cmd, spec.input, true);
    cmd->add_option("--pairs", spec.pairs, "A sentence-pair corpus instead (a pair scorer's or classifier's pairs)")->type_name("PAIRS");
    addModelOptions(cmd, spec.dev);
    cmd->add_option("--method", spec.method, "ig (Integrated Gradients), grad-input (gradient x input) or rollout (attention "
                                             "rollout, not a gradient)")
        ->check(CLI::IsMember({"ig", "grad-input", "rollout"}))
        ->capture_default_str();
    cmd->add_option("--steps", spec.steps, "Integrated Gradients: interpolation points")->capture_default_str()->check(CLI::Range(1, 4096));
    cmd->add_option("--target", spec.target, "The label explained (default: the predicted one; a pair scorer: its score)")->type_name("L");
    cmd->add_option("--target-word", spec.targetWord,
                    "A language model: explain log p(word N | the words before it), N from 1 (default: the last word)")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--prepend-bos", spec.prependBos,
                  "A language model whose tokenizer adds no BOS: put the model's BOS in front (so the first words can be explained)");
    cmd->add_option("--baseline", spec.baseline,
                    "The baseline embedding: zero, pad, or a token of the model's vocabulary (default: zero; the models that "
                    "layer-normalise their word vectors, where f jumps at zero: the unknown word; a language model: its BOS token)")
        ->type_name("B");
    addAblateOption(cmd, spec.ablate);
    cmd->add_flag("--json", spec.json, "JSON Lines: one object per sentence or pair (keys in docs/cli.md)");
    cmd->add_option("-o,--output", spec.out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
    addWhereOptions(cmd, spec.where, "Explain only the sentences with an occurrence (each record names the words it binds)");
}

ExplainOptions explainOptions(const ExplainSpec &spec)
{
    ExplainOptions options;
    options.method = spec.method == "ig"           ? ExplainOptions::Method::IntegratedGradients
                     : spec.method == "grad-input" ? ExplainOptions::Method::GradientInput
                                                   : ExplainOptions::Method::Rollout;
    options.steps = spec.steps;
    options.target = spec.target;
    options.baseline = spec.baseline;
    options.targetWord = spec.targetWord - 1;
    options.prependBos = spec.prependBos;
    return options;
}

/// The sentences (with --pairs: each pair's first and second), with both trees: the subtrees
/// need them (tree-reading models too); the missing ones parsed. With --where only the
/// sentences with an occurrence, their numbers in the input and their occurrences.
struct ExplainInput {
    std::vector<Sentence> firsts, seconds;
    std::string source;
    std::vector<std::size_t> numbers; ///< --where: each kept sentence's index in the input
    std::vector<std::vector<PatternOccurrence>> matches;
};

Result<ExplainInput> readExplainInput(const ExplainSpec &spec, QueryFilter *filter)
{
    ExplainInput in;
    if (!spec.pairs.empty()) {
        auto corpus = readPairCorpus(spec.pairs);
        if (!corpus)
            return corpus.error();
        in.source = corpus->source;
        for (const SentencePair &p : corpus->pairs) {
            in.firsts.push_back(p.first);
            in.seconds.push_back(p.second);
        }
    } else {
        auto read = readInput(spec.input);
        if (!read)
            return read.error();
        in.source = inputSourceName(spec.input);
        in.firsts = std::move(*read);
        if (filter) { // before the trees: the pattern's tree is parsed once, by its own rules
            auto matches = filter->keepMatched(in.firsts, &in.numbers);
            if (!matches)
                return matches.error();
            in.matches = std::move(*matches);
        }
    }
    std::unique_ptr<Parser> parser;
    const auto openParser = parserOnDemand(parser);
    for (auto *side : {&in.firsts, &in.seconds})
        if (!side->empty())
            if (auto st = completeTrees(*side, true, true, in.source, openParser); !st)
                return st.error();
    return in;
}

/// What one attribution explains: a sentence (second null) or a pair.
using ExplainJob = std::pair<const Sentence *, const Sentence *>;

/// Explains input `i` (from 0): its pair as a pair model reads it, or each sentence alone.
Result<std::vector<Attribution>> explainInput(Encoder &encoder, const ExplainInput &in, std::size_t i, const ExplainOptions &options,
                                              const std::vector<ExplainJob> &jobs)
{
    std::vector<Attribution> results;
    for (const auto &[first, second] : jobs) {
        EncoderInput input = second ? pairEncoderInput(*first, *second)
                                    : EncoderInput{first->words(), first->dependency, first->constituency, {}, {}, {}};
        if (options.method == ExplainOptions::Method::Rollout) {
            auto analysed = encoder.analyze({input});
            if (!analysed)
                return analysed.error();
            auto r = attentionRollout(analysed->front(), encoder.info().hasClsToken);
            if (!r)
                return makeError(in.source + ": sentence " + std::to_string(i + 1), r.error());
            results.push_back(std::move(*r));
        } else {
            auto r = encoder.explain({input}, options);
            if (!r)
                return makeError(in.source + ": sentence " + std::to_string(i + 1), r.error());
            results.push_back(std::move(r->front()));
        }
    }
    return results;
}

/// How the output names an input: "pair" or "sentence" (from 1), and a side of a pair that a
/// single-sentence model explained alone.
struct ExplainPlace {
    std::size_t input;  ///< from 0
    std::size_t side;   ///< the job's index: 0 first, 1 second
    bool pairMode, pairModel;
    const std::vector<PatternOccurrence> *matches = nullptr; ///< --where: the sentence's occurrences
    const QueryFilter *filter = nullptr;
};

/// --json: one object for attribution `a` of `job`.
Result<std::string> attributionJson(const Attribution &a, const ExplainJob &job, const ExplainPlace &at)
{
    json j;
    j[at.pairMode ? "pair" : "sentence"] = at.input + 1;
    // The ids join the record back to the corpus (issue 47): a sentence's sent_id (s1, s2, ...
    // for text), a pair's two sentences' ids.
    if (!at.pairMode && job.first && !job.first->id.empty())
        j["sent_id"] = job.first->id;
    if (at.pairMode)
        j["ids"] = {job.first ? job.first->id : std::string(), job.second ? job.second->id : std::string()};
    if (at.pairMode && !at.pairModel)
        j["side"] = at.side == 0 ? "first" : "second";
    if (at.matches) // --where: the words each occurrence binds
        j["matches"] = json::parse(at.filter->matchesJson(*at.matches));
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
    const Sentence *sides[2] = {job.first, job.second};
    for (std::size_t s = 0; s < a.sides.size() && s < 2; ++s) {
        if (!sides[s])
            continue;
        auto sj = sideJson(a.sides[s], *sides[s]);
        if (!sj)
            return sj.error();
        if (at.pairModel)
            j[s == 0 ? "first" : "second"] = *sj;
        else
            j.update(*sj);
    }
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

/// The text form of attribution `a` of `job`: the quantity and its completeness, then each side.
Result<std::string> attributionText(const Attribution &a, const ExplainJob &job, const ExplainPlace &at)
{
    std::string text = (at.pairMode ? "pair " + std::to_string(at.input + 1) + (at.pairModel ? "" : at.side == 0 ? ", first" : ", second")
                                    : "sentence " + std::to_string(at.input + 1) +
                                          (job.first && !job.first->id.empty() ? " (" + job.first->id + ")" : std::string())) +
                       ": " + a.method + ", " + a.quantity;
    if (!std::isnan(a.fInput)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "; f(input) %.5f, f(baseline %s) %.5f, sum %.5f, gap %+.5f (%.1f%%)", a.fInput,
                      a.baseline.c_str(), a.fBaseline, a.total(), a.completenessGap(),
                      100.0 * std::abs(a.completenessGap()) / std::max(1e-12, std::abs(a.fInput - a.fBaseline)));
        text += buf;
    }
    text += "\n";
    if (at.matches && job.first)
        text += " matches: " + at.filter->matchesText(*at.matches, *job.first) + "\n";
    if (!a.warning.empty())
        text += " warning: " + a.warning + "\n";
    const Sentence *sides[2] = {job.first, job.second};
    for (std::size_t s = 0; s < a.sides.size() && s < 2; ++s) {
        if (!sides[s])
            continue;
        if (at.pairModel)
            text += s == 0 ? " first:\n" : " second:\n";
        auto st = sideText(a.sides[s], *sides[s]);
        if (!st)
            return st.error();
        text += *st;
    }
    return text;
}

/// explain's action: the model, the inputs with their trees, each input explained and written.
int runExplain(const ExplainSpec &spec)
{
    const ParserSpec whereParser; // --where's parser: query's default parser options
    std::optional<QueryFilter> where;
    if (spec.where.given()) { // a pattern that does not parse stops the run before the input is read
        auto f = QueryFilter::open(spec.where, whereParser, inputSourceName(spec.input));
        if (!f)
            return fail(f.message());
        where = std::move(*f);
    }
    QueryFilter *filter = where ? &*where : nullptr;
    auto ablate = parseAblations(spec.ablate);
    if (!ablate)
        return fail(ablate.message());
    auto enc = openModel(spec.dev);
    if (!enc)
        return fail(enc.message());
    const EncoderInfo &info = (*enc)->info();
    ExplainOptions options = explainOptions(spec);
    options.ablate = *ablate;
    const bool pairMode = !spec.pairs.empty();
    if (!pairMode)
        if (const std::string why = singleSentenceRefusal(info); !why.empty())
            return fail(why);
    auto in = readExplainInput(spec, filter);
    if (!in)
        return fail(in.message());
    const bool pairModel = pairMode && info.pairInput;
    std::string text;
    for (std::size_t i = 0; i < in->firsts.size(); ++i) {
        // A single-sentence model given pairs explains each side on its own.
        std::vector<ExplainJob> jobs;
        if (pairModel)
            jobs.push_back({&in->firsts[i], &in->seconds[i]});
        else {
            jobs.push_back({&in->firsts[i], nullptr});
            if (pairMode)
                jobs.push_back({&in->seconds[i], nullptr});
        }
        const std::size_t number = filter ? in->numbers[i] : i; // in the input, from 0
        auto results = explainInput(**enc, *in, number, options, jobs);
        if (!results)
            return fail(results.message());
        for (std::size_t k = 0; k < results->size(); ++k) {
            const ExplainPlace at{number, k, pairMode, pairModel, filter ? &in->matches[i] : nullptr, filter};
            auto out = spec.json ? attributionJson((*results)[k], jobs[k], at) : attributionText((*results)[k], jobs[k], at);
            if (!out)
                return fail(out.message());
            text += *out;
        }
    }
    if (int rc = writeOutput(spec.out, text); rc != 0)
        return rc;
    if (filter)
        std::cerr << filter->note("explain", "explained");
    return 0;
}

} // namespace

void addExplainCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("explain", "Attribute a model's prediction to its input words and to the subtrees of the "
                                              "sentence's trees (Integrated Gradients, gradient x input, attention rollout)");
    auto spec = std::make_shared<ExplainSpec>();
    addExplainOptions(cmd, *spec);
    cmd->callback([&action, spec]() {
        if (spec->where.given() && !spec->pairs.empty())
            throw CLI::ValidationError("--where", "--where restricts the sentences of TEXT or --input, not --pairs");
        action = [spec]() { return runExplain(*spec); };
    });
}

} // namespace treelens::cli
