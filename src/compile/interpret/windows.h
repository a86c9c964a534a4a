// The halo exchange of compile/spmd/halo.h simulated on data, for the
// reference interpreter (interpreter.h). Internal to interpret/.
#pragma once

#include <vector>

#include "compile/interpret/interpreter.h"
#include "compile/spmd/halo.h"

namespace az::compile::interpret {

// Every device's extended shard of operand 0 of a windowed op with an
// exchange plan (HaloPlan::Kind::kExchange): its block in `sharding` (plain
// blocks of `global`, one per logical device in `blocks`) with plan.before
// rows in front and plan.after behind on plan.window.dim. A row inside the
// tensor is read from the block that holds it, which must be the device's
// own or its predecessor's or successor's in the group over plan.axes (the
// two permutes: anything else is an internal error, PlanHalo having
// accepted the plan); a row past the border is zeros for a convolution and
// the nearest edge row for a pad (the device holding the last row masks the
// rows past it, halo.h). A device whose block is all padding holds no row
// any real output reads: its extended shard is zeros.
StatusOr<std::vector<Tensor>> ExtendedBlocks(const shard::Mesh& mesh, const HaloPlan& plan,
                                             const shard::TensorSharding& sharding, const pir::Shape& global,
                                             const std::vector<Tensor>& blocks);

}  // namespace az::compile::interpret
