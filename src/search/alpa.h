// The Alpa baseline: Alpa's intra-operator pass (Zheng et al., OSDI'22, §4)
// over a PIR graph, solved exactly as an integer linear program with GLPK.
//
// What it decides. For every op, one *strategy*: an assignment of mesh axes to
// the op's factors (shard/sharding.h's OpSharding). The result is a set of
// propagation seeds that pins every op's factors and every leaf's storage
// (shard::Propagate then reproduces the ILP's choice exactly), so the built-in
// compiler compiles what the ILP priced.
//
// Strategies of an op (EnumerateStrategies in alpa_build.cc). Each mesh axis
// goes to at most one factor or stays unused (an axis of size 1 always stays
// unused); axes on one factor are in mesh order (so no two strategies differ
// by axis order alone). Kept only when CheckOpSharding passes, every sharded
// factor's size is divisible by its axes' product (no padding, as Alpa), and
// every sharded factor is pass-through, reduction, normalized (its op then
// pays the statistics' all-reduces, rule.h: StatisticsOf), or a permutation factor
// that only results have (a result-side slice; an operand's permutation
// factor would need data movement the compiler does not emit).
// Attention's key sequence (a reduction factor) is only sharded as ring
// attention: on exactly the axes of the query sequence. Factors considered per
// op: the kMaxCandidateFactors largest; strategies per op: at most
// `max_strategies` (the replicated one and the cheapest by their own cost).
//
// Costs, in seconds, in Alpa's alpha-beta world. A collective over the axes A
// (group size n = their product) costs alpha(A) + f * bytes * beta(A), with
// alpha(A) the sum of the axes' alphas and beta(A) the largest of their betas
// (the slowest link bounds a multi-axis ring), and
//   all-reduce       f = 2 (n-1)/n, bytes = the local operand
//   all-gather       f =   (n-1)/n, bytes = the gathered local result
//   reduce-scatter   f =   (n-1)/n, bytes = the local operand
//   all-to-all       f =   (n-1)/n, bytes = the local buffer
// (bytes as cir/program.h defines them). A local slice is free.
//   * Strategy cost c(v, s): local FLOPs / flop_rate (replicated heavy ops pay
//     for their redundancy, Alpa's penalty) plus the communication the op
//     itself performs: ring attention's n-1 key/value block permutes, each
//     alpha(A) + bytes(local K + V) * beta(A), i.e. an all-gather of K and V.
//   * Resharding cost r(u, v, s, t) on every producer -> consumer edge: the
//     collectives compile/spmd/reshard.h emits to turn the producer's
//     ProducedResultSharding (with its pending partial sums) into the
//     consumer's RequiredOperandSharding, each priced as above. A sharded
//     reduction factor's all-reduce is charged here, on the edge, where the
//     compiler emits it, and becomes a cheaper reduce-scatter when the
//     consumer wants the result sharded. Graph outputs with partial sums pay
//     their all-reduce. A leaf (weight, input) is stored as its first consumer
//     (in op order) requires it; its later consumers reshard from that.
//
// The ILP (Alpa's, §4.2): binaries x[v][s] (one strategy per node), and per
// edge (u, v) continuous e[u,v][s][t] in [0, 1] linearized as the product
// x[u][s] * x[v][t] by the marginal constraints
//     sum_s x[v][s] = 1,   sum_t e[u,v][s][t] = x[u][s],   sum_s e[u,v][s][t] = x[v][t]
// (with binary x these force e to the product, so e need not be integral);
//     minimize  sum_v sum_s c(v,s) x[v][s] + sum_(u,v) sum_(s,t) r(u,v,s,t) e[u,v][s][t].
// Memory (when memory_limit_bytes > 0): for every node w,
//     sum_v sum_s P(v,s) x[v][s] + sum_s A(w,s) x[w][s] <= limit,
// with P the per-device bytes of the leaves node v stores (weights, inputs,
// constants under v's strategy) and A the largest working set of one of w's
// ops (its local activation operands and results; leaves are in P):
// "parameters + the largest op's activations fit", a simple activation
// estimate that stays linear.
//
// Simplifications that make a 2,000-op DiT small enough for GLPK:
//   (a) Followers (Alpa merges "simple" ops into an operand). An element-wise,
//       norm, RoPE, softmax or layout op (reshape, transpose, slice,
//       broadcast) whose largest operand is an activation with at least 4x the
//       elements of every other operand has no variables of its own: for each
//       strategy of its producer it runs in the sharding that operand already
//       has (its dims projected onto the op's factors; axes a factor cannot
//       take are dropped, i.e. gathered). Its costs and edges are charged to
//       the node of the op it follows (transitively: chains of followers).
//   (b) Layer clustering. Leaders whose names differ only in the block index
//       (the first all-digit component of the dotted name: "blocks.7.ffn.0"
//       and "blocks.0.ffn.0" are both "blocks.#.ffn.0") and that have the same
//       kind, attributes and types share one node: the 40 blocks of Wan 14B
//       take one set of variables, their costs add up, and edges between two
//       nodes sum over the blocks (an edge inside one node is a diagonal cost).
//       Alpa's layer clustering has the same effect; every block then runs
//       the same sharding, as every expert deployment does.
// Edges whose cost matrix is separable (r(s,t) = a(s) + b(t), e.g. all zeros,
// or one side with a single strategy) are folded into node costs.
//
// Known approximations (as in Alpa): each consumer edge pays its resharding
// (the compiler shares one resharding among consumers that want the same
// layout); compute is FLOPs only (no memory-bound term); and the memory
// estimate ignores liveness. The compiled program priced by the same formulas
// costs the objective or less (equal on Wan 2.1 with the test's costs; ~5%
// less on HunyuanVideo, where several consumers share one resharding).
//
// Sizes (alpa_test.cc): Wan 2.1 14B 720p (2,069 ops, 1,338 of them followers)
// on x=2,y=4 is 29 nodes, 376 strategies, 7,342 columns and 1,050 rows, solved
// to optimality in ~0.1 s; HunyuanVideo 720p (3,156 ops) 57 nodes and 12,053
// columns in ~0.3 s.
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
