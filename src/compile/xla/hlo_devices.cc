// The device space of an HLO module (hlo_internal.h DeviceSpace): counts,
// group modes, and the replica-group forms: explicit, iota, and XLA 0.11's
// mesh form (ParseMeshReplicaGroups).
#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>

#include "compile/xla/hlo_internal.h"
#include "support/text_scanner.h"

namespace az::compile::xla::internal {
namespace {

// A cursor over mesh-form text; whitespace between tokens is skipped.
class MeshCursor {
 public:
  explicit MeshCursor(std::string_view text) : text_(text) {}
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool EatWord(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  // A non-negative integer up to kMaxMeshDevices.
  StatusOr<int64_t> Int(const char* what) {
    SkipSpace();
    size_t begin = pos_;
    while (pos_ < text_.size() && IsDigitChar(text_[pos_])) ++pos_;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + begin, text_.data() + pos_, v);
    if (begin == pos_) return Error(std::string("expected ") + what);
    if (ec != std::errc() || v > kMaxMeshDevices) {
      return ResourceExhausted(std::string(what) + " " +
                               std::string(text_.substr(begin, std::min<size_t>(pos_ - begin, 24))) +
                               " is over the limit of " + std::to_string(kMaxMeshDevices));
    }
    return v;
  }
  // 'quoted' (as XLA 0.11 prints) or a bare word.
  StatusOr<std::string> Name() {
    SkipSpace();
    size_t begin = pos_;
    if (pos_ < text_.size() && text_[pos_] == '\'') {
      size_t close = text_.find('\'', pos_ + 1);
      if (close == std::string_view::npos) return Error("unterminated axis name");
      pos_ = close + 1;
      return std::string(text_.substr(begin + 1, close - begin - 1));
    }
    while (pos_ < text_.size() && (IsIdentChar(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == '-')) ++pos_;
    if (begin == pos_) return Error("expected an axis name");
    return std::string(text_.substr(begin, pos_ - begin));
  }
  // The raw text up to the matching close of an already eaten '('.
  StatusOr<std::string_view> UntilClose() {
    size_t begin = pos_;
    int depth = 1;
    for (; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '(') ++depth;
      if (text_[pos_] == ')' && --depth == 0) return text_.substr(begin, pos_++ - begin);
    }
    return Error("unterminated '('");
  }
  Status Error(const std::string& message) const {
    std::string near(text_.substr(pos_, 20));
    return ParseError(message + (near.empty() ? " at the end of the groups" : ", found '" + near + "'"));
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  std::string_view text_;
  size_t pos_ = 0;
};

struct MeshAxisRef {
  int axis = 0;
  int64_t pre_size = 1, size = 0;  // size 0 until resolved: the whole axis
};

}  // namespace

StatusOr<MeshReplicaGroups> ParseMeshReplicaGroups(std::string_view text) {
  MeshCursor c(text);
  MeshReplicaGroups out;
  if (!c.EatWord("mesh") || !c.Eat('[')) return c.Error("expected 'mesh['");
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  if (c.Eat(']')) return c.Error("a mesh needs at least one axis");
  do {
    AZ_ASSIGN_OR_RETURN(std::string name, c.Name());
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return ParseError("mesh axis '" + name + "' is named twice");
    }
    if (!c.Eat('=')) return c.Error("expected '=' and the size of mesh axis '" + name + "'");
    AZ_ASSIGN_OR_RETURN(int64_t size, c.Int("a mesh axis size"));
    if (size < 1) return ParseError("mesh axis '" + name + "' has size 0");
    // Both factors are at most 2^20: no overflow.
    out.devices *= size;
    if (out.devices > kMaxMeshDevices) {
      return ResourceExhausted("the mesh has more than " + std::to_string(kMaxMeshDevices) + " devices");
    }
    names.push_back(std::move(name));
    sizes.push_back(size);
  } while (c.Eat(','));
  if (!c.Eat(']')) return c.Error("expected ',' or ']' in the mesh axes");
  if (c.Eat(',')) {
    if (!c.EatWord("device_ids") || !c.Eat('=') || !c.Eat('(')) return c.Error("expected 'device_ids=('");
    AZ_ASSIGN_OR_RETURN(std::string_view ids, c.UntilClose());
    // Reuse the group parser: the ids as one group that must cover the mesh.
    std::string as_group;
    size_t iota = ids.find("<=");
    if (iota != std::string_view::npos) {
      as_group = "[1," + std::to_string(out.devices) + "]" + std::string(ids.substr(iota));
    } else {
      as_group = "{{" + std::string(ids) + "}}";
    }
    auto parsed = cir::ParseReplicaGroups(as_group, static_cast<int>(out.devices));
    if (!parsed.ok()) return ParseError("device_ids: " + parsed.status().message());
    if (parsed->groups.size() != 1) return ParseError("device_ids: expected one list of ids");
    out.device_ids = std::move(parsed->groups[0]);
  }
  if (!c.Eat('{')) return c.Error("expected '{' and the axes of the groups");
  std::vector<MeshAxisRef> refs;
  if (!c.Eat('}')) {
    do {
      AZ_ASSIGN_OR_RETURN(std::string name, c.Name());
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) return ParseError("axis '" + name + "' is not an axis of the mesh");
      MeshAxisRef ref;
      ref.axis = static_cast<int>(it - names.begin());
      int64_t n = sizes[ref.axis];
      ref.size = n;
      if (c.Eat(':')) {
        if (!c.Eat('(')) return c.Error("expected '(' in sub-axis '" + name + ":(m)k'");
        AZ_ASSIGN_OR_RETURN(ref.pre_size, c.Int("a sub-axis pre-size"));
        if (!c.Eat(')')) return c.Error("expected ')' in sub-axis '" + name + ":(m)k'");
        AZ_ASSIGN_OR_RETURN(ref.size, c.Int("a sub-axis size"));
        // pre_size, size <= 2^20: the product fits.
        if (ref.pre_size < 1 || ref.size < 1 || n % (ref.pre_size * ref.size) != 0) {
          return ParseError("sub-axis '" + name + "':(" + std::to_string(ref.pre_size) + ")" +
                            std::to_string(ref.size) + " does not divide axis '" + name + "' of size " +
                            std::to_string(n));
        }
      }
      refs.push_back(ref);
    } while (c.Eat(','));
    if (!c.Eat('}')) return c.Error("expected ',' or '}' in the group axes");
  }
  if (!c.AtEnd()) return c.Error("unexpected text after the groups");

  // Cut every axis at its sub-axes' bounds (pre-size m and m k, in the
  // axis's own major-to-minor product); the cuts must form a divisibility
  // chain 1 | c1 | ... | n, and each sub-axis must span exactly two
  // neighbouring cuts (else two sub-axes overlap).
  std::vector<std::vector<int64_t>> cuts(names.size());
  for (size_t a = 0; a < names.size(); ++a) cuts[a] = {1, sizes[a]};
  for (const MeshAxisRef& ref : refs) {
    cuts[ref.axis].push_back(ref.pre_size);
    cuts[ref.axis].push_back(ref.pre_size * ref.size);
  }
  // Factors of the device array, row-major: (size, stride); first_factor[a]
  // indexes axis a's first (most major) factor.
  std::vector<std::pair<int64_t, int64_t>> factors;
  std::vector<size_t> first_factor(names.size());
  for (size_t a = 0; a < names.size(); ++a) {
    std::vector<int64_t>& cut = cuts[a];
    std::sort(cut.begin(), cut.end());
    cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
    first_factor[a] = factors.size();
    for (size_t j = 0; j + 1 < cut.size(); ++j) {
      if (cut[j + 1] % cut[j] != 0) {
        return ParseError("the sub-axes of '" + names[a] + "' do not nest (" + std::to_string(cut[j]) +
                          " does not divide " + std::to_string(cut[j + 1]) + ")");
      }
      factors.push_back({cut[j + 1] / cut[j], 0});
    }
  }
  for (size_t f = factors.size(), stride = 1; f-- > 0;) {
    factors[f].second = static_cast<int64_t>(stride);
    stride *= static_cast<size_t>(factors[f].first);
  }
  std::vector<char> grouped(factors.size(), 0);
  std::vector<size_t> group_order;
  for (const MeshAxisRef& ref : refs) {
    if (ref.size == 1) continue;  // a size-1 (sub-)axis varies nothing
    const std::vector<int64_t>& cut = cuts[ref.axis];
    size_t j = static_cast<size_t>(std::lower_bound(cut.begin(), cut.end(), ref.pre_size) - cut.begin());
    size_t f = first_factor[ref.axis] + j;
    if (cut[j + 1] != ref.pre_size * ref.size || grouped[f]) {
      return ParseError("axis '" + names[ref.axis] + "' is listed twice or its sub-axes overlap");
    }
    grouped[f] = 1;
    group_order.push_back(f);
    out.group_size *= ref.size;
  }
  for (size_t f = 0; f < factors.size(); ++f) {
    if (!grouped[f]) out.order.push_back(factors[f]);
  }
  for (size_t f : group_order) out.order.push_back(factors[f]);
  return out;
}

cir::ReplicaGroups ExpandMeshReplicaGroups(const MeshReplicaGroups& mesh) {
  // An odometer over the transposed factors, last fastest, keeping the
  // row-major offset of the current device: amortized O(1) per device.
  cir::ReplicaGroups out;
  out.groups.reserve(static_cast<size_t>(mesh.devices / mesh.group_size));
  std::vector<int64_t> index(mesh.order.size(), 0);
  int64_t offset = 0;
  std::vector<int> group;
  for (int64_t q = 0; q < mesh.devices; ++q) {
    group.push_back(mesh.device_ids.empty() ? static_cast<int>(offset) : mesh.device_ids[offset]);
    if (static_cast<int64_t>(group.size()) == mesh.group_size) {
      out.groups.push_back(std::move(group));
      group.clear();
    }
    for (size_t k = mesh.order.size(); k-- > 0;) {
      auto [size, stride] = mesh.order[k];
      if (++index[k] < size) {
        offset += stride;
        break;
      }
      offset -= (size - 1) * stride;
      index[k] = 0;
    }
  }
  return out;
}

Status DeviceSpace::Error(const HloInstruction& in, const std::string& message) const {
  return LocatedError(StatusCode::kInvalidArgument,
                      SourceLocation::Text(src_ ? src_->name() : "<hlo>", in.line, in.col), message, src_);
}

DeviceSpace::Mode DeviceSpace::ModeOf(const HloInstruction& in, cir::CollectiveKind kind) const {
  bool channel = in.Attr("channel_id") != nullptr;
  const HloAttribute* g = in.Attr("use_global_device_ids");
  bool global = g && g->value == "true";
  bool no_global_concept = kind == cir::CollectiveKind::kAllToAll || kind == cir::CollectiveKind::kCollectivePermute ||
                           kind == cir::CollectiveKind::kBroadcast;
  if (inferred_ || global) return Mode::kFlattened;
  if (!channel) return Mode::kCrossReplica;
  return no_global_concept ? Mode::kCrossPartition : Mode::kCrossReplicaAndPartition;
}

StatusOr<RawGroups> DeviceSpace::ReadGroups(const HloInstruction& in, cir::CollectiveKind kind) {
  const HloAttribute* a = in.Attr("replica_groups");
  std::string text = a ? a->value : "{}";
  std::string squeezed;
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') squeezed += c;
  }
  if (squeezed == "{}") {
    RawGroups g;
    g.all = true;
    return g;
  }
  auto it = group_cache_.find(squeezed);
  if (it == group_cache_.end()) {
    RawGroups g;
    if (squeezed.starts_with("mesh[")) {
      auto mesh = ParseMeshReplicaGroups(text);
      if (!mesh.ok()) {
        return LocatedError(mesh.status().code(), SourceLocation::Text(src_ ? src_->name() : "<hlo>", a->line, a->col),
                            a->name + ": " + mesh.status().message(), src_);
      }
      // With the counts from the header, a mesh over more devices than the
      // module runs on is refused before it is expanded.
      if (counted_ && mesh->devices > n_) {
        return AttributeError(
            *a,
            "the mesh has " + std::to_string(mesh->devices) + " devices, but the module runs on " + std::to_string(n_),
            src_);
      }
      g.mesh_devices = mesh->devices;
      g.groups = ExpandMeshReplicaGroups(*mesh);
    } else {
      auto parsed = cir::ParseReplicaGroups(squeezed, static_cast<int>(cir::kMaxProgramDevices), true);
      if (!parsed.ok()) return AttributeError(*a, parsed.status().message(), src_);
      g.groups = std::move(*parsed);
    }
    it = group_cache_.emplace(squeezed, std::move(g)).first;
  }
  const RawGroups& g = it->second;
  // A mesh names every device of the id space its group mode reads.
  if (counted_ && g.mesh_devices > 0) {
    Mode mode = ModeOf(in, kind);
    int64_t space = SpaceOf(mode);
    if (g.mesh_devices != space) {
      return AttributeError(*a,
                            "the mesh has " + std::to_string(g.mesh_devices) + " devices, but the " +
                                (mode == Mode::kFlattened ? "module runs on " + std::to_string(space) + " devices"
                                 : mode == Mode::kCrossPartition ? "partition ids number " + std::to_string(space)
                                                                 : "replica ids number " + std::to_string(space)),
                            src_);
    }
  }
  return g;
}

StatusOr<std::vector<std::pair<int, int>>> DeviceSpace::ReadPairs(const HloInstruction& in, std::string_view text,
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
    return LocatedError(StatusCode::kParseError, SourceLocation::Text(src_ ? src_->name() : "<hlo>", in.line, in.col),
                        parsed.status().message(), src_);
  }
  return *parsed;
}

std::string DeviceSpace::SendRecvPairs(const HloInstruction& in) {
  const HloAttribute* f = in.Attr("frontend_attributes");
  if (!f) return {};
  size_t pos = f->value.find("_xla_send_recv_source_target_pairs");
  if (pos == std::string::npos) return {};
  size_t open = f->value.find('"', pos + 34);
  size_t close = open == std::string::npos ? std::string::npos : f->value.find('"', open + 1);
  if (close == std::string::npos) return {};
  return f->value.substr(open + 1, close - open - 1);
}

bool DeviceSpace::IsHostTransfer(const HloInstruction& in) {
  const HloAttribute* h = in.Attr("is_host_transfer");
  return h && h->value == "true";
}

// N from the header, else from the largest id any collective names.
Status DeviceSpace::Count(ImportStats& stats) {
  stats.replica_count = m_.replica_count;
  stats.num_partitions = m_.num_partitions;
  // Header counts are known before the groups are read: mesh forms are then
  // checked against them (and never expanded past them).
  bool header_counts = m_.has_replica_count || m_.has_num_partitions;
  if (header_counts) {
    r_ = m_.replica_count;
    p_ = m_.num_partitions;
    n_ = r_ * p_;
    counted_ = n_ <= cir::kMaxProgramDevices;
  }
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
        AZ_ASSIGN_OR_RETURN(RawGroups g, ReadGroups(in, *kind));
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
  stats.static_collectives.assign(counts.begin(), counts.end());
  if (!header_counts) {
    r_ = 1;
    p_ = std::max<int64_t>(max_id + 1, 1);
    inferred_ = true;
    stats.counts_inferred = true;
    stats.num_partitions = p_;
  }
  n_ = r_ * p_;
  if (n_ > cir::kMaxProgramDevices) {
    return LocatedError(StatusCode::kResourceExhausted, SourceLocation::Text(src_ ? src_->name() : "", m_.line, m_.col),
                        "the module runs on " + std::to_string(n_) + " devices, over the limit of " +
                            std::to_string(cir::kMaxProgramDevices),
                        src_);
  }
  counted_ = true;
  return Status::Ok();
}

StatusOr<cir::ReplicaGroups> DeviceSpace::Groups(const HloInstruction& in, cir::CollectiveKind kind) {
  AZ_ASSIGN_OR_RETURN(RawGroups raw, ReadGroups(in, kind));
  const HloAttribute* g = in.Attr("use_global_device_ids");
  bool global = g && g->value == "true";
  Mode mode = ModeOf(in, kind);
  if (mode == Mode::kFlattened && raw.all && global) {
    return Error(in, "replica_groups={} is not valid with use_global_device_ids=true");
  }
  int64_t space = SpaceOf(mode);
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
                             (mode == Mode::kFlattened        ? "module has "
                              : mode == Mode::kCrossPartition ? "partition ids number "
                                                              : "replica ids number ") +
                             std::to_string(space) + (mode == Mode::kFlattened ? " devices" : ""));
      }
    }
  }
  cir::ReplicaGroups out;
  switch (mode) {
    case Mode::kFlattened:
      out.groups = std::move(groups);
      break;
    case Mode::kCrossReplica:
      for (const auto& group : groups) {
        for (int64_t p = 0; p < p_; ++p) {
          std::vector<int> flat;
          for (int r : group) flat.push_back(static_cast<int>(r * p_ + p));
          out.groups.push_back(std::move(flat));
        }
      }
      break;
    case Mode::kCrossPartition:
      for (int64_t r = 0; r < r_; ++r) {
        for (const auto& group : groups) {
          std::vector<int> flat;
          for (int p : group) flat.push_back(static_cast<int>(r * p_ + p));
          out.groups.push_back(std::move(flat));
        }
      }
      break;
    case Mode::kCrossReplicaAndPartition:
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

StatusOr<std::vector<std::pair<int, int>>> DeviceSpace::Pairs(const HloInstruction& in, bool device_send) {
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

}  // namespace az::compile::xla::internal
