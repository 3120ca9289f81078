// morphtagger: the LEMMA/FEATS tagger and its trainer (see morphtagger.h).
#include "core/parsing/neural/morphtagger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/base/fileio.h"
#include "core/eval/morpheval.h"
#include "core/formats/conllu.h"
#include "core/model/modelfile.h"
#include "core/parsing/lemmarules.h"
#include "core/parsing/neural/common.h"
#include "core/training/trainer.h"

namespace treelens {

using nlohmann::json;

// ---------------------------------------------------------------- config

Status MorphTaggerConfig::validate() const
{
    if (auto s = validateEncoder("morph-tagger config"); !s)
        return s;
    if (lemmaRulesMinCount < 1 || lemmaRulesMinCount > 1000)
        return makeError("morph-tagger config", "lemma_rules_min_count must be 1..1000");
    if (!(lexiconMinShare == 0.0 || (lexiconMinShare > 0.5 && lexiconMinShare <= 1.0)))
        return makeError("morph-tagger config", "lexicon_min_share must be 0 (no lexicon) or in (0.5, 1]");
    return {};
}

std::string MorphTaggerConfig::toJson() const
{
    return encoderJson(json{{"lemma_rules_min_count", lemmaRulesMinCount}, {"lexicon_min_share", lexiconMinShare}}.dump());
}

Result<MorphTaggerConfig> MorphTaggerConfig::fromJson(const std::string &text)
{
    try {
        const auto j = json::parse(text);
        MorphTaggerConfig c;
        c.readEncoder(text);
        c.lemmaRulesMinCount = j.value("lemma_rules_min_count", c.lemmaRulesMinCount);
        c.lexiconMinShare = j.value("lexicon_min_share", c.lexiconMinShare);
        if (auto s = c.validate(); !s)
            return s.error();
        return c;
    } catch (const std::exception &e) {
        return makeError("morph-tagger config", e.what());
    }
}

namespace {

using namespace neural;

constexpr int kInferenceBatchWords = 1000;
/// Character ids framing every word (after <pad>, <unk>, <root>).
constexpr int kBow = 3, kEow = 4;
/// The lemma rules tried per word, best first, before falling back to the lower-cased form.
constexpr int kRulesTried = 5;

std::string featsOf(const Token &t) { return t.feats.empty() ? "_" : t.feats; }

// ---------------------------------------------------------------- vocabularies

struct Vocabs {
    Vocab words, chars, upos, feats, rules;

    json toJson() const
    {
        return {{"words", words.items}, {"chars", chars.items}, {"upos", upos.items}, {"feats", feats.items}, {"lemma_rules", rules.items}};
    }
    static Result<Vocabs> fromJson(const json &j)
    {
        Vocabs v;
        try {
            v.words = Vocab::from(j.at("words").get<std::vector<std::string>>());
            v.chars = Vocab::from(j.at("chars").get<std::vector<std::string>>());
            v.upos = Vocab::from(j.at("upos").get<std::vector<std::string>>());
            v.feats = Vocab::from(j.at("feats").get<std::vector<std::string>>());
            v.rules = Vocab::from(j.at("lemma_rules").get<std::vector<std::string>>());
        } catch (const std::exception &e) {
            return makeError("morph-tagger vocabularies", e.what());
        }
        if (v.words.items.size() < 3 || v.chars.items.size() < 5 || v.upos.items.size() < 2 || v.feats.items.size() < 2 ||
            v.rules.items.size() < 2)
            return makeError("morph-tagger vocabularies", "too small");
        return v;
    }
};

Vocabs buildVocabs(const std::vector<Sentence> &train, int minCount, int ruleMinCount)
{
    Vocabs v;
    for (const char *s : {"<pad>", "<unk>", "<root>"})
        v.words.add(s);
    for (const char *s : {"<pad>", "<unk>", "<root>", "<bow>", "<eow>"})
        v.chars.add(s);
    v.upos.add("<pad>");
    v.feats.add("<pad>");
    v.rules.add("<pad>");
    addWordsAndChars(v.words, v.chars, train, minCount);
    std::map<std::string, int> ruleCounts;
    for (const auto &s : train)
        for (const auto &t : s.tokens) {
            v.upos.add(t.upos.empty() ? "_" : t.upos);
            v.feats.add(featsOf(t));
            if (!t.lemma.empty() && !t.text.empty())
                ++ruleCounts[deriveLemmaRule(t.text, t.lemma)];
        }
    for (const auto &[rule, count] : ruleCounts)
        if (count >= ruleMinCount)
            v.rules.add(rule);
    return v;
}

/// Form (as written) -> lemma, for the training forms whose most frequent lemma has at
/// least `minShare` of their occurrences. Built from the training data in every run
/// (a resumed one included); not a learned parameter.
using Lexicon = std::map<std::string, std::string>;

Lexicon buildLexicon(const std::vector<Sentence> &train, double minShare)
{
    Lexicon out;
    if (minShare <= 0.0)
        return out;
    std::map<std::string, std::map<std::string, int>> counts;
    for (const auto &s : train)
        for (const auto &t : s.tokens)
            if (!t.text.empty() && !t.lemma.empty() && t.lemma != "_")
                ++counts[t.text][t.lemma];
    for (const auto &[form, lemmas] : counts) {
        int total = 0, best = 0;
        const std::string *lemma = nullptr;
        for (const auto &[l, n] : lemmas) {
            total += n;
            if (n > best) {
                best = n;
                lemma = &l;
            }
        }
        if (lemma && static_cast<double>(best) >= minShare * static_cast<double>(total))
            out.emplace(form, *lemma);
    }
    return out;
}

json lexiconJson(const Lexicon &lexicon)
{
    json out = json::array();
    for (const auto &[form, lemma] : lexicon)
        out.push_back({form, lemma});
    return out;
}

Lexicon lexiconFromJson(const json &j)
{
    Lexicon out;
    if (j.is_array())
        for (const auto &e : j)
            if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string())
                out.emplace(e[0].get<std::string>(), e[1].get<std::string>());
    return out;
}

// ---------------------------------------------------------------- network

struct NetImpl : torch::nn::Module {
    MorphTaggerConfig cfg;
    torch::nn::Embedding wordEmb{nullptr}, charEmb{nullptr};
    torch::nn::Conv1d charConv{nullptr};
    torch::nn::LSTM lstm{nullptr};
    torch::nn::Linear uposOut{nullptr}, featsOut{nullptr}, lemmaOut{nullptr};

    NetImpl(const MorphTaggerConfig &c, int nWords, int nChars, int nUpos, int nFeats, int nRules) : cfg(c)
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
        uposOut = register_module("upos_out", torch::nn::Linear(h, nUpos));
        featsOut = register_module("feats_out", torch::nn::Linear(h, nFeats));
        // Lemma rules depend on the word's own characters first: the classifier
        // sees them directly, beside the word's context.
        lemmaOut = register_module("lemma_out", torch::nn::Linear(h + c.charFilters, nRules));
    }

    struct Out {
        torch::Tensor upos, feats, lemma; ///< [B, T, classes]
    };

    Out forward(const torch::Tensor &words, const torch::Tensor &chars, const torch::Tensor &lengths, bool train)
    {
        const auto B = words.size(0), T = words.size(1);
        auto w = wordEmb(words);
        auto c = charEmb(chars.view({B * T, -1})).transpose(1, 2);
        c = torch::tanh(std::get<0>(charConv(c).max(2))).view({B, T, -1});
        auto x = torch::dropout(torch::cat({w, c}, 2), cfg.dropout, train);
        auto packed = torch::nn::utils::rnn::pack_padded_sequence(x, lengths, true, false);
        auto out = std::get<0>(lstm->forward_with_packed_input(packed));
        auto h = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(out, true, 0.0, T));
        h = torch::dropout(h, cfg.dropout, train);
        Out o;
        o.upos = uposOut(h);
        o.feats = featsOut(h);
        o.lemma = lemmaOut(torch::cat({h, torch::dropout(c, cfg.dropout, train)}, 2));
        return o;
    }
};
TORCH_MODULE(Net);

// ---------------------------------------------------------------- batches

struct Batch {
    torch::Tensor words, chars, lengths, upos, feats, rules, mask;
};

Batch makeBatch(const std::vector<Sentence> &sentences, const std::vector<int> &index, const Vocabs &v,
                const MorphTaggerConfig &cfg, bool withGold, std::mt19937_64 *wordDropoutRng)
{
    const auto B = static_cast<std::int64_t>(index.size());
    std::int64_t T = 1, C = 3;
    for (int i : index) {
        const auto &s = sentences[static_cast<std::size_t>(i)];
        T = std::max<std::int64_t>(T, static_cast<std::int64_t>(s.tokens.size()));
        for (const auto &t : s.tokens)
            C = std::max<std::int64_t>(C, static_cast<std::int64_t>(clippedChars(t.text, cfg.maxWordChars).size()) + 2);
    }
    const auto n2 = static_cast<std::size_t>(B * T);
    std::vector<std::int64_t> words(n2, kPad), chars(n2 * static_cast<std::size_t>(C), kPad), lengths(static_cast<std::size_t>(B)),
        upos(n2, 0), feats(n2, 0), rules(n2, 0);
    std::vector<std::uint8_t> mask(n2, 0);
    std::bernoulli_distribution drop(cfg.wordDropout);
    for (std::int64_t bi = 0; bi < B; ++bi) {
        const Sentence &s = sentences[static_cast<std::size_t>(index[static_cast<std::size_t>(bi)])];
        const auto n = static_cast<std::int64_t>(s.tokens.size());
        lengths[static_cast<std::size_t>(bi)] = std::max<std::int64_t>(n, 1);
        for (std::int64_t t = 0; t < n; ++t) {
            const Token &tok = s.tokens[static_cast<std::size_t>(t)];
            const auto pos = static_cast<std::size_t>(bi * T + t);
            std::int64_t *row = &chars[pos * static_cast<std::size_t>(C)];
            const bool dropped = wordDropoutRng && drop(*wordDropoutRng);
            row[0] = kBow;
            words[pos] = encodeWord(tok.text, v.words, v.chars, cfg.maxWordChars, dropped, row + 1);
            row[clippedChars(tok.text, cfg.maxWordChars).size() + 1] = kEow;
            mask[pos] = 1;
            if (withGold) {
                upos[pos] = v.upos.get(tok.upos.empty() ? "_" : tok.upos, 0);
                feats[pos] = v.feats.get(featsOf(tok), 0);
                rules[pos] = tok.lemma.empty() || tok.text.empty() ? 0 : v.rules.get(deriveLemmaRule(tok.text, tok.lemma), 0);
            }
        }
    }
    auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    Batch b;
    b.words = torch::from_blob(words.data(), {B, T}, i64).clone();
    b.chars = torch::from_blob(chars.data(), {B, T, C}, i64).clone();
    b.lengths = torch::from_blob(lengths.data(), {B}, i64).clone();
    b.upos = torch::from_blob(upos.data(), {B, T}, i64).clone();
    b.feats = torch::from_blob(feats.data(), {B, T}, i64).clone();
    b.rules = torch::from_blob(rules.data(), {B, T}, i64).clone();
    b.mask = torch::from_blob(mask.data(), {B, T}, torch::TensorOptions().dtype(torch::kUInt8)).clone().to(torch::kBool);
    return b;
}

torch::Tensor lossOf(const NetImpl::Out &o, const Batch &b)
{
    const auto m = b.mask;
    auto ce = [&](const torch::Tensor &scores, const torch::Tensor &gold) {
        // Class 0 (padding) also marks gold values unseen in training (rare rules): no loss there.
        return torch::nn::functional::cross_entropy(scores.index({m}), gold.index({m}),
                                                    torch::nn::functional::CrossEntropyFuncOptions().ignore_index(0));
    };
    return ce(o.upos, b.upos) + ce(o.feats, b.feats) + ce(o.lemma, b.rules);
}

/// The lemma of `form`: the first of its best rules (`ranked`, best first) that applies to it.
std::string lemmaOf(const std::string &form, const torch::TensorAccessor<std::int64_t, 1> &ranked, const Vocabs &v)
{
    for (std::int64_t k = 0; k < ranked.size(0); ++k) {
        const auto r = static_cast<std::size_t>(ranked[k]);
        if (r == 0 || r >= v.rules.items.size())
            continue;
        if (auto lemma = applyLemmaRule(v.rules.items[r], form))
            return *lemma;
    }
    return lowerCaseWord(form);
}

/// Tags `sentences` in place (LEMMA, FEATS, and UPOS when `withUpos`); lemmas of the
/// forms in `lexicon` come from it.
Status predict(Net &net, const Vocabs &v, const Lexicon &lexicon, const MorphTaggerConfig &cfg,
               std::vector<Sentence> &sentences, bool withUpos, int batchWords, const RunControl *control, int workers = 0)
{
    torch::NoGradGuard ng;
    net->eval();
    const auto batches = lengthBatches(sentences, batchWords, nullptr);
    std::atomic<std::size_t> done{0};
    auto one = [&](std::size_t k) -> Status {
        const auto &idx = batches[batches.size() - 1 - k];
        Batch b = makeBatch(sentences, idx, v, cfg, false, nullptr);
        auto o = net->forward(b.words, b.chars, b.lengths, false);
        auto upos = o.upos.argmax(2), feats = o.feats.argmax(2);
        auto ranked = std::get<1>(o.lemma.topk(std::min<std::int64_t>(kRulesTried, o.lemma.size(2)), 2)).contiguous();
        auto ua = upos.accessor<std::int64_t, 2>(), fa = feats.accessor<std::int64_t, 2>();
        auto la = ranked.accessor<std::int64_t, 3>();
        for (std::size_t bi = 0; bi < idx.size(); ++bi) {
            Sentence &s = sentences[static_cast<std::size_t>(idx[bi])];
            for (std::size_t t = 0; t < s.tokens.size(); ++t) {
                auto &tok = s.tokens[t];
                const auto bl = static_cast<long>(bi), tl = static_cast<long>(t);
                const auto f = static_cast<std::size_t>(fa[bl][tl]);
                tok.feats = f > 0 && f < v.feats.items.size() ? v.feats.items[f] : "_";
                const auto known = lexicon.find(tok.text);
                tok.lemma = known != lexicon.end() ? known->second : lemmaOf(tok.text, la[bl][tl], v);
                if (withUpos) {
                    const auto u = static_cast<std::size_t>(ua[bl][tl]);
                    tok.upos = u > 0 && u < v.upos.items.size() ? v.upos.items[u] : "X";
                }
            }
        }
        const std::size_t d = done += idx.size();
        if (control)
            control->report(d, sentences.size(), "tagging");
        return {};
    };
    return runBatches(batches.size(), workers, control, one);
}

Result<std::vector<Sentence>> readTagged(const std::string &path)
{
    auto text = readFile(path);
    if (!text)
        return text.error();
    auto s = readConllu(*text, path);
    if (!s)
        return s.error();
    std::vector<Sentence> out;
    for (auto &x : *s)
        if (!x.tokens.empty())
            out.push_back(std::move(x));
    if (out.empty())
        return makeError(path, "no sentence");
    return out;
}

std::vector<Sentence> stripped(const std::vector<Sentence> &gold)
{
    std::vector<Sentence> out = gold;
    for (auto &s : out)
        for (auto &t : s.tokens) {
            t.lemma = "_";
            t.feats = "_";
            t.upos.clear();
        }
    return out;
}

json scoresJson(const MorphCounts &c)
{
    auto r = [](double v) { return std::round(v * 10000.0) / 100.0; };
    return {{"ufeats", r(c.accuracy(c.ufeats))}, {"lemmas", r(c.accuracy(c.lemmas))}, {"upos", r(c.accuracy(c.upos))},
            {"words", c.words}};
}

// ---------------------------------------------------------------- inference model

class LoadedTagger : public MorphTaggerModel {
public:
    LoadedTagger(MorphTaggerConfig cfg, Vocabs v, Lexicon lexicon, Net net, std::string name, std::string config, int workers)
        : m_cfg(cfg), m_vocabs(std::move(v)), m_lexicon(std::move(lexicon)), m_net(std::move(net)), m_name(std::move(name)),
          m_config(std::move(config)), m_workers(workers)
    {
    }
    Status tag(std::vector<Sentence> &sentences, const RunControl *control) override
    {
        return predict(m_net, m_vocabs, m_lexicon, m_cfg, sentences, false, kInferenceBatchWords, control, m_workers);
    }
    std::string name() const override { return m_name; }
    std::string configJson() const override { return m_config; }

private:
    MorphTaggerConfig m_cfg;
    Vocabs m_vocabs;
    Lexicon m_lexicon;
    Net m_net;
    std::string m_name;
    std::string m_config;
    int m_workers = 1;
};

Net makeNet(const MorphTaggerConfig &cfg, const Vocabs &v)
{
    return Net(cfg, static_cast<int>(v.words.items.size()), static_cast<int>(v.chars.items.size()),
               static_cast<int>(v.upos.items.size()), static_cast<int>(v.feats.items.size()),
               static_cast<int>(v.rules.items.size()));
}

} // namespace

Result<std::unique_ptr<MorphTaggerModel>> MorphTaggerModel::load(const std::string &path, int threads)
{
    auto f = ParserFile<MorphTaggerConfig, Vocabs>::read(path, "morph-tagger");
    if (!f)
        return f.error();
    Net net = makeNet(f->model, f->vocabs);
    if (auto s = loadNetTensors(net, f->file.tensors, path); !s)
        return s.error();
    net->eval();
    Lexicon lexicon = lexiconFromJson(f->config.value("lemma_lexicon", json::array()));
    return std::unique_ptr<MorphTaggerModel>(new LoadedTagger(f->model, std::move(f->vocabs), std::move(lexicon), net,
                                                              f->config.value("name", std::string("morph-tagger")),
                                                              f->file.configJson, inferenceWorkers(threads)));
}

namespace {

/// The tagger as a training::TrainTask: model, batching, metric.
class MorphTaggerTask : public ParserTask<Net> {
public:
    Result<training::DataSummary> prepare(const TrainRecipe &recipe, const ModelFile *resume,
                                          const torch::Device &device) override
    {
        m_recipe = recipe;
        auto cfg = MorphTaggerConfig::fromJson(recipe.modelJson);
        if (!cfg)
            return cfg.error();
        m_cfg = *cfg;
        const json options = json::parse(recipe.optionsJson);
        auto train = readTagged(recipe.data.train.front());
        if (!train)
            return train.error();
        auto dev = readTagged(recipe.data.dev.front());
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
            m_vocabs = buildVocabs(m_trainSentences, options.value("word_min_count", 2), m_cfg.lemmaRulesMinCount);
        }
        m_lexicon = buildLexicon(m_trainSentences, m_cfg.lexiconMinShare);
        m_net = makeNet(m_cfg, m_vocabs);
        if (auto s = placeNet(device, resume); !s)
            return s.error();
        return dataSummary("sentences", m_dev.size(),
                           std::to_string(m_vocabs.feats.items.size() - 1) + " FEATS values, " +
                               std::to_string(m_vocabs.rules.items.size() - 1) + " lemma rules",
                           {{"word_types", m_vocabs.words.items.size()},
                            {"feats_classes", m_vocabs.feats.items.size() - 1},
                            {"lemma_rules", m_vocabs.rules.items.size() - 1},
                            {"lexicon_forms", m_lexicon.size()}});
    }

    Result<training::StepResult> trainStep(int epoch, long batch, std::mt19937_64 &rng) override
    {
        const auto &index = batchAt(epoch, batch);
        m_net->train();
        Batch b = makeBatch(m_trainSentences, index, m_vocabs, m_cfg, true, &rng);
        auto o = m_net->forward(b.words, b.chars, b.lengths, true);
        training::StepResult r;
        r.loss = lossOf(o, b);
        r.units = static_cast<double>(b.mask.sum().item<long>());
        return r;
    }

    Result<training::DevResult> evaluate() override
    {
        std::vector<Sentence> pred = m_devInput;
        if (auto s = predict(m_net, m_vocabs, m_lexicon, m_cfg, pred, true, 4000, nullptr); !s)
            return s.error();
        const MorphCounts c = scoreMorphology(m_dev, pred);
        training::DevResult r;
        r.value = 50.0 * (c.accuracy(c.ufeats) + c.accuracy(c.lemmas));
        r.detailsJson = scoresJson(c).dump();
        char buf[128];
        std::snprintf(buf, sizeof buf, "UFeats %.2f Lemmas %.2f UPOS %.2f", 100.0 * c.accuracy(c.ufeats),
                      100.0 * c.accuracy(c.lemmas), 100.0 * c.accuracy(c.upos));
        r.summary = buf;
        return r;
    }

    std::string metricName() const override { return "UFeats/Lemmas mean"; }

    ModelFile snapshot(const training::SnapshotInfo &info) override
    {
        return parserSnapshot({{"family", "morph-tagger"},
                               {"name", m_recipe.name},
                               {"task", "morphological-tagging"},
                               {"model", json::parse(m_cfg.toJson())},
                               {"vocabularies", m_vocabs.toJson()}},
                              info,
                              {{"dev", json::parse(info.dev.detailsJson)}, {"epoch", info.epoch}, {"lemma_lexicon", lexiconJson(m_lexicon)}},
                              m_vocabs.words.items);
    }

    /// The saved (best) model on dev and test (gold tokenization); the scores go into the model file.
    Result<std::string> finish(const TrainRecipe &recipe, double elapsedSeconds) override
    {
        auto best = MorphTaggerModel::load(recipe.output);
        if (!best)
            return best.error();
        json results;
        for (const auto &[split, files] : {std::pair<std::string, std::vector<std::string>>{"dev", recipe.data.dev},
                                           {"test", recipe.data.test}}) {
            if (files.empty())
                continue;
            auto gold = readTagged(files.front());
            if (!gold)
                return gold.error();
            std::vector<Sentence> pred = stripped(*gold);
            for (std::size_t i = 0; i < pred.size(); ++i)
                for (std::size_t t = 0; t < pred[i].tokens.size(); ++t)
                    pred[i].tokens[t].upos = (*gold)[i].tokens[t].upos; // the tagger keeps UPOS: score it as given
            const auto p0 = std::chrono::steady_clock::now();
            if (auto s = (*best)->tag(pred); !s)
                return s.error();
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
            json r = scoresJson(scoreMorphology(*gold, pred));
            r.erase("upos");
            r["sentences_per_second"] = std::round(static_cast<double>(gold->size()) / secs);
            results[split] = r;
        }
        if (auto s = storeFinalMetrics(recipe, results, elapsedSeconds); !s)
            return s.error();
        return "final: " + results.dump();
    }

private:
    MorphTaggerConfig m_cfg;
    Vocabs m_vocabs;
    Lexicon m_lexicon;
    std::vector<Sentence> m_dev, m_devInput;
};

Status validateRecipe(const TrainRecipe &r)
{
    const std::string what = "morph-tagger recipe";
    if (r.data.train.size() != 1 || r.data.dev.size() != 1)
        return makeError(what, "\"train\" and \"dev\" CoNLL-U files are required (one each)");
    if (r.data.test.size() > 1)
        return makeError(what, "\"test\" is one CoNLL-U file");
    if (auto s = validateParserRecipe(r, what, {}); !s)
        return s;
    auto m = MorphTaggerConfig::fromJson(r.modelJson);
    return m ? Status() : Status(m.error());
}

} // namespace

training::TrainerFamily morphTaggerTrainer()
{
    training::TrainerFamily f;
    f.name = "morph-tagger";
    f.description = "LEMMA (lemma rules) + FEATS tagger beside the parsers (CoNLL-U train/dev)";
    f.defaults = parserRecipeDefaults(f.name, "tagger-morph-en-ewt", MorphTaggerConfig{}.toJson());
    f.defaults.schedule.decayEvery = 5;
    f.defaults.epochs = 30;
    f.defaults.batchWords = 2000;
    f.validate = validateRecipe;
    f.create = [] { return std::unique_ptr<training::TrainTask>(new MorphTaggerTask()); };
    return f;
}

} // namespace treelens
