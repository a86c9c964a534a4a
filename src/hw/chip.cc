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

// Host links per direction (chip.h's HostLinkBandwidth lists the derivations).
constexpr char kTpuHostLink[] = "hardware.md §2.1 (SB): PCIe host link ~1.6e10 B/s per TPU";
constexpr char kH100HostLinkAssumed[] =
    "assumed the H100's PCIe Gen5 x16 (hardware.md §1.2), 128 GB/s bidirectional / 2";

// ---- The compute model's fitted tensor-core efficiencies (chip.h FittedCompute).
//
// What the joint fit of the published single- and multi-GPU videos gives
// (fidelity/scaling.h):
//
//   aoizora calibrate --dit ../shared/data/measurements/dit_single_gpu_latency.csv
//       --multi ../shared/data/measurements/dit_multi_gpu_latency.csv
//
// one scale s per GPU on the documented 0.75 / 0.6 / 0.6 x rho, fitted on the
// GPU's single-GPU rows (least squares on log error, fidelity/video_fit.h), and
// one global convolution ratio rho = 0.1607 fitted on the 28 multi-GPU rows,
// where the VAE decoded on one rank stops being negligible; rounded to 4
// significant digits. fidelity/scaling_test.cc refits them from the files and
// checks they agree, so a change to the zoo, the compiler or the model that
// moves the fit shows up as a failing test, to be answered by refitting and
// updating these figures (docs/compute-model.md has the procedure;
// docs/fidelity.md, `aoizora calibrate --report`, every row). Every row is
// predicted end to end (the DiT forwards, the pipeline's other stages, the
// recipe's host transfers: fidelity/video_fit.h).
FittedCompute VideoFit(double matmul, double attention, double convolution, const std::string& rows) {
  return {matmul, attention, convolution,
          "aoizora calibrate --dit dit_single_gpu_latency.csv --multi dit_multi_gpu_latency.csv: " + rows +
              "; convolution x rho = 0.1607 from the multi-GPU videos"};
}

// A chip without measurements that shares a fitted chip's compute silicon.
FittedCompute Inherited(const FittedCompute& twin, const std::string& why) {
  return {twin.matmul, twin.attention, twin.convolution, why};
}

// 2 HunyuanVideo rows (official repo, via xDiT's docs), one token count.
const FittedCompute kH100VideoFit = VideoFit(
    0.4461, 0.3569, 0.05736, "fit to 2 HunyuanVideo videos on H100 (official repo, xDiT docs); one workload at two sizes");
// 2 Wan2.1 14B rows, --offload_model True.
const FittedCompute kA800VideoFit =
    VideoFit(0.7755, 0.6204, 0.09969, "fit to 2 Wan2.1-14B videos on A800 (Wan2.1 README)");

// ---- The collective model's fits to nccl-tests all-reduce sweeps on 8-GPU
// NVSwitch nodes (chip.h FittedFabric), by `aoizora calibrate -t <gpu>:8 -m
// <file>` on the public sweeps in data/measurements (median |error| from 1 MiB
// up: H100 3.7%, H200 0.5%); docs/calibration.md. A fitted base may be
// negative: the intercept is base + steps * step latency.
FittedFabric H100Fabric() {
  FittedFabric f;
  // nccl_allreduce_1x8_h100_sxm.csv (aws-samples nccl-tests, 8xH100 SXM)
  f.source = "fitted to nccl-tests all_reduce_perf on 8xH100 SXM (aws-samples)";
  f.node = {{"ring-ll", Seconds(-2.527e-6), Seconds(0.6e-6), 0.001028},
            {"ring-ll128", Seconds(-17.75e-6), Seconds(1.9e-6), 0.4694},
            {"nvls", Seconds(56.44e-6), Seconds(0), 0.7059}};
  // The multi-node forms, fitted by `aoizora calibrate -t h100:2x8:efa -m
  // nccl_allreduce_2x8_h100_efa.csv` (aws-samples nccl-tests, 2 x p5.48xlarge
  // over EFA; median |error| from 1 MiB up 5.5%). The fabric's per-message
  // latency is the topology's (catalog.cc), so the same figures serve
  // InfiniBand clusters with their smaller network latency. The rail rings
  // and Simple trees keep NCCL's constants: the fit assigns them no range.
  f.multi_node_source = "fitted to nccl-tests all_reduce_perf on 8xH100 SXM (aws-samples) and 2 x 8xH100 over EFA";
  f.multi_node = {{"tree-ll", Seconds(2.559e-6), Seconds(0.6e-6), 0.003435},
                  {"tree-ll128", Seconds(39.96e-6), Seconds(1.25e-6), 0.6658},
                  {"nvls-tree", Seconds(384.3e-6), Seconds(0), 0.7813}};
  return f;
}

FittedFabric H200Fabric() {
  FittedFabric f;
  // nccl_allreduce_1x8_h200.csv (stas00/ml-engineering, NCCL 2.30.7, 8xH200)
  f.source = "fitted to nccl-tests all_reduce_perf on 8xH200 (ml-engineering)";
  f.node = {{"ring-ll", Seconds(0.03667e-6), Seconds(0.6e-6), 0.5411},
            {"ring-ll128", Seconds(5.195e-6), Seconds(1.9e-6), 0.9835},
            {"nvls", Seconds(72.23e-6), Seconds(0), 0.7356}};
  return f;
}

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
  c.architecture = Architecture::kTpu;
  c.mxu = 128;
  c.tpu_slices = TpuSlices::k3dCubes16;
  c.host_link_bw = Bandwidth(1.6e10);
  c.host_link_source = kTpuHostLink;
  // GC-v4, SB: 4 chips per host (2x2x1). DCN: SB's ~6.25e9 B/s per TPU
  // (hardware.md §2.1), x 4 chips = 2.5e10 B/s per host.
  c.tpu_host_block = {2, 2, 1};
  c.dcn_host_bw = Bandwidth(4 * 6.25e9);
  c.dcn_source = "SB: DCN ~6.25e9 B/s per TPU x 4 chips per host (GC-v4)";
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
  c.architecture = Architecture::kTpu;
  c.mxu = 128;
  c.tpu_slices = TpuSlices::k2dPod16;
  c.jax_device_order = JaxDeviceOrder::kTpuTrays;
  c.jax_make_mesh_splits_axes = true;
  c.host_link_bw = Bandwidth(1.6e10);
  c.host_link_source = kTpuHostLink;
  // GC-v5e: "Chips per host 8", "Per-host NIC configuration 2 x 100 Gbps
  // NIC" = 200 Gbps = 2.5e10 B/s per host (SB: 3.125e9 B/s per TPU x 8, the
  // same figure; GC's "6.4 Tbps DCN per pod" / 32 hosts = 200 Gbps too).
  c.tpu_host_block = {4, 2};
  c.dcn_host_bw = Bandwidth(2 * 100e9 / 8);
  c.dcn_source = "GC-v5e: 8 chips per host, 2 x 100 Gbps NIC per host (SB: 3.125e9 B/s per TPU)";
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
  c.architecture = Architecture::kTpu;
  c.mxu = 128;
  c.tpu_slices = TpuSlices::k3dSortedCubes24;
  c.jax_device_order = JaxDeviceOrder::kTpuV5p;
  c.host_link_bw = Bandwidth(1.6e10);
  c.host_link_source = kTpuHostLink;
  // GC-v5p: 4-chip hosts (ct5p-hightpu-4t, "2x2x1: 4 chips, 1 host"),
  // "Data center network (DCN) bandwidth per chip 50 Gbps" x 4 = 200 Gbps =
  // 2.5e10 B/s per host (SB: 6.25e9 B/s per TPU, the same).
  c.tpu_host_block = {2, 2, 1};
  c.dcn_host_bw = Bandwidth(4 * 50e9 / 8);
  c.dcn_source = "GC-v5p: 4 chips per host, DCN 50 Gbps per chip";
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
  c.architecture = Architecture::kTpu;
  c.mxu = 256;
  c.tpu_slices = TpuSlices::k2dPod16;
  c.jax_device_order = JaxDeviceOrder::kTpuTrays;
  c.host_link_bw = Bandwidth(3.2e10);
  c.host_link_source = "hardware.md §2.1 (SB): PCIe host link 3.2e10 B/s per TPU on v6e";
  // GC-v6e: "Chips per host 8"; GC gives no NIC figure, SB ~1.25e10 B/s DCN
  // per TPU on v6e (hardware.md §2.1) x 8 = 1e11 B/s per host.
  c.tpu_host_block = {4, 2};
  c.dcn_host_bw = Bandwidth(8 * 1.25e10);
  c.dcn_source = "GC-v6e: 8 chips per host; SB: DCN ~1.25e10 B/s per TPU";
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
  c.architecture = Architecture::kAmpere;
  c.host_link_bw = Bandwidth(32e9);
  c.host_link_source = "assumed PCIe Gen4 x16 (MLE, hardware.md §4.2: Gen4 ~31 GB/s per direction)";
  c.fitted_compute =
      Inherited(kA800VideoFit, "A800 = A100 silicon with NVLink cut (hardware.md Addendum); a800's fit");
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
  c.architecture = Architecture::kAmpere;
  c.host_link_bw = Bandwidth(32e9);
  c.host_link_source = "assumed PCIe Gen4 x16 (MLE, hardware.md §4.2: Gen4 ~31 GB/s per direction)";
  c.fitted_compute = kA800VideoFit;
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
  c.architecture = Architecture::kHopper;
  c.nvls = true;
  c.h100_silicon = true;
  c.host_link_bw = Bandwidth(64e9);
  c.host_link_source = "hardware.md §1.2: PCIe Gen5 128 GB/s bidirectional / 2";
  c.fitted_fabric = H100Fabric();
  c.fitted_compute = kH100VideoFit;
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
  c.architecture = Architecture::kHopper;
  c.nvls = true;
  c.h100_silicon = true;                // Add: H100 silicon, NVLink cut
  c.host_link_bw = Bandwidth(64e9);
  c.host_link_source = kH100HostLinkAssumed;
  // 2 Wan2.1 14B rows (t2v, i2v) at 1280x720x81, --offload_model True.
  c.fitted_compute = VideoFit(0.4480, 0.3584, 0.05760, "fit to 2 Wan2.1-14B videos on H800 (Wan2.1 README)");
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
  c.architecture = Architecture::kHopper;
  c.nvls = true;
  c.host_link_bw = Bandwidth(64e9);
  c.host_link_source = kH100HostLinkAssumed;
  // 2 Wan2.1 14B rows and 2 HunyuanVideo rows (official repo).
  c.fitted_compute = VideoFit(0.7926, 0.6341, 0.1019,
                              "fit to 2 Wan2.1-14B (Wan2.1 README) and 2 HunyuanVideo videos on H20 (xDiT docs)");
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
  c.architecture = Architecture::kHopper;
  c.nvls = true;
  c.h100_silicon = true;                // glennklockwood.com: H100 silicon, more HBM
  c.host_link_bw = Bandwidth(64e9);
  c.host_link_source = kH100HostLinkAssumed;
  c.fitted_fabric = H200Fabric();
  c.fitted_compute =
      Inherited(kH100VideoFit, "H200 = H100 compute silicon with more HBM (glennklockwood.com); h100's fit");
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
  c.architecture = Architecture::kBlackwell;
  c.nvls = true;
  c.host_link_bw = Bandwidth(64e9);
  c.host_link_source = "assumed PCIe Gen5 x16 (MLE, hardware.md §4.2: Gen5 ~63 GB/s per direction)";
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
  c.architecture = Architecture::kAda;
  c.host_link_bw = Bandwidth(32e9);
  c.host_link_source = "PCIe Gen4 x16, 64 GB/s bidirectional / 2 (hw/chip.cc)";
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
  c.architecture = Architecture::kAda;
  c.host_link_bw = Bandwidth(32e9);
  c.host_link_source = "PCIe Gen4 x16, 64 GB/s bidirectional / 2 (hw/chip.cc)";
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
  c.architecture = Architecture::kAda;
  c.host_link_bw = Bandwidth(32e9);
  c.host_link_source = "PCIe Gen4 x16 (hw/chip.cc)";
  // 2 HunyuanVideo rows (diffusers, via xDiT's docs), one token count; the
  // scale 1.50 caps matmul at 1: the rows run faster than the documented
  // matmul/attention ratio allows at the quoted 119.5 TFLOP/s.
  c.fitted_compute = VideoFit(1.0, 0.9012, 0.1448,
                              "fit to 2 HunyuanVideo videos on L20 (diffusers, xDiT docs); every row is one workload: "
                              "the fit reproduces their mean and checks nothing");
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
  c.architecture = Architecture::kAda;
  c.host_link_bw = Bandwidth(32e9);
  c.host_link_source = "PCIe Gen4 x16 (hw/chip.cc)";
  // 1 Wan2.1 1.3B row at 832x480x81, --offload_model True --t5_cpu.
  c.fitted_compute = VideoFit(0.9695, 0.7756, 0.1247,
                              "fit to 1 Wan2.1-1.3B video on RTX 4090 (Wan2.1 README); one row: the fit reproduces it "
                              "by construction and checks nothing; its T5 ran on the host CPU, whose time the fit "
                              "charges to the GPU: conservative (low) efficiencies");
  chips.push_back(c);

  return chips;
}

}  // namespace

Bandwidth HostLinkBandwidth(const ChipSpec& chip, std::string* source) {
  if (chip.host_link_bw.value() > 0) {
    if (source) *source = chip.host_link_source;
    return chip.host_link_bw;
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
