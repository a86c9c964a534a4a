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
// a link carrying its whole NVLink bandwidth; PCIe-only nodes reach a PCIe switch
// instead. Multi-node systems add one network switch per rail: GPU i of every
// node connects to rail switch i through its NIC (rail-optimized fabric); a
// message between different rails first crosses NVLink to the GPU on the
// destination's rail in the source node (NCCL's PXN), then that rail.
//
// Degraded topologies: a failed link or chip is removed; routes avoid it (a
// shortest path over the remaining links, the same tie-breaks), and a chip
// that can no longer be reached makes routing fail with an error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw/chip.h"
#include "support/status.h"
#include "support/units.h"

namespace az::hw {

enum class LinkClass { kIci, kNvlink, kPcie, kNetwork };
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
};

class Topology {
 public:
  // Identity.
  std::string name;    // the spec it was built from: "v5e:2x4", "h100:2x8", a file name
  ChipSpec chip;
  // Torus shape (TPU) with the wrap flag per axis; empty for GPU systems.
  std::vector<int> dims;
  std::vector<bool> wrap;
  // GPU systems: nodes x GPUs per node.
  int gpu_nodes = 0, gpus_per_node = 0;

  std::vector<Node> nodes;
  std::vector<Link> links;

  int num_chips() const { return num_chips_; }
  int num_nodes() const { return static_cast<int>(nodes.size()); }
  int num_channels() const { return 2 * static_cast<int>(links.size()); }
  const Link& channel_link(int channel) const { return links[static_cast<size_t>(channel / 2)]; }
  int channel_source(int channel) const;
  int channel_target(int channel) const;
  std::string ChannelName(int channel) const;  // "(0,0)->(1,0)"

  // The directed channels a message from chip `src` to chip `dst` crosses, in
  // order (empty when src == dst). Errors when no route survives failures.
  StatusOr<std::vector<int>> Route(int src, int dst) const;
  // Hop count of Route (cached; -1 when unreachable).
  int Hops(int src, int dst) const;

  // Building (used by the catalog and the JSON loader).
  int AddNode(Node node);
  int AddLink(Link link);
  void set_num_chips(int n) { num_chips_ = n; }
  // Marks failures; then Finalize() must run again.
  Status FailLink(int a, int b);
  Status FailChip(int chip);
  // Precomputes routes; call after building and after failures.
  Status Finalize();

 private:
  std::vector<int> DefaultRoute(int src, int dst) const;
  bool RouteIsAlive(const std::vector<int>& route) const;
  std::vector<int> ShortestPath(int src, int dst) const;
  int ChannelBetween(int a, int b) const;  // first live channel a->b, -1 if none

  int num_chips_ = 0;
  // adjacency: per node, (neighbour, channel) in link order
  std::vector<std::vector<std::pair<int, int>>> adjacency_;
  // route cache, chip pairs: routes_[src * num_chips + dst]
  std::vector<std::vector<int>> routes_;
  std::vector<char> reachable_;
};

// Named systems: "v5e:2x4", "v6e:4x4", "v5p:2x2x2", "v4:4x4x4", "h100:8",
// "h100:4" (4 GPUs of one node), "h100:2x8" (2 nodes), "l40s:8" (PCIe).
StatusOr<Topology> MakeTopology(std::string_view spec);
// The named slices and systems (for help texts and tests).
std::vector<std::string> ListTopologies();
// A custom topology from JSON (schema: docs/topology-json.md).
StatusOr<Topology> LoadTopologyJson(std::string_view text, std::string_view file_name);
// "A-B" (chip ids or coordinate names) -> FailLink; "C" -> FailChip; re-finalizes.
Status ApplyFailures(Topology& topology, const std::vector<std::string>& fail_links,
                     const std::vector<std::string>& fail_chips);

}  // namespace az::hw
