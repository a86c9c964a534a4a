#include "cir/program.h"

#include <algorithm>
#include <limits>

namespace az::cir {

namespace {

constexpr BufferKind kBufferKinds[kNumBufferKinds] = {BufferKind::kParameter, BufferKind::kInput, BufferKind::kActivation,
                                       BufferKind::kCommunication, BufferKind::kConstant, BufferKind::kOptimizerState,
                                       BufferKind::kGradient};
constexpr KernelKind kKernelKinds[] = {KernelKind::kMatmul, KernelKind::kAttention, KernelKind::kConvolution,
                                       KernelKind::kElementwise, KernelKind::kNorm, KernelKind::kReduce,
                                       KernelKind::kCopy, KernelKind::kCustom};
constexpr CollectiveKind kCollectiveKinds[] = {CollectiveKind::kAllReduce,     CollectiveKind::kAllGather,
                                               CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll,
                                               CollectiveKind::kCollectivePermute, CollectiveKind::kBroadcast};

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Sums in 128 bits, clamped once at the end: 10^6 buffers of at most 2^63
// bytes stay far inside 2^127, so no partial sum can wrap.
using Wide = __int128;
int64_t Clamp(Wide value) {
  if (value > kInt64Max) return kInt64Max;
  if (value < -kInt64Max) return -kInt64Max;
  return static_cast<int64_t>(value);
}

// Bytes of a buffer whatever its shape: Buffer::bytes() may overflow on an
// unverified one. Negative dims count as 0; overflow saturates.
int64_t SaturatingBytes(const Buffer& buffer) {
  Wide bytes = pir::DTypeBytes(buffer.dtype);
  for (int64_t dim : buffer.shape) {
    if (dim <= 0) return 0;
    bytes *= dim;
    if (bytes > kInt64Max) return kInt64Max;
  }
  return static_cast<int64_t>(bytes);
}

bool IsStatic(BufferKind kind) {
  return kind == BufferKind::kParameter || kind == BufferKind::kInput || kind == BufferKind::kConstant ||
         kind == BufferKind::kOptimizerState || kind == BufferKind::kGradient;
}

}  // namespace

std::string_view BufferKindName(BufferKind kind) {
  switch (kind) {
    case BufferKind::kParameter: return "param";
    case BufferKind::kInput: return "input";
    case BufferKind::kActivation: return "activation";
    case BufferKind::kCommunication: return "communication";
    case BufferKind::kConstant: return "const";
    case BufferKind::kOptimizerState: return "opt_state";
    case BufferKind::kGradient: return "grad";
  }
  return "activation";
}

std::optional<BufferKind> ParseBufferKind(std::string_view name) {
  for (BufferKind kind : kBufferKinds) {
    if (BufferKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

std::string_view KernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::kMatmul: return "matmul";
    case KernelKind::kAttention: return "attention";
    case KernelKind::kConvolution: return "convolution";
    case KernelKind::kElementwise: return "elementwise";
    case KernelKind::kNorm: return "norm";
    case KernelKind::kReduce: return "reduce";
    case KernelKind::kCopy: return "copy";
    case KernelKind::kCustom: return "custom";
  }
  return "elementwise";
}

std::optional<KernelKind> ParseKernelKind(std::string_view name) {
  for (KernelKind kind : kKernelKinds) {
    if (KernelKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

std::string OpcodeName(const Instruction& instruction) {
  switch (instruction.kind) {
    case InstrKind::kKernel: return "kernel";
    case InstrKind::kCollective: return std::string(CollectiveKindName(instruction.collective));
    case InstrKind::kCollectiveStart: return std::string(CollectiveKindName(instruction.collective)) + "-start";
    case InstrKind::kCollectiveDone: return std::string(CollectiveKindName(instruction.collective)) + "-done";
  }
  return "kernel";
}

int Program::AddBuffer(Buffer buffer) {
  AZ_CHECK(buffers.size() < static_cast<size_t>(std::numeric_limits<int>::max()));
  buffers.push_back(std::move(buffer));
  return static_cast<int>(buffers.size() - 1);
}

int Program::AddInstruction(Instruction instruction) {
  AZ_CHECK(instructions.size() < static_cast<size_t>(std::numeric_limits<int>::max()));
  instructions.push_back(std::move(instruction));
  return static_cast<int>(instructions.size() - 1);
}

ProgramSummary Summarize(const Program& program) {
  ProgramSummary summary;
  const int num_buffers = static_cast<int>(program.buffers.size());
  const int num_instructions = static_cast<int>(program.instructions.size());
  auto valid_buffer = [&](int id) { return id >= 0 && id < num_buffers; };

  Wide flops = 0, bytes_read = 0, bytes_written = 0, parameter_bytes = 0;
  Wide collective_count[std::size(kCollectiveKinds)] = {};
  Wide collective_bytes[std::size(kCollectiveKinds)] = {};
  for (const Instruction& instruction : program.instructions) {
    if (instruction.kind == InstrKind::kKernel) {
      ++summary.kernels;
      flops += instruction.flops.value();
      bytes_read += instruction.bytes_read.value();
      bytes_written += instruction.bytes_written.value();
    } else if (instruction.kind != InstrKind::kCollectiveDone) {
      auto kind = static_cast<size_t>(instruction.collective);
      if (kind < std::size(kCollectiveKinds)) {
        ++collective_count[kind];
        collective_bytes[kind] += instruction.collective_bytes.value();
      }
    }
  }
  summary.flops = Flops(Clamp(flops));
  summary.bytes_read = Bytes(Clamp(bytes_read));
  summary.bytes_written = Bytes(Clamp(bytes_written));
  for (size_t kind = 0; kind < std::size(kCollectiveKinds); ++kind) {
    if (collective_count[kind] == 0) continue;
    summary.collectives.emplace_back(kCollectiveKinds[kind], static_cast<int>(collective_count[kind]),
                                     Bytes(Clamp(collective_bytes[kind])));
  }

  // Live range [first, last] per dynamic buffer, in instruction indices.
  std::vector<int> first(static_cast<size_t>(num_buffers), num_instructions);
  std::vector<int> last(static_cast<size_t>(num_buffers), -1);
  auto touch = [&](int buffer, int index) {
    if (!valid_buffer(buffer)) return;
    first[buffer] = std::min(first[buffer], index);
    last[buffer] = std::max(last[buffer], index);
  };
  for (int index = 0; index < num_instructions; ++index) {
    const Instruction& instruction = program.instructions[index];
    for (int buffer : instruction.operands) touch(buffer, index);
    for (int buffer : instruction.results) touch(buffer, index);
    // A done keeps its start's buffers live until the transfer completes.
    if (instruction.kind == InstrKind::kCollectiveDone && instruction.start >= 0 &&
        instruction.start < num_instructions) {
      const Instruction& start = program.instructions[instruction.start];
      for (int buffer : start.operands) touch(buffer, index);
      for (int buffer : start.results) touch(buffer, index);
    }
  }
  for (int buffer : program.outputs) {
    if (valid_buffer(buffer) && last[buffer] >= 0) last[buffer] = num_instructions - 1;
  }

  // Live bytes per instruction by a difference array over the schedule.
  Wide static_bytes = 0;
  std::vector<Wide> delta(static_cast<size_t>(num_instructions) + 1, 0);
  for (int buffer = 0; buffer < num_buffers; ++buffer) {
    const Buffer& b = program.buffers[buffer];
    int64_t bytes = SaturatingBytes(b);
    if (b.kind == BufferKind::kParameter) parameter_bytes += bytes;
    if (IsStatic(b.kind)) {
      static_bytes += bytes;
    } else if (last[buffer] >= 0) {
      delta[first[buffer]] += bytes;
      delta[last[buffer] + 1] -= bytes;
    }
  }
  Wide peak = static_bytes, live = static_bytes;
  int peak_index = -1;
  for (int index = 0; index < num_instructions; ++index) {
    live += delta[index];
    if (live > peak) {
      peak = live;
      peak_index = index;
    }
  }
  summary.parameter_bytes = Bytes(Clamp(parameter_bytes));
  summary.peak_memory = Bytes(Clamp(peak));
  Wide by_kind[kNumBufferKinds] = {};
  for (int buffer = 0; buffer < num_buffers; ++buffer) {
    const Buffer& b = program.buffers[buffer];
    const bool live_at_peak = IsStatic(b.kind) || (peak_index >= 0 && first[buffer] <= peak_index &&
                                                   peak_index <= last[buffer]);
    const auto kind = static_cast<size_t>(b.kind);
    if (live_at_peak && kind < kNumBufferKinds) by_kind[kind] += SaturatingBytes(b);
  }
  for (size_t kind = 0; kind < kNumBufferKinds; ++kind) summary.peak_by_kind[kind] = Bytes(Clamp(by_kind[kind]));
  return summary;
}

}  // namespace az::cir
