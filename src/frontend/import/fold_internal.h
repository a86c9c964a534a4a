// Internal to frontend/import's folds (fold.h): the rebuild of a graph with
// matched patterns replaced, and the matcher's use lists and chain helpers,
// shared by fold.cc (softmax, norms, activations, the pass driver) and
// fold_attention.cc (attention and grouped-query K/V) and fold_mask.cc (its masks).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/import/constant_band.h"
#include "pir/ir/graph.h"
#include "pir/rules/rule.h"
#include "support/status.h"

namespace az::frontend::fold_internal {

using pir::Graph;
using pir::Op;
using pir::OpId;
using pir::OpKind;
using pir::ValueId;


// Who uses each value (graph outputs count as a use by op -1).
inline std::vector<std::vector<OpId>> Users(const Graph& graph) {
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
  // `splats`: the values of splat constants (leaves), where the importer knew
  // them; `bands`: the constant leaves it read as band masks.
  Matcher(const Graph& graph, const std::map<ValueId, double>& splats, const std::map<ValueId, ConstantBand>& bands)
      : graph_(graph), users_(Users(graph)), splats_(splats), bands_(bands) {}

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

  // The value of a ScalarLike value, where the importer recorded its constant.
  std::optional<double> ScalarValue(ValueId v) const {
    for (int hops = 0; hops < 16; ++hops) {
      if (auto it = splats_.find(v); it != splats_.end()) return it->second;
      const Op* p = Producer(v);
      if (!p || (p->kind != OpKind::kBroadcast && p->kind != OpKind::kReshape && p->kind != OpKind::kConvert)) {
        return std::nullopt;
      }
      v = p->operands[0];
    }
    return std::nullopt;
  }
  const std::vector<OpId>& UsersOf(ValueId v) const { return users_[static_cast<size_t>(v)]; }

  // A value of one element (ScalarLike), or a constant of one known value at
  // any shape (a splat the importer recorded, possibly reshaped or broadcast).
  bool SplatLike(ValueId v) const { return ScalarLike(v) || ScalarValue(v).has_value(); }

  // The band mask the importer read from a constant leaf's values, or null.
  const ConstantBand* ConstantBandOf(ValueId v) const {
    auto it = bands_.find(v);
    return it == bands_.end() ? nullptr : &it->second;
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

  // The attention fold's parts (fold_attention.cc, fold_mask.cc).
  struct MaskRead {
    pir::Attributes attrs;  // mask (and window, mask_operand)
    ValueId operand = -1;   // a tensor mask's value (old graph), in the scores' layout
  };
  struct Repeat {
    ValueId source = -1;          // the K/V before the repeat (old graph)
    int64_t heads_dim = -1;       // its heads dim
    std::string letters;          // the letters of its dims
    std::vector<OpId> chain;      // element-wise ops to reapply on it, in order
  };
  std::optional<pir::Attributes> BandMask(ValueId cond, bool keep_when, int64_t qpos, int64_t kpos) const;
  std::optional<ValueId> MaskStep(ValueId s, int64_t qpos, int64_t kpos, MaskRead& mask,
                                  std::vector<OpId>& interior) const;
  bool LeadsToEinsum(ValueId v) const;
  std::optional<std::vector<OpId>> GuardCone(ValueId cond, ValueId scores, OpId guard) const;
  std::optional<Repeat> RepeatedHeads(ValueId v, const std::string& letters) const;
  StatusOr<ValueId> EmitRepeatSource(Rebuild& r, const Repeat& repeat, const std::string& name,
                                     const SourceLocation& loc) const;
  StatusOr<ValueId> EmitMaskOperand(Rebuild& r, ValueId mask, const std::string& have, const std::string& want,
                                    const std::string& name, const SourceLocation& loc) const;

 private:
  const Graph& graph_;
  std::vector<std::vector<OpId>> users_;
  const std::map<ValueId, double>& splats_;
  const std::map<ValueId, ConstantBand>& bands_;
};

}  // namespace az::frontend::fold_internal
