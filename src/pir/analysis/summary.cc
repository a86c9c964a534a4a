#include "pir/analysis/summary.h"

#include <algorithm>

namespace az::pir {

GraphSummary SummarizeGraph(const Graph& graph) {
  GraphSummary s;
  s.num_ops = graph.num_ops();
  s.num_values = graph.num_values();
  for (const Value& v : graph.values()) {
    Bytes bytes(v.type.NumBytes());
    switch (v.role) {
      case ValueRole::kParameter:
        s.num_params += v.type.NumElements();
        s.param_bytes += bytes;
        break;
      case ValueRole::kInput: s.input_bytes += bytes; break;
      case ValueRole::kConstant: s.constant_bytes += bytes; break;
      case ValueRole::kOptimizerState: s.optimizer_state_bytes += bytes; break;
      case ValueRole::kActivation: s.activation_total_bytes += bytes; break;
    }
  }
  s.cost = ComputeGraphCost(graph);

  // Last use of every activation (outputs: past the last op).
  std::vector<OpId> last_use(static_cast<size_t>(graph.num_values()), kNoOp);
  for (OpId id = 0; id < graph.num_ops(); ++id) {
    for (ValueId v : graph.op(id).operands) last_use[v] = std::max(last_use[v], id);
  }
  for (ValueId v : graph.outputs()) last_use[v] = graph.num_ops();
  // Bytes freed after each op.
  std::vector<int64_t> freed_after(static_cast<size_t>(graph.num_ops()) + 1, 0);
  for (ValueId v = 0; v < graph.num_values(); ++v) {
    const Value& value = graph.value(v);
    if (value.role != ValueRole::kActivation) continue;
    OpId end = last_use[v] == kNoOp ? value.producer : last_use[v];  // dead results die at once
    freed_after[end] += value.type.NumBytes();
  }
  int64_t live = 0, peak = 0;
  for (OpId id = 0; id < graph.num_ops(); ++id) {
    for (ValueId r : graph.op(id).results) live += graph.type(r).NumBytes();
    peak = std::max(peak, live);
    live -= freed_after[id];
  }
  s.activation_peak_bytes = Bytes(peak);
  return s;
}

}  // namespace az::pir
