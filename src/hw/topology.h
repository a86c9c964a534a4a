// Topologies: accelerators and switches joined by links, and the routes data
// takes between chips.
//
// A Topology is a graph. Nodes 0..num_chips()-1 are chips (in device-id order);
// further nodes are switches (an NVSwitch fabric, a PCIe switch, a network
// leaf). Every link is full duplex: link l has two directed channels, 2l (from
// link.a to link.b) and 2l+1 (back). Bandwidth is per direction.
//
// TPU slices are tori: chip id = x + X*(y + Y*z) (x fastest, as JAX's
// coordinate order), one ICI link per neighbouring pair per axis, and a
// wraparound link on an axis exactly when the generation's rule gives one
// (v5e/v6e: axes of 16; v4/v5p: every axis of a whole-cube slice, none below a
// cube). Routing on a torus is dimension order (x, then y, then z), each axis
// the shorter way round (ties: the positive direction).
//
// GPU nodes: each GPU reaches the node's NVSwitch fabric (one switch node) over
// a link carrying its whole NVLink bandwidth. PCIe-only nodes are a tree: GPUs
// in pairs under PCIe switches, each switch on a CPU socket (a `host` switch),
// the two sockets joined by a kSocket link (catalog.cc); routes inside such a
// node follow the tree (breadth-first over the node's non-network links). Multi-node systems add one network switch per rail: GPU i of every
// node connects to rail switch i through its NIC (rail-optimized fabric); a
// message between different rails first crosses NVLink to the GPU on the
// destination's rail in the source node (NCCL's PXN), then that rail.
//
// Multi-slice TPU systems ("v5e:2x4*2"): N identical slices, each its own
// torus, joined by the data-center network (DCN). Chip id = slice *
// slice_chips() + the chip's id inside its slice; `dims` and `wrap` describe
// one slice and a chip's coords are its torus coordinates followed by its
// slice. Every host (a block of chips, ChipSpec::tpu_host_block) is a switch
// node: each of its chips reaches it over the chip's PCIe host link, and it
// reaches the one DCN switch over its NIC (a kDcn link its chips share).
// Inside a slice, routes are the torus's; between slices chip -> host ->
// DCN -> host -> chip, so a host's chips contend for its NIC.
//
// Degraded topologies: a failed link or chip is removed; a route that would
// cross it is replaced by a shortest path over the remaining links and nodes
// (breadth-first, neighbours in link-id order, so deterministic), and a chip
// that can no longer be reached makes routing fail with an error.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hw/chip.h"
#include "support/status.h"
#include "support/units.h"

namespace az::hw {

// kSocket: the CPU-to-CPU link of a two-socket host (UPI, Infinity Fabric).
// kDcn: a TPU host's NIC to the data-center network (multi-slice systems).
enum class LinkClass { kIci, kNvlink, kPcie, kNetwork, kSocket, kDcn };
std::string_view LinkClassName(LinkClass c);

struct Link {
  int a = 0, b = 0;      // node ids
  Bandwidth bw;          // per direction
  Seconds latency;       // per traversal
  LinkClass cls = LinkClass::kIci;
  int axis = -1;         // torus axis, -1 for other links
  bool wraparound = false;
  bool failed = false;
};

enum class NodeKind { kChip, kSwitch };

struct Node {
  NodeKind kind = NodeKind::kChip;
  std::string name;         // "(1,0,0)", "node0/gpu3", "nvswitch0", "rail3"
  std::vector<int> coords;  // chips: torus coordinates, or {node, gpu}
  bool failed = false;
  bool host = false;  // switches: a CPU socket (root complex and host memory)
};

class Topology {
 public:
  // Identity.
  std::string name;    // the spec it was built from: "v5e:2x4", "h100:2x8", a file name
  ChipSpec chip;
  // Torus shape (TPU) with the wrap flag per axis; empty for GPU systems.
  std::vector<int> dims;
  std::vector<bool> wrap;
  // TPU multi-slice systems: how many slices of `dims` the DCN joins (1: one
  // torus). num_chips() = slices * the product of dims.
  int slices = 1;
  // GPU systems: nodes x GPUs per node.
  int gpu_nodes = 0, gpus_per_node = 0;
  // Multi-node GPU systems: the scale-out fabric, "ib" (InfiniBand) or "efa"
  // (AWS); empty otherwise. Its network links carry the fabric's latency
  // (catalog.cc); the collective model reads the links, not this name.
  std::string fabric;
  // GPU systems: whether GPUs exchange data peer to peer over PCIe. When not
  // (RTX 4090: the driver refuses; NCCL_P2P_DISABLE), a GPU-GPU route inside a
  // node is staged through the source's host socket (its memory): up to the
  // nearest `host` switch, then down to the destination.
  bool peer_to_peer = true;

  std::vector<Node> nodes;
  std::vector<Link> links;

  int num_chips() const { return num_chips_; }
  // Chips per slice (every chip when slices == 1) and a chip's slice.
  int slice_chips() const { return num_chips_ / std::max(slices, 1); }
  int SliceOf(int chip) const { return slices > 1 ? chip / slice_chips() : 0; }
  int num_nodes() const { return static_cast<int>(nodes.size()); }
  int num_channels() const { return 2 * static_cast<int>(links.size()); }
  const Link& channel_link(int channel) const { return links[static_cast<size_t>(channel / 2)]; }
  int channel_source(int channel) const;
  int channel_target(int channel) const;
  std::string ChannelName(int channel) const;  // "(0,0)->(1,0)"

  // The directed channels a message from chip `src` to chip `dst` crosses, in
  // order (empty when src == dst). Errors when no route survives failures.
  StatusOr<std::vector<int>> Route(int src, int dst) const;
  // The cached route as a view, without copying or checking: for hot loops.
  // False when routes are not cached (a large system) or src/dst is out of
  // range, failed or unreachable; then call Route().
  bool CachedRoute(int src, int dst, std::span<const int>* route) const;
  // Hop count of Route (cached; -1 when unreachable).
  int Hops(int src, int dst) const;

  // Building (used by the catalog and the JSON loader).
  int AddNode(Node node);
  int AddLink(Link link);
  void set_num_chips(int n) { num_chips_ = n; }
  // Marks failures; then Finalize() must run again. FailLink fails the first
  // live link joining nodes a and b (either orientation); it is an error when no
  // link joins them, and a no-op when every such link has already failed.
  Status FailLink(int a, int b);
  Status FailChip(int chip);
  // Builds the adjacency and precomputes routes; call after building and after
  // failures. Routes of every chip pair are cached when the system has at most
  // kRouteCacheMaxChips chips and the routes total at most kRouteCacheMaxChannels
  // channels; larger systems compute each route on demand (the same route).
  Status Finalize();
  static constexpr int kRouteCacheMaxChips = 1024;  // a v5p:8x8x16: 1M routes, ~40 MB
  static constexpr int64_t kRouteCacheMaxChannels = int64_t{1} << 24;

  // A link carries traffic when neither it nor either endpoint has failed.
  bool LinkAlive(int link) const;
  // The node with this exact name, or -1 (linear scan: for user input, not loops).
  int FindNode(std::string_view node_name) const;

 private:
  // Empty when the structural route (torus dimension order, GPU switch/rail/PXN)
  // does not exist over live links, or for systems without such structure.
  std::vector<int> DefaultRoute(int src, int dst) const;
  bool RouteIsAlive(const std::vector<int>& route) const;
  // Breadth-first over live links and live nodes, neighbours in link-id order;
  // empty when dst cannot be reached. skip_network: inside a node only.
  std::vector<int> ShortestPath(int src, int dst, bool skip_network = false) const;
  // The first `host` switch breadth-first from `from` over non-network links, or -1.
  int NearestHost(int from) const;
  int ChannelBetween(int a, int b) const;  // first live channel a->b, -1 if none
  // The uncached route: DefaultRoute if alive, else ShortestPath.
  std::vector<int> ComputeRoute(int src, int dst) const;
  std::vector<int> TorusRoute(int src, int dst) const;
  std::vector<int> SliceRoute(int src, int dst) const;  // between slices, over DCN
  std::vector<int> GpuRoute(int src, int dst) const;
  // The switch a GPU reaches over NVLink/PCIe, or -1.
  int LocalSwitch(int gpu) const;
  // The switch a GPU reaches over its NIC (kNetwork), or -1.
  int RailSwitch(int gpu) const;

  int num_chips_ = 0;
  bool finalized_ = false;
  // adjacency: per node, (neighbour, channel) in link order, every link
  // (failed ones included: users of it check LinkAlive).
  std::vector<std::vector<std::pair<int, int>>> adjacency_;
  // Connected component of each node over live links and live nodes; -1 for a
  // failed node. Two chips can reach each other iff their components match.
  std::vector<int> component_;
  // Route cache (when route_cache_): the route of (src, dst) is
  // route_channels_[route_offsets_[p] .. route_offsets_[p + 1]), p = src * num_chips + dst.
  bool route_cache_ = false;
  std::vector<int64_t> route_offsets_;
  std::vector<int> route_channels_;
};

// Named systems: "v5e:2x4", "v6e:4x4", "v5p:2x2x2", "v4:4x4x4", "v5e:2x4*2"
// (two v5e:2x4 slices over DCN), "h100:8",
// "h100:4" (4 GPUs of one node), "h100:2x8" (2 nodes over InfiniBand),
// "h100:2x8:efa" (2 nodes over AWS EFA), "l40s:8" (PCIe).
StatusOr<Topology> MakeTopology(std::string_view spec);
// The named slices and systems (for help texts and tests).
std::vector<std::string> ListTopologies();
// The slice count of a spec ("v5e:16x16*2" -> 2; 1 without "*N"), without
// building the system; 0 when the count is malformed (MakeTopology says why).
int SliceCount(std::string_view spec);
// A custom topology from JSON (schema: docs/topology-json.md). Every malformed
// input is an error naming its JSON path ("links[3].b: unknown node 'q'").
StatusOr<Topology> LoadTopologyJson(std::string_view text, std::string_view file_name);
// The topology in that schema, failures included; LoadTopologyJson of it gives
// back the same nodes, links and routes.
std::string TopologyToJson(const Topology& topology);
// "A-B" (chip ids or coordinate names) -> FailLink; "C" -> FailChip; re-finalizes.
Status ApplyFailures(Topology& topology, const std::vector<std::string>& fail_links,
                     const std::vector<std::string>& fail_chips);

}  // namespace az::hw
