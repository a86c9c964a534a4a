// Noise experts (denoising experts: Wan 2.2 A14B's high- and low-noise
// models) in a plan: hold them all in HBM, or swap them in from host memory.
// Named "noise experts" in the code so that "expert" is only the xDiT
// baseline (sources.h); plan.json and the zoo's ModelConfig keep "experts".
//
// A model with E > 1 experts (workload.h: Workload::noise_experts; Wan 2.2 A14B: a
// high-noise and a low-noise 14B expert) runs exactly one expert per step, all
// of identical structure: a step costs one expert's forwards, but the weights
// of all E exist. The planner compiles one expert; per device the compiled
// forward needs `peak` bytes, `expert` of them the expert's parameter shard.
// Every expert is sharded the same way, so each has the same shard size.
//
//   hold-both  all E experts resident, each sharded as the plan shards the
//              compiled one: resident peak = peak + (E - 1) x expert. Nothing
//              moves. (Named for E = 2, the only case in the zoo.)
//   swap       one expert resident: resident peak = peak. The host keeps every
//              expert (weights are read-only, so dropping the resident shard
//              is free); at a switch the next expert's shard is loaded over the
//              chip's host link, every device its own shard in parallel. In
//              steady serving each video starts again with the first expert,
//              so a video loads E shards (at the switch, then the first expert
//              again before the next video):
//                swap_per_video = E x expert / host_bandwidth,
//              not overlapped with compute (the HBM that would hold the
//              prefetch is what swapping saves), amortized over the steps:
//                swap_per_step = swap_per_video / steps.
//              This is what the official code does with --offload_model
//              (wan/text2video.py `_prepare_model_for_timestep`: the inactive
//              expert .to('cpu'), the needed one .to(device)).
//
// Choice: hold-both when it fits the HBM (it costs nothing), else swap when one
// expert fits, else the configuration does not fit. With one expert the mode
// is kSingle and nothing changes.
//
// The host link's bandwidth is hw::HostLinkBandwidth (hw/chip.h).
#pragma once

#include <cstdint>
#include <string>

#include "workload/workload.h"
#include "hw/chip.h"
#include "support/units.h"

namespace az::search {

enum class NoiseExpertMode { kSingle, kHoldBoth, kSwap };
std::string_view NoiseExpertModeName(NoiseExpertMode mode);  // "single", "hold-both", "swap"

// The chip's host link, one direction, and where the figure comes from.

struct NoiseExperts {
  NoiseExpertMode mode = NoiseExpertMode::kSingle;
  bool fits = true;
  int64_t experts = 1;
  double expert_bytes = 0;    // one expert's parameters per device
  double resident_peak = 0;   // per device, what the HBM must hold
  double swap_per_video_s = 0;
  double swap_per_step_s = 0;  // added to the step latency
  Bandwidth host_bandwidth;
  std::string reason;          // one sentence: which mode and why
};

// `peak`: the compiled forward's peak per device (one expert resident);
// `expert_bytes`: its parameter bytes per device.
NoiseExperts ChooseNoiseExperts(const workload::Workload& config, double peak, double expert_bytes, const hw::ChipSpec& chip);
// The same for `experts` experts over `steps` denoising steps.
NoiseExperts ChooseNoiseExperts(int64_t experts, int64_t steps, double peak, double expert_bytes, const hw::ChipSpec& chip);

}  // namespace az::search
