"""Writes a compile_candidates input-spec file (docs/jax-loop.md) for tests/jax/wan_jax.py from
the planner's own graph, so the parameter names, shapes and dtypes are the zoo's exactly.

    build/aoizora inspect -m wan2.1-t2v-1.3b --width 832 --height 480 --frames 17 --print-pir \\
        | python3 tests/jax/make_inputs.py --blocks 2 > tests/jax/inputs_wan13b.json

Reads the PIR text on stdin: its `input` lines become the function's array arguments after the
parameter tree, in graph order (latent, timestep, context), each taking its spec from the
candidate's `inputs` under its own name; its `param` lines become the `params` tree, keeping
`blocks.N.*` only for N < --blocks (wan_jax.forward counts the blocks from the tree). Standard
library only.
"""

import argparse
import json
import re
import sys

DTYPES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16"}
LINE = re.compile(r'^\s*(input|param) %\d+ "([^"]+)" : (\w+)\[([0-9,]*)\]\s*$')
BLOCK = re.compile(r"^blocks\.(\d+)\.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, required=True, help="blocks to keep (>= 1)")
    options = parser.parse_args()
    inputs, params = [], {}
    for line in sys.stdin:
        match = LINE.match(line)
        if not match:
            continue
        role, name, dtype, dims = match.groups()
        if dtype not in DTYPES:
            sys.exit(f"error: {name}: dtype {dtype} has no JAX name here")
        shape = [int(d) for d in dims.split(",")] if dims else []
        if role == "input":
            inputs.append({"name": name, "shape": shape, "dtype": DTYPES[dtype],
                           "spec_from": name})
            continue
        block = BLOCK.match(name)
        if block and int(block.group(1)) >= options.blocks:
            continue
        params[name] = {"shape": shape, "dtype": DTYPES[dtype]}
    if not inputs or not params:
        sys.exit("error: no `input` or `param` lines on stdin (expected `aoizora inspect "
                 "--print-pir` output)")
    lines = ['{"args": [', '  {"name": "params", "tree": {']
    leaves = [f"    {json.dumps(name)}: {json.dumps(leaf)}" for name, leaf in params.items()]
    lines.append(",\n".join(leaves))
    lines.append("  }},")
    lines.append(",\n".join(f"  {json.dumps(arg)}" for arg in inputs))
    lines.append("]}")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
