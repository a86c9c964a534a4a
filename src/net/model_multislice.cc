// Multi-slice TPU collectives: what XLA runs when a group spans slices joined
// by the data-center network (hw/topology.h: "CHIP:SHAPE*N").
//
// Inside a slice chips talk over ICI; between slices a transfer goes chip ->
// host (PCIe) -> DCN -> host -> chip, and the chips of a host share its NIC
// (the routed loads charge the host's kDcn link once per transfer through it).
// A group spanning S slices qualifies for the hierarchical form when every
// slice it touches holds the same number m of its members (n = m S); the
// members keep the group's order within a slice, and the j-th member of each
// slice are "counterparts". With V the collective's bytes (the full array):
//
//   hierarchical  (XLA's multi-slice decomposition: ICI first, DCN on the
//       smallest shard, ICI last)
//       all-reduce:     reduce-scatter over each slice's members (the torus
//                       algorithm of model.cc, V -> V/m per member), then an
//                       all-reduce of V/m among each set of counterparts over
//                       DCN (a ring of S: reduce-scatter and all-gather phases
//                       of S-1 steps, each member moving (S-1)/S of V/m per
//                       phase), then an all-gather over each slice.
//       all-gather:     all-gather of V/n per member among counterparts over
//                       DCN (one ring phase of S-1 steps), then the slice's
//                       all-gather of V (each member holding V/m).
//       reduce-scatter: the slice's reduce-scatter of V, then a reduce-scatter
//                       of V/m among counterparts over DCN.
//   ring over slices  every group: a ring in group order sorted by slice (it
//       crosses DCN once per slice boundary), each edge carrying (n-1)/n V;
//       all-reduce is its reduce-scatter then its all-gather phase. The
//       fallback for groups the hierarchical form does not fit, and a
//       candidate beside it: the cheapest wins.
//   all-to-all, permute and broadcast need nothing here: model.cc routes
//   their transfers, and routes between slices cross DCN.
//
// Groups inside one slice price exactly as on that slice alone: MultiSlicePlans
// returns nothing unless some group spans slices, and model.cc's torus
// algorithms run unchanged.
#include <algorithm>
#include <iterator>
#include <map>

#include "net/model.h"

namespace az::net {

namespace {

// A group's members by slice, in group order; slices ascending.
std::map<int, std::vector<int>> BySlice(const hw::Topology& t, const std::vector<int>& group) {
  std::map<int, std::vector<int>> parts;
  for (int chip : group) parts[t.SliceOf(chip)].push_back(chip);
  return parts;
}

}  // namespace

std::vector<CollectiveModel::Plan> CollectiveModel::MultiSlicePlans(const Collective& c,
                                                                    const std::vector<std::vector<int>>& groups,
                                                                    bool explain) {
  bool spans = false, hierarchical = true;
  for (const std::vector<int>& g : groups) {
    std::map<int, std::vector<int>> parts = BySlice(topology_, g);
    if (parts.size() < 2) continue;
    spans = true;
    for (const auto& [slice, members] : parts) hierarchical = hierarchical && members.size() == parts.begin()->second.size();
  }
  if (!spans) return {};
  const double bytes = static_cast<double>(c.bytes.value());
  const bool reduce = c.kind == CollectiveKind::kReduceScatter || c.kind == CollectiveKind::kAllReduce;
  const bool gather = c.kind == CollectiveKind::kAllGather || c.kind == CollectiveKind::kAllReduce;
  std::vector<Plan> plans;

  if (hierarchical) {
    // Three stages, each a list of phases; groups run concurrently in each.
    Plan ici_reduce, ici_gather;
    Phase dcn_reduce, dcn_gather;
    int slices_spanned = 0;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const int group = static_cast<int>(gi);
      std::map<int, std::vector<int>> parts = BySlice(topology_, groups[gi]);
      if (parts.size() < 2) {
        // A group inside one slice: its whole collective alongside the ICI stage.
        PlanTorusGroup(c.kind, bytes, group, groups[gi], reduce ? ici_reduce : ici_gather, explain);
        continue;
      }
      const size_t per_slice = parts.begin()->second.size(), slices = parts.size();
      slices_spanned = std::max(slices_spanned, static_cast<int>(slices));
      const double shard = bytes / static_cast<double>(per_slice);  // what a member holds after the slice's reduce-scatter
      for (const auto& [slice, members] : parts) {
        if (reduce) PlanTorusGroup(CollectiveKind::kReduceScatter, bytes, group, members, ici_reduce, explain);
        if (gather) PlanTorusGroup(CollectiveKind::kAllGather, bytes, group, members, ici_gather, explain);
      }
      for (size_t j = 0; j < per_slice; ++j) {
        std::vector<int> counterparts;
        for (const auto& [slice, members] : parts) counterparts.push_back(members[j]);
        // Ring of S over DCN: each member contributes shard / S.
        AddRing(counterparts, shard / static_cast<double>(slices), /*bidirectional=*/false, group, dcn_reduce);
      }
      dcn_reduce.steps = std::max(dcn_reduce.steps, static_cast<int>(slices) - 1);
    }
    if (gather) dcn_gather = reduce ? dcn_reduce : std::move(dcn_reduce);
    Plan plan;
    plan.algorithm = "hierarchical: ici + dcn ring";
    if (reduce) {
      plan.phases.insert(plan.phases.end(), std::make_move_iterator(ici_reduce.phases.begin()),
                         std::make_move_iterator(ici_reduce.phases.end()));
      plan.phases.push_back(std::move(dcn_reduce));
    }
    if (gather) {
      plan.phases.push_back(std::move(dcn_gather));
      plan.phases.insert(plan.phases.end(), std::make_move_iterator(ici_gather.phases.begin()),
                         std::make_move_iterator(ici_gather.phases.end()));
    }
    if (explain) {
      plan.notes.push_back("group spans " + std::to_string(slices_spanned) +
                           " slices: ICI inside each slice, counterparts exchange the smallest shard over DCN");
      if (!ici_reduce.algorithm.empty() || !ici_gather.algorithm.empty()) {
        plan.notes.push_back("inside each slice: " + (reduce ? ici_reduce.algorithm : ici_gather.algorithm));
      }
    }
    plans.push_back(std::move(plan));
  }

  // A ring in group order sorted by slice: S crossings of DCN per ring.
  Plan ring;
  ring.algorithm = "ring over slices (ici + dcn)";
  Phase phase;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    std::vector<int> cycle;
    for (const auto& [slice, members] : BySlice(topology_, groups[gi])) cycle.insert(cycle.end(), members.begin(), members.end());
    AddRing(cycle, bytes / static_cast<double>(cycle.size()), /*bidirectional=*/false, static_cast<int>(gi), phase);
    phase.steps = std::max(phase.steps, static_cast<int>(cycle.size()) - 1);
  }
  if (reduce) ring.phases.push_back(gather ? phase : std::move(phase));
  if (gather) ring.phases.push_back(std::move(phase));
  plans.push_back(std::move(ring));
  return plans;
}

}  // namespace az::net
