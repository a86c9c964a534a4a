// The importer's schedule and loop analyses: the prefetching list schedule of
// unscheduled modules, while-loop trip counts, and the mesh the groups imply.
#include <algorithm>
#include <cctype>
#include <set>

#include "compile/xla/hlo_cost.h"
#include "compile/xla/hlo_internal.h"

namespace az::compile::xla {
namespace internal {

std::vector<int> PrefetchOrder(const HloComputation& c, const std::vector<int>& topo) {
  size_t n = c.instructions.size();
  std::vector<char> urgent(n, 0);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const HloInstruction& in = c.instructions[*it];
    std::string_view base = StripSuffix(in.opcode, "-start");
    if (CollectiveOf(base.empty() ? std::string_view(in.opcode) : base)) urgent[*it] = 1;
    if (!urgent[*it]) continue;
    for (int o : in.operands) {
      if (!IsHeavyOpcode(c.instructions[o].opcode)) urgent[o] = 1;
    }
  }
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<int> ops = c.instructions[i].operands;
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    pending[i] = static_cast<int>(ops.size());
    for (int o : ops) users[o].push_back(static_cast<int>(i));
  }
  std::vector<int> rank(n);
  for (size_t k = 0; k < topo.size(); ++k) rank[topo[k]] = static_cast<int>(k);
  auto later = [&](int a, int b) { return rank[a] > rank[b]; };
  std::vector<int> hot, cold;  // min-heaps by rank
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) {
      (urgent[i] ? hot : cold).push_back(static_cast<int>(i));
    }
  }
  std::make_heap(hot.begin(), hot.end(), later);
  std::make_heap(cold.begin(), cold.end(), later);
  std::vector<int> order;
  order.reserve(n);
  while (!hot.empty() || !cold.empty()) {
    std::vector<int>& from = hot.empty() ? cold : hot;
    std::pop_heap(from.begin(), from.end(), later);
    int i = from.back();
    from.pop_back();
    order.push_back(i);
    for (int u : users[i]) {
      if (--pending[u] == 0) {
        std::vector<int>& to = urgent[u] ? hot : cold;
        to.push_back(u);
        std::push_heap(to.begin(), to.end(), later);
      }
    }
  }
  return order;
}

}  // namespace internal

namespace {

using internal::ParseInt64;

const HloInstruction* Through(const HloComputation& c, const HloInstruction* in) {
  int guard = 0;
  while (in &&
         (in->opcode == "copy" || in->opcode == "convert" || in->opcode == "bitcast" || in->opcode == "reshape") &&
         !in->operands.empty() && ++guard < 64) {
    in = &c.instructions[in->operands[0]];
  }
  return in;
}

std::optional<int64_t> ConstantInt(const HloComputation& c, const HloInstruction* in) {
  in = Through(c, in);
  if (!in || in->opcode != "constant") return std::nullopt;
  std::string_view lit = in->literal;
  while (!lit.empty() && lit.front() == ' ') lit.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(lit.data(), lit.data() + lit.size(), v);
  if (ec != std::errc()) return std::nullopt;
  return v;
}

// get-tuple-element(parameter, index=k) -> k.
std::optional<int64_t> InductionIndex(const HloComputation& c, const HloInstruction* in) {
  in = Through(c, in);
  if (!in || in->opcode != "get-tuple-element" || in->operands.empty()) return std::nullopt;
  if (c.instructions[in->operands[0]].opcode != "parameter") return std::nullopt;
  const HloAttribute* a = in->Attr("index");
  if (!a) return std::nullopt;
  return ParseInt64(a->value, -1);
}

}  // namespace

int64_t WhileTripCount(const HloModule& module, const HloComputation& comp, const HloInstruction& w) {
  if (const HloAttribute* b = w.Attr("backend_config")) {
    size_t pos = b->value.find("known_trip_count");
    if (pos != std::string::npos) {
      size_t n = b->value.find("n", pos + 16);
      while (n != std::string::npos && n + 1 < b->value.size() &&
             std::isalpha(static_cast<unsigned char>(b->value[n + 1]))) {
        n = b->value.find("n", n + 1);
      }
      if (n != std::string::npos) {
        size_t i = n + 1;
        while (i < b->value.size() && !std::isdigit(static_cast<unsigned char>(b->value[i])) && i < n + 8) ++i;
        int64_t v = ParseInt64(std::string_view(b->value).substr(i), -1);
        if (v >= 0) return v;
      }
    }
  }
  // XLA's trivial loop pattern.
  auto called = [&](const char* attr) -> const HloComputation* {
    const HloAttribute* a = w.Attr(attr);
    if (!a) return nullptr;
    auto names = ParseNameList(*a, nullptr);
    return names.ok() ? module.Find(names->front()) : nullptr;
  };
  const HloComputation* cond = called("condition");
  const HloComputation* body = called("body");
  if (!cond || !body || w.operands.empty()) return -1;
  const HloInstruction& cmp = cond->instructions[cond->root];
  if (cmp.opcode != "compare" || cmp.operands.size() != 2) return -1;
  const HloAttribute* dir = cmp.Attr("direction");
  if (!dir) return -1;
  std::string direction = dir->value;
  auto k = InductionIndex(*cond, &cond->instructions[cmp.operands[0]]);
  auto limit = ConstantInt(*cond, &cond->instructions[cmp.operands[1]]);
  if (!k || !limit) {
    // constant OP induction: mirror the direction.
    k = InductionIndex(*cond, &cond->instructions[cmp.operands[1]]);
    limit = ConstantInt(*cond, &cond->instructions[cmp.operands[0]]);
    if (!k || !limit) return -1;
    direction = direction == "GT" ? "LT" : direction == "GE" ? "LE" : "";
  }
  if (direction != "LT" && direction != "LE") return -1;
  // Init: element k of the while operand (a tuple) is a constant.
  const HloInstruction* init = Through(comp, &comp.instructions[w.operands[0]]);
  if (!init || init->opcode != "tuple" || *k < 0 || *k >= static_cast<int64_t>(init->operands.size())) return -1;
  auto c0 = ConstantInt(comp, &comp.instructions[init->operands[*k]]);
  if (!c0) return -1;
  // Body: root element k is add(gte(param, k), constant s).
  const HloInstruction& root = body->instructions[body->root];
  if (root.opcode != "tuple" || *k >= static_cast<int64_t>(root.operands.size())) return -1;
  const HloInstruction* add = Through(*body, &body->instructions[root.operands[*k]]);
  if (!add || add->opcode != "add" || add->operands.size() != 2) return -1;
  std::optional<int64_t> step;
  for (int side = 0; side < 2 && !step; ++side) {
    auto idx = InductionIndex(*body, &body->instructions[add->operands[side]]);
    auto s = ConstantInt(*body, &body->instructions[add->operands[1 - side]]);
    if (idx && *idx == *k && s) step = s;
  }
  if (!step || *step <= 0) return -1;
  if (direction == "LT") return *limit <= *c0 ? 0 : (*limit - *c0 + *step - 1) / *step;
  return *limit < *c0 ? 0 : (*limit - *c0) / *step + 1;
}

std::vector<int64_t> InferMesh(const cir::Program& program) {
  int64_t n = program.num_devices;
  std::set<int64_t> cuts;
  std::set<std::string> seen;
  for (const cir::Instruction& in : program.instructions) {
    if (in.groups.groups.empty()) continue;
    std::string iota = cir::FormatIotaReplicaGroups(in.groups);
    if (iota.empty() || !seen.insert(iota).second) continue;
    size_t open = iota.find("<=[");
    size_t close = iota.find(']', open);
    if (open == std::string::npos || close == std::string::npos) continue;
    std::string_view dims = std::string_view(iota).substr(open + 3, close - open - 3);
    int64_t product = 1;
    size_t start = 0;
    while (start <= dims.size()) {
      size_t comma = dims.find(',', start);
      int64_t d =
          ParseInt64(dims.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start), 1);
      product *= std::max<int64_t>(d, 1);
      if (product > 1 && product < n) cuts.insert(product);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  std::vector<int64_t> mesh;
  int64_t last = 1;
  for (int64_t c : cuts) {
    if (c % last == 0 && n % c == 0) {
      mesh.push_back(c / last);
      last = c;
    }
  }
  mesh.push_back(n / last);
  return mesh;
}

}  // namespace az::compile::xla
