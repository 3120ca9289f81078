#!/usr/bin/env python3
"""Markdown tables comparing encoders from `treelens-cli probe --json` reports
(docs/probing.md). Usage: probing_tables.py NAME=RESULT.json[+MORE.json] [NAME=...]
(a file without NAME= is the app's multi-model export {"models": [...]}; files joined
by + are one encoder's runs: their tasks are merged, a later file's task replacing an
earlier one; the first file's data and settings are reported).

A thin wrapper: the tables and their rules (best layer by dev, best head; the rules of
the GUI's Compare tab) live in core/probing/probecompare.h and are printed by
`treelens-cli probe-tables`, which this runs with the same arguments. The CLI is
$TREELENS_CLI, else build/dev/app/treelens-cli of this checkout, else treelens-cli on PATH."""
import os
import shutil
import sys


def cli():
    if os.environ.get("TREELENS_CLI"):
        return os.environ["TREELENS_CLI"]
    built = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "dev", "app", "treelens-cli")
    if os.access(built, os.X_OK):
        return built
    found = shutil.which("treelens-cli")
    if not found:
        sys.exit("probing_tables.py: treelens-cli not found (build it, put it on PATH or set TREELENS_CLI)")
    return found


if __name__ == "__main__":
    binary = cli()
    os.execv(binary, [binary, "probe-tables"] + sys.argv[1:])
