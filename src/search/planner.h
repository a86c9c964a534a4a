// The planner: from a model and a slice to the best (mesh, sharding,
// placement), with the expert and Alpa baselines priced the same way.
//
// Pipeline: sources -> prune -> evaluate -> pick (each step named in the
// progress lines on stderr):
//   grid        every combination of combos.h for the chip count (or the one
//               pinned with --template): one mesh and one template each.
//   prune       (prune.h) a placement-oblivious score of every combination on
//               the model truncated to 2 and 3 block units, extrapolated to
//               the full depth; those whose peak exceeds the HBM are dropped.
//   rank        what the sources (sources.h) propose (the grid's top K, the
//               expert's combinations) evaluated in full (evaluate.h) on a
//               thread pool, each under the default placement and, unless
//               --placement default, a short placement search (place/search.h:
//               exhaustive on <= 8 chips, structured + annealing beyond).
//   pick        each source picks: the grid the fastest ranked configuration
//               (with a longer placement search unless the short one was
//               exhaustive); the expert the best xDiT (training: MaxDiffusion)
//               configuration under the default placement (JAX's
//               create_device_mesh on TPUs, rank order on GPUs); Alpa its
//               ILP's pick (alpa.h); an imported program its own shardings.
//   best        the fastest pick that fits, baselines included (so the plan
//               is never slower than a baseline).
//
// Step latency = forwards per step x the forward's simulated latency (two-pass
// CFG runs the batch-1 forward twice; batch2 and CFG-parallel run one batch-2
// forward). The guidance combine and the scheduler update are negligible
// element-wise work and are not priced. A model with several denoising experts
// (Wan 2.2 A14B) holds them all when they fit, else swaps them from host
// memory and adds the swap, amortized per step (search/noise_experts.h), at every
// memory check and every latency above.
//
// Deterministic: candidates are processed in a fixed order, results land in
// per-candidate slots whatever thread computed them, ties break by the
// candidate's text, and placement search is seeded.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "workload/workload.h"
#include "hw/topology.h"
#include "price/calibration.h"
#include "price/stack.h"
#include "search/plan.h"
#include "search/targets.h"

namespace az::search {

// A training step instead of a denoising step (Workload::TrainStep): the
// forward and backward of `micro_batch` samples and one AdamW update.
// Candidates come from EnumerateTrainCombos (DP, FSDP/ZeRO-3, TP, Ulysses,
// Ring, context and their combinations) and the per-part hybrids of the
// fastest sequence-parallel ones (hybrid.h); each candidate's remat is the
// cheapest policy whose pruned peak fits the HBM: none, then selected
// (recomputation only adds work, so the first that fits is the fastest), then
// the cheaper of offload and full that fits (offload recomputes less but pays
// the host transfers its compute does not hide; price/simulator.h), unless
// pinned. Step latency is the simulated training step. Baselines: the expert
// is MaxDiffusion's recipes (TrainExpert: FSDP over every chip, FSDP x context
// parallel) under the default placement with the cheapest remat that fits;
// Alpa's ILP runs on the training graph, remat tried in the order none,
// selected, offload, full.
struct TrainPlanOptions {
  int64_t micro_batch = 0;                // samples per step; 0: one per chip
  std::optional<pir::RematPolicy> remat;  // pinned for every candidate; unset: chosen per candidate
  pir::AdamWOptions adamw;
};

struct PlanOptions {
  std::string pinned;            // a combination ("ulysses=4,ring=2"); empty: search
  // The runtime the plan is for (targets.h): the grid offers only what it
  // runs, and the best is a configuration it runs.
  Target target = Target::kAny;
  bool search_placement = true;  // false: every configuration runs the default placement
  price::PriceCalibration calibration;
  // The software stack to price the DiT's steps with (price/stack.h: the
  // attention library scales the calibration's attention efficiency; the
  // other stages keep `calibration`); unset: the model's deployed library on
  // these chips (ChooseStack).
  std::optional<price::SoftwareStack> stack;
  int threads = 2;
  uint64_t seed = 1;
  // Pruning's survivors (besides the baselines' proposals), from the spread
  // of the stage-1 scores: every combination within `survivor_margin` of the
  // best score, at least kMinSurvivors and at most top_k. The margin is about
  // twice the widest gap measured between stage 1's best and the eventual
  // pick (5.8%, over 58 inference plans: docs/architecture.md, "Survivors");
  // a large margin keeps exactly the top K.
  int top_k = 6;
  double survivor_margin = 0.10;
  // Moves per restart of the winner's longer placement search (3 restarts);
  // 0: LongerSearchMoves(chips).
  int64_t placement_moves = 0;
  // The deepest FSDP prefetch the grid's survivors try (prefetch.h; 1 to
  // kPrefetchDepths): 1 keeps every configuration at the runtimes' default.
  int max_prefetch = 4;
  bool alpa = true;
  // Non-empty: price XLA's programs instead of compiling (--compiler xla):
  // each candidate whose dump <hlo_dir>/<Combo::Id()>.hlo exists is imported
  // (compile/xla) and priced with a placement search; candidates without a
  // dump are skipped, pruning and the Alpa baseline are not run.
  std::string hlo_dir;
  std::optional<TrainPlanOptions> train;  // set: plan a training step
  // Inference: also plan the encoders and the VAE (search/stages.h), so that
  // video_latency_s is end to end; false prices the denoising steps only.
  bool stages = true;
  // Called with one line per stage (the CLI prints them on stderr).
  std::function<void(const std::string&)> progress;
};

// The stack a plan is priced with, and why. `pinned` (--stack) is taken as
// it is, or refused when the chip has no sourced figure for it, or for a
// training step with another library than the chip's reference (the sourced
// ratios are forward-pass figures). Unset: TPUs run jax-flash (MaxDiffusion's
// kernel); GPUs the model's deployed library (workload.h: DeployedAttention),
// its Hopper one on Hopper chips, falling back to fa2 with the reason when the
// chip has no figure for it (or the plan is a training step).
struct StackChoice {
  price::SoftwareStack stack;
  std::string reason;
};
StatusOr<StackChoice> ChooseStack(const workload::Workload& config, const hw::ChipSpec& chip, bool train,
                                  const std::optional<price::SoftwareStack>& pinned);

StatusOr<Plan> MakePlan(const workload::Workload& config, const hw::Topology& topology, const PlanOptions& options);

// The longer placement search's moves per restart: 1,000 per chip, at least
// 8,000 and at most 16,000, up to 64 chips; beyond, 16,000 x 64 / chips, at
// least 4,000, so that the annealing's work (moves x the groups over every
// chip each move re-prices) stays at 64 chips'. Bounded because annealing
// rarely beats the structured candidates: on the bench rows and Wan 2.1 /
// HunyuanVideo on v5e:4x8 and 8x8 it improved once in 48 plans, by 0.005%
// of the step, and on v5e:8x8 and 16x16 64,000 moves x 3 found nothing the
// structured candidates had not (docs/architecture.md, Placement search
// budget); planner_test.cc checks that the bounded search picks what the
// unbounded one picks on 8, 16 and 64 chips.
int64_t LongerSearchMoves(int chips);
// The fewest survivors the grid compiles in full whatever the spread (the
// pick was stage 1's first, second or third in every measured plan).
inline constexpr int kMinSurvivors = 2;

// The quick placement search of every survivor prices at most this many
// structured candidates (place::PlaceOptions::max_structured): all of them up
// to 256 chips on the bench's meshes (v5e:16x16 with four mesh axes has
// 3,036), an even sample of the ~17,000 of a 1,024-chip v5p slice.
inline constexpr int kQuickStructured = 4000;

// The step's lower bound on these chips: max(FLOPs per step / (chips x peak),
// bytes every step must move through HBM / (chips x HBM bandwidth)), the
// bytes being every weight read once per forward.
double RooflineBound(const workload::Workload& config, const hw::Topology& topology);
// Of a training step: max(its FLOPs / (chips x peak), the bytes it must move
// through HBM / (chips x HBM bandwidth)), the bytes being the weights read by
// the forward and the backward, the gradients written and read once, and the
// optimizer's master weights and moments read and written once.
double TrainRooflineBound(const workload::Workload& config, const hw::Topology& topology, const TrainPlanOptions& train);

}  // namespace az::search
