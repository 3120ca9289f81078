#pragma once
/// \file pretrainedrows.h
/// Word vectors from TreeLens's own MLM-trained encoder for a new model's
/// embedding table: the trainers of the families without pre-trained vectors
/// (no GloVe on these machines) start from `tree-transformer-en-small`.
/// Torch-free.

#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/model/modelfile.h"

namespace treelens {

struct CopiedRows {
    int copied = 0;                ///< vocabulary entries that got a row
    double rms = 0.0;              ///< root mean square of the copied values
    std::vector<bool> copiedRow;   ///< per vocabulary id
};

/// Copies the rows of `source`'s `word_embed.0.lut.weight` (a Tree Transformer
/// model of width `dModel`), scaled by √dModel as that model saw them, into
/// `table` (vocab.size() × dModel, row-major) for the entries from `firstId` on
/// whose normalised form (Vocabulary::normalize) the source knows. `where`
/// names the source in errors.
Result<CopiedRows> copyPretrainedWordRows(const ModelFile &source, const std::string &where,
                                          const std::vector<std::string> &vocab, int firstId, int dModel,
                                          std::vector<float> &table);

/// copyPretrainedWordRows into the word table `tensor` of `weights` (vocab.size() ×
/// dModel): the table read, the rows copied, adjust(table, rows) when given (a
/// family's rescaling), the table written back. What was copied.
Result<CopiedRows> initialiseWordRows(TensorMap &weights, const std::string &tensor, const ModelFile &source,
                                      const std::string &where, const std::vector<std::string> &vocab, int firstId,
                                      int dModel,
                                      const std::function<void(std::vector<float> &table, const CopiedRows &rows)> &adjust = {});
/// initialiseWordRows from the model file at `path` ("" = no initialisation: 0 rows).
Result<int> initialiseWordRowsFrom(TensorMap &weights, const std::string &tensor, const std::string &path,
                                   const std::vector<std::string> &vocab, int firstId, int dModel);

} // namespace treelens
