// Evidence: the compiler-neutral, placement-open record the search prices.
//
// Extracted from a CIR program: the compute segments (one per kernel) with the
// roofline inputs (kind, FLOPs, bytes moved), every collective with kind,
// bytes and *logical* groups, the schedule as a sequence of events (a kernel
// runs; a collective starts, waits or runs blocking) — the overlap structure is
// which kernels lie between a start and its done — and memory (peak per
// device, parameter bytes). Nothing refers to a physical chip, so one record is
// priced under any number of placements.
//
// JSON round-trips exactly; `hash` is a content hash (FNV-1a 64 of the
// canonical JSON without the hash), so identical programs share one record.
// The "memory" object (MemoryBreakdown) is written when any of its terms is
// non-zero; a record without it (written before it existed) reads as zeros
// and keeps its hash.
#pragma once

#include <string>
#include <vector>

#include "cir/program.h"
#include "support/status.h"

namespace az::evidence {

struct ComputeSegment {
  std::string name;
  cir::KernelKind kind = cir::KernelKind::kElementwise;
  Flops flops;
  Bytes bytes;  // read + written
  std::vector<int64_t> dims;  // cir::Instruction::dims (empty when unknown)
  // cir::Instruction::precision; JSON key "precision", written when not bf16
  // (a record without it reads as bf16 and keeps its hash).
  pir::DType precision = pir::DType::kBF16;
  bool operator==(const ComputeSegment&) const = default;
};

struct CollectiveRecord {
  std::string name;
  cir::CollectiveKind kind = cir::CollectiveKind::kAllReduce;
  Bytes bytes;
  cir::ReplicaGroups groups;
  std::vector<std::pair<int, int>> pairs;
  bool operator==(const CollectiveRecord&) const = default;
};

enum class EventType { kCompute, kStart, kDone, kBlocking };

struct Event {
  EventType type = EventType::kCompute;
  int index = 0;  // into segments (compute) or collectives (the rest)
  bool operator==(const Event&) const = default;
};

// The bytes live at the step's peak (cir::ProgramSummary::peak_by_kind), by
// what they hold: parameters (as stored: FSDP shards), gradients (as produced
// and as the optimizer reads them), optimizer states (fp32 master weights,
// moments), activations (what the backward keeps, by remat choice, plus
// working buffers), communication buffers (gathered weights, collective
// results), inputs and constants. They sum to peak_memory.
struct MemoryBreakdown {
  Bytes parameters, gradients, optimizer_state, activations, communication, inputs, constants;
  Bytes Total() const {
    return parameters + gradients + optimizer_state + activations + communication + inputs + constants;
  }
  bool operator==(const MemoryBreakdown&) const = default;
};

struct Evidence {
  std::string program;
  std::string compiler;
  int64_t num_devices = 1;
  std::string mesh;
  std::vector<ComputeSegment> segments;
  std::vector<CollectiveRecord> collectives;
  std::vector<Event> schedule;
  Bytes peak_memory;
  Bytes parameter_bytes;
  MemoryBreakdown memory;
  std::string hash;
  bool operator==(const Evidence&) const = default;
};

// `hash`: false leaves Evidence::hash empty (HashOf computes it when asked).
// Hashing renders the canonical JSON, which on a 1,024-device program (groups
// of 1,024 ids in every collective) costs more than compiling it; the search
// extracts hundreds of programs and reports the hash of a few.
Evidence Extract(const cir::Program& program, const std::string& compiler, bool hash = true);
// The schedule's invariants, which pricing relies on: every segment runs
// exactly once; every collective is either one blocking event or one start
// followed later by one done; collective groups and pairs name devices in
// [0, num_devices). FromJson runs it; Extract's output always passes.
Status Validate(const Evidence& evidence);
std::string ToJson(const Evidence& evidence);
StatusOr<Evidence> FromJson(std::string_view text, std::string_view file_name);
std::string ContentHash(const Evidence& evidence);
// The record's hash: `hash` when set, else ContentHash.
std::string HashOf(const Evidence& evidence);

}  // namespace az::evidence
