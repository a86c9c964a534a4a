// Mochi 1: parameter count, tokens and FLOPs against the figures derived by
// hand from the diffusers config (mochi.cc), the 6n+1 frame rule, the
// asymmetric streams and the last block's missing text update.
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

ModelConfig Config(std::optional<CfgMode> cfg = std::nullopt, std::optional<int64_t> frames = std::nullopt) {
  return zoo_test::Resolve("mochi-1", zoo_test::Options(cfg, frames));
}

constexpr int64_t kD = 3072, kDy = 1536, kF = 8192, kFy = 4096;

// One of blocks 0-46, every nn.Parameter of MochiTransformerBlock:
//   norm1.linear          Linear(d, 4d) + bias               4d^2 + 4d
//   norm1_context.linear  Linear(d, 4 dy) + bias             4 d dy + 4 dy
//   attn1 to_q/k/v        3 x Linear(d, d), no bias          3d^2
//         add_q/k/v_proj  3 x Linear(dy, d), no bias         3 d dy
//         to_out.0        Linear(d, d) + bias                d^2 + d
//         to_add_out      Linear(d, dy) + bias               d dy + dy
//         norm_q/k, norm_added_q/k  RMSNorm(128) weights     512
//   ff                    SwiGLU: d x 2f, f x d, no bias     3 d f
//   ff_context            dy x 2fy, fy x dy                  3 dy fy
// = 8d^2 + 8 d dy + 3 d f + 3 dy fy + 5d + 5dy + 512 = 207,641,600.
constexpr int64_t kBlock = 8 * kD * kD + 8 * kD * kDy + 3 * kD * kF + 3 * kDy * kFy + 5 * kD + 5 * kDy + 512;
// Block 47 (context_pre_only): norm1_context is Linear(d, dy) + bias, no
// to_add_out, no ff_context (add_q_proj stays):
// 8d^2 + 4 d dy + 3 d f + 5d + dy + 512 = 169,886,720.
constexpr int64_t kLastBlock = 8 * kD * kD + 4 * kD * kDy + 3 * kD * kF + 5 * kD + kDy + 512;
// Outside the blocks:
//   patch_embed.proj      Conv2d(12, d, 2x2) + bias          49d
//   time_embed.timestep_embedder  Linear(256, d), Linear(d, d) with biases   d^2 + 258d
//   time_embed.pooler     to_kv 4096 x 8192, to_q 4096 x 4096, to_out 4096 x d, biases
//                         = 50,343,936 + 4097d
//   time_embed.caption_proj  Linear(4096, dy) + bias         4097 dy
//   pos_frequencies       [3, 24, 64]                        4,608
//   norm_out.linear       Linear(d, 2d) + bias               2d^2 + 2d
//   proj_out              Linear(d, 48) + bias               48d + 48
// = 3d^2 + 4454d + 4097 dy + 50,348,592 = 98,635,824.
constexpr int64_t kOuter = 3 * kD * kD + (49 + 258 + 4097 + 2 + 48) * kD + 4097 * kDy + 50'343'936 + 4'608 + 48;

TEST(MochiTest, ResolvesDefaults) {
  // models.md §3: 848x480, 163 frames, 64 steps, CFG as one batch-2 forward (diffusers).
  ModelConfig config = Config();
  ExpectDefaults(config, {.width = 848, .height = 480, .frames = 163, .steps = 64, .cfg = CfgMode::kBatch2});
  EXPECT_EQ(config.forward_batch(), 2);
  // VAE 6x in time: (163 - 1) / 6 + 1 = 28 latent frames; 61 -> 11.
  EXPECT_EQ(config.latent_frames(), 28);
  EXPECT_EQ(Config(std::nullopt, 61).latent_frames(), 11);
  EXPECT_EQ(DepthUnits(config), 48);
}

TEST(MochiTest, RejectsBadFramesAndSizes) {
  // 161 = 4n+1 (every other model's rule) but not 6n+1.
  for (int64_t frames : {161, 164, 0}) {
    zoo_test::ExpectRejected("mochi-1", zoo_test::Options(std::nullopt, frames),
                             {"frames must be 6n+1 (VAE temporal stride 6)", "got " + std::to_string(frames)});
  }
  zoo_test::ExpectRejected("mochi-1", zoo_test::Options(std::nullopt, std::nullopt, 850),
                           {"multiples of 16", "850x480"});
}

TEST(MochiTest, CountsTokens) {
  // 28 latent frames x (480 / 16) x (848 / 16) = 28 x 30 x 53 = 44,520 (models.md §3), + 256 text.
  TokenCounts tokens = CountTokens(Config());
  EXPECT_EQ(tokens.video, 44'520);
  EXPECT_EQ(tokens.text, 256);
  EXPECT_EQ(CountTokens(Config(std::nullopt, 61)).video, 11 * 30 * 53);
}

TEST(MochiTest, ParameterCountMatchesTheConfig) {
  // 47 x 207,641,600 + 169,886,720 + 98,635,824 = 10,027,677,744 (~10.0B, the published "10B").
  EXPECT_EQ(kBlock, 207'641'600);
  EXPECT_EQ(kLastBlock, 169'886'720);
  EXPECT_EQ(kOuter, 98'635'824);
  EXPECT_EQ(47 * kBlock + kLastBlock + kOuter, 10'027'677'744);
  Graph graph = Forward(Config());
  EXPECT_EQ(ParamCount(graph), 10'027'677'744);
  EXPECT_EQ(FindModel("mochi-1").value()->published_params, 10'027'677'744);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0."), kBlock);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.46."), kBlock);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.47."), kLastBlock);
}

TEST(MochiTest, ParameterCountPerPart) {
  Graph graph = Forward(Config());
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.to_q."), kD * kD);  // no bias
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.add_k_proj."), kDy * kD);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.to_add_out."), kD * kDy + kDy);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.norm_added_q."), 128);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.ff."), 3 * kD * kF);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.ff_context."), 3 * kDy * kFy);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.47.norm1_context."), kD * kDy + kDy);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.47.ff_context."), 0);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.47.attn1.to_add_out."), 0);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.47.attn1.add_q_proj."), kDy * kD);
  EXPECT_EQ(ParamCount(graph, "patch_embed."), 49 * kD);
  EXPECT_EQ(ParamCount(graph, "time_embed.pooler."), 50'343'936 + 4097 * kD);
  EXPECT_EQ(ParamCount(graph, "time_embed.caption_proj."), 4097 * kDy);
  EXPECT_EQ(ParamCount(graph, "pos_frequencies"), 3 * 24 * 64);
  EXPECT_EQ(ParamCount(graph, "norm_out."), 2 * kD * kD + 2 * kD);
  EXPECT_EQ(ParamCount(graph, "proj_out."), 48 * kD + 48);
}

TEST(MochiTest, AsymmetricJointAttention) {
  Graph graph = Forward(Config(CfgMode::kNone, 13));  // 3 latent frames: 4,770 visual tokens
  // One joint attention per block over visual + 256 text rows, 24 heads of 128, text at the rear.
  EXPECT_EQ(CountJointAttentions(graph, {DType::kBF16, {1, 4'770 + 256, 24, 128}}), 48u);
  for (const pir::Op* op : OpsOfKind(graph, pir::OpKind::kAttention)) {
    EXPECT_EQ(op->attrs.GetInt("joint_tail").value_or(0), 256);
  }
  ExpectInterface(graph, {DType::kF32, {1, 12, 3, 60, 106}},
                  {{"latent", {DType::kF32, {1, 12, 3, 60, 106}}},
                   {"timestep", {DType::kF32, {1}}},
                   {"encoder_hidden_states", {DType::kBF16, {1, 256, 4096}}}});
  // The text stream keeps its width 1536 between blocks; the visual one 3072.
  for (const pir::Value& v : graph.values()) {
    if (v.name == "transformer_blocks.0.attn1.to_add_out") {
      EXPECT_EQ(v.type, (pir::TensorType{DType::kBF16, {1, 256, 1536}}));
    }
  }
}

TEST(MochiTest, DeployedSequenceSplitNeedsDivisibleTokens) {
  // 44,520 = 2^3 * 3 * 5 * 7 * 53: U3xR2 (6) and 8 run; 9 and 16 do not.
  ModelConfig config = Config();
  ExpectSequenceSplits(config, {2, 3, 4, 5, 6, 7, 8, 12}, {9, 16}, "44520 visual tokens");
}

// Matmul + attention FLOPs of one batch-1 forward (2 per multiply-add), L
// visual tokens, T = 256, N = L + T:
//   blocks 0-46  visual q, k, v, o 8 L d^2; visual SwiGLU 6 L d f;
//                text add_q/k/v + to_add_out 8 T d dy; text SwiGLU 6 T dy fy;
//                attention 4 N^2 d; modulation linears 8 d^2 + 8 d dy
//   block 47     no to_add_out, no text SwiGLU: text 6 T d dy; modulation 8 d^2 + 2 d dy
//   outside      patch conv and proj_out 2 x 96 L d; RoPE angles 2 L 3 (24 x 64) = 9216 L;
//                timestep MLP 2 (256 d + d^2); pooler to_kv 2 x 257 x 4096 x 8192,
//                to_q 2 x 4096^2, scores and pool 4 x 257 x 4096, to_out 2 x 4096 d;
//                caption_proj 2 T 4096 dy; norm_out 4 d^2.
int64_t ForwardFlops(int64_t l) {
  const int64_t t = 256, n = l + t;
  const int64_t block = 8 * l * kD * kD + 6 * l * kD * kF + 8 * t * kD * kDy + 6 * t * kDy * kFy +
                        4 * n * n * kD + 8 * kD * kD + 8 * kD * kDy;
  const int64_t last =
      8 * l * kD * kD + 6 * l * kD * kF + 6 * t * kD * kDy + 4 * n * n * kD + 8 * kD * kD + 2 * kD * kDy;
  const int64_t text = 4096;
  const int64_t outer = 2 * 96 * l * kD + 9216 * l + 2 * (256 * kD + kD * kD) + 2 * 257 * text * 8192 +
                        2 * text * text + 4 * 257 * text + 2 * text * kD + 2 * t * text * kDy + 4 * kD * kD;
  return 47 * block + last + outer;
}

TEST(MochiTest, ForwardFlops) {
  // 848x480, 163 frames, L = 44,520: 47 x 34,738,973,442,048 + 34,726,865,534,976
  // + 47,258,591,232 = 1,667,505,875,902,464 (1.668 PF per batch-1 forward).
  EXPECT_EQ(ForwardFlops(44'520), 1'667'505'875'902'464);
  EXPECT_EQ(MatmulAndAttentionFlops(Forward(Config(CfgMode::kNone))), 1'667'505'875'902'464);
  // The batch-2 step: two batch-1 forwards, but one set of RoPE angles (they
  // do not depend on the batch): minus 9216 x 44,520.
  auto step = BuildStep(Config());
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(MatmulAndAttentionFlops(*step), 2 * 1'667'505'875'902'464 - 9216 * 44'520);
}

}  // namespace
}  // namespace az::zoo::zoo_test
