// CIR — the compiled-program IR: the one SPMD program every device runs.
//
// Semantics. A Program is a list of instructions in *schedule order* (the order
// one device issues them) over buffers (per-device memory: local shapes and
// bytes). Instructions:
//   kernel               a fused computation: kind, FLOPs, bytes read and
//                        written, local shapes through its operand/result buffers
//   <collective>         a blocking collective
//   <collective>-start / <collective>-done
//                        an asynchronous collective: the start issues it, the
//                        done (naming its start) waits for it; instructions
//                        between the two overlap with it
// Collectives name their replica groups in *logical* device ids (partition ids:
// row-major positions in the mesh), never physical chips; collective-permute
// names source->target pairs instead. `bytes` follows net/collective.h: the
// per-device buffer (all-gather: the gathered result; reduce-scatter and
// all-reduce: the unreduced operand; all-to-all: the buffer sent; permute: the
// buffer each source sends).
//
// Buffers: kind (parameter, input, activation, communication, constant,
// optimizer state, gradient),
// dtype, local shape, bytes. An instruction reads its operand buffers and
// writes its result buffers; a buffer is live from its first write (params and
// inputs: from the start) to its last read (graph outputs: to the end).
//
// Invariants (verifier): buffer and instruction ids dense and in range; every
// operand buffer written before it is read (or a parameter/input/constant);
// every -done names an earlier -start of the same kind that no other done
// names, and every start has a done; groups are disjoint and inside
// [0, num_devices); bytes and FLOPs non-negative.
//
// VerifyProgram also checks, because the text form and the pricing rely on
// them: 1 <= num_devices <= 2^20; instruction names non-empty and unique;
// kernel dims: at most 8, each in [0, 2^40];
// buffer shapes with non-negative dims, rank <= 64, at most 2^62 elements and
// 2^62 bytes; a collective-permute has pairs (each device sends at most once
// and receives at most once, ids in range) and no groups, every other
// collective has non-empty groups and no pairs; the result buffers of a -start
// are neither read nor written by another instruction until its -done (the
// transfer is in flight); outputs are buffers. It reports every problem (up to
// 100, then a count), each located at the instruction (file:line:col for
// parsed programs, the instruction's name for built ones), in linear time.
//
// The canonical text form is in cir/text/parser.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "cir/collective.h"
#include "pir/ir/types.h"
#include "support/diagnostic.h"
#include "support/units.h"

namespace az::cir {

// Limits that keep counts inside int, sizes inside int64 and work bounded. The
// parser answers kResourceExhausted past them; the verifier rejects them.
constexpr int64_t kMaxProgramDevices = int64_t{1} << 20;
constexpr int64_t kMaxProgramBuffers = 1'000'000;
constexpr int64_t kMaxProgramInstructions = 1'000'000;
constexpr int64_t kMaxBufferRank = 64;
constexpr int64_t kMaxBufferElements = int64_t{1} << 62;
constexpr int64_t kMaxBufferBytes = int64_t{1} << 62;
constexpr size_t kMaxKernelDims = 8;
constexpr int64_t kMaxKernelDim = int64_t{1} << 40;

// kOptimizerState: a training step's optimizer states (pir::ValueRole::kOptimizerState).
// kGradient: a parameter's gradient as the optimizer reads it (reduced over
// the data-parallel devices, and under FSDP sharded); the unreduced partial
// sum the backward writes first is a working (activation) buffer. Gradient
// buffers are the step's gradient accumulators, live for the whole program
// like the parameters: ZeRO counts them among the model states, PyTorch
// keeps them as .grad, a gradient-accumulation loop carries them.
enum class BufferKind { kParameter, kInput, kActivation, kCommunication, kConstant, kOptimizerState, kGradient };
constexpr size_t kNumBufferKinds = 7;
// The text keyword: "param", "input", "activation", "communication", "const", "opt_state", "grad".
std::string_view BufferKindName(BufferKind kind);
std::optional<BufferKind> ParseBufferKind(std::string_view name);

struct Buffer {
  std::string name;
  BufferKind kind = BufferKind::kActivation;
  pir::DType dtype = pir::DType::kBF16;
  pir::Shape shape;     // local (per-device) shape
  SourceLocation loc;   // parsed programs: where it was declared
  // Only for verified buffers (the product must not overflow).
  Bytes bytes() const { return Bytes(pir::TensorType{dtype, shape}.NumBytes()); }
};

enum class KernelKind { kMatmul, kAttention, kConvolution, kElementwise, kNorm, kReduce, kCopy, kCustom };
// "matmul", "attention", "convolution", "elementwise", "norm", "reduce", "copy", "custom".
std::string_view KernelKindName(KernelKind kind);
std::optional<KernelKind> ParseKernelKind(std::string_view name);

enum class InstrKind { kKernel, kCollective, kCollectiveStart, kCollectiveDone };

struct Instruction {
  InstrKind kind = InstrKind::kKernel;
  std::string name;    // unique in the program: "blocks.0.self_attn.q", "all-to-all.3"
  std::string origin;  // the PIR ops it came from, for reports
  std::vector<int> operands;  // buffer ids read
  std::vector<int> results;   // buffer ids written
  // Kernels.
  KernelKind kernel = KernelKind::kElementwise;
  Flops flops;
  Bytes bytes_read, bytes_written;
  // The problem shape the compute model tiles (pir::ProblemDims: matmul and
  // convolution {batch, m, n, k}, attention {batch * heads, q, kv, head dim});
  // empty when unknown or not a matrix-unit kernel.
  std::vector<int64_t> dims;
  // The element type the matrix units read for a matmul, attention or
  // convolution kernel (the op's inputs; an einsum of bf16 x f32 reads f32),
  // which picks the rate the compute model prices it at (price/compute.h: f32
  // convolutions run as TF32 on GPUs). bf16 for every other kernel, and when
  // unknown.
  pir::DType precision = pir::DType::kBF16;
  // Collectives (kCollective, kCollectiveStart; a done repeats its start's kind).
  CollectiveKind collective = CollectiveKind::kAllReduce;
  Bytes collective_bytes;
  ReplicaGroups groups;
  std::vector<std::pair<int, int>> pairs;  // collective-permute
  int start = -1;                          // kCollectiveDone: the index of its start
  SourceLocation loc;                      // parsed programs: where it was written
};

// The instruction's opcode as the text spells it: "kernel", "all-reduce",
// "all-gather-start", "all-gather-done".
std::string OpcodeName(const Instruction& instruction);

struct Program {
  std::string name;
  int64_t num_devices = 1;
  std::string mesh;  // "x=2,y=4": informative; groups already hold logical ids
  std::vector<Buffer> buffers;
  std::vector<Instruction> instructions;  // schedule order
  std::vector<int> outputs;               // buffer ids live at the end

  int AddBuffer(Buffer buffer);
  int AddInstruction(Instruction instruction);
};

Status VerifyProgram(const Program& program, const SourceBuffer* source = nullptr);

// Totals over one device's program (every device runs the same program).
//
// Peak memory, by liveness over the schedule order: parameters, inputs,
// constants, optimizer states and gradients are live for the whole program; an activation or communication
// buffer is live from the first instruction that accesses it (in a verified
// program, its first write) to the last one that reads or writes it, and
// outputs to the end. An asynchronous collective keeps its operand and result
// buffers live from its -start through its -done, since the transfer reads and
// writes them in between. The peak is the maximum over instructions of the
// bytes live while the instruction runs (the static bytes when there are no
// instructions). Sums saturate at the int64 maximum rather than wrap, so an
// unverified program cannot overflow them.
struct ProgramSummary {
  Flops flops;
  Bytes bytes_read, bytes_written;
  int kernels = 0;
  // Per collective kind: count and bytes. One entry per kind that occurs, in
  // CollectiveKind order; a -start counts, its -done does not.
  std::vector<std::tuple<CollectiveKind, int, Bytes>> collectives;
  Bytes parameter_bytes;
  Bytes peak_memory;  // liveness over the schedule (see above)
  // The bytes live at the peak (the first instruction reaching it), per
  // buffer kind (indexed by BufferKind); they sum to peak_memory.
  std::array<Bytes, kNumBufferKinds> peak_by_kind{};
};
ProgramSummary Summarize(const Program& program);

}  // namespace az::cir
