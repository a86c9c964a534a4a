// Measurements and calibration fitting.
//
// Measurement files are nccl-tests-style CSV (data/measurements/ holds real
// ones): '#' lines are comments, the first other line names the columns.
// Recognized columns: bytes (required), time_us, busbw_GBps, algbw_GBps,
// collective (all_reduce, all_gather, ...; default: the --kind given), and
// algorithm (NVLS, Ring, ...: pins the algorithm for that row). A row needs a
// time: time_us, else algbw, else busbw converted with nccl-tests' factors
// (all-reduce busbw = algbw * 2(n-1)/n; all-gather, reduce-scatter,
// all-to-all: (n-1)/n; n = the ranks of the measurement, the whole topology).
//
// Fitting: each measurement is the collective over all chips of the topology.
// For every algorithm the model can pick, the model gives the per-size latency
// L (steps * per-step latency) and bandwidth term X (at efficiency 1); the
// measured time is fitted as t = base + L + X / efficiency, a straight line in
// X, by least squares on the relative error. Points are assigned to the
// algorithm the fitted model picks, and the fit repeats until the assignment is
// stable (NCCL switches from LL rings to NVLS as messages grow). Every
// algorithm the fit can assign starts from NCCL's constants, whatever `start`
// holds for it (so a shipped fit is reproduced, not refined); `start` gives
// the link efficiencies and the rest.
#pragma once

#include <string>
#include <vector>

#include "net/calibration.h"
#include "net/collective.h"
#include "net/model.h"

namespace az::net {

struct Measurement {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Bytes bytes;
  Seconds time;
  std::string algorithm;  // pinned algorithm ("nvls", "ring-simple"), or empty
  int line = 0;           // in the file, for messages
};

StatusOr<std::vector<Measurement>> ReadMeasurements(std::string_view text, std::string_view file_name,
                                                    CollectiveKind default_kind, int ranks);

struct FitPoint {
  Measurement measurement;
  Seconds predicted;
  std::string algorithm;  // what the fitted model picks
  double relative_error = 0;  // (predicted - measured) / measured
};

struct FitReport {
  Calibration calibration;
  std::vector<FitPoint> points;
  // Median |relative error| over points of at least 1 MiB (all points when none).
  double median_abs_error_1mib = 0;
  int iterations = 0;
};

StatusOr<FitReport> FitCalibration(const hw::Topology& topology, const std::vector<Measurement>& measurements,
                                   const Calibration& start);

}  // namespace az::net
