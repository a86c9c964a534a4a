// The chip catalog. Every figure is taken from reference/hardware.md (§1, §2.1,
// §4.1-4.3 and its Addendum) and carries that page's source tag:
//   GC  Google Cloud TPU docs          SB  "How to Scale Your Model"
//   NV  NVIDIA datasheets/whitepapers  MLE stas00/ml-engineering
//   SimAI aliyun/SimAI calbusbw.h      Add the hardware.md Addendum (its own sources named)
// A figure the page marks "not sourced" is 0 here, and the comment says so; no
// figure is filled in from memory. Units: GB = 1e9 bytes, GiB = 2^30 bytes,
// exactly as the source writes them.
//
// link_bw is the per-direction bandwidth of ONE link:
//  * TPU: SB's per-link one-way ICI figure (§2.1), which sits ~10% under the
//    GC line rate because it is what collectives achieve.
//  * NVSwitch GPUs: the GPU's whole NVLink bandwidth per direction, because the
//    topology models the GPU's links to its NVSwitch fabric as one link.
//  * PCIe GPUs: PCIe Gen4 x16 per direction: the L40S datasheet's 64 GB/s
//    bidirectional = 32 GB/s each way (MLE: "Gen4 ~31").
#include "hw/chip.h"

#include <string>

namespace az::hw {
namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

Bytes GB(int64_t n) { return Bytes(n * 1'000'000'000); }

// PCIe Gen4 x16, one direction: L40S datasheet 64 GB/s bidirectional / 2 (NV);
// MLE gives "Gen4 ~31" GB/s per direction.
constexpr double kPcieGen4x16Bps = 32 * kGiga;

std::vector<ChipSpec> BuildCatalog() {
  std::vector<ChipSpec> chips;
  ChipSpec c;

  // --- TPUs (hardware.md §1.1, §2.1). fp16/fp8/fp32 peaks: not sourced (0).
  c = ChipSpec();
  c.name = "v4";
  c.long_name = "TPU v4";
  c.family = ChipFamily::kTpu;
  c.bf16 = FlopRate(275 * kTera);       // GC-v4; SB 2.75e14
  c.hbm = GiB(32);                      // GC-v4: 32 GiB HBM2
  c.hbm_bw = Bandwidth(1200 * kGiga);   // GC-v4: 1200 GB/s; SB 1.2e12
  c.link_bw = Bandwidth(4.5e10);        // SB per-link one-way
  c.links_per_chip = 6;                 // GC-v4, SB: 3D torus, 6 links
  c.source = "GC-v4, SB";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "v5e";
  c.long_name = "TPU v5e";
  c.family = ChipFamily::kTpu;
  c.bf16 = FlopRate(197 * kTera);       // GC-v5e; SB 1.97e14
  c.hbm = GB(16);                       // GC-v5e: 16 GB HBM2
  c.hbm_bw = Bandwidth(819 * kGiga);    // GC-v5e: 819 GB/s (SB 8.2e11)
  c.link_bw = Bandwidth(4.5e10);        // SB per-link one-way (GC line rate 400/4 ports/2 = 50 GB/s)
  c.links_per_chip = 4;                 // GC-v5e: 2D torus, 4 ports
  c.source = "GC-v5e, SB";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "v5p";
  c.long_name = "TPU v5p";
  c.family = ChipFamily::kTpu;
  c.bf16 = FlopRate(459 * kTera);       // GC-v5p; SB 4.59e14
  c.hbm = GiB(95);                      // GC-v5p: 95 GiB usable of 96 GiB physical
  c.hbm_bw = Bandwidth(2765 * kGiga);   // GC-v5p: 2765 GB/s (SB 2.8e12)
  c.link_bw = Bandwidth(9e10);          // SB per-link one-way (GC line rate 1200/6/2 = 100 GB/s)
  c.links_per_chip = 6;                 // GC-v5p: 3D torus, 6 links
  c.source = "GC-v5p, SB";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "v6e";
  c.long_name = "TPU v6e (Trillium)";
  c.family = ChipFamily::kTpu;
  c.bf16 = FlopRate(918 * kTera);       // GC-v6e; SB 9.20e14
  c.hbm = GB(32);                       // GC-v6e: 32 GB
  c.hbm_bw = Bandwidth(1638 * kGiga);   // GC-v6e: 1638 GB/s (SB 1.6e12)
  c.link_bw = Bandwidth(9e10);          // SB per-link one-way (GC line rate 800/4/2 = 100 GB/s)
  c.links_per_chip = 4;                 // GC-v6e: 2D torus, 4 ports
  c.source = "GC-v6e, SB";
  chips.push_back(c);

  // --- NVSwitch GPUs (hardware.md §1.2, §4.1, Addendum). fp16/fp8/fp32 peaks
  // are not in the reference (0) except where a row names one. SM counts:
  // glennklockwood.com's A100/H100 pages (108 / 132; H200 and H800 share H100's
  // silicon, A800 A100's), H20 from the Addendum; B200 and L40S not sourced (0).
  c = ChipSpec();
  c.name = "a100";
  c.long_name = "NVIDIA A100 SXM4 80GB";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(312 * kTera);       // NV: 312 dense (624 sparse); SB 3.1e14
  c.hbm = GB(80);                       // NV: 80 GB HBM2e (80G variant)
  c.hbm_bw = Bandwidth(2039 * kGiga);   // NV: 2.039 TB/s (80G)
  c.link_bw = Bandwidth(300 * kGiga);   // NV, SB: NVLink3 600 GB/s bidi = 300 per direction
  c.links_per_chip = 12;                // NV, MLE: 12 NVLinks
  c.sm_count = 108;                     // glennklockwood.com A100 page, haroldbenoit.com notes: 108 SMs
  c.source = "NV, MLE, SB";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "a800";
  c.long_name = "NVIDIA A800 SXM4 80GB";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(312 * kTera);       // Add: same as A100 (glennklockwood A100 page)
  c.hbm = GB(80);                       // Add: 80 GB HBM2e
  c.hbm_bw = Bandwidth(2039 * kGiga);   // Add: 2.039 TB/s (A100 80G)
  c.link_bw = Bandwidth(200 * kGiga);   // Add: NVLink cut to 400 GB/s bidi = 200 per direction
  c.links_per_chip = 8;                 // SimAI calbusbw.h: 8 links
  c.sm_count = 108;                     // A100 silicon (Add): 108 SMs
  c.source = "Add (A100 figures), SimAI";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "h100";
  c.long_name = "NVIDIA H100 SXM5 80GB";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(989 * kTera);       // NV: 989 dense (1979 sparse); SB 9.9e14
  c.hbm = GB(80);                       // NV: 80 GB HBM3
  c.hbm_bw = Bandwidth(3350 * kGiga);   // NV: 3.35 TB/s
  c.link_bw = Bandwidth(450 * kGiga);   // NV, SB: NVLink4 900 GB/s bidi = 450 per direction
  c.links_per_chip = 18;                // NV, MLE: 18 NVLinks
  c.sm_count = 132;                     // glennklockwood.com H100 page: 132 SMs (SXM5)
  c.source = "NV, MLE, SB";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "h800";
  c.long_name = "NVIDIA H800 SXM 80GB";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(989 * kTera);       // Add: H100 silicon (philisun.com); SB uses ~990
  c.hbm = GB(80);                       // Add: 80 GB HBM3 (H100-class)
  c.hbm_bw = Bandwidth(3350 * kGiga);   // Add: 3.35 TB/s (H100-class)
  // Add: NVLink cut to 400 GB/s bidi = 200 per direction, agreeing with nccl
  // #1374 ("200 GB/s unidirectional"); SB's "300GB/s" disagrees (hardware.md §6).
  c.link_bw = Bandwidth(200 * kGiga);
  c.links_per_chip = 8;                 // SimAI, NT (nccl #1374): 8 links
  c.sm_count = 132;                     // H100 silicon (Add): 132 SMs
  c.source = "Add (philisun.com), SimAI, NT";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "h20";
  c.long_name = "NVIDIA H20 96GB";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(148 * kTera);       // Add: 148 TFLOP/s FP16 dense (willitrunai.com), used for bf16
  c.fp16 = FlopRate(148 * kTera);       // Add: the same row
  c.hbm = GB(96);                       // Add: 96 GB HBM3
  c.hbm_bw = Bandwidth(4000 * kGiga);   // Add: 4.0 TB/s
  c.link_bw = Bandwidth(450 * kGiga);   // Add: NVLink 4, 900 GB/s bidi = 450 per direction
  c.links_per_chip = 18;                // SimAI models H20 with H100's 18 NVLinks
  c.sm_count = 78;                      // Add: Geekbench report (zangshuxian.com)
  c.source = "Add (willitrunai.com, zangshuxian.com), SimAI";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "h200";
  c.long_name = "NVIDIA H200 SXM 141GB";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(989 * kTera);       // SB 9.9e14
  c.hbm = GB(141);                      // MLE, MLCommons: 141 GB HBM3e
  c.hbm_bw = Bandwidth(4800 * kGiga);   // MLE: 4.8 TB/s
  c.link_bw = Bandwidth(450 * kGiga);   // NVLink4 900 GB/s bidi = 450 per direction
  c.links_per_chip = 18;                // MLE: 18 NVLinks
  c.sm_count = 132;                     // glennklockwood.com: "H200 GPUs are the same as H100 GPUs": 132 SMs
  c.source = "SB, MLE, NV (MLCommons)";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "b200";
  c.long_name = "NVIDIA B200 (HGX) 180GB";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(2250 * kTera);      // NV: 2250 dense in HGX at 1000 W (2500 in GB200); SB 2.3e15
  c.hbm = GB(180);                      // NV: HGX docs, MLCommons "B200-SXM-180GB" (192 GB physical)
  c.hbm_bw = Bandwidth(8000 * kGiga);   // NV: 8 TB/s
  c.link_bw = Bandwidth(900 * kGiga);   // NV, SB: NVLink5 1.8 TB/s bidi = 900 per direction
  c.links_per_chip = 18;                // NV, MLE: 18 NVLinks
  c.source = "NV, MLE, SB";
  chips.push_back(c);

  // --- PCIe GPUs: no NVLink (links_per_chip 0); link_bw is the PCIe port.
  c = ChipSpec();
  c.name = "l40s";
  c.long_name = "NVIDIA L40S 48GB (PCIe)";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(362 * kTera);       // NV datasheet: 362 dense (733 sparse)
  c.hbm = GB(48);                       // NV datasheet: 48 GB GDDR6
  c.hbm_bw = Bandwidth(864 * kGiga);    // NV datasheet: 864 GB/s
  c.link_bw = Bandwidth(kPcieGen4x16Bps);  // NV datasheet: PCIe Gen4 x16, 64 GB/s bidi
  c.source = "NV (L40S datasheet), MLE";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "l40";
  c.long_name = "NVIDIA L40 48GB (PCIe)";
  c.family = ChipFamily::kGpu;
  c.bf16 = FlopRate(181.05 * kTera);    // NV (L40 datasheet): 181.05 dense
  c.hbm = GB(48);                       // NV: 48 GB GDDR6
  c.hbm_bw = Bandwidth(864 * kGiga);    // NV: 864 GB/s
  c.link_bw = Bandwidth(kPcieGen4x16Bps);  // NV: PCIe Gen4 x16, 64 GB/s bidi, no NVLink
  c.source = "NV (L40/L40S datasheet)";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "l20";
  c.long_name = "NVIDIA L20 48GB (PCIe)";
  c.family = ChipFamily::kGpu;
  // Add: xDiT quotes FP16 119.5 TFLOP/s; "treat bf16 as the same until measured".
  c.bf16 = FlopRate(119.5 * kTera);
  c.fp16 = FlopRate(119.5 * kTera);     // Misc (xDiT docs)
  c.hbm = GB(48);                       // Add, Misc (xDiT): 48 GB GDDR6
  // The Addendum's spec-sheet figure, verified against two spec databases
  // (topcpu.net "A40 PCIe vs L20", technical.city "L20"): 384-bit GDDR6 at
  // 2250 MHz (18 Gbps effective) = 864.0 GB/s; 92 SMs (11,776 CUDA cores / 128
  // per Ada SM), AD102.
  c.hbm_bw = Bandwidth(864 * kGiga);
  c.sm_count = 92;
  c.link_bw = Bandwidth(kPcieGen4x16Bps);  // Add: PCIe Gen4 (x16 assumed), no NVLink
  c.source = "Add (xDiT docs), spec databases (topcpu.net, technical.city)";
  chips.push_back(c);

  c = ChipSpec();
  c.name = "rtx4090";
  c.long_name = "NVIDIA GeForce RTX 4090 24GB (PCIe)";
  c.family = ChipFamily::kGpu;
  // The Addendum's spec-sheet figures, verified against spec databases
  // (waredb.com "NVIDIA GeForce RTX 4090": BF16 tensor 165.15 TFLOP/s dense
  // with FP32 accumulate, TF32 82.58, 1008 GB/s; thefpsreview.com: 1008 GB/s,
  // 384-bit GDDR6X at 21 Gbps; 16,384 CUDA cores = 128 SMs of 128), the
  // figures of NVIDIA's Ada whitepaper (165.2 / 82.6 TFLOP/s).
  c.bf16 = FlopRate(165.2 * kTera);
  c.hbm_bw = Bandwidth(1008 * kGiga);
  c.sm_count = 128;
  c.hbm = GB(24);                       // Add: 24 GB GDDR6X (nnScaler, FastVideo docs)
  c.link_bw = Bandwidth(kPcieGen4x16Bps);  // Add: PCIe Gen4 x16, no NVLink
  c.peer_to_peer = false;               // MLE network/debug, tinygrad #17: P2P disabled by the driver
  c.source = "Add (nnScaler, FastVideo docs), MLE, spec databases (waredb.com, thefpsreview.com)";
  chips.push_back(c);

  return chips;
}

}  // namespace

Bandwidth HostLinkBandwidth(const ChipSpec& chip, std::string* source) {
  struct Row {
    const char* chip;
    double bytes_per_s;
    const char* source;
  };
  // experts.h lists the derivation of every row.
  static const Row kRows[] = {
      {"v4", 1.6e10, "hardware.md §2.1 (SB): PCIe host link ~1.6e10 B/s per TPU"},
      {"v5e", 1.6e10, "hardware.md §2.1 (SB): PCIe host link ~1.6e10 B/s per TPU"},
      {"v5p", 1.6e10, "hardware.md §2.1 (SB): PCIe host link ~1.6e10 B/s per TPU"},
      {"v6e", 3.2e10, "hardware.md §2.1 (SB): PCIe host link 3.2e10 B/s per TPU on v6e"},
      {"h100", 64e9, "hardware.md §1.2: PCIe Gen5 128 GB/s bidirectional / 2"},
      {"h200", 64e9, "assumed the H100's PCIe Gen5 x16 (hardware.md §1.2), 128 GB/s bidirectional / 2"},
      {"h800", 64e9, "assumed the H100's PCIe Gen5 x16 (hardware.md §1.2), 128 GB/s bidirectional / 2"},
      {"h20", 64e9, "assumed the H100's PCIe Gen5 x16 (hardware.md §1.2), 128 GB/s bidirectional / 2"},
      {"b200", 64e9, "assumed PCIe Gen5 x16 (MLE, hardware.md §4.2: Gen5 ~63 GB/s per direction)"},
      {"a100", 32e9, "assumed PCIe Gen4 x16 (MLE, hardware.md §4.2: Gen4 ~31 GB/s per direction)"},
      {"a800", 32e9, "assumed PCIe Gen4 x16 (MLE, hardware.md §4.2: Gen4 ~31 GB/s per direction)"},
      {"l40s", 32e9, "PCIe Gen4 x16, 64 GB/s bidirectional / 2 (hw/chip.cc)"},
      {"l40", 32e9, "PCIe Gen4 x16, 64 GB/s bidirectional / 2 (hw/chip.cc)"},
      {"l20", 32e9, "PCIe Gen4 x16 (hw/chip.cc)"},
      {"rtx4090", 32e9, "PCIe Gen4 x16 (hw/chip.cc)"},
  };
  for (const Row& row : kRows) {
    if (chip.name != row.chip) continue;
    if (source) *source = row.source;
    return Bandwidth(row.bytes_per_s);
  }
  if (chip.family == ChipFamily::kTpu) {
    if (source) *source = "chip '" + chip.name + "' not in the table: assumed the TPU figure 1.6e10 B/s (SB)";
    return Bandwidth(1.6e10);
  }
  if (source) *source = "chip '" + chip.name + "' not in the table: assumed PCIe Gen4 x16, 32 GB/s per direction";
  return Bandwidth(32e9);
}

const std::vector<ChipSpec>& ChipCatalog() {
  static const std::vector<ChipSpec> catalog = BuildCatalog();
  return catalog;
}

StatusOr<const ChipSpec*> FindChip(std::string_view name) {
  std::string known;
  for (const ChipSpec& chip : ChipCatalog()) {
    if (chip.name == name) return &chip;
    known += (known.empty() ? "" : ", ") + chip.name;
  }
  return NotFound("unknown chip '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace az::hw
