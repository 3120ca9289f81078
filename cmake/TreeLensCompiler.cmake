# Compiler settings shared by every target.
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

# Export nothing from our objects (all targets are static libraries and
# executables). Debian's libtorch_cpu loads Qt 5 (through OpenCV's highgui) next
# to our Qt 6, and the linker exports an executable's copy of an inline function
# when a shared library in the link (Qt 5) has the same name; Qt 5 then binds to
# it, since an unversioned definition satisfies its "Qt_5" reference: Qt 5
# calling Qt 6 code (the -O0 ASan build crashed in Qt5Widgets' initialiser on
# QByteArray::append(const char *)). Hidden inline functions stay ours.
# docs/building.md, tests/session/test_qtisolation.cpp.
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

# ccache keeps rebuilds fast (CI and the developer loop); harmless when absent.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()

# Torch headers use `slots` as an identifier: Qt keywords are off project-wide.
add_compile_definitions(QT_NO_KEYWORDS)

set(TREELENS_SANITIZE "" CACHE STRING "Sanitizers to enable, e.g. address,undefined")
if(TREELENS_SANITIZE)
  add_compile_options(-fsanitize=${TREELENS_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${TREELENS_SANITIZE})
endif()

# Warning flags go on our own targets only (not on Qt moc output or third-party code).
function(treelens_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
  endif()
endfunction()

# A precompiled <torch/torch.h> for the units that include LibTorch. It shortens a build
# from scratch without ccache, but ccache cannot cache a unit compiled against a PCH built
# in another directory: the CI presets (scripts/test.sh) turn it off so the headless build
# and a fresh clone reuse the objects (docs/building.md, "Build speed").
option(TREELENS_PCH "Precompile the LibTorch header for the units that include it" ON)
function(treelens_torch_pch target)
  if(NOT TREELENS_PCH)
    return()
  endif()
  cmake_parse_arguments(ARG "" "REUSE_FROM" "" ${ARGN})
  if(ARG_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${ARG_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${TREELENS_SOURCE_DIR}/core/runtime/torch_pch.h)
  endif()
endfunction()
