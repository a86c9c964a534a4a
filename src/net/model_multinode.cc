// Multi-node GPU collectives: what NCCL runs when a group spans nodes.
//
// A group qualifies when every node it touches holds the same number p of
// its members (N nodes, n = p N members); members keep the group's order
// within a node. With c = 0..p-1 a channel and rot_c(node) the node's members
// rotated to start at its c-th one (NCCL gives each channel its own NIC):
//
//   rail-ring-{ll,ll128,simple}  p rings, ring c = rot_c(node 0), rot_c(node 1), ...,
//       each moving bytes/p. Ring c leaves a node from its last member to the
//       next node's c-th member: routed over PXN (NVLink to the GPU on rail c,
//       then rail c), so every rail carries one ring. All-reduce: reduce-scatter
//       then all-gather phases, n-1 steps each; all-gather / reduce-scatter:
//       one phase. Latency: each edge a chunk walks once (all but the ring's
//       closing edge), as NCCL's (nsteps - nInter) intraLat + nInter interLat.
//   tree-{ll,ll128,simple}  all-reduce only. p channels of bytes/p: inside a
//       node a chain rot_c (reduce towards its head, broadcast back), across
//       nodes a binary tree of the heads (heap order: node k's parent is
//       (k-1)/2), mirrored on odd channels (NCCL's double binary tree puts each
//       node at the root of one tree). Pipelined: one phase, every link
//       carrying its bytes at once. Latency: 2 ((p-1) chain hops + depth tree
//       hops), depth = ceil(log2 N) (tuning.cc's Tree formula).
//   nvls-tree  all-reduce on NVLink SHARP nodes (Hopper+). Inside a node the
//       switch reduces: each GPU pushes the whole array up and pulls its 1/p
//       share, then pushes the reduced share and pulls the whole result
//       (bytes + bytes/p each way on its port); the shares cross the nodes on
//       their own rails as binary trees (up and down, bytes/p each way).
//       Pipelined: one phase. Latency: one switch round trip + 2 depth tree hops.
#include <algorithm>
#include <initializer_list>
#include <map>

#include "net/model.h"

namespace az::net {

namespace {

bool NvlsFabric(const hw::Topology& t) {
  // NVLink SHARP: NVSwitch 3 (Hopper) and later (reference/hardware.md §4.2).
  return t.gpu_nodes > 0 && t.chip.nvls;
}

int TreeDepth(size_t nodes) {
  int depth = 0;
  while ((size_t{1} << depth) < nodes) ++depth;
  return depth;
}

// The node at heap position `position` of a binary tree over `count` nodes
// (position k's parent is (k-1)/2); the mirrored tree (the second of the
// double binary tree) counts positions from the last node.
size_t TreeNode(size_t position, size_t count, bool mirror) { return mirror ? count - 1 - position : position; }

}  // namespace

double CollectiveModel::RouteLatency(int src, int dst) const {
  auto route = topology_.Route(src, dst);
  if (!route.ok()) return 0;  // Price() rejected unreachable chips before
  double latency = 0;
  for (int channel : *route) latency += topology_.channel_link(channel).latency.value();
  return latency;
}

void CollectiveModel::AddMultiNodePlans(const Collective& c, const std::vector<std::vector<int>>& groups,
                                        std::vector<Plan>& candidates) const {
  if (c.kind != CollectiveKind::kAllReduce && c.kind != CollectiveKind::kAllGather &&
      c.kind != CollectiveKind::kReduceScatter) {
    return;
  }
  double bytes = static_cast<double>(c.bytes.value());
  // Per group: its members per node, nodes in id order.
  std::vector<std::vector<std::vector<int>>> layout;
  for (const auto& g : groups) {
    std::map<int, std::vector<int>> by_node;
    for (int chip : g) by_node[topology_.nodes[chip].coords[0]].push_back(chip);
    std::vector<std::vector<int>> nodes;
    for (auto& [node, members] : by_node) {
      if (members.size() != by_node.begin()->second.size()) return;  // not node-uniform
      nodes.push_back(members);
    }
    layout.push_back(std::move(nodes));
  }
  auto rotated = [](const std::vector<int>& members, size_t start) {
    std::vector<int> out;
    for (size_t i = 0; i < members.size(); ++i) out.push_back(members[(start + i) % members.size()]);
    return out;
  };
  bool all_reduce = c.kind == CollectiveKind::kAllReduce;
  // One candidate per protocol name for the same transfers (twice for an
  // all-reduce: reduce-scatter then all-gather, where `twice`).
  auto add = [&](std::initializer_list<const char*> names, const Phase& phase, bool twice, const char* note) {
    for (const char* name : names) {
      Plan plan;
      plan.algorithm = name;
      plan.phases.push_back(phase);
      if (twice) plan.phases.push_back(phase);
      plan.notes.push_back(note);
      candidates.push_back(std::move(plan));
    }
  };

  // Rings over the rails.
  Phase ring;
  ring.path_latency = 0;
  for (size_t gi = 0; gi < layout.size(); ++gi) {
    const auto& nodes = layout[gi];
    size_t p = nodes[0].size(), n = p * nodes.size();
    for (size_t channel = 0; channel < p; ++channel) {
      std::vector<int> cycle;
      for (const auto& members : nodes) {
        std::vector<int> part = rotated(members, channel);
        cycle.insert(cycle.end(), part.begin(), part.end());
      }
      AddRing(cycle, bytes / static_cast<double>(p * n), /*bidirectional=*/false, static_cast<int>(gi), ring);
      double walk = 0;
      for (size_t i = 0; i + 1 < cycle.size(); ++i) walk += RouteLatency(cycle[i], cycle[i + 1]);
      ring.path_latency = std::max(ring.path_latency, walk);
    }
    ring.steps = std::max(ring.steps, static_cast<int>(n) - 1);
  }
  add({"rail-ring-ll", "rail-ring-ll128", "rail-ring-simple"}, ring, all_reduce,
      "one ring per member of a node, each crossing between nodes on its own rail (PXN)");
  if (!all_reduce) return;

  // Double binary trees with a chain inside each node.
  Phase tree;
  double tree_latency = 0;
  int tree_steps = 0;
  for (size_t gi = 0; gi < layout.size(); ++gi) {
    const auto& nodes = layout[gi];
    size_t p = nodes[0].size(), count = nodes.size();
    double share = bytes / static_cast<double>(p);
    int group = static_cast<int>(gi);
    int depth = TreeDepth(count);
    for (size_t channel = 0; channel < p; ++channel) {
      double chain_latency = 0, hop_latency = 0;
      std::vector<int> heads;
      for (const auto& members : nodes) {
        std::vector<int> chain = rotated(members, channel);
        double walk = 0;
        for (size_t i = 0; i + 1 < chain.size(); ++i) {
          tree.transfers.push_back({chain[i + 1], chain[i], share, group, false});  // reduce
          tree.transfers.push_back({chain[i], chain[i + 1], share, group, false});  // broadcast
          walk += RouteLatency(chain[i + 1], chain[i]);
        }
        chain_latency = std::max(chain_latency, walk);
        heads.push_back(chain[0]);
      }
      for (size_t k = 1; k < count; ++k) {
        bool mirror = channel % 2 == 1;
        int parent = heads[TreeNode((k - 1) / 2, count, mirror)];
        int child = heads[TreeNode(k, count, mirror)];
        tree.transfers.push_back({child, parent, share, group, false});
        tree.transfers.push_back({parent, child, share, group, false});
        hop_latency = std::max(hop_latency, RouteLatency(child, parent));
      }
      tree_latency = std::max(tree_latency, 2 * (chain_latency + depth * hop_latency));
    }
    tree_steps = std::max(tree_steps, 2 * (static_cast<int>(p) - 1 + depth));
  }
  tree.steps = tree_steps;
  tree.path_latency = tree_latency;
  add({"tree-ll", "tree-ll128", "tree-simple"}, tree, false,
      "double binary trees over the nodes, a chain inside each node, pipelined");

  // NVLS trees.
  if (!NvlsFabric(topology_)) return;
  Phase nvls;
  double nvls_latency = 0;
  int nvls_steps = 0;
  for (size_t gi = 0; gi < layout.size(); ++gi) {
    const auto& nodes = layout[gi];
    size_t p = nodes[0].size(), count = nodes.size();
    if (p < 2) return;  // NVLS needs the switch to reduce at least two GPUs
    double share = bytes / static_cast<double>(p);
    int group = static_cast<int>(gi);
    int depth = TreeDepth(count);
    double switch_latency = 0, hop_latency = 0;
    for (const auto& members : nodes) {
      for (size_t i = 0; i < p; ++i) {
        // Each port: the array and a share up, a share and the array down.
        int next = members[(i + 1) % p];
        nvls.transfers.push_back({members[i], next, bytes + share, group, false});
        switch_latency = std::max(switch_latency, RouteLatency(members[i], next));
      }
    }
    for (size_t rail = 0; rail < p; ++rail) {
      for (size_t k = 1; k < count; ++k) {
        bool mirror = rail % 2 == 1;
        int parent = nodes[TreeNode((k - 1) / 2, count, mirror)][rail];
        int child = nodes[TreeNode(k, count, mirror)][rail];
        nvls.transfers.push_back({child, parent, share, group, false});
        nvls.transfers.push_back({parent, child, share, group, false});
        hop_latency = std::max(hop_latency, RouteLatency(child, parent));
      }
    }
    nvls_latency = std::max(nvls_latency, switch_latency + 2 * depth * hop_latency);
    nvls_steps = std::max(nvls_steps, 1 + 2 * depth);
  }
  nvls.steps = nvls_steps;
  nvls.path_latency = nvls_latency;
  add({"nvls-tree"}, nvls, false,
      "NVLink SHARP inside each node, each GPU's share over its rail in binary trees, pipelined");
}

}  // namespace az::net
