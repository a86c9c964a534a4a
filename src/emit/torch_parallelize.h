// The parallelize_module part of plan_torch.py (codegen_torch.h has the rest).
//
// PARALLELIZE_PLAN groups the plan's parameters by module FQN (a parameter's
// name without its last component). A Linear (a module holding only a rank-2
// "weight" and an optional rank-1 "bias") whose only split is on the
// tensor-parallel mesh dim (the axis whose role is "tp"), Megatron's way, is
// "colwise" (ColwiseParallel: weight and bias split on the output features) or
// "rowwise" (RowwiseParallel: weight split on the input features, bias whole);
// every other module lists its parameters' placements, one per mesh dim. Placements there are in PyTorch's layout,
// where a Linear weight is [out, in]. The plan's TensorSpecs keep the program's layout: the zoo stores Linear weights
// [in, out]; an ONNX import may keep PyTorch's. Which one a plan uses is read from its Linears with a bias (the bias
// length is the output dim), by majority over the non-square ones (DetectLinearLayout).
//
// The Python it writes: TP_MESH_DIM, PARALLELIZE_PLAN, module_placements(names)
// (pure: FQN -> placements tuples, no torch needed), parallelize_plan() (the
// ParallelStyle objects, torch >= 2.0) and apply_plan(module, mesh) (every
// parameter through distribute_tensor). DTensor is imported lazily, from
// torch.distributed.tensor or, before 2.4, torch.distributed._tensor.
#pragma once

#include <string>
#include <vector>

#include "search/plan.h"

namespace az::emit {

// How a plan's TensorSpecs store Linear weights: kInOut (the zoo's einsum
// layout, [in, out]) or kOutIn (PyTorch's nn.Linear, [out, in]). A Linear
// "m.weight" [a, b] with a bias "m.bias" [n], a != b, votes kInOut when n == b
// and kOutIn when n == a; the majority wins, and a tie (or no vote) is kInOut.
enum class LinearLayout { kInOut, kOutIn };
LinearLayout DetectLinearLayout(const search::Configuration& config);

// Per mesh dim, the tensor dim it splits, or -1 (replicated along it).
std::vector<int> ShardDims(const search::Configuration& config, const search::TensorSpec& tensor);

// "  # dim D splits ... needs _StridedShard" when a dim split over several mesh
// axes lists them against mesh order (DTensor splits major-first), else "".
std::string StridedComment(const search::Configuration& config, const search::TensorSpec& tensor);

// [("shard", 1), ("replicate",)]: one entry per mesh dim of ShardDims-style dims.
std::string PlacementList(const std::vector<int>& dims);

// TP_MESH_DIM, PARALLELIZE_PLAN and the functions that use them.
std::string ParallelizePython(const search::Configuration& config);

// The part python/aoizora_torch/runtime.py executes on any torch >= 1.13 with
// plain torch.distributed collectives: AXIS_ROLES (the strategy of each mesh
// dim, Configuration::axis_roles; "" where none is known), MULTI_AXIS_SPECS
// (the PartitionSpec of each tensor that splits a dim over several mesh dims:
// which is major), PRICED_COLLECTIVES
// (the collective classes the plan priced for one forward pass: kind, bytes per
// device, logical replica groups as the plan prints them, count; the runtime's
// log is compared with them) and parallelize_runtime(module, rank, dry_run),
// which calls aoizora_torch.runtime.parallelize with this file's globals.
std::string RuntimePython(const search::Configuration& config);

}  // namespace az::emit
