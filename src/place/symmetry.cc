// Automorphisms of the routed topology (see symmetry.h for the definition).
//
// IsAutomorphism builds the induced maps as it goes: each pair of routes
// (a -> b, s(a) -> s(b)) maps channels position by position; a channel fixes
// its link's image and orientation and its endpoints' images, so switch nodes
// get their images from the routes through them. Any contradiction (a link or
// node mapped twice differently, two mapped onto one, differing properties)
// rejects. Links no route uses (failed ones) are matched afterwards, first fit.
#include "place/symmetry.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <set>
#include <span>

namespace az::place {
namespace {

bool SameLinkProperties(const hw::Link& x, const hw::Link& y) {
  return x.cls == y.cls && x.bw == y.bw && x.latency == y.latency && x.failed == y.failed;
}

// The maps induced by a chip permutation, filled in as evidence arrives.
class InducedMaps {
 public:
  InducedMaps(const hw::Topology& t, const std::vector<int>& chips)
      : t_(t),
        node_map_(static_cast<size_t>(t.num_nodes()), -1),
        node_inverse_(static_cast<size_t>(t.num_nodes()), -1),
        link_map_(t.links.size(), -1),
        link_inverse_(t.links.size(), -1),
        link_flip_(t.links.size(), 0) {
    for (size_t c = 0; c < chips.size(); ++c) {
      node_map_[c] = chips[c];
      node_inverse_[static_cast<size_t>(chips[c])] = static_cast<int>(c);
    }
  }

  // Whether node x may go to node y, given what is mapped so far.
  bool CanMapNode(int x, int y) const {
    int image = node_map_[static_cast<size_t>(x)];
    if (image >= 0) return image == y;
    if (node_inverse_[static_cast<size_t>(y)] >= 0) return false;
    const hw::Node& from = t_.nodes[static_cast<size_t>(x)];
    const hw::Node& to = t_.nodes[static_cast<size_t>(y)];
    return from.kind == to.kind && from.failed == to.failed;
  }

  // Node x goes to node y.
  bool MapNode(int x, int y) {
    if (!CanMapNode(x, y)) return false;
    node_map_[static_cast<size_t>(x)] = y;
    node_inverse_[static_cast<size_t>(y)] = x;
    return true;
  }

  // Directed channel `from` goes to directed channel `to`.
  bool MapChannel(int from, int to) {
    size_t link = static_cast<size_t>(from / 2), image = static_cast<size_t>(to / 2);
    char flip = (from % 2) != (to % 2);
    if (link_map_[link] >= 0) return link_map_[link] == static_cast<int>(image) && link_flip_[link] == flip;
    if (link_inverse_[image] >= 0) return false;
    if (!SameLinkProperties(t_.links[link], t_.links[image])) return false;
    // Check both ends before mapping either, so a rejected channel leaves the
    // maps untouched (the first-fit matching below tries several).
    int source = t_.channel_source(from), target = t_.channel_target(from);
    int source_image = t_.channel_source(to), target_image = t_.channel_target(to);
    if (!CanMapNode(source, source_image) || !CanMapNode(target, target_image)) return false;
    MapNode(source, source_image);
    if (!MapNode(target, target_image)) return false;
    link_map_[link] = static_cast<int>(image);
    link_inverse_[image] = static_cast<int>(link);
    link_flip_[link] = flip;
    return true;
  }

  // Links no route crossed: each to the first free link of the same
  // properties between its endpoints' images (either orientation), endpoints
  // not yet mapped (switches) taking the candidate's. Repeats while that maps
  // something; a link whose endpoints both stay unmapped rejects
  // (conservative: see symmetry.h).
  bool MatchRemainingLinks() {
    size_t num_links = t_.links.size();
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t link = 0; link < num_links; ++link) {
        if (link_map_[link] >= 0) continue;
        const hw::Link& from = t_.links[link];
        int a = node_map_[static_cast<size_t>(from.a)], b = node_map_[static_cast<size_t>(from.b)];
        if (a < 0 && b < 0) continue;
        bool matched = false;
        for (size_t image = 0; image < num_links && !matched; ++image) {
          if (link_inverse_[image] >= 0 || !SameLinkProperties(from, t_.links[image])) continue;
          const hw::Link& to = t_.links[image];
          for (int flip = 0; flip < 2 && !matched; ++flip) {
            int to_a = flip ? to.b : to.a, to_b = flip ? to.a : to.b;
            if (!CanMapNode(from.a, to_a) || !CanMapNode(from.b, to_b)) continue;
            matched = MapChannel(2 * static_cast<int>(link), 2 * static_cast<int>(image) + flip);
          }
        }
        if (!matched) return false;
        progress = true;
      }
    }
    for (size_t link = 0; link < num_links; ++link) {
      if (link_map_[link] < 0) return false;
    }
    // Nodes with no links at all: pair them in id order.
    size_t next = 0;
    for (size_t node = 0; node < node_map_.size(); ++node) {
      if (node_map_[node] >= 0) continue;
      while (next < node_inverse_.size() && node_inverse_[next] >= 0) ++next;
      if (next == node_inverse_.size() || !MapNode(static_cast<int>(node), static_cast<int>(next))) return false;
    }
    return true;
  }

 private:
  const hw::Topology& t_;
  std::vector<int> node_map_, node_inverse_;
  std::vector<int> link_map_, link_inverse_;
  std::vector<char> link_flip_;  // the image link runs the other way
};

// The route of a pair as a view: from the cache, else computed into `buffer`.
// False when the pair is unreachable.
bool RouteOf(const hw::Topology& t, int src, int dst, std::vector<int>& buffer, std::span<const int>* route) {
  if (t.CachedRoute(src, dst, route)) return true;
  StatusOr<std::vector<int>> computed = t.Route(src, dst);
  if (!computed.ok()) return false;
  buffer = std::move(computed).value();
  *route = std::span<const int>(buffer);
  return true;
}

std::vector<int> Identity(int n) {
  std::vector<int> identity(static_cast<size_t>(n));
  std::iota(identity.begin(), identity.end(), 0);
  return identity;
}

// Candidate generators (symmetry.h), in a fixed order.
std::vector<std::vector<int>> CandidateGenerators(const hw::Topology& t) {
  int n = t.num_chips();
  std::vector<std::vector<int>> candidates;
  int64_t torus_chips = 1;
  for (int length : t.dims) torus_chips *= length;
  if (!t.dims.empty() && torus_chips == n) {
    size_t rank = t.dims.size();
    auto coords_of = [&](int id) {
      std::vector<int> coords(rank);
      for (size_t axis = 0; axis < rank; ++axis) {
        coords[axis] = id % t.dims[axis];
        id /= t.dims[axis];
      }
      return coords;
    };
    auto id_of = [&](const std::vector<int>& coords) {
      int id = 0;
      for (size_t axis = rank; axis-- > 0;) id = id * t.dims[axis] + coords[axis];
      return id;
    };
    // The permutation that moves every chip's coordinates by `move`.
    auto by_coords = [&](auto move) {
      std::vector<int> perm(static_cast<size_t>(n));
      for (int id = 0; id < n; ++id) {
        std::vector<int> coords = coords_of(id);
        move(coords);
        perm[static_cast<size_t>(id)] = id_of(coords);
      }
      return perm;
    };
    for (size_t axis = 0; axis < rank; ++axis) {
      int length = t.dims[axis];
      if (length < 2) continue;
      candidates.push_back(by_coords([&](std::vector<int>& c) { c[axis] = length - 1 - c[axis]; }));
      if (t.wrap[axis]) candidates.push_back(by_coords([&](std::vector<int>& c) { c[axis] = (c[axis] + 1) % length; }));
    }
    for (size_t a = 0; a < rank; ++a) {
      for (size_t b = a + 1; b < rank; ++b) {
        if (t.dims[a] != t.dims[b] || t.wrap[a] != t.wrap[b] || t.dims[a] < 2) continue;
        candidates.push_back(by_coords([&](std::vector<int>& c) { std::swap(c[a], c[b]); }));
      }
    }
  } else if (t.gpu_nodes > 0 && t.gpus_per_node > 0 && t.gpu_nodes * t.gpus_per_node == n) {
    int per_node = t.gpus_per_node;
    for (int local = 0; local + 1 < per_node; ++local) {
      std::vector<int> perm = Identity(n);
      for (int node = 0; node < t.gpu_nodes; ++node) {
        size_t first = static_cast<size_t>(node * per_node + local);
        std::swap(perm[first], perm[first + 1]);
      }
      candidates.push_back(std::move(perm));
    }
    for (int node = 0; node + 1 < t.gpu_nodes; ++node) {
      std::vector<int> perm = Identity(n);
      for (int local = 0; local < per_node; ++local) {
        std::swap(perm[static_cast<size_t>(node * per_node + local)],
                  perm[static_cast<size_t>((node + 1) * per_node + local)]);
      }
      candidates.push_back(std::move(perm));
    }
  }
  return candidates;
}

}  // namespace

bool IsAutomorphism(const hw::Topology& t, const std::vector<int>& chip_permutation) {
  int n = t.num_chips();
  if (chip_permutation.size() != static_cast<size_t>(n)) return false;
  std::vector<char> seen(static_cast<size_t>(n), 0);
  for (int image : chip_permutation) {
    if (image < 0 || image >= n || seen[static_cast<size_t>(image)]) return false;
    seen[static_cast<size_t>(image)] = 1;
  }
  InducedMaps maps(t, chip_permutation);
  for (size_t c = 0; c < chip_permutation.size(); ++c) {
    // Chips are already mapped by the permutation; this checks failed states.
    if (t.nodes[c].failed != t.nodes[static_cast<size_t>(chip_permutation[c])].failed) return false;
  }
  std::vector<int> buffer, image_buffer;
  for (int src = 0; src < n; ++src) {
    for (int dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      std::span<const int> route, image;
      bool reachable = RouteOf(t, src, dst, buffer, &route);
      bool image_reachable = RouteOf(t, chip_permutation[static_cast<size_t>(src)],
                                     chip_permutation[static_cast<size_t>(dst)], image_buffer, &image);
      if (reachable != image_reachable) return false;
      if (!reachable) continue;
      if (route.size() != image.size()) return false;
      for (size_t hop = 0; hop < route.size(); ++hop) {
        if (!maps.MapChannel(route[hop], image[hop])) return false;
      }
    }
  }
  return maps.MatchRemainingLinks();
}

Symmetry FindSymmetry(const hw::Topology& t, size_t limit) {
  int n = t.num_chips();
  Symmetry symmetry;
  std::vector<int> identity = Identity(n);

  // Adjacent transpositions generate every permutation; the first that fails
  // usually fails within a few routes, so this is cheap on a torus.
  std::vector<std::vector<int>> transpositions;
  bool all = true;
  for (int c = 0; c + 1 < n && all; ++c) {
    std::vector<int> swap = identity;
    std::swap(swap[static_cast<size_t>(c)], swap[static_cast<size_t>(c + 1)]);
    all = IsAutomorphism(t, swap);
    transpositions.push_back(std::move(swap));
  }
  if (all) {
    symmetry.all_permutations = true;
    symmetry.generators = std::move(transpositions);
    symmetry.automorphisms = {identity};
    return symmetry;
  }

  for (std::vector<int>& candidate : CandidateGenerators(t)) {
    if (candidate == identity) continue;
    if (std::find(symmetry.generators.begin(), symmetry.generators.end(), candidate) != symmetry.generators.end()) {
      continue;
    }
    if (IsAutomorphism(t, candidate)) symmetry.generators.push_back(std::move(candidate));
  }

  // Breadth-first closure: every element is a product of generators, and a
  // product of automorphisms is one.
  limit = std::max<size_t>(limit, 1);
  std::set<std::vector<int>> group{identity};
  std::deque<std::vector<int>> queue{identity};
  std::vector<int> product(static_cast<size_t>(n));
  while (!queue.empty() && !symmetry.truncated) {
    std::vector<int> element = std::move(queue.front());
    queue.pop_front();
    for (const std::vector<int>& generator : symmetry.generators) {
      for (size_t c = 0; c < product.size(); ++c) product[c] = generator[static_cast<size_t>(element[c])];
      if (group.count(product)) continue;
      if (group.size() == limit) {
        symmetry.truncated = true;
        break;
      }
      group.insert(product);
      queue.push_back(product);
    }
  }
  symmetry.automorphisms.assign(group.begin(), group.end());
  return symmetry;
}

net::Placement ApplyAutomorphism(const std::vector<int>& automorphism, const net::Placement& placement) {
  net::Placement image(placement.size());
  for (size_t i = 0; i < placement.size(); ++i) {
    AZ_CHECK(placement[i] >= 0 && static_cast<size_t>(placement[i]) < automorphism.size());
    image[i] = automorphism[static_cast<size_t>(placement[i])];
  }
  return image;
}

net::Placement CanonicalPlacement(const Symmetry& symmetry, const net::Placement& placement) {
  if (symmetry.all_permutations) {
    net::Placement canonical(placement.size());
    std::iota(canonical.begin(), canonical.end(), 0);
    return canonical;
  }
  net::Placement best = placement;
  for (const std::vector<int>& automorphism : symmetry.automorphisms) {
    net::Placement image = ApplyAutomorphism(automorphism, placement);
    if (image < best) best = std::move(image);
  }
  return best;
}

}  // namespace az::place
