// recipe: the one training recipe, its checks and its JSON form (see recipe.h).
#include "core/training/recipe.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/base/jsonstrict.h"

namespace treelens {

using nlohmann::json;

namespace {

Status bad(const std::string &what) { return makeError("recipe", what); }

bool oneOf(const std::string &v, std::initializer_list<const char *> allowed)
{
    for (const char *a : allowed)
        if (v == a)
            return true;
    return false;
}

std::string resolvePath(const std::string &p, const std::string &baseDir)
{
    if (p.empty() || p[0] == '/' || baseDir.empty())
        return p;
    return (std::filesystem::path(baseDir) / p).lexically_normal().string();
}

/// A path, a list of paths, or {"dir", "pattern", "first", "last"}.
Result<std::vector<std::string>> fileList(const json &v, const std::string &baseDir, const std::string &key)
{
    std::vector<std::string> out;
    if (v.is_null())
        return out;
    if (v.is_string()) {
        if (!v.get<std::string>().empty())
            out.push_back(resolvePath(v.get<std::string>(), baseDir));
    } else if (v.is_array()) {
        for (const auto &x : v) {
            if (!x.is_string())
                return makeError("recipe", "\"" + key + "\" lists something that is not a path");
            out.push_back(resolvePath(x.get<std::string>(), baseDir));
        }
    } else if (v.is_object()) {
        const std::string dir = resolvePath(v.at("dir").get<std::string>(), baseDir);
        const std::string pattern = v.value("pattern", std::string("wsj_%04d.mrg"));
        const int first = v.at("first").get<int>(), last = v.at("last").get<int>();
        if (first > last || last - first > 100000 || first < 0)
            return makeError("recipe", "\"" + key + "\": bad file range " + std::to_string(first) + ".." + std::to_string(last));
        if (pattern.find('%') == std::string::npos || pattern.find('%') != pattern.rfind('%') || pattern.find('/') != std::string::npos)
            return makeError("recipe", "\"" + key + "\": the pattern must hold exactly one %d-style field and no '/'");
        for (int k = first; k <= last; ++k) {
            char name[256];
            std::snprintf(name, sizeof name, pattern.c_str(), k);
            out.push_back(dir + "/" + name);
        }
    } else {
        return makeError("recipe", "\"" + key + "\" must be a path, a list of paths or a file range");
    }
    return out;
}

json parseObject(const std::string &text, const char *what)
{
    json j = json::parse(text.empty() ? std::string("{}") : text);
    if (!j.is_object())
        throw std::runtime_error(std::string(what) + " must be a JSON object");
    return j;
}

void readOptimizer(const json &o, OptimizerConfig &c)
{
    c.kind = o.value("kind", c.kind);
    c.lr = o.value("lr", c.lr);
    c.beta1 = o.value("beta1", c.beta1);
    c.beta2 = o.value("beta2", c.beta2);
    c.eps = o.value("eps", c.eps);
    c.weightDecay = o.value("weight_decay", c.weightDecay);
    c.momentum = o.value("momentum", c.momentum);
    c.initialAccumulator = o.value("initial_accumulator", c.initialAccumulator);
    c.clipNorm = o.value("clip_norm", c.clipNorm);
}

void readSchedule(const json &o, ScheduleConfig &c)
{
    c.kind = o.value("kind", c.kind);
    c.warmup = o.value("warmup", c.warmup);
    c.decay = o.value("decay", c.decay);
    c.decayEvery = o.value("decay_every", c.decayEvery);
}

} // namespace

Status OptimizerConfig::validate() const
{
    if (!oneOf(kind, {"adam", "adamw", "adagrad", "rmsprop"}))
        return bad("optimizer '" + kind + "' is not adam, adamw, adagrad or rmsprop");
    if (!(lr > 0.0 && lr < 10.0))
        return bad("lr must be in (0, 10)");
    if (!(beta1 >= 0.0 && beta1 < 1.0) || !(beta2 >= 0.0 && beta2 < 1.0))
        return bad("beta1 and beta2 must be in [0, 1)");
    if (!(eps > 0.0 && eps < 1.0))
        return bad("eps must be in (0, 1)");
    if (!(weightDecay >= 0.0 && weightDecay < 1.0) || !(momentum >= 0.0 && momentum < 1.0))
        return bad("weight_decay and momentum must be in [0, 1)");
    if (!(initialAccumulator >= 0.0) || !(clipNorm >= 0.0) || !std::isfinite(initialAccumulator) || !std::isfinite(clipNorm))
        return bad("initial_accumulator and clip_norm must be finite and >= 0");
    return {};
}

Status ScheduleConfig::validate() const
{
    if (!oneOf(kind, {"constant", "warmup-constant", "step", "noam", "linear"}))
        return bad("schedule '" + kind + "' is not constant, warmup-constant, step, noam or linear");
    if (warmup < 0)
        return bad("warmup must be >= 0");
    if (!(decay > 0.0 && decay <= 1.0) || decayEvery < 1)
        return bad("lr_decay must be in (0, 1], decay_every >= 1");
    return {};
}

double ScheduleConfig::rate(double peak, long step, int epoch, long totalSteps) const
{
    const double s = static_cast<double>(std::max(step, 1L));
    const double w = static_cast<double>(warmup);
    if (kind == "step")
        return peak * std::pow(decay, static_cast<double>(epoch / decayEvery));
    if ((kind == "noam" || kind == "linear" || kind == "warmup-constant") && warmup > 0 && s < w)
        return peak * s / w;
    if (kind == "noam")
        return warmup > 0 ? peak * std::sqrt(w / s) : peak;
    if (kind == "linear" && totalSteps > 0) {
        const double rest = static_cast<double>(totalSteps) - std::max(w, 0.0);
        return rest > 0 ? peak * std::max(0.0, (static_cast<double>(totalSteps) - s) / rest) : peak;
    }
    return peak;
}

Status TrainRecipe::validate() const
{
    if (family.empty())
        return bad("\"family\" is missing");
    if (output.empty())
        return bad("\"output\" (the model file to write) is missing");
    if (auto s = optimizer.validate(); !s)
        return s;
    if (auto s = schedule.validate(); !s)
        return s;
    if (epochs < 0 || epochs > 100000 || steps < 0)
        return bad("epochs must be 0..100000 and steps >= 0");
    if (epochs == 0 && steps == 0)
        return bad("set \"epochs\" or \"steps\"");
    if (batchSize < 0 || batchWords < 0 || (batchSize == 0 && batchWords == 0))
        return bad("set \"batch_size\" (sentences) or \"batch_words\"");
    if (patience < 0 || evalEvery < 0 || checkpointEvery < 0 || logEvery < 1)
        return bad("patience, eval_every and checkpoint_every must be >= 0, log_every >= 1");
    if (!oneOf(keep, {"best", "last"}))
        return bad("keep must be best or last");
    if (precision != "fp32")
        return bad("precision '" + precision + "': training runs in fp32 only");
    if (!oneOf(storage, {"f32", "f16", "bf16"}))
        return bad("storage must be f32, f16 or bf16");
    if (threads < 0 || threads > 1024)
        return bad("threads must be 0..1024");
    if (!(device == "auto" || device == "cpu" || device == "cuda" || device.rfind("cuda:", 0) == 0))
        return bad("device must be auto, cpu, cuda or cuda:N");
    return {};
}

Result<TrainRecipe> TrainRecipe::fromJson(const std::string &text, const std::string &baseDir, const TrainRecipe &defaults)
{
    static const std::set<std::string> topKeys = {"family", "name", "output", "checkpoint", "log", "data", "model",
                                                  "training", "options",
                                                  // earlier versions' places of the same things
                                                  "train", "dev", "test", "validation", "validation_sentences", "tagger",
                                                  "storage", "vocab"};
    static const std::set<std::string> trainingKeys = {
        "seed", "epochs", "steps", "batch_size", "batch_words", "patience", "eval_every", "checkpoint_every", "log_every",
        "keep", "precision", "storage", "threads", "device", "optimizer", "schedule",
        // flat optimiser and schedule keys of earlier versions
        "lr", "beta1", "beta2", "eps", "weight_decay", "momentum", "initial_accumulator", "clip_norm", "warmup",
        "lr_decay", "decay_every"};
    try {
        auto parsed = parseJsonStrict(text, "recipe");
        if (!parsed)
            return parsed.error();
        if (auto st = checkJsonIntegers(*parsed, "recipe"); !st)
            return st.error();
        const json j = std::move(*parsed);
        if (!j.is_object())
            return makeError("recipe", "not a JSON object");
        for (auto it = j.begin(); it != j.end(); ++it)
            if (!topKeys.count(it.key()))
                return makeError("recipe", "unknown key \"" + it.key() + "\"");
        TrainRecipe r = defaults;
        r.family = j.value("family", r.family);
        r.name = j.value("name", r.name);
        auto path = [&](const char *key, std::string &dest) {
            if (j.contains(key) && !j[key].is_null())
                dest = resolvePath(j[key].get<std::string>(), baseDir);
        };
        path("output", r.output);
        path("checkpoint", r.checkpoint);
        path("log", r.log);

        json data = j.value("data", json::object());
        if (!data.is_object())
            return makeError("recipe", "\"data\" must be an object");
        for (const char *key : {"train", "dev", "test", "tagger"})
            if (j.contains(key))
                data[key] = j[key];
        if (j.contains("validation"))
            data["dev"] = j["validation"];
        json extra = parseObject(defaults.data.extraJson, "data");
        for (auto it = data.begin(); it != data.end(); ++it) {
            const std::string &key = it.key();
            if (key == "train" || key == "dev" || key == "test") {
                auto files = fileList(it.value(), baseDir, key);
                if (!files)
                    return files.error();
                (key == "train" ? r.data.train : key == "dev" ? r.data.dev : r.data.test) = std::move(*files);
            } else if (it.value().is_string()) {
                extra[key] = resolvePath(it.value().get<std::string>(), baseDir);
            } else if (it.value().is_array() || (it.value().is_object() && it.value().contains("dir"))) {
                auto files = fileList(it.value(), baseDir, key); // a family's own file list
                if (!files)
                    return files.error();
                extra[key] = *files;
            } else {
                extra[key] = it.value();
            }
        }
        r.data.extraJson = extra.dump();

        if (j.contains("model")) {
            if (!j["model"].is_object())
                return makeError("recipe", "\"model\" must be an object");
            json model = parseObject(defaults.modelJson, "model");
            model.merge_patch(j["model"]);
            r.modelJson = model.dump();
        }
        json options = parseObject(defaults.optionsJson, "options");
        if (j.contains("options")) {
            if (!j["options"].is_object())
                return makeError("recipe", "\"options\" must be an object");
            options.merge_patch(j["options"]);
        }
        if (j.contains("validation_sentences"))
            options["validation_sentences"] = j["validation_sentences"];
        if (j.contains("vocab"))
            options["vocab"] = j["vocab"];

        const json t = j.value("training", json::object());
        if (!t.is_object())
            return makeError("recipe", "\"training\" must be an object");
        r.seed = t.value("seed", r.seed);
        r.epochs = t.value("epochs", r.epochs);
        r.steps = t.value("steps", r.steps);
        r.batchSize = t.value("batch_size", r.batchSize);
        r.batchWords = t.value("batch_words", r.batchWords);
        r.patience = t.value("patience", r.patience);
        r.evalEvery = t.value("eval_every", r.evalEvery);
        r.checkpointEvery = t.value("checkpoint_every", r.checkpointEvery);
        r.logEvery = t.value("log_every", r.logEvery);
        r.keep = t.value("keep", r.keep);
        r.precision = t.value("precision", r.precision);
        r.storage = j.value("storage", r.storage);
        r.storage = t.value("storage", r.storage);
        r.threads = t.value("threads", r.threads);
        r.device = t.value("device", r.device);
        // Earlier versions: optimiser and schedule keys flat in "training".
        {
            const std::string kind = r.optimizer.kind;
            readOptimizer(t, r.optimizer);
            r.optimizer.kind = kind; // a name only comes from "optimizer"
        }
        r.schedule.warmup = t.value("warmup", r.schedule.warmup);
        r.schedule.decay = t.value("lr_decay", r.schedule.decay);
        r.schedule.decayEvery = t.value("decay_every", r.schedule.decayEvery);
        if (t.contains("lr_decay") && !t.contains("schedule") && r.schedule.kind == "constant")
            r.schedule.kind = "step";
        // An earlier masked-LM recipe's weight decay was decoupled (AdamW).
        if (!t.contains("optimizer") && r.optimizer.weightDecay > 0 && r.optimizer.kind == "adam")
            r.optimizer.kind = "adamw";
        if (t.contains("optimizer")) {
            if (t["optimizer"].is_string())
                r.optimizer.kind = t["optimizer"].get<std::string>();
            else if (t["optimizer"].is_object())
                readOptimizer(t["optimizer"], r.optimizer);
            else
                return makeError("recipe", "\"optimizer\" must be a name or an object");
        }
        if (t.contains("schedule")) {
            if (t["schedule"].is_string())
                r.schedule.kind = t["schedule"].get<std::string>();
            else if (t["schedule"].is_object())
                readSchedule(t["schedule"], r.schedule);
            else
                return makeError("recipe", "\"schedule\" must be a name or an object");
        }
        // Any other "training" key is a family option of an earlier recipe (mask_prob, word_min_count, ...).
        for (auto it = t.begin(); it != t.end(); ++it)
            if (!trainingKeys.count(it.key()))
                options[it.key()] = it.value();
        r.optionsJson = options.dump();
        return r;
    } catch (const std::exception &e) {
        return makeError("recipe", e.what());
    }
}

std::string TrainRecipe::toJson() const
{
    json files = json::parse(data.extraJson.empty() ? std::string("{}") : data.extraJson);
    files["train"] = data.train;
    files["dev"] = data.dev;
    files["test"] = data.test;
    json j;
    j["family"] = family;
    j["name"] = name;
    j["output"] = output;
    j["checkpoint"] = checkpoint;
    j["log"] = log;
    j["data"] = files;
    j["model"] = json::parse(modelJson.empty() ? std::string("{}") : modelJson);
    j["training"] = {{"seed", seed},
                     {"epochs", epochs},
                     {"steps", steps},
                     {"batch_size", batchSize},
                     {"batch_words", batchWords},
                     {"patience", patience},
                     {"eval_every", evalEvery},
                     {"checkpoint_every", checkpointEvery},
                     {"log_every", logEvery},
                     {"keep", keep},
                     {"precision", precision},
                     {"storage", storage},
                     {"threads", threads},
                     {"device", device},
                     {"optimizer",
                      {{"kind", optimizer.kind},
                       {"lr", optimizer.lr},
                       {"beta1", optimizer.beta1},
                       {"beta2", optimizer.beta2},
                       {"eps", optimizer.eps},
                       {"weight_decay", optimizer.weightDecay},
                       {"momentum", optimizer.momentum},
                       {"initial_accumulator", optimizer.initialAccumulator},
                       {"clip_norm", optimizer.clipNorm}}},
                     {"schedule",
                      {{"kind", schedule.kind},
                       {"warmup", schedule.warmup},
                       {"decay", schedule.decay},
                       {"decay_every", schedule.decayEvery}}}};
    j["options"] = json::parse(optionsJson.empty() ? std::string("{}") : optionsJson);
    return j.dump(2);
}

Status requireBatchSize(const TrainRecipe &recipe)
{
    if (recipe.batchSize < 1)
        return makeError("recipe", "training.batch_size must be at least 1");
    return {};
}

Status requirePairCorpus(const TrainRecipe &recipe)
{
    if (recipe.data.train.empty())
        return makeError("recipe", "data.train names no pair corpus");
    return {};
}

} // namespace treelens
