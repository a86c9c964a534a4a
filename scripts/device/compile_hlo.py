"""Compiles chosen planner candidates of tests/jax/wan_jax.py with XLA on 8 host CPU devices and
gathers the dumps of one model into one folder, as `aoizora plan --compiler xla --hlo-dir` reads
them (docs/jax-loop.md). Part of scripts/device/run-device-checks.sh.

    python3 scripts/device/compile_hlo.py --candidates tests/jax/cands_wan13b_h100x8.json \\
        --out OUT/wan13b --group tests/jax/inputs_wan13b.json ulysses4-ring2 \\
        --group tests/jax/inputs_wan13b_cfg.json ulysses4-cfg2 cfg2-tp4

A group is an input-spec file and the candidates compiled with it: a cfg candidate's forward
runs both CFG halves as one batch of 2 (the planner's ConfigFor), the others batch 1, so they need
different input files. Each group runs the real tool, python/aoizora_jax/compile_candidates.py
(--fake-devices 8 --platform cpu), as its own process into OUT/<group>/, all groups at once. A
candidate the tool fails is retried once in-process with the tool's own code but the mesh entered
with jax.set_mesh instead of `with mesh:` (deprecated after JAX 0.10), into OUT/<group>-setmesh/;
the manifest says which. Finally every compiled dump is copied to OUT/ and OUT/manifest.json
merges the groups' manifests (each entry gains "group" and "how").
"""

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "jax"))

from aoizora_jax import compile_candidates as cc  # noqa: E402  (standard library only)

FUNCTION = "wan_jax:forward"


def tool_command(candidates, inputs, out, ids):
    return [sys.executable, "-m", "aoizora_jax.compile_candidates", "--candidates", candidates,
            "--inputs", inputs, "--function", FUNCTION, "--python-path",
            os.path.join(ROOT, "tests", "jax"), "--out", out, "--fake-devices", "8",
            "--platform", "cpu", "--only", *ids]


def compile_with_set_mesh(jax, np, fn, devices, candidate, resolved):
    """compile_candidates.compile_candidate with the mesh entered by jax.set_mesh."""
    count = candidate.device_count()
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
    if cc.accepts_aoizora_axes(fn):
        fn = functools.partial(fn, aoizora_axes=candidate.aoizora_axes())
    start = time.perf_counter()
    with jax.set_mesh(mesh):
        lowered = jax.jit(fn, in_shardings=tuple(shardings)).lower(*abstract)
        lowered_at = time.perf_counter()
        compiled = lowered.compile()
    done = time.perf_counter()
    text = compiled.as_text()
    if not text:
        raise RuntimeError("compiled.as_text() returned no HLO")
    return text, lowered_at - start, done - lowered_at


def retry_with_set_mesh(candidates_path, inputs_path, out, ids):
    """Runs the tool's compile loop in-process with compile_with_set_mesh; its exit status."""
    os.environ.update(cc.fake_devices_env(8, os.environ))
    jax, np = cc.import_jax()
    if not hasattr(jax, "set_mesh"):
        print(f"retry: this JAX ({jax.__version__}) has no jax.set_mesh", flush=True)
        return 1
    candidates = cc.select_candidates(
        cc.parse_candidates(cc.load_json(candidates_path), candidates_path), ids, candidates_path)
    args = cc.parse_inputs(cc.load_json(inputs_path), inputs_path)
    resolved = {c.id: cc.resolve(c, args, candidates_path, inputs_path)[0] for c in candidates}
    fn = cc.load_function(FUNCTION, [os.path.join(ROOT, "tests", "jax")])
    options = argparse.Namespace(out=out, platform="cpu", candidates=candidates_path,
                                 function=FUNCTION)
    cc.compile_candidate = compile_with_set_mesh
    return cc.compile_all(options, candidates, resolved, fn, jax, np)


def read_manifest(folder):
    try:
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--group", nargs="+", action="append", required=True,
                        metavar=("INPUTS", "ID"))
    parser.add_argument("--deadline-s", type=float, default=600.0,
                        help="stop compiling after this many seconds and merge what is there")
    parser.add_argument("--retry-only", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.retry_only:  # the in-process retry, run as its own process by main()
        inputs, out, *ids = options.group[0]
        try:
            return retry_with_set_mesh(options.candidates, inputs, out, ids)
        except cc.UserError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2

    started = time.monotonic()
    os.makedirs(options.out, exist_ok=True)
    python_path = [os.path.join(ROOT, "python")] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(python_path), PYTHONUNBUFFERED="1")

    def wait_all(processes, label):
        for folder, process in processes:
            left = max(1.0, options.deadline_s - (time.monotonic() - started))
            try:
                code = process.wait(timeout=left)
            except subprocess.TimeoutExpired:
                process.kill()
                code = f"{process.wait()} (killed at the {options.deadline_s:.0f} s deadline)"
            print(f"{folder}: {label} exited {code}", flush=True)

    groups = []
    for number, (inputs, *ids) in enumerate(options.group):
        folder = os.path.join(options.out, f"group{number}")
        command = tool_command(options.candidates, inputs, folder, ids)
        print("$ " + " ".join(command), flush=True)
        groups.append((inputs, ids, folder, subprocess.Popen(command, env=env, cwd=ROOT)))
    wait_all([(folder, process) for _, _, folder, process in groups], "compile_candidates")

    # Candidates the tool failed: once more, all groups at once, entering the mesh by set_mesh.
    first = {folder: (read_manifest(folder) or {"candidates": {}})["candidates"]
             for _, _, folder, _ in groups}
    retries = []
    left = options.deadline_s - (time.monotonic() - started)
    for inputs, ids, folder, _ in groups:
        failed = [cid for cid in ids if first[folder].get(cid, {}).get("status") != "compiled"]
        if not failed:
            continue
        if left < 60:
            print(f"not retrying {', '.join(failed)}: {left:.0f} s left", flush=True)
            continue
        command = [sys.executable, os.path.abspath(__file__), "--candidates", options.candidates,
                   "--out", options.out, "--retry-only", "--group", inputs, folder + "-setmesh",
                   *failed]
        print(f"retrying with jax.set_mesh: $ {' '.join(command)}", flush=True)
        retries.append((folder + "-setmesh", subprocess.Popen(command, env=env, cwd=ROOT)))
    wait_all(retries, "set_mesh retry")

    merged = {"format": cc.MANIFEST_FORMAT, "candidates_file": options.candidates,
              "function": FUNCTION, "candidates": {}}
    for inputs, ids, folder, _ in groups:
        retried = (read_manifest(folder + "-setmesh") or {"candidates": {}})["candidates"]
        for cid in ids:
            entry = dict(first[folder].get(cid, {"status": "failed", "message": "no manifest "
                                                 "entry (the tool stopped before it)"}))
            entry.update(group=inputs, how="compile_candidates")
            source = folder
            if cid in retried:
                entry = dict(retried[cid], group=inputs, how="set_mesh retry",
                             first_try=entry.get("message", ""))
                source = folder + "-setmesh"
            if entry.get("status") == "compiled":
                shutil.copy(os.path.join(source, entry["hlo_file"]), options.out)
            merged["candidates"][cid] = entry
        for key in ("jax_version", "platform", "devices"):
            manifest = read_manifest(folder) or {}
            if key in manifest:
                merged[key] = manifest[key]
    with open(os.path.join(options.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    statuses = [e["status"] for e in merged["candidates"].values()]
    print(f"{options.out}: {statuses.count('compiled')} of {len(statuses)} compiled", flush=True)
    return 0 if all(s == "compiled" for s in statuses) else 1


if __name__ == "__main__":
    sys.exit(main())
