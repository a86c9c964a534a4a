// Whole-graph figures: parameter counts and bytes, FLOPs by class, and the
// activation memory of running the ops one by one in graph order.
//
// Activation liveness (unfused, unsharded, op order): an activation is live from
// the op that defines it until its last use; graph outputs stay live to the end.
// The peak is the maximum over ops of the bytes live while the op runs (its
// operands and its results together). A compiler that fuses element-wise chains
// needs less; this is the figure before any compiler.
#pragma once

#include "pir/ir/graph.h"
#include "pir/rules/cost.h"

namespace az::pir {

struct GraphSummary {
  int64_t num_params = 0;  // elements of all parameters
  Bytes param_bytes;
  Bytes input_bytes;
  Bytes constant_bytes;
  Bytes optimizer_state_bytes;   // a training step's opt_state leaves
  Bytes activation_total_bytes;  // every activation summed
  Bytes activation_peak_bytes;   // see above
  OpCost cost;                   // summed over ops
  int num_ops = 0;
  int num_values = 0;

  // Model FLOPs: matmul + attention (what reference/models.md counts).
  Flops model_flops() const { return cost.matmul + cost.attention; }
};

GraphSummary SummarizeGraph(const Graph& graph);

}  // namespace az::pir
