// Wan 2.1 DiTs (T2V-1.3B, T2V-14B, I2V-14B), built as wan/modules/model.py runs
// them; reference/models.md §1.2 lists the ops in order.
//
// Numerics follow the official code: weights are stored in the model dtype
// (bf16); the time embedding and all modulation / gating math run in f32, so the
// residual stream is f32; linears and attention run in the model dtype under
// autocast (the casts are explicit `convert` ops here).
#include "frontend/zoo/family.h"

namespace az::zoo {

using pir::DType;
using pir::GraphBuilder;
using pir::OpKind;
using pir::Shape;
using pir::ValueId;

namespace {

struct WanShape {
  int64_t dim, ffn_dim, num_layers, num_heads, in_channels;
  bool image_branch;  // I2V: CLIP image tokens and a second cross-attention
};

constexpr int64_t kHeadDim = 128;
constexpr int64_t kFreqDim = 256;
constexpr int64_t kTextDim = 4096;
constexpr int64_t kTextLen = 512;
constexpr int64_t kClipDim = 1280;
constexpr int64_t kClipTokens = 257;  // 16 x 16 patches + class token
constexpr int64_t kOutChannels = 16;
constexpr double kEps = 1e-6;

class Wan final : public DitFamily {
 public:
  explicit Wan(WanShape shape) : s_(shape) {}

  Status Validate(const ModelConfig&) const override { return Status::Ok(); }

  TokenCounts Tokens(const ModelConfig& c) const override {
    return {c.latent_frames() * (c.height / 16) * (c.width / 16), s_.image_branch ? kClipTokens + kTextLen : kTextLen};
  }

  int64_t latent_channels() const override { return kOutChannels; }
  int64_t depth_units() const override { return s_.num_layers; }

  std::vector<ValueId> DeclareConditioning(GraphBuilder& b, const ModelConfig& c, int64_t batch,
                                           const std::string& pass) const override {
    // The umT5 output, trimmed to the prompt and zero-padded to 512 rows.
    std::string suffix = pass == "uncond" ? ".uncond" : "";
    std::vector<ValueId> cond{b.Input("context" + suffix, c.dtype, {batch, kTextLen, kTextDim})};
    if (s_.image_branch) {
      // Both passes see the same image: CLIP features and the first-frame latent y.
      cond.push_back(b.Input("clip_fea", c.dtype, {batch, kClipTokens, kClipDim}));
      cond.push_back(b.Input("y", DType::kF32, {batch, s_.in_channels - kOutChannels, c.latent_frames(),
                                                c.height / 8, c.width / 8}));
    }
    return cond;
  }

  ValueId Forward(GraphBuilder& b, const ModelConfig& c, ValueId x, ValueId t,
                  const std::vector<ValueId>& cond) const override;

 private:
  ValueId Block(GraphBuilder& b, const ModelConfig& c, ValueId x, ValueId e0, ValueId context_text,
                std::optional<ValueId> context_image, ValueId rope_table) const;
  // Splits the heads: [B, L, d] -> [B, L, heads, 128].
  ValueId Heads(GraphBuilder& b, const std::string& name, ValueId x) const {
    const Shape& shape = b.type(x).shape;
    return b.Reshape(name, x, {shape[0], shape[1], s_.num_heads, kHeadDim});
  }
  WanShape s_;
};

// x * (1 + scale) + shift, written as x + x*scale + shift.
ValueId Modulate(GraphBuilder& b, const std::string& name, ValueId x, ValueId shift, ValueId scale) {
  GraphBuilder::Scope scope(b, name);
  ValueId scaled = b.Binary(OpKind::kMul, "scale", x, scale);
  ValueId sum = b.Binary(OpKind::kAdd, "add_scaled", x, scaled);
  return b.Binary(OpKind::kAdd, "shift", sum, shift);
}

// Chunk `index` of `count` along axis 1 of [B, count, d] -> [B, 1, d].
ValueId Chunk(GraphBuilder& b, const std::string& name, ValueId x, int64_t index) {
  return b.SliceAxis(name, x, 1, index, index + 1);
}

ValueId Wan::Forward(GraphBuilder& b, const ModelConfig& c, ValueId x, ValueId t,
                     const std::vector<ValueId>& cond) const {
  const int64_t batch = b.type(x).shape[0];
  const int64_t d = s_.dim;
  const int64_t grid_t = c.latent_frames(), grid_h = c.height / 16, grid_w = c.width / 16;
  const int64_t tokens = grid_t * grid_h * grid_w;
  const DType dt = c.dtype;
  b.set_param_dtype(dt);

  // 1. I2V: concatenate the 20-channel y onto the noise -> 36 channels.
  if (s_.image_branch) x = b.Concat("concat_y", {x, cond[2]}, 1);

  // 2. Patch embedding: Conv3d(C_in -> d), kernel = stride = (1,2,2); flatten to [B, L, d].
  ValueId tokens_x;
  {
    GraphBuilder::Scope scope(b, "patch_embedding");
    ValueId w = b.Param("weight", dt, {d, s_.in_channels, 1, 2, 2});
    ValueId bias = b.Param("bias", dt, {d});
    pir::Attributes attrs;
    attrs.Set("stride", std::vector<int64_t>{1, 2, 2});
    ValueId conv = b.AddOp1(OpKind::kConv3d, "", {b.CastTo("cast_in", x, dt), w, bias}, attrs);
    ValueId flat = b.Reshape("flatten", conv, {batch, d, tokens});
    tokens_x = b.Transpose("to_tokens", flat, {0, 2, 1});
  }
  // The residual stream is f32 (modulation and gating are f32).
  ValueId h = b.CastTo("residual_f32", tokens_x, DType::kF32);

  // 3. Time: e = MLP(sinusoidal(t)) in f32; e0 = Linear(d, 6d)(SiLU(e)) -> [B, 6, d].
  ValueId e, e0;
  {
    GraphBuilder::Scope scope(b, "time_embedding");
    ValueId sin = b.Custom("sinusoidal", "sinusoidal_embedding", {t}, {DType::kF32, {batch, kFreqDim}});
    ValueId h0 = b.Linear("0", sin, d);
    e = b.Linear("2", b.Unary(OpKind::kSilu, "1", h0), d);
  }
  {
    GraphBuilder::Scope scope(b, "time_projection");
    ValueId proj = b.Linear("1", b.Unary(OpKind::kSilu, "0", e), 6 * d);
    e0 = b.Reshape("unflatten", proj, {batch, 6, d});
  }

  // 4. Text: Linear(4096, d) -> GELU(tanh) -> Linear(d, d) on all 512 rows.
  ValueId context_text;
  {
    GraphBuilder::Scope scope(b, "text_embedding");
    ValueId h0 = b.Linear("0", cond[0], d);
    context_text = b.Linear("2", b.Unary(OpKind::kGeluTanh, "1", h0), d);
  }
  // 5. Image (I2V): LayerNorm -> Linear -> GELU -> Linear -> LayerNorm on 257 CLIP tokens.
  std::optional<ValueId> context_image;
  if (s_.image_branch) {
    GraphBuilder::Scope scope(b, "img_emb.proj");
    ValueId n0 = b.LayerNorm("0", cond[1], /*affine=*/true, 1e-5);
    ValueId h1 = b.Linear("1", n0, kClipDim);
    ValueId h3 = b.Linear("3", b.Unary(OpKind::kGelu, "2", h1), d);
    context_image = b.LayerNorm("4", h3, /*affine=*/true, 1e-5);
  }

  // 3D RoPE table over the patch grid (a buffer): 22:21:21 complex pairs -> 44/42/42 dims.
  ValueId rope_table = b.Constant("rope.table", DType::kF32, {tokens, kHeadDim});

  const int64_t layers = c.depth_units > 0 ? c.depth_units : s_.num_layers;
  for (int64_t i = 0; i < layers; ++i) {
    GraphBuilder::Scope scope(b, "blocks." + std::to_string(i));
    h = Block(b, c, h, e0, context_text, context_image, rope_table);
  }

  // Head: (shift, scale) = modulation [1,2,d] + e; LayerNorm -> modulate -> Linear(d, 64).
  ValueId out;
  {
    GraphBuilder::Scope scope(b, "head");
    ValueId table = b.Param("modulation", dt, {1, 2, d});
    ValueId e_row = b.Reshape("e_row", e, {batch, 1, d});
    ValueId mod = b.Binary(OpKind::kAdd, "modulation_add", table, e_row);
    ValueId shift = Chunk(b, "shift", mod, 0);
    ValueId scale = Chunk(b, "scale", mod, 1);
    ValueId n = b.LayerNorm("norm", h, /*affine=*/false, kEps);
    ValueId m = Modulate(b, "modulate", n, shift, scale);
    ValueId y = b.Linear("head", b.CastTo("cast", m, dt), 1 * 2 * 2 * kOutChannels);
    // Unpatchify: [B, L, (1,2,2,16)] -> [B, 16, T, 2H', 2W'].
    ValueId grid = b.Reshape("unpatchify.split", y, {batch, grid_t, grid_h, grid_w, 1, 2, 2, kOutChannels});
    ValueId moved = b.Transpose("unpatchify.permute", grid, {0, 7, 1, 4, 2, 5, 3, 6});
    ValueId video = b.Reshape("unpatchify.merge", moved, {batch, kOutChannels, grid_t, grid_h * 2, grid_w * 2});
    out = b.CastTo("velocity_f32", video, DType::kF32);
  }
  return out;
}

ValueId Wan::Block(GraphBuilder& b, const ModelConfig& c, ValueId x, ValueId e0, ValueId context_text,
                   std::optional<ValueId> context_image, ValueId rope_table) const {
  const DType dt = c.dtype;
  const int64_t d = s_.dim;
  const Shape x_shape = b.type(x).shape;  // [B, L, d]

  // 1. Modulation: the block's [1, 6, d] table + e0, split into six [B, 1, d].
  ValueId mod = b.Binary(OpKind::kAdd, "modulation_add", b.Param("modulation", dt, {1, 6, d}), e0);
  const char* names[] = {"shift_sa", "scale_sa", "gate_sa", "shift_ffn", "scale_ffn", "gate_ffn"};
  ValueId chunk[6];
  for (int k = 0; k < 6; ++k) chunk[k] = Chunk(b, names[k], mod, k);

  // 2. Self-attention with 3D RoPE; full-d RMSNorm on q and k before the head split.
  {
    GraphBuilder::Scope scope(b, "self_attn");
    ValueId n = b.LayerNorm("norm1", x, /*affine=*/false, kEps);
    ValueId m = b.CastTo("cast", Modulate(b, "modulate", n, chunk[0], chunk[1]), dt);
    ValueId q = b.RmsNorm("norm_q", b.Linear("q", m, d), /*affine=*/true, kEps);
    ValueId k = b.RmsNorm("norm_k", b.Linear("k", m, d), /*affine=*/true, kEps);
    ValueId v = b.Linear("v", m, d);
    std::vector<int64_t> sections{44, 42, 42};
    ValueId qh = b.Rope("rope_q", Heads(b, "q_heads", q), rope_table, sections);
    ValueId kh = b.Rope("rope_k", Heads(b, "k_heads", k), rope_table, sections);
    ValueId vh = Heads(b, "v_heads", v);
    ValueId attn = b.Attention("attention", qh, kh, vh, "self");
    ValueId o = b.Linear("o", b.Reshape("merge_heads", attn, x_shape), d);
    ValueId gated = b.Binary(OpKind::kMul, "gate", o, chunk[2]);
    x = b.Binary(OpKind::kAdd, "residual", x, gated);
  }

  // 3. Cross-attention: affine LayerNorm, no modulation, no RoPE, residual without gate.
  {
    GraphBuilder::Scope scope(b, "cross_attn");
    ValueId n = b.CastTo("cast", b.LayerNorm("norm3", x, /*affine=*/true, kEps), dt);
    ValueId q = b.RmsNorm("norm_q", b.Linear("q", n, d), /*affine=*/true, kEps);
    ValueId k = b.RmsNorm("norm_k", b.Linear("k", context_text, d), /*affine=*/true, kEps);
    ValueId v = b.Linear("v", context_text, d);
    // One op per statement: argument evaluation order is unspecified, op order must not be.
    ValueId qh = Heads(b, "q_heads", q);
    ValueId kh = Heads(b, "k_heads", k);
    ValueId vh = Heads(b, "v_heads", v);
    ValueId attn = b.Attention("attention", qh, kh, vh, "cross");
    if (context_image) {
      // I2V: a second attention over the 257 image rows from the same q; outputs summed.
      ValueId k_img = b.RmsNorm("norm_k_img", b.Linear("k_img", *context_image, d), /*affine=*/true, kEps);
      ValueId v_img = b.Linear("v_img", *context_image, d);
      ValueId k_img_heads = Heads(b, "k_img_heads", k_img);
      ValueId v_img_heads = Heads(b, "v_img_heads", v_img);
      ValueId attn_img = b.Attention("attention_img", qh, k_img_heads, v_img_heads, "cross");
      attn = b.Binary(OpKind::kAdd, "sum_img", attn, attn_img);
    }
    ValueId o = b.Linear("o", b.Reshape("merge_heads", attn, x_shape), d);
    x = b.Binary(OpKind::kAdd, "residual", x, o);
  }

  // 4. FFN: LayerNorm (no affine) modulated; Linear(d, f) -> GELU(tanh) -> Linear(f, d); gated residual.
  {
    GraphBuilder::Scope scope(b, "ffn");
    ValueId n = b.LayerNorm("norm2", x, /*affine=*/false, kEps);
    ValueId m = b.CastTo("cast", Modulate(b, "modulate", n, chunk[3], chunk[4]), dt);
    ValueId h0 = b.Linear("0", m, s_.ffn_dim);
    ValueId h2 = b.Linear("2", b.Unary(OpKind::kGeluTanh, "1", h0), d);
    ValueId gated = b.Binary(OpKind::kMul, "gate", h2, chunk[5]);
    x = b.Binary(OpKind::kAdd, "residual", x, gated);
  }
  return x;
}

}  // namespace

const DitFamily& WanFamily(std::string_view model) {
  // [Wan2.1: wan/configs/wan_t2v_1_3B.py, wan_t2v_14B.py, wan_i2v_14B.py]
  static const Wan kT2V13B({1536, 8960, 30, 12, 16, false});
  static const Wan kT2V14B({5120, 13824, 40, 40, 16, false});
  static const Wan kI2V14B({5120, 13824, 40, 40, 36, true});
  if (model == "wan2.1-t2v-1.3b") return kT2V13B;
  if (model == "wan2.1-t2v-14b") return kT2V14B;
  AZ_CHECK_MSG(model == "wan2.1-i2v-14b", "WanFamily asked for '" + std::string(model) + "'");
  return kI2V14B;
}

}  // namespace az::zoo
