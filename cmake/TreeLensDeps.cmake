# Third-party dependencies, all from Debian packages (scripts/setup.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)

# libzip reads PyTorch checkpoints (zip archives) for import-checkpoint.
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)

# LibTorch (Debian's libtorch-dev). Its config adds its own flags to TORCH_CXX_FLAGS.
find_package(Torch REQUIRED)

if(TREELENS_WITH_LINK_GRAMMAR)
  pkg_check_modules(LINKGRAMMAR REQUIRED IMPORTED_TARGET link-grammar)
endif()

if(TREELENS_BUILD_GUI)
  find_package(Qt6 REQUIRED COMPONENTS Core Gui Widgets Svg PrintSupport)
  find_package(QCustomPlotQt6 REQUIRED)
  pkg_check_modules(GRAPHVIZ REQUIRED IMPORTED_TARGET libgvc libcgraph)
else()
  # The session layer and the GUI need Qt; the headless build needs none of it.
endif()

if(TREELENS_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(TREELENS_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
