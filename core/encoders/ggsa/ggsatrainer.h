#pragma once
/// \file ggsatrainer.h
/// Training GGSA and iGGSA for answer selection (families "ggsa" and "iggsa";
/// they differ only in their defaults: iggsa has the interaction and the
/// attention composition). Torch-free header.
///
/// Recipe: data {"train": [pair corpora], "dev": [pair corpora] (never test),
/// "embeddings": a TreeLens model file whose word embeddings initialise the
/// table (the Tree Transformer's MLM-trained one), optional};
/// model = GgsaConfig keys (vocab_size is filled in from the vocabulary);
/// options {"loss": "pairwise" | "pointwise" | "both", "margin" (0.1),
/// "vocab": {"min_count"}, "freeze_embeddings", "embedding_vocab": include the
/// embedding model's words (so words never seen in training keep their
/// pre-trained vectors)}.
/// Pairwise: every (question, correct, wrong) triple of the training corpus,
/// hinge on cosine, max(0, margin - cos(q, a+) + cos(q, a-)) (paper l. 162).
/// Pointwise: every pair, cross-entropy of the MLP's softmax (l. 168).
/// Dev metric: MAP under the clean protocol with the model's ranking score.

#include "core/training/trainerfamily.h"

namespace treelens {

training::TrainerFamily ggsaTrainer();
training::TrainerFamily iggsaTrainer();

} // namespace treelens
