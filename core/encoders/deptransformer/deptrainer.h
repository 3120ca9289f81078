#pragma once
/// \file deptrainer.h
/// Training the Dependency-Transformer as a sentence classifier, or its pair head
/// on sentence pairs (family "dependency-transformer"). Torch-free header.
///
/// Recipe data: either {"positive": FILE, "negative": FILE, "split_seed": N}
/// (one sentence per line, e.g. the sentence-polarity stand-in for SST-2: a
/// seeded 80/10/10 train/dev/test split of both files together), or TREC question
/// classification {"trec_train": FILE, "trec_test": FILE, "labels": "coarse" |
/// "fine", "dev_fraction": 0.1, "split_seed": N} (core/formats/labelledtext.h; dev
/// = a seeded fraction of the training file, test = the test file), or RTE pairs
/// for the pair head {"rte_train": [XML...], "rte_test": [XML...], "dev_fraction":
/// 0.1, "split_seed": N} (dev = a seeded fraction of the training pairs; the model
/// file's task is then "pair-classification", its pair_classes the RTE labels); "embeddings": a
/// TreeLens model file whose word table initialises the embeddings (scaled by
/// √d_model). Sentences are tokenised (TREC's are already) and parsed with the
/// shipped neural parser. The relation vocabulary is [pad],
/// [none], [self], the training trees' labels (and "dep") and every a:b with
/// 2 <= a + b <= max_rel_dist. Options {"dropout", "vocab": {"min_count"},
/// "freeze_embeddings", "max_words"}. Dev metric: accuracy; `finish` scores the
/// test split once and stores it in the model file.

#include "core/training/trainerfamily.h"

namespace treelens {

training::TrainerFamily depTransformerTrainer();

} // namespace treelens
