// Predicting and fitting published latencies of whole videos: every stage of
// a model's pipeline compiled for one device from the zoo and priced with the
// compute model (price/compute.h). Here, above the planner, because it
// compiles graphs; the kernel-timing fit it sits beside is price/compute_fit.h.
//
// Published single-GPU latencies of whole videos (the shared
// data/measurements/dit_single_gpu_latency.csv): model, variant, gpu,
// width, height, frames, steps, cfg_passes_per_step, seconds, and optional
// peak_mem_GB and notes. Every row is a whole video as the model's own
// pipeline makes it (the Wan rows say "end-to-end"; the HunyuanVideo rows
// time the official repo's, or diffusers', whole predict call), so a row is
// predicted as that pipeline on one device:
//
//   steps * cfg_passes_per_step * T(one batch-1 DiT forward)
//   + sum over the pipeline's other stages (zoo::StagesOf: text and image
//     encoders, VAE encoder and decoder) of invocations * T(stage)
//   + the weights the run's recipe moves over the host link
//
// where every T is the graph compiled for one device (mesh x=1, template
// replicated: no collectives, so the step simulator's latency is the sum of
// the kernel times) and priced with the compute model, and the recipe is
// read from the notes, as the reference code runs it (Wan2.1
// wan/text2video.py, wan/image2video.py; one generate() call after the
// pipeline is built):
//   "--offload_model True"  the text encoder is built on the host and moved
//                           to the GPU for the prompts and back (its weights
//                           twice over the link); the CLIP image encoder,
//                           built on the GPU, goes back to the host after
//                           its one call (once); the DiT goes to the host
//                           before the VAE decodes (once) and, for I2V
//                           (init_on_cpu=True), comes from it before the
//                           first step (once more). The VAE stays resident.
//   "--t5_cpu"              the text encoder runs on the host CPU, which the
//                           source does not name and the model cannot
//                           price: the row lists it as not priced (its
//                           prediction is short by that time, and its GPU's
//                           fit absorbs it: conservative efficiencies).
//   neither                 every stage resident, nothing moved (the
//                           HunyuanVideo rows: "official repo", "diffusers").
// Transfers run at hw::HostLinkBandwidth, the link's line rate: PyTorch's
// copies from pageable host memory reach less, so they are a lower bound;
// they are under 0.1% of every Wan row.
//
// Per GPU one scale s is fitted on the tensor-core efficiencies (matmul,
// attention, convolution each min(1, s * start)), minimizing
// sum(log(predicted / measured)^2) over the GPU's rows by a golden-section
// search over log s. One scale, not three efficiencies: a handful of rows of
// two model families cannot tell the kinds apart. The time is not linear in
// s: memory-bound kernels and transfers do not speed up with it. A GPU with
// a single row (or rows of one workload) is fitted exactly by construction:
// the report says so (DitChipFit::note). Rows whose chip the model cannot
// price are reported as skipped with the reason.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "evidence/evidence.h"
#include "frontend/zoo/stages.h"
#include "hw/chip.h"
#include "price/compute.h"
#include "price/compute_fit.h"
#include "support/status.h"
#include "support/units.h"

namespace az::fidelity {

// ---------------------------------------------------------------- DiT latencies

struct DitLatency {
  std::string model;  // zoo name: "wan2.1-t2v-14b"
  std::string gpu;    // as the file spells it: "H800"
  std::string chip;   // catalog name: "h800"
  int64_t width = 0, height = 0, frames = 0;
  int64_t steps = 0;
  int64_t cfg_passes = 1;  // forwards per denoising step
  Seconds measured;        // the whole video
  std::string notes;
  bool offload_model = false;        // the notes say "--offload_model True"
  bool text_encoder_on_cpu = false;  // the notes say "--t5_cpu"
  // Multi-GPU rows (data/measurements/dit_multi_gpu_latency.csv): the GPU
  // count and the parallelism as the file spells it ("ulysses8+fsdp?",
  // "ring8", "?": a '?' marks what the source does not spell out). A file
  // without the columns is single-GPU: 1 and "".
  int64_t gpus = 1;
  std::string parallel;
  int line = 0;  // in the file, for messages
};

// The file's names to the zoo's and the catalog's: (wan2.1, t2v-14b) ->
// wan2.1-t2v-14b, (hunyuanvideo, t2v-13b) -> hunyuanvideo-13b; H800 -> h800.
StatusOr<std::string> ZooModelName(std::string_view model, std::string_view variant);
StatusOr<std::string> CatalogChipName(std::string_view gpu);

// Malformed rows: "file:line: error: ...". Sizes are checked against the zoo;
// `gpus` (optional) is an integer in [1, 64], `parallel` (optional) free text
// the multi-GPU predictor reads (fidelity/scaling.h).
StatusOr<std::vector<DitLatency>> ReadDitLatencies(std::string_view text, std::string_view file_name);

// One graph compiled for one device, its kernels grouped: identical kernels
// (the blocks repeat) are priced once and multiplied.
struct KernelMix {
  std::vector<std::pair<evidence::ComputeSegment, int64_t>> distinct;  // kernel, how many times
  int64_t parameter_bytes = 0;                                         // the graph's weights
};

// The sum of the mix's kernel times.
Seconds MixTime(const price::ComputeModel& model, const KernelMix& mix);

// Everything one row's video runs, each graph compiled for one device.
struct VideoPipeline {
  KernelMix forward;  // one batch-1 DiT forward
  struct Stage {
    std::string name;  // "umt5-xxl"
    zoo::StageKind kind = zoo::StageKind::kTextEncoder;
    int64_t invocations = 1;  // per video
    KernelMix kernels;        // one invocation
  };
  std::vector<Stage> stages;  // zoo::StagesOf, in pipeline order
};

// Pipelines per (model, width, height, frames, CFG passes), compiled once and
// kept; the CFG passes decide the text encoders' invocations (the negative
// prompt under two-pass CFG).
class PipelineCache {
 public:
  StatusOr<const VideoPipeline*> Get(const std::string& model, int64_t width, int64_t height, int64_t frames,
                                     int64_t cfg_passes);
  StatusOr<const VideoPipeline*> Get(const DitLatency& row) {
    return Get(row.model, row.width, row.height, row.frames, row.cfg_passes);
  }
  int compiled() const { return compiled_; }  // graphs compiled so far

 private:
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, VideoPipeline> pipelines_;
  int compiled_ = 0;
};

// A row's predicted video, by part (the header's formula).
struct DitPrediction {
  Seconds forward;    // one DiT forward
  Seconds denoising;  // steps x passes x forward
  std::vector<std::pair<std::string, Seconds>> stages;  // priced stages: invocations x one, pipeline order
  Seconds host_transfers;               // the recipe's weight moves
  std::vector<std::string> not_priced;  // "umt5-xxl on the host CPU (--t5_cpu)"
  Seconds total;
};

DitPrediction PredictDitRow(const price::ComputeModel& model, const DitLatency& row, const VideoPipeline& pipeline);


struct DitFitRow {
  DitLatency row;
  DitPrediction prediction;
  Seconds predicted;          // prediction.total
  double relative_error = 0;  // (predicted - measured) / measured
};

struct DitSkippedRow {
  DitLatency row;
  std::string reason;
};

struct DitChipFit {
  std::string chip;
  price::ComputeCalibration calibration;  // fitted; `source` says from what
  double scale = 1;                // applied to the start's tensor-core efficiencies
  int rows = 0;
  double rms_log_error = 0;        // sqrt(mean(log(predicted / measured)^2))
  // Every row of one workload (model and token count): one scale fits them
  // exactly up to their spread, so the fit checks nothing.
  bool one_workload = false;
  bool absorbs_unpriced = false;   // a row leaves a stage unpriced (--t5_cpu)
  std::string note;                // one sentence on the two flags above; empty when neither
  // Non-empty when the search ended at a limit: the rows are faster than the
  // chip's peak allows (every efficiency capped at 1), or 100x slower than the
  // documented defaults. The figures are then not an efficiency.
  std::string warning;
};

struct DitFitReport {
  std::vector<DitFitRow> rows;         // priced rows, in file order
  std::vector<DitSkippedRow> skipped;  // rows of chips the model cannot price, in file order
  std::vector<DitChipFit> chips;       // in order of first appearance
  double median_abs_error = 0;         // median |relative error| over the priced rows
};

using StartCalibration = std::function<price::ComputeCalibration(const hw::ChipSpec&)>;

// Fails when no row can be priced or a graph does not compile.
StatusOr<DitFitReport> FitDitLatencies(const std::vector<DitLatency>& rows, PipelineCache& cache,
                                       const StartCalibration& start = price::UnfittedComputeCalibration);

// Every row priced with `calibration` (price::DefaultComputeCalibration: the shipped
// defaults) and no fit; `chips` is empty. Fails as FitDitLatencies.
StatusOr<DitFitReport> PredictDitLatencies(const std::vector<DitLatency>& rows, PipelineCache& cache,
                                           const StartCalibration& calibration);

}  // namespace az::fidelity
