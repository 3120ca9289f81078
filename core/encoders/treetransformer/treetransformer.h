#pragma once
/// \file treetransformer.h
/// The Tree Transformer (Wang, Lee & Chen, EMNLP 2019; seed 002) as the
/// official code computes it — see docs/tree-transformer.md for the places
/// where the official code differs from the paper (constant divisor 256,
/// unbiased-std LayerNorm with epsilon on the std, the next layer's prior is
/// C, the diagonal of C, attention not renormalised). Torch-free header.
///
/// Parameter names are the official state_dict names:
///   word_embed.0.lut.weight [V,d]          word_embed.1.pe [1,maxLen,d] (optional: recomputed)
///   layers.{l}.self_attn.linears.{0..3}.{weight [d,d], bias [d]}   (q, k, v, out)
///   layers.{l}.feed_forward.w_1.{weight [dff,d], bias}  layers.{l}.feed_forward.w_2.{weight [d,dff], bias}
///   layers.{l}.group_attn.linear_key|linear_query.{weight [d,d], bias}
///   layers.{l}.group_attn.norm.{a_2,b_2}  layers.{l}.sublayer.{0,1}.norm.{a_2,b_2}
///   norm.{a_2,b_2}  proj.{weight [V,d], bias [V]} (optional for analysis-only files)

#include <memory>
#include <string>

#include "core/base/result.h"
#include "core/encoders/encoder.h"
#include "core/model/tensordata.h"

namespace treelens {

struct ModelFile;

struct TreeTransformerConfig {
    int layers = 10;          ///< N
    int dModel = 512;
    int heads = 8;
    int dFF = 2048;
    int vocabSize = 0;        ///< must equal the vocabulary's size
    int maxLen = 256;         ///< position table length (tokens, [CLS] included)
    double dropout = 0.1;     ///< training only
    double groupDivisor = 256.0; ///< the official constant divisor of the group-attention scores
    double layerNormEps = 1e-6;
    /// false: the constituent prior is switched off (C = 1 everywhere, link
    /// probabilities 1), which makes the network a plain Transformer encoder of the
    /// same size: the sequential baseline of the probing comparison. The
    /// group-attention weights stay in the file (unused, never trained).
    bool constituentPrior = true;

    Status validate() const;
    /// The "model" object of treelens.config.
    std::string toJson() const;
    static Result<TreeTransformerConfig> fromJson(const std::string &modelJson);
};

/// Checks every tensor's presence, dtype and shape against the config
/// (errors name the tensor), and that no unexpected tensor is present.
Status validateTreeTransformerWeights(const TreeTransformerConfig &config, const TensorMap &tensors,
                                      const std::string &where);

/// Builds the encoder from a loaded model file (family "tree-transformer").
Result<std::unique_ptr<Encoder>> createTreeTransformer(const ModelFile &file, const DeviceConfig &device);

/// Random weights in the official initialisation (Xavier-uniform matrices,
/// unit LayerNorm gains), for benchmarks and training from scratch.
TensorMap randomTreeTransformerWeights(const TreeTransformerConfig &config, unsigned seed);

} // namespace treelens
