#!/usr/bin/env python3
"""The planner's output is pinned: plan.json of a fixed set of plans (the
README's example, a GPU node, denoising experts, a training step, an imported
program with its own shardings, a pinned multi-node plan) must equal the files
under tests/golden/plans/, so that a refactoring of the planner that changes a
plan is seen. Integers, strings and structure compare exactly; floats within a
relative 1e-9. Both builds run it, GCC's (make test) and clang's
(make test-sanitize): a plan that prices differently per compiler is a bug
(the training case once did, by 2.6%: src/pir/build/graph_builder.h, Op
order). Each configuration's
`tensors` (every PartitionSpec: names, shapes, axes; no floats) is kept as its
count and SHA-256, which keeps the goldens small.

  tests/plan_golden.py AOIZORA REPO_ROOT            compare
  tests/plan_golden.py AOIZORA REPO_ROOT --update   rewrite the goldens (a plan
                                                    that changes on purpose: say
                                                    why in the commit)
"""
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile

# name -> the plan's flags (each runs in the repository root with --threads 2
# --seed 1 -q --out DIR).
CASES = {
    # The README's example (make plan).
    "readme": "--model wan2.1-t2v-14b --width 1280 --height 720 --frames 81 --topology v5e:2x4",
    "h100_wan13b": "--model wan2.1-t2v-1.3b --width 832 --height 480 --frames 81 --topology h100:8",
    "h100_wan22_experts": "--model wan2.2-t2v-a14b --width 1280 --height 720 --frames 81 --topology h100:8",
    # Without Alpa, for time: the training graph's 2D meshes are large ILPs
    # (docs/alpa.md); their solve is deterministic (a node budget, not a clock).
    "v5p_train": "--model wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 --topology v5p:2x2x1 --train "
                 "--no-alpa",
    "stablehlo_annotated": "--stablehlo tests/data/stablehlo/wan14b_720p_81f_1block_ulysses8.mlir "
                           "--topology v5e:2x4",
    "efa_pinned": "--model wan2.1-t2v-14b --width 1280 --height 720 --frames 81 --topology h100:2x8:efa "
                  "--template ulysses=8,cfg=2",
}


def diff(a, b, path="$"):
    """The first difference between two JSON values, or None."""
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or a is None:
        return None if a == b else f"{path}: {a!r} != {b!r}"
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return None if a == b else f"{path}: {a} != {b}"
        if a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300):
            return None
        return f"{path}: {a!r} != {b!r}"
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if list(a) != list(b):
        return f"{path}: keys {sorted(set(a) ^ set(b))} differ (or their order)"
    for k in a:
        d = diff(a[k], b[k], f"{path}.{k}")
        if d:
            return d
    return None


def digest_tensors(value):
    """`value` with every "tensors" list replaced by its count and SHA-256."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "tensors" and isinstance(v, list):
                canon = json.dumps(v, sort_keys=True, separators=(",", ":")).encode()
                out[k] = {"count": len(v), "sha256": hashlib.sha256(canon).hexdigest()}
            else:
                out[k] = digest_tensors(v)
        return out
    if isinstance(value, list):
        return [digest_tensors(v) for v in value]
    return value


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    update = "--update" in sys.argv[3:]
    golden_dir = os.path.join(root, "tests", "golden", "plans")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, flags in CASES.items():
            out = os.path.join(tmp, name)
            cmd = [binary, "plan", *flags.split(), "--threads", "2", "--seed", "1", "-q",
                   "--out", out]
            run = subprocess.run(cmd, capture_output=True, text=True, cwd=root)  # paths in the plan relative to it
            if run.returncode != 0:
                print(f"FAIL {name}: exit {run.returncode}: {' '.join(cmd)}\n{run.stderr}")
                failed += 1
                continue
            with open(os.path.join(out, "plan.json")) as f:
                plan = digest_tensors(json.load(f))
            golden = os.path.join(golden_dir, name + ".json")
            if update:
                with open(golden, "w") as f:
                    json.dump(plan, f, indent=1)
                    f.write("\n")
                print(f"updated {golden}")
                continue
            if not os.path.exists(golden):
                print(f"FAIL {name}: no golden {golden} (run with --update)")
                failed += 1
                continue
            with open(golden) as f:
                d = diff(json.load(f), plan)
            if d:
                print(f"FAIL {name}: plan.json differs from {golden}: {d}\n  command: {' '.join(cmd)}")
                failed += 1
            else:
                print(f"ok {name}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
