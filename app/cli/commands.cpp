// treelens-cli's command table (commands.h). A command is its cmd_*.cpp file, its
// declaration and entry here (with its doors, when it opens a model), and its row in
// docs/cli.md's command table.
#include "app/cli/commands.h"

#include <iterator>

#include "app/cli/command.h"

namespace treelens::cli {

// Each registers its command (in its cmd_*.cpp file).
void addTokenizeCommand(CLI::App &app, Action &action);
void addParseCommand(CLI::App &app, Action &action);
void addConvertCommand(CLI::App &app, Action &action);
void addQueryCommand(CLI::App &app, Action &action);
void addEvalParseCommand(CLI::App &app, Action &action);
void addEvalTokenizeCommand(CLI::App &app, Action &action);
void addEvalRawCommand(CLI::App &app, Action &action);
void addInfoCommand(CLI::App &app, Action &action);
void addAnalyzeCommand(CLI::App &app, Action &action);
void addTrainCommand(CLI::App &app, Action &action);
void addEvalInductionCommand(CLI::App &app, Action &action);
void addTuneInductionCommand(CLI::App &app, Action &action);
void addBenchCommand(CLI::App &app, Action &action);
void addImportCheckpointCommand(CLI::App &app, Action &action);
void addVerifyFixtureCommand(CLI::App &app, Action &action);
void addScorePairsCommand(CLI::App &app, Action &action);
void addEvalPairsCommand(CLI::App &app, Action &action);
void addProbePairsCommand(CLI::App &app, Action &action);
void addTrainParserCommand(CLI::App &app, Action &action);
void addBenchParseCommand(CLI::App &app, Action &action);
void addProbeCommand(CLI::App &app, Action &action);
void addProbeTablesCommand(CLI::App &app, Action &action);
void addWhatifCommand(CLI::App &app, Action &action);
void addExplainCommand(CLI::App &app, Action &action);
void addMergeCommand(CLI::App &app, Action &action);
void addMinimalPairsCommand(CLI::App &app, Action &action);
void addMakePairsCommand(CLI::App &app, Action &action);
void addAblateSweepCommand(CLI::App &app, Action &action);
Result<std::string> mergedMinimalPairs(const MergedShards &merged, std::string *note);
Result<std::string> mergedAblateSweep(const MergedShards &merged, std::string *note);
Result<std::string> mergedQuery(const MergedShards &merged, std::string *note);

namespace {

constexpr DoorExpect result(const char *needle) { return {true, needle}; }
constexpr DoorExpect refusal(const char *needle) { return {false, needle}; }

Result<std::string> evalInductionReport(const MergedShards &merged, std::string *) { return mergedEvalInduction(merged); }

constexpr MergeRule kRecords{ShardMerge::Records, nullptr, nullptr};

// The doors of the commands that open a model (docs/conformance.md), in the table's order.

// A corpus parsed in two shards, merged, then read by the model (the way to give a
// tree-reading model parsed trees at scale).
constexpr CliDoor kParseDoors[] = {
    {"parse_sharded",
     "parse --format conllu --input {GOLD} --shard 1/2 -o {TMP}/1 && {CLI} parse --format conllu --input {GOLD} --shard 2/2 "
     "-o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1 -o {TMP}/parsed.conllu && {CLI} analyze --json --no-attention --input "
     "{TMP}/parsed.conllu --model {M}",
     result("\"tokens\""), refusal("--pairs")},
};

constexpr CliDoor kAnalyzeDoors[] = {
    {"analyze_text", "analyze --model {M} \"The old man saw a red kite .\"", result("{TEXT}"), refusal("--pairs")},
    {"analyze_json", "analyze --json --no-attention --model {M} \"The old man saw a red kite .\"", result("\"tokens\""),
     refusal("--pairs")},
    // A treebank that carries both trees: no parser is opened (tested without one in test_cli.cpp).
    {"analyze_corpus", "analyze --input {GOLD} --model {M}", result("sentence c-2:"), refusal("--pairs")},
    {"analyze_pairs_text", "analyze --pairs {PAIRS} --model {M}", result("second:"), result("pair 4 (group q2, label 0)")},
    {"analyze_pairs_json", "analyze --json --no-attention --pairs {PAIRS} --model {M}", result("\"pair\""),
     result("\"prediction\"")},
    // Sharded runs (issue 35): two shards and their merge, on standard output ({CLI} the binary,
    // {TMP} the cell's own folder).
    // Head ablation (issue 46): the first head of the first layer switched off; a family
    // whose heads cannot be ablated says so.
    {"analyze_ablate", "analyze --ablate 1.1 --model {M} \"The old man saw a red kite .\"", result("ablated: L1 H1"),
     refusal("--pairs")},
    {"analyze_sharded",
     "analyze --json --no-attention --input {GOLD} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} analyze --json "
     "--no-attention --input {GOLD} --model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
     result("\"tokens\""), refusal("--pairs")},
};

// Unsupervised parsing against gold PTB trees, whole and in two shards merged (a model
// without link probabilities refuses: see the cell).
constexpr CliDoor kEvalInductionDoors[] = {
    {"eval_induction", "eval-induction --gold {GOLDPTB} --model {M}", result("right-branching"), result("right-branching")},
    {"eval_induction_sharded",
     "eval-induction --gold {GOLDPTB} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} eval-induction --gold {GOLDPTB} "
     "--model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
     result("right-branching"), result("right-branching")},
};

constexpr CliDoor kScorePairsDoors[] = {
    {"score_pairs", "score-pairs --model {M} --input {PAIRS}", refusal("reads single sentences, not pairs"),
     result("qid\tindex\tlabel\tscore")},
    {"score_pairs_sharded",
     "score-pairs --model {M} --input {PAIRS} --shard 1/2 -o {TMP}/1 && {CLI} score-pairs --model {M} --input {PAIRS} "
     "--shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/1 {TMP}/2",
     refusal("reads single sentences, not pairs"), result("qid\tindex\tlabel\tscore")},
};

constexpr CliDoor kEvalPairsDoors[] = {
    {"eval_pairs", "eval-pairs --model {M} --input {PAIRS}", refusal("reads single sentences, not pairs"), result("MAP")},
    {"eval_pairs_sharded",
     "eval-pairs --model {M} --input {PAIRS} --shard 1/2 -o {TMP}/1 && {CLI} eval-pairs --model {M} --input {PAIRS} "
     "--shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
     refusal("reads single sentences, not pairs"), result("MAP")},
};

// Probing reads each sentence as the model's encoder reads one (a pair model: one side).
constexpr CliDoor kProbeDoors[] = {
    {"probe", "probe --task sentlen,structural-depth --epochs 1 --json --train {GOLD} --test {GOLD} --model {M}",
     result("\"tasks\""), result("\"tasks\"")},
    // ... and in two shards of features, merged, the probes trained on them.
    {"probe_sharded",
     "probe --task sentlen,structural-depth --train {GOLD} --test {GOLD} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} probe "
     "--task sentlen,structural-depth --train {GOLD} --test {GOLD} --model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge "
     "{TMP}/2 {TMP}/1 -o {TMP}/features && {CLI} probe --task sentlen,structural-depth --epochs 1 --json --train {GOLD} "
     "--test {GOLD} --model {M} --features {TMP}/features",
     result("\"tasks\""), result("\"tasks\"")},
};

// What if the tree were different (issue 33): a dependency edit and a constituency edit of
// the gold corpus's first sentence, and a pair's second sentence edited (parsed first).
constexpr CliDoor kWhatifDoors[] = {
    {"whatif_dependency", "whatif --input {GOLD} --model {M} --edit 'head 7=3' --edit 'label 7=nmod'",
     result("edits: head 7=3; label 7=nmod"), refusal("--pairs")},
    {"whatif_constituency", "whatif --input {GOLD} --model {M} --edit 'unbracket 5-7'",
     result("constituency tree: edited (from the "), refusal("--pairs")},
    {"whatif_pairs", "whatif --pairs {PAIRS} --side second --model {M} --edit 'label 2=dep'",
     result("pair 1, second sentence:"), result("pair 1, second sentence:")},
};

// Attributions (issue 34): Integrated Gradients (few steps: the cell checks the door, the
// tests check the numbers) on a sentence and on pairs, and attention rollout.
constexpr CliDoor kExplainDoors[] = {
    {"explain_text", "explain --steps 4 --model {M} \"The old man saw a red kite .\"", result("sentence 1 (s1): ig"),
     refusal("--pairs")},
    {"explain_pairs", "explain --steps 4 --json --pairs {PAIRS} --model {M}", result("\"completeness_gap\""),
     result("\"completeness_gap\"")},
    {"explain_rollout", "explain --method rollout --model {M} \"The old man saw a red kite .\"", result("sentence 1 (s1): rollout"),
     refusal("--pairs")},
};

// Minimal pairs (issue 46): a language model's log-probabilities of good and bad sentences,
// whole and in two shards merged (a model without a sentence log-probability says so).
constexpr CliDoor kMinimalPairsDoors[] = {
    {"minimal_pairs", "minimal-pairs --json --input {MINPAIRS} --model {M}", result("\"summary\""),
     refusal("gives no sentence log-probability")},
    {"minimal_pairs_sharded",
     "minimal-pairs --json --input {MINPAIRS} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} minimal-pairs --json --input "
     "{MINPAIRS} --model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
     result("\"summary\""), refusal("gives no sentence log-probability")},
};

// Every head and layer switched off in turn over the pairs, whole and in two shards merged.
constexpr CliDoor kAblateSweepDoors[] = {
    {"ablate_sweep", "ablate-sweep --input {MINPAIRS} --model {M}", result("baseline accuracy"),
     refusal("gives no sentence log-probability")},
    {"ablate_sweep_sharded",
     "ablate-sweep --json --input {MINPAIRS} --model {M} --shard 1/2 -o {TMP}/1 && {CLI} ablate-sweep --json --input "
     "{MINPAIRS} --model {M} --shard 2/2 -o {TMP}/2 && {CLI} merge {TMP}/2 {TMP}/1",
     result("\"cells\""), refusal("gives no sentence log-probability")},
};

// Statistics over a Grew request's occurrences in the gold corpus (issue 48): attention from
// the verb to its subject per head, surprisal at the verb binned by the distance.
constexpr CliDoor kQueryDoors[] = {
    {"query_stat_attention",
     "query --stat attention V S --pattern 'pattern { V [upos=VERB]; V -[nsubj]-> S }' --input {GOLD} --model {M}",
     result("attention from V to S"), refusal("--pairs")},
    {"query_stat_surprisal",
     "query --json --stat surprisal V --by 'distance(S,V)' --pattern 'pattern { V [upos=VERB]; V -[nsubj]-> S }' --input "
     "{GOLD} --model {M}",
     result("\"stat\":\"surprisal\""), refusal("--pairs")},
};

constexpr const char *kNoModel = "opens no model";

// Every command, in the order of --help: name, registration, doors or why none, shard merge.
constexpr CommandEntry kCommands[] = {
    {"tokenize", addTokenizeCommand, {}, kNoModel, {}},
    {"parse", addParseCommand, kParseDoors, nullptr, kRecords},
    {"convert", addConvertCommand, {}, kNoModel, {}},
    // Its shards end with their totals: the merge writes the records, or sums the totals (--count).
    {"query", addQueryCommand, kQueryDoors, nullptr,
     {ShardMerge::Report, mergedQuery, nullptr}},
    {"eval-parse", addEvalParseCommand, {}, "opens no model: compares trees with trees", {}},
    {"eval-tokenize", addEvalTokenizeCommand, {}, kNoModel, {}},
    {"eval-raw", addEvalRawCommand, {}, "opens a parser, no model", {}},
    {"info", addInfoCommand, {}, kNoModel, {}},
    {"analyze", addAnalyzeCommand, kAnalyzeDoors, nullptr, kRecords},
    {"train", addTrainCommand, {}, "makes a model from a recipe; analyses with none", {}},
    {"eval-induction", addEvalInductionCommand, kEvalInductionDoors, nullptr, {ShardMerge::Report, evalInductionReport, nullptr}},
    {"tune-induction", addTuneInductionCommand, {},
     "eval-induction's search over parse settings: its doors open every model the same way", {}},
    {"bench", addBenchCommand, {}, "a timing (of random weights by default), no output a cell can judge", {}},
    {"import-checkpoint", addImportCheckpointCommand, {}, "makes the matrix's fixture models (make_models.sh)", {}},
    {"verify-fixture", addVerifyFixtureCommand, {}, "runs a reference fixture folder, not a model file", {}},
    {"score-pairs", addScorePairsCommand, kScorePairsDoors, nullptr, kRecords},
    {"eval-pairs", addEvalPairsCommand, kEvalPairsDoors, nullptr, {ShardMerge::Report, mergedEvalPairs, nullptr}},
    {"probe-pairs", addProbePairsCommand, {},
     "the tree-aggregation paper's experiment, three WikiQA splits parsed: too long for a cell; the probe doors take pair "
     "models",
     {}},
    {"train-parser", addTrainParserCommand, {}, "trains a parser, opens no model", {}},
    {"bench-parse", addBenchParseCommand, {}, "times the parsers, opens no model", {}},
    {"probe", addProbeCommand, kProbeDoors, nullptr,
     {ShardMerge::Features, nullptr, "train the probes on them with the shards' probe options plus --features"}},
    {"probe-tables", addProbeTablesCommand, {}, "reads probe reports, opens no model", {}},
    {"whatif", addWhatifCommand, kWhatifDoors, nullptr, {}},
    {"explain", addExplainCommand, kExplainDoors, nullptr, {}},
    {"minimal-pairs", addMinimalPairsCommand, kMinimalPairsDoors, nullptr, {ShardMerge::Report, mergedMinimalPairs, nullptr}},
    {"ablate-sweep", addAblateSweepCommand, kAblateSweepDoors, nullptr, {ShardMerge::Report, mergedAblateSweep, nullptr}},
    {"make-pairs", addMakePairsCommand, {}, "makes pairs from a treebank's trees, opens no model", {}},
    {"merge", addMergeCommand, {}, "opens no model: the _sharded doors run it on every model's shards", {}},
};

} // namespace

const std::vector<CommandEntry> &commandTable()
{
    static const std::vector<CommandEntry> table(std::begin(kCommands), std::end(kCommands));
    return table;
}

const CommandEntry *findCommand(std::string_view name)
{
    for (const CommandEntry &c : commandTable())
        if (name == c.name)
            return &c;
    return nullptr;
}

} // namespace treelens::cli
