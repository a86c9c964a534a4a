// Fitting the compute model (compute.h) to measurements.
//
// Two kinds of measurements:
//
// 1. Published single-GPU latencies of whole videos (the shared
//    data/measurements/dit_single_gpu_latency.csv): model, variant, gpu,
//    width, height, frames, steps, cfg_passes_per_step, seconds, and optional
//    peak_mem_GB and notes. A row is predicted as
//
//      steps * cfg_passes_per_step * T(forward)
//
//    where T(forward) is one batch-1 forward of the zoo model at the row's
//    size, compiled for one device (mesh x=1, replicated: no collectives, so
//    the simulator's latency is the sum of the kernel times) and priced with
//    the compute model. Per GPU one scale s is fitted on the tensor-core
//    efficiencies (matmul, attention, convolution each min(1, s * start)),
//    minimizing sum(log(predicted / measured)^2) over the GPU's rows by a
//    golden-section search over log s. One scale, not three efficiencies: a
//    handful of rows of two model families cannot tell the kinds apart. The
//    time is not linear in s: memory-bound kernels do not speed up with it.
//    Rows that are end to end (the file's notes say "end-to-end": the Wan rows
//    include the T5 encoder, the VAE and --offload_model) charge those costs
//    to the DiT, so a GPU fitted only on them gets low, conservative
//    efficiencies; the report marks it (DitChipFit::end_to_end_only). Rows
//    whose chip the model cannot price (no sourced bf16 peak or memory
//    bandwidth: rtx4090, l20) are reported as skipped with the reason.
//
// 2. Kernel timings (CSV: kind, flops, bytes, time_us, optional dims
//    "1x4096x4096x4096"; '#' comments). Writing the model as
//      t = overhead + max(a[kind] * X, b * Y),  X = F_eff / peak, Y = B / hbm_bw,
//    with a = 1 / efficiency and b = 1 / memory_efficiency, a row is linear in
//    the parameters once it is known whether it is compute- or memory-bound.
//    The fit alternates: classify each row under the current parameters, solve
//    the least-squares problem on relative error (rows weighted by 1 / t) with
//    efficiencies <= 1 and overhead >= 0 (active set), repeat until the
//    classification is stable. Fitted: the efficiency of every kind group with
//    compute-bound rows (matmul, attention, convolution; the other kinds share
//    vector_fraction), memory_efficiency when there are memory-bound rows, and
//    the one shared kernel_overhead. Tiles and SM counts stay as in `start`.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "evidence/evidence.h"
#include "hw/chip.h"
#include "price/compute.h"
#include "support/status.h"
#include "support/units.h"

namespace az::price {

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
  bool end_to_end = false;  // the notes say "end-to-end": other stages included
  int line = 0;             // in the file, for messages
};

// The file's names to the zoo's and the catalog's: (wan2.1, t2v-14b) ->
// wan2.1-t2v-14b, (hunyuanvideo, t2v-13b) -> hunyuanvideo-13b; H800 -> h800.
StatusOr<std::string> ZooModelName(std::string_view model, std::string_view variant);
StatusOr<std::string> CatalogChipName(std::string_view gpu);

// Malformed rows: "file:line: error: ...". Sizes are checked against the zoo.
StatusOr<std::vector<DitLatency>> ReadDitLatencies(std::string_view text, std::string_view file_name);

// One batch-1 forward per (model, width, height, frames), compiled for one
// device once and kept. Identical kernels (the blocks repeat) are grouped, so
// pricing a forward costs one ComputeModel::Time per distinct kernel.
struct DitForward {
  evidence::Evidence evidence;
  std::vector<std::pair<evidence::ComputeSegment, int64_t>> distinct;  // kernel, how many times
};

class DitEvidenceCache {
 public:
  StatusOr<const DitForward*> Get(const std::string& model, int64_t width, int64_t height, int64_t frames);
  int compiled() const { return compiled_; }

 private:
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>, DitForward> forwards_;
  int compiled_ = 0;
};

// The sum of the forward's kernel times.
Seconds ForwardTime(const ComputeModel& model, const DitForward& forward);

// The calibration the DiT fit starts from: DefaultComputeCalibration without
// the shipped fitted values (compute_defaults.cc), i.e. the documented
// tensor-core efficiencies 0.75 / 0.6 / 0.6.
ComputeCalibration UnfittedComputeCalibration(const hw::ChipSpec& chip);
// matmul, attention and convolution efficiencies each min(1, scale * start's).
ComputeCalibration ScaleTensorEfficiencies(const ComputeCalibration& start, double scale);

struct DitFitRow {
  DitLatency row;
  Seconds predicted;
  double relative_error = 0;  // (predicted - measured) / measured
};

struct DitSkippedRow {
  DitLatency row;
  std::string reason;
};

struct DitChipFit {
  std::string chip;
  ComputeCalibration calibration;  // fitted; `source` says from what
  double scale = 1;                // applied to the start's tensor-core efficiencies
  int rows = 0;
  double rms_log_error = 0;        // sqrt(mean(log(predicted / measured)^2))
  bool end_to_end_only = false;    // every row end to end: efficiencies are conservative
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

using StartCalibration = std::function<ComputeCalibration(const hw::ChipSpec&)>;

// Fails when no row can be priced or a forward does not compile.
StatusOr<DitFitReport> FitDitLatencies(const std::vector<DitLatency>& rows, DitEvidenceCache& cache,
                                       const StartCalibration& start = UnfittedComputeCalibration);

// ---------------------------------------------------------------- kernel timings

struct KernelTiming {
  cir::KernelKind kind = cir::KernelKind::kMatmul;
  Flops flops;
  Bytes bytes;
  std::vector<int64_t> dims;  // empty or 4 entries (compute.h)
  Seconds time;
  int line = 0;
};

StatusOr<std::vector<KernelTiming>> ReadKernelTimings(std::string_view text, std::string_view file_name);

struct KernelFitPoint {
  KernelTiming timing;
  Seconds predicted;
  double relative_error = 0;  // (predicted - measured) / measured
  bool memory_bound = false;
};

struct KernelFitReport {
  ComputeCalibration calibration;
  std::vector<KernelFitPoint> points;  // in input order
  // Parameter names the timings determined ("matmul_efficiency",
  // "memory_efficiency", "kernel_overhead", ...); the others keep start's.
  std::vector<std::string> fitted;
  double median_abs_error = 0;
  int iterations = 0;
};

// Fails when the chip cannot be priced, or the rows cannot determine the
// parameters (fewer rows than parameters, or rows that do not tell them apart).
StatusOr<KernelFitReport> FitKernelTimings(const hw::ChipSpec& chip, const std::vector<KernelTiming>& rows,
                                           const ComputeCalibration& start);

}  // namespace az::price
