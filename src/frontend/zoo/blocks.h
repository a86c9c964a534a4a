// Building blocks the zoo's DiT families share, as functions over a
// pir::GraphBuilder: adaLN modulation (per-sample rows, or PixArt's table +
// rows), modulate and the gated residual, two-linear MLPs, the timestep
// embedder, convolutional patch embedding, unpatchify and patch-1 unpacking,
// head splits and projections, 3-D RoPE on a range of rows, PixArt's
// adaLN-single block (LTX-Video, Step-Video) and the MM-DiT pieces (the joint
// attention, a double-stream block's per-stream tail, a single-stream block's
// output; HunyuanVideo, Open-Sora 2.0).
//
// Not here, because the families' op orders differ: the q/k/v projections
// with their QK norms (each family norms, splits heads and rotates in its
// own order), Wan's modulate (x + x * scale + shift) and patch embedding (its
// cast after the weights), Mochi's sandwich-norm residuals and its RoPE.
//
// Invariant: a block emits exactly the op sequence the families wrote out by
// hand before it existed: the same ops in the same order, with the same value
// names and shapes (plans are pinned byte for byte, tests/plan_golden.py).
// So every name is a parameter where families name things differently, op
// order inside a block is fixed by one statement per op (argument evaluation
// order is unspecified in C++), and a block never opens a scope of its own:
// the caller's scope and the dotted names it passes are the same thing
// (GraphBuilder::QualifiedName joins them with '.'). A family whose op order
// differs from a block keeps its own code rather than bend the block.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frontend/zoo/pir_names.h"
#include "pir/build/graph_builder.h"

namespace az::zoo::blocks {

// The latent patch grid of one sample: patches along time, rows and columns.
struct PatchGrid {
  int64_t frames = 0, rows = 0, cols = 0;
  int64_t tokens() const { return frames * rows * cols; }
};

// What every family's forward builder holds: the graph being built, the
// model dtype, the batch, one sample's patch grid with its video token count,
// the depth to build and the constants every block reads. A family's ForwardBuilder derives from it and adds
// its own shape and shared values (or inherits this constructor when it has
// none).
class ForwardState {
 public:
  ForwardState(pir::GraphBuilder& b, pir::DType dtype, int64_t batch, PatchGrid grid, int64_t depth)
      : b_(b), dtype_(dtype), batch_(batch), grid_(grid), video_(grid.tokens()), depth_(depth) {}

 protected:
  pir::GraphBuilder& b_;
  pir::DType dtype_;
  int64_t batch_;
  PatchGrid grid_;
  int64_t video_;  // grid_.tokens()
  int64_t depth_;  // block units to build (DitFamily::Depth)
  // Made by the family's Build: the scalar 1 of Modulate ("scalar.one", in
  // dtype_), and the RoPE table where the family rotates with one.
  pir::ValueId one_ = -1;
  pir::ValueId rope_table_ = -1;
};

// x * (1 + scale) + shift, with `one` the scalar constant 1 in the model
// dtype. Ops: `name.one_plus_scale`, `name.scale`, `name.shift`.
pir::ValueId Modulate(pir::GraphBuilder& b, const std::string& name, pir::ValueId x, pir::ValueId shift,
                      pir::ValueId scale, pir::ValueId one);

// LayerNorm without affine (op `norm`), then Modulate as `modulate`.
pir::ValueId NormModulate(pir::GraphBuilder& b, const std::string& norm, const std::string& modulate, pir::ValueId x,
                          pir::ValueId shift, pir::ValueId scale, pir::ValueId one, double eps);

// residual + x * gate. Ops: `gate_name` (the product), `name` (the sum).
pir::ValueId GatedResidual(pir::GraphBuilder& b, const std::string& name, const std::string& gate_name,
                           pir::ValueId residual, pir::ValueId x, pir::ValueId gate);
// The same with the product named `name.gate`.
pir::ValueId GatedResidual(pir::GraphBuilder& b, const std::string& name, pir::ValueId residual, pir::ValueId x,
                           pir::ValueId gate);

// adaLN: Linear(chunks * width)(SiLU(c)) viewed as c's leading dims +
// [chunks, width] ([B, d] -> [B, chunks, width]; Wan 2.2's per-token
// [B, L, d] -> [B, L, chunks, width]). Ops: silu, linear (with bias), chunks.
struct AdaLnNames {
  std::string silu, linear, chunks;
};
pir::ValueId AdaLnRows(pir::GraphBuilder& b, const AdaLnNames& names, pir::ValueId c, int64_t chunks, int64_t width);

// Row i of rows [B, k, w] along axis 1 as [B, 1, w] (broadcasts over the
// tokens), one slice per name, in order.
std::vector<pir::ValueId> SliceChunks(pir::GraphBuilder& b, pir::ValueId rows, const std::vector<std::string>& names);

// AdaLnRows then SliceChunks: one chunk per name.
std::vector<pir::ValueId> AdaLnModulation(pir::GraphBuilder& b, const AdaLnNames& names, pir::ValueId c,
                                          int64_t width, const std::vector<std::string>& chunk_names);

// PixArt's AdaLayerNormSingle modulation of a block (LTX-Video, Step-Video):
// the block's own table parameter [k, d] plus the shared rows temb [B, k, d]
// (op `add`), sliced into one [B, 1, d] chunk per name.
std::vector<pir::ValueId> ScaleShiftTable(pir::GraphBuilder& b, const std::string& table, const std::string& add,
                                          pir::ValueId temb, pir::DType dtype,
                                          const std::vector<std::string>& chunk_names);

// A norm over the last dim: LayerNorm or RMSNorm, with or without its weight.
struct NormSpec {
  bool rms = false;
  bool affine = false;
  double eps = 1e-6;
};
pir::ValueId Norm(pir::GraphBuilder& b, const NormSpec& spec, const std::string& name, pir::ValueId x);

// PixArt-alpha's adaLN-single transformer block (LTX-Video, Step-Video): one
// table of six chunks (ScaleShiftTable over temb [B, 6, d]: shift_msa,
// scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp), then
//   x += gate_msa * self_attention(norm1(x) * (1 + scale_msa) + shift_msa)
//   x += cross_attention(x)                     (no norm, no modulation, no gate)
//   x += gate_mlp * ff(norm2(x) * (1 + scale_mlp) + shift_mlp), ff a GELU-tanh MLP.
// The attentions are the family's own (their projections differ).
struct AdaLnSingleBlockSpec {
  NormSpec norm;
  int64_t ffn_hidden = 0;
  bool ffn_bias = true;
};
using AttentionFn = std::function<pir::ValueId(pir::ValueId)>;
pir::ValueId AdaLnSingleBlock(pir::GraphBuilder& b, const AdaLnSingleBlockSpec& spec, pir::ValueId x,
                              pir::ValueId temb, pir::ValueId one, pir::DType dtype,
                              const AttentionFn& self_attention, const AttentionFn& cross_attention);
// adaLN-single's output modulation: (shift, scale) = the table [2, d] + emb
// [B, d] (as a row), on LayerNorm(x) without affine (`norm_out`, `modulate_out`).
pir::ValueId AdaLnSingleOut(pir::GraphBuilder& b, pir::ValueId x, pir::ValueId emb, pir::ValueId one,
                            pir::DType dtype, double eps);

// fc2(act(fc1(x))): Linear(hidden), the activation, Linear(out).
struct MlpNames {
  std::string fc1, act, fc2;
};
pir::ValueId Mlp(pir::GraphBuilder& b, const MlpNames& names, pir::ValueId x, int64_t hidden, int64_t out,
                 pir::OpKind act, bool bias = true);

// The timestep embedder: the f32 sinusoid of t [B] (custom op `sinusoid`,
// freq_dim wide), cast to the model dtype (`cast`), then the SiLU MLP
// Linear(width) -> SiLU -> Linear(width).
pir::ValueId TimestepEmbedder(pir::GraphBuilder& b, const std::string& sinusoid, const std::string& cast,
                              const MlpNames& mlp, pir::ValueId t, int64_t freq_dim, int64_t width, pir::DType dtype);

// Patch embedding by convolution, kernel = stride = patch: the latent
// [B, C, T, H, W] cast to dtype (`cast`), Conv3d with `proj.weight`
// [d, C, pt, ph, pw] and `proj.bias` (`proj`), flattened (`flatten`) and
// transposed to tokens [B, L, d] (`to_tokens`). A per-frame Conv2d is the
// kernel (1, ph, pw).
pir::ValueId ConvPatchEmbed(pir::GraphBuilder& b, pir::ValueId latent, pir::DType dtype, int64_t d,
                            const std::array<int64_t, 3>& patch);

// Tokens [B, L, C pt ph pw] back to the latent [B, C, T pt, H ph, W pw]
// (`unpatchify.split`, `.permute`, `.merge`), in the tokens' dtype. The
// token's values are ordered (C, pt, ph, pw) (HunyuanVideo, CogVideoX) or,
// channels_last, (pt, ph, pw, C) (Wan).
pir::ValueId Unpatchify(pir::GraphBuilder& b, pir::ValueId patches, const PatchGrid& grid, int64_t channels,
                        const std::array<int64_t, 3>& patch, bool channels_last);

// Tokens of a spatial patch p (one latent frame each) back to the latent
// [B, C, T, H p, W p] (`prefix.split`, `.permute`, `.merge`), in the tokens'
// dtype. The token's values are ordered (C, p, p) (Open-Sora) or,
// channels_last, (p, p, C) (Mochi).
pir::ValueId UnpatchifySpatial(pir::GraphBuilder& b, const std::string& prefix, pir::ValueId tokens,
                               const PatchGrid& grid, int64_t channels, int64_t patch, bool channels_last);

// Patch-1 tokens [B, L, C] back to the latent [B, C, T, H, W]
// (`prefix.split`, `prefix.permute`), in the tokens' dtype.
pir::ValueId UnpackTokens(pir::GraphBuilder& b, const std::string& prefix, pir::ValueId tokens,
                          const PatchGrid& grid, int64_t channels);

// Splits the heads of [B, L, heads * head_dim] (op `name`).
pir::ValueId SplitHeads(pir::GraphBuilder& b, const std::string& name, pir::ValueId x, int64_t heads,
                        int64_t head_dim);

// Linear(`linear`, heads * head_dim) then its heads as `linear.heads`.
pir::ValueId ProjectHeads(pir::GraphBuilder& b, const std::string& linear, pir::ValueId x, int64_t heads,
                          int64_t head_dim, bool bias = true);

// 3-D RoPE on one side of a joint sequence x [B, N, heads, head_dim] split at
// row `split`: slices `name + lower_suffix` [0, split) and `name +
// upper_suffix` [split, N), rotates the lower (rotate_lower) or the upper rows
// with table (`name_rope`, head-dim sections per axis) and concatenates them
// back in place (`name_cat`). The other rows (text) pass through unrotated.
struct RopeRowsSpec {
  int64_t split = 0;
  bool rotate_lower = true;
  std::string lower_suffix, upper_suffix;
};
pir::ValueId RopeRows(pir::GraphBuilder& b, const std::string& name, pir::ValueId x, pir::ValueId table,
                      const std::vector<int64_t>& sections, const RopeRowsSpec& spec);

// MM-DiT (Flux, HunyuanVideo, Open-Sora 2.0) double-stream block, one
// stream's part after the joint attention: the gated attention residual, then
// the LayerNorm-modulated GELU-tanh MLP and its gated residual. mod is the
// stream's six chunks (shift1, scale1, gate1, shift2, scale2, gate2).
struct StreamTailNames {
  std::string attn_proj, attn_residual, norm2, modulate2;
  MlpNames mlp;
  std::string mlp_residual;
};
pir::ValueId DoubleStreamTail(pir::GraphBuilder& b, const StreamTailNames& names, pir::ValueId x, pir::ValueId attn,
                              const std::vector<pir::ValueId>& mod, pir::ValueId one, int64_t d, int64_t mlp_hidden,
                              double eps);

// The joint attention of an MM-DiT block over q, k, v [B, N, heads, head_dim]
// (op `attn`; joint_tail: the text rows at the rear, if the attention is told),
// its heads merged to [B, N, d] (`attn.merge_heads`).
pir::ValueId AttendMerged(pir::GraphBuilder& b, pir::ValueId q, pir::ValueId k, pir::ValueId v,
                          std::optional<int64_t> joint_tail, int64_t d);
// A double-stream block's attention: each of q, k and v concatenated from the
// two streams' rows along the tokens, first then second (`attn_q`, `attn_k`,
// `attn_v`), then AttendMerged.
pir::ValueId JointAttention(pir::GraphBuilder& b, const std::array<pir::ValueId, 3>& first_qkv,
                            const std::array<pir::ValueId, 3>& second_qkv, std::optional<int64_t> joint_tail,
                            int64_t d);

// MM-DiT single-stream block's output: AttendMerged, the GELU-tanh of the MLP input
// (`mlp_act`), both concatenated (`attn_mlp`) into linear2, the gated
// residual (`residual`).
pir::ValueId SingleStreamOut(pir::GraphBuilder& b, pir::ValueId x, pir::ValueId q, pir::ValueId k, pir::ValueId v,
                             std::optional<int64_t> joint_tail, pir::ValueId mlp_in, pir::ValueId gate, int64_t d);

}  // namespace az::zoo::blocks
