#!/usr/bin/env python3
"""scripts/check_layers.py fails on the edges it exists to catch (a test that can fail).

Builds a small tree in a temporary folder — a table, a clean include, then one
forbidden edge at a time — and checks the script's exit status and message:
  * viz including a family folder (views must not name a family);
  * one family folder including another;
  * core/data including core/encoders (an upward edge);
  * a table naming a module that does not exist (exit 2).
Usage: check_layers_selftest.py PATH/TO/check_layers.py
"""
import os
import subprocess
import sys
import tempfile

TABLE = """# Architecture
## Allowed include edges
| module | may include |
|---|---|
| `core/base` | — |
| `core/data` | `core/base` |
| `core/encoders` | `core/base` `core/data` |
| `core/encoders/alpha` `core/encoders/beta` | `core/base` `core/data` `core/encoders` |
| `viz` | `core/base` `core/data` |
## Next
"""


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(script, root, table_text=TABLE):
    write(root, "docs/architecture.md", table_text)
    p = subprocess.run([sys.executable, script, "--root", root, "--table", os.path.join(root, "docs/architecture.md")],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    script = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as root:
        write(root, "core/base/a.h", "#pragma once\n")
        write(root, "core/data/b.h", '#include "core/base/a.h"\n')
        write(root, "core/encoders/encoder.h", '#include "core/data/b.h"\n')
        write(root, "core/encoders/alpha/alpha.cpp", '#include "core/encoders/encoder.h"\n')
        write(root, "core/encoders/beta/beta.cpp", '#include "core/encoders/encoder.h"\n')
        write(root, "viz/view.cpp", '#include "core/data/b.h"\n#include <vector>\n')
        rc, out = run(script, root)
        if rc != 0:
            failures.append(f"clean tree: exit {rc}: {out}")
        for rel, text, expect in [
            ("viz/view.cpp", '#include "core/encoders/alpha/alpha.h"\n', "viz -> module core/encoders/alpha"),
            ("core/encoders/beta/beta.cpp", '#include "core/encoders/alpha/alpha.h"\n', "one family folder includes another"),
            ("core/data/b.h", '#include "core/encoders/encoder.h"\n', "core/data -> module core/encoders"),
        ]:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                before = f.read()
            write(root, rel, before + text)
            rc, out = run(script, root)
            if rc != 1 or expect not in out:
                failures.append(f"{rel} + {text.strip()}: exit {rc}, wanted 1 and '{expect}': {out}")
            write(root, rel, before)
        rc, out = run(script, root, TABLE.replace("| `viz` |", "| `viz` `core/nowhere` |"))
        if rc != 2 or "core/nowhere" not in out:
            failures.append(f"unknown module: exit {rc}: {out}")
    for f in failures:
        print(f)
    print(f"check_layers self-test: {len(failures)} of 5 checks failed" if failures else "check_layers self-test: 5 checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
