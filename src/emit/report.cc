// report.md and the CLI summary (report.h lists the sections).
#include "emit/report.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "emit/codegen_torch.h"
#include "emit/plan_format.h"

namespace az::emit {
namespace {

using search::Configuration;
using search::Plan;

void Line(std::string& out, const std::string& text = "") { out += text + "\n"; }

std::string Row(const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const std::string& cell : cells) row += " " + cell + " |";
  return row;
}

std::string Rule(size_t columns) {
  std::string rule = "|";
  for (size_t k = 0; k < columns; ++k) rule += "---|";
  return rule;
}

std::string Inputs(const Plan& plan) {
  if (plan.train) return WorkloadText(plan) + ", AdamW";
  return WorkloadText(plan) + ", " + StepsText(plan, plan.best) + ", batch " + std::to_string(plan.batch);
}

// A share of the step latency, "-" without a latency.
std::string Share(double part, double whole) { return whole > 0 ? FormatPercent(part / whole) : "-"; }

// The sharding and, for chunked Ulysses (not a sharding), its chunks.
std::string ShardingText(const Configuration& config) {
  if (config.ulysses_chunks <= 1) return config.sharding;
  return config.sharding + " +ulysses_chunks=" + std::to_string(config.ulysses_chunks);
}

void Summary(std::string& out, const Plan& plan) {
  Line(out, "## Summary");
  Line(out);
  std::vector<std::string> header = {"configuration", "mesh",          "sharding",    "placement",
                                     "step latency",  plan.train ? "throughput" : "video latency", "peak memory",
                                     "aoizora speedup"};
  Line(out, Row(header));
  Line(out, Rule(header.size()));
  auto row = [&](const Configuration& config, const std::string& name) {
    Line(out, Row({name, MarkdownCell(MeshText(config)), MarkdownCell(ShardingText(config)),
                   MarkdownCell(config.placement_method), FormatMs(config.step_latency.value()),
                   plan.train ? ThroughputText(plan, config) : FormatDuration(VideoLatency(plan, config)),
                   FormatBytes(config.peak_memory.value()),
                   FormatRatio(Speedup(config.step_latency.value(), plan.best.step_latency.value()))}));
  };
  row(plan.best, "**aoizora**");
  for (const search::Baseline& b : plan.baselines) {
    if (b.configuration) {
      row(*b.configuration, b.label == "annotated" ? "as annotated" : b.label);
    } else if (!b.note.empty()) {
      Line(out, Row({b.label, "-", "no plan: " + MarkdownCell(b.note), "-", "-", "-", "-", "-"}));
    }
  }
  Line(out);
  const Configuration* expert = plan.Find("expert");
  const Configuration* alpa = plan.Find("alpa");
  std::string sentence =
      expert ? "aoizora is " + FormatRatio(Speedup(expert->step_latency.value(), plan.best.step_latency.value())) +
                   " as fast as the expert configuration (" + MarkdownCell(expert->description) + ")"
             : "No expert configuration runs here";
  if (alpa) {
    sentence += std::string(expert ? " and " : "; aoizora is ") +
                FormatRatio(Speedup(alpa->step_latency.value(), plan.best.step_latency.value())) + " as fast as Alpa's (" +
                MarkdownCell(alpa->description) + ")";
  }
  if (const Configuration* deployed = plan.Find("deployed")) {
    sentence += "; it is " + FormatRatio(Speedup(deployed->step_latency.value(), plan.best.step_latency.value())) +
                " as fast as the model repository's own recipe (" + MarkdownCell(deployed->description) + ")";
  }
  Line(out, sentence + ". Speedup = the configuration's step latency / aoizora's.");
  Line(out);
  Line(out, "aoizora: " + MarkdownCell(plan.best.description) + "; peak memory " +
                FormatBytes(plan.best.peak_memory.value()) + " per device (parameters " +
                FormatBytes(plan.best.parameter_memory.value()) + ") of " + FormatBytes(plan.hbm.value()) + " HBM.");
  Line(out);
  // Which mesh axes cross the scale-out network (slices over DCN, nodes over
  // their NICs), for the plan and for every baseline that differs.
  if (ScaleOut scale_out = ScaleOutOf(plan, plan.best); scale_out.multi) {
    Line(out, "Scale-out (aoizora): " + MarkdownCell(ScaleOutText(scale_out)) + ".");
    for (const search::Baseline& baseline : plan.baselines) {
      if (!baseline.configuration) continue;
      ScaleOut theirs = ScaleOutOf(plan, *baseline.configuration);
      if (theirs.multi) Line(out, "Scale-out (" + baseline.label + "): " + MarkdownCell(ScaleOutText(theirs)) + ".");
    }
    Line(out);
  }
  if (!plan.best.noise_experts_mode.empty()) {
    std::string swap = plan.best.noise_experts_mode == "swap"
                           ? " The swap costs " + FormatSeconds(plan.best.noise_swap_per_video) +
                                 " per video, " + FormatSeconds(plan.best.noise_swap_per_step) +
                                 " per step, included in the step latency."
                           : "";
    Line(out, "Experts: " + plan.best.noise_experts_mode + " (" + std::to_string(plan.best.noise_experts) + " experts of " +
                  FormatBytes(plan.best.noise_expert_memory) + " per device, one active per step): " +
                  MarkdownCell(plan.best.noise_experts_reason) + "." + swap);
    Line(out);
  }
}

// What is live at the peak, per device, by kind (compiled program's buffer
// liveness); for a training step the terms ZeRO-3 and remat trade.
void MemoryAtPeak(std::string& out, const Plan& plan) {
  const evidence::MemoryBreakdown& m = plan.best.memory;
  if (m.Total().value() <= 0) return;
  Line(out, "## Memory per device at the peak (aoizora)");
  Line(out);
  Line(out, Row({"", "bytes", "share of the peak"}));
  Line(out, Rule(3));
  const double peak = static_cast<double>(m.Total().value());
  struct Term {
    std::string name;
    Bytes bytes;
    bool training_only;
  };
  const std::vector<Term> terms = {
      {"parameters", m.parameters, false},
      {"gradients", m.gradients, true},
      {"optimizer states (fp32 master, exp_avg, exp_avg_sq)", m.optimizer_state, true},
      {plan.train ? "activations (kept for the backward, and working buffers)" : "activations", m.activations, false},
      {"communication buffers", m.communication, false},
      {"inputs", m.inputs, false},
      {"constants", m.constants, false}};
  for (const Term& term : terms) {
    if (term.training_only && !plan.train) continue;
    Line(out, Row({term.name, FormatBytes(term.bytes), Share(static_cast<double>(term.bytes.value()), peak)}));
  }
  Line(out, Row({"**total**", FormatBytes(m.Total()), Share(peak, peak)}));
  Line(out);
}

// The pipeline around the denoising steps (search/stages.h).
void Stages(std::string& out, const Plan& plan) {
  if (plan.stages.empty()) return;
  Line(out, "## The whole video: encoders, steps, VAE (aoizora)");
  Line(out);
  Line(out, Row({"stage", "sharding", "latency per video", "share of the video", "peak memory", "note"}));
  Line(out, Rule(6));
  const double video = plan.video_latency.value();
  bool steps_written = false;
  auto steps = [&] {
    const double denoising = plan.best.step_latency.value() * static_cast<double>(plan.steps);
    Line(out, Row({"denoising: " + std::to_string(plan.steps) + " steps", MarkdownCell(plan.best.sharding),
                   FormatDuration(denoising), Share(denoising, video), FormatBytes(plan.best.peak_memory.value()), ""}));
    steps_written = true;
  };
  for (const search::StagePlan& s : plan.stages) {
    if (!steps_written && s.kind == "vae-decoder") steps();
    Line(out, Row({s.name, MarkdownCell(s.sharding) + (s.offloaded ? " (offloaded)" : ""), FormatDuration(s.latency.value()),
                   Share(s.latency.value(), video), FormatBytes(s.peak_memory.value()), MarkdownCell(s.note)}));
  }
  if (!steps_written) steps();
  Line(out, Row({"**video**", "", FormatDuration(video), Share(video, video), "", ""}));
  Line(out);
  Line(out, "Each stage runs on the same chips with the DiT's weights resident; the baselines' video latencies add the "
            "same stages.");
  Line(out);
}

void Roofline(std::string& out, const Plan& plan) {
  Line(out, "## Roofline");
  Line(out);
  Line(out, "Bound: " + FormatDuration(plan.roofline_bound) +
                " per step, the larger of all FLOPs at every chip's peak and all HBM traffic at every chip's "
                "bandwidth. aoizora's step takes " +
                FormatDuration(plan.best.step_latency) + ": efficiency " + FormatPercent(plan.efficiency) +
                " (bound / step latency).");
  Line(out);
}

void Breakdown(std::string& out, const Plan& plan) {
  const price::SimResult& result = plan.best.breakdown;
  Line(out, "## Where the time goes (aoizora)");
  Line(out);
  if (plan.train) {
    if (plan.best.accumulate > 1) {
      Line(out, "One training step: " + std::to_string(plan.best.accumulate) + " micro-steps of " +
                    std::to_string(plan.batch / plan.best.accumulate) + " sample(s), each forward and backward (remat " +
                    plan.best.remat + "), their gradients summed, then one AdamW update.");
    } else {
      Line(out, "One training step: forward, backward (remat " + plan.best.remat + ") and the AdamW update.");
    }
  } else {
    Line(out, "One forward pass; the step runs " + std::to_string(plan.best.forwards_per_step) +
                  (plan.best.forwards_per_step == 1 ? " of them." : " of them (two-pass CFG)."));
  }
  if (plan.best.prefetch > 1) {
    Line(out);
    Line(out, "FSDP prefetch depth " + std::to_string(plan.best.prefetch) + ": the weight all-gathers of the next " +
                  std::to_string(plan.best.prefetch - 1) +
                  " layer(s) run alongside the current layer's, their gathered weights held ahead (in the peak). "
                  "The baselines keep depth 1, their runtimes' default.");
  }
  Line(out);
  const std::string unit = plan.train ? "training step" : "forward pass";
  Line(out, Row({"", "time", "share of the " + std::string(plan.train ? "step" : "forward")}));
  Line(out, Rule(3));
  Line(out, Row({unit, FormatDuration(result.latency.value()), Share(result.latency.value(), result.latency.value())}));
  Line(out, Row({"compute", FormatDuration(result.compute.value()), Share(result.compute.value(), result.latency.value())}));
  Line(out, Row({"communication", FormatDuration(result.communication.value()), Share(result.communication.value(), result.latency.value())}));
  Line(out, Row({"exposed communication", FormatDuration(result.exposed_communication.value()),
                 Share(result.exposed_communication.value(), result.latency.value())}));
  double overlapped = result.communication.value() - result.exposed_communication.value();
  Line(out, Row({"overlapped communication", FormatDuration(overlapped), Share(overlapped, result.latency.value())}));
  if (result.host_transfer.value() > 0) {  // remat offload: each direction over the host link, and what compute left exposed
    Line(out, Row({"host offload (each way)", FormatDuration(result.host_transfer.value()),
                   Share(result.host_transfer.value(), result.latency.value())}));
    Line(out, Row({"exposed host offload", FormatDuration(result.host_exposed.value()), Share(result.host_exposed.value(), result.latency.value())}));
  }
  Line(out);
  Line(out, std::to_string(result.kernels) + " kernels, " + std::to_string(result.collectives) + " collectives in " +
                std::to_string(result.classes.size()) + " classes.");
  Line(out);
  if (result.classes.empty()) return;

  Line(out, "Top collective classes (by total time):");
  Line(out);
  Line(out, Row({"kind", "bytes", "groups", "algorithm", "count", "each", "total", "exposed"}));
  Line(out, Rule(8));
  std::vector<const price::ClassCost*> classes = ClassesByTime(result);
  for (size_t k = 0; k < classes.size() && k < kReportClasses; ++k) {
    const price::ClassCost& cls = *classes[k];
    Line(out, Row({MarkdownCell(cls.kind), FormatBytes(cls.bytes.value()), MarkdownCell(cls.groups),
                   MarkdownCell(cls.algorithm), std::to_string(cls.count), FormatDuration(cls.time),
                   FormatDuration(cls.time * cls.count), FormatDuration(cls.exposed)}));
  }
  Line(out);
  Line(out, "Per collective kind:");
  Line(out);
  Line(out, Row({"kind", "count", "bytes", "time", "exposed"}));
  Line(out, Rule(5));
  for (const KindCost& kind : CostByKind(result)) {
    Line(out, Row({MarkdownCell(kind.kind), std::to_string(kind.count), FormatBytes(kind.bytes),
                   FormatDuration(kind.time), FormatDuration(kind.exposed)}));
  }
  Line(out);
  std::vector<const price::LinkLoad*> links = BusiestLinks(result, kReportLinks);
  if (!links.empty()) {
    std::string text = "Busiest links:";
    for (size_t k = 0; k < links.size(); ++k) {
      text += (k > 0 ? "; " : " ") + MarkdownCell(links[k]->name) + " busy " + FormatDuration(links[k]->busy) + " (" +
              FormatBytes(static_cast<int64_t>(links[k]->bytes)) + ")";
    }
    Line(out, text + " (placement.svg).");
    Line(out);
  }
}

void Assignment(std::string& out, const Plan& plan) {
  const Configuration& config = plan.best;
  Line(out, "## Device assignment (aoizora)");
  Line(out);
  std::string axes;
  for (const auto& [axis, size] : config.mesh) axes += (axes.empty() ? "" : ", ") + axis;
  Line(out, Row({"logical rank", "mesh position (" + MarkdownCell(axes) + ")", "device id", "chip", "coordinates"}));
  Line(out, Rule(5));
  bool positions = MeshDevices(config) == static_cast<int64_t>(config.placement.size());
  for (size_t rank = 0; rank < config.placement.size(); ++rank) {
    int chip = config.placement[rank];
    std::string position = "-";
    if (positions) {
      position = "(";
      std::vector<int64_t> coords = MeshPosition(config, static_cast<int64_t>(rank));
      for (size_t a = 0; a < coords.size(); ++a) position += (a > 0 ? ", " : "") + std::to_string(coords[a]);
      position += ")";
    }
    std::string coords = "-";
    if (const search::ChipInfo* info = FindChip(plan, chip); info != nullptr && !info->coords.empty()) {
      coords = "(";
      for (size_t a = 0; a < info->coords.size(); ++a) coords += (a > 0 ? ", " : "") + std::to_string(info->coords[a]);
      coords += ")";
    }
    Line(out, Row({std::to_string(rank), position, std::to_string(chip), MarkdownCell(ChipName(plan, chip)), coords}));
  }
  Line(out);
  Line(out, "Logical rank = row-major mesh position = XLA partition id; device id = JAX device id.");
  Line(out);
}

void HowToRun(std::string& out, const Plan& plan) {
  Line(out, "## How to run");
  Line(out);
  if (ScaleOutOf(plan, plan.best).multi && plan.tpu) {
    Line(out, "JAX (`plan_jax.py`): the mesh from `mesh_utils.create_hybrid_device_mesh(ICI_MESH_SHAPE, "
              "DCN_MESH_SHAPE)` over the slices, in the plan's order inside each slice.");
  } else {
    Line(out, "JAX (`plan_jax.py`): the mesh from an explicit device array in the plan's order.");
  }
  Line(out);
  Line(out, "```python");
  Line(out, "from plan_jax import make_mesh, shard_params, constrain");
  Line(out, "mesh = make_mesh()                    # jax.devices() in DEVICE_ORDER");
  Line(out, "params = shard_params(mesh, params)   # PARAM_SPECS");
  Line(out, "x = constrain(x, name, mesh)          # ACTIVATION_SPECS, inside jit");
  Line(out, "```");
  Line(out);
  if (plan.tpu) {
    Line(out, "PyTorch: not written for a TPU plan (`plan_torch.py` targets GPUs).");
    Line(out);
    return;
  }
  Line(out,
       "PyTorch (`plan_torch.py`): under torchrun, `make_device_mesh()` builds the DeviceMesh with the "
       "plan's rank layout; `dtensor_placements(name)` gives each parameter's Shard/Replicate placements.");
  Line(out);
  XditLaunch launch = PlanXditLaunch(plan, plan.best);
  if (!launch.xdit_commands.empty()) {
    Line(out,
         "xDiT (rank order tp-sp-pp-cfg-dp; CUDA_VISIBLE_DEVICES applies the plan's placement when it differs "
         "from the default order):");
    Line(out);
    Line(out, "```sh");
    for (const std::string& command : launch.xdit_commands) Line(out, command);
    Line(out, "```");
    Line(out);
  }
  if (!launch.repo_commands.empty()) {
    Line(out, MarkdownCell(launch.repo_name) + ":");
    Line(out);
    Line(out, "```sh");
    for (const std::string& command : launch.repo_commands) Line(out, command);
    Line(out, "```");
    Line(out);
  }
  for (const std::string& note : launch.notes) Line(out, "Note: " + MarkdownCell(note) + ".");
  if (!launch.notes.empty()) Line(out);
}

}  // namespace

std::string PlanReport(const Plan& plan) {
  std::string out;
  Line(out, "# AoiZora plan: " + MarkdownCell(plan.model) + " on " + MarkdownCell(plan.topology));
  Line(out);
  Line(out, MarkdownCell(Inputs(plan)) + "; chip " + MarkdownCell(plan.chip) + " (" + FormatBytes(plan.hbm.value()) +
                " HBM), " + std::to_string(plan.chips.size()) + " chips, seed " + std::to_string(plan.seed) + ".");
  char efficiency[32];
  std::snprintf(efficiency, sizeof(efficiency), "%.4f", plan.attention_efficiency);
  Line(out, "Priced with the software stack " + MarkdownCell(plan.stack) + " (attention efficiency " + efficiency +
                "): " + MarkdownCell(plan.stack_reason) + ".");
  Line(out, "Planned in " + FormatDuration(plan.plan_time) + ": " + std::to_string(plan.meshes_considered) +
                " meshes, " + std::to_string(plan.candidates_considered) + " candidates, " +
                std::to_string(plan.candidates_compiled) + " compiled.");
  Line(out);
  Summary(out, plan);
  Stages(out, plan);
  MemoryAtPeak(out, plan);
  Roofline(out, plan);
  Breakdown(out, plan);
  Assignment(out, plan);
  HowToRun(out, plan);
  Line(out,
       "Files: `plan.json` (everything above, machine-readable), `placement.svg` (placement and link loads), "
       "`compare.svg` (latency bars), `step.trace.json` (the simulated step; open in ui.perfetto.dev).");
  return out;
}

std::string PlanSummary(const Plan& plan) {
  std::string out;
  Line(out, "aoizora plan: " + plan.model + " " + Inputs(plan) + " on " + plan.topology + ", stack " + plan.stack);
  auto pad = [](std::string text, size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
  };
  size_t mesh_width = MeshText(plan.best).size(), sharding_width = ShardingText(plan.best).size();
  size_t name_width = std::string("aoizora").size() + 1;  // the longest label and a space
  for (const search::Baseline& b : plan.baselines) {
    name_width = std::max(name_width, b.label.size() + 1);
    if (!b.configuration) continue;
    mesh_width = std::max(mesh_width, MeshText(*b.configuration).size());
    sharding_width = std::max(sharding_width, ShardingText(*b.configuration).size());
  }
  auto line = [&](const std::string& name, const Configuration& config, bool best) {
    std::string text = "  " + pad(name, name_width) + pad(MeshText(config), mesh_width + 2) +
                       pad(ShardingText(config), sharding_width + 2) + FormatMs(config.step_latency.value()) + "/step  " +
                       ThroughputText(plan, config) + "  peak " +
                       FormatBytes(config.peak_memory.value()) + (plan.train ? "  remat " + config.remat : "") +
                       (config.prefetch > 1 ? "  fsdp prefetch " + std::to_string(config.prefetch) : "") +
                       (config.accumulate > 1 ? "  accumulate " + std::to_string(config.accumulate) : "");
    if (!best) text += "  (aoizora " + FormatRatio(Speedup(config.step_latency.value(), plan.best.step_latency.value())) + ")";
    Line(out, text);
  };
  line("aoizora", plan.best, true);
  for (const search::Baseline& b : plan.baselines) {
    if (b.configuration) {
      line(b.label == "annotated" ? "yours" : b.label, *b.configuration, false);
    } else if (!b.note.empty()) {
      Line(out, "  " + pad(b.label, name_width) + "no plan: " + b.note);
    }
  }
  Line(out, "  placement " + plan.best.placement_method + "; roofline " + FormatMs(plan.roofline_bound.value()) +
                "/step, efficiency " + FormatPercent(plan.efficiency) + "; planned in " +
                FormatDuration(plan.plan_time));
  if (!plan.best.noise_experts_mode.empty()) Line(out, "  experts " + plan.best.noise_experts_mode + ": " + plan.best.noise_experts_reason);
  if (!plan.stages.empty()) Line(out, "  video " + FormatDuration(plan.video_latency) + " = " + StagesText(plan, plan.best));
  return out;
}

}  // namespace az::emit
