// Constant folding of the small tensors ONNX shape plumbing computes on:
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, scalar arithmetic on dims
// (Div by the head count, Cast, Pow(d, 0.5) for the attention scale), Range,
// ConstantOfShape, Slice, Where, Equal.
//
// Once every symbolic dim is bound (ImportOptions::dims), every value's shape is
// known, so Shape yields a constant and the whole chain folds; the importer then
// emits no PIR op for it. Folding is bounded: a result of more than
// kMaxFoldElements elements is not folded (the op is emitted instead), and
// integer arithmetic that would overflow is not folded (never undefined behaviour).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "pir/ir/types.h"

namespace az::frontend::onnx {

constexpr int64_t kMaxFoldElements = 4096;

// The values of a small tensor, row-major: integer and bool types in `ints`,
// floating types in `floats`.
struct TensorData {
  bool is_float = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  size_t size() const { return is_float ? floats.size() : ints.size(); }
  double AsDouble(size_t i) const { return is_float ? floats[i] : static_cast<double>(ints[i]); }
  // Truncates floats; nullopt for NaN or out of the int64 range.
  std::optional<int64_t> AsInt(size_t i) const;
  static TensorData Ints(std::vector<int64_t> values);
};

// NumPy broadcasting of several shapes; nullopt when they do not broadcast.
std::optional<pir::Shape> BroadcastShapes(const std::vector<pir::Shape>& shapes);
// Product of dims; nullopt on a negative dim or overflow past 2^62.
std::optional<int64_t> CheckedNumElements(const pir::Shape& shape);

// Element-wise ops over broadcast operands: Add Sub Mul Div Pow Max Min Mod
// Equal Less Greater LessOrEqual GreaterOrEqual And Or Where Neg Abs Sqrt Exp
// Log Floor Ceil Not Reciprocal Sigmoid Tanh Erf Sin Cos Identity. `out_float`
// chooses float or integer arithmetic. nullopt: not foldable (unknown op,
// overflow, division by zero, too large).
std::optional<TensorData> FoldElementwise(std::string_view op, const std::vector<const TensorData*>& inputs,
                                          const std::vector<pir::Shape>& shapes, const pir::Shape& out_shape,
                                          bool out_float);

// Gather along `axis` (indices already range-checked by the caller or not:
// out-of-range indices give nullopt).
std::optional<TensorData> FoldGather(const TensorData& data, const pir::Shape& shape, const TensorData& indices,
                                     int64_t axis);
// Concat along `axis` of tensors of equal rank.
TensorData FoldConcat(const std::vector<const TensorData*>& inputs, const std::vector<pir::Shape>& shapes,
                      int64_t axis);
// A strided slice: per dim start, step (may be negative) and result size.
TensorData FoldSlice(const TensorData& data, const pir::Shape& shape, const std::vector<int64_t>& starts,
                     const std::vector<int64_t>& steps, const pir::Shape& out_shape);
// Broadcast `data` of `shape` to `out_shape` (right-aligned).
TensorData FoldBroadcast(const TensorData& data, const pir::Shape& shape, const pir::Shape& out_shape);
// A permutation of dims.
TensorData FoldTranspose(const TensorData& data, const pir::Shape& shape, const std::vector<int64_t>& perm);
// Conversion to another element type (floats truncate toward zero to ints;
// bool is x != 0). nullopt when a float does not fit the target.
std::optional<TensorData> FoldCast(const TensorData& data, pir::DType to);

}  // namespace az::frontend::onnx
