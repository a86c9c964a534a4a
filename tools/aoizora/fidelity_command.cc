// `aoizora calibrate --dit SINGLE --multi MULTI` (the joint fit of
// fidelity/scaling.h) and `aoizora calibrate --report` (fidelity/report.h).
#include <fmt/core.h>

#include <fstream>

#include "fidelity/report.h"
#include "fidelity/scaling.h"
#include "tools/aoizora/cli.h"

namespace az::cli {

int RunCalibrateScaling(const std::string& single_file, const std::string& multi_file, bool shipped) {
  auto single_text = ReadFile(single_file);
  if (!single_text.ok()) return Fail(single_text.status());
  auto multi_text = ReadFile(multi_file);
  if (!multi_text.ok()) return Fail(multi_text.status());
  auto single = fidelity::ReadDitLatencies(*single_text, single_file);
  if (!single.ok()) return Fail(single.status());
  auto rows = fidelity::ReadDitLatencies(*multi_text, multi_file);
  if (!rows.ok()) return Fail(rows.status());
  std::vector<fidelity::DitLatency> multi;
  for (const fidelity::DitLatency& row : *rows) {
    if (row.gpus < 2) {
      return Fail(InvalidArgument(multi_file + ":" + std::to_string(row.line) +
                                  ": error: --multi rows run on 2 or more GPUs (single-GPU rows go to --dit)"));
    }
    multi.push_back(row);
  }
  fidelity::ScalingCache cache;
  auto report = shipped ? fidelity::PredictScaling(*single, multi, multi_file, cache, price::DefaultComputeCalibration)
                        : fidelity::FitScaling(*single, multi, multi_file, cache);
  if (!report.ok()) return Fail(report.status());
  if (shipped) {
    fmt::print("predicted with the shipped default calibrations\n");
  } else {
    fmt::print("joint fit: convolution efficiency ratio rho = {:.4f}; per-GPU scales on the single-GPU rows:\n",
               report->convolution_ratio);
    for (const fidelity::DitChipFit& fit : report->single.chips) {
      const price::ComputeCalibration& c = fit.calibration;
      fmt::print("  {:<7} scale {:.4f}  matmul {:.4f}  attention {:.4f}  convolution {:.4f}\n", fit.chip, fit.scale,
                 c.matmul_efficiency, c.attention_efficiency, c.convolution_efficiency);
    }
  }
  fmt::print("single-GPU rows: median |error| {:.1f}% over {}\n", 100 * report->single.median_abs_error,
             report->single.rows.size());
  fmt::print("{:>5} {:<18} {:<8} {:>4} {:<20} {:>10} {:>10} {:>7}  {}\n", "line", "model", "gpu", "gpus", "priced as",
             "measured", "predicted", "error", "breakdown");
  for (const fidelity::ScalingRowFit& r : report->rows) {
    std::string breakdown = fmt::format("{}x{} forwards {:.1f} s", r.row.steps, r.row.cfg_passes,
                                        r.prediction.denoising.value());
    for (const auto& [name, time] : r.prediction.stages) breakdown += fmt::format(" + {} {:.1f} s", name, time.value());
    if (r.prediction.text_encoder_gathers.value() > 0) {
      breakdown += fmt::format(" + FSDP gathers {:.2f} s", r.prediction.text_encoder_gathers.value());
    }
    fmt::print("{:>5} {:<18} {:<8} {:>4} {:<20} {:>8.1f} s {:>8.1f} s {:>6.1f}%  {}\n", r.row.line, r.row.model,
               r.row.gpu, r.row.gpus, r.prediction.recipe.combo, r.row.measured.value(), r.prediction.total.value(),
               100 * r.relative_error, breakdown);
  }
  fmt::print("multi-GPU rows: median |error| {:.1f}% over {}\n", 100 * report->median_abs_error, report->rows.size());
  return 0;
}

int RunCalibrateReport(const std::string& data, const std::string& out) {
  auto report = fidelity::MakeFidelityReport(data);
  if (!report.ok()) return Fail(report.status());
  if (out.empty()) {
    fmt::print("{}", report->markdown);
    return 0;
  }
  std::ofstream file(out);
  file << report->markdown;
  if (!file) return Fail(InvalidArgument("cannot write '" + out + "'"));
  for (const fidelity::FileFidelity& f : report->files) {
    if (f.rows == 0) {
      fmt::print("{:<42} {}\n", f.file, f.note);
      continue;
    }
    fmt::print("{:<42} {:>3} rows  median |error| {:>5.1f}%  max {:>5.1f}%\n", f.file, f.rows, 100 * f.median_abs_error,
               100 * f.max_abs_error);
  }
  fmt::print("wrote {}\n", out);
  return 0;
}

}  // namespace az::cli
