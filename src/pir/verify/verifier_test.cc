#include "pir/verify/verifier.h"

#include <gtest/gtest.h>

#include "pir/build/graph_builder.h"

namespace az::pir {
namespace {

// x [4, 16] -> linear(32) -> gelu: a small graph the tests then break.
Graph SmallGraph() {
  GraphBuilder b("small");
  ValueId x = b.Input("x", DType::kBF16, {4, 16});
  ValueId h = b.Linear("fc", x, 32);
  b.Output(b.Unary(OpKind::kGeluTanh, "act", h));
  return b.Finish();
}

TEST(Verifier, AcceptsBuiltGraph) { EXPECT_TRUE(VerifyGraph(SmallGraph()).ok()); }

TEST(Verifier, WrongResultTypeNamesTheOp) {
  Graph g = SmallGraph();
  // The gelu's result (last value) claims the wrong shape.
  g.mutable_value(g.num_values() - 1).type.shape = {4, 33};
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "op 'act': error: gelu_tanh result 0 is declared bf16[4,33] but the operands give bf16[4,32]");
}

TEST(Verifier, TrainingKernelsAreChecked) {
  // attention_grad's log-sum-exp must be f32 [B, Lq, H]; a norm gradient's
  // dy must have x's shape. Both are reported at the op, not crashed on.
  Graph g("train");
  TensorType qkv{DType::kBF16, {1, 8, 2, 4}};
  ValueId q = g.AddLeaf(ValueRole::kInput, "q", qkv);
  ValueId lse = g.AddLeaf(ValueRole::kInput, "lse", {DType::kBF16, {1, 8, 2}});
  ValueId x = g.AddLeaf(ValueRole::kInput, "x", {DType::kF32, {4, 16}});
  ValueId dy = g.AddLeaf(ValueRole::kInput, "dy", {DType::kF32, {4, 8}});
  g.AddOp(OpKind::kAttentionGrad, "attn.grad", {q, q, q, q, q, lse}, {qkv, qkv, qkv});
  g.AddOp(OpKind::kLayerNormGrad, "norm.grad", {x, dy}, {{DType::kF32, {4, 16}}});
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op 'attn.grad': error: attention_grad: attention_grad's lse must be f32[1,8,2], got "
                             "bf16[1,8,2]"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("op 'norm.grad': error: layer_norm_grad: norm gradient dy must be [4,16]"),
            std::string::npos)
      << s.message();
}

TEST(Verifier, NonTopologicalOrder) {
  Graph g("order");
  ValueId x = g.AddLeaf(ValueRole::kInput, "x", {DType::kF32, {8}});
  // Op 0 uses the result of op 1 (value 2, created next).
  g.AddOp(OpKind::kNeg, "first", {2}, {{DType::kF32, {8}}});
  g.AddOp(OpKind::kNeg, "second", {x}, {{DType::kF32, {8}}});
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op 'first': error: operand 0 is defined by a later op"), std::string::npos)
      << s.message();
}

TEST(Verifier, ShardingChecks) {
  Graph g = SmallGraph();
  g.AddMesh({"m", {{"x", 2}, {"y", 4}}});
  TensorSharding ok{"m", {{"x"}, {}}, {"y"}};
  g.mutable_value(0).sharding = ok;
  EXPECT_TRUE(VerifyGraph(g).ok()) << VerifyGraph(g).ToString();

  g.mutable_value(0).sharding = TensorSharding{"m", {{"x"}, {"z"}}, {}};
  Status unknown_axis = VerifyGraph(g);
  ASSERT_FALSE(unknown_axis.ok());
  EXPECT_NE(unknown_axis.message().find("sharding uses axis 'z', which mesh @m lacks"), std::string::npos);

  g.mutable_value(0).sharding = TensorSharding{"m", {{"x"}, {"x"}}, {}};
  EXPECT_NE(VerifyGraph(g).message().find("uses axis 'x' twice"), std::string::npos);

  g.mutable_value(0).sharding = TensorSharding{"n", {{}, {}}, {}};
  EXPECT_NE(VerifyGraph(g).message().find("undeclared mesh @n"), std::string::npos);

  g.mutable_value(0).sharding = TensorSharding{"m", {{"x"}}, {}};
  EXPECT_NE(VerifyGraph(g).message().find("sharding has 1 dimensions but the value has rank 2"), std::string::npos);
}

TEST(Verifier, MeshChecks) {
  Graph g = SmallGraph();
  g.AddMesh({"m", {{"x", 2}, {"x", 4}}});
  g.AddMesh({"m", {{"y", 0}}});
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("mesh @m repeats axis 'x'"), std::string::npos);
  EXPECT_NE(s.message().find("mesh @m is declared twice"), std::string::npos);
  EXPECT_NE(s.message().find("axis 'y' has size 0"), std::string::npos);
}

TEST(Verifier, ResourceLimits) {
  Graph g("huge");
  g.AddLeaf(ValueRole::kInput, "x", {DType::kF32, {int64_t{1} << 30, int64_t{1} << 30}});
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("more than 2^50 elements"), std::string::npos);
}

TEST(Verifier, BadAttributesAreReportedNotCrashed) {
  Graph g("attrs");
  ValueId x = g.AddLeaf(ValueRole::kInput, "x", {DType::kF32, {2, 3}});
  Attributes perm;
  perm.Set("perm", std::vector<int64_t>{0, 0});
  g.AddOp(OpKind::kTranspose, "t", {x}, {{DType::kF32, {2, 2}}}, perm);
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "op 't': error: transpose: transpose 'perm' [0,0] is not a permutation");
}

TEST(Verifier, ReportsEveryError) {
  Graph g("two");
  ValueId x = g.AddLeaf(ValueRole::kInput, "x", {DType::kF32, {2}});
  g.AddOp(OpKind::kNeg, "a", {x}, {{DType::kF32, {3}}});
  g.AddOp(OpKind::kExp, "b", {x}, {{DType::kF16, {2}}});
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op 'a'"), std::string::npos);
  EXPECT_NE(s.message().find("op 'b'"), std::string::npos);
}

}  // namespace
}  // namespace az::pir
