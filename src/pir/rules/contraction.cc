// Einsum, attention and convolution: the ops that carry the model's FLOPs.
#include <map>
#include <set>

#include "pir/rules/attention_mask.h"
#include "pir/rules/families.h"

namespace az::pir {

std::string ShapeString(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  return axis;
}

FactorRule IndependentRule(const OpContext& ctx, FactorKind kind) {
  FactorRuleBuilder b;
  int counter = 0;
  auto tensor = [&](const TensorType& t, const char* prefix, size_t index) {
    TensorFactors dims;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] == 1) {
        dims.push_back({});
        continue;
      }
      dims.push_back({b.AddFactor(std::string(prefix) + std::to_string(index) + "_" + std::to_string(d), t.shape[d],
                                  kind)});
      ++counter;
    }
    return dims;
  };
  for (size_t i = 0; i < ctx.operands.size(); ++i) b.Operand(tensor(ctx.operands[i], "in", i));
  for (size_t i = 0; i < ctx.results.size(); ++i) b.Result(tensor(ctx.results[i], "out", i));
  return b.Build();
}

// ---------------------------------------------------------------- einsum

StatusOr<EinsumEquation> ParseEinsumEquation(const std::string& eq) {
  size_t arrow = eq.find("->");
  if (arrow == std::string::npos) return InvalidArgument("einsum equation '" + eq + "' has no '->'");
  EinsumEquation parsed;
  parsed.output = eq.substr(arrow + 2);
  std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    parsed.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (parsed.inputs.size() != 2) return InvalidArgument("einsum equation '" + eq + "' must have two inputs");
  std::set<char> input_letters;
  for (const std::string* term : {&parsed.inputs[0], &parsed.inputs[1], &parsed.output}) {
    std::set<char> seen;
    for (char c : *term) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
        return InvalidArgument("einsum equation '" + eq + "' has a character that is not a letter: '" +
                               std::string(1, c) + "'");
      }
      if (!seen.insert(c).second) {
        return InvalidArgument("einsum equation '" + eq + "' repeats '" + std::string(1, c) + "' in one term");
      }
      if (term != &parsed.output) input_letters.insert(c);
    }
  }
  for (char c : parsed.output) {
    if (!input_letters.count(c)) {
      return InvalidArgument("einsum equation '" + eq + "': result letter '" + std::string(1, c) +
                             "' is in no input");
    }
  }
  return parsed;
}

// Letter -> size, checking operands agree.
static StatusOr<std::map<char, int64_t>> EinsumSizes(const OpContext& ctx, const EinsumEquation& eq) {
  std::map<char, int64_t> sizes;
  for (size_t i = 0; i < 2; ++i) {
    const TensorType& t = ctx.operands[i];
    if (t.rank() != static_cast<int64_t>(eq.inputs[i].size())) {
      return InvalidArgument("einsum operand " + std::to_string(i) + " has rank " + std::to_string(t.rank()) +
                             " but the equation names " + std::to_string(eq.inputs[i].size()) + " dimensions");
    }
    for (size_t d = 0; d < eq.inputs[i].size(); ++d) {
      char c = eq.inputs[i][d];
      auto [it, inserted] = sizes.emplace(c, t.shape[d]);
      if (!inserted && it->second != t.shape[d]) {
        return InvalidArgument("einsum dimension '" + std::string(1, c) + "' is " + std::to_string(it->second) +
                               " in one operand and " + std::to_string(t.shape[d]) + " in another");
      }
    }
  }
  return sizes;
}

TypesOr InferEinsum(const OpContext& ctx) {
  auto eq_attr = ctx.attrs.GetString("eq");
  if (!eq_attr) return InvalidArgument("einsum needs a string attribute 'eq'");
  AZ_ASSIGN_OR_RETURN(EinsumEquation eq, ParseEinsumEquation(*eq_attr));
  AZ_ASSIGN_OR_RETURN(auto sizes, EinsumSizes(ctx, eq));
  TensorType result;
  result.dtype = PromoteTypes(ctx.operands[0].dtype, ctx.operands[1].dtype);
  for (char c : eq.output) result.shape.push_back(sizes[c]);
  if (ctx.operands.size() == 3) {
    const TensorType& bias = ctx.operands[2];
    if (bias.rank() > result.rank()) return InvalidArgument("einsum bias has a higher rank than the result");
    for (int64_t d = 0; d < bias.rank(); ++d) {
      if (bias.shape[d] != result.shape[result.rank() - bias.rank() + d]) {
        return InvalidArgument("einsum bias " + bias.ToString() + " does not match the trailing dimensions of " +
                               result.ToString());
      }
    }
  }
  return std::vector<TensorType>{result};
}

StatusOr<FactorRule> RuleEinsum(const OpContext& ctx) {
  AZ_ASSIGN_OR_RETURN(EinsumEquation eq, ParseEinsumEquation(ctx.attrs.GetString("eq").value_or("")));
  AZ_ASSIGN_OR_RETURN(auto sizes, EinsumSizes(ctx, eq));
  FactorRuleBuilder b;
  std::map<char, int> factor_of;
  // Factors in order of first appearance: result letters first, then contracted ones.
  std::string order = eq.output;
  for (const std::string& in : eq.inputs) {
    for (char c : in) {
      if (order.find(c) == std::string::npos) order += c;
    }
  }
  for (char c : order) {
    bool in_output = eq.output.find(c) != std::string::npos;
    factor_of[c] = b.AddFactor(std::string(1, c), sizes[c], in_output ? FactorKind::kPassThrough : FactorKind::kReduction);
  }
  for (const std::string& in : eq.inputs) {
    TensorFactors dims;
    for (char c : in) dims.push_back({factor_of[c]});
    b.Operand(std::move(dims));
  }
  if (ctx.operands.size() == 3) {
    TensorFactors dims;
    size_t skip = eq.output.size() - static_cast<size_t>(ctx.operands[2].rank());
    for (size_t i = skip; i < eq.output.size(); ++i) dims.push_back({factor_of[eq.output[i]]});
    b.Operand(std::move(dims));
  }
  TensorFactors out;
  for (char c : eq.output) out.push_back({factor_of[c]});
  b.Result(std::move(out));
  return b.Build();
}

// ---------------------------------------------------------------- attention
// q [B, Lq, H, D], k [B, Lk, Hkv, D], v [B, Lk, Hkv, Dv] -> [B, Lq, H, Dv].
// mode: "self" (Lq = Lk, same tokens), "cross" (keys from another sequence),
// "joint" (MMDiT: the sequence is the concatenation of streams; `joint_tail`
// names how many trailing tokens are the text stream). With `lse = true` (a
// training forward) a second result holds the log-sum-exp of every query row's
// scaled scores, f32 [B, Lq, H]: what the backward (attention_grad) needs to
// rebuild the probabilities without a second pass over the keys.
//
// Grouped-query attention: Hkv may divide H (multi-query: Hkv = 1); query head
// h reads K/V head h / (H / Hkv), as a framework's repeat_kv does. The factor
// rule splits the query heads into [h (the K/V heads), g (the group)], so
// sharding the heads (Ulysses, TP) shards the K/V heads: the degree divides Hkv.
//
// mask (attention_mask.h has the kinds and the kept-score counts):
//   "none"    every key (the default)
//   "causal"  key j for query i when j <= i (Lq = Lk)
//   "window"  causal within `window` keys: i - window < j <= i (Lq = Lk)
//   "tensor"  an arbitrary mask, the 4th operand, broadcast to [B, H, Lq, Lk]:
//             [1 | B, 1 | H, 1 | Lq, Lk]; a float operand is added to the
//             scores (a bias, or 0 / -inf), a boolean one keeps the true keys
// The mask operand shares the score factors b, h, g and q; its key dim is a
// factor of its own, mask_kv, that needs replication (below).

TypesOr InferAttention(const OpContext& ctx) {
  if (ctx.operands.size() < 3) return InvalidArgument("attention takes q, k, v and an optional mask");
  const TensorType& q = ctx.operands[0];
  const TensorType& k = ctx.operands[1];
  const TensorType& v = ctx.operands[2];
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
    return InvalidArgument("attention operands must be rank 4 [batch, seq, heads, head_dim], got " + q.ToString() +
                           ", " + k.ToString() + ", " + v.ToString());
  }
  if (q.shape[0] != k.shape[0] || q.shape[0] != v.shape[0]) return InvalidArgument("attention batch sizes differ");
  if (k.shape[2] != v.shape[2]) return InvalidArgument("attention k and v head counts differ");
  if (k.shape[2] < 1 || q.shape[2] % k.shape[2] != 0) {
    return InvalidArgument("attention head counts differ: " + std::to_string(q.shape[2]) +
                           " query heads are not a multiple of " + std::to_string(k.shape[2]) + " key/value heads");
  }
  if (q.shape[3] != k.shape[3]) return InvalidArgument("attention q and k head dims differ");
  if (k.shape[1] != v.shape[1]) return InvalidArgument("attention k and v sequence lengths differ");
  std::string mode = ctx.attrs.GetString("mode").value_or("self");
  if (mode != "self" && mode != "cross" && mode != "joint") {
    return InvalidArgument("attention mode must be self, cross or joint, got '" + mode + "'");
  }
  // A PipeFusion patch (attr patch = true, search/pipefusion.h): self-attention
  // of Lq of the Lk tokens the keys span.
  const bool patch = mode == "self" && ctx.attrs.GetBool("patch").value_or(false) && q.shape[1] < k.shape[1];
  if (mode != "cross" && q.shape[1] != k.shape[1] && !patch) {
    return InvalidArgument(mode + " attention needs equal query and key lengths, got " + std::to_string(q.shape[1]) +
                           " and " + std::to_string(k.shape[1]));
  }
  if (auto tail = ctx.attrs.GetInt("joint_tail")) {
    if (*tail < 0 || *tail > q.shape[1]) return InvalidArgument("attention joint_tail is out of range");
  }
  AZ_ASSIGN_OR_RETURN(AttentionMask mask, ReadAttentionMask(ctx.attrs));
  if ((mask.kind == MaskKind::kCausal || mask.kind == MaskKind::kWindow) && q.shape[1] != k.shape[1]) {
    return InvalidArgument("a " + std::string(MaskKindName(mask.kind)) +
                           " mask needs equal query and key lengths, got " + std::to_string(q.shape[1]) + " and " +
                           std::to_string(k.shape[1]));
  }
  if ((mask.kind == MaskKind::kTensor) != (ctx.operands.size() == 4)) {
    return InvalidArgument(mask.kind == MaskKind::kTensor ? "attention mask 'tensor' needs the mask as a 4th operand"
                                                          : "attention's 4th operand needs mask = \"tensor\"");
  }
  if (ctx.operands.size() == 4) {
    const TensorType& m = ctx.operands[3];
    const int64_t want[4] = {q.shape[0], q.shape[2], q.shape[1], k.shape[1]};
    bool ok = m.rank() == 4 && m.shape[3] == want[3];
    for (int d = 0; ok && d < 3; ++d) ok = m.shape[static_cast<size_t>(d)] == 1 || m.shape[static_cast<size_t>(d)] == want[d];
    if (!ok) {
      return InvalidArgument("attention mask must broadcast to [batch, heads, q, kv] = " +
                             ShapeString({want[0], want[1], want[2], want[3]}) + ", got " + m.ToString());
    }
  }
  std::vector<TensorType> results{{q.dtype, {q.shape[0], q.shape[1], q.shape[2], v.shape[3]}}};
  if (ctx.attrs.GetBool("lse").value_or(false)) results.push_back({DType::kF32, {q.shape[0], q.shape[1], q.shape[2]}});
  return results;
}

StatusOr<FactorRule> RuleAttention(const OpContext& ctx) {
  const TensorType& q = ctx.operands[0];
  const TensorType& k = ctx.operands[1];
  const TensorType& v = ctx.operands[2];
  FactorRuleBuilder b;
  int batch = b.AddFactor("b", q.shape[0]);
  int query = b.AddFactor("q", q.shape[1]);
  // The K/V heads, and (grouped-query attention) the query heads per K/V head.
  int heads = b.AddFactor("h", k.shape[2]);
  const int64_t group_size = q.shape[2] / k.shape[2];
  int group = group_size > 1 ? b.AddFactor("g", group_size) : -1;
  int value_dim = b.AddFactor("v", v.shape[3]);
  // Sharding the key sequence is ring attention: partial outputs merged by log-sum-exp.
  int key = b.AddFactor("kv", k.shape[1], FactorKind::kReduction);
  // The head dim is contracted before the softmax: a partial score is meaningless.
  int head_dim = b.AddFactor("d", q.shape[3], FactorKind::kNeedReplication);
  auto dim = [](int f, int64_t size) { return size == 1 ? std::vector<int>{} : std::vector<int>{f}; };
  std::vector<int> query_heads = dim(heads, k.shape[2]);
  if (group >= 0) query_heads.push_back(group);
  b.Operand({dim(batch, q.shape[0]), dim(query, q.shape[1]), query_heads, dim(head_dim, q.shape[3])});
  b.Operand({dim(batch, k.shape[0]), dim(key, k.shape[1]), dim(heads, k.shape[2]), dim(head_dim, k.shape[3])});
  b.Operand({dim(batch, v.shape[0]), dim(key, v.shape[1]), dim(heads, v.shape[2]), dim(value_dim, v.shape[3])});
  if (ctx.operands.size() == 4) {
    // The mask's key dim is a factor of its own that stays whole: a device
    // holds its query rows over every key, so that ring attention (q and kv
    // on one axis) needs no mask blocks rotated and no axis twice in it.
    const Shape& m = ctx.operands[3].shape;
    int mask_key = b.AddFactor("mask_kv", m[3], FactorKind::kNeedReplication);
    b.Operand({m[0] == 1 ? std::vector<int>{} : dim(batch, m[0]), m[1] == 1 ? std::vector<int>{} : query_heads,
               m[2] == 1 ? std::vector<int>{} : dim(query, m[2]), dim(mask_key, m[3])});
  }
  b.Result({dim(batch, q.shape[0]), dim(query, q.shape[1]), query_heads, dim(value_dim, v.shape[3])});
  if (ctx.results.size() == 2) b.Result({dim(batch, q.shape[0]), dim(query, q.shape[1]), query_heads});
  return b.Build();
}

// ---------------------------------------------------------------- conv3d
// x [B, C, T, H, W], w [O, C, kt, kh, kw], optional bias [O]; attrs stride [3],
// padding [lo_t, hi_t, lo_h, hi_h, lo_w, hi_w] (default 0).

struct ConvGeometry {
  std::vector<int64_t> stride, padding, kernel, in, out;
  bool disjoint_windows = true;  // kernel == stride, no padding, exact tiling (patchify)
};

static StatusOr<ConvGeometry> GetConvGeometry(const OpContext& ctx) {
  const TensorType& x = ctx.operands[0];
  const TensorType& w = ctx.operands[1];
  if (x.rank() != 5 || w.rank() != 5) {
    return InvalidArgument("conv3d takes x [B,C,T,H,W] and w [O,C,kt,kh,kw], got " + x.ToString() + " and " +
                           w.ToString());
  }
  if (x.shape[1] != w.shape[1]) {
    return InvalidArgument("conv3d input channels differ: x has " + std::to_string(x.shape[1]) + ", w has " +
                           std::to_string(w.shape[1]));
  }
  ConvGeometry g;
  g.stride = ctx.attrs.GetInts("stride").value_or(std::vector<int64_t>{});
  g.padding = ctx.attrs.GetInts("padding").value_or(std::vector<int64_t>(6, 0));
  if (g.stride.size() != 3) return InvalidArgument("conv3d needs 'stride' with 3 entries");
  if (g.padding.size() != 6) return InvalidArgument("conv3d 'padding' needs 6 entries (lo, hi per spatial dim)");
  for (int i = 0; i < 3; ++i) {
    int64_t k = w.shape[2 + i], s = g.stride[i], lo = g.padding[2 * i], hi = g.padding[2 * i + 1];
    int64_t n = x.shape[2 + i];
    if (s < 1) return InvalidArgument("conv3d stride must be positive");
    if (lo < 0 || hi < 0) return InvalidArgument("conv3d padding must be non-negative");
    if (n + lo + hi < k) return InvalidArgument("conv3d kernel is larger than the padded input");
    g.kernel.push_back(k);
    g.in.push_back(n);
    g.out.push_back((n + lo + hi - k) / s + 1);
    if (!(k == s && lo == 0 && hi == 0 && n % k == 0)) g.disjoint_windows = false;
  }
  if (ctx.operands.size() == 3 && ctx.operands[2].shape != Shape{w.shape[0]}) {
    return InvalidArgument("conv3d bias must be [" + std::to_string(w.shape[0]) + "], got " +
                           ctx.operands[2].ToString());
  }
  return g;
}

TypesOr InferConv(const OpContext& ctx) {
  AZ_ASSIGN_OR_RETURN(ConvGeometry g, GetConvGeometry(ctx));
  const TensorType& x = ctx.operands[0];
  TensorType result{PromoteTypes(x.dtype, ctx.operands[1].dtype),
                    {x.shape[0], ctx.operands[1].shape[0], g.out[0], g.out[1], g.out[2]}};
  return std::vector<TensorType>{result};
}

StatusOr<FactorRule> RuleConv(const OpContext& ctx) {
  AZ_ASSIGN_OR_RETURN(ConvGeometry g, GetConvGeometry(ctx));
  const TensorType& x = ctx.operands[0];
  const TensorType& w = ctx.operands[1];
  FactorRuleBuilder b;
  auto dim = [](int f, int64_t size) { return size == 1 ? std::vector<int>{} : std::vector<int>{f}; };
  int batch = b.AddFactor("b", x.shape[0]);
  int out_ch = b.AddFactor("o", w.shape[0]);
  int in_ch = b.AddFactor("c", x.shape[1], FactorKind::kReduction);
  TensorFactors x_dims{dim(batch, x.shape[0]), dim(in_ch, x.shape[1])};
  TensorFactors w_dims{dim(out_ch, w.shape[0]), dim(in_ch, w.shape[1])};
  TensorFactors r_dims{dim(batch, x.shape[0]), dim(out_ch, w.shape[0])};
  const char* names[] = {"t", "y", "x"};
  for (int i = 0; i < 3; ++i) {
    if (g.disjoint_windows) {
      // Patchify: input position = window * k + offset, windows never overlap, so
      // the window factor shards without halos.
      int window = b.AddFactor(names[i], g.out[i]);
      int offset = b.AddFactor(std::string("k") + names[i], g.kernel[i], FactorKind::kReduction);
      std::vector<int> in_dim;
      if (g.out[i] > 1) in_dim.push_back(window);
      if (g.kernel[i] > 1) in_dim.push_back(offset);
      x_dims.push_back(in_dim);
      w_dims.push_back(dim(offset, g.kernel[i]));
      r_dims.push_back(dim(window, g.out[i]));
    } else if (g.in[i] == g.stride[i] * g.out[i] || (g.stride[i] == 1 && g.padding[2 * i] == 0 &&
                                                    g.padding[2 * i + 1] == 0)) {
      // Windows that tile the input (input row s * y - low + k for output row
      // y: a same-padded convolution, a downsampler), or a convolution that
      // narrows the dim by its kernel (a pad's result in, rule.h kHalo): one
      // halo factor of the output's size; a stride's phase is a factor of its
      // own, minor in the input, that cannot be split.
      int window = b.AddFactor(names[i], g.out[i], FactorKind::kHalo);
      std::vector<int> in_dim{window};  // narrowing: the input dim is larger (FactorRule::DimFits)
      if (g.in[i] == g.stride[i] * g.out[i]) {
        in_dim = dim(window, g.out[i]);
        if (g.stride[i] > 1) {
          in_dim.push_back(b.AddFactor(std::string("s") + names[i], g.stride[i], FactorKind::kNeedReplication));
        }
      }
      x_dims.push_back(in_dim);
      w_dims.push_back(
          dim(b.AddFactor(std::string("k") + names[i], g.kernel[i], FactorKind::kNeedReplication), g.kernel[i]));
      r_dims.push_back(dim(window, g.out[i]));
    } else {
      // Irregular windows (a stride that does not tile the input): sharding
      // the spatial dim needs data movement no compiler here emits.
      x_dims.push_back(dim(b.AddFactor(std::string("i") + names[i], g.in[i], FactorKind::kPermutation), g.in[i]));
      w_dims.push_back(
          dim(b.AddFactor(std::string("k") + names[i], g.kernel[i], FactorKind::kNeedReplication), g.kernel[i]));
      r_dims.push_back(dim(b.AddFactor(names[i], g.out[i], FactorKind::kPermutation), g.out[i]));
    }
  }
  b.Operand(x_dims).Operand(w_dims);
  if (ctx.operands.size() == 3) b.Operand({dim(out_ch, w.shape[0])});
  b.Result(r_dims);
  return b.Build();
}

}  // namespace az::pir
