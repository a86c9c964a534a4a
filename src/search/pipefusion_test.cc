// PipeFusion (pipefusion.h, pipeline_schedule.h): the schedule's slots by
// hand, the combinations' text, the errors, and one case derived by hand from
// the priced stage program (memory per chip and step latency).
#include "search/pipefusion.h"

#include <gtest/gtest.h>

#include "search/sources.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::DitOptions;
using search_test::Topo;


// Bytes of the parameters a graph declares.
int64_t ParameterBytes(const pir::Graph& graph) {
  int64_t bytes = 0;
  for (const pir::Value& v : graph.values()) {
    if (v.role == pir::ValueRole::kParameter) bytes += v.type.NumBytes();
  }
  return bytes;
}

TEST(PipelineSchedule, SlotsByHand) {
  // P = M = 2, F = 2 (two-pass CFG), S = 10, W = 1. Warm-up: W x F x P x M =
  // 1 x 2 x 2 x 2 = 8 slots. Pipelined (M >= P, the ring never waits):
  // F x (S - W) x M + P - 1 = 2 x 9 x 2 + 1 = 37 slots. 45 in all.
  EXPECT_EQ(PipelineSlots({2, 2, 1}, 2, 10), 45);
  // P = 4, M = 2 (fewer patches than stages), F = 1, S = 3, no warm-up: the
  // patches enter at 0, 1, then wait for the ring (patch 0 leaves the last
  // stage at 4): 4, 5, 8, 9; the last leaves at 9 + 4 = 13.
  EXPECT_EQ(PipelineSlots({4, 2, 0}, 1, 3), 13);
  // Every step a warm-up step: S x F x P x M = 2 x 1 x 4 x 4.
  EXPECT_EQ(PipelineSlots({4, 4, 5}, 1, 2), 32);
  // No pipeline: one slot per forward.
  EXPECT_EQ(PipelineSlots({1, 1, 0}, 2, 10), 20);
  // Per step: 45 slots of 2 ms over 10 steps.
  EXPECT_DOUBLE_EQ(PipelineStepLatency({2, 2, 1}, 2, 10, 2e-3), 45 * 2e-3 / 10);
}

TEST(PipeFusionCombo, RoundTrips) {
  for (const char* text : {"pipefusion=2,ulysses=4", "pipefusion=4,ring=2", "pipefusion=8"}) {
    auto combo = ParseCombo(text, 8);
    ASSERT_TRUE(combo.ok()) << combo.status().message();
    EXPECT_EQ(combo->ToString(), text);
    auto again = ParseCombo(combo->ToString(), 8);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *combo);
  }
  auto combo = ParseCombo("cfg=2,ring=2,pipefusion=2", 8);
  ASSERT_TRUE(combo.ok()) << combo.status().message();
  EXPECT_EQ(combo->ToString(), "pipefusion=2,ring=2,cfg=2");
  EXPECT_EQ(combo->Id(), "pipefusion2-ring2-cfg2");
  // xDiT's rank order, slowest first: cfg, then the pipeline, then sp.
  EXPECT_EQ(combo->MeshText(), "cfg=2,pipefusion=2,ring=2");
  EXPECT_EQ(combo->AxisRoles(), (std::vector<std::string>{"cfg", "pipefusion", "ring"}));
  // No strategy binds the stages' axis.
  EXPECT_EQ(combo->Template(), "cfg=cfg,ring=ring");
  EXPECT_EQ(ParseCombo("pipefusion=8", 8)->Template(), "replicated");
}

TEST(PipeFusionCombo, BadInput) {
  for (const char* text : {"pipefusion=2,tp=4", "pipefusion=2,dp=4", "pipefusion=2,context=4",
                           "pipefusion=2,ulysses=4,fsdp=8"}) {
    auto combo = ParseCombo(text, 8);
    ASSERT_FALSE(combo.ok()) << text;
    EXPECT_NE(combo.status().message().find("pipefusion combines with ulysses, ring and cfg only"), std::string::npos)
        << combo.status().message();
  }
  EXPECT_FALSE(ParseCombo("pipefusion=0,ulysses=8", 8).ok());
  EXPECT_FALSE(ParseCombo("pipefusion=2,ulysses=2", 8).ok());  // 4 of 8 chips

  const workload::Workload wan = Config("wan2.1-t2v-1.3b", 256, 256, 5);
  // 30 blocks do not cut into 4 stages.
  Status four = CheckPipeFusion(wan, *ParseCombo("pipefusion=4,ulysses=2", 8), false);
  EXPECT_NE(four.message().find("pipefusion=4 does not divide the 30 block units"), std::string::npos)
      << four.message();
  EXPECT_FALSE(CheckPipeFusion(wan, *ParseCombo("pipefusion=2,ulysses=4", 8), true).ok());  // training
  Status hunyuan =
      CheckPipeFusion(Config("hunyuanvideo-13b", 256, 256, 5), *ParseCombo("pipefusion=2,ulysses=4", 8), false);
  EXPECT_NE(hunyuan.message().find("is not built as PipeFusion patches"), std::string::npos) << hunyuan.message();
  // 32 x 32 pixels: a 4 x 4 latent, 2 token rows, fewer than 5 patches.
  hw::Topology five = Topo("h100:8");
  auto tiny = PipeFusionCandidate(Config("wan2.1-t2v-1.3b", 32, 32, 5), *ParseCombo("pipefusion=5", 5), 0,
                                  DitOptions(five));
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.status().message().find("the latent has 2 token rows, at least one per patch"), std::string::npos)
      << tiny.status().message();
  // The planner refuses a pinned one with the template named.
  PlanOptions pinned = DitOptions(five);
  pinned.pinned = "pipefusion=4,ulysses=2";
  auto plan = MakePlan(wan, five, pinned);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("--template 'pipefusion=4,ulysses=2': pipefusion=4 does not divide"),
            std::string::npos)
      << plan.status().message();
}

// In the plan's grid; not in the expert's for Wan, whose xDiT examples assert
// a PipeFusion degree of 1 (workload.h: DeployedDegrees::pipefusion).
TEST(PipeFusionCombo, InTheGridNotInWansExpertGrid) {
  const workload::Workload wan = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  ASSERT_FALSE(wan.DeployedParallelism().pipefusion);
  std::vector<std::string> pipelines;
  for (const Combo& c : EnumerateCombos(wan, 8, 12)) {
    if (c.pipefusion > 1) {
      pipelines.push_back(c.ToString());
      EXPECT_FALSE(RunsAsExpert(wan, c)) << c.ToString();
    }
  }
  // 30 blocks: 2 stages (15 blocks each) only; cfg x ulysses x ring on the
  // other 4 chips, Ulysses dividing the 12 heads.
  EXPECT_EQ(pipelines, (std::vector<std::string>{"pipefusion=2,ring=4", "pipefusion=2,ulysses=2,ring=2",
                                                 "pipefusion=2,ulysses=4", "pipefusion=2,ring=2,cfg=2",
                                                 "pipefusion=2,ulysses=2,cfg=2"}));
  for (const Combo& c : EnumerateCombos(Config("hunyuanvideo-13b", 256, 256, 5), 8, 24)) EXPECT_EQ(c.pipefusion, 1);
}

// Wan 2.1 T2V-1.3B at 256 x 256, 5 frames, 10 steps, two-pass CFG, on h100:8
// as pipefusion=2,ulysses=4, derived by hand from the priced stage program.
//
// The latent: 2 frames x 32 x 32, so 2 x 16 x 16 = 512 tokens in 16 token
// rows. M = P = 2 patches of 8 rows: 256 tokens each; the other 256 tokens'
// K and V are the stale inputs. A stage holds 30 / 2 = 15 blocks.
//
// Memory per chip. Weights: the stage's 15 blocks and the embeddings and head
// every stage program carries (Ulysses replicates weights). With B = the
// bytes of one block (the 2-block model's minus the 1-block model's) and E =
// the rest (the 1-block model's minus B): E + 15 B, against E + 30 B for the
// whole model. The K/V buffer: per block 2 (K, V) x 256 stale tokens x 12
// heads x 128 x 2 bytes (bf16) = 1,572,864 bytes, over the 4 Ulysses ranks
// by heads: 393,216; x 15 blocks = 5,898,240 bytes, live for the whole slot.
//
// The send: the hidden state after the 15th block, [1, 256, 1536] f32,
// sequence-split over the 4 Ulysses ranks: 64 x 1536 x 4 = 393,216 bytes, from
// each device of stage 0 (logical ids 0-3) to the same Ulysses rank of stage
// 1 (ids 4-7).
//
// Latency: slot = the simulated stage program (send included); the step is
// 45 slots / 10 steps (PipelineSchedule.SlotsByHand: P = M = 2, F = 2, W = 1).
TEST(PipeFusion, HandDerivedCase) {
  hw::Topology t = Topo("h100:8");
  workload::Workload wan = Config("wan2.1-t2v-1.3b", 256, 256, 5);
  wan.steps = 10;
  PlanOptions options = DitOptions(t);
  const Combo combo = *ParseCombo("pipefusion=2,ulysses=4", 8);
  auto candidate = ComboCandidate(wan, combo, 0, options);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  EXPECT_EQ(candidate->step.pipeline, (PipelineShape{2, 2, 1}));
  EXPECT_EQ(candidate->step.forwards, 2);

  workload::Workload one = wan, two = wan;
  one.depth_units = 1;
  two.depth_units = 2;
  const int64_t block = ParameterBytes(*two.Forward()) - ParameterBytes(*one.Forward());
  const int64_t rest = ParameterBytes(*one.Forward()) - block;

  Evaluated e = Evaluate(*candidate, t, EvaluateOptions{options.calibration, ""}, PlacementPolicy{});
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  const evidence::Evidence& evidence = e.compiled.evidence;
  EXPECT_EQ(evidence.parameter_bytes.value(), rest + 15 * block);
  EXPECT_LT(2 * evidence.parameter_bytes.value(), rest + 30 * block + 2 * rest);  // about half the model
  // The K/V buffer is among the inputs live at the peak.
  EXPECT_GE(evidence.memory.inputs.value(), 5'898'240);
  int64_t stale = 0;
  const pir::Graph& graph = *candidate->program;
  for (pir::ValueId v = 0; v < graph.num_values(); ++v) {
    const std::string& name = graph.value(v).name;
    if (name.find(".self_attn.stale_") == std::string::npos) continue;
    const auto& dims = e.compiled.sharding.values[static_cast<size_t>(v)].dims;
    int64_t split = 1;
    for (const auto& dim : dims) {
      for (int axis : dim) split *= candidate->mesh.axis_size(axis);
    }
    stale += graph.value(v).type.NumBytes() / split;
  }
  EXPECT_EQ(stale, 5'898'240);

  // The send, as a real collective-permute.
  const evidence::CollectiveRecord* send = nullptr;
  for (const auto& c : evidence.collectives) {
    if (c.name == "pipefusion-send") send = &c;
  }
  ASSERT_NE(send, nullptr);
  EXPECT_EQ(send->kind, cir::CollectiveKind::kCollectivePermute);
  EXPECT_EQ(send->bytes.value(), 393'216);
  EXPECT_EQ(send->pairs, (std::vector<std::pair<int, int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));

  // The slot is the simulated program under the default placement, and the
  // step the pipeline's: 45 slots over 10 steps.
  auto breakdown = Breakdown(e.compiled, t, options.calibration, e.default_placement, false);
  ASSERT_TRUE(breakdown.ok());
  // (Simulate sums the timeline in another order than Latency: the last bits differ.)
  EXPECT_NEAR(e.forward_s, breakdown->latency.value(), 1e-12 * e.forward_s);
  EXPECT_DOUBLE_EQ(e.default_latency, 45 * e.forward_s / 10);

  // The send is priced: the same program without it is faster.
  Candidate no_send = *candidate;
  no_send.step.pipeline = {};
  Evaluated without = Evaluate(no_send, t, EvaluateOptions{options.calibration, ""}, PlacementPolicy{});
  ASSERT_TRUE(without.status.ok());
  EXPECT_LT(without.forward_s, e.forward_s);

  // The plan reports it, with the degrees.
  options.pinned = "pipefusion=2,ulysses=4";
  options.search_placement = false;
  auto plan = MakePlan(wan, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->best.step_latency.value(), e.default_latency);
  EXPECT_EQ(plan->best.pipefusion, 2);
  EXPECT_EQ(plan->best.pipeline_patches, 2);
  EXPECT_EQ(plan->best.pipeline_warmup_steps, 1);
  EXPECT_EQ(plan->best.axis_roles, (std::vector<std::string>{"pipefusion", "ulysses"}));
}

}  // namespace
}  // namespace az::search
