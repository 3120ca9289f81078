// Measures the tokenizer and sentence splitter on a UD treebank and prints one
// JSON object. Usage:
//   treelens_eval_tokenizer [--split test|dev|train] [--gold FILE.conllu]
//                           [--mismatches N] [--min-seconds S]
// Without --gold, reads ../shared/data/ud-english-ewt/en_ewt-ud-<split>.conllu
// (or $TREELENS_SHARED_DIR/...). --mismatches N writes the first N disagreeing
// stretches to stderr as "sent_id <TAB> gold tokens <TAB> predicted tokens".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/base/fileio.h"
#include "core/eval/tokeneval.h"
#include "core/formats/conllu.h"
#include "core/text/tokenizer.h"
#include "bench/benchpaths.h"

using namespace treelens;

namespace {

std::string joined(const std::vector<std::string> &v)
{
    std::string s;
    for (const std::string &x : v)
        s += (s.empty() ? "" : " ") + x;
    return s;
}

// Tokens per second over repeated passes of the tokenizer alone (no scoring),
// for at least `minSeconds` of wall time.
double throughput(const std::vector<Sentence> &gold, const Tokenizer &tok, double minSeconds, long long &tokensOut)
{
    long long tokens = 0;
    double seconds = 0.0;
    do {
        const auto t0 = std::chrono::steady_clock::now();
        for (const Sentence &s : gold)
            tokens += static_cast<long long>(tok.tokenize(s.text).size());
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (seconds < minSeconds);
    tokensOut = tokens;
    return seconds > 0 ? static_cast<double>(tokens) / seconds : 0.0;
}

} // namespace

int main(int argc, char **argv)
{
    std::string split = "test";
    bool splitGiven = false;
    std::string gold;
    int mismatches = 0;
    double minSeconds = 1.0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--split") {
            split = value();
            splitGiven = true;
        } else if (a == "--gold") {
            gold = value();
        } else if (a == "--mismatches") {
            mismatches = std::atoi(value().c_str());
        } else if (a == "--min-seconds") {
            minSeconds = std::atof(value().c_str());
        } else {
            std::fprintf(stderr,
                         "usage: %s [--split test|dev|train] [--gold FILE] [--mismatches N] [--min-seconds S]\n",
                         argv[0]);
            return 2;
        }
    }
    if (!gold.empty() && !splitGiven)
        split = fileName(gold);
    if (gold.empty()) {
        const char *env = std::getenv("TREELENS_SHARED_DIR");
        const std::string shared = env && *env ? env : TREELENS_DEFAULT_SHARED_DIR;
        gold = shared + "/data/ud-english-ewt/en_ewt-ud-" + split + ".conllu";
    }
    auto text = readFile(gold);
    if (!text) {
        std::fprintf(stderr, "%s\n", text.message().c_str());
        return 1;
    }
    auto sentences = readConllu(*text, gold);
    if (!sentences) {
        std::fprintf(stderr, "%s\n", sentences.message().c_str());
        return 1;
    }
    const Tokenizer tokenizer;
    const TokenizationScore ts = evaluateTokenizer(*sentences, tokenizer, mismatches);
    const SegmentationScore ss = evaluateSentenceSplitter(*sentences, tokenizer);
    for (const TokenMismatch &m : ts.mismatches)
        std::fprintf(stderr, "%s\t%s\t%s\n", m.sentenceId.c_str(), joined(m.gold).c_str(),
                     joined(m.predicted).c_str());
    long long tokens = 0;
    const double tps = throughput(*sentences, tokenizer, minSeconds, tokens);
    std::printf("{\"split\":\"%s\",\"sentences\":%lld,\"skipped_sentences\":%lld,"
                "\"gold_tokens\":%lld,\"token_precision\":%.4f,\"token_recall\":%.4f,\"token_f1\":%.4f,"
                "\"gold_words\":%lld,\"word_precision\":%.4f,\"word_recall\":%.4f,\"word_f1\":%.4f,"
                "\"sentence_precision\":%.4f,\"sentence_recall\":%.4f,\"sentence_f1\":%.4f,"
                "\"boundary_precision\":%.4f,\"boundary_recall\":%.4f,\"boundary_f1\":%.4f,"
                "\"tokens_per_second\":%.0f}\n",
                split.c_str(), ts.sentences, ts.skippedSentences, ts.tokens.gold, ts.tokens.precision(),
                ts.tokens.recall(), ts.tokens.f1(), ts.words.gold, ts.words.precision(), ts.words.recall(),
                ts.words.f1(), ss.sentences.precision(), ss.sentences.recall(), ss.sentences.f1(),
                ss.boundaries.precision(), ss.boundaries.recall(), ss.boundaries.f1(), tps);
    return 0;
}
