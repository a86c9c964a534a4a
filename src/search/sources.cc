// The grid and expert sources (sources.h); alpa and annotated are in
// baseline_sources.cc.
#include "search/sources.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "search/pipefusion.h"
#include "search/prefetch.h"
#include "search/prune.h"
#include "search/targets.h"

namespace az::search {

StatusOr<pir::Graph> BuildProgram(const workload::Workload& config, const Combo& combo, const PlanOptions& options) {
  if (!options.train) return config.Forward();
  workload::TrainOptions train;
  train.micro_batch = options.train->micro_batch;
  train.remat = combo.remat.value_or(pir::RematPolicy::kNone);
  train.adamw = options.train->adamw;
  train.accumulate = combo.accumulate;
  return config.TrainStep(train);
}

StepShape StepOf(const workload::Workload& config) {
  return {config.forwards_per_step(), std::max<int64_t>(1, config.noise_experts), config.steps, {}};
}

StatusOr<std::shared_ptr<const pir::Graph>> ProgramCache::Get(const workload::Workload& run, const Combo& combo,
                                                              const PlanOptions& options) {
  // Everything BuildProgram reads: the workload's plain fields, its
  // builder and imported program, and a training step's options.
  std::ostringstream key;
  key.precision(17);
  key << run.model << '|' << run.width << 'x' << run.height << 'x' << run.frames << '|' << run.steps << '|'
      << run.batch << '|' << static_cast<int>(run.cfg) << '|' << static_cast<int>(run.dtype) << '|'
      << run.noise_experts << '|' << run.noise_switch_step << '|' << run.depth_units << '|' << run.pipeline_patches
      << '|'
      << static_cast<const void*>(run.program.get()) << '|' << static_cast<const void*>(run.builder.get());
  if (options.train) {
    const pir::AdamWOptions& a = options.train->adamw;
    key << "|train " << options.train->micro_batch << ' '
        << static_cast<int>(combo.remat.value_or(pir::RematPolicy::kNone)) << ' ' << a.beta1 << ' ' << a.beta2 << ' '
        << a.eps << ' ' << a.weight_decay << ' ' << combo.accumulate;
  }
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<Entry>& slot = entries_[key.str()];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::call_once(entry->built, [&] {
    StatusOr<pir::Graph> graph = BuildProgram(run, combo, options);
    if (graph.ok()) {
      entry->program = std::shared_ptr<const pir::Graph>(std::make_shared<const pir::Graph>(std::move(*graph)));
    } else {
      entry->program = graph.status();
    }
  });
  return entry->program;
}

double FastestRanked(const SearchContext& ctx) {
  double best = std::numeric_limits<double>::infinity();
  for (const Evaluated& e : ctx.ranked) {
    if (!e.status.ok() || !e.fits) continue;
    if (!TargetAdmits(ctx.options.target, ctx.config, e.compiled.candidate.strategy.combo).ok()) continue;
    best = std::min(best, e.best_latency);
  }
  return best;
}

StatusOr<Candidate> ComboCandidate(const workload::Workload& config, const Combo& combo, int64_t depth_units,
                                   const PlanOptions& options, ProgramCache* programs) {
  if (combo.pipefusion > 1) return PipeFusionCandidate(config, combo, depth_units, options);
  workload::Workload run = ConfigFor(config, combo);
  run.depth_units = depth_units;
  Candidate c;
  c.step = StepOf(run);
  AZ_ASSIGN_OR_RETURN(c.mesh, shard::Mesh::Parse(combo.MeshText()));
  if (programs) {
    AZ_ASSIGN_OR_RETURN(c.program, programs->Get(run, combo, options));
  } else {
    AZ_ASSIGN_OR_RETURN(pir::Graph graph, BuildProgram(run, combo, options));
    c.program = std::make_shared<const pir::Graph>(std::move(graph));
  }
  c.strategy.combo = combo;
  return c;
}

namespace {

// a over b: faster, ties broken by the combination's text.
bool Faster(const Evaluated& a, double la, const Evaluated* b, double lb) {
  return !b || la < lb ||
         (la == lb && a.compiled.candidate.strategy.combo.ToString() < b->compiled.candidate.strategy.combo.ToString());
}

void Say(const SearchContext& ctx, const std::string& line) {
  if (ctx.options.progress) ctx.options.progress(line);
}

class Grid : public Source {
 public:
  std::string label() const override { return "aoizora"; }

  // The pruned grid's best (of what the target runs) within the survivor
  // margin of the best stage-1 score, at least kMinSurvivors and at most
  // top K (planner.h); with XLA's programs every one it compiled. A training
  // grid's surviving per-part hybrid brings its base (hybrid.h): the
  // truncated steps' placement-free bound prices the parts' activation
  // gathers and reduce-scatters below what they cost placed in full, so a
  // hybrid can push its own base out of the margin and win on that alone
  // (Wan 2.1 14B, 832x480x17, one clip on v5p:2x2x2: tp=ulysses@ffn at 535.3
  // ms over ulysses=8,fsdp=8 at 527.8 ms, which pruning had cut).
  std::vector<int> Propose(const SearchContext& ctx) const override {
    if (!ctx.pruned) return ctx.feasible;
    const size_t most = std::min<size_t>(ctx.feasible.size(), static_cast<size_t>(std::max(1, ctx.options.top_k)));
    const size_t least = std::min<size_t>(most, kMinSurvivors);
    std::vector<int> top;
    for (int i : ctx.feasible) {
      if (top.size() == most) break;
      const double score = ctx.prune_scores[static_cast<size_t>(i)];
      const double best = ctx.prune_scores[static_cast<size_t>(ctx.feasible.front())];
      if (top.size() >= least && score > best * (1 + ctx.options.survivor_margin)) break;
      top.push_back(i);
    }
    if (!ctx.options.train) return top;
    for (size_t k = 0, survivors = top.size(); k < survivors; ++k) {
      Combo base = ctx.combos[static_cast<size_t>(top[k])];
      if (!base.IsHybrid()) continue;
      base.tp_on.clear();
      base.tp_parts.clear();
      for (int i : ctx.feasible) {
        if (ctx.combos[static_cast<size_t>(i)] == base && std::find(top.begin(), top.end(), i) == top.end()) {
          top.push_back(i);
        }
      }
    }
    return top;
  }

  StatusOr<Pick> Choose(const SearchContext& ctx) const override {
    const Evaluated* best = nullptr;
    Status first_error = ctx.first_error;
    // Depth 1 of every survivor, then the deeper prefetches that beat theirs
    // (prefetch.h); with a pinned depth above 1, that depth alone.
    std::vector<const Evaluated*> priced;
    if (ctx.pinned_prefetch <= 1) {
      for (const Evaluated& e : ctx.ranked) priced.push_back(&e);
    }
    for (const Evaluated& e : ctx.prefetched) priced.push_back(&e);
    for (const Evaluated* p : priced) {
      const Evaluated& e = *p;
      if (!e.status.ok()) {
        if (first_error.ok()) first_error = e.status;
        continue;
      }
      // Ranked with the baselines' proposals: only what the target runs.
      if (!TargetAdmits(ctx.options.target, ctx.config, e.compiled.candidate.strategy.combo).ok()) continue;
      if (!e.fits) continue;
      // A deeper prefetch holds more memory for its speed: it displaces a
      // depth-1 pick only by more than rounding (a step the prefetch made
      // compute-bound ties, up to the last bits of the simulator's sums, with
      // a configuration that was compute-bound without FSDP).
      const bool deeper = e.compiled.candidate.strategy.combo.prefetch > 1 && ctx.pinned_prefetch <= 1;
      if (deeper && best && e.best_latency >= best->best_latency * (1 - kPrefetchMinGain)) continue;
      if (Faster(e, e.best_latency, best, best ? best->best_latency : 0)) best = &e;
    }
    const hw::Topology& topology = *ctx.topology;
    if (!best) {
      if (!first_error.ok()) return first_error;
      if (!std::isfinite(ctx.frugal_peak)) {
        return ResourceExhausted("no compiled program fits " + topology.name + ": every one needs more than " +
                                 FormatBytes(topology.chip.hbm) + " per chip");
      }
      return ResourceExhausted(ctx.config.model + " does not fit " + topology.name +
                               " once compiled in full (every survivor's peak exceeds " +
                               FormatBytes(topology.chip.hbm) + "); the smallest slice that would fit: " +
                               SmallestSliceHint(topology, ctx.frugal_peak, topology.num_chips()));
    }
    Pick pick;
    pick.evaluated = *best;
    pick.searched_placement = true;
    pick.description = best->compiled.candidate.strategy.combo.ToString();
    if (ctx.options.search_placement && !best->exhaustive) {
      Say(ctx, "placement: longer search for " + pick.description);
      // Shorter than `aoizora place`'s default (4 x max(20,000, 2,000 x
      // chips) moves): the structured candidates and the quick search ran.
      PlacementPolicy full{PlacementKind::kSearch, {}, {}};
      full.search.seed = ctx.options.seed;
      full.search.restarts = 3;
      full.search.moves = ctx.options.placement_moves > 0 ? ctx.options.placement_moves
                                                          : LongerSearchMoves(topology.num_chips());
      Evaluated longer = Price(best->compiled, topology, ctx.options.calibration, full);
      AZ_RETURN_IF_ERROR(longer.status);
      if (longer.best_latency <= best->best_latency) pick.evaluated = std::move(longer);  // never worse
    }
    return pick;
  }
};

// Why no training expert was priced: MaxDiffusion's recipes need the batch
// over the FSDP axis (FSDP alone: the micro-batch divisible by the chips) and
// no tensor parallelism.
std::string NoTrainExpertNote(const std::vector<Combo>& combos, int64_t chips, int64_t micro_batch) {
  for (const Combo& c : combos) {
    if (TrainExpert(c, chips)) return "no FSDP or FSDP x context-parallel configuration fits or compiles";
  }
  return "MaxDiffusion's FSDP recipes need the micro-batch (" + std::to_string(micro_batch) +
         ") split over the data axis and the rest of the " + std::to_string(chips) +
         " chips on context parallelism; none is among the configurations priced";
}

// Why no expert configuration was priced: the deployed code's split rule
// (with the most chips it would run on), or that none fit or compiled.
std::string NoExpertNote(const workload::Workload& config, const std::vector<Combo>& combos, int64_t chips) {
  Status refused = Status::Ok();
  bool any_expert = false;
  for (const Combo& c : combos) {
    if (!ExpertDegrees(config, c)) continue;
    any_expert = true;
    Status split = config.DeployedSequenceSplit(c.ulysses * c.ring);
    if (!split.ok()) {
      if (refused.ok()) refused = split;
    } else {
      return "no expert configuration fits or compiles";
    }
  }
  if (!any_expert) {
    const workload::DeployedDegrees offered = config.DeployedParallelism();
    return "no configuration priced uses only the degrees " + config.model + "'s deployed code offers (Ulysses, Ring" +
           (offered.cfg ? ", CFG" : "") + (offered.tp ? ", TP" : "") + "; no data parallelism)";
  }
  // Every expert combination was refused: the largest chip count the code
  // runs on (CFG 2 x ring sp, or ring sp alone; ring takes any head count).
  const bool has_cfg = config.cfg != workload::CfgMode::kNone && config.DeployedParallelism().cfg;
  for (int64_t k = chips - 1; k >= 1; --k) {
    for (int64_t cfg : {int64_t{2}, int64_t{1}}) {
      if ((cfg == 2 && !has_cfg) || k % cfg != 0) continue;
      if (!config.DeployedSequenceSplit(k / cfg).ok()) continue;
      Combo c;
      c.cfg = cfg;
      c.ring = k / cfg;
      return refused.message() + ": the deployed code runs on at most " + std::to_string(k) + " of the " +
             std::to_string(chips) + " chips (e.g. " + c.ToString() + "; plan on " + std::to_string(k) +
             " chips to price it)";
    }
  }
  return refused.message();
}

class Expert : public Source {
 public:
  std::string label() const override { return "expert"; }

  // The expert combinations that fit, FSDP only when the plain one does not
  // (with XLA's programs: every expert combination it compiled).
  std::vector<int> Propose(const SearchContext& ctx) const override {
    const int64_t chips = ctx.topology->num_chips();
    std::vector<int> out;
    for (int i : ctx.feasible) {
      const Combo& c = ctx.combos[static_cast<size_t>(i)];
      if (ctx.options.train ? !TrainExpert(c, chips) : !RunsAsExpert(ctx.config, c)) continue;
      if (ctx.pruned && c.fsdp > 0 && !ctx.options.train) {
        Combo plain = c;
        plain.fsdp = 0;
        bool plain_fits = false;
        for (int j : ctx.feasible) plain_fits |= ctx.combos[static_cast<size_t>(j)] == plain;
        if (plain_fits) continue;
      }
      out.push_back(i);
    }
    return out;
  }

  // The fastest under the default placement: what a user of that code gets.
  StatusOr<Pick> Choose(const SearchContext& ctx) const override {
    const std::vector<int> mine = Propose(ctx);
    const Evaluated* best = nullptr;
    for (size_t k = 0; k < ctx.ranked.size(); ++k) {
      const Evaluated& e = ctx.ranked[k];
      if (!e.status.ok() || !e.fits) continue;
      if (std::find(mine.begin(), mine.end(), ctx.survivors[k]) == mine.end()) continue;
      if (Faster(e, e.default_latency, best, best ? best->default_latency : 0)) best = &e;
    }
    Pick pick;
    if (!best) {
      pick.note = ctx.options.train
                      ? NoTrainExpertNote(ctx.combos, ctx.topology->num_chips(), ctx.options.train->micro_batch)
                      : NoExpertNote(ctx.config, ctx.combos, ctx.topology->num_chips());
      Say(ctx, "expert: none: " + pick.note);
      return pick;
    }
    pick.evaluated = *best;
    pick.description =
        (ctx.options.train ? "MaxDiffusion " : "xDiT ") + best->compiled.candidate.strategy.combo.ToString();
    return pick;
  }
};

}  // namespace

std::unique_ptr<Source> GridSource() { return std::make_unique<Grid>(); }

std::unique_ptr<Source> AlpaSource();       // baseline_sources.cc
std::unique_ptr<Source> AnnotatedSource();  // baseline_sources.cc
std::unique_ptr<Source> DeployedSource();   // deployed_source.cc

std::vector<std::unique_ptr<Source>> BaselineSources() {
  std::vector<std::unique_ptr<Source>> out;
  out.push_back(std::make_unique<Expert>());
  out.push_back(DeployedSource());
  out.push_back(AlpaSource());
  out.push_back(AnnotatedSource());
  return out;
}

}  // namespace az::search
