#!/usr/bin/env python3
"""scripts/check_house_rules.py fails on the violations it exists to catch (a test that can fail).

Builds a small clean tree in a temporary folder, then one broken copy a case, and checks the
script's exit status and that its output names the rule:
  * a 1,001-line file fails, a 1,000-line one passes;
  * a 151-line function fails, a 150-line one passes, a 151-line lambda fails (named as a
    lambda in the function holding it);
  * an allow-listed long function passes within its max_lines and fails above it; a stale
    entry (the function now short, or gone) fails, an entry without a reason fails, and a
    malformed allow-list is exit 2;
  * ui/mainwindow.cpp of 501 lines fails, of 500 passes;
  * a family comparison in viz/ fails (`x.family == "..."`, `"..." != x.family`, a known family
    name compared with anything); in a comment or a string, as a plain assignment, or as an
    emptiness test (`family == ""`), it passes; in core/encoders/ it passes;
  * an overlay-key literal with a family prefix in viz/ fails, and a bare "attn" in viz/;
  * a view deriving from ExportableView through an intermediate base, built with new in
    ui/somepanel.cpp, fails; the same in ui/viewregistry.cpp passes;
  * no ctags on PATH is exit 2;
  * a copy of the real tree (core ui viz app python and the allow-list of this checkout) with one
    family comparison appended to a viz file fails and lists that violation.
Exit 77 (skipped) when universal-ctags is not installed.
Usage: check_house_rules_selftest.py PATH/TO/check_house_rules.py
"""
import os
import shutil
import subprocess
import sys
import tempfile

VIEWCOMMON = """#pragma once
namespace treelens {
class ExportableView {
public:
    virtual ~ExportableView() = default;
};
class PaintedExportView : public QWidget, public ExportableView {
    Q_OBJECT
};
}
"""
FANCYVIEW = """#pragma once
#include "viz/viewcommon.h"
namespace treelens {
/// Reaches ExportableView through PaintedExportView only.
class FancyView : public PaintedExportView {
    Q_OBJECT
public:
    explicit FancyView(QWidget *parent = nullptr);
};
}
"""
CLEAN = {
    "core/data/analysis.h": "#pragma once\nstruct Analysis { std::string family; };\n",
    "core/encoders/alpha/alpha.cpp": 'constexpr const char *kFamily = "tree-transformer";\n'
                                     "int alpha() { return 1; }\n",
    "viz/viewcommon.h": VIEWCOMMON,
    "viz/fancyview.h": FANCYVIEW,
    "viz/fancyview.cpp": '#include "viz/fancyview.h"\nFancyView::FancyView(QWidget *parent) : PaintedExportView(parent) {}\n',
    "ui/viewregistry.cpp": '#include "viz/fancyview.h"\nvoid makeRegistry() {}\n',
    "ui/somepanel.cpp": '#include "viz/fancyview.h"\nvoid buildPanel(QWidget *parent) { (void)parent; }\n',
    "ui/mainwindow.cpp": "void mainWindow() {}\n",
    "app/cli/main.cpp": "int main() { return 0; }\n",
    "tests/core/test_big.cpp": "// tests/ is not checked\n" * 1200,
}


def function(name, lines, indent=""):
    """A function of exactly `lines` lines, signature line to closing brace."""
    body = [f"{indent}int {name}(int x)", indent + "{"]
    body += [f"{indent}    x += {i};" for i in range(lines - 3)]
    body += [indent + "}"]
    return "\n".join(body) + "\n"


def lambda_in(name, lines):
    """A function holding a lambda of exactly `lines` lines (the lambda's first to last line);
    the function is 4 lines longer."""
    body = [f"int {name}(int x)", "{", "    auto f = [&](int y) {"]
    body += [f"        y += {i};" for i in range(lines - 3)]
    body += ["        return y;", "    };", "    return f(x);", "}"]
    return "\n".join(body) + "\n"


def filler(lines):
    return "".join(f"int v{i} = {i};\n" for i in range(lines))


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(script, root, env=None):
    p = subprocess.run([sys.executable, script, "--root", root], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def allow(*rows):
    return "# header comment\n" + "".join("\t".join(r) + "\n" for r in rows)


# (what, files to add or replace in the clean tree, exit wanted, texts the output must hold)
CASES = [
    ("clean tree", {}, 0, []),
    ("1,001-line file", {"viz/big.cpp": filler(1001)}, 1, ["viz/big.cpp:1: file-size: 1001 lines"]),
    ("1,000-line file", {"viz/big.cpp": filler(1000)}, 0, []),
    ("151-line function", {"core/data/long.cpp": function("longOne", 151)}, 1,
     ["core/data/long.cpp:1: function-size: longOne is 151 lines"]),
    ("150-line function", {"core/data/long.cpp": function("longOne", 150)}, 0, []),
    ("151-line lambda", {"viz/lam.cpp": lambda_in("holder", 151)}, 1,
     ["viz/lam.cpp:3: function-size: a lambda in holder is 151 lines",
      "viz/lam.cpp:1: function-size: holder is 155 lines"]),
    ("allow-listed function within its max", {
        "core/data/long.cpp": function("longOne", 170),
        "scripts/house_rules_allow.txt": allow(("core/data/long.cpp", "longOne", "170", "a state machine")),
    }, 0, []),
    ("allow-listed function above its max", {
        "core/data/long.cpp": function("longOne", 171),
        "scripts/house_rules_allow.txt": allow(("core/data/long.cpp", "longOne", "170", "a state machine")),
    }, 1, ["core/data/long.cpp:1: function-size: longOne is 171 lines, over its allow-list max of 170"]),
    ("stale allow-list entry (function now short)", {
        "core/data/long.cpp": function("longOne", 150),
        "scripts/house_rules_allow.txt": allow(("core/data/long.cpp", "longOne", "170", "a state machine")),
    }, 1, ["scripts/house_rules_allow.txt:2: function-size: stale allow-list entry: remove it"]),
    ("stale allow-list entry (function gone)", {
        "scripts/house_rules_allow.txt": allow(("core/data/gone.cpp", "longOne", "170", "a state machine")),
    }, 1, ["scripts/house_rules_allow.txt:2: function-size: stale allow-list entry: remove it"]),
    ("allow-list entry without a reason", {
        "core/data/long.cpp": function("longOne", 170),
        "scripts/house_rules_allow.txt": allow(("core/data/long.cpp", "longOne", "170", "")),
    }, 1, ["scripts/house_rules_allow.txt:2: function-size: allow-list entry for core/data/long.cpp longOne has no reason"]),
    ("malformed allow-list", {
        "scripts/house_rules_allow.txt": "core/data/long.cpp longOne 170 spaces, not tabs\n",
    }, 2, ["house_rules_allow.txt:1"]),
    ("501-line ui/mainwindow.cpp", {"ui/mainwindow.cpp": filler(501)}, 1,
     ["ui/mainwindow.cpp:1: mainwindow-size: 501 lines"]),
    ("500-line ui/mainwindow.cpp", {"ui/mainwindow.cpp": filler(500)}, 0, []),
    ("family == literal in viz", {"viz/badview.cpp": 'bool f(const Analysis &a)\n{\n    return a.family == "tree-transformer";\n}\n'},
     1, ['viz/badview.cpp:3: family-name: compares family with "tree-transformer"']),
    ("literal != family in viz", {"viz/badview.cpp": 'bool f(const Analysis &a)\n{\n    return "ggsa" != a.family;\n}\n'},
     1, ['viz/badview.cpp:3: family-name: compares family with "ggsa"']),
    ("known family name compared in viz", {"viz/badview.cpp": 'bool f(const std::string &kind)\n{\n    return kind == "iggsa";\n}\n'},
     1, ['viz/badview.cpp:3: family-name: compares a value with the family name "iggsa"']),
    ("known model type compared in ui", {"ui/somepanel.cpp": 'bool f(const QString &t) { return t == QStringLiteral("llama"); }\n'},
     1, ['ui/somepanel.cpp:1: family-name: compares a value with the model type name "llama"']),
    ("family comparisons in comments, a string, a plain assignment, an emptiness test", {"viz/okview.cpp":
        '// if (a.family == "tree-transformer") is what a view must not do\n'
        '/* nor "ggsa" != a.family,\n   nor kind == "bert" */\n'
        'std::string family = "tree-transformer"; // a default, not a comparison\n'
        'const char *s = "a.family == \\"ggsa\\" inside a string";\n'
        'bool unnamed(const Analysis &a) { return a.family == ""; } // an emptiness test names no family\n'},
     0, []),
    ("family comparison inside core/encoders", {"core/encoders/alpha/alpha.cpp":
        CLEAN["core/encoders/alpha/alpha.cpp"] + 'bool mine(const Analysis &a) { return a.family == "tree-transformer"; }\n'
        'const char *k = "rec.kappa";\n'},
     0, []),
    ("overlay-key prefix in viz", {"viz/badview.cpp": 'const char *key = "rec.node_height";\n'}, 1,
     ['viz/badview.cpp:1: overlay-prefix: "rec.node_height" starts with the family prefix "rec."']),
    ("bare recursive key in viz", {"viz/badview.cpp": 'double w(const Analysis &a) { return weight(a, "attn"); }\n'}, 1,
     ['viz/badview.cpp:1: overlay-prefix: the recursive model\'s bare key "attn" in a view']),
    ("view built with new in ui/somepanel.cpp", {"ui/somepanel.cpp":
        '#include "viz/fancyview.h"\nvoid buildPanel(QWidget *parent)\n{\n    auto *v = new FancyView(parent);\n}\n'},
     1, ["ui/somepanel.cpp:4: view-registry: builds the view FancyView (new) outside the registry"]),
    ("view built with make_unique and on the stack in app/", {"app/gui/export.cpp":
        'void a() { auto v = std::make_unique<treelens::FancyView>(); }\nvoid b() { FancyView view(nullptr); }\n'},
     1, ["app/gui/export.cpp:1: view-registry: builds the view FancyView (make_unique/make_shared)",
         "app/gui/export.cpp:2: view-registry: builds the view FancyView (a variable)"]),
    ("view built with new in ui/viewregistry.cpp", {"ui/viewregistry.cpp":
        '#include "viz/fancyview.h"\nvoid makeRegistry(QWidget *parent)\n{\n    auto *v = new FancyView(parent);\n}\n'},
     0, []),
]


def build(root, changes):
    for rel, text in CLEAN.items():
        write(root, rel, text)
    for rel, text in changes.items():
        write(root, rel, text)


def real_tree_case(script, tmp):
    """A copy of this checkout's tree with one family comparison appended to a viz file."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(script)))
    root = os.path.join(tmp, "real")
    for top in ("core", "ui", "viz", "app", "python"):
        shutil.copytree(os.path.join(repo, top), os.path.join(root, top),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints"))
    allow_list = os.path.join(repo, "scripts", "house_rules_allow.txt")
    if os.path.exists(allow_list):
        os.makedirs(os.path.join(root, "scripts"))
        shutil.copy(allow_list, os.path.join(root, "scripts"))
    target = sorted(f for f in os.listdir(os.path.join(root, "viz")) if f.endswith(".cpp"))[0]
    path = os.path.join(root, "viz", target)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.endswith("\n"):
        text += "\n"
    line = text.count("\n") + 2
    text += '\nbool injectedByTheSelfTest(const treelens::Analysis &a) { return a.family == "tree-transformer"; }\n'
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    rc, out = run(script, root)
    want = f'viz/{target}:{line}: family-name: compares family with "tree-transformer"'
    if rc != 1 or want not in out:
        return f"real tree + a family comparison in viz/{target}: exit {rc}, wanted 1 and '{want}':\n{out}"
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    script = sys.argv[1]
    if not shutil.which("ctags"):
        print("SKIPPED: universal-ctags not found")
        return 77
    failures, checks = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (what, changes, want_rc, wants) in enumerate(CASES):
            root = os.path.join(tmp, f"case{n}")
            build(root, changes)
            rc, out = run(script, root)
            checks += 1
            missing = [w for w in wants if w not in out]
            if rc != want_rc or missing:
                failures.append(f"{what}: exit {rc}, wanted {want_rc}" +
                                (f" and {missing}" if missing else "") + f":\n{out}")
        # No ctags on PATH: the check cannot measure functions, a configuration problem.
        root = os.path.join(tmp, "noctags")
        build(root, {})
        empty = os.path.join(tmp, "emptybin")
        os.makedirs(empty)
        rc, out = run(script, root, env=dict(os.environ, PATH=empty))
        checks += 1
        if rc != 2 or "universal-ctags not found" not in out:
            failures.append(f"no ctags on PATH: exit {rc}, wanted 2:\n{out}")
        checks += 1
        problem = real_tree_case(script, tmp)
        if problem:
            failures.append(problem)
    for f in failures:
        print(f)
    print(f"check_house_rules self-test: {len(failures)} of {checks} checks failed" if failures
          else f"check_house_rules self-test: {checks} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
