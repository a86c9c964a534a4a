// Test-only: CIR buffers and instructions built in one call each, for the
// tests that build programs in code (program_test, text/text_test).
#pragma once

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cir/program.h"

namespace az::cir {

inline Buffer MakeBuffer(std::string name, BufferKind kind, pir::Shape shape, pir::DType dtype = pir::DType::kF32) {
  Buffer buffer;
  buffer.name = std::move(name);
  buffer.kind = kind;
  buffer.dtype = dtype;
  buffer.shape = std::move(shape);
  return buffer;
}

// A matmul kernel.
inline Instruction Kernel(std::string name, std::vector<int> operands, std::vector<int> results, int64_t flops = 0) {
  Instruction k;
  k.kind = InstrKind::kKernel;
  k.kernel = KernelKind::kMatmul;
  k.name = std::move(name);
  k.operands = std::move(operands);
  k.results = std::move(results);
  k.flops = Flops(flops);
  return k;
}

// A collective (`kind`: kCollective or kCollectiveStart) over replica groups.
inline Instruction Collective(InstrKind kind, CollectiveKind collective, std::string name, std::vector<int> operands,
                       std::vector<int> results, int64_t bytes, std::vector<std::vector<int>> groups) {
  Instruction c;
  c.kind = kind;
  c.collective = collective;
  c.name = std::move(name);
  c.operands = std::move(operands);
  c.results = std::move(results);
  c.collective_bytes = Bytes(bytes);
  c.groups.groups = std::move(groups);
  return c;
}

// The done of the collective start at instruction `start`.
inline Instruction Done(CollectiveKind collective, std::string name, int start) {
  Instruction d;
  d.kind = InstrKind::kCollectiveDone;
  d.collective = collective;
  d.name = std::move(name);
  d.start = start;
  return d;
}

// Every collective of `program` as (kind, bytes, origin op, replica groups),
// in program order: what the hand-derived collective tests compare.
using CollectiveRows = std::vector<std::tuple<std::string, int64_t, std::string, std::string>>;
inline CollectiveRows CollectiveRowsOf(const Program& program) {
  CollectiveRows out;
  for (const Instruction& in : program.instructions) {
    if (in.kind != InstrKind::kCollective) continue;
    out.emplace_back(std::string(CollectiveKindName(in.collective)), in.collective_bytes.value(), in.origin,
                     FormatReplicaGroups(in.groups));
  }
  return out;
}

}  // namespace az::cir
