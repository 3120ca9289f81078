// proberun: one probing run over a corpus (TreeLens issue 6); see proberun.h.
//
// Wires together core/probing (probetasks.h: the sentence-level datasets,
// splits, control tasks and majority baselines; probes.h: features per layer,
// MLP/linear and structural probes; attentiontree.h: per layer × head agreement
// of the attention with gold trees). Everything is seeded: two runs with the same
// configuration on one machine give the same numbers (timings are kept apart
// under "timing" in the JSON). `treelens-cli probe` and the GUI probing panel
// both run this.
#include "core/probing/proberun.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/strings.h"
#include "core/encoders/encoder.h"
#include "core/encoders/common/randominit.h"
#include "core/formats/corpus.h"
#include "core/parsing/headrules.h"
#include "core/parsing/neuralparser.h"
#include "core/parsing/parser.h"
#include "core/probing/attentiontree.h"
#include "core/probing/probes.h"
#include "core/eval/inductioneval.h"
#include "core/probing/probetasks.h"

namespace treelens {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// ----------------------------------------------------------------------------
// Options
// ----------------------------------------------------------------------------

const std::vector<std::string> &kSentenceTasks = probeRunSentenceTasks();
const std::vector<std::string> &kStructuralTasks = probeRunStructuralTasks();
const std::vector<std::string> &kAttentionTasks = probeRunAttentionTasks();


bool contains(const std::vector<std::string> &v, const std::string &x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string lower(std::string s)
{
    for (auto &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

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

/// The task list in the canonical order of the help text; "all" expands.
Result<std::vector<std::string>> parseTasksImpl(const std::string &text)
{
    std::vector<std::string> all = kSentenceTasks;
    all.insert(all.end(), kStructuralTasks.begin(), kStructuralTasks.end());
    all.insert(all.end(), kAttentionTasks.begin(), kAttentionTasks.end());
    std::set<std::string> chosen;
    const auto items = splitList(text);
    if (items.empty())
        return Error{"--task: no task given (expected " + join(all, ", ") + " or all)"};
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
        std::string canon = t;
        if (t == "distance" || t == "structural_distance")
            canon = "structural-distance";
        else if (t == "depth" || t == "structural_depth")
            canon = "structural-depth";
        else if (t == "head_accuracy")
            canon = "head-accuracy";
        else if (t == "constituent_mass")
            canon = "constituent-mass";
        else if (t == "attention_mst" || t == "mst-uuas")
            canon = "attention-mst";
        else if (t == "link_probs" || t == "link-probabilities")
            canon = "link-probs";
        else if (t == "unsupervised_parsing" || t == "induction" || t == "parsing-f1" || t == "unsupervised-parsing-f1")
            canon = "unsupervised-parsing";
        if (!contains(all, canon))
            return Error{"--task: unknown task '" + raw + "' (expected " + join(all, ", ") + " or all)"};
        chosen.insert(canon);
    }
    std::vector<std::string> out;
    for (const auto &t : all)
        if (chosen.count(t))
            out.push_back(t);
    return out;
}

Result<std::vector<int>> parseLayers(const std::string &text, int L)
{
    std::vector<int> out;
    if (lower(text) == "all") {
        for (int l = 0; l <= L; ++l)
            out.push_back(l);
        return out;
    }
    std::set<int> seen;
    for (const auto &item : splitList(text)) {
        char *end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0')
            return Error{"--layers: '" + item + "' is not a layer number (expected all or a list such as 0,2,4)"};
        if (v < 0 || v > L)
            return Error{"--layers: layer " + item + " is outside 0.." + std::to_string(L) +
                         " (0 = embeddings, " + std::to_string(L) + " = the last encoder layer)"};
        if (seen.insert(static_cast<int>(v)).second)
            out.push_back(static_cast<int>(v));
    }
    if (out.empty())
        return Error{"--layers: no layer given"};
    std::sort(out.begin(), out.end());
    return out;
}

// ----------------------------------------------------------------------------
// Number formatting: JSON values are rounded to the digits the text shows, so
// "reproducible to the printed digits" holds for both.
// ----------------------------------------------------------------------------

json rounded(double v, int digits)
{
    if (!std::isfinite(v))
        return nullptr;
    const double f = std::pow(10.0, digits);
    double r = std::round(v * f) / f;
    if (r == 0.0)
        r = 0.0; // no "-0.0"
    return r;
}
json pct(double fraction) { return rounded(100.0 * fraction, 2); }
json r4(double v) { return rounded(v, 4); }

std::string fixed(double v, int digits)
{
    if (!std::isfinite(v))
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    std::string s = buf;
    if (s == "-0" || s.rfind("-0.", 0) == 0) {
        bool zero = true;
        for (char c : s.substr(1))
            zero = zero && (c == '0' || c == '.');
        if (zero)
            s = s.substr(1);
    }
    return s;
}

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The caller's callbacks and cancellation.
struct Ctx {
    const ProbeRunCallbacks &cb;
    const RunControl *control;
    void say(const std::string &line) const
    {
        if (cb.progress)
            cb.progress(line);
    }
    bool cancelled() const { return control && control->isCancelled(); }
    void curve(const std::string &task, const std::string &variant, int layer, const std::string &pooling, int epoch,
               double trainLoss, double devLoss, double devMetric) const
    {
        if (cb.curve)
            cb.curve(ProbeCurvePoint{task, variant, layer, pooling, epoch, trainLoss, devLoss, devMetric});
    }
    void finished(const std::string &task) const
    {
        if (cb.taskFinished)
            cb.taskFinished(task);
    }
};

/// One progress line, handed to the callback when the statement ends.
class Say
{
public:
    explicit Say(const Ctx &ctx) : m_ctx(ctx) {}
    ~Say() { m_ctx.say(m_s.str()); }
    template <class T> Say &operator<<(const T &v)
    {
        m_s << v;
        return *this;
    }
    Say &operator<<(std::ostream &(*)(std::ostream &)) { return *this; } // std::endl
private:
    const Ctx &m_ctx;
    std::ostringstream m_s;
};


/// Progress on stderr: one line when a stage starts to report and then at most
/// every few seconds, plus the final count.
RunControl progressControl(const Ctx &ctx, const std::string &what)
{
    RunControl rc;
    if (ctx.control)
        rc.cancelled = ctx.control->cancelled;
    auto last = std::make_shared<Clock::time_point>(Clock::now());
    auto printed = std::make_shared<bool>(false);
    rc.progress = [&ctx, what, last, printed](std::size_t done, std::size_t total, const std::string &stage) {
        const bool final = total > 0 && done >= total;
        if (!final && *printed && secondsSince(*last) < 5.0)
            return;
        if (final && !*printed && secondsSince(*last) < 1.0)
            return; // fast stages: the caller's summary line is enough
        *last = Clock::now();
        *printed = true;
        Say(ctx) << what << ": " << stage << " " << done << "/" << total;
    };
    return rc;
}

// ----------------------------------------------------------------------------
// Data
// ----------------------------------------------------------------------------

struct Data {
    bool oneCorpus = false;          ///< only --train given: one corpus cut by seededSplit
    std::vector<Sentence> corpus;    ///< oneCorpus
    std::vector<Sentence> train, dev, test; ///< given splits
    SplitIndices split;              ///< oneCorpus
    std::map<std::string, long> excluded;

    template <class F> void forEach(F f)
    {
        for (auto *v : {&corpus, &train, &dev, &test})
            for (auto &s : *v)
                f(s);
    }
    template <class F> void forEach(F f) const
    {
        for (const auto *v : {&corpus, &train, &dev, &test})
            for (const auto &s : *v)
                f(s);
    }
    std::size_t size() const { return corpus.size() + train.size() + dev.size() + test.size(); }
};

bool hasSplit(const std::vector<std::string> &files, const std::vector<Sentence> &sentences)
{
    return !files.empty() || !sentences.empty();
}

std::vector<std::string> sentenceIds(const std::vector<Sentence> &sentences)
{
    std::vector<std::string> ids;
    ids.reserve(sentences.size());
    for (const auto &s : sentences)
        ids.push_back(s.id);
    return ids;
}

/// The sentences of a split: its files, or else the sentences given in memory.
Result<std::vector<Sentence>> readSplit(const std::vector<std::string> &files, const std::vector<Sentence> &sentences,
                                        const std::string &from)
{
    if (files.empty())
        return sentences;
    std::vector<Sentence> out;
    for (const auto &f : files) {
        CorpusFormat fmt = formatFromPath(f);
        if (!from.empty()) {
            auto p = parseCorpusFormat(from);
            if (!p)
                return p.error();
            fmt = *p;
        }
        CorpusReadOptions opt;
        opt.stripTraces = true; // PTB: -NONE- traces are not words (and would disturb the head rules)
        auto r = readCorpusFile(f, fmt, opt);
        if (!r)
            return r.error();
        if (r->empty())
            return Error{f + ":1: no sentences in the input"};
        for (auto &s : *r)
            out.push_back(std::move(s));
    }
    return out;
}

/// Which trees the run uses and where they came from.
struct TreeInfo {
    std::string tree = "dependency";      ///< resolved --tree: the tree of treedepth / constituent-mass / link-probs
    std::string treeWhy;
    long constGold = 0, constPredicted = 0, constMissing = 0;
    long depGold = 0, depHeadRules = 0, depMissing = 0;
    std::string constParser;              ///< model name when trees were predicted
    std::vector<std::string> parseFailures;
    bool needConst = false, needDep = false;
    double parseSeconds = 0.0;

    std::string constituencyText() const
    {
        if (!needConst && constPredicted == 0)
            return constGold > 0 ? "gold (" + std::to_string(constGold) + " sentences)" : "none (not needed)";
        std::string t;
        if (constGold > 0)
            t += "gold (" + std::to_string(constGold) + " sentences)";
        if (constPredicted > 0)
            t += std::string(t.empty() ? "" : ", ") + "predicted by " + constParser + " (" + std::to_string(constPredicted) +
                 " sentences)";
        if (constMissing > 0)
            t += std::string(t.empty() ? "" : ", ") + "missing in " + std::to_string(constMissing) + " sentences";
        return t.empty() ? "none" : t;
    }
    std::string dependencyText() const
    {
        std::string t;
        if (depGold > 0)
            t += "gold (" + std::to_string(depGold) + " sentences)";
        if (depHeadRules > 0)
            t += std::string(t.empty() ? "" : ", ") + "from the gold constituency trees by Collins head rules (" +
                 std::to_string(depHeadRules) + " sentences; relations are only dep/punct/root)";
        if (depMissing > 0)
            t += std::string(t.empty() ? "" : ", ") + "missing in " + std::to_string(depMissing) + " sentences";
        return t.empty() ? "none" : t;
    }
};

std::string fileList(const std::vector<std::string> &files)
{
    if (files.size() <= 3)
        return join(files, ", ");
    return files.front() + " ... " + files.back() + " (" + std::to_string(files.size()) + " files)";
}

/// Parses as `treelens-cli parse --parser neural --max-words 250` does, a
/// sentence over 250 words refused (left without trees, its error in
/// `failures`); the rest in one batched parseAll. Existing trees are dropped.
Result<std::vector<Sentence>> parseNeural(Parser &parser, std::vector<Sentence> sentences, const std::string &source,
                                          std::vector<std::string> &failures)
{
    const int maxWords = 250;
    std::vector<char> refused(sentences.size(), 0);
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        Sentence &s = sentences[i];
        s.dependency.reset();
        s.constituency.reset();
        if (static_cast<int>(s.tokens.size()) > maxWords) {
            failures.push_back(source + ":" + (s.line > 0 ? std::to_string(s.line) : s.id) + ": sentence has " +
                               std::to_string(s.tokens.size()) + " words (limit " + std::to_string(maxWords) +
                               ", see --max-words)");
            refused[i] = 1;
        }
    }
    std::vector<Sentence> batch;
    batch.reserve(sentences.size());
    for (std::size_t i = 0; i < sentences.size(); ++i)
        if (!refused[i])
            batch.push_back(sentences[i]);
    auto r = parser.parseAll(batch);
    if (!r)
        return Error{source + ": " + r.message()};
    if (r->size() != batch.size())
        return Error{source + ": the parser returned " + std::to_string(r->size()) + " sentences for " +
                     std::to_string(batch.size())};
    std::size_t k = 0;
    for (std::size_t i = 0; i < sentences.size(); ++i)
        if (!refused[i])
            sentences[i] = std::move((*r)[k++]);
    return sentences;
}

/// Dependency trees from Collins head rules where a sentence has a constituency
/// tree and no dependency tree; then the constituency trees the tasks need,
/// predicted by the neural parser (only `.constituency` is taken from a parse of a
/// copy: gold dependency trees and tags stay).
Status prepareTrees(const Ctx &ctx, Data &data, const ProbeRunConfig &spec, const std::vector<std::string> &tasks, TreeInfo &info)
{
    long haveConst = 0, haveDep = 0;
    data.forEach([&](Sentence &s) {
        if (s.constituency && !s.dependency && s.constituency->wordCount() == static_cast<int>(s.tokens.size())) {
            if (auto d = toDependencies(*s.constituency, HeadRules::Collins)) {
                s.dependency = std::move(*d);
                s.setMetadata("probe.dependency", "head-rules");
            }
        }
        haveConst += s.constituency ? 1 : 0;
        haveDep += s.dependency ? 1 : 0;
    });
    const std::string files = fileList(spec.train);

    // Which tree treedepth, constituent-mass and link-probs use.
    if (spec.tree == "constituency" || spec.tree == "dependency") {
        info.tree = spec.tree;
        info.treeWhy = "--tree " + spec.tree;
    } else if (spec.treeSource == "parsed") {
        info.tree = "constituency";
        info.treeWhy = "--tree-source parsed";
    } else if (haveConst > 0) {
        info.tree = "constituency";
        info.treeWhy = "the input has constituency trees";
    } else if (haveDep > 0) {
        info.tree = "dependency";
        info.treeWhy = "the input has no constituency trees (--tree constituency predicts them)";
    } else {
        info.tree = "constituency";
        info.treeWhy = "the input has no trees";
    }
    const bool treeTasks = contains(tasks, "treedepth") || contains(tasks, "constituent-mass") || contains(tasks, "link-probs");
    info.needConst = contains(tasks, "topconst") || contains(tasks, "unsupervised-parsing") ||
                     (treeTasks && info.tree == "constituency");
    info.needDep = contains(tasks, "structural-distance") || contains(tasks, "structural-depth") ||
                   contains(tasks, "head-accuracy") || contains(tasks, "attention-mst") ||
                   (treeTasks && info.tree == "dependency");

    if (info.needDep && haveDep == 0) {
        std::string which;
        for (const auto &t : tasks)
            if (t == "structural-distance" || t == "structural-depth" || t == "head-accuracy" || t == "attention-mst" ||
                (info.tree == "dependency" && (t == "treedepth" || t == "constituent-mass" || t == "link-probs")))
                which += (which.empty() ? "" : ", ") + t;
        return Error{which + " need dependency trees, and " + files +
                     " has none (give CoNLL-U, or a PTB treebank: its dependency trees come from Collins head rules)"};
    }

    if (info.needConst) {
        std::vector<Sentence *> todo;
        data.forEach([&](Sentence &s) {
            if (!s.tokens.empty() && (spec.treeSource == "parsed" || !s.constituency))
                todo.push_back(&s);
        });
        if (!todo.empty() && spec.treeSource == "gold") {
            if (haveConst == 0) {
                std::string which = contains(tasks, "topconst") ? std::string("topconst") : std::string();
                if (contains(tasks, "unsupervised-parsing"))
                    which += std::string(which.empty() ? "" : ", ") + "unsupervised-parsing";
                for (const auto &t : {"treedepth", "constituent-mass", "link-probs"})
                    if (contains(tasks, t) && info.tree == "constituency")
                        which += std::string(which.empty() ? "" : ", ") + t + " (--tree constituency)";
                return Error{which + " needs constituency trees, and " + files +
                             " has none; --tree-source gold turns off predicting them with the neural parser "
                             "(drop --tree-source gold, or give a PTB treebank)"};
            }
            // Some sentences lack one: the tasks exclude and count them.
            todo.clear();
        }
        if (!todo.empty()) {
            const auto t0 = Clock::now();
            ParserConfig config;
            config.backend = "neural";
            config.constituencyModel = spec.constParserModel;
            config.dependencyModel = spec.depParserModel;
            if (config.constituencyModel.empty() && findShippedModel(kShippedConstituencyParser).empty())
                return Error{std::string("constituency trees are needed and the input lacks them, but the neural "
                                         "constituency parser ") + kShippedConstituencyParser +
                             " was not found (give --const-parser-model, or use --tree-source gold with a PTB treebank)"};
            auto parser = createParser(config);
            if (!parser)
                return Error{"predicting constituency trees: " + parser.message()};
            Say(ctx) << "predicting constituency trees for " << todo.size() << " sentences with the neural parser";
            std::vector<Sentence> copies;
            copies.reserve(todo.size());
            for (const auto *s : todo)
                copies.push_back(*s);
            std::vector<std::string> failures;
            auto parsed = parseNeural(**parser, std::move(copies), files, failures);
            if (!parsed)
                return Error{"predicting constituency trees: " + parsed.message()};
            for (std::size_t i = 0; i < todo.size(); ++i) {
                Sentence &p = (*parsed)[i];
                if (p.constituency && info.constParser.empty())
                    info.constParser = p.metadataValue("parser.constituency_model");
                todo[i]->constituency = std::move(p.constituency); // a sentence the parser refused is left without
                if (todo[i]->constituency)
                    todo[i]->setMetadata("probe.constituency", "predicted");
            }
            if (info.constParser.empty() && failures.size() < todo.size())
                return Error{"the neural parser gave no constituency trees (its constituency model was not loaded; "
                             "give --const-parser-model)"};
            info.parseFailures = std::move(failures);
            info.parseSeconds = secondsSince(t0);
            Say(ctx) << "parsed in " << fixed(info.parseSeconds, 1) << " s";
        }
    }

    data.forEach([&](const Sentence &s) {
        if (s.constituency)
            (s.metadataValue("probe.constituency") == "predicted" ? info.constPredicted : info.constGold) += 1;
        else
            info.constMissing += 1;
        if (s.dependency)
            (s.metadataValue("probe.dependency") == "head-rules" ? info.depHeadRules : info.depGold) += 1;
        else
            info.depMissing += 1;
    });
    return {};
}

// ----------------------------------------------------------------------------
// Encoders
// ----------------------------------------------------------------------------

// ----------------------------------------------------------------------------
// Sentence-level probes
// ----------------------------------------------------------------------------

struct Features {
    ProbeFeatures train, dev, test; ///< oneCorpus: train holds the whole corpus
};

Result<Features> extractAll(const Ctx &ctx, Encoder &encoder, const Data &data, const FeatureOptions &options, const std::string &what)
{
    Features f;
    if (data.oneCorpus) {
        RunControl rc = progressControl(ctx, what);
        auto r = extractFeatures(encoder, data.corpus, options, &rc);
        if (!r)
            return r.error();
        f.train = std::move(*r);
        return f;
    }
    const std::pair<const std::vector<Sentence> *, ProbeFeatures *> parts[] = {
        {&data.train, &f.train}, {&data.dev, &f.dev}, {&data.test, &f.test}};
    const char *names[] = {"train", "dev", "test"};
    for (int k = 0; k < 3; ++k) {
        RunControl rc = progressControl(ctx, what + " (" + names[k] + ")");
        auto r = extractFeatures(encoder, *parts[k].first, options, &rc);
        if (!r)
            return Error{std::string(names[k]) + ": " + r.message()};
        *parts[k].second = std::move(*r);
    }
    return f;
}

struct SentenceKey {
    int layer;
    std::string pooling;
    bool operator<(const SentenceKey &o) const { return layer != o.layer ? layer < o.layer : pooling < o.pooling; }
};

struct SentenceTaskResult {
    std::string name;
    ProbeDataset dataset;
    ProbeDataset control;
    std::map<SentenceKey, ProbeResult> main, controlResults, randomInit;
    double seconds = 0.0;
};

/// The options both kinds of probe take from the run's configuration.
template <class Options>
Options commonProbeOptions(const ProbeRunConfig &spec)
{
    Options o;
    o.device = spec.probeDevice == "auto" ? "cpu" : spec.probeDevice; // "auto" is resolved in runProbes
    o.seed = spec.seed;
    o.threads = 1;
    if (spec.epochs > 0)
        o.maxEpochs = spec.epochs;
    if (spec.patience >= 0)
        o.patience = spec.patience;
    if (spec.lr > 0)
        o.learningRate = spec.lr;
    if (spec.batch > 0)
        o.batchSize = spec.batch;
    return o;
}

ProbeTrainOptions sentenceOptions(const ProbeRunConfig &spec)
{
    auto o = commonProbeOptions<ProbeTrainOptions>(spec);
    o.architecture = spec.probe == "linear" ? ProbeArchitecture::Linear : ProbeArchitecture::Mlp;
    return o;
}

StructuralProbeOptions structuralOptions(const ProbeRunConfig &spec)
{
    auto o = commonProbeOptions<StructuralProbeOptions>(spec);
    o.rank = spec.rank;
    return o;
}

std::string probeSummary(const ProbeResult &r)
{
    if (r.regression)
        return "test R2 " + fixed(r.test.r2, 4) + " MSE " + fixed(r.test.mse, 3);
    return "test acc " + fixed(100 * r.test.accuracy, 2) + " F1 " + fixed(100 * r.test.macroF1, 2);
}

Status trainSentenceProbes(const Ctx &ctx, const ProbeDataset &dataset, const Features &f, bool oneCorpus,
                           const std::vector<int> &layers, const std::vector<std::string> &poolings,
                           const ProbeTrainOptions &options, const std::string &task, const std::string &variant,
                           const std::string &label, std::map<SentenceKey, ProbeResult> &out)
{
    // One corpus: the dataset's indices of every split refer to it.
    const ProbeFeatures &tr = f.train;
    const ProbeFeatures &dv = oneCorpus ? f.train : f.dev;
    const ProbeFeatures &te = oneCorpus ? f.train : f.test;
    for (int layer : layers) {
        for (const auto &pooling : poolings) {
            const auto t0 = Clock::now();
            auto inputs = probeInputs(dataset, tr, dv, te, layer, pooling == "cls" ? SentencePooling::Cls : SentencePooling::Mean);
            if (!inputs)
                return Error{label + ", layer " + std::to_string(layer) + ": " + inputs.message()};
            auto r = trainProbe(
                *inputs, options,
                [&](const ProbeEpoch &e) {
                    ctx.curve(task, variant, layer, pooling, e.epoch, e.trainLoss, e.devLoss, e.devMetric);
                },
                ctx.control);
            if (!r)
                return Error{label + ", layer " + std::to_string(layer) + " " + pooling + ": " + r.message()};
            r->testPredicted.clear();
            r->testPredictions.clear();
            Say(ctx) << "" << label << " layer " << layer << " " << pooling << ": " << probeSummary(*r)
                      << " (best epoch " << r->bestEpoch << "/" << r->curve.size() << ", " << fixed(secondsSince(t0), 1)
                      << " s)";
            out[SentenceKey{layer, pooling}] = std::move(*r);
        }
    }
    return {};
}

// ----------------------------------------------------------------------------
// Structural probes
// ----------------------------------------------------------------------------

struct StructuralTaskResult {
    std::string name;
    StructuralProbeKind kind = StructuralProbeKind::Distance;
    std::map<int, StructuralProbeResult> main, randomInit;
    std::vector<Sentence> testSentences;                  ///< the viewer's sentences (model only)
    std::map<int, std::vector<StructuralSentenceResult>> testResults; ///< layer -> results (model only)
    long examples[3] = {0, 0, 0};
    std::map<std::string, long> skipped;
    double seconds = 0.0;
};

struct SplitExamples {
    std::vector<StructuralExample> train, dev, test;
    std::map<std::string, long> skipped;
};

Result<SplitExamples> splitExamples(const Data &data, const Features &f, int layer)
{
    SplitExamples out;
    auto addSkipped = [&](const std::map<std::string, long> &m, const std::string &split) {
        for (const auto &[k, n] : m)
            out.skipped[split + "/" + k] += n;
    };
    if (data.oneCorpus) {
        auto ex = structuralExamples(data.corpus, f.train, layer);
        if (!ex)
            return ex.error();
        std::vector<char> where(data.corpus.size(), 0);
        for (int i : data.split.train) where[static_cast<std::size_t>(i)] = 1;
        for (int i : data.split.dev) where[static_cast<std::size_t>(i)] = 2;
        for (int i : data.split.test) where[static_cast<std::size_t>(i)] = 3;
        for (auto &e : ex->examples) {
            const char w = where[static_cast<std::size_t>(e.sentence)];
            (w == 1 ? out.train : w == 2 ? out.dev : out.test).push_back(std::move(e));
        }
        addSkipped(ex->skipped, "corpus");
        return out;
    }
    const std::tuple<const std::vector<Sentence> *, const ProbeFeatures *, std::vector<StructuralExample> *, const char *> parts[] = {
        {&data.train, &f.train, &out.train, "train"}, {&data.dev, &f.dev, &out.dev, "dev"}, {&data.test, &f.test, &out.test, "test"}};
    for (const auto &[sentences, feats, dest, name] : parts) {
        if (sentences->empty())
            continue;
        auto ex = structuralExamples(*sentences, *feats, layer);
        if (!ex)
            return Error{std::string(name) + ": " + ex.message()};
        *dest = std::move(ex->examples);
        addSkipped(ex->skipped, name);
    }
    return out;
}

std::size_t totalWords(const Data &data)
{
    std::size_t n = 0;
    data.forEach([&](const Sentence &s) { n += s.tokens.size(); });
    return n;
}

/// Trains the requested structural probes on every layer with one encoder.
Status runStructural(const Ctx &ctx, Encoder &encoder, const Data &data, const std::vector<int> &layers, const ProbeRunConfig &spec,
                     std::vector<StructuralTaskResult> &tasks, bool randomInit)
{
    const std::string variant = randomInit ? " (random init)" : "";
    // Word states of all layers at once when they fit comfortably, else one layer at a time.
    const double bytes = static_cast<double>(totalWords(data)) * static_cast<double>(layers.size()) *
                         static_cast<double>(encoder.info().dModel) * 4.0;
    const bool allAtOnce = bytes <= 768.0 * 1024 * 1024;
    Features all;
    FeatureOptions fo;
    fo.sentenceVectors = false;
    fo.wordVectors = true;
    fo.batchSize = spec.encoderBatch;
    if (allAtOnce) {
        fo.layers = layers;
        auto f = extractAll(ctx, encoder, data, fo, "word states" + variant);
        if (!f)
            return Error{"word states" + variant + ": " + f.message()};
        all = std::move(*f);
    }
    const StructuralProbeOptions options = structuralOptions(spec);
    for (int layer : layers) {
        Features one;
        if (!allAtOnce) {
            fo.layers = {layer};
            auto f = extractAll(ctx, encoder, data, fo, "word states" + variant + ", layer " + std::to_string(layer));
            if (!f)
                return Error{"word states" + variant + ": " + f.message()};
            one = std::move(*f);
        }
        auto ex = splitExamples(data, allAtOnce ? all : one, layer);
        if (!ex)
            return Error{"structural probe examples: " + ex.message()};
        for (auto &task : tasks) {
            const auto t0 = Clock::now();
            if (!randomInit) {
                task.examples[0] = static_cast<long>(ex->train.size());
                task.examples[1] = static_cast<long>(ex->dev.size());
                task.examples[2] = static_cast<long>(ex->test.size());
                task.skipped = ex->skipped;
            }
            if (ex->train.empty() || ex->test.empty())
                return Error{task.name + ": no " + std::string(ex->train.empty() ? "train" : "test") +
                             " sentence with a valid dependency tree"};
            auto r = trainStructuralProbe(
                task.kind, ex->train, ex->dev, ex->test, options,
                [&](const StructuralEpoch &e) {
                    ctx.curve(task.name, randomInit ? "random-init" : "", layer, "", e.epoch, e.trainLoss, e.devLoss,
                              e.devMetric);
                },
                ctx.control);
            if (!r)
                return Error{task.name + variant + ", layer " + std::to_string(layer) + ": " + r.message()};
            if (randomInit) {
                r->testSentences.clear();
            } else {
                // Keep the predictions for the viewer; result.sentence indexes testSentences.
                if (task.testSentences.empty())
                    for (const auto &e : ex->test)
                        task.testSentences.push_back(
                            (data.oneCorpus ? data.corpus : data.test)[static_cast<std::size_t>(e.sentence)]);
                for (std::size_t i = 0; i < r->testSentences.size(); ++i)
                    r->testSentences[i].sentence = static_cast<int>(i);
                task.testResults[layer] = std::move(r->testSentences);
                r->testSentences.clear();
            }
            const double s = secondsSince(t0);
            task.seconds += s;
            Say(ctx) << "" << task.name << variant << " layer " << layer << ": "
                      << (task.kind == StructuralProbeKind::Distance
                              ? "test UUAS " + fixed(100 * r->test.uuas, 2) + " DSpr " + fixed(r->test.dspr, 4)
                              : "test root acc " + fixed(100 * r->test.rootAccuracy, 2) + " NSpr " + fixed(r->test.nspr, 4))
                      << " (best epoch " << r->bestEpoch << "/" << r->curve.size() << ", " << fixed(s, 1) << " s)";
            (randomInit ? task.randomInit : task.main)[layer] = std::move(*r);
        }
    }
    return {};
}

// ----------------------------------------------------------------------------
// Attention analysis
// ----------------------------------------------------------------------------

struct AttentionCorpus {
    std::vector<Sentence> sentences;
    std::vector<Analysis> analyses;
    std::string scope;
    long emptySkipped = 0;
};

Status analyzeCorpus(const Ctx &ctx, Encoder &encoder, const Data &data, const ProbeRunConfig &spec, bool keepLinks, AttentionCorpus &out)
{
    auto add = [&](const Sentence &s) {
        if (s.tokens.empty())
            ++out.emptySkipped;
        else
            out.sentences.push_back(s);
    };
    if (data.oneCorpus) {
        if (spec.attentionOn == "test") {
            for (int i : data.split.test)
                add(data.corpus[static_cast<std::size_t>(i)]);
            out.scope = "test split";
        } else {
            for (const auto &s : data.corpus)
                add(s);
            out.scope = "whole corpus (all splits)";
        }
    } else if (spec.attentionOn == "test") {
        for (const auto &s : data.test)
            add(s);
        out.scope = "test split";
    } else {
        for (const auto *v : {&data.train, &data.dev, &data.test})
            for (const auto &s : *v)
                add(s);
        out.scope = "whole corpus (train, dev and test)";
    }
    const EncoderInfo &info = encoder.info();
    AnalyzeOptions ao;
    ao.attention = true;
    ao.layerStates = false;
    RunControl rc = progressControl(ctx, "attention");
    const std::size_t chunk = 256;
    for (std::size_t b = 0; b < out.sentences.size(); b += chunk) {
        if (ctx.cancelled())
            return Error{"cancelled"};
        const std::size_t e = std::min(out.sentences.size(), b + chunk);
        std::vector<EncoderInput> batch;
        for (std::size_t i = b; i < e; ++i) {
            const Sentence &s = out.sentences[i];
            EncoderInput in;
            in.words = s.words();
            if (info.input == InputKind::WordsWithDependency)
                in.dependency = s.dependency;
            if (info.input == InputKind::WordsWithConstituency)
                in.constituency = s.constituency;
            batch.push_back(std::move(in));
        }
        auto r = encoder.analyze(batch, ao);
        if (!r)
            return Error{"attention (sentences " + std::to_string(b + 1) + " to " + std::to_string(e) + "): " + r.message()};
        for (auto &a : *r) {
            // Keep only what the metrics read.
            if (!spec.rawAttention)
                a.attentionRaw.clear();
            if (!keepLinks)
                a.linkProbs.clear();
            a.constituentPrior.clear();
            a.layerStates.clear();
            a.embedding.clear();
            a.meanEmbedding.clear();
            a.inducedTree.reset();
            a.inducedBrackets.clear();
            out.analyses.push_back(std::move(a));
        }
        rc.report(e, out.sentences.size(), "sentences analysed");
    }
    return {};
}

json countsJson(const std::map<std::string, long> &m);

/// Task unsupervised-parsing: the eval-induction protocol (inductioneval.h) over
/// the constituency trees of the attention scope (gold, or predicted where the
/// input had none), with the left/right-branching and random baselines.
Result<std::pair<json, ProbeRunInduction>> runInduction(const Ctx &ctx, Encoder &encoder, const Data &data,
                                                        const ProbeRunConfig &spec, const TreeInfo &trees,
                                                        std::string &text)
{
    std::vector<const Sentence *> scope;
    std::string scopeText;
    if (spec.attentionOn == "test") {
        if (data.oneCorpus)
            for (int i : data.split.test)
                scope.push_back(&data.corpus[static_cast<std::size_t>(i)]);
        else
            for (const auto &s : data.test)
                scope.push_back(&s);
        scopeText = "test split";
    } else {
        data.forEach([&](const Sentence &s) { scope.push_back(&s); });
        scopeText = data.oneCorpus ? "whole corpus (all splits)" : "whole corpus (train, dev and test)";
    }
    const EncoderInfo &info = encoder.info();
    const int maxWords = info.maxTokens > 0 ? info.maxTokens - (info.hasClsToken ? 1 : 0) : 1 << 30;
    ProbeRunInduction out;
    std::vector<InductionGold> gold;
    std::map<std::string, long> excluded;
    for (const Sentence *s : scope) {
        if (!s->constituency || s->constituency->wordCount() != static_cast<int>(s->tokens.size())) {
            excluded["no-constituency-tree"] += 1;
            continue;
        }
        InductionGold g = inductionGold(*s->constituency);
        if (g.words.size() < 2) {
            excluded["fewer-than-2-words-without-punctuation"] += 1;
            continue;
        }
        if (static_cast<int>(g.words.size()) > maxWords) {
            excluded["longer-than-the-model"] += 1;
            continue;
        }
        out.sentenceIds.push_back(s->id);
        out.words.push_back(g.words);
        out.gold.push_back(g.brackets);
        gold.push_back(std::move(g));
    }
    if (gold.empty())
        return Error{"no sentence with a constituency tree of 2 or more words (punctuation removed)"};
    out.applicable = info.outputs.inducedTree;
    if (!out.applicable)
        out.reason = "this model (" + info.family +
                     (info.family == "tree-transformer" ? ", constituent prior off" : "") +
                     ") induces no trees, so only the baselines are scored";
    Say(ctx) << "unsupervised parsing of " << gold.size() << " sentences";
    InductionConfig config; // the official settings
    auto report = evaluateInductionGold(out.applicable ? &encoder : nullptr, gold, config, ctx.control,
                                        out.applicable ? &out.predicted : nullptr);
    if (!report)
        return report.error();
    out.report = std::move(*report);
    json j = json::parse(inductionReportJson(out.report));
    j.erase("files");
    j.erase("skipped");
    if (!out.applicable) {
        j["all"].erase("model");
        j["length_10"].erase("model");
        j.erase("by_start_layer");
        j.erase("config");
    }
    j["kind"] = "induction";
    j["applicable"] = out.applicable;
    if (!out.applicable)
        j["reason"] = out.reason;
    j["scope"] = scopeText;
    j["sentences"] = gold.size();
    j["excluded"] = countsJson(excluded);
    j["constituency_trees"] = trees.constituencyText();
    j["protocol"] = "Tree Transformer / PRPN evaluation: unlabelled brackets, punctuation words removed (tags . , : "
                    "-LRB- -RRB- '' ``) before encoding, single words and the whole sentence ignored; sentence_f1 = "
                    "mean of per-sentence F1 (the paper's figure), corpus_f1 = F1 over all brackets";
    if (out.applicable) {
        // The five worst sentences at the configured start layer (lowest F1; ties in corpus order).
        const auto &per = out.report.all.model.perSentence;
        std::vector<std::size_t> order(per.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return per[a] < per[b]; });
        json worst = json::array();
        for (std::size_t k = 0; k < std::min<std::size_t>(5, order.size()); ++k)
            worst.push_back({{"id", out.sentenceIds[order[k]]}, {"f1", rounded(per[order[k]], 2)}});
        j["worst_sentences"] = worst;
    }
    text += "\nunsupervised-parsing (" + std::to_string(gold.size()) + " sentences, " + scopeText +
            "; constituency trees " + trees.constituencyText() + ")\n";
    if (!out.applicable)
        text += "  " + out.reason + "\n";
    text += inductionReportText(out.report);
    return std::make_pair(j, std::move(out));
}

/// The sentences (and their analyses) a metric can score; `why` counts the others.
struct Subset {
    std::vector<Sentence> sentences;
    std::vector<Analysis> analyses;
    std::map<std::string, long> excluded;
    bool all = true;
};

template <class Keep>
Subset subset(const AttentionCorpus &c, Keep keep)
{
    Subset s;
    std::vector<char> ok(c.sentences.size(), 1);
    for (std::size_t i = 0; i < c.sentences.size(); ++i) {
        const std::string why = keep(c.sentences[i]);
        if (!why.empty()) {
            ok[i] = 0;
            s.excluded[why] += 1;
            s.all = false;
        }
    }
    if (!s.all)
        for (std::size_t i = 0; i < c.sentences.size(); ++i)
            if (ok[i]) {
                s.sentences.push_back(c.sentences[i]);
                s.analyses.push_back(c.analyses[i]);
            }
    return s;
}

std::string dependencyProblem(const Sentence &s)
{
    if (!s.dependency)
        return "no-dependency-tree";
    if (s.dependency->size() != s.tokens.size() || !s.dependency->validate())
        return "invalid-dependency-tree";
    return {};
}

std::string spanProblem(const Sentence &s, const std::string &tree)
{
    if (tree == "dependency")
        return dependencyProblem(s);
    if (!s.constituency)
        return "no-constituency-tree";
    if (s.constituency->wordCount() != static_cast<int>(s.tokens.size()))
        return "constituency-word-count-mismatch";
    return {};
}

json gridJson(const LayerHeadGrid &g, bool percent)
{
    json rows = json::array();
    for (int l = 0; l < g.layers; ++l) {
        json row = json::array();
        for (int h = 0; h < g.heads; ++h)
            row.push_back(percent ? rounded(g.at(l, h), 2) : r4(g.at(l, h)));
        rows.push_back(row);
    }
    return rows;
}

/// Best cell of a grid: highest value, ties to the lower layer then head.
BestCell bestOf(const LayerHeadGrid &g)
{
    BestCell b;
    for (int l = 0; l < g.layers; ++l)
        for (int h = 0; h < g.heads; ++h)
            if (std::isfinite(g.at(l, h)) && (b.layer < 0 || g.at(l, h) > b.accuracy)) {
                b.layer = l;
                b.head = h;
                b.accuracy = g.at(l, h);
            }
    return b;
}

std::string gridText(const LayerHeadGrid &g, int digits, const std::string &title)
{
    std::string t = "  " + title + "\n  layer";
    char buf[64];
    for (int h = 0; h < g.heads; ++h) {
        std::snprintf(buf, sizeof buf, " %7s", ("h" + std::to_string(h)).c_str());
        t += buf;
    }
    t += "\n";
    for (int l = 0; l < g.layers; ++l) {
        std::snprintf(buf, sizeof buf, "  %5d", l);
        t += buf;
        for (int h = 0; h < g.heads; ++h) {
            std::snprintf(buf, sizeof buf, " %7s", fixed(g.at(l, h), digits).c_str());
            t += buf;
        }
        t += "\n";
    }
    return t;
}

/// Ids of the first sentences of a worst-first list (what a viewer lists for a cell).
json worstIds(const std::vector<int> &order, const std::vector<Sentence> &sentences, std::size_t count = 5)
{
    json ids = json::array();
    for (std::size_t k = 0; k < order.size() && k < count; ++k)
        ids.push_back(sentences[static_cast<std::size_t>(order[k])].id);
    return ids;
}

json countsJson(const std::map<std::string, long> &m)
{
    json j = json::object();
    for (const auto &[k, n] : m)
        j[k] = n;
    return j;
}

// ----------------------------------------------------------------------------
// Report
// ----------------------------------------------------------------------------

json metricsJson(const ProbeMetrics &m, bool regression)
{
    if (regression)
        return {{"mse", r4(m.mse)}, {"r2", r4(m.r2)}, {"loss", r4(m.loss)}};
    return {{"accuracy", pct(m.accuracy)}, {"macro_f1", pct(m.macroF1)}, {"loss", r4(m.loss)}};
}

json probeJson(const ProbeResult &r)
{
    json curve = {{"train_loss", json::array()}, {"dev_loss", json::array()}, {"dev_metric", json::array()}};
    for (const auto &e : r.curve) {
        curve["train_loss"].push_back(r4(e.trainLoss));
        curve["dev_loss"].push_back(r4(e.devLoss));
        curve["dev_metric"].push_back(r.regression ? r4(e.devMetric) : pct(e.devMetric));
    }
    return {{"test", metricsJson(r.test, r.regression)},
            {"dev", metricsJson(r.dev, r.regression)},
            {"best_epoch", r.bestEpoch},
            {"epochs", r.curve.size()},
            {"stopped_early", r.stoppedEarly},
            {"parameters", r.parameters},
            {"curve", curve}};
}

/// Task − control, in accuracy points (classification) or R² (SentLen).
double selectivity(const ProbeResult &task, const ProbeResult &control)
{
    return task.regression ? task.test.r2 - control.test.r2 : 100.0 * (task.test.accuracy - control.test.accuracy);
}

json structuralMetricsJson(const StructuralMetrics &m, StructuralProbeKind kind)
{
    if (kind == StructuralProbeKind::Distance)
        return {{"uuas", pct(m.uuas)}, {"dspr", r4(m.dspr)}, {"edges_correct", m.edgesCorrect},
                {"edges_total", m.edgesTotal}, {"sentences", m.sentences}, {"loss", r4(m.loss)}};
    return {{"root_accuracy", pct(m.rootAccuracy)}, {"nspr", r4(m.nspr)}, {"roots_correct", m.rootsCorrect},
            {"sentences", m.sentences}, {"loss", r4(m.loss)}};
}

json structuralJson(const StructuralProbeResult &r)
{
    json curve = {{"train_loss", json::array()}, {"dev_loss", json::array()}, {"dev_metric", json::array()},
                  {"learning_rate", json::array()}};
    for (const auto &e : r.curve) {
        curve["train_loss"].push_back(r4(e.trainLoss));
        curve["dev_loss"].push_back(r4(e.devLoss));
        curve["dev_metric"].push_back(pct(e.devMetric));
        curve["learning_rate"].push_back(e.learningRate);
    }
    return {{"test", structuralMetricsJson(r.test, r.kind)},
            {"dev", structuralMetricsJson(r.dev, r.kind)},
            {"rank", r.rank},
            {"best_epoch", r.bestEpoch},
            {"epochs", r.curve.size()},
            {"stopped_early", r.stoppedEarly},
            {"parameters", r.parameters},
            {"curve", curve}};
}

std::string padRight(const std::string &s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }
std::string padLeft(const std::string &s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }

/// A plain table: header row then rows, right-aligned after the first column.
std::string table(const std::vector<std::string> &header, const std::vector<std::vector<std::string>> &rows)
{
    std::vector<std::size_t> w(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c) {
        w[c] = header[c].size();
        for (const auto &r : rows)
            if (c < r.size())
                w[c] = std::max(w[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string> &cells) {
        std::string t = "  ";
        for (std::size_t c = 0; c < header.size(); ++c) {
            const std::string cell = c < cells.size() ? cells[c] : "";
            t += (c ? "  " : "") + (c == 0 ? padRight(cell, w[c]) : padLeft(cell, w[c]));
        }
        while (!t.empty() && t.back() == ' ')
            t.pop_back();
        return t + "\n";
    };
    std::string t = line(header);
    for (const auto &r : rows)
        t += line(r);
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

Result<std::vector<std::string>> parseProbeRunTasks(const std::string &text) { return parseTasksImpl(text); }

Result<ProbeRunReport> runProbes(const ProbeRunConfig &spIn, const ProbeRunCallbacks &callbacks, const RunControl *runControl)
{
    ProbeRunConfig sp = spIn; // probeDevice "auto" becomes the encoder's device once it is loaded
    const Ctx ctx{callbacks, runControl};
    const auto tStart = Clock::now();
    ProbeRunReport out;
    auto tasks = parseTasksImpl(sp.tasks);
    if (!tasks)
        return Error{tasks.message()};
    if (hasSplit(sp.dev, sp.devSentences) && !hasSplit(sp.test, sp.testSentences))
        return Error{"--dev needs --test (with --train alone the corpus is split 0.8/0.1/0.1)"};
    if (sp.depthMinCount < 1)
        return Error{"--depth-min-count must be at least 1"};
    if (sp.encoderBatch < 1)
        return Error{"--encoder-batch must be at least 1"};
    const bool control = sp.control || sp.baselines;
    const bool randomInit = sp.randomInit || sp.baselines;
    if (auto s = sentenceOptions(sp).validate(); !s)
        return Error{s.message()};
    if (auto s = structuralOptions(sp).validate(); !s)
        return Error{s.message()};

    std::vector<std::string> sentenceTasks, structuralTasks, attentionTasks;
    for (const auto &t : *tasks)
        (contains(kSentenceTasks, t) ? sentenceTasks : contains(kStructuralTasks, t) ? structuralTasks : attentionTasks)
            .push_back(t);

    // Model.
    std::string modelPath = sp.model;
    if (modelPath.empty()) {
        modelPath = defaultModelPath();
        if (modelPath.empty())
            return Error{"no --model given and the shipped default model (resources/models/"
                        "tree-transformer-en-small.safetensors) was not found"};
    }
    DeviceConfig dc;
    dc.device = sp.device;
    dc.threads = sp.threads;
    dc.batchSize = sp.encoderBatch;
    if (sp.probeDevice != "auto") // before any work
        if (auto d = probeDeviceAvailable(sp.probeDevice); !d)
            return Error{"--probe-device: " + d.message()};
    auto encoder = loadEncoder(modelPath, dc);
    if (!encoder)
        return Error{encoder.message()};
    const EncoderInfo &info = (*encoder)->info();
    if (sp.probeDevice == "auto")
        sp.probeDevice = info.device; // probes train where the encoder runs: the GPU when there is one
    auto layers = parseLayers(sp.layers, info.layers);
    if (!layers)
        return Error{layers.message()};
    std::vector<std::string> poolings;
    std::string poolingNote;
    if (sp.pooling == "cls" || sp.pooling == "both") {
        if (info.hasClsToken)
            poolings.push_back("cls");
        else if (sp.pooling == "cls")
            return Error{"--pooling cls: the " + info.family + " model has no [CLS] token; use mean"};
        else
            poolingNote = "the model has no [CLS] token: mean pooling only";
    }
    if (sp.pooling == "mean" || sp.pooling == "both")
        poolings.push_back("mean");

    // Corpora.
    const auto tLoad = Clock::now();
    Data data;
    {
        auto train = readSplit(sp.train, sp.trainSentences, sp.from);
        if (!train)
            return Error{train.message()};
        if (!hasSplit(sp.test, sp.testSentences)) {
            data.oneCorpus = true;
            data.corpus = std::move(*train);
        } else {
            data.train = std::move(*train);
            auto test = readSplit(sp.test, sp.testSentences, sp.from);
            if (!test)
                return Error{test.message()};
            data.test = std::move(*test);
            if (hasSplit(sp.dev, sp.devSentences)) {
                auto dev = readSplit(sp.dev, sp.devSentences, sp.from);
                if (!dev)
                    return Error{dev.message()};
                data.dev = std::move(*dev);
            }
        }
    }
    // Sentences longer than the model's position table are left out (and counted).
    if (info.maxTokens > 0) {
        const int limit = info.maxTokens - (info.hasClsToken ? 1 : 0);
        auto drop = [&](std::vector<Sentence> &v, const std::string &split) {
            const auto before = v.size();
            v.erase(std::remove_if(v.begin(), v.end(),
                                   [&](const Sentence &s) { return static_cast<int>(s.tokens.size()) > limit; }),
                    v.end());
            if (v.size() != before)
                data.excluded[split + "/longer-than-model (" + std::to_string(limit) + " words)"] =
                    static_cast<long>(before - v.size());
        };
        drop(data.corpus, "corpus");
        drop(data.train, "train");
        drop(data.dev, "dev");
        drop(data.test, "test");
    }
    if (data.oneCorpus)
        data.split = seededSplit(data.corpus.size(), 0.8, 0.1, sp.splitSeed);
    TreeInfo trees;
    if (auto s = prepareTrees(ctx, data, sp, *tasks, trees); !s)
        return Error{s.message()};
    const double loadSeconds = secondsSince(tLoad);
    const std::string splitText = data.oneCorpus
        ? "seeded 0.8/0.1/0.1 seed=" + std::to_string(sp.splitSeed)
        : std::string("given");
    Say(ctx) << "" << data.size() << " sentences (" << splitText << "); constituency trees: "
              << trees.constituencyText() << "; dependency trees: " << trees.dependencyText();

    std::unique_ptr<Encoder> randomEncoder;
    if (randomInit && (!sentenceTasks.empty() || !structuralTasks.empty())) {
        auto r = randomEncoderLike(modelPath, sp.seed, dc);
        if (!r)
            return Error{r.message()};
        randomEncoder = std::move(*r);
    }

    // ---------------------------------------------------------------- sentence probes
    std::vector<SentenceTaskResult> sentenceResults;
    double featureSeconds = 0.0;
    if (!sentenceTasks.empty()) {
        ProbeTaskOptions topt;
        topt.depthSource = trees.tree == "dependency" ? DepthSource::Dependency : DepthSource::Constituency;
        topt.depthMinCount = sp.depthMinCount;
        topt.splitSeed = sp.splitSeed;
        for (const auto &name : sentenceTasks) {
            SentenceTaskResult r;
            r.name = name;
            const ProbeTask task = *parseProbeTask(name);
            auto ds = data.oneCorpus ? buildProbeDataset(task, data.corpus, topt)
                                     : buildProbeDataset(task, data.train, data.dev, data.test, topt);
            if (!ds)
                return Error{ds.message()};
            r.dataset = std::move(*ds);
            if (control)
                r.control = data.oneCorpus ? controlTask(r.dataset, data.corpus, sp.seed)
                                           : controlTask(r.dataset, data.train, data.dev, data.test, sp.seed);
            sentenceResults.push_back(std::move(r));
        }
        FeatureOptions fo;
        fo.sentenceVectors = true;
        fo.layers = *layers;
        fo.batchSize = sp.encoderBatch;
        const ProbeTrainOptions popt = sentenceOptions(sp);
        for (int variant = 0; variant < (randomEncoder ? 2 : 1); ++variant) {
            Encoder &enc = variant == 0 ? **encoder : *randomEncoder;
            const std::string vname = variant == 0 ? "" : " (random init)";
            const auto tf = Clock::now();
            auto feats = extractAll(ctx, enc, data, fo, "sentence vectors" + vname);
            if (!feats)
                return Error{"sentence vectors" + vname + ": " + feats.message()};
            featureSeconds += secondsSince(tf);
            for (auto &r : sentenceResults) {
                const auto t0 = Clock::now();
                if (auto s = trainSentenceProbes(ctx, r.dataset, *feats, data.oneCorpus, *layers, poolings, popt, r.name,
                                                 variant == 0 ? "" : "random-init", r.name + vname,
                                                 variant == 0 ? r.main : r.randomInit);
                    !s)
                    return Error{s.message()};
                if (variant == 0 && control)
                    if (auto s = trainSentenceProbes(ctx, r.control, *feats, data.oneCorpus, *layers, poolings, popt, r.name, "control",
                                                     r.name + " control", r.controlResults);
                        !s)
                        return Error{s.message()};
                r.seconds += secondsSince(t0);
            }
        }
    }

    for (const auto &r : sentenceResults)
        ctx.finished(r.name);

    // ---------------------------------------------------------------- structural probes
    std::vector<StructuralTaskResult> structuralResults;
    if (!structuralTasks.empty()) {
        for (const auto &name : structuralTasks) {
            StructuralTaskResult r;
            r.name = name;
            r.kind = name == "structural-distance" ? StructuralProbeKind::Distance : StructuralProbeKind::Depth;
            structuralResults.push_back(std::move(r));
        }
        if (auto s = runStructural(ctx, **encoder, data, *layers, sp, structuralResults, false); !s)
            return Error{s.message()};
        if (randomEncoder)
            if (auto s = runStructural(ctx, *randomEncoder, data, *layers, sp, structuralResults, true); !s)
                return Error{s.message()};
    }
    for (const auto &r : structuralResults)
        ctx.finished(r.name);
    randomEncoder.reset();

    // ---------------------------------------------------------------- attention
    json attentionJson = json::object();
    std::string attentionText;
    std::map<std::string, double> attentionSeconds;
    AttentionCorpus corpus;
    const bool needAttention = std::any_of(attentionTasks.begin(), attentionTasks.end(),
                                           [](const std::string &t) { return t != "unsupervised-parsing"; });
    if (needAttention) {
        const auto t0 = Clock::now();
        if (auto s = analyzeCorpus(ctx, **encoder, data, sp, contains(attentionTasks, "link-probs"), corpus); !s)
            return Error{s.message()};
        attentionSeconds["analysis"] = secondsSince(t0);
        Say(ctx) << "attention of " << corpus.sentences.size() << " sentences in "
                  << fixed(attentionSeconds["analysis"], 1) << " s";
    }
    AttentionTreeOptions aopt;
    aopt.raw = sp.rawAttention;
    aopt.spans = trees.tree == "dependency" ? AttentionTreeOptions::Spans::Dependency
                                             : AttentionTreeOptions::Spans::Constituency;
    const std::string attnWhich = sp.rawAttention ? "raw softmax attention (before the constituent prior)"
                                                  : "attention after the constituent prior (softmax x C)";
    auto commonJson = [&](const Subset &sub, std::size_t n) {
        json j = {{"kind", "attention"},
                  {"scope", corpus.scope},
                  {"attention", attnWhich},
                  {"sentences", n},
                  {"excluded", countsJson(sub.excluded)},
                  {"layers", info.layers},
                  {"heads", info.heads},
                  {"layer_numbering", "0-based: row 0 is the first encoder layer"}};
        if (corpus.emptySkipped > 0)
            j["excluded"]["empty-sentence"] = corpus.emptySkipped;
        return j;
    };
    for (const auto &name : attentionTasks) {
        const auto t0 = Clock::now();
        if (name == "unsupervised-parsing") {
            auto r = runInduction(ctx, **encoder, data, sp, trees, attentionText);
            if (!r)
                return Error{name + ": " + r.message()};
            attentionJson[name] = r->first;
            out.induction = std::move(r->second);
        } else if (name == "head-accuracy" || name == "attention-mst") {
            Subset sub = subset(corpus, dependencyProblem);
            const auto &S = sub.all ? corpus.sentences : sub.sentences;
            const auto &A = sub.all ? corpus.analyses : sub.analyses;
            if (S.empty())
                return Error{name + ": no sentence with a valid dependency tree"};
            json j = commonJson(sub, S.size());
            j["dependency_trees"] = trees.dependencyText();
            if (name == "head-accuracy") {
                auto rep = headAccuracy(S, A, aopt);
                if (!rep)
                    return Error{name + ": " + rep.message()};
                json rels = json::array();
                std::vector<std::vector<std::string>> rows;
                for (const auto &rel : rep->relations) {
                    auto cell = [](const BestCell &b) {
                        return json{{"layer", b.layer}, {"head", b.head}, {"accuracy", rounded(b.accuracy, 2)}};
                    };
                    rels.push_back({{"relation", rel.relation},
                                    {"count", rel.count},
                                    {"dep_to_head", gridJson(rel.depToHead, true)},
                                    {"head_to_dep", gridJson(rel.headToDep, true)},
                                    {"best_dep_to_head", cell(rel.bestDepToHead)},
                                    {"best_head_to_dep", cell(rel.bestHeadToDep)},
                                    {"best_offset", {{"offset", rel.bestOffset.offset},
                                                     {"accuracy", rounded(rel.bestOffset.accuracy, 2)}}}});
                    auto cellText = [](const BestCell &b) {
                        return b.layer < 0 ? std::string("-")
                                           : fixed(b.accuracy, 2) + " (" + std::to_string(b.layer) + "-" +
                                                 std::to_string(b.head) + ")";
                    };
                    rows.push_back({rel.relation, std::to_string(rel.count), cellText(rel.bestDepToHead),
                                    cellText(rel.bestHeadToDep),
                                    fixed(rel.bestOffset.accuracy, 2) + " (" +
                                        (rel.bestOffset.offset > 0 ? "+" : "") +
                                        std::to_string(rel.bestOffset.offset) + ")"});
                }
                j["relations"] = rels;
                if (const auto *all = rep->find("all"); all && all->bestDepToHead.layer >= 0)
                    j["worst_sentences_best_dep_to_head"] =
                        worstIds(sentencesForCell(*rep, all->bestDepToHead.layer, all->bestDepToHead.head), S);
                attentionJson[name] = j;
                out.attention.headAccuracy = *rep;
                out.attention.sentenceIds[name] = sentenceIds(S);
                attentionText += "\nhead-accuracy (" + std::to_string(S.size()) + " sentences, " + attnWhich +
                                 "; percent; best head as layer-head, 0-based)\n";
                if (const auto *all = rep->find("all")) {
                    attentionText += gridText(all->depToHead, 2, "all relations, dependent -> head:");
                    attentionText += gridText(all->headToDep, 2, "all relations, head -> dependent:");
                }
                attentionText += table({"relation", "arcs", "best dep->head", "best head->dep", "best offset"}, rows);
            } else {
                auto rep = attentionMstUuas(S, A, aopt);
                if (!rep)
                    return Error{name + ": " + rep.message()};
                const BestCell b = bestOf(rep->uuas);
                json lm = json::array();
                for (double v : rep->layerMean)
                    lm.push_back(rounded(v, 2));
                j["uuas"] = gridJson(rep->uuas, true);
                j["layer_mean_uuas"] = lm;
                j["edges"] = rep->edges;
                j["skipped_one_word"] = rep->skipped;
                j["best"] = {{"layer", b.layer}, {"head", b.head}, {"uuas", rounded(b.accuracy, 2)}};
                if (b.layer >= 0)
                    j["best"]["worst_sentences"] = worstIds(sentencesForCell(*rep, b.layer, b.head), S);
                attentionJson[name] = j;
                out.attention.attentionMst = *rep;
                out.attention.sentenceIds[name] = sentenceIds(S);
                attentionText += "\nattention-mst (" + std::to_string(S.size()) + " sentences, " + attnWhich +
                                 "): UUAS of the maximum spanning tree of (A + A^T)/2, percent\n";
                attentionText += gridText(rep->uuas, 2, "layers x heads:");
                std::string means;
                for (std::size_t l = 0; l < rep->layerMean.size(); ++l)
                    means += " " + fixed(rep->layerMean[l], 2);
                attentionText += "  layer mean:" + means + "\n  best head: layer " + std::to_string(b.layer) +
                                 " head " + std::to_string(b.head) + ", UUAS " + fixed(b.accuracy, 2) + "\n";
            }
        } else {
            Subset sub = subset(corpus, [&](const Sentence &s) { return spanProblem(s, trees.tree); });
            const auto &S = sub.all ? corpus.sentences : sub.sentences;
            const auto &A = sub.all ? corpus.analyses : sub.analyses;
            if (S.empty())
                return Error{name + ": no sentence with a " + trees.tree + " tree"};
            json j = commonJson(sub, S.size());
            j["tree"] = trees.tree;
            j["tree_source"] = trees.tree == "dependency" ? trees.dependencyText() : trees.constituencyText();
            if (name == "constituent-mass") {
                auto rep = constituentMass(S, A, aopt);
                if (!rep)
                    return Error{name + ": " + rep.message()};
                const BestCell b = bestOf(rep->difference);
                json words = json::array();
                for (int l = 0; l < rep->layers; ++l) {
                    json row = json::array();
                    for (int h = 0; h < rep->heads; ++h)
                        row.push_back(rep->words[static_cast<std::size_t>(l * rep->heads + h)]);
                    words.push_back(row);
                }
                j["mass"] = gridJson(rep->mass, false);
                j["baseline"] = gridJson(rep->baseline, false);
                j["difference"] = gridJson(rep->difference, false);
                j["words"] = words;
                j["skipped_words"] = rep->skippedWords;
                if (b.layer >= 0)
                    j["best"] = {{"layer", b.layer}, {"head", b.head}, {"difference", r4(b.accuracy)},
                                 {"mass", r4(rep->mass.at(b.layer, b.head))},
                                 {"baseline", r4(rep->baseline.at(b.layer, b.head))},
                                 {"worst_sentences", worstIds(sentencesForCell(*rep, b.layer, b.head), S)}};
                attentionJson[name] = j;
                out.attention.constituentMass = *rep;
                out.attention.sentenceIds[name] = sentenceIds(S);
                attentionText += "\nconstituent-mass (" + std::to_string(S.size()) + " sentences, " + trees.tree +
                                 " constituents, " + attnWhich + "): share of a word's attention inside its "
                                 "smallest constituent vs the distance-matched baseline\n";
                attentionText += gridText(rep->mass, 4, "mass:");
                attentionText += gridText(rep->baseline, 4, "baseline:");
                attentionText += gridText(rep->difference, 4, "mass - baseline:");
                if (b.layer >= 0)
                    attentionText += "  best head: layer " + std::to_string(b.layer) + " head " +
                                     std::to_string(b.head) + ", mass - baseline " + fixed(b.accuracy, 4) + "\n";
            } else {
                auto rep = linkProbabilityStats(S, A, aopt);
                if (!rep)
                    return Error{name + ": " + rep.message()};
                json per = json::array();
                std::vector<std::vector<std::string>> rows;
                for (int l = 0; l < rep->layers; ++l) {
                    const auto &st = rep->perLayer[static_cast<std::size_t>(l)];
                    json buckets = json::object();
                    std::vector<std::string> row = {std::to_string(l), std::to_string(st.gaps), fixed(st.mean, 4),
                                                    fixed(st.stddev, 4), fixed(st.spearman, 4)};
                    for (int k = 0; k < LinkBucketCount; ++k) {
                        buckets[linkBucketName(k)] = {{"gaps", st.bucketCount[static_cast<std::size_t>(k)]},
                                                      {"mean", r4(st.bucketMean[static_cast<std::size_t>(k)])}};
                        row.push_back(st.bucketCount[static_cast<std::size_t>(k)]
                                          ? fixed(st.bucketMean[static_cast<std::size_t>(k)], 4)
                                          : std::string("-"));
                    }
                    per.push_back({{"layer", l}, {"gaps", st.gaps}, {"mean", r4(st.mean)}, {"stddev", r4(st.stddev)},
                                   {"spearman", r4(st.spearman)}, {"by_constituent_size", buckets}});
                    rows.push_back(row);
                }
                j["per_layer"] = per;
                j["skipped_short"] = rep->skipped;
                attentionJson[name] = j;
                out.attention.linkProbs = *rep;
                out.attention.sentenceIds[name] = sentenceIds(S);
                attentionText += "\nlink-probs (" + std::to_string(S.size()) + " sentences, " + trees.tree +
                                 " constituents): link probability between adjacent words by the size of the "
                                 "smallest gold constituent holding both\n";
                std::vector<std::string> header = {"layer", "gaps", "mean", "sd", "spearman"};
                for (int k = 0; k < LinkBucketCount; ++k)
                    header.push_back(std::string("size ") + linkBucketName(k));
                attentionText += table(header, rows);
            }
        }
        attentionSeconds[name] = secondsSince(t0);
        ctx.finished(name);
    }
    corpus = AttentionCorpus{};

    // ---------------------------------------------------------------- report
    json report;
    report["command"] = sp.commandLine;
    report["treelens_version"] = TREELENS_VERSION;
    report["model"] = {{"path", modelPath},
                       {"name", info.name},
                       {"family", info.family},
                       {"layers", info.layers},
                       {"heads", info.heads},
                       {"d_model", info.dModel},
                       {"parameters", info.parameters},
                       {"device", info.device}};
    json settings = {{"tasks", *tasks},
                     {"layers", *layers},
                     {"pooling", poolings},
                     {"probe", sp.probe},
                     {"seed", sp.seed},
                     {"split_seed", sp.splitSeed},
                     {"control", control},
                     {"random_init", randomInit},
                     {"raw_attention", sp.rawAttention},
                     {"tree_source", sp.treeSource},
                     {"tree", trees.tree},
                     {"tree_reason", trees.treeWhy},
                     {"depth_min_count", sp.depthMinCount},
                     {"attention_on", sp.attentionOn},
                     {"probe_device", sp.probeDevice}};
    {
        const ProbeTrainOptions po = sentenceOptions(sp);
        const StructuralProbeOptions so = structuralOptions(sp);
        settings["sentence_probe"] = {{"architecture", sp.probe}, {"max_epochs", po.maxEpochs},
                                      {"patience", po.patience}, {"learning_rate", po.learningRate},
                                      {"batch_size", po.batchSize}, {"threads", po.threads}};
        settings["structural_probe"] = {{"rank", so.rank == 0 ? info.dModel : so.rank}, {"max_epochs", so.maxEpochs},
                                        {"patience", so.patience}, {"learning_rate", so.learningRate},
                                        {"batch_size", so.batchSize}, {"threads", so.threads}};
    }
    if (!poolingNote.empty())
        settings["pooling_note"] = poolingNote;
    report["settings"] = settings;
    const bool noDevNote = !data.oneCorpus && data.dev.empty() && (!sentenceTasks.empty() || !structuralTasks.empty());
    static const char *kNoDev = "no dev split: the probes keep their last epoch (no model selection, no early stopping)";
    json dataJson = {{"files", {{"train", sp.train}, {"dev", sp.dev}, {"test", sp.test}}},
                     {"split", splitText},
                     {"constituency_trees", trees.constituencyText()},
                     {"dependency_trees", trees.dependencyText()},
                     {"excluded", countsJson(data.excluded)}};
    if (data.oneCorpus)
        dataJson["sentences"] = {{"corpus", data.corpus.size()}, {"train", data.split.train.size()},
                                 {"dev", data.split.dev.size()}, {"test", data.split.test.size()}};
    else
        dataJson["sentences"] = {{"train", data.train.size()}, {"dev", data.dev.size()}, {"test", data.test.size()}};
    if (!trees.parseFailures.empty()) {
        dataJson["parse_failures"] = trees.parseFailures.size();
        dataJson["parse_failure_examples"] =
            std::vector<std::string>(trees.parseFailures.begin(),
                                     trees.parseFailures.begin() +
                                         static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, trees.parseFailures.size())));
    }
    if (noDevNote)
        dataJson["note"] = kNoDev;
    report["data"] = dataJson;

    json tasksJson = json::object();
    std::string text;
    text += "probe: " + info.name + " (" + info.family + ", " + std::to_string(info.layers) + " layers, d_model " +
            std::to_string(info.dModel) + ", " + std::to_string(info.heads) + " heads)\n";
    if (data.oneCorpus)
        text += "data: " + fileList(sp.train) + ", " + std::to_string(data.corpus.size()) + " sentences; split " +
                splitText + ": train " + std::to_string(data.split.train.size()) + ", dev " +
                std::to_string(data.split.dev.size()) + ", test " + std::to_string(data.split.test.size()) + "\n";
    else
        text += "data: train " + fileList(sp.train) + " (" + std::to_string(data.train.size()) + " sentences), dev " +
                (sp.dev.empty() ? std::string("none") : fileList(sp.dev) + " (" + std::to_string(data.dev.size()) +
                                                             " sentences)") +
                ", test " + fileList(sp.test) + " (" + std::to_string(data.test.size()) + " sentences)\n";
    if (noDevNote)
        text += "note: " + std::string(kNoDev) + "\n";
    text += "constituency trees: " + trees.constituencyText() + "\n";
    text += "dependency trees: " + trees.dependencyText() + "\n";
    for (const auto &[k, n] : data.excluded)
        text += "excluded: " + k + " " + std::to_string(n) + "\n";
    text += "layers: 0 = embeddings, k = output of encoder layer k; probe " + sp.probe + ", seed " +
            std::to_string(sp.seed) + "\n";

    for (const auto &r : sentenceResults) {
        const ProbeDataset &ds = r.dataset;
        const bool reg = ds.regression();
        json j;
        j["kind"] = "sentence";
        j["regression"] = reg;
        j["labels"] = ds.labels;
        j["split"] = ds.split;
        j["examples"] = {{"train", ds.train.size()}, {"dev", ds.dev.size()}, {"test", ds.test.size()}};
        if (!reg) {
            j["label_counts"] = {{"train", labelCounts(ds.train, ds.labels.size())},
                                 {"dev", labelCounts(ds.dev, ds.labels.size())},
                                 {"test", labelCounts(ds.test, ds.labels.size())}};
        }
        j["excluded"] = countsJson(ds.excluded);
        if (!ds.depthSource.empty())
            j["tree"] = ds.depthSource + ": " + (ds.depthSource == "dependency" ? trees.dependencyText()
                                                                                : trees.constituencyText());
        else if (r.name == "topconst")
            j["tree"] = "constituency: " + trees.constituencyText();
        json baselines;
        if (reg) {
            const auto b = meanBaseline(ds);
            baselines["mean"] = {{"prediction", r4(b.mean)}, {"mse", r4(b.mse)}, {"r2", r4(b.r2)}};
        } else {
            const int m = majorityLabel(ds);
            baselines["majority"] = {{"label", m >= 0 ? ds.labels[static_cast<std::size_t>(m)] : std::string()},
                                     {"accuracy", pct(majorityAccuracy(ds))},
                                     {"macro_f1", pct(majorityMacroF1(ds))}};
        }
        j["baselines"] = baselines;
        json layerRows = json::array();
        std::vector<std::string> header = {"layer"};
        for (const auto &p : poolings) {
            if (reg) {
                header.push_back(p + " R2");
                header.push_back(p + " MSE");
            } else {
                header.push_back(p + " acc");
                header.push_back(p + " F1");
            }
            if (control) {
                header.push_back(p + (reg ? " ctl R2" : " ctl acc"));
                header.push_back(p + " select");
            }
            if (randomInit)
                header.push_back(p + (reg ? " rand R2" : " rand acc"));
        }
        std::vector<std::vector<std::string>> rows;
        json randomRows = json::array();
        for (int layer : *layers) {
            json lj = {{"layer", layer}};
            json rj = {{"layer", layer}};
            std::vector<std::string> row = {std::to_string(layer)};
            for (const auto &p : poolings) {
                const SentenceKey key{layer, p};
                const ProbeResult &m = r.main.at(key);
                json pj = probeJson(m);
                if (reg) {
                    row.push_back(fixed(m.test.r2, 4));
                    row.push_back(fixed(m.test.mse, 3));
                } else {
                    row.push_back(fixed(100 * m.test.accuracy, 2));
                    row.push_back(fixed(100 * m.test.macroF1, 2));
                }
                if (control) {
                    const ProbeResult &c = r.controlResults.at(key);
                    json cj = probeJson(c);
                    cj.erase("curve");
                    pj["control"] = cj;
                    const double sel = selectivity(m, c);
                    pj["selectivity"] = reg ? r4(sel) : rounded(sel, 2);
                    row.push_back(reg ? fixed(c.test.r2, 4) : fixed(100 * c.test.accuracy, 2));
                    row.push_back(reg ? fixed(sel, 4) : fixed(sel, 2));
                }
                if (randomInit) {
                    const ProbeResult &x = r.randomInit.at(key);
                    rj[p] = probeJson(x);
                    row.push_back(reg ? fixed(x.test.r2, 4) : fixed(100 * x.test.accuracy, 2));
                }
                lj[p] = pj;
            }
            layerRows.push_back(lj);
            randomRows.push_back(rj);
            rows.push_back(row);
        }
        j["layers"] = layerRows;
        if (control)
            j["control_task"] = "labels a seeded random function of the lower-cased first word (Hewitt & Liang); "
                                "selectivity = test " +
                                std::string(reg ? "R2" : "accuracy points") + " of the task minus the control";
        if (randomInit)
            j["random_init"] = {{"seed", sp.seed}, {"layers", randomRows}};
        tasksJson[r.name] = j;

        text += "\n" + r.name + " (" +
                (reg ? std::string("regression on the word count; test R2 and MSE")
                     : std::to_string(ds.labels.size()) + " classes; test accuracy and macro-F1, percent") +
                "; examples train " + std::to_string(ds.train.size()) + ", dev " + std::to_string(ds.dev.size()) +
                ", test " + std::to_string(ds.test.size()) + ")\n";
        if (j.contains("tree"))
            text += "  tree: " + j["tree"].get<std::string>() + "\n";
        if (!ds.excluded.empty()) {
            text += "  excluded:";
            for (const auto &[k, n] : ds.excluded)
                text += " " + k + " " + std::to_string(n) + ";";
            text += "\n";
        }
        text += table(header, rows);
        if (reg) {
            const auto b = meanBaseline(ds);
            text += "  baseline: predict the train mean " + fixed(b.mean, 2) + ": R2 " + fixed(b.r2, 4) + ", MSE " +
                    fixed(b.mse, 3) + "\n";
        } else {
            const int m = majorityLabel(ds);
            text += "  baseline: majority class \"" + (m >= 0 ? ds.labels[static_cast<std::size_t>(m)] : std::string()) +
                    "\": accuracy " + fixed(100 * majorityAccuracy(ds), 2) + ", macro-F1 " +
                    fixed(100 * majorityMacroF1(ds), 2) + "\n";
        }
    }

    for (auto &r : structuralResults) { // non-const: the viewer data is moved out
        const bool dist = r.kind == StructuralProbeKind::Distance;
        json j = {{"kind", "structural"},
                  {"examples", {{"train", r.examples[0]}, {"dev", r.examples[1]}, {"test", r.examples[2]}}},
                  {"skipped", countsJson(r.skipped)},
                  {"dependency_trees", trees.dependencyText()},
                  {"split", splitText}};
        json layerRows = json::array(), randomRows = json::array();
        std::vector<std::vector<std::string>> rows;
        for (int layer : *layers) {
            const auto &m = r.main.at(layer);
            json lj = structuralJson(m);
            lj["layer"] = layer;
            layerRows.push_back(lj);
            std::vector<std::string> row = {std::to_string(layer)};
            if (dist) {
                row.push_back(fixed(100 * m.test.uuas, 2));
                row.push_back(fixed(m.test.dspr, 4));
            } else {
                row.push_back(fixed(100 * m.test.rootAccuracy, 2));
                row.push_back(fixed(m.test.nspr, 4));
            }
            row.push_back(std::to_string(m.bestEpoch) + "/" + std::to_string(m.curve.size()));
            if (randomInit) {
                const auto &x = r.randomInit.at(layer);
                json xj = structuralJson(x);
                xj["layer"] = layer;
                randomRows.push_back(xj);
                row.push_back(dist ? fixed(100 * x.test.uuas, 2) : fixed(100 * x.test.rootAccuracy, 2));
                row.push_back(dist ? fixed(x.test.dspr, 4) : fixed(x.test.nspr, 4));
            }
            rows.push_back(row);
        }
        j["layers"] = layerRows;
        if (randomInit)
            j["random_init"] = {{"seed", sp.seed}, {"layers", randomRows}};
        tasksJson[r.name] = j;
        {
            ProbeRunStructural view;
            view.kind = r.kind;
            double bestLoss = 0.0;
            for (int layer : *layers) {
                const double l = r.main.at(layer).dev.loss;
                if (view.bestLayer < 0 || (std::isfinite(l) && (!std::isfinite(bestLoss) || l < bestLoss))) {
                    view.bestLayer = layer;
                    bestLoss = l;
                }
            }
            view.sentences = std::move(r.testSentences);
            view.byLayer = std::move(r.testResults);
            out.structural[r.name] = std::move(view);
        }
        const int rank = structuralOptions(sp).rank == 0 ? info.dModel : structuralOptions(sp).rank;
        text += "\n" + r.name + " (Hewitt & Manning, rank " + std::to_string(rank) + "; sentences train " +
                std::to_string(r.examples[0]) + ", dev " + std::to_string(r.examples[1]) + ", test " +
                std::to_string(r.examples[2]) + "; " +
                (dist ? "test UUAS percent and DSpr" : "test root accuracy percent and NSpr") + ")\n";
        std::vector<std::string> header = {"layer"};
        header.push_back(dist ? "UUAS" : "root acc");
        header.push_back(dist ? "DSpr" : "NSpr");
        header.push_back("best epoch");
        if (randomInit) {
            header.push_back(dist ? "rand UUAS" : "rand root");
            header.push_back(dist ? "rand DSpr" : "rand NSpr");
        }
        text += table(header, rows);
    }

    for (auto &[name, j] : attentionJson.items())
        tasksJson[name] = j;
    text += attentionText;
    report["tasks"] = tasksJson;

    json timing = {{"total_seconds", rounded(secondsSince(tStart), 2)},
                   {"load_and_trees_seconds", rounded(loadSeconds, 2)},
                   {"parse_seconds", rounded(trees.parseSeconds, 2)},
                   {"sentence_vectors_seconds", rounded(featureSeconds, 2)}};
    for (const auto &r : sentenceResults)
        timing["train_seconds"][r.name] = rounded(r.seconds, 2);
    for (const auto &r : structuralResults)
        timing["train_seconds"][r.name] = rounded(r.seconds, 2);
    for (const auto &[k, v] : attentionSeconds)
        timing["attention_seconds"][k] = rounded(v, 2);
    report["timing"] = timing;
    text += "\ntime: " + fixed(secondsSince(tStart), 1) + " s\n";
    Say(ctx) << "done in " << fixed(secondsSince(tStart), 1) << " s";
    out.json = report.dump();
    out.text = std::move(text);
    return out;
}

} // namespace treelens
