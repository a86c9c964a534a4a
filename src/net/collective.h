// Collectives as the network model sees them: a kind, a size, and replica groups
// in *logical* device ids (partition ids: the row-major position in the mesh).
//
// Sizes follow the per-device buffers of XLA and nccl-tests:
//   all-reduce       bytes = the array each device holds (and reduces)
//   all-gather       bytes = the gathered array each device ends with (V)
//   reduce-scatter   bytes = the unreduced array each device starts with (V)
//   all-to-all       bytes = the buffer each device sends (its 1/n to each peer)
//   collective-permute bytes = the buffer each source sends to its target
//   broadcast        bytes = the array the root sends
// All groups of one collective run at the same time (they share links).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/status.h"
#include "support/units.h"

namespace az::net {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kCollectivePermute, kBroadcast };
std::string_view CollectiveKindName(CollectiveKind kind);  // XLA spelling: "all-reduce", ...
StatusOr<CollectiveKind> ParseCollectiveKind(std::string_view name);

// Disjoint groups of logical device ids.
struct ReplicaGroups {
  std::vector<std::vector<int>> groups;
  bool operator==(const ReplicaGroups&) const = default;
};

// Parses explicit groups "{{0,1},{2,3}}" (also "0,1;2,3") or XLA's iota form
// "[G,S]<=[d0,d1,...]T(p0,p1,...)": iota(prod d) reshaped to d, transposed by
// p, flattened and cut into G groups of S. Checks every id is in
// [0, num_devices), that no id repeats, and (unless allow_partial) that the
// groups cover all devices.
StatusOr<ReplicaGroups> ParseReplicaGroups(std::string_view text, int num_devices, bool allow_partial = false);
// Explicit form "{{0,1},{2,3}}".
std::string FormatReplicaGroups(const ReplicaGroups& groups);
// The iota form when the groups have one ("[2,4]<=[4,2]T(1,0)"), else "".
std::string FormatIotaReplicaGroups(const ReplicaGroups& groups);

// Source -> target pairs of a collective-permute, "0->1,1->2" or "{{0,1},{1,2}}".
StatusOr<std::vector<std::pair<int, int>>> ParsePermutePairs(std::string_view text, int num_devices);

struct Collective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Bytes bytes;
  ReplicaGroups groups;                     // all kinds but permute
  std::vector<std::pair<int, int>> pairs;  // collective-permute
  int root = 0;                             // broadcast: position in each group
};

// A placement: logical id -> physical chip id. Valid when every logical id has a
// distinct chip of the topology.
using Placement = std::vector<int>;
Status ValidatePlacement(const Placement& placement, int num_chips);
// "3,1,0,2" -> {3,1,0,2}.
StatusOr<Placement> ParsePlacement(std::string_view text, int num_chips);
Placement IdentityPlacement(int n);

}  // namespace az::net
