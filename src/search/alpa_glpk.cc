// The Alpa ILP in GLPK (alpa_solvers.h). The node budget is a glp_ios
// callback: at each GLP_ISELECT (a subproblem finished, the next one to be
// chosen) it counts one node and past the budget records the gap and the best
// bound and calls glp_ios_terminate. No clock is read, so the incumbent it
// stops at depends on the problem alone; tm_lim stays as the safety net.
#include <glpk.h>

#include <algorithm>
#include <memory>
#include <string>

#include "search/alpa_solvers.h"

namespace az::search::alpa_internal {

namespace {

struct NodeBudget {
  int64_t budget = 0;
  int64_t nodes = 0;
  bool hit = false;
  double bound = 0;
};

// The best bound is kept at every selection, so that a stop at the time
// limit (which the callback does not see) can report its gap too.
void CountNodes(glp_tree* tree, void* info) {
  if (glp_ios_reason(tree) != GLP_ISELECT) return;
  auto& budget = *static_cast<NodeBudget*>(info);
  const int best = glp_ios_best_node(tree);
  if (best != 0) budget.bound = glp_ios_node_bound(tree, best);
  if (budget.nodes < budget.budget) {
    ++budget.nodes;
    return;
  }
  budget.hit = true;
  glp_ios_terminate(tree);
}

StatusOr<IlpOutcome> Solve(const IlpMatrix& matrix, int64_t node_budget, double time_limit_s) {
  // Owned for the solve: deleted on every return.
  const std::unique_ptr<glp_prob, decltype(&glp_delete_prob)> holder(glp_create_prob(), &glp_delete_prob);
  glp_prob* lp = holder.get();
  glp_set_obj_dir(lp, GLP_MIN);
  glp_add_cols(lp, matrix.columns);
  for (int column = 0; column < matrix.columns; ++column) {
    if (column < matrix.binary_columns) {
      glp_set_col_kind(lp, column + 1, GLP_BV);
    } else {
      glp_set_col_bnds(lp, column + 1, GLP_DB, 0.0, 1.0);
    }
    glp_set_obj_coef(lp, column + 1, matrix.objective[static_cast<size_t>(column)]);
  }
  // Row by row, 1-based, as glp_load_matrix wants them.
  std::vector<int> rows = {0}, columns = {0};
  std::vector<double> values = {0.0};
  glp_add_rows(lp, static_cast<int>(matrix.rows.size()));
  for (size_t r = 0; r < matrix.rows.size(); ++r) {
    const IlpRow& row = matrix.rows[r];
    const int index = static_cast<int>(r) + 1;
    if (row.equality) {
      glp_set_row_bnds(lp, index, GLP_FX, row.upper, row.upper);
    } else {
      glp_set_row_bnds(lp, index, GLP_UP, 0.0, row.upper);
    }
    for (const auto& [column, value] : row.entries) {
      rows.push_back(index);
      columns.push_back(column + 1);
      values.push_back(value);
    }
  }
  glp_load_matrix(lp, static_cast<int>(rows.size()) - 1, rows.data(), columns.data(), values.data());

  NodeBudget budget;
  budget.budget = node_budget;
  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.presolve = GLP_ON;
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.tm_lim = static_cast<int>(std::clamp(time_limit_s, 0.001, 1e6) * 1000);
  parameters.cb_func = CountNodes;
  parameters.cb_info = &budget;
  const int code = glp_intopt(lp, &parameters);
  const int status = glp_mip_status(lp);
  IlpOutcome outcome;
  outcome.nodes = budget.nodes;
  if (code == GLP_ENOPFS || status == GLP_NOFEAS) {
    outcome.proven_infeasible = true;
    return outcome;
  }
  if (status != GLP_OPT && status != GLP_FEAS) {
    if (code == GLP_ETMLIM || code == GLP_ESTOP) {  // stopped before any feasible point
      outcome.stop = code == GLP_ETMLIM ? AlpaStop::kTimeLimit : AlpaStop::kNodeBudget;
      return outcome;
    }
    return InternalError("GLPK failed on the Alpa ILP (glp_intopt returned " + std::to_string(code) + ")");
  }
  outcome.stop = status == GLP_OPT && code == 0 ? AlpaStop::kOptimal
                 : code == GLP_ETMLIM           ? AlpaStop::kTimeLimit
                                                : AlpaStop::kNodeBudget;
  if (outcome.stop == AlpaStop::kOptimal) {
    outcome.bound = glp_mip_obj_val(lp);
  } else if (budget.nodes > 0 || budget.hit) {
    outcome.bound = budget.bound;
  }  // else stopped by the clock before a first selection: no bound known
  outcome.values.resize(static_cast<size_t>(matrix.columns));
  for (int column = 0; column < matrix.binary_columns; ++column) {
    outcome.values[static_cast<size_t>(column)] = glp_mip_col_val(lp, column + 1);
  }
  return outcome;
}

}  // namespace

StatusOr<IlpOutcome> SolveWithGlpk(const IlpMatrix& matrix, int64_t node_budget, double time_limit_s) {
  StatusOr<IlpOutcome> outcome = Solve(matrix, node_budget, time_limit_s);
  // GLPK keeps an environment per thread (TLS), made by its first call on
  // that thread and freed only by glp_free_env: the planner solves meshes on
  // worker threads that then end, so it is freed here (the problem is
  // deleted already; the next solve makes a new one).
  glp_free_env();
  return outcome;
}

}  // namespace az::search::alpa_internal
