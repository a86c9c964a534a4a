// The attention fold's masks (fold.h, fold_attention.cc): what a mask step
// between the scores and the softmax keeps.
//
// Masks are read as the set of kept (query i, key j) pairs. A boolean built
// from index arithmetic (the importer records compares of iota differences
// as attributes iota_pos, iota_neg, iota_offset: iota(pos) - iota(neg) +
// offset DIR 0) or a constant the importer read as a band of i - j
// (constant_band.h) is a band lo <= i - j <= hi; not (compare EQ 0)
// complements a half-infinite band, and (min) intersects bands, where picks
// between two known values. [0, inf) is causal, [0, W - 1] a window of W
// keys; any other mask stays a tensor operand. Fills and additive biases are
// read from the splat constants the importer knew: -inf (or below -1e9)
// drops, 0 keeps.
#include <algorithm>
#include <limits>

#include "frontend/import/fold_internal.h"

namespace az::frontend::fold_internal {

namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

// lo <= i - j <= hi over the query index i and the key index j.
struct Band {
  int64_t lo = -kInf, hi = kInf;
};

bool VeryNegative(std::optional<double> v) { return v && (*v <= -1e9); }

// The complement of a half-infinite band; nullopt for a bounded one (its
// complement is two bands).
std::optional<Band> Complement(const Band& band) {
  if (band.lo == -kInf) return Band{band.hi + 1, kInf};
  if (band.hi == kInf) return Band{-kInf, band.lo - 1};
  return std::nullopt;
}

// How a mask value is read: a boolean (or 0/1) keeps where it is nonzero; an
// additive bias keeps where it is 0 and drops where it is -inf (or below -1e9).
enum class Reading { kNonzero, kAdditive };

// Whether a known value `v` is kept under `reading`; nullopt when it is
// neither kept nor dropped (an additive 0.5).
std::optional<bool> Kept(double v, Reading reading) {
  if (reading == Reading::kNonzero) return v != 0;
  if (v == 0) return true;
  if (VeryNegative(v)) return false;
  return std::nullopt;
}

// The band of (query, key) pairs a mask value `v` keeps under `reading`, where
// v's dims qpos and kpos are the query and key dims; nullopt when v is not
// index arithmetic over them (iota compares, the importer's band constants,
// and where/not/and/convert over them).
std::optional<Band> BandOf(const Matcher& m, ValueId v, int64_t qpos, int64_t kpos, Reading reading, int depth = 0);

// BandOf of an operand `v` of an element-wise op whose result has rank
// `rank`: a lower-rank operand is broadcast NumPy-style (trailing dims aligned).
std::optional<Band> BandOfOperand(const Matcher& m, ValueId v, int64_t rank, int64_t qpos, int64_t kpos,
                                  Reading reading, int depth) {
  const int64_t missing = rank - m.graph().type(v).rank();
  if (missing < 0 || qpos < missing || kpos < missing) return std::nullopt;
  return BandOf(m, v, qpos - missing, kpos - missing, reading, depth);
}

std::optional<Band> BandOf(const Matcher& m, ValueId v, int64_t qpos, int64_t kpos, Reading reading, int depth) {
  if (depth > 12) return std::nullopt;
  const Op* p = m.Producer(v);
  const Graph& g = m.graph();
  if (!p) {
    // A constant the importer read as a band of i - j over two of its dims.
    const ConstantBand* c = m.ConstantBandOf(v);
    if (!c) return std::nullopt;
    auto in = Kept(c->inside, reading), out = Kept(c->outside, reading);
    if (!in || !out || *in == *out) return std::nullopt;
    Band band{c->lo == -ConstantBand::kNoBandLimit ? -kInf : c->lo, c->hi == ConstantBand::kNoBandLimit ? kInf : c->hi};
    if (c->row_dim == kpos && c->col_dim == qpos) {  // lo <= j - i <= hi
      band = Band{band.hi == kInf ? -kInf : -band.hi, band.lo == -kInf ? kInf : -band.lo};
    } else if (c->row_dim != qpos || c->col_dim != kpos) {
      return std::nullopt;
    }
    return *in ? std::optional<Band>(band) : Complement(band);
  }
  switch (p->kind) {
    case OpKind::kBroadcast: {
      auto dims = p->attrs.GetInts("dims");
      if (!dims) return std::nullopt;
      auto at = [&](int64_t pos) -> int64_t {
        auto it = std::find(dims->begin(), dims->end(), pos);
        return it == dims->end() ? -1 : it - dims->begin();
      };
      const int64_t q = at(qpos), k = at(kpos);
      if (q < 0 || k < 0) return std::nullopt;
      return BandOf(m, p->operands[0], q, k, reading, depth + 1);
    }
    case OpKind::kReshape: {
      // Only a reshape that adds or drops unit dims: the other dims keep their order.
      const pir::Shape& in = g.type(p->operands[0]).shape;
      const pir::Shape& out = g.type(v).shape;
      std::vector<int64_t> in_dims, out_dims;
      for (size_t d = 0; d < in.size(); ++d) {
        if (in[d] != 1) in_dims.push_back(static_cast<int64_t>(d));
      }
      for (size_t d = 0; d < out.size(); ++d) {
        if (out[d] != 1) out_dims.push_back(static_cast<int64_t>(d));
      }
      if (in_dims.size() != out_dims.size()) return std::nullopt;
      int64_t q = -1, k = -1;
      for (size_t n = 0; n < out_dims.size(); ++n) {
        if (in[static_cast<size_t>(in_dims[n])] != out[static_cast<size_t>(out_dims[n])]) return std::nullopt;
        if (out_dims[n] == qpos) q = in_dims[n];
        if (out_dims[n] == kpos) k = in_dims[n];
      }
      if (q < 0 || k < 0) return std::nullopt;
      return BandOf(m, p->operands[0], q, k, reading, depth + 1);
    }
    case OpKind::kConvert: {
      // bool <-> float keeps nonzero-ness; an additive bias keeps its values.
      const bool to_bool = g.type(v).dtype == pir::DType::kBool;
      if (reading == Reading::kAdditive && to_bool) return std::nullopt;
      return BandOf(m, p->operands[0], qpos, kpos, reading, depth + 1);
    }
    case OpKind::kWhere: {
      // where(c, a, b) with known a and b: kept where c picks the kept one.
      if (!m.SplatLike(p->operands[1]) || !m.SplatLike(p->operands[2])) return std::nullopt;
      auto a = m.ScalarValue(p->operands[1]), b = m.ScalarValue(p->operands[2]);
      if (!a || !b) return std::nullopt;
      auto ka = Kept(*a, reading), kb = Kept(*b, reading);
      if (!ka || !kb || *ka == *kb) return std::nullopt;
      auto cond = BandOfOperand(m, p->operands[0], g.type(v).rank(), qpos, kpos, Reading::kNonzero, depth + 1);
      if (!cond) return std::nullopt;
      return *ka ? cond : Complement(*cond);
    }
    case OpKind::kMin: {  // and
      if (reading != Reading::kNonzero || g.type(v).dtype != pir::DType::kBool) return std::nullopt;
      auto a = BandOfOperand(m, p->operands[0], g.type(v).rank(), qpos, kpos, reading, depth + 1);
      auto b = BandOfOperand(m, p->operands[1], g.type(v).rank(), qpos, kpos, reading, depth + 1);
      if (!a || !b) return std::nullopt;
      return Band{std::max(a->lo, b->lo), std::min(a->hi, b->hi)};
    }
    case OpKind::kCompare: {
      if (reading != Reading::kNonzero) return std::nullopt;
      const std::string dir = p->attrs.GetString("direction").value_or("");
      auto pos = p->attrs.GetInt("iota_pos"), neg = p->attrs.GetInt("iota_neg"), off = p->attrs.GetInt("iota_offset");
      if (!pos || !neg || !off) {
        // x == 0 (not x), x != 0 (x): x's band, complemented for EQ; a
        // constant of unknown value: nothing.
        if (!m.SplatLike(p->operands[1])) return std::nullopt;
        auto value = m.ScalarValue(p->operands[1]);
        if (!value || *value != 0 || (dir != "EQ" && dir != "NE")) return std::nullopt;
        auto inner = BandOfOperand(m, p->operands[0], g.type(v).rank(), qpos, kpos, Reading::kNonzero, depth + 1);
        if (!inner || dir == "NE") return inner;
        return Complement(*inner);
      }
      int sign;
      if (*pos == qpos && *neg == kpos) {
        sign = 1;  // (i - j) + off DIR 0
      } else if (*pos == kpos && *neg == qpos) {
        sign = -1;  // -(i - j) + off DIR 0
      } else {
        return std::nullopt;
      }
      // sign * d DIR' -off with DIR' flipped for sign -1.
      std::string d = dir;
      const int64_t c = sign > 0 ? -*off : *off;
      if (sign < 0) d = dir == "GE" ? "LE" : dir == "GT" ? "LT" : dir == "LE" ? "GE" : dir == "LT" ? "GT" : dir;
      if (d == "GE") return Band{c, kInf};
      if (d == "GT") return Band{c + 1, kInf};
      if (d == "LE") return Band{-kInf, c};
      if (d == "LT") return Band{-kInf, c - 1};
      if (d == "EQ") return Band{c, c};
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// The mask a band keeps: causal, a window, or nothing PIR names.
std::optional<pir::Attributes> MaskOfBand(const Band& band) {
  pir::Attributes attrs;
  if (band.lo != 0) return std::nullopt;
  if (band.hi >= kInf / 2) {
    attrs.Set("mask", std::string("causal"));
    return attrs;
  }
  if (band.hi < 0) return std::nullopt;
  attrs.Set("mask", std::string("window"));
  attrs.Set("window", band.hi + 1);
  return attrs;
}

}  // namespace

// Reads a boolean mask `cond` kept where it is `keep_when`: a band mask's
// attributes, or nullopt.
std::optional<pir::Attributes> Matcher::BandMask(ValueId cond, bool keep_when, int64_t qpos, int64_t kpos) const {
  auto band = BandOf(*this, cond, qpos, kpos, Reading::kNonzero);
  if (band && !keep_when) band = Complement(*band);
  if (!band) return std::nullopt;
  return MaskOfBand(*band);
}

// A step of the score chain (from the softmax back to the QK einsum) that
// applies a mask to `s`: fills in `mask` and returns the masked value's input.
std::optional<ValueId> Matcher::MaskStep(ValueId s, int64_t qpos, int64_t kpos, MaskRead& mask,
                                         std::vector<OpId>& interior) const {
  const Op* p = Producer(s);
  if (!p) return std::nullopt;
  if (p->kind == OpKind::kWhere) {
    // where(m, s, fill) keeps where m; where(m, fill, s) drops there.
    ValueId cond = p->operands[0], a = p->operands[1], b = p->operands[2];
    bool keep_when;
    ValueId inner, fill;
    if (SplatLike(b) && !SplatLike(a)) {
      keep_when = true, inner = a, fill = b;
    } else if (SplatLike(a) && !SplatLike(b)) {
      keep_when = false, inner = b, fill = a;
    } else {
      return std::nullopt;
    }
    auto fill_value = ScalarValue(fill);
    if (fill_value && !VeryNegative(fill_value)) return std::nullopt;  // not a mask: a clamp or a replacement
    interior.push_back(ProducerId(s));
    const int64_t missing = graph_.type(s).rank() - graph_.type(cond).rank();
    if (auto band = fill_value && missing >= 0 && qpos >= missing && kpos >= missing
                        ? BandMask(cond, keep_when, qpos - missing, kpos - missing)
                        : std::nullopt) {
      mask.attrs = *band;
      return inner;
    }
    mask.attrs.Set("mask", std::string("tensor"));
    mask.attrs.Set("mask_operand", std::string(keep_when ? "keep" : "drop"));
    mask.operand = cond;
    return inner;
  }
  if (p->kind == OpKind::kAdd) {
    for (int side = 0; side < 2; ++side) {
      ValueId inner = p->operands[static_cast<size_t>(side)], bias = p->operands[static_cast<size_t>(1 - side)];
      if (ScalarLike(bias) || !LeadsToEinsum(inner)) continue;
      interior.push_back(ProducerId(s));
      // bias = B(where(m, 0, -inf)), B(where(m, -inf, 0)), a band constant of
      // 0 and -inf, or index arithmetic over them: a band of kept keys.
      if (auto band = BandOfOperand(*this, bias, graph_.type(s).rank(), qpos, kpos, Reading::kAdditive, 0)) {
        if (auto attrs = MaskOfBand(*band)) {
          mask.attrs = *attrs;
          return inner;
        }
      }
      mask.attrs.Set("mask", std::string("tensor"));
      mask.attrs.Set("mask_operand", std::string("add"));
      mask.operand = bias;
      return inner;
    }
  }
  return std::nullopt;
}

// Whether a chain of converts, scalar scales and masks from `v` reaches an einsum.
bool Matcher::LeadsToEinsum(ValueId v) const {
  for (int hops = 0; hops < 8; ++hops) {
    const Op* p = Producer(v);
    if (!p) return false;
    if (p->kind == OpKind::kEinsum) return true;
    if (p->kind == OpKind::kConvert || p->kind == OpKind::kMul || p->kind == OpKind::kDiv) {
      v = ScalarLike(p->operands[0]) && p->operands.size() > 1 ? p->operands[1] : p->operands[0];
    } else if (p->kind == OpKind::kWhere) {
      v = ScalarLike(p->operands[1]) ? p->operands[2] : p->operands[1];
    } else if (p->kind == OpKind::kAdd) {
      v = ScalarLike(p->operands[0]) ? p->operands[1] : p->operands[0];
      if (LeadsToEinsum(p->operands[1]) && !ScalarLike(p->operands[1])) return true;
    } else {
      return false;
    }
  }
  return false;
}

// A guard after the softmax: where(c, 0, p) (or where(c, p, 0)) whose c is
// computed from `scores` and constants alone; its ops (c's cone), or nullopt.
std::optional<std::vector<OpId>> Matcher::GuardCone(ValueId cond, ValueId scores, OpId guard) const {
  std::vector<OpId> cone;
  std::vector<ValueId> stack{cond};
  std::set<ValueId> seen;
  while (!stack.empty()) {
    ValueId v = stack.back();
    stack.pop_back();
    if (v == scores || !seen.insert(v).second) continue;
    if (ScalarLike(v) && graph_.value(v).producer == pir::kNoOp) continue;
    const Op* p = Producer(v);
    if (!p) return std::nullopt;  // reads another input: not a guard of these scores
    if (ScalarLike(v) && p->kind == OpKind::kBroadcast) continue;  // a broadcast constant, left in place
    if (p->kind == OpKind::kEinsum || cone.size() > 32) return std::nullopt;
    cone.push_back(ProducerId(v));
    for (ValueId operand : p->operands) stack.push_back(operand);
  }
  // The cone's values are used only inside it (and by the guard).
  std::set<OpId> inside(cone.begin(), cone.end());
  inside.insert(guard);
  for (OpId id : cone) {
    for (ValueId r : graph_.op(id).results) {
      for (OpId user : UsersOf(r)) {
        if (!inside.count(user)) return std::nullopt;
      }
    }
  }
  std::sort(cone.begin(), cone.end());
  cone.erase(std::unique(cone.begin(), cone.end()), cone.end());
  return cone;
}

}  // namespace az::frontend::fold_internal
