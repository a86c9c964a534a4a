// Resharding: the collectives that turn a tensor held in one sharding into the
// sharding a consumer needs, as GSPMD inserts them.
//
// From `from` to `to`, in this order:
//   1. partial sums: an axis pending in `from` that `to` shards some dim on is a
//      reduce-scatter along that dim; the other pending axes are then one
//      all-reduce over all of them (a gradient partial over dp and sequence
//      axes is summed by one all-reduce over both, as a framework reduces it
//      over its data-parallel group);
//   2. an axis that moves from the minor end of one dim to another dim is an
//      all-to-all (split the target dim, concatenate the source dim);
//   3. axes `to` no longer has on a dim (past the common major prefix) are one
//      all-gather over those axes;
//   4. axes `to` adds are a local dynamic slice: no communication.
// Replica groups: the devices that differ only in their coordinates on the
// collective's axes (logical ids, row-major over the mesh).
#pragma once

#include <string>
#include <vector>

#include "cir/program.h"
#include "shard/sharding.h"

namespace az::compile {

// Groups over `axes` (coordinates on them vary within a group, in the listed
// order, major to minor); groups ordered by the other coordinates.
cir::ReplicaGroups GroupsOverAxes(const shard::Mesh& mesh, const std::vector<int>& axes);

struct ReshardResult {
  int buffer = -1;
  int collectives = 0;
};

// Appends the instructions turning `buffer` (global type `type`, sharding
// `from`) into sharding `to`; returns the final buffer. Instruction names are
// `name` + ".<kind>.<n>" (`name` must be unique in the program); `origin`
// names the PIR op the data comes from.
ReshardResult EmitReshard(const shard::Mesh& mesh, const pir::TensorType& type, int buffer,
                          const shard::TensorSharding& from, const shard::TensorSharding& to, const std::string& name,
                          const std::string& origin, cir::Program& program);

}  // namespace az::compile
