// Plans and prices the non-DiT stages (stages.h states the contract).
#include "search/stages.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "evidence/evidence.h"
#include "net/model.h"
#include "pir/rules/cost.h"
#include "place/search.h"
#include "price/simulator.h"
#include "search/evaluate.h"
#include "search/stage_candidates.h"
#include "search/stage_tiles.h"
#include "support/parallel.h"

namespace az::search {

namespace {

// What a device holds running the candidate with its weights streamed from
// the host: the peak without its parameters, plus the largest shard twice
// (the one in use and the next one arriving).
Bytes StreamingPeak(const StageCandidateCost& c) {
  return c.peak_memory - c.parameter_memory + c.largest_parameter * 2;
}

using Clock = std::chrono::steady_clock;

// One candidate compiled and priced.
struct Priced {
  StageCandidateCost cost;
  std::vector<std::pair<std::string, int64_t>> mesh;
  net::Placement placement;
};

StatusOr<shard::Seeds> SeedsFor(const StageCandidate& c, const pir::Graph& graph) {
  switch (c.strategy) {
    case StageStrategy::kSingle: return shard::Seeds();
    case StageStrategy::kFsdp: return StageFsdpSeeds(graph, 0, c.group);
    case StageStrategy::kTp: return StageTpSeeds(graph, 0, c.group);
    case StageStrategy::kSpatial: {
      AZ_ASSIGN_OR_RETURN(int dim, SpatialSplitDim(graph, c.group));
      return StageSpatialSeeds(graph, 0, dim);
    }
    case StageStrategy::kTiles: break;  // not one SPMD program (stage_tiles.h)
  }
  return shard::Seeds();
}

// The largest parameter shard one device stores under `plan`.
int64_t LargestParameterShard(const pir::Graph& graph, const shard::ShardingPlan& plan) {
  int64_t largest = 0;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role != pir::ValueRole::kParameter) continue;
    pir::Shape local = plan.values[static_cast<size_t>(id)].LocalShape(plan.mesh, v.type.shape);
    pir::TensorType t = v.type;
    t.shape = local;
    largest = std::max(largest, t.NumBytes());
  }
  return largest;
}

// The group program: one SPMD program on the candidate's G devices,
// evaluated (evaluate.h) under replica 0's chips.
Status PriceSpmd(const StageCandidate& c, const std::shared_ptr<const pir::Graph>& graph, const net::Placement& group,
                 const hw::Topology& topology, const StagePlanOptions& options, StageCandidateCost& cost) {
  Candidate candidate;
  candidate.program = graph;
  AZ_ASSIGN_OR_RETURN(candidate.mesh, shard::Mesh::Parse(c.AxisName() + "=" + std::to_string(c.group)));
  AZ_ASSIGN_OR_RETURN(candidate.strategy.seeds, SeedsFor(c, *graph));
  if (c.strategy == StageStrategy::kSpatial) {
    // Checked before compiling: a split the rules turn into something else
    // is refused, not priced.
    AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(*graph, candidate.mesh, *candidate.strategy.seeds));
    AZ_RETURN_IF_ERROR(CheckSpatialPlan(*graph, plan));
  }
  const Evaluated e = Evaluate(candidate, topology, EvaluateOptions{options.calibration, ""},
                               PlacementPolicy{PlacementKind::kGiven, group, {}});
  AZ_RETURN_IF_ERROR(e.status);
  cost.invocation = Seconds(e.forward_s);
  cost.peak_memory = e.compiled.evidence.peak_memory;
  cost.parameter_memory = e.compiled.evidence.parameter_bytes;
  cost.largest_parameter = Bytes(LargestParameterShard(*graph, e.compiled.sharding));
  return Status::Ok();
}

// `tiled`: the stage's runs priced once (tiles=G only; its error is the
// candidate's).
Status PriceCandidate(const StageCandidate& c, const std::shared_ptr<const pir::Graph>& graph,
                      const StatusOr<TiledDecode>& tiled,
                      int64_t invocations, const hw::Topology& topology, const StagePlanOptions& options,
                      Priced& out) {
  std::vector<int64_t> shape;
  if (c.replicas > 1) {
    out.mesh.push_back({"dp", c.replicas});
    shape.push_back(c.replicas);
  }
  out.mesh.push_back({c.AxisName(), c.group});
  shape.push_back(c.group);
  std::string method;
  AZ_ASSIGN_OR_RETURN(out.placement, place::DefaultPlacementFor(topology, shape, &method));
  // Replica 0: logical ids [0, G) of the (dp, strategy) mesh.
  net::Placement group(out.placement.begin(), out.placement.begin() + c.group);
  StageCandidateCost& cost = out.cost;
  if (c.strategy == StageStrategy::kTiles) {
    AZ_RETURN_IF_ERROR(tiled.status());
    AZ_RETURN_IF_ERROR(PriceTilesReplica(*tiled, c.group, group, topology, options.calibration.network, cost));
  } else {
    AZ_RETURN_IF_ERROR(PriceSpmd(c, graph, group, topology, options, cost));
  }
  cost.rounds = (invocations + c.replicas - 1) / c.replicas;
  cost.latency = Seconds(static_cast<double>(cost.rounds) * cost.invocation.value());
  cost.offload = Seconds(static_cast<double>(cost.rounds) * static_cast<double>(cost.parameter_memory.value()) /
                         hw::HostLinkBandwidth(topology.chip).value());
  const Bytes hbm = topology.chip.hbm;
  const Bytes resident(options.resident_bytes_per_chip);
  cost.fits = cost.peak_memory + resident <= hbm;
  cost.fits_offloaded = StreamingPeak(cost) + resident <= hbm;
  cost.fits_evicted = options.dit_parameter_bytes_per_chip > 0 &&
                      cost.peak_memory + resident - Bytes(options.dit_parameter_bytes_per_chip) <= hbm;
  return Status::Ok();
}

int64_t OutputBytes(const pir::Graph& graph) {
  if (graph.outputs().empty()) return 0;
  return graph.type(graph.outputs()[0]).NumBytes();
}

int64_t InputBytes(const pir::Graph& graph) {
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    if (graph.value(id).role == pir::ValueRole::kInput) return graph.type(id).NumBytes();
  }
  return 0;
}

std::vector<int> AllChips(const hw::Topology& topology) {
  std::vector<int> chips(static_cast<size_t>(topology.num_chips()));
  for (size_t i = 0; i < chips.size(); ++i) chips[i] = static_cast<int>(i);
  return chips;
}

// stages.h's transfers; `plan` is filled but for transfer_s and transfer.
Status PriceTransfer(workload::StageKind kind, const pir::Graph& graph, const hw::Topology& topology,
                     const StagePlanOptions& options, StagePlan& plan) {
  if (topology.num_chips() < 2) {
    plan.transfer = "one chip: nothing moves";
    return Status::Ok();
  }
  net::CollectiveModel model(topology, options.calibration.network);
  const net::Placement identity = net::IdentityPlacement(topology.num_chips());
  net::Collective c;
  c.groups.groups.push_back(AllChips(topology));
  const std::string chips = std::to_string(topology.num_chips());
  if (kind == workload::StageKind::kVaeDecoder) {
    c.kind = net::CollectiveKind::kAllGather;
    c.bytes = Bytes(InputBytes(graph) * plan.invocations);
    AZ_ASSIGN_OR_RETURN(net::CollectiveResult r, model.Price(c, identity));
    plan.transfer_time = r.time;
    plan.transfer = "the latent (" + FormatBytes(c.bytes) + ") all-gathered over the " + chips +
                    " chips, collective model (" + r.algorithm + ")";
    return Status::Ok();
  }
  c.kind = net::CollectiveKind::kBroadcast;
  c.bytes = Bytes(OutputBytes(graph));
  const int64_t replicas = plan.mesh.size() == 2 ? plan.mesh[0].second : 1;
  const int64_t per_replica = static_cast<int64_t>(plan.placement.size()) / replicas;
  std::string algorithm;
  for (int64_t i = 0; i < plan.invocations; ++i) {
    // Invocation i runs on replica i mod R, whose first chip broadcasts it.
    c.root = plan.placement[static_cast<size_t>((i % replicas) * per_replica)];
    AZ_ASSIGN_OR_RETURN(net::CollectiveResult r, model.Price(c, identity));
    plan.transfer_time += r.time;
    algorithm = r.algorithm;
  }
  plan.transfer = std::to_string(plan.invocations) + " x " + FormatBytes(c.bytes) + " broadcast to the " + chips +
                  " chips, collective model (" + algorithm + ")";
  return Status::Ok();
}

// The chosen candidate's index, or -1 when none compiled: resident and
// fitting first, else offloaded and fitting, else the lowest requirement;
// fastest first, ties (stages.h) by fewer chips, then by name.
// Within 0.1% is a tie: far below what the model can tell apart, and a VAE
// whose FSDP all-gathers hide entirely behind its convolutions should not
// take two chips for nothing.
constexpr double kTieTolerance = 1e-3;

int Choose(const std::vector<StageCandidateCost>& costs) {
  auto better = [&](int a, int b, auto key) {
    if (b < 0) return true;
    const StageCandidateCost &ca = costs[static_cast<size_t>(a)], &cb = costs[static_cast<size_t>(b)];
    const double ka = key(ca), kb = key(cb);
    if (std::abs(ka - kb) > kTieTolerance * std::max(ka, kb)) return ka < kb;
    if (ca.chips != cb.chips) return ca.chips < cb.chips;
    return ca.sharding < cb.sharding;
  };
  int best = -1;
  for (int i = 0; i < static_cast<int>(costs.size()); ++i) {
    if (costs[static_cast<size_t>(i)].ok && costs[static_cast<size_t>(i)].fits &&
        better(i, best, [](const StageCandidateCost& c) { return c.latency.value(); })) {
      best = i;
    }
  }
  if (best >= 0) return best;
  for (int i = 0; i < static_cast<int>(costs.size()); ++i) {
    if (costs[static_cast<size_t>(i)].ok && costs[static_cast<size_t>(i)].fits_offloaded &&
        better(i, best, [](const StageCandidateCost& c) { return c.latency.value() + c.offload.value(); })) {
      best = i;
    }
  }
  if (best >= 0) return best;
  // The DiT evicted: the same reload whoever runs, so the fastest stage.
  for (int i = 0; i < static_cast<int>(costs.size()); ++i) {
    if (costs[static_cast<size_t>(i)].ok && costs[static_cast<size_t>(i)].fits_evicted &&
        better(i, best, [](const StageCandidateCost& c) { return c.latency.value(); })) {
      best = i;
    }
  }
  if (best >= 0) return best;
  for (int i = 0; i < static_cast<int>(costs.size()); ++i) {
    if (costs[static_cast<size_t>(i)].ok &&
        better(i, best, [](const StageCandidateCost& c) {
          return static_cast<double>(StreamingPeak(c).value());
        })) {
      best = i;
    }
  }
  return best;
}

}  // namespace

StatusOr<std::vector<StagePlan>> PlanStages(const workload::Workload& config, const hw::Topology& topology,
                                            const StagePlanOptions& options) {
  std::vector<StagePlan> plans;
  AZ_RETURN_IF_ERROR(price::ComputeModel::Create(topology.chip, options.calibration.compute).status());
  const Bandwidth host = hw::HostLinkBandwidth(topology.chip);
  const int64_t hbm = topology.chip.hbm.value();
  for (const workload::StageInfo& info : config.Stages()) {
    const Clock::time_point start = Clock::now();
    AZ_ASSIGN_OR_RETURN(pir::Graph built, config.Stage(info.name));
    const auto program = std::make_shared<const pir::Graph>(std::move(built));
    const pir::Graph& graph = *program;
    const bool tensor_parallel = !ColumnLinears(graph).empty();
    const bool vae = info.kind == workload::StageKind::kVaeDecoder || info.kind == workload::StageKind::kVaeEncoder;
    // A decode in >= 2 tile runs can spread them (tiles=G); its runs and
    // blend are compiled and priced once, for every G.
    AZ_ASSIGN_OR_RETURN(const std::vector<workload::DecoderTileRun> runs, config.StageTileRuns(info.name));
    const bool tiles = runs.size() >= 2 && topology.num_chips() >= 2;
    std::vector<StageCandidate> candidates =
        EnumerateStageCandidates(topology.num_chips(), info.invocations, tensor_parallel, vae, tiles);
    StatusOr<TiledDecode> tiled = InvalidArgument("not a tiled decode");
    if (tiles) tiled = PriceTiledDecode(config, info.name, topology, options.calibration, options.threads);
    for (StageCandidate& c : candidates) {
      if (c.strategy != StageStrategy::kSpatial) continue;
      StatusOr<int> dim = SpatialSplitDim(graph, c.group);
      if (dim.ok()) c.spatial_dim = *dim;  // else the candidate fails with the reason
    }
    std::vector<Priced> priced(candidates.size());
    ParallelFor(static_cast<int>(candidates.size()), options.threads, [&](int i) {
      Priced& p = priced[static_cast<size_t>(i)];
      p.cost.sharding = candidates[static_cast<size_t>(i)].Name();
      p.cost.chips = candidates[static_cast<size_t>(i)].group * candidates[static_cast<size_t>(i)].replicas;
      Status status =
          PriceCandidate(candidates[static_cast<size_t>(i)], program, tiled, info.invocations, topology, options, p);
      if (!status.ok()) {
        p.cost.ok = false;
        p.cost.error = status.message();
      }
    });
    StagePlan plan;
    plan.name = info.name;
    plan.kind = std::string(workload::StageKindName(info.kind));
    plan.invocations = info.invocations;
    plan.flops = static_cast<double>(pir::ComputeGraphCost(graph).total_flops().value());
    for (const Priced& p : priced) plan.candidates.push_back(p.cost);
    const int chosen = Choose(plan.candidates);
    if (chosen < 0) {
      return InvalidArgument("stage '" + info.name + "' of " + config.model + ": no candidate compiled (" +
                             (plan.candidates.empty() ? std::string("none") : plan.candidates[0].error) + ")");
    }
    const StageCandidateCost& cost = plan.candidates[static_cast<size_t>(chosen)];
    plan.sharding = cost.sharding;
    plan.mesh = priced[static_cast<size_t>(chosen)].mesh;
    plan.placement = priced[static_cast<size_t>(chosen)].placement;
    plan.rounds = cost.rounds;
    plan.invocation = cost.invocation;
    plan.parameter_memory = cost.parameter_memory;
    plan.peak_memory = cost.peak_memory;
    plan.fits = cost.fits || cost.fits_offloaded || cost.fits_evicted;
    plan.offloaded = !cost.fits;
    plan.dit_evicted = !cost.fits && !cost.fits_offloaded && cost.fits_evicted;
    if (plan.dit_evicted) {
      plan.offload = Bytes(options.dit_parameter_bytes_per_chip) / host;
    } else if (plan.offloaded) {
      plan.offload = cost.offload;
      plan.peak_memory = StreamingPeak(cost);
    }
    AZ_RETURN_IF_ERROR(PriceTransfer(info.kind, graph, topology, options, plan));
    plan.latency = Seconds(static_cast<double>(plan.rounds) * plan.invocation.value()) + plan.offload + plan.transfer_time;
    const std::string budget = FormatBytes(Bytes(hbm - options.resident_bytes_per_chip));
    if (!plan.fits) {
      plan.note = std::string("nothing fits, even offloaded") +
                  (options.dit_parameter_bytes_per_chip > 0 ? " or with the DiT's weights evicted" : "") +
                  ": the smallest need is " + FormatBytes(plan.peak_memory) +
                  " per device, " + budget + " left beside the resident " +
                  FormatBytes(Bytes(options.resident_bytes_per_chip));
    } else if (plan.dit_evicted) {
      plan.note = "no candidate fits beside the DiT, even with its own weights streamed: the DiT's " +
                  FormatBytes(Bytes(options.dit_parameter_bytes_per_chip)) +
                  " of weights per device evicted for the stage and reloaded at " + FormatBandwidth(host);
    } else if (plan.offloaded) {
      plan.note = "no candidate fits resident in the " + budget +
                  " the DiT leaves per device: weights streamed from host memory at " + FormatBandwidth(host);
    } else {
      plan.note = "the fastest of " + std::to_string(candidates.size()) + " candidates that fits the " + budget +
                  " the DiT leaves per device";
    }
    if (!tensor_parallel) plan.note += "; tp: no linear after a norm";
    if (vae) {
      // Why no band split ran, when none did (HunyuanVideo's tiles).
      std::string spatial_error;
      bool spatial_ok = false;
      for (size_t i = 0; i < candidates.size(); ++i) {
        if (candidates[i].strategy != StageStrategy::kSpatial) continue;
        spatial_ok |= plan.candidates[i].ok;
        if (spatial_error.empty()) spatial_error = plan.candidates[i].error;
      }
      if (!spatial_ok && !spatial_error.empty()) plan.note += "; spatial: " + spatial_error;
    }
    if (vae && candidates[static_cast<size_t>(chosen)].strategy == StageStrategy::kSpatial) {
      const StageCandidate& c = candidates[static_cast<size_t>(chosen)];
      plan.note += "; the " + c.AxisName() + " split in " + std::to_string(c.group) + " bands, their halo " +
                   (c.spatial_dim == 4 ? "columns" : "rows") + " exchanged with the neighbours (collective-permutes)";
    }
    if (candidates[static_cast<size_t>(chosen)].strategy == StageStrategy::kTiles) {
      const StageCandidate& c = candidates[static_cast<size_t>(chosen)];
      char text[320];
      std::snprintf(text, sizeof text,
                    "; the %lld tile runs spread over %lld chips longest first (the busiest decodes for %.3f s), "
                    "their decoded tiles (%s) sent to chip %d in %.3f s and blended there in %.3f s",
                    static_cast<long long>(cost.tile_runs), static_cast<long long>(c.group), cost.makespan.value(),
                    FormatBytes(cost.gathered).c_str(), plan.placement[0], cost.gather.value(), cost.blend.value());
      plan.note += text;
    }
    if (options.progress) {
      char line[320];
      std::snprintf(line, sizeof line, "stages: %s: %zu candidates in %.2f s; %s, %.4f s per video%s",
                    info.name.c_str(), candidates.size(), std::chrono::duration<double>(Clock::now() - start).count(),
                    plan.sharding.c_str(), plan.latency.value(), plan.offloaded ? " (offloaded)" : "");
      options.progress(line);
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace az::search
