"""Writes the masked and grouped-query attention blocks of this folder (ONNX test data).

Run with Debian's interpreter and its python3-torch (1.13, the legacy TorchScript exporter):
    /usr/bin/python3 tests/data/onnx/export_attention.py tests/data/onnx
Each file is one Llama-style pre-norm self-attention block, x + o(attn(rmsnorm(x))), width 64,
8 query heads of 8 dims, q/k/v/o linears without bias, on x [1, 16, 64], in the forms PyTorch's
exporter writes for a causal mask and for K/V heads shared by groups of query heads:

  llama_causal_op14.onnx          8 K/V heads; causal mask torch.full(-inf).triu(1) added to
                                  the scores (Trilu of a Constant, Add)
  llama_causal_op17_dynamic.onnx  the same at opset 17 with the sequence dynamic ("seq"): the
                                  mask is ConstantOfShape(-inf) -> Trilu of the bound length
  llama_gqa_op14.onnx             2 K/V heads repeated with repeat_interleave (Split, then per
                                  head Unsqueeze -> Expand -> Reshape, Concat); boolean mask
                                  torch.ones(L, L, bool).tril() applied with masked_fill(~m, -inf)
                                  (Trilu, Not, Where)
  llama_gqa_op17.onnx             the same at opset 17
  llama_gqa_repeat_kv_op17.onnx   2 K/V heads repeated as Hugging Face's repeat_kv (Unsqueeze ->
                                  Expand -> Reshape); additive mask of finfo(float32).min
"""
import sys

import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class Block(nn.Module):
    def __init__(self, dim, heads, kv_heads, repeat, mask):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.repeat, self.mask = repeat, mask
        self.input_layernorm = RMSNorm(dim)
        self.q_proj = nn.Linear(dim, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, dim, bias=False)

    def repeat_kv(self, t):
        groups = self.heads // self.kv_heads
        if groups == 1:
            return t
        if self.repeat == "interleave":
            return t.repeat_interleave(groups, dim=1)
        b, h, l, d = t.shape
        return t[:, :, None, :, :].expand(b, h, groups, l, d).reshape(b, h * groups, l, d)

    def forward(self, x):
        b, l, _ = x.shape
        y = self.input_layernorm(x)
        q = self.q_proj(y).view(b, l, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(y).view(b, l, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(y).view(b, l, self.kv_heads, self.head_dim).transpose(1, 2)
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = q @ k.transpose(2, 3) / self.head_dim ** 0.5
        if self.mask == "neg_inf":
            scores = scores + torch.full((l, l), float("-inf")).triu(1)
        elif self.mask == "finfo_min":
            scores = scores + torch.full((l, l), torch.finfo(torch.float32).min).triu(1)
        else:
            keep = torch.ones(l, l, dtype=torch.bool).tril()
            scores = scores.masked_fill(~keep, float("-inf"))
        attn = torch.softmax(scores, dim=-1) @ v
        return x + self.o_proj(attn.transpose(1, 2).reshape(b, l, -1))


def main(out_dir):
    files = [
        ("llama_causal_op14.onnx", 14, 8, "interleave", "neg_inf", False),
        ("llama_causal_op17_dynamic.onnx", 17, 8, "interleave", "neg_inf", True),
        ("llama_gqa_op14.onnx", 14, 2, "interleave", "bool", False),
        ("llama_gqa_op17.onnx", 17, 2, "interleave", "bool", False),
        ("llama_gqa_repeat_kv_op17.onnx", 17, 2, "repeat_kv", "finfo_min", False),
    ]
    for name, opset, kv_heads, repeat, mask, dynamic in files:
        torch.manual_seed(0)
        model = Block(64, 8, kv_heads, repeat, mask).eval()
        x = torch.randn(1, 16, 64)
        extra = dict(dynamic_axes={"x": {1: "seq"}, "y": {1: "seq"}}) if dynamic else {}
        torch.onnx.export(model, (x,), f"{out_dir}/{name}", input_names=["x"], output_names=["y"],
                          opset_version=opset, **extra)
        print(name, "parameters:", sum(p.numel() for p in model.parameters()))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
