// The sequence splits the models' deployed parallel code accepts
// (zoo.h: DeployedSequenceSplit), against the rules of that code.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/zoo/zoo.h"

namespace az::zoo {
namespace {

ModelConfig Config(const std::string& model, int64_t width, int64_t height) {
  ModelOptions options;
  options.width = width;
  options.height = height;
  auto config = ResolveConfig(model, options);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.value();
}

// The degrees 1..max the rule accepts.
std::vector<int64_t> Accepted(const ModelConfig& config, int64_t max) {
  std::vector<int64_t> out;
  for (int64_t sp = 1; sp <= max; ++sp) {
    if (DeployedSequenceSplit(config, sp).ok()) out.push_back(sp);
  }
  return out;
}

// xDiT's CogVideoX runner (xfuser/core/distributed/runtime_state.py,
// _calc_cogvideox_patches_metadata): latent rows % (patch 2 x sp) == 0.
// 720x480: 60 rows, so sp | 30: 1, 2, 3, 5, 6, 10, 15, 30 (<= 16: 1, 2, 3, 5,
// 6, 10, 15). Its performance docs run CogVideoX on 1-6 and 12 GPUs.
TEST(DeployedSplit, CogVideoXSplitsEveryFramesPatchRows) {
  ModelConfig cog5b = Config("cogvideox-5b", 720, 480);
  EXPECT_EQ(Accepted(cog5b, 16), (std::vector<int64_t>{1, 2, 3, 5, 6, 10, 15}));
  Status eight = DeployedSequenceSplit(cog5b, 8);
  ASSERT_FALSE(eight.ok());
  EXPECT_NE(eight.message().find("60 latent rows (480 px / 8) are not a multiple of 2 x 8"), std::string::npos)
      << eight.message();
  // CogVideoX1.5-5B at 1360x768: 96 rows = 2 x 48, so sp | 48: 1, 2, 3, 4, 6, 8, 12, 16.
  EXPECT_EQ(Accepted(Config("cogvideox1.5-5b", 1360, 768), 16), (std::vector<int64_t>{1, 2, 3, 4, 6, 8, 12, 16}));
}

// hyvideo/inference.py (models.md §4.2): patch rows (H/16) or patch columns
// (W/16) divisible by sp. The README's valid U x R table: 1280x720 (45 x 80)
// allows sp 2, 3, 4, 5, 8 but not 6; 720x720 (45 x 45) only 3 and 5 (sp <= 8).
TEST(DeployedSplit, HunyuanVideoSplitsRowsOrColumns) {
  EXPECT_EQ(Accepted(Config("hunyuanvideo-13b", 1280, 720), 8), (std::vector<int64_t>{1, 2, 3, 4, 5, 8}));
  EXPECT_EQ(Accepted(Config("hunyuanvideo-13b", 720, 720), 8), (std::vector<int64_t>{1, 3, 5}));
  Status six = DeployedSequenceSplit(Config("hunyuanvideo-13b", 1280, 720), 6);
  ASSERT_FALSE(six.ok());
  EXPECT_NE(six.message().find("neither its 45 rows nor its 80 columns"), std::string::npos) << six.message();
}

// Wan's code pads the sequence to a multiple of sp (models.md §4.1): any degree.
TEST(DeployedSplit, WanPads) {
  ModelConfig wan = Config("wan2.1-t2v-14b", 1280, 720);
  EXPECT_EQ(Accepted(wan, 16).size(), 16u);
}

}  // namespace
}  // namespace az::zoo
