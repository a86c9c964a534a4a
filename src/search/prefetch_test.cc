// FSDP prefetch depth as a candidate's knob (combos.h Combo::prefetch,
// prefetch.h): its text form, its errors, what the targets admit, and what a
// deeper prefetch does to a priced program.
#include "search/prefetch.h"

#include <gtest/gtest.h>

#include "search/evaluate.h"
#include "search/planner.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::DitOptions;
using search_test::Topo;

TEST(Prefetch, ParseComboRoundTrips) {
  auto deep = ParseCombo("ulysses=4,cfg=2,fsdp=8,prefetch=3", 8);
  ASSERT_TRUE(deep.ok()) << deep.status().message();
  EXPECT_EQ(deep->prefetch, 3);
  EXPECT_EQ(deep->ToString(), "ulysses=4,cfg=2,fsdp=8,prefetch=3");
  EXPECT_EQ(deep->Id(), "ulysses4-cfg2-fsdp8-prefetch3");
  // Not a sharding: the template is the depth-1 combination's.
  Combo shallow = *deep;
  shallow.prefetch = 1;
  EXPECT_EQ(deep->Template(), shallow.Template());
  auto again = ParseCombo(deep->ToString(), 8);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *deep);
  // Depth 1 is the default and is left out of the text.
  auto one = ParseCombo("ulysses=8,fsdp=8,prefetch=1", 8);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->prefetch, 1);
  EXPECT_EQ(one->ToString(), "ulysses=8,fsdp=8");
  // With a training step's remat, before it.
  auto train = ParseCombo("dp=8,fsdp=8,prefetch=2,remat=full", 8);
  ASSERT_TRUE(train.ok());
  EXPECT_EQ(train->ToString(), "dp=8,fsdp=8,prefetch=2,remat=full");
}

TEST(Prefetch, ParseComboRejectsBadDepths) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"ulysses=8,prefetch=2", "the combination has no fsdp"},
           Case{"ulysses=8,fsdp=8,prefetch=0", "from 1 to 8"},
           Case{"ulysses=8,fsdp=8,prefetch=9", "from 1 to 8"},
           Case{"ulysses=8,fsdp=8,prefetch=two", "from 1 to 8"},
           Case{"ulysses=8,fsdp=8,prefetch=123", "from 1 to 8"},
           Case{"ulysses=8,fsdp=8,prefetch=2,prefetch=3", "'prefetch' appears twice"},
       }) {
    auto combo = ParseCombo(c.text, 8);
    ASSERT_FALSE(combo.ok()) << c.text;
    EXPECT_NE(combo.status().message().find(c.message), std::string::npos) << c.text << ": " << combo.status().message();
  }
}

TEST(Prefetch, PinsPrefetchReadsTheTemplateText) {
  EXPECT_TRUE(PinsPrefetch("ulysses=8,fsdp=8,prefetch=1"));
  EXPECT_TRUE(PinsPrefetch("prefetch=2,ulysses=8,fsdp=8"));
  EXPECT_FALSE(PinsPrefetch("ulysses=8,fsdp=8"));
  EXPECT_FALSE(PinsPrefetch(""));
}

TEST(Prefetch, OnlyTargetAnyRunsADeeperPrefetch) {
  // plan_torch.py sets it (FSDP2); XLA's scheduler has no setting for it and
  // xDiT's command line none either.
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  auto combo = ParseCombo("ulysses=4,fsdp=4,prefetch=2", 4);
  ASSERT_TRUE(combo.ok());
  EXPECT_TRUE(TargetAdmits(Target::kAny, config, *combo).ok());
  for (Target target : {Target::kJax, Target::kMaxDiffusion, Target::kXdit}) {
    Status s = TargetAdmits(target, config, *combo);
    ASSERT_FALSE(s.ok()) << TargetName(target);
    EXPECT_NE(s.message().find("prefetch"), std::string::npos) << s.message();
  }
}

Evaluated EvaluateAt(const workload::Workload& config, const hw::Topology& t, const std::string& text) {
  auto combo = ParseCombo(text, t.num_chips());
  EXPECT_TRUE(combo.ok()) << combo.status().message();
  auto candidate = ComboCandidate(config, *combo, 0, DitOptions(t));
  EXPECT_TRUE(candidate.ok()) << candidate.status().message();
  return Evaluate(*candidate, t, EvaluateOptions{DitOptions(t).calibration, ""}, PlacementPolicy{});
}

TEST(Prefetch, DeeperPrefetchHidesHeldBackGathersAtTheirMemory) {
  // Wan 2.1 14B at 256x256x9 under ring=4 with the weights over the 4 chips
  // of a v5e:2x2: at depth 1 every weight gather waits for the previous
  // collective's done, the ring's permutes included, so gathers stay
  // exposed. At depth 2 the next block's gathers run beside the current
  // block's: less exposed communication, a faster step, and one block of
  // gathered weights more at the peak (a Wan 14B block's weights, about
  // 640 MiB gathered, at most: the peak grows by less than 1 GiB).
  hw::Topology t = Topo("v5e:2x2");
  workload::Workload config = Config("wan2.1-t2v-14b", 256, 256, 9);
  Evaluated one = EvaluateAt(config, t, "ring=4,fsdp=4");
  Evaluated two = EvaluateAt(config, t, "ring=4,fsdp=4,prefetch=2");
  ASSERT_TRUE(one.status.ok() && two.status.ok());
  auto b1 = Breakdown(one.compiled, t, DitOptions(t).calibration, one.default_placement, false);
  auto b2 = Breakdown(two.compiled, t, DitOptions(t).calibration, two.default_placement, false);
  ASSERT_TRUE(b1.ok() && b2.ok());
  EXPECT_GT(b1->exposed_communication.value(), 0);
  EXPECT_LT(b2->exposed_communication, b1->exposed_communication);
  EXPECT_LT(two.default_latency, one.default_latency);
  // The same kernels and collectives, only moved.
  EXPECT_EQ(b2->compute.value(), b1->compute.value());
  EXPECT_EQ(b2->collectives, b1->collectives);
  const int64_t grown = two.compiled.evidence.peak_memory.value() - one.compiled.evidence.peak_memory.value();
  EXPECT_GT(grown, 0);
  EXPECT_LT(grown, int64_t{1} << 30);
  RecordProperty("depth1_ms", std::to_string(one.default_latency * 1e3));
  RecordProperty("depth2_ms", std::to_string(two.default_latency * 1e3));
}

TEST(Prefetch, TheGridChoosesADepthTheExpertKeepsOne) {
  // A training step on GPUs, where plan_torch.py (FSDP2) sets the depth: Wan
  // 2.1 1.3B, 2 clips of 256x256x9 on h100:2 (two survivors: the sanitizer
  // run prices every plan here at a tenth of the speed). The grid's FSDP
  // survivors price depths 2-4; the expert (MaxDiffusion's FSDP recipe, its
  // runtime's default) keeps depth 1. The pick is faster than the same plan
  // with --max-prefetch 1, holds more gathered weights, and equals Evaluate
  // at its depth under its placement.
  hw::Topology t = Topo("h100:2");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 256, 256, 9);
  PlanOptions options = search_test::Options(t);
  options.alpa = false;
  options.top_k = 2;
  options.train = TrainPlanOptions{};
  options.train->micro_batch = 2;
  auto chosen = MakePlan(config, t, options);
  options.max_prefetch = 1;
  auto shallow = MakePlan(config, t, options);
  ASSERT_TRUE(chosen.ok() && shallow.ok()) << chosen.status().message();
  EXPECT_GT(chosen->best.prefetch, 1);
  EXPECT_NE(chosen->best.description.find(",prefetch=" + std::to_string(chosen->best.prefetch)), std::string::npos);
  EXPECT_EQ(shallow->best.prefetch, 1);
  EXPECT_LT(chosen->best.step_latency, shallow->best.step_latency);
  EXPECT_GT(chosen->best.peak_memory, shallow->best.peak_memory);
  EXPECT_LE(chosen->best.peak_memory, t.chip.hbm);
  const Configuration* expert = chosen->Find("expert");
  ASSERT_NE(expert, nullptr);
  EXPECT_EQ(expert->prefetch, 1);
  EXPECT_EQ(expert->step_latency, shallow->Find("expert")->step_latency);
  auto combo = ParseCombo(chosen->best.description, t.num_chips());
  ASSERT_TRUE(combo.ok()) << combo.status().message();
  combo->remat = pir::RematPolicy::kNone;
  ASSERT_EQ(chosen->best.remat, "none");
  // The step's own batch, no CFG (planner.cc prepares the workload so).
  workload::Workload step = config;
  step.batch = 2;
  step.cfg = workload::CfgMode::kNone;
  auto candidate = ComboCandidate(step, *combo, 0, options);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  Evaluated e = Evaluate(*candidate, t, EvaluateOptions{options.calibration, ""},
                         PlacementPolicy{PlacementKind::kGiven, chosen->best.placement, {}});
  ASSERT_TRUE(e.status.ok());
  EXPECT_DOUBLE_EQ(e.best_latency, chosen->best.step_latency.value());
  EXPECT_EQ(e.compiled.evidence.peak_memory, chosen->best.peak_memory);
}

TEST(Prefetch, ATpuPlanKeepsDepthOne) {
  // On a TPU slice the plan is for JAX or MaxDiffusion (targets.h: any is
  // kAnyTpu there), whose XLA keeps one all-gather in flight: Wan 2.1 14B
  // 832x480x41 on v5e:4x4, whose FSDP survivors a GPU runtime would run
  // deeper, keeps depth 1, and a pinned depth is refused.
  hw::Topology t = Topo("v5e:4x4");
  workload::Workload config = Config("wan2.1-t2v-14b", 832, 480, 41);
  config.steps = 1;
  PlanOptions options = DitOptions(t);
  options.alpa = false;
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->best.prefetch, 1);
  EXPECT_EQ(plan->target, "any");
  options.pinned = "ulysses=2,ring=4,cfg=2,fsdp=16,prefetch=2";
  auto pinned = MakePlan(config, t, options);
  ASSERT_FALSE(pinned.ok());
  EXPECT_NE(pinned.status().message().find("a TPU slice runs XLA, which keeps one all-gather in flight"),
            std::string::npos)
      << pinned.status().message();
}

}  // namespace
}  // namespace az::search
