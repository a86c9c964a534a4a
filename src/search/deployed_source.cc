// The deployed source (sources.h): the configuration the model's own
// repository deploys (workload.h: DeployedRecipe; the zoo cites each recipe,
// frontend/zoo/recipes.cc), priced like every candidate (proposed as its
// index in the grid, compiled and placed with the survivors) and picked under
// the default placement: what a user who follows the README gets. None, with
// the reason, when no recipe is published for the model on these chips, the
// recipe's own rule refuses the chip count or the sequence split, the grid
// (the target's) does not hold it, or it does not fit (with the peak and the
// HBM).
#include <algorithm>
#include <cstdio>

#include "search/sources.h"

namespace az::search {

namespace {

void Say(const SearchContext& ctx, const std::string& line) {
  if (ctx.options.progress) ctx.options.progress(line);
}

std::string GiB(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// The recipe the model's deployment publishes for this step on these chips
// (a training recipe for a training step), as a combination, or why none.
StatusOr<Combo> RecipeCombo(const SearchContext& ctx, std::string* command) {
  const hw::Topology& topology = *ctx.topology;
  const int64_t chips = topology.num_chips();
  const bool tpu = topology.chip.family == hw::ChipFamily::kTpu;
  const int64_t per_node = topology.gpus_per_node > 0 ? topology.gpus_per_node : chips;
  AZ_ASSIGN_OR_RETURN(workload::DeployedRecipe recipe,
                      ctx.options.train ? ctx.config.DeployedTrainRecipeOn(chips, ctx.options.train->micro_batch, tpu)
                                        : ctx.config.DeployedRecipeOn(chips, per_node, tpu));
  Combo c;
  c.dp = recipe.dp;
  c.ulysses = recipe.ulysses;
  c.ring = recipe.ring;
  c.tp = recipe.tp;
  c.context = recipe.context;
  c.fsdp = recipe.fsdp ? chips / recipe.dp : 0;
  c.remat = recipe.remat;
  *command = recipe.command;
  AZ_CHECK_MSG(c.devices() == chips, "a deployed recipe's degrees multiply to the chip count");
  return c;
}

// The recipe as a combination of the grid: its index in ctx.combos, or -1
// with the reason in *note.
int RecipeIndex(const SearchContext& ctx, Combo* combo, std::string* command, std::string* note) {
  if (!ctx.options.pinned.empty()) {
    *note = "not run: the sharding is pinned (--template)";
    return -1;
  }
  StatusOr<Combo> recipe = RecipeCombo(ctx, command);
  if (!recipe.ok()) {
    *note = recipe.status().message();
    return -1;
  }
  const Combo& c = *recipe;
  *combo = c;
  if (c.context == 1) {
    if (Status split = ctx.config.DeployedSequenceSplit(c.ulysses * c.ring); !split.ok()) {
      *note = *command + " (" + c.ToString() + ") does not run here: " + split.message();
      return -1;
    }
  }
  const auto it = std::find(ctx.combos.begin(), ctx.combos.end(), c);
  if (it == ctx.combos.end()) {
    const Status admitted = TargetAdmits(ctx.options.target, ctx.config, c);
    *note = *command + " (" + c.ToString() + ") is not among the " + std::to_string(ctx.combos.size()) +
            " configurations of the grid" +
            (admitted.ok() ? std::string()
                           : ": --target " + std::string(TargetName(ctx.options.target)) + " does not run it (" +
                                 admitted.message() + ")");
    return -1;
  }
  return static_cast<int>(it - ctx.combos.begin());
}

class Deployed : public Source {
 public:
  std::string label() const override { return "deployed"; }

  // A training recipe pins its remat policy, which the grid's combinations
  // leave to the planner: the recipe joins the grid as it is written.
  std::vector<Combo> Contribute(const SearchContext& ctx) const override {
    if (!ctx.options.train || !ctx.options.pinned.empty()) return {};
    std::string command;
    StatusOr<Combo> recipe = RecipeCombo(ctx, &command);
    if (!recipe.ok() || !recipe->remat) return {};
    if (!TargetAdmits(ctx.options.target, ctx.config, *recipe).ok()) return {};
    return {*recipe};
  }

  std::vector<int> Propose(const SearchContext& ctx) const override {
    Combo combo;
    std::string command, note;
    const int index = RecipeIndex(ctx, &combo, &command, &note);
    if (index < 0) return {};
    if (std::find(ctx.feasible.begin(), ctx.feasible.end(), index) == ctx.feasible.end()) return {};
    return {index};
  }

  StatusOr<Pick> Choose(const SearchContext& ctx) const override {
    Pick pick;
    Combo combo;
    std::string command;
    const int index = RecipeIndex(ctx, &combo, &command, &pick.note);
    if (index < 0) {
      Say(ctx, "deployed: none: " + pick.note);
      return pick;
    }
    const std::string what = command + " (" + combo.ToString() + ")";
    const double hbm = static_cast<double>(ctx.topology->chip.hbm.value());
    const auto at = std::find(ctx.survivors.begin(), ctx.survivors.end(), index);
    if (at == ctx.survivors.end()) {
      // Pruned away (its extrapolated peak over the HBM), or, with XLA's
      // programs, not compiled: the compiled peak says by how much.
      if (!ctx.pruned) {
        pick.note = what + " has no HLO dump in " + ctx.options.hlo_dir;
      } else {
        StatusOr<Candidate> candidate = ComboCandidate(ctx.config, combo, 0, ctx.options, ctx.programs.get());
        StatusOr<Compiled> compiled =
            candidate.ok() ? Compile(*candidate, ctx.evaluate) : StatusOr<Compiled>(candidate.status());
        pick.note = compiled.ok() ? what + " does not fit: its compiled peak is " +
                                        GiB(static_cast<double>(compiled->evidence.peak_memory.value())) +
                                        " per chip, over the " + GiB(hbm) + " of HBM"
                                  : what + " does not compile: " + compiled.status().message();
      }
      Say(ctx, "deployed: none: " + pick.note);
      return pick;
    }
    const Evaluated& e = ctx.ranked[static_cast<size_t>(at - ctx.survivors.begin())];
    if (!e.status.ok()) {
      pick.note = what + " does not compile or price: " + e.status.message();
      return pick;
    }
    if (!e.fits) {
      pick.note = what + " does not fit: it needs " + GiB(e.noise_experts.resident_peak) + " per chip, over the " +
                  GiB(hbm) + " of HBM";
      return pick;
    }
    pick.evaluated = e;
    pick.description = what;
    return pick;
  }
};

}  // namespace

std::unique_ptr<Source> DeployedSource() { return std::make_unique<Deployed>(); }

}  // namespace az::search
