// JAX's default placement against the worked traces of reference/hardware.md
// §3.2-3.4. Each expected placement is derived in a comment: chip id =
// x + X*(y + Y*z), logical id = row-major position in the mesh shape.
#include "place/default_placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "hw/testing.h"
#include "place/candidates.h"

namespace az::place {
namespace {

using hw_test::Topo;

net::Placement Identity(int n) {
  net::Placement p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  return p;
}

DeviceMesh Explained(const hw::Topology& t, const std::vector<int64_t>& shape, bool split) {
  auto mesh = CreateDeviceMeshExplained(t, shape, split);
  EXPECT_TRUE(mesh.ok()) << t.name << " " << mesh.status().ToString();
  if (mesh.ok()) {
    EXPECT_TRUE(net::ValidatePlacement(mesh->placement, t.num_chips()).ok());
  }
  return mesh.ok() ? std::move(mesh).value() : DeviceMesh();
}

net::Placement Default(const hw::Topology& t, const std::vector<int64_t>& shape) {
  auto p = DefaultPlacement(t, shape);
  EXPECT_TRUE(p.ok()) << t.name << " " << p.status().ToString();
  if (p.ok()) {
    EXPECT_TRUE(net::ValidatePlacement(*p, t.num_chips()).ok());
  }
  return p.ok() ? std::move(p).value() : net::Placement();
}

// The catalog's "v5e:2x4" is JAX's 4x2 host, X = 4, Y = 2: chip 2 is (2,0).
// The ring orders below are applied to chip ids whatever the geometry.
TEST(DefaultPlacement, AxisOrderOfTheCatalog) {
  hw::Topology t = Topo("v5e:2x4");
  EXPECT_EQ(t.dims, (std::vector<int>{4, 2}));
  EXPECT_EQ(t.nodes[2].name, "(2,0)");
}

// §3.2, v5e/v6e, bounds 2x2x1 and 4 devices: (0,1,3,2) for any mesh shape.
TEST(DefaultPlacement, V5e2x2RingOrder) {
  for (const char* spec : {"v5e:2x2", "v6e:2x2"}) {
    hw::Topology t = Topo(spec);
    DeviceMesh mesh = Explained(t, {2, 2}, false);
    EXPECT_EQ(mesh.method, MeshMethod::kRingOrder);
    EXPECT_EQ(mesh.placement, (net::Placement{0, 1, 3, 2}));
    EXPECT_EQ(DescribeDeviceMesh(t, {2, 2}, mesh),
              "mesh [2,2] on " + t.name + ": " + t.chip.name + " ring order (0,1,3,2)");
    EXPECT_EQ(Default(t, {4}), (net::Placement{0, 1, 3, 2}));
  }
}

// §3.2, v5e/v6e, 8 devices, bounds not 2x2x2 (the v5e iota order needs a 3D
// v5e, which the catalog cannot build): (0,1,2,3,7,6,5,4) for every shape.
TEST(DefaultPlacement, V5eHostRingOrder) {
  const net::Placement ring{0, 1, 2, 3, 7, 6, 5, 4};
  for (const char* spec : {"v5e:2x4", "v6e:2x4"}) {
    hw::Topology t = Topo(spec);
    EXPECT_EQ(Default(t, {8}), ring);
    EXPECT_EQ(Default(t, {2, 4}), ring);
    EXPECT_EQ(Default(t, {4, 2}), ring);
    EXPECT_EQ(CreateDeviceMesh(t, {2, 2, 2}, false).value(), ring);
    // On the 4x2 host it is a Hamiltonian cycle: row y = 0 left to right
    // (0,1,2,3), up to (3,1) = 7, row y = 1 right to left, back down: 8 hops.
    int hops = 0;
    for (size_t i = 0; i < ring.size(); ++i) hops += t.Hops(ring[i], ring[(i + 1) % ring.size()]);
    EXPECT_EQ(hops, 8);
  }
}

// §3.2, v5e 4x4 and 16 devices: the listed ring only when max(mesh_shape) == 16.
TEST(DefaultPlacement, V5e4x4RingOnlyForOneGroup) {
  hw::Topology t = Topo("v5e:4x4");
  const net::Placement ring{0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4};
  EXPECT_EQ(Default(t, {16}), ring);
  EXPECT_EQ(Default(t, {1, 16}), ring);
  // A Hamiltonian cycle of unit steps: 3 -> 7 goes up, 5 = (1,1) -> 9 = (1,2)
  // up, 12 -> 8 -> 4 -> 0 down the x = 0 column back to the start.
  for (size_t i = 0; i < ring.size(); ++i) EXPECT_EQ(t.Hops(ring[i], ring[(i + 1) % ring.size()]), 1) << i;
  // (4,4): the handler declines (max 4). Generic on physical (4,4,1): axis 1
  // = 4: 3-subsets give 16, 2-subsets (x,y) 16, (x,z) 4 -> x and z; axis 0
  // takes y. Readout: index = y*4 + x = chip id: the identity.
  DeviceMesh mesh = Explained(t, {4, 4}, false);
  EXPECT_EQ(mesh.method, MeshMethod::kWholeAxes);
  EXPECT_EQ(mesh.placement, Identity(16));
}

// §3.2, v5p bounds 2x2x2: the Gray-code cycle (0,1,3,2,6,7,5,4). v4 has no
// handler: generic.
TEST(DefaultPlacement, V5p2x2x2GrayCodeButNotV4) {
  hw::Topology v5p = Topo("v5p:2x2x2");
  const net::Placement gray{0, 1, 3, 2, 6, 7, 5, 4};
  EXPECT_EQ(Default(v5p, {8}), gray);
  EXPECT_EQ(Default(v5p, {2, 4}), gray);
  for (size_t i = 0; i < gray.size(); ++i) EXPECT_EQ(v5p.Hops(gray[i], gray[(i + 1) % gray.size()]), 1);
  hw::Topology v4 = Topo("v4:2x2x2");
  // (8): the one 3-subset, all axes. Along the axis the index is the
  // mixed-radix (x, y, z), x major (numpy's row-major flattening of the
  // (X, Y, Z) array): logical 1 = (0,0,1) = chip 4. This is z-fastest order,
  // the same sequence as JAX's v5e "iota" tray order.
  EXPECT_EQ(Default(v4, {8}), (net::Placement{0, 4, 2, 6, 1, 5, 3, 7}));
  // (2,4): axis 1 = 4 = (x,y) (first 2-subset); axis 0 = z. Along axis 1 the
  // index is x*2 + y (lower physical axis major): i1 = 1 -> (0,1,0) = chip 2,
  // i1 = 2 -> (1,0,0) = chip 1.
  EXPECT_EQ(Default(v4, {2, 4}), (net::Placement{0, 2, 1, 3, 4, 6, 5, 7}));
}

// §3.3 trace: v5e 16x16 = physical (16,16,1) with (16,16): axis 1 takes x and
// the size-1 z (first 2-subset with product 16 is (x,z)), axis 0 = y. Index
// i0*16 + i1 -> (x = i1, y = i0): the identity.
TEST(DefaultPlacement, V5e16x16WholeAxes) {
  hw::Topology t = Topo("v5e:16x16");
  DeviceMesh mesh = Explained(t, {16, 16}, true);
  EXPECT_EQ(mesh.method, MeshMethod::kWholeAxes);
  EXPECT_EQ(mesh.assignment, (std::vector<std::vector<int64_t>>{{1, 16}, {16, 1}, {1, 1}}));
  EXPECT_EQ(mesh.placement, Identity(256));
  EXPECT_EQ(DescribeDeviceMesh(t, {16, 16}, mesh),
            "mesh [16,16] on v5e:16x16 (physical 16x16x1), whole axes: axis 0 = y; axis 1 = x");
}

// §3.3 trace: v4 4x4x4 with (4,16): axis 1 = 16 = (x,y), x major; axis 0 = z.
// Logical i0*16 + i1 -> x = i1 / 4, y = i1 % 4, z = i0.
TEST(DefaultPlacement, V4Cube4By16) {
  hw::Topology t = Topo("v4:4x4x4");
  net::Placement p = Default(t, {4, 16});
  ASSERT_EQ(p.size(), 64u);
  EXPECT_EQ(p[1], 4);    // (0,1,0)
  EXPECT_EQ(p[4], 1);    // (1,0,0)
  EXPECT_EQ(p[5], 5);    // (1,1,0)
  EXPECT_EQ(p[16], 16);  // (0,0,1)
  EXPECT_EQ(p[63], 63);  // (3,3,3)
  for (int logical = 0; logical < 64; ++logical) {
    int i0 = logical / 16, i1 = logical % 16;
    EXPECT_EQ(p[static_cast<size_t>(logical)], i1 / 4 + 4 * (i1 % 4) + 16 * i0);
  }
  // Size-1 axes change nothing: (4,1,16) leaves the middle axis unmatched.
  EXPECT_EQ(Default(t, {4, 1, 16}), p);
  EXPECT_EQ(Default(t, {1, 4, 16}), p);
}

// §3.4 trace: v5e 16x16 with (8,32). No subset of (16,16,1) gives 32, v5e may
// split. Axis 1 = 32 = 2^5 over exponents (4,4,0): candidates (16,2,1),
// (8,4,1), (4,8,1), (2,16,1). Whole-axis product 16 for the first and last,
// one whole axis each, no prior use; lexicographic: (16,2,1). Axis 0 = 8:
// only (1,8,1). So A = x:[1,16], y:[8,2], z:[1,1]: y = d0*2 + d1 with axis 0
// the major digit; along axis 1 the index is x*2 + d1.
// Logical i0*32 + i1 -> x = i1 / 2, y = 2*i0 + i1 % 2.
TEST(DefaultPlacement, V5e16x16Split8By32) {
  hw::Topology t = Topo("v5e:16x16");
  DeviceMesh mesh = Explained(t, {8, 32}, true);
  EXPECT_EQ(mesh.method, MeshMethod::kSplitAxes);
  EXPECT_EQ(mesh.assignment, (std::vector<std::vector<int64_t>>{{1, 16}, {8, 2}, {1, 1}}));
  EXPECT_EQ(mesh.placement[1], 16);   // (0,1)
  EXPECT_EQ(mesh.placement[2], 1);    // (1,0)
  EXPECT_EQ(mesh.placement[3], 17);   // (1,1)
  EXPECT_EQ(mesh.placement[32], 32);  // (0,2)
  for (int logical = 0; logical < 256; ++logical) {
    int i0 = logical / 32, i1 = logical % 32;
    EXPECT_EQ(mesh.placement[static_cast<size_t>(logical)], i1 / 2 + 16 * (2 * i0 + i1 % 2));
  }
  EXPECT_EQ(Default(t, {8, 32}), mesh.placement);  // make_mesh splits on v5e
  EXPECT_EQ(DescribeDeviceMesh(t, {8, 32}, mesh),
            "mesh [8,32] on v5e:16x16 (physical 16x16x1), split axes: axis 0 = y/8; axis 1 = x, y/2");
}

// §3.4 trace: v5e 4x4 with (2,2,4). The ring declines (max 4). Generic: axis
// 2 takes (x,z), axis 1 = 2 finds nothing in [0,4,0]: split from scratch.
// Axis 2 = 4: (4,1,1) and (1,4,1) tie on whole size and count; lexicographic
// (4,1,1) = x. Axis 1 = 2: (1,2,1); axis 0 = 2: (1,2,1). y = d0*2 + d1, so
// logical i0*8 + i1*4 + i2 -> x = i2, y = 2*i0 + i1: the identity.
TEST(DefaultPlacement, V5e4x4Split2x2x4) {
  hw::Topology t = Topo("v5e:4x4");
  DeviceMesh mesh = Explained(t, {2, 2, 4}, true);
  EXPECT_EQ(mesh.method, MeshMethod::kSplitAxes);
  EXPECT_EQ(mesh.placement, Identity(16));
  EXPECT_EQ(Default(t, {2, 2, 4}), Identity(16));
}

// JAX's docstring example "2x2x16 from 8x8" on v5e 8x8: axis 2 = 16 over
// exponents (3,3,0): (8,2,1) and (2,8,1) have whole size 8, (4,4,1) none;
// lexicographic (8,2,1). Axes 1, 0 = 2 each take y: y = d0*4 + d1*2 + d2.
// Logical i0*32 + i1*16 + i2 -> x = i2 / 2, y = 4*i0 + 2*i1 + i2 % 2.
TEST(DefaultPlacement, V5e8x8Split2x2x16) {
  hw::Topology t = Topo("v5e:8x8");
  net::Placement p = Default(t, {2, 2, 16});
  ASSERT_EQ(p.size(), 64u);
  EXPECT_EQ(p[1], 8);    // (0,1)
  EXPECT_EQ(p[2], 1);    // (1,0)
  EXPECT_EQ(p[16], 16);  // (0,2)
  EXPECT_EQ(p[32], 32);  // (0,4)
  for (int logical = 0; logical < 64; ++logical) {
    int i0 = logical / 32, i1 = logical / 16 % 2, i2 = logical % 16;
    EXPECT_EQ(p[static_cast<size_t>(logical)], i2 / 2 + 8 * (4 * i0 + 2 * i1 + i2 % 2));
  }
}

// Split on a cube (only reachable with allow_split_physical_axes=True):
// v5p 4x4x4 with (8,8). Axis 1 = 8 over exponents (2,2,2): the six vectors
// with one whole axis tie (whole size 4, one axis), (2,2,2) loses;
// lexicographic (4,2,1). Axis 0 = 8 over the rest (1,2,4): (1,2,4).
// x:[1,4], y:[2,2], z:[4,1]. Logical i0*8 + i1 -> x = i1 / 2,
// y = 2*(i0 / 4) + i1 % 2, z = i0 % 4.
TEST(DefaultPlacement, V5pSplitWhenAsked) {
  hw::Topology t = Topo("v5p:4x4x4");
  DeviceMesh mesh = Explained(t, {8, 8}, true);
  EXPECT_EQ(mesh.assignment, (std::vector<std::vector<int64_t>>{{1, 4}, {2, 2}, {4, 1}}));
  for (int logical = 0; logical < 64; ++logical) {
    int i0 = logical / 8, i1 = logical % 8;
    EXPECT_EQ(mesh.placement[static_cast<size_t>(logical)], i1 / 2 + 4 * (2 * (i0 / 4) + i1 % 2) + 16 * (i0 % 4));
  }
}

// §3.4 (c): the code prefers overlap with axes more intense axes already use.
// hardware.md's example: 4x4x4, prior use 1x2x4, a new axis of size 2.
// Candidates (2,1,1) and (1,2,1) (z has nothing left): neither takes a whole
// axis; overlap (product on used axes y, z): 1 vs 2 -> (1,2,1), although the
// source comment promises (2,1,1).
TEST(DefaultPlacement, SplitComparatorPrefersOverlapAsCoded) {
  EXPECT_EQ(PickSplitFactors({4, 4, 4}, {1, 2, 4}, 2), (std::vector<int64_t>{1, 2, 1}));
  // (a) beats lexicographic order: a whole axis wins over a larger first entry.
  EXPECT_EQ(PickSplitFactors({2, 4, 4}, {1, 1, 1}, 4), (std::vector<int64_t>{1, 4, 1}));
  // (b) on a tie of (a): on (2,2,4), size 4, (2,2,1) and (1,1,4) both take
  // whole axes of product 4, the first two of them: (2,2,1).
  EXPECT_EQ(PickSplitFactors({2, 2, 4}, {1, 1, 1}, 4), (std::vector<int64_t>{2, 2, 1}));
  // Non-powers of two: 12 on (4,4,12) takes the whole z.
  EXPECT_EQ(PickSplitFactors({4, 4, 12}, {1, 1, 1}, 12), (std::vector<int64_t>{1, 1, 12}));
}

// GPUs: sorted by id, row-major: the identity for every shape.
TEST(DefaultPlacement, GpusAreIdentity) {
  for (const char* spec : {"h100:8", "h100:2x8", "l40s:8"}) {
    hw::Topology t = Topo(spec);
    DeviceMesh mesh = Explained(t, {2, t.num_chips() / 2}, false);
    EXPECT_EQ(mesh.method, MeshMethod::kDeviceOrder);
    EXPECT_EQ(mesh.placement, Identity(t.num_chips()));
    EXPECT_EQ(Default(t, {t.num_chips()}), Identity(t.num_chips()));
  }
}

TEST(DefaultPlacement, MakeMeshSplitsOnlyOnV5e) {
  EXPECT_TRUE(MakeMeshAllowsSplit(Topo("v5e:4x4")));
  EXPECT_FALSE(MakeMeshAllowsSplit(Topo("v6e:4x4")));
  EXPECT_FALSE(MakeMeshAllowsSplit(Topo("v5p:4x4x4")));
  EXPECT_FALSE(MakeMeshAllowsSplit(Topo("v4:4x4x4")));
  EXPECT_FALSE(MakeMeshAllowsSplit(Topo("h100:8")));
}

// JAX dispatches on the device kind; the model on the catalog's traits
// (jax_device_order, jax_make_mesh_splits_axes), never the chip's name: the
// same slice with its chip renamed places every mesh the same way.
TEST(DefaultPlacement, ReadsTraitsNotNames) {
  for (const char* spec : {"v5e:2x2", "v5e:4x4", "v6e:2x4", "v5p:2x2x2", "v4:2x2x2", "h100:8"}) {
    hw::Topology t = Topo(spec), renamed = Topo(spec);
    renamed.chip.name = "renamed";
    EXPECT_EQ(MakeMeshAllowsSplit(renamed), MakeMeshAllowsSplit(t)) << spec;
    const int64_t n = t.num_chips();
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{n}, std::vector<int64_t>{2, n / 2}}) {
      EXPECT_EQ(Default(renamed, shape), Default(t, shape)) << spec;
    }
  }
}

TEST(DefaultPlacementErrors, ProductMismatch) {
  hw::Topology t = Topo("v5e:2x4");
  auto p = DefaultPlacement(t, {2, 2});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "mesh [2,2] has 4 devices but v5e:2x4 has 8 chips; the product of the mesh axes must equal the chip count");
  auto big = DefaultPlacement(t, {1000000, 1000000, 1000000, 1000000});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("more than 8 devices"), std::string::npos) << big.status().message();
}

TEST(DefaultPlacementErrors, BadShapes) {
  hw::Topology t = Topo("v5e:2x4");
  EXPECT_EQ(DefaultPlacement(t, {}).status().message(), "mesh shape is empty: give at least one axis size");
  EXPECT_EQ(DefaultPlacement(t, {0, 8}).status().message(), "mesh [0,8]: axis sizes must be at least 1");
  EXPECT_EQ(DefaultPlacement(t, {-2, -4}).status().message(), "mesh [-2,-4]: axis sizes must be at least 1");
  EXPECT_EQ(DefaultPlacement(t, {1000000, 0}).status().message(), "mesh [1000000,0]: axis sizes must be at least 1");
}

// v6e 4x4 with (2,2,4): the ring declines, axis 2 takes (x,z), axis 1 = 2
// finds nothing in [0,4,0]; make_mesh does not split on v6e.
TEST(DefaultPlacementErrors, V6eWillNotSplit) {
  hw::Topology t = Topo("v6e:4x4");
  auto p = DefaultPlacement(t, {2, 2, 4});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(),
            "cannot map mesh [2,2,4] onto v6e:4x4 (physical 4x4x1) without splitting physical axes: logical axis 1 of "
            "size 2 is no product of the remaining physical axes [0,4,0] (taken axes shown as 0); JAX splits axes "
            "only with allow_split_physical_axes, which jax.make_mesh turns on for v5e alone");
  // The same mesh on v5e with splitting off fails the same way.
  EXPECT_FALSE(CreateDeviceMesh(Topo("v5e:4x4"), {2, 2, 4}, false).ok());
}

// v5p 4x4x4 with (8,8): 8 is no product of 4s; v5p does not split.
TEST(DefaultPlacementErrors, V5pWillNotSplit) {
  hw::Topology t = Topo("v5p:4x4x4");
  auto p = DefaultPlacement(t, {8, 8});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("cannot map mesh [8,8] onto v5p:4x4x4 (physical 4x4x4) without splitting"),
            std::string::npos)
      << p.status().message();
  EXPECT_NE(p.status().message().find("logical axis 1 of size 8"), std::string::npos);
}

}  // namespace
}  // namespace az::place

namespace az::place {
namespace {

// v5e:2x2*2, mesh (cfg=2, ulysses=4): the default is create_hybrid_device_mesh
// with the slice count on the outermost axis it divides: dcn (2,1), ici (1,4).
// Each slice's create_device_mesh([1,4]) on a 2x2 is JAX's 2x2 ring order
// (0,1,3,2) (§3.2); granule g (row-major over dcn = cfg) is slice g, chip ids
// g*4 + local: ranks 0..3 -> 0,1,3,2; ranks 4..7 -> 4,5,7,6.
TEST(HybridMesh, DefaultPutsTheSlicesOnTheOutermostAxis) {
  hw::Topology t = hw_test::Topo("v5e:2x2*2");
  auto p = DefaultPlacement(t, {2, 4});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(*p, (net::Placement{0, 1, 3, 2, 4, 5, 7, 6}));
  // create_device_mesh alone refuses devices of two slices, as JAX's make_mesh does.
  auto single = CreateDeviceMesh(t, {2, 4}, true);
  ASSERT_FALSE(single.ok());
  EXPECT_NE(single.status().message().find("create_hybrid_device_mesh"), std::string::npos);
  // The DCN factors go outermost first: (3, 4) over 2 slices: 3 takes gcd(2,3) = 1, 4 takes 2.
  EXPECT_EQ(*DefaultDcnShape({3, 4}, 2), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(DefaultDcnShape({3, 3}, 2).ok());
  // A dcn shape needing more slices than there are is an error.
  EXPECT_FALSE(CreateHybridDeviceMesh(t, {1, 2}, {2, 2}, true).ok());
}

// The hybrid candidate with ulysses across DCN on v5e:2x2*2, mesh (2, 4):
// dcn (1,2), ici (2,2); per slice JAX's create_device_mesh([2,2]) on the 2x2
// is the ring order (0,1,3,2) (local rank r -> chip order[r]). Rank k at mesh
// position (c, u): granule = u / 2 (row-major over dcn (1,2)), local rank
// (c % 2) * 2 + u % 2, chip = 4 * granule + order[local]:
//   (0,0) g0 l0 -> 0; (0,1) g0 l1 -> 1; (0,2) g1 l0 -> 4; (0,3) g1 l1 -> 5;
//   (1,0) g0 l2 -> 3; (1,1) g0 l3 -> 2; (1,2) g1 l2 -> 7; (1,3) g1 l3 -> 6.
TEST(HybridMesh, CandidateWithUlyssesAcrossDcnByHand) {
  hw::Topology t = hw_test::Topo("v5e:2x2*2");
  std::vector<Candidate> candidates = StructuredCandidates(t, {2, 4}, {"cfg", "ulysses"});
  const Candidate* found = nullptr;
  bool cfg_across = false, ulysses_across = false;
  for (const Candidate& c : candidates) {
    if (c.name == "hybrid dcn(ulysses=2) jax rank(cfg,ulysses)") found = &c;
    cfg_across = cfg_across || c.name.rfind("hybrid dcn(cfg=2) ", 0) == 0;
    ulysses_across = ulysses_across || c.name.rfind("hybrid dcn(ulysses=2) ", 0) == 0;
    EXPECT_TRUE(net::ValidatePlacement(c.placement, 8).ok()) << c.name;
  }
  EXPECT_TRUE(cfg_across && ulysses_across);  // both axes the slice count divides
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->placement, (net::Placement{0, 1, 4, 5, 3, 2, 7, 6}));
  DomainSplit split = SplitOverDomains(ChipDomains(t), {2, 4}, found->placement);
  EXPECT_EQ(split.domains, 2);
  EXPECT_EQ(split.outer, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(split.inner, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(split.hybrid);
  // Alternating slices along ulysses (0,4,1,5 | 2,6,3,7): each ulysses line
  // crosses 2 slices and each cfg line stays in one, but rank 1 = (0,1) sits in
  // slice 1 where the hybrid layout (granule u / 2 = 0) wants slice 0: not hybrid.
  DomainSplit mixed = SplitOverDomains(ChipDomains(t), {2, 4}, {0, 4, 1, 5, 2, 6, 3, 7});
  EXPECT_EQ(mixed.outer, (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(mixed.hybrid);
  // GPU nodes are domains too: h100:2x8 chip 9 is node 1.
  EXPECT_EQ(ChipDomains(hw_test::Topo("h100:2x8"))[9], 1);
}

}  // namespace
}  // namespace az::place
