// The Alpa ILP (alpa.h) in GLPK, and the evaluator every solver is checked against.
//
// Columns: x[v][s] binary, then e[u,v][s][t] continuous in [0, 1]. Rows: one
// "pick one" row per node, the marginal rows of every edge, and one memory
// row per node when there is a limit. GLPK works in scaled units (objective
// in microseconds, memory in MiB) so that its absolute tolerances (1e-7 on
// reduced costs) do not swallow nanosecond differences.
#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "search/alpa.h"

namespace az::search {

namespace {

constexpr double kObjectiveScale = 1e6;           // seconds -> microseconds
constexpr double kMemoryScale = 1.0 / (1 << 20);  // bytes -> MiB

// Owns a glp_prob for its lifetime.
class GlpkProblem {
 public:
  GlpkProblem() : problem_(glp_create_prob()) {}
  ~GlpkProblem() { glp_delete_prob(problem_); }
  GlpkProblem(const GlpkProblem&) = delete;
  GlpkProblem& operator=(const GlpkProblem&) = delete;
  glp_prob* get() const { return problem_; }

 private:
  glp_prob* problem_;
};

// Sparse rows, 1-based as glp_load_matrix wants them; duplicate entries of a row are summed.
class RowBuilder {
 public:
  void Add(int column, double value) { row_[column] += value; }
  void Flush(int row) {
    for (const auto& [column, value] : row_) {
      if (value == 0) continue;
      rows_.push_back(row);
      columns_.push_back(column);
      values_.push_back(value);
    }
    row_.clear();
  }
  void Load(glp_prob* problem) {
    rows_.insert(rows_.begin(), 0);
    columns_.insert(columns_.begin(), 0);
    values_.insert(values_.begin(), 0.0);
    glp_load_matrix(problem, static_cast<int>(rows_.size()) - 1, rows_.data(), columns_.data(), values_.data());
  }

 private:
  std::map<int, double> row_;
  std::vector<int> rows_, columns_;
  std::vector<double> values_;
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

StatusOr<AlpaSolution> SolveAlpaProblem(const AlpaProblem& problem, double time_limit_s) {
  const auto start = std::chrono::steady_clock::now();
  if (problem.nodes.empty()) return AlpaSolution{{}, 0, true, 0, 0, 0};
  if (problem.memory_limit_bytes > 0 && SmallestFootprint(problem) > problem.memory_limit_bytes) {
    return ResourceExhausted(MemoryError(problem, "even the smallest footprint is larger"));
  }
  GlpkProblem holder;
  glp_prob* lp = holder.get();
  glp_set_obj_dir(lp, GLP_MIN);

  // Columns.
  std::vector<int> first_x(problem.nodes.size());
  int columns = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    first_x[v] = columns + 1;
    columns += problem.nodes[v].num_strategies();
  }
  std::vector<int> first_e(problem.edges.size());
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    first_e[i] = columns + 1;
    columns += static_cast<int>(problem.edges[i].cost_s.size());
  }
  glp_add_cols(lp, columns);
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) {
      int column = first_x[v] + s;
      glp_set_col_kind(lp, column, GLP_BV);
      glp_set_obj_coef(lp, column, problem.nodes[v].cost_s[static_cast<size_t>(s)] * kObjectiveScale);
    }
  }
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    for (size_t k = 0; k < problem.edges[i].cost_s.size(); ++k) {
      int column = first_e[i] + static_cast<int>(k);
      glp_set_col_bnds(lp, column, GLP_DB, 0.0, 1.0);
      glp_set_obj_coef(lp, column, problem.edges[i].cost_s[k] * kObjectiveScale);
    }
  }

  // Rows.
  RowBuilder matrix;
  int rows = 0;
  auto add_row = [&](int type, double lower, double upper) {
    glp_add_rows(lp, 1);
    ++rows;
    glp_set_row_bnds(lp, rows, type, lower, upper);
    matrix.Flush(rows);
  };
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) matrix.Add(first_x[v] + s, 1.0);
    add_row(GLP_FX, 1.0, 1.0);
  }
  for (size_t i = 0; i < problem.edges.size(); ++i) {
    const AlpaEdge& edge = problem.edges[i];
    const int from_count = problem.nodes[static_cast<size_t>(edge.from)].num_strategies();
    const int to_count = problem.nodes[static_cast<size_t>(edge.to)].num_strategies();
    for (int s = 0; s < from_count; ++s) {
      for (int t = 0; t < to_count; ++t) matrix.Add(first_e[i] + s * to_count + t, 1.0);
      matrix.Add(first_x[static_cast<size_t>(edge.from)] + s, -1.0);
      add_row(GLP_FX, 0.0, 0.0);
    }
    for (int t = 0; t < to_count; ++t) {
      for (int s = 0; s < from_count; ++s) matrix.Add(first_e[i] + s * to_count + t, 1.0);
      matrix.Add(first_x[static_cast<size_t>(edge.to)] + t, -1.0);
      add_row(GLP_FX, 0.0, 0.0);
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
      add_row(GLP_UP, 0.0, problem.memory_limit_bytes * kMemoryScale);
    }
  }
  matrix.Load(lp);

  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.presolve = GLP_ON;
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.tm_lim = static_cast<int>(std::clamp(time_limit_s, 0.001, 1e6) * 1000);
  const int code = glp_intopt(lp, &parameters);
  const int status = glp_mip_status(lp);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (code == GLP_ENOPFS || status == GLP_NOFEAS) {
    if (problem.memory_limit_bytes > 0) {
      return ResourceExhausted(MemoryError(problem, "the strategies that fit each node do not fit together"));
    }
    return InternalError("the Alpa ILP has no feasible solution");
  }
  if (status != GLP_OPT && status != GLP_FEAS) {
    if (code == GLP_ETMLIM) {
      return FailedPrecondition("GLPK found no feasible sharding within the time limit of " +
                                std::to_string(time_limit_s) + " s");
    }
    return InternalError("GLPK failed on the Alpa ILP (glp_intopt returned " + std::to_string(code) + ")");
  }

  AlpaSolution solution;
  solution.optimal = status == GLP_OPT;
  solution.variables = columns;
  solution.constraints = rows;
  solution.solve_time_s = elapsed;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    int picked = 0;
    double best = -1;
    for (int s = 0; s < problem.nodes[v].num_strategies(); ++s) {
      double value = glp_mip_col_val(lp, first_x[v] + s);
      if (value > best) {
        best = value;
        picked = s;
      }
    }
    solution.choice.push_back(picked);
  }
  // The objective from the data, not GLPK's scaled and rounded copy.
  solution.objective_s = EvaluateAlpa(problem, solution.choice);
  return solution;
}

}  // namespace az::search
