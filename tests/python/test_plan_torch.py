"""Tests of the parallelize_module plan in the generated plan_torch.py (src/emit/torch_parallelize.h,
docs/pytorch.md), with a real plan and, where installed, real torch.

Plans Wan 2.1 T2V-1.3B on h100:8 with tensor parallelism pinned (--template tp=4,cfg=2), then
compiles the generated plan_torch.py, imports it and calls its functions: the pure ones always,
on the parameter names of the tiny Wan block of tests/torch/wan_block.py when torch is there;
parallelize_plan() and apply_plan() need DTensor (torch >= 2.0): on older torch they must raise
ImportError, on newer ones apply_plan runs on a one-process gloo group. parallelize_runtime() (any
torch) runs dry on the 1.3B block on the meta device: its collectives are the priced ones.

The binary: $AOIZORA (CTest sets it); without it the tests skip. Run:
    AOIZORA=build/aoizora PYTHONPATH=python /usr/bin/python3 -m unittest tests/python/test_plan_torch.py -v
"""

import importlib.util
import os
import py_compile
import re
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

from aoizora_torch import export as ex  # noqa: E402

from torch_support import IN_CI, require_torch, torch  # noqa: E402,F401

# Megatron's split of the zoo's Wan block (shard/templates.cc): q/k/v and ffn.0 by columns,
# o and ffn.2 by rows.
COLWISE = ("self_attn.q", "self_attn.k", "self_attn.v", "cross_attn.q", "cross_attn.k", "cross_attn.v", "ffn.0")
ROWWISE = ("self_attn.o", "cross_attn.o", "ffn.2")
# Every Linear weight of the zoo's Wan 2.1 T2V (rank 2, with a bias).
LINEAR_WEIGHT = re.compile(r"(\.(self_attn|cross_attn)\.[qkvo]|\.ffn\.[02]|^text_embedding\.[02]|^time_embedding\.[02]"
                           r"|^time_projection\.1|^head\.head)\.weight$")


def aoizora_binary():
    path = os.environ.get("AOIZORA", "")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None



_state = {}


def setUpModule():
    binary = aoizora_binary()
    if binary is None:
        raise unittest.SkipTest("no aoizora binary: set AOIZORA=path/to/aoizora (CTest does)")
    _state["tmp"] = tempfile.TemporaryDirectory(prefix="aoizora_plan_torch_")
    out = os.path.join(_state["tmp"].name, "plan")
    run = subprocess.run([binary, "plan", "--model", "wan2.1-t2v-1.3b", "--topology", "h100:8", "--template",
                          "tp=4,cfg=2", "--width", "256", "--height", "256", "--frames", "5", "--no-alpa", "-q",
                          "-o", out], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"aoizora plan failed ({run.returncode}):\n{run.stderr[-4000:]}")
    path = os.path.join(out, "plan_torch.py")
    py_compile.compile(path, doraise=True)
    spec = importlib.util.spec_from_file_location("aoizora_generated_plan_torch", path)
    plan = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plan)
    _state["plan"] = plan


def tearDownModule():
    if "tmp" in _state:
        _state["tmp"].cleanup()


class ParallelizePlanTest(unittest.TestCase):
    def test_parameter_names_are_fqns(self):
        # Plan TensorSpec names must be the parameters' own names, not PIR message labels
        # ('value %45 "blocks.0.self_attn.q.weight"'), or nothing here matches a module.
        labels = [name for name in _state["plan"].PARAM_PLACEMENTS if name.startswith("value %")]
        self.assertEqual(labels[:3], [], "the planner names parameters by pir::ValueLabel "
                         "(src/search/planner.cc TensorSpecs), not by their names")
        self.assertIn("blocks.0.self_attn.q.weight", _state["plan"].PARAM_PLACEMENTS)

    def test_megatron_linears_are_styles(self):
        plan = _state["plan"]
        self.assertIn(plan.TP_MESH_DIM, plan.MESH_DIM_NAMES)
        self.assertEqual(plan.MESH_SHAPE[plan.MESH_DIM_NAMES.index(plan.TP_MESH_DIM)], 4)
        for block in range(30):
            for name in COLWISE:
                self.assertEqual(plan.PARALLELIZE_PLAN[f"blocks.{block}.{name}"], "colwise", name)
            for name in ROWWISE:
                self.assertEqual(plan.PARALLELIZE_PLAN[f"blocks.{block}.{name}"], "rowwise", name)

    def test_placements_agree_with_param_placements(self):
        # module_placements is PARAM_PLACEMENTS in PyTorch's layout: the zoo's Linear weights are
        # [in, out], so their two dims swap; everything else is the same.
        plan = _state["plan"]
        placements = plan.module_placements(list(plan.PARAM_PLACEMENTS), strict=True)
        self.assertEqual(set(placements), set(plan.PARAM_PLACEMENTS))
        swapped = 0
        for name, ours in plan.PARAM_PLACEMENTS.items():
            want = list(ours)
            if LINEAR_WEIGHT.search(name):
                want = [("shard", 1 - p[1]) if p[0] == "shard" else p for p in ours]
                swapped += 1
            self.assertEqual(placements[name], want, name)
        self.assertEqual(swapped, 30 * 10 + 6)
        with self.assertRaises(KeyError):
            plan.module_placements(["not.a.parameter"], strict=True)

    def test_tiny_torch_module(self):
        require_torch()
        plan = _state["plan"]
        cls = ex.load_class(os.path.join(REPO, "tests", "torch", "wan_block.py") + ":WanBlockWrapper")
        module = cls.from_preset("tiny")
        names = [name for name, _ in module.named_parameters()]
        placements = plan.module_placements(names)
        tp = plan.MESH_DIM_NAMES.index(plan.TP_MESH_DIM)
        replicated = [("replicate",)] * len(plan.MESH_SHAPE)

        def on_tp(dim):
            want = list(replicated)
            want[tp] = ("shard", dim)
            return want

        # nn.Linear weights are [out, in]: ColwiseParallel = Shard(0), RowwiseParallel = Shard(1).
        self.assertEqual(placements["blocks.0.self_attn.q.weight"], on_tp(0))
        self.assertEqual(placements["blocks.0.self_attn.q.bias"], on_tp(0))
        self.assertEqual(placements["blocks.0.ffn.2.weight"], on_tp(1))
        self.assertEqual(placements["blocks.0.ffn.2.bias"], replicated)
        # The zoo names Wan's affine cross-attention norm "cross_attn.norm3"; the checkpoint (and
        # this module) "norm3": not in the plan, so replicated, or an error when strict.
        self.assertEqual(placements["blocks.0.norm3.weight"], replicated)
        with self.assertRaises(KeyError):
            plan.module_placements(names, strict=True)

    def test_dtensor_functions(self):
        require_torch()
        plan = _state["plan"]
        if ex.torch_version() < (2, 0):
            for call in (plan.parallelize_plan, lambda: plan.apply_plan(torch.nn.Linear(2, 2), None)):
                with self.assertRaises(ImportError):
                    call()
            return
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

        styles = plan.parallelize_plan()
        self.assertIsInstance(styles["blocks.0.self_attn.q"], ColwiseParallel)
        self.assertIsInstance(styles["blocks.0.ffn.2"], RowwiseParallel)
        self.assertNotIn("blocks.0.modulation", styles)

    def test_runtime_dry_run_issues_the_priced_collectives(self):
        # The torch-1.13 path (aoizora_torch.runtime) on the plan's own sizes: Wan 2.1 1.3B's block
        # on the meta device in bf16, 256x256 x 5 frames = 2 x 16 x 16 = 512 video tokens, 512 text
        # tokens, batch 2 (the CFG branches) split on cfg: 1 row per rank. Per block, rank 5
        # (logical 5 = cfg 1, tp 1) issues on the tp groups {0..3}, {4..7}:
        #   3 all-reduces of a rowwise output [1, 512, 1536] bf16 = 1572864 bytes (self o, cross o,
        #     ffn.2), and 4 of the RMSNorm sums of squares [1, 512, 1] f32 = 2048 bytes (norm_q, norm_k
        #     of both attentions; the text has 512 tokens too);
        # which is the plan's PRICED_COLLECTIVES divided by its 30 blocks.
        require_torch()
        plan = _state["plan"]
        self.assertEqual(plan.AXIS_ROLES, ("cfg", "tp"))
        cls = ex.load_class(os.path.join(REPO, "tests", "torch", "wan_block.py") + ":WanBlockWrapper")
        module = cls.from_preset("wan2.1-t2v-1.3b", device="meta", dtype=torch.bfloat16)
        rt = plan.parallelize_runtime(module, rank=5, dry_run=True)
        meta = dict(device="meta", dtype=torch.bfloat16)
        x = rt.shard(torch.empty(2, 512, 1536, **meta), 0, rt.batch_axes)
        rope = torch.empty(512, 128, **meta)
        module(x, rt.shard(torch.empty(2, 6, 1536, **meta), 0, rt.batch_axes),
               rt.shard(torch.empty(2, 512, 1536, **meta), 0, rt.batch_axes), rope, rope)
        tp_groups = ((0, 1, 2, 3), (4, 5, 6, 7))
        got = sorted((c.kind, c.bytes, c.groups) for c in rt.comm.log)
        self.assertEqual(got, sorted([("all-reduce", 1572864, tp_groups)] * 3 + [("all-reduce", 2048, tp_groups)] * 4))
        priced = sorted((kind, size, groups, count) for kind, size, groups, count in plan.PRICED_COLLECTIVES)
        self.assertEqual(priced, [("all-reduce", 2048, "[2,4]<=[8]", 4 * 30),
                                  ("all-reduce", 1572864, "[2,4]<=[8]", 3 * 30)])

    def test_apply_plan_on_one_process(self):
        require_torch()
        if ex.torch_version() < (2, 2):
            self.skipTest("DeviceMesh with names needs torch >= 2.2")
        import torch.distributed as dist
        from torch.distributed.device_mesh import DeviceMesh

        plan = _state["plan"]
        with tempfile.TemporaryDirectory() as tmp:
            dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "store"), rank=0,
                                    world_size=1)
            try:
                ones = (1,) * len(plan.MESH_SHAPE)
                mesh = DeviceMesh("cpu", torch.zeros(ones, dtype=torch.int), mesh_dim_names=plan.MESH_DIM_NAMES)
                cls = ex.load_class(os.path.join(REPO, "tests", "torch", "wan_block.py") + ":WanBlockWrapper")
                module = plan.apply_plan(cls.from_preset("tiny"), mesh)
                weight = module.blocks[0].self_attn.q.weight
                self.assertEqual(type(weight.data).__name__, "DTensor")
                tp = plan.MESH_DIM_NAMES.index(plan.TP_MESH_DIM)
                self.assertEqual(weight.placements[tp].dim, 0)
            finally:
                dist.destroy_process_group()


if __name__ == "__main__":
    unittest.main()
