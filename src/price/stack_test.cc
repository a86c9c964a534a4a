// The software stack (stack.h): its text form, the sourced library ratios,
// the reference library leaving every shipped calibration as it was, and the
// refusals where no figure exists (a stack over a whole forward:
// fidelity/video_fit_test.cc).
#include "price/stack.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "hw/chip.h"
#include "hw/testing.h"
#include "price/compute.h"

namespace az::price {
namespace {

using hw_test::Chip;

TEST(Stack, ParsesEveryLibraryAndMode) {
  auto fa3 = ParseSoftwareStack("fa3", "--stack");
  ASSERT_TRUE(fa3.ok()) << fa3.status().ToString();
  EXPECT_EQ(fa3->attention, AttentionLibrary::kFlashAttention3);
  EXPECT_EQ(fa3->mode, ExecutionMode::kEager);  // a GPU library's default

  auto compiled = ParseSoftwareStack("fa2+compiled", "--stack");
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ(compiled->attention, AttentionLibrary::kFlashAttention2);
  EXPECT_EQ(compiled->mode, ExecutionMode::kCompiled);

  auto splash = ParseSoftwareStack("jax-splash", "--stack");
  ASSERT_TRUE(splash.ok());
  EXPECT_EQ(splash->mode, ExecutionMode::kCompiled);  // JAX: always jit

  // Print -> parse -> print over every library and mode that parses.
  for (const char* text : {"fa2", "fa3", "cudnn", "xformers", "jax-flash", "jax-splash", "xla", "fa2+compiled",
                           "fa3+compiled", "cudnn+compiled", "xformers+compiled"}) {
    auto stack = ParseSoftwareStack(text, "--stack");
    ASSERT_TRUE(stack.ok()) << text;
    EXPECT_EQ(StackName(*stack), text);
    auto again = ParseSoftwareStack(StackName(*stack), "--stack");
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *stack);
  }
  // The default mode spelled out prints without it.
  EXPECT_EQ(StackName(*ParseSoftwareStack("fa3+eager", "--stack")), "fa3");
  EXPECT_EQ(StackName(*ParseSoftwareStack("xla+compiled", "--stack")), "xla");
}

TEST(Stack, UnknownNamesListTheValidOnes) {
  auto unknown = ParseSoftwareStack("fa4", "--stack");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "--stack: unknown attention library 'fa4' (valid: fa2, fa3, cudnn, xformers, jax-flash, jax-splash, xla; "
            "optionally +eager or +compiled)");
  EXPECT_FALSE(ParseSoftwareStack("", "--stack").ok());
  EXPECT_FALSE(ParseSoftwareStack("FA3", "--stack").ok());  // names are lower case, as listed

  auto mode = ParseSoftwareStack("fa3+jit", "stack=");
  ASSERT_FALSE(mode.ok());
  EXPECT_EQ(mode.status().message(), "stack=: unknown execution mode 'jit' in 'fa3+jit' (valid: eager, compiled)");

  auto eager_jax = ParseSoftwareStack("jax-flash+eager", "--stack");
  ASSERT_FALSE(eager_jax.ok());
  EXPECT_NE(eager_jax.status().message().find("always run compiled"), std::string::npos);
}

TEST(Stack, ReferenceLibraryLeavesEveryCalibrationExactly) {
  // The shipped fits were made on FA2 stacks (hw/chip.cc: fitted_compute), the TPU
  // defaults stand for JAX's flash kernel: pricing either on its chips must
  // not move a single bit of the calibration, so every existing price stays.
  for (const hw::ChipSpec& chip : hw::ChipCatalog()) {
    const ComputeCalibration shipped = DefaultComputeCalibration(chip);
    ComputeCalibration c = shipped;
    SoftwareStack reference{ReferenceAttentionLibrary(chip),
                            chip.family == hw::ChipFamily::kTpu ? ExecutionMode::kCompiled : ExecutionMode::kEager};
    ASSERT_TRUE(ApplySoftwareStack(chip, reference, &c).ok()) << chip.name;
    EXPECT_EQ(ComputeCalibrationToJson(c), ComputeCalibrationToJson(shipped)) << chip.name;
    // The execution mode is recorded, not priced (stack.h).
    if (chip.family == hw::ChipFamily::kGpu) {
      ComputeCalibration compiled = shipped;
      ASSERT_TRUE(ApplySoftwareStack(chip, {AttentionLibrary::kFlashAttention2, ExecutionMode::kCompiled}, &compiled)
                      .ok());
      EXPECT_EQ(compiled.attention_efficiency, shipped.attention_efficiency) << chip.name;
    }
  }
  // Today's fitted attention efficiencies (hw/chip.cc: fitted_compute) are what fa2 prices with.
  ComputeCalibration h100 = DefaultComputeCalibration(Chip("h100"));
  ASSERT_TRUE(ApplySoftwareStack(Chip("h100"), {}, &h100).ok());
  EXPECT_EQ(h100.attention_efficiency, 0.3569);
  ComputeCalibration h800 = DefaultComputeCalibration(Chip("h800"));
  ASSERT_TRUE(ApplySoftwareStack(Chip("h800"), {}, &h800).ok());
  EXPECT_EQ(h800.attention_efficiency, 0.3584);
}

TEST(Stack, Fa3OverFa2IsThePaperTablesRatio) {
  // FlashAttention-3 paper, Fig. 5, head dim 128, no causal mask, H100 SXM5,
  // 16k tokens: FA3 648, cuDNN 595, FA2 370 TFLOP/s.
  auto fa3 = AttentionSpeedup(Chip("h100"), AttentionLibrary::kFlashAttention3);
  ASSERT_TRUE(fa3.ok()) << fa3.status().ToString();
  EXPECT_DOUBLE_EQ(fa3->ratio, 648.0 / 370.0);  // 1.75135
  EXPECT_NE(fa3->source.find("2407.08608"), std::string::npos);
  auto cudnn = AttentionSpeedup(Chip("h100"), AttentionLibrary::kCudnnSdpa);
  ASSERT_TRUE(cudnn.ok());
  EXPECT_DOUBLE_EQ(cudnn->ratio, 595.0 / 370.0);  // 1.60811
  // H800 and H200 are H100 compute silicon: the same ratio.
  EXPECT_DOUBLE_EQ(AttentionSpeedup(Chip("h800"), AttentionLibrary::kFlashAttention3)->ratio, 648.0 / 370.0);
  EXPECT_DOUBLE_EQ(AttentionSpeedup(Chip("h200"), AttentionLibrary::kFlashAttention3)->ratio, 648.0 / 370.0);
}

TEST(Stack, Fa3PricesWan720pSelfAttention) {
  // Wan 2.1 14B's 720p self-attention, one sample: 40 heads x 75,600 tokens x
  // head dim 128, F = 4 * 40 * 75600^2 * 128 = 117,050,572,800,000 FLOPs.
  // On an H100 (989 TFLOP/s bf16, 132 SMs): q and kv pad to 75,648 (591
  // blocks of 128), 40 * 591 = 23,640 tiles in ceil(23640/132) = 180 waves,
  // padding (75648/75600)^2 * 180 * 132 / 23640 = 1.0063528.
  //   fa2: efficiency 0.3569 (the shipped h100 fit):
  //        5 us + F * 1.0063528 / (989e12 * 0.3569)              = 0.333724 s
  //   fa3: efficiency 0.3569 * 648 / 370 = 0.625057:
  //        5 us + F * 1.0063528 / (989e12 * 0.625057)            = 0.190554 s
  // Compute times (the overhead aside) differ by exactly 648 / 370.
  const hw::ChipSpec& h100 = Chip("h100");
  const Flops flops(4LL * 40 * 75600 * 75600 * 128);
  const std::vector<int64_t> dims = {40, 75600, 75600, 128};
  ComputeCalibration fa2 = DefaultComputeCalibration(h100), fa3 = fa2;
  ASSERT_TRUE(ApplySoftwareStack(h100, {AttentionLibrary::kFlashAttention2}, &fa2).ok());
  ASSERT_TRUE(ApplySoftwareStack(h100, {AttentionLibrary::kFlashAttention3}, &fa3).ok());
  EXPECT_NEAR(fa3.attention_efficiency, 0.3569 * 648 / 370, 1e-15);  // 0.6250573
  EXPECT_EQ(fa3.matmul_efficiency, fa2.matmul_efficiency);  // only attention moves
  EXPECT_EQ(fa3.convolution_efficiency, fa2.convolution_efficiency);
  auto fa2_model = ComputeModel::Create(h100, fa2);
  auto fa3_model = ComputeModel::Create(h100, fa3);
  ASSERT_TRUE(fa2_model.ok() && fa3_model.ok());
  KernelTime t2 = fa2_model->Time(cir::KernelKind::kAttention, flops, Bytes(0), dims);
  KernelTime t3 = fa3_model->Time(cir::KernelKind::kAttention, flops, Bytes(0), dims);
  EXPECT_NEAR(t2.time.value(), 0.3337240, 1e-6);
  EXPECT_NEAR(t3.time.value(), 0.1905544, 1e-6);
  EXPECT_NEAR(t2.compute_time.value() / t3.compute_time.value(), 648.0 / 370.0, 1e-12);
}

TEST(Stack, RefusesWhereNoFigureExists) {
  auto message = [](const char* chip, AttentionLibrary library) {
    auto r = AttentionSpeedup(Chip(chip), library);
    EXPECT_FALSE(r.ok()) << chip;
    return r.ok() ? std::string() : r.status().message();
  };
  // FA3 is a Hopper kernel.
  EXPECT_NE(message("a100", AttentionLibrary::kFlashAttention3).find("Hopper (sm90) GPUs only"), std::string::npos);
  EXPECT_NE(message("b200", AttentionLibrary::kFlashAttention3).find("Hopper (sm90) GPUs only"), std::string::npos);
  // The H20 is Hopper, but the paper measured the H100: no figure.
  EXPECT_NE(message("h20", AttentionLibrary::kFlashAttention3).find("no public benchmark gives fa3 against fa2 on h20"),
            std::string::npos);
  EXPECT_NE(message("a100", AttentionLibrary::kCudnnSdpa).find("no public benchmark"), std::string::npos);
  EXPECT_NE(message("h100", AttentionLibrary::kXformers).find("no public benchmark"), std::string::npos);
  // GPU libraries on a TPU, and TPU libraries without a figure.
  EXPECT_NE(message("v5e", AttentionLibrary::kFlashAttention2).find("runs on NVIDIA GPUs"), std::string::npos);
  EXPECT_NE(message("v5e", AttentionLibrary::kJaxSplash).find("against jax-flash on v5e"), std::string::npos);
  EXPECT_NE(message("v6e", AttentionLibrary::kXlaDefault).find("no public benchmark"), std::string::npos);
  EXPECT_NE(message("h100", AttentionLibrary::kJaxFlash).find("no public benchmark"), std::string::npos);
  // The reference library is always priced.
  EXPECT_TRUE(AttentionSpeedup(Chip("v5e"), AttentionLibrary::kJaxFlash).ok());
  EXPECT_TRUE(AttentionSpeedup(Chip("b200"), AttentionLibrary::kFlashAttention2).ok());
}

TEST(Stack, RefusesAnEfficiencyAboveOne) {
  // The documented default attention efficiency 0.6 times 648/370 is 1.0508:
  // the ratio, measured against FA2's 0.37 of the peak, does not carry to a
  // calibration that already sits at 0.6.
  const hw::ChipSpec& h100 = Chip("h100");
  ComputeCalibration c = DefaultComputeCalibration(h100);
  c.attention_efficiency = 0.6;
  Status s = ApplySoftwareStack(h100, {AttentionLibrary::kFlashAttention3}, &c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("0.6000 times 1.7514"), std::string::npos) << s.message();
  EXPECT_EQ(c.attention_efficiency, 0.6);  // untouched
}

// Chip traits are catalog fields (hw/chip.h), and pricing reads no chip name:
// every catalog entry under another name gets the same compute calibration
// and the same software-stack answers, so a new chip is one catalog entry.
TEST(Stack, ARenamedChipPricesAsTheOriginal) {
  for (const hw::ChipSpec& chip : hw::ChipCatalog()) {
    hw::ChipSpec renamed = chip;
    renamed.name = "renamed-" + chip.name;
    ComputeCalibration original = DefaultComputeCalibration(chip), copy = DefaultComputeCalibration(renamed);
    EXPECT_EQ(copy.chip, renamed.name);
    copy.chip = original.chip;
    EXPECT_EQ(ComputeCalibrationToJson(copy), ComputeCalibrationToJson(original)) << chip.name;
    EXPECT_EQ(HopperGpu(renamed), HopperGpu(chip)) << chip.name;
    for (AttentionLibrary library : {AttentionLibrary::kFlashAttention3, AttentionLibrary::kCudnnSdpa,
                                     AttentionLibrary::kXformers, AttentionLibrary::kJaxSplash}) {
      auto a = AttentionSpeedup(chip, library), b = AttentionSpeedup(renamed, library);
      ASSERT_EQ(a.ok(), b.ok()) << chip.name << " " << AttentionLibraryName(library);
      if (a.ok()) {
        EXPECT_EQ(a->ratio, b->ratio) << chip.name << " " << AttentionLibraryName(library);
      }
    }
  }
}

TEST(Stack, HopperParts) {
  for (const char* name : {"h100", "h800", "h200", "h20"}) EXPECT_TRUE(HopperGpu(Chip(name))) << name;
  for (const char* name : {"a100", "a800", "b200", "l40s", "rtx4090", "v5e"}) {
    EXPECT_FALSE(HopperGpu(Chip(name))) << name;
  }
}

}  // namespace
}  // namespace az::price
