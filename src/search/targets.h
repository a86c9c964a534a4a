// Targets: the runtime a plan is for. A target fixes the vocabulary the grid
// may use (sources.h), so that what is priced is what that runtime runs:
//
//   any           (default) on GPUs every combination the built-in compiler
//                 prices (plan_torch.py, xDiT's flags and plan_jax.py between
//                 them); on TPU slices every combination jax or maxdiffusion
//                 runs, the runtimes a TPU plan is written for (plan_jax.py,
//                 maxdiffusion.yml): so no FSDP prefetch deeper than 1 (only
//                 FSDP2 sets one, and PyTorch/FSDP2 is not a TPU runtime) and
//                 no per-part hybrid on a ring axis (JAX has no ring,
//                 MaxDiffusion no per-part sharding). The planner resolves
//                 `any` on a TPU slice to kAnyTpu (ResolveTarget), which is
//                 named "any".
//   jax           jax.jit with the plan's shardings (plan_jax.py). GSPMD turns
//                 a sequence-sharded K and V into an all-gather, not a ring:
//                 Ring (and USP's ring factor) is not what JAX runs, so only
//                 its `context` form (K and V gathered) is offered; Ulysses
//                 (the all-to-all between sequence and head shardings), TP,
//                 CFG, data parallelism and FSDP are, and per-part hybrids
//                 (hybrid.h: per-tensor shardings, XLA lowers the
//                 transitions) on ulysses or context axes.
//   maxdiffusion  MaxDiffusion's Wan text-to-video configs on a TPU slice
//                 (emit/maxdiffusion.h): data = dp x cfg filling the batch-2
//                 CFG forward, context (flash, ring, ulysses, ulysses_ring),
//                 tensor, Ulysses head chunks (ulysses_attention_chunks);
//                 no sharding of per-tensor seeds, no per-part hybrid (one
//                 sharding for the whole model).
//   xdit          the model's deployed code on GPUs (xDiT or its own
//                 repository): the expert's vocabulary and split rules
//                 (combos.h: RunsAsExpert; no per-part hybrid, no Ulysses
//                 head chunks).
// Ulysses head chunks (Combo::ulysses_chunks > 1) run under maxdiffusion
// (ulysses_attention_chunks) and any; jax refuses them (GSPMD does not chunk
// an all-to-all; plan_jax.py gives shardings, not the attention's code).
//
// A baseline's pick is still reported under any target (it is what its user
// runs), but the plan's best is only a configuration the target admits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "workload/workload.h"
#include "search/combos.h"
#include "support/status.h"

namespace az::search {

enum class Target { kAny, kJax, kMaxDiffusion, kXdit, kAnyTpu };

std::string_view TargetName(Target target);  // "any", "jax", "maxdiffusion", "xdit"; kAnyTpu: "any"
StatusOr<Target> ParseTarget(std::string_view name);  // never kAnyTpu
// `any` on a TPU slice is kAnyTpu; every other target is itself.
Target ResolveTarget(Target target, bool tpu);

// MaxDiffusion's config file for a zoo model it runs (text-to-video), or
// nullopt: src/maxdiffusion/configs/base_wan_{1_3b,14b,27b}.yml.
std::optional<std::string> MaxDiffusionConfigFile(std::string_view model);

// Whether the target can run the model on these chips at all, else why not.
Status TargetRuns(Target target, const workload::Workload& config, bool tpu);

// Whether the target runs the combination as the built-in compiler prices
// it, else why not (one sentence). `config` is the workload as planned.
Status TargetAdmits(Target target, const workload::Workload& config, const Combo& combo);

// Whether the target runs a sharding given as per-tensor seeds (Alpa's pick,
// a program's own annotations): jax and any do (with_sharding_constraint).
bool TargetAdmitsSeeds(Target target);

}  // namespace az::search
