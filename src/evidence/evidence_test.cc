#include "evidence/evidence.h"

#include <gtest/gtest.h>

#include "compile/spmd/spmd_compiler.h"
#include "compile/xla/hlo_import.h"
#include "pir/build/graph_builder.h"
#include "pir/build/testing.h"
#include "shard/propagation.h"
#include "support/test_files.h"

namespace az::evidence {
namespace {

// A tp=4 MLP (see compile_test.cc): one all-reduce, two matmul kernels.
cir::Program CompiledMlp() {
  pir::Graph graph = pir_test::MlpGraph();
  auto mesh = shard::Mesh::Parse("t=4");
  shard::Seeds seeds;
  seeds.op_factors[0]["y"] = {0};
  auto plan = shard::Propagate(graph, *mesh, seeds);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  compile::SpmdCompiler compiler;
  auto program = compiler.Compile(graph, *plan, {});
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  return std::move(program).value();
}

TEST(Evidence, MemoryBreakdownAtThePeak) {
  // The MLP at the peak (fc2's kernel, or the all-reduce after it): the 4-way
  // split weights (256 x 1024 / 4 and 1024 x 256 / 4 bf16: 131,072 B each),
  // the input x (2 x 128 x 256 bf16 = 131,072 B) and the working buffers.
  Evidence e = Extract(CompiledMlp(), "builtin-spmd");
  EXPECT_EQ(e.memory.parameters, Bytes(2 * 131'072));
  EXPECT_EQ(e.memory.inputs, Bytes(131'072));
  EXPECT_EQ(e.memory.gradients, Bytes(0));
  EXPECT_EQ(e.memory.optimizer_state, Bytes(0));
  EXPECT_GT(e.memory.activations + e.memory.communication, Bytes(0));
  EXPECT_EQ(e.memory.Total(), e.peak_memory);
  // Round trip, in the hash.
  auto back = FromJson(ToJson(e), "e.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, e);
  Evidence changed = e;
  changed.memory.activations += Bytes(1);
  EXPECT_NE(ContentHash(changed), e.hash);
  // A record written before the breakdown existed: no "memory" key, zeros,
  // and its hash still matches.
  Evidence old = e;
  old.memory = {};
  old.hash = ContentHash(old);
  const std::string text = ToJson(old);
  EXPECT_EQ(text.find("\"memory\""), std::string::npos);
  auto read = FromJson(text, "old.json");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->memory, MemoryBreakdown{});
}

TEST(Evidence, ExtractsThePlacementOpenRecord) {
  Evidence e = Extract(CompiledMlp(), "builtin-spmd");
  EXPECT_EQ(e.num_devices, 4);
  ASSERT_EQ(e.collectives.size(), 1u);
  EXPECT_EQ(e.collectives[0].kind, cir::CollectiveKind::kAllReduce);
  EXPECT_EQ(e.collectives[0].groups.groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  // GELU fused into fc1: two compute segments.
  EXPECT_EQ(e.segments.size(), 2u);
  EXPECT_EQ(e.hash.size(), 16u);
}

TEST(Evidence, JsonRoundTripsExactly) {
  Evidence e = Extract(CompiledMlp(), "builtin-spmd");
  std::string text = ToJson(e);
  auto back = FromJson(text, "e.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, e);
  EXPECT_EQ(ToJson(*back), text);
  // Same program, same hash; a different program, another.
  EXPECT_EQ(Extract(CompiledMlp(), "builtin-spmd").hash, e.hash);
  Evidence other = e;
  other.segments[0].flops = other.segments[0].flops + Flops(1);
  EXPECT_NE(ContentHash(other), e.hash);
  // The precision: bf16 is not written (records from before it keep their
  // hash); any other is, round-trips and enters the hash.
  EXPECT_EQ(text.find("\"precision\""), std::string::npos);
  Evidence wide = e;
  wide.segments[0].precision = pir::DType::kF32;
  wide.hash = ContentHash(wide);
  EXPECT_NE(wide.hash, e.hash);
  const std::string wide_text = ToJson(wide);
  EXPECT_NE(wide_text.find("\"precision\": \"f32\""), std::string::npos) << wide_text;
  auto wide_back = FromJson(wide_text, "wide.json");
  ASSERT_TRUE(wide_back.ok()) << wide_back.status().ToString();
  EXPECT_EQ(*wide_back, wide);
}

// The compiler records what a matrix kernel reads: the MLP's einsums are
// bf16; the same MLP in f32 has f32 matmuls, and the element-wise kernels
// stay at the bf16 default.
TEST(Evidence, MatrixKernelsCarryTheirPrecision) {
  Evidence bf16 = Extract(CompiledMlp(), "builtin-spmd");
  for (const ComputeSegment& s : bf16.segments) EXPECT_EQ(s.precision, pir::DType::kBF16) << s.name;
  pir::GraphBuilder b("mlp32");
  pir::ValueId x = b.Input("x", pir::DType::kF32, {2, 128, 256});
  b.set_param_dtype(pir::DType::kF32);
  pir::ValueId h = b.Linear("fc1", x, 1024, /*bias=*/false);
  b.Output(b.Unary(pir::OpKind::kGeluTanh, "act", h));
  pir::Graph graph = b.Finish();
  auto plan = shard::Propagate(graph, *shard::Mesh::Parse("t=1"), shard::Seeds());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  compile::SpmdCompiler compiler;
  auto program = compiler.Compile(graph, *plan, {});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  Evidence f32 = Extract(*program, "builtin-spmd");
  int matmuls = 0;
  for (const ComputeSegment& s : f32.segments) {
    if (s.kind != cir::KernelKind::kMatmul) continue;
    ++matmuls;
    EXPECT_EQ(s.precision, pir::DType::kF32) << s.name;
  }
  EXPECT_EQ(matmuls, 1);
}

TEST(Evidence, BadJsonIsAClearError) {
  Evidence e = Extract(CompiledMlp(), "builtin-spmd");
  std::string text = ToJson(e);
  auto expect_error = [](const std::string& t, const std::string& fragment) {
    auto r = FromJson(t, "e.json");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
  };
  expect_error("{", "not valid JSON");
  expect_error("[]", "evidence is a JSON object");
  std::string tampered = text;
  tampered.replace(tampered.find(e.hash), e.hash.size(), "0123456789abcdef");
  expect_error(tampered, "hash: does not match");
  std::string bad_kind = text;
  bad_kind.replace(bad_kind.find("\"all-reduce\""), 12, "\"all-sum\"");
  expect_error(bad_kind, "collectives[0].kind");
}

}  // namespace
}  // namespace az::evidence

namespace az::evidence {
namespace {

// The other compiler: evidence from XLA's own programs (compile/xla) passes
// the same validation and round-trips through JSON like the built-in's.
TEST(Evidence, FromXlaProgramsValidatesAndRoundTrips) {
  for (const char* name : {"hlo_llama31_70b_bf16_16x8.hlo", "hlo_mixtral_8x7b_bf16_1x8.hlo"}) {
    AZ_REQUIRE_SHARED_DATA(file, std::string("hlo/") + name);
    auto imported = compile::xla::ImportHloText(testing::ReadTextFile(file), file);
    ASSERT_TRUE(imported.ok()) << imported.status().message();
    Evidence e = Extract(imported->program, "xla");
    EXPECT_TRUE(Validate(e).ok()) << name;
    EXPECT_EQ(e.compiler, "xla");
    auto back = FromJson(ToJson(e), "xla.json");
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, e) << name;
    // Unscheduled dumps: every collective became an async start/done pair.
    int starts = 0;
    for (const Event& ev : e.schedule) starts += ev.type == EventType::kStart;
    EXPECT_EQ(starts, static_cast<int>(e.collectives.size())) << name;
  }
}

}  // namespace
}  // namespace az::evidence
