// HLO -> CIR: the per-device program XLA compiled, in the same IR the built-in
// compiler emits, so evidence, pricing and placement treat both alike.
//
// Lowering (formats.md §1, §2):
//   * Device ids. N = replica_count x num_partitions from the header; a header
//     without them (the partitioned samples) gets N from the largest id in any
//     replica group, permute pair or iota list, and every id is then read as a
//     flattened id (replica_count 1: partition id = flattened id = the logical
//     device, as in JAX's SPMD output). Otherwise the group mode follows
//     channel_id and use_global_device_ids exactly (cross-replica,
//     cross-partition, cross-replica-and-partition, flattened), and CIR holds
//     the flattened groups. Groups may be explicit, iota `[G,S]<=[..]T(..)`,
//     or XLA 0.11's mesh form `mesh['a'=2,'b'=4] {'b'}` (sub-axes
//     `{'b':(2)2}`, hlo_internal.h), expanded to explicit groups; a mesh
//     must span the id space of its group mode exactly.
//   * Collectives: all-reduce, all-gather, reduce-scatter, all-to-all,
//     collective-permute, collective-broadcast in their sync, `-start`/`-done`
//     and generic `async-start`/`async-done` (calls=) forms, and device-to-
//     device send/recv (as a permute over `_xla_send_recv_source_target_pairs`;
//     host transfers are not priced). Bytes per net/collective.h: the operand
//     bytes, all-gather the gathered result (operand x group size).
//   * Kernels: a fusion is one kernel (flops of its body, bytes by XLA's
//     fusion rule: output, a dynamic-update-slice root its update, plus per
//     parameter one read, or the slice a slicing user takes); an unfused
//     instruction is one kernel by HloCostAnalysis (dot 2 x result x
//     contracted; convolution by valid window positions; element-wise one per
//     output element; reduce by input minus output elements x reducer ops).
//     Known custom calls are priced (cuBLAS GEMMs as matmuls, cuDNN and
//     TransformerEngine fused attention as attention with 2 B H Sq Skv (Dqk +
//     Dv) flops, halved when causal, backward 2.5x); others move their bytes
//     at no flops, with a warning naming the target.
//   * A module without any fusion (XLA's output before fusion, as the
//     benchmark samples) would price every element-wise op as a kernel launch;
//     the importer folds each run of cheap instructions between two heavy ones
//     (dot, convolution, custom-call, collective, control flow) into one
//     kernel, as XLA's loop fusion would, with bytes counted at the run's
//     boundary (`ImportOptions::fuse_unfused`).
//   * Aliases (no kernel): parameter, constant, get-tuple-element, tuple,
//     bitcast, reshape, and in an unfused module copy (XLA elides the copies
//     a sharding constraint leaves). A dynamic-update-slice writes in place.
//   * Control flow is inlined: call and the async wrappers of compute; a
//     conditional runs its most expensive branch; a while loop is unrolled by
//     its trip count (backend_config known_trip_count, else XLA's trivial
//     induction pattern: init constant, body adds a constant, condition
//     compares LT/LE with a constant); an unknown count warns and runs one
//     iteration (what HloCostAnalysis assumes). The unrolled program must
//     stay within `max_instructions`.
//   * Schedule: a scheduled module (is_scheduled=true) keeps its text order
//     and its -start/-done windows; sync collectives stay blocking. An
//     unscheduled module gets the schedule XLA's latency-hiding scheduler
//     would build, unless `async_unscheduled` is off: a list schedule that
//     issues every collective as early as its operands allow (the cheap
//     instructions computing them first) and otherwise keeps the text order;
//     each sync collective becomes a start there and a done just before its
//     first reader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cir/program.h"
#include "compile/xla/hlo.h"

namespace az::compile::xla {

struct ImportOptions {
  bool fuse_unfused = true;
  bool async_unscheduled = true;
  int64_t max_instructions = 2'000'000;  // CIR instructions after unrolling (kResourceExhausted past it)
  // Which module of a file split by `// -----`: -1 = the file must hold one.
  int module = -1;
};

struct ImportStats {
  // Static occurrences in the module text (sync + start forms; a done is not
  // counted) per collective kind, and per step after unrolling.
  std::vector<std::pair<cir::CollectiveKind, int64_t>> static_collectives;
  std::vector<std::pair<cir::CollectiveKind, int64_t>> step_collectives;
  int64_t while_loops = 0;
  std::vector<int64_t> trip_counts;  // per while instruction executed (unrolled nesting included once)
  int64_t replica_count = 1, num_partitions = 1;
  bool counts_inferred = false;  // N from the ids (no header counts)
  std::vector<int64_t> mesh;     // inferred logical mesh (product = devices)
  bool scheduled = false, fused = false;
};

struct ImportResult {
  cir::Program program;
  ImportStats stats;
  std::vector<Diagnostic> warnings;
  std::shared_ptr<const SourceBuffer> source;
};

StatusOr<ImportResult> ImportHlo(const HloFile& file, const ImportOptions& options = {});
// Parse + import.
StatusOr<ImportResult> ImportHloText(std::string_view text, const std::string& file_name,
                                     const ImportOptions& options = {});

// The logical mesh the program's groups imply: every replica group set with
// an iota form [G,S]<=[r0,r1,...]T(...) cuts the device range at the
// products r0, r0 r1, ...; the cuts that form a divisibility chain become
// mesh axes (major first). {N} when nothing cuts.
std::vector<int64_t> InferMesh(const cir::Program& program);

// The trip count of `while_instr` in `comp` (formats.md §1.10), or -1 when
// unknown.
int64_t WhileTripCount(const HloModule& module, const HloComputation& comp, const HloInstruction& while_instr);

}  // namespace az::compile::xla
