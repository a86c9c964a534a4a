// ScheduleAsync's FSDP prefetch depth (schedule.h): the weight gathers of
// the next d - 1 layers start with the current layer's; depth 1 is the
// one-in-flight schedule every program had before.
#include "compile/spmd/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cir/program.h"
#include "compile/train_testing.h"

namespace az::compile {
namespace {

TEST(WeightUnitKey, IsTheLayerOfTheParameter) {
  EXPECT_EQ(WeightUnitKey("blocks.3.self_attn.q.weight"), "blocks.3");
  EXPECT_EQ(WeightUnitKey("double_blocks.12.img_mlp.fc1.weight"), "double_blocks.12");
  EXPECT_EQ(WeightUnitKey("model.layers.0.mlp"), "model.layers.0");
  EXPECT_EQ(WeightUnitKey("patch_embedding.weight"), "patch_embedding");
  EXPECT_EQ(WeightUnitKey("head"), "head");
  EXPECT_EQ(WeightUnitKey(""), "");
  // A digit inside a component is no layer index.
  EXPECT_EQ(WeightUnitKey("fc1.weight"), "fc1");
}

// Three layers, each: the gather of its weight W_i (a parameter, 10 bytes
// stored, 100 gathered), a kernel reading the gathered G_i and the previous
// layer's output, an all-to-all of the kernel's result. Activations Y_i, Z_i
// are 10 bytes; the input X 10 bytes.
//   0 g0 = all-gather(W0) -> G0     1 k0(X, G0) -> Y0     2 a0 = all-to-all(Y0) -> Z0
//   3 g1 = all-gather(W1) -> G1     4 k1(Z0, G1) -> Y1    5 a1 = all-to-all(Y1) -> Z1
//   6 g2 = all-gather(W2) -> G2     7 k2(Z1, G2) -> Y2
struct Layers {
  cir::Program program;
  int x = -1, w[3], g[3], y[3], z[2];
};

Layers BuildLayers() {
  Layers l;
  cir::Program& p = l.program;
  p.num_devices = 2;
  auto buffer = [&](std::string name, cir::BufferKind kind, int64_t elements) {
    cir::Buffer b;
    b.name = std::move(name);
    b.kind = kind;
    b.dtype = pir::DType::kBF16;  // 2 bytes per element
    b.shape = {elements};
    return p.AddBuffer(std::move(b));
  };
  l.x = buffer("x", cir::BufferKind::kInput, 5);
  for (int i = 0; i < 3; ++i) {
    const std::string layer = "blocks." + std::to_string(i);
    l.w[i] = buffer(layer + ".ffn.weight", cir::BufferKind::kParameter, 5);
    l.g[i] = buffer(layer + ".ffn.weight.gathered", cir::BufferKind::kCommunication, 50);
    l.y[i] = buffer(layer + ".y", cir::BufferKind::kActivation, 5);
    if (i < 2) l.z[i] = buffer(layer + ".z", cir::BufferKind::kCommunication, 5);
  }
  auto collective = [&](std::string name, cir::CollectiveKind kind, int operand, int result) {
    cir::Instruction in;
    in.kind = cir::InstrKind::kCollective;
    in.name = std::move(name);
    in.collective = kind;
    in.operands = {operand};
    in.results = {result};
    in.collective_bytes = p.buffers[static_cast<size_t>(result)].bytes();
    in.groups.groups = {{0, 1}};
    p.AddInstruction(std::move(in));
  };
  auto kernel = [&](std::string name, std::vector<int> operands, int result) {
    cir::Instruction in;
    in.name = std::move(name);
    in.operands = std::move(operands);
    in.results = {result};
    p.AddInstruction(std::move(in));
  };
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    collective("g" + n, cir::CollectiveKind::kAllGather, l.w[i], l.g[i]);
    kernel("k" + n, {i == 0 ? l.x : l.z[i - 1], l.g[i]}, l.y[i]);
    if (i < 2) collective("a" + n, cir::CollectiveKind::kAllToAll, l.y[i], l.z[i]);
  }
  p.outputs = {l.y[2]};
  return l;
}

std::vector<std::string> Names(const cir::Program& p) {
  std::vector<std::string> names;
  for (const cir::Instruction& in : p.instructions) names.push_back(in.name);
  return names;
}

TEST(ScheduleAsync, WeightGathersAreRecognisedByTheirParameterOperands) {
  const Layers l = BuildLayers();
  const cir::Program& p = l.program;
  EXPECT_TRUE(IsWeightGather(p, p.instructions[0]));   // g0: all-gather of W0
  EXPECT_FALSE(IsWeightGather(p, p.instructions[1]));  // k0: a kernel
  EXPECT_FALSE(IsWeightGather(p, p.instructions[2]));  // a0: an all-to-all
  cir::Instruction activation_gather = p.instructions[2];
  activation_gather.collective = cir::CollectiveKind::kAllGather;  // of Y0, an activation
  EXPECT_FALSE(IsWeightGather(p, activation_gather));
}

TEST(ScheduleAsync, DepthOneHoldsEachGatherBehindThePreviousDone) {
  // The rule of depth 1: a start follows the later of its operand's writer
  // (none for a parameter) and the previous collective's done. g0 has
  // neither: first. a0 follows k0 (Y0's writer; after g0's done); g1
  // follows a0's done, a1 k1, g2 a1's done. No gather overlaps any kernel:
  // each is held back behind the layer's all-to-all.
  Layers l = BuildLayers();
  ASSERT_TRUE(ScheduleAsync(l.program, 1));
  EXPECT_EQ(Names(l.program), (std::vector<std::string>{"g0", "g0.done", "k0", "a0", "a0.done", "g1", "g1.done", "k1",
                                                        "a1", "a1.done", "g2", "g2.done", "k2"}));
  EXPECT_TRUE(cir::VerifyProgram(l.program).ok());
  // Peak: the static 40 bytes (X and W0..W2) plus, at k1 (index 7): Z0 (live
  // from a0's start to k1), G1 (from g1's start to k1) and Y1 written:
  // 10 + 100 + 10 = 120; k2 the same (Z1, G2, Y2). 160 in all.
  EXPECT_EQ(cir::Summarize(l.program).peak_memory, Bytes(160));
}

TEST(ScheduleAsync, DepthTwoStartsTheNextLayersGathersWithTheCurrentOnes) {
  // Units: blocks.0, blocks.1, blocks.2. Under depth 1 their first gathers
  // anchor at: nothing (A(0) = -1: first), a0's done (A(1)), a1's done
  // (A(2)). Under depth 2 unit u's gathers anchor at A(max(0, u - 1)):
  // g0 and g1 first, in program order; g2 after a0's done. The all-to-alls
  // keep their depth-1 anchors (k0, k1: their operands' writers). Dones stay
  // before their readers.
  Layers l = BuildLayers();
  ASSERT_TRUE(ScheduleAsync(l.program, 2));
  EXPECT_EQ(Names(l.program), (std::vector<std::string>{"g0", "g1", "g0.done", "k0", "a0", "a0.done", "g2", "g1.done",
                                                        "k1", "a1", "a1.done", "g2.done", "k2"}));
  ASSERT_TRUE(cir::VerifyProgram(l.program).ok());
  // Each done names its start: g0.done 0, a0.done 4, g1.done 1, a1.done 9, g2.done 6.
  EXPECT_EQ(l.program.instructions[2].start, 0);
  EXPECT_EQ(l.program.instructions[5].start, 4);
  EXPECT_EQ(l.program.instructions[7].start, 1);
  EXPECT_EQ(l.program.instructions[10].start, 9);
  EXPECT_EQ(l.program.instructions[11].start, 6);
  // Peak: at k1 (index 8) G1 (live from index 1) and G2 (from index 6) are
  // both held, with Z0 and Y1: 100 + 100 + 10 + 10 = 220, plus the static
  // 40: 260, depth 1's 160 plus exactly one layer of gathered weights (G2's
  // 100 bytes, held ahead through k1).
  EXPECT_EQ(cir::Summarize(l.program).peak_memory, Bytes(260));
}

TEST(ScheduleAsync, DepthThreeStartsEveryGatherFirst) {
  // A(max(0, u - 2)) = A(0) for all three units: every gather is issued
  // before the first kernel.
  Layers l = BuildLayers();
  ASSERT_TRUE(ScheduleAsync(l.program, 3));
  EXPECT_EQ(Names(l.program), (std::vector<std::string>{"g0", "g1", "g2", "g0.done", "k0", "a0", "a0.done", "g1.done",
                                                        "k1", "a1", "a1.done", "g2.done", "k2"}));
  ASSERT_TRUE(cir::VerifyProgram(l.program).ok());
  // At k0 (index 4) G0, G1, G2 and Y0: 310, plus 40: 350; at k1 G1, G2,
  // Z0, Y1: 220 + 40. Peak 350 = 160 + two layers of gathered weights.
  EXPECT_EQ(cir::Summarize(l.program).peak_memory, Bytes(350));
}

// Two weight gathers per layer: each of the next layer's gathers starts
// beside the gather at the same position of the current layer (the
// position-p rule), not all at the layer's first anchor. Layer i:
//   ga_i = all-gather(Wa_i) -> Ga_i   k_i(in_i, Ga_i) -> Y_i   a_i = all-to-all(Y_i) -> Z_i
//   gb_i = all-gather(Wb_i) -> Gb_i   m_i(Z_i, Gb_i) -> V_i (= in_{i+1})
TEST(ScheduleAsync, DepthTwoPairsEachGatherWithTheSamePositionOfTheLayerBefore) {
  cir::Program p;
  p.num_devices = 2;
  auto buffer = [&](std::string name, cir::BufferKind kind) {
    cir::Buffer b;
    b.name = std::move(name);
    b.kind = kind;
    b.shape = {4};
    return p.AddBuffer(std::move(b));
  };
  auto add = [&](std::string name, cir::InstrKind kind, cir::CollectiveKind collective, std::vector<int> operands,
                 int result) {
    cir::Instruction in;
    in.kind = kind;
    in.name = std::move(name);
    in.collective = collective;
    in.operands = std::move(operands);
    in.results = {result};
    if (kind == cir::InstrKind::kCollective) in.groups.groups = {{0, 1}};
    p.AddInstruction(std::move(in));
  };
  int input = buffer("x", cir::BufferKind::kInput);
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i), layer = "blocks." + n;
    const int wa = buffer(layer + ".a.weight", cir::BufferKind::kParameter);
    const int wb = buffer(layer + ".b.weight", cir::BufferKind::kParameter);
    const int ga = buffer(layer + ".ga", cir::BufferKind::kCommunication);
    const int gb = buffer(layer + ".gb", cir::BufferKind::kCommunication);
    const int y = buffer(layer + ".y", cir::BufferKind::kActivation);
    const int z = buffer(layer + ".z", cir::BufferKind::kCommunication);
    const int v = buffer(layer + ".v", cir::BufferKind::kActivation);
    add("ga" + n, cir::InstrKind::kCollective, cir::CollectiveKind::kAllGather, {wa}, ga);
    add("k" + n, cir::InstrKind::kKernel, cir::CollectiveKind::kAllReduce, {input, ga}, y);
    add("a" + n, cir::InstrKind::kCollective, cir::CollectiveKind::kAllToAll, {y}, z);
    add("gb" + n, cir::InstrKind::kCollective, cir::CollectiveKind::kAllGather, {wb}, gb);
    add("m" + n, cir::InstrKind::kKernel, cir::CollectiveKind::kAllReduce, {z, gb}, v);
    input = v;
  }
  p.outputs = {input};
  cir::Program one = p;
  ASSERT_TRUE(ScheduleAsync(one, 1));
  // Depth 1: each start right after the previous collective's done (a_i
  // after k_i, Y_i's writer). Depth-1 anchors A(u, p): A(0,0) none (first),
  // A(0,1) a0's done, A(1,0) gb0's done, A(1,1) a1's done, A(2,0) gb1's
  // done, A(2,1) a2's done.
  // A start goes right after its anchor, so ga1 (anchored at gb0's done)
  // overlaps m0, and ga2 m1.
  EXPECT_EQ(Names(one), (std::vector<std::string>{"ga0", "ga0.done", "k0", "a0", "a0.done", "gb0", "gb0.done", "ga1",
                                                  "m0", "ga1.done", "k1", "a1", "a1.done", "gb1", "gb1.done", "ga2",
                                                  "m1", "ga2.done", "k2", "a2", "a2.done", "gb2", "gb2.done", "m2"}));
  // Depth 2: ga_u at A(u - 1, 0), gb_u at A(u - 1, 1) (layer 0 at its own):
  // ga1 first beside ga0, gb1 after a0's done beside gb0, ga2 after gb0's
  // done, gb2 after a1's done. The all-to-alls and every done stay put.
  ASSERT_TRUE(ScheduleAsync(p, 2));
  EXPECT_EQ(Names(p), (std::vector<std::string>{"ga0", "ga1", "ga0.done", "k0", "a0", "a0.done", "gb0", "gb1",
                                                "gb0.done", "ga2", "m0", "ga1.done", "k1", "a1", "a1.done", "gb2",
                                                "gb1.done", "m1", "ga2.done", "k2", "a2", "a2.done", "gb2.done",
                                                "m2"}));
  EXPECT_TRUE(cir::VerifyProgram(p).ok());
}

// A real program: Wan 2.1 1.3B, two blocks, a training step under
// ulysses=2 with the weights sharded over both devices. Depth 1 is the
// default (every existing program unchanged); a deeper schedule moves
// instructions, never adds or drops one, and keeps the program valid.
TEST(ScheduleAsync, DeeperPrefetchOnlyReordersARealTrainingStep) {
  train_test::TinyStep step;
  step.depth = 2;
  const pir::Graph graph = train_test::BuildTinyStep(step);
  CompileOptions defaults, one, two;
  one.prefetch_depth = 1;
  two.prefetch_depth = 2;
  auto base = train_test::CompileStep(graph, "u=2", "ulysses=u,fsdp=u", defaults);
  auto same = train_test::CompileStep(graph, "u=2", "ulysses=u,fsdp=u", one);
  auto deeper = train_test::CompileStep(graph, "u=2", "ulysses=u,fsdp=u", two);
  ASSERT_TRUE(base.ok() && same.ok() && deeper.ok()) << base.status().ToString();
  EXPECT_EQ(Names(*base), Names(*same));
  std::vector<std::string> a = Names(*base), b = Names(*deeper);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  // The weight gathers moved up: the first gather of the second block's
  // forward starts earlier. Peak memory can only grow.
  EXPECT_GE(cir::Summarize(*deeper).peak_memory, cir::Summarize(*base).peak_memory);
  int weight_gathers = 0;
  for (const cir::Instruction& in : deeper->instructions) {
    if (in.kind != cir::InstrKind::kCollectiveStart || in.collective != cir::CollectiveKind::kAllGather) continue;
    bool parameters = !in.operands.empty();
    for (int b : in.operands) parameters &= deeper->buffers[static_cast<size_t>(b)].kind == cir::BufferKind::kParameter;
    weight_gathers += parameters;
  }
  EXPECT_GT(weight_gathers, 0);
}

}  // namespace
}  // namespace az::compile
