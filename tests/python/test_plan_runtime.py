"""Tests of python/aoizora_torch/runtime.py on hand-made plans (no aoizora binary, no process
group): the replica-group reader, the mesh's groups and positions under a rank layout, the
collectives a dry run issues on the tiny Wan block (derived by hand below) and the errors on
plans it cannot execute. tests/torch/run_plan.py executes real plans on 8 gloo processes.

    PYTHONPATH=python /usr/bin/python3 -m unittest tests/python/test_plan_runtime.py -v
"""

import importlib.util
import os
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

from aoizora_torch import runtime  # noqa: E402

from torch_support import IN_CI, require_torch, torch  # noqa: E402,F401




def wan_block():
    spec = importlib.util.spec_from_file_location("aoizora_runtime_test_wan_block",
                                                  os.path.join(REPO, "tests", "torch", "wan_block.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_plan(names, shape, roles, layout=None, styles=None, params=None, activations=None, specs=None):
    """A stand-in for plan_torch.py's globals: what runtime.parallelize reads."""
    styles = styles or {}
    params = params or {}
    world = 1
    for size in shape:
        world *= size
    tp = roles.index("tp") if "tp" in roles else None

    def module_placements(names_, strict=False):
        out = {}
        for name in names_:
            module, _, leaf = name.rpartition(".")
            placements = [("replicate",)] * len(shape)
            if styles.get(module) == "colwise" or (styles.get(module) == "rowwise" and leaf == "weight"):
                placements[tp] = ("shard", 0 if styles[module] == "colwise" else 1)
            elif name in params:
                placements = params[name]
            out[name] = placements
        return out

    return {"MESH_DIM_NAMES": tuple(names), "MESH_SHAPE": tuple(shape), "AXIS_ROLES": tuple(roles),
            "RANK_LAYOUT": list(layout or range(world)), "TP_MESH_DIM": names[tp] if tp is not None else None,
            "PARALLELIZE_PLAN": dict(styles), "module_placements": module_placements,
            "ACTIVATION_PLACEMENTS": activations or {}, "MULTI_AXIS_SPECS": specs or {}}


class ExpandGroupsTest(unittest.TestCase):
    def test_explicit_and_iota(self):
        self.assertEqual(runtime.expand_groups("{{0,2},{1,3}}"), ((0, 2), (1, 3)))
        # [2,4]<=[8]: iota 0..7 read as 2 groups of 4.
        self.assertEqual(runtime.expand_groups("[2,4]<=[8]"), ((0, 1, 2, 3), (4, 5, 6, 7)))
        # [4,2]<=[2,2,2]T(0,2,1): iota as [2,2,2] (element (a,b,c) = 4a+2b+c), transposed to
        # (a,c,b), read as 4 groups of 2: groups vary b, i.e. {0,2},{1,3},{4,6},{5,7}.
        self.assertEqual(runtime.expand_groups("[4,2]<=[2,2,2]T(0,2,1)"), ((0, 2), (1, 3), (4, 6), (5, 7)))
        # [4,2]<=[2,4]T(1,0): iota as [2,4] (element (a,b) = 4a+b), transposed to [4,2]:
        # groups {0,4},{1,5},{2,6},{3,7}.
        self.assertEqual(runtime.expand_groups("[4,2]<=[2,4]T(1,0)"), ((0, 4), (1, 5), (2, 6), (3, 7)))

    def test_bad_text(self):
        for text in ("[3,3]<=[8]", "[2,4]<=[8]T(1)", "groups"):
            with self.assertRaises(ValueError, msg=text):
                runtime.expand_groups(text)


class MeshTest(unittest.TestCase):
    def test_groups_and_positions_under_a_layout(self):
        # l40s:8's ulysses=4,ring=2 plan: mesh (ring=2, ulysses=4), logical k on rank layout[k].
        layout = [0, 2, 4, 6, 1, 3, 5, 7]
        mesh = runtime.Mesh(("ring", "ulysses"), (2, 4), layout, ("ring", "ulysses"), rank=3)
        # Rank 3 plays logical 5 = (ring 1, ulysses 1).
        self.assertEqual((mesh.logical, mesh.coords), (5, (1, 1)))
        self.assertEqual(mesh.groups(1), ((0, 1, 2, 3), (4, 5, 6, 7)))
        self.assertEqual(mesh.groups(0), ((0, 4), (1, 5), (2, 6), (3, 7)))
        # Sequence position with ring major: 1 * 4 + 1; with ulysses major: 1 * 2 + 1.
        self.assertEqual(mesh.index([0, 1]), 5)
        self.assertEqual(mesh.index([1, 0]), 3)

    def test_bad_meshes(self):
        with self.assertRaisesRegex(runtime.PlanError, "not a permutation"):
            runtime.Mesh(("tp",), (2,), [0, 0], ("tp",), 0)
        with self.assertRaisesRegex(runtime.PlanError, "'fsdp', which this runtime does not run"):
            runtime.Mesh(("fsdp",), (2,), [0, 1], ("fsdp",), 0)
        # A per-part hybrid's axis (plan_torch.py writes its role as the sequence strategy + the
        # scoped tp): one strategy per mesh dim is all this runtime runs.
        with self.assertRaisesRegex(runtime.PlanError, "'ring\\+tp@cross_attn\\+ffn', which this runtime does not run"):
            runtime.Mesh(("ring",), (2,), [0, 1], ("ring+tp@cross_attn+ffn",), 0)
        with self.assertRaisesRegex(runtime.PlanError, "one per mesh dim"):
            runtime.Mesh(("a", "b"), (2, 1), [0, 1], ("tp",), 0)
        with self.assertRaisesRegex(runtime.PlanError, "no AXIS_ROLES"):
            runtime.Mesh.from_plan({"MESH_DIM_NAMES": ("tp",), "MESH_SHAPE": (2,), "RANK_LAYOUT": [0, 1]}, 0)

    def test_ulysses_head_chunk_ranges(self):
        # MaxDiffusion's ranges: 40 heads over 4 shards are 10 groups; 4 chunks of floor(10/4) = 2
        # groups, the last the remainder: 8, 8, 8, 16 heads. Capped at the groups; 1: the whole.
        self.assertEqual(runtime.ulysses_head_chunk_ranges(40, 4, 4), [(0, 8), (8, 16), (16, 24), (24, 40)])
        self.assertEqual(runtime.ulysses_head_chunk_ranges(12, 4, 8), [(0, 4), (4, 8), (8, 12)])
        self.assertEqual(runtime.ulysses_head_chunk_ranges(12, 4, 1), [(0, 12)])
        with self.assertRaisesRegex(runtime.PlanError, "12 heads do not split over 8 Ulysses shards"):
            runtime.ulysses_head_chunk_ranges(12, 8, 2)
        # A bad ULYSSES_ATTENTION_CHUNKS is refused by name before anything is swapped.
        plan = {"MESH_DIM_NAMES": ("ulysses",), "MESH_SHAPE": (2,), "RANK_LAYOUT": [0, 1],
                "AXIS_ROLES": ("ulysses",), "ULYSSES_ATTENTION_CHUNKS": 0}
        with self.assertRaisesRegex(runtime.PlanError, "ULYSSES_ATTENTION_CHUNKS is 0"):
            runtime.parallelize(object(), plan, rank=0, dry_run=True)


WAN_COLWISE = ("self_attn.q", "self_attn.k", "self_attn.v", "cross_attn.q", "cross_attn.k", "cross_attn.v", "ffn.0")
WAN_ROWWISE = ("self_attn.o", "cross_attn.o", "ffn.2")


class DryRunTest(unittest.TestCase):
    def run_block(self, plan, rank, batch=2, tokens=16, text=8):
        wan = wan_block()
        module = wan.WanBlockWrapper.from_preset("tiny-1.3b-heads", device="meta")
        rt = runtime.parallelize(module, plan, rank=rank, dry_run=True)
        d, head_dim = module.config.dim, module.config.head_dim
        x = torch.empty(batch, tokens, d, device="meta")
        rope = torch.empty(tokens, head_dim, device="meta")
        out = module(rt.shard(rt.shard(x, 0, rt.batch_axes), 1, rt.sequence_axes),
                     rt.shard(torch.empty(batch, 6, d, device="meta"), 0, rt.batch_axes),
                     rt.shard(torch.empty(batch, text, d, device="meta"), 0, rt.batch_axes),
                     rt.shard(rope, 0, rt.sequence_axes), rt.shard(rope, 0, rt.sequence_axes))
        return module, rt, out

    def test_megatron(self):
        require_torch()
        styles = {f"blocks.0.{name}": "colwise" for name in WAN_COLWISE}
        styles.update({f"blocks.0.{name}": "rowwise" for name in WAN_ROWWISE})
        norms = {f"blocks.0.{attn}.{norm}.weight": [("shard", 0)] for attn in ("self_attn", "cross_attn")
                 for norm in ("norm_q", "norm_k")}
        plan = make_plan(("tp",), (2,), ("tp",), styles=styles, params=norms)
        module, rt, out = self.run_block(plan, rank=1)
        # tiny-1.3b-heads: d = 192, 12 heads of 16, ffn 384; batch 2, 16 tokens, 8 text tokens.
        # tp=2: each rank 6 heads; the Linears keep half of their rows / columns.
        block = module.blocks[0]
        self.assertEqual(block.self_attn.num_heads, 6)
        self.assertEqual(tuple(block.self_attn.q.weight.shape), (96, 192))
        self.assertEqual(tuple(block.ffn[2].weight.shape), (192, 192))
        self.assertEqual(tuple(out.shape), (2, 16, 192))
        # Per block, float32 (4 bytes): the three rowwise outputs [2, 16, 192] all-reduced
        # (24576 bytes each) and the four RMSNorm sums of squares: q and k of self-attention and q
        # of cross-attention over [2, 16, 1] (128 bytes), k of cross-attention over the text
        # [2, 8, 1] (64 bytes). All on the one group (0, 1).
        got = sorted((c.kind, c.bytes, c.groups) for c in rt.comm.log)
        want = sorted([("all-reduce", 24576, ((0, 1),))] * 3 + [("all-reduce", 128, ((0, 1),))] * 3 +
                      [("all-reduce", 64, ((0, 1),))])
        self.assertEqual(got, want)

    def test_ulysses_and_ring_with_cfg(self):
        require_torch()
        # mesh (cfg=2, ring=2, ulysses=2), rank 5 = logical 5 = (1, 0, 1). The block input x
        # [2, 16, 192]: batch 1 per cfg group, 4 tokens per rank.
        plan = make_plan(("cfg", "ring", "ulysses"), (2, 2, 2), ("cfg", "ring", "ulysses"))
        _, rt, out = self.run_block(plan, rank=5)
        self.assertEqual(tuple(out.shape), (1, 4, 192))
        # Ulysses: q, k, v and the output, [1, 4, 12, 16] float32 = 3072 bytes each, on the
        # ulysses groups {0,1},{2,3},{4,5},{6,7}; ring: after the all-to-all each rank holds 8
        # tokens and 6 heads, K and V in one [1, 8, 6, 32] buffer = 6144 bytes, sent ring - 1 = 1
        # time along the ring groups {0,2},{1,3},{4,6},{5,7} (pairs both ways). Cross-attention:
        # none.
        ulysses = ((0, 1), (2, 3), (4, 5), (6, 7))
        ring = ((0, 2), (2, 0), (1, 3), (3, 1), (4, 6), (6, 4), (5, 7), (7, 5))
        got = [(c.kind, c.axis, c.bytes, tuple(sorted(c.groups))) for c in rt.comm.log]
        self.assertEqual(got, [("all-to-all", "ulysses", 3072, ulysses)] * 3 +
                         [("collective-permute", "ring", 6144, tuple(sorted(ring)))] +
                         [("all-to-all", "ulysses", 3072, ulysses)])

    def test_plan_spec_orders_the_batch(self):
        require_torch()
        # mesh (dp, cfg, ring) with the batch split cfg-major, as the plan's spec says.
        spec = (("cfg", "dp"), "ring", None, None)
        plan = make_plan(("dp", "cfg", "ring"), (2, 2, 2), ("dp", "cfg", "ring"),
                         specs={"value %62 (result of 'blocks.0.self_attn.attention')": spec})
        _, rt, _ = self.run_block(plan, rank=0, batch=4)
        self.assertEqual(rt.batch_axes, [1, 0])
        self.assertEqual(rt.sequence_axes, [2])

    def test_refusals(self):
        require_torch()
        # The plan's attention result split on heads by ring: not this runtime's layout.
        plan = make_plan(("ring",), (2,), ("ring",),
                         activations={"value %62 (result of 'blocks.0.self_attn.attention')":
                                      [("shard", 2)]})
        with self.assertRaisesRegex(runtime.PlanError, "attention 'blocks.0.self_attn.attention'"):
            self.run_block(plan, rank=0)
        # A parameter split other than Megatron's or a tp RMSNorm's (the modulation table on tp).
        plan = make_plan(("tp",), (2,), ("tp",), params={"blocks.0.modulation": [("shard", 2)]})
        with self.assertRaisesRegex(runtime.PlanError, "parameter 'blocks.0.modulation'"):
            self.run_block(plan, rank=0)
        # A Linear style on a module that is no Linear.
        plan = make_plan(("tp",), (2,), ("tp",), styles={"blocks.0.norm3": "colwise"})
        with self.assertRaisesRegex(runtime.PlanError, "not a Linear"):
            self.run_block(plan, rank=0)
        # Heads that do not split: 12 heads on tp=8 (16 * 12 = 192 rows split 8 ways would
        # divide, the heads do not).
        plan = make_plan(("tp",), (8,), ("tp",), styles={"blocks.0.self_attn.q": "colwise"})
        with self.assertRaisesRegex(runtime.PlanError, "12 heads, which do not split 8 ways"):
            self.run_block(plan, rank=0)


if __name__ == "__main__":
    unittest.main()
