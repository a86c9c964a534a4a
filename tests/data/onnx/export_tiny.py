"""Writes the small PyTorch-exported ONNX files of this folder (test data and fuzz seeds).

Run with Debian's interpreter and its python3-torch (1.13, the legacy TorchScript exporter):
    /usr/bin/python3 tests/data/onnx/export_tiny.py tests/data/onnx
The model: two pre-norm transformer blocks (LayerNorm, q/k/v/o linears, 4-head softmax
attention, tanh-GELU MLP), width 16, on x [1, 8, 16].
"""
import sys

import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.o = nn.Linear(dim, dim)

    def forward(self, x):
        b, l, d = x.shape
        y = self.norm(x)
        split = lambda t: t.view(b, l, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(self.q(y)), split(self.k(y)), split(self.v(y))
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        a = torch.softmax(scores, dim=-1) @ v
        return x + self.o(a.transpose(1, 2).reshape(b, l, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.self_attn = SelfAttention(dim, heads)
        self.ffn = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = self.self_attn(x)
        return x + self.ffn(x)


class Tiny(nn.Module):
    def __init__(self, dim=16, heads=4, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def main(out_dir):
    torch.manual_seed(0)
    model = Tiny().eval()
    x = torch.randn(1, 8, 16)
    print("parameters:", sum(p.numel() for p in model.parameters()))
    names = dict(input_names=["x"], output_names=["y"], opset_version=17)
    torch.onnx.export(model, (x,), f"{out_dir}/tiny_blocks.onnx", **names)
    torch.onnx.export(model, (x,), f"{out_dir}/tiny_blocks_dynamic_noparams.onnx",
                      dynamic_axes={"x": {1: "seq"}, "y": {1: "seq"}}, export_params=False, **names)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
