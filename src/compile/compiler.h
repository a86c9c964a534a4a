// The compiler interface: a PIR graph plus a sharding plan in, the per-device
// program (CIR) with its real collectives out. The built-in SPMD partitioner
// (spmd/) implements it; an importer of XLA's compiled HLO implements the same
// contract for programs XLA partitioned, so search, pricing and placement treat
// both sources alike.
#pragma once

#include <string>

#include "cir/program.h"
#include "pir/ir/graph.h"
#include "shard/sharding.h"
#include "support/status.h"

namespace az::compile {

// The deepest FSDP prefetch a user may ask for (CompileOptions::prefetch_depth;
// the planner tries 1 to 4): each layer ahead holds its gathered weights.
inline constexpr int kMaxPrefetchDepth = 8;

struct CompileOptions {
  bool fuse_elementwise = true;  // fold element-wise chains into their producers
  bool async_collectives = true;  // -start/-done pairs overlapping independent compute
  // Adjacent small collectives of one kind and group are combined up to this
  // size (a knob, like XLA's combiner thresholds); 0 turns combining off.
  Bytes combine_threshold = MiB(4);
  // A training step's gradient reductions are bucketed up to this size
  // (spmd/schedule.h OverlapGradientReductions); 0: one per gradient. 25 MiB
  // is PyTorch DDP's bucket_cap_mb default (XLA GPU's all-reduce combiner
  // defaults to 30 MiB): large enough that a bucket's latency term is small
  // next to its transfer, small enough that the first bucket is ready early
  // in the backward and the last one exposes little of the reduction.
  Bytes gradient_bucket = MiB(25);
  // MaxDiffusion's ulysses_attention_chunks (search/combos.h
  // Combo::ulysses_chunks): the built-in compiler lowers each Ulysses
  // attention as this many head chunks (spmd/spmd_compiler.h); 1: whole.
  // Inference only: a program with a backward refuses chunks above 1.
  int64_t ulysses_chunks = 1;
  // FSDP prefetch depth (spmd/schedule.h ScheduleAsync): 1 keeps at most one
  // resharding collective in flight, weight gathers included; d > 1 lets the
  // weight gathers of the next d - 1 layers start with the current layer's.
  int prefetch_depth = 1;
  // The planner's id of the candidate being compiled (search/combos.h
  // Combo::Id). A compiler that looks up programs compiled elsewhere
  // (xla/xla_compiler.h) finds them by it; the built-in one ignores it.
  std::string candidate_id;
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual std::string name() const = 0;
  virtual StatusOr<cir::Program> Compile(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                         const CompileOptions& options) = 0;
};

}  // namespace az::compile
