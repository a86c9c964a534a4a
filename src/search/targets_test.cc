// Targets (targets.h): the grid offers only what the target runs, and the
// plan's best is a configuration it runs.
#include "search/targets.h"

#include <gtest/gtest.h>

#include "search/planner.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::Topo;

TEST(Targets, ParseAndName) {
  for (Target t : {Target::kAny, Target::kJax, Target::kMaxDiffusion, Target::kXdit}) {
    auto parsed = ParseTarget(TargetName(t));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, t);
  }
  auto bad = ParseTarget("tensorrt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown target 'tensorrt' (any, jax, maxdiffusion, xdit)"),
            std::string::npos);
}

TEST(Targets, Admits) {
  workload::Workload wan = Config("wan2.1-t2v-14b", 1280, 720, 81);  // two-pass CFG, batch 1, 40 heads
  auto combo = [](const char* text) { return *ParseCombo(text, 8); };
  // JAX: no ring (GSPMD all-gathers K and V: the context form), the rest runs.
  EXPECT_FALSE(TargetAdmits(Target::kJax, wan, combo("ring=8")).ok());
  EXPECT_FALSE(TargetAdmits(Target::kJax, wan, combo("ulysses=4,ring=2")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kJax, wan, combo("context=8")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kJax, wan, combo("ulysses=4,cfg=2")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kJax, wan, combo("tp=4,cfg=2")).ok());
  // MaxDiffusion: CFG as a batch-2 forward on data: data 2 fills it, data 4
  // (dp 2 x cfg 2) does not; ring, Ulysses and TP run.
  EXPECT_TRUE(TargetAdmits(Target::kMaxDiffusion, wan, combo("ring=4,cfg=2")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kMaxDiffusion, wan, combo("tp=8")).ok());
  workload::Workload two = wan;
  two.batch = 2;
  EXPECT_TRUE(TargetAdmits(Target::kMaxDiffusion, two, *ParseCombo("dp=2,cfg=2,ring=2", 8)).ok());
  workload::Workload unguided = two;
  unguided.cfg = workload::CfgMode::kNone;
  unguided.batch = 1;
  EXPECT_FALSE(TargetAdmits(Target::kMaxDiffusion, unguided, *ParseCombo("cfg=2,ring=4", 8)).ok());
  // xDiT: the deployed vocabulary (no TP, no dp, no context for Wan).
  EXPECT_TRUE(TargetAdmits(Target::kXdit, wan, combo("ulysses=4,ring=2")).ok());
  EXPECT_FALSE(TargetAdmits(Target::kXdit, wan, combo("tp=4,cfg=2")).ok());
  EXPECT_FALSE(TargetAdmits(Target::kXdit, wan, combo("context=8")).ok());
  // Seeds: what JAX expresses with sharding constraints, not MaxDiffusion's or xDiT's flags.
  EXPECT_TRUE(TargetAdmitsSeeds(Target::kJax));
  EXPECT_FALSE(TargetAdmitsSeeds(Target::kXdit));
  EXPECT_FALSE(TargetAdmitsSeeds(Target::kMaxDiffusion));
}

// `any` on a TPU slice (kAnyTpu): what JAX or MaxDiffusion runs. Ring runs
// under MaxDiffusion, a per-part hybrid on a Ulysses axis under JAX; a hybrid
// on a ring axis under neither (the error gives both reasons), nor a deeper
// FSDP prefetch (FSDP2 only). On GPUs `any` stays every configuration.
TEST(Targets, AnyOnATpuIsWhatATpuRuntimeRuns) {
  EXPECT_EQ(ResolveTarget(Target::kAny, /*tpu=*/true), Target::kAnyTpu);
  EXPECT_EQ(ResolveTarget(Target::kAny, /*tpu=*/false), Target::kAny);
  EXPECT_EQ(ResolveTarget(Target::kJax, /*tpu=*/true), Target::kJax);
  EXPECT_EQ(TargetName(Target::kAnyTpu), "any");
  workload::Workload wan = Config("wan2.1-t2v-14b", 1280, 720, 81);
  auto combo = [](const char* text) { return *ParseCombo(text, 8); };
  EXPECT_TRUE(TargetAdmits(Target::kAnyTpu, wan, combo("ring=4,cfg=2")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kAnyTpu, wan, combo("ulysses=4,cfg=2,tp=ulysses@ffn")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kAnyTpu, wan, combo("ulysses=4,cfg=2,ulysses_chunks=2")).ok());
  Status ring_hybrid = TargetAdmits(Target::kAnyTpu, wan, combo("ring=4,cfg=2,tp=ring@ffn"));
  ASSERT_FALSE(ring_hybrid.ok());
  EXPECT_NE(ring_hybrid.message().find("no TPU runtime runs ring=4,cfg=2,tp=ring@ffn as priced: under JAX, JAX "
                                       "lowers a sequence-sharded K and V as an all-gather"),
            std::string::npos)
      << ring_hybrid.message();
  EXPECT_NE(ring_hybrid.message().find("under MaxDiffusion, MaxDiffusion's config names one sharding"),
            std::string::npos)
      << ring_hybrid.message();
  EXPECT_FALSE(TargetAdmits(Target::kAnyTpu, wan, combo("ring=4,cfg=2,fsdp=8,prefetch=2")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kAny, wan, combo("ring=4,cfg=2,fsdp=8,prefetch=2")).ok());
  EXPECT_TRUE(TargetAdmits(Target::kAny, wan, combo("ring=4,cfg=2,tp=ring@ffn")).ok());
  EXPECT_TRUE(TargetAdmitsSeeds(Target::kAnyTpu));
}

TEST(Targets, Runs) {
  workload::Workload wan = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  EXPECT_FALSE(TargetRuns(Target::kMaxDiffusion, wan, /*tpu=*/false).ok());
  EXPECT_TRUE(TargetRuns(Target::kMaxDiffusion, wan, /*tpu=*/true).ok());
  EXPECT_FALSE(TargetRuns(Target::kXdit, wan, /*tpu=*/true).ok());
  workload::Workload hunyuan = Config("hunyuanvideo-13b", 960, 544, 33);
  Status none = TargetRuns(Target::kMaxDiffusion, hunyuan, /*tpu=*/true);
  EXPECT_NE(none.message().find("no text-to-video config for hunyuanvideo-13b"), std::string::npos);
  EXPECT_EQ(MaxDiffusionConfigFile("wan2.1-t2v-14b"), "src/maxdiffusion/configs/base_wan_14b.yml");
  EXPECT_EQ(MaxDiffusionConfigFile("wan2.2-t2v-a14b"), "src/maxdiffusion/configs/base_wan_27b.yml");
}

// Under --target jax the best has no ring, whatever any would pick; under
// --target xdit on a GPU node it is a configuration xDiT runs; the plan
// records the target; the baselines are still reported.
TEST(Targets, ThePlanRunsOnItsTarget) {
  hw::Topology v5e = Topo("v5e:2x4");
  workload::Workload wan = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  PlanOptions options = search_test::Options(v5e);
  options.stages = false;
  options.alpa = false;
  options.target = Target::kJax;
  auto jax = MakePlan(wan, v5e, options);
  ASSERT_TRUE(jax.ok()) << jax.status().message();
  EXPECT_EQ(jax->target, "jax");
  EXPECT_EQ(jax->best.ring, 1) << jax->best.description;
  EXPECT_NE(jax->Find("expert"), nullptr);
  hw::Topology h100 = Topo("h100:8");
  options = search_test::Options(h100);
  options.stages = false;
  options.alpa = false;
  options.target = Target::kXdit;
  auto xdit = MakePlan(wan, h100, options);
  ASSERT_TRUE(xdit.ok()) << xdit.status().message();
  EXPECT_TRUE(xdit->best.tp == 1 && xdit->best.dp == 1) << xdit->best.description;
  EXPECT_TRUE(xdit->best.expressible_in_xdit) << xdit->best.description;
  EXPECT_TRUE(xdit->best.xdit_refused.empty());
  // A pinned combination the target does not run is refused with the reason.
  options.pinned = "tp=4,cfg=2";
  auto pinned = MakePlan(wan, h100, options);
  ASSERT_FALSE(pinned.ok());
  EXPECT_NE(pinned.status().message().find("--template 'tp=4,cfg=2' under --target xdit"), std::string::npos);
}

}  // namespace
}  // namespace az::search
