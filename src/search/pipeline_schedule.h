// The patch pipeline's schedule: how many slots a denoising run of PipeFusion
// takes, from the priced slot (one patch through one stage, its send to the
// next stage included). The one place the pipeline is composed; pipefusion.h
// builds the programs it composes, evaluate.h prices them through it.
//
// The model (xDiT's xfuser/model_executor/pipelines/*: _sync_pipeline,
// _async_pipeline; PipeFusion, arXiv 2405.14430 §3):
//
//   P stages, M patches, F forwards per step (two-pass CFG: 2), S steps of
//   which the first W run synchronously (xDiT's runtime_config.warmup_steps,
//   default 1), slot = one patch through one stage plus its send (the priced
//   program: blocks on one patch, K/V over the full sequence, and the
//   collective-permute to the next stage).
//
//   Warm-up step (synchronous, no patches): the whole latent through stage 0,
//   sent, through stage 1, ... one stage at a time. The whole latent through
//   a stage is its M patches through it: the same FLOPs (a patch's queries
//   already attend over the full K/V) and the same bytes sent, so a warm-up
//   forward costs P x M slots and no stage overlaps another.
//
//   Pipelined steps: patch j (counted over steps, forwards and patches, in
//   that order) enters stage 0 once stage 0 has finished patch j - 1 and once
//   its input exists: the same patch of the previous step has left the last
//   stage (after every forward of that step), P slots after it entered. With
//   T(j) its entry slot, f its forward within the step:
//     T(j) = max(T(j - 1) + 1, T(j - (f + 1) M) + P)
//   and the pipelined steps end at T(last) + P. The pipeline is not drained
//   between steps (xDiT's _async_pipeline queues the next step's receives), so
//   with M >= P (xDiT's default M = P) the pipelined steps take
//     F x (S - W) x M + P - 1 slots
//   and with M < P every step waits for the ring: ~F x (S - W) x P slots.
//
//   Step latency = (W x F x P x M + pipelined slots) x slot / S.
#pragma once

#include <cstdint>

namespace az::search {

// xDiT's runtime_config.warmup_steps default (xfuser/config/config.py).
inline constexpr int64_t kXditWarmupSteps = 1;

// The pipeline a candidate's program is one slot of; stages 1: no pipeline.
struct PipelineShape {
  int64_t stages = 1;        // P
  int64_t patches = 1;       // M
  int64_t warmup_steps = 0;  // W, run synchronously (capped at the steps)
  bool operator==(const PipelineShape&) const = default;
};

// Slots of a whole denoising run: warm-up and pipelined steps (above). steps
// below 1 count as 1.
int64_t PipelineSlots(const PipelineShape& pipeline, int64_t forwards, int64_t steps);

// Seconds per step: PipelineSlots x slot_s / steps.
double PipelineStepLatency(const PipelineShape& pipeline, int64_t forwards, int64_t steps, double slot_s);

}  // namespace az::search
