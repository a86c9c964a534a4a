// Programs that are not DiTs: the shared Llama prefill exports and a causal
// grouped-query Llama block (attention, planned by the grid with TP over the
// K/V heads), and the shared MLP (no attention: the program source,
// program_source.h). The Llama block's Megatron plan is checked against a
// hand derivation of its degree, collectives and FLOPs.
#include "search/program_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "frontend/import/program_load.h"
#include "frontend/import/unknown_ops.h"
#include "search/combos.h"
#include "search/testing.h"
#include "support/test_files.h"

namespace az::search {
namespace {

using search_test::Options;
using search_test::Topo;

workload::Workload Load(const std::string& path) {
  frontend::ProgramRequest request;
  request.file = path;
  auto loaded = frontend::LoadProgram(request);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  return loaded.ok() ? loaded->workload : workload::Workload{};
}

std::string Block() { return std::string(AZ_SOURCE_DIR) + "/tests/data/stablehlo/llama_causal_gqa_block.mlir"; }

bool HasCombo(const std::vector<Combo>& combos, const std::string& text) {
  return std::any_of(combos.begin(), combos.end(), [&](const Combo& c) { return c.ToString() == text; });
}

// The block has 16 query heads over 8 K/V heads: heads split at most 8 ways
// (the K/V heads are what a head split divides), so 16 chips offer tp=8 and
// ulysses=8 (with a ring or data factor of 2) but neither tp=16 nor ulysses=16.
TEST(ProgramPlans, GroupedQueryLimitsTheHeadSplitToTheKvHeads) {
  workload::Workload config = Load(Block());
  ASSERT_TRUE(config.imported());
  auto heads = AttentionHeads(config);
  ASSERT_TRUE(heads.ok());
  EXPECT_EQ(*heads, 8);
  const std::vector<Combo> combos = EnumerateCombos(config, 16, *heads);
  EXPECT_TRUE(HasCombo(combos, "ring=2,tp=8"));
  EXPECT_TRUE(HasCombo(combos, "ulysses=8,ring=2"));
  EXPECT_FALSE(HasCombo(combos, "tp=16"));
  EXPECT_FALSE(HasCombo(combos, "ulysses=16"));
}

// Megatron on 8 chips, derived by hand: the q/k/v projections split by
// columns (each device holds 2 query heads and 1 K/V head: 16 / 8 and 8 / 8),
// attention runs on its heads locally, the output projection splits its
// contracted dim, so the one collective is the all-reduce of the block's
// output, [1, 512, 1024] bf16 = 1 MiB. Every FLOP is split 8 ways: the
// linears' 3,221,225,472 and the causal attention's 4 * 16 * 131,328 * 64 =
// 537,919,488 (half of the unmasked 1,073,741,824, plus the diagonal).
TEST(ProgramPlans, CausalLlamaBlockMegatronMatchesTheHandDerivation) {
  workload::Workload config = Load(Block());
  hw::Topology t = Topo("v5e:2x4");
  PlanOptions options = Options(t);
  options.pinned = "tp=8";
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->best.sharding, "tp=tp");
  EXPECT_EQ(plan->best.mesh, (std::vector<std::pair<std::string, int64_t>>{{"tp", 8}}));

  auto combo = ParseCombo("tp=8", 8);
  ASSERT_TRUE(combo.ok());
  auto candidate = ComboCandidate(config, *combo, 0, options);
  ASSERT_TRUE(candidate.ok()) << candidate.status().ToString();
  auto compiled = Compile(*candidate, EvaluateOptions{options.calibration, ""});
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  const evidence::Evidence& e = compiled->evidence;
  ASSERT_EQ(e.collectives.size(), 1u);
  EXPECT_EQ(e.collectives[0].kind, cir::CollectiveKind::kAllReduce);
  EXPECT_EQ(e.collectives[0].bytes.value(), 512 * 1024 * 2);
  int64_t contraction = 0, attention = 0;
  for (const evidence::ComputeSegment& s : e.segments) {
    if (s.kind == cir::KernelKind::kAttention) attention += s.flops.value();
    if (s.kind == cir::KernelKind::kMatmul) contraction += s.flops.value();
  }
  // The attention kernel: 2 heads x 131,328 kept scores, each 4 x 64 matmul
  // FLOPs (537,919,488 / 8 = 67,239,936) and 5 softmax FLOPs (cost.h).
  EXPECT_EQ(attention, int64_t{2} * 131328 * (4 * 64 + 5));
  EXPECT_EQ(contraction, int64_t{3221225472} / 8);
}

// The shared Llama prefill exports (32 query heads over 8 K/V heads) plan on
// v5e:2x4 with TP over the heads among the candidates that fit.
TEST(ProgramPlans, SharedLlamaPrefillPlansWithTensorParallelCandidates) {
  for (const char* name : {"stablehlo/sdy_llama_attn_prefill_auto.mlir", "stablehlo/sdy_llama_attn_prefill_manual.mlir"}) {
    SCOPED_TRACE(name);
    AZ_REQUIRE_SHARED_DATA(path, name);
    workload::Workload config = Load(path);
    hw::Topology t = Topo("v5e:2x4");
    auto heads = AttentionHeads(config);
    ASSERT_TRUE(heads.ok());
    EXPECT_EQ(*heads, 8);
    EXPECT_TRUE(HasCombo(EnumerateCombos(config, 8, *heads), "tp=8"));
    auto plan = MakePlan(config, t, Options(t));
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_LE(plan->best.peak_memory, t.chip.hbm);
    PlanOptions tp = Options(t);
    tp.pinned = "tp=8";
    auto pinned = MakePlan(config, t, tp);
    ASSERT_TRUE(pinned.ok()) << pinned.status().ToString();
    EXPECT_LE(pinned->best.peak_memory, t.chip.hbm);
    // The plan is never slower than TP over the heads (a candidate it saw).
    EXPECT_LE(plan->best.step_latency, pinned->best.step_latency);
  }
}

// The shared MLP has no attention: its candidates are data parallel (over
// the tokens: its batch is 1), FSDP and Megatron, and it plans on both
// systems, never slower than Alpa's ILP.
TEST(ProgramPlans, MlpWithoutAttentionPlansWithTensorParallelAndFsdp) {
  AZ_REQUIRE_SHARED_DATA(path, "stablehlo/sdy_mlp_auto.mlir");
  workload::Workload config = Load(path);
  auto candidates = ProgramCandidates(config, 8);
  ASSERT_TRUE(candidates.ok()) << candidates.status().ToString();
  std::vector<std::string> names;
  for (const ProgramCandidate& c : *candidates) names.push_back(c.name);
  // x is [1, 1024, 2048]: dims 1 and 2 split 8 ways, dim 0 (1) does not.
  for (const char* want : {"dp(d1)=8", "fsdp(d1)=8", "dp(d2)=8", "tp=8", "tp=8,fsdp", "dp(d1)=2,tp=4"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  EXPECT_EQ(std::find(names.begin(), names.end(), "dp(d0)=8"), names.end());
  for (const char* spec : {"v5e:2x4", "h100:8"}) {
    SCOPED_TRACE(spec);
    hw::Topology t = Topo(spec);
    auto plan = MakePlan(config, t, Options(t));
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_EQ(plan->best.label, "aoizora");
    EXPECT_LE(plan->best.peak_memory, t.chip.hbm);
    const Configuration* alpa = plan->Find("alpa");
    ASSERT_NE(alpa, nullptr);
    EXPECT_LE(plan->best.step_latency, alpa->step_latency);
  }
}

// Megatron's roles over the MLP's chain: w1 and w3 read the input (column),
// w2 reads their product (row), so Megatron's one collective is the
// all-reduce of the output [1, 1024, 2048] bf16 = 4 MiB.
TEST(ProgramPlans, MlpMegatronAllReducesOnce) {
  AZ_REQUIRE_SHARED_DATA(path, "stablehlo/sdy_mlp_auto.mlir");
  workload::Workload config = Load(path);
  auto candidates = ProgramCandidates(config, 8);
  ASSERT_TRUE(candidates.ok());
  for (const ProgramCandidate& c : *candidates) {
    if (c.name != "tp=8") continue;
    hw::Topology t = Topo("v5e:2x4");
    auto compiled = Compile(c.candidate, EvaluateOptions{Options(t).calibration, ""});
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    ASSERT_EQ(compiled->evidence.collectives.size(), 1u);
    EXPECT_EQ(compiled->evidence.collectives[0].kind, cir::CollectiveKind::kAllReduce);
    EXPECT_EQ(compiled->evidence.collectives[0].bytes.value(), 1024 * 2048 * 2);
    return;
  }
  FAIL() << "no tp=8 candidate";
}

// The bar: every program in ../shared/data/stablehlo plans on
// v5e:2x4 and h100:8, fits, and leaves no attention unfolded.
TEST(ProgramPlans, EverySharedStableHloExportPlans) {
  AZ_REQUIRE_SHARED_DATA(mlp, "stablehlo/sdy_mlp_auto.mlir");
  const auto files = testing::FilesWithExtension(std::filesystem::path(mlp).parent_path(), ".mlir");
  EXPECT_GE(files.size(), 9u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    workload::Workload config = Load(file.string());
    ASSERT_TRUE(config.imported());
    EXPECT_TRUE(frontend::FindUnknownOps(*config.program).unfolded_attention.empty());
    for (const char* spec : {"v5e:2x4", "h100:8"}) {
      SCOPED_TRACE(spec);
      hw::Topology t = Topo(spec);
      auto plan = MakePlan(config, t, Options(t));
      ASSERT_TRUE(plan.ok()) << plan.status().ToString();
      EXPECT_LE(plan->best.peak_memory, t.chip.hbm);
    }
  }
}

// Nothing fits: the error gives the most frugal candidate's peak and the HBM.
TEST(ProgramPlans, NoPlanSaysWhyWithNumbers) {
  // A 64 GiB weight on v5e:2x2 (4 chips of 16 GB): a quarter of it alone is
  // 16 GiB, over the HBM, however it is split.
  const std::string text =
      "module @m {\n"
      "func.func public @main(%x: tensor<4x131072xbf16>, %w: tensor<131072x262144xbf16>) -> tensor<4x262144xbf16> {\n"
      "%y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x131072xbf16>, "
      "tensor<131072x262144xbf16>) -> tensor<4x262144xbf16>\n"
      "return %y : tensor<4x262144xbf16>\n}\n}\n";
  frontend::ProgramRequest request;
  request.file = "big.mlir";
  request.contents = text;
  auto loaded = frontend::LoadProgram(request);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  hw::Topology t = Topo("v5e:2x2");
  auto plan = MakePlan(loaded->workload, t, Options(t));
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("does not fit v5e:2x2: the most frugal candidate"), std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("per chip, the chip has"), std::string::npos) << plan.status().message();
}

}  // namespace
}  // namespace az::search
