// treelens-cli query: tree-pattern queries over a corpus (issue 48; docs/query.md). A Grew
// request (core/query/deppattern.h) is matched on dependency trees, a Tregex pattern
// (core/query/tregex.h) on constituency trees; a sentence without the tree its pattern reads is
// parsed first (the parser options of `parse`) and every record and summary says so.
//
// Stages: the pattern and the trees (readTreePattern, TreeSupply: queryfilter.h, shared with --where), one sentence's occurrences as records
// (grewRecords, tregexRecords), the run over the input in blocks (runQuery), the totals (--count,
// and the last line of a shard) and the merge of shards (mergedQuery).
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/queryfilter.h"
#include "app/cli/querystatcmd.h"
#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/strings.h"
#include "core/formats/shard.h"
#include "core/parsing/parser.h"
#include "core/query/deppattern.h"
#include "core/query/tregex.h"

namespace treelens::cli {

Result<std::string> mergedQuery(const MergedShards &merged, std::string *note);

namespace {

using ojson = nlohmann::ordered_json;

/// Sentences a shard is made of, and parsed together (as `parse` does: a shard parses every
/// sentence with the neighbours the whole run parses it with).
constexpr std::size_t kQueryBlock = 2000;
/// The key of the last line of a shard's body: its totals and the run's output settings.
constexpr const char *kTotalsKey = "query_totals";

struct QuerySpec {
    std::string pattern, patternFile;
    std::string syntax = "auto";
    InputSpec input;
    ParserSpec parser;
    bool json = false, count = false;
    int limit = 0;
    std::string out;
    ShardOptions shard;
    QueryStatSpec stat; ///< --stat: a statistic over the occurrences (cmd_querystat.cpp)
};

/// What a run (or a shard) found, and what --count prints.
struct Totals {
    std::size_t occurrences = 0; ///< records
    std::size_t matched = 0;     ///< sentences with at least one
    std::size_t sentences = 0;   ///< sentences searched or left unparsed
    std::size_t predicted = 0;   ///< sentences searched on a tree the parser gave
    std::size_t unparsed = 0;    ///< sentences the parser refused or failed on (not searched)

    void add(const Totals &o)
    {
        occurrences += o.occurrences;
        matched += o.matched;
        sentences += o.sentences;
        predicted += o.predicted;
        unparsed += o.unparsed;
    }
    /// "gold" (every tree searched is the input's), "predicted" (every one the parser's) or "mixed".
    std::string trees() const
    {
        const std::size_t searched = sentences - unparsed;
        return predicted == 0 ? "gold" : predicted >= searched ? "predicted" : "mixed";
    }
};

/// The settings the merge needs to print what the whole run prints.
struct OutputSettings {
    bool json = false, count = false;
    std::size_t limit = 0;
    std::string tree, parser;
};

/// --count's output: "occurrences 123 in 45 sentences of 2001", or one JSON object.
std::string countOutput(const Totals &t, bool json)
{
    if (!json)
        return "occurrences " + std::to_string(t.occurrences) + " in " + std::to_string(t.matched) + " sentences of " +
               std::to_string(t.sentences) + "\n";
    ojson j = {{"occurrences", t.occurrences}, {"sentences_matched", t.matched}, {"sentences", t.sentences}, {"trees", t.trees()}};
    if (t.unparsed > 0)
        j["unparsed"] = t.unparsed;
    return j.dump() + "\n";
}

/// What stderr says after a run: which trees were predicted, what was not searched, where
/// --limit stopped ("" when nothing needs saying).
std::string runNote(const Totals &t, const OutputSettings &s, bool limitReached)
{
    std::string note;
    if (t.predicted > 0)
        note += "query: the " + s.tree + " trees of " + std::to_string(t.predicted) + " of " + std::to_string(t.sentences) +
                " sentences are predicted (parser " + s.parser + "), not the input's\n";
    if (t.unparsed > 0)
        note += "query: " + std::to_string(t.unparsed) + " sentences the parser refused or failed on were not searched\n";
    if (limitReached)
        note += "query: stopped after " + std::to_string(s.limit) + " occurrences (--limit)\n";
    return note;
}

/// The last line of a shard's body: its totals and the output settings (the merge sums them).
std::string totalsLine(const Totals &t, const OutputSettings &s)
{
    const ojson j = {{kTotalsKey,
                      {{"occurrences", t.occurrences}, {"sentences_matched", t.matched}, {"sentences", t.sentences},
                       {"predicted", t.predicted}, {"unparsed", t.unparsed}, {"json", s.json}, {"count", s.count},
                       {"limit", s.limit}, {"tree", s.tree}, {"parser", s.parser}}}};
    return j.dump() + "\n";
}

/// A sentence's id as every record names it (as analyze's records): the corpus's sent_id
/// (the readers name a text file's sentences s1, s2, ...), else its line, else its number.
std::string sentenceId(const Sentence &s, std::size_t number)
{
    if (!s.id.empty())
        return s.id;
    return std::to_string(s.line > 0 ? static_cast<std::size_t>(s.line) : number);
}

/// The sentence as the text record's last field: its text, or its words; one line, no tabs.
std::string sentenceText(const Sentence &s)
{
    std::string t = s.text.empty() ? join(s.words(), " ") : s.text;
    std::replace_if(t.begin(), t.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
    return t;
}

/// What every record of a sentence starts with.
struct SentenceHead {
    std::string id, text;
    int line = 0;
    bool predicted = false;
};

ojson recordJson(const SentenceHead &h, ojson nodes)
{
    ojson j;
    j["sent_id"] = h.id;
    if (h.line > 0)
        j["line"] = h.line;
    j["trees"] = h.predicted ? "predicted" : "gold";
    j["nodes"] = std::move(nodes);
    return j;
}

std::string dumpLine(const ojson &j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; }

std::string textLine(const SentenceHead &h, const std::string &bindings) { return h.id + "\t" + bindings + "\t" + h.text + "\n"; }

/// A Grew request's occurrences in one sentence, at most `limit` (0: all): text
/// "ID<TAB>V=3:sleeps S=2:dog<TAB>text", or JSON {"sent_id", "line", "trees", "nodes": {name:
/// {"word", "form"}}} with word 0 the anchor (form "__0__").
std::string grewRecords(const DepPattern &p, const Sentence &s, const SentenceHead &h, bool json, std::size_t limit, std::size_t &found)
{
    const DepGraph g = DepGraph::fromSentence(s);
    const auto matches = p.match(g, limit);
    found = matches.size();
    std::string out;
    const auto &names = p.names();
    for (const DepMatch &m : matches) {
        ojson nodes = ojson::object();
        std::string bindings;
        for (std::size_t i = 0; i < names.size() && i < m.nodes.size(); ++i) {
            const int n = m.nodes[i];
            const std::string form = n <= 0 ? std::string("__0__")
                                            : static_cast<std::size_t>(n) < g.nodes.size() ? g.nodes[static_cast<std::size_t>(n)].form
                                                                                           : std::string();
            nodes[names[i]] = {{"word", n}, {"form", form}};
            bindings += (bindings.empty() ? "" : " ") + names[i] + "=" + std::to_string(n) + ":" + form;
        }
        out += json ? dumpLine(recordJson(h, std::move(nodes))) : textLine(h, bindings);
    }
    return out;
}

/// One tree node of a Tregex occurrence: text "NAME=FIRST-LAST:word_word" (words from 1; a
/// node over no word, only traces: "NAME=-"), JSON {"label", "first", "last", "words"}.
void tregexNode(const ConstituencyTree &tree, const std::vector<std::string> &words, const std::string &name, int node,
                ojson &nodes, std::string &bindings)
{
    if (!bindings.empty())
        bindings += ' ';
    if (node < 0) { // a `?` relation that did not match, the other side of a `|`
        nodes[name] = nullptr;
        return;
    }
    const auto [start, end] = tree.span(node);
    std::vector<std::string> covered;
    for (int w = std::max(0, start); w < end && static_cast<std::size_t>(w) < words.size(); ++w)
        covered.push_back(words[static_cast<std::size_t>(w)]);
    ojson n = {{"label", tree.node(node).label}};
    if (end > start) {
        n["first"] = start + 1;
        n["last"] = end;
        bindings += name + "=" + std::to_string(start + 1) + "-" + std::to_string(end) + ":" + join(covered, "_");
    } else {
        n["first"] = nullptr;
        n["last"] = nullptr;
        bindings += name + "=-";
    }
    n["words"] = join(covered, " ");
    nodes[name] = std::move(n);
}

/// A Tregex pattern's occurrences in one sentence's constituency tree (the pattern's root as
/// `_root_`, then the `=name` nodes), at most `limit` (0: all).
std::string tregexRecords(const TregexPattern &p, const Sentence &s, const SentenceHead &h, bool json, std::size_t limit,
                          std::size_t &found)
{
    const ConstituencyTree &tree = *s.constituency;
    const auto matches = p.match(tree, limit);
    found = matches.size();
    const std::vector<std::string> words = tree.words();
    std::string out;
    for (const TregexMatch &m : matches) {
        ojson nodes = ojson::object();
        std::string bindings;
        tregexNode(tree, words, "_root_", m.node, nodes, bindings);
        for (std::size_t i = 0; i < p.names().size() && i < m.bound.size(); ++i)
            if (m.bound[i] >= 0 || json)
                tregexNode(tree, words, p.names()[i], m.bound[i], nodes, bindings);
        out += json ? dumpLine(recordJson(h, std::move(nodes))) : textLine(h, bindings);
    }
    return out;
}

/// One run: the pattern, the trees, the output and what was found so far.
struct QueryRun {
    const QuerySpec &spec;
    const TreePattern &query;
    TreeSupply supply;
    AtomicFileWriter &writer;
    OutputSettings settings;
    Totals totals;
    bool limitReached = false;
};

/// Searches one block of sentences (`first`: the index of its first in the input) and writes
/// its records; stops (an error, limitReached set) once --limit occurrences are written.
Status searchBlock(QueryRun &run, std::vector<Sentence> &chunk, std::size_t first)
{
    std::vector<std::string> failures;
    if (auto st = run.supply.complete(chunk, failures); !st)
        return st;
    for (const auto &f : failures)
        std::cerr << "treelens-cli: warning: " << printableMessage(f) << " (not searched)\n";
    const PatternTree kind = run.query.tree();
    const std::size_t limit = run.settings.limit;
    std::string out;
    for (std::size_t k = 0; k < chunk.size(); ++k) {
        const Sentence &s = chunk[k];
        ++run.totals.sentences;
        if (kind == PatternTree::Dependency ? !s.dependency : (!s.constituency || s.constituency->empty())) {
            ++run.totals.unparsed;
            continue;
        }
        const SentenceHead head{sentenceId(s, first + k + 1), run.spec.json ? std::string() : sentenceText(s), s.line,
                                s.metadataValue(TreeSupply::treeSourceKey(kind)) == "parsed"};
        if (head.predicted)
            ++run.totals.predicted;
        const std::size_t left = limit > 0 ? limit - run.totals.occurrences : 0;
        std::size_t found = 0;
        std::string records = run.query.grew ? grewRecords(*run.query.grew, s, head, run.spec.json, left, found)
                                             : tregexRecords(*run.query.tregex, s, head, run.spec.json, left, found);
        run.totals.occurrences += found;
        run.totals.matched += found > 0 ? 1 : 0;
        if (!run.spec.count)
            out += records;
        if (limit > 0 && run.totals.occurrences >= limit) {
            run.limitReached = true;
            break;
        }
    }
    if (auto st = run.writer.write(out); !st)
        return st;
    return run.limitReached ? Status(cancelledError("--limit")) : Status();
}

/// query over the input: a block of sentences at a time (blocks at multiples of kQueryBlock in
/// the input, sharded or not), their missing trees parsed, their records written before the
/// next block is read. With -o nothing is written unless the run succeeds.
int runQuery(const QuerySpec &spec)
{
    auto query = readTreePattern(spec.pattern, spec.patternFile, spec.syntax, "--pattern");
    if (!query)
        return fail(query.message());
    if (spec.stat.active()) {
        if (spec.count || spec.limit > 0 || !spec.shard.shard.empty() || spec.syntax == "tregex")
            return fail("--stat does not take --count, --limit, --shard or --syntax tregex (it reads every occurrence of a Grew request)");
        std::string text = spec.pattern;
        if (!spec.patternFile.empty()) {
            auto file = readFile(spec.patternFile);
            if (!file)
                return fail(file.message());
            text = *file;
        }
        return runQueryStat(spec.stat, text, spec.patternFile.empty() ? "--pattern" : spec.patternFile, spec.input, spec.parser,
                            spec.json, spec.out);
    }
    auto sharding = sentenceShard(spec.shard, "query", spec.input, spec.out, kQueryBlock);
    if (!sharding)
        return fail(sharding.message());
    if (sharding->done)
        return 0;
    auto input = InputChunks::open(spec.input);
    if (!input)
        return fail(input.message());
    auto writer = AtomicFileWriter::open(spec.out.empty() ? std::string("-") : spec.out);
    if (!writer)
        return fail(writer.message());
    QueryRun run{spec, *query, TreeSupply(spec.parser, query->tree(), inputSourceName(spec.input)), *writer, {}, {}, false};
    run.settings = {spec.json, spec.count, static_cast<std::size_t>(std::max(0, spec.limit)), patternTreeName(query->tree()), spec.parser.parser};
    if (auto st = writer->write(sharding->firstLine()); !st)
        return fail(st.message());
    const ShardRange range = sharding->range;
    auto done = forEachBlock(*input, kQueryBlock, range.begin, range.end, "query",
                             [&run](std::vector<Sentence> &chunk, std::size_t first) { return searchBlock(run, chunk, first); });
    if (!done && !run.limitReached)
        return fail(done.message());
    std::string tail;
    if (sharding->header) // the totals for the merge, and the shard's end line (its every sentence is done)
        tail = totalsLine(run.totals, run.settings) + sharding->lastLine(sharding->header->end - sharding->header->begin);
    else if (spec.count)
        tail = countOutput(run.totals, spec.json);
    if (auto st = writer->write(tail); !st)
        return fail(st.message());
    if (auto st = writer->commit(); !st)
        return fail(st.message());
    std::cerr << runNote(run.totals, run.settings, run.limitReached);
    return 0;
}

} // namespace

void addQueryCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("query", "Search a corpus's trees with a pattern: a Grew request on dependency trees or a "
                                            "Tregex pattern on constituency trees; one record per occurrence, or --count");
    auto spec = std::make_shared<QuerySpec>();
    auto *pattern = cmd->add_option("--pattern", spec->pattern,
                                    "The pattern: a Grew request ('pattern { V [upos=VERB]; S []; V -[nsubj]-> S }') or a "
                                    "Tregex pattern ('VP < NP=obj')")
                        ->type_name("P");
    auto *file = cmd->add_option("--pattern-file", spec->patternFile, "Read the pattern from the file F")->type_name("F");
    pattern->excludes(file);
    cmd->add_option("--syntax", spec->syntax,
                    "The pattern's language: grew, tregex, or auto (a Grew request when it starts with pattern, with or "
                    "without followed by '{'; else Tregex)")
        ->check(CLI::IsMember({"grew", "tregex", "auto"}))
        ->capture_default_str();
    addInputOptions(cmd, spec->input, true);
    addParserOptions(cmd, spec->parser);
    cmd->add_flag("--json", spec->json, "JSON Lines: one object per occurrence (sent_id, line, trees, nodes)");
    auto *count = cmd->add_flag("--count", spec->count, "Only the totals: occurrences, and sentences with at least one, of all");
    auto *limit = cmd->add_option("--limit", spec->limit, "Stop after K occurrences (0: no limit)")
                      ->check(CLI::NonNegativeNumber)
                      ->type_name("K");
    count->excludes(limit);
    cmd->add_option("-o,--output", spec->out, "Write to FILE (atomically) instead of standard output")->type_name("FILE");
    addShardOptions(cmd, spec->shard, "blocks of 2,000 sentences");
    addQueryStatOptions(cmd, spec->stat);
    cmd->footer("A sentence without the tree its pattern reads (raw text; CoNLL-U without HEAD for a Grew request or without\n"
                "'# constituency' for a Tregex pattern) is parsed first with the parser options; stderr then says how many\n"
                "trees are predicted, and JSON records say \"trees\": \"predicted\" (else \"gold\").\n"
                "Text: SENT_ID<TAB>NAME=WORD:FORM ...<TAB>sentence (Tregex: _root_=FIRST-LAST:words_joined_by_underscores).\n"
                "Example: treelens-cli query --pattern 'VP < NP=obj' --input wsj_0001.mrg\n"
                "Details: docs/query.md.");
    cmd->callback([&action, spec]() {
        if (spec->pattern.empty() && spec->patternFile.empty())
            throw CLI::RequiredError("--pattern or --pattern-file");
        action = [spec]() { return runQuery(*spec); };
    });
}

/// The shards of a query run (their records, then each shard's totals line) as the whole run
/// writes them: the records in input order (the first --limit of them), or the summed totals.
Result<std::string> mergedQuery(const MergedShards &merged, std::string *note)
{
    Totals totals;
    OutputSettings settings;
    std::size_t shards = 0;
    std::string records;
    std::size_t kept = 0; // record lines
    const std::string totalsStart = std::string("{\"") + kTotalsKey + "\"";
    for (std::string_view line : splitView(merged.body, '\n')) {
        if (line.empty())
            continue;
        if (!startsWith(line, totalsStart)) {
            records.append(line).append("\n");
            ++kept;
            continue;
        }
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.at(kTotalsKey).is_object())
            return makeError("merge", "a query shard's totals line is not what query writes: " + std::string(line.substr(0, 80)));
        const auto &t = j.at(kTotalsKey);
        Totals one;
        one.occurrences = t.value("occurrences", std::size_t{0});
        one.matched = t.value("sentences_matched", std::size_t{0});
        one.sentences = t.value("sentences", std::size_t{0});
        one.predicted = t.value("predicted", std::size_t{0});
        one.unparsed = t.value("unparsed", std::size_t{0});
        totals.add(one);
        settings = {t.value("json", false), t.value("count", false), t.value("limit", std::size_t{0}), t.value("tree", std::string()),
                    t.value("parser", std::string())};
        ++shards;
    }
    if (shards == 0)
        return makeError("merge", "the query shards hold no totals line (written by another version?)");
    bool limitReached = false;
    if (settings.limit > 0 && totals.occurrences >= settings.limit) {
        // Each shard stopped at --limit of its own; the whole run stops at the first --limit of all.
        std::size_t end = 0;
        for (std::size_t n = 0; n < settings.limit && n < kept; ++n)
            end = records.find('\n', end) + 1; // every record line ends with '\n'
        records.resize(end);
        limitReached = true;
    }
    if (note)
        *note = runNote(totals, settings, limitReached);
    return settings.count ? countOutput(totals, settings.json) : records;
}

} // namespace treelens::cli
