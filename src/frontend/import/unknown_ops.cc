#include "frontend/import/unknown_ops.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "pir/rules/cost.h"
#include "pir/rules/rule.h"

namespace az::frontend {

namespace {

bool PassesThrough(pir::OpKind kind) {
  const pir::OpFamily f = pir::GetOpKindInfo(kind).family;
  return f == pir::OpFamily::kUnary || f == pir::OpFamily::kBinary || f == pir::OpFamily::kBroadcast ||
         f == pir::OpFamily::kReshape || f == pir::OpFamily::kTranspose;
}

// Whether `v` comes from an einsum through at most 6 element-wise or layout ops.
bool FromEinsum(const pir::Graph& g, pir::ValueId v) {
  for (int hops = 0; hops < 6; ++hops) {
    const pir::OpId p = g.value(v).producer;
    if (p == pir::kNoOp) return false;
    const pir::Op& op = g.op(p);
    if (op.kind == pir::OpKind::kEinsum) return true;
    if (!PassesThrough(op.kind) || op.operands.empty()) return false;
    // The non-scalar operand (the scores, not a scale or a mask fill).
    // (A select's condition is no value it passes on.)
    const size_t first = op.kind == pir::OpKind::kWhere ? 1 : 0;
    if (op.operands.size() <= first) return false;
    pir::ValueId next = op.operands[first];
    for (size_t i = first; i < op.operands.size(); ++i) {
      if (g.type(op.operands[i]).NumElements() > g.type(next).NumElements()) next = op.operands[i];
    }
    v = next;
  }
  return false;
}

bool ToEinsum(const pir::Graph& g, const std::vector<std::vector<pir::OpId>>& users, pir::ValueId v, int depth) {
  if (depth > 6) return false;
  for (pir::OpId u : users[static_cast<size_t>(v)]) {
    const pir::Op& op = g.op(u);
    if (op.kind == pir::OpKind::kEinsum) return true;
    if (PassesThrough(op.kind) && ToEinsum(g, users, op.results[0], depth + 1)) return true;
  }
  return false;
}

std::string Signature(const pir::Graph& g, const pir::Op& op) {
  std::string s = "(";
  for (size_t i = 0; i < op.operands.size(); ++i) s += (i ? ", " : "") + g.type(op.operands[i]).ToString();
  s += ") -> ";
  for (size_t i = 0; i < op.results.size(); ++i) s += (i ? ", " : "") + g.type(op.results[i]).ToString();
  return s;
}

}  // namespace

double UnknownOps::unpriced_fraction() const {
  return program_bytes.value() > 0
             ? static_cast<double>(unpriced_bytes.value()) / static_cast<double>(program_bytes.value())
             : 0;
}

UnknownOps FindUnknownOps(const pir::Graph& g) {
  UnknownOps out;
  std::map<std::string, CustomOpGroup> groups;
  std::vector<std::vector<pir::OpId>> users(static_cast<size_t>(g.num_values()));
  for (pir::OpId id = 0; id < g.num_ops(); ++id) {
    for (pir::ValueId v : g.op(id).operands) users[static_cast<size_t>(v)].push_back(id);
  }
  for (pir::OpId id = 0; id < g.num_ops(); ++id) {
    const pir::Op& op = g.op(id);
    const pir::OpCost cost = pir::ComputeOpCost(op.kind, pir::OperandTypes(g, op), pir::ResultTypes(g, op), op.attrs);
    const Bytes bytes = cost.bytes_read + cost.bytes_written;
    out.program_bytes += bytes;
    if (op.kind == pir::OpKind::kSoftmax && FromEinsum(g, op.operands[0]) && ToEinsum(g, users, op.results[0], 0)) {
      out.unfolded_attention.push_back(op.name + " at " + op.loc.ToString());
    }
    if (op.kind != pir::OpKind::kCustom) continue;
    const std::string target = op.attrs.GetString("target").value_or("custom");
    CustomOpGroup& group = groups[target];
    if (group.count == 0) {
      group.target = target;
      group.priced = true;
    }
    ++group.count;
    const std::string signature = Signature(g, op);
    if (group.shapes.size() < 4 && std::find(group.shapes.begin(), group.shapes.end(), signature) == group.shapes.end()) {
      group.shapes.push_back(signature);
    }
    const bool priced = op.attrs.GetInt("flops").value_or(0) > 0;
    group.priced = group.priced && priced;
    group.flops += cost.total_flops();
    group.bytes += bytes;
    if (!priced) out.unpriced_bytes += bytes;
  }
  for (auto& [target, group] : groups) {
    group.pricing = group.priced ? "FLOPs from the importer's rule, bytes from its operands and results"
                                 : "unpriced: bytes from its operands and results, no FLOPs";
    out.custom.push_back(std::move(group));
  }
  return out;
}

std::string UnpricedWarning(const UnknownOps& unknown) {
  const double fraction = unknown.unpriced_fraction();
  if (fraction <= 0.01) return "";
  int ops = 0;
  std::string names;
  for (const CustomOpGroup& g : unknown.custom) {
    if (g.priced) continue;
    ops += g.count;
    names += (names.empty() ? "" : ", ") + g.target;
  }
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.1f%%", 100 * fraction);
  return "unpriced custom ops (" + std::to_string(ops) + ": " + names + ") move " + FormatBytes(unknown.unpriced_bytes) +
         ", " + percent + " of the program's " + FormatBytes(unknown.program_bytes) +
         ": their compute is missing from every latency (aoizora inspect lists them)";
}

}  // namespace az::frontend
