// The Alpa ILP in CBC (alpa_solvers.h): Cbc_C_Interface, single-threaded so
// that a node budget (maxNodes) makes the outcome a function of the matrix
// alone. The time limit is in elapsed seconds and is only a safety net.
//
// Preprocessing, cuts and heuristics are off: on the training steps' 2D ILPs
// (300,000 columns) their root work is what costs. HunyuanVideo 960x544x61
// training on a=2,b=4 (memory-bound, fractional root LP): CbcMain1's default
// strategy ran its feasibility pump and cut passes for 300 s without closing
// the root; without them, its LP (3 s) and 16 nodes of branching proved the
// optimum in 15 s of CPU. The incumbent a heuristic would find comes instead
// from the per-mesh-axis decomposition (`start`).
#include <Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <limits>
#include <string>

#include "search/alpa_solvers.h"

namespace az::search::alpa_internal {

StatusOr<IlpOutcome> SolveWithCbc(const IlpMatrix& matrix, int64_t node_budget, double time_limit_s,
                                  const std::vector<double>& warm_start) {
  // Column-major, as Cbc_loadProblem wants it.
  std::vector<std::vector<std::pair<int, double>>> by_column(static_cast<size_t>(matrix.columns));
  std::vector<double> row_lower, row_upper;
  for (size_t r = 0; r < matrix.rows.size(); ++r) {
    const IlpRow& row = matrix.rows[r];
    for (const auto& [column, value] : row.entries) by_column[static_cast<size_t>(column)].push_back({int(r), value});
    row_lower.push_back(row.equality ? row.upper : -std::numeric_limits<double>::max());
    row_upper.push_back(row.upper);
  }
  std::vector<CoinBigIndex> start = {0};
  std::vector<int> index;
  std::vector<double> value;
  for (const auto& column : by_column) {
    for (const auto& [row, v] : column) {
      index.push_back(row);
      value.push_back(v);
    }
    start.push_back(static_cast<CoinBigIndex>(index.size()));
  }
  const std::vector<double> lower(static_cast<size_t>(matrix.columns), 0.0), upper(static_cast<size_t>(matrix.columns), 1.0);

  // One CBC solve at a time: the planner solves meshes on several threads
  // (baseline_sources.cc), and Cbc_solve runs CBC's command-line driver
  // (CbcMain1), which CBC 2.10 does not document as reentrant. GLPK keeps
  // its state per thread (Debian builds it with TLS), so its solves overlap.
  static std::mutex cbc_mutex;
  const auto asked = std::chrono::steady_clock::now();
  const std::lock_guard<std::mutex> one_at_a_time(cbc_mutex);
  const double wait_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  // Owned for the solve: deleted on every return.
  const std::unique_ptr<Cbc_Model, decltype(&Cbc_deleteModel)> holder(Cbc_newModel(), &Cbc_deleteModel);
  Cbc_Model* model = holder.get();
  Cbc_loadProblem(model, matrix.columns, static_cast<int>(matrix.rows.size()), start.data(), index.data(), value.data(),
                  lower.data(), upper.data(), matrix.objective.data(), row_lower.data(), row_upper.data());
  for (int column = 0; column < matrix.binary_columns; ++column) Cbc_setInteger(model, column);
  Cbc_setObjSense(model, 1);  // minimize
  Cbc_setLogLevel(model, 0);
  Cbc_setMaximumNodes(model, static_cast<int>(std::min<int64_t>(node_budget, std::numeric_limits<int>::max())));
  Cbc_setParameter(model, "timeMode", "elapsed");
  Cbc_setParameter(model, "preprocess", "off");
  Cbc_setParameter(model, "cutsOnOff", "off");
  Cbc_setParameter(model, "heuristicsOnOff", "off");
  // No strong branching: the node budget (AlpaNodeBudget) counts one LP of
  // the whole problem per node, and CBC's default strong branching solves up
  // to ten more per node. On a memory-tight training ILP (Wan 2.1 14B, one
  // 480p clip on v5p:2x2x1, mesh 2x2, 4,262 strategies) a 23-node budget took
  // 270 s with it and 5 s without, with the same outcome; the goldens and the
  // paper's grid plan the same with and without.
  Cbc_setParameter(model, "strongBranching", "0");
  if (!warm_start.empty()) {
    std::vector<int> columns;
    for (int column = 0; column < matrix.binary_columns; ++column) columns.push_back(column);
    Cbc_setMIPStartI(model, matrix.binary_columns, columns.data(), warm_start.data());
  }
  Cbc_setMaximumSeconds(model, std::clamp(time_limit_s, 0.001, 1e6));
  const int code = Cbc_solve(model);

  IlpOutcome outcome;
  outcome.wait_s = wait_s;
  outcome.nodes = Cbc_getNodeCount(model);
  const double* best = Cbc_bestSolution(model);
  if (Cbc_isProvenInfeasible(model) || (best == nullptr && Cbc_isProvenOptimal(model))) {
    outcome.proven_infeasible = true;
    return outcome;
  }
  const bool time_limit = Cbc_isSecondsLimitReached(model) != 0;
  if (best == nullptr) {
    if (Cbc_isNodeLimitReached(model) || time_limit) {  // stopped before any feasible point
      outcome.stop = time_limit ? AlpaStop::kTimeLimit : AlpaStop::kNodeBudget;
      return outcome;
    }
    return InternalError("CBC failed on the Alpa ILP (Cbc_solve returned " + std::to_string(code) + ", status " +
                         std::to_string(Cbc_status(model)) + ")");
  }
  outcome.stop = Cbc_isProvenOptimal(model) ? AlpaStop::kOptimal
                 : time_limit               ? AlpaStop::kTimeLimit
                                            : AlpaStop::kNodeBudget;
  outcome.bound = Cbc_getBestPossibleObjValue(model);
  outcome.values.assign(best, best + matrix.columns);
  return outcome;
}

}  // namespace az::search::alpa_internal
