#pragma once
// A small deterministic Encoder for the probing stages' tests: no model file, no
// torch. Tokens are [CLS] (when asked for) then the words. Attention: in every
// layer head 0 puts all of a word's weight on the previous word (the first word
// on itself), head 1 on the next word (the last word on itself), the other
// heads spread it evenly; [CLS] attends to itself. Layer states: token t of an
// n-word sentence at layer l has state[k] = (l + 1) · (k == 0 ? n : k == 1 ? t :
// sin(t + k)). Link probabilities (when `links`): 0.5 for every gap.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/encoders/encoder.h"

namespace treelens::test {

class FakeEncoder : public Encoder {
public:
    FakeEncoder(int layers = 2, int heads = 3, int dModel = 6, bool cls = true, bool links = false)
    {
        m_info.family = "fake";
        m_info.name = "fake-encoder";
        m_info.layers = layers;
        m_info.heads = heads;
        m_info.dModel = dModel;
        m_info.hasClsToken = cls;
        m_info.outputs.attention = true;
        m_info.outputs.layerStates = true;
        m_info.outputs.linkProbs = links;
        m_info.device = "cpu";
    }
    const EncoderInfo &info() const override { return m_info; }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        if (control && control->isCancelled())
            return Error{"cancelled"};
        std::vector<Analysis> out;
        for (const auto &in : batch) {
            Analysis a = skeleton(in);
            const int n = static_cast<int>(in.words.size()), T = static_cast<int>(a.tokens.size()), c = offset();
            for (int l = 0; l < m_info.layers && options.attention; ++l) {
                std::vector<Matrix> heads;
                for (int h = 0; h < m_info.heads; ++h) {
                    Matrix m(T, T, 0.0f);
                    if (c)
                        m.at(0, 0) = 1.0f;
                    for (int w = 0; w < n; ++w) {
                        if (h == 0)
                            m.at(w + c, std::max(w - 1, 0) + c) = 1.0f;
                        else if (h == 1)
                            m.at(w + c, std::min(w + 1, n - 1) + c) = 1.0f;
                        else
                            for (int t = 0; t < T; ++t)
                                m.at(w + c, t) = 1.0f / static_cast<float>(T);
                    }
                    heads.push_back(m);
                }
                a.attention.push_back(heads);
            }
            if (m_info.outputs.linkProbs)
                a.linkProbs.assign(static_cast<std::size_t>(m_info.layers), std::vector<float>(static_cast<std::size_t>(T - 1), 0.5f));
            if (options.layerStates)
                a.layerStates = states(n);
            out.push_back(std::move(a));
        }
        return out;
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &, const EmbedOptions &,
                                                  const RunControl *) override
    {
        return Error{"the fake encoder has no embed()"};
    }

    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch,
                                                         const RunControl *control) override
    {
        if (control && control->isCancelled())
            return Error{"cancelled"};
        std::vector<std::vector<Matrix>> out;
        for (const auto &in : batch)
            out.push_back(states(static_cast<int>(in.words.size())));
        ++m_stateCalls;
        return out;
    }

    int stateCalls() const { return m_stateCalls; }

private:
    int offset() const { return m_info.hasClsToken ? 1 : 0; }

    Analysis skeleton(const EncoderInput &in) const
    {
        Analysis a;
        a.family = m_info.family;
        a.layers = m_info.layers;
        a.heads = m_info.heads;
        a.words = in.words;
        if (offset())
            a.tokens.push_back("[CLS]");
        for (std::size_t w = 0; w < in.words.size(); ++w) {
            a.wordToken.push_back(static_cast<int>(a.tokens.size()));
            a.tokens.push_back(in.words[w]);
        }
        return a;
    }

    std::vector<Matrix> states(int n) const
    {
        const int T = n + offset();
        std::vector<Matrix> layers;
        for (int l = 0; l <= m_info.layers; ++l) {
            Matrix m(T, m_info.dModel);
            for (int t = 0; t < T; ++t)
                for (int k = 0; k < m_info.dModel; ++k)
                    m.at(t, k) = static_cast<float>((l + 1) * (k == 0 ? n : k == 1 ? t : std::sin(t + k)));
            layers.push_back(m);
        }
        return layers;
    }

    EncoderInfo m_info;
    int m_stateCalls = 0;
};

} // namespace treelens::test
