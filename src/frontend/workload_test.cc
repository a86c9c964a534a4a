// The two frontends behind workload/workload.h: a zoo model's workload builds
// what the zoo builds for the same configuration, with the fields the search
// changes (batch, CFG mode, noise experts, depth) taken from the workload; an
// imported program's workload is its program, one block unit, nothing else.
#include <gtest/gtest.h>

#include "frontend/import/program_load.h"
#include "frontend/models.h"
#include "frontend/zoo/stages.h"
#include "frontend/zoo/zoo.h"
#include "pir/analysis/summary.h"
#include "pir/text/printer.h"

namespace az::frontend {
namespace {

workload::ModelOptions Wan480(int64_t frames) {
  return {.width = 832, .height = 480, .frames = frames};
}

TEST(ZooWorkload, CarriesTheResolvedConfiguration) {
  auto w = ZooWorkload("wan2.2-t2v-a14b", Wan480(17));
  ASSERT_TRUE(w.ok()) << w.status().message();
  auto config = zoo::ResolveConfig("wan2.2-t2v-a14b", Wan480(17));
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(w->model, "wan2.2-t2v-a14b");
  EXPECT_EQ(w->width, 832);
  EXPECT_EQ(w->height, 480);
  EXPECT_EQ(w->frames, 17);
  EXPECT_EQ(w->steps, config->steps);
  EXPECT_EQ(w->cfg, workload::CfgMode::kTwoPass);  // Wan's default (zoo.cc registry)
  EXPECT_EQ(w->noise_experts, 2);                   // a high-noise and a low-noise expert
  EXPECT_EQ(w->noise_switch_step, config->expert_switch_step);
  EXPECT_FALSE(w->imported());
  EXPECT_EQ(w->DepthUnits(), 40);  // 40 blocks, one per unit
  // 832 x 480, 17 frames: 5 latent frames x 30 x 52 patches = 7,800 tokens.
  EXPECT_EQ(w->Tokens().video, 7'800);
}

TEST(ZooWorkload, GraphsAreTheZoosForTheSameConfiguration) {
  auto w = ZooWorkload("wan2.1-t2v-1.3b", Wan480(17));
  ASSERT_TRUE(w.ok());
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", Wan480(17));
  ASSERT_TRUE(config.ok());
  auto forward = w->Forward();
  auto zoo_forward = zoo::BuildForward(*config);
  ASSERT_TRUE(forward.ok() && zoo_forward.ok());
  EXPECT_EQ(pir::PrintGraph(*forward), pir::PrintGraph(*zoo_forward));
  auto step = w->Step();
  auto zoo_step = zoo::BuildStep(*config);
  ASSERT_TRUE(step.ok() && zoo_step.ok());
  EXPECT_EQ(pir::PrintGraph(*step), pir::PrintGraph(*zoo_step));
  ASSERT_EQ(w->Stages().size(), zoo::StagesOf(*config).size());
  for (const workload::StageInfo& stage : w->Stages()) {
    auto graph = w->Stage(stage.name);
    auto zoo_graph = zoo::BuildStage(*config, stage.name);
    ASSERT_TRUE(graph.ok() && zoo_graph.ok()) << stage.name;
    EXPECT_EQ(pir::SummarizeGraph(*graph).num_params, pir::SummarizeGraph(*zoo_graph).num_params) << stage.name;
  }
}

TEST(ZooWorkload, GraphsFollowTheFieldsTheSearchChanges) {
  auto w = ZooWorkload("wan2.1-t2v-1.3b", Wan480(17));
  ASSERT_TRUE(w.ok());
  workload::Workload one = *w;
  one.depth_units = 1;
  one.cfg = workload::CfgMode::kBatch2;
  one.batch = 3;
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", Wan480(17));
  ASSERT_TRUE(config.ok());
  config->depth_units = 1;
  config->cfg = workload::CfgMode::kBatch2;
  config->batch = 3;
  auto forward = one.Forward();
  auto zoo_forward = zoo::BuildForward(*config);
  ASSERT_TRUE(forward.ok() && zoo_forward.ok());
  EXPECT_EQ(pir::PrintGraph(*forward), pir::PrintGraph(*zoo_forward));
  // batch2 runs one forward on the concatenated batch: 2 x 3 samples.
  EXPECT_EQ(forward->attrs().GetInt("batch"), 3);
  EXPECT_EQ(forward->type(forward->outputs()[0]).shape[0], 6);  // the velocity of the 6 rows
  // The workload it came from is untouched (a value).
  EXPECT_EQ(w->depth_units, 0);
  EXPECT_EQ(w->batch, 1);
}

TEST(ProgramWorkload, IsItsProgramAndNothingElse) {
  auto block = ZooWorkload("wan2.1-t2v-1.3b", Wan480(17));
  ASSERT_TRUE(block.ok());
  block->depth_units = 1;
  auto graph = block->Forward();
  ASSERT_TRUE(graph.ok());
  const workload::Workload w = ProgramWorkload("block.mlir", *graph, 30);
  EXPECT_TRUE(w.imported());
  EXPECT_EQ(w.model, "block.mlir");
  EXPECT_EQ(w.width, 0);
  EXPECT_EQ(w.steps, 30);
  EXPECT_EQ(w.cfg, workload::CfgMode::kNone);
  EXPECT_EQ(w.DepthUnits(), 1);
  // The tokens are the graph's attributes (the zoo wrote them: 7,800 above).
  EXPECT_EQ(w.Tokens().video, 7'800);
  // Its forward is the program, whatever depth or CFG mode the search sets.
  workload::Workload changed = w;
  changed.depth_units = 5;
  changed.cfg = workload::CfgMode::kBatch2;
  auto forward = changed.Forward();
  ASSERT_TRUE(forward.ok());
  EXPECT_EQ(pir::PrintGraph(*forward), pir::PrintGraph(*graph));
  // No step, no training step, no stages; the deployment rules are the defaults.
  auto step = w.Step();
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().message(), "'block.mlir' is an imported program: it has a forward, not a denoising step");
  auto train = w.TrainStep({});
  ASSERT_FALSE(train.ok());
  EXPECT_EQ(train.status().message(), "'block.mlir' is an imported program: training steps are built for zoo models");
  EXPECT_TRUE(w.Stages().empty());
  auto stage = w.Stage("wan-vae-decoder");
  ASSERT_FALSE(stage.ok());
  EXPECT_NE(stage.status().message().find("no pipeline stages"), std::string::npos) << stage.status().message();
  EXPECT_FALSE(w.StageTileRuns("wan-vae-decoder").ok());
  EXPECT_TRUE(w.DeployedSequenceSplit(7).ok());
  EXPECT_TRUE(w.DeployedParallelism().cfg);
  EXPECT_FALSE(w.DeployedParallelism().tp);
  EXPECT_EQ(w.DeployedAttentionLibrary().gpu, "fa2");
}

TEST(ZooWorkload, UnknownModelIsAnError) {
  auto w = ZooWorkload("no-such-model", {});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("wan2.1-t2v-14b"), std::string::npos) << w.status().message();
}

}  // namespace
}  // namespace az::frontend
