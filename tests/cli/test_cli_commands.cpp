// treelens-cli's command table (app/cli/commands.h) holds the truth about its commands,
// checked as a house rule: every command is documented (its row in docs/cli.md's command
// table), has conformance doors or says why not, merges its shards as its options say
// (--shard), and `treelens-cli --help` lists exactly the table's commands.
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "clirun.h"
#include "testutil.h"

using namespace treelens;
using cli::CommandEntry;

namespace {

/// The commands of docs/cli.md's command table ("| command | what it does |"): the first word
/// of each row ("| `merge SHARD... [-o MERGED]` | ...").
std::set<std::string> documentedCommands()
{
    std::set<std::string> out;
    std::istringstream in(*readFile(std::string(TREELENS_SOURCE_DIR) + "/docs/cli.md"));
    bool table = false;
    for (std::string line; std::getline(in, line);) {
        if (line == "| command | what it does |") {
            table = true;
            continue;
        }
        if (table && line.rfind("|", 0) != 0)
            break;
        if (table && line.rfind("| `", 0) == 0) {
            const std::string cell = line.substr(3);
            out.insert(cell.substr(0, cell.find_first_of(" `")));
        }
    }
    return out;
}

/// The subcommands `treelens-cli --help` lists: the first word of the lines of its
/// "Subcommands:" section.
std::vector<std::string> helpCommands(const std::string &help)
{
    std::vector<std::string> out;
    std::istringstream in(help);
    bool section = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
            section = true;
            continue;
        }
        if (!section)
            continue;
        if (line.empty() || line[0] != ' ')
            break;
        const std::size_t start = line.find_first_not_of(' ');
        if (start == 2) // a help text's continuation is indented further
            out.push_back(line.substr(start, line.find(' ', start) - start));
    }
    return out;
}

} // namespace

TEST(CliCommands, EveryCommandHasItsRowInTheDocs)
{
    const auto documented = documentedCommands();
    std::set<std::string> table;
    for (const CommandEntry &c : cli::commandTable()) {
        table.insert(c.name);
        EXPECT_TRUE(documented.count(c.name)) << c.name << ": no row '| `" << c.name << " ...` |' in docs/cli.md's command table";
    }
    for (const std::string &d : documented)
        EXPECT_TRUE(table.count(d)) << "docs/cli.md documents '" << d << "', which is not in the command table";
}

TEST(CliCommands, EveryCommandHasDoorsOrSaysWhyNot)
{
    std::set<std::string> names;
    for (const CommandEntry &c : cli::commandTable()) {
        const bool reason = c.noDoors && *c.noDoors;
        EXPECT_NE(c.doors.empty(), !reason) << c.name << ": give it conformance doors, or (only) the reason it has none";
        for (const cli::CliDoor &d : c.doors) {
            EXPECT_TRUE(names.insert(d.name).second) << c.name << ": door " << d.name << " twice";
            // A door runs its command (then perhaps others, merge or analyze).
            EXPECT_EQ(std::string(d.args).rfind(std::string(c.name) + " ", 0), 0u) << d.name << " does not run " << c.name;
        }
    }
    EXPECT_NE(cli::findCommand("analyze"), nullptr);
    EXPECT_EQ(cli::findCommand("no-such-command"), nullptr);
}

TEST(CliCommands, HelpListsExactlyTheTable)
{
    const test::CliRun r = test::runCli("--help");
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<std::string> table;
    for (const CommandEntry &c : cli::commandTable())
        table.push_back(c.name);
    EXPECT_EQ(helpCommands(r.out), table) << r.out;
}

// The merge column agrees with the options: a command with --shard says how its shards
// merge, one without says none. The commands are registered in this process (no parse, no
// action run): a process per command's --help would take a second each.
TEST(CliCommands, ShardMergeAsTheOptionsSay)
{
    CLI::App app;
    cli::Action action;
    for (const CommandEntry &c : cli::commandTable())
        c.add(app, action);
    for (const CommandEntry &c : cli::commandTable()) {
        const auto subs = app.get_subcommands([&c](const CLI::App *sub) { return sub->get_name() == c.name; });
        ASSERT_EQ(subs.size(), 1u) << c.name << ": its function registers another command";
        const CLI::App *sub = subs.front();
        const bool sharded = sub->get_option_no_throw("--shard") != nullptr;
        EXPECT_EQ(sharded, c.merge.kind != cli::ShardMerge::None) << c.name;
        EXPECT_EQ(c.merge.report != nullptr, c.merge.kind == cli::ShardMerge::Report) << c.name;
        EXPECT_EQ(c.merge.next != nullptr, c.merge.kind == cli::ShardMerge::Features) << c.name;
    }
    EXPECT_FALSE(action) << "registering a command chose it";
}
