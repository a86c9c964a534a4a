#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "compile/xla/hlo.h"
#include "compile/xla/hlo_import.h"
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

}  // namespace
}  // namespace az::compile::xla
