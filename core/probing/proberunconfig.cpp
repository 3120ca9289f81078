// proberunconfig: the configuration of a probing run and its task / layer lists;
// see proberunconfig.h.
#include "core/probing/proberunconfig.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "core/base/numbering.h"
#include "core/base/strings.h"
#include "core/probing/probetasks.h"

namespace treelens {

namespace {

std::string lower(std::string s)
{
    for (auto &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// Comma-separated items, blanks around them trimmed, empty items dropped.
std::vector<std::string> splitList(const std::string &text)
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : text + ",") {
        if (c == ',') {
            const auto b = cur.find_first_not_of(" \t");
            const auto e = cur.find_last_not_of(" \t");
            if (b != std::string::npos)
                out.push_back(cur.substr(b, e - b + 1));
            cur.clear();
        } else {
            cur += c;
        }
    }
    return out;
}

/// The canonical name of a structural or attention task's alias ("" = none).
std::string canonicalAlias(const std::string &t)
{
    if (t == "distance" || t == "structural_distance")
        return "structural-distance";
    if (t == "depth" || t == "structural_depth")
        return "structural-depth";
    if (t == "head_accuracy")
        return "head-accuracy";
    if (t == "constituent_mass")
        return "constituent-mass";
    if (t == "attention_mst" || t == "mst-uuas")
        return "attention-mst";
    if (t == "link_probs" || t == "link-probabilities")
        return "link-probs";
    if (t == "unsupervised_parsing" || t == "induction" || t == "parsing-f1" || t == "unsupervised-parsing-f1")
        return "unsupervised-parsing";
    return t;
}

} // namespace

const std::vector<std::string> &probeRunSentenceTasks()
{
    static const std::vector<std::string> v = {"sentlen", "sentlen-bins", "treedepth", "topconst"};
    return v;
}

const std::vector<std::string> &probeRunStructuralTasks()
{
    static const std::vector<std::string> v = {"structural-distance", "structural-depth"};
    return v;
}

const std::vector<std::string> &probeRunAttentionTasks()
{
    static const std::vector<std::string> v = {"head-accuracy", "constituent-mass", "attention-mst", "link-probs",
                                               "unsupervised-parsing"};
    return v;
}

Result<std::vector<std::string>> parseProbeRunTasks(const std::string &text)
{
    std::vector<std::string> all = probeRunSentenceTasks();
    all.insert(all.end(), probeRunStructuralTasks().begin(), probeRunStructuralTasks().end());
    all.insert(all.end(), probeRunAttentionTasks().begin(), probeRunAttentionTasks().end());
    std::set<std::string> chosen;
    const auto items = splitList(text);
    if (items.empty())
        return Error{"tasks: no task given (expected " + join(all, ", ") + " or all)"};
    for (const auto &raw : items) {
        const std::string t = lower(raw);
        if (t == "all") {
            chosen.insert(all.begin(), all.end());
            continue;
        }
        if (auto p = parseProbeTask(t)) {
            chosen.insert(probeTaskName(*p));
            continue;
        }
        const std::string canon = canonicalAlias(t);
        if (std::find(all.begin(), all.end(), canon) == all.end())
            return Error{"tasks: unknown task '" + raw + "' (expected " + join(all, ", ") + " or all)"};
        chosen.insert(canon);
    }
    std::vector<std::string> out;
    for (const auto &t : all)
        if (chosen.count(t))
            out.push_back(t);
    return out;
}

Result<std::vector<int>> parseProbeRunLayers(const std::string &text, int layers)
{
    std::vector<int> out;
    if (lower(text) == "all") {
        for (int l = 0; l <= layers; ++l)
            out.push_back(l);
        return out;
    }
    const std::string range = "(embeddings and 1.." + std::to_string(layers) + ")";
    std::set<int> seen;
    for (const auto &item : splitList(text)) {
        int v = 0;
        if (lower(item) == kEmbeddingsLayerName || item == "0") { // "0": the old spelling
            v = 0;
        } else if (!parseInt(item, v)) {
            return Error{"layers: '" + item + "' is not a layer (expected all, or a list such as embeddings,2,4)"};
        } else if (v < 0) {
            return Error{"layers: layer " + item + ": layers are numbered from 1 " + range};
        } else if (v > layers) {
            return Error{"layers: layer " + item + ": the model has " + std::to_string(layers) + " layers " + range};
        }
        if (seen.insert(v).second)
            out.push_back(v);
    }
    if (out.empty())
        return Error{"layers: no layer given"};
    std::sort(out.begin(), out.end());
    return out;
}

std::string probeRunLayersNote(const std::string &text)
{
    for (const auto &item : splitList(text))
        if (item == "0")
            return "layers: 0 is the old spelling of embeddings (the encoder layers are numbered from 1)";
    return {};
}

Status ProbeRunConfig::validate() const
{
    if (auto t = parseProbeRunTasks(tasks); !t)
        return t.error();
    if (hasDevSplit() && !hasTestSplit())
        return Error{"a dev split needs a test split (with a training split alone the corpus is split 0.8/0.1/0.1)"};
    if (depthMinCount < 1)
        return Error{"depth min count must be at least 1"};
    if (encoderBatch < 1)
        return Error{"encoder batch must be at least 1"};
    if (auto s = sentenceProbeOptions(*this).validate(); !s)
        return s;
    return structuralProbeOptions(*this).validate();
}

namespace {

/// The options both kinds of probe take from the run's configuration.
template <class Options>
Options commonProbeOptions(const ProbeRunConfig &config)
{
    Options o;
    o.device = config.probeDevice == "auto" ? "cpu" : config.probeDevice;
    o.seed = config.seed;
    o.threads = 1;
    if (config.epochs > 0)
        o.maxEpochs = config.epochs;
    if (config.patience >= 0)
        o.patience = config.patience;
    if (config.lr > 0)
        o.learningRate = config.lr;
    if (config.batch > 0)
        o.batchSize = config.batch;
    return o;
}

} // namespace

ProbeTrainOptions sentenceProbeOptions(const ProbeRunConfig &config)
{
    auto o = commonProbeOptions<ProbeTrainOptions>(config);
    o.architecture = config.probe == "linear" ? ProbeArchitecture::Linear : ProbeArchitecture::Mlp;
    return o;
}

StructuralProbeOptions structuralProbeOptions(const ProbeRunConfig &config)
{
    auto o = commonProbeOptions<StructuralProbeOptions>(config);
    o.rank = config.rank;
    return o;
}

} // namespace treelens
