#include "cir/collective.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>

#include "support/enum_names.h"

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
  // the permuted dims, holds the id whose coordinates are permuted back. The id
  // follows the position like an odometer, so each step costs O(1) amortized.
  std::vector<int64_t> tdims(dims.size()), tstrides(dims.size());
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i];
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    tdims[i] = dims[perm[i]];
    tstrides[i] = strides[perm[i]];
  }
  ReplicaGroups out;
  out.groups.assign(static_cast<size_t>(shape[0]), {});
  for (auto& group : out.groups) group.reserve(static_cast<size_t>(shape[1]));
  std::vector<int64_t> index(dims.size(), 0);
  int64_t id = 0;
  for (int64_t k = 0; k < total; ++k) {
    out.groups[static_cast<size_t>(k / shape[1])].push_back(static_cast<int>(id));
    for (size_t i = dims.size(); i-- > 0;) {
      if (++index[i] < tdims[i]) {
        id += tstrides[i];
        break;
      }
      id -= (tdims[i] - 1) * tstrides[i];
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

// XLA's spellings.
constexpr EnumName<CollectiveKind> kCollectiveKindNames[] = {
    {CollectiveKind::kAllReduce, "all-reduce"},
    {CollectiveKind::kAllGather, "all-gather"},
    {CollectiveKind::kReduceScatter, "reduce-scatter"},
    {CollectiveKind::kAllToAll, "all-to-all"},
    {CollectiveKind::kCollectivePermute, "collective-permute"},
    {CollectiveKind::kBroadcast, "broadcast"},
};

std::string_view CollectiveKindName(CollectiveKind kind) { return NameOf(kCollectiveKindNames, kind); }

StatusOr<CollectiveKind> ParseCollectiveKind(std::string_view name) {
  return ParseName(kCollectiveKindNames, name, "collective kind");
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
  std::vector<int64_t> flat;
  for (const auto& g : groups.groups) {
    if (g.size() != size) return "";
    if (flat.size() + g.size() > static_cast<size_t>(kMaxDevices)) return "";
    flat.insert(flat.end(), g.begin(), g.end());
  }
  const int64_t total = static_cast<int64_t>(flat.size());
  if (total == 0 || flat[0] != 0) return "";
  std::string shape = "[" + std::to_string(groups.groups.size()) + "," + std::to_string(size) + "]<=";
  if (total == 1) return shape + "[1]";
  // Recover the transposed dims, innermost first, as (size, stride): the first
  // `block` positions form a pattern, and the next dim repeats it `count` times,
  // shifted by its stride each time. Taking the longest repetition merges dims
  // that are contiguous in the iota, so the form found has the fewest dims and
  // is unique; every position is compared once per dim, at most 20 dims.
  std::vector<std::pair<int64_t, int64_t>> dims_inner_first;
  int64_t block = 1;
  while (block < total) {
    int64_t stride = flat[block];
    int64_t count = 1;
    while ((count + 1) * block <= total) {
      const int64_t* next = flat.data() + count * block;
      bool repeats = true;
      for (int64_t k = 0; k < block && repeats; ++k) repeats = next[k] == flat[k] + count * stride;
      if (!repeats) break;
      ++count;
    }
    if (count < 2 || total % (block * count) != 0) return "";
    dims_inner_first.emplace_back(count, stride);
    block *= count;
  }
  // The strides must be those of a row-major iota over the dims: sorted, each
  // is the previous one times its size, starting at 1.
  std::vector<std::pair<int64_t, int64_t>> by_stride = dims_inner_first;  // (size, stride)
  std::sort(by_stride.begin(), by_stride.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  int64_t expected = 1;
  for (const auto& [dim_size, stride] : by_stride) {
    if (stride != expected) return "";
    expected *= dim_size;
  }
  // Row-major dims are the sizes by decreasing stride; the transposed order
  // (outermost first) names each dim by its position there.
  std::string dims = "[", perm = "T(";
  bool identity = true;
  for (size_t i = 0; i < by_stride.size(); ++i) {
    if (i) dims += ',';
    dims += std::to_string(by_stride[by_stride.size() - 1 - i].first);
  }
  for (size_t j = 0; j < dims_inner_first.size(); ++j) {
    int64_t stride = dims_inner_first[dims_inner_first.size() - 1 - j].second;
    size_t rank_from_inner = 0;
    while (by_stride[rank_from_inner].second != stride) ++rank_from_inner;
    size_t position = by_stride.size() - 1 - rank_from_inner;
    identity = identity && position == j;
    if (j) perm += ',';
    perm += std::to_string(position);
  }
  std::string out = shape + dims + "]";
  return identity ? out : out + perm + ")";
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
