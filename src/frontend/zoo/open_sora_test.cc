// Open-Sora 2.0: parameter count, tokens and FLOPs against the figures derived
// by hand from configs/diffusion/inference/256px.py and mmdit/layers.py
// (open_sora.cc), the 768px and 256px samples, and the graph's interface.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "frontend/zoo/testing.h"
#include "frontend/zoo/zoo.h"
#include "pir/rules/cost.h"

namespace az::zoo::zoo_test {
namespace {

ModelConfig Config(std::optional<CfgMode> cfg = std::nullopt, std::optional<int64_t> width = std::nullopt,
                   std::optional<int64_t> height = std::nullopt) {
  return zoo_test::Resolve("open-sora-2.0", zoo_test::Options(cfg, std::nullopt, width, height));
}

constexpr int64_t kD = 3072;

// A double-stream block, per stream (img_*, txt_*; qkv_bias, fused_qkv False):
//   *_mod.lin       Linear(d, 6d) + bias                       6d^2 + 6d
//   *_attn          q_proj, k_proj, v_proj, proj: 4 (d^2 + d); QKNorm scales 2 x 128
//   *_mlp           Linear(d, 4d) + bias, Linear(4d, d) + bias 8d^2 + 5d
// = 18d^2 + 15d + 256 per stream; 36d^2 + 30d + 512 per block = 339,831,296.
constexpr int64_t kDoubleBlock = 36 * kD * kD + 30 * kD + 512;
// A single-stream block: q_proj, k_proj 2 (d^2 + d); v_mlp Linear(d, 5d) 5d^2 + 5d;
// linear2 Linear(5d, d) 5d^2 + d; QKNorm 256; modulation.lin Linear(d, 3d) 3d^2 + 3d
// = 15d^2 + 11d + 256 = 141,591,808.
constexpr int64_t kSingleBlock = 15 * kD * kD + 11 * kD + 256;
// Outside the blocks: img_in Linear(64, d) 65d; cond_in Linear(68, d) 69d;
// time_in MLPEmbedder(256, d) d^2 + 258d; vector_in MLPEmbedder(768, d)
// d^2 + 770d; txt_in Linear(4096, d) 4097d; final_layer adaLN Linear(d, 2d)
// 2d^2 + 2d and linear Linear(d, 64) 64d + 64; no guidance_in
// = 4d^2 + 5325d + 64 = 54,107,200.
constexpr int64_t kOuter = 4 * kD * kD + (65 + 69 + 258 + 770 + 4097 + 2 + 64) * kD + 64;

TEST(OpenSoraTest, ResolvesDefaults) {
  // 768px at the default 16:9 (get_image_size: 1024x576), 129 frames, 50 steps.
  ModelConfig config = Config();
  ExpectDefaults(config, {.width = 1024, .height = 576, .frames = 129, .steps = 50, .cfg = CfgMode::kBatch2});
  EXPECT_EQ(config.latent_frames(), 33);
  EXPECT_EQ(DepthUnits(config), 19);
}

TEST(OpenSoraTest, RejectsBadFramesAndSizes) {
  zoo_test::ExpectRejected("open-sora-2.0", zoo_test::Options(std::nullopt, 128), {"frames must be 4n+1", "got 128"});
  zoo_test::ExpectRejected("open-sora-2.0", zoo_test::Options(std::nullopt, std::nullopt, std::nullopt, 580),
                           {"multiples of 16", "1024x580"});
}

TEST(OpenSoraTest, CountsTokens) {
  // 768px: 33 x (576 / 16) x (1024 / 16) = 33 x 36 x 64 = 76,032, as 768x768's
  // 33 x 48 x 48 (models.md §3); + 512 text.
  TokenCounts tokens = CountTokens(Config());
  EXPECT_EQ(tokens.video, 76'032);
  EXPECT_EQ(tokens.text, 512);
  EXPECT_EQ(CountTokens(Config(std::nullopt, 768, 768)).video, 76'032);
  // 256px at 16:9 is 336x192: 33 x 12 x 21 = 8,316.
  EXPECT_EQ(CountTokens(Config(std::nullopt, 336, 192)).video, 8'316);
}

TEST(OpenSoraTest, ParameterCountMatchesTheConfig) {
  // 19 x 339,831,296 + 38 x 141,591,808 + 54,107,200 = 11,891,390,528 (~11.9B;
  // published as "11B"). The same blocks as Flux.1 (11,901,408,320 with its
  // guidance_in and without cond_in).
  EXPECT_EQ(kDoubleBlock, 339'831'296);
  EXPECT_EQ(kSingleBlock, 141'591'808);
  EXPECT_EQ(kOuter, 54'107'200);
  EXPECT_EQ(19 * kDoubleBlock + 38 * kSingleBlock + kOuter, 11'891'390'528);
  Graph graph = Forward(Config());
  EXPECT_EQ(ParamCount(graph), 11'891'390'528);
  EXPECT_EQ(FindModel("open-sora-2.0").value()->published_params, 11'891'390'528);
  EXPECT_EQ(ParamCount(graph, "double_blocks.0."), kDoubleBlock);
  EXPECT_EQ(ParamCount(graph, "single_blocks.37."), kSingleBlock);
  EXPECT_EQ(ParamCount(graph, "double_blocks."), 19 * kDoubleBlock);
  EXPECT_EQ(ParamCount(graph, "single_blocks."), 38 * kSingleBlock);
}

TEST(OpenSoraTest, ParameterCountPerPart) {
  Graph graph = Forward(Config());
  EXPECT_EQ(ParamCount(graph, "double_blocks.0.img_attn.q_proj."), kD * kD + kD);
  EXPECT_EQ(ParamCount(graph, "double_blocks.0.txt_attn.norm.query_norm.scale"), 128);
  EXPECT_EQ(ParamCount(graph, "double_blocks.0.img_mod.lin."), 6 * kD * kD + 6 * kD);
  EXPECT_EQ(ParamCount(graph, "double_blocks.0.txt_mlp."), 8 * kD * kD + 5 * kD);
  EXPECT_EQ(ParamCount(graph, "single_blocks.0.v_mlp."), 5 * kD * kD + 5 * kD);
  EXPECT_EQ(ParamCount(graph, "single_blocks.0.linear2."), 5 * kD * kD + kD);
  EXPECT_EQ(ParamCount(graph, "img_in."), 65 * kD);
  EXPECT_EQ(ParamCount(graph, "cond_in."), 69 * kD);
  EXPECT_EQ(ParamCount(graph, "vector_in."), kD * kD + 770 * kD);
  EXPECT_EQ(ParamCount(graph, "txt_in."), 4097 * kD);
  EXPECT_EQ(ParamCount(graph, "guidance_in."), 0);
  EXPECT_EQ(ParamCount(graph, "final_layer."), 2 * kD * kD + 66 * kD + 64);
}

TEST(OpenSoraTest, ForwardInterfaceAndJointAttention) {
  Graph graph = Forward(Config(CfgMode::kNone, 336, 192));
  ExpectInterface(graph, {DType::kF32, {1, 16, 33, 24, 42}},
                  {{"latent", {DType::kF32, {1, 16, 33, 24, 42}}},
                   {"timestep", {DType::kF32, {1}}},
                   {"t5", {DType::kBF16, {1, 512, 4096}}},
                   {"clip_pooled", {DType::kBF16, {1, 768}}},
                   {"cond", {DType::kBF16, {1, 17, 33, 24, 42}}}});
  // 19 + 38 joint attentions over 512 + 8,316 tokens, 24 heads of 128, text first.
  EXPECT_EQ(CountJointAttentions(graph, {DType::kBF16, {1, 8'828, 24, 128}}), 57u);
  ExpectTokens(graph, 8'316, 512);
}

// Matmul + attention FLOPs of one batch-1 forward (2 per multiply-add), L
// video tokens, T = 512, N = L + T:
//   double block  img q, k, v, proj + MLP 24 L d^2; txt 24 T d^2; attention
//                 4 N^2 d; modulation 2 x 2 d 6d = 24 d^2
//   single block  q, k 4 N d^2; v_mlp 10 N d^2; linear2 10 N d^2; attention
//                 4 N^2 d; modulation 6 d^2
//   19 double + 38 single = 1368 N d^2 + 228 N^2 d + 684 d^2
//   outside       img_in 2 L 64 d; cond_in 2 L 68 d; time_in 2 (256 d + d^2);
//                 vector_in 2 (768 d + d^2); txt_in 2 T 4096 d; final adaLN 4 d^2; linear 2 L d 64
int64_t ForwardFlops(int64_t l) {
  const int64_t t = 512, n = l + t;
  const int64_t blocks = 1368 * n * kD * kD + 228 * n * n * kD + 684 * kD * kD;
  const int64_t outer = 2 * l * 64 * kD + 2 * l * 68 * kD + 2 * (256 * kD + kD * kD) + 2 * (768 * kD + kD * kD) +
                        2 * t * 4096 * kD + 4 * kD * kD + 2 * l * kD * 64;
  return blocks + outer;
}

TEST(OpenSoraTest, ForwardFlops) {
  // 768px (L = 76,032): blocks 5,091,920,770,498,560 + outside 104,526,249,984
  //   = 5,092,025,296,748,544 (5.09 PF per batch-1 forward).
  // 256px (L = 8,316): 168,562,461,966,336 + 22,981,017,600 = 168,585,442,983,936.
  EXPECT_EQ(ForwardFlops(76'032), 5'092'025'296'748'544);
  EXPECT_EQ(ForwardFlops(8'316), 168'585'442'983'936);
  EXPECT_EQ(MatmulAndAttentionFlops(Forward(Config(CfgMode::kNone))), 5'092'025'296'748'544);
  EXPECT_EQ(MatmulAndAttentionFlops(Forward(Config(CfgMode::kNone, 336, 192))), 168'585'442'983'936);
}

}  // namespace
}  // namespace az::zoo::zoo_test
