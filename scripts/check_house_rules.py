#!/usr/bin/env python3
"""The house rules of /work/shared/DESIGN.md that a script can check, checked on every test run.

The C++ sources (*.cpp, *.h) under core ui viz app python (not tests/, bench/) are held to:
  file-size        no file over 1,000 lines;
  function-size    no function (lambdas included) over 150 lines, measured by universal-ctags,
                   unless scripts/house_rules_allow.txt lists it (below);
  mainwindow-size  ui/mainwindow.cpp no longer than 500 lines;
  family-name      outside core/encoders/ and core/registry/ no code compares a family or
                   model-type name (`a.family == "ggsa"`, `"bert" != modelType`, `x == "ggsa"`);
  overlay-prefix   outside core/encoders/ and core/registry/ no string literal starts with a
                   family's overlay-key prefix ("rec.", "tat.", "ggsa.", "deptrans."), and no
                   view in viz/ spells the recursive model's bare keys ("attn", "edge_fwd.attn",
                   "edge_bwd.attn");
  view-registry    no view (a class in viz/ deriving, directly or through another view, from
                   ExportableView) is built in ui/, app/ or python/ outside ui/viewregistry.cpp.
Comments do not count; string literals do.

The allow-list (one `path<TAB>function<TAB>max_lines<TAB>reason` a line, `#` comments; the
function as this script names it) may only shrink: a listed function may not grow past its
max_lines, and an entry whose function is gone or back within 150 lines, or that gives no
reason, is itself a violation.

    scripts/check_house_rules.py [--root DIR] [--allow FILE] [--list-long-functions]

Exit 0 when the tree keeps every rule; 1 listing each violation as `path:line: rule: what`
(sorted) and a summary; 2 when universal-ctags is missing or the allow-list is malformed.
--list-long-functions prints every function over 150 lines, longest first (exit 0).
"""
import argparse
import bisect
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPS = ("core", "ui", "viz", "app", "python")
ALLOW_LIST = "scripts/house_rules_allow.txt"
MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 150
MAINWINDOW = "ui/mainwindow.cpp"
MAX_MAINWINDOW_LINES = 500
# The only folders that may know family names and their overlay keys.
FAMILY_HOMES = ("core/encoders/", "core/registry/")
# The "family" values of treelens.config; the encoders' own constants are added to these.
FAMILIES = ("tree-transformer", "dependency-transformer", "ggsa", "iggsa", "tree-aggregation-transformer",
            "recursive-tree-transformer", "tree-lstm-attention", "pretrained-transformer")
# Hugging Face model types (config.json's "model_type"); core/encoders' own comparisons are added.
MODEL_TYPES = ("bert", "roberta", "gpt2", "gpt_neox", "llama", "qwen2", "qwen3", "gemma", "mistral", "phi")
OVERLAY_PREFIXES = ("rec.", "tat.", "ggsa.", "deptrans.")
RECURSIVE_BARE_KEYS = ("attn", "edge_fwd.attn", "edge_bwd.attn")
VIEW_BASE = "ExportableView"
VIEW_BUILDERS = ("ui/", "app/", "python/")
VIEW_REGISTRY = "ui/viewregistry.cpp"
# Files that may build a view besides the registry: a view composed of other views, where the
# inner view is part of the outer one rather than a view of its own. Each entry says why.
VIEW_COMPOSITION = {
}
DO_SPLIT = "split it by stage (one function a step, named after it)"
DO_CAPABILITY = ("ask the analysis what it carries (core/data/overlays.h) or the encoder's info "
                 "(capabilities) instead of the family")


class ConfigError(Exception):
    """A problem with the check's own inputs (exit 2)."""


# ---------------------------------------------------------------------------------------------
# Reading C++: comments blanked, string literals kept (and listed).

class Source:
    """One file: `code` has the comments blanked (newlines kept, so offsets and lines stay);
    `masked` also blanks the contents of string and character literals (quotes kept), so a
    pattern cannot match inside one; `literals` are (start, end, value) of every string literal,
    start at its opening quote, end after its closing one, value its text as written."""

    def __init__(self, rel, text):
        self.rel = rel
        self.text = text
        self.lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        self.code, self.masked, self.literals = scan(text)
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset):
        return bisect.bisect_right(self._starts, offset)


_TOKEN = re.compile(r"//|/\*|[\"']")
_RAW = re.compile(r'R"([^ ()\\\t\n]{0,16})\(')


def _blank(s):
    return re.sub(r"[^\n]", " ", s)


def scan(text):
    code, masked, literals = [], [], []
    pos = 0
    n = len(text)
    while True:
        m = _TOKEN.search(text, pos)
        if not m:
            code.append(text[pos:])
            masked.append(text[pos:])
            break
        i = m.start()
        code.append(text[pos:i])
        masked.append(text[pos:i])
        tok = m.group()
        if tok == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
            code.append(_blank(text[i:j]))
            masked.append(_blank(text[i:j]))
            pos = j
            continue
        if tok == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            code.append(_blank(text[i:j]))
            masked.append(_blank(text[i:j]))
            pos = j
            continue
        # The identifier or number just before the quote: a raw-string prefix, an encoding
        # prefix, or (before ') the digits of a number with separators (10'000).
        k = i
        while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_."):
            k -= 1
        prefix = text[k:i]
        if tok == "'":
            if prefix[:1].isdigit():
                code.append("'")
                masked.append("'")
                pos = i + 1
                continue
            j = _literal_end(text, i, "'")
            code.append(text[i:j])
            masked.append("'" + _blank(text[i + 1:j - 1]) + "'" if j - i >= 2 else text[i:j])
            pos = j
            continue
        if prefix in ("R", "LR", "uR", "UR", "u8R"):
            r = _RAW.match(text, i - 1)
            if r:
                close = ")" + r.group(1) + '"'
                j = text.find(close, r.end())
                j = n if j < 0 else j + len(close)
                body_start, body_end = r.end(), max(r.end(), j - len(close))
                literals.append((i, j, text[body_start:body_end]))
                code.append(text[i:j])
                masked.append('"' + _blank(text[i + 1:j - 1]) + '"')
                pos = j
                continue
        j = _literal_end(text, i, '"')
        literals.append((i, j, text[i + 1:j - 1]))
        code.append(text[i:j])
        masked.append('"' + _blank(text[i + 1:j - 1]) + '"' if j - i >= 2 else text[i:j])
        pos = j
    return "".join(code), "".join(masked), literals


def _literal_end(text, i, quote):
    """The offset after the literal opened at i (at the end of the line when unterminated)."""
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":
            return j
        j += 1
    return len(text)


# ---------------------------------------------------------------------------------------------
# The tree.

def sources(root):
    out = []
    for top in TOPS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".h", ".cpp")):
                    rel = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                    with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                        out.append(Source(rel, fh.read()))
    return out


def in_family_home(rel):
    return rel.startswith(FAMILY_HOMES)


# ---------------------------------------------------------------------------------------------
# Functions, measured by universal-ctags.

def ctags_binary():
    exe = shutil.which("ctags")
    if not exe:
        raise ConfigError("universal-ctags not found (apt-get install universal-ctags; scripts/setup.sh installs it)")
    try:
        version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    except OSError as e:
        raise ConfigError(f"cannot run {exe}: {e}")
    if "Universal Ctags" not in version:
        raise ConfigError(f"{exe} is not universal-ctags (it says: {version.splitlines()[0] if version else '?'})")
    return exe


def functions(root, rels):
    """Every function and lambda: dicts with rel, line, end, lines, name (as messages name it)."""
    exe = ctags_binary()
    # --options=NONE: no ctags configuration of the user's or the tree's changes what is measured.
    fmt = "%{end}\t%{line}\t%{input}\t%{name}\t%{scope}\t%{scopeKind}"
    p = subprocess.run([exe, "--options=NONE", "-L", "-", "--languages=C++", "--map-C++=+.h", "--kinds-C++=f", "--fields=+neZ", "-x",
                        "--_xformat=" + fmt], input="\n".join(rels) + "\n", capture_output=True, text=True, cwd=root)
    if p.returncode != 0:
        raise ConfigError(f"ctags failed (exit {p.returncode}): {p.stderr.strip()}")
    by_file = {}
    for row in p.stdout.splitlines():
        cells = row.split("\t")
        if len(cells) != 6 or not cells[0].isdigit() or not cells[1].isdigit():
            continue  # no end line: ctags could not see the body
        end, line, rel, name, scope, kind = int(cells[0]), int(cells[1]), cells[2], cells[3], cells[4], cells[5]
        qualified = name
        if kind in ("class", "struct", "union") and scope:
            qualified = scope.split("::")[-1] + "::" + name
        by_file.setdefault(rel, []).append({"rel": rel, "line": line, "end": end, "lines": end - line + 1,
                                            "name": qualified, "lambda": name.startswith("__anon")})
    out = []
    for rel, fns in by_file.items():
        named = [f for f in fns if not f["lambda"]]
        for f in fns:
            if f["lambda"]:
                around = [g for g in named if g["line"] <= f["line"] and f["end"] <= g["end"]]
                inner = min(around, key=lambda g: g["lines"]) if around else None
                f["name"] = f"a lambda in {inner['name']}" if inner else "a lambda"
            out.append(f)
    out.sort(key=lambda f: (f["rel"], f["line"], f["name"]))
    return out


def read_allow_list(path):
    """Entries: dicts with at (line in the list), rel, name, max, reason."""
    if not os.path.exists(path):
        return []
    entries, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) == 3:
                cells.append("")
            if len(cells) != 4 or not cells[0].strip() or not cells[1].strip():
                raise ConfigError(f"{path}:{no}: want path<TAB>function<TAB>max_lines<TAB>reason, got {line!r}")
            if not cells[2].strip().isdigit():
                raise ConfigError(f"{path}:{no}: max_lines {cells[2]!r} is not a number")
            key = (cells[0].strip(), cells[1].strip())
            if key in seen:
                raise ConfigError(f"{path}:{no}: {key[0]} {key[1]} is listed twice")
            seen.add(key)
            entries.append({"at": no, "rel": key[0], "name": key[1], "max": int(cells[2]), "reason": cells[3].strip()})
    return entries


def check_functions(fns, entries, allow_rel):
    bad, allowed = [], 0
    listed = {(e["rel"], e["name"]): e for e in entries}
    for f in fns:
        if f["lines"] <= MAX_FUNCTION_LINES:
            continue
        e = listed.get((f["rel"], f["name"]))
        if e is None:
            bad.append((f["rel"], f["line"], "function-size",
                        f"{f['name']} is {f['lines']} lines (over {MAX_FUNCTION_LINES}): {DO_SPLIT}"))
        elif f["lines"] > e["max"]:
            bad.append((f["rel"], f["line"], "function-size",
                        f"{f['name']} is {f['lines']} lines, over its allow-list max of {e['max']} ({allow_rel}:{e['at']}): "
                        f"{DO_SPLIT}; the allow-list may only shrink"))
        else:
            allowed += 1
    for e in entries:
        mine = [f for f in fns if f["rel"] == e["rel"] and f["name"] == e["name"]]
        if not e["reason"]:
            bad.append((allow_rel, e["at"], "function-size",
                        f"allow-list entry for {e['rel']} {e['name']} has no reason: say why it may stay long, or split it"))
        if not mine:
            bad.append((allow_rel, e["at"], "function-size",
                        f"stale allow-list entry: remove it ({e['rel']} has no function {e['name']})"))
        elif max(f["lines"] for f in mine) <= MAX_FUNCTION_LINES:
            bad.append((allow_rel, e["at"], "function-size",
                        f"stale allow-list entry: remove it ({e['rel']} {e['name']} is now "
                        f"{max(f['lines'] for f in mine)} lines, within {MAX_FUNCTION_LINES})"))
    return bad, allowed


# ---------------------------------------------------------------------------------------------
# Family names.

def family_names(srcs):
    """The fixed lists, plus what core/encoders/*/ spells: kFamily = "..." and f.name = "..."
    of its EncoderFamily/TrainerFamily, and the model types its own code compares."""
    families, types = set(FAMILIES), set(MODEL_TYPES)
    for s in srcs:
        if not re.match(r"core/encoders/[^/]+/", s.rel):
            continue
        for m in re.finditer(r'\bkFamily\s*=\s*"([^"\n]+)"|\bf\.name\s*=\s*"([^"\n]+)"|makeTrainer\(\s*"([^"\n]+)"', s.code):
            families.add(next(g for g in m.groups() if g))
        for m in re.finditer(r'\b(?:modelType|model_type)\s*[!=]=\s*"([^"\n]+)"', s.code):
            types.add(m.group(1))
    return families, types


_NAME_VAR = r"(family|modelType|model_type)"
_BEFORE_VAR = re.compile(_NAME_VAR + r"\s*(?:[!=]=|\.\s*compare\s*\()\s*(?:[\w:]+\s*\(\s*)?$")
_AFTER_VAR = re.compile(r"^\s*\)?\s*[!=]=\s*\S*?" + _NAME_VAR + r"\b")
_BEFORE_CMP = re.compile(r"(?:[!=]=|\.\s*(?:compare|startsWith|starts_with|endsWith|ends_with|contains|count)\s*\("
                         r"|\bfind\s*\([^;{}]*,)\s*(?:[\w:]+\s*\(\s*)?$")
_AFTER_CMP = re.compile(r"^\s*\)?\s*[!=]=")


def _statement_before(masked, start):
    head = masked[max(0, start - 300):start]
    cut = max(head.rfind(";"), head.rfind("{"), head.rfind("}"))
    return head[cut + 1:]


def check_family_names(s, families, types):
    bad = []
    for start, end, value in s.literals:
        if not value:
            continue  # an emptiness test names no family
        before = _statement_before(s.masked, start)
        after = s.masked[end:end + 200]
        what = None
        m = _BEFORE_VAR.search(before) or _AFTER_VAR.search(after)
        if m:
            what = f'compares {m.group(1)} with "{value}"'
        elif value in families | types and (_BEFORE_CMP.search(before) or _AFTER_CMP.search(after)):
            kind = "family" if value in families else "model type"
            what = f'compares a value with the {kind} name "{value}"'
        if what:
            bad.append((s.rel, s.line(start), "family-name",
                        f"{what} outside core/encoders and core/registry: {DO_CAPABILITY}"))
    return bad


# ---------------------------------------------------------------------------------------------
# Overlay keys.

def check_overlay_prefixes(s):
    bad = []
    for start, _, value in s.literals:
        prefix = next((p for p in OVERLAY_PREFIXES if value.startswith(p)), None)
        if prefix:
            bad.append((s.rel, s.line(start), "overlay-prefix",
                        f'"{value}" starts with the family prefix "{prefix}": name the overlay by what it carries '
                        f"(a capability-named key in core/data/overlays.h), and keep family keys in core/encoders"))
        elif s.rel.startswith("viz/") and value in RECURSIVE_BARE_KEYS:
            bad.append((s.rel, s.line(start), "overlay-prefix",
                        f'the recursive model\'s bare key "{value}" in a view: read it through a typed accessor '
                        f"in core/data/overlays.h"))
    return bad


# ---------------------------------------------------------------------------------------------
# Views and the registry.

_CLASS = re.compile(r"\b(?:class|struct)\s+(?:[A-Z_][A-Z0-9_]*\s+)*(\w+)\s*(?:final\s*)?:(?!:)\s*([^{;]*)\{")


def _split_bases(text):
    parts, depth, cur = [], 0, ""
    for c in text:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    names = []
    for p in parts:
        p = re.sub(r"<.*", "", p)
        words = [w for w in re.findall(r"[\w:]+", p) if w not in ("public", "protected", "private", "virtual")]
        if words:
            names.append(words[-1].split("::")[-1])
    return names


def view_classes(srcs):
    """Every class declared in a viz/ header that reaches ExportableView through its bases."""
    bases = {}
    for s in srcs:
        if s.rel.startswith("viz/") and s.rel.endswith(".h"):
            for m in _CLASS.finditer(s.masked):
                bases.setdefault(m.group(1), set()).update(_split_bases(m.group(2)))
    views, grew = set(), True
    while grew:
        grew = False
        for cls, bs in bases.items():
            if cls not in views and (VIEW_BASE in bs or bs & views):
                views.add(cls)
                grew = True
    return views


def check_view_construction(s, views):
    if not s.rel.startswith(VIEW_BUILDERS) or s.rel == VIEW_REGISTRY or s.rel in VIEW_COMPOSITION or not views:
        return []
    names = "|".join(sorted(map(re.escape, views)))
    how = [
        ("new", re.compile(r"\bnew\s+(?:[\w:]*::)?(" + names + r")\b(?!\s*::)")),
        ("make_unique/make_shared", re.compile(r"\bmake_(?:unique|shared)\s*<\s*(?:[\w:]*::)?(" + names + r")\s*>")),
        ("a variable", re.compile(r"(?<![\w:<,])(?:[\w]*::)?(" + names + r")\s+(?!final\b|override\b)[A-Za-z_]\w*\s*[({;]")),
    ]
    bad = []
    for kind, rx in how:
        for m in rx.finditer(s.masked):
            head = s.masked[max(0, m.start() - 40):m.start()]
            if kind == "a variable" and re.search(r"\b(?:class|struct|friend|using|typedef)\s+$", head):
                continue
            bad.append((s.rel, s.line(m.start()), "view-registry",
                        f"builds the view {m.group(1)} ({kind}) outside the registry: add the view to makeRegistry() "
                        f"in {VIEW_REGISTRY} and let the view host create it"))
    return bad


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT, help="the repository to check (default: the one holding this script)")
    ap.add_argument("--allow", help=f"the allow-list (default: ROOT/{ALLOW_LIST})")
    ap.add_argument("--list-long-functions", action="store_true",
                    help=f"print every function over {MAX_FUNCTION_LINES} lines, longest first, and exit")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    allow_path = args.allow or os.path.join(root, ALLOW_LIST)
    allow_rel = os.path.relpath(os.path.abspath(allow_path), root).replace(os.sep, "/")
    if not all(os.path.isdir(os.path.join(root, t)) for t in ("core", "ui", "viz")):
        print(f"check_house_rules: {root} has no core/, ui/ and viz/: not a TreeLens tree", file=sys.stderr)
        return 2
    try:
        srcs = sources(root)
        fns = functions(root, [s.rel for s in srcs])
        if args.list_long_functions:
            entries = {(e["rel"], e["name"]): e for e in read_allow_list(allow_path)}
            long = sorted((f for f in fns if f["lines"] > MAX_FUNCTION_LINES),
                          key=lambda f: (-f["lines"], f["rel"], f["line"]))
            for f in long:
                e = entries.get((f["rel"], f["name"]))
                note = f"  (allow-listed up to {e['max']})" if e else ""
                print(f"{f['lines']:5d}  {f['rel']}:{f['line']}  {f['name']}{note}")
            print(f"check_house_rules: {len(long)} function(s) over {MAX_FUNCTION_LINES} lines", file=sys.stderr)
            return 0
        entries = read_allow_list(allow_path)
    except ConfigError as e:
        print(f"check_house_rules: {e}", file=sys.stderr)
        return 2

    bad = []
    for s in srcs:
        if s.lines > MAX_FILE_LINES:
            bad.append((s.rel, 1, "file-size", f"{s.lines} lines (over {MAX_FILE_LINES:,}): it mixes concerns; "
                                               f"split it by concern into files named after what each holds"))
        if s.rel == MAINWINDOW and s.lines > MAX_MAINWINDOW_LINES:
            bad.append((s.rel, 1, "mainwindow-size",
                        f"{s.lines} lines (over {MAX_MAINWINDOW_LINES}): MainWindow only composes docks and actions; "
                        f"move the rest into panels, services or the document"))
    fn_bad, allowed = check_functions(fns, entries, allow_rel)
    bad += fn_bad
    families, types = family_names(srcs)
    views = view_classes(srcs)
    for s in srcs:
        if not in_family_home(s.rel):
            bad += check_family_names(s, families, types)
            bad += check_overlay_prefixes(s)
        bad += check_view_construction(s, views)

    bad = sorted(set(bad))
    for rel, line, rule, what in bad:
        print(f"{rel}:{line}: {rule}: {what}")
    counts = {}
    for _, _, rule, _ in bad:
        counts[rule] = counts.get(rule, 0) + 1
    by_rule = ", ".join(f"{r} {n}" for r, n in sorted(counts.items()))
    print(f"check_house_rules: {len(srcs)} files, {len(fns)} functions, {len(views)} views, "
          f"{len(entries)} allow-list entr{'y' if len(entries) == 1 else 'ies'} ({allowed} long function(s) allowed): "
          f"{len(bad)} violation(s)" + (f" ({by_rule})" if bad else ""), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
