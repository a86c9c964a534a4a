// Fitting the compute model (compute.h) to kernel timings, and the
// calibration every whole-video fit starts from.
//
// The whole-video fit of published DiT latencies compiles zoo graphs, so it
// lives above the planner, in fidelity/video_fit.h; what it needs from here is
// UnfittedComputeCalibration and ScaleTensorEfficiencies.
//
// Kernel timings (CSV: kind, flops, bytes, time_us, optional dims
// "1x4096x4096x4096"; '#' comments). Writing the model as
//   t = overhead + max(a[kind] * X, b * Y),  X = F_eff / peak, Y = B / hbm_bw,
// with a = 1 / efficiency and b = 1 / memory_efficiency, a row is linear in
// the parameters once it is known whether it is compute- or memory-bound.
// The fit alternates: classify each row under the current parameters, solve
// the least-squares problem on relative error (rows weighted by 1 / t) with
// efficiencies <= 1 and overhead >= 0 (active set), repeat until the
// classification is stable. Fitted: the efficiency of every kind group with
// compute-bound rows (matmul, attention, convolution; the other kinds share
// vector_fraction), memory_efficiency when there are memory-bound rows, and
// the one shared kernel_overhead. Tiles and SM counts stay as in `start`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "evidence/evidence.h"
#include "hw/chip.h"
#include "price/compute.h"
#include "support/status.h"
#include "support/units.h"

namespace az::price {

// The calibration the DiT fit starts from: DefaultComputeCalibration without
// the shipped fitted values (hw::ChipSpec::fitted_compute), i.e. the documented
// tensor-core efficiencies 0.75 / 0.6 / 0.6.
ComputeCalibration UnfittedComputeCalibration(const hw::ChipSpec& chip);
// matmul, attention and convolution efficiencies each min(1, scale * start's).
ComputeCalibration ScaleTensorEfficiencies(const ComputeCalibration& start, double scale);


struct KernelTiming {
  cir::KernelKind kind = cir::KernelKind::kMatmul;
  Flops flops;
  Bytes bytes;
  std::vector<int64_t> dims;  // empty or 4 entries (compute.h)
  Seconds time;
  int line = 0;
};

StatusOr<std::vector<KernelTiming>> ReadKernelTimings(std::string_view text, std::string_view file_name);

struct KernelFitPoint {
  KernelTiming timing;
  Seconds predicted;
  double relative_error = 0;  // (predicted - measured) / measured
  bool memory_bound = false;
};

struct KernelFitReport {
  ComputeCalibration calibration;
  std::vector<KernelFitPoint> points;  // in input order
  // Parameter names the timings determined ("matmul_efficiency",
  // "memory_efficiency", "kernel_overhead", ...); the others keep start's.
  std::vector<std::string> fitted;
  double median_abs_error = 0;
  int iterations = 0;
};

// Fails when the chip cannot be priced, or the rows cannot determine the
// parameters (fewer rows than parameters, or rows that do not tell them apart).
StatusOr<KernelFitReport> FitKernelTimings(const hw::ChipSpec& chip, const std::vector<KernelTiming>& rows,
                                           const ComputeCalibration& start);

}  // namespace az::price
