// Element-wise ops, norms, RoPE, softmax and broadcast.
#include <algorithm>

#include "pir/rules/families.h"

namespace az::pir {

namespace {
std::vector<int> Dim(int factor, int64_t size) { return size == 1 ? std::vector<int>{} : std::vector<int>{factor}; }
}  // namespace

// ---------------------------------------------------------------- norms
// layer_norm / rms_norm: x [..., D, ...], optional weight [D] and (layer_norm)
// bias [D]; normalized over D, the dim `axis` names (default -1: Wan's VAE
// normalizes its channel-first activations over axis 1).
// group_norm: x [B, C, spatial...], optional weight [C] and bias [C]; the
// statistics of each sample's group of C / groups channels span the group's
// channels and every spatial position (torch.nn.GroupNorm).

std::optional<int64_t> NormAxis(const Attributes& attrs, int64_t rank) {
  return NormalizeAxis(attrs.GetInt("axis").value_or(-1), rank);
}

namespace {

Status CheckGroupNorm(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  if (x.rank() < 2) return InvalidArgument("group_norm takes x [batch, channels, spatial...], got " + x.ToString());
  auto groups = ctx.attrs.GetInt("groups");
  if (!groups || *groups < 1) return InvalidArgument("group_norm needs a positive integer attribute 'groups'");
  if (x.shape[1] % *groups != 0) {
    return InvalidArgument("group_norm: " + std::to_string(x.shape[1]) + " channels do not split into " +
                           std::to_string(*groups) + " groups");
  }
  return Status::Ok();
}

}  // namespace

TypesOr InferNorm(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  if (x.rank() < 1) return InvalidArgument("a norm needs an operand of rank >= 1");
  if (ctx.kind == OpKind::kRmsNorm && ctx.operands.size() > 2) return InvalidArgument("rms_norm takes at most 2 operands");
  int64_t d = 0;
  if (ctx.kind == OpKind::kGroupNorm) {
    AZ_RETURN_IF_ERROR(CheckGroupNorm(ctx));
    d = x.shape[1];
  } else {
    auto axis = NormAxis(ctx.attrs, x.rank());
    if (!axis) return InvalidArgument("norm axis out of range for " + x.ToString());
    d = x.shape[static_cast<size_t>(*axis)];
  }
  for (size_t i = 1; i < ctx.operands.size(); ++i) {
    if (ctx.operands[i].shape != Shape{d}) {
      return InvalidArgument("norm weight/bias must be [" + std::to_string(d) + "], got " +
                             ctx.operands[i].ToString());
    }
  }
  if (auto eps = ctx.attrs.GetFloat("eps"); eps && !(*eps >= 0)) return InvalidArgument("norm eps must be >= 0");
  return std::vector<TensorType>{x};
}

StatusOr<FactorRule> RuleNorm(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  FactorRuleBuilder b;
  TensorFactors dims;
  std::vector<int> affine;  // the factors of the weight's (and bias's) one dim
  if (ctx.kind == OpKind::kGroupNorm) {
    AZ_RETURN_IF_ERROR(CheckGroupNorm(ctx));
    // C = groups x channels-per-group, major to minor. Groups pass through; a
    // group's channels and the spatial dims are normalized: sharded, the
    // per-group sums are all-reduced (rule.h, StatisticsOf).
    const int64_t groups = *ctx.attrs.GetInt("groups");
    dims.push_back(Dim(b.AddFactor("b", x.shape[0]), x.shape[0]));
    const int64_t per_group = x.shape[1] / groups;
    int group = b.AddFactor("g", groups);
    int channel = b.AddFactor("c", per_group, FactorKind::kNormalized);
    if (groups > 1) affine.push_back(group);
    if (per_group > 1) affine.push_back(channel);
    dims.push_back(affine);
    for (int64_t i = 2; i < x.rank(); ++i) {
      dims.push_back(Dim(b.AddFactor("s" + std::to_string(i - 2), x.shape[i], FactorKind::kNormalized), x.shape[i]));
    }
  } else {
    // Sharded, the normalized dim costs an all-reduce of the row statistics (rule.h).
    const int64_t axis = NormAxis(ctx.attrs, x.rank()).value_or(x.rank() - 1);
    for (int64_t i = 0; i < x.rank(); ++i) {
      if (i == axis) {
        int norm = b.AddFactor("n", x.shape[i], FactorKind::kNormalized);
        affine = Dim(norm, x.shape[i]);
        dims.push_back(affine);
      } else {
        dims.push_back(Dim(b.AddFactor("d" + std::to_string(i), x.shape[i]), x.shape[i]));
      }
    }
  }
  b.Operand(dims);
  for (size_t i = 1; i < ctx.operands.size(); ++i) b.Operand({affine});
  b.Result(dims);
  return b.Build();
}

// ---------------------------------------------------------------- unary / binary

TypesOr InferUnary(const OpContext& ctx) {
  TensorType result = ctx.operands[0];
  if (ctx.kind == OpKind::kConvert) {
    auto name = ctx.attrs.GetString("dtype");
    if (!name) return InvalidArgument("convert needs a string attribute 'dtype'");
    auto dtype = ParseDType(*name);
    if (!dtype) return InvalidArgument("convert to unknown dtype '" + *name + "'");
    result.dtype = *dtype;
  }
  return std::vector<TensorType>{result};
}

TypesOr InferBinary(const OpContext& ctx) {
  int64_t rank = 0;
  for (const TensorType& t : ctx.operands) rank = std::max(rank, t.rank());
  Shape shape(static_cast<size_t>(rank), 1);
  for (const TensorType& t : ctx.operands) {
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = i < rank - t.rank() ? 1 : t.shape[i - (rank - t.rank())];
      if (d != shape[i] && d != 1 && shape[i] != 1) {
        std::string list;
        for (const TensorType& u : ctx.operands) list += (list.empty() ? "" : " and ") + u.ToString();
        return InvalidArgument("shapes " + list + " do not broadcast");
      }
      shape[i] = std::max(shape[i], d);
    }
  }
  if (ctx.kind == OpKind::kCompare) {
    static const char* kDirections[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    std::string dir = ctx.attrs.GetString("direction").value_or("");
    if (std::find(std::begin(kDirections), std::end(kDirections), dir) == std::end(kDirections)) {
      return InvalidArgument("compare needs a string attribute 'direction' (EQ, NE, LT, LE, GT or GE)");
    }
    return std::vector<TensorType>{{DType::kBool, shape}};
  }
  if (ctx.kind == OpKind::kWhere) {
    if (ctx.operands[0].dtype != DType::kBool) {
      return InvalidArgument("where's condition must be bool, got " + ctx.operands[0].ToString());
    }
    return std::vector<TensorType>{{PromoteTypes(ctx.operands[1].dtype, ctx.operands[2].dtype), shape}};
  }
  return std::vector<TensorType>{{PromoteTypes(ctx.operands[0].dtype, ctx.operands[1].dtype), shape}};
}

// One pass-through factor per result dim; operand dims broadcast from 1 map to none.
StatusOr<FactorRule> RuleElementwise(const OpContext& ctx) {
  const TensorType& r = ctx.results[0];
  FactorRuleBuilder b;
  std::vector<int> factor;
  for (int64_t i = 0; i < r.rank(); ++i) factor.push_back(b.AddFactor("d" + std::to_string(i), r.shape[i]));
  for (const TensorType& t : ctx.operands) {
    TensorFactors dims;
    int64_t offset = r.rank() - t.rank();
    for (int64_t i = 0; i < t.rank(); ++i) dims.push_back(Dim(factor[i + offset], t.shape[i]));
    b.Operand(dims);
  }
  TensorFactors out;
  for (int64_t i = 0; i < r.rank(); ++i) out.push_back(Dim(factor[i], r.shape[i]));
  b.Result(out);
  return b.Build();
}

// ---------------------------------------------------------------- rope
// x [B, L, H, D], table [L, D] (cos/sin per position): rotates pairs within D.
// attr inverse = true rotates by the negated angles: the transpose of the
// rotation, so rope's backward is rope (src/pir/grad).

TypesOr InferRope(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  const TensorType& table = ctx.operands[1];
  if (x.rank() != 4) return InvalidArgument("rope takes x [batch, seq, heads, head_dim], got " + x.ToString());
  if (x.shape[3] % 2 != 0) return InvalidArgument("rope head_dim must be even");
  if (table.shape != Shape{x.shape[1], x.shape[3]}) {
    return InvalidArgument("rope table must be [" + std::to_string(x.shape[1]) + "," + std::to_string(x.shape[3]) +
                           "], got " + table.ToString());
  }
  if (auto sections = ctx.attrs.GetInts("sections")) {
    int64_t sum = 0;
    for (int64_t s : *sections) sum += s;
    if (sum != x.shape[3]) return InvalidArgument("rope sections must add up to the head dim");
  }
  return std::vector<TensorType>{x};
}

StatusOr<FactorRule> RuleRope(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  FactorRuleBuilder b;
  int batch = b.AddFactor("b", x.shape[0]);
  int seq = b.AddFactor("l", x.shape[1]);
  int heads = b.AddFactor("h", x.shape[2]);
  int dim = b.AddFactor("d", x.shape[3], FactorKind::kNeedReplication);
  TensorFactors dims{Dim(batch, x.shape[0]), Dim(seq, x.shape[1]), Dim(heads, x.shape[2]), Dim(dim, x.shape[3])};
  b.Operand(dims).Operand({Dim(seq, x.shape[1]), Dim(dim, x.shape[3])}).Result(dims);
  return b.Build();
}

// ---------------------------------------------------------------- softmax

TypesOr InferSoftmax(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  if (!NormalizeAxis(ctx.attrs.GetInt("axis").value_or(-1), x.rank())) return InvalidArgument("softmax axis out of range");
  return std::vector<TensorType>{x};
}

StatusOr<FactorRule> RuleSoftmax(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  int64_t axis = NormalizeAxis(ctx.attrs.GetInt("axis").value_or(-1), x.rank()).value_or(0);
  FactorRuleBuilder b;
  TensorFactors dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    FactorKind kind = i == axis ? FactorKind::kNormalized : FactorKind::kPassThrough;
    dims.push_back(Dim(b.AddFactor("d" + std::to_string(i), x.shape[i], kind), x.shape[i]));
  }
  b.Operand(dims).Result(dims);
  return b.Build();
}

// ---------------------------------------------------------------- broadcast
// attrs: shape (the result shape), dims (the result dim of each operand dim).

TypesOr InferBroadcast(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  auto shape = ctx.attrs.GetInts("shape");
  auto dims = ctx.attrs.GetInts("dims");
  if (!shape || !dims) return InvalidArgument("broadcast needs 'shape' and 'dims'");
  if (static_cast<int64_t>(dims->size()) != x.rank()) return InvalidArgument("broadcast 'dims' needs one entry per operand dim");
  int64_t previous = -1;
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t d = (*dims)[i];
    if (d < 0 || d >= static_cast<int64_t>(shape->size()) || d <= previous) {
      return InvalidArgument("broadcast 'dims' must be increasing result dims");
    }
    previous = d;
    if (x.shape[i] != 1 && x.shape[i] != (*shape)[d]) return InvalidArgument("broadcast of a dim that is not 1");
  }
  for (int64_t s : *shape) {
    if (s < 0) return InvalidArgument("broadcast shape has a negative dim");
  }
  return std::vector<TensorType>{{x.dtype, *shape}};
}

StatusOr<FactorRule> RuleBroadcast(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  const TensorType& r = ctx.results[0];
  auto dims = ctx.attrs.GetInts("dims").value_or(std::vector<int64_t>{});
  FactorRuleBuilder b;
  std::vector<int> factor;
  for (int64_t i = 0; i < r.rank(); ++i) factor.push_back(b.AddFactor("d" + std::to_string(i), r.shape[i]));
  TensorFactors in;
  for (int64_t i = 0; i < x.rank(); ++i) in.push_back(Dim(factor[dims[i]], x.shape[i]));
  TensorFactors out;
  for (int64_t i = 0; i < r.rank(); ++i) out.push_back(Dim(factor[i], r.shape[i]));
  b.Operand(in).Result(out);
  return b.Build();
}

}  // namespace az::pir
