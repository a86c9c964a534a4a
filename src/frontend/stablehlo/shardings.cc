#include "frontend/stablehlo/shardings.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <set>

namespace az::frontend::shlo {

namespace {

using K = TokenKind;

std::optional<int64_t> TreeInt(const Tree& tree) {
  if (tree.kind != K::kInt) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(tree.spelling.data(), tree.spelling.data() + tree.spelling.size(), value);
  if (ec != std::errc() || ptr != tree.spelling.data() + tree.spelling.size()) return std::nullopt;
  return value;
}

// The `<...>` group of `#name<...>` or `<...>`.
const Tree* AngleBody(const Trees& value) {
  for (const Tree& tree : value) {
    if (tree.kind == K::kLAngle) return &tree;
  }
  return nullptr;
}

// Splits a group's children at top-level commas.
std::vector<Trees> SplitCommas(const Trees& children) {
  std::vector<Trees> parts(1);
  for (const Tree& tree : children) {
    if (tree.kind == K::kComma) {
      parts.emplace_back();
    } else {
      parts.back().push_back(tree);
    }
  }
  if (parts.size() == 1 && parts[0].empty()) parts.clear();
  return parts;
}

Status Bad(const std::string& what) { return InvalidArgument("malformed " + what); }

StatusOr<pir::TensorSharding> ShardyFromBody(const Tree& body, std::vector<std::string>* notes) {
  pir::TensorSharding sharding;
  std::vector<Trees> parts = SplitCommas(body.children);
  if (parts.size() < 2 || parts[0].empty()) return Bad("sharding: expected <@mesh, [dims]>");
  if (parts[0][0].kind == K::kSymbol) {
    sharding.mesh = parts[0][0].text;
  } else {
    return InvalidArgument("inline meshes in shardings are not supported");
  }
  if (parts[1].size() != 1 || parts[1][0].kind != K::kLBracket) return Bad("sharding: expected [dims]");
  for (const Trees& dim : SplitCommas(parts[1][0].children)) {
    if (dim.empty() || dim[0].kind != K::kLBrace) return Bad("sharding: expected {axes} per dim");
    std::vector<std::string> axes;
    bool sub_axis = false;
    const Trees& items = dim[0].children;
    for (size_t i = 0; i < items.size(); ++i) {
      const Tree& item = items[i];
      if (item.kind == K::kString) {
        if (i + 1 < items.size() && items[i + 1].kind == K::kColon) {
          sub_axis = true;
          i += 3;  // ':' '(m)' 'k'
          continue;
        }
        axes.push_back(item.text);
      } else if (item.kind != K::kComma && item.kind != K::kQuestion) {
        return Bad("sharding dim");
      }
    }
    if (sub_axis) {
      notes->push_back("sub-axes are not representable in PIR: dim " + std::to_string(sharding.dim_axes.size()) +
                       " recorded as unsharded");
      axes.clear();
    }
    sharding.dim_axes.push_back(std::move(axes));
  }
  for (size_t p = 2; p < parts.size(); ++p) {
    const Trees& part = parts[p];
    if (part.size() == 3 && part[0].kind == K::kIdent && part[1].kind == K::kEqual && part[2].kind == K::kLBrace) {
      std::vector<std::string> axes;
      for (const Tree& item : part[2].children) {
        if (item.kind == K::kString) axes.push_back(item.text);
      }
      if (part[0].text == "replicated") {
        sharding.replicated = std::move(axes);
      } else if (!axes.empty()) {
        notes->push_back("'" + part[0].text + "' axes are ignored");
      }
      continue;
    }
    return Bad("sharding: unexpected trailing part");
  }
  return sharding;
}

}  // namespace

StatusOr<pir::Mesh> MeshFromTrees(const std::string& name, const Trees& value, std::vector<std::string>* notes) {
  const Tree* body = AngleBody(value);
  if (!body) return Bad("mesh: expected <[...]>");
  pir::Mesh mesh;
  mesh.name = name;
  std::vector<Trees> parts = SplitCommas(body->children);
  if (parts.empty() || parts[0].size() != 1 || parts[0][0].kind != K::kLBracket) return Bad("mesh: expected [axes]");
  int64_t devices = 1;
  for (const Trees& axis : SplitCommas(parts[0][0].children)) {
    if (axis.size() != 3 || axis[0].kind != K::kString || axis[1].kind != K::kEqual) return Bad("mesh axis");
    auto size = TreeInt(axis[2]);
    if (!size || *size < 1 || *size > (int64_t{1} << 20)) return Bad("mesh axis size");
    if (devices > (int64_t{1} << 30) / *size) return InvalidArgument("mesh has too many devices");
    devices *= *size;
    for (const auto& [existing, unused] : mesh.axes) {
      if (existing == axis[0].text) return InvalidArgument("mesh repeats axis '" + existing + "'");
    }
    mesh.axes.emplace_back(axis[0].text, *size);
  }
  if (parts.size() > 1) notes->push_back("mesh @" + name + ": device_ids are ignored (iota device order assumed)");
  return mesh;
}

StatusOr<pir::TensorSharding> ShardyFromTrees(const Trees& value, std::vector<std::string>* notes) {
  const Tree* body = AngleBody(value);
  if (!body) return Bad("sharding: expected <@mesh, [...]>");
  return ShardyFromBody(*body, notes);
}

StatusOr<std::vector<pir::TensorSharding>> ShardyPerValueFromTrees(const Trees& value,
                                                                   std::vector<std::string>* notes) {
  const Tree* body = AngleBody(value);
  if (!body || body->children.size() != 1 || body->children[0].kind != K::kLBracket) {
    return Bad("sharding_per_value: expected <[...]>");
  }
  std::vector<pir::TensorSharding> out;
  for (const Trees& part : SplitCommas(body->children[0].children)) {
    if (part.size() != 1 || part[0].kind != K::kLAngle) return Bad("sharding_per_value entry");
    AZ_ASSIGN_OR_RETURN(pir::TensorSharding sharding, ShardyFromBody(part[0], notes));
    out.push_back(std::move(sharding));
  }
  return out;
}

// ---------------------------------------------------------------- GSPMD

namespace {

class GspmdScanner {
 public:
  explicit GspmdScanner(std::string_view text) : text_(text) {}

  StatusOr<std::vector<GspmdSharding>> ParseTop() {
    Skip();
    size_t open = pos_;
    if (!Eat('{')) return Bad("GSPMD sharding: expected '{'");
    Skip();
    std::vector<GspmdSharding> out;
    if (Peek() == '{') {  // tuple
      while (true) {
        Skip();
        if (out.size() > 4096) return Bad("GSPMD sharding: tuple too long");
        AZ_ASSIGN_OR_RETURN(GspmdSharding one, ParseOne());
        out.push_back(std::move(one));
        Skip();
        if (!Eat(',')) break;
      }
      Skip();
      if (!Eat('}')) return Bad("GSPMD tuple sharding: expected '}'");
    } else {
      pos_ = open;  // re-read the '{'
      AZ_ASSIGN_OR_RETURN(GspmdSharding one, ParseOne());
      out.push_back(std::move(one));
    }
    Skip();
    if (pos_ != text_.size()) return Bad("GSPMD sharding: trailing text");
    return out;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void Skip() {
    while (Peek() == ' ' || Peek() == '\n' || Peek() == '\t') ++pos_;
  }
  bool EatWord(std::string_view word) {
    if (pos_ > text_.size() || text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  StatusOr<int64_t> Int() {
    size_t begin = pos_;
    while (Peek() >= '0' && Peek() <= '9') ++pos_;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + begin, text_.data() + pos_, value);
    if (begin == pos_ || ec != std::errc() || value > (int64_t{1} << 30)) return Bad("GSPMD sharding: bad integer");
    return value;
  }
  StatusOr<std::vector<int64_t>> IntList(char open, char close) {
    if (!Eat(open)) return Bad("GSPMD sharding: expected a list");
    std::vector<int64_t> values;
    Skip();
    while (!Eat(close)) {
      if (values.size() > 64) return Bad("GSPMD sharding: list too long");
      AZ_ASSIGN_OR_RETURN(int64_t v, Int());
      values.push_back(v);
      Skip();
      Eat(',');
      Skip();
    }
    return values;
  }
  void SkipBalanced() {  // metadata={...} and other attributes we do not read
    int depth = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (depth == 0) return;
        --depth;
      }
      if (depth == 0 && (c == ' ' || c == ',')) return;
      ++pos_;
    }
  }

  StatusOr<GspmdSharding> ParseOne();

  std::string_view text_;
  size_t pos_ = 0;
};

// Refines the transposed reshape dims and the tile dims to common pieces.
Status BuildTiled(GspmdSharding& s, const std::vector<int64_t>& tile, int subgroup_dims, std::vector<int64_t> reshape,
                  std::vector<int64_t> perm) {
  int64_t n = 1;
  for (int64_t t : tile) {
    if (t < 1 || n > (int64_t{1} << 30) / t) return Bad("GSPMD sharding: bad tile dims");
    n *= t;
  }
  if (reshape.empty()) reshape = {n};
  if (perm.empty()) {
    perm.resize(reshape.size());
    std::iota(perm.begin(), perm.end(), 0);
  }
  int64_t rn = 1;
  for (int64_t r : reshape) {
    if (r < 1 || rn > (int64_t{1} << 30) / r) return Bad("GSPMD sharding: bad device reshape");
    rn *= r;
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) return Bad("GSPMD sharding: bad transpose");
  }
  if (rn != n || perm.size() != reshape.size()) return Bad("GSPMD sharding: device count mismatch");
  s.kind = GspmdSharding::Kind::kTiled;
  s.num_devices = n;
  // Boundaries (cumulative products from the major end) of both sequences.
  std::set<int64_t> bounds{1, n};
  int64_t c = 1;
  for (int64_t p : perm) bounds.insert(c *= reshape[p]);
  c = 1;
  for (int64_t t : tile) bounds.insert(c *= t);
  std::vector<int64_t> chain(bounds.begin(), bounds.end());
  for (size_t i = 1; i < chain.size(); ++i) {
    if (chain[i] % chain[i - 1] != 0) return InvalidArgument("GSPMD device order is not a product of mesh axes");
  }
  // Pieces in transposed order; each belongs to a transposed dim.
  struct Piece {
    int64_t lo, hi;  // cumulative-product span in transposed order
    size_t reshape_dim;
  };
  std::vector<Piece> pieces;
  c = 1;
  for (int64_t p : perm) {
    int64_t lo = c, hi = c * reshape[p];
    for (size_t i = 1; i < chain.size(); ++i) {
      if (chain[i - 1] >= lo && chain[i] <= hi) pieces.push_back({chain[i - 1], chain[i], static_cast<size_t>(p)});
    }
    c = hi;
  }
  // Axis order: by reshape dim, then in transposed (major first) order within it.
  std::vector<size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pieces[a].reshape_dim < pieces[b].reshape_dim; });
  std::vector<int> axis_of(pieces.size());
  for (size_t k = 0; k < order.size(); ++k) {
    axis_of[order[k]] = static_cast<int>(k);
    s.axis_sizes.push_back(pieces[order[k]].hi / pieces[order[k]].lo);
  }
  size_t tensor_dims = tile.size() - static_cast<size_t>(subgroup_dims);
  c = 1;
  for (size_t d = 0; d < tensor_dims; ++d) {
    int64_t lo = c, hi = c * tile[d];
    std::vector<int> axes;
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (pieces[i].lo >= lo && pieces[i].hi <= hi) axes.push_back(axis_of[i]);
    }
    s.dim_axes.push_back(std::move(axes));
    c = hi;
  }
  return Status::Ok();
}

StatusOr<GspmdSharding> GspmdScanner::ParseOne() {
  if (!Eat('{')) return Bad("GSPMD sharding: expected '{'");
  GspmdSharding s;
  std::vector<int64_t> tile, reshape, perm;
  int subgroup_dims = 0;
  bool tiled = false;
  for (int guard = 0; guard < 64; ++guard) {
    Skip();
    if (Eat('}')) break;
    if (EatWord("replicated")) {
      s.kind = GspmdSharding::Kind::kReplicated;
    } else if (EatWord("manual")) {
      s.kind = GspmdSharding::Kind::kManual;
    } else if (EatWord("maximal")) {
      s.kind = GspmdSharding::Kind::kMaximal;
    } else if (EatWord("devices=")) {
      tiled = true;
      AZ_ASSIGN_OR_RETURN(tile, IntList('[', ']'));
      if (tile.empty()) return Bad("GSPMD sharding: empty tile dims");
      if (EatWord("<=")) {
        AZ_ASSIGN_OR_RETURN(reshape, IntList('[', ']'));
        if (Eat('T')) {
          AZ_ASSIGN_OR_RETURN(perm, IntList('(', ')'));
        }
      } else {
        std::vector<int64_t> devices;
        while (Peek() >= '0' && Peek() <= '9') {
          if (devices.size() > (size_t{1} << 20)) return Bad("GSPMD sharding: device list too long");
          AZ_ASSIGN_OR_RETURN(int64_t d, Int());
          devices.push_back(d);
          if (!Eat(',')) break;
        }
        for (size_t i = 0; i < devices.size(); ++i) {
          if (devices[i] != static_cast<int64_t>(i)) s.explicit_device_order = true;
        }
      }
    } else if (EatWord("last_tile_dim_replicate")) {
      subgroup_dims = 1;
    } else if (EatWord("last_tile_dims=")) {
      if (!Eat('{')) return Bad("GSPMD sharding: last_tile_dims");
      subgroup_dims = 0;
      while (!Eat('}')) {
        if (pos_ >= text_.size() || subgroup_dims > 64) return Bad("GSPMD sharding: last_tile_dims");
        if (EatWord("manual") || EatWord("replicated") || EatWord("maximal")) ++subgroup_dims;
        Skip();
        Eat(',');
        Skip();
        if (Peek() != '}' && Peek() != 'm' && Peek() != 'r') return Bad("GSPMD sharding: last_tile_dims");
      }
    } else {
      size_t before = pos_;
      SkipBalanced();
      if (pos_ == before && pos_ < text_.size()) ++pos_;
      if (pos_ >= text_.size()) return Bad("GSPMD sharding: expected '}'");
    }
    Skip();
    Eat(',');
  }
  if (tiled && s.kind == GspmdSharding::Kind::kReplicated) {
    if (subgroup_dims > static_cast<int>(tile.size())) return Bad("GSPMD sharding: too many subgroup dims");
    AZ_RETURN_IF_ERROR(BuildTiled(s, tile, subgroup_dims, reshape, perm));
  }
  return s;
}

}  // namespace

StatusOr<std::vector<GspmdSharding>> ParseGspmd(std::string_view text) { return GspmdScanner(text).ParseTop(); }

bool GspmdMeshes::Merge(std::vector<int64_t>& boundaries, const GspmdSharding& sharding) {
  std::set<int64_t> merged(boundaries.begin(), boundaries.end());
  int64_t c = 1;
  for (int64_t size : sharding.axis_sizes) merged.insert(c *= size);
  std::vector<int64_t> chain(merged.begin(), merged.end());
  for (size_t i = 1; i < chain.size(); ++i) {
    if (chain[i] % chain[i - 1] != 0) return false;
  }
  boundaries = std::move(chain);
  return true;
}

void GspmdMeshes::Add(const GspmdSharding& sharding) {
  if (sharding.kind == GspmdSharding::Kind::kTiled && pending_.size() < 4096) pending_.push_back(sharding);
}

const std::vector<pir::Mesh>& GspmdMeshes::Meshes() {
  if (built_) return meshes_;
  built_ = true;
  for (const GspmdSharding& s : pending_) {
    bool placed = false;
    for (Group& group : groups_) {
      if (group.num_devices == s.num_devices && Merge(group.boundaries, s)) {
        placed = true;
        break;
      }
    }
    if (placed) continue;
    Group group{s.num_devices, {1}, groups_.empty() ? "gspmd" : "gspmd_" + std::to_string(groups_.size())};
    Merge(group.boundaries, s);
    groups_.push_back(std::move(group));
  }
  for (const Group& group : groups_) {
    pir::Mesh mesh;
    mesh.name = group.mesh;
    for (size_t i = 1; i < group.boundaries.size(); ++i) {
      mesh.axes.emplace_back("d" + std::to_string(i - 1), group.boundaries[i] / group.boundaries[i - 1]);
    }
    meshes_.push_back(std::move(mesh));
  }
  return meshes_;
}

StatusOr<pir::TensorSharding> GspmdMeshes::Convert(const GspmdSharding& s, int64_t rank) {
  Meshes();
  pir::TensorSharding out;
  if (s.kind != GspmdSharding::Kind::kTiled) {
    out.mesh = meshes_.empty() ? "" : meshes_[0].name;
    out.dim_axes.resize(static_cast<size_t>(rank));
    return out;
  }
  if (static_cast<int64_t>(s.dim_axes.size()) != rank) {
    return InvalidArgument("GSPMD sharding has " + std::to_string(s.dim_axes.size()) + " tile dims for a rank-" +
                           std::to_string(rank) + " value");
  }
  for (size_t g = 0; g < groups_.size(); ++g) {
    std::vector<int64_t> boundaries = groups_[g].boundaries;
    if (groups_[g].num_devices != s.num_devices || !Merge(boundaries, s) || boundaries != groups_[g].boundaries)
      continue;
    // Axis k of `s` spans [c_k, c_k * size_k): the mesh axes between those boundaries.
    std::vector<int64_t> start(s.axis_sizes.size());
    int64_t c = 1;
    for (size_t k = 0; k < s.axis_sizes.size(); ++k) {
      start[k] = c;
      c *= s.axis_sizes[k];
    }
    out.mesh = groups_[g].mesh;
    for (const std::vector<int>& axes : s.dim_axes) {
      std::vector<std::string> names;
      for (int k : axes) {
        for (size_t i = 1; i < boundaries.size(); ++i) {
          if (boundaries[i - 1] >= start[k] && boundaries[i] <= start[k] * s.axis_sizes[k]) {
            names.push_back("d" + std::to_string(i - 1));
          }
        }
      }
      out.dim_axes.push_back(std::move(names));
    }
    return out;
  }
  return InvalidArgument("GSPMD sharding was not registered with the file's meshes");
}

StatusOr<std::vector<std::string>> GroupAxes(const pir::Mesh& mesh, const std::vector<std::vector<int64_t>>& groups) {
  int64_t n = mesh.NumDevices();
  std::vector<std::string> axes;
  if (groups.empty()) return axes;
  // Strides of the axes in iota order (first axis major).
  std::vector<int64_t> stride(mesh.axes.size());
  int64_t s = 1;
  for (size_t i = mesh.axes.size(); i-- > 0;) {
    stride[i] = s;
    s *= mesh.axes[i].second;
  }
  const std::vector<int64_t>& first = groups[0];
  std::vector<bool> varies(mesh.axes.size(), false);
  int64_t group_size = 1;
  for (size_t i = 0; i < mesh.axes.size(); ++i) {
    if (first.empty()) break;
    int64_t coord0 = (first[0] / stride[i]) % mesh.axes[i].second;
    for (int64_t device : first) {
      if (device < 0 || device >= n) return InvalidArgument("replica group names device " + std::to_string(device));
      if ((device / stride[i]) % mesh.axes[i].second != coord0) varies[i] = true;
    }
    if (varies[i]) {
      axes.push_back(mesh.axes[i].first);
      group_size *= mesh.axes[i].second;
    }
  }
  size_t total = 0;
  for (const auto& group : groups) {
    if (static_cast<int64_t>(group.size()) != group_size)
      return InvalidArgument("replica groups are not mesh-axis orbits");
    total += group.size();
  }
  if (static_cast<int64_t>(total) != n) return InvalidArgument("replica groups do not cover the mesh");
  return axes;
}

}  // namespace az::frontend::shlo
