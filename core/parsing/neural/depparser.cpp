#include "core/parsing/neural/depparser.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/fileio.h"
#include "core/base/utf8.h"
#include "core/eval/depeval.h"
#include "core/formats/conllu.h"
#include "core/model/modelfile.h"
#include "core/parsing/neural/common.h"
#include "core/parsing/treedecoders.h"
#include "core/runtime/device.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;

// ---------------------------------------------------------------- config / recipe

Status DepParserConfig::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("dependency-parser config", m)); };
    if (auto s = validateEncoder("dependency-parser config"); !s)
        return s;
    if (arcDim < 8 || arcDim > 4096) return bad("arc_dim must be 8..4096");
    if (relDim < 8 || relDim > 1024) return bad("rel_dim must be 8..1024");
    if (tagDim < 0 || tagDim > 2048) return bad("tag_dim must be 0..2048");
    return {};
}

std::string DepParserConfig::toJson() const
{
    return encoderJson(json{{"arc_dim", arcDim}, {"rel_dim", relDim}, {"tag_dim", tagDim}}.dump());
}

Result<DepParserConfig> DepParserConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        DepParserConfig c;
        c.readEncoder(text);
        c.arcDim = j.value("arc_dim", c.arcDim);
        c.relDim = j.value("rel_dim", c.relDim);
        c.tagDim = j.value("tag_dim", c.tagDim);
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("dependency-parser config", e.what());
    }
}

namespace {

using namespace neural;

/// Words per inference batch: small enough that EWT test gives each worker
/// thread dozens of batches, large enough to keep the GEMMs efficient.
constexpr int kInferenceBatchWords = 1000;

// ---------------------------------------------------------------- vocabularies

struct Vocabs {
    Vocab words, chars, upos, xpos, rels;

    json toJson() const
    {
        return {{"words", words.items}, {"chars", chars.items}, {"upos", upos.items}, {"xpos", xpos.items}, {"rels", rels.items}};
    }
    static Result<Vocabs> fromJson(const json &j)
    {
        Vocabs v;
        try {
            v.words = Vocab::from(j.at("words").get<std::vector<std::string>>());
            v.chars = Vocab::from(j.at("chars").get<std::vector<std::string>>());
            v.upos = Vocab::from(j.at("upos").get<std::vector<std::string>>());
            v.xpos = Vocab::from(j.at("xpos").get<std::vector<std::string>>());
            v.rels = Vocab::from(j.at("rels").get<std::vector<std::string>>());
        } catch (const std::exception &e) {
            return makeError("dependency-parser vocabularies", e.what());
        }
        if (v.words.items.size() < 3 || v.chars.items.size() < 3 || v.upos.items.size() < 2 || v.rels.items.size() < 2)
            return makeError("dependency-parser vocabularies", "too small");
        return v;
    }
};

Vocabs buildVocabs(const std::vector<Sentence> &train, int minCount)
{
    Vocabs v;
    for (const char *s : {"<pad>", "<unk>", "<root>"}) {
        v.words.add(s);
        v.chars.add(s);
    }
    v.upos.add("<pad>");
    v.xpos.add("<pad>");
    v.rels.add("<pad>");
    addWordsAndChars(v.words, v.chars, train, minCount);
    for (const auto &s : train) {
        for (const auto &t : s.tokens) {
            v.upos.add(t.upos.empty() ? "_" : t.upos);
            v.xpos.add(t.xpos.empty() ? "_" : t.xpos);
        }
        if (s.dependency)
            for (const auto &r : s.dependency->deprels)
                v.rels.add(r);
    }
    return v;
}

// ---------------------------------------------------------------- network

struct NetImpl : torch::nn::Module {
    DepParserConfig cfg;
    torch::nn::Embedding wordEmb{nullptr}, charEmb{nullptr};
    torch::nn::Conv1d charConv{nullptr};
    torch::nn::LSTM lstm{nullptr};
    torch::nn::Linear arcDep{nullptr}, arcHead{nullptr}, relDep{nullptr}, relHead{nullptr};
    torch::nn::Linear uposOut{nullptr}, xposOut{nullptr};
    torch::Tensor arcW, arcB, relU;

    NetImpl(const DepParserConfig &c, int nWords, int nChars, int nUpos, int nXpos, int nRels) : cfg(c)
    {
        wordEmb = register_module("word_emb", torch::nn::Embedding(torch::nn::EmbeddingOptions(nWords, c.wordDim).padding_idx(kPad)));
        charEmb = register_module("char_emb", torch::nn::Embedding(torch::nn::EmbeddingOptions(nChars, c.charDim).padding_idx(kPad)));
        charConv = register_module("char_conv", torch::nn::Conv1d(torch::nn::Conv1dOptions(c.charDim, c.charFilters, c.charKernel)
                                                                      .padding(c.charKernel / 2)));
        lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(c.wordDim + c.charFilters, c.lstmHidden)
                                                           .num_layers(c.lstmLayers)
                                                           .bidirectional(true)
                                                           .batch_first(true)
                                                           .dropout(c.dropout)));
        const int h = 2 * c.lstmHidden;
        arcDep = register_module("arc_dep", torch::nn::Linear(h, c.arcDim));
        arcHead = register_module("arc_head", torch::nn::Linear(h, c.arcDim));
        relDep = register_module("rel_dep", torch::nn::Linear(h, c.relDim));
        relHead = register_module("rel_head", torch::nn::Linear(h, c.relDim));
        uposOut = register_module("upos_out", torch::nn::Linear(h, nUpos));
        xposOut = register_module("xpos_out", torch::nn::Linear(h, nXpos));
        // Biaffine weights start at zero, as in Dozat & Manning's code: the first
        // updates then come from the (well-scaled) MLPs, not from random bilinear noise.
        arcW = register_parameter("arc_w", torch::zeros({c.arcDim, c.arcDim}));
        arcB = register_parameter("arc_b", torch::zeros({c.arcDim}));
        relU = register_parameter("rel_u", torch::zeros({nRels, c.relDim + 1, c.relDim + 1}));
    }

    struct Out {
        torch::Tensor arc;      ///< [B, T, T] scores of (dependent, head)
        torch::Tensor relD, relH; ///< [B, T, relDim + 1] with a constant 1 appended
        torch::Tensor upos, xpos; ///< [B, T, tags]
    };

    Out forward(const torch::Tensor &words, const torch::Tensor &chars, const torch::Tensor &lengths, bool train)
    {
        const auto B = words.size(0), T = words.size(1);
        auto w = wordEmb(words);                                         // [B,T,wd]
        auto c = charEmb(chars.view({B * T, -1})).transpose(1, 2);       // [BT,cd,C]
        c = torch::tanh(std::get<0>(charConv(c).max(2))).view({B, T, -1}); // [B,T,f]
        auto x = torch::cat({w, c}, 2);
        x = torch::dropout(x, cfg.dropout, train);
        auto packed = torch::nn::utils::rnn::pack_padded_sequence(x, lengths, true, false);
        auto out = std::get<0>(lstm->forward_with_packed_input(packed));
        auto h = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(out, true, 0.0, T)); // [B,T,2H]
        h = torch::dropout(h, cfg.dropout, train);
        auto mlp = [&](torch::nn::Linear &l) { return torch::dropout(torch::leaky_relu(l(h), 0.1), cfg.dropout, train); };
        auto ad = mlp(arcDep), ah = mlp(arcHead), rd = mlp(relDep), rh = mlp(relHead);
        Out o;
        // s[b,i,j] = ad_i W ah_j + ah_j · b
        o.arc = torch::matmul(torch::matmul(ad, arcW), ah.transpose(1, 2)) + torch::matmul(ah, arcB).unsqueeze(1);
        auto ones = torch::ones({B, T, 1}, rd.options());
        o.relD = torch::cat({rd, ones}, 2);
        o.relH = torch::cat({rh, ones}, 2);
        o.upos = uposOut(h);
        o.xpos = xposOut(h);
        return o;
    }

    /// Relation scores [B, T, R] for the given head of every position.
    torch::Tensor relScores(const Out &o, const torch::Tensor &heads) const
    {
        const auto d = o.relH.size(2);
        auto hh = o.relH.gather(1, heads.unsqueeze(2).expand({-1, -1, d})); // [B,T,d]
        // s[b,t,r] = relD[b,t,:] U[r] hh[b,t,:]
        if (torch::GradMode::is_enabled()) {
            auto left = torch::einsum("btd,rde->btre", {o.relD, relU});
            return (left * hh.unsqueeze(2)).sum(3);
        }
        // Inference: the same sum in chunks of positions whose [n, R, d]
        // temporary stays in cache (the einsum's [B, T, R, d] was 13.5 MB per
        // 1,000 words, mostly page faults).
        const auto B = o.relD.size(0), T = o.relD.size(1), R = relU.size(0);
        auto uflat = relU.permute({1, 0, 2}).reshape({d, R * d}); // [d, R·e]
        auto rd = o.relD.reshape({B * T, d}), hf = hh.reshape({B * T, d, 1});
        auto s = torch::empty({B * T, R}, rd.options());
        constexpr std::int64_t kChunk = 256;
        for (std::int64_t c = 0; c < B * T; c += kChunk) {
            const auto n = std::min(kChunk, B * T - c);
            auto left = torch::matmul(rd.narrow(0, c, n), uflat).view({n, R, d});
            s.narrow(0, c, n).copy_(torch::bmm(left, hf.narrow(0, c, n)).squeeze(2));
        }
        return s.view({B, T, R});
    }
};
TORCH_MODULE(Net);

// ---------------------------------------------------------------- batches

struct Batch {
    std::vector<int> index;  ///< sentence indices
    torch::Tensor words, chars, lengths, heads, rels, upos, xpos, mask; ///< mask: real words (not ROOT, not padding)
};

Batch makeBatch(const std::vector<Sentence> &sentences, const std::vector<int> &index, const Vocabs &v,
                const DepParserConfig &cfg, bool withGold, std::mt19937_64 *wordDropoutRng)
{
    Batch b;
    b.index = index;
    const auto B = static_cast<std::int64_t>(index.size());
    std::int64_t T = 0, C = 1;
    for (int i : index) {
        T = std::max<std::int64_t>(T, static_cast<std::int64_t>(sentences[static_cast<std::size_t>(i)].tokens.size()) + 1);
        for (const auto &t : sentences[static_cast<std::size_t>(i)].tokens)
            C = std::max<std::int64_t>(C, static_cast<std::int64_t>(clippedChars(t.text, cfg.maxWordChars).size()));
    }
    std::vector<std::int64_t> words(static_cast<std::size_t>(B * T), kPad), chars(static_cast<std::size_t>(B * T * C), kPad),
        lengths(static_cast<std::size_t>(B)), heads(static_cast<std::size_t>(B * T), 0), rels(static_cast<std::size_t>(B * T), 0),
        upos(static_cast<std::size_t>(B * T), 0), xpos(static_cast<std::size_t>(B * T), 0);
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(B * T), 0);
    std::bernoulli_distribution drop(cfg.wordDropout);
    for (std::int64_t bi = 0; bi < B; ++bi) {
        const Sentence &s = sentences[static_cast<std::size_t>(index[static_cast<std::size_t>(bi)])];
        const auto n = static_cast<std::int64_t>(s.tokens.size());
        lengths[static_cast<std::size_t>(bi)] = n + 1;
        words[static_cast<std::size_t>(bi * T)] = kRoot;
        chars[static_cast<std::size_t>(bi * T * C)] = kRoot;
        for (std::int64_t t = 0; t < n; ++t) {
            const Token &tok = s.tokens[static_cast<std::size_t>(t)];
            const auto pos = static_cast<std::size_t>(bi * T + t + 1);
            const bool dropped = wordDropoutRng && drop(*wordDropoutRng);
            words[pos] = encodeWord(tok.text, v.words, v.chars, cfg.maxWordChars, dropped, &chars[pos * static_cast<std::size_t>(C)]);
            mask[pos] = 1;
            if (withGold) {
                heads[pos] = s.dependency->heads[static_cast<std::size_t>(t)];
                rels[pos] = v.rels.get(s.dependency->deprels[static_cast<std::size_t>(t)], 0);
                upos[pos] = v.upos.get(tok.upos.empty() ? "_" : tok.upos, 0);
                xpos[pos] = v.xpos.get(tok.xpos.empty() ? "_" : tok.xpos, 0);
            }
        }
    }
    auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    b.words = torch::from_blob(words.data(), {B, T}, i64).clone();
    b.chars = torch::from_blob(chars.data(), {B, T, C}, i64).clone();
    b.lengths = torch::from_blob(lengths.data(), {B}, i64).clone();
    b.heads = torch::from_blob(heads.data(), {B, T}, i64).clone();
    b.rels = torch::from_blob(rels.data(), {B, T}, i64).clone();
    b.upos = torch::from_blob(upos.data(), {B, T}, i64).clone();
    b.xpos = torch::from_blob(xpos.data(), {B, T}, i64).clone();
    b.mask = torch::from_blob(mask.data(), {B, T}, torch::TensorOptions().dtype(torch::kUInt8)).clone().to(torch::kBool);
    return b;
}

torch::Tensor lossOf(Net &net, const NetImpl::Out &o, const Batch &b)
{
    const auto m = b.mask;
    auto arc = o.arc.masked_fill(b.mask.logical_not().logical_and(b.words.ne(kRoot)).unsqueeze(1), -1e9); // padding heads
    auto arcLoss = torch::nn::functional::cross_entropy(arc.index({m}), b.heads.index({m}));
    auto rel = net->relScores(o, b.heads);
    auto relLoss = torch::nn::functional::cross_entropy(rel.index({m}), b.rels.index({m}));
    auto uposLoss = torch::nn::functional::cross_entropy(o.upos.index({m}), b.upos.index({m}));
    auto xposLoss = torch::nn::functional::cross_entropy(o.xpos.index({m}), b.xpos.index({m}));
    return arcLoss + relLoss + uposLoss + xposLoss;
}

/// Predicts trees and tags for `sentences` in place. decode: 0 greedy heads
/// (fast, for dev monitoring), 1 MST, 2 Eisner (projective).
/// workers 0: in this thread with the current LibTorch threads (training);
/// workers >= 1: runBatchesSingleThreaded, longest batches first.
Status predict(Net &net, const Vocabs &v, const DepParserConfig &cfg, std::vector<Sentence> &sentences, int decode,
               int batchWords, const RunControl *control, int workers = 0)
{
    torch::NoGradGuard ng;
    net->eval();
    const auto batches = lengthBatches(sentences, batchWords, nullptr);
    std::atomic<std::size_t> done{0};
    auto one = [&](std::size_t k) -> Status {
        const auto &idx = batches[batches.size() - 1 - k];
        Batch b = makeBatch(sentences, idx, v, cfg, false, nullptr);
        auto o = net->forward(b.words, b.chars, b.lengths, false);
        const auto T = b.words.size(1);
        // Padding positions can never be heads.
        auto arc = o.arc.masked_fill(b.mask.logical_not().logical_and(b.words.ne(kRoot)).unsqueeze(1), -1e9);
        auto logp = torch::log_softmax(arc, 2).contiguous();
        torch::Tensor heads;
        if (decode == 0) {
            heads = logp.argmax(2);
        } else {
            heads = torch::zeros({static_cast<std::int64_t>(idx.size()), T}, torch::kInt64);
            auto acc = logp.accessor<float, 3>();
            for (std::size_t bi = 0; bi < idx.size(); ++bi) {
                const int n = static_cast<int>(sentences[static_cast<std::size_t>(idx[bi])].tokens.size());
                std::vector<float> scores(static_cast<std::size_t>((n + 1) * (n + 1)));
                for (int d = 0; d <= n; ++d)
                    for (int h = 0; h <= n; ++h)
                        scores[static_cast<std::size_t>(d * (n + 1) + h)] = acc[static_cast<long>(bi)][d][h];
                const auto hs = decode == 2 ? decodeEisner(scores, n) : decodeMst(scores, n);
                for (int d = 1; d <= n; ++d)
                    heads[static_cast<long>(bi)][d] = hs[static_cast<std::size_t>(d - 1)];
            }
        }
        auto rels = net->relScores(o, heads).argmax(2);
        auto upos = o.upos.argmax(2), xpos = o.xpos.argmax(2);
        auto ha = heads.accessor<std::int64_t, 2>(), ra = rels.accessor<std::int64_t, 2>(),
             ua = upos.accessor<std::int64_t, 2>(), xa = xpos.accessor<std::int64_t, 2>();
        for (std::size_t bi = 0; bi < idx.size(); ++bi) {
            Sentence &s = sentences[static_cast<std::size_t>(idx[bi])];
            const int n = static_cast<int>(s.tokens.size());
            DependencyTree t;
            for (int d = 1; d <= n; ++d) {
                t.heads.push_back(static_cast<int>(ha[static_cast<long>(bi)][d]));
                const auto r = static_cast<std::size_t>(ra[static_cast<long>(bi)][d]);
                t.deprels.push_back(r > 0 && r < v.rels.items.size() ? v.rels.items[r] : "dep");
                auto &tok = s.tokens[static_cast<std::size_t>(d - 1)];
                const auto u = static_cast<std::size_t>(ua[static_cast<long>(bi)][d]);
                const auto x = static_cast<std::size_t>(xa[static_cast<long>(bi)][d]);
                tok.upos = u > 0 && u < v.upos.items.size() ? v.upos.items[u] : "X";
                tok.xpos = x > 0 && x < v.xpos.items.size() ? v.xpos.items[x] : "_";
            }
            s.dependency = std::move(t);
        }
        const std::size_t d = done += idx.size();
        if (control)
            control->report(d, sentences.size(), "parsing");
        return {};
    };
    return runBatches(batches.size(), workers, control, one);
}

Result<std::vector<Sentence>> readTreebank(const std::string &path)
{
    std::string text;
    if (auto r = readFile(path); r)
        text = std::move(*r);
    else
        return r.error();
    auto s = readConllu(text, path);
    if (!s)
        return s.error();
    std::vector<Sentence> out;
    for (auto &x : *s)
        if (x.dependency && !x.tokens.empty() && x.dependency->validate().ok())
            out.push_back(std::move(x));
    if (out.empty())
        return makeError(path, "no sentence with a dependency tree");
    return out;
}

std::vector<Sentence> stripped(const std::vector<Sentence> &gold)
{
    std::vector<Sentence> out = gold;
    for (auto &s : out) {
        s.dependency.reset();
        for (auto &t : s.tokens) {
            t.upos.clear();
            t.xpos.clear();
        }
    }
    return out;
}

struct Scores {
    double uas = 0, las = 0, uasNoPunct = 0, lasNoPunct = 0, upos = 0, xpos = 0;
};

Scores score(const std::vector<Sentence> &gold, const std::vector<Sentence> &pred)
{
    Scores s;
    auto e = evaluateDependencies(gold, pred);
    if (e) {
        s.uas = e->all.uas();
        s.las = e->all.las();
        s.uasNoPunct = e->noPunct.uas();
        s.lasNoPunct = e->noPunct.las();
    }
    long n = 0, u = 0, x = 0;
    for (std::size_t i = 0; i < gold.size(); ++i)
        for (std::size_t t = 0; t < gold[i].tokens.size(); ++t) {
            ++n;
            u += gold[i].tokens[t].upos == pred[i].tokens[t].upos;
            x += gold[i].tokens[t].xpos == pred[i].tokens[t].xpos;
        }
    s.upos = n ? 100.0 * static_cast<double>(u) / static_cast<double>(n) : 0.0;
    s.xpos = n ? 100.0 * static_cast<double>(x) / static_cast<double>(n) : 0.0;
    return s;
}

json scoresJson(const Scores &s)
{
    auto r = [](double v) { return std::round(v * 100.0) / 100.0; };
    return {{"uas", r(s.uas)}, {"las", r(s.las)}, {"uas_no_punct", r(s.uasNoPunct)}, {"las_no_punct", r(s.lasNoPunct)},
            {"upos", r(s.upos)}, {"xpos", r(s.xpos)}};
}

// ---------------------------------------------------------------- inference model

class LoadedParser : public DependencyParserModel {
public:
    LoadedParser(DepParserConfig cfg, Vocabs v, Net net, std::string name, std::string config, int workers)
        : m_cfg(cfg), m_vocabs(std::move(v)), m_net(std::move(net)), m_name(std::move(name)), m_config(std::move(config)),
          m_workers(workers)
    {
    }
    Status parse(std::vector<Sentence> &sentences, bool projective, const RunControl *control) override
    {
        return predict(m_net, m_vocabs, m_cfg, sentences, projective ? 2 : 1, kInferenceBatchWords, control, m_workers);
    }
    std::string name() const override { return m_name; }
    std::string configJson() const override { return m_config; }

private:
    DepParserConfig m_cfg;
    Vocabs m_vocabs;
    Net m_net;
    std::string m_name;
    std::string m_config;
    int m_workers = 1;
};

} // namespace

Result<std::unique_ptr<DependencyParserModel>> DependencyParserModel::load(const std::string &path, int threads)
{
    auto f = ParserFile<DepParserConfig, Vocabs>::read(path, "dependency-parser");
    if (!f)
        return f.error();
    const Vocabs &v = f->vocabs;
    Net net(f->model, static_cast<int>(v.words.items.size()), static_cast<int>(v.chars.items.size()),
            static_cast<int>(v.upos.items.size()), static_cast<int>(v.xpos.items.size()), static_cast<int>(v.rels.items.size()));
    if (auto s = loadNetTensors(net, f->file.tensors, path); !s)
        return s.error();
    net->eval();
    return std::unique_ptr<DependencyParserModel>(new LoadedParser(f->model, std::move(f->vocabs), net,
                                                                   f->config.value("name", std::string("dependency-parser")),
                                                                   f->file.configJson, inferenceWorkers(threads)));
}

namespace {

/// The dependency parser as a training::TrainTask: model, batching, metric.
class DepParserTask : public ParserTask<Net> {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        m_recipe = recipe;
        auto cfg = DepParserConfig::fromJson(recipe.modelJson);
        if (!cfg)
            return cfg.error();
        m_cfg = *cfg;
        const json options = json::parse(recipe.optionsJson);
        auto train = readTreebank(recipe.data.train.front());
        if (!train)
            return train.error();
        auto dev = readTreebank(recipe.data.dev.front());
        if (!dev)
            return dev.error();
        m_trainSentences = std::move(*train);
        m_dev = std::move(*dev);
        m_devInput = stripped(m_dev);
        if (resume) {
            auto v = vocabsOf<Vocabs>(*resume);
            if (!v)
                return v.error();
            m_vocabs = std::move(*v);
        } else {
            m_vocabs = buildVocabs(m_trainSentences, options.value("word_min_count", 2));
        }
        m_net = Net(m_cfg, static_cast<int>(m_vocabs.words.items.size()), static_cast<int>(m_vocabs.chars.items.size()),
                    static_cast<int>(m_vocabs.upos.items.size()), static_cast<int>(m_vocabs.xpos.items.size()),
                    static_cast<int>(m_vocabs.rels.items.size()));
        if (auto s = placeNet(device, resume); !s)
            return s.error();
        return dataSummary("sentences", m_dev.size(), std::to_string(m_vocabs.words.items.size()) + " word types",
                           {{"word_types", m_vocabs.words.items.size()}, {"relations", m_vocabs.rels.items.size()}});
    }

    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) override
    {
        const auto &index = batchAt(epoch, batch);
        m_net->train();
        Batch b = makeBatch(m_trainSentences, index, m_vocabs, m_cfg, true, &rng);
        auto o = m_net->forward(b.words, b.chars, b.lengths, true);
        training::StepResult r;
        r.loss = lossOf(m_net, o, b);
        r.units = static_cast<double>(b.mask.sum().item<long>());
        return r;
    }

    Result<training::DevResult> evaluate() override
    {
        // Greedy heads: cheap, and ranks epochs the same way as MST in practice.
        std::vector<Sentence> pred = m_devInput;
        if (auto s = predict(m_net, m_vocabs, m_cfg, pred, 0, 4000, nullptr); !s)
            return s.error();
        const Scores sc = score(m_dev, pred);
        training::DevResult r;
        r.value = sc.las;
        r.detailsJson = scoresJson(sc).dump();
        char buf[128];
        std::snprintf(buf, sizeof buf, "UAS %.2f LAS %.2f UPOS %.2f", sc.uas, sc.las, sc.upos);
        r.summary = buf;
        return r;
    }

    std::string metricName() const override { return "LAS"; }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        return parserSnapshot({{"family", "dependency-parser"},
                               {"name", m_recipe.name},
                               {"task", "dependency-parsing"},
                               {"model", json::parse(m_cfg.toJson())},
                               {"vocabularies", m_vocabs.toJson()}},
                              info, {{"dev_greedy", json::parse(info.dev.detailsJson)}, {"epoch", info.epoch}},
                              m_vocabs.words.items);
    }

    /// The saved (best) model with proper tree decoding on dev and test; the
    /// scores go into the model file itself (the model card reads them).
    Result<std::string> finish(const TrainRecipe &recipe, double elapsedSeconds) override
    {
        auto best = DependencyParserModel::load(recipe.output);
        if (!best)
            return best.error();
        json results;
        for (const auto &[split, files] : {std::pair<std::string, std::vector<std::string>>{"dev", recipe.data.dev},
                                           {"test", recipe.data.test}}) {
            if (files.empty())
                continue;
            auto gold = readTreebank(files.front());
            if (!gold)
                return gold.error();
            for (const bool projective : {false, true}) {
                std::vector<Sentence> pred = stripped(*gold);
                const auto p0 = std::chrono::steady_clock::now();
                if (auto s = (*best)->parse(pred, projective); !s)
                    return s.error();
                const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
                json r = scoresJson(score(*gold, pred));
                r["sentences_per_second"] = std::round(static_cast<double>(gold->size()) / secs);
                results[split][projective ? "eisner" : "mst"] = r;
            }
        }
        if (auto s = storeFinalMetrics(recipe, results, elapsedSeconds); !s)
            return s.error();
        return "final: " + results.dump();
    }

private:
    DepParserConfig m_cfg;
    Vocabs m_vocabs;
    std::vector<Sentence> m_dev, m_devInput;
};

Status validateRecipe(const TrainRecipe &r)
{
    const std::string what = "dependency-parser recipe";
    if (r.data.train.size() != 1 || r.data.dev.size() != 1)
        return makeError(what, "\"train\" and \"dev\" CoNLL-U files are required (one each)");
    if (r.data.test.size() > 1)
        return makeError(what, "\"test\" is one CoNLL-U file");
    if (auto s = validateParserRecipe(r, what, {}); !s)
        return s;
    auto m = DepParserConfig::fromJson(r.modelJson);
    return m ? Status() : Status(m.error());
}

} // namespace

training::TrainerFamily dependencyParserTrainer()
{
    training::TrainerFamily f;
    f.name = "dependency-parser";
    f.description = "biaffine dependency parser + UPOS/XPOS tagger (CoNLL-U train/dev)";
    f.defaults = parserRecipeDefaults(f.name, "parser-dep-en-ewt", DepParserConfig{}.toJson());
    f.defaults.schedule.decayEvery = 5;
    f.defaults.epochs = 30;
    f.defaults.batchWords = 3000;
    f.validate = validateRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new DepParserTask()); };
    return f;
}

} // namespace treelens
