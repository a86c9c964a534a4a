// The built-in compiler's halo exchange (halo.h): the collectives a VAE
// stack split over its rows compiles to, counted and sized by hand; the
// golden CIR of that program; strides; the refusals.
#include "compile/spmd/halo.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cir/text/printer.h"
#include "compile/interpret/testing.h"
#include "compile/spmd/spmd_compiler.h"
#include "pir/build/graph_builder.h"
#include "shard/propagation.h"
#include "support/test_files.h"

namespace az::compile {
namespace {

using interpret_test::Conv3d;
using interpret_test::ConvGraph;

// interpret/windows_test.cc's stack at x f32[1, 4, 2, 8, 6]: conv_a (3x3,
// zeros), group norm (2 groups), silu, replicate pad (2 frames before, 1 row
// and column each side), conv_b (unpadded 3x3x3), + conv_a, nearest 2x in
// space, conv_c (3x3x3, zeros: 2 frames before, 1 row and column each side).
pir::Graph Stack() {
  GraphBuilder b("vae_stack");
  ValueId x = b.Input("x", DType::kF32, {1, 4, 2, 8, 6});
  ValueId a = Conv3d(b, "conv_a", x, 4, {1, 3, 3}, {0, 0, 1, 1, 1, 1});
  pir::Attributes groups;
  groups.Set("groups", int64_t{2});
  groups.Set("eps", 1e-6);
  ValueId norm = b.AddOp1(OpKind::kGroupNorm, "norm",
                          {a, b.Param("norm.weight", DType::kF32, {4}), b.Param("norm.bias", DType::kF32, {4})},
                          groups);
  pir::Attributes pad;
  pad.Set("low", std::vector<int64_t>{0, 0, 2, 1, 1});
  pad.Set("high", std::vector<int64_t>{0, 0, 0, 1, 1});
  pad.Set("mode", std::string("replicate"));
  ValueId padded = b.AddOp1(OpKind::kPad, "pad", {b.Unary(OpKind::kSilu, "act", norm)}, pad);
  ValueId conv_b = Conv3d(b, "conv_b", padded, 4, {3, 3, 3}, {0, 0, 0, 0, 0, 0});
  ValueId sum = b.Binary(OpKind::kAdd, "sum", conv_b, a);
  pir::Attributes scale;
  scale.Set("scale", std::vector<int64_t>{1, 1, 1, 2, 2});
  ValueId up = b.AddOp1(OpKind::kUpsample, "up", {sum}, scale);
  b.Output(Conv3d(b, "conv_c", up, 3, {3, 3, 3}, {2, 0, 1, 1, 1, 1}));
  return b.Finish();
}

StatusOr<cir::Program> CompileSplit(const pir::Graph& graph, const std::string& mesh_text, int dim,
                                    CompileOptions options = {}) {
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(mesh_text));
  shard::Seeds seeds;
  shard::TensorSharding split = shard::TensorSharding::Replicated(5);
  split.dims[static_cast<size_t>(dim)] = {0};
  seeds.values[0] = split;
  AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(graph, mesh, seeds));
  return SpmdCompiler().Compile(graph, plan, options);
}

// `graph` with op 0's factor `factor` split over the one axis of `mesh_text`
// (a seed that names the factor, where the tensor dim alone would not say
// which of a strided dim's factors splits).
StatusOr<cir::Program> CompileSeededFactor(const pir::Graph& graph, const std::string& mesh_text,
                                           const std::string& factor) {
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(mesh_text));
  shard::Seeds seeds;
  seeds.op_factors[0][factor] = {0};
  AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(graph, mesh, seeds));
  return SpmdCompiler().Compile(graph, plan, {});
}

const cir::Instruction& Named(const cir::Program& program, const std::string& name) {
  for (const cir::Instruction& in : program.instructions) {
    if (in.name == name) return in;
  }
  ADD_FAILURE() << "no instruction '" << name << "'";
  return program.instructions.at(0);
}

const pir::Shape& OperandShape(const cir::Program& program, const std::string& name, size_t operand) {
  return program.buffers.at(static_cast<size_t>(Named(program, name).operands.at(operand))).shape;
}

// The collectives, by hand. Per device a block of 8 / G rows; a row of x (and
// of every tensor before the upsampler) is 1 x 4 channels x 2 frames x 6
// columns = 48 f32 = 192 B; after it, 12 columns: 96 f32 = 384 B.
//   conv_a   3x3, 1 row of zeros each side: 2 permutes of 1 row = 192 B
//   norm     statistics all-reduced over the group: per (sample, group) the
//            sum and the sum of squares, 1 x 2 groups x 2 f32 = 16 B
//   pad      1 row each side: 2 permutes of 192 B (the operand unpadded)
//   conv_b   reads the pad's extended shards: nothing
//   up       nothing (each device upsamples its own rows)
//   conv_c   2 permutes of 1 upsampled row = 384 B
// 6 permutes, 4 x 192 + 2 x 384 = 1536 B, and one 16 B all-reduce, whatever
// G: the halo is one row whatever the block. Pairs: rows before a block come
// from the predecessor (i -> i + 1), rows after it from the successor.
TEST(HaloCompile, StackCollectivesByHand) {
  for (const char* mesh : {"h=2", "h=4"}) {
    SCOPED_TRACE(mesh);
    CompileOptions blocking;
    blocking.async_collectives = false;
    auto program = CompileSplit(Stack(), mesh, 3, blocking);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    cir::ProgramSummary s = cir::Summarize(*program);
    ASSERT_EQ(s.collectives.size(), 2u);
    EXPECT_EQ(s.collectives[0], std::make_tuple(cir::CollectiveKind::kAllReduce, 1, Bytes(16)));
    EXPECT_EQ(s.collectives[1], std::make_tuple(cir::CollectiveKind::kCollectivePermute, 6, Bytes(1536)));
    const bool four = std::string(mesh) == "h=4";
    using Pairs = std::vector<std::pair<int, int>>;
    const Pairs down = four ? Pairs{{0, 1}, {1, 2}, {2, 3}} : Pairs{{0, 1}};
    const Pairs up = four ? Pairs{{1, 0}, {2, 1}, {3, 2}} : Pairs{{1, 0}};
    for (const char* op : {"conv_a", "pad", "conv_c"}) {
      EXPECT_EQ(Named(*program, std::string(op) + ".halo-before").pairs, down) << op;
      EXPECT_EQ(Named(*program, std::string(op) + ".halo-after").pairs, up) << op;
    }
    EXPECT_EQ(Named(*program, "conv_c.halo-after").collective_bytes, Bytes(384));
    // The local ops read extended shards: 8 / G rows + 1 + 1.
    const int64_t rows = four ? 2 : 4;
    EXPECT_EQ(OperandShape(*program, "conv_a", 0), (pir::Shape{1, 4, 2, rows + 2, 6}));
    EXPECT_EQ(OperandShape(*program, "conv_b", 0), (pir::Shape{1, 4, 4, rows + 2, 8}));  // the pad's buffer
    EXPECT_EQ(OperandShape(*program, "conv_c", 0), (pir::Shape{1, 4, 2, 2 * rows + 2, 12}));
    // No compute is repeated: each device's convolutions are 1 / G of the
    // whole (pir/rules/cost.h: 2 B O (T H W) C kt kh kw multiply-adds plus B
    // O T H W bias adds; conv_a: 2 x 4 x 96 x 4 x 9 + 4 x 96 = 28,032).
    const int64_t g = four ? 4 : 2;
    EXPECT_EQ(Named(*program, "conv_a").flops, Flops(28032 / g));
  }
}

// The program split 2 ways, as the compiler prints it (default options:
// asynchronous permutes). Regenerate with AZ_UPDATE_GOLDEN=1 and review the diff.
TEST(HaloCompile, GoldenProgram) {
  auto program = CompileSplit(Stack(), "h=2", 3);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  const std::filesystem::path golden = std::filesystem::path(AZ_SOURCE_DIR) / "tests/golden/cir/halo_stack.cir";
  const std::string text = cir::PrintProgram(*program);
  if (const char* update = std::getenv("AZ_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    std::ofstream(golden) << text;
  }
  EXPECT_EQ(text, testing::ReadTextFile(golden));
}

// Wan's encoder downsampler: ZeroPad2d((0, 1, 0, 1)) then a 3x3 stride-2
// conv; output row y reads input rows 2y .. 2y + 2. Blocks of 8 / G input
// rows give 4 / G output rows, and the last reads 1 row of the successor's
// block: one permute, upwards, of 1 row x 2 channels x 8 columns x 4 B = 64 B.
TEST(HaloCompile, StridedDownsamplerReadsOneRowAfter) {
  pir::Graph graph = ConvGraph("down", "down", {1, 2, 1, 8, 8}, 2, {1, 3, 3}, {0, 0, 0, 1, 0, 1}, {1, 2, 2});
  for (const char* mesh : {"h=2", "h=4"}) {
    auto program = CompileSplit(graph, mesh, 3);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    cir::ProgramSummary s = cir::Summarize(*program);
    ASSERT_EQ(s.collectives.size(), 1u);
    EXPECT_EQ(s.collectives[0], std::make_tuple(cir::CollectiveKind::kCollectivePermute, 1, Bytes(64)));
  }
  // 10 rows over 4 devices: input blocks of 3, the 5 output rows blocks of 2,
  // which would read input blocks of 4. Propagation does not split "y" (5
  // rows over 4, with the phase minor to it); the op seeded so is refused.
  pir::Graph uneven = ConvGraph("uneven", "down", {1, 2, 1, 10, 8}, 2, {1, 3, 3}, {0, 0, 0, 1, 0, 1}, {1, 2, 2});
  interpret_test::ExpectUnimplemented(CompileSeededFactor(uneven, "h=4", "y"),
                                      "the input's blocks of 3 rows are not 2 x the output's 2");
}

// The refusals are user errors (Unimplemented, located at the op), never a
// program that computes the wrong thing.
TEST(HaloCompile, RefusesWhatItCannotExchange) {
  // 7 rows over 2 devices upsampled: blocks of 4, the 14 rows blocks of 7.
  GraphBuilder b("up");
  ValueId x = b.Input("x", DType::kF32, {1, 2, 1, 7, 4});
  pir::Attributes scale;
  scale.Set("scale", std::vector<int64_t>{1, 1, 1, 2, 2});
  b.Output(b.AddOp1(OpKind::kUpsample, "up", {x}, scale));
  interpret_test::ExpectUnimplemented(CompileSplit(b.Finish(), "h=2", 3), "op 'up': error: upsamples dim 3");
  // A stride of 2 over 5 frames (2 outputs): the windows do not tile the
  // input, its frames are a permutation pair; split by a seed, refused.
  pir::Graph irregular =
      ConvGraph("irregular", "time_conv", {1, 2, 5, 2, 2}, 2, {3, 1, 1}, {0, 0, 0, 0, 0, 0}, {2, 1, 1});
  interpret_test::ExpectUnimplemented(CompileSeededFactor(irregular, "t=2", "it"),
                                      "splits 'it', a convolution window that does not tile its input");
  // Split height and width at once: corners.
  pir::Graph corners = ConvGraph("corners", "conv", {1, 2, 1, 4, 4}, 2, {1, 3, 3}, {0, 0, 1, 1, 1, 1});
  auto mesh = shard::Mesh::Parse("h=2,w=2");
  ASSERT_TRUE(mesh.ok());
  shard::Seeds seeds;
  seeds.values[0] = shard::TensorSharding{{{}, {}, {}, {0}, {1}}, {}};
  auto plan = shard::Propagate(corners, *mesh, seeds);
  ASSERT_TRUE(plan.ok());
  auto both = SpmdCompiler().Compile(corners, *plan, {});
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("two windowed dims (3 and 4) are split at once"), std::string::npos)
      << both.status().message();
}

}  // namespace
}  // namespace az::compile
