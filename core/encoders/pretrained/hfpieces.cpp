// Inputs as pieces for the pretrained-Transformer family (see hfpieces.h).
#include "core/encoders/pretrained/hfpieces.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

namespace treelens {

Pieces piecesOf(const HfTokenizer &tok, const EncoderInput &in, bool pair, std::optional<std::int64_t> bos)
{
    Pieces p;
    p.words[0] = in.words;
    std::vector<std::pair<int, int>> spans[2];
    const std::string a = joinWords(in.words, spans[0]);
    if (pair && !in.secondWords.empty()) {
        p.words[1] = in.secondWords;
        const std::string b = joinWords(in.secondWords, spans[1]);
        p.encoding = tok.encodePair(a, b);
    } else {
        p.encoding = tok.encode(a);
    }
    if (bos && (p.encoding.sequence.empty() || p.encoding.sequence.front() != -1)) {
        TokenEncoding &e = p.encoding;
        e.ids.insert(e.ids.begin(), *bos);
        e.tokens.insert(e.tokens.begin(), tok.tokenText(*bos));
        e.offsets.insert(e.offsets.begin(), {0, 0});
        e.typeIds.insert(e.typeIds.begin(), 0);
        e.sequence.insert(e.sequence.begin(), -1);
    }
    const std::vector<std::string> *words[2] = {&p.words[0], p.words[1].empty() ? nullptr : &p.words[1]};
    const std::vector<std::pair<int, int>> *sp[2] = {&spans[0], p.words[1].empty() ? nullptr : &spans[1]};
    p.units = groupPieces(p.encoding, words, sp);
    return p;
}

int sideSplit(const Pieces &p)
{
    const auto U = static_cast<int>(p.units.names.size());
    if (p.words[1].empty())
        return U;
    int lastWord = 0;
    for (int u : p.units.unitOfWord[0])
        lastWord = std::max(lastWord, u);
    int split = lastWord + 1;
    while (split < U && !p.units.special[static_cast<std::size_t>(split)])
        ++split;
    return std::min(U, split + 1);
}

std::pair<torch::Tensor, torch::Tensor> poolingOf(const PieceUnits &u, int64_t pieces)
{
    // Filled as plain arrays: one tensor op per element would cost a dispatch each.
    const auto U = static_cast<int64_t>(u.names.size());
    std::vector<float> mean(static_cast<std::size_t>(U * pieces), 0.0f), sum(static_cast<std::size_t>(pieces * U), 0.0f);
    for (int64_t i = 0; i < U; ++i) {
        const auto &ps = u.pieces[static_cast<std::size_t>(i)];
        for (int p : ps) {
            mean[static_cast<std::size_t>(i * pieces + p)] = 1.0f / static_cast<float>(ps.size());
            sum[static_cast<std::size_t>(p * U + i)] = 1.0f;
        }
    }
    return {torch::tensor(mean).view({U, pieces}), torch::tensor(sum).view({pieces, U})};
}

std::vector<double> wordSurprisal(const Pieces &p, const std::vector<double> &logprobs)
{
    const double none = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> out;
    for (int u : p.units.unitOfWord[0]) {
        const auto &pieces = p.units.pieces[static_cast<std::size_t>(u)];
        double s = pieces.empty() ? none : 0.0;
        for (int k : pieces) {
            if (k == 0 || static_cast<std::size_t>(k - 1) >= logprobs.size()) {
                s = none;
                break;
            }
            s -= logprobs[static_cast<std::size_t>(k - 1)];
        }
        out.push_back(s);
    }
    return out;
}

} // namespace treelens
