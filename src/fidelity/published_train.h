// Published training steps: the step time a framework's own documentation
// reports for a configuration the planner prices, with where it is written.
// Validation only: no calibration reads them (one run per case; a figure
// fitted to it would hide the error it measures).
//
// CheckPublishedTrainSteps prices each point's configuration, pinned, under
// the default placement (what its framework ran), with the calibration and
// stack a plan on that slice uses (planner.h: MakePlan), and reports the
// predicted step beside the published one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace az::fidelity {

struct PublishedTrainStep {
  std::string_view model;  // zoo name
  int64_t width = 0, height = 0, frames = 0;
  std::string_view topology;  // catalog spec: "v5p:2x2x1"
  int64_t micro_batch = 1;    // samples per step
  std::string_view combo;     // the configuration, in the planner's vocabulary
  std::string_view command;   // as the source writes it
  double seconds = 0;         // the reported step time (steady state)
  double tflops_per_device = 0;  // the reported model TFLOP/s per device
  std::string_view source;
};

const std::vector<PublishedTrainStep>& PublishedTrainSteps();

struct TrainStepCheck {
  PublishedTrainStep point;
  Status status = Status::Ok();  // why it was not priced
  double predicted_s = 0;
  double model_flops = 0;        // the priced step's matmul + attention FLOPs
  double error = 0;              // predicted / published - 1
};

std::vector<TrainStepCheck> CheckPublishedTrainSteps(int threads);

// The checks as a Markdown section (bench --train's page).
std::string PublishedTrainMarkdown(const std::vector<TrainStepCheck>& checks);

}  // namespace az::fidelity
