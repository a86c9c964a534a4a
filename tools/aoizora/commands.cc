// Thin command implementations: parse what the user gave, call the library,
// print. No modelling logic lives here.
#include "tools/aoizora/commands.h"
#include "tools/aoizora/cli.h"

#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frontend/zoo/stages.h"
#include "frontend/zoo/zoo.h"
#include "pir/analysis/summary.h"
#include "pir/text/parser.h"
#include "pir/text/printer.h"
#include "pir/verify/verifier.h"

namespace az::cli {

using nlohmann::ordered_json;

std::string WithCommas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Percent(Flops part, Flops whole) {
  return whole.value() == 0 ? "0%" : fmt::format("{:.1f}%", 100.0 * static_cast<double>(part.value()) / whole.value());
}

ordered_json CostJson(const pir::OpCost& c) {
  return {{"matmul", c.matmul.value()}, {"attention", c.attention.value()}, {"other", c.other.value()},
          {"bytes_read", c.bytes_read.value()}, {"bytes_written", c.bytes_written.value()}};
}

namespace {

int InspectPirFile(const InspectArgs& args) {
  auto text = ReadFile(args.pir_file);
  if (!text.ok()) return Fail(text.status());
  auto graph = pir::ParseGraph(*text, args.pir_file);
  if (!graph.ok()) return Fail(graph.status());
  SourceBuffer source(args.pir_file, *text);
  if (Status s = pir::VerifyGraph(*graph, &source); !s.ok()) return Fail(s);
  pir::GraphSummary s = pir::SummarizeGraph(*graph);
  if (args.print_pir) {
    fmt::print("{}", pir::PrintGraph(*graph));
    return 0;
  }
  if (args.json) {
    ordered_json j = {{"graph", graph->name()},     {"ops", s.num_ops},
                      {"values", s.num_values},     {"params", s.num_params},
                      {"param_bytes", s.param_bytes.value()}, {"flops", s.model_flops().value()},
                      {"cost", CostJson(s.cost)},   {"activation_peak_bytes", s.activation_peak_bytes.value()}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("graph            {} ({} ops, {} values)\n", graph->name(), s.num_ops, s.num_values);
  fmt::print("parameters       {} ({})\n", WithCommas(s.num_params), FormatBytes(s.param_bytes));
  fmt::print("FLOPs            {} (attention {}, matmul {}; other {})\n", FormatFlops(s.model_flops()),
             FormatFlops(s.cost.attention), FormatFlops(s.cost.matmul), FormatFlops(s.cost.other));
  fmt::print("activations      peak {} live, {} in all\n", FormatBytes(s.activation_peak_bytes),
             FormatBytes(s.activation_total_bytes));
  return 0;
}

// --stage: one non-DiT stage of the model's pipeline (zoo/stages.h), or the list.
int InspectStage(const InspectArgs& args, const zoo::ModelConfig& c) {
  std::vector<zoo::StageInfo> stages = zoo::StagesOf(c);
  if (args.stage == "list") {
    if (args.json) {
      ordered_json list = ordered_json::array();
      for (const zoo::StageInfo& s : stages) {
        list.push_back({{"stage", s.name}, {"kind", std::string(zoo::StageKindName(s.kind))},
                        {"dtype", std::string(pir::DTypeName(s.dtype))}, {"invocations", s.invocations},
                        {"description", s.description}});
      }
      fmt::print("{}\n", list.dump(2));
      return 0;
    }
    if (stages.empty()) fmt::print("{}: no stages built (zoo/stages.h lists the models left out)\n", c.model);
    for (const zoo::StageInfo& s : stages) {
      fmt::print("{:<18} {:<14} {:<5} x{}  {}\n", s.name, zoo::StageKindName(s.kind), pir::DTypeName(s.dtype),
                 s.invocations, s.description);
    }
    return 0;
  }
  auto graph = zoo::BuildStage(c, args.stage);
  if (!graph.ok()) return Fail(graph.status());
  if (args.print_pir) {
    fmt::print("{}", pir::PrintGraph(*graph));
    return 0;
  }
  pir::GraphSummary s = pir::SummarizeGraph(*graph);
  const int64_t invocations = graph->attrs().GetInt("invocations").value_or(1);
  if (args.json) {
    ordered_json j = {{"model", c.model},
                      {"stage", args.stage},
                      {"kind", graph->attrs().GetString("kind").value_or("")},
                      {"invocations", invocations},
                      {"params", s.num_params},
                      {"param_bytes", s.param_bytes.value()},
                      {"flops", s.model_flops().value()},
                      {"cost", CostJson(s.cost)},
                      {"activation_peak_bytes", s.activation_peak_bytes.value()},
                      {"activation_total_bytes", s.activation_total_bytes.value()},
                      {"ops", s.num_ops}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("stage            {} of {} ({}, {} invocation{} per video)\n", args.stage, c.model,
             graph->attrs().GetString("kind").value_or(""), invocations, invocations > 1 ? "s" : "");
  fmt::print("parameters       {} ({}), {}\n", WithCommas(s.num_params), FormatCount(s.num_params),
             FormatBytes(s.param_bytes));
  fmt::print("FLOPs            {}  attention {}, matmul {}; other {} more\n", FormatFlops(s.model_flops()),
             FormatFlops(s.cost.attention), FormatFlops(s.cost.matmul), FormatFlops(s.cost.other));
  fmt::print("activations      peak {} live (unfused, unsharded), {} in all\n", FormatBytes(s.activation_peak_bytes),
             FormatBytes(s.activation_total_bytes));
  fmt::print("graph            {} ops\n", s.num_ops);
  return 0;
}

}  // namespace

int RunModels(const ModelsArgs& args) {
  ordered_json list = ordered_json::array();
  if (!args.json) fmt::print("{:<18} {:>16}  {:<12} {}\n", "model", "parameters", "default", "description");
  for (const zoo::ModelEntry& m : zoo::ListModels()) {
    // Count from the built graph, not the table: the table is what tests check it against.
    auto config = zoo::ResolveConfig(m.name, {});
    if (!config.ok()) return Fail(config.status());
    auto graph = zoo::BuildForward(*config);
    if (!graph.ok()) return Fail(graph.status());
    int64_t params = pir::SummarizeGraph(*graph).num_params;
    std::string size = fmt::format("{}x{}x{}", m.default_width, m.default_height, m.default_frames);
    if (args.json) {
      list.push_back({{"model", m.name}, {"params", params}, {"description", m.description},
                      {"default_width", m.default_width}, {"default_height", m.default_height},
                      {"default_frames", m.default_frames}, {"default_steps", m.default_steps},
                      {"default_cfg", std::string(zoo::CfgModeName(m.default_cfg))}});
      if (config->experts > 1) list.back()["experts"] = config->experts;  // params: of one expert
    } else {
      fmt::print("{:<18} {:>16}  {:<12} {}\n", m.name, WithCommas(params), size, m.description);
    }
  }
  if (args.json) fmt::print("{}\n", list.dump(2));
  return 0;
}

int RunInspect(const InspectArgs& args) {
  if (!args.pir_file.empty()) return InspectPirFile(args);
  if (HasProgram(args)) return InspectProgram(args);
  auto config = ResolveZooFlags(args);
  if (!config.ok()) return Fail(config.status());
  if (!args.stage.empty()) return InspectStage(args, *config);

  auto forward = zoo::BuildForward(*config);
  if (!forward.ok()) return Fail(forward.status());
  auto step = zoo::BuildStep(*config);
  if (!step.ok()) return Fail(step.status());
  if (args.print_pir) {
    fmt::print("{}", pir::PrintGraph(args.graph == "step" ? *step : *forward));
    return 0;
  }
  pir::GraphSummary fwd = pir::SummarizeGraph(*forward);
  pir::GraphSummary stp = pir::SummarizeGraph(*step);
  zoo::TokenCounts tokens = zoo::CountTokens(*config);
  const zoo::ModelConfig& c = *config;

  if (args.json) {
    ordered_json j = {
        {"model", c.model},
        {"width", c.width},
        {"height", c.height},
        {"frames", c.frames},
        {"batch", c.batch},
        {"cfg", std::string(zoo::CfgModeName(c.cfg))},
        {"dtype", std::string(pir::DTypeName(c.dtype))},
        {"steps", c.steps},
        {"params", fwd.num_params},
        {"param_bytes", fwd.param_bytes.value()},
        {"video_tokens", tokens.video},
        {"text_tokens", tokens.text},
        {"forwards_per_step", c.forwards_per_step()},
        {"forward_batch", c.forward_batch()},
        {"flops_per_forward", fwd.model_flops().value()},
        {"flops_per_step", stp.model_flops().value()},
        {"flops_per_video", stp.model_flops().value() * c.steps},
        {"forward_cost", CostJson(fwd.cost)},
        {"step_cost", CostJson(stp.cost)},
        {"activation_peak_bytes", fwd.activation_peak_bytes.value()},
        {"activation_total_bytes", fwd.activation_total_bytes.value()},
        {"forward_ops", fwd.num_ops},
        {"step_ops", stp.num_ops},
    };
    if (c.experts > 1) {
      // `params` is one expert's (the graph); all experts' weights exist.
      j["experts"] = c.experts;
      j["expert_switch_step"] = c.expert_switch_step;
      j["params_all_experts"] = fwd.num_params * c.experts;
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  const zoo::ModelEntry* entry = *zoo::FindModel(c.model);
  Flops f = fwd.model_flops();
  fmt::print("model            {}: {}\n", c.model, entry->description);
  fmt::print("video            {}x{}, {} frames, batch {}, {} steps, {}\n", c.width, c.height, c.frames, c.batch,
             c.steps, pir::DTypeName(c.dtype));
  fmt::print("cfg              {} ({} forward{} of batch {} per step)\n", zoo::CfgModeName(c.cfg),
             c.forwards_per_step(), c.forwards_per_step() > 1 ? "s" : "", c.forward_batch());
  // Patches along time: the latent frames over the temporal patch (CogVideoX1.5: 22 / 2).
  const int64_t patch_rows = c.latent_height() / c.patch, patch_cols = c.latent_width() / c.patch;
  const int64_t patch_frames =
      patch_rows * patch_cols > 0 ? tokens.video / (patch_rows * patch_cols) : c.latent_frames();
  fmt::print("tokens           video {} ({}x{}x{} patches), text {}\n", WithCommas(tokens.video), patch_frames,
             patch_rows, patch_cols, tokens.text);
  if (c.experts > 1) {
    fmt::print("parameters       {} ({}) per expert, {} in {}; {} experts: {} ({}), {}\n", WithCommas(fwd.num_params),
               FormatCount(fwd.num_params), FormatBytes(fwd.param_bytes), pir::DTypeName(c.dtype), c.experts,
               WithCommas(fwd.num_params * c.experts), FormatCount(fwd.num_params * c.experts),
               FormatBytes(fwd.param_bytes * c.experts));
    if (c.expert_switch_step < c.steps) {
      fmt::print("experts          one active per step: expert 1 runs steps 1-{}, expert 2 steps {}-{}\n",
                 c.expert_switch_step, c.expert_switch_step + 1, c.steps);
    } else {
      fmt::print("experts          one active per step: expert 1 runs all {} steps (the switch is not reached)\n",
                 c.steps);
    }
  } else {
    fmt::print("parameters       {} ({}), {} in {}\n", WithCommas(fwd.num_params), FormatCount(fwd.num_params),
               FormatBytes(fwd.param_bytes), pir::DTypeName(c.dtype));
  }
  fmt::print("FLOPs / forward  {}  attention {} ({}), matmul {} ({})\n", FormatFlops(f),
             FormatFlops(fwd.cost.attention), Percent(fwd.cost.attention, f), FormatFlops(fwd.cost.matmul),
             Percent(fwd.cost.matmul, f));
  fmt::print("                 other (element-wise, norms, softmax) {} more\n", FormatFlops(fwd.cost.other));
  fmt::print("FLOPs / step     {}\n", FormatFlops(stp.model_flops()));
  fmt::print("FLOPs / video    {} ({} steps)\n", FormatFlops(stp.model_flops() * c.steps), c.steps);
  fmt::print("activations      peak {} live in one forward (unfused, unsharded), {} in all\n",
             FormatBytes(fwd.activation_peak_bytes), FormatBytes(fwd.activation_total_bytes));
  fmt::print("graph            forward {} ops, step {} ops\n", fwd.num_ops, stp.num_ops);
  return 0;
}

int Fail(const Status& status) {
  fmt::print(stderr, "aoizora: {}\n", status.message());
  return 1;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open '" + path + "'");
  // Every input is read whole and parsed in memory (about 10x its size at
  // most); past 1 GiB a file is refused rather than risking the machine.
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxInputFileBytes) {
    return ResourceExhausted("'" + path + "' is " + std::to_string(size >> 20) + " MiB, over the input limit of " +
                             std::to_string(kMaxInputFileBytes >> 20) + " MiB");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

StatusOr<hw::Topology> LoadTopology(const std::string& spec) {
  bool json = spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0;
  if (!json) return hw::MakeTopology(spec);
  AZ_ASSIGN_OR_RETURN(std::string text, ReadFile(spec));
  return hw::LoadTopologyJson(text, spec);
}

StatusOr<price::PriceCalibration> LoadPriceCalibration(const std::string& path, const hw::Topology& topology) {
  if (path.empty()) return price::DefaultPriceCalibration(topology);
  AZ_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return price::LoadPriceCalibration(text, path, topology);
}

StatusOr<workload::Workload> ResolveModelFlags(const ModelFlags& flags) {
  if (HasProgram(flags)) {
    AZ_ASSIGN_OR_RETURN(ImportedModel imported, ResolveProgram(flags));
    return imported.workload;
  }
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, ResolveZooFlags(flags));
  return zoo::WorkloadOf(config);
}

StatusOr<zoo::ModelConfig> ResolveZooFlags(const ModelFlags& flags) {
  zoo::ModelOptions options;
  options.width = flags.width;
  options.height = flags.height;
  options.frames = flags.frames;
  options.steps = flags.steps;
  options.batch = flags.batch;
  if (!flags.cfg.empty()) {
    AZ_ASSIGN_OR_RETURN(zoo::CfgMode cfg, zoo::ParseCfgMode(flags.cfg));
    options.cfg = cfg;
  }
  auto dtype = pir::ParseDType(flags.dtype);
  if (!dtype) return InvalidArgument("unknown dtype '" + flags.dtype + "' (expected bf16, f16 or f32)");
  options.dtype = *dtype;
  return zoo::ResolveConfig(flags.model, options);
}

CLI::Option* AddModelFlags(CLI::App* cmd, ModelFlags* flags) {
  CLI::Option* model = cmd->add_option("--model,-m", flags->model, "Zoo model (see `aoizora models`)");
  CLI::Option* stablehlo = cmd->add_option(
      "--stablehlo", flags->stablehlo, "A StableHLO text file (jax.jit(f).lower(...).as_text()) in place of --model");
  CLI::Option* onnx = cmd->add_option("--onnx", flags->onnx, "An ONNX file (torch.onnx.export) in place of --model");
  model->excludes(stablehlo)->excludes(onnx);
  stablehlo->excludes(onnx);
  cmd->add_option("--latent", flags->latent,
                  "With --stablehlo/--onnx: the input carrying the video tokens (default: found from the attention)");
  cmd->add_option("--dim", flags->dims, "With --onnx: bind a symbolic dimension, NAME=SIZE (repeatable)");
  cmd->add_option("--width", flags->width, "Video width in pixels (multiple of 16)");
  cmd->add_option("--height", flags->height, "Video height in pixels (multiple of 16)");
  cmd->add_option("--frames", flags->frames, "Frames (4n+1, or the model's VAE rule: 6n+1, 8n+1, 17n...)");
  cmd->add_option("--steps", flags->steps, "Denoising steps");
  cmd->add_option("--batch", flags->batch, "Videos per step")->capture_default_str();
  cmd->add_option("--cfg", flags->cfg, "CFG mode: two-pass, batch2 or none (default: the model's)");
  cmd->add_option("--dtype", flags->dtype, "bf16, f16 or f32")->capture_default_str();
  return model;
}

void RegisterModels(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<ModelsArgs>();
  CLI::App* cmd = app.add_subcommand("models", "List the model zoo with parameter counts");
  cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
  cmd->callback([args, &ctx] { ctx.exit_code = RunModels(*args); });
}

void RegisterInspect(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand("inspect", "Tokens, parameters, FLOPs and memory of a model or a PIR file");
  auto* model_opt = AddModelFlags(cmd, args.get());
  auto* pir_opt = cmd->add_option("--pir", args->pir_file, "A PIR text file to parse, verify and inspect");
  model_opt->excludes(pir_opt);
  cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
  cmd->add_flag("--print-pir", args->print_pir, "Print the graph as PIR text");
  cmd->add_option("--graph", args->graph, "Graph for --print-pir: forward or step")
      ->check(CLI::IsMember({"forward", "step"}))
      ->capture_default_str();
  auto* stage_opt = cmd->add_option("--stage", args->stage,
                                    "A non-DiT stage of --model (text / image encoder, VAE decoder), or 'list'");
  stage_opt->needs(model_opt);
  cmd->callback([args, &ctx] {
    if (args->model.empty() && args->pir_file.empty() && !HasProgram(*args)) {
      fmt::print(stderr, "aoizora inspect: give --model M, --stablehlo FILE, --onnx FILE or --pir FILE (see --help)\n");
      ctx.exit_code = 2;
      return;
    }
    ctx.exit_code = RunInspect(*args);
  });
}

}  // namespace az::cli
