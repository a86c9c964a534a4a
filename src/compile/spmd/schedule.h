// Passes over a compiled program, each returning whether it changed anything.
//
// FuseElementwise: a kernel of kind element-wise whose only operand produced in
//   the program comes from the instruction just before it, and that is that
//   buffer's only reader, is folded into its producer (as XLA fuses consumers
//   into producers): FLOPs add, the intermediate buffer is never written to or
//   read from memory.
// ScheduleAsync: every blocking collective becomes a -start/-done pair. The
//   done stays where the collective was (right before its first reader); the
//   start moves up to just after the instruction that wrote its operand, but
//   not above the previous collective's done: at most one resharding
//   collective is in flight, which bounds the extra memory the overlap costs.
#pragma once

#include "cir/program.h"

namespace az::compile {

bool FuseElementwise(cir::Program& program);
bool ScheduleAsync(cir::Program& program);

}  // namespace az::compile
