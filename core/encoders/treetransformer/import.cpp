// import: official Tree Transformer state dicts → native model files, and the family entry (see import.h).
#include "core/encoders/treetransformer/import.h"

#include <nlohmann/json.hpp>

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
    return f;
}

} // namespace treelens
