// The attention fold (fold.h): einsum(softmax(mask(einsum(q, k))), v) ->
// attention, with the mask kind kept (none, causal, window, tensor; read by
// fold_mask.cc) and grouped-query K/V read through the framework's repeat of
// the K/V heads.
#include <algorithm>

#include "frontend/import/fold_internal.h"

namespace az::frontend::fold_internal {

namespace {

// einsum letters of one operand or the output.
struct Letters {
  std::string a, b, out;
};

// Positions of `target`'s letters in `have` (a permutation), or empty.
std::vector<int64_t> PermFor(const std::string& have, const std::string& target) {
  std::vector<int64_t> perm;
  for (char c : target) {
    size_t at = have.find(c);
    if (at == std::string::npos) return {};
    perm.push_back(static_cast<int64_t>(at));
  }
  return perm;
}

// Transposes old value `v` by `perm` in the new graph, composing with the
// single-use transposes that produced it (so a round trip disappears).
StatusOr<ValueId> TransposeComposed(const Matcher& m, Rebuild& r, ValueId v, std::vector<int64_t> perm,
                                    const std::string& name, const SourceLocation& loc) {
  while (true) {
    const Op* p = m.Producer(v);
    if (!p || p->kind != OpKind::kTranspose || !m.SingleUse(v)) break;
    auto inner = p->attrs.GetInts("perm");
    if (!inner || inner->size() != perm.size()) break;
    std::vector<int64_t> composed;
    for (int64_t i : perm) composed.push_back((*inner)[static_cast<size_t>(i)]);
    perm = composed;
    v = p->operands[0];
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity) return r.Map(v);
  pir::Attributes attrs;
  attrs.Set("perm", perm);
  return r.Add(OpKind::kTranspose, name, {r.Map(v)}, std::move(attrs), loc);
}

std::optional<Letters> EinsumLetters(const Op& op) {
  if (op.kind != OpKind::kEinsum || op.operands.size() != 2) return std::nullopt;
  auto eq = pir::ParseEinsumEquation(op.attrs.GetString("eq").value_or(""));
  if (!eq.ok() || eq->inputs.size() != 2) return std::nullopt;
  return Letters{eq->inputs[0], eq->inputs[1], eq->output};
}

// `merged` = reshape(broadcast(x')) repeating each head G >= 2 times along a
// dim h: [.., H, ..] -> [.., H, G, ..] -> [.., H * G, ..]. The broadcast
// either inserts the G dim (JAX's broadcast_in_dim, x' = x) or expands a unit
// dim an unsqueeze put there (ONNX's Unsqueeze -> Expand, x' = reshape(x)).
// Returns x and h.
std::optional<std::pair<ValueId, int64_t>> RepeatOfHeads(const Matcher& m, ValueId merged_value) {
  const Graph& graph = m.graph();
  const Op* reshape = m.Producer(merged_value);
  if (!reshape || reshape->kind != OpKind::kReshape) return std::nullopt;
  const ValueId repeated = reshape->operands[0];
  const Op* broadcast = m.Producer(repeated);
  if (!broadcast || broadcast->kind != OpKind::kBroadcast || !m.SingleUse(repeated)) return std::nullopt;
  const pir::Shape& wide = graph.type(repeated).shape;       // [.., H, G, ..]
  const pir::Shape& merged = graph.type(merged_value).shape;  // [.., H * G, ..]
  ValueId x = broadcast->operands[0];
  auto dims = broadcast->attrs.GetInts("dims");
  if (!dims || wide.size() != merged.size() + 1) return std::nullopt;
  int64_t g = -1;
  if (graph.type(x).rank() == static_cast<int64_t>(wide.size())) {
    // Same rank: the broadcast expands one unit dim g, which a reshape inserted.
    const pir::Shape& unit = graph.type(x).shape;
    for (size_t d = 0; d < wide.size(); ++d) {
      if ((*dims)[d] != static_cast<int64_t>(d)) return std::nullopt;
      if (unit[d] != wide[d]) {
        if (unit[d] != 1 || g >= 0) return std::nullopt;
        g = static_cast<int64_t>(d);
      }
    }
    const Op* unsqueeze = m.Producer(x);
    if (g < 1 || !unsqueeze || unsqueeze->kind != OpKind::kReshape || !m.SingleUse(x)) return std::nullopt;
    x = unsqueeze->operands[0];
    pir::Shape without = unit;
    without.erase(without.begin() + g);
    if (graph.type(x).shape != without) return std::nullopt;
  } else {
    const pir::Shape& small = graph.type(x).shape;
    if (small.size() != merged.size() || dims->size() != small.size()) return std::nullopt;
    // The one inserted dim g sits right after the heads dim g - 1.
    for (int64_t d = 0; d < static_cast<int64_t>(wide.size()); ++d) {
      if (std::find(dims->begin(), dims->end(), d) == dims->end()) g = g < 0 ? d : -2;
    }
    if (g < 1) return std::nullopt;
    for (size_t d = 0; d < small.size(); ++d) {
      const int64_t to = static_cast<int64_t>(d) < g ? static_cast<int64_t>(d) : static_cast<int64_t>(d) + 1;
      if ((*dims)[d] != to || wide[static_cast<size_t>(to)] != small[d]) return std::nullopt;
    }
  }
  for (int64_t d = 0; d < static_cast<int64_t>(merged.size()); ++d) {
    const int64_t want = d < g - 1 ? wide[static_cast<size_t>(d)]
                         : d == g - 1 ? wide[static_cast<size_t>(g - 1)] * wide[static_cast<size_t>(g)]
                                      : wide[static_cast<size_t>(d + 1)];
    if (merged[static_cast<size_t>(d)] != want) return std::nullopt;
  }
  if (wide[static_cast<size_t>(g)] < 2) return std::nullopt;
  return std::make_pair(x, g - 1);
}

// PyTorch's repeat_interleave as torch.onnx.export writes it: the K/V heads
// split one by one (Split -> slices), each repeated G times (RepeatOfHeads on
// a single head), concatenated along the heads dim in order. Returns the
// split tensor and its heads dim.
std::optional<std::pair<ValueId, int64_t>> ConcatOfRepeatedHeads(const Matcher& m, ValueId merged_value) {
  const Graph& graph = m.graph();
  const Op* concat = m.Producer(merged_value);
  if (!concat || concat->kind != OpKind::kConcat || concat->operands.size() < 2) return std::nullopt;
  auto axis = pir::NormalizeAxis(concat->attrs.GetInt("axis").value_or(0), graph.type(merged_value).rank());
  if (!axis) return std::nullopt;
  ValueId source = -1;
  for (size_t piece = 0; piece < concat->operands.size(); ++piece) {
    const ValueId v = concat->operands[piece];
    if (!m.SingleUse(v)) return std::nullopt;
    auto one = RepeatOfHeads(m, v);
    if (!one || one->second != *axis) return std::nullopt;
    // One head: slice [piece, piece + 1) of the source along the axis, the whole of every other dim.
    const Op* slice = m.Producer(one->first);
    if (!slice || slice->kind != OpKind::kSlice || !m.SingleUse(one->first) || slice->attrs.Find("stride")) {
      return std::nullopt;
    }
    const ValueId from = slice->operands[0];
    if (source >= 0 && from != source) return std::nullopt;
    source = from;
    auto start = slice->attrs.GetInts("start"), limit = slice->attrs.GetInts("limit");
    const pir::Shape& full = graph.type(from).shape;
    if (!start || !limit || start->size() != full.size() || limit->size() != full.size()) return std::nullopt;
    for (size_t d = 0; d < full.size(); ++d) {
      const bool heads = static_cast<int64_t>(d) == *axis;
      const int64_t want_start = heads ? static_cast<int64_t>(piece) : 0;
      const int64_t want_limit = heads ? static_cast<int64_t>(piece) + 1 : full[d];
      if ((*start)[d] != want_start || (*limit)[d] != want_limit) return std::nullopt;
    }
  }
  if (graph.type(source).shape[static_cast<size_t>(*axis)] != static_cast<int64_t>(concat->operands.size())) {
    return std::nullopt;
  }
  return std::make_pair(source, *axis);
}

}  // namespace

// K or V as the framework repeated it for grouped-query attention:
// reshape(broadcast(x)) that repeats each head G times (RepeatOfHeads) or the
// concat of single heads so repeated (ConcatOfRepeatedHeads), then converts,
// transposes and scalar scales. Emits x with the chain's element-wise ops
// applied (and its scalars broadcast to x's shape) and returns it with the
// letters of its dims; nullopt when `v` is no such chain.
std::optional<Matcher::Repeat> Matcher::RepeatedHeads(ValueId v, const std::string& letters) const {
  Repeat out;
  std::vector<int64_t> perm;  // v's dim i is the reshape output's dim perm[i]
  for (size_t i = 0; i < letters.size(); ++i) perm.push_back(static_cast<int64_t>(i));
  ValueId at = v;
  for (int hops = 0; hops < 8; ++hops) {
    const Op* p = Producer(at);
    if (!p || !SingleUse(at)) return std::nullopt;
    if (p->kind == OpKind::kTranspose) {
      auto inner = p->attrs.GetInts("perm");
      if (!inner || inner->size() != perm.size()) return std::nullopt;
      std::vector<int64_t> composed;
      for (int64_t i : perm) composed.push_back((*inner)[static_cast<size_t>(i)]);
      perm = composed;
      at = p->operands[0];
      continue;
    }
    if (p->kind == OpKind::kConvert || ((p->kind == OpKind::kMul || p->kind == OpKind::kDiv) &&
                                        ScalarLike(p->operands[1]) && !ScalarLike(p->operands[0]))) {
      out.chain.push_back(ProducerId(at));
      at = p->operands[0];
      continue;
    }
    std::optional<std::pair<ValueId, int64_t>> source;
    if (p->kind == OpKind::kReshape) {
      source = RepeatOfHeads(*this, at);
    } else if (p->kind == OpKind::kConcat) {
      source = ConcatOfRepeatedHeads(*this, at);
    }
    if (!source) return std::nullopt;
    const auto [x, heads_dim] = *source;
    out.source = x;
    out.heads_dim = heads_dim;
    // Letters of x's dims: v's letter i names the merged dim perm[i].
    out.letters = std::string(letters.size(), '?');
    for (size_t i = 0; i < perm.size(); ++i) out.letters[static_cast<size_t>(perm[i])] = letters[i];
    std::reverse(out.chain.begin(), out.chain.end());
    return out;
  }
  return std::nullopt;
}

StatusOr<ValueId> Matcher::EmitRepeatSource(Rebuild& r, const Repeat& repeat, const std::string& name,
                                            const SourceLocation& loc) const {
  ValueId x = r.Map(repeat.source);
  for (OpId id : repeat.chain) {
    const Op& op = graph_.op(id);
    if (op.kind == OpKind::kConvert) {
      AZ_ASSIGN_OR_RETURN(x, r.Add(OpKind::kConvert, name + ".kv_convert", {x}, op.attrs, loc));
      continue;
    }
    // The scalar, broadcast to x's shape: from its one-element origin.
    ValueId scalar = op.operands[1];
    while (graph_.type(scalar).NumElements() != 1) scalar = Producer(scalar)->operands[0];
    ValueId s = r.Map(scalar);
    if (s < 0) return FailedPrecondition("the scale of a repeated K/V is computed inside the pattern");
    if (r.graph().type(s).rank() != 0) {
      pir::Attributes to_scalar;
      to_scalar.Set("shape", std::vector<int64_t>{});
      AZ_ASSIGN_OR_RETURN(s, r.Add(OpKind::kReshape, name + ".kv_scalar", {s}, std::move(to_scalar), loc));
    }
    pir::Attributes b;
    b.Set("shape", r.graph().type(x).shape);
    b.Set("dims", std::vector<int64_t>{});
    AZ_ASSIGN_OR_RETURN(s, r.Add(OpKind::kBroadcast, name + ".kv_scale", {s}, std::move(b), loc));
    if (r.graph().type(s).dtype != r.graph().type(x).dtype) {
      AZ_ASSIGN_OR_RETURN(s, r.Convert(s, r.graph().type(x).dtype, name + ".kv_scale_cast", loc));
    }
    AZ_ASSIGN_OR_RETURN(x, r.Add(op.kind, name + ".kv_scaled", {x, s}, {}, loc));
  }
  return x;
}

// The mask operand in [b, h, q, kv] order ([1, B*H, q, kv] when the batch and
// heads are one letter), broadcast dims left at 1: the source before its
// broadcasts, reshaped and transposed.
StatusOr<ValueId> Matcher::EmitMaskOperand(Rebuild& r, ValueId mask, const std::string& have,
                                           const std::string& want, const std::string& name,
                                           const SourceLocation& loc) const {
  // Walk back through single-use converts and broadcasts to the smallest source.
  ValueId source = mask;
  std::vector<int64_t> positions;  // source dim d lands on mask dim positions[d]
  for (size_t d = 0; d < have.size(); ++d) positions.push_back(static_cast<int64_t>(d));
  while (const Op* p = Producer(source)) {
    if (!SingleUse(source)) break;
    if (p->kind == OpKind::kConvert) {
      source = p->operands[0];
      continue;
    }
    if (p->kind != OpKind::kBroadcast) break;
    auto dims = p->attrs.GetInts("dims");
    if (!dims || dims->size() != static_cast<size_t>(graph_.type(p->operands[0]).rank())) break;
    std::vector<int64_t> next;
    for (int64_t d : *dims) next.push_back(positions[static_cast<size_t>(d)]);
    positions = next;
    source = p->operands[0];
  }
  // The source at the mask's rank: its dims where they land, 1 elsewhere (a
  // lower-rank source the add broadcast itself aligns with the trailing dims).
  const pir::Shape& from = graph_.type(source).shape;
  if (from.size() < positions.size()) positions.erase(positions.begin(), positions.end() - static_cast<long>(from.size()));
  if (from.size() != positions.size()) return FailedPrecondition("the attention mask's rank exceeds the scores'");
  pir::Shape full(have.size(), 1);
  for (size_t d = 0; d < from.size(); ++d) full[static_cast<size_t>(positions[d])] = from[d];
  ValueId m = r.Map(source);
  if (m < 0) return FailedPrecondition("the attention mask is computed inside the pattern");
  if (from != full) {
    pir::Attributes attrs;
    attrs.Set("shape", full);
    AZ_ASSIGN_OR_RETURN(m, r.Add(OpKind::kReshape, name + ".mask_rank", {m}, std::move(attrs), loc));
  }
  std::vector<int64_t> perm = PermFor(have, want);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (!identity) {
    pir::Attributes attrs;
    attrs.Set("perm", perm);
    AZ_ASSIGN_OR_RETURN(m, r.Add(OpKind::kTranspose, name + ".mask_t", {m}, std::move(attrs), loc));
  }
  if (want.size() == 3) {
    pir::Shape s = r.graph().type(m).shape;
    pir::Attributes attrs;
    attrs.Set("shape", std::vector<int64_t>{1, s[0], s[1], s[2]});
    AZ_ASSIGN_OR_RETURN(m, r.Add(OpKind::kReshape, name + ".mask_batch", {m}, std::move(attrs), loc));
  }
  return m;
}

// einsum(guard(softmax(mask(einsum(q, k)))), v), with casts and scalar scales
// around the softmax, a mask and a guard (fold.h).
std::optional<Match> Matcher::Attention(OpId root) const {
  const Op& pv = graph_.op(root);
  auto second = EinsumLetters(pv);
  if (!second) return std::nullopt;
  Match m;
  // The probabilities: operand 0 (or 1) of the second einsum, possibly behind
  // a guard where(c, 0, p) that zeroes fully masked rows.
  int p_index = -1;
  const Op* softmax = nullptr;
  ValueId probs = -1;
  OpId guard = pir::kNoOp;
  ValueId guard_cond = -1;
  for (int k = 0; k < 2 && !softmax; ++k) {
    std::vector<OpId> casts;
    ValueId v = SkipCasts(pv.operands[static_cast<size_t>(k)], casts, false);
    OpId where_id = pir::kNoOp;
    ValueId cond = -1;
    if (const Op* w = Producer(v); w && w->kind == OpKind::kWhere && SingleUse(v)) {
      const bool zero_first = ScalarLike(w->operands[1]) && !ScalarLike(w->operands[2]);
      const bool zero_last = ScalarLike(w->operands[2]) && !ScalarLike(w->operands[1]);
      const ValueId fill = w->operands[zero_first ? 1 : 2];
      if ((zero_first || zero_last) && ScalarValue(fill).value_or(1) == 0) {
        where_id = ProducerId(v);
        cond = w->operands[0];
        v = SkipCasts(w->operands[zero_first ? 2 : 1], casts, false);
      }
    }
    const Op* p = Producer(v);
    if (p && p->kind == OpKind::kSoftmax && SingleUse(v)) {
      softmax = p;
      p_index = k;
      probs = v;
      m.interior = casts;
      guard = where_id;
      guard_cond = cond;
    }
  }
  if (!softmax) return std::nullopt;
  m.interior.push_back(ProducerId(probs));
  const OpId softmax_id = ProducerId(probs);
  const ValueId x = softmax->operands[0];
  std::set<OpId> allowed{softmax_id};  // who may read the softmax's input
  if (guard != pir::kNoOp) {
    auto cone = GuardCone(guard_cond, x, guard);
    if (!cone) return std::nullopt;
    m.interior.push_back(guard);
    m.interior.insert(m.interior.end(), cone->begin(), cone->end());
    allowed.insert(cone->begin(), cone->end());
  }
  for (OpId user : UsersOf(x)) {
    if (!allowed.count(user)) return std::nullopt;
  }

  // The score chain back to the first einsum: casts, scalar scales, one mask.
  // The einsum's letters are needed to place the mask, so find it first.
  ValueId scores = x;
  MaskRead mask;
  std::vector<OpId> chain;
  const Op* qk = nullptr;
  for (int hops = 0; hops < 12 && !qk; ++hops) {
    const Op* p = Producer(scores);
    if (!p) return std::nullopt;
    if (scores != x && !SingleUse(scores)) return std::nullopt;
    if (p->kind == OpKind::kEinsum) {
      qk = p;
      break;
    }
    std::vector<OpId> step;
    ValueId next = SkipCasts(scores, step, true);
    if (next == scores && scores == x && Producer(x) && (p->kind == OpKind::kConvert || p->kind == OpKind::kMul ||
                                                         p->kind == OpKind::kDiv)) {
      // x has the guard's users: SkipCasts stops at it; take one step by hand.
      std::vector<OpId> one;
      ValueId operand = p->operands[0];
      if (p->kind == OpKind::kConvert) {
        next = operand;
      } else if (ScalarLike(p->operands[1]) && graph_.type(operand).shape == graph_.type(x).shape) {
        next = operand;
      } else if (p->kind == OpKind::kMul && ScalarLike(operand)) {
        next = p->operands[1];
      }
      if (next != scores) step.push_back(ProducerId(scores));
    }
    if (next != scores) {
      chain.insert(chain.end(), step.begin(), step.end());
      scores = next;
      continue;
    }
    // A mask: its letters are not known yet; remember where it is.
    if (mask.operand >= 0 || mask.attrs.Find("mask")) return std::nullopt;  // one mask per attention
    if (p->kind != OpKind::kWhere && p->kind != OpKind::kAdd) return std::nullopt;
    // Find the einsum beyond the mask to learn the query and key dims.
    ValueId probe = p->kind == OpKind::kWhere ? (ScalarLike(p->operands[1]) ? p->operands[2] : p->operands[1])
                                              : (ScalarLike(p->operands[0]) || !LeadsToEinsum(p->operands[0])
                                                     ? p->operands[1]
                                                     : p->operands[0]);
    const Op* beyond = nullptr;
    for (int k = 0; k < 12 && !beyond; ++k) {
      const Op* b = Producer(probe);
      if (!b) break;
      if (b->kind == OpKind::kEinsum) {
        beyond = b;
        break;
      }
      probe = b->kind == OpKind::kWhere ? (ScalarLike(b->operands[1]) ? b->operands[2] : b->operands[1])
                                        : (b->operands.size() > 1 && ScalarLike(b->operands[0]) ? b->operands[1]
                                                                                                : b->operands[0]);
    }
    auto letters = beyond ? EinsumLetters(*beyond) : std::nullopt;
    if (!letters) return std::nullopt;
    // The query dim: the first output letter only in a; the key: only in b.
    int64_t qpos = -1, kpos = -1;
    for (size_t i = 0; i < letters->out.size(); ++i) {
      char c = letters->out[i];
      bool in_a = letters->a.find(c) != std::string::npos, in_b = letters->b.find(c) != std::string::npos;
      if (in_a && !in_b && qpos < 0) qpos = static_cast<int64_t>(i);
      if (in_b && !in_a && kpos < 0) kpos = static_cast<int64_t>(i);
    }
    if (qpos < 0 || kpos < 0 || graph_.type(scores).rank() != static_cast<int64_t>(letters->out.size())) {
      return std::nullopt;
    }
    auto inner = MaskStep(scores, qpos, kpos, mask, chain);
    if (!inner) return std::nullopt;
    scores = *inner;
  }
  if (!qk) return std::nullopt;
  auto first = EinsumLetters(*qk);
  if (!first || (scores != x && !SingleUse(scores))) return std::nullopt;
  if (scores == x) {
    for (OpId user : UsersOf(x)) {
      if (!allowed.count(user)) return std::nullopt;
    }
  }
  m.interior.insert(m.interior.end(), chain.begin(), chain.end());
  m.interior.push_back(ProducerId(scores));

  // First einsum: batch letters (in both and out), one query, one key, one head dim.
  std::string batch;
  char q = 0, key = 0, d = 0;
  for (char c : first->a) {
    bool in_b = first->b.find(c) != std::string::npos, in_out = first->out.find(c) != std::string::npos;
    if (in_b && in_out) batch += c;
    else if (in_out) q = q ? '!' : c;
    else if (in_b) d = d ? '!' : c;
    else return std::nullopt;
  }
  for (char c : first->b) {
    if (first->a.find(c) == std::string::npos) {
      if (first->out.find(c) == std::string::npos) return std::nullopt;
      key = key ? '!' : c;
    }
  }
  if (!q || !key || !d || q == '!' || key == '!' || d == '!' || batch.empty() || batch.size() > 2 ||
      first->out.size() != batch.size() + 2) {
    return std::nullopt;
  }
  const int64_t key_pos = static_cast<int64_t>(first->out.find(key));
  const int64_t rank = static_cast<int64_t>(first->out.size());
  if (pir::NormalizeAxis(softmax->attrs.GetInt("axis").value_or(-1), rank) != key_pos) return std::nullopt;

  // Second einsum: the probabilities' letters stand for the first's output letters.
  const std::string& p_letters = p_index == 0 ? second->a : second->b;
  const std::string& v_letters = p_index == 0 ? second->b : second->a;
  if (p_letters.size() != first->out.size()) return std::nullopt;
  auto rename = [&](char c) { return p_letters[first->out.find(c)]; };
  const char q2 = rename(q), key2 = rename(key);
  std::string batch2;
  for (char c : batch) batch2 += rename(c);
  char e = 0;
  for (char c : v_letters) {
    if (c == key2 || batch2.find(c) != std::string::npos) continue;
    if (e) return std::nullopt;
    e = c;
  }
  if (!e || v_letters.size() != batch2.size() + 2 || v_letters.find(key2) == std::string::npos ||
      second->out.size() != batch2.size() + 2 || second->out.find(key2) != std::string::npos ||
      second->out.find(q2) == std::string::npos || second->out.find(e) == std::string::npos) {
    return std::nullopt;
  }
  for (char c : batch2) {
    if (second->out.find(c) == std::string::npos || v_letters.find(c) == std::string::npos) return std::nullopt;
  }
  m.interior.push_back(root);
  m.fused = OpKind::kAttention;
  // A transpose that alone reads the output (back to [B, L, H, D]) joins the
  // match, so that the two transposes cancel.
  std::string out_letters = second->out;
  if (const auto& users = users_[static_cast<size_t>(pv.results[0])];
      users.size() == 1 && users[0] >= 0 && graph_.op(users[0]).kind == OpKind::kTranspose) {
    auto perm = graph_.op(users[0]).attrs.GetInts("perm");
    if (perm && perm->size() == out_letters.size()) {
      std::string permuted;
      for (int64_t i : *perm) permuted += second->out[static_cast<size_t>(i)];
      out_letters = permuted;
      m.root = users[0];
      m.interior.push_back(users[0]);
    }
  }
  std::sort(m.interior.begin(), m.interior.end());

  // [batch, seq, heads, dim] targets; with one batch letter (B*H merged), the
  // heads are that letter and a unit batch is added by a reshape.
  const bool merged = batch.size() == 1;
  auto target = [&](const std::string& bl, char seq, char dim) {
    return merged ? std::string{seq, bl[0], dim} : std::string{bl[0], seq, bl[1], dim};
  };
  const std::string tq = target(batch, q, d), tk = target(batch, key, d), tv = target(batch2, key2, e);
  const std::string tout = target(batch2, q2, e);
  const ValueId q_in = qk->operands[0], k_in = qk->operands[1], v_in = pv.operands[static_cast<size_t>(1 - p_index)];
  const std::string a = first->a, b = first->b;
  const int64_t lq = graph_.type(q_in).shape[a.find(q)], lk = graph_.type(k_in).shape[b.find(key)];
  const pir::DType out_dtype = graph_.type(graph_.op(m.root == pir::kNoOp ? root : m.root).results[0]).dtype;
  // Grouped-query K/V: both repeated alike, their heads on the heads letter.
  std::optional<Repeat> k_repeat, v_repeat;
  if (!merged) {
    k_repeat = RepeatedHeads(k_in, b);
    v_repeat = RepeatedHeads(v_in, v_letters);
    auto heads_ok = [&](const std::optional<Repeat>& rep) {
      return rep && rep->letters.find('?') == std::string::npos &&
             rep->letters[static_cast<size_t>(rep->heads_dim)] == batch[1];
    };
    if (!heads_ok(k_repeat) || !heads_ok(v_repeat) ||
        graph_.type(k_repeat->source).shape[static_cast<size_t>(k_repeat->heads_dim)] !=
            graph_.type(v_repeat->source).shape[static_cast<size_t>(v_repeat->heads_dim)]) {
      k_repeat.reset();
      v_repeat.reset();
    }
  }
  // The mask operand's letters: the first einsum's output, renamed nowhere
  // (the mask sits on the scores); target [b, h, q, kv] or [bh, q, kv].
  const std::string mask_want = merged ? std::string{batch[0], q, key} : std::string{batch[0], batch[1], q, key};
  const std::string scores_letters = first->out;
  const MaskRead mask_read = mask;
  const Matcher* self = this;
  m.emit = [=, &pv](Rebuild& r) -> StatusOr<ValueId> {
    const std::string& name = pv.name;
    auto operand = [&](ValueId v, const std::string& have, const std::string& want, const std::string& leaf,
                       const std::optional<Repeat>& repeat) -> StatusOr<ValueId> {
      ValueId t;
      if (repeat) {
        AZ_ASSIGN_OR_RETURN(t, self->EmitRepeatSource(r, *repeat, name + "." + leaf, pv.loc));
        std::vector<int64_t> perm = PermFor(repeat->letters, want);
        bool identity = true;
        for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
        if (!identity) {
          pir::Attributes attrs;
          attrs.Set("perm", perm);
          AZ_ASSIGN_OR_RETURN(t, r.Add(OpKind::kTranspose, name + "." + leaf, {t}, std::move(attrs), pv.loc));
        }
      } else {
        AZ_ASSIGN_OR_RETURN(t, TransposeComposed(*self, r, v, PermFor(have, want), name + "." + leaf, pv.loc));
      }
      if (!merged) return t;
      pir::Shape s = r.graph().type(t).shape;
      pir::Attributes attrs;
      attrs.Set("shape", std::vector<int64_t>{1, s[0], s[1], s[2]});
      return r.Add(OpKind::kReshape, name + "." + leaf + "_batch", {t}, std::move(attrs), pv.loc);
    };
    AZ_ASSIGN_OR_RETURN(ValueId q4, operand(q_in, a, tq, "q", std::nullopt));
    AZ_ASSIGN_OR_RETURN(ValueId k4, operand(k_in, b, tk, "k", k_repeat));
    AZ_ASSIGN_OR_RETURN(ValueId v4, operand(v_in, v_letters, tv, "v", v_repeat));
    pir::DType dt = r.graph().type(q4).dtype;
    AZ_ASSIGN_OR_RETURN(k4, r.Convert(k4, dt, name + ".k_cast", pv.loc));
    AZ_ASSIGN_OR_RETURN(v4, r.Convert(v4, dt, name + ".v_cast", pv.loc));
    pir::Attributes attrs = mask_read.attrs;
    attrs.Set("mode", std::string(lq == lk ? "self" : "cross"));
    std::vector<ValueId> operands{q4, k4, v4};
    if (mask_read.operand >= 0) {
      AZ_ASSIGN_OR_RETURN(ValueId mask4, self->EmitMaskOperand(r, mask_read.operand, scores_letters, mask_want,
                                                               name, pv.loc));
      operands.push_back(mask4);
    }
    AZ_ASSIGN_OR_RETURN(ValueId o, r.Add(OpKind::kAttention, name, std::move(operands), std::move(attrs), pv.loc));
    if (merged) {
      pir::Shape s = r.graph().type(o).shape;
      pir::Attributes drop;
      drop.Set("shape", std::vector<int64_t>{s[1], s[2], s[3]});
      AZ_ASSIGN_OR_RETURN(o, r.Add(OpKind::kReshape, name + ".unbatch", {o}, std::move(drop), pv.loc));
    }
    std::vector<int64_t> perm = PermFor(tout, out_letters);
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
    if (!identity) {
      pir::Attributes t;
      t.Set("perm", perm);
      AZ_ASSIGN_OR_RETURN(o, r.Add(OpKind::kTranspose, name + ".out", {o}, std::move(t), pv.loc));
    }
    return r.Convert(o, out_dtype, name + ".convert", pv.loc);
  };
  return m;
}

}  // namespace az::frontend::fold_internal
