"""Executes emitted plan_torch.py files on 8 gloo CPU processes and checks them against one process.

For each plan of PLANS (Wan 2.1 T2V-1.3B, 256x256, 5 frames, pinned with --template on an
8-GPU topology), this script

 1. runs `aoizora plan ... -o DIR` and loads DIR/plan_torch.py;
 2. prices check (no compute, no process group): on every one of the 8 ranks, the 1.3B block of
    tests/torch/wan_block.py on the meta device in bf16, at the plan's own sizes, goes through
    plan.parallelize_runtime(..., dry_run=True); the collectives it would issue in one block
    (kind, bytes per device, groups in logical ranks) must be, times the model's 30 blocks, the
    plan's PRICED_COLLECTIVES (classes of fewer than 30, outside the blocks, are listed apart);
 3. executed check: 8 processes (torch.multiprocessing, gloo, one per logical rank of the plan's
    RANK_LAYOUT) build the "tiny-1.3b-heads" block (the 1.3B model's 12 heads on 16-wide heads,
    so every Ulysses and tp degree of the plan divides them), with the same seeded weights and
    inputs, apply plan.parallelize_runtime (Megatron Linears, tp-sharded RMSNorm, Ulysses
    all-to-all, ring attention, CFG / data parallel batch split), run the forward on their slice
    and assemble the output; rank 0 compares it with the one-process forward of the same block.
    The collectives the executed run issued must be the dry run's, kind, groups and count
    (bytes differ: other sizes).

Tolerance (float32 throughout): the sharded run computes the same sums in another order (row-
parallel partial sums added by the all-reduce, RMSNorm squares summed per shard, ring attention's
online softmax rescaling by exp(m_old - m_new)). Each reordered sum of n terms moves its result by
at most about n * eps * sum|terms| (eps = 2^-24 for round to nearest) and typically sqrt(n) * eps
times it; the widest sum here is the ffn.2 Linear over n = 384 inputs, so a few hundred eps
(~1e-5) relative to the output's magnitude bounds what reordering can do, while any layout error
(a wrong slice, group or rank) moves the output by O(1). The check is
max|out - ref| <= ATOL + RTOL * max|ref| with RTOL = ATOL = 1e-5; the measured errors are
recorded (docs/pytorch.md).

Usage:
    PYTHONPATH=python /usr/bin/python3 tests/torch/run_plan.py --aoizora build/aoizora \\
        [--record tests/torch/data/run_plan.json] [--compare tests/torch/data/run_plan.json]
--record writes what was run and measured; --compare checks that the plans, their collectives
and the runtime's are the recorded ones (the errors must only be within the tolerance). Without
torch it exits 77 (CTest: skipped), or fails under CI=true.
"""

import argparse
import collections
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

# Exit code CTest reads as "skipped" (SKIP_RETURN_CODE): no torch outside CI.
SKIP = 77
try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
except ImportError as error:
    message = f"torch is not importable by {sys.executable} ({error}; scripts/install-deps --torch)"
    if os.environ.get("CI", "").lower() == "true":
        sys.exit("CI=true: " + message)
    print("skipped: " + message)
    sys.exit(SKIP)

from aoizora_torch import runtime  # noqa: E402

WORLD = 8
MODEL = "wan2.1-t2v-1.3b"
PLAN_ARGS = ["--model", MODEL, "--width", "256", "--height", "256", "--frames", "5", "--no-alpa", "-q"]
# (topology, template, extra arguments): tensor parallel, Ulysses, ring, USP, Megatron with
# Ulysses, data parallel, each with CFG parallel where 8 allows; l40s:8 (PCIe) is where the
# search moves ranks off the default order (RANK_LAYOUT [0, 2, 4, 6, 1, 3, 5, 7]). Ulysses 8 and
# tp 8 do not divide the 12 heads (aoizora refuses them).
PLANS = [
    ("h100:8", "tp=4,cfg=2", []),
    ("h100:8", "ulysses=4,cfg=2", []),
    ("h100:8", "ring=4,cfg=2", []),
    ("h100:8", "ulysses=2,ring=2,cfg=2", []),
    ("h100:8", "cfg=2,tp=2,ulysses=2", []),
    ("h100:8", "ring=8", []),
    ("h100:8", "dp=2,cfg=2,ring=2", ["--batch", "2"]),
    ("l40s:8", "ulysses=4,ring=2", []),
    # Ulysses in head chunks: 12 heads / 4 = 3 groups, 3 chunks (async all-to-alls per chunk).
    ("h100:8", "ulysses=4,cfg=2,ulysses_chunks=3", []),
]
TINY = "tiny-1.3b-heads"
TINY_GRID = (2, 4, 8)  # frames, rows, cols of patches: 64 video tokens
TINY_TEXT = 16
RTOL = ATOL = 1e-5
SEED = 2026


def load_wan_block():
    spec = importlib.util.spec_from_file_location("aoizora_test_wan_block", os.path.join(HERE, "wan_block.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_plan(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_plans(aoizora, folder):
    out = []
    for index, (topology, template, extra) in enumerate(PLANS):
        directory = os.path.join(folder, f"plan{index}")
        run = subprocess.run([aoizora, "plan", *PLAN_ARGS, *extra, "--topology", topology, "--template", template,
                              "-o", directory], capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise RuntimeError(f"aoizora plan {topology} {template} failed ({run.returncode}):\n{run.stderr[-3000:]}")
        with open(os.path.join(directory, "plan.json")) as f:
            best = json.load(f)["best"]
        out.append({"topology": topology, "template": template, "extra": extra, "dir": directory, "best": best})
    return out


def plan_sizes(best):
    """Block sizes of the plan (the zoo's Wan: latent [B, 16, F, H, W], patches 1x2x2; context
    [B, text, 4096]): rows of the batch, video tokens, text tokens."""
    tensors = {t["name"]: t for t in best["tensors"]}
    latent, context = tensors["latent"]["shape"], tensors["context"]["shape"]
    return latent[0], latent[2] * (latent[3] // 2) * (latent[4] // 2), context[1]


def block_count(plan):
    return len({name.split(".")[1] for name in plan.PARAM_PLACEMENTS if name.startswith("blocks.")})


def key(entry):
    """(kind, bytes, groups) with the groups in a canonical order (each group keeps its own)."""
    kind, size, groups = entry
    return (kind, size, tuple(sorted(tuple(g) for g in groups)))


def priced_per_block(plan, blocks):
    inside, outside = collections.Counter(), []
    for kind, size, groups, count in plan.PRICED_COLLECTIVES:
        if count // blocks:
            inside[key((kind, size, runtime.expand_groups(groups)))] += count // blocks
        if count % blocks:
            outside.append([kind, size, groups, count % blocks])
    return inside, outside


def log_counter(log, with_bytes=True):
    return collections.Counter(key((c.kind, c.bytes if with_bytes else 0, c.groups)) for c in log)


def as_json(counter):
    return sorted([[kind, size, [list(g) for g in groups], count] for (kind, size, groups), count in counter.items()])


def shard_inputs(rt, x, e0, context, cos, sin):
    """This rank's slice of the Wan block's inputs: x by batch and tokens, e0 and the context by
    batch, the RoPE tables by tokens."""
    return (rt.shard(rt.shard(x, 0, rt.batch_axes), 1, rt.sequence_axes), rt.shard(e0, 0, rt.batch_axes),
            rt.shard(context, 0, rt.batch_axes), rt.shard(cos, 0, rt.sequence_axes), rt.shard(sin, 0, rt.sequence_axes))


def dry_run(plan, best, wan):
    """The collectives of one block at the plan's sizes, identical on every rank."""
    batch, video, text = plan_sizes(best)
    logs = []
    for rank in range(WORLD):
        module = wan.WanBlockWrapper.from_preset(MODEL, device="meta", dtype=torch.bfloat16)
        rt = plan.parallelize_runtime(module, rank=rank, dry_run=True)
        d, head_dim = module.config.dim, module.config.head_dim
        x = torch.empty(batch, video, d, device="meta", dtype=torch.bfloat16)
        e0 = torch.empty(batch, 6, d, device="meta", dtype=torch.bfloat16)
        context = torch.empty(batch, text, d, device="meta", dtype=torch.bfloat16)
        rope = torch.empty(video, head_dim, device="meta", dtype=torch.bfloat16)
        module(*shard_inputs(rt, x, e0, context, rope, rope))
        logs.append(rt.comm.log)
    for rank in range(1, WORLD):
        if logs[rank] != logs[0]:
            raise AssertionError(f"rank {rank} issues other collectives than rank 0: {logs[rank]} vs {logs[0]}")
    return logs[0]


def tiny_weights(module, seed):
    """Seeded weights, the same on every process: Linear weights N(0, 1/in), everything else
    (biases, norm weights, the modulation table) 1-ish or 0-ish with noise, so that a wrong
    slice of any parameter shows."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in module.named_parameters():
            noise = torch.randn(param.shape, generator=gen)
            if name.endswith("weight") and param.dim() == 2:
                param.copy_(noise / param.shape[1] ** 0.5)
            elif name.endswith("norm_q.weight") or name.endswith("norm_k.weight") or name.endswith("norm3.weight"):
                param.copy_(1.0 + 0.1 * noise)
            else:
                param.copy_(0.1 * noise)


def tiny_inputs(wan, config, batch, seed):
    gen = torch.Generator().manual_seed(seed + 1)
    tokens = TINY_GRID[0] * TINY_GRID[1] * TINY_GRID[2]
    cos, sin = wan.rope_tables(TINY_GRID, config.head_dim)
    return (torch.randn(batch, tokens, config.dim, generator=gen), torch.randn(batch, 6, config.dim, generator=gen),
            torch.randn(batch, TINY_TEXT, config.dim, generator=gen), cos, sin)


def process_ranks(plan, log):
    """Whether every collective ran on the process ranks RANK_LAYOUT gives its logical groups
    (read from the plan here, not from the runtime's mesh)."""
    layout = plan.RANK_LAYOUT
    for collective in log:
        want = tuple(tuple(layout[logical] for logical in group) for group in collective.groups)
        if collective.kind == "collective-permute":
            want = tuple(sorted(want))
        if tuple(collective.ranks) != want:
            return False
    return True


def worker(rank, plans, store, results):
    torch.set_num_threads(1)
    # A collective the ranks disagree on fails after a minute instead of hanging.
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=60))
    wan = load_wan_block()
    for index, entry in enumerate(plans):
        plan = load_plan(entry["plan_torch"], f"aoizora_plan_{index}")
        module = wan.WanBlockWrapper.from_preset(TINY)
        tiny_weights(module, SEED + index)
        inputs = tiny_inputs(wan, module.config, entry["batch"], SEED + index)
        reference = None
        if rank == 0:
            with torch.no_grad():
                reference = module(*inputs)
        rt = plan.parallelize_runtime(module)
        with torch.no_grad():
            out = module(*shard_inputs(rt, *inputs))
        issued = list(rt.comm.log)
        whole = rt.assemble(out, {0: rt.batch_axes, 1: rt.sequence_axes})
        if rank == 0:
            error = (whole - reference).abs().max().item()
            scale = reference.abs().max().item()
            results[index] = {"max_abs_error": error, "max_abs_output": scale, "on_layout": process_ranks(plan, issued),
                              "issued": as_json(log_counter(issued, with_bytes=False)),
                              "batch_axes": [rt.mesh.names[a] for a in rt.batch_axes],
                              "sequence_axes": [rt.mesh.names[a] for a in rt.sequence_axes]}
    dist.barrier()
    dist.destroy_process_group()


def execute(plans):
    with tempfile.TemporaryDirectory(prefix="aoizora_run_plan_") as tmp:
        manager = mp.Manager()
        results = manager.dict()
        mp.spawn(worker, args=(plans, os.path.join(tmp, "store"), results), nprocs=WORLD, join=True)
        return [results[index] for index in range(len(plans))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--aoizora", required=True)
    parser.add_argument("--record", help="write what was run and measured to this JSON file")
    parser.add_argument("--compare", help="check the plans and collectives against this recorded JSON file")
    args = parser.parse_args()
    wan = load_wan_block()
    failures = []
    with tempfile.TemporaryDirectory(prefix="aoizora_run_plan_plans_") as folder:
        plans = make_plans(args.aoizora, folder)
        records, work = [], []
        for index, entry in enumerate(plans):
            path = os.path.join(entry["dir"], "plan_torch.py")
            plan = load_plan(path, f"aoizora_plan_{index}")
            blocks = block_count(plan)
            priced, outside = priced_per_block(plan, blocks)
            log = dry_run(plan, entry["best"], wan)
            issued = log_counter(log)
            label = f"{entry['topology']} {entry['template']}"
            if issued != priced:
                failures.append(f"{label}: the runtime issues {as_json(issued)} per block, the plan priced "
                                f"{as_json(priced)}")
            batch, video, text = plan_sizes(entry["best"])
            records.append({
                "topology": entry["topology"], "template": entry["template"],
                "plan_arguments": PLAN_ARGS + entry["extra"],
                "mesh": dict(zip(plan.MESH_DIM_NAMES, plan.MESH_SHAPE)), "axis_roles": list(plan.AXIS_ROLES),
                "rank_layout": list(plan.RANK_LAYOUT), "blocks": blocks,
                "plan_block_sizes": {"batch": batch, "video_tokens": video, "text_tokens": text, "dtype": "bf16"},
                "priced_per_block": as_json(priced), "priced_outside_blocks": outside,
                "dry_run_per_block": as_json(issued)})
            work.append({"plan_torch": path, "batch": batch})
        measured = execute(work)
    worst = 0.0
    for record, result in zip(records, measured):
        label = f"{record['topology']} {record['template']}"
        expected = collections.Counter()
        for kind, _, groups, count in record["dry_run_per_block"]:
            expected[(kind, 0, tuple(tuple(g) for g in groups))] += count
        expected = as_json(expected)
        if result["issued"] != expected:
            failures.append(f"{label}: executed {result['issued']}, dry run {expected}")
        if not result["on_layout"]:
            failures.append(f"{label}: collectives not on the process ranks RANK_LAYOUT {record['rank_layout']} names")
        bound = ATOL + RTOL * result["max_abs_output"]
        record.update({"executed": {"preset": TINY, "grid": list(TINY_GRID), "text_tokens": TINY_TEXT,
                                    "batch_axes": result["batch_axes"], "sequence_axes": result["sequence_axes"],
                                    "max_abs_error": result["max_abs_error"],
                                    "max_abs_output": result["max_abs_output"], "bound": bound}})
        worst = max(worst, result["max_abs_error"] / max(result["max_abs_output"], 1e-30))
        status = "ok" if result["max_abs_error"] <= bound else "FAIL"
        if status != "ok":
            failures.append(f"{label}: max |out - ref| = {result['max_abs_error']:.3g} > {bound:.3g}")
        print(f"{status:4} {label:32} mesh {record['mesh']} layout {record['rank_layout']}: "
              f"max |err| {result['max_abs_error']:.2e} (|ref| <= {result['max_abs_output']:.2f}), "
              f"{sum(n for *_, n in record['priced_per_block'])} collectives per block as priced")
    if args.compare:
        with open(args.compare) as f:
            recorded = json.load(f)["plans"]
        strip = [{k: v for k, v in r.items() if k != "executed"} for r in records]
        old = [{k: v for k, v in r.items() if k != "executed"} for r in recorded]
        if strip != old:
            failures.append(f"the plans or their collectives differ from {args.compare} (re-record with --record)")
    if args.record:
        with open(args.record, "w") as f:
            json.dump({"made_by": "PYTHONPATH=python /usr/bin/python3 tests/torch/run_plan.py --aoizora build/aoizora "
                                  "--record tests/torch/data/run_plan.json",
                       "torch": torch.__version__, "world": WORLD, "backend": "gloo", "rtol": RTOL, "atol": ATOL,
                       "plans": records}, f, indent=1)
            f.write("\n")
    print(f"{len(records)} plans, worst max|err| / max|ref| = {worst:.2e}")
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
