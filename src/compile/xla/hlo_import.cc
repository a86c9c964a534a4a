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

namespace az::compile::xla {
namespace {

// Work bound: HLO instructions visited while unrolling (aliases included, so a
// loop of aliases with an absurd trip count cannot spin).
constexpr int64_t kMaxVisited = 50'000'000;
constexpr int kMaxCallDepth = 64;

std::optional<cir::CollectiveKind> CollectiveOf(std::string_view op) {
  if (op == "all-reduce") return cir::CollectiveKind::kAllReduce;
  if (op == "all-gather") return cir::CollectiveKind::kAllGather;
  if (op == "reduce-scatter") return cir::CollectiveKind::kReduceScatter;
  if (op == "all-to-all" || op == "ragged-all-to-all") return cir::CollectiveKind::kAllToAll;
  if (op == "collective-permute") return cir::CollectiveKind::kCollectivePermute;
  if (op == "collective-broadcast") return cir::CollectiveKind::kBroadcast;
  return std::nullopt;
}

std::string_view StripSuffix(std::string_view op, std::string_view suffix) {
  return op.ends_with(suffix) ? op.substr(0, op.size() - suffix.size()) : std::string_view();
}

Flops ToFlops(double f) { return Flops(f >= 9.2e18 ? INT64_MAX : f <= 0 ? 0 : static_cast<int64_t>(f)); }
Bytes AddBytes(Bytes a, int64_t b) { return Bytes(a.value() > INT64_MAX - b ? INT64_MAX : a.value() + b); }

int64_t ParseInt64(std::string_view v, int64_t fallback) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  int64_t x = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  return ec == std::errc() ? x : fallback;
}

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

// Groups of one collective as written, before the mode maps them to
// flattened ids. `all` means "{}" or no attribute: one group of every id.
struct RawGroups {
  bool all = false;
  cir::ReplicaGroups groups;
};

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
};

class Lowering {
 public:
  Lowering(const HloModule& module, const SourceBuffer* source, const ImportOptions& options, ImportResult& out)
      : m_(module), src_(source), opt_(options), out_(out), prog_(out.program) {}

  Status Run() {
    fused_ = false;
    for (const HloComputation& c : m_.computations) {
      for (const HloInstruction& in : c.instructions) {
        if (in.opcode == "fusion") fused_ = true;
      }
    }
    AZ_RETURN_IF_ERROR(CountDevices());
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

  // ---- devices and groups
  StatusOr<RawGroups> ReadGroups(const HloInstruction& in) {
    RawGroups g;
    const HloAttribute* a = in.Attr("replica_groups");
    std::string text = a ? a->value : "{}";
    std::string squeezed;
    for (char c : text) {
      if (c != ' ' && c != '\n' && c != '\t') squeezed += c;
    }
    if (squeezed == "{}") {
      g.all = true;
      return g;
    }
    auto it = group_cache_.find(squeezed);
    if (it == group_cache_.end()) {
      auto parsed = cir::ParseReplicaGroups(squeezed, static_cast<int>(cir::kMaxProgramDevices), true);
      if (!parsed.ok()) return AttributeError(*a, parsed.status().message(), src_);
      it = group_cache_.emplace(squeezed, std::move(*parsed)).first;
    }
    g.groups = it->second;
    return g;
  }

  StatusOr<std::vector<std::pair<int, int>>> ReadPairs(const HloInstruction& in, std::string_view text,
                                                       const HloAttribute* where) {
    std::vector<std::pair<int, int>> pairs;
    std::string squeezed;
    for (char c : text) {
      if (c != ' ' && c != '\n' && c != '\t' && c != '"' && c != '\\') squeezed += c;
    }
    if (squeezed == "{}" || squeezed.empty()) return pairs;
    auto parsed = cir::ParsePermutePairs(squeezed, static_cast<int>(cir::kMaxProgramDevices));
    if (!parsed.ok()) {
      if (where) return AttributeError(*where, parsed.status().message(), src_);
      return Error(in, parsed.status().message(), StatusCode::kParseError);
    }
    return *parsed;
  }

  std::string SendRecvPairs(const HloInstruction& in) const {
    const HloAttribute* f = in.Attr("frontend_attributes");
    if (!f) return {};
    size_t pos = f->value.find("_xla_send_recv_source_target_pairs");
    if (pos == std::string::npos) return {};
    size_t open = f->value.find('"', pos + 34);
    size_t close = open == std::string::npos ? std::string::npos : f->value.find('"', open + 1);
    if (close == std::string::npos) return {};
    return f->value.substr(open + 1, close - open - 1);
  }

  bool IsHostTransfer(const HloInstruction& in) const {
    const HloAttribute* h = in.Attr("is_host_transfer");
    return h && h->value == "true";
  }

  // N from the header, else from the largest id any collective names.
  Status CountDevices() {
    out_.stats.replica_count = m_.replica_count;
    out_.stats.num_partitions = m_.num_partitions;
    std::map<cir::CollectiveKind, int64_t> counts;
    int64_t max_id = -1;
    for (const HloComputation& c : m_.computations) {
      for (const HloInstruction& in : c.instructions) {
        std::string_view op = in.opcode;
        std::string_view base = StripSuffix(op, "-start");
        auto kind = CollectiveOf(base.empty() ? op : base);
        bool device_send = (op == "send") && !IsHostTransfer(in) && !SendRecvPairs(in).empty();
        if (!kind && !device_send) continue;
        if (kind) ++counts[*kind];
        if (device_send || *kind == cir::CollectiveKind::kCollectivePermute) {
          const HloAttribute* a = in.Attr("source_target_pairs");
          std::string text = device_send ? SendRecvPairs(in) : (a ? a->value : "");
          AZ_ASSIGN_OR_RETURN(auto pairs, ReadPairs(in, text, device_send ? nullptr : a));
          for (auto [s, t] : pairs) max_id = std::max<int64_t>(max_id, std::max(s, t));
        } else {
          AZ_ASSIGN_OR_RETURN(RawGroups g, ReadGroups(in));
          for (const auto& group : g.groups.groups) {
            for (int id : group) max_id = std::max<int64_t>(max_id, id);
          }
          // replica_groups={} spans every device: an all-gather's (reduce-
          // scatter's) shapes then tell how many there are.
          bool gather = *kind == cir::CollectiveKind::kAllGather, scatter = *kind == cir::CollectiveKind::kReduceScatter;
          if (g.all && (gather || scatter) && in.has_shape && !in.operands.empty() &&
              c.instructions[in.operands[0]].has_shape) {
            const HloShape& result = in.shape.is_tuple && in.shape.elements.size() >= 2 ? in.shape.elements[1] : in.shape;
            int64_t a = c.instructions[in.operands[0]].shape.Bytes(), b = result.Bytes();
            int64_t ratio = gather ? (a > 0 ? b / a : 0) : (b > 0 ? a / b : 0);
            if (ratio >= 1 && ratio <= cir::kMaxProgramDevices) max_id = std::max(max_id, ratio - 1);
          }
        }
      }
    }
    out_.stats.static_collectives.assign(counts.begin(), counts.end());
    if (m_.has_replica_count || m_.has_num_partitions) {
      r_ = m_.replica_count;
      p_ = m_.num_partitions;
    } else {
      r_ = 1;
      p_ = std::max<int64_t>(max_id + 1, 1);
      inferred_ = true;
      out_.stats.counts_inferred = true;
      out_.stats.num_partitions = p_;
    }
    n_ = r_ * p_;
    if (n_ > cir::kMaxProgramDevices) {
      return LocatedError(StatusCode::kResourceExhausted, SourceLocation::Text(src_ ? src_->name() : "", m_.line, m_.col),
                          "the module runs on " + std::to_string(n_) + " devices, over the limit of " +
                              std::to_string(cir::kMaxProgramDevices),
                          src_);
    }
    return Status::Ok();
  }

  // Flattened groups of a collective by its group mode (formats.md §1.8).
  StatusOr<cir::ReplicaGroups> FlatGroups(const HloInstruction& in, cir::CollectiveKind kind) {
    AZ_ASSIGN_OR_RETURN(RawGroups raw, ReadGroups(in));
    bool channel = in.Attr("channel_id") != nullptr;
    const HloAttribute* g = in.Attr("use_global_device_ids");
    bool global = g && g->value == "true";
    bool no_global_concept = kind == cir::CollectiveKind::kAllToAll || kind == cir::CollectiveKind::kCollectivePermute ||
                             kind == cir::CollectiveKind::kBroadcast;
    enum { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattened } mode;
    if (inferred_ || global) {
      mode = kFlattened;
    } else if (!channel) {
      mode = kCrossReplica;
    } else if (no_global_concept) {
      mode = kCrossPartition;
    } else {
      mode = kCrossReplicaAndPartition;
    }
    if (mode == kFlattened && raw.all && global) {
      return Error(in, "replica_groups={} is not valid with use_global_device_ids=true");
    }
    int64_t space = mode == kFlattened ? n_ : mode == kCrossPartition ? p_ : r_;
    std::vector<std::vector<int>> groups;
    if (raw.all) {
      std::vector<int> all(space);
      std::iota(all.begin(), all.end(), 0);
      groups.push_back(std::move(all));
    } else {
      groups = raw.groups.groups;
    }
    for (const auto& group : groups) {
      for (int id : group) {
        if (id >= space) {
          return Error(in, "replica group id " + std::to_string(id) + " is out of range: the " +
                               (mode == kFlattened ? "module has " : mode == kCrossPartition ? "partition ids number "
                                                                                             : "replica ids number ") +
                               std::to_string(space) + (mode == kFlattened ? " devices" : ""));
        }
      }
    }
    cir::ReplicaGroups out;
    switch (mode) {
      case kFlattened: out.groups = std::move(groups); break;
      case kCrossReplica:
        for (const auto& group : groups) {
          for (int64_t p = 0; p < p_; ++p) {
            std::vector<int> flat;
            for (int r : group) flat.push_back(static_cast<int>(r * p_ + p));
            out.groups.push_back(std::move(flat));
          }
        }
        break;
      case kCrossPartition:
        for (int64_t r = 0; r < r_; ++r) {
          for (const auto& group : groups) {
            std::vector<int> flat;
            for (int p : group) flat.push_back(static_cast<int>(r * p_ + p));
            out.groups.push_back(std::move(flat));
          }
        }
        break;
      case kCrossReplicaAndPartition:
        for (const auto& group : groups) {
          std::vector<int> flat;
          for (int r : group) {
            for (int64_t p = 0; p < p_; ++p) flat.push_back(static_cast<int>(r * p_ + p));
          }
          out.groups.push_back(std::move(flat));
        }
        break;
    }
    return out;
  }

  StatusOr<std::vector<std::pair<int, int>>> FlatPairs(const HloInstruction& in, bool device_send) {
    const HloAttribute* a = in.Attr("source_target_pairs");
    std::string text = device_send ? SendRecvPairs(in) : (a ? a->value : "{}");
    AZ_ASSIGN_OR_RETURN(auto pairs, ReadPairs(in, text, device_send ? nullptr : a));
    bool channel = in.Attr("channel_id") != nullptr;
    std::vector<std::pair<int, int>> out;
    int64_t space = inferred_ ? n_ : channel ? p_ : r_;
    for (auto [s, t] : pairs) {
      if (s >= space || t >= space) {
        return Error(in, "permute pair {" + std::to_string(s) + "," + std::to_string(t) + "} is out of range (" +
                             std::to_string(space) + " ids)");
      }
    }
    if (inferred_) return pairs;
    if (channel) {
      for (int64_t r = 0; r < r_; ++r) {
        for (auto [s, t] : pairs) out.push_back({static_cast<int>(r * p_ + s), static_cast<int>(r * p_ + t)});
      }
    } else {
      for (int64_t p = 0; p < p_; ++p) {
        for (auto [s, t] : pairs) out.push_back({static_cast<int>(s * p_ + p), static_cast<int>(t * p_ + p)});
      }
    }
    return out;
  }

  // ---- buffers and instructions
  int NewBuffer(const HloShape& leaf, const std::string& name, cir::BufferKind kind) {
    cir::Buffer b;
    b.name = name;
    b.kind = kind;
    auto dtype = pir::ParseDType(leaf.type == "pred" ? "i1" : leaf.type == "s32" ? "i32" : leaf.type == "s64" ? "i64"
                                 : leaf.type == "s8" ? "i8" : leaf.type == "f8e4m3fn" ? "f8e4m3" : leaf.type);
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
      v.leaves.push_back(empty ? -1 : NewBuffer(*leaves[i], leaves.size() == 1 ? name : name + "#" + std::to_string(i), kind));
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
    if (!m_.is_scheduled && opt_.async_unscheduled && !cycle_) info.order = PrefetchOrder(c, info.order);
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

  // An unscheduled module's order with every collective issued as early as
  // its operands allow (the cheap instructions computing those operands
  // first), the prefetch XLA's latency-hiding scheduler performs; the rest
  // keeps its text order. A list schedule over the dependence graph.
  static std::vector<int> PrefetchOrder(const HloComputation& c, const std::vector<int>& topo) {
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
              std::vector<Value>& vals, const std::string& prefix, int depth, PendingRun& run, std::vector<int>& frame_pending) {
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
      for (int64_t k = b; k < e; ++k) v.leaves.push_back(k < static_cast<int64_t>(src.leaves.size()) ? src.leaves[k] : -1);
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
      if (IsHostTransfer(in) || SendRecvPairs(in).empty()) {
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
      if (op == "recv-done" && it != send_results_.end() && !IsHostTransfer(in)) {
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
      if (branches.size() > 1) Warn(in, "conditional: priced its most expensive branch ('" + branches[best]->name + "')");
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
        Warn(in, "while loop '" + in.name + "': trip count unknown (no known_trip_count, no induction pattern); "
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
    KernelCost cost = op == "fusion" ? FusionCost(m_, c, info.shapes, i) : InstructionCost(m_, c, info.shapes, i);
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
    KernelCost cost = InstructionCost(m_, c, info.shapes, i);
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
    k.kernel = run.reduce ? cir::KernelKind::kReduce : run.compute ? cir::KernelKind::kElementwise : cir::KernelKind::kCopy;
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
    if (kind == cir::CollectiveKind::kAllToAll && a.opcode == "ragged-all-to-all") data_operands = std::min<size_t>(1, data_operands);
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
      AZ_ASSIGN_OR_RETURN(k.pairs, FlatPairs(a, device_send));
      if (k.pairs.empty()) {
        Warn(in, "collective-permute with no source_target_pairs moves nothing: not priced");
        vals[i] = MakeValue(std::vector<int>(info.shapes[i].Leaves(), -1));
        return Status::Ok();
      }
    } else {
      AZ_ASSIGN_OR_RETURN(k.groups, FlatGroups(a, kind));
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
      result.leaves.push_back(bytes > 0 ? NewBuffer(leaf, data_leaves.size() == 1 ? name : name + "#" + std::to_string(j),
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
  bool fused_ = false, inferred_ = false;
  int64_t r_ = 1, p_ = 1, n_ = 1;
  int64_t visited_ = 0;
  std::unordered_map<const HloComputation*, CompInfo> info_;
  std::unordered_map<std::string, cir::ReplicaGroups> group_cache_;
  std::unordered_map<int, int> pending_;    // result buffer -> in-flight start
  std::unordered_map<std::string, Value> send_results_;  // channel -> device send's received data
  std::unordered_set<const HloComputation*> active_;
  std::set<std::string> warned_;
  const HloInstruction* cycle_ = nullptr;
};

const HloInstruction* Through(const HloComputation& c, const HloInstruction* in) {
  int guard = 0;
  while (in && (in->opcode == "copy" || in->opcode == "convert" || in->opcode == "bitcast" || in->opcode == "reshape") &&
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
      while (n != std::string::npos && n + 1 < b->value.size() && std::isalpha(static_cast<unsigned char>(b->value[n + 1]))) {
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
      int64_t d = ParseInt64(dims.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start), 1);
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

StatusOr<ImportResult> ImportHloText(std::string_view text, const std::string& file_name, const ImportOptions& options) {
  AZ_ASSIGN_OR_RETURN(HloFile file, ParseHlo(text, file_name));
  return ImportHlo(file, options);
}

}  // namespace az::compile::xla
