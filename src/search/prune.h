// Pruning: a placement-oblivious score of every combination of the grid,
// cheap enough to run on all of them. The model truncated to 2 and 3 block
// units (Workload::depth_units) is evaluated (evaluate.h) with every collective at
// its placement-free lower bound (PlacementKind::kLowerBound), so the score
// includes the collectives the compiler inserts; score and peak memory are
// extrapolated linearly to the full depth (exact for parameters, zoo_test.cc).
// Combinations whose extrapolated peak exceeds the chip's HBM are dropped;
// the rest are ranked fastest first for the sources to propose from
// (sources.h).
#pragma once

#include <string>

#include "search/sources.h"

namespace az::search {

// A combination's stage-1 score: from the model truncated to 2 and 3 block
// units, placement-free, extrapolated to the full depth.
struct PruneScore {
  Status status = Status::Ok();
  double score = 0;        // per step, seconds
  double peak_memory = 0;  // bytes, extrapolated
  // Bytes every remat policy keeps at its peak, extrapolated: the parameters
  // and optimizer states as stored (leaves, live through the whole step).
  double state_memory = 0;
};
PruneScore ScoreCombo(const SearchContext& ctx, const Combo& combo);

// Fills ctx.feasible (fastest first), ctx.frugal_peak and ctx.first_error.
// Training: a combination without a pinned remat is scored under none, then
// selected, and keeps the first whose peak fits (recomputation only adds
// work); else it is scored under offload and full and keeps the cheaper that
// fits, or the one with the lower peak when neither does. Offload recomputes
// less than full (the attentions are kept) but pays its host transfers where
// the compute does not hide them, so neither is always faster. ctx.combos
// records the choice. When no combination fits (and none is pinned), each
// whose stored states fit tries gradient accumulation (accumulate.h: fewer
// samples per micro-step), the fits joining ctx.combos as combinations of
// their own. Fails when nothing fits (with the smallest slice that
// would) or nothing compiles.
Status Prune(SearchContext& ctx);

// The smallest slice of the same chip that would hold `peak` bytes now spread
// over `chips` chips (weights and activations assumed to shrink with 1/chips).
std::string SmallestSliceHint(const hw::Topology& topology, double peak, int64_t chips);

}  // namespace az::search
