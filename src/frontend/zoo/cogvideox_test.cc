// CogVideoX-2B, -5B and 1.5-5B: parameter counts, tokens and FLOPs against the
// figures derived by hand from the diffusers configs (cogvideox.cc), the frame
// rules, and the graph's interface.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "frontend/zoo/testing.h"
#include "frontend/zoo/zoo.h"
#include "pir/rules/cost.h"
#include "pir/verify/verifier.h"

namespace az::zoo::zoo_test {
namespace {

ModelConfig Config(const std::string& model, std::optional<CfgMode> cfg = std::nullopt,
                   std::optional<int64_t> frames = std::nullopt) {
  return zoo_test::Resolve(model, zoo_test::Options(cfg, frames));
}

// Parameters of one block, every nn.Parameter of CogVideoXBlock (d = 64 heads):
//   norm1, norm2  Linear(512, 6d) + bias, LayerNorm(d) weight + bias: 2 * (3072d + 6d + 2d)
//   attn1         to_q, to_k, to_v, to_out.0: 4 (d^2 + d); norm_q, norm_k: 2 * (64 + 64)
//   ff            net.0.proj d x 4d + 4d, net.2 4d x d + d
// = 12 d^2 + 6169 d + 256.
int64_t BlockParams(int64_t d) { return 12 * d * d + 6169 * d + 256; }

// Outside the blocks:
//   patch_embed.proj   1.0: Conv2d(16, d, 2x2) + bias = 65d; 1.5: Linear(16*2*2*2 = 128, d) + bias = 129d
//   patch_embed.text_proj  Linear(4096, d) = 4097d
//   time_embedding     Linear(d, 512) + Linear(512, 512) = (512d + 512) + (262,144 + 512) = 512d + 263,168
//   norm_final         2d;  norm_out: Linear(512, 2d) + LayerNorm(d) = 1026d + 2d
//   proj_out           1.0: Linear(d, 64) = 64d + 64; 1.5: Linear(d, 128) = 128d + 128
int64_t OuterParams(int64_t d, int64_t patch_t) {
  const int64_t patch_in = 16 * patch_t * 2 * 2, patch_out = patch_in;
  return (patch_in + 1) * d + 4097 * d + (512 * d + 263'168) + 2 * d + (1026 * d + 2 * d) + (patch_out * d + patch_out);
}

// Matmul + attention FLOPs of one batch-1 forward (2 per multiply-add),
// L video tokens, N = L + 226 joint tokens:
//   per block   q, k, v, o and the FFN on N tokens: (4 + 8) * 2 N d^2 = 24 N d^2;
//               attention QK^T and PV: 4 N^2 d; the two modulation linears on
//               emb: 2 * 2 * 512 * 6d = 12,288 d
//   outside     time_embedding 2 * (512 d + 512^2); text_proj 2 * 226 * 4096 d;
//               patch embedding and proj_out 2 * L * d * (16 p_t * 4) each;
//               norm_out linear 2 * 512 * 2d.
int64_t ForwardFlops(int64_t d, int64_t layers, int64_t video_tokens, int64_t patch_t) {
  const int64_t l = video_tokens, n = l + 226, patch = 16 * patch_t * 4;
  const int64_t blocks = layers * (24 * n * d * d + 4 * n * n * d + 12'288 * d);
  const int64_t outer = 2 * (512 * d + 512 * 512) + 2 * 226 * 4096 * d + 2 * (2 * l * d * patch) + 2 * 512 * 2 * d;
  return blocks + outer;
}

TEST(CogVideoXTest, ResolvesDefaults) {
  // models.md §3: 720x480, 49 frames (1.5: 1360x768, 81), 50 steps, CFG as one batch-2 forward.
  for (const char* model : {"cogvideox-2b", "cogvideox-5b"}) {
    ModelConfig config = Config(model);
    ExpectDefaults(config, {.width = 720, .height = 480, .frames = 49, .steps = 50, .cfg = CfgMode::kBatch2});
    EXPECT_EQ(config.forward_batch(), 2) << model;
  }
  ModelConfig v15 = Config("cogvideox1.5-5b");
  EXPECT_EQ(v15.width, 1360);
  EXPECT_EQ(v15.height, 768);
  EXPECT_EQ(v15.frames, 81);
  EXPECT_EQ(v15.cfg, CfgMode::kBatch2);
}

TEST(CogVideoXTest, LatentFramesPerFamily) {
  // 49 frames / VAE stride 4: 13 latent frames.
  EXPECT_EQ(Config("cogvideox-5b").latent_frames(), 13);
  // 1.5: 81 -> 21 latent frames, padded to 22 for the temporal patch of 2; 17 -> 5 -> 6.
  EXPECT_EQ(Config("cogvideox1.5-5b").latent_frames(), 22);
  EXPECT_EQ(Config("cogvideox1.5-5b", std::nullopt, 17).latent_frames(), 6);
  // Wan keeps the plain 4n+1 rule: 81 -> 21.
  auto wan = ResolveConfig("wan2.1-t2v-14b", {});
  ASSERT_TRUE(wan.ok());
  EXPECT_EQ(wan->latent_frames(), 21);
}

TEST(CogVideoXTest, RejectsBadFramesAndSizes) {
  struct Case {
    const char* model;
    int64_t frames;
    const char* message;
  };
  // 45 = 4n+1 but not 8n+1; 41 = 8n+1 but not 16n+1; 50 fails the common 4n+1 rule first.
  for (const Case& c : {Case{"cogvideox-5b", 45, "frames must be 8n+1"},
                        Case{"cogvideox-2b", 45, "frames must be 8n+1"},
                        Case{"cogvideox1.5-5b", 41, "frames must be 16n+1"},
                        Case{"cogvideox-5b", 50, "frames must be 4n+1"}}) {
    zoo_test::ExpectRejected(c.model, zoo_test::Options(std::nullopt, c.frames), {c.message, std::to_string(c.frames)});
  }
  zoo_test::ExpectRejected("cogvideox-5b", zoo_test::Options(std::nullopt, std::nullopt, 728),
                           {"multiples of 16", "728x480"});
}

TEST(CogVideoXTest, CountsTokens) {
  // (latent frames / p_t) x (H/16) x (W/16) video tokens; 226 text tokens.
  TokenCounts v5b = CountTokens(Config("cogvideox-5b"));
  EXPECT_EQ(v5b.video, 17'550);  // 13 x 30 x 45
  EXPECT_EQ(v5b.text, 226);
  EXPECT_EQ(CountTokens(Config("cogvideox-2b")).video, 17'550);
  TokenCounts v15 = CountTokens(Config("cogvideox1.5-5b"));
  EXPECT_EQ(v15.video, 44'880);  // 22 / 2 = 11 x 48 x 85
  EXPECT_EQ(v15.text, 226);
  EXPECT_EQ(CountTokens(Config("cogvideox1.5-5b", std::nullopt, 17)).video, 12'240);  // 3 x 48 x 85
}

TEST(CogVideoXTest, ParameterCountsMatchTheConfigs) {
  struct Case {
    const char* model;
    int64_t d, layers, patch_t, expected;
  };
  // 2B: 30 (12 d^2 + 6169 d + 256) + 5768 d + 263,232 at d = 1920 = 1,693,783,872 (~1.69B, the published size).
  // 5B: 42 blocks at d = 3072 = 5,570,283,072 (~5.57B). 1.5-5B: 5B with the
  // 128-input patch Linear and 128-output head: + 128 d + 64 = 5,570,676,352.
  for (const Case& c : {Case{"cogvideox-2b", 1920, 30, 1, 1'693'783'872},
                        Case{"cogvideox-5b", 3072, 42, 1, 5'570'283'072},
                        Case{"cogvideox1.5-5b", 3072, 42, 2, 5'570'676'352}}) {
    Graph graph = Forward(Config(c.model));
    EXPECT_EQ(c.layers * BlockParams(c.d) + OuterParams(c.d, c.patch_t), c.expected) << c.model;
    EXPECT_EQ(ParamCount(graph), c.expected) << c.model;
    EXPECT_EQ(ParamCount(graph), FindModel(c.model).value()->published_params) << c.model;
    EXPECT_EQ(ParamCount(graph, "transformer_blocks.0."), BlockParams(c.d)) << c.model;
    EXPECT_EQ(ParamCount(graph, "transformer_blocks."), c.layers * BlockParams(c.d)) << c.model;
  }
}

TEST(CogVideoXTest, ParameterCountPerPart) {
  Graph graph = Forward(Config("cogvideox-5b"));
  const int64_t d = 3072;
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.norm1."), 3080 * d);  // Linear(512, 6d) + LayerNorm(d)
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1."), 4 * d * d + 4 * d + 256);
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.attn1.norm_q."), 128);  // LayerNorm(64) weight + bias
  EXPECT_EQ(ParamCount(graph, "transformer_blocks.0.ff."), 8 * d * d + 5 * d);
  EXPECT_EQ(ParamCount(graph, "patch_embed.proj."), 65 * d);
  EXPECT_EQ(ParamCount(graph, "patch_embed.text_proj."), 4097 * d);
  EXPECT_EQ(ParamCount(graph, "time_embedding."), 512 * d + 263'168);
  EXPECT_EQ(ParamCount(graph, "norm_out."), 1028 * d);
  EXPECT_EQ(ParamCount(graph, "proj_out."), 64 * d + 64);
  Graph v15 = Forward(Config("cogvideox1.5-5b"));
  EXPECT_EQ(ParamCount(v15, "patch_embed.proj."), 129 * d);
  EXPECT_EQ(ParamCount(v15, "proj_out."), 128 * d + 128);
}

TEST(CogVideoXTest, OneLayerNormWeightForBothStreams) {
  // CogVideoXLayerNormZero normalizes the video and the text stream with one
  // LayerNorm module: the two norm ops read the same weight.
  Graph graph = Forward(Config("cogvideox-2b"));
  int readers = 0;
  for (const pir::Op& op : graph.ops()) {
    if (op.kind != pir::OpKind::kLayerNorm || op.operands.size() < 2) continue;
    if (graph.value(op.operands[1]).name == "transformer_blocks.0.norm1.norm.weight") ++readers;
  }
  EXPECT_EQ(readers, 2);
}

TEST(CogVideoXTest, PositionTablesAreBuffers) {
  // 2B: the joint sin-cos table [1, 226 + L, d] added after the patch
  // embedding, no RoPE. 5B: RoPE over the video tokens [L, 64], no table.
  std::map<std::string, std::pair<ValueRole, pir::TensorType>> found;
  for (const char* model : {"cogvideox-2b", "cogvideox-5b"}) {
    Graph graph = Forward(Config(model, CfgMode::kNone));
    for (const pir::Value& v : graph.values()) {
      if (v.name != "patch_embed.pos_embedding" && v.name != "rope.table") continue;
      found[model + (":" + v.name)] = {v.role, v.type};
    }
  }
  ASSERT_EQ(found.size(), 2u);
  auto pos = found.at("cogvideox-2b:patch_embed.pos_embedding");
  EXPECT_EQ(pos.first, ValueRole::kConstant);
  EXPECT_EQ(pos.second, (pir::TensorType{DType::kBF16, {1, 17'776, 1920}}));
  auto rope = found.at("cogvideox-5b:rope.table");
  EXPECT_EQ(rope.first, ValueRole::kConstant);
  EXPECT_EQ(rope.second, (pir::TensorType{DType::kF32, {17'550, 64}}));
}

TEST(CogVideoXTest, ForwardInterfaceAndJointAttention) {
  Graph graph = Forward(Config("cogvideox-5b", CfgMode::kNone));
  ExpectInterface(graph, {DType::kF32, {1, 16, 13, 60, 90}},
                  {{"latent", {DType::kF32, {1, 16, 13, 60, 90}}},
                   {"timestep", {DType::kF32, {1}}},
                   {"encoder_hidden_states", {DType::kBF16, {1, 226, 4096}}}});
  ExpectTokens(graph, 17'550, 226);
  // One joint attention per block over the 17,776 text + video tokens, 48 heads of 64.
  EXPECT_EQ(CountJointAttentions(graph, {DType::kBF16, {1, 17'776, 48, 64}}), 42u);
  // 1.5: the padded 22 latent frames in and out.
  Graph v15 = Forward(Config("cogvideox1.5-5b", CfgMode::kNone));
  EXPECT_EQ(v15.type(v15.outputs()[0]), (pir::TensorType{DType::kF32, {1, 16, 22, 96, 170}}));
}

TEST(CogVideoXTest, VideoTokensComeOutOfATranspose) {
  // Sequence parallelism shards the token dim of [B, L, *]: made by a
  // transpose, that dim is one factor L; made by the reshape that merges
  // (T', H', W'), a 4-way split would have to divide T' (11 at 81 frames), so
  // the 1.5 patchify transposes last, as the 1.0 convolution path does.
  struct Case {
    const char* model;
    const char* op;
    pir::TensorType tokens;
  };
  for (const Case& c : {Case{"cogvideox-5b", "patch_embed.to_tokens", {DType::kBF16, {1, 17'550, 3072}}},
                        Case{"cogvideox1.5-5b", "patch_embed.patchify.to_tokens", {DType::kBF16, {1, 44'880, 128}}}}) {
    Graph graph = Forward(Config(c.model, CfgMode::kNone));
    int found = 0;
    for (const pir::Op& op : graph.ops()) {
      if (op.name != c.op) continue;
      ++found;
      EXPECT_EQ(op.kind, pir::OpKind::kTranspose) << c.model;
      EXPECT_EQ(graph.type(op.results[0]), c.tokens) << c.model;
    }
    EXPECT_EQ(found, 1) << c.model;
  }
}

TEST(CogVideoXTest, ForwardFlops) {
  struct Case {
    const char* model;
    int64_t d, layers, video_tokens, patch_t, expected;
  };
  // Batch 1 (cfg none) at the defaults; ForwardFlops term by term:
  //   2B  blocks 119,985,124,147,200 + outside 12,187,271,168
  //   5B  blocks 332,178,212,782,080 + outside 19,499,319,296
  //   1.5 blocks 1,479,104,350,617,600 + outside 76,287,574,016 (N = 44,880 + 226)
  for (const Case& c : {Case{"cogvideox-2b", 1920, 30, 17'550, 1, 119'997'311'418'368},
                        Case{"cogvideox-5b", 3072, 42, 17'550, 1, 332'197'712'101'376},
                        Case{"cogvideox1.5-5b", 3072, 42, 44'880, 2, 1'479'180'638'191'616}}) {
    EXPECT_EQ(ForwardFlops(c.d, c.layers, c.video_tokens, c.patch_t), c.expected) << c.model;
    EXPECT_EQ(MatmulAndAttentionFlops(Forward(Config(c.model, CfgMode::kNone))), c.expected) << c.model;
  }
}

TEST(CogVideoXTest, Batch2StepIsTwoForwards) {
  ModelConfig config = Config("cogvideox-5b");
  auto step = BuildStep(config);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  Status verified = pir::VerifyGraph(*step);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  EXPECT_EQ(step->attrs().GetInt("forwards_per_step"), 1);
  EXPECT_EQ(ParamCount(*step), 5'570'283'072);
  // Every matmul and attention is linear in the batch: batch 2 = two batch-1 forwards.
  EXPECT_EQ(MatmulAndAttentionFlops(*step), 2 * 332'197'712'101'376);
  EXPECT_EQ(step->type(step->outputs()[0]), (pir::TensorType{DType::kF32, {1, 16, 13, 60, 90}}));
}

}  // namespace
}  // namespace az::zoo::zoo_test
