#!/usr/bin/env python3
"""An eager PyTorch forward of the encoders TreeLens reads from Hugging Face folders (BERT and
RoBERTa: BertModel / RobertaModel, post-norm, eval mode) with their masked-LM heads
(BertForMaskedLM's cls.predictions, RobertaForMaskedLM's lm_head), written from the library's
modeling code (modeling_bert.py, modeling_roberta.py: BertEmbeddings, BertSelfAttention
"eager", BertSelfOutput, BertIntermediate, BertOutput, BertPredictionHeadTransform,
BertLMPredictionHead; RobertaEmbeddings' positions from padding_idx + 1, RobertaLMHead with
the exact gelu), and the pseudo-log-likelihood of Salazar et al. 2020 (each piece of the
sentence masked in turn, log p of the piece at its masked position, summed). It is the
independent reference of TreeLens's masked-LM sentence scores (python/tests); it is checked
against the fixture's hidden states before it is believed (check). Never used by TreeLens at
run time. Standard library + numpy + torch only; one sequence at a time, no padding.

    hf_eager_mlm.py add-head FOLDER OUT [--seed S]
        a copy of FOLDER (config.json, tokenizer files, weights) with a random masked-LM head
        added under the library's names, its decoder tied; config.json's architectures says
        BertForMaskedLM / RobertaForMaskedLM
    hf_eager_mlm.py check FOLDER
        the largest |diff| of every layer's hidden states against FOLDER/expected.json
    hf_eager_mlm.py pll FOLDER --ids IDS.json [--ablate L:H,...]
        per sentence of IDS.json (a list of {"input_ids"}) its pseudo-log-likelihood (JSON lines)

Head ablation as in the decoder reference (0-based layer and head; head None: every head of
the layer): the head's attention-weighted values zeroed before the output projection.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_eager import activation, load_weights, write_safetensors  # noqa: E402

_PREFIX = {"bert": "bert.", "roberta": "roberta."}
_HEAD = {"bert": ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.decoder",
                  "cls.predictions.bias"),
         "roberta": ("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder", "lm_head.bias")}


class MaskedLm:
    def __init__(self, folder):
        self.raw = json.load(open(os.path.join(folder, "config.json"), encoding="utf-8"))
        self.kind = self.raw["model_type"]
        if self.kind not in _PREFIX:
            raise ValueError(f"model_type {self.kind!r} is not an encoder this reference implements")
        tensors, _ = load_weights(folder)
        prefix = _PREFIX[self.kind]
        self.w = {(k[len(prefix):] if k.startswith(prefix) else k): v for k, v in tensors.items()}
        self.hidden = self.raw["hidden_size"]
        self.heads = self.raw["num_attention_heads"]
        self.layers = self.raw["num_hidden_layers"]
        self.eps = self.raw.get("layer_norm_eps", 1e-12)
        self.act = activation(self.raw.get("hidden_act", "gelu"))
        self.pad = self.raw.get("pad_token_id", 1 if self.kind == "roberta" else 0)
        self.mask_id = mask_piece(folder)

    def ln(self, x, name):
        return F.layer_norm(x, (x.shape[-1],), self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def lin(self, x, name):
        return F.linear(x, self.w[name + ".weight"], self.w.get(name + ".bias"))

    def forward(self, ids, ablate=()):
        """Hidden states (layers + 1 of [N, hidden]) of one sequence of ids."""
        ids = torch.tensor(ids, dtype=torch.long)
        n = ids.shape[0]
        if self.kind == "roberta":  # create_position_ids_from_input_ids: padding_idx + 1 onwards
            positions = torch.arange(n) + self.pad + 1
        else:
            positions = torch.arange(n)
        x = (self.w["embeddings.word_embeddings.weight"][ids] + self.w["embeddings.position_embeddings.weight"][positions]
             + self.w["embeddings.token_type_embeddings.weight"][torch.zeros(n, dtype=torch.long)])
        x = self.ln(x, "embeddings.LayerNorm")
        states = [x]
        d = self.hidden // self.heads
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            q, k, v = (self.lin(x, p + "attention.self." + m).view(n, self.heads, d).transpose(0, 1) for m in ("query", "key", "value"))
            scores = torch.matmul(q, k.transpose(-1, -2)) / (d ** 0.5)
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v)  # [heads, n, d]
            for (l, h) in ablate:
                if l == layer:
                    if h is None:
                        ctx[:] = 0.0
                    else:
                        ctx[h] = 0.0
            ctx = ctx.transpose(0, 1).reshape(n, self.hidden)
            x = self.ln(self.lin(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            inter = self.act(self.lin(x, p + "intermediate.dense"))
            x = self.ln(self.lin(inter, p + "output.dense") + x, p + "output.LayerNorm")
            states.append(x)
        return states

    def mlm_logits(self, h):
        dense, norm, decoder, bias = _HEAD[self.kind]
        t = self.lin(h, dense)
        t = F.gelu(t) if self.kind == "roberta" else self.act(t)
        t = self.ln(t, norm)
        weight = self.w.get(decoder + ".weight", self.w["embeddings.word_embeddings.weight"])
        return F.linear(t, weight, self.w[bias] if bias in self.w else self.w[decoder + ".bias"])

    def pll(self, ids, ablate=()):
        """log p of each piece between the first and the last (the special pieces of the
        single-sequence template), masked alone; and their sum."""
        terms = []
        for i in range(1, len(ids) - 1):
            masked = list(ids)
            masked[i] = self.mask_id
            h = self.forward(masked, ablate)[-1][i]
            terms.append(float(torch.log_softmax(self.mlm_logits(h).double(), -1)[ids[i]]))
        return terms, sum(terms)


def mask_piece(folder):
    """The id of [MASK] or <mask>: an added token of tokenizer.json, its model's vocabulary, or
    vocab.txt's line."""
    path = os.path.join(folder, "tokenizer.json")
    if os.path.exists(path):
        tok = json.load(open(path, encoding="utf-8"))
        for a in tok.get("added_tokens", []):
            if a["content"] in ("[MASK]", "<mask>"):
                return a["id"]
        vocab = tok["model"].get("vocab", {})
        for name in ("[MASK]", "<mask>"):
            if isinstance(vocab, dict) and name in vocab:
                return vocab[name]
    with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            if line.rstrip("\n") == "[MASK]":
                return i
    raise ValueError(f"{folder}: no mask piece")


def add_head(folder, out, seed=3):
    """A copy of `folder` with a random masked-LM head (normal(0, 0.3) dense and bias, a
    LayerNorm near 1 and 0, normal(0, 1) output bias), the decoder tied."""
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(folder):
        if name not in ("model.safetensors", "config.json", "expected.json"):
            shutil.copy(os.path.join(folder, name), os.path.join(out, name))
    raw = json.load(open(os.path.join(folder, "config.json"), encoding="utf-8"))
    kind = raw["model_type"]
    raw["architectures"] = ["BertForMaskedLM" if kind == "bert" else "RobertaForMaskedLM"]
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(raw, f, indent=2)
    tensors, _ = load_weights(folder)
    arrays = {k: v.numpy() for k, v in tensors.items()}
    rng = np.random.default_rng(seed)
    d, vocab = raw["hidden_size"], raw["vocab_size"]
    dense, norm, _, bias = _HEAD[kind]
    arrays[dense + ".weight"] = rng.normal(0, 0.3, (d, d)).astype(np.float32)
    arrays[dense + ".bias"] = rng.normal(0, 0.3, d).astype(np.float32)
    arrays[norm + ".weight"] = (1.0 + rng.normal(0, 0.1, d)).astype(np.float32)
    arrays[norm + ".bias"] = rng.normal(0, 0.1, d).astype(np.float32)
    arrays[bias] = rng.normal(0, 1.0, vocab).astype(np.float32)
    write_safetensors(os.path.join(out, "model.safetensors"), arrays)
    return out


def check(folder):
    """The largest |diff| of every hidden state against the fixture's expected.json."""
    model = MaskedLm(folder)
    expected = json.load(open(os.path.join(folder, "expected.json"), encoding="utf-8"))
    worst = 0.0
    for s in expected["sentences"]:
        states = model.forward(s["input_ids"])
        for got, want in zip(states, s["hidden_states"]):
            worst = max(worst, float((got - torch.tensor(want, dtype=torch.float32).reshape(got.shape)).abs().max()))
    return worst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("add-head")
    a.add_argument("folder")
    a.add_argument("out")
    a.add_argument("--seed", type=int, default=3)
    c = sub.add_parser("check")
    c.add_argument("folder")
    p = sub.add_parser("pll")
    p.add_argument("folder")
    p.add_argument("--ids", required=True)
    p.add_argument("--ablate", default="")
    args = ap.parse_args(argv)
    if args.cmd == "add-head":
        print(add_head(args.folder, args.out, args.seed))
    elif args.cmd == "check":
        print(json.dumps({"max_abs_diff": check(args.folder)}))
    else:
        ablate = []
        for item in filter(None, args.ablate.split(",")):
            l, h = item.split(":")
            ablate.append((int(l), None if h in ("", "*", "None") else int(h)))
        model = MaskedLm(args.folder)
        for s in json.load(open(args.ids, encoding="utf-8")):
            terms, total = model.pll(s["input_ids"], ablate)
            print(json.dumps({"terms": terms, "pll": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
