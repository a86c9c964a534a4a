// Tensor types of MLIR text (mlir_parser.h: ParseTensorType): "2x3xbf16" -> a
// PIR type, element types mapped to the nearest PIR dtype (i1 -> bool, ui8 ->
// i8, i16 -> i32, complex<f32> -> f64: the same or a close byte size).
#include <charconv>
#include <optional>

#include "frontend/stablehlo/mlir_parser.h"

namespace az::frontend::shlo {

namespace {

constexpr int64_t kMaxElements = int64_t{1} << 50;

struct DTypeName {
  const char* name;
  pir::DType dtype;
};
constexpr DTypeName kElementTypes[] = {
    {"f32", pir::DType::kF32},
    {"tf32", pir::DType::kF32},
    {"f16", pir::DType::kF16},
    {"bf16", pir::DType::kBF16},
    {"f64", pir::DType::kF64},
    {"f8E4M3FN", pir::DType::kF8E4M3},
    {"f8E4M3FNUZ", pir::DType::kF8E4M3},
    {"f8E4M3B11FNUZ", pir::DType::kF8E4M3},
    {"f8E4M3", pir::DType::kF8E4M3},
    {"f8E5M2", pir::DType::kF8E5M2},
    {"f8E5M2FNUZ", pir::DType::kF8E5M2},
    {"i1", pir::DType::kBool},
    {"i2", pir::DType::kI8},
    {"ui2", pir::DType::kI8},
    {"i4", pir::DType::kI8},
    {"ui4", pir::DType::kI8},
    {"f4E2M1FN", pir::DType::kI8},
    {"i8", pir::DType::kI8},
    {"ui8", pir::DType::kI8},
    {"si8", pir::DType::kI8},
    {"i16", pir::DType::kI32},
    {"ui16", pir::DType::kI32},
    {"i32", pir::DType::kI32},
    {"ui32", pir::DType::kI32},
    {"si32", pir::DType::kI32},
    {"i64", pir::DType::kI64},
    {"ui64", pir::DType::kI64},
    {"si64", pir::DType::kI64},
    {"index", pir::DType::kI64},
    {"complex<f32>", pir::DType::kF64},
    {"complex<f64>", pir::DType::kF64},
};

std::optional<pir::DType> ElementType(std::string_view name) {
  for (const DTypeName& entry : kElementTypes) {
    if (name == entry.name) return entry.dtype;
  }
  return std::nullopt;
}

}  // namespace

StatusOr<pir::TensorType> ParseTensorType(std::string_view body, bool scalar_only) {
  pir::TensorType type;
  size_t pos = 0;
  int64_t elements = 1;
  while (!scalar_only && pos < body.size() && (IsDigitChar(body[pos]) || body[pos] == '?')) {
    if (body[pos] == '?') return InvalidArgument("dynamic dimensions ('?') are not supported");
    size_t begin = pos;
    while (pos < body.size() && IsDigitChar(body[pos])) ++pos;
    int64_t dim = 0;
    auto [ptr, ec] = std::from_chars(body.data() + begin, body.data() + pos, dim);
    if (ec != std::errc() || ptr != body.data() + pos) return InvalidArgument("dimension out of range");
    if (pos >= body.size() || body[pos] != 'x') return InvalidArgument("expected 'x' after a dimension");
    ++pos;
    if (type.shape.size() >= 64) return InvalidArgument("a tensor type has more than 64 dimensions");
    if (dim != 0 && elements > kMaxElements / dim) return InvalidArgument("a tensor type has more than 2^50 elements");
    elements *= dim;
    type.shape.push_back(dim);
  }
  std::string_view element = body.substr(pos);
  if (size_t comma = element.find(','); comma != std::string_view::npos) element = element.substr(0, comma);
  while (!element.empty() && element.back() == ' ') element.remove_suffix(1);
  auto dtype = ElementType(element);
  if (!dtype) return InvalidArgument("unsupported element type '" + std::string(element.substr(0, 40)) + "'");
  type.dtype = *dtype;
  return type;
}

}  // namespace az::frontend::shlo
