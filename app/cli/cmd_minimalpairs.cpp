// treelens-cli minimal-pairs / make-pairs: a language model's preference for the grammatical
// sentence of each minimal pair (BLiMP's JSON Lines or a good/bad TSV), with heads switched
// off (--ablate), and agreement pairs made from a treebank's own trees (docs/minimal-pairs.md).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/minimalpairsrun.h"
#include "app/cli/queryfilter.h"
#include "core/base/fileio.h"
#include "core/base/strings.h"
#include "core/encoders/encoder.h"
#include "core/eval/makepairs.h"
#include "core/eval/minimalpairs.h"
#include "core/eval/minimalpairscoring.h"
#include "core/formats/corpus.h"
#include "core/formats/plaintext.h"
#include "core/formats/shard.h"

namespace treelens::cli {

namespace {

using ojson = nlohmann::ordered_json;

constexpr std::size_t kPairBlock = 64; ///< pairs a shard is made of, and pairs a batch

struct MinimalPairsSpec {
    DeviceSpec dev;
    std::string input, out;
    std::vector<std::string> ablate;
    bool json = false;
    bool prependBos = false;
    ShardOptions shard;
    WhereSpec where;
};

ojson numberOrNull(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

ojson ablatedJson(const std::vector<HeadAblation> &ablate)
{
    ojson out = ojson::array();
    for (const HeadAblation &a : ablate)
        out.push_back({{"layer", a.layer + 1}, {"head", a.head < 0 ? ojson(nullptr) : ojson(a.head + 1)}});
    return out;
}

std::string ablatedText(const std::vector<HeadAblation> &ablate)
{
    std::string out;
    for (const HeadAblation &a : ablate)
        out += (out.empty() ? "" : ", ") + ("L" + std::to_string(a.layer + 1)) + (a.head < 0 ? " (every head)" : " H" + std::to_string(a.head + 1));
    return out;
}

ojson sideJson(const std::string &text, const std::vector<std::string> &words, const Analysis &a)
{
    ojson surprisal = ojson::array();
    for (double s : a.surprisal)
        surprisal.push_back(numberOrNull(s));
    ojson side = {{"text", text}, {"logprob", numberOrNull(a.logprob.value_or(std::nan("")))}, {"words", words}, {"surprisal", surprisal}};
    if (a.unknownWords) { // words the model's vocabulary lacks, from 1 (issue 47); absent: nothing to check
        ojson unknown = ojson::array();
        for (int w : *a.unknownWords)
            unknown.push_back(w + 1);
        side["unknown_words"] = unknown;
    }
    return side;
}

double surprisalAt(const Analysis &a, int word)
{
    return word >= 0 && word < static_cast<int>(a.surprisal.size()) ? a.surprisal[static_cast<std::size_t>(word)] : std::nan("");
}

/// One pair's record (docs/minimal-pairs.md, "Records").
ojson pairRecord(const MinimalPair &p, const Analysis &good, const Analysis &bad)
{
    const auto gw = pairWords(p.good), bw = pairWords(p.bad);
    const double lg = good.logprob.value_or(std::nan("")), lb = bad.logprob.value_or(std::nan(""));
    ojson r;
    r["id"] = p.id;
    r["phenomenon"] = p.phenomenon;
    r["good"] = sideJson(p.good, gw, good);
    r["bad"] = sideJson(p.bad, bw, bad);
    r["correct"] = lg > lb;
    r["margin"] = numberOrNull(lg - lb);
    if (const auto k = firstDifference(gw, bw)) {
        const auto wordAt = [](const std::vector<std::string> &w, int i) {
            return i < static_cast<int>(w.size()) ? ojson(w[static_cast<std::size_t>(i)]) : ojson(nullptr);
        };
        r["diverge"] = {{"word", *k + 1},
                        {"good_word", wordAt(gw, *k)},
                        {"bad_word", wordAt(bw, *k)},
                        {"good_surprisal", numberOrNull(surprisalAt(good, *k))},
                        {"bad_surprisal", numberOrNull(surprisalAt(bad, *k))}};
    } else {
        r["diverge"] = nullptr;
    }
    return r;
}

/// What the summary is computed from, pair by pair.
struct Tally {
    std::vector<bool> correct;
    std::vector<double> margin;
    std::vector<std::string> phenomenon;
    std::size_t skipped = 0; ///< pairs the model refused (a sentence over its context)
    void add(const ojson &record)
    {
        if (record.contains("skipped")) {
            ++skipped;
            return;
        }
        correct.push_back(record.at("correct").get<bool>());
        margin.push_back(record.at("margin").is_number() ? record.at("margin").get<double>() : 0.0);
        phenomenon.push_back(record.at("phenomenon").get<std::string>());
    }
};

ojson proportionJson(const Proportion &p, double margin)
{
    return {{"pairs", p.total}, {"correct", p.hits}, {"accuracy", p.value}, {"ci95", {p.low, p.high}}, {"mean_margin", margin}};
}

std::string summaryJson(const PairSummary &s, const std::string &model, const std::string &score, const std::vector<HeadAblation> &ablate,
                        std::size_t skipped, const ojson &where)
{
    ojson by = ojson::object();
    for (const auto &[name, p] : s.byPhenomenon)
        by[name] = proportionJson(p, s.marginByPhenomenon.at(name));
    ojson sum = proportionJson(s.accuracy, s.meanMargin);
    sum["by_phenomenon"] = by;
    sum["skipped"] = skipped;
    sum["model"] = model;
    sum["score"] = score;
    sum["ablated"] = ablatedJson(ablate);
    sum["interval"] = "Wilson score, 95 %";
    if (!where.is_null())
        sum["where"] = where;
    return ojson{{"summary", sum}}.dump() + "\n";
}

std::string summaryText(const PairSummary &s, const std::string &model, const std::string &score, const std::vector<HeadAblation> &ablate,
                        std::size_t skipped, const ojson &where)
{
    std::string out = "minimal pairs: " + model + ", scored by " + score + (ablate.empty() ? "" : " (ablated: " + ablatedText(ablate) + ")") + "\n";
    if (!where.is_null())
        out += "restricted (--where): " + std::to_string(where.at("sentences_matched").get<std::size_t>()) + " of " +
               std::to_string(where.at("pairs").get<std::size_t>()) + " pairs whose good sentence has an occurrence (" +
               std::to_string(where.at("occurrences").get<std::size_t>()) + " occurrences) of the " +
               (where.at("syntax") == "grew" ? "Grew request " : "Tregex pattern ") +
               patternOneLine(where.at("pattern").get<std::string>()) + "\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-40s %7s %9s  %-17s %12s\n", "phenomenon", "pairs", "accuracy", "95% CI (Wilson)",
                  "mean margin");
    out += line;
    auto row = [&](const std::string &name, const Proportion &p, double margin) {
        std::snprintf(line, sizeof line, "%-40s %7d %9.4f  [%.4f, %.4f] %12.4f\n", name.substr(0, 40).c_str(), p.total, p.value,
                      p.low, p.high, margin);
        out += line;
    };
    for (const auto &[name, p] : s.byPhenomenon)
        row(name, p, s.marginByPhenomenon.at(name));
    row("all", s.accuracy, s.meanMargin);
    out += "(correct: log p(good) > log p(bad); margin: log p(good) - log p(bad), nats)\n";
    if (skipped)
        out += std::to_string(skipped) + " pair(s) skipped: the model refused a sentence (over its context)\n";
    return out;
}

/// The settings every shard repeats after its header: what the merge needs to print the summary
/// (with --where its pattern; the merge counts the pairs kept from the records).
std::string settingsLine(bool json, const std::string &model, const std::string &score, const std::vector<HeadAblation> &ablate,
                         const QueryFilter *filter)
{
    ojson settings{{"json", json}, {"model", model}, {"score", score}, {"ablated", ablatedJson(ablate)}};
    if (filter)
        settings["where"] = {{"pattern", filter->pattern().text()}, {"syntax", filter->pattern().syntax()}};
    return settings.dump() + "\n";
}

/// minimal-pairs' summary of --where: the pattern, the pairs searched, kept and their occurrences.
ojson whereSummary(const std::string &pattern, const std::string &syntax, std::size_t pairs, std::size_t kept, std::size_t occurrences)
{
    return {{"pattern", pattern}, {"syntax", syntax}, {"pairs", pairs}, {"sentences_matched", kept}, {"occurrences", occurrences}};
}

/// --where on a block of pairs: each good sentence tokenized as a text line and parsed (query's
/// default parser), the pairs without an occurrence dropped; `occurrences` gets the kept pairs'.
Status wherePairs(QueryFilter &filter, std::vector<MinimalPair> &pairs, const std::string &source, std::vector<std::size_t> &occurrences)
{
    std::vector<Sentence> good;
    for (const MinimalPair &p : pairs) {
        auto read = readPlainText(p.good, source);
        Sentence s = read && !read->empty() ? std::move(read->front()) : Sentence{};
        s.id = p.id;
        s.line = p.line;
        good.push_back(std::move(s));
    }
    auto found = filter.match(good);
    if (!found)
        return found.error();
    std::vector<MinimalPair> kept;
    occurrences.clear();
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (!(*found)[i].empty()) {
            kept.push_back(std::move(pairs[i]));
            occurrences.push_back((*found)[i].size());
        }
    pairs = std::move(kept);
    return {};
}

int runMinimalPairs(const MinimalPairsSpec &spec)
{
    const ParserSpec whereParser; // --where's parser: query's default parser options
    std::optional<QueryFilter> filter;
    if (spec.where.given()) { // a pattern that does not parse stops the run before the pairs are read
        auto f = QueryFilter::open(spec.where, whereParser, spec.input);
        if (!f)
            return fail(f.message());
        filter = std::move(*f);
    }
    auto ablate = parseAblations(spec.ablate);
    if (!ablate)
        return fail(ablate.message());
    auto run = openPairRun("minimal-pairs", spec.input, spec.out, spec.shard, spec.dev);
    if (!run)
        return fail(run.message());
    if (run->done)
        return 0;
    std::optional<ShardHeader> &header = run->header;
    const std::vector<MinimalPair> *pairs = &run->pairs;
    const std::string &model = run->model;
    auto &enc = run->encoder;
    const ShardRange range = shardItems(header, pairs->size(), kPairBlock);
    auto writer = AtomicFileWriter::open(spec.out.empty() ? std::string("-") : spec.out);
    if (!writer)
        return fail(writer.message());
    if (header)
        if (auto st = writer->write(shardHeaderLine(*header) + settingsLine(spec.json, model, run->score, *ablate, filter ? &*filter : nullptr));
            !st)
            return fail(st.message());
    AnalyzeOptions opt;
    opt.attention = false;
    opt.ablate = *ablate;
    opt.prependBos = spec.prependBos;
    Tally tally;
    ProgressLine progress("minimal pairs");
    for (std::size_t start = range.begin; start < range.end; start += kPairBlock) {
        const std::size_t end = std::min(range.end, start + kPairBlock);
        // --where: the block's pairs whose good sentence has an occurrence (per pair, after the shard's cut)
        std::vector<MinimalPair> block(pairs->begin() + static_cast<std::ptrdiff_t>(start), pairs->begin() + static_cast<std::ptrdiff_t>(end));
        std::vector<std::size_t> occurrences;
        if (filter)
            if (auto st = wherePairs(*filter, block, spec.input, occurrences); !st)
                return fail(st.message());
        auto scored = block.empty() ? Result<std::vector<ScoredPair>>(std::vector<ScoredPair>{})
                                    : scorePairs(*enc, block, 0, block.size(), opt, spec.input, model);
        if (!scored)
            return fail(scored.message());
        for (std::size_t i = 0; i < block.size(); ++i) {
            const MinimalPair &p = block[i];
            const ScoredPair &sp = (*scored)[i];
            ojson record;
            if (sp.skipped.empty()) {
                record = pairRecord(p, sp.good, sp.bad);
            } else {
                record = {{"id", p.id}, {"phenomenon", p.phenomenon}, {"skipped", sp.skipped}};
                std::cerr << "minimal-pairs: " << spec.input << ":" << p.line << ": skipped: " << sp.skipped << "\n";
            }
            if (filter)
                record["occurrences"] = occurrences[i];
            tally.add(record);
            if (spec.json || header)
                if (auto st = writer->write(record.dump() + "\n"); !st)
                    return fail(st.message());
        }
        progress.update(end - range.begin);
    }
    progress.finish();
    const PairSummary summary = summarizePairs(tally.correct, tally.margin, tally.phenomenon);
    Status st;
    if (header) {
        st = writer->write(shardEndLine(range.size()));
        if (range.size())
            std::cerr << "minimal-pairs: shard " << header->shard.str() << " (partial): accuracy " << summary.accuracy.value
                      << " over " << range.size() << " pairs; merge gives the whole run's\n";
    } else {
        const ojson where = filter ? whereSummary(filter->pattern().text(), filter->pattern().syntax(), range.size(),
                                                  filter->totals().matched, filter->totals().occurrences)
                                   : ojson();
        st = writer->write(spec.json ? summaryJson(summary, model, run->score, *ablate, tally.skipped, where)
                                     : summaryText(summary, model, run->score, *ablate, tally.skipped, where));
    }
    if (!st)
        return fail(st.message());
    if (auto c = writer->commit(); !c)
        return fail(c.message());
    if (filter)
        std::cerr << filter->note("minimal-pairs", "scored (the sentences: the pairs' good sentences, each parsed as a text line)");
    return 0;
}

struct MakePairsSpec {
    std::string input, out, phenomenon = "agreement";
    std::size_t limit = 0;
    WhereSpec where;
};

/// make-pairs --where: which sentences have an occurrence (matched on a copy, so that what a
/// parser gives for the pattern never changes the pairs); an empty list without --where.
Result<std::vector<bool>> makePairsSources(const MakePairsSpec &spec, std::optional<QueryFilter> &filter, const ParserSpec &parser,
                                           const std::vector<Sentence> &sentences)
{
    if (!spec.where.given())
        return std::vector<bool>{};
    auto f = QueryFilter::open(spec.where, parser, spec.input);
    if (!f)
        return f.error();
    filter = std::move(*f);
    std::vector<Sentence> copy = sentences;
    auto found = filter->match(copy);
    if (!found)
        return found.error();
    std::vector<bool> from;
    for (const auto &occurrences : *found)
        from.push_back(!occurrences.empty());
    return from;
}

int runMakePairs(const MakePairsSpec &spec)
{
    auto phenomenon = parsePairPhenomenon(spec.phenomenon);
    if (!phenomenon)
        return fail(phenomenon.message());
    if (formatFromPath(spec.input) != CorpusFormat::Conllu)
        return fail(spec.input + ": make-pairs reads a UD treebank (.conllu): it needs the tree's nsubj and det relations "
                                 "and the words' number");
    if (spec.where.given()) // a pattern that does not parse stops the run before the treebank is read
        if (auto p = readTreePattern(spec.where.pattern, spec.where.file, spec.where.syntax, "--where"); !p)
            return fail(p.message());
    auto sentences = readCorpusNonEmpty(spec.input, CorpusFormat::Conllu);
    if (!sentences)
        return fail(sentences.message());
    const ParserSpec whereParser; // --where's parser: query's default parser options
    std::optional<QueryFilter> filter;
    auto from = makePairsSources(spec, filter, whereParser, *sentences);
    if (!from)
        return fail(from.message());
    const MadePairs made = makePairs(*sentences, *phenomenon, *from);
    std::string out;
    std::size_t written = 0;
    for (const MadePair &p : made.pairs) {
        if (spec.limit && written == spec.limit)
            break;
        out += madePairJson(p, *phenomenon, static_cast<int>(++written)) + "\n";
    }
    if (filter)
        std::cerr << filter->note("make-pairs", "the sources of pairs");
    if (written == 0)
        return fail(spec.input + ": no " + pairPhenomenonName(*phenomenon) + " pairs in " +
                    (filter ? std::to_string(filter->totals().matched) + " sentences with an occurrence of --where's pattern (of " +
                                  std::to_string(sentences->size()) + ")"
                            : std::to_string(sentences->size()) + " sentences"));
    if (int rc = writeOutput(spec.out, out); rc != 0)
        return rc;
    std::cerr << "make-pairs: " << written << " " << pairPhenomenonName(*phenomenon) << " pairs from "
              << (filter ? std::to_string(filter->totals().matched) + " sentences with an occurrence (of " +
                               std::to_string(sentences->size()) + ")"
                         : std::to_string(sentences->size()) + " sentences");
    std::string skipped;
    for (const auto &[reason, count] : made.skipped)
        skipped += (skipped.empty() ? "" : "; ") + reason + " " + std::to_string(count);
    std::cerr << (skipped.empty() ? std::string() : " (skipped: " + skipped + ")") << "\n";
    return 0;
}

} // namespace

Result<PairRun> openPairRun(const std::string &command, const std::string &input, const std::string &out,
                            const ShardOptions &shard, const DeviceSpec &dev)
{
    PairRun run;
    auto header = shardHeaderFor(shard, command, input, out);
    if (!header)
        return header.error();
    run.header = std::move(*header);
    if (run.header && skipDoneShard(shard, *run.header, out)) {
        run.done = true;
        return run;
    }
    auto pairs = readMinimalPairsFile(input);
    if (!pairs)
        return pairs.error();
    run.pairs = std::move(*pairs);
    auto enc = openModel(dev);
    if (!enc)
        return enc.error();
    run.encoder = std::move(*enc);
    const EncoderInfo &info = run.encoder->info();
    run.model = info.name.empty() ? dev.model : info.name;
    if (auto st = languageModelOnly(info, run.model); !st)
        return st.error();
    run.score = sentenceScoreName(info.sentenceScore);
    return run;
}

ShardRange shardItems(std::optional<ShardHeader> &header, std::size_t total, std::size_t block)
{
    if (!header)
        return {0, total};
    const ShardRange range = shardRange(total, header->shard, block);
    header->total = total;
    header->begin = range.begin;
    header->end = range.end;
    header->headerLines = 1;
    return range;
}

std::vector<std::string_view> linesAfterSettings(std::string_view body)
{
    std::vector<std::string_view> out;
    const auto lines = splitView(body, '\n');
    for (std::size_t i = 1; i < lines.size(); ++i)
        if (!lines[i].empty())
            out.push_back(lines[i]);
    return out;
}

void addMinimalPairsCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("minimal-pairs", "A language model on minimal pairs (BLiMP JSON Lines or a good/bad TSV): "
                                                    "log p of each sentence, which it prefers, accuracy per phenomenon");
    auto spec = std::make_shared<MinimalPairsSpec>();
    cmd->add_option("--input,-i", spec->input, "BLiMP JSON Lines (sentence_good, sentence_bad, UID, pairID) or a TSV with "
                                               "the header good<TAB>bad[<TAB>phenomenon]")
        ->required()
        ->type_name("FILE");
    addModelOptions(cmd, spec->dev);
    addAblateOption(cmd, spec->ablate);
    cmd->add_flag("--prepend-bos", spec->prependBos,
                  "A language model whose tokenizer adds no BOS: put the model's BOS in front, so that the first word counts too");
    cmd->add_flag("--json", spec->json, "JSON Lines: one record per pair, then {\"summary\": ...} (keys in docs/minimal-pairs.md)");
    cmd->add_option("-o,--output", spec->out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
    addShardOptions(cmd, spec->shard, "blocks of 64 pairs; a shard writes its records, merge adds the summary");
    addWhereOptions(cmd, spec->where,
                    "Score only the pairs whose good sentence (tokenized as a text line, parsed) has an occurrence");
    cmd->callback([&action, spec]() { action = [spec]() { return runMinimalPairs(*spec); }; });
}

void addMakePairsCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("make-pairs", "Minimal pairs from a UD treebank's own trees: subject-verb agreement (the "
                                                 "verb in the other number) or determiner-noun number, as BLiMP JSON Lines");
    auto spec = std::make_shared<MakePairsSpec>();
    cmd->add_option("--input,-i", spec->input, "A UD treebank (.conllu)")->required()->type_name("T.conllu");
    cmd->add_option("--phenomenon", spec->phenomenon, "agreement (subject and finite present verb, or was/were) or "
                                                      "determiner (this/these, that/those and their noun)")
        ->check(CLI::IsMember({"agreement", "determiner"}))
        ->capture_default_str();
    cmd->add_option("--limit", spec->limit, "At most this many pairs (0: all)")->capture_default_str();
    cmd->add_option("-o,--output", spec->out, "Write to OUT (atomically) instead of stdout")->type_name("OUT");
    addWhereOptions(cmd, spec->where, "Make pairs only from the sentences with an occurrence");
    cmd->callback([&action, spec]() { action = [spec]() { return runMakePairs(*spec); }; });
}

Result<std::string> mergedMinimalPairs(const MergedShards &merged, std::string *)
{
    const std::string &body = merged.body;
    const std::size_t pos = body.find('\n');
    if (pos == std::string::npos)
        return makeError("merge", "the minimal-pairs shards hold no settings line");
    bool json = false;
    std::string model, score;
    std::vector<HeadAblation> ablate;
    Tally tally;
    std::string records;
    ojson where; // --where's pattern, and what its records say
    std::size_t kept = 0, occurrences = 0;
    try {
        const auto settings = nlohmann::json::parse(body.substr(0, pos));
        json = settings.at("json").get<bool>();
        model = settings.at("model").get<std::string>();
        score = settings.value("score", sentenceScoreName(SentenceScore::NextToken));
        for (const auto &a : settings.at("ablated"))
            ablate.push_back(HeadAblation{a.at("layer").get<int>() - 1, a.at("head").is_null() ? -1 : a.at("head").get<int>() - 1});
        if (settings.contains("where"))
            where = settings.at("where");
        for (std::string_view line : linesAfterSettings(body)) {
            const ojson record = ojson::parse(line);
            tally.add(record);
            ++kept;
            occurrences += record.value("occurrences", std::size_t{0});
            records.append(line).append("\n");
        }
    } catch (const std::exception &e) {
        return makeError("merge", std::string("a minimal-pairs shard record is not what minimal-pairs writes: ") + e.what());
    }
    const PairSummary summary = summarizePairs(tally.correct, tally.margin, tally.phenomenon);
    const ojson restriction = where.is_null() ? ojson()
                                              : whereSummary(where.at("pattern").get<std::string>(), where.value("syntax", std::string()),
                                                             merged.first.total, kept, occurrences);
    return json ? records + summaryJson(summary, model, score, ablate, tally.skipped, restriction)
                : summaryText(summary, model, score, ablate, tally.skipped, restriction);
}

} // namespace treelens::cli
