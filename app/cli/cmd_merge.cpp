// treelens-cli merge: shard outputs (--shard I/N) joined into the whole run's output
// (core/formats/shard.h, docs/cluster.md).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/command.h"
#include "core/formats/shard.h"

namespace treelens::cli {

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
    cmd->callback([&action, spec]() {
        action = [spec]() {
            auto merged = mergeShards(spec->shards);
            if (!merged)
                return fail(merged.message());
            std::string input = merged->first.input.path;
            if (input.size() > 120) // several files (eval-induction's gold)
                input = input.substr(0, 117) + "...";
            std::cerr << "merge: " << merged->first.command << ", " << merged->first.shard.count << " shards, " << merged->records
                      << " records of " << input << '\n';
            // eval-pairs' shards hold scores: the metrics are computed over all of them, as the whole run does.
            if (merged->first.command == "eval-pairs") {
                std::string note;
                auto report = mergedEvalPairs(*merged, &note);
                if (!report)
                    return fail(report.message());
                std::cerr << note;
                return writeOutput(spec->out, *report);
            }
            // eval-induction's shards hold link probabilities: scored over all the gold sentences.
            if (merged->first.command == "eval-induction") {
                auto report = mergedEvalInduction(*merged);
                if (!report)
                    return fail(report.message());
                return writeOutput(spec->out, *report);
            }
            return writeOutput(spec->out, merged->body);
        };
    });
}

} // namespace treelens::cli
