// `aoizora plan`: the main job. A model and a slice in; the best mesh,
// sharding and placement out, with the expert and Alpa baselines priced the
// same way (search/planner.h), as a summary, JSON, or a folder of files
// (emit/output.h).
#include <fmt/core.h>

#include <chrono>

#include <fstream>

#include "emit/candidates_json.h"
#include "emit/output.h"
#include "emit/plan_json.h"
#include "emit/report.h"
#include "price/calibration.h"
#include "price/stack.h"
#include "search/planner.h"
#include "tools/aoizora/cli.h"

namespace az::cli {

namespace {

struct PlanArgs : ModelFlags {
  std::string topology;
  std::string templ;
  std::string placement = "search";
  std::string calibration;
  std::string stack;
  std::string out;
  bool json = false;
  int threads = 2;
  uint64_t seed = 1;
  int top_k = 6;
  double survivor_margin = 0.10;
  int max_prefetch = 4;
  bool no_alpa = false;
  bool quiet = false;
  std::string compiler = "builtin";
  std::string hlo_dir;
  std::string emit_candidates;
  bool train = false;
  bool no_stages = false;
  int64_t micro_batch = 0;
  std::string remat;
  std::string target = "any";
};

int RunPlan(const PlanArgs& args) {
  auto config = ResolveModelFlags(args);
  if (!config.ok()) return Fail(config.status());
  auto topology = LoadTopology(args.topology);
  if (!topology.ok()) return Fail(topology.status());
  if (!args.emit_candidates.empty() && args.train) {
    return Fail(InvalidArgument("--emit-candidates writes inference candidates for the JAX loop; drop --train"));
  }
  if (!args.emit_candidates.empty()) {
    auto text = emit::CandidatesJson(*config, *topology, args.templ);
    if (!text.ok()) return Fail(text.status());
    std::ofstream out(args.emit_candidates);
    out << *text;
    if (!out) return Fail(InvalidArgument("cannot write '" + args.emit_candidates + "'"));
    fmt::print("candidates written to {}\n", args.emit_candidates);
    return 0;
  }
  if ((args.compiler == "xla") != !args.hlo_dir.empty()) {
    return Fail(InvalidArgument("--compiler xla and --hlo-dir DIR go together (the dumps of XLA's programs)"));
  }
  search::PlanOptions options;
  if (args.train) {
    search::TrainPlanOptions train;
    train.micro_batch = args.micro_batch;
    if (!args.remat.empty()) {
      auto remat = pir::ParseRematPolicy(args.remat);
      if (!remat.ok()) return Fail(InvalidArgument("--remat: " + remat.status().message()));
      train.remat = *remat;
    }
    options.train = train;
  } else if (args.micro_batch != 0 || !args.remat.empty()) {
    return Fail(InvalidArgument("--micro-batch and --remat describe a training step: add --train"));
  }
  options.hlo_dir = args.hlo_dir;
  options.stages = !args.no_stages;
  options.pinned = args.templ;
  options.search_placement = args.placement == "search";
  options.threads = args.threads;
  options.seed = args.seed;
  options.top_k = args.top_k;
  options.survivor_margin = args.survivor_margin;
  options.max_prefetch = args.max_prefetch;
  options.alpa = !args.no_alpa;
  auto target = search::ParseTarget(args.target);
  if (!target.ok()) return Fail(InvalidArgument("--target: " + target.status().message()));
  options.target = *target;
  auto calibration = LoadPriceCalibration(args.calibration, *topology);
  if (!calibration.ok()) return Fail(calibration.status());
  options.calibration = *calibration;
  if (!args.stack.empty()) {
    auto stack = price::ParseSoftwareStack(args.stack, "--stack");
    if (!stack.ok()) return Fail(stack.status());
    options.stack = *stack;
  }
  const auto start = std::chrono::steady_clock::now();
  if (!args.quiet) {
    options.progress = [start](const std::string& line) {
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print(stderr, "[{:6.2f} s] {}\n", t, line);
    };
  }
  auto plan = search::MakePlan(*config, *topology, options);
  if (!plan.ok()) return Fail(plan.status());
  if (!args.out.empty()) {
    Status written = emit::WritePlanFiles(*plan, *topology, args.out);
    if (!written.ok()) return Fail(written);
  }
  if (args.json) {
    fmt::print("{}", emit::PlanJson(*plan));
    return 0;
  }
  fmt::print("{}", emit::PlanSummary(*plan));
  if (!args.out.empty()) fmt::print("files in {}/\n", args.out);
  return 0;
}

}  // namespace

void RegisterPlan(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Plan a model on a slice: best mesh, sharding and placement, against the expert and Alpa baselines");
  AddModelFlags(cmd, args.get());
  cmd->add_option("--topology,-t", args->topology, "A named system (v5e:2x4, h100:8, ...) or a topology JSON file")
      ->required();
  cmd->add_option("--template,-T", args->templ,
                  "Pin the sharding, in xDiT's vocabulary: ulysses=2,ring=2,cfg=2 | ulysses=8,fsdp=8 | tp=4,cfg=2 "
                  "| pipefusion=2,ulysses=4 (degrees multiply to the chip count; fsdp=F shards the weights over F "
                  "devices; pipefusion=P is xDiT's patch pipeline of P stages; ulysses_chunks=C runs Ulysses attention "
                  "in C head chunks, MaxDiffusion's ulysses_attention_chunks; docs/pricing.md)");
  cmd->add_option("--placement", args->placement, "search (default) or default (JAX's / the rank order)")
      ->check(CLI::IsMember({"search", "default"}));
  cmd->add_option("--calibration,-c", args->calibration, "Calibration JSON (network keys and a \"compute\" object)");
  cmd->add_option("--stack", args->stack,
                  "The software stack to price with: the attention library (" + price::StackLibraryNames() +
                      "), optionally +eager or +compiled; default: the model's deployed library on these chips "
                      "(docs/compute-model.md, Software stacks)");
  cmd->add_option("--target", args->target,
                  "The runtime the plan is for: any (default: every configuration the built-in compiler prices), "
                  "jax (no ring: XLA all-gathers a sequence-sharded K and V), maxdiffusion (its Wan configs on TPUs), "
                  "xdit (the model's deployed code on GPUs); docs/guide.md, Targets")
      ->check(CLI::IsMember({"any", "jax", "maxdiffusion", "xdit"}));
  cmd->add_option("--out,-o", args->out,
                  "Write plan.json, report.md, plan_jax.py, plan_torch.py (GPUs) or maxdiffusion.yml (TPUs), placement.svg, compare.svg, "
                  "step.trace.json");
  cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
  cmd->add_option("--threads", args->threads, "Worker threads")->check(CLI::Range(1, 256));
  cmd->add_option("--seed", args->seed, "Seed of the placement search");
  cmd->add_option("--top-k", args->top_k,
                  "At most this many stage-1 survivors compiled in full (those within --survivor-margin of the best)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--survivor-margin", args->survivor_margin,
                  "Stage-1 survivors: every configuration within this fraction of the best score (default 0.10; "
                  "large: exactly the top K)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--max-prefetch", args->max_prefetch,
                  "The deepest FSDP prefetch the survivors try (1 to 4; 1: the runtimes' default everywhere; "
                  "docs/pricing.md)")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  cmd->add_flag("--no-alpa", args->no_alpa, "Skip the Alpa baseline");
  cmd->add_option("--compiler", args->compiler,
                  "builtin (AoiZora's SPMD compiler) or xla (price XLA's compiled programs from --hlo-dir)")
      ->check(CLI::IsMember({"builtin", "xla"}));
  cmd->add_option("--hlo-dir", args->hlo_dir,
                  "With --compiler xla: a folder of HLO dumps named <candidate id>.hlo (docs/jax-loop.md)");
  cmd->add_option("--emit-candidates", args->emit_candidates,
                  "Write every candidate (id, mesh, PartitionSpecs) as JSON for the JAX loop, and stop");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress lines on stderr");
  cmd->add_flag("--no-stages", args->no_stages,
                "Price the denoising steps only: no encoders or VAE in video_latency_s (search/stages.h)");
  cmd->add_flag("--train", args->train,
                "Plan a training step (forward, backward, AdamW) instead of a denoising step; --width/--height/"
                "--frames set the training clips");
  cmd->add_option("--micro-batch", args->micro_batch,
                  "With --train: samples per training step (default: one per chip)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  cmd->add_option("--remat", args->remat,
                  "With --train: pin the per-block rematerialization (none, selected, offload, full); default: the cheapest "
                  "that fits, per candidate");
  cmd->callback([args, &ctx] {
    if (args->model.empty() && !HasProgram(*args)) {
      fmt::print(stderr, "aoizora plan: give --model M, --stablehlo FILE or --onnx FILE (see --help)\n");
      ctx.exit_code = 2;
      return;
    }
    ctx.exit_code = RunPlan(*args);
  });
}

}  // namespace az::cli
