// Pattern folding (fold.h): match on the old graph, rebuild with replacements.
// Size (760 lines): the four matchers (softmax, norms, activation clusters,
// attention) share the Matcher's use lists and the rebuild; the attention
// matcher is half of it.
#include "frontend/import/fold.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "pir/rules/rule.h"

namespace az::frontend {

using pir::Graph;
using pir::Op;
using pir::OpId;
using pir::OpKind;
using pir::ValueId;

namespace {

// Who uses each value (graph outputs count as a use by op -1).
std::vector<std::vector<OpId>> Users(const Graph& graph) {
  std::vector<std::vector<OpId>> users(static_cast<size_t>(graph.num_values()));
  for (OpId id = 0; id < graph.num_ops(); ++id) {
    for (ValueId v : graph.op(id).operands) users[static_cast<size_t>(v)].push_back(id);
  }
  for (ValueId v : graph.outputs()) users[static_cast<size_t>(v)].push_back(pir::kNoOp);
  return users;
}

// The new graph under construction: old values map to new ones.
class Rebuild {
 public:
  explicit Rebuild(const Graph& old) : old_(old), graph_(old.name()), map_(static_cast<size_t>(old.num_values()), -1) {
    graph_.attrs() = old.attrs();
    for (const pir::Mesh& mesh : old.meshes()) graph_.AddMesh(mesh);
    for (ValueId v = 0; v < old.num_values(); ++v) {
      const pir::Value& value = old.value(v);
      if (value.role == pir::ValueRole::kActivation) continue;
      map_[static_cast<size_t>(v)] = graph_.AddLeaf(value.role, value.name, value.type, value.loc);
      graph_.mutable_value(map_[static_cast<size_t>(v)]).sharding = value.sharding;
    }
  }

  ValueId Map(ValueId old) const { return map_[static_cast<size_t>(old)]; }
  void Bind(ValueId old, ValueId now) { map_[static_cast<size_t>(old)] = now; }

  void Copy(const Op& op) {
    std::vector<ValueId> operands;
    for (ValueId v : op.operands) operands.push_back(Map(v));
    std::vector<pir::TensorType> types;
    for (ValueId r : op.results) types.push_back(old_.type(r));
    OpId id = graph_.AddOp(op.kind, op.name, operands, types, op.attrs, op.loc);
    for (size_t k = 0; k < op.results.size(); ++k) {
      ValueId now = graph_.op(id).results[k];
      graph_.mutable_value(now).sharding = old_.value(op.results[k]).sharding;
      graph_.mutable_value(now).name = old_.value(op.results[k]).name;
      Bind(op.results[k], now);
    }
  }

  // A new op on new values; its type inferred.
  StatusOr<ValueId> Add(OpKind kind, const std::string& name, std::vector<ValueId> operands, pir::Attributes attrs,
                        const SourceLocation& loc) {
    std::vector<pir::TensorType> types;
    for (ValueId v : operands) types.push_back(graph_.type(v));
    AZ_ASSIGN_OR_RETURN(std::vector<pir::TensorType> results, pir::InferResultTypes(kind, types, attrs, {}));
    OpId id = graph_.AddOp(kind, name, std::move(operands), std::move(results), std::move(attrs), loc);
    return graph_.op(id).results[0];
  }

  StatusOr<ValueId> Convert(ValueId v, pir::DType dtype, const std::string& name, const SourceLocation& loc) {
    if (graph_.type(v).dtype == dtype) return v;
    pir::Attributes attrs;
    attrs.Set("dtype", std::string(pir::DTypeName(dtype)));
    return Add(OpKind::kConvert, name, {v}, std::move(attrs), loc);
  }

  Graph Finish(std::vector<ValueId>& value_map) {
    for (ValueId v : old_.outputs()) graph_.AddOutput(Map(v));
    value_map = map_;
    return std::move(graph_);
  }

  const Graph& graph() const { return graph_; }

 private:
  const Graph& old_;
  Graph graph_;
  std::vector<ValueId> map_;
};

using Emitter = std::function<StatusOr<ValueId>(Rebuild&)>;

struct Match {
  std::vector<OpId> interior;  // removed, the root among them
  Emitter emit;
  OpKind fused = OpKind::kCustom;  // what the pattern becomes (for the statistics)
  OpId root = pir::kNoOp;          // the op whose result the emitted value replaces (default: the matched op)
};

class Matcher {
 public:
  explicit Matcher(const Graph& graph) : graph_(graph), users_(Users(graph)) {}

  const Op* Producer(ValueId v) const {
    OpId p = graph_.value(v).producer;
    return p == pir::kNoOp ? nullptr : &graph_.op(p);
  }
  OpId ProducerId(ValueId v) const { return graph_.value(v).producer; }
  bool SingleUse(ValueId v) const { return users_[static_cast<size_t>(v)].size() == 1 && users_[static_cast<size_t>(v)][0] >= 0; }
  size_t Uses(ValueId v) const { return users_[static_cast<size_t>(v)].size(); }
  const Graph& graph() const { return graph_; }

  // A value of one element, possibly broadcast or reshaped to a larger shape.
  bool ScalarLike(ValueId v) const {
    for (int hops = 0; hops < 16; ++hops) {
      if (graph_.type(v).NumElements() == 1) return true;
      const Op* p = Producer(v);
      if (!p || (p->kind != OpKind::kBroadcast && p->kind != OpKind::kReshape && p->kind != OpKind::kConvert)) {
        return false;
      }
      v = p->operands[0];
    }
    return false;
  }

  // Skips single-use reshapes/broadcasts that restore a reduced dim: returns the
  // value they start from, and the ops skipped.
  ValueId SkipRestore(ValueId v, std::vector<OpId>& ops) const {
    while (true) {
      const Op* p = Producer(v);
      if (!p || (p->kind != OpKind::kReshape && p->kind != OpKind::kBroadcast) || !SingleUse(v)) return v;
      ops.push_back(ProducerId(v));
      v = p->operands[0];
    }
  }

  // Skips single-use converts (and, with `scales`, multiplications or
  // divisions by a scalar).
  ValueId SkipCasts(ValueId v, std::vector<OpId>& ops, bool scales) const {
    while (true) {
      const Op* p = Producer(v);
      if (!p || !SingleUse(v)) return v;
      if (p->kind == OpKind::kConvert) {
        ops.push_back(ProducerId(v));
        v = p->operands[0];
        continue;
      }
      if (scales && (p->kind == OpKind::kMul || p->kind == OpKind::kDiv)) {
        ValueId a = p->operands[0], b = p->operands[1];
        if (ScalarLike(b) && graph_.type(a).shape == graph_.type(v).shape) {
          ops.push_back(ProducerId(v));
          v = a;
          continue;
        }
        if (p->kind == OpKind::kMul && ScalarLike(a) && graph_.type(b).shape == graph_.type(v).shape) {
          ops.push_back(ProducerId(v));
          v = b;
          continue;
        }
      }
      return v;
    }
  }

  // reduce(x, dims=[axis], kind) producing `v`.
  const Op* ReduceOf(ValueId v, const std::string& kind) const {
    const Op* p = Producer(v);
    if (!p || p->kind != OpKind::kReduce || p->attrs.GetString("kind").value_or("sum") != kind) return nullptr;
    auto dims = p->attrs.GetInts("dims");
    if (!dims || dims->size() != 1) return nullptr;
    return p;
  }

  // The mean over the last dim ending at `v` (which may have `uses` users):
  // reduce(mean), or reduce(sum) scaled by a scalar (JAX divides the sum by
  // N; the scalar is taken to be 1/N, as constants carry no value in PIR),
  // with reshapes and broadcasts restoring the reduced dim after the reduce.
  // Returns the averaged value; `ops` gets the chain.
  std::optional<ValueId> MeanOf(ValueId v, size_t uses, std::vector<OpId>& ops) const {
    std::vector<OpId> chain;
    auto restore = [&](ValueId w) {
      while (true) {
        const Op* p = Producer(w);
        if (!p || (p->kind != OpKind::kReshape && p->kind != OpKind::kBroadcast) || Uses(w) != uses) return w;
        chain.push_back(ProducerId(w));
        w = p->operands[0];
        uses = 1;
      }
    };
    v = restore(v);
    const Op* p = Producer(v);
    if (p && (p->kind == OpKind::kMul || p->kind == OpKind::kDiv) && Uses(v) == uses) {
      int keep = ScalarLike(p->operands[1]) ? 0 : (p->kind == OpKind::kMul && ScalarLike(p->operands[0])) ? 1 : -1;
      if (keep < 0) return std::nullopt;
      chain.push_back(ProducerId(v));
      uses = 1;
      v = restore(p->operands[static_cast<size_t>(keep)]);
      if (!ReduceOf(v, "sum")) return std::nullopt;
    } else if (!ReduceOf(v, "mean")) {
      return std::nullopt;
    }
    if (Uses(v) != uses) return std::nullopt;
    const Op* reduce = Producer(v);
    ValueId x = reduce->operands[0];
    if ((*reduce->attrs.GetInts("dims"))[0] != graph_.type(x).rank() - 1) return std::nullopt;
    chain.push_back(ProducerId(v));
    ops.insert(ops.end(), chain.begin(), chain.end());
    return x;
  }

  // x * x, or pow(x, scalar) with the exponent taken to be 2: x.
  std::optional<ValueId> SquareOf(ValueId v) const {
    const Op* p = Producer(v);
    if (!p || !SingleUse(v)) return std::nullopt;
    if (p->kind == OpKind::kMul && p->operands[0] == p->operands[1]) return p->operands[0];
    if (p->kind == OpKind::kPow && ScalarLike(p->operands[1])) return p->operands[0];
    return std::nullopt;
  }

  std::optional<Match> Softmax(OpId root) const;
  std::optional<Match> Norm(OpId root) const;
  std::optional<Match> ActivationCluster(OpId root) const;
  std::optional<Match> Attention(OpId root) const;

 private:
  const Graph& graph_;
  std::vector<std::vector<OpId>> users_;
};

// div(e, B(reduce_sum(e))) with e = exp(x) or exp(x - B(reduce_max(x))).
std::optional<Match> Matcher::Softmax(OpId root) const {
  const Op& div = graph_.op(root);
  if (div.kind != OpKind::kDiv) return std::nullopt;
  Match m;
  ValueId e = div.operands[0];
  ValueId z = SkipRestore(div.operands[1], m.interior);
  const Op* sum = ReduceOf(z, "sum");
  if (!sum || sum->operands[0] != e || !SingleUse(z) || Uses(e) != 2) return std::nullopt;
  const int64_t axis = (*sum->attrs.GetInts("dims"))[0];
  m.interior.push_back(ProducerId(z));
  const Op* exp = Producer(e);
  if (!exp || exp->kind != OpKind::kExp) return std::nullopt;
  m.interior.push_back(ProducerId(e));
  ValueId x = exp->operands[0];
  if (const Op* sub = Producer(x); sub && sub->kind == OpKind::kSub && SingleUse(x)) {
    std::vector<OpId> restore;
    ValueId mx = SkipRestore(sub->operands[1], restore);
    // JAX floors the running max at -inf: max(broadcast(-inf), reduce_max(x)).
    if (const Op* floor = Producer(mx); floor && floor->kind == OpKind::kMax && SingleUse(mx)) {
      for (int k = 0; k < 2; ++k) {
        if (!ScalarLike(floor->operands[static_cast<size_t>(k)])) continue;
        restore.push_back(ProducerId(mx));
        mx = floor->operands[static_cast<size_t>(1 - k)];
        break;
      }
    }
    const Op* max = ReduceOf(mx, "max");
    if (max && max->operands[0] == sub->operands[0] && SingleUse(mx) && (*max->attrs.GetInts("dims"))[0] == axis) {
      m.interior.push_back(ProducerId(x));
      m.interior.insert(m.interior.end(), restore.begin(), restore.end());
      m.interior.push_back(ProducerId(mx));
      x = sub->operands[0];
    }
  }
  // The restore chains must bring the reduced value back to x's shape.
  if (graph_.type(x).shape != graph_.type(div.results[0]).shape) return std::nullopt;
  m.interior.push_back(root);
  m.fused = OpKind::kSoftmax;
  const pir::DType out = graph_.type(div.results[0]).dtype;
  m.emit = [x, axis, out, &div](Rebuild& r) -> StatusOr<ValueId> {
    pir::Attributes attrs;
    attrs.Set("axis", axis);
    AZ_ASSIGN_OR_RETURN(ValueId s, r.Add(OpKind::kSoftmax, div.name, {r.Map(x)}, std::move(attrs), div.loc));
    return r.Convert(s, out, div.name + ".convert", div.loc);
  };
  return m;
}

// x' * B(rsqrt(var + eps)), x' * B(1 / sqrt(var + eps)) (recip, or a scalar
// taken to be 1 divided by the root) or x' / B(sqrt(var + eps)), with var the mean of squares over the last dim: of x' = x (RMS norm),
// or of x - B(mean(x)) (layer norm; JAX recomputes the centered value, so the
// squared one may be a twin subtract of the same operands). Then, when the
// result is used only so, a multiply by a [d] parameter (the weight) and, for
// layer norm, an add of one (the bias). eps is not recovered (constants carry
// no value in PIR); it changes neither cost nor sharding.
std::optional<Match> Matcher::Norm(OpId root) const {
  const Op& op = graph_.op(root);
  if (op.kind != OpKind::kMul && op.kind != OpKind::kDiv) return std::nullopt;
  for (int side = 0; side < (op.kind == OpKind::kMul ? 2 : 1); ++side) {
    Match m;
    ValueId a = op.operands[static_cast<size_t>(side)];
    ValueId n = SkipRestore(op.operands[static_cast<size_t>(1 - side)], m.interior);
    const Op* inv = Producer(n);
    if (!inv || !SingleUse(n)) continue;
    m.interior.push_back(ProducerId(n));
    ValueId shifted;
    if (op.kind == OpKind::kDiv) {
      if (inv->kind != OpKind::kSqrt) continue;
      shifted = inv->operands[0];
    } else if (inv->kind == OpKind::kRsqrt) {
      shifted = inv->operands[0];
    } else if (inv->kind == OpKind::kRecip || (inv->kind == OpKind::kDiv && ScalarLike(inv->operands[0]))) {
      // 1 / sqrt: recip, or a scalar (taken to be 1; PyTorch's exporter) divided by it.
      ValueId root_of = inv->operands[inv->kind == OpKind::kDiv ? 1 : 0];
      const Op* sqrt = Producer(root_of);
      if (!sqrt || sqrt->kind != OpKind::kSqrt || !SingleUse(root_of)) continue;
      m.interior.push_back(ProducerId(root_of));
      shifted = sqrt->operands[0];
    } else {
      continue;
    }
    const Op* add = Producer(shifted);
    if (!add || add->kind != OpKind::kAdd || !SingleUse(shifted)) continue;
    int var_side = ScalarLike(add->operands[1]) ? 0 : ScalarLike(add->operands[0]) ? 1 : -1;
    if (var_side < 0) continue;
    m.interior.push_back(ProducerId(shifted));
    auto squared = MeanOf(add->operands[static_cast<size_t>(var_side)], 1, m.interior);
    if (!squared) continue;
    auto c = SquareOf(*squared);
    if (!c) continue;
    m.interior.push_back(ProducerId(*squared));
    // x * x reads its operand twice.
    const size_t square_reads = Producer(*squared)->kind == OpKind::kMul ? 2 : 1;
    // RMS: the squared value is the numerator. Layer norm: both are x - B(mu).
    ValueId x = a;
    OpKind fused = OpKind::kRmsNorm;
    const Op* sub = Producer(a);
    if (*c == a && Uses(a) == square_reads + 1 && sub && sub->kind == OpKind::kSub) {
      std::vector<OpId> centered;
      ValueId mu = SkipRestore(sub->operands[1], centered);
      if (MeanOf(mu, 1, centered) == sub->operands[0]) {
        m.interior.push_back(ProducerId(a));
        m.interior.insert(m.interior.end(), centered.begin(), centered.end());
        x = sub->operands[0];
        fused = OpKind::kLayerNorm;
      }
    } else if (*c != a) {
      const Op* twin = Producer(*c);
      if (!sub || !twin || sub->kind != OpKind::kSub || twin->kind != OpKind::kSub || !SingleUse(a) ||
          Uses(*c) != square_reads || sub->operands[0] != twin->operands[0]) {
        continue;
      }
      std::vector<OpId> centered;
      ValueId mu = SkipRestore(sub->operands[1], centered);
      ValueId mu_twin = SkipRestore(twin->operands[1], centered);
      if (mu != mu_twin || MeanOf(mu, 2, centered) != sub->operands[0]) continue;
      m.interior.push_back(ProducerId(a));
      m.interior.push_back(ProducerId(*c));
      m.interior.insert(m.interior.end(), centered.begin(), centered.end());
      x = sub->operands[0];
      fused = OpKind::kLayerNorm;
    } else if (Uses(a) < square_reads + 1) {
      continue;
    }
    const pir::Shape& shape = graph_.type(x).shape;
    if (shape.empty() || graph_.type(op.results[0]).shape != shape) continue;
    m.interior.push_back(root);
    // The affine tail: * B(weight [d]), then (layer norm) + B(bias [d]).
    auto affine = [&](ValueId v, OpKind kind) -> std::optional<std::pair<OpId, ValueId>> {
      if (!SingleUse(v)) return std::nullopt;
      OpId user = users_[static_cast<size_t>(v)][0];
      const Op& u = graph_.op(user);
      if (u.kind != kind || u.operands.size() != 2 || u.operands[0] == u.operands[1] ||
          graph_.type(u.results[0]).shape != shape) {
        return std::nullopt;
      }
      std::vector<OpId> chain{user};
      ValueId param = u.operands[u.operands[0] == v ? 1 : 0];
      while (const Op* p = Producer(param)) {
        if ((p->kind != OpKind::kReshape && p->kind != OpKind::kBroadcast) || !SingleUse(param)) break;
        chain.push_back(ProducerId(param));
        param = p->operands[0];
      }
      if (graph_.value(param).role != pir::ValueRole::kParameter || graph_.type(param).shape != pir::Shape{shape.back()}) {
        return std::nullopt;
      }
      m.interior.insert(m.interior.end(), chain.begin(), chain.end());
      return std::pair{user, param};
    };
    std::vector<ValueId> params;
    OpId last = root;
    if (auto weight = affine(op.results[0], OpKind::kMul)) {
      last = weight->first;
      params.push_back(weight->second);
      if (fused == OpKind::kLayerNorm) {
        if (auto bias = affine(graph_.op(last).results[0], OpKind::kAdd)) {
          last = bias->first;
          params.push_back(bias->second);
        }
      }
    }
    std::sort(m.interior.begin(), m.interior.end());
    m.interior.erase(std::unique(m.interior.begin(), m.interior.end()), m.interior.end());
    m.root = last;
    m.fused = fused;
    const Op& out_op = graph_.op(last);
    const pir::DType out = graph_.type(out_op.results[0]).dtype;
    m.emit = [x, params, fused, out, &out_op](Rebuild& r) -> StatusOr<ValueId> {
      std::vector<ValueId> operands{r.Map(x)};
      for (ValueId p : params) operands.push_back(r.Map(p));
      pir::Attributes attrs;
      attrs.Set("eps", 1e-6);
      AZ_ASSIGN_OR_RETURN(ValueId y, r.Add(fused, out_op.name, std::move(operands), std::move(attrs), out_op.loc));
      return r.Convert(y, out, out_op.name + ".convert", out_op.loc);
    };
    return m;
  }
  return std::nullopt;
}

bool IsElementwise(OpKind kind) {
  pir::OpFamily f = pir::GetOpKindInfo(kind).family;
  return (f == pir::OpFamily::kUnary && kind != OpKind::kConvert) ||
         (f == pir::OpFamily::kBinary && kind != OpKind::kCompare && kind != OpKind::kWhere);
}

// A mul whose single-use element-wise cone reads one tensor x (besides
// scalars): erf in the cone -> gelu; tanh and a cube -> gelu_tanh; just
// sigmoid(x) -> silu.
std::optional<Match> Matcher::ActivationCluster(OpId root) const {
  const Op& mul = graph_.op(root);
  if (mul.kind != OpKind::kMul) return std::nullopt;
  const pir::Shape& shape = graph_.type(mul.results[0]).shape;
  std::vector<OpId> cone{root};
  std::set<OpKind> kinds;
  ValueId x = -1;
  int x_reads = 0;
  std::vector<ValueId> stack(mul.operands.begin(), mul.operands.end());
  while (!stack.empty()) {
    ValueId v = stack.back();
    stack.pop_back();
    if (ScalarLike(v)) continue;
    const Op* p = Producer(v);
    bool inner = p && IsElementwise(p->kind) && SingleUse(v) && graph_.type(v).shape == shape && cone.size() < 24;
    if (inner && x >= 0 && v == x) inner = false;
    if (!inner) {
      if (x >= 0 && v != x) return std::nullopt;
      if (graph_.type(v).shape != shape) return std::nullopt;
      x = v;
      ++x_reads;
      continue;
    }
    cone.push_back(ProducerId(v));
    kinds.insert(p->kind);
    for (ValueId operand : p->operands) stack.push_back(operand);
  }
  if (x < 0 || x_reads < 2) return std::nullopt;
  OpKind fused;
  if (kinds.count(OpKind::kErf)) {
    fused = OpKind::kGelu;
  } else if (kinds.count(OpKind::kTanh) && (kinds.count(OpKind::kPow) || x_reads >= 4)) {
    fused = OpKind::kGeluTanh;
  } else if (kinds == std::set<OpKind>{OpKind::kSigmoid} && cone.size() == 2) {
    fused = OpKind::kSilu;
  } else {
    return std::nullopt;
  }
  Match m;
  std::sort(cone.begin(), cone.end());
  m.interior = cone;
  m.fused = fused;
  const pir::DType out = graph_.type(mul.results[0]).dtype;
  m.emit = [x, fused, out, &mul](Rebuild& r) -> StatusOr<ValueId> {
    AZ_ASSIGN_OR_RETURN(ValueId y, r.Add(fused, mul.name, {r.Map(x)}, {}, mul.loc));
    return r.Convert(y, out, mul.name + ".convert", mul.loc);
  };
  return m;
}

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

// einsum(softmax(einsum(q, k)), v), with casts and a scalar scale around the softmax.
std::optional<Match> Matcher::Attention(OpId root) const {
  const Op& pv = graph_.op(root);
  auto second = EinsumLetters(pv);
  if (!second) return std::nullopt;
  Match m;
  // The probabilities: operand 0 (or 1) of the second einsum.
  int p_index = -1;
  const Op* softmax = nullptr;
  ValueId probs = -1;
  for (int k = 0; k < 2 && !softmax; ++k) {
    std::vector<OpId> casts;
    ValueId v = SkipCasts(pv.operands[static_cast<size_t>(k)], casts, false);
    const Op* p = Producer(v);
    if (p && p->kind == OpKind::kSoftmax && SingleUse(v)) {
      softmax = p;
      p_index = k;
      probs = v;
      m.interior = casts;
    }
  }
  if (!softmax) return std::nullopt;
  m.interior.push_back(ProducerId(probs));
  ValueId scores = SkipCasts(softmax->operands[0], m.interior, true);
  const Op* qk = Producer(scores);
  auto first = qk ? EinsumLetters(*qk) : std::nullopt;
  if (!first || !SingleUse(scores)) return std::nullopt;
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
  const Matcher* self = this;
  m.emit = [=, &pv](Rebuild& r) -> StatusOr<ValueId> {
    const std::string& name = pv.name;
    auto operand = [&](ValueId v, const std::string& have, const std::string& want,
                       const std::string& leaf) -> StatusOr<ValueId> {
      AZ_ASSIGN_OR_RETURN(ValueId t, TransposeComposed(*self, r, v, PermFor(have, want), name + "." + leaf, pv.loc));
      if (!merged) return t;
      pir::Shape s = r.graph().type(t).shape;
      pir::Attributes attrs;
      attrs.Set("shape", std::vector<int64_t>{1, s[0], s[1], s[2]});
      return r.Add(OpKind::kReshape, name + "." + leaf + "_batch", {t}, std::move(attrs), pv.loc);
    };
    AZ_ASSIGN_OR_RETURN(ValueId q4, operand(q_in, a, tq, "q"));
    AZ_ASSIGN_OR_RETURN(ValueId k4, operand(k_in, b, tk, "k"));
    AZ_ASSIGN_OR_RETURN(ValueId v4, operand(v_in, v_letters, tv, "v"));
    pir::DType dt = r.graph().type(q4).dtype;
    AZ_ASSIGN_OR_RETURN(k4, r.Convert(k4, dt, name + ".k_cast", pv.loc));
    AZ_ASSIGN_OR_RETURN(v4, r.Convert(v4, dt, name + ".v_cast", pv.loc));
    pir::Attributes attrs;
    attrs.Set("mode", std::string(lq == lk ? "self" : "cross"));
    AZ_ASSIGN_OR_RETURN(ValueId o, r.Add(OpKind::kAttention, name, {q4, k4, v4}, std::move(attrs), pv.loc));
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

// One pass: find non-overlapping matches with `find`, rebuild.
StatusOr<std::vector<OpKind>> RunPass(Graph& graph, std::vector<ValueId>& value_map,
                                      const std::function<std::optional<Match>(const Matcher&, OpId)>& find) {
  Matcher matcher(graph);
  std::vector<char> claimed(static_cast<size_t>(graph.num_ops()), 0);
  std::map<OpId, Emitter> roots;
  std::vector<OpKind> applied;
  for (OpId id = graph.num_ops() - 1; id >= 0; --id) {  // from the end: outer patterns first
    if (claimed[static_cast<size_t>(id)]) continue;
    std::optional<Match> m = find(matcher, id);
    if (!m) continue;
    bool free = std::none_of(m->interior.begin(), m->interior.end(),
                             [&](OpId op) { return claimed[static_cast<size_t>(op)] != 0; });
    if (!free) continue;
    for (OpId op : m->interior) claimed[static_cast<size_t>(op)] = 1;
    roots[m->root == pir::kNoOp ? id : m->root] = std::move(m->emit);
    applied.push_back(m->fused);
  }
  std::vector<ValueId> pass_map;
  if (roots.empty()) {
    pass_map.resize(static_cast<size_t>(graph.num_values()));
    for (ValueId v = 0; v < graph.num_values(); ++v) pass_map[static_cast<size_t>(v)] = v;
  } else {
    Rebuild r(graph);
    for (OpId id = 0; id < graph.num_ops(); ++id) {
      const Op& op = graph.op(id);
      auto root = roots.find(id);
      if (root != roots.end()) {
        AZ_ASSIGN_OR_RETURN(ValueId v, root->second(r));
        r.Bind(op.results[0], v);
      } else if (!claimed[static_cast<size_t>(id)]) {
        r.Copy(op);
      }
    }
    Graph rebuilt = r.Finish(pass_map);
    graph = std::move(rebuilt);
  }
  for (ValueId& v : value_map) {
    if (v >= 0) v = pass_map[static_cast<size_t>(v)];
  }
  return applied;
}

}  // namespace

StatusOr<FoldStats> FoldPatterns(Graph& graph, std::vector<ValueId>& value_map) {
  value_map.resize(static_cast<size_t>(graph.num_values()));
  for (ValueId v = 0; v < graph.num_values(); ++v) value_map[static_cast<size_t>(v)] = v;
  FoldStats stats;
  auto count = [&](const std::vector<OpKind>& applied) {
    for (OpKind kind : applied) {
      if (kind == OpKind::kSoftmax) ++stats.softmax;
      if (kind == OpKind::kLayerNorm || kind == OpKind::kRmsNorm) ++stats.norm;
      if (kind == OpKind::kAttention) ++stats.attention;
      if (kind == OpKind::kGelu || kind == OpKind::kGeluTanh) ++stats.gelu;
      if (kind == OpKind::kSilu) ++stats.silu;
    }
  };
  using Find = std::function<std::optional<Match>(const Matcher&, OpId)>;
  const Find passes[] = {
      [](const Matcher& m, OpId id) { return m.Softmax(id); },
      [](const Matcher& m, OpId id) { return m.Norm(id); },
      [](const Matcher& m, OpId id) { return m.ActivationCluster(id); },
      [](const Matcher& m, OpId id) { return m.Attention(id); },
  };
  for (const Find& find : passes) {
    AZ_ASSIGN_OR_RETURN(std::vector<OpKind> applied, RunPass(graph, value_map, find));
    count(applied);
  }
  return stats;
}

int PruneDeadOps(Graph& graph, std::vector<ValueId>& value_map) {
  std::vector<char> live(static_cast<size_t>(graph.num_values()), 0);
  for (ValueId v : graph.outputs()) live[static_cast<size_t>(v)] = 1;
  std::vector<char> keep(static_cast<size_t>(graph.num_ops()), 0);
  for (OpId id = graph.num_ops() - 1; id >= 0; --id) {
    const Op& op = graph.op(id);
    bool used = std::any_of(op.results.begin(), op.results.end(), [&](ValueId r) { return live[static_cast<size_t>(r)]; });
    if (!used) continue;
    keep[static_cast<size_t>(id)] = 1;
    for (ValueId v : op.operands) live[static_cast<size_t>(v)] = 1;
  }
  int removed = static_cast<int>(std::count(keep.begin(), keep.end(), 0));
  std::vector<ValueId> pass_map;
  if (removed == 0) return 0;
  Rebuild r(graph);
  for (OpId id = 0; id < graph.num_ops(); ++id) {
    if (keep[static_cast<size_t>(id)]) r.Copy(graph.op(id));
  }
  Graph rebuilt = r.Finish(pass_map);
  graph = std::move(rebuilt);
  for (ValueId& v : value_map) {
    if (v >= 0) v = pass_map[static_cast<size_t>(v)];
  }
  return removed;
}

}  // namespace az::frontend
