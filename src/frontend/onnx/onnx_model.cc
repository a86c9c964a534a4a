// Reads a model with ONNX's generated classes (onnx_model.h): the parse,
// with a located error for a malformed file, the checks (onnx_check.h), and
// the accessors the converters share.
#include "frontend/onnx/onnx_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>

#include "frontend/onnx/onnx_check.h"
#include "support/checked_math.h"

namespace az::frontend::onnx {

namespace {

namespace pb = ::google::protobuf;

float HalfToFloat(uint16_t h) {
  int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return sign ? -value : value;
}

float Bfloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

int64_t ElementBytes(int32_t type) {
  switch (type) {
    case kOnnxFloat:
    case kOnnxInt32:
    case kOnnxUint32:
      return 4;
    case kOnnxInt64:
    case kOnnxUint64:
    case kOnnxDouble:
      return 8;
    case kOnnxFloat16:
    case kOnnxBfloat16:
    case kOnnxInt16:
    case kOnnxUint16:
      return 2;
    case kOnnxUint8:
    case kOnnxInt8:
    case kOnnxBool:
      return 1;
    default:
      return 0;  // not decoded (strings, 4- and 8-bit floats)
  }
}

// Decodes `raw` (little-endian) elements of `data_type` into `t`.
bool DecodeRaw(std::string_view raw, int32_t data_type, TensorData& t, int64_t count) {
  int64_t width = ElementBytes(data_type);
  if (width == 0 || static_cast<int64_t>(raw.size()) != width * count) return false;
  for (int64_t i = 0; i < count; ++i) {
    const char* p = raw.data() + i * width;
    uint64_t bits = 0;
    std::memcpy(&bits, p, static_cast<size_t>(width));
    switch (data_type) {
      case kOnnxFloat: {
        float v;
        std::memcpy(&v, p, 4);
        t.floats.push_back(v);
        break;
      }
      case kOnnxDouble: {
        double v;
        std::memcpy(&v, p, 8);
        t.floats.push_back(v);
        break;
      }
      case kOnnxFloat16:
        t.floats.push_back(HalfToFloat(static_cast<uint16_t>(bits)));
        break;
      case kOnnxBfloat16:
        t.floats.push_back(Bfloat16ToFloat(static_cast<uint16_t>(bits)));
        break;
      case kOnnxInt8:
        t.ints.push_back(static_cast<int8_t>(bits));
        break;
      case kOnnxInt16:
        t.ints.push_back(static_cast<int16_t>(bits));
        break;
      case kOnnxInt32:
        t.ints.push_back(static_cast<int32_t>(bits));
        break;
      default:
        t.ints.push_back(static_cast<int64_t>(bits));
        break;  // unsigned, bool, int64
    }
  }
  return true;
}

// ---- The parse: protobuf's parser, and where it stopped when it fails.

class ParseLocator {
 public:
  // io::CodedInputStream's default recursion limit.
  static constexpr int kProtobufNestingLimit = 100;

  explicit ParseLocator(const std::string& file) : file_(file) {}

  // Where `bytes` stop being a `prototype` message: its fields are walked
  // with protobuf's own reader; a message field whose payload protobuf does
  // not parse is walked in turn, down to protobuf's nesting limit. "" when no
  // field is at fault.
  std::string Locate(const pb::Message& prototype, std::string_view bytes, size_t base, const std::string& path,
                     int depth = 0) {
    using Wire = pb::internal::WireFormatLite;
    if (depth >= kProtobufNestingLimit) {
      return Error(base, path, "messages nested deeper than protobuf's limit of " +
                                   std::to_string(kProtobufNestingLimit));
    }
    const pb::Descriptor* descriptor = prototype.GetDescriptor();
    pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
    std::map<int, int> seen;  // field number -> occurrences so far
    while (true) {
      size_t at = static_cast<size_t>(in.CurrentPosition());
      uint32_t tag = in.ReadTag();
      if (tag == 0) return at == bytes.size() ? "" : Error(base + at, path, "invalid field tag");
      int number = static_cast<int>(Wire::GetTagFieldNumber(tag));
      Wire::WireType wire = Wire::GetTagWireType(tag);
      const pb::FieldDescriptor* field = descriptor->FindFieldByNumber(number);
      int index = seen[number]++;
      std::string field_path = path + "." + (field ? field->name() : "field " + std::to_string(number));
      if (field && field->is_repeated()) field_path += "[" + std::to_string(index) + "]";
      if (wire != Wire::WIRETYPE_LENGTH_DELIMITED) {
        if (!Wire::SkipField(&in, tag)) return Error(base + at, field_path, "truncated or malformed value");
        continue;
      }
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return Error(base + at, field_path, "truncated length");
      size_t start = static_cast<size_t>(in.CurrentPosition());
      if (length > bytes.size() - start) {
        return Error(base + at, field_path,
                     "length " + std::to_string(length) + " runs past the end of its message (" +
                         std::to_string(bytes.size() - start) + " bytes left)");
      }
      std::string_view payload = bytes.substr(start, length);
      if (field && field->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
        const pb::Message* inner = pb::MessageFactory::generated_factory()->GetPrototype(field->message_type());
        std::unique_ptr<pb::Message> probe(inner->New());
        if (!probe->ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
          std::string found = Locate(*inner, payload, base + start, field_path, depth + 1);
          // Every field of it parses alone, it does not as a whole: its
          // messages nest deeper than protobuf's limit (onnx.proto has no
          // required fields, the other whole-message rule).
          return found.empty() ? Error(base + at, field_path, "messages nested deeper than protobuf's limit of " +
                                                                 std::to_string(kProtobufNestingLimit))
                               : found;
        }
      } else if (field && field->is_packable() && !PackedValuesParse(field, payload)) {
        return Error(base + at, field_path, "malformed packed values");
      }
      in.Skip(static_cast<int>(length));
    }
  }

  std::string Error(size_t offset, const std::string& path, const std::string& message) const {
    return file_ + ": byte " + std::to_string(offset) + ": " + path + ": " + message;
  }

 private:
  static bool PackedValuesParse(const pb::FieldDescriptor* field, std::string_view payload) {
    using Wire = pb::internal::WireFormatLite;
    Wire::WireType wire = Wire::WireTypeForFieldType(static_cast<Wire::FieldType>(field->type()));
    if (wire == Wire::WIRETYPE_FIXED32) return payload.size() % 4 == 0;
    if (wire == Wire::WIRETYPE_FIXED64) return payload.size() % 8 == 0;
    pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(payload.data()), static_cast<int>(payload.size()));
    uint64_t value = 0;
    while (static_cast<size_t>(in.CurrentPosition()) < payload.size()) {
      if (!in.ReadVarint64(&value)) return false;
    }
    return true;
  }

  const std::string& file_;
};

// The length-delimited unknown fields numbered `number` of a message: fields
// newer than ONNX 1.12's schema.
template <typename Message>
std::vector<const std::string*> UnknownPayloads(const Message& m, int number) {
  std::vector<const std::string*> out;
  const pb::UnknownFieldSet& unknown = m.unknown_fields();
  for (int i = 0; i < unknown.field_count(); ++i) {
    const pb::UnknownField& f = unknown.field(i);
    if (f.number() == number && f.type() == pb::UnknownField::TYPE_LENGTH_DELIMITED) {
      out.push_back(&f.length_delimited());
    }
  }
  return out;
}

constexpr int kNodeMetadataField = 9;       // NodeProto.metadata_props, IR 10
constexpr int kFunctionDefaultsField = 11;  // FunctionProto.attribute_proto, IR 9

// The unknown fields the importer reads must parse as what they are.
template <typename Entry, typename Message>
Status CheckUnknown(const Message& m, int number, const std::string& file, const std::string& path) {
  for (const std::string* payload : UnknownPayloads(m, number)) {
    if (Entry entry; !entry.ParseFromString(*payload)) {
      return InvalidArgument(file + ": " + path + ": field " + std::to_string(number) + " is not a valid " +
                             entry.GetTypeName());
    }
  }
  return Status::Ok();
}

Status CheckNewerFields(const ox::ModelProto& model, const std::string& file) {
  for (int n = 0; n < model.graph().node_size(); ++n) {
    AZ_RETURN_IF_ERROR(CheckUnknown<ox::StringStringEntryProto>(model.graph().node(n), kNodeMetadataField, file,
                                                                "ModelProto.graph.node[" + std::to_string(n) + "]"));
  }
  for (int f = 0; f < model.functions_size(); ++f) {
    const ox::FunctionProto& function = model.functions(f);
    std::string path = "ModelProto.functions[" + std::to_string(f) + "]";
    AZ_RETURN_IF_ERROR(CheckUnknown<ox::AttributeProto>(function, kFunctionDefaultsField, file, path));
    for (int n = 0; n < function.node_size(); ++n) {
      AZ_RETURN_IF_ERROR(CheckUnknown<ox::StringStringEntryProto>(function.node(n), kNodeMetadataField, file,
                                                                  path + ".node[" + std::to_string(n) + "]"));
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsOnnxFloatType(int32_t t) {
  return t == kOnnxFloat || t == kOnnxFloat16 || t == kOnnxDouble || t == kOnnxBfloat16 ||
         (t >= kOnnxFloat8E4M3FN && t <= kOnnxFloat8E5M2FNUZ);
}

int64_t OnnxModel::StandardOpset() const {
  for (const ox::OperatorSetIdProto& o : proto.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  }
  return 1;
}

std::string_view OnnxModel::Metadata(std::string_view key) const {
  for (const ox::StringStringEntryProto& e : proto.metadata_props()) {
    if (e.key() == key) return e.value();
  }
  return {};
}

const ox::AttributeProto* FindAttribute(const ox::NodeProto& node, std::string_view name) {
  for (const ox::AttributeProto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::string NodeMetadata(const ox::NodeProto& node, std::string_view key) {
  for (const std::string* payload : UnknownPayloads(node, kNodeMetadataField)) {
    ox::StringStringEntryProto entry;
    if (entry.ParseFromString(*payload) && entry.key() == key) return entry.value();
  }
  return "";
}

std::vector<ox::AttributeProto> FunctionAttributeDefaults(const ox::FunctionProto& function) {
  std::vector<ox::AttributeProto> defaults;
  for (const std::string* payload : UnknownPayloads(function, kFunctionDefaultsField)) {
    if (ox::AttributeProto a; a.ParseFromString(*payload)) defaults.push_back(std::move(a));
  }
  return defaults;
}

bool IsExternal(const ox::TensorProto& t) {
  return t.data_location() == ox::TensorProto::EXTERNAL || t.external_data_size() > 0;
}

std::optional<std::string> TensorDimsError(const ox::TensorProto& t) {
  if (t.dims_size() > static_cast<int>(kMaxOnnxRank)) return "tensor '" + t.name() + "' has over 64 dims";
  for (int64_t d : t.dims()) {
    if (d < 0) return "tensor '" + t.name() + "' has a negative dim " + std::to_string(d);
  }
  if (!CheckedProduct(std::vector<int64_t>(t.dims().begin(), t.dims().end()))) {
    return "tensor '" + t.name() + "' has too many elements";
  }
  return std::nullopt;
}

std::optional<TensorData> TensorValues(const ox::TensorProto& p) {
  if (TensorDimsError(p) || IsExternal(p)) return std::nullopt;
  const std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  const std::optional<int64_t> elements = CheckedProduct(dims);
  if (!elements) return std::nullopt;
  const int64_t count = *elements;
  if (count > kMaxFoldElements) return std::nullopt;
  int32_t type = p.data_type();
  TensorData t;
  t.is_float = IsOnnxFloatType(type);
  if (p.has_raw_data()) {
    if (!DecodeRaw(p.raw_data(), type, t, count)) return std::nullopt;
    return t;
  }
  int n = static_cast<int>(count);
  if (t.is_float) {
    if (type == kOnnxFloat && p.float_data_size() == n) {
      t.floats.assign(p.float_data().begin(), p.float_data().end());
    } else if (type == kOnnxDouble && p.double_data_size() == n) {
      t.floats.assign(p.double_data().begin(), p.double_data().end());
    } else if ((type == kOnnxFloat16 || type == kOnnxBfloat16) && p.int32_data_size() == n) {
      for (int32_t bits : p.int32_data()) {
        uint16_t h = static_cast<uint16_t>(bits);
        t.floats.push_back(type == kOnnxFloat16 ? HalfToFloat(h) : Bfloat16ToFloat(h));
      }
    } else {
      return std::nullopt;
    }
    return t;
  }
  if (type == kOnnxString || p.int32_data_size() + p.int64_data_size() + p.uint64_data_size() != n) {
    return std::nullopt;
  }
  t.ints.assign(p.int32_data().begin(), p.int32_data().end());
  t.ints.insert(t.ints.end(), p.int64_data().begin(), p.int64_data().end());
  for (uint64_t v : p.uint64_data()) t.ints.push_back(static_cast<int64_t>(v));
  return t;
}

namespace {

// After the parse: a graph, the fields newer than ONNX 1.12 well formed, the checks.
StatusOr<std::unique_ptr<OnnxModel>> FinishRead(std::unique_ptr<OnnxModel> model, const std::string& file_name) {
  if (!model->proto.has_graph()) {
    return InvalidArgument(file_name + ": the model has no graph (field 7); is this an ONNX file?");
  }
  AZ_RETURN_IF_ERROR(CheckNewerFields(model->proto, file_name));
  AZ_ASSIGN_OR_RETURN(OnnxChecks checks, CheckOnnxModel(model->proto, file_name));
  model->checks = checks.Summary();
  return model;
}

}  // namespace

StatusOr<std::unique_ptr<OnnxModel>> ReadOnnxModel(std::string_view bytes, const std::string& file_name) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return ResourceExhausted(file_name + ": " + std::to_string(bytes.size()) + " bytes is over protobuf's 2 GiB limit");
  }
  auto model = std::make_unique<OnnxModel>();
  if (!model->proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    ParseLocator locator(file_name);
    std::string located = locator.Locate(ox::ModelProto::default_instance(), bytes, 0, "ModelProto");
    if (located.empty()) {
      located = locator.Error(0, "ModelProto", "protobuf rejects the file (messages nested deeper than its limit?)");
    }
    return InvalidArgument(located);
  }
  return FinishRead(std::move(model), file_name);
}

StatusOr<std::unique_ptr<OnnxModel>> ReadOnnxModelFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open");
  auto model = std::make_unique<OnnxModel>();
  if (model->proto.ParseFromIstream(&in)) return FinishRead(std::move(model), path);
  // Protobuf refused it: the bytes again, for the error's location.
  std::ifstream again(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  return ReadOnnxModel(bytes, path);
}

ConstantPattern ReadConstantPattern(const ox::TensorProto& p) {
  ConstantPattern out;
  if (TensorDimsError(p) || IsExternal(p) || p.dims_size() < 2) return out;
  const pir::Shape shape(p.dims().begin(), p.dims().end());
  const int64_t count = *CheckedProduct(shape);
  if (count == 0 || count > kMaxPatternElements) return out;
  const int32_t type = p.data_type();
  ConstantBandReader reader(shape);
  auto finish = [&]() {
    out.splat = reader.Splat();
    out.band = reader.Band();
    return out;
  };
  if (p.has_raw_data()) {
    const int64_t width = ElementBytes(type);
    if (width == 0 || static_cast<int64_t>(p.raw_data().size()) != width * count) return out;
    // One element at a time, as DecodeRaw reads them: the values are never
    // copied, and a weight stops at its third distinct value.
    const char* data = p.raw_data().data();
    for (int64_t i = 0; i < count; ++i) {
      const char* q = data + i * width;
      uint64_t bits = 0;
      std::memcpy(&bits, q, static_cast<size_t>(width));
      double v;
      switch (type) {
        case kOnnxFloat: {
          float f;
          std::memcpy(&f, q, 4);
          v = f;
          break;
        }
        case kOnnxDouble: std::memcpy(&v, q, 8); break;
        case kOnnxFloat16: v = HalfToFloat(static_cast<uint16_t>(bits)); break;
        case kOnnxBfloat16: v = Bfloat16ToFloat(static_cast<uint16_t>(bits)); break;
        case kOnnxInt8: v = static_cast<int8_t>(bits); break;
        case kOnnxInt16: v = static_cast<int16_t>(bits); break;
        case kOnnxInt32: v = static_cast<int32_t>(bits); break;
        default: v = static_cast<double>(static_cast<int64_t>(bits)); break;  // unsigned, bool, int64
      }
      if (!reader.Add(v)) return out;
    }
    return finish();
  }
  const int n = static_cast<int>(count);
  if (type == kOnnxFloat && p.float_data_size() == n) {
    for (float v : p.float_data()) {
      if (!reader.Add(v)) return out;
    }
    return finish();
  }
  if (type == kOnnxDouble && p.double_data_size() == n) {
    for (double v : p.double_data()) {
      if (!reader.Add(v)) return out;
    }
    return finish();
  }
  if (type == kOnnxInt64 && p.int64_data_size() == n) {
    for (int64_t v : p.int64_data()) {
      if (!reader.Add(static_cast<double>(v))) return out;
    }
    return finish();
  }
  if ((type == kOnnxBool || type == kOnnxInt32) && p.int32_data_size() == n) {
    for (int32_t v : p.int32_data()) {
      if (!reader.Add(v)) return out;
    }
    return finish();
  }
  return out;
}

}  // namespace az::frontend::onnx
