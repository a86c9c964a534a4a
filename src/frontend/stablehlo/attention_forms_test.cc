// The attention forms frameworks emit, folded into PIR attention with the
// mask kind kept (frontend/import/fold.h): causal and sliding-window masks
// from iotas (select, additive, negated), arbitrary boolean and additive
// masks, grouped- and multi-query K/V, the fully-masked-row guard; the real
// Llama prefill exports in ../shared/data/stablehlo; and what `inspect`
// lists as unknown (frontend/import/unknown_ops.h).
#include <gtest/gtest.h>

#include "frontend/import/unknown_ops.h"
#include "frontend/stablehlo/import.h"
#include "pir/analysis/summary.h"
#include "support/test_files.h"

namespace az::frontend {
namespace {

// A tiny attention: x [1, 8, 64], 4 query heads of 16, `kv` K/V heads
// (repeated as jnp.repeat writes it when kv < 4), the scores [1, 4, 8, 8]
// masked by `mask` (text defining %m from %s; %neg is -inf, %zero 0, %mask
// an input i1[8, 8], %bias an input f32[1, 1, 8, 8]).
std::string Program(int kv, const std::string& mask) {
  const std::string kvw = std::to_string(kv * 16), kvs = std::to_string(kv), g = std::to_string(4 / kv);
  std::string repeat_k = "%k = stablehlo.reshape %k0 : (tensor<1x8x" + kvw + "xf32>) -> tensor<1x8x4x16xf32>\n";
  std::string repeat_v = "%v = stablehlo.reshape %v0 : (tensor<1x8x" + kvw + "xf32>) -> tensor<1x8x4x16xf32>\n";
  if (kv < 4) {
    repeat_k = "%k1 = stablehlo.reshape %k0 : (tensor<1x8x" + kvw + "xf32>) -> tensor<1x8x" + kvs + "x16xf32>\n" +
               "%k2 = stablehlo.broadcast_in_dim %k1, dims = [0, 1, 2, 4] : (tensor<1x8x" + kvs +
               "x16xf32>) -> tensor<1x8x" + kvs + "x" + g + "x16xf32>\n" + "%k = stablehlo.reshape %k2 : (tensor<1x8x" +
               kvs + "x" + g + "x16xf32>) -> tensor<1x8x4x16xf32>\n";
    repeat_v = "%v1 = stablehlo.reshape %v0 : (tensor<1x8x" + kvw + "xf32>) -> tensor<1x8x" + kvs + "x16xf32>\n" +
               "%v2 = stablehlo.broadcast_in_dim %v1, dims = [0, 1, 2, 4] : (tensor<1x8x" + kvs +
               "x16xf32>) -> tensor<1x8x" + kvs + "x" + g + "x16xf32>\n" + "%v = stablehlo.reshape %v2 : (tensor<1x8x" +
               kvs + "x" + g + "x16xf32>) -> tensor<1x8x4x16xf32>\n";
  }
  return "module @m {\n"
         "func.func public @main(%x: tensor<1x8x64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<64x" + kvw +
         "xf32>, %wv: tensor<64x" + kvw + "xf32>, %mask: tensor<8x8xi1>, %bias: tensor<1x1x8x8xf32>) -> tensor<1x4x8x16xf32> {\n"
         "%q0 = stablehlo.dot_general %x, %wq, contracting_dims = [2] x [0] : (tensor<1x8x64xf32>, tensor<64x64xf32>) -> tensor<1x8x64xf32>\n"
         "%q = stablehlo.reshape %q0 : (tensor<1x8x64xf32>) -> tensor<1x8x4x16xf32>\n"
         "%k0 = stablehlo.dot_general %x, %wk, contracting_dims = [2] x [0] : (tensor<1x8x64xf32>, tensor<64x" + kvw +
         "xf32>) -> tensor<1x8x" + kvw + "xf32>\n" + repeat_k +
         "%v0 = stablehlo.dot_general %x, %wv, contracting_dims = [2] x [0] : (tensor<1x8x64xf32>, tensor<64x" + kvw +
         "xf32>) -> tensor<1x8x" + kvw + "xf32>\n" + repeat_v +
         "%s = stablehlo.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : "
         "(tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>) -> tensor<1x4x8x8xf32>\n"
         "%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "%neg = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> tensor<1x4x8x8xf32>\n"
         "%z = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
         "%zero = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<1x4x8x8xf32>\n"
         "%i = stablehlo.iota dim = 0 : tensor<8x8xi32>\n"
         "%j = stablehlo.iota dim = 1 : tensor<8x8xi32>\n" +
         mask +
         "%mx = stablehlo.reduce(%m init: %ninf) applies stablehlo.maximum across dimensions = [3] : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>\n"
         "%mxb = stablehlo.broadcast_in_dim %mx, dims = [0, 1, 2] : (tensor<1x4x8xf32>) -> tensor<1x4x8x8xf32>\n"
         "%sh = stablehlo.subtract %m, %mxb : tensor<1x4x8x8xf32>\n"
         "%e = stablehlo.exponential %sh : tensor<1x4x8x8xf32>\n"
         "%sum = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [3] : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>\n"
         "%sumb = stablehlo.broadcast_in_dim %sum, dims = [0, 1, 2] : (tensor<1x4x8xf32>) -> tensor<1x4x8x8xf32>\n"
         "%p = stablehlo.divide %e, %sumb : tensor<1x4x8x8xf32>\n"
         "%o = stablehlo.dot_general %p, %v, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1] : "
         "(tensor<1x4x8x8xf32>, tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>\n"
         "return %o : tensor<1x4x8x16xf32>\n}\n}\n";
}

const std::string kCausal =  // jnp.tril: keep j <= i
    "%c = stablehlo.compare GE, %i, %j, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>\n"
    "%cb = stablehlo.broadcast_in_dim %c, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<1x4x8x8xi1>\n";

struct Folded {
  int attention = 0, custom = 0;
  std::string mask, mask_operand;
  int64_t window = 0, heads = 0, kv_heads = 0;
  pir::Shape mask_shape;
  Flops attention_flops;
  size_t unfolded = 0;
};

Folded Fold(const std::string& text) {
  Folded f;
  auto program = ImportStableHlo(text, "forms.mlir", ImportOptions{});
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  if (!program.ok()) return f;
  const pir::Graph& g = program->graph;
  for (const pir::Op& op : g.ops()) {
    f.custom += op.kind == pir::OpKind::kCustom;
    if (op.kind != pir::OpKind::kAttention) continue;
    ++f.attention;
    f.mask = op.attrs.GetString("mask").value_or("none");
    f.mask_operand = op.attrs.GetString("mask_operand").value_or("");
    f.window = op.attrs.GetInt("window").value_or(0);
    f.heads = g.type(op.operands[0]).shape[2];
    f.kv_heads = g.type(op.operands[1]).shape[2];
    if (op.operands.size() == 4) f.mask_shape = g.type(op.operands[3]).shape;
  }
  f.attention_flops = pir::SummarizeGraph(g).cost.attention;
  f.unfolded = FindUnknownOps(g).unfolded_attention.size();
  return f;
}

TEST(AttentionForms, CausalSelectWithGroupedQuery) {
  Folded f = Fold(Program(2, kCausal + "%m = stablehlo.select %cb, %s, %neg : tensor<1x4x8x8xi1>, tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(f.attention, 1);
  EXPECT_EQ(f.custom, 0);
  EXPECT_EQ(f.mask, "causal");
  EXPECT_EQ(f.heads, 4);
  EXPECT_EQ(f.kv_heads, 2);
  // 4 * B * H * L (L + 1) / 2 * D = 4 * 1 * 4 * 36 * 16 = 9,216.
  EXPECT_EQ(f.attention_flops.value(), 9216);
  EXPECT_EQ(f.unfolded, 0u);
}

TEST(AttentionForms, MultiQuery) {
  Folded f = Fold(Program(1, kCausal + "%m = stablehlo.select %cb, %s, %neg : tensor<1x4x8x8xi1>, tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(f.attention, 1);
  EXPECT_EQ(f.kv_heads, 1);
  EXPECT_EQ(f.heads, 4);
}

TEST(AttentionForms, AdditiveCausalMask) {
  // scores + where(i >= j, 0, -inf), as torch's is_causal math path writes it.
  Folded f = Fold(Program(4, kCausal +
                                 "%add = stablehlo.select %cb, %zero, %neg : tensor<1x4x8x8xi1>, tensor<1x4x8x8xf32>\n"
                                 "%m = stablehlo.add %s, %add : tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(f.attention, 1);
  EXPECT_EQ(f.mask, "causal");
  EXPECT_EQ(f.kv_heads, 4);
}

TEST(AttentionForms, NegatedMaskDropsWhereTrue) {
  // where(not(i >= j), -inf, s): the same causal mask, written through stablehlo.not.
  Folded f = Fold(Program(4, kCausal +
                                 "%nc = stablehlo.not %cb : tensor<1x4x8x8xi1>\n"
                                 "%m = stablehlo.select %nc, %neg, %s : tensor<1x4x8x8xi1>, tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(f.attention, 1);
  EXPECT_EQ(f.custom, 0);
  EXPECT_EQ(f.mask, "causal");
}

TEST(AttentionForms, SlidingWindow) {
  // keep j <= i and i - j < 3: a window of 3 keys.
  Folded f = Fold(Program(
      4, "%c = stablehlo.compare GE, %i, %j, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>\n"
         "%d = stablehlo.subtract %i, %j : tensor<8x8xi32>\n"
         "%w0 = stablehlo.constant dense<3> : tensor<i32>\n"
         "%w = stablehlo.broadcast_in_dim %w0, dims = [] : (tensor<i32>) -> tensor<8x8xi32>\n"
         "%in = stablehlo.compare LT, %d, %w, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>\n"
         "%both = stablehlo.and %c, %in : tensor<8x8xi1>\n"
         "%cb = stablehlo.broadcast_in_dim %both, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<1x4x8x8xi1>\n"
         "%m = stablehlo.select %cb, %s, %neg : tensor<1x4x8x8xi1>, tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(f.attention, 1);
  EXPECT_EQ(f.mask, "window");
  EXPECT_EQ(f.window, 3);
  // Kept per head: 3 * 4 / 2 + (8 - 3) * 3 = 21; 4 * 4 * 21 * 16 = 5,376.
  EXPECT_EQ(f.attention_flops.value(), 5376);
}

TEST(AttentionForms, ArbitraryBooleanAndAdditiveMasksStayTensors) {
  Folded keep = Fold(Program(
      4, "%cb = stablehlo.broadcast_in_dim %mask, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<1x4x8x8xi1>\n"
         "%m = stablehlo.select %cb, %s, %neg : tensor<1x4x8x8xi1>, tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(keep.attention, 1);
  EXPECT_EQ(keep.mask, "tensor");
  EXPECT_EQ(keep.mask_operand, "keep");
  // The mask before its broadcast: [1, 1, 8, 8], not [1, 4, 8, 8].
  EXPECT_EQ(keep.mask_shape, (pir::Shape{1, 1, 8, 8}));
  // A mask tensor skips nothing: 4 * 4 * 64 * 16 = 16,384.
  EXPECT_EQ(keep.attention_flops.value(), 16384);
  Folded bias = Fold(Program(
      4, "%bb = stablehlo.broadcast_in_dim %bias, dims = [0, 1, 2, 3] : (tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32>\n"
         "%m = stablehlo.add %s, %bb : tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(bias.attention, 1);
  EXPECT_EQ(bias.mask, "tensor");
  EXPECT_EQ(bias.mask_operand, "add");
  EXPECT_EQ(bias.mask_shape, (pir::Shape{1, 1, 8, 8}));
}

TEST(AttentionForms, AReplacementThatIsNoMaskIsNotFoldedAndIsReported) {
  // where(c, s, 0): zeros are no mask (a softmax over them still weighs those
  // keys), so attention is not folded, and `inspect` says so.
  Folded f = Fold(Program(4, kCausal + "%m = stablehlo.select %cb, %s, %zero : tensor<1x4x8x8xi1>, tensor<1x4x8x8xf32>\n"));
  EXPECT_EQ(f.attention, 0);
  EXPECT_EQ(f.unfolded, 1u);
}

TEST(AttentionForms, CausalGqaBlockExport) {
  const std::string path = std::string(AZ_SOURCE_DIR) + "/tests/data/stablehlo/llama_causal_gqa_block.mlir";
  auto program = ImportStableHloFile(path, ImportOptions{});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  const pir::GraphSummary s = pir::SummarizeGraph(program->graph);
  // Attention: 4 * B * H * L (L + 1) / 2 * D = 4 * 16 * (512 * 513 / 2 = 131,328) * 64.
  EXPECT_EQ(s.cost.attention.value(), int64_t{4} * 16 * 131328 * 64);
  // Linears: q and o 2 * 512 * 1024 * 1024 each, k and v 2 * 512 * 1024 * 512 each.
  EXPECT_EQ(s.cost.matmul.value(), int64_t{2} * 2 * 512 * 1024 * 1024 + int64_t{2} * 2 * 512 * 1024 * 512);
  EXPECT_TRUE(FindUnknownOps(program->graph).custom.empty());
}

// The shared Llama prefill exports (torch-xla, a 1x1xLxL additive mask input,
// GQA by broadcast + reshape, the fully-masked-row guard with stablehlo.not
// and an or-reduce): one attention, 32 query heads over 8 K/V heads, the mask
// a tensor operand read before its broadcast, nothing left as custom.
TEST(AttentionForms, SharedLlamaPrefillExports) {
  for (const char* name : {"stablehlo/sdy_llama_attn_prefill_auto.mlir", "stablehlo/sdy_llama_attn_prefill_manual.mlir"}) {
    SCOPED_TRACE(name);
    AZ_REQUIRE_SHARED_DATA(path, name);
    auto program = ImportStableHloFile(path, ImportOptions{});
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    EXPECT_TRUE(program->warnings.empty()) << program->warnings.front();
    const pir::Graph& g = program->graph;
    int attention = 0;
    for (const pir::Op& op : g.ops()) {
      EXPECT_NE(op.kind, pir::OpKind::kCustom) << op.name;
      if (op.kind != pir::OpKind::kAttention) continue;
      ++attention;
      EXPECT_EQ(g.type(op.operands[0]).shape, (pir::Shape{1, 1024, 32, 64}));
      EXPECT_EQ(g.type(op.operands[1]).shape, (pir::Shape{1, 1024, 8, 64}));
      EXPECT_EQ(op.attrs.GetString("mask").value_or(""), "tensor");
      ASSERT_EQ(op.operands.size(), 4u);
      EXPECT_EQ(g.type(op.operands[3]).shape, (pir::Shape{1, 1, 1024, 1024}));
    }
    EXPECT_EQ(attention, 1);
    // 4 * 32 heads * 1024^2 * 64 (a mask tensor computes every score).
    EXPECT_EQ(pir::SummarizeGraph(g).cost.attention.value(), int64_t{4} * 32 * 1024 * 1024 * 64);
    EXPECT_TRUE(FindUnknownOps(g).unfolded_attention.empty());
  }
}

TEST(UnknownOps, CustomOpsAreListedAndUnpricedOnesWarned) {
  // An FFT is no PIR op: imported as custom, listed with its shape, unpriced,
  // and, moving most of the program's bytes, warned about.
  const std::string text =
      "module @m {\n"
      "func.func public @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {\n"
      "%f = stablehlo.fft %x, type = FFT, length = [64] : (tensor<64x64xf32>) -> tensor<64x64xf32>\n"
      "%y = stablehlo.dot_general %f, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>\n"
      "return %y : tensor<64x64xf32>\n}\n}\n";
  auto program = ImportStableHlo(text, "fft.mlir", ImportOptions{});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  UnknownOps unknown = FindUnknownOps(program->graph);
  ASSERT_EQ(unknown.custom.size(), 1u);
  EXPECT_EQ(unknown.custom[0].count, 1);
  EXPECT_FALSE(unknown.custom[0].priced);
  EXPECT_EQ(unknown.custom[0].shapes, std::vector<std::string>{"(f32[64,64]) -> f32[64,64]"});
  // The FFT reads and writes 16 KiB each; the einsum reads 32 KiB and writes 16 KiB.
  EXPECT_EQ(unknown.unpriced_bytes.value(), 32768);
  EXPECT_EQ(unknown.program_bytes.value(), 32768 + 49152);
  // 32 KiB of 80 KiB: over 1%, so `plan` warns (tools/aoizora: ResolveProgram).
  EXPECT_EQ(UnpricedWarning(unknown),
            "unpriced custom ops (1: fft) move 32.00 KiB, 40.0% of the program's 80.00 KiB: their compute is missing "
            "from every latency (aoizora inspect lists them)");
  // Under 1%: no warning.
  unknown.program_bytes = Bytes(unknown.unpriced_bytes.value() * 101);
  EXPECT_EQ(UnpricedWarning(unknown), "");
}

}  // namespace
}  // namespace az::frontend
