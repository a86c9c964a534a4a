"""Tests of the framework adapters of aoizora.Plan and aoizora.jax (python/aoizora/_plan.py, jax.py).

JAX is not installed where these tests run, so a stand-in `jax` module (FakeJax below) is put in
sys.modules for the duration of each JAX test: it records what the adapters hand to
jax.sharding.Mesh, NamedSharding and PartitionSpec, and its jit().lower() returns a real
StableHLO file (one Wan 2.1 T2V-1.3B block as JAX lowered it, tests/data/stablehlo). So
everything up to the framework call is real: the plan, the generated plan_jax.py, the device
order, the specs, the argument matching. The PyTorch adapters run with the real torch where
it is installed (Debian's python3-torch); torch.distributed.device_mesh, which needs torch >= 2.2
and a process group over GPUs, is replaced by a recorder, and the mesh's layout tensor is real.

CTest: python_bindings_adapters (PYTHONPATH python/:<build>/python, AOIZORA the CLI).
"""

import os
import pathlib
import sys
import types
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]

from torch_support import IN_CI, require_torch, torch  # noqa: E402,F401

try:
    import aoizora
except ImportError as error:
    if IN_CI:
        raise
    raise unittest.SkipTest(f"aoizora is not importable by {sys.executable}: {error}")

import aoizora.jax  # noqa: E402  (imports no jax until plan_function runs)

WAN_SHLO = REPO / "tests" / "data" / "stablehlo" / "wan13b_480p_81f_1block_b2.mlir"


class FakeDevice:
    def __init__(self, device_id):
        self.id = device_id

    def __repr__(self):
        return f"FakeDevice({self.id})"


class FakeJax(types.ModuleType):
    """The slice of jax the adapters call, recording the calls."""

    def __init__(self, num_devices, lowered_text=None, leaves_per_arg=None, out_leaves=1):
        super().__init__("jax")
        jax = self
        self.calls = []
        self._devices = [FakeDevice(i) for i in range(num_devices)]

        class PartitionSpec(tuple):
            def __new__(cls, *entries):
                return super().__new__(cls, entries)

        class Mesh:
            def __init__(self, devices, axis_names):
                jax.calls.append(("Mesh", devices, axis_names))
                self.devices, self.axis_names = devices, tuple(axis_names)

        class NamedSharding:
            def __init__(self, mesh, spec):
                self.mesh, self.spec = mesh, spec

        self.sharding = types.ModuleType("jax.sharding")
        self.sharding.PartitionSpec = PartitionSpec
        self.sharding.Mesh = Mesh
        self.sharding.NamedSharding = NamedSharding

        # Pytrees: a tuple of arguments, each a list of leaves (as many as leaves_per_arg says).
        class TreeDef:
            def __init__(self, sizes):
                self.sizes = sizes
                self.num_leaves = sum(sizes)

        def tree_flatten(args):
            leaves = [leaf for arg in args for leaf in arg]
            return leaves, TreeDef([len(arg) for arg in args])

        def tree_unflatten(treedef, leaves):
            out, start = [], 0
            for size in treedef.sizes:
                out.append(list(leaves[start:start + size]))
                start += size
            return tuple(out)

        self.tree_util = types.ModuleType("jax.tree_util")
        self.tree_util.tree_flatten = tree_flatten
        self.tree_util.tree_unflatten = tree_unflatten

        class Lowered:
            out_tree = TreeDef([out_leaves])

            def as_text(self):
                return lowered_text

        def jit(fn, **options):
            jax.calls.append(("jit", fn, options))
            return types.SimpleNamespace(lower=lambda *args: jax.calls.append(("lower", args)) or Lowered())

        self.jit = jit

    def devices(self):
        return list(self._devices)


class with_fake_jax:
    """Installs a FakeJax as `jax` (and jax.sharding, jax.tree_util) for a with block."""

    def __init__(self, fake):
        self.fake = fake

    def __enter__(self):
        self.saved = {name: sys.modules.get(name) for name in ("jax", "jax.sharding", "jax.tree_util")}
        sys.modules.update({"jax": self.fake, "jax.sharding": self.fake.sharding, "jax.tree_util": self.fake.tree_util})
        return self.fake

    def __exit__(self, *exc):
        for name, module in self.saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


class JaxAdapterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Wan 2.1 T2V-1.3B at 256x256, 5 frames on a 2x4 v5e slice: a TPU plan, whose device
        # order is a placement of the slice's 8 chips.
        cls.plan = aoizora.plan(model="wan2.1-t2v-1.3b", width=256, height=256, frames=5, topology="v5e:2x4",
                                alpa=False, progress=False)

    def test_jax_mesh_is_built_from_the_plans_device_order(self):
        fake = FakeJax(8)
        with with_fake_jax(fake):
            # Devices handed over in reverse: the mesh must still follow the plan's order.
            mesh = self.plan.jax_mesh(list(reversed(fake.devices())))
        kind, devices, axes = fake.calls[-1]
        self.assertEqual(kind, "Mesh")
        self.assertEqual(tuple(axes), self.plan.mesh_axes)
        self.assertEqual(devices.shape, self.plan.mesh_shape)
        self.assertEqual([d.id for d in devices.flatten()], self.plan.device_order)
        self.assertIs(mesh.devices, devices)

    def test_jax_mesh_refuses_the_wrong_devices(self):
        with with_fake_jax(FakeJax(4)):
            with self.assertRaisesRegex(ValueError, "for 8 devices, got 4"):
                self.plan.jax_mesh()

    def test_partition_specs_are_the_plans(self):
        with with_fake_jax(FakeJax(8)) as fake:
            specs = self.plan.partition_specs()
            mesh = self.plan.jax_mesh()
            shardings = self.plan.named_shardings(mesh)
        self.assertEqual(set(specs), set(self.plan.shardings))
        for name, spec in specs.items():
            self.assertIsInstance(spec, fake.sharding.PartitionSpec)
            self.assertEqual(tuple(spec), self.plan.shardings[name])
            self.assertIs(shardings[name].mesh, mesh)

    def test_the_expert_baseline_has_its_own_mesh(self):
        with with_fake_jax(FakeJax(8)) as fake:
            self.plan.jax_mesh(configuration="expert")
        expert = self.plan.baselines["expert"]
        _, devices, axes = fake.calls[-1]
        self.assertEqual([d.id for d in devices.flatten()], expert.device_order)
        self.assertEqual(tuple(axes), expert.mesh_axes)


class PlanFunctionTest(unittest.TestCase):
    def test_plan_function_lowers_plans_and_shards_every_argument(self):
        text = WAN_SHLO.read_text(encoding="utf-8")
        probe = aoizora.plan(stablehlo=text, name="forward.stablehlo.mlir", topology="v5e:2x2", alpa=False,
                             progress=False)
        num_args, num_results = len(probe.argument_names()), len(probe.result_names())
        # Two positional arguments: the first holds one leaf, the second the rest.
        example = (["x"], ["w"] * (num_args - 1))
        fake = FakeJax(4, lowered_text=text, out_leaves=num_results)

        def forward(x, params):
            raise AssertionError("only lowered, never run")

        with with_fake_jax(fake):
            planned = aoizora.jax.plan_function(forward, *example, topology="v5e:2x2", alpa=False, progress=False)
        jit = next(call for call in fake.calls if call[0] == "jit")
        self.assertIs(jit[1], forward)
        self.assertEqual(jit[2], {"keep_unused": True})  # the program keeps every argument
        self.assertEqual(next(call for call in fake.calls if call[0] == "lower")[1], example)
        # The same program planned directly gives the same plan.
        self.assertEqual(planned.plan.to_json(), probe.to_json())
        self.assertEqual([d.id for d in planned.mesh.devices.flatten()], probe.device_order)
        flat = planned.in_shardings[0] + planned.in_shardings[1]
        self.assertEqual([tuple(s.spec) for s in flat], probe.argument_specs())
        self.assertEqual(len(planned.out_shardings[0]), num_results)
        # Some argument is split (a 4-chip plan of a 1.3B block shards its activations or weights).
        self.assertTrue(any(spec for spec in probe.argument_specs()))

    def test_argument_count_mismatch_is_an_error(self):
        text = WAN_SHLO.read_text(encoding="utf-8")
        fake = FakeJax(4, lowered_text=text)
        with with_fake_jax(fake):
            with self.assertRaisesRegex(aoizora.Error, "arguments, the example arguments 1 leaves"):
                aoizora.jax.plan_function(lambda x: x, ["x"], topology="v5e:2x2", alpa=False, progress=False)



class TorchAdapterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Tensor parallelism pinned (tp=4, cfg=2) so that the parallelize plan has Linears.
        cls.plan = aoizora.plan(model="wan2.1-t2v-1.3b", width=256, height=256, frames=5, topology="h100:8",
                                template="tp=4,cfg=2", alpa=False, progress=False)

    def test_module_placements_split_linears_megatrons_way(self):
        names = ["blocks.0.self_attn.q.weight", "blocks.0.self_attn.q.bias", "blocks.0.self_attn.o.weight",
                 "blocks.0.self_attn.o.bias", "not.in.the.plan"]
        placements = self.plan.torch_module_placements(names)
        tp = self.plan.torch_module().MESH_DIM_NAMES.index(self.plan.torch_module().TP_MESH_DIM)
        # PyTorch's Linear weight is [out, in]: colwise (q) splits dim 0, rowwise (o) dim 1, and
        # the rowwise bias stays whole.
        self.assertEqual(placements["blocks.0.self_attn.q.weight"][tp], ("shard", 0))
        self.assertEqual(placements["blocks.0.self_attn.q.bias"][tp], ("shard", 0))
        self.assertEqual(placements["blocks.0.self_attn.o.weight"][tp], ("shard", 1))
        self.assertEqual(placements["blocks.0.self_attn.o.bias"][tp], ("replicate",))
        self.assertTrue(all(p == ("replicate",) for p in placements["not.in.the.plan"]))

    def test_parallelize_plan(self):
        require_torch()
        try:
            from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
        except ImportError:
            with self.assertRaises(ImportError):  # torch < 2.0: no ParallelStyle to hand over
                self.plan.torch_parallelize_plan()
            return
        styles = self.plan.torch_parallelize_plan()
        self.assertIsInstance(styles["blocks.0.self_attn.q"], ColwiseParallel)
        self.assertIsInstance(styles["blocks.0.self_attn.o"], RowwiseParallel)

    def test_device_mesh_gets_the_plans_rank_layout(self):
        require_torch()
        recorded = []

        class DeviceMesh:
            def __init__(self, device_type, mesh, mesh_dim_names=None):
                recorded.append((device_type, mesh, mesh_dim_names))

        fake = types.ModuleType("torch.distributed.device_mesh")
        fake.DeviceMesh = DeviceMesh
        saved = sys.modules.get("torch.distributed.device_mesh")
        sys.modules["torch.distributed.device_mesh"] = fake
        try:
            self.plan.torch_device_mesh()
        finally:
            if saved is None:
                sys.modules.pop("torch.distributed.device_mesh")
            else:
                sys.modules["torch.distributed.device_mesh"] = saved
        device_type, layout, names = recorded[0]
        self.assertEqual(device_type, "cuda")
        self.assertEqual(tuple(names), self.plan.mesh_axes)
        self.assertEqual(tuple(layout.shape), self.plan.mesh_shape)
        # On one full node, chip ids are numbered node-major and a GPU's global rank is its chip
        # id (emit/codegen_torch.h): the layout is the device order.
        self.assertEqual(layout.flatten().tolist(), self.plan.device_order)


if __name__ == "__main__":
    unittest.main()
