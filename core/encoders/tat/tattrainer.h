#pragma once
/// \file tattrainer.h
/// Training the Tree Aggregation Transformer (seed 000) in two stages, as the
/// paper builds on a pre-trained language model. Torch-free header.
///
/// Stage 1, family "tat-lm": masked-LM pre-training of the language-model
/// stand-in in the pair layout `<s> a </s></s> b </s>`. Units are pairs of
/// neighbouring sentences (1-2, 3-4, ...) of the raw-text corpora in their order
/// (core/training/pretraincorpus.h: UD EWT train, WordNet glosses and examples,
/// WSJ 0001–0159) and the (question, candidate) pairs of the
/// answer-selection training corpora. BERT masking (15% of the words; 80%
/// `<mask>`, 10% a random word, 10% kept), a tied decoder (dense, GELU, LayerNorm,
/// the token table, a bias), loss at the masked positions only; the dev metric
/// is the masked-LM loss on the dev pairs with a fixed masking seed.
/// Recipe data {"ud_train", "wordnet_dir", "ptb_dir", "ptb_first", "ptb_last",
/// "max_words", "pairs": [pair corpora], "dev": [pair corpora],
/// "embeddings": a Tree Transformer model file whose word table starts the token
/// table, optional}; model = TatConfig's "lm" and "tat" objects (vocab_size filled
/// in); options {"mask_prob", "vocab": {"max_size", "min_count"}, "dev_pairs"}.
/// The output is a TAT model file with the trained LM and a random aggregation
/// layer (config training.stage = "lm"): the start of stage 2.
///
/// Stage 2, family "tree-aggregation-transformer": the TAT on answer-selection
/// pairs (WikiQA train; dev for the choice of epoch). Both sides are parsed first
/// by the shipped neural constituency parser (tags from the dependency model).
/// Recipe data {"train": [pair corpora], "dev": [pair corpora], "lm": the stage-1
/// model file (its LM weights, LM sizes and vocabulary are taken)}; model = the
/// "tat" object plus "head" ("tree" = eq. 9, "residual", "sequential" = the LM's
/// <s> alone) and "dropout"; options {"loss": "pointwise" | "pairwise" | "both",
/// "margin", "freeze_lm"}. Pointwise: cross-entropy of the classifier over every
/// pair (the paper's). Pairwise: hinge on the logit margin over (question,
/// correct, wrong) triples. Dev metric: MAP under the clean protocol, ranking by
/// P(relevant).

#include "core/training/trainerfamily.h"

namespace treelens {

training::TrainerFamily tatLmTrainer();
training::TrainerFamily tatTrainer();

} // namespace treelens
