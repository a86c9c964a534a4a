// Per-part hybrids in the search (hybrid.h): the combination's text round
// trip and its errors, the template it seeds, the bounded enumeration, the
// targets that run it, and a plan whose grid holds them.
#include "search/hybrid.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/models.h"
#include "search/planner.h"
#include "search/sources.h"
#include "search/targets.h"
#include "search/testing.h"
#include "shard/templates.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::Topo;

TEST(HybridCombos, TextRoundTrip) {
  for (const char* text : {"ring=4,cfg=2,tp=ring@cross_attn+ffn,fsdp=8", "ulysses=2,ring=4,tp=ulysses@ffn",
                           "context=8,tp=context@cross_attn+ffn+self_attn"}) {
    auto combo = ParseCombo(text, 8);
    ASSERT_TRUE(combo.ok()) << text << ": " << combo.status().message();
    EXPECT_TRUE(combo->IsHybrid());
    EXPECT_FALSE(combo->IsExpert());
    EXPECT_EQ(combo->ToString(), text);
    auto again = ParseCombo(combo->ToString(), 8);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *combo);
  }
  // Parts are kept sorted, whatever order they are written in.
  auto unsorted = ParseCombo("ring=8,tp=ring@ffn+cross_attn", 8);
  ASSERT_TRUE(unsorted.ok());
  EXPECT_EQ(unsorted->tp_parts, (std::vector<std::string>{"cross_attn", "ffn"}));
  EXPECT_EQ(unsorted->ToString(), "ring=8,tp=ring@cross_attn+ffn");
  // The mesh is the base combination's (the tp has no axis of its own); the
  // template names the axis by its strategy, as the mesh does.
  auto c = ParseCombo("ring=4,cfg=2,tp=ring@cross_attn+ffn,fsdp=8", 8);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->MeshText(), "cfg=2,ring=4");
  EXPECT_EQ(c->AxisRoles(), (std::vector<std::string>{"cfg", "ring"}));
  EXPECT_EQ(c->Template(), "cfg=cfg,ring=ring,tp=ring@cross_attn+ffn,fsdp=cfg+ring");
  EXPECT_EQ(c->Id(), "ring4-cfg2-tpring@cross_attn+ffn-fsdp8");
}

TEST(HybridCombos, ParseErrors) {
  auto message = [](const char* text) {
    auto combo = ParseCombo(text, 8);
    EXPECT_FALSE(combo.ok()) << text << " was accepted";
    return combo.ok() ? std::string() : combo.status().message();
  };
  EXPECT_NE(message("ring=8,tp=cfg@ffn").find("a per-part tp takes the axis of ulysses, ring or context"),
            std::string::npos);
  EXPECT_NE(message("ring=8,tp=ulysses@ffn").find("the combination has no ulysses degree"), std::string::npos);
  EXPECT_NE(message("ring=4,tp=2,tp=ring@ffn").find("'tp' appears twice"), std::string::npos);
  EXPECT_NE(message("ring=8,tp=ring@").find("expected block parts joined by '+'"), std::string::npos);
  EXPECT_NE(message("ring=8,tp=ring@ffn+ffn").find("names part 'ffn' twice"), std::string::npos);
  EXPECT_NE(message("ulysses=2,ring=4,tp=ring@ffn").find("takes the minor sequence axis"), std::string::npos);
  // The degrees still multiply to the chips; the per-part tp adds none.
  EXPECT_NE(message("ring=4,tp=ring@ffn").find("multiply to 4"), std::string::npos);
  // PipeFusion's stages take no per-part tp either.
  EXPECT_NE(message("pipefusion=2,ring=4,tp=ring@ffn").find("pipefusion combines with ulysses, ring and cfg only"),
            std::string::npos);
}

// The enumeration on Wan 2.1 14B (40 heads) on 8 chips: every sequence-
// parallel base without a tp degree, tp on its minor sequence axis, the four
// part sets; attention parts only where the axis divides the 40 heads.
TEST(HybridCombos, BoundedEnumeration) {
  workload::Workload wan = Config("wan2.1-t2v-14b", 832, 480, 21);
  const std::vector<Combo> grid = EnumerateCombos(wan, 8, 40);
  auto hybrids = HybridCombosFor(wan, grid, 40);
  ASSERT_TRUE(hybrids.ok()) << hybrids.status().message();
  int bases = 0;
  for (const Combo& base : grid) bases += base.tp == 1 && base.ulysses * base.ring * base.context > 1;
  EXPECT_LE(hybrids->size(), static_cast<size_t>(4 * bases));
  EXPECT_GT(hybrids->size(), 0u);
  for (const Combo& h : *hybrids) {
    ASSERT_TRUE(h.IsHybrid());
    EXPECT_EQ(h.tp, 1);
    const int64_t on = h.tp_on == "ulysses" ? h.ulysses : h.tp_on == "ring" ? h.ring : h.context;
    EXPECT_GT(on, 1) << h.ToString();
    if (h.ulysses > 1) {
      EXPECT_EQ(h.tp_on, "ulysses") << h.ToString();
    }
    const bool attention = h.tp_parts != std::vector<std::string>{"ffn"};
    if (attention) {
      EXPECT_EQ(40 % on, 0) << h.ToString();
    }
    // Its base is in the grid.
    Combo base = h;
    base.tp_on.clear();
    base.tp_parts.clear();
    EXPECT_NE(std::find(grid.begin(), grid.end(), base), grid.end()) << h.ToString();
    EXPECT_EQ(std::count(hybrids->begin(), hybrids->end(), h), 1) << h.ToString();
  }
  // ring=16 (16 does not divide 40): the FFN alone.
  Combo ring16;
  ring16.ring = 16;
  std::vector<Combo> of_ring16 = HybridCombos({ring16}, 40, {"cross_attn", "ffn", "self_attn"});
  ASSERT_EQ(of_ring16.size(), 1u);
  EXPECT_EQ(of_ring16[0].ToString(), "ring=16,tp=ring@ffn");
  // ring=4: all four; ulysses=2 x ring=4: on ulysses.
  Combo ring4 = ring16;
  ring4.ring = 4;
  ring4.cfg = 2;
  EXPECT_EQ(HybridCombos({ring4}, 40, {"cross_attn", "ffn", "self_attn"}).size(), 4u);
  Combo usp = ring4;
  usp.cfg = 1;
  usp.ulysses = 2;
  EXPECT_EQ(HybridCombos({usp}, 40, {"cross_attn", "ffn", "self_attn"})[0].ToString(),
            "ulysses=2,ring=4,tp=ulysses@ffn");
  // Blocks without these parts, a combination with a tp degree or without a
  // sequence degree: none.
  EXPECT_TRUE(HybridCombos({ring4}, 40, {"attn1", "ff"}).empty());
  Combo tp = ring4;
  tp.tp = 2;
  tp.ring = 2;
  EXPECT_TRUE(HybridCombos({tp}, 40, {"cross_attn", "ffn", "self_attn"}).empty());
  Combo cfg_only;
  cfg_only.cfg = 2;
  cfg_only.dp = 4;
  EXPECT_TRUE(HybridCombos({cfg_only}, 40, {"cross_attn", "ffn", "self_attn"}).empty());
  // A training combination's hybrids keep its remat (prune.cc: ScoreTrainHybrids).
  Combo train = ring4;
  train.cfg = 1;
  train.fsdp = 4;
  train.remat = pir::RematPolicy::kSelected;
  const std::vector<Combo> trained = HybridCombos({train}, 40, {"cross_attn", "ffn", "self_attn"});
  ASSERT_EQ(trained.size(), 4u);
  EXPECT_EQ(trained[0].ToString(), "ring=4,tp=ring@ffn,fsdp=4,remat=selected");
  EXPECT_EQ(trained[0].Template(), "ring=ring,tp=ring@ffn,fsdp=ring");
}

// A training grid's surviving hybrid brings its base to the full evaluation
// (sources.cc, Grid::Propose), so the hybrid is picked only by beating it.
// Scores 1.00, 1.01, 1.02 and 1.50 with a 10% margin: the first three
// survive; the hybrid among them adds its base (1.50, cut by the margin) in
// a training plan, not in an inference one (whose goldens stay as they are).
TEST(HybridCombos, ASurvivingTrainingHybridBringsItsBase) {
  SearchContext ctx;
  auto combo = [](const char* text) { return *ParseCombo(text, 8); };
  ctx.combos = {combo("ulysses=8,tp=ulysses@ffn,fsdp=8,remat=none"), combo("ulysses=4,dp=2,fsdp=8,remat=none"),
                combo("context=8,fsdp=8,remat=none"), combo("ulysses=8,fsdp=8,remat=none")};
  ctx.feasible = {0, 1, 2, 3};
  ctx.prune_scores = {1.0, 1.01, 1.02, 1.5};
  const std::unique_ptr<Source> grid = GridSource();
  EXPECT_EQ(grid->Propose(ctx), (std::vector<int>{0, 1, 2}));
  ctx.options.train = TrainPlanOptions{};
  EXPECT_EQ(grid->Propose(ctx), (std::vector<int>{0, 1, 2, 3}));
  // A base the memory check dropped (not feasible) stays out.
  ctx.feasible = {0, 1, 2};
  EXPECT_EQ(grid->Propose(ctx), (std::vector<int>{0, 1, 2}));
}

TEST(HybridCombos, Targets) {
  workload::Workload wan = Config("wan2.1-t2v-14b", 1280, 720, 81);
  auto combo = [](const char* text) { return *ParseCombo(text, 8); };
  // JAX runs per-tensor shardings: the hybrid on ulysses or context, not on ring.
  EXPECT_TRUE(TargetAdmits(Target::kJax, wan, combo("ulysses=4,cfg=2,tp=ulysses@cross_attn+ffn")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kJax, wan, combo("context=8,tp=context@ffn")).ok());
  EXPECT_FALSE(TargetAdmits(Target::kJax, wan, combo("ring=8,tp=ring@ffn")).ok());
  // MaxDiffusion's config and xDiT's flags name one strategy per axis.
  Status md = TargetAdmits(Target::kMaxDiffusion, wan, combo("ring=4,cfg=2,tp=ring@ffn"));
  EXPECT_NE(md.message().find("splits some block parts by tp"), std::string::npos) << md.message();
  EXPECT_FALSE(TargetAdmits(Target::kXdit, wan, combo("ulysses=4,cfg=2,tp=ulysses@ffn")).ok());
  EXPECT_FALSE(RunsAsExpert(wan, combo("ulysses=4,cfg=2,tp=ulysses@ffn")));
}

// A plan's grid holds the hybrids, and a pinned hybrid is priced and
// described: its template, no xDiT form, the per-part strategy named.
TEST(HybridCombos, PlannedAndDescribed) {
  hw::Topology v5e = Topo("v5e:2x2");
  workload::Workload wan = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  PlanOptions options = search_test::Options(v5e);
  options.stages = false;
  options.alpa = false;
  auto grid = MakePlan(wan, v5e, options);
  ASSERT_TRUE(grid.ok()) << grid.status().message();
  const int64_t heads = 12;
  // Every combination and hybrid a TPU runtime runs (targets.h: `any` on a
  // TPU slice), so not the hybrids on a ring axis.
  std::vector<Combo> all = EnumerateCombos(wan, 4, heads);
  const std::vector<Combo> hybrids = *HybridCombosFor(wan, all, heads);
  all.insert(all.end(), hybrids.begin(), hybrids.end());
  const auto runs = [&](const Combo& c) { return TargetAdmits(Target::kAnyTpu, wan, c).ok(); };
  const int64_t tpu_runs = std::count_if(all.begin(), all.end(), runs);
  EXPECT_LT(tpu_runs, static_cast<int64_t>(all.size()));
  EXPECT_GT(std::count_if(hybrids.begin(), hybrids.end(), runs), 0);
  EXPECT_EQ(grid->candidates_considered, static_cast<int>(tpu_runs));
  options.pinned = "ulysses=4,tp=ulysses@cross_attn+ffn";
  auto pinned = MakePlan(wan, v5e, options);
  ASSERT_TRUE(pinned.ok()) << pinned.status().message();
  EXPECT_EQ(pinned->best.sharding, "ulysses=ulysses,tp=ulysses@cross_attn+ffn");
  EXPECT_EQ(pinned->best.per_part, "tp=ulysses@cross_attn+ffn");
  EXPECT_FALSE(pinned->best.expressible_in_xdit);
  EXPECT_GT(pinned->best.step_latency.value(), 0);
  // The tensors it reports carry the transitions: the FFN's hidden activation
  // split on its width, the stream on the sequence.
  bool hidden = false, stream = false;
  for (const TensorSpec& t : pinned->best.tensors) {
    if (t.name.find("'blocks.0.ffn.1'") != std::string::npos) {
      hidden = t.spec == std::vector<std::vector<std::string>>{{}, {}, {"ulysses"}};
    }
    if (t.name.find("'blocks.0.ffn.residual'") != std::string::npos) {
      stream = t.spec == std::vector<std::vector<std::string>>{{}, {"ulysses"}, {}};
    }
  }
  EXPECT_TRUE(hidden);
  EXPECT_TRUE(stream);
}

}  // namespace
}  // namespace az::search
