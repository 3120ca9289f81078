#include "core/parsing/neural/constparser.h"

#include <chrono>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <malloc.h>
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

namespace treelens {

using nlohmann::json;

// ---------------------------------------------------------------- config / recipe

Status ConstParserConfig::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("constituency-parser config", m)); };
    if (wordDim < 1 || wordDim > 2048 || charDim < 1 || charDim > 512 || charFilters < 1 || charFilters > 2048)
        return bad("embedding sizes out of range");
    if (charKernel < 1 || charKernel > 9 || charKernel % 2 == 0) return bad("char_kernel must be odd, 1..9");
    if (maxWordChars < 4 || maxWordChars > 128) return bad("max_word_chars must be 4..128");
    if (tagDim < 0 || tagDim > 512) return bad("tag_dim must be 0..512");
    if (lstmLayers < 1 || lstmLayers > 8 || lstmHidden < 8 || lstmHidden > 2048) return bad("BiLSTM size out of range");
    if (labelHidden < 8 || labelHidden > 4096) return bad("label_hidden must be 8..4096");
    if (!(dropout >= 0 && dropout < 1) || !(wordDropout >= 0 && wordDropout < 1) || !(tagDropout >= 0 && tagDropout < 1))
        return bad("dropouts must be in [0, 1)");
    return {};
}

std::string ConstParserConfig::toJson() const
{
    return json{{"word_dim", wordDim},         {"char_dim", charDim},         {"char_filters", charFilters},
                {"char_kernel", charKernel},     {"max_word_chars", maxWordChars}, {"tag_dim", tagDim},
                {"lstm_layers", lstmLayers},     {"lstm_hidden", lstmHidden},   {"label_hidden", labelHidden},
                {"dropout", dropout},            {"word_dropout", wordDropout}, {"tag_dropout", tagDropout}}
        .dump();
}

Result<ConstParserConfig> ConstParserConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        ConstParserConfig c;
        c.wordDim = j.value("word_dim", c.wordDim);
        c.charDim = j.value("char_dim", c.charDim);
        c.charFilters = j.value("char_filters", c.charFilters);
        c.charKernel = j.value("char_kernel", c.charKernel);
        c.maxWordChars = j.value("max_word_chars", c.maxWordChars);
        c.tagDim = j.value("tag_dim", c.tagDim);
        c.lstmLayers = j.value("lstm_layers", c.lstmLayers);
        c.lstmHidden = j.value("lstm_hidden", c.lstmHidden);
        c.labelHidden = j.value("label_hidden", c.labelHidden);
        c.dropout = j.value("dropout", c.dropout);
        c.wordDropout = j.value("word_dropout", c.wordDropout);
        c.tagDropout = j.value("tag_dropout", c.tagDropout);
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("constituency-parser config", e.what());
    }
}

Status ConstParserRecipe::validate() const
{
    auto bad = [](const std::string &m) { return Status(makeError("constituency-parser recipe", m)); };
    if (train.empty() || dev.empty()) return bad("\"train\" and \"dev\" PTB files are required");
    if (output.empty()) return bad("\"output\" is required");
    if (epochs < 1 || epochs > 1000 || batchWords < 50) return bad("epochs must be 1..1000 and batch_words >= 50");
    if (!(lr > 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) return bad("bad learning rate or betas");
    if (!(lrDecay > 0 && lrDecay <= 1) || decayEvery < 1) return bad("lr_decay must be in (0, 1], decay_every >= 1");
    if (storage != "f32" && storage != "f16" && storage != "bf16") return bad("storage must be f32, f16 or bf16");
    // The PTB sample's test section also scores the encoders' unsupervised parsing:
    // a parser must never see it in training.
    for (const auto &f : train)
        for (int k = 180; k <= 199; ++k) {
            char name[32];
            std::snprintf(name, sizeof name, "wsj_%04d", k);
            if (f.find(name) != std::string::npos)
                return bad(f + " is a test file (wsj_0180-wsj_0199 are never trained on)");
        }
    return model.validate();
}

namespace {

Result<std::vector<std::string>> fileList(const json &j, const std::string &baseDir, const char *key)
{
    std::vector<std::string> out;
    auto resolve = [&](std::string p) {
        if (!p.empty() && p[0] != '/' && !baseDir.empty())
            p = baseDir + "/" + p;
        return p;
    };
    if (!j.contains(key))
        return out;
    const json &v = j.at(key);
    if (v.is_string()) {
        out.push_back(resolve(v.get<std::string>()));
    } else if (v.is_array()) {
        for (const auto &x : v)
            out.push_back(resolve(x.get<std::string>()));
    } else if (v.is_object()) {
        const std::string dir = resolve(v.at("dir").get<std::string>());
        const std::string pattern = v.value("pattern", std::string("wsj_%04d.mrg"));
        const int first = v.at("first").get<int>(), last = v.at("last").get<int>();
        if (first > last || last - first > 100000)
            return makeError(key, "bad range");
        for (int k = first; k <= last; ++k) {
            char name[256];
            std::snprintf(name, sizeof name, pattern.c_str(), k);
            out.push_back(dir + "/" + name);
        }
    }
    return out;
}

} // namespace

Result<ConstParserRecipe> ConstParserRecipe::fromJson(const std::string &text, const std::string &baseDir)
{
    try {
        const auto j = json::parse(text);
        ConstParserRecipe r;
        auto path = [&](const char *key) {
            std::string p = j.value(key, std::string());
            if (!p.empty() && p[0] != '/' && !baseDir.empty())
                p = baseDir + "/" + p;
            return p;
        };
        r.name = j.value("name", r.name);
        for (auto [key, dest] : {std::pair<const char *, std::vector<std::string> *>{"train", &r.train}, {"dev", &r.dev}, {"test", &r.test}}) {
            auto l = fileList(j, baseDir, key);
            if (!l)
                return l.error();
            *dest = std::move(*l);
        }
        r.tagger = path("tagger");
        r.output = path("output");
        r.checkpoint = path("checkpoint");
        r.log = path("log");
        if (j.contains("model")) {
            auto m = ConstParserConfig::fromJson(j.at("model").dump());
            if (!m)
                return m.error();
            r.model = *m;
        }
        const json t = j.value("training", json::object());
        r.epochs = t.value("epochs", r.epochs);
        r.batchWords = t.value("batch_words", r.batchWords);
        r.lr = t.value("lr", r.lr);
        r.beta1 = t.value("beta1", r.beta1);
        r.beta2 = t.value("beta2", r.beta2);
        r.clipNorm = t.value("clip_norm", r.clipNorm);
        r.lrDecay = t.value("lr_decay", r.lrDecay);
        r.decayEvery = t.value("decay_every", r.decayEvery);
        r.patience = t.value("patience", r.patience);
        r.wordMinCount = t.value("word_min_count", r.wordMinCount);
        r.seed = t.value("seed", r.seed);
        r.threads = t.value("threads", r.threads);
        r.storage = j.value("storage", r.storage);
        if (auto s = r.validate(); !s)
            return s.error();
        return r;
    } catch (const std::exception &e) {
        return makeError("constituency-parser recipe", e.what());
    }
}

std::string ConstParserRecipe::toJson() const
{
    return json{{"family", "constituency-parser"},
                {"name", name},
                {"train", train},
                {"dev", dev},
                {"test", test},
                {"tagger", tagger},
                {"output", output},
                {"checkpoint", checkpoint},
                {"log", log},
                {"model", json::parse(model.toJson())},
                {"training",
                 {{"epochs", epochs},
                  {"batch_words", batchWords},
                  {"lr", lr},
                  {"beta1", beta1},
                  {"beta2", beta2},
                  {"clip_norm", clipNorm},
                  {"lr_decay", lrDecay},
                  {"decay_every", decayEvery},
                  {"patience", patience},
                  {"word_min_count", wordMinCount},
                  {"seed", seed},
                  {"threads", threads}}},
                {"storage", storage}}
        .dump(2);
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
    std::map<std::string, int> counts, charCounts;
    for (const auto &s : train) {
        for (const auto &t : s.tokens) {
            ++counts[normalizeWord(t.text)];
            for (const auto &c : utf8Characters(t.text))
                ++charCounts[c];
            v.tags.add(t.xpos.empty() ? "_" : t.xpos);
        }
        for (const auto &sp : treeToTrainingSpans(*s.constituency))
            v.labels.add(sp.label);
    }
    for (const auto &[w, c] : counts)
        if (c >= minCount)
            v.words.add(w);
    for (const auto &[ch, c] : charCounts)
        if (c >= 2)
            v.chars.add(ch);
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
        torch::Tensor pre;
        if (train) {
            auto span = torch::cat({fwd.index({sb, sj}) - fwd.index({sb, si}), bwd.index({sb, si + 1}) - bwd.index({sb, sj + 1})}, 1);
            span = torch::dropout(span, cfg.dropout, train);
            pre = hidden(span);
        } else {
            // Without dropout the first layer is linear in the fencepost
            // differences: project each position once (O(T)) and subtract the
            // projections per span instead of multiplying O(T^2) span vectors.
            auto wf = hidden->weight.narrow(1, 0, H), wb = hidden->weight.narrow(1, H, H);
            auto pf = torch::matmul(fwd, wf.t()), pb = torch::matmul(bwd, wb.t()); // [B,T,lh]
            pre = pf.index({sb, sj}) - pf.index({sb, si}) + pb.index({sb, si + 1}) - pb.index({sb, sj + 1}) + hidden->bias;
        }
        auto z = torch::relu(norm(pre));
        z = torch::dropout(z, cfg.dropout, train);
        auto logits = out(z);
        return logits - logits.narrow(1, 0, 1);
    }
};
TORCH_MODULE(Net);

struct Batch {
    std::vector<int> index;
    torch::Tensor words, chars, tags, lengths, sb, si, sj, gold;
    std::vector<std::int64_t> spanStart; ///< first row of each sentence's spans in the score matrix
};

Batch makeBatch(const std::vector<Item> &items, const std::vector<int> &index, const Vocabs &v,
                const ConstParserConfig &cfg, bool training, std::mt19937 *rng)
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
            int id = v.words.get(normalizeWord(tok.text), kUnk);
            if (training && rng && dropWord(*rng))
                id = kUnk;
            words[pos] = id;
            const auto cs = clippedChars(tok.text, cfg.maxWordChars);
            for (std::size_t k = 0; k < cs.size(); ++k)
                chars[pos * static_cast<std::size_t>(C) + k] = v.chars.get(cs[k], kUnk);
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
    std::vector<Sentence> view;
    view.reserve(items.size());
    for (const auto &it : items)
        view.push_back(it.sentence); // lengthBatches needs the token counts only
    const auto batches = lengthBatches(view, batchWords, nullptr);
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
    if (workers >= 1)
        return runBatchesSingleThreaded(batches.size(), workers, control, one);
    for (std::size_t k = 0; k < batches.size(); ++k) {
        if (control && control->isCancelled())
            return Error{"cancelled"};
        if (auto st = one(k); !st)
            return st;
    }
    return {};
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
    auto file = loadModelFile(path);
    if (!file)
        return file.error();
    json config;
    try {
        config = json::parse(file->configJson);
    } catch (const std::exception &e) {
        return makeError(path, std::string("treelens.config: ") + e.what());
    }
    if (config.value("family", std::string()) != "constituency-parser")
        return makeError(path, "not a constituency-parser model (family '" + config.value("family", std::string()) + "')");
    auto cfg = ConstParserConfig::fromJson(config.value("model", json::object()).dump());
    if (!cfg)
        return makeError(path, cfg.message());
    auto vocabs = Vocabs::fromJson(config.value("vocabularies", json::object()));
    if (!vocabs)
        return makeError(path, vocabs.message());
    Net net(*cfg, static_cast<int>(vocabs->words.items.size()), static_cast<int>(vocabs->chars.items.size()),
            static_cast<int>(vocabs->tags.items.size()), static_cast<int>(vocabs->labels.items.size()));
    if (auto s = loadNetTensors(net, file->tensors, path); !s)
        return s.error();
    net->eval();
    return std::unique_ptr<ConstituencyParserModel>(
        new LoadedParser(*cfg, std::move(*vocabs), net, config.value("name", std::string("constituency-parser")),
                         inferenceWorkers(threads)));
}

Status trainConstituencyParser(const ConstParserRecipe &recipe, const std::string &resumeFrom,
                               const std::function<void(const ConstTrainProgress &)> &onProgress, const RunControl *control)
{
    if (auto s = recipe.validate(); !s)
        return s;
    torch::manual_seed(recipe.seed);
    mallopt(M_MMAP_THRESHOLD, 32 << 20); // see trainDependencyParser: avoids mmap churn
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    {
        DeviceConfig dc;
        dc.device = "cpu";
        dc.threads = recipe.threads;
        if (auto d = resolveDevice(dc); !d)
            return d.error();
    }
    auto rawTrain = readTrees(recipe.train, nullptr);
    if (!rawTrain)
        return rawTrain.error();
    std::vector<Sentence> trainSentences;
    for (const auto &it : *rawTrain)
        trainSentences.push_back(it.sentence);
    Vocabs v = buildVocabs(trainSentences, recipe.wordMinCount);
    int startEpoch = 0;
    double bestF1 = -1.0, lr = recipe.lr;
    int sinceBest = 0;
    Adam adam;
    ModelFile resume;
    if (!resumeFrom.empty()) {
        auto f = loadModelFile(resumeFrom);
        if (!f)
            return f.error();
        resume = std::move(*f);
        const json st = json::parse(resume.configJson);
        auto vv = Vocabs::fromJson(st.at("vocabularies"));
        if (!vv)
            return vv.error();
        v = std::move(*vv);
        startEpoch = st.at("state").at("epoch").get<int>();
        bestF1 = st.at("state").at("best_dev_f1").get<double>();
        lr = st.at("state").at("lr").get<double>();
        sinceBest = st.at("state").at("since_best").get<int>();
        adam.step = st.at("state").at("step").get<long long>();
    }
    auto train = readTrees(recipe.train, &v);
    if (!train)
        return train.error();
    auto dev = readTrees(recipe.dev, &v);
    if (!dev)
        return dev.error();
    const ConstParserConfig &cfg = recipe.model;
    Net net(cfg, static_cast<int>(v.words.items.size()), static_cast<int>(v.chars.items.size()),
            static_cast<int>(v.tags.items.size()), static_cast<int>(v.labels.items.size()));
    if (!resumeFrom.empty())
        if (auto s = loadNetTensors(net, resume.tensors, resumeFrom, "param."); !s)
            return s;
    auto params = net->named_parameters();
    if (auto st = adam.init(params, resumeFrom.empty() ? nullptr : &resume.tensors, resumeFrom); !st)
        return st;
    std::ofstream log;
    if (!recipe.log.empty())
        log.open(recipe.log, std::ios::app);
    auto writeLog = [&](const json &j) {
        if (log)
            log << j.dump() << "\n" << std::flush;
    };
    const DType storage = recipe.storage == "f32" ? DType::F32 : recipe.storage == "bf16" ? DType::BF16 : DType::F16;
    auto modelConfig = [&](const json &extra) {
        json c = {{"family", "constituency-parser"},
                  {"name", recipe.name},
                  {"task", "constituency-parsing"},
                  {"model", json::parse(cfg.toJson())},
                  {"vocabularies", v.toJson()},
                  {"training", {{"recipe", json::parse(recipe.toJson())}, {"train_sentences", train->size()}}}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            c[it.key()] = it.value();
        return c;
    };
    std::vector<Sentence> trainView;
    for (const auto &it : *train)
        trainView.push_back(it.sentence);
    std::mt19937 rng(recipe.seed + static_cast<unsigned>(startEpoch) * 7919u);
    const auto t0 = std::chrono::steady_clock::now();
    for (int epoch = startEpoch; epoch < recipe.epochs; ++epoch) {
        net->train();
        auto batches = lengthBatches(trainView, recipe.batchWords, &rng);
        double lossSum = 0.0;
        long words = 0;
        const auto e0 = std::chrono::steady_clock::now();
        for (std::size_t bi = 0; bi < batches.size(); ++bi) {
            if (control && control->isCancelled())
                return Error{"cancelled (the last checkpoint is kept; resume with --resume)"};
            Batch b = makeBatch(*train, batches[bi], v, cfg, true, &rng);
            auto scores = net->forward(b.words, b.chars, b.tags, b.lengths, b.sb, b.si, b.sj, true);
            auto loss = torch::nn::functional::cross_entropy(scores, b.gold);
            for (auto &p : params)
                if (p.value().grad().defined())
                    p.value().mutable_grad().zero_();
            loss.backward();
            adam.update(params, lr, recipe.beta1, recipe.beta2, recipe.clipNorm);
            lossSum += loss.item<double>();
            for (int i : batches[bi])
                words += static_cast<long>((*train)[static_cast<std::size_t>(i)].sentence.tokens.size());
            if (onProgress && (bi % 10 == 0 || bi + 1 == batches.size())) {
                ConstTrainProgress p;
                p.epoch = epoch + 1;
                p.epochs = recipe.epochs;
                p.batch = static_cast<int>(bi + 1);
                p.batches = static_cast<int>(batches.size());
                p.loss = lossSum / static_cast<double>(bi + 1);
                p.elapsedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                p.wordsPerSecond = static_cast<double>(words) /
                                   std::max(1e-9, std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count());
                p.bestDevF1 = bestF1;
                onProgress(p);
            }
        }
        std::vector<Item> pred = *dev;
        if (auto s = predict(net, v, cfg, pred, 3000, nullptr); !s)
            return s;
        const double f1 = labelledF1(*dev, pred);
        const bool better = f1 > bestF1;
        if (better) {
            bestF1 = f1;
            sinceBest = 0;
            ModelFile out;
            out.configJson = modelConfig({{"dev_gold_tags_f1", f1}, {"epoch", epoch + 1}}).dump();
            out.vocab = v.words.items;
            out.tensors = netTensors(net);
            if (auto s = saveModelFile(recipe.output, out, storage); !s)
                return s;
        } else {
            ++sinceBest;
        }
        if ((epoch + 1) % recipe.decayEvery == 0)
            lr *= recipe.lrDecay;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        writeLog({{"epoch", epoch + 1}, {"loss", lossSum / static_cast<double>(std::max<std::size_t>(1, batches.size()))},
                  {"dev_labelled_f1", f1}, {"best_dev_f1", bestF1}, {"lr", lr}, {"elapsed_seconds", elapsed}, {"saved", better}});
        if (onProgress) {
            ConstTrainProgress p;
            p.epoch = epoch + 1;
            p.epochs = recipe.epochs;
            p.batch = p.batches = static_cast<int>(batches.size());
            p.loss = lossSum / static_cast<double>(std::max<std::size_t>(1, batches.size()));
            p.devF1 = f1;
            p.bestDevF1 = bestF1;
            p.elapsedSeconds = elapsed;
            p.message = better ? "best so far: model saved" : "";
            onProgress(p);
        }
        if (!recipe.checkpoint.empty()) {
            ModelFile ck;
            ck.configJson = modelConfig({{"state",
                                          {{"epoch", epoch + 1},
                                           {"best_dev_f1", bestF1},
                                           {"lr", lr},
                                           {"since_best", sinceBest},
                                           {"step", adam.step}}}})
                                .dump();
            ck.vocab = v.words.items;
            for (auto &[k, t] : netTensors(net))
                ck.tensors["param." + k] = t;
            adam.save(ck.tensors);
            if (auto s = saveModelFile(recipe.checkpoint, ck, DType::F32); !s)
                return s;
        }
        if (sinceBest >= recipe.patience)
            break;
    }

    // Final report: the best model, with gold tags and (when a tagger is given)
    // with predicted tags, on dev and test.
    auto best = ConstituencyParserModel::load(recipe.output);
    if (!best)
        return best.error();
    std::unique_ptr<DependencyParserModel> tagger;
    if (!recipe.tagger.empty() && !std::filesystem::exists(recipe.tagger)) {
        // The tagger is usually trained alongside; without it the report has gold tags only.
        writeLog({{"warning", "tagger " + recipe.tagger + " not found: predicted-tag scores skipped"}});
    } else if (!recipe.tagger.empty()) {
        auto t = DependencyParserModel::load(recipe.tagger);
        if (!t)
            return t.error();
        tagger = std::move(*t);
    }
    json results;
    for (const auto &[split, files] : {std::pair<std::string, std::vector<std::string>>{"dev", recipe.dev}, {"test", recipe.test}}) {
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
                    return st;
            const auto p0 = std::chrono::steady_clock::now();
            if (auto st = (*best)->parse(input); !st)
                return st;
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
    writeLog({{"final", results}});
    auto file = loadModelFile(recipe.output);
    if (!file)
        return file.error();
    json c = json::parse(file->configJson);
    c["metrics"] = results;
    c["training"]["elapsed_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    file->configJson = c.dump();
    if (auto s = saveModelFile(recipe.output, *file, storage); !s)
        return s;
    if (onProgress) {
        ConstTrainProgress p;
        p.epoch = p.epochs = recipe.epochs;
        p.bestDevF1 = bestF1;
        p.message = "final: " + results.dump();
        onProgress(p);
    }
    return {};
}

} // namespace treelens
