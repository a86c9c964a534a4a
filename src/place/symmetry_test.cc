// Automorphisms of routed topologies. Each expected group order is derived in
// a comment from the shape, the wrap flags and the routing rules of
// hw/topology.h (dimension order x, y, z; on a wrapped axis the shorter way,
// ties toward +).
#include "place/symmetry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "hw/testing.h"
#include "net/calibration.h"
#include "net/model.h"

namespace az::place {
namespace {

using hw_test::Topo;

std::vector<int> Identity(int n) {
  std::vector<int> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  return p;
}

bool Contains(const Symmetry& s, const std::vector<int>& perm) {
  return std::binary_search(s.automorphisms.begin(), s.automorphisms.end(), perm);
}

// Shape invariants of every result: identity first, sorted, distinct, each a
// checked automorphism.
void ExpectWellFormed(const hw::Topology& t, const Symmetry& s) {
  ASSERT_FALSE(s.automorphisms.empty());
  EXPECT_EQ(s.automorphisms.front(), Identity(t.num_chips()));
  EXPECT_TRUE(std::is_sorted(s.automorphisms.begin(), s.automorphisms.end()));
  EXPECT_EQ(std::adjacent_find(s.automorphisms.begin(), s.automorphisms.end()), s.automorphisms.end());
  for (const std::vector<int>& perm : s.automorphisms) EXPECT_TRUE(IsAutomorphism(t, perm)) << t.name;
  for (const std::vector<int>& perm : s.generators) EXPECT_TRUE(IsAutomorphism(t, perm)) << t.name;
}

// The permutation moving torus coordinates by `move` (chip id = x + X*(y + Y*z)).
template <typename Move>
std::vector<int> ByCoords(const hw::Topology& t, Move move) {
  std::vector<int> perm(static_cast<size_t>(t.num_chips()));
  for (int id = 0; id < t.num_chips(); ++id) {
    std::vector<int> c = t.nodes[static_cast<size_t>(id)].coords;
    move(c);
    int image = 0;
    for (size_t axis = c.size(); axis-- > 0;) image = image * t.dims[axis] + c[axis];
    perm[static_cast<size_t>(id)] = image;
  }
  return perm;
}

// v5e:2x4 (X = 4, Y = 2, no wraps): candidates are the x reflection, the y
// reflection (lines: every route is unique, so both preserve routes) and no
// swap (unequal axes). Group: {id, rx, ry, rx*ry} = 4. Chip id = x + 4y.
TEST(Symmetry, V5e2x4HasFourAutomorphisms) {
  hw::Topology t = Topo("v5e:2x4");
  Symmetry s = FindSymmetry(t);
  ExpectWellFormed(t, s);
  EXPECT_FALSE(s.all_permutations);
  EXPECT_FALSE(s.truncated);
  EXPECT_EQ(s.automorphisms.size(), 4u);
  EXPECT_EQ(s.generators.size(), 2u);
  EXPECT_TRUE(Contains(s, {3, 2, 1, 0, 7, 6, 5, 4}));  // x -> 3 - x
  EXPECT_TRUE(Contains(s, {4, 5, 6, 7, 0, 1, 2, 3}));  // y -> 1 - y
  EXPECT_TRUE(Contains(s, {7, 6, 5, 4, 3, 2, 1, 0}));  // both: the point reflection
}

// v5e:4x4 (no wraps, equal axes): the reflections pass as on 2x4; the x <-> y
// swap is a graph automorphism but not a routed one: Route((0,0), (1,1))
// crosses (1,0) (x first), its image would cross (0,1), yet Route((0,0),
// (1,1)) is the same x-first path. So 4, not the square's 8.
TEST(Symmetry, V5e4x4RejectsTheAxisSwap) {
  hw::Topology t = Topo("v5e:4x4");
  Symmetry s = FindSymmetry(t);
  ExpectWellFormed(t, s);
  EXPECT_EQ(s.automorphisms.size(), 4u);
  std::vector<int> swap = ByCoords(t, [](std::vector<int>& c) { std::swap(c[0], c[1]); });
  EXPECT_FALSE(IsAutomorphism(t, swap));
  EXPECT_FALSE(Contains(s, swap));
  EXPECT_TRUE(Contains(s, ByCoords(t, [](std::vector<int>& c) { c[0] = 3 - c[0]; })));
}

// v5e:16x16 wraps both axes. Rotations by one along x and along y pass
// (routes are translation invariant, ties included); they generate the
// 16 * 16 = 256 translations. Reflections fail: Route(0 -> 8) on a 16-ring
// goes + (tie), its mirror image would go -, but Route(0 -> 8) from the
// mirrored pair (0, 8) still goes +. The swap fails as on 4x4. So 256.
TEST(Symmetry, V5e16x16IsTheTranslations) {
  hw::Topology t = Topo("v5e:16x16");
  Symmetry s = FindSymmetry(t);
  EXPECT_FALSE(s.truncated);
  EXPECT_EQ(s.automorphisms.size(), 256u);
  EXPECT_EQ(s.generators.size(), 2u);
  ExpectWellFormed(t, s);
  EXPECT_TRUE(Contains(s, ByCoords(t, [](std::vector<int>& c) { c[0] = (c[0] + 5) % 16; c[1] = (c[1] + 11) % 16; })));
  EXPECT_FALSE(IsAutomorphism(t, ByCoords(t, [](std::vector<int>& c) { c[0] = 15 - c[0]; })));
  EXPECT_FALSE(IsAutomorphism(t, ByCoords(t, [](std::vector<int>& c) { std::swap(c[0], c[1]); })));
}

// v5e:8x16: x (8) is a line, y (16) wraps: x reflection (2) times the 16 y
// rotations = 32; the y reflection fails on the tie as above.
TEST(Symmetry, V5e8x16MixesLineAndRing) {
  hw::Topology t = Topo("v5e:8x16");
  Symmetry s = FindSymmetry(t);
  ExpectWellFormed(t, s);
  EXPECT_EQ(s.automorphisms.size(), 32u);
}

// Cubes. v5p:2x2x2 (sub-cube, no wraps): three reflections -> 8; the three
// axis swaps fail on dimension order. v4:2x2x1: z has length 1 -> 4.
// v4:4x4x4 wraps every axis: 4 * 4 * 4 = 64 translations; reflections fail
// (a 4-ring's tie at distance 2).
TEST(Symmetry, Cubes) {
  struct Case {
    const char* spec;
    size_t order;
  };
  for (const Case& c : {Case{"v5p:2x2x2", 8}, Case{"v4:2x2x1", 4}, Case{"v4:2x2x4", 8}, Case{"v4:4x4x4", 64}}) {
    hw::Topology t = Topo(c.spec);
    Symmetry s = FindSymmetry(t);
    ExpectWellFormed(t, s);
    EXPECT_EQ(s.automorphisms.size(), c.order) << c.spec;
  }
}

// One NVSwitch node: every route is gpu -> nvswitch -> gpu, so every chip
// permutation (with the switch fixed) maps routes onto routes.
TEST(Symmetry, OneSwitchNodeIsFullySymmetric) {
  for (const char* spec : {"h100:8", "h100:4"}) {
    hw::Topology t = Topo(spec);
    Symmetry s = FindSymmetry(t);
    EXPECT_TRUE(s.all_permutations) << spec;
    EXPECT_EQ(s.automorphisms, std::vector<std::vector<int>>{Identity(t.num_chips())});
    ExpectWellFormed(t, s);
  }
  hw::Topology t = Topo("h100:8");
  EXPECT_TRUE(IsAutomorphism(t, {3, 7, 0, 5, 1, 2, 6, 4}));
  Symmetry s = FindSymmetry(t);
  EXPECT_EQ(CanonicalPlacement(s, {3, 7, 0, 5}), (net::Placement{0, 1, 2, 3}));
}

// A PCIe node is a two-socket tree (hw/catalog.cc: GPUs in pairs under PCIe
// switches, the switches under two CPU sockets), not one switch: not every
// permutation keeps routes, but the swap of a pair under one switch does.
TEST(Symmetry, PcieTreeIsNotFullySymmetric) {
  hw::Topology t = Topo("l40s:8");
  Symmetry s = FindSymmetry(t);
  EXPECT_FALSE(s.all_permutations);
  ExpectWellFormed(t, s);
  // gpu0 and gpu1 share a switch: swapping them maps every route onto a route;
  // gpu0 and gpu4 sit under different sockets, and swapping them alone does not.
  std::vector<int> pair_swap = Identity(8), socket_cross = Identity(8);
  std::swap(pair_swap[0], pair_swap[1]);
  std::swap(socket_cross[0], socket_cross[4]);
  EXPECT_TRUE(IsAutomorphism(t, pair_swap));
  EXPECT_FALSE(IsAutomorphism(t, socket_cross));
}

// h100:2x8: rails tie GPU i of every node to rail switch i, so a GPU
// permutation must act alike on every node (a rail permutation, the rail
// switches following) and may swap whole nodes: S_2 x S_8 = 2 * 40320 =
// 80640 elements. PXN routes (src -> nvswitch -> proxy on dst's rail -> rail
// -> dst) map onto PXN routes under both.
TEST(Symmetry, RailsAndNodeSwaps) {
  hw::Topology t = Topo("h100:2x8");
  std::vector<int> node_swap(16), rail_swap = Identity(16), one_node_only = Identity(16);
  for (int i = 0; i < 16; ++i) node_swap[static_cast<size_t>(i)] = (i + 8) % 16;
  std::swap(rail_swap[0], rail_swap[1]);
  std::swap(rail_swap[8], rail_swap[9]);
  std::swap(one_node_only[0], one_node_only[1]);
  EXPECT_TRUE(IsAutomorphism(t, node_swap));
  EXPECT_TRUE(IsAutomorphism(t, rail_swap));
  EXPECT_FALSE(IsAutomorphism(t, one_node_only));  // gpu0 and gpu1 of node 1 would need rails 0 and 1 swapped too

  Symmetry s = FindSymmetry(t);  // limit 4096 < 80640
  ExpectWellFormed(t, s);
  EXPECT_FALSE(s.all_permutations);
  EXPECT_TRUE(s.truncated);
  EXPECT_EQ(s.automorphisms.size(), 4096u);
  EXPECT_EQ(s.generators.size(), 8u);  // 7 adjacent rail swaps, 1 node swap
  EXPECT_TRUE(Contains(s, node_swap));
  EXPECT_TRUE(Contains(s, rail_swap));
  EXPECT_EQ(s.automorphisms.front(), Identity(16));

  Symmetry full = FindSymmetry(t, 100000);
  EXPECT_FALSE(full.truncated);
  EXPECT_EQ(full.automorphisms.size(), 80640u);
}

// A failed link breaks symmetry. v5e:2x4 (X = 4, Y = 2) with (0,0)-(0,1)
// failed: the x reflection would carry it onto the live (3,0)-(3,1) and
// fails; the y reflection carries it onto itself, and the detours around it
// (breadth-first) mirror: (0,0) -> (0,1) goes (0,0),(1,0),(1,1),(0,1) and
// (0,1) -> (0,0) goes (0,1),(1,1),(1,0),(0,0). So 2.
TEST(Symmetry, FailedLinkReducesTheGroup) {
  hw::Topology t = Topo("v5e:2x4");
  ASSERT_TRUE(hw::ApplyFailures(t, {"(0,0)-(0,1)"}, {}).ok());
  Symmetry s = FindSymmetry(t);
  ExpectWellFormed(t, s);
  EXPECT_EQ(s.automorphisms.size(), 2u);
  EXPECT_TRUE(Contains(s, {4, 5, 6, 7, 0, 1, 2, 3}));
}

// A failed chip must map to itself here: v5e:4x4 without (0,0) keeps only the
// identity (every reflection moves the corner). h100:4 without gpu0 keeps the
// permutations of gpus 1..3: 3! = 6.
TEST(Symmetry, FailedChipReducesTheGroup) {
  hw::Topology torus = Topo("v5e:4x4");
  ASSERT_TRUE(hw::ApplyFailures(torus, {}, {"(0,0)"}).ok());
  Symmetry s = FindSymmetry(torus);
  ExpectWellFormed(torus, s);
  EXPECT_EQ(s.automorphisms.size(), 1u);

  hw::Topology node = Topo("h100:4");
  ASSERT_TRUE(hw::ApplyFailures(node, {}, {"0"}).ok());
  Symmetry g = FindSymmetry(node);
  EXPECT_FALSE(g.all_permutations);
  ExpectWellFormed(node, g);
  EXPECT_EQ(g.automorphisms.size(), 6u);
  for (const std::vector<int>& perm : g.automorphisms) EXPECT_EQ(perm[0], 0);
}

TEST(Symmetry, RejectsNonPermutations) {
  hw::Topology t = Topo("v5e:2x2");
  EXPECT_TRUE(IsAutomorphism(t, {0, 1, 2, 3}));
  EXPECT_FALSE(IsAutomorphism(t, {0, 1, 2}));
  EXPECT_FALSE(IsAutomorphism(t, {0, 1, 1, 3}));
  EXPECT_FALSE(IsAutomorphism(t, {0, 1, 2, 4}));
  EXPECT_FALSE(IsAutomorphism(t, {0, 1, 2, -1}));
}

TEST(Symmetry, CanonicalPlacementIsConstantOnOrbits) {
  hw::Topology t = Topo("v5e:4x4");
  Symmetry s = FindSymmetry(t);
  net::Placement p{5, 2, 14, 9, 0, 11, 3, 7, 12, 1, 15, 6, 10, 4, 13, 8};
  net::Placement canonical = CanonicalPlacement(s, p);
  for (const std::vector<int>& perm : s.automorphisms) {
    EXPECT_EQ(CanonicalPlacement(s, ApplyAutomorphism(perm, p)), canonical);
  }
  EXPECT_EQ(CanonicalPlacement(s, Identity(16)), Identity(16));
}

// The point of it all: the collective model prices p and s∘p the same.
TEST(Symmetry, CollectiveCostsAreInvariant) {
  struct Case {
    const char* spec;
    std::vector<const char*> groups;
  };
  const std::vector<Case> cases = {
      {"v5e:4x4", {"[4,4]<=[16]", "[4,4]<=[4,4]T(1,0)", "[2,8]<=[16]", "[1,16]<=[16]"}},
      {"v5e:2x4", {"[4,2]<=[8]", "[2,4]<=[4,2]T(1,0)", "[1,8]<=[8]"}},
      {"v5p:2x2x2", {"[4,2]<=[8]", "[2,4]<=[8]", "[1,8]<=[8]"}},
      {"h100:2x8", {"[2,8]<=[16]", "[8,2]<=[2,8]T(1,0)", "[4,4]<=[16]", "[1,16]<=[16]"}},
  };
  for (const Case& c : cases) {
    hw::Topology t = Topo(c.spec);
    int n = t.num_chips();
    net::CollectiveModel model(t, net::DefaultCalibration(t));
    Symmetry s = FindSymmetry(t, 64);
    // A scrambled placement: i -> (5i + 3) mod n (5 is prime to n).
    net::Placement p(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) p[static_cast<size_t>(i)] = (5 * i + 3) % n;
    for (const char* groups : c.groups) {
      for (net::CollectiveKind kind : {net::CollectiveKind::kAllReduce, net::CollectiveKind::kAllGather,
                                       net::CollectiveKind::kAllToAll}) {
        net::Collective collective;
        collective.kind = kind;
        collective.bytes = Bytes(int64_t{1} << 24);
        auto parsed = net::ParseReplicaGroups(groups, n);
        ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
        collective.groups = *parsed;
        auto base = model.Price(collective, p);
        ASSERT_TRUE(base.ok()) << base.status().ToString();
        for (const std::vector<int>& perm : s.automorphisms) {
          auto image = model.Price(collective, ApplyAutomorphism(perm, p));
          ASSERT_TRUE(image.ok());
          EXPECT_NEAR(image->time.value(), base->time.value(), 1e-9 * base->time.value())
              << c.spec << " " << groups << " " << net::CollectiveKindName(kind);
        }
      }
    }
  }
}

}  // namespace
}  // namespace az::place
