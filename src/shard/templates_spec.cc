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

StatusOr<Strategy> ParseStrategy(std::string_view token, std::string_view spec) {
  Strategy s;
  s.text = std::string(token);
  size_t eq = token.find('=');
  std::string_view name = Trim(token.substr(0, eq));
  auto kind = std::find_if(std::begin(kAllKinds), std::end(kAllKinds), [&](Kind k) { return KindName(k) == name; });
  if (kind == std::end(kAllKinds)) {
    return InvalidArgument("unknown strategy '" + std::string(name) + "' in template '" + std::string(spec) +
                           "' (known: dp, cfg, ulysses, ring, context, usp:ulysses=A,ring=B, tp, fsdp)");
  }
  s.kind = *kind;
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
  for (Strategy& s : strategies) {
    if (s.axis_name.empty() || s.kind == Kind::kFsdp) continue;
    int axis = mesh.AxisIndex(s.axis_name);
    if (axis < 0) {
      return InvalidArgument("'" + s.text + "': the mesh " + mesh.ToString() + " has no axis '" + s.axis_name + "'");
    }
    AZ_RETURN_IF_ERROR(claim(s, axis));
  }
  for (Strategy& s : strategies) {
    if (s.degree == 0 || s.kind == Kind::kFsdp) continue;
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
    if (s.axis >= 0 || s.kind == Kind::kFsdp) continue;
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
  std::vector<bool> owned(static_cast<size_t>(mesh.num_axes()));
  for (size_t a = 0; a < owned.size(); ++a) owned[a] = owner[a] != nullptr;
  for (Strategy& s : strategies) {
    if (s.kind == Kind::kFsdp) AZ_RETURN_IF_ERROR(BindFsdp(s, mesh, owned));
  }
  return Status::Ok();
}

}  // namespace az::shard::templates
