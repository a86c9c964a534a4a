// The chip catalog, the named topologies, routing and failures. Every expected
// count is derived in a comment from the shape and the rules in topology.h.
#include <gtest/gtest.h>

#include <tuple>

#include <algorithm>
#include <string>
#include <vector>

#include "hw/chip.h"
#include "hw/testing.h"
#include "hw/topology.h"
#include "hw/topology_svg.h"

namespace az::hw {
namespace {

// The traits downstream code reads instead of chip names (chip.h) agree with
// the family: TPU-only traits on TPUs, GPU-only ones on GPUs; the H100's
// silicon twins are Hopper parts; a fitted chip says what it was fitted to.
TEST(ChipTraits, AgreeWithTheFamily) {
  for (const ChipSpec& chip : ChipCatalog()) {
    const bool tpu = chip.family == ChipFamily::kTpu;
    EXPECT_EQ(chip.architecture == Architecture::kTpu, tpu) << chip.name;
    EXPECT_EQ(chip.mxu > 0, tpu) << chip.name;
    EXPECT_EQ(chip.tpu_slices != TpuSlices::kNone, tpu) << chip.name;
    if (!tpu) {
      EXPECT_EQ(chip.jax_device_order, JaxDeviceOrder::kGeneric) << chip.name;
      EXPECT_FALSE(chip.jax_make_mesh_splits_axes) << chip.name;
    } else {
      EXPECT_FALSE(chip.nvls || chip.h100_silicon) << chip.name;
      EXPECT_TRUE(chip.fitted_fabric.node.empty() && chip.fitted_compute.matmul == 0) << chip.name;
    }
    if (chip.h100_silicon) {
      EXPECT_EQ(chip.architecture, Architecture::kHopper) << chip.name;
      EXPECT_EQ(chip.sm_count, 132) << chip.name;
    }
    if (chip.nvls) {
      EXPECT_GT(chip.links_per_chip, 0) << chip.name << ": NVLS needs NVSwitch links";
    }
    if (chip.fitted_compute.matmul > 0) {
      EXPECT_FALSE(chip.fitted_compute.source.empty()) << chip.name;
    }
    EXPECT_GT(chip.host_link_bw.value(), 0) << chip.name << ": every catalog entry has a host link row";
  }
}

// The host link is a field: a copy of an entry under a new name keeps it, and
// an entry without one falls back by family, saying so.
TEST(ChipTraits, HostLinkIsAField) {
  ChipSpec renamed = **FindChip("v6e");
  renamed.name = "trillium-copy";
  std::string source;
  EXPECT_DOUBLE_EQ(HostLinkBandwidth(renamed, &source).value(), 3.2e10);
  EXPECT_EQ(source, "hardware.md §2.1 (SB): PCIe host link 3.2e10 B/s per TPU on v6e");
  renamed.host_link_bw = Bandwidth(0);
  EXPECT_DOUBLE_EQ(HostLinkBandwidth(renamed, &source).value(), 1.6e10);
  EXPECT_EQ(source, "chip 'trillium-copy' not in the table: assumed the TPU figure 1.6e10 B/s (SB)");
}

using hw_test::Topo;

int Node(const Topology& t, const std::string& name) {
  int id = t.FindNode(name);
  EXPECT_GE(id, 0) << "no node " << name << " in " << t.name;
  return id;
}

std::vector<std::string> RouteNames(const Topology& t, const std::string& from, const std::string& to) {
  auto route = t.Route(Node(t, from), Node(t, to));
  EXPECT_TRUE(route.ok()) << route.status().ToString();
  std::vector<std::string> names;
  if (route.ok()) {
    for (int channel : *route) names.push_back(t.ChannelName(channel));
  }
  return names;
}

int CountLinks(const Topology& t, bool wraparound) {
  int n = 0;
  for (const Link& link : t.links) n += link.wraparound == wraparound;
  return n;
}

// Every route is a chain of channels from src to dst.
void ExpectRoutesConnect(const Topology& t) {
  for (int src = 0; src < t.num_chips(); ++src) {
    for (int dst = 0; dst < t.num_chips(); ++dst) {
      auto route = t.Route(src, dst);
      if (!route.ok()) continue;
      int at = src;
      for (int channel : *route) {
        ASSERT_EQ(t.channel_source(channel), at) << t.name << " " << src << "->" << dst;
        ASSERT_TRUE(t.LinkAlive(channel / 2));
        at = t.channel_target(channel);
      }
      ASSERT_EQ(at, dst);
      ASSERT_EQ(t.Hops(src, dst), static_cast<int>(route->size()));
    }
  }
}

TEST(Catalog, HasEveryChipWithItsSourcedFigures) {
  for (const char* name : {"v4", "v5e", "v5p", "v6e", "a100", "a800", "h100", "h800", "h20", "h200", "b200", "l40s",
                           "l40", "l20", "rtx4090"}) {
    auto chip = FindChip(name);
    ASSERT_TRUE(chip.ok()) << name;
    const ChipSpec& c = **chip;
    // Every chip has a bf16 peak and a memory bandwidth (RTX 4090 and L20 from
    // the hardware.md Addendum's spec-sheet figures, verified in chip.cc).
    EXPECT_GT(c.bf16.value(), 0) << name;
    EXPECT_GT(c.hbm_bw.value(), 0) << name;
    EXPECT_GT(c.hbm.value(), 0) << name;
    EXPECT_GT(c.link_bw.value(), 0) << name;
    EXPECT_FALSE(c.source.empty()) << name;
  }
  EXPECT_EQ(ChipCatalog().size(), 15u);
}

TEST(Catalog, ExactFiguresAndUnits) {
  // GB = 1e9, GiB = 2^30, exactly as the sources write them.
  EXPECT_EQ((*FindChip("v5e"))->hbm.value(), 16'000'000'000);
  EXPECT_EQ((*FindChip("v5p"))->hbm.value(), 95LL << 30);
  EXPECT_EQ((*FindChip("v4"))->hbm.value(), 32LL << 30);
  EXPECT_EQ((*FindChip("h200"))->hbm.value(), 141'000'000'000);
  EXPECT_DOUBLE_EQ((*FindChip("v5e"))->link_bw.value(), 4.5e10);
  EXPECT_DOUBLE_EQ((*FindChip("v6e"))->link_bw.value(), 9e10);
  EXPECT_EQ((*FindChip("v5p"))->links_per_chip, 6);
  EXPECT_EQ((*FindChip("v6e"))->links_per_chip, 4);
  EXPECT_DOUBLE_EQ((*FindChip("h100"))->link_bw.value(), 450e9);
  EXPECT_DOUBLE_EQ((*FindChip("h800"))->link_bw.value(), 200e9);  // 400 GB/s bidirectional
  EXPECT_EQ((*FindChip("a800"))->links_per_chip, 8);
  EXPECT_DOUBLE_EQ((*FindChip("b200"))->bf16.value(), 2250e12);
  EXPECT_EQ((*FindChip("h20"))->sm_count, 78);
  // The PCIe Ada GPUs of the DiT latencies: RTX 4090 165.2 TFLOP/s bf16 with
  // FP32 accumulate, 384-bit GDDR6X at 21 Gbps = 1008 GB/s, 16,384 cores / 128
  // = 128 SMs; L20 384-bit GDDR6 at 18 Gbps = 864 GB/s, 11,776 / 128 = 92 SMs.
  EXPECT_DOUBLE_EQ((*FindChip("rtx4090"))->bf16.value(), 165.2e12);
  EXPECT_DOUBLE_EQ((*FindChip("rtx4090"))->hbm_bw.value(), 384 / 8 * 21e9);
  EXPECT_EQ((*FindChip("rtx4090"))->sm_count, 16384 / 128);
  EXPECT_DOUBLE_EQ((*FindChip("l20"))->hbm_bw.value(), 384 / 8 * 18e9);
  EXPECT_EQ((*FindChip("l20"))->sm_count, 11776 / 128);
  EXPECT_FALSE((*FindChip("rtx4090"))->peer_to_peer);
  // The host link (HostLinkBandwidth): Gen5 x16 on Hopper, Gen4 x16 on Ampere and the PCIe cards.
  EXPECT_DOUBLE_EQ(HostLinkBandwidth(**FindChip("h800")).value(), 64e9);
  EXPECT_DOUBLE_EQ(HostLinkBandwidth(**FindChip("a800")).value(), 32e9);
  EXPECT_DOUBLE_EQ(HostLinkBandwidth(**FindChip("rtx4090")).value(), 32e9);
  std::string source;
  EXPECT_DOUBLE_EQ(HostLinkBandwidth(**FindChip("v5e"), &source).value(), 1.6e10);
  EXPECT_NE(source.find("1.6e10"), std::string::npos);
}

TEST(Catalog, UnknownChipListsTheKnownOnes) {
  auto chip = FindChip("tpu9");
  ASSERT_FALSE(chip.ok());
  EXPECT_NE(chip.status().message().find("unknown chip 'tpu9'"), std::string::npos);
  EXPECT_NE(chip.status().message().find("v5e"), std::string::npos);
}

TEST(Torus, V5e2x4IsAGridWithoutWraps) {
  Topology t = Topo("v5e:2x4");
  EXPECT_EQ(t.num_chips(), 8);
  // GC's "2x4" is JAX's 4x2 host: x has 4 chips, y 2 (catalog.cc).
  EXPECT_EQ(t.dims, (std::vector<int>{4, 2}));
  EXPECT_EQ(t.wrap, (std::vector<bool>{false, false}));
  // x (length 4): 2 rows x 3 links; y (length 2): 4 columns x 1 link; 6 + 4 = 10.
  EXPECT_EQ(t.links.size(), 10u);
  EXPECT_EQ(CountLinks(t, true), 0);
  for (const Link& link : t.links) {
    EXPECT_EQ(link.cls, LinkClass::kIci);
    EXPECT_DOUBLE_EQ(link.bw.value(), 4.5e10);
    EXPECT_DOUBLE_EQ(link.latency.value(), 1e-6);
  }
  // id = x + X*y: chip 7 is (3,1).
  EXPECT_EQ(t.nodes[7].name, "(3,1)");
  EXPECT_EQ(t.nodes[7].coords, (std::vector<int>{3, 1}));
  ExpectRoutesConnect(t);
}

TEST(Torus, V5e16x16WrapsBothAxes) {
  Topology t = Topo("v5e:16x16");
  EXPECT_EQ(t.wrap, (std::vector<bool>{true, true}));
  // Per axis 16 rings of 16 links; 2 axes: 512 links, of which 2 x 16 close the rings.
  EXPECT_EQ(t.links.size(), 512u);
  EXPECT_EQ(CountLinks(t, true), 32);
  // Hops = sum over axes of the ring distance min(d, 16 - d).
  for (int src : {0, 17, 255}) {
    for (int dst = 0; dst < t.num_chips(); ++dst) {
      int expected = 0;
      for (int axis = 0; axis < 2; ++axis) {
        int d = std::abs(t.nodes[src].coords[axis] - t.nodes[dst].coords[axis]);
        expected += std::min(d, 16 - d);
      }
      EXPECT_EQ(t.Hops(src, dst), expected);
    }
  }
}

TEST(Torus, V5e8x16WrapsOnlyTheAxisOf16) {
  Topology t = Topo("v5e:8x16");  // x has 16 chips (wrapped), y 8
  EXPECT_EQ(t.wrap, (std::vector<bool>{true, false}));
  // x (wrapped): 8 rings x 16 links = 128; y: 16 columns x 7 links = 112; 240 in all, 8 of them wraps.
  EXPECT_EQ(t.links.size(), 240u);
  EXPECT_EQ(CountLinks(t, true), 8);
}

TEST(Torus, V5pWholeCubesWrapEveryAxisSubCubesNone) {
  struct Case {
    const char* spec;
    bool wraps;  // every axis or none
    size_t links;
  };
  const Case cases[] = {
      {"v5p:4x4x4", true, 192},  // 3 axes x 16 rings x 4 links
      {"v5p:2x2x2", false, 12},  // 3 axes x 4 lines x 1 link
      // 2x2x4 is below a cube: even its length-4 axis has no wrap.
      // x: 8 lines x 1, y: 8 x 1, z: 4 lines x 3 = 28.
      {"v5p:2x2x4", false, 28},
      // v4 follows the same rule; 4x4x8 is two cubes: 2 axes x 32 rings x 4 + 16 rings x 8 = 384.
      {"v4:4x4x8", true, 384},
  };
  for (const Case& c : cases) {
    Topology t = Topo(c.spec);
    EXPECT_EQ(t.wrap, std::vector<bool>(3, c.wraps)) << c.spec;
    EXPECT_EQ(t.links.size(), c.links) << c.spec;
  }
  ExpectRoutesConnect(Topo("v5p:4x4x4"));
}

TEST(Torus, RouteLengthsAndDimensionOrder) {
  Topology grid = Topo("v5e:4x4");
  // SB: "six hops between chips (0, 0) and (3, 3)" on a 4x4 without wraps.
  EXPECT_EQ(grid.Hops(Node(grid, "(0,0)"), Node(grid, "(3,3)")), 6);
  // Dimension order: x first.
  EXPECT_EQ(RouteNames(grid, "(0,0)", "(1,1)"), (std::vector<std::string>{"(0,0)->(1,0)", "(1,0)->(1,1)"}));
  Topology pod = Topo("v5e:16x16");
  // The wrap link makes (15,0) a neighbour of (0,0).
  EXPECT_EQ(RouteNames(pod, "(0,0)", "(15,0)"), (std::vector<std::string>{"(0,0)->(15,0)"}));
  // Halfway round a ring of 16 both ways are 8 hops: the tie goes the positive way.
  auto half = RouteNames(pod, "(0,0)", "(8,0)");
  ASSERT_EQ(half.size(), 8u);
  EXPECT_EQ(half[0], "(0,0)->(1,0)");
  // The shorter way round: (2,0) -> (14,0) goes down through 0 (4 hops), not up (12).
  EXPECT_EQ(RouteNames(pod, "(2,0)", "(14,0)"),
            (std::vector<std::string>{"(2,0)->(1,0)", "(1,0)->(0,0)", "(0,0)->(15,0)", "(15,0)->(14,0)"}));
  EXPECT_TRUE(grid.Route(3, 3)->empty());
}

TEST(Torus, LargeSlicesRouteWithoutTheCache) {
  // 6144 chips: over kRouteCacheMaxChips, so routes are computed on demand.
  Topology t = Topo("v5p:16x16x24");
  EXPECT_EQ(t.num_chips(), 6144);
  EXPECT_EQ(t.links.size(), 3u * 6144u);  // every axis wraps: one link per chip per axis
  // (0,0,0) -> (8,8,12): halfway on every axis: 8 + 8 + 12 hops.
  int dst = 8 + 16 * (8 + 16 * 12);
  EXPECT_EQ(t.Hops(0, dst), 28);
  ASSERT_TRUE(t.Route(0, dst).ok());
  EXPECT_EQ(t.Route(0, dst)->size(), 28u);
}

TEST(Gpu, SingleNodeGoesThroughTheNvswitch) {
  Topology t = Topo("h100:8");
  EXPECT_EQ(t.num_chips(), 8);
  EXPECT_EQ(t.num_nodes(), 9);  // 8 GPUs + nvswitch0
  EXPECT_EQ(t.links.size(), 8u);
  EXPECT_EQ(t.links[0].cls, LinkClass::kNvlink);
  EXPECT_DOUBLE_EQ(t.links[0].bw.value(), 450e9);
  EXPECT_EQ(RouteNames(t, "gpu0", "gpu5"), (std::vector<std::string>{"gpu0->nvswitch0", "nvswitch0->gpu5"}));
  EXPECT_EQ(t.gpu_nodes, 1);
  EXPECT_EQ(t.gpus_per_node, 8);
  EXPECT_TRUE(t.dims.empty());
}

TEST(Gpu, MultiNodeUsesRailsAndPxn) {
  Topology t = Topo("h100:2x8");
  // 16 GPUs, 2 NVSwitch nodes, 8 rails; 16 NVLink + 16 NIC links.
  EXPECT_EQ(t.num_chips(), 16);
  EXPECT_EQ(t.num_nodes(), 26);
  EXPECT_EQ(t.links.size(), 32u);
  EXPECT_EQ(t.nodes[9].name, "node1/gpu1");
  EXPECT_EQ(t.nodes[9].coords, (std::vector<int>{1, 1}));
  EXPECT_EQ(RouteNames(t, "node0/gpu1", "node1/gpu1"),
            (std::vector<std::string>{"node0/gpu1->rail1", "rail1->node1/gpu1"}));
  // Different rails: NVLink to the source node's GPU on rail 2, then rail 2 (NCCL PXN).
  EXPECT_EQ(RouteNames(t, "node0/gpu1", "node1/gpu2"),
            (std::vector<std::string>{"node0/gpu1->nvswitch0", "nvswitch0->node0/gpu2", "node0/gpu2->rail2",
                                      "rail2->node1/gpu2"}));
  EXPECT_EQ(RouteNames(t, "node1/gpu0", "node1/gpu7"),
            (std::vector<std::string>{"node1/gpu0->nvswitch1", "nvswitch1->node1/gpu7"}));
  ExpectRoutesConnect(t);
}

// A PCIe node is the two-socket tree of catalog.cc: l40s:8 has GPUs 0-3 on
// cpu0 (pcie0: gpu0, gpu1; pcie1: gpu2, gpu3) and 4-7 on cpu1 (pcie2, pcie3).
TEST(Gpu, PcieNodesAndNoPeerToPeer) {
  Topology l40s = Topo("l40s:8");
  // Nodes: 8 GPUs, cpu0, cpu1, 4 switches. Links: the socket link, 4 uplinks, 8 GPU ports.
  EXPECT_EQ(l40s.num_nodes(), 14);
  EXPECT_EQ(l40s.links.size(), 13u);
  EXPECT_TRUE(l40s.peer_to_peer);
  EXPECT_TRUE(l40s.nodes[static_cast<size_t>(l40s.FindNode("cpu1"))].host);
  EXPECT_FALSE(l40s.nodes[static_cast<size_t>(l40s.FindNode("pcie0"))].host);
  EXPECT_EQ(l40s.links[0].cls, LinkClass::kSocket);
  EXPECT_DOUBLE_EQ(l40s.links[0].bw.value(), 22e9);  // NCCL SRP_QPI_BW
  for (size_t l = 1; l < l40s.links.size(); ++l) {
    EXPECT_EQ(l40s.links[l].cls, LinkClass::kPcie);
    EXPECT_DOUBLE_EQ(l40s.links[l].bw.value(), 32e9);  // Gen4 x16, ports and uplinks alike
  }
  // PIX: one switch; NODE: through the socket's root complex; SYS: across sockets.
  EXPECT_EQ(RouteNames(l40s, "gpu0", "gpu1"), (std::vector<std::string>{"gpu0->pcie0", "pcie0->gpu1"}));
  EXPECT_EQ(RouteNames(l40s, "gpu1", "gpu2"),
            (std::vector<std::string>{"gpu1->pcie0", "pcie0->cpu0", "cpu0->pcie1", "pcie1->gpu2"}));
  EXPECT_EQ(RouteNames(l40s, "gpu3", "gpu4"), (std::vector<std::string>{"gpu3->pcie1", "pcie1->cpu0", "cpu0->cpu1",
                                                                        "cpu1->pcie2", "pcie2->gpu4"}));
  ExpectRoutesConnect(l40s);
  // RTX 4090: no P2P, so even GPUs under one switch stage through their socket's
  // memory; across sockets the route is the same tree path as with P2P.
  Topology rtx = Topo("rtx4090:4");
  EXPECT_FALSE(rtx.peer_to_peer);
  EXPECT_EQ(RouteNames(rtx, "gpu0", "gpu1"),
            (std::vector<std::string>{"gpu0->pcie0", "pcie0->cpu0", "cpu0->pcie0", "pcie0->gpu1"}));
  EXPECT_EQ(RouteNames(rtx, "gpu0", "gpu3"), (std::vector<std::string>{"gpu0->pcie0", "pcie0->cpu0", "cpu0->cpu1",
                                                                       "cpu1->pcie1", "pcie1->gpu3"}));
  // Odd counts: the first socket takes the extra GPU (l20:3: gpu0, gpu1 on cpu0).
  Topology three = Topo("l20:3");
  EXPECT_EQ(RouteNames(three, "gpu1", "gpu2"), (std::vector<std::string>{"gpu1->pcie0", "pcie0->cpu0", "cpu0->cpu1",
                                                                         "cpu1->pcie1", "pcie1->gpu2"}));
  Topology one = Topo("l40s:1");
  EXPECT_EQ(one.FindNode("cpu1"), -1);  // one GPU: one socket
  // L40 (hardware.md §1.2, NV): half the L40S's bf16 (181.05 dense), the same
  // 48 GB GDDR6 at 864 GB/s and PCIe Gen4 x16 node; listed as "l40:8".
  const ChipSpec& l40_chip = **FindChip("l40");
  EXPECT_DOUBLE_EQ(l40_chip.bf16.value(), 181.05e12);
  EXPECT_EQ(l40_chip.hbm.value(), 48'000'000'000);
  EXPECT_DOUBLE_EQ(l40_chip.hbm_bw.value(), 864e9);
  Topology l40 = Topo("l40:8");
  EXPECT_EQ(l40.num_chips(), 8);
  EXPECT_GE(l40.FindNode("pcie3"), 0);
  std::vector<std::string> listed = ListTopologies();
  EXPECT_NE(std::find(listed.begin(), listed.end(), "l40:8"), listed.end());
  Topology cluster = Topo("l40s:2x4");
  EXPECT_EQ(cluster.links.back().cls, LinkClass::kNetwork);
  EXPECT_DOUBLE_EQ(cluster.links.back().bw.value(), 50e9);
  // Across nodes on different rails: the tree inside the node to the GPU on the
  // destination's rail (PXN), then its NIC; never the network inside a node.
  EXPECT_EQ(RouteNames(cluster, "node0/gpu0", "node1/gpu1"),
            (std::vector<std::string>{"node0/gpu0->node0/pcie0", "node0/pcie0->node0/gpu1", "node0/gpu1->rail1",
                                      "rail1->node1/gpu1"}));
  EXPECT_EQ(RouteNames(cluster, "node0/gpu0", "node0/gpu3").size(), 5u);  // across node0's sockets
  ExpectRoutesConnect(cluster);
}

TEST(Specs, InvalidSpecsAreClearErrors) {
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : {Case{"v5e:3x3", "3x3 is not a v5e slice"}, Case{"v5e:3x3", "valid: 2x2, 2x4"},
                        Case{"v5p:2x3x4", "2x3x4 is not a v5p slice"}, Case{"h100:9", "GPUs per node must be 1..8"},
                        Case{"foo:8", "unknown chip 'foo'"}, Case{"v5e:", "missing shape"},
                        Case{"h100:0x8", "node count must be 1..64"}, Case{"v5e", "write CHIP:SHAPE"},
                        Case{":2x4", "missing chip name"}, Case{"v5p:8x4x4", "A <= B <= C"},
                        Case{"v4:20x4x4", "not a v4 slice"}, Case{"v5e:2x4x1", "not a v5e slice"},
                        Case{"v5p:2x2", "slices are 3D"}, Case{"h100:2x2x2", "MxN"}, Case{"h100:8x", "bad shape"},
                        Case{"h100:-1", "bad shape"}, Case{"h100:99999999999", "bad shape"},
                        Case{"v5e:1x1", "not a v5e slice"}, Case{"h100:65x8", "node count"},
                        Case{"h100:2x8:roce", "unknown fabric 'roce'"}, Case{"h100:8:efa", "multi-node"},
                        Case{"v5e:2x4:efa", "no fabric field"}, Case{"v5e:2x4*0", "bad slice count '0'"},
                        Case{"v5e:2x4*x", "bad slice count 'x'"}, Case{"v5e:2x4*", "bad slice count ''"},
                        Case{"v5e:2x4*65", "1..64 slices"}, Case{"h100:8*2", "'*N' joins TPU slices"},
                        Case{"v5e:3x3*2", "3x3 is not a v5e slice"}, Case{"v5e:2x4*2:efa", "no fabric field"}}) {
    auto t = MakeTopology(c.spec);
    ASSERT_FALSE(t.ok()) << c.spec;
    EXPECT_NE(t.status().message().find(c.message), std::string::npos)
        << c.spec << " gave: " << t.status().message();
  }
}

// "CHIP:SHAPE*N": N tori, a host switch per host block and one DCN switch
// (topology.h). v5e:2x4*2: each slice is one 8-chip host (GC-v5e: 8 chips per
// host), so 2 x 8 = 16 chips, 2 hosts + the DCN switch = 3 switches; links:
// ICI of a 2x4 (x = 4 without wrap: 3 x 2 rows; y = 2: 4 columns; 10) per
// slice = 20, one PCIe link per chip = 16, one DCN link per host = 2: 38.
TEST(Specs, MultiSliceTopology) {
  Topology t = Topo("v5e:2x4*2");
  ASSERT_EQ(t.num_chips(), 16);
  EXPECT_EQ(t.slices, 2);
  EXPECT_EQ(t.slice_chips(), 8);
  EXPECT_EQ(t.dims, (std::vector<int>{4, 2}));
  EXPECT_EQ(t.num_nodes(), 16 + 3);
  EXPECT_EQ(t.links.size(), 38u);
  EXPECT_EQ(t.nodes[9].name, "s1(1,0)");
  EXPECT_EQ(t.nodes[9].coords, (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(t.SliceOf(9), 1);
  EXPECT_EQ(SliceCount("v5e:2x4*2"), 2);
  EXPECT_EQ(SliceCount("v5e:2x4"), 1);
  EXPECT_EQ(SliceCount("v5e:2x4*y"), 0);
  // The DCN link: the host's NIC, 2 x 100 Gbps = 2.5e10 B/s (GC-v5e), shared by its 8 chips.
  EXPECT_EQ(t.links.back().cls, LinkClass::kDcn);
  EXPECT_DOUBLE_EQ(t.links.back().bw.value(), 2.5e10);
  // Inside a slice the torus route (one ICI hop); across slices chip -> host -> DCN -> host -> chip.
  EXPECT_EQ(RouteNames(t, "s1(0,0)", "s1(1,0)"), (std::vector<std::string>{"s1(0,0)->s1(1,0)"}));
  EXPECT_EQ(RouteNames(t, "s0(1,1)", "s1(2,0)"),
            (std::vector<std::string>{"s0(1,1)->s0/host0", "s0/host0->dcn", "dcn->s1/host0", "s1/host0->s1(2,0)"}));
  ExpectRoutesConnect(t);
  // v5e:4x4*2: x = 4, y = 4; 4x2 host blocks: 2 hosts per slice, 4 in all.
  Topology big = Topo("v5e:4x4*2");
  EXPECT_EQ(big.num_nodes(), 32 + 4 + 1);
  EXPECT_EQ(big.nodes[32].name, "s0/host0");
  EXPECT_EQ(big.Hops(0, 16), 4);
  // v5p:2x2x2*2: 4-chip hosts (2x2x1, GC-v5p): 2 per slice; DCN 4 x 50 Gbps = 2.5e10 B/s.
  Topology v5p = Topo("v5p:2x2x2*2");
  EXPECT_EQ(v5p.num_nodes(), 16 + 4 + 1);
  EXPECT_DOUBLE_EQ(v5p.links.back().bw.value(), 2.5e10);
  // The JSON form keeps the slices and gives back the same routes.
  auto loaded = LoadTopologyJson(TopologyToJson(t), "multi.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->slices, 2);
  EXPECT_EQ(RouteNames(*loaded, "s0(1,1)", "s1(2,0)"), RouteNames(t, "s0(1,1)", "s1(2,0)"));
  // The drawing shows both slices side by side, their hosts and the DCN switch.
  std::string svg = TopologySvg(t);
  EXPECT_NE(svg.find(">s1(3,1)<"), std::string::npos);
  EXPECT_NE(svg.find(">dcn<"), std::string::npos);
}

TEST(Specs, EveryListedTopologyBuilds) {
  std::vector<std::string> all = ListTopologies();
  EXPECT_GT(all.size(), 40u);
  for (const std::string& spec : all) {
    auto t = MakeTopology(spec);
    ASSERT_TRUE(t.ok()) << spec << ": " << t.status().ToString();
    EXPECT_EQ(t->name, spec);
    EXPECT_GT(t->num_chips(), 0);
  }
}

TEST(Failures, AFailedLinkIsDetoured) {
  Topology t = Topo("v5e:2x4");
  ASSERT_TRUE(ApplyFailures(t, {"(0,0)-(1,0)"}, {}).ok());
  // The only other way: down y, across x, back up: 3 hops.
  EXPECT_EQ(RouteNames(t, "(0,0)", "(1,0)"),
            (std::vector<std::string>{"(0,0)->(0,1)", "(0,1)->(1,1)", "(1,1)->(1,0)"}));
  EXPECT_EQ(t.Hops(Node(t, "(0,0)"), Node(t, "(0,1)")), 1);  // untouched routes stay
  ExpectRoutesConnect(t);
}

TEST(Failures, AFailedChipIsUnreachableAndAvoided) {
  Topology t = Topo("v5e:2x4");
  ASSERT_TRUE(ApplyFailures(t, {}, {"5"}).ok());  // chip 5 = (1,1)
  auto route = t.Route(0, 5);
  ASSERT_FALSE(route.ok());
  EXPECT_NE(route.status().message().find("no route from (0,0) to (1,1)"), std::string::npos);
  EXPECT_NE(route.status().message().find("has failed"), std::string::npos);
  EXPECT_EQ(t.Hops(0, 5), -1);
  // (0,1) -> (2,1) would pass (1,1): the detour crosses to y = 0 and back, 4 hops.
  EXPECT_EQ(t.Hops(Node(t, "(0,1)"), Node(t, "(2,1)")), 4);
  ExpectRoutesConnect(t);
}

TEST(Failures, DisconnectedChipsAreErrors) {
  Topology t = Topo("v5e:2x4");
  ASSERT_TRUE(ApplyFailures(t, {"0-1", "0-4"}, {}).ok());  // (0,0) loses both its links
  auto route = t.Route(0, 7);
  ASSERT_FALSE(route.ok());
  EXPECT_NE(route.status().message().find("disconnect"), std::string::npos);
  EXPECT_EQ(t.Hops(7, 0), -1);
  EXPECT_EQ(t.Hops(1, 7), 3);  // the rest still routes
}

TEST(Failures, GpuLinksAndSyntax) {
  Topology t = Topo("h100:2x8");
  ASSERT_TRUE(ApplyFailures(t, {"node0/gpu1-rail1"}, {"node1/gpu3"}).ok());
  // The NIC of node0/gpu1 is gone. Breadth-first, neighbours in link-id order (NVLink links
  // come first): over nvswitch0 to node0/gpu0, rail 0, node1/gpu0, then nvswitch1: 6 hops.
  EXPECT_EQ(RouteNames(t, "node0/gpu1", "node1/gpu1"),
            (std::vector<std::string>{"node0/gpu1->nvswitch0", "nvswitch0->node0/gpu0", "node0/gpu0->rail0",
                                      "rail0->node1/gpu0", "node1/gpu0->nvswitch1", "nvswitch1->node1/gpu1"}));
  EXPECT_FALSE(t.Route(Node(t, "node0/gpu0"), Node(t, "node1/gpu3")).ok());
  ExpectRoutesConnect(t);

  Topology u = Topo("h100:2x8");
  Status unknown = ApplyFailures(u, {"foo-bar"}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("give A-B"), std::string::npos);
  Status missing = ApplyFailures(u, {"node0/gpu1-node0/gpu2"}, {});  // GPUs meet only through the switch
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("no link joins node0/gpu1 and node0/gpu2"), std::string::npos);
  Status a_switch = ApplyFailures(u, {}, {"nvswitch0"});
  ASSERT_FALSE(a_switch.ok());
  EXPECT_NE(a_switch.message().find("is a switch"), std::string::npos);
  Status no_chip = ApplyFailures(u, {}, {"99"});
  ASSERT_FALSE(no_chip.ok());

  Topology v = Topo("v5e:2x4");
  ASSERT_TRUE(ApplyFailures(v, {"(0, 0)-(1, 0)"}, {}).ok());  // spaces are fine
  EXPECT_TRUE(v.links[0].failed);
  EXPECT_FALSE(ApplyFailures(v, {"(0,0)-(1,1)"}, {}).ok());  // diagonal: no such link
}

}  // namespace
}  // namespace az::hw

namespace az::hw {
namespace {

// The fabric field sets the per-message latency of a network hop (catalog.cc):
// InfiniBand 5 us (NCCL's hwLat NET, Tree/LL) and EFA 25 us (fi_pingpong
// between two EFA nodes), each split over the GPU->rail and rail->GPU links.
TEST(Specs, FabricSetsTheNetworkLatency) {
  for (auto [spec, fabric, per_link] : {std::tuple{"h100:2x8", "ib", 2.5e-6}, std::tuple{"h100:2x8:ib", "ib", 2.5e-6},
                                        std::tuple{"h100:2x8:efa", "efa", 12.5e-6}}) {
    auto t = MakeTopology(spec);
    ASSERT_TRUE(t.ok()) << spec;
    EXPECT_EQ(t->fabric, fabric);
    int network = 0;
    for (const Link& link : t->links) {
      if (link.cls != LinkClass::kNetwork) continue;
      ++network;
      EXPECT_DOUBLE_EQ(link.latency.value(), per_link) << spec;
    }
    EXPECT_EQ(network, 16);  // one NIC per GPU, 2 x 8 GPUs
  }
  auto node = MakeTopology("h100:8");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(node->fabric, "");  // one node: no scale-out fabric
}

}  // namespace
}  // namespace az::hw
