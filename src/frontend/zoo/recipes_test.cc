// The recipes the models' repositories deploy (zoo.h: DeployedRecipeOf),
// derived by hand from the rules recipes.cc cites.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "frontend/zoo/zoo.h"

namespace az::zoo {
namespace {

// `chips` in one machine, or over machines of `per_node` chips.
DeployedRecipe Recipe(const std::string& model, int64_t chips, bool tpu, int64_t per_node = 0) {
  auto config = ResolveConfig(model, {});
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  auto recipe = DeployedRecipeOf(*config, {chips, per_node > 0 ? per_node : chips, tpu});
  EXPECT_TRUE(recipe.ok()) << model << " on " << chips << ": " << recipe.status().ToString();
  return recipe.ok() ? *recipe : DeployedRecipe{};
}

Status Refused(const std::string& model, int64_t chips, bool tpu) {
  auto config = ResolveConfig(model, {});
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return DeployedRecipeOf(*config, {chips, chips, tpu}).status();
}

// Wan's generate.py: ulysses_size x ring_size = world size, 40 heads %
// ulysses_size = 0. 8 chips: 8 | 40, so Ulysses 8 (the README's command,
// with --dit_fsdp). 16 chips on two machines of 8: 16 does not divide 40, 8
// does (40 = 5 x 8): Ulysses 8 x Ring 2, as the maintainers advise. 16 in
// one machine, or 6: the heads do not divide, Ring over all (the README).
TEST(DeployedRecipe, Wan14BUlyssesOverTheChipsTheHeadsAllow) {
  for (const std::string model : {"wan2.1-t2v-14b", "wan2.1-i2v-14b", "wan2.2-t2v-a14b"}) {
    DeployedRecipe eight = Recipe(model, 8, false);
    EXPECT_EQ(eight.ulysses, 8) << model;
    EXPECT_EQ(eight.ring, 1) << model;
    EXPECT_EQ(eight.tp, 1) << model;
    EXPECT_EQ(eight.context, 1) << model;
    EXPECT_TRUE(eight.fsdp) << model;
    EXPECT_EQ(eight.command, "--ulysses_size 8 --dit_fsdp") << model;
    EXPECT_NE(eight.source.find("generate.py @1fea12c3"), std::string::npos) << eight.source;
  }
  DeployedRecipe sixteen = Recipe("wan2.1-t2v-14b", 16, false, 8);
  EXPECT_EQ(sixteen.ulysses, 8);
  EXPECT_EQ(sixteen.ring, 2);
  EXPECT_EQ(sixteen.command, "--ulysses_size 8 --ring_size 2 --dit_fsdp");
  DeployedRecipe one_machine = Recipe("wan2.1-t2v-14b", 16, false);
  EXPECT_EQ(one_machine.ulysses, 1);
  EXPECT_EQ(one_machine.ring, 16);
  EXPECT_EQ(one_machine.command, "--ring_size 16 --dit_fsdp");
  DeployedRecipe six = Recipe("wan2.1-t2v-14b", 6, false);
  EXPECT_EQ(six.ulysses, 1);
  EXPECT_EQ(six.ring, 6);
  // One chip: no parallelism, nothing to shard.
  DeployedRecipe one = Recipe("wan2.1-t2v-14b", 1, false);
  EXPECT_EQ(one.ulysses * one.ring, 1);
  EXPECT_FALSE(one.fsdp);
  EXPECT_EQ(one.command, "no parallel flags (one GPU)");
}

// Wan 1.3B, 12 heads, on 8 chips: 8 does not divide 12, so Ring 8, as the
// README recommends for it (and the published 8-GPU runs say: ring8). On two
// machines of 8: 8 does not divide 12 either, Ring 16. TI2V-5B, 24 heads: 8
// | 24, Ulysses 8, and Wan 2.2's README runs it without --dit_fsdp.
TEST(DeployedRecipe, WanSmallModels) {
  DeployedRecipe small = Recipe("wan2.1-t2v-1.3b", 8, false);
  EXPECT_EQ(small.ulysses, 1);
  EXPECT_EQ(small.ring, 8);
  EXPECT_TRUE(small.fsdp);
  EXPECT_EQ(small.command, "--ring_size 8 --dit_fsdp");
  DeployedRecipe two_machines = Recipe("wan2.1-t2v-1.3b", 16, false, 8);
  EXPECT_EQ(two_machines.ulysses, 1);
  EXPECT_EQ(two_machines.ring, 16);
  DeployedRecipe ti2v = Recipe("wan2.2-ti2v-5b", 8, false);
  EXPECT_EQ(ti2v.ulysses, 8);
  EXPECT_EQ(ti2v.ring, 1);
  EXPECT_FALSE(ti2v.fsdp);
  EXPECT_EQ(ti2v.command, "--ulysses_size 8");
}

// MaxDiffusion's base_wan_*.yml: ici_fsdp_parallelism -1 (every chip), data
// and tensor 1, attention flash: the sequence over all 8 chips with K and V
// gathered (context 8) and the weights' embed dimension over them (FSDP).
// Only the T2V models have a config there.
TEST(DeployedRecipe, WanOnTpusIsMaxDiffusionsDefault) {
  for (const std::string model : {"wan2.1-t2v-1.3b", "wan2.1-t2v-14b", "wan2.2-t2v-a14b"}) {
    DeployedRecipe r = Recipe(model, 8, true);
    EXPECT_EQ(r.context, 8) << model;
    EXPECT_EQ(r.ulysses * r.ring * r.tp, 1) << model;
    EXPECT_TRUE(r.fsdp) << model;
    EXPECT_EQ(r.command, "ici_data_parallelism=1 ici_fsdp_parallelism=8 ici_tensor_parallelism=1 attention=flash");
    EXPECT_NE(r.source.find("maxdiffusion configs/base_wan_"), std::string::npos) << r.source;
  }
  Status i2v = Refused("wan2.1-i2v-14b", 8, true);
  EXPECT_EQ(i2v.code(), StatusCode::kNotFound);
  EXPECT_EQ(i2v.message(),
            "none published for TPUs: MaxDiffusion, the JAX code that deploys DiTs on TPUs, has no config for "
            "wan2.1-i2v-14b");
}

// MaxDiffusion's Wan 2.1 training README (@f5f212f2): v5p-8 (4 chips) runs
// ici_data_parallelism=1 ici_fsdp_parallelism=4 at per_device_batch_size
// 0.25 (a batch of 1), v5p-256 (128 chips) ici_data_parallelism=32 (a batch
// of 32), remat HIDDEN_STATE_WITH_OFFLOAD; the fsdp axis carries the sequence
// and the weights. So 4 chips, batch 1: dp 1, context 4, weights over the 4;
// 8 chips, batch 2: dp 2 (8 / 4), context 4, weights over each replica's 4,
// per-device 2 / 8 = 0.25; batch 4 on 8 chips: the same mesh, 0.5 per chip.
TEST(DeployedRecipe, Wan14BTrainingIsMaxDiffusionsReadme) {
  auto config = ResolveConfig("wan2.1-t2v-14b", {});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto four = DeployedTrainRecipeOf(*config, {4, 4, true}, 1);
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(four->dp, 1);
  EXPECT_EQ(four->context, 4);
  EXPECT_EQ(four->ulysses * four->ring * four->tp, 1);
  EXPECT_TRUE(four->fsdp);
  ASSERT_TRUE(four->remat.has_value());
  EXPECT_EQ(*four->remat, pir::RematPolicy::kOffload);
  EXPECT_EQ(four->command,
            "ici_data_parallelism=1 ici_fsdp_parallelism=4 ici_tensor_parallelism=1 attention=flash "
            "remat_policy=HIDDEN_STATE_WITH_OFFLOAD per_device_batch_size=0.25");
  EXPECT_NE(four->source.find("maxdiffusion README @f5f212f2"), std::string::npos) << four->source;
  auto eight = DeployedTrainRecipeOf(*config, {8, 8, true}, 2);
  ASSERT_TRUE(eight.ok()) << eight.status().ToString();
  EXPECT_EQ(eight->dp, 2);
  EXPECT_EQ(eight->context, 4);
  EXPECT_EQ(eight->command.rfind("ici_data_parallelism=2 ici_fsdp_parallelism=4", 0), 0u) << eight->command;
  auto half = DeployedTrainRecipeOf(*config, {8, 8, true}, 4);
  ASSERT_TRUE(half.ok()) << half.status().ToString();
  EXPECT_NE(half->command.find("per_device_batch_size=0.5"), std::string::npos) << half->command;
  // A batch the data axis does not divide; a chip count 4 does not divide.
  auto odd = DeployedTrainRecipeOf(*config, {8, 8, true}, 1);
  EXPECT_EQ(odd.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(odd.status().message(),
            "MaxDiffusion's Wan training README splits the batch over ici_data_parallelism=2; a batch of 1 samples "
            "does not divide over it");
  EXPECT_EQ(DeployedTrainRecipeOf(*config, {6, 6, true}, 6).status().code(), StatusCode::kFailedPrecondition);
  // GPUs, and models the README does not train: none published.
  auto gpu = DeployedTrainRecipeOf(*config, {8, 8, false}, 8);
  EXPECT_EQ(gpu.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(gpu.status().message().rfind("none published for GPUs", 0), 0u) << gpu.status().message();
  auto small = ResolveConfig("wan2.1-t2v-1.3b", {});
  ASSERT_TRUE(small.ok());
  auto none = DeployedTrainRecipeOf(*small, {4, 4, true}, 1);
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(),
            "none published: wan2.1-t2v-1.3b's deployment publishes no multi-chip training recipe");
}

// HunyuanVideo's README: --ulysses-degree 8 --ring-degree 1 on 8 GPUs (8 |
// 24 heads). 16 chips on two machines of 8: 16 does not divide 24, 8 does:
// Ulysses 8 x Ring 2. 5 chips: 5 does not divide 24: Ring 5 (the README's
// table: 1x5).
TEST(DeployedRecipe, HunyuanVideo) {
  DeployedRecipe eight = Recipe("hunyuanvideo-13b", 8, false);
  EXPECT_EQ(eight.ulysses, 8);
  EXPECT_EQ(eight.ring, 1);
  EXPECT_FALSE(eight.fsdp);
  EXPECT_EQ(eight.command, "--ulysses-degree 8 --ring-degree 1");
  DeployedRecipe sixteen = Recipe("hunyuanvideo-13b", 16, false, 8);
  EXPECT_EQ(sixteen.ulysses, 8);
  EXPECT_EQ(sixteen.ring, 2);
  DeployedRecipe five = Recipe("hunyuanvideo-13b", 5, false);
  EXPECT_EQ(five.ulysses, 1);
  EXPECT_EQ(five.ring, 5);
  EXPECT_EQ(Refused("hunyuanvideo-13b", 8, true).code(), StatusCode::kNotFound);
}

// Step-Video's README: tp_degree=2 x ulysses_degree = GPUs. 8: TP 2 x
// Ulysses 4 (8 | 48 heads). 5 chips: odd, refused by the recipe's own rule.
TEST(DeployedRecipe, StepVideoTensorTwoTimesUlysses) {
  DeployedRecipe eight = Recipe("step-video-t2v", 8, false);
  EXPECT_EQ(eight.tp, 2);
  EXPECT_EQ(eight.ulysses, 4);
  EXPECT_EQ(eight.ring, 1);
  EXPECT_EQ(eight.command, "--ulysses_degree 4 --tensor_parallel_degree 2");
  Status five = Refused("step-video-t2v", 5, false);
  EXPECT_EQ(five.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(five.message().find("5 chips do not divide that way"), std::string::npos) << five.message();
}

// The families whose repositories publish no multi-chip launch of their own.
TEST(DeployedRecipe, NonePublished) {
  for (const std::string model : {"cogvideox-5b", "ltx-video-2b", "mochi-1", "open-sora-2.0"}) {
    auto config = ResolveConfig(model, {});
    if (!config.ok()) {
      ADD_FAILURE() << model << ": " << config.status().ToString();
      continue;
    }
    Status none = DeployedRecipeOf(*config, {8, 8, false}).status();
    EXPECT_EQ(none.code(), StatusCode::kNotFound) << model;
    EXPECT_EQ(none.message().rfind("none published: " + model, 0), 0u) << none.message();
  }
  auto config = ResolveConfig("wan2.1-t2v-14b", {});
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(DeployedRecipeOf(*config, {0, 8, false}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace az::zoo
