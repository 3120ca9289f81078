// The pretrained-Transformer family's encoder (see hfencoder.h).
#include "core/encoders/pretrained/hfencoder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

#include <torch/torch.h>

#include "core/encoders/common/attribution.h"
#include "core/encoders/common/batchedencoder.h"
#include "core/encoders/common/familykit.h"
#include "core/encoders/common/noablation.h"
#include "core/encoders/common/precisionrule.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/pretrained/hfconfig.h"
#include "core/encoders/pretrained/hfnet.h"
#include "core/encoders/pretrained/hfpieces.h"
#include "core/encoders/pretrained/hftokenizer.h"
#include "core/runtime/cpufeatures.h"
#include "core/runtime/device.h"

namespace treelens {

namespace {

const char *const kFamily = "pretrained-transformer";

/// The layers of a tensor list as per-head matrices: [H, a, b] per layer into [layer][head].
std::vector<std::vector<Matrix>> headMatrices(const std::vector<torch::Tensor> &layers)
{
    std::vector<std::vector<Matrix>> out;
    for (const auto &layer : layers) {
        const auto block = layer.contiguous();
        std::vector<Matrix> heads;
        for (int64_t h = 0; h < block.size(0); ++h)
            heads.push_back(matrixOf(block[h]));
        out.push_back(std::move(heads));
    }
    return out;
}

/// "the weights' dtype": one name, or "mixed: F32 and BF16".
std::string storedDtypeOf(const ModelFile &file)
{
    std::set<std::string> names;
    for (const auto &[name, t] : file.tensors)
        names.insert(dtypeName(t.dtype));
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? "" : " and ") + n;
    return names.size() > 1 ? "mixed: " + out : out;
}

struct PrecisionChoice {
    std::string precision;
    std::string note;
};

/// Sets `net` to the requested arithmetic (HfNet::setPrecision). int8 is not a path of this
/// family (said, fp32 runs). "auto" times fp32 against bf16 where bf16 is native (a GPU, or a
/// CPU with AVX512_BF16/AMX; elsewhere oneDNN emulates it, tens of times slower) on 40 pieces
/// plus the first (warm-up, then three interleaved rounds, the fastest of each) and keeps bf16
/// only when it is at least 10 % faster and every attention probability stays within the bound
/// of fp32's (pickPrecision, precisionrule.h).
Result<PrecisionChoice> choosePrecision(HfNet &net, const std::string &requested)
{
    const bool cpu = net.device().is_cpu();
    const bool nativeBf16 = !cpu || cpuFeatures().nativeBf16();
    if (requested.empty() || requested == "fp32")
        return PrecisionChoice{"fp32", ""};
    if (requested == "int8")
        return PrecisionChoice{"fp32", "--precision int8 not applied: a pretrained Transformer runs fp32 or bf16 "
                                       "(int8 applies to the Tree Transformer)"};
    if (requested != "auto") {
        if (auto st = net.setPrecision(requested); !st)
            return st.error();
        return PrecisionChoice{requested, !nativeBf16 ? "bf16 is emulated on this CPU (no AVX512_BF16 or AMX-BF16): usually "
                                                        "slower than fp32 here"
                                                      : ""};
    }
    const std::vector<std::string> candidates = autoPrecisionCandidates(false, nativeBf16);
    std::vector<HfNet> nets;
    for (const auto &c : candidates) {
        nets.push_back(net);
        if (auto st = nets.back().setPrecision(c); !st)
            return st.error();
    }
    int64_t L = 41;
    if (net.maxPieces() > 0)
        L = std::min<int64_t>(L, net.maxPieces());
    const auto onDevice = torch::TensorOptions().dtype(torch::kInt64).device(net.device());
    torch::manual_seed(17);
    const auto ids = torch::randint(0, net.config().vocabSize, {1, L}, onDevice);
    const auto types = torch::zeros({1, L}, onDevice);
    const auto mask = torch::ones({1, L}, onDevice.dtype(torch::kBool));
    std::vector<torch::Tensor> attention(nets.size());
    auto once = [&](std::size_t i) {
        torch::InferenceMode guard;
        const auto t0 = std::chrono::steady_clock::now();
        const HfForward f = nets[i].run(ids, types, mask, true);
        attention[i] = torch::stack(f.attention).to(torch::kCPU);
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    std::vector<double> best(candidates.size(), 1e300);
    if (candidates.size() > 1) {
        for (std::size_t i = 0; i < nets.size(); ++i)
            once(i);
        for (int round = 0; round < 3; ++round)
            for (std::size_t i = 0; i < nets.size(); ++i)
                best[i] = std::min(best[i], once(i));
    } else {
        best[0] = once(0);
    }
    std::vector<PrecisionTiming> timings;
    for (std::size_t i = 0; i < nets.size(); ++i)
        timings.push_back({candidates[i], best[i], i == 0 ? 0.0 : (attention[i] - attention[0]).abs().max().item<double>()});
    PrecisionProbe probe;
    probe.unit = "piece";
    probe.compared = "attention";
    const PrecisionPick chosen = pickPrecision(timings, static_cast<int>(L - 1), nativeBf16, probe);
    net = std::move(nets[chosen.index]);
    const std::string &forced = cpuFeatures().overridden;
    return PrecisionChoice{candidates[chosen.index], chosen.note + (cpu && !forced.empty() ? " [" + forced + "]" : "")};
}

class PretrainedEncoder : public BatchedEncoder {
public:
    PretrainedEncoder(HfNet net, HfTokenizer tok, EncoderInfo info, const DeviceConfig &device)
        : BatchedEncoder(std::move(info), device), m_net(std::move(net)), m_tok(std::move(tok))
    {
        // The unknown piece, by the names BERT and RoBERTa give it.
        m_unk = m_tok.tokenId("[UNK]");
        if (!m_unk)
            m_unk = m_tok.tokenId("<unk>");
    }

    /// The mask piece by the names BERT and RoBERTa give it ([MASK], <mask>), if the tokenizer has one.
    static std::optional<std::int64_t> maskPieceOf(const HfTokenizer &tok)
    {
        auto id = tok.tokenId("[MASK]");
        return id ? id : tok.tokenId("<mask>");
    }

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        if (auto s = checkHeadAblation(info(), options.ablate); !s)
            return s.error();
        auto pieces = piecesOfBatch(batch, options.prependBos);
        if (!pieces)
            return pieces.error();
        // Batches of similar length: the inputs in order of their piece counts.
        std::vector<std::size_t> order(batch.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return (*pieces)[a].encoding.ids.size() < (*pieces)[b].encoding.ids.size();
        });
        std::vector<Analysis> out(batch.size());
        auto s = forEachBatchOrdered(order, control, [&](std::size_t start, std::size_t end) -> Status {
            std::vector<std::size_t> which(order.begin() + static_cast<std::ptrdiff_t>(start), order.begin() + static_cast<std::ptrdiff_t>(end));
            runBatch(*pieces, which, options, out);
            return {};
        });
        if (!s)
            return s.error();
        if (options.pseudoLogLikelihood && info().sentenceScore == SentenceScore::PseudoLogLikelihood)
            if (auto st = pseudoLogLikelihoods(*pieces, options, out, control); !st)
                return st.error();
        return out;
    }

    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        o.layerStates = options.layer >= 0;
        return embedByAnalysis(batch, control, o, [&](const Analysis &a) {
            if (options.layer < 0)
                return options.pooling == EmbedOptions::Pooling::Mean ? a.meanEmbedding : a.embedding;
            // The mean of the words' rows (not the special tokens').
            const int l = std::min<int>(options.layer, static_cast<int>(a.layerStates.size()) - 1);
            const Matrix &m = a.layerStates[static_cast<std::size_t>(l)];
            std::vector<float> mean(static_cast<std::size_t>(m.cols), 0.0f);
            for (int row : a.wordToken)
                for (int c = 0; c < m.cols; ++c)
                    mean[static_cast<std::size_t>(c)] += m.at(row, c) / static_cast<float>(a.wordToken.size());
            return mean;
        });
    }

    /// For word-level probing: per layer, the first special token's state ([CLS], <s>) when the
    /// model pools it, and one row per word (the mean of its pieces; 0 for a word without
    /// pieces), as the probes read every family's states. The analysis keeps every unit.
    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch, const RunControl *control) override
    {
        AnalyzeOptions o;
        o.attention = false;
        o.layerStates = true;
        auto analysed = analyze(batch, o, control);
        if (!analysed)
            return analysed.error();
        std::vector<std::vector<Matrix>> out;
        for (const Analysis &a : *analysed) {
            std::vector<int> rows;
            if (info().hasClsToken)
                rows.push_back(0);
            rows.insert(rows.end(), a.wordToken.begin(), a.wordToken.end());
            std::vector<Matrix> layers;
            for (const Matrix &m : a.layerStates) {
                Matrix words(static_cast<int>(rows.size()), m.cols);
                for (std::size_t r = 0; r < rows.size(); ++r)
                    std::copy_n(m.data.begin() + static_cast<std::ptrdiff_t>(rows[r]) * m.cols, m.cols,
                                words.data.begin() + static_cast<std::ptrdiff_t>(r) * m.cols);
                layers.push_back(std::move(words));
            }
            out.push_back(std::move(layers));
        }
        return out;
    }

    /// Integrated Gradients / gradient x input over the pieces' embeddings: a classification
    /// head's log p(target) (default: the predicted label) or a cross-encoder's pair score, or a
    /// language model's log p(target word | the words before it). A word's attribution is the
    /// sum of its pieces'; special tokens are the specials of the sentence they belong to.
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        if (options.method == ExplainOptions::Method::Rollout)
            return Error{"attention rollout is computed from the analysis, not by the family"};
        if (auto s = checkHeadAblation(info(), options.ablate); !s)
            return s.error();
        if (!info().outputs.prediction && !m_net.arch().languageModel)
            return Encoder::explain(batch, options, control);
        ExplainOptions chosen = options;
        // A language model's default baseline is its BOS token: with rotary positions nothing is added to
        // the word vectors, so the zero embedding is where the first norm jumps (f(0) is not the limit
        // of f near 0) and the attributions could not add up to f(input) - f(baseline).
        if (chosen.baseline.empty() && m_net.arch().languageModel && m_net.config().bosTokenId >= 0)
            chosen.baseline = m_tok.tokenText(m_net.config().bosTokenId);
        auto baseline = baselineOf(chosen);
        if (!baseline)
            return baseline.error();
        std::vector<Attribution> out;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            auto a = explainOne(batch[i], i, chosen, *baseline, control);
            if (!a)
                return a.error();
            out.push_back(std::move(*a));
        }
        return out;
    }

private:

    /// The BOS to put in front (--prepend-bos), or why there is none.
    Result<std::optional<std::int64_t>> bosFor(bool prepend) const
    {
        if (!prepend)
            return std::optional<std::int64_t>();
        if (!m_net.arch().languageModel)
            return Error{"--prepend-bos is for language models (this model is an encoder)", ErrorCode::Refused};
        if (m_net.config().bosTokenId < 0)
            return Error{"--prepend-bos: config.json names no bos_token_id for this model", ErrorCode::Refused};
        return std::optional<std::int64_t>(m_net.config().bosTokenId);
    }

    /// Pieces one input, refused when the model cannot take it (one line naming the input and the limit).
    Result<Pieces> piecesOfInput(const EncoderInput &in, std::size_t index, std::optional<std::int64_t> bos) const
    {
        const std::string where = "sentence " + std::to_string(index + 1);
        if (info().pairInput && in.secondWords.empty())
            return makeError(where, singleSentenceRefusal(info()), ErrorCode::Refused);
        Pieces p = piecesOf(m_tok, in, info().pairInput, bos);
        const auto n = static_cast<int>(p.encoding.ids.size());
        if (m_net.maxPieces() > 0 && n > m_net.maxPieces())
            return makeError(where, std::to_string(n) + " word pieces, the model takes at most " + std::to_string(m_net.maxPieces()) +
                                        (m_net.config().slidingWindow > 0 ? " (its sliding window)" : ""),
                             ErrorCode::Refused);
        return p;
    }

    Result<std::vector<Pieces>> piecesOfBatch(const std::vector<EncoderInput> &batch, bool prependBos) const
    {
        auto bos = bosFor(prependBos);
        if (!bos)
            return bos.error();
        std::vector<Pieces> pieces;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            auto p = piecesOfInput(batch[i], i, *bos);
            if (!p)
                return p.error();
            pieces.push_back(std::move(*p));
        }
        return pieces;
    }

    /// The baseline embedding of Integrated Gradients.
    Result<torch::Tensor> baselineOf(const ExplainOptions &options) const
    {
        const torch::Tensor &weight = m_net.wordEmbeddings();
        if (options.baseline.empty() || options.baseline == "zero")
            return torch::zeros({weight.size(1)}, weight.options());
        const auto id = options.baseline == "pad" ? std::optional<std::int64_t>(m_net.config().padTokenId) : m_tok.tokenId(options.baseline);
        if (!id || *id < 0 || *id >= weight.size(0))
            return Error{"the baseline token '" + options.baseline + "' is not in the model's vocabulary (or use zero, pad)"};
        return weight[*id].detach().clone();
    }

    /// What explainOne attributes, for one input: the quantity's name and f(pieces' forward).
    struct Target {
        std::string name, quantity;
        std::function<torch::Tensor(const HfForward &)> f;
    };

    Result<Target> classifierTarget(const std::function<HfForward(std::int64_t, bool)> &run, const ExplainOptions &options) const
    {
        const auto &labels = info().labels;
        auto targetOrError = targetIndex(labels, options.target);
        if (!targetOrError)
            return targetOrError.error();
        std::int64_t target = *targetOrError;
        const auto logits = run(1, false).logits;
        const bool single = logits.size(1) == 1;
        const bool score = target < 0 && (info().pairInput || single);
        if (target < 0 && !score)
            target = logits.argmax(-1).item<std::int64_t>();
        Target t;
        t.name = score ? "score" : labels[static_cast<std::size_t>(target)];
        t.quantity = score ? (single ? "pair score (sigmoid)" : "pair score p(" + labels[labels.size() > 1 ? 1 : 0] + ")")
                           : "log p(" + labels[static_cast<std::size_t>(target)] + ")";
        t.f = [score, single, target](const HfForward &f) {
            const auto &l = f.logits;
            if (score)
                return single ? torch::sigmoid(l.select(1, 0)) : torch::softmax(l, -1).select(1, l.size(1) > 1 ? 1 : 0);
            return torch::log_softmax(l, -1).select(1, target);
        };
        return t;
    }

    /// A language model's log p(word | the words before it): the sum over the word's pieces.
    Result<Target> wordTarget(const Pieces &p, const ExplainOptions &options) const
    {
        const auto &units = p.units;
        const int words = static_cast<int>(units.unitOfWord[0].size());
        const int w = options.targetWord < 0 ? words - 1 : options.targetWord;
        if (w < 0 || w >= words)
            return Error{"--target-word " + std::to_string(w + 1) + ": the sentence has " + std::to_string(words) + " words",
                         ErrorCode::Refused};
        std::vector<int64_t> positions = std::vector<int64_t>(units.pieces[static_cast<std::size_t>(units.unitOfWord[0][static_cast<std::size_t>(w)])].begin(),
                                                              units.pieces[static_cast<std::size_t>(units.unitOfWord[0][static_cast<std::size_t>(w)])].end());
        if (positions.empty() || positions.front() == 0)
            return Error{"--target-word " + std::to_string(w + 1) + " (\"" + p.words[0][static_cast<std::size_t>(w)] +
                             "\"): nothing before it predicts it (the sequence's first piece; --prepend-bos puts the model's BOS in front)",
                         ErrorCode::Refused};
        std::vector<int64_t> ids;
        for (int64_t k : positions)
            ids.push_back(p.encoding.ids[static_cast<std::size_t>(k)]);
        Target t;
        t.name = p.words[0][static_cast<std::size_t>(w)];
        t.quantity = "log p(word " + std::to_string(w + 1) + " \"" + t.name + "\" | the words before it)";
        t.f = [this, positions, ids](const HfForward &f) {
            // The predictions of the word's pieces come from the positions just before each.
            const torch::Tensor &last = f.hidden.back();
            const auto from = torch::tensor(positions, torch::kLong).to(last.device()) - 1;
            const auto states = last.index_select(1, from);
            const auto logits = torch::matmul(states, m_net.lmHeadWeight().t());
            const auto logp = torch::log_softmax(logits, -1);
            const auto target = torch::tensor(ids, torch::kLong).to(last.device()).view({1, -1, 1}).expand({logp.size(0), -1, 1});
            return logp.gather(2, target).squeeze(2).sum(1);
        };
        return t;
    }

    Result<Attribution> explainOne(const EncoderInput &in, std::size_t index, const ExplainOptions &options, const torch::Tensor &baseline,
                                   const RunControl *control) const
    {
        auto bos = bosFor(options.prependBos);
        if (!bos)
            return bos.error();
        auto pieces = piecesOfInput(in, index, *bos);
        if (!pieces)
            return pieces.error();
        const Pieces &p = *pieces;
        const auto n = static_cast<std::int64_t>(p.encoding.ids.size());
        std::vector<std::int64_t> ids(p.encoding.ids.begin(), p.encoding.ids.end()), types(static_cast<std::size_t>(n), 0);
        for (std::size_t k = 0; k < types.size() && k < p.encoding.typeIds.size(); ++k)
            types[k] = p.encoding.typeIds[k];
        const auto dev = m_net.device();
        const auto idT = torch::tensor(ids, torch::kLong).view({1, n}).to(dev), typeT = torch::tensor(types, torch::kLong).view({1, n}).to(dev);
        const auto maskT = torch::ones({1, n}, torch::TensorOptions().dtype(torch::kBool).device(dev));
        HfRunOptions ro;
        ro.attention = false;
        ro.ablate = options.ablate;
        auto run = [&](std::int64_t copies, bool grad) {
            HfRunOptions o = ro;
            o.grad = grad;
            return m_net.run(idT.expand({copies, n}), typeT.expand({copies, n}), maskT.expand({copies, n}), o);
        };
        auto target = m_net.arch().languageModel ? wordTarget(p, options) : classifierTarget(run, options);
        if (!target)
            return target.error();
        Attribution a;
        a.target = target->name;
        a.quantity = target->quantity;
        auto per = integrateGradients([&](std::int64_t copies) { return target->f(run(copies, true)); }, {baseline}, options, a, control);
        if (!per)
            return per.error();
        attributeSides(p, per->front(), a);
        return a;
    }

    /// The pieces' attributions into the sides' tokens and words (side 0 through the special
    /// token after its last word, as runBatch splits a pair).
    static void attributeSides(const Pieces &p, const std::vector<double> &piece, Attribution &a)
    {
        const auto U = static_cast<int>(p.units.names.size());
        const int split = sideSplit(p);
        for (int side = 0; side < (p.words[1].empty() ? 1 : 2); ++side) {
            SideAttribution sa;
            sa.words = p.words[side];
            const int from = side == 0 ? 0 : split, to = side == 0 ? split : U;
            for (int u = from; u < to; ++u)
                for (int k : p.units.pieces[static_cast<std::size_t>(u)]) {
                    sa.tokens.push_back(p.encoding.tokens[static_cast<std::size_t>(k)]);
                    sa.token.push_back(piece[static_cast<std::size_t>(k)]);
                    if (p.units.special[static_cast<std::size_t>(u)])
                        sa.specials += piece[static_cast<std::size_t>(k)];
                }
            for (int u : p.units.unitOfWord[side]) {
                double sum = 0.0;
                for (int k : p.units.pieces[static_cast<std::size_t>(u)])
                    sum += piece[static_cast<std::size_t>(k)];
                sa.word.push_back(sum);
            }
            a.sides.push_back(std::move(sa));
        }
    }

    /// The batch padded to its longest input, through the network.
    HfForward forward(const std::vector<Pieces> &pieces, const std::vector<std::size_t> &which, const AnalyzeOptions &options) const
    {
        const auto B = static_cast<int64_t>(which.size());
        int64_t N = 1;
        for (std::size_t i : which)
            N = std::max<int64_t>(N, static_cast<int64_t>(pieces[i].encoding.ids.size()));
        // As plain arrays first: one tensor op per element would cost a dispatch each.
        std::vector<int64_t> ids(static_cast<std::size_t>(B * N), m_net.config().padTokenId), types(ids.size(), 0), real(ids.size(), 0);
        for (int64_t b = 0; b < B; ++b) {
            const auto &e = pieces[which[static_cast<std::size_t>(b)]].encoding;
            for (std::size_t p = 0; p < e.ids.size(); ++p) {
                const auto k = static_cast<std::size_t>(b * N) + p;
                ids[k] = e.ids[p];
                types[k] = p < e.typeIds.size() ? e.typeIds[p] : 0;
                real[k] = 1;
            }
        }
        const auto dev = m_net.device();
        auto tensorOf = [&](const std::vector<int64_t> &v) { return torch::tensor(v, torch::kLong).view({B, N}).to(dev); };
        HfRunOptions ro;
        ro.attention = options.attention;
        ro.logprobs = m_net.arch().languageModel;
        ro.ablate = options.ablate;
        return m_net.run(tensorOf(ids), tensorOf(types), tensorOf(real).to(torch::kBool), ro);
    }

    /// The pseudo-log-likelihood of every input's first text (Salazar et al. 2020): each of its
    /// pieces replaced by the mask piece in turn, every other piece as it is, and predicted by the
    /// masked-LM head from the last layer, with the run's ablated heads; special pieces are never
    /// masked. Fills pieceSurprisal (NaN for the special pieces), surprisal (per word, the sum over
    /// its pieces) and logprob (the sum of the log-probabilities). A sentence's masked copies go
    /// through the model in batches of the device's batch size.
    Status pseudoLogLikelihoods(const std::vector<Pieces> &pieces, const AnalyzeOptions &options, std::vector<Analysis> &out,
                                const RunControl *control) const
    {
        const std::int64_t maskId = *maskPieceOf(m_tok);
        const auto dev = m_net.device();
        return forEachBatch(pieces.size(), control, [&](std::size_t begin, std::size_t end) -> Status {
            for (std::size_t i = begin; i < end; ++i) {
                const TokenEncoding &e = pieces[i].encoding;
                const auto n = static_cast<std::int64_t>(e.ids.size());
                std::vector<std::int64_t> masked; // the pieces of the first text
                for (std::int64_t p = 0; p < n; ++p)
                    if (static_cast<std::size_t>(p) < e.sequence.size() && e.sequence[static_cast<std::size_t>(p)] == 0)
                        masked.push_back(p);
                std::vector<double> logp(static_cast<std::size_t>(n), std::numeric_limits<double>::quiet_NaN());
                const auto K = static_cast<std::int64_t>(masked.size());
                const auto chunk = std::max<std::int64_t>(1, static_cast<std::int64_t>(m_batch));
                const auto ids = torch::tensor(e.ids, torch::kLong);
                std::vector<std::int64_t> typeIds(static_cast<std::size_t>(n), 0);
                for (std::size_t p = 0; p < typeIds.size() && p < e.typeIds.size(); ++p)
                    typeIds[p] = e.typeIds[p];
                const auto types = torch::tensor(typeIds, torch::kLong);
                for (std::int64_t from = 0; from < K; from += chunk) {
                    const std::int64_t k = std::min(chunk, K - from);
                    const auto at = torch::tensor(std::vector<std::int64_t>(masked.begin() + from, masked.begin() + from + k), torch::kLong);
                    auto batchIds = ids.unsqueeze(0).repeat({k, 1});
                    const auto rows = torch::arange(k, torch::kLong);
                    batchIds.index_put_({rows, at}, maskId);
                    HfRunOptions ro;
                    ro.attention = false;
                    ro.ablate = options.ablate;
                    const HfForward f = m_net.run(batchIds.to(dev), types.unsqueeze(0).repeat({k, 1}).to(dev),
                                                  torch::ones({k, n}, torch::kBool).to(dev), ro);
                    const auto last = f.hidden.back().index({rows.to(dev), at.to(dev)}); // [k, hidden]
                    const auto picked = torch::log_softmax(m_net.mlmLogits(last).to(torch::kDouble), -1)
                                            .gather(1, ids.index_select(0, at).unsqueeze(1).to(dev))
                                            .squeeze(1)
                                            .to(torch::kCPU)
                                            .contiguous();
                    for (std::int64_t j = 0; j < k; ++j)
                        logp[static_cast<std::size_t>(masked[static_cast<std::size_t>(from + j)])] = picked.data_ptr<double>()[j];
                }
                Analysis &a = out[i];
                double total = 0.0;
                a.pieceSurprisal.clear();
                for (double lp : logp) {
                    a.pieceSurprisal.push_back(-lp);
                    if (!std::isnan(lp))
                        total += lp;
                }
                // Per word: the sum over its pieces, each masked alone (NaN for a word without pieces).
                a.surprisal.clear();
                for (int u : pieces[i].units.unitOfWord[0]) {
                    const auto &own = pieces[i].units.pieces[static_cast<std::size_t>(u)];
                    double word = own.empty() ? std::numeric_limits<double>::quiet_NaN() : 0.0;
                    for (int k : own)
                        word -= logp[static_cast<std::size_t>(k)];
                    a.surprisal.push_back(word);
                }
                a.logprob = total;
                a.notes.push_back("sentence score: pseudo-log-likelihood (each of the " + std::to_string(K) +
                                  " pieces masked in turn)");
            }
            if (control)
                control->report(end, pieces.size(), "pseudo-log-likelihood");
            return {};
        }, "pseudo-log-likelihood");
    }

    void runBatch(const std::vector<Pieces> &pieces, const std::vector<std::size_t> &which, const AnalyzeOptions &options,
                  std::vector<Analysis> &out) const
    {
        const HfForward f = forward(pieces, which, options);
        for (std::size_t b = 0; b < which.size(); ++b) {
            const std::size_t i = which[b];
            out[i] = analysisOf(pieces[i], f, static_cast<int64_t>(b), options);
        }
    }

    /// Input b of the forward `f` as an analysis (and its second sentence's).
    Analysis analysisOf(const Pieces &p, const HfForward &f, int64_t b, const AnalyzeOptions &options) const
    {
        const auto n = static_cast<int64_t>(p.encoding.ids.size());
        const auto [mean, sum] = poolingOf(p.units, n);
        // Word-level attention of every layer: [L][H, U, U] (Clark et al.: mean over the
        // attending word's pieces, sum over the attended word's).
        std::vector<torch::Tensor> pieceAttention, unitAttention; // [H, n, n] and [H, U, U] per layer
        if (options.attention)
            for (const auto &layer : f.attention) {
                pieceAttention.push_back(layer[b].slice(1, 0, n).slice(2, 0, n).to(torch::kCPU, torch::kFloat32));
                unitAttention.push_back(torch::matmul(torch::matmul(mean, pieceAttention.back()), sum));
            }
        std::vector<torch::Tensor> unitStates; // [U, D] per layer (embeddings first)
        for (const auto &h : f.hidden)
            unitStates.push_back(torch::matmul(mean, h[b].slice(0, 0, n).to(torch::kCPU, torch::kFloat32)));
        // The sentence vector: the pooled first token of an encoder; the last piece of a causal
        // model (the only one that has read the whole sentence).
        const auto pooledRow = f.hidden.back()[b][m_net.arch().languageModel ? n - 1 : 0].to(torch::kCPU, torch::kFloat32).contiguous();
        const auto U = static_cast<int>(p.units.names.size());
        const int split = sideSplit(p);
        Analysis a = sideAnalysis(p, 0, 0, split, pieceAttention, unitAttention, unitStates, options);
        a.embedding.assign(pooledRow.data_ptr<float>(), pooledRow.data_ptr<float>() + m_net.config().hidden);
        if (m_net.arch().languageModel && static_cast<std::size_t>(b) < f.logprobs.size())
            addSurprisal(p, f.logprobs[static_cast<std::size_t>(b)], a);
        if (!p.words[1].empty()) {
            a.second.push_back(sideAnalysis(p, 1, split, U, pieceAttention, unitAttention, unitStates, options));
            addCrossAttention(p, unitAttention, a);
        }
        if (f.logits.defined())
            a.prediction = predictionOf(probabilitiesOf(f.logits[b].to(torch::kCPU)), info().labels, PredictionScore::Positive);
        return a;
    }

    static std::vector<float> probabilitiesOf(const torch::Tensor &logits)
    {
        if (logits.numel() == 1) // one output: a relevance score, as a probability
            return {torch::sigmoid(logits).item<float>()};
        const auto sm = torch::softmax(logits, 0).contiguous();
        return std::vector<float>(sm.data_ptr<float>(), sm.data_ptr<float>() + sm.numel());
    }

    /// A language model's surprisal per word and piece, and the sentence's log-probability.
    static void addSurprisal(const Pieces &p, const std::vector<double> &logprobs, Analysis &a)
    {
        a.surprisal = wordSurprisal(p, logprobs);
        a.pieceSurprisal.assign(1, std::numeric_limits<double>::quiet_NaN());
        double total = 0.0;
        for (double lp : logprobs) {
            a.pieceSurprisal.push_back(-lp);
            total += lp;
        }
        a.logprob = total;
    }

    /// The attention from the first sentence's words to the second's, per layer and head
    /// (layer * heads + head), as the bridge between the trees draws it.
    static void addCrossAttention(const Pieces &p, const std::vector<torch::Tensor> &unitAttention, Analysis &a)
    {
        const auto rows = torch::tensor(std::vector<int64_t>(p.units.unitOfWord[0].begin(), p.units.unitOfWord[0].end()), torch::kLong);
        const auto cols = torch::tensor(std::vector<int64_t>(p.units.unitOfWord[1].begin(), p.units.unitOfWord[1].end()), torch::kLong);
        for (const auto &layer : unitAttention) {
            const auto block = layer.index_select(1, rows).index_select(2, cols).contiguous();
            for (int64_t h = 0; h < block.size(0); ++h)
                a.crossAttention.push_back(matrixOf(block[h]));
        }
    }

    /// The words of text `side` the model sees as its unknown piece (or has no piece for).
    std::vector<int> unknownWords(const Pieces &p, int side) const
    {
        std::vector<int> unknown = p.units.pieceless[side];
        if (m_unk)
            for (std::size_t w = 0; w < p.units.unitOfWord[side].size(); ++w)
                for (int piece : p.units.pieces[static_cast<std::size_t>(p.units.unitOfWord[side][w])])
                    if (p.encoding.ids[static_cast<std::size_t>(piece)] == *m_unk) {
                        unknown.push_back(static_cast<int>(w));
                        break;
                    }
        std::sort(unknown.begin(), unknown.end());
        return unknown;
    }

    /// The analysis of text `side` over units [from, to) of the encoding: its words, its
    /// units, the word-level attention among them (within one sentence of a pair, rows sum
    /// to what stays in that sentence), the states, the mean word vector.
    Analysis sideAnalysis(const Pieces &p, int side, int from, int to, const std::vector<torch::Tensor> &pieceAttention,
                          const std::vector<torch::Tensor> &unitAttention, const std::vector<torch::Tensor> &unitStates,
                          const AnalyzeOptions &options) const
    {
        Analysis a;
        a.family = kFamily;
        a.architecture = "a pretrained " + m_net.arch().displayName;
        a.causalAttention = m_net.arch().mask == HfMask::Causal;
        a.words = p.words[side];
        a.layers = m_net.config().layers;
        a.heads = m_net.config().heads;
        for (const HeadAblation &h : options.ablate)
            a.ablated.push_back({h.layer, h.head});
        for (int u = from; u < to; ++u)
            a.tokens.push_back(p.units.names[static_cast<std::size_t>(u)]);
        for (int u : p.units.unitOfWord[side])
            a.wordToken.push_back(u - from);
        a.unknownWords = unknownWords(p, side);
        // The side's pieces in order, each with its unit, and the attention among them.
        std::map<int64_t, int> unitOfPiece;
        for (int u = from; u < to; ++u)
            for (int piece : p.units.pieces[static_cast<std::size_t>(u)])
                unitOfPiece[piece] = u - from;
        std::vector<int64_t> pieceRows;
        const std::vector<std::string> readable = m_tok.readablePieces(p.encoding);
        bool readableDiffers = false;
        for (const auto &[piece, unit] : unitOfPiece) {
            pieceRows.push_back(piece);
            a.pieces.push_back(p.encoding.tokens[static_cast<std::size_t>(piece)]);
            a.pieceText.push_back(static_cast<std::size_t>(piece) < readable.size() ? readable[static_cast<std::size_t>(piece)] : a.pieces.back());
            readableDiffers = readableDiffers || a.pieceText.back() != a.pieces.back();
            a.pieceToken.push_back(unit);
        }
        if (!readableDiffers) // they read as the vocabulary spells them (WordPiece's "##ly")
            a.pieceText.clear();
        const auto rows = torch::tensor(pieceRows, torch::kLong);
        std::vector<torch::Tensor> pieceBlocks, unitBlocks;
        for (const auto &layer : pieceAttention)
            pieceBlocks.push_back(layer.index_select(1, rows).index_select(2, rows));
        for (const auto &layer : unitAttention)
            unitBlocks.push_back(layer.slice(1, from, to).slice(2, from, to));
        a.pieceAttention = headMatrices(pieceBlocks);
        a.attention = headMatrices(unitBlocks);
        const torch::Tensor &last = unitStates.back();
        if (!p.units.unitOfWord[side].empty()) {
            const std::vector<int64_t> wordRows(p.units.unitOfWord[side].begin(), p.units.unitOfWord[side].end());
            const auto m = last.index_select(0, torch::tensor(wordRows)).mean(0).contiguous();
            a.meanEmbedding.assign(m.data_ptr<float>(), m.data_ptr<float>() + m.numel());
        }
        if (options.layerStates)
            for (const auto &h : unitStates)
                a.layerStates.push_back(matrixOf(h.slice(0, from, to)));
        return a;
    }

    HfNet m_net;
    HfTokenizer m_tok;
    std::optional<std::int64_t> m_unk;
};

} // namespace

Result<std::unique_ptr<Encoder>> createPretrainedEncoder(const ModelFile &file, const DeviceConfig &device)
{
    auto config = hfConfigOf(file);
    if (!config)
        return config.error();
    auto tok = HfTokenizer::fromFolder(file.sourcePath);
    if (!tok)
        return tok.error();
    if (tok->vocabSize() > config->vocabSize)
        return makeError(file.sourcePath, "the tokenizer has ids up to " + std::to_string(tok->vocabSize() - 1) +
                                              " but config.json's vocab_size is " + std::to_string(config->vocabSize));
    auto dev = resolveDevice(device);
    if (!dev)
        return dev.error();
    auto net = HfNet::fromModelFile(file, *config, *dev);
    if (!net)
        return net.error();
    const HfArchitecture &arch = *config->arch;
    EncoderInfo info = commonEncoderInfo(file, kFamily, arch.languageModel ? "causal-lm" : "encoder", dev->str(), device,
                                         {config->layers, config->heads, config->hidden, config->intermediate, config->vocabSize,
                                          net->maxPieces()});
    info.input = InputKind::Words;
    info.architecture = arch.displayName + " (" + config->modelType + ")";
    info.hasClsToken = arch.firstTokenPooled;
    info.storedDtype = storedDtypeOf(file);
    auto precision = choosePrecision(*net, device.precision);
    if (!precision)
        return precision.error();
    info.precision = precision->precision;
    info.precisionNote = precision->note;
    // A folder with a sequence-classification head classifies one sentence, or is a
    // cross-encoder that scores sentence pairs ([CLS] A [SEP] B [SEP], <s> A </s></s> B </s>)
    // when its config.json says so (HfConfig::pairInput).
    const bool headed = net->head() != HfClassifier::None;
    if (headed) {
        info.labels = config->labels.empty() ? std::vector<std::string>{"score"} : config->labels;
        info.pairInput = config->pairInput;
        info.task = config->pairInput ? "pair-classification" : "classification";
        info.outputs.crossAttention = config->pairInput;
    }
    info.outputs.attention = true;
    info.outputs.embedding = true;
    info.outputs.layerStates = true;
    info.outputs.prediction = headed;
    if (arch.languageModel) {
        info.sentenceScore = SentenceScore::NextToken;
    } else if (!net->hasMlmHead()) {
        info.sentenceScoreNote = "the folder has no masked-LM head (a " + arch.classes.front() + " folder has none; " +
                                 (config->modelType == "roberta" ? "RobertaForMaskedLM's lm_head.*" : "BertForMaskedLM's cls.predictions.*") +
                                 " is one)";
    } else if (!PretrainedEncoder::maskPieceOf(*tok)) {
        info.sentenceScoreNote = "the tokenizer has no mask piece ([MASK] or <mask>) to mask a piece with";
    } else if (headed && config->pairInput) {
        info.sentenceScoreNote = "a cross-encoder scores sentence pairs, not sentences";
    } else {
        info.sentenceScore = SentenceScore::PseudoLogLikelihood;
    }
    return std::unique_ptr<Encoder>(new PretrainedEncoder(std::move(*net), std::move(*tok), std::move(info), device));
}

} // namespace treelens
