// WritePlanFiles (output.h lists the files and what each is for).
#include "emit/output.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "emit/codegen_jax.h"
#include "emit/codegen_torch.h"
#include "emit/compare_svg.h"
#include "emit/maxdiffusion.h"
#include "emit/placement_svg.h"
#include "emit/plan_format.h"
#include "emit/plan_json.h"
#include "emit/report.h"
#include "emit/trace.h"
#include "net/collective.h"

namespace az::emit {
namespace {

namespace fs = std::filesystem;

Status WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return InvalidArgument("cannot write '" + path.string() + "'");
  file.write(text.data(), static_cast<std::streamsize>(text.size()));
  file.close();
  if (!file) return InvalidArgument("cannot write '" + path.string() + "'");
  return Status::Ok();
}

// PlacementSvg checks its inputs with AZ_CHECK (a caller's bug there); here a
// topology that does not match the plan is the user's, so it is an error.
Status CheckTopology(const search::Plan& plan, const hw::Topology& topology) {
  Status placement = net::ValidatePlacement(plan.best.placement, topology.num_chips());
  if (!placement.ok()) return InvalidArgument("topology '" + topology.name + "': " + placement.message());
  for (const price::LinkLoad& load : plan.best.breakdown.links) {
    if (load.channel < 0 || load.channel >= topology.num_channels()) {
      return InvalidArgument("the plan's link loads name channel " + std::to_string(load.channel) +
                             ", which topology '" + topology.name + "' lacks");
    }
  }
  return Status::Ok();
}

// The code generators AZ_CHECK what a consistent configuration guarantees (a
// planner's bug otherwise); checking it here first turns a bad plan handed to
// the library into an error instead of an abort.
Status CheckConfiguration(const search::Configuration& config) {
  if (MeshDevices(config) != static_cast<int64_t>(config.placement.size())) {
    return InvalidArgument("configuration '" + config.label + "': mesh " + MeshText(config) + " has " +
                           std::to_string(MeshDevices(config)) + " devices, its placement " +
                           std::to_string(config.placement.size()));
  }
  for (const search::TensorSpec& tensor : config.tensors) {
    std::vector<std::string> used;
    for (const std::vector<std::string>& axes : tensor.spec) {
      for (const std::string& axis : axes) {
        bool in_mesh = false;
        for (const auto& mesh_axis : config.mesh) in_mesh = in_mesh || mesh_axis.first == axis;
        if (!in_mesh || std::find(used.begin(), used.end(), axis) != used.end()) {
          return InvalidArgument("configuration '" + config.label + "': tensor '" + tensor.name + "' " +
                                 (in_mesh ? "uses mesh axis '" + axis + "' twice"
                                          : "names axis '" + axis + "', not in mesh " + MeshText(config)));
        }
        used.push_back(axis);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> PlanFileNames(bool tpu) {
  std::vector<std::string> names = {"plan.json", "report.md", "plan_jax.py"};
  names.push_back(tpu ? "maxdiffusion.yml" : "plan_torch.py");
  names.insert(names.end(), {"placement.svg", "compare.svg", "step.trace.json"});
  return names;
}

Status WritePlanFiles(const search::Plan& plan, const hw::Topology& topology, const std::string& dir) {
  AZ_RETURN_IF_ERROR(CheckConfiguration(plan.best));
  AZ_RETURN_IF_ERROR(CheckTopology(plan, topology));
  fs::path root(dir);
  std::error_code error;
  fs::create_directories(root, error);
  if (error) return InvalidArgument("cannot create directory '" + dir + "': " + error.message());
  if (!fs::is_directory(root, error)) return InvalidArgument("'" + dir + "' is not a directory");

  TraceOptions trace;
  trace.title = plan.model + " " + plan.best.sharding + " on " + plan.topology;
  std::string placement_title =
      plan.model + ": " + plan.best.sharding + " on " + plan.topology + " (" + plan.best.placement_method + ")";

  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back("plan.json", PlanJson(plan, /*timing=*/false));
  files.emplace_back("report.md", PlanReport(plan));
  files.emplace_back("plan_jax.py", PlanJax(plan, plan.best));
  if (plan.tpu) files.emplace_back("maxdiffusion.yml", MaxDiffusionYaml(plan));
  if (!plan.tpu) files.emplace_back("plan_torch.py", PlanTorch(plan, plan.best));
  files.emplace_back("placement.svg",
                     PlacementSvg(topology, plan.best.placement, plan.best.breakdown.links, placement_title));
  files.emplace_back("compare.svg", CompareSvg(plan));
  files.emplace_back("step.trace.json", StepTrace(plan.best.breakdown, trace));
  for (const auto& [name, text] : files) AZ_RETURN_IF_ERROR(WriteFile(root / name, text));
  return Status::Ok();
}

}  // namespace az::emit
