// Internal to search/stages.cc: the candidates of one stage and their seeds
// (stages.h states the contract; this header exposes the pieces to tests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pir/ir/graph.h"
#include "shard/propagation.h"

namespace az::search {

enum class StageStrategy { kSingle, kFsdp, kTp, kSpatial, kTiles };

struct StageCandidate {
  StageStrategy strategy = StageStrategy::kSingle;
  int64_t group = 1;     // devices of the group program
  int64_t replicas = 1;  // independent copies (dp)
  // spatial: the video dim split, 3 (height) or 4 (width); -1 when no dim
  // splits evenly (SpatialSplitDim's error is the candidate's).
  int spatial_dim = -1;
  std::string Name() const;      // "single device", "dp=2", "fsdp=4,dp=2", "tp=8", "spatial=4", "tiles=8"
  std::string AxisName() const;  // the group's mesh axis: "device", "fsdp", "tp", "height", "width", "tiles"
};

// Every candidate for `chips` chips and `invocations` per video, in the order
// stages.h gives: single device, then per G (ascending) fsdp=G, with
// `tensor_parallel` tp=G, with `spatial` spatial=G (spatial_dim unset), with
// `tiles` tiles=G; each with every R | invocations, R x G <= chips (ascending).
std::vector<StageCandidate> EnumerateStageCandidates(int64_t chips, int64_t invocations, bool tensor_parallel,
                                                     bool spatial = false, bool tiles = false);

// fsdp over mesh axis `axis` (of size n): stages.h's rule. Error: no
// parameter of rank >= 2.
StatusOr<shard::Seeds> StageFsdpSeeds(const pir::Graph& graph, int axis, int64_t n);

// The column linears tp splits (stages.h), in op order.
std::vector<pir::OpId> ColumnLinears(const pir::Graph& graph);

// tp over mesh axis `axis` (of size n): the output factor of every column
// linear. Errors: no column linear; n not dividing a column linear's output
// features or an attention's heads.
StatusOr<shard::Seeds> StageTpSeeds(const pir::Graph& graph, int axis, int64_t n);

// The dim a spatial=n split of a VAE cuts (stages.h): the height (3) when n
// divides the smallest height of the graph's video input and output (the
// latent's: every other level is a multiple of it), else the width (4) when n
// divides the smallest width. Errors: the graph's input is not a [B, C, T, H,
// W] video; n divides neither.
StatusOr<int> SpatialSplitDim(const pir::Graph& graph, int64_t n);

// spatial over mesh axis `axis` on `dim`: the graph's input and its (first)
// output split on the dim; propagation carries the split through every op
// it can pass (halo factors across convolutions and pads,
// compile/spmd/halo.h), from both ends. Error: dim out of range.
StatusOr<shard::Seeds> StageSpatialSeeds(const pir::Graph& graph, int axis, int dim);

// A propagated spatial plan the built-in compiler partitions right: no op
// reads the split through a permutation factor of an operand (a slice or
// concat of a split dim, as HunyuanVideo's tiled decoder cuts its latent into
// tiles), which the compiler would lower as a local op on each block.
Status CheckSpatialPlan(const pir::Graph& graph, const shard::ShardingPlan& plan);

}  // namespace az::search
