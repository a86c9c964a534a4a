"""Lowers tests/jax/wan_jax.py to StableHLO text for the StableHLO importer's tests: one block of
Wan 2.1 at real sizes, without and with a planner candidate's shardings. Lowering only (no XLA
compile), so real sizes take seconds. Part of scripts/device/run-device-checks.sh.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \\
        python3 scripts/device/export_stablehlo.py --out OUT/stablehlo

Writes OUT/<name>.mlir (`jax.jit(forward, in_shardings=...).lower(...).as_text()`, JAX's default
form: Shardy `sdy` attributes where JAX 0.11 uses Shardy), OUT/<name>.debug.mlir (the same with
locations, `as_text(debug_info=True)`, which carry the zoo's op names through jax.named_scope)
when under 4 MB, and OUT/manifest.json (inputs, candidate, mesh, seconds, sizes, versions). The
shardings come from the committed candidates files through compile_candidates' own parsing, so a
spec means here what it means in the JAX loop.
"""

import argparse
import functools
import json
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "jax"))

from aoizora_jax import compile_candidates as cc  # noqa: E402

MAX_BYTES = 4 << 20
T = "tests/jax/"
# (name, input spec, candidates file or None, candidate id or None)
EXPORTS = [
    ("wan14b_720p_81f_1block", T + "inputs_wan14b_720p_1block.json", None, None),
    ("wan14b_720p_81f_1block_ulysses8", T + "inputs_wan14b_720p_1block.json",
     T + "cands_wan14b_720p_ulysses8.json", "ulysses8"),
    ("wan13b_480p_81f_1block_b2", T + "inputs_wan13b_480p_1block_cfg.json", None, None),
    ("wan13b_480p_81f_1block_ulysses4-cfg2", T + "inputs_wan13b_480p_1block_cfg.json",
     T + "cands_wan13b_480p_ulysses4-cfg2.json", "ulysses4-cfg2"),
]


def mesh_context(jax, mesh):
    """jax.set_mesh where it exists (the `with mesh:` form is deprecated after JAX 0.10)."""
    return jax.set_mesh(mesh) if hasattr(jax, "set_mesh") else mesh


def lower_one(jax, np, forward, inputs_path, candidates_path, candidate_id):
    """(lowered, description) for one export."""
    args = cc.parse_inputs(cc.load_json(os.path.join(ROOT, inputs_path)), inputs_path)
    if candidates_path is None:
        abstract = []
        for arg in args:
            if arg.leaves is None:
                abstract.append(jax.ShapeDtypeStruct(arg.shape, jax.numpy.dtype(arg.dtype)))
            else:
                abstract.append(cc.nest([(tuple(name.split(".")),
                                           jax.ShapeDtypeStruct(shape, jax.numpy.dtype(dtype)))
                                          for name, shape, dtype in arg.leaves]))
        return jax.jit(forward).lower(*abstract), {"mesh": None, "aoizora_axes": None}
    path = os.path.join(ROOT, candidates_path)
    candidates = cc.select_candidates(cc.parse_candidates(cc.load_json(path), candidates_path),
                                      [candidate_id], candidates_path)
    candidate = candidates[0]
    resolved, errors = cc.resolve(candidate, args, candidates_path, inputs_path)
    if errors:
        raise cc.UserError(None, "; ".join(errors))
    devices = jax.devices("cpu")
    count = candidate.device_count()
    if count > len(devices):
        raise RuntimeError(f"needs {count} CPU devices, {len(devices)} available")
    mesh = jax.sharding.Mesh(
        np.array(devices[:count], dtype=object).reshape([s for _, s in candidate.mesh]),
        tuple(name for name, _ in candidate.mesh))
    abstract, shardings = [], []
    for arg, placed in resolved:
        pairs = [(p, jax.ShapeDtypeStruct(p.shape, jax.numpy.dtype(p.dtype)),
                  jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*p.partition)))
                 for p in placed]
        if arg.leaves is None:
            abstract.append(pairs[0][1])
            shardings.append(pairs[0][2])
        else:
            abstract.append(cc.nest([(p.path, a) for p, a, _ in pairs]))
            shardings.append(cc.nest([(p.path, s) for p, _, s in pairs]))
    fn = functools.partial(forward, aoizora_axes=candidate.aoizora_axes())
    with mesh_context(jax, mesh):
        lowered = jax.jit(fn, in_shardings=tuple(shardings)).lower(*abstract)
    return lowered, {"mesh": candidate.mesh, "aoizora_axes": candidate.aoizora_axes()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    import jax
    import numpy as np
    import wan_jax

    manifest = {"jax_version": jax.__version__, "numpy_version": np.__version__,
                "shardy": bool(getattr(jax.config, "jax_use_shardy_partitioner", False)),
                "function": "tests/jax/wan_jax.py:forward", "exports": {}}
    failures = 0
    for name, inputs_path, candidates_path, candidate_id in EXPORTS:
        entry = {"inputs": inputs_path, "candidates": candidates_path,
                 "candidate": candidate_id}
        start = time.perf_counter()
        try:
            lowered, described = lower_one(jax, np, wan_jax.forward, inputs_path,
                                           candidates_path, candidate_id)
            entry.update(described)
            entry["lower_s"] = round(time.perf_counter() - start, 3)
            text = lowered.as_text()
            with open(os.path.join(options.out, name + ".mlir"), "w", encoding="utf-8") as f:
                f.write(text)
            entry.update(file=name + ".mlir", bytes=len(text.encode()),
                         sdy=("sdy." in text), status="lowered")
            try:
                debug = lowered.as_text(debug_info=True)
                if len(debug.encode()) < MAX_BYTES:
                    with open(os.path.join(options.out, name + ".debug.mlir"), "w",
                              encoding="utf-8") as f:
                        f.write(debug)
                    entry["debug_file"] = name + ".debug.mlir"
                entry["debug_bytes"] = len(debug.encode())
            except Exception as e:  # the plain text is what matters
                entry["debug_error"] = f"{type(e).__name__}: {e}"
            if entry["bytes"] >= MAX_BYTES:
                entry["warning"] = "over 4 MB"
            print(f"{name}: lowered in {entry['lower_s']} s, {entry['bytes']} bytes", flush=True)
        except Exception as e:
            failures += 1
            entry.update(status="failed", message=f"{type(e).__name__}: {e}")
            print(f"{name}: FAILED: {entry['message']}", file=sys.stderr, flush=True)
        manifest["exports"][name] = entry
        with open(os.path.join(options.out, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
