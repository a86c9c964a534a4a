#include "emit/maxdiffusion.h"

#include <cstdio>

#include "emit/plan_format.h"
#include "search/targets.h"

namespace az::emit {

namespace {

// A batch as generate_wan.py parses per_device_batch_size: a float,
// videos / devices (0.125 for one video on 8 chips).
std::string PerDevice(int64_t videos, int64_t devices) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", static_cast<double>(videos) / static_cast<double>(devices));
  return text;
}

}  // namespace

MaxDiffusionLaunch PlanMaxDiffusion(const search::Plan& plan, const search::Configuration& config) {
  MaxDiffusionLaunch out;
  auto refuse = [&](std::string why) {
    out.reason = std::move(why);
    return out;
  };
  if (!plan.tpu) return refuse("MaxDiffusion plans are written for TPU slices; a GPU plan runs xDiT (plan_torch.py)");
  if (plan.train) return refuse("training plans: MaxDiffusion's remat policies are not the plan's (not written yet)");
  const std::optional<std::string> file = search::MaxDiffusionConfigFile(plan.model);
  if (!file) {
    return refuse("MaxDiffusion has no text-to-video config for " + plan.model +
                  " (it runs Wan 2.1 T2V 1.3B and 14B and Wan 2.2 T2V A14B)");
  }
  if (config.seeded) {
    return refuse("the " + config.sharding + " sharding is a set of per-tensor seeds, not MaxDiffusion's mesh axes");
  }
  int64_t devices = 1;
  for (const auto& [axis, size] : config.mesh) devices *= size;
  // Context attention (K and V gathered) is Combo::context; its axis role says so.
  int64_t context_gathered = 1;
  for (size_t a = 0; a < config.axis_roles.size() && a < config.mesh.size(); ++a) {
    if (config.axis_roles[a] == "context") context_gathered *= config.mesh[a].second;
  }
  const int64_t data = int64_t{config.dp} * config.cfg;
  const int64_t sequence = int64_t{config.ring} * config.ulysses * context_gathered;
  if (data * sequence * config.tp != devices) {
    return refuse("its degrees (" + config.description + ") do not map onto data x context x tensor");
  }
  // MaxDiffusion runs CFG as one batch-2 forward: its data axis splits the
  // videos, twice over with guidance.
  const bool guidance = plan.cfg_mode != "none";
  const int64_t rows = plan.batch * (guidance ? 2 : 1);
  if (rows % data != 0) {
    return refuse("a data axis of " + std::to_string(data) + " does not divide the " + std::to_string(rows) +
                  " rows of the batch-" + std::to_string(rows) + " forward MaxDiffusion runs");
  }
  // Multi-slice: the DCN part of each MaxDiffusion axis, from the axes the
  // plan puts across slices (their roles: cfg and dp are data; ring, ulysses
  // and context are context; tp is tensor).
  int64_t dcn_data = 1, dcn_context = 1, dcn_tensor = 1;
  const ScaleOut scale_out = ScaleOutOf(plan, config);
  if (scale_out.multi) {
    if (!scale_out.split.hybrid) {
      return refuse("its placement is no hybrid mesh over the slices, and MaxDiffusion lays slices out with "
                    "create_hybrid_device_mesh");
    }
    for (size_t a = 0; a < config.mesh.size(); ++a) {
      const int64_t outer = scale_out.split.outer[a];
      if (outer == 1) continue;
      const std::string& role = a < config.axis_roles.size() && !config.axis_roles[a].empty() ? config.axis_roles[a]
                                                                                              : config.mesh[a].first;
      if (role == "cfg" || role == "dp") {
        dcn_data *= outer;
      } else if (role == "ring" || role == "ulysses" || role == "context") {
        dcn_context *= outer;
      } else if (role == "tp") {
        dcn_tensor *= outer;
      } else {
        return refuse("mesh axis '" + config.mesh[a].first + "' crosses DCN but binds none of MaxDiffusion's axes");
      }
    }
  }
  std::string attention = "flash";
  if (config.ring > 1 && config.ulysses > 1) {
    attention = "ulysses_ring";
  } else if (config.ring > 1) {
    attention = "ring";
  } else if (config.ulysses > 1) {
    attention = "ulysses";
  }
  out.expressible = true;
  out.config_file = *file;
  auto set = [&](const std::string& key, const std::string& value) { out.overrides.emplace_back(key, value); };
  std::string run = "aoizora-" + plan.model + "-" + plan.topology;
  for (char& c : run) {
    if (c == ':') c = '-';
    if (c == '*') c = '_';  // "v5e:2x2*2": no shell glob in the command line
  }
  set("run_name", run);
  set("height", std::to_string(plan.height));
  set("width", std::to_string(plan.width));
  set("num_frames", std::to_string(plan.frames));
  set("num_inference_steps", std::to_string(plan.steps));
  set("do_classifier_free_guidance", guidance ? "True" : "False");
  set("per_device_batch_size", PerDevice(plan.batch, devices));
  set("attention", attention);
  if (attention == "ulysses_ring") set("ulysses_shards", std::to_string(config.ulysses));
  if (config.ulysses_chunks > 1) {
    // base_wan_*.yml: "For communication-compute overlap to be effective,
    // enable the XLA flags --xla_tpu_enable_async_all_to_all=true
    // --xla_tpu_overlap_compute_collective_tc=true".
    set("ulysses_attention_chunks", std::to_string(config.ulysses_chunks));
    out.env.emplace_back("LIBTPU_INIT_ARGS",
                         "--xla_tpu_enable_async_all_to_all=true --xla_tpu_overlap_compute_collective_tc=true");
  }
  set("ici_data_parallelism", std::to_string(data / dcn_data));
  set("ici_fsdp_parallelism", "1");
  set("ici_context_parallelism", std::to_string(sequence / dcn_context));
  set("ici_tensor_parallelism", std::to_string(config.tp / dcn_tensor));
  // One slice: every DCN degree 1 (the configs leave dcn_context at -1, auto);
  // several: the plan's DCN split.
  set("dcn_data_parallelism", std::to_string(dcn_data));
  set("dcn_fsdp_parallelism", "1");
  set("dcn_context_parallelism", std::to_string(dcn_context));
  set("dcn_tensor_parallelism", std::to_string(dcn_tensor));
  if (scale_out.multi) {
    out.notes.push_back("across slices: " + ScaleOutText(scale_out) +
                        "; MaxDiffusion's create_hybrid_device_mesh makes each DCN factor the major digit of its "
                        "axis (data, fsdp, context, tensor)");
  }

  if (!config.default_order) {
    out.notes.push_back("MaxDiffusion builds its mesh with create_device_mesh, not the plan's placement (" +
                        config.placement_method + "); plan_jax.py's device array reproduces it");
  }
  if (config.fsdp == 0 && sequence > 1) {
    out.notes.push_back("MaxDiffusion shards the weights' embed dimension over context x fsdp, so it also "
                        "all-gathers weights the plan keeps replicated");
  }
  if (config.prefetch > 1) {
    out.notes.push_back("the plan priced FSDP prefetch depth " + std::to_string(config.prefetch) +
                        " (the weight all-gathers of the next " + std::to_string(config.prefetch - 1) +
                        " layer(s) issued with the current layer's); XLA's latency-hiding scheduler keeps one "
                        "all-gather in flight and no flag raises it, so MaxDiffusion runs depth 1");
  }
  if (guidance && config.cfg == 1 && config.forwards_per_step == 2) {
    out.notes.push_back("MaxDiffusion runs CFG as one batch-2 forward; the plan priced two batch-1 passes");
  }
  return out;
}

std::string MaxDiffusionCommand(const MaxDiffusionLaunch& launch) {
  if (!launch.expressible) return "";
  std::string command;
  for (const auto& [name, value] : launch.env) command += name + "=\"" + value + "\" ";
  command += "python src/maxdiffusion/generate_wan.py " + launch.config_file;
  for (const auto& [key, value] : launch.overrides) command += " " + key + "=" + value;
  return command;
}

std::string MaxDiffusionYaml(const search::Plan& plan) {
  std::string out = "# MaxDiffusion overrides for " + plan.model + " on " + plan.topology +
                    " (aoizora; docs/guide.md, MaxDiffusion).\n";
  const search::Configuration* config = &plan.best;
  MaxDiffusionLaunch launch = PlanMaxDiffusion(plan, plan.best);
  std::string why_not_best;
  if (!launch.expressible) {
    why_not_best = launch.reason;
    if (const search::Configuration* expert = plan.Find("expert")) {
      MaxDiffusionLaunch fallback = PlanMaxDiffusion(plan, *expert);
      if (fallback.expressible) {
        launch = std::move(fallback);
        config = expert;
      }
    }
  }
  if (!why_not_best.empty()) out += "# The plan's best (" + plan.best.description + ") does not run there: " + why_not_best + ".\n";
  if (!launch.expressible) {
    out += "# Nothing here runs under MaxDiffusion: " + launch.reason + ".\n";
    return out;
  }
  out += "# Configuration: " + config->description + ", " + FormatMs(config->step_latency.value()) + "/step predicted" +
         (config == &plan.best ? "" : " (the expert baseline; aoizora's best " + FormatMs(plan.best.step_latency.value()) + "/step)") +
         ".\n";
  for (const std::string& note : launch.notes) out += "# Differs from what was priced: " + note + ".\n";
  out += "# Run from a MaxDiffusion checkout:\n#   " + MaxDiffusionCommand(launch) + "\n";
  out += "# or merge these keys into " + launch.config_file + ".\n";
  for (const auto& [name, value] : launch.env) {
    out += "# The Ulysses head chunks overlap their all-to-alls with attention only with " + name + "=\"" + value +
           "\" set.\n";
  }
  for (const auto& [key, value] : launch.overrides) out += key + ": " + value + "\n";
  return out;
}

}  // namespace az::emit
