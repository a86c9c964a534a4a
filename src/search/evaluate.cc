#include "search/evaluate.h"

#include <algorithm>
#include <utility>

#include "compile/spmd/spmd_compiler.h"
#include "compile/xla/xla_compiler.h"
#include "pir/rules/cost.h"
#include "place/default_placement.h"
#include "search/pipefusion.h"
#include "shard/propagation.h"
#include "shard/templates.h"

namespace az::search {

namespace {

std::vector<int64_t> Shape(const shard::Mesh& mesh) {
  std::vector<int64_t> shape;
  for (int a = 0; a < mesh.num_axes(); ++a) shape.push_back(mesh.axis_size(a));
  return shape;
}

std::vector<std::string> Names(const shard::Mesh& mesh) {
  std::vector<std::string> names;
  for (int a = 0; a < mesh.num_axes(); ++a) names.push_back(mesh.axis_name(a));
  return names;
}

// A dump of another model, size or resolution prices fine and means nothing:
// its FLOPs per device against the model's share.
std::string DumpWarning(const Compiled& out, const std::string& path) {
  const pir::Graph& graph = *out.candidate.program;
  double model = static_cast<double>(pir::ComputeGraphCost(graph).total_flops().value()) /
                 static_cast<double>(out.candidate.mesh.num_devices());
  double dump = 0;
  for (const evidence::ComputeSegment& seg : out.evidence.segments) dump += static_cast<double>(seg.flops.value());
  if (model > 0 && (dump < model / 4 || dump > model * 4)) {
    return path + " computes " + FormatFlops(Flops(static_cast<int64_t>(dump))) + " per device, the model's share is " +
           FormatFlops(Flops(static_cast<int64_t>(model))) + ": is the dump this model at this size?";
  }
  return "";
}

}  // namespace

double StepLatency(const StepShape& step, double forward_s) {
  if (step.pipeline.stages > 1) return PipelineStepLatency(step.pipeline, step.forwards, step.steps, forward_s);
  return static_cast<double>(step.forwards) * forward_s;
}

double LowerBoundTime(const net::Collective& c, const hw::Topology& topology, const net::Calibration& calibration) {
  double bandwidth = 0, hop = 0;
  for (const hw::Link& link : topology.links) {
    if (link.a != 0 && link.b != 0) continue;
    bandwidth += link.bw.value() * calibration.LinkEfficiency(link.cls);
    hop = std::max(hop, link.latency.value());
  }
  if (bandwidth <= 0) return 0;
  double n = 2;
  if (!c.groups.groups.empty()) n = static_cast<double>(c.groups.groups[0].size());
  if (n < 2) return 0;
  double bytes = static_cast<double>(c.bytes.value()), factor = 1;
  switch (c.kind) {
    case net::CollectiveKind::kAllReduce: factor = 2 * (n - 1) / n; break;
    case net::CollectiveKind::kAllGather:
    case net::CollectiveKind::kReduceScatter:
    case net::CollectiveKind::kAllToAll: factor = (n - 1) / n; break;
    default: factor = 1; break;
  }
  return bytes * factor / bandwidth + hop * (n - 1);
}

StatusOr<Compiled> Compile(const Candidate& candidate, const EvaluateOptions& options) {
  if (!candidate.program) return InternalError("Compile: the candidate has no program");
  const pir::Graph& graph = *candidate.program;
  Compiled out;
  out.candidate = candidate;
  shard::Seeds seeds;
  if (candidate.strategy.seeds) {
    seeds = *candidate.strategy.seeds;
  } else if (const std::string templ = candidate.strategy.combo.Template(); templ != "replicated") {
    AZ_ASSIGN_OR_RETURN(seeds, shard::TemplateSeeds(graph, candidate.mesh, templ));
  }
  AZ_ASSIGN_OR_RETURN(out.sharding, shard::Propagate(graph, candidate.mesh, seeds));
  compile::SpmdCompiler builtin;
  compile::XlaDumpCompiler xla(options.hlo_dir);
  compile::Compiler& compiler = options.hlo_dir.empty() ? static_cast<compile::Compiler&>(builtin) : xla;
  compile::CompileOptions compile_options;
  compile_options.candidate_id = candidate.strategy.combo.Id();
  compile_options.ulysses_chunks = candidate.strategy.combo.ulysses_chunks;
  compile_options.prefetch_depth = candidate.strategy.combo.prefetch;
  AZ_ASSIGN_OR_RETURN(cir::Program program, compiler.Compile(graph, out.sharding, compile_options));
  // A pipeline stage's slot ends with its send to the next stage.
  if (candidate.step.pipeline.stages > 1) AZ_RETURN_IF_ERROR(AppendStageSend(candidate.mesh, program));
  out.evidence = evidence::Extract(program, compiler.name(), /*hash=*/false);  // HashOf when reported
  if (!options.hlo_dir.empty()) out.warning = DumpWarning(out, xla.DumpPath(compile_options.candidate_id));
  return out;
}

Evaluated Price(Compiled compiled_in, const hw::Topology& topology, const price::PriceCalibration& calibration,
                const PlacementPolicy& policy) {
  Evaluated e;
  e.compiled = std::move(compiled_in);
  const Compiled& compiled = e.compiled;
  const evidence::Evidence& evidence = compiled.evidence;
  const StepShape& step_shape = compiled.candidate.step;
  e.noise_experts = ChooseNoiseExperts(step_shape.noise_experts, step_shape.steps, static_cast<double>(evidence.peak_memory.value()),
                            static_cast<double>(evidence.parameter_bytes.value()), topology.chip);
  e.fits = e.noise_experts.fits;
  e.forwards = static_cast<double>(step_shape.forwards);
  auto sim = price::Simulator::Create(evidence, topology, calibration.network, calibration.compute);
  if (!sim.ok()) {
    e.status = sim.status();
    return e;
  }
  auto step = [&](double forward) { return StepLatency(step_shape, forward) + e.noise_experts.swap_per_step_s; };
  switch (policy.kind) {
    case PlacementKind::kLowerBound: {
      std::vector<double> times(static_cast<size_t>(sim->num_classes()));
      for (int c = 0; c < sim->num_classes(); ++c) {
        times[static_cast<size_t>(c)] = LowerBoundTime(sim->class_collective(c), topology, calibration.network);
      }
      e.forward_s = sim->Replay(times.data());
      e.default_latency = e.best_latency = step(e.forward_s);
      e.default_method = e.best_method = "placement-free lower bound";
      return e;
    }
    case PlacementKind::kGiven: {
      if (Status s = sim->CheckPlacement(policy.given); !s.ok()) {
        e.status = s;
        return e;
      }
      e.default_placement = e.best_placement = policy.given;
      e.default_method = e.best_method = "given";
      e.forward_s = sim->Latency(policy.given);
      e.default_latency = e.best_latency = step(e.forward_s);
      return e;
    }
    case PlacementKind::kDefault:
    case PlacementKind::kSearch: break;
  }
  const std::vector<int64_t> shape = Shape(compiled.candidate.mesh);
  auto placement = place::DefaultPlacementFor(topology, shape, &e.default_method);
  if (!placement.ok()) {
    e.status = placement.status();
    return e;
  }
  e.default_placement = *placement;
  e.forward_s = sim->Latency(e.default_placement);
  e.default_latency = step(e.forward_s);
  e.best_latency = e.default_latency;
  e.best_placement = e.default_placement;
  e.best_method = policy.kind == PlacementKind::kSearch ? "default (" + e.default_method + ")" : e.default_method;
  if (policy.kind != PlacementKind::kSearch) return e;
  auto found = place::SearchPlacement(*sim, shape, Names(compiled.candidate.mesh), policy.search);
  if (!found.ok()) {
    e.status = found.status();
    return e;
  }
  e.exhaustive = found->exhaustive;
  if (step(found->best_latency) < e.best_latency) {
    e.forward_s = found->best_latency;
    e.best_latency = step(found->best_latency);
    e.best_placement = found->best;
    e.best_method = found->best_method;
  }
  return e;
}

Evaluated Evaluate(const Candidate& candidate, const hw::Topology& topology, const EvaluateOptions& options,
                   const PlacementPolicy& policy) {
  StatusOr<Compiled> compiled = Compile(candidate, options);
  if (!compiled.ok()) {
    Evaluated e;
    e.status = compiled.status();
    e.compiled.candidate = candidate;
    return e;
  }
  return Price(std::move(*compiled), topology, options.calibration, policy);
}

StatusOr<price::SimResult> Breakdown(const Compiled& compiled, const hw::Topology& topology,
                                     const price::PriceCalibration& calibration, const net::Placement& placement,
                                     bool timeline) {
  AZ_ASSIGN_OR_RETURN(price::Simulator sim, price::Simulator::Create(compiled.evidence, topology, calibration.network,
                                                                     calibration.compute));
  return sim.Simulate(placement, timeline);
}

}  // namespace az::search
