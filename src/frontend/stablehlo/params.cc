// Parameters vs inputs (import.h, "Parameters vs inputs"), decided on the
// imported PIR graph.
#include <algorithm>

#include "frontend/stablehlo/importer.h"

namespace az::frontend::shlo {

namespace {

enum class Status3 { kUndecided, kInput, kParameter };

bool IsLayout(pir::OpKind kind) {
  return kind == pir::OpKind::kConvert || kind == pir::OpKind::kReshape || kind == pir::OpKind::kTranspose ||
         kind == pir::OpKind::kBroadcast || kind == pir::OpKind::kSlice;
}

}  // namespace

void Importer::ClassifyParameters() {
  pir::Graph& g = program_.graph;
  std::vector<std::vector<std::pair<pir::OpId, size_t>>> users(static_cast<size_t>(g.num_values()));
  for (pir::OpId op = 0; op < g.num_ops(); ++op) {
    const pir::Op& o = g.op(op);
    for (size_t i = 0; i < o.operands.size(); ++i) {
      if (g.IsValidValue(o.operands[i])) users[static_cast<size_t>(o.operands[i])].emplace_back(op, i);
    }
  }
  std::vector<bool> is_output(static_cast<size_t>(g.num_values()), false);
  for (pir::ValueId v : g.outputs()) is_output[static_cast<size_t>(v)] = true;
  std::vector<Status3> status(program_.arguments.size(), Status3::kUndecided);
  for (size_t a = 0; a < status.size(); ++a) {
    const pir::TensorType& t = g.type(program_.arguments[a].value);
    if (!pir::IsFloat(t.dtype) || t.rank() < 1) status[a] = Status3::kInput;
  }
  // Uses of an argument through layout ops: (op, operand index, value reaching it).
  struct Use {
    pir::OpId op;
    size_t operand;
  };
  // A layout op has one operand, so layout chains from different leaves are
  // disjoint and one round of walks costs O(values + uses); `stamp` marks
  // what the current walk has seen without clearing a vector per argument.
  std::vector<int> stamp(static_cast<size_t>(g.num_values()), -1);
  int walk = 0;
  auto uses_of = [&](pir::ValueId leaf, bool* reaches_output) {
    std::vector<Use> uses;
    std::vector<pir::ValueId> stack{leaf};
    ++walk;
    while (!stack.empty()) {
      pir::ValueId v = stack.back();
      stack.pop_back();
      if (stamp[static_cast<size_t>(v)] == walk) continue;
      stamp[static_cast<size_t>(v)] = walk;
      if (is_output[static_cast<size_t>(v)]) *reaches_output = true;
      for (const auto& [op, index] : users[static_cast<size_t>(v)]) {
        const pir::Op& o = g.op(op);
        if (IsLayout(o.kind)) {
          stack.push_back(o.results[0]);
        } else {
          uses.push_back({op, index});
        }
      }
    }
    return uses;
  };
  for (int round = 0; round < 64; ++round) {
    // Values that depend on an input argument (tainted), on an undecided one (pending).
    std::vector<bool> tainted(static_cast<size_t>(g.num_values()), false);
    std::vector<bool> pending(static_cast<size_t>(g.num_values()), false);
    for (size_t a = 0; a < status.size(); ++a) {
      if (status[a] == Status3::kInput) tainted[static_cast<size_t>(program_.arguments[a].value)] = true;
      if (status[a] == Status3::kUndecided) pending[static_cast<size_t>(program_.arguments[a].value)] = true;
    }
    for (pir::OpId op = 0; op < g.num_ops(); ++op) {
      const pir::Op& o = g.op(op);
      bool any = std::any_of(o.operands.begin(), o.operands.end(),
                             [&](pir::ValueId v) { return g.IsValidValue(v) && tainted[static_cast<size_t>(v)]; });
      bool undecided = std::any_of(o.operands.begin(), o.operands.end(),
                                   [&](pir::ValueId v) { return g.IsValidValue(v) && pending[static_cast<size_t>(v)]; });
      for (pir::ValueId r : o.results) {
        tainted[static_cast<size_t>(r)] = any;
        pending[static_cast<size_t>(r)] = undecided;
      }
    }
    bool changed = false;
    std::vector<size_t> lhs_of_undecided;
    for (size_t a = 0; a < status.size(); ++a) {
      if (status[a] != Status3::kUndecided) continue;
      pir::ValueId leaf = program_.arguments[a].value;
      bool reaches_output = false;
      std::vector<Use> uses = uses_of(leaf, &reaches_output);
      bool weight = !uses.empty() && !reaches_output, waiting = false, as_lhs = false;
      for (const Use& use : uses) {
        const pir::Op& o = g.op(use.op);
        pir::OpFamily family = pir::GetOpKindInfo(o.kind).family;
        if ((o.kind == pir::OpKind::kEinsum || o.kind == pir::OpKind::kConv3d) && use.operand < 2 &&
            o.operands.size() >= 2) {
          pir::ValueId other = o.operands[1 - use.operand];
          if (!tainted[static_cast<size_t>(other)]) {
            waiting = true;
            as_lhs = as_lhs || use.operand == 0;
          }
          continue;
        }
        // A binary element-wise op: a weight modulates activations (a bias,
        // a norm scale, a modulation table) it is broadcast against, so it is a weight position when
        // the other operand depends on an input, undecided while that operand
        // waits on undecided arguments, and an input's use when the other
        // operand is computed from constants and parameters alone (t * freqs).
        // Only an operand of lower rank than the result qualifies: one of the
        // activation's own rank is data (labels in a loss, an attention mask).
        bool broadcast = !o.results.empty() && g.type(o.results[0]).rank() > g.type(leaf).rank();
        if (broadcast && family == pir::OpFamily::kBinary && o.operands.size() == 2 &&
            o.kind != pir::OpKind::kCompare) {
          pir::ValueId other = o.operands[1 - std::min<size_t>(use.operand, 1)];
          if (g.IsValidValue(other) && tainted[static_cast<size_t>(other)]) continue;
          if (g.IsValidValue(other) && pending[static_cast<size_t>(other)]) {
            waiting = true;
            continue;
          }
        }
        weight = false;
      }
      if (!weight) {
        status[a] = Status3::kInput;
        changed = true;
      } else if (!waiting) {
        status[a] = Status3::kParameter;
        changed = true;
      } else if (as_lhs) {
        lhs_of_undecided.push_back(a);
      }
    }
    if (changed) continue;
    if (lhs_of_undecided.empty()) break;
    // Both matmul operands come from undecided arguments: the lhs is the input.
    for (size_t a : lhs_of_undecided) status[a] = Status3::kInput;
  }
  for (size_t a = 0; a < status.size(); ++a) {
    if (status[a] == Status3::kInput) continue;
    pir::Value& v = g.mutable_value(program_.arguments[a].value);
    v.role = pir::ValueRole::kParameter;
  }
}

}  // namespace az::frontend::shlo
