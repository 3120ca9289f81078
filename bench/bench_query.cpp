// Tree-pattern query speed (issue 48: "a pattern over all of EWT train answers in under a
// second on one core"). Reads a CoNLL-U corpus (default: UD English EWT train in
// ../shared), builds the sentence graphs once (DepGraph::fromSentence, what the corpus dock
// caches), then matches each Grew request REPEATS times and reports the median wall time
// of one pass over the corpus, with the occurrences. One thread: the matcher is serial.
//   bench_query [--corpus FILE.conllu] [--repeats N]
// Prints one JSON object (docs/query.md, "Speed").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "benchpaths.h"
#include "core/formats/corpus.h"
#include "core/query/deppattern.h"

using namespace treelens;

namespace {
double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

const char *kRequests[] = {
    "pattern { V [upos=VERB, Number=Sing]; S [upos=NOUN|PROPN, lemma<>\"it\"]; V -[nsubj]-> S; S << V }",
    "pattern { V [upos=VERB]; S [upos=NOUN|PROPN, lemma<>\"it\"]; V -[nsubj]-> S; S << V } without { V -[aux]-> A }",
    "pattern { V [upos=VERB] } without { V -[aux]-> A } without { V -[1=nsubj]-> S }",
    "pattern { V [upos=VERB, lemma=re\".*ize\"]; V -[obj|iobj]-> O }",
    "pattern { V -[1=nsubj]-> S; V -[1=aux]-> A; S.Number <> A.Number }",
    "pattern { X [upos=ADJ]; Y [upos=ADJ]; X << Y }",
    "pattern { V [upos=VERB]; S [upos=NOUN]; V -[nsubj]-> S; S -[acl:relcl]-> R; S << R; R << V }",
    "pattern { X [form=re\".*ing\"]; Y []; Z []; Y -> X; Z -> Y }",
    "pattern { X [] }",
};
} // namespace

int main(int argc, char **argv)
{
    std::string corpus = std::string(TREELENS_DEFAULT_SHARED_DIR) + "/data/ud-english-ewt/en_ewt-ud-train.conllu";
    int repeats = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--corpus" && i + 1 < argc)
            corpus = argv[++i];
        else if (a == "--repeats" && i + 1 < argc)
            repeats = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--corpus FILE.conllu] [--repeats N]\n", argv[0]);
            return 2;
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto sentences = readCorpusFile(corpus, CorpusFormat::Conllu);
    if (!sentences) {
        std::fprintf(stderr, "bench_query: %s\n", sentences.message().c_str());
        return 1;
    }
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<DepGraph> graphs;
    graphs.reserve(sentences->size());
    for (const Sentence &s : *sentences)
        graphs.push_back(DepGraph::fromSentence(s));
    const auto t2 = std::chrono::steady_clock::now();

    nlohmann::json out;
    out["bench"] = "query";
    out["corpus"] = corpus;
    out["sentences"] = sentences->size();
    out["threads"] = 1;
    out["read_s"] = seconds(t0, t1);
    out["graphs_s"] = seconds(t1, t2);
    out["repeats"] = repeats;
    double worst = 0.0;
    for (const char *text : kRequests) {
        auto p = DepPattern::parse(text);
        if (!p) {
            std::fprintf(stderr, "bench_query: %s: %s\n", text, p.message().c_str());
            return 1;
        }
        std::vector<double> times;
        std::size_t occurrences = 0;
        for (int r = 0; r < repeats; ++r) {
            const auto a = std::chrono::steady_clock::now();
            std::size_t n = 0;
            for (const DepGraph &g : graphs)
                n += p->match(g).size();
            times.push_back(seconds(a, std::chrono::steady_clock::now()));
            occurrences = n;
        }
        std::sort(times.begin(), times.end());
        const double median = times[times.size() / 2];
        worst = std::max(worst, median);
        out["requests"].push_back({{"request", text}, {"occurrences", occurrences}, {"median_s", median},
                                   {"min_s", times.front()}, {"max_s", times.back()}});
    }
    out["worst_median_s"] = worst;
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
