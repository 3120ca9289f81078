#!/usr/bin/env python3
"""Raw-text throughput of `treelens-cli parse` (dependency + constituency trees
from plain text, one sentence per line) and the memory of `parse` and `analyze`
on inputs of growing size: is memory constant in the number of sentences?

    python3 bench/rawtext_bench.py [--cli build/dev/app/treelens-cli] [--shared ../shared] [--reps 3]

The texts are the "# text" lines of UD EWT train (from ../shared/data), 3,000
sentences and about 5 MB (the train text repeated). Each command runs --reps
times, interleaved; wall and CPU seconds and the peak resident memory of the
child (getrusage) are printed as one JSON object per run, then a summary with
the minimum and median, the CPU model and the load average before and after
(a loaded machine shows in the spread).
"""
import argparse, json, os, platform, resource, statistics, subprocess, sys, tempfile, time


def texts(shared):
    path = os.path.join(shared, "data", "ud-english-ewt", "en_ewt-ud-train.conllu")
    lines = [l[9:].rstrip("\n") for l in open(path, encoding="utf-8") if l.startswith("# text = ")]
    small = "\n".join(lines[:3000]) + "\n"
    big, i = [], 0
    size = 0
    while size < 5_000_000:
        big.append(lines[i % len(lines)])
        size += len(lines[i % len(lines)].encode()) + 1
        i += 1
    return small, "\n".join(big) + "\n", 3000, len(big)


def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss  # ru_maxrss: the largest child so far (KiB)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/dev/app/treelens-cli")
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--skip-analyze-5mb", action="store_true", help="analyze on 5 MB takes minutes")
    ap.add_argument("--coretypes", default="",
                    help="comma-separated OPENBLAS_CORETYPE values to run every case under, interleaved "
                         "(e.g. Haswell,SkylakeX; default: the environment as it is)")
    a = ap.parse_args()
    small, big, nsmall, nbig = texts(a.shared)
    tmp = tempfile.mkdtemp(prefix="treelens-rawtext-")
    fs, fb = os.path.join(tmp, "ewt3000.txt"), os.path.join(tmp, "ewt5mb.txt")
    open(fs, "w", encoding="utf-8").write(small)
    open(fb, "w", encoding="utf-8").write(big)
    out = os.path.join(tmp, "out")
    cases = [("parse", nsmall, [a.cli, "parse", "-i", fs, "-o", out]),
             ("parse", nbig, [a.cli, "parse", "-i", fb, "-o", out]),
             ("analyze", nsmall, [a.cli, "analyze", "-i", fs, "-o", out])]
    if not a.skip_analyze_5mb:
        cases.append(("analyze", nbig, [a.cli, "analyze", "-i", fb, "-o", out]))
    load0 = os.getloadavg()[0]
    coretypes = [c for c in a.coretypes.split(",") if c] or [None]
    keys = [(i, c) for i in range(len(cases)) for c in coretypes]
    results = {k: [] for k in keys}
    for rep in range(a.reps):
        for i, (name, n, cmd) in enumerate(cases):
            for c in coretypes:
                env = dict(os.environ)
                if c:
                    env["OPENBLAS_CORETYPE"] = c
                # ru_maxrss of RUSAGE_CHILDREN is a running maximum: measure each
                # case in a fresh child python so the figure is its own.
                probe = subprocess.run([sys.executable, __file__, "--one"] + cmd, capture_output=True, text=True, env=env)
                if probe.returncode != 0:
                    sys.exit(probe.stderr)
                wall, cpu, rss = json.loads(probe.stdout)
                r = {"command": name, "sentences": n, "input_bytes": os.path.getsize(cmd[3]), "rep": rep,
                     "openblas_coretype": env.get("OPENBLAS_CORETYPE", ""),
                     "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "sentences_per_s": round(n / wall, 1),
                     "max_rss_mib": round(rss / 1024, 1)}
                results[(i, c)].append(r)
                print(json.dumps(r), flush=True)
    summary = []
    for (i, c) in keys:
        name, n, cmd = cases[i]
        rs = results[(i, c)]
        summary.append({"command": name, "sentences": n, "openblas_coretype": rs[0]["openblas_coretype"],
                        "sentences_per_s_best": max(r["sentences_per_s"] for r in rs),
                        "sentences_per_s_median": statistics.median(r["sentences_per_s"] for r in rs),
                        "cpu_s_min": min(r["cpu_s"] for r in rs),
                        "max_rss_mib_median": statistics.median(r["max_rss_mib"] for r in rs)})
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    print(json.dumps({"summary": summary, "cpu": cpu, "cores": os.cpu_count(), "loadavg_before": load0,
                      "loadavg_after": os.getloadavg()[0],
                      "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "")}))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(run(sys.argv[2:])))
    else:
        main()
