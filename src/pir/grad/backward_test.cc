// The backward pass on built blocks: FLOP ratios, rules of the fused backward
// kernels, rematerialization structure, text round trip, errors. Numerical
// gradient checks run the reference interpreter: src/compile/interpret/grad_check_test.cc.
#include "pir/grad/backward.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "pir/grad/adamw.h"
#include "pir/rules/cost.h"
#include "pir/rules/rule.h"
#include "pir/text/parser.h"
#include "pir/text/printer.h"
#include "pir/verify/verifier.h"

namespace az::pir {
namespace {

// mean(y^2) over every element: a scalar loss of any activation.
ValueId MeanSquare(GraphBuilder& b, ValueId y) {
  GraphBuilder::Scope scope(b, "loss");
  ValueId squared = b.Binary(OpKind::kMul, "squared", y, y);
  std::vector<int64_t> all;
  for (int64_t d = 0; d < b.type(y).rank(); ++d) all.push_back(d);
  return b.Reduce("mean", squared, all, "mean");
}

std::vector<ValueId> Params(const Graph& g) {
  std::vector<ValueId> params;
  for (ValueId id = 0; id < g.num_values(); ++id) {
    if (g.value(id).role == ValueRole::kParameter) params.push_back(id);
  }
  return params;
}

// FLOPs of the ops in [begin, end) whose names start with `prefix`.
OpCost CostOf(const Graph& g, OpId begin, OpId end, const std::string& prefix) {
  OpCost total;
  for (OpId id = begin; id < end; ++id) {
    if (g.op(id).name.starts_with(prefix)) total += ComputeOpCost(g, g.op(id));
  }
  return total;
}

// Wan 2.1 1.3B's FFN (wan.cc): LayerNorm, Linear(d, f), GELU(tanh), Linear(f, d), residual.
ValueId Ffn(GraphBuilder& b, ValueId x, int64_t ffn_dim) {
  GraphBuilder::Scope scope(b, "ffn");
  ValueId n = b.LayerNorm("norm2", x, /*affine=*/false, 1e-6);
  ValueId h = b.Linear("2", b.Unary(OpKind::kGeluTanh, "1", b.Linear("0", n, ffn_dim)), b.type(x).shape.back());
  return b.Binary(OpKind::kAdd, "residual", x, h);
}

TEST(Backward, MatmulBlockBackwardIsTwiceItsForward) {
  // Wan 2.1 1.3B's FFN at d = 1536, f = 8960 on 1024 tokens, in f32.
  // Forward: two matmuls of 2*L*d*f FLOPs each (wan.cc's ffn.0 and ffn.2).
  // Backward: each matmul Y = X W needs dX = dY W^T and dW = X^T dY, each a
  // matmul over the same three sizes L, d, f, so 2*L*d*f FLOPs each: the
  // backward's matmul FLOPs are exactly twice the forward's. The rest is
  // per-element work: forward ~ (8 + 1 + 1) L d + (8 + 1) L f (norm, bias,
  // residual; gelu, bias) = 0.18% of the matmuls; backward ~ 20 L f (the
  // GELU-tanh derivative chain) + 13 L d (norm gradient) + bias sums = 0.2% of
  // its matmuls. So the block's backward FLOPs are 2x its forward within 1%.
  const int64_t tokens = 1024, dim = 1536, ffn = 8960;
  GraphBuilder b("ffn");
  ValueId x = b.Param("x", DType::kF32, {1, tokens, dim});  // a parameter, so dX of the first linear is needed too
  ValueId y = Ffn(b, x, ffn);
  ValueId loss = MeanSquare(b, y);
  const OpId forward_end = b.graph().num_ops();
  auto backward = AppendBackward(b, loss, Params(b.graph()));
  ASSERT_TRUE(backward.ok()) << backward.status().ToString();
  const Graph& g = b.graph();
  OpCost forward = CostOf(g, 0, forward_end, "ffn.");
  OpCost back = CostOf(g, forward_end, g.num_ops(), "ffn.");
  EXPECT_EQ(forward.matmul.value(), 4 * tokens * dim * ffn);
  EXPECT_EQ(back.matmul.value(), 2 * forward.matmul.value());
  const double ratio =
      static_cast<double>(back.total_flops().value()) / static_cast<double>(forward.total_flops().value());
  RecordProperty("backward_over_forward", std::to_string(ratio));
  EXPECT_NEAR(ratio, 2.0, 0.02);
  EXPECT_TRUE(VerifyGraph(g).ok()) << VerifyGraph(g).ToString();
}

// q, k, v projections, attention over heads, output projection.
ValueId SelfAttention(GraphBuilder& b, ValueId x, int64_t heads) {
  GraphBuilder::Scope scope(b, "attn");
  const Shape shape = b.type(x).shape;
  const int64_t dim = shape.back(), head_dim = dim / heads;
  auto split = [&](const std::string& name, ValueId v) {
    return b.Reshape(name + ".heads", v, {shape[0], shape[1], heads, head_dim});
  };
  ValueId q = split("q", b.Linear("q", x, dim));
  ValueId k = split("k", b.Linear("k", x, dim));
  ValueId v = split("v", b.Linear("v", x, dim));
  ValueId o = b.Attention("attention", q, k, v, "self");
  return b.Linear("o", b.Reshape("merge", o, shape), dim);
}

TEST(Backward, FlashAttentionBackwardIsTwoAndAHalfForwards) {
  // Forward attention: QK^T and PV, 2 * B*H*L*L*D FLOPs each = 4 B H L^2 D.
  // attention_grad: FlashAttention-2's five matmuls (S = QK^T recomputed,
  // dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q), 2 B H L^2 D each =
  // 10 B H L^2 D: 2.5x the forward (Dao-AILab/flash-attention,
  // benchmarks/benchmark_flash_attention.py counts bwd = 2.5 * fwd).
  const int64_t batch = 2, tokens = 256, dim = 512, heads = 4;
  GraphBuilder b("attention");
  b.set_attention_lse(true);
  ValueId x = b.Input("x", DType::kBF16, {batch, tokens, dim});
  ValueId loss = MeanSquare(b, SelfAttention(b, x, heads));
  const OpId forward_end = b.graph().num_ops();
  auto backward = AppendBackward(b, loss, Params(b.graph()));
  ASSERT_TRUE(backward.ok()) << backward.status().ToString();
  const Graph& g = b.graph();
  int attention_grads = 0;
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kAttentionGrad) continue;
    ++attention_grads;
    EXPECT_EQ(ComputeOpCost(g, op).attention.value(), 10 * batch * heads * tokens * tokens * (dim / heads));
  }
  EXPECT_EQ(attention_grads, 1);
  const int64_t forward = CostOf(g, 0, forward_end, "attn.").attention.value();
  EXPECT_EQ(forward, 4 * batch * heads * tokens * tokens * (dim / heads));
  EXPECT_EQ(2 * CostOf(g, forward_end, g.num_ops(), "attn.").attention.value(), 5 * forward);
  EXPECT_TRUE(VerifyGraph(g).ok()) << VerifyGraph(g).ToString();
}

TEST(Backward, FusedBackwardKernelRules) {
  std::vector<TensorType> qkv(3, TensorType{DType::kBF16, {2, 8, 4, 16}});
  std::vector<TensorType> operands = qkv;
  operands.push_back(qkv[0]);  // o
  operands.push_back(qkv[0]);  // dO
  operands.push_back({DType::kF32, {2, 8, 4}});
  auto results = InferResultTypes(OpKind::kAttentionGrad, operands, {}, {});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(*results, qkv);
  auto rule = BuildFactorRule(OpKind::kAttentionGrad, operands, *results, {});
  ASSERT_TRUE(rule.ok());
  // dK and dV sum over the queries, dQ over the keys, dQ and dK over the value
  // dim: reductions that some results keep (rule.h).
  EXPECT_EQ(rule->ToString(),
            "([b, q, h, d], [b, kv, h, d], [b, kv, h, v], [b, q, h, v], [b, q, h, v], [b, q, h])->"
            "([b, q, h, d], [b, kv, h, d], [b, kv, h, v]) {b=2, q=8, h=4, v=16, kv=8, d=16} "
            "reduction={q, v, kv} need_replication={d}");
  std::vector<TensorType> norm{{DType::kF32, {2, 8, 32}}, {DType::kF32, {2, 8, 32}}, {DType::kBF16, {32}}};
  auto norm_rule = BuildFactorRule(OpKind::kLayerNormGrad, norm, {norm[0]}, {});
  ASSERT_TRUE(norm_rule.ok());
  EXPECT_EQ(norm_rule->ToString(), "([d0, d1, n], [d0, d1, n], [n])->([d0, d1, n]) {d0=2, d1=8, n=32} normalized={n}");
  // A wrong lse is a user error of the verifier, not a crash.
  operands[5] = {DType::kBF16, {2, 8, 4}};
  EXPECT_FALSE(InferResultTypes(OpKind::kAttentionGrad, operands, {}, {}).ok());
}

// A block like Wan's, small: norm, linears, attention with RoPE, gated FFN.
struct TrainGraph {
  Graph graph;
  OpId forward_end = 0;
  BackwardResult backward;
};

TrainGraph BuildBlockTrainStep(RematPolicy policy) {
  GraphBuilder b("block.train");
  b.set_attention_lse(true);
  const int64_t batch = 2, tokens = 8, dim = 32, heads = 2;
  ValueId x = b.Input("x", DType::kF32, {batch, tokens, dim});
  ValueId table = b.Constant("rope.table", DType::kF32, {tokens, dim / heads});
  OpId begin = b.graph().num_ops();
  ValueId out;
  {
    GraphBuilder::Scope scope(b, "blocks.0");
    b.set_param_dtype(DType::kBF16);
    ValueId n = b.CastTo("cast", b.RmsNorm("norm", x, /*affine=*/true, 1e-6), DType::kBF16);
    ValueId q = b.Reshape("q.heads", b.Linear("q", n, dim), {batch, tokens, heads, dim / heads});
    ValueId k = b.Reshape("k.heads", b.Linear("k", n, dim), {batch, tokens, heads, dim / heads});
    ValueId v = b.Reshape("v.heads", b.Linear("v", n, dim), {batch, tokens, heads, dim / heads});
    ValueId qr = b.Rope("rope_q", q, table, {dim / heads});
    ValueId kr = b.Rope("rope_k", k, table, {dim / heads});
    ValueId o =
        b.Linear("o", b.Reshape("merge", b.Attention("attention", qr, kr, v, "self"), {batch, tokens, dim}), dim);
    ValueId h = b.CastTo("residual_f32", o, DType::kF32);
    ValueId y = b.Binary(OpKind::kAdd, "residual", x, h);
    out = Ffn(b, y, 2 * dim);
  }
  OpId end = b.graph().num_ops();
  ValueId loss = MeanSquare(b, out);
  TrainGraph t;
  t.forward_end = b.graph().num_ops();
  BackwardOptions options;
  options.remat.push_back({begin, end, policy});
  std::vector<ValueId> params = Params(b.graph());
  auto backward = AppendBackward(b, loss, params, options);
  AZ_CHECK_MSG(backward.ok(), backward.status().ToString());
  t.backward = *backward;
  ValueId lr = b.Input("optimizer.lr", DType::kF32, {});
  ValueId step = b.Input("optimizer.step", DType::kF32, {});
  AdamWScalars scalars = AppendAdamWScalars(b, lr, step, {});
  b.Output(loss);
  for (size_t i = 0; i < params.size(); ++i) {
    AdamWState next = AppendAdamWUpdate(b, DeclareAdamWState(b, params[i]), backward->grads[i], scalars);
    b.Output(next.param);
  }
  t.graph = b.Finish();
  return t;
}

TEST(Backward, TrainStepVerifiesAndRoundTripsThroughText) {
  for (RematPolicy policy : {RematPolicy::kNone, RematPolicy::kFull, RematPolicy::kSelected, RematPolicy::kOffload}) {
    TrainGraph t = BuildBlockTrainStep(policy);
    ASSERT_TRUE(VerifyGraph(t.graph).ok()) << VerifyGraph(t.graph).ToString();
    for (ValueId g : t.backward.grads) EXPECT_NE(g, kNoValue);
    std::string text = PrintGraph(t.graph);
    auto parsed = ParseGraph(text, "train.pir");
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_TRUE(VerifyGraph(*parsed).ok());
    EXPECT_EQ(PrintGraph(*parsed), text);
    // The roles survive: 13 bf16 parameters (rms weight; q, k, v, o, ffn.0,
    // ffn.2 weights and biases), each with a master weight and two moments.
    int params = 0, states = 0;
    for (const Value& v : parsed->values()) {
      params += v.role == ValueRole::kParameter;
      states += v.role == ValueRole::kOptimizerState;
    }
    EXPECT_EQ(params, 13);
    EXPECT_EQ(states, 3 * 13);
    EXPECT_NE(text.find("opt_state"), std::string::npos);
  }
}

// The op order prices the step (FuseElementwise folds an element-wise op only
// into the op just before it), so it is written in the code, never left to
// the compiler's order of evaluating arguments (graph_builder.h, Op order).
// Pinned: each AdamW moment's new term right after its producer, and the
// GELU(tanh) backward's sech2 * du right after du. Built as nested arguments,
// a clang build put them elsewhere and priced Wan 1.3B's training step 2.6%
// slower than the GCC build (87.7 against 85.5 ms/step).
TEST(Backward, ElementwiseChainsAreBuiltInTheWrittenOrder) {
  const TrainGraph t = BuildBlockTrainStep(RematPolicy::kNone);
  const std::pair<std::string, std::string> follows[] = {
      {".exp_avg.new", ".grad_f32"}, {".exp_avg_sq.new", ".grad_squared"}, {".grad.sech2_du", ".grad.du"}};
  for (const auto& [op, producer] : follows) {
    int found = 0;
    for (OpId id = 1; id < t.graph.num_ops(); ++id) {
      const std::string& name = t.graph.op(id).name;
      if (!name.ends_with(op)) continue;
      ++found;
      EXPECT_EQ(t.graph.op(id - 1).name, name.substr(0, name.size() - op.size()) + producer);
    }
    EXPECT_EQ(found, op == ".grad.sech2_du" ? 1 : 13) << op;
  }
}

TEST(Backward, RematFullRecomputesTheBlockSelectedKeepsMatmulsAndAttention) {
  TrainGraph none = BuildBlockTrainStep(RematPolicy::kNone);
  TrainGraph full = BuildBlockTrainStep(RematPolicy::kFull);
  TrainGraph selected = BuildBlockTrainStep(RematPolicy::kSelected);
  EXPECT_EQ(none.backward.recomputed_ops, 0);
  auto recomputed = [](const TrainGraph& t, const std::string& policy) {
    OpCost cost;
    int ops = 0;
    for (OpId id = t.forward_end; id < t.graph.num_ops(); ++id) {
      const Op& op = t.graph.op(id);
      if (op.attrs.GetString("remat").value_or("") != policy) continue;
      EXPECT_TRUE(op.name.ends_with(".remat")) << op.name;
      cost += ComputeOpCost(t.graph, op);
      ++ops;
    }
    EXPECT_EQ(ops, t.backward.recomputed_ops);
    return cost;
  };
  // Full: what the block's backward reads, recomputed from the block's input:
  // the attention (its backward reads o and lse) and the matmuls whose outputs
  // some backward reads, directly or through a recomputed op: q, k, v
  // (through rope and the head split, into the attention), o (through the
  // residual sum that the FFN's norm backward reads) and ffn.0 (GELU reads its
  // input). ffn.2 feeds the block's last residual add, whose backward reads
  // nothing; that sum, the block's output, is what the loss reads: kept.
  const OpId end = full.forward_end;
  OpCost block = CostOf(full.graph, 0, end, "blocks.0.");
  OpCost full_recompute = recomputed(full, "full");
  int64_t needed = 0;
  for (const char* op : {"blocks.0.q", "blocks.0.k", "blocks.0.v", "blocks.0.o", "blocks.0.ffn.0"}) {
    needed += CostOf(full.graph, 0, end, op).matmul.value();
  }
  EXPECT_EQ(full_recompute.matmul.value(), needed);
  EXPECT_LT(needed, block.matmul.value());
  EXPECT_EQ(full_recompute.attention.value(), block.attention.value());
  // Selected: matmul and attention outputs are kept, only per-element work is redone.
  OpCost selected_recompute = recomputed(selected, "selected");
  EXPECT_GT(selected.backward.recomputed_ops, 0);
  EXPECT_EQ(selected_recompute.matmul.value(), 0);
  EXPECT_EQ(selected_recompute.attention.value(), 0);
  EXPECT_LT(selected.backward.recomputed_ops, full.backward.recomputed_ops);
  // Remat adds recompute and nothing else: the backward proper is unchanged.
  auto backward_ops = [](const TrainGraph& t) { return t.graph.num_ops() - t.forward_end - t.backward.recomputed_ops; };
  EXPECT_EQ(backward_ops(full), backward_ops(none));
  EXPECT_EQ(backward_ops(selected), backward_ops(none));
}

// Offload (MaxDiffusion's HIDDEN_STATE_WITH_OFFLOAD): the block's input and
// the attention's output and log-sum-exp are kept (in host memory), the rest
// recomputed: the same matmuls as full (q, k, v feed the attention backward;
// o and ffn.0 as under full), but no attention, since its backward reads the
// kept o and lse. Offloaded, each once: the attention's o bf16[2, 8, 2, 16]
// (1,024 bytes) and lse f32[2, 2, 8] (128 bytes): 1,152 bytes. The block's
// input x is kept too but not offloaded: here it is a graph input, which the
// device holds for the whole step anyway (a block input computed by the
// forward, the residual stream of a DiT, is offloaded:
// compile/train_memory_test.cc).
TEST(Backward, RematOffloadKeepsTheHiddenStateAndAttentionOnTheHost) {
  TrainGraph full = BuildBlockTrainStep(RematPolicy::kFull);
  TrainGraph offload = BuildBlockTrainStep(RematPolicy::kOffload);
  EXPECT_TRUE(full.backward.offloaded.empty());
  ASSERT_TRUE(VerifyGraph(offload.graph).ok());
  OpCost recomputed;
  for (OpId id = offload.forward_end; id < offload.graph.num_ops(); ++id) {
    const Op& op = offload.graph.op(id);
    if (op.attrs.GetString("remat").value_or("") == "offload") recomputed += ComputeOpCost(offload.graph, op);
  }
  int64_t needed = 0;
  for (const char* op : {"blocks.0.q", "blocks.0.k", "blocks.0.v", "blocks.0.o", "blocks.0.ffn.0"}) {
    needed += CostOf(offload.graph, 0, offload.forward_end, op).matmul.value();
  }
  EXPECT_EQ(recomputed.matmul.value(), needed);
  EXPECT_EQ(recomputed.attention.value(), 0);
  EXPECT_LT(offload.backward.recomputed_ops, full.backward.recomputed_ops);
  std::vector<std::string> names;
  int64_t bytes = 0;
  for (ValueId v : offload.backward.offloaded) {
    names.push_back(ValueLabel(offload.graph, v));
    bytes += offload.graph.type(v).NumBytes();
  }
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(bytes, 1'152);
  for (const std::string& name : names) EXPECT_NE(name.find("blocks.0.attention"), std::string::npos) << name;
  EXPECT_EQ(ParseRematPolicy("offload").value(), RematPolicy::kOffload);
  EXPECT_EQ(RematPolicyName(RematPolicy::kOffload), "offload");
  EXPECT_NE(ParseRematPolicy("host").status().message().find("none, full, selected or offload"), std::string::npos);
}

TEST(Backward, Errors) {
  GraphBuilder b("g");
  ValueId w = b.Param("w", DType::kF32, {4, 4});
  ValueId x = b.Input("x", DType::kF32, {2, 4});
  ValueId y = b.Einsum("mm", "ij,jk->ik", x, w);
  // Not a scalar.
  EXPECT_EQ(AppendBackward(b, y, {w}).status().code(), StatusCode::kInvalidArgument);
  // A custom op on the gradient path.
  ValueId c = b.Custom("opaque", "my_kernel", {y}, {DType::kF32, {2, 4}});
  ValueId loss = MeanSquare(b, c);
  auto result = AppendBackward(b, loss, {w});
  EXPECT_EQ(result.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(result.status().message().find("my_kernel"), std::string::npos) << result.status().message();
  // Overlapping segments.
  GraphBuilder b2("g2");
  ValueId w2 = b2.Param("w", DType::kF32, {4});
  ValueId l2 = MeanSquare(b2, b2.Unary(OpKind::kTanh, "t", w2));
  BackwardOptions bad;
  bad.remat = {{0, 2, RematPolicy::kFull}, {1, 3, RematPolicy::kFull}};
  EXPECT_EQ(AppendBackward(b2, l2, {w2}, bad).status().code(), StatusCode::kInvalidArgument);
}

// The VAE's copies (upsample, replicate pad) run in inference only: a loss
// through them is Unimplemented, naming the op, never a wrong gradient.
TEST(Backward, VaeCopiesHaveNoBackwardYet) {
  for (OpKind kind : {OpKind::kUpsample, OpKind::kPad}) {
    GraphBuilder b("g");
    ValueId w = b.Param("w", DType::kF32, {1, 2, 3});
    Attributes attrs;
    if (kind == OpKind::kUpsample) {
      attrs.Set("scale", std::vector<int64_t>{1, 2, 2});
    } else {
      attrs.Set("low", std::vector<int64_t>{0, 1, 1});
      attrs.Set("high", std::vector<int64_t>{0, 1, 1});
      attrs.Set("mode", std::string("replicate"));
    }
    ValueId loss = MeanSquare(b, b.AddOp1(kind, "copy", {w}, attrs));
    auto result = AppendBackward(b, loss, {w});
    EXPECT_EQ(result.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(result.status().message().find("'copy': " + std::string(GetOpKindInfo(kind).name)),
              std::string::npos)
        << result.status().message();
  }
}

TEST(Backward, ParametersTheLossIgnoresGetNoGradient) {
  GraphBuilder b("g");
  ValueId used = b.Param("used", DType::kF32, {4});
  ValueId unused = b.Param("unused", DType::kF32, {4});
  b.Unary(OpKind::kExp, "dead", unused);
  ValueId loss = MeanSquare(b, b.Unary(OpKind::kSilu, "act", used));
  auto result = AppendBackward(b, loss, {used, unused});
  ASSERT_TRUE(result.ok());
  EXPECT_NE(result->grads[0], kNoValue);
  EXPECT_EQ(result->grads[1], kNoValue);
  EXPECT_EQ(b.type(result->grads[0]), b.type(used));
}

}  // namespace
}  // namespace az::pir
