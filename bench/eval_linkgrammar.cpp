// Measures the Link Grammar backend and prints one JSON object:
// - PTB WSJ sample: labelled/unlabelled bracket F1 of the converted constituency
//   trees against the gold trees (fed the gold tokens, traces stripped, -LRB- etc.
//   unescaped), the share of complete / partial / failed parses, how many tokens
//   Link Grammar split, merged or dropped, and parse speed;
// - optionally a UD treebank: UAS/LAS of the converted dependency trees.
// Usage:
//   eval_linkgrammar [--ptb-dir DIR] [--files FIRST-LAST | --all] [--timeout S]
//                    [--max-words N] [--ud FILE.conllu] [--ud-limit N]
//                    [--per-sentence FILE.tsv] [--write-trees PREFIX]
//                    [--write-conllu FILE]
// Defaults: $TREELENS_SHARED_DIR (or ../shared)/data/ptb-sample, files 180-199
// (wsj_0180.mrg .. wsj_0199.mrg, the reported test set), timeout 2 s, 250 words.
// --write-trees PREFIX writes PREFIX.gold.ptb and PREFIX.pred.ptb (one tree per
// line, failures as flat trees) so the figures can be checked with evalb itself;
// --write-conllu FILE the predicted UD trees of the parsed sentences.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/eval/bracketeval.h"
#include "core/eval/depeval.h"
#include "core/formats/conllu.h"
#include "core/formats/ptb.h"
#include "core/parsing/parser.h"
#include "bench/benchpaths.h"

using namespace treelens;
using Json = nlohmann::ordered_json;

namespace {

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double round2(double x) { return static_cast<double>(static_cast<long long>(x * 100.0 + (x >= 0 ? 0.5 : -0.5))) / 100.0; }

int metaInt(const Sentence &s, const std::string &key)
{
    const std::string v = s.metadataValue(key);
    return v.empty() ? 0 : std::atoi(v.c_str());
}

/// (S (X w1) (X w2) ...): what a failed sentence contributes to the all-sentences score.
ConstituencyTree flatTree(const Sentence &s)
{
    ConstituencyTree t;
    const int root = t.addNode("S", -1);
    for (const Token &tok : s.tokens)
        t.addNode(tok.text, t.addNode("X", root), true);
    t.renumberWords();
    return t;
}

/// Right-branching binary tree over all tokens: the usual reference point for
/// unlabelled F1 on English.
ConstituencyTree rightBranching(const Sentence &s)
{
    ConstituencyTree t;
    int parent = t.addNode("S", -1);
    const std::size_t n = s.tokens.size();
    for (std::size_t i = 0; i < n; ++i) {
        t.addNode(s.tokens[i].text, t.addNode("X", parent), true);
        if (i + 2 < n)
            parent = t.addNode("X", parent);
    }
    t.renumberWords();
    return t;
}

Json counts(const BracketCounts &c)
{
    return Json{{"precision", round2(c.precision())}, {"recall", round2(c.recall())}, {"f1", round2(c.f1())},
                {"gold", c.gold}, {"predicted", c.predicted}, {"matched", c.matched}};
}

Json score(const std::vector<Sentence> &gold, const std::vector<Sentence> &pred)
{
    Json out;
    out["sentences"] = gold.size();
    if (gold.empty())
        return out;
    BracketEvalOptions evalb;      // evalb COLLINS.prm: the sentence-level S counts too
    evalb.countRoot = true;
    BracketEvalOptions excludeTop; // the unsupervised-parsing convention: it does not
    excludeTop.countRoot = false;
    auto a = evaluateBrackets(gold, pred, excludeTop);
    auto b = evaluateBrackets(gold, pred, evalb);
    if (!a || !b) {
        out["error"] = !a ? a.message() : b.message();
        return out;
    }
    out["evalb"] = Json{{"labeled", counts(b->labeled)}, {"unlabeled", counts(b->unlabeled)},
                        {"exact_labeled", b->exactLabeled}};
    out["without_top_bracket"] = Json{{"labeled", counts(a->labeled)}, {"unlabeled", counts(a->unlabeled)},
                                      {"sentence_f1_unlabeled", round2(a->sentenceF1Unlabeled)}};
    return out;
}

Json timing(std::vector<double> ms, long long tokens)
{
    if (ms.empty())
        return Json::object();
    double total = 0;
    for (double x : ms)
        total += x;
    std::sort(ms.begin(), ms.end());
    const auto pct = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * static_cast<double>(ms.size())))]; };
    return Json{{"total_s", round2(total / 1000.0)},
                {"mean_ms", round2(total / static_cast<double>(ms.size()))},
                {"median_ms", round2(pct(0.5))},
                {"p90_ms", round2(pct(0.9))},
                {"p99_ms", round2(pct(0.99))},
                {"max_ms", round2(ms.back())},
                {"sentences_per_s", round2(1000.0 * static_cast<double>(ms.size()) / total)},
                {"tokens_per_s", round2(1000.0 * static_cast<double>(tokens) / total)}};
}

enum class Outcome { Complete, Partial, Timeout, TooLong, Error };

Outcome classify(const Result<Sentence> &r)
{
    if (r.ok())
        return r->metadataValue("partial") == "yes" ? Outcome::Partial : Outcome::Complete;
    if (r.message().find("no linkage within") != std::string::npos)
        return Outcome::Timeout;
    if (r.message().find("ParserConfig::maxWords") != std::string::npos)
        return Outcome::TooLong;
    return Outcome::Error;
}

const char *outcomeName(Outcome o)
{
    switch (o) {
    case Outcome::Complete: return "complete";
    case Outcome::Partial: return "partial";
    case Outcome::Timeout: return "timeout";
    case Outcome::TooLong: return "too_long";
    case Outcome::Error: return "error";
    }
    return "?";
}

Sentence inputFrom(const Sentence &gold, bool unescape)
{
    Sentence in;
    in.id = gold.id;
    for (const Token &t : gold.tokens) {
        Token tok;
        tok.text = unescape ? ptbUnescape(t.text) : t.text;
        in.tokens.push_back(tok);
    }
    return in;
}

struct Bucket {
    Bucket(const char *n, std::size_t l, std::size_t h) : name(n), lo(l), hi(h) {}
    const char *name;
    std::size_t lo, hi;
    std::vector<Sentence> gold, pred;
    long complete = 0, partial = 0, failed = 0;
    std::vector<double> ms;
};

} // namespace

int main(int argc, char **argv)
{
    const char *env = std::getenv("TREELENS_SHARED_DIR");
    const std::string shared = env && *env ? env : TREELENS_DEFAULT_SHARED_DIR;
    std::string ptbDir = shared + "/data/ptb-sample";
    int first = 180, last = 199;
    ParserConfig config;
    config.backend = "link-grammar";
    std::string udFile, perSentence, treesPrefix, conlluOut;
    long udLimit = -1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--ptb-dir") {
            ptbDir = value();
        } else if (a == "--files") {
            const std::string v = value();
            if (std::sscanf(v.c_str(), "%d-%d", &first, &last) != 2 || first < 1 || last < first) {
                std::fprintf(stderr, "--files wants FIRST-LAST, e.g. 180-199\n");
                return 2;
            }
        } else if (a == "--all") {
            first = 1;
            last = 199;
        } else if (a == "--timeout") {
            config.timeoutSeconds = std::atof(value().c_str());
        } else if (a == "--max-words") {
            config.maxWords = std::atoi(value().c_str());
        } else if (a == "--ud") {
            udFile = value();
        } else if (a == "--ud-limit") {
            udLimit = std::atol(value().c_str());
        } else if (a == "--per-sentence") {
            perSentence = value();
        } else if (a == "--write-trees") {
            treesPrefix = value();
        } else if (a == "--write-conllu") {
            conlluOut = value();
        } else {
            std::fprintf(stderr,
                         "usage: %s [--ptb-dir DIR] [--files FIRST-LAST | --all] [--timeout S] [--max-words N]\n"
                         "          [--ud FILE.conllu] [--ud-limit N] [--per-sentence FILE.tsv] [--write-trees PREFIX]\n"
                         "          [--write-conllu FILE]\n",
                         argv[0]);
            return 2;
        }
    }

    const auto loadStart = std::chrono::steady_clock::now();
    auto parser = createParser(config);
    const double loadSeconds = seconds(loadStart);
    if (!parser) {
        std::fprintf(stderr, "%s\n", parser.message().c_str());
        return 1;
    }

    Json out;
    out["parser"] = (*parser)->info().description;
    out["config"] = Json{{"timeout_s", config.timeoutSeconds}, {"max_words", config.maxWords}};
    out["dictionary_load_s"] = round2(loadSeconds * 1000.0) / 1000.0;

    // ---- PTB constituency
    PtbReadOptions ptbOptions;
    ptbOptions.stripTraces = true;
    ptbOptions.stripFunctionTags = true;
    std::vector<Sentence> gold, pred, goldParsed, predParsed, goldComplete, predComplete, rightBranch;
    std::vector<double> ms, msParsed;
    long long tokens = 0, tokensParsed = 0;
    long outcomes[5] = {0, 0, 0, 0, 0};
    long split = 0, merged = 0, dropped = 0, sentencesMismatched = 0, nullWords = 0, violations = 0,
         flatConstituency = 0, flatDependency = 0, escaped = 0, tagsRight = 0, tagsX = 0, abbreviations = 0;
    std::vector<Bucket> buckets = {{"1-10", 1, 10}, {"11-20", 11, 20}, {"21-40", 21, 40}, {"41+", 41, 100000}};
    std::ofstream tsv;
    if (!perSentence.empty()) {
        tsv.open(perSentence);
        tsv << "id\twords\toutcome\tnull_count\tms\tlabeled_f1\tmessage\n";
    }
    int files = 0;
    for (int f = first; f <= last; ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "wsj_%04d.mrg", f);
        const std::string path = ptbDir + "/" + name;
        auto text = readFile(path);
        if (!text) {
            std::fprintf(stderr, "%s\n", text.message().c_str());
            return 1;
        }
        auto sentences = readPtbSentences(*text, name, ptbOptions);
        if (!sentences) {
            std::fprintf(stderr, "%s\n", sentences.message().c_str());
            return 1;
        }
        ++files;
        for (Sentence &g : *sentences) {
            const Sentence in = inputFrom(g, true);
            const auto leaves = g.constituency->words(); // as in the file: "-LRB-"
            for (std::size_t k = 0; k < leaves.size() && k < in.tokens.size(); ++k)
                escaped += leaves[k] != in.tokens[k].text;
            const auto t0 = std::chrono::steady_clock::now();
            auto r = (*parser)->parse(in);
            const double took = seconds(t0) * 1000.0;
            const Outcome o = classify(r);
            ++outcomes[static_cast<int>(o)];
            ms.push_back(took);
            tokens += static_cast<long long>(in.tokens.size());
            Sentence p = in;
            if (r.ok()) {
                p = std::move(r.value());
                const int s = metaInt(p, "lg.split"), m = metaInt(p, "lg.merged"), d = metaInt(p, "lg.dropped");
                split += s;
                merged += m;
                dropped += d;
                sentencesMismatched += (s + m + d) > 0;
                abbreviations += metaInt(p, "lg.abbreviations");
                nullWords += metaInt(p, "null_count");
                violations += !p.metadataValue("lg.violation").empty();
                flatConstituency += p.metadataValue("lg.constituency") == "flat";
                flatDependency += p.metadataValue("lg.dependency") == "flat";
                const auto gt = g.constituency->tags(), pt = p.constituency->tags();
                for (std::size_t k = 0; k < gt.size() && k < pt.size(); ++k) {
                    tagsRight += gt[k] == pt[k];
                    tagsX += pt[k] == "X";
                }
                goldParsed.push_back(g);
                predParsed.push_back(p);
                msParsed.push_back(took);
                tokensParsed += static_cast<long long>(in.tokens.size());
                if (o == Outcome::Complete) {
                    goldComplete.push_back(g);
                    predComplete.push_back(p);
                }
            } else {
                p.constituency = flatTree(in);
            }
            Sentence rb = in;
            rb.constituency = rightBranching(in);
            rightBranch.push_back(std::move(rb));
            for (Bucket &b : buckets)
                if (in.tokens.size() >= b.lo && in.tokens.size() <= b.hi) {
                    b.gold.push_back(g);
                    b.pred.push_back(p);
                    b.ms.push_back(took);
                    b.complete += o == Outcome::Complete;
                    b.partial += o == Outcome::Partial;
                    b.failed += !r.ok();
                }
            if (tsv.is_open()) {
                const BracketCounts c = compareTrees(*g.constituency, *p.constituency, true);
                tsv << g.id << '\t' << in.tokens.size() << '\t' << outcomeName(o) << '\t'
                    << (r.ok() ? p.metadataValue("null_count") : std::string("-")) << '\t' << took << '\t' << c.f1()
                    << '\t' << (r.ok() ? std::string() : r.message()) << '\n';
            }
            gold.push_back(std::move(g));
            pred.push_back(std::move(p));
        }
    }
    const auto share = [&](long x) { return gold.empty() ? 0.0 : round2(100.0 * static_cast<double>(x) / static_cast<double>(gold.size())); };
    Json ptb;
    ptb["dir"] = ptbDir;
    char range[64];
    std::snprintf(range, sizeof range, "wsj_%04d..wsj_%04d", first, last);
    ptb["files"] = range;
    ptb["file_count"] = files;
    ptb["sentences"] = gold.size();
    ptb["tokens"] = tokens;
    ptb["tokens_unescaped"] = escaped; // "-LRB-" etc. in the file, fed to Link Grammar as "("
    ptb["outcomes"] = Json{{"complete", outcomes[0]}, {"partial", outcomes[1]}, {"timeout", outcomes[2]},
                           {"too_long", outcomes[3]}, {"error", outcomes[4]}};
    ptb["outcome_percent"] = Json{{"complete", share(outcomes[0])}, {"partial", share(outcomes[1])},
                                  {"timeout_or_error", share(outcomes[2] + outcomes[3] + outcomes[4])}};
    ptb["alignment"] = Json{{"tokens_split_by_lg", split}, {"tokens_merged_by_lg", merged},
                            {"tokens_dropped_by_lg", dropped}, {"sentences_affected", sentencesMismatched},
                            {"abbreviations_refed_without_period", abbreviations}};
    ptb["null_linked_words"] = nullWords;
    // The derived POS tags (docs/link-grammar.md) against the gold PTB tags, parsed sentences.
    ptb["derived_pos"] = Json{{"accuracy", tokensParsed ? round2(100.0 * static_cast<double>(tagsRight) / static_cast<double>(tokensParsed)) : 0.0},
                              {"tagged_X_percent", tokensParsed ? round2(100.0 * static_cast<double>(tagsX) / static_cast<double>(tokensParsed)) : 0.0}};
    ptb["linkages_with_pp_violation"] = violations;
    ptb["flat_fallback"] = Json{{"constituency", flatConstituency}, {"dependency", flatDependency}};
    ptb["brackets_all_sentences_failures_flat"] = score(gold, pred);
    ptb["brackets_parsed_sentences"] = score(goldParsed, predParsed);
    ptb["brackets_complete_linkages_only"] = score(goldComplete, predComplete);
    ptb["right_branching_baseline"] = score(gold, rightBranch);
    Json byLength = Json::array();
    for (const Bucket &b : buckets) {
        Json j = score(b.gold, b.pred);
        j["length"] = b.name;
        j["complete"] = b.complete;
        j["partial"] = b.partial;
        j["failed"] = b.failed;
        j["mean_ms"] = b.ms.empty() ? 0.0 : round2([&] { double s = 0; for (double x : b.ms) s += x; return s / static_cast<double>(b.ms.size()); }());
        byLength.push_back(std::move(j));
    }
    ptb["by_length_all_sentences"] = byLength;
    ptb["time_all"] = timing(ms, tokens);
    ptb["time_parsed"] = timing(msParsed, tokensParsed);
    out["ptb"] = ptb;
    if (!treesPrefix.empty()) {
        std::vector<Sentence> escapedPred = pred; // leaves back to "-LRB-" so the file parses
        for (Sentence &s : escapedPred)
            for (int node : s.constituency->wordNodes())
                s.constituency->node(node).label = ptbEscape(s.constituency->node(node).label);
        auto g = writePtb(gold);
        auto p = writePtb(escapedPred);
        if (!g || !p) {
            std::fprintf(stderr, "%s\n", (!g ? g.message() : p.message()).c_str());
            return 1;
        }
        for (const auto &[path, data] : {std::make_pair(treesPrefix + ".gold.ptb", *g), std::make_pair(treesPrefix + ".pred.ptb", *p)})
            if (Status st = writeFileAtomic(path, data); !st.ok()) {
                std::fprintf(stderr, "%s\n", st.message().c_str());
                return 1;
            }
    }

    // ---- UD dependencies (optional)
    if (!udFile.empty()) {
        auto text = readFile(udFile);
        if (!text) {
            std::fprintf(stderr, "%s\n", text.message().c_str());
            return 1;
        }
        auto sentences = readConllu(*text, udFile);
        if (!sentences) {
            std::fprintf(stderr, "%s\n", sentences.message().c_str());
            return 1;
        }
        std::vector<Sentence> ug, up, ugc, upc;
        long done = 0, failed = 0, partial = 0;
        std::vector<double> udMs;
        long long udTokens = 0;
        for (const Sentence &g : *sentences) {
            if (udLimit >= 0 && done >= udLimit)
                break;
            if (!g.dependency)
                continue;
            ++done;
            const Sentence in = inputFrom(g, false);
            const auto t0 = std::chrono::steady_clock::now();
            auto r = (*parser)->parse(in);
            udMs.push_back(seconds(t0) * 1000.0);
            udTokens += static_cast<long long>(in.tokens.size());
            if (!r) {
                ++failed;
                continue;
            }
            Sentence p = std::move(r.value());
            p.tokens = g.tokens; // the scorer compares token texts and reads gold UPOS for punctuation
            const bool isPartial = p.metadataValue("partial") == "yes";
            partial += isPartial;
            if (!isPartial) {
                ugc.push_back(g);
                upc.push_back(p);
            }
            ug.push_back(g);
            up.push_back(std::move(p));
        }
        Json ud;
        ud["file"] = udFile;
        ud["sentences"] = done;
        ud["parsed"] = static_cast<long>(ug.size());
        ud["partial"] = partial;
        ud["failed"] = failed;
        const auto attach = [](const std::vector<Sentence> &g, const std::vector<Sentence> &p) {
            Json j;
            auto e = evaluateDependencies(g, p);
            if (!e) {
                j["error"] = e.message();
                return j;
            }
            j["sentences"] = e->sentences;
            j["uas"] = round2(e->all.uas());
            j["las"] = round2(e->all.las());
            j["uas_no_punct"] = round2(e->noPunct.uas());
            j["las_no_punct"] = round2(e->noPunct.las());
            j["tokens"] = e->all.tokens;
            return j;
        };
        ud["parsed_sentences"] = attach(ug, up);
        ud["complete_linkages_only"] = attach(ugc, upc);
        ud["time"] = timing(udMs, udTokens);
        if (!conlluOut.empty()) {
            std::vector<Sentence> written = up;
            for (Sentence &s : written)
                s.constituency.reset();
            if (Status st = writeFileAtomic(conlluOut, writeConllu(written)); !st.ok()) {
                std::fprintf(stderr, "%s\n", st.message().c_str());
                return 1;
            }
        }
        out["ud"] = ud;
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
