"""Wan 2.1 T2V forward in JAX (jax.numpy and jax.lax only), op by op and name by name as
src/frontend/zoo/wan.cc builds it, for the JAX loop (docs/jax-loop.md):

    PYTHONPATH=python python3 -m aoizora_jax.compile_candidates \\
        --candidates tests/jax/cands_wan13b_h100x8.json --inputs tests/jax/inputs_wan13b.json \\
        --function wan_jax:forward --python-path tests/jax --out hlo --fake-devices 8

forward(params, latent, timestep, context, aoizora_axes=None) takes the zoo's inputs
(latent f32 [B, 16, T, H/8, W/8], timestep f32 [B], context bf16 [B, 512, 4096]) and returns the
velocity, f32 like the latent. `params` is the nested dict compile_candidates builds from the
zoo's parameter names (params["blocks"]["0"]["self_attn"]["q"]["weight"]) with the zoo's shapes:
Linear weights are [in, out] (y = x @ W + b), the patch embedding a Conv3d [d, 16, 1, 2, 2]. The
model size (d, heads) and the number of blocks come from the tree, so the same function runs
T2V-1.3B and T2V-14B at any depth (tests/jax/make_inputs.py writes the trees from the zoo).

Numerics follow the zoo (and the official code): weights bf16; the time embedding, modulation,
gating and the residual stream f32; linears and attention bf16; RMSNorm computed in f32 and cast
back; RoPE computed in f32 from an in-graph table (no large constant ends up in the program).

Sharding. `aoizora_axes` is {role: mesh axis name (or a tuple of names)} as compile_candidates
binds it; with it the function places jax.lax.with_sharding_constraint where a person writing
sequence parallelism by hand would (xDiT's USP layout):
  - token activations [B, L, d]: P(batch axes, sequence axes, None), batch = cfg and dp, sequence
    = ring and ulysses, in mesh order;
  - projections to heads or to the FFN hidden [B, L, n]: the same, with n on tp;
  - self-attention under ulysses: q/k/v [B, L, H, D] go to P(batch, ring, ulysses+tp, None)
    before the attention and back afterwards, so XLA emits the two all-to-alls;
  - ring attention has no JAX primitive here: the kv of a ring candidate is left unconstrained
    and XLA all-gathers it over the ring axis instead of passing blocks around a ring;
  - cross-attention keeps the queries sequence-sharded against the whole (512-row) text kv,
    heads on tp, as USP does: no communication but tp's;
  - nothing is said about the weights: their in_shardings (tp, FSDP) come from the candidate and
    XLA decides where to gather them.
Without `aoizora_axes` (or with an empty one) the function places no constraint at all.
"""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

HEAD_DIM = 128
FREQ_DIM = 256          # sinusoidal time embedding
OUT_CHANNELS = 16
PATCH = (1, 2, 2)       # (t, h, w), kernel = stride
EPS = 1e-6
ROPE_SECTIONS = (44, 42, 42)  # head dims rotated by the t, h and w positions (22:21:21 pairs)
ROPE_THETA = 10000.0

BATCH_ROLES = ("cfg", "dp")
SEQUENCE_ROLES = ("ring", "ulysses")


# ---------------------------------------------------------------------------------------------
# Sharding constraints


def _context_mesh():
    """The mesh the caller's context holds, for when a bare PartitionSpec is refused."""
    try:
        mesh = jax.sharding.get_abstract_mesh()
        if mesh is not None and not mesh.empty:
            return mesh
    except Exception:
        pass
    try:
        from jax._src import mesh as mesh_lib
        mesh = mesh_lib.thread_resources.env.physical_mesh
        if not mesh.empty:
            return mesh
    except Exception:
        pass
    return None


def _with_sharding(x, spec):
    """with_sharding_constraint with a bare PartitionSpec (the jit runs inside the candidate's
    mesh context); falls back to a NamedSharding on the context's mesh for a JAX that wants one."""
    try:
        return jax.lax.with_sharding_constraint(x, spec)
    except Exception:  # JAX's error for "no context mesh" has changed type across versions
        mesh = _context_mesh()
        if mesh is None:
            raise
        return jax.lax.with_sharding_constraint(x, jax.sharding.NamedSharding(mesh, spec))


def _entry(axes):
    """A PartitionSpec entry: None, one axis name, or a tuple of them (major first)."""
    if not axes:
        return None
    return axes[0] if len(axes) == 1 else tuple(axes)


class Layout:
    """Where the activations go on the candidate's mesh (see the module docstring)."""

    def __init__(self, aoizora_axes):
        roles = dict(aoizora_axes or {})
        self.active = bool(roles)

        def axes(wanted):  # in mesh order: compile_candidates builds the dict in mesh order
            found = []
            for role, axis in roles.items():
                if role in wanted:
                    found += list(axis) if isinstance(axis, (tuple, list)) else [axis]
            return tuple(found)

        self.batch = _entry(axes(BATCH_ROLES))
        self.sequence = _entry(axes(SEQUENCE_ROLES))
        self.ring = _entry(axes(("ring",)))
        self.tp = _entry(axes(("tp",)))
        self.ulysses = axes(("ulysses",))
        # Heads during self-attention: ulysses moves from the sequence to the heads (major to tp).
        self.attention_heads = _entry(self.ulysses + axes(("tp",)))

    def _constrain(self, x, *entries):
        return _with_sharding(x, P(*entries)) if self.active else x

    def tokens(self, x):
        """[B, L, d]: batch and sequence sharded, d whole."""
        return self._constrain(x, self.batch, self.sequence, None)

    def hidden(self, x):
        """[B, L, n], n = heads * 128 or the FFN width: n on tp."""
        return self._constrain(x, self.batch, self.sequence, self.tp)

    def heads(self, x):
        """[B, L, H, D] outside the attention: sequence sharded, heads on tp."""
        return self._constrain(x, self.batch, self.sequence, self.tp, None)

    def attention_query(self, x):
        """[B, L, H, D] at the self-attention: ulysses' all-to-all puts the heads on ulysses."""
        if not self.ulysses:
            return self.heads(x)
        return self._constrain(x, self.batch, self.ring, self.attention_heads, None)

    def attention_kv(self, x):
        """Ring: left unconstrained (no ring primitive; XLA all-gathers the kv over ring)."""
        if self.ring is not None:
            return x
        return self.attention_query(x)

    def text(self, x):
        """[B, 512, n]: the text rows are short; only the batch is split."""
        return self._constrain(x, self.batch, None, None)

    def text_heads(self, x):
        """[B, 512, H, D] at the cross-attention: every query shard sees the whole text kv."""
        return self._constrain(x, self.batch, None, self.tp, None)

    def rope(self, x):
        """[L, 64] angles: sharded like the sequence they rotate."""
        return self._constrain(x, self.sequence, None)


# ---------------------------------------------------------------------------------------------
# Ops (the zoo's op kinds)


def linear(p, x, name):
    """params[name]: einsum "...z,zy->...y" + bias, in the weights' dtype (autocast)."""
    w = p[name]["weight"]
    with jax.named_scope(name):
        return jnp.einsum("...z,zy->...y", x.astype(w.dtype), w) + p[name]["bias"]


def linear_f32(p, x, name):
    """The time embedding's linears: bf16 weights used in f32."""
    with jax.named_scope(name):
        w = p[name]["weight"].astype(jnp.float32)
        return jnp.einsum("...z,zy->...y", x.astype(jnp.float32), w) + p[name]["bias"].astype(
            jnp.float32)


def layer_norm(x, weight=None, bias=None):
    """LayerNorm over the last dim in f32 (the residual stream's dtype); optional affine."""
    x = x.astype(jnp.float32)
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    y = (x - mean) * jax.lax.rsqrt(var + EPS)
    if weight is not None:
        y = y * weight.astype(jnp.float32) + bias.astype(jnp.float32)
    return y


def rms_norm(x, weight):
    """Wan's RMSNorm: normalized in f32, cast back to x's dtype, times the weight."""
    xf = x.astype(jnp.float32)
    y = xf * jax.lax.rsqrt(jnp.mean(jnp.square(xf), axis=-1, keepdims=True) + EPS)
    return y.astype(x.dtype) * weight


def modulate(x, shift, scale):
    """x * (1 + scale) + shift, written as the zoo writes it: x + x*scale + shift."""
    return x + x * scale + shift


def split_heads(x, heads):
    b, l, n = x.shape
    return x.reshape(b, l, heads, n // heads)


def merge_heads(x):
    b, l, h, d = x.shape
    return x.reshape(b, l, h * d)


def sinusoidal(t, dim):
    """[B] -> [B, dim] f32: cos then sin of t * 10000^(-i / half)."""
    half = dim // 2
    freqs = jnp.power(10000.0, -jnp.arange(half, dtype=jnp.float32) / half)
    angles = t.astype(jnp.float32)[:, None] * freqs[None, :]
    return jnp.concatenate([jnp.cos(angles), jnp.sin(angles)], axis=1)


def rope_angles(grid_t, grid_h, grid_w):
    """[L, 64] f32: the rotation angle of each (token, pair); pairs 0..21 turn with t, 22..42
    with h, 43..63 with w (Wan's rope_params: theta^(-2i/section)). The zoo's `rope.table`
    holds their cosines and sines; computed here from iotas so no constant enters the program."""
    def axis_angles(length, section):
        positions = jnp.arange(length, dtype=jnp.float32)
        freqs = 1.0 / jnp.power(ROPE_THETA, jnp.arange(0, section, 2, dtype=jnp.float32) / section)
        return positions[:, None] * freqs[None, :]

    shape = (grid_t, grid_h, grid_w)
    at = axis_angles(grid_t, ROPE_SECTIONS[0])
    ah = axis_angles(grid_h, ROPE_SECTIONS[1])
    aw = axis_angles(grid_w, ROPE_SECTIONS[2])
    angles = jnp.concatenate([
        jnp.broadcast_to(at[:, None, None, :], shape + (at.shape[1],)),
        jnp.broadcast_to(ah[None, :, None, :], shape + (ah.shape[1],)),
        jnp.broadcast_to(aw[None, None, :, :], shape + (aw.shape[1],)),
    ], axis=-1)
    return angles.reshape(grid_t * grid_h * grid_w, angles.shape[-1])


def rope(x, angles):
    """Rotates the pairs (2i, 2i+1) of the head dim of x [B, L, H, D] by angles [L, D/2]; in
    f32, result in x's dtype (the zoo's rope op)."""
    b, l, h, d = x.shape
    pairs = x.astype(jnp.float32).reshape(b, l, h, d // 2, 2)
    cos = jnp.cos(angles)[None, :, None, :]
    sin = jnp.sin(angles)[None, :, None, :]
    x0, x1 = pairs[..., 0], pairs[..., 1]
    rotated = jnp.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], axis=-1)
    return rotated.reshape(b, l, h, d).astype(x.dtype)


def attention(q, k, v):
    """Softmax attention on [B, L, H, D] (the zoo's attention op, not causal, scale D^-1/2):
    scores in f32, probabilities back in v's dtype. Written out rather than
    jax.nn.dot_product_attention so the program is plain dots and reductions on every backend."""
    with jax.named_scope("attention"):
        return _attention(q, k, v)


def _attention(q, k, v):
    scale = q.shape[-1] ** -0.5
    logits = jnp.einsum("blhd,bmhd->bhlm", q, k, preferred_element_type=jnp.float32) * scale
    probs = jax.nn.softmax(logits, axis=-1).astype(v.dtype)
    return jnp.einsum("bhlm,bmhd->blhd", probs, v)


# ---------------------------------------------------------------------------------------------
# The model


def block(p, x, e0, context, angles, heads, layout):
    """blocks.N: self-attention with RoPE, cross-attention, FFN; x is the f32 residual stream."""
    dtype = p["self_attn"]["q"]["weight"].dtype
    mod = p["modulation"] + e0  # [1, 6, d] + [B, 6, d] -> f32
    shift_sa, scale_sa, gate_sa, shift_ffn, scale_ffn, gate_ffn = (
        mod[:, k:k + 1] for k in range(6))

    with jax.named_scope("self_attn"):
        x = _self_attention(p["self_attn"], x, shift_sa, scale_sa, gate_sa, angles, heads, layout,
                            dtype)
    with jax.named_scope("cross_attn"):
        x = _cross_attention(p["cross_attn"], x, context, heads, layout, dtype)
    with jax.named_scope("ffn"):
        return _ffn(p["ffn"], x, shift_ffn, scale_ffn, gate_ffn, layout, dtype)


def _self_attention(sa, x, shift_sa, scale_sa, gate_sa, angles, heads, layout, dtype):
    m = modulate(layer_norm(x), shift_sa, scale_sa).astype(dtype)
    q = rms_norm(layout.hidden(linear(sa, m, "q")), sa["norm_q"]["weight"])
    k = rms_norm(layout.hidden(linear(sa, m, "k")), sa["norm_k"]["weight"])
    v = layout.hidden(linear(sa, m, "v"))
    q_heads = rope(layout.heads(split_heads(q, heads)), angles)
    k_heads = rope(layout.heads(split_heads(k, heads)), angles)
    v_heads = layout.heads(split_heads(v, heads))
    out = attention(layout.attention_query(q_heads), layout.attention_kv(k_heads),
                    layout.attention_kv(v_heads))
    out = layout.heads(layout.attention_query(out))  # ulysses: the all-to-all back
    o = layout.tokens(linear(sa, merge_heads(out), "o"))
    return layout.tokens(x + o * gate_sa)


def _cross_attention(ca, x, context, heads, layout, dtype):
    n = layer_norm(x, ca["norm3"]["weight"], ca["norm3"]["bias"]).astype(dtype)
    q = rms_norm(layout.hidden(linear(ca, n, "q")), ca["norm_q"]["weight"])
    k = rms_norm(linear(ca, context, "k"), ca["norm_k"]["weight"])
    v = linear(ca, context, "v")
    out = attention(layout.heads(split_heads(q, heads)),
                    layout.text_heads(split_heads(k, heads)),
                    layout.text_heads(split_heads(v, heads)))
    o = layout.tokens(linear(ca, merge_heads(layout.heads(out)), "o"))
    return layout.tokens(x + o)


def _ffn(f, x, shift_ffn, scale_ffn, gate_ffn, layout, dtype):
    m = modulate(layer_norm(x), shift_ffn, scale_ffn).astype(dtype)
    hidden = jax.nn.gelu(layout.hidden(linear(f, m, "0")), approximate=True)
    y = layout.tokens(linear(f, hidden, "2"))
    return layout.tokens(x + y * gate_ffn)


def forward(params, latent, timestep, context, aoizora_axes=None):
    """One Wan 2.1 T2V forward: the zoo's BuildForward graph (see the module docstring)."""
    layout = Layout(aoizora_axes)
    patch = params["patch_embedding"]
    dtype = patch["weight"].dtype
    d = patch["weight"].shape[0]
    heads = d // HEAD_DIM
    batch, _, frames, height, width = latent.shape
    grid_t, grid_h, grid_w = frames // PATCH[0], height // PATCH[1], width // PATCH[2]
    tokens = grid_t * grid_h * grid_w

    # Patch embedding: Conv3d(16 -> d), kernel = stride = (1, 2, 2); flatten to [B, L, d].
    with jax.named_scope("patch_embedding"):
        conv = jax.lax.conv_general_dilated(
            latent.astype(dtype), patch["weight"], window_strides=PATCH, padding="VALID",
            dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))
        conv = conv + patch["bias"][None, :, None, None, None]
        x = layout.tokens(conv.reshape(batch, d, tokens).transpose(0, 2, 1))
    x = x.astype(jnp.float32)  # the residual stream

    # Time: e = MLP(sinusoidal(t)) in f32; e0 = Linear(d, 6d)(SiLU(e)) -> [B, 6, d].
    with jax.named_scope("time_embedding"):
        te = params["time_embedding"]
        e = linear_f32(te, jax.nn.silu(linear_f32(te, sinusoidal(timestep, FREQ_DIM), "0")), "2")
    with jax.named_scope("time_projection"):
        e0 = linear_f32(params["time_projection"], jax.nn.silu(e), "1").reshape(batch, 6, d)

    # Text: Linear(4096, d) -> GELU(tanh) -> Linear(d, d) on all 512 rows.
    with jax.named_scope("text_embedding"):
        tx = params["text_embedding"]
        text = layout.text(
            linear(tx, jax.nn.gelu(linear(tx, context, "0"), approximate=True), "2"))

    with jax.named_scope("rope"):
        angles = layout.rope(rope_angles(grid_t, grid_h, grid_w))
    blocks = params["blocks"]
    for index in sorted(blocks, key=int):
        with jax.named_scope(f"blocks.{index}"):
            x = block(blocks[index], x, e0, text, angles, heads, layout)

    # Head: (shift, scale) = modulation + e; LayerNorm -> modulate -> Linear(d, 64); unpatchify.
    with jax.named_scope("head"):
        head = params["head"]
        mod = head["modulation"] + e[:, None, :]
        shift, scale = mod[:, 0:1], mod[:, 1:2]
        m = modulate(layer_norm(x), shift, scale).astype(dtype)
        y = layout.tokens(linear(head, m, "head"))
        grid = y.reshape(batch, grid_t, grid_h, grid_w, PATCH[0], PATCH[1], PATCH[2],
                         OUT_CHANNELS)
        video = grid.transpose(0, 7, 1, 4, 2, 5, 3, 6).reshape(
            batch, OUT_CHANNELS, grid_t * PATCH[0], grid_h * PATCH[1], grid_w * PATCH[2])
        return video.astype(jnp.float32)
