// The table of record (`aoizora bench`): AoiZora against the expert and Alpa
// baselines over a grid of models and slices, as Markdown and as an SVG of
// the speedups; and the planner's own cost as the slice grows (`bench
// --scale`): plan time and peak memory per row, as Markdown and a log-log
// plot. Pure functions of the rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/plan.h"

namespace az::emit {

struct BenchRow {
  std::string model;       // "wan2.1-t2v-14b"
  std::string resolution;  // "1280x720x81"
  std::string topology;    // "v5e:2x4"
  bool train = false;      // a training step (bench --train); every row of one table alike
  bool planned = false;
  std::string error;       // why not (a configuration that does not fit, ...)
  search::Plan plan;       // when planned
};

// One row per (model, resolution, topology): AoiZora's configuration and step
// latency, the expert's and Alpa's, the speedups, the efficiency against the
// roofline bound and the plan time. Training rows (BenchRow::train) add the
// micro-batch, remat, samples/s and peak memory; their expert is MaxDiffusion's.
// Training tables end with the geometric means per slice, each speedup
// over the expert and the deployed recipe beside its ceiling (that
// baseline's step over the kernel time of AoiZora's pick).
std::string BenchMarkdown(const std::vector<BenchRow>& rows);
// One row's line of that table (without the newline), as bench prints each
// row when it lands.
std::string BenchRowMarkdown(const BenchRow& row);
// Bars of AoiZora's speedup over the expert, Alpa and the repository's
// recipe, one group per row.
std::string BenchSvg(const std::vector<BenchRow>& rows);

// `bench --paper`: the paper's grid (Wan 2.1 T2V-14B, one step, 480p and 720p
// at 21, 41 and 81 frames, on v5e:2x2, 2x4 and 4x4) as docs/results.md: per
// slice the geometric mean of AoiZora's speedup over the repository's recipe
// (deployed), the best of the expert grid and Alpa, beside the paper's
// figures, then every row. `command` is the line that produced it.
std::string PaperMarkdown(const std::vector<BenchRow>& rows, const std::string& command);

// One row of `bench --scale`: a plan run in its own process, so that its peak
// resident memory is its own. `chips` is 0 when the topology did not load;
// `wall_s` and `peak_rss_kib` are 0 when no process ran.
struct ScaleRow {
  std::string model;       // "wan2.1-t2v-14b"
  std::string resolution;  // "1280x720x81"
  std::string topology;    // "v5e:8x8", as the user wrote it
  int64_t chips = 0;
  bool planned = false;
  std::string error;            // why not: the plan's last error line, a timeout, a refused topology
  double wall_s = 0;            // the process's wall-clock time, start to exit
  double plan_time_s = 0;       // the plan's own plan_time_s (MakePlan alone); 0 when absent
  int64_t peak_rss_kib = 0;     // getrusage's ru_maxrss of the process (KiB on Linux)
  std::string pick;             // AoiZora's configuration
  double step_latency_s = 0;    // its step latency
  double speedup_over_expert = 0;  // 0 when the expert has no configuration
};

// How the rows were measured, for the page's header.
struct ScaleContext {
  std::string command;    // the command line that produced the page
  int threads = 0;        // --threads of every plan
  int nproc = 0;          // the machine's online CPUs
  std::string cpu_model;  // /proc/cpuinfo's "model name"; empty when unknown
  double timeout_s = 0;   // a plan running longer was killed
};

// The series a row is drawn in: "multi-slice" for a multi-slice TPU spec
// ("v5e:16x16*2"), otherwise the chip before the ':' ("v5e", "h100").
std::string ScaleFamily(const std::string& topology);

// The page: a header paragraph (how it was produced, on what machine), then
// one table row per ScaleRow in order.
std::string ScaleMarkdown(const std::vector<ScaleRow>& rows, const ScaleContext& context);

// The plot's frame: the plot area is [kScalePlotLeft, kScalePlotLeft +
// kScalePlotWidth] x [kScalePlotTop, kScalePlotTop + kScalePlotHeight].
inline constexpr double kScalePlotLeft = 80;
inline constexpr double kScalePlotTop = 50;
inline constexpr double kScalePlotWidth = 560;
inline constexpr double kScalePlotHeight = 300;

// Plan time (wall, s) against chips on log-log axes: one polyline with
// markers per (model and video, ScaleFamily), colour by family, marker and
// dash by model; planned rows only. The x axis runs between the powers of 2
// around the rows' chips, ticks at every power of 2; the y axis between the
// powers of 10 around their times, ticks at 1, 2 and 5 per decade:
//   x(chips) = left + width * log2(chips / x_lo) / log2(x_hi / x_lo)
//   y(s)     = top + height * (1 - log10(s / y_lo) / log10(y_hi / y_lo))
std::string ScaleSvg(const std::vector<ScaleRow>& rows);

}  // namespace az::emit
