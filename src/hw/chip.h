// The chip catalog: peak compute, memory and interconnect of every accelerator
// AoiZora plans for. Every figure cites its source (reference/hardware.md tags:
// GC = Google Cloud TPU docs, SB = "How to Scale Your Model", NV = NVIDIA
// datasheets, ...) next to it in chip.cc. A figure no source gives is 0, which
// reads as "not sourced": pricing refuses to use an unsourced figure silently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"
#include "support/units.h"

namespace az::hw {

enum class ChipFamily { kTpu, kGpu };

// The chip's compute generation: what decides which kernels run on it
// (FlashAttention-3 is a Hopper, sm90, kernel).
enum class Architecture { kOther, kTpu, kAmpere, kAda, kHopper, kBlackwell };

// How a TPU generation's slices are shaped and wired (hardware.md §2.2, §2.3;
// catalog.cc validates a requested slice against it).
enum class TpuSlices {
  kNone,            // not a TPU
  k2dPod16,         // 2D torus slices of a 16x16 pod; only a full side of 16 wraps (v5e, v6e)
  k3dCubes16,       // 3D, sub-cube slices or AxBxC in multiples of 4, each <= 16 (v4)
  k3dSortedCubes24  // 3D as above with A <= B <= C, at most 16x16x24 (v5p)
};

// The device order JAX's mesh_utils.create_device_mesh picks for the chip's
// device kind (place/default_placement.h, §3.2): the generic physical order,
// or one of its hand-written tray orders.
enum class JaxDeviceOrder {
  kGeneric,
  kTpuTrays,  // "TPU v5 lite" / "TPU v6 lite": the 2x2, 2x4 and 4x4 tray ring orders
  kTpuV5p     // "TPU v5p": its 2x2x2 order
};

// One NCCL algorithm's fitted cost on a node of the chip, the three numbers of
// net::AlgorithmParams (net/calibration.h): latency base, per-step latency,
// bandwidth efficiency.
struct FittedCollective {
  std::string algorithm;  // "ring-ll", "nvls", "tree-ll128", ...
  Seconds base_latency;
  Seconds step_latency;
  double efficiency = 1;
};

// The collective model's fit to nccl-tests sweeps on the chip's GPU nodes
// (`aoizora calibrate -t <chip>:8 -m FILE`, docs/calibration.md); net reads it
// into DefaultCalibration. Empty: NCCL's constants.
struct FittedFabric {
  std::string source;                    // what the single-node fit was made on
  std::vector<FittedCollective> node;    // one NVSwitch node
  std::string multi_node_source;         // replaces `source` on multi-node systems with a fit
  std::vector<FittedCollective> multi_node;  // added on multi-node systems
};

// The compute model's tensor-core efficiencies fitted to published videos of
// the chip (`aoizora calibrate --dit ... --multi ...`, docs/fidelity.md;
// fidelity/scaling_test.cc refits them and checks they agree). price reads
// them into DefaultComputeCalibration. matmul 0: not fitted, the documented
// family defaults.
struct FittedCompute {
  double matmul = 0, attention = 0, convolution = 0;
  std::string source;  // the rows, or whose fit an unmeasured twin inherits
};

struct ChipSpec {
  std::string name;  // catalog key: "v5e", "h100", ...
  std::string long_name;
  ChipFamily family = ChipFamily::kGpu;
  // Dense peak compute per dtype (0 = not sourced).
  FlopRate bf16, fp16, fp8, fp32;
  Bytes hbm;          // usable device memory
  Bandwidth hbm_bw;   // memory bandwidth
  // Interconnect, per direction of one link (TPU ICI, NVLink) or of the chip's
  // one port (PCIe, NIC): the line rate the topology's links carry.
  Bandwidth link_bw;
  int links_per_chip = 0;  // ICI links / NVLinks
  int sm_count = 0;        // GPUs: streaming multiprocessors (0 = not sourced)
  // GPUs: whether the driver allows GPU-to-GPU (peer-to-peer) transfers. When it
  // does not (RTX 4090), GPU-GPU traffic stages through host memory: the
  // topology routes it up to the CPU socket and back (Topology::peer_to_peer).
  bool peer_to_peer = true;
  std::string source;      // tags of the sources of the row

  // Traits: what the code downstream would otherwise recognise by name, so a
  // new chip is one catalog entry.
  Architecture architecture = Architecture::kOther;
  // The MXU systolic array's side on TPUs (0 on GPUs): 128x128 on v4, v5e and
  // v5p, 256x256 on v6e (the scaling book's TPU chapter).
  int mxu = 0;
  TpuSlices tpu_slices = TpuSlices::kNone;
  JaxDeviceOrder jax_device_order = JaxDeviceOrder::kGeneric;
  // jax.make_mesh turns on allow_split_physical_axes for this device kind
  // (device kinds "TPU v5 lite" / "TPU v5e" only, §3.1).
  bool jax_make_mesh_splits_axes = false;
  // NVLink SHARP in the node's NVSwitches (NVSwitch 3, Hopper, and later;
  // hardware.md §4.2): the NVLS algorithms exist.
  bool nvls = false;
  // The H100 SXM5's compute silicon (the H800: NVLink cut; the H200: more
  // HBM): kernel benchmarks measured on the H100 carry to it. Not the H20, a
  // cut-down Hopper part (148 vs 989 TFLOP/s dense bf16).
  bool h100_silicon = false;
  // The host link per direction (0: not in the table, HostLinkBandwidth's
  // fallback) and where the figure comes from.
  Bandwidth host_link_bw;
  std::string host_link_source;
  // TPUs, multi-slice (catalog.cc "CHIP:SHAPE*N"): the chips one host holds,
  // as a block of the torus in chip coordinates (x, y[, z]; v5e/v6e {4, 2}: 8
  // chips, the 4x2 host; v4/v5p {2, 2, 1}: 4 chips), and the host's NIC
  // bandwidth per direction to the data-center network (DCN), which all of
  // its chips share. Empty / 0 on GPUs.
  std::vector<int> tpu_host_block;
  Bandwidth dcn_host_bw;
  std::string dcn_source;
  FittedFabric fitted_fabric;
  FittedCompute fitted_compute;
};

// Host link bandwidth per direction between a chip and its host's memory (PCIe), what
// weights offloaded to the host or evicted there move at: the catalog entry's
// host_link_bw (chip.cc), from reference/hardware.md:
//   TPU v4, v5e, v5p  1.6e10 B/s per chip ("PCIe host link ~1.6e10 B/s per TPU", SB, §2.1)
//   TPU v6e           3.2e10 B/s (the same line)
//   H100              64 GB/s: "PCIe Gen5 128 GB/s" bidirectional (§1.2 H100 row) / 2
//   H200, H800, H20   64 GB/s: assumed the H100's PCIe Gen5 x16 host link (same HGX
//                     Hopper baseboard; the reference gives no row)
//   B200              64 GB/s: assumed PCIe Gen5 x16, MLE "Gen5 ~63" GB/s per direction (§4.2)
//   A100, A800        32 GB/s: assumed PCIe Gen4 x16, MLE "Gen4 ~31" GB/s per direction (§4.2)
//   L40S, L40, L20,   32 GB/s: the PCIe Gen4 x16 port of hw/chip.cc
//   RTX 4090
//   other chips       TPU 1.6e10, GPU 32 GB/s (the slowest above), said so in `source`
//   (host_link_bw 0).
Bandwidth HostLinkBandwidth(const ChipSpec& chip, std::string* source = nullptr);

const std::vector<ChipSpec>& ChipCatalog();
StatusOr<const ChipSpec*> FindChip(std::string_view name);

}  // namespace az::hw
