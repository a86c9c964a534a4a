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
// ScheduleAsync: every blocking collective becomes a -start/-done pair. The
//   done stays where the collective was (right before its first reader); the
//   start moves up to just after the instruction that wrote its operand, but
//   not above the previous collective's done: at most one resharding
//   collective is in flight, which bounds the extra memory the overlap costs.
#pragma once

#include "cir/program.h"

namespace az::compile {

bool FuseElementwise(cir::Program& program);
bool CombineCollectives(cir::Program& program, Bytes threshold);
bool ScheduleAsync(cir::Program& program);

}  // namespace az::compile
