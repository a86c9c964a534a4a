// A small, bounds-checked reader of the protobuf wire format: enough to read an
// ONNX file without libprotobuf.
//
// The format: a message is a sequence of fields, each a varint tag
// (field_number << 3 | wire_type) followed by its value:
//   0 varint       up to 10 bytes, 7 bits each, little-endian groups
//   1 fixed64      8 bytes little-endian (double, fixed64)
//   2 length-delimited  a varint length, then that many bytes (strings, bytes,
//                  nested messages, packed repeated scalars)
//   5 fixed32      4 bytes little-endian (float, fixed32)
// Groups (wire types 3 and 4) are obsolete and rejected.
//
// Invariants. Every read is checked against the bytes of the enclosing message;
// a reader never allocates in proportion to a size the input declares (lengths
// are checked against the bytes actually present before anything is copied).
// Nested readers count their depth; more than kMaxWireDepth levels is an error.
// An error carries the file name, the absolute byte offset and the message path:
//   "model.onnx: byte 1234: GraphProto.node[17].attribute[2]: truncated varint"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace az::frontend::onnx {

constexpr int kMaxWireDepth = 64;

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t scalar = 0;      // varint, fixed64 or fixed32 bits
  std::string_view bytes;   // the payload of a length-delimited field
  size_t offset = 0;        // absolute offset of the field's tag in the file
  size_t value_offset = 0;  // absolute offset of the field's value (past tag and length)
};

// Decodes one varint from `data` at `*pos`; advances `*pos`. False when the
// bytes end first or the varint is longer than 10 bytes / overflows 64 bits.
bool DecodeVarint(std::string_view data, size_t* pos, uint64_t* value);

// Reads the fields of one message, in order.
class WireMessage {
 public:
  // `file` must outlive the reader (it is only used in messages). `base` is the
  // absolute offset of data[0] in the file.
  WireMessage(std::string_view file, std::string_view data, std::string path, size_t base = 0, int depth = 0);

  // The next field in `*field`; false at the end of the message.
  StatusOr<bool> Next(WireField* field);

  // A reader of a length-delimited field as a nested message; `path` is its
  // full path ("GraphProto.node[3]").
  StatusOr<WireMessage> Nested(const WireField& field, std::string path) const;

  // Typed views of one field (type-checked: a wrong wire type is an error).
  StatusOr<int64_t> Int(const WireField& field) const;  // varint, two's complement
  StatusOr<std::string_view> Bytes(const WireField& field) const;
  StatusOr<float> Float(const WireField& field) const;    // fixed32
  StatusOr<double> Double(const WireField& field) const;  // fixed64

  // Repeated scalars, packed (one length-delimited field) or not (one value per
  // field); appended to `out`. At most `limit` values in total in `out`.
  Status AppendVarints(const WireField& field, std::vector<int64_t>* out, size_t limit) const;
  Status AppendFloats(const WireField& field, std::vector<float>* out, size_t limit) const;
  Status AppendDoubles(const WireField& field, std::vector<double>* out, size_t limit) const;

  // "file: byte N: path: message", as a parse error.
  Status Error(size_t absolute_offset, std::string_view message) const;

  const std::string& path() const { return path_; }
  std::string_view file() const { return file_; }
  int depth() const { return depth_; }
  size_t base() const { return base_; }  // absolute offset of the message's first byte

 private:
  Status ExpectType(const WireField& field, WireType type) const;

  std::string_view file_;
  std::string_view data_;
  std::string path_;
  size_t base_ = 0;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace az::frontend::onnx
