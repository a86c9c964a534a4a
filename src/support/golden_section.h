// Golden-section search for the minimum of a unimodal function on [lo, hi].
// A fixed number of steps (the interval shrinks by 0.618 each) keeps it
// deterministic: the default 90 steps leave 0.618^90 ~ 1.6e-19 of the
// interval, double precision; 40 leave 4e-9. Used by the compute fits (price/compute_fit.cc,
// fidelity/scaling.cc).
#pragma once

#include <cmath>

namespace az {

template <typename F>
double GoldenSection(F f, double lo, double hi, int steps = 90) {
  const int kSteps = steps;
  const double inv_phi = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - inv_phi * (hi - lo), x2 = lo + inv_phi * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int step = 0; step < kSteps; ++step) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - inv_phi * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + inv_phi * (hi - lo);
      f2 = f(x2);
    }
  }
  return (lo + hi) / 2;
}

}  // namespace az
