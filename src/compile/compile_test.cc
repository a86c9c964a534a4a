// The built-in SPMD compiler on known sharding patterns; every expected
// collective is derived by hand in its comment.
#include <gtest/gtest.h>

#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"
#include "pir/build/graph_builder.h"
#include "pir/build/testing.h"
#include "shard/templates.h"

namespace az::compile {
namespace {

struct Compiled {
  pir::Graph graph;
  cir::Program program;
};

Compiled CompileTemplate(const std::string& model, const std::string& mesh_text, const std::string& spec,
                         zoo::ModelOptions options = {}) {
  if (!options.width) {
    // 256 x 256, 5 frames: 2 x 16 x 16 = 512 tokens; the structure of a block
    // does not depend on the size.
    options.width = 256;
    options.height = 256;
    options.frames = 5;
  }
  if (!options.cfg) options.cfg = zoo::CfgMode::kNone;
  auto config = zoo::ResolveConfig(model, options);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  auto graph = zoo::BuildForward(*config);
  EXPECT_TRUE(graph.ok());
  auto mesh = shard::Mesh::Parse(mesh_text);
  EXPECT_TRUE(mesh.ok()) << mesh.status().ToString();
  auto seeds = shard::TemplateSeeds(*graph, *mesh, spec);
  EXPECT_TRUE(seeds.ok()) << seeds.status().ToString();
  auto plan = shard::Propagate(*graph, *mesh, *seeds);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  SpmdCompiler compiler;
  auto program = compiler.Compile(*graph, *plan, {});
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  return {std::move(graph).value(), std::move(program).value()};
}

struct Found {
  cir::CollectiveKind kind;
  int64_t bytes;
};

// Collectives (blocking or -start) whose origin op starts with `prefix`.
std::vector<Found> CollectivesFrom(const cir::Program& p, const std::string& prefix) {
  std::vector<Found> out;
  for (const cir::Instruction& in : p.instructions) {
    if (in.kind != cir::InstrKind::kCollective && in.kind != cir::InstrKind::kCollectiveStart) continue;
    if (in.origin.rfind(prefix, 0) == 0) out.push_back({in.collective, in.collective_bytes.value()});
  }
  return out;
}

int Count(const std::vector<Found>& found, cir::CollectiveKind kind) {
  int n = 0;
  for (const Found& f : found) n += f.kind == kind;
  return n;
}

// Megatron MLP, tp=4: column-parallel W1 (output features on t), GELU local,
// row-parallel W2 (contraction on t) leaves a partial sum: exactly one
// all-reduce of the output, batch * seq * d * 2 bytes = 2 * 128 * 256 * 2 = 131,072.
TEST(SpmdCompiler, MegatronMlpNeedsOneAllReduce) {
  pir::Graph graph = pir_test::MlpGraph();
  auto mesh = shard::Mesh::Parse("t=4");
  ASSERT_TRUE(mesh.ok());
  shard::Seeds seeds;
  seeds.op_factors[0]["y"] = {0};  // fc1: output features on t
  auto plan = shard::Propagate(graph, *mesh, seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  SpmdCompiler compiler;
  auto program = compiler.Compile(graph, *plan, {});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  std::vector<Found> all = CollectivesFrom(*program, "");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kind, cir::CollectiveKind::kAllReduce);
  EXPECT_EQ(all[0].bytes, 131'072);
  // Each device does a quarter of each matmul: 2 linears x 2 FLOPs x (2*128)
  // rows x 256 x 1024 / 4 = 67,108,864, plus the GELU fused into fc1 (8 FLOPs
  // per element of its [256, 1024/4] block: 524,288).
  int64_t matmul = 0;
  int kernels = 0;
  for (const cir::Instruction& in : program->instructions) {
    if (in.kind != cir::InstrKind::kKernel) continue;
    ++kernels;
    if (in.kernel == cir::KernelKind::kMatmul) matmul += in.flops.value();
  }
  EXPECT_EQ(kernels, 2);
  EXPECT_EQ(matmul, 67'108'864 + 524'288);
}

// Normalized dims split (tp=4 on the features of x [2, 8, 64] f32): no
// all-gather; each op all-reduces its row statistics over the group, 2 x 8 =
// 16 rows of f32. Layer norm: sum and sum of squares in one round, 16 x 2 x 4
// = 128 bytes; RMS norm: the sum of squares, 64 bytes; softmax: the max, then
// the sum, 64 bytes each. Nothing combined (threshold 0), so 4 all-reduces.
TEST(SpmdCompiler, ShardedNormsAllReduceTheirStatistics) {
  pir::GraphBuilder b("norms");
  pir::ValueId x = b.Input("x", pir::DType::kF32, {2, 8, 64});
  pir::ValueId n = b.LayerNorm("ln", x, /*affine=*/true, 1e-6);
  pir::ValueId r = b.RmsNorm("rms", n, /*affine=*/true, 1e-6);
  pir::Attributes axis;
  axis.Set("axis", int64_t{-1});
  b.Output(b.AddOp1(pir::OpKind::kSoftmax, "softmax", {r}, axis));
  pir::Graph graph = b.Finish();
  auto mesh = shard::Mesh::Parse("t=4");
  ASSERT_TRUE(mesh.ok());
  shard::Seeds seeds;
  seeds.values[x] = shard::TensorSharding{{{}, {}, {0}}, {}};
  auto plan = shard::Propagate(graph, *mesh, seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  SpmdCompiler compiler;
  CompileOptions options;
  options.combine_threshold = Bytes(0);
  auto program = compiler.Compile(graph, *plan, options);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  std::vector<Found> all = CollectivesFrom(*program, "");
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(Count(all, cir::CollectiveKind::kAllReduce), 4);
  std::vector<Found> ln = CollectivesFrom(*program, "ln"), rms = CollectivesFrom(*program, "rms"),
                     softmax = CollectivesFrom(*program, "softmax");
  ASSERT_EQ(ln.size(), 1u);
  EXPECT_EQ(ln[0].bytes, 128);
  ASSERT_EQ(rms.size(), 1u);
  EXPECT_EQ(rms[0].bytes, 64);
  ASSERT_EQ(softmax.size(), 2u);
  EXPECT_EQ(softmax[0].bytes + softmax[1].bytes, 128);
}

// Two row-parallel projections of the same input leave two partial outputs;
// their all-reduces (2 * 16 * 64 * 2 = 4,096 bytes each) are adjacent and
// small, so the combiner makes one all-reduce of 8,192 bytes.
TEST(SpmdCompiler, SmallAllReducesAreCombined) {
  pir::GraphBuilder b("two");
  pir::ValueId x = b.Input("x", pir::DType::kBF16, {2, 16, 128});
  b.Output(b.Linear("a", x, 64, /*bias=*/false));
  b.Output(b.Linear("b", x, 64, /*bias=*/false));
  pir::Graph graph = b.Finish();
  auto mesh = shard::Mesh::Parse("t=2");
  ASSERT_TRUE(mesh.ok());
  shard::Seeds seeds;
  seeds.op_factors[0]["z"] = {0};  // contraction on t: partial result
  seeds.op_factors[1]["z"] = {0};
  auto plan = shard::Propagate(graph, *mesh, seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  SpmdCompiler compiler;
  auto combined = compiler.Compile(graph, *plan, {});
  ASSERT_TRUE(combined.ok()) << combined.status().ToString();
  std::vector<Found> found = CollectivesFrom(*combined, "");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, cir::CollectiveKind::kAllReduce);
  EXPECT_EQ(found[0].bytes, 8'192);
  CompileOptions separate;
  separate.combine_threshold = Bytes(0);
  auto apart = compiler.Compile(graph, *plan, separate);
  ASSERT_TRUE(apart.ok()) << apart.status().ToString();
  EXPECT_EQ(CollectivesFrom(*apart, "").size(), 2u);
}

// Ulysses over 8 devices on Wan 14B: sequence-sharded tokens, head-sharded
// attention. Per self-attention: q, k, v and the output each cross once by
// all-to-all; each moves the local [1, 512/8, 40, 128] bf16 block:
// 64 * 40 * 128 * 2 = 655,360 bytes. Cross-attention attends to the replicated
// text K/V: no collective.
TEST(SpmdCompiler, UlyssesIsFourAllToAllsPerSelfAttention) {
  Compiled c = CompileTemplate("wan2.1-t2v-14b", "sp=8", "ulysses=sp");
  std::vector<Found> self = CollectivesFrom(c.program, "blocks.3.self_attn.");
  EXPECT_EQ(Count(self, cir::CollectiveKind::kAllToAll), 4);
  EXPECT_EQ(self.size(), 4u);
  for (const Found& f : self) EXPECT_EQ(f.bytes, 655'360);
  EXPECT_TRUE(CollectivesFrom(c.program, "blocks.3.cross_attn.").empty());
  EXPECT_TRUE(CollectivesFrom(c.program, "blocks.3.ffn.").empty());
}

// Ring attention over 4 devices: each device keeps its query block and the kv
// blocks rotate: 3 permutes per self-attention, each of the local k and v
// blocks: 2 * [1, 512/4, 40, 128] bf16 = 2 * 128 * 40 * 128 * 2 = 2,621,440 bytes.
TEST(SpmdCompiler, RingIsThreeKvPermutesPerAttention) {
  Compiled c = CompileTemplate("wan2.1-t2v-14b", "sp=4", "ring=sp");
  std::vector<Found> attention = CollectivesFrom(c.program, "blocks.3.self_attn.attention");
  ASSERT_EQ(attention.size(), 3u);
  for (const Found& f : attention) {
    EXPECT_EQ(f.kind, cir::CollectiveKind::kCollectivePermute);
    EXPECT_EQ(f.bytes, 2'621'440);
  }
}

// MaxDiffusion's context parallelism over 4 devices (templates.h: context=N):
// the tokens stay split outside attention as under ring, but the attention
// gathers K and V whole before a local flash kernel: per self-attention two
// all-gathers, each of the whole [1, 512, 40, 128] bf16 tensor (the result, as
// the collective's bytes count it): 512 * 40 * 128 * 2 = 5,242,880 bytes; no
// permute. Nothing runs between a gather's start and its done (the kernel
// needs both), and the kernel attends 512 / 4 = 128 queries to all 512 keys.
// The gathered buffers are live at the kernel, so the peak holds full-length
// K and V. Cross-attention and the FFN stay local, as under ring.
TEST(SpmdCompiler, ContextGathersKeysAndValuesBeforeTheKernel) {
  Compiled c = CompileTemplate("wan2.1-t2v-14b", "sp=4", "context=sp");
  std::vector<Found> self = CollectivesFrom(c.program, "blocks.3.self_attn.");
  ASSERT_EQ(self.size(), 2u);
  for (const Found& f : self) {
    EXPECT_EQ(f.kind, cir::CollectiveKind::kAllGather);
    EXPECT_EQ(f.bytes, 5'242'880);
  }
  EXPECT_TRUE(CollectivesFrom(c.program, "blocks.3.cross_attn.").empty());
  EXPECT_TRUE(CollectivesFrom(c.program, "blocks.3.ffn.").empty());
  int attention = -1;
  for (size_t i = 0; i < c.program.instructions.size(); ++i) {
    if (c.program.instructions[i].name == "blocks.3.self_attn.attention") attention = static_cast<int>(i);
  }
  ASSERT_GE(attention, 4);
  const auto& kernel = c.program.instructions[static_cast<size_t>(attention)];
  EXPECT_EQ(kernel.dims, (std::vector<int64_t>{40, 128, 512, 128}));
  // Right before the kernel: start, done, start, done of the two gathers, whose
  // results (5,242,880 bytes each) the kernel reads.
  for (int k = 1; k <= 4; ++k) {
    const auto& in = c.program.instructions[static_cast<size_t>(attention - k)];
    EXPECT_EQ(in.kind, k % 2 == 1 ? cir::InstrKind::kCollectiveDone : cir::InstrKind::kCollectiveStart);
  }
  for (int operand : {kernel.operands[1], kernel.operands[2]}) {
    EXPECT_EQ(c.program.buffers[static_cast<size_t>(operand)].bytes().value(), 5'242'880);
  }
  // Ring over the same axis moves the local k and v blocks (1/4 each) three
  // times instead: the same 3/4 of K and V reach every device.
  Compiled ring = CompileTemplate("wan2.1-t2v-14b", "sp=4", "ring=sp");
  EXPECT_EQ(Count(CollectivesFrom(ring.program, "blocks.3.self_attn."), cir::CollectiveKind::kAllGather), 0);
}

// FSDP over 8: every weight of rank >= 2 of a block is all-gathered before
// use. Block 0 of the T2V 14B holds 8 d^2 (q,k,v,o twice) + 2 d f (FFN) +
// 6 d (modulation) elements of rank >= 2: gathered bytes (bf16) =
// 2 * (8 * 5120^2 + 2 * 5120 * 13824 + 6 * 5120)
// = 2 * (209,715,200 + 141,557,760 + 30,720) = 702,607,360.
TEST(SpmdCompiler, FsdpGathersEachBlockWeightOnce) {
  Compiled c = CompileTemplate("wan2.1-t2v-14b", "f=8", "fsdp=f");
  int64_t gathered = 0;
  int gathers = 0;
  for (const cir::Instruction& in : c.program.instructions) {
    if ((in.kind != cir::InstrKind::kCollective && in.kind != cir::InstrKind::kCollectiveStart) ||
        in.collective != cir::CollectiveKind::kAllGather) {
      continue;
    }
    const cir::Buffer& operand = c.program.buffers[static_cast<size_t>(in.operands[0])];
    if (operand.kind == cir::BufferKind::kParameter && operand.name.rfind("blocks.0.", 0) == 0) {
      gathered += in.collective_bytes.value();
      ++gathers;
    }
  }
  EXPECT_EQ(gathers, 11);  // 10 matrices + the modulation table
  EXPECT_EQ(gathered, 702'607'360);
}

// 40 heads over 16 devices: ceil(40/16) = 3 heads per device, 48 in all, so the
// attention kernels do 48/40 = 1.2x the even share.
TEST(SpmdCompiler, UnevenHeadsShowPaddedFlops) {
  auto config = zoo::ResolveConfig("wan2.1-t2v-14b",
                                   {.width = 256, .height = 256, .frames = 5, .cfg = zoo::CfgMode::kNone});
  ASSERT_TRUE(config.ok());
  auto graph = zoo::BuildForward(*config);
  ASSERT_TRUE(graph.ok());
  auto mesh = shard::Mesh::Parse("h=16");
  ASSERT_TRUE(mesh.ok());
  shard::Seeds seeds;
  for (pir::OpId id = 0; id < graph->num_ops(); ++id) {
    if (graph->op(id).name == "blocks.0.self_attn.attention") seeds.op_factors[id]["h"] = {0};
  }
  auto plan = shard::Propagate(*graph, *mesh, seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  SpmdCompiler compiler;
  auto program = compiler.Compile(*graph, *plan, {});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  const int64_t L = 512;
  for (const cir::Instruction& in : program->instructions) {
    if (in.name != "blocks.0.self_attn.attention") continue;
    // 4 * B * heads * L * L * 128 (QK^T, PV) + 5 * B * heads * L * L (softmax), heads = 3.
    EXPECT_EQ(in.flops.value(), 4 * 3 * L * L * 128 + 5 * 3 * L * L);
  }
}

}  // namespace
}  // namespace az::compile
