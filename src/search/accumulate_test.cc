// Gradient accumulation as a candidate's knob (combos.h Combo::accumulate,
// accumulate.h): its text form and errors, the variants the planner scores,
// what the targets admit, and plans that take it.
#include "search/accumulate.h"

#include <gtest/gtest.h>

#include "search/planner.h"
#include "search/targets.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::Topo;

PlanOptions TrainOptions(const hw::Topology& t, int64_t micro_batch) {
  PlanOptions o;
  o.calibration = price::DefaultPriceCalibration(t);
  TrainPlanOptions train;
  train.micro_batch = micro_batch;
  o.train = train;
  o.alpa = false;
  return o;
}

TEST(Accumulate, ParseComboRoundTrips) {
  auto two = ParseCombo("ulysses=4,fsdp=4,accumulate=2,remat=selected", 4);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->accumulate, 2);
  EXPECT_EQ(two->ToString(), "ulysses=4,fsdp=4,accumulate=2,remat=selected");
  EXPECT_EQ(two->Id(), "ulysses4-fsdp4-accumulate2-rematselected");
  // Not a sharding: the template is the one-micro-step combination's.
  Combo one = *two;
  one.accumulate = 1;
  EXPECT_EQ(two->Template(), one.Template());
  EXPECT_EQ(two->MeshText(), one.MeshText());
  auto again = ParseCombo(two->ToString(), 4);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *two);
  // 1 is the default and is left out of the text; in any position; after
  // "replicated" on one chip.
  auto plain = ParseCombo("accumulate=1,dp=4", 4);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->ToString(), "dp=4");
  auto single = ParseCombo("replicated,accumulate=4", 1);
  ASSERT_TRUE(single.ok()) << single.status().message();
  EXPECT_EQ(single->ToString(), "replicated,accumulate=4");
  EXPECT_EQ(*ParseCombo(single->ToString(), 1), *single);
}

TEST(Accumulate, ParseComboRejectsBadCounts) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"ulysses=4,accumulate=0", "the degree must be at least 1"},
           Case{"ulysses=4,accumulate=-2", "positive integer"},
           Case{"ulysses=4,accumulate=two", "positive integer"},
           Case{"ulysses=4,accumulate=2,accumulate=2", "'accumulate' appears twice"},
           Case{"ulysses=4,accumulate=2,ulysses_chunks=2", "pipefusion and ulysses_chunks are for inference"},
           Case{"pipefusion=2,ulysses=2,accumulate=2", "pipefusion and ulysses_chunks are for inference"},
           Case{"ulysses=4,fsdp=4,accumulate=2,remat=offload", "does not combine with remat offload"},
       }) {
    auto combo = ParseCombo(c.text, 4);
    ASSERT_FALSE(combo.ok()) << c.text;
    EXPECT_NE(combo.status().message().find(c.message), std::string::npos) << c.text << ": " << combo.status().message();
  }
}

TEST(Accumulate, VariantsAreTheCountsTheDataDegreeAllowsUnderLighterRemat) {
  // Micro-batch 4: counts 2 and 4 (micro-steps of 2 and 1 samples).
  Combo sequence;  // ulysses=4,fsdp=4 (dp 1): both counts
  sequence.ulysses = 4;
  sequence.fsdp = 4;
  sequence.remat = pir::RematPolicy::kFull;
  std::vector<Combo> v = AccumulationVariants(sequence, 4);
  std::vector<std::string> names;
  for (const Combo& c : v) names.push_back(c.ToString());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "ulysses=4,fsdp=4,accumulate=2,remat=none", "ulysses=4,fsdp=4,accumulate=2,remat=selected",
                       "ulysses=4,fsdp=4,accumulate=4,remat=none", "ulysses=4,fsdp=4,accumulate=4,remat=selected"}));
  // dp=2: only 2 (4 / 4 = 1 sample does not split over 2 devices); selected: none lighter but none.
  Combo data = sequence;
  data.ulysses = 2;
  data.dp = 2;
  data.remat = pir::RematPolicy::kSelected;
  names.clear();
  for (const Combo& c : AccumulationVariants(data, 4)) names.push_back(c.ToString());
  EXPECT_EQ(names, (std::vector<std::string>{"ulysses=2,dp=2,fsdp=4,accumulate=2,remat=none"}));
  // Nothing to save: remat none, unset (inference), one sample, dp over the whole batch.
  Combo none = sequence;
  none.remat = pir::RematPolicy::kNone;
  EXPECT_TRUE(AccumulationVariants(none, 4).empty());
  none.remat.reset();
  EXPECT_TRUE(AccumulationVariants(none, 4).empty());
  EXPECT_TRUE(AccumulationVariants(sequence, 1).empty());
  Combo all_data;
  all_data.dp = 4;
  all_data.fsdp = 4;
  all_data.remat = pir::RematPolicy::kOffload;
  EXPECT_TRUE(AccumulationVariants(all_data, 4).empty());
}

TEST(Accumulate, MaxDiffusionRefusesIt) {
  workload::Workload config = Config("wan2.1-t2v-1.3b", 256, 256, 9);
  config.batch = 4;
  config.cfg = workload::CfgMode::kNone;
  auto combo = ParseCombo("ulysses=4,fsdp=4,accumulate=2", 4);
  ASSERT_TRUE(combo.ok());
  Status s = TargetAdmits(Target::kMaxDiffusion, config, *combo);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("MaxDiffusion's Wan trainer has no gradient accumulation"), std::string::npos)
      << s.message();
  EXPECT_TRUE(TargetAdmits(Target::kAny, config, *combo).ok());
  EXPECT_TRUE(TargetAdmits(Target::kJax, config, *combo).ok());
  // Never the training expert's.
  EXPECT_FALSE(TrainExpert(*combo, 4));
  combo->accumulate = 1;
  EXPECT_TRUE(TrainExpert(*ParseCombo("fsdp=4,dp=4", 4), 4));
}

TEST(Accumulate, PlannerErrors) {
  hw::Topology t = Topo("v5p:2x2x1");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 256, 256, 9);
  struct Case {
    int64_t micro_batch;
    const char* pinned;
    const char* message;
  };
  for (const Case& c : {
           Case{4, "ulysses=4,fsdp=4,accumulate=3", "accumulate=3 does not divide the micro-batch of 4 samples"},
           Case{4, "dp=4,fsdp=4,accumulate=2",
                "dp=4 does not divide the micro-batch of 4 samples / accumulate 2 = 2 per micro-step"},
       }) {
    PlanOptions options = TrainOptions(t, c.micro_batch);
    options.pinned = c.pinned;
    auto plan = MakePlan(config, t, options);
    ASSERT_FALSE(plan.ok()) << c.pinned;
    EXPECT_NE(plan.status().message().find(c.message), std::string::npos) << plan.status().message();
  }
  PlanOptions inference;
  inference.calibration = price::DefaultPriceCalibration(t);
  inference.pinned = "ulysses=4,accumulate=2";
  auto plan = MakePlan(config, t, inference);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("accumulate sums a training step's gradients over micro-steps (--train)"),
            std::string::npos)
      << plan.status().message();
}

TEST(Accumulate, PinnedAccumulationRunsLighterRemat) {
  // Wan 2.1 1.3B at 832x480x81 on v5e:2x2 (16 GiB per chip), 4 samples
  // under context=4,fsdp=4: the whole batch fits only with remat offload
  // (TrainPlanner.OffloadIsWhatFits). As 4 micro-steps of 1 sample each
  // micro-step holds a quarter of the activations, so a lighter remat fits;
  // the plan says so, and its peak fits.
  hw::Topology t = Topo("v5e:2x2");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 81);
  PlanOptions options = TrainOptions(t, 4);
  options.pinned = "context=4,fsdp=4,accumulate=4";
  options.search_placement = false;
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->best.accumulate, 4);
  EXPECT_NE(plan->best.remat, "offload");
  EXPECT_LE(plan->best.peak_memory.value(), t.chip.hbm.value());
  EXPECT_EQ(plan->batch, 4);
}

TEST(Accumulate, PlannerTakesItWhereItPays) {
  // Wan 2.1 1.3B at 832x480x81 on one H100, 8 clips a step: the whole batch
  // fits only with remat offload (the expert, MaxDiffusion's recipe, which
  // runs one micro-step per update). The survivors with remat try
  // accumulation: 8 micro-steps of one clip fit under a lighter remat, and
  // the compiled step is faster, so the plan takes it.
  hw::Topology t = Topo("h100:1");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 81);
  PlanOptions options = TrainOptions(t, 8);
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_GT(plan->best.accumulate, 1);
  EXPECT_NE(plan->best.remat, "offload");
  EXPECT_LE(plan->best.peak_memory.value(), t.chip.hbm.value());
  const Configuration* expert = plan->Find("expert");
  ASSERT_NE(expert, nullptr);
  EXPECT_EQ(expert->accumulate, 1);
  EXPECT_EQ(expert->remat, "offload");
  EXPECT_LT(plan->best.step_latency.value(), expert->step_latency.value());
  // --remat offload pins the policy: accumulation's gain is a lighter remat,
  // so the survivors try none, and the pick keeps the pinned policy.
  options.train->remat = pir::RematPolicy::kOffload;
  auto pinned = MakePlan(config, t, options);
  ASSERT_TRUE(pinned.ok()) << pinned.status().message();
  EXPECT_EQ(pinned->best.accumulate, 1);
  EXPECT_EQ(pinned->best.remat, "offload");
}

TEST(Accumulate, WhatFitsOnlyAccumulatedIsPlanned) {
  // 16 clips on one H100: no remat fits the whole batch (pinned without
  // accumulation it fails), so each combination tries micro-steps of fewer
  // clips and the plan runs one that fits.
  hw::Topology t = Topo("h100:1");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 81);
  PlanOptions options = TrainOptions(t, 16);
  options.pinned = "replicated";
  auto pinned = MakePlan(config, t, options);
  ASSERT_FALSE(pinned.ok());
  EXPECT_EQ(pinned.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(pinned.status().message().find("remat offload or full at most"), std::string::npos)
      << pinned.status().message();
  options.pinned.clear();
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_GT(plan->best.accumulate, 1);
  EXPECT_EQ(16 % plan->best.accumulate, 0);
  EXPECT_LE(plan->best.peak_memory.value(), t.chip.hbm.value());
  EXPECT_EQ(plan->batch, 16);
}

}  // namespace
}  // namespace az::search
