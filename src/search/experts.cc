#include "search/experts.h"

#include <algorithm>

namespace az::search {

std::string_view ExpertModeName(ExpertMode mode) {
  switch (mode) {
    case ExpertMode::kSingle: return "single";
    case ExpertMode::kHoldBoth: return "hold-both";
    case ExpertMode::kSwap: return "swap";
  }
  return "single";
}

Bandwidth HostLinkBandwidth(const hw::ChipSpec& chip, std::string* source) {
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
  if (chip.family == hw::ChipFamily::kTpu) {
    if (source) *source = "chip '" + chip.name + "' not in the table: assumed the TPU figure 1.6e10 B/s (SB)";
    return Bandwidth(1.6e10);
  }
  if (source) *source = "chip '" + chip.name + "' not in the table: assumed PCIe Gen4 x16, 32 GB/s per direction";
  return Bandwidth(32e9);
}

ExpertChoice ChooseExperts(const zoo::ModelConfig& config, double peak, double expert_bytes,
                           const hw::ChipSpec& chip) {
  ExpertChoice c;
  const double hbm = static_cast<double>(chip.hbm.value());
  c.experts = std::max<int64_t>(1, config.experts);
  c.expert_bytes = expert_bytes;
  c.resident_peak = peak;
  c.fits = peak <= hbm;
  if (c.experts == 1) return c;
  std::string source;
  c.host_bandwidth = HostLinkBandwidth(chip, &source);
  const double others = static_cast<double>(c.experts - 1) * expert_bytes;
  const std::string count = std::to_string(c.experts);
  const std::string all = c.experts == 2 ? "both experts" : "all " + count + " experts";
  if (peak + others <= hbm) {
    c.mode = ExpertMode::kHoldBoth;
    c.resident_peak = peak + others;
    c.reason = all + " fit in HBM (" + FormatBytes(Bytes(static_cast<int64_t>(c.resident_peak))) +
               " of " + FormatBytes(chip.hbm) + " per device): nothing moves between steps";
    return c;
  }
  c.mode = ExpertMode::kSwap;
  c.swap_per_video_s = static_cast<double>(c.experts) * expert_bytes / c.host_bandwidth.value();
  c.swap_per_step_s = config.steps > 0 ? c.swap_per_video_s / static_cast<double>(config.steps) : 0;
  c.reason = "holding " + all + " needs " + FormatBytes(Bytes(static_cast<int64_t>(peak + others))) +
             " per device, over " + FormatBytes(chip.hbm) + ": one resident, " + count + " loads of " +
             FormatBytes(Bytes(static_cast<int64_t>(expert_bytes))) + " per video over the host link at " +
             FormatBandwidth(c.host_bandwidth) + " (" + source + ")";
  if (!c.fits) {
    c.reason = "even one expert resident needs " + FormatBytes(Bytes(static_cast<int64_t>(peak))) +
               " per device, over " + FormatBytes(chip.hbm);
  }
  return c;
}

}  // namespace az::search
