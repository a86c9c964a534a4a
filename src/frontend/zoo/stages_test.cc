// The non-DiT stages (stages.h): exact parameter counts and FLOPs, derived
// layer by layer from the modules' definitions, token and shape facts, and
// the verifier. FLOPs are matmul + attention (reference/models.md's count).
#include "frontend/zoo/stages.h"

#include <gtest/gtest.h>

#include "frontend/zoo/testing.h"

namespace az::zoo::zoo_test {
namespace {

std::vector<std::string> Names(const ModelConfig& config) {
  std::vector<std::string> names;
  for (const StageInfo& s : StagesOf(config)) names.push_back(s.name);
  return names;
}

TEST(Stages, EachPipelineListsItsStages) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Names(Resolve("wan2.1-t2v-14b")), (V{"umt5-xxl", "wan-vae-decoder"}));
  EXPECT_EQ(Names(Resolve("wan2.1-i2v-14b")), (V{"umt5-xxl", "clip-vit-h-14", "wan-vae-encoder", "wan-vae-decoder"}));
  EXPECT_EQ(Names(Resolve("hunyuanvideo-13b")), (V{"llava-llama-3-8b", "clip-l-text", "hunyuan-vae-decoder"}));
  // Wan's two CFG passes encode the prompt and the negative prompt.
  EXPECT_EQ(StagesOf(Resolve("wan2.1-t2v-14b")).front().invocations, 2);
}

TEST(Stages, UnknownStageIsAUserErrorListingTheStages) {
  auto graph = BuildStage(Resolve("wan2.1-t2v-1.3b"), "vae");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("has no stage 'vae' (its stages: umt5-xxl, wan-vae-decoder)"),
            std::string::npos)
      << graph.status().ToString();
}

// umT5-XXL encoder (wan/modules/t5.py, umt5_xxl, shared_pos=False):
//   token_embedding        256384 * 4096                  = 1,050,148,864
//   per block: norm1, norm2 2 * 4096                      =         8,192
//              q, k, v, o  4 * 4096 * 4096                =    67,108,864
//              gate, fc1, fc2  3 * 4096 * 10240           =   125,829,120
//              pos_embedding   32 buckets * 64 heads      =         2,048
//              block                                      =   192,948,224
//   24 blocks                                             = 4,630,757,376
//   final norm                                            =         4,096
//   total                                                 = 5,680,910,336 (the published ~5.7B)
// FLOPs at 512 tokens, batch 1, per block:
//   q, k, v, o   4 * 2 * 512 * 4096 * 4096                =    68,719,476,736
//   scores, values (einsums)  2 * (2 * 64 * 512 * 512 * 64) =   4,294,967,296
//   FFN          3 * 2 * 512 * 4096 * 10240               =   128,849,018,880
//   block                                                 =   201,863,462,912
//   24 blocks                                             = 4,844,723,109,888
TEST(Stages, Umt5XxlEncoder) {
  pir::Graph g = Stage(Resolve("wan2.1-t2v-14b"), "umt5-xxl");
  EXPECT_EQ(ParamCount(g), 5'680'910'336);
  EXPECT_EQ(ParamCount(g, "blocks.0."), 192'948'224);
  EXPECT_EQ(MatmulAndAttentionFlops(g), 4'844'723'109'888);
  // 512 tokens of 4096: what the DiT's text embedding reads.
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.type(g.outputs()[0]).shape, (pir::Shape{1, 512, 4096}));
}

// CLIP ViT-H/14 visual (wan/modules/clip.py), run through block 31:
//   patch_embedding  1280 * 3 * 14 * 14 (no bias: pre_norm)   =     752,640
//   cls 1280, pos 257 * 1280, pre_norm 2 * 1280               =     332,800
//   per block: 2 LNs 4 * 1280 = 5,120; to_qkv 1280*3840 + 3840 = 4,919,040;
//     proj 1280*1280 + 1280 = 1,639,680; fc1 1280*5120 + 5120 = 6,558,720;
//     fc2 5120*1280 + 1280 = 6,554,880                        =  19,677,440
//   31 blocks                                                 = 610,000,640
//   total run                                                 = 611,086,080
// (The whole tower adds block 32, post_norm 2,560 and head 1280 * 1024 =
// 1,310,720: 632,076,800, open_clip's published 632.08M for ViT-H-14.)
// FLOPs, batch 1, 257 tokens:
//   patch conv  2 * (1280 * 256) * 3 * 196                    =     385,351,680
//   per block: qkv 2*257*1280*3840 = 2,526,412,800; proj 2*257*1280*1280 =
//     842,137,600; fc1 + fc2 2 * 2*257*1280*5120 = 6,737,100,800;
//     attention 4 * 16 * 257 * 257 * 80 = 338,170,880         =  10,443,822,080
//   31 blocks                                                 = 323,758,484,480
//   total                                                     = 324,143,836,160
TEST(Stages, ClipVitH14ImageEncoder) {
  pir::Graph g = Stage(Resolve("wan2.1-i2v-14b"), "clip-vit-h-14");
  EXPECT_EQ(ParamCount(g), 611'086'080);
  EXPECT_EQ(ParamCount(g, "transformer.0."), 19'677'440);
  EXPECT_EQ(MatmulAndAttentionFlops(g), 324'143'836'160);
  // 257 tokens of 1280: the DiT's clip_fea input.
  EXPECT_EQ(g.type(g.outputs()[0]).shape, (pir::Shape{1, 257, 1280}));
}

// Llama-3-8B decoder (LlamaModel, no lm_head):
//   embed_tokens  128256 * 4096                                 =   525,336,576
//   per layer: q, o 2 * 4096 * 4096 = 33,554,432; k, v 2 * 4096 * 1024 =
//     8,388,608; gate, up, down 3 * 4096 * 14336 = 176,160,768; 2 norms 8,192
//                                                               =   218,112,000
//   32 layers                                                   = 6,979,584,000
//   final norm                                                  =         4,096
//   total                                                       = 7,504,924,672
// With lm_head 128256 * 4096 = 525,336,576: 8,030,261,248, Llama-3-8B's
// published total. FLOPs at 256 + 95 = 351 tokens, per layer:
//   q, o  2 * 2 * 351 * 4096 * 4096 = 23,555,211,264; k, v 2 * 2 * 351 * 4096 *
//   1024 = 5,888,802,816; MLP 3 * 2 * 351 * 4096 * 14336 = 123,664,859,136;
//   attention 4 * 32 * 351 * 351 * 128 = 2,018,525,184          =   155,127,398,400
//   32 layers                                                   = 4,964,076,748,800
TEST(Stages, LlavaLlama3TextEncoder) {
  pir::Graph g = Stage(Resolve("hunyuanvideo-13b"), "llava-llama-3-8b");
  EXPECT_EQ(ParamCount(g), 7'504'924'672);
  EXPECT_EQ(ParamCount(g) + 128'256 * 4096, 8'030'261'248);
  EXPECT_EQ(MatmulAndAttentionFlops(g), 4'964'076'748'800);
  // The states used: layer 30's output over the 351 template + prompt tokens.
  EXPECT_EQ(g.type(g.outputs()[0]).shape, (pir::Shape{1, 351, 4096}));
  EXPECT_NE(g.outputs()[0], g.outputs()[1]);
}

// CLIP-L text tower (CLIPTextModel of clip-vit-large-patch14):
//   token 49408 * 768 = 37,945,344; position 77 * 768 = 59,136
//   per layer: 2 LNs 4 * 768 = 3,072; q, k, v, out 4 * (768*768 + 768) =
//     2,362,368; fc1 768*3072 + 3072 = 2,362,368; fc2 3072*768 + 768 =
//     2,360,064                                                 =   7,087,872
//   12 layers                                                   =  85,054,464
//   final LN 1,536; total                                       = 123,060,480
// FLOPs at 77 tokens, per layer: projections 4 * 2*77*768*768 = 363,331,584;
//   MLP 2 * 2*77*768*3072 = 726,663,168; attention 4 * 12 * 77 * 77 * 64 =
//   18,213,888                                                  =   1,108,208,640
//   12 layers                                                   =  13,298,503,680
TEST(Stages, ClipLTextEncoder) {
  pir::Graph g = Stage(Resolve("hunyuanvideo-13b"), "clip-l-text");
  EXPECT_EQ(ParamCount(g), 123'060'480);
  EXPECT_EQ(MatmulAndAttentionFlops(g), 13'298'503'680);
  // The pooled vector: 768 per prompt.
  EXPECT_EQ(g.type(g.outputs()[1]).shape, (pir::Shape{1, 768}));
}

// Wan 2.1 VAE decoder FLOPs in closed form, from Decoder3d's structure (not the
// builder's): every causal conv reads its chunk's frames + 2, so a conv of
// kernel volume K from C_in to C_out on f frames of h x w costs
// 2 * C_out * f * h * w * C_in * K. Chunk 0 runs at 1 frame everywhere; a
// later chunk at 1 latent frame, 2 after the first temporal upsample, 4 after
// the second. Levels: latent (h, w), then 2x, 4x, 8x.
int64_t WanVaeDecoderFlops(int64_t latent_frames, int64_t h, int64_t w) {
  auto conv = [](int64_t cin, int64_t cout, int64_t k, int64_t f, int64_t hh, int64_t ww) {
    return 2 * cout * f * hh * ww * cin * k;
  };
  int64_t total = conv(16, 16, 1, latent_frames, h, w);  // WanVAE_.conv2 on all latent frames
  for (int64_t chunk = 0; chunk < latent_frames; ++chunk) {
    const int64_t f1 = chunk == 0 ? 1 : 2, f2 = chunk == 0 ? 1 : 4;
    // Level 0 (1 frame): conv1; middle: 2 residual blocks (4 convs), the
    // attention (qkv, proj, 4 * (hw)^2 * 384); stage 0: 3 blocks (6 convs).
    total += conv(16, 384, 27, 1, h, w) + 10 * conv(384, 384, 27, 1, h, w);
    total += conv(384, 1152, 1, 1, h, w) + conv(384, 384, 1, 1, h, w) + 4 * (h * w) * (h * w) * 384;
    // upsample3d: time_conv (not in chunk 0), then Conv2d(384, 192, 3) at 2x on f1 frames.
    if (chunk > 0) total += conv(384, 768, 3, 1, h, w);
    total += conv(384, 192, 9, f1, 2 * h, 2 * w);
    // Level 1: Res(192, 384) (two convs and the 1x1x1 shortcut), 2 Res(384) (4 convs).
    total += conv(192, 384, 27, f1, 2 * h, 2 * w) + 5 * conv(384, 384, 27, f1, 2 * h, 2 * w) +
             conv(192, 384, 1, f1, 2 * h, 2 * w);
    if (chunk > 0) total += conv(384, 768, 3, f1, 2 * h, 2 * w);
    total += conv(384, 192, 9, f2, 4 * h, 4 * w);
    // Level 2: 3 Res(192) (6 convs); upsample2d: Conv2d(192, 96, 3) at 8x.
    total += 6 * conv(192, 192, 27, f2, 4 * h, 4 * w) + conv(192, 96, 9, f2, 8 * h, 8 * w);
    // Level 3: 3 Res(96) (6 convs) and the head conv to RGB.
    total += 6 * conv(96, 96, 27, f2, 8 * h, 8 * w) + conv(96, 3, 27, f2, 8 * h, 8 * w);
  }
  return total;
}

// Parameters (conv weight C_out * C_in * K + bias C_out; RMS_norm gamma C):
//   conv2 16*16 + 16 = 272; decoder.conv1 384*16*27 + 384 = 166,272
//   Res(384, 384): 2 gammas 768 + 2 * (384*384*27 + 384) = 7,964,160
//   middle: 2 Res(384) + attention (gamma 384, to_qkv 384*1152 + 1152,
//     proj 384*384 + 384 = 591,744)                              = 16,520,064
//   stage 0: 3 Res(384) 23,892,480 + upsample3d (time_conv 768*384*3 + 768
//     = 885,504; conv 192*384*9 + 192 = 663,744)                 = 25,441,728
//   stage 1: Res(192, 384) (192 + 1,991,040 + 384 + 3,981,696 + shortcut
//     74,112 = 6,047,424) + 2 Res(384) 15,928,320 + upsample3d 1,549,248
//                                                                = 23,524,992
//   stage 2: 3 Res(192) 3 * 1,991,424 + conv 96*192*9 + 96        =  6,140,256
//   stage 3: 3 Res(96) 3 * 498,048                                =  1,494,144
//   head: gamma 96 + 3*96*27 + 3                                  =      7,875
//   total                                                         = 73,295,603
TEST(Stages, WanVaeDecoderParametersAndChunks) {
  ModelOptions small{.width = 64, .height = 32, .frames = 9};  // 3 latent frames of 4 x 8
  ModelConfig config = Resolve("wan2.1-t2v-1.3b", small);
  pir::Graph g = Stage(config, "wan-vae-decoder");
  EXPECT_EQ(ParamCount(g), 73'295'603);
  EXPECT_EQ(ParamCount(g, "decoder.middle.1."), 591'744);
  // 1 + 4 * (3 - 1) = 9 frames at the video's 32 x 64.
  ExpectStageOutput(g, {1, 3, 9, 32, 64}, WanVaeDecoderFlops(3, 4, 8));
  // One latent frame decodes to one frame, without any time conv.
  small.frames = 1;
  pir::Graph one = Stage(Resolve("wan2.1-t2v-1.3b", small), "wan-vae-decoder");
  ExpectStageOutput(one, {1, 3, 1, 32, 64}, WanVaeDecoderFlops(1, 4, 8));
}

// At the default 1280 x 720, 81 frames: 21 latent frames of 90 x 160 decode to
// the 81 frames of the video.
TEST(Stages, WanVaeDecoderAtTheDefaultResolution) {
  pir::Graph g = Stage(Resolve("wan2.1-t2v-14b"), "wan-vae-decoder");
  ExpectStageOutput(g, {1, 3, 81, 720, 1280}, WanVaeDecoderFlops(21, 90, 160));
}

}  // namespace
}  // namespace az::zoo::zoo_test
