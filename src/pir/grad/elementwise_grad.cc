// Backward of norms, element-wise ops, RoPE, softmax and broadcast (forward
// rules: src/pir/rules/elementwise.cc). Pointwise derivatives are chains of
// element-wise ops on scalar `full` literals of the operand's dtype; they read
// the forward input x where PyTorch's backward kernels do (gelu, silu), the
// forward result y where that is cheaper (exp, tanh, sigmoid, rsqrt, sqrt,
// recip, softmax). Chains are built one builder call per argument list, in
// the order written (graph_builder.h, Op order).
#include <cmath>
#include <numbers>

#include "pir/grad/rules.h"
#include "pir/rules/rule.h"

namespace az::pir::grad {

ValueId BackwardContext::SumToShape(const std::string& leaf, ValueId dy, const Shape& shape) {
  const Shape full = b.type(dy).shape;
  const int64_t lead = static_cast<int64_t>(full.size()) - static_cast<int64_t>(shape.size());
  AZ_CHECK(lead >= 0);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < static_cast<int64_t>(full.size()); ++d) {
    if (d < lead || (shape[static_cast<size_t>(d - lead)] == 1 && full[static_cast<size_t>(d)] != 1)) dims.push_back(d);
  }
  if (dims.empty()) return dy;
  ValueId sum = b.Reduce(Name(leaf + ".sum"), dy, dims, "sum");
  return b.type(sum).shape == shape ? sum : b.Reshape(Name(leaf + ".unsqueeze"), sum, shape);
}

// ---------------------------------------------------------------- norms
// dx = norm_grad(x, dy[, weight]); d weight = sum over rows of dy * x-hat and
// d bias = sum over rows of dy, with x-hat recomputed by the norm without
// its affine part.

StatusOr<Grads> BackwardNorm(BackwardContext& ctx) {
  const size_t n = ctx.op.operands.size();
  Grads grads(n, kNoValue);
  Attributes eps;
  if (const AttrValue* value = ctx.op.attrs.Find("eps")) eps.Set("eps", *value);
  const bool layer = ctx.op.kind == OpKind::kLayerNorm;
  // The fused norm backward (layer_norm_grad, rms_norm_grad) normalizes over
  // the last dim; group norm and a norm over another axis (VAE decoders, which
  // run in inference only) have none yet.
  if (ctx.op.kind == OpKind::kGroupNorm) return Unimplemented("'" + ctx.op.name + "': group_norm has no backward yet");
  if (NormAxis(ctx.op.attrs, ctx.OperandType(0).rank()) != ctx.OperandType(0).rank() - 1) {
    return Unimplemented("'" + ctx.op.name + "': the backward of a norm over a dim other than the last");
  }
  if (ctx.Needs(0)) {
    std::vector<ValueId> operands{ctx.Operand(0), ctx.Grad()};
    if (n > 1) operands.push_back(ctx.Operand(1));
    grads[0] = ctx.b.AddOp1(layer ? OpKind::kLayerNormGrad : OpKind::kRmsNormGrad, ctx.Name("x"), operands, eps);
  }
  std::vector<int64_t> rows;
  for (int64_t d = 0; d + 1 < ctx.OperandType(0).rank(); ++d) rows.push_back(d);
  if (n > 1 && ctx.Needs(1)) {
    ValueId x_hat = ctx.b.AddOp1(ctx.op.kind, ctx.Name("x_hat"), {ctx.Operand(0)}, eps);
    ValueId product = ctx.b.Binary(OpKind::kMul, ctx.Name("weight.product"), ctx.Grad(), x_hat);
    grads[1] = rows.empty() ? product : ctx.b.Reduce(ctx.Name("weight"), product, rows, "sum");
  }
  if (n > 2 && ctx.Needs(2))
    grads[2] = rows.empty() ? ctx.Grad() : ctx.b.Reduce(ctx.Name("bias"), ctx.Grad(), rows, "sum");
  return grads;
}

std::vector<ValueId> ReadsNorm(const Graph&, const Op& op, const std::vector<bool>& needs) {
  std::vector<ValueId> reads{op.operands[0]};
  if (needs[0] && op.operands.size() > 1) reads.push_back(op.operands[1]);
  return reads;
}

// ---------------------------------------------------------------- unary

namespace {

// Which forward value a unary derivative reads.
enum class Reads { kNothing, kInput, kResult };

Reads UnaryReads(OpKind kind) {
  switch (kind) {
    case OpKind::kConvert:
    case OpKind::kNeg: return Reads::kNothing;
    case OpKind::kExp:
    case OpKind::kTanh:
    case OpKind::kSigmoid:
    case OpKind::kRsqrt:
    case OpKind::kSqrt:
    case OpKind::kRecip: return Reads::kResult;
    default: return Reads::kInput;
  }
}

}  // namespace

StatusOr<Grads> BackwardUnary(BackwardContext& ctx) {
  const OpKind kind = ctx.op.kind;
  // The derivative is computed in the result's dtype (dy's); convert's is dy.
  ValueId dy = ctx.Grad();
  if (kind == OpKind::kConvert) return Grads{dy};
  const DType dt = ctx.ResultType().dtype;
  GraphBuilder& b = ctx.b;
  auto mul = [&](const std::string& leaf, ValueId a, ValueId c) {
    return b.Binary(OpKind::kMul, ctx.Name(leaf), a, c);
  };
  auto add = [&](const std::string& leaf, ValueId a, ValueId c) {
    return b.Binary(OpKind::kAdd, ctx.Name(leaf), a, c);
  };
  auto sub = [&](const std::string& leaf, ValueId a, ValueId c) {
    return b.Binary(OpKind::kSub, ctx.Name(leaf), a, c);
  };
  auto unary = [&](OpKind k, const std::string& leaf, ValueId a) { return b.Unary(k, ctx.Name(leaf), a); };
  auto scalar = [&](const std::string& leaf, double value) { return ctx.Scalar(leaf, value, dt); };
  const Reads reads = UnaryReads(kind);
  const ValueId x = reads == Reads::kInput ? ctx.Operand(0) : kNoValue;
  const ValueId y = reads == Reads::kResult ? ctx.Result(0) : kNoValue;
  ValueId derivative = kNoValue;  // dy/dx, except where noted
  switch (kind) {
    case OpKind::kNeg: return Grads{unary(OpKind::kNeg, "x", dy)};
    case OpKind::kExp: derivative = y; break;
    case OpKind::kTanh: {
      ValueId y2 = mul("y2", y, y);
      derivative = sub("one_minus_y2", scalar("one", 1), y2);
      break;
    }
    case OpKind::kSigmoid: derivative = mul("y_one_minus_y", y, sub("one_minus_y", scalar("one", 1), y)); break;
    case OpKind::kRsqrt: {  // d x^(-1/2) = -1/2 x^(-3/2) = -1/2 y^3
      ValueId y3 = mul("y3", y, mul("y2", y, y));
      derivative = mul("minus_half_y3", scalar("minus_half", -0.5), y3);
      break;
    }
    case OpKind::kSqrt: return Grads{b.Binary(OpKind::kDiv, ctx.Name("x"), mul("half_dy", dy, scalar("half", 0.5)), y)};
    case OpKind::kRecip: derivative = unary(OpKind::kNeg, "minus_y2", mul("y2", y, y)); break;
    case OpKind::kLog: return Grads{b.Binary(OpKind::kDiv, ctx.Name("x"), dy, x)};
    case OpKind::kSin: derivative = unary(OpKind::kCos, "cos", x); break;
    case OpKind::kCos: derivative = unary(OpKind::kNeg, "minus_sin", unary(OpKind::kSin, "sin", x)); break;
    case OpKind::kAbs: {
      Attributes ge;
      ge.Set("direction", std::string("GE"));
      ValueId positive = b.AddOp1(OpKind::kCompare, ctx.Name("positive"), {x, scalar("zero", 0)}, ge);
      return Grads{b.AddOp1(OpKind::kWhere, ctx.Name("x"), {positive, dy, unary(OpKind::kNeg, "minus_dy", dy)})};
    }
    case OpKind::kErf: {  // 2/sqrt(pi) exp(-x^2)
      ValueId gauss = unary(OpKind::kExp, "gauss", mul("minus_x2", unary(OpKind::kNeg, "minus_x", x), x));
      derivative = mul("derivative", scalar("two_over_sqrt_pi", 2 / std::sqrt(std::numbers::pi)), gauss);
      break;
    }
    case OpKind::kSilu: {  // PyTorch silu_backward: s * (1 + x * (1 - s)), s = sigmoid(x)
      ValueId s = unary(OpKind::kSigmoid, "sigmoid", x);
      ValueId one = scalar("one", 1);
      derivative = mul("derivative", s, add("one_plus", one, mul("x_one_minus_s", x, sub("one_minus_s", one, s))));
      break;
    }
    case OpKind::kGelu: {  // Phi(x) + x phi(x) = 1/2 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi)
      ValueId erf = unary(OpKind::kErf, "erf", mul("x_over_sqrt2", x, scalar("inv_sqrt2", std::numbers::sqrt2 / 2)));
      ValueId one_plus_erf = add("one_plus_erf", scalar("one", 1), erf);
      ValueId cdf = mul("cdf", scalar("half", 0.5), one_plus_erf);
      ValueId x2 = mul("x2", x, x);
      ValueId minus_half_x2 = mul("minus_half_x2", scalar("minus_half", -0.5), x2);
      ValueId gauss = unary(OpKind::kExp, "gauss", minus_half_x2);
      ValueId pdf = mul("pdf", scalar("inv_sqrt_2pi", 1 / std::sqrt(2 * std::numbers::pi)), gauss);
      derivative = add("derivative", cdf, mul("x_pdf", x, pdf));
      break;
    }
    case OpKind::kGeluTanh: {
      // PyTorch's GeluBackward (approximate = 'tanh'): with u = beta (x + kappa x^3),
      // beta = sqrt(2 / pi), kappa = 0.044715, t = tanh(u):
      //   d/dx [x/2 (1 + t)] = (1 + t) / 2 + x/2 (1 - t^2) beta (1 + 3 kappa x^2).
      const double beta = std::sqrt(2 / std::numbers::pi), kappa = 0.044715;
      ValueId one = scalar("one", 1), half = scalar("half", 0.5);
      ValueId x2 = mul("x2", x, x);
      ValueId x3 = mul("x3", x2, x);
      ValueId x_plus = add("x_plus", x, mul("kappa_x3", scalar("kappa", kappa), x3));
      ValueId inner = mul("inner", scalar("beta", beta), x_plus);
      ValueId t = unary(OpKind::kTanh, "tanh", inner);
      ValueId left = mul("left", half, add("one_plus_t", one, t));
      ValueId sech2 = sub("one_minus_t2", one, mul("t2", t, t));
      ValueId one_plus_3kx2 = add("one_plus_3kx2", one, mul("3kx2", scalar("three_kappa", 3 * kappa), x2));
      ValueId du = mul("du", scalar("beta2", beta), one_plus_3kx2);
      ValueId sech2_du = mul("sech2_du", sech2, du);
      ValueId right = mul("right", mul("half_x", half, x), sech2_du);
      derivative = add("derivative", left, right);
      break;
    }
    default: return Unimplemented("'" + ctx.op.name + "': " + std::string(OpKindName(kind)) + " has no backward");
  }
  return Grads{mul("x", dy, derivative)};
}

std::vector<ValueId> ReadsUnary(const Graph&, const Op& op, const std::vector<bool>&) {
  switch (UnaryReads(op.kind)) {
    case Reads::kNothing: return {};
    case Reads::kInput: return {op.operands[0]};
    case Reads::kResult: return {op.results[0]};
  }
  return {};
}

// ---------------------------------------------------------------- binary
// With NumPy broadcasting, each operand's gradient is summed down to its shape.

StatusOr<Grads> BackwardBinary(BackwardContext& ctx) {
  const OpKind kind = ctx.op.kind;
  GraphBuilder& b = ctx.b;
  ValueId dy = ctx.Grad();
  const DType dt = ctx.ResultType().dtype;
  Grads grads(ctx.op.operands.size(), kNoValue);
  auto to = [&](size_t operand, const std::string& leaf, ValueId g) {
    grads[operand] = ctx.SumToShape(leaf, g, ctx.OperandType(operand).shape);
  };
  auto mul = [&](const std::string& leaf, ValueId a, ValueId c) {
    return b.Binary(OpKind::kMul, ctx.Name(leaf), a, c);
  };
  auto select = [&](const std::string& leaf, ValueId condition, bool where_true) {
    ValueId zero = ctx.Scalar(leaf + ".zero", 0, dt);
    return b.AddOp1(OpKind::kWhere, ctx.Name(leaf),
                    where_true ? std::vector<ValueId>{condition, dy, zero} : std::vector<ValueId>{condition, zero, dy});
  };
  switch (kind) {
    case OpKind::kAdd:
      if (ctx.Needs(0)) to(0, "lhs", dy);
      if (ctx.Needs(1)) to(1, "rhs", dy);
      return grads;
    case OpKind::kSub:
      if (ctx.Needs(0)) to(0, "lhs", dy);
      if (ctx.Needs(1)) {
        ValueId summed = ctx.SumToShape("rhs", dy, ctx.OperandType(1).shape);
        grads[1] = b.Unary(OpKind::kNeg, ctx.Name("rhs"), summed);
      }
      return grads;
    case OpKind::kMul:
      if (ctx.Needs(0)) to(0, "lhs", mul("lhs", dy, ctx.Operand(1)));
      if (ctx.Needs(1)) to(1, "rhs", mul("rhs", dy, ctx.Operand(0)));
      return grads;
    case OpKind::kDiv:  // y = a / b: da = dy / b, db = -dy a / b^2 = -dy y / b
      if (ctx.Needs(0)) to(0, "lhs", b.Binary(OpKind::kDiv, ctx.Name("lhs"), dy, ctx.Operand(1)));
      if (ctx.Needs(1)) {
        ValueId q =
            b.Binary(OpKind::kDiv, ctx.Name("rhs.quotient"), mul("rhs.dy_y", dy, ctx.Result(0)), ctx.Operand(1));
        to(1, "rhs", b.Unary(OpKind::kNeg, ctx.Name("rhs"), q));
      }
      return grads;
    case OpKind::kMax:
    case OpKind::kMin: {  // the gradient goes to the winner; ties to the lhs
      Attributes attrs;
      attrs.Set("direction", std::string(kind == OpKind::kMax ? "GE" : "LE"));
      ValueId lhs_wins = b.AddOp1(OpKind::kCompare, ctx.Name("lhs_wins"), {ctx.Operand(0), ctx.Operand(1)}, attrs);
      if (ctx.Needs(0)) to(0, "lhs", select("lhs", lhs_wins, true));
      if (ctx.Needs(1)) to(1, "rhs", select("rhs", lhs_wins, false));
      return grads;
    }
    case OpKind::kPow: {  // y = a^p: da = dy p a^(p-1), dp = dy y log a
      if (ctx.Needs(0)) {
        ValueId p_minus_1 = b.Binary(OpKind::kSub, ctx.Name("lhs.p_minus_1"), ctx.Operand(1), ctx.Scalar("one", 1, dt));
        ValueId power = b.Binary(OpKind::kPow, ctx.Name("lhs.power"), ctx.Operand(0), p_minus_1);
        to(0, "lhs", mul("lhs", dy, mul("lhs.p_power", ctx.Operand(1), power)));
      }
      if (ctx.Needs(1)) {
        ValueId log = b.Unary(OpKind::kLog, ctx.Name("rhs.log"), ctx.Operand(0));
        to(1, "rhs", mul("rhs", dy, mul("rhs.y_log", ctx.Result(0), log)));
      }
      return grads;
    }
    case OpKind::kWhere:
      if (ctx.Needs(1)) to(1, "on_true", select("on_true", ctx.Operand(0), true));
      if (ctx.Needs(2)) to(2, "on_false", select("on_false", ctx.Operand(0), false));
      return grads;
    default: return Unimplemented("'" + ctx.op.name + "': " + std::string(OpKindName(kind)) + " has no backward");
  }
}

std::vector<ValueId> ReadsBinary(const Graph&, const Op& op, const std::vector<bool>& needs) {
  switch (op.kind) {
    case OpKind::kMul: {
      std::vector<ValueId> reads;
      if (needs[0]) reads.push_back(op.operands[1]);
      if (needs[1]) reads.push_back(op.operands[0]);
      return reads;
    }
    case OpKind::kDiv: {
      std::vector<ValueId> reads{op.operands[1]};
      if (needs[1]) reads.push_back(op.results[0]);
      return reads;
    }
    case OpKind::kMax:
    case OpKind::kMin: return op.operands;
    case OpKind::kPow: return {op.operands[0], op.operands[1], op.results[0]};
    case OpKind::kWhere: return {op.operands[0]};
    default: return {};
  }
}

// ---------------------------------------------------------------- rope
// A rotation's transpose is the inverse rotation: dx = rope(dy, table) with the
// angles negated.

StatusOr<Grads> BackwardRope(BackwardContext& ctx) {
  if (ctx.Needs(1)) return Unimplemented("'" + ctx.op.name + "': the gradient of a RoPE table");
  Attributes attrs = ctx.op.attrs;
  attrs.Set("inverse", !ctx.op.attrs.GetBool("inverse").value_or(false));
  return Grads{ctx.b.AddOp1(OpKind::kRope, ctx.Name("x"), {ctx.Grad(), ctx.Operand(1)}, std::move(attrs)), kNoValue};
}

std::vector<ValueId> ReadsRope(const Graph&, const Op& op, const std::vector<bool>&) { return {op.operands[1]}; }

// ---------------------------------------------------------------- softmax
// dx = y * (dy - sum(dy * y)) along the axis.

StatusOr<Grads> BackwardSoftmax(BackwardContext& ctx) {
  const TensorType type = ctx.ResultType();
  const int64_t axis = NormalizeAxis(ctx.op.attrs.GetInt("axis").value_or(-1), type.rank()).value_or(0);
  GraphBuilder& b = ctx.b;
  ValueId y = ctx.Result(0);
  ValueId dot = b.Reduce(ctx.Name("dot"), b.Binary(OpKind::kMul, ctx.Name("dy_y"), ctx.Grad(), y), {axis}, "sum");
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < type.rank(); ++d) {
    if (d != axis) kept.push_back(d);
  }
  ValueId spread = b.Broadcast(ctx.Name("dot.broadcast"), dot, type.shape, kept);
  return Grads{
      b.Binary(OpKind::kMul, ctx.Name("x"), y, b.Binary(OpKind::kSub, ctx.Name("centered"), ctx.Grad(), spread))};
}

std::vector<ValueId> ReadsSoftmax(const Graph&, const Op& op, const std::vector<bool>&) { return {op.results[0]}; }

// ---------------------------------------------------------------- broadcast
// Summed over the result dims the operand lacks or has as 1.

StatusOr<Grads> BackwardBroadcast(BackwardContext& ctx) {
  const Shape x = ctx.OperandType(0).shape;
  const Shape r = ctx.ResultType().shape;
  auto dims = ctx.op.attrs.GetInts("dims").value_or(std::vector<int64_t>{});
  std::vector<bool> kept(r.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) kept[static_cast<size_t>(dims[i])] = x[i] == r[static_cast<size_t>(dims[i])];
  std::vector<int64_t> summed;
  for (size_t d = 0; d < r.size(); ++d) {
    if (!kept[d]) summed.push_back(static_cast<int64_t>(d));
  }
  if (summed.empty()) return Grads{ctx.Grad()};  // no dim grows: the same shape
  ValueId sum = ctx.b.Reduce(ctx.Name("x.sum"), ctx.Grad(), summed, "sum");
  return Grads{ctx.b.type(sum).shape == x ? sum : ctx.b.Reshape(ctx.Name("x"), sum, x)};
}

}  // namespace az::pir::grad
