#include "cir/collective.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>

namespace az::cir {

namespace {

constexpr int kMaxDevices = 1 << 20;

// A tiny cursor over the group syntaxes.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool EatWord(std::string_view w) {
    SkipSpace();
    if (text_.substr(pos_, w.size()) == w) {
      pos_ += w.size();
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  StatusOr<int> Int() {
    SkipSpace();
    int value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (ec != std::errc() || value < 0) return Error("expected a non-negative integer");
    pos_ = static_cast<size_t>(ptr - text_.data());
    return value;
  }
  Status Error(const std::string& what) const {
    return InvalidArgument("replica groups '" + std::string(text_) + "', column " + std::to_string(pos_ + 1) + ": " +
                           what);
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

StatusOr<std::vector<int>> IntList(Cursor& c, char close) {
  std::vector<int> out;
  if (c.Eat(close)) return out;
  while (true) {
    AZ_ASSIGN_OR_RETURN(int v, c.Int());
    out.push_back(v);
    if (out.size() > static_cast<size_t>(kMaxDevices)) return c.Error("too many ids");
    if (c.Eat(close)) return out;
    if (!c.Eat(',')) return c.Error(std::string("expected ',' or '") + close + "'");
  }
}

StatusOr<ReplicaGroups> ParseIota(Cursor& c) {
  // [G,S]<=[dims]T(perm)
  AZ_ASSIGN_OR_RETURN(std::vector<int> shape, IntList(c, ']'));
  if (shape.size() != 2) return c.Error("the iota form needs [groups,size]");
  if (!c.EatWord("<=")) return c.Error("expected '<='");
  if (!c.Eat('[')) return c.Error("expected '[' after '<='");
  AZ_ASSIGN_OR_RETURN(std::vector<int> dims, IntList(c, ']'));
  std::vector<int> perm(dims.size());
  std::iota(perm.begin(), perm.end(), 0);
  if (c.Eat('T')) {
    if (!c.Eat('(')) return c.Error("expected '(' after 'T'");
    AZ_ASSIGN_OR_RETURN(perm, IntList(c, ')'));
  }
  if (!c.AtEnd()) return c.Error("unexpected text after the iota form");
  if (dims.empty() || perm.size() != dims.size()) return c.Error("T(...) must permute every dim");
  std::vector<int> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int>(i)) return c.Error("T(...) is not a permutation");
  }
  int64_t total = 1;
  for (int d : dims) {
    if (d < 1) return c.Error("iota dims must be positive");
    total *= d;
    if (total > kMaxDevices) return c.Error("too many devices");
  }
  if (static_cast<int64_t>(shape[0]) * shape[1] != total) {
    return c.Error("[" + std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "] does not hold " +
                   std::to_string(total) + " devices");
  }
  // Transposed iota: position k of the transposed array, in row-major order over
  // the permuted dims, holds the id whose coordinates are permuted back.
  std::vector<int64_t> tdims(dims.size()), strides(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i];
  }
  for (size_t i = 0; i < dims.size(); ++i) tdims[i] = dims[perm[i]];
  ReplicaGroups out;
  out.groups.assign(static_cast<size_t>(shape[0]), {});
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t k = 0; k < total; ++k) {
    int64_t id = 0;
    for (size_t i = 0; i < dims.size(); ++i) id += index[i] * strides[perm[i]];
    out.groups[static_cast<size_t>(k / shape[1])].push_back(static_cast<int>(id));
    for (size_t i = dims.size(); i-- > 0;) {
      if (++index[i] < tdims[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

std::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all-reduce";
    case CollectiveKind::kAllGather: return "all-gather";
    case CollectiveKind::kReduceScatter: return "reduce-scatter";
    case CollectiveKind::kAllToAll: return "all-to-all";
    case CollectiveKind::kCollectivePermute: return "collective-permute";
    case CollectiveKind::kBroadcast: return "broadcast";
  }
  return "all-reduce";
}

StatusOr<CollectiveKind> ParseCollectiveKind(std::string_view name) {
  for (CollectiveKind k : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                           CollectiveKind::kAllToAll, CollectiveKind::kCollectivePermute, CollectiveKind::kBroadcast}) {
    if (CollectiveKindName(k) == name) return k;
  }
  return InvalidArgument("unknown collective kind '" + std::string(name) +
                         "' (expected all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute or "
                         "broadcast)");
}

StatusOr<ReplicaGroups> ParseReplicaGroups(std::string_view text, int num_devices, bool allow_partial) {
  Cursor c(text);
  ReplicaGroups out;
  if (c.Eat('[')) {
    AZ_ASSIGN_OR_RETURN(out, ParseIota(c));
  } else if (c.Eat('{')) {
    if (!c.Eat('}')) {
      while (true) {
        if (!c.Eat('{')) return c.Error("expected '{' to open a group");
        AZ_ASSIGN_OR_RETURN(std::vector<int> g, IntList(c, '}'));
        out.groups.push_back(std::move(g));
        if (c.Eat('}')) break;
        if (!c.Eat(',')) return c.Error("expected ',' or '}'");
      }
    }
    if (!c.AtEnd()) return c.Error("unexpected text after the groups");
  } else {
    // "0,1;2,3"
    std::vector<int> group;
    while (!c.AtEnd()) {
      AZ_ASSIGN_OR_RETURN(int v, c.Int());
      group.push_back(v);
      if (c.Eat(';')) {
        out.groups.push_back(std::move(group));
        group.clear();
      } else if (!c.AtEnd() && !c.Eat(',')) {
        return c.Error("expected ',' or ';'");
      }
    }
    if (!group.empty()) out.groups.push_back(std::move(group));
  }
  if (out.groups.empty()) return c.Error("no groups");
  std::vector<char> seen(static_cast<size_t>(num_devices), 0);
  int covered = 0;
  for (const auto& g : out.groups) {
    if (g.empty()) return c.Error("an empty group");
    for (int id : g) {
      if (id >= num_devices) {
        return c.Error("device " + std::to_string(id) + " is out of range (" + std::to_string(num_devices) +
                       " devices)");
      }
      if (seen[id]) return c.Error("device " + std::to_string(id) + " is in two groups");
      seen[id] = 1;
      ++covered;
    }
  }
  if (!allow_partial && covered != num_devices) {
    return c.Error("the groups cover " + std::to_string(covered) + " of the " + std::to_string(num_devices) +
                   " devices");
  }
  return out;
}

std::string FormatReplicaGroups(const ReplicaGroups& groups) {
  std::string out = "{";
  for (size_t i = 0; i < groups.groups.size(); ++i) {
    if (i) out += ',';
    out += '{';
    for (size_t j = 0; j < groups.groups[i].size(); ++j) {
      if (j) out += ',';
      out += std::to_string(groups.groups[i][j]);
    }
    out += '}';
  }
  return out + "}";
}

std::string FormatIotaReplicaGroups(const ReplicaGroups& groups) {
  if (groups.groups.empty()) return "";
  size_t size = groups.groups[0].size();
  int total = 0;
  for (const auto& g : groups.groups) {
    if (g.size() != size) return "";
    total += static_cast<int>(g.size());
  }
  std::string shape = "[" + std::to_string(groups.groups.size()) + "," + std::to_string(size) + "]<=";
  // Try the two forms XLA prints for mesh axes: plain iota and a 2-D transpose.
  auto matches = [&](const std::string& text) {
    auto parsed = ParseReplicaGroups(text, total);
    return parsed.ok() && *parsed == groups;
  };
  std::string plain = shape + "[" + std::to_string(total) + "]";
  if (matches(plain)) return plain;
  for (int a = 2; a < total; ++a) {
    if (total % a) continue;
    std::string t = shape + "[" + std::to_string(a) + "," + std::to_string(total / a) + "]T(1,0)";
    if (matches(t)) return t;
  }
  return "";
}

StatusOr<std::vector<std::pair<int, int>>> ParsePermutePairs(std::string_view text, int num_devices) {
  std::vector<std::pair<int, int>> pairs;
  Cursor c(text);
  bool braces = c.Eat('{');
  while (!c.AtEnd() && !(braces && c.Peek('}'))) {
    int a = 0, b = 0;
    if (braces) {
      if (!c.Eat('{')) return c.Error("expected '{' to open a pair");
      AZ_ASSIGN_OR_RETURN(a, c.Int());
      if (!c.Eat(',')) return c.Error("expected ','");
      AZ_ASSIGN_OR_RETURN(b, c.Int());
      if (!c.Eat('}')) return c.Error("expected '}'");
    } else {
      AZ_ASSIGN_OR_RETURN(a, c.Int());
      if (!c.EatWord("->")) return c.Error("expected '->'");
      AZ_ASSIGN_OR_RETURN(b, c.Int());
    }
    if (a >= num_devices || b >= num_devices) return c.Error("a device id is out of range");
    pairs.emplace_back(a, b);
    if (!c.Eat(',')) break;
  }
  if (braces && !c.Eat('}')) return c.Error("expected '}'");
  if (!c.AtEnd()) return c.Error("unexpected text after the pairs");
  if (pairs.empty()) return c.Error("no pairs");
  std::vector<char> src(static_cast<size_t>(num_devices), 0), dst(static_cast<size_t>(num_devices), 0);
  for (auto [a, b] : pairs) {
    if (src[a]++ || dst[b]++) return c.Error("a device sends or receives twice");
  }
  return pairs;
}

}  // namespace az::cir
