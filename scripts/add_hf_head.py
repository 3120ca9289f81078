#!/usr/bin/env python3
"""Adds a sequence-classification head to a Hugging Face BERT or RoBERTa folder, as
`BertForSequenceClassification` / `RobertaForSequenceClassification` save it, with
seeded random weights: the folder a user's fine-tuned cross-encoder would be, for
tests of the pretrained-transformer family's pair scoring (docs/pretrained-transformers.md).

    scripts/add_hf_head.py SRC_DIR OUT_DIR [--labels irrelevant,relevant] [--task wikiqa] [--seed 1]

BERT gets classifier.weight/bias on the pooled output; RoBERTa classifier.dense and
classifier.out_proj on <s>. config.json gets id2label/label2id, the architecture and
"finetuning_task" (as the library's run_glue wrote it): a sentence-pair task (wikiqa,
the default; qnli, mnli, ...) makes TreeLens read the folder as a cross-encoder, any
other (sst2) as a one-sentence classifier.
Reads and writes model.safetensors with the standard library only (no torch).
"""
import argparse
import json
import os
import random
import shutil
import struct


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    meta = header.pop("__metadata__", None)
    tensors = {}
    for name, t in header.items():
        a, b = t["data_offsets"]
        tensors[name] = (t["dtype"], t["shape"], body[a:b])
    return tensors, meta


def write_safetensors(path, tensors, meta):
    header, offset, chunks = {}, 0, []
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    if meta:
        header["__metadata__"] = meta
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)


def floats(rng, count, scale):
    return struct.pack("<%df" % count, *[rng.gauss(0.0, scale) for _ in range(count)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--labels", default="irrelevant,relevant")
    ap.add_argument("--task", default="wikiqa")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    labels = args.labels.split(",")
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    for name in os.listdir(args.src):
        if name not in ("expected.json", "model.safetensors"):
            shutil.copyfile(os.path.join(args.src, name), os.path.join(args.out, name))
    with open(os.path.join(args.src, "config.json")) as f:
        config = json.load(f)
    tensors, meta = read_safetensors(os.path.join(args.src, "model.safetensors"))
    d = config["hidden_size"]
    k = len(labels)
    rng = random.Random(args.seed)
    scale = config.get("initializer_range", 0.02) * 10  # large enough that the scores differ between pairs
    if config["model_type"] == "bert":
        tensors["classifier.weight"] = ("F32", [k, d], floats(rng, k * d, scale))
        tensors["classifier.bias"] = ("F32", [k], floats(rng, k, scale))
        config["architectures"] = ["BertForSequenceClassification"]
    elif config["model_type"] == "roberta":
        tensors["classifier.dense.weight"] = ("F32", [d, d], floats(rng, d * d, scale))
        tensors["classifier.dense.bias"] = ("F32", [d], floats(rng, d, scale))
        tensors["classifier.out_proj.weight"] = ("F32", [k, d], floats(rng, k * d, scale))
        tensors["classifier.out_proj.bias"] = ("F32", [k], floats(rng, k, scale))
        config["architectures"] = ["RobertaForSequenceClassification"]
    else:
        raise SystemExit("add_hf_head.py: model_type %r is neither bert nor roberta" % config["model_type"])
    config["id2label"] = {str(i): l for i, l in enumerate(labels)}
    config["label2id"] = {l: i for i, l in enumerate(labels)}
    config["finetuning_task"] = args.task
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors, meta)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    print("add_hf_head.py: %s -> %s (%s head, labels %s, task %s)" % (args.src, args.out, config["model_type"], ",".join(labels), args.task))


if __name__ == "__main__":
    main()
