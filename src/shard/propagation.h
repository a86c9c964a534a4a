// Sharding propagation: from a few seeds to a sharding of every value and op.
//
// Seeds pin the sharding of some values (e.g. "the latent's batch on x") and
// some ops' factors (e.g. "attention heads on y"). Propagation walks the graph
// forward and backward along factor rules until nothing changes: an op whose
// operands or results carry axes on a factor assigns those axes to the factor,
// and the factor's axes flow to the op's other tensors. Conflict policy (in
// this order): a seed is never overridden; per factor the first axes found win
// (operands in order, then results), and a later disagreeing tensor is
// resharded by the compiler; an axis already used by another factor of the op
// is dropped; need-replication factors get no axes; a reduction factor gets
// axes only from operands (sharding it leaves a partial result). Values nobody
// constrains stay replicated.
//
// Precisely, the state is one factor assignment per op and one "current"
// sharding per value, and both only grow:
//   * Op seeds assign their factors first, for good (an empty list pins the
//     factor unsharded). Every other factor is assigned at most once, from the
//     first tensor that offers it axes: on each visit of an op the tensors are
//     read in the order seeded results (produced otherwise, their seed would
//     be overridden; a seeded operand is merely resharded), seeded operands,
//     other operands, other results; storage-only values are never read.
//   * A tensor offers its dims' axes to its factors (Shardy's projection): a
//     dim's axes fill its factors major to minor, a factor taking axes while
//     their sizes divide what is left of it; a factor that is not fully sharded
//     ends the dim (minor factors get nothing), except that the dim's last
//     factor takes all the remaining axes even unevenly (padding). So an axis
//     is never split across factors, and uneven shards only arise where a dim's
//     minor-most factor is sharded by more than it divides; projections
//     otherwise keep to divisible sizes.
//   * Of the offered axes a factor keeps the longest prefix whose axes no
//     other factor of the op uses; need-replication and size-1 factors, and
//     factors the offer would make inexpressible (a sharded factor after one
//     not fully sharded, on any tensor of the op), take nothing.
//   * After each visit the op writes back: to every operand its required
//     sharding, to every result its produced sharding, filling only the dims
//     that are still empty (a dim set once is never changed) and that no seed
//     closed, with the longest prefix of axes the tensor does not already use
//     on another dim. Storage-only values are never written. A value's
//     current sharding is a hint for its neighbours; the plan records what
//     its producer actually produces.
//   * Passes alternate forward and backward over the ops until one changes
//     nothing (at most 2 * num_ops + 2 passes; every change is monotone, so
//     this terminates long before).
// The plan: every op's assignment (unassigned factors: no axes); every
// activation as its producer produces it; a seeded leaf as seeded; any other
// leaf as the first consumer (in op order) that requires it sharded requires
// it, else replicated.
//
// A value seed's non-empty dims are closed (kept exactly); its empty dims are
// open and may be filled. If a seeded activation's producer cannot produce the
// seed's closed dims (say, a norm's normalized dim), Propagate fails rather
// than override it. Seeds must be valid: axes in range and not repeated,
// ranks right, no partial axes, factor names that exist, no axes on
// need-replication or size-1 factors, op seeds that pass CheckOpSharding.
#pragma once

#include <map>
#include <set>

#include "shard/sharding.h"

namespace az::shard {

struct Seeds {
  std::map<pir::ValueId, TensorSharding> values;
  // op -> (factor name -> axes)
  std::map<pir::OpId, std::map<std::string, std::vector<int>>> op_factors;
  // Seeded leaves whose seed fixes only how they are stored, not how their
  // consumers run: FSDP weights, stored sharded and all-gathered before use.
  // They are never read as a propagation source, unless `used` says how their
  // consumers use them, and nothing propagates into them.
  std::set<pir::ValueId> storage_only;
  // For storage-only leaves gathered over some axes only (FSDP x TP inside a
  // shard_map: stored on ("y", "x"), gathered over "x", used split on "y"):
  // the sharding their consumers use, a propagation source. Each dim's axes
  // must lead the stored dim's (the gather drops the minor axes). The plan
  // holds the leaf as stored; the compiler gathers the rest before use.
  std::map<pir::ValueId, TensorSharding> used;
};

// `graph` must be a verified graph (pir/verify); seed errors are returned.
StatusOr<ShardingPlan> Propagate(const pir::Graph& graph, const Mesh& mesh, const Seeds& seeds);

}  // namespace az::shard
