// The Alpa baseline: Alpa's intra-operator pass (Zheng et al., OSDI'22, §4)
// over a PIR graph, solved exactly as an integer linear program (GLPK for the
// small ILPs, CBC for the large ones: docs/alpa.md, "The solve").
//
// For every op it decides one strategy (an assignment of mesh axes to the
// op's factors) and returns propagation seeds that pin them, so the built-in
// compiler compiles what the ILP priced. Costs are Alpa's alpha-beta world:
// per-op compute and communication, a resharding cost on every producer ->
// consumer edge (the collectives compile/spmd/reshard.h would emit), and an
// optional per-device memory constraint. Followers (element-wise, norm and
// layout ops riding on their activation operand) and layer clustering (the
// blocks of a DiT share one node) keep a 2,000-op DiT small. The solve is
// deterministic: it stops at a branch-and-bound node budget derived from the
// problem's size, never at a clock, unless a generous wall-clock safety net
// fires; either stop is reported (AlpaStop), never hidden.
// docs/alpa.md is the full contract: the strategy enumeration, every cost
// formula, the ILP, the simplifications, the known approximations and the
// sizes alpa_test.cc measures.
#pragma once

#include <optional>
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
  // The solve's budget: branch-and-bound nodes (0: AlpaNodeBudget of the
  // problem) and a wall-clock safety net that only a pathological solve meets.
  int64_t node_budget = 0;
  double time_limit_s = 300;
  int max_strategies = 64;  // per op (>= 1)
};

// ---------------------------------------------------------------- the problem as plain data

// One ILP node: a class of leader ops sharing strategy variables.
struct AlpaNode {
  std::string name;                      // the class pattern, "blocks.#.self_attn.q"
  std::vector<double> cost_s;            // per strategy: compute, own communication, resharding inside the node
  // Per strategy: per-device bytes the node holds through the step: the
  // leaves it stores and, in a training step, its results kept for the backward.
  std::vector<double> stored_bytes;
  std::vector<double> activation_bytes;  // per strategy: the largest local working set of one of its ops
  // Per strategy, per mesh axis: the index of the factor the axis shards, -1
  // unused. Optional (BuildAlpaModel sets it): the per-mesh-axis
  // decomposition that warm-starts the large ILPs reads it.
  std::vector<std::vector<int>> axis_factor;
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
  std::vector<int64_t> axis_sizes;  // the mesh's, with the nodes' axis_factor (else empty)
};

// A feasible choice by per-mesh-axis decomposition (as PyTorch's AutoParallel
// solves per mesh dimension): axis 0 first, every node restricted to the
// strategies that leave the later axes unused, under the memory limit times
// the later axes' sizes (each can divide the footprint by at most its size);
// then each later axis with the earlier axes' assignments fixed; the last
// stage under the true limit. Each stage is a restriction of the joint ILP
// (exact costs), a few percent of its columns. nullopt: no axis_factor, one
// axis, or a stage without a feasible choice. Not an optimum: the large
// ILPs start from it (alpa_ilp.cc).
std::optional<std::vector<int>> DecomposeByMeshAxis(const AlpaProblem& problem);

// The objective of a choice (one strategy index per node): what every solver is checked against.
double EvaluateAlpa(const AlpaProblem& problem, const std::vector<int>& choice);
// The memory the ILP constrains: max over nodes w of (all stored bytes + w's working set).
double AlpaMemoryBytes(const AlpaProblem& problem, const std::vector<int>& choice);

// The MILP solver: kAuto picks GLPK below 50,000 columns and CBC from there
// (alpa_ilp.cc says why); the others force one (tests check them against each other).
enum class AlpaSolver { kAuto, kGlpk, kCbc };
const char* AlpaSolverName(AlpaSolver solver);  // "auto", "GLPK", "CBC"

// Why the solve ended.
enum class AlpaStop {
  kOptimal,     // proven optimal
  kNodeBudget,  // the node budget ran out: the best solution found, `gap` from the bound
  kTimeLimit,   // the wall-clock safety net fired (the only stop that depends on the machine)
};
const char* AlpaStopName(AlpaStop stop);  // "optimal", "node budget", "time limit"

// The node budget a problem gets when AlpaOptions::node_budget is 0: one
// branch-and-bound node re-solves an LP of the whole problem, so the budget
// falls with its size, kNodeWork / (columns + rows), clamped to
// [kMinNodes, kMaxNodes] (alpa_ilp.cc).
int64_t AlpaNodeBudget(int64_t columns, int64_t rows);

struct AlpaSolveLimits {
  int64_t node_budget = 0;    // 0: AlpaNodeBudget of the problem
  double time_limit_s = 300;  // the wall-clock safety net
  AlpaSolver solver = AlpaSolver::kAuto;
};

struct AlpaSolution {
  std::vector<int> choice;  // per node
  AlpaSolver solver = AlpaSolver::kGlpk;  // the one that solved it
  bool decomposition_start = false;       // CBC started from DecomposeByMeshAxis's choice
  double objective_s = 0;
  AlpaStop stop = AlpaStop::kOptimal;
  double gap = 0;  // (objective - best bound) / objective; 0 when optimal, -1 when no bound is known
  bool optimal() const { return stop == AlpaStop::kOptimal; }
  int64_t nodes = 0;        // branch-and-bound nodes explored
  int64_t node_budget = 0;  // the budget the solve ran under
  double solve_time_s = 0;
  int variables = 0, constraints = 0;
};

// "optimal, GLPK" or "best found: CBC stopped at the node budget of N nodes,
// gap X%" / "... at the time limit of T s (N nodes), gap X%" ("gap unknown"
// when the clock stopped the solve before a bound).
std::string AlpaSolveNote(const AlpaSolution& solution, double time_limit_s);

// Solves the ILP with `limits.solver` under the node budget (the same problem
// and limits give the same choice, whatever the machine's load). Errors: no choice fits the memory limit
// (kResourceExhausted), no feasible solution within the budget
// (kFailedPrecondition, naming the budget that ran out), a CBC failure
// (kInternal).
StatusOr<AlpaSolution> SolveAlpaProblem(const AlpaProblem& problem, const AlpaSolveLimits& limits);

// ---------------------------------------------------------------- the baseline

struct AlpaResult {
  shard::Seeds seeds;      // every op's factors pinned and every leaf's storage: feed to shard::Propagate
  double objective_s = 0;  // the ILP's own cost (its alpha-beta world)
  int ops = 0;             // graph ops decided (leaders + followers)
  int followers = 0;       // of them, ops merged into their producer
  int nodes = 0;           // ILP nodes (leader classes)
  int strategies = 0;      // summed over nodes
  int variables = 0, constraints = 0;
  AlpaStop stop = AlpaStop::kOptimal;
  double gap = 0;  // of the best solution found, when the budget stopped the solve
  bool optimal() const { return stop == AlpaStop::kOptimal; }
  int64_t nodes_explored = 0, node_budget = 0;  // branch-and-bound nodes
  // "optimal, GLPK", or what stopped the solve: "best found: CBC stopped at
  // the node budget of 400 nodes, gap 1.2%" (AlpaSolveNote).
  std::string solve_note;
  double solve_time_s = 0;  // the MILP solver only
  double build_time_s = 0;  // strategies, costs and the ILP
  double memory_bytes = 0;  // the ILP's per-device memory estimate of the choice
  std::string summary;      // the strategies of the first block's leaders, one per line
};

// `graph` must be verified; `mesh` has 1 to 4 axes and options.axis_costs one
// entry per axis. Errors: bad options (kInvalidArgument), an op without a
// factor rule, the memory limit unreachable (kResourceExhausted, naming the
// limit and the smallest footprint any choice has), CBC failures.
StatusOr<AlpaResult> SolveAlpa(const pir::Graph& graph, const shard::Mesh& mesh, const AlpaOptions& options);

}  // namespace az::search
