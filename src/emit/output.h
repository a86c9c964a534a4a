// Writes a plan's files into one directory (`aoizora plan --out DIR`).
//
//   plan.json        PlanJson without the wall time (same input and seed, same bytes)
//   report.md        PlanReport
//   plan_jax.py      PlanJax of the best configuration: TPU and GPU plans both
//                    (JAX runs on either, and device ids are chip ids on both)
//   plan_torch.py    PlanTorch of the best configuration, GPU plans only: on a
//                    TPU its DeviceMesh("cuda") and NCCL launch would describe
//                    a machine the plan is not for (torch_xla has its own
//                    mesh API), so a TPU plan gets none rather than a
//                    misleading one. A stale plan_torch.py from an earlier
//                    GPU plan in the same directory is left alone.
//   placement.svg    PlacementSvg of the best placement with its link loads
//   compare.svg      CompareSvg
//   step.trace.json  StepTrace of the best step (the planner simulates it with
//                    a timeline; without one the trace has no events)
//
// The directory and its parents are created. Each file is written whole
// (truncated first). Errors (a directory that cannot be created, a file that
// cannot be written) are Statuses naming the path; files written before the
// error stay. The topology must be the one the plan was made for: a best
// placement that names a chip outside it, or link loads that name channels it
// lacks, is an InvalidArgument rather than a crash; so is a best
// configuration whose mesh does not match its placement or whose tensors name
// axes the mesh lacks. Both are checked before anything is written.
#pragma once

#include <string>
#include <vector>

#include "hw/topology.h"
#include "search/plan.h"
#include "support/status.h"

namespace az::emit {

// The names WritePlanFiles writes for a plan on a TPU (tpu) or GPU topology.
std::vector<std::string> PlanFileNames(bool tpu);

Status WritePlanFiles(const search::Plan& plan, const hw::Topology& topology, const std::string& dir);

}  // namespace az::emit
