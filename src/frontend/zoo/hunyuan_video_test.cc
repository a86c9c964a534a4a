// HunyuanVideo 13B: parameter counts, tokens and FLOPs against the figures
// derived in reference/models.md §2.3-2.4, plus the graph's interface.
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

constexpr int64_t kD = 3072;

ModelConfig Config(std::optional<int64_t> width = std::nullopt, std::optional<int64_t> height = std::nullopt,
                   std::optional<CfgMode> cfg = std::nullopt) {
  return zoo_test::Resolve("hunyuanvideo-13b", zoo_test::Options(cfg, std::nullopt, width, height));
}

// Matmul + attention FLOPs of one batch-1 forward outside the 60 blocks' token
// work, term by term (2 FLOPs per multiply-add; d = 3072; L = video tokens).
int64_t ExtraFlops(int64_t video_tokens) {
  const int64_t d = kD, l = video_tokens;
  const int64_t img_in = 2 * l * d * 16 * (1 * 2 * 2);        // conv: per output, C_in x kernel MACs
  const int64_t final_linear = 2 * l * d * 64;                // Linear(d, 64) on the image tokens
  const int64_t final_modulation = 2 * d * (2 * d);           // Linear(d, 2d) on vec
  const int64_t time_in = 2 * 256 * d + 2 * d * d;            // 256 -> d -> d
  const int64_t guidance_in = time_in;                        // same shape
  const int64_t vector_in = 2 * 768 * d + 2 * d * d;          // 768 -> d -> d
  const int64_t refiner_t = 2 * 256 * d + 2 * d * d;          // txt_in.t_embedder
  const int64_t refiner_c = 2 * 4096 * d + 2 * d * d;         // txt_in.c_embedder on the mean row
  const int64_t refiner_input = 2 * 256 * 4096 * d;           // txt_in.input_embedder on 256 rows
  const int64_t refiner_block = 2 * d * (2 * d)               // adaLN gates on c
                                + 2 * 256 * d * (3 * d)       // qkv
                                + 2 * 256 * d * d             // proj
                                + 2 * 2 * 256 * d * (4 * d)   // fc1 and fc2
                                + 4 * 256 * 256 * d;          // self-attention QK^T and PV
  const int64_t block_modulations = 20 * 2 * (2 * d * 6 * d)  // img_mod, txt_mod: Linear(d, 6d)
                                    + 40 * (2 * d * 3 * d);   // single modulation: Linear(d, 3d)
  return img_in + final_linear + final_modulation + time_in + guidance_in + vector_in + refiner_t + refiner_c +
         refiner_input + 2 * refiner_block + block_modulations;
}

// models.md §2.4: F_fwd = 60 * (24 N d^2 + 4 N^2 d), N = video tokens + 256.
int64_t BlockFlops(int64_t video_tokens) {
  const int64_t n = video_tokens + 256;
  return 60 * (24 * n * kD * kD + 4 * n * n * kD);
}

TEST(HunyuanVideoTest, ResolvesDefaults) {
  // models.md §2.5: 1280x720, 129 frames, 50 steps, one batch-1 forward per step.
  ModelConfig config = Config();
  ExpectDefaults(config, {.width = 1280, .height = 720, .frames = 129, .steps = 50, .cfg = CfgMode::kNone});
  EXPECT_EQ(config.dtype, DType::kBF16);
}

TEST(HunyuanVideoTest, RejectsBadSizes) {
  zoo_test::ExpectRejected("hunyuanvideo-13b", zoo_test::Options(std::nullopt, 130), {"frames must be 4n+1", "130"});
  zoo_test::ExpectRejected("hunyuanvideo-13b", zoo_test::Options(std::nullopt, std::nullopt, 1000),
                           {"multiples of 16", "1000x720"});
}

TEST(HunyuanVideoTest, CountsTokens) {
  // L_img = ((F-1)/4 + 1) * (H/16) * (W/16); 256 text tokens.
  TokenCounts hd = CountTokens(Config());
  EXPECT_EQ(hd.video, 118'800);  // 33 * 45 * 80
  EXPECT_EQ(hd.text, 256);
  EXPECT_EQ(CountTokens(Config(960, 544)).video, 67'320);  // 33 * 34 * 60
}

TEST(HunyuanVideoTest, ParameterCountMatchesPublished) {
  Graph graph = Forward(Config());
  // models.md §2.3: 1355 d^2 + 10940 d + 20544 at d = 3072.
  EXPECT_EQ(ParamCount(graph), 1355 * kD * kD + 10940 * kD + 20544);
  EXPECT_EQ(ParamCount(graph), 12'821'012'544);
  EXPECT_EQ(ParamCount(graph), FindModel("hunyuanvideo-13b").value()->published_params);
}

TEST(HunyuanVideoTest, ParameterCountPerPart) {
  Graph graph = Forward(Config());
  // Dual-stream block: per stream mod 6d^2+6d, qkv 3d^2+3d, q/k norms 2*128,
  // proj d^2+d, fc1 4d^2+4d, fc2 4d^2+d = 18d^2 + 15d + 256; two streams.
  EXPECT_EQ(ParamCount(graph, "double_blocks.0."), 36 * kD * kD + 30 * kD + 512);
  EXPECT_EQ(ParamCount(graph, "double_blocks.0."), 339'831'296);
  EXPECT_EQ(ParamCount(graph, "double_blocks.0.img_"), 169'915'648);
  EXPECT_EQ(ParamCount(graph, "double_blocks."), 6'796'625'920);  // 20 blocks
  // Single-stream block: linear1 7d^2+7d, linear2 5d^2+d, modulation 3d^2+3d, q/k norms 256.
  EXPECT_EQ(ParamCount(graph, "single_blocks.0."), 15 * kD * kD + 11 * kD + 256);
  EXPECT_EQ(ParamCount(graph, "single_blocks.0."), 141'591'808);
  EXPECT_EQ(ParamCount(graph, "single_blocks."), 5'663'672'320);  // 40 blocks
  // Token refiner: 2 blocks x (14d^2 + 15d) + input 4097d + t 258d + d^2 + c 4098d + d^2.
  EXPECT_EQ(ParamCount(graph, "txt_in."), 30 * kD * kD + 8483 * kD);
  EXPECT_EQ(ParamCount(graph, "txt_in."), 309'175'296);
  EXPECT_EQ(ParamCount(graph, "img_in."), 199'680);      // 65d: 16*1*2*2 d + d
  EXPECT_EQ(ParamCount(graph, "time_in."), 10'229'760);  // d^2 + 258d
  EXPECT_EQ(ParamCount(graph, "guidance_in."), 10'229'760);
  EXPECT_EQ(ParamCount(graph, "vector_in."), 11'802'624);    // d^2 + 770d
  EXPECT_EQ(ParamCount(graph, "final_layer."), 19'077'184);  // 2d^2 + 66d + 64
}

TEST(HunyuanVideoTest, RopeTableIsABufferNotAParameter) {
  Graph graph = Forward(Config());
  ExpectConstant(graph, "rope.table", {DType::kF32, {118'800, 128}});
}

TEST(HunyuanVideoTest, ForwardInterface) {
  Graph graph = Forward(Config());
  // Latent 16 x 33 x 90 x 160 (VAE 4x time, 8x8 space), f32.
  ExpectInterface(graph, {DType::kF32, {1, 16, 33, 90, 160}},
                  {{"latent", {DType::kF32, {1, 16, 33, 90, 160}}},
                   {"timestep", {DType::kF32, {1}}},
                   {"text_states", {DType::kBF16, {1, 256, 4096}}},
                   {"clip_pooled", {DType::kBF16, {1, 768}}},
                   {"guidance", {DType::kF32, {1}}}});
  ExpectTokens(graph, 118'800, 256);
}

TEST(HunyuanVideoTest, DitRunsInConfigDtype) {
  // Every matmul, attention and convolution reads bf16: the f32 latent and
  // sinusoidal embeddings are cast before they reach a weight.
  Graph graph = Forward(Config());
  int heavy_ops = 0;
  for (const pir::Op& op : graph.ops()) {
    if (op.kind != pir::OpKind::kEinsum && op.kind != pir::OpKind::kAttention && op.kind != pir::OpKind::kConv3d) {
      continue;
    }
    ++heavy_ops;
    for (pir::ValueId v : op.operands) EXPECT_EQ(graph.type(v).dtype, DType::kBF16) << op.name;
  }
  // Linears: vec MLPs 6, refiner embedders 5 + blocks 2 x 5, dual 20 x 2 x 5,
  // single 40 x 3, final 2 = 343; attentions 2 + 60; one conv.
  EXPECT_EQ(heavy_ops, 343 + 62 + 1);
}

TEST(HunyuanVideoTest, ForwardFlopsAt720p) {
  Graph graph = Forward(Config());
  // models.md §2.4 table: 60 blocks at N = 118,800 + 256.
  EXPECT_EQ(BlockFlops(118'800), 12'068'367'724'707'840);
  // Outside the blocks' token work: conv and final linear 2 * 128 L d =
  // 93,428,121,600; vec MLPs and final modulation 10 d^2 + 2560 d =
  // 102,236,160; token refiner 124,157,165,568; block modulations
  // (20 * 24 + 40 * 6) d^2 = 720 d^2 = 6,794,772,480.
  EXPECT_EQ(ExtraFlops(118'800), 224'482'295'808);
  EXPECT_EQ(MatmulAndAttentionFlops(graph), BlockFlops(118'800) + ExtraFlops(118'800));
  EXPECT_EQ(MatmulAndAttentionFlops(graph), 12'068'592'207'003'648);
  EXPECT_NEAR(static_cast<double>(MatmulAndAttentionFlops(graph)), 12.07e15, 0.01 * 12.07e15);
}

TEST(HunyuanVideoTest, ForwardFlopsAt540p) {
  Graph graph = Forward(Config(960, 544));
  // models.md §2.4 table: 60 blocks at N = 67,320 + 256.
  EXPECT_EQ(BlockFlops(67'320), 4'285'127'841'546'240);
  // Same extras with L = 67,320: conv and final linear 2 * 128 L d = 52,942,602,240; the rest as at 720p.
  EXPECT_EQ(ExtraFlops(67'320), 183'996'776'448);
  EXPECT_EQ(MatmulAndAttentionFlops(graph), BlockFlops(67'320) + ExtraFlops(67'320));
  EXPECT_EQ(MatmulAndAttentionFlops(graph), 4'285'311'838'322'688);
  EXPECT_NEAR(static_cast<double>(MatmulAndAttentionFlops(graph)), 4.285e15, 0.01 * 4.285e15);
  EXPECT_EQ(graph.type(graph.outputs()[0]), (pir::TensorType{DType::kF32, {1, 16, 33, 68, 120}}));
}

TEST(HunyuanVideoTest, StepWithoutCfgIsOneForward) {
  ModelConfig config = Config();
  auto step = BuildStep(config);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  Graph forward = Forward(config);
  EXPECT_EQ(step->attrs().GetInt("forwards_per_step"), 1);
  EXPECT_EQ(ParamCount(*step), 12'821'012'544);
  EXPECT_EQ(MatmulAndAttentionFlops(*step), MatmulAndAttentionFlops(forward));
  ASSERT_EQ(step->outputs().size(), 1u);
  EXPECT_EQ(step->type(step->outputs()[0]), (pir::TensorType{DType::kF32, {1, 16, 33, 90, 160}}));
}

TEST(HunyuanVideoTest, TwoPassStepSharesWeights) {
  ModelConfig config = Config(std::nullopt, std::nullopt, CfgMode::kTwoPass);
  auto step = BuildStep(config);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  Graph forward = Forward(config);
  EXPECT_EQ(step->attrs().GetInt("forwards_per_step"), 2);
  // Both passes use one set of weights.
  EXPECT_EQ(ParamCount(*step), 12'821'012'544);
  // Two forwards; the guidance combine and the Euler update are element-wise.
  EXPECT_EQ(MatmulAndAttentionFlops(*step), 2 * MatmulAndAttentionFlops(forward));
  EXPECT_EQ(MatmulAndAttentionFlops(*step), 2 * 12'068'592'207'003'648);
  // The text conditioning differs per pass; the guidance scale is shared.
  int text_inputs = 0, guidance_inputs = 0;
  for (const pir::Value& v : step->values()) {
    if (v.role != ValueRole::kInput) continue;
    if (v.name == "text_states" || v.name == "text_states.uncond") ++text_inputs;
    if (v.name == "guidance") ++guidance_inputs;
  }
  EXPECT_EQ(text_inputs, 2);
  EXPECT_EQ(guidance_inputs, 1);
}

TEST(HunyuanVideoTest, Batch2StepIsOneForwardAtBatchTwo) {
  ModelConfig config = Config(std::nullopt, std::nullopt, CfgMode::kBatch2);
  auto step = BuildStep(config);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(ParamCount(*step), 12'821'012'544);
  // Every matmul and attention is linear in the batch, so batch 2 costs two batch-1 forwards.
  EXPECT_EQ(MatmulAndAttentionFlops(*step), 2 * 12'068'592'207'003'648);
  EXPECT_EQ(step->type(step->outputs()[0]), (pir::TensorType{DType::kF32, {1, 16, 33, 90, 160}}));
}

}  // namespace
}  // namespace az::zoo::zoo_test
