#!/usr/bin/env python3
"""Every #include between the repository's modules is an edge the documented table allows.

The table is the one in docs/architecture.md under "## Allowed include edges": one row a
module, `| module | may include |`, modules in backticks (`*`: any module). A module is a folder: core/X
(core/encoders/X for each family folder and core/encoders/common, core/encoders for
the interface and fixture files directly in it; core/parsing/neural apart from
core/parsing), ui/session, ui, viz, app, python, tests, bench. Includes inside one
module are free; every other edge must be listed (transitive edges are not implied).
Two rules need no row: the family folders (every core/encoders/X but common) never
include each other, and nothing outside core/registry and tests includes a family
folder unless its row names it.

    scripts/check_layers.py [--table FILE] [--root DIR]

Exit 0 when every edge is allowed; 1 listing each forbidden edge as
`file: includes path (module A -> module B is not in the table)`; 2 when the table
cannot be read or names a module that does not exist.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPS = ("core", "ui", "viz", "app", "python", "tests", "bench")
FAMILY_PARENT = "core/encoders"


def module_of(path):
    """The module of a repository path ('core/encoders/tat/tat.cpp' -> 'core/encoders/tat')."""
    p = path.split("/")
    if p[0] == "core":
        if len(p) == 2:
            return "core"
        if p[1] == "encoders" and len(p) > 3:
            return "core/encoders/" + p[2]
        if p[1] == "parsing" and len(p) > 3 and p[2] == "neural":
            return "core/parsing/neural"
        return "core/" + p[1]
    if p[0] == "ui":
        return "ui/session" if len(p) > 2 and p[1] == "session" else "ui"
    return p[0]


def is_family(module):
    return module.startswith(FAMILY_PARENT + "/") and module != FAMILY_PARENT + "/common"


def read_table(path):
    allowed, section = {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                section = line.strip() == "## Allowed include edges"
                continue
            if not section or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 2:
                continue
            names = re.findall(r"`([a-z][a-z/]*)`", cells[0])
            if not names:
                continue  # header or separator row
            deps = set(re.findall(r"`([a-z][a-z/]*|\*)`", cells[1]))  # module names; other code spans are prose
            for n in names:
                allowed.setdefault(n, set()).update(deps)
    return allowed


def tracked_sources(root):
    for top in TOPS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".h", ".cpp")):
                    yield os.path.relpath(os.path.join(d, f), root)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", default=os.path.join(ROOT, "docs", "architecture.md"))
    ap.add_argument("--root", default=ROOT)
    args = ap.parse_args()
    allowed = read_table(args.table)
    if not allowed:
        print(f"check_layers: no table under '## Allowed include edges' in {args.table}", file=sys.stderr)
        return 2
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    modules, bad = set(), []
    for rel in tracked_sources(args.root):
        a = module_of(rel)
        modules.add(a)
        with open(os.path.join(args.root, rel), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = include.match(line)
                if not m or m.group(1).split("/")[0] not in TOPS or "/" not in m.group(1):
                    continue
                b = module_of(m.group(1))
                if a == b:
                    continue
                if a not in allowed:
                    bad.append(f"{rel}: includes {m.group(1)} (module {a} has no row in the table)")
                elif b not in allowed[a] and "*" not in allowed[a]:
                    why = "one family folder includes another" if is_family(a) and is_family(b) else f"module {a} -> module {b} is not in the table"
                    bad.append(f"{rel}: includes {m.group(1)} ({why})")
    unknown = sorted(n for n in set(allowed) | set().union(*allowed.values()) if n not in modules and n != "*")
    if unknown:
        print("check_layers: the table names modules that do not exist: " + ", ".join(unknown), file=sys.stderr)
        return 2
    for b in bad:
        print(b)
    print(f"check_layers: {len(modules)} modules, {len(bad)} forbidden include(s)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
