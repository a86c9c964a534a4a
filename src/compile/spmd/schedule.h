// Passes over a compiled program, each returning whether it changed anything.
//
// FuseElementwise: a kernel of kind element-wise whose only operand produced in
//   the program comes from the instruction just before it, and that is that
//   buffer's only reader, is folded into its producer (as XLA fuses consumers
//   into producers): FLOPs add, the intermediate buffer is never written to or
//   read from memory.
// CombineCollectives: adjacent blocking all-reduces (all-gathers,
//   reduce-scatters) over the same groups, together at most `threshold` bytes,
//   become one (as XLA's combiners do): one latency instead of several.
//   Gradient reductions are left to OverlapGradientReductions.
// ScheduleAsync: every blocking collective but the gradient reductions becomes
//   a -start/-done pair. The done stays where the collective was (right
//   before its first reader); the start moves up to just after the
//   instruction that wrote its operand, but not above the previous
//   collective's done: at most one resharding collective is in flight, which
//   bounds the extra memory the overlap costs.
// OverlapGradientReductions: a training step's gradient reductions (the
//   all-reduce or reduce-scatter whose results are gradient buffers: a
//   parameter's gradient summed over the data-parallel devices) start as soon
//   as their gradient is produced and overlap the rest of the backward, as
//   PyTorch DDP / FSDP and XLA's async collectives run them. Bucketed as DDP
//   buckets and XLA's combiners combine: in the order the gradients are
//   produced, adjacent reductions of one kind over the same groups join one
//   collective up to `bucket` bytes (0: one per gradient), issued when its
//   last gradient is ready. Its done goes before the first reader of any of
//   its results (the optimizer) and before the start of the bucket
//   kGradientBucketsInFlight later: at most that many buckets are in flight,
//   so at most that many buckets of unreduced gradients are held beyond what
//   the blocking schedule holds. A bucket whose done would precede its start
//   stays blocking.
#pragma once

#include "cir/program.h"

namespace az::compile {

// Two: bucket i reduces while bucket i + 1 fills, so the communication engine
// never waits for the backward and the compute engine never waits for a
// bucket that had a whole bucket's worth of backward to finish in (PyTorch
// FSDP's limit_all_gathers keeps two in flight for the same reason).
inline constexpr int kGradientBucketsInFlight = 2;

bool FuseElementwise(cir::Program& program);
bool CombineCollectives(cir::Program& program, Bytes threshold);
bool ScheduleAsync(cir::Program& program);
bool OverlapGradientReductions(cir::Program& program, Bytes bucket);

}  // namespace az::compile
