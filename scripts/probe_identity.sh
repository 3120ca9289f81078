#!/bin/bash
# Runs the same probe configurations with two treelens-cli binaries and compares
# what they print: the JSON byte for byte apart from its "timing" object, the text
# apart from its "time:" line, and the error messages. For refactors that must not
# change a probing report (docs/probing.md).
#
#   scripts/probe_identity.sh OLD_CLI NEW_CLI [SHARED_DATA_DIR]
#
# Needs UD EWT dev and the PTB sample of ../shared/data (or SHARED_DATA_DIR) and
# the shipped models; about a minute per binary on two cores. Exit 1 on a difference.
set -u
old=$1 new=$2
data=${3:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
root=$(cd "$(dirname "$0")/.." && pwd)
M=$root/resources/models
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$data/ud-english-ewt/en_ewt-ud-dev.conllu" "$work/ewt200.conllu" <<'PY'
import sys
blocks = open(sys.argv[1]).read().split('\n\n')
open(sys.argv[2], 'w').write('\n\n'.join(blocks[:200]) + '\n\n')
PY
E=$work/ewt200.conllu P=$data/ptb-sample T=$root/tests/data/probing/tiny.conllu
runs=(
  "all-baselines|--task all --baselines --model $M/tree-transformer-en-small.safetensors --train $E --layers all --epochs 3"
  "ptb-given|--task all --control --model $M/transformer-en-small.safetensors --train $P/wsj_0001.mrg $P/wsj_0002.mrg $P/wsj_0003.mrg $P/wsj_0004.mrg $P/wsj_0005.mrg --dev $P/wsj_0011.mrg --test $P/wsj_0014.mrg $P/wsj_0015.mrg --layers 0,4 --epochs 3 --depth-min-count 1"
  "parsed-test|--task treedepth,constituent-mass,link-probs,unsupervised-parsing --tree constituency --tree-source parsed --attention-on test --model $M/tree-transformer-en-small.safetensors --train $E --layers 1,3 --epochs 2"
  "linear-cls|--task sentlen,topconst,structural-distance,head-accuracy --raw-attention --pooling cls --rank 16 --probe linear --patience 1 --lr 0.01 --batch 8 --random-init --model $M/tree-transformer-en-small.safetensors --train $E --test $E --layers 2 --epochs 4"
  "err-task|--task frobnicate --train $T"
  "err-layers|--task sentlen --layers 0,99 --train $T"
  "err-dev|--task sentlen --train $T --dev $T"
  "err-gold|--task topconst,treedepth --tree constituency --tree-source gold --train $T"
  "err-count|--task sentlen --train $T --depth-min-count 0"
  "err-device|--task sentlen --train $T --probe-device cuda:99"
)
for r in "${runs[@]}"; do
  name=${r%%|*} args=${r#*|}
  for which in old new; do
    cli=${!which}
    mkdir -p "$work/$which"
    # shellcheck disable=SC2086
    "$cli" probe $args --device cpu --json >"$work/$which/$name.json" 2>"$work/$which/$name.err"
    # shellcheck disable=SC2086
    [[ $name == err-* ]] || "$cli" probe $args --device cpu >"$work/$which/$name.txt" 2>/dev/null
  done
done
python3 - "$work/old" "$work/new" <<'PY'
import os, sys
def strip_timing(s):
    i = s.find('"timing":{')
    if i < 0:
        return s
    depth = 0
    for j in range(i + 9, len(s)):
        depth += {'{': 1, '}': -1}.get(s[j], 0)
        if depth == 0:
            return s[:i] + s[j + 1:]
    return s
old, new = sys.argv[1:3]
bad = 0
for f in sorted(os.listdir(old)):
    a, b = open(os.path.join(old, f)).read(), open(os.path.join(new, f)).read()
    if f.endswith('.json'):
        same = strip_timing(a) == strip_timing(b)
    elif f.endswith('.txt'):
        same = a[:a.rfind('\ntime: ')] == b[:b.rfind('\ntime: ')]
    else:
        same = f.startswith('err-') is False or a == b
    print(('same      ' if same else 'DIFFERENT ') + f)
    bad += not same
sys.exit(1 if bad else 0)
PY
