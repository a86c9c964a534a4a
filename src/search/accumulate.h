// Gradient accumulation, chosen per candidate as data (like prefetch.h's
// depth): a training step of B samples may run as k micro-steps of B/k
// samples, summing their gradients before one AdamW update
// (workload.h: TrainOptions::accumulate). Each micro-step holds the
// activations of B/k samples, so a combination that needs recomputation at
// the whole batch (remat selected, offload or full: full reruns the forward,
// about a third of the step's FLOPs) may fit with a lighter remat at B/k;
// in exchange FSDP gathers every weight and reduces every gradient once per
// micro-step, and each micro-step's kernels are smaller. Whether that pays is
// the compiled program's price, so it is found like any other candidate:
//
//   1. For each of the grid's survivors whose remat is not none, every count
//      k > 1 dividing B whose micro-step batch B/k the data-parallel degree
//      divides, with each remat lighter than the survivor's (none, then
//      selected; offload is not combined with accumulation), is scored as
//      stage 1 scores (prune.h: the model truncated to 2 and 3 units,
//      placement-free); per k the lightest remat whose peak fits.
//   2. The variant with the best stage-1 score, when it beats the survivor's
//      own stage-1 score, is compiled in full and priced under the
//      survivor's placement (accumulation moves no collective between
//      devices), and joins the ranked list as a grid survivor, where the
//      grid's pick (and the prefetch climb) weigh it like the rest.
//
// So a plan compiles at most one full program more per survivor with remat,
// and none when every survivor runs remat none (nothing to save). The
// expert's and the deployed configurations keep k = 1: MaxDiffusion's Wan
// trainer runs one micro-step per update; a pinned --template keeps its own
// accumulate, and a pinned --remat turns step 1 off (its variants would run
// another remat).
#pragma once

#include <vector>

#include "search/sources.h"

namespace az::search {

// The accumulation variants of `combo` (a training combination of
// `micro_batch` samples) worth scoring: for each count k > 1 dividing
// micro_batch with (micro_batch / k) divisible by combo.dp, the combination
// at k under each remat lighter than its own (none, then selected), in that
// order. None when its remat is none, unset or it already accumulates.
std::vector<Combo> AccumulationVariants(const Combo& combo, int64_t micro_batch);

// The counts k > 1 a combination with `dp` data-parallel replicas may
// accumulate a step of `micro_batch` samples over: k divides micro_batch and
// dp divides the micro-step's micro_batch / k. Ascending.
std::vector<int64_t> AccumulationCounts(int64_t micro_batch, int64_t dp);

// Steps 1 and 2 above for the grid's survivors ctx.ranked[grid_ranked[i]]:
// appends each winning variant to ctx.combos, ctx.survivors and
// ctx.ranked (priced at its survivor's placement, or under `policy` without a
// placement search), and its
// index in ctx.ranked to grid_ranked. Deterministic: scored and priced in
// parallel, kept in survivor order.
void RankAccumulation(SearchContext& ctx, const PlacementPolicy& policy, std::vector<size_t>& grid_ranked);

}  // namespace az::search
