// Integer arithmetic on sizes read from user input (a shape in a model file,
// a PIR attribute), where a product may overflow: the importers and the shape
// rules refuse such sizes as user errors instead of wrapping.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace az {

// The product of `dims` (1 for none); nullopt on a negative dim or when the
// product passes 2^62, which leaves headroom for byte counts of 2- and 4-byte
// elements.
inline std::optional<int64_t> CheckedProduct(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > (int64_t{1} << 62) / d) return std::nullopt;
    n *= d;
  }
  return n;
}

}  // namespace az
