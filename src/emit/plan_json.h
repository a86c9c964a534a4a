// plan.json: the plan as machine-readable JSON, for scripts, dashboards and
// the tests of other tools. Keys in a fixed order (nlohmann::ordered_json), so
// the same plan gives the same bytes; times in seconds, sizes in bytes.
//
//   {"format": "aoizora-plan/1",
//    "inputs": {"model", "width", "height", "resolution": "1280x720", "frames",
//               "workload": "inference"|"train",
//               "steps", "batch", "cfg",      // inference
//               "micro_batch",                // train: samples per step
//               "topology", "chip", "platform": "tpu"|"gpu", "hbm_bytes", "seed"},
//    "best": <configuration>,
//    "baselines": {"expert": <configuration>,
//                  "alpa": <configuration> | {"step_latency_s": null, "note"}},
//    "speedups": {"over_expert": 1.8, "over_alpa": 1.2 | null},
//    "video_latency_s" (inference, end to end), "denoising_latency_s" (steps x
//    the best's step), "stages_latency_s", "stages": [{"name", "kind",
//    "latency_s", "sharding", "peak_memory_bytes", "mesh": [{"axis", "size"}],
//    "device_order", "invocations", "invocation_s", "transfer_s", "offload_s",
//    "offloaded", "dit_evicted", "fits", "parameter_bytes", "note"}]
//    (search/stages.h; empty when not planned) | "samples_per_s" (train),
//    "plan_time_s" (with timing), "roofline_bound_s", "efficiency",
//    "search": {"meshes_considered", "candidates_considered",
//               "candidates_compiled"}}
//
// A configuration:
//   {"label", "description", "step_latency_s",
//    "video_latency_s" (inference) | "samples_per_s", "remat" (train),
//    "mesh": {"axes": ["x","y"], "shape": [2,4], "devices": 8},
//    "sharding": "usp:ulysses=y,ring=x",
//    "accumulate" (train, only when > 1: micro-steps per optimizer update),
//    "placement": {"method", "device_order": [..],   // device id per logical rank
//                  "xla_device_assignment": [[..]],   // replicas x partitions
//                  "assignment": [{"logical_id", "mesh_position", "chip",
//                                  "device_id", "name", "coords"}, ..],
//                  "scale_out": {"network": "dcn" | "inter-node",  // only on multi-slice
//                                "domains", "hybrid",               // and multi-node systems
//                                "outer_mesh_shape", "inner_mesh_shape",  // DCN / ICI per axis
//                                "across": {axis: degree}, "inside": {axis: degree}, "text"}},
//    "peak_memory_bytes",
//    "memory": {"peak_bytes", "parameter_bytes", "other_bytes", "hbm_bytes",
//               "fits",
//               "at_peak": {"parameters", "gradients", "optimizer_state",   // what is live
//                           "activations", "communication", "inputs",       // at the peak,
//                           "constants"},                                   // by kind
//               "experts": {"mode": "hold-both" | "swap", "count",   // only with
//                           "expert_bytes", "swap_s_per_video",     // several
//                           "swap_s_per_step", "host_link_bytes_per_s",  // experts
//                           "reason"}},
//    "breakdown": {"latency_s", "compute_s", "communication_s",
//                  "exposed_communication_s", "overlapped_communication_s",
//                  "kernels", "collectives",
//                  "by_kind": [{"kind", "count", "bytes", "time_s", "exposed_s"}],
//                  "classes": [{"kind", "bytes", "groups", "algorithm", "count",
//                               "time_s", "total_s", "exposed_s"}],   // issue order
//                  "busiest_links": [{"channel", "name", "bytes", "busy_s"}],
//                  "loaded_links"},
//    "evidence_hash",
//    "xdit": {"expressible", "ulysses", "ring", "cfg", "tp", "dp", "fsdp",
//             "axis_roles", "command": [..] | null, "repo_command": [..] | null,
//             "notes": [..]},
//    "tensors": [{"name", "role", "shape", "spec": [null | "x" | ["x","y"], ..]}]}
//
// Speedups are baseline step latency / best step latency; null when either
// is missing (no Alpa plan) or not positive. Non-finite numbers are null.
#pragma once

#include <string>

#include "search/plan.h"

namespace az::emit {

inline constexpr const char* kPlanJsonFormat = "aoizora-plan/1";
// Loaded channels listed under breakdown.busiest_links.
inline constexpr size_t kPlanJsonLinks = 8;

// Indented by two spaces, ending in a newline. `timing` adds "plan_time_s"
// (what `plan --json` prints); the plan.json file leaves the wall time out,
// so the same input and seed give the same bytes whatever the machine and
// `--threads` (tests/cli_test.sh checks it).
std::string PlanJson(const search::Plan& plan, bool timing = true);

}  // namespace az::emit
