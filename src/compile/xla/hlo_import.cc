// HLO -> CIR (hlo_import.h). Size (800 lines): one Lowering whose handlers
// all mutate the same state (the buffers, the in-flight async collectives,
// the runs of cheap instructions folded into one kernel, the per-instruction
// cost cache); it stays in one file so those invariants read in one place.
#include "compile/xla/hlo_import.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compile/xla/hlo_cost.h"
#include "compile/xla/hlo_internal.h"

namespace az::compile::xla {
namespace {

using internal::CollectiveOf;
using internal::DeviceSpace;
using internal::ParseInt64;
using internal::StripSuffix;

// Work bound: HLO instructions visited while unrolling (aliases included, so a
// loop of aliases with an absurd trip count cannot spin).
constexpr int64_t kMaxVisited = 50'000'000;
constexpr int kMaxCallDepth = 64;

Flops ToFlops(double f) { return Flops(f >= 9.2e18 ? INT64_MAX : f <= 0 ? 0 : static_cast<int64_t>(f)); }
Bytes AddBytes(Bytes a, int64_t b) { return Bytes(a.value() > INT64_MAX - b ? INT64_MAX : a.value() + b); }

std::string MetadataOpName(const HloInstruction& in) {
  const HloAttribute* m = in.Attr("metadata");
  if (!m) return {};
  size_t pos = m->value.find("op_name=\"");
  if (pos == std::string::npos) return {};
  pos += 9;
  size_t end = pos;
  while (end < m->value.size() && m->value[end] != '"') end += m->value[end] == '\\' ? 2 : 1;
  return m->value.substr(pos, std::min(end, m->value.size()) - pos);
}

struct Value {
  std::vector<int> leaves;  // buffer id per tuple leaf; -1 = nothing materialized
  // An async start's value carries what its -done needs: the CIR start to
  // wait on (-1: none in flight) and the result the done yields.
  int start = -1;
  bool has_result = false;
  std::vector<int> result;
};

Value MakeValue(std::vector<int> leaves) {
  Value v;
  v.leaves = std::move(leaves);
  return v;
}

struct CompInfo {
  std::vector<HloShape> shapes;
  std::vector<std::vector<int>> users;
  std::vector<int> group;      // unfused modules: the run of cheap instructions each belongs to (-1: none)
  std::vector<int> group_end;  // per group: its last member (in order)
  std::vector<int> order;      // a topological order (the text order when it is one)
  // Each instruction's kernel cost, computed on first use: an unrolled loop
  // body runs the same instructions every iteration.
  mutable std::vector<std::optional<KernelCost>> costs;
};

class Lowering {
 public:
  Lowering(const HloModule& module, const SourceBuffer* source, const ImportOptions& options, ImportResult& out)
      : m_(module), src_(source), opt_(options), out_(out), prog_(out.program), devices_(module, source) {}

  Status Run() {
    fused_ = false;
    for (const HloComputation& c : m_.computations) {
      for (const HloInstruction& in : c.instructions) {
        if (in.opcode == "fusion") fused_ = true;
      }
    }
    AZ_RETURN_IF_ERROR(devices_.Count(out_.stats));
    n_ = devices_.devices();
    prog_.name = m_.name;
    prog_.num_devices = n_;
    out_.stats.scheduled = m_.is_scheduled;
    out_.stats.fused = fused_;
    const HloComputation& entry = m_.computations[m_.entry];
    const CompInfo& info = Info(entry);
    std::vector<Value> params;
    for (int i : info.order) {
      const HloInstruction& in = entry.instructions[i];
      if (in.opcode != "parameter") continue;
      int64_t number = ParseInt64(in.literal, -1);
      if (number < 0 || number > 100000) return Error(in, "parameter number '" + in.literal + "' is not valid");
      if (static_cast<int64_t>(params.size()) <= number) params.resize(number + 1);
      params[number] = NewBuffers(info.shapes[i], in.name, cir::BufferKind::kParameter);
    }
    Value result;
    AZ_RETURN_IF_ERROR(Exec(entry, params, result, "", 0));
    for (int b : result.leaves) {
      if (b >= 0 && std::find(prog_.outputs.begin(), prog_.outputs.end(), b) == prog_.outputs.end()) {
        prog_.outputs.push_back(b);
      }
    }
    std::map<cir::CollectiveKind, int64_t> step;
    for (const cir::Instruction& in : prog_.instructions) {
      if (in.kind == cir::InstrKind::kCollective || in.kind == cir::InstrKind::kCollectiveStart) ++step[in.collective];
    }
    out_.stats.step_collectives.assign(step.begin(), step.end());
    out_.stats.mesh = InferMesh(prog_);
    std::string mesh;
    for (size_t i = 0; i < out_.stats.mesh.size(); ++i) {
      mesh += (i ? "," : "") + std::string(1, static_cast<char>('a' + std::min<size_t>(i, 25))) + "=" +
              std::to_string(out_.stats.mesh[i]);
    }
    prog_.mesh = mesh;
    return Status::Ok();
  }

 private:
  Status Error(const HloInstruction& in, const std::string& message,
               StatusCode code = StatusCode::kInvalidArgument) const {
    return LocatedError(code, SourceLocation::Text(src_ ? src_->name() : "<hlo>", in.line, in.col), message, src_);
  }
  void Warn(const HloInstruction& in, const std::string& message) {
    if (!warned_.insert(message).second) return;
    out_.warnings.push_back(
        {Severity::kWarning, SourceLocation::Text(src_ ? src_->name() : "<hlo>", in.line, in.col), message});
  }

  const HloComputation* Called(const HloInstruction& in, std::string_view attr, Status* error) const {
    const HloAttribute* a = in.Attr(attr);
    if (!a) {
      *error = Error(in, "'" + in.opcode + "' needs attribute '" + std::string(attr) + "'");
      return nullptr;
    }
    auto names = ParseNameList(*a, src_);
    if (!names.ok()) {
      *error = names.status();
      return nullptr;
    }
    const HloComputation* c = m_.Find(names->front());
    if (!c) *error = AttributeError(*a, "no computation named '" + names->front() + "'", src_);
    return c;
  }

  // ---- buffers and instructions
  int NewBuffer(const HloShape& leaf, const std::string& name, cir::BufferKind kind) {
    cir::Buffer b;
    b.name = name;
    b.kind = kind;
    auto dtype = pir::ParseDType(leaf.type == "pred"       ? "i1"
                                 : leaf.type == "s32"      ? "i32"
                                 : leaf.type == "s64"      ? "i64"
                                 : leaf.type == "s8"       ? "i8"
                                 : leaf.type == "f8e4m3fn" ? "f8e4m3"
                                                           : leaf.type);
    bool exact = dtype && leaf.element_bits == 0 && leaf.dims.size() <= static_cast<size_t>(cir::kMaxBufferRank) &&
                 std::all_of(leaf.dims.begin(), leaf.dims.end(), [](int64_t d) { return d >= 0; }) &&
                 pir::DTypeBytes(*dtype) == HloTypeBytes(leaf.type);
    if (exact) {
      b.dtype = *dtype;
      b.shape = leaf.dims;
    } else {
      b.dtype = pir::DType::kI8;
      b.shape = {leaf.Bytes()};
    }
    return prog_.AddBuffer(std::move(b));
  }

  void Leaves(const HloShape& s, std::vector<const HloShape*>& out, int depth = 0) {
    if (!s.is_tuple || depth > kMaxHloNesting) {
      out.push_back(&s);
      return;
    }
    for (const HloShape& e : s.elements) Leaves(e, out, depth + 1);
  }

  Value NewBuffers(const HloShape& shape, const std::string& name, cir::BufferKind kind) {
    std::vector<const HloShape*> leaves;
    Leaves(shape, leaves);
    Value v;
    for (size_t i = 0; i < leaves.size(); ++i) {
      bool empty = leaves[i]->is_tuple || leaves[i]->Bytes() == 0;
      v.leaves.push_back(
          empty ? -1 : NewBuffer(*leaves[i], leaves.size() == 1 ? name : name + "#" + std::to_string(i), kind));
    }
    return v;
  }

  Status Emit(cir::Instruction in, const HloInstruction& where) {
    if (static_cast<int64_t>(prog_.instructions.size()) >= opt_.max_instructions) {
      return Error(where,
                   "the unrolled program exceeds " + std::to_string(opt_.max_instructions) +
                       " instructions (while loops are unrolled by their trip counts)",
                   StatusCode::kResourceExhausted);
    }
    prog_.AddInstruction(std::move(in));
    return Status::Ok();
  }

  // A done for every in-flight collective whose result one of `buffers` is.
  Status Settle(const std::vector<int>& buffers, const HloInstruction& where) {
    for (int b : buffers) {
      auto it = pending_.find(b);
      if (it == pending_.end()) continue;
      AZ_RETURN_IF_ERROR(Done(it->second, where));
    }
    return Status::Ok();
  }
  Status Done(int start, const HloInstruction& where) {
    const cir::Instruction& s = prog_.instructions[start];
    for (int r : s.results) pending_.erase(r);
    cir::Instruction d;
    d.kind = cir::InstrKind::kCollectiveDone;
    d.collective = s.collective;
    d.start = start;
    d.name = s.name + ".done";
    d.origin = s.origin;
    return Emit(std::move(d), where);
  }

  static std::vector<int> Present(const std::vector<int>& leaves) {
    std::vector<int> out;
    for (int b : leaves) {
      if (b >= 0 && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    }
    return out;
  }

  // ---- per computation
  const CompInfo& Info(const HloComputation& c) {
    auto it = info_.find(&c);
    if (it != info_.end()) return it->second;
    CompInfo info;
    info.shapes = ComputationShapes(c);
    size_t n = c.instructions.size();
    info.users.resize(n);
    for (size_t i = 0; i < n; ++i) {
      for (int o : c.instructions[i].operands) info.users[o].push_back(static_cast<int>(i));
    }
    // Topological order: the text order when operands come first, else a DFS.
    bool text_order = true;
    for (size_t i = 0; i < n && text_order; ++i) {
      for (int o : c.instructions[i].operands) text_order = text_order && o < static_cast<int>(i);
    }
    if (text_order) {
      info.order.resize(n);
      std::iota(info.order.begin(), info.order.end(), 0);
    } else {
      std::vector<char> state(n, 0);
      for (size_t root = 0; root < n; ++root) {
        if (state[root]) continue;
        std::vector<std::pair<int, size_t>> stack = {{static_cast<int>(root), 0}};
        state[root] = 1;
        while (!stack.empty()) {
          auto& [node, next] = stack.back();
          const auto& ops = c.instructions[node].operands;
          if (next < ops.size()) {
            int o = ops[next++];
            if (state[o] == 1) {
              cycle_ = &c.instructions[node];
            } else if (state[o] == 0) {
              state[o] = 1;
              stack.push_back({o, 0});
            }
          } else {
            state[node] = 2;
            info.order.push_back(node);
            stack.pop_back();
          }
        }
      }
    }
    if (!m_.is_scheduled && opt_.async_unscheduled && !cycle_) info.order = internal::PrefetchOrder(c, info.order);
    info.costs.resize(n);
    info.group.assign(n, -1);
    if (!fused_ && opt_.fuse_unfused) {
      int current = -1;
      for (int i : info.order) {
        const std::string& op = c.instructions[i].opcode;
        if (IsAliasOpcode(op) || op == "copy") continue;
        if (IsHeavyOpcode(op)) {
          current = -1;
          continue;
        }
        if (current < 0) {
          current = static_cast<int>(info.group_end.size());
          info.group_end.push_back(i);
        }
        info.group[i] = current;
        info.group_end[current] = i;
      }
    }
    return info_.emplace(&c, std::move(info)).first->second;
  }

  const KernelCost& Cost(const HloComputation& c, const CompInfo& info, int i) const {
    std::optional<KernelCost>& cost = info.costs[static_cast<size_t>(i)];
    if (!cost) {
      cost = c.instructions[i].opcode == "fusion" ? FusionCost(m_, c, info.shapes, i)
                                                  : InstructionCost(m_, c, info.shapes, i);
    }
    return *cost;
  }

  // The run of cheap instructions being folded into one kernel.
  struct PendingRun {
    cir::Instruction kernel;
    std::unordered_map<int, int64_t> reads;  // external buffer -> bytes read
    std::unordered_set<int> written;
    int members = 0;
    bool reduce = false, compute = false;
  };

  Status Exec(const HloComputation& c, const std::vector<Value>& params, Value& result, const std::string& prefix,
              int depth) {
    if (depth > kMaxCallDepth) {
      return Error(c.instructions.front(), "computations nest deeper than " + std::to_string(kMaxCallDepth) + " calls",
                   StatusCode::kResourceExhausted);
    }
    if (!active_.insert(&c).second) {
      return Error(c.instructions.front(), "computation '" + c.name + "' calls itself (cyclic calls= reference)");
    }
    const CompInfo& info = Info(c);
    if (cycle_) {
      return Error(*cycle_, "instruction '" + cycle_->name + "' depends on itself (a cycle through its operands)");
    }
    std::vector<Value> vals(c.instructions.size());
    std::vector<int> frame_pending;
    PendingRun run;
    for (int i : info.order) {
      if (++visited_ > kMaxVisited) {
        return Error(c.instructions[i],
                     "more than " + std::to_string(kMaxVisited) + " HLO instructions executed while unrolling loops",
                     StatusCode::kResourceExhausted);
      }
      AZ_RETURN_IF_ERROR(Step(c, info, i, params, vals, prefix, depth, run, frame_pending));
    }
    const HloInstruction& root = c.instructions[c.root];
    result = vals[c.root];
    // Collectives this frame left in flight finish before it returns.
    for (int start : frame_pending) {
      if (!prog_.instructions[start].results.empty() && pending_.count(prog_.instructions[start].results.front())) {
        AZ_RETURN_IF_ERROR(Done(start, root));
      }
    }
    active_.erase(&c);
    return Status::Ok();
  }

  Value OperandValue(const HloInstruction& in, const std::vector<Value>& vals, size_t j) {
    return j < in.operands.size() ? vals[in.operands[j]] : Value{};
  }
  std::vector<int> AllOperandLeaves(const HloInstruction& in, const std::vector<Value>& vals) {
    std::vector<int> out;
    for (int o : in.operands) out.insert(out.end(), vals[o].leaves.begin(), vals[o].leaves.end());
    return Present(out);
  }

  // Leaf range of tuple element `index` of `shape`.
  static std::pair<int64_t, int64_t> ElementRange(const HloShape& shape, int64_t index) {
    if (!shape.is_tuple || index < 0 || index >= static_cast<int64_t>(shape.elements.size())) return {0, 0};
    int64_t begin = 0;
    for (int64_t i = 0; i < index; ++i) begin += shape.elements[i].Leaves();
    return {begin, begin + shape.elements[index].Leaves()};
  }
  static Value Fit(Value v, int64_t leaves) {
    v.leaves.resize(std::max<int64_t>(leaves, 0), -1);
    return v;
  }

  Status Step(const HloComputation& c, const CompInfo& info, int i, const std::vector<Value>& params,
              std::vector<Value>& vals, const std::string& prefix, int depth, PendingRun& run,
              std::vector<int>& frame_pending) {
    const HloInstruction& in = c.instructions[i];
    const HloShape& shape = info.shapes[i];
    const std::string& op = in.opcode;
    std::string name = prefix + in.name;
    Status error;

    if (op == "parameter") {
      int64_t number = ParseInt64(in.literal, -1);
      if (number < 0 || number >= static_cast<int64_t>(params.size())) {
        return Error(in, "parameter(" + in.literal + ") has no argument in this call of '" + c.name + "'");
      }
      vals[i] = Fit(params[number], shape.Leaves());
      return Status::Ok();
    }
    if (op == "constant" || op == "iota" || op == "partition-id" || op == "replica-id" || op == "after-all" ||
        op == "rng-get-and-update-state") {
      vals[i] = NewBuffers(shape, name, cir::BufferKind::kConstant);
      return Status::Ok();
    }
    if (op == "get-tuple-element") {
      int64_t index = in.Attr("index") ? ParseInt64(in.Attr("index")->value, -1) : -1;
      const HloShape& t = in.operands.empty() ? shape : info.shapes[in.operands[0]];
      auto [b, e] = ElementRange(t, index);
      Value v;
      const Value src = OperandValue(in, vals, 0);
      for (int64_t k = b; k < e; ++k)
        v.leaves.push_back(k < static_cast<int64_t>(src.leaves.size()) ? src.leaves[k] : -1);
      vals[i] = Fit(v, shape.Leaves());
      return Status::Ok();
    }
    if (op == "tuple") {
      Value v;
      for (int o : in.operands) v.leaves.insert(v.leaves.end(), vals[o].leaves.begin(), vals[o].leaves.end());
      vals[i] = v;
      return Status::Ok();
    }
    if (IsAliasOpcode(op) || (op == "copy" && !fused_)) {
      vals[i] = Fit(OperandValue(in, vals, 0), shape.Leaves());
      return Status::Ok();
    }

    // Collectives: sync, dedicated -start and sugar forms.
    std::string_view base = StripSuffix(op, "-start");
    auto kind = CollectiveOf(base.empty() ? std::string_view(op) : base);
    if (kind) return Collective(c, info, i, *kind, !base.empty(), vals, name, frame_pending);
    std::string_view done_base = StripSuffix(op, "-done");
    if (!done_base.empty() && (CollectiveOf(done_base) || done_base == "async" || done_base == "send")) {
      Value v = OperandValue(in, vals, 0);
      if (v.start >= 0 && pending_.count(prog_.instructions[v.start].results.front())) {
        AZ_RETURN_IF_ERROR(Done(v.start, in));
      }
      vals[i] = Fit(v.has_result ? MakeValue(v.result) : MakeValue(v.leaves), shape.Leaves());
      return Status::Ok();
    }
    if (StripSuffix(op, "-update").size() > 0) {
      vals[i] = Fit(OperandValue(in, vals, 0), shape.Leaves());
      return Status::Ok();
    }
    if (op == "send") {
      if (DeviceSpace::IsHostTransfer(in) || DeviceSpace::SendRecvPairs(in).empty()) {
        Warn(in, "send/recv to the host or without _xla_send_recv_source_target_pairs: not priced");
        vals[i] = MakeValue(std::vector<int>(shape.Leaves(), -1));
        return Status::Ok();
      }
      return Collective(c, info, i, cir::CollectiveKind::kCollectivePermute, true, vals, name, frame_pending);
    }
    if (op == "recv" || op == "recv-done") {
      // The data a device recv receives is the matching send's permute result.
      std::string channel = in.Attr("channel_id") ? in.Attr("channel_id")->value : "";
      auto it = channel.empty() ? send_results_.end() : send_results_.find(channel);
      if (op == "recv-done" && it != send_results_.end() && !DeviceSpace::IsHostTransfer(in)) {
        vals[i] = Fit(it->second, shape.Leaves());
      } else if (op == "recv") {
        vals[i] = NewBuffers(shape, name, cir::BufferKind::kInput);
      } else {
        vals[i] = Fit(OperandValue(in, vals, 0), shape.Leaves());
      }
      return Status::Ok();
    }

    // Control flow, inlined.
    if (op == "call") {
      const HloComputation* callee = Called(in, "to_apply", &error);
      if (!callee) return error;
      std::vector<Value> args;
      for (int o : in.operands) args.push_back(vals[o]);
      Value r;
      AZ_RETURN_IF_ERROR(Exec(*callee, args, r, name + "/", depth + 1));
      vals[i] = Fit(r, shape.Leaves());
      return Status::Ok();
    }
    if (op == "async-start") {
      const HloComputation* wrapped = Called(in, "calls", &error);
      if (!wrapped) return error;
      const HloInstruction& root = wrapped->instructions[wrapped->root];
      auto wrapped_kind = CollectiveOf(root.opcode);
      if (wrapped_kind) {
        return Collective(c, info, i, *wrapped_kind, true, vals, name, frame_pending, &root);
      }
      std::vector<Value> args;
      for (int o : in.operands) args.push_back(vals[o]);
      Value r;
      AZ_RETURN_IF_ERROR(Exec(*wrapped, args, r, name + "/", depth + 1));
      Value v;
      for (const Value& a : args) v.leaves.insert(v.leaves.end(), a.leaves.begin(), a.leaves.end());
      v.leaves.insert(v.leaves.end(), r.leaves.begin(), r.leaves.end());
      vals[i] = Fit(v, shape.Leaves());
      vals[i].has_result = true;
      vals[i].result = r.leaves;
      return Status::Ok();
    }
    if (op == "conditional") {
      std::vector<const HloComputation*> branches;
      for (const HloAttribute& a : in.attributes) {
        if (a.name != "branch_computations" && a.name != "true_computation" && a.name != "false_computation") continue;
        AZ_ASSIGN_OR_RETURN(auto names, ParseNameList(a, src_));
        for (const std::string& n : names) {
          const HloComputation* b = m_.Find(n);
          if (!b) return AttributeError(a, "no computation named '" + n + "'", src_);
          branches.push_back(b);
        }
      }
      if (branches.empty()) return Error(in, "conditional without branch computations");
      size_t best = 0;
      double best_flops = -1;
      for (size_t b = 0; b < branches.size(); ++b) {
        double f = ComputationFlops(m_, *branches[b]);
        if (f > best_flops) {
          best_flops = f;
          best = b;
        }
      }
      if (branches.size() > 1)
        Warn(in, "conditional: priced its most expensive branch ('" + branches[best]->name + "')");
      std::vector<Value> args = {OperandValue(in, vals, best + 1)};
      Value r;
      AZ_RETURN_IF_ERROR(Exec(*branches[best], args, r, name + "/", depth + 1));
      vals[i] = Fit(r, shape.Leaves());
      return Status::Ok();
    }
    if (op == "while") {
      const HloComputation* body = Called(in, "body", &error);
      if (!body) return error;
      const HloComputation* cond = Called(in, "condition", &error);
      if (!cond) return error;
      int64_t trip = WhileTripCount(m_, c, in);
      ++out_.stats.while_loops;
      if (trip < 0) {
        Warn(in, "while loop '" + in.name +
                     "': trip count unknown (no known_trip_count, no induction pattern); "
                     "priced as one iteration");
        trip = 1;
      }
      out_.stats.trip_counts.push_back(trip);
      // Refuse an unrolling past the limits before doing it.
      int64_t work = 0, emitted = 0;
      for (const HloComputation* part : {body, cond}) {
        for (const HloInstruction& b : part->instructions) {
          ++work;
          if (!IsAliasOpcode(b.opcode)) ++emitted;
        }
      }
      int64_t room = opt_.max_instructions - static_cast<int64_t>(prog_.instructions.size());
      bool over_work = trip > 0 && work > (kMaxVisited - visited_) / trip;
      bool over_emitted = trip > 0 && emitted > 0 && (fused_ || !opt_.fuse_unfused) && emitted > room / trip;
      if (over_work || over_emitted) {
        return Error(in,
                     "while loop '" + in.name + "' runs " + std::to_string(trip) + " iterations of " +
                         std::to_string(work) + " instructions: the unrolled program exceeds the limit of " +
                         std::to_string(over_work ? kMaxVisited : opt_.max_instructions) + " instructions",
                     StatusCode::kResourceExhausted);
      }
      Value cur = OperandValue(in, vals, 0);
      for (int64_t it = 0; it < trip; ++it) {
        std::string iter = name + "/" + std::to_string(it) + "/";
        Value ignored, next;
        AZ_RETURN_IF_ERROR(Exec(*cond, {cur}, ignored, iter + "cond/", depth + 1));
        AZ_RETURN_IF_ERROR(Exec(*body, {cur}, next, iter, depth + 1));
        cur = Fit(next, static_cast<int64_t>(cur.leaves.size()));
      }
      vals[i] = Fit(cur, shape.Leaves());
      return Status::Ok();
    }

    // Kernels.
    if (info.group[i] >= 0) return RunMember(c, info, i, vals, name, run);
    KernelCost cost = Cost(c, info, i);
    if (!cost.note.empty()) Warn(in, cost.note);
    cir::Instruction k;
    k.kind = cir::InstrKind::kKernel;
    k.name = name;
    k.origin = MetadataOpName(in).empty() ? op : MetadataOpName(in);
    k.kernel = cost.kind;
    k.flops = ToFlops(cost.flops);
    k.bytes_read = Bytes(cost.bytes_read);
    k.bytes_written = Bytes(cost.bytes_written);
    for (int64_t d : cost.dims) {
      if (d < 0 || d > cir::kMaxKernelDim) {
        cost.dims.clear();
        break;
      }
    }
    if (cost.dims.size() <= cir::kMaxKernelDims) k.dims = cost.dims;
    k.precision = cost.precision;
    k.operands = AllOperandLeaves(in, vals);
    if (op == "dynamic-update-slice" && !in.operands.empty()) {
      vals[i] = Fit(vals[in.operands[0]], shape.Leaves());  // in place
    } else {
      vals[i] = NewBuffers(shape, name, cir::BufferKind::kActivation);
    }
    k.results = Present(vals[i].leaves);
    AZ_RETURN_IF_ERROR(Settle(k.operands, in));
    AZ_RETURN_IF_ERROR(Settle(k.results, in));
    return Emit(std::move(k), in);
  }

  // One cheap instruction of an unfused module joins its run; the run's
  // kernel is emitted with its last member.
  Status RunMember(const HloComputation& c, const CompInfo& info, int i, std::vector<Value>& vals,
                   const std::string& name, PendingRun& run) {
    const HloInstruction& in = c.instructions[i];
    const HloShape& shape = info.shapes[i];
    int group = info.group[i];
    const KernelCost& cost = Cost(c, info, i);
    if (run.members == 0) {
      run.kernel = cir::Instruction();
      run.kernel.kind = cir::InstrKind::kKernel;
      run.kernel.name = name;
      run.kernel.origin = "fused run from " + in.name;
      run.reads.clear();
      run.written.clear();
      run.reduce = run.compute = false;
    }
    ++run.members;
    run.kernel.flops = ToFlops(static_cast<double>(run.kernel.flops.value()) + cost.flops);
    if (cost.kind == cir::KernelKind::kReduce) run.reduce = true;
    if (cost.kind != cir::KernelKind::kCopy) run.compute = true;
    for (int j = 0; j < static_cast<int>(in.operands.size()); ++j) {
      int64_t bytes = OperandReadBytes(in, info.shapes, j);
      if ((in.opcode == "slice" || in.opcode == "dynamic-slice" || in.opcode == "gather") && j == 0) {
        bytes = std::min(bytes, shape.Bytes());
      }
      const Value& v = vals[in.operands[j]];
      int64_t per_leaf = v.leaves.empty() ? 0 : bytes / static_cast<int64_t>(v.leaves.size());
      for (int b : v.leaves) {
        if (b < 0 || run.written.count(b)) continue;
        int64_t& r = run.reads[b];
        r = std::max(r, per_leaf);
      }
    }
    // The member's value is materialized only when something outside the run
    // reads it (or it is the computation's root).
    bool external = i == c.root;
    for (int u : info.users[i]) external = external || info.group[u] != group;
    if (in.opcode == "dynamic-update-slice" && !in.operands.empty()) {
      vals[i] = Fit(vals[in.operands[0]], shape.Leaves());
      for (int b : vals[i].leaves) {
        if (b >= 0) run.written.insert(b);
      }
      run.kernel.bytes_written = AddBytes(run.kernel.bytes_written, WrittenBytes(in, info.shapes, i));
    } else if (external) {
      vals[i] = NewBuffers(shape, name, cir::BufferKind::kActivation);
      for (int b : vals[i].leaves) {
        if (b >= 0) run.written.insert(b);
      }
      run.kernel.bytes_written = AddBytes(run.kernel.bytes_written, shape.Bytes());
    } else {
      vals[i] = MakeValue(std::vector<int>(shape.Leaves(), -1));
    }
    if (info.group_end[group] != i) return Status::Ok();
    // Emit the run.
    cir::Instruction k = std::move(run.kernel);
    int64_t read = 0;
    std::vector<int> operands;
    for (auto& [b, bytes] : run.reads) {
      operands.push_back(b);
      read += bytes;
    }
    std::sort(operands.begin(), operands.end());
    k.operands = operands;
    k.results.assign(run.written.begin(), run.written.end());
    std::sort(k.results.begin(), k.results.end());
    k.bytes_read = Bytes(read);
    k.kernel = run.reduce    ? cir::KernelKind::kReduce
               : run.compute ? cir::KernelKind::kElementwise
                             : cir::KernelKind::kCopy;
    if (run.members > 1) k.origin += " (" + std::to_string(run.members) + " instructions)";
    run.members = 0;
    AZ_RETURN_IF_ERROR(Settle(k.operands, in));
    AZ_RETURN_IF_ERROR(Settle(k.results, in));
    return Emit(std::move(k), in);
  }

  Status Collective(const HloComputation& c, const CompInfo& info, int i, cir::CollectiveKind kind, bool explicit_start,
                    std::vector<Value>& vals, const std::string& name, std::vector<int>& frame_pending,
                    const HloInstruction* attrs_from = nullptr) {
    const HloInstruction& in = c.instructions[i];
    const HloInstruction& a = attrs_from ? *attrs_from : in;
    bool device_send = in.opcode == "send";
    cir::Instruction k;
    k.name = name;
    k.origin = MetadataOpName(in).empty() ? in.opcode : MetadataOpName(in);
    k.collective = kind;
    // Payload: the operand bytes (data operands only: a send's token and a
    // permute's in-place output/offset operands are not payload).
    size_t data_operands = in.operands.size();
    if (device_send) data_operands = std::min<size_t>(1, data_operands);
    if (kind == cir::CollectiveKind::kCollectivePermute && !device_send && in.operands.size() == 4) data_operands = 1;
    if (kind == cir::CollectiveKind::kAllToAll && a.opcode == "ragged-all-to-all")
      data_operands = std::min<size_t>(1, data_operands);
    int64_t payload = 0;
    std::vector<int64_t> leaf_bytes;
    std::vector<const HloShape*> data_leaves;
    for (size_t j = 0; j < data_operands; ++j) Leaves(info.shapes[in.operands[j]], data_leaves);
    for (const HloShape* s : data_leaves) {
      leaf_bytes.push_back(s->Bytes());
      payload += s->Bytes();
    }
    int64_t group_size = 1;
    if (kind == cir::CollectiveKind::kCollectivePermute) {
      AZ_ASSIGN_OR_RETURN(k.pairs, devices_.Pairs(a, device_send));
      if (k.pairs.empty()) {
        Warn(in, "collective-permute with no source_target_pairs moves nothing: not priced");
        vals[i] = MakeValue(std::vector<int>(info.shapes[i].Leaves(), -1));
        return Status::Ok();
      }
    } else {
      AZ_ASSIGN_OR_RETURN(k.groups, devices_.Groups(a, kind));
      group_size = k.groups.groups.empty() ? 1 : static_cast<int64_t>(k.groups.groups.front().size());
    }
    k.collective_bytes = Bytes(kind == cir::CollectiveKind::kAllGather ? payload * group_size : payload);
    k.operands = AllOperandLeaves(in, vals);
    if (device_send && !k.operands.empty()) k.operands.erase(k.operands.begin() + 1, k.operands.end());
    // Results: one buffer per data leaf, sized as the collective leaves it.
    Value result;
    for (size_t j = 0; j < data_leaves.size(); ++j) {
      int64_t bytes = leaf_bytes[j];
      if (kind == cir::CollectiveKind::kAllGather) bytes *= group_size;
      if (kind == cir::CollectiveKind::kReduceScatter) bytes /= std::max<int64_t>(group_size, 1);
      HloShape leaf;
      leaf.type = "s8";
      leaf.dims = {bytes};
      result.leaves.push_back(bytes > 0
                                  ? NewBuffer(leaf, data_leaves.size() == 1 ? name : name + "#" + std::to_string(j),
                                              cir::BufferKind::kCommunication)
                                  : -1);
    }
    k.results = Present(result.leaves);
    AZ_RETURN_IF_ERROR(Settle(k.operands, in));
    bool async = explicit_start || (!m_.is_scheduled && opt_.async_unscheduled);
    k.kind = async ? cir::InstrKind::kCollectiveStart : cir::InstrKind::kCollective;
    if (k.results.empty()) {
      // Nothing to wait on: a blocking collective.
      k.kind = cir::InstrKind::kCollective;
      async = false;
    }
    int index = static_cast<int>(prog_.instructions.size());
    std::vector<int> results = k.results;
    AZ_RETURN_IF_ERROR(Emit(std::move(k), in));
    if (async) {
      for (int r : results) pending_[r] = index;
      frame_pending.push_back(index);
    }
    if (explicit_start) {
      // The start's value: its operands then its result; -done finds both.
      Value v;
      v.leaves = result.leaves;
      const HloShape& shape = info.shapes[i];
      if (shape.is_tuple && shape.elements.size() >= 2) {
        Value w;
        for (int o : in.operands) w.leaves.insert(w.leaves.end(), vals[o].leaves.begin(), vals[o].leaves.end());
        w = Fit(w, shape.elements[0].Leaves());
        w.leaves.insert(w.leaves.end(), result.leaves.begin(), result.leaves.end());
        v = w;
      }
      vals[i] = Fit(v, shape.Leaves());
      vals[i].has_result = true;
      vals[i].result = result.leaves;
      vals[i].start = async ? index : -1;
      if (device_send && in.Attr("channel_id")) send_results_[in.Attr("channel_id")->value] = result;
    } else {
      vals[i] = Fit(result, info.shapes[i].Leaves());
    }
    return Status::Ok();
  }

  const HloModule& m_;
  const SourceBuffer* src_;
  const ImportOptions& opt_;
  ImportResult& out_;
  cir::Program& prog_;
  DeviceSpace devices_;
  bool fused_ = false;
  int64_t n_ = 1;
  int64_t visited_ = 0;
  std::unordered_map<const HloComputation*, CompInfo> info_;
  std::unordered_map<int, int> pending_;                 // result buffer -> in-flight start
  std::unordered_map<std::string, Value> send_results_;  // channel -> device send's received data
  std::unordered_set<const HloComputation*> active_;
  std::set<std::string> warned_;
  const HloInstruction* cycle_ = nullptr;
};

}  // namespace

StatusOr<ImportResult> ImportHlo(const HloFile& file, const ImportOptions& options) {
  int index = options.module;
  if (index < 0) {
    if (file.modules.size() != 1) {
      return InvalidArgument((file.source ? file.source->name() + ": " : std::string()) + "the file holds " +
                             std::to_string(file.modules.size()) + " modules (split by '// -----'); choose one");
    }
    index = 0;
  }
  if (index >= static_cast<int>(file.modules.size())) {
    return InvalidArgument("module " + std::to_string(index) + " does not exist (the file holds " +
                           std::to_string(file.modules.size()) + ")");
  }
  ImportResult out;
  out.source = file.source;
  out.warnings = file.warnings;
  Lowering lowering(file.modules[index], file.source.get(), options, out);
  AZ_RETURN_IF_ERROR(lowering.Run());
  AZ_RETURN_IF_ERROR(cir::VerifyProgram(out.program));
  return out;
}

StatusOr<ImportResult> ImportHloText(std::string_view text, const std::string& file_name,
                                     const ImportOptions& options) {
  AZ_ASSIGN_OR_RETURN(HloFile file, ParseHlo(text, file_name));
  return ImportHlo(file, options);
}

}  // namespace az::compile::xla
