// plan.json (plan_json.h gives the schema).
#include "emit/plan_json.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "emit/codegen_torch.h"
#include "emit/plan_format.h"

namespace az::emit {
namespace {

using Json = nlohmann::ordered_json;
using search::Configuration;
using search::Plan;

// nlohmann writes NaN and infinity as null already; saying so here keeps the
// intent visible where the speedups are written.
Json Number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json Inputs(const Plan& plan) {
  Json inputs;
  inputs["model"] = plan.model;
  if (!plan.program_format.empty()) {
    inputs["program"] = Json{{"file", plan.model}, {"format", plan.program_format}};
  } else {
    inputs["width"] = plan.width;
    inputs["height"] = plan.height;
    inputs["resolution"] = std::to_string(plan.width) + "x" + std::to_string(plan.height);
    inputs["frames"] = plan.frames;
  }
  inputs["workload"] = plan.train ? "train" : "inference";
  if (plan.train) {
    inputs["micro_batch"] = plan.batch;
  } else {
    inputs["steps"] = plan.steps;
    inputs["batch"] = plan.batch;
    inputs["cfg"] = plan.cfg_mode;
  }
  inputs["topology"] = plan.topology;
  inputs["chip"] = plan.chip;
  inputs["platform"] = plan.tpu ? "tpu" : "gpu";
  inputs["hbm_bytes"] = plan.hbm.value();
  inputs["seed"] = plan.seed;
  inputs["target"] = plan.target;
  inputs["stack"] = Json{{"name", plan.stack},
                         {"reason", plan.stack_reason},
                         {"attention_efficiency", plan.attention_efficiency}};
  return inputs;
}

Json Mesh(const Configuration& config) {
  Json axes = Json::array(), shape = Json::array();
  for (const auto& [axis, size] : config.mesh) {
    axes.push_back(axis);
    shape.push_back(size);
  }
  return Json{{"axes", std::move(axes)}, {"shape", std::move(shape)}, {"devices", MeshDevices(config)}};
}

Json Placement(const Plan& plan, const Configuration& config) {
  Json order = Json::array(), assignment = Json::array();
  bool positions = MeshDevices(config) == static_cast<int64_t>(config.placement.size());
  for (size_t rank = 0; rank < config.placement.size(); ++rank) {
    int chip = config.placement[rank];
    order.push_back(chip);
    Json entry;
    entry["logical_id"] = rank;
    entry["mesh_position"] = positions ? Json(MeshPosition(config, static_cast<int64_t>(rank))) : Json(nullptr);
    entry["chip"] = chip;
    entry["device_id"] = chip;  // JAX / CUDA device id = chip id (search/plan.h)
    const search::ChipInfo* info = FindChip(plan, chip);
    entry["name"] = ChipName(plan, chip);
    entry["coords"] = info != nullptr ? Json(info->coords) : Json::array();
    assignment.push_back(std::move(entry));
  }
  Json placement;
  placement["method"] = config.placement_method;
  placement["device_order"] = order;
  placement["xla_device_assignment"] = Json::array({order});
  placement["assignment"] = std::move(assignment);
  // Multi-slice / multi-node systems: which axes cross the scale-out network.
  if (ScaleOut scale_out = ScaleOutOf(plan, config); scale_out.multi) {
    Json outer = Json::object(), inner = Json::object();
    for (const auto& [name, degree] : scale_out.outer_axes) outer[name] = degree;
    for (const auto& [name, degree] : scale_out.inner_axes) inner[name] = degree;
    placement["scale_out"] = Json{{"network", scale_out.tpu ? "dcn" : "inter-node"},
                                  {"domains", scale_out.split.domains},
                                  {"hybrid", scale_out.split.hybrid},
                                  {"outer_mesh_shape", scale_out.split.outer},
                                  {"inner_mesh_shape", scale_out.split.inner},
                                  {"across", std::move(outer)},
                                  {"inside", std::move(inner)},
                                  {"text", ScaleOutText(scale_out)}};
  }
  return placement;
}

Json Memory(const Plan& plan, const Configuration& config) {
  Json memory;
  memory["peak_bytes"] = config.peak_memory.value();
  memory["parameter_bytes"] = config.parameter_memory.value();
  memory["other_bytes"] = config.peak_memory.value() - config.parameter_memory.value();
  memory["hbm_bytes"] = plan.hbm.value();
  memory["fits"] = plan.hbm.value() <= 0 || config.peak_memory.value() <= plan.hbm.value();
  const evidence::MemoryBreakdown& m = config.memory;
  if (m.Total().value() > 0) {
    memory["at_peak"] = Json{{"parameters", m.parameters.value()},       {"gradients", m.gradients.value()},
                             {"optimizer_state", m.optimizer_state.value()}, {"activations", m.activations.value()},
                             {"communication", m.communication.value()}, {"inputs", m.inputs.value()},
                             {"constants", m.constants.value()}};
  }
  if (!config.noise_experts_mode.empty()) {
    // Denoising experts (search/noise_experts.h): all resident, or one swapped in at the switch.
    memory["experts"] = Json{{"mode", config.noise_experts_mode},
                             {"count", config.noise_experts},
                             {"switch_step", plan.noise_switch_step},
                             {"expert_bytes", config.noise_expert_memory.value()},
                             {"swap_s_per_video", Number(config.noise_swap_per_video.value())},
                             {"swap_s_per_step", Number(config.noise_swap_per_step.value())},
                             {"host_link_bytes_per_s", Number(config.host_link.value())},
                             {"reason", config.noise_experts_reason}};
  }
  return memory;
}

Json Breakdown(const price::SimResult& result) {
  Json breakdown;
  breakdown["latency_s"] = Number(result.latency.value());
  breakdown["compute_s"] = Number(result.compute.value());
  breakdown["communication_s"] = Number(result.communication.value());
  breakdown["exposed_communication_s"] = Number(result.exposed_communication.value());
  breakdown["overlapped_communication_s"] = Number(result.communication.value() - result.exposed_communication.value());
  if (result.host_transfer.value() > 0) {  // remat offload (price/simulator.h)
    breakdown["host_transfer_s"] = Number(result.host_transfer.value());
    breakdown["host_exposed_s"] = Number(result.host_exposed.value());
  }
  breakdown["kernels"] = result.kernels;
  breakdown["collectives"] = result.collectives;
  Json by_kind = Json::array();
  for (const KindCost& kind : CostByKind(result)) {
    by_kind.push_back(Json{{"kind", kind.kind},
                           {"count", kind.count},
                           {"bytes", kind.bytes},
                           {"time_s", Number(kind.time)},
                           {"exposed_s", Number(kind.exposed)}});
  }
  breakdown["by_kind"] = std::move(by_kind);
  Json classes = Json::array();
  for (const price::ClassCost& cls : result.classes) {
    classes.push_back(Json{{"kind", cls.kind},
                           {"bytes", cls.bytes.value()},
                           {"groups", cls.groups},
                           {"algorithm", cls.algorithm},
                           {"count", cls.count},
                           {"time_s", Number(cls.time.value())},
                           {"total_s", Number(cls.time.value() * cls.count)},
                           {"exposed_s", Number(cls.exposed.value())}});
  }
  breakdown["classes"] = std::move(classes);
  Json links = Json::array();
  for (const price::LinkLoad* link : BusiestLinks(result, kPlanJsonLinks)) {
    links.push_back(
        Json{{"channel", link->channel}, {"name", link->name}, {"bytes", link->bytes}, {"busy_s", Number(link->busy.value())}});
  }
  breakdown["busiest_links"] = std::move(links);
  breakdown["loaded_links"] = result.links.size();
  return breakdown;
}

Json Lines(const std::vector<std::string>& lines) { return lines.empty() ? Json(nullptr) : Json(lines); }

Json Xdit(const Plan& plan, const Configuration& config) {
  XditLaunch launch = PlanXditLaunch(plan, config);
  Json xdit;
  xdit["expressible"] = config.expressible_in_xdit;
  xdit["ulysses"] = config.ulysses;
  xdit["ring"] = config.ring;
  xdit["cfg"] = config.cfg;
  xdit["tp"] = config.tp;
  xdit["dp"] = config.dp;
  xdit["fsdp"] = config.fsdp;
  if (config.pipefusion > 1) {
    xdit["pipefusion"] = config.pipefusion;
    xdit["pipeline_patches"] = config.pipeline_patches;
    xdit["pipeline_warmup_steps"] = config.pipeline_warmup_steps;
  }
  xdit["axis_roles"] = config.axis_roles;
  xdit["command"] = Lines(launch.xdit_commands);
  xdit["repo_command"] = Lines(launch.repo_commands);
  xdit["notes"] = launch.notes;
  return xdit;
}

Json Tensors(const Configuration& config) {
  Json tensors = Json::array();
  for (const search::TensorSpec& tensor : config.tensors) {
    Json spec = Json::array();
    for (const std::vector<std::string>& axes : tensor.spec) {
      if (axes.empty()) {
        spec.push_back(nullptr);
      } else if (axes.size() == 1) {
        spec.push_back(axes[0]);
      } else {
        spec.push_back(axes);
      }
    }
    tensors.push_back(
        Json{{"name", tensor.name}, {"role", tensor.role}, {"shape", tensor.shape}, {"spec", std::move(spec)}});
  }
  return tensors;
}

Json Stages(const Plan& plan) {
  Json stages = Json::array();
  for (const search::StagePlan& s : plan.stages) {
    Json mesh = Json::array();
    for (const auto& [axis, size] : s.mesh) mesh.push_back(Json{{"axis", axis}, {"size", size}});
    stages.push_back(Json{{"name", s.name},
                          {"kind", s.kind},
                          {"latency_s", Number(s.latency.value())},
                          {"sharding", s.sharding},
                          {"peak_memory_bytes", s.peak_memory.value()},
                          {"mesh", std::move(mesh)},
                          {"device_order", s.placement},
                          {"invocations", s.invocations},
                          {"invocation_s", Number(s.invocation.value())},
                          {"transfer_s", Number(s.transfer_time.value())},
                          {"offload_s", Number(s.offload.value())},
                          {"offloaded", s.offloaded},
                          {"dit_evicted", s.dit_evicted},
                          {"fits", s.fits},
                          {"parameter_bytes", s.parameter_memory.value()},
                          {"note", s.note}});
  }
  return stages;
}

Json ConfigurationJson(const Plan& plan, const Configuration& config) {
  Json out;
  out["label"] = config.label;
  out["description"] = config.description;
  out["step_latency_s"] = Number(config.step_latency.value());
  if (plan.train) {
    out["samples_per_s"] =
        Number(config.step_latency.value() > 0 ? static_cast<double>(plan.batch) / config.step_latency.value() : std::nan(""));
    out["remat"] = config.remat;
  } else {
    out["video_latency_s"] = Number(VideoLatency(plan, config));  // end to end: the plan's stages + the steps
  }
  out["mesh"] = Mesh(config);
  out["sharding"] = config.sharding;
  if (config.ulysses_chunks > 1) {
    // Written only when chunked, so that other plans' files stay as they were.
    Json ranges = Json::array();
    for (const auto& [begin, end] : config.ulysses_head_chunks) ranges.push_back(Json::array({begin, end}));
    out["ulysses_chunks"] = Json{{"chunks", config.ulysses_chunks}, {"head_ranges", std::move(ranges)}};
  }
  if (config.prefetch > 1) out["fsdp_prefetch"] = config.prefetch;  // the runtimes' default (1) is left out
  if (config.accumulate > 1) out["accumulate"] = config.accumulate;  // no accumulation (1) is left out
  out["placement"] = Placement(plan, config);
  out["peak_memory_bytes"] = config.peak_memory.value();
  out["memory"] = Memory(plan, config);
  out["breakdown"] = Breakdown(config.breakdown);  // of one forward pass (training: of the step)
  out["forwards_per_step"] = config.forwards_per_step;
  out["evidence_hash"] = config.evidence_hash;
  out["xdit"] = Xdit(plan, config);
  out["tensors"] = Tensors(config);
  return out;
}

}  // namespace

std::string PlanJson(const Plan& plan, bool timing) {
  Json doc;
  doc["format"] = kPlanJsonFormat;
  doc["inputs"] = Inputs(plan);
  doc["best"] = ConfigurationJson(plan, plan.best);
  // Every baseline: its configuration, or why it has none (a baseline with
  // neither, as the annotated one of a zoo model, is left out).
  Json baselines = Json::object();
  for (const search::Baseline& b : plan.baselines) {
    if (b.configuration) {
      baselines[b.label] = ConfigurationJson(plan, *b.configuration);
    } else if (!b.note.empty()) {
      baselines[b.label] = Json{{"step_latency_s", nullptr}, {"note", b.note}};
    }
  }
  doc["baselines"] = std::move(baselines);
  auto over = [&](std::string_view label) {
    const Configuration* c = plan.Find(label);
    return c ? Speedup(c->step_latency.value(), plan.best.step_latency.value()) : std::nan("");
  };
  double over_alpa = over("alpa"), over_expert = over("expert"), over_deployed = over("deployed");
  doc["speedups"] = Json{{"over_expert", Number(over_expert)},
                         {"over_deployed", Number(over_deployed)},
                         {"over_alpa", Number(over_alpa)}};
  if (plan.train) {
    doc["samples_per_s"] = Number(plan.samples_per_second);
  } else {
    doc["video_latency_s"] = Number(plan.video_latency.value());
    doc["denoising_latency_s"] = Number(plan.best.step_latency.value() * static_cast<double>(plan.steps));
    doc["stages_latency_s"] = Number(plan.stages_latency.value());
    doc["stages"] = Stages(plan);
  }
  if (timing) doc["plan_time_s"] = Number(plan.plan_time.value());
  doc["roofline_bound_s"] = Number(plan.roofline_bound.value());
  doc["efficiency"] = Number(plan.efficiency);
  doc["search"] = Json{{"meshes_considered", plan.meshes_considered},
                       {"candidates_considered", plan.candidates_considered},
                       {"candidates_compiled", plan.candidates_compiled}};
  // Invalid UTF-8 in a name must not abort: replace it (U+FFFD) rather than
  // throw, since no exception may cross the library boundary.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace az::emit
