// Backward of the layout ops and reduce (forward rules:
// src/pir/rules/layout.cc): each is the transposed data movement, with no
// FLOPs but a slice's zeros and a reduce's broadcast.
#include <algorithm>

#include "pir/grad/rules.h"
#include "pir/rules/rule.h"

namespace az::pir::grad {

StatusOr<Grads> BackwardReshape(BackwardContext& ctx) {
  return Grads{ctx.b.Reshape(ctx.Name("x"), ctx.Grad(), ctx.OperandType(0).shape)};
}

StatusOr<Grads> BackwardTranspose(BackwardContext& ctx) {
  auto perm = ctx.op.attrs.GetInts("perm").value_or(std::vector<int64_t>{});
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return Grads{ctx.b.Transpose(ctx.Name("x"), ctx.Grad(), std::move(inverse))};
}

// Each operand's gradient is its slice of dy along the concat axis.
StatusOr<Grads> BackwardConcat(BackwardContext& ctx) {
  const int64_t axis = NormalizeAxis(ctx.op.attrs.GetInt("axis").value_or(0), ctx.ResultType().rank()).value_or(0);
  Grads grads(ctx.op.operands.size(), kNoValue);
  int64_t offset = 0;
  for (size_t i = 0; i < ctx.op.operands.size(); ++i) {
    const int64_t size = ctx.OperandType(i).shape[static_cast<size_t>(axis)];
    if (ctx.Needs(i)) grads[i] = ctx.b.SliceAxis(ctx.Name(std::to_string(i)), ctx.Grad(), axis, offset, offset + size);
    offset += size;
  }
  return grads;
}

// dy padded back to the operand's shape with zeros, one sliced dim at a time:
// concat(zeros before, dy, zeros after) along it.
StatusOr<Grads> BackwardSlice(BackwardContext& ctx) {
  const Shape x = ctx.OperandType(0).shape;
  auto start = ctx.op.attrs.GetInts("start").value_or(std::vector<int64_t>{});
  auto limit = ctx.op.attrs.GetInts("limit").value_or(std::vector<int64_t>{});
  auto stride = ctx.op.attrs.GetInts("stride").value_or(std::vector<int64_t>(x.size(), 1));
  ValueId grad = ctx.Grad();
  const DType dtype = ctx.b.type(grad).dtype;
  for (size_t d = 0; d < x.size(); ++d) {
    if (stride[d] != 1) return Unimplemented("'" + ctx.op.name + "': the gradient of a strided slice");
    if (start[d] == 0 && limit[d] == x[d]) continue;
    const std::string dim = std::to_string(d);
    std::vector<ValueId> parts;
    Shape pad = ctx.b.type(grad).shape;
    if (start[d] > 0) {
      pad[d] = start[d];
      parts.push_back(ctx.b.Full(ctx.Name("zeros_before" + dim), dtype, pad, 0));
    }
    parts.push_back(grad);
    if (limit[d] < x[d]) {
      pad[d] = x[d] - limit[d];
      parts.push_back(ctx.b.Full(ctx.Name("zeros_after" + dim), dtype, pad, 0));
    }
    grad = ctx.b.Concat(ctx.Name("pad" + dim), std::move(parts), static_cast<int64_t>(d));
  }
  return Grads{grad};
}

// sum: dy broadcast back over the reduced dims; mean: also divided by their
// count; max: shared by the elements equal to the maximum.
StatusOr<Grads> BackwardReduce(BackwardContext& ctx) {
  const TensorType x = ctx.OperandType(0);
  auto dims = ctx.op.attrs.GetInts("dims").value_or(std::vector<int64_t>{});
  const std::string kind = ctx.op.attrs.GetString("kind").value_or("sum");
  std::vector<int64_t> kept;
  int64_t count = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      kept.push_back(d);
    } else {
      count *= x.shape[static_cast<size_t>(d)];
    }
  }
  GraphBuilder& b = ctx.b;
  const DType dt = ctx.ResultType().dtype;
  ValueId spread = b.Broadcast(ctx.Name("broadcast"), ctx.Grad(), x.shape, kept);
  if (kind == "sum") return Grads{spread};
  if (kind == "mean") {
    return Grads{
        b.Binary(OpKind::kMul, ctx.Name("x"), spread, ctx.Scalar("inv_count", 1.0 / static_cast<double>(count), dt))};
  }
  Attributes eq;
  eq.Set("direction", std::string("EQ"));
  ValueId max = b.Broadcast(ctx.Name("max.broadcast"), ctx.Result(0), x.shape, kept);
  ValueId hit =
      b.Convert(ctx.Name("hit"), b.AddOp1(OpKind::kCompare, ctx.Name("is_max"), {ctx.Operand(0), max}, eq), dt);
  ValueId ties = b.Broadcast(ctx.Name("ties.broadcast"), b.Reduce(ctx.Name("ties"), hit, dims, "sum"), x.shape, kept);
  return Grads{b.Binary(OpKind::kDiv, ctx.Name("x"), b.Binary(OpKind::kMul, ctx.Name("share"), spread, hit), ties)};
}

std::vector<ValueId> ReadsReduce(const Graph&, const Op& op, const std::vector<bool>&) {
  if (op.attrs.GetString("kind").value_or("sum") != "max") return {};
  return {op.operands[0], op.results[0]};
}

StatusOr<Grads> BackwardNone(BackwardContext& ctx) {
  switch (GetOpKindInfo(ctx.op.kind).family) {
    case OpFamily::kGather:
      return Unimplemented("'" + ctx.op.name + "': the gradient of a gather table (a scatter-add, which PIR lacks)");
    case OpFamily::kResize:
      // The backward would sum each block of copies (a reshape and a reduce),
      // or for pad the edge rows' copies into the edge; no training step
      // upsamples or pads yet (only VAEs, which run in inference).
      return Unimplemented("'" + ctx.op.name + "': " + std::string(GetOpKindInfo(ctx.op.kind).name) +
                           " has no backward yet");
    case OpFamily::kCustom:
      return Unimplemented("'" + ctx.op.name + "': custom op '" + ctx.op.attrs.GetString("target").value_or("") +
                           "' has no backward");
    default:
      return Unimplemented("'" + ctx.op.name + "': " + std::string(OpKindName(ctx.op.kind)) +
                           " has no backward (a backward kernel is not differentiated again)");
  }
}

std::vector<ValueId> ReadsNothing(const Graph&, const Op&, const std::vector<bool>&) { return {}; }

}  // namespace az::pir::grad
