// aoizora: the command-line front of the planner. Thin by design: each
// subcommand registers itself (tools/aoizora/cli.h) and calls the library.
#include "tools/aoizora/cli.h"

int main(int argc, char** argv) {
  CLI::App app{"AoiZora: an auto-parallelization planner for video diffusion transformers"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "aoizora 0.1.0");
  az::cli::CommandContext ctx;
  az::cli::RegisterPlan(app, ctx);
  az::cli::RegisterModels(app, ctx);
  az::cli::RegisterInspect(app, ctx);
  az::cli::RegisterCompile(app, ctx);
  az::cli::RegisterTopo(app, ctx);
  az::cli::RegisterCollective(app, ctx);
  az::cli::RegisterCalibrate(app, ctx);
  az::cli::RegisterPrice(app, ctx);
  az::cli::RegisterPlace(app, ctx);
  az::cli::RegisterBench(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return ctx.exit_code;
}
