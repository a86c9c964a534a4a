// Internal to search/stages.cc: the tile-parallel decode of a tiled VAE
// decoder, the tiles=G candidate (stages.h states the contract; this header
// exposes the pieces to tests).
//
// A tiled decoder (zoo/stages.h, DecoderTileRun) is a list of independent
// decoder runs on slices of the latent, then a blend of their decoded tiles.
// tiles=G spreads the runs over G chips, each decoding its share one run
// after another, sends every decoded tile to the group's first chip and
// blends there:
//   invocation_s = makespan + gather_s + blend_s
// with no overlap between the three (a chip sends its tiles when it has
// decoded them all; the blend starts when every tile has arrived), which is
// how a parallel decode that all-gathers its tiles before blending runs.
//
// Worked example (AssignTileRuns): runs of 5, 4, 3, 3, 2 s on 2 chips,
// longest first: 5 -> chip 0 (loads 5, 0); 4 -> chip 1 (5, 4); 3 (run 2) ->
// chip 1 (5, 7); 3 (run 3) -> chip 0 (8, 7); 2 -> chip 1 (8, 9): makespan
// 9 s, where the best split (5 + 4 | 3 + 3 + 2) takes 9 s too; LPT is within
// 4/3 of the best in general (Graham 1969).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workload/workload.h"
#include "hw/topology.h"
#include "net/collective.h"
#include "price/calibration.h"
#include "search/stages.h"

namespace az::search {

// One distinct tile shape, compiled for one device and priced on a chip of
// the topology.
struct TileProgram {
  pir::Shape latent;
  double run_s = 0;                   // the simulated program
  int64_t peak_memory_bytes = 0;      // its evidence's peak (weights, the latent tile, the decoded tile)
  int64_t parameter_bytes = 0;        // the decoder's weights
  int64_t largest_parameter_bytes = 0;
  int64_t decoded_bytes = 0;          // its output
};

// A stage's runs with their programs, and the blend, all priced once per
// stage and shared by its tiles=G candidates.
struct TiledDecode {
  std::vector<workload::DecoderTileRun> runs;  // the pipeline's order
  std::vector<int> program_of_run;        // index into programs
  std::vector<TileProgram> programs;      // distinct latent shapes, in order of first run
  double blend_s = 0;                     // the blend graph (zoo/stages.h) on one device
  int64_t blend_peak_memory_bytes = 0;
  int64_t latent_bytes = 0;               // the unscaled latent every chip slices its runs from
};

// Compiles every distinct run shape and the blend graph with the built-in
// SPMD compiler on one device (no seeds: replicated) on `threads` threads,
// and prices each with price::Simulator on chip 0 of the topology (one
// device, no collectives: any chip of the topology prices the same).
// Errors: the stage is not a tiled decoder; a program fails to compile or
// price.
StatusOr<TiledDecode> PriceTiledDecode(const workload::Workload& config, const std::string& stage,
                                       const hw::Topology& topology, const price::PriceCalibration& calibration,
                                       int threads);

// Longest processing time first: runs in decreasing run_s, ties by run index;
// each to the chip with the least load so far, ties to the lowest chip.
// Deterministic; the makespan is within 4/3 of the optimum (Graham 1969).
struct TileAssignment {
  std::vector<int> chip_of_run;  // per run, in [0, chips)
  std::vector<double> load_s;    // per chip: the sum of its runs' times
  double makespan_s = 0;         // the largest load
};
TileAssignment AssignTileRuns(const std::vector<double>& run_s, int64_t chips);

// The decoded tiles to the group's first chip (logical 0), which blends:
// chip k sends the decoded bytes of its runs (shares[k]; shares[0] stays).
// Priced with the collective model (net/model.h) under `placement` (logical
// id -> chip) as routed collective-permutes into logical 0 in levels:
// senders in increasing order of share; level j moves, from every sender with
// bytes left, at once, its next (share_j - share_{j-1}) bytes, so every byte
// crosses once and concurrent senders share the root's links; levels add.
struct TileGather {
  int64_t bytes = 0;  // moved: the senders' shares summed
  double time_s = 0;
  std::string algorithm;  // the model's, "routed permute"
};
StatusOr<TileGather> PriceTileGather(const std::vector<int64_t>& shares, const net::Placement& placement,
                                     const hw::Topology& topology, const net::Calibration& network);

// One tiles=G replica priced (stages.h): the assignment of the runs, the
// gather, the blend; memory per chip (below). `placement` is the replica's G
// chips. Fills the cost's invocation_s, tile fields, peak_memory_bytes (the
// most any chip holds), parameter_bytes and largest_parameter_bytes; the
// caller sets rounds, latency and the fits. Error: fewer runs than G (a chip
// would hold no tile).
//
// A chip holds the unscaled latent, the decoded tiles it has finished (they
// wait for the gather) and the running tile's program: its peak is
//   latent + max over its runs j (in run order) of (decoded before j + peak of j);
// the first chip then holds the blend graph's peak (every decoded tile, the
// video) beside the decoder's weights.
Status PriceTilesReplica(const TiledDecode& decode, int64_t group, const net::Placement& placement,
                         const hw::Topology& topology, const net::Calibration& network, StageCandidateCost& cost);

}  // namespace az::search
