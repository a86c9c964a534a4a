// What an importer knows of a constant mask's values, in a form both
// importers share and the attention fold (fold_mask.cc) reads.
//
// PIR constants carry no values. A mask a framework writes as a tensor (a
// causal or sliding-window mask stored as an initializer or a Constant node,
// `torch.tril(torch.ones(L, L))` traced into the file, an additive mask of 0
// and -inf) is recognized by its values at import: ConstantBandOf reads them
// and, where the tensor holds one value on a band of its last two dims and
// another elsewhere, the importer records the band (ImportedProgram::bands)
// for the leaf it creates. The fold then reads the leaf as a causal or window
// mask exactly as it reads iota arithmetic from StableHLO.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "pir/ir/types.h"

namespace az::frontend {

// A tensor of rank >= 2 whose element at (.., i, j) (i over `row_dim`, j over
// `col_dim`, the last two dims) is `inside` when lo <= i - j <= hi and
// `outside` otherwise, the same for every index of the other dims. lo and hi
// are kNoBandLimit when unbounded on that side.
struct ConstantBand {
  static constexpr int64_t kNoBandLimit = std::numeric_limits<int64_t>::max() / 4;
  int64_t row_dim = 0, col_dim = 1;
  int64_t lo = -kNoBandLimit, hi = kNoBandLimit;
  double inside = 1, outside = 0;
};

// The band `values` (row-major, of `shape`) form, or nullopt: rank below 2,
// one value everywhere (a splat), more than two values, or a set of positions
// that is no band of i - j. NaN is no value of a band.
std::optional<ConstantBand> ConstantBandOf(const std::vector<double>& values, const pir::Shape& shape);

// The same read one value at a time (row-major over `shape`), in memory
// O(rows + cols), so that a large tensor (a mask buffer of a million
// elements) is read without being copied and a weight is given up on at its
// third distinct value: Add returns false once the values can be neither a
// splat nor a band.
class ConstantBandReader {
 public:
  explicit ConstantBandReader(const pir::Shape& shape);
  bool Add(double value);
  // After every value: one value everywhere, else the band, else nothing.
  std::optional<double> Splat() const;
  std::optional<ConstantBand> Band() const;

 private:
  int64_t rank_ = 0, rows_ = 0, cols_ = 0, seen_ = 0, total_ = 0;
  bool failed_ = false;
  std::optional<double> first_, second_;  // the first value, and the other one
  std::vector<signed char> holds_;        // per i - j + cols - 1: 1 first value, 0 the other, -1 unseen
};

}  // namespace az::frontend
