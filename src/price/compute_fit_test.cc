// Fitting the compute model to kernel timings, the calibration the video fit
// starts from, and the shipped defaults' inheritance (the video fit itself:
// fidelity/video_fit_test.cc).
#include "price/compute_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "hw/testing.h"
#include "support/test_files.h"

namespace az::price {
namespace {

using hw_test::Chip;

// "what" contains "piece".
::testing::AssertionResult Contains(const std::string& what, const std::string& piece) {
  if (what.find(piece) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << what << "' lacks '" << piece << "'";
}

// ---------------------------------------------------------------- calibrations

TEST(FitStart, ScalingCapsEveryEfficiencyAtOne) {
  ComputeCalibration start = UnfittedComputeCalibration(Chip("h100"));
  // The documented 0.75 / 0.6 / 0.6: doubling caps matmul (1.5) and leaves 1.2 -> 1.
  ComputeCalibration doubled = ScaleTensorEfficiencies(start, 2.0);
  EXPECT_EQ(doubled.matmul_efficiency, 1.0);
  EXPECT_EQ(doubled.attention_efficiency, 1.0);
  ComputeCalibration halved = ScaleTensorEfficiencies(start, 0.5);
  EXPECT_DOUBLE_EQ(halved.matmul_efficiency, 0.375);
  EXPECT_DOUBLE_EQ(halved.convolution_efficiency, 0.3);
  EXPECT_EQ(halved.vector_fraction, start.vector_fraction);  // CUDA cores are not scaled
}

// UnfittedComputeCalibration assumes the catalog's fitted_compute is the only
// thing that moves a GPU's tensor-core efficiencies off ComputeCalibration's
// documented ones; b200 (not fitted) shows the family defaults still are those.
TEST(FitStart, UnfittedStartIsTheDocumentedDefault) {
  const ComputeCalibration documented;
  ComputeCalibration b200 = DefaultComputeCalibration(Chip("b200"));
  EXPECT_EQ(b200.matmul_efficiency, documented.matmul_efficiency);
  EXPECT_EQ(b200.attention_efficiency, documented.attention_efficiency);
  ComputeCalibration h100 = UnfittedComputeCalibration(Chip("h100"));
  EXPECT_EQ(h100.matmul_efficiency, documented.matmul_efficiency);
  EXPECT_EQ(h100.sms, 132);
}

// Chips without rows inherit the fit of their silicon's twin.
TEST(ComputeDefaults, SameSiliconInherits) {
  for (auto [chip, twin] : {std::pair{"h200", "h100"}, {"a100", "a800"}}) {
    ComputeCalibration c = DefaultComputeCalibration(Chip(chip));
    ComputeCalibration t = DefaultComputeCalibration(Chip(twin));
    EXPECT_EQ(c.matmul_efficiency, t.matmul_efficiency) << chip;
    EXPECT_EQ(c.attention_efficiency, t.attention_efficiency) << chip;
    EXPECT_EQ(c.convolution_efficiency, t.convolution_efficiency) << chip;
    EXPECT_TRUE(Contains(c.source, std::string(twin) + "'s fit")) << chip;
  }
  // Not covered: the documented defaults.
  EXPECT_EQ(DefaultComputeCalibration(Chip("b200")).matmul_efficiency, 0.75);
  EXPECT_EQ(DefaultComputeCalibration(Chip("v5e")).matmul_efficiency, 0.75);
}

// ---------------------------------------------------------------- kernel timings

std::string KernelError(const std::string& text) {
  auto rows = ReadKernelTimings(text, "k.csv");
  return rows.ok() ? "(no error)" : rows.status().message();
}

TEST(KernelTimings, Reads) {
  auto rows = ReadKernelTimings(
      "# H100 timings\n"
      "kind,flops,bytes,time_us,dims\n"
      "matmul,1.37e11,100663296,205.3,1x4096x4096x4096\n"
      "\n"
      "elementwise,0,67108864,27.1,\n",
      "k.csv");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].line, 3);
  EXPECT_EQ((*rows)[0].kind, cir::KernelKind::kMatmul);
  EXPECT_EQ((*rows)[0].flops.value(), 137'000'000'000);
  EXPECT_EQ((*rows)[0].dims, (std::vector<int64_t>{1, 4096, 4096, 4096}));
  EXPECT_DOUBLE_EQ((*rows)[0].time.value(), 205.3e-6);
  EXPECT_EQ((*rows)[1].line, 5);
  EXPECT_TRUE((*rows)[1].dims.empty());
}

TEST(KernelTimings, MalformedRowsAreLocated) {
  std::string h = "kind,flops,bytes,time_us,dims\n";
  EXPECT_TRUE(Contains(KernelError(h + "gemm,1,1,1,\n"), "k.csv:2: error: unknown kernel kind 'gemm'"));
  EXPECT_TRUE(Contains(KernelError(h + "matmul,1,1,0,\n"), "k.csv:2: error: time_us '0' is not a positive time"));
  EXPECT_TRUE(Contains(KernelError(h + "matmul,-5,1,1,\n"), "k.csv:2: error: flops '-5'"));
  EXPECT_TRUE(Contains(KernelError(h + "matmul,1,1,1,4x4x4\n"), "k.csv:2: error: dims '4x4x4' has 3 entries"));
  EXPECT_TRUE(Contains(KernelError(h + "matmul,1,1,1,4xx4x4\n"), "k.csv:2: error: dims '4xx4x4': '' is not"));
  EXPECT_TRUE(Contains(KernelError(h + "matmul,1,1\n"), "k.csv:2: error: expected 5 columns, found 3"));
  EXPECT_TRUE(Contains(KernelError("kind,flops,time_us\nmatmul,1,1\n"), "k.csv:1: error: the header has no 'bytes'"));
}

KernelTiming Timing(cir::KernelKind kind, int64_t flops, int64_t bytes, std::vector<int64_t> dims = {}) {
  KernelTiming t;
  t.kind = kind;
  t.flops = Flops(flops);
  t.bytes = Bytes(bytes);
  t.dims = std::move(dims);
  return t;
}

// Matmul {1, m, n, k}: 2mnk FLOPs, bf16 operands and result 2(mk + kn + mn) bytes.
KernelTiming Matmul(int64_t m, int64_t n, int64_t k) {
  return Timing(cir::KernelKind::kMatmul, 2 * m * n * k, 2 * (m * k + k * n + m * n), {1, m, n, k});
}

// Attention {b*h, q, kv, d}: 4 b h q kv d FLOPs; q, k, v, out in bf16.
KernelTiming Attention(int64_t bh, int64_t q, int64_t kv, int64_t d) {
  return Timing(cir::KernelKind::kAttention, 4 * bh * q * kv * d, 2 * bh * d * (2 * q + 2 * kv), {bh, q, kv, d});
}

std::vector<KernelTiming> SyntheticRows() {
  using cir::KernelKind;
  std::vector<KernelTiming> rows = {
      // Compute-bound matmuls, and skinny ones that are memory-bound (m = 1, 8).
      Matmul(4096, 4096, 4096), Matmul(8192, 5120, 5120), Matmul(1000, 1000, 1000), Matmul(2048, 13824, 5120),
      Matmul(1, 5120, 5120), Matmul(8, 30720, 5120),
      // Attention, long and short sequences.
      Attention(40, 75600, 75600, 128), Attention(40, 4096, 4096, 128), Attention(24, 8192, 8192, 128),
      Attention(40, 75600, 512, 128),
      // Convolutions as implicit GEMMs.
      Timing(KernelKind::kConvolution, 2 * 75600LL * 5120 * 64, 784'486'400, {1, 75600, 5120, 64}),
      Timing(KernelKind::kConvolution, 2 * 16384LL * 1024 * 1152, 60'000'000, {1, 16384, 1024, 1152}),
      Timing(KernelKind::kConvolution, 2 * 4096LL * 512 * 4608, 30'000'000, {1, 4096, 512, 4608}),
      // Memory-bound element-wise and norms, and tiny launches the overhead dominates.
      Timing(KernelKind::kElementwise, 75600LL * 5120, 4 * 75600LL * 5120), Timing(KernelKind::kNorm, 0, 1LL << 30),
      Timing(KernelKind::kCopy, 0, 1LL << 24), Timing(KernelKind::kElementwise, 1024, 8192),
      // Compute-heavy custom kernels: the CUDA-core fraction.
      Timing(KernelKind::kCustom, 2'000'000'000'000, 1'000'000),
      Timing(KernelKind::kCustom, 500'000'000'000, 4'000'000),
  };
  return rows;
}

TEST(KernelFit, RecoversAKnownCalibration) {
  const hw::ChipSpec& h100 = Chip("h100");
  ComputeCalibration truth = DefaultComputeCalibration(h100);
  truth.matmul_efficiency = 0.62;
  truth.attention_efficiency = 0.47;
  truth.convolution_efficiency = 0.55;
  truth.vector_fraction = 0.11;
  truth.memory_efficiency = 0.83;
  truth.kernel_overhead = Seconds(7e-6);
  auto model = ComputeModel::Create(h100, truth);
  ASSERT_TRUE(model.ok());
  std::vector<KernelTiming> rows = SyntheticRows();
  int memory_bound = 0;
  for (KernelTiming& row : rows) {
    KernelTime t = model->Time(row.kind, row.flops, row.bytes, row.dims);
    row.time = t.time;
    memory_bound += t.memory_bound;
  }
  ASSERT_GE(memory_bound, 4);  // the fit sees both sides of the roofline
  // From the shipped defaults (0.426 / 0.341 / 0.341, 5 us): a different starting point.
  auto report = FitKernelTimings(h100, rows, DefaultComputeCalibration(h100));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const ComputeCalibration& c = report->calibration;
  EXPECT_NEAR(c.matmul_efficiency / 0.62, 1, 0.01);
  EXPECT_NEAR(c.attention_efficiency / 0.47, 1, 0.01);
  EXPECT_NEAR(c.convolution_efficiency / 0.55, 1, 0.01);
  EXPECT_NEAR(c.vector_fraction / 0.11, 1, 0.01);
  EXPECT_NEAR(c.memory_efficiency / 0.83, 1, 0.01);
  EXPECT_NEAR(c.kernel_overhead.value() / 7e-6, 1, 0.01);
  EXPECT_EQ(report->fitted.size(), 6u);
  EXPECT_LT(report->median_abs_error, 1e-6);
  for (const KernelFitPoint& p : report->points) EXPECT_LT(std::abs(p.relative_error), 1e-6);

  // From a start that classifies most rows wrongly (memory at 5% of the
  // bandwidth: everything looks memory-bound), the alternation still finds it.
  ComputeCalibration poor = DefaultComputeCalibration(h100);
  poor.memory_efficiency = 0.05;
  poor.matmul_efficiency = 1.0;
  poor.kernel_overhead = Seconds(0);
  auto from_poor = FitKernelTimings(h100, rows, poor);
  ASSERT_TRUE(from_poor.ok()) << from_poor.status().ToString();
  EXPECT_GT(from_poor->iterations, 1);
  EXPECT_NEAR(from_poor->calibration.matmul_efficiency / 0.62, 1, 0.01);
  EXPECT_NEAR(from_poor->calibration.attention_efficiency / 0.47, 1, 0.01);
  EXPECT_NEAR(from_poor->calibration.memory_efficiency / 0.83, 1, 0.01);
  EXPECT_NEAR(from_poor->calibration.kernel_overhead.value() / 7e-6, 1, 0.01);
}

// Only matmuls and element-wise rows: attention, convolution and the CUDA-core
// fraction are not determined and keep the start's values.
TEST(KernelFit, KeepsWhatTheRowsDoNotDetermine) {
  const hw::ChipSpec& v5e = Chip("v5e");  // MXU padding on a TPU
  ComputeCalibration truth = DefaultComputeCalibration(v5e);
  truth.matmul_efficiency = 0.81;
  truth.memory_efficiency = 0.9;
  truth.kernel_overhead = Seconds(3e-6);
  auto model = ComputeModel::Create(v5e, truth);
  ASSERT_TRUE(model.ok());
  std::vector<KernelTiming> rows = {Matmul(4096, 4096, 4096), Matmul(1000, 300, 700), Matmul(8192, 1024, 2048),
                                    Matmul(2, 8192, 8192), Timing(cir::KernelKind::kElementwise, 0, 1LL << 28),
                                    Timing(cir::KernelKind::kNorm, 0, 1LL << 22)};
  for (KernelTiming& row : rows) row.time = model->Time(row.kind, row.flops, row.bytes, row.dims).time;
  ComputeCalibration start = DefaultComputeCalibration(v5e);
  auto report = FitKernelTimings(v5e, rows, start);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->fitted, (std::vector<std::string>{"kernel_overhead", "matmul_efficiency", "memory_efficiency"}));
  EXPECT_NEAR(report->calibration.matmul_efficiency / 0.81, 1, 0.01);
  EXPECT_NEAR(report->calibration.memory_efficiency / 0.9, 1, 0.01);
  EXPECT_NEAR(report->calibration.kernel_overhead.value() / 3e-6, 1, 0.01);
  EXPECT_EQ(report->calibration.attention_efficiency, start.attention_efficiency);
  EXPECT_EQ(report->calibration.vector_fraction, start.vector_fraction);
}

TEST(KernelFit, Errors) {
  std::vector<KernelTiming> one = {Matmul(4096, 4096, 4096)};
  one[0].time = Seconds(2e-4);
  // One row, two parameters (overhead and matmul efficiency).
  auto few = FitKernelTimings(Chip("h100"), one, DefaultComputeCalibration(Chip("h100")));
  ASSERT_FALSE(few.ok());
  EXPECT_TRUE(Contains(few.status().message(), "1 kernel timings cannot determine 2 parameters"));
  // Two identical rows cannot separate the overhead from the efficiency.
  std::vector<KernelTiming> same = {one[0], one[0]};
  auto dependent = FitKernelTimings(Chip("h100"), same, DefaultComputeCalibration(Chip("h100")));
  ASSERT_FALSE(dependent.ok());
  EXPECT_TRUE(Contains(dependent.status().message(), "do not determine the parameters"));
  hw::ChipSpec unsourced = Chip("h100");  // a topology JSON's chip without a peak
  unsourced.bf16 = FlopRate(0);
  auto unpriced = FitKernelTimings(unsourced, one, ComputeCalibration());
  ASSERT_FALSE(unpriced.ok());
  EXPECT_TRUE(Contains(unpriced.status().message(), "no sourced bf16 peak"));
  EXPECT_FALSE(FitKernelTimings(Chip("h100"), {}, DefaultComputeCalibration(Chip("h100"))).ok());
}

}  // namespace
}  // namespace az::price
