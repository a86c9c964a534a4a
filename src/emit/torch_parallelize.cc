// PARALLELIZE_PLAN and apply_plan of plan_torch.py (torch_parallelize.h states the rules).
#include "emit/torch_parallelize.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emit/plan_format.h"
#include "price/simulator.h"
#include "support/status.h"

namespace az::emit {

using search::Configuration;

std::vector<int> ShardDims(const Configuration& config, const search::TensorSpec& tensor) {
  std::vector<int> dims;
  for (const auto& [axis, size] : config.mesh) {
    int dim = -1;
    for (size_t d = 0; d < tensor.spec.size(); ++d) {
      if (std::find(tensor.spec[d].begin(), tensor.spec[d].end(), axis) == tensor.spec[d].end()) continue;
      AZ_CHECK_MSG(dim < 0, "tensor '" + tensor.name + "' is sharded twice on mesh axis '" + axis + "'");
      dim = static_cast<int>(d);
    }
    dims.push_back(dim);
  }
  return dims;
}

std::string StridedComment(const Configuration& config, const search::TensorSpec& tensor) {
  std::string comment;
  for (size_t d = 0; d < tensor.spec.size(); ++d) {
    int previous = -1;
    for (const std::string& axis : tensor.spec[d]) {
      int index = -1;
      for (size_t a = 0; a < config.mesh.size(); ++a) {
        if (config.mesh[a].first == axis) index = static_cast<int>(a);
      }
      AZ_CHECK_MSG(index >= 0,
                   "tensor '" + tensor.name + "' names axis '" + axis + "' not in mesh " + MeshText(config));
      if (index < previous) {
        comment = "  # dim " + std::to_string(d) + " splits " + PyText(axis) +
                  " major-first against mesh order: needs _StridedShard";
      }
      previous = std::max(previous, index);
    }
  }
  return comment;
}

std::string PlacementList(const std::vector<int>& dims) {
  return JoinList(dims, [](int dim) {
    return dim < 0 ? std::string("(\"replicate\",)") : "(\"shard\", " + std::to_string(dim) + ")";
  });
}

namespace {

void Line(std::string& out, const std::string& text = "") { out += text + "\n"; }

// "blocks.0.self_attn.q.weight": module "blocks.0.self_attn.q", leaf "weight";
// a name without a dot is a leaf of the root module "".
std::string_view ModuleOf(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
}
std::string_view LeafOf(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

struct ModuleParams {
  std::string module;                             // "blocks.0.self_attn.q"
  std::vector<const search::TensorSpec*> params;  // in the plan's order
};

// The plan's parameters by module, modules in order of first appearance.
std::vector<ModuleParams> GroupByModule(const Configuration& config) {
  std::vector<ModuleParams> modules;
  std::map<std::string, size_t> index;
  for (const search::TensorSpec& tensor : config.tensors) {
    if (tensor.role != "parameter") continue;
    const std::string module(ModuleOf(tensor.name));
    auto [it, inserted] = index.emplace(module, modules.size());
    if (inserted) modules.push_back({module, {}});
    modules[it->second].params.push_back(&tensor);
  }
  return modules;
}

// A module that holds a rank-2 "weight", an optional rank-1 "bias" and nothing else.
struct LinearParams {
  const search::TensorSpec* weight = nullptr;
  const search::TensorSpec* bias = nullptr;
};

std::optional<LinearParams> AsLinear(const ModuleParams& module) {
  LinearParams linear;
  for (const search::TensorSpec* tensor : module.params) {
    const std::string_view leaf = LeafOf(tensor->name);
    if (leaf == "weight" && tensor->shape.size() == 2 && linear.weight == nullptr) {
      linear.weight = tensor;
    } else if (leaf == "bias" && tensor->shape.size() == 1 && linear.bias == nullptr) {
      linear.bias = tensor;
    } else {
      return std::nullopt;
    }
  }
  if (linear.weight == nullptr) return std::nullopt;
  return linear;
}

// The mesh dim tensor parallelism runs on: the axis whose role is "tp" (by
// name when the plan gives no roles); -1 when none.
int TpMeshDim(const Configuration& config) {
  const bool roles = config.axis_roles.size() == config.mesh.size();
  for (size_t k = 0; k < config.mesh.size(); ++k) {
    if ((roles ? config.axis_roles[k] : config.mesh[k].first) == "tp") return static_cast<int>(k);
  }
  return -1;
}

// "colwise" / "rowwise" when a Linear's only split is Megatron's on the TP
// mesh dim, "" otherwise. Dims are in PyTorch's layout (weight [out, in]).
std::string LinearStyle(const std::vector<int>& weight, const std::vector<int>* bias, int tp_dim) {
  if (tp_dim < 0) return "";
  for (size_t k = 0; k < weight.size(); ++k) {
    if (static_cast<int>(k) == tp_dim) continue;
    if (weight[k] >= 0 || (bias != nullptr && (*bias)[k] >= 0)) return "";
  }
  const int w = weight[static_cast<size_t>(tp_dim)];
  const int b = bias != nullptr ? (*bias)[static_cast<size_t>(tp_dim)] : -1;
  if (w == 0 && (bias == nullptr || b == 0)) return "colwise";
  if (w == 1 && b < 0) return "rowwise";
  return "";
}

}  // namespace

std::string ParallelizePython(const Configuration& config) {
  std::string out;
  const LinearLayout layout = DetectLinearLayout(config);
  const int tp_dim = TpMeshDim(config);
  Line(out, "# parallelize_module plan. Key: a module FQN (a parameter's name without its last part).");
  Line(out, "# \"colwise\" / \"rowwise\": the plan splits that Linear the Megatron way on mesh dim TP_MESH_DIM,");
  Line(out, "# as ColwiseParallel() (weight and bias Shard(0)) / RowwiseParallel() (weight Shard(1), bias");
  Line(out, "# Replicate()) do. Otherwise {parameter: placements, one per mesh dim}: (\"shard\", dim) or");
  Line(out, "# (\"replicate\",). All in PyTorch's layout, where a Linear weight is [out, in]; this plan");
  Line(out, layout == LinearLayout::kInOut
                ? "# stores Linear weights [in, out], so their dims are swapped from PARAM_PLACEMENTS."
                : "# stores them [out, in] too, as PARAM_PLACEMENTS does.");
  Line(out, "TP_MESH_DIM = " +
                (tp_dim < 0 ? std::string("None") : PyString(config.mesh[static_cast<size_t>(tp_dim)].first)));
  Line(out, "PARALLELIZE_PLAN = {");
  for (const ModuleParams& module : GroupByModule(config)) {
    std::optional<LinearParams> linear = AsLinear(module);
    // Per parameter (module.params' order), its dims in PyTorch's layout.
    std::vector<std::vector<int>> dims;
    const std::vector<int>* weight_dims = nullptr;
    const std::vector<int>* bias_dims = nullptr;
    for (const search::TensorSpec* tensor : module.params) {
      std::vector<int> d = ShardDims(config, *tensor);
      if (linear && tensor == linear->weight && layout == LinearLayout::kInOut) {
        for (int& dim : d) dim = dim < 0 ? dim : 1 - dim;
      }
      dims.push_back(std::move(d));
    }
    for (size_t k = 0; linear && k < module.params.size(); ++k) {
      if (module.params[k] == linear->weight) weight_dims = &dims[k];
      if (module.params[k] == linear->bias) bias_dims = &dims[k];
    }
    const std::string style = weight_dims != nullptr ? LinearStyle(*weight_dims, bias_dims, tp_dim) : "";
    if (!style.empty()) {
      Line(out, "    " + PyString(module.module) + ": \"" + style + "\",");
      continue;
    }
    std::string entries, comment;
    for (size_t k = 0; k < module.params.size(); ++k) {
      const search::TensorSpec& tensor = *module.params[k];
      if (!entries.empty()) entries += ", ";
      entries += PyString(LeafOf(tensor.name)) + ": " + PlacementList(dims[k]);
      std::string strided = StridedComment(config, tensor);
      if (!strided.empty()) comment = strided;
    }
    Line(out, "    " + PyString(module.module) + ": {" + entries + "}," + comment);
  }
  Line(out, "}");
  Line(out);
  Line(out);
  Line(out, "def _dtensor():");
  Line(out, "    try:");
  Line(out, "        from torch.distributed.tensor import Replicate, Shard, distribute_tensor");
  Line(out, "    except ImportError:  # torch < 2.4");
  Line(out, "        try:");
  Line(out, "            from torch.distributed._tensor import Replicate, Shard, distribute_tensor");
  Line(out, "        except ImportError as error:  # torch < 2.0 has no DTensor");
  Line(out, "            raise ImportError(\"DTensor needs torch >= 2.0\") from error");
  Line(out, "    return Replicate, Shard, distribute_tensor");
  Line(out);
  Line(out);
  Line(out, "def module_placements(names, strict=False):");
  Line(out, "    \"\"\"{parameter FQN: placements per mesh dim, (\"shard\", dim) / (\"replicate\",)} of `names`");
  Line(out, "    (e.g. [n for n, _ in module.named_parameters()]) under PARALLELIZE_PLAN, in PyTorch's");
  Line(out, "    layout. A parameter the plan does not list is replicated, or raises KeyError if strict.\"\"\"");
  Line(out, "    replicate = [(\"replicate\",)] * len(MESH_SHAPE)");
  Line(out, "    split = {(\"colwise\", \"weight\"): 0, (\"colwise\", \"bias\"): 0, (\"rowwise\", \"weight\"): 1}");
  Line(out, "    out = {}");
  Line(out, "    for name in names:");
  Line(out, "        module, _, leaf = name.rpartition(\".\")");
  Line(out, "        entry = PARALLELIZE_PLAN.get(module)");
  Line(out, "        if isinstance(entry, str) and leaf in (\"weight\", \"bias\"):");
  Line(out, "            placements = list(replicate)");
  Line(out, "            if (entry, leaf) in split:");
  Line(out, "                placements[MESH_DIM_NAMES.index(TP_MESH_DIM)] = (\"shard\", split[(entry, leaf)])");
  Line(out, "        elif isinstance(entry, dict) and leaf in entry:");
  Line(out, "            placements = list(entry[leaf])");
  Line(out, "        elif strict:");
  Line(out, "            raise KeyError(f\"parameter not in the plan: {name}\")");
  Line(out, "        else:");
  Line(out, "            placements = list(replicate)");
  Line(out, "        out[name] = placements");
  Line(out, "    return out");
  Line(out);
  Line(out);
  Line(out, "def parallelize_plan():");
  Line(out, "    \"\"\"The \"colwise\" / \"rowwise\" modules as ParallelStyle objects (torch >= 2.0), for");
  Line(out, "    parallelize_module(module, make_device_mesh()[TP_MESH_DIM], parallelize_plan()).\"\"\"");
  Line(out, "    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel");
  Line(out);
  Line(out, "    styles = {\"colwise\": ColwiseParallel, \"rowwise\": RowwiseParallel}");
  Line(out, "    return {fqn: styles[entry]() for fqn, entry in PARALLELIZE_PLAN.items() if isinstance(entry, str)}");
  Line(out);
  Line(out);
  Line(out, "def apply_plan(module, mesh, strict=False):");
  Line(out, "    \"\"\"Lays out every parameter of `module` on `mesh` (make_device_mesh()) as planned: each");
  Line(out, "    becomes a DTensor parameter, distribute_tensor of the full tensor every rank holds (e.g.");
  Line(out, "    loaded from the checkpoint). Collectives then follow from DTensor's op rules. Returns");
  Line(out, "    the module.\"\"\"");
  Line(out, "    import torch");
  Line(out);
  Line(out, "    Replicate, Shard, distribute_tensor = _dtensor()");
  Line(out, "    named = list(module.named_parameters())");
  Line(out, "    placements = module_placements([name for name, _ in named], strict)");
  Line(out, "    for name, param in named:");
  Line(out, "        owner_name, _, leaf = name.rpartition(\".\")");
  Line(out, "        owner = module.get_submodule(owner_name) if owner_name else module");
  Line(out, "        spec = [Shard(p[1]) if p[0] == \"shard\" else Replicate() for p in placements[name]]");
  Line(out, "        dtensor = distribute_tensor(param.detach(), mesh, spec)");
  Line(out, "        setattr(owner, leaf, torch.nn.Parameter(dtensor, requires_grad=param.requires_grad))");
  Line(out, "    return module");
  return out;
}

std::string RuntimePython(const Configuration& config) {
  std::string out;
  std::vector<std::string> roles = config.axis_roles;
  if (roles.size() != config.mesh.size()) roles.assign(config.mesh.size(), "");
  Line(out, "# The strategy each mesh dim carries (\"cfg\", \"dp\", \"ulysses\", \"ring\", \"tp\", \"fsdp\"; \"\" none known),");
  Line(out, "# in MESH_DIM_NAMES' order: what aoizora_torch.runtime executes.");
  if (const size_t at = config.per_part.find('@'); at != std::string::npos) {
    // "tp=ring@cross_attn+ffn": the axis of role "ring" runs tp in those parts.
    // The runtime runs one strategy per mesh dim over the whole model, so the
    // role says both and runtime.parallelize refuses it by name.
    const std::string on = config.per_part.substr(3, at - 3);
    for (std::string& role : roles) {
      if (role == on) role = on + "+tp@" + config.per_part.substr(at + 1);
    }
    Line(out, "# Per-part hybrid (" + config.per_part + "): Megatron TP inside those block parts on the " + on +
                  " dim, sequence");
    Line(out, "# gathered at their entry and reduce-scattered at their exit. aoizora_torch.runtime runs one");
    Line(out, "# strategy per mesh dim, so parallelize_runtime() refuses this plan (PlanError naming the role);");
    Line(out, "# the placements above (apply_plan, distribute_params) are exact, and --target jax runs it.");
  }
  Line(out, "AXIS_ROLES = " + JoinList(roles, PyString, "(", ")", /*python_tuple=*/true));
  if (config.ulysses_chunks > 1) {
    Line(out, "# Ulysses attention in " + std::to_string(config.ulysses_chunks) +
                  " head chunks (MaxDiffusion's ulysses_attention_chunks), as priced: per chunk of");
    Line(out, "# this rank's heads (runtime.ulysses_head_chunk_ranges), the all-to-alls of q, k, v, its attention");
    Line(out, "# and the all-to-all of its output; aoizora_torch.runtime issues them async (the next chunk's");
    Line(out, "# inputs before this chunk attends), so the transfers overlap the attention.");
    Line(out, "ULYSSES_ATTENTION_CHUNKS = " + std::to_string(config.ulysses_chunks));
  }
  Line(out, "# The PartitionSpec (mesh dims per tensor dim, major first) of every tensor that splits a dim over");
  Line(out, "# several mesh dims, where placements alone do not say which is major.");
  Line(out, "MULTI_AXIS_SPECS = {");
  for (const search::TensorSpec& tensor : config.tensors) {
    const bool multi = std::any_of(tensor.spec.begin(), tensor.spec.end(),
                                   [](const std::vector<std::string>& axes) { return axes.size() > 1; });
    if (multi) Line(out, "    " + PyString(tensor.name) + ": " + PySpecTuple(tensor.spec) + ",");
  }
  Line(out, "}");
  Line(out, "# What the plan priced for one forward pass: (kind, bytes per device, replica groups in logical");
  Line(out, "# ranks as the plan prints them, count). Permute groups are (source, target) pairs.");
  Line(out, "PRICED_COLLECTIVES = [");
  for (const price::ClassCost& cost : config.breakdown.classes) {
    Line(out, "    (" + PyString(cost.kind) + ", " + std::to_string(cost.bytes.value()) + ", " + PyString(cost.groups) +
                  ", " + std::to_string(cost.count) + "),");
  }
  Line(out, "]");
  Line(out);
  Line(out);
  Line(out, "def parallelize_runtime(module, rank=None, dry_run=False, strict=False):");
  Line(out, "    \"\"\"Runs the plan on any torch >= 1.13 without DTensor: swaps the Megatron Linears, the");
  Line(out, "    tp-sharded RMSNorms and the attention cores (Ulysses all-to-all, ring attention) of `module`");
  Line(out, "    for aoizora_torch.runtime's, which issue PRICED_COLLECTIVES' kinds on their groups with plain");
  Line(out, "    torch.distributed calls, process groups on RANK_LAYOUT. Every rank holds the full weights");
  Line(out, "    first. Returns the runtime: .shard(tensor, dim, axes) cuts the inputs, .comm.log lists the");
  Line(out, "    collectives issued. dry_run=True issues none (a meta-device module gives the log).\"\"\"");
  Line(out, "    from aoizora_torch import runtime");
  Line(out);
  Line(out, "    return runtime.parallelize(module, globals(), rank=rank, dry_run=dry_run, strict=strict)");
  return out;
}

LinearLayout DetectLinearLayout(const Configuration& config) {
  int in_out = 0, out_in = 0;
  for (const ModuleParams& module : GroupByModule(config)) {
    std::optional<LinearParams> linear = AsLinear(module);
    if (!linear || linear->bias == nullptr) continue;
    const int64_t rows = linear->weight->shape[0], cols = linear->weight->shape[1];
    const int64_t features = linear->bias->shape[0];
    if (rows == cols) continue;
    if (features == cols) ++in_out;
    if (features == rows) ++out_in;
  }
  return out_in > in_out ? LinearLayout::kOutIn : LinearLayout::kInOut;
}

}  // namespace az::emit
