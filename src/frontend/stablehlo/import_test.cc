// The StableHLO importer on small hand-written programs.
#include "frontend/stablehlo/import.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pir/rules/rule.h"
#include "support/test_files.h"

namespace az::frontend {
namespace {

StatusOr<ImportedProgram> Import(const std::string& text, ImportOptions options = {}) {
  return ImportStableHlo(text, "t.mlir", options);
}

std::vector<const pir::Op*> OpsOf(const ImportedProgram& p, pir::OpKind kind) {
  std::vector<const pir::Op*> ops;
  for (const pir::Op& op : p.graph.ops()) {
    if (op.kind == kind) ops.push_back(&op);
  }
  return ops;
}

std::string Fn(const std::string& args, const std::string& result, const std::string& body) {
  return "module {\n  func.func @main(" + args + ") -> " + result + " {\n" + body + "  }\n}\n";
}

TEST(StableHloImportTest, DotGeneralBecomesEinsum) {
  // Batch dim 0 (a), contracting lhs 2 / rhs 1 (b), lhs free 1 (c), rhs free 2 (d).
  auto p = Import(Fn("%a: tensor<2x8x4xbf16>, %b: tensor<2x4x16xbf16>", "tensor<2x8x16xf32>",
                     "    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
                     "(tensor<2x8x4xbf16>, tensor<2x4x16xbf16>) -> tensor<2x8x16xf32>\n"
                     "    return %0 : tensor<2x8x16xf32>\n"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto einsums = OpsOf(*p, pir::OpKind::kEinsum);
  ASSERT_EQ(einsums.size(), 1u);
  EXPECT_EQ(*einsums[0]->attrs.GetString("eq"), "acb,abd->acd");
  EXPECT_EQ(einsums[0]->name, "dot_general.0");
  EXPECT_EQ(einsums[0]->loc.ToString(), "t.mlir:3:10");
  // bf16 x bf16 -> f32 (preferred element type): an einsum then a convert.
  EXPECT_EQ(OpsOf(*p, pir::OpKind::kConvert).size(), 1u);
  EXPECT_TRUE(p->warnings.empty());
}

TEST(StableHloImportTest, GenericAndPrettyFormsAgree) {
  std::string pretty = Fn("%x: tensor<4x8xf32>, %w: tensor<8x8xf32>", "tensor<4xf32>",
                          "    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, "
                          "tensor<8x8xf32>) -> tensor<4x8xf32>\n"
                          "    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
                          "    %2 = stablehlo.exponential %1 : tensor<8x4xf32>\n"
                          "    %c = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                          "    %3 = stablehlo.reduce(%2 init: %c) applies stablehlo.maximum across dimensions = [0] : "
                          "(tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>\n"
                          "    return %3 : tensor<4xf32>\n");
  std::string generic = Fn(
      "%x: tensor<4x8xf32>, %w: tensor<8x8xf32>", "tensor<4xf32>",
      "    %0 = \"stablehlo.dot_general\"(%x, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions "
      "= "
      "[1], rhs_contracting_dimensions = [0]>}> : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>\n"
      "    %1 = \"stablehlo.transpose\"(%0) <{permutation = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
      "    %2 = \"stablehlo.exponential\"(%1) : (tensor<8x4xf32>) -> tensor<8x4xf32>\n"
      "    %c = \"stablehlo.constant\"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>\n"
      "    %3 = \"stablehlo.reduce\"(%2, %c) ({\n"
      "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "      %m = \"stablehlo.maximum\"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "      \"stablehlo.return\"(%m) : (tensor<f32>) -> ()\n"
      "    }) {dimensions = array<i64: 0>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>\n"
      "    \"func.return\"(%3) : (tensor<4xf32>) -> ()\n");
  auto a = Import(pretty);
  auto b = Import(generic);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(a->graph.num_ops(), b->graph.num_ops());
  for (int i = 0; i < a->graph.num_ops(); ++i) {
    EXPECT_EQ(a->graph.op(i).kind, b->graph.op(i).kind);
    EXPECT_EQ(a->graph.op(i).attrs, b->graph.op(i).attrs);
    EXPECT_EQ(pir::ResultTypes(a->graph, a->graph.op(i)), pir::ResultTypes(b->graph, b->graph.op(i)));
  }
  // -inf (0xFF800000) is max's identity: no warning.
  EXPECT_TRUE(a->warnings.empty());
  EXPECT_TRUE(b->warnings.empty());
  EXPECT_EQ(*OpsOf(*a, pir::OpKind::kReduce)[0]->attrs.GetString("kind"), "max");
}

TEST(StableHloImportTest, UnsupportedOpIsCustomWithWarning) {
  auto p = Import(Fn("%x: tensor<4xf32>", "tensor<4xf32>",
                     "    %0 = stablehlo.cbrt %x : tensor<4xf32>\n"
                     "    return %0 : tensor<4xf32>\n"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto customs = OpsOf(*p, pir::OpKind::kCustom);
  ASSERT_EQ(customs.size(), 1u);
  EXPECT_EQ(*customs[0]->attrs.GetString("target"), "cbrt");
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_EQ(p->warnings[0].rfind("t.mlir:3:10: warning: unsupported op 'stablehlo.cbrt' imported as custom", 0), 0u)
      << p->warnings[0];
}

TEST(StableHloImportTest, CallsAreInlined) {
  std::string text = R"(module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = call @twice(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %a, %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";
  auto p = Import(text);
  ASSERT_TRUE(p.ok()) << p.status().message();
  // Two calls of a one-op body: two adds, the second reading the first.
  auto adds = OpsOf(*p, pir::OpKind::kAdd);
  ASSERT_EQ(adds.size(), 2u);
  EXPECT_EQ(adds[1]->operands[0], adds[0]->results[0]);
  EXPECT_EQ(adds[0]->loc.ToString(), "t.mlir:8:10");
}

TEST(StableHloImportTest, CyclicCallsAndDeepCallsAreErrors) {
  std::string cyclic = R"(module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @g(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @f(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";
  auto p = Import(cyclic);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().rfind("t.mlir:11:10: error: recursive call to @f", 0), 0u) << p.status().message();

  // @f0 calls @f1 ... calls @f70: deeper than 64.
  std::string deep =
      "module {\n  func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
      "    %0 = call @f0(%x) : (tensor<f32>) -> tensor<f32>\n    return %0 : tensor<f32>\n  }\n";
  for (int i = 0; i <= 70; ++i) {
    deep += "  func.func private @f" + std::to_string(i) + "(%a: tensor<f32>) -> tensor<f32> {\n";
    deep += i == 70 ? "    return %a : tensor<f32>\n"
                    : "    %0 = call @f" + std::to_string(i + 1) +
                          "(%a) : (tensor<f32>) -> tensor<f32>\n"
                          "    return %0 : tensor<f32>\n";
    deep += "  }\n";
  }
  deep += "}\n";
  p = Import(deep);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("calls nest deeper than 64 levels"), std::string::npos) << p.status().message();
}

TEST(StableHloImportTest, UserErrorsAreLocated) {
  auto unknown = Import(Fn("%x: tensor<4xf32>", "tensor<4xf32>",
                           "    %0 = stablehlo.add %x, %y : tensor<4xf32>\n    return %0 : tensor<4xf32>\n"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message().rfind("t.mlir:3:10: error: unknown value '%y'", 0), 0u);

  auto mismatch = Import(Fn("%x: tensor<4xf32>", "tensor<4xf32>",
                            "    %0 = stablehlo.convert %x : (tensor<8xf32>) -> tensor<4xf32>\n"
                            "    return %0 : tensor<4xf32>\n"));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("type mismatch: operand 0 of 'stablehlo.convert' is f32[4]"),
            std::string::npos);

  ImportOptions small;
  small.max_ops = 2;
  auto budget =
      Import(Fn("%x: tensor<4xf32>", "tensor<4xf32>",
                "    %0 = stablehlo.add %x, %x : tensor<4xf32>\n    %1 = stablehlo.add %0, %0 : tensor<4xf32>\n"
                "    %2 = stablehlo.add %1, %1 : tensor<4xf32>\n    return %2 : tensor<4xf32>\n"),
             small);
  ASSERT_FALSE(budget.ok());
  EXPECT_EQ(budget.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(budget.status().message().find("t.mlir:5:10"), std::string::npos) << budget.status().message();

  auto missing = ImportStableHloFile("/nonexistent/x.mlir", {});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(StableHloImportTest, ShardingsSeedsAndPins) {
  std::string text = R"(module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %w: tensor<16xf32> {mhlo.sharding = "{replicated}"}) -> tensor<8x16xf32> {
    %0 = sdy.sharding_constraint %x <@mesh, [{}, {"y", "x"}]> : tensor<8x16xf32>
    %1 = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<8x16xf32>
    return %2 : tensor<8x16xf32>
  }
}
)";
  auto p = Import(text);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const pir::Value& x = p->graph.value(p->arguments[0].value);
  ASSERT_TRUE(x.sharding);
  EXPECT_EQ(x.sharding->dim_axes, (std::vector<std::vector<std::string>>{{"x"}, {"y"}}));
  // The constraint pins its operand (the argument itself: it passes through).
  ASSERT_EQ(p->pinned.count(p->arguments[0].value), 1u);
  EXPECT_EQ(p->pinned.at(p->arguments[0].value).dim_axes, (std::vector<std::vector<std::string>>{{}, {"y", "x"}}));
  // %w: rank 1, reaches a multiply of rank 2 through a broadcast: a parameter (a scale).
  EXPECT_EQ(p->graph.value(p->arguments[1].value).role, pir::ValueRole::kParameter);
  EXPECT_EQ(x.role, pir::ValueRole::kInput);
}

TEST(StableHloImportTest, ManualComputationAtGlobalShapes) {
  std::string path = std::string(AZ_SOURCE_DIR) + "/fuzz/seeds/stablehlo/manual_shardy.mlir";
  auto p = ImportStableHloFile(path, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->warnings.empty());
  // The body's dot runs at global shapes: %arg1 [16,64] x %arg0 [64,32] -> [16,32]
  // (locals 8x16 and 16x32 scaled by x=2 on dim 0 and y=4 on the contracted dim).
  auto einsums = OpsOf(*p, pir::OpKind::kEinsum);
  ASSERT_EQ(einsums.size(), 1u);
  EXPECT_EQ(p->graph.type(einsums[0]->operands[0]).ToString(), "f32[16,64]");
  EXPECT_EQ(p->graph.type(einsums[0]->results[0]).ToString(), "f32[16,32]");
  EXPECT_EQ(OpsOf(*p, pir::OpKind::kCustom).size(), 0u);  // the three collectives are dropped
  EXPECT_EQ(p->pinned.at(p->arguments[0].value).dim_axes, (std::vector<std::vector<std::string>>{{"y", "x"}, {}}));

  auto collectives = ListManualCollectives(testing::ReadTextFile(path), path);
  ASSERT_TRUE(collectives.ok());
  ASSERT_EQ(collectives->size(), 3u);
  EXPECT_EQ((*collectives)[0].kind, "all_gather");
  EXPECT_EQ((*collectives)[0].axes, std::vector<std::string>{"x"});
  EXPECT_EQ((*collectives)[0].bytes, 8 * 32 * 4);  // its operand f32[8,32]
  EXPECT_EQ((*collectives)[1].axes, std::vector<std::string>{"y"});
  EXPECT_EQ((*collectives)[2].kind, "all_reduce");
}

TEST(StableHloImportTest, ManualComputationFallsBackToLocalShapes) {
  // The body claims a 7-row local block of a 64-row operand split 8 ways: not a scaling.
  std::string text = R"(module {
  sdy.mesh @mesh = <["x"=8]>
  func.func @main(%arg0: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<7x32xf32>) {
      %1 = stablehlo.negate %a : tensor<7x32xf32>
      sdy.return %1 : tensor<7x32xf32>
    } : (tensor<64x32xf32>) -> tensor<64x32xf32>
    return %0 : tensor<64x32xf32>
  }
}
)";
  auto p = Import(text);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_FALSE(p->warnings.empty());
  EXPECT_NE(p->warnings[0].find("t.mlir:4:10: warning: manual computation imported at local shapes"), std::string::npos)
      << p->warnings[0];
  auto negs = OpsOf(*p, pir::OpKind::kNeg);
  ASSERT_EQ(negs.size(), 1u);
  EXPECT_EQ(p->graph.type(negs[0]->results[0]).ToString(), "f32[7,32]");
  EXPECT_EQ(OpsOf(*p, pir::OpKind::kCustom).size(), 2u);  // global -> local, local -> global
}

TEST(StableHloImportTest, GspmdMeshFromAnnotations) {
  std::string path = std::string(AZ_SOURCE_DIR) + "/fuzz/seeds/stablehlo/gspmd_shmap.mlir";
  auto p = ImportStableHloFile(path, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->warnings.empty()) << p->warnings[0];
  // [1,8]<=[8], [8,1]<=[8] and [2,1,4]<=[8] last_tile_dim_replicate nest as d0=2, d1=4.
  ASSERT_EQ(p->graph.meshes().size(), 1u);
  EXPECT_EQ(p->graph.meshes()[0].axes, (std::vector<std::pair<std::string, int64_t>>{{"d0", 2}, {"d1", 4}}));
  EXPECT_EQ(p->graph.value(p->arguments[0].value).sharding->dim_axes,
            (std::vector<std::vector<std::string>>{{}, {"d0", "d1"}}));
  EXPECT_EQ(p->graph.value(p->arguments[2].value).sharding->dim_axes,
            (std::vector<std::vector<std::string>>{{"d0"}, {}}));
  // The shard_map body runs at global shapes: [32,64] x [64,16] -> [32,16].
  auto einsums = OpsOf(*p, pir::OpKind::kEinsum);
  ASSERT_EQ(einsums.size(), 2u);
  EXPECT_EQ(p->graph.type(einsums[0]->results[0]).ToString(), "f32[32,16]");
}

TEST(StableHloImportTest, ShardyRoundTripStrings) {
  std::string path = std::string(AZ_SOURCE_DIR) + "/fuzz/seeds/stablehlo/sdy_round_trip.mlir";
  auto p = ImportStableHloFile(path, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_NE(p->graph.FindMesh("mesh"), nullptr);  // from xla.sdy.meshes
  const auto& s = p->graph.value(p->arguments[0].value).sharding;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->mesh, "mesh");  // xla.sdy.sharding wins over the GSPMD string
  EXPECT_EQ(s->dim_axes, (std::vector<std::vector<std::string>>{{"x"}, {}}));
}

TEST(StableHloImportTest, RefusesFilesOverOneGiB) {
  std::string path = ::testing::TempDir() + "/stablehlo_huge.mlir";
  { std::ofstream touch(path); }
  std::filesystem::resize_file(path, (uint64_t{1} << 30) + 1);  // sparse: no disk used
  auto p = ImportStableHloFile(path, {});
  std::filesystem::remove(path);
  EXPECT_EQ(p.status().code(), StatusCode::kResourceExhausted);
}

TEST(StableHloImportTest, EverySeedImports) {
  for (const auto& path : testing::FilesWithExtension(std::string(AZ_SOURCE_DIR) + "/fuzz/seeds/stablehlo", ".mlir")) {
    auto p = ImportStableHloFile(path.string(), {});
    EXPECT_TRUE(p.ok()) << path << ": " << p.status().message();
  }
}

}  // namespace
}  // namespace az::frontend
