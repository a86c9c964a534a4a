#include "frontend/onnx/onnx_model.h"

#include <cmath>
#include <cstring>

#include "frontend/onnx/protobuf_wire.h"
#include "support/checked_math.h"

namespace az::frontend::onnx {

namespace {

// Repeated fields hold at most one value per byte of input, so this limit only
// guards the arithmetic; real bounds come from the bytes present.
constexpr size_t kNoLimit = size_t{1} << 40;

std::string Indexed(const std::string& path, const char* field, size_t index) {
  return path + "." + field + "[" + std::to_string(index) + "]";
}

#define AZ_NEXT_FIELD(message, field)                        \
  WireField field;                                           \
  while (true) {                                             \
    AZ_ASSIGN_OR_RETURN(bool more_, (message).Next(&field)); \
    if (!more_) break;

#define AZ_END_FIELDS }

StatusOr<std::string> String(const WireMessage& m, const WireField& f) {
  AZ_ASSIGN_OR_RETURN(std::string_view bytes, m.Bytes(f));
  return std::string(bytes);
}

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

Status ParseStringEntry(WireMessage m, std::pair<std::string, std::string>* entry) {
  AZ_NEXT_FIELD(m, f)
  if (f.number == 1) {
    AZ_ASSIGN_OR_RETURN(entry->first, String(m, f));
  } else if (f.number == 2) {
    AZ_ASSIGN_OR_RETURN(entry->second, String(m, f));
  }
  AZ_END_FIELDS
  return Status::Ok();
}

Status ParseTensor(WireMessage m, OnnxTensor* t) {
  std::string_view raw;
  bool has_raw = false;
  std::vector<WireField> value_fields;  // int32_data 5, int64_data 7, float_data 4, double_data 10, uint64_data 11
  AZ_NEXT_FIELD(m, f)
  switch (f.number) {
    case 1:
      AZ_RETURN_IF_ERROR(m.AppendVarints(f, &t->dims, kMaxOnnxRank));
      break;
    case 2: {
      AZ_ASSIGN_OR_RETURN(int64_t type, m.Int(f));
      t->data_type = static_cast<int32_t>(type);
      break;
    }
    case 4:
    case 5:
    case 7:
    case 10:
    case 11:
      value_fields.push_back(f);
      break;
    case 8: {
      AZ_ASSIGN_OR_RETURN(t->name, String(m, f));
      break;
    }
    case 9: {
      AZ_ASSIGN_OR_RETURN(raw, m.Bytes(f));
      has_raw = true;
      break;
    }
    case 13:
      t->external = true;
      break;
    case 14: {
      AZ_ASSIGN_OR_RETURN(int64_t location, m.Int(f));
      if (location == 1) t->external = true;
      break;
    }
    default:
      break;
  }
  AZ_END_FIELDS
  for (int64_t d : t->dims) {
    if (d < 0) return m.Error(m.base(), "tensor '" + t->name + "' has a negative dim " + std::to_string(d));
  }
  auto count = t->NumElements();
  if (!count) return m.Error(m.base(), "tensor '" + t->name + "' has too many elements");
  if (t->external || *count > kMaxFoldElements) return Status::Ok();
  // Small inline tensor: decode its values for constant folding.
  if (has_raw) {
    t->has_values = DecodeRaw(raw, *t, *count);
    if (!t->has_values) {
      t->ints.clear();
      t->floats.clear();
    }
    return Status::Ok();
  }
  size_t limit = static_cast<size_t>(*count);
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<double> doubles;
  for (const WireField& f : value_fields) {
    if (f.number == 4) {
      AZ_RETURN_IF_ERROR(m.AppendFloats(f, &floats, limit));
    } else if (f.number == 10) {
      AZ_RETURN_IF_ERROR(m.AppendDoubles(f, &doubles, limit));
    } else {
      AZ_RETURN_IF_ERROR(m.AppendVarints(f, &ints, limit));
    }
  }
  if (IsOnnxFloatType(t->data_type)) {
    if (t->data_type == kOnnxFloat && floats.size() == limit) {
      t->floats.assign(floats.begin(), floats.end());
    } else if (t->data_type == kOnnxDouble && doubles.size() == limit) {
      t->floats = std::move(doubles);
    } else if ((t->data_type == kOnnxFloat16 || t->data_type == kOnnxBfloat16) && ints.size() == limit) {
      for (int64_t bits : ints) {
        uint16_t h = static_cast<uint16_t>(bits);
        t->floats.push_back(t->data_type == kOnnxFloat16 ? HalfToFloat(h) : Bfloat16ToFloat(h));
      }
    } else {
      return Status::Ok();
    }
    t->has_values = true;
    return Status::Ok();
  }
  if (ints.size() == limit && t->data_type != kOnnxString) {
    t->ints = std::move(ints);
    t->has_values = true;
  }
  return Status::Ok();
}

Status ParseValueInfo(WireMessage m, OnnxValueInfo* v) {
  AZ_NEXT_FIELD(m, f)
  if (f.number == 1) {
    AZ_ASSIGN_OR_RETURN(v->name, String(m, f));
  } else if (f.number == 2) {
    AZ_ASSIGN_OR_RETURN(WireMessage type, m.Nested(f, m.path() + ".type"));
    AZ_NEXT_FIELD(type, tf)
    if (tf.number != 1) continue;  // sequence, map, optional, sparse: not tensors
    AZ_ASSIGN_OR_RETURN(WireMessage tensor, type.Nested(tf, type.path() + ".tensor_type"));
    AZ_NEXT_FIELD(tensor, ttf)
    if (ttf.number == 1) {
      AZ_ASSIGN_OR_RETURN(int64_t elem, tensor.Int(ttf));
      v->elem_type = static_cast<int32_t>(elem);
    } else if (ttf.number == 2) {
      v->has_shape = true;
      AZ_ASSIGN_OR_RETURN(WireMessage shape, tensor.Nested(ttf, tensor.path() + ".shape"));
      AZ_NEXT_FIELD(shape, sf)
      if (sf.number != 1) continue;
      if (v->dims.size() >= kMaxOnnxRank) return shape.Error(sf.offset, "more than 64 dims");
      AZ_ASSIGN_OR_RETURN(WireMessage dim, shape.Nested(sf, Indexed(shape.path(), "dim", v->dims.size())));
      OnnxDim d;
      AZ_NEXT_FIELD(dim, df)
      if (df.number == 1) {
        AZ_ASSIGN_OR_RETURN(int64_t value, dim.Int(df));
        d.value = value;
      } else if (df.number == 2) {
        AZ_ASSIGN_OR_RETURN(d.param, String(dim, df));
      }
      AZ_END_FIELDS
      v->dims.push_back(std::move(d));
      AZ_END_FIELDS
    }
    AZ_END_FIELDS
    AZ_END_FIELDS
  }
  AZ_END_FIELDS
  return Status::Ok();
}

Status ParseAttribute(WireMessage m, OnnxAttribute* a) {
  AZ_NEXT_FIELD(m, f)
  switch (f.number) {
    case 1: {
      AZ_ASSIGN_OR_RETURN(a->name, String(m, f));
      break;
    }
    case 2: {
      AZ_ASSIGN_OR_RETURN(a->f, m.Float(f));
      break;
    }
    case 3: {
      AZ_ASSIGN_OR_RETURN(a->i, m.Int(f));
      break;
    }
    case 4: {
      AZ_ASSIGN_OR_RETURN(a->s, String(m, f));
      break;
    }
    case 5: {
      AZ_ASSIGN_OR_RETURN(WireMessage t, m.Nested(f, m.path() + ".t"));
      a->t.emplace();
      AZ_RETURN_IF_ERROR(ParseTensor(std::move(t), &*a->t));
      break;
    }
    case 6:
    case 11:
      ++a->num_graphs;
      break;
    case 7:
      AZ_RETURN_IF_ERROR(m.AppendFloats(f, &a->floats, kNoLimit));
      break;
    case 8:
      AZ_RETURN_IF_ERROR(m.AppendVarints(f, &a->ints, kNoLimit));
      break;
    case 9: {
      AZ_ASSIGN_OR_RETURN(std::string s, String(m, f));
      a->strings.push_back(std::move(s));
      break;
    }
    case 20: {
      AZ_ASSIGN_OR_RETURN(int64_t type, m.Int(f));
      a->type = static_cast<OnnxAttrType>(type >= 0 && type <= 14 ? type : 0);
      break;
    }
    case 21: {
      AZ_ASSIGN_OR_RETURN(a->ref_attr_name, String(m, f));
      break;
    }
    default:
      break;
  }
  AZ_END_FIELDS
  return Status::Ok();
}

Status ParseNode(WireMessage m, OnnxNode* n) {
  AZ_NEXT_FIELD(m, f)
  switch (f.number) {
    case 1: {
      AZ_ASSIGN_OR_RETURN(std::string s, String(m, f));
      n->inputs.push_back(std::move(s));
      break;
    }
    case 2: {
      AZ_ASSIGN_OR_RETURN(std::string s, String(m, f));
      n->outputs.push_back(std::move(s));
      break;
    }
    case 3: {
      AZ_ASSIGN_OR_RETURN(n->name, String(m, f));
      break;
    }
    case 4: {
      AZ_ASSIGN_OR_RETURN(n->op_type, String(m, f));
      break;
    }
    case 5: {
      AZ_ASSIGN_OR_RETURN(WireMessage am, m.Nested(f, Indexed(m.path(), "attribute", n->attributes.size())));
      OnnxAttribute a;
      AZ_RETURN_IF_ERROR(ParseAttribute(std::move(am), &a));
      n->attributes.push_back(std::move(a));
      break;
    }
    case 7: {
      AZ_ASSIGN_OR_RETURN(n->domain, String(m, f));
      break;
    }
    case 9: {
      AZ_ASSIGN_OR_RETURN(WireMessage em, m.Nested(f, Indexed(m.path(), "metadata_props", n->metadata.size())));
      std::pair<std::string, std::string> entry;
      AZ_RETURN_IF_ERROR(ParseStringEntry(std::move(em), &entry));
      n->metadata.push_back(std::move(entry));
      break;
    }
    default:
      break;
  }
  AZ_END_FIELDS
  return Status::Ok();
}

Status ParseGraph(WireMessage m, OnnxGraph* g) {
  AZ_NEXT_FIELD(m, f)
  switch (f.number) {
    case 1: {
      AZ_ASSIGN_OR_RETURN(WireMessage nm, m.Nested(f, Indexed(m.path(), "node", g->nodes.size())));
      OnnxNode node;
      node.offset = f.offset;
      AZ_RETURN_IF_ERROR(ParseNode(std::move(nm), &node));
      g->nodes.push_back(std::move(node));
      break;
    }
    case 2: {
      AZ_ASSIGN_OR_RETURN(g->name, String(m, f));
      break;
    }
    case 5: {
      AZ_ASSIGN_OR_RETURN(WireMessage tm, m.Nested(f, Indexed(m.path(), "initializer", g->initializers.size())));
      OnnxTensor t;
      AZ_RETURN_IF_ERROR(ParseTensor(std::move(tm), &t));
      t.offset = f.offset;
      g->initializers.push_back(std::move(t));
      break;
    }
    case 11:
    case 12:
    case 13: {
      std::vector<OnnxValueInfo>& list = f.number == 11 ? g->inputs : f.number == 12 ? g->outputs : g->value_info;
      const char* field_name = f.number == 11 ? "input" : f.number == 12 ? "output" : "value_info";
      AZ_ASSIGN_OR_RETURN(WireMessage vm, m.Nested(f, Indexed(m.path(), field_name, list.size())));
      OnnxValueInfo v;
      AZ_RETURN_IF_ERROR(ParseValueInfo(std::move(vm), &v));
      list.push_back(std::move(v));
      break;
    }
    case 15: {
      // SparseTensorProto: values 1 (TensorProto), dims 3. Only dims and type matter.
      AZ_ASSIGN_OR_RETURN(WireMessage sm, m.Nested(f, Indexed(m.path(), "sparse_initializer", g->initializers.size())));
      OnnxTensor t;
      t.offset = f.offset;
      std::vector<int64_t> dims;
      AZ_NEXT_FIELD(sm, sf)
      if (sf.number == 1) {
        AZ_ASSIGN_OR_RETURN(WireMessage vm, sm.Nested(sf, sm.path() + ".values"));
        OnnxTensor values;
        AZ_RETURN_IF_ERROR(ParseTensor(std::move(vm), &values));
        t.name = values.name;
        t.data_type = values.data_type;
      } else if (sf.number == 3) {
        AZ_RETURN_IF_ERROR(sm.AppendVarints(sf, &dims, kMaxOnnxRank));
      }
      AZ_END_FIELDS
      t.dims = std::move(dims);
      t.external = true;  // values not kept
      g->initializers.push_back(std::move(t));
      break;
    }
    case 16: {
      AZ_ASSIGN_OR_RETURN(WireMessage em, m.Nested(f, Indexed(m.path(), "metadata_props", g->metadata.size())));
      std::pair<std::string, std::string> entry;
      AZ_RETURN_IF_ERROR(ParseStringEntry(std::move(em), &entry));
      g->metadata.push_back(std::move(entry));
      break;
    }
    default:
      break;
  }
  AZ_END_FIELDS
  return Status::Ok();
}

Status ParseOpset(WireMessage m, std::map<std::string, int64_t>* opsets) {
  std::string domain;
  int64_t version = 0;
  AZ_NEXT_FIELD(m, f)
  if (f.number == 1) {
    AZ_ASSIGN_OR_RETURN(domain, String(m, f));
  } else if (f.number == 2) {
    AZ_ASSIGN_OR_RETURN(version, m.Int(f));
  }
  AZ_END_FIELDS
  if (domain == "ai.onnx") domain.clear();
  (*opsets)[domain] = version;
  return Status::Ok();
}

Status ParseFunction(WireMessage m, OnnxFunction* fn) {
  AZ_NEXT_FIELD(m, f)
  switch (f.number) {
    case 1: {
      AZ_ASSIGN_OR_RETURN(fn->name, String(m, f));
      break;
    }
    case 4:
    case 5:
    case 6: {
      AZ_ASSIGN_OR_RETURN(std::string s, String(m, f));
      (f.number == 4 ? fn->inputs : f.number == 5 ? fn->outputs : fn->attributes).push_back(std::move(s));
      break;
    }
    case 7: {
      AZ_ASSIGN_OR_RETURN(WireMessage nm, m.Nested(f, Indexed(m.path(), "node", fn->nodes.size())));
      OnnxNode node;
      node.offset = f.offset;
      AZ_RETURN_IF_ERROR(ParseNode(std::move(nm), &node));
      fn->nodes.push_back(std::move(node));
      break;
    }
    case 10: {
      AZ_ASSIGN_OR_RETURN(fn->domain, String(m, f));
      break;
    }
    case 11: {
      AZ_ASSIGN_OR_RETURN(WireMessage am,
                          m.Nested(f, Indexed(m.path(), "attribute_proto", fn->attribute_defaults.size())));
      OnnxAttribute a;
      AZ_RETURN_IF_ERROR(ParseAttribute(std::move(am), &a));
      fn->attribute_defaults.push_back(std::move(a));
      break;
    }
    default:
      break;
  }
  AZ_END_FIELDS
  return Status::Ok();
}

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

StatusOr<OnnxModel> ParseOnnxModel(std::string_view bytes, std::string_view file_name) {
  OnnxModel model;
  WireMessage m(file_name, bytes, "ModelProto");
  bool has_graph = false;
  AZ_NEXT_FIELD(m, f)
  switch (f.number) {
    case 1: {
      AZ_ASSIGN_OR_RETURN(model.ir_version, m.Int(f));
      break;
    }
    case 2: {
      AZ_ASSIGN_OR_RETURN(model.producer_name, String(m, f));
      break;
    }
    case 3: {
      AZ_ASSIGN_OR_RETURN(model.producer_version, String(m, f));
      break;
    }
    case 7: {
      AZ_ASSIGN_OR_RETURN(WireMessage gm, m.Nested(f, "GraphProto"));
      AZ_RETURN_IF_ERROR(ParseGraph(std::move(gm), &model.graph));
      has_graph = true;
      break;
    }
    case 8: {
      AZ_ASSIGN_OR_RETURN(WireMessage om, m.Nested(f, Indexed(m.path(), "opset_import", model.opsets.size())));
      AZ_RETURN_IF_ERROR(ParseOpset(std::move(om), &model.opsets));
      break;
    }
    case 14: {
      AZ_ASSIGN_OR_RETURN(WireMessage em, m.Nested(f, Indexed(m.path(), "metadata_props", model.metadata.size())));
      std::pair<std::string, std::string> entry;
      AZ_RETURN_IF_ERROR(ParseStringEntry(std::move(em), &entry));
      model.metadata.push_back(std::move(entry));
      break;
    }
    case 25: {
      AZ_ASSIGN_OR_RETURN(WireMessage fm, m.Nested(f, Indexed(m.path(), "functions", model.functions.size())));
      OnnxFunction fn;
      AZ_RETURN_IF_ERROR(ParseFunction(std::move(fm), &fn));
      model.functions.push_back(std::move(fn));
      break;
    }
    default:
      break;
  }
  AZ_END_FIELDS
  if (!has_graph) return m.Error(bytes.size(), "the model has no graph (field 7); is this an ONNX file?");
  return model;
}

}  // namespace az::frontend::onnx
