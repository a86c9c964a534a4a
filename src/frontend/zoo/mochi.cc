// Mochi 1 (genmo/mochi-1-preview, 10B): one DiT forward as an exact PIR graph,
// op by op as diffusers' MochiTransformer3DModel runs it
// (models/transformers/transformer_mochi.py; MochiAttention and
// MochiAttnProcessor2_0 in attention_processor.py; embeddings.py
// MochiCombinedTimestepCaptionEmbedding and MochiAttentionPool;
// normalization.py MochiRMSNorm and AdaLayerNormContinuous;
// reference/models.md §3). The genmo original
// (xdit-project/mochi-xdit: src/genmo/mochi_preview/dit/joint_model/
// asymm_models_joint.py, AsymmDiTJoint) has the same tensors under other names.
//
// Configuration (the diffusers defaults, which the checkpoint's config
// keeps): 48 blocks, 24 heads x 128 (visual width d = 3072), text stream
// width 1536 (pooled_projection_dim), 12 latent channels, patch 2x2,
// T5-XXL text (4096-d, 256 tokens), time_embed_dim 256, SwiGLU feed-forwards
// of inner width (4 * width * 2) / 3: 8192 (visual) and 4096 (text), no
// biases in q/k/v or the feed-forwards, block norms eps 1e-6, qk norms 1e-5.
//
// Asymmetric attention: the visual stream [B, L, 3072] and the text stream
// [B, 256, 1536] keep their own widths; both project to 24 heads of 128
// (to_q/k/v from 3072, add_q/k/v_proj from 1536), attend jointly over
// [visual; text] (visual first), and project back to their own widths
// (to_out.0, to_add_out). The last block (context_pre_only) does not update
// the text: its text modulation is one Linear(3072, 1536) scale
// (MochiLayerNormContinuous), and it has no to_add_out and no ff_context;
// the text q/k/v are still computed (the visual rows attend to them).
//
// Shape of the forward, B = batch, L = video tokens, T = 256, N = L + T:
//   temb  = timestep_embedder(sinusoidal(t)) + pooler(text)       [B, 3072]
//   y     = caption_proj(text)                                     [B, T, 1536]
//   x     = patch_embed(latent): Conv2d 12 -> 3072 per frame       [B, L, 3072]
//   rope  = cos, sin of positions [L, 3] x pos_frequencies [3, 24, 64] (a parameter)
//   per block:
//     x', y' = RMSNorm(x) (1 + scale_msa), RMSNorm(y) (1 + enc_scale_msa)
//     attention over [x'; y'] (RoPE on the visual q/k only)
//     x += RMSNorm(to_out(attn_x)) tanh(gate_msa)       (sandwich norms)
//     x += RMSNorm(ff(RMSNorm(x) (1 + scale_mlp))) tanh(gate_mlp)
//     y likewise with the enc_ modulation, to_add_out and ff_context
//   out   = proj_out(norm_out(x, temb)), unpatchified, f32         [B, 12, T_lat, H/8, W/8]
//
// Frames: the VAE compresses time 6x causally, frames = 6n + 1 -> n + 1 latent
// frames (163 -> 28; pipeline_mochi.py: vae_temporal_scale_factor 6).
//
// Assumptions, as for HunyuanVideo: all 256 text tokens are valid (the
// pipeline drops padded prompt rows from the joint attention and the pooler,
// which depends on the prompt; every linear runs on all 256 rows either way);
// the pooler's masked mean is then the plain mean. The pooler's attention (one
// query over 257 keys, 8 heads of 512) is written as two einsums and a
// softmax: a fused attention op would make its 8 heads look like a bound on
// the 24-head Ulysses split of the DiT (search/combos.h AttentionHeads).
//
// Parallel layouts (reference/models.md §4.6, §4.7): a Ulysses degree must
// divide the 24 heads; mochi-xdit runs Ulysses, ring and CFG parallel (U3xR2,
// U3+CFG) and asserts that the visual tokens divide by ulysses x ring
// (DeployedSequenceSplit). Megatron TP would split the SwiGLU projections'
// [hidden; gate] output (ff.net.0.proj) as one column: each half's shards sit
// on different ranks, so the compiler regathers it; no deployment runs TP.
//
// Numerics: the pipeline runs the transformer in bf16 (config.dtype); the
// RoPE angles are computed in f32 from the bf16 pos_frequencies, and the
// rotation runs in f32 (apply_rotary_emb). Norm internals stay in the op.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "frontend/zoo/blocks.h"
#include "frontend/zoo/family.h"

namespace az::zoo {
namespace {

constexpr int64_t kHidden = 3072;      // visual stream: 24 heads x 128
constexpr int64_t kTextHidden = 1536;  // text stream (pooled_projection_dim)
constexpr int64_t kHeads = 24;
constexpr int64_t kHeadDim = 128;
constexpr int64_t kFfn = (4 * kHidden * 2) / 3;          // 8192
constexpr int64_t kTextFfn = (4 * kTextHidden * 2) / 3;  // 4096
constexpr int64_t kLayers = 48;
constexpr int64_t kChannels = 12;  // in_channels = out_channels
constexpr int64_t kPatch = 2;
constexpr int64_t kTextTokens = 256;
constexpr int64_t kTextDim = 4096;  // T5-XXL
constexpr int64_t kTimeDim = 256;   // time_embed_dim
constexpr int64_t kPoolHeads = 8;   // MochiAttentionPool
constexpr double kNormEps = 1e-6;
constexpr double kQkNormEps = 1e-5;

static_assert(kHeads * kHeadDim == kHidden);
static_assert(kFfn == 8192 && kTextFfn == 4096);

using blocks::PatchGrid;

class ForwardBuilder : private blocks::ForwardState {
 public:
  using ForwardState::ForwardState;

  ValueId Build(ValueId latent, ValueId timestep, ValueId text);

 private:
  int64_t joint() const { return video_ + kTextTokens; }
  // temb [B, 3072] and the caption projection y [B, T, 1536].
  std::pair<ValueId, ValueId> TimeEmbed(ValueId timestep, ValueId text);
  ValueId AttentionPool(ValueId text);
  ValueId PatchEmbed(ValueId latent);
  void RopeTables();
  // Returns {x, y}. The last block (context_pre_only) returns y unchanged.
  std::pair<ValueId, ValueId> Block(int64_t index, ValueId x, ValueId y, bool last);
  // Linear(3072, chunks * width)(SiLU(temb)) as [B, 1, width] chunks.
  std::vector<ValueId> Modulation(const std::string& module, int64_t width, const std::vector<std::string>& names);
  // RMSNorm(x) without weight, times (1 + scale): MochiModulatedRMSNorm.
  ValueId ScaledNorm(const std::string& name, ValueId x, ValueId scale);
  // residual + RMSNorm(x) * tanh(gate): the sandwich norm of the residuals.
  ValueId GatedResidual(const std::string& name, ValueId residual, ValueId x, ValueId gate);
  // FeedForward(activation "swiglu", bias False): net.0.proj -> chunk -> x * silu(gate) -> net.2.
  ValueId SwiGlu(const std::string& module, ValueId x, int64_t inner);
  // apply_rotary_emb: interleaved pairs (x[0::2], x[1::2]) rotated by the
  // per-head angles, in f32, stacked back.
  ValueId Rope(const std::string& name, ValueId x);
  ValueId Head(ValueId x);

  ValueId temb_ = -1;
  ValueId rope_cos_ = -1, rope_sin_ = -1;
};

ValueId ForwardBuilder::Build(ValueId latent, ValueId timestep, ValueId text) {
  one_ = b_.Constant("scalar.one", dtype_, {});
  auto [temb, y] = TimeEmbed(timestep, text);
  temb_ = temb;
  ValueId x = PatchEmbed(latent);
  RopeTables();
  for (int64_t i = 0; i < depth_; ++i) std::tie(x, y) = Block(i, x, y, /*last=*/i == kLayers - 1);
  return Head(x);
}

std::pair<ValueId, ValueId> ForwardBuilder::TimeEmbed(ValueId timestep, ValueId text) {
  GraphBuilder::Scope scope(b_, "time_embed");
  // Timesteps(256, flip_sin_to_cos): f32, no parameters; cast to the model dtype.
  ValueId time = blocks::TimestepEmbedder(
      b_, "time_proj", "timestep_embedder.cast",
      {"timestep_embedder.linear_1", "timestep_embedder.act", "timestep_embedder.linear_2"}, timestep, kTimeDim,
      kHidden, dtype_);
  ValueId pooled = AttentionPool(text);
  ValueId caption = b_.Linear("caption_proj", text, kTextHidden);
  return {b_.Binary(OpKind::kAdd, "conditioning", time, pooled), caption};
}

ValueId ForwardBuilder::AttentionPool(ValueId text) {
  GraphBuilder::Scope scope(b_, "pooler");
  constexpr int64_t kPoolHeadDim = kTextDim / kPoolHeads;  // 512
  constexpr int64_t kKeys = kTextTokens + 1;               // the mean token, then the text
  Attributes mean_attrs;
  mean_attrs.Set("dims", std::vector<int64_t>{1});
  mean_attrs.Set("kind", std::string("mean"));
  ValueId mean = b_.AddOp1(OpKind::kReduce, "pool_tokens", {text}, std::move(mean_attrs));  // [B, 4096]
  ValueId mean_row = b_.Reshape("pool_tokens.keepdim", mean, {batch_, 1, kTextDim});
  ValueId rows = b_.Concat("concat_pool_text", {mean_row, text}, 1);  // [B, 257, 4096]
  // to_kv: "B L (2 H D)", 2 major.
  ValueId kv = b_.Reshape("kv.heads", b_.Linear("to_kv", rows, 2 * kTextDim),
                          {batch_, kKeys, 2, kPoolHeads, kPoolHeadDim});
  ValueId k = b_.Reshape("k", b_.SliceAxis("k.slice", kv, 2, 0, 1), {batch_, kKeys, kPoolHeads, kPoolHeadDim});
  ValueId v = b_.Reshape("v", b_.SliceAxis("v.slice", kv, 2, 1, 2), {batch_, kKeys, kPoolHeads, kPoolHeadDim});
  ValueId q = b_.Reshape("q.heads", b_.Linear("to_q", mean, kTextDim), {batch_, kPoolHeads, kPoolHeadDim});
  // scaled_dot_product_attention with one query: softmax(q k^T / sqrt(512)) v.
  ValueId scores = b_.Einsum("scores", "bhd,bkhd->bhk", q, k);
  ValueId scale = b_.Constant("softmax_scale", dtype_, {});
  scores = b_.Binary(OpKind::kMul, "scores.scale", scores, scale);
  Attributes softmax_attrs;
  softmax_attrs.Set("axis", int64_t{-1});
  ValueId probs = b_.AddOp1(OpKind::kSoftmax, "softmax", {scores}, std::move(softmax_attrs));
  ValueId pooled = b_.Einsum("pool", "bhk,bkhd->bhd", probs, v);
  return b_.Linear("to_out", b_.Reshape("merge_heads", pooled, {batch_, kTextDim}), kHidden);
}

ValueId ForwardBuilder::PatchEmbed(ValueId latent) {
  GraphBuilder::Scope scope(b_, "patch_embed");
  // PatchEmbed: Conv2d(12, 3072, 2, stride 2, bias) on every frame == Conv3d
  // kernel (1, 2, 2) on the zoo's [B, C, T, H, W]; tokens in (frame, row, col) order.
  return blocks::ConvPatchEmbed(b_, latent, dtype_, kHidden, {1, kPatch, kPatch});
}

void ForwardBuilder::RopeTables() {
  // MochiRoPE: the (frame, centered row, centered column) of every token, a
  // buffer, times the learned pos_frequencies (the model's own tensor, no
  // module scope): angles [L, 24, 64] in f32.
  ValueId frequencies = b_.Param("pos_frequencies", dtype_, {3, kHeads, kHeadDim / 2});
  GraphBuilder::Scope scope(b_, "rope");
  ValueId positions = b_.Constant("positions", DType::kF32, {video_, 3});
  ValueId angles =
      b_.Einsum("freqs", "lp,phf->lhf", positions, b_.CastTo("pos_frequencies.f32", frequencies, DType::kF32));
  rope_cos_ = b_.Unary(OpKind::kCos, "cos", angles);
  rope_sin_ = b_.Unary(OpKind::kSin, "sin", angles);
}

std::pair<ValueId, ValueId> ForwardBuilder::Block(int64_t index, ValueId x, ValueId y, bool last) {
  GraphBuilder::Scope scope(b_, "transformer_blocks." + std::to_string(index));
  // MochiRMSNormZero: scale_msa, gate_msa, scale_mlp, gate_mlp.
  std::vector<ValueId> mod = Modulation("norm1", kHidden, {"scale_msa", "gate_msa", "scale_mlp", "gate_mlp"});
  ValueId x_in = ScaledNorm("norm1.norm", x, mod[0]);
  std::vector<ValueId> enc;
  ValueId y_in;
  if (!last) {
    enc = Modulation("norm1_context", kTextHidden, {"enc_scale_msa", "enc_gate_msa", "enc_scale_mlp", "enc_gate_mlp"});
    y_in = ScaledNorm("norm1_context.norm", y, enc[0]);
  } else {
    // MochiLayerNormContinuous: one Linear(3072, 1536) scale.
    ValueId scale;
    {
      GraphBuilder::Scope n_scope(b_, "norm1_context");
      ValueId act = b_.Unary(OpKind::kSilu, "silu", temb_);
      scale = b_.Reshape("scale", b_.Linear("linear_1", act, kTextHidden), {batch_, 1, kTextHidden});
    }
    y_in = ScaledNorm("norm1_context.norm", y, scale);
  }

  ValueId attn_x, attn_y = -1;
  {
    GraphBuilder::Scope attn_scope(b_, "attn1");
    ValueId q = blocks::ProjectHeads(b_, "to_q", x_in, kHeads, kHeadDim, /*bias=*/false);
    ValueId k = blocks::ProjectHeads(b_, "to_k", x_in, kHeads, kHeadDim, /*bias=*/false);
    ValueId v = blocks::ProjectHeads(b_, "to_v", x_in, kHeads, kHeadDim, /*bias=*/false);
    q = b_.RmsNorm("norm_q", q, /*affine=*/true, kQkNormEps);
    k = b_.RmsNorm("norm_k", k, /*affine=*/true, kQkNormEps);
    // add_q_proj exists in every block (context_pre_only is never None).
    ValueId eq = blocks::ProjectHeads(b_, "add_q_proj", y_in, kHeads, kHeadDim, /*bias=*/false);
    ValueId ek = blocks::ProjectHeads(b_, "add_k_proj", y_in, kHeads, kHeadDim, /*bias=*/false);
    ValueId ev = blocks::ProjectHeads(b_, "add_v_proj", y_in, kHeads, kHeadDim, /*bias=*/false);
    eq = b_.RmsNorm("norm_added_q", eq, /*affine=*/true, kQkNormEps);
    ek = b_.RmsNorm("norm_added_k", ek, /*affine=*/true, kQkNormEps);
    q = Rope("q_rope", q);
    k = Rope("k_rope", k);
    ValueId joint_q = b_.Concat("concat_q", {q, eq}, 1);
    ValueId joint_k = b_.Concat("concat_k", {k, ek}, 1);
    ValueId joint_v = b_.Concat("concat_v", {v, ev}, 1);
    ValueId attn = b_.Attention("attention", joint_q, joint_k, joint_v, "joint", kTextTokens);
    ValueId merged = b_.Reshape("merge_heads", attn, {batch_, joint(), kHidden});
    attn_x = b_.Linear("to_out.0", b_.SliceAxis("split_x", merged, 1, 0, video_), kHidden);
    if (!last) attn_y = b_.Linear("to_add_out", b_.SliceAxis("split_context", merged, 1, video_, joint()), kTextHidden);
  }

  x = GatedResidual("norm2", x, attn_x, mod[1]);
  ValueId ff = SwiGlu("ff", ScaledNorm("norm3", x, mod[2]), kFfn);
  x = GatedResidual("norm4", x, ff, mod[3]);
  if (last) return {x, y};
  y = GatedResidual("norm2_context", y, attn_y, enc[1]);
  ValueId ff_y = SwiGlu("ff_context", ScaledNorm("norm3_context", y, enc[2]), kTextFfn);
  y = GatedResidual("norm4_context", y, ff_y, enc[3]);
  return {x, y};
}

std::vector<ValueId> ForwardBuilder::Modulation(const std::string& module, int64_t width,
                                                const std::vector<std::string>& names) {
  GraphBuilder::Scope scope(b_, module);
  return blocks::AdaLnModulation(b_, {"silu", "linear", "chunks"}, temb_, width, names);
}

ValueId ForwardBuilder::ScaledNorm(const std::string& name, ValueId x, ValueId scale) {
  ValueId norm = b_.RmsNorm(name, x, /*affine=*/false, kNormEps);
  ValueId factor = b_.Binary(OpKind::kAdd, name + ".one_plus_scale", scale, one_);
  return b_.Binary(OpKind::kMul, name + ".scale", norm, factor);
}

ValueId ForwardBuilder::GatedResidual(const std::string& name, ValueId residual, ValueId x, ValueId gate) {
  ValueId norm = b_.RmsNorm(name, x, /*affine=*/false, kNormEps);
  ValueId gated = b_.Binary(OpKind::kMul, name + ".gate", norm, b_.Unary(OpKind::kTanh, name + ".tanh", gate));
  return b_.Binary(OpKind::kAdd, name + ".residual", residual, gated);
}

ValueId ForwardBuilder::SwiGlu(const std::string& module, ValueId x, int64_t inner) {
  GraphBuilder::Scope scope(b_, module);
  const int64_t width = b_.type(x).shape.back();
  const int64_t last_axis = b_.type(x).rank() - 1;
  ValueId h = b_.Linear("net.0.proj", x, 2 * inner, /*bias=*/false);
  ValueId hidden = b_.SliceAxis("net.0.hidden", h, last_axis, 0, inner);
  ValueId gate = b_.SliceAxis("net.0.gate", h, last_axis, inner, 2 * inner);
  ValueId act = b_.Binary(OpKind::kMul, "net.0.act", hidden, b_.Unary(OpKind::kSilu, "net.0.silu", gate));
  return b_.Linear("net.2", act, width, /*bias=*/false);
}

ValueId ForwardBuilder::Rope(const std::string& name, ValueId x) {
  constexpr int64_t kPairs = kHeadDim / 2;
  ValueId pairs = b_.Reshape(name + ".pairs", x, {batch_, video_, kHeads, kPairs, 2});
  auto part = [&](const char* leaf, int64_t index) {
    ValueId slice = b_.SliceAxis(name + "." + leaf, pairs, 4, index, index + 1);
    ValueId flat = b_.Reshape(name + "." + leaf + ".squeeze", slice, {batch_, video_, kHeads, kPairs});
    return b_.CastTo(name + "." + leaf + ".f32", flat, DType::kF32);
  };
  ValueId even = part("even", 0);
  ValueId odd = part("odd", 1);
  auto mul = [&](const std::string& leaf, ValueId a, ValueId table) {
    return b_.Binary(OpKind::kMul, name + "." + leaf, a, table);
  };
  // Last argument first, as GCC built the nested call (graph_builder.h, Op order).
  ValueId odd_sin = mul("odd_sin", odd, rope_sin_);
  ValueId cos_part = b_.Binary(OpKind::kSub, name + ".cos_part", mul("even_cos", even, rope_cos_), odd_sin);
  ValueId odd_cos = mul("odd_cos", odd, rope_cos_);
  ValueId sin_part = b_.Binary(OpKind::kAdd, name + ".sin_part", mul("even_sin", even, rope_sin_), odd_cos);
  auto back = [&](const std::string& leaf, ValueId v) {
    return b_.Reshape(name + "." + leaf + ".unsqueeze", b_.CastTo(name + "." + leaf + ".cast", v, dtype_),
                      {batch_, video_, kHeads, kPairs, 1});
  };
  ValueId stacked = b_.Concat(name + ".stack", {back("cos_part", cos_part), back("sin_part", sin_part)}, 4);
  return b_.Reshape(name + ".flatten", stacked, {batch_, video_, kHeads, kHeadDim});
}

ValueId ForwardBuilder::Head(ValueId x) {
  ValueId h;
  {
    // AdaLayerNormContinuous(3072, 3072, no affine, eps 1e-6): scale, then shift.
    GraphBuilder::Scope scope(b_, "norm_out");
    std::vector<ValueId> mod =
        blocks::AdaLnModulation(b_, {"silu", "linear", "chunks"}, temb_, kHidden, {"scale", "shift"});
    h = b_.LayerNorm("norm", x, /*affine=*/false, kNormEps);
    ValueId factor = b_.Binary(OpKind::kAdd, "one_plus_scale", mod[0], one_);
    h = b_.Binary(OpKind::kAdd, "shift_add", b_.Binary(OpKind::kMul, "scale_mul", h, factor), mod[1]);
  }
  ValueId patches = b_.Linear("proj_out", h, kPatch * kPatch * kChannels);  // 48
  // [B, L, (p, p, C)] -> [B, C, T, H, W].
  ValueId latent =
      blocks::UnpatchifySpatial(b_, "unpatchify", patches, grid_, kChannels, kPatch, /*channels_last=*/true);
  return b_.CastTo("to_f32", latent, DType::kF32);
}

class Mochi final : public DitFamily {
 public:
  // The common checks (sizes multiples of 16, frames 6n+1 by vae_time) are
  // all the model needs.
  Status Validate(const ModelConfig&) const override { return Status::Ok(); }

  // mochi-xdit (AsymmDiTJoint.forward) narrows the visual tokens to N / cp
  // per rank and asserts N % cp == 0, cp = ulysses x ring. 848x480, 163
  // frames: 44,520 = 2^3 * 3 * 5 * 7 * 53 tokens, so 2-8, 10, 12 (not 9, 16).
  Status DeployedSequenceSplit(const ModelConfig& config, int64_t sp) const override {
    const int64_t tokens = LatentPatches(config).tokens();
    if (tokens % sp == 0) return Status::Ok();
    return InvalidArgument("mochi-xdit splits the " + std::to_string(tokens) +
                           " visual tokens evenly over ulysses x ring = " + std::to_string(sp) +
                           " ranks and asserts that they divide");
  }

  TokenCounts Tokens(const ModelConfig& config) const override { return {LatentPatches(config).tokens(), kTextTokens}; }

  int64_t latent_channels() const override { return kChannels; }
  int64_t depth_units() const override { return kLayers; }
  // AutoencoderKLMochi: 6x in time, causal (163 frames -> 28 latent frames).
  VaeTime vae_time() const override { return {6, 1, true}; }

  int64_t patch() const override { return kPatch; }

 protected:
  // encoder_hidden_states: the T5-XXL output, 256 rows [B, 256, 4096].
  std::vector<TextInput> text_inputs() const override { return {{"encoder_hidden_states", kTextTokens, kTextDim}}; }

  ValueId BuildForward(GraphBuilder& b, const ModelConfig& config, int64_t batch, ValueId x, ValueId t,
                       const std::vector<ValueId>& conditioning) const override {
    ForwardBuilder forward(b, config.dtype, batch, LatentPatches(config), Depth(config));
    return forward.Build(x, t, conditioning[0]);
  }
};

}  // namespace

const DitFamily& Mochi1() {
  static const Mochi kFamily;
  return kFamily;
}

}  // namespace az::zoo
