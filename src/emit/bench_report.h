// The table of record (`aoizora bench`): AoiZora against the expert and Alpa
// baselines over a grid of models and slices, as Markdown and as an SVG of
// the speedups. Pure functions of the rows.
#pragma once

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
std::string BenchMarkdown(const std::vector<BenchRow>& rows);
// Bars of AoiZora's speedup over the expert and over Alpa, one group per row.
std::string BenchSvg(const std::vector<BenchRow>& rows);

}  // namespace az::emit
