// AdamW as PIR ops: the optimizer half of a training step, element-wise ops
// that sharding propagation and the compilers treat like any other.
//
// Mixed precision as PyTorch AMP with fp32 master weights (and ZeRO's memory
// accounting) runs it: a bf16 (or f16) parameter is the working copy the
// forward reads; its fp32 master weight and the fp32 moments m (exp_avg) and v
// (exp_avg_sq) are opt_state leaves. An f32 parameter is its own master. Per
// parameter p with gradient g (torch.optim.AdamW, the same arithmetic):
//   g32  = f32(g)
//   m'   = beta1 m + (1 - beta1) g32
//   v'   = beta2 v + (1 - beta2) g32^2
//   p32' = p32 (1 - lr wd) - lr / (1 - beta1^t) * m' / (sqrt(v') / sqrt(1 - beta2^t) + eps)
//   p'   = convert(p32', dtype of p)           (a working copy only)
// where t is the step count after this step (1 for the first) and lr the
// learning rate: two f32 scalar inputs, so one compiled step serves every
// step of a schedule. The scalar factors (bias corrections, decay, step size)
// are computed once per step and shared by all parameters; beta1, beta2, eps
// and wd are literals (`full`). Op names: "optimizer.<parameter>.<what>".
#pragma once

#include <vector>

#include "pir/grad/backward.h"

namespace az::pir {

struct AdamWOptions {
  // torch.optim.AdamW's defaults.
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.01;
};

// One parameter's leaves; `master` is kNoValue for an f32 parameter.
struct AdamWState {
  ValueId param = kNoValue, master = kNoValue, exp_avg = kNoValue, exp_avg_sq = kNoValue;
};

// Declares the opt_state leaves of `param`: "<param>.master" (when it is not
// f32), "<param>.exp_avg", "<param>.exp_avg_sq", all f32 of its shape.
AdamWState DeclareAdamWState(GraphBuilder& b, ValueId param);

// The step's shared scalars from the inputs lr and step (f32 scalars).
struct AdamWScalars {
  ValueId beta1, one_minus_beta1, beta2, one_minus_beta2, eps;
  ValueId decay;         // 1 - lr wd
  ValueId step_size;     // lr / (1 - beta1^t)
  ValueId inv_sqrt_bc2;  // 1 / sqrt(1 - beta2^t)
};
AdamWScalars AppendAdamWScalars(GraphBuilder& b, ValueId lr, ValueId step, const AdamWOptions& options);

// Appends one parameter's update; returns the new values, in AdamWState's
// layout (master: kNoValue for an f32 parameter, whose new value is `param`).
AdamWState AppendAdamWUpdate(GraphBuilder& b, const AdamWState& state, ValueId grad, const AdamWScalars& scalars);

}  // namespace az::pir
