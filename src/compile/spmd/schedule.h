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
//   FSDP prefetch depth d (`prefetch_depth`, >= 1). A weight gather
//   (IsWeightGather: an all-gather every operand of which is a parameter
//   buffer, the stored shard of a weight: FSDP's gather of a leaf) belongs to
//   a unit, the layer its parameter is in (WeightUnitKey: "blocks.3"); units
//   are numbered in program order, a new one at each weight gather whose key
//   differs from the previous weight gather's (a training step's backward
//   visits the blocks again, in reverse: new units). Let A(u, p) be the
//   anchor the p-th weight gather of unit u has under the rule above. Under
//   d = 1 every weight gather follows the rule above (every program as it
//   was). Under d > 1 the p-th weight gather of unit u starts right after
//   the later of its operands' last writer and A(max(0, u - d + 1), p)
//   (that unit's last gather when it has fewer than p + 1), independent of
//   the previous collective's done: the gathers of the next d - 1 units run
//   alongside those of the current one, one beside each, as FSDP2's
//   explicit forward prefetch of the next d - 1 blocks holds them
//   (emit/codegen_torch.h). Its done stays where the collective was, right
//   before its first reader; every other collective keeps the rule above
//   (its fence is the previous collective's done, and no done has moved).
//   Starts sharing an anchor keep their program order. Issue order is
//   program order on the one communication engine (price/simulator.h): a
//   gather prefetched ahead of the current layer's all-to-alls or permutes
//   occupies the engine before them and delays them by its transfer. Spread
//   one beside each of the current layer's gathers, the next layer's
//   gathers delay each of them by one transfer, not by a whole layer's
//   burst; the simulator prices that delay against the exposure the
//   prefetch removes, and the planner keeps d > 1 only where it wins
//   (search/prefetch.h). The gathered weights are live from their start
//   (cir/program.h: an async collective's results are live from its
//   -start), so the peak counts the d - 1 layers of gathered weights held
//   ahead.
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

#include <string_view>

#include "cir/program.h"

namespace az::compile {

// Two: bucket i reduces while bucket i + 1 fills, so the communication engine
// never waits for the backward and the compute engine never waits for a
// bucket that had a whole bucket's worth of backward to finish in (PyTorch
// FSDP's limit_all_gathers keeps two in flight for the same reason).
inline constexpr int kGradientBucketsInFlight = 2;

bool FuseElementwise(cir::Program& program);
bool CombineCollectives(cir::Program& program, Bytes threshold);
bool ScheduleAsync(cir::Program& program, int prefetch_depth = 1);

// A blocking all-gather whose operands are all parameter buffers.
bool IsWeightGather(const cir::Program& program, const cir::Instruction& instruction);
// The layer of a parameter: its name up to its first all-digit component
// ("blocks.3.self_attn.q.weight" -> "blocks.3", "double_blocks.0.img_mlp.fc1"
// -> "double_blocks.0"), or its first component when it has none
// ("patch_embedding.weight" -> "patch_embedding").
std::string_view WeightUnitKey(std::string_view parameter);
bool OverlapGradientReductions(cir::Program& program, Bytes bucket);

}  // namespace az::compile
