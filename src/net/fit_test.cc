// Calibration on the public nccl-tests sweeps in ../shared/data/measurements.
#include "net/fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/test_files.h"

namespace az::net {
namespace {


FitReport Fit(const char* topology, const std::string& path) {
  auto t = hw::MakeTopology(topology);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto rows = ReadMeasurements(testing::ReadTextFile(path), path, CollectiveKind::kAllReduce, t->num_chips());
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  auto report = FitCalibration(*t, *rows, DefaultCalibration(*t));
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return std::move(report).value();
}

// The issue's goal: median |relative error| over sizes from 1 MiB up at most 10%.
TEST(Calibration, H100AllReduceSweep) {
  AZ_REQUIRE_SHARED_DATA(path, "measurements/nccl_allreduce_1x8_h100_sxm.csv");
  FitReport r = Fit("h100:8", path);
  EXPECT_EQ(r.points.size(), 32u);  // 8 B .. 16 GiB, one row per power of two: 2^3 .. 2^34
  EXPECT_LE(r.median_abs_error_1mib, 0.10);
  // NCCL runs NVLS at large sizes on this node (the file's header); the fit agrees.
  EXPECT_EQ(r.points.back().algorithm, "nvls");
}

TEST(Calibration, H200AllReduceSweep) {
  AZ_REQUIRE_SHARED_DATA(path, "measurements/nccl_allreduce_1x8_h200.csv");
  FitReport r = Fit("h200:8", path);
  EXPECT_EQ(r.points.size(), 20u);  // 32 KiB .. 16 GiB: 2^15 .. 2^34
  EXPECT_LE(r.median_abs_error_1mib, 0.10);
}

// Two p5.48xlarge nodes over EFA (the fabric's 25 us per network message is
// the topology's, catalog.cc). Default NCCL constants on h100:2x8 erred 70.7%
// (median, from 1 MiB up) before the multi-node forms; the fit reaches 5.5%.
TEST(Calibration, H100TwoNodeEfaAllReduceSweep) {
  AZ_REQUIRE_SHARED_DATA(path, "measurements/nccl_allreduce_2x8_h100_efa.csv");
  FitReport r = Fit("h100:2x8:efa", path);
  EXPECT_EQ(r.points.size(), 32u);  // 8 B .. 16 GiB: 2^3 .. 2^34
  EXPECT_LE(r.median_abs_error_1mib, 0.10);
  // Large messages: NVLS trees (NVLink SHARP in the node, the rails between nodes).
  EXPECT_EQ(r.points.back().algorithm, "nvls-tree");
  // Small ones: the latency floor of ~70 us is the LL tree over EFA.
  EXPECT_EQ(r.points.front().algorithm, "tree-ll");
}

// The calibrations shipped in DefaultCalibration reproduce the sweeps they were
// fitted to, through the ordinary pricing path.
TEST(Calibration, ShippedDefaultsReproduceTheSweeps) {
  struct Case {
    const char* topology;
    const char* file;
  };
  for (Case c : {Case{"h100:8", "measurements/nccl_allreduce_1x8_h100_sxm.csv"},
                 Case{"h200:8", "measurements/nccl_allreduce_1x8_h200.csv"},
                 Case{"h100:2x8:efa", "measurements/nccl_allreduce_2x8_h100_efa.csv"}}) {
    AZ_REQUIRE_SHARED_DATA(path, c.file);
    auto t = hw::MakeTopology(c.topology);
    ASSERT_TRUE(t.ok());
    const int ranks = t->num_chips();
    auto rows = ReadMeasurements(testing::ReadTextFile(path), path, CollectiveKind::kAllReduce, ranks);
    ASSERT_TRUE(rows.ok());
    CollectiveModel model(*t, DefaultCalibration(*t));
    std::vector<double> errors;
    for (const Measurement& m : *rows) {
      if (m.bytes.value() < (1 << 20)) continue;
      Collective ar;
      ar.kind = CollectiveKind::kAllReduce;
      ar.bytes = m.bytes;
      ar.groups.groups = {{}};
      for (int rank = 0; rank < ranks; ++rank) ar.groups.groups[0].push_back(rank);
      auto r = model.Price(ar, IdentityPlacement(ranks));
      ASSERT_TRUE(r.ok());
      errors.push_back(std::fabs(r->time.value() - m.time.value()) / m.time.value());
    }
    std::sort(errors.begin(), errors.end());
    double median = errors.size() % 2 ? errors[errors.size() / 2]
                                       : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
    EXPECT_LE(median, 0.10) << c.topology;
  }
}

TEST(Calibration, JsonRoundTripAndErrors) {
  auto t = hw::MakeTopology("h100:8");
  ASSERT_TRUE(t.ok());
  Calibration c = DefaultCalibration(*t);
  auto back = CalibrationFromJson(CalibrationToJson(c), "cal.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->algorithms.size(), c.algorithms.size());
  for (const auto& [name, p] : c.algorithms) {
    // The file holds microseconds: equal to rounding.
    EXPECT_NEAR(back->algorithms[name].base_latency.value(), p.base_latency.value(), 1e-15) << name;
    EXPECT_NEAR(back->algorithms[name].step_latency.value(), p.step_latency.value(), 1e-15) << name;
    EXPECT_DOUBLE_EQ(back->algorithms[name].efficiency, p.efficiency) << name;
  }
  EXPECT_EQ(back->link_efficiency, c.link_efficiency);
  EXPECT_FALSE(CalibrationFromJson("{", "cal.json").ok());
  auto bad = CalibrationFromJson(R"({"link_efficiency": {"ici": 2.0}})", "cal.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("link_efficiency.ici"), std::string::npos);
  EXPECT_FALSE(CalibrationFromJson(R"({"algorithms": {"nvls": {"speed": 1}}})", "cal.json").ok());
  EXPECT_FALSE(CalibrationFromJson(R"({"link_efficiency": {"quantum": 0.5}})", "cal.json").ok());
}

TEST(Calibration, PinnedAlgorithmsFromTheByCollectiveFile) {
  AZ_REQUIRE_SHARED_DATA(path, "measurements/nccl_16GiB_1x8_h200_by_collective.csv");
  auto t = hw::MakeTopology("h200:8");
  ASSERT_TRUE(t.ok());
  auto rows = ReadMeasurements(testing::ReadTextFile(path), path, CollectiveKind::kAllReduce, 8);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].algorithm, "nvls");
  EXPECT_EQ((*rows)[1].algorithm, "ring-simple");
  EXPECT_EQ((*rows)[2].kind, CollectiveKind::kAllGather);
  // all_reduce NVLS busbw 480 GB/s at 16 GiB: algbw = 480 * 8 / 14, time = 16 GiB / algbw.
  EXPECT_NEAR((*rows)[0].time.value(), 17179869184.0 / (480e9 * 8.0 / 14.0), 1e-9);
}

TEST(Measurements, BadRowsAreLocatedErrors) {
  auto expect_error = [](const std::string& text, const std::string& fragment) {
    auto rows = ReadMeasurements(text, "m.csv", CollectiveKind::kAllReduce, 8);
    ASSERT_FALSE(rows.ok()) << text;
    EXPECT_NE(rows.status().message().find(fragment), std::string::npos) << rows.status().message();
  };
  expect_error("bytes,time_us\n1024,12\n2048\n", "m.csv:3: error: expected 2 columns, found 1");
  expect_error("bytes,time_us\nabc,12\n", "m.csv:2: error: bytes 'abc'");
  expect_error("bytes,time_us\n1024,-5\n", "no positive time_us");
  expect_error("size,time_us\n1024,5\n", "no 'bytes' column");
  expect_error("bytes,foo\n1024,5\n", "needs time_us");
  expect_error("# only comments\n", "no measurements");
  expect_error("collective,bytes,time_us\nallreduce,1024,5\n", "unknown collective kind");
}

}  // namespace
}  // namespace az::net
