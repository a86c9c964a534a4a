#include "frontend/onnx/protobuf_wire.h"

#include <algorithm>
#include <cstring>

namespace az::frontend::onnx {

bool DecodeVarint(std::string_view data, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (*pos >= data.size()) return false;
    uint8_t byte = static_cast<uint8_t>(data[*pos]);
    ++*pos;
    // The tenth byte holds bit 63 only.
    if (i == 9 && byte > 1) return false;
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

WireMessage::WireMessage(std::string_view file, std::string_view data, std::string path, size_t base, int depth)
    : file_(file), data_(data), path_(std::move(path)), base_(base), depth_(depth) {}

Status WireMessage::Error(size_t absolute_offset, std::string_view message) const {
  return ParseError(std::string(file_) + ": byte " + std::to_string(absolute_offset) + ": " + path_ + ": " +
                    std::string(message));
}

StatusOr<bool> WireMessage::Next(WireField* field) {
  if (pos_ >= data_.size()) return false;
  size_t start = pos_;
  uint64_t tag = 0;
  if (!DecodeVarint(data_, &pos_, &tag)) return Error(base_ + start, "truncated varint in a field tag");
  uint64_t number = tag >> 3;
  if (number == 0 || number > 536870911)
    return Error(base_ + start, "field number " + std::to_string(number) + " is out of range");
  field->number = static_cast<uint32_t>(number);
  field->offset = base_ + start;
  field->bytes = {};
  field->scalar = 0;
  switch (tag & 7) {
    case 0: {
      field->type = WireType::kVarint;
      field->value_offset = base_ + pos_;
      if (!DecodeVarint(data_, &pos_, &field->scalar)) {
        return Error(field->value_offset, "truncated varint (field " + std::to_string(number) + ")");
      }
      return true;
    }
    case 1:
    case 5: {
      size_t width = (tag & 7) == 1 ? 8 : 4;
      field->type = width == 8 ? WireType::kFixed64 : WireType::kFixed32;
      field->value_offset = base_ + pos_;
      if (data_.size() - pos_ < width) {
        return Error(field->value_offset,
                     "truncated fixed" + std::to_string(width * 8) + " (field " + std::to_string(number) + ")");
      }
      uint64_t bits = 0;
      for (size_t i = 0; i < width; ++i)
        bits |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
      pos_ += width;
      field->scalar = bits;
      return true;
    }
    case 2: {
      field->type = WireType::kLengthDelimited;
      size_t length_at = pos_;
      uint64_t length = 0;
      if (!DecodeVarint(data_, &pos_, &length)) {
        return Error(base_ + length_at, "truncated varint in the length of field " + std::to_string(number));
      }
      if (length > data_.size() - pos_) {
        return Error(base_ + length_at, "field " + std::to_string(number) + " declares " + std::to_string(length) +
                                            " bytes but only " + std::to_string(data_.size() - pos_) + " remain");
      }
      field->value_offset = base_ + pos_;
      field->bytes = data_.substr(pos_, static_cast<size_t>(length));
      pos_ += static_cast<size_t>(length);
      return true;
    }
    default:
      return Error(base_ + start,
                   "unsupported wire type " + std::to_string(tag & 7) + " (field " + std::to_string(number) + ")");
  }
}

Status WireMessage::ExpectType(const WireField& field, WireType type) const {
  if (field.type == type) return Status::Ok();
  static const char* kNames[] = {"varint", "fixed64", "length-delimited", "?", "?", "fixed32"};
  return Error(field.offset, "field " + std::to_string(field.number) + " has wire type " +
                                 kNames[static_cast<int>(field.type)] + ", expected " + kNames[static_cast<int>(type)]);
}

StatusOr<WireMessage> WireMessage::Nested(const WireField& field, std::string path) const {
  AZ_RETURN_IF_ERROR(ExpectType(field, WireType::kLengthDelimited));
  if (depth_ + 1 > kMaxWireDepth) {
    return Error(field.offset, "messages nested deeper than " + std::to_string(kMaxWireDepth) + " levels");
  }
  return WireMessage(file_, field.bytes, std::move(path), field.value_offset, depth_ + 1);
}

StatusOr<int64_t> WireMessage::Int(const WireField& field) const {
  AZ_RETURN_IF_ERROR(ExpectType(field, WireType::kVarint));
  return static_cast<int64_t>(field.scalar);
}

StatusOr<std::string_view> WireMessage::Bytes(const WireField& field) const {
  AZ_RETURN_IF_ERROR(ExpectType(field, WireType::kLengthDelimited));
  return field.bytes;
}

StatusOr<float> WireMessage::Float(const WireField& field) const {
  AZ_RETURN_IF_ERROR(ExpectType(field, WireType::kFixed32));
  uint32_t bits = static_cast<uint32_t>(field.scalar);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

StatusOr<double> WireMessage::Double(const WireField& field) const {
  AZ_RETURN_IF_ERROR(ExpectType(field, WireType::kFixed64));
  double value;
  std::memcpy(&value, &field.scalar, sizeof value);
  return value;
}

Status WireMessage::AppendVarints(const WireField& field, std::vector<int64_t>* out, size_t limit) const {
  if (field.type == WireType::kVarint) {
    if (out->size() >= limit) return Error(field.offset, "more than " + std::to_string(limit) + " repeated values");
    out->push_back(static_cast<int64_t>(field.scalar));
    return Status::Ok();
  }
  AZ_RETURN_IF_ERROR(ExpectType(field, WireType::kLengthDelimited));
  size_t pos = 0;
  while (pos < field.bytes.size()) {
    size_t at = pos;
    uint64_t value = 0;
    if (!DecodeVarint(field.bytes, &pos, &value))
      return Error(field.value_offset + at, "truncated varint in a packed field");
    if (out->size() >= limit)
      return Error(field.value_offset + at, "more than " + std::to_string(limit) + " repeated values");
    out->push_back(static_cast<int64_t>(value));
  }
  return Status::Ok();
}

namespace {
template <typename T>
Status AppendFixed(const WireMessage& message, const WireField& field, WireType single, std::vector<T>* out,
                   size_t limit) {
  constexpr size_t kWidth = sizeof(T);
  if (field.type == single) {
    if (out->size() >= limit)
      return message.Error(field.offset, "more than " + std::to_string(limit) + " repeated values");
    T value;
    std::memcpy(&value, &field.scalar, kWidth);  // little-endian host
    out->push_back(value);
    return Status::Ok();
  }
  if (field.type != WireType::kLengthDelimited) {
    return message.Error(field.offset, "field " + std::to_string(field.number) + " has the wrong wire type");
  }
  if (field.bytes.size() % kWidth != 0) {
    return message.Error(field.value_offset, "packed field of " + std::to_string(field.bytes.size()) +
                                                 " bytes is not a multiple of " + std::to_string(kWidth));
  }
  size_t count = field.bytes.size() / kWidth;
  if (count > limit - std::min(limit, out->size())) {
    return message.Error(field.value_offset, "more than " + std::to_string(limit) + " repeated values");
  }
  for (size_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, field.bytes.data() + i * kWidth, kWidth);
    out->push_back(value);
  }
  return Status::Ok();
}
}  // namespace

Status WireMessage::AppendFloats(const WireField& field, std::vector<float>* out, size_t limit) const {
  return AppendFixed(*this, field, WireType::kFixed32, out, limit);
}

Status WireMessage::AppendDoubles(const WireField& field, std::vector<double>* out, size_t limit) const {
  return AppendFixed(*this, field, WireType::kFixed64, out, limit);
}

}  // namespace az::frontend::onnx
