// PyTorch code for a GPU plan: the DeviceMesh with the plan's rank layout, the
// DTensor placement of every tensor, and, when the sharding is one that xDiT
// (or the model's own repository) runs, the command line with the GPU order
// that reproduces the plan's placement.
//
// Two ways to run a plan, two ways to apply its placement:
//
//  * DeviceMesh / DTensor (make_device_mesh). torchrun starts one process per
//    GPU: global rank = node_rank * nproc_per_node + local rank, on
//    cuda:<local rank>. RANK_LAYOUT[k] is the global rank that plays logical
//    rank k (row-major mesh position, as in the plan), so the mesh itself
//    carries the placement and no environment is needed. With every GPU of
//    each node in use and chip ids numbered node-major (hw/topology.h), the
//    global rank of a GPU is its chip id, and RANK_LAYOUT is the placement.
//    In general the used GPUs are ranked in (node, gpu) order, and when a node
//    does not use GPUs 0..n-1, CUDA_VISIBLE_DEVICES must list them (the file
//    says so).
//
//  * xDiT / Wan repo / HunyuanVideo repo (XDIT_COMMAND, REPO_COMMAND). These
//    build their own process groups in a fixed rank order, "tp-sp-pp-cfg-dp"
//    with tp fastest, and inside sp Ulysses fastest, then ring (yunchang's
//    default; reference/models.md §4.3). A rank r of theirs plays the plan's
//    logical rank whose mesh coordinates are r's digits in that order, read
//    through Configuration::axis_roles. The placement is then applied by
//    CUDA_VISIBLE_DEVICES: local rank i of a node runs on the i-th GPU listed,
//    so listing, per node, the GPU of each of its ranks in rank order puts
//    every rank on the plan's GPU. It is left out when that list is 0..n-1
//    on every node (the default order already is the plan's).
//
// parallelize_module (PARALLELIZE_PLAN, apply_plan): emit/torch_parallelize.h.
//
// Every name and string that comes from the plan is escaped (PyString), so a
// tensor name with quotes or backslashes still gives a file that compiles.
// Deterministic: the same plan gives the same text.
#pragma once

#include <string>
#include <vector>

#include "search/plan.h"

namespace az::emit {

// How a configuration launches under xDiT and the model's repository.
struct XditLaunch {
  // The degrees are a valid xDiT configuration for this plan (a GPU plan,
  // expressible_in_xdit, a sequence split the model's code accepts
  // (xdit_refused empty), degrees multiplying to the device count, axis roles
  // consistent with the mesh).
  bool expressible = false;
  // The placement can be reproduced with CUDA_VISIBLE_DEVICES (each node's
  // block of ranks on one node, the same count on every node).
  bool placement_expressible = false;
  // Why not, or caveats (an assumed rank order); one sentence each.
  std::vector<std::string> notes;
  // Chip id of each xDiT rank (empty when !expressible).
  std::vector<int> device_of_rank;
  int nodes = 0, procs_per_node = 0;
  // Per node_rank: the node it must run on (ChipInfo coords[0]) and its
  // CUDA_VISIBLE_DEVICES ("" when the default order is right everywhere).
  std::vector<int> node_of_node_rank;
  std::vector<std::string> cuda_visible_devices;
  // One line per node_rank (empty when no runner is known for the model or
  // the degrees do not fit it).
  std::vector<std::string> xdit_commands;
  std::vector<std::string> repo_commands;
  std::string repo_name;  // "Wan2.1 generate.py", "HunyuanVideo sample_video.py"
};

XditLaunch PlanXditLaunch(const search::Plan& plan, const search::Configuration& config);

// The generated Python file (plan_torch.py). For a TPU plan the docstring says
// that it targets GPUs only; output.h writes it for GPU topologies only.
std::string PlanTorch(const search::Plan& plan, const search::Configuration& config);

}  // namespace az::emit
