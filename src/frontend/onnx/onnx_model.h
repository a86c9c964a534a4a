// The parts of an ONNX ModelProto the importer needs, as plain structs.
//
// ReadOnnxModel parses the bytes with ONNX's generated classes (Debian's
// libonnx 1.12 and libprotobuf 3.21), runs ONNX's checker and shape inference
// on them (onnx_check.h says what is checked at which opset), and copies out:
//   - tensors (initializers, Constant values): name, element type, dims, and
//     the values only when the tensor has at most kMaxFoldElements elements
//     (shape plumbing and scalars fold from them); the bytes of larger tensors
//     are never copied. External-data tensors keep their dims only.
//   - graphs: nodes (inputs, outputs, name, op type, domain, attributes,
//     metadata_props), inputs/outputs/value_info with their tensor types
//     (dim_value or dim_param per dim; value_info includes what shape
//     inference added), initializers.
//   - attributes: scalars, strings, int and float lists, one tensor; subgraphs
//     (If/Loop bodies) are counted, not read: the importer turns such nodes
//     into custom ops, so graph nesting never recurses.
//   - model: ir_version, producer, opset_import, metadata_props, and
//     model-local functions (FunctionProto) for inlining.
// Fields newer than ONNX 1.12's schema (IR 10's metadata_props of nodes and
// graphs, where the torch.export-based exporter writes module scopes; IR 9's
// FunctionProto.attribute_proto, the attribute defaults) are kept by protobuf
// as unknown fields and read from there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace az::frontend::onnx {

constexpr int64_t kMaxFoldElements = 4096;
constexpr size_t kMaxOnnxRank = 64;

// TensorProto.DataType values.
enum OnnxDataType : int32_t {
  kOnnxUndefined = 0,
  kOnnxFloat = 1,
  kOnnxUint8 = 2,
  kOnnxInt8 = 3,
  kOnnxUint16 = 4,
  kOnnxInt16 = 5,
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxString = 8,
  kOnnxBool = 9,
  kOnnxFloat16 = 10,
  kOnnxDouble = 11,
  kOnnxUint32 = 12,
  kOnnxUint64 = 13,
  kOnnxBfloat16 = 16,
  kOnnxFloat8E4M3FN = 17,
  kOnnxFloat8E4M3FNUZ = 18,
  kOnnxFloat8E5M2 = 19,
  kOnnxFloat8E5M2FNUZ = 20,
  kOnnxUint4 = 21,
  kOnnxInt4 = 22,
};
bool IsOnnxFloatType(int32_t data_type);

struct OnnxTensor {
  std::string name;
  int32_t data_type = kOnnxUndefined;
  std::vector<int64_t> dims;
  bool external = false;  // data_location = EXTERNAL (values elsewhere)
  // Values, only for tensors of <= kMaxFoldElements elements with inline data:
  // integer and bool types in `ints`, floating types in `floats`.
  bool has_values = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  // Product of dims, or nullopt on a negative dim or overflow past 2^62.
  std::optional<int64_t> NumElements() const;
};

struct OnnxDim {
  std::optional<int64_t> value;  // dim_value
  std::string param;             // dim_param ("seq"); empty when unknown
};

struct OnnxValueInfo {
  std::string name;
  int32_t elem_type = kOnnxUndefined;  // 0: not a tensor, or unknown
  bool has_shape = false;
  std::vector<OnnxDim> dims;
};

enum class OnnxAttrType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
};

struct OnnxAttribute {
  std::string name;
  OnnxAttrType type = OnnxAttrType::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::optional<OnnxTensor> t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  int num_graphs = 0;         // g / graphs: counted only
  std::string ref_attr_name;  // inside a function body: refers to the caller's attribute
};

struct OnnxNode {
  std::vector<std::string> inputs;  // "" = an omitted optional input
  std::vector<std::string> outputs;
  std::string name;
  std::string op_type;
  std::string domain;  // "" and "ai.onnx" are the standard domain
  std::vector<OnnxAttribute> attributes;
  std::vector<std::pair<std::string, std::string>> metadata;

  const OnnxAttribute* FindAttribute(std::string_view attr_name) const;
  std::string_view Metadata(std::string_view key) const;  // "" when absent
};

struct OnnxGraph {
  std::string name;
  std::vector<OnnxNode> nodes;
  std::vector<OnnxTensor> initializers;
  std::vector<OnnxValueInfo> inputs;
  std::vector<OnnxValueInfo> outputs;
  std::vector<OnnxValueInfo> value_info;
  std::vector<std::pair<std::string, std::string>> metadata;
};

struct OnnxFunction {
  std::string name;
  std::string domain;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attributes;  // names of attributes without defaults
  std::vector<OnnxAttribute> attribute_defaults;
  std::vector<OnnxNode> nodes;
};

struct OnnxModel {
  int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  std::map<std::string, int64_t> opsets;  // domain ("" = standard) -> version
  std::vector<std::pair<std::string, std::string>> metadata;
  OnnxGraph graph;
  std::vector<OnnxFunction> functions;
  // What ONNX's checker and shape inference covered (onnx_check.h), one line
  // for `inspect`'s notes.
  std::string checks;

  // The standard domain's opset version (ai.onnx; 1 when not declared).
  int64_t StandardOpset() const;
  std::string_view Metadata(std::string_view key) const;  // "" when absent
};

// Parses a serialized ModelProto, checks and shape-infers it (onnx_check.h)
// and copies it out. A malformed file is a located error ("file: byte N:
// ModelProto.graph.node[3]: ..."), as are the checker's and shape inference's
// failures.
StatusOr<OnnxModel> ReadOnnxModel(std::string_view bytes, const std::string& file_name);

}  // namespace az::frontend::onnx
