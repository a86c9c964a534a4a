// Predicting published multi-GPU video latencies (the shared
// data/measurements/dit_multi_gpu_latency.csv): each row is the model's own
// pipeline on N GPUs of one node, as its reference code deploys it, priced
// with the same compiler, simulator and calibrations the planner uses.
//
// The deployed recipe (DeployedRecipe) is read from the row's `parallel`
// column and the model's reference code:
//   Wan 2.1 (generate.py, the README's multi-GPU command
//   `torchrun --nproc_per_node=N generate.py ... --dit_fsdp --t5_fsdp
//   --ulysses_size N`): the DiT under xDiT-style Ulysses (or ring, "ringN")
//   with FSDP over the same ranks; umt5-xxl under FSDP (each rank encodes the
//   same prompts with the weights gathered layer by layer); CLIP and the VAE
//   on every rank or on rank 0 alone (text2video.py / image2video.py: `if
//   self.rank == 0: videos = self.vae.decode(x0)`), i.e. one device's time;
//   `--offload_model` defaults to False when world_size > 1 (generate.py), so
//   nothing moves over the host link. A "?" (the source does not spell the
//   flags out) is read as that command, with ring where Ulysses cannot split
//   the heads (Wan 1.3B's 12 heads on 8 GPUs: the file says ring8).
//   HunyuanVideo (xDiT's docs: the official repo, Ulysses degree = GPU
//   count): the DiT under Ulysses, no FSDP; the text encoders and the tiled
//   VAE on every rank, one device's time each.
//
// A row's video:
//   steps x cfg passes x T(one DiT forward on N GPUs)
//   + sum over the pipeline's stages (zoo::StagesOf) of invocations x
//     T(the stage on one device)        [video_fit.h's single-GPU terms]
//   + FSDP text encoder: per invocation, the all-gather of its weights over
//     the N GPUs (collective model), added to its one-device compute
// where T(forward) is the deployed combination compiled by the built-in SPMD
// compiler on a 1-axis mesh of N devices and simulated (price/simulator.h)
// on the catalog's `chip:N` node under the default placement (rank order),
// with the network's calibration for that node and the compute calibration
// of `StartCalibration` for the chip (the shipped defaults unless a fit
// supplies another). Everything a single-GPU prediction charges besides the
// forward (stages) is priced exactly as video_fit.h prices it, so one row
// of one GPU and the same row on N GPUs differ only by what parallelism
// changes.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "evidence/evidence.h"
#include "fidelity/video_fit.h"
#include "search/evaluate.h"
#include "support/status.h"
#include "support/units.h"

namespace az::fidelity {

// What the model's reference code runs on the row's GPUs.
struct DeployedRecipe {
  std::string combo;               // search/combos.h: "ulysses=8,fsdp=8", "ring=8"
  bool text_encoder_fsdp = false;  // Wan's --t5_fsdp
  bool inferred = false;           // the file's '?': read as the reference command (header)
  std::string command;             // the reference command line it stands for
};

// Errors name the row's line: an unreadable `parallel`, a degree that is not
// the GPU count, a model whose deployment this file does not know.
StatusOr<DeployedRecipe> RecipeOf(const fidelity::DitLatency& row, std::string_view file_name);

// One row predicted, by part.
struct ScalingPrediction {
  DeployedRecipe recipe;
  Seconds forward;             // one DiT forward on N GPUs
  Seconds forward_compute;     // of which the kernels (the simulator's compute engine)
  Seconds forward_exposed;     // of which collectives the compute waited for
  int64_t kernels = 0, collectives = 0;  // per forward
  Seconds denoising;           // steps x passes x forward
  std::vector<std::pair<std::string, Seconds>> stages;  // pipeline order, invocations x one
  Seconds text_encoder_gathers;  // FSDP text encoder: its weights all-gathered, per video
  Seconds total;
};

// Compiled DiT forwards per (model, size, combination), kept across rows and
// chips (the evidence is placement-open and chip-free), and the single-device
// stage kernels of video_fit.h's PipelineCache.
class ScalingCache {
 public:
  StatusOr<const search::Compiled*> Forward(const fidelity::DitLatency& row, const std::string& combo);
  fidelity::PipelineCache& pipelines() { return pipelines_; }
  int compiled() const { return compiled_ + pipelines_.compiled(); }

 private:
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, std::string>, search::Compiled> forwards_;
  fidelity::PipelineCache pipelines_;
  int compiled_ = 0;
};

StatusOr<ScalingPrediction> PredictScalingRow(const fidelity::DitLatency& row, std::string_view file_name,
                                              ScalingCache& cache, const fidelity::StartCalibration& compute);

// ---------------------------------------------------------------- the joint fit
//
// A single-GPU video cannot tell the DiT's kernels from the VAE's: the VAE is
// under 1% of it, so video_fit.h fits one scale s per GPU on all three
// tensor-core efficiencies. On N GPUs the DiT's share shrinks as 1/N while
// the VAE, decoded on one rank, does not, so the multi-GPU rows tell them
// apart. The joint fit has one global parameter besides the per-GPU scales:
//   rho  the convolution efficiency relative to the documented 0.6, before
//        the GPU's scale: convolution efficiency = min(1, s x rho x 0.6)
//        (cuDNN's 3-D convolutions in eager PyTorch reach a smaller fraction
//        of the peak than the DiT's GEMMs and attention).
// For a trial rho every GPU's scale s is fitted on its single-GPU rows
// exactly as video_fit.h does (start: the documented efficiencies with the
// convolution's times rho), the multi-GPU rows are predicted with those
// calibrations (PredictScalingRow), and rho minimizes the multi-GPU rows'
// sum of log(predicted / measured)^2 (golden section over log rho in
// [log 0.02, 0], 30 steps). The single-GPU rows stay fitted in sample; the
// multi-GPU rows determine rho alone.
struct ScalingRowFit {
  fidelity::DitLatency row;
  ScalingPrediction prediction;
  double relative_error = 0;  // (predicted - measured) / measured
};

struct ScalingReport {
  double convolution_ratio = 1;   // rho; 0 from PredictScaling (nothing fitted)
  fidelity::DitFitReport single;     // the per-GPU fits under rho (or the shipped predictions)
  std::vector<ScalingRowFit> rows;  // the multi-GPU rows, in file order
  double median_abs_error = 0;      // over `rows`
};

// The documented efficiencies with the convolution's times `ratio`.
fidelity::StartCalibration ConvolutionRatioStart(double ratio);

// Fits rho and the per-GPU scales (above). `single` are the single-GPU rows,
// `multi` the multi-GPU rows (gpus >= 2) of `multi_file`. Fails when a row
// cannot be priced or a multi-GPU row's GPU has no single-GPU row to fit.
StatusOr<ScalingReport> FitScaling(const std::vector<fidelity::DitLatency>& single,
                                   const std::vector<fidelity::DitLatency>& multi, std::string_view multi_file,
                                   ScalingCache& cache);
// Out of sample: the multi-GPU rows split by a key (the GPU, or the model
// family); each group's rows are predicted with rho fitted on the other
// groups' rows (every GPU's scale still from its own single-GPU rows: what a
// user calibrates on one GPU before predicting N).
struct HeldOutGroup {
  std::string key;            // "h800", "hunyuanvideo"
  double convolution_ratio = 1;  // fitted without the group
  std::vector<ScalingRowFit> rows;  // the group's rows, predicted
  double median_abs_error = 0;
};
struct CrossValidation {
  std::string split;  // "leave one GPU out", "leave one model family out"
  std::vector<HeldOutGroup> groups;
  double median_abs_error = 0;  // over every held-out row
};
enum class Split { kGpu, kModelFamily };
StatusOr<CrossValidation> CrossValidate(const std::vector<fidelity::DitLatency>& single,
                                        const std::vector<fidelity::DitLatency>& multi, std::string_view multi_file,
                                        ScalingCache& cache, Split split);

// Every row priced with `calibration` (the shipped defaults), nothing fitted.
StatusOr<ScalingReport> PredictScaling(const std::vector<fidelity::DitLatency>& single,
                                       const std::vector<fidelity::DitLatency>& multi, std::string_view multi_file,
                                       ScalingCache& cache, const fidelity::StartCalibration& calibration);

}  // namespace az::fidelity
