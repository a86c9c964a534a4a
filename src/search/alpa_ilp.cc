// The Alpa ILP (alpa.h) as a matrix, solved by GLPK or CBC (alpa_solvers.h),
// and the evaluator every solver is checked against.
//
// Columns: x[v][s] binary, then e[u,v][s][t] continuous in [0, 1]. Rows: one
// "pick one" row per node, the marginal rows of every edge, and one memory
// row per node when there is a limit. The solvers work in scaled units
// (objective in microseconds, memory in MiB) so that their absolute
// tolerances do not swallow nanosecond differences.
//
// Which solver (docs/alpa.md, "The solve", has the measurements): GLPK below
// kCbcColumns columns, CBC from there. The inference ILPs and the training
// steps' 1D-mesh ILPs (up to ~13,000 columns) are GLPK's: it solves them in
// 0.02-1.1 s, 1.5-3x faster than CBC on the memory-bound ones that branch
// (Wan 2.1 14B 720p on v5e:4x4). The training steps' 2D-mesh ILPs
// (140,000-310,000 columns) are CBC's: their LP relaxation is so degenerate
// that GLPK's primal and dual simplex stall (Wan 2.1 1.3B 832x480x81 on
// a=2,b=4: 19,000 iterations in 60 s, the objective never moved, no feasible
// point), while CBC's CLP solves it in 0.6 s, integral, and proves it optimal
// at the root.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "search/alpa.h"
#include "search/alpa_solvers.h"
#include "support/enum_names.h"

namespace az::search {

namespace {

using alpa_internal::IlpMatrix;
using alpa_internal::IlpOutcome;
using alpa_internal::IlpRow;

constexpr double kObjectiveScale = 1e6;           // seconds -> microseconds
constexpr double kMemoryScale = 1.0 / (1 << 20);  // bytes -> MiB
// From this many columns the ILP goes to CBC (see above: GLPK is measured
// fine to ~13,000 and stalled from 140,000).
constexpr int kCbcColumns = 50'000;
// AlpaNodeBudget: one node re-solves an LP of the whole problem, whose work
// grows with its size and with the memory rows (each spans every strategy
// column): ~0.6 s of CPU a node on the ~200,000 columns and rows of Wan 2.1
// 14B training on a=2,b=2, and 5-6 s of wall time on a=2,b=4 under a tight
// memory limit on a loaded machine. 2e6 / (columns + rows) gives a training
// step's 2D ILP 6-12 nodes (the floor is 5) and the small problems room to
// branch (an inference ILP of ~9,000 columns and rows: 220 nodes).
constexpr double kNodeWork = 2e6;
constexpr int64_t kMinNodes = 5;
constexpr int64_t kMaxNodes = 100'000;

// Builds the rows one at a time; duplicate entries of a row are summed.
class RowBuilder {
 public:
  explicit RowBuilder(IlpMatrix& matrix) : matrix_(matrix) {}
  void Add(int column, double value) { row_[column] += value; }
  void Flush(bool equality, double upper) {
    IlpRow row;
    row.equality = equality;
    row.upper = upper;
    for (const auto& [column, value] : row_) {
      if (value != 0) row.entries.push_back({column, value});
    }
    row_.clear();
    matrix_.rows.push_back(std::move(row));
  }

 private:
  IlpMatrix& matrix_;
  std::map<int, double> row_;
};

// The footprint no choice beats: every node's smallest stored bytes (leaves
// and kept activations) plus the largest over nodes of their smallest working
// set.
double SmallestFootprint(const AlpaProblem& problem) {
  double params = 0, activations = 0;
  for (const AlpaNode& node : problem.nodes) {
    params += *std::min_element(node.stored_bytes.begin(), node.stored_bytes.end());
    activations = std::max(activations, *std::min_element(node.activation_bytes.begin(), node.activation_bytes.end()));
  }
  return params + activations;
}

std::string MemoryError(const AlpaProblem& problem, const std::string& why) {
  return "no sharding fits the memory limit of " +
         FormatBytes(Bytes(static_cast<int64_t>(problem.memory_limit_bytes))) + " per device: " + why +
         " (parameters, inputs and a training step's activations kept for the backward, stored under the " +
         "cheapest strategies, plus the largest " +
         "op's working set need at least " + FormatBytes(Bytes(static_cast<int64_t>(SmallestFootprint(problem)))) + ")";
}

}  // namespace

double EvaluateAlpa(const AlpaProblem& problem, const std::vector<int>& choice) {
  AZ_CHECK(choice.size() == problem.nodes.size());
  double total = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v) total += problem.nodes[v].cost_s[static_cast<size_t>(choice[v])];
  for (const AlpaEdge& edge : problem.edges) {
    size_t cols = problem.nodes[static_cast<size_t>(edge.to)].cost_s.size();
    total += edge.cost_s[static_cast<size_t>(choice[static_cast<size_t>(edge.from)]) * cols +
                         static_cast<size_t>(choice[static_cast<size_t>(edge.to)])];
  }
  return total;
}

double AlpaMemoryBytes(const AlpaProblem& problem, const std::vector<int>& choice) {
  AZ_CHECK(choice.size() == problem.nodes.size());
  double params = 0, activations = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    params += problem.nodes[v].stored_bytes[static_cast<size_t>(choice[v])];
    activations = std::max(activations, problem.nodes[v].activation_bytes[static_cast<size_t>(choice[v])]);
  }
  return params + activations;
}

// The tables' names are string literals, so their data() is NUL-terminated.
constexpr EnumName<AlpaSolver> kSolverNames[] = {
    {AlpaSolver::kAuto, "auto"}, {AlpaSolver::kGlpk, "GLPK"}, {AlpaSolver::kCbc, "CBC"}};
constexpr EnumName<AlpaStop> kStopNames[] = {
    {AlpaStop::kOptimal, "optimal"}, {AlpaStop::kNodeBudget, "node budget"}, {AlpaStop::kTimeLimit, "time limit"}};

const char* AlpaSolverName(AlpaSolver solver) { return NameOf(kSolverNames, solver).data(); }

const char* AlpaStopName(AlpaStop stop) { return NameOf(kStopNames, stop).data(); }

int64_t AlpaNodeBudget(int64_t columns, int64_t rows) {
  const double size = static_cast<double>(std::max<int64_t>(1, columns + rows));
  return std::clamp(static_cast<int64_t>(kNodeWork / size), kMinNodes, kMaxNodes);
}

std::string AlpaSolveNote(const AlpaSolution& solution, double time_limit_s) {
  if (solution.optimal()) return std::string("optimal, ") + AlpaSolverName(solution.solver);
  char gap[32] = "gap unknown";
  if (solution.gap >= 0) std::snprintf(gap, sizeof gap, "gap %.2f%%", 100 * solution.gap);
  char text[200];
  if (solution.stop == AlpaStop::kNodeBudget) {
    std::snprintf(text, sizeof text, "best found: %s stopped at the node budget of %lld nodes, %s",
                  AlpaSolverName(solution.solver), static_cast<long long>(solution.node_budget), gap);
  } else {
    std::snprintf(text, sizeof text, "best found: %s stopped at the time limit of %g s (%lld nodes), %s",
                  AlpaSolverName(solution.solver), time_limit_s, static_cast<long long>(solution.nodes), gap);
  }
  return text;
}

StatusOr<AlpaSolution> SolveAlpaProblem(const AlpaProblem& problem, const AlpaSolveLimits& limits) {
  const auto start = std::chrono::steady_clock::now();
  if (problem.nodes.empty()) return AlpaSolution{};
  if (problem.memory_limit_bytes > 0 && SmallestFootprint(problem) > problem.memory_limit_bytes) {
    return ResourceExhausted(MemoryError(problem, "even the smallest footprint is larger"));
  }

  // Columns.
  IlpMatrix matrix;
  std::vector<int> first_x(problem.nodes.size());
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    first_x[v] = matrix.columns;
    matrix.columns += problem.nodes[v].num_strategies();
  }
  matrix.binary_columns = matrix.columns;
  std::vector<int> first_e(problem.edges.size());
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    first_e[i] = matrix.columns;
    matrix.columns += static_cast<int>(problem.edges[i].cost_s.size());
  }
  matrix.objective.resize(static_cast<size_t>(matrix.columns));
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) {
      matrix.objective[static_cast<size_t>(first_x[v] + s)] =
          problem.nodes[v].cost_s[static_cast<size_t>(s)] * kObjectiveScale;
    }
  }
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    for (size_t k = 0; k < problem.edges[i].cost_s.size(); ++k) {
      matrix.objective[static_cast<size_t>(first_e[i]) + k] = problem.edges[i].cost_s[k] * kObjectiveScale;
    }
  }

  // Rows.
  RowBuilder rows(matrix);
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) rows.Add(first_x[v] + s, 1.0);
    rows.Flush(true, 1.0);
  }
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    const AlpaEdge& edge = problem.edges[i];
    const int from_count = problem.nodes[static_cast<size_t>(edge.from)].num_strategies();
    const int to_count = problem.nodes[static_cast<size_t>(edge.to)].num_strategies();
    for (int s = 0; s < from_count; ++s) {
      for (int t = 0; t < to_count; ++t) rows.Add(first_e[i] + s * to_count + t, 1.0);
      rows.Add(first_x[static_cast<size_t>(edge.from)] + s, -1.0);
      rows.Flush(true, 0.0);
    }
    for (int t = 0; t < to_count; ++t) {
      for (int s = 0; s < from_count; ++s) rows.Add(first_e[i] + s * to_count + t, 1.0);
      rows.Add(first_x[static_cast<size_t>(edge.to)] + t, -1.0);
      rows.Flush(true, 0.0);
    }
  }
  if (problem.memory_limit_bytes > 0) {
    // The node whose smallest working set is the largest (`floor`) implies
    // the row of every node whose largest working set is at most `floor`.
    double floor = -1;
    size_t floor_node = 0;
    for (size_t v = 0; v < problem.nodes.size(); ++v) {
      const auto& activations = problem.nodes[v].activation_bytes;
      double smallest = *std::min_element(activations.begin(), activations.end());
      if (smallest > floor) {
        floor = smallest;
        floor_node = v;
      }
    }
    for (size_t w = 0; w < problem.nodes.size(); ++w) {
      const auto& activations = problem.nodes[w].activation_bytes;
      if (w != floor_node && *std::max_element(activations.begin(), activations.end()) <= floor) continue;
      for (size_t v = 0; v < problem.nodes.size(); ++v) {
        for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) {
          rows.Add(first_x[v] + s, problem.nodes[v].stored_bytes[static_cast<size_t>(s)] * kMemoryScale);
        }
      }
      for (int s = 0; s < problem.nodes[w].num_strategies(); ++s) {
        rows.Add(first_x[w] + s, problem.nodes[w].activation_bytes[static_cast<size_t>(s)] * kMemoryScale);
      }
      rows.Flush(false, problem.memory_limit_bytes * kMemoryScale);
    }
  }

  const int row_count = static_cast<int>(matrix.rows.size());
  const int64_t node_budget =
      limits.node_budget > 0 ? limits.node_budget : AlpaNodeBudget(matrix.columns, row_count);
  AlpaSolver solver = limits.solver;
  if (solver == AlpaSolver::kAuto) solver = matrix.columns < kCbcColumns ? AlpaSolver::kGlpk : AlpaSolver::kCbc;
  // CBC runs no heuristics (alpa_cbc.cc): it starts from the per-mesh-axis
  // decomposition's choice where there is one.
  std::vector<double> warm_start;
  if (solver == AlpaSolver::kCbc) {
    if (std::optional<std::vector<int>> choice = DecomposeByMeshAxis(problem)) {
      warm_start.assign(static_cast<size_t>(matrix.binary_columns), 0.0);
      for (size_t v = 0; v < problem.nodes.size(); ++v) {
        warm_start[static_cast<size_t>(first_x[v] + (*choice)[v])] = 1.0;
      }
    }
  }
  AZ_ASSIGN_OR_RETURN(IlpOutcome outcome,
                      solver == AlpaSolver::kGlpk
                          ? alpa_internal::SolveWithGlpk(matrix, node_budget, limits.time_limit_s)
                          : alpa_internal::SolveWithCbc(matrix, node_budget, limits.time_limit_s, warm_start));
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - outcome.wait_s;
  const std::string name = AlpaSolverName(solver);
  if (outcome.proven_infeasible) {
    if (problem.memory_limit_bytes > 0) {
      return ResourceExhausted(MemoryError(problem, "the strategies that fit each node do not fit together"));
    }
    return InternalError("the Alpa ILP has no feasible solution");
  }
  if (outcome.values.empty()) {
    return FailedPrecondition(name + " found no feasible sharding within " +
                              (outcome.stop == AlpaStop::kTimeLimit
                                   ? "the time limit of " + std::to_string(limits.time_limit_s) + " s"
                                   : "the node budget of " + std::to_string(node_budget) + " nodes"));
  }

  AlpaSolution solution;
  solution.solver = solver;
  solution.decomposition_start = !warm_start.empty();
  solution.stop = outcome.stop;
  solution.nodes = outcome.nodes;
  solution.node_budget = node_budget;
  solution.variables = matrix.columns;
  solution.constraints = row_count;
  solution.solve_time_s = elapsed;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    int picked = 0;
    double best = -1;
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) {
      double value = outcome.values[static_cast<size_t>(first_x[v] + s)];
      if (value > best) {
        best = value;
        picked = s;
      }
    }
    solution.choice.push_back(picked);
  }
  // The objective from the data, not the solver's scaled and rounded copy.
  solution.objective_s = EvaluateAlpa(problem, solution.choice);
  if (!solution.optimal() && solution.objective_s > 0) {
    solution.gap = std::isnan(outcome.bound)
                       ? -1
                       : std::max(0.0, (solution.objective_s - outcome.bound / kObjectiveScale) / solution.objective_s);
  }
  return solution;
}

}  // namespace az::search
