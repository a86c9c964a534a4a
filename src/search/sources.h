// Sources of candidates. The plan's own search and every baseline are sources
// behind one interface: a source proposes candidates, the planner evaluates
// them with the one evaluator (evaluate.h), and the source picks its
// configuration from what was priced, or says why it has none. Adding a
// baseline is one new Source and its tests; the planner, the Plan (a list of
// labelled configurations) and the emitters loop over sources.
//
//   grid       (the plan's own search) every combination of combos.h and
//              its per-part hybrids (hybrid.h), pruned
//              (prune.h) to the top K, ranked with a placement search; picks
//              the fastest of everything ranked, then searches its placement
//              longer.
//   expert     xDiT's Ulysses x Ring x CFG grid (the model's deployed degrees,
//              combos.h: RunsAsExpert; a training step: MaxDiffusion's FSDP
//              recipes, TrainExpert), FSDP only where the plain combination
//              does not fit; picks the fastest under the default placement
//              and FSDP prefetch depth 1, its runtime's default (what a user
//              running that code gets; prefetch.h).
//   deployed   the configuration the model's own repository deploys
//              (Workload::DeployedRecipeOn: Wan's generate.py flags,
//              HunyuanVideo's, Step-Video's; on TPUs MaxDiffusion's default
//              mesh and attention), proposed as its combination of the grid
//              and picked under the default placement; none, with why, when
//              no recipe is published, it is not in the grid or it does not
//              fit (deployed_source.cc). FSDP prefetch depth 1, as deployed.
//   alpa       Alpa's ILP (alpa.h) on every 1D and 2D mesh; its lowest
//              objective, evaluated under the default placement.
//   annotated  an imported program's own shardings on the mesh it declares,
//              under the default placement.
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "search/evaluate.h"
#include "search/planner.h"

namespace az::search {

// The programs a plan compiles, each built once and shared by every candidate
// that runs it: a program depends on the workload the combination runs
// (ConfigFor: its CFG mode; the depth) and, for a training step, its remat
// and optimizer, not on the combination's degrees, so the grid's
// combinations (and the baselines' proposals) share a handful of builds.
// Thread-safe; a program is built by the first thread to ask for it.
class ProgramCache {
 public:
  StatusOr<std::shared_ptr<const pir::Graph>> Get(const workload::Workload& run, const Combo& combo,
                                                  const PlanOptions& options);

 private:
  struct Entry {
    std::once_flag built;
    StatusOr<std::shared_ptr<const pir::Graph>> program = InternalError("not built");
  };
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

// What every source sees: the workload, the chips, the options (the
// calibration already carries the chosen software stack), the grid of
// combinations and, once ranked, the grid's survivors priced.
struct SearchContext {
  workload::Workload config;
  const hw::Topology* topology = nullptr;
  PlanOptions options;
  EvaluateOptions evaluate;
  std::vector<Combo> combos;  // the grid (training: each with the remat pruning chose)
  int64_t heads = 0;          // the model's attention heads (combos.h: AttentionHeads)
  // An imported program with no attention: the program source
  // (program_source.h) stands in for the grid, which is then empty.
  bool program_search = false;
  // Indices into combos whose pruned peak fits, fastest first (prune.h);
  // with XLA's programs (`pruned` false) those it compiled, in grid order.
  std::vector<int> feasible;
  // Per combination, its pruned score (seconds per step, placement-free);
  // infinite where it failed to score. Empty with XLA's programs.
  std::vector<double> prune_scores;
  bool pruned = true;
  // The lowest pruned peak, bytes (infinite: none scored).
  double frugal_peak = std::numeric_limits<double>::infinity();
  Status first_error = Status::Ok();  // the first candidate that failed to compile or price
  // The survivors (indices into combos) and their evaluations, in the same order.
  std::vector<int> survivors;
  std::vector<Evaluated> ranked;
  // Grid survivors with FSDP priced again under a deeper prefetch that beat
  // their depth 1 (prefetch.h), for the grid alone: the baselines pick from
  // `ranked`, where every combination keeps depth 1.
  std::vector<Evaluated> prefetched;
  // A pinned --template's prefetch depth (0: none named): the grid then
  // prices that depth alone, and picks from `prefetched` when it is above 1.
  int pinned_prefetch = 0;
  // Shared by the grid and the baselines (a pointer: sources see a const context).
  std::shared_ptr<ProgramCache> programs = std::make_shared<ProgramCache>();
};

// A source's configuration: the evaluation it picked and how the plan
// describes it, or nullopt with the reason in `note`.
struct Pick {
  std::optional<Evaluated> evaluated;
  std::string description;  // "xDiT ulysses=4,ring=2", "Alpa ILP on mesh a=8"
  // Empty: the combination's template (and its xDiT degrees); else the
  // sharding's name ("alpa", "annotated"): seeds, no degrees.
  std::string sharding;
  bool searched_placement = false;  // the best placement found, else the default
  std::string note;                 // why there is none, or what the pick kept
};

class Source {
 public:
  virtual ~Source() = default;
  virtual std::string label() const = 0;
  // Combinations the source needs that the grid does not hold (the deployed
  // training recipe, whose remat is pinned), appended to ctx.combos before
  // pruning, where they are scored as they are. Default: none.
  virtual std::vector<Combo> Contribute(const SearchContext&) const { return {}; }
  // Combinations (indices into ctx.combos, among ctx.feasible) the planner
  // evaluates with the grid's survivors. Default: none.
  virtual std::vector<int> Propose(const SearchContext&) const { return {}; }
  // The source's configuration once ctx.ranked is filled.
  virtual StatusOr<Pick> Choose(const SearchContext& ctx) const = 0;
};

// The plan's own search (label "aoizora").
std::unique_ptr<Source> GridSource();
// The baselines, in the order the plan lists them.
std::vector<std::unique_ptr<Source>> BaselineSources();

// The candidate of a combination: the model's forward (with the combination's
// CFG mode, combos.h: ConfigFor), or its training step under the
// combination's remat, at `depth_units` block units (0: the full model), on
// the combination's mesh.
StatusOr<Candidate> ComboCandidate(const workload::Workload& config, const Combo& combo, int64_t depth_units,
                                   const PlanOptions& options, ProgramCache* programs = nullptr);

// The step of a model configuration (evaluate.h).
StepShape StepOf(const workload::Workload& config);

// The fastest ranked step the grid may pick (Grid::Choose): evaluated,
// fitting, admitted by the target; infinity when none. The bound the chunk
// variants and the prefetch climb must beat.
double FastestRanked(const SearchContext& ctx);

// The program a configuration runs (the forward, or the training step).
StatusOr<pir::Graph> BuildProgram(const workload::Workload& config, const Combo& combo, const PlanOptions& options);

}  // namespace az::search
