#!/usr/bin/env python3
"""Every header includes the standard headers it uses (docs/building.md, "Include check").

GCC 12's library includes much more transitively than GCC 13's or libc++'s, so a
header that uses std::uint64_t without <cstdint> compiles here and breaks there
(core/formats/corpusstream.h did, on Ubuntu 24.04). This check runs
include-what-you-use (Debian's `iwyu`) on every header of the repository as a
translation unit of its own and fails when IWYU says the header should add a
standard-library header (`<cstdint>`, `<map>`, ...). Project headers and
removals are IWYU's opinion and are not enforced: only a missing standard
header breaks a build on another toolchain.

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
         "-isystem", "/usr/include/torch/csrc/api/include", "-Wno-everything",
         # tests/CMakeLists.txt gives the test helpers these; their values do not matter here.
         '-DTREELENS_SHARED_DIR="/nonexistent"', '-DTREELENS_TEST_DATA_DIR="tests/data"', '-DTREELENS_SOURCE_DIR="."',
         '-DTREELENS_CLI="treelens-cli"']
    f += pkg_cflags("Qt6Widgets", "Qt6Svg", "Qt6PrintSupport", "libgvc", "libzip")
    # The GUI's moc/uic output is not needed to parse a header.
    return f


def tracked_headers():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "*.h"], check=True, capture_output=True, text=True).stdout
    # tests/fuzz is its own clang project; resources/ holds no code.
    return [p for p in out.split() if not p.startswith(("tests/fuzz/", "resources/"))]


ADD_BLOCK = re.compile(r"^(?P<file>\S+) should add these lines:\n(?P<body>(?:.*\n)*?)\n", re.M)
INCLUDE = re.compile(r"#include <(?P<h>[^>]+)>(?:\s*// for (?P<why>.*))?")


def check(header, cflags, verbose):
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, "tu.cpp")
        with open(tu, "w") as f:
            f.write('#include "%s"\n' % header)
        cmd = ["include-what-you-use", *cflags, "-Xiwyu", "--no_fwd_decls", "-Xiwyu", "--check_also=" + header,
               "-Xiwyu", "--max_line_length=200", tu]
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    text = p.stdout + p.stderr
    if re.search(r"(fatal )?error:", text):
        return header, None, text
    missing = []
    for m in ADD_BLOCK.finditer(text + "\n"):
        if os.path.normpath(m.group("file")) != os.path.normpath(header):
            continue
        for line in m.group("body").splitlines():
            inc = INCLUDE.search(line)
            if inc and inc.group("h") in STD_HEADERS:
                missing.append((inc.group("h"), (inc.group("why") or "").strip()))
    return header, missing, text if verbose else ""


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
    bad = failed = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for header, missing, text in pool.map(lambda h: check(h, cflags, args.verbose), headers):
            if args.verbose and text:
                print(text)
            if missing is None:
                failed += 1
                print("check_includes: %s: IWYU could not parse it:\n%s" % (header, text.strip()[:2000]), file=sys.stderr)
                continue
            for h, why in missing:
                bad += 1
                print("%s: add <%s>%s" % (header, h, " for " + why if why else ""))
    print("check_includes: %d header(s), %d missing standard include(s), %d not parsed" % (len(headers), bad, failed),
          file=sys.stderr)
    return 2 if failed else (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main())
