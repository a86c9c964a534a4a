"""Plan and Configuration: the planner's answer (search/plan.h), read from the same plan.json
the CLI writes (src/emit/plan_json.h gives its schema), with adapters to JAX and PyTorch that
run the generated plan_jax.py / plan_torch.py code (src/emit/codegen_*.h) in memory."""

import json
import types


def _spec_tuple(spec):
    """plan.json's spec (per dim: null, "x" or ["x", "y"]) as a PartitionSpec-style tuple."""
    return tuple(tuple(entry) if isinstance(entry, list) else entry for entry in spec)


def _load_generated(code, name):
    """Runs generated Python code as a module (it imports jax / torch only inside functions)."""
    module = types.ModuleType(name)
    module.__file__ = f"<aoizora {name}>"
    exec(compile(code, module.__file__, "exec"), module.__dict__)  # noqa: S102 - our own emitter's code
    return module


class Configuration:
    """One priced configuration of a plan: a mesh, a sharding of every tensor, a placement.

    label           "aoizora" (the best), "expert", "alpa" or "annotated"
    mesh            {axis: size}, in mesh order (row-major: the last axis fastest)
    mesh_axes, mesh_shape
    device_order    device id of each logical rank (row-major mesh position)
    shardings       {tensor name: spec}, spec per dimension: None, "x" or ("x", "y")
    step_latency_s, video_latency_s (None for a training step), peak_memory_bytes
    samples_per_s, remat  a training step's throughput and rematerialization (None otherwise)
    fsdp_prefetch   FSDP prefetch depth (1: the runtimes' default; d > 1: the next d - 1 layers'
                    weight gathers issued with the current layer's)
    accumulate      a training step's gradient accumulation: micro-steps per optimizer update (1: none)
    breakdown       one forward's latency, compute, communication, collectives (a dict)
    data            this configuration's object in plan.json
    """

    def __init__(self, data):
        self.data = data
        self.label = data["label"]
        self.description = data["description"]
        self.sharding = data["sharding"]
        self.mesh_axes = tuple(data["mesh"]["axes"])
        self.mesh_shape = tuple(data["mesh"]["shape"])
        self.mesh = dict(zip(self.mesh_axes, self.mesh_shape))
        self.device_order = list(data["placement"]["device_order"])
        self.placement_method = data["placement"]["method"]
        self.step_latency_s = data["step_latency_s"]
        self.video_latency_s = data.get("video_latency_s")
        self.samples_per_s = data.get("samples_per_s")
        self.remat = data.get("remat")
        self.fsdp_prefetch = data.get("fsdp_prefetch", 1)
        self.accumulate = data.get("accumulate", 1)
        self.peak_memory_bytes = data["peak_memory_bytes"]
        self.breakdown = data["breakdown"]
        self.tensors = data["tensors"]
        self.shardings = {t["name"]: _spec_tuple(t["spec"]) for t in self.tensors}

    def __repr__(self):
        mesh = ",".join(f"{axis}={size}" for axis, size in self.mesh.items())
        return f"Configuration({self.label!r}, mesh {mesh}, {self.sharding!r}, step {self.step_latency_s:.4g} s)"


class Plan:
    """What aoizora.plan() returns.

    best            the chosen Configuration (also mesh, device_order, shardings, ... below)
    baselines       {"expert": Configuration or None (None where the model's deployed code
                    runs no xDiT configuration on these chips), "deployed": the recipe the
                    model's repository deploys, Configuration or None, "alpa": Configuration
                    or None, and for an imported program "annotated": Configuration or None}
    baseline_notes  {label: why a baseline is missing}
    speedups        {"over_expert": x or None, "over_deployed": x or None, "over_alpa": x or None}
    inputs          what was planned (model, sizes, topology, chip, ...; "workload": "train"
                    for a training step)
    stack           the software stack it was priced with ("fa2", "fa3", ...; inputs["stack"]
                    has the reason and the attention efficiency)
    train           whether it is a training step; then samples_per_s, else video_latency_s
    warnings        the importer's warnings for a program (unsupported ops, ...)
    data            plan.json as a dict
    """

    def __init__(self, core):
        self._core = core
        self._modules = {}
        self.data = json.loads(core.to_json(False))
        self.inputs = self.data["inputs"]
        self.model = self.inputs["model"]
        self.topology = self.inputs["topology"]
        self.stack = self.inputs["stack"]["name"]
        self.best = Configuration(self.data["best"])
        self.baselines, self.baseline_notes = {}, {}
        for label, config in self.data["baselines"].items():
            present = config.get("step_latency_s") is not None or "mesh" in config
            self.baselines[label] = Configuration(config) if present else None
            if not present:
                self.baseline_notes[label] = config.get("note", "")
        self.speedups = self.data["speedups"]
        self.train = self.inputs.get("workload") == "train"
        self.video_latency_s = self.data.get("video_latency_s")  # None for a training step
        self.samples_per_s = self.data.get("samples_per_s")      # training steps only
        self.roofline_bound_s = self.data["roofline_bound_s"]
        self.efficiency = self.data["efficiency"]
        self.warnings = list(core.warnings)

    # The best configuration's facts, at the top level.
    mesh = property(lambda self: self.best.mesh)
    mesh_axes = property(lambda self: self.best.mesh_axes)
    mesh_shape = property(lambda self: self.best.mesh_shape)
    device_order = property(lambda self: self.best.device_order)
    shardings = property(lambda self: self.best.shardings)
    tensors = property(lambda self: self.best.tensors)
    step_latency_s = property(lambda self: self.best.step_latency_s)
    breakdown = property(lambda self: self.best.breakdown)

    def __repr__(self):
        return f"<aoizora.Plan {self.model} on {self.topology}: {self.best!r}>"

    def to_json(self, timing=False):
        """plan.json, byte for byte what `aoizora plan --out DIR` writes; timing=True adds
        plan_time_s, as `aoizora plan --json` prints it."""
        return self._core.to_json(timing)

    def to_dict(self):
        return json.loads(self.to_json())

    def summary(self):
        """The lines `aoizora plan` prints."""
        return self._core.summary()

    def report(self):
        """report.md."""
        return self._core.report()

    def jax_code(self, configuration="best"):
        """plan_jax.py of a configuration ("best", "expert", "alpa", "annotated")."""
        return self._core.jax_code(configuration)

    def torch_code(self, configuration="best"):
        """plan_torch.py of a configuration (GPU plans; a TPU plan's file says it is for GPUs)."""
        return self._core.torch_code(configuration)

    def _generated(self, kind, configuration):
        key = (kind, configuration)
        if key not in self._modules:
            code = self.jax_code(configuration) if kind == "jax" else self.torch_code(configuration)
            self._modules[key] = _load_generated(code, f"plan_{kind}_{configuration}")
        return self._modules[key]

    def jax_module(self, configuration="best"):
        """plan_jax.py as a module: MESH_AXES, MESH_SHAPE, DEVICE_ORDER, PARAM_SPECS, ..."""
        return self._generated("jax", configuration)

    def torch_module(self, configuration="best"):
        """plan_torch.py as a module: RANK_LAYOUT, PARALLELIZE_PLAN, module_placements(), ..."""
        return self._generated("torch", configuration)

    # JAX (imported here, not before).
    def jax_mesh(self, devices=None, configuration="best"):
        """A jax.sharding.Mesh built from an explicit device array in the plan's order: logical
        rank k (row-major position) on the device whose id is device_order[k]. devices: the
        jax devices to choose from (default jax.devices()), as many as the plan has."""
        return self.jax_module(configuration).make_mesh(devices)

    def partition_specs(self, configuration="best"):
        """{tensor name: jax.sharding.PartitionSpec}, parameters and activations."""
        from jax.sharding import PartitionSpec

        module = self.jax_module(configuration)
        specs = {**module.PARAM_SPECS, **module.ACTIVATION_SPECS}
        return {name: PartitionSpec(*spec) for name, spec in specs.items()}

    def named_shardings(self, mesh, configuration="best"):
        """{tensor name: jax.sharding.NamedSharding} on `mesh` (jax_mesh())."""
        from jax.sharding import NamedSharding

        return {name: NamedSharding(mesh, spec) for name, spec in self.partition_specs(configuration).items()}

    # PyTorch (imported here, not before).
    def torch_device_mesh(self, configuration="best"):
        """The plan's torch.distributed DeviceMesh ("cuda") with the plan's rank layout; call on
        every rank of a torchrun job whose process group is initialized."""
        return self.torch_module(configuration).make_device_mesh()

    def torch_parallelize_plan(self, configuration="best"):
        """{module FQN: ColwiseParallel() / RowwiseParallel()} for torch's parallelize_module on
        the tensor-parallel mesh dim (torch >= 2.0)."""
        return self.torch_module(configuration).parallelize_plan()

    def torch_module_placements(self, names, configuration="best", strict=False):
        """{parameter FQN: placements per mesh dim} of `names` in PyTorch's layout (no torch needed)."""
        return self.torch_module(configuration).module_placements(names, strict)

    # An imported program's arguments and results.
    def argument_names(self):
        """An imported program's arguments, in the function's order: (name in shardings, name in
        the file); the first is "" for an argument nothing depends on."""
        return list(self._core.arguments)

    def result_names(self):
        return list(self._core.results)

    def argument_specs(self, configuration="best"):
        """Per argument of an imported program, in order, its spec tuple (() when the plan does
        not shard it: an unused argument)."""
        shardings = self.best.shardings if configuration == "best" else self.baselines[configuration].shardings
        return [shardings.get(name, ()) if name else () for name, _ in self._core.arguments]

    def result_specs(self, configuration="best"):
        shardings = self.best.shardings if configuration == "best" else self.baselines[configuration].shardings
        return [shardings.get(name, ()) if name else () for name, _ in self._core.results]
