// Meshes, tensor shardings, the factor <-> tensor projections and the plan
// verifier. See sharding.h for the semantics.
#include "shard/sharding.h"

#include <algorithm>
#include <set>

namespace az::shard {

namespace {

constexpr int kMaxAxes = 4;
constexpr int64_t kMaxDevices = 65536;

bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string AxisList(const Mesh& mesh, const std::vector<int>& axes) {
  std::string out = "{";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) out += ',';
    int axis = axes[i];
    out += '"' + (axis >= 0 && axis < mesh.num_axes() ? mesh.axis_name(axis) : "#" + std::to_string(axis)) + '"';
  }
  return out + "}";
}

std::string FactorName(const pir::FactorRule& rule, int factor) {
  return "'" + rule.factors[static_cast<size_t>(factor)].name + "'";
}

}  // namespace

// ---------------------------------------------------------------- Mesh

int64_t Mesh::num_devices() const {
  int64_t n = 1;
  for (const auto& axis : axes) n *= axis.second;
  return n;
}

int Mesh::AxisIndex(std::string_view name) const {
  for (int i = 0; i < num_axes(); ++i) {
    if (axis_name(i) == name) return i;
  }
  return -1;
}

std::string Mesh::ToString() const {
  std::string out;
  for (const auto& [name, size] : axes) {
    if (!out.empty()) out += ',';
    out += name + "=" + std::to_string(size);
  }
  return out;
}

StatusOr<Mesh> Mesh::Parse(std::string_view text) {
  const std::string quoted = "mesh '" + std::string(text) + "'";
  if (Trim(text).empty()) return InvalidArgument("empty mesh: expected axes like 'x=2,y=4'");
  Mesh mesh;
  int64_t devices = 1;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item =
        Trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument(quoted + ": axis '" + std::string(item) + "' needs a size, as in 'x=2'");
    }
    std::string_view name = Trim(item.substr(0, eq));
    std::string_view size_text = Trim(item.substr(eq + 1));
    if (name.empty() || !IsNameStart(name.front()) ||
        !std::all_of(name.begin(), name.end(), [](char c) { return IsNameChar(c); })) {
      return InvalidArgument(quoted + ": axis name '" + std::string(name) + "' must match [A-Za-z_][A-Za-z0-9_]*");
    }
    if (mesh.AxisIndex(name) >= 0) return InvalidArgument(quoted + ": axis '" + std::string(name) + "' appears twice");
    if (size_text.empty() ||
        !std::all_of(size_text.begin(), size_text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return InvalidArgument(quoted + ": the size of axis '" + std::string(name) +
                             "' must be a positive integer, got '" + std::string(size_text) + "'");
    }
    int64_t size = 0;
    for (char c : size_text) {
      size = size * 10 + (c - '0');
      if (size > kMaxDevices) break;
    }
    if (size < 1) return InvalidArgument(quoted + ": axis '" + std::string(name) + "' must have size >= 1");
    if (mesh.num_axes() == kMaxAxes) {
      return InvalidArgument(quoted + " has more than " + std::to_string(kMaxAxes) + " axes");
    }
    if (size > kMaxDevices || devices * size > kMaxDevices) {
      return InvalidArgument(quoted + " has more than " + std::to_string(kMaxDevices) + " devices");
    }
    devices *= size;
    mesh.axes.emplace_back(std::string(name), size);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return mesh;
}

int64_t Mesh::Coordinate(int64_t device, int axis) const {
  AZ_CHECK(axis >= 0 && axis < num_axes());
  int64_t stride = 1;
  for (int i = axis + 1; i < num_axes(); ++i) stride *= axis_size(i);
  return (device / stride) % axis_size(axis);
}

int64_t Mesh::AxesSize(const std::vector<int>& axis_list) const {
  int64_t n = 1;
  for (int axis : axis_list) n *= axis_size(axis);
  return n;
}

// ---------------------------------------------------------------- TensorSharding

bool TensorSharding::IsReplicated() const {
  return partial.empty() && std::all_of(dims.begin(), dims.end(), [](const auto& d) { return d.empty(); });
}

int64_t TensorSharding::Shards(const Mesh& mesh, int dim) const {
  return mesh.AxesSize(dims.at(static_cast<size_t>(dim)));
}

pir::Shape TensorSharding::LocalShape(const Mesh& mesh, const pir::Shape& shape) const {
  AZ_CHECK_MSG(shape.size() == dims.size(),
               "sharding rank " + std::to_string(dims.size()) + " for shape of rank " + std::to_string(shape.size()));
  pir::Shape local(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t k = Shards(mesh, static_cast<int>(d));
    local[d] = (shape[d] + k - 1) / k;
  }
  return local;
}

std::string TensorSharding::ToString(const Mesh& mesh) const {
  std::string out = "[";
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d) out += ", ";
    out += AxisList(mesh, dims[d]);
  }
  out += "]";
  if (!partial.empty()) out += " partial=" + AxisList(mesh, partial);
  return out;
}

// ---------------------------------------------------------------- projections

namespace {

TensorSharding Project(const pir::FactorRule& rule, const OpSharding& op, const pir::TensorFactors& tensor) {
  AZ_CHECK(op.factor_axes.size() == rule.factors.size());
  TensorSharding s = TensorSharding::Replicated(static_cast<int>(tensor.size()));
  for (size_t d = 0; d < tensor.size(); ++d) {
    for (int f : tensor[d]) {
      const std::vector<int>& axes = op.factor_axes[static_cast<size_t>(f)];
      s.dims[d].insert(s.dims[d].end(), axes.begin(), axes.end());
    }
  }
  return s;
}

}  // namespace

TensorSharding RequiredOperandSharding(const pir::FactorRule& rule, const OpSharding& op, int index) {
  AZ_CHECK(index >= 0 && index < static_cast<int>(rule.operands.size()));
  return Project(rule, op, rule.operands[static_cast<size_t>(index)]);
}

TensorSharding ProducedResultSharding(const pir::FactorRule& rule, const OpSharding& op, int index) {
  AZ_CHECK(index >= 0 && index < static_cast<int>(rule.results.size()));
  TensorSharding s = Project(rule, op, rule.results[static_cast<size_t>(index)]);
  std::set<int> on_dims;
  for (const auto& dim : s.dims) on_dims.insert(dim.begin(), dim.end());
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].kind != pir::FactorKind::kReduction) continue;
    for (int axis : op.factor_axes[f]) {
      // An axis also on the result's dims is the ring exception: no partial sum.
      if (on_dims.count(axis) || std::count(s.partial.begin(), s.partial.end(), axis)) continue;
      s.partial.push_back(axis);
    }
  }
  return s;
}

// ---------------------------------------------------------------- verification

Status CheckOpSharding(const pir::FactorRule& rule, const OpSharding& op, const Mesh& mesh) {
  if (op.factor_axes.size() != rule.factors.size()) {
    return InvalidArgument("has axes for " + std::to_string(op.factor_axes.size()) + " factors, its rule has " +
                           std::to_string(rule.factors.size()));
  }
  // axis -> the factors that carry it.
  std::vector<std::vector<int>> factors_of_axis(static_cast<size_t>(mesh.num_axes()));
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    const pir::Factor& factor = rule.factors[f];
    const std::vector<int>& axes = op.factor_axes[f];
    if (axes.empty()) continue;
    if (factor.kind == pir::FactorKind::kNeedReplication) {
      return InvalidArgument("factor '" + factor.name + "' must stay replicated, but has axes " + AxisList(mesh, axes));
    }
    if (factor.size == 1) return InvalidArgument("factor '" + factor.name + "' has size 1 and cannot be sharded");
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] < 0 || axes[i] >= mesh.num_axes()) {
        return InvalidArgument("factor '" + factor.name + "' names mesh axis " + std::to_string(axes[i]) +
                               ", the mesh has " + std::to_string(mesh.num_axes()));
      }
      if (std::find(axes.begin(), axes.begin() + static_cast<std::ptrdiff_t>(i), axes[i]) !=
          axes.begin() + static_cast<std::ptrdiff_t>(i)) {
        return InvalidArgument("factor '" + factor.name + "' has axis \"" + mesh.axis_name(axes[i]) + "\" twice");
      }
      factors_of_axis[static_cast<size_t>(axes[i])].push_back(static_cast<int>(f));
    }
  }
  auto tensors_with_both = [&](int a, int b) {
    for (const auto* list : {&rule.operands, &rule.results}) {
      for (const pir::TensorFactors& tensor : *list) {
        bool has_a = false, has_b = false;
        for (const auto& dim : tensor) {
          for (int f : dim) {
            has_a |= f == a;
            has_b |= f == b;
          }
        }
        if (has_a && has_b) return true;
      }
    }
    return false;
  };
  for (int axis = 0; axis < mesh.num_axes(); ++axis) {
    const std::vector<int>& users = factors_of_axis[static_cast<size_t>(axis)];
    if (users.size() <= 1) continue;
    auto is_reduction = [&](int f) { return rule.factors[static_cast<size_t>(f)].kind == pir::FactorKind::kReduction; };
    // Two reduction factors are a ring too: attention_grad's q and kv (dK and
    // dV sum over the queries, dQ over the keys) on one axis is ring
    // attention's backward, each sum completed inside the op.
    bool ring = users.size() == 2 && (is_reduction(users[0]) || is_reduction(users[1])) &&
                !tensors_with_both(users[0], users[1]);
    if (!ring) {
      return InvalidArgument("mesh axis \"" + mesh.axis_name(axis) + "\" is on factors " + FactorName(rule, users[0]) +
                             " and " + FactorName(rule, users[1]));
    }
  }
  // Expressibility: along every dim, factors after a not fully sharded one carry no axes.
  for (const auto* list : {&rule.operands, &rule.results}) {
    for (const pir::TensorFactors& tensor : *list) {
      for (const auto& dim : tensor) {
        int open_factor = -1;  // the first factor of this dim that is not fully sharded
        for (int f : dim) {
          const std::vector<int>& axes = op.factor_axes[static_cast<size_t>(f)];
          if (open_factor >= 0 && !axes.empty()) {
            return InvalidArgument("factor " + FactorName(rule, f) + " is sharded but " +
                                   FactorName(rule, open_factor) +
                                   ", major to it in the same dimension, is not fully sharded");
          }
          if (open_factor < 0 && mesh.AxesSize(axes) != rule.factors[static_cast<size_t>(f)].size) open_factor = f;
        }
      }
    }
  }
  return Status::Ok();
}

std::string OpShardingToString(const pir::FactorRule& rule, const OpSharding& op, const Mesh& mesh) {
  std::string out = "{";
  bool first = true;
  for (size_t f = 0; f < rule.factors.size() && f < op.factor_axes.size(); ++f) {
    if (op.factor_axes[f].empty()) continue;
    if (!first) out += ", ";
    first = false;
    out += rule.factors[f].name + "=" + AxisList(mesh, op.factor_axes[f]);
  }
  return out + "}";
}

namespace {

Status CheckTensorSharding(const Mesh& mesh, const TensorSharding& s, int64_t rank) {
  if (static_cast<int64_t>(s.dims.size()) != rank) {
    return InvalidArgument("has a sharding of rank " + std::to_string(s.dims.size()) + " for a tensor of rank " +
                           std::to_string(rank));
  }
  std::vector<bool> seen(static_cast<size_t>(mesh.num_axes()), false);
  auto check = [&](const std::vector<int>& axes) -> Status {
    for (int axis : axes) {
      if (axis < 0 || axis >= mesh.num_axes()) {
        return InvalidArgument("names mesh axis " + std::to_string(axis) + ", the mesh has " +
                               std::to_string(mesh.num_axes()));
      }
      if (seen[static_cast<size_t>(axis)]) {
        return InvalidArgument("uses mesh axis \"" + mesh.axis_name(axis) + "\" twice");
      }
      seen[static_cast<size_t>(axis)] = true;
    }
    return Status::Ok();
  };
  for (const auto& dim : s.dims) AZ_RETURN_IF_ERROR(check(dim));
  return check(s.partial);
}

// The rule's tensors must match the op's operand and result types.
Status CheckRuleFits(const pir::Graph& graph, const pir::Op& op, const pir::FactorRule& rule) {
  auto fits = [&](const std::vector<pir::ValueId>& values, const std::vector<pir::TensorFactors>& tensors,
                  const char* what) -> Status {
    if (values.size() != tensors.size()) {
      return InvalidArgument("its rule has " + std::to_string(tensors.size()) + " " + what + ", the op " +
                             std::to_string(values.size()));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const pir::Shape& shape = graph.type(values[i]).shape;
      if (tensors[i].size() != shape.size()) {
        return InvalidArgument("its rule gives " + std::string(what) + " " + std::to_string(i) + " rank " +
                               std::to_string(tensors[i].size()) + ", the value has rank " +
                               std::to_string(shape.size()));
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        for (int f : tensors[i][d]) {
          if (f < 0 || f >= static_cast<int>(rule.factors.size())) {
            return InvalidArgument("its rule names factor " + std::to_string(f));
          }
        }
        if (!rule.DimFits(tensors[i][d], shape[d])) {
          return InvalidArgument("its rule's factors of " + std::string(what) + " " + std::to_string(i) + " dim " +
                                 std::to_string(d) + " multiply to " + std::to_string(rule.DimSize(tensors[i][d])) +
                                 ", not " + std::to_string(shape[d]));
        }
      }
    }
    return Status::Ok();
  };
  AZ_RETURN_IF_ERROR(fits(op.operands, rule.operands, "operands"));
  return fits(op.results, rule.results, "results");
}

}  // namespace

Status VerifyPlan(const pir::Graph& graph, const ShardingPlan& plan) {
  const Mesh& mesh = plan.mesh;
  if (mesh.num_axes() < 1 || mesh.num_axes() > kMaxAxes) {
    return InvalidArgument("plan mesh must have 1 to " + std::to_string(kMaxAxes) + " axes, has " +
                           std::to_string(mesh.num_axes()));
  }
  for (const auto& [name, size] : mesh.axes) {
    if (size < 1) return InvalidArgument("plan mesh axis '" + name + "' has size " + std::to_string(size));
  }
  if (static_cast<int>(plan.values.size()) != graph.num_values()) {
    return InvalidArgument("plan has " + std::to_string(plan.values.size()) + " value shardings for " +
                           std::to_string(graph.num_values()) + " values");
  }
  if (static_cast<int>(plan.ops.size()) != graph.num_ops() || static_cast<int>(plan.rules.size()) != graph.num_ops()) {
    return InvalidArgument("plan has " + std::to_string(plan.ops.size()) + " op shardings and " +
                           std::to_string(plan.rules.size()) + " rules for " + std::to_string(graph.num_ops()) +
                           " ops");
  }
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::Op& op = graph.op(id);
    const pir::FactorRule& rule = plan.rules[static_cast<size_t>(id)];
    Status status = CheckRuleFits(graph, op, rule);
    if (status.ok()) status = CheckOpSharding(rule, plan.ops[static_cast<size_t>(id)], mesh);
    if (!status.ok()) return InvalidArgument("op '" + op.name + "': " + status.message());
  }
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& value = graph.value(id);
    const TensorSharding& s = plan.values[static_cast<size_t>(id)];
    Status status = CheckTensorSharding(mesh, s, value.type.rank());
    if (!status.ok()) return InvalidArgument(pir::ValueLabel(graph, id) + " " + status.message());
    if (value.role != pir::ValueRole::kActivation) {
      if (!s.partial.empty()) return InvalidArgument(pir::ValueLabel(graph, id) + " is a leaf but has partial axes");
      continue;
    }
    const pir::Op& producer = graph.op(value.producer);
    int index =
        static_cast<int>(std::find(producer.results.begin(), producer.results.end(), id) - producer.results.begin());
    TensorSharding produced = ProducedResultSharding(plan.rules[static_cast<size_t>(value.producer)],
                                                     plan.ops[static_cast<size_t>(value.producer)], index);
    if (produced != s) {
      return InvalidArgument(pir::ValueLabel(graph, id) + " is sharded " + s.ToString(mesh) + " but '" + producer.name +
                             "' produces it " + produced.ToString(mesh));
    }
  }
  return Status::Ok();
}

}  // namespace az::shard
