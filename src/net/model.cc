#include "net/model.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace az::net {

namespace {

const char* AxisName(int axis) {
  static const char* kNames[] = {"x", "y", "z", "w"};
  return axis >= 0 && axis < 4 ? kNames[axis] : "?";
}

bool HasNvls(const hw::Topology& t) {
  // NVLink SHARP: NVSwitch 3 (Hopper) and later (reference/hardware.md §4.2).
  return t.gpu_nodes > 0 && t.chip.nvls;
}

}  // namespace

CollectiveModel::CollectiveModel(const hw::Topology& topology, Calibration calibration)
    : topology_(topology), calibration_(std::move(calibration)) {
  load_.assign(static_cast<size_t>(topology_.num_channels()), 0.0);
  multicast_mark_.assign(static_cast<size_t>(topology_.num_channels()), -1);
  charge_mark_.assign(static_cast<size_t>(topology_.num_channels()), -1);
  rate_.resize(static_cast<size_t>(topology_.num_channels()));
  for (int ch = 0; ch < topology_.num_channels(); ++ch) {
    const hw::Link& link = topology_.channel_link(ch);
    rate_[static_cast<size_t>(ch)] = link.bw.value() * calibration_.LinkEfficiency(link.cls);
  }
}

bool CollectiveModel::RouteOf(int src, int dst, std::vector<int>& storage, std::span<const int>* route) const {
  if (topology_.CachedRoute(src, dst, route)) return true;
  StatusOr<std::vector<int>> computed = topology_.Route(src, dst);  // a large system: routes are not cached
  if (!computed.ok()) return false;
  storage = std::move(*computed);
  *route = storage;
  return true;
}

void CollectiveModel::AllToAllGroup(double bytes, int group, const std::vector<int>& chips, Phase& phase) const {
  double piece = bytes / static_cast<double>(chips.size());
  for (int a : chips) {
    for (int b : chips) {
      if (a != b) phase.transfers.push_back({a, b, piece, group, false});
    }
  }
}

void CollectiveModel::BroadcastGroup(double bytes, int root, int group, const std::vector<int>& chips,
                                     Phase& phase) const {
  int source = chips[static_cast<size_t>(root) % chips.size()];
  for (int b : chips) {
    if (b != source) phase.transfers.push_back({source, b, bytes, group, false});
  }
}

// A ring over `cycle` in which each member contributes `chunk` bytes: every
// edge carries (s-1) * chunk (all-gather; reduce-scatter moves the same bytes
// the other way round). Bidirectional: half the data each way.
void CollectiveModel::AddRing(const std::vector<int>& cycle, double chunk, bool bidirectional, int group,
                              Phase& phase) const {
  size_t s = cycle.size();
  if (s < 2) return;
  double per_edge = static_cast<double>(s - 1) * chunk;
  if (bidirectional) per_edge /= 2;
  for (size_t i = 0; i < s; ++i) {
    int a = cycle[i], b = cycle[(i + 1) % s];
    bool closure = i + 1 == s;
    phase.transfers.push_back({a, b, per_edge, group, closure});
    if (bidirectional) phase.transfers.push_back({b, a, per_edge, group, closure});
  }
}

bool CollectiveModel::HamiltonianCycle(const std::vector<int>& chips, std::vector<int>* cycle) const {
  size_t n = chips.size();
  if (n < 3 || n > 16) return false;
  std::vector<char> used(n, 0);
  std::vector<int> path{0};
  used[0] = 1;
  int budget = 20000;  // DFS nodes: bounded work on any input
  std::function<bool()> dfs = [&]() -> bool {
    if (--budget < 0) return false;
    if (path.size() == n) return topology_.Hops(chips[path.back()], chips[0]) == 1;
    for (size_t next = 1; next < n; ++next) {
      if (used[next] || topology_.Hops(chips[path.back()], chips[next]) != 1) continue;
      used[next] = 1;
      path.push_back(static_cast<int>(next));
      if (dfs()) return true;
      path.pop_back();
      used[next] = 0;
    }
    return false;
  };
  if (!dfs()) return false;
  cycle->clear();
  for (int index : path) cycle->push_back(chips[index]);
  return true;
}

int CollectiveModel::CompareOffAxis(int a, int b, int axis) const {
  const std::vector<int>& ca = topology_.nodes[static_cast<size_t>(a)].coords;
  const std::vector<int>& cb = topology_.nodes[static_cast<size_t>(b)].coords;
  for (size_t d = 0; d < ca.size() && d < cb.size(); ++d) {
    if (static_cast<int>(d) == axis || ca[d] == cb[d]) continue;
    return ca[d] < cb[d] ? -1 : 1;
  }
  return ca.size() == cb.size() ? 0 : (ca.size() < cb.size() ? -1 : 1);
}

void CollectiveModel::PlanTorusGroup(CollectiveKind kind, double bytes, int group, const std::vector<int>& chips,
                                     Plan& plan, bool notes) {
  size_t n = chips.size();
  if (n < 2) return;
  int rank = static_cast<int>(topology_.dims.size());
  // Coordinate sets per axis.
  std::vector<std::vector<int>>& values = torus_values_;
  values.resize(static_cast<size_t>(rank));
  for (std::vector<int>& v : values) v.clear();
  for (int chip : chips) {
    for (int d = 0; d < rank; ++d) values[d].push_back(topology_.nodes[chip].coords[d]);
  }
  size_t product = 1;
  std::vector<int> axes;
  for (int d = 0; d < rank; ++d) {
    std::sort(values[d].begin(), values[d].end());
    values[d].erase(std::unique(values[d].begin(), values[d].end()), values[d].end());
    product *= values[d].size();
    if (values[d].size() > 1) axes.push_back(d);
  }
  // The all-gather runs phases 0..k-1 (k: 1, or a sub-grid's axes);
  // reduce-scatter is the all-gather run backwards (same loads, reverse
  // order), and an all-reduce the one then the other. Each all-gather phase
  // p lands in the plan's phase k-1-p (reduce-scatter part) and/or p (the
  // all-gather part, after a reduce-scatter's k phases): groups run
  // concurrently, so their transfers merge into the same phases, group after
  // group, and a phase takes the longest steps of its groups.
  const bool reduce = kind == CollectiveKind::kReduceScatter || kind == CollectiveKind::kAllReduce;
  const bool gather = kind == CollectiveKind::kAllGather || kind == CollectiveKind::kAllReduce;
  const size_t k = product == n ? axes.size() : 1;
  const size_t gather_base = reduce ? k : 0;
  if (plan.phases.size() < gather_base + (gather ? k : 0)) plan.phases.resize(gather_base + (gather ? k : 0));
  auto ring = [&](size_t p, const std::vector<int>& cycle, double chunk, int steps) {
    if (reduce) {
      Phase& into = plan.phases[k - 1 - p];
      AddRing(cycle, chunk, /*bidirectional=*/true, group, into);
      into.steps = std::max(into.steps, steps);
    }
    if (gather) {
      Phase& into = plan.phases[gather_base + p];
      AddRing(cycle, chunk, /*bidirectional=*/true, group, into);
      into.steps = std::max(into.steps, steps);
    }
  };
  std::string name;
  if (product == n) {
    // A full sub-grid: per-axis rings, one lane per axis.
    double chunk0 = bytes / static_cast<double>(k * n);
    for (size_t lane = 0; lane < k; ++lane) {
      double chunk = chunk0;
      for (size_t p = 0; p < k; ++p) {
        int axis = axes[(lane + p) % k];
        size_t s = values[axis].size();
        bool wrapped = static_cast<int>(s) == topology_.dims[axis] && topology_.wrap[axis];
        // Latency: a wrapped ring needs ceil((s-1)/2) one-hop steps each way;
        // a line s-1 one-hop steps (data walks the line both ways).
        int steps = wrapped ? static_cast<int>(s) / 2 : static_cast<int>(s) - 1;
        // Lines along `axis`: chips sharing every other coordinate, in the
        // order of those coordinates (lexicographic), each line's members by
        // (coordinate on `axis`, chip id). Sorted in place, no per-line
        // allocation: this runs once per group of every collective a
        // placement search prices.
        line_order_.assign(chips.begin(), chips.end());
        std::sort(line_order_.begin(), line_order_.end(), [&](int a, int b) {
          if (int o = CompareOffAxis(a, b, axis); o != 0) return o < 0;
          const int ca = topology_.nodes[static_cast<size_t>(a)].coords[static_cast<size_t>(axis)];
          const int cb = topology_.nodes[static_cast<size_t>(b)].coords[static_cast<size_t>(axis)];
          return ca != cb ? ca < cb : a < b;
        });
        for (size_t begin = 0; begin < line_order_.size();) {
          size_t end = begin + 1;
          while (end < line_order_.size() && CompareOffAxis(line_order_[begin], line_order_[end], axis) == 0) ++end;
          line_cycle_.assign(line_order_.begin() + static_cast<std::ptrdiff_t>(begin),
                             line_order_.begin() + static_cast<std::ptrdiff_t>(end));
          ring(p, line_cycle_, chunk, steps);
          begin = end;
        }
        chunk *= static_cast<double>(s);
        if (lane == 0) {
          if (!name.empty()) name += " + ";
          name += std::string(wrapped ? "bidirectional ring on " : "line on ") + AxisName(axis) +
                  (wrapped ? " (wraparound)" : " (no wraparound)");
          if (notes && group == 0) {
            plan.notes.push_back(
                std::string("axis ") + AxisName(axis) + ": " + std::to_string(s) + " chips, " +
                (wrapped ? "the whole wrapped axis: 1-hop ring, each link direction carries (s-1)/(2s) of a lane"
                         : "no wraparound: the ring closes back through the line, each link direction carries "
                           "(s-1)/s of a lane, about twice a wrapped ring"));
          }
        }
      }
    }
    if (k > 1) name = "per-axis rings: " + name;
  } else {
    std::vector<int> cycle;
    if (HamiltonianCycle(chips, &cycle)) {
      name = "bidirectional ring over an embedded cycle";
    } else {
      cycle = chips;
      name = "bidirectional ring in group order (multi-hop edges)";
    }
    ring(0, cycle, bytes / static_cast<double>(n), static_cast<int>(n) / 2);
  }
  if (plan.algorithm.empty()) {
    plan.algorithm = name;
  } else if (plan.algorithm != name) {
    plan.algorithm = "mixed";
  }
}

bool CollectiveModel::SameNode(const std::vector<int>& chips) const {
  for (int chip : chips) {
    if (topology_.nodes[chip].coords[0] != topology_.nodes[chips[0]].coords[0]) return false;
  }
  return true;
}

CollectiveResult CollectiveModel::Evaluate(const Plan& plan, bool explain) {
  AlgorithmParams params = calibration_.Algorithm(plan.algorithm);
  CollectiveResult r;
  r.algorithm = plan.algorithm;
  double latency = params.base_latency.value();
  double bandwidth = 0;
  double slowest_phase = -1;
  std::map<int, double> totals;
  std::map<int, std::set<int>> groups_on_channel;  // explain: who shares each link
  for (const Phase& phase : plan.phases) {
    touched_.clear();
    // A step lasts as long as its longest route; a ring's closing edge runs
    // alongside the others (on a line it is the data walking back).
    double route_latency = 0, closure_latency = 0;
    for (const Transfer& t : phase.transfers) {
      if (t.src == t.dst) continue;
      std::span<const int> route;
      if (!RouteOf(t.src, t.dst, route_storage_, &route)) continue;  // Price() rejected unreachable chips before
      double lat = 0;
      for (int ch : route) {
        lat += topology_.channel_link(ch).latency.value();
        if (phase.multicast) {
          if (multicast_mark_[ch] == t.group) continue;
          multicast_mark_[ch] = t.group;
        }
        if (load_[ch] == 0) touched_.push_back(ch);
        load_[ch] += t.bytes;
        if (explain && t.group >= 0) groups_on_channel[ch].insert(t.group);
      }
      if (t.closure) {
        closure_latency = std::max(closure_latency, lat);
      } else {
        route_latency = std::max(route_latency, lat);
      }
    }
    if (route_latency == 0) route_latency = closure_latency;
    if (phase.path_latency >= 0) route_latency = 0;
    double phase_bw = 0;
    int phase_bottleneck = -1;
    for (int ch : touched_) {
      double t = load_[ch] / rate_[ch];
      if (t > phase_bw || (t == phase_bw && ch < phase_bottleneck)) {
        phase_bw = t;
        phase_bottleneck = ch;
      }
      r.max_channel_bytes = std::max(r.max_channel_bytes, load_[ch]);
      if (explain) totals[ch] += load_[ch];
      load_[ch] = 0;
      multicast_mark_[ch] = -1;
    }
    phase_bw /= params.efficiency;
    bandwidth += phase_bw;
    if (phase_bw > slowest_phase) {
      slowest_phase = phase_bw;
      r.bottleneck_channel = phase_bottleneck;
    }
    latency += phase.steps * (params.step_latency.value() + route_latency) + std::max(phase.path_latency, 0.0);
    r.steps += phase.steps;
  }
  latency = std::max(latency, 0.0);  // a fitted base may be negative (fit.h)
  r.latency_time = Seconds(latency);
  r.bandwidth_time = Seconds(bandwidth);
  r.time = Seconds(latency + bandwidth);
  if (explain) {
    r.channel_bytes.assign(totals.begin(), totals.end());
    r.notes = plan.notes;
    int shared = 0;
    std::string example;
    for (const auto& [ch, members] : groups_on_channel) {
      if (members.size() < 2) continue;
      if (shared++ == 0) {
        example = topology_.ChannelName(ch) + " (" + std::to_string(members.size()) + " groups)";
      }
    }
    r.notes.push_back(shared == 0 ? "no link is shared by two groups: no contention between groups"
                                  : std::to_string(shared) + " link directions carry several groups' traffic "
                                    "(contention), e.g. " + example);
    if (r.bottleneck_channel >= 0) {
      const hw::Link& link = topology_.channel_link(r.bottleneck_channel);
      r.notes.push_back("bottleneck " + topology_.ChannelName(r.bottleneck_channel) + ": " +
                        std::string(hw::LinkClassName(link.cls)) + (link.wraparound ? " wraparound" : "") + " link");
    }
  }
  return r;
}

std::vector<CollectiveModel::Plan> CollectiveModel::BuildPlans(const Collective& c,
                                                               const std::vector<std::vector<int>>& groups,
                                                               bool explain) {
  double bytes = static_cast<double>(c.bytes.value());
  switch (c.kind) {
    case CollectiveKind::kAllToAll: {
      Plan plan;
      plan.algorithm = "routed all-to-all";
      Phase phase;
      phase.steps = 1;
      for (size_t gi = 0; gi < groups.size(); ++gi) AllToAllGroup(bytes, static_cast<int>(gi), groups[gi], phase);
      plan.phases.push_back(std::move(phase));
      plan.notes.push_back("every member sends bytes/n to every other member at once; the busiest link bounds it");
      return {plan};
    }
    case CollectiveKind::kBroadcast: {
      // Pipelined: the data crosses each channel of the union of the root's routes once.
      Plan plan;
      plan.algorithm = "pipelined broadcast";
      Phase phase;
      phase.multicast = true;
      phase.steps = 1;  // one pipeline: the latency of the longest route
      for (size_t gi = 0; gi < groups.size(); ++gi) BroadcastGroup(bytes, c.root, static_cast<int>(gi), groups[gi], phase);
      plan.phases.push_back(std::move(phase));
      return {plan};
    }
    default:
      break;
  }
  // all-gather, reduce-scatter, all-reduce
  if (topology_.slices > 1) {  // groups spanning TPU slices (model_multislice.cc)
    if (std::vector<Plan> plans = MultiSlicePlans(c, groups, explain); !plans.empty()) return plans;
  }
  if (!topology_.dims.empty()) {
    Plan plan;
    for (size_t gi = 0; gi < groups.size(); ++gi) PlanTorusGroup(c.kind, bytes, static_cast<int>(gi), groups[gi], plan, explain);
    if (plan.algorithm.empty()) plan.algorithm = "none (single-chip groups)";
    return {plan};
  }
  // GPU systems: candidates priced on the same loads; the cheapest wins.
  bool one_node = true;
  for (const auto& g : groups) one_node = one_node && SameNode(g);
  bool all_reduce = c.kind == CollectiveKind::kAllReduce;
  std::vector<Plan> candidates;
  auto ring_plan = [&](const std::string& name) {
    Plan plan;
    plan.algorithm = name;
    Phase ag;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& g = groups[gi];
      AddRing(g, bytes / static_cast<double>(g.size()), /*bidirectional=*/false, static_cast<int>(gi), ag);
      ag.steps = std::max(ag.steps, static_cast<int>(g.size()) - 1);
    }
    plan.phases.push_back(ag);
    if (all_reduce) plan.phases.push_back(ag);
    return plan;
  };
  // Groups spanning nodes evenly: NCCL's multi-node forms (model_multinode.cc);
  // other groups: rings in group order.
  if (!one_node) AddMultiNodePlans(c, groups, candidates);
  if (candidates.empty()) {
    candidates.push_back(ring_plan("ring-ll"));
    candidates.push_back(ring_plan("ring-ll128"));
    candidates.push_back(ring_plan("ring-simple"));
  }
  if (all_reduce && one_node && HasNvls(topology_)) {
    Plan nvls;
    nvls.algorithm = "nvls";
    Phase phase;
    phase.steps = 1;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      // Each GPU pushes its array into the switch and pulls the reduced one.
      const auto& g = groups[gi];
      for (size_t i = 0; i < g.size(); ++i) {
        phase.transfers.push_back({g[i], g[(i + 1) % g.size()], bytes, static_cast<int>(gi), false});
      }
    }
    nvls.phases.push_back(phase);
    candidates.push_back(nvls);
  }
  return candidates;
}

CollectiveResult CollectiveModel::PriceGroups(const Collective& c, const std::vector<std::vector<int>>& groups,
                                              bool explain) {
  CollectiveResult best;
  best.time = Seconds(std::numeric_limits<double>::infinity());
  std::vector<std::string> notes;
  std::vector<Plan> plans = BuildPlans(c, groups, explain);
  for (const Plan& plan : plans) {
    CollectiveResult r = Evaluate(plan, explain);
    if (explain && plans.size() > 1) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), "candidate %s: %.3f us", plan.algorithm.c_str(), r.time.value() * 1e6);
      notes.push_back(buf);
    }
    if (r.time < best.time) best = std::move(r);
  }
  if (explain) best.notes.insert(best.notes.end(), notes.begin(), notes.end());
  return best;
}

StatusOr<CollectiveResult> CollectiveModel::Price(const Collective& c, const Placement& placement, bool explain) {
  AZ_RETURN_IF_ERROR(ValidatePlacement(placement, topology_.num_chips()));
  if (c.bytes.value() < 0) return InvalidArgument("collective bytes must be >= 0");
  int devices = static_cast<int>(placement.size());
  auto chip_of = [&](int logical) -> StatusOr<int> {
    if (logical < 0 || logical >= devices) {
      return InvalidArgument("logical device " + std::to_string(logical) + " has no chip in the placement (" +
                             std::to_string(devices) + " entries)");
    }
    int chip = placement[logical];
    if (topology_.nodes[chip].failed) return InvalidArgument("logical device " + std::to_string(logical) +
                                                             " is placed on failed chip " + topology_.nodes[chip].name);
    return chip;
  };
  if (c.kind == CollectiveKind::kCollectivePermute) {
    Plan plan;
    plan.algorithm = "routed permute";
    Phase phase;
    phase.steps = 1;
    for (auto [a, b] : c.pairs) {
      AZ_ASSIGN_OR_RETURN(int ca, chip_of(a));
      AZ_ASSIGN_OR_RETURN(int cb, chip_of(b));
      AZ_RETURN_IF_ERROR(topology_.Route(ca, cb).status());
      phase.transfers.push_back({ca, cb, static_cast<double>(c.bytes.value())});
    }
    plan.phases.push_back(std::move(phase));
    return Evaluate(plan, explain);
  }
  AZ_ASSIGN_OR_RETURN(auto groups, PhysicalGroups(c, placement));
  return PriceGroups(c, groups, explain);
}

StatusOr<std::vector<std::vector<int>>> CollectiveModel::PhysicalGroups(const Collective& c,
                                                                       const Placement& placement) const {
  int devices = static_cast<int>(placement.size());
  std::vector<std::vector<int>> groups;
  for (const auto& g : c.groups.groups) {
    std::vector<int> chips;
    for (int logical : g) {
      if (logical < 0 || logical >= devices) {
        return InvalidArgument("logical device " + std::to_string(logical) + " has no chip in the placement (" +
                               std::to_string(devices) + " entries)");
      }
      int chip = placement[logical];
      if (topology_.nodes[chip].failed) {
        return InvalidArgument("logical device " + std::to_string(logical) + " is placed on failed chip " +
                               topology_.nodes[chip].name);
      }
      chips.push_back(chip);
    }
    for (int chip : chips) AZ_RETURN_IF_ERROR(topology_.Route(chips[0], chip).status());
    groups.push_back(std::move(chips));
  }
  if (groups.empty()) return InvalidArgument("a collective needs at least one group");
  return groups;
}

StatusOr<std::vector<CollectiveResult>> CollectiveModel::PriceCandidates(const Collective& c,
                                                                        const Placement& placement) {
  AZ_RETURN_IF_ERROR(ValidatePlacement(placement, topology_.num_chips()));
  if (c.kind == CollectiveKind::kCollectivePermute) {
    AZ_ASSIGN_OR_RETURN(CollectiveResult r, Price(c, placement, false));
    return std::vector<CollectiveResult>{r};
  }
  AZ_ASSIGN_OR_RETURN(auto groups, PhysicalGroups(c, placement));
  std::vector<CollectiveResult> out;
  for (const Plan& plan : BuildPlans(c, groups, /*explain=*/false)) out.push_back(Evaluate(plan, false));
  return out;
}

Seconds CollectiveModel::Time(const Collective& c, const Placement& placement) {
  // The key is canonical where the model is invariant: groups run at once and
  // charge one load table, so their order never matters (sorted); an
  // all-to-all sends between every pair of its members, so the order inside
  // its groups does not matter either (sorted), nor inside a torus group
  // that is a full sub-grid (sorted); a permute's pairs are routed
  // independently (sorted). Ring orders inside other groups do matter.
  key_.clear();
  key_.push_back(static_cast<int64_t>(c.kind));
  key_.push_back(c.bytes.value());
  key_.push_back(c.root);
  if (c.kind == CollectiveKind::kCollectivePermute) {
    pairs_.clear();
    for (auto [a, b] : c.pairs) pairs_.push_back({placement[a], placement[b]});
    std::sort(pairs_.begin(), pairs_.end());
    for (auto [a, b] : pairs_) {
      key_.push_back(a);
      key_.push_back(b);
    }
  } else {
    physical_.resize(c.groups.groups.size());
    spans_slices_ = false;
    for (size_t i = 0; i < c.groups.groups.size(); ++i) {
      physical_[i].clear();
      for (int logical : c.groups.groups[i]) physical_[i].push_back(placement[logical]);
      if (topology_.slices > 1 && !spans_slices_) {
        for (int chip : physical_[i]) spans_slices_ = spans_slices_ || topology_.SliceOf(chip) != topology_.SliceOf(physical_[i][0]);
      }
    }
    // On a torus, a group that is a full sub-grid runs per-axis rings over
    // its coordinate sets (PlanTorusGroup), whatever its member order; not
    // when a group spans TPU slices (model_multislice.cc pairs members by
    // group order).
    const bool rings_on_grids = !topology_.dims.empty() && !spans_slices_ && c.kind != CollectiveKind::kAllToAll &&
                                c.kind != CollectiveKind::kBroadcast;
    for (std::vector<int>& group : physical_) {
      if (c.kind == CollectiveKind::kAllToAll || (rings_on_grids && FullSubGrid(group))) {
        std::sort(group.begin(), group.end());
      }
    }
    std::sort(physical_.begin(), physical_.end());
    for (const auto& g : physical_) {
      key_.push_back(-static_cast<int64_t>(g.size()));
      key_.insert(key_.end(), g.begin(), g.end());
    }
  }
  if (const double* hit = cache_.Find(key_)) return Seconds(*hit);
  double t = 0;
  if (c.kind == CollectiveKind::kCollectivePermute) {
    t = PermuteTime(c, placement);
  } else if (PlannedPerGroup(c) && !physical_.empty()) {
    t = PerGroupTime(c);
  } else {
    t = PriceGroups(c, physical_, false).time.value();
  }
  // Bounded memory over a long search: start afresh past a million entries
  // or 128 MiB of keys (a 1,024-chip key holds ~1,100 values).
  if (cache_.size() >= kMaxCacheEntries || cache_.key_values() >= kMaxCacheKeyValues) cache_.Clear();
  cache_.Insert(key_, t);
  return Seconds(t);
}

bool CollectiveModel::PlannedPerGroup(const Collective& c) const {
  switch (c.kind) {
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kBroadcast:
      return true;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllReduce:
      // PlanTorusGroup; GPU systems and groups spanning TPU slices weigh
      // whole-collective candidates.
      return !topology_.dims.empty() && !spans_slices_;
    case CollectiveKind::kCollectivePermute:
      return false;
  }
  return false;
}

int CollectiveModel::NameIndex(const std::string& name) {
  for (size_t i = 0; i < algorithm_names_.size(); ++i) {
    if (algorithm_names_[i] == name) return static_cast<int>(i);
  }
  algorithm_names_.push_back(name);
  algorithm_params_.push_back(calibration_.Algorithm(name));
  return static_cast<int>(algorithm_names_.size()) - 1;
}

int CollectiveModel::Share(const Collective& c, const std::vector<int>& group) {
  group_key_.clear();
  group_key_.push_back(static_cast<int64_t>(c.kind));
  group_key_.push_back(c.bytes.value());
  group_key_.push_back(c.root);
  group_key_.insert(group_key_.end(), group.begin(), group.end());
  if (const int* hit = share_index_.Find(group_key_)) return *hit;
  // Group id -1: the group's transfers carry no id (none is needed once the
  // group is alone), and PlanTorusGroup writes no notes.
  const double bytes = static_cast<double>(c.bytes.value());
  Plan plan;
  if (c.kind == CollectiveKind::kAllToAll || c.kind == CollectiveKind::kBroadcast) {
    Phase phase;
    phase.steps = 1;
    if (c.kind == CollectiveKind::kAllToAll) {
      plan.algorithm = "routed all-to-all";
      AllToAllGroup(bytes, -1, group, phase);
    } else {
      plan.algorithm = "pipelined broadcast";
      phase.multicast = true;
      BroadcastGroup(bytes, c.root, -1, group, phase);
    }
    plan.phases.push_back(std::move(phase));
  } else {
    PlanTorusGroup(c.kind, bytes, -1, group, plan, /*notes=*/false);
  }
  GroupShare share;
  share.name = plan.algorithm.empty() ? -1 : NameIndex(plan.algorithm);
  share.begin = group_phases_.size();
  for (const Phase& phase : plan.phases) {
    GroupPhase routed;
    routed.steps = phase.steps;
    routed.begin = group_charges_.size();
    ++charge_stamp_;
    for (const Transfer& t : phase.transfers) {
      if (t.src == t.dst) continue;
      std::span<const int> route;
      if (!RouteOf(t.src, t.dst, route_storage_, &route)) continue;
      double lat = 0;
      for (int ch : route) {
        lat += topology_.channel_link(ch).latency.value();
        if (phase.multicast) {  // a group charges a channel once
          if (charge_mark_[ch] == charge_stamp_) continue;
          charge_mark_[ch] = charge_stamp_;
        }
        group_charges_.push_back({ch, t.bytes});
      }
      double& longest = t.closure ? routed.closure_latency : routed.route_latency;
      longest = std::max(longest, lat);
    }
    routed.end = group_charges_.size();
    group_phases_.push_back(routed);
  }
  share.end = group_phases_.size();
  shares_.push_back(share);
  const int index = static_cast<int>(shares_.size()) - 1;
  share_index_.Insert(group_key_, index);
  return index;
}

double CollectiveModel::PerGroupTime(const Collective& c) {
  // Bounded memory over a long search: start afresh, before any share of
  // this collective is looked up.
  if (shares_.size() >= kMaxCacheEntries || group_charges_.size() >= kMaxGroupCharges) {
    share_index_.Clear();
    shares_.clear();
    group_phases_.clear();
    group_charges_.clear();
  }
  group_shares_.clear();
  int name = -1;
  bool mixed = false;
  size_t phases = 0;
  for (const std::vector<int>& group : physical_) {
    const int index = Share(c, group);
    group_shares_.push_back(index);
    const GroupShare& share = shares_[static_cast<size_t>(index)];
    if (share.name >= 0) {
      if (name < 0) name = share.name;
      mixed = mixed || share.name != name;
    }
    phases = std::max(phases, share.end - share.begin);
  }
  // As BuildPlans names the merged plan.
  if (mixed) name = NameIndex("mixed");
  if (name < 0) name = NameIndex("none (single-chip groups)");
  const AlgorithmParams& params = algorithm_params_[static_cast<size_t>(name)];
  double latency = params.base_latency.value();
  double bandwidth = 0;
  for (size_t p = 0; p < phases; ++p) {
    touched_.clear();
    int steps = 0;
    double route_latency = 0, closure_latency = 0;
    for (int index : group_shares_) {
      const GroupShare& share = shares_[static_cast<size_t>(index)];
      if (share.begin + p >= share.end) continue;
      const GroupPhase& phase = group_phases_[share.begin + p];
      steps = std::max(steps, phase.steps);
      route_latency = std::max(route_latency, phase.route_latency);
      closure_latency = std::max(closure_latency, phase.closure_latency);
      for (size_t i = phase.begin; i < phase.end; ++i) {
        const auto [ch, bytes] = group_charges_[i];
        if (load_[static_cast<size_t>(ch)] == 0) touched_.push_back(ch);
        load_[static_cast<size_t>(ch)] += bytes;
      }
    }
    if (route_latency == 0) route_latency = closure_latency;

    double phase_bw = 0;
    for (int ch : touched_) {
      phase_bw = std::max(phase_bw, load_[static_cast<size_t>(ch)] / rate_[static_cast<size_t>(ch)]);
      load_[static_cast<size_t>(ch)] = 0;
    }
    bandwidth += phase_bw / params.efficiency;
    latency += steps * (params.step_latency.value() + route_latency);
  }
  latency = std::max(latency, 0.0);
  return latency + bandwidth;
}

bool CollectiveModel::FullSubGrid(const std::vector<int>& chips) {
  const size_t rank = topology_.dims.size();
  if (coordinate_seen_.size() != rank) {
    coordinate_seen_.assign(rank, {});
    for (size_t d = 0; d < rank; ++d) coordinate_seen_[d].assign(static_cast<size_t>(topology_.dims[d]), -1);
  }
  ++coordinate_stamp_;
  size_t product = 1;
  for (size_t d = 0; d < rank; ++d) {
    size_t distinct = 0;
    std::vector<int64_t>& seen = coordinate_seen_[d];
    for (int chip : chips) {
      const int value = topology_.nodes[static_cast<size_t>(chip)].coords[d];
      if (seen[static_cast<size_t>(value)] != coordinate_stamp_) {
        seen[static_cast<size_t>(value)] = coordinate_stamp_;
        ++distinct;
      }
    }
    product *= distinct;
  }
  return product == chips.size();
}

double CollectiveModel::PermuteTime(const Collective& c, const Placement& placement) {
  // Price's plan without its validation (Time's caller validated the
  // placement): every pair routed, one phase.
  Plan plan;
  plan.algorithm = "routed permute";
  Phase phase;
  phase.steps = 1;
  phase.transfers.reserve(c.pairs.size());
  for (auto [a, b] : c.pairs) {
    const int ca = placement[static_cast<size_t>(a)], cb = placement[static_cast<size_t>(b)];
    std::span<const int> route;
    if (!RouteOf(ca, cb, route_storage_, &route)) return std::numeric_limits<double>::infinity();
    phase.transfers.push_back({ca, cb, static_cast<double>(c.bytes.value())});
  }
  plan.phases.push_back(std::move(phase));
  return Evaluate(plan, false).time.value();
}

}  // namespace az::net
