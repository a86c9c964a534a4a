// GraphBuilder: builds PIR in code (the model zoo, tests).
//
// Every op's result type is inferred from its operands (rules/rule.h), so a model
// builder states only what the model computes. A builder mistake (shapes that do
// not fit) is a bug in the builder, not a user error: it aborts with the op's
// name. User-facing validation (sizes, flags) happens before building.
//
// Names: ops are named by a scope path plus a leaf, "blocks.3.self_attn.q";
// parameters are named like the checkpoint's tensors, "blocks.3.self_attn.q.weight".
//
// Op order: ops and leaves are appended in the order the calls run, and that
// order shows: values are numbered by it, the compiled program follows it, and
// FuseElementwise (compile/spmd/schedule.h) folds an element-wise op only into
// the op just before it. C++ leaves the order of a call's arguments
// unspecified (GCC evaluates them last to first, clang first to last), so an
// argument list holds at most one call that builds: Binary(kAdd, "sum",
// Unary(..), Unary(..)) builds a different graph per compiler, and prices
// differently. Build the operands into named values first
// (scripts/check-op-order enforces this). Sites split for that keep the order
// GCC built them in (last argument first), the order the pinned plans
// (tests/golden/plans) were priced with.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pir/ir/graph.h"

namespace az::pir {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name);

  // RAII name scope: GraphBuilder::Scope s(b, "blocks.3"). A scope with
  // `names_params` false prefixes op names only: two CFG passes ("cond",
  // "uncond") then share the same parameters.
  class Scope {
   public:
    Scope(GraphBuilder& builder, const std::string& name, bool names_params = true);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    GraphBuilder& builder_;
    size_t saved_size_;
  };
  // "blocks.3.self_attn" + "." + leaf.
  std::string QualifiedName(const std::string& leaf, bool for_param = false) const;

  // A graph input; asking again for the same name returns the same value.
  ValueId Input(const std::string& name, DType dtype, Shape shape);
  // A weight; its name is qualified by the current scope. Asking again for the
  // same name returns the same value (weights shared between passes).
  ValueId Param(const std::string& name, DType dtype, Shape shape);
  // A buffer (RoPE table); shared by name like parameters.
  ValueId Constant(const std::string& name, DType dtype, Shape shape);
  // An optimizer's state (a training step: moments, master weights); shared by
  // name like parameters.
  ValueId OptimizerState(const std::string& name, DType dtype, Shape shape);

  // The generic entry point: infers result types (declared ones are used for custom).
  std::vector<ValueId> AddOp(OpKind kind, const std::string& name, std::vector<ValueId> operands,
                             Attributes attrs = {}, std::vector<TensorType> declared = {});
  ValueId AddOp1(OpKind kind, const std::string& name, std::vector<ValueId> operands, Attributes attrs = {});

  // Typed helpers.
  ValueId Einsum(const std::string& name, const std::string& eq, ValueId a, ValueId b,
                 std::optional<ValueId> bias = std::nullopt);
  // x @ W + b with x [..., in]; creates `name.weight` [in, out] and `name.bias` [out].
  ValueId Linear(const std::string& name, ValueId x, int64_t out_features, bool bias = true);
  ValueId Attention(const std::string& name, ValueId q, ValueId k, ValueId v, const std::string& mode,
                    std::optional<int64_t> joint_tail = std::nullopt);
  ValueId LayerNorm(const std::string& name, ValueId x, bool affine, double eps);
  ValueId RmsNorm(const std::string& name, ValueId x, bool affine, double eps);
  ValueId Unary(OpKind kind, const std::string& name, ValueId x);
  ValueId Binary(OpKind kind, const std::string& name, ValueId a, ValueId b);
  ValueId Convert(const std::string& name, ValueId x, DType dtype);
  // Converts only when the dtype differs (autocast at a matmul's input).
  ValueId CastTo(const std::string& name, ValueId x, DType dtype);
  ValueId Rope(const std::string& name, ValueId x, ValueId table, std::vector<int64_t> sections);
  ValueId Reshape(const std::string& name, ValueId x, Shape shape);
  ValueId Transpose(const std::string& name, ValueId x, std::vector<int64_t> perm);
  ValueId Concat(const std::string& name, std::vector<ValueId> xs, int64_t axis);
  // Slice [start, limit) along one axis; other dims whole.
  ValueId SliceAxis(const std::string& name, ValueId x, int64_t axis, int64_t start, int64_t limit);
  ValueId Custom(const std::string& name, const std::string& target, std::vector<ValueId> operands,
                 TensorType result, int64_t flops = 0);
  // A tensor of `shape` filled with `value` (shape {}: a scalar, which every
  // element-wise op broadcasts).
  ValueId Full(const std::string& name, DType dtype, Shape shape, double value);
  // Sum, max or mean over `dims` (increasing), which are dropped.
  ValueId Reduce(const std::string& name, ValueId x, std::vector<int64_t> dims, const std::string& kind);
  // broadcast_in_dim: operand dim i becomes result dim dims[i].
  ValueId Broadcast(const std::string& name, ValueId x, Shape shape, std::vector<int64_t> dims);

  // Training forwards: every Attention() then also returns its log-sum-exp
  // rows (attr lse, a second result the backward reads); Attention() still
  // returns the output.
  void set_attention_lse(bool lse) { attention_lse_ = lse; }

  // The dtype of the weights the helpers (Linear, norms) create; unset: the
  // dtype of their input. Real checkpoints store bf16 weights that autocast
  // regions use in f32 (Wan's time embedding), so the two can differ.
  void set_param_dtype(std::optional<DType> dtype) { param_dtype_ = dtype; }

  void Output(ValueId v) { graph_.AddOutput(v); }
  Graph& graph() { return graph_; }
  const TensorType& type(ValueId v) const { return graph_.type(v); }
  Graph Finish() { return std::move(graph_); }

 private:
  ValueId SharedLeaf(ValueRole role, const std::string& name, TensorType type);
  // A norm over the last dim of x, attribute eps: with `affine`, the
  // parameters `name`.weight and, with `bias`, `name`.bias, of shape [d].
  ValueId Norm(OpKind kind, const std::string& name, ValueId x, bool affine, bool bias, double eps);
  struct ScopeEntry {
    std::string name;
    bool names_params;
  };
  Graph graph_;
  std::vector<ScopeEntry> scope_;
  std::optional<DType> param_dtype_;
  bool attention_lse_ = false;
  std::map<std::string, ValueId> shared_leaves_;  // params and constants by full name
};

}  // namespace az::pir
