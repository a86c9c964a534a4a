"""Runs tests/jax/wan_jax.py on a tiny Wan with numpy standing in for JAX, where JAX is not
installed (the development machines): checks shapes, dtypes (float16 plays bf16) and that every
sharding constraint has one entry per dimension and names only mesh axes.

    python3 tests/jax/smoke_numpy.py    # needs numpy only
"""

import contextlib
import os
import sys
import types

import numpy as np


def install_fake_jax(calls):
    jax = types.ModuleType("jax")
    jnp = types.ModuleType("jax.numpy")
    for name in ["arange", "power", "concatenate", "broadcast_to", "cos", "sin", "mean", "square",
                 "stack", "float32"]:
        setattr(jnp, name, getattr(np, name))
    jnp.einsum = lambda eq, *ops, preferred_element_type=None: (
        np.einsum(eq, *ops).astype(preferred_element_type or np.result_type(*ops)))
    lax = types.ModuleType("jax.lax")
    lax.rsqrt = lambda x: (1.0 / np.sqrt(x)).astype(x.dtype)

    def conv(x, w, window_strides, padding, dimension_numbers):
        assert window_strides == (1, 2, 2) and padding == "VALID" and w.shape[2:] == (1, 2, 2)
        b, c, t, h, wd = x.shape
        xr = x.reshape(b, c, t, h // 2, 2, wd // 2, 2)
        return np.einsum("bcthiwj,ocij->bothw", xr, w[:, :, 0]).astype(x.dtype)

    def constrain(x, spec):
        calls.append((x.shape, tuple(spec)))
        return x

    lax.conv_general_dilated = conv
    lax.with_sharding_constraint = constrain
    nn = types.ModuleType("jax.nn")
    nn.silu = lambda x: x / (1 + np.exp(-x))
    nn.gelu = lambda x, approximate: 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x ** 3)))

    def softmax(x, axis):
        z = np.exp(x - x.max(axis=axis, keepdims=True))
        return z / z.sum(axis=axis, keepdims=True)

    nn.softmax = softmax
    sharding = types.ModuleType("jax.sharding")

    class PartitionSpec(tuple):
        def __new__(cls, *entries):
            return super().__new__(cls, entries)

    sharding.PartitionSpec = PartitionSpec
    jax.numpy, jax.lax, jax.nn, jax.sharding = jnp, lax, nn, sharding
    jax.named_scope = lambda name: contextlib.nullcontext()
    sys.modules.update({"jax": jax, "jax.numpy": jnp, "jax.lax": lax, "jax.nn": nn,
                        "jax.sharding": sharding})


def tiny_params(d, ffn, blocks, rng):
    def w(*shape):
        return (rng.standard_normal(shape) * 0.05).astype(np.float16)

    def lin(i, o):
        return {"weight": w(i, o), "bias": w(o)}

    def block():
        attn = {n: lin(d, d) for n in "qkvo"}
        attn["norm_q"] = {"weight": w(d)}
        attn["norm_k"] = {"weight": w(d)}
        cross = dict({n: lin(d, d) for n in "qkvo"}, norm_q={"weight": w(d)},
                     norm_k={"weight": w(d)}, norm3={"weight": w(d), "bias": w(d)})
        return {"modulation": w(1, 6, d), "self_attn": attn, "cross_attn": cross,
                "ffn": {"0": lin(d, ffn), "2": lin(ffn, d)}}

    return {"patch_embedding": {"weight": w(d, 16, 1, 2, 2), "bias": w(d)},
            "time_embedding": {"0": lin(256, d), "2": lin(d, d)},
            "time_projection": {"1": lin(d, 6 * d)},
            "text_embedding": {"0": lin(4096, d), "2": lin(d, d)},
            "blocks": {str(i): block() for i in range(blocks)},
            "head": {"modulation": w(1, 2, d), "head": lin(d, 64)}}


def main():
    calls = []
    install_fake_jax(calls)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import wan_jax

    rng = np.random.default_rng(0)
    params = tiny_params(256, 512, 2, rng)
    latent = rng.standard_normal((2, 16, 3, 8, 12)).astype(np.float32)
    timestep = np.array([500.0, 500.0], np.float32)
    context = (rng.standard_normal((2, 512, 4096)) * 0.1).astype(np.float16)
    mesh_axes = {"cfg": 2, "ring": 2, "ulysses": 2, "tp": 2}
    cases = [None, {"ulysses": "ulysses"}, {"cfg": "cfg", "ulysses": "ulysses"},
             {"ring": "ring", "ulysses": "ulysses"}, {"cfg": "cfg", "tp": "tp"},
             {"ulysses": "ulysses", "tp": "tp"}, {"ring": "ring"}]
    reference = None
    for axes in cases:
        calls.clear()
        out = wan_jax.forward(params, latent, timestep, context, aoizora_axes=axes)
        assert out.shape == latent.shape and out.dtype == np.float32, (out.shape, out.dtype)
        assert np.all(np.isfinite(out))
        if reference is None:
            reference = out
        assert np.allclose(out, reference), "constraints changed the values"
        for shape, spec in calls:
            assert len(spec) == len(shape), (shape, spec)
            used = [a for e in spec if e for a in (e if isinstance(e, tuple) else (e,))]
            assert len(used) == len(set(used)) and all(a in mesh_axes for a in used), spec
        if axes is None:
            assert not calls
        print(f"{axes}: {len(calls)} constraints, out {out.shape} {out.dtype}, "
              f"|v| mean {np.abs(out).mean():.4f}")
    print("ok")


if __name__ == "__main__":
    main()
