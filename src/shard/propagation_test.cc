// Propagation on small graphs: Megatron from one seed, batch reaching every
// activation, heads + batch completing an attention block, need-replication
// factors, seeds kept, determinism and seed errors.
#include "shard/propagation.h"

#include <gtest/gtest.h>

#include "pir/build/graph_builder.h"

namespace az::shard {
namespace {

using pir::DType;
using pir::GraphBuilder;
using pir::OpKind;
using pir::ValueId;

Mesh TwoByFour() { return *Mesh::Parse("x=2,y=4"); }
constexpr int kX = 0, kY = 1;

ValueId FindValue(const pir::Graph& g, const std::string& name) {
  for (ValueId id = 0; id < g.num_values(); ++id) {
    const pir::Value& v = g.value(id);
    if (v.name == name || (v.producer != pir::kNoOp && g.op(v.producer).name == name)) return id;
  }
  ADD_FAILURE() << "no value or op named '" << name << "'";
  return 0;
}

pir::OpId FindOp(const pir::Graph& g, const std::string& name) {
  for (pir::OpId id = 0; id < g.num_ops(); ++id) {
    if (g.op(id).name == name) return id;
  }
  ADD_FAILURE() << "no op named '" << name << "'";
  return 0;
}

TensorSharding Sharded(std::vector<std::vector<int>> dims, std::vector<int> partial = {}) {
  return {std::move(dims), std::move(partial)};
}

ShardingPlan MustPropagate(const pir::Graph& g, const Mesh& mesh, const Seeds& seeds) {
  auto plan = Propagate(g, mesh, seeds);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  if (!plan.ok()) return {};
  Status verified = VerifyPlan(g, *plan);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  return std::move(plan).value();
}

std::string ShardingOf(const pir::Graph& g, const ShardingPlan& plan, const std::string& name) {
  return plan.values[static_cast<size_t>(FindValue(g, name))].ToString(plan.mesh);
}

std::string OpOf(const pir::Graph& g, const ShardingPlan& plan, const std::string& name) {
  pir::OpId id = FindOp(g, name);
  return OpShardingToString(plan.rules[static_cast<size_t>(id)], plan.ops[static_cast<size_t>(id)], plan.mesh);
}

// x [4, 8, 16] -> fc1 (16 -> 32) -> gelu -> fc2 (32 -> 16).
pir::Graph Mlp() {
  GraphBuilder b("mlp");
  ValueId x = b.Input("x", DType::kF32, {4, 8, 16});
  ValueId h = b.Linear("fc1", x, 32);
  ValueId g = b.Unary(OpKind::kGelu, "act", h);
  b.Output(b.Linear("fc2", g, 16));
  return b.Finish();
}

TEST(Propagate, ColumnParallelSeedMakesTheNextLinearRowParallel) {
  pir::Graph g = Mlp();
  Seeds seeds;
  seeds.values[FindValue(g, "fc1.weight")] = Sharded({{}, {kY}});
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  EXPECT_EQ(OpOf(g, plan, "fc1"), R"({y={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "fc1"), R"([{}, {}, {"y"}])");
  EXPECT_EQ(ShardingOf(g, plan, "fc1.bias"), R"([{"y"}])");
  EXPECT_EQ(ShardingOf(g, plan, "act"), R"([{}, {}, {"y"}])");
  // fc2 contracts the sharded hidden dim: row-parallel, its result a partial sum.
  EXPECT_EQ(OpOf(g, plan, "fc2"), R"({z={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "fc2.weight"), R"([{"y"}, {}])");
  EXPECT_EQ(ShardingOf(g, plan, "fc2"), R"([{}, {}, {}] partial={"y"})");
  EXPECT_EQ(ShardingOf(g, plan, "fc2.bias"), R"([{}])");
  EXPECT_EQ(ShardingOf(g, plan, "x"), R"([{}, {}, {}])");
}

TEST(Propagate, BatchSeedReachesEveryActivation) {
  pir::Graph g = Mlp();
  Seeds seeds;
  seeds.values[FindValue(g, "x")] = Sharded({{kX}, {}, {}});
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  for (ValueId id = 0; id < g.num_values(); ++id) {
    const pir::Value& v = g.value(id);
    if (v.role == pir::ValueRole::kParameter) {
      EXPECT_TRUE(plan.values[static_cast<size_t>(id)].IsReplicated()) << v.name;
      continue;
    }
    EXPECT_EQ(plan.values[static_cast<size_t>(id)], Sharded({{kX}, {}, {}})) << "value %" << id;
  }
}

// x [2, 8, 16] -> q/k/v linears -> heads [2, 8, 4, 4] -> attention -> merge -> o -> residual.
pir::Graph AttentionBlock() {
  GraphBuilder b("block");
  ValueId x = b.Input("x", DType::kF32, {2, 8, 16});
  ValueId n = b.LayerNorm("norm", x, /*affine=*/false, 1e-6);
  ValueId q = b.Reshape("q_heads", b.Linear("q", n, 16), {2, 8, 4, 4});
  ValueId k = b.Reshape("k_heads", b.Linear("k", n, 16), {2, 8, 4, 4});
  ValueId v = b.Reshape("v_heads", b.Linear("v", n, 16), {2, 8, 4, 4});
  ValueId attention = b.Attention("attention", q, k, v, "self");
  ValueId o = b.Linear("o", b.Reshape("merge_heads", attention, {2, 8, 16}), 16);
  b.Output(b.Binary(OpKind::kAdd, "residual", x, o));
  return b.Finish();
}

TEST(Propagate, HeadsOnYBatchOnXCompletesTheBlock) {
  pir::Graph g = AttentionBlock();
  Seeds seeds;
  seeds.values[FindValue(g, "x")] = Sharded({{kX}, {}, {}});
  seeds.op_factors[FindOp(g, "attention")]["h"] = {kY};
  ShardingPlan plan = MustPropagate(g, *Mesh::Parse("x=2,y=2"), seeds);
  // The heads seed reaches back through the head split: q/k/v become column-parallel ...
  EXPECT_EQ(OpOf(g, plan, "q"), R"({a={"x"}, y={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "q.weight"), R"([{}, {"y"}])");
  EXPECT_EQ(ShardingOf(g, plan, "q"), R"([{"x"}, {}, {"y"}])");
  EXPECT_EQ(ShardingOf(g, plan, "v_heads"), R"([{"x"}, {}, {"y"}, {}])");
  EXPECT_EQ(OpOf(g, plan, "attention"), R"({b={"x"}, h={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "attention"), R"([{"x"}, {}, {"y"}, {}])");
  EXPECT_EQ(ShardingOf(g, plan, "merge_heads"), R"([{"x"}, {}, {"y"}])");
  // ... and o row-parallel: a partial sum over y, reduced before the residual.
  EXPECT_EQ(OpOf(g, plan, "o"), R"({a={"x"}, z={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "o.weight"), R"([{"y"}, {}])");
  EXPECT_EQ(ShardingOf(g, plan, "o"), R"([{"x"}, {}, {}] partial={"y"})");
  EXPECT_EQ(ShardingOf(g, plan, "residual"), R"([{"x"}, {}, {}])");
  // Nothing splits the norm's normalized dim (q, k, v contract it whole).
  EXPECT_EQ(ShardingOf(g, plan, "norm"), R"([{"x"}, {}, {}])");
  for (ValueId id = 0; id < g.num_values(); ++id) {
    if (g.value(id).role == pir::ValueRole::kActivation) {
      EXPECT_EQ(plan.values[static_cast<size_t>(id)].dims[0], std::vector<int>{kX}) << "value %" << id;
    }
  }
}

TEST(Propagate, NormalizedAxesKeepTheirSharding) {
  GraphBuilder b("norms");
  ValueId x = b.Input("x", DType::kF32, {4, 8, 16});
  ValueId n = b.LayerNorm("norm", x, /*affine=*/true, 1e-6);
  pir::Attributes attrs;
  attrs.Set("axis", int64_t{-1});
  ValueId s = b.AddOp1(OpKind::kSoftmax, "softmax", {n}, attrs);
  b.Output(b.Unary(OpKind::kExp, "exp", s));
  pir::Graph g = b.Finish();
  Seeds seeds;
  // The hidden dim of the input on y, the batch on x: the norm and the softmax
  // keep the hidden dim on y (their statistics are all-reduced), so nothing is
  // gathered, and the norm's weight is split alike.
  seeds.values[FindValue(g, "x")] = Sharded({{kX}, {}, {kY}});
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  EXPECT_EQ(OpOf(g, plan, "norm"), R"({d0={"x"}, n={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "norm.weight"), R"([{"y"}])");
  EXPECT_EQ(OpOf(g, plan, "softmax"), R"({d0={"x"}, d2={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "exp"), R"([{"x"}, {}, {"y"}])");
}

TEST(Propagate, NeedReplicationFactorsStayUnsharded) {
  pir::Graph g = AttentionBlock();
  Seeds seeds;
  seeds.op_factors[FindOp(g, "attention")]["h"] = {kY};
  seeds.values[FindValue(g, "x")] = Sharded({{kX}, {}, {}});
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  int checked = 0;
  for (pir::OpId id = 0; id < g.num_ops(); ++id) {
    const pir::FactorRule& rule = plan.rules[static_cast<size_t>(id)];
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind == pir::FactorKind::kNeedReplication) {
        EXPECT_TRUE(plan.ops[static_cast<size_t>(id)].factor_axes[f].empty()) << g.op(id).name;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 1);  // the attention's head dim d
}

// FSDP x TP as a shard_map writes it: the weight stored on (y, x), gathered
// over x before use, so the matmul contracts features split on y. The use
// sharding is a source (the input follows it); the plan stores the weight as
// stored, and nothing propagates into it.
TEST(Propagate, StorageOnlyLeavesPropagateTheirUse) {
  GraphBuilder b("fsdp_tp");
  ValueId in = b.Input("in", DType::kF32, {8, 16});
  b.Output(b.Linear("fc", in, 32, /*bias=*/false));
  pir::Graph g = b.Finish();
  ValueId w = FindValue(g, "fc.weight");
  Seeds seeds;
  seeds.values[w] = Sharded({{kY, kX}, {}});
  seeds.storage_only.insert(w);
  seeds.used[w] = Sharded({{kY}, {}});
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  EXPECT_EQ(ShardingOf(g, plan, "fc.weight"), R"([{"y","x"}, {}])");
  EXPECT_EQ(ShardingOf(g, plan, "in"), R"([{}, {"y"}])");
  EXPECT_EQ(ShardingOf(g, plan, "fc"), R"([{}, {}] partial={"y"})");
  // A use that is not the stored sharding with its minor axes dropped.
  seeds.used[w] = Sharded({{kX}, {}});
  auto bad = Propagate(g, TwoByFour(), seeds);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("is not its stored sharding"), std::string::npos) << bad.status().message();
  seeds.storage_only.clear();
  bad = Propagate(g, TwoByFour(), seeds);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("is not storage-only"), std::string::npos) << bad.status().message();
}

TEST(Propagate, SeedsAreNeverOverridden) {
  pir::Graph g = Mlp();
  Seeds seeds;
  // Upstream says batch on x; the seed on fc1's result says batch on y; the
  // seed wins and the input is resharded into fc1.
  seeds.values[FindValue(g, "x")] = Sharded({{kX}, {}, {}});
  seeds.values[FindValue(g, "fc1")] = Sharded({{kY}, {}, {}});
  seeds.op_factors[FindOp(g, "fc2")]["y"] = {};  // fc2's output features pinned unsharded
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  EXPECT_EQ(ShardingOf(g, plan, "x"), R"([{"x"}, {}, {}])");
  EXPECT_EQ(ShardingOf(g, plan, "fc1"), R"([{"y"}, {}, {}])");
  EXPECT_EQ(OpOf(g, plan, "fc1"), R"({a={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "act"), R"([{"y"}, {}, {}])");
  EXPECT_EQ(ShardingOf(g, plan, "fc2"), R"([{"y"}, {}, {}])");

  // An open dim of a seed (empty) may still be filled by propagation.
  Seeds open;
  open.values[FindValue(g, "x")] = Sharded({{kX}, {}, {}});
  open.values[FindValue(g, "fc1.weight")] = Sharded({{}, {kY}});
  open.values[FindValue(g, "act")] = Sharded({{kX}, {}, {}});
  ShardingPlan filled = MustPropagate(g, TwoByFour(), open);
  EXPECT_EQ(ShardingOf(g, filled, "act"), R"([{"x"}, {}, {"y"}])");
}

TEST(Propagate, StorageOnlySeedsDoNotPropagate) {
  pir::Graph g = Mlp();
  Seeds seeds;
  ValueId w1 = FindValue(g, "fc1.weight");
  seeds.values[w1] = Sharded({{kX}, {}});
  seeds.storage_only.insert(w1);
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  EXPECT_EQ(ShardingOf(g, plan, "fc1.weight"), R"([{"x"}, {}])");
  EXPECT_EQ(OpOf(g, plan, "fc1"), "{}");  // gathered before use, not a row-parallel fc1
  EXPECT_EQ(ShardingOf(g, plan, "fc2"), R"([{}, {}, {}])");
}

TEST(Propagate, UnconstrainedValuesStayReplicated) {
  pir::Graph g = AttentionBlock();
  ShardingPlan plan = MustPropagate(g, TwoByFour(), Seeds{});
  for (const TensorSharding& s : plan.values) EXPECT_TRUE(s.IsReplicated());
  for (const OpSharding& op : plan.ops) {
    for (const auto& axes : op.factor_axes) EXPECT_TRUE(axes.empty());
  }
}

TEST(Propagate, UnevenSeedsArePaddedNotDropped) {
  GraphBuilder b("uneven");
  ValueId x = b.Input("x", DType::kF32, {1, 10, 16});
  b.Output(b.Unary(OpKind::kSilu, "act", b.Linear("fc", x, 16)));
  pir::Graph g = b.Finish();
  Seeds seeds;
  seeds.values[FindValue(g, "x")] = Sharded({{}, {kY}, {}});  // 10 tokens on 4 devices
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  EXPECT_EQ(ShardingOf(g, plan, "act"), R"([{}, {"y"}, {}])");
  EXPECT_EQ(plan.values[static_cast<size_t>(FindValue(g, "act"))].LocalShape(plan.mesh, {1, 10, 16}),
            (pir::Shape{1, 3, 16}));
}

// Shardy's reshape 2x4x32 <-> 8x32: ([i, j, k])->([ij, k]) {i=2, j=4, k=32}.
// A dim's axes fill its factors major first and never split across them.
TEST(Propagate, ReshapeProjectionFillsMajorFactorsFirst) {
  auto split = [](std::vector<std::vector<int>> seed) {
    GraphBuilder b("reshape");
    ValueId x = b.Input("x", DType::kF32, {8, 32});
    b.Output(b.Reshape("split", x, {2, 4, 32}));
    pir::Graph g = b.Finish();
    Seeds seeds;
    seeds.values[0] = Sharded(std::move(seed));
    ShardingPlan plan = MustPropagate(g, *Mesh::Parse("x=2,y=4,z=8"), seeds);
    return ShardingOf(g, plan, "split");
  };
  EXPECT_EQ(split({{0, 1}, {}}), R"([{"x"}, {"y"}, {}])");  // i takes x (2), j takes y (4)
  EXPECT_EQ(split({{0}, {}}), R"([{"x"}, {}, {}])");        // j only after i is whole
  EXPECT_EQ(split({{1}, {}}), "[{}, {}, {}]");              // y (4) does not divide i (2): stop
  EXPECT_EQ(split({{2}, {}}), "[{}, {}, {}]");              // z (8) would split across i and j
  EXPECT_EQ(split({{0, 1}, {2}}), R"([{"x"}, {"y"}, {"z"}])");
}

TEST(Propagate, RingSeedOnAttention) {
  pir::Graph g = AttentionBlock();
  Seeds seeds;
  seeds.values[FindValue(g, "x")] = Sharded({{}, {kY}, {}});
  seeds.op_factors[FindOp(g, "attention")] = {{"q", {kY}}, {"kv", {kY}}};
  ShardingPlan plan = MustPropagate(g, TwoByFour(), seeds);
  EXPECT_EQ(OpOf(g, plan, "attention"), R"({q={"y"}, kv={"y"}})");
  EXPECT_EQ(ShardingOf(g, plan, "k_heads"), R"([{}, {"y"}, {}, {}])");
  // The kv reduction completes inside the op (ring attention): no partial.
  EXPECT_EQ(ShardingOf(g, plan, "attention"), R"([{}, {"y"}, {}, {}])");
  EXPECT_EQ(ShardingOf(g, plan, "residual"), R"([{}, {"y"}, {}])");
}

TEST(Propagate, IsDeterministic) {
  pir::Graph g = AttentionBlock();
  Seeds seeds;
  seeds.values[FindValue(g, "x")] = Sharded({{kX}, {kY}, {}});
  seeds.op_factors[FindOp(g, "attention")]["h"] = {kY};
  ShardingPlan first = MustPropagate(g, TwoByFour(), seeds);
  for (int i = 0; i < 3; ++i) {
    ShardingPlan again = MustPropagate(g, TwoByFour(), seeds);
    EXPECT_EQ(again.values, first.values);
    EXPECT_EQ(again.ops, first.ops);
  }
}

std::string PropagateError(const pir::Graph& g, const Seeds& seeds) {
  auto plan = Propagate(g, TwoByFour(), seeds);
  EXPECT_FALSE(plan.ok());
  return plan.ok() ? "" : plan.status().message();
}

TEST(Propagate, SeedErrors) {
  pir::Graph g = AttentionBlock();
  auto expect = [&](const Seeds& seeds, const std::string& fragment) {
    std::string message = PropagateError(g, seeds);
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  };
  Seeds s;
  s.values[FindValue(g, "x")] = Sharded({{kX}, {}});
  expect(s, "has rank 2, the value f32[2,8,16]");
  s = {};
  s.values[FindValue(g, "x")] = Sharded({{kX}, {kX}, {}});
  expect(s, "uses axis \"x\" twice");
  s = {};
  s.values[FindValue(g, "x")] = Sharded({{5}, {}, {}});
  expect(s, "names mesh axis 5");
  s = {};
  s.values[FindValue(g, "x")] = Sharded({{}, {}, {}}, {kX});
  expect(s, "partial axes");
  s = {};
  s.values[9999] = Sharded({});
  expect(s, "value %9999, which does not exist");
  s = {};
  s.op_factors[FindOp(g, "attention")]["heads"] = {kY};
  expect(s, "op 'attention' has no factor 'heads' (its rule: ");
  s = {};
  s.op_factors[FindOp(g, "attention")]["d"] = {kY};
  expect(s, "factor 'd' must stay replicated");
  s = {};
  s.op_factors[FindOp(g, "attention")] = {{"h", {kY}}, {"b", {kY}}};
  expect(s, "is on factors 'b' and 'h'");
  s = {};
  s.values[FindValue(g, "q")] = Sharded({{}, {}, {}});
  s.storage_only.insert(FindValue(g, "q"));
  expect(s, "is an activation; only leaves are stored");
  // A seed the producer cannot produce: the norm seeded to split its normalized
  // dim on x, its result seeded to have it on y.
  s = {};
  s.op_factors[FindOp(g, "norm")]["n"] = {kX};
  s.values[FindValue(g, "norm")] = Sharded({{}, {}, {kY}});
  expect(s, "cannot be kept: 'norm' (layer_norm) produces it [{}, {}, {\"x\"}]");
}

}  // namespace
}  // namespace az::shard
