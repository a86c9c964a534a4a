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
      o.frames = 5;
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
