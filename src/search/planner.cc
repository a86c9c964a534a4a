#include "search/planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "compile/xla/xla_compiler.h"
#include "evidence/evidence.h"
#include "pir/rules/cost.h"
#include "place/search.h"
#include "price/simulator.h"
#include "search/alpa.h"
#include "search/combos.h"
#include "search/experts.h"
#include "shard/propagation.h"
#include "shard/templates.h"
#include "support/parallel.h"

namespace az::search {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

StatusOr<shard::Mesh> MeshOf(const Combo& c) { return shard::Mesh::Parse(c.MeshText()); }

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

// Placement-free lower bound of a collective: its traffic through one chip at
// the chip's total link bandwidth, plus one hop per peer.
double LogicalTime(const net::Collective& c, const hw::Topology& topology, const net::Calibration& calibration) {
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

struct Compiled {
  zoo::ModelConfig config;
  shard::Mesh mesh;
  evidence::Evidence evidence;
  std::string warning;  // a program from elsewhere that does not look like this model's
};

std::string HloPath(const std::string& dir, const Combo& combo) {
  return compile::XlaDumpCompiler(dir).DumpPath(combo.Id());
}

// The graph a candidate runs: the model's forward, or (training) its training
// step under the candidate's remat.
StatusOr<pir::Graph> BuildProgram(const zoo::ModelConfig& config, const Combo& combo, const PlanOptions& options) {
  if (!options.train) return zoo::BuildForward(config);
  zoo::TrainOptions train;
  train.micro_batch = options.train->micro_batch;
  train.remat = combo.remat.value_or(pir::RematPolicy::kNone);
  train.adamw = options.train->adamw;
  return zoo::BuildTrainStep(config, train);
}

// The candidate compiled by the built-in SPMD compiler, or (hlo_dir set) the
// program XLA compiled for it: both through the same Compiler interface.
StatusOr<Compiled> CompileCombo(const zoo::ModelConfig& base, const Combo& combo, int64_t depth_units,
                                const PlanOptions& options) {
  const std::string& hlo_dir = options.hlo_dir;
  Compiled out;
  out.config = ConfigFor(base, combo);
  out.config.depth_units = depth_units;
  AZ_ASSIGN_OR_RETURN(out.mesh, MeshOf(combo));
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, BuildProgram(out.config, combo, options));
  compile::SpmdCompiler builtin;
  compile::XlaDumpCompiler xla(hlo_dir);
  compile::Compiler& compiler = hlo_dir.empty() ? static_cast<compile::Compiler&>(builtin) : xla;
  compile::CompileOptions compile_options;
  compile_options.candidate_id = combo.Id();
  AZ_ASSIGN_OR_RETURN(cir::Program program,
                      compile::CompileTemplate(compiler, graph, out.mesh, combo.Template(), compile_options));
  out.evidence = evidence::Extract(program, compiler.name());
  if (!hlo_dir.empty()) {
    // A dump of another model, size or resolution prices fine and means
    // nothing: compare its FLOPs per device with the model's share.
    double model = static_cast<double>(pir::ComputeGraphCost(graph).total_flops().value()) /
                   static_cast<double>(out.mesh.num_devices());
    double dump = 0;
    for (const evidence::ComputeSegment& seg : out.evidence.segments) dump += static_cast<double>(seg.flops.value());
    if (model > 0 && (dump < model / 4 || dump > model * 4)) {
      out.warning = HloPath(hlo_dir, combo) + " computes " + FormatFlops(Flops(static_cast<int64_t>(dump))) +
                    " per device, the model's share is " + FormatFlops(Flops(static_cast<int64_t>(model))) +
                    ": is the dump this model at this size?";
    }
  }
  return out;
}

struct Stage1 {
  Status status = Status::Ok();
  double score = 0;        // per step, seconds
  double peak_memory = 0;  // bytes, extrapolated
  ExpertChoice experts;    // hold or swap the model's experts (its swap cost is in `score`)
};

// The placement-oblivious score of a combination from two truncated compiles.
Stage1 ScoreCombo(const zoo::ModelConfig& config, const Combo& combo, const hw::Topology& topology,
                  const PlanOptions& options) {
  const price::PriceCalibration& calibration = options.calibration;
  Stage1 out;
  const int64_t units = zoo::DepthUnits(config);
  double score[2] = {0, 0}, peak[2] = {0, 0}, params[2] = {0, 0};
  // Units 2 and 3, not 1 and 2: a value made before the blocks and read by
  // every block (Wan 2.2's per-token modulation e0, [B, L, 6, d] f32) dies
  // inside the first block of a 1-unit model but lives through the second
  // of a longer one, so the peak is linear in depth only from 2 units on.
  const int64_t first = units >= 3 ? 2 : 1;
  for (int k = 0; k < 2; ++k) {
    int64_t depth = std::min<int64_t>(first + k, units);
    StatusOr<Compiled> compiled = CompileCombo(config, combo, depth, options);
    if (!compiled.ok()) {
      out.status = compiled.status();
      return out;
    }
    auto sim = price::Simulator::Create(compiled->evidence, topology, calibration.network, calibration.compute);
    if (!sim.ok()) {
      out.status = sim.status();
      return out;
    }
    std::vector<double> times(static_cast<size_t>(sim->num_classes()));
    for (int c = 0; c < sim->num_classes(); ++c) {
      times[static_cast<size_t>(c)] = LogicalTime(sim->class_collective(c), topology, calibration.network);
    }
    score[k] = sim->Replay(times.data());
    peak[k] = static_cast<double>(compiled->evidence.peak_memory.value());
    params[k] = static_cast<double>(compiled->evidence.parameter_bytes.value());
  }
  double scale = static_cast<double>(units - first);
  double forwards = static_cast<double>(ConfigFor(config, combo).forwards_per_step());
  out.score = forwards * (score[0] + scale * (score[1] - score[0]));
  out.peak_memory = peak[0] + scale * (peak[1] - peak[0]);
  out.experts = ChooseExperts(config, out.peak_memory, params[0] + scale * (params[1] - params[0]), topology.chip);
  out.score += out.experts.swap_per_step_s;
  return out;
}

// A survivor priced in full.
struct Priced {
  Status status = Status::Ok();
  Combo combo;
  Compiled compiled;
  double forwards = 1;
  double default_latency = 0;  // per step
  net::Placement default_placement;
  std::string default_method;
  double best_latency = 0;  // per step
  net::Placement best_placement;
  std::string best_method;
  bool fits = true;
  bool exhaustive = false;  // the placement search priced every map: nothing left to search
  std::optional<shard::Seeds> seeds;  // Alpa: the ILP's seeds (others: the combination's template)
  std::string warning;
  ExpertChoice experts;  // its swap cost per step is in the latencies above
};

ExpertChoice ExpertsOf(const Compiled& compiled, const hw::Topology& topology) {
  return ChooseExperts(compiled.config, static_cast<double>(compiled.evidence.peak_memory.value()),
                       static_cast<double>(compiled.evidence.parameter_bytes.value()), topology.chip);
}

// `compiled`: the combination's full compile when a caller already has it
// (the winner's second, longer placement search reuses its evidence).
Priced PriceCombo(const zoo::ModelConfig& config, const Combo& combo, const hw::Topology& topology,
                  const PlanOptions& options, bool search, const place::PlaceOptions& place_options,
                  const Compiled* compiled = nullptr) {
  Priced p;
  p.combo = combo;
  if (compiled) {
    p.compiled = *compiled;
  } else {
    StatusOr<Compiled> fresh = CompileCombo(config, combo, 0, options);
    if (!fresh.ok()) {
      p.status = fresh.status();
      return p;
    }
    p.compiled = std::move(*fresh);
  }
  p.warning = p.compiled.warning;
  p.experts = ExpertsOf(p.compiled, topology);
  p.fits = p.experts.fits;
  p.forwards = static_cast<double>(p.compiled.config.forwards_per_step());
  auto sim = price::Simulator::Create(p.compiled.evidence, topology, options.calibration.network,
                                      options.calibration.compute);
  if (!sim.ok()) {
    p.status = sim.status();
    return p;
  }
  std::vector<int64_t> shape = Shape(p.compiled.mesh);
  auto placement = place::DefaultPlacementFor(topology, shape, &p.default_method);
  if (!placement.ok()) {
    p.status = placement.status();
    return p;
  }
  p.default_placement = *placement;
  p.default_latency = p.forwards * sim->Latency(p.default_placement) + p.experts.swap_per_step_s;
  p.best_latency = p.default_latency;
  p.best_placement = p.default_placement;
  p.best_method = "default (" + p.default_method + ")";
  if (!search) return p;
  auto found = place::SearchPlacement(*sim, shape, Names(p.compiled.mesh), place_options);
  if (!found.ok()) {
    p.status = found.status();
    return p;
  }
  p.exhaustive = found->exhaustive;
  if (p.forwards * found->best_latency + p.experts.swap_per_step_s < p.best_latency) {
    p.best_latency = p.forwards * found->best_latency + p.experts.swap_per_step_s;
    p.best_placement = found->best;
    p.best_method = found->best_method;
  }
  return p;
}

// Per mesh axis of `mesh` under `placement`: alpha and beta of an all-reduce
// over that axis's groups, fitted to the collective model at 1 MiB and 64 MiB.
std::vector<AxisCost> FitAxisCosts(const shard::Mesh& mesh, const net::Placement& placement,
                                   const hw::Topology& topology, const net::Calibration& calibration) {
  net::CollectiveModel model(topology, calibration);
  std::vector<AxisCost> costs;
  for (int axis = 0; axis < mesh.num_axes(); ++axis) {
    int64_t n = mesh.axis_size(axis);
    net::Collective c;
    c.kind = net::CollectiveKind::kAllReduce;
    std::map<std::vector<int64_t>, std::vector<int>> groups;  // the other coordinates -> members
    for (int64_t device = 0; device < mesh.num_devices(); ++device) {
      std::vector<int64_t> key;
      for (int a = 0; a < mesh.num_axes(); ++a) key.push_back(a == axis ? 0 : mesh.Coordinate(device, a));
      groups[key].push_back(static_cast<int>(device));
    }
    for (auto& [key, members] : groups) c.groups.groups.push_back(members);
    double f = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n);
    c.bytes = MiB(1);
    double small = model.Time(c, placement).value();
    c.bytes = MiB(64);
    double large = model.Time(c, placement).value();
    double beta = (large - small) / (63.0 * 1024 * 1024 * f);
    costs.push_back({std::max(0.0, small - beta * 1024 * 1024 * f), std::max(beta, 0.0)});
  }
  return costs;
}

// Every leaf and activation; of a training step the leaves and the forward's
// activations (the backward's and the optimizer's, tens of thousands, are the
// compiler's business, not a user's).
std::vector<TensorSpec> TensorSpecs(const pir::Graph& graph, const shard::ShardingPlan& plan, bool train) {
  std::vector<TensorSpec> out;
  const int64_t forward_end = graph.attrs().GetInt("backward_start").value_or(graph.num_ops());
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role == pir::ValueRole::kConstant) continue;
    if (train && v.role == pir::ValueRole::kActivation && v.producer >= forward_end) continue;
    TensorSpec spec;
    // Leaves by their own names (checkpoint FQNs, what plan_torch.py and
    // plan_jax.py key on); activations, often unnamed, by their label.
    spec.name = v.name.empty() ? pir::ValueLabel(graph, id) : v.name;
    spec.role = v.role == pir::ValueRole::kParameter        ? "parameter"
                : v.role == pir::ValueRole::kInput          ? "input"
                : v.role == pir::ValueRole::kOptimizerState ? "optimizer_state"
                                                            : "activation";
    spec.shape = v.type.shape;
    for (const auto& dim : plan.values[static_cast<size_t>(id)].dims) {
      std::vector<std::string> axes;
      for (int a : dim) axes.push_back(plan.mesh.axis_name(a));
      spec.spec.push_back(std::move(axes));
    }
    out.push_back(std::move(spec));
  }
  return out;
}

Configuration MakeConfiguration(const std::string& label, const std::string& description, const Priced& p,
                                bool best_placement) {
  Configuration c;
  c.label = label;
  c.description = description;
  for (int a = 0; a < p.compiled.mesh.num_axes(); ++a) {
    c.mesh.push_back({p.compiled.mesh.axis_name(a), p.compiled.mesh.axis_size(a)});
  }
  c.sharding = p.combo.Template();
  c.placement = best_placement ? p.best_placement : p.default_placement;
  c.placement_method = best_placement ? p.best_method : p.default_method;
  c.step_latency_s = best_placement ? p.best_latency : p.default_latency;
  c.peak_memory_bytes = p.compiled.evidence.peak_memory.value();
  c.parameter_bytes = p.compiled.evidence.parameter_bytes.value();
  c.memory = p.compiled.evidence.memory;
  if (p.experts.mode != ExpertMode::kSingle) {
    c.experts_mode = std::string(ExpertModeName(p.experts.mode));
    c.experts = static_cast<int>(p.experts.experts);
    c.expert_bytes = c.parameter_bytes;
    c.peak_memory_bytes = static_cast<int64_t>(p.experts.resident_peak);
    if (p.experts.mode == ExpertMode::kHoldBoth) c.parameter_bytes *= p.experts.experts;
    c.expert_swap_s_per_video = p.experts.swap_per_video_s;
    c.expert_swap_s_per_step = p.experts.swap_per_step_s;
    c.host_link_bps = p.experts.host_bandwidth.value();
    c.experts_reason = p.experts.reason;
  }
  c.evidence_hash = p.compiled.evidence.hash;
  c.ulysses = static_cast<int>(p.combo.ulysses);
  c.ring = static_cast<int>(p.combo.ring);
  c.cfg = static_cast<int>(p.combo.cfg);
  c.tp = static_cast<int>(p.combo.tp);
  c.dp = static_cast<int>(p.combo.dp);
  c.fsdp = static_cast<int>(p.combo.fsdp);
  // xDiT has no context attention (K and V gathered): MaxDiffusion's, on TPUs.
  c.expressible_in_xdit = p.combo.context == 1;
  c.axis_roles = p.combo.AxisRoles();
  c.forwards_per_step = static_cast<int>(p.forwards);
  if (p.combo.remat) {
    c.remat = std::string(pir::RematPolicyName(*p.combo.remat));
    c.expressible_in_xdit = false;  // xDiT runs inference
  }
  return c;
}

// The breakdown of a configuration; for the best also the timeline and the
// PartitionSpec of every tensor (from the sharding it was compiled with).
Status Describe(Configuration& c, const Priced& p, const hw::Topology& topology, const PlanOptions& options,
                bool best) {
  const price::PriceCalibration& calibration = options.calibration;
  AZ_ASSIGN_OR_RETURN(price::Simulator sim, price::Simulator::Create(p.compiled.evidence, topology,
                                                                     calibration.network, calibration.compute));
  AZ_ASSIGN_OR_RETURN(c.breakdown, sim.Simulate(c.placement, best));
  if (!best) return Status::Ok();
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, BuildProgram(p.compiled.config, p.combo, options));
  shard::Seeds seeds;
  if (p.seeds) {
    seeds = *p.seeds;
  } else if (p.combo.Template() != "replicated") {
    AZ_ASSIGN_OR_RETURN(seeds, shard::TemplateSeeds(graph, p.compiled.mesh, p.combo.Template()));
  }
  AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(graph, p.compiled.mesh, seeds));
  c.tensors = TensorSpecs(graph, plan, options.train.has_value());
  return Status::Ok();
}

// The smallest slice of the same chip that would hold `peak` bytes now spread
// over `chips` chips (weights and activations assumed to shrink with 1/chips).
std::string SmallestSliceHint(const hw::Topology& topology, double peak, int64_t chips) {
  double needed = std::ceil(peak * static_cast<double>(chips) / static_cast<double>(topology.chip.hbm.value()));
  std::string best;
  int64_t best_chips = 0;
  for (const std::string& name : hw::ListTopologies()) {
    if (name.rfind(topology.chip.name + ":", 0) != 0) continue;
    auto t = hw::MakeTopology(name);
    if (!t.ok() || t->num_chips() < needed) continue;
    if (best.empty() || t->num_chips() < best_chips) {
      best = name;
      best_chips = t->num_chips();
    }
  }
  return best.empty() ? "none in the catalog" : best;
}

// The Alpa baseline: the ILP on every 1D and 2D mesh, the lowest objective
// compiled and priced under the default placement. The ILP's memory row is an
// estimate (no liveness); when the compiled pick still exceeds the HBM, the
// limit is tightened by the overshoot and the ILP solved again (3 tries).
// Returns nullopt, with the reason in *note, when nothing fits.
StatusOr<std::optional<Priced>> RunAlpaOnce(const zoo::ModelConfig& config, const Combo& combo,
                                            const hw::Topology& topology, const PlanOptions& options,
                                            std::string* note) {
  const int64_t chips = topology.num_chips();
  std::vector<std::string> meshes = {"a=" + std::to_string(chips)};
  for (int64_t a = 2; a < chips; ++a) {
    if (chips % a == 0) meshes.push_back("a=" + std::to_string(a) + ",b=" + std::to_string(chips / a));
  }
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, BuildProgram(config, combo, options));
  AZ_ASSIGN_OR_RETURN(price::ComputeModel compute, price::ComputeModel::Create(topology.chip, options.calibration.compute));
  const double hbm = static_cast<double>(topology.chip.hbm.value());
  double limit = hbm;
  for (int attempt = 0; attempt < 3; ++attempt) {
    double objective = std::numeric_limits<double>::infinity();
    shard::Mesh pick_mesh;
    shard::Seeds pick_seeds;
    for (const std::string& text : meshes) {
      AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(text));
      std::string method;
      AZ_ASSIGN_OR_RETURN(net::Placement placement, place::DefaultPlacementFor(topology, Shape(mesh), &method));
      AlpaOptions alpa_options;
      alpa_options.axis_costs = FitAxisCosts(mesh, placement, topology, options.calibration.network);
      alpa_options.flop_rate = compute.peak().value() * options.calibration.compute.matmul_efficiency;
      alpa_options.memory_limit_bytes = static_cast<int64_t>(limit);
      alpa_options.time_limit_s = 10;
      auto result = SolveAlpa(graph, mesh, alpa_options);
      if (result.ok() && options.progress) {
        char line[256];
        std::snprintf(line, sizeof line, "alpa: mesh %s: %d nodes, %d strategies; built in %.2f s, solved in %.2f s (%s)",
                      text.c_str(), result->nodes, result->strategies, result->build_time_s, result->solve_time_s,
                      result->optimal ? "optimal" : "time limit");
        options.progress(line);
      }
      if (!result.ok()) {
        if (options.progress) options.progress("alpa: mesh " + text + ": " + result.status().message());
        if (note->empty()) *note = "mesh " + text + ": " + result.status().message();
        continue;
      }
      if (result->objective_s < objective) {
        objective = result->objective_s;
        pick_mesh = mesh;
        pick_seeds = result->seeds;
      }
    }
    if (!std::isfinite(objective)) {
      if (note->empty()) *note = "the ILP found no feasible sharding";
      return std::optional<Priced>();
    }
    Priced p;
    p.combo = combo;
    p.compiled.config = config;
    p.compiled.mesh = pick_mesh;
    p.seeds = pick_seeds;
    compile::SpmdCompiler compiler;
    auto sharded = shard::Propagate(graph, pick_mesh, pick_seeds);
    if (!sharded.ok()) {
      *note = "the ILP's pick does not propagate: " + sharded.status().message();
      return std::optional<Priced>();
    }
    auto program = compiler.Compile(graph, *sharded, compile::CompileOptions());
    if (!program.ok()) {
      *note = "the ILP's pick does not compile: " + program.status().message();
      return std::optional<Priced>();
    }
    p.compiled.evidence = evidence::Extract(*program, compiler.name());
    double peak = static_cast<double>(p.compiled.evidence.peak_memory.value());
    if (peak > hbm) {
      *note = "the ILP's pick peaks at " + FormatBytes(p.compiled.evidence.peak_memory) + " once compiled, over " +
              FormatBytes(topology.chip.hbm) + " (after " + std::to_string(attempt + 1) + " tries)";
      limit *= 0.95 * hbm / peak;
      continue;
    }
    p.forwards = static_cast<double>(config.forwards_per_step());
    p.experts = ExpertsOf(p.compiled, topology);
    AZ_ASSIGN_OR_RETURN(price::Simulator sim, price::Simulator::Create(p.compiled.evidence, topology,
                                                                       options.calibration.network,
                                                                       options.calibration.compute));
    AZ_ASSIGN_OR_RETURN(p.default_placement, place::DefaultPlacementFor(topology, Shape(pick_mesh), &p.default_method));
    p.default_latency = p.forwards * sim.Latency(p.default_placement) + p.experts.swap_per_step_s;
    p.best_latency = p.default_latency;
    p.best_placement = p.default_placement;
    p.best_method = p.default_method;
    note->clear();
    return std::optional<Priced>(std::move(p));
  }
  return std::optional<Priced>();
}

// Alpa on the inference forward, or on the training step with the cheapest
// remat whose compiled pick fits (none, selected, offload, full; or the pinned one).
StatusOr<std::optional<Priced>> RunAlpa(const zoo::ModelConfig& config, const hw::Topology& topology,
                                        const PlanOptions& options, std::string* note) {
  std::vector<std::optional<pir::RematPolicy>> remats = {std::nullopt};
  if (options.train) {
    remats.clear();
    if (options.train->remat) {
      remats.push_back(options.train->remat);
    } else {
      for (pir::RematPolicy r : {pir::RematPolicy::kNone, pir::RematPolicy::kSelected, pir::RematPolicy::kOffload,
                                 pir::RematPolicy::kFull}) {
        remats.push_back(r);
      }
    }
  }
  for (const std::optional<pir::RematPolicy>& remat : remats) {
    Combo combo;
    combo.remat = remat;
    note->clear();
    AZ_ASSIGN_OR_RETURN(std::optional<Priced> picked, RunAlpaOnce(config, combo, topology, options, note));
    if (picked) return picked;
    if (remat) *note += " (remat " + std::string(pir::RematPolicyName(*remat)) + ")";
  }
  return std::optional<Priced>();
}

// An imported program priced under the shardings written in it (shard::
// AnnotatedSeeds) on the mesh it declares, with the default placement: the
// user's own plan, as a baseline. Returns nullopt with the reason in *note
// when the program carries none or its mesh is not the slice's size.
std::optional<Priced> PriceAnnotated(const zoo::ModelConfig& config, const hw::Topology& topology,
                                     const PlanOptions& options, std::string* note) {
  const pir::Graph& graph = *config.program;
  bool annotated = std::any_of(graph.values().begin(), graph.values().end(),
                               [](const pir::Value& v) { return v.sharding.has_value(); });
  if (!annotated || graph.meshes().empty()) {
    *note = "the program carries no sharding";
    return std::nullopt;
  }
  const pir::Mesh& own = graph.meshes().front();
  shard::Mesh mesh;
  for (const auto& [name, size] : own.axes) mesh.axes.push_back({name, size});
  if (mesh.num_devices() != topology.num_chips()) {
    *note = "the program's mesh @" + own.name + " (" + mesh.ToString() + ") has " +
            std::to_string(mesh.num_devices()) + " devices, the slice " + std::to_string(topology.num_chips());
    return std::nullopt;
  }
  auto seeds = shard::AnnotatedSeeds(graph, mesh);
  if (!seeds.ok()) {
    *note = seeds.status().message();
    return std::nullopt;
  }
  Priced p;
  p.compiled.config = config;
  p.compiled.mesh = mesh;
  p.seeds = *seeds;
  compile::SpmdCompiler compiler;
  auto sharded = shard::Propagate(graph, mesh, *seeds);
  std::string kept = "the program's own shardings";
  if (!sharded.ok()) {
    // A constraint inside the program our rules cannot keep (XLA pads or
    // reshards where our factor rules refuse): the arguments' shardings, then
    // each inner constraint in program order that still propagates.
    shard::Seeds kept_seeds;
    std::vector<pir::ValueId> inner;
    for (const auto& [v, s] : seeds->values) {
      if (graph.value(v).role != pir::ValueRole::kActivation) {
        kept_seeds.values[v] = s;
      } else {
        inner.push_back(v);
      }
    }
    auto retry = shard::Propagate(graph, mesh, kept_seeds);
    if (!retry.ok()) {
      *note = "the program's shardings do not propagate: " + sharded.status().message();
      return std::nullopt;
    }
    int dropped = 0;
    for (pir::ValueId v : inner) {
      shard::Seeds trial = kept_seeds;
      trial.values[v] = seeds->values.at(v);
      auto attempt = shard::Propagate(graph, mesh, trial);
      if (!attempt.ok()) {
        ++dropped;
        continue;
      }
      kept_seeds = std::move(trial);
      retry = std::move(attempt);
    }
    kept = "the program's own shardings, " + std::to_string(dropped) + " of its " + std::to_string(inner.size()) +
           " inner constraints dropped (they do not propagate under our rules)";
    p.seeds = kept_seeds;
    sharded = std::move(retry);
  }
  *note = kept;
  auto program = compiler.Compile(graph, *sharded, compile::CompileOptions());
  if (!program.ok()) {
    *note = "the program's shardings do not compile: " + program.status().message();
    return std::nullopt;
  }
  p.compiled.evidence = evidence::Extract(*program, compiler.name());
  p.fits = p.compiled.evidence.peak_memory.value() <= topology.chip.hbm.value();
  auto sim = price::Simulator::Create(p.compiled.evidence, topology, options.calibration.network,
                                      options.calibration.compute);
  auto placement = place::DefaultPlacementFor(topology, Shape(mesh), &p.default_method);
  if (!sim.ok() || !placement.ok()) {
    *note = (sim.ok() ? placement.status() : sim.status()).message();
    return std::nullopt;
  }
  p.default_placement = *placement;
  p.default_latency = sim->Latency(p.default_placement);
  p.best_latency = p.default_latency;
  p.best_placement = p.default_placement;
  p.best_method = p.default_method;
  return p;
}

}  // namespace

double RooflineBound(const zoo::ModelConfig& config, const hw::Topology& topology) {
  zoo::ModelConfig c = config;
  c.depth_units = 0;
  auto graph = zoo::BuildForward(c);
  if (!graph.ok()) return 0;
  pir::OpCost cost = pir::ComputeGraphCost(*graph);
  double forwards = static_cast<double>(c.forwards_per_step());
  double chips = static_cast<double>(topology.num_chips());
  double flops = forwards * static_cast<double>(cost.total_flops().value());
  double weights = 0;
  for (const pir::Value& v : graph->values()) {
    if (v.role == pir::ValueRole::kParameter) weights += static_cast<double>(v.type.NumBytes());
  }
  double compute = flops / (chips * topology.chip.bf16.value());
  double memory = topology.chip.hbm_bw.value() > 0 ? forwards * weights / (chips * topology.chip.hbm_bw.value()) : 0;
  return std::max(compute, memory);
}

double TrainRooflineBound(const zoo::ModelConfig& config, const hw::Topology& topology, const TrainPlanOptions& train) {
  zoo::ModelConfig c = config;
  c.depth_units = 0;
  zoo::TrainOptions options;
  options.micro_batch = train.micro_batch;
  options.adamw = train.adamw;
  auto graph = zoo::BuildTrainStep(c, options);  // remat none: the fewest FLOPs
  if (!graph.ok()) return 0;
  pir::OpCost cost = pir::ComputeGraphCost(*graph);
  double chips = static_cast<double>(topology.num_chips());
  double weights = 0, state = 0;
  for (const pir::Value& v : graph->values()) {
    if (v.role == pir::ValueRole::kParameter) weights += static_cast<double>(v.type.NumBytes());
    if (v.role == pir::ValueRole::kOptimizerState) state += static_cast<double>(v.type.NumBytes());
  }
  // Weights read by the forward and the backward, then read and written by
  // the update; gradients (the weights' size) written and read; master
  // weights and moments read and written.
  double bytes = 4 * weights + 2 * weights + 2 * state;
  double compute = static_cast<double>(cost.total_flops().value()) / (chips * topology.chip.bf16.value());
  double memory = topology.chip.hbm_bw.value() > 0 ? bytes / (chips * topology.chip.hbm_bw.value()) : 0;
  return std::max(compute, memory);
}

namespace {

// Why no training expert was priced: MaxDiffusion's recipes need the batch
// over the FSDP axis (FSDP alone: the micro-batch divisible by the chips) and
// no tensor parallelism.
std::string NoTrainExpertNote(const std::vector<Combo>& combos, int64_t chips, int64_t micro_batch) {
  for (const Combo& c : combos) {
    if (TrainExpert(c, chips)) return "no FSDP or FSDP x context-parallel configuration fits or compiles";
  }
  return "MaxDiffusion's FSDP recipes need the micro-batch (" + std::to_string(micro_batch) +
         ") split over the data axis and the rest of the " + std::to_string(chips) +
         " chips on context parallelism; none is among the configurations priced";
}

// Why no expert configuration was priced: the deployed code's split rule
// (with the most chips it would run on), or that none fit or compiled.
std::string NoExpertNote(const zoo::ModelConfig& config, const std::vector<Combo>& combos, int64_t chips) {
  Status refused = Status::Ok();
  bool any_expert = false;
  for (const Combo& c : combos) {
    if (!ExpertDegrees(config, c)) continue;
    any_expert = true;
    Status split = zoo::DeployedSequenceSplit(config, c.ulysses * c.ring);
    if (!split.ok()) {
      if (refused.ok()) refused = split;
    } else {
      return "no expert configuration fits or compiles";
    }
  }
  if (!any_expert) {
    const zoo::DeployedDegrees offered = zoo::DeployedParallelism(config);
    return "no configuration priced uses only the degrees " + config.model + "'s deployed code offers (Ulysses, Ring" +
           (offered.cfg ? ", CFG" : "") + (offered.tp ? ", TP" : "") + "; no data parallelism)";
  }
  // Every expert combination was refused: the largest chip count the code
  // runs on (CFG 2 x ring sp, or ring sp alone; ring takes any head count).
  const bool has_cfg = config.cfg != zoo::CfgMode::kNone && zoo::DeployedParallelism(config).cfg;
  for (int64_t k = chips - 1; k >= 1; --k) {
    for (int64_t cfg : {int64_t{2}, int64_t{1}}) {
      if ((cfg == 2 && !has_cfg) || k % cfg != 0) continue;
      if (!zoo::DeployedSequenceSplit(config, k / cfg).ok()) continue;
      Combo c;
      c.cfg = cfg;
      c.ring = k / cfg;
      return refused.message() + ": the deployed code runs on at most " + std::to_string(k) + " of the " +
             std::to_string(chips) + " chips (e.g. " + c.ToString() + "; plan on " + std::to_string(k) +
             " chips to price it)";
    }
  }
  return refused.message();
}

}  // namespace

// Stage 1: every combination scored on truncated compiles; the feasible top K
// and the expert combinations survive.
// Training: a combination without a pinned remat is scored under none, then
// selected, and keeps the first whose peak fits (recomputation only adds work);
// else it is scored under offload and full and keeps the cheaper that fits,
// or the one with the lower peak when neither does. Offload recomputes less
// than full (the attentions are kept) but pays its host transfers where the
// compute does not hide them, so neither is always faster. Its combo records
// the choice.
Status ScoreAndSelect(const zoo::ModelConfig& config, std::vector<Combo>& combos, const hw::Topology& topology,
                      const PlanOptions& options, int64_t chips, std::vector<int>& survivors, std::vector<int>& expert,
                      double& frugal_peak, Status& first_error) {
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  std::vector<Stage1> scores(combos.size());
  const double hbm = static_cast<double>(topology.chip.hbm.value());
  say("stage 1: scoring " + std::to_string(combos.size()) + " configurations on truncated " +
      (options.train ? "training steps" : "models"));
  ParallelFor(static_cast<int>(combos.size()), options.threads, [&](int i) {
    Combo& combo = combos[static_cast<size_t>(i)];
    Stage1& score = scores[static_cast<size_t>(i)];
    if (!options.train || combo.remat) {
      score = ScoreCombo(config, combo, topology, options);
      return;
    }
    for (pir::RematPolicy remat : {pir::RematPolicy::kNone, pir::RematPolicy::kSelected}) {
      Combo trial = combo;
      trial.remat = remat;
      score = ScoreCombo(config, trial, topology, options);
      combo.remat = remat;
      if (!score.status.ok() || score.peak_memory <= hbm) return;
    }
    Combo offload = combo, full = combo;
    offload.remat = pir::RematPolicy::kOffload;
    full.remat = pir::RematPolicy::kFull;
    Stage1 offloaded = ScoreCombo(config, offload, topology, options);
    Stage1 recomputed = ScoreCombo(config, full, topology, options);
    auto better = [&](const Stage1& a, const Stage1& b) {  // a over b
      if (!a.status.ok() || !b.status.ok()) return a.status.ok();
      const bool a_fits = a.peak_memory <= hbm, b_fits = b.peak_memory <= hbm;
      if (a_fits != b_fits) return a_fits;
      return a_fits ? a.score < b.score : a.peak_memory < b.peak_memory;
    };
    const bool take_offload = better(offloaded, recomputed);
    score = take_offload ? offloaded : recomputed;
    combo.remat = take_offload ? pir::RematPolicy::kOffload : pir::RematPolicy::kFull;
  });
  std::vector<int> feasible;
  for (size_t i = 0; i < combos.size(); ++i) {
    const Stage1& s = scores[i];
    if (!s.status.ok()) {
      if (first_error.ok()) first_error = s.status;
      continue;
    }
    frugal_peak = std::min(frugal_peak, s.peak_memory);
    if (s.peak_memory <= hbm) feasible.push_back(static_cast<int>(i));
  }
  if (feasible.empty()) {
    if (!std::isfinite(frugal_peak)) return first_error;
    return ResourceExhausted(config.model + " at " + std::to_string(config.width) + "x" +
                             std::to_string(config.height) + "x" + std::to_string(config.frames) +
                             (options.train ? " (a training step of " + std::to_string(options.train->micro_batch) +
                                                  " samples, remat offload or full at most)"
                                            : std::string()) +
                             " does not fit " + topology.name + ": the most frugal configuration needs about " +
                             FormatBytes(Bytes(static_cast<int64_t>(frugal_peak))) + " per chip" +
                             (config.experts > 1 ? " with one of its " + std::to_string(config.experts) +
                                                       " experts resident (neither holding them all nor swapping fits)"
                                                 : std::string()) +
                             ", the chip has " +
                             FormatBytes(topology.chip.hbm) + "; the smallest slice that would fit: " +
                             SmallestSliceHint(topology, frugal_peak, chips));
  }
  std::stable_sort(feasible.begin(), feasible.end(), [&](int a, int b) {
    if (scores[static_cast<size_t>(a)].score != scores[static_cast<size_t>(b)].score) {
      return scores[static_cast<size_t>(a)].score < scores[static_cast<size_t>(b)].score;
    }
    return combos[static_cast<size_t>(a)].ToString() < combos[static_cast<size_t>(b)].ToString();
  });
  // Survivors: the top K, and the expert combinations (FSDP only when the
  // plain one does not fit).
  for (int i : feasible) {
    if (static_cast<int>(survivors.size()) < std::max(1, options.top_k)) survivors.push_back(i);
  }
  for (int i : feasible) {
    const Combo& c = combos[static_cast<size_t>(i)];
    if (options.train) {
      if (!TrainExpert(c, chips)) continue;
    } else if (!RunsAsExpert(config, c)) {
      continue;
    }
    if (c.fsdp > 0 && !options.train) {
      Combo plain = c;
      plain.fsdp = 0;
      bool plain_fits = false;
      for (int j : feasible) plain_fits |= combos[static_cast<size_t>(j)] == plain;
      if (plain_fits) continue;
    }
    expert.push_back(i);
    if (std::find(survivors.begin(), survivors.end(), i) == survivors.end()) survivors.push_back(i);
  }
  return Status::Ok();
}

StatusOr<Plan> MakePlan(const zoo::ModelConfig& model_config, const hw::Topology& topology,
                        const PlanOptions& plan_options) {
  const Clock::time_point start = Clock::now();
  auto say = [&](const std::string& line) {
    if (plan_options.progress) plan_options.progress(line);
  };
  const int64_t chips = topology.num_chips();
  PlanOptions options = plan_options;
  zoo::ModelConfig config = model_config;
  if (options.train) {
    if (config.program) {
      return InvalidArgument("'" + config.model + "' is an imported program: training steps are built for zoo models");
    }
    if (!options.hlo_dir.empty()) {
      return InvalidArgument("--compiler xla prices inference candidates; a training plan uses the built-in compiler");
    }
    if (options.train->micro_batch == 0) options.train->micro_batch = chips;
    // The step's own batch and no CFG (zoo.h: BuildTrainStep); a model with
    // several denoising experts trains one of them per run.
    config.batch = options.train->micro_batch;
    config.cfg = zoo::CfgMode::kNone;
    config.experts = 1;
  }
  for (const hw::Node& node : topology.nodes) {
    if (node.kind == hw::NodeKind::kChip && node.failed) {
      return InvalidArgument("topology '" + topology.name +
                             "' has a failed chip; the planner needs every chip (plan on the smaller slice)");
    }
  }
  // The stack scales the attention efficiency of every configuration and
  // baseline alike (not the other stages: below); the chip's reference
  // library leaves it untouched.
  AZ_ASSIGN_OR_RETURN(StackChoice stack, ChooseStack(config, topology.chip, options.train.has_value(), options.stack));
  AZ_RETURN_IF_ERROR(price::ApplySoftwareStack(topology.chip, stack.stack, &options.calibration.compute));
  // A chip the compute model cannot price fails here, before any work.
  AZ_RETURN_IF_ERROR(price::ComputeModel::Create(topology.chip, options.calibration.compute).status());
  AZ_ASSIGN_OR_RETURN(int64_t heads, AttentionHeads(config));

  std::vector<Combo> combos;
  if (!options.pinned.empty()) {
    AZ_ASSIGN_OR_RETURN(Combo pinned, ParseCombo(options.pinned, chips));
    if (pinned.remat && !options.train) {
      return InvalidArgument("--template '" + options.pinned + "': remat applies to training steps (--train)");
    }
    if (options.train) {
      if (pinned.cfg > 1) {
        return InvalidArgument("--template '" + options.pinned + "': a training step runs one forward, no CFG");
      }
      if (options.train->micro_batch % pinned.dp != 0) {
        return InvalidArgument("--template '" + options.pinned + "': dp=" + std::to_string(pinned.dp) +
                               " does not divide the micro-batch of " + std::to_string(options.train->micro_batch) +
                               " samples");
      }
      if (!pinned.remat) pinned.remat = options.train->remat;
    }
    combos.push_back(pinned);
  } else if (options.train) {
    combos = EnumerateTrainCombos(chips, heads, options.train->micro_batch);
    for (Combo& c : combos) c.remat = options.train->remat;
    if (combos.empty()) {
      return InvalidArgument("no parallel configuration of a " + config.model + " training step fits " +
                             std::to_string(chips) + " chips (the head count " + std::to_string(heads) +
                             " and the micro-batch " + std::to_string(options.train->micro_batch) + " constrain them)");
    }
  } else {
    combos = EnumerateCombos(config, chips, heads);
    if (combos.empty() && heads == 0) {
      return InvalidArgument("no parallel configuration of " + config.model + " fits " + std::to_string(chips) +
                             " chips: the program has no attention, so only its batch (" +
                             std::to_string(config.batch) + ") can be split, and " + std::to_string(chips) +
                             " does not divide it (compile it with --template annotated to price its own shardings)");
    }
    if (combos.empty()) {
      return InvalidArgument("no parallel configuration of " + config.model + " fits " + std::to_string(chips) +
                             " chips (the head count " + std::to_string(heads) + " and the batch constrain them)");
    }
  }
  Plan plan;
  plan.model = config.model;
  if (config.program) plan.program_format = config.program->attrs().GetString("format").value_or("imported");
  plan.width = config.width;
  plan.height = config.height;
  plan.frames = config.frames;
  plan.steps = config.steps;
  plan.batch = config.batch;
  if (config.experts > 1) plan.expert_switch_step = config.expert_switch_step;
  plan.cfg_mode = std::string(zoo::CfgModeName(config.cfg));
  plan.train = options.train.has_value();
  plan.topology = topology.name;
  plan.chip = topology.chip.name;
  plan.tpu = topology.chip.family == hw::ChipFamily::kTpu;
  plan.hbm_bytes = topology.chip.hbm.value();
  plan.seed = options.seed;
  plan.stack = price::StackName(stack.stack);
  plan.stack_reason = stack.reason;
  plan.attention_efficiency = options.calibration.compute.attention_efficiency;
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    const hw::Node& node = topology.nodes[static_cast<size_t>(chip)];
    plan.chips.push_back({chip, node.name, node.coords});
  }
  plan.candidates_considered = static_cast<int>(combos.size());
  {
    std::vector<std::string> meshes;
    for (const Combo& c : combos) meshes.push_back(c.MeshText());
    std::sort(meshes.begin(), meshes.end());
    plan.meshes_considered = static_cast<int>(std::unique(meshes.begin(), meshes.end()) - meshes.begin());
  }

  double frugal_peak = std::numeric_limits<double>::infinity();
  Status first_error = Status::Ok();
  std::vector<int> survivors, expert;
  if (!options.hlo_dir.empty()) {
    // --compiler xla: every candidate XLA compiled is priced in full.
    for (size_t i = 0; i < combos.size(); ++i) {
      if (!std::filesystem::is_regular_file(HloPath(options.hlo_dir, combos[i]))) continue;
      survivors.push_back(static_cast<int>(i));
      if (RunsAsExpert(config, combos[i])) expert.push_back(static_cast<int>(i));
    }
    if (survivors.empty()) {
      return NotFound("no candidate's HLO dump in '" + options.hlo_dir + "' (looked for <id>.hlo among " +
                      std::to_string(combos.size()) + " candidates, e.g. " + combos.front().Id() +
                      ".hlo): write the candidates with `aoizora plan --emit-candidates FILE` and compile them with "
                      "python/aoizora_jax/compile_candidates.py (docs/jax-loop.md)");
    }
    say("xla: " + std::to_string(survivors.size()) + " of " + std::to_string(combos.size()) +
        " candidates have an HLO dump in " + options.hlo_dir);
  } else {
    AZ_RETURN_IF_ERROR(ScoreAndSelect(config, combos, topology, options, chips, survivors, expert, frugal_peak,
                                      first_error));
  }
  plan.candidates_compiled = static_cast<int>(survivors.size());

  // Stage 2: a short placement search per survivor.
  say("stage 2: compiling and placing " + std::to_string(survivors.size()) + " survivors (" +
      std::to_string(expert.size()) + " expert)");
  place::PlaceOptions quick;
  quick.seed = options.seed;
  quick.restarts = 1;
  quick.moves = 4000;
  std::vector<Priced> priced(survivors.size());
  ParallelFor(static_cast<int>(survivors.size()), options.threads, [&](int k) {
    priced[static_cast<size_t>(k)] = PriceCombo(config, combos[static_cast<size_t>(survivors[static_cast<size_t>(k)])],
                                                topology, options, options.search_placement, quick);
  });
  const Priced* best = nullptr;
  const Priced* best_expert = nullptr;
  for (size_t k = 0; k < priced.size(); ++k) {
    const Priced& p = priced[k];
    if (!p.warning.empty()) say("warning: " + p.warning);
    if (!p.status.ok()) {
      if (first_error.ok()) first_error = p.status;
      continue;
    }
    if (!p.fits) continue;
    bool is_expert = std::find(expert.begin(), expert.end(), survivors[k]) != expert.end();
    auto better = [](const Priced* a, double la, const Priced& b, double lb) {
      return !a || lb < la || (lb == la && b.combo.ToString() < a->combo.ToString());
    };
    if (better(best, best ? best->best_latency : 0, p, p.best_latency)) best = &p;
    if (is_expert && better(best_expert, best_expert ? best_expert->default_latency : 0, p, p.default_latency)) {
      best_expert = &p;
    }
  }
  if (!best) {
    if (!first_error.ok()) return first_error;
    if (!std::isfinite(frugal_peak)) {
      return ResourceExhausted("no compiled program fits " + topology.name + ": every one needs more than " +
                               FormatBytes(topology.chip.hbm) + " per chip");
    }
    return ResourceExhausted(config.model + " does not fit " + topology.name +
                             " once compiled in full (every survivor's peak exceeds " + FormatBytes(topology.chip.hbm) +
                             "); the smallest slice that would fit: " + SmallestSliceHint(topology, frugal_peak, chips));
  }

  // The full placement search for the winner.
  Priced winner = *best;
  if (options.search_placement && !winner.exhaustive) {
    say("placement: longer search for " + winner.combo.ToString());
    // Shorter than `aoizora place`'s default (4 x max(20,000, 2,000 x chips)
    // moves): the structured candidates and the quick search already ran.
    place::PlaceOptions full;
    full.seed = options.seed;
    full.restarts = 3;
    full.moves = std::max<int64_t>(8000, 1000 * chips);
    winner = PriceCombo(config, winner.combo, topology, options, true, full, &best->compiled);
    AZ_RETURN_IF_ERROR(winner.status);
    if (winner.best_latency > best->best_latency) winner = *best;  // never worse than the quick search
  }

  // Alpa.
  std::optional<Priced> alpa;
  if (!options.hlo_dir.empty()) {
    plan.alpa_note = "not run: --compiler xla prices the programs XLA compiled, and Alpa's are not among them";
  } else if (options.alpa && options.pinned.empty()) {
    say("alpa: solving the ILP on the 1D and 2D meshes");
    AZ_ASSIGN_OR_RETURN(alpa, RunAlpa(config, topology, options, &plan.alpa_note));
  } else {
    plan.alpa_note = options.alpa ? "not run: the sharding is pinned (--template)" : "not run (--no-alpa)";
  }

  // An imported program's own shardings.
  std::optional<Priced> annotated;
  if (config.program) {
    say("annotated: pricing the program's own shardings");
    annotated = PriceAnnotated(config, topology, options, &plan.annotated_note);
  }

  // The plan: the fastest of everything priced.
  say("emitting the plan");
  plan.best = MakeConfiguration("aoizora", winner.combo.ToString(), winner, true);
  if (best_expert) {
    plan.expert = MakeConfiguration(
        "expert", (options.train ? "MaxDiffusion " : "xDiT ") + best_expert->combo.ToString(), *best_expert, false);
  } else {
    // Kept equal to the best so that code reading plan.expert stays safe;
    // has_expert tells the emitters there is none.
    plan.expert = plan.best;
    plan.expert.label = "expert";
    plan.has_expert = false;
    plan.expert_note = options.train ? NoTrainExpertNote(combos, chips, options.train->micro_batch)
                                     : NoExpertNote(config, combos, chips);
    say("expert: none: " + plan.expert_note);
  }
  if (alpa) {
    plan.has_alpa = true;
    plan.alpa = MakeConfiguration("alpa", "Alpa ILP on mesh " + alpa->compiled.mesh.ToString(), *alpa, false);
    plan.alpa.sharding = "alpa";
    plan.alpa.expressible_in_xdit = false;
    plan.alpa.axis_roles.clear();
    plan.alpa.ulysses = plan.alpa.ring = plan.alpa.cfg = plan.alpa.tp = plan.alpa.dp = 1;
    plan.alpa.fsdp = 0;
  }
  // Baselines are candidates too.
  const Priced* best_priced = &winner;
  if (best_expert && plan.expert.step_latency_s < plan.best.step_latency_s) {
    plan.best = plan.expert;
    plan.best.label = "aoizora";
    best_priced = best_expert;
  }
  if (alpa && plan.alpa.step_latency_s < plan.best.step_latency_s) {
    plan.best = plan.alpa;
    plan.best.label = "aoizora";
    best_priced = &*alpa;
  }
  if (annotated) {
    plan.has_annotated = true;
    plan.annotated = MakeConfiguration("annotated", plan.annotated_note + " on mesh " +
                                       annotated->compiled.mesh.ToString(), *annotated, false);
    plan.annotated.sharding = "annotated";
    plan.annotated.expressible_in_xdit = false;
    plan.annotated.axis_roles.clear();
    plan.annotated.ulysses = plan.annotated.ring = plan.annotated.cfg = plan.annotated.tp = plan.annotated.dp = 1;
    plan.annotated.fsdp = 0;
    if (annotated->fits && plan.annotated.step_latency_s < plan.best.step_latency_s) {
      plan.best = plan.annotated;
      plan.best.label = "aoizora";
      best_priced = &*annotated;
    }
  }
  AZ_RETURN_IF_ERROR(Describe(plan.best, *best_priced, topology, options, true));
  if (best_expert) {
    AZ_RETURN_IF_ERROR(Describe(plan.expert, *best_expert, topology, options, false));
  } else {
    plan.expert.breakdown = plan.best.breakdown;
  }
  if (alpa) AZ_RETURN_IF_ERROR(Describe(plan.alpa, *alpa, topology, options, false));
  if (annotated) AZ_RETURN_IF_ERROR(Describe(plan.annotated, *annotated, topology, options, false));

  // The xDiT form of a configuration may still be one the model's deployed
  // code refuses (AoiZora's compiled program pads where that code would not).
  for (Configuration* c : {&plan.best, &plan.expert}) {
    if (!c->expressible_in_xdit) continue;
    Status split = zoo::DeployedSequenceSplit(config, int64_t{c->ulysses} * c->ring);
    if (!split.ok()) c->xdit_refused = split.message();
  }

  if (options.train) {
    plan.samples_per_s = plan.best.step_latency_s > 0
                             ? static_cast<double>(options.train->micro_batch) / plan.best.step_latency_s
                             : 0;
    plan.roofline_bound_s = TrainRooflineBound(config, topology, *options.train);
  } else {
    if (options.stages && !config.program) {
      say("stages: planning the encoders and the VAE with the DiT's weights resident");
      StagePlanOptions stage_options;
      // The stack is the DiT's attention library; the other stages keep the
      // chip's reference calibration: their attention is not the DiT's call
      // (Wan's VAE calls torch SDPA, umT5 its own einsum attention).
      stage_options.calibration = plan_options.calibration;
      // Between denoising runs the DiT's activations are freed; its weights
      // stay (and may be evicted to the host as a priced last resort).
      stage_options.resident_bytes_per_chip = plan.best.parameter_bytes;
      stage_options.dit_parameter_bytes_per_chip = plan.best.parameter_bytes;
      stage_options.threads = options.threads;
      stage_options.seed = options.seed;
      stage_options.progress = options.progress;
      AZ_ASSIGN_OR_RETURN(plan.stages, PlanStages(config, topology, stage_options));
      for (const StagePlan& stage : plan.stages) plan.stages_latency_s += stage.latency_s;
    }
    plan.video_latency_s =
        plan.stages_latency_s + static_cast<double>(config.steps) * plan.best.step_latency_s;
    plan.roofline_bound_s = RooflineBound(config, topology);
  }
  plan.efficiency = plan.best.step_latency_s > 0 ? plan.roofline_bound_s / plan.best.step_latency_s : 0;
  plan.plan_time_s = SecondsSince(start);
  return plan;
}

}  // namespace az::search
