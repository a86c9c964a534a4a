// HunyuanVideo 13B (HYVideo-T/2-cfgdistill): one DiT forward as an exact PIR
// graph, op by op as hyvideo/modules/models.py runs it (reference/models.md §2.2).
//
// Shape of the forward, d = 3072, 24 heads x 128, B = batch:
//   vec  = time_in(t) + vector_in(clip_pooled) + guidance_in(guidance)      [B, d]
//   img  = img_in(latent): Conv3d 16 -> d, kernel = stride = (1,2,2)          [B, L_img, d]
//   txt  = txt_in(text_states, t): the SingleTokenRefiner                    [B, 256, d]
//   20 x dual-stream block (image and text weights apart, joint attention)
//   x    = concat(img, txt) on the token dim, text at the rear               [B, N, d]
//   40 x single-stream block (linear1 = qkv + MLP-in, linear2 = proj + MLP-out)
//   out  = final_layer(x[:, :L_img], vec), unpatchified, f32                 [B, 16, T, H/8, W/8]
//
// Names mirror the checkpoint's tensors ("double_blocks.3.img_attn_qkv.weight").
// The DiT runs in config.dtype: the f32 latent and the f32 sinusoidal
// embeddings are cast once, where the reference casts them. RoPE tables are
// buffers (graph constants), never parameters.
//
// Assumption: all 256 text tokens are valid. The reference masks padded text
// rows (a separate attention segment, and a masked mean in the refiner); how
// many rows are padding depends on the prompt, so the graph treats them all
// as valid. This is the upper bound reference/models.md §2.4 tabulates
// (N = L_img + 256), and every linear processes all 256 rows either way.
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
constexpr int64_t kDoubleBlocks = 20;
constexpr int64_t kSingleBlocks = 40;
constexpr int64_t kRefinerBlocks = 2;
constexpr int64_t kLatentChannels = 16;
constexpr int64_t kPatchT = 1, kPatchH = 2, kPatchW = 2;
constexpr int64_t kTextTokens = 256;
constexpr int64_t kTextDim = 4096;      // LLaVA-Llama-3-8B hidden states
constexpr int64_t kClipDim = 768;       // CLIP-L pooled output
constexpr int64_t kFrequencyDim = 256;  // sinusoidal timestep embedding width
constexpr double kNormEps = 1e-6;
// 3-D RoPE: head-dim channels per axis (time, height, width), theta 256.
constexpr std::array<int64_t, 3> kRopeSections = {16, 56, 56};

static_assert(kHeads * kHeadDim == kHidden);
static_assert(kPatchH == kPatchW, "square patches: DitFamily::patch()");
static_assert(kRopeSections[0] + kRopeSections[1] + kRopeSections[2] == kHeadDim);

using blocks::PatchGrid;

// Builds one forward. Holds what every block needs: the conditioning vector,
// the token counts, the RoPE table and the scalar 1 of modulate().
class ForwardBuilder : private blocks::ForwardState {
 public:
  using ForwardState::ForwardState;

  ValueId Build(ValueId latent, ValueId timestep, const std::vector<ValueId>& conditioning);

 private:
  int64_t joint_tokens() const { return video_ + kTextTokens; }

  // sinusoidal(x, 256) -> Linear(256, d) -> SiLU -> Linear(d, d) (TimestepEmbedder).
  ValueId TimestepEmbedder(const std::string& name, ValueId x);
  ValueId Conditioning(ValueId timestep, ValueId clip_pooled, ValueId guidance);
  ValueId ImageIn(ValueId latent);
  ValueId TokenRefiner(ValueId text_states, ValueId timestep);
  ValueId RefinerBlock(int64_t index, ValueId x, ValueId c);
  // Returns {img, txt}.
  std::pair<ValueId, ValueId> DoubleBlock(int64_t index, ValueId img, ValueId txt);
  ValueId SingleBlock(int64_t index, ValueId x);
  ValueId FinalLayer(ValueId x);

  // Linear(d, k * d)(SiLU(c)).chunk(k), one chunk per name (blocks::AdaLnModulation).
  // Each chunk is [B, 1, d] (the reference's unsqueeze(1)), so it broadcasts over the tokens.
  std::vector<ValueId> Modulation(const std::string& silu, const std::string& linear, ValueId c,
                                  const std::vector<std::string>& chunk_names);
  // [B, L, 3d] -> q, k, v [B, L, heads, head_dim] ("B L (K H D) -> K B L H D").
  std::array<ValueId, 3> SplitQkv(const std::string& name, ValueId qkv, int64_t tokens);
  // [B, L, heads, head_dim] -> [B, L, d].
  ValueId MergeHeads(const std::string& name, ValueId x, int64_t tokens);
  static std::vector<int64_t> RopeSections();
  ValueId Rope(const std::string& name, ValueId x);

  ValueId vec_ = -1;
};

ValueId ForwardBuilder::Build(ValueId latent, ValueId timestep, const std::vector<ValueId>& conditioning) {
  AZ_CHECK_MSG(conditioning.size() == 3, "HunyuanVideo takes text_states, clip_pooled and guidance");
  one_ = b_.Constant("scalar.one", dtype_, {});
  // freqs_cos / freqs_sin of the image tokens, concatenated: [L_img, head_dim].
  rope_table_ = b_.Constant("rope.table", DType::kF32, {video_, kHeadDim});

  vec_ = Conditioning(timestep, conditioning[1], conditioning[2]);
  ValueId img = ImageIn(latent);
  ValueId txt = TokenRefiner(conditioning[0], timestep);
  static_assert(kSingleBlocks == 2 * kDoubleBlocks, "a depth unit is one dual- and two single-stream blocks");
  for (int64_t i = 0; i < depth_; ++i) std::tie(img, txt) = DoubleBlock(i, img, txt);
  ValueId x = b_.Concat("concat_img_txt", {img, txt}, 1);
  for (int64_t i = 0; i < 2 * depth_; ++i) x = SingleBlock(i, x);
  return FinalLayer(x);
}

ValueId ForwardBuilder::TimestepEmbedder(const std::string& name, ValueId x) {
  GraphBuilder::Scope scope(b_, name);
  // timestep_embedding(): cos/sin of x * 10000^(-i/128), f32, no parameters.
  return blocks::TimestepEmbedder(b_, "sinusoidal", "cast", {"mlp.0", "mlp.1", "mlp.2"}, x, kFrequencyDim, kHidden,
                                  dtype_);
}

ValueId ForwardBuilder::Conditioning(ValueId timestep, ValueId clip_pooled, ValueId guidance) {
  ValueId time = TimestepEmbedder("time_in", timestep);
  ValueId vector;
  {
    GraphBuilder::Scope scope(b_, "vector_in");
    ValueId clip = b_.CastTo("cast", clip_pooled, dtype_);
    vector = blocks::Mlp(b_, {"in_layer", "silu", "out_layer"}, clip, kHidden, kHidden, OpKind::kSilu);
  }
  ValueId vec = b_.Binary(OpKind::kAdd, "vec.add_vector", time, vector);
  // The cfg-distilled model embeds the guidance scale (x 1000) like a timestep.
  return b_.Binary(OpKind::kAdd, "vec.add_guidance", vec, TimestepEmbedder("guidance_in", guidance));
}

ValueId ForwardBuilder::ImageIn(ValueId latent) {
  GraphBuilder::Scope scope(b_, "img_in");
  // PatchEmbed: Conv3d, then flatten(2).transpose(1, 2): [B, d, T, H', W'] -> [B, L_img, d].
  return blocks::ConvPatchEmbed(b_, latent, dtype_, kHidden, {kPatchT, kPatchH, kPatchW});
}

ValueId ForwardBuilder::TokenRefiner(ValueId text_states, ValueId timestep) {
  GraphBuilder::Scope scope(b_, "txt_in");
  ValueId text = b_.CastTo("cast", text_states, dtype_);
  ValueId time = TimestepEmbedder("t_embedder", timestep);
  // The masked mean of the text rows; with every row valid it is the plain mean.
  Attributes mean_attrs;
  mean_attrs.Set("dims", std::vector<int64_t>{1});
  mean_attrs.Set("kind", std::string("mean"));
  ValueId mean = b_.AddOp1(OpKind::kReduce, "text_mean", {text}, std::move(mean_attrs));
  ValueId context;
  {
    GraphBuilder::Scope c_scope(b_, "c_embedder");
    context = blocks::Mlp(b_, {"linear_1", "act_1", "linear_2"}, mean, kHidden, kHidden, OpKind::kSilu);
  }
  ValueId c = b_.Binary(OpKind::kAdd, "c", time, context);
  ValueId x = b_.Linear("input_embedder", text, kHidden);
  for (int64_t i = 0; i < kRefinerBlocks; ++i) x = RefinerBlock(i, x, c);
  return x;
}

ValueId ForwardBuilder::RefinerBlock(int64_t index, ValueId x, ValueId c) {
  GraphBuilder::Scope scope(b_, "individual_token_refiner.blocks." + std::to_string(index));
  // Gates only: no shift or scale in the refiner.
  std::vector<ValueId> mod = Modulation("adaLN_modulation.0", "adaLN_modulation.1", c, {"gate_msa", "gate_mlp"});
  ValueId gate_msa = mod[0], gate_mlp = mod[1];

  ValueId norm1 = b_.LayerNorm("norm1", x, /*affine=*/true, kNormEps);
  ValueId qkv = b_.Linear("self_attn_qkv", norm1, 3 * kHidden);
  auto [q, k, v] = SplitQkv("self_attn_qkv", qkv, kTextTokens);
  // self_attn_q_norm / self_attn_k_norm are Identity (qk_norm is off in the refiner).
  ValueId attn = MergeHeads("self_attn", b_.Attention("self_attn", q, k, v, "self"), kTextTokens);
  x = blocks::GatedResidual(b_, "attn_residual", x, b_.Linear("self_attn_proj", attn, kHidden), gate_msa);

  ValueId norm2 = b_.LayerNorm("norm2", x, /*affine=*/true, kNormEps);
  ValueId mlp = blocks::Mlp(b_, {"mlp.fc1", "mlp.act", "mlp.fc2"}, norm2, kMlpHidden, kHidden, OpKind::kSilu);
  return blocks::GatedResidual(b_, "mlp_residual", x, mlp, gate_mlp);
}

std::pair<ValueId, ValueId> ForwardBuilder::DoubleBlock(int64_t index, ValueId img, ValueId txt) {
  GraphBuilder::Scope scope(b_, "double_blocks." + std::to_string(index));
  // Per stream: shift1, scale1, gate1, shift2, scale2, gate2.
  auto stream_modulation = [&](const std::string& s) {
    return Modulation(s + "_mod.silu", s + "_mod.linear", vec_,
                      {s + "_mod1_shift", s + "_mod1_scale", s + "_mod1_gate", s + "_mod2_shift", s + "_mod2_scale",
                       s + "_mod2_gate"});
  };
  std::vector<ValueId> img_mod = stream_modulation("img");
  std::vector<ValueId> txt_mod = stream_modulation("txt");

  // Image stream: norm, modulate, qkv, per-head RMSNorm, RoPE.
  ValueId img_h = blocks::NormModulate(b_, "img_norm1", "img_mod1", img, img_mod[0], img_mod[1], one_, kNormEps);
  auto [img_q, img_k, img_v] = SplitQkv("img_attn_qkv", b_.Linear("img_attn_qkv", img_h, 3 * kHidden), video_);
  img_q = Rope("img_attn_q_rope", b_.RmsNorm("img_attn_q_norm", img_q, /*affine=*/true, kNormEps));
  img_k = Rope("img_attn_k_rope", b_.RmsNorm("img_attn_k_norm", img_k, /*affine=*/true, kNormEps));

  // Text stream: the same without RoPE.
  ValueId txt_h = blocks::NormModulate(b_, "txt_norm1", "txt_mod1", txt, txt_mod[0], txt_mod[1], one_, kNormEps);
  auto [txt_q, txt_k, txt_v] = SplitQkv("txt_attn_qkv", b_.Linear("txt_attn_qkv", txt_h, 3 * kHidden), kTextTokens);
  txt_q = b_.RmsNorm("txt_attn_q_norm", txt_q, /*affine=*/true, kNormEps);
  txt_k = b_.RmsNorm("txt_attn_k_norm", txt_k, /*affine=*/true, kNormEps);

  // Joint attention over [image; text], text at the rear.
  ValueId attn = blocks::JointAttention(b_, {img_q, img_k, img_v}, {txt_q, txt_k, txt_v}, kTextTokens, kHidden);
  ValueId img_attn = b_.SliceAxis("img_attn", attn, 1, 0, video_);
  ValueId txt_attn = b_.SliceAxis("txt_attn", attn, 1, video_, joint_tokens());

  auto stream_tail = [&](const std::string& s, ValueId x, ValueId attn_s, const std::vector<ValueId>& mod) {
    const blocks::StreamTailNames names{s + "_attn_proj", s + "_attn_residual", s + "_norm2", s + "_mod2",
                                        {s + "_mlp.fc1", s + "_mlp.act", s + "_mlp.fc2"}, s + "_mlp_residual"};
    return blocks::DoubleStreamTail(b_, names, x, attn_s, mod, one_, kHidden, kMlpHidden, kNormEps);
  };
  img = stream_tail("img", img, img_attn, img_mod);
  txt = stream_tail("txt", txt, txt_attn, txt_mod);
  return {img, txt};
}

ValueId ForwardBuilder::SingleBlock(int64_t index, ValueId x) {
  GraphBuilder::Scope scope(b_, "single_blocks." + std::to_string(index));
  const int64_t n = joint_tokens();
  std::vector<ValueId> mod =
      Modulation("modulation.silu", "modulation.linear", vec_, {"mod_shift", "mod_scale", "mod_gate"});
  ValueId h = blocks::NormModulate(b_, "pre_norm", "modulate", x, mod[0], mod[1], one_, kNormEps);

  // Parallel branches: linear1 yields qkv (3d) and the MLP input (4d) at once.
  ValueId fused = b_.Linear("linear1", h, 3 * kHidden + kMlpHidden);
  ValueId qkv = b_.SliceAxis("split_qkv", fused, 2, 0, 3 * kHidden);
  ValueId mlp_in = b_.SliceAxis("split_mlp", fused, 2, 3 * kHidden, 3 * kHidden + kMlpHidden);
  auto [q, k, v] = SplitQkv("qkv", qkv, n);
  q = b_.RmsNorm("q_norm", q, /*affine=*/true, kNormEps);
  k = b_.RmsNorm("k_norm", k, /*affine=*/true, kNormEps);

  // RoPE on the image rows only; the text rows pass through unrotated.
  const blocks::RopeRowsSpec image_rows{video_, /*rotate_lower=*/true, "_img", "_txt"};
  q = blocks::RopeRows(b_, "q", q, rope_table_, RopeSections(), image_rows);
  k = blocks::RopeRows(b_, "k", k, rope_table_, RopeSections(), image_rows);
  return blocks::SingleStreamOut(b_, x, q, k, v, kTextTokens, mlp_in, mod[2], kHidden);
}

ValueId ForwardBuilder::FinalLayer(ValueId x) {
  ValueId img = b_.SliceAxis("img_tokens", x, 1, 0, video_);
  GraphBuilder::Scope scope(b_, "final_layer");
  std::vector<ValueId> mod = Modulation("adaLN_modulation.0", "adaLN_modulation.1", vec_, {"shift", "scale"});
  ValueId h = blocks::NormModulate(b_, "norm_final", "modulate", img, mod[0], mod[1], one_, kNormEps);
  const int64_t patch_values = kPatchT * kPatchH * kPatchW * kLatentChannels;  // 64
  ValueId patches = b_.Linear("linear", h, patch_values);
  // unpatchify: [B, L, 64] -> [B, T, H', W', C, pt, ph, pw]
  //   -> einsum "nthwcopq->nctohpwq" -> [B, C, T*pt, H'*ph, W'*pw].
  ValueId latent = blocks::Unpatchify(b_, patches, grid_, kLatentChannels, {kPatchT, kPatchH, kPatchW},
                                      /*channels_last=*/false);
  return b_.CastTo("to_f32", latent, DType::kF32);
}

std::vector<ValueId> ForwardBuilder::Modulation(const std::string& silu, const std::string& linear, ValueId c,
                                                const std::vector<std::string>& chunk_names) {
  return blocks::AdaLnModulation(b_, {silu, linear, linear + ".chunks"}, c, kHidden, chunk_names);
}

std::array<ValueId, 3> ForwardBuilder::SplitQkv(const std::string& name, ValueId qkv, int64_t tokens) {
  // (K H D) with K major: viewing [B, L, 3, H, D] keeps the head dim whole, so
  // heads shard through the split.
  ValueId heads = b_.Reshape(name + ".heads", qkv, {batch_, tokens, 3, kHeads, kHeadDim});
  std::array<ValueId, 3> out;
  const char* parts[] = {"q", "k", "v"};
  for (int64_t i = 0; i < 3; ++i) {
    ValueId part = b_.SliceAxis(name + "." + parts[i], heads, 2, i, i + 1);
    out[i] = b_.Reshape(name + "." + parts[i] + ".squeeze", part, {batch_, tokens, kHeads, kHeadDim});
  }
  return out;
}

ValueId ForwardBuilder::MergeHeads(const std::string& name, ValueId x, int64_t tokens) {
  return b_.Reshape(name + ".merge_heads", x, {batch_, tokens, kHidden});
}

std::vector<int64_t> ForwardBuilder::RopeSections() { return {kRopeSections.begin(), kRopeSections.end()}; }

ValueId ForwardBuilder::Rope(const std::string& name, ValueId x) {
  return b_.Rope(name, x, rope_table_, RopeSections());
}

class HunyuanVideo final : public DitFamily {
 public:
  // The common checks (sizes multiple of 16, frames 4n+1) are all the model
  // needs. The official code's sequence-parallel latent split rule
  // constrains its parallel runs, not the model (DeployedSequenceSplit).
  Status Validate(const ModelConfig&) const override { return Status::Ok(); }

  // hyvideo/inference.py (models.md §4.2) splits the latent along H when its
  // patch rows divide by sp, else along W when its patch columns do, else
  // refuses. 720p: 45 x 80 patches, so sp 2, 4, 5, 8 (along W), 3, 5 (H); not 6.
  Status DeployedSequenceSplit(const ModelConfig& config, int64_t sp) const override {
    const PatchGrid grid = LatentPatches(config, kPatchT);
    if (grid.rows % sp == 0 || grid.cols % sp == 0) return Status::Ok();
    return InvalidArgument("HunyuanVideo's sequence parallelism splits the latent along patch rows or columns, and "
                           "neither its " + std::to_string(grid.rows) + " rows nor its " + std::to_string(grid.cols) +
                           " columns at " + std::to_string(config.width) + "x" + std::to_string(config.height) +
                           " divide by ulysses x ring = " + std::to_string(sp));
  }

  StatusOr<DeployedRecipe> Recipe(const ModelConfig& config, const RecipeChips& on) const override {
    return HunyuanVideoRecipe(config, kHeads, on);
  }

  TokenCounts Tokens(const ModelConfig& config) const override {
    return {LatentPatches(config, kPatchT).tokens(), kTextTokens};
  }

  int64_t latent_channels() const override { return kLatentChannels; }
  // 20 dual-stream : 40 single-stream blocks: a unit is one of each kind, twice single.
  int64_t depth_units() const override { return kDoubleBlocks; }
  int64_t patch() const override { return kPatchH; }

  // text_states: LLM hidden states [B, 256, 4096]; clip_pooled: [B, 768];
  // guidance: embedded cfg scale x 1000 per sample, f32. Text differs between
  // the conditional and unconditional pass; the guidance scale does not.
  std::vector<ValueId> DeclareConditioning(GraphBuilder& b, const ModelConfig& config, int64_t batch,
                                           const std::string& pass) const override {
    ValueId text = DeclareText(b, config, batch, pass, {"text_states", kTextTokens, kTextDim});
    ValueId clip = b.Input("clip_pooled" + PassSuffix(pass), config.dtype, {batch, kClipDim});
    ValueId guidance = b.Input("guidance", DType::kF32, {batch});
    return {text, clip, guidance};
  }

 protected:
  ValueId BuildForward(GraphBuilder& b, const ModelConfig& config, int64_t batch, ValueId x, ValueId t,
                       const std::vector<ValueId>& conditioning) const override {
    ForwardBuilder forward(b, config.dtype, batch, LatentPatches(config, kPatchT), Depth(config));
    return forward.Build(x, t, conditioning);
  }
};

}  // namespace

const DitFamily& HunyuanVideo13B() {
  static const HunyuanVideo kFamily;
  return kFamily;
}

}  // namespace az::zoo
