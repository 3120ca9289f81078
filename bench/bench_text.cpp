// Google Benchmark: throughput of the readers and the tokenizer, and how they scale.
// Machine-readable: bench_text --benchmark_format=json
//   BM_ReadConllu   reading UD EWT train (13 MB) when ../shared is present, else a synthetic file
//   BM_Tokenize/N   tokenizing N bytes of running text; the fitted complexity must be O(N)
//   BM_Split/N      sentence splitting, likewise
#include <benchmark/benchmark.h>

#include <string>

#include "core/base/fileio.h"
#include "core/formats/conllu.h"
#include "core/formats/ptb.h"
#include "core/text/tokenizer.h"
#include "bench/benchpaths.h"

using namespace treelens;

namespace {

std::string runningText(std::size_t bytes)
{
    static const std::string unit =
        "The U.S. isn't here, Mr. Smith said on Jan. 3 at 10:30 a.m. \"We'll see.\" Visit www.example.com or mail "
        "info@example.com :) Prices rose 3.5% to $1,200.50 -- a record! ";
    std::string text;
    while (text.size() < bytes)
        text += unit;
    text.resize(bytes);
    return text;
}

std::string conlluData()
{
    auto r = readFile(std::string(TREELENS_DEFAULT_SHARED_DIR) + "/data/ud-english-ewt/en_ewt-ud-train.conllu");
    if (r)
        return *r;
    std::string s;
    for (int i = 0; i < 20000; ++i)
        s += "# sent_id = " + std::to_string(i) + "\n# text = I saw her.\n1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t2:nsubj\t_\n"
             "2\tsaw\tsee\tVERB\tVBD\t_\t0\troot\t0:root\t_\n3\ther\tshe\tPRON\tPRP\t_\t2\tobj\t2:obj\tSpaceAfter=No\n"
             "4\t.\t.\tPUNCT\t.\t_\t2\tpunct\t2:punct\t_\n\n";
    return s;
}

void BM_ReadConllu(benchmark::State &state)
{
    const std::string data = conlluData();
    for (auto _ : state) {
        auto r = readConllu(data, "train.conllu");
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(data.size()));
    state.counters["MB"] = static_cast<double>(data.size()) / 1e6;
}
BENCHMARK(BM_ReadConllu)->Unit(benchmark::kMillisecond);

void BM_WriteConllu(benchmark::State &state)
{
    const auto sentences = *readConllu(conlluData(), "train.conllu");
    for (auto _ : state) {
        auto s = writeConllu(sentences);
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_WriteConllu)->Unit(benchmark::kMillisecond);

void BM_Tokenize(benchmark::State &state)
{
    const std::string text = runningText(static_cast<std::size_t>(state.range(0)));
    const Tokenizer tok;
    for (auto _ : state) {
        auto t = tok.tokenize(text);
        benchmark::DoNotOptimize(t);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Tokenize)->RangeMultiplier(8)->Range(1 << 10, 1 << 22)->Complexity()->Unit(benchmark::kMillisecond);

void BM_Split(benchmark::State &state)
{
    const std::string text = runningText(static_cast<std::size_t>(state.range(0)));
    const Tokenizer tok;
    for (auto _ : state) {
        auto t = tok.splitSentences(text);
        benchmark::DoNotOptimize(t);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Split)->RangeMultiplier(8)->Range(1 << 10, 1 << 22)->Complexity()->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
