// The tile-parallel decode of a tiled VAE decoder (stage_tiles.h).
#include "search/stage_tiles.h"

#include <algorithm>
#include <numeric>

#include "net/model.h"
#include "search/evaluate.h"
#include "support/parallel.h"

namespace az::search {

namespace {

// One device's program of `graph`: compiled replicated on a 1-device mesh
// (as the single-device candidate), priced on chip 0.
struct OneDevice {
  double run_s = 0;
  int64_t peak_memory_bytes = 0;
  int64_t parameter_bytes = 0;
};

StatusOr<OneDevice> CompileOnOneDevice(std::shared_ptr<const pir::Graph> graph, const hw::Topology& topology,
                                       const price::PriceCalibration& calibration) {
  Candidate candidate;
  candidate.program = std::move(graph);
  AZ_ASSIGN_OR_RETURN(candidate.mesh, shard::Mesh::Parse("device=1"));
  const Evaluated e = Evaluate(candidate, topology, EvaluateOptions{calibration, ""},
                               PlacementPolicy{PlacementKind::kGiven, net::Placement{0}, {}});
  AZ_RETURN_IF_ERROR(e.status);
  OneDevice out;
  out.run_s = e.forward_s;
  out.peak_memory_bytes = e.compiled.evidence.peak_memory.value();
  out.parameter_bytes = e.compiled.evidence.parameter_bytes.value();
  return out;
}

int64_t LargestParameter(const pir::Graph& graph) {
  int64_t largest = 0;
  for (const pir::Value& v : graph.values()) {
    if (v.role == pir::ValueRole::kParameter) largest = std::max(largest, v.type.NumBytes());
  }
  return largest;
}

}  // namespace

StatusOr<TiledDecode> PriceTiledDecode(const workload::Workload& config, const std::string& stage,
                                       const hw::Topology& topology, const price::PriceCalibration& calibration,
                                       int threads) {
  TiledDecode out;
  AZ_ASSIGN_OR_RETURN(out.runs, config.StageTileRuns(stage));
  AZ_ASSIGN_OR_RETURN(pir::Graph built_blend, config.StageBlend(stage));
  const auto blend = std::make_shared<const pir::Graph>(std::move(built_blend));
  for (const workload::DecoderTileRun& run : out.runs) {
    auto same = [&](const TileProgram& p) { return p.latent == run.latent; };
    auto it = std::find_if(out.programs.begin(), out.programs.end(), same);
    if (it == out.programs.end()) {
      TileProgram program;
      program.latent = run.latent;
      out.programs.push_back(program);
      it = out.programs.end() - 1;
    }
    out.program_of_run.push_back(static_cast<int>(it - out.programs.begin()));
  }
  // Slot i < programs: that tile shape; the last slot: the blend.
  const int n = static_cast<int>(out.programs.size());
  std::vector<Status> status(static_cast<size_t>(n + 1), Status::Ok());
  OneDevice blend_priced;
  ParallelFor(n + 1, threads, [&](int i) {
    if (i == n) {
      StatusOr<OneDevice> priced = CompileOnOneDevice(blend, topology, calibration);
      if (priced.ok()) blend_priced = *priced;
      status[static_cast<size_t>(i)] = priced.status();
      return;
    }
    TileProgram& p = out.programs[static_cast<size_t>(i)];
    StatusOr<pir::Graph> built = config.StageTile(stage, p.latent);
    if (!built.ok()) {
      status[static_cast<size_t>(i)] = built.status();
      return;
    }
    const auto graph = std::make_shared<const pir::Graph>(std::move(*built));
    StatusOr<OneDevice> priced = CompileOnOneDevice(graph, topology, calibration);
    if (!priced.ok()) {
      status[static_cast<size_t>(i)] = priced.status();
      return;
    }
    p.run_s = priced->run_s;
    p.peak_memory_bytes = priced->peak_memory_bytes;
    p.parameter_bytes = priced->parameter_bytes;
    p.largest_parameter_bytes = LargestParameter(*graph);
    p.decoded_bytes = graph->type(graph->outputs()[0]).NumBytes();
  });
  for (const Status& s : status) AZ_RETURN_IF_ERROR(s);
  out.blend_s = blend_priced.run_s;
  out.blend_peak_memory_bytes = blend_priced.peak_memory_bytes;
  // The blend graph's second output: the unscaled latent (zoo/stages.h).
  out.latent_bytes = blend->type(blend->outputs()[1]).NumBytes();
  return out;
}

TileAssignment AssignTileRuns(const std::vector<double>& run_s, int64_t chips) {
  AZ_CHECK(chips >= 1);
  TileAssignment out;
  out.chip_of_run.assign(run_s.size(), 0);
  out.load_s.assign(static_cast<size_t>(chips), 0.0);
  std::vector<size_t> order(run_s.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return run_s[a] > run_s[b]; });
  for (size_t run : order) {
    // min_element returns the first of equal loads: the lowest chip.
    const auto least = std::min_element(out.load_s.begin(), out.load_s.end());
    out.chip_of_run[run] = static_cast<int>(least - out.load_s.begin());
    *least += run_s[run];
  }
  out.makespan_s = *std::max_element(out.load_s.begin(), out.load_s.end());
  return out;
}

StatusOr<TileGather> PriceTileGather(const std::vector<int64_t>& shares, const net::Placement& placement,
                                     const hw::Topology& topology, const net::Calibration& network) {
  if (shares.size() > placement.size()) {
    return InvalidArgument("tile gather: " + std::to_string(shares.size()) + " shares for " +
                           std::to_string(placement.size()) + " chips");
  }
  TileGather out;
  std::vector<int64_t> levels;
  for (size_t k = 1; k < shares.size(); ++k) {
    out.bytes += shares[k];
    if (shares[k] > 0) levels.push_back(shares[k]);
  }
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  net::CollectiveModel model(topology, network);
  int64_t sent = 0;  // by every sender still sending, before this level
  for (int64_t level : levels) {
    net::Collective c;
    c.kind = net::CollectiveKind::kCollectivePermute;
    c.bytes = Bytes(level - sent);
    for (size_t k = 1; k < shares.size(); ++k) {
      if (shares[k] >= level) c.pairs.push_back({static_cast<int>(k), 0});
    }
    AZ_ASSIGN_OR_RETURN(net::CollectiveResult r, model.Price(c, placement));
    out.time_s += r.time.value();
    out.algorithm = r.algorithm;
    sent = level;
  }
  return out;
}

Status PriceTilesReplica(const TiledDecode& decode, int64_t group, const net::Placement& placement,
                         const hw::Topology& topology, const net::Calibration& network, StageCandidateCost& cost) {
  const int64_t runs = static_cast<int64_t>(decode.runs.size());
  if (runs < group) {
    return InvalidArgument("tiles=" + std::to_string(group) + ": the decoder runs " + std::to_string(runs) +
                           " tile" + (runs == 1 ? "" : "s") + ", fewer than the chips");
  }
  AZ_CHECK(static_cast<int64_t>(placement.size()) == group);
  std::vector<double> run_s;
  for (int p : decode.program_of_run) run_s.push_back(decode.programs[static_cast<size_t>(p)].run_s);
  const TileAssignment assignment = AssignTileRuns(run_s, group);

  // Memory per chip (stage_tiles.h), and each chip's decoded bytes to send.
  std::vector<int64_t> shares(static_cast<size_t>(group), 0);
  std::vector<int64_t> peak(static_cast<size_t>(group), decode.latent_bytes);
  for (size_t run = 0; run < decode.runs.size(); ++run) {
    const size_t chip = static_cast<size_t>(assignment.chip_of_run[run]);
    const TileProgram& p = decode.programs[static_cast<size_t>(decode.program_of_run[run])];
    peak[chip] = std::max(peak[chip], decode.latent_bytes + shares[chip] + p.peak_memory_bytes);
    shares[chip] += p.decoded_bytes;
  }
  int64_t parameter_bytes = 0, largest_parameter = 0;
  for (const TileProgram& p : decode.programs) {
    parameter_bytes = std::max(parameter_bytes, p.parameter_bytes);
    largest_parameter = std::max(largest_parameter, p.largest_parameter_bytes);
  }
  peak[0] = std::max(peak[0], decode.blend_peak_memory_bytes + parameter_bytes);

  AZ_ASSIGN_OR_RETURN(TileGather gather, PriceTileGather(shares, placement, topology, network));
  cost.tile_runs = runs;
  cost.makespan = Seconds(assignment.makespan_s);
  cost.gather = Seconds(gather.time_s);
  cost.gathered = Bytes(gather.bytes);
  cost.blend = Seconds(decode.blend_s);
  cost.invocation = Seconds(assignment.makespan_s + gather.time_s + decode.blend_s);
  cost.peak_memory = Bytes(*std::max_element(peak.begin(), peak.end()));
  cost.parameter_memory = Bytes(parameter_bytes);
  cost.largest_parameter = Bytes(largest_parameter);
  return Status::Ok();
}

}  // namespace az::search
