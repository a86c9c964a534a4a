// `aoizora compile`: a zoo model (or an imported program) under a mesh and a template, through the
// built-in SPMD compiler, to the per-device program and its evidence.
#include <fmt/core.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cir/text/printer.h"
#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "evidence/evidence.h"
#include "hw/chip.h"
#include "shard/templates.h"
#include "tools/aoizora/cli.h"

namespace az::cli {

namespace {

struct CompileArgs : ModelFlags {
  std::string mesh;
  std::string templ;
  std::string graph = "forward";
  std::string chip;
  std::string evidence_out;
  bool print_cir = false;
  bool json = false;
  bool no_fusion = false;
  bool no_async = false;
  int64_t ulysses_chunks = 1;  // MaxDiffusion's ulysses_attention_chunks
  int64_t micro_batch = 1;  // --graph train
  std::string remat = "none";
  int64_t accumulate = 1;  // --graph train: micro-steps whose gradients are summed
  int prefetch = 1;
};

StatusOr<pir::Graph> BuildGraph(const CompileArgs& args, const workload::Workload& workload) {
  if (args.graph == "step") return workload.Step();
  if (args.graph != "train") return workload.Forward();
  workload::TrainOptions train;
  train.micro_batch = args.micro_batch;
  AZ_ASSIGN_OR_RETURN(train.remat, pir::ParseRematPolicy(args.remat));
  train.accumulate = args.accumulate;
  return workload.TrainStep(train);
}

int RunCompile(const CompileArgs& args) {
  auto config = ResolveModelFlags(args);
  if (!config.ok()) return Fail(config.status());
  auto graph = BuildGraph(args, *config);
  if (!graph.ok()) return Fail(graph.status());
  auto mesh = shard::Mesh::Parse(args.mesh);
  if (!mesh.ok()) return Fail(mesh.status());
  compile::SpmdCompiler compiler;
  compile::CompileOptions options;
  options.fuse_elementwise = !args.no_fusion;
  options.async_collectives = !args.no_async;
  options.ulysses_chunks = args.ulysses_chunks;
  options.prefetch_depth = args.prefetch;
  auto program = compile::CompileTemplate(compiler, *graph, *mesh, args.templ, options);
  if (!program.ok()) return Fail(program.status());
  evidence::Evidence ev = evidence::Extract(*program, compiler.name());
  if (!args.evidence_out.empty()) {
    std::ofstream out(args.evidence_out);
    out << evidence::ToJson(ev);
    if (!out) return Fail(InvalidArgument("cannot write '" + args.evidence_out + "'"));
  }
  if (args.print_cir) {
    fmt::print("{}", cir::PrintProgram(*program));
    return 0;
  }
  cir::ProgramSummary s = cir::Summarize(*program);
  const hw::ChipSpec* chip = nullptr;
  if (!args.chip.empty()) {
    auto found = hw::FindChip(args.chip);
    if (!found.ok()) return Fail(found.status());
    chip = *found;
  }
  bool fits = chip == nullptr || s.peak_memory <= chip->hbm;
  if (args.json) {
    nlohmann::ordered_json collectives = nlohmann::ordered_json::array();
    for (const auto& [kind, count, bytes] : s.collectives) {
      collectives.push_back(
          {{"kind", std::string(cir::CollectiveKindName(kind))}, {"count", count}, {"bytes", bytes.value()}});
    }
    nlohmann::ordered_json j = {{"model", config->model},
                                {"mesh", mesh->ToString()},
                                {"template", args.templ},
                                {"devices", mesh->num_devices()},
                                {"instructions", program->instructions.size()},
                                {"kernels", s.kernels},
                                {"collectives", collectives},
                                {"flops_per_device", s.flops.value()},
                                {"bytes_per_device", (s.bytes_read + s.bytes_written).value()},
                                {"parameter_bytes_per_device", s.parameter_bytes.value()},
                                {"peak_memory_bytes", s.peak_memory.value()},
                                {"evidence_hash", ev.hash}};
    if (chip != nullptr) {
      j["chip"] = chip->name;
      j["hbm_bytes"] = chip->hbm.value();
      j["fits"] = fits;
    }
    fmt::print("{}\n", j.dump(2));
    return fits ? 0 : 1;
  }
  fmt::print("{} ({}) on mesh {} with {}: {} instructions, {} kernels\n", config->model, args.graph,
             mesh->ToString(), args.templ, program->instructions.size(), s.kernels);
  fmt::print("per device   {}, {} moved\n", FormatFlops(s.flops), FormatBytes(s.bytes_read + s.bytes_written));
  fmt::print("collectives\n");
  for (const auto& [kind, count, bytes] : s.collectives) {
    fmt::print("  {:<20} {:>6} x, {} in all\n", cir::CollectiveKindName(kind), count, FormatBytes(bytes));
  }
  fmt::print("memory       peak {} per device ({} of parameters)\n", FormatBytes(s.peak_memory),
             FormatBytes(s.parameter_bytes));
  if (chip != nullptr) {
    fmt::print("             {} {} ({} of HBM)\n", fits ? "fits on" : "DOES NOT FIT on", chip->name,
               FormatBytes(chip->hbm));
  }
  fmt::print("evidence     {}\n", ev.hash);
  if (!fits) {
    fmt::print(stderr, "aoizora: the program needs {} per device but {} has {}\n", FormatBytes(s.peak_memory),
               chip->name, FormatBytes(chip->hbm));
    return 1;
  }
  return 0;
}

}  // namespace

void RegisterCompile(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand("compile", "Compile a model under a mesh and template into the per-device program");
  AddModelFlags(cmd, args.get());
  cmd->add_option("--mesh", args->mesh, "Mesh axes, e.g. x=2,y=4")->required();
  cmd->add_option("--template,-T", args->templ,
                  "Parallelism template, e.g. ulysses=y, cfg=x,ring=y, fsdp=8, or replicated; annotated: an imported "
                  "program's own shardings (--stablehlo)")
      ->required();
  cmd->add_option("--graph", args->graph, "forward, step (a denoising step) or train (a training step)")
      ->check(CLI::IsMember({"forward", "step", "train"}))
      ->capture_default_str();
  cmd->add_option("--micro-batch", args->micro_batch, "With --graph train: samples per training step")
      ->capture_default_str();
  cmd->add_option("--remat", args->remat, "With --graph train: none, selected, offload or full (per block)")
      ->capture_default_str();
  cmd->add_option("--accumulate", args->accumulate,
                  "With --graph train: gradient accumulation over this many micro-steps (dividing --micro-batch)")
      ->capture_default_str();
  cmd->add_option("--chip", args->chip, "Check the peak memory against this chip's HBM (v5e, h100, ...)");
  cmd->add_option("--evidence", args->evidence_out, "Write the evidence JSON here");
  cmd->add_flag("--print-cir", args->print_cir, "Print the compiled program as CIR text");
  cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
  cmd->add_flag("--no-fusion", args->no_fusion, "Keep every element-wise op its own kernel");
  cmd->add_flag("--no-async", args->no_async, "Keep collectives blocking");
  cmd->add_option("--ulysses-chunks", args->ulysses_chunks,
                  "Lower each Ulysses attention in this many head chunks (MaxDiffusion's ulysses_attention_chunks)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}))
      ->capture_default_str();
  cmd->add_option("--prefetch", args->prefetch,
                  "FSDP prefetch depth: the weight gathers of the next N-1 layers start with the current layer's")
      ->check(CLI::Range(1, compile::kMaxPrefetchDepth))
      ->capture_default_str();
  cmd->callback([args, &ctx] {
    if (args->model.empty() && !HasProgram(*args)) {
      fmt::print(stderr, "aoizora compile: give --model M, --stablehlo FILE or --onnx FILE (see --help)\n");
      ctx.exit_code = 2;
      return;
    }
    ctx.exit_code = RunCompile(*args);
  });
}

}  // namespace az::cli
