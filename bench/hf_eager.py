#!/usr/bin/env python3
"""An eager PyTorch forward of the decoder-only language models TreeLens reads from Hugging
Face folders (GPT-2, GPT-NeoX/Pythia, Llama, Mistral, Qwen2, Qwen3, Gemma), written from the
fixture README (../shared/fixtures/hf-decoders-reference/README.md) and the library's
modeling code (modeling_gpt2.py, modeling_gpt_neox.py, modeling_llama.py, modeling_mistral.py,
modeling_qwen2.py, modeling_qwen3.py, modeling_gemma.py), eval mode, attn_implementation
"eager": the same torch ops in the same order (nn.Linear = F.linear, GPT-2's Conv1D =
torch.addmm, matmul scores, an additive finfo.min mask, softmax in float32, matmul with the
values), no torch.compile, no scaled_dot_product_attention, no fused kernels, no KV cache.
It is an independent reference for folders of other sizes (bench/hf_random_folder.py) and
the PyTorch side of the decoder benchmark (bench/hf_decoder_bench.py). Never used by
TreeLens at run time. Standard library + numpy + torch only.

    hf_eager.py expected FOLDER --ids-from IDS.json [-o OUT.json] [--ablations auto|L:H,...]
        FOLDER's expected.json layout (README "expected.json") computed here for the
        sentences of IDS.json (an expected.json, or JSON Lines of {"text", "input_ids",
        "tokens", "offsets"}, e.g. from bench/hf_tokenize.js)
    hf_eager.py compare FOLDER [--expected E.json]
        every tensor of E.json (default FOLDER/expected.json) recomputed from its
        input_ids; prints the largest |diff| per tensor as JSON; exit 1 beyond tolerance_abs
    hf_eager.py bench FOLDER --ids IDS.jsonl --batch B --threads N [--no-attention]
        one timed pass over the sentences (one JSON line; bench/hf_decoder_bench.py runs it)

Conventions (README): float32 weights and arithmetic (F16/BF16 storage is widened to
float32, as from_pretrained(torch_dtype=float32) does); hidden_states has layers + 1
entries, the last one after the final norm; next-token log-probabilities in float64 from the
float32 logits; head ablation with 0-based layer and head (head None: the whole layer).
"""
import argparse
import json
import math
import os
import random
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

# ----------------------------------------------------------------------------------------
# safetensors: 8-byte little-endian header length, JSON header, data (offsets relative to
# the end of the header). F32/F16/BF16 are read into float32 tensors.

_NP_DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2"), "F64": np.dtype("<f8")}


def read_safetensors(path):
    """{name: float32 torch tensor} and {name: stored dtype}. Reads one tensor at a time
    into its float32 buffer (F32 straight into it; F16/BF16 widened), so the peak is about
    the float32 weights, as with the library's loader. Raises ValueError on a malformed
    file or an unsupported dtype."""
    tensors, dtypes = {}, {}
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ValueError(f"{path}: shorter than a safetensors header")
        n = struct.unpack("<Q", head)[0]
        header = json.loads(f.read(n).decode("utf-8"))
        base = 8 + n
        for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0] if kv[0] != "__metadata__" else -1):
            if name == "__metadata__":
                continue
            dtype = info["dtype"]
            if dtype not in _NP_DTYPES:
                raise ValueError(f"{path}: {name}: unsupported dtype {dtype}")
            start, end = info["data_offsets"]
            count = (end - start) // _NP_DTYPES[dtype].itemsize
            if count != int(np.prod(info["shape"], dtype=np.int64)):
                raise ValueError(f"{path}: {name}: {end - start} bytes for shape {info['shape']}")
            f.seek(base + start)
            out = np.empty(count, dtype=np.float32)
            if dtype == "F32":
                got = f.readinto(memoryview(out).cast("B"))
            else:
                raw = np.frombuffer(f.read(end - start), dtype=_NP_DTYPES[dtype])
                got = raw.nbytes
                if dtype == "BF16":  # the high half of a float32
                    np.left_shift(raw, 16, out=out.view(np.uint32), dtype=np.uint32)
                else:
                    out[:] = raw
                del raw
            if got != end - start:
                raise ValueError(f"{path}: {name}: file ends inside the tensor")
            tensors[name] = torch.from_numpy(out.reshape(info["shape"]))
            dtypes[name] = dtype
    return tensors, dtypes


def bf16_round(a):
    """float32 array -> uint16 BF16 bit patterns, rounded to nearest even (as torch's
    .to(torch.bfloat16)); finite values only."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    # no overflow: the largest finite pattern 0xFF7FFFFF + 0x8000 stays below 2^32
    return ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)


def write_safetensors(path, tensors, dtype="F32"):
    """Writes {name: float32 numpy array} stored as dtype (F32, F16 or BF16), header
    space-padded to a multiple of 8 and `"__metadata__": {"format": "pt"}`, as
    save_pretrained does. Returns the number of data bytes."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype=np.float32)
        if dtype == "F32":
            blob = a.astype("<f4").tobytes()
        elif dtype == "F16":
            blob = a.astype("<f2").tobytes()
        elif dtype == "BF16":
            blob = bf16_round(a).astype("<u2").tobytes()
        else:
            raise ValueError(f"unsupported storage dtype {dtype}")
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
    return offset


def load_weights(folder):
    """All tensors of model.safetensors, or of the shards model.safetensors.index.json
    names ({"weight_map": {name: shard}}), as float32; and their stored dtypes."""
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        weight_map = json.load(open(index, encoding="utf-8"))["weight_map"]
        tensors, dtypes = {}, {}
        for shard in sorted(set(weight_map.values())):
            t, d = read_safetensors(os.path.join(folder, shard))
            tensors.update(t)
            dtypes.update(d)
        missing = [n for n in weight_map if n not in tensors]
        if missing:
            raise ValueError(f"{folder}: index names tensors its shards lack: {missing[:3]}")
        return tensors, dtypes
    return read_safetensors(os.path.join(folder, "model.safetensors"))


# ----------------------------------------------------------------------------------------
# config.json, both generations of key spellings (README "config.json: which keys carry what")

_LLAMA_LIKE = ("llama", "mistral", "qwen2", "qwen3", "gemma")


def _rope_settings(raw, model_type):
    """(theta, rotary fraction, scaling dict or None) from rope_parameters (transformers 5)
    or rope_theta / rope_scaling / rotary_emb_base / rotary_pct (older)."""
    rp = raw.get("rope_parameters") or {}
    if model_type == "gpt_neox":
        theta = rp.get("rope_theta", raw.get("rotary_emb_base", raw.get("rope_theta", 10000.0)))
        fraction = rp.get("partial_rotary_factor", raw.get("partial_rotary_factor", raw.get("rotary_pct", 0.25)))
    else:
        theta = rp.get("rope_theta", raw.get("rope_theta", 10000.0))
        fraction = 1.0
    scaling = rp if rp else (raw.get("rope_scaling") or {})
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    return float(theta), float(fraction), (None if kind == "default" else dict(scaling, rope_type=kind))


class Config:
    """The quantities of README's key table, read as the library reads them."""

    def __init__(self, raw):
        self.raw = raw
        self.model_type = mt = raw["model_type"]
        self.architecture = (raw.get("architectures") or [None])[0]
        if mt == "gpt2":
            self._gpt2(raw)
        elif mt == "gpt_neox":
            self._neox(raw)
        elif mt in _LLAMA_LIKE:
            self._llama(raw)
        else:
            raise ValueError(f"model_type {mt!r} is not a decoder this reference implements")
        self.vocab = int(raw["vocab_size"])

    def _gpt2(self, raw):
        self.hidden, self.layers, self.heads = raw["n_embd"], raw["n_layer"], raw["n_head"]
        self.kv_heads, self.head_dim = self.heads, self.hidden // self.heads
        self.inter = raw.get("n_inner") or 4 * self.hidden
        self.eps = raw.get("layer_norm_epsilon", 1e-5)
        self.act = raw.get("activation_function", "gelu_new")
        self.tied = raw.get("tie_word_embeddings", True)
        self.scale_attn = raw.get("scale_attn_weights", True)
        self.inverse_layer_scale = raw.get("scale_attn_by_inverse_layer_idx", False)
        self.positions = raw.get("n_positions", 1024)
        self.rotary_dims, self.theta, self.rope_scaling = 0, None, None

    def _neox(self, raw):
        self.hidden, self.layers, self.heads = raw["hidden_size"], raw["num_hidden_layers"], raw["num_attention_heads"]
        self.kv_heads, self.head_dim = self.heads, self.hidden // self.heads
        self.inter = raw["intermediate_size"]
        self.eps = raw.get("layer_norm_eps", 1e-5)
        self.act = raw.get("hidden_act", "gelu")
        self.tied = raw.get("tie_word_embeddings", False)
        self.parallel = raw.get("use_parallel_residual", True)
        self.bias = raw.get("attention_bias", True)
        self.theta, fraction, self.rope_scaling = _rope_settings(raw, "gpt_neox")
        self.rotary_dims = int(self.head_dim * fraction)
        if self.rotary_dims % 2:
            raise ValueError(f"{self.rotary_dims} rotary dims: the library's rotate_half needs an even number")

    def _llama(self, raw):
        mt = raw["model_type"]
        self.hidden, self.layers, self.heads = raw["hidden_size"], raw["num_hidden_layers"], raw["num_attention_heads"]
        self.kv_heads = raw.get("num_key_value_heads") or self.heads
        self.head_dim = raw.get("head_dim") or self.hidden // self.heads
        self.inter = raw["intermediate_size"]
        self.eps = raw.get("rms_norm_eps", 1e-6)
        if mt == "gemma" and "hidden_activation" in raw:  # transformers 4.x Gemma read this key
            self.act = raw["hidden_activation"] or "gelu_pytorch_tanh"
        else:
            self.act = raw.get("hidden_act", "gelu_pytorch_tanh" if mt == "gemma" else "silu")
        self.tied = raw.get("tie_word_embeddings", mt == "gemma")
        attention_bias = raw.get("attention_bias", False) if mt != "mistral" else False
        self.qkv_bias = True if mt == "qwen2" else attention_bias
        self.o_bias = False if mt == "qwen2" else attention_bias
        self.mlp_bias = raw.get("mlp_bias", False) if mt == "llama" else False
        self.qk_norm = mt == "qwen3"
        self.gemma_norm = mt == "gemma"
        self.theta, _, self.rope_scaling = _rope_settings(raw, mt)
        self.rotary_dims = self.head_dim
        self.sliding_window = raw.get("sliding_window") if mt == "mistral" else None
        if mt in ("qwen2", "qwen3") and raw.get("use_sliding_window"):
            raise ValueError("use_sliding_window true is not implemented here")


def load_config(folder):
    return Config(json.load(open(os.path.join(folder, "config.json"), encoding="utf-8")))


# ----------------------------------------------------------------------------------------
# The pieces of the modeling code

def activation(name):
    if name in ("gelu_new", "gelu_pytorch_tanh", "gelu_fast"):
        if name == "gelu_new":  # NewGELUActivation, written out as the library does
            return lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
        if name == "gelu_fast":
            return lambda x: 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)))
        return lambda x: F.gelu(x, approximate="tanh")
    table = {"gelu": F.gelu, "silu": F.silu, "swish": F.silu, "relu": F.relu}
    if name not in table:
        raise ValueError(f"activation {name!r} is not implemented here")
    return table[name]


def rms_norm(x, w, eps, gemma=False):
    """LlamaRMSNorm (w ⊙ normalized, in float32) or GemmaRMSNorm ((1 + w) ⊙ normalized)."""
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    if gemma:
        return (h * (1.0 + w.float())).type_as(x)
    return w * h.to(x.dtype)


def inverse_frequencies(cfg):
    """inv_freq of the rotary embedding, float32 as the library computes it, with the
    "linear" and "llama3" rope scalings (_compute_llama3_parameters)."""
    r = cfg.rotary_dims
    inv_freq = 1.0 / (cfg.theta ** (torch.arange(0, r, 2, dtype=torch.int64).to(dtype=torch.float) / r))
    s = cfg.rope_scaling
    if s is None:
        return inv_freq
    kind = s["rope_type"]
    if kind == "linear":
        return inv_freq / s["factor"]
    if kind != "llama3":
        raise ValueError(f"rope_type {kind!r} is not implemented here")
    factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, scaled)


def rotary_tables(inv_freq, positions):
    """cos, sin [T, r]: the float32 product position × inv_freq, duplicated (emb = cat(freqs, freqs))."""
    freqs = (inv_freq[:, None].float() @ positions[None, :].float()).transpose(0, 1)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x, cos, sin):
    """x [B, H, T, r]; cos/sin [T, r] (the library's unsqueeze(1) over heads)."""
    return (x * cos) + (rotate_half(x) * sin)


def attention_bias(valid, sliding_window=None):
    """The additive mask [B, 1, T, T]: 0 where query i may read key j (j <= i, key not
    padding, within the sliding window), finfo(float32).min elsewhere."""
    B, T = valid.shape
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    allowed = (j <= i)
    if sliding_window is not None:
        allowed = allowed & (i - j < sliding_window)
    allowed = allowed[None, None] & valid[:, None, None, :].bool()
    return torch.zeros(B, 1, T, T).masked_fill(~allowed, torch.finfo(torch.float32).min)


def repeat_kv(x, n_rep):
    """[B, kv, T, d] -> [B, kv * n_rep, T, d], every kv head repeated n_rep times in place."""
    if n_rep == 1:
        return x
    B, kv, T, d = x.shape
    return x[:, :, None, :, :].expand(B, kv, n_rep, T, d).reshape(B, kv * n_rep, T, d)


def eager_attention(q, k, v, bias, scaling, n_rep, divide=None):
    """eager_attention_forward: probabilities [B, H, T, T] and head outputs [B, H, T, d].
    GPT-2 divides by a tensor √d instead of multiplying by d^-0.5 (`divide`)."""
    k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
    scores = torch.matmul(q, k.transpose(2, 3))
    scores = scores / divide if divide is not None else scores * scaling
    scores = scores + bias
    probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    return probs, torch.matmul(probs, v)


def zero_heads(out, layer, ablate):
    """Zero ablation: the head outputs [B, H, T, d] of the ablated heads of this layer set
    to 0 before the output projection (head None: every head)."""
    heads = [h for (l, h) in ablate if l == layer]
    if not heads:
        return out
    out = out.clone()
    for h in heads:
        if h is None:
            out.zero_()
        else:
            out[:, h] = 0
    return out


def merge_heads(out):
    B, H, T, d = out.shape
    return out.transpose(1, 2).contiguous().reshape(B, T, H * d)


def split_heads(x, heads, d):
    B, T, _ = x.shape
    return x.view(B, T, heads, d).transpose(1, 2)


# ----------------------------------------------------------------------------------------
# The networks

class Decoder:
    """A folder's network: config + float32 weights. forward() is the library's eager
    forward in eval mode. Raises ValueError when a weight the config needs is missing."""

    def __init__(self, folder, cfg=None, weights=None, projections="fp32"):
        self.folder = folder
        # "bf16": TreeLens's --precision bf16 scheme for the blocks' projections (q, k, v, attention
        # output, MLP): input and weight rounded to bfloat16, the product from torch in bfloat16,
        # widened to float32, then the float32 bias added; everything else float32.
        if projections not in ("fp32", "bf16"):
            raise ValueError(f"projections {projections!r}: fp32 or bf16")
        self.bf16 = projections == "bf16"
        self.cfg = cfg or load_config(folder)
        if weights is None:
            weights, self.stored_dtypes = load_weights(folder)
        else:
            self.stored_dtypes = {}
        self.w = weights
        c = self.cfg
        self.prefix = {"gpt2": "transformer.", "gpt_neox": "gpt_neox."}.get(c.model_type, "model.")
        if c.model_type == "gpt2" and not any(n.startswith("transformer.") for n in weights):
            self.prefix = ""  # the original OpenAI conversion stores GPT-2 without the prefix
        self.act = activation(c.act)
        self.inv_freq = inverse_frequencies(c) if c.rotary_dims else None
        self.head_weight = self._head()

    def p(self, name):
        key = self.prefix + name
        if key not in self.w:
            raise ValueError(f"{self.folder}: tensor {key} missing")
        return self.w[key]

    def opt(self, name):
        return self.w.get(self.prefix + name)

    def _head(self):
        c = self.cfg
        embed = {"gpt2": "wte.weight", "gpt_neox": "embed_in.weight"}.get(c.model_type, "embed_tokens.weight")
        if c.tied:
            return self.p(embed)
        name = "embed_out.weight" if c.model_type == "gpt_neox" else "lm_head.weight"
        if name not in self.w:
            raise ValueError(f"{self.folder}: untied head {name} missing")
        return self.w[name]

    # --- GPT-2 -----------------------------------------------------------------------
    def _linear(self, x, w, b):
        """F.linear, or the bf16 scheme (see __init__)."""
        if not self.bf16:
            return F.linear(x, w, b)
        y = F.linear(x.bfloat16(), w.bfloat16()).float()
        return y if b is None else y + b

    def _conv1d(self, x, name):
        w, b = self.p(name + ".weight"), self.p(name + ".bias")
        B, T, _ = x.shape
        if self.bf16:
            return (torch.mm(x.reshape(-1, x.shape[-1]).bfloat16(), w.bfloat16()).float() + b).view(B, T, w.shape[1])
        return torch.addmm(b, x.reshape(-1, x.shape[-1]), w).view(B, T, w.shape[1])

    def _gpt2_block(self, x, l, bias, ablate, keep):
        c, pre = self.cfg, f"h.{l}."
        a = F.layer_norm(x, (c.hidden,), self.p(pre + "ln_1.weight"), self.p(pre + "ln_1.bias"), c.eps)
        q, k, v = self._conv1d(a, pre + "attn.c_attn").split(c.hidden, dim=2)
        q, k, v = (split_heads(t, c.heads, c.head_dim) for t in (q, k, v))
        divisor = torch.full([], c.head_dim ** 0.5, dtype=q.dtype) if c.scale_attn else torch.full([], 1.0)
        if c.inverse_layer_scale:
            divisor = divisor * float(l + 1)
        probs, out = eager_attention(q, k, v, bias, None, 1, divide=divisor)
        keep(probs)
        x = x + self._conv1d(merge_heads(zero_heads(out, l, ablate)), pre + "attn.c_proj")
        m = F.layer_norm(x, (c.hidden,), self.p(pre + "ln_2.weight"), self.p(pre + "ln_2.bias"), c.eps)
        return x + self._conv1d(self.act(self._conv1d(m, pre + "mlp.c_fc")), pre + "mlp.c_proj")

    # --- GPT-NeoX --------------------------------------------------------------------
    def _neox_block(self, x, l, bias, cos, sin, ablate, keep):
        c, pre = self.cfg, f"layers.{l}."
        ln = lambda t, n: F.layer_norm(t, (c.hidden,), self.p(pre + n + ".weight"), self.p(pre + n + ".bias"), c.eps)
        lin = lambda t, n: self._linear(t, self.p(pre + n + ".weight"), self.opt(pre + n + ".bias"))
        B, T, _ = x.shape
        qkv = lin(ln(x, "input_layernorm"), "attention.query_key_value")
        qkv = qkv.view(B, T, c.heads, 3 * c.head_dim).transpose(1, 2)
        q, k, v = qkv.chunk(3, dim=-1)
        r = c.rotary_dims
        q = torch.cat((apply_rotary(q[..., :r], cos, sin), q[..., r:]), dim=-1)
        k = torch.cat((apply_rotary(k[..., :r], cos, sin), k[..., r:]), dim=-1)
        probs, out = eager_attention(q, k, v, bias, c.head_dim ** -0.5, 1)
        keep(probs)
        attn = lin(merge_heads(zero_heads(out, l, ablate)), "attention.dense")
        mlp = lambda t: lin(self.act(lin(t, "mlp.dense_h_to_4h")), "mlp.dense_4h_to_h")
        if c.parallel:
            return mlp(ln(x, "post_attention_layernorm")) + attn + x
        attn = attn + x
        return mlp(ln(attn, "post_attention_layernorm")) + attn

    # --- Llama, Mistral, Qwen2, Qwen3, Gemma -------------------------------------------
    def _llama_block(self, x, l, bias, cos, sin, ablate, keep):
        c, pre = self.cfg, f"layers.{l}."
        norm = lambda t, n: rms_norm(t, self.p(pre + n + ".weight"), c.eps, c.gemma_norm)
        lin = lambda t, n: self._linear(t, self.p(pre + n + ".weight"), self.opt(pre + n + ".bias"))
        a = norm(x, "input_layernorm")
        q = split_heads(lin(a, "self_attn.q_proj"), c.heads, c.head_dim)
        k = split_heads(lin(a, "self_attn.k_proj"), c.kv_heads, c.head_dim)
        v = split_heads(lin(a, "self_attn.v_proj"), c.kv_heads, c.head_dim)
        if c.qk_norm:  # Qwen3: RMSNorm over head_dim before rotary
            q = rms_norm(q, self.p(pre + "self_attn.q_norm.weight"), c.eps)
            k = rms_norm(k, self.p(pre + "self_attn.k_norm.weight"), c.eps)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        probs, out = eager_attention(q, k, v, bias, c.head_dim ** -0.5, c.heads // c.kv_heads)
        keep(probs)
        x = x + lin(merge_heads(zero_heads(out, l, ablate)), "self_attn.o_proj")
        m = norm(x, "post_attention_layernorm")
        return x + lin(self.act(lin(m, "mlp.gate_proj")) * lin(m, "mlp.up_proj"), "mlp.down_proj")

    def _check_biases(self):
        """The biases the config implies are stored (a missing one would silently be 0)."""
        c = self.cfg
        if c.model_type in _LLAMA_LIKE:
            need = (["q_proj", "k_proj", "v_proj"] if c.qkv_bias else []) + (["o_proj"] if c.o_bias else [])
            for l in range(c.layers):
                for n in need:
                    self.p(f"layers.{l}.self_attn.{n}.bias")
        if c.model_type == "gpt_neox" and c.bias:
            for l in range(c.layers):
                self.p(f"layers.{l}.attention.query_key_value.bias")
                self.p(f"layers.{l}.attention.dense.bias")

    # --- the whole model -------------------------------------------------------------
    def embed(self, ids):
        c = self.cfg
        if c.model_type == "gpt2":
            T = ids.shape[1]
            if T > c.positions:
                raise ValueError(f"{T} tokens exceed n_positions {c.positions}")
            return F.embedding(ids, self.p("wte.weight")) + F.embedding(torch.arange(T)[None], self.p("wpe.weight"))
        if c.model_type == "gpt_neox":
            return F.embedding(ids, self.p("embed_in.weight"))
        x = F.embedding(ids, self.p("embed_tokens.weight"))
        if c.gemma_norm:  # scaled by √hidden rounded to the activations' dtype
            x = x * torch.tensor(c.hidden ** 0.5, dtype=x.dtype)
        return x

    def final_norm(self, x):
        c = self.cfg
        if c.model_type == "gpt2":
            return F.layer_norm(x, (c.hidden,), self.p("ln_f.weight"), self.p("ln_f.bias"), c.eps)
        if c.model_type == "gpt_neox":
            return F.layer_norm(x, (c.hidden,), self.p("final_layer_norm.weight"), self.p("final_layer_norm.bias"), c.eps)
        return rms_norm(x, self.p("norm.weight"), c.eps, c.gemma_norm)

    @torch.inference_mode()
    def forward(self, ids, valid=None, attentions=True, hidden_states=True, ablate=()):
        """ids [B, T] (long), valid [B, T] (1: a token, 0: right padding). Returns
        {"logits" [B, T, V], "attentions": L × [B, H, T, T] (if asked),
        "hidden_states": L + 1 × [B, T, D] (if asked; the last after the final norm)}.
        ablate: (layer, head or None) pairs, 0-based."""
        c = self.cfg
        B, T = ids.shape
        if valid is None:
            valid = torch.ones(B, T, dtype=torch.long)
        bias = attention_bias(valid, getattr(c, "sliding_window", None))
        cos = sin = None
        if self.inv_freq is not None:
            cos, sin = rotary_tables(self.inv_freq, torch.arange(T))
        kept_attn, kept_hidden = [], []
        keep = kept_attn.append if attentions else (lambda _: None)
        x = self.embed(ids)
        for l in range(c.layers):
            if hidden_states:
                kept_hidden.append(x)
            if c.model_type == "gpt2":
                x = self._gpt2_block(x, l, bias, ablate, keep)
            elif c.model_type == "gpt_neox":
                x = self._neox_block(x, l, bias, cos, sin, ablate, keep)
            else:
                x = self._llama_block(x, l, bias, cos, sin, ablate, keep)
        x = self.final_norm(x)
        if hidden_states:
            kept_hidden.append(x)
        out = {"logits": F.linear(x, self.head_weight)}
        if attentions:
            out["attentions"] = kept_attn
        if hidden_states:
            out["hidden_states"] = kept_hidden
        return out


def next_token_logprobs(logits, ids):
    """log p(ids[t+1] | ids[..t]) for t = 0..T-2, float64 from the float32 logits [T, V]."""
    lp = torch.log_softmax(logits.double(), dim=-1)
    return lp[:-1].gather(1, ids[1:, None]).squeeze(1)


# ----------------------------------------------------------------------------------------
# expected.json: writing (shortest float32 decimals) and computing

class F32:
    """A float32 array written with the shortest decimal that reads back to the same float32."""

    def __init__(self, a):
        self.a = np.asarray(a, dtype=np.float32)
        if not np.all(np.isfinite(self.a)):
            raise ValueError("non-finite value in a tensor")


def _dump(obj, out):
    if isinstance(obj, F32):
        _dump_f32(obj.a, out)
    elif isinstance(obj, dict):
        out.append("{")
        for i, (k, v) in enumerate(obj.items()):
            out.append((", " if i else "") + json.dumps(k) + ": ")
            _dump(v, out)
        out.append("}")
    elif isinstance(obj, (list, tuple)):
        out.append("[")
        for i, v in enumerate(obj):
            if i:
                out.append(", ")
            _dump(v, out)
        out.append("]")
    else:
        out.append(json.dumps(obj, ensure_ascii=False))


def _dump_f32(a, out):
    if a.ndim == 0:
        out.append(str(a[()]))
    elif a.ndim == 1:
        out.append("[" + ",".join(str(x) for x in a) + "]")
    else:
        out.append("[")
        for i in range(a.shape[0]):
            if i:
                out.append(",")
            _dump_f32(a[i], out)
        out.append("]")


def dumps(obj):
    out = []
    _dump(obj, out)
    return "".join(out) + "\n"


def sentence_tensors(model, ids, ablations):
    """One sentence's expected entries (README layout) from input_ids."""
    t = torch.tensor(ids, dtype=torch.long)
    r = model.forward(t[None])
    logits = r["logits"][0]
    lp = next_token_logprobs(logits, t)
    entry = {"attentions": F32(torch.stack([a[0] for a in r["attentions"]]).numpy()),
             "hidden_states": F32(torch.stack([h[0] for h in r["hidden_states"]]).numpy()),
             "logits": F32(logits.numpy()),
             "next_token_logprobs": lp.tolist(),
             "sentence_logprob": float(lp.sum()),
             "ablations": []}
    for layer, head in ablations:
        a = model.forward(t[None], attentions=False, hidden_states=False, ablate=[(layer, head)])["logits"][0]
        alp = next_token_logprobs(a, t)
        entry["ablations"].append({"layer": layer, "head": head, "logits_last": F32(a[-1].numpy()),
                                   "next_token_logprobs": alp.tolist(), "sentence_logprob": float(alp.sum())})
    return entry


def choose_ablations(model, sentences, seed, tries=200):
    """README "Head ablation", the choices: two single heads in two different layers (layer
    order), then one whole layer, seeded, kept only if in every sentence one of the two
    single heads moves sentence_logprob by > 1e-3 and every entry moves logits_last by
    > 1e-3 (the last candidate when none qualifies within `tries`)."""
    c = model.cfg
    rng = random.Random(seed)
    plain = []
    for s in sentences:
        t = torch.tensor(s["input_ids"])[None]
        logits = model.forward(t, attentions=False, hidden_states=False)["logits"][0]
        plain.append((logits[-1], float(next_token_logprobs(logits, t[0]).sum())))
    choice = None
    for _ in range(tries):
        if c.layers >= 2:
            l1, l2 = sorted(rng.sample(range(c.layers), 2))
        else:
            l1 = l2 = 0
        choice = [(l1, rng.randrange(c.heads)), (l2, rng.randrange(c.heads)), (rng.randrange(c.layers), None)]
        if _moves_enough(model, sentences, plain, choice):
            return choice
    print(f"hf_eager: no ablation choice moved every sentence by > 1e-3 in {tries} tries; using {choice}",
          file=sys.stderr)
    return choice


def _moves_enough(model, sentences, plain, choice):
    for s, (last, slp) in zip(sentences, plain):
        t = torch.tensor(s["input_ids"])[None]
        moved = []
        for entry in choice:
            logits = model.forward(t, attentions=False, hidden_states=False, ablate=[entry])["logits"][0]
            if float((logits[-1] - last).abs().max()) <= 1e-3:
                return False
            moved.append(abs(float(next_token_logprobs(logits, t[0]).sum()) - slp))
        if max(moved[:2]) <= 1e-3:
            return False
    return True


def read_id_sentences(path):
    """Sentences with text/input_ids/tokens/offsets from an expected.json ("sentences") or
    JSON Lines (bench/hf_tokenize.js); and the ablation entries an expected.json carries."""
    text = open(path, encoding="utf-8").read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None  # several lines: JSON Lines
    if isinstance(doc, dict) and "sentences" in doc:
        sents = doc["sentences"]
        abl = [(a["layer"], a["head"]) for a in sents[0].get("ablations", [])] if sents else []
        return [{k: s[k] for k in ("text", "input_ids", "tokens", "offsets") if k in s} for s in sents], abl
    return [json.loads(l) for l in text.splitlines() if l.strip()], []


def parse_ablations(spec):
    """"0:2,1:0,0:*" -> [(0, 2), (1, 0), (0, None)]."""
    out = []
    for part in spec.split(","):
        l, h = part.split(":")
        out.append((int(l), None if h in ("*", "null", "None", "") else int(h)))
    return out


def expected_document(folder, sentences, ablations="auto", seed=0, reference=None):
    """The whole expected.json of FOLDER for these sentences (dict with F32 leaves). One
    thread, so that the same folder gives the same bytes on any machine."""
    torch.set_num_threads(1)
    model = Decoder(folder)
    model._check_biases()
    c = model.cfg
    if ablations == "auto":
        ablations = choose_ablations(model, sentences, seed)
    doc = {"reference": reference or ("bench/hf_eager.py: eager torch %s forward written from modeling_%s.py "
                                      "(TreeLens's independent reference for folders of other sizes)"
                                      % (torch.__version__, c.model_type)),
           "tokenizers": "0.23.2", "tolerance_abs": 1e-05, "family": c.model_type,
           "architecture": c.architecture, "dtype": "float32", "sentences": []}
    for s in sentences:
        entry = {k: s[k] for k in ("text", "input_ids", "tokens", "offsets") if k in s}
        entry.update(sentence_tensors(model, s["input_ids"], ablations))
        doc["sentences"].append(entry)
    return doc


# ----------------------------------------------------------------------------------------
# compare: every stored tensor against this implementation

def _maxdiff(a, b):
    """Largest |a - b|; a float32 `a` is compared with `b` read as float32 (the stored
    decimals are the shortest that read back to the same float32, not float64's)."""
    if isinstance(a, np.ndarray) and a.dtype == np.float32:
        b = np.asarray(b, dtype=np.float32)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def compare(folder, expected_path=None):
    """{tensor kind: largest |diff| over sentences}, the tolerance and the per-sentence detail."""
    expected_path = expected_path or os.path.join(folder, "expected.json")
    exp = json.load(open(expected_path, encoding="utf-8"))
    torch.set_num_threads(1)
    sentences = exp["sentences"]
    abl = [(a["layer"], a["head"]) for a in sentences[0]["ablations"]]
    model = Decoder(folder)
    model._check_biases()
    worst = {}
    for s in sentences:
        got = sentence_tensors(model, s["input_ids"], abl)
        pairs = [(k, got[k].a if isinstance(got[k], F32) else got[k], s[k])
                 for k in ("attentions", "hidden_states", "logits", "next_token_logprobs", "sentence_logprob")]
        for i, (ga, ea) in enumerate(zip(got["ablations"], s["ablations"])):
            if (ga["layer"], ga["head"]) != (ea["layer"], ea["head"]):
                raise ValueError("ablation entries differ between sentences")
            for k in ("logits_last", "next_token_logprobs", "sentence_logprob"):
                v = ga[k].a if isinstance(ga[k], F32) else ga[k]
                pairs.append((f"ablations[{i}].{k}", v, ea[k]))
        for k, g, e in pairs:
            worst[k] = max(worst.get(k, 0.0), _maxdiff(g, e))
    return worst, exp.get("tolerance_abs", 1e-5), abl


# ----------------------------------------------------------------------------------------
# bench: one timed pass (bench/hf_decoder_bench.py runs this in a child process)

def vm_hwm_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def bench(folder, ids_path, batch, threads, attentions):
    """One pass over the sentences of ids_path (JSON Lines with input_ids), shortest first in
    batches of `batch` (right padding, as TreeLens's analyze batches them), with `threads`
    intra-op threads: the float32 forward, the attention probabilities kept (or not, as
    output_attentions=False), and every next-token log-probability in float64."""
    torch.set_num_threads(threads)
    t0 = time.monotonic()
    model = Decoder(folder)
    load_s = time.monotonic() - t0
    sents = [json.loads(l)["input_ids"] for l in open(ids_path, encoding="utf-8") if l.strip()]
    order = sorted(range(len(sents)), key=lambda i: len(sents[i]))
    t1 = time.monotonic()
    total_lp, pieces = 0.0, 0
    for start in range(0, len(order), batch):
        group = [sents[i] for i in order[start:start + batch]]
        T = max(len(s) for s in group)
        ids = torch.zeros(len(group), T, dtype=torch.long)
        valid = torch.zeros(len(group), T, dtype=torch.bool)
        for i, s in enumerate(group):
            ids[i, :len(s)] = torch.tensor(s)
            valid[i, :len(s)] = True
        r = model.forward(ids, valid, attentions=attentions, hidden_states=False)
        # log p(next piece), float64 from the float32 logits, on the real positions only
        real = valid[:, 1:]
        rows = r["logits"][:, :-1][real].double()
        lp = rows.gather(1, ids[:, 1:][real][:, None]).squeeze(1) - torch.logsumexp(rows, dim=-1)
        total_lp += float(lp.sum())
        pieces += int(valid.sum())
        if attentions:  # what a caller reads: each sentence's own probabilities
            probs = [[a[i, :, :len(s), :len(s)] for a in r["attentions"]] for i, s in enumerate(group)]
            del probs
        del r, rows, lp
    forward_s = time.monotonic() - t1
    return {"side": "eager-pytorch", "torch": torch.__version__, "threads": torch.get_num_threads(),
            "batch": batch, "attentions": attentions, "sentences": len(sents), "pieces": pieces,
            "load_s": round(load_s, 4), "forward_s": round(forward_s, 4), "logprob_sum": total_lp,
            "vmhwm_kib": vm_hwm_kib()}


# ----------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("expected", help="write FOLDER's expected.json layout for the given ids")
    e.add_argument("folder")
    e.add_argument("--ids-from", required=True, help="expected.json or JSON Lines of {text, input_ids, tokens, offsets}")
    e.add_argument("--ablations", default=None,
                   help="auto (seeded choice, README rule), or L:H,... (0-based, H * = whole layer); "
                        "default: the ids file's entries when it has them, else auto")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("-o", "--output", default="-")
    c = sub.add_parser("compare", help="recompute every tensor of an expected.json; largest |diff| per tensor")
    c.add_argument("folder")
    c.add_argument("--expected", default=None)
    b = sub.add_parser("bench", help="one timed pass over JSON Lines of input_ids")
    b.add_argument("folder")
    b.add_argument("--ids", required=True)
    b.add_argument("--batch", type=int, default=1)
    b.add_argument("--threads", type=int, default=1)
    b.add_argument("--no-attention", action="store_true")
    a = ap.parse_args(argv)
    torch.manual_seed(0)
    if a.cmd == "expected":
        torch.set_num_threads(1)
        sentences, stored = read_id_sentences(a.ids_from)
        abl = a.ablations or ("auto" if not stored else None)
        abl = stored if abl is None else ("auto" if abl == "auto" else parse_ablations(abl))
        text = dumps(expected_document(a.folder, sentences, abl, a.seed))
        if a.output == "-":
            sys.stdout.write(text)
        else:
            with open(a.output, "w", encoding="utf-8") as f:
                f.write(text)
    elif a.cmd == "compare":
        torch.set_num_threads(1)
        worst, tol, abl = compare(a.folder, a.expected)
        ok = all(v <= tol for v in worst.values())
        print(json.dumps({"folder": a.folder, "ok": ok, "tolerance_abs": tol, "ablations": abl, "max_abs_diff": worst}))
        return 0 if ok else 1
    else:
        print(json.dumps(bench(a.folder, a.ids, a.batch, a.threads, not a.no_attention)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
