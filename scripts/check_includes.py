#!/usr/bin/env python3
"""Every header includes the standard headers it uses (docs/building.md, "Include check").

GCC 12's library includes much more transitively than GCC 13's or libc++'s, so a
header that uses std::uint64_t without <cstdint> compiles here and breaks there
(core/formats/corpusstream.h did, on Ubuntu 24.04). This check runs
include-what-you-use (Debian's `iwyu`) over every header of the repository and
fails when IWYU says a header should add a standard-library header (`<cstdint>`,
`<map>`, ...) for a name the header itself spells (`std::uint64_t`, `size_t`).
Project headers and removals are IWYU's opinion and are not enforced: only a
missing standard header breaks a build on another toolchain.

The headers are checked a folder at a time (core, app, ui, viz, bench, each folder of tests): one
translation unit includes every header of the folder and IWYU reports on each of
them (`--check_also`), so LibTorch and Qt are parsed once per folder, not once per
header (one unit per header took 176 s of the CI's 2 cores; this takes about 25 s).
In such a unit a template another header instantiates can make IWYU see a
use (std::vector's operator== "uses" std::equal in the header declaring the
vector): a suggestion counts only when the header names the symbol itself.

    scripts/check_includes.py [--jobs N] [--verbose] [PATH...]   # default: every tracked header

Exit 0 when clean, 1 when a header misses a standard header (each listed as
`file: add <header> for <symbol>`), 2 when IWYU is missing or fails to parse a header.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The C++17 standard library's headers (and the C headers' <cname> forms). IWYU
# may also suggest POSIX or internal headers; only these are enforced.
STD_HEADERS = set("""
algorithm any array atomic bitset cassert cctype cerrno cfenv cfloat charconv chrono cinttypes climits clocale
cmath codecvt complex condition_variable csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib cstring ctime
cuchar cwchar cwctype deque exception execution filesystem forward_list fstream functional future
initializer_list iomanip ios iosfwd iostream istream iterator limits list locale map memory memory_resource mutex
new numeric optional ostream queue random ratio regex scoped_allocator set shared_mutex sstream stack stdexcept
streambuf string string_view system_error thread tuple type_traits typeindex typeinfo unordered_map unordered_set
utility valarray variant vector
""".split())


def pkg_cflags(*packages):
    try:
        out = subprocess.run(["pkg-config", "--cflags", *packages], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [f.replace("-I", "-isystem", 1) if f.startswith("-I") else f for f in out.split()]


def flags():
    f = ["-std=c++17", "-x", "c++", "-I.", "-Itests", "-DQT_NO_KEYWORDS", "-D_GLIBCXX_USE_CXX11_ABI=1",
         "-isystem", "/usr/include/torch/csrc/api/include", "-Wno-everything"]
    f += pkg_cflags("Qt6Widgets", "Qt6Svg", "Qt6PrintSupport", "libgvc", "libzip")
    # The Python module's units (python/src/bindings.h includes pybind11, which includes Python.h).
    f += pkg_cflags("python3")
    # The GUI's moc/uic output is not needed to parse a header.
    return f


def tracked_headers():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "*.h"], check=True, capture_output=True, text=True).stdout
    # tests/fuzz is its own clang project; resources/ holds no code.
    return [p for p in out.split() if not p.startswith(("tests/fuzz/", "resources/"))]


ADD_BLOCK = re.compile(r"^(?P<file>\S+) should add these lines:\n(?P<body>(?:.*\n)*?)\n", re.M)
INCLUDE = re.compile(r"#include <(?P<h>[^>]+)>(?:\s*// for (?P<why>.*))?")


# C names IWYU may report without std:: (a header may spell them either way).
C_NAMES = {"size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
           "uint64_t", "uintptr_t", "intptr_t", "FILE", "nullptr_t", "max_align_t"}


def names_symbol(text, symbol):
    """Whether the header's own text spells `symbol` (std::symbol, or a C name bare)."""
    sym = re.escape(symbol.split("<")[0].split("::")[-1])
    if re.search(r"\bstd::" + sym + r"\b", text):
        return True
    return symbol in C_NAMES and re.search(r"(?<![\w:.])" + sym + r"\b", text) is not None


def group_of(header):
    """The folder checked with `header`: its top folder, or for tests/ its test folder
    (the test suites' helpers are never included together: tests/ui's waitFor and
    tests/session's differ)."""
    parts = header.split("/")
    return "/".join(parts[:2]) if parts[0] == "tests" and len(parts) > 2 else parts[0]


def check_group(name, headers, cflags, verbose):
    """One unit including `headers`; returns ({header: [(std header, symbols)]}, error text or None)."""
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, name.replace("/", "_") + ".cpp")
        with open(tu, "w") as f:
            for h in headers:
                f.write('#include "%s"\n' % h)
        cmd = ["include-what-you-use", *cflags, "-Xiwyu", "--no_fwd_decls", "-Xiwyu", "--max_line_length=200"]
        for h in headers:
            cmd += ["-Xiwyu", "--check_also=" + h]
        cmd.append(tu)
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    text = p.stdout + p.stderr
    if verbose:
        print(text)
    if re.search(r"(fatal )?error:", text):
        return {}, text
    wanted = set(os.path.normpath(h) for h in headers)
    missing = {}
    for m in ADD_BLOCK.finditer(text + "\n"):
        header = os.path.normpath(m.group("file"))
        if header not in wanted:
            continue
        with open(os.path.join(ROOT, header), encoding="utf-8", errors="replace") as f:
            own = f.read()
        for line in m.group("body").splitlines():
            inc = INCLUDE.search(line)
            if not inc or inc.group("h") not in STD_HEADERS:
                continue
            symbols = [s.strip() for s in (inc.group("why") or "").split(",") if s.strip()]
            named = [s for s in symbols if names_symbol(own, s)]
            if named:
                missing.setdefault(header, []).append((inc.group("h"), ", ".join(named)))
    return missing, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    if not shutil.which("include-what-you-use"):
        print("check_includes: include-what-you-use not found (Debian package iwyu; scripts/setup.sh installs it)",
              file=sys.stderr)
        return 2
    headers = args.paths or tracked_headers()
    cflags = flags()
    groups = {}
    for h in headers:
        groups.setdefault(group_of(h), []).append(h)
    bad = failed = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = pool.map(lambda g: (g, check_group(g, groups[g], cflags, args.verbose)), sorted(groups))
        for group, (missing, error) in results:
            if error is not None:
                failed += 1
                print("check_includes: %s/: IWYU could not parse its headers:\n%s" % (group, error.strip()[:3000]),
                      file=sys.stderr)
                continue
            for header in sorted(missing):
                for h, why in missing[header]:
                    bad += 1
                    print("%s: add <%s> for %s" % (header, h, why))
    print("check_includes: %d header(s) in %d folder(s), %d missing standard include(s), %d folder(s) not parsed"
          % (len(headers), len(groups), bad, failed), file=sys.stderr)
    return 2 if failed else (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main())
