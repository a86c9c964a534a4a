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
#include "support/test_files.h"

namespace az::net {
namespace {

struct Point {
  std::string kind, topology, group;
  double bytes = 0, measured = 0;
  std::string unit;
};

std::vector<Point> ReadPoints(const std::string& text) {
  std::vector<Point> out;
  size_t pos = 0;
  bool header = true;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;  // kind,topology,group,bytes,measured,unit,note
      continue;
    }
    std::vector<std::string> cells;
    size_t start = 0;
    for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1) {
      cells.push_back(line.substr(start, comma - start));
    }
    cells.push_back(line.substr(start));
    EXPECT_EQ(cells.size(), 7u) << line;
    if (cells.size() != 7) continue;
    out.push_back({cells[0], cells[1], cells[2], std::stod(cells[3]), std::stod(cells[4]), cells[5]});
  }
  return out;
}

// The replica groups of a point's `group` on its slice (chip id = x + X*(y +
// Y*z); a v5e "AxB" slice has x = B chips, y = A):
//   v5e:4x8 "Y=4 no-wrap": the 8 columns of 4 chips along y (no wraparound);
//   v5e:8x16 "16 wrap": the 8 rows of 16 chips along x (wraparound: an axis of 16);
//   v5p:4x4x4 "4 wrap": the 16 lines of 4 chips along x (a whole cube wraps).
std::string Groups(const Point& p) {
  if (p.topology == "v5e:4x8" && p.group == "Y=4 no-wrap") return "[8,4]<=[4,8]T(1,0)";
  if (p.topology == "v5e:8x16" && p.group == "16 wrap") return "[8,16]<=[128]";
  if (p.topology == "v5p:4x4x4" && p.group == "4 wrap") return "[16,4]<=[64]";
  return "";
}

// The measured time: microseconds as given; "fraction of 4.5e10 B/s one-way
// link peak" of a bidirectional ring: bytes / (fraction * 2 * 4.5e10) (half
// the array each way round, SB's V / W_ici); "B/s algorithmic bandwidth":
// bytes / bandwidth.
double MeasuredSeconds(const Point& p) {
  if (p.unit == "us") return p.measured * 1e-6;
  if (p.unit.rfind("fraction of 4.5e10", 0) == 0) return p.bytes / (p.measured * 2 * 4.5e10);
  if (p.unit == "B/s algorithmic bandwidth") return p.bytes / p.measured;
  ADD_FAILURE() << "unknown unit '" << p.unit << "'";
  return 0;
}

double Predicted(const Point& p, bool shipped) {
  auto t = hw::MakeTopology(p.topology);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return 0;
  CollectiveModel model(*t, shipped ? DefaultCalibration(*t) : Calibration());
  Collective c;
  auto kind = ParseCollectiveKind(p.kind);
  EXPECT_TRUE(kind.ok());
  c.kind = *kind;
  c.bytes = Bytes(static_cast<int64_t>(p.bytes));
  auto groups = ParseReplicaGroups(Groups(p), t->num_chips());
  EXPECT_TRUE(groups.ok()) << p.topology << " " << p.group;
  if (!groups.ok()) return 0;
  c.groups = *groups;
  auto r = model.Price(c, IdentityPlacement(t->num_chips()));
  EXPECT_TRUE(r.ok());
  return r.ok() ? r->time.value() : 0;
}

// Before (the book's link rates, 1 us per hop, nothing else): -17.3%, -35.2%,
// -4.1%, -9.1%. After: -8.3%, -0.4%, +7.4%, +0.4% (docs/calibration.md).
TEST(TpuIciPoints, EveryPointWithinFifteenPercent) {
  AZ_REQUIRE_SHARED_DATA(path, "measurements/tpu_ici_points.csv");
  std::vector<Point> points = ReadPoints(testing::ReadTextFile(path));
  ASSERT_EQ(points.size(), 4u);
  int outside_before = 0;
  for (const Point& p : points) {
    double measured = MeasuredSeconds(p);
    double before = (Predicted(p, false) - measured) / measured;
    double after = (Predicted(p, true) - measured) / measured;
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
