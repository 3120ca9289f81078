#!/usr/bin/env python3
"""Peak resident memory of opening a Hugging Face folder of real size and running
a corpus through it: `treelens-cli analyze` on a BERT-base-shaped model (12 layers,
hidden 768, intermediate 3072, 12 heads, 512 positions; the bert-tiny-random
fixture's tokenizer and its 3,042-entry vocabulary: 88.4 M parameters, 354 MB in
float32), stored as F32 and as BF16.

    python3 bench/memory_open_folder.py [--cli [LABEL=]PATH ...] [--shared ../shared]
                                        [--sentences 300] [--reps 1] [--keep DIR]

Writes the folders (config.json, tokenizer.json, tokenizer_config.json and vocab.txt
from the fixture with the sizes changed; model.safetensors from a minimal writer of
its own: the fixture's tensor names for 12 layers, normal(0, 0.02) values, LayerNorm
weights 1, seed 0) and the first N sentences of UD EWT dev into a temporary folder
(deleted afterwards unless --keep names one), then runs each CLI given (default
build/ci/app/treelens-cli) on each folder, interleaved, --reps times:

  baseline  `treelens-cli info`: the program and its libraries, no model;
  load      `analyze --model F --threads 1 --json --no-attention "ONE SENTENCE"`:
            the folder opened and one sentence run;
  corpus    `analyze --model F --threads 1 --json --no-attention --input N.conllu`
            (batches of 32 sentences, the default);
  batch1    the same with `--batch 1`: the weights and one sentence's activations,
            so corpus - batch1 is what one batch of 32 holds.

Peaks are the child's maximum resident set (wait4's ru_maxrss, = VmHWM), file-backed
pages of a mapped file included. Prints one JSON line per CLI, case and repetition:
the weights as stored and in float32 (bytes), the four peaks (bytes), the corpus
run's wall seconds, peak / float32 weights, (load - baseline), (batch1 - baseline) and
(corpus - baseline - one batch) over the float32 weights (the issue's target: at most
1.25), and the SHA-256 of the corpus run's output (the same for every CLI when they
compute the same). Python 3 standard library and NumPy only (Debian's python3-numpy:
run it with /usr/bin/python3 where another python3 comes first on PATH).
"""
import argparse, hashlib, json, os, shutil, struct, subprocess, sys, tempfile, time

import numpy as np

HIDDEN, LAYERS, HEADS, INTERMEDIATE, POSITIONS = 768, 12, 12, 3072, 512
FIXTURE = os.path.join("fixtures", "hf-transformers-reference", "bert-tiny-random")


def fixture_tensor_names(path):
    """The fixture's tensor names, its layer 0 standing for every layer."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    names = []
    for name in sorted(header):
        if name == "__metadata__":
            continue
        if name.startswith("encoder.layer."):
            index = name.split(".")[2]
            if index != "0":
                continue
            rest = name[len("encoder.layer.0."):]
            names += ["encoder.layer.%d.%s" % (l, rest) for l in range(LAYERS)]
        else:
            names.append(name)
    return names, header.get("__metadata__", {})


def shape_of(name, vocab):
    """BERT's parameter shapes by name (hidden H, intermediate I)."""
    H, I = HIDDEN, INTERMEDIATE
    table = {"embeddings.word_embeddings.weight": [vocab, H], "embeddings.position_embeddings.weight": [POSITIONS, H],
             "embeddings.token_type_embeddings.weight": [2, H], "pooler.dense.weight": [H, H], "pooler.dense.bias": [H]}
    if name in table:
        return table[name]
    if "LayerNorm" in name:
        return [H]
    if ".intermediate.dense." in name:
        return [I, H] if name.endswith("weight") else [I]
    if name.endswith(".output.dense.weight") and ".attention." not in name:
        return [H, I]
    return [H, H] if name.endswith("weight") else [H]


def to_bf16(a):
    """float32 -> bfloat16 bit patterns, round to nearest even (no NaN here)."""
    u = a.view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def write_safetensors(path, names, shapes, dtype, metadata, seed=0):
    """A minimal safetensors writer: header (sorted names, offsets, padded with spaces
    to a multiple of 8), then each tensor drawn and written in turn."""
    size = 2 if dtype == "BF16" else 4
    header, offset = {"__metadata__": metadata}, 0
    for name in names:
        n = int(np.prod(shapes[name])) * size
        header[name] = {"dtype": dtype, "shape": shapes[name], "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name in names:
            shape = shapes[name]
            if "LayerNorm" in name and name.endswith("weight"):
                a = np.ones(shape, dtype=np.float32)
            else:
                a = rng.normal(0.0, 0.02, size=shape).astype(np.float32)
            f.write((to_bf16(a) if dtype == "BF16" else a).tobytes())
    return offset


def make_folder(shared, out, dtype):
    src = os.path.join(shared, FIXTURE)
    os.makedirs(out, exist_ok=True)
    for f in ("tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        shutil.copyfile(os.path.join(src, f), os.path.join(out, f))
    with open(os.path.join(src, "config.json")) as f:
        config = json.load(f)
    config.update({"hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
                   "intermediate_size": INTERMEDIATE, "max_position_embeddings": POSITIONS,
                   "dtype": "bfloat16" if dtype == "BF16" else "float32"})
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    names, metadata = fixture_tensor_names(os.path.join(src, "model.safetensors"))
    shapes = {n: shape_of(n, config["vocab_size"]) for n in names}
    stored = write_safetensors(os.path.join(out, "model.safetensors"), names, shapes, dtype, metadata)
    f32 = sum(int(np.prod(s)) for s in shapes.values()) * 4
    return stored, f32


def first_sentences(shared, n, path):
    src = os.path.join(shared, "data", "ud-english-ewt", "en_ewt-ud-dev.conllu")
    blocks, block = [], []
    with open(src, encoding="utf-8") as f:
        for line in f:
            block.append(line)
            if line.strip() == "":
                if any(not l.startswith("#") and l.strip() for l in block):
                    blocks.append("".join(block))
                block = []
                if len(blocks) == n:
                    break
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(blocks))
    return len(blocks)


def run(cmd, stdout_path=None):
    """Runs cmd; returns (exit status, peak resident bytes, wall seconds)."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if stdout_path:
        out.close()
    if p.returncode != 0:
        sys.stderr.write("%s: exit %d: %s\n" % (" ".join(cmd), p.returncode, err.decode(errors="replace")[-2000:]))
    return p.returncode, usage.ru_maxrss * 1024, wall


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", action="append", help="[LABEL=]PATH of a treelens-cli (repeatable; default build/ci/app/treelens-cli)")
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared"))
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--keep", help="write the folders here and keep them (default: a temporary folder, deleted)")
    args = ap.parse_args()
    clis = []
    for c in args.cli or [os.path.join(root, "build", "ci", "app", "treelens-cli")]:
        label, _, path = c.rpartition("=")
        clis.append((label or path, os.path.abspath(path)))
    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="treelens-memory-")
    os.makedirs(work, exist_ok=True)
    try:
        cases = []
        for dtype in ("F32", "BF16"):
            folder = os.path.join(work, "bert-base-" + dtype.lower())
            stored, f32 = make_folder(args.shared, folder, dtype)
            cases.append((dtype, folder, stored, f32))
        corpus = os.path.join(work, "ewt-dev-%d.conllu" % args.sentences)
        sentences = first_sentences(args.shared, args.sentences, corpus)
        common = ["--threads", "1", "--json", "--no-attention"]
        for rep in range(args.reps):
            for dtype, folder, stored, f32 in cases:
                for label, cli in clis:
                    _, base, _ = run([cli, "info"])
                    _, load, _ = run([cli, "analyze", "--model", folder] + common + ["The old man saw a red kite ."])
                    output = os.path.join(work, "out.jsonl")
                    status, peak, wall = run([cli, "analyze", "--model", folder] + common + ["--input", corpus], output)
                    with open(output, "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                    _, one, _ = run([cli, "analyze", "--model", folder] + common + ["--batch", "1", "--input", corpus])
                    batch = max(0, peak - one)
                    print(json.dumps({"cli": label, "case": "bert-base " + dtype, "rep": rep, "sentences": sentences,
                                      "weights_stored_bytes": stored, "weights_f32_bytes": f32,
                                      "baseline_peak_bytes": base, "load_peak_bytes": load, "corpus_peak_bytes": peak,
                                      "corpus_batch1_peak_bytes": one, "one_batch_bytes": batch,
                                      "corpus_wall_s": round(wall, 2), "exit": status,
                                      "peak_over_f32": round(peak / f32, 3),
                                      "load_above_baseline_over_f32": round((load - base) / f32, 3),
                                      "batch1_above_baseline_over_f32": round((one - base) / f32, 3),
                                      "peak_less_baseline_and_batch_over_f32": round((peak - base - batch) / f32, 3),
                                      "output_sha256": digest}), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
