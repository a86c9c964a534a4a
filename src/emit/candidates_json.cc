#include "emit/candidates_json.h"

#include <nlohmann/json.hpp>
#include <regex>

#include "pir/ir/graph.h"
#include "search/combos.h"
#include "shard/propagation.h"
#include "shard/templates.h"

namespace az::emit {
namespace {

using nlohmann::ordered_json;

ordered_json Spec(const shard::ShardingPlan& plan, pir::ValueId id) {
  ordered_json spec = ordered_json::array();
  for (const auto& dim : plan.values[static_cast<size_t>(id)].dims) {
    ordered_json axes = ordered_json::array();
    for (int a : dim) axes.push_back(plan.mesh.axis_name(a));
    spec.push_back(axes);
  }
  return spec;
}

}  // namespace

StatusOr<std::string> CandidatesJson(const workload::Workload& config, const hw::Topology& topology,
                                     const std::string& pinned) {
  const int64_t chips = topology.num_chips();
  AZ_ASSIGN_OR_RETURN(int64_t heads, search::AttentionHeads(config));
  std::vector<search::Combo> combos;
  if (!pinned.empty()) {
    AZ_ASSIGN_OR_RETURN(search::Combo c, search::ParseCombo(pinned, chips));
    combos.push_back(c);
  } else {
    combos = search::EnumerateCombos(config, chips, heads);
  }
  ordered_json candidates = ordered_json::array();
  // One block of each kind carries every parameter name up to the block index.
  const std::regex block_index(R"((^|\.)([A-Za-z_]*blocks)\.[0-9]+\.)");
  for (const search::Combo& combo : combos) {
    // PipeFusion's stages are xDiT's pipeline, not a JAX sharding.
    if (combo.pipefusion > 1) continue;
    workload::Workload c = search::ConfigFor(config, combo);
    c.depth_units = 1;
    AZ_ASSIGN_OR_RETURN(pir::Graph graph, c.Forward());
    AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(combo.MeshText()));
    shard::Seeds seeds;
    if (combo.Template() != "replicated") {
      AZ_ASSIGN_OR_RETURN(seeds, shard::TemplateSeeds(graph, mesh, combo.Template()));
    }
    AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(graph, mesh, seeds));
    ordered_json axes = ordered_json::array();
    for (int a = 0; a < mesh.num_axes(); ++a)
      axes.push_back({{"name", mesh.axis_name(a)}, {"size", mesh.axis_size(a)}});
    ordered_json inputs = ordered_json::object(), parameters = ordered_json::object();
    for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
      const pir::Value& v = graph.value(id);
      const std::string& label = v.name;
      if (v.role == pir::ValueRole::kInput) inputs[label] = Spec(plan, id);
      if (v.role == pir::ValueRole::kParameter) {
        parameters[std::regex_replace(label, block_index, "$1$2.*.")] = Spec(plan, id);
      }
    }
    candidates.push_back({{"id", combo.Id()},
                          {"combo", combo.ToString()},
                          {"expert", search::RunsAsExpert(config, combo)},
                          {"mesh", axes},
                          {"axis_roles", combo.AxisRoles()},
                          {"template", combo.Template()},
                          {"hlo_file", combo.Id() + ".hlo"},
                          {"inputs", inputs},
                          {"parameters", parameters}});
  }
  ordered_json j = {{"format", "aoizora-candidates/1"},
                    {"model", config.model},
                    {"width", config.width},
                    {"height", config.height},
                    {"frames", config.frames},
                    {"batch", config.batch},
                    {"cfg_mode", std::string(workload::CfgModeName(config.cfg))},
                    {"topology", topology.name},
                    {"chips", chips},
                    {"candidates", candidates}};
  return j.dump(1) + "\n";
}

}  // namespace az::emit
