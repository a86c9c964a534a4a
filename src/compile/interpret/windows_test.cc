// A VAE split over its rows (compile/spmd/halo.h), run on data: a tiny
// decoder stack partitioned over H (or W) on 2 and 4 devices, even and
// uneven, must compute what the unpartitioned stack computes; the cases
// halo.h refuses are refused, with the reason, not computed wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compile/interpret/interpreter.h"
#include "compile/interpret/testing.h"
#include "pir/build/graph_builder.h"
#include "pir/verify/verifier.h"
#include "shard/propagation.h"

namespace az::compile {
namespace {

using interpret_test::RelativeError;

// The leaves of these tests.
std::map<ValueId, Tensor> RandomLeaves(const pir::Graph& graph) {
  return interpret_test::RandomLeaves(graph, 20250301);
}

constexpr int64_t kChannels = 4, kFrames = 2;

using interpret_test::Conv3d;

// The decoder's spatial ops in a row, x [1, 4, 2, h, w]:
//   conv_a   3x3 in space, zeros around (Wan's frame conv)
//   norm     group norm, 2 groups (HunyuanVideo's), statistics over every
//            frame, row and column of a group, then silu
//   pad      replicate: 2 frames before, 1 row and column each side
//   conv_b   unpadded 3x3x3 (with the pad: HunyuanVideo's CausalConv3d)
//   sum      conv_b + conv_a
//   up       nearest 2x in space (only with `upsample`)
//   conv_c   3x3x3, zeros: 2 frames before, 1 row and column each side
//            (Wan's CausalConv3d), 3 output channels.
pir::Graph Stack(int64_t h, int64_t w, bool upsample) {
  GraphBuilder b("vae_stack");
  ValueId x = b.Input("x", DType::kF32, {1, kChannels, kFrames, h, w});
  ValueId a = Conv3d(b, "conv_a", x, kChannels, {1, 3, 3}, {0, 0, 1, 1, 1, 1});
  pir::Attributes groups;
  groups.Set("groups", int64_t{2});
  groups.Set("eps", 1e-6);
  ValueId norm = b.AddOp1(OpKind::kGroupNorm, "norm",
                          {a, b.Param("norm.weight", DType::kF32, {kChannels}),
                           b.Param("norm.bias", DType::kF32, {kChannels})},
                          groups);
  ValueId act = b.Unary(OpKind::kSilu, "act", norm);
  pir::Attributes pad;
  pad.Set("low", std::vector<int64_t>{0, 0, 2, 1, 1});
  pad.Set("high", std::vector<int64_t>{0, 0, 0, 1, 1});
  pad.Set("mode", std::string("replicate"));
  ValueId padded = b.AddOp1(OpKind::kPad, "pad", {act}, pad);
  ValueId conv_b = Conv3d(b, "conv_b", padded, kChannels, {3, 3, 3}, {0, 0, 0, 0, 0, 0});
  ValueId sum = b.Binary(OpKind::kAdd, "sum", conv_b, a);
  if (upsample) {
    pir::Attributes scale;
    scale.Set("scale", std::vector<int64_t>{1, 1, 1, 2, 2});
    sum = b.AddOp1(OpKind::kUpsample, "up", {sum}, scale);
  }
  b.Output(Conv3d(b, "conv_c", sum, 3, {3, 3, 3}, {2, 0, 1, 1, 1, 1}));
  return b.Finish();
}

// The plan with x's dim `dim` split over the one axis of `mesh_text`.
shard::ShardingPlan SplitPlan(const pir::Graph& graph, const std::string& mesh_text, int dim) {
  auto mesh = shard::Mesh::Parse(mesh_text);
  EXPECT_TRUE(mesh.ok());
  shard::Seeds seeds;
  shard::TensorSharding split = shard::TensorSharding::Replicated(5);
  split.dims[static_cast<size_t>(dim)] = {0};
  seeds.values[0] = split;  // x
  auto plan = shard::Propagate(graph, *mesh, seeds);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  Status verified = shard::VerifyPlan(graph, *plan);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  return std::move(plan).value();
}

// Every op of the stack runs split: the output too is split on `dim`.
void ExpectSplitThrough(const pir::Graph& graph, const shard::ShardingPlan& plan, int dim) {
  for (pir::ValueId v = 0; v < graph.num_values(); ++v) {
    if (graph.value(v).role != pir::ValueRole::kActivation) continue;
    EXPECT_EQ(plan.values[static_cast<size_t>(v)].dims[static_cast<size_t>(dim)], std::vector<int>{0})
        << pir::ValueLabel(graph, v);
  }
}

struct Case {
  int64_t h, w;
  bool upsample;
  const char* mesh;
  int dim;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.h << "x" << c.w << (c.upsample ? " upsampled" : "") << " on " << c.mesh << " (dim " << c.dim << ")";
}

class SplitStack : public ::testing::TestWithParam<Case> {};

TEST_P(SplitStack, MatchesTheUnpartitionedRun) {
  const Case c = GetParam();
  pir::Graph graph = Stack(c.h, c.w, c.upsample);
  ASSERT_TRUE(pir::VerifyGraph(graph).ok());
  auto leaves = RandomLeaves(graph);
  auto reference = RunReference(graph, leaves);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  shard::ShardingPlan plan = SplitPlan(graph, c.mesh, c.dim);
  ExpectSplitThrough(graph, plan, c.dim);
  auto got = RunPartitioned(graph, plan, leaves);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_LE(RelativeError(*got, *reference), 1e-12);
}

// Even: 8 rows in blocks of 4 and 2. Uneven: 7 rows over 4 devices in blocks
// of 2 (the last holds 1 row), and upsampled 14 rows in blocks of 4 = 2 x 2:
// aligned; 7 rows over 2 devices (blocks of 4 and 3) without the upsampler
// (14 rows would be blocks of 7, not 8: refused below); 5 rows over 4 devices
// (blocks of 2: the third holds 1 row, the fourth none). Width: 6 columns
// over 2 devices.
INSTANTIATE_TEST_SUITE_P(
    Halo, SplitStack,
    ::testing::Values(Case{8, 6, true, "h=2", 3}, Case{8, 6, true, "h=4", 3}, Case{7, 6, true, "h=4", 3},
                      Case{7, 6, false, "h=2", 3}, Case{5, 6, false, "h=4", 3}, Case{8, 6, true, "w=2", 4}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(info.param.mesh).substr(0, 1) + std::to_string(info.param.h) + "x" +
             std::to_string(info.param.w) + "_on" + std::string(info.param.mesh).substr(2) +
             (info.param.upsample ? "_up" : "");
    });

// Wan's encoder downsampler (a zero row and column after, then a 3x3
// stride-2 conv): output row y reads input rows 2y .. 2y + 2, so each block
// reads one row of its successor's. 8 rows over 2 and 4 devices; 6 rows over
// 4 (input blocks of 2, output blocks of 1: aligned, the last device empty),
// seeded on the op: propagation leaves 3 output rows over 4 devices unsplit,
// the phase factor being minor to them.
TEST(SplitDownsampler, MatchesTheUnpartitionedRun) {
  for (const auto& [rows, mesh] : std::vector<std::pair<int64_t, std::string>>{{8, "h=2"}, {8, "h=4"}, {6, "h=4"}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows on " + mesh);
    GraphBuilder b("down");
    ValueId x = b.Input("x", DType::kF32, {1, 2, 1, rows, 8});
    ValueId w = b.Param("down.weight", DType::kF32, {2, 2, 1, 3, 3});
    pir::Attributes a;
    a.Set("stride", std::vector<int64_t>{1, 2, 2});
    a.Set("padding", std::vector<int64_t>{0, 0, 0, 1, 0, 1});
    b.Output(b.AddOp1(OpKind::kConv3d, "down", {x, w}, a));
    pir::Graph graph = b.Finish();
    auto leaves = RandomLeaves(graph);
    auto reference = RunReference(graph, leaves);
    ASSERT_TRUE(reference.ok());
    shard::ShardingPlan plan = SplitPlan(graph, mesh, 3);
    if (rows == 6) {
      auto parsed = shard::Mesh::Parse(mesh);
      ASSERT_TRUE(parsed.ok());
      shard::Seeds seeds;
      seeds.op_factors[0]["y"] = {0};
      auto seeded = shard::Propagate(graph, *parsed, seeds);
      ASSERT_TRUE(seeded.ok()) << seeded.status().ToString();
      plan = std::move(seeded).value();
    }
    ExpectSplitThrough(graph, plan, 3);
    auto got = RunPartitioned(graph, plan, leaves);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_LE(RelativeError(*got, *reference), 1e-12);
  }
}

// A negative control: each device convolving its own block with the zero
// padding on its edges (no halo) differs from the reference, so the test
// above would catch a missing exchange.
TEST(SplitStackControl, BlocksConvolvedAloneDiffer) {
  pir::Graph graph = Stack(8, 6, false);
  auto leaves = RandomLeaves(graph);
  auto reference = RunReference(graph, leaves);
  ASSERT_TRUE(reference.ok());
  // Two separate runs on the two halves of x's rows, each padded with zeros.
  pir::Graph half = Stack(4, 6, false);
  std::vector<Tensor> stitched{Tensor{(*reference)[0].shape, std::vector<double>((*reference)[0].data.size())}};
  for (int part = 0; part < 2; ++part) {
    std::map<ValueId, Tensor> own = leaves;
    Tensor& x = own[0];
    x.shape = {1, kChannels, kFrames, 4, 6};
    std::vector<double> rows;
    for (int64_t c = 0; c < kChannels * kFrames; ++c) {
      for (int64_t r = 0; r < 4; ++r) {
        for (int64_t col = 0; col < 6; ++col) {
          rows.push_back(leaves[0].data[static_cast<size_t>((c * 8 + part * 4 + r) * 6 + col)]);
        }
      }
    }
    x.data = rows;
    auto out = RunReference(half, own);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int64_t c = 0; c < 3 * kFrames; ++c) {
      for (int64_t r = 0; r < 4; ++r) {
        for (int64_t col = 0; col < 6; ++col) {
          stitched[0].data[static_cast<size_t>((c * 8 + part * 4 + r) * 6 + col)] =
              (*out)[0].data[static_cast<size_t>((c * 4 + r) * 6 + col)];
        }
      }
    }
  }
  EXPECT_GT(RelativeError(stitched, *reference), 1e-3);
}

// The cases halo.h refuses: the interpreter reports them as unimplemented
// with the reason, as the compiler does, rather than run them.
void ExpectRefused(const pir::Graph& graph, const shard::ShardingPlan& plan, const std::string& reason) {
  interpret_test::ExpectUnimplemented(RunPartitioned(graph, plan, RandomLeaves(graph)), reason);
}

TEST(SplitStackRefusals, UnalignedUpsampleAndWideWindows) {
  // 7 rows over 2: blocks of 4, the 14 upsampled rows blocks of 7.
  pir::Graph stack = Stack(7, 6, true);
  ExpectRefused(stack, SplitPlan(stack, "h=2", 3), "the result's blocks of 7 rows are not 2 x the operand's");
  // A 5x5 window needs 2 rows each side; 4 rows over 4 devices are blocks of 1.
  pir::Graph wide = interpret_test::ConvGraph("wide", "conv", {1, 2, 1, 4, 4}, 2, {1, 5, 5}, {0, 0, 2, 2, 2, 2});
  ExpectRefused(wide, SplitPlan(wide, "h=4", 3), "wider than a shard");
}

TEST(SplitStackRefusals, ExtendedShardsOnlyFeedAConvolution) {
  // A split pad read by silu: its extended shards have no plain-block reading.
  GraphBuilder b("pad_then_silu");
  ValueId x = b.Input("x", DType::kF32, {1, 2, 1, 4, 4});
  pir::Attributes pad;
  pad.Set("low", std::vector<int64_t>{0, 0, 0, 1, 1});
  pad.Set("high", std::vector<int64_t>{0, 0, 0, 1, 1});
  pad.Set("mode", std::string("replicate"));
  b.Output(b.Unary(OpKind::kSilu, "act", b.AddOp1(OpKind::kPad, "pad", {x}, pad)));
  pir::Graph graph = b.Finish();
  ExpectRefused(graph, SplitPlan(graph, "h=2", 3), "extended shards");
  // An unpadded 3x3 convolution on plain blocks narrows the split dim.
  pir::Graph narrow = interpret_test::ConvGraph("narrow", "conv", {1, 2, 1, 6, 6}, 2, {1, 3, 3}, {0, 0, 0, 0, 0, 0});
  ExpectRefused(narrow, SplitPlan(narrow, "h=2", 3), "narrows dim 3 split 2 ways from 6 to 4 rows");
}

}  // namespace
}  // namespace az::compile
