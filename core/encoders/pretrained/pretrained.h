#pragma once
/// \file pretrained.h
/// The pretrained-transformer family: BERT and RoBERTa encoders opened from the
/// folders the Hugging Face `transformers` library writes (hfconfig.h reads the
/// configuration and the weights, hftokenizer.h the tokenizer), computed as
/// `BertModel` / `RobertaModel` compute them in eval mode. The word pieces are
/// aligned with the input words through the tokenizer's offsets (wordpieces.h);
/// the analysis is at the word level, with the special tokens as units of their
/// own. `--model DIR` opens such a folder wherever a model file is taken
/// (EncoderFamily::readFolder); `verify-fixture` runs a folder with an
/// `expected.json` of the reference layout (docs/pretrained-transformers.md).
/// Torch-free header.

#include "core/encoders/family.h"

namespace treelens {

/// The family's registry entry ("pretrained-transformer").
EncoderFamily pretrainedTransformerFamily();

} // namespace treelens
