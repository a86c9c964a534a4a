// Named systems: TPU slices ("v5e:2x4", "v5p:4x4x4") and GPU nodes and clusters
// ("h100:8", "h100:2x8", "l40s:8"), built from the chip catalog.
//
// Figures that belong to the system rather than the chip (reference/hardware.md):
//  * ICI hop latency 1 us: SB "typically around 1us" per hop (§2.1).
//  * GPU link latencies are NCCL's hardware latency per GPU-to-GPU step for the
//    LL protocol (NCCL tuning.cc hwLat, hardware.md §4.5), split evenly over the
//    two links a step crosses (GPU -> switch -> GPU): NVLink 0.6 us -> 0.3 per
//    link; PCIe 1.0 -> 0.5; network 5.0 (the Tree/LL NET row; Ring/LL gives 2.7)
//    -> 2.5 per link. LL is the protocol without protocol overhead in its
//    latency; the collective model adds the per-algorithm base latencies.
//  * Rail NICs: 400 Gbps NDR = 50e9 B/s per direction line rate, one per GPU
//    (SB: DGX H100 SuperPOD, "NDR (50 GB/s full duplex)", §4.3); achievable is
//    46-49 GB/s (nccl-tests #290, #267), which calibration, not the topology,
//    accounts for. PCIe clusters get the same NIC per GPU: no source gives one.
//  * The scale-out fabric (the spec's third field: "h100:2x8:ib", "h100:2x8:efa";
//    InfiniBand when omitted) sets the per-message latency of a network hop:
//      ib   5 us per message (2.5 per link): NCCL's hwLat NET for Tree/LL
//           (tuning.cc; the IB transport reports no extra latency: its
//           getProperties sets props->latency = 0);
//      efa  25 us per message (12.5 per link): fi_pingpong over EFA between
//           two nodes, 24-30 us per transfer at 256 B - 4 KiB
//           (ComputeCanada/puppet-magic_castle#331; a single node's loopback
//           is ~12 us, aws-parallelcluster#1143 / #6449). aws-ofi-nccl reports
//           75 us to NCCL's tuner for p5 (platform-aws.cpp), a tuning bias,
//           not a measured latency. AWS p5.48xlarge: 32 x 100 Gbps EFA =
//           400 GB/s per node, 50 GB/s per GPU like one NDR rail.
//  * TPU multi-slice ("v5e:2x4*2": N slices over the data-center network).
//    GC Multislice overview: chips in different slices "communicate by
//    transferring data to CPUs (hosts) which in turn transmit the data over
//    the data-center network (DCN)"; SB: "PCIe -> host NIC -> network -> PCIe".
//    So a chip reaches its host over its PCIe host link (chip.cc
//    host_link_bw, SB 1.6e10 B/s; latency a PCIe hop's, 0.5 us, as above), and
//    the host reaches the DCN over its NIC, shared by the host's chips: the
//    per-host NIC bandwidth and the chips per host are catalog fields
//    (chip.cc: v5e 2 x 100 Gbps per 8-chip host, v5p 50 Gbps per chip on
//    4-chip hosts, GC). DCN latency: 250 us per message (125 per link):
//    half of the 500 us "round trip within same data center" that a plain
//    TCP echo between GCP VMs of one region reaches at about its 80th
//    percentile (evanjones.ca/network-latencies-2021, 2021; GC calls DCN the
//    "high latency, low throughput (compared to ICI)" network). Host-staged
//    TPU transfers run over the same kind of host stack; no TPU-specific DCN
//    latency is published, so this is an upper-end estimate to calibrate.
#include <algorithm>
#include <cstdint>
#include <string>

#include "hw/topology.h"

namespace az::hw {
namespace {

constexpr double kIciHopLatency = 1e-6;     // SB: ~1 us per ICI hop
constexpr double kNvlinkLatency = 0.3e-6;   // NCCL hwLat NVLINK LL 0.6 us per step / 2 links
constexpr double kPcieLatency = 0.5e-6;     // NCCL hwLat PCI LL 1.0 us per step / 2 links
constexpr double kNetworkLatency = 2.5e-6;  // NCCL hwLat NET Tree/LL 5.0 us per step / 2 links
constexpr double kEfaLatency = 12.5e-6;     // EFA fi_pingpong ~25 us per message / 2 links
constexpr double kRailNicBps = 50e9;        // 400 Gbps NDR, one direction
constexpr double kDcnLatency = 125e-6;      // GCP in-region TCP round trip ~500 us: 250 us one way / 2 links
constexpr int kMaxSlices = 64;
constexpr int kMaxGpusPerNode = 8;
constexpr int kMaxGpuNodes = 64;

const char* const kSubCubeSlices[] = {"2x2x1", "2x2x2", "2x2x4", "2x4x4"};
const char* const k2dSlices[] = {"2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"};

std::string JoinDims(const std::vector<int>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "x" : "") + std::to_string(dims[i]);
  return out;
}

std::string Joined(const char* const* begin, const char* const* end) {
  std::string out;
  for (auto it = begin; it != end; ++it) out += (it == begin ? "" : ", ") + std::string(*it);
  return out;
}

// "2x4x4" -> {2, 4, 4}; each part a positive decimal below 1e6.
StatusOr<std::vector<int>> ParseShape(std::string_view shape, std::string_view spec) {
  std::vector<int> dims;
  size_t start = 0;
  while (true) {
    size_t end = shape.find('x', start);
    std::string_view part = shape.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string_view::npos) {
      return InvalidArgument("topology '" + std::string(spec) + "': bad shape '" + std::string(shape) +
                             "' (write sizes joined by 'x', e.g. 2x4, 4x4x4, 8 or 2x8)");
    }
    dims.push_back(std::stoi(std::string(part)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return dims;
}

bool InList(const std::string& shape, const char* const* begin, const char* const* end) {
  for (auto it = begin; it != end; ++it) {
    if (shape == *it) return true;
  }
  return false;
}

// Validates a slice shape for a TPU generation and returns its wrap flags
// (hardware.md §2.2, §2.3); the generation's rule is its catalog entry's
// tpu_slices.
StatusOr<std::vector<bool>> TpuWrap(const ChipSpec& chip, const std::vector<int>& dims, std::string_view spec) {
  std::string shape = JoinDims(dims);
  std::string prefix = "topology '" + std::string(spec) + "': ";
  AZ_CHECK(chip.tpu_slices != TpuSlices::kNone);  // every TPU entry names its slice rule
  if (chip.tpu_slices == TpuSlices::k2dPod16) {
    std::string valid = Joined(std::begin(k2dSlices), std::end(k2dSlices));
    if (dims.size() != 2 || !InList(shape, std::begin(k2dSlices), std::end(k2dSlices))) {
      return InvalidArgument(prefix + shape + " is not a " + chip.name + " slice (a 2D torus; valid: " + valid + ")");
    }
    // GC/SB: v5e and v6e have no optical switches; only an axis of 16 (the full
    // pod side) has a wraparound link.
    return std::vector<bool>{dims[0] == 16, dims[1] == 16};
  }
  // v4 and v5p: 3D; sub-cube slices never wrap, whole-cube slices wrap every axis.
  bool is_v5p = chip.tpu_slices == TpuSlices::k3dSortedCubes24;
  std::string limits = is_v5p ? "A <= B <= C, at most 16x16x24" : "each at most 16";
  std::string valid = Joined(std::begin(kSubCubeSlices), std::end(kSubCubeSlices)) +
                      ", or AxBxC with A, B, C multiples of 4 (" + limits + ")";
  if (dims.size() != 3) {
    return InvalidArgument(prefix + chip.name + " slices are 3D (AxBxC); valid: " + valid);
  }
  if (InList(shape, std::begin(kSubCubeSlices), std::end(kSubCubeSlices))) return std::vector<bool>(3, false);
  bool ok = true;
  for (int length : dims) ok = ok && length % 4 == 0 && length >= 4 && length <= (is_v5p ? 24 : 16);
  if (is_v5p) ok = ok && dims[0] <= dims[1] && dims[1] <= dims[2] && dims[1] <= 16;
  if (!ok) return InvalidArgument(prefix + shape + " is not a " + chip.name + " slice (valid: " + valid + ")");
  return std::vector<bool>(3, true);
}

Topology BuildTorus(std::string_view spec, const ChipSpec& chip, const std::vector<int>& dims,
                    const std::vector<bool>& wrap) {
  Topology t;
  t.name = std::string(spec);
  t.chip = chip;
  t.dims = dims;
  t.wrap = wrap;
  int rank = static_cast<int>(dims.size());
  int count = 1;
  for (int length : dims) count *= length;
  // Chip id = x + X*(y + Y*z): decode each id into its coordinates.
  for (int id = 0; id < count; ++id) {
    Node node;
    node.kind = NodeKind::kChip;
    int rest = id;
    for (int axis = 0; axis < rank; ++axis) {
      node.coords.push_back(rest % dims[static_cast<size_t>(axis)]);
      rest /= dims[static_cast<size_t>(axis)];
    }
    node.name = "(";
    for (int axis = 0; axis < rank; ++axis) node.name += (axis ? "," : "") + std::to_string(node.coords[static_cast<size_t>(axis)]);
    node.name += ")";
    t.AddNode(std::move(node));
  }
  t.set_num_chips(count);
  int stride = 1;
  for (int axis = 0; axis < rank; ++axis) {
    int length = dims[static_cast<size_t>(axis)];
    for (int id = 0; id < count; ++id) {
      int coord = t.nodes[static_cast<size_t>(id)].coords[static_cast<size_t>(axis)];
      Link link;
      link.bw = chip.link_bw;
      link.latency = Seconds(kIciHopLatency);
      link.cls = LinkClass::kIci;
      link.axis = axis;
      if (coord + 1 < length) {
        link.a = id;
        link.b = id + stride;
      } else if (wrap[static_cast<size_t>(axis)] && length > 2) {
        // The wrap closes the ring L-1 -> 0; on a length-2 axis the pair is already adjacent.
        link.a = id;
        link.b = id - (length - 1) * stride;
        link.wraparound = true;
      } else {
        continue;
      }
      t.AddLink(link);
    }
    stride *= length;
  }
  return t;
}

void Connect(Topology& t, int a, int b, LinkClass cls, Seconds latency, Bandwidth bw);

// N copies of one slice's torus, a host switch per ChipSpec::tpu_host_block
// of each slice, and one DCN switch (topology.h: multi-slice systems).
StatusOr<Topology> BuildMultiSlice(std::string_view spec, const ChipSpec& chip, const std::vector<int>& dims,
                                   const std::vector<bool>& wrap, int slice_count) {
  std::string quoted = "topology '" + std::string(spec) + "'";
  if (chip.dcn_host_bw.value() <= 0 || chip.tpu_host_block.empty()) {
    return InvalidArgument(quoted + ": the catalog has no DCN figures for " + chip.name);
  }
  const Topology one = BuildTorus(spec, chip, dims, wrap);
  const int per_slice = one.num_chips();
  const size_t rank = dims.size();
  Topology t;
  t.name = std::string(spec);
  t.chip = chip;
  t.dims = dims;
  t.wrap = wrap;
  t.slices = slice_count;
  for (int slice = 0; slice < slice_count; ++slice) {
    for (int id = 0; id < per_slice; ++id) {
      Node node = one.nodes[static_cast<size_t>(id)];
      node.name = "s" + std::to_string(slice) + node.name;
      node.coords.push_back(slice);
      t.AddNode(std::move(node));
    }
  }
  t.set_num_chips(per_slice * slice_count);
  for (int slice = 0; slice < slice_count; ++slice) {
    for (Link link : one.links) {
      link.a += slice * per_slice;
      link.b += slice * per_slice;
      t.AddLink(link);
    }
  }
  // Hosts: blocks of the torus (a slice smaller than a block is one host).
  std::vector<int> block(rank), hosts_along(rank);
  int hosts_per_slice = 1;
  for (size_t a = 0; a < rank; ++a) {
    block[a] = std::min(a < chip.tpu_host_block.size() ? chip.tpu_host_block[a] : 1, dims[a]);
    AZ_CHECK_MSG(dims[a] % block[a] == 0, "a TPU slice is a whole number of hosts");
    hosts_along[a] = dims[a] / block[a];
    hosts_per_slice *= hosts_along[a];
  }
  const int first_host = t.num_nodes();
  for (int slice = 0; slice < slice_count; ++slice) {
    for (int h = 0; h < hosts_per_slice; ++h) {
      Node host{NodeKind::kSwitch, "s" + std::to_string(slice) + "/host" + std::to_string(h), {}, false};
      host.host = true;
      t.AddNode(std::move(host));
    }
  }
  const int dcn = t.AddNode(Node{NodeKind::kSwitch, "dcn", {}, false});
  for (int chip_id = 0; chip_id < t.num_chips(); ++chip_id) {
    const std::vector<int>& coords = t.nodes[static_cast<size_t>(chip_id)].coords;
    int host = 0;
    for (size_t a = rank; a-- > 0;) host = host * hosts_along[a] + coords[a] / block[a];
    host += t.SliceOf(chip_id) * hosts_per_slice;
    Connect(t, chip_id, first_host + host, LinkClass::kPcie, Seconds(kPcieLatency), chip.host_link_bw);
  }
  for (int host = 0; host < slice_count * hosts_per_slice; ++host) {
    Connect(t, first_host + host, dcn, LinkClass::kDcn, Seconds(kDcnLatency), chip.dcn_host_bw);
  }
  return t;
}

// A link between topology nodes a and b.
void Connect(Topology& t, int a, int b, LinkClass cls, Seconds latency, Bandwidth bw) {
  Link link;
  link.a = a;
  link.b = b;
  link.cls = cls;
  link.latency = latency;
  link.bw = bw;
  t.AddLink(link);
}

// One PCIe node (GPUs m*per_node ..): the common two-socket server. Its GPUs
// split evenly over two CPU sockets (the first socket takes the odd one;
// one GPU: one socket), in pairs under PCIe switches, each switch on one
// x16 uplink to its socket's root complex, the sockets joined by one
// kSocket link:
//
//   gpu0 gpu1   gpu2 gpu3        gpu4 gpu5   gpu6 gpu7
//     pcie0       pcie1            pcie2       pcie3
//          cpu0  ---- UPI / Infinity Fabric ----  cpu1
//
// Sources: nvidia-smi topo -m of PCIe L40S hosts shows GPUs split over two
// NUMA nodes (NODE within a socket, SYS across: warpem/miss-alignment#106;
// MLE network/debug); NCCL's path types PIX (one switch), PXB, PHB, NODE,
// SYS (graph.h) describe this tree. Every PCIe link is the GPU's own port
// rate (hw/chip.cc: Gen4 x16, 32 GB/s per direction), the uplink shared by
// the switch's two GPUs. The socket link: NCCL's figure for GPU traffic
// across Sapphire Rapids UPI, SRP_QPI_BW = 22 GB/s (topo.h; Skylake 10,
// AMD Zen 3/4 24), the CPU of current L40S / L20 servers. Its latency is a
// PCIe hop's (0.5 us): NCCL charges no separate one (hwLat PCI per step).
void AddPcieTree(Topology& t, const ChipSpec& chip, int m, int per_node, bool multi_node) {
  constexpr double kSocketBps = 22e9;  // NCCL topo.h SRP_QPI_BW
  constexpr int kGpusPerSwitch = 2;
  std::string prefix = multi_node ? "node" + std::to_string(m) + "/" : std::string();
  int sockets = per_node >= 2 ? 2 : 1;
  int first_cpu = t.num_nodes();
  for (int socket = 0; socket < sockets; ++socket) {
    Node cpu{NodeKind::kSwitch, prefix + "cpu" + std::to_string(socket), {}, false};
    cpu.host = true;
    t.AddNode(std::move(cpu));
  }
  auto add = [&](int a, int b, double bw, LinkClass cls) { Connect(t, a, b, cls, Seconds(kPcieLatency), Bandwidth(bw)); };
  if (sockets == 2) add(first_cpu, first_cpu + 1, kSocketBps, LinkClass::kSocket);
  int first_on_second = (per_node + 1) / 2;  // the first socket takes the odd GPU
  int switch_index = 0;
  for (int socket = 0; socket < sockets; ++socket) {
    int begin = socket == 0 ? 0 : first_on_second, end = socket == 0 && sockets == 2 ? first_on_second : per_node;
    for (int i = begin; i < end; i += kGpusPerSwitch) {
      int sw = t.AddNode(Node{NodeKind::kSwitch, prefix + "pcie" + std::to_string(switch_index++), {}, false});
      add(sw, first_cpu + socket, chip.link_bw.value(), LinkClass::kPcie);
      for (int gpu = i; gpu < std::min(end, i + kGpusPerSwitch); ++gpu) {
        add(m * per_node + gpu, sw, chip.link_bw.value(), LinkClass::kPcie);
      }
    }
  }
}

// nodes x per_node GPUs; `multi_node` adds rail switches and node-qualified names.
Topology BuildGpuSystem(std::string_view spec, const ChipSpec& chip, int node_count, int per_node, bool multi_node,
                        const std::string& fabric) {
  Topology t;
  t.name = std::string(spec);
  t.chip = chip;
  t.fabric = multi_node ? fabric : "";
  t.gpu_nodes = node_count;
  t.gpus_per_node = per_node;
  bool nvlink = chip.links_per_chip > 0;
  for (int m = 0; m < node_count; ++m) {
    for (int i = 0; i < per_node; ++i) {
      Node node;
      node.kind = NodeKind::kChip;
      node.name = (multi_node ? "node" + std::to_string(m) + "/" : std::string()) + "gpu" + std::to_string(i);
      node.coords = {m, i};
      t.AddNode(std::move(node));
    }
  }
  t.set_num_chips(node_count * per_node);
  t.peer_to_peer = chip.peer_to_peer;
  if (nvlink) {
    int first_switch = t.num_nodes();
    for (int m = 0; m < node_count; ++m) {
      t.AddNode(Node{NodeKind::kSwitch, "nvswitch" + std::to_string(m), {}, false});
    }
    for (int m = 0; m < node_count; ++m) {
      for (int i = 0; i < per_node; ++i) {
        Connect(t, m * per_node + i, first_switch + m, LinkClass::kNvlink, Seconds(kNvlinkLatency), chip.link_bw);
      }
    }
  } else {
    for (int m = 0; m < node_count; ++m) AddPcieTree(t, chip, m, per_node, multi_node);
  }
  if (multi_node) {
    int first_rail = t.num_nodes();
    for (int i = 0; i < per_node; ++i) t.AddNode(Node{NodeKind::kSwitch, "rail" + std::to_string(i), {}, false});
    const Seconds latency(fabric == "efa" ? kEfaLatency : kNetworkLatency);
    for (int m = 0; m < node_count; ++m) {
      for (int i = 0; i < per_node; ++i) {
        Connect(t, m * per_node + i, first_rail + i, LinkClass::kNetwork, latency, Bandwidth(kRailNicBps));
      }
    }
  }
  return t;
}

std::string ChipNames(ChipFamily family) {
  std::string out;
  for (const ChipSpec& chip : ChipCatalog()) {
    if (chip.family == family) out += (out.empty() ? "" : ", ") + chip.name;
  }
  return out;
}

}  // namespace

StatusOr<Topology> MakeTopology(std::string_view spec) {
  std::string quoted = "topology '" + std::string(spec) + "'";
  size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return InvalidArgument(quoted + ": write CHIP:SHAPE, e.g. v5e:2x4, v5p:4x4x4, h100:8 or h100:2x8");
  }
  std::string_view chip_name = spec.substr(0, colon), shape = spec.substr(colon + 1);
  // GPU clusters: an optional third field names the scale-out fabric.
  std::string fabric = "ib";
  bool has_fabric = false;
  if (size_t second = shape.find(':'); second != std::string_view::npos) {
    fabric = std::string(shape.substr(second + 1));
    shape = shape.substr(0, second);
    has_fabric = true;
    if (fabric != "ib" && fabric != "efa") {
      return InvalidArgument(quoted + ": unknown fabric '" + fabric + "' (ib or efa, e.g. h100:2x8:efa)");
    }
  }
  // TPU multi-slice: "SHAPE*N", N slices joined by the data-center network.
  int slice_count = 1;
  bool multi_slice = false;
  if (size_t star = shape.find('*'); star != std::string_view::npos) {
    std::string_view count = shape.substr(star + 1);
    shape = shape.substr(0, star);
    multi_slice = true;
    if (count.empty() || count.size() > 3 || count.find_first_not_of("0123456789") != std::string_view::npos ||
        std::stoi(std::string(count)) < 1 || std::stoi(std::string(count)) > kMaxSlices) {
      return InvalidArgument(quoted + ": bad slice count '" + std::string(count) + "' after '*' (1.." +
                             std::to_string(kMaxSlices) + " slices, e.g. v5e:16x16*2)");
    }
    slice_count = std::stoi(std::string(count));
  }
  if (chip_name.empty()) return InvalidArgument(quoted + ": missing chip name before ':' (e.g. v5e:2x4)");
  auto chip = FindChip(chip_name);
  if (!chip.ok()) {
    return NotFound(quoted + ": unknown chip '" + std::string(chip_name) + "' (TPUs: " + ChipNames(ChipFamily::kTpu) +
                    "; GPUs: " + ChipNames(ChipFamily::kGpu) + ")");
  }
  if (shape.empty()) {
    return InvalidArgument(quoted + ": missing shape after ':' (e.g. " + std::string(chip_name) +
                           ((*chip)->family == ChipFamily::kTpu ? ":2x2x2 or :2x4)" : ":8 or :2x8)"));
  }
  AZ_ASSIGN_OR_RETURN(std::vector<int> dims, ParseShape(shape, spec));
  const ChipSpec& c = **chip;
  if (c.family == ChipFamily::kTpu) {
    if (has_fabric) {
      return InvalidArgument(quoted + ": a TPU slice has no fabric field (ICI only; slices join over DCN: " +
                             std::string(chip_name) + ":SHAPE*N)");
    }
    AZ_ASSIGN_OR_RETURN(std::vector<bool> wrap, TpuWrap(c, dims, spec));
    if (dims.size() == 2) {
      // GC names a 2D slice short side first ("2x4"), while the devices' own
      // coordinates put the long side on x: JAX's 8-chip v5e host has bounds
      // 4x2 (hardware.md §3.2: "row y=0 left->right, row y=1 right->left").
      // Chip ids follow those coordinates, so x is the name's second number.
      std::swap(dims[0], dims[1]);
      wrap = {wrap[1], wrap[0]};
    }
    if (multi_slice) {
      AZ_ASSIGN_OR_RETURN(Topology t, BuildMultiSlice(spec, c, dims, wrap, slice_count));
      AZ_RETURN_IF_ERROR(t.Finalize());
      return t;
    }
    Topology t = BuildTorus(spec, c, dims, wrap);
    AZ_RETURN_IF_ERROR(t.Finalize());
    return t;
  }
  if (multi_slice) {
    return InvalidArgument(quoted + ": '*N' joins TPU slices over DCN; a GPU system is N or MxN (M nodes of N GPUs, "
                           "e.g. " + std::string(chip_name) + ":2x8)");
  }
  if (dims.size() > 2) {
    return InvalidArgument(quoted + ": a GPU system is N (GPUs in one node) or MxN (M nodes of N GPUs)");
  }
  int per_node = dims.back();
  int node_count = dims.size() == 2 ? dims[0] : 1;
  if (per_node < 1 || per_node > kMaxGpusPerNode) {
    return InvalidArgument(quoted + ": GPUs per node must be 1.." + std::to_string(kMaxGpusPerNode) + ", not " +
                           std::to_string(per_node));
  }
  if (node_count < 1 || node_count > kMaxGpuNodes) {
    return InvalidArgument(quoted + ": node count must be 1.." + std::to_string(kMaxGpuNodes) + ", not " +
                           std::to_string(node_count));
  }
  if (dims.size() != 2 && has_fabric) {
    return InvalidArgument(quoted + ": a fabric applies to multi-node systems (MxN), e.g. h100:2x8:efa");
  }
  Topology t = BuildGpuSystem(spec, c, node_count, per_node, dims.size() == 2, fabric);
  AZ_RETURN_IF_ERROR(t.Finalize());
  return t;
}

int SliceCount(std::string_view spec) {
  size_t star = spec.find('*');
  if (star == std::string_view::npos) return 1;
  std::string_view count = spec.substr(star + 1);
  count = count.substr(0, count.find(':'));
  if (count.empty() || count.size() > 3 || count.find_first_not_of("0123456789") != std::string_view::npos) return 0;
  int n = std::stoi(std::string(count));
  return n >= 1 && n <= kMaxSlices ? n : 0;
}

std::vector<std::string> ListTopologies() {
  std::vector<std::string> out;
  for (const ChipSpec& chip : ChipCatalog()) {
    if (chip.tpu_slices != TpuSlices::k2dPod16) continue;  // v5e, v6e
    for (const char* shape : k2dSlices) out.push_back(chip.name + ":" + shape);
  }
  // v5p: GC's common shapes; v4: XPK's defaults plus the full pod.
  for (const char* shape : {"2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x8x8", "8x8x8", "8x8x16", "8x16x16",
                            "16x16x16", "16x16x24"}) {
    out.push_back(std::string("v5p:") + shape);
  }
  for (const char* shape : {"2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x8x8", "8x8x8", "8x8x12", "8x8x16",
                            "8x16x16", "16x16x16"}) {
    out.push_back(std::string("v4:") + shape);
  }
  for (const ChipSpec& chip : ChipCatalog()) {
    if (chip.family != ChipFamily::kGpu) continue;
    out.push_back(chip.name + ":8");
    // Multi-node clusters for the NVSwitch GPUs that are sold in rail-optimized clusters.
    if (chip.links_per_chip > 0) {
      out.push_back(chip.name + ":2x8");
      out.push_back(chip.name + ":4x8");
    }
  }
  return out;
}

}  // namespace az::hw
