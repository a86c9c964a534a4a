// Planning a program that did not come from the zoo (frontend/import/program_load.h):
// the zoo's own Wan block, stripped of everything the zoo records about it,
// must be recognized (frontend/import/dit.h) and planned like the zoo model.
#include <gtest/gtest.h>

#include "frontend/import/dit.h"
#include "frontend/import/program_load.h"
#include "frontend/models.h"
#include "search/combos.h"
#include "search/planner.h"

namespace az::search {
namespace {

// The zoo's Wan 2.1 T2V-1.3B forward at 832x480, 81 frames, one block, as an
// importer would hand it over: no zoo attributes, the latent under a user's
// name. 21 x 30 x 52 = 32,760 video tokens.
StatusOr<pir::Graph> AnonymousWanForward() {
  workload::ModelOptions options;
  options.width = 832;
  options.height = 480;
  options.frames = 81;
  options.cfg = workload::CfgMode::kNone;
  AZ_ASSIGN_OR_RETURN(workload::Workload config, frontend::ZooWorkload("wan2.1-t2v-1.3b", options));
  config.depth_units = 1;
  AZ_ASSIGN_OR_RETURN(pir::Graph zoo_graph, config.Forward());
  pir::Graph g(zoo_graph.name());
  g = zoo_graph;
  g.attrs() = pir::Attributes();
  for (pir::ValueId v = 0; v < g.num_values(); ++v) {
    if (g.value(v).name == "latent") g.mutable_value(v).name = "noisy_video";
  }
  return g;
}

TEST(ProgramPlan, AnonymousWanBlockIsRecognized) {
  auto g = AnonymousWanForward();
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto notes = frontend::AnnotateDit(*g, "");
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  // The latent is found by the attention it feeds, whatever its name.
  EXPECT_EQ(g->attrs().GetString("latent_input").value_or(""), "noisy_video");
  EXPECT_EQ(g->attrs().GetInt("video_tokens").value_or(0), 32760);
  EXPECT_EQ(g->attrs().GetInt("text_tokens").value_or(-1), 0);  // Wan's text is cross-attended, not joint
}

TEST(ProgramPlan, ImportedBlockPlansLikeTheZooModel) {
  auto g = AnonymousWanForward();
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(frontend::AnnotateDit(*g, "").ok());
  auto topology = hw::MakeTopology("h100:8");
  ASSERT_TRUE(topology.ok());
  workload::Workload config = frontend::ProgramWorkload("wan_block.mlir", *g, 1);
  // 12 heads: Ulysses x TP must divide 12 (and 8): u*t in {1, 2, 4}; no CFG
  // (an imported program runs one pass).
  auto heads = AttentionHeads(config);
  ASSERT_TRUE(heads.ok());
  EXPECT_EQ(*heads, 12);
  for (const Combo& c : EnumerateCombos(config, 8, *heads)) {
    EXPECT_EQ(c.cfg, 1);
    EXPECT_EQ(12 % (c.ulysses * c.tp), 0);
  }
  PlanOptions options;
  options.calibration = price::DefaultPriceCalibration(*topology);
  options.alpa = false;
  auto plan = MakePlan(config, *topology, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->program_format, "imported");
  EXPECT_EQ(plan->Find("annotated"), nullptr);  // the zoo graph carries no shardings
  // The same block from the zoo, one block unit, no CFG: the same pick.
  workload::ModelOptions zoo_options;
  zoo_options.width = 832;
  zoo_options.height = 480;
  zoo_options.frames = 81;
  zoo_options.cfg = workload::CfgMode::kNone;
  auto zoo_config = frontend::ZooWorkload("wan2.1-t2v-1.3b", zoo_options);
  ASSERT_TRUE(zoo_config.ok());
  zoo_config->depth_units = 1;
  auto zoo_graph = zoo_config->Forward();
  ASSERT_TRUE(zoo_graph.ok());
  workload::Workload zoo_as_program = frontend::ProgramWorkload("wan2.1-t2v-1.3b", *zoo_graph, 1);
  auto zoo_plan = MakePlan(zoo_as_program, *topology, options);
  ASSERT_TRUE(zoo_plan.ok()) << zoo_plan.status().message();
  EXPECT_EQ(plan->best.description, zoo_plan->best.description);
  EXPECT_DOUBLE_EQ(plan->best.step_latency.value(), zoo_plan->best.step_latency.value());
}

}  // namespace
}  // namespace az::search
