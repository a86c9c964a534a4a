// The human side of a plan: report.md, and the few lines the CLI prints.
//
// report.md, in order:
//   title and inputs (model, resolution, frames, steps, cfg, topology, chip,
//   seed) and the search effort;
//   Summary: one row per configuration (aoizora, expert, alpa): mesh,
//     sharding, placement method, step latency, video latency, peak memory,
//     speedup of aoizora over it; a missing Alpa plan is a row with its note;
//   Roofline: the bound per step and the efficiency (bound / step latency);
//   Where the time goes: compute, communication, exposed and overlapped
//     communication of the best, the top collective classes (by total time),
//     the time per collective kind and the busiest links;
//   Device assignment: logical rank, mesh position, device id, chip name and
//     coordinates;
//   How to run: plan_jax.py, plan_torch.py (GPU plans; output.h), the xDiT
//     and repository command lines when the sharding is expressible, else
//     why not; the other files.
// Every plan string in a table goes through MarkdownCell. Deterministic.
#pragma once

#include <string>

#include "search/plan.h"

namespace az::emit {

// Collective classes listed in the report.
inline constexpr size_t kReportClasses = 5;
inline constexpr size_t kReportLinks = 3;

std::string PlanReport(const search::Plan& plan);

// What `aoizora plan` prints on stdout: the inputs, one line per
// configuration (latency, speedup), the roofline and the planning time.
std::string PlanSummary(const search::Plan& plan);

}  // namespace az::emit
