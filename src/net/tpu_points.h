// The scaling book's measured TPU ICI points (the shared
// data/measurements/tpu_ici_points.csv) read and priced: what
// net/tpu_points_test.cc checks and the fidelity report prints.
//
// File (support/csv.h): '#' comments, a header naming kind, topology, group,
// bytes, measured, unit and note, then one row a point. `group` names which chips take part, in the book's
// words; the groups it can price (GroupsOf) are:
//   v5e:4x8 "Y=4 no-wrap": the 8 columns of 4 chips along y (no wraparound);
//   v5e:8x16 "16 wrap": the 8 rows of 16 chips along x (an axis of 16 wraps);
//   v5p:4x4x4 "4 wrap": the 16 lines of 4 chips along x (a whole cube wraps).
// (Chip id = x + X*(y + Y*z); a v5e "AxB" slice has x = B chips, y = A.)
// `unit` says what `measured` is (MeasuredTime):
//   "us"                                      microseconds;
//   "fraction of 4.5e10 B/s one-way link peak" of a bidirectional ring:
//       bytes / (fraction x 2 x 4.5e10) (half the array each way, SB's V / W_ici);
//   "B/s algorithmic bandwidth"               bytes / bandwidth.
#pragma once

#include <string>
#include <vector>

#include "net/calibration.h"
#include "support/status.h"
#include "support/units.h"

namespace az::net {

struct TpuPoint {
  std::string kind, topology, group;
  double bytes = 0, measured = 0;
  std::string unit, note;
  int line = 0;
};

// Malformed rows: "file:line: error: ...".
StatusOr<std::vector<TpuPoint>> ReadTpuPoints(std::string_view text, std::string_view file_name);
// The measured time of a point (header); an unknown unit is an error.
StatusOr<Seconds> MeasuredTime(const TpuPoint& point);
// The point's replica groups in XLA's iota form; an unknown group is an error.
StatusOr<std::string> GroupsOf(const TpuPoint& point);
// The point priced by the collective model on its slice under `calibration`
// (DefaultCalibration when null), identity placement.
StatusOr<Seconds> PredictTpuPoint(const TpuPoint& point, const Calibration* calibration = nullptr);

}  // namespace az::net
