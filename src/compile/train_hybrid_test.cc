// Per-part hybrids (shard/templates.h: "ring=x,tp=x@ffn") on a training step
// through the built-in compiler: the collectives the parts' forward and
// backward transitions need, derived by hand against the whole-model
// strategies' (train_templates_test.cc). The numerical check that these plans
// compute the step is in interpret/grad_check_test.cc
// (GradCheck.PerPartHybridTrainingStepsComputeTheReferenceStep).
//
// The step (compile/train_testing.h): Wan 2.1 T2V-1.3B, depth 1, 256x256x9
// (768 video tokens, 512 text tokens), micro-batch 2, remat none; d = 1536,
// 12 heads, FFN hidden f = 8960, bf16. Combining and bucketing off and
// collectives blocking, so every reshard is one collective. Bytes follow
// cir/program.h: all-gather the gathered result, reduce-scatter and all-reduce
// the unreduced operand.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "cir/testing.h"
#include "compile/train_testing.h"

namespace az::compile {
namespace {

// (kind, bytes, origin op, replica groups) of every collective, in program order.
using Collectives = cir::CollectiveRows;
using Counts = std::map<std::string, int>;

Collectives CollectivesOf(const std::string& mesh_text, const std::string& templ) {
  CompileOptions options;
  options.combine_threshold = Bytes(0);
  options.gradient_bucket = Bytes(0);
  options.async_collectives = false;
  auto program = train_test::CompileStep(train_test::BuildTinyStep({}), mesh_text, templ, options);
  EXPECT_TRUE(program.ok()) << templ << ": " << program.status().ToString();
  if (!program.ok()) return {};
  return cir::CollectiveRowsOf(*program);
}

Counts CountsOf(const Collectives& collectives) {
  Counts counts;
  for (const auto& c : collectives) ++counts[std::get<0>(c)];
  return counts;
}

// The collectives whose origin op is in the block part `part` of block 0.
Collectives InPart(const Collectives& collectives, const std::string& part) {
  Collectives out;
  for (const auto& c : collectives) {
    if (std::get<2>(c).rfind("blocks.0." + part + ".", 0) == 0) out.push_back(c);
  }
  return out;
}

// Ring attention on x = 2 with Megatron TP on x inside the FFN.
TEST(TrainHybrid, RingWithTensorParallelFfn) {
  // Against ring=x alone (TrainTemplates.RingForwardAndBackward: 2
  // all-gathers, 33 all-reduces, 4 collective-permutes):
  //   forward: the FFN's input (the modulated norm2 output cast to bf16) is
  //     gathered whole for the column-parallel ffn.0, and ffn.2's partial sum
  //     is reduce-scattered back to the sequence split before the gate;
  //     [2, 768, 1536] bf16 = 4,718,592 bytes each (Megatron's sequence
  //     parallelism, as in a forward: hybrid_collectives_test.cc);
  //   backward, the mirror: the gate's gradient (ffn.2's output gradient, in
  //     bf16 after the cast) is gathered for dH = dY W2^T, split on the hidden
  //     width, and ffn.0's input gradient dX = dH W0^T, a partial sum over x,
  //     is reduce-scattered back to the sequence split: 4,718,592 bytes each.
  //     ffn.0's weight gradient X^T dH reads the forward's gathered X (remat
  //     none keeps it): no third gather;
  //   gone: the all-reduces of the ffn.0 weight and bias and ffn.2 weight
  //     gradients (3): each is summed over the whole (gathered) sequence and
  //     comes out split on the hidden width like its weight, so no partial
  //     sum is left over x. ffn.2's bias gradient sums the gate's gradient
  //     before the gather (sequence-split): still all-reduced, as are the
  //     FFN's modulation sums (shift, scale, gate), outside the parts'
  //     interior.
  // all-gather 2 + 2 = 4, reduce-scatter 2, all-reduce 33 - 3 = 30,
  // collective-permute 4 (the self-attention is still ring attention).
  const Collectives all = CollectivesOf("x=2", "ring=x,tp=x@ffn");
  EXPECT_EQ(CountsOf(all),
            (Counts{{"all-gather", 4}, {"all-reduce", 30}, {"collective-permute", 4}, {"reduce-scatter", 2}}));
  const std::string x = "{{0,1}}";
  const Collectives ffn = {
      {"all-gather", 4718592, "blocks.0.ffn.cast", x},
      {"reduce-scatter", 4718592, "blocks.0.ffn.2", x},
      // backward: the FFN's modulation gate sum ([2, 1536] f32), then the part
      {"all-reduce", 12288, "blocks.0.ffn.gate.grad.rhs.sum", x},
      {"all-gather", 4718592, "blocks.0.ffn.gate.grad.cast0", x},
      {"reduce-scatter", 4718592, "blocks.0.ffn.0.grad.lhs", x},
      {"all-reduce", 12288, "blocks.0.ffn.modulate.shift.grad.rhs.sum", x},
      {"all-reduce", 12288, "blocks.0.ffn.modulate.scale.grad.rhs.sum", x},
      // the weight gradients: only ffn.2's bias, [1536] bf16
      {"all-reduce", 3072, "blocks.0.ffn.2.grad.bias", x},
  };
  EXPECT_EQ(InPart(all, "ffn"), ffn);
}

// Megatron TP on the ring's axis inside the cross-attention.
TEST(TrainHybrid, RingWithTensorParallelCrossAttention) {
  // Against ring=x alone (33 all-reduces):
  //   forward: the gather of its input and the reduce-scatter of o's partial
  //     sum (as the FFN's above), and the q/k RMS norms over the split head
  //     features sum their squares over x: 2 all-reduces;
  //   backward: the gather of o's output gradient and the reduce-scatter of
  //     q's partial input gradient; the two statistics rounds of each norm's
  //     gradient (4 all-reduces, as under tp=x: TrainTemplates.
  //     MegatronForwardAndBackward); k and v project the whole text, so their
  //     input gradients (partial over x: each device holds half the heads)
  //     are all-reduced (2), where ring all-reduced the attention's dK and dV
  //     over the text (its query shards' partial sums: 2);
  //   gone: the all-reduces of the q weight, q bias, norm_q weight and o
  //     weight gradients (4), summed over the whole sequence.
  // all-gather 2 + 2 = 4, reduce-scatter 2, all-reduce 33 + 2 + 4 + 2 - 2 - 4
  // = 35, collective-permute 4.
  EXPECT_EQ(CountsOf(CollectivesOf("x=2", "ring=x,tp=x@cross_attn")),
            (Counts{{"all-gather", 4}, {"all-reduce", 35}, {"collective-permute", 4}, {"reduce-scatter", 2}}));
}

// ZeRO-3 over both axes (the batch on y, fsdp's axis no compute strategy
// holds) with ring on x and tp on x inside the FFN: the FFN's weights are
// stored tp-major ([x, y] along the dim tp splits, templates.h), so each use
// gathers only y's half, and their gradients, split on x by the backward, are
// never reduced over x.
TEST(TrainHybrid, ZeroThreeStoresTheFfnWeightsTpMajor) {
  // Mesh x=2,y=2: device 2x + y; x's groups {0,2},{1,3}, y's {0,1},{2,3}.
  // Per device: 1 sample, 384 tokens.
  //   The FFN's input gathered over x and ffn.2's output reduce-scattered:
  //     [1, 768, 1536] bf16 = 2,359,296 bytes.
  //   ffn.0.weight [1536, 8960] bf16 = 27,525,120 bytes, stored on [x, y]
  //     along 8960: gathered over y to x's half, 13,762,560 bytes, before the
  //     forward and again for the backward's dX = dH W0^T; its bias [8960]
  //     likewise, 8,960 bytes (forward only: the bias has no backward use);
  //     ffn.2.weight [8960, 1536] along 8960 alike. ffn.2's bias [1536], not
  //     split by tp, is gathered over both axes: 3,072 bytes.
  //   The weight gradients (ffn.0 w, b; ffn.2 w), split on x and partial over
  //     the batch on y, are all-reduced over y at x's half (under
  //     fsdp=y+x,ring=x alone each is first reduce-scattered over x at full
  //     size, then all-reduced over y); ffn.2's bias gradient is partial over
  //     both (reduce-scatter over x, all-reduce over y), as under ring alone.
  const std::string x = "{{0,2},{1,3}}", y = "{{0,1},{2,3}}", both = "{{0,1,2,3}}";
  const Collectives ffn = {
      {"all-gather", 2359296, "blocks.0.ffn.cast", x},
      {"all-gather", 13762560, "blocks.0.ffn.0.weight", y},
      {"all-gather", 8960, "blocks.0.ffn.0.bias", y},
      {"all-gather", 13762560, "blocks.0.ffn.2.weight", y},
      {"all-gather", 3072, "blocks.0.ffn.2.bias", both},
      {"reduce-scatter", 2359296, "blocks.0.ffn.2", x},
      {"all-reduce", 6144, "blocks.0.ffn.gate.grad.rhs.sum", x},
      {"all-gather", 13762560, "blocks.0.ffn.2.weight", y},
      {"all-gather", 2359296, "blocks.0.ffn.gate.grad.cast0", x},
      {"all-gather", 13762560, "blocks.0.ffn.0.weight", y},
      {"reduce-scatter", 2359296, "blocks.0.ffn.0.grad.lhs", x},
      {"all-reduce", 6144, "blocks.0.ffn.modulate.shift.grad.rhs.sum", x},
      {"all-reduce", 6144, "blocks.0.ffn.modulate.scale.grad.rhs.sum", x},
      {"all-reduce", 13762560, "blocks.0.ffn.0.grad.rhs", y},
      {"all-reduce", 8960, "blocks.0.ffn.0.grad.bias", y},
      {"all-reduce", 13762560, "blocks.0.ffn.2.grad.rhs", y},
      {"reduce-scatter", 3072, "blocks.0.ffn.2.grad.bias", x},
      {"all-reduce", 1536, "blocks.0.ffn.2.grad.bias", y},
  };
  EXPECT_EQ(InPart(CollectivesOf("x=2,y=2", "fsdp=y+x,ring=x,tp=x@ffn"), "ffn"), ffn);
}

}  // namespace
}  // namespace az::compile
