// treelens-cli: the command-line face of TreeLens (links only treelens_core).
// Exit codes: 0 ok, 1 user/data error (one line on stderr), 2 usage error.

#include <iostream>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "core/base/inputlimits.h"

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
        std::cerr << "treelens-cli: usage error: " << treelens::printableMessage(e.what())
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
    if (!action)
        return 2;
    try {
        return action();
    } catch (const std::exception &e) {
        // Library code returns errors; this only catches what escaped a dependency.
        return fail(std::string("internal error: ") + e.what());
    }
}
