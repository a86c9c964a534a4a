// ConstantBandOf and ConstantBandReader (constant_band.h): one pass over the values.
#include "frontend/import/constant_band.h"

#include <cmath>

#include "support/checked_math.h"

namespace az::frontend {

ConstantBandReader::ConstantBandReader(const pir::Shape& shape) {
  auto total = CheckedProduct(shape);
  if (shape.size() < 2 || !total || shape[shape.size() - 2] <= 0 || shape.back() <= 0) {
    failed_ = true;
    return;
  }
  rank_ = static_cast<int64_t>(shape.size());
  rows_ = shape[shape.size() - 2];
  cols_ = shape.back();
  total_ = *total;
  holds_.assign(static_cast<size_t>(rows_ + cols_ - 1), -1);
}

bool ConstantBandReader::Add(double value) {
  if (failed_) return false;
  if (std::isnan(value) || seen_ >= total_) return !(failed_ = true);
  const int64_t at = seen_++ % (rows_ * cols_);
  const int64_t i = at / cols_, j = at % cols_;
  if (!first_) first_ = value;
  signed char is_first = value == *first_ ? 1 : 0;
  if (!is_first) {
    if (!second_) second_ = value;
    if (value != *second_) return !(failed_ = true);  // a third value
  }
  // Within each plane over the last two dims, the value is a function of
  // i - j (every plane then repeats the first: the same function).
  signed char& h = holds_[static_cast<size_t>(i - j + cols_ - 1)];
  if (h < 0) h = is_first;
  if (h != is_first) return !(failed_ = true);
  return true;
}

std::optional<double> ConstantBandReader::Splat() const {
  if (failed_ || seen_ != total_ || second_) return std::nullopt;
  return first_;
}

std::optional<ConstantBand> ConstantBandReader::Band() const {
  if (failed_ || seen_ != total_ || !second_) return std::nullopt;
  // `inside` is the value at i - j = 0 (the first element); the differences
  // holding it must be one interval containing 0.
  ConstantBand band;
  band.row_dim = rank_ - 2;
  band.col_dim = rank_ - 1;
  band.inside = *first_;
  band.outside = *second_;
  auto holds = [&](int64_t d) { return holds_[static_cast<size_t>(d + cols_ - 1)] == 1; };
  int64_t lo = 0, hi = 0;
  while (lo - 1 >= -(cols_ - 1) && holds(lo - 1)) --lo;
  while (hi + 1 <= rows_ - 1 && holds(hi + 1)) ++hi;
  for (int64_t d = -(cols_ - 1); d <= rows_ - 1; ++d) {
    if ((d >= lo && d <= hi) != holds(d)) return std::nullopt;
  }
  // A band reaching the matrix's edge is unbounded on that side.
  band.lo = lo == -(cols_ - 1) ? -ConstantBand::kNoBandLimit : lo;
  band.hi = hi == rows_ - 1 ? ConstantBand::kNoBandLimit : hi;
  return band;
}

std::optional<ConstantBand> ConstantBandOf(const std::vector<double>& values, const pir::Shape& shape) {
  ConstantBandReader reader(shape);
  for (double v : values) {
    if (!reader.Add(v)) return std::nullopt;
  }
  return reader.Band();
}

}  // namespace az::frontend
