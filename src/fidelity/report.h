// The fidelity report: every measurement file of a folder (the shared
// data/measurements) predicted with the shipped defaults, as markdown
// (`aoizora calibrate --report` writes docs/fidelity.md).
//
// Per file: each row's published figure, the prediction and the relative
// error (predicted - measured) / measured; the median and the largest
// |error|. The multi-GPU DiT file adds the mean signed error by GPU count and
// at each series' largest count (a series: one model, size and GPU), and
// the out-of-sample splits of fidelity/scaling.h (leave one GPU out, leave
// one model family out). The collective files are predicted on the system
// each was measured on (KnownCollectiveFile), over every chip of it, with the
// calibration the planner uses there (net::DefaultCalibration); their
// medians count sizes >= 1 MiB, as the fits do.
//
// Deterministic: files in name order, rows in file order, fixed formatting.
#pragma once

#include <string>
#include <vector>

#include "support/status.h"

namespace az::fidelity {

// One file's summary (the report's first table; tests guard these).
struct FileFidelity {
  std::string file;           // base name
  std::string what;           // "single-GPU DiT videos", "all-reduce on h100:8", ...
  int rows = 0;               // predicted
  double median_abs_error = 0;
  double max_abs_error = 0;
  std::string note;           // why a file, or some of its rows, are not predicted
};

struct FidelityReport {
  std::vector<FileFidelity> files;
  std::string markdown;
};

// `dir` holds the measurement CSVs. Files it does not know are listed as not
// predicted, with the reason; a known file that does not parse is an error.
StatusOr<FidelityReport> MakeFidelityReport(const std::string& dir);

}  // namespace az::fidelity
