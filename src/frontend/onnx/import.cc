// The ONNX importer's driver (import.h): leaves, names, function inlining,
// outputs. The per-op converters are in import_ops.cc.
#include "frontend/onnx/import.h"

#include <algorithm>
#include <filesystem>

#include "frontend/onnx/importer.h"
#include "frontend/onnx/onnx_check.h"
#include "pir/rules/rule.h"

namespace az::frontend {

namespace onnx {

namespace {

// A minimal JSON reader for the `aoizora.parameters` metadata: a list whose
// elements are parameter names, or lists whose first element is the name
// ([["blocks.0.q.weight", [5120, 5120], "bf16"], ...], what
// python/aoizora_torch/export.py writes). Other values are skipped; nesting is
// bounded.
class JsonNames {
 public:
  explicit JsonNames(std::string_view text) : text_(text) {}

  std::optional<std::vector<std::string>> Parse() {
    std::vector<std::string> names;
    Skip();
    if (!Eat('[')) return std::nullopt;
    Skip();
    if (Eat(']')) return names;
    while (true) {
      Skip();
      if (Peek() == '"') {
        auto s = String();
        if (!s) return std::nullopt;
        names.push_back(*s);
      } else if (Peek() == '[') {
        size_t list_start = pos_++;
        Skip();
        if (Peek() == '"') {
          auto s = String();
          if (!s) return std::nullopt;
          names.push_back(*s);
        }
        pos_ = list_start;  // then skip the whole entry
        if (!Value(0)) return std::nullopt;
      } else if (!Value(0)) {
        return std::nullopt;
      }
      Skip();
      if (Eat(',')) continue;
      if (Eat(']')) return names;
      return std::nullopt;
    }
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void Skip() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  std::optional<std::string> String() {
    if (!Eat('"')) return std::nullopt;
    std::string s;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      s += text_[pos_++];
    }
    if (!Eat('"')) return std::nullopt;
    return s;
  }
  // Skips one value.
  bool Value(int depth) {
    if (depth > 64) return false;
    Skip();
    char c = Peek();
    if (c == '"') return String().has_value();
    if (c == '[' || c == '{') {
      char close = c == '[' ? ']' : '}';
      ++pos_;
      Skip();
      if (Eat(close)) return true;
      while (true) {
        if (c == '{') {
          Skip();
          if (!String()) return false;
          Skip();
          if (!Eat(':')) return false;
        }
        if (!Value(depth + 1)) return false;
        Skip();
        if (Eat(',')) continue;
        return Eat(close);
      }
    }
    size_t start = pos_;
    while (pos_ < text_.size() && std::string_view(",]} \n\t\r").find(text_[pos_]) == std::string_view::npos) ++pos_;
    return pos_ > start;  // a number, true, false or null
  }

  std::string_view text_;
  size_t pos_ = 0;
};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A name the exporter generated rather than a module path: the legacy
// exporter's "onnx::MatMul_123", the dynamo exporter's "val_72" (its optimizer
// folds Transpose(W) into a new initializer so named).
bool IsGeneratedName(std::string_view name) {
  if (name.rfind("onnx::", 0) == 0) return true;
  if (name.rfind("val_", 0) != 0 || name.size() == 4) return false;
  return std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The naming rule for weights passed as graph inputs (import.h).
bool LooksLikeParameterName(std::string_view name) {
  if (IsGeneratedName(name)) return true;
  size_t dot = name.rfind('.');
  std::string_view atom = dot == std::string_view::npos ? name : name.substr(dot + 1);
  static const char* kAtoms[] = {"weight", "bias", "scale", "gamma", "beta", "embedding"};
  for (const char* a : kAtoms) {
    if (atom == a) return dot != std::string_view::npos || atom == "weight";
  }
  return EndsWith(atom, "_weight") || EndsWith(atom, "_bias");
}

}  // namespace

Importer::Importer(const OnnxModel& model, std::string file, const ImportOptions& options)
    : model_(model), file_(std::move(file)), options_(options) {}

Status Importer::Error(const NodeContext& ctx, const std::string& message) const {
  return InvalidArgument(ctx.where + ": error: " + message);
}

void Importer::Warn(const NodeContext& ctx, const std::string& message) {
  program_.warnings.push_back(ctx.where + ": warning: " + message);
}

bool Importer::HasInput(const NodeContext& ctx, size_t i) const {
  return i < NumInputs(*ctx.node) && !InputName(*ctx.node, i).empty();
}

StatusOr<Slot*> Importer::Input(const NodeContext& ctx, size_t i) {
  if (!HasInput(ctx, i)) return Error(ctx, "input " + std::to_string(i) + " is missing");
  auto it = values_.find(InputName(*ctx.node, i));
  if (it == values_.end()) {
    return Error(ctx, "input " + std::to_string(i) + " '" + InputName(*ctx.node, i) +
                          "' is not defined by an earlier node, an input or an initializer");
  }
  return &it->second;
}

std::string Importer::UniqueLeafName(const std::string& wanted) {
  std::string name = wanted;
  for (int n = 1; used_leaf_names_.count(name); ++n) name = wanted + "_" + std::to_string(n);
  used_leaf_names_.insert(name);
  return name;
}

std::string Importer::ParameterName(const NodeContext& ctx, const Slot& slot) {
  if (!IsGeneratedName(slot.leaf_name) || ctx.scope.empty()) return slot.leaf_name;
  size_t index = 0;
  for (; index < NumInputs(*ctx.node); ++index) {
    if (InputName(*ctx.node, index) == slot.leaf_name) break;
  }
  const std::string& op = ctx.node->op_type();
  std::string suffix = ".param";
  if ((op == "MatMul" || op == "Gemm" || op == "Conv" || op == "Einsum" || op == "LayerNormalization" || op == "Mul") &&
      index <= 1) {
    suffix = ".weight";
  } else if ((op == "Gemm" || op == "Conv" || op == "LayerNormalization") && index == 2) {
    suffix = ".bias";
  } else if (op == "Add" || op == "Sub") {
    suffix = ".bias";
  }
  return UniqueLeafName(ctx.scope + suffix);
}

StatusOr<pir::ValueId> Importer::Materialize(const NodeContext& ctx, Slot& slot) {
  if (slot.id >= 0) return slot.id;
  pir::Graph& g = program_.graph;
  SourceLocation loc = SourceLocation::Text(file_, ctx.index + 1, 1);
  if (slot.pending_leaf) {
    bool param = slot.leaf_role == pir::ValueRole::kParameter;
    std::string name = param ? ParameterName(ctx, slot) : slot.leaf_name;
    slot.id = g.AddLeaf(slot.leaf_role, name, slot.type, loc);
    slot.pending_leaf = false;
    if (param) parameter_order_.push_back({slot.leaf_name, slot.id});
    if (!param) RecordConstantValues(slot.id, slot);
    return slot.id;
  }
  if (!slot.data) return InternalError("ONNX value with neither a PIR value nor data");
  // A folded constant used by a real op: a constant leaf named after the node.
  std::string name = UniqueLeafName((ctx.scope.empty() ? std::string("const") : ctx.scope + ".const"));
  slot.id = g.AddLeaf(pir::ValueRole::kConstant, name, slot.type, loc);
  RecordConstantValues(slot.id, slot);
  return slot.id;
}

void Importer::RecordConstantValues(pir::ValueId leaf, const Slot& slot) {
  if (slot.splat) {
    program_.splats[leaf] = *slot.splat;
    return;
  }
  if (slot.band) {
    program_.bands[leaf] = *slot.band;
    return;
  }
  if (!slot.data || slot.data->size() == 0) return;
  const TensorData& data = *slot.data;
  bool splat = true;
  for (size_t i = 1; i < data.size() && splat; ++i) splat = data.AsDouble(i) == data.AsDouble(0);
  if (splat) {
    program_.splats[leaf] = data.AsDouble(0);
    return;
  }
  std::vector<double> values(data.size());
  for (size_t i = 0; i < data.size(); ++i) values[i] = data.AsDouble(i);
  if (auto band = ConstantBandOf(values, slot.type.shape)) program_.bands[leaf] = *band;
}

StatusOr<pir::ValueId> Importer::InputValue(const NodeContext& ctx, size_t i) {
  AZ_ASSIGN_OR_RETURN(Slot * slot, Input(ctx, i));
  return Materialize(ctx, *slot);
}

pir::ValueId Importer::ScalarConstant(const NodeContext& ctx, pir::DType dtype, double value) {
  std::string name = UniqueLeafName((ctx.scope.empty() ? std::string("const") : ctx.scope + ".const"));
  pir::ValueId leaf = program_.graph.AddLeaf(pir::ValueRole::kConstant, name, {dtype, {}},
                                             SourceLocation::Text(file_, ctx.index + 1, 1));
  program_.splats[leaf] = value;  // PIR keeps no constant values: the fold reads it here
  return leaf;
}

pir::ValueId Importer::IndexConstant(const NodeContext& ctx, const pir::TensorType& type, const std::string& suffix) {
  std::string name = UniqueLeafName((ctx.scope.empty() ? std::string("const") : ctx.scope + ".const") + suffix);
  return program_.graph.AddLeaf(pir::ValueRole::kConstant, name, type, SourceLocation::Text(file_, ctx.index + 1, 1));
}

StatusOr<pir::ValueId> Importer::Emit(const NodeContext& ctx, pir::OpKind kind, std::vector<pir::ValueId> operands,
                                      pir::Attributes attrs, std::vector<pir::TensorType> declared,
                                      const std::string& suffix) {
  if (++ops_emitted_ > options_.max_ops) {
    return ResourceExhausted(ctx.where + ": error: more than " + std::to_string(options_.max_ops) + " ops");
  }
  pir::Graph& g = program_.graph;
  std::vector<pir::TensorType> types;
  for (pir::ValueId v : operands) types.push_back(g.type(v));
  auto inferred = pir::InferResultTypes(kind, types, attrs, declared);
  if (!inferred.ok()) {
    return Error(ctx,
                 "cannot import as PIR " + std::string(pir::OpKindName(kind)) + ": " + inferred.status().message());
  }
  for (const pir::TensorType& t : *inferred) {
    auto n = CheckedNumElements(t.shape);
    if (t.rank() > 64 || !n || *n > (int64_t{1} << 50)) {
      return Error(ctx, "result " + t.ToString() + " is larger than PIR allows");
    }
  }
  pir::OpId op = g.AddOp(kind, ctx.op_name + suffix, std::move(operands), *inferred, std::move(attrs),
                         SourceLocation::Text(file_, ctx.index + 1, 1));
  return g.op(op).results[0];
}

Status Importer::DefineSlot(const NodeContext& ctx, size_t i, Slot slot) {
  if (i >= NumOutputs(*ctx.node) || OutputName(*ctx.node, i).empty()) return Status::Ok();
  auto [it, inserted] = values_.emplace(OutputName(*ctx.node, i), std::move(slot));
  if (!inserted) return Error(ctx, "value '" + OutputName(*ctx.node, i) + "' is defined twice");
  return Status::Ok();
}

Status Importer::DefineValue(const NodeContext& ctx, size_t i, pir::ValueId value) {
  Slot slot;
  slot.id = value;
  slot.type = program_.graph.type(value);
  return DefineSlot(ctx, i, std::move(slot));
}

Status Importer::DefineConstant(const NodeContext& ctx, size_t i, pir::TensorType type, TensorData data) {
  Slot slot;
  slot.type = std::move(type);
  slot.data = std::move(data);
  return DefineSlot(ctx, i, std::move(slot));
}

std::optional<pir::TensorType> Importer::DeclaredType(const std::string& name) const {
  auto it = declared_.find(name);
  if (it == declared_.end() || !it->second->type().tensor_type().has_shape()) return std::nullopt;
  const ox::TypeProto_Tensor& tensor = it->second->type().tensor_type();
  auto dtype = PirDType(tensor.elem_type());
  if (!dtype) return std::nullopt;
  pir::TensorType t{*dtype, {}};
  for (const ox::TensorShapeProto_Dimension& d : tensor.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      t.shape.push_back(d.dim_value());
      continue;
    }
    auto bound = options_.dims.find(d.dim_param());
    if (d.dim_param().empty() || bound == options_.dims.end()) return std::nullopt;
    t.shape.push_back(bound->second);
  }
  return t;
}

Status Importer::EmitCustom(const NodeContext& ctx, const std::string& why, int64_t flops,
                            std::vector<pir::TensorType> result_types) {
  const ox::NodeProto& node = *ctx.node;
  std::vector<pir::ValueId> operands;
  for (size_t i = 0; i < NumInputs(node); ++i) {
    if (!HasInput(ctx, i)) continue;
    AZ_ASSIGN_OR_RETURN(pir::ValueId v, InputValue(ctx, i));
    operands.push_back(v);
  }
  std::string assumed;
  if (result_types.empty()) {
    for (const std::string& out : node.output()) {
      if (auto t = DeclaredType(out)) {
        result_types.push_back(*t);
      } else if (!operands.empty()) {
        result_types.push_back(program_.graph.type(operands[0]));
        assumed = "; result type unknown, assumed equal to the first input's";
      } else {
        return Error(ctx, "unsupported op '" + node.op_type() + "' with no inputs and no declared result type");
      }
    }
  }
  if (result_types.empty()) return Status::Ok();
  std::string target =
      "onnx." + (node.domain().empty() || node.domain() == "ai.onnx" ? "" : node.domain() + ".") + node.op_type();
  Warn(ctx, why + ": imported as custom '" + target + "'" + assumed);
  pir::Attributes attrs;
  attrs.Set("target", target);
  if (flops > 0) attrs.Set("flops", flops);
  AZ_ASSIGN_OR_RETURN(pir::ValueId first, Emit(ctx, pir::OpKind::kCustom, operands, attrs, result_types));
  const pir::Op& op = program_.graph.op(program_.graph.value(first).producer);
  std::vector<pir::ValueId> results = op.results;
  for (size_t i = 0; i < results.size(); ++i) AZ_RETURN_IF_ERROR(DefineValue(ctx, i, results[i]));
  return Status::Ok();
}

Status Importer::DeclareInputs() {
  const ox::GraphProto& graph = model_.proto.graph();
  if (auto list = model_.Metadata("aoizora.parameters"); !list.empty()) {
    auto names = JsonNames(list).Parse();
    if (!names)
      return InvalidArgument(
          file_ + ": metadata 'aoizora.parameters' is not a JSON list of names or of [name, dims, dtype] entries");
    listed_parameters_.insert(names->begin(), names->end());
    has_parameter_list_ = true;
  }
  for (const ox::ValueInfoProto& v : graph.value_info()) declared_[v.name()] = &v;
  for (const ox::ValueInfoProto& v : graph.output()) declared_[v.name()] = &v;
  for (const ox::ValueInfoProto& v : graph.input()) used_leaf_names_.insert(v.name());
  for (const ox::TensorProto& t : graph.initializer()) used_leaf_names_.insert(t.name());
  for (const ox::SparseTensorProto& t : graph.sparse_initializer()) used_leaf_names_.insert(t.values().name());
  // Initializers, then sparse ones (their dims and element type only).
  for (int i = 0; i < graph.initializer_size() + graph.sparse_initializer_size(); ++i) {
    bool sparse = i >= graph.initializer_size();
    const ox::SparseTensorProto* s = sparse ? &graph.sparse_initializer(i - graph.initializer_size()) : nullptr;
    const ox::TensorProto& t = sparse ? s->values() : graph.initializer(i);
    const auto& dims = sparse ? s->dims() : t.dims();
    std::string where = file_ + ": initializer " + std::to_string(i) + " '" + t.name() + "'";
    auto dtype = PirDType(t.data_type());
    if (!dtype) return InvalidArgument(where + ": unsupported element type " + std::to_string(t.data_type()));
    if (dims.size() > 64) return InvalidArgument(where + ": rank over 64");
    if (auto error = sparse ? std::nullopt : TensorDimsError(t)) return InvalidArgument(where + ": " + *error);
    Slot slot;
    slot.type = {*dtype, pir::Shape(dims.begin(), dims.end())};
    if (!CheckedNumElements(slot.type.shape)) return InvalidArgument(where + ": dims invalid or too large");
    slot.pending_leaf = true;
    slot.leaf_name = t.name();
    // With a parameter list, a floating initializer it does not name is a
    // buffer (a RoPE table) unless the exporter generated its name (a folded
    // Transpose of a listed weight).
    bool listed = !has_parameter_list_ || listed_parameters_.count(t.name()) > 0 || IsGeneratedName(t.name());
    slot.leaf_role =
        pir::IsFloat(*dtype) && !dims.empty() && listed ? pir::ValueRole::kParameter : pir::ValueRole::kConstant;
    if (!sparse) slot.data = TensorValues(t);
    if (!sparse && !slot.data && slot.type.rank() >= 2) {
      ConstantPattern pattern = ReadConstantPattern(t);
      slot.splat = pattern.splat;
      slot.band = pattern.band;
    }
    // A tensor of two values on a band of its last two dims is a mask (a
    // causal buffer such as torch.tril(torch.ones(L, L))), never a weight.
    if (slot.leaf_role == pir::ValueRole::kParameter && slot.type.rank() >= 2) {
      bool band = slot.band.has_value();
      if (slot.data) {
        std::vector<double> values(slot.data->size());
        for (size_t k = 0; k < values.size(); ++k) values[k] = slot.data->AsDouble(k);
        band = ConstantBandOf(values, slot.type.shape).has_value();
      }
      if (band) slot.leaf_role = pir::ValueRole::kConstant;
    }
    if (!values_.emplace(t.name(), std::move(slot)).second) {
      return InvalidArgument(where + ": two initializers have this name");
    }
  }
  for (int i = 0; i < graph.input_size(); ++i) {
    const ox::ValueInfoProto& in = graph.input(i);
    if (values_.count(in.name())) continue;  // an initializer listed as an input (IR version < 4)
    std::string where = file_ + ": graph input " + std::to_string(i) + " '" + in.name() + "'";
    const ox::TypeProto_Tensor& tensor = in.type().tensor_type();
    auto dtype = PirDType(tensor.elem_type());
    if (!dtype)
      return InvalidArgument(where + ": unsupported or missing element type " + std::to_string(tensor.elem_type()));
    if (!tensor.has_shape()) return InvalidArgument(where + ": has no shape");
    pir::TensorType type{*dtype, {}};
    for (int d = 0; d < tensor.shape().dim_size(); ++d) {
      const ox::TensorShapeProto_Dimension& dim = tensor.shape().dim(d);
      if (dim.has_dim_value() && dim.dim_value() >= 0) {
        type.shape.push_back(dim.dim_value());
        continue;
      }
      const std::string& param = dim.dim_param();
      if (param.empty()) return InvalidArgument(where + ": dim " + std::to_string(d) + " is unknown");
      auto bound = options_.dims.find(param);
      if (bound == options_.dims.end()) {
        return InvalidArgument(where + ": dim " + std::to_string(d) + " is the symbolic '" + param +
                               "'; bind it with a size (ImportOptions::dims, --dim " + param + "=N)");
      }
      if (bound->second < 0) return InvalidArgument(where + ": dim '" + param + "' is bound to a negative size");
      type.shape.push_back(bound->second);
    }
    if (type.rank() > 64 || !CheckedNumElements(type.shape))
      return InvalidArgument(where + ": " + type.ToString() + " is too large");
    bool param = has_parameter_list_
                     ? listed_parameters_.count(in.name()) > 0
                     : i > 0 && pir::IsFloat(*dtype) && !type.shape.empty() && LooksLikeParameterName(in.name());
    Slot slot;
    slot.type = type;
    if (param) {
      slot.pending_leaf = true;
      slot.leaf_role = pir::ValueRole::kParameter;
      slot.leaf_name = in.name();
    } else {
      slot.id = program_.graph.AddLeaf(pir::ValueRole::kInput, in.name(), type);
    }
    values_.emplace(in.name(), std::move(slot));
  }
  return Status::Ok();
}

Status Importer::ConvertOne(const ox::NodeProto& node, int index, const std::string& display_name) {
  // Inlining can multiply a small file's nodes (a function calling another
  // several times, nested): bound the work, not only the ops emitted.
  if (++nodes_converted_ > 16 * std::max<int64_t>(options_.max_ops, 1)) {
    return ResourceExhausted(file_ + ": more than " + std::to_string(16 * options_.max_ops) +
                             " nodes after inlining functions");
  }
  NodeContext ctx;
  ctx.node = &node;
  ctx.index = index;
  ctx.opset = model_.StandardOpset();
  ctx.where = file_ + ": node " + std::to_string(index) + " '" + display_name + "' (" + node.op_type() + ")";
  auto [scope, leaf] = ModuleScope(node);
  ctx.scope = scope;
  if (scope.empty()) {
    ctx.op_name = leaf.empty() ? node.op_type() + "_" + std::to_string(index) : leaf;
  } else {
    ctx.op_name = leaf == node.op_type() || leaf.empty() ? scope : scope + "." + leaf;
  }
  return ConvertNode(*this, ctx);
}

Status Importer::ConvertNodes(const google::protobuf::RepeatedPtrField<ox::NodeProto>& nodes, int caller_index,
                              int depth, const std::map<std::string, std::string>* rename,
                              const std::string& name_prefix, const ox::NodeProto* caller) {
  for (int n = 0; n < nodes.size(); ++n) {
    const ox::NodeProto* node = &nodes.Get(n);
    int index = caller ? caller_index : n;
    ox::NodeProto renamed;
    if (rename) {
      // A function body node: its values are renamed into the caller's
      // namespace, attribute references resolved against the caller.
      renamed = *node;
      auto map_name = [&](std::string* name) {
        if (name->empty()) return;
        auto it = rename->find(*name);
        *name = it != rename->end() ? it->second : name_prefix + "::" + *name;
      };
      for (std::string& s : *renamed.mutable_input()) map_name(&s);
      for (std::string& s : *renamed.mutable_output()) map_name(&s);
      renamed.clear_attribute();
      for (const ox::AttributeProto& a : node->attribute()) {
        if (a.ref_attr_name().empty()) {
          *renamed.add_attribute() = a;
          continue;
        }
        // A reference is only inside a function body, which always has a caller.
        const ox::AttributeProto* actual = caller != nullptr ? FindAttribute(*caller, a.ref_attr_name()) : nullptr;
        if (actual != nullptr) {
          ox::AttributeProto* copy = renamed.add_attribute();
          *copy = *actual;
          copy->set_name(a.name());
        }
      }
      if (renamed.name().empty() || renamed.name()[0] != '/') renamed.set_name(caller->name() + "/" + renamed.name());
      node = &renamed;
    }
    const ox::FunctionProto* function = nullptr;
    for (const ox::FunctionProto& f : model_.proto.functions()) {
      if (f.name() == node->op_type() && f.domain() == node->domain()) function = &f;
    }
    if (function == nullptr) {
      AZ_RETURN_IF_ERROR(ConvertOne(*node, index, node->name()));
      continue;
    }
    if (depth >= kMaxFunctionNesting) {
      return InvalidArgument(file_ + ": node " + std::to_string(index) + " '" + node->name() +
                             "': functions nest deeper than " + std::to_string(kMaxFunctionNesting) + " levels");
    }
    std::map<std::string, std::string> body_names;
    for (int i = 0; i < function->input_size(); ++i) {
      body_names[function->input(i)] = i < node->input_size() ? node->input(i) : "";
    }
    for (int i = 0; i < function->output_size(); ++i) {
      body_names[function->output(i)] = i < node->output_size() ? node->output(i) : "";
    }
    // Attribute defaults of the function apply when the caller omits them.
    ox::NodeProto with_defaults = *node;
    for (const ox::AttributeProto& a : FunctionAttributeDefaults(*function)) {
      if (!FindAttribute(with_defaults, a.name())) *with_defaults.add_attribute() = a;
    }
    std::string prefix = (node->name().empty() ? node->op_type() : node->name()) + "#" + std::to_string(inlined_calls_++);
    AZ_RETURN_IF_ERROR(ConvertNodes(function->node(), index, depth + 1, &body_names, prefix, &with_defaults));
  }
  return Status::Ok();
}

StatusOr<ImportedProgram> Importer::Run() {
  const ox::GraphProto& graph = model_.proto.graph();
  program_.format = "onnx";
  program_.file = file_;
  program_.graph.set_name(graph.name().empty() ? "onnx" : graph.name());
  AZ_RETURN_IF_ERROR(DeclareInputs());
  AZ_RETURN_IF_ERROR(ConvertNodes(graph.node(), 0, 0, nullptr, "", nullptr));
  NodeContext out_ctx;
  ox::NodeProto output_node;
  output_node.set_op_type("output");
  out_ctx.node = &output_node;
  out_ctx.index = graph.node_size();
  for (const ox::ValueInfoProto& out : graph.output()) {
    out_ctx.where = file_ + ": graph output '" + out.name() + "'";
    auto it = values_.find(out.name());
    if (it == values_.end()) return InvalidArgument(out_ctx.where + ": error: no node defines it");
    AZ_ASSIGN_OR_RETURN(pir::ValueId v, Materialize(out_ctx, it->second));
    program_.graph.AddOutput(v);
    program_.results.push_back({out.name(), v});
  }
  for (const ox::ValueInfoProto& in : graph.input()) {
    auto it = values_.find(in.name());
    if (it == values_.end() || it->second.id < 0 || it->second.leaf_role == pir::ValueRole::kParameter) continue;
    if (program_.graph.value(it->second.id).role == pir::ValueRole::kInput) {
      program_.arguments.push_back({in.name(), it->second.id});
    }
  }
  for (const auto& [name, id] : parameter_order_) program_.arguments.push_back({name, id});
  program_.notes.push_back(model_.checks);
  if (Status finished = FinishImport(program_, options_); !finished.ok()) {
    if (finished.message().find(file_) != std::string::npos) return finished;
    return Status(finished.code(), file_ + ": " + finished.message());
  }
  return std::move(program_);
}

}  // namespace onnx

StatusOr<ImportedProgram> ImportOnnx(std::string_view bytes, std::string file_name, const ImportOptions& options) {
  AZ_ASSIGN_OR_RETURN(std::unique_ptr<onnx::OnnxModel> model, onnx::ReadOnnxModel(bytes, file_name));
  onnx::Importer importer(*model, file_name, options);
  return importer.Run();
}

StatusOr<ImportedProgram> ImportOnnxFile(const std::string& path, const ImportOptions& options) {
  std::error_code error;
  auto size = std::filesystem::file_size(path, error);
  if (error) return NotFound(path + ": cannot read: " + error.message());
  if (size > static_cast<uintmax_t>(kMaxOnnxFileBytes)) {
    return ResourceExhausted(path + ": " + std::to_string(size) +
                             " bytes is over the 2 GiB protobuf limit; export with external data "
                             "(torch.onnx.export(..., external_data=True) or onnx.save_model(..., "
                             "save_as_external_data=True))");
  }
  AZ_ASSIGN_OR_RETURN(std::unique_ptr<onnx::OnnxModel> model, onnx::ReadOnnxModelFile(path));
  onnx::Importer importer(*model, path, options);
  return importer.Run();
}

}  // namespace az::frontend
