// HunyuanVideo's 884-16c VAE decoder, built as the pipeline runs it (stages.h).
//
// Model [Tencent/HunyuanVideo: hyvideo/vae/vae.py DecoderCausal3D,
// unet_causal_3d_blocks.py; config of hunyuan-video-t2v-720p/vae:
// block_out_channels [128, 256, 512, 512], layers_per_block 2, latent_channels
// 16, norm_num_groups 32, sample_size 256, sample_tsize 64, scaling_factor
// 0.476986, time_compression_ratio 4, mid_block_add_attention true]:
//  * CausalConv3d(k) = F.pad(replicate: k - 1 frames before, k // 2 rows and
//    columns each side), then an unpadded Conv3d;
//  * ResnetBlockCausal3D: GroupNorm(32, eps 1e-6), SiLU, conv1, GroupNorm,
//    SiLU, conv2, a 1x1x1 conv_shortcut when the channels change; no scale;
//  * the mid block: resnet, attention, resnet. The attention (diffusers'
//    Attention, one head of 512, from_deprecated_attn_block) runs over all
//    f * h * w tokens of the tile with prepare_causal_attention_mask (a token
//    sees every token of its frame and the frames before). SDPA with a dense
//    float mask computes every score (no block is skipped), so the op here is
//    full self-attention over the tile's tokens: its FLOPs, 4 * N^2 * 512, are
//    what runs; the mask itself (values only) is not represented;
//  * up_blocks 0..3 (512, 512, 256, 128), 3 resnets each; blocks 0-2 upsample
//    x2 in space, blocks 1-2 also x2 in time: the first frame is upsampled in
//    space only (T -> 2T - 1), then a CausalConv3d(3);
//  * conv_norm_out (GroupNorm), SiLU, conv_out CausalConv3d(128, 3, 3).
// f latent frames decode to 1 + 4 (f - 1) frames, 8x in space.
//
// The pipeline [pipeline_hunyuan_video.py __call__; inference.py passes
// enable_tiling = args.vae_tiling, default True (config.py)]: latents /
// scaling_factor, vae.enable_tiling(), vae.decode, then (x / 2 + 0.5)
// .clamp(0, 1). Run in fp16 (--vae-precision fp16, autocast fp16).
// AutoencoderKLCausal3D tiles (autoencoder_kl_causal_3d.py):
//  * temporal, when the latent has > 16 frames (tile_latent_min_tsize =
//    64 / 4): tiles of 17 latent frames every 12 (int(16 * 0.75)); every tile
//    but the first drops its first decoded frame; each is blended with the one
//    before over 16 frames (int(64 * 0.25)) and cut to 48 (the first to 49);
//  * spatial, inside each temporal tile, when h or w > 32 (256 / 8): tiles of
//    32 x 32 latents every 24, blended with the tile above and to the left
//    over 64 rows / columns (int(256 * 0.25)), cut to 192 x 192.
// Each tile is post_quant_conv + the whole decoder, weights shared (tile
// scopes do not name parameters), so the FLOPs include the overlaps'
// recomputation. The blends modify the tiles in place, so the tile above /
// to the left / before is its blended value, as here.
//
// The same decode in parts (stages.h, DecoderTileRun): one walk of the tiler
// builds either the whole graph (every run decoded in it) or the blend graph
// (every run's decoded tile an input), listing the runs as it goes, so the
// parts and the whole cannot drift apart.
#include <algorithm>

#include "frontend/zoo/stage_builders.h"

namespace az::zoo {

namespace {

constexpr DType kDType = DType::kF16;
constexpr int64_t kLatentChannels = kHunyuanLatentChannels;
constexpr int64_t kGroups = 32;
constexpr double kEps = 1e-6;
constexpr double kScalingFactor = 0.476986;
// Tiling, from sample_size 256, sample_tsize 64, 4 levels and the overlap 0.25.
constexpr int64_t kTileLatent = 32;        // tile_latent_min_size = 256 / 2^3
constexpr int64_t kTileStride = 24;        // int(32 * (1 - 0.25))
constexpr int64_t kBlendRows = 64;         // int(256 * 0.25)
constexpr int64_t kRowLimit = 256 - 64;    // tile_sample_min_size - blend_extent
constexpr int64_t kTileLatentFrames = 16;  // tile_latent_min_tsize = 64 / 4
constexpr int64_t kTileFrameStride = 12;   // int(16 * (1 - 0.25))
constexpr int64_t kBlendFrames = 16;       // int(64 * 0.25)
constexpr int64_t kFrameLimit = 64 - 16;   // tile_sample_min_tsize - blend_extent

// A slice of the latent a tile run decodes: its value (kWhole) and where it
// starts in the latent.
struct LatentTile {
  ValueId value = -1;  // kBlend: none, the slice is not taken
  Shape shape;
  int64_t frame = 0, row = 0, column = 0;
};

// What the tiled decode builds. kWhole: every tile run decoded in the graph
// (the stage as the pipeline runs it). kBlend: every tile run an input of the
// graph (its decoded tile, named after the run's scope), the latent's slices
// not taken: the same ops as kWhole but for the runs, in the same order, so
// the whole graph's cost is the blend graph's plus the runs' exactly.
enum class TileMode { kWhole, kBlend };

class HunyuanDecoder {
 public:
  HunyuanDecoder(GraphBuilder& b, TileMode mode, std::vector<DecoderTileRun>* runs)
      : b_(b), mode_(mode), runs_(runs) {}

  // AutoencoderKLCausal3D._decode with tiling enabled; every tile run is
  // appended to `runs` in the pipeline's order.
  ValueId Decode(ValueId z, const Shape& latent) {
    const LatentTile whole{z, latent};
    if (latent[2] > kTileLatentFrames) return TemporalTiled(whole);
    if (latent[3] > kTileLatent || latent[4] > kTileLatent) return SpatialTiled(whole);
    return Run(whole);
  }

  // One tile run's graph: post_quant_conv and the decoder on `z`.
  ValueId DecodeOneTile(ValueId z) { return Tile(z); }

 private:
  // The slice [begin, end) of `axis` (2, 3, 4) of a latent tile.
  LatentTile Slice(const std::string& name, const LatentTile& from, int64_t axis, int64_t begin, int64_t end) {
    LatentTile out = from;
    out.shape[static_cast<size_t>(axis)] = end - begin;
    (axis == 2 ? out.frame : axis == 3 ? out.row : out.column) += begin;
    if (mode_ == TileMode::kWhole) out.value = b_.SliceAxis(name, from.value, axis, begin, end);
    return out;
  }
  // One tile run, in the current (tile) scope.
  ValueId Run(const LatentTile& latent) {
    DecoderTileRun run;
    run.name = b_.QualifiedName("");
    run.latent = latent.shape;
    run.frame = latent.frame;
    run.row = latent.row;
    run.column = latent.column;
    run.decoded = HunyuanDecodedShape(latent.shape);
    runs_->push_back(run);
    if (mode_ == TileMode::kWhole) return Tile(latent.value);
    // Inputs are named without the op scopes that do not name parameters
    // (the tiles'): the run's scope is spelled out.
    return b_.Input(b_.QualifiedName("decoded"), kDType, run.decoded);
  }
  ValueId CausalConv(const std::string& name, ValueId x, int64_t cout, int64_t k) {
    GraphBuilder::Scope scope(b_, name);
    const int64_t cin = b_.type(x).shape[1];
    ValueId input = x;
    if (k > 1) {
      pir::Attributes pad;
      pad.Set("low", std::vector<int64_t>{0, 0, k - 1, k / 2, k / 2});
      pad.Set("high", std::vector<int64_t>{0, 0, 0, k / 2, k / 2});
      pad.Set("mode", std::string("replicate"));
      input = b_.AddOp1(OpKind::kPad, "pad", {x}, pad);
    }
    GraphBuilder::Scope conv(b_, "conv");
    ValueId w = b_.Param("weight", kDType, {cout, cin, k, k, k});
    ValueId bias = b_.Param("bias", kDType, {cout});
    pir::Attributes attrs;
    attrs.Set("stride", std::vector<int64_t>{1, 1, 1});
    attrs.Set("padding", std::vector<int64_t>{0, 0, 0, 0, 0, 0});
    return b_.AddOp1(OpKind::kConv3d, "", {input, w, bias}, attrs);
  }
  ValueId GroupNorm(const std::string& name, ValueId x) {
    GraphBuilder::Scope scope(b_, name);
    const int64_t c = b_.type(x).shape[1];
    pir::Attributes attrs;
    attrs.Set("groups", kGroups);
    attrs.Set("eps", kEps);
    return b_.AddOp1(OpKind::kGroupNorm, "", {x, b_.Param("weight", kDType, {c}), b_.Param("bias", kDType, {c})},
                     attrs);
  }
  ValueId Resnet(const std::string& name, ValueId x, int64_t out) {
    GraphBuilder::Scope scope(b_, name);
    const int64_t in = b_.type(x).shape[1];
    ValueId h = CausalConv("conv1", b_.Unary(OpKind::kSilu, "act1", GroupNorm("norm1", x)), out, 3);
    h = CausalConv("conv2", b_.Unary(OpKind::kSilu, "act2", GroupNorm("norm2", h)), out, 3);
    ValueId shortcut = in == out ? x : CausalConv("conv_shortcut", x, out, 1);
    return b_.Binary(OpKind::kAdd, "add", shortcut, h);
  }
  // One head over the tile's f * h * w tokens (see the header for the mask).
  ValueId Attention(const std::string& name, ValueId x) {
    GraphBuilder::Scope scope(b_, name);
    const Shape s = b_.type(x).shape;  // [B, C, T, H, W]
    const int64_t c = s[1], tokens = s[2] * s[3] * s[4];
    // "b c f h w -> b (f h w) c"; the group norm over [B, C, N] is the same
    // statistics as over [B, C, T, H, W], so it runs before the rearrange.
    auto rows = [&](const char* leaf, ValueId v) {
      return b_.Reshape(leaf, b_.Transpose(std::string(leaf) + ".channels_last", v, {0, 2, 3, 4, 1}),
                        {s[0], tokens, c});
    };
    ValueId residual = rows("tokens", x);
    ValueId normed = rows("normed_tokens", GroupNorm("group_norm", x));
    auto head = [&](const char* proj) {
      return b_.Reshape(std::string(proj) + ".head", b_.Linear(proj, normed, c), {s[0], tokens, 1, c});
    };
    // Last argument first, as GCC built the nested call (graph_builder.h, Op order).
    ValueId v = head("to_v");
    ValueId k = head("to_k");
    ValueId q = head("to_q");
    ValueId out = b_.Attention("sdpa", q, k, v, "self");
    ValueId projected = b_.Linear("to_out.0", b_.Reshape("merge", out, {s[0], tokens, c}), c);
    ValueId sum = b_.Binary(OpKind::kAdd, "residual", projected, residual);
    return b_.Transpose("channels_first", b_.Reshape("unrows", sum, {s[0], s[2], s[3], s[4], c}), {0, 4, 1, 2, 3});
  }
  // UpsampleCausal3D: the first frame x2 in space, the others by the block's
  // factor, then CausalConv3d(c, c, 3). With no time factor the split is the
  // same copy as one upsample of the whole tensor.
  ValueId Upsample(const std::string& name, ValueId x, bool in_time) {
    GraphBuilder::Scope scope(b_, name);
    const Shape s = b_.type(x).shape;
    auto up = [&](const char* leaf, ValueId v, int64_t time) {
      pir::Attributes scale;
      scale.Set("scale", std::vector<int64_t>{1, 1, time, 2, 2});
      return b_.AddOp1(OpKind::kUpsample, leaf, {v}, scale);
    };
    ValueId h;
    if (!in_time) {
      h = up("interpolate", x, 1);
    } else {
      h = up("first", b_.SliceAxis("first_frame", x, 2, 0, 1), 1);
      if (s[2] > 1) h = b_.Concat("cat", {h, up("others", b_.SliceAxis("other_frames", x, 2, 1, s[2]), 2)}, 2);
    }
    return CausalConv("conv", h, s[1], 3);
  }
  // post_quant_conv and DecoderCausal3D on one tile.
  ValueId Tile(ValueId z) {
    ValueId x;
    {
      GraphBuilder::Scope scope(b_, "post_quant_conv");
      ValueId w = b_.Param("weight", kDType, {kLatentChannels, kLatentChannels, 1, 1, 1});
      ValueId bias = b_.Param("bias", kDType, {kLatentChannels});
      pir::Attributes attrs;
      attrs.Set("stride", std::vector<int64_t>{1, 1, 1});
      attrs.Set("padding", std::vector<int64_t>{0, 0, 0, 0, 0, 0});
      x = b_.AddOp1(OpKind::kConv3d, "", {z, w, bias}, attrs);
    }
    GraphBuilder::Scope scope(b_, "decoder");
    x = CausalConv("conv_in", x, 512, 3);
    x = Resnet("mid_block.resnets.0", x, 512);
    x = Attention("mid_block.attentions.0", x);
    x = Resnet("mid_block.resnets.1", x, 512);
    const int64_t out_channels[] = {512, 512, 256, 128};
    for (int block = 0; block < 4; ++block) {
      const std::string prefix = "up_blocks." + std::to_string(block);
      for (int r = 0; r < 3; ++r) x = Resnet(prefix + ".resnets." + std::to_string(r), x, out_channels[block]);
      if (block < 3) x = Upsample(prefix + ".upsamplers.0", x, /*in_time=*/block >= 1);
    }
    x = b_.Unary(OpKind::kSilu, "conv_act", GroupNorm("conv_norm_out", x));
    return CausalConv("conv_out", x, 3, 3);
  }
  // blend_v / blend_h / blend_t: the first e = min(a, b, extent) rows of b
  // along `axis` become a[-e + y] * (1 - y / e) + b[y] * (y / e).
  ValueId Blend(const std::string& name, ValueId a, ValueId b, int64_t axis, int64_t extent) {
    const int64_t a_size = b_.type(a).shape[axis], b_size = b_.type(b).shape[axis];
    const int64_t e = std::min({a_size, b_size, extent});
    if (e == 0) return b;
    GraphBuilder::Scope scope(b_, name);
    Shape ramp_shape(5, 1);
    ramp_shape[static_cast<size_t>(axis)] = e;
    // The ramps y / e and 1 - y / e: constants shared by every blend of that
    // axis and extent.
    const std::string ramp = "blend_ramp.axis" + std::to_string(axis) + "_" + std::to_string(e);
    ValueId up = b_.Constant(ramp + ".up", kDType, ramp_shape);
    ValueId down = b_.Constant(ramp + ".down", kDType, ramp_shape);
    // Last argument first, as GCC built the nested call (graph_builder.h, Op order).
    ValueId fade_in = b_.Binary(OpKind::kMul, "fade_in", b_.SliceAxis("head", b, axis, 0, e), up);
    ValueId fade_out = b_.Binary(OpKind::kMul, "fade_out", b_.SliceAxis("tail", a, axis, a_size - e, a_size), down);
    ValueId mixed = b_.Binary(OpKind::kAdd, "mix", fade_out, fade_in);
    if (e == b_size) return mixed;
    return b_.Concat("cat", {mixed, b_.SliceAxis("rest", b, axis, e, b_size)}, axis);
  }
  ValueId SpatialTiled(const LatentTile& z) {
    const Shape& s = z.shape;
    std::vector<std::vector<ValueId>> rows;  // blended tiles
    std::vector<ValueId> result_rows;
    for (int64_t i = 0, r = 0; i < s[3]; i += kTileStride, ++r) {
      std::vector<ValueId> row, cut;
      for (int64_t j = 0, c = 0; j < s[4]; j += kTileStride, ++c) {
        GraphBuilder::Scope scope(b_, "tile_" + std::to_string(r) + "_" + std::to_string(c), /*names_params=*/false);
        LatentTile latent = Slice("latent_rows", z, 3, i, std::min(i + kTileLatent, s[3]));
        latent = Slice("latent_cols", latent, 4, j, std::min(j + kTileLatent, s[4]));
        ValueId tile = Run(latent);
        if (r > 0) tile = Blend("blend_v", rows[static_cast<size_t>(r - 1)][static_cast<size_t>(c)], tile, 3, kBlendRows);
        if (c > 0) tile = Blend("blend_h", row[static_cast<size_t>(c - 1)], tile, 4, kBlendRows);
        row.push_back(tile);
        const Shape t = b_.type(tile).shape;
        ValueId kept = b_.SliceAxis("row_limit", tile, 3, 0, std::min(kRowLimit, t[3]));
        cut.push_back(b_.SliceAxis("col_limit", kept, 4, 0, std::min(kRowLimit, t[4])));
      }
      rows.push_back(row);
      result_rows.push_back(cut.size() == 1 ? cut[0] : b_.Concat("row_" + std::to_string(r) + ".cat", cut, 4));
    }
    return result_rows.size() == 1 ? result_rows[0] : b_.Concat("rows.cat", result_rows, 3);
  }
  ValueId TemporalTiled(const LatentTile& z) {
    const Shape& s = z.shape;
    std::vector<ValueId> row, result;
    for (int64_t i = 0, t = 0; i < s[2]; i += kTileFrameStride, ++t) {
      GraphBuilder::Scope scope(b_, "ttile_" + std::to_string(t), /*names_params=*/false);
      const LatentTile latent = Slice("latent_frames", z, 2, i, std::min(i + kTileLatentFrames + 1, s[2]));
      const Shape& l = latent.shape;
      ValueId decoded = l[3] > kTileLatent || l[4] > kTileLatent ? SpatialTiled(latent) : Run(latent);
      const int64_t frames = b_.type(decoded).shape[2];
      // A one-frame tile after the first decodes to nothing kept: it still
      // runs (its ops stay in the graph) but adds no frame.
      if (i > 0) {
        if (frames == 1) continue;
        decoded = b_.SliceAxis("drop_first", decoded, 2, 1, frames);
      }
      if (t > 0) decoded = Blend("blend_t", row.back(), decoded, 2, kBlendFrames);
      row.push_back(decoded);
      const int64_t limit = t == 0 ? kFrameLimit + 1 : kFrameLimit;
      const int64_t kept = b_.type(decoded).shape[2];
      result.push_back(kept <= limit ? decoded : b_.SliceAxis("t_limit", decoded, 2, 0, limit));
    }
    return result.size() == 1 ? result[0] : b_.Concat("frames.cat", result, 2);
  }

  GraphBuilder& b_;
  TileMode mode_;
  std::vector<DecoderTileRun>* runs_;
};

// latents / scaling_factor (the config has no shift_factor).
ValueId Unscale(GraphBuilder& b, ValueId latents) {
  return b.Binary(OpKind::kDiv, "unscale", latents, b.Full("scaling_factor", kDType, {}, kScalingFactor));
}

// (image / 2 + 0.5).clamp(0, 1)
ValueId ToUnit(GraphBuilder& b, ValueId video) {
  // Last argument first, as GCC built the nested call (graph_builder.h, Op order).
  ValueId offset = b.Full("offset", kDType, {}, 0.5);
  ValueId half = b.Binary(OpKind::kMul, "to_unit.half", video, b.Full("half", kDType, {}, 0.5));
  ValueId x = b.Binary(OpKind::kAdd, "to_unit.add", half, offset);
  x = b.Binary(OpKind::kMax, "clamp.min", x, b.Full("clamp.lo", kDType, {}, 0.0));
  return b.Binary(OpKind::kMin, "clamp.max", x, b.Full("clamp.hi", kDType, {}, 1.0));
}

}  // namespace

pir::Shape HunyuanDecodedShape(const pir::Shape& latent) {
  // Up blocks 1 and 2 double time as 2T - 1: f -> 2f - 1 -> 4f - 3.
  return {latent[0], 3, 1 + 4 * (latent[2] - 1), 8 * latent[3], 8 * latent[4]};
}

pir::Graph BuildHunyuanVaeDecoder(int64_t batch, int64_t latent_frames, int64_t latent_height, int64_t latent_width) {
  GraphBuilder b("hunyuan-vae-decoder");
  const Shape shape{batch, kLatentChannels, latent_frames, latent_height, latent_width};
  ValueId z = Unscale(b, b.Input("latents", kDType, shape));
  std::vector<DecoderTileRun> runs;
  HunyuanDecoder decoder(b, TileMode::kWhole, &runs);
  b.Output(ToUnit(b, decoder.Decode(z, shape)));
  return b.Finish();
}

pir::Graph BuildHunyuanVaeTile(const pir::Shape& latent) {
  GraphBuilder b("hunyuan-vae-decoder.tile");
  ValueId z = b.Input("latent_tile", kDType, latent);
  HunyuanDecoder decoder(b, TileMode::kWhole, /*runs=*/nullptr);  // no tiling: Tile alone
  b.Output(decoder.DecodeOneTile(z));
  return b.Finish();
}

pir::Graph BuildHunyuanVaeBlend(int64_t batch, int64_t latent_frames, int64_t latent_height, int64_t latent_width,
                                std::vector<DecoderTileRun>* runs) {
  GraphBuilder b("hunyuan-vae-decoder.blend");
  const Shape shape{batch, kLatentChannels, latent_frames, latent_height, latent_width};
  // The unscaled latent is what the runs slice: an output, on its own.
  ValueId z = Unscale(b, b.Input("latents", kDType, shape));
  HunyuanDecoder decoder(b, TileMode::kBlend, runs);
  b.Output(ToUnit(b, decoder.Decode(-1, shape)));
  b.Output(z);
  return b.Finish();
}

}  // namespace az::zoo
