#pragma once
/// \file neuralparser.h
/// The "neural" parser backend: TreeLens's own trained models — the biaffine
/// dependency parser and tagger (depparser.h; UD relations, UPOS and PTB XPOS)
/// and, when their models are present, the span-based constituency parser and
/// the morphological tagger (morphtagger.h; LEMMA and FEATS). Models
/// default to the ones shipped in resources/models (findShippedModel). parseAll
/// batches sentences by length, which is where its speed comes from.

#include <memory>

#include "core/parsing/parser.h"

namespace treelens {

/// File names of the shipped parser models.
inline constexpr const char *kShippedDependencyParser = "parser-dep-en-ewt.safetensors";
inline constexpr const char *kShippedConstituencyParser = "parser-const-en-ptb.safetensors";
inline constexpr const char *kShippedMorphTagger = "tagger-morph-en-ewt.safetensors";

ParserInfo neuralParserInfo();
/// Errors when the dependency model cannot be found or loaded (the message names the file).
Result<std::unique_ptr<Parser>> createNeuralParser(const ParserConfig &config);

} // namespace treelens
