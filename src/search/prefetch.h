// FSDP prefetch depth, chosen per candidate as data (like a training step's
// remat, prune.h): the grid's survivors with FSDP are compiled again under
// prefetch depths 2 to kPrefetchDepths (compile/spmd/schedule.h: the weight
// gathers of the next d - 1 layers start with the current layer's) and
// priced under the placement the survivor's own ranking found; a depth
// replaces depth 1 when its peak fits the chip's HBM and its step is
// strictly faster, the fastest such depth winning and ties going to the
// smaller one (the depth that holds fewer gathered weights). Deeper
// prefetch only moves weight gathers earlier, so the choice needs no
// pruning pass of its own: it refines what pruning already ranked, at a
// few full compiles per FSDP survivor.
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

// Fills ctx.prefetched (depths 2 to min(kPrefetchDepths,
// ctx.options.max_prefetch)): for each of the first `grid_survivors` entries of
// ctx.ranked (the grid's own proposals) with fsdp, a depth-1 evaluation that
// succeeded and no pinned depth, the winning deeper evaluation when one
// beats it. Deterministic: jobs run in parallel, results are reduced in
// survivor and depth order.
void ChoosePrefetch(SearchContext& ctx, size_t grid_survivors);

}  // namespace az::search
