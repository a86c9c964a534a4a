// A training step's gradient reductions overlapping its backward
// (compile/spmd/schedule.h OverlapGradientReductions), priced by the
// simulator: a reduction issued when its gradient is produced runs on the
// communication engine while the compute engine goes on with the backward.
#include <gtest/gtest.h>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"
#include "price/calibration.h"
#include "price/simulator.h"

namespace az::price {
namespace {

evidence::Evidence DataParallelStep(bool async) {
  zoo::ModelOptions small;
  small.width = 256;
  small.height = 256;
  small.frames = 9;
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", small);
  EXPECT_TRUE(config.ok());
  config->depth_units = 2;
  zoo::TrainOptions options;
  options.micro_batch = 4;
  auto graph = zoo::BuildTrainStep(*config, options);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  auto mesh = shard::Mesh::Parse("dp=4");
  compile::SpmdCompiler compiler;
  compile::CompileOptions compile_options;
  compile_options.async_collectives = async;
  auto program = compile::CompileTemplate(compiler, *graph, *mesh, "dp", compile_options);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  return evidence::Extract(*program, compiler.name());
}

TEST(TrainOverlap, GradientReductionsOverlapTheBackward) {
  // Blocking, every all-reduce (issued right before AdamW reads the
  // gradient) waits alone: latency = compute + communication. Overlapped,
  // the reductions of the backward's first buckets run while it computes
  // the rest, so the latency drops; both engines are serial, so it stays at
  // or above the compute time (and the communication time).
  auto topology = hw::MakeTopology("v5e:2x2");
  ASSERT_TRUE(topology.ok());
  PriceCalibration calibration = DefaultPriceCalibration(*topology);
  evidence::Evidence overlapped = DataParallelStep(true), blocking = DataParallelStep(false);
  int starts = 0;
  for (const evidence::Event& event : overlapped.schedule) starts += event.type == evidence::EventType::kStart;
  EXPECT_GT(starts, 1);
  auto fast = Simulator::Create(overlapped, *topology, calibration.network, calibration.compute);
  auto slow = Simulator::Create(blocking, *topology, calibration.network, calibration.compute);
  ASSERT_TRUE(fast.ok() && slow.ok());
  auto with = fast->Simulate(net::IdentityPlacement(4), false);
  auto without = slow->Simulate(net::IdentityPlacement(4), false);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_NEAR(without->latency, without->compute + without->communication, 1e-12 * without->latency);
  EXPECT_LT(with->latency, without->latency);
  EXPECT_GE(with->latency, with->compute);
  EXPECT_GE(with->latency, with->communication * (1 - 1e-12));
  RecordProperty("overlapped_ms", std::to_string(with->latency * 1e3));
  RecordProperty("blocking_ms", std::to_string(without->latency * 1e3));
}

}  // namespace
}  // namespace az::price
