// The default placement: where JAX puts each logical device of a mesh today.
//
// Every baseline (and the "before" column of every report) runs on this
// placement, so it reimplements JAX's mesh_utils.create_device_mesh and
// jax.make_mesh exactly (reference/hardware.md §3, JAX cec06d1), including
// choices that look odd. A placement maps logical id -> chip id, where the
// logical id is the row-major position in `mesh_shape` (XLA's partition id,
// §3.6), so placement[k] is the k-th element of JAX's `mesh.devices.flat`.
//
// Mesh axes are ordered by increasing network intensity: the last axis is the
// most communication-heavy and is placed first. Decision order (§3.1):
//
//  1. GPU systems (and graphs without a torus shape): devices sorted by id,
//     reshaped row-major -> the identity placement. JAX knows nothing of
//     NVLink, NICs or rails here; xDiT's rank order gives the same.
//  2. Device-kind ring orders (§3.2), on the "coordinate order" (sorted by
//     (z, y, x)), which is our chip-id order. Logical k gets chip sequence[k]
//     whatever the mesh shape:
//       v5e/v6e, bounds 2x2, 4 chips           (0,1,3,2)
//       v5e/v6e, 8 chips, bounds not 2x2x2     (0,1,2,3,7,6,5,4)
//       v5e/v6e, bounds 4x4, 16 chips, max(mesh_shape) == 16
//                                              (0,1,2,3,7,6,5,9,10,11,15,14,13,12,8,4)
//       v5p, bounds 2x2x2, 8 chips             (0,1,3,2,6,7,5,4)
//     The v5e "bounds 2x2x2" iota order cannot occur: v5e/v6e slices are 2D.
//     Note the 8-chip order was written for a 4x2 host (row y=0 left to right,
//     row y=1 back); "v5e:2x4" here has X = 2, Y = 4 (dims {2, 4}), where the
//     same sequence is not a ring: 1 -> 2, 3 -> 7, 6 -> 5 and 4 -> 0 are
//     two hops. JAX applies it regardless, and so do we.
//  3. Generic axis matching (§3.3) on the physical mesh (X, Y, Z), always
//     three axes (a 2D slice has Z = 1): for each logical axis, last first,
//     the first subset of still-available physical axes, largest subsets
//     first and lexicographic within a size, whose product is the axis size.
//  4. If that fails and splitting is allowed, the split fallback (§3.4),
//     restarted from scratch; otherwise an error.
//
// Both 3 and 4 end in one assignment matrix A[p][j] (how much of physical axis
// p logical axis j gets; the product over j is the axis length) and one
// readout: physical coordinate c_p is the mixed-radix number of digits
// (d_{p,0}, ..., d_{p,k-1}) with radices A[p][0..k-1], major to minor (so the
// more intense axes own the minor digits: neighbouring chips); the index along
// logical axis j is the mixed-radix number (d_{0,j}, d_{1,j}, d_{2,j}), lower
// physical axis major. In the whole-axis case each A[p][.] has one entry > 1,
// which is exactly §3.3's transpose-and-reshape.
//
// Worked examples (the tests derive each):
//   v5e:16x16, mesh (16,16): axis 1 = x (with the size-1 z), axis 0 = y: the
//     identity.
//   v4:4x4x4, mesh (4,16): axis 1 = (x major, y minor), axis 0 = z; logical 1
//     is chip 4 = (0,1,0).
//   v4:2x2x2, mesh (8): one axis over (x, y, z), x the major digit, so the
//     order is z fastest: (0,4,2,6,1,5,3,7), not the chip-id order.
//   v5e:16x16, mesh (8,32): 32 is no product of whole axes; split: axis 1 =
//     all of x times the minor 2 of y, axis 0 = the major 8 of y; logical 1
//     is chip 16 = (0,1), logical 2 is chip 1 = (1,0).
//   v5e:4x4, mesh (2,2,4): the ring order declines (max 4 != 16); split:
//     axis 2 = x, axis 1 = minor 2 of y, axis 0 = major 2 of y: the identity.
//
// Failed chips are ignored: the placement covers every chip id, as JAX's
// device list does before anything fails.
//
// Multi-slice TPU systems (hw/topology.h, "CHIP:SHAPE*N"): jax.make_mesh and
// create_device_mesh refuse devices of several slices; JAX builds their mesh
// with mesh_utils.create_hybrid_device_mesh(mesh_shape, dcn_mesh_shape)
// (reference/hardware.md §3.5; JAX mesh_utils.py): the devices grouped into
// granules by slice_index (ascending), create_device_mesh(mesh_shape) inside
// each granule, and the granules tiled row-major over dcn_mesh_shape, so the
// result has shape mesh_shape x dcn_mesh_shape elementwise and along each
// axis index = dcn index x ici size + ici index (DCN the major digit). The
// default placement of a multi-slice system is that hybrid mesh with the DCN
// factors on the outermost (least intense) axes that the slice count divides,
// as MaxDiffusion's default dcn_data_parallelism = -1 puts every slice on its
// first mesh axis; the placement search prices every other assignment
// (candidates.h). Worked example (the tests derive it): v5e:2x2*2, mesh
// (2, 4) with dcn (2, 1): ici (1, 4); slice 0's create_device_mesh([1,4]) is
// the 2x2 ring order (0,1,3,2); logical ranks 0..3 (row 0) -> chips
// 0,1,3,2 and ranks 4..7 (row 1) -> chips 4,5,7,6 of slice 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/topology.h"
#include "net/collective.h"
#include "support/status.h"

namespace az::place {

// How a default placement was decided (for reports).
enum class MeshMethod {
  kDeviceOrder,   // GPUs and other platforms: device ids row-major (identity)
  kRingOrder,     // a device-kind special case (§3.2)
  kWholeAxes,     // generic axis matching (§3.3)
  kSplitAxes,     // the split fallback (§3.4)
};
const char* MeshMethodName(MeshMethod method);

struct DeviceMesh {
  net::Placement placement;  // logical id (row-major in mesh_shape) -> chip id
  MeshMethod method = MeshMethod::kDeviceOrder;
  // kRingOrder: the chip sequence applied.
  std::vector<int> ring_order;
  // kWholeAxes / kSplitAxes: the physical mesh (X, Y, Z) and A[p][j], the part
  // of physical axis p given to logical axis j.
  std::vector<int64_t> physical_shape;
  std::vector<std::vector<int64_t>> assignment;
};

// JAX's mesh_utils.create_device_mesh(mesh_shape, devices of `t`,
// allow_split_physical_axes=...). Errors: an empty shape, a size below 1, a
// product that differs from the chip count, a TPU mesh that needs split axes
// when splitting is off.
StatusOr<net::Placement> CreateDeviceMesh(const hw::Topology& t, const std::vector<int64_t>& mesh_shape,
                                          bool allow_split_physical_axes);
// The same, with how it was decided.
StatusOr<DeviceMesh> CreateDeviceMeshExplained(const hw::Topology& t, const std::vector<int64_t>& mesh_shape,
                                               bool allow_split_physical_axes);

// jax.make_mesh: create_device_mesh with allow_split_physical_axes on only for
// v5e ("TPU v5 lite"); v6e and every other chip get it off.
StatusOr<net::Placement> DefaultPlacement(const hw::Topology& t, const std::vector<int64_t>& mesh_shape);
bool MakeMeshAllowsSplit(const hw::Topology& t);

// One line for reports: "mesh [8,32] on v5e:16x16 (physical 16x16x1), split
// axes: axis 0 = y/8; axis 1 = x, y/2" (a/n: n of axis a's length; where one
// physical axis is split, the earlier logical axis holds its major digits).
std::string DescribeDeviceMesh(const hw::Topology& t, const std::vector<int64_t>& mesh_shape, const DeviceMesh& mesh);

// mesh_utils.create_hybrid_device_mesh(ici_shape, dcn_shape) over the first
// prod(dcn_shape) slices of `t` (the whole system when that is its slice
// count). Errors: ranks that differ, a dcn product above the slice count,
// an ici product other than the chips of a slice, a slice mesh
// create_device_mesh refuses.
StatusOr<net::Placement> CreateHybridDeviceMesh(const hw::Topology& t, const std::vector<int64_t>& ici_shape,
                                                const std::vector<int64_t>& dcn_shape, bool allow_split_physical_axes);
// The hybrid tiling alone: `local` places the ici mesh on one slice's chips
// (local ids); granule g (row-major over dcn) runs it on slice g.
net::Placement TileHybrid(const net::Placement& local, const std::vector<int64_t>& ici_shape,
                          const std::vector<int64_t>& dcn_shape, int slice_chips);
// The default's DCN factors for `mesh_shape` over `slices` slices: handed
// out outermost axis first (each axis takes the largest divisor of its size
// that divides what is left). Error when the axes cannot absorb them all.
StatusOr<std::vector<int64_t>> DefaultDcnShape(const std::vector<int64_t>& mesh_shape, int slices);
// One slice of a multi-slice system as create_device_mesh sees a granule: its
// chip, dims and wrap flags, slice_chips() chips, no links (placement only).
hw::Topology SliceView(const hw::Topology& t);

// How a placement spreads a mesh over scale-out domains: TPU slices (joined
// by DCN) or GPU nodes (joined by their NICs). Per mesh axis, `outer` = the
// most domains one line of the axis crosses, `inner` = size / outer (the
// part that stays inside a domain). `hybrid`: the placement has
// create_hybrid_device_mesh's structure for (inner, outer): every outer
// divides its size, prod(outer) is the number of domains used, and the
// domain of each rank is the row-major index of (position / inner) over
// outer, domains counted in ascending order.
struct DomainSplit {
  int domains = 1;  // domains the placement uses
  std::vector<int64_t> outer, inner;
  bool hybrid = false;
};
// Each chip's domain: its slice on a multi-slice system, its node on a
// multi-node GPU system, else 0.
std::vector<int> ChipDomains(const hw::Topology& t);
DomainSplit SplitOverDomains(const std::vector<int>& domain_of_chip, const std::vector<int64_t>& mesh_shape,
                             const net::Placement& placement);

// One step of the split fallback, exposed for tests: among the factor vectors
// z (one factor per physical axis, product `size`, each z_p dividing
// physical_shape[p] / used[p]) the one JAX's comparator prefers (§3.4 step 2):
// (a) larger product of whole axes taken, (b) more whole axes of size > 1,
// (c) larger product on axes already used by more intense logical axes (the
// code prefers overlap, although its comment claims the opposite), (d)
// lexicographically larger. `used[p]` is the product of what more intense
// axes took of p. Precondition: such a z exists.
std::vector<int64_t> PickSplitFactors(const std::vector<int64_t>& physical_shape, const std::vector<int64_t>& used,
                                      int64_t size);

}  // namespace az::place
