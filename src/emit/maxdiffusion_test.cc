// MaxDiffusion's overrides and command for TPU plans (maxdiffusion.h).
#include "emit/maxdiffusion.h"

#include <gtest/gtest.h>

#include <set>

namespace az::emit {
namespace {

using search::Configuration;
using search::Plan;

// A Wan 2.1 14B plan at 720p on a v5e:2x4 slice, two-pass CFG by default.
Plan WanPlan() {
  Plan plan;
  plan.model = "wan2.1-t2v-14b";
  plan.width = 1280;
  plan.height = 720;
  plan.frames = 81;
  plan.steps = 50;
  plan.batch = 1;
  plan.cfg_mode = "two-pass";
  plan.topology = "v5e:2x4";
  plan.chip = "v5e";
  plan.tpu = true;
  return plan;
}

// A configuration of xDiT degrees on the mesh combos.h builds for them
// (slowest first: dp, cfg, ring, context, ulysses, tp).
Configuration Degrees(int cfg, int ring, int context, int ulysses, int tp) {
  Configuration c;
  c.description = "test";
  c.cfg = cfg;
  c.ring = ring;
  c.ulysses = ulysses;
  c.tp = tp;
  for (auto [name, degree] : {std::pair{"cfg", cfg}, std::pair{"ring", ring}, std::pair{"context", context},
                              std::pair{"ulysses", ulysses}, std::pair{"tp", tp}}) {
    if (degree == 1) continue;
    c.mesh.push_back({name, degree});
    c.axis_roles.push_back(name);
  }
  c.placement_method = "default (jax create_device_mesh)";
  c.forwards_per_step = cfg == 2 ? 1 : 2;
  c.step_latency = Seconds(0.5);
  return c;
}

std::string Value(const MaxDiffusionLaunch& launch, const std::string& key) {
  for (const auto& [k, v] : launch.overrides) {
    if (k == key) return v;
  }
  return "<absent>";
}

// Every key written is one MaxDiffusion reads. Names from
// src/maxdiffusion/configs/base_wan_14b.yml (AI-Hypercomputer/maxdiffusion
// at 101335d: run_name, attention, height, width, num_frames,
// num_inference_steps, do_classifier_free_guidance, per_device_batch_size,
// ici_/dcn_{data,fsdp,tensor}_parallelism) and, for the context axis and
// USP, the README's generate_wan.py command (ici_context_parallelism) and
// end_to_end/tpu/run_wan_fast_inference.sh (ulysses_shards,
// dcn_context_parallelism); reference/models.md §4.4.
TEST(MaxDiffusion, KeysAreMaxDiffusionConfigNames) {
  const std::set<std::string> known = {
      "run_name",          "attention",            "height",
      "width",             "num_frames",           "num_inference_steps",
      "do_classifier_free_guidance", "per_device_batch_size", "ulysses_shards",
      "ici_data_parallelism", "ici_fsdp_parallelism", "ici_context_parallelism",
      "ici_tensor_parallelism", "dcn_data_parallelism", "dcn_fsdp_parallelism",
      "dcn_context_parallelism", "dcn_tensor_parallelism", "ulysses_attention_chunks"};
  Plan plan = WanPlan();
  for (const Configuration& c : {Degrees(2, 2, 1, 2, 1), Degrees(2, 1, 4, 1, 1), Degrees(1, 8, 1, 1, 1)}) {
    MaxDiffusionLaunch launch = PlanMaxDiffusion(plan, c);
    ASSERT_TRUE(launch.expressible) << launch.reason;
    for (const auto& [key, value] : launch.overrides) EXPECT_TRUE(known.count(key)) << key;
  }
}

// USP: cfg 2 x ring 2 x ulysses 2 on 8 chips -> data 2 (the batch-2 CFG
// forward), context 4 reshaped by MaxDiffusion into ring 2 x ulysses 2
// (ulysses_shards = 2), one video over 8 devices = 0.125 per device.
TEST(MaxDiffusion, UspMapsOntoDataAndContext) {
  Plan plan = WanPlan();
  MaxDiffusionLaunch launch = PlanMaxDiffusion(plan, Degrees(2, 2, 1, 2, 1));
  ASSERT_TRUE(launch.expressible) << launch.reason;
  EXPECT_EQ(launch.config_file, "src/maxdiffusion/configs/base_wan_14b.yml");
  EXPECT_EQ(Value(launch, "attention"), "ulysses_ring");
  EXPECT_EQ(Value(launch, "ulysses_shards"), "2");
  EXPECT_EQ(Value(launch, "ici_data_parallelism"), "2");
  EXPECT_EQ(Value(launch, "ici_context_parallelism"), "4");
  EXPECT_EQ(Value(launch, "ici_tensor_parallelism"), "1");
  EXPECT_EQ(Value(launch, "per_device_batch_size"), "0.125");
  EXPECT_EQ(Value(launch, "run_name"), "aoizora-wan2.1-t2v-14b-v5e-2x4");
  EXPECT_EQ(MaxDiffusionCommand(launch).rfind("python src/maxdiffusion/generate_wan.py "
                                              "src/maxdiffusion/configs/base_wan_14b.yml run_name=",
                                              0),
            0u);
  // Weights: the plan kept them replicated, MaxDiffusion shards embed over context.
  ASSERT_EQ(launch.notes.size(), 1u);
  EXPECT_NE(launch.notes[0].find("embed dimension over context"), std::string::npos);
}

// Context parallelism (K and V gathered) is MaxDiffusion's default flash
// kernel; ring alone is its ring kernel; a two-pass CFG plan differs from
// MaxDiffusion's batch-2 forward and says so; a searched placement too.
TEST(MaxDiffusion, KernelsAndDifferences) {
  Plan plan = WanPlan();
  MaxDiffusionLaunch context = PlanMaxDiffusion(plan, Degrees(2, 1, 4, 1, 1));
  ASSERT_TRUE(context.expressible);
  EXPECT_EQ(Value(context, "attention"), "flash");
  EXPECT_EQ(Value(context, "ici_context_parallelism"), "4");
  Configuration ring = Degrees(1, 8, 1, 1, 1);
  ring.placement_method = "exhaustive";
  ring.default_order = false;
  MaxDiffusionLaunch ringed = PlanMaxDiffusion(plan, ring);
  ASSERT_TRUE(ringed.expressible);
  EXPECT_EQ(Value(ringed, "attention"), "ring");
  EXPECT_EQ(Value(ringed, "ici_data_parallelism"), "1");
  std::string notes;
  for (const std::string& n : ringed.notes) notes += n + "\n";
  EXPECT_NE(notes.find("create_device_mesh, not the plan's placement (exhaustive)"), std::string::npos) << notes;
  EXPECT_NE(notes.find("two batch-1 passes"), std::string::npos) << notes;
  Configuration tp = Degrees(2, 1, 1, 1, 4);
  EXPECT_EQ(Value(PlanMaxDiffusion(plan, tp), "ici_tensor_parallelism"), "4");
}

// A deeper FSDP prefetch (compile/spmd/schedule.h) has no XLA setting: the
// launch runs and says what differs from what was priced.
TEST(MaxDiffusion, PrefetchDepthIsANoteNotAKey) {
  Plan plan = WanPlan();
  Configuration c = Degrees(2, 4, 1, 1, 1);
  c.fsdp = 8;
  MaxDiffusionLaunch shallow = PlanMaxDiffusion(plan, c);
  c.prefetch = 2;
  MaxDiffusionLaunch deep = PlanMaxDiffusion(plan, c);
  ASSERT_TRUE(shallow.expressible && deep.expressible);
  EXPECT_EQ(deep.overrides, shallow.overrides);
  ASSERT_EQ(deep.notes.size(), shallow.notes.size() + 1);
  EXPECT_NE(deep.notes.back().find("FSDP prefetch depth 2"), std::string::npos) << deep.notes.back();
  EXPECT_NE(deep.notes.back().find("MaxDiffusion runs depth 1"), std::string::npos);
}

// What MaxDiffusion cannot run is refused with the reason.
TEST(MaxDiffusion, RefusedWithTheReason) {
  Plan plan = WanPlan();
  Plan hunyuan = plan;
  hunyuan.model = "hunyuanvideo-13b";
  EXPECT_NE(PlanMaxDiffusion(hunyuan, Degrees(1, 8, 1, 1, 1)).reason.find("no text-to-video config"),
            std::string::npos);
  Plan gpu = plan;
  gpu.tpu = false;
  EXPECT_FALSE(PlanMaxDiffusion(gpu, Degrees(1, 8, 1, 1, 1)).expressible);
  Configuration alpa = Degrees(1, 8, 1, 1, 1);
  alpa.sharding = "alpa";
  alpa.seeded = true;
  EXPECT_NE(PlanMaxDiffusion(plan, alpa).reason.find("per-tensor seeds"), std::string::npos);
  // dp 2 over one video without guidance: MaxDiffusion's data axis has 1 row.
  Plan unguided = plan;
  unguided.cfg_mode = "none";
  Configuration dp = Degrees(1, 4, 1, 1, 1);
  dp.dp = 2;
  dp.mesh.insert(dp.mesh.begin(), {"dp", 2});
  dp.axis_roles.insert(dp.axis_roles.begin(), "dp");
  EXPECT_NE(PlanMaxDiffusion(unguided, dp).reason.find("does not divide the 1 rows"), std::string::npos);
}

// The file: the best when MaxDiffusion runs it, else the expert baseline with
// the reason; YAML lines after the comments.
TEST(MaxDiffusion, YamlFallsBackToTheExpert) {
  Plan plan = WanPlan();
  plan.best = Degrees(1, 8, 1, 1, 1);
  plan.best.sharding = "alpa";
  plan.best.seeded = true;
  plan.best.description = "Alpa ILP on mesh a=8";
  Configuration expert = Degrees(2, 2, 1, 2, 1);
  expert.description = "xDiT ulysses=2,ring=2,cfg=2";
  plan.baselines = {{"expert", expert, ""}};
  std::string yaml = MaxDiffusionYaml(plan);
  EXPECT_NE(yaml.find("# The plan's best (Alpa ILP on mesh a=8) does not run there"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("# Configuration: xDiT ulysses=2,ring=2,cfg=2"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("\nattention: ulysses_ring\n"), std::string::npos) << yaml;
  plan.baselines.clear();
  yaml = MaxDiffusionYaml(plan);
  EXPECT_NE(yaml.find("# Nothing here runs under MaxDiffusion"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("\nattention:"), std::string::npos) << yaml;
}

// Ulysses head chunks (MaxDiffusion's ulysses_attention_chunks, a key of
// base_wan_14b.yml at 7cfb880): the key beside attention ulysses (or
// ulysses_ring), and the two XLA flags its config names for the overlap in
// the command's environment and the YAML's comments. Unchunked plans write
// neither.
TEST(MaxDiffusion, UlyssesChunksAndTheirFlags) {
  Plan plan = WanPlan();
  Configuration c = Degrees(1, 1, 1, 8, 1);
  c.ulysses_chunks = 4;
  c.ulysses_head_chunks = {{0, 8}, {8, 16}, {16, 24}, {24, 40}};
  MaxDiffusionLaunch launch = PlanMaxDiffusion(plan, c);
  ASSERT_TRUE(launch.expressible) << launch.reason;
  EXPECT_EQ(Value(launch, "attention"), "ulysses");
  EXPECT_EQ(Value(launch, "ulysses_attention_chunks"), "4");
  const std::string flags = "--xla_tpu_enable_async_all_to_all=true --xla_tpu_overlap_compute_collective_tc=true";
  EXPECT_EQ(MaxDiffusionCommand(launch).rfind("LIBTPU_INIT_ARGS=\"" + flags + "\" python src/maxdiffusion/generate_wan.py ", 0),
            0u)
      << MaxDiffusionCommand(launch);
  plan.best = c;
  plan.best.description = "ulysses=8,ulysses_chunks=4";
  const std::string yaml = MaxDiffusionYaml(plan);
  EXPECT_NE(yaml.find("\nulysses_attention_chunks: 4\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("only with LIBTPU_INIT_ARGS=\"" + flags + "\" set"), std::string::npos) << yaml;
  // USP with chunks: ulysses_ring, ulysses_shards and the chunks.
  Configuration usp = Degrees(2, 2, 1, 2, 1);
  usp.ulysses_chunks = 2;
  launch = PlanMaxDiffusion(plan, usp);
  ASSERT_TRUE(launch.expressible);
  EXPECT_EQ(Value(launch, "attention"), "ulysses_ring");
  EXPECT_EQ(Value(launch, "ulysses_attention_chunks"), "2");
  // Unchunked: no key, no environment.
  launch = PlanMaxDiffusion(plan, Degrees(1, 1, 1, 8, 1));
  EXPECT_EQ(Value(launch, "ulysses_attention_chunks"), "<absent>");
  EXPECT_TRUE(launch.env.empty());
}

}  // namespace
}  // namespace az::emit
