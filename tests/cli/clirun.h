#pragma once
// Runs the treelens-cli binary (TREELENS_CLI) in the CLI test files: exit code,
// stdout and stderr, with stdin from a string.
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/base/fileio.h"
#include "testutil.h"

namespace treelens::test {

struct CliRun {
    int code = -1;
    std::string out;
    std::string err;
};

/// One temporary directory per test process.
inline std::string cliTempDir()
{
    static std::string dir = [] {
        std::string t = ::testing::TempDir() + "treelens-cli-XXXXXX";
        return std::string(mkdtemp(t.data()));
    }();
    return dir;
}

/// Single-quotes `s` for /bin/sh.
inline std::string shellQuote(const std::string &s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline CliRun runCli(const std::string &args, const std::string &stdinText = "")
{
    const std::string dir = cliTempDir();
    const std::string outPath = dir + "/stdout", errPath = dir + "/stderr", inPath = dir + "/stdin";
    std::ofstream(inPath) << stdinText;
    const std::string cmd = std::string(TREELENS_CLI) + " " + args + " <" + inPath + " >" + outPath + " 2>" + errPath;
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = *readFile(outPath);
    r.err = *readFile(errPath);
    return r;
}

} // namespace treelens::test
