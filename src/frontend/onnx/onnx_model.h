// An ONNX model as the importer reads it: ONNX's generated ModelProto
// (Debian's libonnx 1.12 and libprotobuf 3.21), checked and shape-inferred by
// ONNX itself (onnx_check.h), and the few accessors the converters share.
//
// Fields newer than ONNX 1.12's schema are kept by protobuf as unknown fields
// and read from there: IR 10's metadata_props of nodes (where the
// torch.export-based exporter writes module scopes) and IR 9's
// FunctionProto.attribute_proto (attribute defaults). ReadOnnxModel checks
// that those of the main graph's nodes and of functions parse.
//
// Tensor values: only those of tensors with at most kMaxFoldElements
// elements and inline data are decoded (shape plumbing and scalars fold from
// them); the bytes of larger tensors are never copied, and external-data
// tensors keep their dims only.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/import/constant_band.h"
#include "frontend/onnx/shape_fold.h"
#include "support/status.h"

namespace az::frontend::onnx {

namespace ox = ::ONNX_NAMESPACE;

constexpr size_t kMaxOnnxRank = 64;

// TensorProto.DataType values, the 8- and 4-bit types of ONNX 1.14+ included.
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

struct OnnxModel {
  ox::ModelProto proto;  // value_info holds what shape inference added
  // What ONNX's checker and shape inference covered (onnx_check.h), one line
  // for `inspect`'s notes.
  std::string checks;

  // The standard domain's opset version (ai.onnx; 1 when not declared).
  int64_t StandardOpset() const;
  std::string_view Metadata(std::string_view key) const;  // "" when absent
};

// Parses a serialized ModelProto, checks and shape-infers it. A malformed
// file is a located error ("file: byte N: ModelProto.graph.node[3]...: ..."),
// as are the checker's and shape inference's failures.
StatusOr<std::unique_ptr<OnnxModel>> ReadOnnxModel(std::string_view bytes, const std::string& file_name);
// The same from a file, parsed as it is read (the file's bytes are not held
// beside the model; size limits are the caller's).
StatusOr<std::unique_ptr<OnnxModel>> ReadOnnxModelFile(const std::string& path);

const ox::AttributeProto* FindAttribute(const ox::NodeProto& node, std::string_view name);
// The value of `key` in the node's metadata_props; "" when absent.
std::string NodeMetadata(const ox::NodeProto& node, std::string_view key);
// The function's attributes with default values (attribute_proto).
std::vector<ox::AttributeProto> FunctionAttributeDefaults(const ox::FunctionProto& function);
bool IsExternal(const ox::TensorProto& tensor);
// What is wrong with a tensor's dims (a negative dim, rank over 64, too many
// elements); nullopt when nothing.
std::optional<std::string> TensorDimsError(const ox::TensorProto& tensor);
// The values of a tensor of at most kMaxFoldElements elements with inline
// data (raw or typed fields); nullopt for others and for undecodable types.
std::optional<TensorData> TensorValues(const ox::TensorProto& tensor);

// What a constant tensor of rank >= 2 and inline data holds when it is too
// large for TensorValues: one value everywhere, or a band mask over its last
// two dims (constant_band.h). Read value by value without a copy, up to
// kMaxPatternElements (a 4,096 x 4,096 mask); a weight is given up on at its
// third distinct value.
constexpr int64_t kMaxPatternElements = int64_t{1} << 24;
struct ConstantPattern {
  std::optional<double> splat;
  std::optional<ConstantBand> band;
};
ConstantPattern ReadConstantPattern(const ox::TensorProto& tensor);

}  // namespace az::frontend::onnx
