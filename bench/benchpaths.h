#pragma once
// Where the measurement programs find ../shared and their own folder: one generated
// source (bench/CMakeLists.txt, benchpaths.cpp) holds the paths, so no program's
// source is compiled with a path of this checkout in it (ccache reuses the objects
// across checkouts; docs/building.md, "Build speed").
namespace treelens::bench {
const char *defaultSharedDir(); ///< ../shared next to the checkout ($TREELENS_SHARED_DIR overrides where a program says so)
const char *benchDir();         ///< bench/ of the checkout
} // namespace treelens::bench

#define TREELENS_DEFAULT_SHARED_DIR (::treelens::bench::defaultSharedDir())
#define TREELENS_BENCH_DIR (::treelens::bench::benchDir())
