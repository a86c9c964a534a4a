// MakePlan (planner.h): sources -> prune -> evaluate -> pick. The sources
// (sources.h), pruning (prune.h), the evaluator (evaluate.h) and the
// description of a pick (describe.h) live in their own files; this one
// validates the request, builds the grid, runs the pipeline and fills in the
// plan's totals.
#include "search/planner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>

#include "compile/xla/xla_compiler.h"
#include "pir/rules/cost.h"
#include "search/accumulate.h"
#include "search/describe.h"
#include "search/hybrid.h"
#include "search/pipefusion.h"
#include "search/prefetch.h"
#include "search/program_source.h"
#include "search/prune.h"
#include "search/sources.h"
#include "support/parallel.h"

namespace az::search {

const Configuration* Plan::Find(std::string_view label) const {
  for (const Baseline& b : baselines) {
    if (b.label == label && b.configuration) return &*b.configuration;
  }
  return nullptr;
}

std::string Plan::NoteOf(std::string_view label) const {
  for (const Baseline& b : baselines) {
    if (b.label == label) return b.note;
  }
  return "";
}

namespace {

using Clock = std::chrono::steady_clock;

void Say(const SearchContext& ctx, const std::string& line) {
  if (ctx.options.progress) ctx.options.progress(line);
}

// The request checked and adjusted (a training step's batch and CFG, the
// software stack in the calibration), and the grid of combinations: the
// pinned one, or every one the workload admits on these chips.
StatusOr<SearchContext> Prepare(const workload::Workload& model_config, const hw::Topology& topology,
                                const PlanOptions& plan_options, StackChoice& stack) {
  SearchContext ctx;
  ctx.topology = &topology;
  ctx.options = plan_options;
  ctx.config = model_config;
  PlanOptions& options = ctx.options;
  workload::Workload& config = ctx.config;
  const int64_t chips = topology.num_chips();
  if (options.train) {
    if (config.imported()) {
      return InvalidArgument("'" + config.model + "' is an imported program: training steps are built for zoo models");
    }
    if (!options.hlo_dir.empty()) {
      return InvalidArgument("--compiler xla prices inference candidates; a training plan uses the built-in compiler");
    }
    if (options.train->micro_batch == 0) options.train->micro_batch = chips;
    // The step's own batch and no CFG (workload.h: TrainOptions); a model with
    // several denoising experts trains one of them per run.
    config.batch = options.train->micro_batch;
    config.cfg = workload::CfgMode::kNone;
    config.noise_experts = 1;
  }
  for (const hw::Node& node : topology.nodes) {
    if (node.kind == hw::NodeKind::kChip && node.failed) {
      return InvalidArgument("topology '" + topology.name +
                             "' has a failed chip; the planner needs every chip (plan on the smaller slice)");
    }
  }
  // The stack scales the attention efficiency of every configuration and
  // baseline alike (not the other stages: below); the chip's reference
  // library leaves it untouched.
  AZ_ASSIGN_OR_RETURN(stack, ChooseStack(config, topology.chip, options.train.has_value(), options.stack));
  AZ_RETURN_IF_ERROR(price::ApplySoftwareStack(topology.chip, stack.stack, &options.calibration.compute));
  // A chip the compute model cannot price fails here, before any work.
  AZ_RETURN_IF_ERROR(price::ComputeModel::Create(topology.chip, options.calibration.compute).status());
  AZ_RETURN_IF_ERROR(TargetRuns(options.target, config, topology.chip.family == hw::ChipFamily::kTpu));
  options.target = ResolveTarget(options.target, topology.chip.family == hw::ChipFamily::kTpu);
  AZ_ASSIGN_OR_RETURN(int64_t heads, AttentionHeads(config));
  ctx.heads = heads;

  std::vector<Combo>& combos = ctx.combos;
  if (!options.pinned.empty()) {
    AZ_ASSIGN_OR_RETURN(Combo pinned, ParseCombo(options.pinned, chips));
    if (pinned.remat && !options.train) {
      return InvalidArgument("--template '" + options.pinned + "': remat applies to training steps (--train)");
    }
    if (pinned.accumulate > 1 && !options.train) {
      return InvalidArgument("--template '" + options.pinned +
                             "': accumulate sums a training step's gradients over micro-steps (--train)");
    }
    if (Status chunks = CheckUlyssesChunks(pinned, heads); !chunks.ok()) {
      return InvalidArgument("--template '" + options.pinned + "': " + chunks.message());
    }
    if (options.train && pinned.ulysses_chunks > 1) {
      return InvalidArgument("--template '" + options.pinned +
                             "': ulysses_chunks is for inference; a training step's attention backward is not "
                             "chunked");
    }
    if (options.train) {
      if (pinned.cfg > 1) {
        return InvalidArgument("--template '" + options.pinned + "': a training step runs one forward, no CFG");
      }
      if (options.train->micro_batch % pinned.accumulate != 0) {
        return InvalidArgument("--template '" + options.pinned + "': accumulate=" +
                               std::to_string(pinned.accumulate) + " does not divide the micro-batch of " +
                               std::to_string(options.train->micro_batch) + " samples");
      }
      // Each micro-step's batch is what the data-parallel axis splits.
      const int64_t micro_step = options.train->micro_batch / pinned.accumulate;
      if (micro_step % pinned.dp != 0) {
        return InvalidArgument("--template '" + options.pinned + "': dp=" + std::to_string(pinned.dp) +
                               " does not divide the micro-batch of " + std::to_string(options.train->micro_batch) +
                               " samples" +
                               (pinned.accumulate > 1 ? " / accumulate " + std::to_string(pinned.accumulate) + " = " +
                                                            std::to_string(micro_step) + " per micro-step"
                                                      : std::string()));
      }
      if (!pinned.remat) pinned.remat = options.train->remat;
    }
    if (Status pipeline = CheckPipeFusion(config, pinned, options.train.has_value()); !pipeline.ok()) {
      return InvalidArgument("--template '" + options.pinned + "': " + pipeline.message());
    }
    if (Status admitted = TargetAdmits(options.target, config, pinned); !admitted.ok()) {
      return InvalidArgument("--template '" + options.pinned + "' under --target " +
                             std::string(TargetName(options.target)) + ": " + admitted.message());
    }
    // The shared ranking prices depth 1 (the baselines' runtimes' default);
    // the grid prices the pinned depth (prefetch.h).
    if (PinsPrefetch(options.pinned)) ctx.pinned_prefetch = pinned.prefetch;
    pinned.prefetch = 1;
    combos.push_back(pinned);
  } else if (options.train) {
    combos = EnumerateTrainCombos(chips, heads, options.train->micro_batch);
    for (Combo& c : combos) c.remat = options.train->remat;
    if (combos.empty()) {
      return InvalidArgument("no parallel configuration of a " + config.model + " training step fits " +
                             std::to_string(chips) + " chips (the head count " + std::to_string(heads) +
                             " and the micro-batch " + std::to_string(options.train->micro_batch) + " constrain them)");
    }
  } else {
    // A program with no attention: candidates from the program itself
    // (program_source.h), not the DiT grid.
    ctx.program_search = heads == 0 && config.imported() && options.hlo_dir.empty();
    combos = ctx.program_search ? std::vector<Combo>{} : EnumerateCombos(config, chips, heads);
    if (!ctx.program_search && options.hlo_dir.empty()) {
      // Per-part hybrids (hybrid.h); XLA's dumps are of whole-model templates.
      AZ_ASSIGN_OR_RETURN(std::vector<Combo> hybrids, HybridCombosFor(config, combos, heads));
      combos.insert(combos.end(), hybrids.begin(), hybrids.end());
    }
    if (combos.empty() && heads == 0 && !ctx.program_search) {
      return InvalidArgument("no parallel configuration of " + config.model + " fits " + std::to_string(chips) +
                             " chips: the program has no attention, so only its batch (" +
                             std::to_string(config.batch) + ") can be split, and " + std::to_string(chips) +
                             " does not divide it (compile it with --template annotated to price its own shardings)");
    }
    if (combos.empty() && !ctx.program_search) {
      return InvalidArgument("no parallel configuration of " + config.model + " fits " + std::to_string(chips) +
                             " chips (the head count " + std::to_string(heads) + " and the batch constrain them)");
    }
  }
  if (options.pinned.empty() && options.target != Target::kAny && !ctx.program_search) {
    const size_t before = combos.size();
    Status why = Status::Ok();
    std::erase_if(combos, [&](const Combo& c) {
      Status admitted = TargetAdmits(options.target, config, c);
      if (!admitted.ok() && why.ok()) why = admitted;
      return !admitted.ok();
    });
    if (combos.empty()) {
      return InvalidArgument("--target " + std::string(TargetName(options.target)) + " runs none of the " +
                             std::to_string(before) + " configurations of " + config.model + " on " +
                             std::to_string(chips) + " chips (e.g. " + why.message() + ")");
    }
  }
  ctx.evaluate.calibration = options.calibration;
  ctx.evaluate.hlo_dir = options.hlo_dir;
  return ctx;
}

// The plan's inputs: the request, the chips, the stack.
Plan Header(const SearchContext& ctx, const StackChoice& stack) {
  const workload::Workload& config = ctx.config;
  const PlanOptions& options = ctx.options;
  const hw::Topology& topology = *ctx.topology;
  Plan plan;
  plan.model = config.model;
  if (config.program) plan.program_format = config.program->attrs().GetString("format").value_or("imported");
  plan.width = config.width;
  plan.height = config.height;
  plan.frames = config.frames;
  plan.steps = config.steps;
  plan.batch = config.batch;
  if (config.noise_experts > 1) plan.noise_switch_step = config.noise_switch_step;
  plan.cfg_mode = std::string(workload::CfgModeName(config.cfg));
  plan.train = options.train.has_value();
  plan.topology = topology.name;
  plan.chip = topology.chip.name;
  plan.tpu = topology.chip.family == hw::ChipFamily::kTpu;
  plan.hbm = topology.chip.hbm;
  plan.seed = options.seed;
  plan.target = std::string(TargetName(options.target));
  plan.stack = price::StackName(stack.stack);
  plan.stack_reason = stack.reason;
  plan.attention_efficiency = options.calibration.compute.attention_efficiency;
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    const hw::Node& node = topology.nodes[static_cast<size_t>(chip)];
    plan.chips.push_back({chip, node.name, node.coords});
  }
  plan.candidates_considered = static_cast<int>(ctx.combos.size());
  std::vector<std::string> meshes;
  for (const Combo& c : ctx.combos) meshes.push_back(c.MeshText());
  std::sort(meshes.begin(), meshes.end());
  plan.meshes_considered = static_cast<int>(std::unique(meshes.begin(), meshes.end()) - meshes.begin());
  return plan;
}

// With XLA's programs (--compiler xla), no pruning: every combination XLA
// compiled is a candidate.
Status FindDumps(SearchContext& ctx) {
  ctx.pruned = false;
  const compile::XlaDumpCompiler xla(ctx.options.hlo_dir);
  for (size_t i = 0; i < ctx.combos.size(); ++i) {
    if (std::filesystem::is_regular_file(xla.DumpPath(ctx.combos[i].Id()))) ctx.feasible.push_back(static_cast<int>(i));
  }
  if (ctx.feasible.empty()) {
    return NotFound("no candidate's HLO dump in '" + ctx.options.hlo_dir + "' (looked for <id>.hlo among " +
                    std::to_string(ctx.combos.size()) + " candidates, e.g. " + ctx.combos.front().Id() +
                    ".hlo): write the candidates with `aoizora plan --emit-candidates FILE` and compile them with "
                    "python/aoizora_jax/compile_candidates.py (docs/jax-loop.md)");
  }
  Say(ctx, "xla: " + std::to_string(ctx.feasible.size()) + " of " + std::to_string(ctx.combos.size()) +
               " candidates have an HLO dump in " + ctx.options.hlo_dir);
  return Status::Ok();
}

// The all-to-all time a ranked evaluation leaves exposed per step, under its
// best placement (0 without an all-to-all): the most its Ulysses head-chunk
// variants can save, since chunking changes only the all-to-alls and the
// kernels' split (their FLOPs sum to the whole kernel's).
double ExposedAllToAll(const SearchContext& ctx, const Evaluated& e) {
  const auto& collectives = e.compiled.evidence.collectives;
  const bool any = std::any_of(collectives.begin(), collectives.end(), [](const evidence::CollectiveRecord& c) {
    return c.kind == cir::CollectiveKind::kAllToAll;
  });
  if (!any) return 0;
  StatusOr<price::SimResult> result =
      Breakdown(e.compiled, *ctx.topology, ctx.options.calibration, e.best_placement, /*timeline=*/false);
  if (!result.ok()) return 0;
  double exposed = 0;
  for (const price::ClassCost& c : result->classes) {
    if (c.kind == "all-to-all") exposed += c.exposed.value();
  }
  // Per invocation -> per step, in proportion (the step runs the invocation `forwards` times).
  return result->latency.value() > 0 ? exposed / result->latency.value() * e.best_latency : 0;
}

// A combination compiled and priced in full under `policy`; a candidate that
// does not build keeps its combination beside the error.
Evaluated EvaluateCombo(const SearchContext& ctx, const Combo& combo, const PlacementPolicy& policy) {
  StatusOr<Candidate> candidate = ComboCandidate(ctx.config, combo, 0, ctx.options, ctx.programs.get());
  if (!candidate.ok()) {
    Evaluated e;
    e.status = candidate.status();
    e.compiled.candidate.strategy.combo = combo;
    return e;
  }
  return Evaluate(*candidate, *ctx.topology, ctx.evaluate, policy);
}

// The grid's Ulysses head-chunk variants (combos.h: UlyssesChunkVariants),
// priced only where they can change the pick: for each ranked combination
// whose exposed all-to-all time, taken away whole, would bring it below the
// fastest ranked configuration the target runs (so never for one that
// cannot win even with its all-to-alls hidden). Enumerating them in the grid
// would compile every Ulysses combination two or three times over.
// Appended to the grid (ctx.combos), the survivors and the ranked list,
// each priced under its survivor's searched placement (chunks split the same
// collectives over the same groups, so they move nothing between devices;
// a variant that wins gets the pick's longer search like any other); only
// the plan's own pick can take them
// (the expert and deployed baselines never run chunks: combos.h
// ExpertDegrees), and only under a target that admits them. Not for
// training steps or XLA's programs (a dump is of an unchunked template).
void RankUlyssesChunks(SearchContext& ctx, const PlacementPolicy& quick) {
  if (ctx.options.train || !ctx.pruned || !ctx.options.pinned.empty()) return;
  const double fastest = FastestRanked(ctx);
  std::vector<Combo> variants;
  std::vector<net::Placement> placements;  // each variant's survivor's
  for (size_t k = 0; k < ctx.ranked.size(); ++k) {
    const Evaluated& e = ctx.ranked[k];
    if (!e.status.ok() || !e.fits) continue;
    const Combo& combo = ctx.combos[static_cast<size_t>(ctx.survivors[k])];
    if (combo.ulysses <= 1 || combo.pipefusion > 1) continue;
    const double exposed = ExposedAllToAll(ctx, e);
    if (exposed <= 0 || e.best_latency - exposed >= fastest) continue;
    for (const Combo& c : UlyssesChunkVariants(combo, ctx.heads)) {
      if (!TargetAdmits(ctx.options.target, ctx.config, c).ok()) continue;
      if (std::find(ctx.combos.begin(), ctx.combos.end(), c) != ctx.combos.end()) continue;
      variants.push_back(c);
      placements.push_back(e.best_placement);
    }
  }
  if (variants.empty()) return;
  Say(ctx, "rank: compiling " + std::to_string(variants.size()) +
               " Ulysses head-chunk variants, at their survivor's placement, of survivors whose exposed all-to-alls "
               "could make them the fastest");
  const size_t first = ctx.ranked.size();
  for (const Combo& c : variants) {
    ctx.survivors.push_back(static_cast<int>(ctx.combos.size()));
    ctx.combos.push_back(c);
  }
  ctx.ranked.resize(first + variants.size());
  ParallelFor(static_cast<int>(variants.size()), ctx.options.threads, [&](int k) {
    // Under --placement default the survivors' placement is the default one,
    // which `quick` prices (and names) already.
    const PlacementPolicy given{PlacementKind::kGiven, placements[static_cast<size_t>(k)], {}};
    ctx.ranked[first + static_cast<size_t>(k)] =
        EvaluateCombo(ctx, variants[static_cast<size_t>(k)], ctx.options.search_placement ? given : quick);
  });
}

// Every source's proposals, in order, each once; evaluated in full with a
// short placement search each (the grid's pick gets a longer one).
void Rank(SearchContext& ctx, const Source& grid, const std::vector<std::unique_ptr<Source>>& baselines) {
  ctx.survivors = grid.Propose(ctx);
  const size_t grid_survivors = ctx.survivors.size();
  int from_baselines = 0;
  for (const auto& source : baselines) {
    for (int i : source->Propose(ctx)) {
      ++from_baselines;
      if (std::find(ctx.survivors.begin(), ctx.survivors.end(), i) == ctx.survivors.end()) ctx.survivors.push_back(i);
    }
  }
  Say(ctx, "rank: compiling and placing " + std::to_string(ctx.survivors.size()) + " survivors (" +
               std::to_string(from_baselines) + " proposed by a baseline)");
  PlacementPolicy quick{ctx.options.search_placement ? PlacementKind::kSearch : PlacementKind::kDefault, {}, {}};
  quick.search.seed = ctx.options.seed;
  quick.search.restarts = 1;
  quick.search.moves = 4000;
  quick.search.max_structured = kQuickStructured;
  ctx.ranked.assign(ctx.survivors.size(), Evaluated());
  ParallelFor(static_cast<int>(ctx.survivors.size()), ctx.options.threads, [&](int k) {
    const Combo& combo = ctx.combos[static_cast<size_t>(ctx.survivors[static_cast<size_t>(k)])];
    ctx.ranked[static_cast<size_t>(k)] = EvaluateCombo(ctx, combo, quick);
  });
  const size_t before_variants = ctx.ranked.size();
  RankUlyssesChunks(ctx, quick);
  for (const Evaluated& e : ctx.ranked) {
    if (!e.compiled.warning.empty()) Say(ctx, "warning: " + e.compiled.warning);
  }
  // The grid's own survivors and its chunk variants choose their FSDP
  // prefetch depth; the baselines' proposals keep depth 1 (prefetch.h).
  std::vector<size_t> grid_ranked;
  for (size_t k = 0; k < grid_survivors; ++k) grid_ranked.push_back(k);
  for (size_t k = before_variants; k < ctx.ranked.size(); ++k) grid_ranked.push_back(k);
  // A training step's survivors with remat try gradient accumulation
  // (accumulate.h); a variant that joins the ranked list climbs the
  // prefetch depths like its survivor.
  RankAccumulation(ctx, quick, grid_ranked);
  ChoosePrefetch(ctx, grid_ranked);
}

// Whether the plan's target runs a pick as it was priced.
bool Admitted(const SearchContext& ctx, const Pick& pick) {
  if (!pick.sharding.empty()) return TargetAdmitsSeeds(ctx.options.target);
  return TargetAdmits(ctx.options.target, ctx.config, pick.evaluated->compiled.candidate.strategy.combo).ok();
}

double Latency(const Pick& pick) {
  return pick.searched_placement ? pick.evaluated->best_latency : pick.evaluated->default_latency;
}

// The totals: a training step's throughput, or (inference) the pipeline's
// other stages and the video's latency end to end; the roofline.
Status Finish(Plan& plan, const SearchContext& ctx, const PlanOptions& plan_options) {
  const workload::Workload& config = ctx.config;
  const hw::Topology& topology = *ctx.topology;
  if (ctx.options.train) {
    const double step = plan.best.step_latency.value();
    plan.samples_per_second = step > 0 ? static_cast<double>(ctx.options.train->micro_batch) / step : 0;
    plan.roofline_bound = Seconds(TrainRooflineBound(config, topology, *ctx.options.train));
  } else {
    if (ctx.options.stages && !config.imported()) {
      Say(ctx, "stages: planning the encoders and the VAE with the DiT's weights resident");
      StagePlanOptions stage_options;
      // The stack is the DiT's attention library; the other stages keep the
      // chip's reference calibration: their attention is not the DiT's call
      // (Wan's VAE calls torch SDPA, umT5 its own einsum attention).
      stage_options.calibration = plan_options.calibration;
      // Between denoising runs the DiT's activations are freed; its weights
      // stay (and may be evicted to the host as a priced last resort).
      stage_options.resident_bytes_per_chip = plan.best.parameter_memory.value();
      stage_options.dit_parameter_bytes_per_chip = plan.best.parameter_memory.value();
      stage_options.threads = ctx.options.threads;
      stage_options.seed = ctx.options.seed;
      stage_options.progress = ctx.options.progress;
      AZ_ASSIGN_OR_RETURN(plan.stages, PlanStages(config, topology, stage_options));
      for (const StagePlan& stage : plan.stages) plan.stages_latency += stage.latency;
    }
    plan.video_latency = plan.stages_latency + plan.best.step_latency * static_cast<double>(config.steps);
    plan.roofline_bound = Seconds(RooflineBound(config, topology));
  }
  plan.efficiency = plan.best.step_latency.value() > 0 ? plan.roofline_bound / plan.best.step_latency : 0;
  return Status::Ok();
}

}  // namespace

int64_t LongerSearchMoves(int chips) {
  if (chips <= 64) return std::clamp<int64_t>(int64_t{1000} * chips, 8000, 16000);
  return std::max<int64_t>(4000, int64_t{16000} * 64 / chips);
}

StatusOr<Plan> MakePlan(const workload::Workload& model_config, const hw::Topology& topology,
                        const PlanOptions& plan_options) {
  const Clock::time_point start = Clock::now();
  StackChoice stack;
  AZ_ASSIGN_OR_RETURN(SearchContext ctx, Prepare(model_config, topology, plan_options, stack));
  const std::unique_ptr<Source> grid = ctx.program_search ? ProgramSource() : GridSource();
  const std::vector<std::unique_ptr<Source>> baselines = BaselineSources();
  if (!ctx.program_search && ctx.options.hlo_dir.empty()) {
    for (const std::unique_ptr<Source>& source : baselines) {
      for (const Combo& c : source->Contribute(ctx)) {
        if (std::find(ctx.combos.begin(), ctx.combos.end(), c) == ctx.combos.end()) ctx.combos.push_back(c);
      }
    }
  }
  Plan plan = Header(ctx, stack);

  // Prune the grid (with XLA's programs: keep those it compiled), evaluate
  // what the sources propose. The program source has no grid to prune.
  if (!ctx.program_search) AZ_RETURN_IF_ERROR(ctx.options.hlo_dir.empty() ? Prune(ctx) : FindDumps(ctx));
  // A training grid's per-part hybrids join it in pruning (prune.cc).
  plan.candidates_considered = static_cast<int>(ctx.combos.size());
  Rank(ctx, *grid, baselines);
  plan.candidates_compiled = static_cast<int>(ctx.survivors.size());
  if (ctx.program_search) {
    // The program source compiles every candidate it has (program_source.h).
    AZ_ASSIGN_OR_RETURN(std::vector<ProgramCandidate> candidates, ProgramCandidates(ctx.config, topology.num_chips()));
    std::vector<std::string> meshes;
    for (const ProgramCandidate& c : candidates) meshes.push_back(c.candidate.mesh.ToString());
    std::sort(meshes.begin(), meshes.end());
    plan.meshes_considered = static_cast<int>(std::unique(meshes.begin(), meshes.end()) - meshes.begin());
    plan.candidates_considered = static_cast<int>(candidates.size());
    plan.candidates_compiled = static_cast<int>(candidates.size());
  }

  // Each source picks; the plan is the fastest pick that fits and that the
  // target runs.
  AZ_ASSIGN_OR_RETURN(Pick best, grid->Choose(ctx));
  std::vector<Pick> picks;
  for (const auto& source : baselines) {
    AZ_ASSIGN_OR_RETURN(Pick pick, source->Choose(ctx));
    picks.push_back(std::move(pick));
  }
  Say(ctx, "emitting the plan");
  const Pick* fastest = &best;
  for (const Pick& pick : picks) {
    if (pick.evaluated && pick.evaluated->fits && Admitted(ctx, pick) && Latency(pick) < Latency(*fastest)) {
      fastest = &pick;
    }
  }
  AZ_ASSIGN_OR_RETURN(plan.best, Describe(grid->label(), *fastest, ctx.config, topology, ctx.options, true));
  for (size_t i = 0; i < baselines.size(); ++i) {
    Baseline b{baselines[i]->label(), std::nullopt, picks[i].note};
    if (picks[i].evaluated) {
      AZ_ASSIGN_OR_RETURN(b.configuration, Describe(b.label, picks[i], ctx.config, topology, ctx.options, false));
    }
    plan.baselines.push_back(std::move(b));
  }
  AZ_RETURN_IF_ERROR(Finish(plan, ctx, plan_options));
  plan.plan_time = Seconds(std::chrono::duration<double>(Clock::now() - start).count());
  return plan;
}

double RooflineBound(const workload::Workload& config, const hw::Topology& topology) {
  workload::Workload c = config;
  c.depth_units = 0;
  auto graph = c.Forward();
  if (!graph.ok()) return 0;
  pir::OpCost cost = pir::ComputeGraphCost(*graph);
  double forwards = static_cast<double>(c.forwards_per_step());
  double chips = static_cast<double>(topology.num_chips());
  double flops = forwards * static_cast<double>(cost.total_flops().value());
  double weights = 0;
  for (const pir::Value& v : graph->values()) {
    if (v.role == pir::ValueRole::kParameter) weights += static_cast<double>(v.type.NumBytes());
  }
  double compute = flops / (chips * topology.chip.bf16.value());
  double memory = topology.chip.hbm_bw.value() > 0 ? forwards * weights / (chips * topology.chip.hbm_bw.value()) : 0;
  return std::max(compute, memory);
}

double TrainRooflineBound(const workload::Workload& config, const hw::Topology& topology, const TrainPlanOptions& train) {
  workload::Workload c = config;
  c.depth_units = 0;
  workload::TrainOptions options;
  options.micro_batch = train.micro_batch;
  options.adamw = train.adamw;
  auto graph = c.TrainStep(options);  // remat none: the fewest FLOPs
  if (!graph.ok()) return 0;
  pir::OpCost cost = pir::ComputeGraphCost(*graph);
  double chips = static_cast<double>(topology.num_chips());
  double weights = 0, state = 0;
  for (const pir::Value& v : graph->values()) {
    if (v.role == pir::ValueRole::kParameter) weights += static_cast<double>(v.type.NumBytes());
    if (v.role == pir::ValueRole::kOptimizerState) state += static_cast<double>(v.type.NumBytes());
  }
  // Weights read by the forward and the backward, then read and written by
  // the update; gradients (the weights' size) written and read; master
  // weights and moments read and written.
  double bytes = 4 * weights + 2 * weights + 2 * state;
  double compute = static_cast<double>(cost.total_flops().value()) / (chips * topology.chip.bf16.value());
  double memory = topology.chip.hbm_bw.value() > 0 ? bytes / (chips * topology.chip.hbm_bw.value()) : 0;
  return std::max(compute, memory);
}

}  // namespace az::search
