// Step-Video-T2V (30B): one DiT forward as an exact PIR graph, op by op as
// StepVideoModel runs it [stepfun-ai/Step-Video-T2V 675e08c:
// stepvideo/modules/model.py, blocks.py (StepVideoTransformerBlock,
// SelfAttention, CrossAttention, FeedForward, PatchEmbed), normalization.py
// (AdaLayerNormSingle, PixArtAlphaTextProjection, RMSNorm), rope.py (RoPE3D);
// model.py imports the blocks from xDiT's identical copy,
// xfuser/model_executor/models/customized/step_video_t2v/].
//
// Configuration (StepVideoModel's defaults, which the checkpoint uses;
// FastVideo's StepVideoArchConfig repeats them): 48 heads of 128 (d 6144),
// 48 blocks, FFN 4d = 24,576 with GELU-tanh, 64 latent channels in and out,
// patch 1, caption_channels [6144, 1024], use_additional_conditions false.
// No linear in a block has a bias; the block LayerNorms (eps 1e-5) are affine,
// the qk RMSNorms (eps 1e-6) have a weight of 128, norm_out and caption_norm
// (eps 1e-6) have none.
//
// Text (api/call_remote_server.py): the Step-LLM's hidden states, 320 rows of
// 6144 (STEP1TextEncoder max_length 320), and HunyuanClip's, 77 rows of 1024.
//   context = [clip_projection(clip); caption_projection(caption_norm(llm))]   [B, 397, d]
// prepare_attn_mask trims the keys to the batch's longest prompt (the mask
// pads the CLIP rows as valid); the graph keeps the padded 397 rows, the
// bound the code allocates for, as Wan keeps its 512.
//
// Shape of the forward, B = batch, L = video tokens, T = 397:
//   x    = pos_embed.proj(latent): Conv2d(64, d, 1) per frame          [B, L, d], rows (frame, row, column)
//   emb  = adaln_single.emb(1000 t): sinusoid(256) -> Linear -> SiLU -> Linear   [B, d]
//   temb = adaln_single.linear(SiLU(emb))                              [B, 6d]
//   per block (table = the block's scale_shift_table [6, d] + temb):
//     x = x + gate_msa * wo(attn(RoPE(q_norm(q)), RoPE(k_norm(k)), v)),
//         q, k, v = wqkv(LN(x) * (1 + scale_msa) + shift_msa) per head (3D RoPE 64:32:32)
//     x = x + wo(attn(q_norm(wq(x)), k_norm(k), v)), k, v = wkv(context)   (no norm, no gate)
//     x = x + gate_mlp * ff(LN(x) * (1 + scale_mlp) + shift_mlp)
//   out  = proj_out(LN(x) * (1 + scale) + shift), (shift, scale) = scale_shift_table [2, d] + emb
//
// Layout: the zoo's latent is [B, C, T, H/16, W/16]; the pipeline keeps
// [B, T, C, H, W]. The 1x1 Conv2d over every frame is written as a Conv3d with
// kernel (1, 1, 1) on the zoo's layout: the same weights, FLOPs and token
// order. The head writes the zoo's layout back.
//
// Parallel layouts (README, stepvideo/parallel.py, reference/models.md §4.6):
// tp_degree x ulysses_degree = GPUs, default Ulysses 8. Ulysses and xDiT's
// TensorParallelApplicator (wqkv, wq, wkv column-parallel, wo row-parallel,
// ff.net.0.proj column, ff.net.2 row) both split the 48 heads, so Ulysses x TP
// divides 48 (search/combos.h). parallel_forward splits the L tokens with
// torch.chunk and all-gathers them after the blocks (DeployedSequenceSplit).
//
// Numerics: the pipeline runs the DiT in bf16; the f32 sinusoid and latent are
// cast once (config.dtype). The RoPE table is a buffer (graph constant).
#include <string>
#include <utility>
#include <vector>

#include "frontend/zoo/blocks.h"
#include "frontend/zoo/family.h"

namespace az::zoo {
namespace {

constexpr int64_t kHeads = 48;
constexpr int64_t kHeadDim = 128;
constexpr int64_t kDim = kHeads * kHeadDim;  // 6144
constexpr int64_t kLayers = 48;
constexpr int64_t kFfnDim = 4 * kDim;  // FeedForward mult 4
constexpr int64_t kChannels = 64;      // in_channels = out_channels
constexpr int64_t kFreqDim = 256;      // Timesteps(num_channels=256)
constexpr int64_t kLlmDim = 6144;      // caption_channels[0]
constexpr int64_t kLlmTokens = 320;
constexpr int64_t kClipDim = 1024;  // caption_channels[1]
constexpr int64_t kClipTokens = 77;
constexpr int64_t kTextTokens = kClipTokens + kLlmTokens;  // 397
constexpr double kBlockNormEps = 1e-5;
constexpr double kEps = 1e-6;  // qk RMSNorm, norm_out, caption_norm

// The latent patch grid of one sample (patch 1: the latent grid itself,
// DitFamily::LatentPatches).
using blocks::PatchGrid;

class ForwardBuilder : private blocks::ForwardState {
 public:
  using ForwardState::ForwardState;

  ValueId Build(ValueId latent, ValueId timestep, ValueId llm, ValueId clip);

 private:
  ValueId PatchEmbed(ValueId latent);
  // AdaLayerNormSingle: sets emb_ [B, d] and temb_ [B, 6, d].
  void TimeEmbedding(ValueId timestep);
  ValueId Context(ValueId llm, ValueId clip);
  ValueId Block(int64_t index, ValueId x, ValueId context);
  ValueId SelfAttention(ValueId x);
  ValueId CrossAttention(ValueId x, ValueId context);
  ValueId Head(ValueId x);

  ValueId emb_ = -1;
  ValueId temb_ = -1;
};

ValueId ForwardBuilder::Build(ValueId latent, ValueId timestep, ValueId llm, ValueId clip) {
  one_ = b_.Constant("scalar.one", dtype_, {});
  // RoPE3D over (frame, row, column) positions: head-dim sections 64 : 32 : 32
  // (rope_ch_split), computed in the activations' dtype.
  rope_table_ = b_.Constant("rope.table", dtype_, {video_, kHeadDim});
  ValueId x = PatchEmbed(latent);
  TimeEmbedding(timestep);
  ValueId context = Context(llm, clip);
  for (int64_t i = 0; i < depth_; ++i) x = Block(i, x, context);
  return Head(x);
}

ValueId ForwardBuilder::PatchEmbed(ValueId latent) {
  GraphBuilder::Scope scope(b_, "pos_embed");
  // Conv2d(64, d, 1, stride 1, bias) per frame == Conv3d kernel (1, 1, 1).
  return blocks::ConvPatchEmbed(b_, latent, dtype_, kDim, {1, 1, 1});
}

void ForwardBuilder::TimeEmbedding(ValueId timestep) {
  GraphBuilder::Scope scope(b_, "adaln_single");
  // The scheduler's t in [0, 1] times time_step_rescale (1000); Timesteps(256,
  // flip_sin_to_cos, shift 0) in f32, cast to the model dtype.
  ValueId rescale = b_.Constant("time_step_rescale", DType::kF32, {});
  ValueId t = b_.Binary(OpKind::kMul, "rescale", timestep, rescale);
  const std::string embedder = "emb.timestep_embedder.";
  emb_ = blocks::TimestepEmbedder(b_, "emb.time_proj", embedder + "cast",
                                  {embedder + "linear_1", embedder + "act", embedder + "linear_2"}, t, kFreqDim, kDim,
                                  dtype_);
  temb_ = blocks::AdaLnRows(b_, {"silu", "linear", "chunks"}, emb_, 6, kDim);
}

ValueId ForwardBuilder::Context(ValueId llm, ValueId clip) {
  ValueId normed = b_.LayerNorm("caption_norm", llm, /*affine=*/false, kEps);
  ValueId caption;
  {
    GraphBuilder::Scope scope(b_, "caption_projection");
    caption = blocks::Mlp(b_, {"linear_1", "act_1", "linear_2"}, normed, kDim, kDim, OpKind::kGeluTanh);
  }
  ValueId clip_embedding = b_.Linear("clip_projection", clip, kDim);
  return b_.Concat("concat_clip_caption", {clip_embedding, caption}, 1);
}

ValueId ForwardBuilder::Block(int64_t index, ValueId x, ValueId context) {
  GraphBuilder::Scope scope(b_, "transformer_blocks." + std::to_string(index));
  // Block norms: affine LayerNorm (eps 1e-5); no linear has a bias.
  const blocks::AdaLnSingleBlockSpec spec{{/*rms=*/false, /*affine=*/true, kBlockNormEps}, kFfnDim,
                                          /*ffn_bias=*/false};
  return blocks::AdaLnSingleBlock(
      b_, spec, x, temb_, one_, dtype_, [&](ValueId h) { return SelfAttention(h); },
      [&](ValueId h) { return CrossAttention(h, context); });
}

ValueId ForwardBuilder::SelfAttention(ValueId x) {
  GraphBuilder::Scope scope(b_, "attn1");
  // wqkv's output is viewed per head as (q, k, v) of 128 each: [B, L, 48, 384].
  ValueId qkv = b_.Linear("wqkv", x, 3 * kDim, /*bias=*/false);
  ValueId heads = b_.Reshape("qkv_heads", qkv, {batch_, video_, kHeads, 3 * kHeadDim});
  ValueId q = b_.SliceAxis("q", heads, 3, 0, kHeadDim);
  ValueId k = b_.SliceAxis("k", heads, 3, kHeadDim, 2 * kHeadDim);
  ValueId v = b_.SliceAxis("v", heads, 3, 2 * kHeadDim, 3 * kHeadDim);
  q = b_.RmsNorm("q_norm", q, /*affine=*/true, kEps);
  k = b_.RmsNorm("k_norm", k, /*affine=*/true, kEps);
  q = b_.Rope("rope_q", q, rope_table_, {64, 32, 32});
  k = b_.Rope("rope_k", k, rope_table_, {64, 32, 32});
  ValueId attn = b_.Attention("attention", q, k, v, "self");
  ValueId merged = b_.Reshape("merge_heads", attn, {batch_, video_, kDim});
  return b_.Linear("wo", merged, kDim, /*bias=*/false);
}

ValueId ForwardBuilder::CrossAttention(ValueId x, ValueId context) {
  GraphBuilder::Scope scope(b_, "attn2");
  ValueId q = blocks::SplitHeads(b_, "q_heads", b_.Linear("wq", x, kDim, /*bias=*/false), kHeads, kHeadDim);
  // wkv's output is viewed per head as (k, v): [B, T, 48, 256].
  ValueId kv = b_.Linear("wkv", context, 2 * kDim, /*bias=*/false);
  ValueId kv_heads = b_.Reshape("kv_heads", kv, {batch_, kTextTokens, kHeads, 2 * kHeadDim});
  ValueId k = b_.SliceAxis("k", kv_heads, 3, 0, kHeadDim);
  ValueId v = b_.SliceAxis("v", kv_heads, 3, kHeadDim, 2 * kHeadDim);
  q = b_.RmsNorm("q_norm", q, /*affine=*/true, kEps);
  k = b_.RmsNorm("k_norm", k, /*affine=*/true, kEps);
  ValueId attn = b_.Attention("attention", q, k, v, "cross");
  ValueId merged = b_.Reshape("merge_heads", attn, {batch_, video_, kDim});
  return b_.Linear("wo", merged, kDim, /*bias=*/false);
}

ValueId ForwardBuilder::Head(ValueId x) {
  // (shift, scale) = scale_shift_table [2, d] + emb [B, 1, d] (the same row for every frame).
  ValueId h = blocks::AdaLnSingleOut(b_, x, emb_, one_, dtype_, kEps);
  ValueId out = b_.Linear("proj_out", h, kChannels);  // patch 1: 64 values per token
  // Unpatchify: [B, L, 64] -> [B, T, H, W, 64] -> [B, 64, T, H, W].
  ValueId latent = blocks::UnpackTokens(b_, "unpatchify", out, grid_, kChannels);
  return b_.CastTo("to_f32", latent, DType::kF32);
}

class StepVideo final : public DitFamily {
 public:
  // The common checks passed: sizes multiples of 16 (the pipeline's
  // check_inputs floors to 16: VAE stride 16 x patch 1), frames 17n (it floors
  // the frame count to a multiple of 17; here a user error instead).
  Status Validate(const ModelConfig&) const override { return Status::Ok(); }

  // parallel_forward (stepvideo/parallel.py) splits the [B, L, d] tokens with
  // torch.chunk over the sequence-parallel ranks and all-gathers the blocks'
  // output; the Ulysses all-to-all and the all-gather need equal chunks, and
  // RoPE3D chunks the position grid the same way.
  Status DeployedSequenceSplit(const ModelConfig& config, int64_t sp) const override {
    const int64_t tokens = LatentPatches(config).tokens();
    if (tokens % sp == 0) return Status::Ok();
    return InvalidArgument("Step-Video's sequence parallelism (stepvideo/parallel.py) splits the " +
                           std::to_string(tokens) + " video tokens into equal chunks over ulysses x ring = " +
                           std::to_string(sp) + " ranks, and " + std::to_string(sp) + " does not divide them");
  }

  // tp_degree x ulysses_degree (x ring) = GPUs; CFG runs as one batch-2
  // forward, never split (models.md §4.6; xDiT's table: CFG NA, TP yes).
  DeployedDegrees deployed_degrees() const override { return {.cfg = false, .tp = true}; }
  StatusOr<DeployedRecipe> Recipe(const ModelConfig& config, const RecipeChips& on) const override {
    return StepVideoRecipe(config, kHeads, on);
  }

  TokenCounts Tokens(const ModelConfig& config) const override { return {LatentPatches(config).tokens(), kTextTokens}; }

  int64_t latent_channels() const override { return kChannels; }
  int64_t depth_units() const override { return kLayers; }
  int64_t vae_stride() const override { return 16; }
  // 17 frames -> 3 latent frames (video_pipeline.py prepare_latents: num_frames // 17 * 3).
  VaeTime vae_time() const override { return {17, 3, false}; }
  int64_t patch() const override { return 1; }


 protected:
  // encoder_hidden_states: the Step-LLM's [B, 320, 6144]; encoder_hidden_states_2:
  // the CLIP's [B, 77, 1024]. The pipeline encodes [prompt, negative prompt] at once.
  std::vector<TextInput> text_inputs() const override {
    return {{"encoder_hidden_states", kLlmTokens, kLlmDim}, {"encoder_hidden_states_2", kClipTokens, kClipDim}};
  }

  ValueId BuildForward(GraphBuilder& b, const ModelConfig& config, int64_t batch, ValueId x, ValueId t,
                       const std::vector<ValueId>& conditioning) const override {
    ForwardBuilder forward(b, config.dtype, batch, LatentPatches(config), Depth(config));
    return forward.Build(x, t, conditioning[0], conditioning[1]);
  }
};

}  // namespace

const DitFamily& StepVideoT2V() {
  static const StepVideo kStepVideo;
  return kStepVideo;
}

}  // namespace az::zoo
