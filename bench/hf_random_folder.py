#!/usr/bin/env python3
"""A random decoder-only language-model folder in the Hugging Face layout of
../shared/fixtures/hf-decoders-reference (README there), of any size and with any of the
options that README describes, and its expected.json computed by bench/hf_eager.py: the
"folders of the same layout with other sizes, options and sentences" TreeLens must
reproduce (tests/decoders/test_decoder_layouts.sh runs verify-fixture on them), and the
large random folders of the decoder benchmark (--no-expected).

    hf_random_folder.py OUT --arch qwen2 [--layers 3 --hidden 64 --heads 8 --kv-heads 2 ...]

The tokenizer (tokenizer.json, tokenizer_config.json, generation_config.json, BOS/EOS ids)
is the matching fixture folder's (--tokenizer-from); vocab_size is at least the
tokenizer's size (--vocab, --pad-vocab). Sentences: the fixture's five (their input_ids,
tokens and offsets from its expected.json, the same tokenizer), plus --extra-texts when the
npm `tokenizers` package is installed (bench/hf_tokenize.js; skipped with a note
otherwise). Weights: seeded (numpy PCG64), F32, F16 or BF16 storage (--storage), or F32
holding BF16-rounded values (--round-bf16: the same numbers as --storage BF16), in one
file or N shards with model.safetensors.index.json. Deterministic: the same arguments
give the same bytes. Standard library + numpy + torch (hf_eager) only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
import hf_eager  # noqa: E402

FIXTURES_DEFAULT = os.path.join(HERE, "..", "..", "shared", "fixtures", "hf-decoders-reference")
TOKENIZER_FOLDER = {"gpt2": "gpt2-tiny-random", "gpt_neox": "pythia-tiny-random", "llama": "llama3-tiny-random",
                    "mistral": "llama2-tiny-random", "qwen2": "qwen2-tiny-random", "qwen3": "qwen3-tiny-random",
                    "gemma": "gemma-tiny-random"}
ARCHITECTURE = {"gpt2": "GPT2LMHeadModel", "gpt_neox": "GPTNeoXForCausalLM", "llama": "LlamaForCausalLM",
                "mistral": "MistralForCausalLM", "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM",
                "gemma": "GemmaForCausalLM"}
EXTRA_TEXTS = [
    "I'd say we'll meet at 10:30, they've 3,141,592 reasons and haven't they?",
    "Mr. O'Neill's naïve coöperation cost €12.50 (≈ ¥1,800) in 2024.",
    "Ελληνικά, русский, 日本語の文章 and 😀👍🏽 side by side.",
    "Two  spaces,   three spaces and a trailing one ",
]


def tokenizer_size(tokenizer_json):
    t = json.load(open(tokenizer_json, encoding="utf-8"))
    ids = list(t["model"]["vocab"].values()) + [a["id"] for a in t.get("added_tokens", [])]
    return max(ids) + 1


# ----------------------------------------------------------------------------------------
# config.json

def rope_fields(a, spelling, neox=False):
    """Rotary keys in transformers 5 (rope_parameters) or older (rope_theta/rope_scaling, or
    Pythia's rotary_pct/rotary_emb_base) spelling."""
    scaling = None
    if a.rope_scaling == "llama3":
        scaling = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"}
    elif a.rope_scaling and a.rope_scaling.startswith("linear:"):
        scaling = {"factor": float(a.rope_scaling.split(":")[1]), "rope_type": "linear"}
    if spelling == "v5":
        rp = {"rope_theta": a.theta, "rope_type": "default"}
        if neox:
            rp["partial_rotary_factor"] = a.rotary_fraction
        if scaling:
            rp.update(scaling)
        return {"rope_parameters": rp}
    if neox:
        return {"rotary_emb_base": a.theta, "rotary_pct": a.rotary_fraction}
    return {"rope_scaling": scaling, "rope_theta": a.theta}


def make_config(a, template, vocab):
    """config.json as save_pretrained writes it for a.arch, in a.spelling."""
    dtype_key = "dtype" if a.spelling == "v5" else "torch_dtype"
    dtype_name = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[a.storage]
    version = "5.0.0" if a.spelling == "v5" else "4.57.1"
    c = {"architectures": [ARCHITECTURE[a.arch]], "model_type": a.arch,
         "bos_token_id": template.get("bos_token_id"), "eos_token_id": template.get("eos_token_id"),
         dtype_key: dtype_name, "initializer_range": 0.02, "transformers_version": version,
         "use_cache": True, "vocab_size": vocab}
    if "pad_token_id" in template:
        c["pad_token_id"] = template["pad_token_id"]
    if a.arch == "gpt2":
        c.update({"activation_function": a.act or "gelu_new", "n_embd": a.hidden, "n_head": a.heads,
                  "n_inner": a.inter, "n_layer": a.layers, "n_positions": a.positions, "layer_norm_epsilon": a.eps,
                  "scale_attn_weights": True, "scale_attn_by_inverse_layer_idx": False,
                  "reorder_and_upcast_attn": False, "attn_pdrop": 0.1, "embd_pdrop": 0.1, "resid_pdrop": 0.1,
                  "tie_word_embeddings": a.tied})
    elif a.arch == "gpt_neox":
        c.update({"hidden_act": a.act or "gelu", "hidden_size": a.hidden, "intermediate_size": a.inter,
                  "layer_norm_eps": a.eps, "max_position_embeddings": a.positions, "num_attention_heads": a.heads,
                  "num_hidden_layers": a.layers, "use_parallel_residual": a.parallel_residual,
                  "attention_bias": a.attention_bias, "tie_word_embeddings": a.tied})
        c.update(rope_fields(a, a.spelling, neox=True))
    else:
        c.update({"hidden_act": a.act or ("gelu_pytorch_tanh" if a.arch == "gemma" else "silu"),
                  "hidden_size": a.hidden, "intermediate_size": a.inter, "max_position_embeddings": a.positions,
                  "num_attention_heads": a.heads, "num_hidden_layers": a.layers, "num_key_value_heads": a.kv_heads,
                  "rms_norm_eps": a.eps, "tie_word_embeddings": a.tied, "attention_dropout": 0.0})
        if a.head_dim is not None:
            c["head_dim"] = a.head_dim
        if a.arch in ("llama", "qwen3", "gemma"):
            c["attention_bias"] = a.attention_bias
        if a.arch == "llama":
            c.update({"mlp_bias": a.mlp_bias, "pretraining_tp": 1})
        if a.arch == "gemma" and a.spelling == "v4":
            c["hidden_activation"] = c["hidden_act"]
        if a.arch in ("qwen2", "qwen3"):
            c.update({"use_sliding_window": False, "sliding_window": 4096 if a.arch == "qwen2" else None,
                      "max_window_layers": a.layers})
        if a.arch == "mistral":
            c["sliding_window"] = 4096
        c.update(rope_fields(a, a.spelling))
    return dict(sorted(c.items()))


# ----------------------------------------------------------------------------------------
# weights

class Init:
    """Seeded random tensors shaped like the fixture's: input-side projections of std 1/√in,
    output projections smaller (0.14/√in), norms 1 ± 0.1 (Gemma's offsets 0 ± 0.1), biases
    0 ± 0.1, embeddings 0.12."""

    def __init__(self, seed):
        self.rng = np.random.Generator(np.random.PCG64(seed))

    def normal(self, shape, std):
        # float32 draws: a 0.5B-parameter benchmark folder stays at 4 bytes a weight
        a = self.rng.standard_normal(shape, dtype=np.float32)
        a *= np.float32(std)
        return a

    def proj(self, out, inp, small=False):
        return self.normal((out, inp), (0.14 if small else 1.0) / np.sqrt(inp))

    def norm(self, n, offset=False):
        return self.normal((n,), 0.1) + np.float32(0.0 if offset else 1.0)

    def bias(self, n):
        return self.normal((n,), 0.1)


def gpt2_weights(a, vocab, r):
    D, I, w = a.hidden, a.inter or 4 * a.hidden, {}
    w["transformer.wte.weight"] = r.normal((vocab, D), 0.12)
    w["transformer.wpe.weight"] = r.normal((a.positions, D), 0.12)
    for l in range(a.layers):
        p = f"transformer.h.{l}."
        w[p + "ln_1.weight"], w[p + "ln_1.bias"] = r.norm(D), r.bias(D)
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = r.proj(3 * D, D).T.copy(), r.bias(3 * D)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = r.proj(D, D, True).T.copy(), r.bias(D)
        w[p + "ln_2.weight"], w[p + "ln_2.bias"] = r.norm(D), r.bias(D)
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = r.proj(I, D).T.copy(), r.bias(I)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = r.proj(D, I, True).T.copy(), r.bias(D)
    w["transformer.ln_f.weight"], w["transformer.ln_f.bias"] = r.norm(D), r.bias(D)
    if not a.tied:
        w["lm_head.weight"] = r.normal((vocab, D), 0.12)
    return w


def neox_weights(a, vocab, r):
    D, I, w = a.hidden, a.inter, {}
    w["gpt_neox.embed_in.weight"] = r.normal((vocab, D), 0.3)
    for l in range(a.layers):
        p = f"gpt_neox.layers.{l}."
        for n in ("input_layernorm", "post_attention_layernorm"):
            w[p + n + ".weight"], w[p + n + ".bias"] = r.norm(D), r.bias(D)
        w[p + "attention.query_key_value.weight"] = r.proj(3 * D, D)
        w[p + "attention.dense.weight"] = r.proj(D, D, True)
        if a.attention_bias:
            w[p + "attention.query_key_value.bias"], w[p + "attention.dense.bias"] = r.bias(3 * D), r.bias(D)
        w[p + "mlp.dense_h_to_4h.weight"], w[p + "mlp.dense_h_to_4h.bias"] = r.proj(I, D), r.bias(I)
        w[p + "mlp.dense_4h_to_h.weight"], w[p + "mlp.dense_4h_to_h.bias"] = r.proj(D, I, True), r.bias(D)
    w["gpt_neox.final_layer_norm.weight"], w["gpt_neox.final_layer_norm.bias"] = r.norm(D), r.bias(D)
    if not a.tied:
        w["embed_out.weight"] = r.normal((vocab, D), 0.1)
    return w


def llama_weights(a, vocab, r):
    D, I, w = a.hidden, a.inter, {}
    hd = a.head_dim or D // a.heads
    gemma = a.arch == "gemma"
    qkv_bias = a.arch == "qwen2" or (a.attention_bias and a.arch != "mistral")
    o_bias = a.attention_bias and a.arch in ("llama", "qwen3", "gemma")
    w["model.embed_tokens.weight"] = r.normal((vocab, D), 0.09 if gemma else 0.12)
    for l in range(a.layers):
        p = f"model.layers.{l}."
        w[p + "input_layernorm.weight"] = r.norm(D, offset=gemma)
        for n, rows in (("q_proj", a.heads * hd), ("k_proj", a.kv_heads * hd), ("v_proj", a.kv_heads * hd)):
            w[p + f"self_attn.{n}.weight"] = r.proj(rows, D)
            if qkv_bias:
                w[p + f"self_attn.{n}.bias"] = r.bias(rows) * np.float32(2.0)
        if a.arch == "qwen3":
            w[p + "self_attn.q_norm.weight"], w[p + "self_attn.k_norm.weight"] = r.norm(hd), r.norm(hd)
        w[p + "self_attn.o_proj.weight"] = r.proj(D, a.heads * hd, True)
        if o_bias:
            w[p + "self_attn.o_proj.bias"] = r.bias(D)
        w[p + "post_attention_layernorm.weight"] = r.norm(D, offset=gemma)
        w[p + "mlp.gate_proj.weight"], w[p + "mlp.up_proj.weight"] = r.proj(I, D), r.proj(I, D)
        w[p + "mlp.down_proj.weight"] = r.proj(D, I, True)
        if a.mlp_bias:
            for n, size in (("gate_proj", I), ("up_proj", I), ("down_proj", D)):
                w[p + f"mlp.{n}.bias"] = r.bias(size)
    w["model.norm.weight"] = r.norm(D, offset=gemma)
    if not a.tied:
        w["lm_head.weight"] = r.normal((vocab, D), 0.12)
    return w


def make_weights(a, vocab):
    r = Init(a.seed)
    maker = {"gpt2": gpt2_weights, "gpt_neox": neox_weights}.get(a.arch, llama_weights)
    w = maker(a, vocab, r)
    if a.round_bf16:  # the values BF16 storage keeps, stored as F32
        w = {k: (hf_eager.bf16_round(v).astype(np.uint32) << 16).view(np.float32).reshape(v.shape)
             for k, v in w.items()}
    return w


def write_weights(folder, w, storage, shards):
    """model.safetensors, or `shards` files model-0000i-of-0000N.safetensors (consecutive
    names, about equal sizes) and model.safetensors.index.json."""
    if shards <= 1:
        hf_eager.write_safetensors(os.path.join(folder, "model.safetensors"), w, storage)
        return
    names = sorted(w)
    total = sum(w[n].size for n in names)
    groups, acc = [[] for _ in range(shards)], 0
    for n in names:
        groups[min(shards - 1, acc * shards // total)].append(n)
        acc += w[n].size
    weight_map, size = {}, 0
    for i, group in enumerate(groups):
        fname = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        size += hf_eager.write_safetensors(os.path.join(folder, fname), {n: w[n] for n in group}, storage)
        weight_map.update({n: fname for n in group})
    index = {"metadata": {"total_parameters": int(total), "total_size": int(size)},
             "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(folder, "model.safetensors.index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=2)
        f.write("\n")


# ----------------------------------------------------------------------------------------
# sentences

def node_sentences(tokenizer_json, texts):
    """The texts through the npm tokenizers package (bench/hf_tokenize.js); None when node or
    the package is missing."""
    if not texts or shutil.which("node") is None:
        return None
    p = subprocess.run(["node", os.path.join(HERE, "hf_tokenize.js"), tokenizer_json, "-"],
                       input="\n".join(texts) + "\n", capture_output=True, text=True)
    if p.returncode != 0:
        if "Cannot find module" in p.stderr:
            return None
        raise RuntimeError("hf_tokenize.js failed: " + p.stderr.strip())
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def sentences_for(a, src):
    exp = json.load(open(os.path.join(src, "expected.json"), encoding="utf-8"))
    sents = [{k: s[k] for k in ("text", "input_ids", "tokens", "offsets")} for s in exp["sentences"]]
    texts = EXTRA_TEXTS if a.extra_texts is None else [
        l for l in open(a.extra_texts, encoding="utf-8").read().splitlines() if l]
    extra = None if a.no_node else node_sentences(os.path.join(src, "tokenizer.json"), texts)
    if extra is None and texts and not a.no_node:
        print("hf_random_folder: npm tokenizers not installed (scripts/setup-bench.sh); "
              "the fixture's sentences only", file=sys.stderr)
    return sents + (extra or [])


# ----------------------------------------------------------------------------------------

def defaults(a):
    a.attention_bias = (a.attention_bias == "on") if a.attention_bias else a.arch == "gpt_neox"
    if a.layers is None:
        a.layers = 2
    if a.hidden is None:
        a.hidden = 64 if a.arch == "gpt_neox" else 48
    if a.heads is None:
        a.heads = 4
    if a.kv_heads is None:
        a.kv_heads = a.heads
    if a.inter is None and a.arch != "gpt2":
        a.inter = 2 * a.hidden
    if a.eps is None:
        a.eps = 1e-5 if a.arch in ("gpt2", "gpt_neox", "llama", "mistral") else 1e-6
    if a.theta is None:
        a.theta = 1000000.0 if a.arch in ("qwen2", "qwen3") else 10000.0
    if a.tied is None:
        a.tied = a.arch in ("gpt2", "gemma")
    if a.positions is None:
        a.positions = 128 if a.arch == "gpt2" else 8192
    if a.arch in ("gpt2", "gpt_neox") and (a.kv_heads != a.heads or a.head_dim is not None):
        sys.exit("hf_random_folder: GPT-2 and GPT-NeoX have no kv heads or head_dim of their own")
    if a.arch in ("gpt2", "gpt_neox") and a.hidden % a.heads:
        sys.exit("hf_random_folder: hidden must be a multiple of heads")
    if a.arch == "gpt_neox" and int(a.hidden // a.heads * a.rotary_fraction) % 2:
        sys.exit("hf_random_folder: head_dim × rotary fraction must be even (the library's rotate_half)")
    if a.heads % a.kv_heads:
        sys.exit("hf_random_folder: heads must be a multiple of kv heads")


def build(a):
    defaults(a)
    src = os.path.join(a.fixtures, a.tokenizer_from or TOKENIZER_FOLDER[a.arch])
    template = json.load(open(os.path.join(src, "config.json"), encoding="utf-8"))
    tok_size = tokenizer_size(os.path.join(src, "tokenizer.json"))
    vocab = a.vocab or tok_size
    if a.pad_vocab:
        vocab = -(-vocab // a.pad_vocab) * a.pad_vocab
    if vocab < tok_size:
        sys.exit(f"hf_random_folder: vocab {vocab} is smaller than the tokenizer's {tok_size}")
    os.makedirs(a.out, exist_ok=True)
    for n in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        shutil.copyfile(os.path.join(src, n), os.path.join(a.out, n))
    with open(os.path.join(a.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(make_config(a, template, vocab), f, indent=2)
        f.write("\n")
    write_weights(a.out, make_weights(a, vocab), a.storage, a.shards)
    if a.no_expected:
        return
    sents = sentences_for(a, src)
    abl = "auto" if a.ablations == "auto" else hf_eager.parse_ablations(a.ablations)
    doc = hf_eager.expected_document(a.out, sents, abl, a.seed)
    with open(os.path.join(a.out, "expected.json"), "w", encoding="utf-8") as f:
        f.write(hf_eager.dumps(doc))


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--arch", required=True, choices=sorted(ARCHITECTURE))
    ap.add_argument("--fixtures", default=FIXTURES_DEFAULT, help="../shared/fixtures/hf-decoders-reference")
    ap.add_argument("--tokenizer-from", default=None, help="fixture folder name (default: the architecture's)")
    for n in ("layers", "hidden", "heads", "kv-heads", "head-dim", "inter", "positions", "vocab", "pad-vocab"):
        ap.add_argument("--" + n, type=int, default=None)
    ap.add_argument("--eps", type=float, default=None)
    ap.add_argument("--theta", type=float, default=None)
    ap.add_argument("--rotary-fraction", type=float, default=0.25, help="GPT-NeoX")
    ap.add_argument("--rope-scaling", default=None, help="llama3 (Llama-3.1: factor 8, low 1, high 4, original 8192) or linear:F")
    ap.add_argument("--act", default=None, help="hidden_act / activation_function (default: the architecture's)")
    ap.add_argument("--tied", dest="tied", action="store_true", default=None)
    ap.add_argument("--untied", dest="tied", action="store_false")
    ap.add_argument("--no-parallel-residual", dest="parallel_residual", action="store_false", default=True)
    ap.add_argument("--attention-bias", choices=("on", "off"), default=None,
                    help="attention_bias: Llama/Qwen3/Gemma q,k,v,o biases (default off); GPT-NeoX (default on)")
    ap.add_argument("--mlp-bias", action="store_true", help="Llama")
    ap.add_argument("--spelling", choices=("v4", "v5"), default="v5", help="config keys of transformers 5 or 4.x")
    ap.add_argument("--shards", type=int, default=1)
    ap.add_argument("--storage", choices=("F32", "F16", "BF16"), default="F32")
    ap.add_argument("--round-bf16", action="store_true", help="round every weight to BF16 (stored as --storage)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extra-texts", default=None, help="file of sentences, one a line (default: a built-in four)")
    ap.add_argument("--no-node", action="store_true", help="the fixture's sentences only")
    ap.add_argument("--ablations", default="auto", help="auto or L:H,... (0-based; H * = whole layer)")
    ap.add_argument("--no-expected", action="store_true", help="weights only (benchmark folders)")
    return ap


def main(argv=None):
    build(parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
