// The per-chip memory model of a training step (cir::Summarize's
// peak_by_kind, evidence::MemoryBreakdown): parameters, gradients and
// optimizer states by hand, and the activations the remat choice keeps.
#include <gtest/gtest.h>

#include <set>

#include "compile/train_testing.h"

namespace az::compile {
namespace {

cir::ProgramSummary TrainSummary(const std::string& model, int64_t width, int64_t height, int64_t frames,
                                 int64_t depth, int64_t micro_batch, pir::RematPolicy remat,
                                 const std::string& mesh_text, const std::string& templ) {
  train_test::TinyStep step{model, width, height, frames, depth, micro_batch, remat};
  auto program = train_test::CompileStep(train_test::BuildTinyStep(step), mesh_text, templ);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  return program.ok() ? cir::Summarize(*program) : cir::ProgramSummary{};
}

int64_t AtPeak(const cir::ProgramSummary& s, cir::BufferKind kind) {
  return s.peak_by_kind[static_cast<size_t>(kind)].value();
}

TEST(TrainMemory, Wan14BFsdpOverFourChipsMatchesZeroThree) {
  // Wan 2.1 T2V-14B, every block, under fsdp over 4 devices (ZeRO-3: the
  // micro-batch of 4 split 4 ways, every parameter, its gradient and its
  // optimizer states split 4 ways). The per-chip weight terms are set by the
  // weights' shapes, which the model fixes; resolution and batch only size
  // activations, so a small 256x256x9 step gives the 720p figures.
  //
  // Hand derivation, from the exact parameter count N = 14,288,491,584
  // (reference/models.md), all bf16:
  //   padding: none. fsdp splits each parameter on its largest dim 4 divides;
  //     every Wan 14B parameter has one: the hidden size 5120 = 4 * 1280
  //     (every weight and bias of the blocks, the embeddings and the head
  //     weight), the FFN width 13824 = 4 * 3456, and the head bias of
  //     4 * 16 = 64 (patch 1x2x2 times 16 latent channels).
  //   parameters      2 B * N / 4 =  7,144,245,792 B (bf16 working copies)
  //   gradients       2 B * N / 4 =  7,144,245,792 B (bf16, reduce-scattered)
  //   optimizer state 12 B * N / 4 = 42,865,474,752 B (fp32 master weight,
  //                   exp_avg and exp_avg_sq: 4 + 4 + 4 B per parameter)
  // 16 B per parameter / 4 = 57,153,966,336 B = 53.2 GiB of model states per
  // chip: fits v5p's 95 GiB with 41.8 GiB left for activations.
  cir::ProgramSummary s = TrainSummary("wan2.1-t2v-14b", 256, 256, 9, 0, 4, pir::RematPolicy::kSelected, "x=4", "fsdp");
  constexpr int64_t kParams = 14'288'491'584;
  EXPECT_EQ(AtPeak(s, cir::BufferKind::kParameter), 2 * kParams / 4);
  EXPECT_EQ(AtPeak(s, cir::BufferKind::kParameter), 7'144'245'792);
  EXPECT_EQ(AtPeak(s, cir::BufferKind::kGradient), 7'144'245'792);
  EXPECT_EQ(AtPeak(s, cir::BufferKind::kOptimizerState), 42'865'474'752);
  EXPECT_EQ(AtPeak(s, cir::BufferKind::kOptimizerState), 12 * kParams / 4);
  // The terms sum to the peak, activations and gathered weights included.
  int64_t total = 0;
  for (Bytes b : s.peak_by_kind) total += b.value();
  EXPECT_EQ(total, s.peak_memory.value());
  EXPECT_GT(AtPeak(s, cir::BufferKind::kActivation), 0);
  EXPECT_GT(AtPeak(s, cir::BufferKind::kCommunication), 0);  // a block's gathered weights
}

TEST(TrainMemory, RematKeepsLessActivationMemory) {
  // Wan 2.1 1.3B, 2 blocks, 832x480x17 (5 x 30 x 52 = 7800 tokens), dp over
  // 2: small weights and large activations, so the peak is where the
  // backward starts, holding what the forward saved. remat none keeps every
  // block's intermediates; selected recomputes the cheap element-wise ops
  // (keeping matmul and attention outputs); full keeps only each block's
  // input and recomputes the block. The model states are the same in all
  // three.
  auto none = TrainSummary("wan2.1-t2v-1.3b", 832, 480, 17, 2, 2, pir::RematPolicy::kNone, "x=2", "dp");
  auto selected = TrainSummary("wan2.1-t2v-1.3b", 832, 480, 17, 2, 2, pir::RematPolicy::kSelected, "x=2", "dp");
  auto full = TrainSummary("wan2.1-t2v-1.3b", 832, 480, 17, 2, 2, pir::RematPolicy::kFull, "x=2", "dp");
  const int64_t a_none = AtPeak(none, cir::BufferKind::kActivation);
  const int64_t a_selected = AtPeak(selected, cir::BufferKind::kActivation);
  const int64_t a_full = AtPeak(full, cir::BufferKind::kActivation);
  EXPECT_LT(a_full, a_selected);
  EXPECT_LT(a_selected, a_none);
  EXPECT_LT(full.peak_memory, selected.peak_memory);
  EXPECT_LT(selected.peak_memory, none.peak_memory);
  for (auto kind : {cir::BufferKind::kParameter, cir::BufferKind::kGradient, cir::BufferKind::kOptimizerState}) {
    EXPECT_EQ(AtPeak(none, kind), AtPeak(full, kind));
  }
  RecordProperty("activations_none_selected_full",
                 std::to_string(a_none) + " " + std::to_string(a_selected) + " " + std::to_string(a_full));
}

TEST(TrainMemory, RematOffloadMovesTheSavedValuesToTheHost) {
  // Wan 2.1 1.3B, 2 blocks, 256x256x9 (768 video tokens, 12 heads of 128),
  // micro-batch 2 over dp = 2 (one sample per device). Offload keeps per block
  // (pir/grad/backward.h), per device:
  //   the hidden state  f32 [1, 768, 1536]        4,718,592 bytes
  //   self-attention    bf16 [1, 768, 12, 128] o  2,359,296
  //                     f32 [1, 12, 768] lse         36,864
  //   cross-attention   the same                  2,396,160
  //   per block 9,510,912; 2 blocks 19,021,824 bytes
  // each brought back by one host-reload copy kernel before the backward. The
  // forward's buffers of those values are not touched once the backward has
  // started, so device memory does not hold them across the turn.
  train_test::TinyStep step;
  step.depth = 2;
  step.remat = pir::RematPolicy::kOffload;
  auto program = train_test::CompileStep(train_test::BuildTinyStep(step), "x=2", "dp");
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  int reloads = 0, first_reload = -1;
  int64_t reloaded = 0;
  std::set<std::string> origins;
  for (size_t i = 0; i < program->instructions.size(); ++i) {
    const cir::Instruction& in = program->instructions[i];
    if (in.kind != cir::InstrKind::kKernel || in.name.find(".host-reload") == std::string::npos) continue;
    EXPECT_EQ(in.kernel, cir::KernelKind::kCopy);
    EXPECT_TRUE(in.operands.empty()) << in.name;  // nothing on the device is read: the data comes from the host
    ++reloads;
    reloaded += in.bytes_written.value();
    origins.insert(in.origin);
    if (first_reload < 0) first_reload = static_cast<int>(i);
  }
  EXPECT_EQ(reloads, 10);
  EXPECT_EQ(reloaded, 19'021'824);
  // The forward's buffers of the offloaded values: the results of the origin
  // ops (a reload names its origin op); none is read from the first reload on.
  std::set<int> forward_buffers;
  for (int i = 0; i < first_reload; ++i) {
    const cir::Instruction& in = program->instructions[static_cast<size_t>(i)];
    if (in.kind == cir::InstrKind::kKernel && origins.count(in.origin)) {
      forward_buffers.insert(in.results.begin(), in.results.end());
    }
  }
  EXPECT_FALSE(forward_buffers.empty());
  for (size_t i = static_cast<size_t>(first_reload); i < program->instructions.size(); ++i) {
    for (int b : program->instructions[i].operands) {
      EXPECT_FALSE(forward_buffers.count(b)) << program->instructions[i].name << " reads a forward buffer";
    }
  }
  // At 832x480x17 (7800 tokens; activations dominate) offload holds less at
  // its peak than full, which keeps each block's input on the device, and its
  // model states are the same.
  auto full = TrainSummary("wan2.1-t2v-1.3b", 832, 480, 17, 2, 2, pir::RematPolicy::kFull, "x=2", "dp");
  auto offload = TrainSummary("wan2.1-t2v-1.3b", 832, 480, 17, 2, 2, pir::RematPolicy::kOffload, "x=2", "dp");
  EXPECT_LT(AtPeak(offload, cir::BufferKind::kActivation), AtPeak(full, cir::BufferKind::kActivation));
  EXPECT_LT(offload.peak_memory, full.peak_memory);
  for (auto kind : {cir::BufferKind::kParameter, cir::BufferKind::kGradient, cir::BufferKind::kOptimizerState}) {
    EXPECT_EQ(AtPeak(offload, kind), AtPeak(full, kind));
  }
}

}  // namespace
}  // namespace az::compile
