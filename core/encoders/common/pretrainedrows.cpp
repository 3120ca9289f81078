// Word vectors from TreeLens's MLM-trained encoder (see pretrainedrows.h).
#include "core/encoders/common/pretrainedrows.h"

#include <cmath>
#include <unordered_map>

#include "core/encoders/common/vocabulary.h"

namespace treelens {

Result<CopiedRows> copyPretrainedWordRows(const ModelFile &source, const std::string &where,
                                          const std::vector<std::string> &vocab, int firstId, int dModel,
                                          std::vector<float> &table)
{
    const auto lut = source.tensors.find("word_embed.0.lut.weight");
    if (lut == source.tensors.end() || lut->second.shape.size() != 2 || lut->second.shape[1] != dModel)
        return makeError(where, "no word_embed.0.lut.weight of width " + std::to_string(dModel) +
                                    " (a Tree Transformer model of the same d_model)");
    std::unordered_map<std::string, int> index;
    for (std::size_t i = 0; i < source.vocab.size(); ++i)
        index[source.vocab[i]] = static_cast<int>(i);
    const auto rows = lut->second.toFloat();
    const auto D = static_cast<std::size_t>(dModel);
    const float scale = std::sqrt(static_cast<float>(dModel));
    CopiedRows out;
    out.copiedRow.assign(vocab.size(), false);
    double sum2 = 0.0;
    for (std::size_t id = static_cast<std::size_t>(std::max(0, firstId)); id < vocab.size(); ++id) {
        const auto it = index.find(Vocabulary::normalize(vocab[id]));
        if (it == index.end())
            continue;
        for (std::size_t d = 0; d < D; ++d) {
            const float x = rows[static_cast<std::size_t>(it->second) * D + d] * scale;
            table[id * D + d] = x;
            sum2 += static_cast<double>(x) * x;
        }
        out.copiedRow[id] = true;
        ++out.copied;
    }
    if (out.copied > 0)
        out.rms = std::sqrt(sum2 / (static_cast<double>(out.copied) * static_cast<double>(D)));
    return out;
}

Result<CopiedRows> initialiseWordRows(TensorMap &weights, const std::string &tensor, const ModelFile &source,
                                      const std::string &where, const std::vector<std::string> &vocab, int firstId,
                                      int dModel, const std::function<void(std::vector<float> &, const CopiedRows &)> &adjust)
{
    auto table = weights.at(tensor).toFloat();
    auto copied = copyPretrainedWordRows(source, where, vocab, firstId, dModel, table);
    if (!copied)
        return copied.error();
    if (adjust)
        adjust(table, *copied);
    weights[tensor] = TensorData::fromFloat(weights.at(tensor).shape, table);
    return copied;
}

Result<int> initialiseWordRowsFrom(TensorMap &weights, const std::string &tensor, const std::string &path,
                                   const std::vector<std::string> &vocab, int firstId, int dModel)
{
    if (path.empty())
        return 0;
    auto source = loadModelFile(path);
    if (!source)
        return source.error();
    auto copied = initialiseWordRows(weights, tensor, *source, path, vocab, firstId, dModel);
    if (!copied)
        return copied.error();
    return copied->copied;
}

} // namespace treelens
