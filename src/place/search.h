// Placement search: which physical chip runs each logical rank of one compiled
// program (evidence), priced by the step simulator (price/simulator.h).
//
// The problem is plain data: a permutation of chips, and one function that
// prices it (Simulator::Latency). Solvers, all checked against each other:
//
//   default      JAX's create_device_mesh order for the program's mesh
//                (default_placement.h): what every baseline runs with.
//   structured   the recipes of candidates.h (axis-to-dimension maps, snake
//                orders, JAX orders per axis order), every one priced (or an
//                even sample of them: max_structured).
//   exhaustive   every logical->physical map, when the slice has at most
//                `exhaustive_max_chips` chips and the program uses them all
//                (8 chips: 40,320 maps). Symmetry reduction: a map and its
//                image under a topology automorphism (symmetry.h) price the
//                same, so only the lexicographically smallest map of each
//                orbit is priced; on a single NVSwitch node every map is
//                equivalent and one is priced. The result is the true optimum
//                (and the true worst), the ground truth for the others.
//   annealing    local search for every size: moves swap the chips of two
//                logical ranks (or move a rank to an unused chip), accepted by
//                the Metropolis rule at a temperature cooling geometrically
//                from `initial_temperature` x the start's latency to 1/1000 of
//                that; the first restart starts from the best structured
//                candidate, the others from random maps; each restart ends
//                with a swap descent (every single move tried until none
//                helps) when devices x chips <= 4,096. Incremental pricing:
//                a move re-prices only the collective classes that involve
//                one of the moved ranks, and the collective model's cache is
//                keyed by the physical groups, so a group set seen before
//                costs a lookup.
//
// Deterministic for a given seed: the random source is a fixed 64-bit
// generator (SplitMix64) with integer arithmetic for draws, independent of the
// standard library's distributions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/collective.h"
#include "place/candidates.h"
#include "price/simulator.h"

namespace az::place {

struct PlaceOptions {
  uint64_t seed = 1;
  // Exhaustive search up to this many chips (0 = never).
  int exhaustive_max_chips = 8;
  bool annealing = true;
  int restarts = 4;
  // At most this many structured candidates priced (0 = all): when there are
  // more, every k-th of them in their deterministic order (k = ceil(n /
  // max)), the first included. A 1,024-chip v5p slice with a 3-axis mesh has
  // ~17,000 of them at ~1.5 ms each; the planner's quick search per survivor
  // samples them, the winner's longer search prices them all.
  int max_structured = 0;
  // Moves per restart; 0 = automatic (2,000 x devices, at least 20,000).
  int64_t moves = 0;
  double initial_temperature = 0.01;
};

struct PlaceResult {
  net::Placement best;
  double best_latency = 0;
  std::string best_method;  // "exhaustive", "structured: snake(x,y) rank(sp)", "annealing (restart 2)"
  net::Placement default_placement;
  double default_latency = 0;
  std::string default_method;  // "jax create_device_mesh" or why another default was used
  net::Placement worst;
  double worst_latency = 0;    // the worst map seen (exhaustive: the true worst)
  std::vector<std::pair<Candidate, double>> structured;  // every structured candidate and its latency
  bool exhaustive = false;
  int64_t maps_total = 0;      // exhaustive: n! maps
  int64_t maps_priced = 0;     // exhaustive: orbit representatives priced
  int symmetry_group = 1;      // automorphisms used for the reduction
  int64_t evaluations = 0;     // latency evaluations over all solvers
};

// `mesh_shape` is the program's logical mesh (evidence.mesh parsed), used by the
// default placement and the structured candidates; its product must equal the
// evidence's device count.
StatusOr<PlaceResult> SearchPlacement(price::Simulator& sim, const std::vector<int64_t>& mesh_shape,
                                      const std::vector<std::string>& axis_names, const PlaceOptions& options);

// Annealing alone from a given start (the v5e:4x4 convergence benchmark and
// tests use it): returns the best map found and its latency.
std::pair<net::Placement, double> Anneal(price::Simulator& sim, const net::Placement& start, uint64_t seed,
                                         int64_t moves, double initial_temperature, int64_t* evaluations);

// The default placement for a program's mesh on a topology: JAX's
// create_device_mesh (make_mesh semantics) when the mesh covers the slice
// (device-id order, with the reason in `method`, when it cannot map the mesh
// without splitting physical axes), else the first chips in id order.
StatusOr<net::Placement> DefaultPlacementFor(const hw::Topology& topology, const std::vector<int64_t>& mesh_shape,
                                             std::string* method);

}  // namespace az::place
