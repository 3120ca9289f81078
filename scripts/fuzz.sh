#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default 30).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   (targets: conllu ptb text json safetensors pickle decoders stream wikiqa pairtsv rte pairjson labelled rectree hftokenizer treeedit shard probefeatures minimalpairs tregex grew)
# Seeds come from tests/data; findings are written to build/fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(conllu ptb text json safetensors pickle decoders stream wikiqa pairtsv rte pairjson labelled rectree hftokenizer treeedit shard probefeatures minimalpairs tregex grew)
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S tests/fuzz -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
ninja -C build/fuzz
mkdir -p build/fuzz/findings build/fuzz/logs
declare -A extras
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  mkdir -p "$corpus"
  extra=()
  case $t in
    conllu) cp tests/data/golden/*.conllu "$corpus"/ 2>/dev/null || true ;;
    ptb) cp tests/data/golden/*.mrg "$corpus"/ 2>/dev/null || true ;;
    rectree)
      # PTB trees (first byte even) and a dependency tree (odd: head and relation bytes per token).
      for f in tests/data/golden/*.mrg; do { printf '\x00'; cat "$f"; } >"$corpus/$(basename "$f").seed"; done 2>/dev/null || true
      printf '\x01\x03\x03\x03\x04\x04\x01\x00\x00' >"$corpus"/dep.seed ;;
    tregex)
      # A pattern on the first line, a PTB tree after it (fuzz_tregex.cpp).
      printf 'S < (NP=np $+ VP) !<< /^-NONE-$/ | @NP [< DT | <1 NN] ?$- =np\n(S (NP (DT the) (NN cat)) (VP (VBD sat)))\n' >"$corpus"/seed.txt
      printf 'NP <, DT <- NN >> S\n' >"$corpus"/p1.txt
      printf '__ <: __ . /x/ ,, _ROOT_\n' >"$corpus"/p2.txt
      printf 'VP << (NN|NNS=n .. JJ) $++ PP >2 S\n' >"$corpus"/p3.txt ;;
    grew)
      # A Grew request, a line "#", one CoNLL-U sentence (fuzz_grew.cpp).
      { printf 'pattern { V [upos=VERB, Number=Sing]; S [upos=NOUN|PROPN, lemma<>"it"]; V -[nsubj]-> S; S << V }\nwithout { V -[aux]-> A }\n#\n'
        printf '1\tKim\tKim\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t_\t_\n2\tsleeps\tsleep\tVERB\tVBZ\tNumber=Sing\t0\troot\t_\t_\n\n'; } >"$corpus"/seed.txt
      printf 'pattern { X -[1=nsubj, !2]-> Y; X.Number = Y.Number; Y < X } with { X -[^punct|re"a.*"]-> * }\n' >"$corpus"/p1.txt
      printf '%% c\npattern { R$ [form=re"\\(a\\|b\\)[^x]*"]; R -*-> Z; Z >> R } without { Z [!Tense, lemma=/x|y/] }\n' >"$corpus"/p2.txt ;;
    treeedit)
      # A PTB tree, then edits of the edit language, one per line.
      printf '(S (NP (DT the) (JJ big) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))))\nhead 6=2\nbracket 2-3 NX\nunbracket 2-3\nrelabel 5-7 PP\nhead 1=0\nlabel 3=obj\nhead 3=5\nbracket 3-5 X\n' >"$corpus"/seed.txt ;;
    shard)
      # A complete shard output of score-pairs (two records).
      printf '#treelens-shard {"command":"score-pairs","options":"treelens-cli score-pairs -m idf -i p.tsv","shard":"1/2","input":{"path":"p.tsv","size":120,"crc32":"0a1b2c3d"},"total":4,"begin":0,"end":2,"header_lines":1}\nqid\tindex\tlabel\tscore\nq1\t0\t1\t0.5\nq1\t1\t0\t0.25\n#treelens-shard-end {"records":2}\n' >"$corpus"/seed.txt ;;
    probefeatures)
      # A features file of two layers (mean, words) for three sentences of 2, 2 and 1 words (as the
      # fuzz target reads the last byte, the final newline 0x0a).
      python3 - "$corpus"/seed.bin <<'PY'
import json, struct, sys
layout = {"model": {"path": "m", "size": 1, "crc32": "00000000"}, "family": "fake", "input": {"path": "c", "size": 1, "crc32": "00000000"},
          "splits": [["corpus", 3]], "layers": [0, 1], "dim": 2, "vectors": ["mean", "words"], "encoders": ["model"],
          "random_init_seed": 1, "encoder_batch": 32, "precision": "fp32", "values": "float32 little-endian"}
out = b"#treelens-probe-features " + json.dumps(layout).encode() + b"\n"
for i, words in enumerate([2, 2, 1]):
    floats = [0.5 * (i + 1)] * (2 * (2 * (1 + words)))
    body = struct.pack("<%df" % len(floats), *floats)
    out += b"%d %d\n" % (i, len(body)) + body + b"\n"
open(sys.argv[1], "wb").write(out + b"")
PY
      ;;
    minimalpairs)
      # A TSV of pairs (first byte even) and the golden CoNLL-U files (odd: made into pairs).
      printf '\x00good\tbad\tphenomenon\nThe dogs bark.\tThe dogs barks.\tagreement\n' >"$corpus"/pairs.seed
      for f in tests/data/golden/*.conllu; do { printf '\x01'; cat "$f"; } >"$corpus/$(basename "$f").seed"; done 2>/dev/null || true ;;
    text) cp resources/samples/*.txt "$corpus"/ 2>/dev/null || true ;;
    safetensors)
      # A tiny valid file: one F32 tensor and metadata.
      printf '\x50\x00\x00\x00\x00\x00\x00\x00{"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} \x00\x00\x80\x3f' >"$corpus"/seed.safetensors ;;
    pickle)
      # data.pkl of the fixture's checkpoints (OrderedDict, plain dict, int64/int32 tensors), else a tiny dict.
      fixtures=../shared/fixtures/tree-transformer-official
      for f in model.pth state_dict.pt tensors.pt; do
        if [[ -f $fixtures/$f ]] && command -v unzip >/dev/null; then
          unzip -p "$fixtures/$f" "${f%.*}/data.pkl" >"$corpus/${f%.*}.pkl" || true
        fi
      done
      printf '\x80\x02}q\x00(X\x01\x00\x00\x00aK\x05u.' >"$corpus"/dict.pkl
      # Tokens the mutator could hardly guess: the allowed globals and the persistent id.
      printf '%s\n' '"ctorch._utils\x0a_rebuild_tensor_v2\x0a"' '"ctorch._utils\x0a_rebuild_parameter\x0a"' \
        '"ctorch\x0aFloatStorage\x0a"' '"ctorch\x0aLongStorage\x0a"' '"ctorch\x0aBoolStorage\x0a"' \
        '"ccollections\x0aOrderedDict\x0a"' '"X\x07\x00\x00\x00storage"' '"X\x01\x00\x00\x000"' \
        '"X\x03\x00\x00\x00cpu"' '")R"' '"\x80\x02"' >build/fuzz/pickle.dict
      extra=(-dict=build/fuzz/pickle.dict) ;;
    json) printf '{"tokens":["a","b"],"heads":[0,1],"constituency":"(S (X a) (Y b))"}\n' >"$corpus"/seed.jsonl ;;
    stream)
      # The first byte picks the format (0 CoNLL-U, 1 text, 2 running text, 3 JSON Lines) and the piece size.
      for f in tests/data/golden/*.conllu; do { printf '\x04'; cat "$f"; } >"$corpus/$(basename "$f").seed"; done 2>/dev/null || true
      printf '\x01One.\n\nTwo words.\n' >"$corpus"/text.seed
      printf '\x02First sentence. Second one.\n\nA new paragraph.\n' >"$corpus"/split.seed
      printf '\x03{"tokens":["a"]}\n\n{"id":"x","tokens":["b"]}\n' >"$corpus"/jsonl.seed ;;
    wikiqa)
      # a.toks, b.toks, id.txt and sim.txt joined by NUL bytes (fuzz_wikiqa.cpp).
      printf 'who wrote hamlet\nwho wrote hamlet\n\x00shakespeare did .\nit is old .\n\x00Q1\nQ1\n\x001\n0\n' >"$corpus"/tiny.seed
      wq=../shared/data/wikiqa/dev
      if [[ -f $wq/a.toks ]]; then
        { head -n 12 "$wq/a.toks"; printf '\x00'; head -n 12 "$wq/b.toks"; printf '\x00'; head -n 12 "$wq/id.txt"; printf '\x00'
          head -n 12 "$wq/sim.txt"; } >"$corpus"/dev.seed
      fi ;;
    labelled)
      # TREC lines, one of them Latin-1 (a no-break space), and a label without a fine class.
      printf 'DESC:manner How did serfdom develop ?\nLOC:city Which city has a sister\xa0city ?\n\nABBR What is NASA ?\r\n' >"$corpus"/trec.txt
      if [[ -f ../shared/data/trec-qc/test.txt ]]; then head -n 40 ../shared/data/trec-qc/test.txt >"$corpus"/test.txt; fi ;;
    pairtsv)
      printf 'qid\tquestion\tcandidate\tlabel\nQ1\tWho wrote Hamlet?\tShakespeare did.\t1\nQ1\tWho wrote Hamlet?\tIt is old.\t0\r\n' >"$corpus"/tiny.tsv ;;
    rte)
      for f in ../shared/data/rte/rte{1,2,3}_dev.xml; do
        if [[ -f $f ]]; then { head -n 14 "$f"; echo '</entailment-corpus>'; } >"$corpus/$(basename "$f")"; fi
      done
      printf '<entailment-corpus><pair id="1" entailment="YES"><t>A &amp; b <![CDATA[c]]>.</t><h>A.</h></pair></entailment-corpus>' >"$corpus"/tiny.xml
      printf '%s\n' '"<pair "' '"</pair>"' '"<t>"' '"</t>"' '"<h>"' '"</h>"' '"<entailment-corpus>"' '"</entailment-corpus>"' \
        '"id=\"1\""' '"entailment=\"YES\""' '"value=\"FALSE\""' '"CONTRADICTION"' '"UNKNOWN"' '"<![CDATA["' '"]]>"' \
        '"&#x"' '"&amp;"' '"<!DOCTYPE "' '"<?xml version=\"1.0\"?>"' >build/fuzz/rte.dict
      extra=(-dict=build/fuzz/rte.dict) ;;
    pairjson)
      printf '%s\n' '{"format":"treelens-pairs","version":1,"task":"ranking","labels":["0","1"],"pairs":[' \
        '{"group":"q1","label":"1","first":{"text":"Who wrote it?"},"second":{"id":"c","text":"Ann did","tokens":["Ann","did"],"heads":[2,0]}},' \
        '{"group":"q1","label":0,"first":{"text":"Who wrote it?"},"second":{"text":"No.","constituency":"(S (X No) (Y .))"}}]}' >"$corpus"/tiny.json
      printf '%s\n' '{"format":"treelens-pairs","version":1,"task":"classification","pairs":[{"label":"YES","first":{"text":"a"},"second":{"text":"b"}}]}' \
        >"$corpus"/cls.json
      printf '%s\n' '"\"format\""' '"\"treelens-pairs\""' '"\"version\""' '"\"task\""' '"\"ranking\""' '"\"classification\""' \
        '"\"labels\""' '"\"pairs\""' '"\"group\""' '"\"label\""' '"\"first\""' '"\"second\""' '"\"tokens\""' '"\"text\""' \
        '"\"heads\""' '"\"deprels\""' '"\"start\""' '"\"end\""' >build/fuzz/pairjson.dict
      extra=(-dict=build/fuzz/pairjson.dict) ;;
    hftokenizer)
      # The first byte chooses the input (fuzz_hftokenizer.cpp): 0 a tokenizer.json, 1 one with a text, 2 a text
      # for the built-in tokenizers, 3 vocab.txt + tokenizer_config.json + a text.
      for d in ../shared/fixtures/hf-transformers-reference/*/; do
        if [[ -f $d/tokenizer.json ]]; then { printf '\x01'; cat "$d/tokenizer.json"; printf '\x00Caf\xc3\xa9 re-tweeted [MASK] \xe6\x88\x91!'; } >"$corpus/$(basename "$d").seed"; fi
      done
      printf '\x02The old man saw a red kite.' >"$corpus"/text.seed
      printf '\x03[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n##s\n\x00{"do_lower_case":true}\x00The cats' >"$corpus"/vocab.seed ;;
  esac
  extras[$t]="${extra[*]}"
done
# The targets run side by side, one per core (FUZZ_JOBS to change); each one's summary
# is printed when it ends, and any target's failure (a finding) fails the run.
run_target() {
  local t=$1
  # shellcheck disable=SC2086
  build/fuzz/fuzz_$t -max_total_time="$secs" -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/findings/$t- ${extras[$t]} "build/fuzz/corpus/$t" >"build/fuzz/logs/$t.log" 2>&1
}
parallel=${FUZZ_JOBS:-$(nproc)}
failed=0
pids=() names=()
finish_one() {
  local pid=${pids[0]} t=${names[0]} rc=0
  wait "$pid" || rc=$?
  echo "fuzz_$t: ${secs}s$([[ $rc != 0 ]] && echo " FAILED (exit $rc)")"
  tail -n 12 "build/fuzz/logs/$t.log"
  [[ $rc == 0 ]] || failed=1
  pids=("${pids[@]:1}") names=("${names[@]:1}")
}
for t in "${targets[@]}"; do
  ((${#pids[@]} < parallel)) || finish_one
  run_target "$t" &
  pids+=($!) names+=("$t")
done
while ((${#pids[@]})); do finish_one; done
exit $failed
