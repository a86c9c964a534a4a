#include "pir/build/graph_builder.h"

#include "pir/rules/rule.h"
#include "support/status.h"

namespace az::pir {

GraphBuilder::GraphBuilder(std::string graph_name) : graph_(std::move(graph_name)) {}

GraphBuilder::Scope::Scope(GraphBuilder& builder, const std::string& name, bool names_params)
    : builder_(builder), saved_size_(builder.scope_.size()) {
  builder_.scope_.push_back({name, names_params});
}
GraphBuilder::Scope::~Scope() { builder_.scope_.resize(saved_size_); }

std::string GraphBuilder::QualifiedName(const std::string& leaf, bool for_param) const {
  std::string out;
  for (const ScopeEntry& s : scope_) {
    if (s.name.empty() || (for_param && !s.names_params)) continue;
    if (!out.empty()) out += '.';
    out += s.name;
  }
  if (!leaf.empty()) {
    if (!out.empty()) out += '.';
    out += leaf;
  }
  return out;
}

ValueId GraphBuilder::Input(const std::string& name, DType dtype, Shape shape) {
  return SharedLeaf(ValueRole::kInput, name, {dtype, std::move(shape)});
}
ValueId GraphBuilder::SharedLeaf(ValueRole role, const std::string& name, TensorType type) {
  std::string full = QualifiedName(name, /*for_param=*/true);
  auto it = shared_leaves_.find(full);
  if (it != shared_leaves_.end()) {
    AZ_CHECK_MSG(graph_.type(it->second) == type && graph_.value(it->second).role == role,
                 "leaf '" + full + "' requested twice with different types");
    return it->second;
  }
  ValueId id = graph_.AddLeaf(role, full, std::move(type));
  shared_leaves_.emplace(full, id);
  return id;
}

ValueId GraphBuilder::Param(const std::string& name, DType dtype, Shape shape) {
  return SharedLeaf(ValueRole::kParameter, name, {dtype, std::move(shape)});
}
ValueId GraphBuilder::Constant(const std::string& name, DType dtype, Shape shape) {
  return SharedLeaf(ValueRole::kConstant, name, {dtype, std::move(shape)});
}
ValueId GraphBuilder::OptimizerState(const std::string& name, DType dtype, Shape shape) {
  return SharedLeaf(ValueRole::kOptimizerState, name, {dtype, std::move(shape)});
}

std::vector<ValueId> GraphBuilder::AddOp(OpKind kind, const std::string& name, std::vector<ValueId> operands,
                                         Attributes attrs, std::vector<TensorType> declared) {
  std::string op_name = QualifiedName(name);
  std::vector<TensorType> operand_types;
  for (ValueId v : operands) {
    AZ_CHECK_MSG(graph_.IsValidValue(v), "op '" + op_name + "' uses an invalid value id");
    operand_types.push_back(graph_.type(v));
  }
  auto types = InferResultTypes(kind, operand_types, attrs, declared);
  AZ_CHECK_MSG(types.ok(), "op '" + op_name + "' (" + std::string(OpKindName(kind)) + "): " + types.status().message());
  OpId id = graph_.AddOp(kind, op_name, std::move(operands), std::move(types).value(), std::move(attrs));
  return graph_.op(id).results;
}

ValueId GraphBuilder::AddOp1(OpKind kind, const std::string& name, std::vector<ValueId> operands, Attributes attrs) {
  std::vector<ValueId> results = AddOp(kind, name, std::move(operands), std::move(attrs));
  AZ_CHECK(results.size() == 1);
  return results[0];
}

ValueId GraphBuilder::Einsum(const std::string& name, const std::string& eq, ValueId a, ValueId b,
                             std::optional<ValueId> bias) {
  Attributes attrs;
  attrs.Set("eq", eq);
  std::vector<ValueId> operands{a, b};
  if (bias) operands.push_back(*bias);
  return AddOp1(OpKind::kEinsum, name, std::move(operands), std::move(attrs));
}

ValueId GraphBuilder::Linear(const std::string& name, ValueId x, int64_t out_features, bool bias) {
  const TensorType t = graph_.type(x);  // a copy: Param() below grows the value table
  AZ_CHECK_MSG(t.rank() >= 1 && t.rank() <= 20, "Linear needs an operand of rank 1..20");
  int64_t in_features = t.shape.back();
  Scope scope(*this, name);
  DType param_dtype = param_dtype_.value_or(t.dtype);
  ValueId w = Param("weight", param_dtype, {in_features, out_features});
  std::optional<ValueId> b;
  if (bias) b = Param("bias", param_dtype, {out_features});
  // Leading dims keep their letters; the contracted dim is 'z', the output dim 'y'.
  std::string lead;
  for (int64_t i = 0; i + 1 < t.rank(); ++i) lead += static_cast<char>('a' + i);
  std::string eq = lead + "z,zy->" + lead + "y";
  return Einsum("", eq, x, w, b);
}

ValueId GraphBuilder::Attention(const std::string& name, ValueId q, ValueId k, ValueId v, const std::string& mode,
                                std::optional<int64_t> joint_tail) {
  Attributes attrs;
  attrs.Set("mode", mode);
  if (joint_tail) attrs.Set("joint_tail", *joint_tail);
  if (!attention_lse_) return AddOp1(OpKind::kAttention, name, {q, k, v}, std::move(attrs));
  attrs.Set("lse", true);
  return AddOp(OpKind::kAttention, name, {q, k, v}, std::move(attrs))[0];
}

ValueId GraphBuilder::Norm(OpKind kind, const std::string& name, ValueId x, bool affine, bool bias, double eps) {
  Attributes attrs;
  attrs.Set("eps", eps);
  std::vector<ValueId> operands{x};
  if (affine) {
    Scope scope(*this, name);
    const int64_t d = graph_.type(x).shape.back();
    operands.push_back(Param("weight", param_dtype_.value_or(graph_.type(x).dtype), {d}));
    if (bias) operands.push_back(Param("bias", param_dtype_.value_or(graph_.type(x).dtype), {d}));
  }
  return AddOp1(kind, name, std::move(operands), std::move(attrs));
}

ValueId GraphBuilder::LayerNorm(const std::string& name, ValueId x, bool affine, double eps) {
  return Norm(OpKind::kLayerNorm, name, x, affine, /*bias=*/true, eps);
}

ValueId GraphBuilder::RmsNorm(const std::string& name, ValueId x, bool affine, double eps) {
  return Norm(OpKind::kRmsNorm, name, x, affine, /*bias=*/false, eps);
}

ValueId GraphBuilder::Unary(OpKind kind, const std::string& name, ValueId x) { return AddOp1(kind, name, {x}); }
ValueId GraphBuilder::Binary(OpKind kind, const std::string& name, ValueId a, ValueId b) {
  return AddOp1(kind, name, {a, b});
}

ValueId GraphBuilder::Convert(const std::string& name, ValueId x, DType dtype) {
  Attributes attrs;
  attrs.Set("dtype", std::string(DTypeName(dtype)));
  return AddOp1(OpKind::kConvert, name, {x}, std::move(attrs));
}

ValueId GraphBuilder::CastTo(const std::string& name, ValueId x, DType dtype) {
  return graph_.type(x).dtype == dtype ? x : Convert(name, x, dtype);
}

ValueId GraphBuilder::Rope(const std::string& name, ValueId x, ValueId table, std::vector<int64_t> sections) {
  Attributes attrs;
  attrs.Set("sections", std::move(sections));
  return AddOp1(OpKind::kRope, name, {x, table}, std::move(attrs));
}

ValueId GraphBuilder::Reshape(const std::string& name, ValueId x, Shape shape) {
  Attributes attrs;
  attrs.Set("shape", std::move(shape));
  return AddOp1(OpKind::kReshape, name, {x}, std::move(attrs));
}

ValueId GraphBuilder::Transpose(const std::string& name, ValueId x, std::vector<int64_t> perm) {
  Attributes attrs;
  attrs.Set("perm", std::move(perm));
  return AddOp1(OpKind::kTranspose, name, {x}, std::move(attrs));
}

ValueId GraphBuilder::Concat(const std::string& name, std::vector<ValueId> xs, int64_t axis) {
  Attributes attrs;
  attrs.Set("axis", axis);
  return AddOp1(OpKind::kConcat, name, std::move(xs), std::move(attrs));
}

ValueId GraphBuilder::SliceAxis(const std::string& name, ValueId x, int64_t axis, int64_t start, int64_t limit) {
  const Shape& shape = graph_.type(x).shape;
  std::vector<int64_t> starts(shape.size(), 0);
  std::vector<int64_t> limits(shape.begin(), shape.end());
  AZ_CHECK(axis >= 0 && axis < static_cast<int64_t>(shape.size()));
  starts[axis] = start;
  limits[axis] = limit;
  Attributes attrs;
  attrs.Set("start", std::move(starts));
  attrs.Set("limit", std::move(limits));
  return AddOp1(OpKind::kSlice, name, {x}, std::move(attrs));
}

ValueId GraphBuilder::Custom(const std::string& name, const std::string& target, std::vector<ValueId> operands,
                             TensorType result, int64_t flops) {
  Attributes attrs;
  attrs.Set("target", target);
  if (flops > 0) attrs.Set("flops", flops);
  std::vector<ValueId> results = AddOp(OpKind::kCustom, name, std::move(operands), std::move(attrs), {result});
  return results[0];
}

ValueId GraphBuilder::Full(const std::string& name, DType dtype, Shape shape, double value) {
  Attributes attrs;
  attrs.Set("shape", std::move(shape));
  attrs.Set("dtype", std::string(DTypeName(dtype)));
  attrs.Set("value", value);
  return AddOp1(OpKind::kFull, name, {}, std::move(attrs));
}

ValueId GraphBuilder::Reduce(const std::string& name, ValueId x, std::vector<int64_t> dims, const std::string& kind) {
  Attributes attrs;
  attrs.Set("dims", std::move(dims));
  attrs.Set("kind", kind);
  return AddOp1(OpKind::kReduce, name, {x}, std::move(attrs));
}

ValueId GraphBuilder::Broadcast(const std::string& name, ValueId x, Shape shape, std::vector<int64_t> dims) {
  Attributes attrs;
  attrs.Set("shape", std::move(shape));
  attrs.Set("dims", std::move(dims));
  return AddOp1(OpKind::kBroadcast, name, {x}, std::move(attrs));
}

}  // namespace az::pir
