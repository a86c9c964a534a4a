// The candidates file (`aoizora plan --emit-candidates FILE`): every
// parallelization candidate the planner would consider for a model on a slice,
// as the JAX loop needs it to compile each one with XLA
// (python/aoizora_jax/compile_candidates.py, docs/jax-loop.md): an id (the
// dump's file name), the mesh (axis names and sizes, row-major), the strategy
// per axis, the template, and the PartitionSpec of every model input and of
// every parameter, block parameters written once with `*` for the block index
// ("blocks.*.self_attn.q.weight").
//
// Format "aoizora-candidates/1":
//   {"format", "model", "width", "height", "frames", "batch", "cfg_mode",
//    "topology", "chips",
//    "candidates": [{"id", "combo", "expert", "mesh": [{"name", "size"}],
//                    "axis_roles", "template", "hlo_file",
//                    "inputs": {name: spec}, "parameters": {pattern: spec}}]}
// A spec has one entry per dimension: the list of mesh axes sharding it,
// major to minor ([] = unsharded).
#pragma once

#include <string>

#include "workload/workload.h"
#include "hw/topology.h"
#include "support/status.h"

namespace az::emit {

// `pinned` ("ulysses=4,ring=2") limits the file to that candidate.
StatusOr<std::string> CandidatesJson(const workload::Workload& config, const hw::Topology& topology,
                                     const std::string& pinned);

}  // namespace az::emit
