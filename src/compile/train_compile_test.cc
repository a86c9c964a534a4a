// The training step through sharding propagation and the built-in SPMD
// compiler: data parallelism over two devices.
#include <gtest/gtest.h>

#include "compile/spmd/schedule.h"
#include "compile/train_testing.h"

namespace az::compile {
namespace {

// ScheduleAsync by hand: a collective's start goes right after the later of
// its operands' last writer and the previous collective's done, its done
// where the collective was; a pair already async keeps its start. Program:
//   0 k0 -> b0; 1 k1 -> b1; 2 c0(b0) -> b2; 3 k2(b1) -> b3; 4 c1(b3) -> b4;
//   5 s2(b4) -> b5 (already a start); 6 d2 (its done, start = 5)
// c0's start follows k0 (b0's writer); c1's follows k2 (after c0's done);
// the old pair stays after c1's done. Expected order and done.start indices:
//   k0, c0.start, k1, c0.done(1), k2, c1.start, c1.done(5), s2, d2(7).
TEST(ScheduleAsync, StartsFollowTheirOperandsAndThePreviousDone) {
  cir::Program p;
  for (int b = 0; b < 6; ++b) p.AddBuffer(cir::Buffer{});
  auto kernel = [](std::string name, std::vector<int> operands, std::vector<int> results) {
    cir::Instruction in;
    in.name = std::move(name);
    in.operands = std::move(operands);
    in.results = std::move(results);
    return in;
  };
  auto collective = [&](std::string name, int operand, int result, cir::InstrKind kind) {
    cir::Instruction in = kernel(std::move(name), {operand}, {result});
    in.kind = kind;
    in.collective = cir::CollectiveKind::kAllGather;
    return in;
  };
  p.AddInstruction(kernel("k0", {}, {0}));
  p.AddInstruction(kernel("k1", {}, {1}));
  p.AddInstruction(collective("c0", 0, 2, cir::InstrKind::kCollective));
  p.AddInstruction(kernel("k2", {1}, {3}));
  p.AddInstruction(collective("c1", 3, 4, cir::InstrKind::kCollective));
  p.AddInstruction(collective("s2", 4, 5, cir::InstrKind::kCollectiveStart));
  cir::Instruction d2;
  d2.kind = cir::InstrKind::kCollectiveDone;
  d2.name = "d2";
  d2.collective = cir::CollectiveKind::kAllGather;
  d2.start = 5;
  p.AddInstruction(d2);
  ASSERT_TRUE(ScheduleAsync(p));
  std::vector<std::string> names;
  for (const cir::Instruction& in : p.instructions) names.push_back(in.name);
  EXPECT_EQ(names, (std::vector<std::string>{"k0", "c0", "k1", "c0.done", "k2", "c1", "c1.done", "s2", "d2"}));
  EXPECT_EQ(p.instructions[1].kind, cir::InstrKind::kCollectiveStart);
  EXPECT_EQ(p.instructions[3].start, 1);
  EXPECT_EQ(p.instructions[5].kind, cir::InstrKind::kCollectiveStart);
  EXPECT_EQ(p.instructions[6].start, 5);
  EXPECT_EQ(p.instructions[8].start, 7);
}

TEST(TrainCompile, DataParallelWanStepAllReducesEveryGradientOnce) {
  // Wan 2.1 1.3B, one block, 256x256x5 (512 tokens), micro-batch 2 split over
  // "dp" = 2. Under data parallelism nothing but the reductions over the batch
  // needs communication: every weight gradient is a sum over the batch (dW =
  // X^T dY, a bias's or a modulation table's sum over batch and tokens), so it
  // leaves the backward as a partial sum and is all-reduced once, before the
  // first op that reads it whole: AdamW's cast to f32, or, for a gradient the
  // backward computed in f32 (the f32 time MLP, the modulation tables added to
  // the f32 time embedding, the affine norm on the f32 residual stream), the
  // cast to the parameter's bf16. So each gradient is all-reduced in the dtype
  // it was computed in. The loss, a mean over the batch, is all-reduced as an
  // f32 scalar at the output. No all-gather, all-to-all or reduce-scatter.
  train_test::TinyStep step;
  step.frames = 5;
  step.remat = pir::RematPolicy::kSelected;
  const pir::Graph graph = train_test::BuildTinyStep(step);
  ASSERT_GT(graph.num_ops(), 0);
  // AdamW reads gradient g of parameter p in "optimizer.<p>.grad_f32"; g is
  // the pass's cast of an f32 gradient, or the gradient as computed.
  int64_t gradient_bytes = 0, f32_gradients = 0, gradients = 0;
  for (const pir::Op& op : graph.ops()) {
    if (!op.name.starts_with("optimizer.") || !op.name.ends_with(".grad_f32")) continue;
    const pir::Value& g = graph.value(op.operands[0]);
    const pir::Op& producer = graph.op(g.producer);
    const bool cast = producer.kind == pir::OpKind::kConvert && producer.name.find(".grad.cast") != std::string::npos;
    const pir::DType computed = cast ? graph.type(producer.operands[0]).dtype : g.type.dtype;
    gradient_bytes += g.type.NumElements() * pir::DTypeBytes(computed);
    f32_gradients += computed == pir::DType::kF32;
    ++gradients;
  }
  EXPECT_GT(f32_gradients, 0);
  CompileOptions compile_options;
  compile_options.combine_threshold = Bytes(0);  // one collective per gradient, to count them
  compile_options.gradient_bucket = Bytes(0);
  auto program = train_test::CompileStep(graph, "dp=2", "dp", compile_options);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  int64_t all_reduce_bytes = 0;
  int all_reduces = 0, others = 0;
  for (const cir::Instruction& in : program->instructions) {
    if (in.kind != cir::InstrKind::kCollective && in.kind != cir::InstrKind::kCollectiveStart) continue;
    if (in.collective == cir::CollectiveKind::kAllReduce) {
      all_reduce_bytes += in.collective_bytes.value();
      ++all_reduces;
    } else {
      ++others;
      ADD_FAILURE() << "unexpected " << cir::CollectiveKindName(in.collective) << " from '" << in.origin << "'";
    }
  }
  EXPECT_EQ(all_reduce_bytes, gradient_bytes + 4);
  EXPECT_EQ(all_reduces, gradients + 1);
  RecordProperty("all_reduces", all_reduces);
}

TEST(TrainCompile, GradientBucketsOverlapTheBackwardWithBoundedMemory) {
  // Default options (25 MiB buckets, async): the gradient reductions start
  // inside the backward, at most kGradientBucketsInFlight at a time, each
  // done before the optimizer reads its gradients (the verifier checks that
  // no result of a start is read before its done).
  train_test::TinyStep step;
  step.depth = 2;
  auto program = train_test::CompileStep(train_test::BuildTinyStep(step), "dp=2", "dp");
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  int in_flight = 0, most = 0, starts = 0, started_in_backward = 0;
  bool optimizer = false;
  for (const cir::Instruction& in : program->instructions) {
    optimizer |= in.kind == cir::InstrKind::kKernel && in.origin.starts_with("optimizer.");
    const bool gradient = !in.results.empty() && program->buffers[static_cast<size_t>(in.results[0])].kind ==
                                                     cir::BufferKind::kGradient;
    if (in.kind == cir::InstrKind::kCollectiveStart && gradient) {
      ++starts;
      started_in_backward += !optimizer;
      most = std::max(most, ++in_flight);
    }
    if (in.kind == cir::InstrKind::kCollectiveDone) {
      const cir::Instruction& start = program->instructions[static_cast<size_t>(in.start)];
      in_flight -= !start.results.empty() && program->buffers[static_cast<size_t>(start.results[0])].kind ==
                                                 cir::BufferKind::kGradient;
    }
  }
  EXPECT_GT(starts, kGradientBucketsInFlight);
  EXPECT_EQ(started_in_backward, starts);
  EXPECT_EQ(most, kGradientBucketsInFlight);
}

TEST(TrainCompile, ContextGathersKeysAndReduceScattersTheirGradients) {
  // Wan 2.1 1.3B, one block, 256x256x9 (768 video tokens, 12 heads of 128),
  // micro-batch 1, context=c over 2 devices. The self-attention gathers K and
  // V whole: 2 all-gathers of [1, 768, 12, 128] bf16 = 768 * 12 * 128 * 2 =
  // 2,359,296 bytes each. Its backward takes the forward's layout (queries on
  // c, keys whole): dK and dV sum over the queries, so each device holds a
  // partial [1, 768, 12, 128] sum, reduce-scattered back to the token split:
  // 2 reduce-scatters of 2,359,296 bytes (the transpose of the gathers). No
  // permute: nothing rotates. (The remat-free step keeps the gathered K and V
  // for the backward, so nothing is gathered again.)
  train_test::TinyStep step;
  step.micro_batch = 1;
  const pir::Graph graph = train_test::BuildTinyStep(step);
  auto program = train_test::CompileStep(graph, "c=2", "context=c");
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  int gathers = 0, scatters = 0, permutes = 0;
  for (const cir::Instruction& in : program->instructions) {
    if (in.kind != cir::InstrKind::kCollective && in.kind != cir::InstrKind::kCollectiveStart) continue;
    if (!in.origin.starts_with("blocks.0.self_attn.")) continue;
    permutes += in.collective == cir::CollectiveKind::kCollectivePermute;
    if (in.collective == cir::CollectiveKind::kAllGather) {
      ++gathers;
      EXPECT_EQ(in.collective_bytes.value(), 2'359'296) << in.name;
    }
    if (in.collective == cir::CollectiveKind::kReduceScatter) {
      ++scatters;
      EXPECT_EQ(in.collective_bytes.value(), 2'359'296) << in.name;
      EXPECT_TRUE(in.origin.starts_with("blocks.0.self_attn.attention.grad")) << in.origin;
    }
  }
  EXPECT_EQ(gathers, 2);
  EXPECT_EQ(scatters, 2);
  EXPECT_EQ(permutes, 0);
}

}  // namespace
}  // namespace az::compile
