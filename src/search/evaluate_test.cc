// The one evaluator (evaluate.h) and the sources that propose to it
// (sources.h): the plan reports what Evaluate prices, the placement policies
// order as they must, and each source proposes what its contract says.
#include "search/evaluate.h"

#include <gtest/gtest.h>

#include "place/default_placement.h"
#include "search/planner.h"
#include "search/prune.h"
#include "search/sources.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::DitOptions;
using search_test::Topo;


Evaluated EvaluateCombo(const workload::Workload& config, const std::string& text, const hw::Topology& t,
                        const PlacementPolicy& policy) {
  auto combo = ParseCombo(text, t.num_chips());
  EXPECT_TRUE(combo.ok()) << combo.status().message();
  auto candidate = ComboCandidate(config, *combo, 0, DitOptions(t));
  EXPECT_TRUE(candidate.ok()) << candidate.status().message();
  return Evaluate(*candidate, t, EvaluateOptions{DitOptions(t).calibration, ""}, policy);
}

// A pinned combination under the default placement: the plan's best is
// exactly what Evaluate prices for it (latency, evidence, placement), and the
// expert baseline (the same xDiT combination) too.
TEST(Evaluate, ThePlanReportsWhatEvaluatePrices) {
  hw::Topology t = Topo("v5e:2x4");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  PlanOptions options = DitOptions(t);
  options.pinned = "ulysses=4,cfg=2";
  options.search_placement = false;
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  Evaluated e = EvaluateCombo(config, "ulysses=4,cfg=2", t, PlacementPolicy{});
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  EXPECT_EQ(plan->best.step_latency.value(), e.default_latency);
  EXPECT_EQ(plan->best.evidence_hash, evidence::HashOf(e.compiled.evidence));
  EXPECT_EQ(plan->best.placement, e.default_placement);
  EXPECT_EQ(plan->best.peak_memory.value(), e.compiled.evidence.peak_memory.value());
  // CFG parallel runs the batch-2 forward once per step.
  EXPECT_EQ(e.forwards, 1);
  EXPECT_EQ(plan->best.forwards_per_step, 1);
  ASSERT_NE(plan->Find("expert"), nullptr);
  EXPECT_EQ(plan->Find("expert")->step_latency.value(), e.default_latency);
  // A template under the default order (no placement search).
  EXPECT_FALSE(plan->best.seeded);
  EXPECT_TRUE(plan->best.default_order);
  EXPECT_TRUE(plan->Find("expert")->default_order);
}

// The placement-free bound is a lower bound of the default placement's
// latency, and a search never returns worse than the default; a given
// placement equal to the default prices the same.
TEST(Evaluate, PlacementPoliciesOrder) {
  hw::Topology t = Topo("v5e:2x4");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  for (const std::string combo : {"ulysses=4,cfg=2", "ring=8", "ulysses=2,ring=2,cfg=2", "tp=4,cfg=2"}) {
    Evaluated bound = EvaluateCombo(config, combo, t, PlacementPolicy{PlacementKind::kLowerBound, {}, {}});
    Evaluated fixed = EvaluateCombo(config, combo, t, PlacementPolicy{});
    PlacementPolicy search{PlacementKind::kSearch, {}, {}};
    search.search.restarts = 1;
    search.search.moves = 2000;
    Evaluated searched = EvaluateCombo(config, combo, t, search);
    ASSERT_TRUE(bound.status.ok() && fixed.status.ok() && searched.status.ok()) << combo;
    EXPECT_LE(bound.forward_s, fixed.forward_s) << combo;
    EXPECT_GT(bound.forward_s, 0) << combo;
    EXPECT_LE(searched.best_latency, fixed.default_latency) << combo;
    EXPECT_EQ(searched.default_latency, fixed.default_latency) << combo;
    Evaluated given = EvaluateCombo(config, combo, t, PlacementPolicy{PlacementKind::kGiven, fixed.default_placement, {}});
    ASSERT_TRUE(given.status.ok()) << combo;
    EXPECT_EQ(given.default_latency, fixed.default_latency) << combo;
  }
}

// Two-pass CFG runs the forward twice per step; a given placement of the
// wrong size is refused with the simulator's reason.
TEST(Evaluate, StepShapeAndBadPlacement) {
  hw::Topology t = Topo("v5e:2x2");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  ASSERT_EQ(config.cfg, workload::CfgMode::kTwoPass);
  Evaluated e = EvaluateCombo(config, "ulysses=4", t, PlacementPolicy{});
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  EXPECT_EQ(e.forwards, 2);
  EXPECT_DOUBLE_EQ(e.default_latency, 2 * e.forward_s);
  Evaluated bad = EvaluateCombo(config, "ulysses=4", t, PlacementPolicy{PlacementKind::kGiven, {0, 1}, {}});
  EXPECT_FALSE(bad.status.ok());
}

// The sources propose what their contracts say: the grid its top K of the
// pruned ranking, the expert only combinations xDiT's code runs, FSDP only
// where the plain combination does not fit.
TEST(Sources, ProposeByContract) {
  hw::Topology t = Topo("v5e:2x4");
  SearchContext ctx;
  ctx.config = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  ctx.topology = &t;
  ctx.options = DitOptions(t);
  ctx.options.top_k = 3;
  ctx.evaluate.calibration = ctx.options.calibration;
  auto heads = AttentionHeads(ctx.config);
  ASSERT_TRUE(heads.ok());
  ctx.combos = EnumerateCombos(ctx.config, t.num_chips(), *heads);
  ASSERT_TRUE(Prune(ctx).ok());
  ASSERT_GE(ctx.feasible.size(), 3u);
  std::vector<int> top = GridSource()->Propose(ctx);
  EXPECT_EQ(top, std::vector<int>(ctx.feasible.begin(), ctx.feasible.begin() + 3));
  std::vector<std::unique_ptr<Source>> baselines = BaselineSources();
  ASSERT_EQ(baselines.size(), 4u);
  EXPECT_EQ(baselines[0]->label(), "expert");
  EXPECT_EQ(baselines[1]->label(), "deployed");
  EXPECT_EQ(baselines[2]->label(), "alpa");
  EXPECT_EQ(baselines[3]->label(), "annotated");
  std::vector<int> experts = baselines[0]->Propose(ctx);
  EXPECT_FALSE(experts.empty());
  for (int i : experts) {
    const Combo& c = ctx.combos[static_cast<size_t>(i)];
    EXPECT_TRUE(RunsAsExpert(ctx.config, c)) << c.ToString();
    EXPECT_EQ(c.fsdp, 0) << c.ToString();  // the 1.3B model fits v5e without FSDP
  }
  // The deployed source proposes the one recipe (on a v5e slice
  // MaxDiffusion's default: context=8,fsdp=8), which fits.
  std::vector<int> deployed = baselines[1]->Propose(ctx);
  ASSERT_EQ(deployed.size(), 1u);
  EXPECT_EQ(ctx.combos[static_cast<size_t>(deployed[0])].ToString(), "context=8,fsdp=8");
  // Alpa and the annotated source propose nothing to the grid's ranking:
  // they evaluate their own candidates.
  EXPECT_TRUE(baselines[2]->Propose(ctx).empty());
  EXPECT_TRUE(baselines[3]->Propose(ctx).empty());
  // A zoo model carries no shardings: the annotated source has none and no note.
  auto annotated = baselines[3]->Choose(ctx);
  ASSERT_TRUE(annotated.ok());
  EXPECT_FALSE(annotated->evaluated.has_value());
  EXPECT_EQ(annotated->note, "");
}

// Alpa's source prices its ILP pick with the evaluator: the plan's Alpa
// baseline is exactly Evaluate of the pick's candidate under the default
// placement (4 chips: the ILP solves every mesh to optimality in well under
// its time limit, so both runs pick the same).
TEST(Sources, AlpaIsPricedByEvaluate) {
  hw::Topology t = Topo("v5e:2x2");
  SearchContext ctx;
  ctx.config = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  ctx.topology = &t;
  ctx.options = DitOptions(t);
  ctx.evaluate.calibration = ctx.options.calibration;
  std::vector<std::unique_ptr<Source>> baselines = BaselineSources();
  auto pick = baselines[2]->Choose(ctx);  // alpa
  ASSERT_TRUE(pick.ok()) << pick.status().message();
  ASSERT_TRUE(pick->evaluated.has_value()) << pick->note;
  EXPECT_EQ(pick->sharding, "alpa");
  Evaluated again = Evaluate(pick->evaluated->compiled.candidate, t, ctx.evaluate, PlacementPolicy{});
  ASSERT_TRUE(again.status.ok());
  EXPECT_EQ(again.default_latency, pick->evaluated->default_latency);
  EXPECT_EQ(evidence::HashOf(again.compiled.evidence), evidence::HashOf(pick->evaluated->compiled.evidence));
  auto plan = MakePlan(ctx.config, t, ctx.options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_NE(plan->Find("alpa"), nullptr);
  EXPECT_EQ(plan->Find("alpa")->step_latency.value(), again.default_latency);
  EXPECT_EQ(plan->Find("alpa")->evidence_hash, evidence::HashOf(again.compiled.evidence));
  // Alpa's ILP seeds per tensor; a baseline runs the default order.
  EXPECT_TRUE(plan->Find("alpa")->seeded);
  EXPECT_TRUE(plan->Find("alpa")->default_order);
  EXPECT_EQ(plan->Find("alpa")->placement, again.default_placement);
}

// The plan's programs are built once per workload a combination runs, not
// per combination: ring=4 and ulysses=2,ring=2 (both the model's CFG mode) get
// the same graph, cfg=2,ring=2 the batch-2 forward (ConfigFor), a truncated
// depth another; a training step's remat policies are different programs.
// The shared graph is the one a combination would build alone.
TEST(ProgramCache, CombinationsShareTheProgramTheyRun) {
  hw::Topology t = Topo("v5e:2x2");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  PlanOptions options = DitOptions(t);
  ProgramCache programs;
  auto candidate = [&](const std::string& text, int64_t depth, const PlanOptions& o) {
    auto combo = ParseCombo(text, t.num_chips());
    EXPECT_TRUE(combo.ok()) << combo.status().message();
    auto c = ComboCandidate(config, *combo, depth, o, &programs);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c->program;
  };
  auto ring = candidate("ring=4", 0, options);
  EXPECT_EQ(candidate("ulysses=2,ring=2", 0, options), ring);
  auto cfg = candidate("cfg=2,ring=2", 0, options);
  EXPECT_NE(cfg, ring);
  EXPECT_EQ(candidate("cfg=2,ulysses=2", 0, options), cfg);
  EXPECT_NE(candidate("ring=4", 2, options), ring);
  auto alone = ComboCandidate(config, *ParseCombo("ulysses=2,ring=2", 4), 0, options);
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->program->num_ops(), ring->num_ops());
  EXPECT_EQ(alone->program->num_values(), ring->num_values());

  PlanOptions train = options;
  train.train = TrainPlanOptions{4, std::nullopt, {}};
  auto none = candidate("dp=4,remat=none", 1, train);
  EXPECT_EQ(candidate("dp=2,fsdp=4,ulysses=2,remat=none", 1, train), none);
  EXPECT_NE(candidate("dp=4,remat=full", 1, train), none);
}

// The grid's survivors come from the spread of the stage-1 scores (planner.h):
// every combination within the margin of the best, at least kMinSurvivors (2),
// at most top K. Scores 10, 10.5, 10.9, 11.5, 20 (feasible, best first):
// margin 10% keeps the first three (<= 11), margin 0 the first two (the
// least), margin 1 (<= 20) all five, capped at top K = 4; top K = 1 caps
// even the least.
TEST(GridSource, SurvivorsAreThoseWithinTheMarginOfTheBest) {
  SearchContext ctx;
  ctx.combos.resize(6);
  ctx.prune_scores = {10.9, 20, 10, 11.5, std::numeric_limits<double>::infinity(), 10.5};
  ctx.feasible = {2, 5, 0, 3, 1};
  ctx.options.top_k = 4;
  std::unique_ptr<Source> grid = GridSource();
  ctx.options.survivor_margin = 0.10;
  EXPECT_EQ(grid->Propose(ctx), (std::vector<int>{2, 5, 0}));
  ctx.options.survivor_margin = 0;
  EXPECT_EQ(grid->Propose(ctx), (std::vector<int>{2, 5}));
  ctx.options.survivor_margin = 1;
  EXPECT_EQ(grid->Propose(ctx), (std::vector<int>{2, 5, 0, 3}));
  ctx.options.top_k = 1;
  EXPECT_EQ(grid->Propose(ctx), (std::vector<int>{2}));
  // With XLA's programs (not pruned): every one it compiled.
  ctx.pruned = false;
  EXPECT_EQ(grid->Propose(ctx), ctx.feasible);
}

}  // namespace
}  // namespace az::search
