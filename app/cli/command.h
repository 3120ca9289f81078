#pragma once
// Shared plumbing for treelens-cli subcommands.

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/base/result.h"
#include "core/data/sentence.h"
#include "core/formats/corpus.h"

namespace treelens::cli {

/// A subcommand's body: returns the process exit code (0 ok, 1 user/data error).
using Action = std::function<int()>;

/// Each add*Command registers a subcommand and sets `action` when it is chosen.
void addTokenizeCommand(CLI::App &app, Action &action);
void addParseCommand(CLI::App &app, Action &action);
void addConvertCommand(CLI::App &app, Action &action);
void addEvalParseCommand(CLI::App &app, Action &action);
void addEvalTokenizeCommand(CLI::App &app, Action &action);
void addInfoCommand(CLI::App &app, Action &action);
void addAnalyzeCommand(CLI::App &app, Action &action);
void addTrainCommand(CLI::App &app, Action &action);
void addEvalInductionCommand(CLI::App &app, Action &action);
void addBenchCommand(CLI::App &app, Action &action);
void addImportCheckpointCommand(CLI::App &app, Action &action);
void addTrainParserCommand(CLI::App &app, Action &action);
void addBenchParseCommand(CLI::App &app, Action &action);

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
/// Reads the input; an input without any sentence is an error ("FILE:1: no sentences").
Result<std::vector<Sentence>> readInput(const InputSpec &spec);
Result<std::vector<Sentence>> readInputAllowEmpty(const InputSpec &spec);
/// readCorpusFile that also refuses a file without sentences.
Result<std::vector<Sentence>> readCorpusNonEmpty(const std::string &path, CorpusFormat format);

/// Writes to OUT atomically, or stdout when OUT is empty or "-".
int writeOutput(const std::string &out, const std::string &data);

} // namespace treelens::cli
