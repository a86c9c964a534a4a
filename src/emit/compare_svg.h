// compare.svg: the step latency of aoizora, the expert baseline and Alpa as
// horizontal bars on one time axis.
//
// Each bar is the configuration's step latency, split into compute (the
// compute engine busy) and exposed communication (the compute engine waiting;
// latency = compute + exposed, price/simulator.h), in the proportions of its
// breakdown; a configuration without a breakdown is one grey bar. The label
// after a bar gives the latency in ms and, for the baselines, how many times
// faster aoizora is. The roofline bound per step is a dashed vertical line.
// A missing Alpa plan is a row with its note instead of a bar. The axis runs
// from 0 to a round value above the longest bar (or the bound), with ticks at
// 1/2/5 x 10^k ms. Standalone SVG 1.1 (no external fonts or styles); every
// plan string is escaped. Deterministic: the same plan gives the same text.
#pragma once

#include <string>

#include "search/plan.h"

namespace az::emit {

std::string CompareSvg(const search::Plan& plan);

}  // namespace az::emit
