// Semantic checks of sharding plans: a tiny DiT block run unpartitioned and
// partitioned (every device simulated, collectives on data) must agree, for
// every expert strategy; deliberately wrong plans must not.
#include "compile/interpret/interpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compile/interpret/testing.h"
#include "pir/build/graph_builder.h"
#include "pir/verify/verifier.h"
#include "shard/templates.h"

namespace az::compile {
namespace {

using interpret_test::RelativeError;

// The leaves of these tests.
std::map<ValueId, Tensor> RandomLeaves(const pir::Graph& graph, uint32_t seed = 20240611) {
  return interpret_test::RandomLeaves(graph, seed);
}

constexpr int64_t kBatch = 2, kTokens = 8, kModel = 16, kHeads = 4, kHeadDim = 4, kHidden = 32;

// One Wan-style block, named like the zoo so that the templates recognize it:
// x [2, 8, 16] -> layer_norm -> q, k, v -> heads [2, 8, 4, 4] -> rope(q, k) ->
// self attention -> o -> +x -> layer_norm -> ffn.0 (16 -> 32) -> gelu_tanh ->
// ffn.2 (32 -> 16) -> +.
pir::Graph TinyDit() {
  GraphBuilder b("tiny_dit");
  b.graph().attrs().Set("model", std::string("tiny_dit"));
  b.graph().attrs().Set("video_tokens", kTokens);
  b.graph().attrs().Set("batch", kBatch);
  ValueId x = b.Input("latent", DType::kF32, {kBatch, kTokens, kModel});
  ValueId table = b.Constant("rope_table", DType::kF32, {kTokens, kHeadDim});
  GraphBuilder::Scope block(b, "blocks.0");
  ValueId n1 = b.LayerNorm("norm1", x, /*affine=*/false, 1e-6);
  ValueId attn_out;
  {
    GraphBuilder::Scope attn(b, "self_attn");
    pir::Shape heads{kBatch, kTokens, kHeads, kHeadDim};
    ValueId q = b.Rope("rope_q", b.Reshape("q_heads", b.Linear("q", n1, kModel), heads), table, {kHeadDim});
    ValueId k = b.Rope("rope_k", b.Reshape("k_heads", b.Linear("k", n1, kModel), heads), table, {kHeadDim});
    ValueId v = b.Reshape("v_heads", b.Linear("v", n1, kModel), heads);
    ValueId a = b.Attention("attention", q, k, v, "self");
    attn_out = b.Linear("o", b.Reshape("merge_heads", a, {kBatch, kTokens, kModel}), kModel);
  }
  ValueId x1 = b.Binary(OpKind::kAdd, "residual1", x, attn_out);
  ValueId n2 = b.LayerNorm("norm2", x1, /*affine=*/false, 1e-6);
  ValueId f;
  {
    GraphBuilder::Scope ffn(b, "ffn");
    ValueId h = b.Unary(OpKind::kGeluTanh, "1", b.Linear("0", n2, kHidden));
    f = b.Linear("2", h, kModel);
  }
  b.Output(b.Binary(OpKind::kAdd, "residual2", x1, f));
  return b.Finish();
}

pir::OpId FindOp(const pir::Graph& graph, const std::string& name) {
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    if (graph.op(id).name == name) return id;
  }
  ADD_FAILURE() << "no op '" << name << "'";
  return 0;
}

// The axes plan gives factor `factor` of op `op`.
std::vector<int> FactorAxes(const pir::Graph& graph, const shard::ShardingPlan& plan, const std::string& op,
                            const std::string& factor) {
  pir::OpId id = FindOp(graph, op);
  const pir::FactorRule& rule = plan.rules[static_cast<size_t>(id)];
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].name == factor) return plan.ops[static_cast<size_t>(id)].factor_axes[f];
  }
  ADD_FAILURE() << "op '" << op << "' has no factor '" << factor << "'";
  return {};
}

// The plan that propagates `graph`'s input `x` split as `sharding` over the
// two devices of mesh x=2 (the InterpreterNormalized tests).
StatusOr<shard::ShardingPlan> PropagateOverX2(const pir::Graph& graph, ValueId x, shard::TensorSharding sharding) {
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse("x=2"));
  shard::Seeds seeds;
  seeds.values[x] = std::move(sharding);
  return shard::Propagate(graph, mesh, seeds);
}

// The partitioned run of `plan` on random leaves matches the reference within
// 1e-12 (relative).
void ExpectMatchesReference(const pir::Graph& graph, const shard::ShardingPlan& plan) {
  auto leaves = RandomLeaves(graph);
  auto reference = RunReference(graph, leaves);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  auto got = RunPartitioned(graph, plan, leaves);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_LE(RelativeError(*got, *reference), 1e-12);
}

class InterpreterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_ = TinyDit();
    Status status = pir::VerifyGraph(graph_);
    ASSERT_TRUE(status.ok()) << status.ToString();
    leaves_ = RandomLeaves(graph_);
    auto reference = RunReference(graph_, leaves_);
    ASSERT_TRUE(reference.ok()) << reference.status().ToString();
    reference_ = std::move(reference).value();
  }

  shard::ShardingPlan Plan(const std::string& mesh_text, const std::string& spec) {
    auto mesh = shard::Mesh::Parse(mesh_text);
    EXPECT_TRUE(mesh.ok()) << mesh.status().ToString();
    auto seeds = shard::TemplateSeeds(graph_, *mesh, spec);
    EXPECT_TRUE(seeds.ok()) << spec << ": " << seeds.status().ToString();
    auto plan = shard::Propagate(graph_, *mesh, *seeds);
    EXPECT_TRUE(plan.ok()) << spec << ": " << plan.status().ToString();
    Status verified = shard::VerifyPlan(graph_, *plan);
    EXPECT_TRUE(verified.ok()) << spec << ": " << verified.ToString();
    return std::move(plan).value();
  }

  // The partitioned run agrees with the reference within 1e-9 (relative).
  void ExpectAgrees(const shard::ShardingPlan& plan, const std::string& what) {
    auto got = RunPartitioned(graph_, plan, leaves_);
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
    EXPECT_LE(RelativeError(*got, reference_), 1e-9) << what;
  }

  // A wrong plan either fails to run (replicas that disagree, say) or
  // computes something else.
  void ExpectDisagrees(const shard::ShardingPlan& plan, const PartitionedOptions& options, const std::string& what) {
    auto got = RunPartitioned(graph_, plan, leaves_, options);
    if (!got.ok()) {
      SUCCEED() << what << ": " << got.status().ToString();
      return;
    }
    EXPECT_GT(RelativeError(*got, reference_), 1e-3) << what;
  }

  pir::Graph graph_;
  std::map<ValueId, Tensor> leaves_;
  std::vector<Tensor> reference_;
};

TEST_F(InterpreterTest, ReferenceIsDeterministicAndFinite) {
  auto again = RunReference(graph_, leaves_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(RelativeError(*again, reference_), 0.0);
  ASSERT_EQ(reference_.size(), 1u);
  EXPECT_EQ(reference_[0].shape, (pir::Shape{kBatch, kTokens, kModel}));
  for (double v : reference_[0].data) EXPECT_TRUE(std::isfinite(v));
}

TEST_F(InterpreterTest, DataParallel) {
  shard::ShardingPlan plan = Plan("x=2", "dp=x");
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "b"), std::vector<int>{0});
  ExpectAgrees(plan, "dp");
}

TEST_F(InterpreterTest, TensorParallel) {
  shard::ShardingPlan plan = Plan("x=2", "tp=x");
  // Column-parallel q, row-parallel o (its result a partial sum), heads split.
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.q", "y"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.o", "z"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.ffn.2", "z"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "h"), std::vector<int>{0});
  ExpectAgrees(plan, "tp");
}

TEST_F(InterpreterTest, Ulysses) {
  shard::ShardingPlan plan = Plan("x=2", "ulysses=x");
  // Heads inside attention, the sequence outside (so all-to-alls between).
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "h"), std::vector<int>{0});
  EXPECT_TRUE(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "q").empty());
  // Linear "abz,zy->aby": b is the token dim.
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.ffn.0", "b"), std::vector<int>{0});
  ExpectAgrees(plan, "ulysses");
}

TEST_F(InterpreterTest, RingAttention) {
  shard::ShardingPlan plan = Plan("x=2", "ring=x");
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "q"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "kv"), std::vector<int>{0});
  ExpectAgrees(plan, "ring");
}

TEST_F(InterpreterTest, Fsdp) {
  shard::ShardingPlan plan = Plan("x=2", "fsdp=x");
  // Weights are stored sharded and all-gathered before use.
  bool any_stored_sharded = false;
  for (ValueId id = 0; id < graph_.num_values(); ++id) {
    if (graph_.value(id).role == pir::ValueRole::kParameter) {
      any_stored_sharded |= !plan.values[static_cast<size_t>(id)].IsReplicated();
    }
  }
  EXPECT_TRUE(any_stored_sharded);
  ExpectAgrees(plan, "fsdp");
}

TEST_F(InterpreterTest, UnifiedSequenceParallel) {
  shard::ShardingPlan plan = Plan("u=2,r=2", "usp:ulysses=u,ring=r");
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "h"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "kv"), std::vector<int>{1});
  ExpectAgrees(plan, "usp");
}

TEST_F(InterpreterTest, Combinations) {
  ExpectAgrees(Plan("x=2,y=2", "dp=x,fsdp=y"), "dp + fsdp");
  ExpectAgrees(Plan("x=2,y=2", "ulysses=x,tp=y"), "ulysses + tp");
  ExpectAgrees(Plan("x=2,y=2", "dp=x,ring=y"), "dp + ring");
}

// Per-part hybrids (templates.h): tp inside some block parts on a sequence
// axis, the sequence gathered at the parts' entry and reduce-scattered at
// their exit. The tiny block's parts are self_attn and ffn (its norms sit
// outside them, in the stream's split).
TEST_F(InterpreterTest, PerPartHybrids) {
  shard::ShardingPlan plan = Plan("x=2", "ulysses=x,tp=x@ffn");
  // The FFN splits its hidden width on x and contracts it partially; the
  // self-attention is Ulysses (heads inside, the sequence outside).
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.ffn.0", "y"), std::vector<int>{0});
  EXPECT_TRUE(FactorAxes(graph_, plan, "blocks.0.ffn.0", "b").empty());
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.ffn.2", "z"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph_, plan, "blocks.0.self_attn.attention", "h"), std::vector<int>{0});
  // The stream leaves the FFN split by the sequence again (reduce-scattered).
  const ValueId out = graph_.op(FindOp(graph_, "blocks.0.residual2")).results[0];
  EXPECT_EQ(plan.values[static_cast<size_t>(out)].dims[1], std::vector<int>{0});
  ExpectAgrees(plan, "ulysses + tp@ffn");
  ExpectAgrees(Plan("x=2", "ring=x,tp=x@ffn"), "ring + tp@ffn");
  ExpectAgrees(Plan("x=2", "ring=x,tp=x@self_attn"), "ring + tp@self_attn");
  ExpectAgrees(Plan("x=2", "ring=x,tp=x@ffn+self_attn"), "ring + tp@ffn+self_attn");
  ExpectAgrees(Plan("u=2,r=2", "usp:ulysses=u,ring=r,tp=u@ffn"), "usp + tp@ffn");
  ExpectAgrees(Plan("x=2,y=2", "dp=x,context=y,tp=y@ffn,fsdp=x+y"), "dp + context + tp@ffn + fsdp");
}

// Negative control: the row-parallel o projection's result is a partial sum
// over x; a plan that forgets it (no all-reduce before the residual) must not
// pass.
TEST_F(InterpreterTest, DroppedPartialSumIsCaught) {
  shard::ShardingPlan plan = Plan("x=2", "tp=x");
  ExpectAgrees(plan, "tp, intact");
  pir::OpId o = FindOp(graph_, "blocks.0.self_attn.o");
  auto& produced = plan.values[static_cast<size_t>(graph_.op(o).results[0])];
  ASSERT_EQ(produced.partial, std::vector<int>{0});
  produced.partial.clear();
  ExpectDisagrees(plan, {}, "tp without the partial sum");
}

// Negative control: a bias fused into a partial-sum matmul must be added on one
// device of the group, not on every one (the sum would count it twice).
TEST_F(InterpreterTest, BiasOnEveryPartialDeviceIsCaught) {
  PartitionedOptions naive;
  naive.bias_once_per_partial_group = false;
  ExpectDisagrees(Plan("x=2", "tp=x"), naive, "tp with the bias on every device");
}

// Negative control: ring attention whose kv axis is taken off q becomes
// per-block softmaxes, which the interpreter refuses rather than sum.
TEST_F(InterpreterTest, KeyShardedWithoutRingIsRefused) {
  shard::ShardingPlan plan = Plan("x=2", "ring=x");
  pir::OpId attention = FindOp(graph_, "blocks.0.self_attn.attention");
  const pir::FactorRule& rule = plan.rules[static_cast<size_t>(attention)];
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].name == "q") plan.ops[static_cast<size_t>(attention)].factor_axes[f].clear();
  }
  auto got = RunPartitioned(graph_, plan, leaves_);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUnimplemented) << got.status().ToString();
}

// Norms and a softmax with their normalized dim split over x: each device
// holds half the features; the partitioned run (statistics over the group)
// must match the whole-row reference. A kernel that normalized each half on
// its own would not.
TEST(InterpreterNormalized, ShardedFeaturesMatchTheReference) {
  pir::GraphBuilder b("norms");
  ValueId x = b.Input("x", pir::DType::kF32, {2, 8, 16});
  ValueId n = b.LayerNorm("ln", x, /*affine=*/true, 1e-6);
  ValueId r = b.RmsNorm("rms", n, /*affine=*/true, 1e-6);
  pir::Attributes axis;
  axis.Set("axis", int64_t{-1});
  b.Output(b.AddOp1(pir::OpKind::kSoftmax, "softmax", {r}, axis));
  pir::Graph graph = b.Finish();
  auto plan = PropagateOverX2(graph, x, shard::TensorSharding{{{}, {}, {0}}, {}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  for (const char* op : {"ln", "rms"}) EXPECT_EQ(FactorAxes(graph, *plan, op, "n"), std::vector<int>{0}) << op;
  EXPECT_EQ(FactorAxes(graph, *plan, "softmax", "d2"), std::vector<int>{0});
  ExpectMatchesReference(graph, *plan);
}

// The VAE ops on hand-computed values.
// group_norm of x [1, 4, 2] (2 groups): group 0 = channels 0-1 = {1, 3, 5, 7},
// mean 4, variance (9 + 1 + 1 + 9) / 4 = 5; group 1 = {2, 4, 6, 8}, mean 5, variance 5.
// rms_norm over axis 1 of [1, 2, 2]: column 0 = {3, 4}, rms sqrt(12.5).
// upsample [1, 2] by [1, 2]: each element twice.
TEST(InterpreterReferenceTest, VaeOpsOnHandComputedValues) {
  GraphBuilder b("vae_ops");
  ValueId x = b.Input("x", DType::kF32, {1, 4, 2});
  pir::Attributes groups;
  groups.Set("groups", int64_t{2});
  groups.Set("eps", 0.0);
  b.Output(b.AddOp1(OpKind::kGroupNorm, "gn", {x}, groups));
  ValueId y = b.Input("y", DType::kF32, {1, 2, 2});
  pir::Attributes axis;
  axis.Set("axis", int64_t{1});
  axis.Set("eps", 0.0);
  b.Output(b.AddOp1(OpKind::kRmsNorm, "rms", {y}, axis));
  ValueId u = b.Input("u", DType::kF32, {1, 2});
  pir::Attributes scale;
  scale.Set("scale", std::vector<int64_t>{1, 2});
  b.Output(b.AddOp1(OpKind::kUpsample, "up", {u}, scale));
  pir::Graph graph = b.Finish();
  std::map<ValueId, Tensor> leaves;
  // x[0, c, s], row-major: channels 0-1 = {1, 3}, {5, 7}; channels 2-3 = {2, 4}, {6, 8}.
  leaves[x] = Tensor{{1, 4, 2}, {1, 3, 5, 7, 2, 4, 6, 8}};
  // y[0, c, s]: channel 0 = {3, 0}, channel 1 = {4, 2}.
  leaves[y] = Tensor{{1, 2, 2}, {3, 0, 4, 2}};
  leaves[u] = Tensor{{1, 2}, {5, -1}};
  auto got = RunReference(graph, leaves);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const double s5 = std::sqrt(5.0);
  std::vector<double> gn{-3 / s5, -1 / s5, 1 / s5, 3 / s5, -3 / s5, -1 / s5, 1 / s5, 3 / s5};
  // Column 0: rms = sqrt((9 + 16) / 2); column 1: sqrt((0 + 4) / 2) = sqrt(2).
  const double r0 = std::sqrt(12.5), r1 = std::sqrt(2.0);
  std::vector<double> rms{3 / r0, 0, 4 / r0, 2 / r1};
  std::vector<double> up{5, 5, -1, -1};
  const std::vector<double>* expected[] = {&gn, &rms, &up};
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ((*got)[i].data.size(), expected[i]->size()) << i;
    for (size_t j = 0; j < expected[i]->size(); ++j) EXPECT_NEAR((*got)[i].data[j], (*expected[i])[j], 1e-12) << i << "," << j;
  }
}

// Group norm with a spatial dim split over x: each device holds half the
// frames of every group; the statistics all-reduced over x give the whole
// group's, so the partitioned run matches the reference.
TEST(InterpreterNormalized, GroupNormShardedFramesMatchTheReference) {
  GraphBuilder b("group_norm");
  ValueId x = b.Input("x", DType::kF32, {2, 8, 4, 3});
  ValueId w = b.Param("w", DType::kF32, {8});
  ValueId bias = b.Param("b", DType::kF32, {8});
  pir::Attributes groups;
  groups.Set("groups", int64_t{4});
  groups.Set("eps", 1e-6);
  b.Output(b.AddOp1(OpKind::kGroupNorm, "gn", {x, w, bias}, groups));
  pir::Graph graph = b.Finish();
  auto plan = PropagateOverX2(graph, x, shard::TensorSharding{{{}, {}, {0}, {}}, {}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(FactorAxes(graph, *plan, "gn", "s0"), std::vector<int>{0});
  ExpectMatchesReference(graph, *plan);
}

// Replicate padding partitioned: with the unpadded batch dim split over x each
// device pads its own rows and the run matches the reference. A split padded
// dim leaves extended shards (each block with its neighbours' edge rows,
// compile/spmd/halo.h) that only a convolution over the dim reads: read by
// silu, the interpreter refuses it rather than pad each shard's edges
// (windows_test.cc runs the pad before a convolution).
TEST(InterpreterNormalized, PadShardedMatchesTheReference) {
  GraphBuilder b("pad");
  ValueId x = b.Input("x", DType::kF32, {2, 4, 6});
  pir::Attributes pad;
  pad.Set("low", std::vector<int64_t>{0, 2, 1});
  pad.Set("high", std::vector<int64_t>{0, 0, 1});
  pad.Set("mode", std::string("replicate"));
  ValueId padded = b.AddOp1(OpKind::kPad, "pad", {x}, pad);
  b.Output(b.Unary(OpKind::kSilu, "act", padded));
  pir::Graph graph = b.Finish();
  auto plan = PropagateOverX2(graph, x, shard::TensorSharding{{{0}, {}, {}}, {}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ExpectMatchesReference(graph, *plan);
  plan = PropagateOverX2(graph, x, shard::TensorSharding{{{}, {0}, {}}, {}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  interpret_test::ExpectUnimplemented(RunPartitioned(graph, *plan, RandomLeaves(graph)),
                                      "op 'act': reads a split pad's extended shards");
}

// The attention kernel against the same computation spelled out with einsum,
// softmax and a broadcast scale.
TEST(InterpreterReferenceTest, AttentionMatchesEinsumSoftmax) {
  GraphBuilder b("attention_check");
  pir::Shape shape{1, 3, 2, 4};
  ValueId q = b.Input("q", DType::kF32, shape);
  ValueId k = b.Input("k", DType::kF32, shape);
  ValueId v = b.Input("v", DType::kF32, shape);
  ValueId scale = b.Constant("scale", DType::kF32, {1});
  b.Output(b.Attention("attention", q, k, v, "self"));
  ValueId scores = b.Binary(OpKind::kMul, "scaled", b.Einsum("scores", "bqhd,bkhd->bhqk", q, k), scale);
  pir::Attributes axis;
  axis.Set("axis", int64_t{-1});
  ValueId p = b.AddOp1(OpKind::kSoftmax, "softmax", {scores}, axis);
  b.Output(b.Einsum("mix", "bhqk,bkhd->bqhd", p, v));
  pir::Graph graph = b.Finish();
  ASSERT_TRUE(pir::VerifyGraph(graph).ok());
  std::map<ValueId, Tensor> leaves = RandomLeaves(graph, 7);
  leaves[scale].data = {0.5};  // 1 / sqrt(head dim 4)
  auto out = RunReference(graph, leaves);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_LE(RelativeError({(*out)[0]}, {(*out)[1]}), 1e-12);
}

// RoPE pairs (2i, 2i+1) rotate by table[l] = (cos, sin) interleaved.
TEST(InterpreterReferenceTest, RopeRotatesPairs) {
  GraphBuilder b("rope_check");
  ValueId x = b.Input("x", DType::kF32, {1, 1, 1, 2});
  ValueId table = b.Constant("table", DType::kF32, {1, 2});
  b.Output(b.Rope("rope", x, table, {2}));
  pir::Graph graph = b.Finish();
  std::map<ValueId, Tensor> leaves{{x, {{1, 1, 1, 2}, {1.0, 2.0}}}, {table, {{1, 2}, {0.0, 1.0}}}};
  auto out = RunReference(graph, leaves);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // A quarter turn: (1, 2) -> (-2, 1).
  EXPECT_EQ((*out)[0].data, (std::vector<double>{-2.0, 1.0}));
}

TEST(InterpreterReferenceTest, CustomIsUnimplementedAndLeavesAreChecked) {
  GraphBuilder b("custom_check");
  ValueId x = b.Input("x", DType::kF32, {2});
  b.Output(b.Custom("thing", "my_kernel", {x}, {DType::kF32, {2}}));
  pir::Graph graph = b.Finish();
  EXPECT_EQ(RunReference(graph, {}).status().code(), StatusCode::kInvalidArgument);
  auto out = RunReference(graph, {{x, {{2}, {1.0, 2.0}}}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kUnimplemented);
}

// Replicate padding on hand-computed values: x [1, 2, 3] padded 1 row before
// in dim 1 and 2 columns after, 1 before in dim 2. Row 0 = {1, 2, 3},
// row 1 = {4, 5, 6}; each padded column repeats its row's edge, the padded row
// repeats row 0.
TEST(InterpreterReferenceTest, ReplicatePadOnHandComputedValues) {
  GraphBuilder b("pad");
  ValueId x = b.Input("x", DType::kF32, {1, 2, 3});
  pir::Attributes pad;
  pad.Set("low", std::vector<int64_t>{0, 1, 1});
  pad.Set("high", std::vector<int64_t>{0, 0, 2});
  pad.Set("mode", std::string("replicate"));
  b.Output(b.AddOp1(OpKind::kPad, "pad", {x}, pad));
  pir::Graph graph = b.Finish();
  std::map<ValueId, Tensor> leaves;
  leaves[x] = Tensor{{1, 2, 3}, {1, 2, 3, 4, 5, 6}};
  auto got = RunReference(graph, leaves);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)[0].shape, (pir::Shape{1, 3, 6}));
  const std::vector<double> expected{1, 1, 2, 3, 3, 3,   // the replicated row 0
                                     1, 1, 2, 3, 3, 3,   // row 0
                                     4, 4, 5, 6, 6, 6};  // row 1
  EXPECT_EQ((*got)[0].data, expected);
}

}  // namespace
}  // namespace az::compile
