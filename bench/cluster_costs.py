#!/usr/bin/env python3
"""What a shard costs (issue 35, docs/cluster.md "How many shards"): times the corpus
commands a cluster runs on this machine, all with the same threads, and prints per task
and model as JSON, with the machine it ran on:
- fixed: the wall-clock of the command on a handful of items (8 sentences, 12 pairs):
  the process' start and the model's load, what every task of an array pays;
- per_1000: (the whole corpus' time − fixed) per 1,000 sentences or pairs;
- merge_per_1000: treelens-cli merge of the corpus' output in 4 shards, per 1,000 items;
- items_for_10pct_fixed: the shard size at which the fixed cost is a tenth of the task;
- for probe (the features extraction that --shard runs): also train_on_features, the run
  that trains the probes on the merged features (probe --features, one job), against
  plain_probe, the unsharded probe run that extracts and trains in one process.
Needs ../shared/data (UD EWT dev, WikiQA test).

    bench/cluster_costs.py [--cli build/ci/app/treelens-cli] [--threads 1] [--only analyze,parse]

Every timing is the median of --repeat runs (default 3) of the whole process.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data")
MODELS = os.path.join(ROOT, "resources", "models")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


ENV = dict(os.environ)


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd) + ": " + r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed")
    return dt


def count_conllu(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.startswith("1\t"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "ci", "app", "treelens-cli"))
    ap.add_argument("--threads", type=int, default=1, help="CPU threads of every command (a task of 1 CPU: 1)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated tasks (analyze, parse, score-pairs, eval-pairs, probe)")
    a = ap.parse_args()
    ewt = os.path.join(DATA, "ud-english-ewt", "en_ewt-ud-dev.conllu")
    wikiqa = os.path.join(DATA, "wikiqa", "test")
    if not os.path.exists(ewt) or not os.path.isdir(wikiqa):
        print("cluster_costs: SKIPPED: ../shared/data (ud-english-ewt, wikiqa) not found", file=sys.stderr)
        return 0
    only = set(filter(None, a.only.split(",")))
    # The commands without --threads (parse, score-pairs, eval-pairs) get the same threads
    # through LibTorch's and OpenBLAS' environment.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        ENV[var] = str(a.threads)
    sentences = count_conllu(ewt)
    with open(os.path.join(wikiqa, "a.toks"), encoding="utf-8") as f:
        pairs = sum(1 for _ in f)
    threads = ["--threads", str(a.threads)]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        warm_ewt = os.path.join(tmp, "warm.conllu")
        with open(ewt, encoding="utf-8") as f, open(warm_ewt, "w", encoding="utf-8") as w:
            blocks = f.read().split("\n\n")
            w.write("\n\n".join(blocks[:8]) + "\n\n")
        warm_pairs = os.path.join(tmp, "warm.tsv")
        cols = [open(os.path.join(wikiqa, n), encoding="utf-8").read().split("\n") for n in ("id.txt", "a.toks", "b.toks", "sim.txt")]
        with open(warm_pairs, "w", encoding="utf-8") as w:
            for i in range(12):
                w.write("\t".join(c[i] for c in cols) + "\n")
        out = os.path.join(tmp, "out")
        tasks = []
        for model in ("tree-transformer-en-small", "dependency-transformer-en-polarity", "dtt-edges-en-polarity"):
            m = os.path.join(MODELS, model + ".safetensors")
            tasks.append(("analyze", model, "UD EWT dev (gold trees)", sentences, "sentences",
                          [a.cli, "analyze", "--json", "--no-attention", "--model", m] + threads + ["-o", out, "--input"], ewt, warm_ewt))
        tasks.append(("parse", "neural parser", "UD EWT dev", sentences, "sentences",
                      [a.cli, "parse", "--format", "conllu", "-o", out, "--input"], ewt, warm_ewt))
        m = os.path.join(MODELS, "ggsa-en-wikiqa.safetensors")
        tasks.append(("eval-pairs", "ggsa-en-wikiqa", "WikiQA test", pairs, "pairs",
                      [a.cli, "eval-pairs", "-m", m, "-o", out, "-i"], wikiqa, warm_pairs))
        for model in ("ggsa-en-wikiqa", "iggsa-en-wikiqa", "tat-en-wikiqa"):
            m = os.path.join(MODELS, model + ".safetensors")
            tasks.append(("score-pairs", model, "WikiQA test" + (" (both sides parsed)" if model.startswith("tat") else ""), pairs,
                          "pairs", [a.cli, "score-pairs", "-m", m, "-o", out, "-i"], wikiqa, warm_pairs))
        tasks.append(("score-pairs", "idf-overlap", "WikiQA test", pairs, "pairs",
                      [a.cli, "score-pairs", "-m", "idf-overlap", "-o", out, "-i"], wikiqa, warm_pairs))
        probe_tasks = ["--task", "sentlen,structural-depth", "--epochs", "5"]
        tasks.append(("probe", "tree-transformer-en-small", "UD EWT dev (one corpus cut 0.8/0.1/0.1)", sentences, "sentences",
                      [a.cli, "probe", "--extract-features"] + probe_tasks + threads + ["-o", out, "--train"], ewt, warm_ewt))

        def median(cmd):
            times = sorted(timed(cmd) for _ in range(a.repeat))
            return times[len(times) // 2]

        for task, model, corpus, n, unit, cmd, data, warm in tasks:
            if only and task not in only:
                continue
            timed(cmd + [warm])  # the page cache
            fixed = median(cmd + [warm])
            whole = median(cmd + [data])
            # merge: the same command in 4 shards, then their merge.
            shards = []
            oi = cmd.index("-o")
            for i in range(1, 5):
                part = os.path.join(tmp, "shard%d" % i)
                sharded = cmd[:oi + 1] + [part] + cmd[oi + 2:] + [data, "--shard", "%d/4" % i]
                timed(sharded)
                shards.append(part)
            merged = os.path.join(tmp, "merged")
            merge = median([a.cli, "merge"] + shards + ["-o", merged])
            per = max(0.0, whole - fixed) / n
            runs.append({"task": task, "model": model, "corpus": corpus, unit: n, "fixed": round(fixed, 2),
                         "whole": round(whole, 2), "per_1000": round(1000.0 * per, 2),
                         "merge_per_1000": round(1000.0 * merge / n, 3),
                         "items_for_10pct_fixed": int(round(9.0 * fixed / per)) if per > 0 else None})
            if task == "probe":
                base = [a.cli, "probe"] + probe_tasks + threads + ["--train", data]
                runs[-1]["bytes"] = os.path.getsize(merged)
                runs[-1]["train_on_features"] = round(median(base + ["--features", merged, "-o", out]), 2)
                runs[-1]["plain_probe"] = round(median(base + ["-o", out]), 2)
            print(json.dumps(runs[-1]), file=sys.stderr)
    print(json.dumps({"machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "threads": a.threads}, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
