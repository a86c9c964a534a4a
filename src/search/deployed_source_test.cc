// The deployed source (sources.h, deployed_source.cc): the plan's `deployed`
// baseline is exactly what Evaluate prices for the repository's recipe under
// the default placement, and when there is none the note says why, with the
// numbers.
#include <gtest/gtest.h>

#include <cstdio>

#include "search/evaluate.h"
#include "search/planner.h"
#include "search/sources.h"
#include "search/testing.h"

namespace az::search {

std::unique_ptr<Source> DeployedSource();  // deployed_source.cc

namespace {

using search_test::Config;
using search_test::Topo;

PlanOptions Options(const hw::Topology& t) {
  PlanOptions o = search_test::Options(t);
  o.stages = false;
  o.alpa = false;
  o.search_placement = false;
  return o;
}

Evaluated EvaluateDefault(const workload::Workload& config, const std::string& text, const hw::Topology& t) {
  auto combo = ParseCombo(text, t.num_chips());
  EXPECT_TRUE(combo.ok()) << combo.status().message();
  auto candidate = ComboCandidate(config, *combo, 0, Options(t));
  EXPECT_TRUE(candidate.ok()) << candidate.status().message();
  return Evaluate(*candidate, t, EvaluateOptions{Options(t).calibration, ""}, PlacementPolicy{});
}

// The plan's deployed baseline against Evaluate of `combo` (the recipe
// derived by hand) under the default placement.
void ExpectDeployedIs(const workload::Workload& config, const hw::Topology& t, const std::string& combo,
                      const std::string& command) {
  auto plan = MakePlan(config, t, Options(t));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const Configuration* deployed = plan->Find("deployed");
  ASSERT_NE(deployed, nullptr) << plan->NoteOf("deployed");
  Evaluated e = EvaluateDefault(config, combo, t);
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  EXPECT_EQ(deployed->step_latency.value(), e.default_latency);
  EXPECT_EQ(deployed->evidence_hash, evidence::HashOf(e.compiled.evidence));
  EXPECT_EQ(deployed->placement, e.default_placement);
  EXPECT_TRUE(deployed->default_order);
  EXPECT_FALSE(deployed->seeded);
  EXPECT_EQ(deployed->description, command + " (" + combo + ")");
  // Listed after the expert, before the others; never faster than the plan.
  ASSERT_GE(plan->baselines.size(), 2u);
  EXPECT_EQ(plan->baselines[0].label, "expert");
  EXPECT_EQ(plan->baselines[1].label, "deployed");
  EXPECT_LE(plan->best.step_latency.value(), deployed->step_latency.value());
}

// Wan 1.3B (12 heads) on 8 H100s: 8 does not divide 12, so Ring 8 (the
// README), FSDP over the 8 (generate.py --dit_fsdp). Wan 14B (40 heads) on
// two machines of 8 H100s: Ulysses 8 in each, Ring 2 over them.
TEST(Deployed, WanOnGpusIsPricedByEvaluate) {
  ExpectDeployedIs(Config("wan2.1-t2v-1.3b", 832, 480, 17), Topo("h100:8"), "ring=8,fsdp=8",
                   "--ring_size 8 --dit_fsdp");
  ExpectDeployedIs(Config("wan2.1-t2v-14b", 832, 480, 17), Topo("h100:2x8:efa"), "ulysses=8,ring=2,fsdp=16",
                   "--ulysses_size 8 --ring_size 2 --dit_fsdp");
}

// On a v5e:2x4 slice: MaxDiffusion's default, the sequence over the 8 chips
// with K and V gathered and the weights over them (context=8,fsdp=8).
TEST(Deployed, WanOnTpusIsMaxDiffusionsDefault) {
  ExpectDeployedIs(Config("wan2.1-t2v-1.3b", 832, 480, 17), Topo("v5e:2x4"), "context=8,fsdp=8",
                   "ici_data_parallelism=1 ici_fsdp_parallelism=8 ici_tensor_parallelism=1 attention=flash");
}

// A context with the grid but nothing ranked (the recipe pruned away).
SearchContext Context(const workload::Workload& config, const hw::Topology& t) {
  SearchContext ctx;
  ctx.config = config;
  ctx.topology = &t;
  ctx.options = Options(t);
  ctx.evaluate.calibration = ctx.options.calibration;
  auto heads = AttentionHeads(config);
  EXPECT_TRUE(heads.ok());
  ctx.combos = EnumerateCombos(config, t.num_chips(), *heads);
  return ctx;
}

// HunyuanVideo (no FSDP in its recipe: 12.8e9 bf16 parameters, 25.6 GB, on
// every chip, 23.9 GiB) on 24 GB (22.35 GiB) RTX 4090s: Ulysses 8 does not fit. The note gives the
// compiled peak and the HBM.
TEST(Deployed, TheNoteSaysWhyItDoesNotFit) {
  hw::Topology t = Topo("rtx4090:8");
  workload::Workload config = Config("hunyuanvideo-13b", 256, 256, 9);  // 16 x 16 patches: 8 divides them
  SearchContext ctx = Context(config, t);
  std::unique_ptr<Source> deployed = DeployedSource();
  EXPECT_EQ(deployed->label(), "deployed");
  // Not among the feasible: nothing proposed.
  EXPECT_TRUE(deployed->Propose(ctx).empty());
  auto pick = deployed->Choose(ctx);
  ASSERT_TRUE(pick.ok()) << pick.status().message();
  EXPECT_FALSE(pick->evaluated.has_value());
  Evaluated e = EvaluateDefault(config, "ulysses=8", t);
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  const double peak = static_cast<double>(e.compiled.evidence.peak_memory.value());
  EXPECT_GT(peak, 24e9);
  char expected[200];
  std::snprintf(expected, sizeof expected,
                "--ulysses-degree 8 --ring-degree 1 (ulysses=8) does not fit: its compiled peak is %.2f GiB per "
                "chip, over the 22.35 GiB of HBM",
                peak / (1024.0 * 1024.0 * 1024.0));
  EXPECT_EQ(pick->note, expected);
}

// The recipe's sequence split refused by the deployed code: HunyuanVideo at
// 720x720 has 45 x 45 patches, and 8 divides neither (reference/models.md
// §4.2: 720x720 runs only sp 3 and 5). No recipe published: a model whose
// repository has none. A training step on GPUs: MaxDiffusion's training
// README, the one published training recipe, runs TPUs.
TEST(Deployed, TheNoteSaysWhyThereIsNone) {
  hw::Topology t = Topo("h100:8");
  std::unique_ptr<Source> deployed = DeployedSource();
  SearchContext square = Context(Config("hunyuanvideo-13b", 720, 720, 9), t);
  auto pick = deployed->Choose(square);
  ASSERT_TRUE(pick.ok());
  EXPECT_FALSE(pick->evaluated.has_value());
  EXPECT_EQ(pick->note.rfind("--ulysses-degree 8 --ring-degree 1 (ulysses=8) does not run here: HunyuanVideo's "
                             "sequence parallelism splits the latent along patch rows or columns, and neither its 45 "
                             "rows nor its 45 columns",
                             0),
            0u)
      << pick->note;
  SearchContext cog = Context(Config("cogvideox-2b", 720, 480, 9), t);
  pick = deployed->Choose(cog);
  ASSERT_TRUE(pick.ok());
  EXPECT_EQ(pick->note.rfind("none published: cogvideox-2b", 0), 0u) << pick->note;
  SearchContext train = Context(Config("wan2.1-t2v-14b", 256, 256, 9), t);
  train.options.train = TrainPlanOptions{};
  train.options.train->micro_batch = 8;
  pick = deployed->Choose(train);
  ASSERT_TRUE(pick.ok());
  EXPECT_EQ(pick->note.rfind("none published for GPUs: wan2.1-t2v-14b's training recipe is MaxDiffusion's", 0), 0u)
      << pick->note;
}

// A training step of Wan 2.1 14B on v5p:2x2x1 at a batch of 1: MaxDiffusion's
// training README (recipes.cc), the sequence and the weights over the 4 chips
// (context=4,fsdp=4) with remat offload pinned, joins the grid as written
// (Source::Contribute) and is priced like every candidate: its latency is
// Evaluate's of that combination under the default placement.
TEST(Deployed, WanTrainingIsMaxDiffusionsReadme) {
  hw::Topology t = Topo("v5p:2x2x1");
  workload::Workload config = Config("wan2.1-t2v-14b", 256, 256, 9);
  PlanOptions options = Options(t);
  options.train = TrainPlanOptions{};
  options.train->micro_batch = 1;
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const Configuration* deployed = plan->Find("deployed");
  ASSERT_NE(deployed, nullptr) << plan->NoteOf("deployed");
  EXPECT_EQ(deployed->description,
            "ici_data_parallelism=1 ici_fsdp_parallelism=4 ici_tensor_parallelism=1 attention=flash "
            "remat_policy=HIDDEN_STATE_WITH_OFFLOAD per_device_batch_size=0.25 (context=4,fsdp=4,remat=offload)");
  auto combo = ParseCombo("context=4,fsdp=4,remat=offload", 4);
  ASSERT_TRUE(combo.ok()) << combo.status().message();
  // The step the planner prices (planner.cc): the micro-batch, no CFG.
  workload::Workload step = config;
  step.batch = 1;
  step.cfg = workload::CfgMode::kNone;
  auto candidate = ComboCandidate(step, *combo, 0, options);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  Evaluated e = Evaluate(*candidate, t, EvaluateOptions{options.calibration, ""}, PlacementPolicy{});
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  EXPECT_EQ(deployed->step_latency.value(), e.default_latency);
  EXPECT_EQ(deployed->evidence_hash, evidence::HashOf(e.compiled.evidence));
  EXPECT_TRUE(deployed->default_order);
  EXPECT_LE(plan->best.step_latency.value(), deployed->step_latency.value());
}

}  // namespace
}  // namespace az::search
