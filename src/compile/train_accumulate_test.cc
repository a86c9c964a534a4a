// Gradient accumulation (workload.h: TrainOptions::accumulate,
// frontend/zoo/train.cc): the graph's structure and FLOPs against the step
// without it, the per-micro-step FSDP collectives, and the memory model's
// one sharded accumulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "compile/train_testing.h"
#include "pir/rules/cost.h"
#include "pir/verify/verifier.h"

namespace az::compile {
namespace {

using train_test::BuildTinyStep;
using train_test::CompileStep;
using train_test::TinyStep;

double Flops(const pir::Graph& g, pir::OpId begin, pir::OpId end) {
  double total = 0;
  for (pir::OpId id = begin; id < end; ++id) total += pir::ComputeOpCost(g, g.op(id)).total_flops().value();
  return total;
}

int64_t Attr(const pir::Graph& g, const char* name) { return g.attrs().GetInt(name).value_or(-1); }

// Elements of the parameters the loss reaches (those AdamW updates).
int64_t TrainedElements(const pir::Graph& g) {
  int64_t total = 0;
  for (int64_t v : g.attrs().GetInts("gradients").value_or(std::vector<int64_t>{})) {
    total += g.type(static_cast<pir::ValueId>(v)).NumElements();
  }
  return total;
}

TEST(TrainAccumulate, OneMicroStepIsTheStepWithout) {
  // accumulate = 1 builds today's graph: no accumulation attributes, the
  // same ops and values (plan_golden.py pins the plans byte for byte).
  TinyStep plain{};
  TinyStep one{};
  one.accumulate = 1;
  pir::Graph a = BuildTinyStep(plain), b = BuildTinyStep(one);
  EXPECT_EQ(a.num_ops(), b.num_ops());
  EXPECT_EQ(a.num_values(), b.num_values());
  EXPECT_FALSE(a.attrs().Has("accumulate"));
  EXPECT_FALSE(a.attrs().Has("micro_steps"));
}

TEST(TrainAccumulate, TwoMicroStepsAreTwiceTheHalfBatchStepPlusOneUpdate) {
  // Wan 2.1 1.3B, one block, 256x256x9, remat selected.
  //   half:  the step of 1 sample: forward + loss + backward F1 =
  //          FLOPs of [0, optimizer_start), AdamW A = [optimizer_start, end).
  //   twice: the step of 2 samples as 2 micro-steps of 1. Each micro-step is
  //          the half step's forward and backward on its slice (the slices
  //          are reshapes and a slice: no FLOPs), its loss scaled by 1/2 (one
  //          scalar multiply, and one more in its backward), the two losses
  //          summed (one scalar add), micro-step 1's gradients added to
  //          micro-step 0's (one add per trained element, P), then AdamW
  //          once, on the same parameters: A.
  //   So FLOPs(twice) = 2 F1 + A + P + 2 * 2 + 1.
  TinyStep half{};
  half.micro_batch = 1;
  half.remat = pir::RematPolicy::kSelected;
  TinyStep twice = half;
  twice.micro_batch = 2;
  twice.accumulate = 2;
  pir::Graph h = BuildTinyStep(half), t = BuildTinyStep(twice);
  ASSERT_TRUE(pir::VerifyGraph(t).ok()) << pir::VerifyGraph(t).ToString();
  const pir::OpId h_opt = static_cast<pir::OpId>(Attr(h, "optimizer_start"));
  const pir::OpId t_opt = static_cast<pir::OpId>(Attr(t, "optimizer_start"));
  const double f1 = Flops(h, 0, h_opt), adamw = Flops(h, h_opt, h.num_ops());
  const int64_t trained = TrainedElements(h);
  EXPECT_EQ(TrainedElements(t), trained);
  EXPECT_EQ(Flops(t, t_opt, t.num_ops()), adamw);
  EXPECT_EQ(Flops(t, 0, t_opt), 2 * f1 + static_cast<double>(trained) + 2 * 2 + 1);
  // The attributes name the micro-steps: each its first op and its backward's.
  EXPECT_EQ(Attr(t, "accumulate"), 2);
  EXPECT_EQ(Attr(t, "micro_batch"), 2);
  EXPECT_EQ(Attr(t, "batch"), 1);  // what one forward runs
  std::vector<int64_t> micro = t.attrs().GetInts("micro_steps").value_or(std::vector<int64_t>{});
  ASSERT_EQ(micro.size(), 4u);
  EXPECT_EQ(micro[0], 0);
  EXPECT_EQ(micro[1], Attr(t, "backward_start"));
  EXPECT_LT(micro[1], micro[2]);
  EXPECT_LT(micro[3], t_opt);
  // Micro-step 1 recomputes what micro-step 0 does: as many remat copies.
  int remat[2] = {0, 0};
  for (const pir::Op& op : t.ops()) {
    if (!op.attrs.Has("remat")) continue;
    if (op.name.starts_with("micro0.")) ++remat[0];
    if (op.name.starts_with("micro1.")) ++remat[1];
  }
  EXPECT_GT(remat[0], 0);
  EXPECT_EQ(remat[0], remat[1]);
}

TEST(TrainAccumulate, BadCountsAreErrors) {
  zoo::ModelOptions small;
  small.width = 256;
  small.height = 256;
  small.frames = 9;
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", small);
  ASSERT_TRUE(config.ok());
  config->depth_units = 1;
  zoo::TrainOptions options;
  options.micro_batch = 4;
  options.accumulate = 3;
  auto graph = zoo::BuildTrainStep(*config, options);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("dividing the micro-batch of 4 samples"), std::string::npos);
  options.accumulate = 0;
  EXPECT_FALSE(zoo::BuildTrainStep(*config, options).ok());
  options.accumulate = 2;
  options.remat = pir::RematPolicy::kOffload;
  graph = zoo::BuildTrainStep(*config, options);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("remat offload with gradient accumulation"), std::string::npos);
}

std::map<cir::CollectiveKind, int> Collectives(const cir::Program& program) {
  std::map<cir::CollectiveKind, int> out;
  for (const auto& [kind, count, bytes] : cir::Summarize(program).collectives) out[kind] = count;
  return out;
}

TEST(TrainAccumulate, FsdpGathersAndReducesPerMicroStep) {
  // fsdp over x=2 (ZeRO-3, the batch over the same 2 devices), one block,
  // remat none, collectives neither combined nor bucketed (one per tensor).
  // fsdp shards every parameter on a dim 2 divides (every Wan parameter has
  // one: the hidden size 1536, ...). Without accumulation (4 samples, 2 per
  // device) FSDP gathers each weight for the forward and again for the
  // backward (G gathers) and reduce-scatters each gradient once: R = the
  // trained parameters. With 2 micro-steps of 2 samples (1 per device) each
  // micro-step is such a forward and backward: 2 G gathers, and each
  // micro-step's gradient is reduce-scattered into the running sum sharded
  // like its parameter (as FSDP2 does by default, and a JAX scan with a
  // sharded carry): 2 R reduce-scatters. The loss, a partial sum over x, is
  // all-reduced once without accumulation (as the step's output) and once
  // per micro-step with it (scaled by 1/2 before the sum): 1 and 2.
  CompileOptions one_each;
  one_each.combine_threshold = Bytes(0);
  one_each.gradient_bucket = Bytes(0);
  TinyStep plain{};
  plain.micro_batch = 4;
  TinyStep accumulated = plain;
  accumulated.accumulate = 2;
  pir::Graph g1 = BuildTinyStep(plain), g2 = BuildTinyStep(accumulated);
  auto p1 = CompileStep(g1, "x=2", "fsdp=x", one_each);
  auto p2 = CompileStep(g2, "x=2", "fsdp=x", one_each);
  ASSERT_TRUE(p1.ok()) << p1.status().ToString();
  ASSERT_TRUE(p2.ok()) << p2.status().ToString();
  const int trained = static_cast<int>(g1.attrs().GetInts("gradients").value_or(std::vector<int64_t>{}).size());
  // R by hand for one Wan block: self_attn q, k, v, o (weight and bias) and
  // norm_q, norm_k: 10; cross_attn the same: 10; norm3 (weight, bias): 2;
  // ffn.0 and ffn.2 (weight, bias): 4; the modulation: 1; 27 per block.
  // Outside the blocks: patch_embedding, text_embedding.0 and .2,
  // time_embedding.0 and .2, time_projection.1, head.head (weight and bias
  // each): 14, and head.modulation: 1. 27 + 15 = 42.
  EXPECT_EQ(trained, 42);
  std::map<cir::CollectiveKind, int> c1 = Collectives(*p1), c2 = Collectives(*p2);
  EXPECT_EQ(c1[cir::CollectiveKind::kReduceScatter], trained);
  EXPECT_EQ(c2[cir::CollectiveKind::kReduceScatter], 2 * trained);
  EXPECT_GE(c1[cir::CollectiveKind::kAllGather], trained);
  EXPECT_EQ(c2[cir::CollectiveKind::kAllGather], 2 * c1[cir::CollectiveKind::kAllGather]);
  EXPECT_EQ(c1[cir::CollectiveKind::kAllReduce], 1);
  EXPECT_EQ(c2[cir::CollectiveKind::kAllReduce], 2);
  EXPECT_EQ(c2[cir::CollectiveKind::kAllToAll], 0);
}

TEST(TrainAccumulate, MemoryIsTheMicroStepsPlusOneShardedAccumulator) {
  // Wan 2.1 1.3B, one block, fsdp over x=2. Per device, from the trained
  // elements P (the AdamW-updated parameters, all bf16) and the stored
  // parameters N:
  //   parameters  2 B * N / 2 and optimizer state 12 B * N / 2 (fp32 master
  //               weight and two moments), as without accumulation;
  //   gradients   2 B * P / 2: one accumulator, sharded like its parameter,
  //               micro-step 0's reduced gradient that each later one is
  //               added to in place (its micro-step gradient transient);
  // so the static part equals the step of one micro-step's samples (2 of 4)
  // without accumulation, whose gradients are that same one copy. The peak
  // is that step's peak plus what of the micro-step gradient is live beside
  // the accumulator at the peak (each is added as its reduction lands, so
  // little of it): at least the half-batch step's peak, at most one more
  // sharded gradient above it; and below the whole batch's step without
  // accumulation, whose activations are twice as large.
  TinyStep whole{};
  whole.micro_batch = 4;
  TinyStep accumulated = whole;
  accumulated.accumulate = 2;
  TinyStep half{};
  half.micro_batch = 2;
  auto summary = [](const TinyStep& step) {
    auto program = CompileStep(BuildTinyStep(step), "x=2", "fsdp=x");
    EXPECT_TRUE(program.ok()) << program.status().ToString();
    return program.ok() ? cir::Summarize(*program) : cir::ProgramSummary{};
  };
  const cir::ProgramSummary w = summary(whole), a = summary(accumulated), h = summary(half);
  auto at = [](const cir::ProgramSummary& s, cir::BufferKind kind) {
    return s.peak_by_kind[static_cast<size_t>(kind)].value();
  };
  const pir::Graph g = BuildTinyStep(whole);
  int64_t stored = 0;
  for (const pir::Value& v : g.values()) {
    if (v.role == pir::ValueRole::kParameter) stored += v.type.NumElements();
  }
  const int64_t trained = TrainedElements(g);
  EXPECT_EQ(at(a, cir::BufferKind::kParameter), 2 * stored / 2);
  EXPECT_EQ(at(a, cir::BufferKind::kGradient), 2 * trained / 2);
  EXPECT_EQ(at(a, cir::BufferKind::kOptimizerState), 12 * trained / 2);
  for (cir::BufferKind kind :
       {cir::BufferKind::kParameter, cir::BufferKind::kGradient, cir::BufferKind::kOptimizerState}) {
    EXPECT_EQ(at(a, kind), at(h, kind));
    EXPECT_EQ(at(a, kind), at(w, kind));
  }
  EXPECT_GE(a.peak_memory.value(), h.peak_memory.value());
  EXPECT_LE(a.peak_memory.value(), h.peak_memory.value() + 2 * trained / 2);
  EXPECT_LT(a.peak_memory.value(), w.peak_memory.value());
}

TEST(TrainAccumulate, EachSumLandsWhereItsReductionDoes) {
  // fsdp over x=2, 2 micro-steps, the schedule passes on (fusion, async
  // collectives, gradient buckets). Every micro-step 1 gradient is added in
  // place into its parameter's accumulator: one kernel per trained parameter
  // (42, FsdpGathersAndReducesPerMicroStep) reading and writing the same
  // gradient buffer, and each runs right after the instruction that
  // completes its last operand (the reduction's -done or the kernel writing
  // it; after the other sums that one bucket's -done completes), not after
  // the whole backward.
  TinyStep step{};
  step.micro_batch = 4;
  step.accumulate = 2;
  auto program = CompileStep(BuildTinyStep(step), "x=2", "fsdp=x");
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  const std::vector<cir::Instruction>& in = program->instructions;
  auto is_sum = [&](const cir::Instruction& k) {
    if (k.kind != cir::InstrKind::kKernel || k.results.size() != 1) return false;
    const int written = k.results[0];
    return program->buffers[static_cast<size_t>(written)].kind == cir::BufferKind::kGradient &&
           std::find(k.operands.begin(), k.operands.end(), written) != k.operands.end();
  };
  int sums = 0;
  for (size_t i = 1; i < in.size(); ++i) {
    if (!is_sum(in[i])) continue;
    ++sums;
    // Sums whose operands one bucket's -done completes follow it in order.
    size_t j = i - 1;
    while (j > 0 && is_sum(in[j])) --j;
    const cir::Instruction& before = in[j];
    const std::vector<int>& completed =
        before.kind == cir::InstrKind::kCollectiveDone ? in[static_cast<size_t>(before.start)].results : before.results;
    EXPECT_TRUE(std::any_of(completed.begin(), completed.end(),
                            [&](int b) {
                              return std::find(in[i].operands.begin(), in[i].operands.end(), b) !=
                                     in[i].operands.end();
                            }))
        << in[i].name << " follows " << before.name;
  }
  EXPECT_EQ(sums, 42);
  // So the sums interleave with micro-step 1's backward: the first lands
  // before its last backward kernel (unhoisted, all 42 would follow it).
  size_t first_sum = in.size(), last_backward = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (is_sum(in[i])) first_sum = std::min(first_sum, i);
    if (in[i].kind == cir::InstrKind::kKernel && !is_sum(in[i]) && in[i].name.starts_with("micro1.") &&
        in[i].name.find(".grad.") != std::string::npos) {
      last_backward = i;
    }
  }
  EXPECT_LT(first_sum, last_backward);
}

}  // namespace
}  // namespace az::compile
