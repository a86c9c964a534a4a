// A reference interpreter for PIR, unpartitioned and partitioned: the semantic
// check that a sharding plan, run as the SPMD compiler runs it, computes what
// the unpartitioned graph computes. For tests on tiny shapes: plain loops over
// float64, whatever the declared dtype.
//
// RunReference executes every op on whole tensors. RunPartitioned simulates
// every device of plan.mesh:
//   * a leaf starts as each device's block of it in plan.values (cut by the
//     device's mesh coordinates, padded shards padded with zeros);
//   * before an op, each operand is brought to RequiredOperandSharding by the
//     steps reshard.h lists, each simulated on data, each step reading only
//     what the devices of its replica groups hold: all-reduce (sum over the
//     group), reduce-scatter (sum, then keep one's block), all-to-all and
//     all-gather (blocks from the group), local slice (one's own data). The
//     steps are planned as reshard.cc plans them and checked against
//     EmitReshard's instructions (kind, replica groups, local shapes), so a
//     drift between the two is an error, not a silent pass;
//   * the op runs on each device's local blocks with the reference kernels; a
//     sharded contraction leaves a partial sum, exactly as
//     ProducedResultSharding's partial axes say. Reshape is a bitcast of the
//     local block (as in spmd_compiler.cc). Attention whose kv axes are all
//     q axes is ring attention: each device merges the blocks of its whole
//     ring with a running max and log-sum-exp, so its output is complete;
//     attention_grad so sharded is its backward: a device's dQ sums its
//     query block against every kv block of the ring, its dK and dV its kv
//     block against every query block (the rotating accumulators);
//   * an op with a sharded normalized dim (a norm's features, a softmax's
//     axis, a group norm's spatial dims: rule.h kNormalized) runs on that dim
//     gathered from its group and each device keeps its slice: what
//     all-reducing the row statistics gives, exactly (padded shards too: the
//     kernel counts only its valid rows);
//   * a convolution or replicate pad over a split windowed dim (rule.h
//     kHalo) runs as compile/spmd/halo.h plans it (PlanHalo, shared with the
//     compiler, so both refuse the same cases): each device's extended shard
//     is built from its own block and the rows its two neighbours in the
//     group hold (windows.h), and the op runs on it unpadded on that dim; a
//     pad's result stays extended for the convolution that reads it;
//   * a result is then held in plan.values (not recomputed from the op's
//     sharding: a plan that drops a partial axis shows up as wrong numbers);
//   * each graph output is reassembled, summing pending partial axes and
//     checking that replicas agree.
//
// Semantics the partitioned run must respect and that a local kernel alone
// does not give:
//   * an einsum bias on a partial-sum result is added by one device of each
//     partial group (coordinate 0 on the partial axes), else the sum would
//     count it once per device (options.bias_once_per_partial_group);
//   * a reduce "mean" over a sharded dim divides by the global count, so the
//     partial means sum to the mean; a partial "max" is no sum: Unimplemented;
//   * attention with kv sharded on an axis q is not on is no partial sum
//     (softmax normalizes per block): Unimplemented. So are sharded concat or
//     slice dims (and irregularly strided conv3d windows), the cases halo.h
//     refuses, padded ring attention blocks and custom ops.
#pragma once

#include <map>
#include <vector>

#include "pir/ir/graph.h"
#include "shard/sharding.h"
#include "support/status.h"

namespace az::compile {

// A dense tensor, row-major.
struct Tensor {
  pir::Shape shape;
  std::vector<double> data;

  int64_t NumElements() const { return static_cast<int64_t>(data.size()); }
};

// Executes the graph on whole tensors; `leaves` holds every input, parameter
// and constant. Returns the graph's outputs in order.
StatusOr<std::vector<Tensor>> RunReference(const pir::Graph& graph, const std::map<pir::ValueId, Tensor>& leaves);

struct PartitionedOptions {
  // false: every device adds an einsum's bias even when the result is a
  // partial sum (a naive fused kernel); the reassembled sum then counts the
  // bias once per device of the partial group. For negative tests.
  bool bias_once_per_partial_group = true;
};

// Simulates every device of plan.mesh running the partitioned graph (see the
// header comment); returns the reassembled outputs.
StatusOr<std::vector<Tensor>> RunPartitioned(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                             const std::map<pir::ValueId, Tensor>& leaves,
                                             const PartitionedOptions& options = {});

}  // namespace az::compile
