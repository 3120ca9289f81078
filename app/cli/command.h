#pragma once
// Shared plumbing for treelens-cli subcommands (the commands themselves: commands.h).

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "core/base/result.h"
#include "core/data/sentence.h"
#include "core/encoders/encoder.h"
#include "core/formats/corpus.h"
#include "core/formats/corpusstream.h"
#include "core/formats/pairs.h"
#include "core/formats/shard.h"
#include "core/parsing/parser.h"

namespace treelens::cli {

/// Progress of a long run on stderr ("analyze: 1200 sentences"): a line
/// updated in place on a terminal (at most 4 times a second), otherwise a line
/// every 10,000 sentences.
class ProgressLine {
public:
    explicit ProgressLine(std::string name);
    void update(std::size_t done);
    void finish();

private:
    std::string m_name;
    bool m_tty;
    bool m_shown = false;
    std::size_t m_lastLogged = 0;
    double m_lastTime = 0;
};

/// Prints "treelens-cli: error: <message>" on one line and returns 1.
int fail(const std::string &message);

/// Input given as TEXT (or "-" for stdin) or --input FILE, resolved to sentences.
struct InputSpec {
    std::string text;
    std::string file;
    std::string from;
    bool split = false;
    int maxTokens = 0;
};
void addInputOptions(CLI::App *cmd, InputSpec &spec, bool withFrom);
/// The input's name in messages: the file, "<stdin>" or "<argument>".
std::string inputSourceName(const InputSpec &spec);
/// Reads the input; an input without any sentence is an error ("FILE:1: no sentences").
Result<std::vector<Sentence>> readInput(const InputSpec &spec);
Result<std::vector<Sentence>> readInputAllowEmpty(const InputSpec &spec);
/// The input a piece at a time (CorpusStream): --input FILE and standard input
/// are read in chunks of about `count` sentences; a TEXT argument is one chunk.
/// The first call fails with "SOURCE:1: no sentences in the input" on an empty input.
class InputChunks {
public:
    static Result<InputChunks> open(const InputSpec &spec);
    /// The next chunk; empty at the end.
    Result<std::vector<Sentence>> next(std::size_t count);

private:
    std::unique_ptr<CorpusStream> m_stream;
    std::vector<Sentence> m_whole;
    bool m_first = true, m_wholeGiven = false;
    std::string m_source;
};
/// readCorpusFile that also refuses a file without sentences.
Result<std::vector<Sentence>> readCorpusNonEmpty(const std::string &path, CorpusFormat format);

/// The parser options of `parse`, for every command that runs a parser.
struct ParserSpec {
    std::string parser = defaultParserBackend();
    double timeout = 2.0;
    int maxWords = 250;
    std::string command;
    std::string model;
    std::string morphModel;
    std::string treeFile;
};
/// --parser, --timeout, --max-words, --parser-command, --parser-model, --morph-model, --tree-file
/// (`treeFileNote` is appended to the last one's help, e.g. its default).
void addParserOptions(CLI::App *cmd, ParserSpec &spec, const std::string &treeFileNote = "");
/// The ParserConfig those options stand for.
ParserConfig parserConfig(const ParserSpec &spec);
/// Parses as `parse` does: a sentence over --max-words is refused; the neural
/// backend parses everything in one parseAll (batched by length), the others one
/// sentence at a time. Existing trees are dropped first. Errors start with
/// "SOURCE:LINE: " (the sentence id when its line is unknown), or "SOURCE: ".
/// With `failures`, a sentence that is refused or fails alone (not a failed
/// batch) is left without a tree and its error appended there instead.
Result<std::vector<Sentence>> parseSentences(Parser &parser, const ParserSpec &spec, std::vector<Sentence> sentences,
                                             const std::string &source, std::vector<std::string> *failures = nullptr);

/// The command line as typed ("treelens-cli" then the arguments, each shell-quoted
/// when it needs it), recorded by main() for reports that echo their invocation.
void setCommandLine(int argc, char **argv);
const std::string &commandLine();

/// The options of every command that opens an encoder: --model, --device, --threads,
/// --batch, --precision.
struct DeviceSpec {
    std::string model;
    std::string device = "auto";
    int threads = 0;
    int batch = 32;
    std::string precision = "fp32";
};
void addModelOptions(CLI::App *cmd, DeviceSpec &spec);
/// Opens the encoder those options name (the shipped default model without --model);
/// a precision other than plain fp32 is said on stderr.
Result<std::unique_ptr<Encoder>> openModel(const DeviceSpec &spec);

/// --ablate L.H / L.* (repeatable), numbered from 1 as everywhere on the command line.
void addAblateOption(CLI::App *cmd, std::vector<std::string> &specs);
/// The heads those options name, 0-based (HeadAblation), duplicates dropped; an error names
/// a spelling that is not L.H or L.*. Whether the model has those heads is the encoder's check.
Result<std::vector<HeadAblation>> parseAblations(const std::vector<std::string> &specs);

/// Writes to OUT atomically, or stdout when OUT is empty or "-".
int writeOutput(const std::string &out, const std::string &data);
/// `s` with & < > " escaped, for the text of the SVG figures the commands write.
std::string xmlEscaped(const std::string &s);

/// --shard I/N and --skip-done of the commands that walk a corpus (core/formats/shard.h,
/// docs/cluster.md).
struct ShardOptions {
    std::string shard;   ///< "" = the whole input
    bool skipDone = false;
};
/// Adds --shard and --skip-done; `unit` says what a shard is made of ("blocks of 512 sentences").
void addShardOptions(CLI::App *cmd, ShardOptions &options, const std::string &unit);
/// The header of this run's shard output without its range (nullopt without --shard):
/// `command`, the command line without the flags that do not change the output (--shard,
/// -o/--output, --skip-done, --device, --threads), the shard, the input's identity. A
/// sharded run needs its input in a file or folder (`input`) and -o OUT (`out`).
Result<std::optional<ShardHeader>> shardHeaderFor(const ShardOptions &options, const std::string &command, const std::string &input,
                                                  const std::string &out);
/// The same for an input of several files (eval-induction's gold files).
Result<std::optional<ShardHeader>> shardHeaderFor(const ShardOptions &options, const std::string &command,
                                                  const std::vector<std::string> &inputs, const std::string &out);
/// --skip-done: true (said on stderr) when OUT already holds this shard's complete output.
bool skipDoneShard(const ShardOptions &options, const ShardHeader &header, const std::string &out);
/// The command line as typed, without the flags shardHeaderFor() leaves out.
std::string shardOptionsLine();
/// The --threads of the command line (0 when not given: the libraries' default), for the shard header.
int threadsArgument();

/// The streaming loop of a sharded (or whole) run: `body` gets the input's sentences
/// begin .. end − 1 in blocks aligned to multiples of `block` in the whole input (an item
/// is always batched with the same neighbours, sharded or not), with the index of the
/// block's first sentence; reading stops after `end`. Returns the sentences handed over.
Result<std::size_t> forEachBlock(InputChunks &input, std::size_t block, std::size_t begin, std::size_t end, const std::string &name,
                                 const std::function<Status(std::vector<Sentence> &, std::size_t first)> &body);
/// A merge that reads the shards' input again: an error unless `paths` are still the bytes
/// the shards recorded ("merge: NEEDS: ..." when they cannot be read, "merge: WHAT changed
/// since the shards ran ..." when they differ).
Status inputUnchanged(const std::vector<std::string> &paths, const InputIdentity &recorded, const std::string &needs,
                      const std::string &what);

/// eval-pairs' report over the pairs of its merged shards (treelens-cli merge): the corpus
/// read again from the shards' input (refused when it changed), the scores from the shards.
/// A note for standard error in `note`.
Result<std::string> mergedEvalPairs(const MergedShards &merged, std::string *note);

/// eval-induction's report over the link probabilities of its merged shards (treelens-cli
/// merge): the gold files read again (refused when they changed).
Result<std::string> mergedEvalInduction(const MergedShards &merged);

/// The number of sentences of `spec`'s input (read through once).
Result<std::size_t> countInput(const InputSpec &spec);

/// A pair command's shard (score-pairs, eval-pairs, analyze --pairs): the blocks of the
/// questions starting in each `block` pairs (pairBlockStarts), shard `header.shard` of them.
/// Fills the header's total and range and returns the shard's pairs (the corpus' other
/// fields as they are).
PairCorpus pairShard(const PairCorpus &corpus, ShardHeader &header, std::size_t block);

/// A sentence-stream command's shard (analyze, parse): the header with its range of the
/// input in blocks of `block` sentences (nullopt without --shard), `range` the sentences
/// to read ([0, ∞) without --shard); `done` when --skip-done found OUT complete already.
struct SentenceShard {
    std::optional<ShardHeader> header;
    ShardRange range{0, static_cast<std::size_t>(-1)};
    bool done = false;
    /// The output's first line and last line ("" without --shard).
    std::string firstLine() const { return header ? shardHeaderLine(*header) : std::string(); }
    std::string lastLine(std::size_t records) const { return header ? shardEndLine(records) : std::string(); }
};
Result<SentenceShard> sentenceShard(const ShardOptions &options, const std::string &command, const InputSpec &input,
                                    const std::string &out, std::size_t block);

} // namespace treelens::cli
