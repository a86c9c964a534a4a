// The reference interpreter (interpreter.h): kernels over float64 tensors, then
// the whole-graph run, then the per-device simulation of a sharding plan.
#include "compile/interpret/interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

#include "cir/program.h"
#include "compile/spmd/reshard.h"
#include "pir/rules/families.h"

namespace az::compile {

namespace {

using pir::Shape;
using shard::Mesh;
using shard::TensorSharding;

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

std::string ShapeText(const Shape& shape) { return pir::ShapeString(shape); }

// ---------------------------------------------------------------- kernels

// What a kernel needs beyond its operands: the result shapes (local ones when
// partitioned), whether to add an einsum bias, the operands' global shapes.
struct KernelContext {
  std::vector<Shape> result_shapes;
  std::vector<Shape> global_operand_shapes;
  bool add_bias = true;
};

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
    if (bias->shape != tail) return InvalidArgument("einsum bias " + ShapeText(bias->shape) + " does not fit the result");
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
struct AttentionState {
  int64_t rows = 0, value_dim = 0;
  std::vector<double> max, sum, out;

  AttentionState(int64_t rows_, int64_t value_dim_)
      : rows(rows_),
        value_dim(value_dim_),
        max(static_cast<size_t>(rows_), -std::numeric_limits<double>::infinity()),
        sum(static_cast<size_t>(rows_), 0.0),
        out(static_cast<size_t>(rows_ * value_dim_), 0.0) {}
};

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

Tensor Attention(const Tensor& q, const std::vector<std::pair<const Tensor*, const Tensor*>>& kv_blocks) {
  const int64_t dv = kv_blocks.front().second->shape[3];
  AttentionState state(q.shape[0] * q.shape[1] * q.shape[2], dv);
  for (const auto& [k, v] : kv_blocks) AttendBlock(q, *k, *v, state);
  return FinishAttention(q, state);
}

Tensor Norm(pir::OpKind kind, const Tensor& x, const Tensor* weight, const Tensor* bias, double eps) {
  Tensor out = Zeros(x.shape);
  const int64_t n = x.shape.empty() ? 1 : x.shape.back();
  const int64_t rows = n ? x.NumElements() / n : 0;
  for (int64_t r = 0; r < rows; ++r) {
    const double* in = &x.data[static_cast<size_t>(r * n)];
    double mean = 0, square = 0;
    for (int64_t i = 0; i < n; ++i) {
      mean += in[i];
      square += in[i] * in[i];
    }
    mean /= static_cast<double>(n);
    square /= static_cast<double>(n);
    double center = kind == pir::OpKind::kLayerNorm ? mean : 0.0;
    double variance = kind == pir::OpKind::kLayerNorm ? square - mean * mean : square;
    double inv = 1.0 / std::sqrt(variance + eps);
    for (int64_t i = 0; i < n; ++i) {
      double y = (in[i] - center) * inv;
      if (weight) y *= weight->data[static_cast<size_t>(i)];
      if (bias) y += bias->data[static_cast<size_t>(i)];
      out.data[static_cast<size_t>(r * n + i)] = y;
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
    case pir::OpKind::kConvert: return x;
    default: return Unimplemented("not a unary op");
  }
}

StatusOr<Tensor> Binary(pir::OpKind kind, const Tensor& a, const Tensor& b) {
  const size_t rank = std::max(a.shape.size(), b.shape.size());
  auto padded = [&](const Shape& s) {
    Shape p(rank - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    return p;
  };
  Shape sa = padded(a.shape), sb = padded(b.shape), out_shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (sa[d] != sb[d] && sa[d] != 1 && sb[d] != 1) {
      return InvalidArgument("shapes " + ShapeText(a.shape) + " and " + ShapeText(b.shape) + " do not broadcast");
    }
    out_shape[d] = std::max(sa[d], sb[d]);
  }
  std::vector<int64_t> st_a = Strides(sa), st_b = Strides(sb);
  for (size_t d = 0; d < rank; ++d) {
    if (sa[d] == 1) st_a[d] = 0;
    if (sb[d] == 1) st_b[d] = 0;
  }
  Tensor out = Zeros(out_shape);
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < out.NumElements(); ++flat, Next(index, out_shape)) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      ia += index[d] * st_a[d];
      ib += index[d] * st_b[d];
    }
    double x = a.data[static_cast<size_t>(ia)], y = b.data[static_cast<size_t>(ib)];
    double r = 0;
    switch (kind) {
      case pir::OpKind::kAdd: r = x + y; break;
      case pir::OpKind::kSub: r = x - y; break;
      case pir::OpKind::kMul: r = x * y; break;
      case pir::OpKind::kDiv: r = x / y; break;
      case pir::OpKind::kMax: r = std::max(x, y); break;
      default: return Unimplemented("not a binary op");
    }
    out.data[static_cast<size_t>(flat)] = r;
  }
  return out;
}

// Pairs (2i, 2i+1) of the head dim rotate by the angle whose cosine and sine
// are table[l][2i] and table[l][2i+1].
Tensor Rope(const Tensor& x, const Tensor& table) {
  Tensor out = Zeros(x.shape);
  const int64_t batch = x.shape[0], seq = x.shape[1], heads = x.shape[2], dim = x.shape[3];
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t l = 0; l < seq; ++l) {
      for (int64_t h = 0; h < heads; ++h) {
        size_t base = static_cast<size_t>(((b * seq + l) * heads + h) * dim);
        for (int64_t i = 0; i + 1 < dim; i += 2) {
          double c = table.data[static_cast<size_t>(l * dim + i)], s = table.data[static_cast<size_t>(l * dim + i + 1)];
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
    case pir::OpFamily::kAttention: return one(Attention(*in[0], {{in[1], in[2]}}));
    case pir::OpFamily::kNorm: {
      const Tensor* weight = in.size() > 1 ? in[1] : nullptr;
      const Tensor* bias = in.size() > 2 ? in[2] : nullptr;
      return one(Norm(op.kind, *in[0], weight, bias, attrs.GetFloat("eps").value_or(1e-5)));
    }
    case pir::OpFamily::kUnary: {
      Tensor out = *in[0];
      for (double& v : out.data) {
        AZ_ASSIGN_OR_RETURN(v, UnaryValue(op.kind, v));
      }
      return one(std::move(out));
    }
    case pir::OpFamily::kBinary: return one(Binary(op.kind, *in[0], *in[1]));
    case pir::OpFamily::kRope: return one(Rope(*in[0], *in[1]));
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
        return Unimplemented("reshape of a block of " + ShapeText(in[0]->shape) + " to " + ShapeText(result_shape) +
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
    case pir::OpFamily::kConv:
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
                             ShapeText(it->second.shape));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<Tensor>> RunReference(const pir::Graph& graph, const std::map<pir::ValueId, Tensor>& leaves) {
  AZ_RETURN_IF_ERROR(CheckLeaves(graph, leaves));
  std::vector<Tensor> values(static_cast<size_t>(graph.num_values()));
  for (const auto& [id, tensor] : leaves) {
    if (graph.IsValidValue(id)) values[static_cast<size_t>(id)] = tensor;
  }
  for (const pir::Op& op : graph.ops()) {
    std::vector<const Tensor*> operands;
    KernelContext ctx;
    for (pir::ValueId v : op.operands) {
      operands.push_back(&values[static_cast<size_t>(v)]);
      ctx.global_operand_shapes.push_back(graph.type(v).shape);
    }
    for (pir::ValueId r : op.results) ctx.result_shapes.push_back(graph.type(r).shape);
    auto results = Execute(op, operands, ctx);
    if (!results.ok()) return Status(results.status().code(), OpLabel(op) + ": " + results.status().message());
    for (size_t r = 0; r < op.results.size(); ++r) {
      AZ_CHECK_MSG(results->at(r).shape == graph.type(op.results[r]).shape, OpLabel(op) + ": result shape");
      values[static_cast<size_t>(op.results[r])] = std::move(results->at(r));
    }
  }
  std::vector<Tensor> outputs;
  for (pir::ValueId v : graph.outputs()) outputs.push_back(values[static_cast<size_t>(v)]);
  return outputs;
}

// ---------------------------------------------------------------- devices

namespace {

// A value as the devices hold it: one block per device, in `sharding`.
struct Held {
  TensorSharding sharding;
  std::vector<Tensor> blocks;  // by logical device id
};

int64_t DeviceOf(const Mesh& mesh, const std::vector<int64_t>& coords) {
  int64_t id = 0;
  for (int a = 0; a < mesh.num_axes(); ++a) id = id * mesh.axis_size(a) + coords[static_cast<size_t>(a)];
  return id;
}

std::vector<int64_t> CoordsOf(const Mesh& mesh, int64_t device) {
  std::vector<int64_t> coords;
  for (int a = 0; a < mesh.num_axes(); ++a) coords.push_back(mesh.Coordinate(device, a));
  return coords;
}

// Global index of the first element of `device`'s block, per dim.
std::vector<int64_t> BlockStart(const Mesh& mesh, const TensorSharding& s, const Shape& shape, int64_t device) {
  Shape local = s.LocalShape(mesh, shape);
  std::vector<int64_t> start(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t index = 0;
    for (int axis : s.dims[d]) index = index * mesh.axis_size(axis) + mesh.Coordinate(device, axis);
    start[d] = index * local[d];
  }
  return start;
}

// The devices that differ from `device` only on `axes` (itself first).
std::vector<int64_t> Peers(const Mesh& mesh, int64_t device, const std::vector<int>& axes) {
  std::vector<int64_t> peers{device};
  std::vector<int64_t> coords = CoordsOf(mesh, device);
  for (int64_t other = 0; other < mesh.num_devices(); ++other) {
    if (other == device) continue;
    bool same = true;
    for (int a = 0; a < mesh.num_axes(); ++a) {
      bool in_group = std::find(axes.begin(), axes.end(), a) != axes.end();
      if (!in_group && mesh.Coordinate(other, a) != coords[static_cast<size_t>(a)]) same = false;
    }
    if (same) peers.push_back(other);
  }
  return peers;
}

// Cuts a whole tensor into every device's block (zeros past the end).
Held Cut(const Mesh& mesh, const Tensor& global, const TensorSharding& s) {
  Held held{s, {}};
  Shape local = s.LocalShape(mesh, global.shape);
  std::vector<int64_t> st = Strides(global.shape);
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    Tensor block = Zeros(local);
    std::vector<int64_t> start = BlockStart(mesh, s, global.shape, device), index(local.size(), 0);
    for (int64_t flat = 0; flat < block.NumElements(); ++flat, Next(index, local)) {
      int64_t at = 0;
      bool inside = true;
      for (size_t d = 0; d < index.size(); ++d) {
        int64_t g = start[d] + index[d];
        inside &= g < global.shape[d];
        at += g * st[d];
      }
      if (inside) block.data[static_cast<size_t>(flat)] = global.data[static_cast<size_t>(at)];
    }
    held.blocks.push_back(std::move(block));
  }
  return held;
}

// The whole tensor: blocks placed, partial axes summed; replicas must agree.
StatusOr<Tensor> Assemble(const Mesh& mesh, const Held& held, const Shape& shape, const std::string& what) {
  Tensor global = Zeros(shape);
  std::vector<int> replica_axes;
  for (int a = 0; a < mesh.num_axes(); ++a) {
    bool used = std::count(held.sharding.partial.begin(), held.sharding.partial.end(), a) > 0;
    for (const auto& dim : held.sharding.dims) used |= std::count(dim.begin(), dim.end(), a) > 0;
    if (!used) replica_axes.push_back(a);
  }
  std::vector<int64_t> st = Strides(shape);
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    const Tensor& block = held.blocks[static_cast<size_t>(device)];
    std::vector<int64_t> coords = CoordsOf(mesh, device);
    bool canonical = true;
    for (int a : replica_axes) {
      canonical &= coords[static_cast<size_t>(a)] == 0;
      coords[static_cast<size_t>(a)] = 0;
    }
    if (!canonical) {
      const Tensor& first = held.blocks[static_cast<size_t>(DeviceOf(mesh, coords))];
      for (size_t i = 0; i < block.data.size(); ++i) {
        double a = block.data[i], b = first.data[i];
        if (std::abs(a - b) > 1e-12 * std::max({1.0, std::abs(a), std::abs(b)})) {
          return InternalError(what + ": device " + std::to_string(device) + "'s replica differs from device " +
                               std::to_string(DeviceOf(mesh, coords)) + "'s");
        }
      }
      continue;
    }
    std::vector<int64_t> start = BlockStart(mesh, held.sharding, shape, device), index(block.shape.size(), 0);
    for (int64_t flat = 0; flat < block.NumElements(); ++flat, Next(index, block.shape)) {
      int64_t at = 0;
      bool inside = true;
      for (size_t d = 0; d < index.size(); ++d) {
        int64_t g = start[d] + index[d];
        inside &= g < shape[d];
        at += g * st[d];
      }
      if (inside) global.data[static_cast<size_t>(at)] += block.data[static_cast<size_t>(flat)];
    }
  }
  return global;
}

// ---------------------------------------------------------------- resharding

// One step of reshard.cc's plan; `next` is the sharding after it.
struct Step {
  enum Kind { kAllReduce, kReduceScatter, kAllToAll, kAllGather, kSlice } kind;
  std::vector<int> axes;
  TensorSharding next;
};

bool Extends(const std::vector<int>& have, const std::vector<int>& want, int axis) {
  return have.size() < want.size() && std::equal(have.begin(), have.end(), want.begin()) && want[have.size()] == axis;
}

// The same steps, in the same order, as EmitReshard (reshard.h).
std::vector<Step> PlanReshard(const TensorSharding& from, const TensorSharding& to) {
  std::vector<Step> steps;
  TensorSharding cur = from;
  const size_t rank = from.dims.size();
  for (int axis : from.partial) {
    if (std::count(to.partial.begin(), to.partial.end(), axis)) continue;
    TensorSharding next = cur;
    next.partial.erase(std::find(next.partial.begin(), next.partial.end(), axis));
    int scatter_dim = -1;
    for (size_t d = 0; d < rank; ++d) {
      if (Extends(cur.dims[d], to.dims[d], axis)) scatter_dim = static_cast<int>(d);
    }
    if (scatter_dim >= 0) next.dims[static_cast<size_t>(scatter_dim)].push_back(axis);
    steps.push_back({scatter_dim >= 0 ? Step::kReduceScatter : Step::kAllReduce, {axis}, next});
    cur = next;
  }
  for (size_t src = 0; src < rank; ++src) {
    while (!cur.dims[src].empty()) {
      int axis = cur.dims[src].back();
      if (cur.dims[src].size() <= to.dims[src].size() &&
          std::equal(cur.dims[src].begin(), cur.dims[src].end(), to.dims[src].begin())) {
        break;
      }
      int dst = -1;
      for (size_t d = 0; d < rank; ++d) {
        if (d != src && Extends(cur.dims[d], to.dims[d], axis)) dst = static_cast<int>(d);
      }
      if (dst < 0) break;
      TensorSharding next = cur;
      next.dims[src].pop_back();
      next.dims[static_cast<size_t>(dst)].push_back(axis);
      steps.push_back({Step::kAllToAll, {axis}, next});
      cur = next;
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    const auto& have = cur.dims[d];
    const auto& want = to.dims[d];
    size_t common = 0;
    while (common < have.size() && common < want.size() && have[common] == want[common]) ++common;
    if (common == have.size()) continue;
    TensorSharding next = cur;
    next.dims[d].resize(common);
    steps.push_back({Step::kAllGather, std::vector<int>(have.begin() + static_cast<long>(common), have.end()), next});
    cur = next;
  }
  if (cur.dims != to.dims) {
    TensorSharding next = cur;
    next.dims = to.dims;
    steps.push_back({Step::kSlice, {}, next});
  }
  return steps;
}

// Checks the planned steps against what EmitReshard emits.
Status CheckAgainstEmitReshard(const Mesh& mesh, const pir::TensorType& type, const TensorSharding& from,
                               const TensorSharding& to, const std::vector<Step>& steps, const std::string& what) {
  cir::Program program;
  cir::Buffer source;
  source.name = "source";
  source.dtype = type.dtype;
  source.shape = from.LocalShape(mesh, type.shape);
  int buffer = program.AddBuffer(std::move(source));
  EmitReshard(mesh, type, buffer, from, to, "reshard", "reshard", program);
  auto mismatch = [&](const std::string& detail) {
    return InternalError(what + ": the simulated resharding " + from.ToString(mesh) + " -> " + to.ToString(mesh) +
                         " differs from reshard.cc's: " + detail);
  };
  if (program.instructions.size() != steps.size()) {
    return mismatch(std::to_string(steps.size()) + " steps, reshard.cc emits " +
                    std::to_string(program.instructions.size()));
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const cir::Instruction& in = program.instructions[i];
    const Step& step = steps[i];
    bool kind_ok = false;
    if (step.kind == Step::kSlice) {
      kind_ok = in.kind == cir::InstrKind::kKernel;
    } else {
      static constexpr cir::CollectiveKind kKinds[] = {cir::CollectiveKind::kAllReduce,
                                                       cir::CollectiveKind::kReduceScatter,
                                                       cir::CollectiveKind::kAllToAll, cir::CollectiveKind::kAllGather};
      kind_ok = in.kind == cir::InstrKind::kCollective && in.collective == kKinds[step.kind] &&
                in.groups == GroupsOverAxes(mesh, step.axes);
    }
    if (!kind_ok) return mismatch("step " + std::to_string(i) + " is '" + in.name + "'");
    const Shape& shape = program.buffers[static_cast<size_t>(in.results.at(0))].shape;
    if (shape != step.next.LocalShape(mesh, type.shape)) {
      return mismatch("step " + std::to_string(i) + " leaves local shape " + ShapeText(shape) + ", expected " +
                      ShapeText(step.next.LocalShape(mesh, type.shape)));
    }
  }
  return Status::Ok();
}

// Every device's block in `next`, read only from the blocks its peers over
// `group_axes` hold in `held` (itself for a local slice).
StatusOr<Held> FromGroup(const Mesh& mesh, const Held& held, const Shape& shape, const TensorSharding& next,
                         const std::vector<int>& group_axes, const std::string& what) {
  Held out{next, {}};
  Shape local = next.LocalShape(mesh, shape);
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    Tensor block = Zeros(local);
    std::vector<int64_t> peers = Peers(mesh, device, group_axes);
    std::vector<std::vector<int64_t>> peer_start;
    for (int64_t peer : peers) peer_start.push_back(BlockStart(mesh, held.sharding, shape, peer));
    std::vector<int64_t> start = BlockStart(mesh, next, shape, device), index(local.size(), 0), g(local.size());
    for (int64_t flat = 0; flat < block.NumElements(); ++flat, Next(index, local)) {
      bool padding = false;
      for (size_t d = 0; d < local.size(); ++d) {
        g[d] = start[d] + index[d];
        padding |= g[d] >= shape[d];
      }
      if (padding) continue;
      bool found = false;
      for (size_t p = 0; p < peers.size() && !found; ++p) {
        const Tensor& source = held.blocks[static_cast<size_t>(peers[p])];
        std::vector<int64_t> st = Strides(source.shape);
        int64_t at = 0;
        bool inside = true;
        for (size_t d = 0; d < local.size() && inside; ++d) {
          int64_t offset = g[d] - peer_start[p][d];
          inside = offset >= 0 && offset < source.shape[d];
          at += offset * st[d];
        }
        if (!inside) continue;
        block.data[static_cast<size_t>(flat)] = source.data[static_cast<size_t>(at)];
        found = true;
      }
      if (!found) {
        return InternalError(what + ": device " + std::to_string(device) + " needs data no device of its group holds");
      }
    }
    out.blocks.push_back(std::move(block));
  }
  return out;
}

StatusOr<Held> Reshard(const Mesh& mesh, const pir::TensorType& type, const Held& held, const TensorSharding& to,
                       const std::string& what) {
  if (held.sharding == to) return held;
  std::vector<Step> steps = PlanReshard(held.sharding, to);
  AZ_RETURN_IF_ERROR(CheckAgainstEmitReshard(mesh, type, held.sharding, to, steps, what));
  Held cur = held;
  for (const Step& step : steps) {
    if (step.kind == Step::kAllReduce || step.kind == Step::kReduceScatter) {
      Held summed{cur.sharding, {}};
      summed.sharding.partial = step.next.partial;
      for (int64_t device = 0; device < mesh.num_devices(); ++device) {
        Tensor sum = Zeros(cur.blocks[static_cast<size_t>(device)].shape);
        for (int64_t peer : Peers(mesh, device, step.axes)) {
          const Tensor& block = cur.blocks[static_cast<size_t>(peer)];
          for (size_t i = 0; i < sum.data.size(); ++i) sum.data[i] += block.data[i];
        }
        summed.blocks.push_back(std::move(sum));
      }
      cur = std::move(summed);
      if (step.kind == Step::kAllReduce) continue;
      AZ_ASSIGN_OR_RETURN(cur, FromGroup(mesh, cur, type.shape, step.next, {}, what));
      continue;
    }
    AZ_ASSIGN_OR_RETURN(cur, FromGroup(mesh, cur, type.shape, step.next, step.axes, what));
  }
  AZ_CHECK(cur.sharding == to);
  return cur;
}

int FactorIndex(const pir::FactorRule& rule, const std::string& name) {
  for (size_t i = 0; i < rule.factors.size(); ++i) {
    if (rule.factors[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

class Simulation {
 public:
  Simulation(const pir::Graph& graph, const shard::ShardingPlan& plan, const PartitionedOptions& options)
      : graph_(graph), plan_(plan), mesh_(plan.mesh), options_(options) {}

  StatusOr<std::vector<Tensor>> Run(const std::map<pir::ValueId, Tensor>& leaves) {
    if (static_cast<int>(plan_.values.size()) != graph_.num_values() ||
        static_cast<int>(plan_.ops.size()) != graph_.num_ops() ||
        static_cast<int>(plan_.rules.size()) != graph_.num_ops()) {
      return InvalidArgument("the plan does not cover the graph's values and ops");
    }
    held_.resize(static_cast<size_t>(graph_.num_values()));
    for (const auto& [id, tensor] : leaves) {
      if (!graph_.IsValidValue(id) || graph_.value(id).role == pir::ValueRole::kActivation) continue;
      const TensorSharding& s = plan_.values[static_cast<size_t>(id)];
      if (!s.partial.empty() || s.dims.size() != tensor.shape.size()) {
        return InvalidArgument("leaf '" + graph_.value(id).name + "' has an unusable sharding " + s.ToString(mesh_));
      }
      held_[static_cast<size_t>(id)] = Cut(mesh_, tensor, s);
    }
    for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
      Status status = RunOp(id);
      if (!status.ok()) return Status(status.code(), OpLabel(graph_.op(id)) + ": " + status.message());
    }
    std::vector<Tensor> outputs;
    for (pir::ValueId v : graph_.outputs()) {
      AZ_ASSIGN_OR_RETURN(Tensor t, Assemble(mesh_, held_[static_cast<size_t>(v)], graph_.type(v).shape,
                                             "output %" + std::to_string(v)));
      outputs.push_back(std::move(t));
    }
    return outputs;
  }

 private:
  Status RunOp(pir::OpId id) {
    const pir::Op& op = graph_.op(id);
    const pir::FactorRule& rule = plan_.rules[static_cast<size_t>(id)];
    const shard::OpSharding& sharding = plan_.ops[static_cast<size_t>(id)];
    AZ_RETURN_IF_ERROR(shard::CheckOpSharding(rule, sharding, mesh_));
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind == pir::FactorKind::kPermutation && !sharding.factor_axes[f].empty()) {
        return Unimplemented("factor '" + rule.factors[f].name + "' (a concat or slice dim) is sharded");
      }
    }
    std::vector<Held> operands;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      pir::ValueId v = op.operands[i];
      TensorSharding required = shard::RequiredOperandSharding(rule, sharding, static_cast<int>(i));
      AZ_ASSIGN_OR_RETURN(Held h, Reshard(mesh_, graph_.type(v), held_[static_cast<size_t>(v)], required,
                                          "operand " + std::to_string(i)));
      operands.push_back(std::move(h));
    }
    std::vector<int> ring_axes;
    if (op.kind == pir::OpKind::kAttention) {
      AZ_ASSIGN_OR_RETURN(ring_axes, RingAxes(rule, sharding, operands));
    }
    const TensorSharding produced = shard::ProducedResultSharding(rule, sharding, 0);
    if (op.kind == pir::OpKind::kReduce && op.attrs.GetString("kind").value_or("sum") == "max" &&
        !produced.partial.empty()) {
      return Unimplemented("a max over a sharded dim leaves partial maxima, which no sum completes");
    }
    std::vector<std::vector<Tensor>> results(op.results.size());
    for (int64_t device = 0; device < mesh_.num_devices(); ++device) {
      KernelContext ctx;
      std::vector<const Tensor*> in;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        in.push_back(&operands[i].blocks[static_cast<size_t>(device)]);
        ctx.global_operand_shapes.push_back(graph_.type(op.operands[i]).shape);
      }
      for (pir::ValueId r : op.results) {
        ctx.result_shapes.push_back(plan_.values[static_cast<size_t>(r)].LocalShape(mesh_, graph_.type(r).shape));
      }
      for (int axis : produced.partial) ctx.add_bias &= !options_.bias_once_per_partial_group || mesh_.Coordinate(device, axis) == 0;
      std::vector<Tensor> out;
      if (!ring_axes.empty()) {
        std::vector<std::pair<const Tensor*, const Tensor*>> blocks;
        for (int64_t peer : Peers(mesh_, device, ring_axes)) {
          blocks.push_back({&operands[1].blocks[static_cast<size_t>(peer)], &operands[2].blocks[static_cast<size_t>(peer)]});
        }
        out.push_back(Attention(*in[0], blocks));
      } else {
        AZ_ASSIGN_OR_RETURN(out, Execute(op, in, ctx));
      }
      for (size_t r = 0; r < op.results.size(); ++r) {
        if (out[r].shape != ctx.result_shapes[r]) {
          return InternalError("device " + std::to_string(device) + " computes a block of " + ShapeText(out[r].shape) +
                               " for result " + std::to_string(r) + ", its sharding " +
                               plan_.values[static_cast<size_t>(op.results[r])].ToString(mesh_) + " holds " +
                               ShapeText(ctx.result_shapes[r]));
        }
        results[r].push_back(std::move(out[r]));
      }
    }
    for (size_t r = 0; r < op.results.size(); ++r) {
      held_[static_cast<size_t>(op.results[r])] = {plan_.values[static_cast<size_t>(op.results[r])], std::move(results[r])};
    }
    return Status::Ok();
  }

  // The ring of a ring attention (its kv axes, all of them q axes); empty when
  // kv is unsharded. kv on an axis q is not on would leave per-block softmaxes
  // that no sum completes.
  StatusOr<std::vector<int>> RingAxes(const pir::FactorRule& rule, const shard::OpSharding& sharding,
                                      const std::vector<Held>& operands) const {
    const auto& kv = sharding.factor_axes[static_cast<size_t>(FactorIndex(rule, "kv"))];
    const auto& q = sharding.factor_axes[static_cast<size_t>(FactorIndex(rule, "q"))];
    for (int axis : kv) {
      if (std::find(q.begin(), q.end(), axis) == q.end()) {
        return Unimplemented("attention's key sequence is sharded on \"" + mesh_.axis_name(axis) +
                             "\", its queries are not: per-block softmaxes are no partial sum");
      }
    }
    if (!kv.empty() && operands[1].blocks[0].shape[1] * mesh_.AxesSize(kv) != rule.factors[static_cast<size_t>(
                                                                                      FactorIndex(rule, "kv"))].size) {
      return Unimplemented("ring attention over padded key blocks (padding would need masking)");
    }
    return kv;
  }

  const pir::Graph& graph_;
  const shard::ShardingPlan& plan_;
  const Mesh& mesh_;
  const PartitionedOptions& options_;
  std::vector<Held> held_;
};

}  // namespace

StatusOr<std::vector<Tensor>> RunPartitioned(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                             const std::map<pir::ValueId, Tensor>& leaves,
                                             const PartitionedOptions& options) {
  AZ_RETURN_IF_ERROR(CheckLeaves(graph, leaves));
  return Simulation(graph, plan, options).Run(leaves);
}

}  // namespace az::compile
