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

#include "cir/collective.h"
#include "support/status.h"
#include "support/units.h"

namespace az::net {

using cir::CollectiveKind;
using cir::CollectiveKindName;
using cir::FormatIotaReplicaGroups;
using cir::FormatReplicaGroups;
using cir::ParseCollectiveKind;
using cir::ParsePermutePairs;
using cir::ParseReplicaGroups;
using cir::ReplicaGroups;

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
