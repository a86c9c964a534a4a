// Open-Sora 2.0 (hpcaitech/Open-Sora, 11B): one DiT forward as an exact PIR
// graph, op by op as opensora/models/mmdit/model.py (MMDiTModel, "Modified
// from Flux") and layers.py run it, with the configuration of
// configs/diffusion/inference/256px.py (768px.py inherits it).
//
// Configuration: hidden 3072 = 24 heads x 128, mlp_ratio 4 (12288), 19
// double-stream + 38 single-stream blocks, in_channels 64 = 16 latent
// channels x 2 x 2 (the sampler packs 2x2 latent patches into tokens; the
// model's own patch is 1), T5-XXL context 4096-d x 512 tokens, CLIP-L pooled
// vector 768, RoPE axes [16, 56, 56] (theta 10000) over (t, h, w) ids,
// qkv_bias True, fused_qkv False (separate q/k/v projections; the single
// blocks' v_mlp = v + MLP-in), guidance_embed False (no guidance_in),
// cond_embed True: cond_in = Linear(64 + 4, d) adds the packed image
// condition (a 1-channel mask and the 16-channel masked reference latent).
//
// Shape of the forward, B = batch, L = video tokens, T = 512, N = T + L:
//   img  = img_in(pack(latent)) + cond_in(pack(cond))            [B, L, d]
//   vec  = time_in(sinusoidal(1000 t)) + vector_in(clip_pooled)  [B, d]
//   txt  = txt_in(t5)                                            [B, T, d]
//   19 x double-stream block (img_* and txt_* weights, joint attention, text first)
//   x    = concat(txt, img)                                      [B, N, d]
//   38 x single-stream block (q_proj, k_proj, v_mlp; linear2 = proj + MLP-out)
//   out  = final_layer(x[:, T:], vec), unpacked, f32             [B, 16, T_lat, H/8, W/8]
//
// RoPE: the reference rotates the joint q/k with one table over the text ids
// (all zero) and the image ids. A rotation is per token, so the double blocks
// rotate each stream with its rows of that table before the concat: the same
// values and FLOPs, and the concat feeds the attention directly, as the
// sharding templates expect of a joint attention (shard/templates.cc).
//
// Sampling (opensora/utils/sampling.py): 768px at 16:9 is 1024x576 (the
// default aspect ratio of 256px.py; 256px: 336x192), 129 frames (4n+1, the
// HunyuanVideo VAE: 4x8x8, 16 channels), 50 steps. 768px, 129 frames: 33 x 36
// x 64 = 76,032 video tokens, as 768x768 (33 x 48 x 48) has. Guidance: the
// I2VDenoiser runs one batch-3 forward per step (cond; text-uncond with the
// image; fully uncond), text scale 7.5, image 3.0. The zoo has no batch-3 CFG
// mode: the default is batch2; `--cfg none --batch 3` prices the official
// step's compute.
//
// Assumption: all 512 text tokens are valid; the T5 output is padded to 512
// rows and the model attends to all of them (no mask), so this is exact.
//
// Parallel layouts (reference/models.md §4.6, §4.7): 768px runs ColossalAI
// sequence parallelism sp 8 with ring attention and ZeRO-2, which splits the
// sequence in variable-length chunks (opensora/models/mmdit/distributed.py),
// so every degree runs; a Ulysses degree must divide the 24 heads.
#include <array>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "frontend/zoo/blocks.h"
#include "frontend/zoo/family.h"

namespace az::zoo {
namespace {

constexpr int64_t kHidden = 3072;
constexpr int64_t kHeads = 24;
constexpr int64_t kHeadDim = 128;
constexpr int64_t kMlpHidden = 4 * kHidden;  // 12288
constexpr int64_t kDoubleBlocks = 19;
constexpr int64_t kSingleBlocks = 38;
constexpr int64_t kLatentChannels = 16;
constexpr int64_t kPatch = 2;                                         // the sampler's pack
constexpr int64_t kPacked = kLatentChannels * kPatch * kPatch;        // in_channels 64
constexpr int64_t kCondChannels = 1 + kLatentChannels;                // mask + masked reference
constexpr int64_t kCondPacked = kCondChannels * kPatch * kPatch;      // 68 = in_channels + patch^2
constexpr int64_t kTextTokens = 512;
constexpr int64_t kTextDim = 4096;      // T5-XXL
constexpr int64_t kClipDim = 768;       // CLIP-L pooled (vec_in_dim)
constexpr int64_t kFrequencyDim = 256;  // timestep_embedding(t, 256)
constexpr double kNormEps = 1e-6;
constexpr std::array<int64_t, 3> kRopeSections = {16, 56, 56};  // axes_dim

static_assert(kHeads * kHeadDim == kHidden);
static_assert(kCondPacked == kPacked + kPatch * kPatch);
static_assert(kRopeSections[0] + kRopeSections[1] + kRopeSections[2] == kHeadDim);

using blocks::PatchGrid;

class ForwardBuilder : private blocks::ForwardState {
 public:
  using ForwardState::ForwardState;

  ValueId Build(ValueId latent, ValueId timestep, const std::vector<ValueId>& conditioning);

 private:
  int64_t joint_tokens() const { return kTextTokens + video_; }
  // "b c t (h ph) (w pw) -> b (t h w) (c ph pw)", the tokens out of a transpose.
  ValueId Pack(const std::string& name, ValueId x, int64_t channels);
  ValueId MlpEmbedder(const std::string& name, ValueId x);
  std::pair<ValueId, ValueId> DoubleBlock(int64_t index, ValueId img, ValueId txt);
  ValueId SingleBlock(int64_t index, ValueId x);
  ValueId FinalLayer(ValueId x);

  // Modulation: Linear(d, k d)(SiLU(vec)) chunked into [B, 1, d] rows.
  std::vector<ValueId> Modulation(const std::string& module, const std::vector<std::string>& chunk_names);
  // (1 + scale) * LayerNorm(x) + shift, LayerNorm without affine.
  ValueId NormModulate(const std::string& norm, ValueId x, ValueId shift, ValueId scale);
  // QKNorm: RMSNorm over the head dim with a `scale` weight (FusedRMSNorm).
  ValueId QkNorm(const std::string& module, ValueId x);
  ValueId Rope(const std::string& name, ValueId x, ValueId table);

  ValueId vec_ = -1;
  ValueId rope_txt_ = -1, rope_img_ = -1;
};

ValueId ForwardBuilder::Build(ValueId latent, ValueId timestep, const std::vector<ValueId>& conditioning) {
  AZ_CHECK_MSG(conditioning.size() == 3, "Open-Sora 2.0 takes t5, clip_pooled and cond");
  one_ = b_.Constant("scalar.one", dtype_, {});
  // pe_embedder(cat(txt_ids, img_ids)): cos/sin for the N joint tokens, text first.
  rope_table_ = b_.Constant("rope.table", DType::kF32, {joint_tokens(), kHeadDim});
  rope_txt_ = b_.SliceAxis("rope.txt_rows", rope_table_, 0, 0, kTextTokens);
  rope_img_ = b_.SliceAxis("rope.img_rows", rope_table_, 0, kTextTokens, joint_tokens());

  ValueId img = b_.Linear("img_in", Pack("img_pack", b_.CastTo("latent_cast", latent, dtype_), kLatentChannels),
                          kHidden);
  ValueId cond = b_.Linear("cond_in", Pack("cond_pack", conditioning[2], kCondChannels), kHidden);
  img = b_.Binary(OpKind::kAdd, "img_add_cond", img, cond);
  ValueId time = blocks::TimestepEmbedder(b_, "timestep_embedding", "timestep_embedding.cast",
                                          {"time_in.in_layer", "time_in.silu", "time_in.out_layer"}, timestep,
                                          kFrequencyDim, kHidden, dtype_);
  vec_ = b_.Binary(OpKind::kAdd, "vec.add_vector", time, MlpEmbedder("vector_in", conditioning[1]));
  ValueId txt = b_.Linear("txt_in", conditioning[0], kHidden);

  static_assert(kSingleBlocks == 2 * kDoubleBlocks, "a depth unit is one double- and two single-stream blocks");
  for (int64_t i = 0; i < depth_; ++i) std::tie(img, txt) = DoubleBlock(i, img, txt);
  ValueId x = b_.Concat("concat_txt_img", {txt, img}, 1);
  for (int64_t i = 0; i < 2 * depth_; ++i) x = SingleBlock(i, x);
  return FinalLayer(b_.SliceAxis("img_tokens", x, 1, kTextTokens, joint_tokens()));
}

ValueId ForwardBuilder::Pack(const std::string& name, ValueId x, int64_t channels) {
  ValueId split = b_.Reshape(name + ".split", x,
                             {batch_, channels, grid_.frames, grid_.rows, kPatch, grid_.cols, kPatch});
  ValueId moved = b_.Transpose(name + ".permute", split, {0, 1, 4, 6, 2, 3, 5});
  ValueId merged = b_.Reshape(name + ".merge", moved, {batch_, channels * kPatch * kPatch, video_});
  return b_.Transpose(name + ".to_tokens", merged, {0, 2, 1});
}

ValueId ForwardBuilder::MlpEmbedder(const std::string& name, ValueId x) {
  return blocks::Mlp(b_, {name + ".in_layer", name + ".silu", name + ".out_layer"}, x, kHidden, kHidden,
                     OpKind::kSilu);
}

std::pair<ValueId, ValueId> ForwardBuilder::DoubleBlock(int64_t index, ValueId img, ValueId txt) {
  GraphBuilder::Scope scope(b_, "double_blocks." + std::to_string(index));
  auto stream_modulation = [&](const std::string& s) {
    return Modulation(s + "_mod", {s + "_mod1.shift", s + "_mod1.scale", s + "_mod1.gate", s + "_mod2.shift",
                                   s + "_mod2.scale", s + "_mod2.gate"});
  };
  std::vector<ValueId> img_mod = stream_modulation("img");
  std::vector<ValueId> txt_mod = stream_modulation("txt");

  // Per stream: norm1, modulate, q/k/v projections, QKNorm, RoPE on its rows.
  auto stream_qkv = [&](const std::string& s, ValueId x, const std::vector<ValueId>& mod, ValueId table) {
    ValueId h = NormModulate(s + "_norm1", x, mod[0], mod[1]);
    const std::string attn = s + "_attn";
    ValueId q = blocks::ProjectHeads(b_, attn + ".q_proj", h, kHeads, kHeadDim);
    ValueId k = blocks::ProjectHeads(b_, attn + ".k_proj", h, kHeads, kHeadDim);
    ValueId v = blocks::ProjectHeads(b_, attn + ".v_proj", h, kHeads, kHeadDim);
    q = Rope(attn + ".q_rope", QkNorm(attn + ".norm.query_norm", q), table);
    k = Rope(attn + ".k_rope", QkNorm(attn + ".norm.key_norm", k), table);
    return std::array<ValueId, 3>{q, k, v};
  };
  std::array<ValueId, 3> img_qkv = stream_qkv("img", img, img_mod, rope_img_);
  std::array<ValueId, 3> txt_qkv = stream_qkv("txt", txt, txt_mod, rope_txt_);

  // Joint attention over [text; image].
  ValueId attn = blocks::JointAttention(b_, txt_qkv, img_qkv, std::nullopt, kHidden);
  ValueId txt_attn = b_.SliceAxis("txt_attn.rows", attn, 1, 0, kTextTokens);
  ValueId img_attn = b_.SliceAxis("img_attn.rows", attn, 1, kTextTokens, joint_tokens());

  auto stream_tail = [&](const std::string& s, ValueId x, ValueId attn_s, const std::vector<ValueId>& mod) {
    const blocks::StreamTailNames names{s + "_attn.proj", s + "_attn.residual", s + "_norm2", s + "_norm2",
                                        {s + "_mlp.0", s + "_mlp.1", s + "_mlp.2"}, s + "_mlp.residual"};
    return blocks::DoubleStreamTail(b_, names, x, attn_s, mod, one_, kHidden, kMlpHidden, kNormEps);
  };
  img = stream_tail("img", img, img_attn, img_mod);
  txt = stream_tail("txt", txt, txt_attn, txt_mod);
  return {img, txt};
}

ValueId ForwardBuilder::SingleBlock(int64_t index, ValueId x) {
  GraphBuilder::Scope scope(b_, "single_blocks." + std::to_string(index));
  std::vector<ValueId> mod = Modulation("modulation", {"mod.shift", "mod.scale", "mod.gate"});
  ValueId h = NormModulate("pre_norm", x, mod[0], mod[1]);
  ValueId q = blocks::ProjectHeads(b_, "q_proj", h, kHeads, kHeadDim);
  ValueId k = blocks::ProjectHeads(b_, "k_proj", h, kHeads, kHeadDim);
  // v_mlp: the value (d) and the MLP input (4d) at once.
  ValueId v_mlp = b_.Linear("v_mlp", h, kHidden + kMlpHidden);
  ValueId v = blocks::SplitHeads(b_, "v.heads", b_.SliceAxis("split_v", v_mlp, 2, 0, kHidden), kHeads, kHeadDim);
  ValueId mlp_in = b_.SliceAxis("split_mlp", v_mlp, 2, kHidden, kHidden + kMlpHidden);
  q = Rope("q_rope", QkNorm("norm.query_norm", q), rope_table_);
  k = Rope("k_rope", QkNorm("norm.key_norm", k), rope_table_);
  return blocks::SingleStreamOut(b_, x, q, k, v, std::nullopt, mlp_in, mod[2], kHidden);
}

ValueId ForwardBuilder::FinalLayer(ValueId x) {
  GraphBuilder::Scope scope(b_, "final_layer");
  std::vector<ValueId> mod =
      blocks::AdaLnModulation(b_, {"adaLN_modulation.0", "adaLN_modulation.1", "chunks"}, vec_, kHidden,
                              {"shift", "scale"});
  ValueId h = NormModulate("norm_final", x, mod[0], mod[1]);
  ValueId packed = b_.Linear("linear", h, kPacked);  // LastLayer(d, patch 1, 64 channels)
  // unpack: "b (t h w) (c ph pw) -> b c t (h ph) (w pw)".
  ValueId latent =
      blocks::UnpatchifySpatial(b_, "unpack", packed, grid_, kLatentChannels, kPatch, /*channels_last=*/false);
  return b_.CastTo("to_f32", latent, DType::kF32);
}

std::vector<ValueId> ForwardBuilder::Modulation(const std::string& module,
                                                const std::vector<std::string>& chunk_names) {
  return blocks::AdaLnModulation(b_, {module + ".silu", module + ".lin", module + ".chunks"}, vec_, kHidden,
                                 chunk_names);
}

ValueId ForwardBuilder::NormModulate(const std::string& norm, ValueId x, ValueId shift, ValueId scale) {
  return blocks::NormModulate(b_, norm, norm, x, shift, scale, one_, kNormEps);
}

ValueId ForwardBuilder::QkNorm(const std::string& module, ValueId x) {
  ValueId scale;
  {
    GraphBuilder::Scope scope(b_, module);
    scale = b_.Param("scale", dtype_, {kHeadDim});
  }
  Attributes attrs;
  attrs.Set("eps", kNormEps);
  return b_.AddOp1(OpKind::kRmsNorm, module, {x, scale}, std::move(attrs));
}

ValueId ForwardBuilder::Rope(const std::string& name, ValueId x, ValueId table) {
  return b_.Rope(name, x, table, std::vector<int64_t>(kRopeSections.begin(), kRopeSections.end()));
}

class OpenSora final : public DitFamily {
 public:
  // The common checks (sizes multiples of 16, frames 4n+1) are all the model needs.
  Status Validate(const ModelConfig&) const override { return Status::Ok(); }

  TokenCounts Tokens(const ModelConfig& config) const override { return {LatentPatches(config).tokens(), kTextTokens}; }

  int64_t latent_channels() const override { return kLatentChannels; }
  // 19 double : 38 single blocks: a unit is one double- and two single-stream blocks.
  int64_t depth_units() const override { return kDoubleBlocks; }

  int64_t patch() const override { return kPatch; }

  // t5: [B, 512, 4096]; clip_pooled: [B, 768]; cond: the image condition
  // [B, 1 + 16, T, H/8, W/8] (mask, masked reference latent), the same for
  // the conditional and the text-unconditional pass.
  std::vector<ValueId> DeclareConditioning(GraphBuilder& b, const ModelConfig& config, int64_t batch,
                                           const std::string& pass) const override {
    ValueId t5 = DeclareText(b, config, batch, pass, {"t5", kTextTokens, kTextDim});
    ValueId clip = b.Input("clip_pooled" + PassSuffix(pass), config.dtype, {batch, kClipDim});
    const pir::Shape cond_shape = {batch, kCondChannels, config.latent_frames(), config.latent_height(),
                                   config.latent_width()};
    ValueId cond = b.Input("cond", config.dtype, cond_shape);
    return {t5, clip, cond};
  }

 protected:
  ValueId BuildForward(GraphBuilder& b, const ModelConfig& config, int64_t batch, ValueId x, ValueId t,
                       const std::vector<ValueId>& conditioning) const override {
    ForwardBuilder forward(b, config.dtype, batch, LatentPatches(config), Depth(config));
    return forward.Build(x, t, conditioning);
  }
};

}  // namespace

const DitFamily& OpenSora20() {
  static const OpenSora kFamily;
  return kFamily;
}

}  // namespace az::zoo
