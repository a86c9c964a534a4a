// Masked and grouped-query attention as torch.onnx.export writes it, folded
// into one PIR attention with its mask kind and K/V heads (fold_attention.cc):
//   - the Llama-style blocks Debian's PyTorch 1.13 exported at opsets 14 and 17
//     (tests/data/onnx/export_attention.py; README.md there says how);
//   - the form PyTorch 2.x's `scaled_dot_product_attention` symbolic writes at
//     opset 14 (torch/onnx/symbolic_opset14.py), which PyTorch 1.13 lacks, so
//     it is written here node for node: Q and K^T each scaled by sqrt(scale),
//     the causal mask Where(Equal(Trilu(Expand(1.0, [L, S])), 0), -inf, 0)
//     added to the scores, a boolean attn_mask turned into Where(m, 0, -inf);
//   - constant masks (a buffer initializer, a Constant node), read from their
//     values at import (constant_band.h), and the other K/V repeats (Gather
//     with repeat_interleave's indices, Tile).
//
// FLOPs (pir/rules/cost.h): an einsum is 2 * prod(factor sizes); attention is
// 4 * B * H * S * Dh with S the kept scores of one head: Lq * Lk unmasked or
// with a mask tensor, L * (L + 1) / 2 causal (the kernel skips the masked
// half; attention_mask.h), the band's scores for a window. H counts query
// heads: grouped K/V heads change bytes, not FLOPs.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "frontend/onnx/import.h"
#include "frontend/onnx/onnx_test_writer.h"
#include "pir/rules/cost.h"
#include "support/test_files.h"

namespace az::frontend {
namespace {

using onnx::testing::AttrFloat;
using onnx::testing::AttrInt;
using onnx::testing::AttrInts;
using onnx::testing::AttrTensor;
using onnx::testing::CountOps;
using onnx::testing::FloatTensor;
using onnx::testing::kBool;
using onnx::testing::kFloat;
using onnx::testing::kInt64;
using onnx::testing::OnnxBuilder;
using onnx::testing::ParamCount;
using onnx::testing::ProtoWriter;
using onnx::testing::Tensor;

std::string DataFile(const std::string& name) { return std::string(AZ_SOURCE_DIR) + "/tests/data/onnx/" + name; }

// The one attention op of `g`; a test failure when there is none or several.
const pir::Op* OnlyAttention(const pir::Graph& g) {
  const pir::Op* found = nullptr;
  for (const pir::Op& op : g.ops()) {
    if (op.kind != pir::OpKind::kAttention) continue;
    EXPECT_EQ(found, nullptr) << "more than one attention";
    found = &op;
  }
  EXPECT_NE(found, nullptr) << "no attention folded";
  return found;
}

// The K/V heads of an attention: K is [batch, kv length, kv heads, head dim].
int64_t KvHeads(const pir::Graph& g, const pir::Op& attention) { return g.type(attention.operands[1]).shape[2]; }

// A tensor of `dims` with int64 `values` given as bool (one byte each) or float.
ProtoWriter ValuesTensor(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims,
                         const std::vector<float>& values) {
  if (elem_type == kFloat) return FloatTensor(name, dims, values);
  ProtoWriter t;
  for (int64_t d : dims) t.Int(1, d);
  t.Int(2, elem_type);
  if (!name.empty()) t.Bytes(8, name);
  std::string raw;
  for (float v : values) raw += static_cast<char>(v != 0 ? 1 : 0);
  t.Bytes(9, raw);
  return t;
}

// keep(i, j) over an L x L matrix as 1/0, or as 0/-inf with `additive`.
std::vector<float> MaskValues(int64_t l, bool additive, const std::function<bool(int64_t, int64_t)>& keep) {
  std::vector<float> out;
  for (int64_t i = 0; i < l; ++i) {
    for (int64_t j = 0; j < l; ++j) {
      const bool k = keep(i, j);
      out.push_back(additive ? (k ? 0.0f : -std::numeric_limits<float>::infinity()) : (k ? 1.0f : 0.0f));
    }
  }
  return out;
}

// ---------------------------------------------------------------- PyTorch's exports

struct ExportCase {
  const char* file;
  int64_t seq;           // the sequence length the test binds (the static files: 16)
  int64_t kv_heads;
  int64_t parameters;
  int64_t matmul_flops;
  int64_t attention_flops;
};

// Every block: x [1, L, 64], 8 query heads of 8 dims, causal.
//   parameters: RMSNorm 64 + q, o 64 x 64 each + k, v 64 x (8 * K/V heads) each:
//     8 K/V heads 64 + 4 * 4096 = 16,448; 2 K/V heads 64 + 2 * 4096 + 2 * 1024 = 10,304.
//   matmul FLOPs: q, o 2 * L * 64 * 64 each, k, v 2 * L * 64 * (8 * Hkv) each:
//     L = 16, Hkv = 8: 4 * 131,072 = 524,288; Hkv = 2: 2 * 131,072 + 2 * 32,768 = 327,680;
//     L = 128, Hkv = 8: 4 * 1,048,576 = 4,194,304.
//   attention FLOPs: 4 * B 1 * H 8 * S * Dh 8 with S = L (L + 1) / 2 causal:
//     L = 16: S = 136, 34,816; L = 128: S = 8,256, 2,113,536.
const ExportCase kExports[] = {
    {"llama_causal_op14.onnx", 16, 8, 16448, 524288, 34816},
    {"llama_causal_op17_dynamic.onnx", 16, 8, 16448, 524288, 34816},
    // seq 128: the mask, ConstantOfShape(-inf) [128, 128] -> Trilu, is too large to fold as
    // values (16,384 > 4,096 elements): it stays a splat constant and Trilu makes it a band.
    {"llama_causal_op17_dynamic.onnx", 128, 8, 16448, 4194304, 2113536},
    {"llama_gqa_op14.onnx", 16, 2, 10304, 327680, 34816},
    {"llama_gqa_op17.onnx", 16, 2, 10304, 327680, 34816},
    {"llama_gqa_repeat_kv_op17.onnx", 16, 2, 10304, 327680, 34816},
};

TEST(OnnxAttentionExports, TorchBlocksFoldIntoOneCausalAttention) {
  for (const ExportCase& c : kExports) {
    SCOPED_TRACE(std::string(c.file) + " seq " + std::to_string(c.seq));
    ImportOptions options;
    options.dims["seq"] = c.seq;
    auto p = ImportOnnxFile(DataFile(c.file), options);
    ASSERT_TRUE(p.ok()) << p.status().message();
    const pir::Graph& g = p->graph;
    EXPECT_TRUE(p->warnings.empty()) << p->warnings[0];
    EXPECT_EQ(CountOps(g, pir::OpKind::kCustom), 0);
    const pir::Op* attention = OnlyAttention(g);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->attrs.GetString("mask"), "causal");
    EXPECT_EQ(attention->operands.size(), 3u);  // no mask tensor operand
    EXPECT_EQ(KvHeads(g, *attention), c.kv_heads);
    EXPECT_EQ(g.type(attention->operands[0]).ToString(), "f32[1," + std::to_string(c.seq) + ",8,8]");
    EXPECT_EQ(ParamCount(g), c.parameters);
    const pir::OpCost cost = pir::ComputeGraphCost(g);
    EXPECT_EQ(cost.matmul.value(), c.matmul_flops);
    EXPECT_EQ(cost.attention.value(), c.attention_flops);
    // The mask buffer is no parameter, and nothing of the mask survives the fold.
    EXPECT_EQ(CountOps(g, pir::OpKind::kWhere), 0);
    EXPECT_EQ(CountOps(g, pir::OpKind::kCompare), 0);
  }
}

// ---------------------------------------------------------------- scaled_dot_product_attention, opset 14

enum class SdpaMask { kCausal, kBoolInput, kFloatInput };

// scaled_dot_product_attention(q, k, v, attn_mask, is_causal) as
// symbolic_opset14.py writes it, on q, k, v [1, 8, L, 8].
OnnxBuilder SdpaModel(int64_t l, SdpaMask mask) {
  const float inf = std::numeric_limits<float>::infinity();
  OnnxBuilder b(14);
  b.Input("q", kFloat, {1, 8, l, 8}).Input("k", kFloat, {1, 8, l, 8}).Input("v", kFloat, {1, 8, l, 8});
  if (mask == SdpaMask::kBoolInput) b.Input("attn_mask", kBool, {1, 1, l, l});
  if (mask == SdpaMask::kFloatInput) b.Input("attn_mask", kFloat, {1, 1, l, l});
  b.Output("o", kFloat, {1, 8, l, 8});
  auto constant = [&](const std::string& out, const ProtoWriter& t) {
    b.Node({"Constant", {}, {out}, "/" + out, {AttrTensor("value", t)}});
  };
  // _attention_scale: 1 / sqrt(float(q.shape[-1])).
  b.Node({"Shape", {"q"}, {"q_shape"}, "/Shape"});
  constant("last", Tensor("", kInt64, {1}, {-1}));
  constant("int_max", Tensor("", kInt64, {1}, {std::numeric_limits<int64_t>::max()}));
  b.Node({"Slice", {"q_shape", "last", "int_max"}, {"e"}, "/Slice"})
      .Node({"Cast", {"e"}, {"e_f"}, "/Cast", {AttrInt("to", kFloat)}});
  constant("one", FloatTensor("", {1}, {1.0f}));
  b.Node({"Sqrt", {"e_f"}, {"sqrt_e"}, "/Sqrt"}).Node({"Div", {"one", "sqrt_e"}, {"scale"}, "/Div"});
  if (mask == SdpaMask::kCausal) {
    // _causal_attention_mask: ones(L, S).tril() -> where(== 0, -inf, 0).
    b.Node({"Shape", {"k"}, {"k_shape"}, "/Shape_1"});
    constant("minus2", Tensor("", kInt64, {1}, {-2}));
    b.Node({"Slice", {"q_shape", "minus2", "last"}, {"target"}, "/Slice_1"})
        .Node({"Slice", {"k_shape", "minus2", "last"}, {"source"}, "/Slice_2"})
        .Node({"Concat", {"target", "source"}, {"size"}, "/Concat", {AttrInt("axis", 0)}});
    constant("ones", FloatTensor("", {1}, {1.0f}));
    b.Node({"Expand", {"ones", "size"}, {"all"}, "/Expand"})
        .Node({"Trilu", {"all"}, {"lower"}, "/Trilu", {AttrInt("upper", 0)}});
    constant("zero", FloatTensor("", {1}, {0.0f}));
    constant("neg_inf", FloatTensor("", {1}, {-inf}));
    b.Node({"Equal", {"lower", "zero"}, {"above"}, "/Equal"})
        .Node({"Where", {"above", "neg_inf", "zero"}, {"bias"}, "/Where"});
  } else if (mask == SdpaMask::kBoolInput) {
    constant("zero", FloatTensor("", {1}, {0.0f}));
    constant("neg_inf", FloatTensor("", {1}, {-inf}));
    b.Node({"Where", {"attn_mask", "zero", "neg_inf"}, {"bias"}, "/Where"});
  }
  const std::string bias = mask == SdpaMask::kFloatInput ? "attn_mask" : "bias";
  b.Node({"Transpose", {"k"}, {"kt"}, "/Transpose", {AttrInts("perm", {0, 1, 3, 2})}})
      .Node({"Sqrt", {"scale"}, {"sqrt_scale"}, "/Sqrt_1"})
      .Node({"Mul", {"q", "sqrt_scale"}, {"q_scaled"}, "/Mul"})
      .Node({"Sqrt", {"scale"}, {"sqrt_scale_k"}, "/Sqrt_2"})
      .Node({"Mul", {"kt", "sqrt_scale_k"}, {"kt_scaled"}, "/Mul_1"})
      .Node({"MatMul", {"q_scaled", "kt_scaled"}, {"qk"}, "/MatMul"})
      .Node({"Add", {"qk", bias}, {"qk_masked"}, "/Add"})
      .Node({"Softmax", {"qk_masked"}, {"p"}, "/Softmax", {AttrInt("axis", -1)}})
      .Node({"MatMul", {"p", "v"}, {"o"}, "/MatMul_1"});
  return b;
}

TEST(OnnxAttentionExports, SdpaOpset14CausalIsCausal) {
  // L = 16: the mask folds as values (256 elements); L = 128: Expand(1.0) to
  // [128, 128] is too large to fold (16,384 > 4,096) and stays a splat.
  for (int64_t l : {16, 128}) {
    SCOPED_TRACE(l);
    auto p = ImportOnnx(SdpaModel(l, SdpaMask::kCausal).Build(), "sdpa.onnx", {});
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_TRUE(p->warnings.empty()) << p->warnings[0];
    const pir::Op* attention = OnlyAttention(p->graph);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->attrs.GetString("mask"), "causal");
    EXPECT_EQ(KvHeads(p->graph, *attention), 8);
    // 4 * B 1 * H 8 * L (L + 1) / 2 * Dh 8: L = 16 34,816; L = 128 2,113,536. No other matmul.
    const pir::OpCost cost = pir::ComputeGraphCost(p->graph);
    EXPECT_EQ(cost.attention.value(), 4 * 8 * (l * (l + 1) / 2) * 8);
    EXPECT_EQ(cost.matmul.value(), 0);
  }
}

TEST(OnnxAttentionExports, SdpaOpset14AttnMaskInputIsAMaskTensor) {
  for (SdpaMask mask : {SdpaMask::kBoolInput, SdpaMask::kFloatInput}) {
    SCOPED_TRACE(mask == SdpaMask::kBoolInput ? "bool" : "float");
    auto p = ImportOnnx(SdpaModel(16, mask).Build(), "sdpa.onnx", {});
    ASSERT_TRUE(p.ok()) << p.status().message();
    const pir::Op* attention = OnlyAttention(p->graph);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->attrs.GetString("mask"), "tensor");
    ASSERT_EQ(attention->operands.size(), 4u);
    // Every score computed: 4 * 1 * 8 * (16 * 16) * 8 = 65,536.
    EXPECT_EQ(pir::ComputeGraphCost(p->graph).attention.value(), 65536);
  }
}

// ---------------------------------------------------------------- constant masks and other repeats

// q [1, 8, 16, 8] against k, v [1, kv, 16, 8]: scores / sqrt(8), a mask
// step (nodes writing "masked" from "scores"), softmax, @ v.
OnnxBuilder MaskedModel(int64_t kv, const std::function<void(OnnxBuilder&)>& mask,
                        const std::function<void(OnnxBuilder&)>& repeat = nullptr) {
  OnnxBuilder b(14);
  b.Input("q", kFloat, {1, 8, 16, 8}).Input("k", kFloat, {1, kv, 16, 8}).Input("v", kFloat, {1, kv, 16, 8});
  b.Output("o", kFloat, {1, 8, 16, 8});
  if (repeat) {
    repeat(b);  // writes k8, v8 [1, 8, 16, 8]
  } else {
    b.Node({"Identity", {"k"}, {"k8"}, "/k"}).Node({"Identity", {"v"}, {"v8"}, "/v"});
  }
  b.Node({"Transpose", {"k8"}, {"kt"}, "/Transpose", {AttrInts("perm", {0, 1, 3, 2})}})
      .Node({"MatMul", {"q", "kt"}, {"qk"}, "/MatMul"})
      .Node({"Constant", {}, {"root_d"}, "/Constant", {AttrTensor("value", FloatTensor("", {}, {2.828427f}))}})
      .Node({"Div", {"qk", "root_d"}, {"scores"}, "/Div"});
  mask(b);
  b.Node({"Softmax", {"masked"}, {"p"}, "/Softmax", {AttrInt("axis", -1)}})
      .Node({"MatMul", {"p", "v8"}, {"o"}, "/MatMul_1"});
  return b;
}

const pir::Op* ImportAttention(const OnnxBuilder& b, ImportedProgram& out) {
  auto p = ImportOnnx(b.Build(), "masked.onnx", {});
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return nullptr;
  out = std::move(p).value();
  return OnlyAttention(out.graph);
}

// nanoGPT's buffer: bias = tril(ones(N, N)).view(1, 1, N, N), sliced to the
// sequence, masked_fill(bias[:, :, :L, :L] == 0, -inf). N = 32: 1,024 values,
// folded; N = 128: 16,384 values, too many to fold, read as a band when the
// initializer is declared and kept one through the slice.
TEST(OnnxAttentionExports, CausalBufferInitializerIsCausal) {
  for (const auto& entry : {std::pair{kFloat, 32}, std::pair{kBool, 32}, std::pair{kFloat, 128}, std::pair{kBool, 128}}) {
    const int32_t type = entry.first;  // not structured bindings: the lambda below captures them
    const int64_t block = entry.second;
    SCOPED_TRACE(std::to_string(type) + " block " + std::to_string(block));
    ImportedProgram p;
    const pir::Op* attention = ImportAttention(
        MaskedModel(8,
                    [&](OnnxBuilder& b) {
                      b.Initializer(ValuesTensor("bias", type, {1, 1, block, block},
                                                 MaskValues(block, false, [](int64_t i, int64_t j) { return j <= i; })));
                      b.Node({"Constant", {}, {"starts"}, "/c0", {AttrTensor("value", Tensor("", kInt64, {2}, {0, 0}))}})
                          .Node({"Constant", {}, {"ends"}, "/c1", {AttrTensor("value", Tensor("", kInt64, {2}, {16, 16}))}})
                          .Node({"Constant", {}, {"axes"}, "/c2", {AttrTensor("value", Tensor("", kInt64, {2}, {2, 3}))}})
                          .Node({"Slice", {"bias", "starts", "ends", "axes"}, {"window"}, "/Slice"})
                          .Node({"Constant", {}, {"zero"}, "/c3",
                                 {AttrTensor("value", type == kFloat ? FloatTensor("", {}, {0.0f})
                                                                     : ValuesTensor("", kBool, {}, {0.0f}))}})
                          .Node({"Equal", {"window", "zero"}, {"dropped"}, "/Equal"})
                          .Node({"Constant", {}, {"neg_inf"}, "/c4",
                                 {AttrTensor("value", FloatTensor("", {}, {-std::numeric_limits<float>::infinity()}))}})
                          .Node({"Where", {"dropped", "neg_inf", "scores"}, {"masked"}, "/Where"});
                    }),
        p);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->attrs.GetString("mask"), "causal");
    EXPECT_EQ(ParamCount(p.graph), 0);  // the buffer is a mask, not a weight
    EXPECT_EQ(pir::ComputeGraphCost(p.graph).attention.value(), 34816);  // 4 * 8 * 136 * 8
  }
}

// A Constant node of 0 / -inf added to the scores: j <= i is causal; i - 4 < j <= i
// a window of 4 keys; j <= i + 1 (one key ahead) and a checkerboard no band PIR names.
TEST(OnnxAttentionExports, AdditiveConstantMasks) {
  struct Case {
    const char* name;
    std::function<bool(int64_t, int64_t)> keep;
    const char* mask;
    int64_t kept;  // kept scores per head
  };
  const Case cases[] = {
      {"causal", [](int64_t i, int64_t j) { return j <= i; }, "causal", 136},
      // Window 4: row i keeps min(i + 1, 4) keys: 1 + 2 + 3 + 13 * 4 = 58.
      {"window", [](int64_t i, int64_t j) { return j <= i && j > i - 4; }, "window", 58},
      {"ahead", [](int64_t i, int64_t j) { return j <= i + 1; }, "tensor", 256},
      {"checkerboard", [](int64_t i, int64_t j) { return (i + j) % 2 == 0; }, "tensor", 256},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ImportedProgram p;
    const pir::Op* attention = ImportAttention(
        MaskedModel(8,
                    [&](OnnxBuilder& b) {
                      b.Node({"Constant", {}, {"bias"}, "/Constant_1",
                              {AttrTensor("value", FloatTensor("", {16, 16}, MaskValues(16, true, c.keep)))}})
                          .Node({"Add", {"scores", "bias"}, {"masked"}, "/Add"});
                    }),
        p);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->attrs.GetString("mask"), c.mask);
    if (std::string(c.mask) == "window") {
      EXPECT_EQ(attention->attrs.GetInt("window"), 4);
    }
    EXPECT_EQ(attention->operands.size(), std::string(c.mask) == "tensor" ? 4u : 3u);
    EXPECT_EQ(pir::ComputeGraphCost(p.graph).attention.value(), 4 * 8 * c.kept * 8);
  }
}

// K/V heads repeated by a Gather with repeat_interleave's indices and by
// Unsqueeze -> Tile -> Reshape read as 2 K/V heads; Tile over the heads
// themselves (k.repeat(1, 4, 1, 1): head h reads K/V head h % 2, not h / 4)
// is no grouped-query layout PIR names: 8 K/V heads, still one attention.
TEST(OnnxAttentionExports, GatherAndTileRepeats) {
  auto causal = [](OnnxBuilder& b) {
    b.Node({"Constant", {}, {"bias"}, "/Constant_1",
            {AttrTensor("value", FloatTensor("", {16, 16}, MaskValues(16, true, [](int64_t i, int64_t j) {
                                               return j <= i;
                                             })))}})
        .Node({"Add", {"scores", "bias"}, {"masked"}, "/Add"});
  };
  auto gather = [](OnnxBuilder& b) {
    b.Node({"Constant", {}, {"heads"}, "/heads", {AttrTensor("value", Tensor("", kInt64, {8}, {0, 0, 0, 0, 1, 1, 1, 1}))}});
    for (const char* t : {"k", "v"}) {
      b.Node({"Gather", {t, "heads"}, {std::string(t) + "8"}, std::string("/Gather_") + t, {AttrInt("axis", 1)}});
    }
  };
  auto tile_group = [](OnnxBuilder& b) {
    b.Node({"Constant", {}, {"axis2"}, "/axis2", {AttrTensor("value", Tensor("", kInt64, {1}, {2}))}})
        .Node({"Constant", {}, {"reps"}, "/reps", {AttrTensor("value", Tensor("", kInt64, {5}, {1, 1, 4, 1, 1}))}})
        .Node({"Constant", {}, {"merged"}, "/merged", {AttrTensor("value", Tensor("", kInt64, {4}, {1, 8, 16, 8}))}});
    for (std::string t : {"k", "v"}) {
      b.Node({"Unsqueeze", {t, "axis2"}, {t + "5"}, "/Unsqueeze_" + t})
          .Node({"Tile", {t + "5", "reps"}, {t + "_tiled"}, "/Tile_" + t})
          .Node({"Reshape", {t + "_tiled", "merged"}, {t + "8"}, "/Reshape_" + t});
    }
  };
  auto tile_heads = [](OnnxBuilder& b) {
    b.Node({"Constant", {}, {"reps"}, "/reps", {AttrTensor("value", Tensor("", kInt64, {4}, {1, 4, 1, 1}))}});
    for (std::string t : {"k", "v"}) b.Node({"Tile", {t, "reps"}, {t + "8"}, "/Tile_" + t});
  };
  const std::pair<const char*, std::function<void(OnnxBuilder&)>> repeats[] = {
      {"gather", gather}, {"tile_group", tile_group}, {"tile_heads", tile_heads}};
  for (const auto& [name, repeat] : repeats) {
    SCOPED_TRACE(name);
    ImportedProgram p;
    const pir::Op* attention = ImportAttention(MaskedModel(2, causal, repeat), p);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->attrs.GetString("mask"), "causal");
    EXPECT_EQ(KvHeads(p.graph, *attention), std::string(name) == "tile_heads" ? 8 : 2);
    EXPECT_EQ(CountOps(p.graph, pir::OpKind::kCustom), 0);
    EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
    EXPECT_EQ(pir::ComputeGraphCost(p.graph).attention.value(), 34816);  // 4 * 8 * 136 * 8
  }
}

// Trilu of a computed tensor (a graph input here): where(band, x, 0), the
// band a compare of index constants carrying iota_pos - iota_neg + iota_offset
// <= 0 for upper with k = 1 (kept: j - i >= 1). Its values depend on x, so
// the attention keeps it as a mask tensor; no op is custom.
TEST(OnnxAttentionExports, TriluOfAComputedTensorIsAWhereOverItsBand) {
  OnnxBuilder b = MaskedModel(8, [](OnnxBuilder& m) {
    m.Input("x", kFloat, {16, 16})
        .Node({"Constant", {}, {"one"}, "/c0", {AttrTensor("value", Tensor("", kInt64, {}, {1}))}})
        .Node({"Trilu", {"x", "one"}, {"bias"}, "/Trilu", {AttrInt("upper", 1)}})
        .Node({"Add", {"scores", "bias"}, {"masked"}, "/Add"});
  });
  ImportedProgram p;
  const pir::Op* attention = ImportAttention(b, p);
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->attrs.GetString("mask"), "tensor");
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kCustom), 0);
  const pir::Op* band = nullptr;
  for (const pir::Op& op : p.graph.ops()) {
    if (op.kind == pir::OpKind::kCompare) band = &op;
  }
  ASSERT_NE(band, nullptr);
  EXPECT_EQ(band->attrs.GetString("direction"), "LE");
  EXPECT_EQ(band->attrs.GetInt("iota_pos"), 0);
  EXPECT_EQ(band->attrs.GetInt("iota_neg"), 1);
  EXPECT_EQ(band->attrs.GetInt("iota_offset"), 1);
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kWhere), 1);
}

// Bad Trilu input: a located error, not a crash (ONNX's shape inference
// refuses rank 1 before the importer sees it; a k computed at run time is
// the importer's own error).
TEST(OnnxAttentionExports, TriluErrors) {
  OnnxBuilder rank1(14);
  rank1.Input("x", kFloat, {16}).Output("y", kFloat, {16}).Node({"Trilu", {"x"}, {"y"}, "/Trilu"});
  auto p = ImportOnnx(rank1.Build(), "trilu.onnx", {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("Trilu"), std::string::npos) << p.status().message();
  OnnxBuilder computed_k(14);
  computed_k.Input("x", kFloat, {4, 4}).Input("k", kInt64, {}).Output("y", kFloat, {4, 4})
      .Node({"Trilu", {"x", "k"}, {"y"}, "/Trilu"});
  p = ImportOnnx(computed_k.Build(), "trilu.onnx", {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("trilu.onnx: node 0 '/Trilu' (Trilu): error: input 1 'k' must be a constant"),
            std::string::npos)
      << p.status().message();
}

}  // namespace
}  // namespace az::frontend
