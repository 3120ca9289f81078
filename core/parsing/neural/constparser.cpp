#include "core/parsing/neural/constparser.h"

#include <chrono>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/eval/bracketeval.h"
#include "core/formats/corpus.h"
#include "core/model/modelfile.h"
#include "core/parsing/neural/common.h"
#include "core/parsing/neural/depparser.h"
#include "core/parsing/treedecoders.h"
#include "core/runtime/device.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;

// ---------------------------------------------------------------- config / recipe

Status ConstParserConfig::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("constituency-parser config", m)); };
    if (auto s = validateEncoder("constituency-parser config"); !s)
        return s;
    if (tagDim < 0 || tagDim > 512) return bad("tag_dim must be 0..512");
    if (labelHidden < 8 || labelHidden > 4096) return bad("label_hidden must be 8..4096");
    if (!(tagDropout >= 0 && tagDropout < 1)) return bad("tag_dropout must be in [0, 1)");
    return {};
}

std::string ConstParserConfig::toJson() const
{
    return encoderJson(json{{"tag_dim", tagDim}, {"label_hidden", labelHidden}, {"tag_dropout", tagDropout}}.dump());
}

Result<ConstParserConfig> ConstParserConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        ConstParserConfig c;
        c.readEncoder(text);
        c.tagDim = j.value("tag_dim", c.tagDim);
        c.labelHidden = j.value("label_hidden", c.labelHidden);
        c.tagDropout = j.value("tag_dropout", c.tagDropout);
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("constituency-parser config", e.what());
    }
}

namespace {

using namespace neural;

constexpr int kStop = 3; ///< word/char index of the STOP sentinel (START uses kRoot)

struct Vocabs {
    Vocab words, chars, tags, labels;

    json toJson() const
    {
        return {{"words", words.items}, {"chars", chars.items}, {"tags", tags.items}, {"labels", labels.items}};
    }
    static Result<Vocabs> fromJson(const json &j)
    {
        Vocabs v;
        try {
            v.words = Vocab::from(j.at("words").get<std::vector<std::string>>());
            v.chars = Vocab::from(j.at("chars").get<std::vector<std::string>>());
            v.tags = Vocab::from(j.at("tags").get<std::vector<std::string>>());
            v.labels = Vocab::from(j.at("labels").get<std::vector<std::string>>());
        } catch (const std::exception &e) {
            return makeError("constituency-parser vocabularies", e.what());
        }
        if (v.words.items.size() < 4 || v.chars.items.size() < 4 || v.tags.items.size() < 3 || v.labels.items.size() < 2)
            return makeError("constituency-parser vocabularies", "too small");
        return v;
    }
};

struct Item {
    Sentence sentence;                         ///< tokens (text, xpos) and the gold tree
    std::map<std::pair<int, int>, int> gold;   ///< span -> label index (training only)
};

Vocabs buildVocabs(const std::vector<Sentence> &train, int minCount)
{
    Vocabs v;
    for (const char *s : {"<pad>", "<unk>", "<start>", "<stop>"}) {
        v.words.add(s);
        v.chars.add(s);
    }
    for (const char *s : {"<pad>", "<unk>", "<boundary>"})
        v.tags.add(s);
    v.labels.add(""); // Ø
    for (const auto &s : train) {
        for (const auto &t : s.tokens)
            v.tags.add(t.xpos.empty() ? "_" : t.xpos);
        for (const auto &sp : treeToTrainingSpans(*s.constituency))
            v.labels.add(sp.label);
    }
    addWordsAndChars(v.words, v.chars, train, minCount);
    return v;
}

struct NetImpl : torch::nn::Module {
    ConstParserConfig cfg;
    torch::nn::Embedding wordEmb{nullptr}, charEmb{nullptr}, tagEmb{nullptr};
    torch::nn::Conv1d charConv{nullptr};
    torch::nn::LSTM lstm{nullptr};
    torch::nn::Linear hidden{nullptr}, out{nullptr};
    torch::nn::LayerNorm norm{nullptr};

    NetImpl(const ConstParserConfig &c, int nWords, int nChars, int nTags, int nLabels) : cfg(c)
    {
        wordEmb = register_module("word_emb", torch::nn::Embedding(torch::nn::EmbeddingOptions(nWords, c.wordDim).padding_idx(kPad)));
        charEmb = register_module("char_emb", torch::nn::Embedding(torch::nn::EmbeddingOptions(nChars, c.charDim).padding_idx(kPad)));
        charConv = register_module("char_conv", torch::nn::Conv1d(torch::nn::Conv1dOptions(c.charDim, c.charFilters, c.charKernel)
                                                                      .padding(c.charKernel / 2)));
        const int tagDim = std::max(1, c.tagDim);
        tagEmb = register_module("tag_emb", torch::nn::Embedding(torch::nn::EmbeddingOptions(nTags, tagDim).padding_idx(kPad)));
        lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(c.wordDim + c.charFilters + (c.tagDim > 0 ? c.tagDim : 0), c.lstmHidden)
                                                           .num_layers(c.lstmLayers)
                                                           .bidirectional(true)
                                                           .batch_first(true)
                                                           .dropout(c.dropout)));
        hidden = register_module("label_hidden", torch::nn::Linear(2 * c.lstmHidden, c.labelHidden));
        norm = register_module("label_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.labelHidden})));
        out = register_module("label_out", torch::nn::Linear(c.labelHidden, nLabels));
    }

    /// Span label scores [S, L] for the spans (b, i, j) listed, Ø column subtracted.
    torch::Tensor forward(const torch::Tensor &words, const torch::Tensor &chars, const torch::Tensor &tags,
                          const torch::Tensor &lengths, const torch::Tensor &sb, const torch::Tensor &si,
                          const torch::Tensor &sj, bool train)
    {
        const auto B = words.size(0), T = words.size(1);
        auto w = wordEmb(words);
        auto c = charEmb(chars.view({B * T, -1})).transpose(1, 2);
        c = torch::tanh(std::get<0>(charConv(c).max(2))).view({B, T, -1});
        auto x = cfg.tagDim > 0 ? torch::cat({w, c, tagEmb(tags)}, 2) : torch::cat({w, c}, 2);
        x = torch::dropout(x, cfg.dropout, train);
        auto packed = torch::nn::utils::rnn::pack_padded_sequence(x, lengths, true, false);
        auto o = std::get<0>(lstm->forward_with_packed_input(packed));
        auto h = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(o, true, 0.0, T)); // [B,T,2H]
        const auto H = cfg.lstmHidden;
        auto fwd = h.narrow(2, 0, H), bwd = h.narrow(2, H, H);
        // Fencepost k (between word k and k+1, positions counted with START at 0):
        // forward state at position k, backward state at position k + 1.
        if (train) {
            auto span = torch::cat({fwd.index({sb, sj}) - fwd.index({sb, si}), bwd.index({sb, si + 1}) - bwd.index({sb, sj + 1})}, 1);
            span = torch::dropout(span, cfg.dropout, train);
            auto z = torch::dropout(torch::relu(norm(hidden(span))), cfg.dropout, train);
            auto logits = out(z);
            return logits - logits.narrow(1, 0, 1);
        }
        // Without dropout the first layer is linear in the fencepost
        // differences: project each position once (O(T)) and subtract the
        // projections per span instead of multiplying O(T^2) span vectors:
        // pre(i, j) = pf[j] - pf[i] + pb[i+1] - pb[j+1] + bias = D[j] - D[i] + bias
        // with D[k] = pf[k] - pb[k+1]. The spans are scored in chunks that stay
        // in cache (a batch has up to ~30k spans: [S, label_hidden] temporaries
        // of 30 MB each were most of the parser's time, in page faults).
        auto wf = hidden->weight.narrow(1, 0, H), wb = hidden->weight.narrow(1, H, H);
        auto pf = torch::matmul(fwd, wf.t()), pb = torch::matmul(bwd, wb.t()); // [B,T,lh]
        const auto Bn = pf.size(0), Tn = pf.size(1), lh = pf.size(2);
        auto D = (pf.narrow(1, 0, Tn - 1) - pb.narrow(1, 1, Tn - 1)).reshape({Bn * (Tn - 1), lh}).contiguous();
        auto fi = sb * (Tn - 1) + si, fj = sb * (Tn - 1) + sj;
        const auto S = sb.size(0);
        auto logits = torch::empty({S, out->weight.size(0)}, pf.options());
        constexpr std::int64_t kChunk = 2048;
        for (std::int64_t c = 0; c < S; c += kChunk) {
            const auto n = std::min(kChunk, S - c);
            auto pre = D.index_select(0, fj.narrow(0, c, n)) - D.index_select(0, fi.narrow(0, c, n)) + hidden->bias;
            auto l = out(torch::relu(norm(pre)));
            logits.narrow(0, c, n).copy_(l - l.narrow(1, 0, 1));
        }
        return logits;
    }
};
TORCH_MODULE(Net);

struct Batch {
    std::vector<int> index;
    torch::Tensor words, chars, tags, lengths, sb, si, sj, gold;
    std::vector<std::int64_t> spanStart; ///< first row of each sentence's spans in the score matrix
};

Batch makeBatch(const std::vector<Item> &items, const std::vector<int> &index, const Vocabs &v,
                const ConstParserConfig &cfg, bool training, std::mt19937_64 *rng)
{
    Batch b;
    b.index = index;
    const auto B = static_cast<std::int64_t>(index.size());
    std::int64_t T = 0, C = 1;
    for (int i : index) {
        const auto &s = items[static_cast<std::size_t>(i)].sentence;
        T = std::max<std::int64_t>(T, static_cast<std::int64_t>(s.tokens.size()) + 2);
        for (const auto &t : s.tokens)
            C = std::max<std::int64_t>(C, static_cast<std::int64_t>(clippedChars(t.text, cfg.maxWordChars).size()));
    }
    std::vector<std::int64_t> words(static_cast<std::size_t>(B * T), kPad), chars(static_cast<std::size_t>(B * T * C), kPad),
        tags(static_cast<std::size_t>(B * T), 0), lengths(static_cast<std::size_t>(B));
    std::vector<std::int64_t> sb, si, sj, gold;
    std::bernoulli_distribution dropWord(cfg.wordDropout), dropTag(cfg.tagDropout);
    for (std::int64_t bi = 0; bi < B; ++bi) {
        const Item &item = items[static_cast<std::size_t>(index[static_cast<std::size_t>(bi)])];
        const auto n = static_cast<std::int64_t>(item.sentence.tokens.size());
        lengths[static_cast<std::size_t>(bi)] = n + 2;
        const auto row = static_cast<std::size_t>(bi * T);
        words[row] = kRoot;
        words[row + static_cast<std::size_t>(n) + 1] = kStop;
        chars[row * static_cast<std::size_t>(C)] = kRoot;
        chars[(row + static_cast<std::size_t>(n) + 1) * static_cast<std::size_t>(C)] = kStop;
        tags[row] = tags[row + static_cast<std::size_t>(n) + 1] = 2;
        for (std::int64_t t = 0; t < n; ++t) {
            const Token &tok = item.sentence.tokens[static_cast<std::size_t>(t)];
            const auto pos = row + static_cast<std::size_t>(t) + 1;
            const bool dropped = training && rng && dropWord(*rng);
            words[pos] = encodeWord(tok.text, v.words, v.chars, cfg.maxWordChars, dropped, &chars[pos * static_cast<std::size_t>(C)]);
            int tag = v.tags.get(tok.xpos.empty() ? "_" : tok.xpos, kUnk);
            if (training && rng && dropTag(*rng))
                tag = kUnk;
            tags[pos] = tag;
        }
        b.spanStart.push_back(static_cast<std::int64_t>(sb.size()));
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = i + 1; j <= n; ++j) {
                sb.push_back(bi);
                si.push_back(i);
                sj.push_back(j);
                if (training) {
                    auto it = item.gold.find({static_cast<int>(i), static_cast<int>(j)});
                    gold.push_back(it == item.gold.end() ? 0 : it->second);
                }
            }
    }
    auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    b.words = torch::from_blob(words.data(), {B, T}, i64).clone();
    b.chars = torch::from_blob(chars.data(), {B, T, C}, i64).clone();
    b.tags = torch::from_blob(tags.data(), {B, T}, i64).clone();
    b.lengths = torch::from_blob(lengths.data(), {B}, i64).clone();
    const auto S = static_cast<std::int64_t>(sb.size());
    b.sb = torch::from_blob(sb.data(), {S}, i64).clone();
    b.si = torch::from_blob(si.data(), {S}, i64).clone();
    b.sj = torch::from_blob(sj.data(), {S}, i64).clone();
    if (training)
        b.gold = torch::from_blob(gold.data(), {S}, i64).clone();
    return b;
}

/// workers 0: in this thread with the current LibTorch threads (training);
/// workers >= 1: runBatchesSingleThreaded, longest batches first.
Status predict(Net &net, const Vocabs &v, const ConstParserConfig &cfg, std::vector<Item> &items, int batchWords,
               const RunControl *control, int workers = 0)
{
    torch::NoGradGuard ng;
    net->eval();
    std::vector<std::size_t> lengths;
    lengths.reserve(items.size());
    for (const auto &it : items)
        lengths.push_back(it.sentence.tokens.size());
    const auto batches = lengthBatches(lengths, batchWords, nullptr);
    std::atomic<std::size_t> done{0};
    auto one = [&](std::size_t k) -> Status {
        const auto &idx = batches[batches.size() - 1 - k];
        Batch b = makeBatch(items, idx, v, cfg, false, nullptr);
        auto scores = net->forward(b.words, b.chars, b.tags, b.lengths, b.sb, b.si, b.sj, false).contiguous();
        const auto L = scores.size(1);
        const float *data = scores.data_ptr<float>();
        for (std::size_t k = 0; k < idx.size(); ++k) {
            Sentence &s = items[static_cast<std::size_t>(idx[k])].sentence;
            const int n = static_cast<int>(s.tokens.size());
            SpanChart chart(n, static_cast<int>(L));
            std::int64_t row = b.spanStart[k];
            for (int i = 0; i < n; ++i)
                for (int j = i + 1; j <= n; ++j, ++row)
                    std::copy(data + row * L, data + (row + 1) * L, &chart.at(i, j, 0));
            const CkyResult r = decodeCky(chart);
            std::vector<std::string> words, tags;
            for (const auto &t : s.tokens) {
                words.push_back(t.text);
                tags.push_back(t.xpos.empty() ? "X" : t.xpos);
            }
            s.constituency = spansToTree(words, tags, r.spans, v.labels.items);
        }
        const std::size_t d = done += idx.size();
        if (control)
            control->report(d, items.size(), "parsing");
        return {};
    };
    return runBatches(batches.size(), workers, control, one);
}

Result<std::vector<Item>> readTrees(const std::vector<std::string> &files, const Vocabs *v)
{
    std::vector<Item> out;
    CorpusReadOptions options;
    options.stripTraces = true;
    options.stripFunctionTags = true;
    for (const auto &f : files) {
        auto r = readCorpusFile(f, CorpusFormat::Ptb, options);
        if (!r)
            return r.error();
        for (auto &s : *r) {
            if (!s.constituency || s.tokens.empty())
                continue;
            Item item;
            item.sentence = std::move(s);
            if (v)
                for (const auto &sp : treeToTrainingSpans(*item.sentence.constituency))
                    item.gold[{sp.start, sp.end}] = v->labels.get(sp.label, 0);
            out.push_back(std::move(item));
        }
    }
    if (out.empty())
        return Error{"no trees in " + (files.empty() ? std::string("(no files)") : files.front())};
    return out;
}

double labelledF1(const std::vector<Item> &gold, const std::vector<Item> &pred)
{
    std::vector<Sentence> g, p;
    for (const auto &x : gold)
        g.push_back(x.sentence);
    for (const auto &x : pred)
        p.push_back(x.sentence);
    auto e = evaluateBrackets(g, p);
    return e ? e->labeled.f1() : 0.0;
}

class LoadedParser : public ConstituencyParserModel {
public:
    LoadedParser(ConstParserConfig cfg, Vocabs v, Net net, std::string name, int workers)
        : m_cfg(cfg), m_vocabs(std::move(v)), m_net(std::move(net)), m_name(std::move(name)), m_workers(workers)
    {
    }
    Status parse(std::vector<Sentence> &sentences, const RunControl *control) override
    {
        std::vector<Item> items(sentences.size());
        for (std::size_t i = 0; i < sentences.size(); ++i) {
            if (sentences[i].tokens.empty())
                return makeError(sentences[i].id, "nothing to parse (no tokens)");
            items[i].sentence = std::move(sentences[i]);
        }
        const Status st = predict(m_net, m_vocabs, m_cfg, items, 1000, control, m_workers);
        for (std::size_t i = 0; i < sentences.size(); ++i)
            sentences[i] = std::move(items[i].sentence);
        return st;
    }
    std::string name() const override { return m_name; }

private:
    ConstParserConfig m_cfg;
    Vocabs m_vocabs;
    Net m_net;
    std::string m_name;
    int m_workers = 1;
};

} // namespace

Result<std::unique_ptr<ConstituencyParserModel>> ConstituencyParserModel::load(const std::string &path, int threads)
{
    auto f = ParserFile<ConstParserConfig, Vocabs>::read(path, "constituency-parser");
    if (!f)
        return f.error();
    const Vocabs &v = f->vocabs;
    Net net(f->model, static_cast<int>(v.words.items.size()), static_cast<int>(v.chars.items.size()),
            static_cast<int>(v.tags.items.size()), static_cast<int>(v.labels.items.size()));
    if (auto s = loadNetTensors(net, f->file.tensors, path); !s)
        return s.error();
    net->eval();
    return std::unique_ptr<ConstituencyParserModel>(new LoadedParser(
        f->model, std::move(f->vocabs), net, f->config.value("name", std::string("constituency-parser")), inferenceWorkers(threads)));
}

namespace {

/// The constituency parser as a training::TrainTask: model, batching, metric.
class ConstParserTask : public ParserTask<Net> {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        m_recipe = recipe;
        auto cfg = ConstParserConfig::fromJson(recipe.modelJson);
        if (!cfg)
            return cfg.error();
        m_cfg = *cfg;
        const json options = json::parse(recipe.optionsJson);
        if (resume) {
            auto v = vocabsOf<Vocabs>(*resume);
            if (!v)
                return v.error();
            m_vocabs = std::move(*v);
        } else {
            auto raw = readTrees(recipe.data.train, nullptr);
            if (!raw)
                return raw.error();
            std::vector<Sentence> sentences;
            for (const auto &it : *raw)
                sentences.push_back(it.sentence);
            m_vocabs = buildVocabs(sentences, options.value("word_min_count", 2));
        }
        auto train = readTrees(recipe.data.train, &m_vocabs);
        if (!train)
            return train.error();
        auto dev = readTrees(recipe.data.dev, &m_vocabs);
        if (!dev)
            return dev.error();
        m_train = std::move(*train);
        m_dev = std::move(*dev);
        m_trainSentences.clear();
        for (const auto &it : m_train)
            m_trainSentences.push_back(it.sentence);
        m_net = Net(m_cfg, static_cast<int>(m_vocabs.words.items.size()), static_cast<int>(m_vocabs.chars.items.size()),
                    static_cast<int>(m_vocabs.tags.items.size()), static_cast<int>(m_vocabs.labels.items.size()));
        if (auto s = placeNet(device, resume); !s)
            return s.error();
        return dataSummary("trees", m_dev.size(), std::to_string(m_vocabs.labels.items.size()) + " labels",
                           {{"word_types", m_vocabs.words.items.size()}, {"labels", m_vocabs.labels.items.size()}});
    }

    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) override
    {
        const auto &index = batchAt(epoch, batch);
        m_net->train();
        Batch b = makeBatch(m_train, index, m_vocabs, m_cfg, true, &rng);
        auto scores = m_net->forward(b.words, b.chars, b.tags, b.lengths, b.sb, b.si, b.sj, true);
        training::StepResult r;
        r.loss = torch::nn::functional::cross_entropy(scores, b.gold);
        for (int i : index)
            r.units += static_cast<double>(m_train[static_cast<std::size_t>(i)].sentence.tokens.size());
        return r;
    }

    Result<training::DevResult> evaluate() override
    {
        std::vector<Item> pred = m_dev;
        if (auto s = predict(m_net, m_vocabs, m_cfg, pred, 3000, nullptr); !s)
            return s.error();
        training::DevResult r;
        r.value = labelledF1(m_dev, pred);
        r.detailsJson = json{{"labelled_f1", r.value}}.dump();
        char buf[64];
        std::snprintf(buf, sizeof buf, "labelled F1 %.2f (gold tags)", r.value);
        r.summary = buf;
        return r;
    }

    std::string metricName() const override { return "labelled F1"; }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        return parserSnapshot({{"family", "constituency-parser"},
                               {"name", m_recipe.name},
                               {"task", "constituency-parsing"},
                               {"model", json::parse(m_cfg.toJson())},
                               {"vocabularies", m_vocabs.toJson()}},
                              info, {{"dev_gold_tags_f1", info.dev.value}, {"epoch", info.epoch}}, m_vocabs.words.items);
    }

    /// The best model, with gold tags and (when a tagger is given) with
    /// predicted tags, on dev and test; the scores go into the model file.
    Result<std::string> finish(const TrainRecipe &recipe, double elapsedSeconds) override;

private:
    ConstParserConfig m_cfg;
    Vocabs m_vocabs;
    std::vector<Item> m_train, m_dev;
};

Result<std::string> ConstParserTask::finish(const TrainRecipe &recipe, double elapsedSeconds)
{
    auto best = ConstituencyParserModel::load(recipe.output);
    if (!best)
        return best.error();
    const json extra = json::parse(recipe.data.extraJson);
    const std::string taggerPath = extra.value("tagger", std::string());
    std::unique_ptr<DependencyParserModel> tagger;
    std::string note;
    if (!taggerPath.empty() && !std::filesystem::exists(taggerPath)) {
        // The tagger is usually trained alongside; without it the report has gold tags only.
        note = "tagger " + taggerPath + " not found: predicted-tag scores skipped; ";
    } else if (!taggerPath.empty()) {
        auto t = DependencyParserModel::load(taggerPath);
        if (!t)
            return t.error();
        tagger = std::move(*t);
    }
    json results;
    for (const auto &[split, files] : {std::pair<std::string, std::vector<std::string>>{"dev", recipe.data.dev},
                                       {"test", recipe.data.test}}) {
        if (files.empty())
            continue;
        auto gold = readTrees(files, nullptr);
        if (!gold)
            return gold.error();
        for (const bool predictedTags : {false, true}) {
            if (predictedTags && !tagger)
                continue;
            std::vector<Sentence> input;
            for (const auto &it : *gold) {
                Sentence s = it.sentence;
                s.constituency.reset();
                input.push_back(std::move(s));
            }
            if (predictedTags)
                if (auto st = tagger->parse(input); !st)
                    return st.error();
            const auto p0 = std::chrono::steady_clock::now();
            if (auto st = (*best)->parse(input); !st)
                return st.error();
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
            std::vector<Sentence> g;
            for (const auto &it : *gold)
                g.push_back(it.sentence);
            auto e = evaluateBrackets(g, input);
            if (!e)
                return e.error();
            auto r2 = [](double x) { return std::round(x * 100.0) / 100.0; };
            results[split][predictedTags ? "predicted_tags" : "gold_tags"] = {
                {"labelled_f1", r2(e->labeled.f1())},     {"labelled_precision", r2(e->labeled.precision())},
                {"labelled_recall", r2(e->labeled.recall())}, {"unlabelled_f1", r2(e->unlabeled.f1())},
                {"sentences", g.size()},                   {"sentences_per_second", std::round(static_cast<double>(g.size()) / secs)}};
        }
    }
    if (auto s = storeFinalMetrics(recipe, results, elapsedSeconds); !s)
        return s.error();
    return note + "final: " + results.dump();
}

Status validateRecipe(const TrainRecipe &r)
{
    const std::string what = "constituency-parser recipe";
    if (r.data.train.empty() || r.data.dev.empty())
        return makeError(what, "\"train\" and \"dev\" PTB files are required");
    // The PTB sample's test section also scores the encoders' unsupervised parsing:
    // a parser must never see it in training.
    for (const auto &f : r.data.train)
        for (int k = 180; k <= 199; ++k) {
            char name[32];
            std::snprintf(name, sizeof name, "wsj_%04d", k);
            if (f.find(name) != std::string::npos)
                return makeError(what, f + " is a test file (wsj_0180-wsj_0199 are never trained on)");
        }
    if (auto s = validateParserRecipe(r, what, {"tagger"}); !s)
        return s;
    auto m = ConstParserConfig::fromJson(r.modelJson);
    return m ? Status() : Status(m.error());
}

} // namespace

training::TrainerFamily constituencyParserTrainer()
{
    training::TrainerFamily f;
    f.name = "constituency-parser";
    f.description = "span-based chart constituency parser (PTB .mrg train/dev)";
    f.defaults = parserRecipeDefaults(f.name, "parser-const-en-ptb", ConstParserConfig{}.toJson());
    f.defaults.schedule.decayEvery = 8;
    f.defaults.epochs = 40;
    f.defaults.batchWords = 2000;
    f.validate = validateRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new ConstParserTask()); };
    return f;
}

} // namespace treelens
