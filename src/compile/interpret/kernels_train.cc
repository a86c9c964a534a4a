// Kernels of the reference interpreter for training graphs: attention with its
// log-sum-exp, the fused backward kernels (attention_grad, norm gradients),
// full, and conv3d (a patch embedding's forward; its backward is einsums).
#include <cmath>

#include "compile/interpret/kernels.h"

namespace az::compile::interpret {

using pir::Shape;

std::vector<Tensor> AttentionResults(const Tensor& q,
                                     const std::vector<std::pair<const Tensor*, const Tensor*>>& kv_blocks,
                                     bool with_lse) {
  const int64_t dv = kv_blocks.front().second->shape[3];
  AttentionState state(q.shape[0] * q.shape[1] * q.shape[2], dv);
  for (const auto& [k, v] : kv_blocks) AttendBlock(q, *k, *v, state);
  std::vector<Tensor> out{FinishAttention(q, state)};
  if (!with_lse) return out;
  Tensor lse = Zeros({q.shape[0], q.shape[1], q.shape[2]});
  for (int64_t row = 0; row < state.rows; ++row) {
    const size_t r = static_cast<size_t>(row);
    lse.data[r] = state.max[r] + std::log(state.sum[r]);
  }
  out.push_back(std::move(lse));
  return out;
}

// FlashAttention-2's backward on whole rows: P = exp(S - lse) from the saved
// log-sum-exp, D = rowsum(dO * O), dS = P * (dO V^T - D).
std::vector<Tensor> AttentionGrad(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& d_o,
                                  const Tensor& lse) {
  const int64_t batch = q.shape[0], lq = q.shape[1], heads = q.shape[2], dim = q.shape[3];
  const int64_t lk = k.shape[1], dv = v.shape[3];
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  Tensor dq = Zeros(q.shape), dk = Zeros(k.shape), d_v = Zeros(v.shape);
  auto q_at = [&](int64_t b, int64_t i, int64_t h) { return static_cast<size_t>(((b * lq + i) * heads + h)); };
  auto k_at = [&](int64_t b, int64_t j, int64_t h) { return static_cast<size_t>(((b * lk + j) * heads + h)); };
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < lq; ++i) {
      for (int64_t h = 0; h < heads; ++h) {
        const size_t row = q_at(b, i, h);
        const double* qrow = &q.data[row * static_cast<size_t>(dim)];
        const double* orow = &o.data[row * static_cast<size_t>(dv)];
        const double* dorow = &d_o.data[row * static_cast<size_t>(dv)];
        double delta = 0;
        for (int64_t e = 0; e < dv; ++e) delta += dorow[e] * orow[e];
        for (int64_t j = 0; j < lk; ++j) {
          const size_t key = k_at(b, j, h);
          const double* krow = &k.data[key * static_cast<size_t>(dim)];
          const double* vrow = &v.data[key * static_cast<size_t>(dv)];
          double s = 0, dp = 0;
          for (int64_t d = 0; d < dim; ++d) s += qrow[d] * krow[d];
          for (int64_t e = 0; e < dv; ++e) dp += dorow[e] * vrow[e];
          const double p = std::exp(s * scale - lse.data[row]);
          const double ds = p * (dp - delta);
          for (int64_t e = 0; e < dv; ++e)
            d_v.data[key * static_cast<size_t>(dv) + static_cast<size_t>(e)] += p * dorow[e];
          for (int64_t d = 0; d < dim; ++d) {
            dq.data[row * static_cast<size_t>(dim) + static_cast<size_t>(d)] += scale * ds * krow[d];
            dk.data[key * static_cast<size_t>(dim) + static_cast<size_t>(d)] += scale * ds * qrow[d];
          }
        }
      }
    }
  }
  return {std::move(dq), std::move(dk), std::move(d_v)};
}

// dx of a layer / RMS norm over the last dim, statistics recomputed from x:
// g = weight * dy, dx = rstd * (g - mean(g) - x-hat * mean(g * x-hat)) (RMS:
// without the mean(g) term, x-hat = x * rstd).
Tensor NormGrad(pir::OpKind kind, const Tensor& x, const Tensor& dy, const Tensor* weight, double eps) {
  Tensor dx = Zeros(x.shape);
  const int64_t n = x.shape.empty() ? 1 : x.shape.back();
  const int64_t rows = n ? x.NumElements() / n : 0;
  const bool layer = kind == pir::OpKind::kLayerNormGrad;
  std::vector<double> g(static_cast<size_t>(n)), x_hat(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const size_t base = static_cast<size_t>(r * n);
    double mean = 0, square = 0;
    for (int64_t i = 0; i < n; ++i) {
      mean += x.data[base + static_cast<size_t>(i)];
      square += x.data[base + static_cast<size_t>(i)] * x.data[base + static_cast<size_t>(i)];
    }
    mean /= static_cast<double>(n);
    square /= static_cast<double>(n);
    const double center = layer ? mean : 0.0;
    const double rstd = 1.0 / std::sqrt((layer ? square - mean * mean : square) + eps);
    double mean_g = 0, mean_g_x_hat = 0;
    for (int64_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(i);
      x_hat[at] = (x.data[base + at] - center) * rstd;
      g[at] = dy.data[base + at] * (weight ? weight->data[at] : 1.0);
      mean_g += g[at];
      mean_g_x_hat += g[at] * x_hat[at];
    }
    mean_g /= static_cast<double>(n);
    mean_g_x_hat /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(i);
      dx.data[base + at] = rstd * (g[at] - (layer ? mean_g : 0.0) - x_hat[at] * mean_g_x_hat);
    }
  }
  return dx;
}

// y[b,o,t,y,x] = bias[o] + sum_{c,kt,ky,kx} x[b,c,t*st+kt-pt,...] * w[o,c,kt,ky,kx],
// zero outside x (padding).
StatusOr<Tensor> Conv3d(const Tensor& x, const Tensor& w, const Tensor* bias, const pir::Attributes& attrs,
                        const Shape& result_shape, bool add_bias) {
  auto stride = attrs.GetInts("stride").value_or(std::vector<int64_t>{1, 1, 1});
  auto padding = attrs.GetInts("padding").value_or(std::vector<int64_t>(6, 0));
  if (x.shape.size() != 5 || w.shape.size() != 5 || result_shape.size() != 5 || stride.size() != 3 ||
      padding.size() != 6) {
    return InvalidArgument("conv3d kernel: unexpected ranks or attributes");
  }
  Tensor out = Zeros(result_shape);
  const std::vector<int64_t> xs = Strides(x.shape), ws = Strides(w.shape);
  std::vector<int64_t> index(5, 0);
  for (int64_t flat = 0; flat < out.NumElements(); ++flat, Next(index, result_shape)) {
    const int64_t b = index[0], o = index[1];
    double sum = bias && add_bias ? bias->data[static_cast<size_t>(o)] : 0.0;
    for (int64_t c = 0; c < w.shape[1]; ++c) {
      for (int64_t kt = 0; kt < w.shape[2]; ++kt) {
        for (int64_t ky = 0; ky < w.shape[3]; ++ky) {
          for (int64_t kx = 0; kx < w.shape[4]; ++kx) {
            const int64_t pos[3] = {index[2] * stride[0] + kt - padding[0], index[3] * stride[1] + ky - padding[2],
                                    index[4] * stride[2] + kx - padding[4]};
            bool inside = true;
            for (int i = 0; i < 3; ++i) inside &= pos[i] >= 0 && pos[i] < x.shape[static_cast<size_t>(2 + i)];
            if (!inside) continue;
            const int64_t at = b * xs[0] + c * xs[1] + pos[0] * xs[2] + pos[1] * xs[3] + pos[2] * xs[4];
            const int64_t wat = o * ws[0] + c * ws[1] + kt * ws[2] + ky * ws[3] + kx * ws[4];
            sum += x.data[static_cast<size_t>(at)] * w.data[static_cast<size_t>(wat)];
          }
        }
      }
    }
    out.data[static_cast<size_t>(flat)] = sum;
  }
  return out;
}

}  // namespace az::compile::interpret
