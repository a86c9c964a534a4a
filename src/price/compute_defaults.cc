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
  std::string_view source;  // the rows, and what the fit cannot tell (DitChipFit::note)
};

// Every row is predicted end to end (the DiT forwards, the pipeline's other
// stages, the recipe's host transfers: compute_fit.h).
constexpr FittedEfficiencies kFitted[] = {
    // 2 Wan2.1 14B rows (t2v, i2v) at 1280x720x81, --offload_model True.
    {"h800", 0.4387, 0.3509, 0.3509, "fit to 2 Wan2.1-14B videos on H800 (Wan2.1 README)"},
    // 2 Wan2.1 14B rows, --offload_model True.
    {"a800", 0.7594, 0.6075, 0.6075, "fit to 2 Wan2.1-14B videos on A800 (Wan2.1 README)"},
    // 2 Wan2.1 14B rows and 2 HunyuanVideo rows (official repo).
    {"h20", 0.7698, 0.6159, 0.6159, "fit to 2 Wan2.1-14B (Wan2.1 README) and 2 HunyuanVideo videos on H20 (xDiT docs)"},
    // 1 Wan2.1 1.3B row at 832x480x81, --offload_model True --t5_cpu.
    {"rtx4090", 0.8472, 0.6777, 0.6777,
     "fit to 1 Wan2.1-1.3B video on RTX 4090 (Wan2.1 README); one row: the fit reproduces it by construction and "
     "checks nothing; its T5 ran on the host CPU, whose time the fit charges to the GPU: conservative (low) "
     "efficiencies"},
    // 2 HunyuanVideo rows (official repo, via xDiT's docs), one token count.
    {"h100", 0.4296, 0.3437, 0.3437,
     "fit to 2 HunyuanVideo videos on H100 (official repo, xDiT docs); one workload at two sizes"},
    // 2 HunyuanVideo rows (diffusers, via xDiT's docs), one token count; the
    // scale 1.44 caps matmul at 1: the rows sustain 84% of the quoted 119.5
    // TFLOP/s over the whole forward.
    {"l20", 1.0, 0.8640, 0.8640,
     "fit to 2 HunyuanVideo videos on L20 (diffusers, xDiT docs); every row is one workload: the fit reproduces "
     "their mean and checks nothing"},
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
