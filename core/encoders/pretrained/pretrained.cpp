// The pretrained-transformer family (see pretrained.h): the BERT / RoBERTa network,
// the encoder over word units, the registry entry and the reference fixture.
#include "core/encoders/pretrained/pretrained.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/inputlimits.h"
#include "core/base/strings.h"
#include "core/encoders/common/attribution.h"
#include "core/encoders/common/batchedencoder.h"
#include "core/encoders/common/familykit.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/pretrained/hfconfig.h"
#include "core/encoders/pretrained/hffixture.h"
#include "core/encoders/pretrained/hfnet.h"
#include "core/encoders/pretrained/hftokenizer.h"
#include "core/encoders/pretrained/wordpieces.h"
#include "core/runtime/device.h"

namespace treelens {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char *const kFamily = "pretrained-transformer";

/// One input's pieces: the encoding and its word units.
struct Pieces {
    TokenEncoding encoding;
    PieceUnits units;
    std::vector<std::string> words[2];
};

Pieces piecesOf(const HfTokenizer &tok, const EncoderInput &in, bool pair)
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
    const std::vector<std::string> *words[2] = {&p.words[0], p.words[1].empty() ? nullptr : &p.words[1]};
    const std::vector<std::pair<int, int>> *sp[2] = {&spans[0], p.words[1].empty() ? nullptr : &spans[1]};
    p.units = groupPieces(p.encoding, words, sp);
    return p;
}

/// Where the second text's units start: the first text's run from the start through the
/// special token after its last word (all units for one text).
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

/// R [U, N]: a unit's row averages its pieces; S [N, U]: a piece's row sums into its unit.
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

    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        std::vector<Pieces> pieces;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (info().pairInput && batch[i].secondWords.empty())
                return makeError("sentence " + std::to_string(i + 1), singleSentenceRefusal(info()));
            pieces.push_back(piecesOf(m_tok, batch[i], info().pairInput));
            const auto n = static_cast<int>(pieces.back().encoding.ids.size());
            if (n > m_net.maxPieces())
                return makeError("sentence " + std::to_string(i + 1),
                                 std::to_string(n) + " word pieces, the model takes at most " + std::to_string(m_net.maxPieces()));
        }
        // Batches of similar length: the inputs in order of their piece counts.
        std::vector<std::size_t> order(batch.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return pieces[a].encoding.ids.size() < pieces[b].encoding.ids.size();
        });
        std::vector<Analysis> out(batch.size());
        auto s = forEachBatchOrdered(order, control, [&](std::size_t start, std::size_t end) -> Status {
            std::vector<std::size_t> which(order.begin() + static_cast<std::ptrdiff_t>(start), order.begin() + static_cast<std::ptrdiff_t>(end));
            runBatch(batch, pieces, which, options, out);
            return {};
        });
        if (!s)
            return s.error();
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

    /// For word-level probing: per layer, the first special token's state ([CLS], <s>) and
    /// one row per word (the mean of its pieces; 0 for a word without pieces), as the
    /// probes read every family's states. The analysis' own layerStates keep every unit.
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
            std::vector<int> rows = {0};
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

    /// Integrated Gradients / gradient x input over the pieces' embeddings, for a folder with
    /// a classification head: log p(target) (default: the predicted label), or for a
    /// cross-encoder its pair score (p of label 1, or the sigmoid of a single output).
    /// A word's attribution is the sum of its pieces'; [CLS]/[SEP] are the specials of the
    /// sentence they close.
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        if (options.method == ExplainOptions::Method::Rollout)
            return Error{"attention rollout is computed from the analysis, not by the family"};
        if (!info().outputs.prediction)
            return Encoder::explain(batch, options, control);
        const torch::Tensor &weight = m_net.wordEmbeddings();
        torch::Tensor baseline;
        if (options.baseline.empty() || options.baseline == "zero")
            baseline = torch::zeros({weight.size(1)}, weight.options());
        else {
            const auto id = options.baseline == "pad" ? std::optional<std::int64_t>(m_net.config().padTokenId) : m_tok.tokenId(options.baseline);
            if (!id || *id < 0 || *id >= weight.size(0))
                return Error{"the baseline token '" + options.baseline + "' is not in the model's vocabulary (or use zero, pad)"};
            baseline = weight[*id].detach().clone();
        }
        const auto &labels = info().labels;
        const bool pair = info().pairInput;
        std::vector<Attribution> out;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const EncoderInput &in = batch[i];
            if (pair && in.secondWords.empty())
                return makeError("sentence " + std::to_string(i + 1), singleSentenceRefusal(info()));
            const Pieces p = piecesOf(m_tok, in, pair);
            const auto n = static_cast<std::int64_t>(p.encoding.ids.size());
            if (n > m_net.maxPieces())
                return makeError("sentence " + std::to_string(i + 1),
                                 std::to_string(n) + " word pieces, the model takes at most " + std::to_string(m_net.maxPieces()));
            std::vector<std::int64_t> ids(p.encoding.ids.begin(), p.encoding.ids.end()), types(static_cast<std::size_t>(n), 0);
            for (std::size_t k = 0; k < types.size() && k < p.encoding.typeIds.size(); ++k)
                types[k] = p.encoding.typeIds[k];
            const auto dev = m_net.device();
            const auto idT = torch::tensor(ids, torch::kLong).view({1, n}).to(dev), typeT = torch::tensor(types, torch::kLong).view({1, n}).to(dev);
            const auto maskT = torch::ones({1, n}, torch::TensorOptions().dtype(torch::kBool).device(dev));
            auto logitsOf = [&](std::int64_t copies, bool grad) {
                return m_net.run(idT.expand({copies, n}), typeT.expand({copies, n}), maskT.expand({copies, n}), false, grad).logits;
            };
            auto targetOrError = targetIndex(labels, options.target);
            if (!targetOrError)
                return targetOrError.error();
            std::int64_t target = *targetOrError;
            const bool single = logitsOf(1, false).size(1) == 1;
            const bool score = target < 0 && (pair || single);
            if (target < 0 && !score)
                target = logitsOf(1, false).argmax(-1).item<std::int64_t>();
            Attribution a;
            a.target = score ? "score" : labels[static_cast<std::size_t>(target)];
            a.quantity = score ? (single ? "pair score (sigmoid)" : "pair score p(" + labels[labels.size() > 1 ? 1 : 0] + ")")
                               : "log p(" + labels[static_cast<std::size_t>(target)] + ")";
            auto per = integrateGradients(
                [&](std::int64_t copies) {
                    const auto logits = logitsOf(copies, true);
                    if (score)
                        return single ? torch::sigmoid(logits.select(1, 0)) : torch::softmax(logits, -1).select(1, logits.size(1) > 1 ? 1 : 0);
                    return torch::log_softmax(logits, -1).select(1, target);
                },
                {baseline}, options, a, control);
            if (!per)
                return per.error();
            const std::vector<double> &piece = per->front();
            // The units of each side, as runBatch splits them: side 0 through the special
            // token after its last word.
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
            out.push_back(std::move(a));
        }
        return out;
    }

private:
    void runBatch(const std::vector<EncoderInput> &batch, const std::vector<Pieces> &pieces, const std::vector<std::size_t> &which,
                  const AnalyzeOptions &options, std::vector<Analysis> &out) const
    {
        const auto B = static_cast<int64_t>(which.size());
        int64_t N = 1;
        for (std::size_t i : which)
            N = std::max<int64_t>(N, static_cast<int64_t>(pieces[i].encoding.ids.size()));
        // The batch padded to its longest input, as plain arrays first.
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
        const HfForward f = m_net.run(tensorOf(ids), tensorOf(types), tensorOf(real).to(torch::kBool), options.attention);
        for (int64_t b = 0; b < B; ++b) {
            const std::size_t i = which[static_cast<std::size_t>(b)];
            const Pieces &p = pieces[i];
            const auto n = static_cast<int64_t>(p.encoding.ids.size());
            const auto [mean, sum] = poolingOf(p.units, n);
            // Word-level attention of every layer: [L][H, U, U] (Clark et al.: mean over the
            // attending word's pieces, sum over the attended word's).
            std::vector<torch::Tensor> pieceAttention, unitAttention; // [H, n, n] and [H, U, U] per layer
            if (options.attention)
                for (const auto &layer : f.attention) {
                    pieceAttention.push_back(layer[b].slice(1, 0, n).slice(2, 0, n).to(torch::kCPU));
                    unitAttention.push_back(torch::matmul(torch::matmul(mean, pieceAttention.back()), sum));
                }
            std::vector<torch::Tensor> unitStates; // [U, D] per layer (embeddings first)
            for (const auto &h : f.hidden)
                unitStates.push_back(torch::matmul(mean, h[b].slice(0, 0, n).to(torch::kCPU)));
            const auto first = f.hidden.back()[b][0].to(torch::kCPU).contiguous();
            // The units of each side: the first sentence's from the start through the special
            // token after its words; the second sentence's the rest.
            const auto U = static_cast<int>(p.units.names.size());
            const int split = sideSplit(p);
            Analysis a = sideAnalysis(p, 0, 0, split, pieceAttention, unitAttention, unitStates, options);
            a.embedding.assign(first.data_ptr<float>(), first.data_ptr<float>() + m_net.config().hidden);
            if (!p.words[1].empty()) {
                a.second.push_back(sideAnalysis(p, 1, split, U, pieceAttention, unitAttention, unitStates, options));
                // The attention from the first sentence's words to the second's, per layer and head
                // (layer * heads + head), as the bridge between the trees draws it.
                const auto rows = torch::tensor(std::vector<int64_t>(p.units.unitOfWord[0].begin(), p.units.unitOfWord[0].end()),
                                                torch::kLong);
                const auto cols = torch::tensor(std::vector<int64_t>(p.units.unitOfWord[1].begin(), p.units.unitOfWord[1].end()),
                                                torch::kLong);
                for (const auto &layer : unitAttention) {
                    const auto block = layer.index_select(1, rows).index_select(2, cols).contiguous();
                    for (int64_t h = 0; h < block.size(0); ++h)
                        a.crossAttention.push_back(matrixOf(block[h]));
                }
            }
            if (f.logits.defined()) {
                const auto logits = f.logits[b].to(torch::kCPU);
                std::vector<float> probs;
                if (logits.numel() == 1) { // one output: a relevance score, as a probability
                    probs = {torch::sigmoid(logits).item<float>()};
                } else {
                    const auto sm = torch::softmax(logits, 0).contiguous();
                    probs.assign(sm.data_ptr<float>(), sm.data_ptr<float>() + sm.numel());
                }
                a.prediction = predictionOf(probs, info().labels, PredictionScore::Positive);
            }
            out[i] = std::move(a);
        }
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
        a.words = p.words[side];
        a.layers = m_net.config().layers;
        a.heads = m_net.config().heads;
        for (int u = from; u < to; ++u)
            a.tokens.push_back(p.units.names[static_cast<std::size_t>(u)]);
        for (int u : p.units.unitOfWord[side])
            a.wordToken.push_back(u - from);
        std::vector<int> unknown = p.units.pieceless[side];
        if (m_unk)
            for (std::size_t w = 0; w < a.wordToken.size(); ++w)
                for (int piece : p.units.pieces[static_cast<std::size_t>(p.units.unitOfWord[side][w])])
                    if (p.encoding.ids[static_cast<std::size_t>(piece)] == *m_unk) {
                        unknown.push_back(static_cast<int>(w));
                        break;
                    }
        std::sort(unknown.begin(), unknown.end());
        a.unknownWords = unknown;
        // The side's pieces in order, each with its unit, and the attention among them.
        std::map<int64_t, int> unitOfPiece;
        for (int u = from; u < to; ++u)
            for (int piece : p.units.pieces[static_cast<std::size_t>(u)])
                unitOfPiece[piece] = u - from;
        std::vector<int64_t> pieceRows;
        for (const auto &[piece, unit] : unitOfPiece) {
            pieceRows.push_back(piece);
            a.pieces.push_back(p.encoding.tokens[static_cast<std::size_t>(piece)]);
            a.pieceToken.push_back(unit);
        }
        const auto rows = torch::tensor(pieceRows, torch::kLong);
        for (const auto &layer : pieceAttention) {
            const auto block = layer.index_select(1, rows).index_select(2, rows).contiguous();
            std::vector<Matrix> heads;
            for (int64_t h = 0; h < block.size(0); ++h)
                heads.push_back(matrixOf(block[h]));
            a.pieceAttention.push_back(std::move(heads));
        }
        for (const auto &layer : unitAttention) {
            const auto block = layer.slice(1, from, to).slice(2, from, to).contiguous();
            std::vector<Matrix> heads;
            for (int64_t h = 0; h < block.size(0); ++h)
                heads.push_back(matrixOf(block[h]));
            a.attention.push_back(std::move(heads));
        }
        const torch::Tensor &last = unitStates.back();
        if (!p.units.unitOfWord[side].empty()) {
            const std::vector<int64_t> rows(p.units.unitOfWord[side].begin(), p.units.unitOfWord[side].end());
            const auto m = last.index_select(0, torch::tensor(rows)).mean(0).contiguous();
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

Result<std::unique_ptr<Encoder>> createPretrained(const ModelFile &file, const DeviceConfig &device)
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
    EncoderInfo info = commonEncoderInfo(file, kFamily, "encoder", dev->str(), device,
                                         {config->layers, config->heads, config->hidden, config->intermediate, config->vocabSize,
                                          net->maxPieces()});
    info.input = InputKind::Words;
    info.architecture = config->arch->displayName + " (" + config->modelType + ")";
    info.hasClsToken = config->arch->firstTokenPooled;
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
    return std::unique_ptr<Encoder>(new PretrainedEncoder(std::move(*net), std::move(*tok), std::move(info), device));
}

/// 3-d / 4-d tensors as nested JSON lists (shortest decimals that round-trip the f32).
json nested(const torch::Tensor &t)
{
    const auto c = t.to(torch::kCPU).contiguous();
    if (c.dim() == 1) {
        json a = json::array();
        const float *d = c.data_ptr<float>();
        for (int64_t i = 0; i < c.size(0); ++i)
            a.push_back(d[i]);
        return a;
    }
    json a = json::array();
    for (int64_t i = 0; i < c.size(0); ++i)
        a.push_back(nested(c[i]));
    return a;
}

/// verify-fixture on a folder of the reference layout: each sentence of expected.json
/// through the tokenizer and the network (one at a time, unpadded), in its layout.
std::optional<Result<FixtureReport>> verifyHfFixture(const std::string &dir, std::string *computedJson)
{
    if (!isHfFixtureFolder(dir))
        return std::nullopt;
    const std::string expectedPath = (fs::path(dir) / "expected.json").string();
    auto expected = readFileLimited(expectedPath, inputLimits().maxSideFileBytes * 8);
    if (!expected)
        return Result<FixtureReport>(expected.error());
    const json e = json::parse(*expected, nullptr, false);
    if (!e.is_object() || !e.contains("sentences") || !e["sentences"].is_array())
        return Result<FixtureReport>(makeError(expectedPath, "no \"sentences\" array"));
    auto file = readHfModelFolder(dir);
    if (!file)
        return Result<FixtureReport>(file.error());
    auto config = hfConfigOf(*file);
    if (!config)
        return Result<FixtureReport>(config.error());
    auto tok = HfTokenizer::fromFolder(dir);
    if (!tok)
        return Result<FixtureReport>(tok.error());
    auto net = HfNet::fromModelFile(*file, *config, torch::Device(torch::kCPU));
    if (!net)
        return Result<FixtureReport>(net.error());
    json sentences = json::array();
    for (const auto &s : e["sentences"]) {
        if (!s.is_object() || !s.contains("text") || !s["text"].is_string())
            return Result<FixtureReport>(makeError(expectedPath, "a sentence without \"text\""));
        const std::string text = s["text"].get<std::string>();
        const TokenEncoding enc = s.contains("text_pair") && s["text_pair"].is_string()
                                      ? tok->encodePair(text, s["text_pair"].get<std::string>())
                                      : tok->encode(text);
        json out = {{"text", text}, {"input_ids", enc.ids}, {"tokens", enc.tokens}};
        if (s.contains("text_pair"))
            out["text_pair"] = s["text_pair"];
        json offsets = json::array();
        for (const auto &[a, b] : enc.offsets)
            offsets.push_back({a, b});
        out["offsets"] = offsets;
        if (s.contains("token_type_ids"))
            out["token_type_ids"] = enc.typeIds;
        const auto n = static_cast<int64_t>(enc.ids.size());
        if (n > net->maxPieces())
            return Result<FixtureReport>(makeError(expectedPath, "\"" + text + "\": " + std::to_string(n) +
                                                                      " pieces, the model takes at most " + std::to_string(net->maxPieces())));
        auto ids = torch::tensor(enc.ids, torch::kLong).view({1, n});
        std::vector<int64_t> types(enc.typeIds.begin(), enc.typeIds.end());
        types.resize(static_cast<std::size_t>(n), 0);
        const HfForward f = net->run(ids, torch::tensor(types, torch::kLong).view({1, n}), torch::ones({1, n}, torch::kBool), true);
        json attentions = json::array();
        for (const auto &a : f.attention)
            attentions.push_back(nested(a[0]));
        out["attentions"] = attentions;
        json hidden = json::array();
        for (const auto &h : f.hidden)
            hidden.push_back(nested(h[0]));
        out["hidden_states"] = hidden;
        if (f.pooled.defined())
            out["pooler_output"] = nested(f.pooled[0]);
        if (f.logits.defined())
            out["logits"] = nested(f.logits[0]);
        sentences.push_back(std::move(out));
    }
    json computed = {{"family", config->modelType}, {"tolerance_abs", e.value("tolerance_abs", 1e-5)}, {"sentences", sentences}};
    *computedJson = computed.dump();
    return compareHfFixture(*computedJson, *expected, expectedPath);
}

} // namespace

EncoderFamily pretrainedTransformerFamily()
{
    EncoderFamily f;
    f.name = kFamily;
    f.create = createPretrained;
    f.claimsFolder = isHfModelFolder;
    f.readFolder = [](const std::string &dir) -> std::optional<Result<ModelFile>> {
        if (!isHfModelFolder(dir))
            return std::nullopt;
        return readHfModelFolder(dir);
    };
    f.summary = [](const ModelFile &file) -> std::string {
        auto c = hfConfigOf(file);
        if (!c)
            return c.message();
        return c->modelType + ": " + std::to_string(c->layers) + " layers, " + std::to_string(c->heads) + " heads, hidden " +
               std::to_string(c->hidden) + ", vocabulary " + std::to_string(c->vocabSize);
    };
    f.verifyFolderFixture = verifyHfFixture;
    return f;
}

} // namespace treelens
