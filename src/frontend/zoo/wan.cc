// Wan DiTs, built as wan/modules/model.py runs them; reference/models.md §1.2
// lists the ops in order.
//   Wan 2.1  T2V-1.3B, T2V-14B, I2V-14B [Wan2.1 9737cba9].
//   Wan 2.2  T2V-A14B, I2V-A14B, TI2V-5B [Wan2.2 42bf4cfa: wan/configs/*.py,
//            wan/modules/model.py, wan/text2video.py, wan/textimage2video.py].
//
// Wan 2.2 keeps the Wan 2.1 block and differs in four ways:
//  * The timestep is per token: WanModel.forward expands t [B] to
//    [B, seq_len] before the sinusoid, so the time MLP and projection run on
//    L rows, e0 is [B, L, 6, d] (f32) and every modulation is per token
//    (TI2V sets t = 0 on the first latent frame's tokens; A14B repeats t).
//    Here the sinusoid of t [B] is broadcast to [B, L, 256]: the same values
//    for A14B, the same shapes and FLOPs for TI2V.
//  * A14B has two experts (high-noise, low-noise) of this structure, one per
//    step; the graph is one expert (zoo.h: ModelConfig::experts).
//  * I2V-A14B has no CLIP branch: only the 20-channel y is concatenated (36 in).
//  * TI2V-5B's VAE has stride (4, 16, 16) and 48 channels (C_in = C_out = 48).
//
// Numerics follow the official code: weights are stored in the model dtype
// (bf16); the time embedding and all modulation / gating math run in f32, so the
// residual stream is f32; linears and attention run in the model dtype under
// autocast (the casts are explicit `convert` ops here).
#include "frontend/zoo/blocks.h"
#include "frontend/zoo/family.h"

namespace az::zoo {

namespace {

struct WanShape {
  int64_t dim, ffn_dim, num_layers, num_heads, in_channels;
  bool image_branch;  // Wan 2.1 I2V: CLIP image tokens and a second cross-attention
  // Wan 2.2 fields; the Wan 2.1 values are the defaults.
  int64_t out_channels = 16;
  int64_t vae_stride = 8;
  bool per_token_time = false;
  int64_t experts = 1;
  double shift = 0, boundary = 0;  // A14B: sample_shift, boundary (wan/configs/wan_*_A14B.py)
};

constexpr int64_t kHeadDim = 128;
constexpr int64_t kFreqDim = 256;
constexpr int64_t kTextDim = 4096;
constexpr int64_t kTextLen = 512;
constexpr int64_t kClipDim = 1280;
constexpr int64_t kClipTokens = 257;  // 16 x 16 patches + class token
constexpr int64_t kTrainTimesteps = 1000;  // shared_config.py num_train_timesteps
constexpr double kEps = 1e-6;

// How the repository deploys a variant (recipes.cc): --dit_fsdp or not, and
// MaxDiffusion's config on TPUs (null: none).
struct WanDeployment {
  bool dit_fsdp = true;
  const char* maxdiffusion_config = nullptr;
  // Whether MaxDiffusion's README publishes a training recipe for it.
  bool maxdiffusion_training = false;
};

class Wan final : public DitFamily {
 public:
  explicit Wan(WanShape shape, WanDeployment deployment = {}) : s_(shape), deployment_(deployment) {}

  StatusOr<DeployedRecipe> Recipe(const ModelConfig& config, const RecipeChips& on) const override {
    return WanRecipe(config, s_.num_heads, on, deployment_.dit_fsdp, deployment_.maxdiffusion_config);
  }
  StatusOr<DeployedRecipe> TrainRecipe(const ModelConfig& config, const RecipeChips& on,
                                       int64_t micro_batch) const override {
    if (!deployment_.maxdiffusion_training) return DitFamily::TrainRecipe(config, on, micro_batch);
    return WanTrainRecipe(config, on, micro_batch);
  }

  Status Validate(const ModelConfig& c) const override {
    const int64_t multiple = 2 * s_.vae_stride;  // VAE stride x patch 2
    if (c.width % multiple != 0 || c.height % multiple != 0) {
      return InvalidArgument(c.model + ": width and height must be multiples of " + std::to_string(multiple) +
                             " (VAE stride " + std::to_string(s_.vae_stride) + " x patch 2), got " +
                             std::to_string(c.width) + "x" + std::to_string(c.height));
    }
    return Status::Ok();
  }

  TokenCounts Tokens(const ModelConfig& c) const override {
    return {LatentPatches(c).tokens(), s_.image_branch ? kClipTokens + kTextLen : kTextLen};
  }

  int64_t latent_channels() const override { return s_.out_channels; }
  int64_t depth_units() const override { return s_.num_layers; }
  bool builds_pipeline_patches() const override { return true; }
  int64_t vae_stride() const override { return s_.vae_stride; }
  int64_t experts() const override { return s_.experts; }

  // wan/text2video.py `_prepare_model_for_timestep`: step i runs the
  // high-noise expert while its timestep t_i >= boundary * 1000. The UniPC
  // schedule (wan/utils/fm_solvers_unipc.py, set_timesteps) takes
  // sigma_i = linspace(0.999, 0, steps + 1)[i], shifts it to
  // shift * sigma / (1 + (shift - 1) * sigma) and truncates 1000x that to an
  // integer. t_i falls with i, so the switch step is the count of high-noise
  // steps: T2V (shift 12, boundary 0.875) 26 of 40, I2V (5, 0.900) 15 of 40.
  int64_t ExpertSwitchStep(int64_t steps) const override {
    if (s_.experts == 1) return steps;
    const double start = 0.999, delta = -0.999 / static_cast<double>(steps);
    int64_t high = 0;
    for (int64_t i = 0; i < steps; ++i) {
      double sigma = start + static_cast<double>(i) * delta;
      double shifted = s_.shift * sigma / (1 + (s_.shift - 1) * sigma);
      auto t = static_cast<int64_t>(shifted * kTrainTimesteps);
      if (static_cast<double>(t) < s_.boundary * kTrainTimesteps) break;
      ++high;
    }
    return high;
  }

  std::vector<ValueId> DeclareConditioning(GraphBuilder& b, const ModelConfig& c, int64_t batch,
                                           const std::string& pass) const override {
    // The umT5 output, trimmed to the prompt and zero-padded to 512 rows.
    std::vector<ValueId> cond{DeclareText(b, c, batch, pass, {"context", kTextLen, kTextDim})};
    // Both passes see the same image: CLIP features (Wan 2.1) and the
    // first-frame latent y concatenated onto the noise (I2V).
    if (s_.image_branch) cond.push_back(b.Input("clip_fea", c.dtype, {batch, kClipTokens, kClipDim}));
    if (s_.in_channels > s_.out_channels) {
      cond.push_back(b.Input("y", DType::kF32, {batch, s_.in_channels - s_.out_channels, c.latent_frames(),
                                                c.dit_latent_height(), c.latent_width()}));
    }
    return cond;
  }

 protected:
  ValueId BuildForward(GraphBuilder& b, const ModelConfig& c, int64_t batch, ValueId x, ValueId t,
                       const std::vector<ValueId>& cond) const override;

 private:
  // stale_tokens > 0: a PipeFusion patch, whose self-attention K and V append
  // the other patches' (stale_tokens rows, inputs) to its own.
  ValueId Block(GraphBuilder& b, const ModelConfig& c, ValueId x, ValueId e0, ValueId context_text,
                std::optional<ValueId> context_image, ValueId rope_table, int64_t stale_tokens) const;
  // Splits the heads: [B, L, d] -> [B, L, heads, 128].
  ValueId Heads(GraphBuilder& b, const std::string& name, ValueId x) const {
    return blocks::SplitHeads(b, name, x, s_.num_heads, kHeadDim);
  }
  WanShape s_;
  WanDeployment deployment_;
};

// x * (1 + scale) + shift, written as x + x*scale + shift.
ValueId Modulate(GraphBuilder& b, const std::string& name, ValueId x, ValueId shift, ValueId scale) {
  GraphBuilder::Scope scope(b, name);
  ValueId scaled = b.Binary(OpKind::kMul, "scale", x, scale);
  ValueId sum = b.Binary(OpKind::kAdd, "add_scaled", x, scaled);
  return b.Binary(OpKind::kAdd, "shift", sum, shift);
}

// Chunk `index` of a modulation table: [B, count, d] -> [B, 1, d] (Wan 2.1),
// or per token [B, L, count, d] -> [B, L, d] (Wan 2.2).
ValueId Chunk(GraphBuilder& b, const std::string& name, ValueId x, int64_t index) {
  const Shape shape = b.type(x).shape;
  if (shape.size() == 3) return b.SliceAxis(name, x, 1, index, index + 1);
  ValueId slice = b.SliceAxis(name, x, 2, index, index + 1);
  return b.Reshape(name + ".squeeze", slice, {shape[0], shape[1], shape[3]});
}

ValueId Wan::BuildForward(GraphBuilder& b, const ModelConfig& c, int64_t batch, ValueId x, ValueId t,
                          const std::vector<ValueId>& cond) const {
  const int64_t d = s_.dim;
  // A PipeFusion patch (ModelConfig::pipeline_patches) has grid_h of the
  // latent's token rows; its attention spans all of them.
  const int64_t grid_t = c.latent_frames(), grid_h = c.dit_latent_height() / 2, grid_w = c.latent_width() / 2;
  const int64_t tokens = grid_t * grid_h * grid_w;
  const int64_t stale_tokens = grid_t * (c.latent_height() / 2) * grid_w - tokens;
  const DType dt = c.dtype;
  b.set_param_dtype(dt);

  // 1. I2V: concatenate the 20-channel y onto the noise -> 36 channels.
  if (s_.in_channels > s_.out_channels) x = b.Concat("concat_y", {x, cond.back()}, 1);

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

  // 3. Time: e = MLP(sinusoidal(t)) in f32; e0 = Linear(d, 6d)(SiLU(e)) -> [B, 6, d];
  //    Wan 2.2: on every token, e [B, L, d] and e0 [B, L, 6, d].
  ValueId e, e0;
  {
    GraphBuilder::Scope scope(b, "time_embedding");
    ValueId sin = b.Custom("sinusoidal", "sinusoidal_embedding", {t}, {DType::kF32, {batch, kFreqDim}});
    if (s_.per_token_time) {
      pir::Attributes attrs;
      attrs.Set("shape", std::vector<int64_t>{batch, tokens, kFreqDim});
      attrs.Set("dims", std::vector<int64_t>{0, 2});
      sin = b.AddOp1(OpKind::kBroadcast, "per_token", {sin}, attrs);
    }
    e = blocks::Mlp(b, {"0", "1", "2"}, sin, d, d, OpKind::kSilu);
  }
  {
    GraphBuilder::Scope scope(b, "time_projection");
    e0 = blocks::AdaLnRows(b, {"0", "1", "unflatten"}, e, 6, d);
  }

  // 4. Text: Linear(4096, d) -> GELU(tanh) -> Linear(d, d) on all 512 rows.
  ValueId context_text;
  {
    GraphBuilder::Scope scope(b, "text_embedding");
    context_text = blocks::Mlp(b, {"0", "1", "2"}, cond[0], d, d, OpKind::kGeluTanh);
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

  const int64_t layers = Depth(c);
  for (int64_t i = 0; i < layers; ++i) {
    GraphBuilder::Scope scope(b, "blocks." + std::to_string(i));
    h = Block(b, c, h, e0, context_text, context_image, rope_table, stale_tokens);
  }
  // A pipeline stage sends the hidden state on (graph output 0).
  if (c.pipeline_patches > 1) b.Output(h);

  // Head: (shift, scale) = modulation [1,2,d] + e; LayerNorm -> modulate -> Linear(d, 64).
  ValueId out;
  {
    GraphBuilder::Scope scope(b, "head");
    ValueId table = b.Param("modulation", dt, {1, 2, d});
    // e [B, d] -> [B, 1, d] + [1, 2, d]; Wan 2.2: e [B, L, d] -> [B, L, 1, d] + [1, 2, d].
    ValueId e_row = s_.per_token_time ? b.Reshape("e_row", e, {batch, tokens, 1, d})
                                      : b.Reshape("e_row", e, {batch, 1, d});
    ValueId mod = b.Binary(OpKind::kAdd, "modulation_add", table, e_row);
    ValueId shift = Chunk(b, "shift", mod, 0);
    ValueId scale = Chunk(b, "scale", mod, 1);
    ValueId n = b.LayerNorm("norm", h, /*affine=*/false, kEps);
    ValueId m = Modulate(b, "modulate", n, shift, scale);
    const int64_t c_out = s_.out_channels;
    ValueId y = b.Linear("head", b.CastTo("cast", m, dt), 1 * 2 * 2 * c_out);
    // Unpatchify: [B, L, (1,2,2,C_out)] -> [B, C_out, T, 2H', 2W'].
    ValueId video =
        blocks::Unpatchify(b, y, {grid_t, grid_h, grid_w}, c_out, {1, 2, 2}, /*channels_last=*/true);
    out = b.CastTo("velocity_f32", video, DType::kF32);
  }
  return out;
}

ValueId Wan::Block(GraphBuilder& b, const ModelConfig& c, ValueId x, ValueId e0, ValueId context_text,
                   std::optional<ValueId> context_image, ValueId rope_table, int64_t stale_tokens) const {
  const DType dt = c.dtype;
  const int64_t d = s_.dim;
  const Shape x_shape = b.type(x).shape;  // [B, L, d]

  // 1. Modulation: the block's [1, 6, d] table + e0, split into six [B, 1, d]
  //    (Wan 2.2: + e0 [B, L, 6, d], six [B, L, d]).
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
    if (stale_tokens > 0) {
      // PipeFusion: the other patches' K and V as the previous step left them.
      const int64_t batch = x_shape[0];
      ValueId stale_k = b.Input("stale_k", dt, {batch, stale_tokens, s_.num_heads, kHeadDim});
      ValueId stale_v = b.Input("stale_v", dt, {batch, stale_tokens, s_.num_heads, kHeadDim});
      kh = b.Concat("kv_buffer_k", {kh, stale_k}, 1);
      vh = b.Concat("kv_buffer_v", {vh, stale_v}, 1);
    }
    ValueId attn = -1;
    if (stale_tokens > 0) {
      pir::Attributes attrs;
      attrs.Set("mode", std::string("self"));
      attrs.Set("patch", true);
      attn = b.AddOp1(OpKind::kAttention, "attention", {qh, kh, vh}, std::move(attrs));
    } else {
      attn = b.Attention("attention", qh, kh, vh, "self");
    }
    ValueId o = b.Linear("o", b.Reshape("merge_heads", attn, x_shape), d);
    x = blocks::GatedResidual(b, "residual", "gate", x, o, chunk[2]);
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
    ValueId h2 = blocks::Mlp(b, {"0", "1", "2"}, m, s_.ffn_dim, d, OpKind::kGeluTanh);
    x = blocks::GatedResidual(b, "residual", "gate", x, h2, chunk[5]);
  }
  return x;
}

}  // namespace

// [Wan2.1: wan/configs/wan_t2v_1_3B.py, wan_t2v_14B.py, wan_i2v_14B.py]
const DitFamily& Wan21T2V1_3B() {
  static const Wan kFamily({1536, 8960, 30, 12, 16, false}, {true, "configs/base_wan_1_3b.yml"});
  return kFamily;
}
const DitFamily& Wan21T2V14B() {
  static const Wan kFamily({5120, 13824, 40, 40, 16, false}, {true, "configs/base_wan_14b.yml", true});
  return kFamily;
}
const DitFamily& Wan21I2V14B() {
  static const Wan kFamily({5120, 13824, 40, 40, 36, true});
  return kFamily;
}
// [Wan2.2: wan/configs/wan_t2v_A14B.py, wan_i2v_A14B.py, wan_ti2v_5B.py]:
// A14B experts have the Wan 2.1 14B shape; I2V concatenates y (36 in) and
// has no CLIP branch; TI2V-5B: d 3072 = 24 x 128, VAE (4, 16, 16) z_dim 48.
const DitFamily& Wan22T2VA14B() {
  static const Wan kFamily({5120, 13824, 40, 40, 16, false, 16, 8, true, 2, 12.0, 0.875},
                           {true, "configs/base_wan_27b.yml"});
  return kFamily;
}
const DitFamily& Wan22I2VA14B() {
  static const Wan kFamily({5120, 13824, 40, 40, 36, false, 16, 8, true, 2, 5.0, 0.900});
  return kFamily;
}
const DitFamily& Wan22TI2V5B() {
  static const Wan kFamily({3072, 14336, 30, 24, 48, false, 48, 16, true, 1, 5.0, 0}, {false, nullptr});
  return kFamily;
}

}  // namespace az::zoo
