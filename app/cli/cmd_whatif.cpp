// whatif: edit a sentence's tree and run the model before and after (issue 33).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/strings.h"
#include "core/data/treeedit.h"
#include "core/encoders/encoder.h"
#include "core/eval/analysisdelta.h"
#include "core/eval/bracketeval.h"
#include "core/eval/pairtable.h"
#include "core/formats/analysisjson.h"
#include "core/formats/conllu.h"
#include "core/formats/pairs.h"
#include "core/formats/ptb.h"
#include "core/parsing/parser.h"
#include "core/probing/attentiontree.h"

namespace treelens::cli {

namespace {

using nlohmann::json;

json headDeltasJson(const std::vector<HeadDelta> &deltas, const Analysis &a)
{
    json out = json::array();
    for (const HeadDelta &d : deltas) {
        if (static_cast<int>(out.size()) <= d.layer)
            out.push_back(json::array());
        auto token = [&a](int i) { return i >= 0 && i < static_cast<int>(a.tokens.size()) ? a.tokens[static_cast<std::size_t>(i)] : ""; };
        out[static_cast<std::size_t>(d.layer)].push_back({{"max_abs", d.maxAbs},
                                                           {"mean_abs", d.meanAbs},
                                                           {"largest", {{"from", d.row}, {"to", d.col}, {"from_token", token(d.row)},
                                                                        {"to_token", token(d.col)}, {"change", d.change}}}});
    }
    return out;
}

std::string signedNumber(double v, int decimals = 4)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.*f", decimals, v);
    return buf;
}

std::string number(double v, int decimals = 4)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// whatif's flags.
struct WhatifSpec {
    InputSpec input;
    DeviceSpec dev;
    std::vector<std::string> edits;
    int sentence = 1;
    std::string pairs, side = "first", out, writeTree;
    bool json = false, noAttention = false;
};

void addWhatifOptions(CLI::App *cmd, WhatifSpec &spec)
{
    addInputOptions(cmd, spec.input, true);
    cmd->add_option("--pairs", spec.pairs, "A sentence-pair corpus instead: --sentence picks the pair, --side its sentence")
        ->type_name("PAIRS");
    addModelOptions(cmd, spec.dev);
    cmd->add_option("--edit,-e", spec.edits,
                    "An edit, applied in order (repeat the flag): head W=H (0 = root), label W=REL, bracket I-J LABEL, "
                    "unbracket I-J, relabel I-J LABEL; words from 1")
        ->type_name("E")
        ->required()
        ->allow_extra_args(false); // one edit a flag: a sentence after it stays the sentence
    cmd->add_option("--sentence", spec.sentence, "The sentence (or pair) of the input to edit, from 1")->capture_default_str();
    cmd->add_option("--side", spec.side, "With --pairs: the sentence of the pair to edit")
        ->check(CLI::IsMember({"first", "second"}))
        ->capture_default_str();
    cmd->add_flag("--json", spec.json, "One JSON object: before, after, edits, delta (keys in docs/cli.md)");
    cmd->add_flag("--no-attention", spec.noAttention, "Leave the per-head matrices out of before and after in --json");
    cmd->add_option("--write-tree", spec.writeTree,
                    "Write the edited tree: CoNLL-U for dependency edits, PTB brackets for constituency edits (both: by the "
                    "extension, .conllu or .ptb/.mrg)")
        ->type_name("FILE");
    cmd->add_option("-o,--output", spec.out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
}

/// The --edit flags parsed, and which trees they edit.
struct WhatifEdits {
    std::vector<TreeEdit> edits;
    bool dependency = false, constituency = false;
};

Result<WhatifEdits> parseEdits(const std::vector<std::string> &texts)
{
    WhatifEdits out;
    for (const std::string &text : texts) {
        auto e = parseTreeEdit(text);
        if (!e)
            return e.error();
        (e->dependency() ? out.dependency : out.constituency) = true;
        out.edits.push_back(*e);
    }
    return out;
}

/// The sentence to edit (with --pairs: the pair, `target` the side edited), with the trees the
/// model and the edits need (the missing ones parsed), and the sentence edited.
struct WhatifInput {
    std::vector<Sentence> sentences;
    std::size_t target = 0;
    Sentence edited;
    std::string source;
};

/// The --sentence of the input or of --pairs.
Result<WhatifInput> readWhatifSentences(const WhatifSpec &spec)
{
    WhatifInput in;
    if (!spec.pairs.empty()) {
        auto corpus = readPairCorpus(spec.pairs);
        if (!corpus)
            return corpus.error();
        if (spec.sentence > static_cast<int>(corpus->pairs.size()))
            return Error{spec.pairs + ": --sentence " + std::to_string(spec.sentence) + " but the corpus has " +
                         std::to_string(corpus->pairs.size()) + " pairs"};
        const SentencePair &p = corpus->pairs[static_cast<std::size_t>(spec.sentence - 1)];
        in.sentences = {p.first, p.second};
        in.source = corpus->source;
        in.target = spec.side == "second" ? 1 : 0;
        return in;
    }
    auto read = readInput(spec.input);
    if (!read)
        return read.error();
    in.source = inputSourceName(spec.input);
    if (spec.sentence > static_cast<int>(read->size()))
        return Error{in.source + ": --sentence " + std::to_string(spec.sentence) + " but the input has " +
                     std::to_string(read->size()) + " sentences"};
    in.sentences = {(*read)[static_cast<std::size_t>(spec.sentence - 1)]};
    return in;
}

/// The sentences read, their trees completed, the edits applied.
Result<WhatifInput> editedInput(const WhatifSpec &spec, const EncoderInfo &info, const WhatifEdits &edits)
{
    auto in = readWhatifSentences(spec);
    if (!in)
        return in;
    std::unique_ptr<Parser> parser;
    const auto openParser = parserOnDemand(parser);
    if (auto st = completeTrees(in->sentences, edits.dependency || readsTree(info.input, TreeKind::Dependency),
                                edits.constituency || readsTree(info.input, TreeKind::Constituency), in->source, openParser);
        !st)
        return st.error();
    in->edited = in->sentences[in->target];
    for (std::size_t k = 0; k < edits.edits.size(); ++k)
        if (auto st = applyTreeEdit(in->edited, edits.edits[k]); !st)
            return makeError("edit " + std::to_string(k + 1) + " of " + std::to_string(edits.edits.size()), st.error());
    return in;
}

/// The analyses before and after the edits (one batch), and what changed between them.
struct WhatifRun {
    bool pairMode = false, pairModel = false;
    std::size_t target = 0;
    Analysis before, after;
    AnalysisDelta delta;
    /// What changes for a model that does not read the edited tree: the comparisons with it.
    json comparisons = json::object();
    bool reads = false, projective = true;
    std::string modelName;
    /// The edited sentence's own analysis (a pair model's second sentence is under `second`).
    const Analysis &sideOf(const Analysis &a) const { return pairModel && target == 1 && !a.second.empty() ? a.second.front() : a; }
};

/// Runs the model on the sentence (or pair) before and after the edits, in one batch.
Result<std::vector<Analysis>> analyzeBeforeAfter(Encoder &encoder, const WhatifInput &in, bool pairModel)
{
    const EncoderInfo &info = encoder.info();
    auto inputOf = [](const Sentence &s) { return EncoderInput{s.words(), s.dependency, s.constituency, {}, {}, {}}; };
    std::vector<EncoderInput> batch;
    if (pairModel) {
        std::vector<Sentence> after = in.sentences;
        after[in.target] = in.edited;
        batch = {pairEncoderInput(in.sentences[0], in.sentences[1]), pairEncoderInput(after[0], after[1])};
    } else {
        batch = {inputOf(in.sentences[in.target]), inputOf(in.edited)};
    }
    const int maxWords = info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 0;
    for (const Sentence &s : in.sentences)
        if (auto st = checkSentenceLength(s.tokens.size(), maxWords, in.source, s.line, s.id,
                                          "the model's " + std::to_string(info.maxTokens) + " positions");
            !st)
            return st.error();
    AnalyzeOptions opt;
    return encoder.analyze(batch, opt);
}

/// The delta of the edited sentence's analyses, with the whole pair's prediction.
AnalysisDelta whatifDelta(const WhatifRun &run)
{
    AnalysisDelta delta = compareAnalyses(run.sideOf(run.before), run.sideOf(run.after));
    const AnalysisDelta top = compareAnalyses(run.before, run.after);
    delta.hasPrediction = top.hasPrediction;
    delta.labelBefore = top.labelBefore;
    delta.labelAfter = top.labelAfter;
    delta.labels = top.labels;
    delta.probabilityChange = top.probabilityChange;
    delta.scoreBefore = top.scoreBefore;
    delta.scoreAfter = top.scoreAfter;
    return delta;
}

/// The heads' share of the tree's arcs (dependency edits) and the induced tree's F1 against
/// the tree (constituency edits), before and after.
json treeComparisons(const WhatifRun &run, const Sentence &original, const Sentence &edited, const WhatifEdits &edits)
{
    json comparisons = json::object();
    if (edits.dependency && !run.sideOf(run.before).attention.empty())
        comparisons["head_share"] = {{"before", arcShares(original, run.sideOf(run.before))},
                                     {"after", arcShares(edited, run.sideOf(run.after))}};
    if (edits.constituency && run.sideOf(run.before).inducedTree && original.constituency && edited.constituency) {
        const auto f1 = [](const ConstituencyTree &gold, const ConstituencyTree &induced) {
            return compareTrees(gold, induced, false).f1();
        };
        comparisons["induced_f1"] = {{"before", f1(*original.constituency, *run.sideOf(run.before).inducedTree)},
                                     {"after", f1(*edited.constituency, *run.sideOf(run.after).inducedTree)}};
    }
    return comparisons;
}

/// --json: one object (keys in docs/cli.md).
std::string whatifJson(const WhatifSpec &spec, const WhatifRun &run, const Sentence &edited, const WhatifEdits &edits)
{
    const AnalysisDelta &delta = run.delta;
    json j;
    j["sentence"] = spec.sentence;
    if (run.pairMode)
        j["side"] = spec.side;
    j["words"] = edited.words();
    j["edits"] = spec.edits;
    j["reads_tree"] = run.reads;
    j["tree"] = {{"projective", run.projective}};
    if (edits.dependency && edited.dependency)
        j["tree"]["dependency"] = {{"heads", edited.dependency->heads}, {"deprels", edited.dependency->deprels},
                                   {"note", editedTreeNote(edited, false)}};
    if (edits.constituency && edited.constituency)
        j["tree"]["constituency"] = {{"ptb", writePtbTree(*edited.constituency)}, {"note", editedTreeNote(edited, true)}};
    const bool attention = !spec.noAttention;
    j["before"] = json::parse(analysisToJson(run.before, attention));
    j["after"] = json::parse(analysisToJson(run.after, attention));
    json d;
    if (delta.hasPrediction)
        d["prediction"] = {{"before", delta.labelBefore},       {"after", delta.labelAfter},
                           {"labels", delta.labels},            {"probability_change", delta.probabilityChange},
                           {"score_before", delta.scoreBefore}, {"score_after", delta.scoreAfter},
                           {"score_change", delta.scoreAfter - delta.scoreBefore}};
    d["attention"] = headDeltasJson(delta.attention, run.sideOf(run.after));
    if (!delta.gates.empty())
        d["gates"] = headDeltasJson(delta.gates, run.sideOf(run.after));
    if (!delta.nodes.empty()) {
        json nodes = json::array();
        for (const NodeDelta &n : delta.nodes)
            nodes.push_back({{"span", {n.start + 1, n.end}}, {"label", n.label}, {"before", n.before}, {"after", n.after},
                             {"norm_before", n.normBefore}, {"norm_after", n.normAfter}});
        d["nodes"] = nodes;
    }
    d["changed"] = delta.changed();
    if (!run.comparisons.empty())
        d["comparisons"] = run.comparisons;
    j["delta"] = d;
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

/// The text lines of what changed: prediction, attention, gates, nodes, the induced tree's F1.
std::string deltaText(const WhatifRun &run)
{
    const AnalysisDelta &delta = run.delta;
    std::string text;
    if (delta.hasPrediction) {
        text += "prediction: " + delta.labelBefore + " -> " + delta.labelAfter;
        for (std::size_t k = 0; k < delta.labels.size() && k < delta.probabilityChange.size(); ++k)
            text += (k == 0 ? " (" : ", ") + delta.labels[k] + " " + signedNumber(delta.probabilityChange[k]);
        text += delta.labels.empty() ? "" : ")";
        text += "; score " + number(delta.scoreBefore) + " -> " + number(delta.scoreAfter) + "\n";
    }
    auto largest = [](const std::vector<HeadDelta> &heads) {
        return *std::max_element(heads.begin(), heads.end(), [](const HeadDelta &a, const HeadDelta &b) { return a.maxAbs < b.maxAbs; });
    };
    if (!delta.attention.empty()) {
        const HeadDelta most = largest(delta.attention);
        const auto &toks = run.sideOf(run.after).tokens;
        text += "attention: largest change " + signedNumber(most.change) + " at layer " + std::to_string(most.layer + 1) + ", head " +
                std::to_string(most.head + 1);
        if (most.row >= 0 && most.row < static_cast<int>(toks.size()) && most.col < static_cast<int>(toks.size()))
            text += " (" + toks[static_cast<std::size_t>(most.row)] + " -> " + toks[static_cast<std::size_t>(most.col)] + ")";
        text += "\n";
    }
    if (!delta.gates.empty()) {
        const HeadDelta most = largest(delta.gates);
        text += "gates: largest change " + signedNumber(most.change) + " at layer " + std::to_string(most.layer + 1) + ", head " +
                std::to_string(most.head + 1) + "\n";
    }
    if (!delta.nodes.empty()) {
        int gone = 0, added = 0;
        for (const NodeDelta &n : delta.nodes) {
            gone += n.before && !n.after;
            added += n.after && !n.before;
        }
        text += "nodes: " + std::to_string(delta.nodes.size() - static_cast<std::size_t>(gone + added)) + " kept, " +
                std::to_string(gone) + " gone, " + std::to_string(added) + " new\n";
    }
    if (run.comparisons.contains("induced_f1"))
        text += "induced tree vs the tree: F1 " + number(run.comparisons["induced_f1"]["before"].get<double>(), 1) + " -> " +
                number(run.comparisons["induced_f1"]["after"].get<double>(), 1) + "\n";
    return text;
}

/// The text form: the sentence, the edits, the edited trees, then what changed.
std::string whatifText(const WhatifSpec &spec, const WhatifRun &run, const Sentence &edited, const WhatifEdits &edits)
{
    std::string text = (run.pairMode ? "pair " + std::to_string(spec.sentence) + ", " + spec.side + " sentence: "
                                     : "sentence " + std::to_string(spec.sentence) + ": ") +
                       join(edited.words(), " ") + "\n";
    text += "edits: " + join(spec.edits, "; ") + "\n";
    if (edits.dependency)
        text += "dependency tree: " + editedTreeNote(edited, false) + (run.projective ? "" : ", non-projective") + "\n";
    if (edits.constituency)
        text += "constituency tree: " + editedTreeNote(edited, true) + ": " + writePtbTree(*edited.constituency) + "\n";
    if (!run.reads)
        text += "note: " + run.modelName +
                " does not read the edited tree: its analysis is the same; only comparisons with the tree change\n";
    return text + deltaText(run);
}

/// --write-tree: the edited tree as CoNLL-U (dependency edits) or PTB (constituency edits;
/// both: by the file's extension). The exit code (1: said on stderr).
int writeEditedTree(const std::string &path, const Sentence &edited, const WhatifEdits &edits)
{
    std::string tree;
    const bool conlluName = path.size() >= 7 && path.compare(path.size() - 7, 7, ".conllu") == 0;
    const bool conllu = edits.dependency && (!edits.constituency || conlluName);
    if (conllu) {
        tree = writeConllu({edited});
    } else {
        auto ptb = writePtb({edited});
        if (!ptb)
            return fail(ptb.message());
        tree = *ptb;
    }
    return writeOutput(path, tree) != 0 ? 1 : 0;
}

/// whatif's action: the edits checked before the model opens, the sentence edited, both
/// analysed, the difference written.
int runWhatif(const WhatifSpec &spec)
{
    // The edits first: a typo needs no model.
    auto edits = parseEdits(spec.edits);
    if (!edits)
        return fail(edits.message());
    if (spec.sentence < 1)
        return fail("--sentence " + std::to_string(spec.sentence) + ": sentences are numbered from 1");
    auto enc = openModel(spec.dev);
    if (!enc)
        return fail(enc.message());
    const EncoderInfo &info = (*enc)->info();
    WhatifRun run;
    run.pairMode = !spec.pairs.empty();
    if (!run.pairMode)
        if (const std::string why = singleSentenceRefusal(info); !why.empty())
            return fail(why);
    auto in = editedInput(spec, info, *edits);
    if (!in)
        return fail(in.message());
    run.pairModel = run.pairMode && info.pairInput;
    run.target = in->target;
    auto res = analyzeBeforeAfter(**enc, *in, run.pairModel);
    if (!res)
        return fail(res.message());
    run.before = std::move((*res)[0]);
    run.after = std::move((*res)[1]);
    run.delta = whatifDelta(run);
    run.reads = (edits->dependency && readsTree(info.input, TreeKind::Dependency)) ||
                (edits->constituency && readsTree(info.input, TreeKind::Constituency));
    run.projective = !in->edited.dependency || in->edited.dependency->isProjective();
    run.comparisons = treeComparisons(run, in->sentences[in->target], in->edited, *edits);
    run.modelName = info.name.empty() ? info.family : info.name;
    const std::string text = spec.json ? whatifJson(spec, run, in->edited, *edits) : whatifText(spec, run, in->edited, *edits);
    if (!spec.writeTree.empty() && writeEditedTree(spec.writeTree, in->edited, *edits) != 0)
        return 1;
    return writeOutput(spec.out, text);
}

} // namespace

void addWhatifCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("whatif", "Edit a sentence's tree and run the model before and after the edits: does its "
                                             "prediction, attention or gates depend on the attachment?");
    auto spec = std::make_shared<WhatifSpec>();
    addWhatifOptions(cmd, *spec);
    cmd->callback([&action, spec]() { action = [spec]() { return runWhatif(*spec); }; });
}

} // namespace treelens::cli
