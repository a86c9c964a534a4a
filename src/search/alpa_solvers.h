// The Alpa ILP as a plain sparse matrix, and the two MILP solvers that take
// it: GLPK (alpa_glpk.cc) and CBC (alpa_cbc.cc). Internal to src/search:
// SolveAlpaProblem (alpa_ilp.cc) builds the matrix, picks the solver by size
// (docs/alpa.md: "The solve") and reads the choice back.
//
// Both solvers stop at a node budget (deterministic: same matrix, same
// budget, same outcome) or at a wall-clock safety net, and say which.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "search/alpa.h"

namespace az::search::alpa_internal {

struct IlpRow {
  std::vector<std::pair<int, double>> entries;  // (column, coefficient), columns ascending, no zeros
  bool equality = true;                         // true: sum == upper; false: sum <= upper
  double upper = 0;
};

struct IlpMatrix {
  int columns = 0;
  int binary_columns = 0;          // the first columns are binary; the rest continuous in [0, 1]
  std::vector<double> objective;   // by column, minimized
  std::vector<IlpRow> rows;
};

struct IlpOutcome {
  std::vector<double> values;  // by column; empty: no feasible solution found
  bool proven_infeasible = false;
  AlpaStop stop = AlpaStop::kOptimal;  // why the search ended (with `values` empty: which limit)
  // The best objective bound, when stopped short of optimal (NaN: unknown).
  double bound = std::numeric_limits<double>::quiet_NaN();
  int64_t nodes = 0;                   // branch-and-bound nodes explored after the root
  double wait_s = 0;                   // spent waiting for another thread's solve (CBC), not solving
};

// GLPK's branch and bound (presolve on), stopped by a callback after
// `node_budget` subproblems past the root; `time_limit_s` is GLPK's tm_lim.
StatusOr<IlpOutcome> SolveWithGlpk(const IlpMatrix& matrix, int64_t node_budget, double time_limit_s);

// CBC, single-threaded, branch and bound without preprocessing, cuts or
// heuristics (alpa_cbc.cc says why), maxNodes = `node_budget`, an
// elapsed-time limit of `time_limit_s`, and, when `warm_start` is not empty (one
// value per binary column), that choice as its first incumbent.
StatusOr<IlpOutcome> SolveWithCbc(const IlpMatrix& matrix, int64_t node_budget, double time_limit_s,
                                  const std::vector<double>& warm_start);

}  // namespace az::search::alpa_internal
