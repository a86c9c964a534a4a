#include "price/compute_fit.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>

#include "support/csv.h"

namespace az::price {

namespace {

using support::CsvRow;
using support::CsvTable;
using support::LineError;
using support::ReadCsv;

using support::ParseInteger;
using support::ParseNumber;

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

ComputeCalibration UnfittedComputeCalibration(const hw::ChipSpec& chip) {
  ComputeCalibration c = DefaultComputeCalibration(chip);
  // The catalog's fitted_compute overrides only these and the source.
  const ComputeCalibration documented;
  c.matmul_efficiency = documented.matmul_efficiency;
  c.attention_efficiency = documented.attention_efficiency;
  c.convolution_efficiency = documented.convolution_efficiency;
  c.source = documented.source;
  return c;
}

ComputeCalibration ScaleTensorEfficiencies(const ComputeCalibration& start, double scale) {
  ComputeCalibration c = start;
  c.matmul_efficiency = std::min(1.0, scale * start.matmul_efficiency);
  c.attention_efficiency = std::min(1.0, scale * start.attention_efficiency);
  c.convolution_efficiency = std::min(1.0, scale * start.convolution_efficiency);
  return c;
}

// ---------------------------------------------------------------- kernel timings

StatusOr<std::vector<KernelTiming>> ReadKernelTimings(std::string_view text, std::string_view file_name) {
  AZ_ASSIGN_OR_RETURN(CsvTable table, ReadCsv(text, file_name, {"kind", "flops", "bytes", "time_us"}));
  std::vector<KernelTiming> out;
  for (const CsvRow& csv : table.rows) {
    auto cell = [&](const char* name) -> const std::string& { return csv.cells[table.column.at(name)]; };
    auto fail = [&](const std::string& message) { return LineError(file_name, csv.line, message); };
    KernelTiming row;
    row.line = csv.line;
    auto kind = cir::ParseKernelKind(cell("kind"));
    if (!kind) {
      return fail("unknown kernel kind '" + cell("kind") +
                  "' (matmul, attention, convolution, elementwise, norm, reduce, copy, custom)");
    }
    row.kind = *kind;
    auto flops = ParseNumber(cell("flops"));
    if (!flops || *flops < 0 || *flops > 1e18) return fail("flops '" + cell("flops") + "' is not a count in [0, 1e18]");
    row.flops = Flops(std::llround(*flops));
    auto bytes = ParseNumber(cell("bytes"));
    if (!bytes || *bytes < 0 || *bytes > 1e15) return fail("bytes '" + cell("bytes") + "' is not a size in [0, 1e15]");
    row.bytes = Bytes(std::llround(*bytes));
    auto time = ParseNumber(cell("time_us"));
    if (!time || *time <= 0 || *time > 1e12) return fail("time_us '" + cell("time_us") + "' is not a positive time");
    row.time = Seconds(*time * 1e-6);
    if (table.column.count("dims") && !cell("dims").empty()) {
      const std::string& text_dims = cell("dims");
      size_t pos = 0;
      while (pos <= text_dims.size()) {
        size_t x = text_dims.find('x', pos);
        std::string part = text_dims.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
        auto dim = ParseInteger(part);
        if (!dim || *dim < 1 || *dim > (int64_t{1} << 40)) {
          return fail("dims '" + text_dims + "': '" + part + "' is not a dimension in [1, 2^40]");
        }
        row.dims.push_back(*dim);
        if (x == std::string::npos) break;
        pos = x + 1;
      }
      if (row.dims.size() != 4) {
        return fail("dims '" + text_dims + "' has " + std::to_string(row.dims.size()) +
                    " entries; the compute model reads 4 (matmul batch x m x n x k, attention "
                    "batch*heads x q x kv x head dim)");
      }
    }
    out.push_back(std::move(row));
  }
  return out;
}

namespace {

// The kernel fit's parameters: t = overhead + max(a[group] * X, b * Y).
enum Param { kOverhead, kMatmulInv, kAttentionInv, kConvolutionInv, kVectorInv, kMemoryInv, kNumParams };
constexpr std::array<const char*, kNumParams> kParamNames = {
    "kernel_overhead", "matmul_efficiency", "attention_efficiency", "convolution_efficiency", "vector_fraction",
    "memory_efficiency"};

Param GroupOf(cir::KernelKind kind) {
  switch (kind) {
    case cir::KernelKind::kMatmul: return kMatmulInv;
    case cir::KernelKind::kAttention: return kAttentionInv;
    case cir::KernelKind::kConvolution: return kConvolutionInv;
    default: return kVectorInv;
  }
}

// Least squares min |A x - y|^2 over the columns in `free` (the other entries of
// x are given and their contribution moved to the right-hand side). Columns are
// scaled to unit norm before the normal equations; false when they are
// linearly dependent.
bool SolveLeastSquares(const std::vector<std::array<double, kNumParams>>& a, const std::vector<double>& y,
                       const std::vector<int>& free, std::array<double, kNumParams>& x) {
  size_t n = free.size();
  std::vector<double> rhs(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    rhs[i] = y[i];
    for (int p = 0; p < kNumParams; ++p) {
      if (std::find(free.begin(), free.end(), p) == free.end()) rhs[i] -= a[i][p] * x[p];
    }
  }
  std::vector<double> norm(n, 0);
  for (size_t j = 0; j < n; ++j) {
    for (const auto& row : a) norm[j] += row[free[j]] * row[free[j]];
    norm[j] = std::sqrt(norm[j]);
    if (norm[j] == 0) return false;
  }
  // Normal equations of the scaled columns, augmented with the right-hand side.
  std::vector<std::vector<double>> m(n, std::vector<double>(n + 1, 0));
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; j < n; ++j) {
      double aj = a[i][free[j]] / norm[j];
      for (size_t k = 0; k < n; ++k) m[j][k] += aj * a[i][free[k]] / norm[k];
      m[j][n] += aj * rhs[i];
    }
  }
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::abs(m[r][col]) > std::abs(m[pivot][col])) pivot = r;
    }
    if (std::abs(m[pivot][col]) < 1e-10) return false;
    std::swap(m[col], m[pivot]);
    for (size_t r = 0; r < n; ++r) {
      if (r == col) continue;
      double factor = m[r][col] / m[col][col];
      for (size_t k = col; k <= n; ++k) m[r][k] -= factor * m[col][k];
    }
  }
  for (size_t j = 0; j < n; ++j) x[free[j]] = m[j][n] / m[j][j] / norm[j];
  return true;
}

}  // namespace

StatusOr<KernelFitReport> FitKernelTimings(const hw::ChipSpec& chip, const std::vector<KernelTiming>& rows,
                                           const ComputeCalibration& start) {
  AZ_ASSIGN_OR_RETURN(ComputeModel start_model, ComputeModel::Create(chip, start));
  if (rows.empty()) return InvalidArgument("no kernel timings to fit");
  size_t n = rows.size();
  // X: seconds at efficiency 1 (padding does not depend on the efficiencies);
  // Y: seconds at memory efficiency 1.
  std::vector<double> compute(n), memory(n);
  for (size_t i = 0; i < n; ++i) {
    KernelTime t = start_model.Time(rows[i].kind, rows[i].flops, rows[i].bytes, rows[i].dims);
    compute[i] = static_cast<double>(rows[i].flops.value()) * t.padding / start_model.peak().value();
    memory[i] = static_cast<double>(rows[i].bytes.value()) / start_model.hbm_bandwidth().value();
  }
  std::array<double, kNumParams> x = {start.kernel_overhead.value(), 1 / start.matmul_efficiency,
                                      1 / start.attention_efficiency, 1 / start.convolution_efficiency,
                                      1 / start.vector_fraction, 1 / start.memory_efficiency};
  const std::array<double, kNumParams> initial = x;
  const std::array<double, kNumParams> lower = {0, 1, 1, 1, 1, 1};
  auto classify = [&](const std::array<double, kNumParams>& p) {
    std::vector<bool> memory_bound(n);
    for (size_t i = 0; i < n; ++i) memory_bound[i] = p[kMemoryInv] * memory[i] > p[GroupOf(rows[i].kind)] * compute[i];
    return memory_bound;
  };
  auto objective = [&](const std::array<double, kNumParams>& p) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      double t = p[kOverhead] + std::max(p[GroupOf(rows[i].kind)] * compute[i], p[kMemoryInv] * memory[i]);
      double e = (t - rows[i].time.value()) / rows[i].time.value();
      sum += e * e;
    }
    return sum;
  };
  std::vector<bool> bound = classify(x);
  std::array<double, kNumParams> best = x;
  double best_objective = objective(x);
  std::vector<int> best_free;
  int iterations = 0;
  constexpr int kMaxIterations = 50;
  for (; iterations < kMaxIterations; ++iterations) {
    // Rows weighted by 1 / t: the residual is the relative error.
    std::vector<std::array<double, kNumParams>> a(n);
    std::vector<double> y(n, 1.0);
    std::array<bool, kNumParams> used = {true, false, false, false, false, false};
    for (size_t i = 0; i < n; ++i) {
      double w = 1 / rows[i].time.value();
      a[i].fill(0);
      a[i][kOverhead] = w;
      if (bound[i]) {
        a[i][kMemoryInv] = memory[i] * w;
        used[kMemoryInv] = used[kMemoryInv] || memory[i] > 0;
      } else {
        a[i][GroupOf(rows[i].kind)] = compute[i] * w;
        used[GroupOf(rows[i].kind)] = used[GroupOf(rows[i].kind)] || compute[i] > 0;
      }
    }
    std::vector<int> free;
    for (int p = 0; p < kNumParams; ++p) {
      if (used[p]) free.push_back(p);
    }
    if (free.size() > n) {
      return InvalidArgument(std::to_string(n) + " kernel timings cannot determine " + std::to_string(free.size()) +
                             " parameters (the overhead and one per kind group and for memory)");
    }
    // What these rows do not determine keeps the start's value.
    std::array<double, kNumParams> next = x;
    for (int p = 0; p < kNumParams; ++p) {
      if (!used[p]) next[p] = initial[p];
    }
    // Active set: a parameter past its bound is fixed there and the rest re-solved.
    std::vector<int> solve = free;
    while (true) {
      if (!SolveLeastSquares(a, y, solve, next)) {
        return InvalidArgument("the kernel timings do not determine the parameters: give rows of several "
                               "sizes per kind");
      }
      int worst = -1;
      for (int p : solve) {
        if (next[p] < lower[p] && (worst < 0 || lower[p] - next[p] > lower[worst] - next[worst])) worst = p;
      }
      if (worst < 0) break;
      next[worst] = lower[worst];
      solve.erase(std::find(solve.begin(), solve.end(), worst));
      if (solve.empty()) break;
    }
    x = next;
    double value = objective(x);
    if (value < best_objective || best_free.empty()) {
      best = x;
      best_objective = value;
      best_free = free;
    }
    std::vector<bool> reclassified = classify(x);
    if (reclassified == bound) {
      ++iterations;
      break;
    }
    bound = reclassified;
  }
  ComputeCalibration c = start;
  c.kernel_overhead = Seconds(best[kOverhead]);
  c.matmul_efficiency = 1 / best[kMatmulInv];
  c.attention_efficiency = 1 / best[kAttentionInv];
  c.convolution_efficiency = 1 / best[kConvolutionInv];
  c.vector_fraction = 1 / best[kVectorInv];
  c.memory_efficiency = 1 / best[kMemoryInv];
  c.chip = chip.name;
  AZ_ASSIGN_OR_RETURN(ComputeModel model, ComputeModel::Create(chip, c));
  KernelFitReport report;
  report.calibration = c;
  for (int p : best_free) report.fitted.push_back(kParamNames[p]);
  report.iterations = iterations;
  std::vector<double> errors;
  for (const KernelTiming& row : rows) {
    KernelTime t = model.Time(row.kind, row.flops, row.bytes, row.dims);
    KernelFitPoint point{row, t.time, (t.time.value() - row.time.value()) / row.time.value(), t.memory_bound};
    errors.push_back(std::abs(point.relative_error));
    report.points.push_back(std::move(point));
  }
  report.median_abs_error = Median(errors);
  return report;
}

}  // namespace az::price
