// Graph -> the Alpa ILP: strategies per op, followers, layer classes, costs
// and edges (alpa.h states the formulation and the simplifications).
#include "search/alpa_build.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "cir/program.h"
#include "compile/spmd/reshard.h"
#include "pir/rules/cost.h"

namespace az::search::alpa_internal {

using shard::Mesh;
using shard::OpSharding;
using shard::TensorSharding;

namespace {

// Factors an op's strategies may shard: the largest few (the rest stay whole).
constexpr size_t kMaxCandidateFactors = 6;
// A follower's operand has at least this many times the elements of every other operand.
constexpr int64_t kFollowerRatio = 4;

bool InAnyOperand(const pir::FactorRule& rule, int factor) {
  for (const pir::TensorFactors& tensor : rule.operands) {
    for (const auto& dim : tensor) {
      if (std::find(dim.begin(), dim.end(), factor) != dim.end()) return true;
    }
  }
  return false;
}

// Whether a strategy may put axes on `factor` (alpa.h: pass-through,
// reduction, normalized, or a permutation factor only results have).
bool MayShard(const pir::FactorRule& rule, int factor) {
  const pir::Factor& f = rule.factors[static_cast<size_t>(factor)];
  if (f.size <= 1) return false;
  switch (f.kind) {
    case pir::FactorKind::kPassThrough:
    case pir::FactorKind::kReduction:
    case pir::FactorKind::kNormalized: return true;
    case pir::FactorKind::kNeedReplication: return false;
    case pir::FactorKind::kPermutation: return !InAnyOperand(rule, factor);
    // Alpa's per-axis costs have no halo exchange (compile/spmd/halo.h).
    case pir::FactorKind::kHalo: return false;
  }
  return false;
}

// Even (divisible) and accepted by CheckOpSharding.
bool IsValid(const pir::FactorRule& rule, const OpSharding& sharding, const Mesh& mesh) {
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].size % mesh.AxesSize(sharding.factor_axes[f]) != 0) return false;
  }
  return shard::CheckOpSharding(rule, sharding, mesh).ok();
}

bool IsFollowerFamily(pir::OpFamily family) {
  switch (family) {
    case pir::OpFamily::kUnary:
    case pir::OpFamily::kBinary:
    case pir::OpFamily::kNorm:
    case pir::OpFamily::kRope:
    case pir::OpFamily::kSoftmax:
    case pir::OpFamily::kBroadcast:
    case pir::OpFamily::kReshape:
    case pir::OpFamily::kTranspose:
    case pir::OpFamily::kSlice: return true;
    default: return false;
  }
}

// The operand a follower follows, or -1 for a leader (alpa.h, simplification (a)).
int FollowedOperand(const pir::Graph& graph, const pir::Op& op) {
  if (!IsFollowerFamily(pir::GetOpKindInfo(op.kind).family) || op.operands.empty()) return -1;
  int heavy = 0;
  for (size_t i = 1; i < op.operands.size(); ++i) {
    if (graph.type(op.operands[i]).NumElements() > graph.type(op.operands[static_cast<size_t>(heavy)]).NumElements()) {
      heavy = static_cast<int>(i);
    }
  }
  int64_t heavy_elements = graph.type(op.operands[static_cast<size_t>(heavy)]).NumElements();
  for (size_t i = 0; i < op.operands.size(); ++i) {
    if (static_cast<int>(i) == heavy) continue;
    if (graph.type(op.operands[i]).NumElements() * kFollowerRatio > heavy_elements) return -1;
  }
  if (graph.value(op.operands[static_cast<size_t>(heavy)]).producer == pir::kNoOp) return -1;
  return heavy;
}

// The sharding a follower runs in when operand `operand` arrives as `in`: the
// operand's dims projected onto the op's factors, major to minor, each factor
// taking axes while they divide it; a factor that cannot take axes (or is not
// fully sharded) ends its dim, and the dim's remaining axes are dropped.
OpSharding Follow(const pir::FactorRule& rule, int operand, const TensorSharding& in, const Mesh& mesh) {
  OpSharding sharding;
  sharding.factor_axes.assign(rule.factors.size(), {});
  const pir::TensorFactors& tensor = rule.operands[static_cast<size_t>(operand)];
  for (size_t d = 0; d < tensor.size() && d < in.dims.size(); ++d) {
    const std::vector<int>& axes = in.dims[d];
    size_t next = 0;
    for (int f : tensor[d]) {
      if (next == axes.size()) break;
      int64_t remaining = rule.factors[static_cast<size_t>(f)].size;
      if (remaining == 1) continue;
      if (!MayShard(rule, f)) break;
      while (next < axes.size() && remaining % mesh.axis_size(axes[next]) == 0) {
        remaining /= mesh.axis_size(axes[next]);
        sharding.factor_axes[static_cast<size_t>(f)].push_back(axes[next++]);
      }
      if (remaining != 1) break;
    }
  }
  if (!IsValid(rule, sharding, mesh)) sharding.factor_axes.assign(rule.factors.size(), {});
  return sharding;
}

// Kind, attributes and types: ops with equal keys have equal rules and costs.
std::string ShapeKey(const pir::Graph& graph, const pir::Op& op) {
  std::string key(pir::OpKindName(op.kind));
  for (const auto& [name, value] : op.attrs.entries()) key += " " + name + "=" + pir::AttrValueToString(value);
  for (pir::ValueId v : op.operands) key += " " + graph.type(v).ToString();
  key += " ->";
  for (pir::ValueId v : op.results) key += " " + graph.type(v).ToString();
  return key;
}

double LocalBytes(const Mesh& mesh, const pir::TensorType& type, const TensorSharding& sharding) {
  return static_cast<double>(pir::TensorType{type.dtype, sharding.LocalShape(mesh, type.shape)}.NumBytes());
}

// Fills everything of `pattern` but its strategies, which it reads.
void PricePattern(const pir::Graph& graph, const pir::Op& op, const pir::FactorRule& rule, const Mesh& mesh,
                  CostModel& costs, Pattern& pattern) {
  const int kv = op.kind == pir::OpKind::kAttention ? rule.FindFactor("kv") : -1;
  for (const OpSharding& sharding : pattern.strategies) {
    std::vector<TensorSharding> required, produced;
    std::vector<pir::TensorType> local_operands, local_results;
    double working_set = 0;  // leaves are counted where they are stored
    for (size_t i = 0; i < op.operands.size(); ++i) {
      required.push_back(shard::RequiredOperandSharding(rule, sharding, static_cast<int>(i)));
      const pir::TensorType& type = graph.type(op.operands[i]);
      local_operands.push_back({type.dtype, required.back().LocalShape(mesh, type.shape)});
      if (graph.value(op.operands[i]).producer != pir::kNoOp) working_set += LocalBytes(mesh, type, required.back());
    }
    for (size_t r = 0; r < op.results.size(); ++r) {
      produced.push_back(shard::ProducedResultSharding(rule, sharding, static_cast<int>(r)));
      const pir::TensorType& type = graph.type(op.results[r]);
      local_results.push_back({type.dtype, produced.back().LocalShape(mesh, type.shape)});
      working_set += LocalBytes(mesh, type, produced.back());
    }
    Flops flops = pir::ComputeOpCost(op.kind, local_operands, local_results, op.attrs).total_flops();
    double own = 0;
    if (kv >= 0 && !sharding.factor_axes[static_cast<size_t>(kv)].empty()) {
      // Ring attention: n block kernels and n-1 permutes of the local K and V blocks.
      const std::vector<int>& ring = sharding.factor_axes[static_cast<size_t>(kv)];
      int64_t n = mesh.AxesSize(ring);
      flops = flops * n;
      double kv_bytes = static_cast<double>(local_operands[1].NumBytes() + local_operands[2].NumBytes());
      own += static_cast<double>(n - 1) * costs.Collective(cir::CollectiveKind::kCollectivePermute, ring, kv_bytes);
    }
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      const std::vector<int>& axes = sharding.factor_axes[f];
      if (rule.factors[f].kind != pir::FactorKind::kNormalized || axes.empty()) continue;
      pir::Statistics stats = pir::StatisticsOf(op.kind);
      int64_t n = mesh.AxesSize(axes);
      double rows = static_cast<double>(local_results[0].NumElements()) /
                    static_cast<double>((rule.factors[f].size + n - 1) / n);
      own += stats.rounds * costs.Collective(cir::CollectiveKind::kAllReduce, axes, rows * stats.values * 4.0);
    }
    own += costs.Compute(flops);
    pattern.required.push_back(std::move(required));
    pattern.produced.push_back(std::move(produced));
    pattern.own_cost_s.push_back(own);
    pattern.working_set_bytes.push_back(working_set);
  }
}

// Keeps strategy 0 (replicated) and the cheapest others by their own cost, in enumeration order.
void CapStrategies(Pattern& pattern, size_t max_strategies) {
  if (pattern.strategies.size() <= max_strategies) return;
  std::vector<size_t> order(pattern.strategies.size() - 1);
  for (size_t i = 0; i < order.size(); ++i) order[i] = i + 1;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pattern.own_cost_s[a] < pattern.own_cost_s[b]; });
  order.resize(max_strategies - 1);
  order.insert(order.begin(), 0);
  std::sort(order.begin(), order.end());
  Pattern kept;
  for (size_t i : order) {
    kept.strategies.push_back(pattern.strategies[i]);
    kept.required.push_back(pattern.required[i]);
    kept.produced.push_back(pattern.produced[i]);
    kept.own_cost_s.push_back(pattern.own_cost_s[i]);
    kept.working_set_bytes.push_back(pattern.working_set_bytes[i]);
  }
  pattern = std::move(kept);
}

// Edge matrices between nodes, oriented from < to, summed over the graph edges.
class EdgeAccumulator {
 public:
  explicit EdgeAccumulator(AlpaProblem& problem) : problem_(problem) {}

  // `cost(s, t)`: node u's strategy s, node v's strategy t.
  template <typename CostFn>
  void Add(int u, int v, CostFn cost) {
    const int su = problem_.nodes[static_cast<size_t>(u)].num_strategies();
    const int sv = problem_.nodes[static_cast<size_t>(v)].num_strategies();
    if (u == v) {  // one set of variables: only the diagonal happens
      for (int s = 0; s < su; ++s) problem_.nodes[static_cast<size_t>(u)].cost_s[static_cast<size_t>(s)] += cost(s, s);
      return;
    }
    const bool flip = u > v;
    const int from = flip ? v : u, to = flip ? u : v;
    const int rows = flip ? sv : su, cols = flip ? su : sv;
    std::vector<double>& m = matrices_[{from, to}];
    if (m.empty()) m.assign(static_cast<size_t>(rows) * static_cast<size_t>(cols), 0.0);
    for (int s = 0; s < su; ++s) {
      for (int t = 0; t < sv; ++t) {
        size_t index = flip ? static_cast<size_t>(t) * static_cast<size_t>(cols) + static_cast<size_t>(s)
                            : static_cast<size_t>(s) * static_cast<size_t>(cols) + static_cast<size_t>(t);
        m[index] += cost(s, t);
      }
    }
  }

  // Separable matrices become node costs; the rest become edges.
  void Finish() {
    for (auto& [key, m] : matrices_) {
      auto [from, to] = key;
      AlpaNode& a = problem_.nodes[static_cast<size_t>(from)];
      AlpaNode& b = problem_.nodes[static_cast<size_t>(to)];
      const size_t rows = a.cost_s.size(), cols = b.cost_s.size();
      double scale = 0;
      for (double c : m) scale = std::max(scale, std::abs(c));
      bool separable = true;
      for (size_t s = 0; s < rows && separable; ++s) {
        for (size_t t = 0; t < cols; ++t) {
          double residual = m[s * cols + t] - m[s * cols] - m[t] + m[0];
          if (std::abs(residual) > 1e-12 * scale) {
            separable = false;
            break;
          }
        }
      }
      if (!separable) {
        problem_.edges.push_back({from, to, std::move(m)});
        continue;
      }
      for (size_t s = 0; s < rows; ++s) a.cost_s[s] += m[s * cols];
      for (size_t t = 0; t < cols; ++t) b.cost_s[t] += m[t] - m[0];
    }
    matrices_.clear();
  }

 private:
  AlpaProblem& problem_;
  std::map<std::pair<int, int>, std::vector<double>> matrices_;
};

}  // namespace

// ---------------------------------------------------------------- costs

double CostModel::Collective(cir::CollectiveKind kind, const std::vector<int>& axes, double bytes) const {
  double alpha = 0, beta = 0;
  int64_t n = 1;
  for (int axis : axes) {
    const AxisCost& c = options_.axis_costs[static_cast<size_t>(axis)];
    alpha += c.alpha_s;
    beta = std::max(beta, c.beta_s_per_byte);
    n *= mesh_.axis_size(axis);
  }
  if (n <= 1) return 0;
  const double fraction = static_cast<double>(n - 1) / static_cast<double>(n);
  switch (kind) {
    case cir::CollectiveKind::kAllReduce: return alpha + 2 * fraction * bytes * beta;
    case cir::CollectiveKind::kCollectivePermute: return alpha + bytes * beta;
    default: return alpha + fraction * bytes * beta;
  }
}

double CostModel::Reshard(const pir::TensorType& type, const TensorSharding& from, const TensorSharding& to) {
  if (from == to) return 0;
  std::string key = type.ToString() + " " + from.ToString(mesh_) + " > " + to.ToString(mesh_);
  auto it = reshard_cache_.find(key);
  if (it != reshard_cache_.end()) return it->second;
  cir::Program program;
  program.num_devices = mesh_.num_devices();
  cir::Buffer buffer;
  buffer.name = "value";
  buffer.dtype = type.dtype;
  buffer.shape = from.LocalShape(mesh_, type.shape);
  int id = program.AddBuffer(std::move(buffer));
  compile::EmitReshard(mesh_, type, id, from, to, "value", "value", program);
  double cost = 0;
  for (const cir::Instruction& in : program.instructions) {
    if (in.kind != cir::InstrKind::kCollective || in.groups.groups.empty()) continue;
    // The collective's axes: those along which the members of a group differ.
    const std::vector<int>& group = in.groups.groups.front();
    std::vector<int> axes;
    for (int axis = 0; axis < mesh_.num_axes(); ++axis) {
      for (int member : group) {
        if (mesh_.Coordinate(member, axis) != mesh_.Coordinate(group.front(), axis)) {
          axes.push_back(axis);
          break;
        }
      }
    }
    cost += Collective(in.collective, axes, static_cast<double>(in.collective_bytes.value()));
  }
  reshard_cache_.emplace(std::move(key), cost);
  return cost;
}

double CostModel::Compute(Flops flops) const {
  if (options_.flop_rate <= 0) return 0;
  return static_cast<double>(flops.value()) / options_.flop_rate;
}

// ---------------------------------------------------------------- strategies

std::vector<OpSharding> EnumerateStrategies(const pir::Op& op, const pir::FactorRule& rule, const Mesh& mesh) {
  const bool attention = op.kind == pir::OpKind::kAttention;
  const int kv = attention ? rule.FindFactor("kv") : -1;
  const int query = attention ? rule.FindFactor("q") : -1;
  std::vector<int> candidates;
  for (int f = 0; f < static_cast<int>(rule.factors.size()); ++f) {
    if (f != kv && MayShard(rule, f)) candidates.push_back(f);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    return rule.factors[static_cast<size_t>(a)].size > rule.factors[static_cast<size_t>(b)].size;
  });
  if (candidates.size() > kMaxCandidateFactors) candidates.resize(kMaxCandidateFactors);

  // Every assignment of each axis to a candidate or to none, as a mixed-radix
  // number (axis 0 the least significant digit; an axis of size 1 splits
  // nothing and only stays unused); 0 is replicated.
  std::vector<int64_t> radix(static_cast<size_t>(mesh.num_axes()));
  int64_t total = 1;
  for (int axis = 0; axis < mesh.num_axes(); ++axis) {
    radix[static_cast<size_t>(axis)] = mesh.axis_size(axis) > 1 ? static_cast<int64_t>(candidates.size()) + 1 : 1;
    total *= radix[static_cast<size_t>(axis)];
  }
  std::vector<OpSharding> strategies;
  for (int64_t code = 0; code < total; ++code) {
    OpSharding sharding;
    sharding.factor_axes.assign(rule.factors.size(), {});
    int64_t rest = code;
    for (int axis = 0; axis < mesh.num_axes(); ++axis) {
      int64_t pick = rest % radix[static_cast<size_t>(axis)];
      rest /= radix[static_cast<size_t>(axis)];
      if (pick == 0) continue;
      sharding.factor_axes[static_cast<size_t>(candidates[static_cast<size_t>(pick - 1)])].push_back(axis);
    }
    if (!IsValid(rule, sharding, mesh)) continue;
    strategies.push_back(sharding);
    // Ring attention: the key sequence on the query sequence's axes.
    if (kv >= 0 && query >= 0 && !sharding.factor_axes[static_cast<size_t>(query)].empty()) {
      OpSharding ring = sharding;
      ring.factor_axes[static_cast<size_t>(kv)] = sharding.factor_axes[static_cast<size_t>(query)];
      if (IsValid(rule, ring, mesh)) strategies.push_back(std::move(ring));
    }
  }
  return strategies;
}

std::string BlockPattern(const std::string& name) {
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string::npos) end = name.size();
    bool digits = end > start && std::all_of(name.begin() + static_cast<std::ptrdiff_t>(start),
                                             name.begin() + static_cast<std::ptrdiff_t>(end),
                                             [](char c) { return c >= '0' && c <= '9'; });
    if (digits) return name.substr(0, start) + "#" + name.substr(end);
    start = end + 1;
  }
  return name;
}

// ---------------------------------------------------------------- the model

StatusOr<AlpaModel> BuildAlpaModel(const pir::Graph& graph, const Mesh& mesh, const AlpaOptions& options) {
  AlpaModel model;
  CostModel costs(mesh, options);
  const size_t num_ops = static_cast<size_t>(graph.num_ops());
  model.rules.reserve(num_ops);
  for (const pir::Op& op : graph.ops()) {
    auto rule = pir::BuildFactorRule(graph, op);
    if (!rule.ok()) return InvalidArgument("op '" + op.name + "': " + rule.status().message());
    model.rules.push_back(std::move(rule).value());
  }

  // Leaders, followers, classes and patterns, in op order.
  model.pattern_of_op.assign(num_ops, -1);
  model.node_of_op.assign(num_ops, -1);
  model.is_follower.assign(num_ops, false);
  std::map<std::string, int> pattern_ids;
  std::vector<int> node_of_pattern;
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::Op& op = graph.op(id);
    const pir::FactorRule& rule = model.rules[static_cast<size_t>(id)];
    const int operand = FollowedOperand(graph, op);
    std::string key = BlockPattern(op.name) + " " + ShapeKey(graph, op);
    pir::OpId producer = pir::kNoOp;
    int result_index = 0;
    if (operand >= 0) {
      producer = graph.value(op.operands[static_cast<size_t>(operand)]).producer;
      const auto& results = graph.op(producer).results;
      result_index = static_cast<int>(
          std::find(results.begin(), results.end(), op.operands[static_cast<size_t>(operand)]) - results.begin());
      key += " | follows " + std::to_string(model.pattern_of_op[static_cast<size_t>(producer)]) + ":" +
             std::to_string(result_index);
    }
    auto [it, inserted] = pattern_ids.emplace(key, static_cast<int>(model.patterns.size()));
    model.pattern_of_op[static_cast<size_t>(id)] = it->second;
    model.is_follower[static_cast<size_t>(id)] = operand >= 0;
    model.followers += operand >= 0;
    if (!inserted) {
      int node = node_of_pattern[static_cast<size_t>(it->second)];
      model.node_of_op[static_cast<size_t>(id)] = node;
      if (operand < 0) ++model.node_members[static_cast<size_t>(node)];
      continue;
    }
    Pattern pattern;
    int node = -1;
    if (operand < 0) {
      pattern.strategies = EnumerateStrategies(op, rule, mesh);
      AZ_CHECK(!pattern.strategies.empty());  // replicated is always valid
      node = static_cast<int>(model.problem.nodes.size());
      AlpaNode n;
      n.name = BlockPattern(op.name);
      model.problem.nodes.push_back(std::move(n));
      model.node_first_op.push_back(id);
      model.node_members.push_back(1);
    } else {
      const Pattern& followed = model.patterns[static_cast<size_t>(model.pattern_of_op[static_cast<size_t>(producer)])];
      for (const auto& produced : followed.produced) {
        pattern.strategies.push_back(Follow(rule, operand, produced[static_cast<size_t>(result_index)], mesh));
      }
      node = model.node_of_op[static_cast<size_t>(producer)];
    }
    PricePattern(graph, op, rule, mesh, costs, pattern);
    if (operand < 0) CapStrategies(pattern, static_cast<size_t>(std::max(1, options.max_strategies)));
    AlpaNode& n = model.problem.nodes[static_cast<size_t>(node)];
    if (operand < 0) {
      n.cost_s.assign(pattern.strategies.size(), 0.0);
      n.stored_bytes.assign(pattern.strategies.size(), 0.0);
      n.activation_bytes.assign(pattern.strategies.size(), 0.0);
      for (const OpSharding& sharding : pattern.strategies) {
        std::vector<int> axis_factor(static_cast<size_t>(mesh.num_axes()), -1);
        for (size_t f = 0; f < sharding.factor_axes.size(); ++f) {
          for (int axis : sharding.factor_axes[f]) axis_factor[static_cast<size_t>(axis)] = static_cast<int>(f);
        }
        n.axis_factor.push_back(std::move(axis_factor));
      }
    }
    model.patterns.push_back(std::move(pattern));
    node_of_pattern.push_back(node);
    model.node_of_op[static_cast<size_t>(id)] = node;
  }

  // Node costs: every op's own cost and working set.
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const Pattern& p = model.patterns[static_cast<size_t>(model.pattern_of_op[static_cast<size_t>(id)])];
    AlpaNode& n = model.problem.nodes[static_cast<size_t>(model.node_of_op[static_cast<size_t>(id)])];
    for (size_t s = 0; s < p.strategies.size(); ++s) {
      n.cost_s[s] += p.own_cost_s[s];
      n.activation_bytes[s] = std::max(n.activation_bytes[s], p.working_set_bytes[s]);
    }
  }

  // A training step (the graph attribute "backward_start", frontend/zoo/
  // train.cc): every forward result the backward reads (remat copies
  // included: they read the values their segment keeps) is held from its
  // forward op to the backward, so all of them are live together where the
  // backward starts, beside the stored leaves. Its producer's node stores it
  // under the strategy's result sharding; the values remat offload keeps in
  // host memory (attribute "offloaded") are not in HBM.
  if (const int64_t backward_start = graph.attrs().GetInt("backward_start").value_or(-1); backward_start > 0) {
    std::vector<bool> kept(static_cast<size_t>(graph.num_values()), false);
    for (pir::OpId id = static_cast<pir::OpId>(backward_start); id < graph.num_ops(); ++id) {
      for (pir::ValueId value : graph.op(id).operands) {
        const pir::OpId producer = graph.value(value).producer;
        if (producer != pir::kNoOp && producer < backward_start) kept[static_cast<size_t>(value)] = true;
      }
    }
    for (int64_t v : graph.attrs().GetInts("offloaded").value_or(std::vector<int64_t>{})) {
      if (v >= 0 && v < graph.num_values()) kept[static_cast<size_t>(v)] = false;
    }
    for (pir::ValueId value = 0; value < graph.num_values(); ++value) {
      if (!kept[static_cast<size_t>(value)]) continue;
      const pir::OpId producer = graph.value(value).producer;
      const auto& results = graph.op(producer).results;
      const size_t r = static_cast<size_t>(std::find(results.begin(), results.end(), value) - results.begin());
      const Pattern& p = model.patterns[static_cast<size_t>(model.pattern_of_op[static_cast<size_t>(producer)])];
      AlpaNode& n = model.problem.nodes[static_cast<size_t>(model.node_of_op[static_cast<size_t>(producer)])];
      for (size_t s = 0; s < p.strategies.size(); ++s) {
        n.stored_bytes[s] += LocalBytes(mesh, graph.type(value), p.produced[s][r]);
      }
    }
  }

  // Edges: producer -> consumer reshardings; leaves from their storer.
  model.leaf_storer.assign(static_cast<size_t>(graph.num_values()), {pir::kNoOp, -1});
  EdgeAccumulator edges(model.problem);
  // (producer pattern, index, consumer pattern, index, from a leaf) -> matrix, shared by the blocks.
  std::map<std::tuple<int, int, int, int, bool>, std::vector<double>> matrix_cache;
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::Op& op = graph.op(id);
    const int consumer_pattern = model.pattern_of_op[static_cast<size_t>(id)];
    const Pattern& consumer = model.patterns[static_cast<size_t>(consumer_pattern)];
    const int v_node = model.node_of_op[static_cast<size_t>(id)];
    for (size_t k = 0; k < op.operands.size(); ++k) {
      const pir::ValueId value = op.operands[k];
      const pir::TensorType& type = graph.type(value);
      pir::OpId source = graph.value(value).producer;
      int source_index = 0;
      const bool leaf = source == pir::kNoOp;
      if (leaf) {
        auto& storer = model.leaf_storer[static_cast<size_t>(value)];
        if (storer.first == pir::kNoOp) {
          storer = {id, static_cast<int>(k)};
          AlpaNode& n = model.problem.nodes[static_cast<size_t>(v_node)];
          for (size_t t = 0; t < consumer.strategies.size(); ++t) {
            n.stored_bytes[t] += LocalBytes(mesh, type, consumer.required[t][k]);
          }
          continue;
        }
        source = storer.first;
        source_index = storer.second;
      } else {
        const auto& results = graph.op(source).results;
        source_index = static_cast<int>(std::find(results.begin(), results.end(), value) - results.begin());
      }
      const int source_pattern = model.pattern_of_op[static_cast<size_t>(source)];
      const Pattern& producer = model.patterns[static_cast<size_t>(source_pattern)];
      auto key = std::make_tuple(source_pattern, source_index, consumer_pattern, static_cast<int>(k), leaf);
      auto cached = matrix_cache.find(key);
      if (cached == matrix_cache.end()) {
        std::vector<double> m;
        m.reserve(producer.strategies.size() * consumer.strategies.size());
        for (size_t s = 0; s < producer.strategies.size(); ++s) {
          const TensorSharding& from = leaf ? producer.required[s][static_cast<size_t>(source_index)]
                                            : producer.produced[s][static_cast<size_t>(source_index)];
          for (size_t t = 0; t < consumer.strategies.size(); ++t) {
            m.push_back(costs.Reshard(type, from, consumer.required[t][k]));
          }
        }
        cached = matrix_cache.emplace(key, std::move(m)).first;
      }
      const std::vector<double>& m = cached->second;
      const size_t cols = consumer.strategies.size();
      edges.Add(model.node_of_op[static_cast<size_t>(source)], v_node,
                [&](int s, int t) { return m[static_cast<size_t>(s) * cols + static_cast<size_t>(t)]; });
    }
  }
  edges.Finish();

  // Graph outputs finish their pending sums.
  for (pir::ValueId value : graph.outputs()) {
    pir::OpId source = graph.value(value).producer;
    if (source == pir::kNoOp) continue;
    const auto& results = graph.op(source).results;
    size_t index = static_cast<size_t>(std::find(results.begin(), results.end(), value) - results.begin());
    const Pattern& p = model.patterns[static_cast<size_t>(model.pattern_of_op[static_cast<size_t>(source)])];
    AlpaNode& n = model.problem.nodes[static_cast<size_t>(model.node_of_op[static_cast<size_t>(source)])];
    for (size_t s = 0; s < p.strategies.size(); ++s) {
      TensorSharding done = p.produced[s][index];
      done.partial.clear();
      n.cost_s[s] += costs.Reshard(graph.type(value), p.produced[s][index], done);
    }
  }
  model.problem.memory_limit_bytes = static_cast<double>(options.memory_limit_bytes);
  for (int axis = 0; axis < mesh.num_axes(); ++axis) model.problem.axis_sizes.push_back(mesh.axis_size(axis));
  return model;
}

}  // namespace az::search::alpa_internal
