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
// `mesh_devices` is the mesh size of a mesh form (0 for the other forms): it
// must equal the size of the id space the group mode reads.
struct RawGroups {
  bool all = false;
  int64_t mesh_devices = 0;
  cir::ReplicaGroups groups;
};

// Mesh-form replica groups, XLA's MeshAxesReplicaGroupList (printed since
// XLA 0.11, xla/hlo/ir/replica_group.cc):
//
//   mesh['cfg'=2,'ulysses'=4] {'ulysses'}
//   mesh['ulysses'=2,'tp'=4] {'tp':(2)2}
//   mesh['a'=2,'b'=2], device_ids=(0,2,1,3) {'a'}
//
// The mesh numbers its devices row-major over its axes (major first): iota,
// unless `device_ids=(...)` lists them (explicit ids, or an iota form
// `[d..]<=[r..]T(p..)`; XLA prints the list only for a non-iota mesh). The
// braces list the axes each group varies, in order, major to minor; the other
// axes are fixed per group. A sub-axis 'x':(m)k of an axis x of size n views
// x as [m, k, n/(m k)] (major first) and takes the middle factor: device
// coordinate c along x has sub-index (c / (n/(m k))) mod k. Expansion (as
// XLA's flattened_replica_groups): split every axis at the cuts its sub-axes
// make, transpose the device array so the fixed factors come first (in mesh
// order) and the grouped ones last (in the listed order), flatten, and cut
// into groups of the product of the grouped sizes. `{}` is groups of one.
//
// Worked example, mesh['ulysses'=2,'tp'=4] {'tp':(2)2}: tp = [1, 2, 2] by
// (m, k, n/(m k)) = (2, 2, 1), so the factors are ulysses 2 (stride 4),
// tp-major 2 (stride 2), tp-minor 2 (stride 1); the group varies tp-minor:
// {0,1},{2,3},{4,5},{6,7}.
constexpr int64_t kMaxMeshDevices = int64_t{1} << 20;
struct MeshReplicaGroups {
  int64_t devices = 1;          // product of the mesh axis sizes
  std::vector<int> device_ids;  // row-major over the mesh; empty: iota
  int64_t group_size = 1;       // product of the grouped (sub-)axis sizes
  // (size, stride in the row-major device array) of the transposed factors:
  // the fixed ones, then the grouped ones. Sizes are all above 1.
  std::vector<std::pair<int64_t, int64_t>> order;
};
// Parses and checks a mesh form: names known and distinct, sizes positive,
// sub-axes dividing their axis and not overlapping, at most kMaxMeshDevices
// devices (kResourceExhausted past it), device ids a permutation. The
// message names the problem; the caller locates it. Linear in the text.
StatusOr<MeshReplicaGroups> ParseMeshReplicaGroups(std::string_view text);
// The explicit groups of a parsed mesh form; linear in its devices.
cir::ReplicaGroups ExpandMeshReplicaGroups(const MeshReplicaGroups& mesh);

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
  // The id space a collective's groups are read in: its group mode's
  // (formats.md §1.8), after Count.
  enum class Mode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattened };
  Mode ModeOf(const HloInstruction& in, cir::CollectiveKind kind) const;
  int64_t SpaceOf(Mode mode) const { return mode == Mode::kFlattened ? n_ : mode == Mode::kCrossPartition ? p_ : r_; }
  // The groups as written; a mesh form is checked against the mode's id space
  // once the counts are known (`counted_`).
  StatusOr<RawGroups> ReadGroups(const HloInstruction& in, cir::CollectiveKind kind);
  StatusOr<std::vector<std::pair<int, int>>> ReadPairs(const HloInstruction& in, std::string_view text,
                                                       const HloAttribute* where);
  Status Error(const HloInstruction& in, const std::string& message) const;

  const HloModule& m_;
  const SourceBuffer* src_;
  int64_t r_ = 1, p_ = 1, n_ = 1;
  bool inferred_ = false, counted_ = false;
  std::unordered_map<std::string, RawGroups> group_cache_;
};

// An unscheduled computation's order with every collective issued as early
// as its operands allow (the cheap instructions computing them first), the
// rest in `topo` order: the prefetch XLA's latency-hiding scheduler performs.
std::vector<int> PrefetchOrder(const HloComputation& c, const std::vector<int>& topo);

}  // namespace az::compile::xla::internal
