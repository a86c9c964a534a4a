// The collective model against the scaling book's worked examples
// (reference/hardware.md §2.4) and NCCL-style GPU algorithms (§4.4-4.5).
#include "net/model.h"

#include <gtest/gtest.h>

#include "hw/testing.h"
#include "net/testing.h"

namespace az::net {
namespace {

using hw_test::Topo;

using net_test::Make;
using net_test::Price;

// The scaling book's formulas assume its link rates exactly, with no fixed
// cost per collective: these tests check the formulas under that calibration
// (the shipped TPU defaults add the measured efficiency and fixed cost;
// tpu_points_test.cc checks those against the book's measurements).
Calibration BookIci() { return Calibration(); }

constexpr double kW = 4.5e10;  // v5e ICI, one way per link (SB); W_ici = 2 kW with a wrap

// SB: bidirectional-ring AllGather on a wrapped axis takes ~V / W_ici,
// independent of X. Exactly: each link direction carries (X-1)/X * V/2, so
// the bandwidth term is (X-1)/X * V / W_ici; X = 16: 15/16 of V / W_ici.
TEST(CollectiveModel, AllGatherOnWrappedAxisIsVOverW) {
  hw::Topology t = Topo("v5e:16x16");
  CollectiveModel m(t, BookIci());
  const int64_t v = 1'000'000'000;
  // Rows of the 16x16 mesh (x varies within a group): 16 disjoint rings.
  Collective ag = Make(CollectiveKind::kAllGather, v, "[16,16]<=[256]", 256);
  CollectiveResult r = Price(m, ag, IdentityPlacement(256));
  EXPECT_NEAR(r.bandwidth_time.value(), 15.0 / 16.0 * v / (2 * kW), 1e-9);
  EXPECT_NEAR(r.time.value() / (v / (2 * kW)), 1.0, 0.07);
  // Latency: X/2 = 8 one-hop steps of 1 us (SB: T_min * X / 2).
  EXPECT_NEAR(r.latency_time.value(), 8e-6, 1e-12);
  EXPECT_EQ(r.algorithm, "bidirectional ring on x (wraparound)");
  // AllReduce = ReduceScatter + AllGather = 2x (SB).
  Collective ar = ag;
  ar.kind = CollectiveKind::kAllReduce;
  EXPECT_NEAR(Price(m, ar, IdentityPlacement(256)).bandwidth_time.value(), 2 * r.bandwidth_time.value(), 1e-12);
}

// SB: AllToAll on a bidirectional ring is ~1/4 of an AllGather of the same
// array. With V the global array, each chip sends V/X^2 to each peer; on a
// 16-ring with shortest routes (distance 8 goes the positive way) the busiest
// direction carries pairs at distances 1..8: (1+...+8) = 36 chunks of V/256,
// against (X-1)/X * V/2 = 15/32 V for the AllGather: ratio (36/256)/(15/32) = 0.3.
// SB's 1/4 assumes ties split both ways and X large.
TEST(CollectiveModel, AllToAllIsAboutAQuarterOfAllGather) {
  hw::Topology t = Topo("v5e:16x16");
  CollectiveModel m(t, BookIci());
  const int64_t v = 256'000'000;
  Collective ag = Make(CollectiveKind::kAllGather, v, "[16,16]<=[256]", 256);
  Collective a2a = Make(CollectiveKind::kAllToAll, v / 16, "[16,16]<=[256]", 256);  // per-device buffer V/X
  double t_ag = Price(m, ag, IdentityPlacement(256)).bandwidth_time.value();
  double t_a2a = Price(m, a2a, IdentityPlacement(256)).bandwidth_time.value();
  EXPECT_NEAR(t_a2a / t_ag, 0.3, 1e-9);
}

// SB worked example: v5e mesh {X:8, Y:4}, AllGather over the 4-chip axis,
// which has no wraparound on v5e. V = 34 MB, V/4 = 8.5 MB per shard.
// Without wrap: 3 hops x 8.5e6 / 4.5e10 = 566.7 us (SB rounds to 560 with
// 8.4 MB). SB's ring estimate, 34e6 / 9e10 = 377 us, is the large-X limit of a
// wrapped ring; a wrapped 4-ring moves (3/4) of it: 283 us.
TEST(CollectiveModel, NoWraparoundDoublesAllGather) {
  hw::Topology t = Topo("v5e:4x8");  // x has 8 chips, y 4 (GC names the short side first); neither wraps
  CollectiveModel m(t, BookIci());
  const int64_t v = 34'000'000;
  // Groups along y (4 chips): ids x + 8y, i.e. iota [4,8] transposed.
  Collective ag = Make(CollectiveKind::kAllGather, v, "[8,4]<=[4,8]T(1,0)", 32);
  CollectiveResult line = Price(m, ag, IdentityPlacement(32));
  EXPECT_NEAR(line.bandwidth_time.value(), 3 * 8.5e6 / kW, 1e-9);
  EXPECT_NEAR(line.time.value(), 560e-6, 0.02 * 560e-6);
  EXPECT_EQ(line.algorithm, "line on y (no wraparound)");
  // The same 4 chips with wraparound links: a 2-D 8x4 torus with wraps.
  hw::Topology wrapped = t;
  wrapped.wrap = {true, true};
  for (int y = 0; y < 4; ++y) wrapped.AddLink({8 * y + 7, 8 * y, Bandwidth(kW), Seconds(1e-6), hw::LinkClass::kIci, 0, true});
  for (int x = 0; x < 8; ++x) wrapped.AddLink({24 + x, x, Bandwidth(kW), Seconds(1e-6), hw::LinkClass::kIci, 1, true});
  ASSERT_TRUE(wrapped.Finalize().ok());
  CollectiveModel mw(wrapped, BookIci());
  CollectiveResult ring = Price(mw, ag, IdentityPlacement(32));
  EXPECT_NEAR(ring.bandwidth_time.value(), 0.75 * v / (2 * kW), 1e-9);
  EXPECT_NEAR(line.bandwidth_time.value() / ring.bandwidth_time.value(), 2.0, 1e-9);  // "no wrap doubles"
}

// Two concurrent 4-chip all-gathers on v5e:2x4 (chip id = x + 4y):
//   lines: {0,1,2,3} and {4,5,6,7}, rows without wrap: each direction of each
//          link carries (3/4) V  ->  0.75 V / w;
//   blocks: {0,1,4,5} and {2,3,6,7}, 2x2 sub-grids: two lanes of V/2; per
//          lane the first axis moves V/8 and the second 2V/8 per direction,
//          each axis busy with both lanes phase by phase: (V/8 + 2V/8) / w
//          = 0.375 V / w. Placement alone halves the time.
TEST(CollectiveModel, PlacementVisiblyMatters) {
  hw::Topology t = Topo("v5e:2x4");
  ASSERT_EQ(t.num_chips(), 8);
  CollectiveModel m(t, BookIci());
  const int64_t v = 64'000'000;
  Collective ag = Make(CollectiveKind::kAllGather, v, "{{0,1,2,3},{4,5,6,7}}", 8);
  // v5e:2x4 is 4 chips along x? Read the dims instead of assuming.
  int wide_axis = t.dims[0] == 4 ? 0 : 1;
  auto chip = [&](int along, int across) {
    return wide_axis == 0 ? along + 4 * across : across + 2 * along;
  };
  Placement lines, blocks;
  for (int g = 0; g < 2; ++g) {
    for (int i = 0; i < 4; ++i) lines.push_back(chip(i, g));
  }
  // Group 0 = the 2x2 block at along 0..1, group 1 = along 2..3.
  for (int g = 0; g < 2; ++g) {
    for (int i = 0; i < 4; ++i) blocks.push_back(chip(2 * g + i % 2, i / 2));
  }
  CollectiveResult r_lines = Price(m, ag, lines);
  CollectiveResult r_blocks = Price(m, ag, blocks);
  EXPECT_NEAR(r_lines.bandwidth_time.value(), 0.75 * v / kW, 1e-9);
  EXPECT_NEAR(r_blocks.bandwidth_time.value(), 0.375 * v / kW, 1e-9);
  EXPECT_EQ(r_blocks.algorithm.rfind("per-axis rings", 0), 0u) << r_blocks.algorithm;
  // Contention: groups interleaved along the line share its links.
  Placement interleaved;
  for (int g = 0; g < 2; ++g) {
    for (int i = 0; i < 4; ++i) interleaved.push_back(i < 2 ? chip(2 * i + g, 0) : chip(2 * (i - 2) + g, 1));
  }
  CollectiveResult r_mixed = Price(m, ag, interleaved);
  EXPECT_GT(r_mixed.bandwidth_time.value(), r_blocks.bandwidth_time.value());
}

TEST(CollectiveModel, PermuteContentionOnSharedLinks) {
  hw::Topology t = Topo("v5e:4x4");
  CollectiveModel m(t, BookIci());
  const int64_t bytes = 45'000'000;  // 1 ms on one link
  Collective one;
  one.kind = CollectiveKind::kCollectivePermute;
  one.bytes = Bytes(bytes);
  one.pairs = {{0, 2}};  // two hops along x
  CollectiveResult single = Price(m, one, IdentityPlacement(16));
  EXPECT_NEAR(single.bandwidth_time.value(), 1e-3, 1e-12);
  EXPECT_NEAR(single.latency_time.value(), 2e-6, 1e-12);  // 2 hops x 1 us
  Collective two = one;
  two.pairs = {{0, 2}, {1, 3}};  // both cross the link 1->2
  EXPECT_NEAR(Price(m, two, IdentityPlacement(16)).bandwidth_time.value(), 2e-3, 1e-12);
}

// GPU node (h100:8). Ring all-reduce moves 2 (n-1)/n V through each GPU's
// NVLink port (SB gpus: B (N-1)/(N W) per phase, two phases).
TEST(CollectiveModel, NvswitchAllReduceAlgorithms) {
  hw::Topology t = Topo("h100:8");
  Calibration cal;  // NCCL's own constants, not the fitted H100 defaults
  cal.algorithms.clear();
  CollectiveModel m(t, cal);
  const int64_t v = 1 << 30;
  Collective ar = Make(CollectiveKind::kAllReduce, v, "[1,8]<=[8]", 8);
  CollectiveResult big = Price(m, ar, IdentityPlacement(8));
  // Large messages: NVLS (each GPU pushes V up and pulls V down once) beats the
  // ring's 2 * 7/8 V when its efficiency 0.85 > 0.82 * 8 / 14.
  EXPECT_EQ(big.algorithm, "nvls");
  double port = t.chip.link_bw.value() * cal.LinkEfficiency(hw::LinkClass::kNvlink);
  EXPECT_NEAR(big.bandwidth_time.value(), v / port / 0.85, 1e-9);
  // Small messages: latency decides; the LL ring's 6.6 us base wins.
  Collective small = ar;
  small.bytes = Bytes(4096);
  EXPECT_EQ(Price(m, small, IdentityPlacement(8)).algorithm, "ring-ll");
  // All-gather over NVSwitch: (n-1)/n V per port; placement inside a node is symmetric.
  Collective ag = Make(CollectiveKind::kAllGather, v, "[2,4]<=[8]", 8);
  CollectiveResult r1 = Price(m, ag, IdentityPlacement(8));
  CollectiveResult r2 = Price(m, ag, Placement{7, 0, 5, 2, 1, 6, 3, 4});
  EXPECT_NEAR(r1.time.value(), r2.time.value(), 1e-15);
  EXPECT_NEAR(r1.bandwidth_time.value(), 0.75 * v / port, 1e-9);
}

// Two nodes: a 1 GiB all-reduce over all 16 GPUs runs NVLS trees (NVLink
// SHARP inside the nodes, each GPU's eighth over its rail), as NCCL does on
// Hopper clusters; a few bytes run the LL tree, whose latency is the chain
// inside a node and one network hop, each walked up and down.
TEST(CollectiveModel, MultiNodeAllReduceAlgorithms) {
  hw::Topology t = Topo("h100:2x8");
  CollectiveModel m(t, DefaultCalibration(t));
  Collective ar = Make(CollectiveKind::kAllReduce, int64_t{1} << 30, "[1,16]<=[16]", 16);
  EXPECT_EQ(Price(m, ar, IdentityPlacement(16)).algorithm, "nvls-tree");
  // Rail-aligned pairs across nodes (i, i+8) use their own rails: no contention,
  // each pair's ring edge moves V/2 over a 50 GB/s NIC port (x0.95 efficiency),
  // rail-ring-simple at efficiency 1.
  Collective pairs = Make(CollectiveKind::kAllGather, 1'000'000'000, "[8,2]<=[2,8]T(1,0)", 16);
  CollectiveResult rail = Price(m, pairs, IdentityPlacement(16));
  EXPECT_NEAR(rail.bandwidth_time.value(), 0.5e9 / (50e9 * 0.95) / 1.0, 0.01 * rail.bandwidth_time.value());
  // tree-ll at 8 bytes: steps 2 (7 chain hops + 1 tree level) = 16 at 0.6 us,
  // route latency 2 (7 x 0.6 us NVLink GPU->switch->GPU + 5 us network
  // GPU->rail->GPU) = 18.4 us, plus the fitted base (calibration.cc).
  Collective tiny = Make(CollectiveKind::kAllReduce, 8, "[1,16]<=[16]", 16);
  CollectiveResult ib = Price(m, tiny, IdentityPlacement(16));
  EXPECT_EQ(ib.algorithm, "tree-ll");
  double base = DefaultCalibration(t).Algorithm("tree-ll").base_latency.value();
  EXPECT_NEAR(ib.latency_time.value(), base + 16 * 0.6e-6 + 18.4e-6, 1e-12);
  // The same on EFA: each network message costs 25 us instead of 5 (catalog.cc),
  // walked twice (up and down the tree): 40 us more, the bandwidth term unchanged.
  hw::Topology efa = Topo("h100:2x8:efa");
  CollectiveModel me(efa, DefaultCalibration(efa));
  CollectiveResult on_efa = Price(me, tiny, IdentityPlacement(16));
  EXPECT_EQ(on_efa.algorithm, "tree-ll");
  EXPECT_NEAR(on_efa.time.value() - ib.time.value(), 40e-6, 1e-12);
}

// The rings over the rails: ring c of a 2x8 all-gather starts at GPU c of
// each node, so its node-crossing edges (node0/gpu(c-1) -> node1/gpu c over
// PXN, and back) use rail c alone. Each ring moves V/8 and a ring edge carries
// 15/16 of it: every direction of every NIC link 15/128 V (1 GB -> 117.19 MB).
// Each GPU's NVLink port sends one edge of each of the 8 rings: 15/16 V, the
// bottleneck at 450 x 0.82 GB/s against 50 x 0.95 GB/s for the NIC's 15/128 V.
TEST(CollectiveModel, RailRingsUseEveryRail) {
  hw::Topology t = Topo("h100:2x8");
  Calibration cal;  // NCCL's constants
  CollectiveModel m(t, cal);
  const double v = 1e9;
  Collective ag = Make(CollectiveKind::kAllGather, 1'000'000'000, "[1,16]<=[16]", 16);
  auto candidates = m.PriceCandidates(ag, IdentityPlacement(16));
  ASSERT_TRUE(candidates.ok());
  ASSERT_EQ(candidates->size(), 3u);  // rail rings only: trees and NVLS trees are all-reduce forms
  CollectiveResult r = Price(m, ag, IdentityPlacement(16));
  EXPECT_EQ(r.algorithm, "rail-ring-simple");
  int nic_channels = 0;
  for (auto [channel, bytes] : r.channel_bytes) {
    if (t.channel_link(channel).cls != hw::LinkClass::kNetwork) continue;
    ++nic_channels;
    EXPECT_NEAR(bytes, v * 15.0 / 128.0, 1.0) << t.ChannelName(channel);
  }
  EXPECT_EQ(nic_channels, 32);  // 16 NIC links, both directions
  EXPECT_NEAR(r.max_channel_bytes, v * 15.0 / 16.0, 1.0);
  EXPECT_NEAR(r.bandwidth_time.value(), v * 15.0 / 16.0 / (450e9 * 0.82), 1e-12);
}

// PCIe nodes (catalog.cc's two-socket tree). l40s:4: gpu0, gpu1 under pcie0
// on cpu0; gpu2, gpu3 under pcie1 on cpu1. An all-to-all of B bytes per GPU
// sends B/4 to each peer. Across the sockets go the pairs {0,1} -> {2,3}:
// 4 x B/4 = B on cpu0->cpu1 (22 GB/s, NCCL's Sapphire Rapids UPI figure,
// efficiency 1), B on the uplink pcie0->cpu0 (32 GB/s x 0.75 = 24 GB/s), 3B/4
// on each GPU port: the socket link is the bottleneck, B / 22e9; with
// B = 22 MB, 1 ms. Latency: the longest route, gpu->pcie->cpu->cpu->pcie->gpu,
// 5 links x 0.5 us, one step.
TEST(CollectiveModel, PcieAllToAllAcrossSockets) {
  hw::Topology t = Topo("l40s:4");
  CollectiveModel m(t, DefaultCalibration(t));
  Collective a2a = Make(CollectiveKind::kAllToAll, 22'000'000, "[1,4]<=[4]", 4);
  CollectiveResult r = Price(m, a2a, IdentityPlacement(4));
  EXPECT_EQ(t.channel_link(r.bottleneck_channel).cls, hw::LinkClass::kSocket);
  EXPECT_EQ(t.ChannelName(r.bottleneck_channel), "cpu0->cpu1");
  EXPECT_NEAR(r.max_channel_bytes, 22e6, 1.0);
  EXPECT_NEAR(r.bandwidth_time.value(), 1e-3, 1e-12);
  EXPECT_NEAR(r.latency_time.value(), 2.5e-6, 1e-12);
  // The same 4 GPUs on one socket would be bound by the uplinks instead: place
  // the group on l40s:8's gpu0..gpu3 (pcie0, pcie1, both on cpu0): pcie0->cpu0
  // carries {0,1} -> {2,3} = B at 24 GB/s.
  hw::Topology eight = Topo("l40s:8");
  CollectiveModel m8(eight, DefaultCalibration(eight));
  Collective local = Make(CollectiveKind::kAllToAll, 22'000'000, "[2,4]<=[8]", 8);
  CollectiveResult r8 = Price(m8, local, IdentityPlacement(8));
  EXPECT_NEAR(r8.bandwidth_time.value(), 22e6 / 24e9, 1e-12);
}

// Without peer-to-peer (RTX 4090) a swap between the two GPUs of one PCIe
// switch stages through cpu0: both directions of the pcie0-cpu0 uplink carry
// both transfers, 2B at 24 GB/s; with P2P (L40S) each GPU port carries B.
// B = 24 MB: 1 ms with P2P, 2 ms without; route latency 2 vs 4 links x 0.5 us.
TEST(CollectiveModel, PciePeerToPeerOnAndOff) {
  Collective swap;
  swap.kind = CollectiveKind::kCollectivePermute;
  swap.bytes = Bytes(24'000'000);
  swap.pairs = {{0, 1}, {1, 0}};
  hw::Topology l40s = Topo("l40s:4");
  CollectiveModel with_p2p(l40s, DefaultCalibration(l40s));
  CollectiveResult p2p = Price(with_p2p, swap, IdentityPlacement(4));
  EXPECT_NEAR(p2p.bandwidth_time.value(), 1e-3, 1e-12);
  EXPECT_NEAR(p2p.latency_time.value(), 1e-6, 1e-12);
  hw::Topology rtx = Topo("rtx4090:4");
  CollectiveModel staged(rtx, DefaultCalibration(rtx));
  CollectiveResult host = Price(staged, swap, IdentityPlacement(4));
  EXPECT_NEAR(host.bandwidth_time.value(), 2e-3, 1e-12);
  EXPECT_NEAR(host.latency_time.value(), 2e-6, 1e-12);
  EXPECT_EQ(rtx.ChannelName(host.bottleneck_channel), "pcie0->cpu0");
}

TEST(CollectiveModel, ErrorsAreClear) {
  hw::Topology t = Topo("v5e:2x4");
  CollectiveModel m(t, DefaultCalibration(t));
  Collective ag = Make(CollectiveKind::kAllGather, 1000, "[2,4]<=[8]", 8);
  auto bad = m.Price(ag, Placement{0, 1, 2, 3, 4, 5, 6, 6});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not a permutation"), std::string::npos);
  auto short_placement = m.Price(ag, Placement{0, 1, 2, 3});
  ASSERT_FALSE(short_placement.ok());
  EXPECT_NE(short_placement.status().message().find("no chip in the placement"), std::string::npos);
}

TEST(CollectiveModel, CachedTimeMatchesPrice) {
  hw::Topology t = Topo("v5e:4x4");
  CollectiveModel m(t, DefaultCalibration(t));
  Collective ag = Make(CollectiveKind::kAllGather, 1 << 24, "[4,4]<=[4,4]T(1,0)", 16);
  Placement p = IdentityPlacement(16);
  double priced = Price(m, ag, p).time.value();
  EXPECT_DOUBLE_EQ(m.Time(ag, p).value(), priced);
  EXPECT_DOUBLE_EQ(m.Time(ag, p).value(), priced);  // from the cache
  EXPECT_EQ(m.cache_size(), 1u);
}

}  // namespace
}  // namespace az::net

namespace az::net {
namespace {

// Time() memoizes under a canonical key; the invariances it relies on must
// hold for the uncached Price(): group order never matters, and neither does
// member order inside an all-to-all's groups.
TEST(CollectiveModelCache, CanonicalKeyMatchesUncachedPrices) {
  auto t = hw::MakeTopology("v5e:4x4");
  ASSERT_TRUE(t.ok());
  CollectiveModel model(*t, DefaultCalibration(*t));
  Placement p = {5, 0, 7, 2, 1, 6, 3, 4, 9, 8, 15, 10, 11, 13, 12, 14};
  for (CollectiveKind kind : {CollectiveKind::kAllToAll, CollectiveKind::kAllGather, CollectiveKind::kAllReduce}) {
    Collective a;
    a.kind = kind;
    a.bytes = MiB(64);
    a.groups.groups = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}};
    Collective b = a;  // groups listed in another order
    b.groups.groups = {{12, 13, 14, 15}, {0, 1, 2, 3}, {8, 9, 10, 11}, {4, 5, 6, 7}};
    auto pa = model.Price(a, p), pb = model.Price(b, p);
    ASSERT_TRUE(pa.ok() && pb.ok());
    EXPECT_NEAR(pa->time.value(), pb->time.value(), 1e-12 * pa->time.value());
    EXPECT_NEAR(model.Time(a, p).value(), pa->time.value(), 1e-12 * pa->time.value());
    EXPECT_NEAR(model.Time(b, p).value(), pa->time.value(), 1e-12 * pa->time.value());
    if (kind == CollectiveKind::kAllToAll) {
      Collective c = a;  // members reordered inside every group
      c.groups.groups = {{3, 1, 0, 2}, {7, 4, 6, 5}, {11, 10, 9, 8}, {13, 15, 12, 14}};
      auto pc = model.Price(c, p);
      ASSERT_TRUE(pc.ok());
      EXPECT_NEAR(pc->time.value(), pa->time.value(), 1e-12 * pa->time.value());
      EXPECT_NEAR(model.Time(c, p).value(), pa->time.value(), 1e-12 * pa->time.value());
    }
  }
}

}  // namespace
}  // namespace az::net

namespace az::net {
namespace {

// Time() prices from per-group shares memoized across calls (model.h); it
// must agree with the uncached Price() on any placement, for every kind, on
// groups that are full sub-grids and groups that are not, on two slices with
// groups inside one slice and groups spanning both, whatever was priced
// before, and also on a fresh model (no dependence on history).
TEST(CollectiveModelCache, PerGroupSharesMatchUncachedPrices) {
  uint64_t state = 12345;  // a fixed LCG: the same cases on every platform
  auto below = [&state](int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % static_cast<uint64_t>(n));
  };
  for (const char* name : {"v5e:4x4", "v5e:2x4", "v5p:2x2x2", "v5e:4x8", "v5e:2x4*2"}) {
    auto t = hw::MakeTopology(name);
    ASSERT_TRUE(t.ok());
    const int n = t->num_chips();
    CollectiveModel model(*t, DefaultCalibration(*t));
    for (int trial = 0; trial < 60; ++trial) {
      Placement p = IdentityPlacement(n);
      for (int i = n - 1; i > 0; --i) std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(below(i + 1))]);
      // Groups of a random size dividing n, members in a random order: some
      // land on sub-grids (per-axis rings), most do not (embedded cycles or
      // group-order rings).
      const int size = std::vector<int>{2, 4, 8}[static_cast<size_t>(below(3))];
      std::vector<int> ids(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = i;
      if (trial % 2 == 1) {
        for (int i = n - 1; i > 0; --i) std::swap(ids[static_cast<size_t>(i)], ids[static_cast<size_t>(below(i + 1))]);
      }
      Collective c;
      c.kind = std::vector<CollectiveKind>{CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                                           CollectiveKind::kAllReduce, CollectiveKind::kAllToAll,
                                           CollectiveKind::kBroadcast,
                                           CollectiveKind::kCollectivePermute}[static_cast<size_t>(trial % 6)];
      c.bytes = Bytes(int64_t{1} << (16 + below(10)));
      c.root = below(size);
      for (int g = 0; g < n / size; ++g) {
        c.groups.groups.emplace_back(ids.begin() + g * size, ids.begin() + (g + 1) * size);
      }
      for (int i = 0; i < n; ++i) c.pairs.push_back({ids[static_cast<size_t>(i)], ids[static_cast<size_t>((i + 1) % n)]});
      auto priced = model.Price(c, p);
      ASSERT_TRUE(priced.ok()) << priced.status().ToString();
      const double want = priced->time.value();
      SCOPED_TRACE(std::string(name) + " trial " + std::to_string(trial));
      EXPECT_NEAR(model.Time(c, p).value(), want, 1e-12 * want);
      EXPECT_NEAR(model.Time(c, p).value(), want, 1e-12 * want);  // the class memo
      CollectiveModel fresh(*t, DefaultCalibration(*t));
      EXPECT_NEAR(fresh.Time(c, p).value(), want, 1e-12 * want);
    }
  }
}

// A torus group that is a full sub-grid prices the same whatever its member
// order (per-axis rings over its coordinate sets), which Time's key relies on;
// a group that is not a sub-grid does depend on the order (its ring runs in
// group order), so Time must keep that order.
TEST(CollectiveModelCache, SubGridMemberOrderDoesNotMatter) {
  auto t = hw::MakeTopology("v5e:4x4");
  ASSERT_TRUE(t.ok());
  CollectiveModel model(*t, DefaultCalibration(*t));
  Placement p = IdentityPlacement(16);
  auto gather = [](std::vector<int> members) {  // one all-gather group of 16 MiB
    Collective c;
    c.kind = CollectiveKind::kAllGather;
    c.bytes = MiB(16);
    c.groups.groups = {std::move(members)};
    return c;
  };
  // Chips {0,1,4,5}: coordinates x in {0,1}, y in {0,1}, a 2x2 sub-grid.
  Collective grid = gather({0, 1, 4, 5}), shuffled = gather({5, 0, 4, 1});
  auto a = model.Price(grid, p), b = model.Price(shuffled, p);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->time.value(), b->time.value());
  EXPECT_EQ(model.Time(shuffled, p).value(), model.Time(grid, p).value());
  // Chips 0, 5, 10, 15: the diagonal, no sub-grid; two orders, two rings.
  Collective line = gather({0, 5, 10, 15}), other = gather({0, 10, 5, 15});
  auto c = model.Price(line, p), d = model.Price(other, p);
  ASSERT_TRUE(c.ok() && d.ok());
  EXPECT_NE(c->time.value(), d->time.value());
  EXPECT_EQ(model.Time(line, p).value(), c->time.value());
  EXPECT_EQ(model.Time(other, p).value(), d->time.value());
}

}  // namespace
}  // namespace az::net

