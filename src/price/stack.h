// The software stack a plan is priced with: which attention kernel library the
// deployed code calls, and whether it runs eagerly or as a compiled graph.
//
// Why it is part of the recipe. The shipped compute calibrations
// (hw/chip.cc: fitted_compute) are whole-video fits of code that calls FlashAttention 2
// (Wan 2.1's and HunyuanVideo's reference repositories; diffusers for the L20
// rows), so their attention efficiency is FA2's on that chip: 0.36 of the
// bf16 peak on H100 / H800. Code that runs FlashAttention 3 on the same chip
// (Wan 2.2's) does the same attention FLOPs 1.75x faster.
//
// How a library is priced. Each chip keeps one reference library whose
// efficiency is the calibration's own attention_efficiency (GPUs: FA2, the
// library of the fits; TPUs: JAX's flash kernel as MaxDiffusion calls it, the
// kernel the documented TPU default stands for). Another library is priced as
// the reference times the ratio of the two libraries' throughputs measured in
// one public benchmark on the same chip generation, at the head dim and the
// longest sequence that benchmark has (kStackRatios in stack.cc, each row with
// its source):
//
//   attention_efficiency(library) = attention_efficiency(reference) x ratio
//
// so the reference stack reproduces today's prices exactly (ratio 1, the
// calibration untouched), and no library gets a second, unrelated number. A
// (library, chip) pair without a sourced ratio is refused with the reason; a
// product above 1 is refused too (the ratio does not carry to that chip).
//
// Execution mode. Eager PyTorch and a compiled graph (torch.compile, JAX's
// jit) are recorded and printed but priced alike: the compiled programs the
// planner prices are already fused (compile/spmd/schedule.cc), and no public
// figure separates the two modes on these DiTs. JAX libraries are always
// compiled; `+eager` is refused for them.
//
// Text form: `<library>[+eager|+compiled]`, library one of the names below
// (kLibraries in stack.cc: fa2, fa3, cudnn, xformers, jax-flash, jax-splash,
// xla). The mode defaults to eager on GPU libraries and compiled on JAX ones.
#pragma once

#include <string>
#include <string_view>

#include "hw/chip.h"
#include "price/compute.h"
#include "support/status.h"

namespace az::price {

enum class AttentionLibrary {
  kFlashAttention2,  // fa2: Dao-AILab flash-attn 2.x (flash_attn_func / varlen)
  kFlashAttention3,  // fa3: flash-attn's Hopper build (flash_attn_interface), sm90 only
  kCudnnSdpa,        // cudnn: cuDNN's fused flash attention (PyTorch SDPA's CUDNN_ATTENTION backend)
  kXformers,         // xformers: xformers.ops.memory_efficient_attention (CUTLASS)
  kJaxFlash,         // jax-flash: the Pallas flash-attention kernel MaxDiffusion calls on TPU ("flash")
  kJaxSplash,        // jax-splash: Pallas splash attention (jax.experimental.pallas.ops.tpu.splash_attention)
  kXlaDefault,       // xla: jnp einsum + softmax, XLA's own lowering ("dot_product" in MaxDiffusion)
};

enum class ExecutionMode { kEager, kCompiled };

struct SoftwareStack {
  AttentionLibrary attention = AttentionLibrary::kFlashAttention2;
  ExecutionMode mode = ExecutionMode::kEager;
  bool operator==(const SoftwareStack&) const = default;
};

std::string_view AttentionLibraryName(AttentionLibrary library);
std::string_view ExecutionModeName(ExecutionMode mode);
// "fa3", "fa2+compiled": the mode is printed only where it is not the library's default.
std::string StackName(const SoftwareStack& stack);
// The valid library names, comma-separated, for error messages and --help.
std::string StackLibraryNames();
// Parses the text form above. `where` prefixes the error ("--stack"): an
// unknown library or mode names the valid ones.
StatusOr<SoftwareStack> ParseSoftwareStack(std::string_view text, std::string_view where);

// NVIDIA Hopper (sm90) parts of the catalog: h100, h800, h200, h20 (NVIDIA's
// Hopper architecture; hw/chip.cc's long names).
bool HopperGpu(const hw::ChipSpec& chip);

// The library whose efficiency a chip's calibration describes (fa2 on GPUs,
// jax-flash on TPUs).
AttentionLibrary ReferenceAttentionLibrary(const hw::ChipSpec& chip);

// How fast `library` runs attention on `chip` relative to the chip's
// reference library, and the source of the figure.
struct AttentionRatio {
  double ratio = 1;
  std::string source;
};
// Error (InvalidArgument) when the library does not run on the chip, or no
// public benchmark gives the ratio for the chip's generation.
StatusOr<AttentionRatio> AttentionSpeedup(const hw::ChipSpec& chip, AttentionLibrary library);

// Prices `stack` on `chip`: multiplies c->attention_efficiency by the ratio
// (the reference library leaves `c` exactly as it was). Errors as
// AttentionSpeedup, and when the product exceeds 1.
Status ApplySoftwareStack(const hw::ChipSpec& chip, const SoftwareStack& stack, ComputeCalibration* c);

}  // namespace az::price
