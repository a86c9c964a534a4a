// plan_jax.py: the mesh from an explicit device array and the shardings
// (codegen_jax.h describes the file).
#include "emit/codegen_jax.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "emit/plan_format.h"
#include "hw/topology.h"
#include "place/default_placement.h"
#include "support/status.h"

namespace az::emit {
namespace {

using search::Configuration;
using search::Plan;

void Line(std::string& out, const std::string& text = "") { out += text + "\n"; }

std::string CoordsText(const std::vector<int>& coords) { return IntList(coords, "(", ")"); }

// The specs of the tensors whose role is one of `roles` (empty: every role
// not in `others`).
void SpecTable(std::string& out, const Configuration& config, const std::string& name,
               const std::vector<std::string>& roles, const std::vector<std::string>& others = {}) {
  auto listed = [](const std::vector<std::string>& list, const std::string& role) {
    return std::find(list.begin(), list.end(), role) != list.end();
  };
  Line(out, name + " = {");
  for (const search::TensorSpec& tensor : config.tensors) {
    if (roles.empty() ? listed(others, tensor.role) : !listed(roles, tensor.role)) continue;
    std::string note;
    if (!tensor.partial.empty()) {
      // A row-parallel linear's result: constraining it to the spec would make
      // XLA all-reduce it there; unconstrained, XLA reduce-scatters or
      // all-reduces it where its consumer's sharding says, as priced.
      std::string axes;
      for (const std::string& axis : tensor.partial) axes += (axes.empty() ? "" : ", ") + PyString(axis);
      note = "  # partial sum over (" + axes + (tensor.partial.size() == 1 ? ",)" : ")") + ": leave unconstrained";
    }
    Line(out, "    " + PyString(tensor.name) + ": " + PySpecTuple(tensor.spec) + "," + note);
  }
  Line(out, "}");
}

// A TPU device's coords as JAX reports them ([x, y, z]): the chip's torus
// coordinates (a multi-slice chip's last coordinate is its slice), z = 0 on a
// 2D slice.
std::string JaxCoords(const search::ChipInfo& info, bool slices) {
  std::vector<int> coords = info.coords;
  if (slices && !coords.empty()) coords.pop_back();
  coords.resize(3, 0);
  return IntList(coords, "(", ")", true);
}

// make_mesh for a multi-slice TPU plan (codegen_jax.h).
void MultiSliceMesh(std::string& out, const Plan& plan, const Configuration& config, const ScaleOut& scale_out) {
  const bool hybrid = scale_out.split.hybrid;
  // Whether create_device_mesh on one slice gives the plan's order inside
  // every slice: then create_hybrid_device_mesh alone is the plan.
  bool jax_slice_order = false;
  bool allow_split = false;
  std::string slice_spec = plan.topology.substr(0, plan.topology.find('*'));
  if (hybrid) {
    auto slice = hw::MakeTopology(slice_spec);
    if (slice.ok()) {
      allow_split = place::MakeMeshAllowsSplit(*slice);
      hw::Topology multi = *slice;
      multi.slices = scale_out.split.domains;
      multi.set_num_chips(slice->num_chips() * scale_out.split.domains);
      multi.name = plan.topology;
      auto jax = place::CreateHybridDeviceMesh(multi, scale_out.split.inner, scale_out.split.outer, allow_split);
      jax_slice_order = jax.ok() && *jax == config.placement;
    }
  }
  std::vector<std::string> keys;
  for (int chip : config.placement) {
    const search::ChipInfo* info = FindChip(plan, chip);
    AZ_CHECK_MSG(info != nullptr && !info->coords.empty(), "a multi-slice plan lists every chip with its coords");
    keys.push_back("(" + std::to_string(info->coords.back()) + ", " + JaxCoords(*info, true) + ")");
  }
  Line(out, "# Multi-slice: " + ScaleOutText(scale_out) + ".");
  if (hybrid) {
    Line(out, "# The mesh is mesh_utils.create_hybrid_device_mesh(ICI_MESH_SHAPE, DCN_MESH_SHAPE): per axis,");
    Line(out, "# MESH_SHAPE = ICI x DCN, the DCN part the major digit (slices tiled row-major over DCN_MESH_SHAPE).");
    Line(out, "ICI_MESH_SHAPE = " + IntList(scale_out.split.inner, "(", ")", true));
    Line(out, "DCN_MESH_SHAPE = " + IntList(scale_out.split.outer, "(", ")", true));
    Line(out, "ALLOW_SPLIT_PHYSICAL_AXES = " + std::string(allow_split ? "True" : "False"));
    Line(out, "# True when create_device_mesh's order inside a slice is the plan's (then the hybrid mesh is");
    Line(out, "# the plan as it is); False: the plan reorders chips inside each slice (DEVICE_SLICE_COORDS).");
    Line(out, "JAX_SLICE_ORDER = " + std::string(jax_slice_order ? "True" : "False"));
  } else {
    Line(out, "# This placement is no hybrid mesh (its slices do not tile the mesh axis by axis), so");
    Line(out, "# mesh_utils.create_hybrid_device_mesh cannot build it: make_mesh picks each device by its");
    Line(out, "# (slice_index, coords) in DEVICE_SLICE_COORDS.");
  }
  Line(out, "# (slice_index, coords) of each logical rank's device, as JAX reports them:");
  Line(out, "DEVICE_SLICE_COORDS = [");
  for (const std::string& key : keys) Line(out, "    " + key + ",");
  Line(out, "]");
  Line(out);
  Line(out);
  Line(out, "def make_mesh(devices=None):");
  Line(out, "    \"\"\"The plan's jax.sharding.Mesh over the devices of " + PyText(std::to_string(scale_out.split.domains)) +
                " slices (default: jax.devices()).\"\"\"");
  Line(out, "    import jax");
  Line(out, "    import numpy");
  if (hybrid) Line(out, "    from jax.experimental import mesh_utils");
  Line(out);
  Line(out, "    if devices is None:");
  Line(out, "        devices = jax.devices()");
  Line(out, "    devices = list(devices)");
  Line(out, "    if len(devices) != len(DEVICE_SLICE_COORDS):");
  Line(out, "        raise ValueError(");
  Line(out, "            f\"this plan is for {len(DEVICE_SLICE_COORDS)} devices, got {len(devices)}; \"");
  Line(out, "            \"pass devices= to choose them\"");
  Line(out, "        )");
  if (hybrid) {
    Line(out, "    hybrid = mesh_utils.create_hybrid_device_mesh(");
    Line(out, "        ICI_MESH_SHAPE, DCN_MESH_SHAPE, devices, allow_split_physical_axes=ALLOW_SPLIT_PHYSICAL_AXES");
    Line(out, "    )");
    Line(out, "    if JAX_SLICE_ORDER:");
    Line(out, "        return jax.sharding.Mesh(hybrid, MESH_AXES)");
    Line(out, "    devices = list(hybrid.flat)");
  }
  Line(out, "    by_key = {(d.slice_index, tuple(d.coords)): d for d in devices}");
  Line(out, "    missing = [k for k in DEVICE_SLICE_COORDS if k not in by_key]");
  Line(out, "    if missing:");
  Line(out, "        raise ValueError(f\"devices {missing[:4]} of the plan are not among the given devices\")");
  Line(out, "    array = numpy.array([by_key[k] for k in DEVICE_SLICE_COORDS], dtype=object).reshape(MESH_SHAPE)");
  if (hybrid) {
    Line(out, "    moved = [k for k, a, b in zip(DEVICE_SLICE_COORDS, array.flat, hybrid.flat) if a.slice_index != b.slice_index]");
    Line(out, "    if moved:");
    Line(out, "        raise ValueError(f\"the plan's devices {moved[:4]} sit in other slices than the hybrid mesh's\")");
  }
  Line(out, "    return jax.sharding.Mesh(array, MESH_AXES)");
}

}  // namespace

std::string PlanJax(const Plan& plan, const Configuration& config) {
  int64_t devices = MeshDevices(config);
  AZ_CHECK_MSG(devices == static_cast<int64_t>(config.placement.size()),
               "mesh " + MeshText(config) + " has " + std::to_string(devices) + " devices, the placement " +
                   std::to_string(config.placement.size()));

  const std::string axes =
      JoinList(config.mesh, [](const auto& axis) { return PyString(axis.first); }, "(", ")", /*python_tuple=*/true);
  const std::string shape = JoinList(
      config.mesh, [](const auto& axis) { return std::to_string(axis.second); }, "(", ")", /*python_tuple=*/true);
  const std::string order = IntList(config.placement);

  std::string out;
  Line(out, "\"\"\"JAX mesh and shardings of an AoiZora plan.");
  Line(out);
  for (const std::string& line : PlanDocstringLines(plan, config)) Line(out, line);
  Line(out);
  Line(out, "Usage:");
  Line(out, "    mesh = make_mesh()                        # jax.devices() in the plan's order");
  Line(out, "    params = shard_params(mesh, params)       # {name: array}, names as in PARAM_SPECS");
  if (plan.train) {
    Line(out, "    state = shard_optimizer_state(mesh, state)  # {name: array}: fp32 master weights and AdamW");
    Line(out, "                                              # moments, names as in OPTIMIZER_STATE_SPECS");
  }
  Line(out, "    x = constrain(x, name, mesh)              # inside jit, names as in ACTIVATION_SPECS");
  Line(out);
  Line(out, "Generated by aoizora; the same plan gives the same file.");
  Line(out, "\"\"\"");
  Line(out);
  Line(out, "MESH_AXES = " + axes);
  Line(out, "MESH_SHAPE = " + shape);
  Line(out, "# Device ids in logical rank order (row-major mesh position, the last axis fastest):");
  Line(out, "# logical rank k runs on the device whose id is DEVICE_ORDER[k]. This is the plan's");
  Line(out, "# placement and, as one row, the XLA device assignment.");
  Line(out, "DEVICE_ORDER = " + order);
  if (config.ulysses_chunks > 1) {
    // GSPMD lowers each all-to-all whole: the chunks are the attention
    // code's, as MaxDiffusion writes them.
    std::string ranges;
    for (const auto& [begin, end] : config.ulysses_head_chunks) {
      ranges += (ranges.empty() ? "(" : ", (") + std::to_string(begin) + ", " + std::to_string(end) + ")";
    }
    Line(out, "# Ulysses attention in " + std::to_string(config.ulysses_chunks) +
                  " head chunks, as priced: jit with these shardings alone runs each all-to-all");
    Line(out, "# whole. The attention must loop over ULYSSES_HEAD_CHUNKS (each device's heads before the");
    Line(out, "# all-to-all: all-to-all in, attention, all-to-all out per range, outputs concatenated on heads),");
    Line(out, "# as MaxDiffusion's _run_chunked_ulysses_attention does (ulysses_attention_chunks: " +
                  std::to_string(config.ulysses_chunks) + "), with");
    Line(out, "# LIBTPU_INIT_ARGS=\"--xla_tpu_enable_async_all_to_all=true --xla_tpu_overlap_compute_collective_tc=true\"");
    Line(out, "# so that XLA overlaps one chunk's all-to-alls with another's attention (maxdiffusion.yml).");
    Line(out, "ULYSSES_ATTENTION_CHUNKS = " + std::to_string(config.ulysses_chunks));
    Line(out, "ULYSSES_HEAD_CHUNKS = (" + ranges + ")");
  }
  Line(out, "# Logical rank (mesh position) -> chip:");
  for (size_t k = 0; k < config.placement.size(); ++k) {
    int chip = config.placement[k];
    const search::ChipInfo* info = FindChip(plan, chip);
    std::vector<int64_t> position = MeshPosition(config, static_cast<int64_t>(k));
    std::string where = "(";
    for (size_t a = 0; a < position.size(); ++a) where += (a > 0 ? ", " : "") + std::to_string(position[a]);
    where += ")";
    std::string chip_text = PyText(ChipName(plan, chip));
    std::string compact_name = info != nullptr ? info->name : "";
    std::erase(compact_name, ' ');
    std::string compact_coords = info != nullptr ? CoordsText(info->coords) : "";
    std::erase(compact_coords, ' ');
    // TPU chips are named by their coordinates already: say them once.
    if (info != nullptr && !info->coords.empty() && compact_name != compact_coords) {
      chip_text += " at " + CoordsText(info->coords);
    }
    Line(out, "#   " + std::to_string(k) + " " + where + " -> device " + std::to_string(chip) + ", " + chip_text);
  }
  Line(out);
  Line(out);
  if (ScaleOut scale_out = ScaleOutOf(plan, config); scale_out.multi && plan.tpu) {
    MultiSliceMesh(out, plan, config, scale_out);
  } else {
    if (scale_out.multi) {
      // Several GPU nodes: DEVICE_ORDER is the placement; say which axes
      // cross the inter-node network and, for a hybrid split, the shape of
      // the mesh across nodes and inside each (as ICI/DCN shapes are given).
      Line(out, "# Multi-node: " + ScaleOutText(scale_out) + ".");
      if (scale_out.split.hybrid) {
        Line(out, "# Per mesh axis, its extent across nodes and inside each node (their product is MESH_SHAPE).");
        Line(out, "INTER_NODE_MESH_SHAPE = " + IntList(scale_out.split.outer, "(", ")", true));
        Line(out, "INTRA_NODE_MESH_SHAPE = " + IntList(scale_out.split.inner, "(", ")", true));
      }
      Line(out);
      Line(out);
    }
    Line(out, "def make_mesh(devices=None):");
    Line(out, "    \"\"\"The plan's jax.sharding.Mesh over `devices` (default: jax.devices()).\"\"\"");
    Line(out, "    import jax");
    Line(out, "    import numpy");
    Line(out);
    Line(out, "    if devices is None:");
    Line(out, "        devices = jax.devices()");
    Line(out, "    devices = list(devices)");
    Line(out, "    if len(devices) != len(DEVICE_ORDER):");
    Line(out, "        raise ValueError(");
    Line(out, "            f\"this plan is for {len(DEVICE_ORDER)} devices, got {len(devices)}; \"");
    Line(out, "            \"pass devices= to choose them\"");
    Line(out, "        )");
    Line(out, "    by_id = {d.id: d for d in devices}");
    Line(out, "    missing = [i for i in DEVICE_ORDER if i not in by_id]");
    Line(out, "    if missing:");
    Line(out, "        raise ValueError(f\"device ids {missing} of the plan are not among {sorted(by_id)}\")");
    Line(out, "    array = numpy.array([by_id[i] for i in DEVICE_ORDER], dtype=object).reshape(MESH_SHAPE)");
    Line(out, "    return jax.sharding.Mesh(array, MESH_AXES)");
  }
  Line(out);
  Line(out);
  Line(out, "# PartitionSpec per tensor, one entry per dimension: None (replicated), an axis, or a");
  Line(out, "# tuple of axes (major first).");
  SpecTable(out, config, "PARAM_SPECS", {"parameter"});
  if (plan.train) {
    // A parameter's master weight ("<name>.master"), exp_avg and exp_avg_sq:
    // what the optimizer keeps between steps, sharded as planned (ZeRO-3
    // shards them with the weights).
    SpecTable(out, config, "OPTIMIZER_STATE_SPECS", {"optimizer_state"});
  }
  SpecTable(out, config, "ACTIVATION_SPECS", {}, {"parameter", "optimizer_state"});
  if (config.prefetch > 1) {
    // No XLA flag sets it (compile/spmd/schedule.h, docs/pricing.md): the
    // depth is stated for the user to act on, not applied.
    Line(out);
    Line(out, "# FSDP prefetch depth the plan priced: the weight all-gathers of the next " +
                  std::to_string(config.prefetch - 1) + " layer(s) issued with the");
    Line(out, "# current layer's. XLA does not run it: its latency-hiding scheduler keeps one all-gather in flight");
    Line(out, "# (SchedulerConfig.all_gather_overlap_limit = 1 on GPUs and TPUs; no XLA flag raises it).");
    Line(out, "# FSDP2 runs it (plan_torch.py: set_fsdp_prefetch); under XLA expect the plan's depth-1 timing.");
    Line(out, "FSDP_PREFETCH_DEPTH = " + std::to_string(config.prefetch));
  }
  Line(out);
  Line(out);
  Line(out, "def param_sharding(mesh, name):");
  Line(out, "    \"\"\"NamedSharding of parameter `name`.\"\"\"");
  Line(out, "    from jax.sharding import NamedSharding, PartitionSpec");
  Line(out);
  Line(out, "    return NamedSharding(mesh, PartitionSpec(*PARAM_SPECS[name]))");
  Line(out);
  Line(out);
  Line(out, "def activation_sharding(mesh, name):");
  Line(out, "    \"\"\"NamedSharding of activation or input `name`.\"\"\"");
  Line(out, "    from jax.sharding import NamedSharding, PartitionSpec");
  Line(out);
  Line(out, "    return NamedSharding(mesh, PartitionSpec(*ACTIVATION_SPECS[name]))");
  Line(out);
  Line(out);
  Line(out, "def shard_params(mesh, params, strict=True):");
  Line(out, "    \"\"\"{name: array} -> {name: array placed as planned}; unknown names raise unless");
  Line(out, "    strict=False, which replicates them.\"\"\"");
  Line(out, "    import jax");
  Line(out, "    from jax.sharding import NamedSharding, PartitionSpec");
  Line(out);
  Line(out, "    unknown = sorted(name for name in params if name not in PARAM_SPECS)");
  Line(out, "    if strict and unknown:");
  Line(out, "        raise KeyError(f\"parameters not in the plan: {unknown[:5]}\")");
  Line(out, "    out = {}");
  Line(out, "    for name, value in params.items():");
  Line(out, "        if name in PARAM_SPECS:");
  Line(out, "            sharding = param_sharding(mesh, name)");
  Line(out, "        else:");
  Line(out, "            sharding = NamedSharding(mesh, PartitionSpec())");
  Line(out, "        out[name] = jax.device_put(value, sharding)");
  Line(out, "    return out");
  Line(out);
  Line(out);
  if (plan.train) {
    Line(out, "def shard_optimizer_state(mesh, state, strict=True):");
    Line(out, "    \"\"\"{name: array} -> {name: array placed as planned}: the optimizer's master weights and");
    Line(out, "    moments; unknown names raise unless strict=False, which replicates them.\"\"\"");
    Line(out, "    import jax");
    Line(out, "    from jax.sharding import NamedSharding, PartitionSpec");
    Line(out);
    Line(out, "    unknown = sorted(name for name in state if name not in OPTIMIZER_STATE_SPECS)");
    Line(out, "    if strict and unknown:");
    Line(out, "        raise KeyError(f\"optimizer state not in the plan: {unknown[:5]}\")");
    Line(out, "    out = {}");
    Line(out, "    for name, value in state.items():");
    Line(out, "        spec = OPTIMIZER_STATE_SPECS.get(name, ())");
    Line(out, "        out[name] = jax.device_put(value, NamedSharding(mesh, PartitionSpec(*spec)))");
    Line(out, "    return out");
    Line(out);
    Line(out);
  }
  Line(out, "def constrain(x, name, mesh):");
  Line(out, "    \"\"\"with_sharding_constraint of activation `name` (use inside jit).\"\"\"");
  Line(out, "    import jax");
  Line(out, "    from jax.sharding import NamedSharding, PartitionSpec as P");
  Line(out);
  Line(out, "    return jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P(*ACTIVATION_SPECS[name])))");
  if (config.accumulate > 1) {
    // The step as a scan over the micro-steps, its carry (the gradient sum)
    // constrained to the parameters' shardings: XLA then reduce-scatters each
    // micro-step's gradients into it, as the plan priced.
    out += MicroBatchPython(config);
    Line(out);
    Line(out);
    Line(out, "def accumulate_gradients(loss_fn, params, batch, mesh, count=ACCUMULATE):");
    Line(out, "    \"\"\"(loss, grads) of the whole batch over `count` micro-steps, in a jax.lax.scan (use inside");
    Line(out, "    jit): loss_fn(params, micro) is a micro-step's mean loss; the gradient sum is carried sharded");
    Line(out, "    like the parameters (PARAM_SPECS). Apply one optimizer update to grads after.\"\"\"");
    Line(out, "    import jax");
    Line(out, "    import jax.numpy as jnp");
    Line(out);
    Line(out, "    grad_fn = jax.value_and_grad(lambda p, micro: loss_fn(p, micro) / count)");
    Line(out);
    Line(out, "    def sharded(grads):");
    Line(out, "        return {name: jax.lax.with_sharding_constraint(g, param_sharding(mesh, name))");
    Line(out, "                if name in PARAM_SPECS else g for name, g in grads.items()}");
    Line(out);
    Line(out, "    def body(carry, index):");
    Line(out, "        loss, grads = carry");
    Line(out, "        micro_loss, micro_grads = grad_fn(params, micro_batch(batch, index, count))");
    Line(out, "        return (loss + micro_loss, sharded(jax.tree_util.tree_map(jnp.add, grads, micro_grads))), None");
    Line(out);
    Line(out, "    zeros = sharded(jax.tree_util.tree_map(jnp.zeros_like, params))");
    Line(out, "    (loss, grads), _ = jax.lax.scan(body, (jnp.zeros((), jnp.float32), zeros), jnp.arange(count))");
    Line(out, "    return loss, grads");
  }
  out += ExpertsPython(plan, config, "shard_experts", "shard_params");
  return out;
}

}  // namespace az::emit
