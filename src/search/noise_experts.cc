#include "search/noise_experts.h"

#include <algorithm>

namespace az::search {

std::string_view NoiseExpertModeName(NoiseExpertMode mode) {
  switch (mode) {
    case NoiseExpertMode::kSingle: return "single";
    case NoiseExpertMode::kHoldBoth: return "hold-both";
    case NoiseExpertMode::kSwap: return "swap";
  }
  return "single";
}

NoiseExperts ChooseNoiseExperts(const workload::Workload& config, double peak, double expert_bytes,
                           const hw::ChipSpec& chip) {
  return ChooseNoiseExperts(config.noise_experts, config.steps, peak, expert_bytes, chip);
}

NoiseExperts ChooseNoiseExperts(int64_t experts, int64_t steps, double peak, double expert_bytes,
                           const hw::ChipSpec& chip) {
  NoiseExperts c;
  const double hbm = static_cast<double>(chip.hbm.value());
  c.experts = std::max<int64_t>(1, experts);
  c.expert_bytes = expert_bytes;
  c.resident_peak = peak;
  c.fits = peak <= hbm;
  if (c.experts == 1) return c;
  std::string source;
  c.host_bandwidth = hw::HostLinkBandwidth(chip, &source);
  const double others = static_cast<double>(c.experts - 1) * expert_bytes;
  const std::string count = std::to_string(c.experts);
  const std::string all = c.experts == 2 ? "both experts" : "all " + count + " experts";
  if (peak + others <= hbm) {
    c.mode = NoiseExpertMode::kHoldBoth;
    c.resident_peak = peak + others;
    c.reason = all + " fit in HBM (" + FormatBytes(Bytes(static_cast<int64_t>(c.resident_peak))) +
               " of " + FormatBytes(chip.hbm) + " per device): nothing moves between steps";
    return c;
  }
  c.mode = NoiseExpertMode::kSwap;
  c.swap_per_video_s = static_cast<double>(c.experts) * expert_bytes / c.host_bandwidth.value();
  c.swap_per_step_s = steps > 0 ? c.swap_per_video_s / static_cast<double>(steps) : 0;
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
