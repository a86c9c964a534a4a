#include "fidelity/published_train.h"

#include <cmath>
#include <cstdio>

#include "frontend/zoo/zoo.h"
#include "hw/topology.h"
#include "pir/analysis/summary.h"
#include "price/calibration.h"
#include "search/planner.h"

namespace az::fidelity {

namespace {

std::string Fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

}  // namespace

const std::vector<PublishedTrainStep>& PublishedTrainSteps() {
  // AI-Hypercomputer/maxdiffusion README.md @f5f212f2 ("Wan 2.1 training",
  // 2025-10-21): train_wan.py configs/base_wan_14b.yml on v5p-8 (4 chips)
  // at height=1280 width=720 num_frames=81, per_device_batch_size=0.25 (a
  // batch of 1), ici_fsdp_parallelism=4 (the fsdp axis carries the sequence
  // and the weights: zoo/recipes.cc), attention flash, remat_policy
  // HIDDEN_STATE_WITH_OFFLOAD. Its log: steps 0 and 1 take 142 and 137 s
  // (compilation), steps 2-6 36.014, 36.016, 36.008, 36.008, 36.006 s at
  // 135.871-135.900 TFLOP/s/device; the median of the five steady steps.
  static const std::vector<PublishedTrainStep> points = {
      {"wan2.1-t2v-14b", 720, 1280, 81, "v5p:2x2x1", 1, "context=4,fsdp=4,remat=offload",
       "ici_data_parallelism=1 ici_fsdp_parallelism=4 per_device_batch_size=0.25 "
       "remat_policy=HIDDEN_STATE_WITH_OFFLOAD attention=flash",
       36.008, 135.894, "maxdiffusion README.md @f5f212f2, Wan 2.1 training on v5p-8 (steps 2-6 of its log)"},
  };
  return points;
}

std::vector<TrainStepCheck> CheckPublishedTrainSteps(int threads) {
  std::vector<TrainStepCheck> out;
  for (const PublishedTrainStep& p : PublishedTrainSteps()) {
    TrainStepCheck check;
    check.point = p;
    auto priced = [&]() -> Status {
      zoo::ModelOptions video;
      video.width = p.width;
      video.height = p.height;
      video.frames = p.frames;
      AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, zoo::ResolveConfig(std::string(p.model), video));
      AZ_ASSIGN_OR_RETURN(hw::Topology topology, hw::MakeTopology(p.topology));
      const workload::Workload workload = zoo::WorkloadOf(config);
      search::PlanOptions options;
      options.pinned = std::string(p.combo);
      options.search_placement = false;  // the framework's device order
      options.alpa = false;
      options.max_prefetch = 1;  // the framework's default FSDP prefetch (search/prefetch.h)
      options.threads = threads;
      options.calibration = price::DefaultPriceCalibration(topology);
      options.train = search::TrainPlanOptions{};
      options.train->micro_batch = p.micro_batch;
      AZ_ASSIGN_OR_RETURN(search::Plan plan, search::MakePlan(workload, topology, options));
      check.predicted_s = plan.best.step_latency.value();
      check.error = check.predicted_s / p.seconds - 1;
      // The step's model FLOPs (forward and backward, no recomputation), to
      // set beside the source's own count.
      workload::TrainOptions step;
      step.micro_batch = p.micro_batch;
      AZ_ASSIGN_OR_RETURN(pir::Graph graph, workload.TrainStep(step));
      check.model_flops = static_cast<double>(pir::SummarizeGraph(graph).model_flops().value());
      return Status::Ok();
    }();
    check.status = priced;
    out.push_back(std::move(check));
  }
  return out;
}

std::string PublishedTrainMarkdown(const std::vector<TrainStepCheck>& checks) {
  std::string out =
      "## Against published training steps\n\n"
      "Each published run's own configuration, pinned, under its framework's device order, priced as a plan prices "
      "it (`src/fidelity/published_train.h`). Validation only: no calibration reads these runs. FLOPs: the step's "
      "matmul and attention FLOPs as AoiZora counts them (what the kernels run: flash attention's backward "
      "recomputes QK^T), and as the source's TFLOP/s per device x devices x seconds imply (the model FLOPs, "
      "3x the forward).\n\n"
      "| model | clips | batch | slice | configuration | published s/step | predicted s/step | error | FLOPs "
      "(AoiZora) | FLOPs (source) | source |\n"
      "|---|---|---:|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const TrainStepCheck& c : checks) {
    const PublishedTrainStep& p = c.point;
    out += "| " + std::string(p.model) + " | " + std::to_string(p.width) + "x" + std::to_string(p.height) + "x" +
           std::to_string(p.frames) + " | " + std::to_string(p.micro_batch) + " | " + std::string(p.topology) +
           " | " + std::string(p.combo) + " | " + Fixed(p.seconds, 2) + " | ";
    if (!c.status.ok()) {
      out += "not priced: " + c.status.message() + " | | | | " + std::string(p.source) + " |\n";
      continue;
    }
    const int64_t chips = hw::MakeTopology(p.topology).ok() ? hw::MakeTopology(p.topology)->num_chips() : 0;
    const double source_flops = p.tflops_per_device * 1e12 * static_cast<double>(chips) * p.seconds;
    out += Fixed(c.predicted_s, 2) + " | " + (c.error >= 0 ? "+" : "") + Fixed(100 * c.error, 1) + "% | " +
           Fixed(c.model_flops / 1e15, 2) + " PF | " + Fixed(source_flops / 1e15, 2) + " PF | " +
           std::string(p.source) + " |\n";
  }
  return out;
}

}  // namespace az::fidelity
