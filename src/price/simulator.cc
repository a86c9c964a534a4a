#include "price/simulator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "hw/chip.h"

namespace az::price {

namespace {

std::string GroupsText(const net::Collective& c) {
  if (c.kind == net::CollectiveKind::kCollectivePermute) {
    std::string out = "{";
    for (size_t i = 0; i < c.pairs.size(); ++i) {
      out += (i ? ",{" : "{") + std::to_string(c.pairs[i].first) + "," + std::to_string(c.pairs[i].second) + "}";
    }
    return out + "}";
  }
  std::string iota = net::FormatIotaReplicaGroups(c.groups);
  return iota.empty() ? net::FormatReplicaGroups(c.groups) : iota;
}

}  // namespace

bool IsHostReload(const evidence::ComputeSegment& segment) {
  return segment.kind == cir::KernelKind::kCopy && segment.name.find(".host-reload") != std::string::npos;
}

Simulator::Simulator(const evidence::Evidence& evidence, const hw::Topology& topology, net::Calibration network,
                     ComputeModel compute)
    : evidence_(evidence), topology_(topology), network_(topology, std::move(network)), compute_(std::move(compute)) {}

StatusOr<Simulator> Simulator::Create(const evidence::Evidence& evidence, const hw::Topology& topology,
                                      net::Calibration network, ComputeCalibration compute) {
  if (evidence.num_devices > topology.num_chips()) {
    return InvalidArgument("the evidence is a program for " + std::to_string(evidence.num_devices) +
                           " devices, but topology '" + topology.name + "' has " +
                           std::to_string(topology.num_chips()) + " chips");
  }
  AZ_RETURN_IF_ERROR(evidence::Validate(evidence));
  AZ_ASSIGN_OR_RETURN(ComputeModel model, ComputeModel::Create(topology.chip, std::move(compute)));
  Simulator sim(evidence, topology, std::move(network), std::move(model));
  sim.Build();
  return sim;
}

void Simulator::Build() {
  segment_time_.reserve(evidence_.segments.size());
  double before_reload = 0;  // compute ahead of the first host reload: the forward
  bool reloading = false;
  for (const evidence::ComputeSegment& s : evidence_.segments) {
    segment_time_.push_back(compute_.Time(s).time.value());
    compute_total_ += segment_time_.back();
    if (IsHostReload(s)) {
      reloading = true;
      host_bytes_ += s.bytes.value();
    }
    if (!reloading) before_reload += segment_time_.back();
  }
  if (host_bytes_ > 0) {
    host_time_ = static_cast<double>(host_bytes_) / hw::HostLinkBandwidth(topology_.chip).value();
    host_exposed_ = std::max(0.0, host_time_ - before_reload) + std::max(0.0, host_time_ - (compute_total_ - before_reload));
  }
  // Classes: identical (kind, bytes, groups, pairs).
  using Key = std::tuple<int, int64_t, std::vector<std::vector<int>>, std::vector<std::pair<int, int>>>;
  std::map<Key, int> class_of;
  collective_class_.reserve(evidence_.collectives.size());
  // Number classes in order of first issue (schedule order), so reports list
  // them as the step meets them.
  std::vector<int> order;
  for (const evidence::Event& ev : evidence_.schedule) {
    if (ev.type == evidence::EventType::kStart || ev.type == evidence::EventType::kBlocking) order.push_back(ev.index);
  }
  collective_class_.assign(evidence_.collectives.size(), -1);
  for (int index : order) {
    const evidence::CollectiveRecord& r = evidence_.collectives[static_cast<size_t>(index)];
    Key key{static_cast<int>(r.kind), r.bytes.value(), r.groups.groups, r.pairs};
    auto [it, inserted] = class_of.emplace(key, static_cast<int>(classes_.size()));
    if (inserted) {
      Class c;
      c.collective.kind = r.kind;
      c.collective.bytes = r.bytes;
      c.collective.groups = r.groups;
      c.collective.pairs = r.pairs;
      for (const auto& g : r.groups.groups) c.devices.insert(c.devices.end(), g.begin(), g.end());
      for (auto [a, b] : r.pairs) {
        c.devices.push_back(a);
        c.devices.push_back(b);
      }
      std::sort(c.devices.begin(), c.devices.end());
      c.devices.erase(std::unique(c.devices.begin(), c.devices.end()), c.devices.end());
      classes_.push_back(std::move(c));
    }
    collective_class_[static_cast<size_t>(index)] = it->second;
    ++classes_[static_cast<size_t>(it->second)].count;
  }
  // Fold the schedule.
  std::vector<int> slot_of(evidence_.collectives.size(), -1);
  for (const evidence::Event& ev : evidence_.schedule) {
    switch (ev.type) {
      case evidence::EventType::kCompute: {
        double t = segment_time_[static_cast<size_t>(ev.index)];
        if (!ops_.empty() && ops_.back().type == Op::kCompute) {
          ops_.back().duration += t;
        } else {
          ops_.push_back({Op::kCompute, -1, -1, t});
        }
        break;
      }
      case evidence::EventType::kStart:
        slot_of[static_cast<size_t>(ev.index)] = slots_;
        ops_.push_back({Op::kStart, collective_class_[static_cast<size_t>(ev.index)], slots_++, 0});
        break;
      case evidence::EventType::kDone:
        ops_.push_back({Op::kDone, collective_class_[static_cast<size_t>(ev.index)],
                        slot_of[static_cast<size_t>(ev.index)], 0});
        break;
      case evidence::EventType::kBlocking:
        ops_.push_back({Op::kBlocking, collective_class_[static_cast<size_t>(ev.index)], -1, 0});
        break;
    }
  }
  // Fold start(c), compute(d), done(c) -> overlap(c, d), and start(c), done(c)
  // -> blocking(c): the same arithmetic in one op.
  std::vector<Op> folded;
  folded.reserve(ops_.size());
  for (size_t i = 0; i < ops_.size(); ++i) {
    const Op& op = ops_[i];
    if (op.type == Op::kStart && i + 2 < ops_.size() && ops_[i + 1].type == Op::kCompute &&
        ops_[i + 2].type == Op::kDone && ops_[i + 2].slot == op.slot) {
      folded.push_back({Op::kOverlap, op.cls, -1, ops_[i + 1].duration});
      i += 2;
    } else if (op.type == Op::kStart && i + 1 < ops_.size() && ops_[i + 1].type == Op::kDone &&
               ops_[i + 1].slot == op.slot) {
      folded.push_back({Op::kBlocking, op.cls, -1, 0});
      i += 1;
    } else {
      folded.push_back(op);
    }
  }
  ops_ = std::move(folded);
  BuildRuns();
  class_time_.assign(classes_.size(), 0);
  slot_end_.assign(static_cast<size_t>(slots_), 0);
}

Status Simulator::CheckPlacement(const net::Placement& placement) const {
  if (static_cast<int64_t>(placement.size()) != evidence_.num_devices) {
    return InvalidArgument("the placement maps " + std::to_string(placement.size()) +
                           " logical devices, but the evidence is a program for " +
                           std::to_string(evidence_.num_devices));
  }
  AZ_RETURN_IF_ERROR(net::ValidatePlacement(placement, topology_.num_chips()));
  for (size_t i = 0; i < placement.size(); ++i) {
    if (topology_.nodes[static_cast<size_t>(placement[i])].failed) {
      return InvalidArgument("the placement maps logical " + std::to_string(i) + " to chip " +
                             std::to_string(placement[i]) + ", which has failed");
    }
  }
  return Status::Ok();
}

double Simulator::ClassTime(int c, const net::Placement& placement) {
  return network_.Time(classes_[static_cast<size_t>(c)].collective, placement).value();
}

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool Linear(uint8_t type) { return type != 1 /*kStart*/ && type != 2 /*kDone*/; }

// The two engines of simulator.h, in one place for the replay and the
// detailed simulation: the compute clock, and when the communication engine
// is next free. A collective issued now starts when that engine is free and
// holds it for its time; waiting for one moves the compute clock to its end.
struct Engines {
  double clock = 0;
  double comm_free = 0;
  // Returns the collective's start.
  double Issue(double time) {
    double start = std::max(clock, comm_free);
    comm_free = start + time;
    return start;
  }
  void Wait(double end) { clock = std::max(clock, end); }
};

// A 2x2 max-plus matrix over (clock, comm_free): out_i = max_j (m[i][j] + in_j).
struct MaxPlus {
  double m[2][2] = {{0, kNegInf}, {kNegInf, 0}};  // the identity
};

// left (x) right: apply `right` first, then `left`.
MaxPlus Compose(const MaxPlus& left, const MaxPlus& right) {
  MaxPlus out;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) out.m[i][j] = std::max(left.m[i][0] + right.m[0][j], left.m[i][1] + right.m[1][j]);
  }
  return out;
}

}  // namespace

void Simulator::BuildRuns() {
  const int n = static_cast<int>(ops_.size());
  auto same = [&](int a, int b) {
    const Op &x = ops_[static_cast<size_t>(a)], &y = ops_[static_cast<size_t>(b)];
    return x.type == y.type && x.cls == y.cls && x.slot == y.slot && x.duration == y.duration;
  };
  // Longest repeated body tried at each position; blocks of the zoo's DiTs
  // fold to a few dozen ops.
  constexpr int kMaxBody = 256;
  runs_.clear();
  int plain_begin = 0;
  auto flush_plain = [&](int end) {
    if (end > plain_begin) runs_.push_back({plain_begin, end - plain_begin, 1});
  };
  int i = 0;
  while (i < n) {
    int best_length = 0, best_repeats = 1;
    int64_t best_saved = 0;
    for (int length = 1; length <= kMaxBody && i + 2 * length <= n; ++length) {
      if (!same(i, i + length)) continue;
      // The body must be linear and repeat at least twice.
      bool ok = true;
      for (int k = 0; k < length && ok; ++k) ok = Linear(ops_[static_cast<size_t>(i + k)].type) && same(i + k, i + length + k);
      if (!ok) continue;
      int repeats = 2;
      while (i + (repeats + 1) * length <= n) {
        bool match = true;
        for (int k = 0; k < length && match; ++k) match = same(i + k, i + repeats * length + k);
        if (!match) break;
        ++repeats;
      }
      int64_t saved = static_cast<int64_t>(length) * (repeats - 1);
      if (saved > best_saved) {
        best_saved = saved;
        best_length = length;
        best_repeats = repeats;
      }
    }
    // Worth a matrix only when it replaces clearly more ops than it costs
    // (composing a body costs about two replays of it).
    if (best_repeats >= 3) {
      flush_plain(i);
      runs_.push_back({i, best_length, best_repeats});
      i += best_length * best_repeats;
      plain_begin = i;
    } else {
      ++i;
    }
  }
  flush_plain(n);
}

double Simulator::Replay(const double* class_times) const {
  Engines e;
  for (const Run& run : runs_) {
    const Op* begin = ops_.data() + run.begin;
    const Op* end = begin + run.length;
    if (run.repeats > 1) {
      MaxPlus body;
      for (const Op* op = begin; op != end; ++op) {
        MaxPlus a;
        switch (op->type) {
          case Op::kCompute:
            a.m[0][0] = op->duration;
            break;
          case Op::kBlocking: {
            double t = class_times[op->cls];
            a.m[0][0] = a.m[0][1] = a.m[1][0] = a.m[1][1] = t;
            break;
          }
          case Op::kOverlap: {
            double t = class_times[op->cls];
            a.m[0][0] = std::max(op->duration, t);
            a.m[0][1] = a.m[1][0] = a.m[1][1] = t;
            break;
          }
          default:
            AZ_CHECK_MSG(false, "a repeated body holds only linear ops");
        }
        body = Compose(a, body);
      }
      for (int r = 0; r < run.repeats; ++r) {
        double c = std::max(body.m[0][0] + e.clock, body.m[0][1] + e.comm_free);
        double f = std::max(body.m[1][0] + e.clock, body.m[1][1] + e.comm_free);
        e.clock = c;
        e.comm_free = f;
      }
      continue;
    }
    for (const Op* op = begin; op != end; ++op) {
      switch (op->type) {
        case Op::kCompute:
          e.clock += op->duration;
          break;
        case Op::kStart:
          e.Issue(class_times[op->cls]);
          slot_end_[static_cast<size_t>(op->slot)] = e.comm_free;
          break;
        case Op::kDone:
          e.Wait(slot_end_[static_cast<size_t>(op->slot)]);
          break;
        case Op::kBlocking:
          e.Issue(class_times[op->cls]);
          e.Wait(e.comm_free);
          break;
        case Op::kOverlap:
          e.Issue(class_times[op->cls]);
          e.clock += op->duration;
          e.Wait(e.comm_free);
          break;
      }
    }
  }
  return e.clock + host_exposed_;
}

double Simulator::Latency(const net::Placement& placement) {
  for (size_t c = 0; c < classes_.size(); ++c) class_time_[c] = ClassTime(static_cast<int>(c), placement);
  return Replay(class_time_.data());
}

StatusOr<SimResult> Simulator::Simulate(const net::Placement& placement, bool timeline) {
  AZ_RETURN_IF_ERROR(CheckPlacement(placement));
  SimResult result;
  std::vector<double> channel_bytes(static_cast<size_t>(topology_.num_channels()), 0);
  result.classes.resize(classes_.size());
  for (size_t c = 0; c < classes_.size(); ++c) {
    AZ_ASSIGN_OR_RETURN(net::CollectiveResult r, network_.Price(classes_[c].collective, placement, /*explain=*/true));
    class_time_[c] = r.time.value();
    ClassCost& cost = result.classes[c];
    cost.kind = std::string(net::CollectiveKindName(classes_[c].collective.kind));
    cost.bytes = classes_[c].collective.bytes;
    cost.groups = GroupsText(classes_[c].collective);
    cost.algorithm = r.algorithm;
    cost.count = classes_[c].count;
    cost.time = r.time;
    for (auto [channel, bytes] : r.channel_bytes) {
      channel_bytes[static_cast<size_t>(channel)] += bytes * classes_[c].count;
    }
  }
  for (int channel = 0; channel < topology_.num_channels(); ++channel) {
    double bytes = channel_bytes[static_cast<size_t>(channel)];
    if (bytes <= 0) continue;
    const hw::Link& link = topology_.channel_link(channel);
    double rate = link.bw.value() * network_.calibration().LinkEfficiency(link.cls);
    result.links.push_back({channel, topology_.ChannelName(channel), bytes, Seconds(rate > 0 ? bytes / rate : 0)});
  }
  // Replay the evidence event by event (not the folded ops) for the timeline
  // and the exposed time of every collective.
  Engines e;
  std::vector<double> end_of(evidence_.collectives.size(), 0);
  auto collective_slice = [&](int index, double start, double duration) {
    const evidence::CollectiveRecord& r = evidence_.collectives[static_cast<size_t>(index)];
    const ClassCost& cost = result.classes[static_cast<size_t>(collective_class_[static_cast<size_t>(index)])];
    Slice s;
    s.engine = Slice::kCommunication;
    s.name = r.name;
    s.kind = cost.kind;
    s.start = Seconds(start);
    s.duration = Seconds(duration);
    s.bytes = r.bytes;
    s.groups = cost.groups;
    s.algorithm = cost.algorithm;
    return s;
  };
  std::vector<size_t> slice_of(evidence_.collectives.size(), 0);
  for (const evidence::Event& ev : evidence_.schedule) {
    size_t index = static_cast<size_t>(ev.index);
    switch (ev.type) {
      case evidence::EventType::kCompute: {
        double t = segment_time_[index];
        if (timeline) {
          const evidence::ComputeSegment& seg = evidence_.segments[index];
          Slice s;
          s.engine = Slice::kCompute;
          s.name = seg.name;
          s.kind = std::string(cir::KernelKindName(seg.kind));
          s.start = Seconds(e.clock);
          s.duration = Seconds(t);
          s.flops = seg.flops;
          s.bytes = seg.bytes;
          result.slices.push_back(std::move(s));
        }
        e.clock += t;
        ++result.kernels;
        break;
      }
      case evidence::EventType::kStart:
      case evidence::EventType::kBlocking: {
        double t = class_time_[static_cast<size_t>(collective_class_[index])];
        double start = e.Issue(t);
        end_of[index] = e.comm_free;
        result.communication += Seconds(t);
        ++result.collectives;
        if (timeline) {
          slice_of[index] = result.slices.size();
          result.slices.push_back(collective_slice(ev.index, start, t));
        }
        if (ev.type == evidence::EventType::kBlocking) {
          double waited = e.comm_free - e.clock;
          result.classes[static_cast<size_t>(collective_class_[index])].exposed += Seconds(waited);
          if (timeline) result.slices[slice_of[index]].exposed = Seconds(waited);
          e.Wait(e.comm_free);
        }
        break;
      }
      case evidence::EventType::kDone: {
        double waited = std::max(0.0, end_of[index] - e.clock);
        result.classes[static_cast<size_t>(collective_class_[index])].exposed += Seconds(waited);
        if (timeline) result.slices[slice_of[index]].exposed = Seconds(waited);
        e.Wait(end_of[index]);
        break;
      }
    }
  }
  result.latency = Seconds(e.clock + host_exposed_);
  result.compute = Seconds(compute_total_);
  result.exposed_communication = Seconds(std::max(0.0, e.clock - compute_total_));
  result.host_transfer = Seconds(host_time_);
  result.host_exposed = Seconds(host_exposed_);
  return result;
}

}  // namespace az::price
