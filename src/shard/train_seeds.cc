#include "shard/train_seeds.h"

#include <string>
#include <string_view>
#include <utility>

namespace az::shard {

void SeedTrainingState(const pir::Graph& graph, Seeds& seeds) {
  std::map<std::string, pir::ValueId> states;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role == pir::ValueRole::kOptimizerState) states[v.name] = id;
  }
  std::map<pir::ValueId, TensorSharding> added;
  std::map<std::string, std::pair<pir::ValueId, const TensorSharding*>> by_param;
  for (const auto& [id, sharding] : seeds.values) {
    const pir::Value& param = graph.value(id);
    if (param.role != pir::ValueRole::kParameter) continue;
    by_param[param.name] = {id, &sharding};
    for (const char* suffix : {".master", ".exp_avg", ".exp_avg_sq"}) {
      auto it = states.find(param.name + suffix);
      if (it != states.end() && graph.type(it->second).shape == param.type.shape) added[it->second] = sharding;
    }
  }
  // An accumulated step's running gradient sums ("micro<i>.grad_sum.<param>",
  // frontend/zoo/train.cc), sharded like their parameter.
  static constexpr std::string_view kSum = ".grad_sum.";
  for (const pir::Op& op : graph.ops()) {
    const size_t at = op.name.find(kSum);
    if (op.kind != pir::OpKind::kAdd || at == std::string::npos || op.results.size() != 1) continue;
    auto it = by_param.find(op.name.substr(at + kSum.size()));
    if (it == by_param.end()) continue;
    const pir::ValueId sum = op.results[0];
    if (graph.type(sum).shape == graph.type(it->second.first).shape) added[sum] = *it->second.second;
  }
  seeds.values.insert(added.begin(), added.end());
}

Status SeedBackwardLinears(const pir::Graph& graph, Seeds& seeds) {
  std::map<std::string, pir::OpId> einsums;
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    if (graph.op(id).kind == pir::OpKind::kEinsum) einsums[graph.op(id).name] = id;
  }
  std::map<pir::OpId, std::map<std::string, std::vector<int>>> added;
  for (const auto& [id, factors] : seeds.op_factors) {
    const pir::Op& forward = graph.op(id);
    if (forward.kind != pir::OpKind::kEinsum) continue;
    for (const char* suffix : {".remat", ".grad.lhs", ".grad.rhs"}) {
      auto it = einsums.find(forward.name + suffix);
      if (it == einsums.end() || seeds.op_factors.count(it->second)) continue;
      AZ_ASSIGN_OR_RETURN(pir::FactorRule rule, pir::BuildFactorRule(graph, graph.op(it->second)));
      for (const auto& [factor, axes] : factors) {
        if (rule.FindFactor(factor) >= 0) added[it->second][factor] = axes;
      }
    }
  }
  seeds.op_factors.insert(added.begin(), added.end());
  return Status::Ok();
}

}  // namespace az::shard
