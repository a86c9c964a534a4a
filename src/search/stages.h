// The non-DiT stages of a video pipeline, planned and priced: text and image
// encoders and the VAE decoder (zoo/stages.h), each with its own sharding and
// placement on the chips the DiT runs on.
//
// A user waits for the whole video:
//   video_latency_s = sum over stages of StagePlan::latency_s
//                     + steps x the denoising step (its CFG mode, planner.h).
// This file prices the first term; the planner owns the second.
//
// Contract of PlanStages(config, topology, options), for every stage that
// zoo::StagesOf(config) returns, in that order (none for a model whose stages
// are not built, or an imported program: an empty list, not an error):
//
// Candidates. A candidate runs `replicas` independent copies of one *group
// program* side by side; each copy runs whole invocations of the stage (a
// text encoder runs twice per video under CFG, prompt and negative prompt;
// the VAE decoder once per video). The group program is one invocation
// (zoo::BuildStage) compiled by the built-in SPMD compiler on a 1-axis mesh
// of `group` devices under one strategy:
//   single device   group 1, no seeds: the whole stage on one chip.
//   fsdp=G          every parameter of rank >= 2 stored sharded on its largest
//                   dim G divides (else its largest, padded), storage only and
//                   all-gathered before each use; the computation is
//                   replicated (what Wan's --t5_fsdp does: each rank encodes
//                   the same prompt with the weights gathered layer by layer).
//                   Seeded here as shard/templates.cc seeds fsdp, since the
//                   templates need a DiT's video tokens.
//   tp=G            Megatron: every "column" linear (an einsum whose operand 0
//                   is a norm's result and operand 1 a rank-2 parameter) has
//                   its output factor on the axis; propagation carries the
//                   split through heads, activations and reshapes to the
//                   linear that contracts it (row parallel, an all-reduce
//                   after it). A column linear whose result is viewed with a
//                   leading (q, k, v) factor (a fused to_qkv, CLIP ViT-H's)
//                   is left whole: its column split is not a head split. A
//                   graph without column linears (the convolutional VAE) gets
//                   no tp candidate. G must divide every column linear's
//                   output features and every attention's heads.
//   spatial=G       a VAE (encoder or decoder) split over the video's rows,
//                   as xDiT's DistVAE runs its decoder patch-parallel: the
//                   graph's input [B, C, T, H, W] is split on its height when
//                   G divides the latent's rows (the smallest height of the
//                   graph's input and output: every other level is a
//                   multiple of it), else on its width when G divides the
//                   latent's columns (Wan at 720p: 90 latent rows, 160
//                   columns; 8 bands are columns), else the candidate fails
//                   with that reason (uneven bands would not stay aligned
//                   through the 2x upsamplers, compile/spmd/halo.h).
//                   Propagation carries the split through every op: each
//                   convolution and replicate pad exchanges its halo rows with
//                   its neighbours (two collective-permutes), group norms
//                   all-reduce their statistics, an attention over the split
//                   positions gathers its keys and values (or the split is
//                   gathered before a reshape that cannot keep it); the
//                   decoded video stays split, each device its band. A plan
//                   that reaches a slice or concat of the split dim (the tiles
//                   of HunyuanVideo's tiled decoder) fails: the built-in
//                   compiler has no exchange for it (CheckSpatialPlan);
//                   tiles=G spreads such a decoder's tiles instead.
//   tiles=G         a tiled decoder (zoo/stages.h, DecoderTileRun:
//                   HunyuanVideo's, whose pipeline decodes the latent as
//                   independent decoder runs on overlapping tiles, blended)
//                   decoded tile-parallel, as a parallel VAE decode spreads
//                   the tiles over its ranks (search/stage_tiles.h). Not one
//                   SPMD program: every distinct run shape and the blend
//                   graph are compiled once on one device (as the single
//                   device) and priced with price::Simulator on a chip of the
//                   topology. The runs go to the G chips longest first (LPT:
//                   ties by run order, each to the least loaded chip, ties to
//                   the lowest logical id); each chip decodes its runs one
//                   after another. Its decoded tiles (as the runs output
//                   them, f16, whole: the blends read their overlaps) then
//                   go to the group's first chip, priced with the collective
//                   model as routed permutes into it (PriceTileGather); that
//                   chip runs the blend graph: the blends, cuts and
//                   concatenations into the video. The blends stay on one
//                   chip because each is in place and reads the blended tile
//                   before it (above, to the left, earlier), a chain through
//                   the whole video, and they are elementwise work on the
//                   decoded bytes only. The blend graph also holds the
//                   latent's unscale, which every chip runs on its copy of
//                   the latent before its runs: the same time, in parallel,
//                   so priced once. Nothing overlaps:
//                     invocation_s = makespan + gather + blend.
//                   Offered when the stage decodes in >= 2 runs; fails when
//                   G exceeds the runs.
// with G over the divisors of the chip count (G >= 2), and `replicas` (the
// "dp=R" in the name) over the divisors R of the invocations with
// R x G <= chips. Names: "single device", "dp=2", "fsdp=8", "tp=4,dp=2",
// "spatial=8", "tiles=8", ...
//
// Placement. The candidate's mesh is (dp=R, <strategy>=G), dp major (the
// spatial axis is named "height" or "width", the dim it splits); its
// placement is place::DefaultPlacementFor on the topology (JAX's
// create_device_mesh when R x G is the chip count, else the first R x G chips
// in id order). Replica r runs on logical ids [r G, (r + 1) G). The group
// program is priced by price::Simulator under replica 0's chips; the replicas
// run disjoint chips and their collectives are assumed not to contend.
// tiles=G: logical id k of a replica decodes the runs assigned to k, and
// logical 0 (its first chip) receives the decoded tiles and blends.
//
// Latency per video:
//   rounds        = ceil(invocations / R)
//   invocation_s  = the simulated group program (tiles=G: makespan + gather
//                   + blend, above)
//   offload_s     = offloaded ? rounds x parameter_bytes / host link : 0
//                   (dit_evicted: the DiT's reload instead, see Memory)
//   transfer_s    = see Transfers
//   latency_s     = rounds x invocation_s + offload_s + transfer_s
// `parameter_bytes` and `peak_memory_bytes` are per device, from the
// evidence (one invocation; a replica holds its own copy). tiles=G: every
// chip holds the decoder's weights; the peak is the fullest chip's: the
// latent, the tiles it has decoded (waiting for the gather) and the running
// run's program, and on the first chip the blend graph's peak beside the
// weights (stage_tiles.h).
//
// Memory. A candidate fits when peak_memory_bytes + resident_bytes_per_chip
// <= the chip's HBM (the DiT's weights, or its whole peak, stay resident
// while the stage runs). When no candidate fits, every candidate is tried
// offloaded: its stored parameters stay in host memory and are streamed in
// over the chip's host link (hw/chip.h: HostLinkBandwidth, each device
// its own shard in parallel) once per round, not overlapped with compute; on
// the device it then needs
//   peak - parameter_bytes + 2 x its largest parameter shard
// (double buffering: one tensor in use while the next loads). The fastest
// candidate that fits wins, offloaded only when nothing fits resident; two
// latencies within 0.1% of each other tie, and a tie goes to the candidate on
// fewer chips, then to the lower name. When nothing fits even offloaded, the candidate with
// the lowest requirement is returned with fits = false and the reason in
// `note`. Offloading is never chosen for speed: it only adds time.
// Last resort, with dit_parameter_bytes_per_chip set: the DiT's weights are
// evicted for the stage (what Wan's --offload_model does before the VAE:
// `self.model.cpu()`). Read-only weights keep their host copy, so eviction is
// free and the reload before the next denoising step costs
//   offload_s = dit_parameter_bytes_per_chip / host link
// (every chip its own shard, in parallel); the stage then fits when peak +
// resident - dit_parameter_bytes_per_chip <= HBM, its own weights resident.
// Marked offloaded and dit_evicted.
//
// Transfers (priced with the collective model, net/model.h, over all chips
// of the topology in chip-id order, the DiT's devices; zero on one chip):
//   encoders -> DiT: the stage graph's first output (the states the DiT
//     reads; llava-llama-3-8b's second output, last_hidden_state, is unread)
//     of every invocation, broadcast from the first chip of the replica that
//     computed it to every chip (the DiT replicates its text context).
//   DiT -> VAE decoder: the decoder's latent input of every video, an
//     all-gather over every chip (the DiT leaves the latent sharded over its
//     devices; the model has no gather-to-one, and an all-gather brings every
//     chip the same bytes a gather brings its root). Its bytes are the
//     decoder's input dtype (f32 for Wan's VAE), not the DiT's.
// The decoded video's trip to the host is not priced.
//
// Errors: a stage that fails to build; a chip the compute model cannot price
// (ComputeModel::Create). A candidate that fails to propagate, compile or
// price is dropped and listed in `candidates` with its reason.
//
// Deterministic: candidates in a fixed order, compiled on `threads` threads
// into per-candidate slots, ties by name; `seed` is unused (no search).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/zoo/stages.h"
#include "hw/topology.h"
#include "net/collective.h"
#include "price/calibration.h"

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
  double invocation_s = 0;     // one invocation of the group program
  int64_t rounds = 1;          // invocations per replica, one after another
  double latency_s = 0;        // per video, resident: rounds x invocation (no transfer)
  double offload_s = 0;        // per video, were it offloaded: rounds x parameters / host link
  int64_t peak_memory_bytes = 0;
  int64_t parameter_bytes = 0;
  int64_t largest_parameter_bytes = 0;  // the largest parameter shard per device
  bool fits = false;           // resident: peak + resident bytes <= HBM
  bool fits_offloaded = false; // offloaded: peak - parameters + 2 x largest + resident <= HBM
  bool fits_evicted = false;   // the DiT's weights evicted: peak + resident - DiT weights <= HBM
  // tiles=G (stage_tiles.h): invocation_s = makespan_s + gather_s + blend_s.
  int64_t tile_runs = 0;
  double makespan_s = 0;       // the busiest chip's runs
  double gather_s = 0;         // the decoded tiles to the first chip
  int64_t gather_bytes = 0;    // what the other chips send
  double blend_s = 0;          // the blend graph on the first chip
};

struct StagePlan {
  std::string name;      // "umt5-xxl"
  std::string kind;      // "text-encoder", "image-encoder", "vae-decoder"
  std::string sharding;  // "single device", "fsdp=8", "tp=4,dp=2", "dp=2" ...
  std::vector<std::pair<std::string, int64_t>> mesh;  // (dp, R) major, then the strategy's axis
  net::Placement placement;  // logical id (row-major in mesh) -> chip id
  int64_t invocations = 1;   // per video
  int64_t rounds = 1;        // invocations each replica runs one after another
  double invocation_s = 0;   // one invocation of the group program
  double latency_s = 0;      // per video: rounds x invocation + offload + transfer
  double transfer_s = 0;
  std::string transfer;      // what moved, how priced
  double offload_s = 0;
  bool offloaded = false;
  bool dit_evicted = false;  // offloaded by evicting the DiT's weights, not the stage's
  bool fits = true;
  int64_t peak_memory_bytes = 0;  // per device; offloaded: what the device holds streaming
  int64_t parameter_bytes = 0;    // per device, as stored (offloaded: on the host)
  double flops = 0;               // one invocation, the whole graph (unsharded)
  std::string note;               // why this candidate; what could not be tried
  std::vector<StageCandidateCost> candidates;  // every candidate, in candidate order
};

StatusOr<std::vector<StagePlan>> PlanStages(const zoo::ModelConfig& config, const hw::Topology& topology,
                                            const StagePlanOptions& options);

}  // namespace az::search
