#!/usr/bin/env python3
"""The Markdown tables of docs/performance.md from bench/speed_runs.sh's reports.

Usage: bench/speed_tables.py OUT_DIR   (default build/speed)

Reads OUT_DIR/{sentence,corpus}-{official,shipped}.json (bench_speed),
gui-*.json (bench_gui) and analyze-shipped.time, and prints every table with the
machine and noise of the run it comes from. Nothing here is measured: it only
formats what the benchmarks wrote."""
import json
import os
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "build/speed"


def load(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def machine_line(r):
    m = r["machine"]
    g = r["gemm"][0]
    return ("%s, %d logical CPUs, flags %s, int8 dot products %s, native bf16 %s; OpenBLAS core %s; "
            "LibTorch %s; 1-thread GEMM: 2048³ fp32 %.0f GFLOP/s, 41×512·512×2048 fp32 %.2f ms (%.0f GFLOP/s), "
            "int8 %.2f ms (%.0f GOP/s); load average %s → %s; noise: %s (worst IQR/median %.1f %%); %.0f s"
            % (m["cpu_model"], m["logical_cpus"], m["flags"], "yes" if m["int8_dot_products"] else "no",
               "yes" if m["native_bf16"] else "no", m["openblas_core"], m["libtorch"], g["fp32_2048_cubed_gflops"],
               g["fp32_41x512x2048_ms"], g["fp32_41x512x2048_gflops"], g["int8_41x512x2048_ms"],
               g["int8_41x512x2048_gops"], r["load_average_before"], r["load_average_after"],
               r["noise"]["verdict"], 100 * r["noise"]["worst_side_iqr_over_median"], r.get("wall_seconds", 0)))


def side_table(r, corpus):
    unit = "sentences/s (median)" if corpus else "ms per sentence: min / median"
    print("| side | threads | %s | IQR/median | official Python ÷ side (medians; minima; rounds) |" % unit)
    print("|---|---|---|---|---|")
    ratios = {(x["reference"], x["treelens"]): x for x in r["ratios"]}
    ref = "official-python @1" if any(s["name"] == "official-python @1" for s in r["sides"]) else "official-ops @1"
    for s in r["sides"]:
        if corpus:
            speed = "%.1f" % s["sentences_per_s_median"]
        else:
            speed = "%.1f / %.1f" % (s["min_ms"], s["median_ms"])
        x = ratios.get((ref, s["name"]))
        if x:
            rat = "**%.2f×**; %.2f×; %.2f–%.2f×" % (x["median_ratio"], x["min_ratio"], x["paired_ratio_min"],
                                                    x["paired_ratio_max"])
        elif s["name"] == ref:
            rat = "1 (reference)"
        else:
            rat = "%.2f× (medians)" % (next(t for t in r["sides"] if t["name"] == ref)["median_ms"] / s["median_ms"])
        name = s["name"].rsplit(" @", 1)[0]
        print("| %s | %d | %s | %.1f %% | %s |" % (name, s["threads"], speed, 100 * s["spread_iqr_over_median"], rat))
    for t in r["thread_ratios"]:
        print("\n%s: %d threads against %d: **%.2f×** (medians), %.2f× (minima)" %
              (t["precision"], t["threads"][1], t["threads"][0], t["median_ratio"], t["min_ratio"]), end="")
    print("\n\nparity (largest link-probability difference to TreeLens fp32): " +
          ", ".join("%s %.1e" % (k.replace("_vs_treelens_fp32_max_link_diff", "").replace("_max_link_diff", ""), v)
                    for k, v in r["parity"].items()))
    print("\nmachine: " + machine_line(r) + "\n")


for name, corpus in (("sentence-official", False), ("sentence-shipped", False), ("corpus-official", True),
                     ("corpus-shipped", True)):
    r = load(name + ".json")
    if r is None:
        continue
    t = r["task"]
    if corpus:
        print("### %s: %s, %d sentences, batch %d (reference padding share %.0f %%), %d rounds\n" %
              (name, os.path.basename(t["corpus"]), t["sentences"], t["batch"], 100 * t["reference_padding_share"],
               len(r["sides"][0]["ms"])))
    else:
        print("### %s: %d words, batch %d, %d rounds\n" % (name, t["words"], t["batch"], len(r["sides"][0]["ms"])))
    side_table(r, corpus)

a = os.path.join(out, "analyze-shipped.time")
if os.path.exists(a):
    with open(a) as f:
        print("### treelens-cli analyze --json, UD EWT dev, shipped model, 1 thread\n\n" + f.read().strip() + "\n")

gui = [(n, load(n + ".json")) for n in ("gui-shipped-fp32", "gui-official-fp32", "gui-official-int8")]
gui = [(n, r) for n, r in gui if r]
if gui:
    print("### bench_gui --runs N: submitted → painted (medians)\n")
    print("| model, precision | words | path | submitted → painted | parse | encoder | views (GUI thread) | worst stall |")
    print("|---|---|---|---|---|---|---|---|")
    for n, r in gui:
        label = n.replace("gui-", "").replace("-", ", ")
        for x in r["latency"]:
            print("| %s | %d | %s | %.1f ms | %s | %.1f ms | %.1f ms | %.1f ms |" %
                  (label, x["words"], x["path"], x["submitted_to_painted_ms_median"],
                   "%.1f ms" % x["parse_ms_median"] if x["path"] == "typed" else "—", x["encoder_ms_median"],
                   x["views_update_ms_median"], x["gui_max_stall_ms"]))
    print()
    for n, r in gui:
        c = r["corpus"]
        print("%s: scoring %d sentences in the background %.1f s, worst GUI stall %.1f ms, %d stalls over 100 ms" %
              (n, c["sentences"], c["seconds"], c["gui_max_stall_ms"], c["gui_stalls_over_100ms"]))
