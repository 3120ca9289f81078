#pragma once
/// \file trainingdata.h
/// Whether a corpus was part of what made a model, read from the recipe the model
/// file carries (treelens.config "training.recipe.data"): a figure computed on a
/// model's own training data measures fit, not generalisation, and every place
/// that shows such a figure says so (the pair workbench, eval-pairs,
/// eval-induction).
///
/// Recipes name their data by role (`train`, `rte_train`, `trec_train`,
/// `ud_train`, `ptb_dir` + `ptb_first`/`ptb_last`, `pairs`, sentence-polarity's
/// `positive`/`negative` whose files hold every split; `dev`, `induction_dev`;
/// `test`, `rte_test`, `trec_test`), as paths, lists of paths or a numbered range
/// {dir, pattern, first, last}. The paths were the trainer's, relative to where it
/// ran: a corpus matches an entry when their last two path components agree
/// ("rte/rte3_dev.xml", "wikiqa/train": a copy of a corpus is the same data), or
/// when the entry, taken as it is or relative to the model's folder, is the same
/// file here.

#include <string>

namespace treelens {

enum class DataRole {
    Unseen,      ///< not named by the recipe (or the model has no recipe)
    Training,    ///< the model was trained on it (or on part of it)
    Development, ///< it chose the model's checkpoint or settings
    Test         ///< the model's held-out test data
};

struct DataUse {
    DataRole role = DataRole::Unseen;
    std::string entry; ///< the recipe's path that matched ("../shared/data/rte/rte3_dev.xml")
    std::string key;   ///< the recipe's key ("rte_train")
    /// For the user: "tree-lstm-attention-en-rte was trained on this file (recipe rte_train:
    /// .../rte3_dev.xml; its test accuracy: 0.524): the figures measure fit, not
    /// generalisation"; "" when Unseen or Test.
    std::string note;
};

/// How the corpus at `corpusPath` (a file or a WikiQA folder) was used in making
/// the model whose treelens.config is `configJson` and whose file is `modelPath`
/// (its directory is one base the recipe's relative paths are tried against).
DataUse corpusUseByModel(const std::string &configJson, const std::string &modelPath, const std::string &corpusPath);

const char *dataRoleName(DataRole role); ///< "unseen", "training", "development", "test"

} // namespace treelens
