// treelens-cli merge: shard outputs (--shard I/N) joined into the whole run's output
// (core/formats/shard.h, docs/cluster.md).
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/command.h"
#include "core/base/fileio.h"
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
            auto first = readShardEnds(spec->shards.front());
            if (!first)
                return fail(first.message());
            auto said = [](const MergedShards &merged) {
                std::string input = merged.first.input.path;
                if (input.size() > 120) // several files (eval-induction's gold)
                    input = input.substr(0, 117) + "...";
                std::cerr << "merge: " << merged.first.command << ", " << merged.first.shard.count << " shards, " << merged.records
                          << " records of " << input << '\n';
            };
            // eval-pairs' shards hold scores, eval-induction's link probabilities: the report is
            // computed over all of them, as the whole run computes it.
            const std::string &command = first->header.command;
            if (command == "eval-pairs" || command == "eval-induction") {
                auto merged = mergeShards(spec->shards);
                if (!merged)
                    return fail(merged.message());
                said(*merged);
                std::string note;
                auto report = command == "eval-pairs" ? mergedEvalPairs(*merged, &note) : mergedEvalInduction(*merged);
                if (!report)
                    return fail(report.message());
                std::cerr << note;
                return writeOutput(spec->out, *report);
            }
            // probe's shards hold features (binary floats): a file for probe --features.
            if (command == "probe" && (spec->out.empty() || spec->out == "-"))
                return fail("probe's shards hold features (binary floats): give -o FEATURES, the file probe --features reads");
            // The others: the records streamed into OUT (written atomically), a piece at a time.
            auto writer = AtomicFileWriter::open(spec->out.empty() ? std::string("-") : spec->out);
            if (!writer)
                return fail(writer.message());
            auto merged = mergeShardsTo(spec->shards, [&](std::string_view piece) { return writer->write(piece); });
            if (!merged)
                return fail(merged.message());
            if (auto st = writer->commit(); !st)
                return fail(st.message());
            said(*merged);
            if (command == "probe")
                std::cerr << "merge: train the probes on them with the shards' probe options plus --features " << spec->out
                          << '\n';
            return 0;
        };
    });
}

} // namespace treelens::cli
