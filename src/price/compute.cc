#include "price/compute.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace az::price {

namespace {

int64_t RoundUp(int64_t value, int64_t multiple) {
  if (multiple <= 1 || value <= 0) return std::max<int64_t>(value, 0);
  return (value + multiple - 1) / multiple * multiple;
}

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }

// padded / exact as a double; 1 when the exact product is 0.
double Ratio(const std::vector<double>& padded, const std::vector<double>& exact) {
  double p = 1, e = 1;
  for (double v : padded) p *= v;
  for (double v : exact) e *= v;
  return e > 0 ? p / e : 1.0;
}

}  // namespace

ComputeCalibration DefaultComputeCalibration(const hw::ChipSpec& chip) {
  ComputeCalibration c;
  c.chip = chip.name;
  if (chip.family == hw::ChipFamily::kTpu) {
    c.mxu = chip.mxu;  // the catalog's systolic array side (hw/chip.h)
    c.tile_m = 128;  // the splash-attention block
    c.sms = 0;
    c.kernel_overhead = Seconds(2e-6);
    c.source = "documented defaults, not calibrated (no public TPU kernel timings in ../shared/data)";
  } else {
    // Hopper / Ampere tensor-core CTA tiles 128x128 with k steps of 64 (CUTLASS
    // and FlashAttention defaults); wave quantization over the SMs.
    c.sms = chip.sm_count;
    // H100 bf16: 133.8 TFLOP/s on CUDA cores vs 989.4 on tensor cores (glennklockwood.com).
    c.vector_fraction = 133.8 / 989.4;
  }
  // The shipped fit, where the catalog has one (hw/chip.cc: fitted to the
  // published videos, inherited by a measured chip's silicon twin).
  const hw::FittedCompute& fitted = chip.fitted_compute;
  if (fitted.matmul > 0) {
    c.matmul_efficiency = fitted.matmul;
    c.attention_efficiency = fitted.attention;
    c.convolution_efficiency = fitted.convolution;
    c.source = fitted.source;
  }
  return c;
}

StatusOr<ComputeModel> ComputeModel::Create(const hw::ChipSpec& chip, ComputeCalibration c) {
  if (chip.bf16.value() <= 0) {
    return InvalidArgument("chip '" + chip.name + "' has no sourced bf16 peak; the compute model cannot price it");
  }
  if (chip.hbm_bw.value() <= 0) {
    return InvalidArgument("chip '" + chip.name +
                           "' has no sourced memory bandwidth; the compute model cannot price it");
  }
  auto fraction = [](double v) { return v > 0 && v <= 1; };
  if (!fraction(c.matmul_efficiency) || !fraction(c.attention_efficiency) || !fraction(c.convolution_efficiency) ||
      !fraction(c.vector_fraction) || !fraction(c.memory_efficiency)) {
    return InvalidArgument("compute calibration: efficiencies and fractions must lie in (0, 1]");
  }
  if (c.kernel_overhead.value() < 0 || c.mxu < 0 || c.tile_m < 1 || c.tile_n < 1 || c.tile_k < 1 || c.sms < 0) {
    return InvalidArgument("compute calibration: tiles must be positive, overhead and SM count non-negative");
  }
  return ComputeModel(chip.bf16, chip.hbm_bw, chip.family == hw::ChipFamily::kTpu, std::move(c));
}

double ComputeModel::Efficiency(cir::KernelKind kind) const {
  switch (kind) {
    case cir::KernelKind::kMatmul: return calibration_.matmul_efficiency;
    case cir::KernelKind::kAttention: return calibration_.attention_efficiency;
    case cir::KernelKind::kConvolution: return calibration_.convolution_efficiency;
    default: return calibration_.vector_fraction;
  }
}

double ComputeModel::Padding(cir::KernelKind kind, const std::vector<int64_t>& dims) const {
  if (dims.size() != 4) return 1.0;
  const ComputeCalibration& c = calibration_;
  double batch = static_cast<double>(dims[0]);
  int64_t a = dims[1], b = dims[2], d = dims[3];
  if (kind == cir::KernelKind::kMatmul || kind == cir::KernelKind::kConvolution) {
    // {batch, m, n, k}
    if (tpu_) {
      int64_t mxu = std::max<int64_t>(c.mxu, 1);
      return Ratio({static_cast<double>(RoundUp(a, 8)), static_cast<double>(RoundUp(b, mxu)),
                    static_cast<double>(RoundUp(d, mxu))},
                   {static_cast<double>(a), static_cast<double>(b), static_cast<double>(d)});
    }
    double pad = Ratio({static_cast<double>(RoundUp(a, c.tile_m)), static_cast<double>(RoundUp(b, c.tile_n)),
                        static_cast<double>(RoundUp(d, c.tile_k))},
                       {static_cast<double>(a), static_cast<double>(b), static_cast<double>(d)});
    if (c.sms > 0) {
      double tiles = batch * static_cast<double>(CeilDiv(a, c.tile_m)) * static_cast<double>(CeilDiv(b, c.tile_n));
      if (tiles > 0) {
        double waves = std::ceil(tiles / static_cast<double>(c.sms));
        pad *= waves * static_cast<double>(c.sms) / tiles;
      }
    }
    return pad;
  }
  if (kind == cir::KernelKind::kAttention) {
    // {batch*heads, q, kv, head dim}
    int64_t block = std::max<int64_t>(c.tile_m, 1);
    int64_t dim_step = tpu_ ? std::max<int64_t>(c.mxu, 1) : c.tile_k;
    double pad = Ratio({static_cast<double>(RoundUp(a, block)), static_cast<double>(RoundUp(b, block)),
                        static_cast<double>(RoundUp(d, dim_step))},
                       {static_cast<double>(a), static_cast<double>(b), static_cast<double>(d)});
    if (!tpu_ && c.sms > 0) {
      double tiles = batch * static_cast<double>(CeilDiv(a, block));
      if (tiles > 0) {
        double waves = std::ceil(tiles / static_cast<double>(c.sms));
        pad *= waves * static_cast<double>(c.sms) / tiles;
      }
    }
    return pad;
  }
  return 1.0;
}

FlopRate ComputeModel::Rate(cir::KernelKind kind, pir::DType precision) const {
  const double efficiency = Efficiency(kind);
  const bool wide = precision == pir::DType::kF32 || precision == pir::DType::kF64;
  const bool matrix = kind == cir::KernelKind::kMatmul || kind == cir::KernelKind::kAttention ||
                      kind == cir::KernelKind::kConvolution;
  if (!wide || !matrix || tpu_) return FlopRate(peak_.value() * efficiency);
  if (kind == cir::KernelKind::kConvolution) return FlopRate(peak_.value() / 2 * efficiency);  // TF32
  return FlopRate(peak_.value() * calibration_.vector_fraction / 2 * efficiency);          // CUDA cores
}

KernelTime ComputeModel::Time(cir::KernelKind kind, Flops flops, Bytes bytes, const std::vector<int64_t>& dims,
                              pir::DType precision) const {
  KernelTime t;
  t.padding = Padding(kind, dims);
  double effective = static_cast<double>(flops.value()) * t.padding;
  t.compute_time = Seconds(effective / Rate(kind, precision).value());
  t.memory_time = Seconds(static_cast<double>(bytes.value()) / (hbm_bw_.value() * calibration_.memory_efficiency));
  t.memory_bound = t.memory_time.value() > t.compute_time.value();
  t.time = Seconds(calibration_.kernel_overhead.value() + std::max(t.compute_time.value(), t.memory_time.value()));
  return t;
}

KernelTime ComputeModel::Time(const evidence::ComputeSegment& segment) const {
  return Time(segment.kind, segment.flops, segment.bytes, segment.dims, segment.precision);
}

std::string ComputeCalibrationToJson(const ComputeCalibration& c) {
  nlohmann::ordered_json j;
  j["chip"] = c.chip;
  j["source"] = c.source;
  j["matmul_efficiency"] = c.matmul_efficiency;
  j["attention_efficiency"] = c.attention_efficiency;
  j["convolution_efficiency"] = c.convolution_efficiency;
  j["vector_fraction"] = c.vector_fraction;
  j["memory_efficiency"] = c.memory_efficiency;
  j["kernel_overhead_us"] = c.kernel_overhead.value() * 1e6;
  j["mxu"] = c.mxu;
  j["tile_m"] = c.tile_m;
  j["tile_n"] = c.tile_n;
  j["tile_k"] = c.tile_k;
  j["sms"] = c.sms;
  return j.dump(1);
}

StatusOr<ComputeCalibration> ComputeCalibrationFromJson(std::string_view text, std::string_view file_name,
                                                        const ComputeCalibration& start) {
  std::string where(file_name);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return ParseError(where + ": not valid JSON");
  if (!j.is_object()) return ParseError(where + ": compute: expected an object");
  ComputeCalibration c = start;
  auto fail = [&](const std::string& key, const std::string& what) {
    return ParseError(where + ": compute." + key + ": " + what);
  };
  for (const auto& [key, value] : j.items()) {
    if (key == "chip" || key == "source") {
      if (!value.is_string()) return fail(key, "expected a string");
      (key == "chip" ? c.chip : c.source) = value.get<std::string>();
      continue;
    }
    double* fraction = key == "matmul_efficiency"        ? &c.matmul_efficiency
                       : key == "attention_efficiency"   ? &c.attention_efficiency
                       : key == "convolution_efficiency" ? &c.convolution_efficiency
                       : key == "vector_fraction"        ? &c.vector_fraction
                       : key == "memory_efficiency"      ? &c.memory_efficiency
                                                         : nullptr;
    if (fraction) {
      if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > 1) {
        return fail(key, "expected a number in (0, 1]");
      }
      *fraction = value.get<double>();
      continue;
    }
    if (key == "kernel_overhead_us") {
      if (!value.is_number() || !(value.get<double>() >= 0) || value.get<double>() > 1e6) {
        return fail(key, "expected a number of microseconds in [0, 1e6]");
      }
      c.kernel_overhead = Seconds(value.get<double>() * 1e-6);
      continue;
    }
    int64_t* integer = key == "mxu"      ? &c.mxu
                       : key == "tile_m" ? &c.tile_m
                       : key == "tile_n" ? &c.tile_n
                       : key == "tile_k" ? &c.tile_k
                       : key == "sms"    ? &c.sms
                                         : nullptr;
    if (integer) {
      bool may_be_zero = key == "mxu" || key == "sms";
      if (!value.is_number_integer() || value.get<int64_t>() < (may_be_zero ? 0 : 1) ||
          value.get<int64_t>() > 65536) {
        return fail(key, may_be_zero ? "expected an integer in [0, 65536]" : "expected an integer in [1, 65536]");
      }
      *integer = value.get<int64_t>();
      continue;
    }
    return fail(key, "unknown key");
  }
  return c;
}

}  // namespace az::price
