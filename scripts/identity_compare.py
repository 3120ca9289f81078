#!/usr/bin/env python3
"""Compares two scripts/identity.sh output folders (before and after a change).

Every file must be byte-identical, except where a documented rename of keys explains
the difference: then each JSON line must be equal after the old keys are renamed
(values compared exactly: the same decimal text parses to the same number).

  scripts/identity_compare.py BEFORE AFTER [--rename OLD=NEW ...] [--rename-file FILE]

--rename-file reads one OLD=NEW per line ('#' comments). Exit 0 when every file is
identical (bytes, or content after the renames), 1 otherwise; one line per file says which.
"""
import argparse
import json
import os
import sys


def renamed(value, renames):
    if isinstance(value, dict):
        return {renames.get(k, k): renamed(v, renames) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, renames) for v in value]
    return value


def same_after_renames(before, after, renames):
    """Line by line: JSON lines equal once the old keys are renamed; other lines byte-equal."""
    b_lines, a_lines = before.splitlines(), after.splitlines()
    if len(b_lines) != len(a_lines):
        return False, "%d lines before, %d after" % (len(b_lines), len(a_lines))
    for n, (b, a) in enumerate(zip(b_lines, a_lines), 1):
        if b == a:
            continue
        try:
            jb, ja = json.loads(b), json.loads(a)
        except ValueError:
            return False, "line %d differs (not JSON)" % n
        if renamed(jb, renames) != ja:
            return False, "line %d differs beyond the renames" % n
    return True, "identical after the renames"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    p.add_argument("--rename-file")
    args = p.parse_args()
    pairs = list(args.rename)
    if args.rename_file:
        with open(args.rename_file, encoding="utf-8") as f:
            pairs += [l.strip() for l in f if l.strip() and not l.startswith("#")]
    renames = dict(x.split("=", 1) for x in pairs)
    names = sorted(n for n in os.listdir(args.before) if n.endswith((".jsonl", ".tsv")))
    if not names:
        print("identity_compare: no outputs in %s" % args.before, file=sys.stderr)
        return 1
    failed = 0
    for name in names:
        bp, ap = os.path.join(args.before, name), os.path.join(args.after, name)
        if not os.path.exists(ap):
            print("%s: missing after" % name)
            failed += 1
            continue
        with open(bp, "rb") as f:
            b = f.read()
        with open(ap, "rb") as f:
            a = f.read()
        if a == b:
            print("%s: byte-identical" % name)
            continue
        ok, why = same_after_renames(b.decode("utf-8"), a.decode("utf-8"), renames)
        print("%s: %s" % (name, why))
        failed += 0 if ok else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
