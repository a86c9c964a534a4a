// The TPU side of the collective model against the scaling book's measured
// points (../shared/data/measurements/tpu_ici_points.csv): every point within
// 15% under the shipped defaults (calibration.cc derives the ICI efficiency
// 0.905 and the fixed cost 2.55 us per collective from these four rows
// together, two parameters from four rows).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "net/model.h"
#include "net/tpu_points.h"
#include "support/test_files.h"

namespace az::net {
namespace {

// Before (the book's link rates, 1 us per hop, nothing else): -17.3%, -35.2%,
// -4.1%, -9.1%. After: -8.3%, -0.4%, +7.4%, +0.4% (docs/calibration.md).
TEST(TpuIciPoints, EveryPointWithinFifteenPercent) {
  AZ_REQUIRE_SHARED_DATA(path, "measurements/tpu_ici_points.csv");
  auto points = ReadTpuPoints(testing::ReadTextFile(path), path);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 4u);
  int outside_before = 0;
  const Calibration book;  // the book's link rates, 1 us per hop, nothing else
  for (const TpuPoint& p : *points) {
    auto measured_time = MeasuredTime(p);
    auto unfitted = PredictTpuPoint(p, &book);
    auto shipped = PredictTpuPoint(p);
    ASSERT_TRUE(measured_time.ok() && unfitted.ok() && shipped.ok()) << p.line;
    double measured = measured_time->value();
    double before = (unfitted->value() - measured) / measured;
    double after = (shipped->value() - measured) / measured;
    std::printf("%-10s %-10s %-12s %12.0f B: measured %10.2f us, before %+6.1f%%, after %+6.1f%%\n", p.kind.c_str(),
                p.topology.c_str(), p.group.c_str(), p.bytes, measured * 1e6, 100 * before, 100 * after);
    EXPECT_LE(std::fabs(after), 0.15) << p.kind << " " << p.topology << " " << p.bytes;
    outside_before += std::fabs(before) > 0.15;
  }
  // Without the fixed cost and efficiency two points (the 34 MB line, the
  // latency-bound 131 kB gather) miss by more than 15%: the test can fail.
  EXPECT_EQ(outside_before, 2);
}

}  // namespace
}  // namespace az::net

namespace az::net {
namespace {

TEST(TpuIciPoints, MalformedRowsAreLocated) {
  const std::string header = "kind,topology,group,bytes,measured,unit,note\n";
  auto bad = ReadTpuPoints(header + "all-gather,v5e:4x8,Y=4 no-wrap,x,8,us,n\n", "p.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "p.csv:2: error: bytes 'x' is not a positive number");
  auto short_row = ReadTpuPoints(header + "all-gather,v5e:4x8\n", "p.csv");
  ASSERT_FALSE(short_row.ok());
  EXPECT_EQ(short_row.status().message(), "p.csv:2: error: expected 7 columns, found 2");
  auto no_header = ReadTpuPoints("a,b\n", "p.csv");
  ASSERT_FALSE(no_header.ok());
  auto unknown = ReadTpuPoints(header + "all-gather,v5e:2x2,X=2,1024,8,us,n\n", "p.csv");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(GroupsOf(unknown->at(0)).ok());
  EXPECT_FALSE(PredictTpuPoint(unknown->at(0)).ok());
}

}  // namespace
}  // namespace az::net
