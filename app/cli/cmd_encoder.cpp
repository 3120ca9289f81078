// eval-induction, tune-induction, bench, import-checkpoint, verify-fixture: the encoder commands
// (analyze: cmd_analyze.cpp).
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
