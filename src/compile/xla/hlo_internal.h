// Internals of the HLO importer shared by its files (not a public header):
// opcode helpers, the device space (group modes, formats.md §1.8) and the
// schedule helpers.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compile/xla/hlo_import.h"

namespace az::compile::xla::internal {

inline std::optional<cir::CollectiveKind> CollectiveOf(std::string_view op) {
  if (op == "all-reduce") return cir::CollectiveKind::kAllReduce;
  if (op == "all-gather") return cir::CollectiveKind::kAllGather;
  if (op == "reduce-scatter") return cir::CollectiveKind::kReduceScatter;
  if (op == "all-to-all" || op == "ragged-all-to-all") return cir::CollectiveKind::kAllToAll;
  if (op == "collective-permute") return cir::CollectiveKind::kCollectivePermute;
  if (op == "collective-broadcast") return cir::CollectiveKind::kBroadcast;
  return std::nullopt;
}

inline std::string_view StripSuffix(std::string_view op, std::string_view suffix) {
  return op.ends_with(suffix) ? op.substr(0, op.size() - suffix.size()) : std::string_view();
}

inline int64_t ParseInt64(std::string_view v, int64_t fallback) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  int64_t x = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  return ec == std::errc() ? x : fallback;
}

// Groups of one collective as written, before the mode maps them to
// flattened ids. `all` means "{}" or no attribute: one group of every id.
struct RawGroups {
  bool all = false;
  cir::ReplicaGroups groups;
};

// Device ids: the module's replica and partition counts (or N inferred from
// the ids when the header has none), and every collective's groups and pairs
// mapped to flattened ids by its group mode.
class DeviceSpace {
 public:
  DeviceSpace(const HloModule& module, const SourceBuffer* source) : m_(module), src_(source) {}
  // Reads the counts (or infers N); fills the counts and the static
  // collective counts of `stats`.
  Status Count(ImportStats& stats);
  int64_t devices() const { return n_; }
  // Flattened groups of a collective by its group mode (formats.md §1.8).
  StatusOr<cir::ReplicaGroups> Groups(const HloInstruction& in, cir::CollectiveKind kind);
  // Flattened source -> target pairs of a permute (or of a device send).
  StatusOr<std::vector<std::pair<int, int>>> Pairs(const HloInstruction& in, bool device_send);
  // A send/recv's `_xla_send_recv_source_target_pairs` ("" when absent).
  static std::string SendRecvPairs(const HloInstruction& in);
  static bool IsHostTransfer(const HloInstruction& in);

 private:
  StatusOr<RawGroups> ReadGroups(const HloInstruction& in);
  StatusOr<std::vector<std::pair<int, int>>> ReadPairs(const HloInstruction& in, std::string_view text,
                                                       const HloAttribute* where);
  Status Error(const HloInstruction& in, const std::string& message) const;

  const HloModule& m_;
  const SourceBuffer* src_;
  int64_t r_ = 1, p_ = 1, n_ = 1;
  bool inferred_ = false;
  std::unordered_map<std::string, cir::ReplicaGroups> group_cache_;
};

// An unscheduled computation's order with every collective issued as early
// as its operands allow (the cheap instructions computing them first), the
// rest in `topo` order: the prefetch XLA's latency-hiding scheduler performs.
std::vector<int> PrefetchOrder(const HloComputation& c, const std::vector<int>& topo);

}  // namespace az::compile::xla::internal
