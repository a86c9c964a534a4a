// The fused backward kernels: flash-attention backward and norm backward. The
// backward of every other op is written with forward kinds (src/pir/grad).
#include "pir/rules/families.h"

namespace az::pir {

namespace {
std::vector<int> Dim(int factor, int64_t size) { return size == 1 ? std::vector<int>{} : std::vector<int>{factor}; }
}  // namespace

// ---------------------------------------------------------------- attention_grad
// (q [B, Lq, H, D], k [B, Lk, H, D], v [B, Lk, H, Dv], o [B, Lq, H, Dv],
//  do [B, Lq, H, Dv], lse f32 [B, Lq, H]) -> (dq, dk, dv), each typed like
// q, k, v. FlashAttention-2's backward: per block of keys it rebuilds
// P = exp(Q K^T * scale - lse), then dV += P^T dO, dP = dO V^T,
// dS = P * (dP - rowsum(dO * O)), dQ += dS K * scale, dK += dS^T Q * scale.
// attrs: those of the forward (mode, joint_tail).

TypesOr InferAttentionGrad(const OpContext& ctx) {
  const std::vector<TensorType> forward_operands(ctx.operands.begin(), ctx.operands.begin() + 3);
  const std::vector<TensorType> none;
  AZ_ASSIGN_OR_RETURN(std::vector<TensorType> forward,
                      InferAttention(OpContext{OpKind::kAttention, forward_operands, ctx.attrs, none}));
  const TensorType& o = ctx.operands[3];
  const TensorType& d_o = ctx.operands[4];
  const TensorType& lse = ctx.operands[5];
  if (o.shape != forward[0].shape || d_o.shape != forward[0].shape) {
    return InvalidArgument("attention_grad's o and do must be " + ShapeString(forward[0].shape) + ", got " +
                           o.ToString() + " and " + d_o.ToString());
  }
  const Shape& q = ctx.operands[0].shape;
  if (lse != TensorType{DType::kF32, {q[0], q[1], q[2]}}) {
    return InvalidArgument("attention_grad's lse must be f32" + ShapeString({q[0], q[1], q[2]}) + ", got " +
                           lse.ToString());
  }
  return std::vector<TensorType>{ctx.operands[0], ctx.operands[1], ctx.operands[2]};
}

// The query sequence, the key sequence and the value head dim are each summed
// over for some results (rule.h: a reduction factor a result may keep): dK and
// dV sum over the queries, dQ over the keys, dQ and dK over the value dim (dP =
// dO V^T). Sharding the queries is context parallelism with gathered keys: dQ
// is complete, dK and dV partial. The head dim stays whole (it is contracted
// before the softmax), as in the forward.
StatusOr<FactorRule> RuleAttentionGrad(const OpContext& ctx) {
  const Shape& q = ctx.operands[0].shape;
  const Shape& k = ctx.operands[1].shape;
  const Shape& v = ctx.operands[2].shape;
  FactorRuleBuilder b;
  int batch = b.AddFactor("b", q[0]);
  int query = b.AddFactor("q", q[1], FactorKind::kReduction);
  int heads = b.AddFactor("h", q[2]);
  int value_dim = b.AddFactor("v", v[3], FactorKind::kReduction);
  int key = b.AddFactor("kv", k[1], FactorKind::kReduction);
  int head_dim = b.AddFactor("d", q[3], FactorKind::kNeedReplication);
  TensorFactors q_dims{Dim(batch, q[0]), Dim(query, q[1]), Dim(heads, q[2]), Dim(head_dim, q[3])};
  TensorFactors k_dims{Dim(batch, k[0]), Dim(key, k[1]), Dim(heads, k[2]), Dim(head_dim, k[3])};
  TensorFactors v_dims{Dim(batch, v[0]), Dim(key, v[1]), Dim(heads, v[2]), Dim(value_dim, v[3])};
  TensorFactors o_dims{Dim(batch, q[0]), Dim(query, q[1]), Dim(heads, q[2]), Dim(value_dim, v[3])};
  b.Operand(q_dims).Operand(k_dims).Operand(v_dims).Operand(o_dims).Operand(o_dims);
  b.Operand({Dim(batch, q[0]), Dim(query, q[1]), Dim(heads, q[2])});
  b.Result(q_dims).Result(k_dims).Result(v_dims);
  return b.Build();
}

// ---------------------------------------------------------------- norm grads
// (x [..., N], dy like x, optional weight [N]) -> dx like x; attr eps. The
// row statistics are recomputed from x (no saved mean / rstd), so the forward
// keeps only x. The weight's and bias's gradients are forward ops (sums of
// dy * x-hat and of dy over the rows), not this kernel's.

TypesOr InferNormGrad(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  if (x.rank() < 1) return InvalidArgument("a norm gradient needs an operand of rank >= 1");
  if (ctx.operands[1].shape != x.shape) {
    return InvalidArgument("norm gradient dy must be " + ShapeString(x.shape) + ", got " + ctx.operands[1].ToString());
  }
  if (ctx.operands.size() == 3 && ctx.operands[2].shape != Shape{x.shape.back()}) {
    return InvalidArgument("norm gradient weight must be [" + std::to_string(x.shape.back()) + "], got " +
                           ctx.operands[2].ToString());
  }
  if (auto eps = ctx.attrs.GetFloat("eps"); eps && !(*eps >= 0)) return InvalidArgument("norm eps must be >= 0");
  return std::vector<TensorType>{x};
}

// As the forward norm: rows pass through, the normalized dim's statistics
// (here the backward sums, StatisticsOf) are all-reduced when it is sharded.
StatusOr<FactorRule> RuleNormGrad(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  FactorRuleBuilder b;
  TensorFactors dims;
  for (int64_t i = 0; i + 1 < x.rank(); ++i)
    dims.push_back(Dim(b.AddFactor("d" + std::to_string(i), x.shape[i]), x.shape[i]));
  int norm = b.AddFactor("n", x.shape.back(), FactorKind::kNormalized);
  dims.push_back(Dim(norm, x.shape.back()));
  b.Operand(dims).Operand(dims);
  if (ctx.operands.size() == 3) b.Operand({Dim(norm, x.shape.back())});
  b.Result(dims);
  return b.Build();
}

}  // namespace az::pir
