// The MLIR text parser: structure, both op forms, and located parse errors.
#include "frontend/stablehlo/mlir_parser.h"

#include <gtest/gtest.h>

namespace az::frontend::shlo {
namespace {

TEST(StableHloParserTest, ModuleMeshFuncsAndOps) {
  const char* text = R"(// RUN: ignored
#loc1 = loc("p0.1")
module @jit_f attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x16xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>} loc(#loc1)) -> (tensor<8x16xbf16> {jax.result_info = "r"}) {
    %0:2 = "stablehlo.optimization_barrier"(%arg0, %arg0) : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> (tensor<8x16xbf16>, tensor<8x16xbf16>)
    %1 = stablehlo.add %0#0, %0#1 : tensor<8x16xbf16> loc("add.3")
    return %1 : tensor<8x16xbf16>
  }
}
)";
  auto module = ParseMlir(text, "t.mlir");
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ(module->name, "jit_f");
  ASSERT_EQ(module->meshes.size(), 1u);
  EXPECT_EQ(module->meshes[0].name, "mesh");
  ASSERT_EQ(module->funcs.size(), 1u);
  const Func& f = module->funcs[0];
  EXPECT_EQ(f.visibility, "public");
  ASSERT_EQ(f.args.size(), 1u);
  EXPECT_EQ(f.args[0].type.ToString(), "bf16[8,16]");
  EXPECT_EQ(f.args[0].loc.alias, "loc1");
  EXPECT_NE(FindAttr(f.args[0].attrs, "sdy.sharding"), nullptr);
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_NE(FindAttr(f.results[0].attrs, "jax.result_info"), nullptr);
  const Block& block = f.body.blocks.at(0);
  ASSERT_EQ(block.ops.size(), 3u);
  EXPECT_TRUE(block.ops[0].generic);
  EXPECT_EQ(block.ops[0].NumResults(), 2);
  EXPECT_EQ(block.ops[0].operands, (std::vector<std::string>{"arg0", "arg0"}));
  EXPECT_FALSE(block.ops[1].generic);
  EXPECT_EQ(block.ops[1].name, "stablehlo.add");
  EXPECT_EQ(block.ops[1].line, 7);
  EXPECT_EQ(block.ops[1].col, 10);
  EXPECT_EQ(block.ops[1].loc.inline_loc.at(0).text, "add.3");
  EXPECT_EQ(module->loc_aliases.count("loc1"), 1u);
}

TEST(StableHloParserTest, RegionsAndReducerForm) {
  const char* text = R"(func.func @main(%x: tensor<4x8xf32>, %c: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%x init: %c) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32> loc("r"), %b: tensor<f32> loc("r"))  {
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  } loc(#loc3)
  return %0 : tensor<4xf32>
}
)";
  auto module = ParseMlir(text, "t.mlir");
  ASSERT_TRUE(module.ok()) << module.status().message();
  const Operation& reduce = module->funcs.at(0).body.blocks.at(0).ops.at(0);
  ASSERT_EQ(reduce.regions.size(), 1u);
  EXPECT_EQ(reduce.regions[0].blocks[0].ops.size(), 2u);
  ASSERT_EQ(reduce.arg_lists.size(), 1u);
  EXPECT_EQ(reduce.arg_lists[0].size(), 2u);
  EXPECT_TRUE(reduce.functional_type);
  EXPECT_EQ(reduce.loc.alias, "loc3");
}

TEST(StableHloParserTest, TensorTypes) {
  EXPECT_EQ(ParseTensorType("2x3xbf16", false)->ToString(), "bf16[2,3]");
  EXPECT_EQ(ParseTensorType("f32", false)->ToString(), "f32[]");
  EXPECT_EQ(ParseTensorType("4xi1", false)->dtype, pir::DType::kBool);
  EXPECT_EQ(ParseTensorType("4xf8E4M3FN", false)->dtype, pir::DType::kF8E4M3);
  EXPECT_EQ(ParseTensorType("4xcomplex<f32>", false)->dtype, pir::DType::kF64);
  EXPECT_FALSE(ParseTensorType("?x4xf32", false).ok());
  EXPECT_FALSE(ParseTensorType("4xf33", false).ok());
  // 2^20 * 2^20 * 2^20 = 2^60 elements: over the 2^50 limit.
  EXPECT_FALSE(ParseTensorType("1048576x1048576x1048576xf32", false).ok());
}

// Each case: text, the expected "file:line:col: error: message" prefix.
struct ErrorCase {
  const char* text;
  const char* expected;
};

TEST(StableHloParserTest, LocatedErrors) {
  const ErrorCase cases[] = {
      // The string opens at line 2, col 37 (after `  func.func @main() attributes {a = `) and never closes.
      {"module {\n  func.func @main() attributes {a = \"open\n}", "t.mlir:2:37: error: unterminated string"},
      // ';' is not MLIR.
      {"module {\n  func.func @main() {\n    return ;\n  }\n}", "t.mlir:3:12: error: unexpected character ';'"},
      // The element type is checked where `tensor` starts (line 2, col 23, after `  func.func @main(%a: `).
      {"module {\n  func.func @main(%a: tensor<4xf33>) {\n    return\n  }\n}",
       "t.mlir:2:23: error: unsupported element type 'f33'"},
      {"module {\n  func.func @main(%a: tensor<?x4xf32>) {\n    return\n  }\n}",
       "t.mlir:2:23: error: dynamic dimensions ('?') are not supported"},
      // A result without '=' (line 3, col 8: the op name).
      {"module {\n  func.func @main() {\n    %0 stablehlo.add\n  }\n}", "t.mlir:3:8: error: expected '='"},
      // The module never closes: the caret goes after the last token (line 4, col 4).
      {"module {\n  func.func @main() {\n    return\n  }", "t.mlir:4:4: error: expected '}'"},
  };
  for (const ErrorCase& c : cases) {
    auto module = ParseMlir(c.text, "t.mlir");
    ASSERT_FALSE(module.ok()) << c.text;
    EXPECT_EQ(module.status().code(), StatusCode::kParseError);
    EXPECT_EQ(module.status().message().rfind(c.expected, 0), 0u) << module.status().message();
    EXPECT_NE(module.status().message().find('^'), std::string::npos) << "no caret: " << module.status().message();
  }
}

TEST(StableHloParserTest, NestingLimit) {
  std::string deep = "module attributes {a = " + std::string(300, '[') + std::string(300, ']') + "} {\n}";
  auto module = ParseMlir(deep, "t.mlir");
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.status().message().find("nesting deeper than 256"), std::string::npos) << module.status().message();
}

}  // namespace
}  // namespace az::frontend::shlo
