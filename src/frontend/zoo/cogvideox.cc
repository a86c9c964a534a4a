// CogVideoX-2B, CogVideoX-5B and CogVideoX1.5-5B: one DiT forward as an exact
// PIR graph, op by op as diffusers' CogVideoXTransformer3DModel runs it
// (models/transformers/cogvideox_transformer_3d.py, CogVideoXAttnProcessor2_0,
// embeddings.py CogVideoXPatchEmbed, normalization.py CogVideoXLayerNormZero
// and AdaLayerNorm; reference/models.md §3).
//
// Configuration (the THUDM transformer configs, as diffusers'
// scripts/convert_cogvideox_to_diffusers.py writes them): head dim 64,
// time_embed_dim 512, text_embed_dim 4096 (T5-XXL), 226 text tokens
// (max_text_seq_length), 16 latent channels in and out, patch 2x2,
// attention_bias true, LayerNorm eps 1e-5 (qk norms 1e-6), GELU-tanh FFN 4d.
//   2B     30 heads (d 1920), 30 blocks, 3D sin-cos position embedding added
//          to the video tokens (a buffer), no RoPE;
//   5B     48 heads (d 3072), 42 blocks, 3D RoPE on the video q/k rows;
//   1.5-5B as 5B with patch_size_t 2: the patch embedding is a Linear over
//          (C, 2, 2, 2) = 128 values, the head emits 128 per token, and the
//          pipeline pads the latent frames to even (81 frames: 21 -> 22).
// The text-to-video 1.5 checkpoint has no ofs embedding: the convert script
// gives ofs_embed_dim 512 only to CogVideoX1.5-5B-I2V.
//
// Shape of the forward, B = batch, L = video tokens, T = 226, N = T + L:
//   emb  = time_embedding(sinusoidal(t, d))                  [B, 512]
//   x    = [text_proj(text); patch_embed(latent)] (+ pos 2B) [B, N, d], text first
//   per block (the "expert" adaLN: one Linear(512, 6d) modulates both streams,
//   each with its own shift/scale/gate, through one shared LayerNorm):
//     video, text = LN(video) * (1 + scale) + shift, LN(text) * (1 + enc_scale) + enc_shift
//     q, k, v     = to_q/k/v([text; video]), LayerNorm per head (64), RoPE on video rows (5B)
//     attn        = joint attention over N; to_out; split; gated residuals per stream
//     ffn         = the same modulation (norm2), FFN on [text; video], split, gated residuals
//   out  = proj_out(norm_out(norm_final(video), emb)), unpatchified, f32    [B, 16, T_lat, H/8, W/8]
//
// Layout: the zoo's latent is [B, C, T, H/8, W/8]; diffusers keeps
// [B, T, C, H, W]. The 1.0 patch embedding, a Conv2d(16, d, 2, stride 2) over
// every frame, is written as a Conv3d with kernel (1, 2, 2) on the zoo's
// layout: the same weights, the same FLOPs, the same token order (frame, row,
// column). The head writes the zoo's layout back.
//
// Parallel layouts (reference/models.md §4.3, §4.7): a Ulysses degree must
// divide the heads (2B: 30, so 1, 2, 3, 5, 6, 10, 15, 30; 5B: 48), which
// shard/templates.cc checks. Sequence splits need not divide the tokens (the
// compiler pads): 17,550 video tokens = 2 * 3^3 * 5^2 * 13 pad at 4 and 8,
// while 17,776 joint tokens = 2^4 * 11 * 101 split evenly. The templates split the video stream and the joint
// [text; video] activations (as HunyuanVideo's single-stream blocks); the
// 226-row text stream between blocks is not seeded. xDiT's runner
// (examples/cogvideox_usp_example.py) splits the text only when sp divides
// 226 = 2 * 113 and chunks each frame's patch rows by sp.
//
// Numerics: the pipeline loads the model in bf16 and runs it there; the f32
// latent and sinusoidal embedding are cast once (config.dtype). Position
// tables (sin-cos and RoPE) are buffers (graph constants), never parameters.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "frontend/zoo/blocks.h"
#include "frontend/zoo/family.h"

namespace az::zoo {
namespace {

struct CogShape {
  int64_t heads, layers;
  bool rope;        // 3D RoPE on video q/k (5B, 1.5); else sin-cos PE added to the video tokens (2B)
  int64_t patch_t;  // temporal patch: 1 (1.0), 2 (1.5)
  int64_t frame_step;  // frames = frame_step * n + 1 (model cards: 8N+1 for 1.0, 16N+1 for 1.5)
};

constexpr int64_t kHeadDim = 64;
constexpr int64_t kTimeEmbedDim = 512;
constexpr int64_t kTextDim = 4096;
constexpr int64_t kTextTokens = 226;
constexpr int64_t kChannels = 16;  // in_channels = out_channels
constexpr int64_t kPatch = 2;
constexpr double kNormEps = 1e-5;
constexpr double kQkNormEps = 1e-6;

using blocks::PatchGrid;

class ForwardBuilder : private blocks::ForwardState {
 public:
  ForwardBuilder(GraphBuilder& b, const CogShape& s, DType dtype, int64_t batch, PatchGrid grid, int64_t depth)
      : ForwardState(b, dtype, batch, grid, depth), s_(s), d_(s.heads * kHeadDim) {}

  ValueId Build(ValueId latent, ValueId timestep, ValueId text);

 private:
  int64_t joint() const { return kTextTokens + video_; }
  ValueId TimeEmbedding(ValueId timestep);
  ValueId PatchEmbed(ValueId latent);
  // Returns {video, text}.
  std::pair<ValueId, ValueId> Block(int64_t index, ValueId video, ValueId text);
  // CogVideoXLayerNormZero: Linear(512, 6d)(SiLU(emb)) -> shift, scale, gate,
  // enc_shift, enc_scale, enc_gate; one LayerNorm (one weight) for both
  // streams. Returns {video, text, gate, enc_gate}.
  std::vector<ValueId> NormZero(const std::string& module, ValueId video, ValueId text);
  // LayerNorm with the module's affine weight (shared when called twice).
  ValueId SharedLayerNorm(const std::string& module, const std::string& op, ValueId x, double eps);
  // RoPE on the video rows [T, N) of q or k [B, N, heads, 64]; text rows pass through.
  ValueId RopeVideoRows(const std::string& name, ValueId x);
  // [B, N, *] -> {text [B, T, *], video [B, L, *]}.
  std::pair<ValueId, ValueId> Split(const std::string& name, ValueId x);
  ValueId Head(ValueId video);

  const CogShape& s_;
  int64_t d_;
  ValueId emb_ = -1;
};

ValueId ForwardBuilder::Build(ValueId latent, ValueId timestep, ValueId text) {
  one_ = b_.Constant("scalar.one", dtype_, {});
  // get_3d_rotary_pos_embed: cos and sin over the video tokens, head-dim
  // sections t : h : w = 64/4 : 64/8*3 : 64/8*3 = 16 : 24 : 24.
  if (s_.rope) rope_table_ = b_.Constant("rope.table", DType::kF32, {video_, kHeadDim});
  emb_ = TimeEmbedding(timestep);

  // CogVideoXPatchEmbed: [text_proj(text); proj(latent)], + the joint sin-cos table (2B).
  ValueId x;
  {
    GraphBuilder::Scope scope(b_, "patch_embed");
    ValueId text_tokens = b_.Linear("text_proj", text, d_);
    ValueId video_tokens = PatchEmbed(latent);
    x = b_.Concat("concat_text_video", {text_tokens, video_tokens}, 1);
    if (!s_.rope) {
      // Zeros on the text rows, the 3D sin-cos embedding on the video rows
      // (recomputed for sizes other than the config's sample size).
      ValueId table = b_.Constant("pos_embedding", dtype_, {1, joint(), d_});
      x = b_.Binary(OpKind::kAdd, "add_pos_embedding", x, table);
    }
  }
  std::pair<ValueId, ValueId> text_video = Split("split_embeds", x);
  ValueId text_h = text_video.first, video_h = text_video.second;
  for (int64_t i = 0; i < depth_; ++i) std::tie(video_h, text_h) = Block(i, video_h, text_h);
  return Head(video_h);
}

ValueId ForwardBuilder::TimeEmbedding(ValueId timestep) {
  // Timesteps(d): flip_sin_to_cos, shift 0, f32, no parameters; cast to the model dtype.
  return blocks::TimestepEmbedder(b_, "time_proj", "time_embedding.cast",
                                  {"time_embedding.linear_1", "time_embedding.act", "time_embedding.linear_2"},
                                  timestep, d_, kTimeEmbedDim, dtype_);
}

ValueId ForwardBuilder::PatchEmbed(ValueId latent) {
  // Conv2d(16, d, 2, stride 2, bias) per frame == Conv3d kernel (1, 2, 2).
  if (s_.patch_t == 1) return blocks::ConvPatchEmbed(b_, latent, dtype_, d_, {1, kPatch, kPatch});
  ValueId x = b_.CastTo("cast", latent, dtype_);
  // 1.5: [B, C, T, H, W] -> [B, (T', H', W'), (C, p_t, p, p)] -> Linear(128, d).
  // The Linear has a bias: diffusers builds it with nn.Linear's default
  // (patch_bias applies to the 1.0 Conv2d only). The tokens come out of a
  // transpose, as the convolution's do: [B, 128, L] -> [B, L, 128], so that
  // a sequence sharding of the tokens is one factor L, whatever divides the
  // frame count (11 patches of time at 81 frames).
  const int64_t patch_values = kChannels * s_.patch_t * kPatch * kPatch;
  ValueId split = b_.Reshape("patchify.split", x,
                             {batch_, kChannels, grid_.frames, s_.patch_t, grid_.rows, kPatch, grid_.cols, kPatch});
  ValueId moved = b_.Transpose("patchify.permute", split, {0, 1, 3, 5, 7, 2, 4, 6});
  ValueId merged = b_.Reshape("patchify.merge", moved, {batch_, patch_values, video_});
  ValueId patches = b_.Transpose("patchify.to_tokens", merged, {0, 2, 1});
  return b_.Linear("proj", patches, d_);
}

std::pair<ValueId, ValueId> ForwardBuilder::Block(int64_t index, ValueId video, ValueId text) {
  GraphBuilder::Scope scope(b_, "transformer_blocks." + std::to_string(index));
  // 1. Attention over [text; video].
  std::vector<ValueId> n1 = NormZero("norm1", video, text);
  ValueId attn_out;
  {
    GraphBuilder::Scope attn_scope(b_, "attn1");
    ValueId joint_in = b_.Concat("concat_text_video", {n1[1], n1[0]}, 1);
    ValueId q = blocks::ProjectHeads(b_, "to_q", joint_in, s_.heads, kHeadDim);
    ValueId k = blocks::ProjectHeads(b_, "to_k", joint_in, s_.heads, kHeadDim);
    ValueId v = blocks::ProjectHeads(b_, "to_v", joint_in, s_.heads, kHeadDim);
    q = b_.LayerNorm("norm_q", q, /*affine=*/true, kQkNormEps);
    k = b_.LayerNorm("norm_k", k, /*affine=*/true, kQkNormEps);
    if (s_.rope) {
      q = RopeVideoRows("q", q);
      k = RopeVideoRows("k", k);
    }
    ValueId attn = b_.Attention("attention", q, k, v, "joint");
    ValueId merged = b_.Reshape("merge_heads", attn, {batch_, joint(), d_});
    attn_out = b_.Linear("to_out.0", merged, d_);
  }
  auto [attn_text, attn_video] = Split("attn1.split", attn_out);
  video = blocks::GatedResidual(b_, "attn_residual", video, attn_video, n1[2]);
  text = blocks::GatedResidual(b_, "attn_residual_text", text, attn_text, n1[3]);

  // 2. Feed-forward on [text; video].
  std::vector<ValueId> n2 = NormZero("norm2", video, text);
  ValueId ff_out;
  {
    GraphBuilder::Scope ff_scope(b_, "ff");
    ValueId joint_in = b_.Concat("concat_text_video", {n2[1], n2[0]}, 1);
    ff_out = blocks::Mlp(b_, {"net.0.proj", "net.0.act", "net.2"}, joint_in, 4 * d_, d_, OpKind::kGeluTanh);
  }
  auto [ff_text, ff_video] = Split("ff.split", ff_out);
  video = blocks::GatedResidual(b_, "ff_residual", video, ff_video, n2[2]);
  text = blocks::GatedResidual(b_, "ff_residual_text", text, ff_text, n2[3]);
  return {video, text};
}

std::vector<ValueId> ForwardBuilder::NormZero(const std::string& module, ValueId video, ValueId text) {
  std::vector<std::string> names;
  for (const char* name : {"shift", "scale", "gate", "enc_shift", "enc_scale", "enc_gate"}) {
    names.push_back(module + "." + name);
  }
  std::vector<ValueId> chunk =
      blocks::AdaLnModulation(b_, {module + ".silu", module + ".linear", module + ".chunks"}, emb_, d_, names);
  ValueId video_norm = SharedLayerNorm(module + ".norm", module + ".norm_video", video, kNormEps);
  ValueId video_mod = blocks::Modulate(b_, module + ".modulate_video", video_norm, chunk[0], chunk[1], one_);
  ValueId text_norm = SharedLayerNorm(module + ".norm", module + ".norm_text", text, kNormEps);
  ValueId text_mod = blocks::Modulate(b_, module + ".modulate_text", text_norm, chunk[3], chunk[4], one_);
  return {video_mod, text_mod, chunk[2], chunk[5]};
}

ValueId ForwardBuilder::SharedLayerNorm(const std::string& module, const std::string& op, ValueId x, double eps) {
  ValueId weight, bias;
  {
    GraphBuilder::Scope scope(b_, module);
    weight = b_.Param("weight", dtype_, {d_});
    bias = b_.Param("bias", dtype_, {d_});
  }
  Attributes attrs;
  attrs.Set("eps", eps);
  return b_.AddOp1(OpKind::kLayerNorm, op, {x, weight, bias}, std::move(attrs));
}

ValueId ForwardBuilder::RopeVideoRows(const std::string& name, ValueId x) {
  return blocks::RopeRows(b_, name, x, rope_table_, {16, 24, 24},
                          {kTextTokens, /*rotate_lower=*/false, "_text", "_video"});
}

std::pair<ValueId, ValueId> ForwardBuilder::Split(const std::string& name, ValueId x) {
  ValueId text = b_.SliceAxis(name + ".text", x, 1, 0, kTextTokens);
  ValueId video = b_.SliceAxis(name + ".video", x, 1, kTextTokens, joint());
  return {text, video};
}

ValueId ForwardBuilder::Head(ValueId video) {
  // norm_final, then norm_out (AdaLayerNorm, chunk_dim 1: shift, scale), then
  // proj_out. Older diffusers ran norm_final over [text; video] for the 5B; a
  // LayerNorm is per token, so the video rows come out the same.
  ValueId h = b_.LayerNorm("norm_final", video, /*affine=*/true, kNormEps);
  {
    GraphBuilder::Scope scope(b_, "norm_out");
    std::vector<ValueId> mod = blocks::AdaLnModulation(b_, {"silu", "linear", "chunks"}, emb_, d_, {"shift", "scale"});
    h = b_.LayerNorm("norm", h, /*affine=*/true, kNormEps);
    h = blocks::Modulate(b_, "modulate", h, mod[0], mod[1], one_);
  }
  const int64_t patch_values = kChannels * s_.patch_t * kPatch * kPatch;  // 64 (1.0), 128 (1.5)
  ValueId patches = b_.Linear("proj_out", h, patch_values);
  // Unpatchify: [B, L, (C, p_t, p, p)] -> [B, T', H', W', C, p_t, p, p]
  //   -> [B, C, T', p_t, H', p, W', p] -> [B, C, T' p_t, H' p, W' p].
  ValueId latent =
      blocks::Unpatchify(b_, patches, grid_, kChannels, {s_.patch_t, kPatch, kPatch}, /*channels_last=*/false);
  return b_.CastTo("to_f32", latent, DType::kF32);
}

class CogVideoX final : public DitFamily {
 public:
  explicit CogVideoX(CogShape shape) : s_(shape) {}

  // The common checks passed: sizes multiples of 16, frames 4n+1. The model
  // cards ask for 8N+1 frames (1.0: 49 = 13 latent frames) and 16N+1 (1.5:
  // 81 = 21 latent frames, padded to 22); the card's bounds (N <= 6, N <= 10)
  // are what the models were trained at, not what the code can run, so they
  // are not enforced.
  Status Validate(const ModelConfig& config) const override {
    if ((config.frames - 1) % s_.frame_step != 0) {
      return InvalidArgument(config.model + ": frames must be " + std::to_string(s_.frame_step) + "n+1 (" +
                             (s_.patch_t == 1 ? "49 by default" : "81 by default") + "), got " +
                             std::to_string(config.frames));
    }
    return Status::Ok();
  }

  // xDiT's runner gives each sequence-parallel rank a band of every frame's
  // latent rows (xfuser/core/distributed/runtime_state.py,
  // `_calc_cogvideox_patches_metadata`: the latent height must be a multiple
  // of patch_size x sp, else ValueError). 720x480: 60 latent rows = 30 patch rows, so sp 1, 2, 3, 5,
  // 6, 10, 15, 30, never 4 or 8 (its docs run CogVideoX on 1-6 and 12 GPUs).
  Status DeployedSequenceSplit(const ModelConfig& config, int64_t sp) const override {
    const int64_t rows = config.latent_height();
    if (rows % (kPatch * sp) == 0) return Status::Ok();
    return InvalidArgument("xDiT splits every CogVideoX frame's latent rows over ulysses x ring = " +
                           std::to_string(sp) + " ranks in bands of whole patches, and " + std::to_string(rows) +
                           " latent rows (" + std::to_string(config.height) + " px / 8) are not a multiple of " +
                           std::to_string(kPatch) + " x " + std::to_string(sp));
  }

  TokenCounts Tokens(const ModelConfig& config) const override { return {GridOf(config).tokens(), kTextTokens}; }

  int64_t latent_channels() const override { return kChannels; }
  int64_t depth_units() const override { return s_.layers; }
  int64_t latent_frame_multiple() const override { return s_.patch_t; }
  int64_t patch() const override { return kPatch; }

 protected:
  // encoder_hidden_states: the T5-XXL output padded to 226 rows [B, 226, 4096].
  std::vector<TextInput> text_inputs() const override { return {{"encoder_hidden_states", kTextTokens, kTextDim}}; }

  ValueId BuildForward(GraphBuilder& b, const ModelConfig& config, int64_t batch, ValueId x, ValueId t,
                       const std::vector<ValueId>& conditioning) const override {
    ForwardBuilder forward(b, s_, config.dtype, batch, GridOf(config), Depth(config));
    return forward.Build(x, t, conditioning[0]);
  }

 private:
  // patch_t latent frames per token (1.5: 2).
  PatchGrid GridOf(const ModelConfig& config) const { return LatentPatches(config, s_.patch_t); }
  CogShape s_;
};

}  // namespace

// [diffusers: scripts/convert_cogvideox_to_diffusers.py; THUDM/CogVideoX-2b,
// -5b, CogVideoX1.5-5B transformer/config.json]
const DitFamily& CogVideoX2B() {
  static const CogVideoX kFamily({30, 30, false, 1, 8});
  return kFamily;
}
const DitFamily& CogVideoX5B() {
  static const CogVideoX kFamily({48, 42, true, 1, 8});
  return kFamily;
}
const DitFamily& CogVideoX15_5B() {
  static const CogVideoX kFamily({48, 42, true, 2, 16});
  return kFamily;
}

}  // namespace az::zoo
