#include <algorithm>
#include <map>
#include <numeric>

#include "compile/xla/hlo_internal.h"

namespace az::compile::xla::internal {

Status DeviceSpace::Error(const HloInstruction& in, const std::string& message) const {
  return LocatedError(StatusCode::kInvalidArgument,
                      SourceLocation::Text(src_ ? src_->name() : "<hlo>", in.line, in.col), message, src_);
}

StatusOr<RawGroups> DeviceSpace::ReadGroups(const HloInstruction& in) {
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
  stats.static_collectives.assign(counts.begin(), counts.end());
  if (m_.has_replica_count || m_.has_num_partitions) {
    r_ = m_.replica_count;
    p_ = m_.num_partitions;
  } else {
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
  return Status::Ok();
}

StatusOr<cir::ReplicaGroups> DeviceSpace::Groups(const HloInstruction& in, cir::CollectiveKind kind) {
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
                             (mode == kFlattened        ? "module has "
                              : mode == kCrossPartition ? "partition ids number "
                                                        : "replica ids number ") +
                             std::to_string(space) + (mode == kFlattened ? " devices" : ""));
      }
    }
  }
  cir::ReplicaGroups out;
  switch (mode) {
    case kFlattened:
      out.groups = std::move(groups);
      break;
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
