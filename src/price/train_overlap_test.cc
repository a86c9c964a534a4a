// A training step's gradient reductions overlapping its backward
// (compile/spmd/schedule.h OverlapGradientReductions), priced by the
// simulator: a reduction issued when its gradient is produced runs on the
// communication engine while the compute engine goes on with the backward.
#include <gtest/gtest.h>

#include "compile/train_testing.h"
#include "price/calibration.h"
#include "price/simulator.h"

namespace az::price {
namespace {

evidence::Evidence DataParallelStep(bool async) {
  compile::train_test::TinyStep step;
  step.depth = 2;
  step.micro_batch = 4;
  compile::CompileOptions compile_options;
  compile_options.async_collectives = async;
  auto program =
      compile::train_test::CompileStep(compile::train_test::BuildTinyStep(step), "dp=4", "dp", compile_options);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  return evidence::Extract(*program, compile::SpmdCompiler().name());
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
  EXPECT_NEAR(without->latency.value(), without->compute.value() + without->communication.value(), 1e-12 * without->latency.value());
  EXPECT_LT(with->latency, without->latency);
  EXPECT_GE(with->latency, with->compute);
  EXPECT_GE(with->latency, with->communication * (1 - 1e-12));
  RecordProperty("overlapped_ms", std::to_string(with->latency.value() * 1e3));
  RecordProperty("blocking_ms", std::to_string(without->latency.value() * 1e3));
}

}  // namespace
}  // namespace az::price
