#include "pir/ir/graph.h"

namespace az::pir {

ValueId Graph::AddLeaf(ValueRole role, std::string name, TensorType type, SourceLocation loc) {
  Value v;
  v.name = std::move(name);
  v.type = std::move(type);
  v.role = role;
  v.loc = std::move(loc);
  values_.push_back(std::move(v));
  return static_cast<ValueId>(values_.size() - 1);
}

OpId Graph::AddOp(OpKind kind, std::string name, std::vector<ValueId> operands, std::vector<TensorType> result_types,
                  Attributes attrs, SourceLocation loc) {
  OpId id = static_cast<OpId>(ops_.size());
  Op op;
  op.kind = kind;
  op.name = std::move(name);
  op.operands = std::move(operands);
  op.attrs = std::move(attrs);
  op.loc = std::move(loc);
  for (TensorType& t : result_types) {
    Value v;
    v.type = std::move(t);
    v.role = ValueRole::kActivation;
    v.producer = id;
    values_.push_back(std::move(v));
    op.results.push_back(static_cast<ValueId>(values_.size() - 1));
  }
  ops_.push_back(std::move(op));
  return id;
}

const Mesh* Graph::FindMesh(std::string_view name) const {
  for (const Mesh& m : meshes_) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string ValueLabel(const Graph& graph, ValueId id) {
  const Value& v = graph.value(id);
  std::string label = "value %" + std::to_string(id);
  if (!v.name.empty()) return label + " \"" + v.name + "\"";
  if (v.producer != kNoOp) return label + " (result of '" + graph.op(v.producer).name + "')";
  return label;
}

}  // namespace az::pir
