#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "compile/xla/hlo.h"
#include "compile/xla/hlo_import.h"
#include "compile/xla/hlo_internal.h"
#include "support/test_files.h"

namespace az::compile::xla {
namespace {

ImportResult Import(const std::string& text, ImportOptions options = {}) {
  auto r = ImportHloText(text, "t.hlo", options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : ImportResult{};
}

std::vector<const cir::Instruction*> Collectives(const cir::Program& p) {
  std::vector<const cir::Instruction*> out;
  for (const cir::Instruction& in : p.instructions) {
    if (in.kind == cir::InstrKind::kCollective || in.kind == cir::InstrKind::kCollectiveStart) out.push_back(&in);
  }
  return out;
}

std::vector<const cir::Instruction*> Kernels(const cir::Program& p) {
  std::vector<const cir::Instruction*> out;
  for (const cir::Instruction& in : p.instructions) {
    if (in.kind == cir::InstrKind::kKernel) out.push_back(&in);
  }
  return out;
}

TEST(HloImport, IotaGroupsExpandAsXla) {
  // XLA's own unit test: [2,10]<=[4,5]T(1,0) is iota(20) as 4x5, transposed to
  // 5x4 and flattened: 0,5,10,15,1,6,11,16,2,7 | 12,17,3,8,13,18,4,9,14,19.
  ImportResult r = Import(R"(HloModule m, num_partitions=20
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[64]) -> f32[64] {
  %p = f32[64] parameter(0)
  ROOT %ar = f32[64] all-reduce(%p), channel_id=1, replica_groups=[2,10]<=[4,5]T(1,0), use_global_device_ids=true, to_apply=%sum
})");
  auto c = Collectives(r.program);
  ASSERT_EQ(c.size(), 1u);
  std::vector<std::vector<int>> want = {{0, 5, 10, 15, 1, 6, 11, 16, 2, 7}, {12, 17, 3, 8, 13, 18, 4, 9, 14, 19}};
  EXPECT_EQ(c[0]->groups.groups, want);
  EXPECT_EQ(c[0]->collective_bytes, Bytes(256));  // f32[64]
  EXPECT_EQ(r.program.num_devices, 20);
}

TEST(HloImport, GroupModesFollowChannelAndGlobalIds) {
  // 2 replicas x 4 partitions: flattened id = replica * 4 + partition.
  ImportResult r = Import(R"(HloModule m, replica_count=2, num_partitions=4
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e {
  %p = f32[8] parameter(0)
  %cross_replica = f32[8] all-reduce(%p), replica_groups={{0,1}}, to_apply=%sum
  %cross_partition = f32[8] all-to-all(%cross_replica), channel_id=2, replica_groups={{0,1},{2,3}}, dimensions={0}
  %replica_and_partition = f32[64] all-gather(%cross_partition), channel_id=3, replica_groups={{0,1}}, dimensions={0}
  ROOT %flattened = f32[64] all-reduce(%replica_and_partition), channel_id=4, replica_groups={{0,4},{1,5},{2,6},{3,7}}, use_global_device_ids=true, to_apply=%sum
})");
  auto c = Collectives(r.program);
  ASSERT_EQ(c.size(), 4u);
  using G = std::vector<std::vector<int>>;
  // Cross-replica: replicas {0,1} within each partition p: {p, 4 + p}.
  EXPECT_EQ(c[0]->groups.groups, (G{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // Cross-partition: partitions within each replica r: {4r + p}.
  EXPECT_EQ(c[1]->groups.groups, (G{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // Cross-replica-and-partition: replicas {0,1} with all their partitions.
  EXPECT_EQ(c[2]->groups.groups, (G{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(c[3]->groups.groups, (G{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // all-gather payload: the gathered result, operand f32[8] x 8 members = 256 B.
  EXPECT_EQ(c[2]->collective_bytes, Bytes(256));
  EXPECT_EQ(r.program.num_devices, 8);
}

// Instruction definitions per collective opcode, counted with a regex over the
// text (an independent count: lines `name = shape opcode(`, the sync and
// -start forms, lit comment lines excluded).
std::map<std::string, int64_t> GrepCollectives(const std::string& text) {
  std::map<std::string, int64_t> out;
  std::regex re(R"(=\s*(?:\S+\s+|\([^=]*\)\s+)?(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute|collective-broadcast)(?:-start)?\()");
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0) continue;
    std::smatch m;
    if (std::regex_search(line, m, re)) ++out[m[1].str() == "collective-broadcast" ? "broadcast" : m[1].str()];
  }
  return out;
}

TEST(HloImport, EverySharedFileParsesAndCountsMatchAGrep) {
  for (const char* name : {"gpu_hlo.hlo", "hlo_llama31_405b_bf16_16x8.hlo", "hlo_llama31_70b_bf16_16x8.hlo",
                           "hlo_mixtral_8x7b_bf16_1x8.hlo", "import_async.hlo", "sub_byte_collectives.hlo",
                           "u4_all_gather_1x8.hlo"}) {
    std::string path = std::string("hlo/") + name;
    AZ_REQUIRE_SHARED_DATA(file, path);
    std::string text = testing::ReadTextFile(file);
    auto parsed = ParseHlo(text, file);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    std::map<std::string, int64_t> counted;
    for (size_t m = 0; m < parsed->modules.size(); ++m) {
      ImportOptions options;
      options.module = static_cast<int>(m);
      auto r = ImportHlo(*parsed, options);
      ASSERT_TRUE(r.ok()) << name << " module " << m << ": " << r.status().message();
      for (auto [kind, n] : r->stats.static_collectives) counted[std::string(cir::CollectiveKindName(kind))] += n;
    }
    EXPECT_EQ(counted, GrepCollectives(text)) << name;
  }
}

std::map<cir::CollectiveKind, int64_t> StepCounts(const ImportResult& r) {
  return {r.stats.step_collectives.begin(), r.stats.step_collectives.end()};
}

TEST(HloImport, Llama70bPerStepCollectivesAndTripCounts) {
  AZ_REQUIRE_SHARED_DATA(file, "hlo/hlo_llama31_70b_bf16_16x8.hlo");
  ImportResult r = Import(testing::ReadTextFile(file));
  // Two while loops of 80 iterations (one per layer) by the induction pattern
  // (init 0, body adds 1, condition LT 80). Forward body 7 all-gathers;
  // backward body 7 all-gathers + 16 all-reduces; entry 2 all-gathers + 43
  // all-reduces: 7*80 + 7*80 + 2 = 1,122 all-gathers, 16*80 + 43 = 1,323
  // all-reduces per step (formats.md §5).
  EXPECT_EQ(r.stats.trip_counts, (std::vector<int64_t>{80, 80}));
  auto step = StepCounts(r);
  EXPECT_EQ(step[cir::CollectiveKind::kAllGather], 1122);
  EXPECT_EQ(step[cir::CollectiveKind::kAllReduce], 1323);
  EXPECT_TRUE(r.stats.counts_inferred);
  EXPECT_EQ(r.program.num_devices, 128);
  // Groups [2,64]<=[128] and [64,2]<=[2,64]T(1,0) cut the devices into a 2 x 64 mesh.
  EXPECT_EQ(r.stats.mesh, (std::vector<int64_t>{2, 64}));
  // TransformerEngine forward attention, per device: batch 2, 64 heads, 8192
  // x 8192, head dims 128 + 128, causal (mask_type 3):
  // 2 * 2 * 64 * 8192^2 * 256 / 2 = 2^41 flops.
  int attention = 0;
  for (const cir::Instruction* k : Kernels(r.program)) {
    if (k->kernel != cir::KernelKind::kAttention) continue;
    ++attention;
    if (attention == 1) {
      EXPECT_EQ(k->flops.value(), int64_t{1} << 41);
    }
  }
  // Forward attention once per layer in the forward loop, forward + backward in
  // the backward (rematerialized) loop: 3 per layer.
  EXPECT_EQ(attention, 3 * 80);
}

TEST(HloImport, Llama405bAndMixtralPerStepCounts) {
  {
    AZ_REQUIRE_SHARED_DATA(file, "hlo/hlo_llama31_405b_bf16_16x8.hlo");
    ImportResult r = Import(testing::ReadTextFile(file));
    // Trip 126: 7*126 + 7*126 + 2 = 1,766 all-gathers; 9*126 + 41 = 1,175 all-reduces.
    EXPECT_EQ(r.stats.trip_counts, (std::vector<int64_t>{126, 126}));
    auto step = StepCounts(r);
    EXPECT_EQ(step[cir::CollectiveKind::kAllGather], 1766);
    EXPECT_EQ(step[cir::CollectiveKind::kAllReduce], 1175);
  }
  {
    AZ_REQUIRE_SHARED_DATA(file, "hlo/hlo_mixtral_8x7b_bf16_1x8.hlo");
    ImportResult r = Import(testing::ReadTextFile(file));
    // Unrolled (no while): 322 all-gathers, 1,261 all-reduces, 192 all-to-alls.
    auto step = StepCounts(r);
    EXPECT_EQ(step[cir::CollectiveKind::kAllGather], 322);
    EXPECT_EQ(step[cir::CollectiveKind::kAllReduce], 1261);
    EXPECT_EQ(step[cir::CollectiveKind::kAllToAll], 192);
    EXPECT_EQ(r.program.num_devices, 8);
  }
}

TEST(HloImport, SubByteTypesAndDeviceCountFromShapes) {
  // u4[1024,512] with E(4) packs two elements a byte: 262,144 B. Gathered 8
  // ways along dim 1 (512 -> 4096): the result is 2 MiB, and with
  // replica_groups absent the 8 devices come from that ratio.
  ImportResult r = Import("e {\n  a = u4[1024,512]{1,0:E(4)} parameter(0)\n"
                          "  b = u4[1024,4096]{1,0:E(4)} all-gather(a), dimensions={1}\n}\n");
  auto c = Collectives(r.program);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(r.program.num_devices, 8);
  EXPECT_EQ(c[0]->collective_bytes, Bytes(2 << 20));
  EXPECT_EQ(r.program.name, "module_e");
}

TEST(HloImport, DotAndConvolutionFlops) {
  ImportResult r = Import(R"(HloModule m, is_scheduled=true
ENTRY e {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,32]{1,0} parameter(1)
  x = f32[1,5,5,1] parameter(2)
  w = f32[3,3,1,1] parameter(3)
  d = f32[8,32]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, unknown_future_attr={x=1}
  ROOT c = f32[1,5,5,1] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})");
  auto k = Kernels(r.program);
  ASSERT_EQ(k.size(), 2u);
  // dot: 2 * 8 * 32 * 16 = 8,192; dims {batch 1, m 8, n 32, k 16}.
  EXPECT_EQ(k[0]->kernel, cir::KernelKind::kMatmul);
  EXPECT_EQ(k[0]->flops.value(), 8192);
  EXPECT_EQ(k[0]->dims, (std::vector<int64_t>{1, 8, 32, 16}));
  // 3x3 "same" convolution on 5x5: per dim 5 outputs x 3 taps = 15 pairs, less
  // the 2 that fall in the padding = 13; 13^2 = 169 pairs x 2 x 1 x 1 x 1 = 338.
  EXPECT_EQ(k[1]->kernel, cir::KernelKind::kConvolution);
  EXPECT_EQ(k[1]->flops.value(), 338);
  // Both read f32: the compute model prices them at the f32 rates.
  EXPECT_EQ(k[0]->precision, pir::DType::kF32);
  EXPECT_EQ(k[1]->precision, pir::DType::kF32);
}

// A matrix kernel's precision is its lhs's element type, through a fusion too.
TEST(HloImport, MatrixKernelsCarryTheLhsPrecision) {
  ImportResult r = Import(R"(HloModule m, is_scheduled=true
%fused (p0: bf16[8,16], p1: bf16[16,32]) -> bf16[8,32] {
  %p0 = bf16[8,16] parameter(0)
  %p1 = bf16[16,32] parameter(1)
  %d = bf16[8,32] dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %n = bf16[8,32] negate(%d)
}
ENTRY e {
  a = bf16[8,16] parameter(0)
  b = bf16[16,32] parameter(1)
  h = f16[8,16] parameter(2)
  g = f16[16,32] parameter(3)
  f = bf16[8,32] fusion(a, b), kind=kOutput, calls=%fused
  ROOT d = f16[8,32] dot(h, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  auto k = Kernels(r.program);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0]->kernel, cir::KernelKind::kMatmul);
  EXPECT_EQ(k[0]->precision, pir::DType::kBF16);
  EXPECT_EQ(k[1]->precision, pir::DType::kF16);
}

TEST(HloImport, FusionBytesCountSlicesAndInPlaceUpdates) {
  ImportResult r = Import(R"(HloModule m, is_scheduled=true
%fused (p0: f32[100,64], p1: f32[64], p2: s32[]) -> f32[100,64] {
  %p0 = f32[100,64] parameter(0)
  %p1 = f32[64] parameter(1)
  %p2 = s32[] parameter(2)
  %zero = s32[] constant(0)
  %row = f32[1,64] reshape(%p1)
  %e = f32[1,64] exponential(%row)
  ROOT %u = f32[100,64] dynamic-update-slice(%p0, %e, %p2, %zero)
}
ENTRY e {
  big = f32[100,64] parameter(0)
  v = f32[64] parameter(1)
  i = s32[] parameter(2)
  ROOT f = f32[100,64] fusion(big, v, i), kind=kLoop, calls=%fused
})");
  auto k = Kernels(r.program);
  ASSERT_EQ(k.size(), 1u);
  // The root updates p0 in place: written = the update f32[1,64] = 256 B; read
  // p1 (256 B) and p2 (4 B), not p0. Flops: 64 exponentials.
  EXPECT_EQ(k[0]->bytes_written, Bytes(256));
  EXPECT_EQ(k[0]->bytes_read, Bytes(260));
  EXPECT_EQ(k[0]->flops.value(), 64);
}

TEST(HloImport, UnfusedRunsFoldIntoOneKernel) {
  ImportResult r = Import(R"(HloModule m
ENTRY e {
  a = f32[16,16] parameter(0)
  b = f32[16,16] parameter(1)
  x = f32[16,16] add(a, b)
  y = f32[16,16] multiply(x, x)
  z = f32[16,16] exponential(y)
  ROOT d = f32[16,16] dot(z, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  auto k = Kernels(r.program);
  ASSERT_EQ(k.size(), 2u);
  // add, multiply, exponential: one kernel of 3 x 256 flops reading a and b
  // (2 x 1 KiB) and writing z only (1 KiB): x and y stay inside the run.
  EXPECT_EQ(k[0]->flops.value(), 768);
  EXPECT_EQ(k[0]->bytes_read, Bytes(2048));
  EXPECT_EQ(k[0]->bytes_written, Bytes(1024));
  EXPECT_EQ(k[1]->kernel, cir::KernelKind::kMatmul);
}

TEST(HloImport, ScheduleWindows) {
  const char* body = R"(
ENTRY e {
  a = f32[1024] parameter(0)
  w = f32[1024] parameter(1)
  g = f32[8192] all-gather(a), channel_id=1, replica_groups=[1,8]<=[8], dimensions={0}, use_global_device_ids=true
  x = f32[1024] exponential(w)
  y = f32[1024] tanh(x)
  ROOT s = f32[8192] add(g, g)
})";
  // Kernels one per instruction (no folding of runs), to see the windows.
  ImportOptions options;
  options.fuse_unfused = false;
  // Unscheduled: the all-gather starts at its position and is waited on just
  // before its first reader, so the kernels on `w` overlap it.
  ImportResult u = Import(std::string("HloModule m") + body, options);
  std::vector<std::string> ops;
  for (const cir::Instruction& in : u.program.instructions) ops.push_back(cir::OpcodeName(in));
  EXPECT_EQ(ops, (std::vector<std::string>{"all-gather-start", "kernel", "kernel", "all-gather-done", "kernel"}));
  // Scheduled: the text is the schedule; a sync collective blocks.
  ImportResult s = Import(std::string("HloModule m, is_scheduled=true") + body, options);
  ops.clear();
  for (const cir::Instruction& in : s.program.instructions) ops.push_back(cir::OpcodeName(in));
  EXPECT_EQ(ops, (std::vector<std::string>{"all-gather", "kernel", "kernel", "kernel"}));
}

TEST(HloImport, EachDoneWaitsForItsOwnStart) {
  // Two all-gathers of the same buffer in flight at once, waited on in the
  // reverse order: each done names its own start.
  ImportResult r = Import(R"(HloModule m, is_scheduled=true, num_partitions=2
ENTRY e {
  a = f32[4] parameter(0)
  s1 = (f32[4], f32[8]) all-gather-start(a), channel_id=1, replica_groups={{0,1}}, dimensions={0}, use_global_device_ids=true
  s2 = (f32[4], f32[8]) all-gather-start(a), channel_id=2, replica_groups={{0,1}}, dimensions={0}, use_global_device_ids=true
  d2 = f32[8] all-gather-done(s2)
  d1 = f32[8] all-gather-done(s1)
  ROOT t = (f32[8], f32[8]) tuple(d1, d2)
})");
  const auto& in = r.program.instructions;
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[2].kind, cir::InstrKind::kCollectiveDone);
  EXPECT_EQ(in[2].start, 1);
  EXPECT_EQ(in[3].start, 0);
  // The outputs are the two gathered buffers (32 B each).
  EXPECT_EQ(r.program.outputs.size(), 2u);
}

TEST(HloImport, KnownTripCountAndAbsurdLoops) {
  auto module = [](const std::string& trip) {
    return R"(HloModule m
%cond (p: (s32[], f32[8])) -> pred[] {
  %p = (s32[], f32[8]) parameter(0)
  ROOT %t = pred[] constant(true)
}
%body (p: (s32[], f32[8])) -> (s32[], f32[8]) {
  %p = (s32[], f32[8]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %x = f32[8] get-tuple-element(%p), index=1
  %y = f32[8] tanh(%x)
  ROOT %r = (s32[], f32[8]) tuple(%i, %y)
}
ENTRY %e {
  %z = s32[] constant(0)
  %a = f32[8] parameter(0)
  %t = (s32[], f32[8]) tuple(%z, %a)
  ROOT %w = (s32[], f32[8]) while(%t), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":")" +
           trip + R"("}}
})";
  };
  ImportResult r = Import(module("12"));
  EXPECT_EQ(r.stats.trip_counts, (std::vector<int64_t>{12}));
  EXPECT_EQ(Kernels(r.program).size(), 12u);
  auto absurd = ImportHloText(module("1000000000000"), "t.hlo");
  ASSERT_FALSE(absurd.ok());
  EXPECT_EQ(absurd.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(absurd.status().message().find("runs 1000000000000 iterations"), std::string::npos);
}

TEST(HloImport, Errors) {
  auto err = [](const std::string& text) {
    auto r = ImportHloText(text, "bad.hlo");
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(err("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] add(a, c)\n}\n")
                .find("bad.hlo:4:3: error: operand 'c' of 'b' is not defined"),
            std::string::npos);
  EXPECT_NE(err("hlo_module {\n name: \"x\"\n}\n").find("HloModuleProto"), std::string::npos);
  EXPECT_NE(err("HloModule m\nENTRY e {\n  a = f32[2 parameter(0)\n}\n").find("bad.hlo:3:"), std::string::npos);
  EXPECT_NE(err("HloModule m\nENTRY e {\n  a = f32[2] parameter(0), metadata={op_name=\"x\"\n}\n").find("bad.hlo:"),
            std::string::npos);
  EXPECT_NE(err("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = \"oops\n}\n").find("unterminated string"),
            std::string::npos);
  EXPECT_NE(err("").find("no HLO computation"), std::string::npos);
  // A computation that calls itself.
  EXPECT_NE(err("HloModule m\n%c (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n  ROOT %r = f32[] call(%p), "
                "to_apply=%c\n}\nENTRY %e {\n  %a = f32[] parameter(0)\n  ROOT %b = f32[] call(%a), to_apply=%c\n}\n")
                .find("calls itself"),
            std::string::npos);
  // Groups naming a device twice.
  EXPECT_NE(err("HloModule m, num_partitions=4\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] all-to-all(a), "
                "channel_id=1, replica_groups={{0,1},{1,2}}\n}\n")
                .find("bad.hlo:4:"),
            std::string::npos);
  // Brackets nested past the limit.
  std::string deep = "HloModule m\nENTRY e {\n  a = f32[2] parameter(0), x=" + std::string(300, '{') +
                     std::string(300, '}') + "\n}\n";
  auto r = ImportHloText(deep, "deep.hlo");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
}

// ---------------------------------------------------------------- XLA 0.11 text

// XLA 0.11's stack-frame tables as compiled.as_text() prints them, after the
// header (entries abridged from tests/data/xla/*/tp8.hlo).
constexpr char kFileNames[] = "FileNames\n1 \"<frozen runpy>\"\n2 \"/work/main/tests/jax/wan_jax.py\"\n\n";
constexpr char kFunctionNames[] = "FunctionNames\n1 \"_run_module_as_main\"\n2 \"Layout.tokens\"\n\n";
constexpr char kFileLocations[] =
    "FileLocations\n1 {file_name_id=1 function_name_id=1 line=198 end_line=198 column=11 end_column=11}\n"
    "2 {file_name_id=2 function_name_id=2 line=367 end_line=367 column=16 end_column=16}\n\n";
constexpr char kStackFrames[] =
    "StackFrames\n1 {file_location_id=1 parent_frame_id=1}\n"
    "2 {file_location_id=2 parent_frame_id=1}\n\n";
constexpr char kBody[] = R"(%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8] parameter(0), sharding={mesh['tp'=8], [{'tp'}]}, metadata={op_name="x" stack_frame_id=2}
  ROOT %ar = f32[8] all-reduce(%p), channel_id=1, replica_groups=mesh['tp'=8] {'tp'}, use_global_device_ids=true, to_apply=%add, metadata={op_name="jit(f)/psum" stack_frame_id=1}
}
)";

TEST(HloXla011, StackFrameTablesAreSkipped) {
  std::string text = std::string("HloModule jit_f, is_scheduled=true, num_partitions=8\n\n") + kFileNames +
                     kFunctionNames + kFileLocations + kStackFrames + kBody;
  auto file = ParseHlo(text, "t.hlo");
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->modules.size(), 1u);
  EXPECT_EQ(file->modules[0].computations.size(), 2u);
  EXPECT_TRUE(file->warnings.empty());
  // stack_frame_id stays inside the raw metadata text.
  const HloInstruction& ar = file->modules[0].computations[1].instructions[1];
  ASSERT_NE(ar.Attr("metadata"), nullptr);
  EXPECT_EQ(ar.Attr("metadata")->value, "{op_name=\"jit(f)/psum\" stack_frame_id=1}");
  ImportResult r = Import(text);
  auto c = Collectives(r.program);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]->groups.groups, (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
}

TEST(HloXla011, TablesInAnyOrderOrPlace) {
  // Reversed, one of them after the computations, one empty, one unknown to
  // us (a word on its own line followed by `ID value` lines), none at all.
  std::string reversed = std::string("HloModule jit_f, num_partitions=8\n\n") + kStackFrames + kFileLocations +
                         "FunctionNames\n\nOriginalValues\n1 {x=1}\n2 \"y\"\n\n" + kBody + "\n" + kFileNames;
  auto file = ParseHlo(reversed, "t.hlo");
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->modules[0].computations.size(), 2u);
  EXPECT_TRUE(file->warnings.empty());
  ImportResult r = Import(reversed);
  EXPECT_EQ(Collectives(r.program).size(), 1u);
  ImportResult none = Import(std::string("HloModule jit_f, num_partitions=8\n") + kBody);
  EXPECT_EQ(Collectives(none.program).size(), 1u);
}

TEST(HloXla011, TruncatedTableIsALocatedError) {
  auto err = [](const std::string& text) {
    auto r = ImportHloText(text, "cut.hlo");
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  // An entry cut inside its braces, then the computations: the error is at
  // the entry (line 4), not somewhere in the body its brace would swallow.
  std::string cut_entry =
      std::string("HloModule m, num_partitions=8\n\nStackFrames\n2 {file_location_id=2\n\n") + kBody;
  EXPECT_NE(err(cut_entry).find("cut.hlo:4:1: error: entry 2 of table 'StackFrames' is cut off"), std::string::npos)
      << err(cut_entry);
  // The file ends inside a string and inside braces.
  EXPECT_NE(err("HloModule m\n\nFileNames\n1 \"/work/ma").find("cut.hlo:4:3: error: unterminated string"),
            std::string::npos);
  EXPECT_NE(err("HloModule m\n\nFileLocations\n1 {file_name_id=1 line=").find("cut.hlo:4:1: error: entry 1"),
            std::string::npos);
  // A table and nothing else.
  EXPECT_NE(err("HloModule m\n\nFileNames\n1 \"a\"\n").find("no HLO computation"), std::string::npos);
  // An entry closing more than it opened.
  EXPECT_NE(err("HloModule m\n\nStackFrames\n1 }\n").find("cut.hlo:4:3: error: unbalanced"), std::string::npos);
}

// Groups of one all-to-all over `groups` in a module of `partitions`.
std::string MeshModule(const std::string& groups, int partitions = 8) {
  return "HloModule m, num_partitions=" + std::to_string(partitions) +
         "\nENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n"
         "  ROOT %a = f32[8] all-to-all(%p), channel_id=1, replica_groups=" +
         groups + ", dimensions={0}\n}\n";
}

std::vector<std::vector<int>> ImportedGroups(const std::string& groups, int partitions = 8) {
  ImportResult r = Import(MeshModule(groups, partitions));
  auto c = Collectives(r.program);
  return c.size() == 1 ? c[0]->groups.groups : std::vector<std::vector<int>>{};
}

using Groups = std::vector<std::vector<int>>;

TEST(HloXla011, MeshGroupsOneAxis) {
  // mesh['cfg'=2,'ulysses'=4]: device = 4 cfg + ulysses (row-major, iota).
  // {'ulysses'} varies ulysses at fixed cfg; {'cfg'} varies cfg at fixed
  // ulysses (stride 4).
  EXPECT_EQ(ImportedGroups("mesh['cfg'=2,'ulysses'=4] {'ulysses'}"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(ImportedGroups("mesh['cfg'=2,'ulysses'=4] {'cfg'}"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(ImportedGroups("mesh['tp'=8] {'tp'}"), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  // Unquoted names and spaces, as other printers may write them.
  EXPECT_EQ(ImportedGroups("mesh[ cfg = 2 , ulysses = 4 ] { ulysses }"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(HloXla011, MeshGroupsTwoAxesInBothOrders) {
  // Listed major to minor: (cfg, ulysses) is device order 4c + u; (ulysses,
  // cfg) orders members by u first: (u,c) = (0,0) 0, (0,1) 4, (1,0) 1, ...
  EXPECT_EQ(ImportedGroups("mesh['cfg'=2,'ulysses'=4] {'cfg','ulysses'}"), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(ImportedGroups("mesh['cfg'=2,'ulysses'=4] {'ulysses','cfg'}"), (Groups{{0, 4, 1, 5, 2, 6, 3, 7}}));
}

TEST(HloXla011, MeshGroupsSubAxis) {
  // tp = 4 viewed as [m, k, 4/(m k)]: 'tp':(2)2 is [2, 2, 1], the minor pair
  // (tp = 2 a + b, it varies b): neighbours in device order. 'tp':(1)2 is
  // [1, 2, 2], the major part a: stride 2.
  EXPECT_EQ(ImportedGroups("mesh['ulysses'=2,'tp'=4] {'tp':(2)2}"), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(ImportedGroups("mesh['ulysses'=2,'tp'=4] {'tp':(1)2}"), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
}

TEST(HloXla011, MeshGroupParserExpandsAsShardyAxes) {
  auto expand = [](std::string_view text) {
    auto mesh = internal::ParseMeshReplicaGroups(text);
    EXPECT_TRUE(mesh.ok()) << text << ": " << mesh.status().message();
    return mesh.ok() ? internal::ExpandMeshReplicaGroups(*mesh).groups : Groups{};
  };
  // A sub-axis and a whole axis: 'tp':(2)2 is tp's minor bit b (tp = 2a + b),
  // listed before ulysses, so members are ordered b major, ulysses minor,
  // device = 4 u + 2 a + b; fixed a = 0: (b,u) = (0,0) 0, (0,1) 4, (1,0) 1,
  // (1,1) 5; a = 1 adds 2.
  EXPECT_EQ(expand("mesh['ulysses'=2,'tp'=4] {'tp':(2)2,'ulysses'}"), (Groups{{0, 4, 1, 5}, {2, 6, 3, 7}}));
  // The middle factor of three: x = 8 as [2, 2, 2], x = 4 a + 2 b + d,
  // 'x':(2)2 varies b; groups in row-major order of the fixed (a, d).
  EXPECT_EQ(expand("mesh['x'=8] {'x':(2)2}"), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  // Two sub-axes of one axis, minor one listed first: members ordered d
  // major, a minor, at fixed b: (d,a) = (0,0) 0, (0,1) 4, (1,0) 1, (1,1) 5.
  EXPECT_EQ(expand("mesh['x'=8] {'x':(4)2,'x':(1)2}"), (Groups{{0, 4, 1, 5}, {2, 6, 3, 7}}));
  // An explicit device order: the 2x2 mesh holds [[0,2],[1,3]]; {'a'} varies
  // the row at a fixed column: {0,1} (column 0), {2,3} (column 1).
  EXPECT_EQ(expand("mesh['a'=2,'b'=2], device_ids=(0,2,1,3) {'a'}"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(expand("mesh['a'=2,'b'=2], device_ids=(0,2,1,3) {'b'}"), (Groups{{0, 2}, {1, 3}}));
  // The same order as an iota list: iota(4) as 2x2 transposed is 0,2,1,3.
  EXPECT_EQ(expand("mesh['a'=2,'b'=2], device_ids=([2,2]<=[2,2]T(1,0)) {'a'}"), (Groups{{0, 1}, {2, 3}}));
  // No axes: groups of one.
  EXPECT_EQ(expand("mesh['a'=2] {}"), (Groups{{0}, {1}}));
  // A size-1 axis varies nothing.
  EXPECT_EQ(expand("mesh['a'=1,'b'=2] {'a'}"), (Groups{{0}, {1}}));
  EXPECT_EQ(expand("mesh['a'=1,'b'=2] {'b','a'}"), (Groups{{0, 1}}));

  auto error = [](std::string_view text) {
    auto mesh = internal::ParseMeshReplicaGroups(text);
    EXPECT_FALSE(mesh.ok()) << text;
    return mesh.ok() ? std::string() : mesh.status().message();
  };
  EXPECT_NE(error("mesh['a'=2] {'b'}").find("axis 'b' is not an axis of the mesh"), std::string::npos);
  EXPECT_NE(error("mesh['a'=2,'a'=2] {'a'}").find("named twice"), std::string::npos);
  EXPECT_NE(error("mesh['a'=2] {'a','a'}").find("listed twice"), std::string::npos);
  EXPECT_NE(error("mesh['x'=8] {'x':(1)4,'x':(2)2}").find("overlap"), std::string::npos);
  EXPECT_NE(error("mesh['x'=8] {'x':(3)2}").find("does not divide"), std::string::npos);
  EXPECT_NE(error("mesh['x'=12] {'x':(2)2,'x':(3)2}").find("do not nest"), std::string::npos);
  EXPECT_NE(error("mesh['a'=2,'b'=2], device_ids=(0,1,1,3) {'a'}").find("device_ids"), std::string::npos);
  EXPECT_NE(error("mesh[] {}").find("at least one axis"), std::string::npos);
  EXPECT_NE(error("mesh['a'=0] {}").find("size 0"), std::string::npos);
  EXPECT_NE(error("mesh['a=2] {}").find("unterminated"), std::string::npos);
  EXPECT_NE(error("mesh['a'=2] {'a'} x").find("unexpected text"), std::string::npos);
  // Hostile sizes: refused before anything is allocated.
  for (std::string_view huge : {"mesh['a'=1048576,'b'=2] {'a'}", "mesh['a'=99999999999999999999999] {'a'}",
                                "mesh['a'=1024,'b'=1024,'c'=1024,'d'=1024] {'a'}"}) {
    auto mesh = internal::ParseMeshReplicaGroups(huge);
    ASSERT_FALSE(mesh.ok()) << huge;
    EXPECT_EQ(mesh.status().code(), StatusCode::kResourceExhausted) << huge;
  }
}

TEST(HloXla011, MeshGroupErrorsAreLocated) {
  auto err = [](const std::string& text, StatusCode code = StatusCode::kParseError) {
    auto r = ImportHloText(text, "t.hlo");
    EXPECT_FALSE(r.ok());
    if (r.ok()) return std::string();
    EXPECT_EQ(r.status().code(), code) << r.status().message();
    return r.status().message();
  };
  // The attribute value starts at line 4, column 65.
  EXPECT_NE(err(MeshModule("mesh['a'=2,'b'=4] {'c'}"))
                .find("t.hlo:4:65: error: replica_groups: axis 'c' is not an axis of the mesh"),
            std::string::npos)
      << err(MeshModule("mesh['a'=2,'b'=4] {'c'}"));
  // The mesh must number the devices the group mode reads: all-to-all with a
  // channel reads partition ids, 8 of them.
  EXPECT_NE(err(MeshModule("mesh['a'=4] {'a'}"))
                .find("t.hlo:4:65: error: replica_groups: the mesh has 4 devices, but the partition ids number 8"),
            std::string::npos);
  EXPECT_NE(err(MeshModule("mesh['a'=16] {'a'}")).find("t.hlo:4:65: error: replica_groups: the mesh has 16 devices"),
            std::string::npos);
  // A module of 2^20 devices (the header's limit) still refuses a bigger mesh,
  // and one without counts refuses it by the mesh limit.
  EXPECT_NE(err(MeshModule("mesh['a'=1048576,'b'=2] {'a'}", 1 << 20), StatusCode::kResourceExhausted)
                .find("t.hlo:4:65: error: replica_groups: the mesh has more than 1048576 devices"),
            std::string::npos);
  std::string no_counts =
      "HloModule m\nENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n"
      "  ROOT %a = f32[8] all-to-all(%p), channel_id=1, replica_groups=mesh['a'=2097152] {'a'}\n}\n";
  EXPECT_NE(err(no_counts, StatusCode::kResourceExhausted).find("t.hlo:4:"), std::string::npos);
}

}  // namespace
}  // namespace az::compile::xla
