#include "price/stack.h"

#include <array>
#include <cstdio>

namespace az::price {

namespace {

struct LibraryInfo {
  AttentionLibrary library;
  std::string_view name;
  bool jax;  // a JAX kernel: always compiled, runs on TPUs
};

constexpr std::array<LibraryInfo, 7> kLibraries = {{
    {AttentionLibrary::kFlashAttention2, "fa2", false},
    {AttentionLibrary::kFlashAttention3, "fa3", false},
    {AttentionLibrary::kCudnnSdpa, "cudnn", false},
    {AttentionLibrary::kXformers, "xformers", false},
    {AttentionLibrary::kJaxFlash, "jax-flash", true},
    {AttentionLibrary::kJaxSplash, "jax-splash", true},
    {AttentionLibrary::kXlaDefault, "xla", true},
}};

const LibraryInfo& Info(AttentionLibrary library) {
  for (const LibraryInfo& info : kLibraries) {
    if (info.library == library) return info;
  }
  AZ_CHECK(false);
  return kLibraries[0];
}

// The chips a ratio row covers share the compute silicon it was measured on:
// the catalog's h100_silicon (hw/chip.h; the H800 is the H100 with NVLink
// cut, the H200 the H100 with more HBM, and the h200 inherits the h100's
// fitted efficiencies for the same reason). The H20 is Hopper too, but a
// cut-down part (148 vs 989 TFLOP/s dense bf16) whose FA2 fit already
// reaches 0.62 of its peak: an H100 ratio does not carry to it.
//
// One library against the reference on one silicon: throughput of `library`
// / throughput of the reference, both read from the same benchmark table.
struct StackRatio {
  AttentionLibrary library;
  double library_tflops, reference_tflops;
  std::string_view source;
};

// FlashAttention-3 paper (Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao,
// arXiv:2407.08608), Figure 5, "Attention forward speed, head dim 128 (H100
// 80GB SXM5)", without causal mask (Wan's, HunyuanVideo's self-attention),
// FP16; the 16k column, the longest the figure has (the DiTs attend over
// more: Wan 480p 32,760 tokens, 720p 75,600, HunyuanVideo 720p x 129 frames
// 118,800; and every library is flat from 4k on):
//   FlashAttention-2 370, cuDNN 595, FlashAttention-3 648 TFLOP/s.
// (The 8k column: 370, 600, 646, ratios within 0.9% of these. One public
// transcription of the figure reads FA2 at 16k as 395, Triton's bar in that
// column; the FA2 series is 368, 370, 370 from 4k on. Head dim 128
// is every zoo DiT's: Wan 14B 5120/40, Wan 1.3B 1536/12, HunyuanVideo
// 3072/24.)
constexpr std::array<StackRatio, 2> kH100Ratios = {{
    {AttentionLibrary::kFlashAttention3, 648, 370,
     "FlashAttention-3 paper (arXiv:2407.08608) Fig. 5, H100 SXM5, head dim 128, no causal mask, 16k: FA3 648 / FA2 "
     "370 TFLOP/s"},
    {AttentionLibrary::kCudnnSdpa, 595, 370,
     "FlashAttention-3 paper (arXiv:2407.08608) Fig. 5, H100 SXM5, head dim 128, no causal mask, 16k: cuDNN 595 / FA2 "
     "370 TFLOP/s"},
}};

std::string Fixed(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

}  // namespace

std::string_view AttentionLibraryName(AttentionLibrary library) { return Info(library).name; }

std::string_view ExecutionModeName(ExecutionMode mode) { return mode == ExecutionMode::kEager ? "eager" : "compiled"; }

std::string StackName(const SoftwareStack& stack) {
  const LibraryInfo& info = Info(stack.attention);
  const ExecutionMode usual = info.jax ? ExecutionMode::kCompiled : ExecutionMode::kEager;
  std::string name(info.name);
  if (stack.mode != usual) name += "+" + std::string(ExecutionModeName(stack.mode));
  return name;
}

std::string StackLibraryNames() {
  std::string names;
  for (const LibraryInfo& info : kLibraries) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

StatusOr<SoftwareStack> ParseSoftwareStack(std::string_view text, std::string_view where) {
  const std::string prefix = std::string(where) + ": ";
  const size_t plus = text.find('+');
  const std::string_view library_text = text.substr(0, plus);
  const LibraryInfo* found = nullptr;
  for (const LibraryInfo& info : kLibraries) {
    if (info.name == library_text) found = &info;
  }
  if (!found) {
    return InvalidArgument(prefix + "unknown attention library '" + std::string(library_text) +
                           "' (valid: " + StackLibraryNames() + "; optionally +eager or +compiled)");
  }
  SoftwareStack stack;
  stack.attention = found->library;
  stack.mode = found->jax ? ExecutionMode::kCompiled : ExecutionMode::kEager;
  if (plus == std::string_view::npos) return stack;
  const std::string_view mode = text.substr(plus + 1);
  if (mode == "compiled") {
    stack.mode = ExecutionMode::kCompiled;
  } else if (mode == "eager") {
    if (found->jax) {
      return InvalidArgument(prefix + "'" + std::string(text) + "': " + std::string(found->name) +
                             " is a JAX kernel, always run compiled (jit)");
    }
    stack.mode = ExecutionMode::kEager;
  } else {
    return InvalidArgument(prefix + "unknown execution mode '" + std::string(mode) + "' in '" + std::string(text) +
                           "' (valid: eager, compiled)");
  }
  return stack;
}

bool HopperGpu(const hw::ChipSpec& chip) {
  return chip.family == hw::ChipFamily::kGpu && chip.architecture == hw::Architecture::kHopper;
}

AttentionLibrary ReferenceAttentionLibrary(const hw::ChipSpec& chip) {
  return chip.family == hw::ChipFamily::kTpu ? AttentionLibrary::kJaxFlash : AttentionLibrary::kFlashAttention2;
}

StatusOr<AttentionRatio> AttentionSpeedup(const hw::ChipSpec& chip, AttentionLibrary library) {
  const AttentionLibrary reference = ReferenceAttentionLibrary(chip);
  const std::string name(AttentionLibraryName(library));
  if (library == reference) {
    return AttentionRatio{1.0, "the chip's calibration (" + name + " is its reference library)"};
  }
  const bool tpu = chip.family == hw::ChipFamily::kTpu;
  if (tpu && !Info(library).jax) {
    return InvalidArgument("attention library " + name + " runs on NVIDIA GPUs, not on " + chip.name +
                           " (TPU libraries: jax-flash, jax-splash, xla)");
  }
  if (library == AttentionLibrary::kFlashAttention3 && !HopperGpu(chip)) {
    return InvalidArgument("fa3 runs on Hopper (sm90) GPUs only (FlashAttention-3's requirements: H100 / H800); " +
                           chip.name + " is not one");
  }
  if (chip.h100_silicon) {
    for (const StackRatio& row : kH100Ratios) {
      if (row.library != library) continue;
      return AttentionRatio{row.library_tflops / row.reference_tflops, std::string(row.source)};
    }
  }
  return InvalidArgument("no public benchmark gives " + name + " against " +
                         std::string(AttentionLibraryName(reference)) + " on " + chip.name +
                         ", so it cannot be priced (sourced: fa3 and cudnn against fa2 on h100, h800, h200; calibrate "
                         "the stack's kernels with 'aoizora calibrate --kernels' and plan with --calibration)");
}

Status ApplySoftwareStack(const hw::ChipSpec& chip, const SoftwareStack& stack, ComputeCalibration* c) {
  AZ_ASSIGN_OR_RETURN(AttentionRatio speedup, AttentionSpeedup(chip, stack.attention));
  if (speedup.ratio == 1.0) return Status::Ok();
  const double efficiency = c->attention_efficiency * speedup.ratio;
  if (efficiency > 1.0) {
    return InvalidArgument("stack " + StackName(stack) + " on " + chip.name +
                           ": the calibration's attention efficiency " + Fixed(c->attention_efficiency, 4) + " times " +
                           Fixed(speedup.ratio, 4) + " (" + speedup.source +
                           ") exceeds 1: the ratio does not carry to this calibration");
  }
  c->attention_efficiency = efficiency;
  return Status::Ok();
}

}  // namespace az::price
