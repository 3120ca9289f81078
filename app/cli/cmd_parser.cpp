// treelens-cli bench-parse: speed of the neural parsers.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <algorithm>
#include <chrono>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/base/fileio.h"
#include "core/parsing/neural/constparser.h"
#include "core/parsing/neural/depparser.h"
#include "core/parsing/neural/neuralparser.h"
#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"

namespace treelens::cli {

void addBenchParseCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("bench-parse", "Speed of the neural parsers: batch sentences/s and single-sentence latency");
    struct Spec {
        std::string input;
        std::string depModel;
        std::string constModel;
        int threads = 2;
        int single = 200;
        int repeat = 3;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("--input,-i", spec->input, "Sentences to parse (CoNLL-U/PTB/text; gold trees are ignored), e.g. EWT test")
        ->required()->type_name("FILE");
    cmd->add_option("--dep-model", spec->depModel, "Dependency parser model (default: the shipped one)")->type_name("M");
    cmd->add_option("--const-model", spec->constModel, "Constituency parser model (default: the shipped one, if any)")->type_name("M");
    cmd->add_option("--threads", spec->threads, "LibTorch threads")->capture_default_str();
    cmd->add_option("--single", spec->single, "Sentences timed one at a time")->capture_default_str();
    cmd->add_option("--repeat", spec->repeat, "Batch runs (the best is reported)")->capture_default_str();
    cmd->footer("Prints one JSON object. Figures in docs/parsers.md.");
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto sentences = readCorpusNonEmpty(spec->input, formatFromPath(spec->input));
            if (!sentences)
                return fail(sentences.message());
            for (auto &s : *sentences) {
                s.dependency.reset();
                s.constituency.reset();
            }
            const std::string depPath = spec->depModel.empty() ? findShippedModel(kShippedDependencyParser) : spec->depModel;
            const std::string constPath = spec->constModel.empty() ? findShippedModel(kShippedConstituencyParser) : spec->constModel;
            if (depPath.empty())
                return fail("no dependency parser model (give --dep-model)");
            auto dep = DependencyParserModel::load(depPath, spec->threads);
            if (!dep)
                return fail(dep.message());
            std::unique_ptr<ConstituencyParserModel> cons;
            if (!constPath.empty()) {
                auto c = ConstituencyParserModel::load(constPath, spec->threads);
                if (!c)
                    return fail(c.message());
                cons = std::move(*c);
            }
            using clock = std::chrono::steady_clock;
            auto secs = [](clock::time_point a) { return std::chrono::duration<double>(clock::now() - a).count(); };
            long words = 0;
            for (const auto &s : *sentences)
                words += static_cast<long>(s.tokens.size());
            nlohmann::json out = {{"input", spec->input}, {"sentences", sentences->size()}, {"words", words},
                                  {"threads", spec->threads}, {"dependency_model", depPath}};
            // Batch: the whole file at once (sorted into length buckets inside).
            double bestDep = 1e30, bestConst = 1e30;
            std::vector<Sentence> tagged;
            for (int r = 0; r < std::max(1, spec->repeat); ++r) {
                std::vector<Sentence> work = *sentences;
                auto t0 = clock::now();
                if (auto st = (*dep)->parse(work); !st)
                    return fail(st.message());
                bestDep = std::min(bestDep, secs(t0));
                if (cons) {
                    t0 = clock::now();
                    if (auto st = cons->parse(work); !st)
                        return fail(st.message());
                    bestConst = std::min(bestConst, secs(t0));
                }
                tagged = std::move(work);
            }
            out["dependency_batch_sentences_per_second"] = std::round(static_cast<double>(sentences->size()) / bestDep);
            if (cons) {
                out["constituency_model"] = constPath;
                out["constituency_batch_sentences_per_second"] = std::round(static_cast<double>(sentences->size()) / bestConst);
            }
            // Single sentences, as the app parses typed text: both parsers, one at a time.
            std::vector<double> ms;
            const int n = std::min<int>(spec->single, static_cast<int>(sentences->size()));
            for (int i = 0; i < n; ++i) {
                std::vector<Sentence> one{(*sentences)[static_cast<std::size_t>(i)]};
                const auto t0 = clock::now();
                if (auto st = (*dep)->parse(one); !st)
                    return fail(st.message());
                if (cons)
                    if (auto st = cons->parse(one); !st)
                        return fail(st.message());
                ms.push_back(secs(t0) * 1000.0);
            }
            std::sort(ms.begin(), ms.end());
            if (!ms.empty()) {
                out["single_sentence_ms_median"] = ms[ms.size() / 2];
                out["single_sentence_ms_p95"] = ms[static_cast<std::size_t>(static_cast<double>(ms.size() - 1) * 0.95)];
                out["single_sentence_ms_max"] = ms.back();
                out["single_sentences"] = ms.size();
            }
            std::printf("%s\n", out.dump(1).c_str());
            return 0;
        };
    });
}

} // namespace treelens::cli
