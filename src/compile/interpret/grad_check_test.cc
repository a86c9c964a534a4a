// Numerical gradient checks of the backward rules (src/pir/grad) with the
// reference interpreter, AdamW against a hand computation, and the
// partitioned run of a training step.
//
// Tolerance. The interpreter computes in float64 whatever the declared dtype.
// Central differences with step h = 1e-5 have a truncation error of at most
// h^2 / 6 * |L'''| ~ 2e-11 for the O(1)-scaled third derivatives of these tiny
// graphs, and a rounding error of about eps * |L| / h = 2.2e-16 * |L| / 1e-5 ~
// 2e-11 |L| (|L| is O(1)). Requiring |fd - g| <= 1e-7 * (1 + |g|) leaves three
// orders of magnitude for that, while a wrong rule (a missing factor, a sign,
// a wrong transpose, a dropped broadcast sum) errs by the order of |g| itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>

#include "compile/interpret/interpreter.h"
#include "compile/interpret/testing.h"
#include "pir/grad/adamw.h"
#include "pir/verify/verifier.h"
#include "shard/templates.h"

namespace az::compile {
namespace {

// The leaves of these tests.
std::map<ValueId, Tensor> RandomLeaves(const pir::Graph& graph, uint32_t seed = 20250611) {
  return interpret_test::RandomLeaves(graph, seed);
}

constexpr double kStep = 1e-5;
constexpr double kTolerance = 1e-7;

ValueId MeanSquareError(GraphBuilder& b, ValueId y, ValueId target) {
  GraphBuilder::Scope scope(b, "loss");
  ValueId error = b.Binary(OpKind::kSub, "error", y, target);
  std::vector<int64_t> all;
  for (int64_t d = 0; d < b.type(y).rank(); ++d) all.push_back(d);
  return b.Reduce("mean", b.Binary(OpKind::kMul, "squared", error, error), all, "mean");
}

std::vector<ValueId> Params(const pir::Graph& g) {
  std::vector<ValueId> params;
  for (ValueId id = 0; id < g.num_values(); ++id) {
    if (g.value(id).role == pir::ValueRole::kParameter) params.push_back(id);
  }
  return params;
}

// A Wan-like step on tiny sizes, every op kind of the zoo's DiTs on a gradient
// path: patchify conv3d, transpose/reshape, a SiLU time MLP broadcast over
// the tokens, modulation chunks (slices) applied as shift/scale/gate, layer
// norm (plain and affine), RMS norm, RoPE, self attention, cross attention
// over the concatenation of text and video tokens, GELU(tanh) FFN, an
// unpatchify transpose, converts, and the flow-matching MSE.
struct TinyWan {
  pir::Graph graph;
  std::vector<ValueId> params;
  int recomputed_ops = 0;
};

// with_adamw: the outputs are the loss and every parameter after an AdamW
// step (inputs optimizer.lr and optimizer.step); else the loss and the gradients.
// text_cross: cross attention over the text alone, as Wan's (the concat of
// text and video rows would need a sharded concat under sequence parallelism,
// which the interpreter does not run). wan_parts: the attentions scoped and
// named as Wan's block parts ("blocks.0.self_attn.q", "blocks.0.cross_attn.o";
// the FFN is "blocks.0.ffn.0" either way), so that a per-part tp
// (shard/templates.h) finds them.
TinyWan BuildTinyWan(pir::RematPolicy policy, bool with_adamw = false, bool text_cross = false,
                     bool wan_parts = false) {
  constexpr int64_t kB = 2, kC = 2, kT = 2, kH = 4, kW = 4, kDim = 8, kHeads = 2, kHeadDim = 4, kText = 3;
  constexpr int64_t kTokens = kT * (kH / 2) * (kW / 2);
  GraphBuilder b("tiny_wan.train");
  b.set_attention_lse(true);
  b.graph().attrs().Set("model", std::string("tiny_wan"));
  b.graph().attrs().Set("video_tokens", kTokens);
  b.graph().attrs().Set("batch", kB);
  // With AdamW, a training step as the templates read one (frontend/zoo/train.cc):
  // fsdp is ZeRO-3, backward einsums split as their forwards.
  if (with_adamw) b.graph().attrs().Set("graph", std::string("train_step"));
  const pir::Shape latent{kB, kC, kT, kH, kW};
  ValueId x = b.Input("latent", DType::kF32, latent);
  ValueId freq = b.Input("time_freq", DType::kF32, {kB, 4});
  ValueId context = b.Input("context", DType::kF32, {kB, kText, 6});
  ValueId target = b.Input("target", DType::kF32, latent);
  ValueId table = b.Constant("rope.table", DType::kF32, {kTokens, kHeadDim});
  const pir::Shape heads{kB, kTokens, kHeads, kHeadDim}, tokens{kB, kTokens, kDim};
  ValueId h;
  {
    GraphBuilder::Scope scope(b, "patch_embedding");
    ValueId w = b.Param("weight", DType::kF32, {kDim, kC, 1, 2, 2});
    ValueId bias = b.Param("bias", DType::kF32, {kDim});
    pir::Attributes attrs;
    attrs.Set("stride", std::vector<int64_t>{1, 2, 2});
    ValueId conv = b.AddOp1(OpKind::kConv3d, "conv", {x, w, bias}, attrs);
    h = b.Transpose("to_tokens", b.Reshape("flatten", conv, {kB, kDim, kTokens}), {0, 2, 1});
  }
  ValueId e = b.Unary(OpKind::kSilu, "time.silu", b.Linear("time.linear", freq, kDim));
  h = b.Binary(OpKind::kAdd, "time.add", h, b.Broadcast("time.per_token", e, tokens, {0, 2}));
  ValueId text = b.Unary(OpKind::kGeluTanh, "text.gelu", b.Linear("text.linear", context, kDim));
  const pir::OpId block_begin = b.graph().num_ops();
  {
    GraphBuilder::Scope scope(b, "blocks.0");
    ValueId mod = b.Param("modulation", DType::kF32, {1, 3, kDim});
    ValueId shift = b.SliceAxis("shift", mod, 1, 0, 1);
    ValueId scale = b.SliceAxis("scale", mod, 1, 1, 2);
    ValueId gate = b.SliceAxis("gate", mod, 1, 2, 3);
    ValueId n = b.LayerNorm("norm1", h, /*affine=*/false, 1e-6);
    ValueId m = b.Binary(OpKind::kAdd, "shifted",
                         b.Binary(OpKind::kAdd, "scaled", n, b.Binary(OpKind::kMul, "scale_mul", n, scale)), shift);
    ValueId o;
    {
      std::optional<GraphBuilder::Scope> part;
      if (wan_parts) part.emplace(b, "self_attn");
      m = b.Convert("cast", m, DType::kBF16);
      ValueId q = b.RmsNorm("norm_q", b.Linear("q", m, kDim), /*affine=*/true, 1e-6);
      ValueId qh = b.Rope("rope_q", b.Reshape("q_heads", q, heads), table, {kHeadDim});
      ValueId kh = b.Rope("rope_k", b.Reshape("k_heads", b.Linear("k", m, kDim), heads), table, {kHeadDim});
      ValueId vh = b.Reshape("v_heads", b.Linear("v", m, kDim), heads);
      ValueId a = b.Attention("self_attention", qh, kh, vh, "self");
      o = b.Convert("o_f32", b.Linear("o", b.Reshape("merge", a, tokens), kDim), DType::kF32);
    }
    h = b.Binary(OpKind::kAdd, "residual1", h, b.Binary(OpKind::kMul, "gated", o, gate));
    // Cross attention from the video tokens to [text; video].
    ValueId joint = text_cross ? text : b.Concat("joint", {text, h}, 1);
    const pir::Shape joint_heads{kB, kText + (text_cross ? 0 : kTokens), kHeads, kHeadDim};
    ValueId c;
    {
      std::optional<GraphBuilder::Scope> part;
      if (wan_parts) part.emplace(b, "cross_attn");
      auto name = [&](const std::string& leaf) { return wan_parts ? leaf : leaf + "2"; };
      ValueId normed = b.LayerNorm("norm3", h, /*affine=*/true, 1e-6);
      ValueId q2 = b.Reshape(name("q") + "_heads", b.Linear(name("q"), normed, kDim), heads);
      ValueId k2 = b.Reshape(name("k") + "_heads", b.Linear(name("k"), joint, kDim), joint_heads);
      ValueId v2 = b.Reshape(name("v") + "_heads", b.Linear(name("v"), joint, kDim), joint_heads);
      c = b.Linear(name("o"), b.Reshape("merge2", b.Attention("cross_attention", q2, k2, v2, "cross"), tokens), kDim);
    }
    h = b.Binary(OpKind::kAdd, "residual2", h, c);
    ValueId f =
        b.Unary(OpKind::kGeluTanh, "ffn.1", b.Linear("ffn.0", b.LayerNorm("norm2", h, /*affine=*/true, 1e-6), 16));
    h = b.Binary(OpKind::kAdd, "residual3", h, b.Linear("ffn.2", f, kDim));
  }
  const pir::OpId block_end = b.graph().num_ops();
  ValueId y = b.Linear("head", h, 2 * 2 * kC);
  ValueId grid = b.Reshape("unpatchify.split", y, {kB, kT, kH / 2, kW / 2, 1, 2, 2, kC});
  ValueId video =
      b.Reshape("unpatchify.merge", b.Transpose("unpatchify.permute", grid, {0, 7, 1, 4, 2, 5, 3, 6}), latent);
  ValueId loss = MeanSquareError(b, video, target);
  TinyWan t;
  t.params = Params(b.graph());
  pir::BackwardOptions options;
  options.remat.push_back({block_begin, block_end, policy});
  auto backward = pir::AppendBackward(b, loss, t.params, options);
  AZ_CHECK_MSG(backward.ok(), backward.status().ToString());
  t.recomputed_ops = backward->recomputed_ops;
  b.Output(loss);
  if (with_adamw) {
    ValueId lr = b.Input("optimizer.lr", DType::kF32, {});
    ValueId step = b.Input("optimizer.step", DType::kF32, {});
    pir::AdamWScalars scalars = pir::AppendAdamWScalars(b, lr, step, {});
    for (size_t i = 0; i < t.params.size(); ++i) {
      b.Output(pir::AppendAdamWUpdate(b, pir::DeclareAdamWState(b, t.params[i]), backward->grads[i], scalars).param);
    }
  } else {
    for (ValueId g : backward->grads) {
      AZ_CHECK(g != pir::kNoValue);
      b.Output(g);
    }
  }
  t.graph = b.Finish();
  return t;
}

// Every element-wise, binary, reduce and layout rule on [3, 5] parameters.
TinyWan BuildOpZoo() {
  GraphBuilder b("op_zoo");
  ValueId x = b.Param("x", DType::kF32, {3, 5});
  ValueId p = b.Param("p", DType::kF32, {5});
  ValueId s = b.Param("s", DType::kF32, {3, 1});
  auto un = [&](OpKind kind, const std::string& name, ValueId v) { return b.Unary(kind, name, v); };
  auto bin = [&](OpKind kind, const std::string& name, ValueId u, ValueId v) { return b.Binary(kind, name, u, v); };
  pir::Attributes axis;
  axis.Set("axis", int64_t{-1});
  // One building call per argument list (src/pir/build/graph_builder.h, Op order).
  ValueId x2 = bin(OpKind::kMul, "x2", x, x);
  ValueId pos = bin(OpKind::kAdd, "pos", x2, b.Full("one", DType::kF32, {}, 1.0));
  ValueId exp_tanh = un(OpKind::kExp, "exp", un(OpKind::kTanh, "tanh", x));
  ValueId sigmoid = un(OpKind::kSigmoid, "sigmoid", p);
  ValueId sqrt = un(OpKind::kSqrt, "sqrt", pos);
  ValueId recip = un(OpKind::kRecip, "recip", un(OpKind::kLog, "log", bin(OpKind::kAdd, "pos1", pos, pos)));
  ValueId sin = un(OpKind::kSin, "sin", x);
  ValueId cos = un(OpKind::kCos, "cos", p);
  std::vector<ValueId> terms{
      b.AddOp1(OpKind::kSoftmax, "softmax", {x}, axis),
      un(OpKind::kGelu, "gelu", x),
      bin(OpKind::kMul, "exp_tanh_sigmoid", exp_tanh, sigmoid),
      un(OpKind::kRsqrt, "rsqrt", pos),
      bin(OpKind::kDiv, "div", sqrt, recip),
      un(OpKind::kAbs, "abs", x),
      bin(OpKind::kMul, "sin_cos", sin, cos),
      un(OpKind::kErf, "erf", x),
      bin(OpKind::kSub, "neg_s", un(OpKind::kNeg, "neg", s), x),
      bin(OpKind::kMax, "max", x, un(OpKind::kSilu, "silu", p)),
      bin(OpKind::kMin, "min", x, s),
      bin(OpKind::kPow, "pow", pos, s),
      b.Convert("f32", b.Convert("bf16", un(OpKind::kGeluTanh, "gelu_tanh", x), DType::kBF16), DType::kF32),
      b.Reshape("back", b.Transpose("t", b.Reshape("flat", x, {15}), {0}), {3, 5}),
      b.Concat("cat", {b.SliceAxis("right", x, 1, 2, 5), b.SliceAxis("left", x, 1, 0, 2)}, 1),
      b.Broadcast("row_max", b.Reduce("max_r", x, {1}, "max"), {3, 5}, {0}),
      b.Broadcast("col_sum", b.Reduce("sum_c", bin(OpKind::kMul, "xp", x, p), {0}, "sum"), {3, 5}, {1}),
  };
  pir::Attributes gt;
  gt.Set("direction", std::string("GT"));
  ValueId positive = b.AddOp1(OpKind::kCompare, "positive", {x, b.Full("zero", DType::kF32, {}, 0.0)}, gt);
  terms.push_back(b.AddOp1(OpKind::kWhere, "where", {positive, bin(OpKind::kMul, "px", p, x), s}));
  ValueId total = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) total = bin(OpKind::kAdd, "sum" + std::to_string(i), total, terms[i]);
  ValueId loss = b.Reduce("loss", bin(OpKind::kMul, "total2", total, total), {0, 1}, "mean");
  TinyWan t;
  t.params = Params(b.graph());
  auto backward = pir::AppendBackward(b, loss, t.params);
  AZ_CHECK_MSG(backward.ok(), backward.status().ToString());
  b.Output(loss);
  for (ValueId g : backward->grads) b.Output(g);
  t.graph = b.Finish();
  return t;
}

// Max over every parameter element of |fd - g| / (1 + |g|), where outputs[0]
// is the loss and outputs[1 + i] the gradient of params[i].
double MaxGradientError(const TinyWan& t, std::map<ValueId, Tensor> leaves) {
  auto base = RunReference(t.graph, leaves);
  EXPECT_TRUE(base.ok()) << base.status().ToString();
  if (!base.ok()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < t.params.size(); ++i) {
    Tensor& value = leaves[t.params[i]];
    const Tensor& grad = (*base)[1 + i];
    for (size_t e = 0; e < value.data.size(); ++e) {
      const double saved = value.data[e];
      value.data[e] = saved + kStep;
      const double up = (*RunReference(t.graph, leaves))[0].data[0];
      value.data[e] = saved - kStep;
      const double down = (*RunReference(t.graph, leaves))[0].data[0];
      value.data[e] = saved;
      const double fd = (up - down) / (2 * kStep);
      const double error = std::abs(fd - grad.data[e]) / (1 + std::abs(grad.data[e]));
      EXPECT_LE(error, kTolerance) << t.graph.value(t.params[i]).name << "[" << e << "]: finite difference " << fd
                                   << ", backward " << grad.data[e];
      worst = std::max(worst, error);
    }
  }
  return worst;
}

std::string Scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2e", value);
  return text;
}

TEST(GradCheck, TinyWanBlockMatchesFiniteDifferences) {
  TinyWan t = BuildTinyWan(pir::RematPolicy::kNone);
  ASSERT_TRUE(pir::VerifyGraph(t.graph).ok()) << pir::VerifyGraph(t.graph).ToString();
  double worst = MaxGradientError(t, RandomLeaves(t.graph));
  RecordProperty("max_relative_error", Scientific(worst));
  EXPECT_LE(worst, kTolerance);
}

TEST(GradCheck, EveryPointwiseAndLayoutRuleMatchesFiniteDifferences) {
  TinyWan t = BuildOpZoo();
  ASSERT_TRUE(pir::VerifyGraph(t.graph).ok()) << pir::VerifyGraph(t.graph).ToString();
  double worst = MaxGradientError(t, RandomLeaves(t.graph, 7));
  RecordProperty("max_relative_error", Scientific(worst));
  EXPECT_LE(worst, kTolerance);
}

TEST(GradCheck, RematerializationComputesTheSameGradients) {
  // The recomputed ops rerun the same kernels on the same inputs, so the
  // gradients agree to the last bit (up to 1e-14 relative for safety).
  TinyWan none = BuildTinyWan(pir::RematPolicy::kNone);
  auto leaves = RandomLeaves(none.graph);
  auto want = RunReference(none.graph, leaves);
  ASSERT_TRUE(want.ok());
  for (pir::RematPolicy policy : {pir::RematPolicy::kFull, pir::RematPolicy::kSelected}) {
    TinyWan t = BuildTinyWan(policy);
    EXPECT_GT(t.recomputed_ops, 0);
    ASSERT_TRUE(pir::VerifyGraph(t.graph).ok());
    auto got = RunReference(t.graph, leaves);  // the leaves are declared in the same order
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want->size());
    for (size_t o = 0; o < got->size(); ++o) {
      for (size_t i = 0; i < (*got)[o].data.size(); ++i) {
        EXPECT_NEAR((*got)[o].data[i], (*want)[o].data[i], 1e-14 * (1 + std::abs((*want)[o].data[i])));
      }
    }
  }
}

// Random leaves for a training step: step 3, learning rate 0.01, every second
// moment non-negative.
std::map<ValueId, Tensor> StepLeaves(const pir::Graph& graph) {
  auto leaves = RandomLeaves(graph);
  for (auto& [id, tensor] : leaves) {
    const std::string& name = graph.value(id).name;
    if (name == "optimizer.step") tensor.data = {3};
    if (name == "optimizer.lr") tensor.data = {0.01};
    if (name.ends_with(".exp_avg_sq")) {
      for (double& v : tensor.data) v = std::abs(v);
    }
  }
  return leaves;
}

// The partitioned step's outputs (loss, updated parameters and moments) are
// the reference's within 1e-9 relative to 1 + |want|.
void ExpectSameStep(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    for (size_t i = 0; i < got[o].data.size(); ++i) {
      EXPECT_NEAR(got[o].data[i], want[o].data[i], 1e-9 * (1 + std::abs(want[o].data[i]))) << "output " << o;
    }
  }
}

TEST(GradCheck, DataParallelTrainingStepComputesTheReferenceStep) {
  // Every device runs its half of the batch; weight gradients leave the
  // backward as partial sums over "dp" and are all-reduced before AdamW, which
  // is not linear in them: a plan that skipped the all-reduce would update the
  // weights from half a gradient. The simulated devices must reproduce the
  // whole step (loss and every updated parameter).
  TinyWan t = BuildTinyWan(pir::RematPolicy::kSelected, /*with_adamw=*/true);
  ASSERT_TRUE(pir::VerifyGraph(t.graph).ok()) << pir::VerifyGraph(t.graph).ToString();
  auto leaves = StepLeaves(t.graph);
  auto want = RunReference(t.graph, leaves);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto mesh = shard::Mesh::Parse("dp=2");
  ASSERT_TRUE(mesh.ok());
  auto seeds = shard::TemplateSeeds(t.graph, *mesh, "dp");
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  auto plan = shard::Propagate(t.graph, *mesh, *seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(shard::VerifyPlan(t.graph, *plan).ok());
  // The first weight gradient is produced partial: the all-reduce is real.
  bool partial_gradient = false;
  for (const pir::Op& op : t.graph.ops()) {
    if (op.name == "patch_embedding.conv.grad.weight") {
      partial_gradient = !plan->values[static_cast<size_t>(op.results[0])].partial.empty();
    }
  }
  EXPECT_TRUE(partial_gradient);
  auto got = RunPartitioned(t.graph, *plan, leaves);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSameStep(*got, *want);
}

// The tiny step under `templ` on `mesh_text`: the simulated devices must
// reproduce the whole step, loss and every updated parameter. `ring_grads`:
// the attention_grad ops the plan runs as ring attention's backward (q and kv
// on the same axes).
void ExpectPartitionedStepMatches(
    const std::string& mesh_text, const std::string& templ, int* ring_grads = nullptr, bool wan_parts = false,
    const std::function<void(const pir::Graph&, const shard::ShardingPlan&)>& inspect = nullptr) {
  SCOPED_TRACE(templ + " on " + mesh_text);
  TinyWan t = BuildTinyWan(pir::RematPolicy::kSelected, /*with_adamw=*/true, /*text_cross=*/true, wan_parts);
  auto leaves = StepLeaves(t.graph);
  auto want = RunReference(t.graph, leaves);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto mesh = shard::Mesh::Parse(mesh_text);
  ASSERT_TRUE(mesh.ok());
  auto seeds = shard::TemplateSeeds(t.graph, *mesh, templ);
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  auto plan = shard::Propagate(t.graph, *mesh, *seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  for (pir::OpId id = 0; ring_grads && id < t.graph.num_ops(); ++id) {
    if (t.graph.op(id).kind != OpKind::kAttentionGrad) continue;
    const pir::FactorRule& rule = plan->rules[static_cast<size_t>(id)];
    const auto& axes = plan->ops[static_cast<size_t>(id)].factor_axes;
    const auto& q = axes[static_cast<size_t>(rule.FindFactor("q"))];
    *ring_grads += !q.empty() && q == axes[static_cast<size_t>(rule.FindFactor("kv"))];
  }
  if (inspect) inspect(t.graph, *plan);
  auto got = RunPartitioned(t.graph, *plan, leaves);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSameStep(*got, *want);
}

TEST(GradCheck, RingTrainingStepComputesTheReferenceStep) {
  // The 8 video tokens in 2 blocks of 4: the forward's ring attention and
  // its backward (attention_grad with q and kv on "r": every device's dQ sums
  // both kv blocks, its dK/dV both query blocks) must give the whole step.
  int ring_grads = 0;
  ExpectPartitionedStepMatches("r=2", "ring", &ring_grads);
  EXPECT_EQ(ring_grads, 1);  // the self attention's backward; cross attention's kv is the text
  ExpectPartitionedStepMatches("dp=2,r=2", "dp=dp,ring=r");
}

TEST(GradCheck, UlyssesAndFsdpTrainingStepsComputeTheReferenceStep) {
  // Ulysses: 2 heads, one per device inside attention (forward and backward),
  // tokens split outside. FSDP: weights stored split, gathered for use.
  ExpectPartitionedStepMatches("u=2", "ulysses");
  ExpectPartitionedStepMatches("x=2", "fsdp");
  ExpectPartitionedStepMatches("x=2,u=2", "fsdp=x,ulysses=u");
}

TEST(GradCheck, PerPartHybridTrainingStepsComputeTheReferenceStep) {
  // Megatron TP inside block parts on the sequence axis (shard/templates.h):
  // the parts gather the tokens, split the FFN's hidden width (2 x 16) or the
  // attention's 2 heads on the axis, and reduce-scatter back; their backward
  // gathers the stream's gradient at the row linears and reduce-scatters the
  // column linears' partial input gradients. Outside the parts, and for
  // every weight gradient of theirs that is not split, ring or Ulysses as
  // above. With fsdp the parts' weights are stored tp-major, their
  // gradients and moments split alike.
  // The plan runs the parts' backward as Megatron on the last mesh axis (the
  // sequence axis in every case below): the FFN's weight gradient comes out
  // split on its hidden width and whole (no partial sum left to all-reduce),
  // its input gradient partial; an attention part's backward splits its heads.
  // (With fsdp the weight gradient is still partial over the data axis x.)
  auto megatron = [](std::vector<std::string> attention_grads) {
    return [attention_grads](const pir::Graph& graph, const shard::ShardingPlan& plan) {
      const int axis = plan.mesh.num_axes() - 1;
      auto result = [&](const std::string& name) -> const shard::TensorSharding* {
        for (const pir::Op& op : graph.ops()) {
          if (op.name == name) return &plan.values[static_cast<size_t>(op.results[0])];
        }
        ADD_FAILURE() << "no op " << name;
        return nullptr;
      };
      if (const shard::TensorSharding* dw = result("blocks.0.ffn.0.grad.rhs")) {
        EXPECT_EQ(dw->dims, (std::vector<std::vector<int>>{{}, {axis}}));
        EXPECT_EQ(std::count(dw->partial.begin(), dw->partial.end(), axis), 0);
      }
      if (const shard::TensorSharding* dx = result("blocks.0.ffn.0.grad.lhs")) {
        EXPECT_EQ(dx->partial, std::vector<int>{axis});
      }
      for (const std::string& name : attention_grads) {
        for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
          if (graph.op(id).name != name) continue;
          const pir::FactorRule& rule = plan.rules[static_cast<size_t>(id)];
          EXPECT_EQ(plan.ops[static_cast<size_t>(id)].factor_axes[static_cast<size_t>(rule.FindFactor("h"))],
                    std::vector<int>{axis})
              << name;
        }
      }
    };
  };
  const std::string self = "blocks.0.self_attn.self_attention.grad.attention";
  const std::string cross = "blocks.0.cross_attn.cross_attention.grad.attention";
  ExpectPartitionedStepMatches("r=2", "ring=r,tp=r@ffn", nullptr, false, megatron({}));
  ExpectPartitionedStepMatches("u=2", "ulysses=u,tp=u@ffn", nullptr, false, megatron({}));
  ExpectPartitionedStepMatches("r=2", "ring=r,tp=r@cross_attn", nullptr, true);
  ExpectPartitionedStepMatches("u=2", "ulysses=u,tp=u@cross_attn+ffn", nullptr, true, megatron({cross}));
  int ring_grads = 0;
  ExpectPartitionedStepMatches("r=2", "ring=r,tp=r@cross_attn+ffn+self_attn", &ring_grads, true,
                               megatron({self, cross}));
  EXPECT_EQ(ring_grads, 0);  // the self attention's backward splits heads, not the ring
  ExpectPartitionedStepMatches("x=2,r=2", "fsdp=x+r,ring=r,tp=r@ffn", nullptr, true, megatron({}));
  ExpectPartitionedStepMatches("x=2,u=2", "fsdp=x+u,ulysses=u,tp=u@self_attn+ffn", nullptr, true, megatron({self}));
}

// Negative control: the FFN's input gradient under a per-part tp is a partial
// sum over the axis (each device contracts its half of the hidden width); a
// plan that forgets it must not reproduce the step.
TEST(GradCheck, DroppedBackwardPartialSumOfAPerPartTpIsCaught) {
  TinyWan t = BuildTinyWan(pir::RematPolicy::kSelected, /*with_adamw=*/true, /*text_cross=*/true);
  auto leaves = StepLeaves(t.graph);
  auto want = RunReference(t.graph, leaves);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto mesh = shard::Mesh::Parse("r=2");
  ASSERT_TRUE(mesh.ok());
  auto seeds = shard::TemplateSeeds(t.graph, *mesh, "ring=r,tp=r@ffn");
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  auto plan = shard::Propagate(t.graph, *mesh, *seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto intact = RunPartitioned(t.graph, *plan, leaves);
  ASSERT_TRUE(intact.ok()) << intact.status().ToString();
  ExpectSameStep(*intact, *want);
  bool dropped = false;
  for (const pir::Op& op : t.graph.ops()) {
    if (op.name != "blocks.0.ffn.0.grad.lhs") continue;
    auto& produced = plan->values[static_cast<size_t>(op.results[0])];
    ASSERT_EQ(produced.partial, std::vector<int>{0});
    produced.partial.clear();
    dropped = true;
  }
  ASSERT_TRUE(dropped);
  auto got = RunPartitioned(t.graph, *plan, leaves);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  double worst = 0;
  for (size_t o = 0; o < got->size(); ++o) {
    for (size_t i = 0; i < (*got)[o].data.size(); ++i) {
      worst = std::max(worst, std::abs((*got)[o].data[i] - (*want)[o].data[i]) / (1 + std::abs((*want)[o].data[i])));
    }
  }
  EXPECT_GT(worst, 1e-6);
}

// One bf16 parameter of two elements with its master weight and moments; the
// gradient is an input.
struct AdamWGraph {
  pir::Graph graph;
  ValueId param, master, exp_avg, exp_avg_sq, grad, lr, step;
};

AdamWGraph BuildAdamW() {
  GraphBuilder b("adamw");
  AdamWGraph a;
  a.param = b.Param("w", DType::kBF16, {2});
  a.grad = b.Input("grad", DType::kBF16, {2});
  a.lr = b.Input("optimizer.lr", DType::kF32, {});
  a.step = b.Input("optimizer.step", DType::kF32, {});
  pir::AdamWState state = pir::DeclareAdamWState(b, a.param);
  a.master = state.master;
  a.exp_avg = state.exp_avg;
  a.exp_avg_sq = state.exp_avg_sq;
  pir::AdamWState next = pir::AppendAdamWUpdate(b, state, a.grad, pir::AppendAdamWScalars(b, a.lr, a.step, {}));
  for (ValueId v : {next.param, next.master, next.exp_avg, next.exp_avg_sq}) b.Output(v);
  a.graph = b.Finish();
  return a;
}

TEST(AdamW, OneStepMatchesAHandComputation) {
  // torch.optim.AdamW defaults: beta1 0.9, beta2 0.999, eps 1e-8, weight decay 0.01; lr 0.1.
  AdamWGraph a = BuildAdamW();
  ASSERT_TRUE(pir::VerifyGraph(a.graph).ok()) << pir::VerifyGraph(a.graph).ToString();
  std::map<ValueId, Tensor> leaves;
  auto set = [&](ValueId v, std::vector<double> data) { leaves[v] = Tensor{a.graph.type(v).shape, std::move(data)}; };
  set(a.param, {1.0, -0.5});
  set(a.lr, {0.1});
  // Step 1 from zero moments: m' = 0.1 g, v' = 0.001 g^2, and the bias
  // corrections 1 - 0.9 and 1 - 0.999 undo those factors, so the update is
  // lr * g / (|g| + eps) = lr * sign(g) up to eps:
  //   p = 1.0,  g = 0.5: 1.0 * (1 - 0.1 * 0.01) - 0.1 * 0.5 / (0.5 + 1e-8) = 0.999 - 0.099999998 = 0.899000002
  //   p = -0.5, g = -2:  -0.5 * 0.999 + 0.1 * 2 / (2 + 1e-8) = -0.4995 + 0.0999999995 = -0.3995000005
  set(a.master, {1.0, -0.5});
  set(a.exp_avg, {0, 0});
  set(a.exp_avg_sq, {0, 0});
  set(a.grad, {0.5, -2});
  set(a.step, {1});
  auto first = RunReference(a.graph, leaves);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_NEAR((*first)[1].data[0], 0.899000002, 1e-15);
  EXPECT_NEAR((*first)[1].data[1], -0.3995000005, 1e-15);
  EXPECT_EQ((*first)[0].data, (*first)[1].data);   // the bf16 copy (the interpreter does not round)
  EXPECT_NEAR((*first)[2].data[0], 0.05, 1e-15);   // m' = 0.1 * 0.5
  EXPECT_NEAR((*first)[3].data[1], 0.004, 1e-15);  // v' = 0.001 * 4
  // Step 2 from m = 0.1, v = 0.01, p = 1, g = 0.5:
  //   m' = 0.9 * 0.1 + 0.1 * 0.5 = 0.14;  v' = 0.999 * 0.01 + 0.001 * 0.25 = 0.01024
  //   bias corrections 1 - 0.9^2 = 0.19, 1 - 0.999^2 = 0.001999
  //   denominator sqrt(0.01024) / sqrt(0.001999) + 1e-8 = 0.101192885 / 0.044710178 + 1e-8 = 2.263307607
  //   p' = 1 * 0.999 - (0.1 / 0.19) * 0.14 / 2.263307607 = 0.999 - 0.032555986 = 0.966444014
  // (element 2 from m = v = 0, p = -0.5, g = -2 at step 2: m' = -0.2, v' = 0.004,
  //  p' = -0.4995 - (0.1 / 0.19) * -0.2 / (sqrt(0.004) / sqrt(0.001999) + 1e-8)
  //     = -0.4995 + 0.105263158 / 1.414567258 = -0.4995 + 0.074413682 = -0.425086318)
  set(a.master, {1.0, -0.5});
  set(a.exp_avg, {0.1, 0});
  set(a.exp_avg_sq, {0.01, 0});
  set(a.step, {2});
  auto second = RunReference(a.graph, leaves);
  ASSERT_TRUE(second.ok());
  EXPECT_NEAR((*second)[2].data[0], 0.14, 1e-15);
  EXPECT_NEAR((*second)[3].data[0], 0.01024, 1e-15);
  EXPECT_NEAR((*second)[1].data[0], 0.966444014, 1e-9);
  EXPECT_NEAR((*second)[1].data[1], -0.425086318, 1e-9);
}

}  // namespace
}  // namespace az::compile
