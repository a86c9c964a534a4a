// Symmetries of a routed topology, for symmetry reduction in placement search.
//
// An exhaustive placement search need only price one placement per orbit: if
// s is an automorphism of the priced model, placement p (logical i -> chip
// p[i]) and s∘p (logical i -> chip s(p[i])) cost the same, because every
// transfer of s∘p crosses exactly the images of the channels that p's transfer
// crossed, and those have the same bandwidth and latency.
//
// What counts as an automorphism. A permutation s of the chips (switch nodes
// follow along) such that
//   1. links map to links: for every link (a, b) there is a link (s(a), s(b))
//      of the same class, bandwidth, latency and failed state, one-to-one;
//      nodes keep their kind and failed state;
//   2. routes map to routes: for every chip pair, the image of Route(a, b),
//      channel by channel, is Route(s(a), s(b)) (and a pair is unreachable
//      exactly when its image is).
// Condition 2 is what makes this stricter than a graph automorphism: tori
// route in dimension order (x, then y, then z) with ties on an even wrapped
// ring broken toward +. So
//   * swapping two equal axes is never an automorphism: (0,0) -> (1,1) goes
//     through (1,0), its image would go through (0,1), but the route of the
//     image pair still goes x first through (1,0);
//   * reflecting a wrapped even ring is not one either: 0 -> L/2 goes up
//     through 1, its mirror would go down through L-1, but the route from 0 to
//     L/2 still goes up;
//   * rotations of a wrapped axis and reflections of an unwrapped axis are.
// Link `axis` and `wraparound` flags need not match: a rotation carries the
// wrap link onto an ordinary one of the same bandwidth and latency.
//
// Search. Candidate generators: per torus axis of length > 1 its reflection,
// plus its rotation by one when it wraps, plus the swap of every two axes of
// equal length and wrap; for GPU nodes x GPUs systems, the swap of local GPUs
// i and i+1 in every node alike (a rail permutation) and the swap of nodes m
// and m+1. Those that pass IsAutomorphism generate the group, closed by
// breadth-first composition. The result is therefore a subgroup of the full
// automorphism group (exactly it for the catalog's tori and GPU systems, by
// the argument above; a custom topology gets only the identity unless it has
// a torus or GPU-node shape).
//
// Catalog counts (derived in symmetry_test.cc):
//   v5e/v6e 2x2 .. 8x8 (no wraps)        4   (x and y reflections)
//   v5e/v6e 8x16 (y wraps)              32   (x reflection, 16 y rotations)
//   v5e/v6e 16x16                      256   (16 x 16 rotations)
//   v4/v5p 2x2x2, 2x2x4, 2x4x4 (no wraps) 8   (three reflections; 2x2x1: 4)
//   v4/v5p 4x4x4 and larger (wrapped)  X*Y*Z (rotations only)
//   one GPU node                       all permutations (one switch)
//   M nodes x G GPUs (rails)           M! * G! (node swaps x rail permutations)
//
// Failures break symmetry as they should: a failed link must map to a failed
// link, a failed chip to a failed chip, and rerouted paths (breadth-first
// around the failure) must map onto each other.
//
// Cost: IsAutomorphism walks every chip pair's route once, O(chips^2 * route
// length), using the topology's route cache when it has one (up to 512 chips).
#pragma once

#include <cstddef>
#include <vector>

#include "hw/topology.h"
#include "net/collective.h"

namespace az::place {

struct Symmetry {
  // Chip permutations, sorted lexicographically and free of duplicates, so the
  // identity is first. With all_permutations, only the identity.
  std::vector<std::vector<int>> automorphisms;
  // The candidate generators that passed, in candidate order (with
  // all_permutations: the adjacent transpositions).
  std::vector<std::vector<int>> generators;
  // Every permutation of the chips is an automorphism (one switch joins all
  // chips): callers treat every placement as equivalent.
  bool all_permutations = false;
  // The group has more than `limit` elements: `automorphisms` holds the first
  // `limit` found breadth-first from the identity (all valid automorphisms,
  // not a subgroup); `generators` still generate the whole group.
  bool truncated = false;
};

Symmetry FindSymmetry(const hw::Topology& t, size_t limit = 4096);

// Whether `chip_permutation` (chip c -> chip_permutation[c]) is an
// automorphism in the sense above. False for anything that is not a
// permutation of 0..num_chips-1. Conservative on exotic custom graphs
// (parallel identical links or switches joined only by links no route uses):
// it may reject a true automorphism there, never accept a false one.
bool IsAutomorphism(const hw::Topology& t, const std::vector<int>& chip_permutation);

// s∘p: logical i -> chip s[p[i]].
net::Placement ApplyAutomorphism(const std::vector<int>& automorphism, const net::Placement& placement);

// The lexicographically smallest image of `placement` under the symmetry's
// automorphisms: equal for two placements in one orbit (when not truncated),
// so a search can skip a placement whose canonical form it has priced. With
// all_permutations: 0, 1, ..., n-1.
net::Placement CanonicalPlacement(const Symmetry& symmetry, const net::Placement& placement);

}  // namespace az::place
