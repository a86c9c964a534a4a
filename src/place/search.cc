#include "place/search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "place/default_placement.h"
#include "place/symmetry.h"

namespace az::place {

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a fixed generator, so a seed gives the
// same sequence on every platform.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) by multiply-shift (Lemire), n >= 1.
  int Below(int n) {
    return static_cast<int>((static_cast<unsigned __int128>(Next()) * static_cast<uint64_t>(n)) >> 64);
  }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// Fisher-Yates with Random: a uniformly random map of `devices` ranks onto
// live chips (the first `devices` of a shuffled list of them).
net::Placement RandomPlacement(int devices, const hw::Topology& topology, Random& random) {
  std::vector<int> all;
  for (int c = 0; c < topology.num_chips(); ++c) {
    if (!topology.nodes[static_cast<size_t>(c)].failed) all.push_back(c);
  }
  for (size_t i = all.size(); i-- > 1;) std::swap(all[i], all[static_cast<size_t>(random.Below(static_cast<int>(i) + 1))]);
  all.resize(std::min(all.size(), static_cast<size_t>(devices)));
  return all;
}

// True when no automorphism maps p to a lexicographically smaller map.
bool Canonical(const net::Placement& p, const std::vector<std::vector<int>>& group) {
  for (const std::vector<int>& sigma : group) {
    for (size_t i = 0; i < p.size(); ++i) {
      int image = sigma[static_cast<size_t>(p[i])];
      if (image < p[i]) return false;
      if (image > p[i]) break;
    }
  }
  return true;
}

// Local search state: a map, its inverse, and the time of every collective
// class under it; a move re-prices only the classes of the moved ranks.
class Annealer {
 public:
  explicit Annealer(price::Simulator& sim) : sim_(sim) {
    const int devices = sim.num_devices();
    device_classes_.resize(static_cast<size_t>(devices));
    for (int c = 0; c < sim.num_classes(); ++c) {
      for (int d : sim.class_devices(c)) device_classes_[static_cast<size_t>(d)].push_back(c);
    }
    times_.resize(static_cast<size_t>(sim.num_classes()));
    saved_.resize(times_.size());
    mark_.assign(times_.size(), -1);
    for (int c = 0; c < sim.topology().num_chips(); ++c) {
      if (!sim.topology().nodes[static_cast<size_t>(c)].failed) usable_.push_back(c);
    }
  }

  // Annealing from `start`, then a swap descent from the best map found.
  // Tracks the worst map evaluated in *worst / *worst_map.
  std::pair<net::Placement, double> Run(const net::Placement& start, uint64_t seed, int64_t moves,
                                        double initial_temperature, int64_t* evaluations, double* worst,
                                        net::Placement* worst_map) {
    Random random(seed);
    const int devices = sim_.num_devices();
    Reset(start);
    double current = sim_.Replay(times_.data());
    ++*evaluations;
    Track(current, worst, worst_map);
    net::Placement best = p_;
    double best_latency = current;
    if (devices >= 1 && static_cast<int>(usable_.size()) >= 2) {
      const double t0 = initial_temperature * current;
      const double cooling = moves > 1 ? std::pow(1e-3, 1.0 / static_cast<double>(moves - 1)) : 1.0;
      double temperature = t0;
      for (int64_t move = 0; move < moves; ++move, temperature *= cooling) {
        int a = random.Below(devices);
        int chip = usable_[static_cast<size_t>(random.Below(static_cast<int>(usable_.size())))];
        if (chip == p_[static_cast<size_t>(a)]) continue;
        double next = Apply(a, chip);
        ++*evaluations;
        Track(next, worst, worst_map);
        double delta = next - current;
        if (delta <= 0 || (temperature > 0 && random.Unit() < std::exp(-delta / temperature))) {
          current = next;
          if (current < best_latency) {
            best_latency = current;
            best = p_;
          }
        } else {
          Undo();
        }
      }
    }
    // Swap descent (first improvement) until no single move helps, when the
    // neighbourhood is small enough to scan.
    if (static_cast<int64_t>(devices) * static_cast<int64_t>(usable_.size()) <= kMaxDescentNeighbourhood) {
      Reset(best);
      current = best_latency;
      bool improved = true;
      while (improved) {
        improved = false;
        for (int a = 0; a < devices; ++a) {
          for (int chip : usable_) {
            if (chip == p_[static_cast<size_t>(a)]) continue;
            double next = Apply(a, chip);
            ++*evaluations;
            Track(next, worst, worst_map);
            if (next < current * (1 - 1e-12)) {
              current = next;
              improved = true;
            } else {
              Undo();
            }
          }
        }
      }
      if (current < best_latency) {
        best_latency = current;
        best = p_;
      }
    }
    return {best, best_latency};
  }

  static constexpr int64_t kMaxDescentNeighbourhood = 4096;

 private:
  void Reset(const net::Placement& p) {
    p_ = p;
    owner_.assign(static_cast<size_t>(sim_.topology().num_chips()), -1);
    for (size_t d = 0; d < p_.size(); ++d) owner_[static_cast<size_t>(p_[d])] = static_cast<int>(d);
    for (int c = 0; c < sim_.num_classes(); ++c) times_[static_cast<size_t>(c)] = sim_.ClassTime(c, p_);
  }

  void Track(double latency, double* worst, net::Placement* worst_map) const {
    if (latency > *worst) {
      *worst = latency;
      *worst_map = p_;
    }
  }

  // Moves rank a to `chip` (swapping with its owner, if any) and returns the
  // new latency; Undo() reverts the last Apply.
  double Apply(int a, int chip) {
    ++stamp_;
    last_a_ = a;
    last_chip_ = chip;
    last_from_ = p_[static_cast<size_t>(a)];
    last_b_ = owner_[static_cast<size_t>(chip)];
    p_[static_cast<size_t>(a)] = chip;
    owner_[static_cast<size_t>(chip)] = a;
    owner_[static_cast<size_t>(last_from_)] = last_b_;
    if (last_b_ >= 0) p_[static_cast<size_t>(last_b_)] = last_from_;
    touched_.clear();
    for (int d : {a, last_b_}) {
      if (d < 0) continue;
      for (int c : device_classes_[static_cast<size_t>(d)]) {
        if (mark_[static_cast<size_t>(c)] == stamp_) continue;
        mark_[static_cast<size_t>(c)] = stamp_;
        touched_.push_back(c);
      }
    }
    for (int c : touched_) {
      saved_[static_cast<size_t>(c)] = times_[static_cast<size_t>(c)];
      times_[static_cast<size_t>(c)] = sim_.ClassTime(c, p_);
    }
    return sim_.Replay(times_.data());
  }

  void Undo() {
    for (int c : touched_) times_[static_cast<size_t>(c)] = saved_[static_cast<size_t>(c)];
    p_[static_cast<size_t>(last_a_)] = last_from_;
    owner_[static_cast<size_t>(last_from_)] = last_a_;
    owner_[static_cast<size_t>(last_chip_)] = last_b_;
    if (last_b_ >= 0) p_[static_cast<size_t>(last_b_)] = last_chip_;
  }

  price::Simulator& sim_;
  std::vector<std::vector<int>> device_classes_;
  std::vector<int> usable_;  // live chips
  std::vector<double> times_, saved_;
  std::vector<int64_t> mark_;
  int64_t stamp_ = 0;
  net::Placement p_;
  std::vector<int> owner_;  // chip -> logical rank, -1 when unused
  std::vector<int> touched_;
  int last_a_ = -1, last_b_ = -1, last_chip_ = -1, last_from_ = -1;
};

}  // namespace

StatusOr<net::Placement> DefaultPlacementFor(const hw::Topology& topology, const std::vector<int64_t>& mesh_shape,
                                             std::string* method) {
  int64_t devices = 1;
  for (int64_t s : mesh_shape) devices *= s;
  if (devices == topology.num_chips()) {
    *method = topology.dims.empty() ? "device-id order (JAX on GPUs; xDiT rank order)"
              : topology.slices > 1 ? "jax create_hybrid_device_mesh"
                                    : "jax create_device_mesh";
    auto placement = DefaultPlacement(topology, mesh_shape);
    if (placement.ok() || topology.dims.empty()) return placement;
    // create_device_mesh refuses meshes it cannot lay on the torus without
    // splitting physical axes; a user then passes jax.devices() in id order.
    *method = "device-id order (jax create_device_mesh cannot map this mesh: " + placement.status().message() + ")";
    net::Placement p(static_cast<size_t>(devices));
    std::iota(p.begin(), p.end(), 0);
    return p;
  }
  if (devices > topology.num_chips() || devices < 1) {
    return InvalidArgument("a mesh of " + std::to_string(devices) + " devices does not fit topology '" +
                           topology.name + "' (" + std::to_string(topology.num_chips()) + " chips)");
  }
  *method = "the first " + std::to_string(devices) + " chips in id order (the mesh is smaller than the slice)";
  net::Placement p(static_cast<size_t>(devices));
  std::iota(p.begin(), p.end(), 0);
  return p;
}

std::pair<net::Placement, double> Anneal(price::Simulator& sim, const net::Placement& start, uint64_t seed,
                                         int64_t moves, double initial_temperature, int64_t* evaluations) {
  Annealer annealer(sim);
  double worst = -1;
  net::Placement worst_map;
  int64_t local = 0;
  auto result = annealer.Run(start, seed, moves, initial_temperature, evaluations ? evaluations : &local, &worst,
                             &worst_map);
  return result;
}

StatusOr<PlaceResult> SearchPlacement(price::Simulator& sim, const std::vector<int64_t>& mesh_shape,
                                      const std::vector<std::string>& axis_names, const PlaceOptions& options) {
  const hw::Topology& topology = sim.topology();
  int64_t devices = 1;
  for (int64_t s : mesh_shape) devices *= s;
  if (devices != sim.num_devices()) {
    return InvalidArgument("mesh of " + std::to_string(devices) + " devices for a program of " +
                           std::to_string(sim.num_devices()));
  }
  PlaceResult result;
  result.worst_latency = -1;
  auto track_worst = [&](const net::Placement& p, double latency) {
    if (latency > result.worst_latency) {
      result.worst_latency = latency;
      result.worst = p;
    }
  };

  // Default.
  AZ_ASSIGN_OR_RETURN(result.default_placement, DefaultPlacementFor(topology, mesh_shape, &result.default_method));
  AZ_RETURN_IF_ERROR(sim.CheckPlacement(result.default_placement));
  result.default_latency = sim.Latency(result.default_placement);
  ++result.evaluations;
  result.best = result.default_placement;
  result.best_latency = result.default_latency;
  result.best_method = "default (" + result.default_method + ")";
  track_worst(result.default_placement, result.default_latency);

  // Structured.
  std::vector<Candidate> structured = StructuredCandidates(topology, mesh_shape, axis_names);
  const size_t stride = options.max_structured > 0 && structured.size() > static_cast<size_t>(options.max_structured)
                            ? (structured.size() + static_cast<size_t>(options.max_structured) - 1) /
                                  static_cast<size_t>(options.max_structured)
                            : 1;
  for (size_t i = 0; i < structured.size(); i += stride) {
    Candidate& candidate = structured[i];
    if (!sim.CheckPlacement(candidate.placement).ok()) continue;  // a failed chip
    double latency = sim.Latency(candidate.placement);
    ++result.evaluations;
    track_worst(candidate.placement, latency);
    if (latency < result.best_latency) {
      result.best = candidate.placement;
      result.best_latency = latency;
      result.best_method = "structured: " + candidate.name;
    }
    result.structured.push_back({std::move(candidate), latency});
  }

  // Exhaustive.
  const int chips = topology.num_chips();
  if (options.exhaustive_max_chips > 0 && chips <= options.exhaustive_max_chips && devices == chips) {
    Symmetry symmetry = FindSymmetry(topology);
    result.exhaustive = true;
    result.maps_total = 1;
    for (int i = 2; i <= chips; ++i) result.maps_total *= i;
    net::Placement p(static_cast<size_t>(chips));
    std::iota(p.begin(), p.end(), 0);
    auto price = [&](const net::Placement& map) {
      if (!sim.CheckPlacement(map).ok()) return;  // a failed chip
      double latency = sim.Latency(map);
      ++result.evaluations;
      ++result.maps_priced;
      track_worst(map, latency);
      if (latency < result.best_latency) {
        result.best = map;
        result.best_latency = latency;
        result.best_method = "exhaustive";
      }
    };
    if (symmetry.all_permutations) {
      // Every map is an automorphism image of every other: one price.
      result.symmetry_group = static_cast<int>(std::min<int64_t>(result.maps_total, INT32_MAX));
      price(p);
    } else {
      result.symmetry_group = static_cast<int>(symmetry.automorphisms.size());
      do {
        if (Canonical(p, symmetry.automorphisms)) price(p);
      } while (std::next_permutation(p.begin(), p.end()));
    }
  }

  // Annealing.
  if (options.annealing && !result.exhaustive) {
    Annealer annealer(sim);
    Random seeds(options.seed);
    int64_t moves = options.moves > 0 ? options.moves : std::max<int64_t>(20000, 2000 * devices);
    net::Placement structured_best = result.best;
    for (int restart = 0; restart < std::max(1, options.restarts); ++restart) {
      net::Placement start = restart == 0 ? structured_best
                                          : RandomPlacement(static_cast<int>(devices), topology, seeds);
      if (!sim.CheckPlacement(start).ok()) start = structured_best;
      double worst = result.worst_latency;
      net::Placement worst_map;
      auto [best, latency] = annealer.Run(start, seeds.Next(), moves, options.initial_temperature,
                                          &result.evaluations, &worst, &worst_map);
      if (worst > result.worst_latency) {
        result.worst_latency = worst;
        result.worst = worst_map;
      }
      if (latency < result.best_latency) {
        result.best = best;
        result.best_latency = latency;
        result.best_method = "annealing (restart " + std::to_string(restart + 1) + ")";
      }
    }
  }
  return result;
}

}  // namespace az::place
