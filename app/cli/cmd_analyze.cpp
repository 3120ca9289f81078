// analyze: an encoder (or a decoder language model) on sentences or sentence pairs: link
// probabilities, constituent prior, attention, induced tree, embeddings, surprisal (docs/cli.md).
// --where P analyses only the sentences with an occurrence of a tree pattern (issue 48,
// app/cli/queryfilter.h), each record naming the words its occurrences bind.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/queryfilter.h"
#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/numbering.h"
#include "core/base/strings.h"
#include "core/data/specialtokens.h"
#include "core/encoders/encoder.h"
#include "core/eval/pairtable.h"
#include "core/formats/analysisjson.h"
#include "core/formats/analysistext.h"
#include "core/formats/npy.h"
#include "core/formats/pairs.h"
#include "core/parsing/pairparsing.h"
#include "core/parsing/parser.h"

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
    WhereSpec where;
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

/// One analyze run over sentences: the model, its options, the output and what was skipped.
struct SentenceRun {
    SentenceRun(const AnalyzeSpec &s, Encoder &e, AtomicFileWriter &w) : spec(s), encoder(e), writer(w) {}
    const AnalyzeSpec &spec;
    Encoder &encoder;
    AnalyzeOptions options;
    AtomicFileWriter &writer;
    QueryFilter *filter = nullptr; ///< --where
    std::string source;
    int maxWords = 0;
    bool needsDep = false, needsConst = false, fold = false;
    bool sharded = false;
    std::unique_ptr<Parser> parser;
    SkipLog skips;
};

/// A block's sentences as the records number them: their number in the input (from 1) and,
/// with --where, their occurrences.
struct BlockSentences {
    std::vector<std::size_t> numbers;
    std::vector<std::vector<PatternOccurrence>> matches;
};

/// Analyses the sentences [from, to) of a block (those not refused, in one batch; each alone
/// when a corpus run goes on past one the model refuses) and writes their records.
Status analyseBatch(SentenceRun &run, std::vector<Sentence> &chunk, std::vector<std::string> &refused, const BlockSentences &block,
                    std::size_t from, std::size_t to, bool several, bool skipping)
{
    std::vector<EncoderInput> batch;
    std::vector<std::size_t> inBatch;
    for (std::size_t k = from; k < to; ++k)
        if (refused[k].empty()) {
            batch.push_back(EncoderInput{chunk[k].words(), chunk[k].dependency, chunk[k].constituency, {}, {}, {}});
            inBatch.push_back(k);
        }
    std::vector<std::optional<Analysis>> analyses(to - from);
    auto res = batch.empty() ? Result<std::vector<Analysis>>(std::vector<Analysis>{}) : run.encoder.analyze(batch, run.options);
    if (res) {
        for (std::size_t j = 0; j < inBatch.size(); ++j)
            analyses[inBatch[j] - from] = std::move((*res)[j]);
    } else if (res.code() == ErrorCode::Refused && skipping) { // one sentence refused the batch: each alone
        for (std::size_t k : inBatch) {
            auto one = run.encoder.analyze({EncoderInput{chunk[k].words(), chunk[k].dependency, chunk[k].constituency, {}, {}, {}}},
                                           run.options);
            if (one)
                analyses[k - from] = std::move(one->front());
            else if (one.code() == ErrorCode::Refused)
                refused[k] = run.source + ":" +
                             (chunk[k].line > 0 ? std::to_string(chunk[k].line) : recordId(chunk[k], block.numbers[k])) + ": " +
                             one.message();
            else
                return one.error();
        }
    } else {
        return res.error();
    }
    std::string out;
    const bool attention = run.options.attention && run.spec.arrays.empty();
    for (std::size_t k = from; k < to; ++k) {
        if (!refused[k].empty()) {
            run.skips.add(refused[k]);
            out += skippedRecord(run.spec, chunk[k], block.numbers[k], refused[k]);
            continue;
        }
        const Analysis a = run.fold ? foldSpecialTokens(*analyses[k - from]) : std::move(*analyses[k - from]);
        auto record = analysisRecord(run.spec, a, chunk[k], block.numbers[k], several, attention);
        if (!record)
            return record.error();
        if (run.filter) // the occurrences' words: last in the JSON object, a last line of the text
            *record = run.spec.json ? record->substr(0, record->size() - 2) + ",\"matches\":" + run.filter->matchesJson(block.matches[k]) + "}\n"
                                    : *record + "matches: " + run.filter->matchesText(block.matches[k], chunk[k]) + "\n";
        out += *record;
    }
    return run.writer.write(out);
}

/// One block of the input: --where's sentences kept, those the model cannot take refused (or
/// the run stopped), the trees the model reads completed, then each batch analysed and written.
Status analyseBlock(SentenceRun &run, std::vector<Sentence> &chunk, std::size_t counted)
{
    const bool several = counted > 0 || chunk.size() > 1 || run.sharded;
    BlockSentences block;
    for (std::size_t k = 0; k < chunk.size(); ++k)
        block.numbers.push_back(counted + k + 1);
    if (run.filter) {
        std::vector<std::size_t> kept;
        auto matches = run.filter->keepMatched(chunk, &kept);
        if (!matches)
            return matches.error();
        block.matches = std::move(*matches);
        for (std::size_t &k : kept)
            k += counted + 1;
        block.numbers = std::move(kept);
    }
    // A corpus run goes on past a sentence the model cannot take (a record says why); one
    // sentence alone, or --strict, stops there as before.
    const bool skipping = several && !run.spec.strict;
    const EncoderInfo &info = run.encoder.info();
    std::vector<std::string> refused(chunk.size());
    for (std::size_t k = 0; k < chunk.size(); ++k)
        if (auto st = checkSentenceLength(chunk[k].tokens.size(), run.maxWords, run.source, chunk[k].line, chunk[k].id,
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
    if (auto st = completeTrees(fits, run.needsDep, run.needsConst, run.source, parserOnDemand(run.parser)); !st)
        return st;
    for (std::size_t j = 0; j < fits.size(); ++j)
        chunk[where[j]] = std::move(fits[j]);
    const std::size_t batchSize = static_cast<std::size_t>(std::max(1, run.spec.dev.batch));
    for (std::size_t from = 0; from < chunk.size(); from += batchSize)
        if (auto st = analyseBatch(run, chunk, refused, block, from, std::min(chunk.size(), from + batchSize), several, skipping);
            !st)
            return st;
    return {};
}

/// analyze over sentences (TEXT, --input, stdin): a block of the input at a time (its blocks
/// start at multiples of kBlock, so a shard batches every sentence as the whole run does),
/// analysed one batch of --batch sentences at a time and written before the next, so a run
/// holds one batch of analyses whatever the corpus' size. With -o nothing is written unless
/// every sentence succeeds. --where keeps a block's sentences with an occurrence (after the
/// shard's range is cut: per sentence, so the merged shards are the whole run's records).
int analyzeSentences(const AnalyzeSpec &spec)
{
    constexpr std::size_t kBlock = 512;
    const ParserSpec whereParser; // --where's parser: query's default parser options
    std::optional<QueryFilter> filter;
    if (spec.where.given()) { // a pattern that does not parse stops the run before the input is read
        auto f = QueryFilter::open(spec.where, whereParser, inputSourceName(spec.input));
        if (!f)
            return fail(f.message());
        filter = std::move(*f);
    }
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
    auto writer = AtomicFileWriter::open(spec.out.empty() ? std::string("-") : spec.out);
    if (!writer)
        return fail(writer.message());
    auto ablate = parseAblations(spec.ablate);
    if (!ablate)
        return fail(ablate.message());
    SentenceRun run(spec, **enc, *writer);
    run.filter = filter ? &*filter : nullptr;
    run.source = inputSourceName(spec.input);
    run.options.attention = spec.json && (!spec.noAttention || !spec.arrays.empty());
    run.options.layerStates = spec.states;
    run.options.prependBos = spec.prependBos;
    run.options.ablate = *ablate;
    run.maxWords = info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 0;
    run.fold = spec.specialTokens == "fold";
    run.sharded = sharding->header && sharding->header->total > 1;
    // A model that reads trees gets the input's own trees (CoNLL-U, PTB); sentences
    // without the tree it needs are parsed first by the default parser, which is
    // opened only then (a treebank that carries its trees needs no parser model).
    run.needsDep = readsTree(info.input, TreeKind::Dependency);
    run.needsConst = readsTree(info.input, TreeKind::Constituency);
    if (auto st = writer->write(sharding->firstLine()); !st)
        return fail(st.message());
    auto done = forEachBlock(*input, kBlock, range.begin, range.end, "analyze",
                             [&run](std::vector<Sentence> &chunk, std::size_t counted) { return analyseBlock(run, chunk, counted); });
    if (!done)
        return fail(done.message());
    if (run.skips.count > 0)
        std::cerr << "treelens-cli: " << run.skips.summary("analyze", *done) << "\n";
    if (auto st = writer->write(sharding->lastLine(*done)); !st)
        return fail(st.message());
    if (auto st = writer->commit(); !st)
        return fail(st.message());
    if (filter)
        std::cerr << filter->note("analyze", "analysed");
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
    addWhereOptions(cmd, spec->where, "Analyse only the sentences with an occurrence (each record's \"matches\": the words it binds)");
    cmd->callback([&action, spec]() {
        // Usage errors (exit 2), said before any model opens.
        if ((!spec->arrays.empty() || spec->states) && !spec->json)
            throw CLI::ValidationError("--arrays", "--arrays and --states go with --json (the records name the files)");
        if (spec->states && spec->arrays.empty())
            throw CLI::ValidationError("--states", "--states writes layer states into --arrays DIR: give the folder");
        if (spec->where.given() && !spec->pairs.empty())
            throw CLI::ValidationError("--where", "--where restricts the sentences of TEXT or --input, not --pairs");
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

} // namespace treelens::cli
