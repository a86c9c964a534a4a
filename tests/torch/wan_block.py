"""One Wan 2.1 DiT block (WanAttentionBlock, T2V) as a PyTorch module, for ONNX export tests.

Written from reference/models.md §1.2 and mirroring src/frontend/zoo/wan.cc op for op:
modulation (learned [1, 6, d] table + e0, six chunks), self-attention (norm1 without affine,
modulate, q/k/v Linear with bias, full-d RMSNorm on q and k, 3D RoPE, attention, o, gated
residual), cross-attention (norm3 with affine, q from x, k/v from the context, full-d RMSNorm on
q and k, no RoPE, ungated residual) and the FFN (norm2 without affine, modulate, ffn.0 -> GELU(tanh)
-> ffn.2, gated residual).

Parameter names are the checkpoint's ("blocks.0.self_attn.q.weight", "blocks.0.norm3.weight",
"blocks.0.modulation"): WanBlockWrapper holds the block as `blocks[0]`. One difference from the
zoo's labels: the zoo names the affine cross-attention norm "blocks.0.cross_attn.norm3"; Wan's
model.py (and its checkpoints) have it at "blocks.0.norm3".

Export constraints (python/aoizora_torch/export.py, legacy TorchScript exporter):
  * attention is written out, softmax(q @ k^T * scale) @ v, heads by view + transpose;
  * RoPE is a real rotation x * cos + rotate_pairs(x) * sin with cos/sin tables [L, head_dim]
    passed as inputs (no complex tensors; as inputs, their length follows the symbolic token
    count). This is Wan's complex product on adjacent pairs, with each angle repeated twice;
  * LayerNorm is torch.nn.functional.layer_norm; RMSNorm is written out.

Inputs: x [B, L, d] (the residual stream), e0 [B, 6, d] (the time projection shared by all
blocks), context [B, T, d] (the text embedding, already projected to d), freqs_cos and
freqs_sin [L, head_dim] (128 but in the CPU preset). Output: x [B, L, d].
"""

import dataclasses
import math

import torch
import torch.nn.functional as F
from torch import nn

HEAD_DIM = 128
EPS = 1e-6


@dataclasses.dataclass(frozen=True)
class WanConfig:
    dim: int
    ffn_dim: int
    num_heads: int
    text_len: int = 512  # T of the real model: umT5 output zero-padded to 512 rows
    head_dim: int = HEAD_DIM


# [Wan2.1: wan/configs/wan_t2v_14B.py, wan_t2v_1_3B.py]; "tiny" keeps the 128-wide heads (the
# zoo and the RoPE sections assume them) with two heads. "tiny-1.3b-heads" keeps the 1.3B
# model's 12 heads (so every Ulysses and tensor-parallel degree a 1.3B plan names divides them)
# on 16-wide heads, for executing plans on CPUs (tests/torch/run_plan.py); it is not exported.
PRESETS = {
    "wan2.1-t2v-14b": WanConfig(dim=5120, ffn_dim=13824, num_heads=40),
    "wan2.1-t2v-1.3b": WanConfig(dim=1536, ffn_dim=8960, num_heads=12),
    "tiny": WanConfig(dim=256, ffn_dim=512, num_heads=2, text_len=16),
    "tiny-1.3b-heads": WanConfig(dim=192, ffn_dim=384, num_heads=12, text_len=16, head_dim=16),
}


def rope_sections(head_dim=HEAD_DIM):
    """Real dims per axis (frame, row, col): t = d_h - 4*floor(d_h/6), h = w = 2*floor(d_h/6)."""
    sixth = head_dim // 6
    return (head_dim - 4 * sixth, 2 * sixth, 2 * sixth)


def rope_tables(grid, head_dim=HEAD_DIM, theta=10000.0):
    """cos/sin [F*H*W, head_dim] of Wan's 3D RoPE on a (frames, rows, cols) patch grid.

    Each axis gets its section of the head dim; pair i of a section of width w rotates by
    position / theta^(2i / w). Every angle appears twice (the two dims of its pair)."""
    frames, rows, cols = grid
    angles = []
    for axis, width in enumerate(rope_sections(head_dim)):
        size = grid[axis]
        inv = 1.0 / theta ** (torch.arange(0, width, 2, dtype=torch.float64) / width)
        per_axis = torch.outer(torch.arange(size, dtype=torch.float64), inv)  # [size, width/2]
        shape = [1, 1, 1, width // 2]
        shape[axis] = size
        angles.append(per_axis.reshape(shape).expand(frames, rows, cols, width // 2))
    angle = torch.cat(angles, dim=-1).reshape(frames * rows * cols, head_dim // 2)
    angle = angle.repeat_interleave(2, dim=-1).float()
    return angle.cos(), angle.sin()


def rms_norm(x, weight, eps=EPS):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate_pairs(x):
    """(x0, x1, x2, x3, ...) -> (-x1, x0, -x3, x2, ...): multiplication by i on adjacent pairs.

    Strided slices and a reshape back to x's own shape: constant slice bounds, no arithmetic on
    the traced shape."""
    real = x[..., 0::2]
    imag = x[..., 1::2]
    return torch.stack([-imag, real], dim=-1).reshape(x.shape)


def apply_rope(x, cos, sin):
    """x [B, L, H, D]; cos, sin [L, D] broadcast over batch and heads."""
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    return x * cos + rotate_pairs(x) * sin


def attention(q, k, v, head_dim=HEAD_DIM):
    """q [B, Lq, H, D], k/v [B, Lk, H, D] -> [B, Lq, H, D]; full bidirectional attention.

    The scale is a Python number (from the configured head dim), so it exports as a constant
    rather than as arithmetic on the traced shape."""
    scale = 1.0 / math.sqrt(head_dim)
    q = q.transpose(1, 2)
    k = k.transpose(1, 2)
    v = v.transpose(1, 2)
    probs = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    return (probs @ v).transpose(1, 2)


class Attention(nn.Module):
    """The attention core, attention(q, k, v), as a submodule without parameters, so that a
    runtime can swap it by FQN ("blocks.0.self_attn.attention", the zoo's op name) for a
    sequence-parallel one (python/aoizora_torch/runtime.py: Ulysses, ring). kv_from_sequence
    says where K and V come from: the token sequence x (self-attention: split with it) or the
    text context (cross-attention: every rank holds it whole)."""

    def __init__(self, head_dim, kv_from_sequence):
        super().__init__()
        self.head_dim = head_dim
        self.kv_from_sequence = kv_from_sequence

    def forward(self, q, k, v):
        return attention(q, k, v, self.head_dim)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=EPS, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))

    def forward(self, x):
        return rms_norm(x, self.weight, self.eps)


class LayerNorm(nn.Module):
    """LayerNorm over the last dim; without affine it holds no parameters (Wan's norm1/norm2)."""

    def __init__(self, dim, affine, eps=EPS, device=None, dtype=None):
        super().__init__()
        self.dim = dim
        self.eps = eps
        if affine:
            self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))
            self.bias = nn.Parameter(torch.zeros(dim, device=device, dtype=dtype))
        else:
            self.weight = None
            self.bias = None

    def forward(self, x):
        return F.layer_norm(x, (self.dim,), self.weight, self.bias, self.eps)


class WanSelfAttention(nn.Module):
    KV_FROM_SEQUENCE = True

    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        d = config.dim
        kw = dict(device=device, dtype=dtype)
        # Heads this module computes; a tensor-parallel runtime divides it by its degree.
        self.num_heads = config.num_heads
        self.head_dim = config.head_dim
        self.q = nn.Linear(d, d, **kw)
        self.k = nn.Linear(d, d, **kw)
        self.v = nn.Linear(d, d, **kw)
        self.o = nn.Linear(d, d, **kw)
        self.norm_q = RMSNorm(d, **kw)
        self.norm_k = RMSNorm(d, **kw)
        self.attention = Attention(config.head_dim, self.KV_FROM_SEQUENCE)

    def heads(self, x):
        return x.view(x.shape[0], x.shape[1], self.num_heads, self.head_dim)

    def forward(self, x, freqs_cos, freqs_sin):
        q = self.norm_q(self.q(x))
        k = self.norm_k(self.k(x))
        v = self.v(x)
        qh = apply_rope(self.heads(q), freqs_cos, freqs_sin)
        kh = apply_rope(self.heads(k), freqs_cos, freqs_sin)
        out = self.attention(qh, kh, self.heads(v))
        return self.o(out.flatten(2))


class WanCrossAttention(WanSelfAttention):
    """T2V cross-attention: q from x, k/v from the context; no RoPE."""

    KV_FROM_SEQUENCE = False

    def forward(self, x, context):
        q = self.norm_q(self.q(x))
        k = self.norm_k(self.k(context))
        v = self.v(context)
        out = self.attention(self.heads(q), self.heads(k), self.heads(v))
        return self.o(out.flatten(2))


def modulate(x, shift, scale):
    # The zoo's order: x + x*scale + shift (= x * (1 + scale) + shift).
    return x + x * scale + shift


class WanAttentionBlock(nn.Module):
    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        d = config.dim
        kw = dict(device=device, dtype=dtype)
        self.norm1 = LayerNorm(d, affine=False)
        self.self_attn = WanSelfAttention(config, **kw)
        self.norm3 = LayerNorm(d, affine=True, **kw)  # cross_attn_norm = True
        self.cross_attn = WanCrossAttention(config, **kw)
        self.norm2 = LayerNorm(d, affine=False)
        self.ffn = nn.Sequential(nn.Linear(d, config.ffn_dim, **kw), nn.GELU(approximate="tanh"),
                                 nn.Linear(config.ffn_dim, d, **kw))
        self.modulation = nn.Parameter(torch.randn(1, 6, d, **kw) / d**0.5)

    def forward(self, x, e0, context, freqs_cos, freqs_sin):
        # Six [B, 1, d] chunks by static slices (the zoo's SliceAxis; chunk() would compute the
        # bounds from the traced shape).
        mod = self.modulation + e0
        shift_sa, scale_sa, gate_sa, shift_ffn, scale_ffn, gate_ffn = (mod[:, k:k + 1] for k in range(6))

        y = self.self_attn(modulate(self.norm1(x), shift_sa, scale_sa), freqs_cos, freqs_sin)
        x = x + y * gate_sa

        x = x + self.cross_attn(self.norm3(x), context)

        y = self.ffn(modulate(self.norm2(x), shift_ffn, scale_ffn))
        return x + y * gate_ffn


class WanBlockWrapper(nn.Module):
    """Block 0 of a Wan 2.1 T2V DiT, so that parameter FQNs read "blocks.0.…"."""

    INPUT_NAMES = ["x", "e0", "context", "freqs_cos", "freqs_sin"]
    OUTPUT_NAMES = ["out"]
    # Symbolic dims: the importer binds them to the real sizes.
    DYNAMIC_AXES = {
        "x": {0: "batch", 1: "video_tokens"},
        "e0": {0: "batch"},
        "context": {0: "batch", 1: "text_tokens"},
        "freqs_cos": {0: "video_tokens"},
        "freqs_sin": {0: "video_tokens"},
        "out": {0: "batch", 1: "video_tokens"},
    }
    PRESETS = PRESETS

    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        self.config = config
        self.blocks = nn.ModuleList([WanAttentionBlock(config, device=device, dtype=dtype)])

    @classmethod
    def from_preset(cls, name, device=None, dtype=None):
        return cls(PRESETS[name], device=device, dtype=dtype)

    def example_inputs(self, video_tokens=None, text_tokens=None, batch=1, dtype=torch.float32):
        """Inputs for tracing. video_tokens is rounded to a (frames, rows, cols) grid of 1 x 2 x n."""
        d = self.config.dim
        video_tokens = video_tokens or 16
        text_tokens = text_tokens or 8
        grid = (1, 2, max(1, video_tokens // 2))
        tokens = grid[0] * grid[1] * grid[2]
        gen = torch.Generator().manual_seed(0)
        cos, sin = rope_tables(grid, self.config.head_dim)
        return (torch.randn(batch, tokens, d, generator=gen, dtype=dtype),
                torch.randn(batch, 6, d, generator=gen, dtype=dtype),
                torch.randn(batch, text_tokens, d, generator=gen, dtype=dtype),
                cos.to(dtype), sin.to(dtype))

    def forward(self, x, e0, context, freqs_cos, freqs_sin):
        return self.blocks[0](x, e0, context, freqs_cos, freqs_sin)


def block_parameter_count(config):
    """reference/models.md §1.3: one T2V block = 8d^2 + 2df + f + 21d."""
    d, f = config.dim, config.ffn_dim
    return 8 * d * d + 2 * d * f + f + 21 * d
