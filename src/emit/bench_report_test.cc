// The bench tables (bench_report.h): the end-to-end video column of an
// inference row and the training columns of a `bench --train` row.
#include "emit/bench_report.h"

#include <gtest/gtest.h>

namespace az::emit {
namespace {

search::Plan BasePlan() {
  search::Plan plan;
  plan.best.description = "ring=4,cfg=2";
  plan.best.step_latency = Seconds(0.25);
  search::Configuration expert = plan.best;
  expert.description = "xDiT ring=4,cfg=2";
  expert.step_latency = Seconds(0.5);
  plan.baselines = {{"expert", expert, ""}, {"alpa", std::nullopt, "not run (--no-alpa)"}};
  plan.efficiency = 0.5;
  plan.plan_time = Seconds(1.5);
  return plan;
}

BenchRow Row(const std::string& topology, bool train) {
  BenchRow row;
  row.model = "wan2.1-t2v-1.3b";
  row.resolution = "832x480x81";
  row.topology = topology;
  row.train = train;
  row.planned = true;
  row.plan = BasePlan();
  return row;
}

TEST(BenchMarkdown, InferenceRowsCarryTheWholeVideo) {
  BenchRow row = Row("h100:8", false);
  // 50 steps of 0.25 s and 3.5 s of encoders and VAE: 16.0 s.
  row.plan.steps = 50;
  row.plan.stages_latency = Seconds(3.5);
  row.plan.video_latency = Seconds(3.5 + 50 * 0.25);
  std::string table = BenchMarkdown({row});
  EXPECT_NE(table.find("video s (end to end)"), std::string::npos) << table;
  EXPECT_NE(table.find("| ring=4,cfg=2 | 250.0 | 16.0 | xDiT ring=4,cfg=2 | 500.0 | 2.000x |"), std::string::npos)
      << table;
}

TEST(BenchMarkdown, TrainingRowsCarryThroughputAndRemat) {
  BenchRow row = Row("v5p:2x2x1", true);
  row.plan.train = true;
  row.plan.batch = 4;
  row.plan.best.remat = "selected";
  row.plan.best.peak_memory = Bytes(int64_t{3} << 30);
  row.plan.samples_per_second = 4 / 0.25;  // 16 samples/s
  row.plan.baselines[0].configuration->description = "MaxDiffusion dp=4,fsdp=4,remat=full";
  std::string table = BenchMarkdown({row});
  EXPECT_NE(table.find("| micro-batch |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 4 | v5p:2x2x1 | ring=4,cfg=2 | selected | 250.0 | 16.00 | 3.00 GiB | "
                       "MaxDiffusion dp=4,fsdp=4,remat=full | 500.0 | 2.000x |"),
            std::string::npos)
      << table;
  BenchRow failed = Row("v5p:2x2x1", true);
  failed.planned = false;
  failed.error = "does not fit v5p:2x2x1";
  EXPECT_NE(BenchMarkdown({failed}).find("does not fit v5p:2x2x1"), std::string::npos);
}

}  // namespace
}  // namespace az::emit
