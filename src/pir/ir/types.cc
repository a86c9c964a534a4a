#include "pir/ir/types.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "support/status.h"

namespace az::pir {

namespace {
struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int64_t bytes;
  bool is_float;
  int float_rank;  // promotion rank among floats
};
constexpr DTypeInfo kDTypes[] = {
    {DType::kF32, "f32", 4, true, 3},      {DType::kF16, "f16", 2, true, 2},
    {DType::kBF16, "bf16", 2, true, 2},    {DType::kF8E4M3, "f8e4m3", 1, true, 1},
    {DType::kF8E5M2, "f8e5m2", 1, true, 1}, {DType::kF64, "f64", 8, true, 4},
    {DType::kI64, "i64", 8, false, 0},     {DType::kI32, "i32", 4, false, 0},
    {DType::kI8, "i8", 1, false, 0},       {DType::kBool, "i1", 1, false, 0},
};
const DTypeInfo& Info(DType d) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == d) return info;
  }
  AZ_CHECK_MSG(false, "dtype missing from kDTypes");
  return kDTypes[0];
}
}  // namespace

std::string_view DTypeName(DType dtype) { return Info(dtype).name; }
std::optional<DType> ParseDType(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}
int64_t DTypeBytes(DType dtype) { return Info(dtype).bytes; }
bool IsFloat(DType dtype) { return Info(dtype).is_float; }

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  const DTypeInfo& ia = Info(a);
  const DTypeInfo& ib = Info(b);
  if (ia.is_float != ib.is_float) return ia.is_float ? a : b;
  if (ia.is_float) {
    if (ia.float_rank != ib.float_rank) return ia.float_rank > ib.float_rank ? a : b;
    return DType::kF32;  // f16 with bf16: neither holds the other
  }
  return ia.bytes >= ib.bytes ? a : b;
}

int64_t TensorType::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorType::ToString() const {
  std::string out(DTypeName(dtype));
  out += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
  return out;
}

std::string_view ValueRoleName(ValueRole role) {
  switch (role) {
    case ValueRole::kInput: return "input";
    case ValueRole::kParameter: return "param";
    case ValueRole::kActivation: return "activation";
    case ValueRole::kConstant: return "const";
    case ValueRole::kOptimizerState: return "opt_state";
  }
  return "activation";
}

void Attributes::Set(std::string key, AttrValue value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const auto& entry, const std::string& k) { return entry.first < k; });
  if (it != entries_.end() && it->first == key) {
    it->second = std::move(value);
    return;
  }
  entries_.insert(it, {std::move(key), std::move(value)});
}

const AttrValue* Attributes::Find(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const auto& entry, std::string_view k) { return entry.first < k; });
  if (it != entries_.end() && it->first == key) return &it->second;
  return nullptr;
}

std::optional<int64_t> Attributes::GetInt(std::string_view key) const {
  const AttrValue* v = Find(key);
  if (v == nullptr || !std::holds_alternative<int64_t>(*v)) return std::nullopt;
  return std::get<int64_t>(*v);
}
std::optional<double> Attributes::GetFloat(std::string_view key) const {
  const AttrValue* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (std::holds_alternative<double>(*v)) return std::get<double>(*v);
  if (std::holds_alternative<int64_t>(*v)) return static_cast<double>(std::get<int64_t>(*v));
  return std::nullopt;
}
std::optional<std::string> Attributes::GetString(std::string_view key) const {
  const AttrValue* v = Find(key);
  if (v == nullptr || !std::holds_alternative<std::string>(*v)) return std::nullopt;
  return std::get<std::string>(*v);
}
std::optional<bool> Attributes::GetBool(std::string_view key) const {
  const AttrValue* v = Find(key);
  if (v == nullptr || !std::holds_alternative<bool>(*v)) return std::nullopt;
  return std::get<bool>(*v);
}
std::optional<std::vector<int64_t>> Attributes::GetInts(std::string_view key) const {
  const AttrValue* v = Find(key);
  if (v == nullptr || !std::holds_alternative<std::vector<int64_t>>(*v)) return std::nullopt;
  return std::get<std::vector<int64_t>>(*v);
}

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

static std::string FormatDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, result.ptr);
  // A float must not read back as an integer.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string AttrValueToString(const AttrValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return FormatDouble(*d);
  if (const auto* s = std::get_if<std::string>(&value)) return QuoteString(*s);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  const auto& list = std::get<std::vector<int64_t>>(value);
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(list[i]);
  }
  out += ']';
  return out;
}

std::optional<int64_t> Mesh::AxisSize(std::string_view axis) const {
  for (const auto& [name, size] : axes) {
    if (name == axis) return size;
  }
  return std::nullopt;
}

int64_t Mesh::NumDevices() const {
  int64_t n = 1;
  for (const auto& axis : axes) n *= axis.second;
  return n;
}

}  // namespace az::pir
