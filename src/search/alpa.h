// The Alpa baseline: Alpa's intra-operator pass (Zheng et al., OSDI'22, §4)
// over a PIR graph, solved exactly as an integer linear program with GLPK.
//
// For every op it decides one strategy (an assignment of mesh axes to the
// op's factors) and returns propagation seeds that pin them, so the built-in
// compiler compiles what the ILP priced. Costs are Alpa's alpha-beta world:
// per-op compute and communication, a resharding cost on every producer ->
// consumer edge (the collectives compile/spmd/reshard.h would emit), and an
// optional per-device memory constraint. Followers (element-wise, norm and
// layout ops riding on their activation operand) and layer clustering (the
// blocks of a DiT share one node) keep a 2,000-op DiT small enough for GLPK.
// docs/alpa.md is the full contract: the strategy enumeration, every cost
// formula, the ILP, the simplifications, the known approximations and the
// sizes alpa_test.cc measures.
#pragma once

#include <string>
#include <vector>

#include "shard/propagation.h"
#include "support/status.h"

namespace az::search {

// Per mesh axis: a collective over the axis costs alpha_s + f * bytes * beta_s_per_byte.
struct AxisCost {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
};

struct AlpaOptions {
  std::vector<AxisCost> axis_costs;  // one per mesh axis (the caller derives them from the topology)
  double flop_rate = 0;              // device FLOP/s for the compute cost; 0: compute is free
  int64_t memory_limit_bytes = 0;    // per device; 0: no memory constraint
  double time_limit_s = 20;          // GLPK's time limit
  int max_strategies = 64;           // per op (>= 1)
};

// ---------------------------------------------------------------- the problem as plain data

// One ILP node: a class of leader ops sharing strategy variables.
struct AlpaNode {
  std::string name;                      // the class pattern, "blocks.#.self_attn.q"
  std::vector<double> cost_s;            // per strategy: compute, own communication, resharding inside the node
  std::vector<double> param_bytes;       // per strategy: per-device bytes of the leaves the node stores
  std::vector<double> activation_bytes;  // per strategy: the largest local working set of one of its ops
  int num_strategies() const { return static_cast<int>(cost_s.size()); }
};

struct AlpaEdge {
  int from = 0, to = 0;        // node indices, from < to
  std::vector<double> cost_s;  // row-major: [strategy of `from`][strategy of `to`]
};

struct AlpaProblem {
  std::vector<AlpaNode> nodes;
  std::vector<AlpaEdge> edges;
  double memory_limit_bytes = 0;  // 0: none
};

// The objective of a choice (one strategy index per node): what every solver is checked against.
double EvaluateAlpa(const AlpaProblem& problem, const std::vector<int>& choice);
// The memory the ILP constrains: max over nodes w of (all stored leaves + w's working set).
double AlpaMemoryBytes(const AlpaProblem& problem, const std::vector<int>& choice);

struct AlpaSolution {
  std::vector<int> choice;  // per node
  double objective_s = 0;
  bool optimal = false;  // false: the time limit stopped GLPK with a feasible solution
  double solve_time_s = 0;
  int variables = 0, constraints = 0;
};

// Solves the ILP with GLPK (presolve on, `time_limit_s`). Errors: no choice
// fits the memory limit (kResourceExhausted), no feasible solution within the
// time limit (kFailedPrecondition), a GLPK failure (kInternal).
StatusOr<AlpaSolution> SolveAlpaProblem(const AlpaProblem& problem, double time_limit_s);

// ---------------------------------------------------------------- the baseline

struct AlpaResult {
  shard::Seeds seeds;      // every op's factors pinned and every leaf's storage: feed to shard::Propagate
  double objective_s = 0;  // the ILP's own cost (its alpha-beta world)
  int ops = 0;             // graph ops decided (leaders + followers)
  int followers = 0;       // of them, ops merged into their producer
  int nodes = 0;           // ILP nodes (leader classes)
  int strategies = 0;      // summed over nodes
  int variables = 0, constraints = 0;
  bool optimal = false;
  double solve_time_s = 0;  // GLPK only
  double build_time_s = 0;  // strategies, costs and the ILP
  double memory_bytes = 0;  // the ILP's per-device memory estimate of the choice
  std::string summary;      // the strategies of the first block's leaders, one per line
};

// `graph` must be verified; `mesh` has 1 to 4 axes and options.axis_costs one
// entry per axis. Errors: bad options (kInvalidArgument), an op without a
// factor rule, the memory limit unreachable (kResourceExhausted, naming the
// limit and the smallest footprint any choice has), GLPK failures.
StatusOr<AlpaResult> SolveAlpa(const pir::Graph& graph, const shard::Mesh& mesh, const AlpaOptions& options);

}  // namespace az::search
