// treelens-cli merge: shard outputs (--shard I/N) joined into the whole run's output
// (core/formats/shard.h, docs/cluster.md).
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "core/base/fileio.h"
#include "core/formats/shard.h"

namespace treelens::cli {

namespace {

/// What was joined, on stderr.
void sayMerged(const MergedShards &merged)
{
    std::string input = merged.first.input.path;
    if (input.size() > 120) // several files (eval-induction's gold)
        input = input.substr(0, 117) + "...";
    std::cerr << "merge: " << merged.first.command << ", " << merged.first.shard.count << " shards, " << merged.records
              << " records of " << input << '\n';
}

/// A Report command's shards (eval-pairs' scores, eval-induction's link probabilities): the
/// report computed over all of them, as the whole run computes it.
int mergeReport(const std::vector<std::string> &shards, const std::string &out, MergeReport report)
{
    auto merged = mergeShards(shards);
    if (!merged)
        return fail(merged.message());
    sayMerged(*merged);
    std::string note;
    auto text = report(*merged, &note);
    if (!text)
        return fail(text.message());
    std::cerr << note;
    return writeOutput(out, *text);
}

/// The shards' records streamed into OUT (written atomically), a piece at a time.
int mergeRecords(const std::vector<std::string> &shards, const std::string &out)
{
    auto writer = AtomicFileWriter::open(out.empty() ? std::string("-") : out);
    if (!writer)
        return fail(writer.message());
    auto merged = mergeShardsTo(shards, [&](std::string_view piece) { return writer->write(piece); });
    if (!merged)
        return fail(merged.message());
    if (auto st = writer->commit(); !st)
        return fail(st.message());
    sayMerged(*merged);
    return 0;
}

/// The shards joined as the command table says their command's shards join.
int mergeShardFiles(const std::vector<std::string> &shards, const std::string &out)
{
    auto first = readShardEnds(shards.front());
    if (!first)
        return fail(first.message());
    const std::string &command = first->header.command;
    // A command the table does not know (a newer version's shards?) has its records joined.
    const CommandEntry *entry = findCommand(command);
    const MergeRule rule = entry ? entry->merge : MergeRule{};
    if (rule.kind == ShardMerge::Report)
        return mergeReport(shards, out, rule.report);
    // Features are binary floats: a file for the command's --features.
    const bool toFile = !out.empty() && out != "-";
    if (rule.kind == ShardMerge::Features && !toFile)
        return fail(command + "'s shards hold features (binary floats): give -o FEATURES, the file " + command +
                    " --features reads");
    if (int code = mergeRecords(shards, out); code != 0)
        return code;
    if (rule.kind == ShardMerge::Features)
        std::cerr << "merge: " << rule.next << ' ' << out << '\n';
    return 0;
}

} // namespace

void addMergeCommand(CLI::App &app, Action &action)
{
    auto *cmd = app.add_subcommand("merge", "Join the outputs of a sharded run (--shard I/N of analyze, score-pairs, ...) into "
                                            "exactly the output of the whole run; refuses a missing, repeated or foreign shard");
    struct Spec {
        std::vector<std::string> shards;
        std::string out;
    };
    auto spec = std::make_shared<Spec>();
    cmd->add_option("shards", spec->shards, "The shards' output files, in any order")->required()->expected(1, -1)->type_name("OUT");
    cmd->add_option("-o,--output", spec->out, "Write the merged output to MERGED (atomically) instead of stdout")->type_name("MERGED");
    cmd->footer("Every shard output starts with a '#treelens-shard {...}' line (command, command line, shard I/N, the input's\n"
                "path, size and CRC-32, its records) and ends with '#treelens-shard-end {\"records\": n}'. merge checks that the\n"
                "files are shards 1..N of one input and one command line, each once and complete, and writes their records\n"
                "in input order (eval-pairs, eval-induction: the report over all the shards' scores or link probabilities,\n"
                "the input read again).");
    cmd->callback([&action, spec]() { action = [spec]() { return mergeShardFiles(spec->shards, spec->out); }; });
}

} // namespace treelens::cli
