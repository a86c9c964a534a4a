// --stablehlo FILE / --onnx FILE: a program imported from a file in place of a
// zoo model, for every command that takes --model (inspect, compile, plan).
#include <fmt/core.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "frontend/import/program_load.h"
#include "frontend/import/unknown_ops.h"
#include "pir/analysis/summary.h"
#include "pir/text/printer.h"
#include "support/units.h"
#include "tools/aoizora/cli.h"

namespace az::cli {

bool HasProgram(const ModelFlags& flags) { return !flags.stablehlo.empty() || !flags.onnx.empty(); }

StatusOr<ImportedModel> ResolveProgram(const ModelFlags& flags) {
  if (!flags.stablehlo.empty() && !flags.onnx.empty()) {
    return InvalidArgument("give one of --stablehlo and --onnx, not both");
  }
  if (flags.width || flags.height || flags.frames || !flags.cfg.empty()) {
    return InvalidArgument(
        "--width, --height, --frames and --cfg describe a zoo model; an imported program has its shapes already "
        "(bind symbolic dims with --dim NAME=SIZE)");
  }
  frontend::ProgramRequest request;
  request.format = flags.stablehlo.empty() ? frontend::ProgramRequest::Format::kOnnx
                                           : frontend::ProgramRequest::Format::kStableHlo;
  request.file = flags.stablehlo.empty() ? flags.onnx : flags.stablehlo;
  request.latent = flags.latent;
  request.steps = flags.steps;
  for (const std::string& dim : flags.dims) {
    // Checked here first so that the message names the flag.
    if (auto binding = frontend::ParseDimBinding(dim); !binding.ok()) {
      return InvalidArgument("--dim " + binding.status().message());
    }
    request.dims.push_back(dim);
  }
  AZ_ASSIGN_OR_RETURN(frontend::LoadedProgram loaded, frontend::LoadProgram(request));
  for (const std::string& warning : loaded.program.warnings) fmt::print(stderr, "aoizora: {}\n", warning);
  // Unpriced custom ops over 1% of the program's bytes: the latencies leave out work.
  if (std::string unpriced = frontend::UnpricedWarning(frontend::FindUnknownOps(loaded.program.graph));
      !unpriced.empty()) {
    fmt::print(stderr, "aoizora: {}: warning: {}\n", request.file, unpriced);
  }
  return ImportedModel{std::move(loaded.program), std::move(loaded.workload)};
}

int InspectProgram(const InspectArgs& args) {
  auto imported = ResolveProgram(args);
  if (!imported.ok()) return Fail(imported.status());
  const frontend::ImportedProgram& p = imported->program;
  const pir::Graph& g = p.graph;
  if (args.print_pir) {
    fmt::print("{}", pir::PrintGraph(g));
    return 0;
  }
  pir::GraphSummary s = pir::SummarizeGraph(g);
  int attention_ops = 0;
  for (const pir::Op& op : g.ops()) attention_ops += op.kind == pir::OpKind::kAttention;
  const int64_t video = g.attrs().GetInt("video_tokens").value_or(0), text = g.attrs().GetInt("text_tokens").value_or(0);
  // "name": the value's name in the plan (an FQN the importer may have
  // recovered); "source": the file's own name when it differs ("val_72").
  auto value_json = [&](const std::string& source, pir::ValueId v) {
    const pir::Value& value = g.value(v);
    nlohmann::ordered_json j = {{"name", value.name.empty() ? source : value.name},
                                {"role", std::string(pir::ValueRoleName(value.role))},
                                {"dtype", std::string(pir::DTypeName(value.type.dtype))},
                                {"shape", value.type.shape}};
    if (!value.name.empty() && value.name != source) j["source"] = source;
    if (value.sharding) j["sharding"] = pir::PrintSharding(*value.sharding);
    return j;
  };
  const frontend::UnknownOps unknown = frontend::FindUnknownOps(g);
  nlohmann::ordered_json custom_json = nlohmann::ordered_json::array();
  for (const frontend::CustomOpGroup& c : unknown.custom) {
    custom_json.push_back({{"target", c.target},
                           {"count", c.count},
                           {"shapes", c.shapes},
                           {"priced", c.priced},
                           {"flops", c.flops.value()},
                           {"bytes", c.bytes.value()},
                           {"pricing", c.pricing}});
  }
  if (args.json) {
    nlohmann::ordered_json arguments = nlohmann::ordered_json::array(), results = nlohmann::ordered_json::array();
    for (const frontend::ImportedArgument& a : p.arguments) {
      if (a.value >= 0) arguments.push_back(value_json(a.source_name, a.value));
    }
    for (const frontend::ImportedResult& r : p.results) {
      if (r.value >= 0) results.push_back(value_json(r.source_name, r.value));
    }
    nlohmann::ordered_json meshes = nlohmann::ordered_json::array();
    for (const pir::Mesh& m : g.meshes()) meshes.push_back(pir::PrintMesh(m));
    nlohmann::ordered_json j = {
        {"model", imported->workload.model},
        {"format", p.format},
        {"batch", imported->workload.batch},
        {"steps", imported->workload.steps},
        {"params", s.num_params},
        {"param_bytes", s.param_bytes.value()},
        {"video_tokens", video},
        {"text_tokens", text},
        {"latent_input", g.attrs().GetString("latent_input").value_or("")},
        {"forwards_per_step", 1},
        {"flops_per_forward", s.model_flops().value()},
        {"flops_per_step", s.model_flops().value()},
        {"flops_per_video", s.model_flops().value() * imported->workload.steps},
        {"forward_cost", CostJson(s.cost)},
        {"activation_peak_bytes", s.activation_peak_bytes.value()},
        {"activation_total_bytes", s.activation_total_bytes.value()},
        {"forward_ops", s.num_ops},
        {"attention_ops", attention_ops},
        {"meshes", meshes},
        {"arguments", arguments},
        {"results", results},
        {"pinned", p.pinned.size()},
        {"warnings", p.warnings},
        {"notes", p.notes},
        {"custom_ops", custom_json},
        {"unpriced_bytes", unknown.unpriced_bytes.value()},
        {"program_bytes", unknown.program_bytes.value()},
        {"unfolded_attention", unknown.unfolded_attention},
    };
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  Flops f = s.model_flops();
  fmt::print("program          {} ({}), {} ops, {} attention\n", imported->workload.model, p.format, s.num_ops,
             attention_ops);
  for (const std::string& note : p.notes) fmt::print("                 {}\n", note);
  fmt::print("tokens           video {}, text {}\n", WithCommas(video), WithCommas(text));
  fmt::print("parameters       {} ({}), {}\n", WithCommas(s.num_params), FormatCount(s.num_params),
             FormatBytes(s.param_bytes));
  fmt::print("FLOPs / forward  {}  attention {} ({}), matmul {} ({})\n", FormatFlops(f), FormatFlops(s.cost.attention),
             Percent(s.cost.attention, f), FormatFlops(s.cost.matmul), Percent(s.cost.matmul, f));
  fmt::print("                 other (element-wise, norms, softmax) {} more\n", FormatFlops(s.cost.other));
  fmt::print("activations      peak {} live (unfused, unsharded), {} in all\n", FormatBytes(s.activation_peak_bytes),
             FormatBytes(s.activation_total_bytes));
  for (const pir::Mesh& m : g.meshes()) fmt::print("mesh             {}\n", pir::PrintMesh(m));
  fmt::print("arguments        {}\n", p.arguments.size());
  for (const frontend::ImportedArgument& a : p.arguments) {
    if (a.value < 0) continue;
    const pir::Value& v = g.value(a.value);
    fmt::print("  {:<36} {:<10} {}{}\n", v.name.empty() ? a.source_name : v.name, pir::ValueRoleName(v.role),
               v.type.ToString(),
               v.sharding ? "  " + pir::PrintSharding(*v.sharding) : "");
  }
  int custom_ops = 0;
  for (const frontend::CustomOpGroup& c : unknown.custom) custom_ops += c.count;
  fmt::print("custom ops       {}, unpriced {} of the program's {} ({:.1f}%)\n",
             custom_ops == 0 ? std::string("none") : std::to_string(custom_ops), FormatBytes(unknown.unpriced_bytes),
             FormatBytes(unknown.program_bytes), 100 * unknown.unpriced_fraction());
  for (const frontend::CustomOpGroup& c : unknown.custom) {
    fmt::print("  {:<28} {:>4} x  {}  {}, {}\n", c.target, c.count, c.pricing, FormatFlops(c.flops), FormatBytes(c.bytes));
    for (const std::string& shape : c.shapes) fmt::print("  {:<28}        {}\n", "", shape);
  }
  fmt::print("unfolded attention {}\n", unknown.unfolded_attention.empty() ? std::string("none")
                                                                              : std::to_string(unknown.unfolded_attention.size()));
  for (const std::string& where : unknown.unfolded_attention) fmt::print("  softmax {}\n", where);
  if (!p.warnings.empty()) fmt::print("warnings         {} (on stderr)\n", p.warnings.size());
  return 0;
}

}  // namespace az::cli
