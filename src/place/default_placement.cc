// JAX's default mesh placement (see default_placement.h for the rules and
// reference/hardware.md §3 for their source).
//
// Invariant: every path ends in a permutation of the chips; the readout is
// shared by the whole-axis and the split paths, so both agree by construction
// on what an assignment matrix means.
#include "place/default_placement.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

namespace az::place {
namespace {

// JAX's physical TPU mesh always has three axes (x, y, z): a 2D slice is (X, Y, 1).
constexpr size_t kPhysicalRank = 3;

// JAX's ring orders (mesh_utils.py): a chip sequence in coordinate order.
constexpr int kTray2x2RingOrder[] = {0, 1, 3, 2};
constexpr int kV5eTrayRingOrder[] = {0, 1, 2, 3, 7, 6, 5, 4};
constexpr int kV5eTrayIotaOrder[] = {0, 4, 2, 6, 1, 5, 3, 7};
constexpr int kTray4x4RingOrder[] = {0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4};
constexpr int kV5p2x2x2Order[] = {0, 1, 3, 2, 6, 7, 5, 4};

using Assignment = std::vector<std::vector<int64_t>>;  // [physical axis][logical axis]

std::string FormatShape(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string FormatDims(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "x" : "") + std::to_string(shape[i]);
  return out;
}

bool IsTorus(const hw::Topology& t) { return !t.dims.empty() && t.chip.family == hw::ChipFamily::kTpu; }

std::vector<int64_t> PhysicalShape(const hw::Topology& t) {
  std::vector<int64_t> shape(t.dims.begin(), t.dims.end());
  shape.resize(kPhysicalRank, 1);
  return shape;
}

// §3.2. JAX's handlers read "bounds" from the lexicographically largest
// coordinate; on a full cuboid from the origin that is the shape itself.
std::optional<std::vector<int>> DeviceKindOrder(const hw::Topology& t, const std::vector<int64_t>& physical,
                                                const std::vector<int64_t>& mesh_shape) {
  auto as_vector = [](const auto& order) { return std::vector<int>(std::begin(order), std::end(order)); };
  int64_t bx = physical[0], by = physical[1], bz = physical[2];
  int count = t.num_chips();
  const hw::JaxDeviceOrder kind = t.chip.jax_device_order;  // JAX's device_kind dispatch (hw/chip.h)
  if (kind == hw::JaxDeviceOrder::kTpuTrays) {
    if (bx == 2 && by == 2 && bz == 1 && count == 4) return as_vector(kTray2x2RingOrder);
    if (count == 8) {
      // Unreachable for the catalog's 2D v5e/v6e slices; kept for custom 3D ones.
      if (bx == 2 && by == 2 && bz == 2) return as_vector(kV5eTrayIotaOrder);
      return as_vector(kV5eTrayRingOrder);
    }
    if (bx == 4 && by == 4 && bz == 1 && count == 16 &&
        *std::max_element(mesh_shape.begin(), mesh_shape.end()) == count) {
      // JAX: "Only uses ring order if the whole mesh is a replica group."
      return as_vector(kTray4x4RingOrder);
    }
    return std::nullopt;
  }
  if (kind == hw::JaxDeviceOrder::kTpuV5p && bx == 2 && by == 2 && bz == 2 && count == 8) {
    return as_vector(kV5p2x2x2Order);
  }
  // TPU v4 (not v4 lite) has no handler.
  return std::nullopt;
}

// The shared readout (§3.3 step 4, §3.4 step 3): see the header.
net::Placement ReadOut(const std::vector<int64_t>& physical, const std::vector<int64_t>& mesh_shape,
                       const Assignment& assignment) {
  size_t logical_rank = mesh_shape.size();
  int64_t count = physical[0] * physical[1] * physical[2];
  net::Placement placement(static_cast<size_t>(count));
  std::vector<int64_t> index(logical_rank);
  std::vector<std::vector<int64_t>> digit(kPhysicalRank, std::vector<int64_t>(logical_rank, 0));
  for (int64_t logical = 0; logical < count; ++logical) {
    int64_t rest = logical;
    for (size_t j = logical_rank; j-- > 0;) {
      index[j] = rest % mesh_shape[j];
      rest /= mesh_shape[j];
    }
    for (size_t j = 0; j < logical_rank; ++j) {
      int64_t along = index[j];
      for (size_t p = kPhysicalRank; p-- > 0;) {
        digit[p][j] = along % assignment[p][j];
        along /= assignment[p][j];
      }
    }
    int64_t chip = 0;
    for (size_t p = kPhysicalRank; p-- > 0;) {
      int64_t coord = 0;
      for (size_t j = 0; j < logical_rank; ++j) coord = coord * assignment[p][j] + digit[p][j];
      chip = chip * physical[p] + coord;
    }
    placement[static_cast<size_t>(logical)] = static_cast<int>(chip);
  }
  return placement;
}

// §3.3 step 3. On failure returns the logical axis that found no subset and
// fills `remaining` with JAX's view of the still-assignable axes (taken ones 0).
std::optional<Assignment> MatchWholeAxes(const std::vector<int64_t>& physical, const std::vector<int64_t>& mesh_shape,
                                         size_t* failed_axis, std::vector<int64_t>* remaining) {
  std::vector<int64_t> available = physical;
  Assignment assignment(kPhysicalRank, std::vector<int64_t>(mesh_shape.size(), 1));
  for (size_t j = mesh_shape.size(); j-- > 0;) {
    bool found = false;
    for (size_t n = kPhysicalRank; n >= 1 && !found; --n) {
      // n-subsets of {0, 1, 2} in lexicographic order, as itertools.combinations.
      std::vector<size_t> subset(n);
      for (size_t i = 0; i < n; ++i) subset[i] = i;
      while (true) {
        int64_t product = 1;
        for (size_t p : subset) product *= available[p];
        if (product == mesh_shape[j]) {
          for (size_t p : subset) {
            assignment[p][j] = physical[p];
            available[p] = 0;
          }
          found = true;
          break;
        }
        // Next combination.
        size_t i = n;
        while (i > 0 && subset[i - 1] == kPhysicalRank - n + i - 1) --i;
        if (i == 0) break;
        ++subset[i - 1];
        for (size_t k = i; k < n; ++k) subset[k] = subset[k - 1] + 1;
      }
    }
    // A size-1 axis that matches nothing is simply left out (JAX does the same).
    if (!found && mesh_shape[j] > 1) {
      *failed_axis = j;
      *remaining = available;
      return std::nullopt;
    }
  }
  return assignment;
}

// Prime factors with multiplicity: 12 -> {2: 2, 3: 1}.
std::map<int64_t, int> PrimeFactors(int64_t x) {
  std::map<int64_t, int> factors;
  for (int64_t p = 2; p * p <= x; ++p) {
    while (x % p == 0) {
      ++factors[p];
      x /= p;
    }
  }
  if (x > 1) ++factors[x];
  return factors;
}

int Multiplicity(int64_t x, int64_t prime) {
  int m = 0;
  while (x % prime == 0) {
    x /= prime;
    ++m;
  }
  return m;
}

// JAX's _prefer_first_logical_axis_assignment: true when x beats y.
bool PreferFirst(const std::vector<int64_t>& x, const std::vector<int64_t>& y, const std::vector<int64_t>& physical,
                 const std::vector<int64_t>& used) {
  auto whole_size = [&](const std::vector<int64_t>& z) {
    int64_t product = 1;
    for (size_t p = 0; p < z.size(); ++p) product *= z[p] == physical[p] ? z[p] : 1;
    return product;
  };
  auto whole_count = [&](const std::vector<int64_t>& z) {
    int n = 0;
    for (size_t p = 0; p < z.size(); ++p) n += z[p] == physical[p] && z[p] > 1;
    return n;
  };
  // (c): the product on axes more intense logical axes already use. JAX's
  // variable is called "non_overlapping" but measures the overlap, and larger
  // wins; we follow the code.
  auto overlap = [&](const std::vector<int64_t>& z) {
    int64_t product = 1;
    for (size_t p = 0; p < z.size(); ++p) product *= used[p] > 1 ? z[p] : 1;
    return product;
  };
  if (whole_size(x) != whole_size(y)) return whole_size(x) > whole_size(y);
  if (whole_count(x) != whole_count(y)) return whole_count(x) > whole_count(y);
  if (overlap(x) != overlap(y)) return overlap(x) > overlap(y);
  return x > y;
}

// §3.4 for the whole mesh.
Assignment SplitAxes(const std::vector<int64_t>& physical, const std::vector<int64_t>& mesh_shape) {
  Assignment assignment(kPhysicalRank, std::vector<int64_t>(mesh_shape.size(), 1));
  std::vector<int64_t> used(kPhysicalRank, 1);
  for (size_t j = mesh_shape.size(); j-- > 0;) {
    std::vector<int64_t> z = PickSplitFactors(physical, used, mesh_shape[j]);
    for (size_t p = 0; p < kPhysicalRank; ++p) {
      assignment[p][j] = z[p];
      used[p] *= z[p];
    }
  }
  return assignment;
}

Status ValidateMeshShape(const hw::Topology& t, const std::vector<int64_t>& mesh_shape) {
  if (mesh_shape.empty()) return InvalidArgument("mesh shape is empty: give at least one axis size");
  for (int64_t size : mesh_shape) {
    if (size < 1) return InvalidArgument("mesh " + FormatShape(mesh_shape) + ": axis sizes must be at least 1");
  }
  int64_t chips = t.num_chips(), product = 1;
  for (int64_t size : mesh_shape) {
    product *= size;
    if (product > chips) break;  // already too many; stopping also keeps the product from overflowing
  }
  if (product != chips) {
    std::string devices = product > chips ? "more than " + std::to_string(chips) : std::to_string(product);
    return InvalidArgument("mesh " + FormatShape(mesh_shape) + " has " + devices + " devices but " + t.name + " has " +
                           std::to_string(chips) + " chips; the product of the mesh axes must equal the chip count");
  }
  return Status::Ok();
}

}  // namespace

const char* MeshMethodName(MeshMethod method) {
  switch (method) {
    case MeshMethod::kDeviceOrder: return "device order";
    case MeshMethod::kRingOrder: return "ring order";
    case MeshMethod::kWholeAxes: return "whole axes";
    case MeshMethod::kSplitAxes: return "split axes";
  }
  return "?";
}

std::vector<int64_t> PickSplitFactors(const std::vector<int64_t>& physical_shape, const std::vector<int64_t>& used,
                                      int64_t size) {
  AZ_CHECK(physical_shape.size() == used.size() && size >= 1);
  size_t rank = physical_shape.size();
  std::vector<int64_t> available(rank);
  for (size_t p = 0; p < rank; ++p) {
    AZ_CHECK(used[p] >= 1 && physical_shape[p] % used[p] == 0);
    available[p] = physical_shape[p] / used[p];
  }
  // Candidates: for each prime q of `size` with multiplicity m, every way to
  // hand its m copies to axes with k_p <= (multiplicity of q in available[p]),
  // the k_p summing to m; the cross product over primes. These are exactly
  // the distinct vectors JAX's combinations-of-repeated-axes produce, and the
  // comparator is a total order, so enumeration order does not matter.
  std::vector<std::vector<int64_t>> candidates{std::vector<int64_t>(rank, 1)};
  for (auto [prime_factor, multiplicity] : PrimeFactors(size)) {
    const int64_t prime = prime_factor;  // clang before 16 cannot capture a structured binding in a lambda
    std::vector<int> room(rank);
    for (size_t p = 0; p < rank; ++p) room[p] = Multiplicity(available[p], prime);
    std::vector<std::vector<int64_t>> next;
    std::vector<int> counts(rank, 0);
    // Depth-first over counts per axis.
    auto visit = [&](auto&& self, size_t axis, int left) -> void {
      if (axis == rank) {
        if (left != 0) return;
        for (const std::vector<int64_t>& base : candidates) {
          std::vector<int64_t> z = base;
          for (size_t p = 0; p < rank; ++p) {
            for (int c = 0; c < counts[p]; ++c) z[p] *= prime;
          }
          next.push_back(std::move(z));
        }
        return;
      }
      for (int c = 0; c <= std::min(left, room[axis]); ++c) {
        counts[axis] = c;
        self(self, axis + 1, left - c);
      }
      counts[axis] = 0;
    };
    visit(visit, 0, multiplicity);
    candidates = std::move(next);
  }
  AZ_CHECK_MSG(!candidates.empty(), "split fallback: no factorization fits the remaining physical axes");
  std::vector<int64_t> best = candidates.front();
  for (const std::vector<int64_t>& z : candidates) {
    if (PreferFirst(z, best, physical_shape, used)) best = z;
  }
  return best;
}

StatusOr<DeviceMesh> CreateDeviceMeshExplained(const hw::Topology& t, const std::vector<int64_t>& mesh_shape,
                                               bool allow_split_physical_axes) {
  AZ_RETURN_IF_ERROR(ValidateMeshShape(t, mesh_shape));
  if (t.slices > 1) {
    // JAX: make_mesh "rejects device sets spanning several slices"; their
    // mesh is create_hybrid_device_mesh's (§3.5).
    return InvalidArgument(t.name + " spans " + std::to_string(t.slices) +
                           " slices: create_device_mesh lays out one slice; use create_hybrid_device_mesh");
  }
  DeviceMesh mesh;
  if (!IsTorus(t)) {
    // GPUs: devices sorted by id, reshaped row-major (§3.5); other graphs the same.
    mesh.method = MeshMethod::kDeviceOrder;
    mesh.placement = net::IdentityPlacement(t.num_chips());
    return mesh;
  }
  if (t.dims.size() > kPhysicalRank) {
    return InvalidArgument(t.name + ": a TPU torus has at most 3 axes, not " + std::to_string(t.dims.size()));
  }
  std::vector<int64_t> physical = PhysicalShape(t);
  if (std::optional<std::vector<int>> order = DeviceKindOrder(t, physical, mesh_shape)) {
    mesh.method = MeshMethod::kRingOrder;
    mesh.ring_order = *order;
    mesh.placement = *order;
    return mesh;
  }
  mesh.physical_shape = physical;
  size_t failed_axis = 0;
  std::vector<int64_t> remaining;
  if (std::optional<Assignment> whole = MatchWholeAxes(physical, mesh_shape, &failed_axis, &remaining)) {
    mesh.method = MeshMethod::kWholeAxes;
    mesh.assignment = std::move(*whole);
  } else if (allow_split_physical_axes) {
    mesh.method = MeshMethod::kSplitAxes;
    mesh.assignment = SplitAxes(physical, mesh_shape);
  } else {
    return InvalidArgument(
        "cannot map mesh " + FormatShape(mesh_shape) + " onto " + t.name + " (physical " + FormatDims(physical) +
        ") without splitting physical axes: logical axis " + std::to_string(failed_axis) + " of size " +
        std::to_string(mesh_shape[failed_axis]) + " is no product of the remaining physical axes " +
        FormatShape(remaining) + " (taken axes shown as 0); JAX splits axes only with allow_split_physical_axes, "
        "which jax.make_mesh turns on for v5e alone");
  }
  mesh.placement = ReadOut(physical, mesh_shape, mesh.assignment);
  return mesh;
}

StatusOr<net::Placement> CreateDeviceMesh(const hw::Topology& t, const std::vector<int64_t>& mesh_shape,
                                          bool allow_split_physical_axes) {
  AZ_ASSIGN_OR_RETURN(DeviceMesh mesh, CreateDeviceMeshExplained(t, mesh_shape, allow_split_physical_axes));
  return std::move(mesh.placement);
}

bool MakeMeshAllowsSplit(const hw::Topology& t) {
  // jax.make_mesh: device kinds "TPU v5 lite" / "TPU v5e" only (§3.1), the
  // catalog's jax_make_mesh_splits_axes.
  return t.chip.jax_make_mesh_splits_axes;
}

StatusOr<net::Placement> DefaultPlacement(const hw::Topology& t, const std::vector<int64_t>& mesh_shape) {
  if (t.slices > 1) {
    AZ_RETURN_IF_ERROR(ValidateMeshShape(t, mesh_shape));
    AZ_ASSIGN_OR_RETURN(std::vector<int64_t> dcn, DefaultDcnShape(mesh_shape, t.slices));
    std::vector<int64_t> ici(mesh_shape.size());
    for (size_t j = 0; j < ici.size(); ++j) ici[j] = mesh_shape[j] / dcn[j];
    return CreateHybridDeviceMesh(t, ici, dcn, MakeMeshAllowsSplit(t));
  }
  return CreateDeviceMesh(t, mesh_shape, MakeMeshAllowsSplit(t));
}

hw::Topology SliceView(const hw::Topology& t) {
  hw::Topology slice;
  slice.name = t.name.substr(0, t.name.find('*'));
  slice.chip = t.chip;
  slice.dims = t.dims;
  slice.wrap = t.wrap;
  slice.set_num_chips(t.slice_chips());
  return slice;
}

StatusOr<std::vector<int64_t>> DefaultDcnShape(const std::vector<int64_t>& mesh_shape, int slices) {
  std::vector<int64_t> dcn(mesh_shape.size(), 1);
  int64_t left = slices;
  for (size_t j = 0; j < mesh_shape.size() && left > 1; ++j) {
    int64_t take = std::gcd(left, mesh_shape[j]);
    dcn[j] = take;
    left /= take;
  }
  if (left != 1) {
    return InvalidArgument("mesh " + FormatShape(mesh_shape) + " cannot be split over " + std::to_string(slices) +
                           " slices: no assignment of the slice count to its axes divides them");
  }
  return dcn;
}

StatusOr<net::Placement> CreateHybridDeviceMesh(const hw::Topology& t, const std::vector<int64_t>& ici_shape,
                                                const std::vector<int64_t>& dcn_shape, bool allow_split_physical_axes) {
  if (ici_shape.size() != dcn_shape.size() || ici_shape.empty()) {
    return InvalidArgument("hybrid mesh: ici " + FormatShape(ici_shape) + " and dcn " + FormatShape(dcn_shape) +
                           " must have the same (non-zero) number of axes");
  }
  int64_t granules = 1;
  for (int64_t d : dcn_shape) {
    if (d < 1) return InvalidArgument("hybrid mesh: dcn axis sizes must be at least 1");
    granules *= d;
  }
  if (granules > std::max(t.slices, 1)) {
    return InvalidArgument("hybrid mesh: dcn " + FormatShape(dcn_shape) + " needs " + std::to_string(granules) +
                           " slices, " + t.name + " has " + std::to_string(std::max(t.slices, 1)));
  }
  hw::Topology slice = SliceView(t);
  AZ_ASSIGN_OR_RETURN(net::Placement local, CreateDeviceMesh(slice, ici_shape, allow_split_physical_axes));
  return TileHybrid(local, ici_shape, dcn_shape, slice.num_chips());
}

net::Placement TileHybrid(const net::Placement& local, const std::vector<int64_t>& ici_shape,
                          const std::vector<int64_t>& dcn_shape, int slice_chips) {
  // np.block over dcn_shape: along axis j, index = dcn_j * ici_j + ici_j'.
  const size_t rank = ici_shape.size();
  AZ_CHECK(dcn_shape.size() == rank);
  std::vector<int64_t> shape(rank);
  int64_t devices = 1;
  for (size_t j = 0; j < rank; ++j) {
    shape[j] = ici_shape[j] * dcn_shape[j];
    devices *= shape[j];
  }
  net::Placement placement(static_cast<size_t>(devices));
  std::vector<int64_t> position(rank);
  for (int64_t k = 0; k < devices; ++k) {
    int64_t rest = k;
    for (size_t j = rank; j-- > 0;) {
      position[j] = rest % shape[j];
      rest /= shape[j];
    }
    int64_t granule = 0, inner = 0;
    for (size_t j = 0; j < rank; ++j) {
      granule = granule * dcn_shape[j] + position[j] / ici_shape[j];
      inner = inner * ici_shape[j] + position[j] % ici_shape[j];
    }
    placement[static_cast<size_t>(k)] = static_cast<int>(granule) * slice_chips + local[static_cast<size_t>(inner)];
  }
  return placement;
}

std::vector<int> ChipDomains(const hw::Topology& t) {
  std::vector<int> domains(static_cast<size_t>(t.num_chips()), 0);
  for (int chip = 0; chip < t.num_chips(); ++chip) {
    if (t.slices > 1) {
      domains[static_cast<size_t>(chip)] = t.SliceOf(chip);
    } else if (t.gpu_nodes > 1 && t.gpus_per_node > 0) {
      domains[static_cast<size_t>(chip)] = chip / t.gpus_per_node;
    }
  }
  return domains;
}

DomainSplit SplitOverDomains(const std::vector<int>& domain_of_chip, const std::vector<int64_t>& mesh_shape,
                             const net::Placement& placement) {
  DomainSplit split;
  const size_t rank = mesh_shape.size();
  const int64_t devices = static_cast<int64_t>(placement.size());
  auto domain = [&](int64_t k) { return domain_of_chip[static_cast<size_t>(placement[static_cast<size_t>(k)])]; };
  std::vector<int> used;
  for (int64_t k = 0; k < devices; ++k) used.push_back(domain(k));
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  split.domains = static_cast<int>(used.size());
  split.outer.assign(rank, 1);
  split.inner = mesh_shape;
  // Row-major strides of the mesh.
  std::vector<int64_t> stride(rank, 1);
  for (size_t j = rank; j-- > 1;) stride[j - 1] = stride[j] * mesh_shape[j];
  for (size_t j = 0; j < rank; ++j) {
    int64_t most = 1;
    for (int64_t k = 0; k < devices; ++k) {
      if ((k / stride[j]) % mesh_shape[j] != 0) continue;  // one walk per line, from its first rank
      std::vector<int> seen;
      for (int64_t i = 0; i < mesh_shape[j]; ++i) seen.push_back(domain(k + i * stride[j]));
      std::sort(seen.begin(), seen.end());
      most = std::max<int64_t>(most, std::unique(seen.begin(), seen.end()) - seen.begin());
    }
    split.outer[j] = most;
    split.inner[j] = mesh_shape[j] % most == 0 ? mesh_shape[j] / most : 0;
  }
  int64_t product = 1;
  for (size_t j = 0; j < rank; ++j) product *= split.outer[j];
  bool hybrid = product == split.domains &&
                std::none_of(split.inner.begin(), split.inner.end(), [](int64_t v) { return v == 0; });
  for (int64_t k = 0; k < devices && hybrid; ++k) {
    int64_t granule = 0;
    for (size_t j = 0; j < rank; ++j) {
      granule = granule * split.outer[j] + ((k / stride[j]) % mesh_shape[j]) / split.inner[j];
    }
    hybrid = used[static_cast<size_t>(granule)] == domain(k);
  }
  split.hybrid = hybrid;
  return split;
}

std::string DescribeDeviceMesh(const hw::Topology& t, const std::vector<int64_t>& mesh_shape, const DeviceMesh& mesh) {
  std::string out = "mesh " + FormatShape(mesh_shape) + " on " + t.name;
  switch (mesh.method) {
    case MeshMethod::kDeviceOrder: return out + ": device order (identity)";
    case MeshMethod::kRingOrder: {
      out += ": " + t.chip.name + " ring order (";
      for (size_t i = 0; i < mesh.ring_order.size(); ++i) out += (i ? "," : "") + std::to_string(mesh.ring_order[i]);
      return out + ")";
    }
    case MeshMethod::kWholeAxes:
    case MeshMethod::kSplitAxes: break;
  }
  const char* const kAxisNames[] = {"x", "y", "z"};
  out += " (physical " + FormatDims(mesh.physical_shape) + "), " + MeshMethodName(mesh.method) + ":";
  for (size_t j = 0; j < mesh_shape.size(); ++j) {
    out += std::string(j ? ";" : "") + " axis " + std::to_string(j) + " =";
    bool any = false;
    for (size_t p = 0; p < mesh.assignment.size(); ++p) {
      int64_t part = mesh.assignment[p][j];
      if (part == 1) continue;
      out += std::string(any ? ", " : " ") + kAxisNames[p];
      if (part != mesh.physical_shape[p]) out += "/" + std::to_string(part);
      any = true;
    }
    if (!any) out += " (size 1)";
  }
  return out;
}

}  // namespace az::place
