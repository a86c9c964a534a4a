// The compute model against 105 real H200 kernel timings
// (tests/data/device/kernels_h200.csv; tests/data/device/README.md says how
// they were measured): bf16 matmuls at Wan 2.1 shapes, cuDNN flash attention
// through SDPA, the patch-embedding convolution, and memory-bound kernels.
//
// Two calibrations are checked, each by its median |relative error| over the
// file and per kernel kind, so a change to the compute model (compute.h) or
// the shipped defaults (hw/chip.cc: fitted_compute) that moves these predictions
// shows here:
//   * the shipped default for h200 (h100's DiT-latency fit, inherited:
//     matmul 0.4461, attention 0.3569, convolution 0.05736: the joint fit of
//     fidelity/scaling.h);
//   * the fit to the file itself (`aoizora calibrate --kernels FILE --chip
//     h200`, compute_fit.h), started from that default.
// The bounds are the measured figures rounded up by a small margin (noted at
// each), not targets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "price/compute.h"
#include "price/compute_fit.h"
#include "price/stack.h"
#include "support/test_files.h"

namespace az::price {
namespace {

std::string KernelFile() {
#ifdef AZ_SOURCE_DIR
  return std::string(AZ_SOURCE_DIR) + "/tests/data/device/kernels_h200.csv";
#else
  return "tests/data/device/kernels_h200.csv";
#endif
}

const hw::ChipSpec& H200() {
  auto chip = hw::FindChip("h200");
  AZ_CHECK(chip.ok());
  return **chip;
}

std::vector<KernelTiming> Rows() {
  std::string text = testing::ReadTextFile(KernelFile());
  auto rows = ReadKernelTimings(text, KernelFile());
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? *rows : std::vector<KernelTiming>{};
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// |relative error| per row, overall and per kind name.
struct Errors {
  std::vector<double> all;
  int over_predicted_tensor = 0;  // matmul and attention rows predicted slower than measured
  std::map<std::string, std::vector<double>> by_kind;
  double Median() const { return price::Median(all); }
  double MedianOf(const std::string& kind) const {
    auto it = by_kind.find(kind);
    return it == by_kind.end() ? -1 : price::Median(it->second);
  }
};

Errors Predict(const ComputeCalibration& calibration, const std::vector<KernelTiming>& rows) {
  auto model = ComputeModel::Create(H200(), calibration);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  Errors e;
  if (!model.ok()) return e;
  for (const KernelTiming& row : rows) {
    double predicted = model->Time(row.kind, row.flops, row.bytes, row.dims).time.value();
    double error = std::abs(predicted - row.time.value()) / row.time.value();
    e.all.push_back(error);
    bool tensor = row.kind == cir::KernelKind::kMatmul || row.kind == cir::KernelKind::kAttention;
    if (tensor && predicted > row.time.value()) ++e.over_predicted_tensor;
    e.by_kind[std::string(cir::KernelKindName(row.kind))].push_back(error);
  }
  return e;
}

void Print(const char* name, const Errors& e) {
  std::printf("%-8s median |error| %5.1f%%", name, 100 * e.Median());
  for (const auto& [kind, errors] : e.by_kind) {
    std::printf("  %s %zu: median %.1f%% max %.1f%%", kind.c_str(), errors.size(), 100 * price::Median(errors),
                100 * *std::max_element(errors.begin(), errors.end()));
  }
  std::printf("  over-predicted matmul/attention rows: %d\n", e.over_predicted_tensor);
}

TEST(H200Kernels, FileHoldsTheMeasuredKinds) {
  std::vector<KernelTiming> rows = Rows();
  ASSERT_EQ(rows.size(), 105u);  // 105 of 105 rows in tests/data/device/log.txt
  std::map<cir::KernelKind, int> kinds;
  for (const KernelTiming& row : rows) ++kinds[row.kind];
  // `cut -d, -f1 kernels_h200.csv | sort | uniq -c`.
  EXPECT_EQ(kinds[cir::KernelKind::kMatmul], 46);
  EXPECT_EQ(kinds[cir::KernelKind::kAttention], 22);
  EXPECT_EQ(kinds[cir::KernelKind::kConvolution], 2);
  EXPECT_EQ(kinds[cir::KernelKind::kElementwise], 20);
  EXPECT_EQ(kinds[cir::KernelKind::kNorm], 10);
  EXPECT_EQ(kinds[cir::KernelKind::kCopy], 5);
}

TEST(H200Kernels, ShippedDefaultIsSlowOnTensorCores) {
  // The shipped h200 calibration is h100's video-latency fit (hw/chip.cc fitted_compute:
  // matmul 0.4461, attention 0.3569 of the 989 TFLOP/s peak), fitted to two
  // whole-video HunyuanVideo runs on another chip (and the multi-GPU rows).
  // Against real H200 kernels it predicts tensor-core kernels about 1.6x too
  // slow: median |error| over the file 58.3% (matmul 63.6%, attention 63.8%),
  // and all 68 matmul and attention rows are predicted slower than measured.
  // The memory-bound kinds, which its efficiencies do not touch, are 10.5%
  // (elementwise) and 15.6% (norm). Bounds: the measured medians +- 3 points
  // (63.8%, 69.8% and 70.1% before the joint fit moved matmul and attention
  // up by 4%).
  std::vector<KernelTiming> rows = Rows();
  ComputeCalibration calibration = DefaultComputeCalibration(H200());
  EXPECT_NEAR(calibration.matmul_efficiency, 0.4461, 1e-9);
  EXPECT_NEAR(calibration.attention_efficiency, 0.3569, 1e-9);
  Errors e = Predict(calibration, rows);
  Print("default", e);
  EXPECT_NEAR(e.Median(), 0.583, 0.03);
  EXPECT_NEAR(e.MedianOf("matmul"), 0.636, 0.03);
  EXPECT_NEAR(e.MedianOf("attention"), 0.638, 0.03);
  EXPECT_NEAR(e.MedianOf("elementwise"), 0.105, 0.03);
  EXPECT_NEAR(e.MedianOf("norm"), 0.156, 0.03);
  EXPECT_EQ(e.over_predicted_tensor, 68);  // of 68 matmul + attention rows
}

TEST(H200Kernels, KernelFitPredictsWithinSevenPercentMedian) {
  // `aoizora calibrate --kernels kernels_h200.csv --chip h200`, started from
  // the shipped default: matmul 0.7556, attention 0.5917, memory 0.7076,
  // overhead 1.368 us and convolution 0.0206 fitted; vector_fraction kept.
  // Median |error| 7.0% over the file; per kind: attention 4.4%, matmul 6.5%,
  // norm 7.8%, convolution 5.0%, elementwise 20.4%.
  //   * convolution: PyTorch's Conv3d with kernel = stride = (1,2,2) (the
  //     patch embedding) runs at about 20 TFLOP/s, 2% of the peak. Under the
  //     joint fit's start (0.05736) both rows are compute-bound, so the fit
  //     determines the efficiency; under the older 0.3437 start they were
  //     memory-bound, the fit kept it and missed them by 90%. It agrees in
  //     direction with the joint fit (fidelity/scaling.h), which finds the
  //     VAEs' 3-D convolutions at a sixth of the GEMMs' efficiency.
  //   * copy (5 rows, -54%): the heads transpose moves bytes at 1.6 TB/s, a
  //     strided access pattern the flat memory_efficiency does not see.
  // Bounds: the fitted values +- 0.01 (convolution +- 0.005), the medians
  // rounded up by ~1 point.
  std::vector<KernelTiming> rows = Rows();
  auto fit = FitKernelTimings(H200(), rows, DefaultComputeCalibration(H200()));
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  const ComputeCalibration& c = fit->calibration;
  EXPECT_NEAR(c.matmul_efficiency, 0.7556, 0.01);
  EXPECT_NEAR(c.attention_efficiency, 0.5917, 0.01);
  EXPECT_NEAR(c.memory_efficiency, 0.7076, 0.01);
  EXPECT_NEAR(c.kernel_overhead.value(), 1.368e-6, 0.2e-6);
  EXPECT_NEAR(c.convolution_efficiency, 0.0206, 0.005);
  EXPECT_NE(std::find(fit->fitted.begin(), fit->fitted.end(), "convolution_efficiency"), fit->fitted.end());
  Errors e = Predict(c, rows);
  Print("fit", e);
  EXPECT_NEAR(e.Median(), fit->median_abs_error, 1e-9);  // the fit's own report agrees
  EXPECT_LE(e.Median(), 0.08);
  EXPECT_LE(e.MedianOf("matmul"), 0.075);
  EXPECT_LE(e.MedianOf("attention"), 0.055);
  EXPECT_LE(e.MedianOf("norm"), 0.085);
  EXPECT_LE(e.MedianOf("elementwise"), 0.215);
  EXPECT_LE(e.MedianOf("convolution"), 0.06);
  EXPECT_GE(e.MedianOf("copy"), 0.50);
}

TEST(H200Kernels, CudnnStackPricesTheMeasuredAttention) {
  // The file's attention rows ran cuDNN's flash kernel (SDPA). The shipped
  // h200 default is an FA2 stack's (h100's fit, attention 0.3569); the cudnn
  // stack scales it by the FlashAttention-3 paper's cuDNN / FA2 ratio on the
  // H100, 595 / 370 (stack.cc), to 0.3569 * 595 / 370 = 0.5739, against the
  // 0.5917 the kernel fit above finds on these rows: an independent check of
  // the sourced ratio. Median |error| of the 22 attention rows: 5.7% (FA2
  // stack: 63.8%, the test above; the fit to the rows themselves: 4.4%);
  // 17 of the 22 still predicted slower than measured (cuDNN 9.19 is newer
  // than the paper's). Bounds: the measured median +- 2 points.
  std::vector<KernelTiming> rows = Rows();
  std::vector<KernelTiming> attention;
  for (const KernelTiming& row : rows) {
    if (row.kind == cir::KernelKind::kAttention) attention.push_back(row);
  }
  ASSERT_EQ(attention.size(), 22u);
  ComputeCalibration calibration = DefaultComputeCalibration(H200());
  ASSERT_TRUE(ApplySoftwareStack(H200(), {AttentionLibrary::kCudnnSdpa}, &calibration).ok());
  EXPECT_NEAR(calibration.attention_efficiency, 0.3569 * 595 / 370, 1e-12);
  Errors e = Predict(calibration, attention);
  Print("cudnn", e);
  EXPECT_NEAR(e.MedianOf("attention"), 0.057, 0.02);
  EXPECT_EQ(e.over_predicted_tensor, 17);  // of 22 attention rows
}

}  // namespace
}  // namespace az::price
