// Per-part hybrid strategies in the grid (issue 26, item 2): a sequence-
// parallel combination whose axis runs Megatron TP inside some parts of every
// block (shard/templates.h: "ring=r,tp=r@cross_attn+ffn"). The parts gather
// the stream's sequence split at their entry and reduce-scatter their
// row-parallel output back to it (Megatron's sequence parallelism), so a part
// trades its weights' FSDP all-gather (or their memory) for two activation
// collectives; the rest of the block keeps the sequence strategy (Ulysses'
// all-to-alls, the ring's K/V rotation, context's K/V gather). The built-in
// compiler inserts the transitions and the simulator prices them like any
// other collective: the grid's pruning and ranking decide whether a hybrid
// beats the whole-model strategies, per model, resolution and slice.
//
// Which hybrids: for every inference combination of the grid with a sequence
// degree and no tp degree of its own, tp on its minor sequence axis (ulysses
// under usp, else ring or context) in each of the part sets
//   {ffn}                        the FFN's weights split instead of gathered
//   {cross_attn}                 the cross-attention's (its K/V projections
//                                of the text too)
//   {cross_attn, ffn}            both: sequence parallel self-attention only
//   {cross_attn, ffn, self_attn} the whole block (Megatron TP with sequence
//                                parallelism: only the norms, modulation and
//                                residuals stay split by the sequence)
// that the model's blocks have (Wan 2.1 / 2.2 name them so: BlockParts of its
// graph; other families name their parts differently and get none), the
// parts with attention only where the axis divides its heads. Bounded: at most
// four per sequence-parallel combination.
//
// Training steps (issue 26, item 5: sequence parallel x ZeRO-3 hybrids with
// per-part choices): the parts' backward runs Megatron too (templates.h), so
// the same part sets apply to a training combination, ZeRO-3 storing the
// parts' weights tp-major. The training grid adds them for its
// kTrainHybridBases fastest sequence-parallel combinations after pruning,
// each under its base's remat (prune.cc: ScoreTrainHybrids), not for every
// one: a training combination's pruning tries up to four remat policies, and
// the hybrids of every sequence-parallel base would more than double it.
#pragma once

#include <vector>

#include "search/combos.h"
#include "workload/workload.h"

namespace az::search {

// The part sets above, in that order.
std::vector<std::vector<std::string>> HybridPartSets();

// The training grid's bases (above).
inline constexpr size_t kTrainHybridBases = 2;

// The hybrids of `grid` (its combinations; a training one keeps its remat)
// for a model with `heads` attention heads whose blocks have `parts`
// (shard::BlockParts), in grid order, each base's part sets in
// HybridPartSets' order.
std::vector<Combo> HybridCombos(const std::vector<Combo>& grid, int64_t heads, const std::vector<std::string>& parts);

// The same for a workload: its blocks' parts read from a one-block forward.
// None for imported programs.
StatusOr<std::vector<Combo>> HybridCombosFor(const workload::Workload& config, const std::vector<Combo>& grid,
                                             int64_t heads);

}  // namespace az::search
