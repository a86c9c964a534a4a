// SolveAlpa: options checked, the model built (alpa_build.cc), the ILP solved
// (alpa_ilp.cc), and the choice written back as propagation seeds.
#include "search/alpa.h"

#include <chrono>
#include <cmath>

#include "search/alpa_build.h"

namespace az::search {

namespace {

Status CheckOptions(const shard::Mesh& mesh, const AlpaOptions& options) {
  if (mesh.num_axes() < 1 || mesh.num_axes() > 4) {
    return InvalidArgument("the Alpa baseline needs a mesh of 1 to 4 axes, got '" + mesh.ToString() + "'");
  }
  for (int axis = 0; axis < mesh.num_axes(); ++axis) {
    if (mesh.axis_size(axis) < 1) return InvalidArgument("mesh axis '" + mesh.axis_name(axis) + "' has size < 1");
  }
  if (static_cast<int>(options.axis_costs.size()) != mesh.num_axes()) {
    return InvalidArgument("the Alpa baseline needs one axis cost per mesh axis: mesh '" + mesh.ToString() + "' has " +
                           std::to_string(mesh.num_axes()) + ", got " + std::to_string(options.axis_costs.size()));
  }
  for (size_t axis = 0; axis < options.axis_costs.size(); ++axis) {
    const AxisCost& c = options.axis_costs[axis];
    if (!std::isfinite(c.alpha_s) || !std::isfinite(c.beta_s_per_byte) || c.alpha_s < 0 || c.beta_s_per_byte < 0) {
      return InvalidArgument("the cost of mesh axis '" + mesh.axis_name(static_cast<int>(axis)) +
                             "' must have finite, non-negative alpha and beta");
    }
  }
  if (!std::isfinite(options.flop_rate) || options.flop_rate < 0) {
    return InvalidArgument("the FLOP rate must be finite and non-negative");
  }
  if (options.memory_limit_bytes < 0) return InvalidArgument("the memory limit must be non-negative (0: none)");
  if (!(options.time_limit_s > 0)) return InvalidArgument("the ILP time limit must be positive");
  if (options.node_budget < 0) return InvalidArgument("the ILP node budget must be non-negative (0: by problem size)");
  if (options.max_strategies < 1) return InvalidArgument("max_strategies must be at least 1");
  return Status::Ok();
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StatusOr<AlpaResult> SolveAlpa(const pir::Graph& graph, const shard::Mesh& mesh, const AlpaOptions& options) {
  AZ_RETURN_IF_ERROR(CheckOptions(mesh, options));
  const auto start = std::chrono::steady_clock::now();
  AZ_ASSIGN_OR_RETURN(alpa_internal::AlpaModel model, alpa_internal::BuildAlpaModel(graph, mesh, options));
  AlpaResult result;
  result.build_time_s = SecondsSince(start);
  AZ_ASSIGN_OR_RETURN(AlpaSolution solution,
                      SolveAlpaProblem(model.problem, AlpaSolveLimits{options.node_budget, options.time_limit_s}));

  result.objective_s = solution.objective_s;
  result.ops = graph.num_ops();
  result.followers = model.followers;
  result.nodes = static_cast<int>(model.problem.nodes.size());
  for (const AlpaNode& node : model.problem.nodes) result.strategies += node.num_strategies();
  result.variables = solution.variables;
  result.constraints = solution.constraints;
  result.stop = solution.stop;
  result.gap = solution.gap;
  result.nodes_explored = solution.nodes;
  result.node_budget = solution.node_budget;
  result.solve_note = AlpaSolveNote(solution, options.time_limit_s);
  result.solve_time_s = solution.solve_time_s;
  result.memory_bytes = AlpaMemoryBytes(model.problem, solution.choice);

  // Seeds: every factor of every op pinned (an empty list pins it unsharded),
  // every read leaf stored as its first consumer requires.
  auto chosen = [&](pir::OpId id) -> int {
    return solution.choice[static_cast<size_t>(model.node_of_op[static_cast<size_t>(id)])];
  };
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const alpa_internal::Pattern& pattern =
        model.patterns[static_cast<size_t>(model.pattern_of_op[static_cast<size_t>(id)])];
    const shard::OpSharding& sharding = pattern.strategies[static_cast<size_t>(chosen(id))];
    const pir::FactorRule& rule = model.rules[static_cast<size_t>(id)];
    auto& factors = result.seeds.op_factors[id];
    for (size_t f = 0; f < rule.factors.size(); ++f) factors[rule.factors[f].name] = sharding.factor_axes[f];
  }
  for (pir::ValueId value = 0; value < graph.num_values(); ++value) {
    auto [storer, index] = model.leaf_storer[static_cast<size_t>(value)];
    if (storer == pir::kNoOp) continue;
    const alpa_internal::Pattern& pattern =
        model.patterns[static_cast<size_t>(model.pattern_of_op[static_cast<size_t>(storer)])];
    result.seeds.values[value] = pattern.required[static_cast<size_t>(chosen(storer))][static_cast<size_t>(index)];
  }

  // Summary: the repeated (block) nodes as their first member runs them.
  int sharded_others = 0, others = 0;
  for (size_t node = 0; node < model.problem.nodes.size(); ++node) {
    pir::OpId first = model.node_first_op[node];
    const shard::OpSharding& sharding =
        model.patterns[static_cast<size_t>(model.pattern_of_op[static_cast<size_t>(first)])]
            .strategies[static_cast<size_t>(solution.choice[node])];
    std::string text = shard::OpShardingToString(model.rules[static_cast<size_t>(first)], sharding, mesh);
    if (model.node_members[node] > 1) {
      result.summary += graph.op(first).name + " (x" + std::to_string(model.node_members[node]) + "): " + text + "\n";
      continue;
    }
    ++others;
    sharded_others += text != "{}";
  }
  result.summary += "other leaders: " + std::to_string(sharded_others) + " of " + std::to_string(others) + " sharded\n";
  return result;
}

}  // namespace az::search
