// The one evaluator. Every configuration the planner reports (its own
// search's, the baselines', the pipeline stages') is priced by the same chain:
//
//   Candidate (program, mesh, strategy)
//     -> seeds (the combination's template, or the strategy's own seeds)
//     -> propagation -> a compiler (the built-in SPMD one, or XLA's dump) -> CIR
//     -> evidence (placement-open)                                   Compile()
//     -> the simulator under a placement policy: a placement-free
//        lower bound, a given placement, the default one, or searched  Price()
//
// Sources of candidates (sources.h: the plan's grid, the xDiT grid, Alpa's
// ILP, a program's own annotations; stages.h's stage candidates) differ only
// in what they propose; none writes its own compile or pricing, so a
// configuration is priced the same whichever source found it (as XLA's
// auto-sharding checks its solvers against one evaluator). evaluate_test.cc
// checks each source's pick against Evaluate.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "evidence/evidence.h"
#include "hw/topology.h"
#include "place/search.h"
#include "price/calibration.h"
#include "price/simulator.h"
#include "search/combos.h"
#include "search/noise_experts.h"
#include "search/pipeline_schedule.h"
#include "shard/propagation.h"

namespace az::search {

// How a candidate's program is sharded: a combination in the xDiT vocabulary
// (its template seeds propagation), or explicit seeds.
struct Strategy {
  // The degrees (and a training step's remat). Its template seeds the
  // propagation unless `seeds` is set; its Id() names the XLA dump.
  Combo combo;
  // Set: these seeds instead of the template (Alpa's ILP, an imported
  // program's own shardings, a pipeline stage's split).
  std::optional<shard::Seeds> seeds;
};

// The step a program is part of: it runs `forwards` times per step, and the
// model has `noise_experts` denoising experts over `steps` steps
// (noise_experts.h). A program that is not a denoising step (a pipeline stage, a
// training step) runs once, with one expert.
struct StepShape {
  int64_t forwards = 1;
  int64_t noise_experts = 1;
  int64_t steps = 0;
  // PipeFusion (pipefusion.h): the program is one slot of this pipeline.
  PipelineShape pipeline;
};

// Seconds per step of `forward_s`, one invocation of the program: forwards x
// forward_s, or, for a pipeline's slot, the pipeline's step
// (pipeline_schedule.h). The noise experts' swap is added by the caller.
double StepLatency(const StepShape& step, double forward_s);

struct Candidate {
  std::shared_ptr<const pir::Graph> program;
  shard::Mesh mesh;
  Strategy strategy;
  StepShape step;
};

struct EvaluateOptions {
  price::PriceCalibration calibration;
  // Non-empty: compile with XLA's dump <hlo_dir>/<Combo::Id()>.hlo
  // (compile/xla) instead of the built-in SPMD compiler.
  std::string hlo_dir;
};

// A candidate compiled: its sharding and its placement-open evidence.
struct Compiled {
  Candidate candidate;
  shard::ShardingPlan sharding;  // every value's PartitionSpec, as propagated
  evidence::Evidence evidence;
  // Set for a program from elsewhere (XLA's dump) that does not look like
  // this candidate's (its FLOPs per device off the model's share by 4x).
  std::string warning;
};

StatusOr<Compiled> Compile(const Candidate& candidate, const EvaluateOptions& options);

enum class PlacementKind {
  kLowerBound,  // no placement: every collective at its placement-free lower bound (LowerBoundTime)
  kGiven,       // `given`, checked against the evidence
  kDefault,     // place::DefaultPlacementFor (JAX's create_device_mesh on TPUs, rank order on GPUs)
  kSearch,      // the default, then place::SearchPlacement; the faster wins
};

struct PlacementPolicy {
  PlacementKind kind = PlacementKind::kDefault;
  net::Placement given;        // kGiven
  place::PlaceOptions search;  // kSearch
};

// A compiled candidate priced under a policy. Latencies are per step:
// forwards per step x the program's latency (a pipeline slot's: StepLatency)
// + the noise experts' swap per step (noise_experts.h); one invocation for a
// program that is not a denoising step.
struct Evaluated {
  Status status = Status::Ok();
  Compiled compiled;
  NoiseExperts noise_experts;
  bool fits = true;     // the resident peak (noise_experts.h) within the HBM
  double forwards = 1;  // of the program per step
  double forward_s = 0;  // one invocation under the chosen placement (kLowerBound: the bound)
  double default_latency = 0;
  net::Placement default_placement;
  std::string default_method;
  double best_latency = 0;
  net::Placement best_placement;
  std::string best_method;
  bool exhaustive = false;  // the search priced every map: nothing left to search
};

// `compiled` is moved into the result (callers that keep theirs pass a copy).
Evaluated Price(Compiled compiled, const hw::Topology& topology, const price::PriceCalibration& calibration,
                const PlacementPolicy& policy);

// Compile, then Price; a failed compile is the result's status.
Evaluated Evaluate(const Candidate& candidate, const hw::Topology& topology, const EvaluateOptions& options,
                   const PlacementPolicy& policy);

// The breakdown of one invocation under `placement` (the timeline with it
// when `timeline`).
StatusOr<price::SimResult> Breakdown(const Compiled& compiled, const hw::Topology& topology,
                                     const price::PriceCalibration& calibration, const net::Placement& placement,
                                     bool timeline);

// Placement-free lower bound of a collective: its traffic through one chip at
// the chip's total link bandwidth, plus one hop per peer.
double LowerBoundTime(const net::Collective& c, const hw::Topology& topology, const net::Calibration& calibration);

}  // namespace az::search
