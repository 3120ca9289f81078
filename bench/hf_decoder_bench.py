#!/usr/bin/env python3
"""Decoder language models side by side: TreeLens (`treelens-cli analyze`) and an eager
PyTorch forward of the same folder (bench/hf_eager.py, written from the library's modeling
code), on the same token ids, the same thread count, in one run (docs/performance.md,
"Decoder language models: side by side with eager PyTorch").

    python3 bench/hf_decoder_bench.py [--cli build/ci/app/treelens-cli] [--shared ../shared]
        [--work build/decoder-bench] [--sentences 200] [--reps 3] [--threads 1,2] [--batches 1,16]
        [--models qwen2-0.5b,gpt2-small] [--no-treelens] [--table RESULTS.jsonl]

Models (random weights, written once into --work by bench/hf_random_folder.py, never
committed): a Qwen2-0.5B-shaped folder (24 layers, hidden 896, 14 heads / 2 kv heads,
head_dim 64, intermediate 4864, vocab 151936, tied, rope θ 1e6, q/k/v biases, BF16 weights)
and a GPT-2-small-shaped one (12 × 768, 12 heads, vocab 50257, 1024 positions, F32), each
with its fixture folder's tokenizer (qwen2-tiny-random, gpt2-tiny-random).

Sentences: the first --sentences of UD EWT dev, words joined by single spaces. Ids: the npm
`tokenizers` package (bench/hf_tokenize.js; scripts/setup-bench.sh installs it) on those
texts, written to ids.jsonl: the eager side runs exactly those ids. TreeLens reads the same
sentences as a CoNLL-U file (their words; no parser runs, a decoder reads no tree) and
tokenizes them itself with the folder's tokenizer.json; its `analyze --json` pieces are
checked against ids.jsonl (counts and tokens, reported as "ids_check").

Measurements, each one process (startup, weight loading and the pass over all sentences),
interleaved: every round runs each once, in an order rotated by the round (A B C D, B C D A, ...):
  eager-attn     hf_eager.py bench: float32 forward returning attention probabilities and
                 next-token log-probabilities (float64 log-softmax)
  eager-noattn   the same without attention output (output_attentions=False)
  treelens-json  treelens-cli analyze --json (attention matrices included) -o FILE
  treelens-noattn treelens-cli analyze --json --no-attention -o FILE
Both sides sort the sentences by length and batch them (--batch B; TreeLens does this
itself, "shortest first"), with --threads N / torch.set_num_threads(N). Printed: one JSON
line per run (wall and CPU seconds measured here; the eager side's own load_s and forward_s;
peak resident memory = the child's ru_maxrss, i.e. its VmHWM), then one summary line per case
(median and min over the repetitions), then the ratios eager/TreeLens of like measurements
(eager-attn/treelens-json, eager-noattn/treelens-noattn; > 1: TreeLens faster) of the
medians and per round. --table turns such a file into the Markdown table.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MODELS = {
    "qwen2-0.5b": ("qwen2-tiny-random",
                   ["--arch", "qwen2", "--layers", "24", "--hidden", "896", "--heads", "14", "--kv-heads", "2",
                    "--head-dim", "64", "--inter", "4864", "--vocab", "151936", "--tied", "--theta", "1000000",
                    "--eps", "1e-6", "--positions", "32768", "--storage", "BF16"]),
    "gpt2-small": ("gpt2-tiny-random",
                   ["--arch", "gpt2", "--layers", "12", "--hidden", "768", "--heads", "12", "--vocab", "50257",
                    "--positions", "1024", "--storage", "F32"]),
}
VARIANTS = ("eager-attn", "eager-noattn", "treelens-json", "treelens-noattn")


def ewt_sentences(shared, n):
    """The first n sentences of UD EWT dev: (CoNLL-U block, words)."""
    path = os.path.join(shared, "data", "ud-english-ewt", "en_ewt-ud-dev.conllu")
    out, block, words = [], [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if words:
                out.append(("\n".join(block) + "\n\n", words))
                if len(out) == n:
                    break
            block, words = [], []
            continue
        block.append(line)
        cols = line.split("\t")
        if not line.startswith("#") and cols[0].isdigit():  # words, not ranges (1-2) or empty nodes (1.1)
            words.append(cols[1])
    return out


def prepare(a, name):
    """The model folder, the CoNLL-U input and ids.jsonl for one model (cached in --work)."""
    tokfolder, gen_args = MODELS[name]
    folder = os.path.join(a.work, name)
    fixtures = os.path.join(a.shared, "fixtures", "hf-decoders-reference")
    if not os.path.exists(os.path.join(folder, "config.json")):
        print(f"hf_decoder_bench: writing {folder} (random weights, seed 1)", file=sys.stderr)
        subprocess.run([a.python, os.path.join(HERE, "hf_random_folder.py"), folder, "--fixtures", fixtures,
                        "--no-expected", "--seed", "1"] + gen_args, check=True)
    sents = ewt_sentences(a.shared, a.sentences)
    conllu = os.path.join(a.work, f"ewt-dev-{len(sents)}.conllu")
    with open(conllu, "w", encoding="utf-8") as f:
        f.write("".join(b for b, _ in sents))
    texts = os.path.join(a.work, f"ewt-dev-{len(sents)}.txt")
    with open(texts, "w", encoding="utf-8") as f:
        f.write("".join(" ".join(w) + "\n" for _, w in sents))
    ids = os.path.join(a.work, f"{name}-ids-{len(sents)}.jsonl")
    p = subprocess.run(["node", os.path.join(HERE, "hf_tokenize.js"), os.path.join(folder, "tokenizer.json"), texts],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("hf_decoder_bench: bench/hf_tokenize.js failed (scripts/setup-bench.sh installs the npm "
                 "tokenizers package): " + p.stderr.strip())
    with open(ids, "w", encoding="utf-8") as f:
        f.write(p.stdout)
    return folder, conllu, ids


def run_child(cmd, out_path, threads):
    """Runs cmd with stdout to out_path; (wall s, CPU s, peak RSS KiB of the child, exit code).
    Both sides get the same thread count in every pool: torch.set_num_threads / --threads set the
    libraries' own, and OMP/OpenBLAS/MKL_NUM_THREADS the BLAS pools underneath (without them the
    eager side's OpenBLAS ran on every core: more CPU seconds than wall seconds at --threads 1)."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    t0 = time.monotonic()
    with open(out_path, "w") as out, open(out_path + ".err", "w") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, p.returncode


def command(a, variant, folder, conllu, ids, batch, threads, out):
    if variant.startswith("eager"):
        cmd = [a.python, os.path.join(HERE, "hf_eager.py"), "bench", folder, "--ids", ids,
               "--batch", str(batch), "--threads", str(threads)]
        return cmd + (["--no-attention"] if variant == "eager-noattn" else [])
    cmd = [a.cli, "analyze", "--input", conllu, "--model", folder, "--threads", str(threads), "--batch", str(batch),
           "--precision", "fp32", "--json", "-o", out]
    return cmd + (["--no-attention"] if variant == "treelens-noattn" else [])


def ids_check(treelens_json, ids_path):
    """TreeLens's pieces against the ids both sides should run: how many sentences have the
    same number of pieces, and the same token strings."""
    want = [json.loads(l) for l in open(ids_path, encoding="utf-8") if l.strip()]
    got = []
    for line in open(treelens_json, encoding="utf-8"):
        line = line.strip()
        if line.startswith("{"):
            try:
                got.append(json.loads(line).get("pieces"))
            except json.JSONDecodeError:
                pass
    same_count = sum(1 for g, w in zip(got, want) if g is not None and len(g) == len(w["input_ids"]))
    same_tokens = sum(1 for g, w in zip(got, want) if g == w["tokens"])
    return {"sentences": len(want), "treelens_sentences": len(got), "same_count": same_count,
            "same_tokens": same_tokens}


def measure(a, model, paths, batch, threads, rep, variant):
    folder, conllu, ids = paths
    out = os.path.join(a.work, f"out-{variant}.json")
    cmd = command(a, variant, folder, conllu, ids, batch, threads, out)
    wall, cpu, rss, rc = run_child(cmd, out + ".stdout", threads)
    rec = {"model": model, "variant": variant, "batch": batch, "threads": threads, "rep": rep,
           "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "vmhwm_mib": round(rss / 1024, 1), "rc": rc}
    if rc != 0:
        rec["error"] = open(out + ".stdout.err", encoding="utf-8", errors="replace").read()[-400:]
    elif variant.startswith("eager"):
        child = json.loads(open(out + ".stdout", encoding="utf-8").read())
        rec.update({k: child[k] for k in ("load_s", "forward_s", "pieces", "sentences", "logprob_sum")})
    else:
        rec["output_mib"] = round(os.path.getsize(out) / 2 ** 20, 1)
        if rep == 0:
            rec["ids_check"] = ids_check(out, ids)
        os.remove(out)
    print(json.dumps(rec), flush=True)
    return rec


def summarize(records):
    groups = {}
    for r in records:
        if r["rc"] == 0:
            groups.setdefault((r["model"], r["variant"], r["batch"], r["threads"]), []).append(r)
    for (model, variant, batch, threads), rs in groups.items():
        s = {"summary": True, "model": model, "variant": variant, "batch": batch, "threads": threads, "reps": len(rs),
             "wall_median_s": round(statistics.median(r["wall_s"] for r in rs), 3),
             "wall_min_s": round(min(r["wall_s"] for r in rs), 3),
             "cpu_median_s": round(statistics.median(r.get("cpu_s", float("nan")) for r in rs), 3),
             "vmhwm_max_mib": max(r["vmhwm_mib"] for r in rs)}
        if "forward_s" in rs[0]:
            s["forward_median_s"] = round(statistics.median(r["forward_s"] for r in rs), 3)
            s["forward_min_s"] = round(min(r["forward_s"] for r in rs), 3)
            s["load_median_s"] = round(statistics.median(r["load_s"] for r in rs), 3)
        print(json.dumps(s), flush=True)
    ratios(groups)


PAIRS = (("eager-attn", "treelens-json"), ("eager-noattn", "treelens-noattn"))


def ratios(groups):
    """Eager wall time over TreeLens wall time (> 1: TreeLens faster), of the medians and
    per round (the same round's two runs), for each pair of like measurements."""
    for (model, variant, batch, threads), eager in groups.items():
        for e, t in PAIRS:
            tl = groups.get((model, t, batch, threads))
            if variant != e or not tl:
                continue
            by_rep = {r["rep"]: r["wall_s"] for r in tl}
            per_round = [r["wall_s"] / by_rep[r["rep"]] for r in eager if r["rep"] in by_rep]
            print(json.dumps({"ratio": f"{e}/{t}", "model": model, "batch": batch, "threads": threads,
                              "wall_median_ratio": round(statistics.median(r["wall_s"] for r in eager)
                                                         / statistics.median(r["wall_s"] for r in tl), 3),
                              "per_round_range": [round(min(per_round), 3), round(max(per_round), 3)]}),
                  flush=True)


def table(path):
    """The Markdown table of docs/performance.md from a results file (summary lines)."""
    rows = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip().startswith("{")]
    rows = [r for r in rows if r.get("summary")]
    print("| model | batch | threads | measurement | wall median (min), s | CPU median, s | eager forward only, median (min), s | peak RSS (VmHWM), MiB |")
    print("|---|---|---|---|---|---|---|---|")
    order = {v: i for i, v in enumerate(VARIANTS)}
    for r in sorted(rows, key=lambda r: (r["model"], r["batch"], r["threads"], order.get(r["variant"], 9))):
        fwd = f"{r['forward_median_s']} ({r['forward_min_s']})" if "forward_median_s" in r else "—"
        print(f"| {r['model']} | {r['batch']} | {r['threads']} | {r['variant']} | "
              f"{r['wall_median_s']} ({r['wall_min_s']}) | {r.get('cpu_median_s', '—')} | {fwd} | {r['vmhwm_max_mib']:.0f} |")
    rat = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip().startswith('{"ratio"')]
    if rat:
        print()
        print("| model | batch | threads | eager / TreeLens | of the medians | per round |")
        print("|---|---|---|---|---|---|")
        for r in sorted(rat, key=lambda r: (r["model"], r["batch"], r["threads"], r["ratio"])):
            lo, hi = r["per_round_range"]
            print(f"| {r['model']} | {r['batch']} | {r['threads']} | {r['ratio']} | {r['wall_median_ratio']} | {lo}–{hi} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "ci", "app", "treelens-cli"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "decoder-bench"))
    ap.add_argument("--python", default="/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                    help="the interpreter with torch for the eager side (Debian's python3-torch)")
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--models", default="qwen2-0.5b,gpt2-small")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--no-treelens", action="store_true", help="the eager side only")
    ap.add_argument("--table", default=None, help="print the Markdown table of a results file and exit")
    a = ap.parse_args()
    if a.table:
        table(a.table)
        return 0
    os.makedirs(a.work, exist_ok=True)
    variants = [v for v in a.variants.split(",") if not (a.no_treelens and v.startswith("treelens"))]
    print(json.dumps({"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                      "env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")},
                      "loadavg": os.getloadavg(), "sentences": a.sentences, "reps": a.reps, "variants": variants,
                      "cli": None if a.no_treelens else a.cli}), flush=True)
    records = []
    for model in a.models.split(","):
        paths = prepare(a, model)
        for threads in (int(t) for t in a.threads.split(",")):
            for batch in (int(b) for b in a.batches.split(",")):
                for rep in range(a.reps):
                    # every side once per round, the order rotated by the round
                    for k in range(len(variants)):
                        variant = variants[(k + rep) % len(variants)]
                        records.append(measure(a, model, paths, batch, threads, rep, variant))
    summarize(records)
    print(json.dumps({"loadavg_end": os.getloadavg()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
