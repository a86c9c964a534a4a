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
};

// Host link bandwidth per direction between a chip and its host's memory (PCIe), what
// weights offloaded to the host or evicted there move at; from
// reference/hardware.md:
//   TPU v4, v5e, v5p  1.6e10 B/s per chip ("PCIe host link ~1.6e10 B/s per TPU", SB, §2.1)
//   TPU v6e           3.2e10 B/s (the same line)
//   H100              64 GB/s: "PCIe Gen5 128 GB/s" bidirectional (§1.2 H100 row) / 2
//   H200, H800, H20   64 GB/s: assumed the H100's PCIe Gen5 x16 host link (same HGX
//                     Hopper baseboard; the reference gives no row)
//   B200              64 GB/s: assumed PCIe Gen5 x16, MLE "Gen5 ~63" GB/s per direction (§4.2)
//   A100, A800        32 GB/s: assumed PCIe Gen4 x16, MLE "Gen4 ~31" GB/s per direction (§4.2)
//   L40S, L40, L20,   32 GB/s: the PCIe Gen4 x16 port of hw/chip.cc
//   RTX 4090
//   other chips       TPU 1.6e10, GPU 32 GB/s (the slowest above), said so in `source`.
Bandwidth HostLinkBandwidth(const ChipSpec& chip, std::string* source = nullptr);

const std::vector<ChipSpec>& ChipCatalog();
StatusOr<const ChipSpec*> FindChip(std::string_view name);

}  // namespace az::hw
