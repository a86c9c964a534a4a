// Meshes, tensor shardings, factor <-> tensor projections and the op/plan checks.
#include "shard/sharding.h"

#include <gtest/gtest.h>

#include "pir/build/graph_builder.h"

namespace az::shard {
namespace {

using pir::FactorKind;
using pir::FactorRule;
using pir::FactorRuleBuilder;

Mesh MustParse(std::string_view text) {
  auto mesh = Mesh::Parse(text);
  EXPECT_TRUE(mesh.ok()) << mesh.status().ToString();
  return mesh.ok() ? *mesh : Mesh{};
}

std::string ParseError(std::string_view text) {
  auto mesh = Mesh::Parse(text);
  EXPECT_FALSE(mesh.ok()) << "'" << text << "' parsed";
  return mesh.ok() ? "" : mesh.status().message();
}

TEST(Mesh, ParsesAxesInOrder) {
  Mesh mesh = MustParse("x=2,y=4");
  ASSERT_EQ(mesh.num_axes(), 2);
  EXPECT_EQ(mesh.axis_name(0), "x");
  EXPECT_EQ(mesh.axis_size(1), 4);
  EXPECT_EQ(mesh.num_devices(), 8);
  EXPECT_EQ(mesh.AxisIndex("y"), 1);
  EXPECT_EQ(mesh.AxisIndex("z"), -1);
  EXPECT_EQ(mesh.ToString(), "x=2,y=4");
  // Spaces around items are tolerated; the printed form is canonical.
  EXPECT_EQ(MustParse(" data = 2 , _ctx9=1,t=3,u=5").ToString(), "data=2,_ctx9=1,t=3,u=5");
  EXPECT_EQ(MustParse("x=65536").num_devices(), 65536);
}

TEST(Mesh, ParseErrors) {
  EXPECT_NE(ParseError("").find("empty mesh"), std::string::npos);
  EXPECT_NE(ParseError("x").find("axis 'x' needs a size"), std::string::npos);
  EXPECT_NE(ParseError("x=2,").find("needs a size"), std::string::npos);
  EXPECT_NE(ParseError("2x=2").find("must match [A-Za-z_][A-Za-z0-9_]*"), std::string::npos);
  EXPECT_NE(ParseError("x-y=2").find("must match"), std::string::npos);
  EXPECT_NE(ParseError("=2").find("must match"), std::string::npos);
  EXPECT_NE(ParseError("x=0").find("size >= 1"), std::string::npos);
  EXPECT_NE(ParseError("x=-1").find("positive integer"), std::string::npos);
  EXPECT_NE(ParseError("x=two").find("positive integer, got 'two'"), std::string::npos);
  EXPECT_NE(ParseError("x=").find("positive integer"), std::string::npos);
  EXPECT_NE(ParseError("x=2,x=4").find("axis 'x' appears twice"), std::string::npos);
  EXPECT_NE(ParseError("a=1,b=1,c=1,d=1,e=1").find("more than 4 axes"), std::string::npos);
  EXPECT_NE(ParseError("x=256,y=512").find("more than 65536 devices"), std::string::npos);
  EXPECT_NE(ParseError("x=99999999999999999999999").find("more than 65536 devices"), std::string::npos);
}

TEST(Mesh, CoordinatesAreRowMajor) {
  // reference/formats.md §3.5: <["x"=2, "y"=4]> has device = 4x + y.
  Mesh mesh = MustParse("x=2,y=4");
  EXPECT_EQ(mesh.Coordinate(6, 0), 1);
  EXPECT_EQ(mesh.Coordinate(6, 1), 2);
  EXPECT_EQ(mesh.Coordinate(3, 0), 0);
  EXPECT_EQ(mesh.Coordinate(3, 1), 3);
  EXPECT_EQ(mesh.AxesSize({0, 1}), 8);
  EXPECT_EQ(mesh.AxesSize({}), 1);
}

TEST(TensorSharding, TextAndLocalShape) {
  Mesh mesh = MustParse("x=2,y=4,z=3");
  TensorSharding s{{{0}, {}, {1, 2}}, {}};
  EXPECT_EQ(s.ToString(mesh), R"([{"x"}, {}, {"y","z"}])");
  EXPECT_FALSE(s.IsReplicated());
  EXPECT_EQ(s.Shards(mesh, 2), 12);
  // ceil(7/2) = 4; 100 / 12 = 8.33 -> 9 (padded).
  EXPECT_EQ(s.LocalShape(mesh, {7, 5, 100}), (pir::Shape{4, 5, 9}));
  TensorSharding partial = TensorSharding::Replicated(2);
  EXPECT_TRUE(partial.IsReplicated());
  partial.partial = {1};
  EXPECT_FALSE(partial.IsReplicated());
  EXPECT_EQ(partial.ToString(mesh), R"([{}, {}] partial={"y"})");
}

// Shardy's matmul: ([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}.
FactorRule Matmul() {
  FactorRuleBuilder b;
  int i = b.AddFactor("i", 8), j = b.AddFactor("j", 16), k = b.AddFactor("k", 32, FactorKind::kReduction);
  b.Operand({{i}, {k}}).Operand({{k}, {j}}).Result({{i}, {j}});
  return b.Build();
}

TEST(Projection, MatmulWithShardedContractionIsPartial) {
  Mesh mesh = MustParse("x=2,y=4");
  FactorRule rule = Matmul();
  OpSharding op{{{1}, {}, {0}}};  // i on y, k on x
  EXPECT_EQ(RequiredOperandSharding(rule, op, 0), (TensorSharding{{{1}, {0}}, {}}));
  EXPECT_EQ(RequiredOperandSharding(rule, op, 1), (TensorSharding{{{0}, {}}, {}}));
  EXPECT_EQ(ProducedResultSharding(rule, op, 0), (TensorSharding{{{1}, {}}, {0}}));
  EXPECT_EQ(ProducedResultSharding(rule, op, 0).ToString(mesh), R"([{"y"}, {}] partial={"x"})");
  EXPECT_TRUE(CheckOpSharding(rule, op, mesh).ok());
  EXPECT_EQ(OpShardingToString(rule, op, mesh), R"({i={"y"}, k={"x"}})");
}

// Attention as rules/contraction.cc builds it: q [b,q,h,d], k/v [b,kv,h,d|v] -> [b,q,h,v].
FactorRule Attention() {
  FactorRuleBuilder b;
  int batch = b.AddFactor("b", 2), query = b.AddFactor("q", 64), heads = b.AddFactor("h", 8),
      value = b.AddFactor("v", 16), key = b.AddFactor("kv", 64, FactorKind::kReduction),
      head_dim = b.AddFactor("d", 16, FactorKind::kNeedReplication);
  b.Operand({{batch}, {query}, {heads}, {head_dim}})
      .Operand({{batch}, {key}, {heads}, {head_dim}})
      .Operand({{batch}, {key}, {heads}, {value}})
      .Result({{batch}, {query}, {heads}, {value}});
  return b.Build();
}

TEST(Projection, AttentionHeadsAndRing) {
  Mesh mesh = MustParse("x=2,y=4");
  FactorRule rule = Attention();
  // Heads on y, batch on x: every tensor is split alike, no partial.
  OpSharding heads{{{0}, {}, {1}, {}, {}, {}}};
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(RequiredOperandSharding(rule, heads, i), (TensorSharding{{{0}, {}, {1}, {}}, {}}));
  EXPECT_EQ(ProducedResultSharding(rule, heads, 0), (TensorSharding{{{0}, {}, {1}, {}}, {}}));
  // kv alone on y: the outputs are partial (merged by log-sum-exp).
  OpSharding kv{{{}, {}, {}, {}, {1}, {}}};
  EXPECT_EQ(RequiredOperandSharding(rule, kv, 1), (TensorSharding{{{}, {1}, {}, {}}, {}}));
  EXPECT_EQ(ProducedResultSharding(rule, kv, 0), (TensorSharding{{{}, {}, {}, {}}, {1}}));
  EXPECT_TRUE(CheckOpSharding(rule, kv, mesh).ok());
  // Ring attention: q and kv on the same axis; the reduction completes in the op.
  OpSharding ring{{{}, {1}, {}, {}, {1}, {}}};
  EXPECT_TRUE(CheckOpSharding(rule, ring, mesh).ok());
  EXPECT_EQ(ProducedResultSharding(rule, ring, 0), (TensorSharding{{{}, {1}, {}, {}}, {}}));
  EXPECT_EQ(RequiredOperandSharding(rule, ring, 0), (TensorSharding{{{}, {1}, {}, {}}, {}}));
  EXPECT_EQ(RequiredOperandSharding(rule, ring, 2), (TensorSharding{{{}, {1}, {}, {}}, {}}));
}

TEST(Projection, RingAttentionBackward) {
  // attention_grad's rule (pir/rules/grad.cc) built from its types: q and kv
  // are both reduction factors (dK, dV sum over the queries, dQ over the
  // keys) and no tensor has both, so one axis on both is the ring exception;
  // every result keeps the axis on its sequence dim, none is partial.
  pir::GraphBuilder b("ring_grad");
  const pir::Shape q{2, 64, 8, 16};
  pir::ValueId query = b.Input("q", pir::DType::kBF16, q), key = b.Input("k", pir::DType::kBF16, q),
               value = b.Input("v", pir::DType::kBF16, q), out = b.Input("o", pir::DType::kBF16, q),
               d_out = b.Input("do", pir::DType::kBF16, q), lse = b.Input("lse", pir::DType::kF32, {2, 64, 8});
  b.AddOp(pir::OpKind::kAttentionGrad, "attention_grad", {query, key, value, out, d_out, lse}, {});
  pir::Graph graph = b.Finish();
  auto rule = pir::BuildFactorRule(graph, graph.op(0));
  ASSERT_TRUE(rule.ok()) << rule.status().ToString();
  Mesh mesh = MustParse("x=2,y=4");
  OpSharding ring{std::vector<std::vector<int>>(rule->factors.size())};
  ring.factor_axes[static_cast<size_t>(rule->FindFactor("q"))] = {1};
  ring.factor_axes[static_cast<size_t>(rule->FindFactor("kv"))] = {1};
  EXPECT_TRUE(CheckOpSharding(*rule, ring, mesh).ok()) << CheckOpSharding(*rule, ring, mesh).ToString();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(ProducedResultSharding(*rule, ring, r), (TensorSharding{{{}, {1}, {}, {}}, {}})) << "result " << r;
  }
  // Two reduction factors that share a tensor stay refused: q and the value
  // dim v (both on o and dO).
  OpSharding clash{std::vector<std::vector<int>>(rule->factors.size())};
  clash.factor_axes[static_cast<size_t>(rule->FindFactor("q"))] = {1};
  clash.factor_axes[static_cast<size_t>(rule->FindFactor("v"))] = {1};
  EXPECT_FALSE(CheckOpSharding(*rule, clash, mesh).ok());
}

std::string CheckError(const FactorRule& rule, const OpSharding& op, const Mesh& mesh) {
  Status status = CheckOpSharding(rule, op, mesh);
  EXPECT_FALSE(status.ok());
  return status.message();
}

TEST(CheckOpSharding, RejectsBadAssignments) {
  Mesh mesh = MustParse("x=2,y=4");
  FactorRule attention = Attention();
  EXPECT_NE(CheckError(attention, {{{}, {}, {}, {}, {}, {0}}}, mesh).find("factor 'd' must stay replicated"),
            std::string::npos);
  EXPECT_NE(CheckError(attention, {{{1}, {}, {1}, {}, {}, {}}}, mesh).find("on factors 'b' and 'h'"),
            std::string::npos);
  EXPECT_NE(CheckError(attention, {{{}, {}, {0, 0}, {}, {}, {}}}, mesh).find("twice"), std::string::npos);
  EXPECT_NE(CheckError(attention, {{{}, {}, {7}, {}, {}, {}}}, mesh).find("mesh axis 7"), std::string::npos);
  EXPECT_NE(CheckError(attention, {{{}}}, mesh).find("axes for 1 factors"), std::string::npos);
  // Not a ring: both factors are pass-through.
  EXPECT_NE(CheckError(attention, {{{}, {1}, {1}, {}, {}, {}}}, mesh).find("on factors 'q' and 'h'"),
            std::string::npos);
  // A matmul's i and k share operand 0: the same axis on both is no ring.
  EXPECT_NE(CheckError(Matmul(), {{{0}, {}, {0}}}, mesh).find("on factors 'i' and 'k'"), std::string::npos);

  // Expressibility: [B, L, 3*H*D] -> [B, L, 3, H, D]; H may not be sharded while 3 is whole.
  FactorRuleBuilder b;
  int l = b.AddFactor("l", 16), three = b.AddFactor("three", 3), h = b.AddFactor("h", 8), d = b.AddFactor("d", 4);
  b.Operand({{l}, {three, h, d}}).Result({{l}, {three}, {h}, {d}});
  FactorRule reshape = b.Build();
  EXPECT_NE(CheckError(reshape, {{{}, {}, {0}, {}}}, mesh).find("factor 'h' is sharded but 'three'"),
            std::string::npos);
  EXPECT_TRUE(CheckOpSharding(reshape, {{{0}, {}, {}, {}}}, mesh).ok());
  // Uneven on the minor-most sharded factor is fine (padding): 3 on y=4.
  EXPECT_TRUE(CheckOpSharding(reshape, {{{}, {1}, {}, {}}}, mesh).ok());
  // Size-1 factors never take axes.
  FactorRuleBuilder one;
  int unit = one.AddFactor("u", 1);
  one.Operand({{unit}}).Result({{unit}});
  EXPECT_NE(CheckError(one.Build(), {{{0}}}, mesh).find("size 1"), std::string::npos);
}

// A tiny graph: y = x @ W, plus a plan for it.
struct Tiny {
  pir::Graph graph;
  ShardingPlan plan;
};

Tiny TinyPlan() {
  pir::GraphBuilder b("tiny");
  pir::ValueId x = b.Input("x", pir::DType::kF32, {8, 32});
  pir::ValueId w = b.Param("w", pir::DType::kF32, {32, 16});
  b.Output(b.Einsum("mm", "ik,kj->ij", x, w));
  Tiny t{b.Finish(), {}};
  t.plan.mesh = MustParse("x=2,y=4");
  t.plan.rules.push_back(*pir::BuildFactorRule(t.graph, t.graph.op(0)));
  // Rule factors in result-letter order: i, j, then k.
  t.plan.ops.push_back({{{1}, {}, {0}}});
  t.plan.values = {TensorSharding{{{1}, {0}}, {}}, TensorSharding{{{0}, {}}, {}}, TensorSharding{{{1}, {}}, {0}}};
  return t;
}

TEST(VerifyPlan, AcceptsAConsistentPlan) {
  Tiny t = TinyPlan();
  Status status = VerifyPlan(t.graph, t.plan);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(VerifyPlan, RejectsInconsistentPlans) {
  {
    Tiny t = TinyPlan();
    t.plan.values[2].partial.clear();  // the producer leaves a partial sum
    Status status = VerifyPlan(t.graph, t.plan);
    EXPECT_NE(status.message().find("'mm' produces it [{\"y\"}, {}] partial={\"x\"}"), std::string::npos)
        << status.message();
  }
  {
    Tiny t = TinyPlan();
    t.plan.values[0].dims = {{0}, {0}};
    EXPECT_NE(VerifyPlan(t.graph, t.plan).message().find("\"x\" uses mesh axis \"x\" twice"), std::string::npos);
  }
  {
    Tiny t = TinyPlan();
    t.plan.values[1].partial = {1};
    EXPECT_NE(VerifyPlan(t.graph, t.plan).message().find("is a leaf but has partial axes"), std::string::npos);
  }
  {
    Tiny t = TinyPlan();
    t.plan.values[1].dims.pop_back();
    EXPECT_NE(VerifyPlan(t.graph, t.plan).message().find("rank 1 for a tensor of rank 2"), std::string::npos);
  }
  {
    Tiny t = TinyPlan();
    t.plan.ops[0].factor_axes[1] = {1};  // j on y while i is on y
    EXPECT_NE(VerifyPlan(t.graph, t.plan).message().find("op 'mm': mesh axis \"y\" is on factors 'i' and 'j'"),
              std::string::npos);
  }
  {
    Tiny t = TinyPlan();
    t.plan.values.pop_back();
    EXPECT_NE(VerifyPlan(t.graph, t.plan).message().find("2 value shardings for 3 values"), std::string::npos);
  }
}

}  // namespace
}  // namespace az::shard
