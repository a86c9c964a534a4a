// The collective vocabulary shared by compiled programs (CIR) and the network
// model: kinds, replica groups in logical device ids, permute pairs.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/status.h"

namespace az::cir {

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
// The iota form when the groups have one ("[2,4]<=[4,2]T(1,0)"), else "". It
// has the fewest dims (dims contiguous in the iota are merged), so it is
// unique: "[2,4]<=[8]", never "[2,4]<=[2,4]". Linear in the ids.
std::string FormatIotaReplicaGroups(const ReplicaGroups& groups);

// Source -> target pairs of a collective-permute, "0->1,1->2" or "{{0,1},{1,2}}".
StatusOr<std::vector<std::pair<int, int>>> ParsePermutePairs(std::string_view text, int num_devices);

}  // namespace az::cir
