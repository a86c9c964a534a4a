// Kernels of the reference interpreter: every PIR op kind the interpreter runs,
// on float64 tensors (whole or one device's block).
#include "compile/interpret/kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

#include "pir/rules/rule.h"

namespace az::compile::interpret {

using pir::Shape;

Status Unimplemented(std::string message) { return Status(StatusCode::kUnimplemented, std::move(message)); }

int64_t Product(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= shape[i];
  }
  return strides;
}

// Advances a row-major multi-index; false after the last one.
bool Next(std::vector<int64_t>& index, const Shape& shape) {
  for (size_t i = shape.size(); i-- > 0;) {
    if (++index[i] < shape[i]) return true;
    index[i] = 0;
  }
  return false;
}

Tensor Zeros(Shape shape) {
  Tensor t;
  t.data.assign(static_cast<size_t>(Product(shape)), 0.0);
  t.shape = std::move(shape);
  return t;
}


// ---------------------------------------------------------------- kernels


StatusOr<Tensor> Einsum(const std::string& text, const Tensor& a, const Tensor& b, const Tensor* bias, bool add_bias) {
  AZ_ASSIGN_OR_RETURN(pir::EinsumEquation eq, pir::ParseEinsumEquation(text));
  std::map<char, int64_t> size, stride_a, stride_b;
  const Tensor* inputs[] = {&a, &b};
  std::map<char, int64_t>* strides[] = {&stride_a, &stride_b};
  std::string contracted;
  for (size_t i = 0; i < 2; ++i) {
    const std::string& term = eq.inputs[i];
    if (term.size() != inputs[i]->shape.size()) return InvalidArgument("einsum operand rank does not fit '" + text + "'");
    std::vector<int64_t> st = Strides(inputs[i]->shape);
    for (size_t d = 0; d < term.size(); ++d) {
      auto [it, inserted] = size.emplace(term[d], inputs[i]->shape[d]);
      if (!inserted && it->second != inputs[i]->shape[d]) return InvalidArgument("einsum sizes differ for '" + text + "'");
      (*strides[i])[term[d]] = st[d];
      if (eq.output.find(term[d]) == std::string::npos && contracted.find(term[d]) == std::string::npos) {
        contracted += term[d];
      }
    }
  }
  Shape out_shape, red_shape;
  std::vector<int64_t> out_a, out_b, red_a, red_b;
  auto stride = [](const std::map<char, int64_t>& m, char c) { return m.count(c) ? m.at(c) : int64_t{0}; };
  for (char c : eq.output) {
    out_shape.push_back(size[c]);
    out_a.push_back(stride(stride_a, c));
    out_b.push_back(stride(stride_b, c));
  }
  for (char c : contracted) {
    red_shape.push_back(size[c]);
    red_a.push_back(stride(stride_a, c));
    red_b.push_back(stride(stride_b, c));
  }
  Tensor out = Zeros(out_shape);
  int64_t bias_size = 0;
  if (bias && add_bias) {
    bias_size = bias->NumElements();
    Shape tail(out_shape.end() - static_cast<std::ptrdiff_t>(std::min(bias->shape.size(), out_shape.size())),
               out_shape.end());
    if (bias->shape != tail) return InvalidArgument("einsum bias " + pir::ShapeString(bias->shape) + " does not fit the result");
  }
  if (Product(red_shape) == 0) return out;
  std::vector<int64_t> oi(out_shape.size(), 0);
  for (int64_t flat = 0; flat < out.NumElements(); ++flat, Next(oi, out_shape)) {
    int64_t base_a = 0, base_b = 0;
    for (size_t k = 0; k < oi.size(); ++k) {
      base_a += oi[k] * out_a[k];
      base_b += oi[k] * out_b[k];
    }
    double sum = 0;
    std::vector<int64_t> ri(red_shape.size(), 0);
    do {
      int64_t off_a = base_a, off_b = base_b;
      for (size_t k = 0; k < ri.size(); ++k) {
        off_a += ri[k] * red_a[k];
        off_b += ri[k] * red_b[k];
      }
      sum += a.data[static_cast<size_t>(off_a)] * b.data[static_cast<size_t>(off_b)];
    } while (Next(ri, red_shape));
    if (bias_size) sum += bias->data[static_cast<size_t>(flat % bias_size)];
    out.data[static_cast<size_t>(flat)] = sum;
  }
  return out;
}

// Flash-attention state for q [B, Lq, H, D] against v's head dim Dv: the
// running max m, the running sum l of exp(score - m) and the unnormalized
// output o, per (b, i, h). Blocks of keys merge in any order.

void AttendBlock(const Tensor& q, const Tensor& k, const Tensor& v, AttentionState& state) {
  const int64_t batch = q.shape[0], lq = q.shape[1], heads = q.shape[2], dim = q.shape[3];
  const int64_t lk = k.shape[1], dv = v.shape[3];
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  std::vector<double> scores(static_cast<size_t>(lk));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < lq; ++i) {
      for (int64_t h = 0; h < heads; ++h) {
        if (lk == 0) continue;
        const double* qrow = &q.data[static_cast<size_t>(((b * lq + i) * heads + h) * dim)];
        double block_max = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < lk; ++j) {
          const double* krow = &k.data[static_cast<size_t>(((b * lk + j) * heads + h) * dim)];
          double s = 0;
          for (int64_t d = 0; d < dim; ++d) s += qrow[d] * krow[d];
          scores[static_cast<size_t>(j)] = s * scale;
          block_max = std::max(block_max, s * scale);
        }
        const size_t row = static_cast<size_t>((b * lq + i) * heads + h);
        const double new_max = std::max(state.max[row], block_max);
        const double old_weight = std::exp(state.max[row] - new_max);
        double* out = &state.out[row * static_cast<size_t>(dv)];
        state.sum[row] *= old_weight;
        for (int64_t e = 0; e < dv; ++e) out[e] *= old_weight;
        for (int64_t j = 0; j < lk; ++j) {
          double p = std::exp(scores[static_cast<size_t>(j)] - new_max);
          state.sum[row] += p;
          const double* vrow = &v.data[static_cast<size_t>(((b * lk + j) * heads + h) * dv)];
          for (int64_t e = 0; e < dv; ++e) out[e] += p * vrow[e];
        }
        state.max[row] = new_max;
      }
    }
  }
}

Tensor FinishAttention(const Tensor& q, const AttentionState& state) {
  Tensor out = Zeros({q.shape[0], q.shape[1], q.shape[2], state.value_dim});
  for (int64_t row = 0; row < state.rows; ++row) {
    for (int64_t e = 0; e < state.value_dim; ++e) {
      size_t at = static_cast<size_t>(row * state.value_dim + e);
      out.data[at] = state.out[at] / state.sum[static_cast<size_t>(row)];
    }
  }
  return out;
}

// pir/rules/contraction.cc's attention with its mask and grouped K/V, on
// whole rows: query head h reads K/V head h / (H / Hkv); scores scaled by
// 1 / sqrt(D), then masked (causal: j <= i; window W: i - W < j <= i; a
// tensor broadcast from [B|1, H|1, Lq|1, Lk]: added, or keeping its true
// (mask_operand keep) or false (drop) entries).
Tensor MaskedAttention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                       const pir::Attributes& attrs) {
  const int64_t batch = q.shape[0], lq = q.shape[1], heads = q.shape[2], dim = q.shape[3];
  const int64_t lk = k.shape[1], kv_heads = k.shape[2], dv = v.shape[3], group = heads / kv_heads;
  const std::string kind = attrs.GetString("mask").value_or("none");
  const std::string how = attrs.GetString("mask_operand").value_or("add");
  const int64_t window = attrs.GetInt("window").value_or(0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  const double ninf = -std::numeric_limits<double>::infinity();
  Tensor out = Zeros({batch, lq, heads, dv});
  std::vector<double> scores(static_cast<size_t>(lk));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < lq; ++i) {
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t hk = h / group;
        const double* qrow = &q.data[static_cast<size_t>(((b * lq + i) * heads + h) * dim)];
        double row_max = ninf;
        for (int64_t j = 0; j < lk; ++j) {
          const double* krow = &k.data[static_cast<size_t>(((b * lk + j) * kv_heads + hk) * dim)];
          double s = 0;
          for (int64_t d = 0; d < dim; ++d) s += qrow[d] * krow[d];
          s *= scale;
          if ((kind == "causal" || kind == "window") && j > i) s = ninf;
          if (kind == "window" && j <= i - window) s = ninf;
          if (mask) {
            const pir::Shape& m = mask->shape;
            const int64_t at = (((m[0] == 1 ? 0 : b) * m[1] + (m[1] == 1 ? 0 : h)) * m[2] + (m[2] == 1 ? 0 : i)) * m[3] + j;
            const double value = mask->data[static_cast<size_t>(at)];
            if (how == "add") s += value;
            if (how == "keep" && value == 0) s = ninf;
            if (how == "drop" && value != 0) s = ninf;
          }
          scores[static_cast<size_t>(j)] = s;
          row_max = std::max(row_max, s);
        }
        if (row_max == ninf) continue;  // a fully masked row: zeros
        double sum = 0;
        for (double& s : scores) sum += (s = std::exp(s - row_max));
        double* orow = &out.data[static_cast<size_t>(((b * lq + i) * heads + h) * dv)];
        for (int64_t j = 0; j < lk; ++j) {
          const double* vrow = &v.data[static_cast<size_t>(((b * lk + j) * kv_heads + hk) * dv)];
          const double p = scores[static_cast<size_t>(j)] / sum;
          for (int64_t e = 0; e < dv; ++e) orow[e] += p * vrow[e];
        }
      }
    }
  }
  return out;
}

Tensor Attention(const Tensor& q, const std::vector<std::pair<const Tensor*, const Tensor*>>& kv_blocks) {
  const int64_t dv = kv_blocks.front().second->shape[3];
  AttentionState state(q.shape[0] * q.shape[1] * q.shape[2], dv);
  for (const auto& [k, v] : kv_blocks) AttendBlock(q, *k, *v, state);
  return FinishAttention(q, state);
}

// Layer / RMS norm over `axis`, or group norm (`groups` > 0) over each
// sample's channel group and every spatial position. The tensor is viewed as
// [outer, n, inner]: a norm over axis has rows (outer, inner) of n elements
// `inner` apart; group norm has outer = batch, n = channels, inner = spatial
// positions, and rows (sample, group) of (n / groups) * inner elements.
Tensor Norm(pir::OpKind kind, const Tensor& x, const Tensor* weight, const Tensor* bias, double eps, int64_t axis,
            int64_t groups) {
  Tensor out = Zeros(x.shape);
  if (x.shape.empty()) return out;
  const size_t dim = groups > 0 ? 1 : static_cast<size_t>(axis);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= x.shape[d];
  for (size_t d = dim + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t n = x.shape[dim];
  const bool centered = kind != pir::OpKind::kRmsNorm;
  // Each row: channels [first, first + count) at inner positions [0, span)
  // (a norm over axis: one inner position per row, so span 1 at offset i).
  const int64_t per_row = groups > 0 ? n / groups : n;
  const int64_t row_count = groups > 0 ? groups : inner;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t r = 0; r < row_count; ++r) {
      const int64_t first = groups > 0 ? r * per_row : 0;
      const int64_t begin = groups > 0 ? 0 : r, end = groups > 0 ? inner : r + 1;
      auto at = [&](int64_t c, int64_t i) { return static_cast<size_t>((o * n + c) * inner + i); };
      double mean = 0, square = 0;
      for (int64_t c = first; c < first + per_row; ++c) {
        for (int64_t i = begin; i < end; ++i) {
          mean += x.data[at(c, i)];
          square += x.data[at(c, i)] * x.data[at(c, i)];
        }
      }
      const auto count = static_cast<double>(per_row * (end - begin));
      mean /= count;
      square /= count;
      const double center = centered ? mean : 0.0;
      const double variance = centered ? square - mean * mean : square;
      const double inv = 1.0 / std::sqrt(variance + eps);
      for (int64_t c = first; c < first + per_row; ++c) {
        for (int64_t i = begin; i < end; ++i) {
          double y = (x.data[at(c, i)] - center) * inv;
          if (weight) y *= weight->data[static_cast<size_t>(c)];
          if (bias) y += bias->data[static_cast<size_t>(c)];
          out.data[at(c, i)] = y;
        }
      }
    }
  }
  return out;
}

StatusOr<double> UnaryValue(pir::OpKind kind, double x) {
  switch (kind) {
    case pir::OpKind::kGeluTanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
    case pir::OpKind::kGelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case pir::OpKind::kSilu: return x / (1 + std::exp(-x));
    case pir::OpKind::kSigmoid: return 1 / (1 + std::exp(-x));
    case pir::OpKind::kExp: return std::exp(x);
    case pir::OpKind::kTanh: return std::tanh(x);
    case pir::OpKind::kRsqrt: return 1 / std::sqrt(x);
    case pir::OpKind::kNeg: return -x;
    case pir::OpKind::kSqrt: return std::sqrt(x);
    case pir::OpKind::kRecip: return 1 / x;
    case pir::OpKind::kAbs: return std::fabs(x);
    case pir::OpKind::kLog: return std::log(x);
    case pir::OpKind::kSin: return std::sin(x);
    case pir::OpKind::kCos: return std::cos(x);
    case pir::OpKind::kErf: return std::erf(x);
    case pir::OpKind::kConvert: return x;
    default: return Unimplemented("not a unary op");
  }
}

bool CompareValues(std::string_view direction, double x, double y) {
  if (direction == "EQ") return x == y;
  if (direction == "NE") return x != y;
  if (direction == "LT") return x < y;
  if (direction == "LE") return x <= y;
  if (direction == "GT") return x > y;
  return x >= y;  // GE (the verifier checked the direction)
}

// Element-wise ops of two operands (where: three) with NumPy broadcasting.
StatusOr<Tensor> Binary(pir::OpKind kind, const pir::Attributes& attrs, const std::vector<const Tensor*>& in) {
  size_t rank = 0;
  for (const Tensor* t : in) rank = std::max(rank, t->shape.size());
  std::vector<Shape> padded;
  Shape out_shape(rank, 1);
  for (const Tensor* t : in) {
    Shape p(rank - t->shape.size(), 1);
    p.insert(p.end(), t->shape.begin(), t->shape.end());
    for (size_t d = 0; d < rank; ++d) {
      if (p[d] != out_shape[d] && p[d] != 1 && out_shape[d] != 1) {
        return InvalidArgument("shape " + pir::ShapeString(t->shape) + " does not broadcast to " +
                               pir::ShapeString(out_shape));
      }
      out_shape[d] = std::max(out_shape[d], p[d]);
    }
    padded.push_back(std::move(p));
  }
  std::vector<std::vector<int64_t>> strides;
  for (const Shape& p : padded) {
    std::vector<int64_t> st = Strides(p);
    for (size_t d = 0; d < rank; ++d) {
      if (p[d] == 1) st[d] = 0;
    }
    strides.push_back(std::move(st));
  }
  const std::string direction = attrs.GetString("direction").value_or("EQ");
  Tensor out = Zeros(out_shape);
  std::vector<int64_t> index(rank, 0);
  std::vector<double> x(in.size());
  for (int64_t flat = 0; flat < out.NumElements(); ++flat, Next(index, out_shape)) {
    for (size_t k = 0; k < in.size(); ++k) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset += index[d] * strides[k][d];
      x[k] = in[k]->data[static_cast<size_t>(offset)];
    }
    double r = 0;
    switch (kind) {
      case pir::OpKind::kAdd: r = x[0] + x[1]; break;
      case pir::OpKind::kSub: r = x[0] - x[1]; break;
      case pir::OpKind::kMul: r = x[0] * x[1]; break;
      case pir::OpKind::kDiv: r = x[0] / x[1]; break;
      case pir::OpKind::kMax: r = std::max(x[0], x[1]); break;
      case pir::OpKind::kMin: r = std::min(x[0], x[1]); break;
      case pir::OpKind::kPow: r = std::pow(x[0], x[1]); break;
      case pir::OpKind::kCompare: r = CompareValues(direction, x[0], x[1]) ? 1 : 0; break;
      case pir::OpKind::kWhere: r = x[0] != 0 ? x[1] : x[2]; break;
      default: return Unimplemented("not a binary op");
    }
    out.data[static_cast<size_t>(flat)] = r;
  }
  return out;
}

// Pairs (2i, 2i+1) of the head dim rotate by the angle whose cosine and sine
// are table[l][2i] and table[l][2i+1] (`inverse`: by its negation).
Tensor Rope(const Tensor& x, const Tensor& table, bool inverse) {
  Tensor out = Zeros(x.shape);
  const int64_t batch = x.shape[0], seq = x.shape[1], heads = x.shape[2], dim = x.shape[3];
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t l = 0; l < seq; ++l) {
      for (int64_t h = 0; h < heads; ++h) {
        size_t base = static_cast<size_t>(((b * seq + l) * heads + h) * dim);
        for (int64_t i = 0; i + 1 < dim; i += 2) {
          double c = table.data[static_cast<size_t>(l * dim + i)], s = table.data[static_cast<size_t>(l * dim + i + 1)];
          if (inverse) s = -s;
          double x0 = x.data[base + static_cast<size_t>(i)], x1 = x.data[base + static_cast<size_t>(i) + 1];
          out.data[base + static_cast<size_t>(i)] = x0 * c - x1 * s;
          out.data[base + static_cast<size_t>(i) + 1] = x0 * s + x1 * c;
        }
      }
    }
  }
  return out;
}

Tensor Softmax(const Tensor& x, int64_t axis) {
  Tensor out = Zeros(x.shape);
  const int64_t n = x.shape[static_cast<size_t>(axis)];
  const int64_t inner = Strides(x.shape)[static_cast<size_t>(axis)];
  const int64_t outer = n * inner != 0 ? x.NumElements() / (n * inner) : 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t i) { return static_cast<size_t>((o * n + i) * inner + in); };
      double m = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t i = 0; i < n; ++i) m = std::max(m, x.data[at(i)]);
      for (int64_t i = 0; i < n; ++i) sum += std::exp(x.data[at(i)] - m);
      for (int64_t i = 0; i < n; ++i) out.data[at(i)] = std::exp(x.data[at(i)] - m) / sum;
    }
  }
  return out;
}

// Out element at `index` reads the operand at map(index).
template <typename Map>
Tensor Gathered(const Tensor& x, const Shape& out_shape, Map map) {
  Tensor out = Zeros(out_shape);
  std::vector<int64_t> st = Strides(x.shape), index(out_shape.size(), 0), source(x.shape.size());
  for (int64_t flat = 0; flat < out.NumElements(); ++flat, Next(index, out_shape)) {
    map(index, source);
    int64_t at = 0;
    for (size_t d = 0; d < source.size(); ++d) at += source[d] * st[d];
    out.data[static_cast<size_t>(flat)] = x.data[static_cast<size_t>(at)];
  }
  return out;
}

StatusOr<Tensor> Reduce(const Tensor& x, const pir::Attributes& attrs, const Shape& global_shape) {
  std::vector<int64_t> dims = attrs.GetInts("dims").value_or(std::vector<int64_t>{});
  std::string kind = attrs.GetString("kind").value_or("sum");
  std::set<int64_t> reduced(dims.begin(), dims.end());
  Shape out_shape;
  int64_t count = 1;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (reduced.count(static_cast<int64_t>(d))) {
      count *= global_shape[d];
    } else {
      out_shape.push_back(x.shape[d]);
    }
  }
  Tensor out = Zeros(out_shape);
  if (kind == "max") std::fill(out.data.begin(), out.data.end(), -std::numeric_limits<double>::infinity());
  std::vector<int64_t> out_st = Strides(out_shape), index(x.shape.size(), 0);
  for (int64_t flat = 0; flat < x.NumElements(); ++flat, Next(index, x.shape)) {
    int64_t at = 0;
    for (size_t d = 0, o = 0; d < index.size(); ++d) {
      if (!reduced.count(static_cast<int64_t>(d))) at += index[d] * out_st[o++];
    }
    double& r = out.data[static_cast<size_t>(at)];
    double v = x.data[static_cast<size_t>(flat)];
    r = kind == "max" ? std::max(r, v) : r + v;
  }
  if (kind == "mean") {
    for (double& r : out.data) r /= static_cast<double>(count);
  }
  return out;
}

// Runs one op on tensors: whole ones (reference) or one device's blocks.
StatusOr<std::vector<Tensor>> Execute(const pir::Op& op, const std::vector<const Tensor*>& in, const KernelContext& ctx) {
  const Shape& result_shape = ctx.result_shapes.at(0);
  const pir::Attributes& attrs = op.attrs;
  auto one = [](StatusOr<Tensor> t) -> StatusOr<std::vector<Tensor>> {
    if (!t.ok()) return t.status();
    return std::vector<Tensor>{std::move(t).value()};
  };
  switch (pir::GetOpKindInfo(op.kind).family) {
    case pir::OpFamily::kEinsum:
      return one(Einsum(attrs.GetString("eq").value_or(""), *in[0], *in[1], in.size() > 2 ? in[2] : nullptr,
                        ctx.add_bias));
    case pir::OpFamily::kAttention: {
      if (in.size() == 3 && attrs.GetString("mask").value_or("none") == "none" && in[0]->shape[2] == in[1]->shape[2]) {
        return AttentionResults(*in[0], {{in[1], in[2]}}, ctx.result_shapes.size() > 1);
      }
      // A masked or grouped-query attention, on whole sequences (a causal or
      // window mask needs the global query and key positions).
      const bool indexed = attrs.GetString("mask").value_or("none") == "causal" ||
                           attrs.GetString("mask").value_or("none") == "window";
      if (ctx.result_shapes.size() > 1 ||
          (indexed && (ctx.global_operand_shapes.size() < 2 || ctx.global_operand_shapes[0][1] != in[0]->shape[1] ||
                       ctx.global_operand_shapes[1][1] != in[1]->shape[1]))) {
        return Unimplemented("the interpreter runs a masked attention on whole sequences, without its log-sum-exp");
      }
      return one(MaskedAttention(*in[0], *in[1], *in[2], in.size() > 3 ? in[3] : nullptr, attrs));
    }
    case pir::OpFamily::kAttentionGrad: return AttentionGrad(*in[0], *in[1], *in[2], *in[3], *in[4], *in[5]);
    case pir::OpFamily::kNormGrad:
      return one(NormGrad(op.kind, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, attrs.GetFloat("eps").value_or(1e-5)));
    case pir::OpFamily::kFull: {
      Tensor out = Zeros(result_shape);
      std::fill(out.data.begin(), out.data.end(), attrs.GetFloat("value").value_or(0));
      return one(std::move(out));
    }
    case pir::OpFamily::kConv:
      return one(Conv3d(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, attrs, result_shape, ctx.add_bias));
    case pir::OpFamily::kNorm: {
      const Tensor* weight = in.size() > 1 ? in[1] : nullptr;
      const Tensor* bias = in.size() > 2 ? in[2] : nullptr;
      const auto rank = static_cast<int64_t>(in[0]->shape.size());
      const int64_t groups = op.kind == pir::OpKind::kGroupNorm ? attrs.GetInt("groups").value_or(1) : 0;
      const int64_t axis = pir::NormAxis(attrs, rank).value_or(rank - 1);
      return one(Norm(op.kind, *in[0], weight, bias, attrs.GetFloat("eps").value_or(1e-5), axis, groups));
    }
    case pir::OpFamily::kUnary: {
      Tensor out = *in[0];
      for (double& v : out.data) {
        AZ_ASSIGN_OR_RETURN(v, UnaryValue(op.kind, v));
      }
      return one(std::move(out));
    }
    case pir::OpFamily::kBinary: return one(Binary(op.kind, attrs, in));
    case pir::OpFamily::kRope: return one(Rope(*in[0], *in[1], attrs.GetBool("inverse").value_or(false)));
    case pir::OpFamily::kSoftmax: {
      int64_t axis = pir::NormalizeAxis(attrs.GetInt("axis").value_or(-1), static_cast<int64_t>(in[0]->shape.size()))
                         .value_or(0);
      return one(Softmax(*in[0], axis));
    }
    case pir::OpFamily::kBroadcast: {
      std::vector<int64_t> dims = attrs.GetInts("dims").value_or(std::vector<int64_t>{});
      const Tensor& x = *in[0];
      return one(Gathered(x, result_shape, [&](const std::vector<int64_t>& index, std::vector<int64_t>& source) {
        for (size_t i = 0; i < dims.size(); ++i) source[i] = x.shape[i] == 1 ? 0 : index[static_cast<size_t>(dims[i])];
      }));
    }
    case pir::OpFamily::kReshape: {
      if (Product(result_shape) != in[0]->NumElements()) {
        return Unimplemented("reshape of a block of " + pir::ShapeString(in[0]->shape) + " to " + pir::ShapeString(result_shape) +
                             " (padded shards cannot be bitcast)");
      }
      return one(Tensor{result_shape, in[0]->data});
    }
    case pir::OpFamily::kTranspose: {
      std::vector<int64_t> perm = attrs.GetInts("perm").value_or(std::vector<int64_t>{});
      Shape shape;
      for (int64_t p : perm) shape.push_back(in[0]->shape[static_cast<size_t>(p)]);
      return one(Gathered(*in[0], shape, [&](const std::vector<int64_t>& index, std::vector<int64_t>& source) {
        for (size_t i = 0; i < perm.size(); ++i) source[static_cast<size_t>(perm[i])] = index[i];
      }));
    }
    case pir::OpFamily::kConcat: {
      const size_t axis = static_cast<size_t>(
          pir::NormalizeAxis(attrs.GetInt("axis").value_or(0), static_cast<int64_t>(in[0]->shape.size())).value_or(0));
      Shape shape = in[0]->shape;
      shape[axis] = 0;
      for (const Tensor* t : in) shape[axis] += t->shape[axis];
      Tensor out = Zeros(shape);
      std::vector<int64_t> out_st = Strides(shape);
      int64_t offset = 0;
      for (const Tensor* t : in) {
        std::vector<int64_t> index(t->shape.size(), 0);
        for (int64_t flat = 0; flat < t->NumElements(); ++flat, Next(index, t->shape)) {
          int64_t at = 0;
          for (size_t d = 0; d < index.size(); ++d) at += (index[d] + (d == axis ? offset : 0)) * out_st[d];
          out.data[static_cast<size_t>(at)] = t->data[static_cast<size_t>(flat)];
        }
        offset += t->shape[axis];
      }
      return one(std::move(out));
    }
    case pir::OpFamily::kSlice: {
      std::vector<int64_t> start = attrs.GetInts("start").value_or(std::vector<int64_t>{});
      std::vector<int64_t> stride =
          attrs.GetInts("stride").value_or(std::vector<int64_t>(in[0]->shape.size(), 1));
      return one(Gathered(*in[0], result_shape, [&](const std::vector<int64_t>& index, std::vector<int64_t>& source) {
        for (size_t d = 0; d < index.size(); ++d) source[d] = start[d] + index[d] * stride[d];
      }));
    }
    case pir::OpFamily::kReduce: return one(Reduce(*in[0], attrs, ctx.global_operand_shapes.at(0)));
    case pir::OpFamily::kGather: {
      const Tensor& table = *in[0];
      const Tensor& indices = *in[1];
      const int64_t row = table.shape[0] ? table.NumElements() / table.shape[0] : 0;
      Tensor out = Zeros(result_shape);
      for (int64_t i = 0; i < indices.NumElements(); ++i) {
        int64_t r = static_cast<int64_t>(std::llround(indices.data[static_cast<size_t>(i)]));
        if (r < 0 || r >= table.shape[0]) return InvalidArgument("gather index " + std::to_string(r) + " out of range");
        std::copy_n(table.data.begin() + r * row, row, out.data.begin() + i * row);
      }
      return one(std::move(out));
    }
    case pir::OpFamily::kResize: {
      if (op.kind == pir::OpKind::kPad) {
        // Replicate: an index outside the operand reads its nearest edge row.
        std::vector<int64_t> low = attrs.GetInts("low").value_or(std::vector<int64_t>{});
        const Tensor& x = *in[0];
        if (low.size() != x.shape.size()) return InvalidArgument("pad 'low' does not match its operand");
        return one(Gathered(x, result_shape, [&](const std::vector<int64_t>& index, std::vector<int64_t>& source) {
          for (size_t d = 0; d < index.size(); ++d) source[d] = std::clamp(index[d] - low[d], int64_t{0}, x.shape[d] - 1);
        }));
      }
      std::vector<int64_t> scale = attrs.GetInts("scale").value_or(std::vector<int64_t>{});
      const Tensor& x = *in[0];
      if (scale.size() != x.shape.size()) return InvalidArgument("upsample 'scale' does not match its operand");
      return one(Gathered(x, result_shape, [&](const std::vector<int64_t>& index, std::vector<int64_t>& source) {
        // A block sharded along its rows holds whole copies of its own rows.
        for (size_t d = 0; d < index.size(); ++d) source[d] = std::min(index[d] / scale[d], x.shape[d] - 1);
      }));
    }
    case pir::OpFamily::kCustom: break;
  }
  return Unimplemented("the interpreter does not run '" + std::string(pir::GetOpKindInfo(op.kind).name) + "' ('" +
                       op.name + "')");
}

std::string OpLabel(const pir::Op& op) { return "op '" + op.name + "'"; }

Status CheckLeaves(const pir::Graph& graph, const std::map<pir::ValueId, Tensor>& leaves) {
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role == pir::ValueRole::kActivation) continue;
    auto it = leaves.find(id);
    if (it == leaves.end()) return InvalidArgument("no data for leaf %" + std::to_string(id) + " '" + v.name + "'");
    if (it->second.shape != v.type.shape || it->second.NumElements() != Product(v.type.shape)) {
      return InvalidArgument("leaf '" + v.name + "' is " + v.type.ToString() + ", its data has shape " +
                             pir::ShapeString(it->second.shape));
    }
  }
  return Status::Ok();
}

}  // namespace az::compile::interpret
