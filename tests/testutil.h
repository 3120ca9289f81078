#pragma once
// Helpers shared by the test suites: locating tests/data and ../shared.

#include <cstdlib>
#include <string>
#include <sys/stat.h>

#include <gtest/gtest.h>

namespace treelens::test::paths {
// Where this build's tests find their files and programs: one generated source
// (tests/CMakeLists.txt, testpaths.cpp) holds them, so no test source is compiled
// with a path of this checkout in it and ccache reuses the objects across checkouts
// (docs/building.md, "Build speed").
const char *sourceDir();         ///< the checkout
const char *testDataDir();       ///< tests/data
const char *sharedDir();         ///< ../shared as configured (TREELENS_SHARED_DIR), "" to use none
const char *cliBinary();         ///< treelens-cli
const char *guiBinary();         ///< treelens ("" in a build without the GUI)
const char *conformanceModels(); ///< the conformance matrix's fixture models (tests/conformance/make_models.sh)
} // namespace treelens::test::paths

// The names the tests use (a const char *, no longer a string literal).
#define TREELENS_SOURCE_DIR (::treelens::test::paths::sourceDir())
#define TREELENS_TEST_DATA_DIR (::treelens::test::paths::testDataDir())
#define TREELENS_SHARED_DIR (::treelens::test::paths::sharedDir())
#define TREELENS_CLI (::treelens::test::paths::cliBinary())
#define TREELENS_GUI_BINARY (::treelens::test::paths::guiBinary())
#define TREELENS_CONFORMANCE_MODELS (::treelens::test::paths::conformanceModels())

namespace treelens::test {

inline bool pathExists(const std::string &p)
{
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

inline std::string testData(const std::string &name) { return std::string(TREELENS_TEST_DATA_DIR) + "/" + name; }

/// ../shared, or $TREELENS_SHARED_DIR; "" when neither exists.
inline std::string sharedDir()
{
    if (const char *env = std::getenv("TREELENS_SHARED_DIR"); env && *env)
        return pathExists(env) ? std::string(env) : std::string();
    return pathExists(TREELENS_SHARED_DIR) ? std::string(TREELENS_SHARED_DIR) : std::string();
}

inline std::string sharedPath(const std::string &rel)
{
    const std::string d = sharedDir();
    return d.empty() ? std::string() : d + "/" + rel;
}

} // namespace treelens::test

/// Skips the current test with a visible message when ../shared/<rel> is absent.
#define TREELENS_REQUIRE_SHARED(rel)                                                                    \
    do {                                                                                                \
        if (::treelens::test::sharedPath(rel).empty() || !::treelens::test::pathExists(::treelens::test::sharedPath(rel))) \
            GTEST_SKIP() << "SKIPPED: shared data '" << (rel) << "' not found (expected ../shared next to the checkout or $TREELENS_SHARED_DIR)"; \
    } while (0)
