// Pattern folding (fold.h): match on the old graph, rebuild with replacements.
// The softmax, norm and activation matchers and the pass driver; attention,
// with its masks and grouped-query K/V, is fold_attention.cc; the rebuild and
// the matcher's helpers are fold_internal.h.
#include "frontend/import/fold.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "frontend/import/fold_internal.h"
#include "pir/rules/rule.h"

namespace az::frontend::fold_internal {

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

static bool IsElementwise(OpKind kind) {
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


}  // namespace az::frontend::fold_internal

namespace az::frontend {

using namespace fold_internal;  // NOLINT: the folds' own internals

namespace {

// One pass: find non-overlapping matches with `find`, rebuild.
StatusOr<std::vector<OpKind>> RunPass(Graph& graph, std::vector<ValueId>& value_map, std::map<ValueId, double>& splats,
                                      std::map<ValueId, ConstantBand>& bands,
                                      const std::function<std::optional<Match>(const Matcher&, OpId)>& find) {
  Matcher matcher(graph, splats, bands);
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
  std::map<ValueId, double> remapped;
  for (const auto& [v, value] : splats) {
    if (pass_map[static_cast<size_t>(v)] >= 0) remapped[pass_map[static_cast<size_t>(v)]] = value;
  }
  splats = std::move(remapped);
  std::map<ValueId, ConstantBand> remapped_bands;
  for (const auto& [v, band] : bands) {
    if (pass_map[static_cast<size_t>(v)] >= 0) remapped_bands[pass_map[static_cast<size_t>(v)]] = band;
  }
  bands = std::move(remapped_bands);
  return applied;
}

}  // namespace

StatusOr<FoldStats> FoldPatterns(Graph& graph, std::vector<ValueId>& value_map, std::map<ValueId, double> splats,
                                 std::map<ValueId, ConstantBand> bands) {
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
    AZ_ASSIGN_OR_RETURN(std::vector<OpKind> applied, RunPass(graph, value_map, splats, bands, find));
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
