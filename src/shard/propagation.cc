// Sharding propagation along factor rules; the policy is stated in
// propagation.h. Invariants kept throughout: every op's factor assignment
// passes CheckOpSharding, and every value's current sharding uses each axis
// at most once; both only grow, which bounds the number of passes.
#include "shard/propagation.h"

#include <algorithm>

namespace az::shard {

namespace {

struct ValueState {
  std::vector<std::vector<int>> dims;  // current axes per dim (empty: not known yet)
  std::vector<bool> closed;            // dims a seed fixed
  bool seeded = false;                 // a seed with at least one sharded dim
  bool storage_only = false;
  bool source = false;  // storage-only, yet a propagation source with its use sharding (Seeds::used)
};

struct OpState {
  OpSharding sharding;
  std::vector<bool> assigned;  // by factor: decided (a seed, or axes taken once)
};

// Shardy's projection of one tensor's dims onto its factors: (factor, axes)
// pairs, major factors first. See propagation.h for the rule.
std::vector<std::pair<int, std::vector<int>>> ProjectOntoFactors(const pir::FactorRule& rule,
                                                                 const pir::TensorFactors& tensor,
                                                                 const std::vector<std::vector<int>>& dims,
                                                                 const Mesh& mesh) {
  std::vector<std::pair<int, std::vector<int>>> offers;
  for (size_t d = 0; d < tensor.size() && d < dims.size(); ++d) {
    const std::vector<int>& axes = dims[d];
    if (axes.empty()) continue;
    std::vector<int> factors;
    for (int f : tensor[d]) {
      if (rule.factors[static_cast<size_t>(f)].size > 1) factors.push_back(f);
    }
    size_t next = 0;
    for (size_t k = 0; k < factors.size() && next < axes.size(); ++k) {
      int f = factors[k];
      bool last = k + 1 == factors.size();
      int64_t remaining = rule.factors[static_cast<size_t>(f)].size;
      std::vector<int> taken;
      while (next < axes.size()) {
        int64_t size = mesh.axis_size(axes[next]);
        if (remaining % size == 0) {
          taken.push_back(axes[next++]);
          remaining /= size;
          continue;
        }
        if (!last) break;
        // The dim's minor-most factor takes the rest, unevenly (padding).
        taken.insert(taken.end(), axes.begin() + static_cast<std::ptrdiff_t>(next), axes.end());
        next = axes.size();
        remaining = 0;
      }
      if (!taken.empty()) offers.emplace_back(f, std::move(taken));
      if (remaining != 1) break;
    }
  }
  return offers;
}

class Propagator {
 public:
  Propagator(const pir::Graph& graph, const Mesh& mesh) : graph_(graph), mesh_(mesh) {}

  Status Init(const Seeds& seeds);
  void Run();
  StatusOr<ShardingPlan> Finish(const Seeds& seeds);

 private:
  // One visit; returns whether anything changed.
  bool Visit(pir::OpId id);
  bool Offer(const pir::FactorRule& rule, OpState& state, std::vector<bool>& used, int factor, std::vector<int> axes,
             bool from_result);
  bool Expressible(const pir::FactorRule& rule, const OpState& state, int factor) const;
  bool WriteBack(pir::ValueId id, const TensorSharding& sharding);

  const pir::Graph& graph_;
  const Mesh& mesh_;
  std::vector<pir::FactorRule> rules_;
  std::vector<OpState> ops_;
  std::vector<ValueState> values_;
};

Status Propagator::Init(const Seeds& seeds) {
  rules_.reserve(static_cast<size_t>(graph_.num_ops()));
  for (const pir::Op& op : graph_.ops()) {
    auto rule = pir::BuildFactorRule(graph_, op);
    if (!rule.ok()) return InvalidArgument("op '" + op.name + "': " + rule.status().message());
    OpState state;
    state.sharding.factor_axes.resize(rule->factors.size());
    state.assigned.assign(rule->factors.size(), false);
    ops_.push_back(std::move(state));
    rules_.push_back(std::move(rule).value());
  }
  values_.resize(static_cast<size_t>(graph_.num_values()));
  for (pir::ValueId id = 0; id < graph_.num_values(); ++id) {
    size_t rank = graph_.type(id).shape.size();
    values_[static_cast<size_t>(id)].dims.assign(rank, {});
    values_[static_cast<size_t>(id)].closed.assign(rank, false);
  }

  for (const auto& [id, sharding] : seeds.values) {
    if (!graph_.IsValidValue(id)) {
      return InvalidArgument("a seed names value %" + std::to_string(id) + ", which does not exist");
    }
    const std::string label = pir::ValueLabel(graph_, id);
    if (static_cast<int64_t>(sharding.dims.size()) != graph_.type(id).rank()) {
      return InvalidArgument("the seed of " + label + " has rank " + std::to_string(sharding.dims.size()) +
                             ", the value " + graph_.type(id).ToString());
    }
    if (!sharding.partial.empty()) return InvalidArgument("the seed of " + label + " has partial axes; seeds cannot");
    std::vector<bool> seen(static_cast<size_t>(mesh_.num_axes()), false);
    ValueState& state = values_[static_cast<size_t>(id)];
    for (size_t d = 0; d < sharding.dims.size(); ++d) {
      for (int axis : sharding.dims[d]) {
        if (axis < 0 || axis >= mesh_.num_axes()) {
          return InvalidArgument("the seed of " + label + " names mesh axis " + std::to_string(axis) + ", the mesh " +
                                 mesh_.ToString() + " has " + std::to_string(mesh_.num_axes()));
        }
        if (seen[static_cast<size_t>(axis)]) {
          return InvalidArgument("the seed of " + label + " uses axis \"" + mesh_.axis_name(axis) + "\" twice");
        }
        seen[static_cast<size_t>(axis)] = true;
      }
      if (sharding.dims[d].empty()) continue;
      state.dims[d] = sharding.dims[d];
      state.closed[d] = true;
      state.seeded = true;
    }
  }
  for (pir::ValueId id : seeds.storage_only) {
    if (!graph_.IsValidValue(id) || !seeds.values.count(id)) {
      return InvalidArgument("storage-only value %" + std::to_string(id) + " has no seed");
    }
    if (graph_.value(id).role == pir::ValueRole::kActivation) {
      return InvalidArgument("storage-only " + pir::ValueLabel(graph_, id) + " is an activation; only leaves are stored");
    }
    values_[static_cast<size_t>(id)].storage_only = true;
  }
  for (const auto& [id, use] : seeds.used) {
    if (!seeds.storage_only.count(id)) {
      return InvalidArgument("value %" + std::to_string(id) + " has a use sharding but is not storage-only");
    }
    const TensorSharding& stored = seeds.values.at(id);
    ValueState& state = values_[static_cast<size_t>(id)];
    const std::string label = pir::ValueLabel(graph_, id);
    if (use.dims.size() != stored.dims.size() || !use.partial.empty()) {
      return InvalidArgument("the use sharding of " + label + " has rank " + std::to_string(use.dims.size()) +
                             " or partial axes; stored: " + stored.ToString(mesh_));
    }
    for (size_t d = 0; d < use.dims.size(); ++d) {
      const auto& have = stored.dims[d];
      if (use.dims[d].size() > have.size() || !std::equal(use.dims[d].begin(), use.dims[d].end(), have.begin())) {
        return InvalidArgument("the use sharding " + use.ToString(mesh_) + " of " + label +
                               " is not its stored sharding " + stored.ToString(mesh_) + " with minor axes gathered");
      }
      state.dims[d] = use.dims[d];
    }
    state.seeded = !use.IsReplicated();
    state.source = true;
  }

  for (const auto& [id, factors] : seeds.op_factors) {
    if (id < 0 || id >= graph_.num_ops()) {
      return InvalidArgument("a seed names op " + std::to_string(id) + ", which does not exist");
    }
    const pir::Op& op = graph_.op(id);
    const pir::FactorRule& rule = rules_[static_cast<size_t>(id)];
    OpState& state = ops_[static_cast<size_t>(id)];
    for (const auto& [name, axes] : factors) {
      const std::string& factor_name = name;  // (clang 14 cannot capture a structured binding)
      auto it = std::find_if(rule.factors.begin(), rule.factors.end(),
                             [&](const pir::Factor& f) { return f.name == factor_name; });
      if (it == rule.factors.end()) {
        return InvalidArgument("op '" + op.name + "' has no factor '" + name + "' (its rule: " + rule.ToString() + ")");
      }
      size_t f = static_cast<size_t>(it - rule.factors.begin());
      for (int axis : axes) {
        if (axis < 0 || axis >= mesh_.num_axes()) {
          return InvalidArgument("the seed of op '" + op.name + "' names mesh axis " + std::to_string(axis) +
                                 ", the mesh " + mesh_.ToString() + " has " + std::to_string(mesh_.num_axes()));
        }
      }
      state.sharding.factor_axes[f] = axes;
      state.assigned[f] = true;
    }
    Status status = CheckOpSharding(rule, state.sharding, mesh_);
    if (!status.ok()) return InvalidArgument("the seed of op '" + op.name + "': " + status.message());
  }
  return Status::Ok();
}

bool Propagator::Expressible(const pir::FactorRule& rule, const OpState& state, int factor) const {
  for (const auto* list : {&rule.operands, &rule.results}) {
    for (const pir::TensorFactors& tensor : *list) {
      for (const auto& dim : tensor) {
        auto position = std::find(dim.begin(), dim.end(), factor);
        if (position == dim.end()) continue;
        for (auto major = dim.begin(); major != position; ++major) {
          size_t f = static_cast<size_t>(*major);
          if (mesh_.AxesSize(state.sharding.factor_axes[f]) != rule.factors[f].size) return false;
        }
      }
    }
  }
  return true;
}

bool Propagator::Offer(const pir::FactorRule& rule, OpState& state, std::vector<bool>& used, int factor,
                       std::vector<int> axes, bool from_result) {
  const pir::Factor& f = rule.factors[static_cast<size_t>(factor)];
  if (state.assigned[static_cast<size_t>(factor)] || f.size <= 1) return false;
  if (f.kind == pir::FactorKind::kNeedReplication) return false;
  if (f.kind == pir::FactorKind::kReduction && from_result) return false;
  size_t keep = 0;
  while (keep < axes.size() && !used[static_cast<size_t>(axes[keep])]) ++keep;
  axes.resize(keep);
  if (axes.empty() || !Expressible(rule, state, factor)) return false;
  for (int axis : axes) used[static_cast<size_t>(axis)] = true;
  state.sharding.factor_axes[static_cast<size_t>(factor)] = std::move(axes);
  state.assigned[static_cast<size_t>(factor)] = true;
  return true;
}

bool Propagator::WriteBack(pir::ValueId id, const TensorSharding& sharding) {
  ValueState& state = values_[static_cast<size_t>(id)];
  if (state.storage_only) return false;
  bool changed = false;
  for (size_t d = 0; d < state.dims.size(); ++d) {
    if (!state.dims[d].empty() || state.closed[d] || sharding.dims[d].empty()) continue;
    std::vector<int> axes;
    for (int axis : sharding.dims[d]) {
      bool elsewhere = false;
      for (const auto& other : state.dims) elsewhere |= std::find(other.begin(), other.end(), axis) != other.end();
      if (elsewhere) break;
      axes.push_back(axis);
    }
    if (axes.empty()) continue;
    state.dims[d] = std::move(axes);
    changed = true;
  }
  return changed;
}

bool Propagator::Visit(pir::OpId id) {
  const pir::Op& op = graph_.op(id);
  const pir::FactorRule& rule = rules_[static_cast<size_t>(id)];
  OpState& state = ops_[static_cast<size_t>(id)];
  bool changed = false;

  std::vector<bool> used(static_cast<size_t>(mesh_.num_axes()), false);
  for (const auto& axes : state.sharding.factor_axes) {
    for (int axis : axes) used[static_cast<size_t>(axis)] = true;
  }
  // Sources in priority order: seeded results (an op that produced them
  // otherwise would override their seed), seeded operands, other operands,
  // other results.
  for (bool seeded_pass : {true, false}) {
    for (bool results : {seeded_pass, !seeded_pass}) {
      const std::vector<pir::ValueId>& tensors = results ? op.results : op.operands;
      for (size_t i = 0; i < tensors.size(); ++i) {
        const ValueState& value = values_[static_cast<size_t>(tensors[i])];
        if ((value.storage_only && !value.source) || value.seeded != seeded_pass) continue;
        const pir::TensorFactors& factors = results ? rule.results[i] : rule.operands[i];
        for (auto& [factor, axes] : ProjectOntoFactors(rule, factors, value.dims, mesh_)) {
          changed |= Offer(rule, state, used, factor, std::move(axes), results);
        }
      }
    }
  }
  for (size_t i = 0; i < op.operands.size(); ++i) {
    changed |= WriteBack(op.operands[i], RequiredOperandSharding(rule, state.sharding, static_cast<int>(i)));
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    changed |= WriteBack(op.results[i], ProducedResultSharding(rule, state.sharding, static_cast<int>(i)));
  }
  return changed;
}

void Propagator::Run() {
  const int max_passes = 2 * graph_.num_ops() + 2;
  for (int pass = 0; pass < max_passes; ++pass) {
    bool changed = false;
    if (pass % 2 == 0) {
      for (pir::OpId id = 0; id < graph_.num_ops(); ++id) changed |= Visit(id);
    } else {
      for (pir::OpId id = graph_.num_ops() - 1; id >= 0; --id) changed |= Visit(id);
    }
    if (!changed) return;
  }
}

StatusOr<ShardingPlan> Propagator::Finish(const Seeds& seeds) {
  ShardingPlan plan;
  plan.mesh = mesh_;
  plan.rules = rules_;
  for (const OpState& state : ops_) plan.ops.push_back(state.sharding);
  plan.values.resize(static_cast<size_t>(graph_.num_values()));
  for (pir::ValueId id = 0; id < graph_.num_values(); ++id) {
    plan.values[static_cast<size_t>(id)] = TensorSharding::Replicated(static_cast<int>(graph_.type(id).rank()));
  }
  std::vector<bool> leaf_done(static_cast<size_t>(graph_.num_values()), false);
  for (const auto& [id, sharding] : seeds.values) {
    if (graph_.value(id).role == pir::ValueRole::kActivation) continue;
    plan.values[static_cast<size_t>(id)] = sharding;
    leaf_done[static_cast<size_t>(id)] = true;
  }
  for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
    const pir::Op& op = graph_.op(id);
    const pir::FactorRule& rule = rules_[static_cast<size_t>(id)];
    const OpSharding& sharding = ops_[static_cast<size_t>(id)].sharding;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      pir::ValueId v = op.operands[i];
      if (graph_.value(v).role == pir::ValueRole::kActivation || leaf_done[static_cast<size_t>(v)]) continue;
      TensorSharding required = RequiredOperandSharding(rule, sharding, static_cast<int>(i));
      if (required.IsReplicated()) continue;
      plan.values[static_cast<size_t>(v)] = std::move(required);
      leaf_done[static_cast<size_t>(v)] = true;
    }
    for (size_t i = 0; i < op.results.size(); ++i) {
      plan.values[static_cast<size_t>(op.results[i])] = ProducedResultSharding(rule, sharding, static_cast<int>(i));
    }
  }
  // Seeds are never overridden: a seeded activation must come out as seeded.
  for (const auto& [id, seed] : seeds.values) {
    const pir::Value& value = graph_.value(id);
    if (value.role != pir::ValueRole::kActivation) continue;
    const TensorSharding& produced = plan.values[static_cast<size_t>(id)];
    for (size_t d = 0; d < seed.dims.size(); ++d) {
      if (seed.dims[d].empty() || seed.dims[d] == produced.dims[d]) continue;
      const pir::Op& producer = graph_.op(value.producer);
      return InvalidArgument(
          "the seed " + seed.ToString(mesh_) + " of " + pir::ValueLabel(graph_, id) + " cannot be kept: '" + producer.name +
          "' (" + std::string(pir::OpKindName(producer.kind)) + ") produces it " + produced.ToString(mesh_) +
          " under its rule " + rules_[static_cast<size_t>(value.producer)].ToString() + " and sharding " +
          OpShardingToString(rules_[static_cast<size_t>(value.producer)],
                             ops_[static_cast<size_t>(value.producer)].sharding, mesh_));
    }
  }
  return plan;
}

}  // namespace

StatusOr<ShardingPlan> Propagate(const pir::Graph& graph, const Mesh& mesh, const Seeds& seeds) {
  if (mesh.num_axes() < 1) return InvalidArgument("propagation needs a mesh with at least one axis");
  Propagator propagator(graph, mesh);
  AZ_RETURN_IF_ERROR(propagator.Init(seeds));
  propagator.Run();
  return propagator.Finish(seeds);
}

}  // namespace az::shard
