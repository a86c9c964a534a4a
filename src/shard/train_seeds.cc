#include "shard/train_seeds.h"

#include <string>

namespace az::shard {

void SeedTrainingState(const pir::Graph& graph, Seeds& seeds) {
  std::map<std::string, pir::ValueId> states;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role == pir::ValueRole::kOptimizerState) states[v.name] = id;
  }
  std::map<pir::ValueId, TensorSharding> added;
  for (const auto& [id, sharding] : seeds.values) {
    const pir::Value& param = graph.value(id);
    if (param.role != pir::ValueRole::kParameter) continue;
    for (const char* suffix : {".master", ".exp_avg", ".exp_avg_sq"}) {
      auto it = states.find(param.name + suffix);
      if (it != states.end() && graph.type(it->second).shape == param.type.shape) added[it->second] = sharding;
    }
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
