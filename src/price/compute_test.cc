// The compute model (compute.h) on hand-derived cases: tile padding on a TPU
// MXU, tile padding and wave quantization on an H100, the roofline, and the
// refusals.
#include "price/compute.h"

#include <gtest/gtest.h>

#include "hw/testing.h"

namespace az::price {
namespace {

using hw_test::Chip;

ComputeModel Model(const char* chip, const ComputeCalibration& c) {
  auto model = ComputeModel::Create(Chip(chip), c);
  AZ_CHECK(model.ok());
  return std::move(model).value();
}

KernelTime Matmul(const ComputeModel& model, int64_t batch, int64_t m, int64_t n, int64_t k) {
  return model.Time(cir::KernelKind::kMatmul, Flops(2 * batch * m * n * k), Bytes(0), {batch, m, n, k});
}

// v5e, 128 x 128 MXU: {1, m 100, n 200, k 300}: m is padded to the 8 sublanes
// (104), n and k to the array (256, 384), so the MXU does
// 104 * 256 * 384 / (100 * 200 * 300) = 10,223,616 / 6,000,000 = 1.703936 of the work.
TEST(ComputeModel, TpuPadsToTheMxu) {
  ComputeModel v5e = Model("v5e", DefaultComputeCalibration(Chip("v5e")));
  EXPECT_EQ(v5e.calibration().mxu, 128);
  EXPECT_DOUBLE_EQ(Matmul(v5e, 1, 100, 200, 300).padding, 1.703936);
  // v6e's 256 x 256 MXU: {1, 1000, 300, 700} -> 1000 * 512 * 768 / (1000 * 300 * 700) = 1.872457142857...
  ComputeModel v6e = Model("v6e", DefaultComputeCalibration(Chip("v6e")));
  EXPECT_EQ(v6e.calibration().mxu, 256);
  EXPECT_DOUBLE_EQ(Matmul(v6e, 1, 1000, 300, 700).padding, 1000.0 * 512 * 768 / (1000.0 * 300 * 700));
  // Multiples of the array: no padding.
  EXPECT_DOUBLE_EQ(Matmul(v5e, 4, 1024, 512, 256).padding, 1.0);
}

// H100: 128 x 128 CTA tiles, k in steps of 64, 132 SMs. {1, 1000, 1000, 1000}:
// every dim pads to 1024 (1.073741824 = 1024^3 / 1000^3); the 8 x 8 = 64 tiles
// run in one wave on 132 SMs, as long as a full wave of 132: x 132 / 64.
// 1.073741824 * 2.0625 = 2.214592512.
TEST(ComputeModel, GpuPadsTilesAndQuantizesWaves) {
  ComputeModel h100 = Model("h100", DefaultComputeCalibration(Chip("h100")));
  EXPECT_EQ(h100.calibration().sms, 132);
  EXPECT_DOUBLE_EQ(Matmul(h100, 1, 1000, 1000, 1000).padding, 1.073741824 * 132 / 64);
  // 12 x 11 = 132 tiles of exact size: one full wave, no waste.
  EXPECT_DOUBLE_EQ(Matmul(h100, 1, 12 * 128, 11 * 128, 4096).padding, 1.0);
  // 133 tiles (batch 133 of one tile each) need a second wave for one tile:
  // 2 * 132 / 133.
  EXPECT_DOUBLE_EQ(Matmul(h100, 133, 128, 128, 64).padding, 264.0 / 133);
  // Without an SM count there is no wave quantization, only tile padding.
  ComputeCalibration no_waves = DefaultComputeCalibration(Chip("h100"));
  no_waves.sms = 0;
  EXPECT_DOUBLE_EQ(Matmul(Model("h100", no_waves), 1, 1000, 1000, 1000).padding, 1.073741824);
  // No dims (an importer that could not tell): the plain roofline.
  EXPECT_DOUBLE_EQ(h100.Time(cir::KernelKind::kMatmul, Flops(1'000'000), Bytes(0), {}).padding, 1.0);
}

// Wan 14B self-attention at 720p on an H100: {40 heads, q = kv = 75,600, d 128}.
// q and kv pad to 591 blocks of 128 = 75,648; d = 128 is a multiple of 64. The
// 40 * 591 = 23,640 query tiles run in ceil(23,640 / 132) = 180 waves:
// (75,648 / 75,600)^2 * 180 * 132 / 23,640 = 1.00635283...
TEST(ComputeModel, AttentionBlocksAndWaves) {
  ComputeModel h100 = Model("h100", DefaultComputeCalibration(Chip("h100")));
  KernelTime t = h100.Time(cir::KernelKind::kAttention, Flops(4 * 40 * 75600LL * 75600 * 128), Bytes(0),
                           {40, 75600, 75600, 128});
  double expected = (75648.0 / 75600) * (75648.0 / 75600) * 180 * 132 / 23640;
  EXPECT_DOUBLE_EQ(t.padding, expected);
  EXPECT_NEAR(t.padding, 1.0063528, 1e-7);
}

// The roofline with a fixed calibration (not the shipped fitted values).
TEST(ComputeModel, Roofline) {
  ComputeCalibration c = DefaultComputeCalibration(Chip("h100"));
  c.matmul_efficiency = 0.5;
  c.memory_efficiency = 0.8;
  c.vector_fraction = 0.1;
  c.kernel_overhead = Seconds(5e-6);
  ComputeModel h100 = Model("h100", c);
  // 1 GiB element-wise pass, 2^28 FLOPs: memory 2^30 / (3.35e12 * 0.8) = 400.6 us
  // against compute 2^28 / (989e12 * 0.1) = 2.7 us: memory-bound.
  KernelTime add = h100.Time(cir::KernelKind::kElementwise, Flops(1LL << 28), Bytes(1LL << 30), {});
  EXPECT_TRUE(add.memory_bound);
  EXPECT_DOUBLE_EQ(add.time.value(), 5e-6 + (1LL << 30) / (3350e9 * 0.8));
  // One exact wave of 132 tiles, k 4096: 2 * 1536 * 1408 * 4096 FLOPs at
  // 989e12 * 0.5, 35.8 us, against 24 MiB of operands (9.4 us): compute-bound.
  int64_t flops = 2LL * 1536 * 1408 * 4096;
  KernelTime mm = h100.Time(cir::KernelKind::kMatmul, Flops(flops), Bytes(24LL << 20), {1, 1536, 1408, 4096});
  EXPECT_FALSE(mm.memory_bound);
  EXPECT_DOUBLE_EQ(mm.time.value(), 5e-6 + static_cast<double>(flops) / (989e12 * 0.5));
  EXPECT_DOUBLE_EQ(mm.memory_time.value(), (24LL << 20) / (3350e9 * 0.8));
  // The segment form agrees with the raw one.
  evidence::ComputeSegment segment{"mm", cir::KernelKind::kMatmul, Flops(flops), Bytes(24LL << 20),
                                   {1, 1536, 1408, 4096}};
  EXPECT_EQ(h100.Time(segment).time.value(), mm.time.value());
}

// The rate by what the matrix units read (compute.h, Precision), on an H100
// with the documented efficiencies (ComputeCalibration(): matmul 0.75,
// convolution 0.6, vector_fraction 0.1): a 2 GFLOP kernel with no dims and no
// bytes takes flops / rate.
TEST(ComputeModel, PrecisionPicksTheRate) {
  ComputeCalibration c;
  c.kernel_overhead = Seconds(0);
  ComputeModel h100 = Model("h100", c);
  const double peak = 989e12;
  auto time = [&](cir::KernelKind kind, pir::DType dtype) {
    return h100.Time(kind, Flops(2'000'000'000), Bytes(0), {}, dtype).time.value();
  };
  // bf16 and f16: the tensor-core peak.
  EXPECT_DOUBLE_EQ(time(cir::KernelKind::kConvolution, pir::DType::kBF16), 2e9 / (peak * 0.6));
  EXPECT_DOUBLE_EQ(time(cir::KernelKind::kConvolution, pir::DType::kF16), 2e9 / (peak * 0.6));
  // f32 convolution: cuDNN's TF32, half the bf16 rate.
  EXPECT_DOUBLE_EQ(time(cir::KernelKind::kConvolution, pir::DType::kF32), 2e9 / (peak / 2 * 0.6));
  // f32 matmul and attention: CUDA cores, vector_fraction / 2 of the peak.
  EXPECT_DOUBLE_EQ(time(cir::KernelKind::kMatmul, pir::DType::kF32), 2e9 / (peak * 0.1 / 2 * 0.75));
  EXPECT_DOUBLE_EQ(time(cir::KernelKind::kAttention, pir::DType::kF32), 2e9 / (peak * 0.1 / 2 * 0.6));
  // Element-wise kernels are on the vector units whatever they read.
  EXPECT_DOUBLE_EQ(time(cir::KernelKind::kElementwise, pir::DType::kF32),
                   time(cir::KernelKind::kElementwise, pir::DType::kBF16));
  // A TPU multiplies f32 in one bf16 pass at XLA's default precision.
  ComputeModel v5e = Model("v5e", c);
  EXPECT_EQ(v5e.Time(cir::KernelKind::kConvolution, Flops(2'000'000'000), Bytes(0), {}, pir::DType::kF32).time.value(),
            v5e.Time(cir::KernelKind::kConvolution, Flops(2'000'000'000), Bytes(0), {}, pir::DType::kBF16).time.value());
  // The segment carries it from the evidence.
  evidence::ComputeSegment segment{"conv", cir::KernelKind::kConvolution, Flops(2'000'000'000), Bytes(0), {},
                                   pir::DType::kF32};
  EXPECT_DOUBLE_EQ(h100.Time(segment).time.value(), 2e9 / (peak / 2 * 0.6));
}

TEST(ComputeModel, RefusesWhatIsNotSourced) {
  // A chip of a topology JSON may leave figures out (0 = not sourced).
  hw::ChipSpec no_peak = Chip("h100");
  no_peak.bf16 = FlopRate(0);
  auto rtx = ComputeModel::Create(no_peak, ComputeCalibration());
  ASSERT_FALSE(rtx.ok());
  EXPECT_NE(rtx.status().message().find("no sourced bf16 peak"), std::string::npos);
  hw::ChipSpec no_bandwidth = Chip("h100");
  no_bandwidth.hbm_bw = Bandwidth(0);
  auto l20 = ComputeModel::Create(no_bandwidth, ComputeCalibration());
  ASSERT_FALSE(l20.ok());
  EXPECT_NE(l20.status().message().find("no sourced memory bandwidth"), std::string::npos);
  ComputeCalibration bad;
  bad.attention_efficiency = 0;
  EXPECT_FALSE(ComputeModel::Create(Chip("h100"), bad).ok());
  bad = ComputeCalibration();
  bad.tile_k = 0;
  EXPECT_FALSE(ComputeModel::Create(Chip("h100"), bad).ok());
}

TEST(ComputeCalibrationJson, RoundTripsAndNamesBadKeys) {
  ComputeCalibration c = DefaultComputeCalibration(Chip("h20"));
  c.kernel_overhead = Seconds(7.5e-6);
  auto back = ComputeCalibrationFromJson(ComputeCalibrationToJson(c), "c.json", ComputeCalibration());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->chip, "h20");
  EXPECT_EQ(back->source, c.source);
  EXPECT_EQ(back->matmul_efficiency, c.matmul_efficiency);
  EXPECT_EQ(back->sms, 78);
  EXPECT_NEAR(back->kernel_overhead.value(), 7.5e-6, 1e-18);
  auto bad = ComputeCalibrationFromJson(R"({"tile_m": 0})", "c.json", c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("c.json: compute.tile_m: expected an integer in [1, 65536]"),
            std::string::npos);
  auto unknown = ComputeCalibrationFromJson(R"({"matmul": 0.5})", "c.json", c);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("compute.matmul: unknown key"), std::string::npos);
}

}  // namespace
}  // namespace az::price
