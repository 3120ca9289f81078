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

} // namespace

void addWhatifCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("whatif", "Edit a sentence's tree and run the model before and after the edits: does its "
                                             "prediction, attention or gates depend on the attachment?");
    struct Spec {
        InputSpec input;
        DeviceSpec dev;
        std::vector<std::string> edits;
        int sentence = 1;
        std::string pairs, side = "first", out, writeTree;
        bool json = false, noAttention = false;
    };
    auto spec = std::make_shared<Spec>();
    addInputOptions(cmd, spec->input, true);
    cmd->add_option("--pairs", spec->pairs, "A sentence-pair corpus instead: --sentence picks the pair, --side its sentence")
        ->type_name("PAIRS");
    addModelOptions(cmd, spec->dev);
    cmd->add_option("--edit,-e", spec->edits,
                    "An edit, applied in order (repeat the flag): head W=H (0 = root), label W=REL, bracket I-J LABEL, "
                    "unbracket I-J, relabel I-J LABEL; words from 1")
        ->type_name("E")
        ->required();
    cmd->add_option("--sentence", spec->sentence, "The sentence (or pair) of the input to edit, from 1")->capture_default_str();
    cmd->add_option("--side", spec->side, "With --pairs: the sentence of the pair to edit")
        ->check(CLI::IsMember({"first", "second"}))
        ->capture_default_str();
    cmd->add_flag("--json", spec->json, "One JSON object: before, after, edits, delta (keys in docs/cli.md)");
    cmd->add_flag("--no-attention", spec->noAttention, "Leave the per-head matrices out of before and after in --json");
    cmd->add_option("--write-tree", spec->writeTree,
                    "Write the edited tree: CoNLL-U for dependency edits, PTB brackets for constituency edits (both: by the "
                    "extension, .conllu or .ptb/.mrg)")
        ->type_name("FILE");
    cmd->add_option("-o,--output", spec->out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            // The edits first: a typo needs no model.
            std::vector<TreeEdit> edits;
            bool depEdits = false, constEdits = false;
            for (const std::string &text : spec->edits) {
                auto e = parseTreeEdit(text);
                if (!e)
                    return fail(e.message());
                (e->dependency() ? depEdits : constEdits) = true;
                edits.push_back(*e);
            }
            if (spec->sentence < 1)
                return fail("--sentence " + std::to_string(spec->sentence) + ": sentences are numbered from 1");
            auto enc = openModel(spec->dev);
            if (!enc)
                return fail(enc.message());
            const EncoderInfo &info = (*enc)->info();
            const bool pairMode = !spec->pairs.empty();
            if (!pairMode)
                if (const std::string why = singleSentenceRefusal(info); !why.empty())
                    return fail(why);

            // The sentence (and its pair partner) with the trees the model and the edits need.
            std::vector<Sentence> sentences;
            std::string source;
            if (pairMode) {
                auto corpus = readPairCorpus(spec->pairs);
                if (!corpus)
                    return fail(corpus.message());
                if (spec->sentence > static_cast<int>(corpus->pairs.size()))
                    return fail(spec->pairs + ": --sentence " + std::to_string(spec->sentence) + " but the corpus has " +
                                std::to_string(corpus->pairs.size()) + " pairs");
                const SentencePair &p = corpus->pairs[static_cast<std::size_t>(spec->sentence - 1)];
                sentences = {p.first, p.second};
                source = corpus->source;
            } else {
                auto read = readInput(spec->input);
                if (!read)
                    return fail(read.message());
                source = inputSourceName(spec->input);
                if (spec->sentence > static_cast<int>(read->size()))
                    return fail(source + ": --sentence " + std::to_string(spec->sentence) + " but the input has " +
                                std::to_string(read->size()) + " sentences");
                sentences = {(*read)[static_cast<std::size_t>(spec->sentence - 1)]};
            }
            std::unique_ptr<Parser> parser;
            const auto openParser = parserOnDemand(parser);
            if (auto st = completeTrees(sentences, depEdits || readsTree(info.input, TreeKind::Dependency),
                                        constEdits || readsTree(info.input, TreeKind::Constituency), source, openParser);
                !st)
                return fail(st.message());
            const std::size_t target = pairMode && spec->side == "second" ? 1 : 0;
            Sentence edited = sentences[target];
            for (std::size_t k = 0; k < edits.size(); ++k)
                if (auto st = applyTreeEdit(edited, edits[k]); !st)
                    return fail("edit " + std::to_string(k + 1) + " of " + std::to_string(edits.size()) + ": " + st.message());

            // Before and after in one batch.
            auto inputOf = [](const Sentence &s) { return EncoderInput{s.words(), s.dependency, s.constituency, {}, {}, {}}; };
            std::vector<EncoderInput> batch;
            const bool pairModel = pairMode && info.pairInput;
            if (pairModel) {
                std::vector<Sentence> after = sentences;
                after[target] = edited;
                batch = {pairEncoderInput(sentences[0], sentences[1]), pairEncoderInput(after[0], after[1])};
            } else {
                batch = {inputOf(sentences[target]), inputOf(edited)};
            }
            const int maxWords = info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 0;
            for (const Sentence &s : sentences)
                if (auto st = checkSentenceLength(s.tokens.size(), maxWords, source, s.line, s.id,
                                                  "the model's " + std::to_string(info.maxTokens) + " positions");
                    !st)
                    return fail(st.message());
            AnalyzeOptions opt;
            auto res = (*enc)->analyze(batch, opt);
            if (!res)
                return fail(res.message());
            const Analysis &before = (*res)[0], &after = (*res)[1];
            // The edited sentence's own analysis (a pair model's second sentence is under `second`).
            auto sideOf = [&](const Analysis &a) -> const Analysis & {
                return pairModel && target == 1 && !a.second.empty() ? a.second.front() : a;
            };
            AnalysisDelta delta = compareAnalyses(sideOf(before), sideOf(after));
            const AnalysisDelta top = compareAnalyses(before, after);
            delta.hasPrediction = top.hasPrediction;
            delta.labelBefore = top.labelBefore;
            delta.labelAfter = top.labelAfter;
            delta.labels = top.labels;
            delta.probabilityChange = top.probabilityChange;
            delta.scoreBefore = top.scoreBefore;
            delta.scoreAfter = top.scoreAfter;
            const bool reads = (depEdits && readsTree(info.input, TreeKind::Dependency)) ||
                               (constEdits && readsTree(info.input, TreeKind::Constituency));
            const Sentence &original = sentences[target];
            const bool projective = !edited.dependency || edited.dependency->isProjective();
            // What changes for a model that does not read the edited tree: the comparisons with it.
            json comparisons = json::object();
            if (depEdits && !sideOf(before).attention.empty())
                comparisons["head_share"] = {{"before", arcShares(original, sideOf(before))},
                                             {"after", arcShares(edited, sideOf(after))}};
            if (constEdits && sideOf(before).inducedTree && original.constituency && edited.constituency) {
                const auto f1 = [](const ConstituencyTree &gold, const ConstituencyTree &induced) {
                    return compareTrees(gold, induced, false).f1();
                };
                comparisons["induced_f1"] = {{"before", f1(*original.constituency, *sideOf(before).inducedTree)},
                                             {"after", f1(*edited.constituency, *sideOf(after).inducedTree)}};
            }

            std::string text;
            if (spec->json) {
                json j;
                j["sentence"] = spec->sentence;
                if (pairMode)
                    j["side"] = spec->side;
                j["words"] = edited.words();
                j["edits"] = spec->edits;
                j["reads_tree"] = reads;
                j["tree"] = {{"projective", projective}};
                if (depEdits && edited.dependency)
                    j["tree"]["dependency"] = {{"heads", edited.dependency->heads}, {"deprels", edited.dependency->deprels},
                                               {"note", editedTreeNote(edited, false)}};
                if (constEdits && edited.constituency)
                    j["tree"]["constituency"] = {{"ptb", writePtbTree(*edited.constituency)}, {"note", editedTreeNote(edited, true)}};
                const bool attention = !spec->noAttention;
                j["before"] = json::parse(analysisToJson(before, attention));
                j["after"] = json::parse(analysisToJson(after, attention));
                json d;
                if (delta.hasPrediction)
                    d["prediction"] = {{"before", delta.labelBefore},       {"after", delta.labelAfter},
                                       {"labels", delta.labels},            {"probability_change", delta.probabilityChange},
                                       {"score_before", delta.scoreBefore}, {"score_after", delta.scoreAfter},
                                       {"score_change", delta.scoreAfter - delta.scoreBefore}};
                d["attention"] = headDeltasJson(delta.attention, sideOf(after));
                if (!delta.gates.empty())
                    d["gates"] = headDeltasJson(delta.gates, sideOf(after));
                if (!delta.nodes.empty()) {
                    json nodes = json::array();
                    for (const NodeDelta &n : delta.nodes)
                        nodes.push_back({{"span", {n.start + 1, n.end}}, {"label", n.label}, {"before", n.before}, {"after", n.after},
                                         {"norm_before", n.normBefore}, {"norm_after", n.normAfter}});
                    d["nodes"] = nodes;
                }
                d["changed"] = delta.changed();
                if (!comparisons.empty())
                    d["comparisons"] = comparisons;
                j["delta"] = d;
                text = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
            } else {
                text += (pairMode ? "pair " + std::to_string(spec->sentence) + ", " + spec->side + " sentence: "
                                  : "sentence " + std::to_string(spec->sentence) + ": ") +
                        join(edited.words(), " ") + "\n";
                text += "edits: " + join(spec->edits, "; ") + "\n";
                if (depEdits)
                    text += "dependency tree: " + editedTreeNote(edited, false) + (projective ? "" : ", non-projective") + "\n";
                if (constEdits)
                    text += "constituency tree: " + editedTreeNote(edited, true) + ": " + writePtbTree(*edited.constituency) + "\n";
                if (!reads)
                    text += "note: " + (info.name.empty() ? info.family : info.name) +
                            " does not read the edited tree: its analysis is the same; only comparisons with the tree change\n";
                if (delta.hasPrediction) {
                    text += "prediction: " + delta.labelBefore + " -> " + delta.labelAfter;
                    for (std::size_t k = 0; k < delta.labels.size() && k < delta.probabilityChange.size(); ++k)
                        text += (k == 0 ? " (" : ", ") + delta.labels[k] + " " + signedNumber(delta.probabilityChange[k]);
                    text += delta.labels.empty() ? "" : ")";
                    text += "; score " + number(delta.scoreBefore) + " -> " + number(delta.scoreAfter) + "\n";
                }
                if (!delta.attention.empty()) {
                    const auto most = std::max_element(delta.attention.begin(), delta.attention.end(),
                                                       [](const HeadDelta &a, const HeadDelta &b) { return a.maxAbs < b.maxAbs; });
                    const auto &toks = sideOf(after).tokens;
                    text += "attention: largest change " + signedNumber(most->change) + " at layer " + std::to_string(most->layer + 1) +
                            ", head " + std::to_string(most->head + 1);
                    if (most->row >= 0 && most->row < static_cast<int>(toks.size()) && most->col < static_cast<int>(toks.size()))
                        text += " (" + toks[static_cast<std::size_t>(most->row)] + " -> " + toks[static_cast<std::size_t>(most->col)] + ")";
                    text += "\n";
                }
                if (!delta.gates.empty()) {
                    const auto most = std::max_element(delta.gates.begin(), delta.gates.end(),
                                                       [](const HeadDelta &a, const HeadDelta &b) { return a.maxAbs < b.maxAbs; });
                    text += "gates: largest change " + signedNumber(most->change) + " at layer " + std::to_string(most->layer + 1) +
                            ", head " + std::to_string(most->head + 1) + "\n";
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
                if (comparisons.contains("induced_f1"))
                    text += "induced tree vs the tree: F1 " + number(comparisons["induced_f1"]["before"].get<double>(), 1) + " -> " +
                            number(comparisons["induced_f1"]["after"].get<double>(), 1) + "\n";
            }
            if (!spec->writeTree.empty()) {
                std::string tree;
                const bool conlluName = spec->writeTree.size() >= 7 &&
                                        spec->writeTree.compare(spec->writeTree.size() - 7, 7, ".conllu") == 0;
                const bool conllu = depEdits && (!constEdits || conlluName);
                if (conllu) {
                    tree = writeConllu({edited});
                } else {
                    auto ptb = writePtb({edited});
                    if (!ptb)
                        return fail(ptb.message());
                    tree = *ptb;
                }
                if (writeOutput(spec->writeTree, tree) != 0)
                    return 1;
            }
            return writeOutput(spec->out, text);
        };
    });
}

} // namespace treelens::cli
