// Internal to frontend/onnx: attribute access and small helpers shared by the
// op converters (import_ops.cc, import_layout.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/onnx/importer.h"

namespace az::frontend::onnx {

inline int64_t AttrInt(const ox::NodeProto& node, const char* name, int64_t fallback) {
  const ox::AttributeProto* a = FindAttribute(node, name);
  return a ? a->i() : fallback;
}
inline double AttrFloat(const ox::NodeProto& node, const char* name, double fallback) {
  const ox::AttributeProto* a = FindAttribute(node, name);
  return a ? a->f() : fallback;
}
inline std::string AttrString(const ox::NodeProto& node, const char* name, const std::string& fallback) {
  const ox::AttributeProto* a = FindAttribute(node, name);
  return a ? a->s() : fallback;
}
inline std::optional<std::vector<int64_t>> AttrInts(const ox::NodeProto& node, const char* name) {
  const ox::AttributeProto* a = FindAttribute(node, name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}
// The known integer values of input i (a folded constant); nullopt when the
// input is absent; an error when present but not a constant.
StatusOr<std::optional<std::vector<int64_t>>> ConstantInts(Importer& im, const NodeContext& ctx, size_t i);
// Normalizes `axis` for `rank`, or a located error.
StatusOr<int64_t> Axis(Importer& im, const NodeContext& ctx, int64_t axis, int64_t rank);
// Output i becomes `in` (materializing a pending leaf first, so that both
// names denote one PIR value).
Status Alias(Importer& im, const NodeContext& ctx, size_t i, Slot* in);
// Output i is `in` with a new shape: a folded constant, an alias, or a PIR reshape.
Status Reshaped(Importer& im, const NodeContext& ctx, size_t i, Slot* in, const pir::Shape& shape,
                const std::string& suffix = "");
// A value that is constant but too large to fold: a constant leaf on first use.
// `from`: the constant it is a reshape, expand or cast of, whose known values
// it keeps (a splat stays one; a band mask stays one while its last two dims
// are unchanged).
Status DefineOpaqueConstant(Importer& im, const NodeContext& ctx, size_t i, pir::TensorType type,
                            const Slot* from = nullptr);

// import_layout.cc: shape plumbing and layout ops.
Status ConvertLayoutNode(Importer& im, const NodeContext& ctx, bool* handled);

}  // namespace az::frontend::onnx
