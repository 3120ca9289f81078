// probe: headless probing and attention–tree analysis over a corpus (TreeLens issue 6).
//
// Parses the options into a ProbeRunConfig and runs core/probing/proberun.h's
// runProbes (which the GUI probing panel runs too, so both give the same
// numbers); prints its text report or, with --json, its JSON
// (core/probing/probejson.h). Progress goes to stderr. Core names the setting
// an error is about; the messages get the flags' names here.
//
// probe-tables: the Markdown tables of docs/probing.md from probe reports, by the
// comparison rules of core/probing/probecompare.h (the GUI's Compare tab uses the
// same); scripts/probing_tables.py runs it.
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/cli/command.h"
#include "app/cli/queryfilter.h"
#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/formats/shard.h"
#include "core/probing/probejson.h"
#include "core/probing/probecompare.h"
#include "core/probing/probenotes.h"
#include "core/probing/proberun.h"
#include "core/probing/runreport.h"

namespace treelens::cli {

namespace {

/// The options: the run's configuration plus where and how to print.
struct ProbeSpec : ProbeRunConfig {
    bool json = false;
    std::string out;
    bool extractFeatures = false; ///< write the features (to -o) instead of training probes
    ShardOptions shard;
    std::string relationSubtypes = "fold"; ///< --relation-subtypes
    WhereSpec where;
};

/// Core's error messages name the setting (ProbeRunConfig's field in words);
/// the command line names its flag.
std::string withFlagNames(std::string message)
{
    // Messages that start with the setting's name.
    static const std::pair<const char *, const char *> kPrefixes[] = {
        {"tasks: ", "--task: "},
        {"layers: ", "--layers: "},
        {"probe device: ", "--probe-device: "},
        {"pooling cls: ", "--pooling cls: "},
        {"where: ", "--where: "},
    };
    for (const auto &[core, flag] : kPrefixes)
        if (message.rfind(core, 0) == 0)
            return flag + message.substr(std::string(core).size());
    // Settings named inside a message.
    static const std::pair<const char *, const char *> kPhrases[] = {
        {"a dev split needs a test split (with a training split alone",
         "--dev needs --test (with --train alone"},
        {"depth min count must be", "--depth-min-count must be"},
        {"encoder batch must be", "--encoder-batch must be"},
        {"no model given and the shipped default model", "no --model given and the shipped default model"},
        {" (tree constituency)", " (--tree constituency)"},
        {"; tree source gold turns off predicting them", "; --tree-source gold turns off predicting them"},
        {"(choose another tree source, or give a PTB treebank)", "(drop --tree-source gold, or give a PTB treebank)"},
        {"(give a constituency parser model, or use tree source gold with a PTB treebank)",
         "(give --const-parser-model, or use --tree-source gold with a PTB treebank)"},
        {"give a constituency parser model)", "give --const-parser-model)"},
    };
    for (const auto &[core, flag] : kPhrases)
        for (auto at = message.find(core); at != std::string::npos; at = message.find(core, at + std::string(flag).size()))
            message.replace(at, std::string(core).size(), flag);
    return message;
}

/// --extract-features and --shard: the features of the run (or of one shard of its
/// sentences) written to -o OUT (core/probing/runfeaturefile.h).
int extractFeatures(const ProbeSpec &spec, const ProbeRunConfig &config, const ProbeRunCallbacks &callbacks)
{
    if (!spec.featuresFile.empty())
        return fail(std::string(spec.shard.shard.empty() ? "--extract-features" : "--shard") +
                    " extracts the features: it reads no --features file");
    std::vector<std::string> inputs = spec.train;
    inputs.insert(inputs.end(), spec.dev.begin(), spec.dev.end());
    inputs.insert(inputs.end(), spec.test.begin(), spec.test.end());
    auto header = shardHeaderFor(spec.shard, "probe", inputs, spec.out);
    if (!header)
        return fail(header.message());
    if (spec.out.empty() || spec.out == "-")
        return fail("--extract-features needs -o OUT (the features file: binary floats)");
    if (*header && skipDoneShard(spec.shard, **header, spec.out))
        return 0;
    auto writer = AtomicFileWriter::open(spec.out);
    if (!writer)
        return fail(writer.message());
    ProbeFeatureSink sink;
    sink.begin = [&](std::size_t total, ShardRange range) -> Status {
        if (!*header)
            return {};
        (*header)->total = total;
        (*header)->begin = range.begin;
        (*header)->end = range.end;
        (*header)->headerLines = 1; // the features' first line, which every shard repeats
        return writer->write(shardHeaderLine(**header));
    };
    sink.write = [&](std::string_view bytes) { return writer->write(bytes); };
    auto records = extractProbeRunFeatures(config, *header ? (*header)->shard : ShardSpec{}, sink, callbacks);
    if (!records)
        return fail(withFlagNames(records.message()));
    if (*header)
        if (auto st = writer->write(shardEndLine(*records)); !st)
            return fail(st.message());
    if (auto st = writer->commit(); !st)
        return fail(st.message());
    return 0;
}

/// The corpora's name in --where's parser messages: the one file, or all of them.
std::string corporaName(const ProbeSpec &spec)
{
    std::vector<std::string> files = spec.train;
    files.insert(files.end(), spec.dev.begin(), spec.dev.end());
    files.insert(files.end(), spec.test.begin(), spec.test.end());
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    return files.size() == 1 ? files.front() : "the probe corpora";
}

/// --where: the restriction core applies to the run (core/probing/runwhere.h), its
/// occurrences found by the query filter (sentences lacking the pattern's tree parsed as query
/// parses them, in blocks of 2,000), its words from 0 as core counts them.
Result<ProbeRestriction> probeRestriction(const ProbeSpec &spec)
{
    auto parser = std::make_shared<const ParserSpec>(); // query's default parser options
    auto opened = QueryFilter::open(spec.where, *parser, corporaName(spec));
    if (!opened)
        return opened.error();
    auto filter = std::make_shared<QueryFilter>(std::move(*opened));
    ProbeRestriction r;
    r.pattern = filter->pattern().text();
    r.syntax = filter->pattern().syntax();
    r.nodes = filter->pattern().names().size();
    r.match = [filter, parser](const std::vector<const Sentence *> &sentences) -> Result<ProbeWhereMatches> {
        constexpr std::size_t kBlock = 2000;
        const bool dependency = filter->pattern().tree() == PatternTree::Dependency;
        ProbeWhereMatches m;
        for (std::size_t begin = 0; begin < sentences.size(); begin += kBlock) {
            std::vector<Sentence> chunk;
            for (std::size_t i = begin; i < std::min(sentences.size(), begin + kBlock); ++i)
                chunk.push_back(*sentences[i]);
            auto found = filter->match(chunk);
            if (!found)
                return found.error();
            for (std::size_t k = 0; k < chunk.size(); ++k) {
                std::vector<std::vector<int>> occurrences;
                for (const PatternOccurrence &o : (*found)[k]) {
                    std::vector<int> words;
                    for (int w : o.words)
                        words.push_back(w > 0 ? w - 1 : -1); // the anchor (0) and unbound names (-1) bind no word
                    occurrences.push_back(std::move(words));
                }
                m.occurrences.push_back(std::move(occurrences));
                m.searched.push_back(dependency ? chunk[k].dependency.has_value()
                                                : chunk[k].constituency && !chunk[k].constituency->empty());
            }
        }
        m.predicted = filter->totals().predicted;
        m.trees = filter->totals().trees();
        m.parser = m.predicted > 0 ? parser->parser : std::string();
        return m;
    };
    return r;
}

} // namespace

void addProbeCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("probe", "Probe an encoder over a corpus: sentence probes (SentLen, TreeDepth, TopConst), "
                                            "structural probes and attention-tree agreement per layer and head");
    auto spec = std::make_shared<ProbeSpec>();
    cmd->add_option("--task,-t", spec->tasks,
                    "Comma list or 'all': sentlen, sentlen-bins, treedepth, topconst (sentence probes), "
                    "structural-distance, structural-depth (Hewitt & Manning), head-accuracy, constituent-mass, "
                    "attention-mst, link-probs (attention analysis, no training), unsupervised-parsing (F1 of the "
                    "Tree Transformer's induced trees against the constituency trees, with branching baselines)")
        ->required()
        ->type_name("TASKS");
    cmd->add_option("--model,-m", spec->model, "Model file; default: the shipped tree-transformer-en-small")->type_name("M");
    cmd->add_option("--train", spec->train,
                    "Training corpus: CoNLL-U, PTB .mrg or TreeLens JSON, several files allowed (e.g. wsj_0001.mrg ... "
                    "wsj_0159.mrg); alone it is cut into train/dev/test 0.8/0.1/0.1 by --split-seed")
        ->required()
        ->expected(1, -1)
        ->type_name("FILE");
    cmd->add_option("--dev", spec->dev, "Development corpus (model selection; needs --test)")->expected(1, -1)->type_name("FILE");
    cmd->add_option("--test", spec->test, "Test corpus (the reported numbers)")->expected(1, -1)->type_name("FILE");
    cmd->add_option("--from", spec->from, "Format of every corpus file (default: from each extension)")
        ->check(CLI::IsMember({"conllu", "ptb", "json", "text"}));
    cmd->add_option("--layers", spec->layers, "Layers to probe: all, or a list such as embeddings,2,4 (embeddings, "
                                              "and k = the output of encoder layer k, numbered from 1; 0 is the old "
                                              "spelling of embeddings); the attention tasks always cover every layer")
        ->capture_default_str();
    cmd->add_option("--pooling", spec->pooling, "Sentence vector of the sentence probes: the [CLS] state, the mean of "
                                                "the word states, or both")
        ->check(CLI::IsMember({"cls", "mean", "both"}))
        ->capture_default_str();
    cmd->add_option("--probe", spec->probe, "Sentence probe: mlp (one hidden layer of the input size, ReLU) or linear")
        ->check(CLI::IsMember({"mlp", "linear"}))
        ->capture_default_str();
    cmd->add_option("--rank", spec->rank, "Structural probes: rank of B (0 = d_model)")->capture_default_str();
    cmd->add_option("--seed", spec->seed, "Seed of the probes' initialisation and shuffling, the control tasks and "
                                          "the random-init encoder")
        ->capture_default_str();
    cmd->add_option("--split-seed", spec->splitSeed, "Seed of the train/dev/test split when only --train is given")
        ->capture_default_str();
    cmd->add_option("--epochs", spec->epochs, "Maximum epochs (0 = the probes' defaults: 100 sentence, 40 structural)")
        ->capture_default_str();
    cmd->add_option("--patience", spec->patience, "Epochs without a dev improvement before stopping (-1 = the "
                                                  "defaults: 10 sentence, 5 structural; 0 = never stop early)")
        ->capture_default_str();
    cmd->add_option("--lr", spec->lr, "Adam learning rate (0 = the default 0.001)")->capture_default_str();
    cmd->add_option("--batch", spec->batch, "Probe batch size (0 = the defaults: 64 sentences sentence probes, "
                                            "20 sentences structural)")
        ->capture_default_str();
    cmd->add_flag("--control", spec->control, "Sentence probes: also train on the control task (labels a random "
                                              "function of the first word) and report selectivity = task - control");
    cmd->add_flag("--random-init", spec->randomInit, "Also run every probe on a random-weight encoder of the same "
                                                     "configuration as --model (seeded by --seed)");
    cmd->add_flag("--baselines", spec->baselines, "All baselines that need training: --random-init and --control "
                                                  "(majority / mean baselines are always reported)");
    cmd->add_flag("--raw-attention", spec->rawAttention, "Attention tasks: the attention before the constituent "
                                                         "prior (softmax, not softmax x C)");
    cmd->add_option("--relation-subtypes", spec->relationSubtypes,
                    "head-accuracy: fold UD relation subtypes into their universal relation (nsubj:pass counted as "
                    "nsubj) or keep them as relations of their own; the report says which")
        ->check(CLI::IsMember({"fold", "keep"}))
        ->capture_default_str();
    cmd->add_option("--tree-source", spec->treeSource,
                    "Constituency trees: auto (the input's; those missing are predicted with the neural parser), gold "
                    "(never parse) or parsed (always predict)")
        ->check(CLI::IsMember({"auto", "gold", "parsed"}))
        ->capture_default_str();
    cmd->add_option("--tree", spec->tree, "Tree of treedepth, constituent-mass and link-probs: auto (constituency "
                                          "when the input has constituency trees, else dependency), constituency or "
                                          "dependency")
        ->check(CLI::IsMember({"auto", "constituency", "dependency"}))
        ->capture_default_str();
    cmd->add_option("--depth-min-count", spec->depthMinCount, "treedepth: a depth is a class with at least this many "
                                                              "train sentences (others are excluded)")
        ->capture_default_str();
    cmd->add_option("--attention-on", spec->attentionOn, "Attention tasks and unsupervised-parsing score the whole corpus (all) or the test split")
        ->check(CLI::IsMember({"all", "test"}))
        ->capture_default_str();
    cmd->add_option("--const-parser-model", spec->constParserModel,
                    "Constituency parser for missing trees (default: the shipped parser-const-en-ptb)")
        ->type_name("M");
    cmd->add_option("--dep-parser-model", spec->depParserModel,
                    "Dependency parser/tagger the neural backend runs first (default: the shipped parser-dep-en-ewt; "
                    "only its tags feed the constituency parser, gold dependency trees are kept)")
        ->type_name("M");
    cmd->add_option("--device", spec->device, "Encoder device: auto (the GPU when there is one), cpu, cuda or cuda:N")
        ->capture_default_str();
    cmd->add_option("--probe-device", spec->probeDevice,
                    "Where the probes train: auto (= the encoder's device), cpu, cuda or cuda:N (on the CPU: one thread per probe)")
        ->capture_default_str();
    cmd->add_option("--threads", spec->threads, "CPU threads of the encoder (0 = LibTorch's default)")->capture_default_str();
    cmd->add_option("--encoder-batch", spec->encoderBatch, "Sentences per encoder forward pass")->capture_default_str();
    cmd->add_option("--precision", spec->precision, "Encoder precision: fp32, int8, bf16 or auto (docs/performance.md)")
        ->check(CLI::IsMember({"fp32", "bf16", "int8", "auto"}))
        ->capture_default_str();
    cmd->add_flag("--json", spec->json, "Print one JSON object (timings under \"timing\")");
    cmd->add_option("-o,--output", spec->out, "Write the report to FILE (atomically) instead of stdout")->type_name("FILE");
    cmd->add_option("--features", spec->featuresFile,
                    "Train the probes on the features in FILE (--extract-features, or the merged --shard outputs) "
                    "instead of running the encoder; the model, corpora, layers and baselines must be those they were "
                    "extracted with (the probes' own options may differ); attention tasks run the encoder as usual")
        ->type_name("FILE");
    cmd->add_flag("--extract-features", spec->extractFeatures,
                  "Write the encoder's features that the sentence and structural tasks need to -o OUT (binary "
                  "floats, docs/cluster.md) instead of training probes; probe --features OUT trains them");
    addShardOptions(cmd, spec->shard,
                    "blocks of 512 sentences, the feature extraction only (implies --extract-features; treelens-cli "
                    "merge joins the shards into the features file that --features reads)");
    addWhereOptions(cmd, spec->where,
                    "Probe only the sentences (of every split, every task) with an occurrence, and score head-accuracy on "
                    "the arcs it binds (both words; a pattern of one node: the arcs into its word)");
    cmd->footer("Example: treelens-cli probe --task treedepth,topconst --train wsj_0001.mrg ... wsj_0159.mrg --json\n"
                "Sentence probes report test accuracy / macro-F1 (R2 / MSE for sentlen) per layer and pooling, with the\n"
                "majority (mean) baseline; structural probes UUAS and DSpr / root accuracy and NSpr; attention tasks\n"
                "layers x heads grids and the best head. Layers and heads are numbered from 1, in the text and in the\n"
                "JSON (\"layer_numbering\": \"1-based\"; the embedding layer is \"embeddings\"). Progress goes to stderr.");
    cmd->callback([&action, spec]() {
        action = [spec]() -> int {
            ProbeRunConfig config = *spec;
            config.keepRelationSubtypes = spec->relationSubtypes == "keep";
            if (spec->where.given()) { // a pattern that does not parse stops the run before a corpus is read
                auto where = probeRestriction(*spec);
                if (!where)
                    return fail(where.message());
                config.where = std::move(*where);
            }
            config.commandLine = commandLine();
            if (const std::string note = probeRunLayersNote(config.layers); !note.empty())
                std::cerr << "treelens-cli: note: " << printableMessage(withFlagNames(note)) << std::endl;
            ProbeRunCallbacks callbacks;
            callbacks.progress = [](const std::string &line) { std::cerr << "probe: " << printableMessage(line) << std::endl; };
            if (spec->extractFeatures || !spec->shard.shard.empty() || spec->shard.skipDone)
                return extractFeatures(*spec, config, callbacks);
            auto report = runProbes(config, callbacks);
            if (!report)
                return fail(withFlagNames(report.message()));
            // Small splits and baselines that win are said where the user looks first.
            for (const auto &task : report->sentenceTasks)
                for (const auto &note : sentenceTaskNotes(task, report->settings.poolings))
                    std::cerr << "treelens-cli: " << printableMessage(note) << "\n";
            return writeOutput(spec->out, spec->json ? probeReportJson(*report) + "\n" : probeReportText(*report));
        };
    });
}

namespace {

/// The reports of one probe-tables argument: NAME=FILE[+FILE...] (one encoder's
/// runs, merged), or FILE (the dock's export of several models, or one report),
/// named by their models.
Result<std::vector<NamedProbeReport>> readTablesArgument(const std::string &arg)
{
    const auto eq = arg.find('=');
    const std::string paths = eq == std::string::npos ? arg : arg.substr(eq + 1);
    std::vector<NamedProbeReport> out;
    std::size_t start = 0;
    while (start <= paths.size()) {
        const auto plus = eq == std::string::npos ? std::string::npos : paths.find('+', start);
        const std::string path = paths.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        auto text = readFile(path);
        if (!text)
            return text.error();
        auto reports = readProbeReportsJson(*text, path);
        if (!reports)
            return reports.error();
        if (eq == std::string::npos) {
            for (auto &r : *reports)
                out.push_back(NamedProbeReport{r.model.name, std::move(r)});
        } else {
            for (auto &r : *reports) {
                if (out.empty())
                    out.push_back(NamedProbeReport{arg.substr(0, eq), std::move(r)});
                else
                    mergeProbeReport(out.front().report, r);
            }
        }
        if (plus == std::string::npos)
            break;
        start = plus + 1;
    }
    return out;
}

} // namespace

void addProbeTablesCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("probe-tables", "Markdown tables comparing encoders from `probe --json` reports "
                                                   "(docs/probing.md): each task at its best layer by dev, the best "
                                                   "attention heads, unsupervised parsing");
    auto reports = std::make_shared<std::vector<std::string>>();
    auto out = std::make_shared<std::string>();
    cmd->add_option("reports", *reports,
                    "NAME=REPORT.json[+MORE.json]: one column group named NAME; files joined by + are runs of one "
                    "encoder (a later file's task replaces an earlier one's; the first file's data is reported). "
                    "REPORT.json without NAME=: the Probing dock's export {\"models\": [...]} (or one report), one "
                    "column group per model named by the model. Exports come first, in order, then the named reports")
        ->required()
        ->expected(1, -1)
        ->type_name("REPORT");
    cmd->add_option("-o,--output", *out, "Write the tables to FILE (atomically) instead of stdout")->type_name("FILE");
    cmd->footer("Sentence probes: test metric at the layer of the best dev metric (SentLen: lowest dev MSE), for the\n"
                "mean and [CLS] vectors, with selectivity (task - control at that layer), the random-init encoder and\n"
                "the majority baseline; structural probes: the layer of the lowest dev loss; attention: the best head\n"
                "(layer/head from 1); the embedding layer is \"embeddings\". Reports of any version are read (those\n"
                "before \"layer_numbering\": \"1-based\" counted from 0). Numbers as the report's JSON rounds them;\n"
                "the GUI's Compare tab uses the same rules.");
    cmd->callback([&action, reports, out]() {
        action = [reports, out]() -> int {
            std::vector<NamedProbeReport> exported, named;
            for (const auto &arg : *reports) {
                auto r = readTablesArgument(arg);
                if (!r)
                    return fail(r.message());
                auto &into = arg.find('=') == std::string::npos ? exported : named;
                for (auto &n : *r)
                    into.push_back(std::move(n));
            }
            for (auto &n : named)
                exported.push_back(std::move(n));
            return writeOutput(*out, probeTablesMarkdown(exported));
        };
    });
}

} // namespace treelens::cli
