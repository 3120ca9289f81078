// runfeaturefile: a probing run's features written apart and read back; see runfeaturefile.h.
#include "core/probing/runfeaturefile.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/base/numbering.h"


namespace treelens {

using nlohmann::json;

namespace {

bool littleEndian()
{
    const std::uint32_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

const char *const kValues = "float32 little-endian";

json identityJson(const InputIdentity &id) { return json{{"path", id.path}, {"size", id.size}, {"crc32", id.crc32}}; }

InputIdentity identityOf(const json &j)
{
    return InputIdentity{j.at("path").get<std::string>(), j.at("size").get<std::uint64_t>(), j.at("crc32").get<std::string>()};
}

std::string layerList(const std::vector<int> &layers)
{
    std::string s;
    for (int l : layers)
        s += (s.empty() ? "" : ",") + probedLayerName(l);
    return s;
}

/// The vectors of one layer of one encoder, in the record's order.
std::size_t floatsPerLayer(const ProbeFeatureLayout &l, std::size_t words)
{
    return static_cast<std::size_t>(l.dim) * ((l.cls ? 1 : 0) + (l.mean ? 1 : 0) + (l.words ? words : 0));
}

} // namespace

std::size_t ProbeFeatureLayout::sentences() const
{
    std::size_t n = 0;
    for (const auto &s : splits)
        n += s.second;
    return n;
}

std::size_t ProbeFeatureLayout::recordBytes(std::size_t words) const
{
    return (randomInit ? 2 : 1) * layers.size() * floatsPerLayer(*this, words) * sizeof(float);
}

std::string ProbeFeatureLayout::line() const
{
    json vectors = json::array();
    if (cls)
        vectors.push_back("cls");
    if (mean)
        vectors.push_back("mean");
    if (words)
        vectors.push_back("words");
    json encoders = json::array({"model"});
    if (randomInit)
        encoders.push_back("random-init");
    json j{{"model", identityJson(model)},   {"family", family},   {"input", identityJson(input)},
           {"splits", splits},               {"layers", layers},   {"dim", dim},
           {"vectors", vectors},             {"encoders", encoders}, {"random_init_seed", randomInitSeed},
           {"encoder_batch", encoderBatch},  {"precision", precision}, {"values", kValues}};
    if (!where.empty())
        j["where"] = where;
    return kProbeFeaturesLine + j.dump() + "\n";
}

Result<ProbeFeatureLayout> parseProbeFeatureLayout(const std::string &line)
{
    const std::string head = kProbeFeaturesLine;
    if (line.compare(0, head.size(), head) != 0)
        return Error{"not a probe features file (it does not start with '" + head + "{…}')"};
    ProbeFeatureLayout l;
    try {
        const json j = json::parse(line.substr(head.size()));
        if (j.at("values").get<std::string>() != kValues)
            return Error{"values of another kind (" + j.at("values").get<std::string>() + ")"};
        l.model = identityOf(j.at("model"));
        l.family = j.at("family").get<std::string>();
        l.input = identityOf(j.at("input"));
        l.splits = j.at("splits").get<std::vector<std::pair<std::string, std::size_t>>>();
        l.layers = j.at("layers").get<std::vector<int>>();
        l.dim = j.at("dim").get<int>();
        for (const auto &v : j.at("vectors")) {
            const auto s = v.get<std::string>();
            if (s != "cls" && s != "mean" && s != "words")
                return Error{"unknown vector '" + s + "'"};
            (s == "cls" ? l.cls : s == "mean" ? l.mean : l.words) = true;
        }
        for (const auto &e : j.at("encoders")) {
            const auto s = e.get<std::string>();
            if (s == "random-init")
                l.randomInit = true;
            else if (s != "model")
                return Error{"unknown encoder '" + s + "'"};
        }
        l.randomInitSeed = j.at("random_init_seed").get<unsigned>();
        l.encoderBatch = j.at("encoder_batch").get<int>();
        l.precision = j.at("precision").get<std::string>();
        l.where = j.value("where", std::string());
    } catch (const std::exception &e) {
        return Error{std::string("its first line is not readable: ") + e.what()};
    }
    if (l.dim <= 0 || l.dim > (1 << 20))
        return Error{"dim " + std::to_string(l.dim) + " is out of range"};
    if (!std::is_sorted(l.layers.begin(), l.layers.end()) ||
        std::adjacent_find(l.layers.begin(), l.layers.end()) != l.layers.end() ||
        std::any_of(l.layers.begin(), l.layers.end(), [](int x) { return x < 0 || x > 4096; }))
        return Error{"its layers are not increasing layer numbers"};
    return l;
}

std::string probeFeatureMismatch(const ProbeFeatureLayout &have, const ProbeFeatureLayout &wanted)
{
    if (!sameContent(have.model, wanted.model))
        return "they are another model's (" + have.model.path + ", CRC-32 " + have.model.crc32 + "; this run's is " +
               wanted.model.path + ", CRC-32 " + wanted.model.crc32 + ")";
    if (!sameContent(have.input, wanted.input))
        return "they are of another corpus (" + have.input.path + ", CRC-32 " + have.input.crc32 + "; this run reads " +
               wanted.input.path + ", CRC-32 " + wanted.input.crc32 + ")";
    if (have.where != wanted.where) // the same counts could hold other sentences
        return "they were extracted " + (have.where.empty() ? std::string("without --where") : "with --where " + have.where) +
               ", this run " + (wanted.where.empty() ? std::string("has none") : "has --where " + wanted.where);
    if (have.splits != wanted.splits) {
        auto text = [](const ProbeFeatureLayout &l) {
            std::string s;
            for (const auto &[name, n] : l.splits)
                s += (s.empty() ? "" : ", ") + name + " " + std::to_string(n);
            return s;
        };
        return "their sentences are cut otherwise (" + text(have) + "; this run has " + text(wanted) + ")";
    }
    if (have.dim != wanted.dim)
        return "their vectors have " + std::to_string(have.dim) + " values, the model's " + std::to_string(wanted.dim);
    for (int l : wanted.layers)
        if (std::find(have.layers.begin(), have.layers.end(), l) == have.layers.end())
            return "they hold the layers " + layerList(have.layers) + ", not " +
                   (l == 0 ? std::string("embeddings") : "layer " + std::to_string(l)) + " (--layers)";
    if (wanted.cls && !have.cls)
        return "they hold no [CLS] vectors (extracted without cls pooling)";
    if (wanted.mean && !have.mean)
        return "they hold no sentence vectors (extracted without a sentence task)";
    if (wanted.words && !have.words)
        return "they hold no word states (extracted without a structural task)";
    if (wanted.randomInit && !have.randomInit)
        return "they hold no random-init encoder's features (extracted without --random-init or --baselines)";
    if (wanted.randomInit && have.randomInitSeed != wanted.randomInitSeed)
        return "their random-init encoder has seed " + std::to_string(have.randomInitSeed) + ", this run's " +
               std::to_string(wanted.randomInitSeed) + " (--seed)";
    return "";
}

std::vector<const Sentence *> probeSentences(const ProbeData &data)
{
    std::vector<const Sentence *> out;
    out.reserve(data.size());
    data.forEach([&](const Sentence &s) { out.push_back(&s); });
    return out;
}

std::vector<std::size_t> probeFeatureBlockStarts(const ProbeData &data, std::size_t block)
{
    block = std::max<std::size_t>(1, block);
    std::vector<std::size_t> starts;
    std::size_t at = 0;
    for (const auto *split : {&data.corpus, &data.train, &data.dev, &data.test}) {
        std::size_t inBlock = 0; // sentences with words in the current block
        for (std::size_t i = 0; i < split->size(); ++i, ++at) {
            const bool words = !(*split)[i].tokens.empty();
            if (i == 0 || (words && inBlock == block)) {
                starts.push_back(at);
                inBlock = 0;
            }
            if (words)
                ++inBlock;
        }
    }
    return starts;
}

Status appendProbeFeatureRecord(std::string &out, const ProbeFeatureLayout &layout, std::size_t index,
                                const std::vector<ProbeFeatures> &encoders, std::size_t k, std::size_t words)
{
    if (!littleEndian())
        return Error{"features files hold little-endian floats: this machine is big-endian"};
    if (encoders.size() != (layout.randomInit ? 2u : 1u))
        return Error{"the features of " + std::to_string(encoders.size()) + " encoders for a layout of " +
                     std::to_string(layout.randomInit ? 2 : 1)};
    const std::size_t bytes = layout.recordBytes(words);
    const std::string head = std::to_string(index) + " " + std::to_string(bytes) + "\n";
    const std::size_t at = out.size();
    out.resize(at + head.size() + bytes + 1);
    char *dst = out.data() + at;
    std::memcpy(dst, head.data(), head.size());
    dst += head.size();
    auto put = [&](const float *src, std::size_t n) {
        std::memcpy(dst, src, n * sizeof(float));
        dst += n * sizeof(float);
    };
    const std::size_t d = static_cast<std::size_t>(layout.dim);
    for (const ProbeFeatures &f : encoders) {
        if (f.dim != layout.dim)
            return Error{"the encoder's states have " + std::to_string(f.dim) + " values, not " + std::to_string(layout.dim)};
        for (int l : layout.layers) {
            const auto L = static_cast<std::size_t>(l);
            if (layout.cls)
                put(f.cls.at(L).data.data() + k * d, d);
            if (layout.mean)
                put(f.mean.at(L).data.data() + k * d, d);
            if (layout.words)
                put(f.words.at(L).data.data() + static_cast<std::size_t>(f.wordOffset.at(k)) * d, words * d);
        }
    }
    *dst = '\n';
    return {};
}

Result<ProbeFeatureFile> ProbeFeatureFile::open(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot be read"};
    std::string first;
    if (!std::getline(in, first) || in.eof())
        return Error{path + ": not a probe features file (no first line)"};
    if (first.rfind(kShardLine, 0) == 0)
        return Error{path + ": one shard's features: join the shards first (treelens-cli merge SHARD... -o FEATURES)"};
    auto layout = parseProbeFeatureLayout(first);
    if (!layout)
        return Error{path + ": " + layout.message(), layout.code()};
    ProbeFeatureFile f;
    f.m_path = path;
    f.m_layout = std::move(*layout);
    f.m_bodyBegin = first.size() + 1;
    return f;
}

Result<ProbeSplitFeatures> ProbeFeatureFile::load(const ProbeRunContext &ctx, const ProbeData &data, bool randomInit,
                                                  const FeatureOptions &options, const std::string &what) const
{
    const ProbeFeatureLayout &l = m_layout;
    if (!littleEndian())
        return Error{m_path + ": features files hold little-endian floats: this machine is big-endian"};
    if (randomInit && !l.randomInit)
        return Error{m_path + ": it holds no random-init encoder's features"};
    std::vector<int> layers = options.layers.empty() ? l.layers : options.layers;
    std::sort(layers.begin(), layers.end());
    for (int x : layers)
        if (std::find(l.layers.begin(), l.layers.end(), x) == l.layers.end())
            return Error{m_path + ": it does not hold layer " + std::to_string(x)};
    const bool wantCls = options.sentenceVectors && l.cls, wantMean = options.sentenceVectors && l.mean;
    if (options.sentenceVectors && !l.cls && !l.mean)
        return Error{m_path + ": it holds no sentence vectors"};
    if (options.wordVectors && !l.words)
        return Error{m_path + ": it holds no word states"};
    const std::size_t total = data.size();
    if (total != l.sentences())
        return Error{m_path + ": it holds " + std::to_string(l.sentences()) + " sentences, this run has " + std::to_string(total)};

    // The ProbeFeatures of each split, shaped as extractFeatures() shapes them.
    ProbeSplitFeatures out;
    std::vector<std::pair<const std::vector<Sentence> *, ProbeFeatures *>> parts;
    if (data.oneCorpus)
        parts = {{&data.corpus, &out.train}};
    else
        parts = {{&data.train, &out.train}, {&data.dev, &out.dev}, {&data.test, &out.test}};
    const int L = l.layers.empty() ? 0 : l.layers.back();
    for (auto &[sentences, f] : parts) {
        f->layers = std::max(L, f->layers);
        f->dim = l.dim;
        f->sentences = sentences->size();
        f->hasCls = wantCls;
        f->keptLayers = layers;
        f->cls.resize(static_cast<std::size_t>(L) + 1);
        f->mean.resize(static_cast<std::size_t>(L) + 1);
        f->words.resize(static_cast<std::size_t>(L) + 1);
        const int n = static_cast<int>(sentences->size());
        if (options.wordVectors) {
            f->wordOffset.assign(sentences->size() + 1, 0);
            for (std::size_t s = 0; s < sentences->size(); ++s)
                f->wordOffset[s + 1] = f->wordOffset[s] + static_cast<int>((*sentences)[s].tokens.size());
        }
        for (int x : layers) {
            const auto X = static_cast<std::size_t>(x);
            if (wantMean)
                f->mean[X] = Matrix(n, l.dim);
            if (wantCls)
                f->cls[X] = Matrix(n, l.dim);
            if (options.wordVectors)
                f->words[X] = Matrix(f->wordOffset.back(), l.dim);
        }
        for (std::size_t s = 0; s < sentences->size(); ++s)
            if ((*sentences)[s].tokens.empty())
                f->emptySentences.push_back(static_cast<int>(s));
    }

    std::ifstream in(m_path, std::ios::binary);
    if (!in)
        return Error{m_path + ": cannot be read"};
    in.seekg(static_cast<std::streamoff>(m_bodyBegin));
    RunControl rc = ctx.progressControl(what);
    const std::size_t d = static_cast<std::size_t>(l.dim);
    std::vector<float> values;
    std::size_t index = 0;
    for (auto &[sentences, f] : parts) {
        for (std::size_t s = 0; s < sentences->size(); ++s, ++index) {
            const std::string where = m_path + ": sentence " + std::to_string(index + 1);
            std::string head;
            if (!std::getline(in, head))
                return Error{m_path + ": it ends after " + std::to_string(index) + " of its " + std::to_string(total) + " sentences"};
            std::size_t got = 0, bytes = 0;
            char extra = 0;
            if (std::sscanf(head.c_str(), "%zu %zu%c", &got, &bytes, &extra) != 2 || got != index)
                return Error{where + ": not the record of sentence " + std::to_string(index) + " ('" + head.substr(0, 40) + "')"};
            const std::size_t words = (*sentences)[s].tokens.size();
            if (bytes != l.recordBytes(words))
                return Error{where + ": " + std::to_string(bytes) + " bytes, not the " + std::to_string(l.recordBytes(words)) +
                             " of a sentence of " + std::to_string(words) + " words (the file is of another corpus)"};
            values.resize(bytes / sizeof(float));
            char nl = 0;
            if (!in.read(reinterpret_cast<char *>(values.data()), static_cast<std::streamsize>(bytes)) || !in.get(nl) || nl != '\n')
                return Error{where + ": its record is cut short"};
            // Encoder e, layer x, vectors cls, mean, words in that order.
            const std::size_t perLayer = floatsPerLayer(l, words);
            const std::size_t e = randomInit ? 1 : 0;
            for (std::size_t li = 0; li < l.layers.size(); ++li) {
                const auto X = static_cast<std::size_t>(l.layers[li]);
                if (std::find(layers.begin(), layers.end(), l.layers[li]) == layers.end())
                    continue;
                const float *src = values.data() + (e * l.layers.size() + li) * perLayer;
                if (l.cls) {
                    if (wantCls)
                        std::copy(src, src + d, f->cls[X].data.begin() + static_cast<std::ptrdiff_t>(s * d));
                    src += d;
                }
                if (l.mean) {
                    if (wantMean)
                        std::copy(src, src + d, f->mean[X].data.begin() + static_cast<std::ptrdiff_t>(s * d));
                    src += d;
                }
                if (l.words && options.wordVectors)
                    std::copy(src, src + words * d,
                              f->words[X].data.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(f->wordOffset[s]) * d));
            }
            if (rc.progress && (index + 1) % 4096 == 0)
                rc.progress(index + 1, total, "read");
            if (ctx.cancelled())
                return cancelledError();
        }
    }
    if (in.peek() != std::char_traits<char>::eof())
        return Error{m_path + ": it holds more than the " + std::to_string(total) + " sentences of this run"};
    if (rc.progress)
        rc.progress(total, total, "read");
    return out;
}

} // namespace treelens
