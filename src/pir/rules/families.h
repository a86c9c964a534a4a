// Internal to src/pir/rules: the per-family functions behind rule.h and cost.h.
#pragma once

#include <string>
#include <vector>

#include "pir/rules/rule.h"

namespace az::pir {

struct OpContext {
  OpKind kind;
  const std::vector<TensorType>& operands;
  const Attributes& attrs;
  // Declared results for inference (custom), the actual results for rules.
  const std::vector<TensorType>& results;
};

using TypesOr = StatusOr<std::vector<TensorType>>;

// Shared helpers (ShapeString is in rule.h).
// A rule with one fresh factor per dimension of every tensor, all of `kind`.
FactorRule IndependentRule(const OpContext& ctx, FactorKind kind);

// contraction.cc
TypesOr InferEinsum(const OpContext& ctx);
TypesOr InferAttention(const OpContext& ctx);
TypesOr InferConv(const OpContext& ctx);
StatusOr<FactorRule> RuleEinsum(const OpContext& ctx);
StatusOr<FactorRule> RuleAttention(const OpContext& ctx);
StatusOr<FactorRule> RuleConv(const OpContext& ctx);

// elementwise.cc
TypesOr InferNorm(const OpContext& ctx);
TypesOr InferUnary(const OpContext& ctx);
TypesOr InferBinary(const OpContext& ctx);
TypesOr InferRope(const OpContext& ctx);
TypesOr InferSoftmax(const OpContext& ctx);
TypesOr InferBroadcast(const OpContext& ctx);
StatusOr<FactorRule> RuleNorm(const OpContext& ctx);
StatusOr<FactorRule> RuleElementwise(const OpContext& ctx);
StatusOr<FactorRule> RuleRope(const OpContext& ctx);
StatusOr<FactorRule> RuleSoftmax(const OpContext& ctx);
StatusOr<FactorRule> RuleBroadcast(const OpContext& ctx);

// layout.cc
TypesOr InferReshape(const OpContext& ctx);
TypesOr InferTranspose(const OpContext& ctx);
TypesOr InferConcat(const OpContext& ctx);
TypesOr InferSlice(const OpContext& ctx);
TypesOr InferReduce(const OpContext& ctx);
TypesOr InferGather(const OpContext& ctx);
TypesOr InferResize(const OpContext& ctx);
TypesOr InferCustom(const OpContext& ctx);
StatusOr<FactorRule> RuleReshape(const OpContext& ctx);
StatusOr<FactorRule> RuleTranspose(const OpContext& ctx);
StatusOr<FactorRule> RuleConcat(const OpContext& ctx);
StatusOr<FactorRule> RuleSlice(const OpContext& ctx);
StatusOr<FactorRule> RuleReduce(const OpContext& ctx);
StatusOr<FactorRule> RuleGather(const OpContext& ctx);
StatusOr<FactorRule> RuleResize(const OpContext& ctx);
StatusOr<FactorRule> RuleCustom(const OpContext& ctx);
TypesOr InferFull(const OpContext& ctx);
StatusOr<FactorRule> RuleFull(const OpContext& ctx);

// grad.cc
TypesOr InferAttentionGrad(const OpContext& ctx);
TypesOr InferNormGrad(const OpContext& ctx);
StatusOr<FactorRule> RuleAttentionGrad(const OpContext& ctx);
StatusOr<FactorRule> RuleNormGrad(const OpContext& ctx);

}  // namespace az::pir
