"""Checks one block of tests/jax/wan_jax.py against tests/torch/wan_block.py (written separately,
also from the zoo) on the tiny preset in f32, with numpy standing in for JAX
(tests/jax/smoke_numpy.py): the RoPE pairing, the norms, the modulation and the attention must
agree. Where JAX is missing and torch is there (Debian's /usr/bin/python3):

    /usr/bin/python3 tests/jax/compare_torch_block.py
"""

import importlib.util
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import smoke_numpy  # noqa: E402

smoke_numpy.install_fake_jax([])
import wan_jax  # noqa: E402


def main():
    path = os.path.join(HERE, "..", "torch", "wan_block.py")
    spec = importlib.util.spec_from_file_location("wan_block", path)
    wan_block = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wan_block)
    torch.manual_seed(0)
    module = wan_block.WanBlockWrapper.from_preset("tiny").eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randn_like(parameter) * 0.1)
    grid = (2, 3, 4)
    x, e0 = torch.randn(2, 24, 256), torch.randn(2, 6, 256)
    context = torch.randn(2, 16, 256)
    with torch.no_grad():
        expected = module(x, e0, context, *wan_block.rope_tables(grid)).numpy()

    state = {k: v.detach().numpy().astype(np.float32) for k, v in module.state_dict().items()}

    def linear(prefix):  # torch stores [out, in]; the zoo (and wan_jax) [in, out]
        return {"weight": state[prefix + ".weight"].T.copy(), "bias": state[prefix + ".bias"]}

    b = "blocks.0."
    params = {"modulation": state[b + "modulation"],
              "self_attn": {n: linear(b + "self_attn." + n) for n in "qkvo"},
              "cross_attn": {n: linear(b + "cross_attn." + n) for n in "qkvo"},
              "ffn": {"0": linear(b + "ffn.0"), "2": linear(b + "ffn.2")}}
    for attention in ("self_attn", "cross_attn"):
        for norm in ("norm_q", "norm_k"):
            params[attention][norm] = {"weight": state[f"{b}{attention}.{norm}.weight"]}
    # Wan's checkpoints (and wan_block.py) keep norm3 on the block; the zoo under cross_attn.
    params["cross_attn"]["norm3"] = {"weight": state[b + "norm3.weight"],
                                     "bias": state[b + "norm3.bias"]}
    got = wan_jax.block(params, x.numpy(), e0.numpy(), context.numpy(),
                        wan_jax.rope_angles(*grid), 2, wan_jax.Layout(None))
    error = float(np.abs(got - expected).max())
    print(f"max |wan_jax - wan_block| = {error:.3g} (outputs up to {np.abs(expected).max():.3g})")
    assert error < 1e-3, error
    print("ok")


if __name__ == "__main__":
    main()
