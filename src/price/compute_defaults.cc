// The fitted compute calibrations shipped as defaults (see compute.h).
//
// The tensor-core efficiencies below are what
//
//   aoizora calibrate --dit ../shared/data/measurements/dit_single_gpu_latency.csv
//
// fits (compute_fit.h: one scale per GPU on the documented 0.75 / 0.6 / 0.6,
// least squares on log error), rounded to 4 significant digits.
// compute_fit_test.cc refits them from the file and checks they agree, so a
// change to the zoo, the compiler or the model that moves the fit shows up as a
// failing test, to be answered by refitting and updating this table
// (docs/compute-model.md has the procedure and the per-row errors).
#include <string_view>

#include "price/compute.h"

namespace az::price {

namespace {

struct FittedEfficiencies {
  std::string_view chip;
  double matmul, attention, convolution;
  bool end_to_end_only;  // every row the fit saw includes other stages
  std::string_view source;
};

constexpr std::string_view kEndToEnd =
    "; Wan rows are end to end (T5, VAE, --offload_model included): conservative (low) efficiencies";

constexpr FittedEfficiencies kFitted[] = {
    // 2 Wan2.1 14B rows (t2v, i2v) at 1280x720x81, end to end.
    {"h800", 0.4361, 0.3488, 0.3488, true, "fit to 2 Wan2.1-14B latencies on H800 (Wan2.1 README)"},
    // 2 Wan2.1 14B rows, end to end.
    {"a800", 0.7547, 0.6038, 0.6038, true, "fit to 2 Wan2.1-14B latencies on A800 (Wan2.1 README)"},
    // 2 Wan2.1 14B rows (end to end) and 2 HunyuanVideo rows (official repo).
    {"h20", 0.7650, 0.6120, 0.6120, false,
     "fit to 2 Wan2.1-14B (Wan2.1 README, end to end) and 2 HunyuanVideo latencies on H20 (xDiT docs)"},
    // 2 HunyuanVideo rows (official repo, via xDiT's docs).
    {"h100", 0.4260, 0.3408, 0.3408, false, "fit to 2 HunyuanVideo latencies on H100 (official repo, xDiT docs)"},
};

// Chips without measurements that share a fitted chip's compute silicon.
struct Inherited {
  std::string_view chip, from, why;
};
constexpr Inherited kInherited[] = {
    {"h200", "h100", "H200 = H100 compute silicon with more HBM (glennklockwood.com); h100's fit"},
    {"a100", "a800", "A800 = A100 silicon with NVLink cut (hardware.md Addendum); a800's fit"},
};

void Apply(const FittedEfficiencies& f, std::string source, ComputeCalibration* c) {
  c->matmul_efficiency = f.matmul;
  c->attention_efficiency = f.attention;
  c->convolution_efficiency = f.convolution;
  c->source = std::move(source);
}

}  // namespace

void ApplyFittedComputeDefaults(const hw::ChipSpec& chip, ComputeCalibration* c) {
  for (const FittedEfficiencies& f : kFitted) {
    if (f.chip != chip.name) continue;
    std::string source = "aoizora calibrate --dit dit_single_gpu_latency.csv: " + std::string(f.source);
    if (f.end_to_end_only) source += kEndToEnd;
    Apply(f, std::move(source), c);
    return;
  }
  for (const Inherited& inherited : kInherited) {
    if (inherited.chip != chip.name) continue;
    for (const FittedEfficiencies& f : kFitted) {
      if (f.chip == inherited.from) Apply(f, std::string(inherited.why), c);
    }
    return;
  }
}

}  // namespace az::price
