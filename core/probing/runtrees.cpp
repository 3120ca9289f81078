// runtrees: stage 2 of a probing run, the trees; see runtrees.h.
#include "core/probing/runtrees.h"

#include <algorithm>

#include "core/encoders/encoder.h"
#include "core/parsing/headrules.h"
#include "core/parsing/neural/neuralparser.h"
#include "core/parsing/parser.h"

namespace treelens {

namespace {

bool contains(const std::vector<std::string> &v, const std::string &x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

bool usesSpanTree(const std::string &task)
{
    return task == "treedepth" || task == "constituent-mass" || task == "link-probs";
}

bool needsDependency(const std::string &task)
{
    return task == "structural-distance" || task == "structural-depth" || task == "head-accuracy" ||
           task == "attention-mst";
}

/// Parses as `treelens-cli parse --parser neural` does, a sentence over 250
/// words refused (left without trees, its error in `failures`, worded as the
/// report has always listed it in data.parse_failure_examples); the rest in one
/// batched parseAll. Existing trees are dropped.
Result<std::vector<Sentence>> parseNeural(Parser &parser, std::vector<Sentence> sentences, const std::string &source,
                                          std::vector<std::string> &failures)
{
    CorpusParseOptions options;
    options.maxWords = 250;
    options.limitHint = "see --max-words";
    return parseCorpus(parser, std::move(sentences), source, options, &failures);
}

/// The tasks that need dependency trees, for the error when there are none.
std::string dependencyTasks(const std::vector<std::string> &tasks, const std::string &tree)
{
    std::string which;
    for (const auto &t : tasks)
        if (needsDependency(t) || (tree == "dependency" && usesSpanTree(t)))
            which += (which.empty() ? "" : ", ") + t;
    return which;
}

/// The tasks that need constituency trees, for the error when there are none.
std::string constituencyTasks(const std::vector<std::string> &tasks, const std::string &tree)
{
    std::string which = contains(tasks, "topconst") ? std::string("topconst") : std::string();
    if (contains(tasks, "unsupervised-parsing"))
        which += std::string(which.empty() ? "" : ", ") + "unsupervised-parsing";
    for (const auto &t : {"treedepth", "constituent-mass", "link-probs"})
        if (contains(tasks, t) && tree == "constituency")
            which += std::string(which.empty() ? "" : ", ") + t + " (tree constituency)";
    return which;
}

/// Predicts the constituency trees of `todo` with the neural parser; only
/// `.constituency` is taken from the parse of a copy.
Status predictConstituency(const ProbeRunContext &ctx, const std::vector<Sentence *> &todo, const ProbeRunConfig &config,
                           const std::string &files, ProbeTrees &trees)
{
    const auto t0 = ProbeClock::now();
    ParserConfig parserConfig;
    parserConfig.backend = "neural";
    parserConfig.constituencyModel = config.constParserModel;
    parserConfig.dependencyModel = config.depParserModel;
    if (parserConfig.constituencyModel.empty() && findShippedModel(kShippedConstituencyParser).empty())
        return Error{std::string("constituency trees are needed and the input lacks them, but the neural "
                                 "constituency parser ") +
                     kShippedConstituencyParser +
                     " was not found (give a constituency parser model, or use tree source gold with a PTB treebank)"};
    auto parser = createParser(parserConfig);
    if (!parser)
        return Error{"predicting constituency trees: " + parser.message(), parser.code()};
    ProgressLine(ctx) << "predicting constituency trees for " << todo.size() << " sentences with the neural parser";
    std::vector<Sentence> copies;
    copies.reserve(todo.size());
    for (const auto *s : todo)
        copies.push_back(*s);
    std::vector<std::string> failures;
    auto parsed = parseNeural(**parser, std::move(copies), files, failures);
    if (!parsed)
        return Error{"predicting constituency trees: " + parsed.message(), parsed.code()};
    for (std::size_t i = 0; i < todo.size(); ++i) {
        Sentence &p = (*parsed)[i];
        if (p.constituency && trees.constParser.empty())
            trees.constParser = p.metadataValue("parser.constituency_model");
        todo[i]->constituency = std::move(p.constituency); // a sentence the parser refused is left without
        if (todo[i]->constituency)
            todo[i]->setMetadata("probe.constituency", "predicted");
    }
    if (trees.constParser.empty() && failures.size() < todo.size())
        return Error{"the neural parser gave no constituency trees (its constituency model was not loaded; "
                     "give a constituency parser model)"};
    trees.parseFailures = std::move(failures);
    trees.parseSeconds = secondsSince(t0);
    ProgressLine(ctx) << "parsed in " << probeFixed(trees.parseSeconds, 1) << " s";
    return {};
}

void countProvenance(const ProbeData &data, ProbeTrees &trees)
{
    data.forEach([&](const Sentence &s) {
        if (s.constituency)
            (s.metadataValue("probe.constituency") == "predicted" ? trees.constPredicted : trees.constGold) += 1;
        else
            trees.constMissing += 1;
        if (s.dependency)
            (s.metadataValue("probe.dependency") == "head-rules" ? trees.depHeadRules : trees.depGold) += 1;
        else
            trees.depMissing += 1;
    });
}

} // namespace

std::string ProbeTrees::constituencyText() const
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

std::string ProbeTrees::dependencyText() const
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

void chooseProbeTrees(const ProbeRunConfig &config, const std::vector<std::string> &tasks, long haveConstituency,
                      long haveDependency, ProbeTrees &trees)
{
    // The reasons are the report's settings.tree_reason, worded as they always were.
    if (config.tree == "constituency" || config.tree == "dependency") {
        trees.tree = config.tree;
        trees.treeWhy = "--tree " + config.tree;
    } else if (config.treeSource == "parsed") {
        trees.tree = "constituency";
        trees.treeWhy = "--tree-source parsed";
    } else if (haveConstituency > 0) {
        trees.tree = "constituency";
        trees.treeWhy = "the input has constituency trees";
    } else if (haveDependency > 0) {
        trees.tree = "dependency";
        trees.treeWhy = "the input has no constituency trees (--tree constituency predicts them)";
    } else {
        trees.tree = "constituency";
        trees.treeWhy = "the input has no trees";
    }
    const bool spanTasks = std::any_of(tasks.begin(), tasks.end(), usesSpanTree);
    trees.needConst = contains(tasks, "topconst") || contains(tasks, "unsupervised-parsing") ||
                      (spanTasks && trees.tree == "constituency");
    trees.needDep = std::any_of(tasks.begin(), tasks.end(), needsDependency) || (spanTasks && trees.tree == "dependency");
}

std::pair<long, long> addHeadRuleDependencies(ProbeData &data)
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
    return {haveConst, haveDep};
}

Result<ProbeTrees> prepareProbeTrees(const ProbeRunContext &ctx, ProbeData &data, const ProbeRunConfig &config,
                                     const std::vector<std::string> &tasks)
{
    ProbeTrees trees;
    const auto [haveConst, haveDep] = addHeadRuleDependencies(data);
    chooseProbeTrees(config, tasks, haveConst, haveDep, trees);
    const std::string files = probeFileList(config.train);
    if (trees.needDep && haveDep == 0)
        return Error{dependencyTasks(tasks, trees.tree) + " need dependency trees, and " + files +
                     " has none (give CoNLL-U, or a PTB treebank: its dependency trees come from Collins head rules)"};
    if (trees.needConst) {
        std::vector<Sentence *> todo;
        data.forEach([&](Sentence &s) {
            if (!s.tokens.empty() && (config.treeSource == "parsed" || !s.constituency))
                todo.push_back(&s);
        });
        if (!todo.empty() && config.treeSource == "gold") {
            if (haveConst == 0)
                return Error{constituencyTasks(tasks, trees.tree) + " needs constituency trees, and " + files +
                             " has none; tree source gold turns off predicting them with the neural parser "
                             "(choose another tree source, or give a PTB treebank)"};
            todo.clear(); // some sentences lack one: the tasks exclude and count them
        }
        if (!todo.empty())
            if (auto s = predictConstituency(ctx, todo, config, files, trees); !s)
                return s.error();
    }
    countProvenance(data, trees);
    return trees;
}

} // namespace treelens
