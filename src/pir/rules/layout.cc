// Layout ops (reshape, transpose, concat, slice, broadcast), reduce, gather,
// custom and full.
#include <numeric>
#include <set>

#include "pir/rules/families.h"
#include "support/checked_math.h"

namespace az::pir {

namespace {
std::vector<int> Dim(int factor, int64_t size) { return size == 1 ? std::vector<int>{} : std::vector<int>{factor}; }
}  // namespace

// ---------------------------------------------------------------- reshape

TypesOr InferReshape(const OpContext& ctx) {
  auto shape = ctx.attrs.GetInts("shape");
  if (!shape) return InvalidArgument("reshape needs an integer list attribute 'shape'");
  auto in = CheckedProduct(ctx.operands[0].shape);
  auto out = CheckedProduct(*shape);
  if (!in || !out) return InvalidArgument("reshape shape is negative or too large");
  if (*in != *out) {
    return InvalidArgument("reshape of " + ctx.operands[0].ToString() + " (" + std::to_string(*in) +
                           " elements) to " + ShapeString(*shape) + " (" + std::to_string(*out) + " elements)");
  }
  return std::vector<TensorType>{{ctx.operands[0].dtype, *shape}};
}

// Shardy's factor decomposition, in a conservative form. Walk both shapes from
// the major end while the remaining products agree. When the two current dims
// share a divisor g, the major g of each is the same index range of the flat
// array (the rest of the group has the same size on both sides), so it is one
// shared factor. When they share none, the sides diverge: every sub-dim gets a
// factor of its own until the running products agree again. (Shardy also finds
// a shared *minor* factor inside a diverged group, e.g. 6x4 -> 4x6; we do not.)
StatusOr<FactorRule> RuleReshape(const OpContext& ctx) {
  const Shape& in = ctx.operands[0].shape;
  const Shape& out = ctx.results[0].shape;
  FactorRuleBuilder b;
  TensorFactors in_dims(in.size()), out_dims(out.size());
  size_t i = 0, j = 0;
  int64_t ri = in.empty() ? 1 : in[0];
  int64_t rj = out.empty() ? 1 : out[0];
  int counter = 0;
  auto name = [&] { return "r" + std::to_string(counter++); };
  auto next_in = [&] {
    ++i;
    ri = i < in.size() ? in[i] : 1;
  };
  auto next_out = [&] {
    ++j;
    rj = j < out.size() ? out[j] : 1;
  };
  while (i < in.size() && j < out.size()) {
    if (ri == 1) {
      next_in();
      continue;
    }
    if (rj == 1) {
      next_out();
      continue;
    }
    int64_t g = std::gcd(ri, rj);
    if (g > 1) {
      int f = b.AddFactor(name(), g);
      in_dims[i].push_back(f);
      out_dims[j].push_back(f);
      ri /= g;
      rj /= g;
      continue;
    }
    // Diverged: own factors on each side until the products meet.
    int64_t pin = ri, pout = rj;
    in_dims[i].push_back(b.AddFactor(name(), ri));
    out_dims[j].push_back(b.AddFactor(name(), rj));
    next_in();
    next_out();
    while (pin != pout) {
      if (pin < pout) {
        AZ_CHECK(i < in.size());
        if (ri > 1) in_dims[i].push_back(b.AddFactor(name(), ri));
        pin *= ri;
        next_in();
      } else {
        AZ_CHECK(j < out.size());
        if (rj > 1) out_dims[j].push_back(b.AddFactor(name(), rj));
        pout *= rj;
        next_out();
      }
    }
  }
  b.Operand(in_dims).Result(out_dims);
  return b.Build();
}

// ---------------------------------------------------------------- transpose
// attr perm: result dim i is operand dim perm[i].

TypesOr InferTranspose(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  auto perm = ctx.attrs.GetInts("perm");
  if (!perm) return InvalidArgument("transpose needs an integer list attribute 'perm'");
  if (static_cast<int64_t>(perm->size()) != x.rank()) return InvalidArgument("transpose 'perm' must have one entry per dim");
  std::set<int64_t> seen;
  Shape shape;
  for (int64_t p : *perm) {
    if (p < 0 || p >= x.rank() || !seen.insert(p).second) {
      return InvalidArgument("transpose 'perm' " + ShapeString(*perm) + " is not a permutation");
    }
    shape.push_back(x.shape[p]);
  }
  return std::vector<TensorType>{{x.dtype, shape}};
}

StatusOr<FactorRule> RuleTranspose(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  auto perm = ctx.attrs.GetInts("perm").value_or(std::vector<int64_t>{});
  FactorRuleBuilder b;
  TensorFactors in(static_cast<size_t>(x.rank())), out;
  for (size_t r = 0; r < perm.size(); ++r) {
    int64_t size = x.shape[perm[r]];
    int f = b.AddFactor("d" + std::to_string(r), size);
    out.push_back(Dim(f, size));
    in[perm[r]] = Dim(f, size);
  }
  b.Operand(in).Result(out);
  return b.Build();
}

// ---------------------------------------------------------------- concat

TypesOr InferConcat(const OpContext& ctx) {
  const TensorType& first = ctx.operands[0];
  auto axis = NormalizeAxis(ctx.attrs.GetInt("axis").value_or(0), first.rank());
  if (!axis) return InvalidArgument("concat axis out of range");
  TensorType result = first;
  result.shape[*axis] = 0;
  for (const TensorType& t : ctx.operands) {
    if (t.rank() != first.rank() || t.dtype != first.dtype) return InvalidArgument("concat operands differ in rank or dtype");
    for (int64_t d = 0; d < t.rank(); ++d) {
      if (d != *axis && t.shape[d] != first.shape[d]) {
        return InvalidArgument("concat operands " + first.ToString() + " and " + t.ToString() +
                               " differ outside the concat axis");
      }
    }
    result.shape[*axis] += t.shape[*axis];
  }
  return std::vector<TensorType>{result};
}

// The concat axis has a different size in every tensor: each gets its own
// permutation factor (sharding it moves data); the other dims are shared.
StatusOr<FactorRule> RuleConcat(const OpContext& ctx) {
  const TensorType& r = ctx.results[0];
  int64_t axis = NormalizeAxis(ctx.attrs.GetInt("axis").value_or(0), r.rank()).value_or(0);
  FactorRuleBuilder b;
  std::vector<int> shared(static_cast<size_t>(r.rank()), -1);
  for (int64_t d = 0; d < r.rank(); ++d) {
    if (d != axis) shared[d] = b.AddFactor("d" + std::to_string(d), r.shape[d]);
  }
  auto tensor = [&](const TensorType& t, const std::string& tag) {
    TensorFactors dims;
    for (int64_t d = 0; d < t.rank(); ++d) {
      dims.push_back(d == axis ? Dim(b.AddFactor("c" + tag, t.shape[d], FactorKind::kPermutation), t.shape[d])
                               : Dim(shared[d], t.shape[d]));
    }
    return dims;
  };
  for (size_t i = 0; i < ctx.operands.size(); ++i) b.Operand(tensor(ctx.operands[i], std::to_string(i)));
  b.Result(tensor(r, "out"));
  return b.Build();
}

// ---------------------------------------------------------------- slice
// attrs start, limit, optional stride: one entry per dim.

TypesOr InferSlice(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  auto start = ctx.attrs.GetInts("start");
  auto limit = ctx.attrs.GetInts("limit");
  auto stride = ctx.attrs.GetInts("stride").value_or(std::vector<int64_t>(static_cast<size_t>(x.rank()), 1));
  if (!start || !limit) return InvalidArgument("slice needs 'start' and 'limit'");
  if (static_cast<int64_t>(start->size()) != x.rank() || static_cast<int64_t>(limit->size()) != x.rank() ||
      static_cast<int64_t>(stride.size()) != x.rank()) {
    return InvalidArgument("slice 'start', 'limit' and 'stride' need one entry per dim");
  }
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t s = (*start)[d], l = (*limit)[d], st = stride[d];
    if (s < 0 || s > l || l > x.shape[d] || st < 1) {
      return InvalidArgument("slice [" + std::to_string(s) + ":" + std::to_string(l) + "] is out of range for dim " +
                             std::to_string(d) + " of " + x.ToString());
    }
    shape.push_back((l - s + st - 1) / st);
  }
  return std::vector<TensorType>{{x.dtype, shape}};
}

StatusOr<FactorRule> RuleSlice(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  const TensorType& r = ctx.results[0];
  FactorRuleBuilder b;
  TensorFactors in, out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (x.shape[d] == r.shape[d]) {
      int f = b.AddFactor("d" + std::to_string(d), x.shape[d]);
      in.push_back(Dim(f, x.shape[d]));
      out.push_back(Dim(f, r.shape[d]));
      continue;
    }
    in.push_back(Dim(b.AddFactor("s" + std::to_string(d), x.shape[d], FactorKind::kPermutation), x.shape[d]));
    out.push_back(Dim(b.AddFactor("t" + std::to_string(d), r.shape[d], FactorKind::kPermutation), r.shape[d]));
  }
  b.Operand(in).Result(out);
  return b.Build();
}

// ---------------------------------------------------------------- reduce
// attrs dims (increasing), kind in {sum, max, mean}; reduced dims are dropped.

TypesOr InferReduce(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  auto dims = ctx.attrs.GetInts("dims");
  if (!dims) return InvalidArgument("reduce needs an integer list attribute 'dims'");
  std::string kind = ctx.attrs.GetString("kind").value_or("sum");
  if (kind != "sum" && kind != "max" && kind != "mean") return InvalidArgument("reduce kind must be sum, max or mean");
  std::set<int64_t> reduced;
  for (int64_t d : *dims) {
    if (d < 0 || d >= x.rank() || !reduced.insert(d).second) return InvalidArgument("reduce 'dims' out of range or repeated");
  }
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (!reduced.count(d)) shape.push_back(x.shape[d]);
  }
  return std::vector<TensorType>{{x.dtype, shape}};
}

StatusOr<FactorRule> RuleReduce(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  auto dims = ctx.attrs.GetInts("dims").value_or(std::vector<int64_t>{});
  std::set<int64_t> reduced(dims.begin(), dims.end());
  FactorRuleBuilder b;
  TensorFactors in, out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    bool r = reduced.count(d) > 0;
    int f = b.AddFactor("d" + std::to_string(d), x.shape[d], r ? FactorKind::kReduction : FactorKind::kPassThrough);
    in.push_back(Dim(f, x.shape[d]));
    if (!r) out.push_back(Dim(f, x.shape[d]));
  }
  b.Operand(in).Result(out);
  return b.Build();
}

// ---------------------------------------------------------------- gather
// Embedding lookup: table [V, D...], integer indices [I...] -> [I..., D...].

TypesOr InferGather(const OpContext& ctx) {
  const TensorType& table = ctx.operands[0];
  const TensorType& indices = ctx.operands[1];
  if (table.rank() < 1) return InvalidArgument("gather table must have rank >= 1");
  if (IsFloat(indices.dtype)) return InvalidArgument("gather indices must be integers, got " + indices.ToString());
  Shape shape = indices.shape;
  shape.insert(shape.end(), table.shape.begin() + 1, table.shape.end());
  return std::vector<TensorType>{{table.dtype, shape}};
}

StatusOr<FactorRule> RuleGather(const OpContext& ctx) {
  const TensorType& table = ctx.operands[0];
  const TensorType& indices = ctx.operands[1];
  FactorRuleBuilder b;
  // A sharded vocabulary would need masked lookups and a reduction: keep it whole.
  int vocab = b.AddFactor("vocab", table.shape[0], FactorKind::kNeedReplication);
  TensorFactors t{Dim(vocab, table.shape[0])}, idx, out;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    int f = b.AddFactor("i" + std::to_string(d), indices.shape[d]);
    idx.push_back(Dim(f, indices.shape[d]));
    out.push_back(Dim(f, indices.shape[d]));
  }
  for (int64_t d = 1; d < table.rank(); ++d) {
    int f = b.AddFactor("e" + std::to_string(d), table.shape[d]);
    t.push_back(Dim(f, table.shape[d]));
    out.push_back(Dim(f, table.shape[d]));
  }
  b.Operand(t).Operand(idx).Result(out);
  return b.Build();
}

// ---------------------------------------------------------------- upsample, pad
// Nearest-neighbour upsampling: attr scale (one integer >= 1 per dim),
// out[i] = x[floor(i / scale)]. An upsampled dim of size n * s is the factors
// [n, s], major to minor: n passes through (each device upsamples its own
// rows, no halo: the copies of a row stay next to it), and s, the copies, exists
// in the result alone, like a broadcast dim.
//
// Replicate padding: attrs low, high (one integer >= 0 per dim), mode
// "replicate"; out[i] = x[clamp(i - low, 0, n - 1)]. An unpadded dim passes
// through; a padded dim is one halo factor (rule.h kHalo) of the operand's
// size, in the operand and in the larger result: split, each device pads its
// block with its neighbours' edge rows (the global edge rows replicated at the
// border), which only a convolution over the padded dim reads
// (compile/spmd/halo.h).

namespace {

TypesOr InferPad(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  auto low = ctx.attrs.GetInts("low");
  auto high = ctx.attrs.GetInts("high");
  if (!low || !high || static_cast<int64_t>(low->size()) != x.rank() ||
      static_cast<int64_t>(high->size()) != x.rank()) {
    return InvalidArgument("pad needs 'low' and 'high' with one integer per dim of " + x.ToString());
  }
  const std::string mode = ctx.attrs.GetString("mode").value_or("");
  if (mode != "replicate") return InvalidArgument("pad mode must be 'replicate', got '" + mode + "'");
  Shape shape = x.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if ((*low)[d] < 0 || (*high)[d] < 0) {
      return InvalidArgument("pad widths must be >= 0, got low " + ShapeString(*low) + " high " + ShapeString(*high));
    }
    if (shape[d] == 0 && (*low)[d] + (*high)[d] > 0) {
      return InvalidArgument("pad cannot replicate the edge of empty dim " + std::to_string(d) + " of " + x.ToString());
    }
    shape[d] += (*low)[d] + (*high)[d];
  }
  if (!CheckedProduct(shape)) return InvalidArgument("pad result is too large");
  return std::vector<TensorType>{{x.dtype, shape}};
}

StatusOr<FactorRule> RulePad(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  const TensorType& r = ctx.results[0];
  FactorRuleBuilder b;
  TensorFactors in, out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const size_t i = static_cast<size_t>(d);
    if (x.shape[i] == r.shape[i]) {
      int f = b.AddFactor("d" + std::to_string(d), x.shape[i]);
      in.push_back(Dim(f, x.shape[i]));
      out.push_back(Dim(f, r.shape[i]));
      continue;
    }
    const int f = b.AddFactor("p" + std::to_string(d), x.shape[i], FactorKind::kHalo);
    in.push_back(Dim(f, x.shape[i]));
    out.push_back({f});  // larger than the factor by the padding (FactorRule::DimFits)
  }
  b.Operand(in).Result(out);
  return b.Build();
}

}  // namespace

TypesOr InferResize(const OpContext& ctx) {
  if (ctx.kind == OpKind::kPad) return InferPad(ctx);
  const TensorType& x = ctx.operands[0];
  auto scale = ctx.attrs.GetInts("scale");
  if (!scale || static_cast<int64_t>(scale->size()) != x.rank()) {
    return InvalidArgument("upsample needs 'scale' with one integer per dim of " + x.ToString());
  }
  Shape shape = x.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if ((*scale)[d] < 1) return InvalidArgument("upsample scale must be >= 1, got " + ShapeString(*scale));
    shape[d] *= (*scale)[d];
  }
  if (!CheckedProduct(shape)) return InvalidArgument("upsample result is too large");
  return std::vector<TensorType>{{x.dtype, shape}};
}

StatusOr<FactorRule> RuleResize(const OpContext& ctx) {
  if (ctx.kind == OpKind::kPad) return RulePad(ctx);
  const TensorType& x = ctx.operands[0];
  const std::vector<int64_t> scale = ctx.attrs.GetInts("scale").value_or(std::vector<int64_t>{});
  if (static_cast<int64_t>(scale.size()) != x.rank()) return InvalidArgument("upsample 'scale' does not match its operand");
  FactorRuleBuilder b;
  TensorFactors in, out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const size_t i = static_cast<size_t>(d);
    int rows = b.AddFactor("d" + std::to_string(d), x.shape[i]);
    in.push_back(Dim(rows, x.shape[i]));
    std::vector<int> result_dim = Dim(rows, x.shape[i]);
    if (scale[i] > 1) result_dim.push_back(b.AddFactor("s" + std::to_string(d), scale[i]));
    out.push_back(result_dim);
  }
  b.Operand(in).Result(out);
  return b.Build();
}

// ---------------------------------------------------------------- custom
// Results are declared; nothing may be sharded (every dim its own
// need-replication factor). attrs: target (string), optional flops.

TypesOr InferCustom(const OpContext& ctx) {
  if (!ctx.attrs.GetString("target")) return InvalidArgument("custom needs a string attribute 'target'");
  if (ctx.results.empty()) return InvalidArgument("custom needs at least one declared result type");
  if (auto flops = ctx.attrs.GetInt("flops"); flops && *flops < 0) return InvalidArgument("custom 'flops' must be >= 0");
  return ctx.results;
}

StatusOr<FactorRule> RuleCustom(const OpContext& ctx) { return IndependentRule(ctx, FactorKind::kNeedReplication); }

// ---------------------------------------------------------------- full
// No operands; attrs shape, dtype (a dtype name), value (a float). Every dim is
// a pass-through factor of its own: each device fills its block, in whatever
// sharding the consumers want, without communication.

TypesOr InferFull(const OpContext& ctx) {
  auto shape = ctx.attrs.GetInts("shape");
  auto dtype_name = ctx.attrs.GetString("dtype");
  if (!shape || !dtype_name || !ctx.attrs.GetFloat("value")) {
    return InvalidArgument("full needs 'shape' (integers), 'dtype' (a string) and 'value' (a number)");
  }
  auto dtype = ParseDType(*dtype_name);
  if (!dtype) return InvalidArgument("full of unknown dtype '" + *dtype_name + "'");
  if (!CheckedProduct(*shape)) return InvalidArgument("full shape is negative or too large");
  return std::vector<TensorType>{{*dtype, *shape}};
}

StatusOr<FactorRule> RuleFull(const OpContext& ctx) { return IndependentRule(ctx, FactorKind::kPassThrough); }

}  // namespace az::pir
