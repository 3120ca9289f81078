#!/usr/bin/env python3
"""The official Tree Transformer code (yaushian/Tree-Transformer), driven by bench_speed.

Run by bench_speed as a child process; never imported by TreeLens itself. It imports
the official sources from --official DIR (a checkout the user provides; none of that
code is in this repository), builds the official model with the sizes of a TreeLens
model file (.safetensors, the official parameter names), loads its weights, and then
answers one JSON request per stdin line with one JSON reply per stdout line:

  {"cmd": "links", "ids": [[...]]}            -> {"links": [layer][gap]} of sentence 0 (A[k,k+1]),
                                                 for the parity check against TreeLens
  {"cmd": "load", "name": N, "batches": [[[ids]]]}  -> {"ok": true}: keeps batches of sentences
  {"cmd": "time", "name": N}                  -> {"seconds": s}: one pass of the official parse
                                                 loop over those batches (below)
  {"cmd": "quit"}

With --make-checkpoint DIR instead of --model it builds a model with random weights the way
the official Solver._make_model does (Xavier-uniform for every matrix), writes DIR/model.pth
in the official checkpoint layout {'step', 'state_dict'} and DIR/dictionary.json ([PAD] [UNK]
[MASK] [CLS] then filler words), for `treelens-cli import-checkpoint`, and exits.

The timed work is what the official `Solver.write_parse_tree` does per batch, less the file
writing: `model.forward(ids, mask)` with ids padded to the batch's longest sentence and the
mask `(ids != 0)` as [B,1,L] int32 (as `Solver.test` builds it), then for every sentence
`get_break_prob(break_probs[i])[:, 1:length]` and `build_tree(bp, N-1, 0, length-1, 0.8)`
from the official parse.py. The forward runs under torch.no_grad() and model.eval(), which
makes the reference faster than the official test() (it records autograd history), so the
ratios TreeLens reports against it are conservative.
Threads: torch.set_num_threads(--threads); OpenBLAS's pool is set by OPENBLAS_NUM_THREADS,
which bench_speed exports before starting this process.
"""
import argparse
import json
import os
import struct
import sys
import time
import types

import numpy as np


def read_safetensors(path):
    """(tensors as numpy float32, metadata) of a .safetensors file (f32, f16 or bf16)."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {}) or {}
    base = 8 + n
    out = {}
    for name, info in header.items():
        start, end = info["data_offsets"]
        raw = blob[base + start:base + end]
        dtype = info["dtype"]
        if dtype == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif dtype == "F16":
            a = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif dtype == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise SystemExit("official_worker: %s: tensor %s has dtype %s" % (path, name, dtype))
        out[name] = a.reshape(info["shape"]).copy()
    return out, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--official", required=True, help="directory with the official models.py, attention.py, modules.py, parse.py")
    ap.add_argument("--model", help="TreeLens .safetensors model (tree-transformer family)")
    ap.add_argument("--make-checkpoint", metavar="DIR", help="write a random official model (model.pth, dictionary.json) and exit")
    ap.add_argument("--layers", type=int, default=10)
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--d-ff", type=int, default=2048)
    ap.add_argument("--vocab-size", type=int, default=16000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--words-from", metavar="CONLLU", help="--make-checkpoint: the dictionary's words, most frequent "
                    "first, from this CoNLL-U file (normalised as TreeLens does: lower case, digit runs -> N), "
                    "so that real sentences are not all [UNK]")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    args = ap.parse_args()
    if not args.model and not args.make_checkpoint:
        ap.error("--model or --make-checkpoint is required")

    import torch
    import torch.nn as nn
    torch.set_num_threads(args.threads)

    sys.path.insert(0, os.path.abspath(args.official))
    stubbed = []
    try:
        import nltk  # noqa: F401  (parse.py imports it; build_tree does not use it)
    except ImportError:
        # parse.py imports nltk for its tree printing only; build_tree and get_break_prob
        # are plain numpy, so a stand-in module lets them load without it.
        stub = types.ModuleType("nltk")
        stub.Tree = None
        sys.modules["nltk"] = stub
        stubbed.append("nltk")
    import attention as off_attention  # noqa: E402  (official sources)
    import models as off_models
    import modules as off_modules
    import parse as off_parse

    import copy

    def build(N, d, h, dff, vocab, max_len):
        # The official Solver._make_model, with its classes and its order of construction.
        c = copy.deepcopy
        attn = off_attention.MultiHeadedAttention(h, d, no_cuda=no_cuda)
        group_attn = off_attention.GroupAttention(d, no_cuda=no_cuda)
        ff = off_modules.PositionwiseFeedForward(d, dff, 0.1)
        position = off_modules.PositionalEncoding(d, 0.1, max_len=max_len)
        word_embed = nn.Sequential(off_modules.Embeddings(d, vocab), c(position))
        return off_models.Encoder(off_models.EncoderLayer(d, c(attn), c(ff), group_attn, 0.1), N, d, vocab, c(word_embed))

    no_cuda = args.device == "cpu"
    if args.make_checkpoint:
        torch.manual_seed(args.seed)
        model = build(args.layers, args.d_model, args.heads, args.d_ff, args.vocab_size, 256)
        for p in model.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        os.makedirs(args.make_checkpoint, exist_ok=True)
        torch.save({"step": 0, "state_dict": model.state_dict()}, os.path.join(args.make_checkpoint, "model.pth"))
        words = ["[PAD]", "[UNK]", "[MASK]", "[CLS]"]
        if args.words_from:
            import collections, re
            counts = collections.Counter()
            with open(args.words_from, encoding="utf-8") as f:
                for line in f:
                    cols = line.rstrip("\n").split("\t")
                    if len(cols) == 10 and cols[0].isdigit():
                        counts[re.sub(r"[0-9]+", "N", cols[1].lower())] += 1
            words += [w for w, _ in counts.most_common() if w not in words][:args.vocab_size - len(words)]
        words += ["w%d" % i for i in range(len(words), args.vocab_size)]
        with open(os.path.join(args.make_checkpoint, "dictionary.json"), "w") as f:
            json.dump({w: i for i, w in enumerate(words)}, f)
        print(json.dumps({"written": args.make_checkpoint, "torch": torch.__version__}), flush=True)
        return

    tensors, meta = read_safetensors(args.model)
    config = json.loads(meta.get("treelens.config", "{}"))
    m = config.get("model", {})
    N = m["layers"]
    if abs(float(m.get("group_divisor", 256.0)) - 256.0) > 0 or not m.get("constituent_prior", True):
        raise SystemExit("official_worker: the official code has the group divisor 256 and the prior on; "
                         "this model differs")
    model = build(N, m["d_model"], m["heads"], m["d_ff"], m["vocab_size"], m.get("max_len", 256))
    state = model.state_dict()
    loaded = {}
    for name, value in state.items():
        if name in tensors:
            loaded[name] = torch.from_numpy(tensors[name]).reshape(value.shape)
        elif name.startswith("proj."):
            loaded[name] = value  # analysis-only files carry no vocabulary projection; the official forward still runs it
        elif name == "word_embed.1.pe":
            loaded[name] = value
        else:
            raise SystemExit("official_worker: %s lacks %s" % (args.model, name))
    model.load_state_dict(loaded, strict=True)
    model.eval()
    if not no_cuda:
        model = model.cuda()

    def to_device(t):
        return t if no_cuda else t.cuda()

    def sync():
        if not no_cuda:
            torch.cuda.synchronize()

    store = {}

    def run(batches):
        with torch.no_grad():
            for batch in batches:
                L = max(len(s) for s in batch)
                ids = np.zeros([len(batch), L], dtype=np.int64)
                for i, s in enumerate(batch):
                    ids[i, :len(s)] = s
                masks = np.expand_dims(ids != 0, -2).astype(np.int32)
                _, break_probs = model.forward(to_device(torch.from_numpy(ids)), to_device(torch.from_numpy(masks)))
                for i, s in enumerate(batch):
                    length = len(s) - 1  # words, [CLS] excluded
                    bp = off_parse.get_break_prob(break_probs[i])[:, 1:length]
                    off_parse.build_tree(bp, N - 1, 0, length - 1, 0.8)
        sync()

    print(json.dumps({"ready": True, "torch": torch.__version__, "threads": torch.get_num_threads(),
                      "stubbed": stubbed, "device": args.device}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        cmd = req.get("cmd")
        if cmd == "quit":
            break
        if cmd == "links":
            ids = np.array(req["ids"], dtype=np.int64)
            masks = np.expand_dims(ids != 0, -2).astype(np.int32)
            with torch.no_grad():
                _, bp = model.forward(to_device(torch.from_numpy(ids)), to_device(torch.from_numpy(masks)))
            links = off_parse.get_break_prob(bp[0])
            reply = {"links": links.tolist()}
        elif cmd == "load":
            store[req["name"]] = req["batches"]
            reply = {"ok": True}
        elif cmd == "time":
            batches = store[req["name"]]
            t0 = time.perf_counter()
            run(batches)
            reply = {"seconds": time.perf_counter() - t0}
        else:
            reply = {"error": "unknown command %r" % cmd}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
