// Ulysses head chunks as a candidate knob (combos.h Combo::ulysses_chunks):
// parsing and its errors, the grid's variants, the targets that run them,
// the baselines that never do, and the simulator's exposed all-to-all time.
#include <gtest/gtest.h>

#include <algorithm>

#include "search/combos.h"
#include "search/evaluate.h"
#include "search/sources.h"
#include "search/targets.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::DitOptions;
using search_test::Topo;

TEST(UlyssesChunks, ParseRoundTrip) {
  auto c = ParseCombo("ulysses=4,ring=2,cfg=2,fsdp=16,ulysses_chunks=4", 16);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->ulysses_chunks, 4);
  EXPECT_EQ(c->ToString(), "ulysses=4,ring=2,cfg=2,fsdp=16,ulysses_chunks=4");
  EXPECT_EQ(c->Id(), "ulysses4-ring2-cfg2-fsdp16-ulysses_chunks4");
  // Not a sharding: the mesh and the template are the unchunked ones'.
  Combo whole = *c;
  whole.ulysses_chunks = 1;
  EXPECT_EQ(c->MeshText(), whole.MeshText());
  EXPECT_EQ(c->Template(), whole.Template());
  EXPECT_EQ(whole.ToString(), "ulysses=4,ring=2,cfg=2,fsdp=16");
  auto again = ParseCombo(c->ToString(), 16);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *c);
  // ulysses_chunks=1 is the default, left out when printed.
  auto one = ParseCombo("ulysses=8,ulysses_chunks=1", 8);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->ToString(), "ulysses=8");
}

TEST(UlyssesChunks, ParseErrors) {
  auto none = ParseCombo("ring=8,ulysses_chunks=2", 8);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("the combination has no ulysses degree"), std::string::npos)
      << none.status().message();
  auto pipeline = ParseCombo("pipefusion=2,ulysses=4,ulysses_chunks=2", 8);
  ASSERT_FALSE(pipeline.ok());
  EXPECT_NE(pipeline.status().message().find("does not combine with pipefusion"), std::string::npos);
  auto train = ParseCombo("ulysses=8,remat=full,ulysses_chunks=2", 8);
  ASSERT_FALSE(train.ok());
  EXPECT_NE(train.status().message().find("ulysses_chunks is for inference"), std::string::npos);
  EXPECT_FALSE(ParseCombo("ulysses=8,ulysses_chunks=0", 8).ok());
  EXPECT_FALSE(ParseCombo("ulysses=8,ulysses_chunks=2,ulysses_chunks=4", 8).ok());
  // Against the heads: Wan 2.1 1.3B has 12; ulysses 4 leaves 3 groups.
  auto over = ParseCombo("ulysses=4,ulysses_chunks=4", 4);
  ASSERT_TRUE(over.ok());
  Status refused = CheckUlyssesChunks(*over, 12);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(), "ulysses_chunks=4 exceeds the 3 head groups (12 heads / ulysses 4); each chunk holds "
                               "whole groups");
  over->ulysses_chunks = 3;
  EXPECT_TRUE(CheckUlyssesChunks(*over, 12).ok());
  // ulysses 2 x tp 2 of 12 heads: 3 groups.
  auto tp = ParseCombo("ulysses=2,tp=2,ulysses_chunks=4", 4);
  ASSERT_TRUE(tp.ok());
  EXPECT_NE(CheckUlyssesChunks(*tp, 12).message().find("(12 heads / ulysses 2 x tp 2)"), std::string::npos);
}

// The plan refuses a pinned template whose chunks exceed the head groups.
TEST(UlyssesChunks, PinnedTemplateIsCheckedAgainstTheHeads) {
  hw::Topology t = Topo("v5e:2x2");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 256, 256, 5);
  PlanOptions options = DitOptions(t);
  options.pinned = "ulysses=4,ulysses_chunks=4";
  options.alpa = false;
  auto plan = MakePlan(config, t, options);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("exceeds the 3 head groups"), std::string::npos) << plan.status().message();
}

// The grid's variants: 2 and 4, capped by the head groups; none without
// Ulysses, for PipeFusion or training.
TEST(UlyssesChunks, Variants) {
  Combo c;
  c.ulysses = 4;
  c.ring = 2;
  std::vector<Combo> v = UlyssesChunkVariants(c, 40);  // 10 groups
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].ToString(), "ulysses=4,ring=2,ulysses_chunks=2");
  EXPECT_EQ(v[1].ToString(), "ulysses=4,ring=2,ulysses_chunks=4");
  EXPECT_EQ(UlyssesChunkVariants(c, 12).size(), 1u);  // 3 groups: 2 only
  c.ulysses = 1;
  EXPECT_TRUE(UlyssesChunkVariants(c, 40).empty());
  c.ulysses = 4;
  c.remat = pir::RematPolicy::kFull;
  EXPECT_TRUE(UlyssesChunkVariants(c, 40).empty());
}

// xDiT runs no head chunks: not an expert combination, refused by --target
// xdit and jax (GSPMD does not chunk), run by maxdiffusion.
TEST(UlyssesChunks, TargetsAndExperts) {
  workload::Workload config = Config("wan2.1-t2v-14b", 1280, 720, 81);
  auto chunked = ParseCombo("ulysses=8,ulysses_chunks=2", 8);
  auto whole = ParseCombo("ulysses=8", 8);
  ASSERT_TRUE(chunked.ok() && whole.ok());
  EXPECT_TRUE(RunsAsExpert(config, *whole));
  EXPECT_FALSE(RunsAsExpert(config, *chunked));
  EXPECT_FALSE(chunked->IsExpert());
  Status xdit = TargetAdmits(Target::kXdit, config, *chunked);
  ASSERT_FALSE(xdit.ok());
  EXPECT_NE(xdit.message().find("xDiT's Ulysses runs one all-to-all per tensor, no head chunks"), std::string::npos);
  EXPECT_FALSE(TargetAdmits(Target::kJax, config, *chunked).ok());
  EXPECT_TRUE(TargetAdmits(Target::kMaxDiffusion, config, *chunked).ok());
  EXPECT_TRUE(TargetAdmits(Target::kAny, config, *chunked).ok());
}

double ExposedAllToAll(const Evaluated& e, const hw::Topology& t) {
  auto result = Breakdown(e.compiled, t, DitOptions(t).calibration, e.default_placement, false);
  EXPECT_TRUE(result.ok()) << result.status().message();
  double exposed = 0;
  for (const price::ClassCost& c : result->classes) {
    if (c.kind == "all-to-all") exposed += c.exposed.value();
  }
  return exposed;
}

// Wan 2.1 1.3B at 480p, 81 frames (32,760 tokens: the attention's kernel
// dominates the block) with ulysses=4 on 4 H100s, one block: with 3 chunks
// (of 12 heads / 4 = 3 groups) chunk i+1's first all-to-all overlaps chunk
// i's kernel and chunk 0's output all-to-all the last kernel, so the
// simulator's exposed all-to-all time drops, the total all-to-all bytes and
// the FLOPs stay.
TEST(UlyssesChunks, ExposedAllToAllDropsWhereAttentionIsLong) {
  hw::Topology t = Topo("h100:4");
  workload::Workload config = Config("wan2.1-t2v-1.3b", 832, 480, 81);
  const EvaluateOptions evaluate{DitOptions(t).calibration, ""};
  auto evaluate_combo = [&](const std::string& text) {
    auto combo = ParseCombo(text, 4);
    EXPECT_TRUE(combo.ok()) << combo.status().message();
    auto candidate = ComboCandidate(config, *combo, 1, DitOptions(t));
    EXPECT_TRUE(candidate.ok()) << candidate.status().message();
    return Evaluate(*candidate, t, evaluate, PlacementPolicy{});
  };
  const Evaluated whole = evaluate_combo("ulysses=4");
  const Evaluated chunked = evaluate_combo("ulysses=4,ulysses_chunks=3");
  ASSERT_TRUE(whole.status.ok()) << whole.status.message();
  ASSERT_TRUE(chunked.status.ok()) << chunked.status.message();
  const double before = ExposedAllToAll(whole, t), after = ExposedAllToAll(chunked, t);
  EXPECT_GT(before, 0);
  EXPECT_LT(after, before);
  EXPECT_LT(chunked.default_latency, whole.default_latency);
  auto flops = [](const Evaluated& e) {
    double sum = 0;
    for (const auto& segment : e.compiled.evidence.segments) sum += segment.flops.value();
    return sum;
  };
  EXPECT_EQ(flops(chunked), flops(whole));
  auto all_to_all_bytes = [](const Evaluated& e) {
    int64_t bytes = 0;
    for (const auto& c : e.compiled.evidence.collectives) {
      if (c.kind == cir::CollectiveKind::kAllToAll) bytes += c.bytes.value();
    }
    return bytes;
  };
  EXPECT_EQ(all_to_all_bytes(chunked), all_to_all_bytes(whole));
}

}  // namespace
}  // namespace az::search
