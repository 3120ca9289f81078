#pragma once
/// \file lsansuppressions.h
/// LeakSanitizer's built-in suppressions for the `asan` preset, compiled into
/// the test executables (tests/lsanhook.cpp) and the app (app/gui/main.cpp,
/// which the UI tests start as a child process). Include from exactly one
/// translation unit per executable. Only system libraries whose allocations
/// are never freed by design are listed, found by the 2026-11-25 ASan run:
/// fontconfig's configuration cache (allocated inside FcInit/FcConfig and kept
/// for the process) and Graphviz's `dot` layout (gmalloc in flat_edge and
/// dot_mincross, not released by gvFreeLayout/agclose, which TreeLens calls).
/// Never TreeLens's own code. Without a sanitizer this defines nothing.

#if defined(__SANITIZE_ADDRESS__)
extern "C" __attribute__((visibility("default"), used)) const char *__lsan_default_suppressions()
{
    return "leak:libfontconfig.so.1\n"
           "leak:libgvc.so.6\n"
           "leak:libgvplugin_dot_layout.so.6\n"
           "leak:libcgraph.so.6\n";
}
#endif
