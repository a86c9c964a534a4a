#include "pir/grad/adamw.h"

namespace az::pir {

AdamWState DeclareAdamWState(GraphBuilder& b, ValueId param) {
  const std::string name = b.graph().value(param).name;
  const Shape shape = b.type(param).shape;
  AdamWState state;
  state.param = param;
  if (b.type(param).dtype != DType::kF32) state.master = b.OptimizerState(name + ".master", DType::kF32, shape);
  state.exp_avg = b.OptimizerState(name + ".exp_avg", DType::kF32, shape);
  state.exp_avg_sq = b.OptimizerState(name + ".exp_avg_sq", DType::kF32, shape);
  return state;
}

AdamWScalars AppendAdamWScalars(GraphBuilder& b, ValueId lr, ValueId step, const AdamWOptions& options) {
  auto literal = [&](const std::string& name, double value) {
    return b.Full("optimizer." + name, DType::kF32, {}, value);
  };
  auto binary = [&](OpKind kind, const std::string& name, ValueId x, ValueId y) {
    return b.Binary(kind, "optimizer." + name, x, y);
  };
  AdamWScalars s;
  s.beta1 = literal("beta1", options.beta1);
  s.one_minus_beta1 = literal("one_minus_beta1", 1 - options.beta1);
  s.beta2 = literal("beta2", options.beta2);
  s.one_minus_beta2 = literal("one_minus_beta2", 1 - options.beta2);
  s.eps = literal("eps", options.eps);
  ValueId one = literal("one", 1);
  ValueId bc1 = binary(OpKind::kSub, "bias_correction1", one, binary(OpKind::kPow, "beta1_pow", s.beta1, step));
  ValueId bc2 = binary(OpKind::kSub, "bias_correction2", one, binary(OpKind::kPow, "beta2_pow", s.beta2, step));
  s.decay = binary(OpKind::kSub, "decay", one,
                   binary(OpKind::kMul, "lr_wd", lr, literal("weight_decay", options.weight_decay)));
  s.step_size = binary(OpKind::kDiv, "step_size", lr, bc1);
  s.inv_sqrt_bc2 = b.Unary(OpKind::kRsqrt, "optimizer.inv_sqrt_bias_correction2", bc2);
  return s;
}

AdamWState AppendAdamWUpdate(GraphBuilder& b, const AdamWState& state, ValueId grad, const AdamWScalars& s) {
  const std::string prefix = "optimizer." + b.graph().value(state.param).name + ".";
  auto op = [&](OpKind kind, const std::string& name, ValueId x, ValueId y) {
    return b.Binary(kind, prefix + name, x, y);
  };
  ValueId g = b.CastTo(prefix + "grad_f32", grad, DType::kF32);
  // Each moment's new term is built right after its producer (the cast, the
  // square), where FuseElementwise folds it in; as nested arguments their
  // order was the compiler's (graph_builder.h, Op order).
  AdamWState next;
  ValueId exp_avg_new = op(OpKind::kMul, "exp_avg.new", g, s.one_minus_beta1);
  ValueId exp_avg_decayed = op(OpKind::kMul, "exp_avg.decayed", state.exp_avg, s.beta1);
  next.exp_avg = op(OpKind::kAdd, "exp_avg", exp_avg_decayed, exp_avg_new);
  ValueId g2 = op(OpKind::kMul, "grad_squared", g, g);
  ValueId exp_avg_sq_new = op(OpKind::kMul, "exp_avg_sq.new", g2, s.one_minus_beta2);
  ValueId exp_avg_sq_decayed = op(OpKind::kMul, "exp_avg_sq.decayed", state.exp_avg_sq, s.beta2);
  next.exp_avg_sq = op(OpKind::kAdd, "exp_avg_sq", exp_avg_sq_decayed, exp_avg_sq_new);
  ValueId root = b.Unary(OpKind::kSqrt, prefix + "sqrt", next.exp_avg_sq);
  ValueId denom = op(OpKind::kAdd, "denom", op(OpKind::kMul, "sqrt.corrected", root, s.inv_sqrt_bc2), s.eps);
  ValueId update = op(OpKind::kMul, "update", op(OpKind::kDiv, "ratio", next.exp_avg, denom), s.step_size);
  const ValueId weight = state.master != kNoValue ? state.master : state.param;
  ValueId updated = op(OpKind::kSub, state.master != kNoValue ? "master" : "param",
                       op(OpKind::kMul, "decayed", weight, s.decay), update);
  if (state.master == kNoValue) {
    next.param = updated;
    return next;
  }
  next.master = updated;
  next.param = b.Convert(prefix + "param", updated, b.type(state.param).dtype);
  return next;
}

}  // namespace az::pir
