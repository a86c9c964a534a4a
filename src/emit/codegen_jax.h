// JAX code for a plan (plan_jax.py): the mesh built from an explicit device
// array in the plan's placement, and the PartitionSpec of every tensor.
//
// Why an explicit device array: jax.make_mesh / create_device_mesh choose
// their own device order (reference/hardware.md §3.1-§3.5), which is the
// placement the "expert" baseline is priced with, not the planner's. The mesh
// is jax.sharding.Mesh(devices.reshape(MESH_SHAPE), MESH_AXES) with devices in
// DEVICE_ORDER, so logical rank k (row-major mesh position = XLA partition id,
// hardware.md §3.6) runs on the device whose id is DEVICE_ORDER[k]. The
// plan's device id is its chip id, which is JAX's device id (search/plan.h);
// the XLA device assignment of the compiled program is DEVICE_ORDER as one
// row (one replica).
//
// Multi-slice TPU plans ("CHIP:SHAPE*N"): JAX lays out devices of several
// slices only through mesh_utils.create_hybrid_device_mesh(ici, dcn)
// (place/default_placement.h), so make_mesh builds the mesh with it, from
// ICI_MESH_SHAPE and DCN_MESH_SHAPE (the plan's split: emit/plan_format.h
// ScaleOut). When the plan's order inside a slice is not what
// create_device_mesh gives a slice (JAX_SLICE_ORDER False), the hybrid
// array's devices are then picked in the plan's order by (slice_index,
// coords), DEVICE_SLICE_COORDS, after checking that every rank stays in the
// slice the hybrid mesh gave it. A placement that is no hybrid mesh is built
// from DEVICE_SLICE_COORDS alone, and the file says why.
//
// The file:
//   docstring         model, resolution, topology, configuration, predicted
//                     step and video latency and peak memory
//   MESH_AXES, MESH_SHAPE, DEVICE_ORDER (and a comment per logical rank
//                     naming its chip coordinates)
//   make_mesh(devices=None)   jax.devices() by default; checks the count and
//                     that every id is there
//   PARAM_SPECS, ACTIVATION_SPECS   name -> PartitionSpec-style tuple, one
//                     entry per dimension: None, "x", or ("x", "y") (major
//                     first); inputs are in ACTIVATION_SPECS
//   param_sharding, activation_sharding, shard_params, constrain
// jax and numpy are imported inside the functions, so the file compiles and
// imports where neither is installed. Every plan string is escaped
// (PyString). Deterministic: the same plan gives the same text.
#pragma once

#include <string>

#include "search/plan.h"

namespace az::emit {

std::string PlanJax(const search::Plan& plan, const search::Configuration& config);

}  // namespace az::emit
