// Structured placement candidates: the orders an engineer would try by hand,
// for any slice size.
//
// A candidate is a chip *sequence* (the order in which ranks fill the chips)
// combined with a *rank order* of the mesh (which mesh axis varies fastest
// along the sequence). Sequences:
//   - coordinate orders: every order of the physical axes (the fastest first),
//     so a mesh axis can land on any physical dimension or on a sub-block of
//     consecutive chips along one;
//   - snake orders: the same with every other row reversed (boustrophedon), so
//     consecutive ranks stay neighbours across row ends (a ring without wrap);
//   - GPU systems: device-id order (NVSwitch nodes are symmetric inside).
// Rank orders: every permutation of the mesh axes (the first listed axis is the
// slowest). Placement: logical id -> its rank under the order -> the chip at
// that position of the sequence.
// Plus JAX's create_device_mesh order for every permutation of the mesh axes
// (default_placement.h), which tries its own physical-axis matching.
//
// Multi-slice TPU systems (hw/topology.h): hybrid candidates, as
// create_hybrid_device_mesh lays them out. For every assignment of the slice
// count to the mesh axes (dcn_j dividing axis j's size, prod(dcn_j) = the
// slices the mesh fills), every candidate above for the per-slice mesh
// (size_j / dcn_j) on one slice, tiled over the slices (default_placement.h:
// TileHybrid), named "hybrid dcn(cfg=2) <per-slice recipe>". So the search
// prices which axis crosses DCN. A mesh that fits in one slice gets the
// slice's candidates on slice 0; one that fills no whole number of slices
// the id order.
//
// Duplicates (the same placement from different recipes) are dropped; the
// first recipe's name is kept. Deterministic order.
#pragma once

#include <string>
#include <vector>

#include "hw/topology.h"
#include "net/collective.h"

namespace az::place {

struct Candidate {
  std::string name;  // "coord(x,y) rank(sp,tp)", "snake(y,x) rank(tp,sp)", "jax rank(tp,sp)"
  net::Placement placement;
};

// Candidates placing a mesh of `mesh_shape` (axis names for the labels) onto the
// first prod(mesh_shape) positions of each sequence. The mesh may be smaller
// than the topology (then each sequence's prefix is used).
std::vector<Candidate> StructuredCandidates(const hw::Topology& topology, const std::vector<int64_t>& mesh_shape,
                                            const std::vector<std::string>& axis_names);

}  // namespace az::place
