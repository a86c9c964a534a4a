// Topology: building, failures, and routing (see topology.h for the model).
//
// Invariants after Finalize(): nodes 0..num_chips-1 are chips and the rest are
// switches; every link joins two distinct existing nodes; adjacency_ lists
// every link at both ends in link-id order; a cached route equals
// ComputeRoute(), so caching never changes an answer.
#include "hw/topology.h"

#include <algorithm>
#include <deque>

namespace az::hw {

std::string_view LinkClassName(LinkClass c) {
  switch (c) {
    case LinkClass::kIci: return "ici";
    case LinkClass::kNvlink: return "nvlink";
    case LinkClass::kPcie: return "pcie";
    case LinkClass::kNetwork: return "network";
    case LinkClass::kSocket: return "socket";
    case LinkClass::kDcn: return "dcn";
  }
  return "?";
}

int Topology::channel_source(int channel) const {
  const Link& link = channel_link(channel);
  return channel % 2 == 0 ? link.a : link.b;
}

int Topology::channel_target(int channel) const {
  const Link& link = channel_link(channel);
  return channel % 2 == 0 ? link.b : link.a;
}

std::string Topology::ChannelName(int channel) const {
  AZ_CHECK(channel >= 0 && channel < num_channels());
  return nodes[static_cast<size_t>(channel_source(channel))].name + "->" +
         nodes[static_cast<size_t>(channel_target(channel))].name;
}

int Topology::AddNode(Node node) {
  nodes.push_back(std::move(node));
  finalized_ = false;
  return num_nodes() - 1;
}

int Topology::AddLink(Link link) {
  AZ_CHECK_MSG(link.a >= 0 && link.a < num_nodes() && link.b >= 0 && link.b < num_nodes(),
               "link endpoint is not a node");
  AZ_CHECK_MSG(link.a != link.b, "a link must join two distinct nodes");
  links.push_back(link);
  finalized_ = false;
  return static_cast<int>(links.size()) - 1;
}

bool Topology::LinkAlive(int link) const {
  const Link& l = links[static_cast<size_t>(link)];
  return !l.failed && !nodes[static_cast<size_t>(l.a)].failed && !nodes[static_cast<size_t>(l.b)].failed;
}

int Topology::FindNode(std::string_view node_name) const {
  for (int id = 0; id < num_nodes(); ++id) {
    if (nodes[static_cast<size_t>(id)].name == node_name) return id;
  }
  return -1;
}

Status Topology::FailLink(int a, int b) {
  if (a < 0 || a >= num_nodes() || b < 0 || b >= num_nodes()) {
    return InvalidArgument("cannot fail a link: node id out of range 0.." + std::to_string(num_nodes() - 1));
  }
  bool found = false;
  for (Link& link : links) {
    if (!((link.a == a && link.b == b) || (link.a == b && link.b == a))) continue;
    found = true;
    if (link.failed) continue;
    link.failed = true;
    finalized_ = false;
    return Status::Ok();
  }
  if (found) return Status::Ok();  // every link between them has already failed
  return NotFound("no link joins " + nodes[static_cast<size_t>(a)].name + " and " +
                  nodes[static_cast<size_t>(b)].name + " in " + name);
}

Status Topology::FailChip(int chip) {
  if (chip < 0 || chip >= num_chips()) {
    return InvalidArgument("cannot fail chip " + std::to_string(chip) + ": chip ids are 0.." +
                           std::to_string(num_chips() - 1));
  }
  nodes[static_cast<size_t>(chip)].failed = true;
  finalized_ = false;
  return Status::Ok();
}

Status Topology::Finalize() {
  AZ_CHECK_MSG(num_chips_ >= 0 && num_chips_ <= num_nodes(), "more chips than nodes");
  for (int id = 0; id < num_nodes(); ++id) {
    AZ_CHECK_MSG((nodes[static_cast<size_t>(id)].kind == NodeKind::kChip) == (id < num_chips_),
                 "chips must be nodes 0..num_chips-1 and switches the rest");
  }
  if (!dims.empty()) {
    int64_t product = 1;
    for (int length : dims) product *= length;
    AZ_CHECK_MSG(slices >= 1 && product * slices == num_chips_ && wrap.size() == dims.size(),
                 "torus dims disagree with the chips");
  }
  adjacency_.assign(nodes.size(), {});
  for (int l = 0; l < static_cast<int>(links.size()); ++l) {
    const Link& link = links[static_cast<size_t>(l)];
    AZ_CHECK(link.a >= 0 && link.a < num_nodes() && link.b >= 0 && link.b < num_nodes() && link.a != link.b);
    adjacency_[static_cast<size_t>(link.a)].push_back({link.b, 2 * l});
    adjacency_[static_cast<size_t>(link.b)].push_back({link.a, 2 * l + 1});
  }

  // Components over live links and live nodes (breadth-first from each unseen node).
  component_.assign(nodes.size(), -1);
  int components = 0;
  for (int start = 0; start < num_nodes(); ++start) {
    if (component_[static_cast<size_t>(start)] >= 0 || nodes[static_cast<size_t>(start)].failed) continue;
    std::deque<int> queue{start};
    component_[static_cast<size_t>(start)] = components;
    while (!queue.empty()) {
      int node = queue.front();
      queue.pop_front();
      for (auto [next, channel] : adjacency_[static_cast<size_t>(node)]) {
        if (component_[static_cast<size_t>(next)] >= 0 || !LinkAlive(channel / 2)) continue;
        component_[static_cast<size_t>(next)] = components;
        queue.push_back(next);
      }
    }
    ++components;
  }

  // The route cache: built pair by pair, abandoned (not an error) past the budget.
  route_cache_ = false;
  route_offsets_.clear();
  route_channels_.clear();
  finalized_ = true;
  if (num_chips_ <= kRouteCacheMaxChips) {
    std::vector<int64_t> offsets;
    std::vector<int> channels;
    offsets.reserve(static_cast<size_t>(num_chips_) * static_cast<size_t>(num_chips_) + 1);
    offsets.push_back(0);
    bool fits = true;
    for (int src = 0; src < num_chips_ && fits; ++src) {
      for (int dst = 0; dst < num_chips_; ++dst) {
        std::vector<int> route = ComputeRoute(src, dst);
        channels.insert(channels.end(), route.begin(), route.end());
        offsets.push_back(static_cast<int64_t>(channels.size()));
        if (static_cast<int64_t>(channels.size()) > kRouteCacheMaxChannels) {
          fits = false;
          break;
        }
      }
    }
    if (fits) {
      route_offsets_ = std::move(offsets);
      route_channels_ = std::move(channels);
      route_cache_ = true;
    }
  }
  return Status::Ok();
}

int Topology::ChannelBetween(int a, int b) const {
  for (auto [next, channel] : adjacency_[static_cast<size_t>(a)]) {
    if (next == b && LinkAlive(channel / 2)) return channel;
  }
  return -1;
}

bool Topology::RouteIsAlive(const std::vector<int>& route) const {
  return std::all_of(route.begin(), route.end(), [this](int channel) { return LinkAlive(channel / 2); });
}

std::vector<int> Topology::TorusRoute(int src, int dst) const {
  // Dimension order: finish axis 0 (x), then 1 (y), then 2 (z), inside the
  // slice of src (a multi-slice caller passes chips of one slice).
  size_t rank = dims.size();
  const int base = SliceOf(src) * slice_chips();
  src -= base;
  dst -= base;
  std::vector<int> here(rank), target(rank);
  for (size_t axis = 0, s = static_cast<size_t>(src), d = static_cast<size_t>(dst); axis < rank; ++axis) {
    size_t length = static_cast<size_t>(dims[axis]);
    here[axis] = static_cast<int>(s % length);
    target[axis] = static_cast<int>(d % length);
    s /= length;
    d /= length;
  }
  auto id_of = [&](const std::vector<int>& coords) {
    int id = 0;
    for (size_t axis = rank; axis-- > 0;) id = id * dims[axis] + coords[axis];
    return base + id;
  };
  std::vector<int> route;
  int node = base + src;
  for (size_t axis = 0; axis < rank; ++axis) {
    int length = dims[axis];
    while (here[axis] != target[axis]) {
      int forward = ((target[axis] - here[axis]) % length + length) % length;
      int step;
      if (wrap[axis]) {
        step = forward <= length - forward ? 1 : -1;  // the shorter way; ties positive
      } else {
        step = target[axis] > here[axis] ? 1 : -1;  // a line: the only way
      }
      here[axis] = (here[axis] + step + length) % length;
      int next = id_of(here);
      int channel = ChannelBetween(node, next);
      if (channel < 0) return {};
      route.push_back(channel);
      node = next;
    }
  }
  return route;
}

int Topology::LocalSwitch(int gpu) const {
  for (auto [next, channel] : adjacency_[static_cast<size_t>(gpu)]) {
    LinkClass cls = links[static_cast<size_t>(channel / 2)].cls;
    if ((cls == LinkClass::kNvlink || cls == LinkClass::kPcie) && next >= num_chips_) return next;
  }
  return -1;
}

int Topology::RailSwitch(int gpu) const {
  for (auto [next, channel] : adjacency_[static_cast<size_t>(gpu)]) {
    if (links[static_cast<size_t>(channel / 2)].cls == LinkClass::kNetwork && next >= num_chips_) return next;
  }
  return -1;
}

std::vector<int> Topology::GpuRoute(int src, int dst) const {
  // Appends the two-channel hop a -> via -> b; false when a channel is missing.
  std::vector<int> route;
  auto through = [&](int a, int via, int b) {
    if (via < 0) return false;
    int first = ChannelBetween(a, via), second = ChannelBetween(via, b);
    if (first < 0 || second < 0) return false;
    route.push_back(first);
    route.push_back(second);
    return true;
  };
  // Inside a node: one switch hop when both GPUs share it and talk peer to
  // peer, else the tree (staged through the source's host without P2P).
  auto inside = [&](int a, int b) {
    if (peer_to_peer && through(a, LocalSwitch(a), b)) return true;
    std::vector<int> path;
    if (peer_to_peer) {
      path = ShortestPath(a, b, /*skip_network=*/true);
    } else {
      int host = NearestHost(a);
      if (host < 0) return false;
      path = ShortestPath(a, host, true);
      std::vector<int> down = ShortestPath(host, b, true);
      if (path.empty() || down.empty()) return false;
      path.insert(path.end(), down.begin(), down.end());
    }
    if (path.empty()) return false;
    route.insert(route.end(), path.begin(), path.end());
    return true;
  };
  int per_node = gpus_per_node;
  int src_node = src / per_node, dst_node = dst / per_node;
  int src_rail = src % per_node, dst_rail = dst % per_node;
  if (src_node == dst_node) {
    if (!inside(src, dst)) return {};
    return route;
  }
  if (src_rail == dst_rail) {
    if (!through(src, RailSwitch(src), dst)) return {};
    return route;
  }
  // PXN: inside the node to the source node's GPU on the destination's rail, then that rail.
  int proxy = src_node * per_node + dst_rail;
  if (!inside(src, proxy)) return {};
  if (!through(proxy, RailSwitch(proxy), dst)) return {};
  return route;
}

std::vector<int> Topology::SliceRoute(int src, int dst) const {
  // chip -> its host -> the DCN switch -> the destination's host -> chip.
  auto uplink = [&](int chip) {
    for (auto [next, channel] : adjacency_[static_cast<size_t>(chip)]) {
      if (next >= num_chips_ && nodes[static_cast<size_t>(next)].host) return channel;
    }
    return -1;
  };
  int up = uplink(src), down_reverse = uplink(dst);
  if (up < 0 || down_reverse < 0) return {};
  int src_host = channel_target(up), dst_host = channel_target(down_reverse);
  auto dcn_link = [&](int host) {
    for (auto [next, channel] : adjacency_[static_cast<size_t>(host)]) {
      if (links[static_cast<size_t>(channel / 2)].cls == LinkClass::kDcn) return channel;
    }
    return -1;
  };
  int out = dcn_link(src_host), in_reverse = dcn_link(dst_host);
  if (out < 0 || in_reverse < 0) return {};
  // Reverse channels: 2l <-> 2l+1.
  return {up, out, in_reverse ^ 1, down_reverse ^ 1};
}

std::vector<int> Topology::DefaultRoute(int src, int dst) const {
  if (!dims.empty() && slices > 1 && SliceOf(src) != SliceOf(dst)) return SliceRoute(src, dst);
  if (!dims.empty()) return TorusRoute(src, dst);
  if (gpu_nodes > 0 && gpus_per_node > 0 && num_chips_ == gpu_nodes * gpus_per_node) return GpuRoute(src, dst);
  return {};
}

int Topology::NearestHost(int from) const {
  std::vector<char> seen(nodes.size(), 0);
  std::deque<int> queue{from};
  seen[static_cast<size_t>(from)] = 1;
  while (!queue.empty()) {
    int node = queue.front();
    queue.pop_front();
    if (nodes[static_cast<size_t>(node)].host) return node;
    for (auto [next, channel] : adjacency_[static_cast<size_t>(node)]) {
      const Link& link = links[static_cast<size_t>(channel / 2)];
      if (seen[static_cast<size_t>(next)] || !LinkAlive(channel / 2) || link.cls == LinkClass::kNetwork) continue;
      seen[static_cast<size_t>(next)] = 1;
      queue.push_back(next);
    }
  }
  return -1;
}

std::vector<int> Topology::ShortestPath(int src, int dst, bool skip_network) const {
  // parent_channel[n]: the channel by which breadth-first search first reached n.
  std::vector<int> parent_channel(nodes.size(), -1);
  std::vector<char> seen(nodes.size(), 0);
  std::deque<int> queue{src};
  seen[static_cast<size_t>(src)] = 1;
  while (!queue.empty() && !seen[static_cast<size_t>(dst)]) {
    int node = queue.front();
    queue.pop_front();
    for (auto [next, channel] : adjacency_[static_cast<size_t>(node)]) {
      if (seen[static_cast<size_t>(next)] || !LinkAlive(channel / 2)) continue;
      if (skip_network && links[static_cast<size_t>(channel / 2)].cls == LinkClass::kNetwork) continue;
      seen[static_cast<size_t>(next)] = 1;
      parent_channel[static_cast<size_t>(next)] = channel;
      queue.push_back(next);
    }
  }
  if (!seen[static_cast<size_t>(dst)]) return {};
  std::vector<int> route;
  for (int node = dst; node != src; node = channel_source(parent_channel[static_cast<size_t>(node)])) {
    route.push_back(parent_channel[static_cast<size_t>(node)]);
  }
  std::reverse(route.begin(), route.end());
  return route;
}

std::vector<int> Topology::ComputeRoute(int src, int dst) const {
  if (src == dst || component_[static_cast<size_t>(src)] < 0 ||
      component_[static_cast<size_t>(src)] != component_[static_cast<size_t>(dst)]) {
    return {};
  }
  std::vector<int> route = DefaultRoute(src, dst);
  if (!route.empty() && RouteIsAlive(route)) return route;
  return ShortestPath(src, dst);
}

bool Topology::CachedRoute(int src, int dst, std::span<const int>* route) const {
  if (!route_cache_ || src < 0 || src >= num_chips_ || dst < 0 || dst >= num_chips_) return false;
  if (nodes[static_cast<size_t>(src)].failed || nodes[static_cast<size_t>(dst)].failed) return false;
  if (component_[static_cast<size_t>(src)] != component_[static_cast<size_t>(dst)]) return false;
  size_t pair = static_cast<size_t>(src) * static_cast<size_t>(num_chips_) + static_cast<size_t>(dst);
  *route = std::span<const int>(route_channels_.data() + route_offsets_[pair],
                                static_cast<size_t>(route_offsets_[pair + 1] - route_offsets_[pair]));
  return true;
}

StatusOr<std::vector<int>> Topology::Route(int src, int dst) const {
  AZ_CHECK_MSG(finalized_, "Topology::Route before Finalize()");
  if (src < 0 || src >= num_chips_ || dst < 0 || dst >= num_chips_) {
    return InvalidArgument("no route from " + std::to_string(src) + " to " + std::to_string(dst) + ": chip ids are 0.." +
                           std::to_string(num_chips_ - 1));
  }
  auto describe = [this](int chip) { return nodes[static_cast<size_t>(chip)].name; };
  std::string prefix = "no route from " + describe(src) + " to " + describe(dst) + ": ";
  if (nodes[static_cast<size_t>(src)].failed) return FailedPrecondition(prefix + "chip " + describe(src) + " has failed");
  if (nodes[static_cast<size_t>(dst)].failed) return FailedPrecondition(prefix + "chip " + describe(dst) + " has failed");
  if (component_[static_cast<size_t>(src)] != component_[static_cast<size_t>(dst)]) {
    return FailedPrecondition(prefix + "the failures in " + name + " disconnect them");
  }
  if (route_cache_) {
    size_t pair = static_cast<size_t>(src) * static_cast<size_t>(num_chips_) + static_cast<size_t>(dst);
    return std::vector<int>(route_channels_.begin() + route_offsets_[pair],
                            route_channels_.begin() + route_offsets_[pair + 1]);
  }
  return ComputeRoute(src, dst);
}

int Topology::Hops(int src, int dst) const {
  AZ_CHECK_MSG(finalized_, "Topology::Hops before Finalize()");
  if (src < 0 || src >= num_chips_ || dst < 0 || dst >= num_chips_) return -1;
  if (component_[static_cast<size_t>(src)] < 0 ||
      component_[static_cast<size_t>(src)] != component_[static_cast<size_t>(dst)]) {
    return -1;
  }
  if (route_cache_) {
    size_t pair = static_cast<size_t>(src) * static_cast<size_t>(num_chips_) + static_cast<size_t>(dst);
    return static_cast<int>(route_offsets_[pair + 1] - route_offsets_[pair]);
  }
  return static_cast<int>(ComputeRoute(src, dst).size());
}

}  // namespace az::hw
