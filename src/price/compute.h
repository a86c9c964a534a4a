// The compute model: the time one kernel of the evidence takes on one chip.
//
// A roofline with shape-dependent efficiency. For a kernel with FLOPs F, bytes
// B (read + written) and, for matrix-unit kernels, problem dims (evidence
// ComputeSegment::dims):
//
//   t = overhead + max(F_eff / (peak * efficiency[kind]), B / (hbm_bw * memory_efficiency))
//
// where peak is the chip's dense bf16 rate, hbm_bw its memory bandwidth, and
// F_eff the FLOPs the matrix units actually spend:
//
//   matmul / convolution {batch, m, n, k}:
//     TPU (MXU systolic arrays of mxu x mxu): k and n are padded to multiples of
//       the array size (the weights tile it), m to a multiple of 8 (sublanes);
//       F_eff = F * padded(m n k) / (m n k).
//     GPU (tensor-core CTA tiles tile_m x tile_n, k in steps of tile_k): m, n, k
//       padded to their tiles, then wave quantization over the SMs: the
//       batch * ceil(m/tile_m) * ceil(n/tile_n) tiles run in
//       ceil(tiles / SMs) waves, each as long as a full one:
//       F_eff = F * padded / exact * waves * SMs / tiles.
//   attention {batch*heads, q, kv, head dim} (flash / splash style):
//     query and kv lengths padded to the block (tile_m), head dim to tile_k (GPU)
//     or the MXU (TPU); GPU work tiles are batch*heads * ceil(q / tile_m), waves
//     over the SMs as above.
//   other kernels (element-wise, norm, reduce, copy, custom): no matrix units;
//     F_eff = F, at vector_fraction of the bf16 peak (CUDA cores / the VPU),
//     so they are almost always bound by memory.
//
// A kernel without dims (an importer that could not tell) gets the plain
// roofline with its kind's efficiency.
//
// Precision. `peak` above is the rate for the element type the matrix units
// read (evidence ComputeSegment::precision), times the kind's efficiency:
//   bf16, f16, fp8      the dense bf16 peak (fp8 is not priced faster: no
//                       zoo model or importer path runs fp8 matmuls today).
//   f32 on a TPU        the bf16 peak: XLA's default precision multiplies f32
//                       operands on the MXU in one bf16 pass
//                       (jax.lax.Precision.DEFAULT).
//   f32 convolution     TF32 tensor cores: cuDNN takes them for f32 convolutions
//     on a GPU          unless told not to (PyTorch's torch.backends.cudnn.
//                       allow_tf32 defaults to True); dense TF32 is half the
//                       dense bf16 rate on every NVIDIA tensor core since
//                       Ampere (A100 156 / 312, H100 SXM 494.7 / 989.4, L40S
//                       183 / 362, RTX 4090 82.6 / 165.2 TFLOP/s, the
//                       vendors' datasheets).
//   f32 matmul and      CUDA cores: PyTorch keeps f32 matmuls off TF32 by
//     attention on a    default (torch.backends.cuda.matmul.allow_tf32 is
//     GPU               False since 1.12); f32 FMAs run at half the packed
//                       bf16 rate vector_fraction describes, so the rate is
//                       vector_fraction / 2 of the peak (H100: 66.9 of 989.4).
// An XLA program's f32 dot on a GPU runs as TF32 by default; one imported
// from HLO is priced as PyTorch would run it (CUDA cores), an approximation
// no shipped path exercises (the imported DiTs are bf16).
//
// The parameters are calibration parameters (ComputeCalibration), with
// documented defaults per chip family (DefaultComputeCalibration) and fitted
// values where public measurements exist (price/compute_fit.h for kernel
// timings, fidelity/video_fit.h for whole videos). A chip whose
// peak or memory bandwidth is not sourced cannot be priced: ComputeModel::Create
// says so instead of inventing a figure.
#pragma once

#include <string>

#include "evidence/evidence.h"
#include "hw/chip.h"
#include "support/status.h"
#include "support/units.h"

namespace az::price {

struct ComputeCalibration {
  std::string chip;    // catalog name the figures are for ("" = any)
  std::string source = "documented defaults (docs/pricing.md)";
  // Fraction of the dense bf16 peak a perfectly tiled kernel of each kind sustains.
  double matmul_efficiency = 0.75;
  double attention_efficiency = 0.6;
  double convolution_efficiency = 0.6;
  // Fraction of the peak the vector units give non-matrix kernels.
  double vector_fraction = 0.1;
  // Fraction of the HBM bandwidth memory-bound kernels reach.
  double memory_efficiency = 0.8;
  // Fixed cost of every kernel (launch, pipeline fill).
  Seconds kernel_overhead = Seconds(5e-6);
  // Tiling. TPU: mxu = the systolic array's side. GPU: CTA tile m x n, k step,
  // and the SM count for wave quantization (0 = no wave quantization).
  int64_t mxu = 0;
  int64_t tile_m = 128, tile_n = 128, tile_k = 64;
  int64_t sms = 0;
};

// Defaults for a chip: TPUs get the catalog's MXU side (128 on v4/v5e/v5p,
// 256 on v6e), GPUs tensor-core tiles and their SM count; the catalog's fitted
// efficiencies where the shipped fit covers the chip (hw::ChipSpec::
// fitted_compute: fitted by fidelity/video_fit.h and fidelity/scaling.h,
// whose test refits them from the public measurements and checks they agree).
ComputeCalibration DefaultComputeCalibration(const hw::ChipSpec& chip);

std::string ComputeCalibrationToJson(const ComputeCalibration& c);
// Reads the object written above; a key that is absent keeps `start`'s value.
// Errors name the key ("compute.tile_m: expected a positive integer").
StatusOr<ComputeCalibration> ComputeCalibrationFromJson(std::string_view text, std::string_view file_name,
                                                        const ComputeCalibration& start);

struct KernelTime {
  Seconds time;
  Seconds compute_time;  // F_eff / (peak * efficiency)
  Seconds memory_time;   // B / (hbm_bw * memory_efficiency)
  double padding = 1.0;  // F_eff / F (tile padding and wave quantization)
  bool memory_bound = false;
};

class ComputeModel {
 public:
  // Fails when the chip lacks a sourced bf16 peak or memory bandwidth, or the
  // calibration is out of range (efficiencies in (0, 1], positive tiles).
  static StatusOr<ComputeModel> Create(const hw::ChipSpec& chip, ComputeCalibration calibration);

  KernelTime Time(const evidence::ComputeSegment& segment) const;
  // The same from raw figures (kernel-timing fits, tests).
  KernelTime Time(cir::KernelKind kind, Flops flops, Bytes bytes, const std::vector<int64_t>& dims,
                  pir::DType precision = pir::DType::kBF16) const;
  // The rate a kernel of `kind` reading `precision` runs at, efficiency
  // included (the header's Precision paragraph).
  FlopRate Rate(cir::KernelKind kind, pir::DType precision) const;

  const ComputeCalibration& calibration() const { return calibration_; }
  FlopRate peak() const { return peak_; }
  Bandwidth hbm_bandwidth() const { return hbm_bw_; }

 private:
  ComputeModel(FlopRate peak, Bandwidth hbm_bw, bool tpu, ComputeCalibration c)
      : peak_(peak), hbm_bw_(hbm_bw), tpu_(tpu), calibration_(std::move(c)) {}
  double Padding(cir::KernelKind kind, const std::vector<int64_t>& dims) const;
  double Efficiency(cir::KernelKind kind) const;

  FlopRate peak_;
  Bandwidth hbm_bw_;
  bool tpu_ = false;
  ComputeCalibration calibration_;
};

}  // namespace az::price
