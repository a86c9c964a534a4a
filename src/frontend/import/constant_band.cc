// ConstantBandOf (constant_band.h): one pass over the values.
#include "frontend/import/constant_band.h"

#include <algorithm>
#include <cmath>

namespace az::frontend {

std::optional<ConstantBand> ConstantBandOf(const std::vector<double>& values, const pir::Shape& shape) {
  if (shape.size() < 2) return std::nullopt;
  const int64_t rows = shape[shape.size() - 2], cols = shape[shape.size() - 1];
  if (rows <= 0 || cols <= 0) return std::nullopt;
  const size_t plane = static_cast<size_t>(rows * cols);
  if (values.empty() || values.size() % plane != 0) return std::nullopt;
  for (double v : values) {
    if (std::isnan(v)) return std::nullopt;
  }
  // Every plane over the last two dims is the first one.
  for (size_t at = plane; at < values.size(); at += plane) {
    if (!std::equal(values.begin(), values.begin() + static_cast<long>(plane), values.begin() + static_cast<long>(at))) {
      return std::nullopt;
    }
  }
  // The two values: `inside` is the one on the main diagonal's first element
  // (i - j = 0 at (0, 0)); the band is the set of differences holding it.
  ConstantBand band;
  band.row_dim = static_cast<int64_t>(shape.size()) - 2;
  band.col_dim = static_cast<int64_t>(shape.size()) - 1;
  band.inside = values[0];
  bool has_outside = false;
  // Per difference d = i - j in [-(cols - 1), rows - 1]: does it hold `inside`
  // everywhere (1), nowhere (0), or mixed (-1)?
  const int64_t span = rows + cols - 1;
  std::vector<int> holds(static_cast<size_t>(span), 2);  // 2: not seen yet
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const double v = values[static_cast<size_t>(i * cols + j)];
      int in = v == band.inside ? 1 : 0;
      if (!in) {
        if (!has_outside) band.outside = v, has_outside = true;
        if (v != band.outside) return std::nullopt;  // a third value
      }
      int& h = holds[static_cast<size_t>(i - j + cols - 1)];
      if (h == 2) h = in;
      if (h != in) return std::nullopt;  // not a function of i - j
    }
  }
  if (!has_outside) return std::nullopt;  // a splat
  // The differences holding `inside` must be one interval containing 0.
  int64_t lo = 0, hi = 0;
  while (lo - 1 >= -(cols - 1) && holds[static_cast<size_t>(lo - 1 + cols - 1)] == 1) --lo;
  while (hi + 1 <= rows - 1 && holds[static_cast<size_t>(hi + 1 + cols - 1)] == 1) ++hi;
  for (int64_t d = -(cols - 1); d <= rows - 1; ++d) {
    if ((d >= lo && d <= hi) != (holds[static_cast<size_t>(d + cols - 1)] == 1)) return std::nullopt;
  }
  // A band reaching the matrix's edge is unbounded on that side.
  band.lo = lo == -(cols - 1) ? -ConstantBand::kNoBandLimit : lo;
  band.hi = hi == rows - 1 ? ConstantBand::kNoBandLimit : hi;
  return band;
}

}  // namespace az::frontend
