"""One HunyuanVideo double-stream block and one single-stream block as PyTorch modules, for ONNX
export tests.

Written from reference/models.md §2.2 and mirroring src/frontend/zoo/hunyuan_video.cc op for op.

Double-stream block (MMDoubleStreamBlock): per stream s in (img, txt), s_mod.linear(SiLU(vec))
gives shift1, scale1, gate1, shift2, scale2, gate2; s_norm1 (LayerNorm, no affine) -> modulate ->
s_attn_qkv (fused, "B L (K H D)" with K = 3 major) -> per-head RMSNorm s_attn_q_norm / k_norm,
RoPE on the image q and k only; joint attention over concat(img, txt), text at the rear; the
output split back per stream; s_attn_proj, gated residual; s_norm2 -> modulate -> s_mlp.fc1 ->
GELU(tanh) -> s_mlp.fc2, gated residual.

Single-stream block (MMSingleStreamBlock): modulation.linear(SiLU(vec)) gives shift, scale, gate;
pre_norm -> modulate -> linear1 = [qkv (3d) | mlp_in (4d)]; q_norm / k_norm per head; RoPE on the
image rows only; joint attention; linear2 over concat(attn, GELU_tanh(mlp_in)); gated residual.

Parameter names are the checkpoint's: HunyuanDoubleBlockWrapper holds its block as
double_blocks[0] ("double_blocks.0.img_attn_qkv.weight"), HunyuanSingleBlockWrapper as
single_blocks[0] ("single_blocks.0.linear1.weight").

Export constraints as in wan_block.py: written-out attention (softmax(q @ k^T * scale) @ v, heads
by view + transpose), real-valued RoPE (x * cos + rotate_pairs(x) * sin, HunyuanVideo's
use_real=True form, cos/sin [L_img, 128] as inputs), F.layer_norm, RMSNorm written out. Modulation
chunks are static slices of Linear(d, k*d)(SiLU(vec)) viewed as [B, k, d], as in the zoo.
"""

import dataclasses
import math

import torch
import torch.nn.functional as F
from torch import nn

HEAD_DIM = 128
EPS = 1e-6


@dataclasses.dataclass(frozen=True)
class HunyuanConfig:
    hidden: int
    num_heads: int
    mlp_ratio: int = 4
    text_len: int = 256  # LLM text tokens after cropping the template

    @property
    def mlp_hidden(self):
        return self.mlp_ratio * self.hidden


# [HunyuanVideo: hyvideo/modules/models.py, HUNYUAN_VIDEO_CONFIG "HYVideo-T/2-cfgdistill"].
PRESETS = {
    "hunyuanvideo-13b": HunyuanConfig(hidden=3072, num_heads=24),
    "tiny": HunyuanConfig(hidden=256, num_heads=2, text_len=8),
}


def rope_tables(grid, head_dim=HEAD_DIM, theta=256.0, sections=(16, 56, 56)):
    """cos/sin [F*H*W, head_dim] of HunyuanVideo's 3D RoPE (axis dims [16, 56, 56], theta 256),
    each angle repeated for the two dims of its pair (get_nd_rotary_pos_embed, use_real=True)."""
    frames, rows, cols = grid
    angles = []
    for axis, width in enumerate(sections):
        size = grid[axis]
        inv = 1.0 / theta ** (torch.arange(0, width, 2, dtype=torch.float64)[: width // 2] / width)
        per_axis = torch.outer(torch.arange(size, dtype=torch.float64), inv)
        shape = [1, 1, 1, width // 2]
        shape[axis] = size
        angles.append(per_axis.reshape(shape).expand(frames, rows, cols, width // 2))
    angle = torch.cat(angles, dim=-1).reshape(frames * rows * cols, head_dim // 2)
    angle = angle.repeat_interleave(2, dim=-1).float()
    return angle.cos(), angle.sin()


def rms_norm(x, weight, eps=EPS):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate_pairs(x):
    """(x0, x1, x2, x3, ...) -> (-x1, x0, -x3, x2, ...) (HunyuanVideo's rotate_half)."""
    real = x[..., 0::2]
    imag = x[..., 1::2]
    return torch.stack([-imag, real], dim=-1).reshape(x.shape)


def apply_rope(x, cos, sin):
    """x [B, L, H, D]; cos, sin [L, D] broadcast over batch and heads."""
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    return x * cos + rotate_pairs(x) * sin


def attention(q, k, v, head_dim=HEAD_DIM):
    """q, k, v [B, L, H, D] -> [B, L, H * D]: softmax(q k^T * scale) v over all rows (every text
    row is treated as valid, like the zoo)."""
    scale = 1.0 / math.sqrt(head_dim)
    q = q.transpose(1, 2)
    k = k.transpose(1, 2)
    v = v.transpose(1, 2)
    probs = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    out = (probs @ v).transpose(1, 2)
    return out.reshape(out.shape[0], out.shape[1], -1)


def layer_norm(x, dim):
    """LayerNorm without affine, eps 1e-6 (img_norm1, pre_norm, ...): no parameters. `dim` is a
    Python int: the exporter needs a static normalized shape."""
    return F.layer_norm(x, (dim,), None, None, EPS)


def modulate(x, shift, scale):
    """x * (1 + scale) + shift, in the zoo's order."""
    return x * (scale + 1) + shift


def split_qkv(qkv, num_heads):
    """[B, L, 3 * H * D] -> q, k, v [B, L, H, D] ("B L (K H D) -> K B L H D", K major)."""
    heads = qkv.reshape(qkv.shape[0], qkv.shape[1], 3, num_heads, HEAD_DIM)
    # Slice + Squeeze, as the zoo's SliceAxis + reshape (indexing would export as Gather).
    return tuple(heads[:, :, k:k + 1].squeeze(2) for k in range(3))


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=EPS, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))

    def forward(self, x):
        return rms_norm(x, self.weight, self.eps)


class ModulateDiT(nn.Module):
    """Linear(d, factor * d)(SiLU(vec)) as `factor` chunks of [B, 1, d] (static slices)."""

    def __init__(self, hidden, factor, device=None, dtype=None):
        super().__init__()
        self.hidden = hidden
        self.factor = factor
        self.linear = nn.Linear(hidden, factor * hidden, device=device, dtype=dtype)

    def forward(self, vec):
        rows = self.linear(F.silu(vec)).reshape(-1, self.factor, self.hidden)
        return [rows[:, k:k + 1] for k in range(self.factor)]


class MLP(nn.Module):
    def __init__(self, hidden, mlp_hidden, device=None, dtype=None):
        super().__init__()
        self.fc1 = nn.Linear(hidden, mlp_hidden, device=device, dtype=dtype)
        self.act = nn.GELU(approximate="tanh")
        self.fc2 = nn.Linear(mlp_hidden, hidden, device=device, dtype=dtype)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class MMDoubleStreamBlock(nn.Module):
    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        d = config.hidden
        kw = dict(device=device, dtype=dtype)
        self.hidden = d
        self.num_heads = config.num_heads
        for s in ("img", "txt"):
            setattr(self, f"{s}_mod", ModulateDiT(d, 6, **kw))
            setattr(self, f"{s}_attn_qkv", nn.Linear(d, 3 * d, **kw))
            setattr(self, f"{s}_attn_q_norm", RMSNorm(HEAD_DIM, **kw))
            setattr(self, f"{s}_attn_k_norm", RMSNorm(HEAD_DIM, **kw))
            setattr(self, f"{s}_attn_proj", nn.Linear(d, d, **kw))
            setattr(self, f"{s}_mlp", MLP(d, config.mlp_hidden, **kw))

    def forward(self, img, txt, vec, freqs_cos, freqs_sin):
        img_mod = self.img_mod(vec)
        txt_mod = self.txt_mod(vec)

        img_h = modulate(layer_norm(img, self.hidden), img_mod[0], img_mod[1])
        img_q, img_k, img_v = split_qkv(self.img_attn_qkv(img_h), self.num_heads)
        img_q = apply_rope(self.img_attn_q_norm(img_q), freqs_cos, freqs_sin)
        img_k = apply_rope(self.img_attn_k_norm(img_k), freqs_cos, freqs_sin)

        txt_h = modulate(layer_norm(txt, self.hidden), txt_mod[0], txt_mod[1])
        txt_q, txt_k, txt_v = split_qkv(self.txt_attn_qkv(txt_h), self.num_heads)
        txt_q = self.txt_attn_q_norm(txt_q)
        txt_k = self.txt_attn_k_norm(txt_k)

        q = torch.cat((img_q, txt_q), dim=1)
        k = torch.cat((img_k, txt_k), dim=1)
        v = torch.cat((img_v, txt_v), dim=1)
        attn = attention(q, k, v)
        image_tokens = img.shape[1]
        img_attn = attn[:, :image_tokens]
        txt_attn = attn[:, image_tokens:]

        img = img + self.img_attn_proj(img_attn) * img_mod[2]
        img = img + self.img_mlp(modulate(layer_norm(img, self.hidden), img_mod[3], img_mod[4])) * img_mod[5]
        txt = txt + self.txt_attn_proj(txt_attn) * txt_mod[2]
        txt = txt + self.txt_mlp(modulate(layer_norm(txt, self.hidden), txt_mod[3], txt_mod[4])) * txt_mod[5]
        return img, txt


class MMSingleStreamBlock(nn.Module):
    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        d = config.hidden
        kw = dict(device=device, dtype=dtype)
        self.hidden = d
        self.num_heads = config.num_heads
        self.mlp_hidden = config.mlp_hidden
        self.linear1 = nn.Linear(d, 3 * d + config.mlp_hidden, **kw)
        self.linear2 = nn.Linear(d + config.mlp_hidden, d, **kw)
        self.q_norm = RMSNorm(HEAD_DIM, **kw)
        self.k_norm = RMSNorm(HEAD_DIM, **kw)
        self.mlp_act = nn.GELU(approximate="tanh")
        self.modulation = ModulateDiT(d, 3, **kw)

    def forward(self, x, vec, freqs_cos, freqs_sin):
        shift, scale, gate = self.modulation(vec)
        h = modulate(layer_norm(x, self.hidden), shift, scale)
        fused = self.linear1(h)
        qkv = fused[..., :3 * self.hidden]
        mlp_in = fused[..., 3 * self.hidden:]
        q, k, v = split_qkv(qkv, self.num_heads)
        q = self.q_norm(q)
        k = self.k_norm(k)
        # RoPE on the image rows only: their count is the RoPE table's length.
        image_tokens = freqs_cos.shape[0]
        q = torch.cat((apply_rope(q[:, :image_tokens], freqs_cos, freqs_sin), q[:, image_tokens:]), dim=1)
        k = torch.cat((apply_rope(k[:, :image_tokens], freqs_cos, freqs_sin), k[:, image_tokens:]), dim=1)
        attn = attention(q, k, v)
        out = self.linear2(torch.cat((attn, self.mlp_act(mlp_in)), dim=2))
        return x + out * gate


class _Wrapper(nn.Module):
    PRESETS = PRESETS

    @classmethod
    def from_preset(cls, name, device=None, dtype=None):
        return cls(PRESETS[name], device=device, dtype=dtype)

    @staticmethod
    def _grid(video_tokens):
        grid = (1, 2, max(1, (video_tokens or 16) // 2))
        return grid, grid[0] * grid[1] * grid[2]


class HunyuanDoubleBlockWrapper(_Wrapper):
    """Dual-stream block 0 of HunyuanVideo: FQNs "double_blocks.0.…"."""

    INPUT_NAMES = ["img", "txt", "vec", "freqs_cos", "freqs_sin"]
    OUTPUT_NAMES = ["img_out", "txt_out"]
    DYNAMIC_AXES = {
        "img": {0: "batch", 1: "video_tokens"},
        "txt": {0: "batch", 1: "text_tokens"},
        "vec": {0: "batch"},
        "freqs_cos": {0: "video_tokens"},
        "freqs_sin": {0: "video_tokens"},
        "img_out": {0: "batch", 1: "video_tokens"},
        "txt_out": {0: "batch", 1: "text_tokens"},
    }

    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        self.config = config
        self.double_blocks = nn.ModuleList([MMDoubleStreamBlock(config, device=device, dtype=dtype)])

    def example_inputs(self, video_tokens=None, text_tokens=None, batch=1, dtype=torch.float32):
        d = self.config.hidden
        grid, tokens = self._grid(video_tokens)
        gen = torch.Generator().manual_seed(0)
        cos, sin = rope_tables(grid)
        return (torch.randn(batch, tokens, d, generator=gen, dtype=dtype),
                torch.randn(batch, text_tokens or 8, d, generator=gen, dtype=dtype),
                torch.randn(batch, d, generator=gen, dtype=dtype), cos.to(dtype), sin.to(dtype))

    def forward(self, img, txt, vec, freqs_cos, freqs_sin):
        return self.double_blocks[0](img, txt, vec, freqs_cos, freqs_sin)


class HunyuanSingleBlockWrapper(_Wrapper):
    """Single-stream block 0 of HunyuanVideo: FQNs "single_blocks.0.…". x is the joint sequence
    [B, L_img + T, d], image rows first."""

    INPUT_NAMES = ["x", "vec", "freqs_cos", "freqs_sin"]
    OUTPUT_NAMES = ["out"]
    DYNAMIC_AXES = {
        "x": {0: "batch", 1: "joint_tokens"},
        "vec": {0: "batch"},
        "freqs_cos": {0: "video_tokens"},
        "freqs_sin": {0: "video_tokens"},
        "out": {0: "batch", 1: "joint_tokens"},
    }

    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        self.config = config
        self.single_blocks = nn.ModuleList([MMSingleStreamBlock(config, device=device, dtype=dtype)])

    def example_inputs(self, video_tokens=None, text_tokens=None, batch=1, dtype=torch.float32):
        d = self.config.hidden
        grid, tokens = self._grid(video_tokens)
        gen = torch.Generator().manual_seed(0)
        cos, sin = rope_tables(grid)
        joint = tokens + (text_tokens or 8)
        return (torch.randn(batch, joint, d, generator=gen, dtype=dtype),
                torch.randn(batch, d, generator=gen, dtype=dtype), cos.to(dtype), sin.to(dtype))

    def forward(self, x, vec, freqs_cos, freqs_sin):
        return self.single_blocks[0](x, vec, freqs_cos, freqs_sin)


def double_block_parameter_count(config):
    """reference/models.md §2.3: 36d^2 + 30d + 512 at mlp ratio 4 (per stream 18d^2 + 15d + 256)."""
    d, m = config.hidden, config.mlp_hidden
    per_stream = (6 * d * d + 6 * d) + (3 * d * d + 3 * d) + 2 * HEAD_DIM + (d * d + d) + (d * m + m) + (m * d + d)
    return 2 * per_stream


def single_block_parameter_count(config):
    """reference/models.md §2.3: 15d^2 + 11d + 256 at mlp ratio 4."""
    d, m = config.hidden, config.mlp_hidden
    return (d * (3 * d + m) + 3 * d + m) + ((d + m) * d + d) + 2 * HEAD_DIM + (3 * d * d + 3 * d)
