#include "core/model/trainingdata.h"

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace treelens {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Entry {
    DataRole role;
    std::string key;
    std::string path;
};

DataRole roleOfKey(const std::string &key)
{
    if (key == "embeddings" || key == "lm" || key == "wordnet_dir" || key == "checkpoint" || key == "output")
        return DataRole::Unseen; // models and dictionaries, not corpora
    if (key.find("test") != std::string::npos)
        return DataRole::Test;
    if (key.find("dev") != std::string::npos)
        return DataRole::Development;
    if (key.find("train") != std::string::npos || key == "ptb_dir" || key == "pairs" || key == "positive" ||
        key == "negative")
        return DataRole::Training;
    return DataRole::Unseen;
}

/// {dir, pattern, first, last} (or ptb_dir + ptb_first/ptb_last): the files it names.
std::vector<std::string> numberedFiles(const std::string &dir, const std::string &pattern, long first, long last)
{
    std::vector<std::string> out;
    for (long k = first; k <= last && k - first < 100000; ++k) {
        char name[256];
        std::snprintf(name, sizeof name, pattern.c_str(), static_cast<int>(k));
        out.push_back((fs::path(dir) / name).string());
    }
    return out;
}

void collect(const std::string &key, const json &v, std::vector<Entry> &out)
{
    const DataRole role = roleOfKey(key);
    if (role == DataRole::Unseen)
        return;
    if (v.is_string()) {
        out.push_back({role, key, v.get<std::string>()});
    } else if (v.is_array()) {
        for (const auto &e : v)
            collect(key, e, out);
    } else if (v.is_object() && v.contains("dir") && v.contains("pattern") && v.contains("first") && v.contains("last")) {
        try {
            for (auto &f : numberedFiles(v.at("dir").get<std::string>(), v.at("pattern").get<std::string>(),
                                         v.at("first").get<long>(), v.at("last").get<long>()))
                out.push_back({role, key, std::move(f)});
        } catch (const std::exception &) {
        }
    }
}

std::vector<Entry> recipeEntries(const json &data)
{
    std::vector<Entry> out;
    for (auto it = data.begin(); it != data.end(); ++it) {
        if (it.key() == "ptb_dir" && it.value().is_string()) {
            const long first = data.value("ptb_first", 1L), last = data.value("ptb_last", 0L);
            for (auto &f : numberedFiles(it.value().get<std::string>(), "wsj_%04d.mrg", first, last))
                out.push_back({DataRole::Training, "ptb_dir", std::move(f)});
            continue;
        }
        collect(it.key(), it.value(), out);
    }
    return out;
}

std::string canonicalText(const fs::path &p)
{
    std::error_code ec;
    if (!fs::exists(p, ec))
        return {};
    const fs::path c = fs::weakly_canonical(p, ec);
    return ec ? std::string() : c.string();
}

/// The last two components of a path, without a trailing separator ("rte/rte3_dev.xml").
std::string tail(std::string path)
{
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    const fs::path p(path);
    return (p.parent_path().filename() / p.filename()).string();
}

bool sameCorpus(const std::string &entry, const std::string &corpus, const std::string &modelDir)
{
    // The recipe's paths are the trainer's: where it ran, often on another machine. Two paths
    // that end in the same folder and name ("rte/rte3_dev.xml") name the same corpus (a copy
    // of a corpus is the same data); a path that resolves here to the same file does too.
    if (tail(entry) == tail(corpus))
        return true;
    const std::string target = canonicalText(corpus);
    if (target.empty())
        return false;
    for (const fs::path &base : {fs::path(), fs::path(modelDir)}) {
        const fs::path candidate = fs::path(entry).is_absolute() || base.empty() ? fs::path(entry) : base / entry;
        if (canonicalText(candidate) == target)
            return true;
    }
    return false;
}

std::string testFigure(const json &training)
{
    const auto test = training.find("test");
    if (test == training.end() || !test->is_object())
        return {};
    for (const char *k : {"accuracy", "map", "f1"})
        if (test->contains(k) && test->at(k).is_number()) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "; its test %s: %.3f", k, test->at(k).get<double>());
            return buf;
        }
    return {};
}

} // namespace

const char *dataRoleName(DataRole role)
{
    switch (role) {
    case DataRole::Training: return "training";
    case DataRole::Development: return "development";
    case DataRole::Test: return "test";
    case DataRole::Unseen: break;
    }
    return "unseen";
}

DataUse corpusUseByModel(const std::string &configJson, const std::string &modelPath, const std::string &corpusPath)
{
    DataUse use;
    json config;
    try {
        config = json::parse(configJson);
    } catch (const std::exception &) {
        return use;
    }
    if (!config.is_object() || !config.contains("training") || !config["training"].is_object())
        return use;
    const json &training = config["training"];
    const json *data = nullptr;
    if (training.contains("recipe") && training["recipe"].is_object() && training["recipe"].contains("data") &&
        training["recipe"]["data"].is_object())
        data = &training["recipe"]["data"];
    if (!data)
        return use;
    const std::string modelDir = fs::path(modelPath).parent_path().string();
    // Training outranks development outranks test: a file used for both is training data.
    for (const Entry &e : recipeEntries(*data)) {
        if (!sameCorpus(e.path, corpusPath, modelDir))
            continue;
        if (use.role == DataRole::Unseen || static_cast<int>(e.role) < static_cast<int>(use.role)) {
            use.role = e.role;
            use.entry = e.path;
            use.key = e.key;
        }
    }
    std::string name = config.value("name", std::string());
    if (name.empty())
        name = fs::path(modelPath).stem().string();
    if (use.role == DataRole::Training)
        use.note = name + " was trained on this data (its recipe's " + use.key + ": " + use.entry + testFigure(training) +
                   "): figures on it measure fit, not generalisation";
    else if (use.role == DataRole::Development)
        use.note = name + " was chosen on this data (its recipe's " + use.key + ": " + use.entry + testFigure(training) +
                   "): figures on it are optimistic";
    return use;
}

} // namespace treelens
