// Fitting the compute model: the DiT latency file, kernel timings, and the
// shipped fitted defaults refitted from ../shared/data.
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

constexpr char kDitFile[] = "measurements/dit_single_gpu_latency.csv";

using hw_test::Chip;

// "what" contains "piece".
::testing::AssertionResult Contains(const std::string& what, const std::string& piece) {
  if (what.find(piece) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << what << "' lacks '" << piece << "'";
}

std::string DitError(const std::string& text) {
  auto rows = ReadDitLatencies(text, "dit.csv");
  return rows.ok() ? "(no error)" : rows.status().message();
}

constexpr char kDitHeader[] = "model,variant,gpu,width,height,frames,steps,cfg_passes_per_step,seconds,notes\n";

// ---------------------------------------------------------------- reading

TEST(DitLatencies, NamesMapToTheZooAndTheCatalog) {
  EXPECT_EQ(ZooModelName("wan2.1", "t2v-14b").value(), "wan2.1-t2v-14b");
  EXPECT_EQ(ZooModelName("wan2.1", "i2v-14b").value(), "wan2.1-i2v-14b");
  EXPECT_EQ(ZooModelName("wan2.1", "t2v-1.3b").value(), "wan2.1-t2v-1.3b");
  EXPECT_EQ(ZooModelName("hunyuanvideo", "t2v-13b").value(), "hunyuanvideo-13b");
  EXPECT_TRUE(Contains(ZooModelName("wan2.2", "t2v-5b").status().message(), "known: wan2.1-t2v-1.3b"));
  for (auto [gpu, chip] : {std::pair{"H800", "h800"}, {"A800", "a800"}, {"H20", "h20"}, {"H100", "h100"},
                           {"L20", "l20"}, {"RTX4090", "rtx4090"}}) {
    EXPECT_EQ(CatalogChipName(gpu).value(), chip);
  }
  EXPECT_FALSE(CatalogChipName("RTX5090").ok());
}

TEST(DitLatencies, ReadsTheSharedFile) {
  AZ_REQUIRE_SHARED_DATA(path, kDitFile);
  auto rows = ReadDitLatencies(testing::ReadTextFile(path), path);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  // 4 comment lines and the header; 13 rows on lines 6 .. 18.
  ASSERT_EQ(rows->size(), 13u);
  const DitLatency& first = rows->front();
  EXPECT_EQ(first.line, 6);
  EXPECT_EQ(first.model, "wan2.1-t2v-14b");
  EXPECT_EQ(first.chip, "h800");
  EXPECT_EQ(first.width * first.height * first.frames, 1280 * 720 * 81);
  EXPECT_EQ(first.steps * first.cfg_passes, 100);
  EXPECT_DOUBLE_EQ(first.measured.value(), 1837.9);
  EXPECT_TRUE(first.offload_model);  // "end-to-end; run with --offload_model True"
  EXPECT_FALSE(first.text_encoder_on_cpu);
  const DitLatency& last = rows->back();
  EXPECT_EQ(last.line, 18);
  EXPECT_EQ(last.model, "hunyuanvideo-13b");
  EXPECT_EQ(last.chip, "l20");
  EXPECT_EQ(last.cfg_passes, 1);  // embedded guidance
  EXPECT_FALSE(last.offload_model);  // "diffusers"
  EXPECT_FALSE(last.text_encoder_on_cpu);
}

TEST(DitLatencies, MalformedRowsAreLocated) {
  std::string h = kDitHeader;
  // Line 2 is the first row in every case.
  EXPECT_TRUE(Contains(DitError(h + "wan2.1,t2v-14b,H800,1280,720,81,50,2\n"),
                       "dit.csv:2: error: expected 10 columns, found 8"));
  EXPECT_TRUE(Contains(DitError(h + "wan2.1,t2v-14b,B300,1280,720,81,50,2,10,\n"),
                       "dit.csv:2: error: unknown chip 'b300'"));
  EXPECT_TRUE(Contains(DitError(h + "wan9,t2v,H800,1280,720,81,50,2,10,\n"),
                       "dit.csv:2: error: model 'wan9' variant 't2v' is not in the zoo"));
  EXPECT_TRUE(Contains(DitError(h + "wan2.1,t2v-14b,H800,1280,720,80,50,2,10,\n"),
                       "dit.csv:2: error: frames must be 4n+1"));
  EXPECT_TRUE(Contains(DitError(h + "wan2.1,t2v-14b,H800,1280,720,81,50,2,-3,\n"),
                       "dit.csv:2: error: seconds '-3' is not a positive time"));
  EXPECT_TRUE(Contains(DitError(h + "wan2.1,t2v-14b,H800,1280,720,81,fifty,2,10,\n"),
                       "dit.csv:2: error: steps 'fifty' is not an integer"));
  EXPECT_TRUE(Contains(DitError(h + "# a comment\n\nwan2.1,t2v-14b,H800,1280,720,81,50,2,10,\"open\n"),
                       "dit.csv:4: error: unterminated or misplaced double quote"));
  EXPECT_TRUE(Contains(DitError("model,variant,gpu\nwan2.1,t2v-14b,H800\n"),
                       "dit.csv:1: error: the header has no 'width' column"));
  EXPECT_TRUE(Contains(DitError("# only a comment\n"), "dit.csv: error: no header line"));
  EXPECT_TRUE(Contains(DitError(h), "dit.csv: error: no data rows"));
  // A quoted note may hold commas.
  auto quoted = ReadDitLatencies(
      h + "wan2.1,t2v-1.3b,RTX4090,832,480,81,50,2,10,\"end-to-end, --offload_model True --t5_cpu\"\n", "q.csv");
  ASSERT_TRUE(quoted.ok()) << quoted.status().ToString();
  EXPECT_EQ(quoted->front().notes, "end-to-end, --offload_model True --t5_cpu");
  EXPECT_TRUE(quoted->front().offload_model);
  EXPECT_TRUE(quoted->front().text_encoder_on_cpu);
}

// ---------------------------------------------------------------- DiT fit

TEST(DitFit, ScalingCapsEveryEfficiencyAtOne) {
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

// UnfittedComputeCalibration assumes ApplyFittedComputeDefaults is the only
// thing that moves a GPU's tensor-core efficiencies off ComputeCalibration's
// documented ones; b200 (not fitted) shows the family defaults still are those.
TEST(DitFit, UnfittedStartIsTheDocumentedDefault) {
  const ComputeCalibration documented;
  ComputeCalibration b200 = DefaultComputeCalibration(Chip("b200"));
  EXPECT_EQ(b200.matmul_efficiency, documented.matmul_efficiency);
  EXPECT_EQ(b200.attention_efficiency, documented.attention_efficiency);
  ComputeCalibration h100 = UnfittedComputeCalibration(Chip("h100"));
  EXPECT_EQ(h100.matmul_efficiency, documented.matmul_efficiency);
  EXPECT_EQ(h100.sms, 132);
}

DitLatency SmallWanRow(const char* gpu, const char* chip, int64_t width, int64_t height, int64_t steps,
                       int64_t passes) {
  DitLatency row;
  row.model = "wan2.1-t2v-1.3b";
  row.gpu = gpu;
  row.chip = chip;
  row.width = width;
  row.height = height;
  row.frames = 17;
  row.steps = steps;
  row.cfg_passes = passes;
  return row;
}

// Rows generated by the model itself at a known scale: the fit recovers it,
// although the time is not linear in the scale (memory-bound kernels).
TEST(DitFit, RecoversAKnownScale) {
  const hw::ChipSpec& h100 = Chip("h100");
  PipelineCache cache;
  std::vector<DitLatency> rows = {SmallWanRow("H100", "h100", 832, 480, 50, 2),
                                  SmallWanRow("H100", "h100", 480, 832, 30, 1),
                                  SmallWanRow("H100", "h100", 512, 512, 40, 2)};
  constexpr double kScale = 0.7;
  auto truth = ComputeModel::Create(h100, ScaleTensorEfficiencies(UnfittedComputeCalibration(h100), kScale));
  ASSERT_TRUE(truth.ok());
  for (DitLatency& row : rows) {
    auto pipeline = cache.Get(row);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
    row.measured = PredictDitRow(*truth, row, **pipeline).total;
  }
  auto report = FitDitLatencies(rows, cache);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->chips.size(), 1u);
  EXPECT_NEAR(report->chips[0].scale, kScale, 1e-6 * kScale);
  EXPECT_NEAR(report->chips[0].calibration.matmul_efficiency, 0.75 * kScale, 1e-6);
  EXPECT_LT(report->median_abs_error, 1e-6);
  EXPECT_FALSE(report->chips[0].one_workload);
  EXPECT_EQ(report->chips[0].note, "");
  // 832x480 and 480x832 are different graphs (the patch grid is 30x52 vs 52x30).
  // Each pipeline is the forward, umT5 and the VAE decoder (Wan 2.1 T2V's
  // stages); the CFG passes (2, 1, 2) key the pipelines too.
  EXPECT_EQ(cache.compiled(), 3 * 3);
}

// The parts of one prediction, and the Wan recipe of --offload_model
// (compute_fit.h) derived by hand.
TEST(DitFit, PredictionAddsTheStagesAndTheRecipe) {
  const hw::ChipSpec& h800 = Chip("h800");
  auto model = ComputeModel::Create(h800, DefaultComputeCalibration(h800));
  ASSERT_TRUE(model.ok());
  PipelineCache cache;
  DitLatency row = SmallWanRow("H800", "h800", 832, 480, 50, 2);
  auto pipeline = cache.Get(row);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
  const VideoPipeline& p = **pipeline;
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].name, "umt5-xxl");
  EXPECT_EQ(p.stages[0].invocations, 2);  // prompt and negative prompt
  EXPECT_EQ(p.stages[1].name, "wan-vae-decoder");
  // umT5-XXL's encoder, 5,680,910,336 parameters in bf16 (zoo stages test);
  // Wan 2.1 T2V-1.3B, 1,418,996,800 parameters in bf16.
  EXPECT_EQ(p.stages[0].kernels.parameter_bytes, int64_t{2} * 5'680'910'336);
  EXPECT_EQ(p.forward.parameter_bytes, int64_t{2} * 1'418'996'800);
  DitPrediction resident = PredictDitRow(*model, row, p);
  EXPECT_DOUBLE_EQ(resident.denoising.value(), resident.forward.value() * 100);
  ASSERT_EQ(resident.stages.size(), 2u);
  EXPECT_DOUBLE_EQ(resident.stages[0].second.value(), 2 * MixTime(*model, p.stages[0].kernels).value());
  EXPECT_EQ(resident.host_transfers.value(), 0);
  EXPECT_DOUBLE_EQ(resident.total.value(), resident.denoising.value() + resident.stages[0].second.value() +
                                               resident.stages[1].second.value());
  // --offload_model True: umT5 in and out, the DiT out before the VAE, at
  // H800's 64 GB/s host link: (2 x 11,361,820,672 + 2,837,993,600) / 64e9.
  row.offload_model = true;
  DitPrediction offloaded = PredictDitRow(*model, row, p);
  EXPECT_DOUBLE_EQ(offloaded.host_transfers.value(), (2.0 * 11'361'820'672 + 2'837'993'600) / 64e9);
  EXPECT_DOUBLE_EQ(offloaded.total.value(), resident.total.value() + offloaded.host_transfers.value());
  // --t5_cpu: umT5 leaves the GPU's bill and is listed as not priced.
  row.text_encoder_on_cpu = true;
  DitPrediction cpu = PredictDitRow(*model, row, p);
  ASSERT_EQ(cpu.stages.size(), 1u);
  EXPECT_EQ(cpu.stages[0].first, "wan-vae-decoder");
  EXPECT_EQ(cpu.not_priced, std::vector<std::string>{"umt5-xxl on the host CPU (--t5_cpu)"});
  EXPECT_DOUBLE_EQ(cpu.host_transfers.value(), 2'837'993'600 / 64e9);
}

// 10 s for a 720p Wan 14B video on an H800 would need more than the peak:
// the search ends with every efficiency at 1, and says so.
TEST(DitFit, WarnsWhenTheSearchEndsAtALimit) {
  DitLatency row = SmallWanRow("H800", "h800", 832, 480, 50, 2);
  row.measured = Seconds(1.0);
  PipelineCache cache;
  auto fast = FitDitLatencies({row}, cache);
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  EXPECT_EQ(fast->chips[0].calibration.matmul_efficiency, 1.0);
  EXPECT_NEAR(fast->chips[0].calibration.attention_efficiency, 1.0, 1e-6);  // 0.6 * 1/0.6 in floating point
  EXPECT_TRUE(Contains(fast->chips[0].warning, "capped at 1"));
  EXPECT_TRUE(fast->chips[0].one_workload);
  EXPECT_TRUE(Contains(fast->chips[0].note, "one row: the fit reproduces it by construction"));
  row.measured = Seconds(1e7);
  auto slow = FitDitLatencies({row}, cache);
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  EXPECT_TRUE(Contains(slow->chips[0].warning, "lower limit"));
  EXPECT_EQ(cache.compiled(), 3);
}

// A chip the compute model refuses (here by a start calibration out of
// range) skips its rows, before compiling anything; no row left is an error.
TEST(DitFit, NothingPriceableIsAnError) {
  DitLatency row = SmallWanRow("RTX4090", "rtx4090", 832, 480, 50, 2);
  row.measured = Seconds(261.4);
  PipelineCache cache;
  auto broken = [](const hw::ChipSpec& chip) {
    ComputeCalibration c = UnfittedComputeCalibration(chip);
    c.memory_efficiency = 0;
    return c;
  };
  auto report = FitDitLatencies({row}, cache, broken);
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(Contains(report.status().message(), "no row can be priced: compute calibration: efficiencies"));
  EXPECT_EQ(cache.compiled(), 0);  // skipped before compiling
}

struct RealFit {
  DitFitReport report;
  int compiled = 0;
};

// The shared file fitted once for the tests below (about a minute of compiling).
const RealFit& FitSharedFile(const std::string& path) {
  static const RealFit fit = [&] {
    auto rows = ReadDitLatencies(testing::ReadTextFile(path), path);
    AZ_CHECK(rows.ok());
    PipelineCache cache;
    auto report = FitDitLatencies(*rows, cache);
    AZ_CHECK(report.ok());
    return RealFit{std::move(report).value(), cache.compiled()};
  }();
  return fit;
}

const DitChipFit* FindFit(const DitFitReport& report, const std::string& chip) {
  for (const DitChipFit& fit : report.chips) {
    if (fit.chip == chip) return &fit;
  }
  return nullptr;
}

const DitFitRow* FindRow(const DitFitReport& report, int line) {
  for (const DitFitRow& row : report.rows) {
    if (row.row.line == line) return &row;
  }
  return nullptr;
}

TEST(DitFit, SharedFile) {
  AZ_REQUIRE_SHARED_DATA(path, kDitFile);
  const RealFit& fit = FitSharedFile(path);
  const DitFitReport& r = fit.report;
  // Every one of the 13 rows is priced (RTX 4090 and L20 have their figures).
  EXPECT_TRUE(r.skipped.empty());
  ASSERT_EQ(r.rows.size(), 13u);
  // Five pipelines, each graph compiled once for its rows on every GPU:
  // Wan t2v-14b 720p (forward, umT5, VAE decoder), i2v-14b (forward, umT5,
  // CLIP, VAE encoder, VAE decoder), t2v-1.3b 480p (3), HunyuanVideo at
  // 1280x720x129 and 960x960x129 (forward, Llama, CLIP-L, VAE decoder: 4 each).
  EXPECT_EQ(fit.compiled, 3 + 5 + 3 + 4 + 4);
  ASSERT_EQ(r.chips.size(), 6u);
  for (const DitChipFit& chip : r.chips) EXPECT_EQ(chip.warning, "") << chip.chip;
  // The Wan rows' recipe: offloaded, the 4090's T5 on the CPU (not priced).
  const DitFitRow* t2v = FindRow(r, 6);
  ASSERT_NE(t2v, nullptr);
  EXPECT_TRUE(t2v->row.offload_model);
  EXPECT_GT(t2v->prediction.host_transfers.value(), 0);
  ASSERT_EQ(t2v->prediction.stages.size(), 2u);
  const DitFitRow* rtx = FindRow(r, 12);
  ASSERT_NE(rtx, nullptr);
  EXPECT_EQ(rtx->prediction.not_priced.size(), 1u);
  EXPECT_TRUE(FindFit(r, "rtx4090")->absorbs_unpriced);
  EXPECT_TRUE(FindFit(r, "rtx4090")->one_workload);  // one row
  EXPECT_TRUE(FindFit(r, "l20")->one_workload);      // two sizes of one token count
  EXPECT_FALSE(FindFit(r, "h20")->one_workload);
  const DitFitRow* hunyuan = FindRow(r, 14);
  ASSERT_NE(hunyuan, nullptr);
  EXPECT_EQ(hunyuan->prediction.host_transfers.value(), 0);  // resident: the official repo does not offload
  EXPECT_EQ(hunyuan->prediction.stages.size(), 3u);
  // A one-parameter fit per GPU on 1 - 4 rows: the in-sample median is small
  // (docs/compute-model.md has every row).
  EXPECT_LT(r.median_abs_error, 0.02);
  // HunyuanVideo at 1280x720 and 960x960 have the same token count (45x80 =
  // 60x60 = 3,600 patches per latent frame), so the model predicts nearly one
  // time for both (the VAE's tiles differ); the H100 rows measured 1904 s and
  // 1735 s, hence about +-5% each.
  for (const DitFitRow& row : r.rows) EXPECT_LT(std::abs(row.relative_error), 0.06) << row.row.line;
  // H800 (Wan) and H100 (HunyuanVideo) share the silicon; fitted on different
  // models from different sources, their scales agree within 5%.
  EXPECT_NEAR(FindFit(r, "h800")->scale / FindFit(r, "h100")->scale, 1.0, 0.05);
}

// Out of sample: a calibration fitted on some rows predicts others it never
// saw. Across model families on one GPU (H20: Wan rows -> HunyuanVideo rows
// and back) and across GPUs of one silicon (H800 <-> H100, Wan <->
// HunyuanVideo from different sources). The figures (docs/compute-model.md)
// are printed; the bounds are the measured errors rounded up to the next
// percent (H20 within 2%, H800/H100 within 8%).
TEST(DitFit, OutOfSample) {
  AZ_REQUIRE_SHARED_DATA(path, kDitFile);
  auto rows = ReadDitLatencies(testing::ReadTextFile(path), path);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  PipelineCache cache;
  auto select = [&](const std::string& chip, const std::string& family) {
    std::vector<DitLatency> out;
    for (const DitLatency& row : *rows) {
      if (row.chip == chip && row.model.starts_with(family)) out.push_back(row);
    }
    return out;
  };
  // Fits `train`, then prices `test` on its own chip with the fitted efficiencies.
  auto errors = [&](const std::vector<DitLatency>& train, const std::vector<DitLatency>& test) {
    auto fit = FitDitLatencies(train, cache);
    EXPECT_TRUE(fit.ok()) << fit.status().ToString();
    const ComputeCalibration fitted = fit->chips.at(0).calibration;
    auto predicted = PredictDitLatencies(test, cache, [&](const hw::ChipSpec& chip) {
      ComputeCalibration c = DefaultComputeCalibration(chip);
      c.matmul_efficiency = fitted.matmul_efficiency;
      c.attention_efficiency = fitted.attention_efficiency;
      c.convolution_efficiency = fitted.convolution_efficiency;
      return c;
    });
    EXPECT_TRUE(predicted.ok()) << predicted.status().ToString();
    std::vector<double> out;
    for (const DitFitRow& row : predicted->rows) out.push_back(row.relative_error);
    std::printf("fit on %zu %s rows (scale %.4f) -> %zu %s rows:", train.size(), train[0].chip.c_str(),
                fit->chips[0].scale, test.size(), test[0].chip.c_str());
    for (double e : out) std::printf(" %+.1f%%", 100 * e);
    std::printf("\n");
    return out;
  };
  for (double e : errors(select("h20", "wan"), select("h20", "hunyuan"))) EXPECT_LT(std::abs(e), 0.02);
  for (double e : errors(select("h20", "hunyuan"), select("h20", "wan"))) EXPECT_LT(std::abs(e), 0.02);
  for (double e : errors(select("h800", "wan"), select("h100", "hunyuan"))) EXPECT_LT(std::abs(e), 0.08);
  for (double e : errors(select("h100", "hunyuan"), select("h800", "wan"))) EXPECT_LT(std::abs(e), 0.08);
}

// The values compute_defaults.cc ships are the joint fit of the single- and
// multi-GPU videos (fidelity/scaling.h, whose test refits them); on the
// single-GPU rows alone each GPU's shipped calibration is still within 1% of
// every row's fit in median, and the sources say what the fits cannot tell.
TEST(DitFit, ShippedDefaultsPriceTheSingleGpuRows) {
  AZ_REQUIRE_SHARED_DATA(path, kDitFile);
  auto rows = ReadDitLatencies(testing::ReadTextFile(path), path);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  PipelineCache cache;
  auto shipped = PredictDitLatencies(*rows, cache, DefaultComputeCalibration);
  ASSERT_TRUE(shipped.ok()) << shipped.status().ToString();
  EXPECT_LE(shipped->median_abs_error, 0.01);
  EXPECT_TRUE(Contains(DefaultComputeCalibration(Chip("h100")).source, "--multi dit_multi_gpu_latency.csv"));
  EXPECT_TRUE(Contains(DefaultComputeCalibration(Chip("rtx4090")).source, "conservative"));
  EXPECT_TRUE(Contains(DefaultComputeCalibration(Chip("l20")).source, "checks nothing"));
}

// Chips without rows inherit the fit of their silicon's twin.
TEST(DitFit, SameSiliconInherits) {
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
