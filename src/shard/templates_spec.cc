// Template specs: parsing and axis binding (templates_spec.h).
#include "shard/templates_spec.h"

#include <algorithm>

namespace az::shard::templates {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

namespace {

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsName(std::string_view s) {
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  return !s.empty() && start(s.front()) &&
         std::all_of(s.begin(), s.end(), [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

// The scope of a per-part strategy: "cross_attn+ffn" -> {"cross_attn", "ffn"}.
Status ParseParts(Strategy& s, std::string_view scope) {
  size_t begin = 0;
  while (true) {
    size_t plus = scope.find('+', begin);
    std::string_view part =
        Trim(scope.substr(begin, plus == std::string_view::npos ? std::string_view::npos : plus - begin));
    if (!IsName(part)) {
      return InvalidArgument("'" + s.text +
                             "': expected block parts joined by '+' after '@' (e.g. tp=x@cross_attn+ffn), got '" +
                             std::string(scope) + "'");
    }
    if (std::find(s.parts.begin(), s.parts.end(), part) != s.parts.end()) {
      return InvalidArgument("'" + s.text + "' names part '" + std::string(part) + "' twice");
    }
    s.parts.push_back(std::string(part));
    if (plus == std::string_view::npos) break;
    begin = plus + 1;
  }
  std::sort(s.parts.begin(), s.parts.end());
  return Status::Ok();
}

StatusOr<Strategy> ParseStrategy(std::string_view token, std::string_view spec) {
  Strategy s;
  s.text = std::string(token);
  // A per-part strategy: "tp=x@cross_attn+ffn".
  if (size_t at = token.find('@'); at != std::string_view::npos) {
    AZ_RETURN_IF_ERROR(ParseParts(s, token.substr(at + 1)));
    token = token.substr(0, at);
  }
  size_t eq = token.find('=');
  std::string_view name = Trim(token.substr(0, eq));
  auto kind = std::find_if(std::begin(kAllKinds), std::end(kAllKinds), [&](Kind k) { return KindName(k) == name; });
  if (kind == std::end(kAllKinds)) {
    return InvalidArgument("unknown strategy '" + std::string(name) + "' in template '" + std::string(spec) +
                           "' (known: dp, cfg, ulysses, ring, context, usp:ulysses=A,ring=B, tp, fsdp)");
  }
  s.kind = *kind;
  if (!s.parts.empty() && s.kind != Kind::kTp) {
    return InvalidArgument("'" + s.text + "': only tp takes a block part scope (" + std::string(KindName(s.kind)) +
                           " holds the rest of the model: write e.g. 'ulysses=x,tp=x@cross_attn+ffn')");
  }
  if (!s.parts.empty() && eq == std::string_view::npos) {
    return InvalidArgument("'" + s.text + "': a per-part tp names its axis or degree (e.g. tp=x@" + s.parts.front() +
                           ")");
  }
  if (eq == std::string_view::npos) return s;
  std::string_view value = Trim(token.substr(eq + 1));
  if (IsDigits(value)) {
    s.degree = 0;
    for (char c : value) {
      s.degree = s.degree * 10 + (c - '0');
      if (s.degree > 65536) break;
    }
    if (s.degree < 1) return InvalidArgument("'" + s.text + "': a degree must be at least 1");
    return s;
  }
  if (s.kind == Kind::kFsdp) {
    // fsdp=x or fsdp=x+y: the axes the weights are stored over.
    size_t begin = 0;
    while (true) {
      size_t plus = value.find('+', begin);
      std::string_view part = Trim(value.substr(begin, plus == std::string_view::npos ? std::string_view::npos
                                                                                        : plus - begin));
      if (!IsName(part)) {
        return InvalidArgument("'" + s.text + "': expected mesh axis names joined by '+' or a degree after '=', got '" +
                               std::string(value) + "'");
      }
      s.axis_names.push_back(std::string(part));
      if (plus == std::string_view::npos) break;
      begin = plus + 1;
    }
    return s;
  }
  if (!IsName(value)) {
    return InvalidArgument("'" + s.text + "': expected a mesh axis name or a degree after '=', got '" +
                           std::string(value) + "'");
  }
  s.axis_name = std::string(value);
  return s;
}

// fsdp stores weights and computes nothing, so it claims no axis: it may
// share axes with the compute strategies (xDiT's "ulysses=8 with FSDP over
// the same 8 ranks"). By names: those axes. By degree: a free axis of that
// size, else a bound one, else the fewest axes (in mesh order) whose sizes
// multiply to it. Bare: every axis.
Status BindFsdp(Strategy& s, const Mesh& mesh, const std::vector<bool>& owned) {
  s.axes.clear();
  for (const std::string& name : s.axis_names) {
    int axis = mesh.AxisIndex(name);
    if (axis < 0) return InvalidArgument("'" + s.text + "': the mesh " + mesh.ToString() + " has no axis '" + name + "'");
    if (std::find(s.axes.begin(), s.axes.end(), axis) != s.axes.end()) {
      return InvalidArgument("'" + s.text + "' names axis '" + name + "' twice");
    }
    s.axes.push_back(axis);
  }
  if (!s.axis_names.empty()) {
    std::sort(s.axes.begin(), s.axes.end());
    return Status::Ok();
  }
  const int n = mesh.num_axes();
  if (s.degree == 0) {
    for (int a = 0; a < n; ++a) s.axes.push_back(a);
    return Status::Ok();
  }
  for (bool want_free : {true, false}) {
    for (int a = 0; a < n; ++a) {
      if (mesh.axis_size(a) == s.degree && owned[static_cast<size_t>(a)] != want_free) {
        s.axes = {a};
        return Status::Ok();
      }
    }
  }
  for (int count = 2; count <= n; ++count) {
    for (int mask = 0; mask < (1 << n); ++mask) {
      if (__builtin_popcount(static_cast<unsigned>(mask)) != count) continue;
      int64_t product = 1;
      for (int a = 0; a < n; ++a) {
        if (mask & (1 << a)) product *= mesh.axis_size(a);
      }
      if (product != s.degree) continue;
      for (int a = 0; a < n; ++a) {
        if (mask & (1 << a)) s.axes.push_back(a);
      }
      return Status::Ok();
    }
  }
  return InvalidArgument("'" + s.text + "': no mesh axes of " + mesh.ToString() + " multiply to " +
                         std::to_string(s.degree));
}

// A per-part tp ("tp=x@ffn"): by name, or by degree the minor sequence axis
// of that size (the hybrid: the part gathers that axis's sequence split at its
// entry and reduce-scatters it at its exit), else a free axis of that size.
// It shares its axis only with a sequence strategy, and only with the minor
// one of two (ulysses under usp): gathering the major axis of a [ring,
// ulysses] split would not leave a contiguous split on the minor one.
Status BindScoped(Strategy& s, const std::vector<Strategy>& strategies, std::vector<const Strategy*>& owner,
                  const Mesh& mesh) {
  const Strategy* ring = nullptr;
  const Strategy* ulysses = nullptr;
  for (const Strategy& other : strategies) {
    if (other.kind == Kind::kRing) ring = &other;
    if (other.kind == Kind::kUlysses) ulysses = &other;
  }
  int axis = -1;
  if (!s.axis_name.empty()) {
    axis = mesh.AxisIndex(s.axis_name);
    if (axis < 0) {
      return InvalidArgument("'" + s.text + "': the mesh " + mesh.ToString() + " has no axis '" + s.axis_name + "'");
    }
  } else {
    // The minor sequence strategy first (ulysses, then ring or context), then free axes.
    for (Kind kind : {Kind::kUlysses, Kind::kRing, Kind::kContext}) {
      for (const Strategy& other : strategies) {
        if (axis < 0 && other.kind == kind && other.axis >= 0 && mesh.axis_size(other.axis) == s.degree) {
          axis = other.axis;
        }
      }
    }
    for (int a = 0; a < mesh.num_axes() && axis < 0; ++a) {
      if (!owner[static_cast<size_t>(a)] && mesh.axis_size(a) == s.degree) axis = a;
    }
    if (axis < 0) {
      return InvalidArgument("'" + s.text + "' matches neither a sequence axis nor a free mesh axis of size " +
                             std::to_string(s.degree) + " (mesh " + mesh.ToString() + ")");
    }
  }
  if (const Strategy* other = owner[static_cast<size_t>(axis)]) {
    if (!IsSequence(other->kind)) {
      return InvalidArgument("'" + s.text + "' shares mesh axis '" + mesh.axis_name(axis) + "' with " +
                             std::string(KindName(other->kind)) +
                             ": a per-part tp shares its axis only with ulysses, ring or context");
    }
    if (other == ring && ulysses) {
      return InvalidArgument("'" + s.text + "' is on ring's axis '" + mesh.axis_name(axis) +
                             "' under usp: a per-part tp takes the minor sequence axis (ulysses')");
    }
  }
  if (!owner[static_cast<size_t>(axis)]) owner[static_cast<size_t>(axis)] = &s;
  s.axis = axis;
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<Strategy>> ParseSpec(std::string_view spec) {
  if (Trim(spec).empty()) return InvalidArgument("empty parallelism template (expected e.g. 'cfg=x,ulysses=y')");
  std::vector<std::string_view> tokens;
  size_t start = 0;
  while (true) {
    size_t comma = spec.find(',', start);
    tokens.push_back(
        Trim(spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::vector<Strategy> strategies;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string_view token = tokens[i];
    if (token.empty()) return InvalidArgument("template '" + std::string(spec) + "' has an empty strategy");
    bool usp = token.rfind("usp:", 0) == 0;
    if (usp) token.remove_prefix(4);
    AZ_ASSIGN_OR_RETURN(Strategy s, ParseStrategy(token, spec));
    if (usp) {
      // usp:ulysses=A,ring=B (either order): the next token is the other half.
      Kind partner = s.kind == Kind::kUlysses ? Kind::kRing : Kind::kUlysses;
      if ((s.kind != Kind::kUlysses && s.kind != Kind::kRing) || i + 1 >= tokens.size() ||
          tokens[i + 1].rfind(std::string(KindName(partner)), 0) != 0) {
        return InvalidArgument("usp takes a Ulysses and a ring part: write 'usp:ulysses=A,ring=B' (in '" +
                               std::string(spec) + "')");
      }
      strategies.push_back(std::move(s));
      AZ_ASSIGN_OR_RETURN(s, ParseStrategy(tokens[++i], spec));
    }
    for (const Strategy& other : strategies) {
      if (other.kind == s.kind) {
        return InvalidArgument("strategy '" + std::string(KindName(s.kind)) + "' appears twice in template '" +
                               std::string(spec) + "'");
      }
    }
    strategies.push_back(std::move(s));
  }
  return strategies;
}

// Names first, then degrees (the first free axis of that size), then bare
// strategies (the one axis left free); fsdp last (BindFsdp).
Status BindAxes(std::vector<Strategy>& strategies, const Mesh& mesh) {
  std::vector<const Strategy*> owner(static_cast<size_t>(mesh.num_axes()), nullptr);
  auto claim = [&](Strategy& s, int axis) -> Status {
    if (const Strategy* other = owner[static_cast<size_t>(axis)]) {
      return InvalidArgument("mesh axis '" + mesh.axis_name(axis) + "' is bound to both " +
                             std::string(KindName(other->kind)) + " and " + std::string(KindName(s.kind)));
    }
    owner[static_cast<size_t>(axis)] = &s;
    s.axis = axis;
    return Status::Ok();
  };
  // A per-part tp binds after the others (BindScoped): it may share an axis.
  auto later = [](const Strategy& s) { return s.kind == Kind::kFsdp || !s.parts.empty(); };
  for (Strategy& s : strategies) {
    if (s.axis_name.empty() || later(s)) continue;
    int axis = mesh.AxisIndex(s.axis_name);
    if (axis < 0) {
      return InvalidArgument("'" + s.text + "': the mesh " + mesh.ToString() + " has no axis '" + s.axis_name + "'");
    }
    AZ_RETURN_IF_ERROR(claim(s, axis));
  }
  for (Strategy& s : strategies) {
    if (s.degree == 0 || later(s)) continue;
    int axis = -1;
    for (int a = 0; a < mesh.num_axes() && axis < 0; ++a) {
      if (!owner[static_cast<size_t>(a)] && mesh.axis_size(a) == s.degree) axis = a;
    }
    if (axis < 0) {
      return InvalidArgument("'" + s.text + "' matches no free mesh axis of size " + std::to_string(s.degree) +
                             " (mesh " + mesh.ToString() + ")");
    }
    AZ_RETURN_IF_ERROR(claim(s, axis));
  }
  for (Strategy& s : strategies) {
    if (s.axis >= 0 || later(s)) continue;
    std::vector<int> free;
    for (int a = 0; a < mesh.num_axes(); ++a) {
      if (!owner[static_cast<size_t>(a)]) free.push_back(a);
    }
    if (free.size() != 1) {
      std::string names;
      for (int a : free) names += (names.empty() ? "" : ", ") + mesh.axis_name(a);
      return InvalidArgument("'" + s.text + "' names no axis and the mesh " + mesh.ToString() + " has " +
                             (free.empty() ? std::string("no free axis left")
                                           : std::to_string(free.size()) + " free axes (" + names + ")") +
                             ": write " + s.text + "=<axis or degree>");
    }
    AZ_RETURN_IF_ERROR(claim(s, free[0]));
  }
  for (Strategy& s : strategies) {
    if (!s.parts.empty()) AZ_RETURN_IF_ERROR(BindScoped(s, strategies, owner, mesh));
  }
  std::vector<bool> owned(static_cast<size_t>(mesh.num_axes()));
  for (size_t a = 0; a < owned.size(); ++a) owned[a] = owner[a] != nullptr;
  for (Strategy& s : strategies) {
    if (s.kind == Kind::kFsdp) AZ_RETURN_IF_ERROR(BindFsdp(s, mesh, owned));
  }
  return Status::Ok();
}

}  // namespace az::shard::templates
