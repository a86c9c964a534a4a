// Step-Video-T2V: parameter count, tokens and FLOPs against the figures
// derived by hand from StepVideoModel's configuration (step_video.cc), the
// 17-frame VAE rule, the sequence split of its parallel code, and the graph's
// interface.
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

constexpr int64_t kD = 6144;

ModelConfig Config(std::optional<CfgMode> cfg = std::nullopt, std::optional<int64_t> frames = std::nullopt) {
  return zoo_test::Resolve("step-video-t2v", zoo_test::Options(cfg, frames));
}

// Parameters of one StepVideoTransformerBlock (no linear has a bias):
//   norm1, norm2     LayerNorm(d) weight + bias: 2 * 2d
//   attn1            wqkv d x 3d, wo d x d; q_norm, k_norm RMSNorm(128): 4d^2 + 256
//   attn2            wq d x d, wkv d x 2d, wo d x d; q_norm, k_norm: 4d^2 + 256
//   ff               net.0.proj d x 4d, net.2 4d x d: 8d^2
//   scale_shift_table [6, d]: 6d
// = 16 d^2 + 10 d + 512 = 604,041,728 at d = 6144.
constexpr int64_t kBlockParams = 16 * kD * kD + 10 * kD + 512;

// Outside the blocks:
//   pos_embed.proj         Conv2d(64, d, 1) + bias: 65d
//   adaln_single           emb.timestep_embedder linear_1 (256 -> d) + linear_2 (d -> d): 257d + d^2 + d;
//                          linear (d -> 6d): 6d^2 + 6d
//   caption_norm, norm_out LayerNorm without affine: 0
//   caption_projection     linear_1 (6144 -> d) + linear_2 (d -> d): 6145d + d^2 + d
//   clip_projection        Linear(1024, d): 1025d
//   scale_shift_table      [2, d]: 2d
//   proj_out               Linear(d, 64): 64d + 64
// = 8 d^2 + 7566 d + 64 = 348,475,456.
constexpr int64_t kOuterParams = 8 * kD * kD + 7566 * kD + 64;

// Matmul + attention FLOPs of one batch-1 forward (2 per multiply-add), L video
// tokens, T = 397 text rows:
//   per block   wqkv, wo, wq, ff on L rows: (6 + 2 + 2 + 2 + 16) L d^2 = 28 L d^2 (wo twice);
//               wkv on T rows: 4 T d^2;
//               self-attention QK^T and PV 4 L^2 d; cross-attention 4 L T d
//   outside     pos_embed and proj_out 2 * 2 L 64 d; time MLP and adaln_single.linear
//               2 (256 d + d^2) + 2 * 6 d^2; caption_projection 2 * 320 (6144 d + d^2);
//               clip_projection 2 * 77 * 1024 d
int64_t ForwardFlops(int64_t video_tokens) {
  const int64_t l = video_tokens, t = 397, d = kD;
  const int64_t block = 28 * l * d * d + 4 * t * d * d + 4 * l * l * d + 4 * l * t * d;
  const int64_t outer = 2 * 2 * l * 64 * d + 2 * (256 * d + d * d) + 2 * 6 * d * d + 2 * 320 * (6144 * d + d * d) +
                        2 * 77 * 1024 * d;
  return 48 * block + outer;
}

TEST(StepVideoTest, ResolvesDefaults) {
  // stepvideo/config.py: 992x544, 204 frames, 50 steps; the pipeline runs CFG
  // (9.0) as one forward on [latents; latents].
  ModelConfig config = Config();
  ExpectDefaults(config, {.width = 992, .height = 544, .frames = 204, .steps = 50, .cfg = CfgMode::kBatch2});
  EXPECT_EQ(config.forward_batch(), 2);
  EXPECT_EQ(config.patch, 1);
  EXPECT_EQ(config.vae_stride, 16);
}

TEST(StepVideoTest, LatentFramesAndTokens) {
  // num_frames // 17 * 3: 204 -> 36, 17 -> 3, 102 -> 18; latent grid 544/16 x 992/16 = 34 x 62.
  EXPECT_EQ(Config().latent_frames(), 36);
  EXPECT_EQ(Config(std::nullopt, 17).latent_frames(), 3);
  EXPECT_EQ(Config(std::nullopt, 102).latent_frames(), 18);
  TokenCounts tokens = CountTokens(Config());
  EXPECT_EQ(tokens.video, 75'888);  // 36 x 34 x 62, models.md §3
  EXPECT_EQ(tokens.text, 397);      // 77 CLIP + 320 Step-LLM rows
  EXPECT_EQ(CountTokens(Config(std::nullopt, 17)).video, 6'324);  // 3 x 34 x 62
}

TEST(StepVideoTest, RejectsBadFramesAndSizes) {
  // 205 = 4n+1 but not 17n; 16 is below one group; 51 = 17 x 3 is fine.
  for (int64_t frames : {205, 16, 81}) {
    zoo_test::ExpectRejected("step-video-t2v", zoo_test::Options(std::nullopt, frames),
                             {"frames must be 17n", "3 latent frames", std::to_string(frames)});
  }
  EXPECT_TRUE(ResolveConfig("step-video-t2v", zoo_test::Options(std::nullopt, 51)).ok());
  zoo_test::ExpectRejected("step-video-t2v", zoo_test::Options(std::nullopt, std::nullopt, 1000),
                           {"multiples of 16 (VAE stride 16 x patch 1)", "1000x544"});
}

TEST(StepVideoTest, ParameterCountMatchesTheConfig) {
  // 48 x 604,041,728 + 348,475,456 = 29,342,478,400 (~29.3B, the "30B" of the README).
  EXPECT_EQ(48 * kBlockParams + kOuterParams, 29'342'478'400);
  Graph graph = Forward(Config(CfgMode::kNone));
  EXPECT_EQ(ParamCount(graph), 29'342'478'400);
  EXPECT_EQ(ParamCount(graph), FindModel("step-video-t2v").value()->published_params);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0."), kBlockParams);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks."), 48 * kBlockParams);
}

TEST(StepVideoTest, ParameterCountPerPart) {
  Graph graph = Forward(Config(CfgMode::kNone, 17));
  const int64_t d = kD;
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.norm1."), 2 * d);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.wqkv."), 3 * d * d);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1."), 4 * d * d + 256);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.q_norm."), 128);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn2.wkv."), 2 * d * d);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn2."), 4 * d * d + 256);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.ff."), 8 * d * d);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.scale_shift_table"), 6 * d);
  EXPECT_EQ(ParamCount(graph, "pos_embed."), 65 * d);
  EXPECT_EQ(ParamCount(graph, "adaln_single."), 7 * d * d + 264 * d);
  EXPECT_EQ(ParamCount(graph, "caption_projection."), d * d + 6146 * d);
  EXPECT_EQ(ParamCount(graph, "clip_projection."), 1025 * d);
  EXPECT_EQ(ParamCount(graph, "scale_shift_table"), 2 * d);
  EXPECT_EQ(ParamCount(graph, "proj_out."), 64 * d + 64);
}

TEST(StepVideoTest, ForwardInterfaceAndAttention) {
  Graph graph = Forward(Config(CfgMode::kNone));
  ExpectInterface(graph, {DType::kF32, {1, 64, 36, 34, 62}},
                  {{"latent", {DType::kF32, {1, 64, 36, 34, 62}}},
                   {"timestep", {DType::kF32, {1}}},
                   {"encoder_hidden_states", {DType::kBF16, {1, 320, 6144}}},
                   {"encoder_hidden_states_2", {DType::kBF16, {1, 77, 1024}}}});
  ExpectTokens(graph, 75'888, 397);
  // Per block: self-attention over the video tokens and cross-attention to the
  // 397 text rows, 48 heads of 128.
  int self = 0, cross = 0;
  for (const pir::Op& op : graph.ops()) {
    if (op.kind != pir::OpKind::kAttention) continue;
    const std::string mode = op.attrs.GetString("mode").value_or("");
    EXPECT_EQ(graph.type(op.operands[0]), (pir::TensorType{DType::kBF16, {1, 75'888, 48, 128}}));
    if (mode == "self") {
      ++self;
      EXPECT_EQ(graph.type(op.operands[1]), (pir::TensorType{DType::kBF16, {1, 75'888, 48, 128}}));
    } else {
      ++cross;
      EXPECT_EQ(mode, "cross");
      EXPECT_EQ(graph.type(op.operands[1]), (pir::TensorType{DType::kBF16, {1, 397, 48, 128}}));
    }
  }
  EXPECT_EQ(self, 48);
  EXPECT_EQ(cross, 48);
}

TEST(StepVideoTest, ForwardFlops) {
  // Batch 1 at the default (L = 75,888): blocks 48 x 222,544,191,946,752 =
  // 10,682,121,213,444,096, outside 169,180,397,568; 10,682,290,393,841,664 in
  // all (~10.7 PFLOP; self-attention, 4 L^2 d per block, is 64% of it).
  EXPECT_EQ(ForwardFlops(75'888), 10'682'290'393'841'664);
  EXPECT_EQ(MatmulAndAttentionFlops(Forward(Config(CfgMode::kNone))), 10'682'290'393'841'664);
  // 17 frames: 6,324 tokens.
  EXPECT_EQ(MatmulAndAttentionFlops(Forward(Config(CfgMode::kNone, 17))), ForwardFlops(6'324));
}

TEST(StepVideoTest, Batch2StepIsTwoForwards) {
  auto step = BuildStep(Config(std::nullopt, 17));
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->attrs().GetInt("forwards_per_step"), 1);
  EXPECT_EQ(ParamCount(*step), 29'342'478'400);
  EXPECT_EQ(MatmulAndAttentionFlops(*step), 2 * ForwardFlops(6'324));
  EXPECT_EQ(step->type(step->outputs()[0]), (pir::TensorType{DType::kF32, {1, 64, 3, 34, 62}}));
}

TEST(StepVideoTest, DeployedSequenceSplitNeedsEqualChunks) {
  // 75,888 = 2^4 * 3^2 * 17 * 31: the README's Ulysses 8 and 16 split evenly, 5 does not.
  ModelConfig config = Config();
  ExpectSequenceSplits(config, {8, 16}, {5}, "75888 video tokens");
}

}  // namespace
}  // namespace az::zoo::zoo_test
