#pragma once
/// \file mlmtrainer.h
/// Masked-LM pre-training of the Tree Transformer (family "tree-transformer"):
/// BERT masking (15% of the word tokens, of which 80% become [MASK], 10% a
/// random word, 10% stay), cross-entropy at the masked positions only, and the
/// held-out masked-LM loss on the dev sentences (fixed masking seed) as the
/// dev metric (lower is better). Its defaults: Adam β = 0.9/0.98, ε = 1e-9,
/// linear warm-up then inverse-square-root decay ("noam"), the last weights
/// kept. The loop, checkpoints and resume are core/training's. Torch-free header.
///
/// Recipe: data {"ud_train", "wordnet_dir", "ptb_dir", "ptb_first", "ptb_last",
/// "max_words"} (core/training/pretraincorpus.h) and "dev" (CoNLL-U);
/// model = TreeTransformerConfig (vocab_size is filled in from the vocabulary);
/// options {"mask_prob", "keep_projection", "validation_sentences",
/// "vocab": {"max_size", "min_count"}}.

#include "core/training/trainerfamily.h"

namespace treelens {

training::TrainerFamily maskedLmTrainer();

} // namespace treelens
