// treelens-cli score-pairs / eval-pairs: a pair model (or the IDF word-overlap
// baseline) over a sentence-pair corpus, scores per pair and metrics per slice.
#include <algorithm>
#include <charconv>
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/base/strings.h"
#include "core/encoders/encoder.h"
#include "core/eval/paireval.h"
#include "core/eval/pairtable.h"
#include "core/formats/pairs.h"
#include "core/model/modelfile.h"
#include "core/model/trainingdata.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"
#include "core/encoders/common/randominit.h"
#include "core/probing/pairprobe.h"

namespace treelens::cli {

namespace {

using nlohmann::json;

constexpr const char *kIdfBaseline = kIdfBaselineName;

struct PairSpec {
    std::string model, input, format = "auto", idfFrom, device = "auto", out;
    int batchSize = 64;
    ParserSpec parser;
};

void addPairOptions(CLI::App *cmd, PairSpec &spec)
{
    cmd->add_option("-m,--model", spec.model, std::string("A pair model (.safetensors), or '") + kIdfBaseline +
                                                  "' for the IDF-weighted word-overlap baseline")
        ->required()
        ->type_name("M");
    cmd->add_option("-i,--input", spec.input, "Pair corpus: a WikiQA folder, ranking TSV, RTE XML or pairs JSON")
        ->required()
        ->type_name("PAIRS");
    cmd->add_option("--format", spec.format, "auto, wikiqa, tsv, rte or json")->capture_default_str();
    cmd->add_option("--idf-from", spec.idfFrom, std::string("'") + kIdfBaseline +
                                                    "': the corpus whose candidate sentences give the IDF "
                                                    "(default: the input's own)")
        ->type_name("PAIRS");
    cmd->add_option("--device", spec.device, "cpu, cuda, cuda:N or auto")->capture_default_str();
    cmd->add_option("--batch-size", spec.batchSize, "Pairs per forward pass")->check(CLI::PositiveNumber)->capture_default_str();
}

/// What a system said about every pair of a corpus.
struct PairScores {
    std::vector<double> scores;            ///< ranking score per pair
    std::vector<std::string> predicted;    ///< classification: the corpus label predicted ("" = none)
    std::string system;                    ///< model name or the baseline
};

Status parseBothSides(PairCorpus &corpus, const PairSpec &spec, const char *command, const char *consequence);

/// Scores `corpus`, which is pairs firstIndex .. of `whole` (a shard; null: the whole corpus).
Result<PairScores> scorePairs(const PairSpec &spec, const PairCorpus &corpus, std::size_t firstIndex = 0,
                              const PairCorpus *whole = nullptr)
{
    PairScores out;
    if (spec.model == kIdfBaseline) {
        PairSystem s;
        if (spec.idfFrom.empty()) {
            s = idfBaselineSystem(corpus, whole ? *whole : corpus); // a shard: the IDF of the whole corpus
        } else {
            auto from = readPairCorpus(spec.idfFrom);
            if (!from)
                return from.error();
            s = idfBaselineSystem(corpus, *from);
        }
        out.scores = std::move(s.scores);
        out.predicted = std::move(s.predicted);
        out.system = s.name;
        return out;
    }
    DeviceConfig dc;
    dc.device = spec.device;
    dc.batchSize = spec.batchSize;
    auto encoder = loadEncoder(spec.model, dc);
    if (!encoder)
        return encoder.error();
    if (!(*encoder)->info().pairInput)
        return makeError(spec.model, "a " + (*encoder)->info().family + " model reads single sentences, not pairs (its "
                                                                       "analyses can be shown on both sides of a pair in the app)");
    // A model that reads trees (the Dependency-Transformer's pair head) gets both sides parsed
    // first when the corpus lacks them, as analyze does for single sentences.
    const PairCorpus *input = &corpus;
    PairCorpus parsed;
    const InputKind kind = (*encoder)->info().input;
    auto lacksTree = [kind](const Sentence &s) {
        return (kind == InputKind::WordsWithDependency && !s.dependency) || (kind == InputKind::WordsWithConstituency && !s.constituency);
    };
    if (kind != InputKind::Words &&
        std::any_of(corpus.pairs.begin(), corpus.pairs.end(), [&](const SentencePair &p) { return lacksTree(p.first) || lacksTree(p.second); })) {
        parsed = corpus;
        if (auto st = parseBothSides(parsed, spec, "score-pairs", "the model cannot score their pairs"); !st)
            return st.error();
        input = &parsed;
    }
    ProgressLine progress("scoring pairs");
    RunControl control;
    control.progress = [&](std::size_t done, std::size_t, const std::string &) { progress.update(done); };
    auto s = scorePairCorpus(**encoder, *input, &control, 512, firstIndex);
    if (!s)
        return s.error();
    progress.finish();
    out.scores = std::move(s->scores);
    out.predicted = std::move(s->predicted);
    out.system = (*encoder)->info().name.empty() ? spec.model : (*encoder)->info().name;
    return out;
}

Result<PairCorpus> readInput(const PairSpec &spec)
{
    return readPairCorpus(spec.input, spec.format);
}

/// Both sides parsed (for the tree-depth slice, or for a model that reads trees); a
/// sentence the parser refuses keeps no tree, and the count is reported with `consequence`.
Status parseBothSides(PairCorpus &corpus, const PairSpec &spec, const char *command, const char *consequence)
{
    auto parser = createParser(parserConfig(spec.parser));
    if (!parser)
        return parser.error();
    ProgressLine progress("parsing pairs");
    RunControl control;
    control.progress = [&](std::size_t done, std::size_t, const std::string &) { progress.update(done); };
    auto unparsed = parsePairCorpus(corpus, **parser, control, spec.parser.maxWords);
    if (!unparsed)
        return unparsed.error();
    progress.finish();
    if (*unparsed > 0)
        std::cerr << command << ": " << *unparsed << " sentences were not parsed (" << consequence << ")\n";
    return {};
}

std::string fixed(double x, int digits = 4)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

json rankingJson(const RankingEval &e)
{
    return {{"map", e.map}, {"mrr", e.mrr}, {"p_at_1", e.precisionAt1}, {"questions", e.groupsUsed},
            {"dropped_no_correct", e.droppedNoCorrect}, {"dropped_all_correct", e.droppedAllCorrect}};
}

json classificationJson(const ClassificationEval &e)
{
    json per = json::array();
    for (const auto &l : e.perLabel)
        per.push_back({{"label", l.label}, {"precision", l.precision}, {"recall", l.recall}, {"f1", l.f1},
                       {"gold", l.gold}, {"predicted", l.predicted}});
    return {{"accuracy", e.accuracy}, {"macro_f1", e.macroF1}, {"pairs", e.total}, {"labels", e.labels},
            {"per_label", per}, {"confusion", e.confusion}};
}

/// eval-pairs' flags that shape its report.
struct EvalPairsFlags {
    bool slices = false, json = false;
    std::string text;
    /// The model's data use as the shards found it (a merge); unset: looked up (dataUseOf).
    std::optional<nlohmann::json> dataUse;
};

void appendf(std::string &out, const char *format, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string &out, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    if (n > 0) {
        std::string buf(static_cast<std::size_t>(n) + 1, '\0');
        std::vsnprintf(buf.data(), buf.size(), format, again);
        out.append(buf.data(), static_cast<std::size_t>(n));
    }
    va_end(again);
}

/// What the model's recipe says about the corpus (trained or chosen on it), as eval-pairs
/// reports it; null for the IDF baseline or a model file without a recipe. A merge of
/// eval-pairs shards takes it from the shards (EvalPairsFlags::dataUse), where the model was.
json dataUseOf(const PairSpec &spec)
{
    if (spec.model == kIdfBaseline)
        return nullptr;
    auto config = readModelConfigJson(spec.model);
    if (!config)
        return nullptr;
    const DataUse use = corpusUseByModel(*config, spec.model, spec.input);
    return {{"role", dataRoleName(use.role)}, {"note", use.note}};
}

/// eval-pairs' report of `scores` on `corpus` (as printed: a table, or JSON with --json);
/// a note for standard error in `note` (JSON mode).
Result<std::string> evalPairsReport(const PairSpec &spec, const EvalPairsFlags &flags, const PairCorpus &corpus,
                                    const PairScores &scores, std::string *note)
{
    std::string out;
        const bool ranking = corpus.task == kRankingTask;
        if (!ranking)
            for (const auto &p : scores.predicted)
                if (p.empty())
                    return Error{spec.model + ": gives no label of " + corpus.source +
                                "'s label set (classification needs a model with a classification head)"};
        json result = {{"system", scores.system}, {"input", spec.input}, {"task", corpus.task},
                       {"pairs", corpus.pairs.size()}};
        auto overall = [&](const PairSlice *slice) -> Result<json> {
            if (ranking) {
                auto e = slice ? evaluateRankingSlice(corpus, scores.scores, *slice) : evaluateRanking(corpus, scores.scores);
                if (!e)
                    return e.error();
                return rankingJson(*e);
            }
            auto e = slice ? evaluateClassificationSlice(corpus, scores.predicted, *slice)
                           : evaluateClassification(corpus, scores.predicted);
            if (!e)
                return e.error();
            return classificationJson(*e);
        };
        auto all = overall(nullptr);
        if (!all)
            return Error{all.message(), all.code()};
        result["overall"] = *all;
        std::vector<SliceKind> kinds;
        if (flags.slices)
            kinds = {SliceKind::QuestionWord, SliceKind::QuestionLength, SliceKind::CandidateLength,
                     SliceKind::Overlap, SliceKind::TreeDepth};
        if (!flags.text.empty())
            kinds.push_back(SliceKind::Text);
        json sliceJson = json::object(), sliceNotes = json::object();
        for (SliceKind k : kinds) {
            json rows = json::array();
            int questionSlices = 0;
            for (const auto &s : slicePairs(corpus, k, flags.text)) {
                auto m = overall(&s);
                if (!m)
                    return Error{m.message(), m.code()};
                if (ranking)
                    questionSlices += (*m)["questions"].get<int>();
                rows.push_back({{"slice", s.name}, {"pairs", s.pairs.size()}, {"metrics", *m}});
            }
            sliceJson[sliceKindName(k)] = rows;
            if (ranking)
                if (const std::string note = sliceProtocolNote(k, questionSlices, (*all)["questions"].get<int>());
                    !note.empty())
                    sliceNotes[sliceKindName(k)] = note;
        }
        if (!kinds.empty())
            result["slices"] = sliceJson;
        if (!sliceNotes.empty())
            result["slice_notes"] = sliceNotes;
        // A corpus the model was trained or chosen on: its figures say so (docs/pairs.md).
        if (const json use = flags.dataUse ? *flags.dataUse : dataUseOf(spec); !use.is_null())
            result["data_use"] = use;
        if (flags.json) {
            if (result.contains("data_use") && !result["data_use"]["note"].get<std::string>().empty())
                *note = "eval-pairs: note: " + result["data_use"]["note"].get<std::string>() + "\n";
            return result.dump(1) + "\n";
        }
        auto line = [&](const std::string &name, std::size_t pairs, const json &m) {
            appendf(out, "%-28s %6zu", name.c_str(), pairs);
            if (ranking && m["questions"].get<int>() == 0)
                appendf(out, "       -       -       -      0\n");
            else if (!ranking && pairs == 0)
                appendf(out, "       -        -\n");
            else if (ranking)
                appendf(out, "  %6s  %6s  %6s  %5d\n", fixed(m["map"]).c_str(), fixed(m["mrr"]).c_str(),
                            fixed(m["p_at_1"]).c_str(), m["questions"].get<int>());
            else
                appendf(out, "  %6s  %6s\n", fixed(m["accuracy"]).c_str(), fixed(m["macro_f1"]).c_str());
        };
        appendf(out, "%s on %s (%s, %zu pairs)\n", scores.system.c_str(), spec.input.c_str(), corpus.task.c_str(),
                    corpus.pairs.size());
        appendf(out, "%-28s %6s  %s\n", "slice", "pairs", ranking ? "   MAP     MRR     P@1  questions" : "   acc  macroF1");
        line("all", corpus.pairs.size(), *all);
        if (ranking)
            appendf(out, "(clean protocol: %d questions without a correct candidate and %d with only correct ones "
                        "left out)\n",
                        (*all)["dropped_no_correct"].get<int>(), (*all)["dropped_all_correct"].get<int>());
        for (SliceKind k : kinds) {
            appendf(out, "-- %s\n", sliceKindName(k).c_str());
            for (const auto &row : sliceJson[sliceKindName(k)])
                line(row["slice"].get<std::string>(), row["pairs"].get<std::size_t>(), row["metrics"]);
            if (sliceNotes.contains(sliceKindName(k)))
                appendf(out, "   (%s)\n", sliceNotes[sliceKindName(k)].get<std::string>().c_str());
        }
        if (result.contains("data_use") && !result["data_use"]["note"].get<std::string>().empty())
            appendf(out, "note: %s\n", result["data_use"]["note"].get<std::string>().c_str());
    return out;
}

/// eval-pairs --shard: the shard's pairs scored (whole blocks of questions, batched as the
/// whole run batches them), written as its settings (the line every shard repeats) and one
/// line per pair (index, score, predicted label); its partial metrics on standard error.
/// treelens-cli merge recomputes the report over all the pairs (mergedEvalPairs).
int evalPairsShard(const PairSpec &spec, const EvalPairsFlags &flags, const PairCorpus &corpus, ShardHeader header)
{
    const PairCorpus part = pairShard(corpus, header, 512);
    const ShardRange range{header.begin, header.end};
    header.headerLines = 1;
    // An empty shard too: the system's name goes into the settings every shard repeats.
    auto scored = scorePairs(spec, part, range.begin, &corpus);
    if (!scored)
        return fail(scored.message());
    const PairScores &scores = *scored;
    const json settings = {{"model", spec.model}, {"input", spec.input}, {"format", spec.format}, {"idf_from", spec.idfFrom},
                           {"system", scores.system}, {"slices", flags.slices}, {"json", flags.json}, {"text", flags.text},
                           {"data_use", dataUseOf(spec)},
                           {"parser", {{"parser", spec.parser.parser}, {"timeout", spec.parser.timeout},
                                       {"max_words", spec.parser.maxWords}, {"command", spec.parser.command},
                                       {"model", spec.parser.model}, {"tree_file", spec.parser.treeFile}}}};
    std::string out = shardHeaderLine(header) + settings.dump() + "\n";
    char buf[64];
    for (std::size_t i = 0; i < part.pairs.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%.17g", scores.scores[i]);
        out += std::to_string(range.begin + i) + "\t" + buf + "\t" + scores.predicted[i] + "\n";
    }
    out += shardEndLine(part.pairs.size());
    // The shard's own figures, for a look while the others run (merge gives the corpus').
    if (!part.pairs.empty()) {
        if (part.task == kRankingTask) {
            if (auto e = evaluateRanking(part, scores.scores))
                std::cerr << "eval-pairs: shard " << header.shard.str() << " (partial): MAP " << fixed(e->map) << ", MRR "
                          << fixed(e->mrr) << " over " << e->groupsUsed << " questions\n";
        } else if (auto e = evaluateClassification(part, scores.predicted)) {
            std::cerr << "eval-pairs: shard " << header.shard.str() << " (partial): accuracy " << fixed(e->accuracy) << " over "
                      << e->total << " pairs\n";
        }
    }
    return writeOutput(spec.out, out);
}

} // namespace

Result<std::string> mergedEvalPairs(const MergedShards &merged, std::string *note)
{
    const std::string &body = merged.body;
    const auto eol = body.find('\n');
    PairSpec spec;
    EvalPairsFlags flags;
    std::string system;
    try {
        const json j = json::parse(body.substr(0, eol));
        spec.model = j.at("model").get<std::string>();
        spec.input = j.at("input").get<std::string>();
        spec.format = j.at("format").get<std::string>();
        spec.idfFrom = j.at("idf_from").get<std::string>();
        system = j.at("system").get<std::string>();
        flags.slices = j.at("slices").get<bool>();
        flags.json = j.at("json").get<bool>();
        flags.text = j.at("text").get<std::string>();
        if (j.contains("data_use")) // as the shards found it, whether or not the model is here
            flags.dataUse = j.at("data_use");
        const json &pj = j.at("parser");
        spec.parser.parser = pj.at("parser").get<std::string>();
        spec.parser.timeout = pj.at("timeout").get<double>();
        spec.parser.maxWords = pj.at("max_words").get<int>();
        spec.parser.command = pj.at("command").get<std::string>();
        spec.parser.model = pj.at("model").get<std::string>();
        spec.parser.treeFile = pj.at("tree_file").get<std::string>();
    } catch (const std::exception &e) {
        return Error{"merge: the eval-pairs shards' settings line is not readable: " + std::string(e.what())};
    }
    // The metrics need the corpus: the one the shards read, unchanged since.
    if (auto st = inputUnchanged({spec.input}, merged.first.input, "eval-pairs needs the shards' input to compute the metrics",
                                 spec.input + " has");
        !st)
        return st.error();
    auto corpus = readInput(spec);
    if (!corpus)
        return corpus.error();
    PairScores scores;
    scores.system = system;
    std::istringstream lines(body.substr(eol == std::string::npos ? body.size() : eol + 1));
    std::string line;
    while (std::getline(lines, line)) {
        const auto t1 = line.find('\t'), t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
        std::size_t index = 0;
        const auto parsed = t1 == std::string::npos ? std::from_chars_result{nullptr, std::errc::invalid_argument}
                                                    : std::from_chars(line.data(), line.data() + t1, index);
        if (t2 == std::string::npos || parsed.ec != std::errc() || parsed.ptr != line.data() + t1 || index != scores.scores.size())
            return Error{"merge: eval-pairs record " + std::to_string(scores.scores.size() + 1) + " is not 'index<TAB>score<TAB>label'"};
        scores.scores.push_back(std::strtod(line.substr(t1 + 1, t2 - t1 - 1).c_str(), nullptr));
        scores.predicted.push_back(line.substr(t2 + 1));
    }
    if (scores.scores.size() != corpus->pairs.size())
        return Error{"merge: the eval-pairs shards hold " + std::to_string(scores.scores.size()) + " pairs, " + spec.input + " has " +
                     std::to_string(corpus->pairs.size())};
    if (flags.slices)
        if (auto st = parseBothSides(*corpus, spec, "eval-pairs", "their tree depth is 'unknown'"); !st)
            return st.error();
    return evalPairsReport(spec, flags, *corpus, scores, note);
}

void addScorePairsCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("score-pairs", "Score every pair of a sentence-pair corpus with a pair model");
    auto spec = std::make_shared<PairSpec>();
    auto shardOptions = std::make_shared<ShardOptions>();
    addPairOptions(cmd, *spec);
    cmd->add_option("-o,--output", spec->out, "Scores TSV (default: standard output)")->type_name("SCORES.tsv");
    addShardOptions(cmd, *shardOptions, "questions (blocks of the questions starting in each 512 pairs)");
    cmd->footer("Writes one line per pair in input order after the header 'qid<TAB>index<TAB>label<TAB>score':\n"
                "the pair's group (question id), its 0-based position in the input, its gold label and the\n"
                "model's ranking score (higher = more relevant).");
    cmd->callback([&action, spec, shardOptions]() {
        action = [spec, shardOptions]() {
            auto shard = shardHeaderFor(*shardOptions, "score-pairs", spec->input, spec->out);
            if (!shard)
                return fail(shard.message());
            if (*shard && skipDoneShard(*shardOptions, **shard, spec->out))
                return 0;
            auto corpus = readInput(*spec);
            if (!corpus)
                return fail(corpus.message());
            // A shard: whole blocks of questions, scored in the blocks the whole run scores them in.
            ShardRange range{0, corpus->pairs.size()};
            PairCorpus part;
            const PairCorpus *scored = &*corpus;
            if (*shard) {
                part = pairShard(*corpus, **shard, 512);
                (*shard)->headerLines = 1;
                range = {(*shard)->begin, (*shard)->end};
                scored = &part;
            }
            // An empty shard too: the model is opened (a model that cannot score pairs is refused in every shard).
            auto scores = scorePairs(*spec, *scored, range.begin, &*corpus);
            if (!scores)
                return fail(scores.message());
            std::ostringstream o;
            if (*shard)
                o << shardHeaderLine(**shard);
            o << "qid\tindex\tlabel\tscore\n";
            char buf[64];
            for (std::size_t i = 0; i < scored->pairs.size(); ++i) {
                std::snprintf(buf, sizeof buf, "%.9g", scores->scores[i]);
                o << scored->pairs[i].group << '\t' << range.begin + i << '\t' << scored->pairs[i].label << '\t' << buf << '\n';
            }
            if (*shard)
                o << shardEndLine(scored->pairs.size());
            return writeOutput(spec->out.empty() ? "-" : spec->out, o.str());
        };
    });
}

void addEvalPairsCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("eval-pairs", "Metrics of a pair model (or the IDF baseline) on a pair corpus: "
                                                 "MAP/MRR/P@1 for ranking, accuracy/F1 for classification");
    auto spec = std::make_shared<PairSpec>();
    addPairOptions(cmd, *spec);
    auto slices = std::make_shared<bool>(false);
    auto asJson = std::make_shared<bool>(false);
    auto text = std::make_shared<std::string>();
    cmd->add_flag("--slices", *slices, "Also per slice: question word, question and candidate length, lexical overlap, "
                                       "tree depth (both sides are parsed for it: --parser)");
    addParserOptions(cmd, spec->parser);
    cmd->add_option("--text", *text, "Also the slice of pairs whose question or candidate contains this text");
    cmd->add_flag("--json", *asJson, "Print JSON instead of a table");
    cmd->add_option("-o,--output", spec->out, "Write the report to OUT (atomically) instead of standard output")->type_name("OUT");
    auto shardOptions = std::make_shared<ShardOptions>();
    addShardOptions(cmd, *shardOptions,
                    "questions (blocks of the questions starting in each 512 pairs); a shard writes its pairs' scores, "
                    "treelens-cli merge computes the metrics over all of them");
    cmd->footer("Ranking corpora use the clean protocol: questions without a correct candidate, or with only correct\n"
                "candidates, are left out (their counts are printed). A binary pair model's second label\n"
                "(relevant) stands for the corpus's positive label (1, YES) on classification corpora.");
    cmd->callback([&action, spec, slices, asJson, text, shardOptions]() {
        action = [spec, slices, asJson, text, shardOptions]() {
            auto shard = shardHeaderFor(*shardOptions, "eval-pairs", spec->input, spec->out);
            if (!shard)
                return fail(shard.message());
            if (*shard && skipDoneShard(*shardOptions, **shard, spec->out))
                return 0;
            auto corpus = readInput(*spec);
            if (!corpus)
                return fail(corpus.message());
            if (*shard)
                return evalPairsShard(*spec, {*slices, *asJson, *text}, *corpus, **shard);
            auto scores = scorePairs(*spec, *corpus);
            if (!scores)
                return fail(scores.message());
            if (*slices)
                if (auto st = parseBothSides(*corpus, *spec, "eval-pairs", "their tree depth is 'unknown'"); !st)
                    return fail(st.message());
            std::string note;
            auto report = evalPairsReport(*spec, {*slices, *asJson, *text}, *corpus, *scores, &note);
            if (!report)
                return fail(report.message());
            std::cerr << note;
            return writeOutput(spec->out, *report);
        };
    });
}

void addProbePairsCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("probe-pairs", "The tree-aggregation paper's probing experiment (Table 6): an MLP probe on a "
                                                  "pair model's frozen pair vectors predicts the candidate's top constituents, "
                                                  "tree depth and length");
    struct Spec {
        std::vector<std::string> models;
        std::string train, dev, test, tasks = "topconst,treedepth,sentlen", device = "cpu";
        unsigned seed = 1;
        int epochs = 40, patience = 10;
        bool randomInit = false, asJson = false;
        ParserSpec parser;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("-m,--model", spec->models, "Pair models (repeat for several)")->required()->type_name("M");
    cmd->add_option("--train", spec->train, "Pairs the probes are trained on (WikiQA train)")->required()->type_name("PAIRS");
    cmd->add_option("--dev", spec->dev, "Pairs the probe's epoch is chosen on")->required()->type_name("PAIRS");
    cmd->add_option("--test", spec->test, "Pairs the probes are scored on")->required()->type_name("PAIRS");
    cmd->add_option("--tasks", spec->tasks, "Comma-separated: topconst, treedepth, sentlen")->capture_default_str();
    cmd->add_option("--seed", spec->seed, "The probes' seed (and the random-init baseline's)")->capture_default_str();
    cmd->add_option("--epochs", spec->epochs, "At most this many probe epochs")->check(CLI::PositiveNumber)->capture_default_str();
    cmd->add_option("--patience", spec->patience, "Stop after this many epochs without a better dev metric (0 = never)")
        ->capture_default_str();
    cmd->add_flag("--random-init", spec->randomInit, "Also probe each model's configuration with random weights (baseline)");
    cmd->add_option("--device", spec->device, "cpu, cuda, cuda:N or auto")->capture_default_str();
    addParserOptions(cmd, spec->parser);
    cmd->add_flag("--json", spec->asJson, "Print JSON instead of a table");
    cmd->footer("Each split's pairs are parsed first (constituency trees). Metrics: macro-F1 for topconst and\n"
                "treedepth (next to the majority class), MSE for sentlen (next to always predicting the train mean).");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            std::vector<ProbeTask> tasks;
            for (const auto name : splitView(spec->tasks, ',')) {
                auto t = parseProbeTask(std::string(trimView(name)));
                if (!t)
                    return fail(t.message());
                tasks.push_back(*t);
            }
            PairCorpus corpora[3];
            const std::string paths[3] = {spec->train, spec->dev, spec->test};
            PairSpec ps;
            ps.parser = spec->parser;
            for (int s = 0; s < 3; ++s) {
                auto c = readPairCorpus(paths[s]);
                if (!c)
                    return fail(c.message());
                corpora[s] = std::move(*c);
                if (auto st = parseBothSides(corpora[s], ps, "probe-pairs", "their pairs are left out"); !st)
                    return fail(st.message());
            }
            ProbeTrainOptions po;
            po.seed = spec->seed;
            po.maxEpochs = spec->epochs;
            po.patience = spec->patience;
            json out = json::array();
            std::ostringstream table;
            table << "model                                   task        metric     probe   baseline  examples (train/dev/test)\n";
            DeviceConfig dc;
            dc.device = spec->device;
            for (const auto &path : spec->models) {
                for (int variant = 0; variant < (spec->randomInit ? 2 : 1); ++variant) {
                    auto encoder = variant == 0 ? loadEncoder(path, dc) : randomEncoderLike(path, spec->seed, dc);
                    if (!encoder)
                        return fail(encoder.message());
                    if (!(*encoder)->info().pairInput)
                        return fail(path + ": not a pair model");
                    ProgressLine progress("probing " + (*encoder)->info().name);
                    RunControl control;
                    control.progress = [&](std::size_t done, std::size_t, const std::string &) { progress.update(done); };
                    auto report = runPairProbes(**encoder, corpora[0], corpora[1], corpora[2], tasks, po, &control);
                    if (!report)
                        return fail(report.message());
                    progress.finish();
                    const std::string name = (*encoder)->info().name.empty() ? path : (*encoder)->info().name;
                    json rows = json::array();
                    for (const auto &r : report->rows) {
                        const double value = r.regression ? r.test_.mse : r.test_.macroF1;
                        const double base = r.regression ? r.meanMse : r.majorityMacroF1;
                        char line[256];
                        std::snprintf(line, sizeof line, "%-39s %-11s %-9s %7.4f %9.4f  %zu/%zu/%zu\n", name.substr(0, 39).c_str(),
                                      r.task.c_str(), r.regression ? "MSE" : "macro-F1", value, base, r.train, r.dev, r.test);
                        table << line;
                        rows.push_back({{"task", r.task}, {"metric", r.regression ? "mse" : "macro_f1"}, {"probe", value},
                                        {"baseline", base}, {"accuracy", r.test_.accuracy}, {"r2", r.test_.r2},
                                        {"majority_accuracy", r.majorityAccuracy}, {"classes", r.classes},
                                        {"best_epoch", r.bestEpoch}, {"train", r.train}, {"dev", r.dev}, {"test", r.test}});
                    }
                    out.push_back({{"model", name}, {"path", path}, {"random_init", variant == 1}, {"dim", report->dim},
                                   {"pairs", {report->pairs[0], report->pairs[1], report->pairs[2]}},
                                   {"left_out", {report->leftOut[0], report->leftOut[1], report->leftOut[2]}},
                                   {"rows", rows}});
                }
            }
            std::cout << (spec->asJson ? out.dump(1) + "\n" : table.str());
            return 0;
        };
    });
}

} // namespace treelens::cli
