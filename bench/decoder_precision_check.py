#!/usr/bin/env python3
"""The checks of a pretrained Transformer's `--precision bf16` (docs/performance.md, "Fast
paths and their checks", decoders). Two parts:

    decoder_precision_check.py reference --cli CLI --folder F --conllu C [--precision bf16]
        [--tolerance 2e-3] [--sentences N]
        Is TreeLens's bf16 path the scheme it says it is? `treelens-cli analyze --json
        --precision P` against bench/hf_eager.py's forward with the same scheme
        (Decoder(projections=P), written from the library's modeling code) on the same
        pieces: the largest |difference| of every piece attention probability and every
        piece's surprisal. Also printed: how far the eager reference's fp32 and P are apart
        (the size of what P changes, so a path that silently stayed fp32 shows). Exit 1
        when TreeLens and the reference differ by more than --tolerance.

    decoder_precision_check.py drift --cli CLI --model F --conllu C [--precision bf16]
        [--sentences 100] [--max-words 25] [--threads 1]
        What the fast path changes against fp32 over a corpus (e.g. UD EWT dev): largest and
        mean |difference| of the word attention, each word's surprisal, the sentence
        log-probability and the top layer's word states; how often each (layer, head, word)
        row's most attended earlier word is the same (rows with at least two words to
        choose from; a tie within 1e-6 in fp32 is left out, as no arithmetic decides it);
        and the Spearman correlation of the words' surprisal. Also the wall seconds of the two
        `analyze --json` processes, run one after the other with the same --threads.

Prints one JSON object. Needs numpy and torch (Debian's python3-torch) for `reference`.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def analyze(cli, model, conllu, precision, threads=1, times=None):
    t0 = time.monotonic()
    p = subprocess.run([cli, "analyze", "--json", "--model", model, "--input", conllu, "--precision", precision,
                        "--threads", str(threads)], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"decoder_precision_check: analyze --precision {precision} failed: {p.stderr.strip()}")
    if times is not None:
        times[precision] = round(time.monotonic() - t0, 3)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()], p.stderr.strip()


def subset(conllu, sentences, max_words, work):
    """The first `sentences` sentences of CONLLU with at most `max_words` words, as a file in `work`."""
    blocks, block = [], []
    for line in open(conllu, encoding="utf-8"):
        if line.strip():
            block.append(line)
            continue
        if block:
            words = sum(1 for l in block if not l.startswith("#") and l.split("\t")[0].isdigit())
            if words <= max_words:
                blocks.append("".join(block) + "\n")
            block = []
        if len(blocks) == sentences:
            break
    path = os.path.join(work, "sentences.conllu")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(blocks))
    return path


def vocabulary(folder):
    """token -> id from tokenizer.json (the model's vocabulary and the added tokens)."""
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    vocab = tok["model"]["vocab"]
    ids = dict(vocab) if isinstance(vocab, dict) else {piece: i for i, (piece, _) in enumerate(vocab)}
    for t in tok.get("added_tokens", []):
        ids[t["content"]] = t["id"]
    return ids


def reference(a):
    import numpy as np
    import torch
    sys.path.insert(0, HERE)
    import hf_eager
    import tempfile
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as work:
        records, note = analyze(a.cli, a.folder, subset(a.conllu, a.sentences, a.max_words, work), a.precision)
    vocab = vocabulary(a.folder)
    fast = hf_eager.Decoder(a.folder, projections=a.precision)
    plain = hf_eager.Decoder(a.folder, projections="fp32")
    worst = {"attention": 0.0, "surprisal": 0.0}
    scheme = {"attention": 0.0, "surprisal": 0.0}
    mean = {"treelens": [0.0, 0.0], "scheme": [0.0, 0.0]}  # summed |diff| of attention, surprisal
    n_att = n_s = 0
    pieces = 0
    for r in records:
        ids = torch.tensor([[vocab[p] for p in r["pieces"]]])
        pieces += ids.shape[1]
        outs = []
        for model in (fast, plain):
            o = model.forward(ids, hidden_states=False)
            att = torch.stack([t[0] for t in o["attentions"]]).numpy()
            lp = hf_eager.next_token_logprobs(o["logits"][0], ids[0]).numpy()
            outs.append((att, -lp))
        got_att = np.array(r["piece_attention"], dtype=np.float64)
        got_s = np.array([np.nan if v is None else v for v in r["piece_surprisal"]])[1:]
        mean["treelens"][0] += float(np.abs(got_att - outs[0][0]).sum())
        mean["treelens"][1] += float(np.abs(got_s - outs[0][1]).sum())
        mean["scheme"][0] += float(np.abs(outs[1][0] - outs[0][0]).sum())
        mean["scheme"][1] += float(np.abs(outs[1][1] - outs[0][1]).sum())
        n_att += got_att.size
        n_s += got_s.size
        worst["attention"] = max(worst["attention"], float(np.abs(got_att - outs[0][0]).max()))
        worst["surprisal"] = max(worst["surprisal"], float(np.abs(got_s - outs[0][1]).max()))
        scheme["attention"] = max(scheme["attention"], float(np.abs(outs[1][0] - outs[0][0]).max()))
        scheme["surprisal"] = max(scheme["surprisal"], float(np.abs(outs[1][1] - outs[0][1]).max()))
    means = {k: {"attention": v[0] / max(1, n_att), "surprisal": v[1] / max(1, n_s)} for k, v in mean.items()}
    # Within the tolerance, and (so that a path which stayed fp32 fails) the mean differences from
    # the reference at most a tenth of what the scheme itself changes.
    ok = (max(worst.values()) <= a.tolerance and
          all(means["treelens"][k] <= 0.1 * means["scheme"][k] for k in ("attention", "surprisal")))
    print(json.dumps({"check": "reference", "folder": os.path.basename(os.path.normpath(a.folder)), "precision": a.precision,
                      "sentences": len(records), "pieces": pieces, "treelens_vs_eager_max_abs": worst,
                      "eager_fp32_vs_eager_" + a.precision + "_max_abs": scheme,
                      "treelens_vs_eager_mean_abs": means["treelens"],
                      "eager_fp32_vs_eager_" + a.precision + "_mean_abs": means["scheme"],
                      "tolerance": a.tolerance, "ok": ok, "treelens_note": note}))
    return 0 if ok else 1


def spearman(x, y):
    import numpy as np
    rx = np.argsort(np.argsort(x)).astype(float)
    ry = np.argsort(np.argsort(y)).astype(float)
    return float(np.corrcoef(rx, ry)[0, 1])


def drift(a):
    import numpy as np
    import tempfile
    times = {}
    with tempfile.TemporaryDirectory() as work:
        conllu = subset(a.conllu, a.sentences, a.max_words, work)
        base, _ = analyze(a.cli, a.model, conllu, "fp32", a.threads, times)
        fast, note = analyze(a.cli, a.model, conllu, a.precision, a.threads, times)
    keys = {"attention": "attention", "surprisal": "surprisal", "top_layer_states": "embedding"}
    worst = {k: 0.0 for k in keys}
    total = {k: 0.0 for k in keys}
    count = {k: 0 for k in keys}
    logprob_worst = 0.0
    same = rows = ties = 0
    s_base, s_fast = [], []
    for x, y in zip(base, fast):
        for name, key in keys.items():
            p = np.array([np.nan if v is None else v for v in np.ravel(np.array(x[key], dtype=object))], dtype=float)
            q = np.array([np.nan if v is None else v for v in np.ravel(np.array(y[key], dtype=object))], dtype=float)
            d = np.abs(p - q)[~np.isnan(p)]
            if d.size:
                worst[name] = max(worst[name], float(d.max()))
                total[name] += float(d.sum())
                count[name] += d.size
        logprob_worst = max(logprob_worst, abs(x["logprob"] - y["logprob"]))
        ax, ay = np.array(x["attention"]), np.array(y["attention"])  # [layer][head][i][j]
        for i in range(1, ax.shape[2]):
            rx, ry = ax[:, :, i, : i + 1], ay[:, :, i, : i + 1]
            top = np.sort(rx, axis=-1)
            tied = (top[..., -1] - top[..., -2]) <= 1e-6
            agree = rx.argmax(-1) == ry.argmax(-1)
            ties += int(tied.sum())
            rows += int((~tied).sum())
            same += int((agree & ~tied).sum())
        for u, v in zip(x["surprisal"], y["surprisal"]):
            if u is not None:
                s_base.append(u)
                s_fast.append(v)
    print(json.dumps({"check": "drift", "model": os.path.basename(os.path.normpath(a.model)), "precision": a.precision,
                      "sentences": len(base), "max_abs_diff": worst,
                      "mean_abs_diff": {k: total[k] / max(1, count[k]) for k in keys},
                      "sentence_logprob_max_abs_diff": logprob_worst,
                      "most_attended_word_same_share": same / max(1, rows), "rows": rows, "rows_tied_in_fp32": ties,
                      "surprisal_spearman": spearman(np.array(s_base), np.array(s_fast)) if len(s_base) > 1 else None,
                      "wall_seconds": times, "threads": a.threads,
                      "treelens_note": note}))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("reference")
    r.add_argument("--cli", required=True)
    r.add_argument("--folder", required=True)
    r.add_argument("--conllu", required=True)
    r.add_argument("--precision", default="bf16")
    r.add_argument("--tolerance", type=float, default=2e-3)
    r.add_argument("--sentences", type=int, default=40)
    r.add_argument("--max-words", type=int, default=40)
    d = sub.add_parser("drift")
    d.add_argument("--cli", required=True)
    d.add_argument("--model", required=True)
    d.add_argument("--conllu", required=True)
    d.add_argument("--precision", default="bf16")
    d.add_argument("--threads", type=int, default=1)
    d.add_argument("--sentences", type=int, default=100)
    d.add_argument("--max-words", type=int, default=25)
    a = ap.parse_args()
    return reference(a) if a.cmd == "reference" else drift(a)


if __name__ == "__main__":
    sys.exit(main())
