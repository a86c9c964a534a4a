// The zoo's shared building blocks (blocks.h). One statement per op: the op
// order is the graph's, and it must not depend on the order in which the
// compiler evaluates call arguments.
#include "frontend/zoo/blocks.h"

#include <utility>

namespace az::zoo::blocks {

ValueId Modulate(GraphBuilder& b, const std::string& name, ValueId x, ValueId shift, ValueId scale, ValueId one) {
  ValueId factor = b.Binary(OpKind::kAdd, name + ".one_plus_scale", scale, one);
  ValueId scaled = b.Binary(OpKind::kMul, name + ".scale", x, factor);
  return b.Binary(OpKind::kAdd, name + ".shift", scaled, shift);
}

ValueId NormModulate(GraphBuilder& b, const std::string& norm, const std::string& modulate, ValueId x, ValueId shift,
                     ValueId scale, ValueId one, double eps) {
  ValueId h = b.LayerNorm(norm, x, /*affine=*/false, eps);
  return Modulate(b, modulate, h, shift, scale, one);
}

ValueId GatedResidual(GraphBuilder& b, const std::string& name, const std::string& gate_name, ValueId residual,
                      ValueId x, ValueId gate) {
  ValueId gated = b.Binary(OpKind::kMul, gate_name, x, gate);
  return b.Binary(OpKind::kAdd, name, residual, gated);
}

ValueId GatedResidual(GraphBuilder& b, const std::string& name, ValueId residual, ValueId x, ValueId gate) {
  return GatedResidual(b, name, name + ".gate", residual, x, gate);
}

ValueId AdaLnRows(GraphBuilder& b, const AdaLnNames& names, ValueId c, int64_t chunks, int64_t width) {
  ValueId act = b.Unary(OpKind::kSilu, names.silu, c);
  ValueId mod = b.Linear(names.linear, act, chunks * width);
  Shape rows = b.type(c).shape;
  rows.back() = chunks;
  rows.push_back(width);
  return b.Reshape(names.chunks, mod, rows);
}

std::vector<ValueId> SliceChunks(GraphBuilder& b, ValueId rows, const std::vector<std::string>& names) {
  std::vector<ValueId> out;
  for (int64_t i = 0; i < static_cast<int64_t>(names.size()); ++i) {
    out.push_back(b.SliceAxis(names[i], rows, 1, i, i + 1));
  }
  return out;
}

std::vector<ValueId> AdaLnModulation(GraphBuilder& b, const AdaLnNames& names, ValueId c, int64_t width,
                                     const std::vector<std::string>& chunk_names) {
  ValueId rows = AdaLnRows(b, names, c, static_cast<int64_t>(chunk_names.size()), width);
  return SliceChunks(b, rows, chunk_names);
}

std::vector<ValueId> ScaleShiftTable(GraphBuilder& b, const std::string& table, const std::string& add, ValueId temb,
                                     DType dtype, const std::vector<std::string>& chunk_names) {
  const int64_t width = b.type(temb).shape.back();
  ValueId param = b.Param(table, dtype, {static_cast<int64_t>(chunk_names.size()), width});
  ValueId sum = b.Binary(OpKind::kAdd, add, param, temb);
  return SliceChunks(b, sum, chunk_names);
}

ValueId Norm(GraphBuilder& b, const NormSpec& spec, const std::string& name, ValueId x) {
  return spec.rms ? b.RmsNorm(name, x, spec.affine, spec.eps) : b.LayerNorm(name, x, spec.affine, spec.eps);
}

ValueId AdaLnSingleBlock(GraphBuilder& b, const AdaLnSingleBlockSpec& spec, ValueId x, ValueId temb, ValueId one,
                         DType dtype, const AttentionFn& self_attention, const AttentionFn& cross_attention) {
  const int64_t d = b.type(x).shape.back();
  std::vector<ValueId> chunk =
      ScaleShiftTable(b, "scale_shift_table", "modulation", temb, dtype,
                      {"shift_msa", "scale_msa", "gate_msa", "shift_mlp", "scale_mlp", "gate_mlp"});
  ValueId n1 = Norm(b, spec.norm, "norm1", x);
  ValueId attn_in = Modulate(b, "modulate_msa", n1, chunk[0], chunk[1], one);
  ValueId attn = self_attention(attn_in);
  x = GatedResidual(b, "attn1_residual", "attn1_gate", x, attn, chunk[2]);
  ValueId cross = cross_attention(x);
  x = b.Binary(OpKind::kAdd, "attn2_residual", x, cross);
  ValueId n2 = Norm(b, spec.norm, "norm2", x);
  ValueId ff_in = Modulate(b, "modulate_mlp", n2, chunk[3], chunk[4], one);
  ValueId ff_out = Mlp(b, {"ff.net.0.proj", "ff.net.0.act", "ff.net.2"}, ff_in, spec.ffn_hidden, d,
                       OpKind::kGeluTanh, spec.ffn_bias);
  return GatedResidual(b, "ff_residual", "ff_gate", x, ff_out, chunk[5]);
}

ValueId AdaLnSingleOut(GraphBuilder& b, ValueId x, ValueId emb, ValueId one, DType dtype, double eps) {
  const Shape shape = b.type(emb).shape;  // [B, d]
  ValueId emb_row = b.Reshape("emb_row", emb, {shape[0], 1, shape[1]});
  std::vector<ValueId> mod = ScaleShiftTable(b, "scale_shift_table", "modulation", emb_row, dtype, {"shift", "scale"});
  return NormModulate(b, "norm_out", "modulate_out", x, mod[0], mod[1], one, eps);
}

ValueId Mlp(GraphBuilder& b, const MlpNames& names, ValueId x, int64_t hidden, int64_t out, OpKind act, bool bias) {
  ValueId h = b.Linear(names.fc1, x, hidden, bias);
  ValueId a = b.Unary(act, names.act, h);
  return b.Linear(names.fc2, a, out, bias);
}

ValueId TimestepEmbedder(GraphBuilder& b, const std::string& sinusoid, const std::string& cast, const MlpNames& mlp,
                         ValueId t, int64_t freq_dim, int64_t width, DType dtype) {
  const int64_t batch = b.type(t).shape[0];
  ValueId freq = b.Custom(sinusoid, "sinusoidal_embedding", {t}, TensorType{DType::kF32, {batch, freq_dim}});
  ValueId x = b.CastTo(cast, freq, dtype);
  return Mlp(b, mlp, x, width, width, OpKind::kSilu);
}

ValueId ConvPatchEmbed(GraphBuilder& b, ValueId latent, DType dtype, int64_t d, const std::array<int64_t, 3>& patch) {
  const Shape shape = b.type(latent).shape;  // [B, C, T, H, W]
  ValueId x = b.CastTo("cast", latent, dtype);
  ValueId weight = b.Param("proj.weight", dtype, {d, shape[1], patch[0], patch[1], patch[2]});
  ValueId bias = b.Param("proj.bias", dtype, {d});
  Attributes attrs;
  attrs.Set("stride", std::vector<int64_t>(patch.begin(), patch.end()));
  ValueId conv = b.AddOp1(OpKind::kConv3d, "proj", {x, weight, bias}, std::move(attrs));
  const Shape grid = b.type(conv).shape;  // [B, d, T', H', W']
  ValueId flat = b.Reshape("flatten", conv, {shape[0], d, grid[2] * grid[3] * grid[4]});
  return b.Transpose("to_tokens", flat, {0, 2, 1});
}

ValueId Unpatchify(GraphBuilder& b, ValueId patches, const PatchGrid& grid, int64_t channels,
                   const std::array<int64_t, 3>& patch, bool channels_last) {
  const int64_t batch = b.type(patches).shape[0];
  const auto [pt, ph, pw] = patch;
  // [B, T, H, W, <values>] -> [B, C, T, pt, H, ph, W, pw] -> [B, C, T pt, H ph, W pw].
  const Shape split = channels_last ? Shape{batch, grid.frames, grid.rows, grid.cols, pt, ph, pw, channels}
                                    : Shape{batch, grid.frames, grid.rows, grid.cols, channels, pt, ph, pw};
  const std::vector<int64_t> perm = channels_last ? std::vector<int64_t>{0, 7, 1, 4, 2, 5, 3, 6}
                                                  : std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7};
  ValueId values = b.Reshape("unpatchify.split", patches, split);
  ValueId moved = b.Transpose("unpatchify.permute", values, perm);
  return b.Reshape("unpatchify.merge", moved, {batch, channels, grid.frames * pt, grid.rows * ph, grid.cols * pw});
}

ValueId UnpatchifySpatial(GraphBuilder& b, const std::string& prefix, ValueId tokens, const PatchGrid& grid,
                          int64_t channels, int64_t patch, bool channels_last) {
  const int64_t batch = b.type(tokens).shape[0];
  // [B, T, H, W, <values>] -> [B, C, T, H, p, W, p] -> [B, C, T, H p, W p].
  const Shape split = channels_last ? Shape{batch, grid.frames, grid.rows, grid.cols, patch, patch, channels}
                                    : Shape{batch, grid.frames, grid.rows, grid.cols, channels, patch, patch};
  const std::vector<int64_t> perm = channels_last ? std::vector<int64_t>{0, 6, 1, 2, 4, 3, 5}
                                                  : std::vector<int64_t>{0, 4, 1, 2, 5, 3, 6};
  ValueId values = b.Reshape(prefix + ".split", tokens, split);
  ValueId moved = b.Transpose(prefix + ".permute", values, perm);
  return b.Reshape(prefix + ".merge", moved, {batch, channels, grid.frames, grid.rows * patch, grid.cols * patch});
}

ValueId UnpackTokens(GraphBuilder& b, const std::string& prefix, ValueId tokens, const PatchGrid& grid,
                     int64_t channels) {
  const int64_t batch = b.type(tokens).shape[0];
  ValueId split = b.Reshape(prefix + ".split", tokens, {batch, grid.frames, grid.rows, grid.cols, channels});
  return b.Transpose(prefix + ".permute", split, {0, 4, 1, 2, 3});
}

ValueId SplitHeads(GraphBuilder& b, const std::string& name, ValueId x, int64_t heads, int64_t head_dim) {
  const Shape shape = b.type(x).shape;
  return b.Reshape(name, x, {shape[0], shape[1], heads, head_dim});
}

ValueId ProjectHeads(GraphBuilder& b, const std::string& linear, ValueId x, int64_t heads, int64_t head_dim,
                     bool bias) {
  ValueId projected = b.Linear(linear, x, heads * head_dim, bias);
  return SplitHeads(b, linear + ".heads", projected, heads, head_dim);
}

ValueId RopeRows(GraphBuilder& b, const std::string& name, ValueId x, ValueId table,
                 const std::vector<int64_t>& sections, const RopeRowsSpec& spec) {
  const int64_t rows = b.type(x).shape[1];
  ValueId lower = b.SliceAxis(name + spec.lower_suffix, x, 1, 0, spec.split);
  ValueId upper = b.SliceAxis(name + spec.upper_suffix, x, 1, spec.split, rows);
  ValueId& rotated = spec.rotate_lower ? lower : upper;
  rotated = b.Rope(name + "_rope", rotated, table, sections);
  return b.Concat(name + "_cat", {lower, upper}, 1);
}

ValueId DoubleStreamTail(GraphBuilder& b, const StreamTailNames& names, ValueId x, ValueId attn,
                         const std::vector<ValueId>& mod, ValueId one, int64_t d, int64_t mlp_hidden, double eps) {
  ValueId proj = b.Linear(names.attn_proj, attn, d);
  x = GatedResidual(b, names.attn_residual, x, proj, mod[2]);
  ValueId h = NormModulate(b, names.norm2, names.modulate2, x, mod[3], mod[4], one, eps);
  ValueId mlp = Mlp(b, names.mlp, h, mlp_hidden, d, OpKind::kGeluTanh);
  return GatedResidual(b, names.mlp_residual, x, mlp, mod[5]);
}

ValueId AttendMerged(GraphBuilder& b, ValueId q, ValueId k, ValueId v, std::optional<int64_t> joint_tail, int64_t d) {
  const Shape shape = b.type(q).shape;  // [B, N, heads, head_dim]; a copy: new values move the types
  ValueId attn = b.Attention("attn", q, k, v, "joint", joint_tail);
  return b.Reshape("attn.merge_heads", attn, {shape[0], shape[1], d});
}

ValueId JointAttention(GraphBuilder& b, const std::array<ValueId, 3>& first_qkv,
                       const std::array<ValueId, 3>& second_qkv, std::optional<int64_t> joint_tail, int64_t d) {
  ValueId q = b.Concat("attn_q", {first_qkv[0], second_qkv[0]}, 1);
  ValueId k = b.Concat("attn_k", {first_qkv[1], second_qkv[1]}, 1);
  ValueId v = b.Concat("attn_v", {first_qkv[2], second_qkv[2]}, 1);
  return AttendMerged(b, q, k, v, joint_tail, d);
}

ValueId SingleStreamOut(GraphBuilder& b, ValueId x, ValueId q, ValueId k, ValueId v,
                        std::optional<int64_t> joint_tail, ValueId mlp_in, ValueId gate, int64_t d) {
  ValueId merged = AttendMerged(b, q, k, v, joint_tail, d);
  ValueId mlp_out = b.Unary(OpKind::kGeluTanh, "mlp_act", mlp_in);
  ValueId joined = b.Concat("attn_mlp", {merged, mlp_out}, 2);
  ValueId out = b.Linear("linear2", joined, d);
  return GatedResidual(b, "residual", x, out, gate);
}

}  // namespace az::zoo::blocks
