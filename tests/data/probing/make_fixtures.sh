#!/bin/sh
# Regenerates the probing fixtures of this folder (tests/core/test_probejson.cpp,
# tests/core/test_probecompare.cpp, tests/cli/test_cli_probe.cpp). Run from anywhere:
#   tests/data/probing/make_fixtures.sh [TREELENS_CLI] [TABLES_SCRIPT]
# TABLES_SCRIPT: the Python tables script to print tables-*.md with, e.g. the one of
# commit 9afa67c (git show 9afa67c:scripts/probing_tables.py > /tmp/tables.py); none:
# the tables are left as they are.
#
# tiny.conllu: 30 sentences, sentence i has 3 + i % 6 words, every third one a
# chain (word k+1 depends on word k), the others flat (every word depends on the
# first); the last word is "." (PUNCT) — the corpus of tests/cli/test_cli_probe.cpp.
# The reports were written by `treelens-cli probe` as it was before the probing
# run was split into stages (commit 9afa67c): they are what the typed report's
# serializer must reproduce byte for byte. Since layers are numbered from 1
# (docs/cli.md, "Numbering") they stand for the reports of earlier versions: read
# and written again they come back renumbered (tests/core/test_probejson.cpp).
# tables-*.md are what the Python scripts/probing_tables.py of that commit printed
# for them, with the embedding layer named "(embeddings)" where it printed "(0)".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cli=${1:-$root/build/dev/app/treelens-cli}
tables=${2:-}
cd "$here"

python3 - <<'PY'
words = ["the", "cat", "saw", "a", "dog", "near", "the", "old", "house"]
out = []
for i in range(30):
    n = 3 + i % 6
    chain = i % 3 == 0
    out.append(f"# sent_id = s{i + 1}")
    for k in range(1, n + 1):
        last = k == n
        head = 0 if k == 1 else (k - 1 if chain else 1)
        rel = "root" if k == 1 else ("punct" if last else "dep")
        form = "." if last else words[(i + k) % 9]
        upos = "PUNCT" if last else "NOUN"
        out.append(f"{k}\t{form}\t_\t{upos}\t_\t_\t{head}\t{rel}\t_\t_")
    out.append("")
open("tiny.conllu", "w").write("\n".join(out) + "\n")
PY

tree=../../../resources/models/tree-transformer-en-small.safetensors
plain=../../../resources/models/transformer-en-small.safetensors
common="--train tiny.conllu --layers 0,2 --epochs 2 --depth-min-count 1 --device cpu --json"
"$cli" probe --task all --baselines --model $tree $common -o tiny-tree.json
"$cli" probe --task all --baselines --model $plain --probe linear --rank 8 --raw-attention $common -o tiny-plain.json
"$cli" probe --task unsupervised-parsing,link-probs --tree dependency --attention-on test --model $tree $common -o tiny-tree-induction.json
# Given splits without dev (the no-dev note), mean pooling, the control task only.
"$cli" probe --task sentlen,treedepth,structural-depth,head-accuracy,attention-mst --control --pooling mean \
    --model $tree --train tiny.conllu --test tiny.conllu --layers 1 --epochs 2 --depth-min-count 1 --device cpu --json \
    -o tiny-given.json
# The dock's export of a two-model run: {"models": [report, ...]}.
python3 -c 'import sys; print("{\"models\":[" + ",".join(open(f).read().strip() for f in sys.argv[1:]) + "]}")' \
    tiny-tree.json tiny-plain.json > tiny-models.json
if [ -n "$tables" ]; then
    python3 "$tables" tree=tiny-tree.json+tiny-tree-induction.json plain=tiny-plain.json > tables-named.md
    python3 "$tables" tiny-models.json > tables-export.md
    sed -i 's/ (0) |/ (embeddings) |/g' tables-named.md tables-export.md
fi
