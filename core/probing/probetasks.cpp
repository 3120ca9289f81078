#include "core/probing/probetasks.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <utility>

namespace treelens {

namespace {

const char *const kSplitNames[3] = {"train", "dev", "test"};

std::string lower(std::string s)
{
    for (auto &c : s)
        if (static_cast<unsigned char>(c) < 0x80)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

int sentenceLength(const Sentence &s)
{
    if (!s.tokens.empty())
        return static_cast<int>(s.tokens.size());
    if (s.constituency && !s.constituency->empty())
        return s.constituency->wordCount();
    if (s.dependency)
        return static_cast<int>(s.dependency->size());
    return 0;
}

/// Longest root-word -> word chain in words (root word = 1); -1 if the heads do
/// not form a tree (a head out of range or -1, or a cycle).
int dependencyDepth(const DependencyTree &t)
{
    const int n = static_cast<int>(t.heads.size());
    if (n == 0)
        return -1;
    std::vector<int> depth(static_cast<std::size_t>(n), 0); // 0 = unknown
    int best = 0;
    for (int i = 0; i < n; ++i) {
        // Walk up until a known depth or the root, then fill in on the way back.
        std::vector<int> path;
        int cur = i;
        int base = 0;
        while (true) {
            if (depth[static_cast<std::size_t>(cur)] > 0) {
                base = depth[static_cast<std::size_t>(cur)];
                break;
            }
            path.push_back(cur);
            if (static_cast<int>(path.size()) > n)
                return -1; // cycle
            const int h = t.heads[static_cast<std::size_t>(cur)];
            if (h == 0) {
                base = 0;
                break;
            }
            if (h < 0 || h > n)
                return -1;
            cur = h - 1;
        }
        for (auto it = path.rbegin(); it != path.rend(); ++it)
            depth[static_cast<std::size_t>(*it)] = ++base;
        best = std::max(best, depth[static_cast<std::size_t>(i)]);
    }
    return best;
}

std::string joinLabels(const std::vector<std::string> &v)
{
    std::string out;
    for (const auto &s : v) {
        if (!out.empty())
            out += ' ';
        out += s;
    }
    return out;
}

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

std::uint64_t fnv1a64(const std::string &s)
{
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001B3ull;
    }
    return h;
}

/// One sentence's raw value for a task: a number (length, depth) or a string
/// (top constituents), or the reason it is left out.
struct RawValue {
    int number = 0;
    std::string text;
    std::string excludedReason; ///< non-empty: left out
    int depthKind = 0;          ///< TreeDepth: 1 constituency, 2 dependency
};

RawValue rawValue(ProbeTask task, const Sentence &s, const ProbeTaskOptions &opt)
{
    RawValue v;
    const int len = sentenceLength(s);
    if (len == 0) {
        v.excludedReason = "empty-sentence";
        return v;
    }
    const bool hasConst = s.constituency && !s.constituency->empty() && s.constituency->wordCount() > 0;
    switch (task) {
    case ProbeTask::SentLen:
    case ProbeTask::SentLenBins:
        v.number = len;
        break;
    case ProbeTask::TopConst:
        if (!hasConst)
            v.excludedReason = "no-constituency-tree";
        else
            v.text = joinLabels(s.constituency->topConstituents());
        break;
    case ProbeTask::TreeDepth: {
        const bool useConst = opt.depthSource != DepthSource::Dependency && hasConst;
        if (useConst) {
            v.number = s.constituency->depth();
            v.depthKind = 1;
        } else if (opt.depthSource == DepthSource::Constituency) {
            v.excludedReason = "no-constituency-tree";
        } else if (!s.dependency || s.dependency->size() == 0) {
            v.excludedReason = opt.depthSource == DepthSource::Dependency ? "no-dependency-tree" : "no-tree";
        } else {
            v.number = dependencyDepth(*s.dependency);
            v.depthKind = 2;
            if (v.number < 0)
                v.excludedReason = "invalid-dependency-tree";
        }
        break;
    }
    }
    return v;
}

/// Length bins: inclusive [lo, hi] word counts (hi = INT_MAX for an open bin).
struct LengthBin {
    int lo, hi;
    std::string label;
};

std::vector<LengthBin> conneauBins()
{
    return {{5, 8, "5-8"}, {9, 12, "9-12"}, {13, 16, "13-16"}, {17, 20, "17-20"}, {21, 25, "21-25"}, {26, 28, "26-28"}};
}

std::vector<LengthBin> equalFrequencyBins(std::vector<int> lengths)
{
    std::sort(lengths.begin(), lengths.end());
    const std::size_t n = lengths.size();
    std::vector<int> cuts; // a cut c starts a new bin at length c
    for (std::size_t k = 1; k < 6; ++k) {
        const int c = lengths[k * n / 6];
        if (c > 1 && (cuts.empty() || c > cuts.back()))
            cuts.push_back(c);
    }
    std::vector<LengthBin> bins;
    int lo = 1;
    for (int c : cuts) {
        bins.push_back({lo, c - 1, std::to_string(lo) + "-" + std::to_string(c - 1)});
        lo = c;
    }
    bins.push_back({lo, std::numeric_limits<int>::max(), std::to_string(lo) + "+"});
    return bins;
}

} // namespace

Result<ProbeTask> parseProbeTask(const std::string &name)
{
    const std::string n = lower(name);
    if (n == "sentlen")
        return ProbeTask::SentLen;
    if (n == "sentlen-bins" || n == "sentlenbins" || n == "sentlen_bins")
        return ProbeTask::SentLenBins;
    if (n == "treedepth")
        return ProbeTask::TreeDepth;
    if (n == "topconst")
        return ProbeTask::TopConst;
    return Error{"unknown probing task '" + name + "' (expected sentlen, sentlen-bins, treedepth or topconst)"};
}

std::string probeTaskName(ProbeTask task)
{
    switch (task) {
    case ProbeTask::SentLen: return "sentlen";
    case ProbeTask::SentLenBins: return "sentlen-bins";
    case ProbeTask::TreeDepth: return "treedepth";
    case ProbeTask::TopConst: return "topconst";
    }
    return "";
}

bool isClassificationTask(ProbeTask task) { return task != ProbeTask::SentLen; }

SplitIndices seededSplit(std::size_t n, double trainFraction, double devFraction, std::uint32_t seed)
{
    std::vector<int> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = static_cast<int>(i);
    std::mt19937 rng(seed);
    for (std::size_t i = n; i-- > 1;) {
        const std::uint64_t j = (static_cast<std::uint64_t>(rng()) * static_cast<std::uint64_t>(i + 1)) >> 32;
        std::swap(order[i], order[static_cast<std::size_t>(j)]);
    }
    const auto clampCount = [](long long v, std::size_t max) {
        return static_cast<std::size_t>(std::clamp<long long>(v, 0, static_cast<long long>(max)));
    };
    const std::size_t nTrain = clampCount(std::llround(static_cast<double>(n) * trainFraction), n);
    const std::size_t nDev = clampCount(std::llround(static_cast<double>(n) * devFraction), n - nTrain);
    SplitIndices out;
    out.train.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(nTrain));
    out.dev.assign(order.begin() + static_cast<std::ptrdiff_t>(nTrain),
                   order.begin() + static_cast<std::ptrdiff_t>(nTrain + nDev));
    out.test.assign(order.begin() + static_cast<std::ptrdiff_t>(nTrain + nDev), order.end());
    std::sort(out.train.begin(), out.train.end());
    std::sort(out.dev.begin(), out.dev.end());
    std::sort(out.test.begin(), out.test.end());
    return out;
}

namespace {

using Splits = std::vector<std::vector<std::pair<int, const Sentence *>>>;
/// Per split, the sentences kept for the task: (sentence index to record, raw value).
using RawSplits = std::vector<std::vector<std::pair<int, RawValue>>>;

/// Whether the splits can make the task at all: train and test sentences, and
/// the trees the task reads in at least one train sentence.
Status checkSplits(ProbeTask task, const Splits &splits, const ProbeTaskOptions &opt)
{
    const std::string name = probeTaskName(task);
    if (splits[0].empty())
        return Error{"probing task " + name + ": the train split is empty"};
    if (splits[2].empty())
        return Error{"probing task " + name + ": the test split is empty"};

    const bool needsConst = task == ProbeTask::TopConst
        || (task == ProbeTask::TreeDepth && opt.depthSource == DepthSource::Constituency);
    if (needsConst) {
        const bool any = std::any_of(splits[0].begin(), splits[0].end(), [](const auto &p) {
            return p.second->constituency && !p.second->constituency->empty();
        });
        if (!any)
            return Error{"probing task " + name + " needs constituency trees, but none of the "
                         + std::to_string(splits[0].size())
                         + " train sentences has one: parse the corpus with a constituency parser or load a PTB (.mrg) treebank"};
    }
    if (task == ProbeTask::TreeDepth && opt.depthSource != DepthSource::Constituency) {
        const bool any = std::any_of(splits[0].begin(), splits[0].end(), [&](const auto &p) {
            const bool c = p.second->constituency && !p.second->constituency->empty();
            const bool d = p.second->dependency && p.second->dependency->size() > 0;
            return opt.depthSource == DepthSource::Dependency ? d : (c || d);
        });
        if (!any)
            return Error{"probing task treedepth needs "
                         + std::string(opt.depthSource == DepthSource::Dependency ? "dependency trees" : "trees")
                         + ", but none of the " + std::to_string(splits[0].size())
                         + " train sentences has one: parse the corpus or load a treebank"};
    }
    if (task == ProbeTask::TopConst && opt.topConstClasses < 2)
        return Error{"probing task topconst: topConstClasses must be at least 2 (the last class is \"other\")"};
    return {};
}

/// Every sentence's raw value; the ones left out are counted in ds.excluded
/// ("split/reason"), and a depth task's ds.depthSource says which trees it read.
RawSplits rawValues(ProbeTask task, const Splits &splits, const ProbeTaskOptions &opt, ProbeDataset &ds)
{
    RawSplits raw(3);
    long nConst = 0, nDep = 0;
    for (int k = 0; k < 3; ++k) {
        for (const auto &[index, sentence] : splits[static_cast<std::size_t>(k)]) {
            RawValue v = rawValue(task, *sentence, opt);
            if (!v.excludedReason.empty()) {
                ++ds.excluded[std::string(kSplitNames[k]) + "/" + v.excludedReason];
                continue;
            }
            if (v.depthKind == 1) ++nConst;
            if (v.depthKind == 2) ++nDep;
            raw[static_cast<std::size_t>(k)].emplace_back(index, std::move(v));
        }
    }
    if (task == ProbeTask::TreeDepth) {
        if (nDep == 0)
            ds.depthSource = "constituency";
        else if (nConst == 0)
            ds.depthSource = "dependency";
        else
            ds.depthSource = "mixed (constituency " + std::to_string(nConst) + ", dependency " + std::to_string(nDep) + ")";
    }
    return raw;
}

/// How raw values become labels, decided from the train values alone.
struct LabelScheme {
    std::vector<LengthBin> bins;             // SentLenBins
    std::map<int, int> depthClass;           // depth -> label
    std::map<std::string, int> topConstClass; // sequence -> label
    int otherLabel = -1;
    std::string outsideReason;               // why a value without a label is left out
};

/// The task's labels (into ds.labels, in label order) and the scheme that assigns them.
Result<LabelScheme> labelScheme(ProbeTask task, const std::vector<std::pair<int, RawValue>> &train, const ProbeTaskOptions &opt,
                                ProbeDataset &ds)
{
    LabelScheme ls;
    switch (task) {
    case ProbeTask::SentLen:
        break;
    case ProbeTask::SentLenBins: {
        if (opt.binning == LengthBinning::Conneau) {
            ls.bins = conneauBins();
        } else {
            std::vector<int> lengths;
            for (const auto &p : train)
                lengths.push_back(p.second.number);
            if (lengths.empty())
                return Error{"probing task sentlen-bins: no train sentence has words"};
            ls.bins = equalFrequencyBins(std::move(lengths));
        }
        for (const auto &b : ls.bins)
            ds.labels.push_back(b.label);
        ls.outsideReason = "outside-length-bins";
        break;
    }
    case ProbeTask::TreeDepth: {
        std::map<int, long> counts;
        for (const auto &p : train)
            ++counts[p.second.number];
        for (const auto &[d, c] : counts)
            if (c >= std::max(1, opt.depthMinCount)) {
                ls.depthClass[d] = static_cast<int>(ds.labels.size());
                ds.labels.push_back(std::to_string(d));
            }
        if (opt.rareDepth == RareDepth::Other) {
            ls.otherLabel = static_cast<int>(ds.labels.size());
            ds.labels.push_back("other");
        }
        ls.outsideReason = "rare-depth";
        break;
    }
    case ProbeTask::TopConst: {
        std::map<std::string, long> counts;
        for (const auto &p : train)
            ++counts[p.second.text];
        std::vector<std::pair<std::string, long>> sorted(counts.begin(), counts.end());
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto &a, const auto &b) { return a.second > b.second; }); // ties: map order = string order
        const std::size_t keep = std::min(sorted.size(), static_cast<std::size_t>(opt.topConstClasses - 1));
        for (std::size_t i = 0; i < keep; ++i) {
            ls.topConstClass[sorted[i].first] = static_cast<int>(ds.labels.size());
            ds.labels.push_back(sorted[i].first);
        }
        ls.otherLabel = static_cast<int>(ds.labels.size());
        ds.labels.push_back("other");
        break;
    }
    }
    return ls;
}

/// One sentence's example: its target and (classification tasks) its label, -1 when it has none.
ProbeExample labelledExample(ProbeTask task, int index, const RawValue &v, const LabelScheme &ls)
{
    ProbeExample e;
    e.sentence = index;
    switch (task) {
    case ProbeTask::SentLen:
        e.target = v.number;
        break;
    case ProbeTask::SentLenBins:
        for (std::size_t b = 0; b < ls.bins.size(); ++b)
            if (v.number >= ls.bins[b].lo && v.number <= ls.bins[b].hi)
                e.label = static_cast<int>(b);
        e.target = v.number;
        break;
    case ProbeTask::TreeDepth: {
        const auto it = ls.depthClass.find(v.number);
        e.label = it != ls.depthClass.end() ? it->second : ls.otherLabel;
        e.target = v.number;
        break;
    }
    case ProbeTask::TopConst: {
        const auto it = ls.topConstClass.find(v.text);
        e.label = it != ls.topConstClass.end() ? it->second : ls.otherLabel;
        e.target = e.label;
        break;
    }
    }
    return e;
}

/// The common builder: splits[k] lists (sentence index to record, sentence).
Result<ProbeDataset> build(ProbeTask task, const Splits &splits, const ProbeTaskOptions &opt)
{
    if (auto s = checkSplits(task, splits, opt); !s)
        return s.error();
    const std::string name = probeTaskName(task);
    ProbeDataset ds;
    ds.task = name;
    const RawSplits raw = rawValues(task, splits, opt, ds);
    auto scheme = labelScheme(task, raw[0], opt, ds);
    if (!scheme)
        return scheme.error();

    std::vector<ProbeExample> *outs[3] = {&ds.train, &ds.dev, &ds.test};
    for (int k = 0; k < 3; ++k) {
        for (const auto &[index, v] : raw[static_cast<std::size_t>(k)]) {
            const ProbeExample e = labelledExample(task, index, v, *scheme);
            if (task != ProbeTask::SentLen && e.label < 0) {
                ++ds.excluded[std::string(kSplitNames[k]) + "/" + scheme->outsideReason];
                continue;
            }
            outs[k]->push_back(e);
        }
    }
    if (ds.train.empty()) {
        std::string why;
        for (const auto &[key, n] : ds.excluded)
            why += (why.empty() ? "" : ", ") + key + " " + std::to_string(n);
        return Error{"probing task " + name + ": no train sentence could be labelled (excluded: " + why + ")"};
    }
    return ds;
}

} // namespace

Result<ProbeDataset> buildProbeDataset(ProbeTask task, const std::vector<Sentence> &train,
                                       const std::vector<Sentence> &dev, const std::vector<Sentence> &test,
                                       const ProbeTaskOptions &options)
{
    std::vector<std::vector<std::pair<int, const Sentence *>>> splits(3);
    const std::vector<Sentence> *in[3] = {&train, &dev, &test};
    for (int k = 0; k < 3; ++k)
        for (std::size_t i = 0; i < in[k]->size(); ++i)
            splits[static_cast<std::size_t>(k)].emplace_back(static_cast<int>(i), &(*in[k])[i]);
    auto r = build(task, splits, options);
    if (r.ok())
        r->split = "given";
    return r;
}

Result<ProbeDataset> buildProbeDataset(ProbeTask task, const std::vector<Sentence> &corpus,
                                       const ProbeTaskOptions &options)
{
    const double tf = options.trainFraction, df = options.devFraction;
    if (!(tf > 0.0 && tf < 1.0) || !(df >= 0.0 && df < 1.0) || !(tf + df < 1.0))
        return Error{"probing: split fractions must satisfy 0 < train < 1, 0 <= dev, train + dev < 1 (got train "
                     + std::to_string(tf) + ", dev " + std::to_string(df) + ")"};
    const SplitIndices s = seededSplit(corpus.size(), tf, df, options.splitSeed);
    std::vector<std::vector<std::pair<int, const Sentence *>>> splits(3);
    const std::vector<int> *idx[3] = {&s.train, &s.dev, &s.test};
    for (int k = 0; k < 3; ++k)
        for (int i : *idx[k])
            splits[static_cast<std::size_t>(k)].emplace_back(i, &corpus[static_cast<std::size_t>(i)]);
    auto r = build(task, splits, options);
    if (r.ok()) {
        std::ostringstream os;
        os << "seeded " << tf << "/" << df << "/" << (1.0 - tf - df) << " seed=" << options.splitSeed;
        r->split = os.str();
        r->oneCorpus = true;
    }
    return r;
}

std::string controlWordType(const Sentence &sentence)
{
    if (!sentence.tokens.empty())
        return lower(sentence.tokens.front().text);
    if (sentence.constituency && !sentence.constituency->empty()) {
        const auto w = sentence.constituency->words();
        if (!w.empty())
            return lower(w.front());
    }
    return "";
}

ProbeDataset controlTask(const ProbeDataset &dataset, const std::vector<Sentence> &train,
                         const std::vector<Sentence> &dev, const std::vector<Sentence> &test, std::uint64_t seed)
{
    ProbeDataset out = dataset;
    out.task = "control-" + dataset.task;
    const std::uint64_t n = dataset.train.size();
    if (n == 0)
        return out;
    std::vector<long> cumulative;
    if (!dataset.regression()) {
        long acc = 0;
        for (long c : labelCounts(dataset.train, dataset.labels.size()))
            cumulative.push_back(acc += c);
    }
    const std::uint64_t seedMix = splitmix64(seed);
    const auto draw = [&](const std::string &type) -> std::uint64_t {
        const std::uint64_t u = splitmix64(fnv1a64(type) ^ seedMix);
        return ((u >> 32) * n) >> 32; // in [0, n)
    };
    const std::vector<Sentence> *in[3] = {&train, &dev, &test};
    std::vector<ProbeExample> *outs[3] = {&out.train, &out.dev, &out.test};
    for (int k = 0; k < 3; ++k) {
        for (auto &e : *outs[k]) {
            const auto &s = (*in[k])[static_cast<std::size_t>(e.sentence)];
            const std::uint64_t r = draw(controlWordType(s));
            if (dataset.regression()) {
                e.target = dataset.train[static_cast<std::size_t>(r)].target;
            } else {
                const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), static_cast<long>(r));
                e.label = static_cast<int>(it - cumulative.begin());
                e.target = e.label;
            }
        }
    }
    return out;
}

ProbeDataset controlTask(const ProbeDataset &dataset, const std::vector<Sentence> &corpus, std::uint64_t seed)
{
    return controlTask(dataset, corpus, corpus, corpus, seed);
}

std::vector<long> labelCounts(const std::vector<ProbeExample> &examples, std::size_t numLabels)
{
    std::vector<long> c(numLabels, 0);
    for (const auto &e : examples)
        if (e.label >= 0 && static_cast<std::size_t>(e.label) < numLabels)
            ++c[static_cast<std::size_t>(e.label)];
    return c;
}

int majorityLabel(const ProbeDataset &dataset)
{
    if (dataset.regression() || dataset.train.empty())
        return -1;
    const auto c = labelCounts(dataset.train, dataset.labels.size());
    return static_cast<int>(std::max_element(c.begin(), c.end()) - c.begin()); // first maximum
}

double majorityAccuracy(const ProbeDataset &dataset)
{
    const int m = majorityLabel(dataset);
    if (m < 0 || dataset.test.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const auto c = labelCounts(dataset.test, dataset.labels.size());
    return static_cast<double>(c[static_cast<std::size_t>(m)]) / static_cast<double>(dataset.test.size());
}

double majorityMacroF1(const ProbeDataset &dataset)
{
    const int m = majorityLabel(dataset);
    if (m < 0 || dataset.test.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const auto c = labelCounts(dataset.test, dataset.labels.size());
    long k = 0;
    for (std::size_t i = 0; i < c.size(); ++i)
        if (c[i] > 0 || static_cast<int>(i) == m)
            ++k;
    const double p = static_cast<double>(c[static_cast<std::size_t>(m)]) / static_cast<double>(dataset.test.size());
    const double f1 = p > 0 ? 2 * p / (1 + p) : 0.0;
    return f1 / static_cast<double>(k);
}

RegressionBaseline meanBaseline(const ProbeDataset &dataset)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    RegressionBaseline b{nan, nan, nan};
    if (dataset.train.empty() || dataset.test.empty())
        return b;
    double sum = 0;
    for (const auto &e : dataset.train)
        sum += e.target;
    b.mean = sum / static_cast<double>(dataset.train.size());
    double testSum = 0, se = 0;
    for (const auto &e : dataset.test) {
        testSum += e.target;
        se += (e.target - b.mean) * (e.target - b.mean);
    }
    const double nt = static_cast<double>(dataset.test.size());
    b.mse = se / nt;
    const double testMean = testSum / nt;
    double var = 0;
    for (const auto &e : dataset.test)
        var += (e.target - testMean) * (e.target - testMean);
    var /= nt;
    b.r2 = var > 0 ? 1.0 - b.mse / var : nan;
    return b;
}

std::string describeProbeDataset(const ProbeDataset &ds)
{
    std::ostringstream os;
    os << "task " << ds.task << " (" << (ds.regression() ? "regression" : std::to_string(ds.labels.size()) + " classes")
       << "), split " << ds.split << ": train " << ds.train.size() << ", dev " << ds.dev.size() << ", test "
       << ds.test.size() << "\n";
    if (!ds.depthSource.empty())
        os << "tree depth from: " << ds.depthSource << "\n";
    if (!ds.regression()) {
        const auto tr = labelCounts(ds.train, ds.labels.size());
        const auto dv = labelCounts(ds.dev, ds.labels.size());
        const auto te = labelCounts(ds.test, ds.labels.size());
        os << "label\ttrain\tdev\ttest\n";
        for (std::size_t i = 0; i < ds.labels.size(); ++i)
            os << ds.labels[i] << "\t" << tr[i] << "\t" << dv[i] << "\t" << te[i] << "\n";
        os << "majority baseline (\"" << ds.labels[static_cast<std::size_t>(std::max(0, majorityLabel(ds)))]
           << "\"): test accuracy " << majorityAccuracy(ds) << ", macro-F1 " << majorityMacroF1(ds) << "\n";
    } else {
        const auto b = meanBaseline(ds);
        os << "mean baseline (" << b.mean << "): test MSE " << b.mse << ", R2 " << b.r2 << "\n";
    }
    if (ds.excluded.empty()) {
        os << "excluded: none\n";
    } else {
        os << "excluded:";
        for (const auto &[k, n] : ds.excluded)
            os << " " << k << " " << n << ";";
        os << "\n";
    }
    return os.str();
}

} // namespace treelens
