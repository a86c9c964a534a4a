// The causal Llama block PyTorch exported to ONNX (tests/data/onnx/
// llama_causal_op14.onnx, export_attention.py), planned with Megatron TP over
// its heads: the degree, the collectives (kind, bytes, groups) and the FLOPs
// against a hand derivation. The StableHLO twin of this check is
// ProgramPlans.CausalLlamaBlockMegatronMatchesTheHandDerivation.
#include <gtest/gtest.h>

#include "frontend/import/program_load.h"
#include "search/combos.h"
#include "search/evaluate.h"
#include "search/sources.h"
#include "search/testing.h"
#include "support/test_files.h"

namespace az::search {
namespace {

using search_test::Options;
using search_test::Topo;

// x [1, 16, 64] f32; RMSNorm; q, k, v, o 64 x 64 without bias; 8 heads of 8
// dims, causal; x + o(attn). Megatron on 8 chips: q, k and v split by columns
// (one head per device), attention on that head locally, o split on its
// contracted dim: the one collective is the all-reduce of o's partial sums,
// [1, 16, 64] f32 = 16 * 64 * 4 = 4,096 bytes, over all 8 devices. Per device:
// the linears' 4 * 2 * 16 * 64 * 64 = 524,288 FLOPs / 8 = 65,536; the
// attention kernel's one head of 16 * 17 / 2 = 136 kept scores, each
// 4 * Dh 8 matmul FLOPs and 5 softmax FLOPs (pir/rules/cost.h): 136 * 37 = 5,032.
TEST(OnnxCausalPlan, LlamaBlockMegatronMatchesTheHandDerivation) {
  frontend::ProgramRequest request;
  request.format = frontend::ProgramRequest::Format::kOnnx;
  request.file = std::string(AZ_SOURCE_DIR) + "/tests/data/onnx/llama_causal_op14.onnx";
  auto loaded = frontend::LoadProgram(request);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const workload::Workload& config = loaded->workload;
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
  EXPECT_EQ(e.collectives[0].bytes.value(), 16 * 64 * 4);
  EXPECT_EQ(e.collectives[0].groups.groups, (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
  int64_t contraction = 0, attention = 0;
  for (const evidence::ComputeSegment& s : e.segments) {
    if (s.kind == cir::KernelKind::kAttention) attention += s.flops.value();
    if (s.kind == cir::KernelKind::kMatmul) contraction += s.flops.value();
  }
  EXPECT_EQ(attention, 136 * (4 * 8 + 5));
  EXPECT_EQ(contraction, 524288 / 8);
}

}  // namespace
}  // namespace az::search
