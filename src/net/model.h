// The collective cost model: a collective's time on a topology under a placement.
//
// Logical groups are mapped through the placement to chips. Each group gets the
// algorithm its hardware and library would run, expressed as *phases* of
// point-to-point transfers; every transfer is routed (hw::Topology::Route) and
// its bytes are charged to each directed channel on its route. All groups of
// the collective share one load table, so groups whose routes share a link
// share its bandwidth (contention). A phase lasts
//   steps * (step latency + the longest route's latency)
//   + max over channels (load / (bandwidth * link efficiency)) / algorithm efficiency,
// phases add, and the algorithm's base latency is paid once (calibration.h).
//
// Algorithms:
//   TPU tori, all-gather / reduce-scatter / all-reduce:
//     a group that is a full sub-grid (a product of coordinate sets along axes)
//     runs per-axis rings: one lane per axis of size > 1, lane j visiting the
//     axes in rotated order with 1/k of the data (so k axes share the work, the
//     scaling book's V / (k W) form). Along an axis the ring is bidirectional;
//     its edges are 1 hop when the group covers a wrapped axis, otherwise the
//     ring closes back through the line ("no wraparound roughly doubles").
//     Other groups run a bidirectional ring over a Hamiltonian cycle of the
//     group's chips when one exists, else over the group order (routed).
//     All-reduce = reduce-scatter then all-gather.
//   GPU nodes (switch fabric): NCCL-style rings in group order with the LL or
//     Simple protocol, and NVLS all-reduce on Hopper/Blackwell NVSwitch; the
//     cheapest wins (as NCCL's tuner picks). Groups spanning nodes with the
//     same number of members on each node (model_multinode.cc): rings over
//     the rails (one channel per member of a node, channel c crossing between
//     nodes on rail c, PXN routes), NCCL's double binary trees over the
//     nodes with a chain inside each node (all-reduce), NVLS trees (NVLink
//     SHARP inside the node, trees over the rails; all-reduce on Hopper and
//     later), and hierarchical (intra-node reduce-scatter, per-rail
//     inter-node, intra-node all-gather, in sequence); the cheapest wins. The
//     pipelined forms (trees, NVLS trees) are one phase: every link carries
//     its bytes at once. Other groups spanning nodes: rings in group order.
//   TPU multi-slice systems (model_multislice.cc): groups spanning slices run
//     hierarchically (ICI inside each slice, DCN between counterparts) or as a
//     ring over the slices, the cheapest winning; groups inside one slice as
//     above.
//   all-to-all: every member sends bytes/n to every other member at once.
//   collective-permute: each pair routed. broadcast: the root's data crosses
//   each channel of the union of its routes once (pipelined).
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "hw/topology.h"
#include "net/calibration.h"
#include "net/collective.h"
#include "support/sequence_memo.h"

namespace az::net {

struct CollectiveResult {
  Seconds time;
  std::string algorithm;  // "bidirectional ring over axis 1 (wraparound)", "nvls", ...
  int steps = 0;
  Seconds latency_time;    // base + per-step latencies
  Seconds bandwidth_time;  // the sum of the phases' bottleneck terms
  double max_channel_bytes = 0;  // over all phases
  int bottleneck_channel = -1;   // of the slowest phase
  // With explain: (channel, bytes) of every loaded channel summed over phases,
  // in channel order, and notes on why the algorithm was picked.
  std::vector<std::pair<int, double>> channel_bytes;
  std::vector<std::string> notes;
};

class CollectiveModel {
 public:
  CollectiveModel(const hw::Topology& topology, Calibration calibration);

  // Validates the collective against the placement, then prices it.
  StatusOr<CollectiveResult> Price(const Collective& collective, const Placement& placement, bool explain = false);
  // Every algorithm the hardware could run for this collective, each priced
  // (what calibration fits against; Price picks the cheapest).
  StatusOr<std::vector<CollectiveResult>> PriceCandidates(const Collective& collective, const Placement& placement);
  // The hot path of placement search: time only, no validation (the caller
  // validated once), memoized by (kind, bytes, physical groups) in a
  // canonical form: group order never matters, nor member order inside an
  // all-to-all's groups, nor the order of a permute's pairs.
  Seconds Time(const Collective& collective, const Placement& placement);

  const hw::Topology& topology() const { return topology_; }
  const Calibration& calibration() const { return calibration_; }
  size_t cache_size() const { return cache_.size(); }
  static constexpr size_t kMaxCacheEntries = size_t{1} << 20;
  static constexpr size_t kMaxCacheKeyValues = size_t{1} << 24;
  static constexpr size_t kMaxGroupCharges = size_t{1} << 22;  // 64 MiB of (channel, bytes)

 private:
  struct Transfer {
    int src, dst;
    double bytes;
    int group = -1;        // which group moves it (multicast phases charge a channel once per group)
    bool closure = false;  // a ring's closing edge (its latency is not a step's)
  };
  struct Phase {
    std::vector<Transfer> transfers;
    int steps = 0;
    bool multicast = false;
    // When >= 0, the route latency of the whole phase (seconds), computed by
    // the planner along the path a chunk takes (multi-node algorithms: a ring
    // pays each edge it walks once, a tree its depth), replacing
    // steps * the longest route.
    double path_latency = -1;
  };
  struct Plan {
    std::string algorithm;
    std::vector<Phase> phases;
    std::vector<std::string> notes;
  };

  // One group's share of a plan whose groups are planned independently and
  // merged phase by phase (torus rings, all-to-all, broadcast): its transfers
  // routed once, so the hot path (Time) re-plans only the groups a placement
  // move changed. Exactly the arithmetic of Evaluate over the merged plan:
  // each channel's load adds up in group order, then transfer order.
  struct GroupPhase {
    int steps = 0;
    double route_latency = 0;    // the longest route of a transfer that is not a ring's closing edge
    double closure_latency = 0;  // the longest closing edge
    size_t begin = 0, end = 0;   // its (channel, bytes) charges in group_charges_, in transfer order
  };
  struct GroupShare {
    int name = -1;  // into algorithm_names_; -1: the group plans nothing (one chip)
    size_t begin = 0, end = 0;  // its phases in group_phases_
  };

  CollectiveResult Evaluate(const Plan& plan, bool explain);
  // True when BuildPlans would plan each group on its own and merge (one
  // plan), for the groups in physical_ (spans_slices_ says of them).
  bool PlannedPerGroup(const Collective& c) const;
  // Time over physical_ (sorted groups) from the per-group memo.
  double PerGroupTime(const Collective& c);
  // The memoized share of one group (an index into shares_).
  int Share(const Collective& c, const std::vector<int>& group);
  int NameIndex(const std::string& name);
  // True when the chips are every combination of their coordinates per axis
  // (PlanTorusGroup's per-axis rings; torus only).
  bool FullSubGrid(const std::vector<int>& chips);
  // Time's collective-permute: Price without the validation.
  double PermuteTime(const Collective& c, const Placement& placement);
  // The per-group forms BuildPlans merges (group id `group` marks the transfers).
  void AllToAllGroup(double bytes, int group, const std::vector<int>& chips, Phase& phase) const;
  void BroadcastGroup(double bytes, int root, int group, const std::vector<int>& chips, Phase& phase) const;
  // A transfer's route (nullptr-free): the cached one or, on a large system,
  // one computed into `storage`; false when the chips cannot reach each other.
  bool RouteOf(int src, int dst, std::vector<int>& storage, std::span<const int>* route) const;
  // `explain`: the plans carry their notes (Evaluate reads them only when
  // explaining; building them costs allocations on the search's hot path).
  std::vector<Plan> BuildPlans(const Collective& c, const std::vector<std::vector<int>>& groups, bool explain);
  StatusOr<std::vector<std::vector<int>>> PhysicalGroups(const Collective& c, const Placement& placement) const;
  CollectiveResult PriceGroups(const Collective& c, const std::vector<std::vector<int>>& groups, bool explain);
  void PlanTorusGroup(CollectiveKind kind, double bytes, int group, const std::vector<int>& chips, Plan& plan,
                      bool notes);
  // Chips a and b compared by their coordinates other than `axis`,
  // lexicographically (-1, 0, 1): PlanTorusGroup's line order.
  int CompareOffAxis(int a, int b, int axis) const;
  void AddRing(const std::vector<int>& cycle, double chunk, bool bidirectional, int group, Phase& phase) const;
  bool HamiltonianCycle(const std::vector<int>& chips, std::vector<int>* cycle) const;
  bool SameNode(const std::vector<int>& chips) const;
  // Groups spanning TPU slices (model_multislice.cc): the hierarchical ICI +
  // DCN form and a ring over the slices; empty when no group spans slices.
  std::vector<Plan> MultiSlicePlans(const Collective& c, const std::vector<std::vector<int>>& groups, bool explain);
  // Multi-node GPU candidates (model_multinode.cc).
  void AddMultiNodePlans(const Collective& c, const std::vector<std::vector<int>>& groups,
                         std::vector<Plan>& candidates) const;
  double RouteLatency(int src, int dst) const;

  const hw::Topology& topology_;
  Calibration calibration_;
  // Workspace reused across evaluations.
  std::vector<double> load_;
  std::vector<int> touched_;
  std::vector<int> multicast_mark_;  // per channel: the last group charged
  std::vector<std::vector<int>> physical_;
  std::vector<std::pair<int, int>> pairs_;
  std::vector<int64_t> key_;
  SequenceMemo cache_;  // (kind, bytes, root, physical groups) -> seconds
  // Per channel: bandwidth x the link class's efficiency (bytes/s).
  std::vector<double> rate_;
  // The per-group memo: (kind, bytes, root, chips in group order) -> share.
  BasicSequenceMemo<int> share_index_;
  std::vector<GroupShare> shares_;
  std::vector<GroupPhase> group_phases_;
  std::vector<std::pair<int, double>> group_charges_;
  std::vector<std::string> algorithm_names_;
  std::vector<AlgorithmParams> algorithm_params_;  // per name, from the calibration
  std::vector<int64_t> group_key_;
  std::vector<int64_t> charge_mark_;  // per channel: a multicast group's last charge
  int64_t charge_stamp_ = 0;
  std::vector<int> route_storage_;
  std::vector<int> line_order_, line_cycle_;  // PlanTorusGroup's lines
  std::vector<std::vector<int>> torus_values_;  // PlanTorusGroup's coordinate sets per axis
  std::vector<int> group_shares_;  // PerGroupTime's shares, in group order
  std::vector<std::vector<int64_t>> coordinate_seen_;  // FullSubGrid: per axis, per coordinate, the last stamp
  int64_t coordinate_stamp_ = 0;
  bool spans_slices_ = false;  // Time: a group of physical_ spans TPU slices
};

}  // namespace az::net
