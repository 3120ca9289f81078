#pragma once
/// \file explain.h
/// Attributions (issue 34): which input tokens made a model's prediction. Plain
/// types, no torch. A family computes gradient attributions over its input word
/// embeddings (Encoder::explain; the torch helpers are core/encoders/common/attribution.h);
/// attention rollout and the aggregation to words and subtrees are plain C++
/// (core/eval/attribution.h).
///
/// The quantity explained: a classifier's log-probability of the target label
/// (default: the predicted one), a pair scorer's score (the number `score-pairs`
/// ranks by). Integrated Gradients (Sundararajan et al. 2017) integrates the gradient
/// along the straight line from the baseline embeddings to the input's, by the
/// midpoint rule over `steps` points (batched, `stepBatch` at a time); its attributions
/// sum to about f(input) − f(baseline) (the completeness gap says how far they are).
/// Gradient × input is the gradient at the input times (input − baseline) (with the
/// zero baseline: the classic gradient × input).

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/encoders/headablation.h"

namespace treelens {

struct ExplainOptions {
    enum class Method { IntegratedGradients, GradientInput, Rollout };
    Method method = Method::IntegratedGradients;
    int steps = 64;               ///< Integrated Gradients: interpolation points (midpoint rule)
    int stepBatch = 32;           ///< points per forward pass
    std::string target;           ///< a label of the model ("" = the predicted one; pair scorers: the score)
    /// A language model: the word whose log-probability given the words before it is explained
    /// (0-based; -1: the last word).
    int targetWord = -1;
    /// Heads switched off while the prediction is explained (0-based).
    std::vector<HeadAblation> ablate;
    /// A language model whose tokenizer adds no BOS: put the model's BOS in front (AnalyzeOptions).
    bool prependBos = false;
    /// The baseline embedding: "zero" (every input token's embedding 0), "pad" (the
    /// model's padding token's embedding), a token of the model's vocabulary, or "" for
    /// the family's choice (zero, except for the models that layer-normalise their word
    /// vectors, where the zero embedding is a jump of f: the unknown word).
    std::string baseline;
};

/// One sentence's attributions: per model token and per word.
struct SideAttribution {
    std::vector<std::string> tokens;   ///< the model's tokens ([root], [CLS], pieces ...)
    std::vector<double> token;         ///< per token
    std::vector<std::string> words;
    /// Per word: the sum over the word's tokens (word pieces summed); special tokens
    /// ([root], [CLS], [SEP]) belong to no word and stay in `token` only.
    std::vector<double> word;
    double specials = 0.0;             ///< the sum over the tokens that are no word's
    /// Rollout on a word-piece model: per word, the number of its pieces (empty otherwise).
    std::vector<int> pieces;
};

struct Attribution {
    std::string method;                ///< "ig", "grad-input", "rollout"
    std::string target;                ///< the label explained, or "score"
    std::string quantity;              ///< "log p(negative)", "pair score (p[relevant])", ...
    double fInput = std::numeric_limits<double>::quiet_NaN();
    double fBaseline = std::numeric_limits<double>::quiet_NaN();
    int steps = 0;                     ///< Integrated Gradients' points (0 otherwise)
    std::string baseline;              ///< what the baseline was
    std::vector<SideAttribution> sides; ///< one per sentence (two for a pair)
    /// Said when f jumps at the baseline (a model that normalises its word vectors: the
    /// gradients along the path cannot see the jump, so the attributions sum to about
    /// f(input) − f(just off the baseline)); empty otherwise.
    std::string warning;

    /// The sum of every token's attribution over all sides.
    double total() const
    {
        double s = 0.0;
        for (const auto &side : sides)
            for (double v : side.token)
                s += v;
        return s;
    }
    /// Integrated Gradients' completeness gap, total − (f(input) − f(baseline)); NaN without fBaseline.
    double completenessGap() const { return total() - (fInput - fBaseline); }
};

const char *methodName(ExplainOptions::Method method);

} // namespace treelens
