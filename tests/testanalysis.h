#pragma once
// A hand-made analysis for view and export tests: known values per layer, head
// and cell, so a wrong layer, head or transposition shows.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/data/analysis.h"

namespace treelens::test {

// Distinct, known values per (layer, head, row, column) so a wrong layer, head
// or transposition shows.
inline float priorValue(int l, int r, int c) { return static_cast<float>((r * 7 + c * 3 + l * 11) % 100) / 100.0f; }
inline float attnValue(int l, int h, int r, int c) { return static_cast<float>((r * 13 + c * 5 + l * 17 + h * 29) % 97) / 97.0f; }
inline float rawValue(int l, int h, int r, int c) { return 1.0f - attnValue(l, h, r, c) * 0.5f; }

/// A Tree-Transformer-like analysis: [CLS] then one token per word.
inline std::shared_ptr<Analysis> makeAnalysis(const std::vector<std::string> &words, int layers, int heads)
{
    auto a = std::make_shared<Analysis>();
    a->family = "tree-transformer";
    a->words = words;
    a->tokens.push_back("[CLS]");
    for (std::size_t i = 0; i < words.size(); ++i) {
        a->tokens.push_back(words[i]);
        a->wordToken.push_back(static_cast<int>(i) + 1);
    }
    const int n = static_cast<int>(a->tokens.size());
    a->layers = layers;
    a->heads = heads;
    for (int l = 0; l < layers; ++l) {
        Matrix prior(n, n);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                prior.at(r, c) = priorValue(l, r, c);
        a->constituentPrior.push_back(prior);
        a->attention.emplace_back();
        a->attentionRaw.emplace_back();
        for (int h = 0; h < heads; ++h) {
            Matrix m(n, n), raw(n, n);
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    m.at(r, c) = attnValue(l, h, r, c);
                    raw.at(r, c) = rawValue(l, h, r, c);
                }
            a->attention.back().push_back(m);
            a->attentionRaw.back().push_back(raw);
        }
    }
    return a;
}

} // namespace treelens::test
