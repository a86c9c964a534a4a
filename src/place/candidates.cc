#include "place/candidates.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "place/default_placement.h"

namespace az::place {

namespace {

const char* kAxisLetters[] = {"x", "y", "z", "w"};

std::string AxisLabel(size_t axis) { return axis < 4 ? kAxisLetters[axis] : "a" + std::to_string(axis); }

// Coordinates of a grid of `dims` in an order where axis order[0] varies
// fastest; with `snake`, a digit runs backwards whenever the sum of the slower
// digits is odd (a boustrophedon: consecutive positions are always neighbours).
std::vector<std::vector<int>> GridSequence(const std::vector<int>& dims, const std::vector<size_t>& order, bool snake) {
  const size_t d = dims.size();
  int n = 1;
  for (int size : dims) n *= size;
  std::vector<std::vector<int>> sequence;
  sequence.reserve(static_cast<size_t>(n));
  std::vector<int> digit(d, 0);  // counters in `order` positions, fastest first
  for (int position = 0; position < n; ++position) {
    std::vector<int> coord(d, 0);
    int slower_sum = 0;
    for (size_t i = d; i-- > 0;) {
      size_t axis = order[i];
      int value = digit[i];
      if (snake && (slower_sum % 2 == 1)) value = dims[axis] - 1 - value;
      coord[axis] = value;
      slower_sum += digit[i];
    }
    sequence.push_back(std::move(coord));
    for (size_t i = 0; i < d; ++i) {  // increment the counters
      if (++digit[i] < dims[order[i]]) break;
      digit[i] = 0;
    }
  }
  return sequence;
}

int ChipAt(const hw::Topology& t, const std::vector<int>& coord) {
  int chip = 0, stride = 1;
  for (size_t axis = 0; axis < t.dims.size(); ++axis) {
    chip += coord[axis] * stride;
    stride *= t.dims[axis];
  }
  return chip;
}

std::string OrderName(const std::vector<size_t>& order, bool snake) {
  std::string label = snake ? "snake(" : "coord(";
  for (size_t i = 0; i < order.size(); ++i) label += (i ? "," : "") + AxisLabel(order[i]);
  return label + ")";
}

std::vector<std::vector<size_t>> Permutations(size_t n) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::vector<size_t>> out;
  do {
    out.push_back(order);
  } while (std::next_permutation(order.begin(), order.end()));
  return out;
}

// Block shapes: per axis a divisor of its length, neither all ones nor the
// whole torus.
std::vector<std::vector<int>> BlockShapes(const std::vector<int>& dims) {
  std::vector<std::vector<int>> shapes = {{}};
  for (int size : dims) {
    std::vector<std::vector<int>> next;
    for (const auto& prefix : shapes) {
      for (int b = 1; b <= size; ++b) {
        if (size % b) continue;
        auto shape = prefix;
        shape.push_back(b);
        next.push_back(std::move(shape));
      }
    }
    shapes = std::move(next);
  }
  std::vector<std::vector<int>> out;
  for (const auto& shape : shapes) {
    if (shape == dims || std::all_of(shape.begin(), shape.end(), [](int b) { return b == 1; })) continue;
    out.push_back(shape);
  }
  return out;
}

// Logical id -> rank when mesh axes are read in `axis_order` (first = slowest).
std::vector<int> Ranks(const std::vector<int64_t>& shape, const std::vector<size_t>& axis_order) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<int> ranks(static_cast<size_t>(n));
  std::vector<int64_t> coord(shape.size(), 0);
  for (int64_t logical = 0; logical < n; ++logical) {
    int64_t rest = logical;
    for (size_t a = shape.size(); a-- > 0;) {
      coord[a] = rest % shape[a];
      rest /= shape[a];
    }
    int64_t rank = 0;
    for (size_t axis : axis_order) rank = rank * shape[axis] + coord[axis];
    ranks[static_cast<size_t>(logical)] = static_cast<int>(rank);
  }
  return ranks;
}

std::string OrderLabel(const std::vector<size_t>& order, const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < order.size(); ++i) {
    out += (i ? "," : "") + (order[i] < names.size() ? names[order[i]] : "a" + std::to_string(order[i]));
  }
  return out;
}

// Every dcn vector with dcn_j dividing shape[j] and product `slices`, axis 0's
// factor varying slowest (deterministic).
void DcnAssignments(const std::vector<int64_t>& shape, size_t axis, int64_t left, std::vector<int64_t>& dcn,
                    std::vector<std::vector<int64_t>>& out) {
  if (axis == shape.size()) {
    if (left == 1) out.push_back(dcn);
    return;
  }
  for (int64_t take = 1; take <= left; ++take) {
    if (left % take != 0 || shape[axis] % take != 0) continue;
    dcn[axis] = take;
    DcnAssignments(shape, axis + 1, left / take, dcn, out);
  }
  dcn[axis] = 1;
}

std::vector<Candidate> MultiSliceCandidates(const hw::Topology& topology, const std::vector<int64_t>& mesh_shape,
                                            const std::vector<std::string>& axis_names, int64_t devices) {
  const int slice_chips = topology.slice_chips();
  const hw::Topology slice = SliceView(topology);
  // Inside slice 0: its chip ids are the slice's local ids.
  if (devices <= slice_chips) return StructuredCandidates(slice, mesh_shape, axis_names);
  if (devices % slice_chips != 0) return {{"ids", net::IdentityPlacement(static_cast<int>(devices))}};
  std::vector<std::vector<int64_t>> assignments;
  std::vector<int64_t> dcn(mesh_shape.size(), 1);
  DcnAssignments(mesh_shape, 0, devices / slice_chips, dcn, assignments);
  std::vector<Candidate> out;
  std::set<net::Placement> seen;
  for (const std::vector<int64_t>& assignment : assignments) {
    std::vector<int64_t> ici(mesh_shape.size());
    std::string label = "hybrid dcn(";
    bool first = true;
    for (size_t j = 0; j < mesh_shape.size(); ++j) {
      ici[j] = mesh_shape[j] / assignment[j];
      if (assignment[j] == 1) continue;
      label += (first ? "" : ",") + (j < axis_names.size() ? axis_names[j] : "a" + std::to_string(j)) + "=" +
               std::to_string(assignment[j]);
      first = false;
    }
    label += ") ";
    for (Candidate& local : StructuredCandidates(slice, ici, axis_names)) {
      net::Placement p = TileHybrid(local.placement, ici, assignment, slice_chips);
      if (seen.insert(p).second) out.push_back({label + local.name, std::move(p)});
    }
  }
  return out;
}

}  // namespace

std::vector<Candidate> StructuredCandidates(const hw::Topology& topology, const std::vector<int64_t>& mesh_shape,
                                            const std::vector<std::string>& axis_names) {
  int64_t devices = 1;
  for (int64_t s : mesh_shape) devices *= s;
  std::vector<Candidate> out;
  if (devices < 1 || devices > topology.num_chips()) return out;
  if (topology.slices > 1) return MultiSliceCandidates(topology, mesh_shape, axis_names, devices);
  std::set<net::Placement> seen;
  auto add = [&](std::string name, net::Placement p) {
    if (seen.insert(p).second) out.push_back({std::move(name), std::move(p)});
  };

  // Chip sequences: whole-torus orders, then blocked orders (the torus cut
  // into equal sub-blocks, visited block by block), so the fastest mesh axis
  // can fill a line, a plane or a compact sub-block.
  std::vector<std::pair<std::string, std::vector<int>>> sequences;
  if (!topology.dims.empty()) {
    const std::vector<int>& dims = topology.dims;
    auto orders = Permutations(dims.size());
    for (const auto& order : orders) {
      for (bool snake : {false, true}) {
        std::vector<int> chips;
        for (const auto& coord : GridSequence(dims, order, snake)) chips.push_back(ChipAt(topology, coord));
        sequences.push_back({OrderName(order, snake), std::move(chips)});
      }
    }
    for (const auto& block : BlockShapes(dims)) {
      std::vector<int> outer_dims(dims.size());
      std::string shape;
      for (size_t a = 0; a < dims.size(); ++a) {
        outer_dims[a] = dims[a] / block[a];
        shape += (a ? "x" : "") + std::to_string(block[a]);
      }
      for (const auto& outer_order : orders) {
        for (bool outer_snake : {false, true}) {
          auto outer = GridSequence(outer_dims, outer_order, outer_snake);
          for (const auto& inner_order : orders) {
            for (bool inner_snake : {false, true}) {
              auto inner = GridSequence(block, inner_order, inner_snake);
              std::vector<int> chips;
              for (const auto& o : outer) {
                for (const auto& i : inner) {
                  std::vector<int> coord(dims.size());
                  for (size_t a = 0; a < dims.size(); ++a) coord[a] = o[a] * block[a] + i[a];
                  chips.push_back(ChipAt(topology, coord));
                }
              }
              sequences.push_back({"blocks " + shape + " " + OrderName(inner_order, inner_snake) + " of " +
                                       OrderName(outer_order, outer_snake),
                                   std::move(chips)});
            }
          }
        }
      }
    }
  } else {
    std::vector<int> ids(static_cast<size_t>(topology.num_chips()));
    std::iota(ids.begin(), ids.end(), 0);
    sequences.push_back({"ids", ids});
  }

  std::vector<size_t> axis_order(mesh_shape.size());
  std::iota(axis_order.begin(), axis_order.end(), 0);
  std::vector<std::vector<size_t>> axis_orders;
  do {
    axis_orders.push_back(axis_order);
  } while (std::next_permutation(axis_order.begin(), axis_order.end()));

  for (const auto& order : axis_orders) {
    std::vector<int> ranks = Ranks(mesh_shape, order);
    std::string rank_label = " rank(" + OrderLabel(order, axis_names) + ")";
    // JAX's own matching of this axis order (only for a mesh over the whole slice).
    if (devices == topology.num_chips()) {
      std::vector<int64_t> permuted;
      for (size_t axis : order) permuted.push_back(mesh_shape[axis]);
      StatusOr<net::Placement> jax = CreateDeviceMesh(topology, permuted, /*allow_split_physical_axes=*/true);
      if (jax.ok()) {
        net::Placement p(static_cast<size_t>(devices));
        for (size_t logical = 0; logical < p.size(); ++logical) p[logical] = (*jax)[static_cast<size_t>(ranks[logical])];
        add("jax" + rank_label, std::move(p));
      }
    }
    for (const auto& [label, sequence] : sequences) {
      net::Placement p(static_cast<size_t>(devices));
      for (size_t logical = 0; logical < p.size(); ++logical) p[logical] = sequence[static_cast<size_t>(ranks[logical])];
      add(label + rank_label, std::move(p));
    }
  }
  return out;
}

}  // namespace az::place
