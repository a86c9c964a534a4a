// Meshes and shardings as the partitioner uses them.
//
// A Mesh names its axes with sizes; the logical device id of a mesh position is
// its row-major index (the first axis is the most significant digit), which is
// JAX's `mesh.devices.flat` order and XLA's partition id.
//
// A TensorSharding says, for every dimension of a tensor, which mesh axes split
// it, major to minor (Shardy: `[{"y", "x"}, {}]`), and which axes hold partial
// sums still to be reduced (`unreduced`). An axis appears at most once per
// tensor. The local shape of a dimension of size n split by axes of total size
// k is ceil(n / k): uneven shards are padded.
//
// An OpSharding assigns mesh axes to the factors of the op's factor rule
// (pir/rules/rule.h). It determines the sharding each operand must arrive in
// (its dims' factors' axes) and the sharding each result is produced in, with
// the axes of sharded reduction factors as partial axes.
//
// Projection, factors -> tensor: a dimension's axes are the concatenation,
// major to minor, of its factors' axes. That is a blocked layout only when
// every factor before a sharded one is fully sharded (its axes' product equals
// its size), so an OpSharding must satisfy that on every tensor
// (CheckOpSharding). Example, reshape [B, L, 3*H*D] -> [B, L, 3, H, D]: the
// heads factor may take "y" only if the factor 3 before it in the operand's
// last dim is fully sharded, which no power-of-two axis achieves; the reshape
// then cannot run head-parallel and its operand is resharded instead.
//
// Uneven shards: a factor whose size its axes do not divide is allowed
// (padding) when it is the minor-most sharded factor of every dimension it is
// in. Size-1 factors never take axes.
//
// Ring exception: one mesh axis may sit on two factors of an op, at least one
// of them a reduction factor, when no tensor of the op has both. That is ring
// attention (attention's "q" and "kv" on the same axis: each device keeps its
// query block and the key/value blocks rotate along the axis), its backward
// (attention_grad's "q" and "kv", both reductions: the dK/dV accumulators
// rotate with the key/value blocks) or a collective matmul. The reduction is then completed inside the op: the axis
// is not a partial axis of the result. Everywhere else an axis is used at most
// once per op.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pir/ir/graph.h"
#include "pir/rules/rule.h"
#include "support/status.h"

namespace az::shard {

struct Mesh {
  std::vector<std::pair<std::string, int64_t>> axes;

  int num_axes() const { return static_cast<int>(axes.size()); }
  int64_t num_devices() const;
  int64_t axis_size(int axis) const { return axes[static_cast<size_t>(axis)].second; }
  const std::string& axis_name(int axis) const { return axes[static_cast<size_t>(axis)].first; }
  // -1 when absent.
  int AxisIndex(std::string_view name) const;
  // "x=2,y=4"
  std::string ToString() const;
  // Parses "x=2,y=4" (1 to 4 axes, sizes >= 1, unique names).
  static StatusOr<Mesh> Parse(std::string_view text);
  // The coordinate of `device` along `axis` (row-major).
  int64_t Coordinate(int64_t device, int axis) const;
  // Product of the sizes of `axes` (1 for none).
  int64_t AxesSize(const std::vector<int>& axes) const;
  bool operator==(const Mesh&) const = default;
};

struct TensorSharding {
  std::vector<std::vector<int>> dims;  // per dimension: mesh axis indices, major to minor
  std::vector<int> partial;            // axes over which the value is a partial sum

  static TensorSharding Replicated(int rank) { return {std::vector<std::vector<int>>(static_cast<size_t>(rank)), {}}; }
  bool IsReplicated() const;
  // Product of the sizes of the axes on dimension `dim`.
  int64_t Shards(const Mesh& mesh, int dim) const;
  // Local (per-device, padded) shape of a tensor of `shape`.
  pir::Shape LocalShape(const Mesh& mesh, const pir::Shape& shape) const;
  // Shardy-style text: [{"x"}, {}, {"y","z"}] partial={"w"}
  std::string ToString(const Mesh& mesh) const;
  bool operator==(const TensorSharding&) const = default;
};

struct OpSharding {
  std::vector<std::vector<int>> factor_axes;  // per factor of the op's rule: mesh axes, major to minor
  bool operator==(const OpSharding&) const = default;
};

// A complete assignment: how every value is produced and how every op runs.
struct ShardingPlan {
  Mesh mesh;
  std::vector<TensorSharding> values;  // by ValueId: the sharding the value is produced (or fed) in
  std::vector<OpSharding> ops;         // by OpId
  std::vector<pir::FactorRule> rules;  // by OpId: the rules the factor axes refer to
};

// Projections between an op's factors and its tensors.
// The sharding operand `index` must arrive in for the op to run locally.
TensorSharding RequiredOperandSharding(const pir::FactorRule& rule, const OpSharding& op, int index);
// The sharding result `index` is produced in (reduction-factor axes become partial).
TensorSharding ProducedResultSharding(const pir::FactorRule& rule, const OpSharding& op, int index);

// Checks one op's factor axes against its rule: one entry per factor, axes in
// range, no axis twice (but for the ring exception), need-replication and
// size-1 factors unsharded, and every tensor's dims expressible (a sharded
// factor only after fully sharded ones).
Status CheckOpSharding(const pir::FactorRule& rule, const OpSharding& op, const Mesh& mesh);
// "{b={"x"}, h={"y"}}": the factors that carry axes, in rule order; "{}" when none.
std::string OpShardingToString(const pir::FactorRule& rule, const OpSharding& op, const Mesh& mesh);

// Checks a plan against its graph: one entry per value and op, rules that fit
// the ops' types, every op passing CheckOpSharding, value shardings of the
// right rank with axes in range and no axis twice in a tensor, leaves never
// partial, and every activation's sharding equal to what its producer
// produces (ProducedResultSharding).
Status VerifyPlan(const pir::Graph& graph, const ShardingPlan& plan);

}  // namespace az::shard
