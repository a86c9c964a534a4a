// Every training template through the built-in compiler on a one-block Wan
// 2.1 1.3B step: the collectives each must insert, counted by kind and
// derived by hand. The numerical check that these plans compute the step is
// in interpret/grad_check_test.cc (the same templates on a tiny Wan block).
//
// The step: Wan 2.1 T2V-1.3B, depth 1, 256x256x9 (latent 3x32x32, patches
// 2x2: 3 * 16 * 16 = 768 video tokens; not the 512 text tokens, so no text
// activation looks like a token one), micro-batch 2, remat none, each mesh
// axis of size 2. Combining and bucketing off and collectives blocking, so
// every reshard is one collective.
//
// Its 42 parameters: 15 outside the block (patch_embedding w, b; text_
// embedding.0 and .2 w, b; time_embedding.0 and .2 w, b; time_projection.1 w,
// b; head.head w, b; head.modulation) and 27 in it (modulation; self_attn q,
// k, v, o w, b and norm_q, norm_k; cross_attn the same plus norm3 w, b; ffn.0
// and ffn.2 w, b).
#include <gtest/gtest.h>

#include <map>

#include "compile/train_testing.h"

namespace az::compile {
namespace {

std::map<std::string, int> CollectivesOf(const std::string& mesh_text, const std::string& templ) {
  CompileOptions compile_options;
  compile_options.combine_threshold = Bytes(0);
  compile_options.gradient_bucket = Bytes(0);
  compile_options.async_collectives = false;
  auto program = train_test::CompileStep(train_test::BuildTinyStep({}), mesh_text, templ, compile_options);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  std::map<std::string, int> counts;
  if (!program.ok()) return counts;
  for (const cir::Instruction& in : program->instructions) {
    if (in.kind == cir::InstrKind::kCollective) ++counts[std::string(cir::CollectiveKindName(in.collective))];
  }
  return counts;
}

using Counts = std::map<std::string, int>;

TEST(TrainTemplates, DataParallel) {
  // Every gradient is a sum over the batch: 42 all-reduces, and the loss's
  // mean over the batch: 1.
  EXPECT_EQ(CollectivesOf("x=2", "dp"), (Counts{{"all-reduce", 43}}));
}

TEST(TrainTemplates, FsdpGathersWeightsTwiceAndReduceScattersGradients) {
  // ZeRO-3 over x: the batch on x, every parameter stored split.
  //   all-gather: each of the 42 parameters before its forward use, and again
  //     in the backward for the 19 the backward reads: the weight of every
  //     linear whose input needs a gradient (dX = dY W^T) and every norm
  //     scale (dx = rstd (w dy - ...)). Per block: self and cross attention
  //     q, k, v, o (8; the cross k, v inputs are the text embedding's output,
  //     which needs a gradient), norm_q and norm_k of both (4), norm3 (1),
  //     ffn.0 and ffn.2 (2) = 15; outside: text_embedding.2, time_embedding.2,
  //     time_projection.1, head.head = 4. Not the biases (their gradient is a
  //     sum of dY), the modulation tables (added), the patch embedding and
  //     the first text and time linears (their inputs are graph inputs).
  //     42 + 19 = 61.
  //   reduce-scatter: each of the 42 gradients, partial over x, arrives split
  //     like its parameter (never all-reduce + slice).
  //   all-reduce: the loss.
  EXPECT_EQ(CollectivesOf("x=2", "fsdp"), (Counts{{"all-gather", 61}, {"all-reduce", 1}, {"reduce-scatter", 42}}));
}

TEST(TrainTemplates, MegatronForwardAndBackward) {
  // Column-parallel q, k, v, ffn.0; row-parallel o, ffn.2. Forward: the row
  // outputs (self o, cross o, ffn.2: 3) and the row statistics of the q/k
  // RMS norms over the split features (4). Backward: dX of every column
  // linear (self q, k, v; cross q, k, v; ffn.0: 7) and the two statistics
  // rounds of each norm's gradient (8). The batch is whole: no gradient
  // all-reduce; column and row weights' gradients come out split like them.
  // 3 + 4 + 7 + 8 = 22.
  EXPECT_EQ(CollectivesOf("x=2", "tp"), (Counts{{"all-reduce", 22}}));
}

// The all-reduces under sequence parallelism (ulysses or ring on the axis):
// a weight gradient summed over the tokens is partial over it. In the block:
// the self attention's q, k, v, o w, b and norm_q, norm_k (10), the cross
// attention's q, o w, b, norm_q, norm3 w, b (7), ffn.0 and ffn.2 w, b (4);
// the six modulation chunks' sums (shift, scale, gate of self attention and
// FFN), after which the modulation table's and the time path's gradients are
// whole (6); the cross attention's dK and dV over the text, after which the
// cross k, v, norm_k and text embedding gradients are whole (2); outside:
// head.head w, b and the head's shift and scale sums (4). 21 + 6 + 2 + 4 = 33.
// The patch embedding's token gradient is gathered (below) before its conv,
// so it has no partial sum. The loss is computed after the unpatchify gather:
// whole.
TEST(TrainTemplates, UlyssesForwardAndBackward) {
  // all-to-all: forward q, k, v to heads and the output back (4); backward
  // dO to heads and dQ, dK, dV back (4) = 8.
  // all-gather: the head's output before the unpatchify (its [T, H, W] split
  // needs the 3 latent frames, which 2 does not divide), the patch
  // embedding's token gradient for the same reason, and the RoPE table for
  // the backward RoPE, which runs in the heads layout = 3.
  EXPECT_EQ(CollectivesOf("x=2", "ulysses"), (Counts{{"all-gather", 3}, {"all-reduce", 33}, {"all-to-all", 8}}));
}

TEST(TrainTemplates, RingForwardAndBackward) {
  // collective-permute: forward ring attention over 2 devices: 1 kv permute;
  // its backward: 1 kv permute and 2 of the (dK, dV) accumulators (the
  // second brings them home) = 4.
  // all-gather: the head output and the patch embedding's token gradient (as
  // under Ulysses; RoPE stays in the sequence layout) = 2.
  EXPECT_EQ(CollectivesOf("x=2", "ring"),
            (Counts{{"all-gather", 2}, {"all-reduce", 33}, {"collective-permute", 4}}));
}

TEST(TrainTemplates, FsdpTimesUlysses) {
  // fsdp on x (the batch, ZeRO-3), ulysses on y: Ulysses's 8 all-to-alls, 3
  // all-gathers and 33 all-reduces over y, FSDP's 61 all-gathers and 42
  // reduce-scatters over x, and the loss's all-reduce over x (its mean is
  // over the batch; the tokens are gathered before it): 64, 42, 34, 8.
  EXPECT_EQ(CollectivesOf("x=2,y=2", "fsdp=x,ulysses=y"),
            (Counts{{"all-gather", 64}, {"all-reduce", 34}, {"all-to-all", 8}, {"reduce-scatter", 42}}));
}

TEST(TrainTemplates, FsdpNeedsADivisibleMicroBatch) {
  zoo::ModelOptions small{.width = 256, .height = 256, .frames = 9};
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", small);
  ASSERT_TRUE(config.ok());
  config->depth_units = 1;
  auto graph = zoo::BuildTrainStep(*config, {});  // micro-batch 1
  ASSERT_TRUE(graph.ok());
  auto mesh = shard::Mesh::Parse("x=2");
  SpmdCompiler compiler;
  auto program = CompileTemplate(compiler, *graph, *mesh, "fsdp", {});
  ASSERT_FALSE(program.ok());
  EXPECT_NE(program.status().message().find("splits the micro-batch over 2 devices"), std::string::npos)
      << program.status().ToString();
}

}  // namespace
}  // namespace az::compile
