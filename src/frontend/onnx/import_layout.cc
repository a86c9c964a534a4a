// ONNX shape plumbing and layout ops -> folded constants or PIR layout ops:
// Constant, Shape, Size, ConstantOfShape, Range, Identity, Dropout, Cast,
// Reshape, Flatten, Unsqueeze, Squeeze, Transpose, Slice, Split, Concat,
// Gather, Expand.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "frontend/onnx/op_helpers.h"

namespace az::frontend::onnx {

using pir::OpKind;
using pir::Shape;
using pir::TensorType;

StatusOr<std::optional<std::vector<int64_t>>> ConstantInts(Importer& im, const NodeContext& ctx, size_t i) {
  if (!im.HasInput(ctx, i)) return std::optional<std::vector<int64_t>>();
  AZ_ASSIGN_OR_RETURN(Slot * slot, im.Input(ctx, i));
  if (!slot->data) {
    return im.Error(ctx, "input " + std::to_string(i) + " '" + InputName(*ctx.node, i) +
                             "' must be a constant once shapes are known (shape plumbing that does not fold)");
  }
  std::vector<int64_t> out;
  for (size_t k = 0; k < slot->data->size(); ++k) {
    auto v = slot->data->AsInt(k);
    if (!v) return im.Error(ctx, "input " + std::to_string(i) + " holds a value that is not an integer");
    out.push_back(*v);
  }
  return std::optional<std::vector<int64_t>>(std::move(out));
}

StatusOr<int64_t> Axis(Importer& im, const NodeContext& ctx, int64_t axis, int64_t rank) {
  auto normalized = pir::NormalizeAxis(axis, rank);
  if (!normalized)
    return im.Error(ctx, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return *normalized;
}

Status Alias(Importer& im, const NodeContext& ctx, size_t i, Slot* in) {
  if (in->pending_leaf) AZ_RETURN_IF_ERROR(im.Materialize(ctx, *in).status());
  return im.DefineSlot(ctx, i, *in);
}

Status Reshaped(Importer& im, const NodeContext& ctx, size_t i, Slot* in, const Shape& shape,
                const std::string& suffix) {
  auto n = CheckedNumElements(shape);
  if (!n || *n != CheckedNumElements(in->type.shape)) {
    return im.Error(ctx, "cannot reshape " + in->type.ToString() + " to " + pir::ShapeString(shape));
  }
  if (in->data) return im.DefineConstant(ctx, i, {in->type.dtype, shape}, *in->data);
  if (shape == in->type.shape) return Alias(im, ctx, i, in);
  if (in->pending_leaf && in->leaf_role == pir::ValueRole::kConstant) {
    return DefineOpaqueConstant(im, ctx, i, {in->type.dtype, shape}, in);
  }
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  pir::Attributes attrs;
  attrs.Set("shape", shape);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kReshape, {x}, attrs, {}, suffix));
  return im.DefineValue(ctx, i, r);
}

namespace {

// A value of `from` converted to `to` as Cast does (bool: nonzero; integers truncate).
double CastValue(double v, pir::DType to) {
  if (to == pir::DType::kBool) return v != 0 ? 1 : 0;
  if (!pir::IsFloat(to) && std::isfinite(v)) return std::trunc(v);
  return v;
}

}  // namespace

Status DefineOpaqueConstant(Importer& im, const NodeContext& ctx, size_t i, TensorType type, const Slot* from) {
  if (!CheckedNumElements(type.shape) || type.rank() > 64)
    return im.Error(ctx, "constant " + type.ToString() + " is too large");
  Slot slot;
  if (from) {
    std::optional<double> splat = from->splat;
    std::optional<ConstantBand> band = from->band;
    if (from->data && from->data->size() > 0) {
      const TensorData& d = *from->data;
      bool same = true;
      for (size_t k = 1; k < d.size() && same; ++k) same = d.AsDouble(k) == d.AsDouble(0);
      if (same) {
        splat = d.AsDouble(0);
      } else {
        std::vector<double> values(d.size());
        for (size_t k = 0; k < d.size(); ++k) values[k] = d.AsDouble(k);
        band = ConstantBandOf(values, from->type.shape);
      }
    }
    if (splat && !std::isnan(*splat)) slot.splat = CastValue(*splat, type.dtype);
    const Shape& was = from->type.shape;
    if (band && type.rank() >= 2 && was.size() >= 2 && type.shape[type.shape.size() - 2] == was[was.size() - 2] &&
        type.shape.back() == was.back()) {
      band->row_dim = type.rank() - 2;
      band->col_dim = type.rank() - 1;
      band->inside = CastValue(band->inside, type.dtype);
      band->outside = CastValue(band->outside, type.dtype);
      if (band->inside != band->outside) slot.band = band;
    }
  }
  slot.type = std::move(type);
  slot.pending_leaf = true;
  slot.leaf_role = pir::ValueRole::kConstant;
  slot.leaf_name = i < NumOutputs(*ctx.node) ? OutputName(*ctx.node, i) : ctx.op_name;
  return im.DefineSlot(ctx, i, std::move(slot));
}

namespace {

Status ConvertConstant(Importer& im, const NodeContext& ctx) {
  const ox::NodeProto& node = *ctx.node;
  if (const ox::AttributeProto* a = FindAttribute(node, "value"); a && a->has_t()) {
    const ox::TensorProto& t = a->t();
    auto dtype = PirDType(t.data_type());
    if (!dtype) return im.Error(ctx, "constant of unsupported element type " + std::to_string(t.data_type()));
    if (auto error = TensorDimsError(t)) return im.Error(ctx, *error);
    TensorType type{*dtype, Shape(t.dims().begin(), t.dims().end())};
    auto values = TensorValues(t);
    if (!values) {
      // Too large to fold: what its values are (one value, a band mask) is still read.
      ConstantPattern pattern = ReadConstantPattern(t);
      Slot known;
      known.type = type;
      known.splat = pattern.splat;
      known.band = pattern.band;
      return DefineOpaqueConstant(im, ctx, 0, type, &known);
    }
    return im.DefineConstant(ctx, 0, type, std::move(*values));
  }
  if (const ox::AttributeProto* a = FindAttribute(node, "value_float")) {
    TensorData d;
    d.is_float = true;
    d.floats = {a->f()};
    return im.DefineConstant(ctx, 0, {pir::DType::kF32, {}}, d);
  }
  if (const ox::AttributeProto* a = FindAttribute(node, "value_int"))
    return im.DefineConstant(ctx, 0, {pir::DType::kI64, {}}, TensorData::Ints({a->i()}));
  if (const ox::AttributeProto* a = FindAttribute(node, "value_ints")) {
    TensorType type{pir::DType::kI64, {a->ints_size()}};
    if (a->ints_size() > kMaxFoldElements) return DefineOpaqueConstant(im, ctx, 0, type);
    return im.DefineConstant(ctx, 0, type, TensorData::Ints({a->ints().begin(), a->ints().end()}));
  }
  if (const ox::AttributeProto* a = FindAttribute(node, "value_floats")) {
    TensorData d;
    d.is_float = true;
    d.floats.assign(a->floats().begin(), a->floats().end());
    TensorType type{pir::DType::kF32, {a->floats_size()}};
    if (a->floats_size() > kMaxFoldElements) return DefineOpaqueConstant(im, ctx, 0, type);
    return im.DefineConstant(ctx, 0, type, std::move(d));
  }
  return im.EmitCustom(ctx, "Constant without a supported value attribute");
}

Status ConvertShape(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  const Shape& shape = in->type.shape;
  if (ctx.node->op_type() == "Size") {
    auto n = CheckedNumElements(shape);
    if (!n) return im.Error(ctx, "Size of " + in->type.ToString() + " overflows");
    return im.DefineConstant(ctx, 0, {pir::DType::kI64, {}}, TensorData::Ints({*n}));
  }
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t start = AttrInt(*ctx.node, "start", 0), end = AttrInt(*ctx.node, "end", rank);
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  start = clamp(start);
  end = std::max(start, clamp(end));
  std::vector<int64_t> dims(shape.begin() + start, shape.begin() + end);
  return im.DefineConstant(ctx, 0, {pir::DType::kI64, {static_cast<int64_t>(dims.size())}}, TensorData::Ints(dims));
}

Status ConvertConstantOfShape(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(auto dims, ConstantInts(im, ctx, 0));
  Shape shape = dims.value_or(Shape{});
  auto n = CheckedNumElements(shape);
  if (!n || shape.size() > 64) return im.Error(ctx, "shape " + pir::ShapeString(shape) + " is invalid or too large");
  TensorData value;
  value.is_float = true;
  value.floats = {0.0};
  pir::DType dtype = pir::DType::kF32;
  if (const ox::AttributeProto* a = FindAttribute(*ctx.node, "value"); a && a->has_t()) {
    auto t = PirDType(a->t().data_type());
    if (!t) return im.Error(ctx, "unsupported element type");
    dtype = *t;
    if (auto values = TensorValues(a->t()); values && values->size() == 1) value = std::move(*values);
  }
  if (*n > kMaxFoldElements || value.size() != 1) {
    Slot one;  // the fill value, a splat of the result
    one.type = {dtype, {}};
    if (value.size() == 1) one.data = value;
    return DefineOpaqueConstant(im, ctx, 0, {dtype, shape}, value.size() == 1 ? &one : nullptr);
  }
  return im.DefineConstant(ctx, 0, {dtype, shape}, FoldBroadcast(value, {}, shape));
}

Status ConvertRange(Importer& im, const NodeContext& ctx) {
  Slot* in[3];
  for (size_t i = 0; i < 3; ++i) {
    AZ_ASSIGN_OR_RETURN(in[i], im.Input(ctx, i));
    if (!in[i]->data || in[i]->data->size() != 1) return im.Error(ctx, "Range needs constant scalar inputs");
  }
  double start = in[0]->data->AsDouble(0), limit = in[1]->data->AsDouble(0), delta = in[2]->data->AsDouble(0);
  if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
    return im.Error(ctx, "Range with a zero or non-finite step");
  }
  double count = std::max(0.0, std::ceil((limit - start) / delta));
  if (count > 1e15) return im.Error(ctx, "Range of more than 10^15 elements");
  TensorType type{in[0]->type.dtype, {static_cast<int64_t>(count)}};
  if (count > kMaxFoldElements) return DefineOpaqueConstant(im, ctx, 0, type);
  TensorData out;
  out.is_float = in[0]->data->is_float;
  for (int64_t k = 0; k < static_cast<int64_t>(count); ++k) {
    if (out.is_float)
      out.floats.push_back(start + static_cast<double>(k) * delta);
    else
      out.ints.push_back(static_cast<int64_t>(start) + k * static_cast<int64_t>(delta));
  }
  return im.DefineConstant(ctx, 0, type, std::move(out));
}

// The legacy exporter merges equal initializers (two fresh LayerNorm weights)
// into one and writes Identity(first) -> second: the second stays a parameter
// of its own (import.h).
Status ConvertIdentity(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  const std::string& out = (ctx.node->output_size() == 0) ? std::string() : OutputName(*ctx.node, 0);
  bool named_output = !out.empty() && out[0] != '/' && out.rfind("onnx::", 0) != 0;
  if (in->leaf_role == pir::ValueRole::kParameter && (in->pending_leaf || in->id >= 0) && named_output &&
      ctx.node->op_type() == "Identity") {
    Slot copy;
    copy.type = in->type;
    copy.pending_leaf = true;
    copy.leaf_role = pir::ValueRole::kParameter;
    copy.leaf_name = out;
    return im.DefineSlot(ctx, 0, std::move(copy));
  }
  return Alias(im, ctx, 0, in);
}

Status ConvertCast(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  auto to = PirDType(static_cast<int32_t>(AttrInt(*ctx.node, "to", 0)));
  if (!to) return im.Error(ctx, "Cast to unsupported element type " + std::to_string(AttrInt(*ctx.node, "to", 0)));
  if (in->data) {
    if (auto folded = FoldCast(*in->data, *to)) return im.DefineConstant(ctx, 0, {*to, in->type.shape}, *folded);
  }
  if (*to == in->type.dtype) return Alias(im, ctx, 0, in);
  if (in->pending_leaf && in->leaf_role == pir::ValueRole::kConstant) {
    return DefineOpaqueConstant(im, ctx, 0, {*to, in->type.shape}, in);
  }
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  pir::Attributes attrs;
  attrs.Set("dtype", std::string(pir::DTypeName(*to)));
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kConvert, {x}, attrs));
  return im.DefineValue(ctx, 0, r);
}

Status ConvertReshape(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  const Shape& from = in->type.shape;
  std::vector<int64_t> target;
  if (ctx.opset < 5 && !im.HasInput(ctx, 1)) {
    target = AttrInts(*ctx.node, "shape").value_or(std::vector<int64_t>{});
  } else {
    AZ_ASSIGN_OR_RETURN(auto ints, ConstantInts(im, ctx, 1));
    if (!ints) return im.Error(ctx, "Reshape has no shape input");
    target = std::move(*ints);
  }
  if (target.size() > 64) return im.Error(ctx, "Reshape to rank over 64");
  bool allowzero = AttrInt(*ctx.node, "allowzero", 0) != 0;
  int64_t infer = -1, known = 1;
  for (size_t d = 0; d < target.size(); ++d) {
    if (target[d] == 0 && !allowzero) {
      if (d >= from.size()) return im.Error(ctx, "Reshape copies dim " + std::to_string(d) + " the input lacks");
      target[d] = from[d];
    }
    if (target[d] == -1) {
      if (infer >= 0) return im.Error(ctx, "Reshape shape has two -1 entries");
      infer = static_cast<int64_t>(d);
      continue;
    }
    if (target[d] < 0) return im.Error(ctx, "Reshape shape has a negative entry " + std::to_string(target[d]));
    if (target[d] != 0 && known > (int64_t{1} << 62) / target[d]) return im.Error(ctx, "Reshape shape is too large");
    known *= target[d];
  }
  int64_t total = CheckedNumElements(from).value_or(-1);
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return im.Error(ctx, "cannot infer the -1 of Reshape " + in->type.ToString() + " to " + pir::ShapeString(target));
    }
    target[infer] = total / known;
  }
  return Reshaped(im, ctx, 0, in, target);
}

Status ConvertFlatten(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  int64_t rank = in->type.rank();
  int64_t axis = AttrInt(*ctx.node, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return im.Error(ctx, "Flatten axis out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= in->type.shape[d];
  return Reshaped(im, ctx, 0, in, {outer, inner});
}

Status ConvertSqueezeUnsqueeze(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  std::optional<std::vector<int64_t>> axes;
  if (ctx.opset < 13) {
    axes = AttrInts(*ctx.node, "axes");
  } else {
    AZ_ASSIGN_OR_RETURN(axes, ConstantInts(im, ctx, 1));
  }
  const Shape& from = in->type.shape;
  Shape shape;
  if (ctx.node->op_type() == "Unsqueeze") {
    if (!axes) return im.Error(ctx, "Unsqueeze needs axes");
    int64_t rank = static_cast<int64_t>(from.size() + axes->size());
    if (rank > 64) return im.Error(ctx, "Unsqueeze to rank over 64");
    std::vector<bool> inserted(static_cast<size_t>(rank), false);
    for (int64_t a : *axes) {
      AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, a, rank));
      if (inserted[axis]) return im.Error(ctx, "Unsqueeze repeats axis " + std::to_string(a));
      inserted[axis] = true;
    }
    size_t next = 0;
    for (int64_t d = 0; d < rank; ++d) shape.push_back(inserted[d] ? 1 : from[next++]);
    return Reshaped(im, ctx, 0, in, shape);
  }
  std::vector<bool> removed(from.size(), false);
  if (!axes || axes->empty()) {
    for (size_t d = 0; d < from.size(); ++d) removed[d] = from[d] == 1;
  } else {
    for (int64_t a : *axes) {
      AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, a, static_cast<int64_t>(from.size())));
      if (from[axis] != 1)
        return im.Error(ctx, "Squeeze of dim " + std::to_string(axis) + " of size " + std::to_string(from[axis]));
      removed[axis] = true;
    }
  }
  for (size_t d = 0; d < from.size(); ++d) {
    if (!removed[d]) shape.push_back(from[d]);
  }
  return Reshaped(im, ctx, 0, in, shape);
}

Status ConvertTranspose(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  int64_t rank = in->type.rank();
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) perm[d] = rank - 1 - d;
  if (auto p = AttrInts(*ctx.node, "perm")) perm = *p;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  if (static_cast<int64_t>(perm.size()) != rank) return im.Error(ctx, "Transpose perm has the wrong length");
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) return im.Error(ctx, "Transpose perm is not a permutation");
    seen[p] = true;
  }
  Shape shape;
  for (int64_t p : perm) shape.push_back(in->type.shape[p]);
  if (in->data)
    return im.DefineConstant(ctx, 0, {in->type.dtype, shape}, FoldTranspose(*in->data, in->type.shape, perm));
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) identity = identity && perm[d] == d;
  if (identity) return Alias(im, ctx, 0, in);
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  pir::Attributes attrs;
  attrs.Set("perm", perm);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kTranspose, {x}, attrs));
  return im.DefineValue(ctx, 0, r);
}

// One strided slice of `in`: per dim a start, a positive step and a size. A
// folded constant, `in` itself, or a PIR slice.
StatusOr<Slot> SliceSlot(Importer& im, const NodeContext& ctx, Slot* in, const std::vector<int64_t>& starts,
                         const std::vector<int64_t>& steps, const Shape& sizes, const std::string& suffix) {
  TensorType type{in->type.dtype, sizes};
  Slot out;
  out.type = type;
  if (in->data) {
    out.data = FoldSlice(*in->data, in->type.shape, starts, steps, sizes);
    return out;
  }
  if (sizes == in->type.shape) {
    AZ_RETURN_IF_ERROR(im.Materialize(ctx, *in).status());
    return *in;
  }
  if (in->pending_leaf && in->leaf_role == pir::ValueRole::kConstant) {
    out.pending_leaf = true;
    out.leaf_role = pir::ValueRole::kConstant;
    out.leaf_name = in->leaf_name + ".slice";
    out.splat = in->splat;
    // A band over the last two dims, sliced with unit steps there: element
    // (i', j') is (i' + start_i, j' + start_j), so the band shifts by
    // start_i - start_j; a limit past the slice's edge is no limit.
    const size_t rank = sizes.size();
    if (in->band && rank >= 2 && steps[rank - 2] == 1 && steps[rank - 1] == 1 && sizes[rank - 2] > 0 &&
        sizes[rank - 1] > 0) {
      ConstantBand band = *in->band;
      const int64_t shift = starts[rank - 2] - starts[rank - 1];
      constexpr int64_t kNone = ConstantBand::kNoBandLimit;
      if (band.lo != -kNone) band.lo = band.lo - shift <= -(sizes[rank - 1] - 1) ? -kNone : band.lo - shift;
      if (band.hi != kNone) band.hi = band.hi - shift >= sizes[rank - 2] - 1 ? kNone : band.hi - shift;
      out.band = band;
    }
    return out;
  }
  std::vector<int64_t> limits;
  for (size_t d = 0; d < sizes.size(); ++d) {
    limits.push_back(sizes[d] == 0 ? starts[d] : starts[d] + (sizes[d] - 1) * steps[d] + 1);
  }
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  pir::Attributes attrs;
  attrs.Set("start", starts);
  attrs.Set("limit", limits);
  if (std::any_of(steps.begin(), steps.end(), [](int64_t s) { return s != 1; })) attrs.Set("stride", steps);
  AZ_ASSIGN_OR_RETURN(out.id, im.Emit(ctx, OpKind::kSlice, {x}, attrs, {}, suffix));
  return out;
}

Status EmitSlice(Importer& im, const NodeContext& ctx, size_t out, Slot* in, const std::vector<int64_t>& starts,
                 const std::vector<int64_t>& steps, const Shape& sizes, const std::string& suffix) {
  if (!in->data && std::any_of(steps.begin(), steps.end(), [](int64_t s) { return s < 1; })) {
    return im.EmitCustom(ctx, "Slice with a negative step", 0, {{in->type.dtype, sizes}});
  }
  AZ_ASSIGN_OR_RETURN(Slot slot, SliceSlot(im, ctx, in, starts, steps, sizes, suffix));
  return im.DefineSlot(ctx, out, std::move(slot));
}

Status ConvertSlice(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  const Shape& shape = in->type.shape;
  int64_t rank = in->type.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset < 10) {
    starts = AttrInts(*ctx.node, "starts").value_or(std::vector<int64_t>{});
    ends = AttrInts(*ctx.node, "ends").value_or(std::vector<int64_t>{});
    axes = AttrInts(*ctx.node, "axes").value_or(std::vector<int64_t>{});
  } else {
    AZ_ASSIGN_OR_RETURN(auto s, ConstantInts(im, ctx, 1));
    AZ_ASSIGN_OR_RETURN(auto e, ConstantInts(im, ctx, 2));
    AZ_ASSIGN_OR_RETURN(auto a, ConstantInts(im, ctx, 3));
    AZ_ASSIGN_OR_RETURN(auto st, ConstantInts(im, ctx, 4));
    if (!s || !e) return im.Error(ctx, "Slice needs starts and ends");
    starts = *s;
    ends = *e;
    if (a) axes = *a;
    if (st) steps = *st;
  }
  if (axes.empty()) {
    for (size_t d = 0; d < starts.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return im.Error(ctx, "Slice starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> first(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
  Shape sizes = shape;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t k = 0; k < starts.size(); ++k) {
    AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, axes[k], rank));
    if (seen[axis]) return im.Error(ctx, "Slice repeats axis " + std::to_string(axes[k]));
    seen[axis] = true;
    int64_t dim = shape[axis], st = steps[k];
    if (st == 0) return im.Error(ctx, "Slice step is 0");
    int64_t s = starts[k] < 0 ? starts[k] + dim : starts[k];
    int64_t e = ends[k] < 0 ? ends[k] + dim : ends[k];
    int64_t size;
    if (st > 0) {
      s = std::clamp(s, int64_t{0}, dim);
      e = std::clamp(e, int64_t{0}, dim);
      size = e > s ? (e - s - 1) / st + 1 : 0;
    } else {
      s = std::clamp(s, int64_t{0}, dim - 1);
      e = std::clamp(e, int64_t{-1}, dim - 1);
      size = s > e ? (s - e - 1) / (-st) + 1 : 0;
    }
    first[axis] = size == 0 ? 0 : s;
    step[axis] = st;
    sizes[axis] = size;
  }
  return EmitSlice(im, ctx, 0, in, first, step, sizes, "");
}

Status ConvertSplit(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  int64_t rank = in->type.rank();
  AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, AttrInt(*ctx.node, "axis", 0), rank));
  int64_t dim = in->type.shape[axis];
  std::vector<int64_t> sizes;
  if (ctx.opset >= 13) {
    AZ_ASSIGN_OR_RETURN(auto s, ConstantInts(im, ctx, 1));
    if (s) sizes = *s;
  } else if (auto s = AttrInts(*ctx.node, "split")) {
    sizes = *s;
  }
  size_t outputs = NumOutputs(*ctx.node);
  if (sizes.empty()) {
    int64_t n = AttrInt(*ctx.node, "num_outputs", static_cast<int64_t>(outputs));
    if (n < 1 || static_cast<size_t>(n) != outputs) return im.Error(ctx, "Split into a number of outputs it lacks");
    int64_t chunk = (dim + n - 1) / n;  // opset 18: the last chunk may be smaller
    for (int64_t k = 0; k < n; ++k) sizes.push_back(std::max(int64_t{0}, std::min(chunk, dim - k * chunk)));
  }
  if (sizes.size() != outputs)
    return im.Error(ctx,
                    "Split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(outputs) + " outputs");
  int64_t offset = 0;
  for (size_t k = 0; k < outputs; ++k) {
    if (sizes[k] < 0 || sizes[k] > dim - offset)
      return im.Error(ctx, "Split sizes exceed the dim " + std::to_string(dim));
    std::vector<int64_t> starts(static_cast<size_t>(rank), 0), steps(static_cast<size_t>(rank), 1);
    Shape shape = in->type.shape;
    starts[axis] = offset;
    shape[axis] = sizes[k];
    AZ_RETURN_IF_ERROR(EmitSlice(im, ctx, k, in, starts, steps, shape, "." + std::to_string(k)));
    offset += sizes[k];
  }
  if (offset != dim)
    return im.Error(ctx, "Split sizes sum to " + std::to_string(offset) + ", not " + std::to_string(dim));
  return Status::Ok();
}

Status ConvertConcat(Importer& im, const NodeContext& ctx) {
  std::vector<Slot*> ins;
  for (size_t i = 0; i < NumInputs(*ctx.node); ++i) {
    AZ_ASSIGN_OR_RETURN(Slot * s, im.Input(ctx, i));
    ins.push_back(s);
  }
  if (ins.empty()) return im.Error(ctx, "Concat of nothing");
  int64_t rank = ins[0]->type.rank();
  AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, AttrInt(*ctx.node, "axis", 0), rank));
  Shape shape = ins[0]->type.shape;
  shape[axis] = 0;
  bool all_data = true;
  std::vector<const TensorData*> data;
  std::vector<Shape> shapes;
  for (Slot* s : ins) {
    if (s->type.rank() != rank) return im.Error(ctx, "Concat inputs differ in rank");
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && s->type.shape[d] != shape[d]) return im.Error(ctx, "Concat inputs differ outside the axis");
    }
    shape[axis] += s->type.shape[axis];
    all_data = all_data && s->data.has_value();
    data.push_back(s->data ? &*s->data : nullptr);
    shapes.push_back(s->type.shape);
  }
  if (all_data && CheckedNumElements(shape).value_or(kMaxFoldElements + 1) <= kMaxFoldElements) {
    return im.DefineConstant(ctx, 0, {ins[0]->type.dtype, shape}, FoldConcat(data, shapes, axis));
  }
  std::vector<pir::ValueId> operands;
  for (Slot* s : ins) {
    if (s->type.shape[axis] == 0 && ins.size() > 1) continue;  // contributes nothing
    AZ_ASSIGN_OR_RETURN(pir::ValueId v, im.Materialize(ctx, *s));
    operands.push_back(v);
  }
  if (operands.size() == 1) return im.DefineValue(ctx, 0, operands[0]);
  pir::Attributes attrs;
  attrs.Set("axis", axis);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kConcat, operands, attrs));
  return im.DefineValue(ctx, 0, r);
}

// Output 0 is `in` with every position of dim `axis` repeated `times` times in
// place (repeat_interleave): [.., n, ..] -> [.., n, 1, ..] -> [.., n, times, ..]
// -> [.., n * times, ..].
Status RepeatEach(Importer& im, const NodeContext& ctx, Slot* in, int64_t axis, int64_t times) {
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  Shape unit = in->type.shape;
  unit.insert(unit.begin() + axis + 1, 1);
  Shape wide = unit;
  wide[static_cast<size_t>(axis) + 1] = times;
  Shape merged = in->type.shape;
  merged[static_cast<size_t>(axis)] *= times;
  if (!CheckedNumElements(wide)) return im.Error(ctx, "the repeated tensor is too large");
  pir::Attributes to_unit, to_wide, to_merged;
  to_unit.Set("shape", unit);
  AZ_ASSIGN_OR_RETURN(pir::ValueId u, im.Emit(ctx, OpKind::kReshape, {x}, to_unit, {}, ".unsqueeze"));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < static_cast<int64_t>(wide.size()); ++d) dims.push_back(d);
  to_wide.Set("shape", wide);
  to_wide.Set("dims", dims);
  AZ_ASSIGN_OR_RETURN(pir::ValueId w, im.Emit(ctx, OpKind::kBroadcast, {u}, to_wide, {}, ".repeat"));
  to_merged.Set("shape", merged);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kReshape, {w}, to_merged));
  return im.DefineValue(ctx, 0, r);
}

// Tile(x, repeats): where every repeated dim has size 1, a broadcast (x[:, :,
// None].repeat(1, 1, G, 1, 1), repeat_kv's Tile form); otherwise each repeated
// dim d gets a copy dim before it: [.., s_d, ..] -> [.., 1, s_d, ..] ->
// [.., r_d, s_d, ..] -> [.., r_d * s_d, ..] (the whole tensor r_d times).
Status ConvertTile(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  AZ_ASSIGN_OR_RETURN(auto repeats, ConstantInts(im, ctx, 1));
  const Shape& from = in->type.shape;
  if (!repeats || repeats->size() != from.size()) return im.Error(ctx, "Tile needs constant repeats, one per dim");
  Shape out = from, unit, wide;
  std::vector<int64_t> dims;
  bool units_only = true;
  for (size_t d = 0; d < from.size(); ++d) {
    const int64_t r = (*repeats)[d];
    if (r < 0) return im.Error(ctx, "Tile with a negative repeat");
    if (r != 1) {
      units_only = units_only && from[d] == 1;
      unit.push_back(1);
      wide.push_back(r);
    }
    out[d] = from[d] * r;
    unit.push_back(from[d]);
    wide.push_back(from[d]);
  }
  if (!CheckedNumElements(out) || !CheckedNumElements(wide)) return im.Error(ctx, "Tile result is too large");
  if (out == from) return Alias(im, ctx, 0, in);
  if (in->data || (in->pending_leaf && in->leaf_role == pir::ValueRole::kConstant)) {
    return DefineOpaqueConstant(im, ctx, 0, {in->type.dtype, out}, units_only ? in : nullptr);
  }
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  pir::Attributes attrs;
  if (units_only) {
    for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) dims.push_back(d);
    attrs.Set("shape", out);
    attrs.Set("dims", dims);
    AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kBroadcast, {x}, attrs));
    return im.DefineValue(ctx, 0, r);
  }
  pir::Attributes to_unit;
  to_unit.Set("shape", unit);
  AZ_ASSIGN_OR_RETURN(pir::ValueId u, im.Emit(ctx, OpKind::kReshape, {x}, to_unit, {}, ".copies"));
  for (int64_t d = 0; d < static_cast<int64_t>(wide.size()); ++d) dims.push_back(d);
  attrs.Set("shape", wide);
  attrs.Set("dims", dims);
  AZ_ASSIGN_OR_RETURN(pir::ValueId w, im.Emit(ctx, OpKind::kBroadcast, {u}, attrs, {}, ".repeat"));
  pir::Attributes to_out;
  to_out.Set("shape", out);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kReshape, {w}, to_out));
  return im.DefineValue(ctx, 0, r);
}

Status ConvertGather(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * data, im.Input(ctx, 0));
  AZ_ASSIGN_OR_RETURN(Slot * indices, im.Input(ctx, 1));
  int64_t rank = data->type.rank();
  AZ_ASSIGN_OR_RETURN(int64_t axis, Axis(im, ctx, AttrInt(*ctx.node, "axis", 0), rank));
  Shape shape(data->type.shape.begin(), data->type.shape.begin() + axis);
  shape.insert(shape.end(), indices->type.shape.begin(), indices->type.shape.end());
  shape.insert(shape.end(), data->type.shape.begin() + axis + 1, data->type.shape.end());
  if (data->data && indices->data) {
    if (auto folded = FoldGather(*data->data, data->type.shape, *indices->data, axis)) {
      return im.DefineConstant(ctx, 0, {data->type.dtype, shape}, std::move(*folded));
    }
    // Out of range or too large to fold: imported as an op below.
  }
  // A constant index picking one position (x[:, 3], the q of an unbound qkv): a slice.
  if (indices->data && indices->data->size() == 1) {
    int64_t dim = data->type.shape[axis];
    auto index = indices->data->AsInt(0);
    if (!index || *index < -dim || *index >= dim) return im.Error(ctx, "Gather index out of range");
    std::vector<int64_t> starts(static_cast<size_t>(rank), 0), steps(static_cast<size_t>(rank), 1);
    starts[axis] = *index < 0 ? *index + dim : *index;
    Shape sliced = data->type.shape;
    sliced[axis] = 1;
    AZ_ASSIGN_OR_RETURN(Slot slot, SliceSlot(im, ctx, data, starts, steps, sliced, ".slice"));
    return Reshaped(im, ctx, 0, &slot, shape);
  }
  // Constant indices [0 x G, 1 x G, .., n-1 x G] along a dim of size n:
  // repeat_interleave(G) (grouped-query K/V heads), a reshape -> broadcast ->
  // reshape that the attention fold reads as K/V heads shared by G queries.
  if (indices->data && indices->type.rank() == 1 && !data->data) {
    const int64_t n = data->type.shape[axis], total = static_cast<int64_t>(indices->data->size());
    bool interleave = n > 0 && total > n && total % n == 0;
    for (int64_t at = 0; interleave && at < total; ++at) {
      auto index = indices->data->AsInt(static_cast<size_t>(at));
      interleave = index && (*index < 0 ? *index + n : *index) == at / (total / n);
    }
    if (interleave) return RepeatEach(im, ctx, data, axis, total / n);
  }
  if (axis == 0 && !pir::IsFloat(indices->type.dtype)) {
    AZ_ASSIGN_OR_RETURN(pir::ValueId table, im.Materialize(ctx, *data));
    AZ_ASSIGN_OR_RETURN(pir::ValueId idx, im.Materialize(ctx, *indices));
    AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kGather, {table, idx}));
    return im.DefineValue(ctx, 0, r);
  }
  return im.EmitCustom(ctx, "Gather on axis " + std::to_string(axis) + " with computed indices", 0,
                       {{data->type.dtype, shape}});
}

Status ConvertExpand(Importer& im, const NodeContext& ctx) {
  AZ_ASSIGN_OR_RETURN(Slot * in, im.Input(ctx, 0));
  AZ_ASSIGN_OR_RETURN(auto target, ConstantInts(im, ctx, 1));
  if (!target) return im.Error(ctx, "Expand needs a shape");
  auto shape = BroadcastShapes({in->type.shape, *target});
  if (!shape || shape->size() > 64)
    return im.Error(ctx,
                    "Expand of " + in->type.ToString() + " to " + pir::ShapeString(*target) + " does not broadcast");
  if (!CheckedNumElements(*shape)) return im.Error(ctx, "Expand result is too large");
  if (*shape == in->type.shape) return Alias(im, ctx, 0, in);
  TensorType type{in->type.dtype, *shape};
  if (in->data) {
    if (*CheckedNumElements(*shape) <= kMaxFoldElements) {
      return im.DefineConstant(ctx, 0, type, FoldBroadcast(*in->data, in->type.shape, *shape));
    }
    return DefineOpaqueConstant(im, ctx, 0, type, in);
  }
  if (in->pending_leaf && in->leaf_role == pir::ValueRole::kConstant) return DefineOpaqueConstant(im, ctx, 0, type, in);
  AZ_ASSIGN_OR_RETURN(pir::ValueId x, im.Materialize(ctx, *in));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < in->type.rank(); ++d)
    dims.push_back(static_cast<int64_t>(shape->size()) - in->type.rank() + d);
  pir::Attributes attrs;
  attrs.Set("shape", *shape);
  attrs.Set("dims", dims);
  AZ_ASSIGN_OR_RETURN(pir::ValueId r, im.Emit(ctx, OpKind::kBroadcast, {x}, attrs));
  return im.DefineValue(ctx, 0, r);
}

}  // namespace

Status ConvertLayoutNode(Importer& im, const NodeContext& ctx, bool* handled) {
  using Converter = Status (*)(Importer&, const NodeContext&);
  static const std::pair<const char*, Converter> kTable[] = {
      {"Constant", ConvertConstant},
      {"Shape", ConvertShape},
      {"Size", ConvertShape},
      {"ConstantOfShape", ConvertConstantOfShape},
      {"Range", ConvertRange},
      {"Identity", ConvertIdentity},
      {"Dropout", ConvertIdentity},
      {"Cast", ConvertCast},
      {"Reshape", ConvertReshape},
      {"Flatten", ConvertFlatten},
      {"Unsqueeze", ConvertSqueezeUnsqueeze},
      {"Squeeze", ConvertSqueezeUnsqueeze},
      {"Transpose", ConvertTranspose},
      {"Slice", ConvertSlice},
      {"Split", ConvertSplit},
      {"Concat", ConvertConcat},
      {"Gather", ConvertGather},
      {"Expand", ConvertExpand},
      {"Tile", ConvertTile},
  };
  *handled = false;
  for (const auto& [name, fn] : kTable) {
    if (ctx.node->op_type() == name) {
      *handled = true;
      return fn(im, ctx);
    }
  }
  return Status::Ok();
}

}  // namespace az::frontend::onnx
