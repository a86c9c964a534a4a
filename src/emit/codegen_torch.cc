// plan_torch.py: DeviceMesh rank layout, DTensor placements, xDiT launch
// (codegen_torch.h states the rank conventions).
#include "emit/codegen_torch.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "emit/plan_format.h"
#include "emit/torch_parallelize.h"
#include "support/status.h"

namespace az::emit {
namespace {

using search::Configuration;
using search::Plan;

// xDiT's rank order, fastest-varying first ("tp-sp-pp-cfg-dp", Ulysses inside
// ring within sp; pp is PipeFusion's stages, search/pipefusion.h).
constexpr const char* kXditOrder[] = {"tp", "ulysses", "ring", "pipefusion", "cfg", "dp"};
constexpr int kXditRoles = 6;

int XditDegree(const Configuration& config, int role) {
  switch (role) {
    case 0:
      return config.tp;
    case 1:
      return config.ulysses;
    case 2:
      return config.ring;
    case 3:
      return config.pipefusion;
    case 4:
      return config.cfg;
    default:
      return config.dp;
  }
}

int XditRole(const std::string& name) {
  for (int role = 0; role < kXditRoles; ++role) {
    if (name == kXditOrder[role]) return role;
  }
  return -1;
}

// Where a GPU sits: node and index within the node (ChipInfo coords are
// {node, gpu} for GPU systems); a chip the plan does not describe is GPU
// `chip` of node 0.
struct GpuSlot {
  int node = 0, gpu = 0;
  auto operator<=>(const GpuSlot&) const = default;
};

GpuSlot SlotOf(const Plan& plan, int chip) {
  const search::ChipInfo* info = FindChip(plan, chip);
  // TPU coordinates are torus positions, not (node, gpu).
  if (!plan.tpu && info != nullptr && info->coords.size() >= 2) return {info->coords[0], info->coords[1]};
  return {0, chip};
}

// The commands a model's runners take; models without a known runner get no
// command line.
enum class Repo { kNone, kWan, kHunyuan };
struct Runner {
  const char* model;
  const char* xdit_script;
  const char* xdit_task;  // wan_example.py's --task
  const char* xdit_model;
  Repo repo;
  const char* repo_task;
  const char* repo_checkpoint;
  bool image_input;
};

constexpr Runner kRunners[] = {
    {"wan2.1-t2v-14b", "examples/wan_example.py", "t2v", "Wan-AI/Wan2.1-T2V-14B-Diffusers", Repo::kWan, "t2v-14B",
     "./Wan2.1-T2V-14B", false},
    {"wan2.1-t2v-1.3b", "examples/wan_example.py", "t2v", "Wan-AI/Wan2.1-T2V-1.3B-Diffusers", Repo::kWan, "t2v-1.3B",
     "./Wan2.1-T2V-1.3B", false},
    {"wan2.1-i2v-14b", "examples/wan_example.py", "i2v", "Wan-AI/Wan2.1-I2V-14B-720P-Diffusers", Repo::kWan, "i2v-14B",
     "./Wan2.1-I2V-14B-720P", true},
    {"hunyuanvideo-13b", "examples/hunyuan_video_usp_example.py", "", "tencent/HunyuanVideo", Repo::kHunyuan, "", "",
     false},
    // xDiT examples/run_cogvideo.sh; CogVideoX has no parallel runner of its own.
    {"cogvideox-2b", "examples/cogvideox_example.py", "", "THUDM/CogVideoX-2b", Repo::kNone, "", "", false},
    {"cogvideox-5b", "examples/cogvideox_example.py", "", "THUDM/CogVideoX-5b", Repo::kNone, "", "", false},
    {"cogvideox1.5-5b", "examples/cogvideox_example.py", "", "THUDM/CogVideoX1.5-5B", Repo::kNone, "", "", false},
};

const Runner* FindRunner(const std::string& model) {
  for (const Runner& runner : kRunners) {
    if (model == runner.model) return &runner;
  }
  return nullptr;
}

constexpr const char* kPrompt = "A cat walks on the grass, realistic";

std::string Torchrun(const XditLaunch& launch, int node_rank) {
  std::string line;
  const std::string& devices = launch.cuda_visible_devices[static_cast<size_t>(node_rank)];
  if (!devices.empty()) line += "CUDA_VISIBLE_DEVICES=" + devices + " ";
  line += "torchrun";
  if (launch.nodes > 1) {
    line += " --nnodes=" + std::to_string(launch.nodes) + " --node_rank=" + std::to_string(node_rank) +
            " --master_addr=$MASTER_ADDR --master_port=29500";
  }
  line += " --nproc_per_node=" + std::to_string(launch.procs_per_node);
  return line;
}

std::string XditArgs(const Plan& plan, const Configuration& config, const Runner& runner) {
  std::string args = std::string(" ") + runner.xdit_script;
  if (runner.xdit_task[0] != '\0') args += std::string(" --task ") + runner.xdit_task;
  args += std::string(" --model ") + runner.xdit_model;
  if (runner.image_input) args += " --img_file_path input.jpg";
  args += " --height " + std::to_string(plan.height) + " --width " + std::to_string(plan.width) + " --num_frames " +
          std::to_string(plan.frames) + " --num_inference_steps " + std::to_string(plan.steps) + " --ulysses_degree " +
          std::to_string(config.ulysses) + " --ring_degree " + std::to_string(config.ring);
  if (config.pipefusion > 1) {
    args += " --pipefusion_parallel_degree " + std::to_string(config.pipefusion) + " --num_pipeline_patch " +
            std::to_string(config.pipeline_patches) + " --warmup_steps " + std::to_string(config.pipeline_warmup_steps);
  }
  if (config.cfg == 2) args += " --use_cfg_parallel";
  if (config.tp > 1) args += " --tensor_parallel_degree " + std::to_string(config.tp);
  if (config.dp > 1) args += " --data_parallel_degree " + std::to_string(config.dp);
  if (config.fsdp > 1) args += " --fully_shard_degree " + std::to_string(config.fsdp);
  args += " --seed " + std::to_string(plan.seed) + " --prompt " + ShellWord(kPrompt);
  return args;
}

// The model's own repository runs sequence parallelism only (Ulysses x ring
// over every rank; reference/models.md §4.1, §4.2): "" otherwise.
std::string RepoArgs(const Plan& plan, const Configuration& config, const Runner& runner) {
  if (config.cfg != 1 || config.tp != 1 || config.dp != 1 || config.pipefusion != 1) return "";
  if (runner.repo == Repo::kWan) {
    std::string args = std::string(" generate.py --task ") + runner.repo_task + " --size " +
                       ShellWord(std::to_string(plan.width) + "*" + std::to_string(plan.height)) + " --frame_num " +
                       std::to_string(plan.frames) + " --sample_steps " + std::to_string(plan.steps) + " --ckpt_dir " +
                       runner.repo_checkpoint;
    if (runner.image_input) args += " --image input.jpg";
    if (config.fsdp > 0) args += " --dit_fsdp --t5_fsdp";
    args += " --ulysses_size " + std::to_string(config.ulysses) + " --ring_size " + std::to_string(config.ring) +
            " --base_seed " + std::to_string(plan.seed) + " --prompt " + ShellWord(kPrompt);
    return args;
  }
  if (runner.repo == Repo::kHunyuan) {
    if (config.fsdp > 0) return "";
    return " sample_video.py --video-size " + std::to_string(plan.height) + " " + std::to_string(plan.width) +
           " --video-length " + std::to_string(plan.frames) + " --infer-steps " + std::to_string(plan.steps) +
           " --ulysses-degree " + std::to_string(config.ulysses) + " --ring-degree " + std::to_string(config.ring) +
           " --seed " + std::to_string(plan.seed) + " --prompt " + ShellWord(kPrompt);
  }
  return "";
}

// xDiT rank -> the plan's logical rank; empty (with a note) when the roles
// and the mesh disagree.
std::vector<int64_t> XditToLogical(const Configuration& config, int64_t world, std::vector<std::string>& notes) {
  std::vector<int64_t> logical(static_cast<size_t>(world));
  if (config.axis_roles.empty()) {
    for (int64_t q = 0; q < world; ++q) logical[static_cast<size_t>(q)] = q;
    notes.push_back(
        "the plan does not say which mesh axis carries which degree; this assumes its row-major mesh order is "
        "xDiT's (tp fastest, then ulysses, ring, pipefusion, cfg, dp)");
    return logical;
  }
  if (config.axis_roles.size() != config.mesh.size() || MeshDevices(config) != world) {
    notes.push_back("the axis roles do not match the mesh " + MeshText(config));
    return {};
  }
  std::vector<int> axis_of_role(kXditRoles, -1);
  for (size_t axis = 0; axis < config.mesh.size(); ++axis) {
    const auto& [name, size] = config.mesh[axis];
    const std::string& role_name = config.axis_roles[axis];
    int role = XditRole(role_name);
    if (role < 0) {
      if (size == 1) continue;
      notes.push_back("mesh axis '" + name + "' of size " + std::to_string(size) + " carries " +
                      (role_name.empty() ? std::string("no strategy") : "'" + role_name + "'") +
                      ", which is none of xDiT's rank groups");
      return {};
    }
    if (axis_of_role[static_cast<size_t>(role)] >= 0 || size != XditDegree(config, role)) {
      notes.push_back("mesh axis '" + name + "' (" + role_name + ") does not match the " + role_name + " degree " +
                      std::to_string(XditDegree(config, role)));
      return {};
    }
    axis_of_role[static_cast<size_t>(role)] = static_cast<int>(axis);
  }
  for (int role = 0; role < kXditRoles; ++role) {
    if (XditDegree(config, role) > 1 && axis_of_role[static_cast<size_t>(role)] < 0) {
      notes.push_back(std::string("no mesh axis carries the ") + kXditOrder[role] + " degree");
      return {};
    }
  }
  for (int64_t q = 0; q < world; ++q) {
    std::vector<int64_t> position(config.mesh.size(), 0);
    int64_t rest = q;
    for (int role = 0; role < kXditRoles; ++role) {
      int64_t degree = XditDegree(config, role);
      int axis = axis_of_role[static_cast<size_t>(role)];
      if (axis >= 0) position[static_cast<size_t>(axis)] = rest % degree;
      rest /= degree;
    }
    int64_t rank = 0;
    for (size_t axis = 0; axis < config.mesh.size(); ++axis) rank = rank * config.mesh[axis].second + position[axis];
    logical[static_cast<size_t>(q)] = rank;
  }
  return logical;
}

// Splits device_of_rank into torchrun node blocks and the GPU list of each.
void AssignNodes(const Plan& plan, XditLaunch& launch) {
  int64_t world = static_cast<int64_t>(launch.device_of_rank.size());
  std::set<int> nodes;
  for (int chip : launch.device_of_rank) nodes.insert(SlotOf(plan, chip).node);
  launch.nodes = static_cast<int>(nodes.size());
  if (launch.nodes == 0 || world % launch.nodes != 0) {
    launch.nodes = std::max(launch.nodes, 1);
    launch.procs_per_node = static_cast<int>(world / launch.nodes);
    launch.notes.push_back("the plan uses a different number of GPUs on each node; torchrun starts the same number");
    launch.node_of_node_rank.assign(static_cast<size_t>(launch.nodes), -1);
    launch.cuda_visible_devices.assign(static_cast<size_t>(launch.nodes), "");
    return;
  }
  launch.procs_per_node = static_cast<int>(world / launch.nodes);
  bool default_order = true;
  launch.placement_expressible = true;
  for (int block = 0; block < launch.nodes; ++block) {
    int node = -1;
    std::string gpus;
    for (int local = 0; local < launch.procs_per_node; ++local) {
      GpuSlot slot = SlotOf(plan, launch.device_of_rank[static_cast<size_t>(block * launch.procs_per_node + local)]);
      if (node < 0) node = slot.node;
      if (slot.node != node) launch.placement_expressible = false;
      if (slot.gpu != local) default_order = false;
      if (!gpus.empty()) gpus += ",";
      gpus += std::to_string(slot.gpu);
    }
    launch.node_of_node_rank.push_back(node);
    launch.cuda_visible_devices.push_back(gpus);
  }
  if (!launch.placement_expressible) {
    launch.notes.push_back(
        "the placement puts one node_rank's xDiT ranks on several nodes, which CUDA_VISIBLE_DEVICES cannot "
        "express: the commands run xDiT's default order, not the plan's placement");
  }
  if (default_order || !launch.placement_expressible) {
    for (std::string& devices : launch.cuda_visible_devices) devices.clear();
  }
}

// ---- The Python file. ----

void Line(std::string& out, const std::string& text = "") { out += text + "\n"; }

std::string PyStrTuple(const std::vector<std::string>& values) {
  return JoinList(values, PyString, "(", ")", /*python_tuple=*/true);
}

std::string PyIntTuple(const std::vector<int64_t>& values) { return IntList(values, "(", ")", /*python_tuple=*/true); }

// DTensor placements of one tensor, one per mesh dimension, and a comment
// when they need _StridedShard.
std::pair<std::string, std::string> Placements(const Configuration& config, const search::TensorSpec& tensor) {
  std::vector<int> dims = ShardDims(config, tensor);
  return {PlacementList(dims), StridedComment(config, tensor)};
}

// The placements of the tensors of role `role`, or (an empty role) of every
// tensor that is neither a parameter nor optimizer state.
void PlacementTable(std::string& out, const Configuration& config, const std::string& name, const std::string& role) {
  Line(out, name + " = {");
  for (const search::TensorSpec& tensor : config.tensors) {
    bool own = role.empty() ? tensor.role != "parameter" && tensor.role != "optimizer_state" : tensor.role == role;
    if (!own) continue;
    auto [list, comment] = Placements(config, tensor);
    Line(out, "    " + PyString(tensor.name) + ": " + list + "," + comment);
  }
  Line(out, "}");
}

std::string CommandsLiteral(const std::vector<std::string>& commands) {
  if (commands.empty()) return "None";
  std::string joined;
  for (size_t k = 0; k < commands.size(); ++k) {
    if (k > 0) joined += "\n";
    joined += commands[k];
  }
  return PyString(joined);
}

// FSDP_PREFETCH_DEPTH and set_fsdp_prefetch for a plan whose FSDP prefetch
// depth is d > 1 (compile/spmd/schedule.h); "" for depth 1, FSDP2's default.
// FSDP2 gathers one fully_shard unit per collective; with one unit per
// block, the gathers of the next d - 1 blocks issued at a block's
// pre-forward (FSDPModule.set_modules_to_forward_prefetch) are the plan's
// schedule, and the backward's mirror image (set_modules_to_backward_prefetch,
// the blocks before it) a training step's.
std::string FsdpPrefetchPython(const Plan& plan, const Configuration& config) {
  if (config.prefetch <= 1) return "";
  std::string out;
  Line(out);
  Line(out);
  Line(out, "# FSDP prefetch depth the plan priced: each block's weight all-gather is issued with those of the");
  Line(out, "# " + std::to_string(config.prefetch - 1) +
                " block(s) before it (depth 1 is FSDP2's default: the next block's gather overlaps the current one).");
  Line(out, "FSDP_PREFETCH_DEPTH = " + std::to_string(config.prefetch));
  Line(out);
  Line(out);
  Line(out, "def set_fsdp_prefetch(blocks, depth=FSDP_PREFETCH_DEPTH, backward=" +
                std::string(plan.train ? "True" : "False") + "):");
  Line(out, "    \"\"\"Blocks each wrapped with FSDP2's fully_shard, in forward order: block i prefetches the");
  Line(out, "    next depth - 1 blocks' weights in the forward (and the previous depth - 1 in the backward).\"\"\"");
  Line(out, "    blocks = list(blocks)");
  Line(out, "    for i, block in enumerate(blocks):");
  Line(out, "        ahead = blocks[i + 1:i + depth]");
  Line(out, "        if ahead:");
  Line(out, "            block.set_modules_to_forward_prefetch(ahead)");
  Line(out, "        behind = blocks[max(0, i - depth + 1):i][::-1]");
  Line(out, "        if backward and behind:");
  Line(out, "            block.set_modules_to_backward_prefetch(behind)");
  Line(out, "    return blocks");
  return out;
}

// ACCUMULATE, micro_batch and train_step for a training plan with gradient
// accumulation (plan_format.h: MicroBatchPython); "" otherwise. FSDP2
// reduce-scatters each backward's gradients into the sharded .grad by
// default (set_requires_gradient_sync(True)), which is what the plan priced.
std::string AccumulatePython(const Configuration& config) {
  if (config.accumulate <= 1) return "";
  std::string out = MicroBatchPython(config);
  Line(out);
  Line(out);
  Line(out, "def train_step(model, optimizer, loss_fn, batch, count=ACCUMULATE):");
  Line(out, "    \"\"\"One optimizer update over `count` micro-steps: loss_fn(model, micro) is a micro-step's mean");
  Line(out, "    loss; each backward adds the gradients of loss / count into .grad (FSDP2 reduce-scatters them");
  Line(out, "    into the sharded .grad, its default), then optimizer.step() once. Returns the batch's mean loss.\"\"\"");
  Line(out, "    optimizer.zero_grad(set_to_none=True)");
  Line(out, "    total = 0.0");
  Line(out, "    for index in range(count):");
  Line(out, "        loss = loss_fn(model, micro_batch(batch, index, count)) / count");
  Line(out, "        loss.backward()");
  Line(out, "        total += float(loss.detach())");
  Line(out, "    optimizer.step()");
  Line(out, "    return total");
  return out;
}

}  // namespace

XditLaunch PlanXditLaunch(const Plan& plan, const Configuration& config) {
  XditLaunch launch;
  if (plan.tpu) {
    launch.notes.push_back("xDiT and the model repositories run on GPUs; this is a TPU plan");
    return launch;
  }
  if (config.ulysses_chunks > 1) {
    launch.notes.push_back("xDiT's Ulysses runs one all-to-all per tensor: it has no head chunks (ulysses_chunks=" +
                           std::to_string(config.ulysses_chunks) + ", MaxDiffusion's ulysses_attention_chunks)");
    return launch;
  }
  if (!config.expressible_in_xdit) {
    launch.notes.push_back("the sharding '" + config.sharding + "' has no xDiT form");
    return launch;
  }
  if (!config.xdit_refused.empty()) {
    launch.notes.push_back(config.xdit_refused + ", so it would refuse to run; AoiZora's own program pads instead");
    return launch;
  }
  int64_t world = static_cast<int64_t>(config.placement.size());
  int64_t product = 1;
  for (int role = 0; role < kXditRoles; ++role) {
    if (XditDegree(config, role) < 1) {
      launch.notes.push_back(std::string("the ") + kXditOrder[role] + " degree is " +
                             std::to_string(XditDegree(config, role)));
      return launch;
    }
    product *= XditDegree(config, role);
  }
  if (product != world || world == 0) {
    launch.notes.push_back("the degrees multiply to " + std::to_string(product) + ", not the " + std::to_string(world) +
                           " devices of the placement");
    return launch;
  }
  if (config.cfg != 1 && config.cfg != 2) {
    launch.notes.push_back("xDiT's CFG parallelism has degree 2, not " + std::to_string(config.cfg));
    return launch;
  }
  std::vector<int64_t> logical = XditToLogical(config, world, launch.notes);
  if (logical.empty()) return launch;
  launch.expressible = true;
  for (int64_t rank : logical) launch.device_of_rank.push_back(config.placement[static_cast<size_t>(rank)]);
  AssignNodes(plan, launch);

  const Runner* runner = FindRunner(plan.model);
  if (runner == nullptr) {
    launch.notes.push_back("no xDiT example is known for model '" + plan.model + "'");
    return launch;
  }
  std::string xdit = XditArgs(plan, config, *runner);
  std::string repo = RepoArgs(plan, config, *runner);
  if (config.pipefusion > 1) {
    // xDiT's PipeFusion runs in its own pipeline wrappers (PixArt, SD3, Flux,
    // HunyuanDiT, ...); its Wan examples refuse it.
    launch.notes.push_back(std::string(runner->xdit_script) +
                           " asserts pipefusion_parallel_degree == 1 (xDiT has no PipeFusion pipeline for this "
                           "model's example): the command names the degrees for a PipeFusion-enabled pipeline");
  }
  for (int node_rank = 0; node_rank < launch.nodes; ++node_rank) {
    launch.xdit_commands.push_back(Torchrun(launch, node_rank) + xdit);
    if (!repo.empty()) launch.repo_commands.push_back(Torchrun(launch, node_rank) + repo);
  }
  if (!repo.empty()) {
    launch.repo_name = runner->repo == Repo::kWan ? "Wan2.1 generate.py" : "HunyuanVideo sample_video.py";
  }
  return launch;
}

std::string PlanTorch(const Plan& plan, const Configuration& config) {
  int64_t devices = MeshDevices(config);
  AZ_CHECK_MSG(devices == static_cast<int64_t>(config.placement.size()),
               "mesh " + MeshText(config) + " has " + std::to_string(devices) + " devices, the placement " +
                   std::to_string(config.placement.size()));

  // Global rank of each used GPU: the used GPUs in (node, gpu) order, as
  // torchrun numbers them once each node lists its used GPUs in order.
  std::map<GpuSlot, int> slot_chip;
  for (int chip : config.placement) slot_chip[SlotOf(plan, chip)] = chip;
  std::map<int, int64_t> global_rank;
  std::map<int, std::string> node_gpus;
  bool default_gpus = true;
  std::map<int, int> used_on_node;
  for (const auto& [slot, chip] : slot_chip) {
    global_rank[chip] = static_cast<int64_t>(global_rank.size());
    int& used = used_on_node[slot.node];
    if (slot.gpu != used) default_gpus = false;
    ++used;
    std::string& gpus = node_gpus[slot.node];
    if (!gpus.empty()) gpus += ",";
    gpus += std::to_string(slot.gpu);
  }
  std::vector<int64_t> rank_layout, device_ids, shape;
  for (int chip : config.placement) {
    rank_layout.push_back(global_rank.at(chip));
    device_ids.push_back(chip);
  }
  std::vector<std::string> names;
  for (const auto& [axis, size] : config.mesh) {
    names.push_back(axis);
    shape.push_back(size);
  }

  std::string out;
  Line(out, "\"\"\"PyTorch layout of an AoiZora plan: DeviceMesh, DTensor placements, xDiT command.");
  Line(out);
  for (const std::string& line : PlanDocstringLines(plan, config)) Line(out, line);
  if (plan.tpu) {
    Line(out);
    Line(out, "This plan is for TPUs; this file targets GPUs (NCCL) only. Use plan_jax.py on TPUs.");
  }
  Line(out);
  Line(out, "Launch one process per GPU with torchrun (global rank = node_rank * nproc_per_node + local");
  Line(out, "rank, each process on cuda:<local rank>); make_device_mesh() then puts logical rank k of the");
  Line(out, "plan's mesh on global rank RANK_LAYOUT[k], which is the plan's placement.");
  if (!default_gpus) {
    Line(out);
    Line(out, "The plan uses a subset of each node's GPUs: set CUDA_VISIBLE_DEVICES per node to");
    for (const auto& [node, gpus] : node_gpus) Line(out, "    node " + std::to_string(node) + ": " + gpus);
    Line(out, "so that local rank i runs on the i-th GPU listed.");
  }
  Line(out);
  Line(out, "Two ways to apply it: apply_plan() / parallelize_plan() with DTensor (torch >= 2.0), or");
  Line(out, "parallelize_runtime() with plain torch.distributed collectives on any torch >= 1.13");
  Line(out, "(python/aoizora_torch/runtime.py: Megatron TP, Ulysses, ring attention, CFG / data parallel).");
  Line(out);
  Line(out, "Generated by aoizora; the same plan gives the same file.");
  Line(out, "\"\"\"");
  Line(out);
  Line(out, "MESH_DIM_NAMES = " + PyStrTuple(names));
  Line(out, "MESH_SHAPE = " + PyIntTuple(shape));
  Line(out, "# Global rank of each logical rank (row-major mesh position, the last dim fastest).");
  Line(out, "RANK_LAYOUT = " + IntList(rank_layout));
  Line(out, "# Device id (chip id) of each logical rank: the plan's placement.");
  Line(out, "DEVICE_IDS = " + IntList(device_ids));
  Line(out, "# Logical rank -> GPU:");
  for (size_t k = 0; k < config.placement.size(); ++k) {
    int chip = config.placement[k];
    Line(out, "#   " + std::to_string(k) + " -> " + PyText(ChipName(plan, chip)) + " (device " + std::to_string(chip) +
                  ", global rank " + std::to_string(rank_layout[k]) + ")");
  }
  Line(out);
  Line(out);
  Line(out, "def make_device_mesh():");
  Line(out, "    \"\"\"The plan's mesh over the torchrun processes (call on every rank).\"\"\"");
  Line(out, "    import torch");
  Line(out, "    from torch.distributed.device_mesh import DeviceMesh");
  Line(out);
  Line(out, "    world = torch.distributed.get_world_size() if torch.distributed.is_initialized() else None");
  Line(out, "    if world is not None and world != len(RANK_LAYOUT):");
  Line(out, "        raise ValueError(f\"this plan is for {len(RANK_LAYOUT)} ranks, the job has {world}\")");
  Line(out, "    layout = torch.tensor(RANK_LAYOUT, dtype=torch.int).reshape(MESH_SHAPE)");
  Line(out, "    return DeviceMesh(\"cuda\", layout, mesh_dim_names=MESH_DIM_NAMES)");
  Line(out);
  Line(out);
  Line(out, "# Per tensor, one placement per mesh dim: (\"shard\", tensor_dim) or (\"replicate\",).");
  PlacementTable(out, config, "PARAM_PLACEMENTS", "parameter");
  if (plan.train) {
    // The fp32 master weights and AdamW moments ("<name>.master",
    // "<name>.exp_avg", "<name>.exp_avg_sq"): place the optimizer's state
    // tensors so (FSDP2 shards them like their DTensor parameters).
    PlacementTable(out, config, "OPTIMIZER_STATE_PLACEMENTS", "optimizer_state");
  }
  PlacementTable(out, config, "ACTIVATION_PLACEMENTS", "");
  Line(out);
  Line(out);
  Line(out, "def _placements(entries):");
  Line(out, "    try:");
  Line(out, "        from torch.distributed.tensor import Replicate, Shard");
  Line(out, "    except ImportError:  # torch < 2.4");
  Line(out, "        from torch.distributed._tensor import Replicate, Shard");
  Line(out, "    return [Shard(entry[1]) if entry[0] == \"shard\" else Replicate() for entry in entries]");
  Line(out);
  Line(out);
  Line(out, "def dtensor_placements(name):");
  Line(out, "    \"\"\"DTensor placements (Shard(d) / Replicate(), one per mesh dim) of parameter `name`.\"\"\"");
  Line(out, "    return _placements(PARAM_PLACEMENTS[name])");
  Line(out);
  Line(out);
  Line(out, "def activation_placements(name):");
  Line(out, "    \"\"\"DTensor placements of activation or input `name`.\"\"\"");
  Line(out, "    return _placements(ACTIVATION_PLACEMENTS[name])");
  Line(out);
  Line(out);
  Line(out, "def distribute_params(mesh, params, strict=True):");
  Line(out, "    \"\"\"{name: tensor} -> {name: DTensor} laid out as planned; unknown names raise unless");
  Line(out, "    strict=False, which replicates them.\"\"\"");
  Line(out, "    try:");
  Line(out, "        from torch.distributed.tensor import Replicate, distribute_tensor");
  Line(out, "    except ImportError:  # torch < 2.4");
  Line(out, "        from torch.distributed._tensor import Replicate, distribute_tensor");
  Line(out);
  Line(out, "    unknown = sorted(name for name in params if name not in PARAM_PLACEMENTS)");
  Line(out, "    if strict and unknown:");
  Line(out, "        raise KeyError(f\"parameters not in the plan: {unknown[:5]}\")");
  Line(out, "    out = {}");
  Line(out, "    for name, tensor in params.items():");
  Line(out, "        if name in PARAM_PLACEMENTS:");
  Line(out, "            placements = dtensor_placements(name)");
  Line(out, "        else:");
  Line(out, "            placements = [Replicate()] * len(MESH_SHAPE)");
  Line(out, "        out[name] = distribute_tensor(tensor, mesh, placements)");
  Line(out, "    return out");
  out += FsdpPrefetchPython(plan, config);
  out += AccumulatePython(config);
  Line(out);
  Line(out);
  out += ParallelizePython(config);
  Line(out);
  Line(out);
  out += RuntimePython(config);
  out += ExpertsPython(plan, config, "distribute_experts", "distribute_params");
  Line(out);
  Line(out);

  XditLaunch launch = PlanXditLaunch(plan, config);
  Line(out, "# xDiT builds its own process groups, rank order \"tp-sp-pp-cfg-dp\": tp fastest, then");
  Line(out, "# ulysses, ring (sp), cfg, dp. The plan's placement is applied through");
  Line(out, "# CUDA_VISIBLE_DEVICES (local rank i runs on the i-th GPU listed).");
  for (const std::string& note : launch.notes) Line(out, "# Note: " + PyText(note) + ".");
  if (launch.expressible) {
    std::vector<int64_t> order(launch.device_of_rank.begin(), launch.device_of_rank.end());
    Line(out, "# Degrees: ulysses " + std::to_string(config.ulysses) + ", ring " + std::to_string(config.ring) +
                  ", cfg " + std::to_string(config.cfg) + ", tp " + std::to_string(config.tp) + ", dp " +
                  std::to_string(config.dp) + (config.fsdp > 0 ? ", fsdp " + std::to_string(config.fsdp) : "") + ".");
    Line(out, "# Device (chip id) of each xDiT rank:");
    Line(out, "XDIT_RANK_DEVICES = " + IntList(order));
    for (size_t node_rank = 0; launch.placement_expressible && node_rank < launch.node_of_node_rank.size();
         ++node_rank) {
      const std::string& devices = launch.cuda_visible_devices[node_rank];
      Line(out, "# node_rank " + std::to_string(node_rank) + " runs on node " +
                    std::to_string(launch.node_of_node_rank[node_rank]) +
                    (devices.empty() ? ", default GPU order" : ", CUDA_VISIBLE_DEVICES=" + devices));
    }
  }
  if (!launch.xdit_commands.empty() && launch.nodes > 1) {
    Line(out, "# One command per node_rank, one per line; set MASTER_ADDR to node_rank 0's address.");
  }
  Line(out, "XDIT_COMMAND = " + CommandsLiteral(launch.xdit_commands));
  if (!launch.repo_name.empty()) Line(out, "# The model's own repository (" + launch.repo_name + "):");
  Line(out, "REPO_COMMAND = " + CommandsLiteral(launch.repo_commands));
  return out;
}

}  // namespace az::emit
