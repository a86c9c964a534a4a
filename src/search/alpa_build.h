// The Alpa baseline's model of a graph: per-op strategies, followers, layer
// classes and the ILP they make (the formulation is in alpa.h). Internal to
// src/search: SolveAlpa builds it, solves its problem and reads the choice
// back into op shardings.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cir/collective.h"
#include "search/alpa.h"
#include "support/units.h"

namespace az::search::alpa_internal {

// The per-device time of collectives and compute under AlpaOptions (alpa.h).
class CostModel {
 public:
  CostModel(const shard::Mesh& mesh, const AlpaOptions& options) : mesh_(mesh), options_(options) {}
  // One collective of `kind` over `axes`; `bytes` as cir/program.h defines them.
  double Collective(cir::CollectiveKind kind, const std::vector<int>& axes, double bytes) const;
  // The collectives compile/spmd/reshard.h emits from `from` to `to`, priced (cached).
  double Reshard(const pir::TensorType& type, const shard::TensorSharding& from, const shard::TensorSharding& to);
  double Compute(Flops flops) const;

 private:
  const shard::Mesh& mesh_;
  const AlpaOptions& options_;
  std::map<std::string, double> reshard_cache_;
};

// The strategies of one op pattern, aligned with its node's strategy list (a
// follower's strategy s is what it runs when its node runs strategy s).
struct Pattern {
  std::vector<shard::OpSharding> strategies;
  std::vector<std::vector<shard::TensorSharding>> required;  // [strategy][operand]
  std::vector<std::vector<shard::TensorSharding>> produced;  // [strategy][result]
  std::vector<double> own_cost_s;                            // compute + the op's own communication
  std::vector<double> working_set_bytes;                     // local activation operands + results
};

struct AlpaModel {
  AlpaProblem problem;
  std::vector<pir::FactorRule> rules;  // by op
  std::vector<Pattern> patterns;
  std::vector<int> pattern_of_op;        // by op
  std::vector<int> node_of_op;           // by op: the node of the leader it follows (itself for leaders)
  std::vector<bool> is_follower;         // by op
  std::vector<pir::OpId> node_first_op;  // by node: its first member
  std::vector<int> node_members;         // by node: how many leader ops share it
  // By value: the first (op, operand index) that reads a leaf, which stores
  // it; {kNoOp, -1} for activations and unread leaves.
  std::vector<std::pair<pir::OpId, int>> leaf_storer;
  int followers = 0;
};

// All valid strategies of `op` under its `rule` (alpa.h lists the filters), the replicated one first.
std::vector<shard::OpSharding> EnumerateStrategies(const pir::Op& op, const pir::FactorRule& rule,
                                                   const shard::Mesh& mesh);

// "blocks.7.self_attn.q" -> "blocks.#.self_attn.q": the first all-digit component replaced.
std::string BlockPattern(const std::string& name);

StatusOr<AlpaModel> BuildAlpaModel(const pir::Graph& graph, const shard::Mesh& mesh, const AlpaOptions& options);

}  // namespace az::search::alpa_internal
