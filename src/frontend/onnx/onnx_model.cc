// Reads a model with ONNX's generated classes (onnx_model.h): the parse,
// with a located error for a malformed file, the checks (onnx_check.h), and
// the copy into the importer's plain structs.
#include "frontend/onnx/onnx_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>

#include "frontend/onnx/onnx_check.h"
#include "support/checked_math.h"

namespace az::frontend::onnx {

namespace {

namespace ox = ::ONNX_NAMESPACE;
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

// Decodes `raw` (little-endian) into tensor.ints / tensor.floats.
bool DecodeRaw(std::string_view raw, OnnxTensor& t, int64_t count) {
  int64_t width = ElementBytes(t.data_type);
  if (width == 0 || static_cast<int64_t>(raw.size()) != width * count) return false;
  for (int64_t i = 0; i < count; ++i) {
    const char* p = raw.data() + i * width;
    uint64_t bits = 0;
    std::memcpy(&bits, p, static_cast<size_t>(width));
    switch (t.data_type) {
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

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string Indexed(const std::string& path, const char* field, int index) {
  return path + "." + field + "[" + std::to_string(index) + "]";
}

// ---- The parse: protobuf's parser, and where it stopped when it fails.

class ParseLocator {
 public:
  explicit ParseLocator(const std::string& file) : file_(file) {}

  // Where `bytes` stop being a `prototype` message: its fields are walked
  // with protobuf's own reader; a message field whose payload protobuf does
  // not parse is walked in turn. "" when no field is at fault.
  std::string Locate(const pb::Message& prototype, std::string_view bytes, size_t base, const std::string& path) {
    using Wire = pb::internal::WireFormatLite;
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
          std::string found = Locate(*inner, payload, base + start, field_path);
          return found.empty() ? Error(base + at, field_path, "not a valid " + inner->GetTypeName()) : found;
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

// ---- The copy into plain structs.

// Reads fields newer than ONNX 1.12's schema, which protobuf keeps as unknown
// fields, and copies the ones it knows.
class Copier {
 public:
  explicit Copier(const std::string& file) : file_(file) {}

  Status Model(const ox::ModelProto& p, OnnxModel* m) {
    m->ir_version = p.ir_version();
    m->producer_name = p.producer_name();
    m->producer_version = p.producer_version();
    for (const ox::OperatorSetIdProto& o : p.opset_import()) m->opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
    for (const ox::StringStringEntryProto& e : p.metadata_props()) m->metadata.emplace_back(e.key(), e.value());
    AZ_RETURN_IF_ERROR(Graph(p.graph(), "ModelProto.graph", &m->graph));
    for (int f = 0; f < p.functions_size(); ++f) {
      m->functions.emplace_back();
      AZ_RETURN_IF_ERROR(Function(p.functions(f), Indexed("ModelProto", "functions", f), &m->functions.back()));
    }
    return Status::Ok();
  }

 private:
  Status Error(const std::string& path, const std::string& message) const {
    return InvalidArgument(file_ + ": " + path + ": " + message);
  }

  // The length-delimited unknown fields numbered `number`, each parsed as a T.
  template <typename T, typename Message>
  Status Unknown(const Message& m, int number, const std::string& path, const char* name, std::vector<T>* out) {
    const pb::UnknownFieldSet& unknown = m.unknown_fields();
    for (int i = 0; i < unknown.field_count(); ++i) {
      const pb::UnknownField& f = unknown.field(i);
      if (f.number() != number || f.type() != pb::UnknownField::TYPE_LENGTH_DELIMITED) continue;
      T value;
      if (!value.ParseFromString(f.length_delimited()))
        return Error(Indexed(path, name, static_cast<int>(out->size())), "not a valid " + value.GetTypeName());
      out->push_back(std::move(value));
    }
    return Status::Ok();
  }

  // IR 10's metadata_props of nodes (field 9) and graphs (field 16).
  template <typename Message>
  Status Metadata(const Message& m, int number, const std::string& path, Entries* out) {
    std::vector<ox::StringStringEntryProto> entries;
    AZ_RETURN_IF_ERROR(Unknown(m, number, path, "metadata_props", &entries));
    for (const ox::StringStringEntryProto& e : entries) out->emplace_back(e.key(), e.value());
    return Status::Ok();
  }

  Status Tensor(const ox::TensorProto& p, const std::string& path, OnnxTensor* t) {
    t->name = p.name();
    t->data_type = p.data_type();
    if (p.dims_size() > static_cast<int>(kMaxOnnxRank)) return Error(path, "tensor '" + t->name + "' has over 64 dims");
    t->dims.assign(p.dims().begin(), p.dims().end());
    t->external = p.data_location() == ox::TensorProto::EXTERNAL || p.external_data_size() > 0;
    for (int64_t d : t->dims) {
      if (d < 0) return Error(path, "tensor '" + t->name + "' has a negative dim " + std::to_string(d));
    }
    auto count = t->NumElements();
    if (!count) return Error(path, "tensor '" + t->name + "' has too many elements");
    if (t->external || *count > kMaxFoldElements) return Status::Ok();
    // Small inline tensor: its values, for constant folding.
    if (p.has_raw_data()) {
      t->has_values = DecodeRaw(p.raw_data(), *t, *count);
      if (!t->has_values) {
        t->ints.clear();
        t->floats.clear();
      }
      return Status::Ok();
    }
    int n = static_cast<int>(*count);
    if (IsOnnxFloatType(t->data_type)) {
      if (t->data_type == kOnnxFloat && p.float_data_size() == n) {
        t->floats.assign(p.float_data().begin(), p.float_data().end());
      } else if (t->data_type == kOnnxDouble && p.double_data_size() == n) {
        t->floats.assign(p.double_data().begin(), p.double_data().end());
      } else if ((t->data_type == kOnnxFloat16 || t->data_type == kOnnxBfloat16) && p.int32_data_size() == n) {
        for (int32_t bits : p.int32_data()) {
          uint16_t h = static_cast<uint16_t>(bits);
          t->floats.push_back(t->data_type == kOnnxFloat16 ? HalfToFloat(h) : Bfloat16ToFloat(h));
        }
      } else {
        return Status::Ok();
      }
      t->has_values = true;
      return Status::Ok();
    }
    if (t->data_type == kOnnxString || p.int32_data_size() + p.int64_data_size() + p.uint64_data_size() != n) {
      return Status::Ok();
    }
    t->ints.assign(p.int32_data().begin(), p.int32_data().end());
    t->ints.insert(t->ints.end(), p.int64_data().begin(), p.int64_data().end());
    for (uint64_t v : p.uint64_data()) t->ints.push_back(static_cast<int64_t>(v));
    t->has_values = true;
    return Status::Ok();
  }

  Status ValueInfo(const ox::ValueInfoProto& p, const std::string& path, OnnxValueInfo* v) {
    v->name = p.name();
    if (!p.type().has_tensor_type()) return Status::Ok();  // sequence, map, optional, sparse
    const ox::TypeProto_Tensor& tensor = p.type().tensor_type();
    v->elem_type = tensor.elem_type();
    if (!tensor.has_shape()) return Status::Ok();
    v->has_shape = true;
    if (tensor.shape().dim_size() > static_cast<int>(kMaxOnnxRank)) return Error(path, "more than 64 dims");
    for (const ox::TensorShapeProto_Dimension& dim : tensor.shape().dim()) {
      OnnxDim d;
      if (dim.has_dim_value()) d.value = dim.dim_value();
      if (dim.has_dim_param()) d.param = dim.dim_param();
      v->dims.push_back(std::move(d));
    }
    return Status::Ok();
  }

  Status Attribute(const ox::AttributeProto& p, const std::string& path, OnnxAttribute* a) {
    a->name = p.name();
    a->type = static_cast<OnnxAttrType>(p.type() >= 0 && p.type() <= 14 ? p.type() : 0);
    a->f = p.f();
    a->i = p.i();
    a->s = p.s();
    if (p.has_t()) {
      a->t.emplace();
      AZ_RETURN_IF_ERROR(Tensor(p.t(), path + ".t", &*a->t));
    }
    a->floats.assign(p.floats().begin(), p.floats().end());
    a->ints.assign(p.ints().begin(), p.ints().end());
    a->strings.assign(p.strings().begin(), p.strings().end());
    a->num_graphs = (p.has_g() ? 1 : 0) + p.graphs_size();
    a->ref_attr_name = p.ref_attr_name();
    return Status::Ok();
  }

  Status Node(const ox::NodeProto& p, const std::string& path, OnnxNode* n) {
    n->inputs.assign(p.input().begin(), p.input().end());
    n->outputs.assign(p.output().begin(), p.output().end());
    n->name = p.name();
    n->op_type = p.op_type();
    n->domain = p.domain();
    for (int i = 0; i < p.attribute_size(); ++i) {
      n->attributes.emplace_back();
      AZ_RETURN_IF_ERROR(Attribute(p.attribute(i), Indexed(path, "attribute", i), &n->attributes.back()));
    }
    return Metadata(p, 9, path, &n->metadata);
  }

  Status Graph(const ox::GraphProto& p, const std::string& path, OnnxGraph* g) {
    g->name = p.name();
    for (int i = 0; i < p.node_size(); ++i) {
      g->nodes.emplace_back();
      AZ_RETURN_IF_ERROR(Node(p.node(i), Indexed(path, "node", i), &g->nodes.back()));
    }
    for (int i = 0; i < p.initializer_size(); ++i) {
      g->initializers.emplace_back();
      AZ_RETURN_IF_ERROR(Tensor(p.initializer(i), Indexed(path, "initializer", i), &g->initializers.back()));
    }
    // Sparse initializers: only their dims and element type matter.
    for (const ox::SparseTensorProto& s : p.sparse_initializer()) {
      OnnxTensor t;
      t.name = s.values().name();
      t.data_type = s.values().data_type();
      t.dims.assign(s.dims().begin(), s.dims().end());
      t.external = true;  // values not kept
      g->initializers.push_back(std::move(t));
    }
    const std::pair<const pb::RepeatedPtrField<ox::ValueInfoProto>*, std::vector<OnnxValueInfo>*> lists[] = {
        {&p.input(), &g->inputs}, {&p.output(), &g->outputs}, {&p.value_info(), &g->value_info}};
    const char* names[] = {"input", "output", "value_info"};
    for (int l = 0; l < 3; ++l) {
      for (int i = 0; i < lists[l].first->size(); ++i) {
        lists[l].second->emplace_back();
        AZ_RETURN_IF_ERROR(ValueInfo(lists[l].first->Get(i), Indexed(path, names[l], i), &lists[l].second->back()));
      }
    }
    return Metadata(p, 16, path, &g->metadata);
  }

  Status Function(const ox::FunctionProto& p, const std::string& path, OnnxFunction* fn) {
    fn->name = p.name();
    fn->domain = p.domain();
    fn->inputs.assign(p.input().begin(), p.input().end());
    fn->outputs.assign(p.output().begin(), p.output().end());
    fn->attributes.assign(p.attribute().begin(), p.attribute().end());
    for (int i = 0; i < p.node_size(); ++i) {
      fn->nodes.emplace_back();
      AZ_RETURN_IF_ERROR(Node(p.node(i), Indexed(path, "node", i), &fn->nodes.back()));
    }
    // IR 9's attribute_proto (field 11): attributes with their defaults.
    std::vector<ox::AttributeProto> defaults;
    AZ_RETURN_IF_ERROR(Unknown(p, 11, path, "attribute_proto", &defaults));
    for (size_t i = 0; i < defaults.size(); ++i) {
      fn->attribute_defaults.emplace_back();
      AZ_RETURN_IF_ERROR(Attribute(defaults[i], Indexed(path, "attribute_proto", static_cast<int>(i)),
                                   &fn->attribute_defaults.back()));
    }
    return Status::Ok();
  }

  const std::string& file_;
};

std::string_view FindEntry(const std::vector<std::pair<std::string, std::string>>& entries, std::string_view key) {
  for (const auto& [k, v] : entries) {
    if (k == key) return v;
  }
  return {};
}

}  // namespace

bool IsOnnxFloatType(int32_t t) {
  return t == kOnnxFloat || t == kOnnxFloat16 || t == kOnnxDouble || t == kOnnxBfloat16 ||
         (t >= kOnnxFloat8E4M3FN && t <= kOnnxFloat8E5M2FNUZ);
}

std::optional<int64_t> OnnxTensor::NumElements() const {
  return CheckedProduct(dims);
}

const OnnxAttribute* OnnxNode::FindAttribute(std::string_view attr_name) const {
  for (const OnnxAttribute& a : attributes) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

std::string_view OnnxNode::Metadata(std::string_view key) const { return FindEntry(metadata, key); }

int64_t OnnxModel::StandardOpset() const {
  auto it = opsets.find("");
  return it == opsets.end() ? 1 : it->second;
}

std::string_view OnnxModel::Metadata(std::string_view key) const { return FindEntry(metadata, key); }

StatusOr<OnnxModel> ReadOnnxModel(std::string_view bytes, const std::string& file_name) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return ResourceExhausted(file_name + ": " + std::to_string(bytes.size()) + " bytes is over protobuf's 2 GiB limit");
  }
  ox::ModelProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    ParseLocator locator(file_name);
    std::string located = locator.Locate(ox::ModelProto::default_instance(), bytes, 0, "ModelProto");
    if (located.empty()) {
      located = locator.Error(0, "ModelProto", "protobuf rejects the file (messages nested deeper than its limit?)");
    }
    return InvalidArgument(located);
  }
  if (!proto.has_graph()) return InvalidArgument(file_name + ": the model has no graph (field 7); is this an ONNX file?");
  AZ_ASSIGN_OR_RETURN(OnnxChecks checks, CheckOnnxModel(proto, file_name));
  OnnxModel model;
  AZ_RETURN_IF_ERROR(Copier(file_name).Model(proto, &model));
  model.checks = checks.Summary();
  return model;
}

}  // namespace az::frontend::onnx
