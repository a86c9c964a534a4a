// Backward of einsum, attention and convolution (forward rules:
// src/pir/rules/contraction.cc).
//
// Einsum Y = einsum("A,B->Y", a, b): dA = einsum("B,Y->A", b, dY) and dB =
// einsum("A,Y->B", a, dY). Each visits every letter of the forward (the
// letters of A are in B or Y), so each costs the forward's FLOPs: a matmul's
// backward is twice its forward. The incoming gradient is always the second
// operand, so no backward einsum looks like a forward linear (a weight as the
// second operand) to the parallelism templates. A letter of A in neither B nor
// Y (summed out of a alone) is broadcast back.
#include "pir/grad/rules.h"
#include "pir/rules/rule.h"

namespace az::pir::grad {

namespace {

// The gradient of einsum operand `self` (0 or 1) from the other operand and dY.
ValueId EinsumOperandGrad(BackwardContext& ctx, const EinsumEquation& eq, size_t self) {
  const size_t other = 1 - self;
  const std::string& target = eq.inputs[self];
  std::string reached;  // letters of the operand that the other operand or Y carries
  std::vector<int64_t> dims;
  Shape reached_shape;
  const Shape shape = ctx.OperandType(self).shape;
  for (size_t d = 0; d < target.size(); ++d) {
    char c = target[d];
    if (eq.inputs[other].find(c) == std::string::npos && eq.output.find(c) == std::string::npos) continue;
    reached += c;
    dims.push_back(static_cast<int64_t>(d));
    reached_shape.push_back(shape[d]);
  }
  const std::string leaf = self == 0 ? "lhs" : "rhs";
  ValueId grad =
      ctx.b.Einsum(ctx.Name(leaf), eq.inputs[other] + "," + eq.output + "->" + reached, ctx.Operand(other), ctx.Grad());
  if (reached.size() == target.size()) return grad;
  return ctx.b.Broadcast(ctx.Name(leaf + ".broadcast"), grad, shape, dims);
}

}  // namespace

StatusOr<Grads> BackwardEinsum(BackwardContext& ctx) {
  AZ_ASSIGN_OR_RETURN(EinsumEquation eq, ParseEinsumEquation(ctx.op.attrs.GetString("eq").value_or("")));
  Grads grads(ctx.op.operands.size(), kNoValue);
  for (size_t self = 0; self < 2; ++self) {
    if (ctx.Needs(self)) grads[self] = EinsumOperandGrad(ctx, eq, self);
  }
  if (grads.size() == 3 && ctx.Needs(2)) {
    // The bias is added along the result's trailing dims: sum over the others.
    const int64_t lead = ctx.ResultType().rank() - ctx.OperandType(2).rank();
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
    grads[2] = dims.empty() ? ctx.Grad() : ctx.b.Reduce(ctx.Name("bias"), ctx.Grad(), dims, "sum");
  }
  return grads;
}

std::vector<ValueId> ReadsEinsum(const Graph&, const Op& op, const std::vector<bool>& needs) {
  std::vector<ValueId> reads;
  if (needs[0]) reads.push_back(op.operands[1]);
  if (needs[1]) reads.push_back(op.operands[0]);
  return reads;
}

// ---------------------------------------------------------------- attention
// One attention_grad: (q, k, v, o, dO, lse) -> (dq, dk, dv).

StatusOr<Grads> BackwardAttention(BackwardContext& ctx) {
  // attention_grad is the unmasked, equal-heads kernel (the zoo's DiTs);
  // imported programs (masked, grouped-query) are planned for inference only.
  if (ctx.op.operands.size() > 3 || ctx.op.attrs.GetString("mask").value_or("none") != "none" ||
      ctx.OperandType(0).shape[2] != ctx.OperandType(1).shape[2]) {
    return Unimplemented("'" + ctx.op.name + "': the backward of a masked or grouped-query attention");
  }
  if (ctx.op.results.size() > 1 && ctx.Grad(1) != kNoValue) {
    return Unimplemented("'" + ctx.op.name + "': a gradient flows into attention's log-sum-exp");
  }
  ValueId lse;
  if (ctx.op.results.size() > 1) {
    lse = ctx.Result(1);
  } else {
    Attributes attrs = ctx.op.attrs;
    attrs.Set("lse", true);
    lse = ctx.b.AddOp(OpKind::kAttention, ctx.Name("lse"), {ctx.Operand(0), ctx.Operand(1), ctx.Operand(2)}, attrs)[1];
  }
  Attributes attrs;
  for (const char* key : {"mode", "joint_tail"}) {
    if (const AttrValue* value = ctx.op.attrs.Find(key)) attrs.Set(key, *value);
  }
  ValueId d_out = ctx.b.CastTo(ctx.Name("do"), ctx.Grad(), ctx.ResultType().dtype);
  std::vector<ValueId> grads =
      ctx.b.AddOp(OpKind::kAttentionGrad, ctx.Name("attention"),
                  {ctx.Operand(0), ctx.Operand(1), ctx.Operand(2), ctx.Result(0), d_out, lse}, std::move(attrs));
  Grads out(3, kNoValue);
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.Needs(i)) out[i] = grads[i];
  }
  return out;
}

std::vector<ValueId> ReadsAttention(const Graph&, const Op& op, const std::vector<bool>&) {
  std::vector<ValueId> reads = op.operands;
  reads.insert(reads.end(), op.results.begin(), op.results.end());
  return reads;
}

// ---------------------------------------------------------------- conv3d
// Patchify only (kernel = stride, no padding, exact tiling): the convolution
// is then an einsum over x viewed as [B, C, T', kt, H', kh, W', kw]:
//   y[b,o,T,H,W] = sum_{c,t,h,w} xv[b,c,T,t,H,h,W,w] * w[o,c,t,h,w] (+ bias[o]),
// and its gradients are that einsum's, at the forward's FLOPs each.

namespace {

struct Patchify {
  Shape view;  // x as [B, C, T', kt, H', kh, W', kw]
};

StatusOr<Patchify> PatchifyView(const BackwardContext& ctx) {
  const Shape x = ctx.OperandType(0).shape;
  const Shape w = ctx.OperandType(1).shape;
  auto stride = ctx.op.attrs.GetInts("stride").value_or(std::vector<int64_t>{});
  auto padding = ctx.op.attrs.GetInts("padding").value_or(std::vector<int64_t>(6, 0));
  Patchify p;
  p.view = {x[0], x[1]};
  for (size_t i = 0; i < 3; ++i) {
    const int64_t k = w[2 + i];
    if (stride.size() != 3 || stride[i] != k || padding[2 * i] != 0 || padding[2 * i + 1] != 0 || x[2 + i] % k != 0) {
      return Unimplemented("'" + ctx.op.name +
                           "': the gradient of a convolution with overlapping or padded windows (only patchify "
                           "convolutions, kernel = stride, have one)");
    }
    p.view.push_back(x[2 + i] / k);
    p.view.push_back(k);
  }
  return p;
}

}  // namespace

StatusOr<Grads> BackwardConv(BackwardContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Patchify p, PatchifyView(ctx));
  // Letters: b batch, c in channels, o out channels, T/H/W windows, t/h/w offsets.
  const std::string x_view = "bcTtHhWw", weight = "octhw", y = "boTHW";
  Grads grads(ctx.op.operands.size(), kNoValue);
  if (ctx.Needs(1)) {
    ValueId xv = ctx.b.Reshape(ctx.Name("x_view"), ctx.Operand(0), p.view);
    grads[1] = ctx.b.Einsum(ctx.Name("weight"), x_view + "," + y + "->" + weight, xv, ctx.Grad());
  }
  if (ctx.Needs(0)) {
    ValueId dxv = ctx.b.Einsum(ctx.Name("x"), weight + "," + y + "->" + x_view, ctx.Operand(1), ctx.Grad());
    grads[0] = ctx.b.Reshape(ctx.Name("x.unview"), dxv, ctx.OperandType(0).shape);
  }
  if (grads.size() == 3 && ctx.Needs(2)) grads[2] = ctx.b.Reduce(ctx.Name("bias"), ctx.Grad(), {0, 2, 3, 4}, "sum");
  return grads;
}

std::vector<ValueId> ReadsConv(const Graph&, const Op& op, const std::vector<bool>& needs) {
  std::vector<ValueId> reads;
  if (needs[1]) reads.push_back(op.operands[0]);
  if (needs[0]) reads.push_back(op.operands[1]);
  return reads;
}

}  // namespace az::pir::grad
