#pragma once
// treelens-cli's commands in one table (commands.cpp): each command's name, the function
// that registers it (its options are declared there), its doors in the conformance matrix
// and how the shards of a sharded run of it merge. main() registers every entry, `merge`
// looks its shards' command up here and the conformance test reads the doors from here.
// Plain constant data: no CLI11 header, and reading the table runs nothing (the
// conformance test reads the doors without registering a command).

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"

namespace CLI {
class App;
}

namespace treelens {
struct MergedShards;
}

namespace treelens::cli {

/// A subcommand's body: returns the process exit code (0 ok, 1 user/data error).
using Action = std::function<int()>;

/// Registers a subcommand on `app` and sets `action` when it is chosen on the command line
/// (the action is kept by reference until app.parse() returns).
using RegisterCommand = void (*)(CLI::App &app, Action &action);

/// What a conformance cell expects of a door (tests/conformance, docs/conformance.md): a
/// result (exit 0) whose standard output holds `needle`, or a refusal (exit 1, one line on
/// standard error) that holds it. "{TEXT}" in a needle stands for the model's text line.
struct DoorExpect {
    bool result;
    const char *needle;
};

/// One column of the conformance matrix: a command line run for every model.
struct CliDoor {
    const char *name; ///< the cell's name after the model's ("tat_en_wikiqa__analyze_text")
    /// treelens-cli's arguments: {M} the model, {GOLD} the gold corpus, {GOLDPTB} its PTB trees,
    /// {PAIRS} the pairs; a chain of commands (&&) names the binary {CLI} and writes its files
    /// under {TMP}, the cell's folder.
    const char *args;
    DoorExpect sentenceModel; ///< what a model that reads one sentence gives
    DoorExpect pairModel;     ///< what a sentence-pair model gives
};

/// A command's doors: a view of a constant array of commands.cpp (none by default).
class CliDoors {
public:
    constexpr CliDoors() = default;
    template <std::size_t N> constexpr CliDoors(const CliDoor (&doors)[N]) : m_begin(doors), m_size(N) {}
    const CliDoor *begin() const { return m_begin; }
    const CliDoor *end() const { return m_begin + m_size; }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

private:
    const CliDoor *m_begin = nullptr;
    std::size_t m_size = 0;
};

/// What `merge` does with the shards of a command's sharded run (--shard I/N).
enum class ShardMerge {
    None,     ///< the command has no --shard (a shard naming it is merged as Records)
    Records,  ///< the records streamed into the output in input order
    Report,   ///< the command's report recomputed over all the shards' records (MergeRule::report)
    Features, ///< binary features: merged into a file, never standard output (-o needed)
};

/// The report over the merged shards of a Report command: an error names what is wrong
/// ("merge: ..."); a note for standard error goes to `note` ("" when none).
using MergeReport = Result<std::string> (*)(const MergedShards &merged, std::string *note);

struct MergeRule {
    ShardMerge kind = ShardMerge::None;
    MergeReport report = nullptr; ///< Report: computes the output
    /// Features: what to do with the merged file, said on stderr ("merge: NEXT FILE").
    const char *next = nullptr;
};

/// One command of treelens-cli.
struct CommandEntry {
    const char *name;     ///< as typed, and as its section in docs/cli.md names it
    RegisterCommand add;  ///< declares its options and its action
    /// Its columns in the conformance matrix (the ways it opens a model).
    CliDoors doors;
    /// Without doors: why ("opens no model"); a test checks that every command has one or the other.
    const char *noDoors = nullptr;
    MergeRule merge;
};

/// Every command, in the order `treelens-cli --help` lists them.
const std::vector<CommandEntry> &commandTable();

/// The entry of `name`; nullptr when no command has that name.
const CommandEntry *findCommand(std::string_view name);

} // namespace treelens::cli
