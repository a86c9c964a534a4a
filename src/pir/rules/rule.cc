// Dispatch from op kind to family, and the FactorRule helpers.
#include "pir/rules/rule.h"

#include "pir/rules/families.h"

namespace az::pir {

std::string_view FactorKindName(FactorKind kind) {
  switch (kind) {
    case FactorKind::kPassThrough: return "pass_through";
    case FactorKind::kReduction: return "reduction";
    case FactorKind::kNeedReplication: return "need_replication";
    case FactorKind::kPermutation: return "permutation";
    case FactorKind::kNormalized: return "normalized";
    case FactorKind::kHalo: return "halo";
  }
  return "pass_through";
}

Statistics StatisticsOf(OpKind kind) {
  switch (kind) {
    case OpKind::kLayerNorm: return {1, 2};
    case OpKind::kRmsNorm: return {1, 1};
    // Per (sample, group): the sum and the sum of squares, like layer norm.
    case OpKind::kGroupNorm: return {1, 2};
    case OpKind::kSoftmax: return {2, 1};
    // The backward sums need x-hat, so the forward statistics come along in
    // the same pass: layer norm sums x, x^2, g and g*x (g = weight * dy);
    // RMS norm sums x^2 and g*x.
    case OpKind::kLayerNormGrad: return {1, 4};
    case OpKind::kRmsNormGrad: return {1, 2};
    default: return {};
  }
}

int FactorRuleBuilder::AddFactor(std::string name, int64_t size, FactorKind kind) {
  rule_.factors.push_back({std::move(name), size, kind});
  return static_cast<int>(rule_.factors.size() - 1);
}
FactorRuleBuilder& FactorRuleBuilder::Operand(TensorFactors dims) {
  rule_.operands.push_back(std::move(dims));
  return *this;
}
FactorRuleBuilder& FactorRuleBuilder::Result(TensorFactors dims) {
  rule_.results.push_back(std::move(dims));
  return *this;
}

int64_t FactorRule::DimSize(const std::vector<int>& dim_factors) const {
  int64_t size = 1;
  for (int f : dim_factors) size *= factors.at(static_cast<size_t>(f)).size;
  return size;
}

bool FactorRule::DimFits(const std::vector<int>& dim_factors, int64_t size) const {
  if (DimSize(dim_factors) == size) return true;
  return dim_factors.size() == 1 && factors.at(static_cast<size_t>(dim_factors[0])).kind == FactorKind::kHalo &&
         size >= factors[static_cast<size_t>(dim_factors[0])].size;
}

int FactorRule::FindFactor(std::string_view name) const {
  for (size_t i = 0; i < factors.size(); ++i) {
    if (factors[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

static void AppendTensors(std::string& out, const FactorRule& rule, const std::vector<TensorFactors>& tensors) {
  out += '(';
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (t) out += ", ";
    out += '[';
    for (size_t d = 0; d < tensors[t].size(); ++d) {
      if (d) out += ", ";
      if (tensors[t][d].empty()) out += "1";
      for (size_t k = 0; k < tensors[t][d].size(); ++k) {
        if (k) out += '*';
        out += rule.factors[static_cast<size_t>(tensors[t][d][k])].name;
      }
    }
    out += ']';
  }
  out += ')';
}

std::string FactorRule::ToString() const {
  std::string out;
  AppendTensors(out, *this, operands);
  out += "->";
  AppendTensors(out, *this, results);
  out += " {";
  for (size_t i = 0; i < factors.size(); ++i) {
    if (i) out += ", ";
    out += factors[i].name + "=" + std::to_string(factors[i].size);
  }
  out += '}';
  for (FactorKind kind : {FactorKind::kReduction, FactorKind::kNeedReplication, FactorKind::kPermutation,
                          FactorKind::kNormalized, FactorKind::kHalo}) {
    std::string names;
    for (const Factor& f : factors) {
      if (f.kind != kind) continue;
      if (!names.empty()) names += ", ";
      names += f.name;
    }
    if (!names.empty()) out += " " + std::string(FactorKindName(kind)) + "={" + names + "}";
  }
  return out;
}

StatusOr<std::vector<TensorType>> InferResultTypes(OpKind kind, const std::vector<TensorType>& operands,
                                                   const Attributes& attrs,
                                                   const std::vector<TensorType>& declared) {
  const OpKindInfo& info = GetOpKindInfo(kind);
  int n = static_cast<int>(operands.size());
  if (n < info.min_operands || (info.max_operands >= 0 && n > info.max_operands)) {
    std::string expected = info.max_operands < 0 ? "at least " + std::to_string(info.min_operands)
                           : info.min_operands == info.max_operands
                               ? std::to_string(info.min_operands)
                               : std::to_string(info.min_operands) + " to " + std::to_string(info.max_operands);
    return InvalidArgument("'" + std::string(info.name) + "' takes " + expected + " operands, got " +
                           std::to_string(n));
  }
  OpContext ctx{kind, operands, attrs, declared};
  switch (info.family) {
    case OpFamily::kEinsum: return InferEinsum(ctx);
    case OpFamily::kAttention: return InferAttention(ctx);
    case OpFamily::kConv: return InferConv(ctx);
    case OpFamily::kNorm: return InferNorm(ctx);
    case OpFamily::kUnary: return InferUnary(ctx);
    case OpFamily::kBinary: return InferBinary(ctx);
    case OpFamily::kRope: return InferRope(ctx);
    case OpFamily::kSoftmax: return InferSoftmax(ctx);
    case OpFamily::kBroadcast: return InferBroadcast(ctx);
    case OpFamily::kReshape: return InferReshape(ctx);
    case OpFamily::kTranspose: return InferTranspose(ctx);
    case OpFamily::kConcat: return InferConcat(ctx);
    case OpFamily::kSlice: return InferSlice(ctx);
    case OpFamily::kReduce: return InferReduce(ctx);
    case OpFamily::kGather: return InferGather(ctx);
    case OpFamily::kResize: return InferResize(ctx);
    case OpFamily::kCustom: return InferCustom(ctx);
    case OpFamily::kFull: return InferFull(ctx);
    case OpFamily::kAttentionGrad: return InferAttentionGrad(ctx);
    case OpFamily::kNormGrad: return InferNormGrad(ctx);
  }
  return InternalError("unhandled op family");
}

StatusOr<FactorRule> BuildFactorRule(OpKind kind, const std::vector<TensorType>& operands,
                                     const std::vector<TensorType>& results, const Attributes& attrs) {
  OpContext ctx{kind, operands, attrs, results};
  switch (GetOpKindInfo(kind).family) {
    case OpFamily::kEinsum: return RuleEinsum(ctx);
    case OpFamily::kAttention: return RuleAttention(ctx);
    case OpFamily::kConv: return RuleConv(ctx);
    case OpFamily::kNorm: return RuleNorm(ctx);
    case OpFamily::kUnary: return RuleElementwise(ctx);
    case OpFamily::kBinary: return RuleElementwise(ctx);
    case OpFamily::kRope: return RuleRope(ctx);
    case OpFamily::kSoftmax: return RuleSoftmax(ctx);
    case OpFamily::kBroadcast: return RuleBroadcast(ctx);
    case OpFamily::kReshape: return RuleReshape(ctx);
    case OpFamily::kTranspose: return RuleTranspose(ctx);
    case OpFamily::kConcat: return RuleConcat(ctx);
    case OpFamily::kSlice: return RuleSlice(ctx);
    case OpFamily::kReduce: return RuleReduce(ctx);
    case OpFamily::kGather: return RuleGather(ctx);
    case OpFamily::kResize: return RuleResize(ctx);
    case OpFamily::kCustom: return RuleCustom(ctx);
    case OpFamily::kFull: return RuleFull(ctx);
    case OpFamily::kAttentionGrad: return RuleAttentionGrad(ctx);
    case OpFamily::kNormGrad: return RuleNormGrad(ctx);
  }
  return InternalError("unhandled op family");
}

std::vector<TensorType> OperandTypes(const Graph& graph, const Op& op) {
  std::vector<TensorType> types;
  types.reserve(op.operands.size());
  for (ValueId v : op.operands) types.push_back(graph.type(v));
  return types;
}

std::vector<TensorType> ResultTypes(const Graph& graph, const Op& op) {
  std::vector<TensorType> types;
  types.reserve(op.results.size());
  for (ValueId v : op.results) types.push_back(graph.type(v));
  return types;
}

StatusOr<FactorRule> BuildFactorRule(const Graph& graph, const Op& op) {
  return BuildFactorRule(op.kind, OperandTypes(graph, op), ResultTypes(graph, op), op.attrs);
}

}  // namespace az::pir
