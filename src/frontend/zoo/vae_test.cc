// The VAE stages beyond Wan's decoder (stages.h): HunyuanVideo's tiled
// 884-16c decoder and the Wan VAE encoder of the I2V pipelines. Parameters are
// derived module by module, FLOPs in closed form from the modules' structure
// and the tiling schedule (not from the builders); matmul + attention FLOPs as
// in stages_test.cc.
#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/zoo/stages.h"
#include "frontend/zoo/testing.h"

namespace az::zoo::zoo_test {
namespace {

int64_t Conv(int64_t cin, int64_t cout, int64_t kernel, int64_t f, int64_t h, int64_t w) {
  return 2 * cout * f * h * w * cin * kernel;
}

int64_t OpsOfKind(const pir::Graph& g, pir::OpKind kind) {
  return std::count_if(g.ops().begin(), g.ops().end(), [&](const pir::Op& op) { return op.kind == kind; });
}

TEST(VaeStages, PipelinesListTheirVaeStages) {
  using V = std::vector<std::string>;
  auto names = [](const ModelConfig& config) {
    V out;
    for (const StageInfo& s : StagesOf(config)) out.push_back(s.name);
    return out;
  };
  EXPECT_EQ(names(Resolve("hunyuanvideo-13b")), (V{"llava-llama-3-8b", "clip-l-text", "hunyuan-vae-decoder"}));
  EXPECT_EQ(names(Resolve("wan2.1-i2v-14b")), (V{"umt5-xxl", "clip-vit-h-14", "wan-vae-encoder", "wan-vae-decoder"}));
  // Wan 2.2 I2V encodes the same first frame (no CLIP branch).
  EXPECT_EQ(names(Resolve("wan2.2-i2v-a14b")), (V{"umt5-xxl", "wan-vae-encoder", "wan-vae-decoder"}));
  EXPECT_EQ(names(Resolve("wan2.1-t2v-14b")), (V{"umt5-xxl", "wan-vae-decoder"}));
  EXPECT_EQ(StageKindName(StagesOf(Resolve("wan2.1-i2v-14b"))[2].kind), "vae-encoder");
}

// ------------------------------------------------------------ HunyuanVideo
// One tile: post_quant_conv and DecoderCausal3D on f latent frames of h x w.
// Every CausalConv3d keeps its input's size (replicate padding, then an
// unpadded conv), so a conv costs Conv(cin, cout, K, frames, rows, columns) at
// its output. The mid block runs at the latent size: N = f h w tokens, one
// head of 512: q, k, v, out 4 * 2 N 512^2 and attention 4 N^2 512. Up blocks
// 1 and 2 double time as 2T - 1.
int64_t HunyuanTileFlops(int64_t f, int64_t h, int64_t w) {
  const int64_t n = f * h * w;
  int64_t t = Conv(16, 16, 1, f, h, w) + Conv(16, 512, 27, f, h, w);                  // post_quant, conv_in
  t += 4 * Conv(512, 512, 27, f, h, w) + 4 * 2 * n * 512 * 512 + 4 * n * n * 512;     // mid block
  t += 6 * Conv(512, 512, 27, f, h, w) + Conv(512, 512, 27, f, 2 * h, 2 * w);         // up 0 + upsampler
  const int64_t f1 = 2 * f - 1, f2 = 2 * f1 - 1;
  t += 6 * Conv(512, 512, 27, f, 2 * h, 2 * w) + Conv(512, 512, 27, f1, 4 * h, 4 * w);  // up 1
  // Up 2: Res(512, 256) (conv1, conv2, 1x1x1 shortcut), 2 Res(256), upsampler.
  t += Conv(512, 256, 27, f1, 4 * h, 4 * w) + 5 * Conv(256, 256, 27, f1, 4 * h, 4 * w) +
       Conv(512, 256, 1, f1, 4 * h, 4 * w) + Conv(256, 256, 27, f2, 8 * h, 8 * w);
  // Up 3: Res(256, 128), 2 Res(128); conv_out to RGB.
  t += Conv(256, 128, 27, f2, 8 * h, 8 * w) + 5 * Conv(128, 128, 27, f2, 8 * h, 8 * w) +
       Conv(256, 128, 1, f2, 8 * h, 8 * w) + Conv(128, 3, 27, f2, 8 * h, 8 * w);
  return t;
}

// AutoencoderKLCausal3D's schedule: spatial tiles at rows / columns
// range(0, size, 24), each min(32, size - start) wide, when h or w > 32;
// temporal tiles at range(0, T, 12), min(17, T - start) frames, when T > 16.
int64_t HunyuanDecoderFlops(int64_t frames, int64_t h, int64_t w, int64_t* tiles) {
  auto spatial = [&](int64_t f) {
    if (h <= 32 && w <= 32) {
      ++*tiles;
      return HunyuanTileFlops(f, h, w);
    }
    int64_t total = 0;
    for (int64_t i = 0; i < h; i += 24) {
      for (int64_t j = 0; j < w; j += 24, ++*tiles) {
        total += HunyuanTileFlops(f, std::min<int64_t>(32, h - i), std::min<int64_t>(32, w - j));
      }
    }
    return total;
  };
  if (frames <= 16) return spatial(frames);
  int64_t total = 0;
  for (int64_t i = 0; i < frames; i += 12) total += spatial(std::min<int64_t>(17, frames - i));
  return total;
}

// Parameters (CausalConv3d: C_out * C_in * K + C_out; GroupNorm: 2C; Linear
// 512 * 512 + 512):
//   post_quant_conv 16*16 + 16 = 272; conv_in 512*16*27 + 512 = 221,696
//   Res(512): 2 norms 2,048 + 2 * (512*512*27 + 512) = 14,158,848
//   mid: 2 Res(512) + attention (group norm 1,024, q k v out 1,050,624 =
//     1,051,648)                                                 = 29,369,344
//   up 0, up 1: 3 Res(512) + upsampler conv 7,078,400            = 49,554,944 each
//   up 2: Res(512, 256) (1,024 + 3,539,200 + 512 + 1,769,728 + shortcut
//     131,328 = 5,441,792) + 2 Res(256) 7,080,960 + conv 1,769,728 = 14,292,480
//   up 3: Res(256, 128) (512 + 884,864 + 256 + 442,496 + shortcut 32,896 =
//     1,361,024) + 2 Res(128) 1,771,008                          =  3,132,032
//   conv_norm_out 256 + conv_out 3*128*27 + 3                    =     10,627
//   total                                                        = 146,136,339
// The encoder (not run at inference): conv_in 10,496; down 0 2 Res(128) +
// conv 442,496 = 2,213,504; down 1 Res(128, 256) 2,688,512 + Res(256) +
// conv = 7,998,720; down 2 Res(256, 512) 10,750,976 + Res(512) + conv =
// 31,988,224; down 3 2 Res(512) 28,317,696; mid 29,369,344; conv_norm_out
// 1,024 + conv_out 512 -> 32 442,400; quant_conv 1,056: 100,342,464. The whole
// VAE: 246,478,803, the published ~246M.
constexpr int64_t kHunyuanDecoderParams = 146'136'339;

TEST(VaeStages, HunyuanDecoderParametersAndOneTile) {
  ModelOptions small{.width = 128, .height = 64, .frames = 9};  // 3 latent frames of 8 x 16: one tile, no tiling
  pir::Graph g = Stage(Resolve("hunyuanvideo-13b", small), "hunyuan-vae-decoder");
  EXPECT_EQ(ParamCount(g), kHunyuanDecoderParams);
  EXPECT_EQ(ParamCount(g, "decoder.mid_block.attentions.0."), 1'051'648);
  EXPECT_EQ(ParamCount(g) + 100'342'464, 246'478'803);
  // 1 + 4 * (3 - 1) = 9 frames at the video's 64 x 128, in [0, 1].
  EXPECT_EQ(g.type(g.outputs()[0]).shape, (pir::Shape{1, 3, 9, 64, 128}));
  int64_t tiles = 0;
  EXPECT_EQ(MatmulAndAttentionFlops(g), HunyuanDecoderFlops(3, 8, 16, &tiles));
  EXPECT_EQ(tiles, 1);
  // One replicate pad per 3x3x3 conv: conv_in, 2 in each of the 14 resnets,
  // the 3 upsamplers' convs and conv_out: 1 + 28 + 3 + 1 = 33.
  EXPECT_EQ(OpsOfKind(g, pir::OpKind::kPad), 33);
}

// At the default 1280 x 720, 129 frames: 33 latent frames of 90 x 160. The
// temporal tiles start at 0, 12, 24 (17, 17 and 9 latent frames); each is 4 x
// 7 spatial tiles (rows 32, 32, 32, 18; columns six of 32, then 16): 84
// decoder runs, 4,243,192,855,511,040 FLOPs (a full 17 x 32 x 32 tile is
// 73,042,839,994,368, of which attention 4 * 17,408^2 * 512 =
// 620,622,774,272). The kept frames 49 + 48 + 32 = 129 and the kept columns
// 6 * 192 + 128 = 1280, rows 3 * 192 + 144 = 720: the video.
TEST(VaeStages, HunyuanDecoderTilesAtTheDefaultResolution) {
  pir::Graph g = Stage(Resolve("hunyuanvideo-13b"), "hunyuan-vae-decoder");
  EXPECT_EQ(g.type(g.outputs()[0]).shape, (pir::Shape{1, 3, 129, 720, 1280}));
  int64_t tiles = 0;
  EXPECT_EQ(MatmulAndAttentionFlops(g), HunyuanDecoderFlops(33, 90, 160, &tiles));
  EXPECT_EQ(tiles, 84);
  EXPECT_EQ(MatmulAndAttentionFlops(g), 4'243'192'855'511'040);
  EXPECT_EQ(OpsOfKind(g, pir::OpKind::kAttention), 84);
  // Weights are shared by every tile.
  EXPECT_EQ(ParamCount(g), kHunyuanDecoderParams);
  EXPECT_EQ(g.attrs().GetInt("frames"), 129);
}

// Spatial tiling alone (9 latent frames, at most 16) and the temporal tiles'
// edge case: 25 latent frames tile at 0, 12, 24, and the last tile (1 latent
// frame) decodes one frame that the tiler drops: it still runs.
TEST(VaeStages, HunyuanDecoderTilingEdges) {
  ModelOptions options;
  options.width = 320;   // 40 latent columns: tiles at 0 (32 wide) and 24 (16)
  options.height = 256;  // 32 latent rows: tiles at 0 (32) and 24 (8), since w > 32
  options.frames = 33;   // 9 latent frames
  pir::Graph spatial = Stage(Resolve("hunyuanvideo-13b", options), "hunyuan-vae-decoder");
  // Kept: 192 + 128 columns (the second tile is 16 * 8 wide), 192 + 64 rows.
  EXPECT_EQ(spatial.type(spatial.outputs()[0]).shape, (pir::Shape{1, 3, 33, 256, 320}));
  int64_t tiles = 0;
  EXPECT_EQ(MatmulAndAttentionFlops(spatial), HunyuanDecoderFlops(9, 32, 40, &tiles));
  EXPECT_EQ(tiles, 4);

  options.width = options.height = 128;  // 16 x 16 latents: no spatial tiling
  options.frames = 97;                   // 25 latent frames
  pir::Graph temporal = Stage(Resolve("hunyuanvideo-13b", options), "hunyuan-vae-decoder");
  // Tiles of 17, 13 and 1 latent frames decode 65, 49 and 1 frames; kept
  // 49 + (48 of the 48 left after the first frame) + 0 = 97.
  EXPECT_EQ(temporal.type(temporal.outputs()[0]).shape, (pir::Shape{1, 3, 97, 128, 128}));
  tiles = 0;
  EXPECT_EQ(MatmulAndAttentionFlops(temporal), HunyuanDecoderFlops(25, 16, 16, &tiles));
  EXPECT_EQ(tiles, 3);
}

// ------------------------------------------------------------ HunyuanVideo in parts
// The same decode as tile runs and a blend graph (stages.h, DecoderTileRun).
pir::OpCost Cost(const pir::Graph& g) { return pir::ComputeGraphCost(g); }

// At 1280 x 720, 129 frames the runs are the 84 the test above derives, in
// the pipeline's order: temporal tiles at latent frames 0, 12, 24 (17, 17, 9
// frames), each 4 rows of tiles at 0, 24, 48, 72 (32, 32, 32, 18 latents) by 7
// columns at 0, 24, ..., 144 (six of 32, then 16). Each run's own graph is
// post_quant_conv + the decoder on that slice: its matmul + attention FLOPs
// are HunyuanTileFlops, and it decodes [1, 3, 1 + 4 (f - 1), 8 h, 8 w].
// The runs' costs plus the blend graph's are the whole graph's FLOPs, every
// term (the slices that cut the latent are layout ops: no FLOPs), summed from
// the graphs, not written in; their matmul + attention part is also the
// closed form's.
TEST(VaeStages, HunyuanDecoderRunsAndBlendAddUpToTheWholeDecode) {
  const ModelConfig config = Resolve("hunyuanvideo-13b");
  auto runs = StageTileRuns(config, "hunyuan-vae-decoder");
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 84u);
  size_t k = 0;
  pir::OpCost parts;
  int64_t hand = 0;
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t c = 0; c < 7; ++c, ++k) {
        const DecoderTileRun& run = (*runs)[k];
        const int64_t f = std::min<int64_t>(17, 33 - 12 * t), h = std::min<int64_t>(32, 90 - 24 * r),
                      w = std::min<int64_t>(32, 160 - 24 * c);
        SCOPED_TRACE(run.name);
        EXPECT_EQ(run.name, "ttile_" + std::to_string(t) + ".tile_" + std::to_string(r) + "_" + std::to_string(c));
        EXPECT_EQ(run.latent, (pir::Shape{1, 16, f, h, w}));
        EXPECT_EQ(std::vector<int64_t>({run.frame, run.row, run.column}),
                  std::vector<int64_t>({12 * t, 24 * r, 24 * c}));
        EXPECT_EQ(run.decoded, (pir::Shape{1, 3, 1 + 4 * (f - 1), 8 * h, 8 * w}));
        auto tile = BuildStageTile(config, "hunyuan-vae-decoder", run.latent);
        ASSERT_TRUE(tile.ok()) << tile.status().ToString();
        EXPECT_TRUE(pir::VerifyGraph(*tile).ok());
        ExpectStageOutput(*tile, run.decoded, HunyuanTileFlops(f, h, w));
        EXPECT_EQ(ParamCount(*tile), kHunyuanDecoderParams);
        hand += HunyuanTileFlops(f, h, w);
        parts += Cost(*tile);
      }
    }
  }
  auto blend = BuildStageBlend(config, "hunyuan-vae-decoder");
  ASSERT_TRUE(blend.ok()) << blend.status().ToString();
  EXPECT_TRUE(pir::VerifyGraph(*blend).ok());
  // The blend graph: no weights, no matmul; its inputs the latent, then one
  // decoded tile per run in run order; its outputs the video and the
  // unscaled latent.
  EXPECT_EQ(ParamCount(*blend), 0);
  EXPECT_EQ(Cost(*blend).matmul.value() + Cost(*blend).attention.value(), 0);
  std::vector<std::string> inputs;
  for (const pir::Value& v : blend->values()) {
    if (v.role == pir::ValueRole::kInput) inputs.push_back(v.name);
  }
  ASSERT_EQ(inputs.size(), 85u);
  EXPECT_EQ(inputs[0], "latents");
  EXPECT_EQ(inputs[1], "ttile_0.tile_0_0.decoded");
  EXPECT_EQ(inputs[84], "ttile_2.tile_3_6.decoded");
  EXPECT_EQ(blend->type(blend->outputs()[0]).shape, (pir::Shape{1, 3, 129, 720, 1280}));
  EXPECT_EQ(blend->type(blend->outputs()[1]).shape, (pir::Shape{1, 16, 33, 90, 160}));

  parts += Cost(*blend);
  const pir::OpCost whole = Cost(Stage(config, "hunyuan-vae-decoder"));
  EXPECT_EQ(parts.matmul, whole.matmul);
  EXPECT_EQ(parts.attention, whole.attention);
  EXPECT_EQ(parts.other, whole.other);
  EXPECT_EQ(parts.total_flops(), whole.total_flops());
  EXPECT_EQ(parts.matmul.value() + parts.attention.value(), hand);
  EXPECT_GT(Cost(*blend).other.value(), 0);  // the blends' multiply-adds, the unscale, the clamp
}

// The edges: a latent within one tile decodes in one untiled run (its scope
// the graph's root); the temporal tiler's one-frame run (25 latent frames,
// HunyuanDecoderTilingEdges) still runs, its decoded tile an input the blend
// graph leaves unread. Still the sum of the parts.
TEST(VaeStages, HunyuanDecoderRunsAtTheEdges) {
  ModelOptions options;
  options.width = options.height = 128;  // 16 x 16 latents
  // 3 latent frames: one run; 25: runs of 17, 13, 1 frames.
  for (int64_t frames : {int64_t{9}, int64_t{97}}) {
    options.frames = frames;
    const ModelConfig config = Resolve("hunyuanvideo-13b", options);
    SCOPED_TRACE(frames);
    auto runs = StageTileRuns(config, "hunyuan-vae-decoder");
    ASSERT_TRUE(runs.ok());
    auto blend = BuildStageBlend(config, "hunyuan-vae-decoder");
    ASSERT_TRUE(blend.ok());
    EXPECT_TRUE(pir::VerifyGraph(*blend).ok());
    pir::OpCost parts = Cost(*blend);
    for (const DecoderTileRun& run : *runs) {
      auto tile = BuildStageTile(config, "hunyuan-vae-decoder", run.latent);
      ASSERT_TRUE(tile.ok());
      parts += Cost(*tile);
    }
    EXPECT_EQ(parts.total_flops(), Cost(Stage(config, "hunyuan-vae-decoder")).total_flops());
    if (frames == 9) {
      ASSERT_EQ(runs->size(), 1u);
      EXPECT_EQ((*runs)[0].name, "");
      EXPECT_EQ((*runs)[0].latent, (pir::Shape{1, 16, 3, 16, 16}));
      continue;
    }
    ASSERT_EQ(runs->size(), 3u);
    EXPECT_EQ((*runs)[2].latent, (pir::Shape{1, 16, 1, 16, 16}));
    EXPECT_EQ((*runs)[2].frame, 24);
    pir::ValueId dropped = -1;
    for (pir::ValueId id = 0; id < blend->num_values(); ++id) {
      if (blend->value(id).name == "ttile_2.decoded") dropped = id;
    }
    ASSERT_GE(dropped, 0);
    for (const pir::Op& op : blend->ops()) {
      EXPECT_EQ(std::count(op.operands.begin(), op.operands.end(), dropped), 0) << op.name;
    }
  }
}

// User errors: a stage that is not a tiled decoder, a tile of the wrong shape.
TEST(VaeStages, TileRunsOfOtherStagesAndBadShapes) {
  const ModelConfig wan = Resolve("wan2.1-t2v-14b");
  auto none = StageTileRuns(wan, "wan-vae-decoder");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(StageTileRuns(wan, "no-such-stage").ok());
  auto tile = BuildStageTile(wan, "wan-vae-decoder", {1, 16, 1, 8, 8});
  ASSERT_FALSE(tile.ok());
  EXPECT_NE(tile.status().message().find("'wan-vae-decoder' of wan2.1-t2v-14b is not a tiled decoder"),
            std::string::npos)
      << tile.status().message();
  EXPECT_FALSE(BuildStageBlend(wan, "wan-vae-decoder").ok());
  const ModelConfig hunyuan = Resolve("hunyuanvideo-13b");
  for (const pir::Shape& bad : {pir::Shape{1, 16, 8, 8}, pir::Shape{1, 12, 1, 8, 8}, pir::Shape{2, 16, 1, 8, 8},
                                pir::Shape{1, 16, 0, 8, 8}}) {
    auto t = BuildStageTile(hunyuan, "hunyuan-vae-decoder", bad);
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find("a tile of 'hunyuan-vae-decoder' is a latent [1, 16, f, h, w]"),
              std::string::npos)
        << t.status().message();
  }
}

// ------------------------------------------------------------ Wan encoder
// Encoder3d per chunk of f frames (1, then 4) at the video's H x W; every
// causal conv keeps its chunk's frames; the stride-2 Conv2d halves the size;
// downsample3d's time_conv (not in chunk 0) reads 1 cached + f frames with
// stride 2: 5 -> 2 after stage 1, 3 -> 1 after stage 2. Then conv1 on all T
// latent frames.
int64_t WanVaeEncoderFlops(int64_t latent_frames, int64_t h, int64_t w) {
  int64_t total = Conv(32, 32, 1, latent_frames, h / 8, w / 8);
  for (int64_t chunk = 0; chunk < latent_frames; ++chunk) {
    const int64_t f = chunk == 0 ? 1 : 4, f2 = chunk == 0 ? 1 : 2;
    // conv1; stage 0: 2 Res(96) (4 convs); downsample2d Conv2d(96, 96, 3) at h / 2.
    total += Conv(3, 96, 27, f, h, w) + 4 * Conv(96, 96, 27, f, h, w) + Conv(96, 96, 9, f, h / 2, w / 2);
    // Stage 1 at h / 2: Res(96, 192) (2 convs + shortcut), Res(192); downsample3d.
    total += Conv(96, 192, 27, f, h / 2, w / 2) + 3 * Conv(192, 192, 27, f, h / 2, w / 2) +
             Conv(96, 192, 1, f, h / 2, w / 2) + Conv(192, 192, 9, f, h / 4, w / 4);
    if (chunk > 0) total += Conv(192, 192, 3, 2, h / 4, w / 4);
    // Stage 2 at h / 4 on f2 frames: Res(192, 384), Res(384); downsample3d.
    total += Conv(192, 384, 27, f2, h / 4, w / 4) + 3 * Conv(384, 384, 27, f2, h / 4, w / 4) +
             Conv(192, 384, 1, f2, h / 4, w / 4) + Conv(384, 384, 9, f2, h / 8, w / 8);
    if (chunk > 0) total += Conv(384, 384, 3, 1, h / 8, w / 8);
    // Stage 3 (2 Res(384)) and middle (2 Res(384), attention over each frame's
    // positions: to_qkv, proj, 4 (hw)^2 384) on 1 frame; head to 32 channels.
    const int64_t hw = (h / 8) * (w / 8);
    total += 8 * Conv(384, 384, 27, 1, h / 8, w / 8) + Conv(384, 1152, 1, 1, h / 8, w / 8) +
             Conv(384, 384, 1, 1, h / 8, w / 8) + 4 * hw * hw * 384 + Conv(384, 32, 27, 1, h / 8, w / 8);
  }
  return total;
}

// Parameters (RMS_norm gamma C; conv C_out * C_in * K + C_out):
//   conv1 96*3*27 + 96 = 7,872
//   stage 0: 2 Res(96) 996,096 + Conv2d 96*96*9 + 96 83,040       =  1,079,136
//   stage 1: Res(96, 192) (96 + 497,856 + 192 + 995,520 + shortcut 18,624 =
//     1,512,288) + Res(192) 1,991,424 + Conv2d 331,968 + time_conv
//     192*192*3 + 192 = 110,784                                   =  3,946,464
//   stage 2: Res(192, 384) 6,047,424 + Res(384) 7,964,160 + Conv2d 1,327,488
//     + time_conv 442,752                                         = 15,781,824
//   stage 3: 2 Res(384)                                           = 15,928,320
//   middle (as the decoder's)                                     = 16,520,064
//   head: gamma 384 + 32*384*27 + 32                              =    332,192
//   WanVAE_.conv1 32*32 + 32                                      =      1,056
//   total                                                         = 53,596,928
// With the decoder's 73,295,603 (stages_test.cc): 126,892,531, Wan2.1_VAE's
// published ~127M.
TEST(VaeStages, WanVaeEncoderParametersAndChunks) {
  ModelOptions small{.width = 64, .height = 32, .frames = 9};  // chunks of 1, 4, 4 frames -> 3 latent frames of 4 x 8
  pir::Graph g = Stage(Resolve("wan2.1-i2v-14b", small), "wan-vae-encoder");
  EXPECT_EQ(ParamCount(g), 53'596'928);
  EXPECT_EQ(ParamCount(g) + 73'295'603, 126'892'531);
  ExpectStageOutput(g, {1, 16, 3, 4, 8}, WanVaeEncoderFlops(3, 32, 64));
  // The input is the first frame alone; the zero frames are made in the graph.
  int64_t inputs = 0;
  for (const pir::Value& v : g.values()) {
    if (v.role != pir::ValueRole::kInput) continue;
    ++inputs;
    EXPECT_EQ(v.type.shape, (pir::Shape{1, 3, 1, 32, 64}));
  }
  EXPECT_EQ(inputs, 1);
  small.frames = 1;
  pir::Graph one = Stage(Resolve("wan2.1-i2v-14b", small), "wan-vae-encoder");
  ExpectStageOutput(one, {1, 16, 1, 4, 8}, WanVaeEncoderFlops(1, 32, 64));
}

// At the default 1280 x 720, 81 frames: 21 chunks into the 21 latent frames
// of 90 x 160 the DiT's y reads; 381,674,137,190,400 FLOPs.
TEST(VaeStages, WanVaeEncoderAtTheDefaultResolution) {
  pir::Graph g = Stage(Resolve("wan2.1-i2v-14b"), "wan-vae-encoder");
  ExpectStageOutput(g, {1, 16, 21, 90, 160}, WanVaeEncoderFlops(21, 720, 1280));
  EXPECT_EQ(MatmulAndAttentionFlops(g), 381'674'137'190'400);
}

}  // namespace
}  // namespace az::zoo::zoo_test
