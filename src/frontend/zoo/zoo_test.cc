// Properties every zoo model must have: graphs verify, PIR text round-trips,
// figures survive the round trip, and building is deterministic.
#include <gtest/gtest.h>

#include "frontend/zoo/zoo.h"
#include "pir/analysis/summary.h"
#include "pir/text/parser.h"
#include "pir/text/printer.h"
#include "pir/verify/verifier.h"

namespace az::zoo {
namespace {

TEST(Zoo, EveryModelRoundTripsThroughPirText) {
  for (const ModelEntry& m : ListModels()) {
    for (CfgMode cfg : {CfgMode::kTwoPass, CfgMode::kBatch2, CfgMode::kNone}) {
      ModelOptions o;
      o.cfg = cfg;
      // Small videos keep the test fast; the structure is the same at any size.
      o.width = 256;
      o.height = 256;
      o.frames = m.default_frames;  // valid under every model's own rule (4n+1, 6n+1, 16n+1, 17n...)
      auto config = ResolveConfig(m.name, o);
      ASSERT_TRUE(config.ok()) << config.status().ToString();
      for (bool step : {false, true}) {
        SCOPED_TRACE(m.name + " " + std::string(CfgModeName(cfg)) + (step ? " step" : " forward"));
        auto graph = step ? BuildStep(*config) : BuildForward(*config);
        ASSERT_TRUE(graph.ok());
        ASSERT_TRUE(pir::VerifyGraph(*graph).ok()) << pir::VerifyGraph(*graph).ToString();
        std::string text = pir::PrintGraph(*graph);
        auto parsed = pir::ParseGraph(text, m.name + ".pir");
        ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
        EXPECT_EQ(pir::PrintGraph(*parsed), text);
        SourceBuffer source(m.name + ".pir", text);
        EXPECT_TRUE(pir::VerifyGraph(*parsed, &source).ok());
        pir::GraphSummary before = pir::SummarizeGraph(*graph);
        pir::GraphSummary after = pir::SummarizeGraph(*parsed);
        EXPECT_EQ(before.num_params, after.num_params);
        EXPECT_EQ(before.model_flops().value(), after.model_flops().value());
        EXPECT_EQ(before.activation_peak_bytes.value(), after.activation_peak_bytes.value());
      }
    }
  }
}

TEST(Zoo, BuildingIsDeterministic) {
  for (const ModelEntry& m : ListModels()) {
    auto config = ResolveConfig(m.name, {});
    ASSERT_TRUE(config.ok());
    EXPECT_EQ(pir::PrintGraph(*BuildStep(*config)), pir::PrintGraph(*BuildStep(*config))) << m.name;
  }
}

TEST(Zoo, PublishedParameterCountsMatchTheGraphs) {
  for (const ModelEntry& m : ListModels()) {
    auto config = ResolveConfig(m.name, {});
    ASSERT_TRUE(config.ok());
    EXPECT_EQ(pir::SummarizeGraph(*BuildForward(*config)).num_params, m.published_params) << m.name;
  }
}

}  // namespace
}  // namespace az::zoo

namespace az::zoo {
namespace {

// Truncated depth: a model of k block units has the full model's non-block
// parameters plus k/units of its block parameters, so the parameter count is
// linear in k: params(k) = params(0 blocks) + k * per_unit, and params(full) =
// params(1) + (units - 1) * (params(2) - params(1)) exactly.
TEST(ZooDepth, ParametersAreLinearInDepthUnits) {
  for (const char* model : {"wan2.1-t2v-14b", "hunyuanvideo-13b"}) {
    auto full = ResolveConfig(model, ModelOptions());
    ASSERT_TRUE(full.ok());
    auto params = [&](int64_t units) {
      ModelConfig c = *full;
      c.depth_units = units;
      auto g = BuildForward(c);
      EXPECT_TRUE(g.ok()) << g.status().message();
      int64_t n = 0;
      for (const auto& v : g->values()) {
        if (v.role == pir::ValueRole::kParameter) n += v.type.NumElements();
      }
      return n;
    };
    int64_t units = DepthUnits(*full);
    EXPECT_EQ(units, std::string(model) == "wan2.1-t2v-14b" ? 40 : 20);
    int64_t p1 = params(1), p2 = params(2);
    EXPECT_EQ(p1 + (units - 1) * (p2 - p1), params(0)) << model;
    EXPECT_EQ(params(units), params(0)) << model;
    ModelConfig bad = *full;
    bad.depth_units = units + 1;
    EXPECT_FALSE(BuildForward(bad).ok());
  }
}

}  // namespace
}  // namespace az::zoo
