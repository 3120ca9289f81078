#pragma once
/// \file externalparser.h
/// The "external" backend: any program that reads tokens and writes CoNLL-U
/// (UDPipe with --tokenize=none, a Stanza or spaCy script, ...) used as a parser.
///
/// Protocol, per sentence (one process per sentence; commands that could take
/// many sentences at once are still started once per sentence):
/// - ParserConfig::command runs as `/bin/sh -c COMMAND` in its own process group,
///   with the environment of the application plus TREELENS_INPUT_FORMAT=tokens;
/// - stdin receives ONE line: the tokens separated by single spaces, ending with
///   "\n", then end of file. Whitespace inside a token becomes '_' and an empty
///   token is sent as "_" (the line format cannot carry them; the returned
///   sentence keeps the original token text anyway);
/// - stdout must be CoNLL-U with exactly one sentence of exactly as many words as
///   tokens were sent, with a valid dependency tree (one root, no cycles);
///   multiword token lines and comments are allowed and ignored;
/// - stderr is only used for error messages (its last non-empty line);
/// - ParserConfig::timeoutSeconds bounds the whole run (0 = no limit); on expiry
///   the process group is killed with SIGKILL.
///
/// parse() returns the input sentence with the dependency tree (HEAD, DEPREL)
/// and UPOS/XPOS of the output (a "_" in the output keeps the input's value);
/// token text, lemmas, features and offsets stay those of the input. Metadata
/// "parser" = "external". Errors start with "external parser: ", e.g.
/// "external parser: command not found: ..." (exit status 127),
/// "external parser: '...' exited with status 3: <last stderr line>",
/// "external parser: no output within 2 s from '...'",
/// "external parser: '...' returned 4 words for 3 tokens".
///
/// POSIX only (posix_spawn, poll). Safe to use from several threads with one
/// parser per thread; SIGPIPE from a command that exits without reading its
/// input is blocked for the writing thread and never reaches the application.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/parsing/parser.h"

namespace treelens {

/// Errors when config.command is empty.
Result<std::unique_ptr<Parser>> createExternalParser(const ParserConfig &config);

/// Name "external", dependencies only.
ParserInfo externalParserInfo();

/// Output of one run of a shell command (exposed for tests and other backends).
struct CommandOutput {
    int exitStatus = -1;   ///< exit code, or -1 if killed by a signal
    int signal = 0;        ///< terminating signal, 0 if it exited
    bool timedOut = false; ///< killed because timeoutSeconds passed
    std::string out;       ///< stdout
    std::string err;       ///< stderr (the last 64 KiB)
};

/// Runs `/bin/sh -c command` with `input` on stdin, extra environment entries
/// ("NAME=value") added, reading stdout and stderr concurrently (no deadlock on
/// large outputs). timeoutSeconds <= 0: no limit. stdout beyond maxOutputBytes is
/// an Error. Errors only for failures to start it (pipes, spawn).
Result<CommandOutput> runShellCommand(const std::string &command, const std::string &input,
                                      const std::vector<std::string> &environment, double timeoutSeconds,
                                      std::size_t maxOutputBytes = std::size_t{256} << 20);

} // namespace treelens
