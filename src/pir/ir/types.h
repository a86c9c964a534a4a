// PIR value types: element types, shapes, roles, attributes, shardings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace az::pir {

enum class DType { kF32, kF16, kBF16, kF8E4M3, kF8E5M2, kF64, kI64, kI32, kI8, kBool };

// Canonical name ("bf16"), and its parse; nullopt for an unknown name.
std::string_view DTypeName(DType dtype);
std::optional<DType> ParseDType(std::string_view name);
int64_t DTypeBytes(DType dtype);
bool IsFloat(DType dtype);
// The result type of an element-wise op on a and b (PyTorch-style promotion:
// the wider float wins; f32 * bf16 -> f32).
DType PromoteTypes(DType a, DType b);

using Shape = std::vector<int64_t>;

struct TensorType {
  DType dtype = DType::kF32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t NumElements() const;
  int64_t NumBytes() const { return NumElements() * DTypeBytes(dtype); }
  // "bf16[1,75600,5120]"; a scalar prints as "f32[]".
  std::string ToString() const;
  bool operator==(const TensorType&) const = default;
};

// kOptimizerState: a training step's optimizer leaves (AdamW's moments, and the
// fp32 master weights when the parameters are a bf16 working copy). Not
// parameters: the model's parameter count excludes them; a memory model counts
// them apart (ZeRO's "optimizer states").
enum class ValueRole { kInput, kParameter, kActivation, kConstant, kOptimizerState };
// The text keyword: "input", "param", "activation", "const", "opt_state".
std::string_view ValueRoleName(ValueRole role);

// Attribute values: integers, floats, strings, booleans, integer lists.
using AttrValue = std::variant<int64_t, double, std::string, bool, std::vector<int64_t>>;

// Attributes sorted by key, so that printing and comparison are canonical.
class Attributes {
 public:
  void Set(std::string key, AttrValue value);
  const AttrValue* Find(std::string_view key) const;
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // Typed getters; nullopt when missing or of another type.
  std::optional<int64_t> GetInt(std::string_view key) const;
  std::optional<double> GetFloat(std::string_view key) const;  // accepts ints too
  std::optional<std::string> GetString(std::string_view key) const;
  std::optional<bool> GetBool(std::string_view key) const;
  std::optional<std::vector<int64_t>> GetInts(std::string_view key) const;

  const std::vector<std::pair<std::string, AttrValue>>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  bool operator==(const Attributes&) const = default;

 private:
  std::vector<std::pair<std::string, AttrValue>> entries_;
};

// "42", "1.0e-06", "\"bld,de->ble\"", "true", "[0, 2, 1]": the canonical text of a
// value (floats print in the shortest form that reads back to the same double).
std::string AttrValueToString(const AttrValue& value);
std::string QuoteString(std::string_view s);

// A logical device mesh: named axes, sizes multiply to the device count.
struct Mesh {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> axes;

  std::optional<int64_t> AxisSize(std::string_view axis) const;
  int64_t NumDevices() const;
  bool operator==(const Mesh&) const = default;
};

// A sharding annotation on a value (Shardy-style): for each dimension, the mesh
// axes that split it, major to minor; `replicated` axes are explicitly not used.
struct TensorSharding {
  std::string mesh;
  std::vector<std::vector<std::string>> dim_axes;
  std::vector<std::string> replicated;
  bool operator==(const TensorSharding&) const = default;
};

}  // namespace az::pir
