// analyze, eval-induction, bench, import-checkpoint: the encoder commands.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/eval/pairtable.h"
#include "core/runtime/computecontext.h"
#include "core/parsing/pairparsing.h"
#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/jsonstrict.h"
#include "core/base/numbering.h"
#include "core/base/strings.h"
#include "core/data/specialtokens.h"
#include "core/encoders/encoder.h"
#include "core/encoders/treetransformer/encoderbench.h"
#include "core/eval/inductioneval.h"
#include "core/formats/analysisjson.h"
#include "core/formats/analysistext.h"
#include "core/formats/npy.h"
#include "core/formats/pairs.h"
#include "core/parsing/parser.h"
#include "core/formats/ptb.h"
#include "core/model/modelfile.h"

namespace treelens::cli {

namespace {

/// analyze --pairs: one JSON object per pair. A pair model analyses the pair
/// (the second sentence under "second", the pair's score in "prediction"); a
/// single-sentence encoder analyses each side on its own.
/// With --shard: whole blocks of questions (those starting in each 64 pairs), batched as
/// the whole run batches them; pair numbers and indices are the whole corpus'.
int analyzePairs(const std::string &path, const DeviceSpec &dev, bool json, bool attention, bool foldSpecial, const std::string &out,
                 const ShardOptions &shardOptions, const std::vector<HeadAblation> &ablate)
{
    constexpr std::size_t kChunk = 64;
    auto shard = shardHeaderFor(shardOptions, "analyze", path, out);
    if (!shard)
        return fail(shard.message());
    if (*shard && skipDoneShard(shardOptions, **shard, out))
        return 0;
    auto corpus = readPairCorpus(path);
    if (!corpus)
        return fail(corpus.message());
    ShardRange range{0, corpus->pairs.size()};
    if (*shard) {
        *corpus = pairShard(*corpus, **shard, kChunk);
        range = {(*shard)->begin, (*shard)->end};
    }
    auto enc = openModel(dev);
    if (!enc)
        return fail(enc.message());
    const bool pairModel = (*enc)->info().pairInput;
    // A model that reads trees: both sides parsed first when the corpus lacks them (as for single sentences).
    const InputKind kind = (*enc)->info().input;
    auto lacksTree = [kind](const Sentence &s) {
        return (kind == InputKind::WordsWithDependency && !s.dependency) || (kind == InputKind::WordsWithConstituency && !s.constituency);
    };
    if (kind != InputKind::Words &&
        std::any_of(corpus->pairs.begin(), corpus->pairs.end(),
                    [&](const SentencePair &p) { return lacksTree(p.first) || lacksTree(p.second); })) {
        auto parser = createParser(ParserConfig{});
        if (!parser)
            return fail(parser.message());
        auto unparsed = parsePairCorpus(*corpus, **parser);
        if (!unparsed)
            return fail(unparsed.message());
    }
    auto writer = AtomicFileWriter::open(out.empty() ? std::string("-") : out);
    if (!writer)
        return fail(writer.message());
    AnalyzeOptions opt;
    opt.attention = attention;
    opt.ablate = ablate;
    if (*shard)
        if (auto st = writer->write(shardHeaderLine(**shard)); !st)
            return fail(st.message());
    const std::vector<std::size_t> blocks = pairBlockStarts(corpus->pairs, kChunk, range.begin);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const std::size_t start = blocks[b], end = b + 1 < blocks.size() ? blocks[b + 1] : corpus->pairs.size();
        std::vector<EncoderInput> batch;
        for (std::size_t i = start; i < end; ++i) {
            const auto &p = corpus->pairs[i];
            batch.push_back(pairModel ? pairEncoderInput(p.first, p.second)
                                      : EncoderInput{p.first.words(), p.first.dependency, p.first.constituency, {}, {}, {}});
            if (!pairModel)
                batch.push_back(EncoderInput{p.second.words(), p.second.dependency, p.second.constituency, {}, {}, {}});
        }
        auto res = (*enc)->analyze(batch, opt);
        if (!res)
            return fail(corpus->source + ": pairs " + std::to_string(range.begin + start + 1) + "-" +
                        std::to_string(range.begin + end) + ": " + res.message());
        std::string text;
        for (std::size_t i = start, k = 0; i < end; ++i) {
            Analysis a = std::move((*res)[k++]);
            if (!pairModel)
                a.second.push_back(std::move((*res)[k++]));
            if (foldSpecial)
                a = foldSpecialTokens(a);
            const auto &p = corpus->pairs[i];
            if (!json) {
                text += "pair " + std::to_string(range.begin + i + 1) + (p.group.empty() ? "" : " (group " + p.group) +
                        (p.label.empty() ? "" : (p.group.empty() ? " (" : ", ") + std::string("label ") + p.label) +
                        (p.group.empty() && p.label.empty() ? "" : ")") + "\n";
                text += "  first:  " + join(p.first.words(), " ") + "\n  second: " + join(p.second.words(), " ") + "\n";
                text += analysisToText(a);
                continue;
            }
            auto j = nlohmann::json::parse(analysisToJson(a, attention));
            j["pair"] = {{"index", range.begin + i}, {"group", p.group}, {"label", p.label}};
            text += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
        }
        if (auto st = writer->write(text); !st)
            return fail(st.message());
    }
    if (*shard)
        if (auto st = writer->write(shardEndLine(corpus->pairs.size())); !st)
            return fail(st.message());
    if (auto st = writer->commit(); !st)
        return fail(st.message());
    return 0;
}

} // namespace

namespace {

/// analyze's options.
struct AnalyzeSpec {
    InputSpec input;
    DeviceSpec dev;
    bool json = false;
    bool noAttention = false;
    bool prependBos = false;
    bool states = false;
    bool strict = false;
    std::string out, pairs, specialTokens = "show", arrays;
    std::vector<std::string> ablate;
    ShardOptions shard;
};

/// A file name from a sentence's id after its 1-based number in the input (numberedFileStem).
std::string arrayFileStem(std::size_t number, const std::string &id) { return numberedFileStem(number, id, 6); }

/// [layers][heads] matrices of one size as one float32 array [L, H, n, n]; empty when there are none.
std::pair<std::vector<float>, std::vector<std::int64_t>> stacked(const std::vector<std::vector<Matrix>> &layers)
{
    std::vector<float> data;
    if (layers.empty() || layers.front().empty())
        return {};
    const Matrix &first = layers.front().front();
    for (const auto &heads : layers)
        for (const Matrix &m : heads)
            data.insert(data.end(), m.data.begin(), m.data.end());
    return {std::move(data), {static_cast<std::int64_t>(layers.size()), static_cast<std::int64_t>(layers.front().size()), first.rows,
                              first.cols}};
}

/// --arrays DIR: the analysis' attention (word units and pieces) and, with --states, its layer
/// states as .npy files named after the sentence; the JSON record names them under "arrays".
Result<nlohmann::json> writeArrays(const std::string &dir, const std::string &stem, const Analysis &a)
{
    nlohmann::json files = nlohmann::json::object();
    auto write = [&](const char *key, const std::pair<std::vector<float>, std::vector<std::int64_t>> &array) -> Status {
        if (array.first.empty())
            return {};
        const std::string path = (std::filesystem::path(dir) / (stem + "." + key + ".npy")).string();
        if (auto st = writeNpy(path, array.first, array.second); !st)
            return st;
        files[key] = path;
        return {};
    };
    if (auto st = write("attention", stacked(a.attention)); !st)
        return st.error();
    if (auto st = write("piece_attention", stacked(a.pieceAttention)); !st)
        return st.error();
    if (!a.layerStates.empty()) {
        std::vector<float> data;
        for (const Matrix &m : a.layerStates)
            data.insert(data.end(), m.data.begin(), m.data.end());
        const Matrix &m = a.layerStates.front();
        if (auto st = write("states", {data, {static_cast<std::int64_t>(a.layerStates.size()), m.rows, m.cols}}); !st)
            return st.error();
    }
    return files;
}

/// A sentence's id as every record names it: the corpus's sent_id (the readers name a text
/// file's sentences s1, s2, ...), else its line, else its number in the input.
std::string recordId(const Sentence &sentence, std::size_t number)
{
    if (!sentence.id.empty())
        return sentence.id;
    return std::to_string(sentence.line > 0 ? static_cast<std::size_t>(sentence.line) : number);
}

/// `{"sent_id": ID, ` + the rest of the JSON object `record` (which starts with '{').
std::string withSentId(const std::string &record, const std::string &id)
{
    return "{\"sent_id\":" + nlohmann::json(id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           (record.size() > 2 ? "," : "") + record.substr(1);
}

/// One analysed sentence as analyze prints it: a JSON record led by its sent_id (with --arrays,
/// its arrays in files instead) or text under the sentence's id when there are several.
Result<std::string> analysisRecord(const AnalyzeSpec &spec, const Analysis &a, const Sentence &sentence, std::size_t number,
                                   bool several, bool attention)
{
    if (!spec.json) {
        std::string out;
        if (several)
            out += "sentence " + recordId(sentence, number) + ": " + join(sentence.words(), " ") + "\n";
        return out + analysisToText(a);
    }
    if (spec.arrays.empty())
        return withSentId(analysisToJson(a, attention), recordId(sentence, number)) + "\n";
    auto files = writeArrays(spec.arrays, arrayFileStem(number, sentence.id), a);
    if (!files)
        return files.error();
    std::string record = withSentId(analysisToJson(a, false), recordId(sentence, number));
    record.pop_back(); // the closing brace: the files go last
    return record + ",\"arrays\":" + files->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}\n";
}

/// The record of a sentence the model could not take (too long, refused): JSON
/// {"sent_id", "error"}, or a text line under its id.
std::string skippedRecord(const AnalyzeSpec &spec, const Sentence &sentence, std::size_t number, const std::string &why)
{
    if (spec.json)
        return nlohmann::json{{"sent_id", recordId(sentence, number)}, {"error", why}}.dump(-1, ' ', false,
                                                                                          nlohmann::json::error_handler_t::replace) +
               "\n";
    return "sentence " + recordId(sentence, number) + ": skipped: " + printableMessage(why) + "\n";
}

/// What a corpus run skipped: the count and the first few reasons, for stderr.
struct SkipLog {
    std::size_t count = 0;
    std::vector<std::string> first;
    void add(const std::string &why)
    {
        if (++count <= 3)
            first.push_back(why);
    }
    std::string summary(const std::string &command, std::size_t total) const
    {
        std::string s = command + ": skipped " + std::to_string(count) + " of " + std::to_string(total) +
                        " sentences the model could not take (a record with \"error\" each; --strict stops at the first):";
        for (const std::string &w : first)
            s += "\n  " + printableMessage(w);
        if (count > first.size())
            s += "\n  ...";
        return s;
    }
};

/// analyze over sentences (TEXT, --input, stdin): a block of the input at a time (its blocks
/// start at multiples of kBlock, so a shard batches every sentence as the whole run does),
/// analysed one batch of --batch sentences at a time and written before the next, so a run
/// holds one batch of analyses whatever the corpus' size. With -o nothing is written unless
/// every sentence succeeds.
int analyzeSentences(const AnalyzeSpec &spec)
{
    constexpr std::size_t kBlock = 512;
    auto sharding = sentenceShard(spec.shard, "analyze", spec.input, spec.out, kBlock);
    if (!sharding)
        return fail(sharding.message());
    if (sharding->done)
        return 0;
    const ShardRange range = sharding->range;
    auto input = InputChunks::open(spec.input);
    if (!input)
        return fail(input.message());
    if (!spec.arrays.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(spec.arrays, ec);
        if (ec)
            return fail(spec.arrays + ": " + ec.message());
    }
    auto enc = openModel(spec.dev);
    if (!enc)
        return fail(enc.message());
    const EncoderInfo &info = (*enc)->info();
    // A pair model analyses pairs (--pairs), never one sentence on its own.
    if (const std::string why = singleSentenceRefusal(info); !why.empty())
        return fail(why);
    const int maxWords = info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 0;
    const std::string source = inputSourceName(spec.input);
    auto writer = AtomicFileWriter::open(spec.out.empty() ? std::string("-") : spec.out);
    if (!writer)
        return fail(writer.message());
    AnalyzeOptions opt;
    opt.attention = spec.json && (!spec.noAttention || !spec.arrays.empty());
    opt.layerStates = spec.states;
    opt.prependBos = spec.prependBos;
    auto ablate = parseAblations(spec.ablate);
    if (!ablate)
        return fail(ablate.message());
    opt.ablate = *ablate;
    const bool fold = spec.specialTokens == "fold";
    // A model that reads trees gets the input's own trees (CoNLL-U, PTB); sentences
    // without the tree it needs are parsed first by the default parser, which is
    // opened only then (a treebank that carries its trees needs no parser model).
    const bool needsDep = readsTree(info.input, TreeKind::Dependency);
    const bool needsConst = readsTree(info.input, TreeKind::Constituency);
    std::unique_ptr<Parser> parser;
    if (auto st = writer->write(sharding->firstLine()); !st)
        return fail(st.message());
    const std::size_t batchSize = static_cast<std::size_t>(std::max(1, spec.dev.batch));
    SkipLog skips;
    auto done = forEachBlock(*input, kBlock, range.begin, range.end, "analyze", [&](std::vector<Sentence> &chunk, std::size_t counted) -> Status {
        const bool several = counted > 0 || chunk.size() > 1 || (sharding->header && sharding->header->total > 1);
        // A corpus run goes on past a sentence the model cannot take (a record says why);
        // one sentence alone, or --strict, stops there as before.
        const bool skipping = several && !spec.strict;
        std::vector<std::string> refused(chunk.size());
        for (std::size_t k = 0; k < chunk.size(); ++k)
            if (auto st = checkSentenceLength(chunk[k].tokens.size(), maxWords, source, chunk[k].line, chunk[k].id,
                                              "the model's " + std::to_string(info.maxTokens) + " positions");
                !st) {
                if (!skipping)
                    return st;
                refused[k] = st.message();
            }
        std::vector<Sentence> fits; // the trees only for the sentences the model will read
        std::vector<std::size_t> where;
        for (std::size_t k = 0; k < chunk.size(); ++k)
            if (refused[k].empty()) {
                fits.push_back(std::move(chunk[k]));
                where.push_back(k);
            }
        if (auto st = completeTrees(fits, needsDep, needsConst, source, parserOnDemand(parser)); !st)
            return st;
        for (std::size_t j = 0; j < fits.size(); ++j)
            chunk[where[j]] = std::move(fits[j]);
        auto analyseOne = [&](std::size_t k) {
            return (*enc)->analyze({EncoderInput{chunk[k].words(), chunk[k].dependency, chunk[k].constituency, {}, {}, {}}}, opt);
        };
        for (std::size_t from = 0; from < chunk.size(); from += batchSize) {
            const std::size_t to = std::min(chunk.size(), from + batchSize);
            std::vector<EncoderInput> batch;
            std::vector<std::size_t> inBatch;
            for (std::size_t k = from; k < to; ++k)
                if (refused[k].empty()) {
                    batch.push_back(EncoderInput{chunk[k].words(), chunk[k].dependency, chunk[k].constituency, {}, {}, {}});
                    inBatch.push_back(k);
                }
            std::vector<std::optional<Analysis>> analyses(to - from);
            auto res = batch.empty() ? Result<std::vector<Analysis>>(std::vector<Analysis>{}) : (*enc)->analyze(batch, opt);
            if (res) {
                for (std::size_t j = 0; j < inBatch.size(); ++j)
                    analyses[inBatch[j] - from] = std::move((*res)[j]);
            } else if (res.code() == ErrorCode::Refused && skipping) { // one sentence refused the batch: each alone
                for (std::size_t k : inBatch) {
                    auto one = analyseOne(k);
                    if (one)
                        analyses[k - from] = std::move(one->front());
                    else if (one.code() == ErrorCode::Refused)
                        refused[k] = source + ":" + (chunk[k].line > 0 ? std::to_string(chunk[k].line) : recordId(chunk[k], counted + k + 1)) +
                                     ": " + one.message();
                    else
                        return one.error();
                }
            } else {
                return res.error();
            }
            std::string out;
            for (std::size_t k = from; k < to; ++k) {
                if (!refused[k].empty()) {
                    skips.add(refused[k]);
                    out += skippedRecord(spec, chunk[k], counted + k + 1, refused[k]);
                    continue;
                }
                const Analysis a = fold ? foldSpecialTokens(*analyses[k - from]) : std::move(*analyses[k - from]);
                auto record = analysisRecord(spec, a, chunk[k], counted + k + 1, several, opt.attention && spec.arrays.empty());
                if (!record)
                    return record.error();
                out += *record;
            }
            if (auto st = writer->write(out); !st)
                return st;
        }
        return {};
    });
    if (!done)
        return fail(done.message());
    if (skips.count > 0)
        std::cerr << "treelens-cli: " << skips.summary("analyze", *done) << "\n";
    if (auto st = writer->write(sharding->lastLine(*done)); !st)
        return fail(st.message());
    if (auto st = writer->commit(); !st)
        return fail(st.message());
    return 0;
}

} // namespace

void addAnalyzeCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("analyze", "Run an encoder on sentences: link probabilities, constituent prior, "
                                              "attention, induced tree, embeddings, a language model's surprisal");
    auto spec = std::make_shared<AnalyzeSpec>();
    cmd->add_option("--pairs", spec->pairs, "Analyse a sentence-pair corpus (WikiQA folder, TSV, RTE XML, pairs JSON) "
                                            "instead: text, or JSON Lines with --json, one entry per pair")
        ->type_name("PAIRS");
    addInputOptions(cmd, spec->input, true);
    addModelOptions(cmd, spec->dev);
    cmd->add_flag("--json", spec->json, "JSON Lines: one object per sentence (keys in docs/cli.md)");
    cmd->add_flag("--no-attention", spec->noAttention, "Leave the per-head attention matrices out of --json");
    cmd->add_flag("--strict", spec->strict,
                  "Stop at the first sentence the model cannot take (too long, refused); without it a corpus run goes "
                  "on, writes a record saying why ({\"sent_id\", \"error\"} with --json) and counts them on stderr");
    cmd->add_option("--arrays", spec->arrays,
                    "With --json: write each sentence's attention (and with --states its layer states) as NumPy .npy files "
                    "in DIR, named after the sentence, and name them in the record's \"arrays\" instead of writing them as JSON text")
        ->type_name("DIR");
    cmd->add_flag("--states", spec->states, "With --arrays: also every layer's hidden states per unit [layers + 1, units, d]");
    cmd->add_flag("--prepend-bos", spec->prependBos,
                  "A language model whose tokenizer adds no BOS (GPT-2, Pythia, Qwen): put the model's BOS in front, so that "
                  "the first word is predicted too (off by default: the numbers are the library's for the plain text)");
    cmd->add_option("--special-tokens", spec->specialTokens,
                    "A word-piece model's [CLS]/[SEP] (<s>/</s>): show (their own rows and columns) or fold (left out; "
                    "rows not renormalised)")
        ->check(CLI::IsMember({"show", "fold"}))
        ->capture_default_str();
    addAblateOption(cmd, spec->ablate);
    cmd->add_option("-o,--output", spec->out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
    addShardOptions(cmd, spec->shard, "blocks of 512 sentences (--pairs: the questions starting in each 64 pairs)");
    cmd->callback([&action, spec]() {
        // Usage errors (exit 2), said before any model opens.
        if ((!spec->arrays.empty() || spec->states) && !spec->json)
            throw CLI::ValidationError("--arrays", "--arrays and --states go with --json (the records name the files)");
        if (spec->states && spec->arrays.empty())
            throw CLI::ValidationError("--states", "--states writes layer states into --arrays DIR: give the folder");
        action = [spec]() {
            if (!spec->pairs.empty()) {
                auto ablate = parseAblations(spec->ablate);
                if (!ablate)
                    return fail(ablate.message());
                return analyzePairs(spec->pairs, spec->dev, spec->json, spec->json && !spec->noAttention,
                                    spec->specialTokens == "fold", spec->out, spec->shard, *ablate);
            }
            return analyzeSentences(*spec);
        };
    });
}

namespace {

/// --start-layer, --min-layer, --threshold, --descend: each overrides the model's
/// own setting (EncoderInfo::induction) when given. Layers are numbered from 1
/// (docs/cli.md, "Numbering"); the 0-based numbers of earlier versions keep
/// their meaning under --start-layer-0based and --min-layer-0based.
struct InductionFlags {
    static constexpr int kUnset = std::numeric_limits<int>::min();
    std::string startLayer, minLayer; ///< "" = not given
    int startLayer0 = kUnset, minLayer0 = kUnset;
    double threshold = std::numeric_limits<double>::quiet_NaN();
    double descend = std::numeric_limits<double>::quiet_NaN();

    /// A layer number from 1 (or "top", or the old "-1" for the top, for the start
    /// layer); the model's layer count is checked once the model is open.
    static CLI::Validator layerNumber(bool start)
    {
        return CLI::Validator(
            [start](std::string &value) -> std::string {
                int v = 0;
                if (start && (value == "top" || value == "-1"))
                    return {};
                if (!parseInt(value, v))
                    return "'" + value + "' is not a layer number (layers are numbered from 1" +
                           std::string(start ? "; or top)" : ")");
                if (v < 1)
                    return "layer " + value + ": layers are numbered from 1 (the old 0-based numbers: " +
                           std::string(start ? "--start-layer-0based" : "--min-layer-0based") + ")";
                return {};
            },
            start ? "L|top" : "L");
    }

    void add(CLI::App *cmd)
    {
        auto *start = cmd->add_option("--start-layer", startLayer, "Layer to start the top-down parse at, numbered from "
                                                                   "1 (1..L), or top; default: the model's setting")
                          ->type_name("L|top")
                          ->check(layerNumber(true));
        auto *min = cmd->add_option("--min-layer", minLayer, "Lowest layer the parse descends to, numbered from 1 "
                                                             "(1..L); default: the model's setting")
                        ->type_name("L")
                        ->check(layerNumber(false));
        cmd->add_option("--threshold", threshold, "Weakest-link threshold for splitting; default: the model's setting");
        cmd->add_option("--descend", descend, "A side whose links all exceed this recurses one layer lower; default: "
                                              "the model's setting");
        auto *start0 = cmd->add_option("--start-layer-0based", startLayer0, "Old spelling: --start-layer counted from 0 "
                                                                            "(0..L-1, -1 = top)")
                           ->group("Old spellings (layers counted from 0)")
                           ->type_name("N");
        auto *min0 = cmd->add_option("--min-layer-0based", minLayer0, "Old spelling: --min-layer counted from 0 (0..L-1)")
                         ->group("Old spellings (layers counted from 0)")
                         ->type_name("N");
        start->excludes(start0);
        min->excludes(min0);
    }

    /// `c` with the flags given applied, for a model of `layers` layers; a layer
    /// number beyond the model is an error naming the flag. Notes about old
    /// spellings go to stderr.
    Result<InductionConfig> over(InductionConfig c, int layers) const
    {
        if (startLayer == "-1")
            std::cerr << "treelens-cli: note: --start-layer -1 is the old spelling of --start-layer top" << std::endl;
        if (startLayer == "top" || startLayer == "-1") {
            c.startLayer = -1;
        } else if (!startLayer.empty()) {
            auto v = parseLayerNumber(startLayer, layers);
            if (!v)
                return Error{"--start-layer: " + v.message(), v.code()};
            c.startLayer = *v;
        }
        if (!minLayer.empty()) {
            auto v = parseLayerNumber(minLayer, layers);
            if (!v)
                return Error{"--min-layer: " + v.message(), v.code()};
            c.minLayer = *v;
        }
        if (startLayer0 != kUnset) {
            if (startLayer0 < -1 || startLayer0 >= layers)
                return Error{"--start-layer-0based: " + std::to_string(startLayer0) + " is outside 0.." +
                             std::to_string(layers - 1) + " (-1 = top)"};
            c.startLayer = startLayer0;
        }
        if (minLayer0 != kUnset) {
            if (minLayer0 < 0 || minLayer0 >= layers)
                return Error{"--min-layer-0based: " + std::to_string(minLayer0) + " is outside 0.." +
                             std::to_string(layers - 1)};
            c.minLayer = minLayer0;
        }
        if (!std::isnan(threshold))
            c.threshold = threshold;
        if (!std::isnan(descend))
            c.descend = descend;
        return c;
    }
};

} // namespace

void addEvalInductionCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("eval-induction", "Score an encoder's unsupervised constituency trees against gold "
                                                     "PTB trees, with baselines");
    struct Spec {
        DeviceSpec dev;
        std::vector<std::string> gold;
        bool json = false;
        InductionFlags induction;
        std::string out;
        ShardOptions shard;
    };
    auto spec = std::make_shared<Spec>();
    addModelOptions(cmd, spec->dev);
    cmd->add_option("--gold,-g", spec->gold, "Gold PTB files (.mrg); e.g. wsj_0180 ... wsj_0199")->required()->expected(1, -1);
    cmd->add_flag("--json", spec->json, "Print one JSON object");
    cmd->add_option("-o,--output", spec->out, "Write the report to OUT (atomically) instead of standard output")->type_name("OUT");
    addShardOptions(cmd, spec->shard,
                    "blocks of 512 gold sentences (of 2 words or more); a shard writes its sentences' link probabilities, "
                    "treelens-cli merge scores them all");
    spec->induction.add(cmd);
    cmd->footer("Protocol (docs/tree-transformer.md): traces and function tags stripped, punctuation removed, unlabelled\n"
                "brackets without single words and the whole sentence; sentence-level F1 averaged (the paper's figure)\n"
                "and corpus-level F1, all lengths and length <= 10, with left/right-branching and random baselines.\n"
                "The parse settings are the model's own (chosen on a development set: tune-induction) unless overridden.\n"
                "Layers are numbered from 1 (layer 1 = the first encoder layer), in the flags and in the output.");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto shard = shardHeaderFor(spec->shard, "eval-induction", spec->gold, spec->out);
            if (!shard)
                return fail(shard.message());
            if (*shard && skipDoneShard(spec->shard, **shard, spec->out))
                return 0;
            auto enc = openModel(spec->dev);
            if (!enc)
                return fail(enc.message());
            const int layers = (*enc)->info().layers;
            // The unsupervised trees come from the constituent prior's link probabilities.
            if (!(*enc)->info().outputs.linkProbs)
                return fail(((*enc)->info().name.empty() ? (*enc)->info().family : (*enc)->info().name) +
                            " has no link probabilities (no constituent prior): eval-induction scores the unsupervised trees "
                            "of a Tree Transformer");
            auto config = spec->induction.over((*enc)->info().induction, layers);
            if (!config)
                return fail(config.message());
            if (!*shard) {
                auto report = evaluateInduction(**enc, spec->gold, *config);
                if (!report)
                    return fail(report.message());
                return writeOutput(spec->out, spec->json ? inductionReportJson(*report) + "\n" : inductionReportText(*report));
            }
            // A shard: the link probabilities of its gold sentences (blocks of 512, batched as the
            // whole run batches them); merge scores all of them (mergedEvalInduction).
            if (auto st = config->validate(layers); !st)
                return fail(st.message());
            const int maxWords = (*enc)->info().maxTokens > 0 ? (*enc)->info().maxTokens - 1 : 0;
            std::size_t skipped = 0;
            auto gold = readInductionGoldFiles(spec->gold, maxWords, &skipped);
            if (!gold)
                return fail(gold.message());
            ShardHeader &h = **shard;
            const ShardRange range = shardRange(gold->size(), h.shard, 512);
            h.total = gold->size();
            h.begin = range.begin;
            h.end = range.end;
            h.headerLines = 1;
            const std::vector<InductionGold> part(gold->begin() + static_cast<std::ptrdiff_t>(range.begin),
                                                  gold->begin() + static_cast<std::ptrdiff_t>(range.end));
            auto links = inductionWordLinks(**enc, part, *config, nullptr, 512, range.begin);
            if (!links)
                return fail(links.message());
            const nlohmann::json settings = {{"config", nlohmann::json::parse(config->toJson())}, {"layers", layers},
                                             {"json", spec->json}, {"files", spec->gold}, {"max_words", maxWords},
                                             {"skipped", skipped}};
            std::string text = shardHeaderLine(h) + settings.dump() + "\n";
            for (const auto &l : *links)
                text += nlohmann::json{{"links", l}}.dump() + "\n";
            text += shardEndLine(links->size());
            return writeOutput(spec->out, text);
        };
    });
}

Result<std::string> mergedEvalInduction(const MergedShards &merged)
{
    std::istringstream lines(merged.body);
    std::string line;
    InductionConfig config;
    int layers = 0, maxWords = 0;
    bool json = false;
    std::vector<std::string> files;
    std::size_t skipped = 0;
    try {
        std::getline(lines, line);
        const auto j = nlohmann::json::parse(line);
        auto c = InductionConfig::fromJson(j.at("config").dump());
        if (!c)
            return Error{"merge: eval-induction settings: " + c.message(), c.code()};
        config = *c;
        layers = j.at("layers").get<int>();
        json = j.at("json").get<bool>();
        files = j.at("files").get<std::vector<std::string>>();
        maxWords = j.at("max_words").get<int>();
        skipped = j.at("skipped").get<std::size_t>();
    } catch (const std::exception &e) {
        return Error{"merge: the eval-induction shards' settings line is not readable: " + std::string(e.what())};
    }
    // The scores need the gold trees: the files the shards read, unchanged since.
    if (auto st = inputUnchanged(files, merged.first.input, "eval-induction needs the shards' gold files to score them",
                                 "the gold files have");
        !st)
        return st.error();
    std::size_t skippedNow = 0;
    auto gold = readInductionGoldFiles(files, maxWords, &skippedNow);
    if (!gold)
        return gold.error();
    std::vector<std::vector<std::vector<float>>> links;
    while (std::getline(lines, line)) {
        try {
            links.push_back(nlohmann::json::parse(line).at("links").get<std::vector<std::vector<float>>>());
        } catch (const std::exception &e) {
            return Error{"merge: eval-induction record " + std::to_string(links.size() + 1) + " is not readable: " + e.what()};
        }
    }
    auto report = evaluateInductionLinks(links, layers, *gold, config);
    if (!report)
        return Error{"merge: " + report.message(), report.code()};
    report->files = files;
    report->skipped = skipped;
    return json ? inductionReportJson(*report) + "\n" : inductionReportText(*report);
}

void addTuneInductionCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("tune-induction", "Choose a model's unsupervised-parse settings on development trees "
                                                     "and store them in the model");
    struct Spec {
        DeviceSpec dev;
        std::vector<std::string> gold;
        std::string out;
        std::string name;
        bool json = false;
    };
    auto spec = std::make_shared<Spec>();
    addModelOptions(cmd, spec->dev);
    cmd->add_option("--gold,-g", spec->gold, "Development PTB files (.mrg): e.g. wsj_0160 ... wsj_0179 (never the test files)")
        ->required()
        ->expected(1, -1);
    cmd->add_option("-o,--output", spec->out, "Write the model with the chosen settings here (may be the model itself)")
        ->type_name("OUT.safetensors");
    cmd->add_option("--name", spec->name, "With -o: the written model's name (treelens.config \"name\"; default: the model's own)")
        ->type_name("NAME");
    cmd->add_flag("--json", spec->json, "Print the choice as one JSON object");
    cmd->footer("Tries every start layer, every minimum layer at or below it, thresholds 0.50-0.95 and two descent\n"
                "rules, keeps the best mean sentence F1 (eval-induction's protocol); eval-induction, analyze and the app\n"
                "then use the stored settings by default. Layers are numbered from 1 in the output; the model file's\n"
                "treelens.config \"induction\" keeps counting them from 0 (docs/model-files.md).");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            for (const auto &g : spec->gold)
                for (int k = 180; k <= 199; ++k)
                    if (g.find("wsj_0" + std::to_string(k)) != std::string::npos)
                        return fail(g + " is a test file: choose settings on development trees (wsj_0160-wsj_0179)");
            auto enc = openModel(spec->dev);
            if (!enc)
                return fail(enc.message());
            const int maxWords = (*enc)->info().maxTokens > 0 ? (*enc)->info().maxTokens - 1 : 0;
            auto gold = readInductionGoldFiles(spec->gold, maxWords);
            if (!gold)
                return fail(gold.message());
            auto t = tuneInduction(**enc, *gold, (*enc)->info().induction);
            if (!t)
                return fail(t.message());
            const int layers = (*enc)->info().layers;
            // Layers numbered from 1, as eval-induction --json writes them (the model
            // file keeps its 0-based treelens.config).
            const nlohmann::json result = {{"sentences", t->sentences},
                                           {"settings_tried", t->tried.size()},
                                           {"layer_numbering", "1-based"},
                                           {"before", {{"config", nlohmann::json::parse((*enc)->info().induction.toNumberedJson(layers))},
                                                       {"sentence_f1", t->startScore.sentenceF1},
                                                       {"corpus_f1", t->startScore.corpusF1}}},
                                           {"chosen", {{"config", nlohmann::json::parse(t->best.toNumberedJson(layers))},
                                                       {"sentence_f1", t->bestScore.sentenceF1},
                                                       {"corpus_f1", t->bestScore.corpusF1}}},
                                           {"gold", spec->gold}};
            if (spec->json)
                std::cout << result.dump() << std::endl;
            else
                std::cout << "tune-induction: " << t->sentences << " sentences, " << t->tried.size()
                          << " settings; sentence F1 " << t->startScore.sentenceF1 << " -> " << t->bestScore.sentenceF1
                          << " with " << t->best.text(layers) << std::endl;
            if (spec->out.empty())
                return 0;
            std::string path = spec->dev.model.empty() ? defaultModelPath() : spec->dev.model;
            auto file = loadModelFile(path);
            if (!file)
                return fail(file.message());
            auto config = nlohmann::json::parse(file->configJson);
            config["induction"] = nlohmann::json::parse(t->best.toJson());
            if (!spec->name.empty())
                config["name"] = spec->name;
            config["induction_tuning"] = {{"gold", result["gold"]}, {"sentences", t->sentences},
                                          {"sentence_f1", t->bestScore.sentenceF1}, {"corpus_f1", t->bestScore.corpusF1}};
            file->configJson = config.dump();
            const DType storage = file->tensors.empty() ? DType::F32 : file->tensors.begin()->second.dtype;
            if (auto s = saveModelFile(spec->out, *file, storage); !s)
                return fail(s.message());
            std::cerr << "tune-induction: wrote " << spec->out << std::endl;
            return 0;
        };
    });
}

} // namespace treelens::cli

namespace treelens::cli {

void addBenchCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("bench", "Time encoder analysis; prints one JSON object");
    auto spec = std::make_shared<EncoderBenchConfig>();
    cmd->add_option("--model,-m", spec->model, "Model file, 'random:official' (10 layers, d 512, 8 heads, d_ff 2048, "
                                               "vocabulary 16k, random weights) or 'random:L,D,H,F,V'")->capture_default_str();
    cmd->add_option("--words", spec->words, "Words per sentence")->capture_default_str();
    cmd->add_option("--batch", spec->batch, "Sentences per forward pass")->capture_default_str();
    cmd->add_option("--threads", spec->threads, "CPU threads (0 = LibTorch's default)")->capture_default_str();
    cmd->add_option("--device", spec->device, "cpu, cuda, cuda:N or auto")->capture_default_str();
    cmd->add_option("--seconds", spec->seconds, "Measure for about this long")->capture_default_str();
    cmd->add_flag("!--no-peak", spec->peak, "Skip the GEMM peak measurement");
    cmd->add_option("--precision", spec->precision, "fp32, int8 or bf16 projections")->check(CLI::IsMember({"fp32", "bf16", "int8"}))->capture_default_str();
    cmd->add_flag("--onednn", spec->oneDnn, "fp32 projections through oneDNN instead of OpenBLAS, for comparison");
    cmd->add_flag("--official-ops", spec->officialStyle, "Time the official code's operation sequence (separate GEMMs, "
                                                         "triangular-matmul prior, vocabulary projection) as the reference");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto r = benchmarkEncoder(*spec);
            if (!r)
                return fail(r.message());
            std::cout << r->toJson() << '\n';
            return 0;
        };
    });
}

} // namespace treelens::cli

#include "core/encoders/family.h"
#include "core/model/checkpoint.h"

namespace treelens::cli {

void addImportCheckpointCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("import-checkpoint", "Convert a PyTorch checkpoint (.pt/.pth) into a TreeLens "
                                                        ".safetensors model (no Python needed, no code executed)");
    struct Spec {
        std::string family = "tree-transformer";
        std::string checkpoint, vocab, config, out, name, submodel, storage = "f32";
        int heads = 0;
    };
    auto spec = std::make_shared<Spec>();
    std::vector<std::string> families;
    for (const auto &f : encoderFamilies())
        if (f.importCheckpoint)
            families.push_back(f.name);
    cmd->add_option("--family", spec->family, "Model family")->check(CLI::IsMember(families))->capture_default_str();
    cmd->add_option("checkpoint", spec->checkpoint, "torch.save zip checkpoint: a state dict, or a dict holding "
                                                    "'state_dict'")->required()->type_name("CKPT");
    cmd->add_option("--vocab", spec->vocab, "Vocabulary: the official dictionary.json ({word: id}) or one token per line "
                                            "(required for tree-transformer)")
        ->type_name("V");
    cmd->add_option("--config", spec->config, "The family's configuration JSON (a reference fixture's config.json)")
        ->type_name("CONFIG.json");
    cmd->add_option("-o,--output", spec->out, "Output .safetensors")->required()->type_name("OUT.safetensors");
    cmd->add_option("--name", spec->name, "Model name stored in the metadata");
    cmd->add_option("--heads", spec->heads, "Attention heads (not recorded in the weights; tree-transformer default 8)");
    cmd->add_option("--submodel", spec->submodel, "Which model of a checkpoint holding several (the configuration's "
                                                  "\"submodels\", e.g. ggsa or iggsa)");
    cmd->add_option("--storage", spec->storage, "Weight dtype in the file")->check(CLI::IsMember({"f32", "f16", "bf16"}))->capture_default_str();
    cmd->footer("The configuration (layers, d_model, heads, d_ff, vocabulary size) is read off the tensor shapes and\n"
                "every tensor is checked against it. Only tensor and container pickle globals are accepted.");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            const EncoderFamily *family = findEncoderFamily(spec->family);
            if (!family || !family->importCheckpoint)
                return fail("import-checkpoint: family '" + spec->family + "' has no checkpoint import");
            ImportRequest request;
            request.checkpointPath = spec->checkpoint;
            auto tensors = readTorchCheckpoint(spec->checkpoint, &request.note);
            if (!tensors)
                return fail(tensors.message());
            request.tensors = std::move(*tensors);
            if (!spec->vocab.empty()) {
                auto text = readFile(spec->vocab);
                if (!text)
                    return fail(text.message());
                request.vocabText = std::move(*text);
                request.vocabPath = spec->vocab;
            }
            if (!spec->config.empty()) {
                auto text = readFile(spec->config);
                if (!text)
                    return fail(text.message());
                // Strict before any family reads it: no key twice, no integer get<int>() would truncate.
                auto parsed = parseJsonStrict(*text, spec->config);
                if (!parsed)
                    return fail(parsed.message());
                if (auto st = checkJsonIntegers(*parsed, spec->config); !st)
                    return fail(st.message());
                request.configJson = std::move(*text);
                request.configPath = spec->config;
            }
            request.name = spec->name;
            request.heads = spec->heads;
            request.submodel = spec->submodel;
            auto file = family->importCheckpoint(std::move(request));
            if (!file)
                return fail(file.message());
            const DType storage = spec->storage == "f16" ? DType::F16 : spec->storage == "bf16" ? DType::BF16 : DType::F32;
            if (auto s = saveModelFile(spec->out, *file, storage); !s)
                return fail(s.message());
            std::string note;
            try {
                note = nlohmann::json::parse(file->configJson).at("training").value("note", std::string());
            } catch (const std::exception &) {
            }
            std::cerr << "import-checkpoint: " << printableMessage(note) << "; " << (family->summary ? family->summary(*file) : spec->family)
                      << " -> " << spec->out << std::endl;
            return 0;
        };
    });
}

} // namespace treelens::cli

#include "core/encoders/fixture.h"

namespace treelens::cli {

void addVerifyFixtureCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("verify-fixture", "Run a reference fixture directory (config.json, state_dict.pt, "
                                                     "inputs.json, expected.json; or a Hugging Face model folder with "
                                                     "expected.json) through its family and compare every tensor with "
                                                     "expected.json");
    struct Spec {
        std::string dir, out;
        bool quiet = false;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("dir", spec->dir, "The fixture directory")->required()->type_name("DIR");
    cmd->add_option("-o,--output", spec->out, "Write the computed tensors in expected.json's layout")
        ->type_name("COMPUTED.json");
    cmd->add_flag("-q,--quiet", spec->quiet, "Print only the tensors that fail and the summary");
    cmd->footer("The family comes from config.json's \"family\"; the weights go through the same code as\n"
                "import-checkpoint --family F state_dict.pt --config config.json. A Hugging Face folder (config.json\n"
                "with model_type bert or roberta) is opened as --model DIR opens it, and expected.json's sentences\n"
                "are compared (ids, tokens and offsets exactly). Exit status 1 when a tensor is missing, has another\n"
                "shape or differs by more than tolerance_abs (expected.json's, else config.json's).");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            std::string familyName, computedJson;
            std::optional<Result<FixtureReport>> report;
            // A fixture folder of a family's own layout (a Hugging Face model folder with expected.json).
            for (const EncoderFamily &f : encoderFamilies())
                if (f.verifyFolderFixture && !report) {
                    report = f.verifyFolderFixture(spec->dir, &computedJson);
                    familyName = f.name;
                }
            if (!report) {
                auto request = readFixtureDirectory(spec->dir);
                if (!request)
                    return fail(request.message());
                auto family = fixtureFamily(*request);
                if (!family)
                    return fail(family.message());
                auto computed = (*family)->computeFixture(*request);
                if (!computed)
                    return fail(computed.message());
                const std::string expectedPath = (std::filesystem::path(spec->dir) / "expected.json").string();
                auto expected = readFileLimited(expectedPath, inputLimits().maxSideFileBytes);
                if (!expected)
                    return fail(expected.message());
                report = compareWithExpected(*computed, *expected, expectedPath, fixtureTolerance(*request));
                if (*report)
                    computedJson = fixtureTensorsJson(*computed, (*report)->tolerance);
                familyName = (*family)->name;
            }
            if (!*report)
                return fail(report->message());
            const FixtureReport &r = **report;
            if (!spec->out.empty())
                if (int rc = writeOutput(spec->out, computedJson); rc != 0)
                    return rc;
            int failed = 0;
            double worst = 0.0;
            for (const auto &c : r.checks) {
                if (!c.ok)
                    ++failed;
                else
                    worst = std::max(worst, c.maxAbsDiff);
                if (spec->quiet && c.ok)
                    continue;
                std::cout << (c.ok ? "ok    " : "FAIL  ") << c.name;
                if (!c.problem.empty())
                    std::cout << "  " << c.problem << '\n';
                else
                    std::cout << "  max|diff| " << c.maxAbsDiff << (c.integer ? " (exact)" : "") << '\n';
            }
            for (const auto &name : r.extra)
                if (!spec->quiet)
                    std::cout << "note  " << name << "  computed, not in expected.json\n";
            std::cout << familyName << ": " << r.checks.size() - failed << " of " << r.checks.size()
                      << " tensors within " << r.tolerance << " (largest difference " << worst << ")"
                      << (failed ? ", " + std::to_string(failed) + " failed" : std::string()) << '\n';
            return r.passed() ? 0 : 1;
        };
    });
}

} // namespace treelens::cli
