// The Alpa ILP (alpa.h) in CBC, and the evaluator every solver is checked against.
//
// Columns: x[v][s] binary, then e[u,v][s][t] continuous in [0, 1]. Rows: one
// "pick one" row per node, the marginal rows of every edge, and one memory
// row per node when there is a limit. The solver works in scaled units
// (objective in microseconds, memory in MiB) so that its absolute tolerances
// do not swallow nanosecond differences.
//
// Why CBC and not GLPK (which solved this ILP before): on the training steps
// the 2D-mesh ILPs are ~140,000-310,000 columns whose LP relaxation is highly
// degenerate. GLPK's primal and dual simplex both stalled on it (Wan 2.1 1.3B
// 832x480x81 training on a=2,b=4: 19,000 iterations in 60 s without leaving
// the starting objective, no feasible point), while CBC's CLP solves the same
// relaxation in 0.6 s, integral, and proves it optimal at the root (docs/alpa.md
// has the measurements). On the inference ILPs CBC is also faster (HunyuanVideo
// 720p on x=2,y=4: 0.10 s against GLPK's 0.63 s).
//
// Determinism: CBC runs single-threaded and stops at a node budget, so the
// same problem gives the same choice on a loaded or an idle machine. The
// wall-clock limit is a safety net only, and its stop is reported as such.
#include <Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

#include "search/alpa.h"

namespace az::search {

namespace {

constexpr double kObjectiveScale = 1e6;           // seconds -> microseconds
constexpr double kMemoryScale = 1.0 / (1 << 20);  // bytes -> MiB
// AlpaNodeBudget: one node re-solves an LP of the whole problem, whose work
// grows with its size; 5e7 / (columns + rows) keeps a budgeted solve of the
// largest training ILP (HunyuanVideo on a 2D mesh, ~344,000 columns and rows:
// 145 nodes) to tens of seconds, and lets small problems branch freely.
constexpr double kNodeWork = 5e7;
constexpr int64_t kMinNodes = 100;
constexpr int64_t kMaxNodes = 100'000;

// Owns a Cbc_Model for its lifetime.
class CbcModel {
 public:
  CbcModel() : model_(Cbc_newModel()) {}
  ~CbcModel() { Cbc_deleteModel(model_); }
  CbcModel(const CbcModel&) = delete;
  CbcModel& operator=(const CbcModel&) = delete;
  Cbc_Model* get() const { return model_; }

 private:
  Cbc_Model* model_;
};

// The constraint matrix built row by row (duplicate entries of a row are
// summed) and handed to CBC by column, as Cbc_loadProblem wants it.
class MatrixBuilder {
 public:
  explicit MatrixBuilder(int columns) : columns_(static_cast<size_t>(columns)) {}
  void Add(int column, double value) { row_[column] += value; }
  // Closes the current row with bounds [lower, upper].
  void Flush(double lower, double upper) {
    const int row = static_cast<int>(row_lower_.size());
    for (const auto& [column, value] : row_) {
      if (value != 0) columns_[static_cast<size_t>(column)].push_back({row, value});
    }
    row_.clear();
    row_lower_.push_back(lower);
    row_upper_.push_back(upper);
  }
  int rows() const { return static_cast<int>(row_lower_.size()); }
  void Load(Cbc_Model* model, const std::vector<double>& column_lower, const std::vector<double>& column_upper,
            const std::vector<double>& objective) const {
    std::vector<CoinBigIndex> start = {0};
    std::vector<int> index;
    std::vector<double> value;
    for (const auto& column : columns_) {
      for (const auto& [row, v] : column) {
        index.push_back(row);
        value.push_back(v);
      }
      start.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    Cbc_loadProblem(model, static_cast<int>(columns_.size()), rows(), start.data(), index.data(), value.data(),
                    column_lower.data(), column_upper.data(), objective.data(), row_lower_.data(), row_upper_.data());
  }

 private:
  std::map<int, double> row_;
  std::vector<std::vector<std::pair<int, double>>> columns_;  // by column: (row, value), rows ascending
  std::vector<double> row_lower_, row_upper_;
};

// The footprint no choice beats: every node's smallest stored bytes plus the
// largest over nodes of their smallest working set.
double SmallestFootprint(const AlpaProblem& problem) {
  double params = 0, activations = 0;
  for (const AlpaNode& node : problem.nodes) {
    params += *std::min_element(node.param_bytes.begin(), node.param_bytes.end());
    activations = std::max(activations, *std::min_element(node.activation_bytes.begin(), node.activation_bytes.end()));
  }
  return params + activations;
}

std::string MemoryError(const AlpaProblem& problem, const std::string& why) {
  return "no sharding fits the memory limit of " +
         FormatBytes(Bytes(static_cast<int64_t>(problem.memory_limit_bytes))) + " per device: " + why +
         " (parameters and inputs stored under the cheapest strategies plus the largest " +
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
    params += problem.nodes[v].param_bytes[static_cast<size_t>(choice[v])];
    activations = std::max(activations, problem.nodes[v].activation_bytes[static_cast<size_t>(choice[v])]);
  }
  return params + activations;
}

const char* AlpaStopName(AlpaStop stop) {
  switch (stop) {
    case AlpaStop::kOptimal: return "optimal";
    case AlpaStop::kNodeBudget: return "node budget";
    case AlpaStop::kTimeLimit: return "time limit";
  }
  return "?";
}

int64_t AlpaNodeBudget(int64_t columns, int64_t rows) {
  const double size = static_cast<double>(std::max<int64_t>(1, columns + rows));
  return std::clamp(static_cast<int64_t>(kNodeWork / size), kMinNodes, kMaxNodes);
}

std::string AlpaSolveNote(const AlpaSolution& solution, double time_limit_s) {
  if (solution.optimal()) return "optimal";
  char text[160];
  if (solution.stop == AlpaStop::kNodeBudget) {
    std::snprintf(text, sizeof text, "best found: stopped at the node budget of %lld nodes, gap %.2f%%",
                  static_cast<long long>(solution.node_budget), 100 * solution.gap);
  } else {
    std::snprintf(text, sizeof text, "best found: stopped at the time limit of %g s (%lld nodes), gap %.2f%%",
                  time_limit_s, static_cast<long long>(solution.nodes), 100 * solution.gap);
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
  std::vector<int> first_x(problem.nodes.size());
  int columns = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    first_x[v] = columns;
    columns += problem.nodes[v].num_strategies();
  }
  const int x_columns = columns;
  std::vector<int> first_e(problem.edges.size());
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    first_e[i] = columns;
    columns += static_cast<int>(problem.edges[i].cost_s.size());
  }
  std::vector<double> objective(static_cast<size_t>(columns)), lower(static_cast<size_t>(columns), 0.0),
      upper(static_cast<size_t>(columns), 1.0);
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) {
      objective[static_cast<size_t>(first_x[v] + s)] = problem.nodes[v].cost_s[static_cast<size_t>(s)] * kObjectiveScale;
    }
  }
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    for (size_t k = 0; k < problem.edges[i].cost_s.size(); ++k) {
      objective[static_cast<size_t>(first_e[i]) + k] = problem.edges[i].cost_s[k] * kObjectiveScale;
    }
  }

  // Rows.
  MatrixBuilder matrix(columns);
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) matrix.Add(first_x[v] + s, 1.0);
    matrix.Flush(1.0, 1.0);
  }
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    const AlpaEdge& edge = problem.edges[i];
    const int from_count = problem.nodes[static_cast<size_t>(edge.from)].num_strategies();
    const int to_count = problem.nodes[static_cast<size_t>(edge.to)].num_strategies();
    for (int s = 0; s < from_count; ++s) {
      for (int t = 0; t < to_count; ++t) matrix.Add(first_e[i] + s * to_count + t, 1.0);
      matrix.Add(first_x[static_cast<size_t>(edge.from)] + s, -1.0);
      matrix.Flush(0.0, 0.0);
    }
    for (int t = 0; t < to_count; ++t) {
      for (int s = 0; s < from_count; ++s) matrix.Add(first_e[i] + s * to_count + t, 1.0);
      matrix.Add(first_x[static_cast<size_t>(edge.to)] + t, -1.0);
      matrix.Flush(0.0, 0.0);
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
          matrix.Add(first_x[v] + s, problem.nodes[v].param_bytes[static_cast<size_t>(s)] * kMemoryScale);
        }
      }
      for (int s = 0; s < problem.nodes[w].num_strategies(); ++s) {
        matrix.Add(first_x[w] + s, problem.nodes[w].activation_bytes[static_cast<size_t>(s)] * kMemoryScale);
      }
      matrix.Flush(-std::numeric_limits<double>::max(), problem.memory_limit_bytes * kMemoryScale);
    }
  }
  const int rows = matrix.rows();

  CbcModel holder;
  Cbc_Model* model = holder.get();
  matrix.Load(model, lower, upper, objective);
  for (int column = 0; column < x_columns; ++column) Cbc_setInteger(model, column);
  Cbc_setObjSense(model, 1);  // minimize
  Cbc_setLogLevel(model, 0);
  const int64_t node_budget = limits.node_budget > 0 ? limits.node_budget : AlpaNodeBudget(columns, rows);
  Cbc_setMaximumNodes(model, static_cast<int>(std::min<int64_t>(node_budget, 1'000'000'000)));
  Cbc_setParameter(model, "timeMode", "elapsed");
  Cbc_setMaximumSeconds(model, std::clamp(limits.time_limit_s, 0.001, 1e6));
  const int code = Cbc_solve(model);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double* best = Cbc_bestSolution(model);
  if (Cbc_isProvenInfeasible(model) || (best == nullptr && Cbc_isProvenOptimal(model))) {
    if (problem.memory_limit_bytes > 0) {
      return ResourceExhausted(MemoryError(problem, "the strategies that fit each node do not fit together"));
    }
    return InternalError("the Alpa ILP has no feasible solution");
  }
  const bool time_limit = Cbc_isSecondsLimitReached(model) != 0;
  if (best == nullptr) {
    if (Cbc_isNodeLimitReached(model) || time_limit) {
      return FailedPrecondition(
          "CBC found no feasible sharding within " +
          (time_limit ? "the time limit of " + std::to_string(limits.time_limit_s) + " s"
                      : "the node budget of " + std::to_string(node_budget) + " nodes"));
    }
    return InternalError("CBC failed on the Alpa ILP (Cbc_solve returned " + std::to_string(code) + ", status " +
                         std::to_string(Cbc_status(model)) + ")");
  }

  AlpaSolution solution;
  solution.stop = Cbc_isProvenOptimal(model) ? AlpaStop::kOptimal
                  : time_limit               ? AlpaStop::kTimeLimit
                                             : AlpaStop::kNodeBudget;
  solution.nodes = Cbc_getNodeCount(model);
  solution.node_budget = node_budget;
  solution.variables = columns;
  solution.constraints = rows;
  solution.solve_time_s = elapsed;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    int picked = 0;
    double value = -1;
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) {
      if (best[first_x[v] + s] > value) {
        value = best[first_x[v] + s];
        picked = s;
      }
    }
    solution.choice.push_back(picked);
  }
  // The objective from the data, not CBC's scaled and rounded copy.
  solution.objective_s = EvaluateAlpa(problem, solution.choice);
  if (!solution.optimal() && solution.objective_s > 0) {
    const double bound_s = Cbc_getBestPossibleObjValue(model) / kObjectiveScale;
    solution.gap = std::max(0.0, (solution.objective_s - bound_s) / solution.objective_s);
  }
  return solution;
}

}  // namespace az::search
