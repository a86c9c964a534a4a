// aoizora: the command-line front of the planner. Thin by design: it parses
// flags and calls the library (tools/aoizora/commands.cc).
#include <CLI/CLI.hpp>

#include "tools/aoizora/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"AoiZora: an auto-parallelization planner for video diffusion transformers"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "aoizora 0.1.0");

  az::cli::ModelsArgs models_args;
  CLI::App* models = app.add_subcommand("models", "List the model zoo with parameter counts");
  models->add_flag("--json", models_args.json, "Machine-readable output on stdout");

  az::cli::InspectArgs inspect_args;
  CLI::App* inspect = app.add_subcommand("inspect", "Tokens, parameters, FLOPs and memory of a model or a PIR file");
  auto* model_opt = inspect->add_option("--model,-m", inspect_args.model, "Zoo model (see `aoizora models`)");
  auto* pir_opt = inspect->add_option("--pir", inspect_args.pir_file, "A PIR text file to parse, verify and inspect");
  model_opt->excludes(pir_opt);
  inspect->add_option("--width", inspect_args.width, "Video width in pixels (multiple of 16)");
  inspect->add_option("--height", inspect_args.height, "Video height in pixels (multiple of 16)");
  inspect->add_option("--frames", inspect_args.frames, "Frames (4n+1)");
  inspect->add_option("--steps", inspect_args.steps, "Denoising steps");
  inspect->add_option("--batch", inspect_args.batch, "Videos per step")->capture_default_str();
  inspect->add_option("--cfg", inspect_args.cfg, "CFG mode: two-pass, batch2 or none (default: the model's)");
  inspect->add_option("--dtype", inspect_args.dtype, "bf16, f16 or f32")->capture_default_str();
  inspect->add_flag("--json", inspect_args.json, "Machine-readable output on stdout");
  inspect->add_flag("--print-pir", inspect_args.print_pir, "Print the graph as PIR text");
  inspect->add_option("--graph", inspect_args.graph, "Graph for --print-pir: forward or step")
      ->check(CLI::IsMember({"forward", "step"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (models->parsed()) return az::cli::RunModels(models_args);
  if (inspect_args.model.empty() && inspect_args.pir_file.empty()) {
    std::fprintf(stderr, "aoizora inspect: give --model M or --pir FILE (see --help)\n");
    return 2;
  }
  return az::cli::RunInspect(inspect_args);
}
