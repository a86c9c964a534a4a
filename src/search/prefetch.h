// FSDP prefetch depth, chosen per candidate as data (like a training step's
// remat, prune.h): after ranking, each of the grid's survivors with FSDP is
// compiled again under deeper prefetch (compile/spmd/schedule.h: the weight
// gathers of the next d - 1 layers start with the current layer's) and
// priced under the placement its own ranking found. Depths are climbed 2,
// 3, ... up to kPrefetchDepths: a depth is kept when its peak fits the
// chip's HBM and its step is faster than the shallower one's by more than
// rounding, and the first depth that is not ends the climb (a deeper one
// holds more gathered weights, so once one does not fit none deeper does;
// past the fastest depth the extra gathers queued ahead of a layer's own
// collectives cost more than they hide). A survivor whose kernels or
// collectives alone take longer than the grid's fastest depth-1 step is not
// compiled again: no depth can make it the pick. Deeper prefetch only moves weight gathers
// earlier, so the choice needs no pruning pass of its own.
//
// The expert's and the deployed configurations keep depth 1: xDiT, the Wan
// repository and MaxDiffusion run their runtimes' default prefetch (FSDP2's
// implicit one-layer-ahead gather; XLA's latency-hiding scheduler with one
// all-gather in flight), which is the overlap AoiZora adds on top of them.
// A pinned --template that names prefetch keeps it: the shared ranking (and
// so the baselines) prices the combination at depth 1, the grid at the
// pinned depth alone (SearchContext::pinned_prefetch).
#pragma once

#include "search/sources.h"

namespace az::search {

// The depths the planner tries: 1 to 4 (FSDP2's examples prefetch one or two
// layers ahead; each layer ahead holds one more layer of gathered weights).
inline constexpr int kPrefetchDepths = 4;

// A deeper prefetch is kept only when it is faster by more than this
// fraction (its own depth 1 in ChoosePrefetch, the grid's depth-1 pick in the
// grid's choice): a gain below it is the rounding of two sums of the same
// compute, not a step saved, and the depth costs memory.
inline constexpr double kPrefetchMinGain = 1e-9;

// Fills ctx.prefetched (depths up to min(kPrefetchDepths,
// ctx.options.max_prefetch)): for each entry `grid_ranked` names in
// ctx.ranked (the grid's own proposals and its Ulysses head-chunk variants)
// with fsdp, a depth-1 evaluation that succeeded and fits, the deepest
// improving depth's evaluation when depth 2 improves on it; with a pinned
// depth above 1, that depth's for each.
// Deterministic: each depth's compiles run in parallel, kept in survivor
// order.
void ChoosePrefetch(SearchContext& ctx, const std::vector<size_t>& grid_ranked);

}  // namespace az::search
