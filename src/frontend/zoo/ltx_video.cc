// LTX-Video 2B and 13B: one DiT forward as an exact PIR graph, op by op as
// diffusers' LTXVideoTransformer3DModel runs it [diffusers 58eb52c0:
// models/transformers/transformer_ltx.py (LTXVideoTransformerBlock,
// LTXAttention, LTXVideoAttnProcessor, LTXVideoRotaryPosEmbed),
// normalization.py AdaLayerNormSingle, embeddings.py PixArtAlphaTextProjection;
// the same modules as Lightricks/LTX-Video 5260738
// ltx_video/models/transformers/transformer3d.py and attention.py, whose
// checkpoint names diffusers renames: patchify_proj -> proj_in, adaln_single
// -> time_embed, q_norm / k_norm -> norm_q / norm_k].
//
// Configuration:
//   2B   32 heads of 64 (d 2048), 28 blocks, cross_attention_dim 2048
//        [diffusers LTXVideoTransformer3DModel defaults; Lightricks
//        ltx_video/utils/diffusers_config_mapping.py];
//   13B  32 heads of 128 (d 4096), 48 blocks, cross_attention_dim 4096
//        [AI-Hypercomputer/maxdiffusion 7cfb8801:
//        src/maxdiffusion/models/ltx_video/ltxv-13B.json];
// both: 128 latent channels in and out, patch 1 x 1 x 1, caption_channels 4096
// (T5-XXL), FFN 4d GELU-tanh, attention_bias and attention_out_bias true,
// qk_norm RMSNorm across the heads (one weight of d, eps 1e-5), block norms
// RMSNorm without weight (eps 1e-6), norm_out LayerNorm without affine.
//
// Shape of the forward, B = batch, L = video tokens, T = text tokens (2B: 128,
// diffusers' LTXPipeline max_sequence_length; 13B: 256, Lightricks'
// text_encoder_max_tokens and diffusers' LTXConditionPipeline):
//   x    = proj_in(latent tokens)                                   [B, L, d], rows (frame, row, column)
//   emb  = time_embed.emb(t): sinusoid(256) -> Linear -> SiLU -> Linear   [B, d]
//   temb = time_embed.linear(SiLU(emb))                             [B, 6d]
//   text = caption_projection(T5): Linear -> GELU-tanh -> Linear    [B, T, d]
//   per block (table = the block's scale_shift_table [6, d] + temb):
//     x = x + gate_msa * attn1(RMS(x) * (1 + scale_msa) + shift_msa), RoPE on q, k
//     x = x + attn2(x, text)                                        (no norm, no gate)
//     x = x + gate_mlp * ff(RMS(x) * (1 + scale_mlp) + shift_mlp)
//   out  = proj_out(LN(x) * (1 + scale) + shift), (shift, scale) = scale_shift_table [2, d] + emb
//
// RoPE: LTXVideoRotaryPosEmbed builds cos and sin over the whole d (the three
// axes' d/6 frequencies interleaved, two leading channels unrotated when 6
// does not divide d) and rotates the pairs (2i, 2i + 1) of q and k before the
// heads are split. No pair crosses a head, so it is the same element-wise op on
// the heads view [B, L, heads, d_h], which is how it is written here: a head
// split shards it (Ulysses, TP) without gathering d. The PIR table is
// [L, d_h], LTX's [L, d] (a buffer, not a parameter).
//
// Layout: the zoo's latent is [B, C, T, H/32, W/32]; the pipeline packs it to
// [B, L, 128] (_pack_latents, patch 1) and unpacks the output; the graph does
// the same with a transpose, so that the token dim is one factor L.
//
// Parallel layouts (reference/models.md §4.5, §4.7): a Ulysses degree divides
// the 32 heads; diffusers' _cp_plan splits the video tokens and the text rows
// over ulysses x ring (DeployedSequenceSplit).
//
// Numerics: the DiT runs in bf16 (config.dtype); the f32 latent and sinusoid
// are cast once; the RoPE table is f32 (LTX computes and applies it in f32).
#include <optional>
#include <string>
#include <vector>

#include "frontend/zoo/blocks.h"
#include "frontend/zoo/family.h"

namespace az::zoo {
namespace {

struct LtxShape {
  int64_t head_dim, layers, text_tokens;
};

constexpr int64_t kHeads = 32;
constexpr int64_t kChannels = 128;  // in_channels = out_channels
constexpr int64_t kFreqDim = 256;   // Timesteps(num_channels=256)
constexpr int64_t kTextDim = 4096;  // caption_channels (T5-XXL)
constexpr double kNormEps = 1e-6;   // block RMSNorms, norm_out
constexpr double kQkNormEps = 1e-5;

using blocks::PatchGrid;

class ForwardBuilder : private blocks::ForwardState {
 public:
  ForwardBuilder(GraphBuilder& b, const LtxShape& s, DType dtype, int64_t batch, PatchGrid grid, int64_t depth)
      : ForwardState(b, dtype, batch, grid, depth), s_(s), d_(kHeads * s.head_dim) {}

  ValueId Build(ValueId latent, ValueId timestep, ValueId text);

 private:
  ValueId PatchEmbed(ValueId latent);
  // AdaLayerNormSingle: sets emb_ [B, d] and temb_ [B, 6, d].
  void TimeEmbedding(ValueId timestep);
  ValueId Block(int64_t index, ValueId x, ValueId text);
  // LTXAttention: to_q/k/v, RMSNorm across the heads on q and k, to_out.0.
  // Self-attention (no context) rotates q and k; cross-attention reads the text.
  ValueId Attention(const std::string& module, ValueId x, std::optional<ValueId> context);
  ValueId Head(ValueId x);

  const LtxShape& s_;
  int64_t d_;
  ValueId emb_ = -1;
  ValueId temb_ = -1;
};

ValueId ForwardBuilder::Build(ValueId latent, ValueId timestep, ValueId text) {
  one_ = b_.Constant("scalar.one", dtype_, {});
  rope_table_ = b_.Constant("rope.table", DType::kF32, {video_, s_.head_dim});
  ValueId x = PatchEmbed(latent);
  TimeEmbedding(timestep);
  ValueId context;
  {
    GraphBuilder::Scope scope(b_, "caption_projection");
    context = blocks::Mlp(b_, {"linear_1", "act_1", "linear_2"}, text, d_, d_, OpKind::kGeluTanh);
  }
  for (int64_t i = 0; i < depth_; ++i) x = Block(i, x, context);
  return Head(x);
}

ValueId ForwardBuilder::PatchEmbed(ValueId latent) {
  // _pack_latents with patch 1: [B, C, T, H, W] -> [B, C, L] -> [B, L, C], then proj_in.
  ValueId x = b_.CastTo("cast_latent", latent, dtype_);
  ValueId flat = b_.Reshape("pack.flatten", x, {batch_, kChannels, video_});
  ValueId tokens = b_.Transpose("pack.to_tokens", flat, {0, 2, 1});
  return b_.Linear("proj_in", tokens, d_);
}

void ForwardBuilder::TimeEmbedding(ValueId timestep) {
  GraphBuilder::Scope scope(b_, "time_embed");
  // Timesteps(256, flip_sin_to_cos, shift 0) of the scheduler's t in [0, 1000], f32.
  const std::string embedder = "emb.timestep_embedder.";
  emb_ = blocks::TimestepEmbedder(b_, "emb.time_proj", embedder + "cast",
                                  {embedder + "linear_1", embedder + "act", embedder + "linear_2"}, timestep, kFreqDim,
                                  d_, dtype_);
  temb_ = blocks::AdaLnRows(b_, {"silu", "linear", "chunks"}, emb_, 6, d_);
}

ValueId ForwardBuilder::Block(int64_t index, ValueId x, ValueId text) {
  GraphBuilder::Scope scope(b_, "transformer_blocks." + std::to_string(index));
  // Block norms: RMSNorm without weight; FFN 4d with biases.
  const blocks::AdaLnSingleBlockSpec spec{{/*rms=*/true, /*affine=*/false, kNormEps}, 4 * d_, /*ffn_bias=*/true};
  return blocks::AdaLnSingleBlock(
      b_, spec, x, temb_, one_, dtype_, [&](ValueId h) { return Attention("attn1", h, std::nullopt); },
      [&](ValueId h) { return Attention("attn2", h, text); });
}

ValueId ForwardBuilder::Attention(const std::string& module, ValueId x, std::optional<ValueId> context) {
  GraphBuilder::Scope scope(b_, module);
  const ValueId kv_in = context.value_or(x);
  const int64_t kv_rows = b_.type(kv_in).shape[1];
  ValueId q = b_.Linear("to_q", x, d_);
  ValueId k = b_.Linear("to_k", kv_in, d_);
  ValueId v = b_.Linear("to_v", kv_in, d_);
  q = b_.RmsNorm("norm_q", q, /*affine=*/true, kQkNormEps);
  k = b_.RmsNorm("norm_k", k, /*affine=*/true, kQkNormEps);
  q = b_.Reshape("q_heads", q, {batch_, video_, kHeads, s_.head_dim});
  k = b_.Reshape("k_heads", k, {batch_, kv_rows, kHeads, s_.head_dim});
  v = b_.Reshape("v_heads", v, {batch_, kv_rows, kHeads, s_.head_dim});
  if (!context) {
    // The three axes' frequencies interleave along the channels: no sections.
    q = b_.AddOp1(OpKind::kRope, "rope_q", {q, rope_table_});
    k = b_.AddOp1(OpKind::kRope, "rope_k", {k, rope_table_});
  }
  ValueId attn = b_.Attention("attention", q, k, v, context ? "cross" : "self");
  ValueId merged = b_.Reshape("merge_heads", attn, {batch_, video_, d_});
  return b_.Linear("to_out.0", merged, d_);
}

ValueId ForwardBuilder::Head(ValueId x) {
  ValueId h = blocks::AdaLnSingleOut(b_, x, emb_, one_, dtype_, kNormEps);
  ValueId out = b_.Linear("proj_out", h, kChannels);
  // _unpack_latents: [B, L, 128] -> [B, T, H, W, 128] -> [B, 128, T, H, W].
  ValueId latent = blocks::UnpackTokens(b_, "unpack", out, grid_, kChannels);
  return b_.CastTo("to_f32", latent, DType::kF32);
}

class LtxVideo final : public DitFamily {
 public:
  explicit LtxVideo(LtxShape shape) : s_(shape) {}

  // The common checks passed: sizes multiples of 16, frames 8n+1 (VaeTime).
  // LTXPipeline.check_inputs asks for multiples of 32 (VAE stride 32 x patch 1).
  Status Validate(const ModelConfig& config) const override {
    if (config.width % 32 != 0 || config.height % 32 != 0) {
      return InvalidArgument(config.model +
                             ": width and height must be multiples of 32 (VAE stride 32 x patch 1), got " +
                             std::to_string(config.width) + "x" + std::to_string(config.height));
    }
    return Status::Ok();
  }

  // diffusers' _cp_plan splits the video tokens and the T5 rows (with their
  // mask) over the ulysses x ring ranks, in equal chunks.
  Status DeployedSequenceSplit(const ModelConfig& config, int64_t sp) const override {
    const int64_t tokens = LatentPatches(config).tokens();
    if (tokens % sp == 0 && s_.text_tokens % sp == 0) return Status::Ok();
    return InvalidArgument("diffusers' LTX-Video context parallelism splits the " + std::to_string(tokens) +
                           " video tokens and the " + std::to_string(s_.text_tokens) +
                           " text rows over ulysses x ring = " + std::to_string(sp) +
                           " ranks, and both must divide by it");
  }

  TokenCounts Tokens(const ModelConfig& config) const override {
    return {LatentPatches(config).tokens(), s_.text_tokens};
  }

  int64_t latent_channels() const override { return kChannels; }
  int64_t depth_units() const override { return s_.layers; }
  int64_t vae_stride() const override { return 32; }
  // Causal VAE of temporal stride 8: (frames - 1) / 8 + 1 latent frames.
  VaeTime vae_time() const override { return {8, 1, true}; }
  int64_t patch() const override { return 1; }


 protected:
  // encoder_hidden_states: the T5-XXL output [B, T, 4096]; CFG concatenates
  // [negative; positive] along the batch.
  std::vector<TextInput> text_inputs() const override { return {{"encoder_hidden_states", s_.text_tokens, kTextDim}}; }

  ValueId BuildForward(GraphBuilder& b, const ModelConfig& config, int64_t batch, ValueId x, ValueId t,
                       const std::vector<ValueId>& conditioning) const override {
    ForwardBuilder forward(b, s_, config.dtype, batch, LatentPatches(config), Depth(config));
    return forward.Build(x, t, conditioning[0]);
  }

 private:
  LtxShape s_;
};

}  // namespace

const DitFamily& LtxVideo2B() {
  static const LtxVideo kFamily({64, 28, 128});
  return kFamily;
}
const DitFamily& LtxVideo13B() {
  static const LtxVideo kFamily({128, 48, 256});
  return kFamily;
}

}  // namespace az::zoo
