#pragma once
/// \file hfencoder.h
/// The encoder of the pretrained-Transformer family (torch-free header): a Hugging Face folder
/// read by hfconfig.h, its tokenizer (hftokenizer.h) and network (hfnet.h), analysed at the
/// word level (wordpieces.h; Clark et al.'s pooling of the piece-level attention), with a
/// language model's surprisal per word and a classification head's prediction; attributions
/// by Integrated Gradients over the pieces' embeddings.

#include <memory>

#include "core/base/result.h"
#include "core/encoders/encoder.h"
#include "core/model/modelfile.h"
#include "core/runtime/deviceconfig.h"

namespace treelens {

/// The encoder of a folder read as a ModelFile (readHfModelFolder), on `device`.
Result<std::unique_ptr<Encoder>> createPretrainedEncoder(const ModelFile &file, const DeviceConfig &device);

} // namespace treelens
