// PIR — the partitioner IR: the program a partitioner shards.
//
// Semantics. A Graph is an SSA program of tensor ops. Values are dense ids into
// `values()`; a value is a graph input, a parameter (weight), a constant (e.g. a
// RoPE table, a buffer: not counted as a parameter) or an activation (the result
// of exactly one op). Ops are stored in a topological order: every operand of op
// i is a leaf value or a result of an op before i. The graph's results are
// `outputs()`.
//
// Each op kind (ops.def) has a shape inference, a Shardy-style factor sharding
// rule and a cost (src/pir/rules/). An op carries its name, which is also its
// location for graphs built in code ("blocks.3.self_attn.q"); ops parsed from
// text carry their file:line:col.
//
// Graph-level attributes hold model metadata (model name, sizes, how many DiT
// forwards make one denoising step). Meshes and per-value sharding annotations
// are the seeds a partitioner starts from.
//
// Invariants (checked by the verifier, not by the mutators): ids are dense and
// in range, every activation has exactly one producer, op order is topological,
// result types equal the inferred types, sharding annotations name declared
// meshes and axes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pir/ir/op_kind.h"
#include "pir/ir/types.h"
#include "support/diagnostic.h"

namespace az::pir {

using ValueId = int32_t;
using OpId = int32_t;
constexpr OpId kNoOp = -1;

struct Value {
  std::string name;  // for inputs, parameters and constants; may be empty for activations
  TensorType type;
  ValueRole role = ValueRole::kActivation;
  OpId producer = kNoOp;  // the op defining an activation
  std::optional<TensorSharding> sharding;
  SourceLocation loc;  // where a leaf was declared (text inputs)
};

struct Op {
  OpKind kind = OpKind::kCustom;
  std::string name;
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  Attributes attrs;
  SourceLocation loc;

  // The op's location for diagnostics: its text position, else its name.
  SourceLocation Location() const { return loc.is_text() ? loc : SourceLocation::Op(name); }
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  Attributes& attrs() { return attrs_; }
  const Attributes& attrs() const { return attrs_; }

  // Mutators do not verify; run Verify() on the finished graph.
  ValueId AddLeaf(ValueRole role, std::string name, TensorType type, SourceLocation loc = {});
  // Appends an op; creates its result values from `result_types`.
  OpId AddOp(OpKind kind, std::string name, std::vector<ValueId> operands, std::vector<TensorType> result_types,
             Attributes attrs = {}, SourceLocation loc = {});
  void AddOutput(ValueId value) { outputs_.push_back(value); }
  void AddMesh(Mesh mesh) { meshes_.push_back(std::move(mesh)); }

  int num_values() const { return static_cast<int>(values_.size()); }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  const Value& value(ValueId id) const { return values_.at(static_cast<size_t>(id)); }
  Value& mutable_value(ValueId id) { return values_.at(static_cast<size_t>(id)); }
  const Op& op(OpId id) const { return ops_.at(static_cast<size_t>(id)); }
  // Attributes and names only: changing operands or results breaks the invariants.
  Op& mutable_op(OpId id) { return ops_.at(static_cast<size_t>(id)); }
  const std::vector<Value>& values() const { return values_; }
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  const std::vector<Mesh>& meshes() const { return meshes_; }
  const Mesh* FindMesh(std::string_view name) const;

  const TensorType& type(ValueId id) const { return value(id).type; }
  bool IsValidValue(ValueId id) const { return id >= 0 && id < num_values(); }

 private:
  std::string name_;
  Attributes attrs_;
  std::vector<Mesh> meshes_;
  std::vector<Value> values_;
  std::vector<Op> ops_;
  std::vector<ValueId> outputs_;
};

// "value %3 \"x\"" or "value %7 (result of 'blocks.0.q')": a value for messages.
std::string ValueLabel(const Graph& graph, ValueId id);

}  // namespace az::pir
