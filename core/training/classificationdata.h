#pragma once
/// \file classificationdata.h
/// The labelled data of the classification trainers (the Dependency-Transformer,
/// the recursive tree models): the sentence-polarity files split 80/10/10 by a
/// seed, TREC questions, RTE pairs, and their parsing by the shipped parser.
/// Torch-free.

#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/sentence.h"

namespace treelens::training {

struct LabelledExample {
    Sentence sentence;
    int label = 0;
    std::optional<Sentence> second; ///< pair training: the hypothesis (sentence = the text)
};

/// train / dev / test.
using LabelledSplit = std::vector<std::vector<LabelledExample>>;

/// The polarity-style data ({"positive": FILE, "negative": FILE, "split_seed": N}, JSON
/// text): two files of one sentence per line, split 80/10/10 by a seed. Classes: negative, positive.
Result<LabelledSplit> readPolaritySplit(const std::string &dataJson);
/// TREC question classification ({"trec_train", "trec_test", "labels": "coarse" | "fine",
/// "dev_fraction", "split_seed"}): dev = a seeded fraction of the training file. Fills the
/// classes (sorted) and notes (JSON object text).
Result<LabelledSplit> readTrecSplit(const std::string &dataJson, std::vector<std::string> &classes, std::string &notesJson);
/// RTE pairs ({"rte_train": [XML...], "rte_test": [XML...], "dev_fraction", "split_seed"}):
/// dev = a seeded fraction of the training pairs. Classes: the files' label set.
Result<LabelledSplit> readRteSplit(const std::string &dataJson, std::vector<std::string> &classes, std::string &notesJson);

/// Parses every sentence of the split with the shipped neural parser (pairs: both
/// sides); an example whose sentence (or hypothesis) got no dependency tree, or with
/// `needConstituency` no constituency tree, is left out and counted in `unparsed`.
Status parseSplit(LabelledSplit &split, bool pairs, int maxWords, bool needConstituency, long &unparsed);

} // namespace treelens::training
