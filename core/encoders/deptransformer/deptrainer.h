#pragma once
/// \file deptrainer.h
/// Training the Dependency-Transformer as a sentence classifier (family
/// "dependency-transformer"). Torch-free header.
///
/// Recipe data: either {"positive": FILE, "negative": FILE, "split_seed": N}
/// (one sentence per line, e.g. the sentence-polarity stand-in for SST-2: a
/// seeded 80/10/10 train/dev/test split of both files together) or "train"/"dev"
/// CoNLL-U files with a `# label = ...` comment per sentence; "embeddings": a
/// TreeLens model file whose word table initialises the embeddings (scaled by
/// √d_model). Sentences are tokenised and parsed with the shipped neural parser
/// (gold trees of CoNLL-U input are kept). The relation vocabulary is [pad],
/// [none], [self], the training trees' labels (and "dep") and every a:b with
/// 2 <= a + b <= max_rel_dist. Options {"dropout", "vocab": {"min_count"},
/// "freeze_embeddings", "max_words"}. Dev metric: accuracy; `finish` scores the
/// test split once and stores it in the model file.

#include "core/training/trainerfamily.h"

namespace treelens {

training::TrainerFamily depTransformerTrainer();

} // namespace treelens
