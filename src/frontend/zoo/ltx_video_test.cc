// LTX-Video 2B and 13B: parameter counts, tokens and FLOPs against the figures
// derived by hand from the configs (ltx_video.cc), the 8n+1 frame and
// 32-pixel rules, the sequence split of diffusers' context parallelism, and the
// graph's interface.
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

ModelConfig Config(const std::string& model, std::optional<CfgMode> cfg = std::nullopt,
                   std::optional<int64_t> frames = std::nullopt) {
  return zoo_test::Resolve(model, zoo_test::Options(cfg, frames));
}

// Parameters of one LTXVideoTransformerBlock (cross_attention_dim = d in both models):
//   norm1, norm2        RMSNorm without weight: 0
//   attn1, attn2        to_q, to_k, to_v, to_out.0 with biases: 4 (d^2 + d);
//                       norm_q, norm_k RMSNorm(d) weights: 2d; each 4 d^2 + 6 d
//   ff                  net.0.proj d x 4d + 4d, net.2 4d x d + d: 8 d^2 + 5 d
//   scale_shift_table   [6, d]: 6 d
// = 16 d^2 + 23 d.
int64_t BlockParams(int64_t d) { return 16 * d * d + 23 * d; }

// Outside the blocks:
//   proj_in             Linear(128, d): 129 d
//   time_embed          emb.timestep_embedder linear_1 (256 -> d) + linear_2 (d -> d): 257 d + d^2 + d;
//                       linear (d -> 6d): 6 d^2 + 6 d
//   caption_projection  linear_1 (4096 -> d) + linear_2 (d -> d): 4097 d + d^2 + d
//   scale_shift_table   [2, d]: 2 d;  norm_out: LayerNorm without affine, 0
//   proj_out            Linear(d, 128): 128 d + 128
// = 8 d^2 + 4621 d + 128.
int64_t OuterParams(int64_t d) { return 8 * d * d + 4621 * d + 128; }

// Matmul + attention FLOPs of one batch-1 forward (2 per multiply-add), L video
// tokens, T text rows:
//   per block   attn1 to_q/k/v/out, attn2 to_q/out and the FFN on L rows:
//               (8 + 4 + 16) L d^2 = 28 L d^2; attn2 to_k/to_v on T rows: 4 T d^2;
//               self-attention QK^T and PV 4 L^2 d; cross-attention 4 L T d
//   outside     proj_in and proj_out 2 * 2 L 128 d; time MLP and time_embed.linear
//               2 (256 d + d^2) + 2 * 6 d^2; caption_projection 2 T (4096 d + d^2)
int64_t ForwardFlops(int64_t d, int64_t layers, int64_t l, int64_t t) {
  const int64_t block = 28 * l * d * d + 4 * t * d * d + 4 * l * l * d + 4 * l * t * d;
  const int64_t outer = 2 * 2 * l * 128 * d + 2 * (256 * d + d * d) + 2 * 6 * d * d + 2 * t * (4096 * d + d * d);
  return layers * block + outer;
}

TEST(LtxVideoTest, ResolvesDefaults) {
  // 2B: diffusers' LTXPipeline, 704x512, 161 frames, 50 steps, CFG 3.0 on
  // [negative; positive] as one batch. 13B: Lightricks' inference.py
  // 1216x704, 121 frames; the distilled checkpoint's 8 steps, guidance 1.
  ModelConfig small = Config("ltx-video-2b");
  ExpectDefaults(small, {.width = 704, .height = 512, .frames = 161, .steps = 50, .cfg = CfgMode::kBatch2});
  EXPECT_EQ(small.patch, 1);
  EXPECT_EQ(small.vae_stride, 32);
  ModelConfig large = Config("ltx-video-13b");
  ExpectDefaults(large, {.width = 1216, .height = 704, .frames = 121, .steps = 8, .cfg = CfgMode::kNone});
}

TEST(LtxVideoTest, LatentFramesAndTokens) {
  // (frames - 1) / 8 + 1: 161 -> 21, 121 -> 16, 9 -> 2.
  EXPECT_EQ(Config("ltx-video-2b").latent_frames(), 21);
  EXPECT_EQ(Config("ltx-video-13b").latent_frames(), 16);
  EXPECT_EQ(Config("ltx-video-2b", std::nullopt, 9).latent_frames(), 2);
  TokenCounts small = CountTokens(Config("ltx-video-2b"));
  EXPECT_EQ(small.video, 7'392);  // 21 x 16 x 22, models.md §3
  EXPECT_EQ(small.text, 128);
  TokenCounts large = CountTokens(Config("ltx-video-13b"));
  EXPECT_EQ(large.video, 13'376);  // 16 x 22 x 38
  EXPECT_EQ(large.text, 256);
}

TEST(LtxVideoTest, RejectsBadFramesAndSizes) {
  // 45 = 4n+1 but not 8n+1; 160 is neither.
  for (int64_t frames : {45, 160}) {
    zoo_test::ExpectRejected("ltx-video-2b", zoo_test::Options(std::nullopt, frames),
                             {"frames must be 8n+1 (VAE temporal stride 8)", std::to_string(frames)});
  }
  // 720 is a multiple of 16 but not of 32.
  zoo_test::ExpectRejected("ltx-video-13b", zoo_test::Options(std::nullopt, std::nullopt, std::nullopt, 720),
                           {"multiples of 32 (VAE stride 32 x patch 1)", "1216x720"});
}

TEST(LtxVideoTest, ParameterCountsMatchTheConfigs) {
  struct Case {
    const char* model;
    int64_t d, layers, expected;
  };
  // 2B: 28 x 67,155,968 + 43,018,368 = 1,923,385,472 (~1.9B, the published "2B").
  // 13B: 48 x 268,529,664 + 153,145,472 = 13,042,569,344 (~13.0B).
  for (const Case& c :
       {Case{"ltx-video-2b", 2048, 28, 1'923'385'472}, Case{"ltx-video-13b", 4096, 48, 13'042'569'344}}) {
    EXPECT_EQ(c.layers * BlockParams(c.d) + OuterParams(c.d), c.expected) << c.model;
    Graph graph = Forward(Config(c.model, CfgMode::kNone, 9));
    EXPECT_EQ(ParamCount(graph), c.expected) << c.model;
    EXPECT_EQ(ParamCount(graph), FindModel(c.model).value()->published_params) << c.model;
    EXPECT_EQ(ParamCount(graph, "transformer_blocks.0."), BlockParams(c.d)) << c.model;
    EXPECT_EQ(ParamCount(graph, "transformer_blocks."), c.layers * BlockParams(c.d)) << c.model;
  }
}

TEST(LtxVideoTest, ParameterCountPerPart) {
  Graph graph = Forward(Config("ltx-video-2b", CfgMode::kNone, 9));
  const int64_t d = 2048;
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1."), 4 * d * d + 6 * d);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.norm_q."), d);  // RMSNorm across the heads
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn2."), 4 * d * d + 6 * d);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.ff."), 8 * d * d + 5 * d);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.norm"), 0);  // norm1, norm2 have no weight
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.scale_shift_table"), 6 * d);
  EXPECT_EQ(ParamCount(graph, "proj_in."), 129 * d);
  EXPECT_EQ(ParamCount(graph, "time_embed."), 7 * d * d + 264 * d);
  EXPECT_EQ(ParamCount(graph, "caption_projection."), d * d + 4098 * d);
  EXPECT_EQ(ParamCount(graph, "scale_shift_table"), 2 * d);
  EXPECT_EQ(ParamCount(graph, "proj_out."), 128 * d + 128);
}

TEST(LtxVideoTest, ForwardInterfaceAndAttention) {
  Graph graph = Forward(Config("ltx-video-2b", CfgMode::kNone));
  ExpectInterface(graph, {DType::kF32, {1, 128, 21, 16, 22}},
                  {{"latent", {DType::kF32, {1, 128, 21, 16, 22}}},
                   {"timestep", {DType::kF32, {1}}},
                   {"encoder_hidden_states", {DType::kBF16, {1, 128, 4096}}}});
  ExpectTokens(graph, 7'392, 128);
  int self = 0, cross = 0, ropes = 0;
  for (const pir::Op& op : graph.ops()) {
    if (op.kind == pir::OpKind::kRope) ++ropes;
    if (op.kind != pir::OpKind::kAttention) continue;
    EXPECT_EQ(graph.type(op.operands[0]), (pir::TensorType{DType::kBF16, {1, 7'392, 32, 64}}));
    if (op.attrs.GetString("mode").value_or("") == "self") {
      ++self;
    } else {
      ++cross;
      EXPECT_EQ(graph.type(op.operands[1]), (pir::TensorType{DType::kBF16, {1, 128, 32, 64}}));
    }
  }
  EXPECT_EQ(self, 28);
  EXPECT_EQ(cross, 28);
  EXPECT_EQ(ropes, 2 * 28);  // q and k of the self-attention only
  // The RoPE table is a buffer over the tokens, per head.
  ExpectConstant(graph, "rope.table", {DType::kF32, {7'392, 64}});
}

TEST(LtxVideoTest, ForwardFlops) {
  struct Case {
    const char* model;
    int64_t d, layers, video, text, expected;
  };
  // Batch 1 at the defaults, ForwardFlops term by term:
  //   2B   blocks 37,118,013,341,696 + outside 11,032,068,096 (L 7,392, T 128)
  //   13B  blocks 445,833,711,452,160 + outside 45,468,352,512 (L 13,376, T 256)
  for (const Case& c : {Case{"ltx-video-2b", 2048, 28, 7'392, 128, 37'129'045'409'792},
                        Case{"ltx-video-13b", 4096, 48, 13'376, 256, 445'879'179'804'672}}) {
    EXPECT_EQ(ForwardFlops(c.d, c.layers, c.video, c.text), c.expected) << c.model;
    EXPECT_EQ(MatmulAndAttentionFlops(Forward(Config(c.model, CfgMode::kNone))), c.expected) << c.model;
  }
}

TEST(LtxVideoTest, Batch2StepIsTwoForwards) {
  auto step = BuildStep(Config("ltx-video-2b"));
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->attrs().GetInt("forwards_per_step"), 1);
  EXPECT_EQ(ParamCount(*step), 1'923'385'472);
  EXPECT_EQ(MatmulAndAttentionFlops(*step), 2 * 37'129'045'409'792);
}

TEST(LtxVideoTest, DeployedSequenceSplitDividesTokensAndText) {
  // 7,392 = 2^5 * 3 * 7 * 11 video tokens and 128 text rows: sp 8 and 32
  // split both; sp 3 splits the video tokens but not the 128 rows.
  ModelConfig config = Config("ltx-video-2b");
  ExpectSequenceSplits(config, {8, 32}, {3}, "128 text rows");
}

}  // namespace
}  // namespace az::zoo::zoo_test
