#pragma once
/// \file rectrainer.h
/// Training the recursive tree models of seed 004 (family "recursive-tree-transformer"
/// in the model file): `train recursive-tree-transformer` (CTT, DTT, DTT + edges;
/// "model": {"model": "dtte", ...}) and `train tree-lstm-attention` (the attentive
/// Child-Sum or binary Tree-LSTM; "model": {"model": "treelstm.cs", "query": "cross"}).
/// Torch-free header.
///
/// Recipe data as the Dependency-Transformer's (core/training/classificationdata.h):
/// {"positive", "negative", "split_seed"} (one sentence per line: a seeded 80/10/10
/// split; task "classification" with a sigmoid hidden layer on the root vector) or
/// {"rte_train": [XML...], "rte_test": [XML...], "dev_fraction", "split_seed"} (task
/// "pair-classification" with Tai et al.'s head on both sides' root vectors; a
/// Tree-LSTM in cross mode takes each side's query from the other side's sequential
/// LSTM); "embeddings": a TreeLens model file whose word table initialises the word
/// vectors (tree-transformer-en-small: √d-scaled rows; the thesis's frozen GloVe
/// has no stand-in here). Sentences are parsed by the shipped neural parser
/// (dependency and constituency trees). The vocabulary: <pad>, <unk>, the training
/// words (lower-cased, `options.vocab.min_count`); the edge-label table: UD v2's 37
/// universal relations and every relation the parser gave in any split, sorted (a
/// subtype the table lacks falls back to its universal relation). Options {"freeze_embeddings"
/// (default true, as the thesis), "freeze_edge_embeddings" (default true, Eq. 9.1),
/// "max_words", "vocab": {"min_count"}, "evaluation_order": "level" (default) or "node" (one
/// node per call, as a tree-at-a-time implementation trains; for timing comparisons)}. Dev metric: accuracy; `finish` scores the
/// test split once and stores it in the model file.

#include "core/training/trainerfamily.h"

namespace treelens {

training::TrainerFamily recursiveTreeTransformerTrainer();
training::TrainerFamily treeLstmAttentionTrainer();

} // namespace treelens
