// The fitted compute calibrations shipped as defaults (see compute.h).
//
// The tensor-core efficiencies below are what the joint fit of the published
// single- and multi-GPU videos gives (fidelity/scaling.h):
//
//   aoizora calibrate --dit ../shared/data/measurements/dit_single_gpu_latency.csv
//       --multi ../shared/data/measurements/dit_multi_gpu_latency.csv
//
// one scale s per GPU on the documented 0.75 / 0.6 / 0.6 x rho, fitted on the
// GPU's single-GPU rows (least squares on log error, fidelity/video_fit.h), and one
// global convolution ratio rho = 0.1607 fitted on the 28 multi-GPU rows, where
// the VAE decoded on one rank stops being negligible; rounded to 4 significant
// digits. fidelity/scaling_test.cc refits them from the files and checks they
// agree, so a change to the zoo, the compiler or the model that moves the fit
// shows up as a failing test, to be answered by refitting and updating this
// table (docs/compute-model.md has the procedure; docs/fidelity.md every row).
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
// stages, the recipe's host transfers: fidelity/video_fit.h).
constexpr FittedEfficiencies kFitted[] = {
    // 2 Wan2.1 14B rows (t2v, i2v) at 1280x720x81, --offload_model True.
    {"h800", 0.4480, 0.3584, 0.05760, "fit to 2 Wan2.1-14B videos on H800 (Wan2.1 README)"},
    // 2 Wan2.1 14B rows, --offload_model True.
    {"a800", 0.7755, 0.6204, 0.09969, "fit to 2 Wan2.1-14B videos on A800 (Wan2.1 README)"},
    // 2 Wan2.1 14B rows and 2 HunyuanVideo rows (official repo).
    {"h20", 0.7926, 0.6341, 0.1019, "fit to 2 Wan2.1-14B (Wan2.1 README) and 2 HunyuanVideo videos on H20 (xDiT docs)"},
    // 1 Wan2.1 1.3B row at 832x480x81, --offload_model True --t5_cpu.
    {"rtx4090", 0.9695, 0.7756, 0.1247,
     "fit to 1 Wan2.1-1.3B video on RTX 4090 (Wan2.1 README); one row: the fit reproduces it by construction and "
     "checks nothing; its T5 ran on the host CPU, whose time the fit charges to the GPU: conservative (low) "
     "efficiencies"},
    // 2 HunyuanVideo rows (official repo, via xDiT's docs), one token count.
    {"h100", 0.4461, 0.3569, 0.05736,
     "fit to 2 HunyuanVideo videos on H100 (official repo, xDiT docs); one workload at two sizes"},
    // 2 HunyuanVideo rows (diffusers, via xDiT's docs), one token count; the
    // scale 1.50 caps matmul at 1: the rows run faster than the documented
    // matmul/attention ratio allows at the quoted 119.5 TFLOP/s.
    {"l20", 1.0, 0.9012, 0.1448,
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
    std::string source = "aoizora calibrate --dit dit_single_gpu_latency.csv --multi dit_multi_gpu_latency.csv: " +
                         std::string(f.source) + "; convolution x rho = 0.1607 from the multi-GPU videos";
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
