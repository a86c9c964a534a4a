// Internal to search/stages.cc: the candidates of one stage and their seeds
// (stages.h states the contract; this header exposes the pieces to tests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pir/ir/graph.h"
#include "shard/propagation.h"

namespace az::search {

enum class StageStrategy { kSingle, kFsdp, kTp };

struct StageCandidate {
  StageStrategy strategy = StageStrategy::kSingle;
  int64_t group = 1;     // devices of the group program
  int64_t replicas = 1;  // independent copies (dp)
  std::string Name() const;                // "single device", "dp=2", "fsdp=4,dp=2", "tp=8"
  std::string AxisName() const;            // the group's mesh axis: "device", "fsdp", "tp"
};

// Every candidate for `chips` chips and `invocations` per video, in the order
// stages.h gives: single device, then per G (ascending) fsdp=G and, with
// `tensor_parallel`, tp=G; each with every R | invocations, R x G <= chips
// (ascending).
std::vector<StageCandidate> EnumerateStageCandidates(int64_t chips, int64_t invocations, bool tensor_parallel);

// fsdp over mesh axis `axis` (of size n): stages.h's rule. Error: no
// parameter of rank >= 2.
StatusOr<shard::Seeds> StageFsdpSeeds(const pir::Graph& graph, int axis, int64_t n);

// The column linears tp splits (stages.h), in op order.
std::vector<pir::OpId> ColumnLinears(const pir::Graph& graph);

// tp over mesh axis `axis` (of size n): the output factor of every column
// linear. Errors: no column linear; n not dividing a column linear's output
// features or an attention's heads.
StatusOr<shard::Seeds> StageTpSeeds(const pir::Graph& graph, int axis, int64_t n);

}  // namespace az::search
