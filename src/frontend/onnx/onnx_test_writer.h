// Test-only: writes protobuf wire format and small ONNX models, so that tests
// build their inputs in code (no libprotobuf, no Python), and counts what an
// import made of them. Header-only; used by the *_test.cc files of
// frontend/onnx and by nothing else.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pir/ir/graph.h"

namespace az::frontend::onnx::testing {

class ProtoWriter {
 public:
  static void AppendVarint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
      out += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  }
  ProtoWriter& Varint(uint32_t field, uint64_t v) {
    AppendVarint(bytes_, uint64_t{field} << 3);
    AppendVarint(bytes_, v);
    return *this;
  }
  ProtoWriter& Int(uint32_t field, int64_t v) { return Varint(field, static_cast<uint64_t>(v)); }
  ProtoWriter& Bytes(uint32_t field, std::string_view s) {
    AppendVarint(bytes_, (uint64_t{field} << 3) | 2);
    AppendVarint(bytes_, s.size());
    bytes_.append(s);
    return *this;
  }
  ProtoWriter& Message(uint32_t field, const ProtoWriter& m) { return Bytes(field, m.str()); }
  ProtoWriter& Float(uint32_t field, float f) {
    AppendVarint(bytes_, (uint64_t{field} << 3) | 5);
    char raw[4];
    std::memcpy(raw, &f, 4);
    bytes_.append(raw, 4);
    return *this;
  }
  ProtoWriter& PackedInts(uint32_t field, const std::vector<int64_t>& values) {
    std::string packed;
    for (int64_t v : values) AppendVarint(packed, static_cast<uint64_t>(v));
    return Bytes(field, packed);
  }
  const std::string& str() const { return bytes_; }

 private:
  std::string bytes_;
};

constexpr int32_t kFloat = 1, kInt64 = 7, kBool = 9, kBf16 = 16;

// A dim: a size or a symbolic name.
using Dim = std::variant<int64_t, std::string>;

inline ProtoWriter ValueInfo(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims) {
  ProtoWriter shape;
  for (const Dim& d : dims) {
    ProtoWriter dim;
    if (std::holds_alternative<int64_t>(d))
      dim.Int(1, std::get<int64_t>(d));
    else
      dim.Bytes(2, std::get<std::string>(d));
    shape.Message(1, dim);
  }
  ProtoWriter tensor_type;
  tensor_type.Int(1, elem_type).Message(2, shape);
  ProtoWriter type;
  type.Message(1, tensor_type);
  ProtoWriter vi;
  vi.Bytes(1, name).Message(2, type);
  return vi;
}

// A TensorProto; int64 values (if any) are written as raw_data. Without
// values (and not external), its elements are zeros: ONNX's checker wants
// the data its dims declare.
inline ProtoWriter Tensor(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& int64_values = {}, bool external = false) {
  ProtoWriter t;
  for (int64_t d : dims) t.Int(1, d);
  t.Int(2, elem_type);
  if (!name.empty()) t.Bytes(8, name);
  if (!int64_values.empty()) {
    std::string raw(int64_values.size() * 8, '\0');
    std::memcpy(raw.data(), int64_values.data(), raw.size());
    t.Bytes(9, raw);
  } else if (!external) {
    size_t elements = 1;
    for (int64_t d : dims) elements *= static_cast<size_t>(d);
    size_t width = elem_type == kInt64 ? 8 : elem_type == kBool ? 1 : elem_type == kBf16 ? 2 : 4;
    t.Bytes(9, std::string(elements * width, '\0'));
  }
  if (external) {
    ProtoWriter location;
    location.Bytes(1, "location").Bytes(2, "weights.bin");
    t.Message(13, location).Int(14, 1);
  }
  return t;
}

inline ProtoWriter FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<float>& values) {
  ProtoWriter t;
  for (int64_t d : dims) t.Int(1, d);
  t.Int(2, kFloat);
  if (!name.empty()) t.Bytes(8, name);
  std::string raw(values.size() * 4, '\0');
  std::memcpy(raw.data(), values.data(), raw.size());
  t.Bytes(9, raw);
  return t;
}

inline ProtoWriter AttrInt(const std::string& name, int64_t v) {
  ProtoWriter a;
  a.Bytes(1, name).Int(3, v).Int(20, 2);
  return a;
}
inline ProtoWriter AttrFloat(const std::string& name, float v) {
  ProtoWriter a;
  a.Bytes(1, name).Float(2, v).Int(20, 1);
  return a;
}
inline ProtoWriter AttrString(const std::string& name, const std::string& v) {
  ProtoWriter a;
  a.Bytes(1, name).Bytes(4, v).Int(20, 3);
  return a;
}
inline ProtoWriter AttrInts(const std::string& name, const std::vector<int64_t>& v) {
  ProtoWriter a;
  a.Bytes(1, name).PackedInts(8, v).Int(20, 7);
  return a;
}
inline ProtoWriter AttrTensor(const std::string& name, const ProtoWriter& tensor) {
  ProtoWriter a;
  a.Bytes(1, name).Message(5, tensor).Int(20, 4);
  return a;
}

struct NodeSpec {
  NodeSpec(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string node_name = "",
           std::vector<ProtoWriter> attrs = {}, std::string node_domain = "")
      : op_type(std::move(op)),
        inputs(std::move(in)),
        outputs(std::move(out)),
        name(std::move(node_name)),
        attributes(std::move(attrs)),
        domain(std::move(node_domain)) {}

  std::string op_type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string name;
  std::vector<ProtoWriter> attributes;
  std::string domain;
  std::vector<std::pair<std::string, std::string>> metadata;

  ProtoWriter Write() const {
    ProtoWriter n;
    for (const std::string& i : inputs) n.Bytes(1, i);
    for (const std::string& o : outputs) n.Bytes(2, o);
    if (!name.empty()) n.Bytes(3, name);
    n.Bytes(4, op_type);
    for (const ProtoWriter& a : attributes) n.Message(5, a);
    if (!domain.empty()) n.Bytes(7, domain);
    for (const auto& [k, v] : metadata) {
      ProtoWriter e;
      e.Bytes(1, k).Bytes(2, v);
      n.Message(9, e);
    }
    return n;
  }
};

// Builds a ModelProto: graph inputs, outputs, initializers, nodes, functions.
class OnnxBuilder {
 public:
  explicit OnnxBuilder(int64_t opset = 17) : opset_(opset) {}
  OnnxBuilder& Input(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims) {
    graph_inputs_.push_back(ValueInfo(name, elem_type, dims));
    return *this;
  }
  OnnxBuilder& Output(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims) {
    graph_outputs_.push_back(ValueInfo(name, elem_type, dims));
    return *this;
  }
  OnnxBuilder& DeclareValue(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims) {
    value_info_.push_back(ValueInfo(name, elem_type, dims));
    return *this;
  }
  OnnxBuilder& Initializer(const ProtoWriter& tensor) {
    initializers_.push_back(tensor);
    return *this;
  }
  OnnxBuilder& Node(NodeSpec node) {
    UseDomain(node.domain);
    nodes_.push_back(node.Write());
    return *this;
  }
  OnnxBuilder& Metadata(const std::string& key, const std::string& value) {
    metadata_.emplace_back(key, value);
    return *this;
  }
  // A model-local function: FunctionProto name 1, input 4, output 5, node 7, domain 10.
  OnnxBuilder& Function(const std::string& domain, const std::string& name, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::vector<NodeSpec>& body) {
    ProtoWriter f;
    f.Bytes(1, name);
    for (const std::string& i : inputs) f.Bytes(4, i);
    for (const std::string& o : outputs) f.Bytes(5, o);
    for (const NodeSpec& n : body) {
      UseDomain(n.domain);
      f.Message(7, n.Write());
    }
    ProtoWriter opset;
    opset.Bytes(1, "").Int(2, opset_);
    f.Message(9, opset);
    for (const std::string& d : domains_) {
      ProtoWriter other;
      other.Bytes(1, d).Int(2, 1);
      f.Message(9, other);
    }
    f.Bytes(10, domain);
    functions_.push_back(f);
    return *this;
  }

  std::string Build() const {
    ProtoWriter graph;
    for (const ProtoWriter& n : nodes_) graph.Message(1, n);
    graph.Bytes(2, "test_graph");
    for (const ProtoWriter& t : initializers_) graph.Message(5, t);
    for (const ProtoWriter& v : graph_inputs_) graph.Message(11, v);
    for (const ProtoWriter& v : graph_outputs_) graph.Message(12, v);
    for (const ProtoWriter& v : value_info_) graph.Message(13, v);
    ProtoWriter opset;
    opset.Bytes(1, "").Int(2, opset_);
    ProtoWriter model;
    model.Int(1, 8).Bytes(2, "aoizora-test").Message(7, graph).Message(8, opset);
    // Version 1 of every other domain a node uses (the checker wants them declared).
    for (const std::string& domain : domains_) {
      ProtoWriter other;
      other.Bytes(1, domain).Int(2, 1);
      model.Message(8, other);
    }
    for (const auto& [k, v] : metadata_) {
      ProtoWriter e;
      e.Bytes(1, k).Bytes(2, v);
      model.Message(14, e);
    }
    for (const ProtoWriter& f : functions_) model.Message(25, f);
    return model.str();
  }

 private:
  void UseDomain(const std::string& domain) {
    if (!domain.empty() && std::find(domains_.begin(), domains_.end(), domain) == domains_.end())
      domains_.push_back(domain);
  }

  int64_t opset_;
  std::vector<std::string> domains_;
  std::vector<ProtoWriter> graph_inputs_, graph_outputs_, value_info_, initializers_, nodes_, functions_;
  std::vector<std::pair<std::string, std::string>> metadata_;
};

// Elements of all the graph's parameters.
inline int64_t ParamCount(const pir::Graph& g) {
  int64_t n = 0;
  for (const pir::Value& v : g.values()) {
    if (v.role == pir::ValueRole::kParameter) n += v.type.NumElements();
  }
  return n;
}

// How many ops of `kind` the graph holds.
inline int CountOps(const pir::Graph& g, pir::OpKind kind) {
  int n = 0;
  for (const pir::Op& op : g.ops()) n += op.kind == kind;
  return n;
}

}  // namespace az::frontend::onnx::testing
