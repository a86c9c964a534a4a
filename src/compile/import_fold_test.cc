// The import folds (frontend/import/fold.h) rewrite decompositions into fused
// ops; here the reference interpreter checks that the folded graph computes
// what the unfolded one does, on random data, and the counts and FLOPs are
// checked exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compile/interpret/interpreter.h"
#include "frontend/import/dit.h"
#include "frontend/import/fold.h"
#include "frontend/import/imported.h"
#include "pir/analysis/summary.h"
#include "pir/build/graph_builder.h"
#include "pir/verify/verifier.h"

namespace az::frontend {
namespace {

using pir::DType;
using pir::GraphBuilder;
using pir::OpKind;
using pir::ValueId;

int CountKind(const pir::Graph& g, OpKind kind) {
  int n = 0;
  for (const pir::Op& op : g.ops()) n += op.kind == kind;
  return n;
}

ValueId Broadcast(GraphBuilder& b, const std::string& name, ValueId x, pir::Shape shape, std::vector<int64_t> dims) {
  pir::Attributes attrs;
  attrs.Set("shape", shape);
  attrs.Set("dims", dims);
  return b.AddOp1(OpKind::kBroadcast, name, {x}, attrs);
}

ValueId Reduce(GraphBuilder& b, const std::string& name, ValueId x, int64_t dim, const std::string& kind) {
  pir::Attributes attrs;
  attrs.Set("dims", std::vector<int64_t>{dim});
  attrs.Set("kind", kind);
  return b.AddOp1(OpKind::kReduce, name, {x}, attrs);
}

// softmax over the last dim as JAX lowers it: max, subtract, exp, sum, divide.
ValueId DecomposedSoftmax(GraphBuilder& b, ValueId x) {
  pir::Shape shape = b.type(x).shape;
  const int64_t last = static_cast<int64_t>(shape.size()) - 1;
  std::vector<int64_t> keep;
  for (int64_t d = 0; d < last; ++d) keep.push_back(d);
  ValueId m = Reduce(b, "max", x, last, "max");
  // JAX's floor of the running max at -inf (a scalar broadcast).
  pir::Shape reduced(shape.begin(), shape.end() - 1);
  m = b.Binary(OpKind::kMax, "floor", Broadcast(b, "ninf", b.Constant("ninf", DType::kF32, {}), reduced, {}), m);
  ValueId e = b.Unary(OpKind::kExp, "exp", b.Binary(OpKind::kSub, "sub", x, Broadcast(b, "bmax", m, shape, keep)));
  ValueId z = Reduce(b, "sum", e, last, "sum");
  return b.Binary(OpKind::kDiv, "div", e, Broadcast(b, "bsum", z, shape, keep));
}

// Values for every leaf: random inputs and parameters; the named scalar
// constants get their mathematical values.
std::map<ValueId, compile::Tensor> Leaves(const pir::Graph& g, const std::map<std::string, double>& constants) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::map<ValueId, compile::Tensor> leaves;
  for (ValueId v = 0; v < g.num_values(); ++v) {
    const pir::Value& value = g.value(v);
    if (value.role == pir::ValueRole::kActivation) continue;
    compile::Tensor t;
    t.shape = value.type.shape;
    t.data.resize(static_cast<size_t>(value.type.NumElements()));
    auto c = constants.find(value.name);
    for (double& x : t.data) x = c != constants.end() ? c->second : dist(rng);
    leaves[v] = std::move(t);
  }
  return leaves;
}

void ExpectSameOutputs(const pir::Graph& before, const pir::Graph& after, const std::map<std::string, double>& constants) {
  auto a = compile::RunReference(before, Leaves(before, constants));
  auto b = compile::RunReference(after, Leaves(after, constants));
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(a->size(), b->size());
  for (size_t k = 0; k < a->size(); ++k) {
    ASSERT_EQ((*a)[k].shape, (*b)[k].shape);
    for (size_t i = 0; i < (*a)[k].data.size(); ++i) EXPECT_NEAR((*a)[k].data[i], (*b)[k].data[i], 1e-9) << i;
  }
}

// The import's folds on `g`, then the ops they left dead dropped; the result
// must verify. The counts of what folded.
StatusOr<FoldStats> FoldAndPrune(pir::Graph& g) {
  std::vector<ValueId> map;
  AZ_ASSIGN_OR_RETURN(FoldStats stats, FoldPatterns(g, map));
  PruneDeadOps(g, map);
  AZ_RETURN_IF_ERROR(pir::VerifyGraph(g));
  return stats;
}

TEST(ImportFold, SoftmaxDecompositionFoldsAndComputesTheSame) {
  GraphBuilder b("softmax");
  ValueId x = b.Input("x", DType::kF32, {2, 3, 5});
  b.Output(DecomposedSoftmax(b, x));
  pir::Graph g = b.Finish();
  pir::Graph before = g;
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->softmax, 1);
  EXPECT_EQ(g.num_ops(), 1);  // one softmax: max, sub, exp, sum, div and both broadcasts gone
  EXPECT_EQ(CountKind(g, OpKind::kSoftmax), 1);
  ExpectSameOutputs(before, g, {{"ninf", -1e300}});
}

// RMSNorm as the PyTorch blocks write it (tests/torch/wan_block.py) and the
// exporter emits it: x * (1 / sqrt(mean(pow(x, 2), keepdim) + eps)) * weight,
// the reciprocal as Reciprocal or as Div(1, .), broadcasts explicit or not.
class RmsNormForms : public ::testing::TestWithParam<bool> {};

TEST_P(RmsNormForms, FoldWithTheirWeight) {
  const bool div_form = GetParam();
  GraphBuilder b("rms");
  ValueId x = b.Input("x", DType::kF32, {2, 5, 8});
  ValueId w = b.Param("norm.weight", DType::kF32, {8});
  ValueId sq = b.Binary(OpKind::kPow, "pow", x, b.Constant("two", DType::kF32, {}));
  ValueId mean = b.Reshape("keepdim", Reduce(b, "mean", sq, 2, "mean"), {2, 5, 1});
  ValueId shifted = b.Binary(OpKind::kAdd, "add_eps", mean, b.Constant("eps", DType::kF32, {}));
  ValueId root = b.Unary(OpKind::kSqrt, "sqrt", shifted);
  ValueId inv = div_form ? b.Binary(OpKind::kDiv, "inv", b.Constant("one", DType::kF32, {}), root)
                         : b.Unary(OpKind::kRecip, "recip", root);
  ValueId y = div_form ? b.Binary(OpKind::kMul, "normalize", x, inv)
                       : b.Binary(OpKind::kMul, "normalize", x, Broadcast(b, "b_inv", inv, {2, 5, 8}, {0, 1, 2}));
  b.Output(div_form ? b.Binary(OpKind::kMul, "scale", y, w)
                    : b.Binary(OpKind::kMul, "scale", y, Broadcast(b, "b_w", w, {2, 5, 8}, {2})));
  pir::Graph g = b.Finish();
  pir::Graph before = g;
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->norm, 1);
  ASSERT_EQ(g.num_ops(), 1);  // rms_norm(x, weight): every other op gone
  EXPECT_EQ(g.op(0).kind, OpKind::kRmsNorm);
  EXPECT_EQ(g.op(0).operands.size(), 2u);
  ExpectSameOutputs(before, g, {{"two", 2.0}, {"eps", 1e-6}, {"one", 1.0}});
}

INSTANTIATE_TEST_SUITE_P(ImportFold, RmsNormForms, ::testing::Bool());

// LayerNorm as JAX lowers it (the Wan StableHLO exports): the mean is a sum
// divided by N, the centered value is computed twice (once squared for the
// variance, once normalized), rsqrt, then the affine weight and bias.
TEST(ImportFold, JaxLayerNormWithTwinCenteringFolds) {
  GraphBuilder b("ln");
  const pir::Shape shape{2, 5, 8}, rows{2, 5, 1};
  ValueId x = b.Input("x", DType::kF32, shape);
  ValueId w = b.Param("ln.weight", DType::kF32, {8});
  ValueId bias = b.Param("ln.bias", DType::kF32, {8});
  auto mean = [&](const std::string& name, ValueId v) {
    ValueId sum = Broadcast(b, name + ".rows", Reduce(b, name + ".sum", v, 2, "sum"), rows, {0, 1});
    ValueId n = Broadcast(b, name + ".n", b.Constant("n", DType::kF32, {}), rows, {});
    return b.Binary(OpKind::kDiv, name, sum, n);
  };
  ValueId mu = mean("mu", x);
  ValueId c1 = b.Binary(OpKind::kSub, "center1", x, Broadcast(b, "b_mu1", mu, shape, {0, 1, 2}));
  ValueId var = mean("var", b.Binary(OpKind::kMul, "square", c1, c1));
  ValueId eps = Broadcast(b, "b_eps", b.Constant("eps", DType::kF32, {}), rows, {});
  ValueId r = b.Unary(OpKind::kRsqrt, "rsqrt", b.Binary(OpKind::kAdd, "add_eps", var, eps));
  ValueId c2 = b.Binary(OpKind::kSub, "center2", x, Broadcast(b, "b_mu2", mu, shape, {0, 1, 2}));
  ValueId y = b.Binary(OpKind::kMul, "normalize", c2, Broadcast(b, "b_r", r, shape, {0, 1, 2}));
  y = b.Binary(OpKind::kMul, "weight", y, Broadcast(b, "b_w", w, shape, {2}));
  b.Output(b.Binary(OpKind::kAdd, "bias", y, Broadcast(b, "b_b", bias, shape, {2})));
  pir::Graph g = b.Finish();
  pir::Graph before = g;
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->norm, 1);
  ASSERT_EQ(g.num_ops(), 1);
  EXPECT_EQ(g.op(0).kind, OpKind::kLayerNorm);
  EXPECT_EQ(g.op(0).operands.size(), 3u);  // x, weight, bias
  ExpectSameOutputs(before, g, {{"n", 8.0}, {"eps", 1e-6}});
}

// A mean over a dim other than the last is no norm PIR has: left alone.
TEST(ImportFold, NormOverAnInnerDimIsLeftUnfolded) {
  GraphBuilder b("inner");
  ValueId x = b.Input("x", DType::kF32, {2, 5, 8});
  ValueId mean = b.Reshape("keepdim", Reduce(b, "mean", b.Binary(OpKind::kMul, "sq", x, x), 1, "mean"), {2, 1, 8});
  ValueId r = b.Unary(OpKind::kRsqrt, "rsqrt", b.Binary(OpKind::kAdd, "add_eps", mean, b.Constant("eps", DType::kF32, {})));
  b.Output(b.Binary(OpKind::kMul, "normalize", x, Broadcast(b, "b_r", r, {2, 5, 8}, {0, 1, 2})));
  pir::Graph g = b.Finish();
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->norm, 0);
}

// Attention as PyTorch and JAX write it: heads by reshape + transpose to
// [B, H, L, D], scores scaled by 1/sqrt(D), softmax, then back to [B, L, H*D].
pir::Graph ExplicitAttention(int64_t lq, int64_t lk, bool mask) {
  const int64_t batch = 2, heads = 3, dim = 4;
  GraphBuilder b("attention");
  ValueId xq = b.Input("x", DType::kF32, {batch, lq, heads * dim});
  ValueId xk = b.Input("context", DType::kF32, {batch, lk, heads * dim});
  auto split = [&](const std::string& name, ValueId v, int64_t len) {
    ValueId r = b.Reshape(name + ".heads", v, {batch, len, heads, dim});
    return b.Transpose(name + ".bhld", r, {0, 2, 1, 3});
  };
  ValueId q = split("q", b.Linear("q", xq, heads * dim), lq);
  ValueId k = split("k", b.Linear("k", xk, heads * dim), lk);
  ValueId v = split("v", b.Linear("v", xk, heads * dim), lk);
  ValueId kt = b.Transpose("k.t", k, {0, 1, 3, 2});
  ValueId s = b.Einsum("scores", "bhqd,bhdk->bhqk", q, kt);
  ValueId scale = b.Constant("scale", DType::kF32, {});
  s = b.Binary(OpKind::kMul, "scale", s, scale);
  if (mask) s = b.Binary(OpKind::kAdd, "mask", s, b.Input("mask", DType::kF32, {lq, lk}));
  ValueId p = DecomposedSoftmax(b, s);
  ValueId o = b.Einsum("pv", "bhqk,bhkd->bhqd", p, v);
  ValueId merged = b.Reshape("merge", b.Transpose("o.blhd", o, {0, 2, 1, 3}), {batch, lq, heads * dim});
  b.Output(b.Linear("o", merged, heads * dim));
  return b.Finish();
}

TEST(ImportFold, ExplicitAttentionBecomesOneAttentionOpWithoutTransposes) {
  pir::Graph g = ExplicitAttention(6, 6, false);
  pir::Graph before = g;
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->softmax, 1);
  EXPECT_EQ(stats->attention, 1);
  EXPECT_EQ(CountKind(g, OpKind::kAttention), 1);
  // The [B,L,H,D] <-> [B,H,L,D] round trips compose away: q, k, v feed the
  // attention straight from their reshapes, and the output needs none.
  EXPECT_EQ(CountKind(g, OpKind::kTranspose), 0);
  for (const pir::Op& op : g.ops()) {
    if (op.kind == OpKind::kAttention) {
      EXPECT_EQ(op.attrs.GetString("mode").value_or(""), "self");
    }
  }
  // Model FLOPs are unchanged: the two einsums' 2*B*H*Lq*Lk*D each are the
  // attention's 4*B*H*Lq*Lk*D = 4*2*3*6*6*4 = 3,456.
  EXPECT_EQ(pir::SummarizeGraph(g).model_flops().value(), pir::SummarizeGraph(before).model_flops().value());
  EXPECT_EQ(pir::SummarizeGraph(g).cost.attention.value(), 3456);
  ExpectSameOutputs(before, g, {{"scale", 0.5}, {"ninf", -1e300}});  // 1 / sqrt(D = 4), the scale attention applies
}

TEST(ImportFold, CrossAttentionKeepsItsKeyLength) {
  pir::Graph g = ExplicitAttention(6, 10, false);
  pir::Graph before = g;
  ASSERT_TRUE(FoldAndPrune(g).ok());
  ASSERT_EQ(CountKind(g, OpKind::kAttention), 1);
  for (const pir::Op& op : g.ops()) {
    if (op.kind == OpKind::kAttention) {
      EXPECT_EQ(op.attrs.GetString("mode").value_or(""), "cross");
    }
  }
  ExpectSameOutputs(before, g, {{"scale", 0.5}, {"ninf", -1e300}});
}

// A mask added to the scores (an additive bias [Lq, Lk], broadcast by the
// add) folds into attention with mask "tensor": the bias is its 4th operand,
// [1, 1, Lq, Lk], and the outputs match the unfolded graph's.
TEST(ImportFold, AdditiveMaskFoldsAsAMaskOperand) {
  pir::Graph g = ExplicitAttention(6, 6, true);
  pir::Graph before = g;
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->softmax, 1);
  EXPECT_EQ(stats->attention, 1);
  for (const pir::Op& op : g.ops()) {
    if (op.kind != OpKind::kAttention) continue;
    EXPECT_EQ(op.attrs.GetString("mask").value_or(""), "tensor");
    EXPECT_EQ(op.attrs.GetString("mask_operand").value_or(""), "add");
    ASSERT_EQ(op.operands.size(), 4u);
    EXPECT_EQ(g.type(op.operands[3]).shape, (pir::Shape{1, 1, 6, 6}));
  }
  // A mask tensor computes every score: 4 * B * H * Lq * Lk * D = 3,456 as unmasked.
  EXPECT_EQ(pir::SummarizeGraph(g).cost.attention.value(), 3456);
  ExpectSameOutputs(before, g, {{"scale", 0.5}, {"ninf", -1e300}});
}

// Grouped-query attention as repeat_kv writes it: 4 query heads over 2 K/V
// heads, each repeated twice by broadcast [B, 2, L, D] -> [B, 2, 2, L, D] and
// reshape -> [B, 4, L, D]. The fold reads K and V before the repeat (2 heads),
// and the outputs match the unfolded graph's.
TEST(ImportFold, RepeatedKvHeadsFoldAsGroupedQuery) {
  const int64_t batch = 2, len = 6, heads = 4, kv_heads = 2, dim = 4;
  GraphBuilder b("gqa");
  ValueId x = b.Input("x", DType::kF32, {batch, len, heads * dim});
  auto split = [&](const std::string& name, ValueId v, int64_t h) {
    return b.Transpose(name + ".bhld", b.Reshape(name + ".heads", v, {batch, len, h, dim}), {0, 2, 1, 3});
  };
  auto repeat = [&](const std::string& name, ValueId v) {
    ValueId wide = b.Broadcast(name + ".rep", v, {batch, kv_heads, heads / kv_heads, len, dim}, {0, 1, 3, 4});
    return b.Reshape(name + ".merge", wide, {batch, heads, len, dim});
  };
  ValueId q = split("q", b.Linear("q", x, heads * dim), heads);
  ValueId k = repeat("k", split("k", b.Linear("k", x, kv_heads * dim), kv_heads));
  ValueId v = repeat("v", split("v", b.Linear("v", x, kv_heads * dim), kv_heads));
  ValueId s = b.Einsum("scores", "bhqd,bhkd->bhqk", q, k);
  s = b.Binary(OpKind::kMul, "scale", s, b.Constant("scale", DType::kF32, {}));
  ValueId o = b.Einsum("pv", "bhqk,bhkd->bhqd", DecomposedSoftmax(b, s), v);
  b.Output(b.Reshape("merge", b.Transpose("o.blhd", o, {0, 2, 1, 3}), {batch, len, heads * dim}));
  pir::Graph g = b.Finish();
  pir::Graph before = g;
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->attention, 1);
  for (const pir::Op& op : g.ops()) {
    if (op.kind != OpKind::kAttention) continue;
    EXPECT_EQ(g.type(op.operands[0]).shape, (pir::Shape{batch, len, heads, dim}));
    EXPECT_EQ(g.type(op.operands[1]).shape, (pir::Shape{batch, len, kv_heads, dim}));
    EXPECT_EQ(g.type(op.operands[2]).shape, (pir::Shape{batch, len, kv_heads, dim}));
  }
  EXPECT_EQ(CountKind(g, OpKind::kBroadcast), 0);  // the repeats are gone
  ExpectSameOutputs(before, g, {{"scale", 0.5}, {"ninf", -1e300}});
}

TEST(ImportFold, GeluAndSiluClustersFold) {
  GraphBuilder b("act");
  ValueId x = b.Input("x", DType::kF32, {4, 8});
  // x * 0.5 * (1 + erf(x * 1/sqrt(2)))
  ValueId half = b.Constant("half", DType::kF32, {});
  ValueId one = b.Constant("one", DType::kF32, {});
  ValueId inv_sqrt2 = b.Constant("inv_sqrt2", DType::kF32, {});
  ValueId erf = b.Unary(OpKind::kErf, "erf", b.Binary(OpKind::kMul, "scaled", x, inv_sqrt2));
  ValueId half_x = b.Binary(OpKind::kMul, "half_x", x, half);
  ValueId gelu = b.Binary(OpKind::kMul, "gelu", half_x, b.Binary(OpKind::kAdd, "one_plus", one, erf));
  ValueId y = b.Input("y", DType::kF32, {4, 8});
  ValueId silu = b.Binary(OpKind::kMul, "silu", y, b.Unary(OpKind::kSigmoid, "sigmoid", y));
  b.Output(b.Binary(OpKind::kAdd, "sum", gelu, silu));
  pir::Graph g = b.Finish();
  pir::Graph before = g;
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->gelu, 1);
  EXPECT_EQ(stats->silu, 1);
  EXPECT_EQ(g.num_ops(), 3);  // gelu, silu, add
  ExpectSameOutputs(before, g, {{"half", 0.5}, {"one", 1.0}, {"inv_sqrt2", 1 / std::sqrt(2.0)}});
}

TEST(ImportFold, ModulationIsNotAnActivation) {
  // x * (1 + scale) with a tensor scale: no fold (the cone reads two tensors).
  GraphBuilder b("mod");
  ValueId x = b.Input("x", DType::kF32, {4, 8});
  ValueId scale = b.Input("scale", DType::kF32, {4, 8});
  ValueId one = b.Constant("one", DType::kF32, {});
  b.Output(b.Binary(OpKind::kMul, "mod", x, b.Binary(OpKind::kAdd, "one_plus", one, scale)));
  pir::Graph g = b.Finish();
  auto stats = FoldAndPrune(g);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->total(), 0);
}

// FinishImport folds and prunes (two rebuilds): what the program holds must
// follow its values through both.
TEST(ImportFinish, ArgumentsAndResultsFollowTheRebuilds) {
  GraphBuilder b("program");
  ValueId unused = b.Input("unused", DType::kF32, {3});
  b.Unary(OpKind::kExp, "dead", unused);  // pruned: nothing reads it
  ValueId x = b.Input("x", DType::kF32, {2, 3, 5});
  ValueId y = DecomposedSoftmax(b, x);
  b.Output(y);
  ImportedProgram program;
  program.format = "test";
  program.file = "program.test";
  program.arguments = {{"%arg0", unused}, {"%arg1", x}};
  program.results = {{"out", y}};
  program.graph = b.Finish();
  ASSERT_TRUE(FinishImport(program, ImportOptions()).ok());
  const pir::Graph& g = program.graph;
  EXPECT_EQ(g.num_ops(), 1);
  ASSERT_GE(program.arguments[1].value, 0);
  EXPECT_EQ(g.value(program.arguments[1].value).name, "x");
  EXPECT_EQ(g.value(program.arguments[0].value).name, "unused");  // leaves are kept
  EXPECT_EQ(program.results[0].value, g.outputs()[0]);
  EXPECT_EQ(g.value(program.results[0].value).name, "out");  // named for the plan's tensor list
  EXPECT_EQ(g.op(g.value(program.results[0].value).producer).kind, OpKind::kSoftmax);
  EXPECT_EQ(g.attrs().GetString("latent_input").value_or(""), "x");
}

TEST(ImportDit, JointAttentionOverImageAndTextIsRecognized) {
  // img [1, 12, 8] and txt [1, 4, 8] projected, concatenated along the
  // sequence, self-attended: HunyuanVideo's double-stream block in miniature.
  GraphBuilder b("joint");
  ValueId img = b.Input("img", DType::kF32, {1, 12, 8});
  ValueId txt = b.Input("txt", DType::kF32, {1, 4, 8});
  auto heads = [&](const std::string& name, ValueId v, int64_t len) {
    return b.Reshape(name, v, {1, len, 2, 4});
  };
  ValueId q = b.Concat("q", {heads("img_q", b.Linear("img_attn_q", img, 8), 12), heads("txt_q", b.Linear("txt_attn_q", txt, 8), 4)}, 1);
  ValueId k = b.Concat("k", {heads("img_k", b.Linear("img_attn_k", img, 8), 12), heads("txt_k", b.Linear("txt_attn_k", txt, 8), 4)}, 1);
  ValueId v = b.Concat("v", {heads("img_v", b.Linear("img_attn_v", img, 8), 12), heads("txt_v", b.Linear("txt_attn_v", txt, 8), 4)}, 1);
  b.Output(b.Attention("attn", q, k, v, "self"));
  pir::Graph g = b.Finish();
  auto notes = AnnotateDit(g, "");
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  EXPECT_EQ(g.attrs().GetString("latent_input").value_or(""), "img");
  EXPECT_EQ(g.attrs().GetInt("video_tokens").value_or(-1), 12);
  EXPECT_EQ(g.attrs().GetInt("text_tokens").value_or(-1), 4);
  for (const pir::Op& op : g.ops()) {
    if (op.kind != OpKind::kAttention) continue;
    EXPECT_EQ(op.attrs.GetString("mode").value_or(""), "joint");
    EXPECT_EQ(op.attrs.GetInt("joint_tail").value_or(-1), 4);
  }
  EXPECT_TRUE(pir::VerifyGraph(g).ok());
  // Naming the latent explicitly; a wrong name lists the inputs.
  auto wrong = AnnotateDit(g, "video");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("inputs: img, txt"), std::string::npos) << wrong.status().message();
}

}  // namespace
}  // namespace az::frontend
