// treelens-cli: the command-line face of TreeLens (links only treelens_core).
// Exit codes: 0 ok, 1 user/data error (one line on stderr), 2 usage error.

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "core/base/inputlimits.h"

namespace {

/// The edit distance (insertions, deletions, substitutions, and a swap of two neighbours
/// counted once: "anlyze" is one step from "analyze") between two command names.
std::size_t editDistance(const std::string &a, const std::string &b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

/// " (did you mean 'analyze'?)" when the first argument is no command but one is close to
/// it (at most a third of its letters off, or it starts one command's name); "" otherwise.
std::string commandSuggestion(const CLI::App &app, int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        return {};
    const std::string given = argv[1];
    std::string best;
    std::size_t bestDistance = std::string::npos;
    for (const CLI::App *sub : app.get_subcommands({})) {
        const std::string &name = sub->get_name();
        if (name == given)
            return {};
        std::size_t d = editDistance(given, name);
        if (given.size() >= 3 && name.rfind(given, 0) == 0)
            d = std::min<std::size_t>(d, 1);
        if (d < bestDistance) {
            bestDistance = d;
            best = name;
        }
    }
    if (best.empty() || bestDistance > std::max<std::size_t>(1, given.size() / 3))
        return " ('" + treelens::printableMessage(given) + "' is not a command)";
    return " ('" + treelens::printableMessage(given) + "' is not a command; did you mean '" + best + "'?)";
}

} // namespace

int main(int argc, char **argv)
{
    using namespace treelens::cli;
    CLI::App app{"TreeLens command line: tokenize, parse, convert and evaluate treebanks; analyse sentences "
                 "with tree-structured attention encoders.",
                 "treelens-cli"};
    app.set_version_flag("--version", std::string("treelens-cli ") + TREELENS_VERSION);
    app.require_subcommand(1);
    app.footer("Exit codes: 0 success, 1 user or data error, 2 usage error.\n"
               "Run 'treelens-cli COMMAND --help' for a command's options.");

    setCommandLine(argc, argv);
    Action action;
    for (const CommandEntry &command : commandTable())
        command.add(app, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        const std::string suggestion = app.get_subcommands().empty() ? commandSuggestion(app, argc, argv) : std::string();
        std::cerr << "treelens-cli: usage error: " << treelens::printableMessage(e.what()) << suggestion
                  << "\nRun 'treelens-cli --help' for usage.\n";
        return 2;
    }
    // An empty output name is a mistake (a variable that was not set), not a
    // request for standard output: leave -o out for that.
    for (const CLI::App *sub : app.get_subcommands())
        for (const CLI::Option *o : sub->get_options())
            for (const std::string &name : o->get_lnames())
                if ((name == "output" || name == "out") && o->count() > 0)
                    for (const std::string &r : o->results())
                        if (r.empty()) {
                            std::cerr << "treelens-cli: usage error: " << sub->get_name() << " --" << name
                                      << ": empty file name (leave the option out to write to standard output)\n";
                            return 2;
                        }
    // An empty sentence argument ("$SENTENCE" unset) is a mistake, not a request to read
    // standard input: '-' asks for that.
    for (const CLI::App *sub : app.get_subcommands())
        for (const CLI::Option *o : sub->get_options())
            if (o->get_positional() && o->get_name() == "text" && o->count() > 0)
                for (const std::string &r : o->results())
                    if (r.find_first_not_of(" \t\r\n") == std::string::npos) {
                        std::cerr << "treelens-cli: usage error: " << sub->get_name()
                                  << ": the sentence is empty (give the text, '-' to read standard input, or --input FILE)\n";
                        return 2;
                    }
    if (!action)
        return 2;
    try {
        return action();
    } catch (const std::exception &e) {
        // Library code returns errors; this only catches what escaped a dependency.
        return fail(std::string("internal error: ") + e.what());
    }
}
