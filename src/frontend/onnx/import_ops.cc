// ONNX compute ops -> PIR: element-wise (unary, binary, compare, where),
// MatMul/Gemm/Einsum -> einsum, Softmax, LayerNormalization, RMSNormalization,
// Gelu, Reduce{Mean,Sum,Max}, Conv; everything else -> custom with a warning.
// The dispatch (ConvertNode) tries constant folding first, then the layout
// converters (import_layout.cc), then the table here.
#include <algorithm>

#include "frontend/onnx/op_helpers.h"

namespace az::frontend::onnx {

using pir::DType;
using pir::OpKind;
using pir::Shape;
using pir::TensorType;

std::optional<DType> PirDType(int32_t t) {
  switch (t) {
    case kOnnxFloat:
      return DType::kF32;
    case kOnnxFloat16:
      return DType::kF16;
    case kOnnxBfloat16:
      return DType::kBF16;
    case kOnnxDouble:
      return DType::kF64;
    case kOnnxFloat8E4M3FN:
    case kOnnxFloat8E4M3FNUZ:
      return DType::kF8E4M3;
    case kOnnxFloat8E5M2:
    case kOnnxFloat8E5M2FNUZ:
      return DType::kF8E5M2;
    case kOnnxInt64:
    case kOnnxUint64:
    case kOnnxUint32:
      return DType::kI64;
    case kOnnxInt32:
    case kOnnxInt16:
    case kOnnxUint16:
      return DType::kI32;
    case kOnnxInt8:
    case kOnnxUint8:
    case kOnnxInt4:
    case kOnnxUint4:
      return DType::kI8;
    case kOnnxBool:
      return DType::kBool;
    default:
      return std::nullopt;
  }
}

namespace {

// The strings of a Python list repr "['', 'blocks.2', 'blocks.2.mlp']".
std::vector<std::string> ParsePythonStringList(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    char quote = text[i];
    if (quote != '\'' && quote != '"') {
      ++i;
      continue;
    }
    std::string s;
    for (++i; i < text.size() && text[i] != quote; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      s += text[i];
    }
    ++i;
    out.push_back(std::move(s));
  }
  return out;
}

bool IsMatmulLike(const std::string& op) { return op == "MatMul" || op == "Gemm" || op == "Conv" || op == "Einsum"; }

}  // namespace

std::pair<std::string, std::string> ModuleScope(const ox::NodeProto& node) {
  if (std::string scopes = NodeMetadata(node, "pkg.torch.onnx.name_scopes"); !scopes.empty()) {
    std::vector<std::string> list = ParsePythonStringList(scopes);
    if (list.size() >= 2) {
      // The last entry is the node's own name; the one before it the module FQN.
      std::string leaf = IsMatmulLike(node.op_type()) ? node.op_type() : list.back();
      return {list[list.size() - 2], leaf};
    }
    if (list.size() == 1) return {"", list[0]};
  }
  const std::string& name = node.name();
  if (name.empty() || name[0] != '/') return {"", name};
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string::npos) slash = name.size();
    if (slash > start) parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  if (parts.empty()) return {"", name};
  std::string leaf = parts.back();
  parts.pop_back();
  // The legacy exporter writes each module by its attribute name, and a
  // ModuleList/Sequential child as "<list>.<i>" after the list's own atom:
  // "/blocks.0/ffn/ffn.0/MatMul" is module blocks.0.ffn.0.
  std::vector<std::string> atoms;
  for (const std::string& p : parts) {
    if (!atoms.empty() && p.size() > atoms.back().size() &&
        p.compare(0, atoms.back().size() + 1, atoms.back() + ".") == 0) {
      atoms.back() = p;
    } else {
      atoms.push_back(p);
    }
  }
  std::string scope;
  for (const std::string& a : atoms) scope += (scope.empty() ? "" : ".") + a;
  return {scope, leaf};
}

namespace {

struct ElementwiseInfo {
  const char* onnx;
  OpKind kind;
  const char* direction;  // compare only
};
constexpr ElementwiseInfo kElementwise[] = {
    {"Add", OpKind::kAdd, nullptr},          {"Sub", OpKind::kSub, nullptr},
    {"Mul", OpKind::kMul, nullptr},          {"Div", OpKind::kDiv, nullptr},
    {"Pow", OpKind::kPow, nullptr},          {"Max", OpKind::kMax, nullptr},
    {"Min", OpKind::kMin, nullptr},          {"Sum", OpKind::kAdd, nullptr},
    {"Where", OpKind::kWhere, nullptr},      {"Equal", OpKind::kCompare, "EQ"},
    {"Less", OpKind::kCompare, "LT"},        {"Greater", OpKind::kCompare, "GT"},
    {"LessOrEqual", OpKind::kCompare, "LE"}, {"GreaterOrEqual", OpKind::kCompare, "GE"},
    {"Sqrt", OpKind::kSqrt, nullptr},        {"Erf", OpKind::kErf, nullptr},
    {"Exp", OpKind::kExp, nullptr},          {"Tanh", OpKind::kTanh, nullptr},
    {"Sigmoid", OpKind::kSigmoid, nullptr},  {"Sin", OpKind::kSin, nullptr},
    {"Cos", OpKind::kCos, nullptr},          {"Neg", OpKind::kNeg, nullptr},
    {"Reciprocal", OpKind::kRecip, nullptr}, {"Abs", OpKind::kAbs, nullptr},
    {"Log", OpKind::kLog, nullptr},          {"Relu", OpKind::kMax, nullptr},
};

// Folding of element-wise ops whose inputs are all known (shape arithmetic).
bool TryFoldElementwise(Importer& im, const NodeContext& ctx, Status* status) {
  static const char* kFoldable[] = {"Add",
                                    "Sub",
                                    "Mul",
                                    "Div",
                                    "Pow",
                                    "Max",
                                    "Min",
                                    "Mod",
                                    "Equal",
                                    "Less",
                                    "Greater",
                                    "LessOrEqual",
                                    "GreaterOrEqual",
                                    "And",
                                    "Or",
                                    "Where",
                                    "Neg",
                                    "Abs",
                                    "Sqrt",
                                    "Exp",
                                    "Log",
                                    "Floor",
                                    "Ceil",
                                    "Not",
                                    "Reciprocal",
                                    "Sigmoid",
                                    "Tanh",
                                    "Erf",
                                    "Sin",
                                    "Cos"};
  const ox::NodeProto& node = *ctx.node;
  if (std::find(std::begin(kFoldable), std::end(kFoldable), node.op_type()) == std::end(kFoldable)) return false;
  if ((node.input_size() == 0) || node.domain().size() > 0) return false;
  std::vector<const TensorData*> data;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < NumInputs(node); ++i) {
    auto slot = im.Input(ctx, i);
    if (!slot.ok() || !(*slot)->data) return false;
    data.push_back(&*(*slot)->data);
    shapes.push_back((*slot)->type.shape);
  }
  auto shape = BroadcastShapes(shapes);
  if (!shape) return false;
  static const char* kBool[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Not"};
  bool boolean = std::find(std::begin(kBool), std::end(kBool), node.op_type()) != std::end(kBool);
  DType dtype = boolean ? DType::kBool : (*im.Input(ctx, node.op_type() == "Where" ? 1 : 0))->type.dtype;
  auto folded = FoldElementwise(node.op_type(), data, shapes, *shape, pir::IsFloat(dtype));
  if (!folded) return false;
  *status = im.DefineConstant(ctx, 0, {dtype, *shape}, std::move(*folded));
  return true;
}

Status ConvertElementwise(Importer& im, const NodeContext& ctx, const ElementwiseInfo& info) {
  const ox::NodeProto& node = *ctx.node;
  std::vector<pir::ValueId> operands;
  for (size_t i = 0; i < NumInputs(node); ++i) {
    AZ_ASSIGN_OR_RETURN(pir::ValueId v, im.InputValue(ctx, i));
    operands.push_back(v);
  }
  if (operands.empty()) return im.Error(ctx, "element-wise op without inputs");
  pir::Attributes attrs;
  if (info.direction) attrs.Set("direction", std::string(info.direction));
  if (node.op_type() == "Relu") {  // max(x, 0)
    operands.push_back(im.ScalarConstant(ctx, im.TypeOf(operands[0]).dtype, 0.0));
  }
  const pir::OpKindInfo& kind = pir::GetOpKindInfo(info.kind);
  if (static_cast<int>(operands.size()) == kind.min_operands) {
    AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, info.kind, operands, attrs));
    return im.DefineValue(ctx, 0, r);
  }
  // Variadic Sum/Max/Min: a chain of binary ops.
  if (operands.size() > 2 && (node.op_type() == "Sum" || node.op_type() == "Max" || node.op_type() == "Min")) {
    pir::ValueId acc = operands[0];
    for (size_t i = 1; i < operands.size(); ++i) {
      std::string suffix = i + 1 < operands.size() ? "." + std::to_string(i) : "";
      AZ_ASSIGN_OR_RETURN(acc, im.Emit(ctx, info.kind, {acc, operands[i]}, attrs, {}, suffix));
    }
    return im.DefineValue(ctx, 0, acc);
  }
  if (operands.size() == 1 && (node.op_type() == "Sum" || node.op_type() == "Max" || node.op_type() == "Min")) {
    return im.DefineValue(ctx, 0, operands[0]);
  }
  return im.Error(ctx, node.op_type() + " with " + std::to_string(operands.size()) + " inputs");
}

char Letter(int i) { return static_cast<char>(i < 26 ? 'a' + i : 'A' + (i - 26)); }

// MatMul with NumPy semantics as an einsum ("abc,cd->abd"): leading dims
// broadcast (a size-1 dim facing a larger one gets a letter of its own, summed
// over size 1); a 1-D operand's dim is contracted and absent from the result.
Status ConvertMatMul(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(pir::ValueId a, im.InputValue(ctx, 0));
  AZ_ASSIGN_OR_RETURN(pir::ValueId b, im.InputValue(ctx, 1));
  const Shape& A = im.TypeOf(a).shape;
  const Shape& B = im.TypeOf(b).shape;
  int64_t ra = static_cast<int64_t>(A.size()), rb = static_cast<int64_t>(B.size());
  if (ra == 0 || rb == 0) return im.Error(ctx, "MatMul of a scalar");
  if (ra > 24 || rb > 24) return im.Error(ctx, "MatMul rank over 24");
  int64_t ba = std::max<int64_t>(ra - 2, 0), bb = std::max<int64_t>(rb - 2, 0), nb = std::max(ba, bb);
  int next = 0;
  std::string batch;
  for (int64_t p = 0; p < nb; ++p) batch += Letter(next++);
  std::string ea, eb, out = batch;
  auto batch_dims = [&](const Shape& s, int64_t count, const Shape& other, int64_t other_count, std::string& eq) {
    for (int64_t j = 0; j < count; ++j) {
      int64_t p = nb - count + j, q = p - (nb - other_count);
      int64_t other_size = q >= 0 ? other[q] : 1;
      if (s[j] == other_size || other_size == 1) {
        eq += batch[p];
      } else if (s[j] == 1) {
        eq += Letter(next++);
      } else {
        return false;
      }
    }
    return true;
  };
  if (!batch_dims(A, ba, B, bb, ea) || !batch_dims(B, bb, A, ba, eb)) {
    return im.Error(ctx, "MatMul batch dims of " + im.TypeOf(a).ToString() + " and " + im.TypeOf(b).ToString() +
                             " do not broadcast");
  }
  char m = Letter(next++), k = Letter(next++), n = Letter(next++);
  if (ra >= 2) {
    ea += m;
    out += m;
  }
  ea += k;
  eb += k;
  if (rb >= 2) {
    eb += n;
    out += n;
  }
  // Transpose(W) -> MatMul (a Linear exported without constant folding): the
  // einsum reads W itself, [out, in], by permuting the letters; the transpose
  // is left dead (FinishImport prunes it).
  auto read_through_transpose = [&](pir::ValueId& v, std::string& letters) {
    const pir::Value& value = im.graph().value(v);
    if (value.producer == pir::kNoOp) return;
    const pir::Op& op = im.graph().op(value.producer);
    if (op.kind != OpKind::kTranspose || im.graph().value(op.operands[0]).role != pir::ValueRole::kParameter) return;
    std::vector<int64_t> perm = op.attrs.GetInts("perm").value_or(std::vector<int64_t>{});
    if (perm.size() != letters.size()) return;
    std::string source(letters.size(), ' ');
    for (size_t i = 0; i < perm.size(); ++i) source[static_cast<size_t>(perm[i])] = letters[i];
    letters = source;
    v = op.operands[0];
  };
  read_through_transpose(a, ea);
  read_through_transpose(b, eb);
  pir::Attributes attrs;
  attrs.Set("eq", ea + "," + eb + "->" + out);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kEinsum, {a, b}, attrs));
  return im.DefineValue(ctx, 0, r);
}

// Gemm: alpha * A' B' + beta * C. With alpha = beta = 1 and C matching the
// result's trailing dims, C is the einsum's bias operand.
Status ConvertGemm(Importer& im, const NodeContext& ctx) {
  const ox::NodeProto& node = *ctx.node;
  AZ_ASSIGN_OR_RETURN(pir::ValueId a, im.InputValue(ctx, 0));
  AZ_ASSIGN_OR_RETURN(pir::ValueId b, im.InputValue(ctx, 1));
  double alpha = AttrFloat(node, "alpha", 1.0), beta = AttrFloat(node, "beta", 1.0);
  std::string eq =
      std::string(AttrInt(node, "transA", 0) ? "km" : "mk") + "," + (AttrInt(node, "transB", 0) ? "nk" : "kn") + "->mn";
  pir::Attributes attrs;
  attrs.Set("eq", eq);
  std::vector<pir::ValueId> operands{a, b};
  std::optional<pir::ValueId> bias;
  if (im.HasInput(ctx, 2)) {
    AZ_ASSIGN_OR_RETURN(pir::ValueId c, im.InputValue(ctx, 2));
    bias = c;
  }
  auto plain = pir::InferResultTypes(OpKind::kEinsum, {im.TypeOf(a), im.TypeOf(b)}, attrs, {});
  if (!plain.ok())
    return im.Error(ctx, "Gemm operands " + im.TypeOf(a).ToString() + " and " + im.TypeOf(b).ToString() + ": " +
                             plain.status().message());
  if (bias && alpha == 1.0 && beta == 1.0) {
    const Shape& c = im.TypeOf(*bias).shape;
    const Shape& r = (*plain)[0].shape;
    if (c.size() <= r.size() && std::equal(c.begin(), c.end(), r.end() - static_cast<std::ptrdiff_t>(c.size()))) {
      operands.push_back(*bias);
      bias.reset();
    }
  }
  AZ_ASSIGN_OR_RETURN(pir::ValueId result, im.Emit(ctx, OpKind::kEinsum, operands, attrs));
  if (alpha != 1.0) {
    pir::ValueId s = im.ScalarConstant(ctx, im.TypeOf(result).dtype, alpha);
    AZ_ASSIGN_OR_RETURN(result, im.Emit(ctx, OpKind::kMul, {result, s}, {}, {}, ".alpha"));
  }
  if (bias) {
    pir::ValueId c = *bias;
    if (beta != 1.0) {
      pir::ValueId s = im.ScalarConstant(ctx, im.TypeOf(c).dtype, beta);
      AZ_ASSIGN_OR_RETURN(c, im.Emit(ctx, OpKind::kMul, {c, s}, {}, {}, ".beta"));
    }
    AZ_ASSIGN_OR_RETURN(result, im.Emit(ctx, OpKind::kAdd, {result, c}, {}, {}, ".bias"));
  }
  return im.DefineValue(ctx, 0, result);
}

Status ConvertSoftmax(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.InputValue(ctx, 0));
  int64_t rank = im.TypeOf(x).rank();
  int64_t axis = AttrInt(*ctx.node, "axis", ctx.opset >= 13 ? -1 : 1);
  AZ_ASSIGN_OR_RETURN(axis, Axis(im, ctx, axis, std::max<int64_t>(rank, 1)));
  // Before opset 13 the input is coerced to 2-D at `axis`: one softmax over
  // all trailing dims, the same as PIR's only when `axis` is the last dim.
  if (ctx.opset < 13 && axis != rank - 1) return im.EmitCustom(ctx, "Softmax (opset < 13) over several trailing dims");
  pir::Attributes attrs;
  attrs.Set("axis", axis);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kSoftmax, {x}, attrs));
  return im.DefineValue(ctx, 0, r);
}

// LayerNormalization / RMSNormalization over the last dim -> layer_norm /
// rms_norm; a scale or bias stored [1, ..., D] is reshaped to [D]. Other axes
// import as custom.
Status ConvertNorm(Importer& im, const NodeContext& ctx) {
  const ox::NodeProto& node = *ctx.node;
  bool rms = node.op_type() == "RMSNormalization";
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.InputValue(ctx, 0));
  const TensorType& xt = im.TypeOf(x);
  AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, AttrInt(node, "axis", -1), std::max<int64_t>(xt.rank(), 1)));
  for (size_t i = 1; i < NumOutputs(node); ++i) {
    if (!OutputName(node, i).empty())
      return im.EmitCustom(ctx, node.op_type() + " with its mean/inverse-std outputs",
                           8 * CheckedNumElements(xt.shape).value_or(0));
  }
  int64_t flops = 8 * CheckedNumElements(xt.shape).value_or(0);
  if (xt.rank() == 0 || axis != xt.rank() - 1)
    return im.EmitCustom(ctx, node.op_type() + " over axes other than the last", flops);
  int64_t d = xt.shape.back();
  std::vector<pir::ValueId> operands{x};
  for (size_t i = 1; i < NumInputs(node) && i < (rms ? 2u : 3u); ++i) {
    if (!im.HasInput(ctx, i)) break;
    AZ_ASSIGN_OR_RETURN(pir::ValueId w, im.InputValue(ctx, i));
    const TensorType& wt = im.TypeOf(w);
    if (wt.shape != Shape{d}) {
      if (CheckedNumElements(wt.shape) != d || (!wt.shape.empty() && wt.shape.back() != d)) {
        return im.EmitCustom(ctx, node.op_type() + " with a scale/bias " + wt.ToString() + " that is not per-feature",
                             flops);
      }
      pir::Attributes r;
      r.Set("shape", Shape{d});
      AZ_ASSIGN_OR_RETURN(w, im.Emit(ctx, OpKind::kReshape, {w}, r, {}, ".flat" + std::to_string(i)));
    }
    operands.push_back(w);
  }
  pir::Attributes attrs;
  attrs.Set("eps", AttrFloat(node, "epsilon", rms ? 1e-5 : 1e-5));
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, rms ? OpKind::kRmsNorm : OpKind::kLayerNorm, operands, attrs));
  return im.DefineValue(ctx, 0, r);
}

Status ConvertGelu(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.InputValue(ctx, 0));
  std::string approximate = AttrString(*ctx.node, "approximate", "none");
  if (approximate != "none" && approximate != "tanh") return im.Error(ctx, "Gelu approximate='" + approximate + "'");
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, approximate == "tanh" ? OpKind::kGeluTanh : OpKind::kGelu, {x}));
  return im.DefineValue(ctx, 0, r);
}

// ReduceMean/Sum/Max: axes from the attribute (ReduceSum before opset 13, the
// others before 18) or the second input; keepdims -> reduce then reshape.
Status ConvertReduce(Importer& im, const NodeContext& ctx) {
  const ox::NodeProto& node = *ctx.node;
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.InputValue(ctx, 0));
  const TensorType xt = im.TypeOf(x);  // a copy: Emit below may move the graph's values
  int64_t rank = xt.rank();
  int64_t axes_input_since = node.op_type() == "ReduceSum" ? 13 : 18;
  std::optional<std::vector<int64_t>> axes;
  if (ctx.opset < axes_input_since) {
    axes = AttrInts(node, "axes");
  } else {
    AZ_ASSIGN_OR_RETURN(axes, ConstantInts(im, ctx, 1));
  }
  if (!axes || axes->empty()) {
    if (AttrInt(node, "noop_with_empty_axes", 0)) {
      AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
      return Alias(im, ctx, 0, in);
    }
    axes = std::vector<int64_t>();
    for (int64_t d = 0; d < rank; ++d) axes->push_back(d);
  }
  std::vector<int64_t> dims;
  for (int64_t a : *axes) {
    AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, a, rank));
    dims.push_back(axis);
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  pir::Attributes attrs;
  attrs.Set("dims", dims);
  attrs.Set("kind", std::string(node.op_type() == "ReduceMean" ? "mean" : node.op_type() == "ReduceSum" ? "sum" : "max"));
  bool keepdims = AttrInt(node, "keepdims", 1) != 0;
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kReduce, {x}, attrs, {}, keepdims ? ".reduce" : ""));
  if (keepdims) {
    Shape kept = xt.shape;
    for (int64_t d : dims) kept[d] = 1;
    pir::Attributes reshape;
    reshape.Set("shape", kept);
    AZ_ASSIGN_OR_RETURN(r, im.Emit(ctx, OpKind::kReshape, {r}, reshape));
  }
  return im.DefineValue(ctx, 0, r);
}

// Conv. A 3-D convolution with group 1 and no dilation -> PIR conv3d (the
// patch embedding: kernel = stride); anything else -> custom with
// FLOPs = 2 * numel(result) * kernel volume * C_in / group.
Status ConvertConv(Importer& im, const NodeContext& ctx) {
  const ox::NodeProto& node = *ctx.node;
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.InputValue(ctx, 0));
  AZ_ASSIGN_OR_RETURN(pir::ValueId w, im.InputValue(ctx, 1));
  const Shape& xs = im.TypeOf(x).shape;
  const Shape& ws = im.TypeOf(w).shape;
  if (xs.size() < 3 || ws.size() != xs.size())
    return im.Error(ctx, "Conv of " + im.TypeOf(x).ToString() + " with weight " + im.TypeOf(w).ToString());
  size_t spatial = xs.size() - 2;
  int64_t group = AttrInt(node, "group", 1);
  if (group < 1 || xs[1] != ws[1] * group || ws[0] % group != 0)
    return im.Error(ctx, "Conv channels do not match the group count");
  std::vector<int64_t> strides = AttrInts(node, "strides").value_or(std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dilations = AttrInts(node, "dilations").value_or(std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = AttrInts(node, "pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  std::string auto_pad = AttrString(node, "auto_pad", "NOTSET");
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial) {
    return im.Error(ctx, "Conv strides/dilations/pads do not match the spatial rank");
  }
  Shape out{xs[0], ws[0]};
  std::vector<int64_t> padding;
  int64_t kernel_volume = 1;
  for (size_t i = 0; i < spatial; ++i) {
    int64_t k = ws[2 + i], s = strides[i], d = dilations[i], n = xs[2 + i];
    if (s < 1 || d < 1 || k < 1 || k > (int64_t{1} << 30) || d > (int64_t{1} << 30))
      return im.Error(ctx, "Conv stride, dilation or kernel out of range");
    int64_t extent = (k - 1) * d + 1, lo = pads[i], hi = pads[spatial + i];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t o = (n + s - 1) / s, total = std::max<int64_t>(0, (o - 1) * s + extent - n);
      lo = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      hi = total - lo;
    } else if (auto_pad == "VALID") {
      lo = hi = 0;
    }
    if (lo < 0 || hi < 0 || lo > (int64_t{1} << 40) || hi > (int64_t{1} << 40) || n + lo + hi < extent) {
      return im.Error(ctx, "Conv padding out of range or kernel larger than the input");
    }
    out.push_back((n + lo + hi - extent) / s + 1);
    padding.push_back(lo);
    padding.push_back(hi);
    kernel_volume *= k;
  }
  bool has_bias = im.HasInput(ctx, 2);
  if (spatial == 3 && group == 1 && std::all_of(dilations.begin(), dilations.end(), [](int64_t d) { return d == 1; })) {
    std::vector<pir::ValueId> operands{x, w};
    if (has_bias) {
      AZ_ASSIGN_OR_RETURN(pir::ValueId bias, im.InputValue(ctx, 2));
      operands.push_back(bias);
    }
    pir::Attributes attrs;
    attrs.Set("stride", strides);
    attrs.Set("padding", padding);
    AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kConv3d, operands, attrs));
    return im.DefineValue(ctx, 0, r);
  }
  auto elements = CheckedNumElements(out);
  if (!elements) return im.Error(ctx, "Conv result is too large");
  double flops = 2.0 * static_cast<double>(*elements) * static_cast<double>(kernel_volume) * static_cast<double>(ws[1]);
  int64_t f = flops < 9e18 ? static_cast<int64_t>(flops) : int64_t{9'000'000'000'000'000'000};
  return im.EmitCustom(ctx, std::to_string(spatial) + "-D Conv (PIR has conv3d with group 1 only)", f,
                       {{pir::PromoteTypes(im.TypeOf(x).dtype, im.TypeOf(w).dtype), out}});
}

Status ConvertEinsum(Importer& im, const NodeContext& ctx) {
  std::string eq;
  for (char c : AttrString(*ctx.node, "equation", "")) {
    if (c != ' ') eq += c;
  }
  if (NumInputs(*ctx.node) == 2 && eq.find("->") != std::string::npos && eq.find('.') == std::string::npos) {
    AZ_ASSIGN_OR_RETURN(pir::ValueId a, im.InputValue(ctx, 0));
    AZ_ASSIGN_OR_RETURN(pir::ValueId b, im.InputValue(ctx, 1));
    pir::Attributes attrs;
    attrs.Set("eq", eq);
    if (pir::InferResultTypes(OpKind::kEinsum, {im.TypeOf(a), im.TypeOf(b)}, attrs, {}).ok()) {
      AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kEinsum, {a, b}, attrs));
      return im.DefineValue(ctx, 0, r);
    }
  }
  return im.EmitCustom(ctx,
                       "Einsum '" + eq + "' outside PIR's einsum grammar (two inputs, explicit '->', no broadcasting)");
}

// Not, And, Or on booleans: x == false, min, max (exact on i1), as the
// StableHLO importer writes them; the attribute `logical` keeps the source op
// for the attention fold's mask reading.
Status ConvertLogical(Importer& im, const NodeContext& ctx) {
  const std::string& op = ctx.node->op_type();
  const size_t arity = op == "Not" ? 1 : 2;
  if (NumInputs(*ctx.node) != arity) return im.Error(ctx, op + " needs " + std::to_string(arity) + " input(s)");
  std::vector<pir::ValueId> operands;
  for (size_t i = 0; i < arity; ++i) {
    AZ_ASSIGN_OR_RETURN(pir::ValueId v, im.InputValue(ctx, i));
    if (im.TypeOf(v).dtype != DType::kBool) return im.Error(ctx, op + " of a non-boolean " + im.TypeOf(v).ToString());
    operands.push_back(v);
  }
  pir::Attributes attrs;
  std::string logical = op == "Not" ? "not" : op == "And" ? "and" : "or";
  attrs.Set("logical", logical);
  if (op == "Not") {
    operands.push_back(im.ScalarConstant(ctx, DType::kBool, 0.0));
    attrs.Set("direction", std::string("EQ"));
  }
  const OpKind kind = op == "Not" ? OpKind::kCompare : op == "And" ? OpKind::kMin : OpKind::kMax;
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, kind, operands, attrs));
  return im.DefineValue(ctx, 0, r);
}

// Trilu(x, k): x on the kept triangle of its last two dims (row i, column j:
// j - i >= k with upper = 1, j - i <= k with upper = 0), 0 elsewhere. A
// folded constant is folded; a splat constant too large to fold becomes a
// band constant (constant_band.h: a causal mask built from ones or -inf);
// any other x is where(band, x, 0), the band a compare of index constants
// that carries the index arithmetic as attributes (iota_pos - iota_neg +
// iota_offset DIR 0, what the attention fold reads), the StableHLO
// importer's form of an iota compare.
Status ConvertTrilu(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  const pir::TensorType type = in->type;
  if (type.rank() < 2) return im.Error(ctx, "Trilu of a tensor of rank " + std::to_string(type.rank()) + " (needs 2)");
  int64_t k = 0;
  if (im.HasInput(ctx, 1)) {
    AZ_ASSIGN_OR_RETURN(auto ks, ConstantInts(im, ctx, 1));
    if (!ks || ks->size() != 1) return im.Error(ctx, "Trilu's k must be a constant scalar");
    k = (*ks)[0];
  }
  const bool upper = AttrInt(*ctx.node, "upper", 1) != 0;
  const int64_t rows = type.shape[type.shape.size() - 2], cols = type.shape.back();
  if (k > rows + cols || k < -(rows + cols)) k = k > 0 ? rows + cols : -(rows + cols);  // all or nothing kept
  auto kept = [&](int64_t i, int64_t j) { return upper ? j - i >= k : j - i <= k; };
  if (in->data) {
    TensorData data = *in->data;
    const size_t plane = static_cast<size_t>(rows * cols);
    for (size_t at = 0; at < data.size(); ++at) {
      const int64_t i = static_cast<int64_t>(at % plane) / cols, j = static_cast<int64_t>(at % plane) % cols;
      if (kept(i, j)) continue;
      if (data.is_float) {
        data.floats[at] = 0;
      } else {
        data.ints[at] = 0;
      }
    }
    return im.DefineConstant(ctx, 0, type, std::move(data));
  }
  // Kept: i - j <= -k (upper) or i - j >= -k (lower).
  if (in->pending_leaf && in->leaf_role == pir::ValueRole::kConstant && in->splat) {
    Slot slot;
    slot.type = type;
    slot.pending_leaf = true;
    slot.leaf_role = pir::ValueRole::kConstant;
    slot.leaf_name = OutputName(*ctx.node, 0);
    if (*in->splat == 0) {
      slot.splat = 0.0;
    } else {
      ConstantBand band;
      band.row_dim = type.rank() - 2;
      band.col_dim = type.rank() - 1;
      if (upper) {
        band.hi = -k;
      } else {
        band.lo = -k;
      }
      band.inside = *in->splat;
      band.outside = 0;
      slot.band = band;
    }
    return im.DefineSlot(ctx, 0, std::move(slot));
  }
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  // lhs = i + k, rhs = j: lhs - rhs = i - j + k, kept where <= 0 (upper) or >= 0 (lower).
  const pir::TensorType index_type{DType::kI64, type.shape};
  const pir::ValueId row = im.IndexConstant(ctx, index_type, ".trilu_row_plus_k");
  const pir::ValueId col = im.IndexConstant(ctx, index_type, ".trilu_col");
  pir::Attributes cmp;
  cmp.Set("direction", std::string(upper ? "LE" : "GE"));
  cmp.Set("iota_pos", type.rank() - 2);
  cmp.Set("iota_neg", type.rank() - 1);
  cmp.Set("iota_offset", k);
  AZ_ASSIGN_OR_RETURN(pir::ValueId band, im.Emit(ctx, OpKind::kCompare, {row, col}, cmp, {}, ".band"));
  const pir::ValueId zero = im.ScalarConstant(ctx, type.dtype, 0.0);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kWhere, {band, x, zero}));
  return im.DefineValue(ctx, 0, r);
}

bool IsStandardDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

}  // namespace

Status ConvertNode(Importer& im, const NodeContext& ctx) {
  const ox::NodeProto& node = *ctx.node;
  if (!IsStandardDomain(node.domain()))
    return im.EmitCustom(ctx, "op '" + node.op_type() + "' of domain '" + node.domain() + "'");
  for (const ox::AttributeProto& a : node.attribute()) {
    if (a.has_g() || a.graphs_size() > 0) return im.EmitCustom(ctx, "control flow '" + node.op_type() + "' (subgraphs are not imported)");
  }
  Status folded;
  if (TryFoldElementwise(im, ctx, &folded)) return folded;
  bool handled = false;
  Status status = ConvertLayoutNode(im, ctx, &handled);
  if (handled) return status;
  const std::string& op = node.op_type();
  for (const ElementwiseInfo& info : kElementwise) {
    if (op == info.onnx) return ConvertElementwise(im, ctx, info);
  }
  if (op == "MatMul") return ConvertMatMul(im, ctx);
  if (op == "Gemm") return ConvertGemm(im, ctx);
  if (op == "Softmax") return ConvertSoftmax(im, ctx);
  if (op == "LayerNormalization" || op == "RMSNormalization") return ConvertNorm(im, ctx);
  if (op == "Gelu") return ConvertGelu(im, ctx);
  if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax") return ConvertReduce(im, ctx);
  if (op == "Conv") return ConvertConv(im, ctx);
  if (op == "Einsum") return ConvertEinsum(im, ctx);
  if (op == "Not" || op == "And" || op == "Or") return ConvertLogical(im, ctx);
  if (op == "Trilu") return ConvertTrilu(im, ctx);
  return im.EmitCustom(ctx, "unsupported op '" + op + "'");
}

}  // namespace az::frontend::onnx
