#!/usr/bin/python3
"""Exports Hugging Face-style PyTorch decoder parts to ONNX the way users do, for the ONNX front
end's fixtures in test/Frontend/ONNX/models/.

The modules follow transformers' modeling_llama.py and modeling_gpt2.py (LlamaRMSNorm with the
fp32 upcast and rsqrt, rotate_half RoPE from position_ids, repeat_kv for GQA, LlamaMLP with SiLU;
GPT-2's Conv1D projections, causal `bias` buffer, NewGELU, LayerNorm), written out here so no
transformers package is needed. Each is exported with ``torch.onnx.export`` at opset 17, once
with static shapes and once with dynamic ``batch`` and ``sequence`` axes. Tiny dims (hidden 64,
4 query heads over 2 KV heads of 16, MLP 128) keep every file far below 1 MB.

Needs Debian's ``python3-torch`` (1.13; ``apt-get install python3-torch``); nothing in the test
suite needs torch, only this script that produced the committed files::

    /usr/bin/python3 python/tools/export_torch_blocks.py --out test/Frontend/ONNX/models
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import torch
from torch import nn

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN = 64, 4, 2, 16, 128
BATCH, SEQ = 2, 7
THETA = 10000.0


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, dim, base=THETA):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(
            position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep,
                                                           slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def causal_mask(q_len, dtype):
    """HF's additive causal mask: min above the diagonal, 0 elsewhere, [1, 1, S, S]."""
    mask = torch.full((q_len, q_len), torch.finfo(dtype).min, dtype=dtype)
    return torch.triu(mask, diagonal=1)[None, None, :, :]


class LlamaAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_heads, self.num_key_value_heads, self.head_dim = HEADS, KV_HEADS, HEAD_DIM
        self.num_key_value_groups = HEADS // KV_HEADS
        self.q_proj = nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.k_proj = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.v_proj = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.o_proj = nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.rotary_emb = LlamaRotaryEmbedding(HEAD_DIM)

    def forward(self, hidden_states, position_ids):
        bsz, q_len, _ = hidden_states.size()
        q = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim)
        k = self.k_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim)
        v = self.v_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        cos, sin = self.rotary_emb(v, position_ids)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        k = repeat_kv(k, self.num_key_value_groups)
        v = repeat_kv(v, self.num_key_value_groups)
        attn = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        attn = attn + causal_mask(q_len, attn.dtype)
        attn = nn.functional.softmax(attn, dim=-1, dtype=torch.float32).to(q.dtype)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous()
        return self.o_proj(out.reshape(bsz, q_len, -1))


class LlamaMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.up_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.down_proj = nn.Linear(FFN, HIDDEN, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn = LlamaAttention()
        self.mlp = LlamaMLP()
        self.input_layernorm = LlamaRMSNorm(HIDDEN)
        self.post_attention_layernorm = LlamaRMSNorm(HIDDEN)

    def forward(self, hidden_states, position_ids):
        residual = hidden_states
        hidden_states = self.self_attn(self.input_layernorm(hidden_states), position_ids)
        hidden_states = residual + hidden_states
        residual = hidden_states
        return residual + self.mlp(self.post_attention_layernorm(hidden_states))


class Conv1D(nn.Module):
    """GPT-2's linear layer: weight [in, out], y = addmm(b, x, W)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf).normal_(std=0.02))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class NewGELUActivation(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                           (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, max_positions=64):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones((max_positions, max_positions),
                                                           dtype=torch.bool))
                             .view(1, 1, max_positions, max_positions), persistent=False)
        self.num_heads, self.head_dim, self.embed_dim = HEADS, HEAD_DIM, HIDDEN
        self.c_attn = Conv1D(3 * HIDDEN, HIDDEN)
        self.c_proj = Conv1D(HIDDEN, HIDDEN)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)

    def _merge_heads(self, tensor):
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        return tensor.view(tensor.size()[:-2] + (self.num_heads * self.head_dim,))

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.embed_dim, dim=2)
        query, key, value = (self._split_heads(t) for t in (query, key, value))
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5,
                                                 dtype=attn_weights.dtype)
        query_length, key_length = query.size(-2), key.size(-2)
        causal = self.bias[:, :, key_length - query_length: key_length, :key_length]
        mask_value = torch.full([], torch.finfo(attn_weights.dtype).min,
                                dtype=attn_weights.dtype)
        attn_weights = torch.where(causal, attn_weights, mask_value)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        return self.c_proj(self._merge_heads(torch.matmul(attn_weights, value)))


class GPT2MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = Conv1D(FFN, HIDDEN)
        self.c_proj = Conv1D(HIDDEN, FFN)
        self.act = NewGELUActivation()

    def forward(self, hidden_states):
        return self.c_proj(self.act(self.c_fc(hidden_states)))


class GPT2Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.attn = GPT2Attention()
        self.ln_2 = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.mlp = GPT2MLP()

    def forward(self, hidden_states):
        hidden_states = hidden_states + self.attn(self.ln_1(hidden_states))
        return hidden_states + self.mlp(self.ln_2(hidden_states))


def _randomize(module, seed):
    """Random weights of a realistic scale (norm weights around 1, biases small)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() == 1:
                base = 1.0 if ("norm" in name or name.startswith("ln_") or ".ln_" in name
                               or name == "weight") else 0.0
                p.copy_(base + 0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(min(p.shape)))
    return module.eval()


# name -> (module factory, takes position_ids)
MODULES = {
    "llama_rmsnorm": (lambda: LlamaRMSNorm(HIDDEN), False),
    "llama_attention": (LlamaAttention, True),
    "llama_mlp": (LlamaMLP, False),
    "llama_decoder_layer": (LlamaDecoderLayer, True),
    "gpt2_block": (GPT2Block, False),
}


def export(out_dir: Path, names=None) -> list:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for i, (name, (factory, with_pos)) in enumerate(MODULES.items()):
        if names and name not in names:
            continue
        torch.manual_seed(i)
        module = _randomize(factory(), seed=100 + i)
        x = torch.randn(BATCH, SEQ, HIDDEN)
        args = (x,)
        input_names = ["hidden_states"]
        axes = {"hidden_states": {0: "batch", 1: "sequence"}, "output": {0: "batch",
                                                                         1: "sequence"}}
        if with_pos:
            args = (x, torch.arange(SEQ, dtype=torch.int64).expand(BATCH, SEQ).contiguous())
            input_names.append("position_ids")
            axes["position_ids"] = {0: "batch", 1: "sequence"}
        for mode in ("static", "dynamic"):
            path = out_dir / f"torch_{name}_{mode}.onnx"
            torch.onnx.export(module, args, str(path), opset_version=17,
                              input_names=input_names, output_names=["output"],
                              dynamic_axes=axes if mode == "dynamic" else None,
                              do_constant_folding=True)
            written.append(path)
            with torch.no_grad():
                want = module(*args).numpy()
            note = _check_with_ort(path, input_names, args, want)
            print(f"{path} ({path.stat().st_size} bytes){note}")
    return written


def _check_with_ort(path, input_names, args, want) -> str:
    """ONNX Runtime on the exported file against PyTorch on the module, when ORT is there."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    try:
        from decoda.ort import OrtUnavailable, run_ort
    except ImportError:
        return ""
    try:
        got = run_ort(path, {n: a.numpy() for n, a in zip(input_names, args)})["output"]
    except OrtUnavailable:
        return ""
    return f"; ONNX Runtime vs PyTorch: max abs error {float(abs(got - want).max()):.2g}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--only", nargs="*", choices=sorted(MODULES), help="export only these")
    args = p.parse_args(argv)
    export(Path(args.out), args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
