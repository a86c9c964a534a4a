// The non-DiT stages of a video pipeline, planned and priced: text and image
// encoders and the VAE decoder (zoo/stages.h), each with its own sharding and
// placement on the chips the DiT runs on. A user waits for the whole video:
//   video latency = sum over stages of StagePlan::latency
//                     + steps x the denoising step (planner.h).
// This file prices the first term; docs/stages.md is the full contract.
//
// For every stage config.Stages() returns, in that order (none for an
// imported program or a model whose stages are not built):
//   candidates  `replicas` copies ("dp=R") of one group program on G devices:
//               single device, fsdp=G (weights stored sharded, computation
//               replicated), tp=G (Megatron over the column linears),
//               spatial=G (a VAE split in bands of rows or columns, halo
//               exchanges; compile/spmd/halo.h), tiles=G (a tiled decoder's
//               runs spread over the chips, stage_tiles.h); G over the
//               divisors of the chip count, R over those of the invocations
//               with R x G <= chips.
//   pricing     each group program evaluated (evaluate.h) under replica 0's
//               chips of the default placement of the (dp, strategy) mesh;
//               latency = rounds x invocation + offload + transfers (encoder
//               states broadcast to the DiT's chips, the latent all-gathered
//               for the decoder).
//   memory      fits beside resident_bytes_per_chip (the DiT's weights); when
//               nothing fits, offloaded (weights streamed from the host each
//               round), and as a last resort with the DiT's weights evicted
//               (their reload priced).
//   choice      the fastest that fits, ties within 0.1% to fewer chips, then
//               the lower name; a candidate that fails is listed with its
//               reason.
// Deterministic: candidates in a fixed order, per-candidate slots, ties by
// name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "workload/workload.h"
#include "hw/topology.h"
#include "net/collective.h"
#include "price/calibration.h"
#include "support/units.h"

namespace az::search {

struct StagePlanOptions {
  price::PriceCalibration calibration;
  int64_t resident_bytes_per_chip = 0;  // the DiT's peak (or weights), held during the stage
  // The DiT's weights per chip, part of the resident bytes; 0: never evicted.
  int64_t dit_parameter_bytes_per_chip = 0;
  int threads = 2;
  uint64_t seed = 1;
  // One line per stage (the CLI prints them on stderr).
  std::function<void(const std::string&)> progress;
};

// One candidate as priced (for reports and tests).
struct StageCandidateCost {
  std::string sharding;        // "fsdp=4,dp=2"
  int64_t chips = 1;           // R x G
  bool ok = true;              // compiled and priced; else `error` says why
  std::string error;
  Seconds invocation;          // one invocation of the group program
  int64_t rounds = 1;          // invocations per replica, one after another
  Seconds latency;             // per video, resident: rounds x invocation (no transfer)
  Seconds offload;             // per video, were it offloaded: rounds x parameters / host link
  Bytes peak_memory;
  Bytes parameter_memory;
  Bytes largest_parameter;     // the largest parameter shard per device
  bool fits = false;           // resident: peak + resident bytes <= HBM
  bool fits_offloaded = false; // offloaded: peak - parameters + 2 x largest + resident <= HBM
  bool fits_evicted = false;   // the DiT's weights evicted: peak + resident - DiT weights <= HBM
  // tiles=G (stage_tiles.h): invocation = makespan + gather + blend.
  int64_t tile_runs = 0;
  Seconds makespan;            // the busiest chip's runs
  Seconds gather;              // the decoded tiles to the first chip
  Bytes gathered;              // what the other chips send
  Seconds blend;               // the blend graph on the first chip
};

struct StagePlan {
  std::string name;      // "umt5-xxl"
  std::string kind;      // "text-encoder", "image-encoder", "vae-decoder"
  std::string sharding;  // "single device", "fsdp=8", "tp=4,dp=2", "dp=2" ...
  std::vector<std::pair<std::string, int64_t>> mesh;  // (dp, R) major, then the strategy's axis
  net::Placement placement;  // logical id (row-major in mesh) -> chip id
  int64_t invocations = 1;   // per video
  int64_t rounds = 1;        // invocations each replica runs one after another
  Seconds invocation;        // one invocation of the group program
  Seconds latency;           // per video: rounds x invocation + offload + transfer
  Seconds transfer_time;
  std::string transfer;      // what moved, how priced
  Seconds offload;
  bool offloaded = false;
  bool dit_evicted = false;  // offloaded by evicting the DiT's weights, not the stage's
  bool fits = true;
  Bytes peak_memory;              // per device; offloaded: what the device holds streaming
  Bytes parameter_memory;         // per device, as stored (offloaded: on the host)
  double flops = 0;               // one invocation, the whole graph (unsharded)
  std::string note;               // why this candidate; what could not be tried
  std::vector<StageCandidateCost> candidates;  // every candidate, in candidate order
};

StatusOr<std::vector<StagePlan>> PlanStages(const workload::Workload& config, const hw::Topology& topology,
                                            const StagePlanOptions& options);

}  // namespace az::search
