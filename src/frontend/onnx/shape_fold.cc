#include "frontend/onnx/shape_fold.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "support/checked_math.h"

namespace az::frontend::onnx {

namespace {

// Row-major strides of `shape`.
std::vector<int64_t> Strides(const pir::Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

// Calls `fn(flat_index, multi_index)` for every element of `shape`.
void ForEachIndex(const pir::Shape& shape, const std::function<void(const std::vector<int64_t>&)>& fn) {
  int64_t total = CheckedNumElements(shape).value_or(0);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    fn(index);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

// The flat index in a right-aligned broadcast operand of `shape` for the result index.
int64_t BroadcastFlat(const std::vector<int64_t>& out_index, const pir::Shape& shape,
                      const std::vector<int64_t>& strides) {
  size_t offset = out_index.size() - shape.size();
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) flat += out_index[offset + d] * strides[d];
  }
  return flat;
}

std::optional<int64_t> IntOp(std::string_view op, int64_t a, int64_t b) {
  int64_t r = 0;
  if (op == "Add") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "Sub") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "Mul") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "Div" || op == "Mod") {
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    if (op == "Div") return a / b;
    int64_t m = a % b;  // ONNX Mod (fmod=0) takes the divisor's sign, like Python
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
  }
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Equal") return int64_t{a == b};
  if (op == "Less") return int64_t{a < b};
  if (op == "Greater") return int64_t{a > b};
  if (op == "LessOrEqual") return int64_t{a <= b};
  if (op == "GreaterOrEqual") return int64_t{a >= b};
  if (op == "And") return int64_t{a != 0 && b != 0};
  if (op == "Or") return int64_t{a != 0 || b != 0};
  if (op == "Pow") {
    if (b < 0 || b > 64) return std::nullopt;
    int64_t p = 1;
    for (int64_t i = 0; i < b; ++i) {
      if (__builtin_mul_overflow(p, a, &p)) return std::nullopt;
    }
    return p;
  }
  return std::nullopt;
}

std::optional<double> FloatOp(std::string_view op, double a, double b) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  if (op == "Pow") return std::pow(a, b);
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Mod") return std::fmod(a, b);
  if (op == "Equal") return (a == b) ? 1.0 : 0.0;
  if (op == "Less") return (a < b) ? 1.0 : 0.0;
  if (op == "Greater") return (a > b) ? 1.0 : 0.0;
  if (op == "LessOrEqual") return (a <= b) ? 1.0 : 0.0;
  if (op == "GreaterOrEqual") return (a >= b) ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<double> FloatUnary(std::string_view op, double x) {
  if (op == "Neg") return -x;
  if (op == "Abs") return std::fabs(x);
  if (op == "Sqrt") return std::sqrt(x);
  if (op == "Exp") return std::exp(x);
  if (op == "Log") return std::log(x);
  if (op == "Floor") return std::floor(x);
  if (op == "Ceil") return std::ceil(x);
  if (op == "Reciprocal") return 1.0 / x;
  if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (op == "Tanh") return std::tanh(x);
  if (op == "Erf") return std::erf(x);
  if (op == "Sin") return std::sin(x);
  if (op == "Cos") return std::cos(x);
  if (op == "Identity") return x;
  return std::nullopt;
}

std::optional<int64_t> IntUnary(std::string_view op, int64_t x) {
  if (op == "Neg") return x == INT64_MIN ? std::nullopt : std::optional<int64_t>(-x);
  if (op == "Abs") return x == INT64_MIN ? std::nullopt : std::optional<int64_t>(x < 0 ? -x : x);
  if (op == "Not") return int64_t{x == 0};
  if (op == "Identity" || op == "Floor" || op == "Ceil") return x;
  return std::nullopt;
}

bool IsComparison(std::string_view op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" ||
         op == "And" || op == "Or" || op == "Not";
}

}  // namespace

std::optional<int64_t> TensorData::AsInt(size_t i) const {
  if (!is_float) return ints[i];
  double v = floats[i];
  if (!(v >= -9.2e18 && v <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(v);
}

TensorData TensorData::Ints(std::vector<int64_t> values) {
  TensorData d;
  d.ints = std::move(values);
  return d;
}

std::optional<pir::Shape> BroadcastShapes(const std::vector<pir::Shape>& shapes) {
  size_t rank = 0;
  for (const pir::Shape& s : shapes) rank = std::max(rank, s.size());
  pir::Shape out(rank, 1);
  for (const pir::Shape& s : shapes) {
    size_t offset = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[offset + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o != 1) return std::nullopt;
      o = s[d];
    }
  }
  return out;
}

std::optional<int64_t> CheckedNumElements(const pir::Shape& shape) {
  return CheckedProduct(shape);
}

std::optional<TensorData> FoldElementwise(std::string_view op, const std::vector<const TensorData*>& inputs,
                                          const std::vector<pir::Shape>& shapes, const pir::Shape& out_shape,
                                          bool out_float) {
  auto total = CheckedNumElements(out_shape);
  if (!total || *total > kMaxFoldElements || inputs.empty()) return std::nullopt;
  std::vector<std::vector<int64_t>> strides;
  for (const pir::Shape& s : shapes) strides.push_back(Strides(s));
  bool inputs_float = false;
  for (const TensorData* in : inputs) inputs_float = inputs_float || in->is_float;
  TensorData out;
  out.is_float = out_float;
  bool ok = true;
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& index) {
    if (!ok) return;
    std::vector<size_t> at;
    for (size_t i = 0; i < inputs.size(); ++i)
      at.push_back(static_cast<size_t>(BroadcastFlat(index, shapes[i], strides[i])));
    if (op == "Where") {
      const TensorData& pick = inputs[0]->AsDouble(at[0]) != 0 ? *inputs[1] : *inputs[2];
      size_t j = inputs[0]->AsDouble(at[0]) != 0 ? at[1] : at[2];
      if (out_float) {
        out.floats.push_back(pick.AsDouble(j));
      } else if (auto v = pick.AsInt(j)) {
        out.ints.push_back(*v);
      } else {
        ok = false;
      }
      return;
    }
    if (inputs.size() == 1) {
      if (inputs_float || out_float) {
        auto v = FloatUnary(op, inputs[0]->AsDouble(at[0]));
        if (!v) {
          ok = false;
        } else if (out_float) {
          out.floats.push_back(*v);
        } else {
          out.ints.push_back(static_cast<int64_t>(*v != 0));
        }
        return;
      }
      auto v = IntUnary(op, inputs[0]->ints[at[0]]);
      if (!v)
        ok = false;
      else
        out.ints.push_back(*v);
      return;
    }
    if (inputs.size() != 2) {
      ok = false;
      return;
    }
    if (inputs_float) {
      auto v = FloatOp(op, inputs[0]->AsDouble(at[0]), inputs[1]->AsDouble(at[1]));
      if (!v)
        ok = false;
      else if (out_float)
        out.floats.push_back(*v);
      else if (IsComparison(op))
        out.ints.push_back(*v != 0);
      else
        ok = false;
      return;
    }
    auto v = IntOp(op, inputs[0]->ints[at[0]], inputs[1]->ints[at[1]]);
    if (!v)
      ok = false;
    else if (out_float)
      out.floats.push_back(static_cast<double>(*v));
    else
      out.ints.push_back(*v);
  });
  if (!ok) return std::nullopt;
  return out;
}

std::optional<TensorData> FoldGather(const TensorData& data, const pir::Shape& shape, const TensorData& indices,
                                     int64_t axis) {
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) return std::nullopt;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  int64_t n = shape[axis];
  if (outer * inner * static_cast<int64_t>(indices.size()) > kMaxFoldElements) return std::nullopt;
  TensorData out;
  out.is_float = data.is_float;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < indices.size(); ++k) {
      auto index = indices.AsInt(k);
      if (!index || *index < -n || *index >= n) return std::nullopt;
      int64_t i = *index < 0 ? *index + n : *index;
      for (int64_t j = 0; j < inner; ++j) {
        size_t from = static_cast<size_t>((o * n + i) * inner + j);
        if (data.is_float)
          out.floats.push_back(data.floats[from]);
        else
          out.ints.push_back(data.ints[from]);
      }
    }
  }
  return out;
}

TensorData FoldConcat(const std::vector<const TensorData*>& inputs, const std::vector<pir::Shape>& shapes,
                      int64_t axis) {
  TensorData out;
  out.is_float = !inputs.empty() && inputs[0]->is_float;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shapes[0][d];
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      int64_t block = 1;
      for (size_t d = static_cast<size_t>(axis); d < shapes[i].size(); ++d) block *= shapes[i][d];
      for (int64_t j = 0; j < block; ++j) {
        size_t from = static_cast<size_t>(o * block + j);
        if (out.is_float)
          out.floats.push_back(inputs[i]->AsDouble(from));
        else
          out.ints.push_back(inputs[i]->AsInt(from).value_or(0));
      }
    }
  }
  return out;
}

TensorData FoldSlice(const TensorData& data, const pir::Shape& shape, const std::vector<int64_t>& starts,
                     const std::vector<int64_t>& steps, const pir::Shape& out_shape) {
  std::vector<int64_t> strides = Strides(shape);
  TensorData out;
  out.is_float = data.is_float;
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& index) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) flat += (starts[d] + index[d] * steps[d]) * strides[d];
    if (data.is_float)
      out.floats.push_back(data.floats[static_cast<size_t>(flat)]);
    else
      out.ints.push_back(data.ints[static_cast<size_t>(flat)]);
  });
  return out;
}

TensorData FoldBroadcast(const TensorData& data, const pir::Shape& shape, const pir::Shape& out_shape) {
  std::vector<int64_t> strides = Strides(shape);
  TensorData out;
  out.is_float = data.is_float;
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& index) {
    size_t from = static_cast<size_t>(BroadcastFlat(index, shape, strides));
    if (data.is_float)
      out.floats.push_back(data.floats[from]);
    else
      out.ints.push_back(data.ints[from]);
  });
  return out;
}

TensorData FoldTranspose(const TensorData& data, const pir::Shape& shape, const std::vector<int64_t>& perm) {
  std::vector<int64_t> strides = Strides(shape);
  pir::Shape out_shape;
  for (int64_t p : perm) out_shape.push_back(shape[p]);
  TensorData out;
  out.is_float = data.is_float;
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& index) {
    int64_t flat = 0;
    for (size_t d = 0; d < perm.size(); ++d) flat += index[d] * strides[perm[d]];
    if (data.is_float)
      out.floats.push_back(data.floats[static_cast<size_t>(flat)]);
    else
      out.ints.push_back(data.ints[static_cast<size_t>(flat)]);
  });
  return out;
}

std::optional<TensorData> FoldCast(const TensorData& data, pir::DType to) {
  TensorData out;
  out.is_float = pir::IsFloat(to);
  for (size_t i = 0; i < data.size(); ++i) {
    if (out.is_float) {
      out.floats.push_back(data.AsDouble(i));
    } else if (to == pir::DType::kBool) {
      out.ints.push_back(data.AsDouble(i) != 0);
    } else {
      auto v = data.AsInt(i);
      if (!v) return std::nullopt;
      out.ints.push_back(*v);
    }
  }
  return out;
}

}  // namespace az::frontend::onnx
