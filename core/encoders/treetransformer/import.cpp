// import: official Tree Transformer state dicts → native model files, and the family entry (see import.h).
#include "core/encoders/treetransformer/import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/base/inputlimits.h"
#include "core/model/checkpoint.h"

#include "core/encoders/common/familykit.h"
#include "core/encoders/common/vocabulary.h"
#include "core/data/induction.h"
#include "core/encoders/treetransformer/treetransformer.h"
#include "core/model/modelfile.h"

namespace treelens {

using nlohmann::json;

Result<ModelFile> importTreeTransformerCheckpoint(ImportRequest request)
{
    const std::string &ckpt = request.checkpointPath;
    if (request.vocabText.empty() && request.vocabPath.empty())
        return makeError(ckpt, "a tree-transformer checkpoint needs its vocabulary (--vocab)");
    const std::string &vtext = request.vocabText;
    const auto first = vtext.find_first_not_of(" \t\r\n");
    const bool dictionary = first != std::string::npos && vtext[first] == '{';
    auto vocab = dictionary ? Vocabulary::fromDictionaryJson(vtext, request.vocabPath)
                            : Vocabulary::fromLines(vtext, request.vocabPath);
    if (!vocab)
        return vocab.error();

    TensorMap &tensors = request.tensors;
    auto shape = [&](const std::string &n) -> std::vector<std::int64_t> {
        auto it = tensors.find(n);
        return it == tensors.end() ? std::vector<std::int64_t>{} : it->second.shape;
    };
    const auto lut = shape("word_embed.0.lut.weight");
    const auto w1 = shape("layers.0.feed_forward.w_1.weight");
    if (lut.size() != 2 || w1.size() != 2)
        return makeError(ckpt, "not a tree-transformer state dict (no word_embed.0.lut.weight / "
                               "layers.0.feed_forward.w_1.weight)");
    TreeTransformerConfig cfg;
    cfg.vocabSize = static_cast<int>(lut[0]);
    cfg.dModel = static_cast<int>(lut[1]);
    cfg.dFF = static_cast<int>(w1[0]);
    cfg.layers = 0;
    while (tensors.count("layers." + std::to_string(cfg.layers) + ".feed_forward.w_1.weight"))
        ++cfg.layers;
    const auto pe = shape("word_embed.1.pe");
    if (pe.size() == 3)
        cfg.maxLen = static_cast<int>(pe[1]);
    cfg.heads = request.heads > 0 ? request.heads : 8; // not recoverable from the shapes; the official default
    if (!request.configJson.empty() && request.heads <= 0) {
        try {
            const auto j = json::parse(request.configJson);
            if (j.contains("heads"))
                cfg.heads = j.at("heads").get<int>();
        } catch (const std::exception &e) {
            return makeError(request.configPath, std::string("not valid JSON: ") + e.what());
        }
    }
    if (auto s = cfg.validate(); !s)
        return makeError(ckpt, s.error());
    if (auto s = validateTreeTransformerWeights(cfg, tensors, ckpt); !s)
        return s.error();
    if (vocab->size() != cfg.vocabSize)
        return makeError(request.vocabPath, std::to_string(vocab->size()) + " entries, but the checkpoint's embedding has " +
                                                std::to_string(cfg.vocabSize) + " rows");
    const json config = {{"family", "tree-transformer"},
                         {"task", "masked-lm"},
                         {"name", importedModelName(request)},
                         {"model", json::parse(cfg.toJson())},
                         {"tokenizer", {{"lowercase", true}, {"digits", "N"}, {"cls", "[CLS]"}, {"unknown", "[UNK]"}}},
                         {"induction", json::parse(InductionConfig::defaultsFor(cfg.layers).toJson())},
                         {"training", importedTrainingRecord(request)}};
    return importedModelFile(request, config.dump(), vocab->tokens());
}

namespace {

Result<TreeTransformerConfig> configOf(const ModelFile &file)
{
    try {
        const auto j = json::parse(file.configJson);
        if (!j.contains("model"))
            return makeError(file.sourcePath, "treelens.config has no \"model\"");
        return TreeTransformerConfig::fromJson(j.at("model").dump());
    } catch (const std::exception &e) {
        return makeError(file.sourcePath, std::string("treelens.config: ") + e.what());
    }
}

/// The official-code parity fixture's layout (tests' ../shared/fixtures/tree-transformer-official):
/// summary.json (config, sentences with their word-level link probabilities and brackets, the
/// parser's cases), dictionary.json, state_dict.pt; no config.json.
bool isOfficialFixtureFolder(const std::string &dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path d(dir);
    return fs::is_regular_file(d / "summary.json", ec) && fs::is_regular_file(d / "dictionary.json", ec) &&
           fs::is_regular_file(d / "state_dict.pt", ec) && !fs::exists(d / "config.json", ec);
}

double maxAbsDiff(const json &expected, const std::vector<float> &computed, std::size_t offset, bool *shapeOk)
{
    double worst = 0.0;
    *shapeOk = expected.size() + offset == computed.size();
    for (std::size_t k = 0; *shapeOk && k < expected.size(); ++k) {
        const double d = std::abs(static_cast<double>(computed[k + offset]) - expected[k].get<double>());
        worst = std::isfinite(d) ? std::max(worst, d) : INFINITY;
    }
    return worst;
}

/// `verify-fixture` on the official-code fixture: the weights imported as import-checkpoint
/// imports them, the summary's sentences analysed (word-level link probabilities of every layer
/// within 1e-5, induced brackets exactly) and the parser's cases induced from their links.
std::optional<Result<FixtureReport>> verifyOfficialFixture(const std::string &dir, std::string *computedJson)
{
    if (!isOfficialFixtureFolder(dir))
        return std::nullopt;
    namespace fs = std::filesystem;
    const std::string summaryPath = (fs::path(dir) / "summary.json").string();
    auto text = readFileLimited(summaryPath, inputLimits().maxSideFileBytes);
    if (!text)
        return Result<FixtureReport>(text.error());
    try {
        const json s = json::parse(*text);
        ImportRequest request;
        request.checkpointPath = (fs::path(dir) / "state_dict.pt").string();
        auto tensors = readTorchCheckpoint(request.checkpointPath, &request.note);
        if (!tensors)
            return Result<FixtureReport>(tensors.error());
        request.tensors = std::move(*tensors);
        request.vocabPath = (fs::path(dir) / "dictionary.json").string();
        auto vocab = readFileLimited(request.vocabPath, inputLimits().maxSideFileBytes);
        if (!vocab)
            return Result<FixtureReport>(vocab.error());
        request.vocabText = std::move(*vocab);
        request.heads = s.at("config").at("h").get<int>();
        auto file = importTreeTransformerCheckpoint(std::move(request));
        if (!file)
            return Result<FixtureReport>(file.error());
        auto encoder = createTreeTransformer(*file, DeviceConfig{"cpu", 0, 32});
        if (!encoder)
            return Result<FixtureReport>(encoder.error());
        std::vector<EncoderInput> batch;
        for (const auto &sentence : s.at("sentences"))
            batch.push_back(EncoderInput{sentence.at("words").get<std::vector<std::string>>(), {}, {}, {}, {}, {}});
        auto analyses = (*encoder)->analyze(batch);
        if (!analyses)
            return Result<FixtureReport>(analyses.error());
        FixtureReport report;
        report.tolerance = s.value("tolerance_abs", 1e-5);
        json computed = {{"family", "tree-transformer"}, {"tolerance_abs", report.tolerance}, {"sentences", json::array()}};
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const json &want = s.at("sentences")[i];
            const Analysis &a = (*analyses)[i];
            const std::string name = "sentences[" + std::to_string(i) + "]";
            json mine = {{"link_probs_word_level", json::array()}, {"brackets", json::array()}};
            FixtureCheck links{name + ".link_probs_word_level", {}, false, true, 0.0, {}};
            const json &wantLinks = want.at("link_probs_word_level");
            links.shape = {static_cast<std::int64_t>(wantLinks.size()), wantLinks.empty() ? 0 : static_cast<std::int64_t>(wantLinks[0].size())};
            if (a.linkProbs.size() != wantLinks.size())
                links.problem = "layers " + std::to_string(a.linkProbs.size()) + " expected " + std::to_string(wantLinks.size());
            for (std::size_t l = 0; links.problem.empty() && l < wantLinks.size(); ++l) {
                bool shapeOk = true; // the word-level links leave out the [CLS] link (gap 0)
                links.maxAbsDiff = std::max(links.maxAbsDiff, maxAbsDiff(wantLinks[l], a.linkProbs[l], 1, &shapeOk));
                if (!shapeOk)
                    links.problem = "layer " + std::to_string(l + 1) + ": another number of links";
                mine["link_probs_word_level"].push_back(std::vector<float>(a.linkProbs[l].begin() + (a.linkProbs[l].empty() ? 0 : 1),
                                                                           a.linkProbs[l].end()));
            }
            links.ok = links.problem.empty() && links.maxAbsDiff <= report.tolerance;
            std::vector<std::pair<int, int>> wantBrackets;
            for (const auto &b : want.at("brackets"))
                wantBrackets.emplace_back(b[0].get<int>(), b[1].get<int>());
            std::sort(wantBrackets.begin(), wantBrackets.end());
            std::vector<std::pair<int, int>> got = a.inducedBrackets;
            std::sort(got.begin(), got.end());
            for (const auto &[b, e] : got)
                mine["brackets"].push_back({b, e});
            FixtureCheck brackets{name + ".brackets", {static_cast<std::int64_t>(wantBrackets.size()), 2}, true, got == wantBrackets,
                                  got == wantBrackets ? 0.0 : 1.0, {}};
            report.checks.push_back(std::move(links));
            report.checks.push_back(std::move(brackets));
            computed["sentences"].push_back(std::move(mine));
        }
        // The parser alone: each case's brackets induced from its word-level links.
        const json &cases = s.at("parser_cases");
        int wrong = 0;
        for (const auto &c : cases) {
            std::vector<std::pair<int, int>> want;
            for (const auto &b : c.at("brackets"))
                want.emplace_back(b[0].get<int>(), b[1].get<int>());
            std::sort(want.begin(), want.end());
            auto got = induceBrackets(c.at("word_links").get<std::vector<std::vector<float>>>());
            std::sort(got.begin(), got.end());
            wrong += got == want ? 0 : 1;
        }
        report.checks.push_back(FixtureCheck{"parser_cases.brackets", {static_cast<std::int64_t>(cases.size())}, true, wrong == 0,
                                             static_cast<double>(wrong), {}});
        std::sort(report.checks.begin(), report.checks.end(), [](const FixtureCheck &x, const FixtureCheck &y) { return x.name < y.name; });
        if (computedJson)
            *computedJson = computed.dump();
        return Result<FixtureReport>(std::move(report));
    } catch (const std::exception &e) {
        return Result<FixtureReport>(makeError(summaryPath, std::string("not the official fixture's summary: ") + e.what()));
    }
}

} // namespace

EncoderFamily treeTransformerFamily()
{
    EncoderFamily f;
    f.name = "tree-transformer";
    f.create = createTreeTransformer;
    f.importCheckpoint = importTreeTransformerCheckpoint;
    f.randomWeightsLike = randomWeightsWith(configOf, randomTreeTransformerWeights);
    f.summary = summaryWith(configOf, [](const TreeTransformerConfig &c) {
        return std::to_string(c.layers) + " layers, d_model " + std::to_string(c.dModel) + ", d_ff " + std::to_string(c.dFF) +
               ", " + std::to_string(c.heads) + " heads, vocabulary " + std::to_string(c.vocabSize);
    });
    f.verifyFolderFixture = verifyOfficialFixture;
    return f;
}

} // namespace treelens
