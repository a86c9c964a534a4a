// The alpa and annotated sources (sources.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "net/collective.h"
#include "place/default_placement.h"
#include "search/alpa.h"
#include "search/sources.h"
#include "support/parallel.h"
#include "shard/propagation.h"
#include "shard/templates.h"

namespace az::search {

namespace {

void Say(const SearchContext& ctx, const std::string& line) {
  if (ctx.options.progress) ctx.options.progress(line);
}

std::vector<int64_t> Shape(const shard::Mesh& mesh) {
  std::vector<int64_t> shape;
  for (int a = 0; a < mesh.num_axes(); ++a) shape.push_back(mesh.axis_size(a));
  return shape;
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

// The ILP on every 1D and 2D mesh, the lowest objective evaluated under the
// default placement. The ILP's memory row is an estimate (no liveness); when
// the compiled pick peaks over HBM, the limit is cut by the measured
// overshoot and the ILP solved again (3 tries). A tighter limit only removes
// choices, so a mesh whose last optimum still fits under it keeps that
// optimum without a new solve, and when the pick's own choice still fits,
// the pick cannot change (every other mesh can only get costlier): the tries
// stop there, since another would compile the same program. For the same
// reason a mesh's last proven optimum bounds its objective from below on the
// next try: a retry solves the meshes from the lowest bound up and skips
// those whose bound cannot beat the best found (nor tie it from earlier in
// the mesh order, which would win the tie), so it picks what solving them
// all would. Meshes without a bound (all of them on the first try) are
// solved on `threads` threads at once; each solve is deterministic and the
// results are read in mesh order. nullopt, with the
// reason in *note, when nothing fits. *caveat: "" when the pick is a proven
// optimum and no mesh was cut short by a solver limit; else what was (the
// pick's best-found gap, the meshes a budget left unsolved), for the plan's
// description of the baseline.
StatusOr<std::optional<Evaluated>> RunAlpaOnce(const SearchContext& ctx, const Combo& combo, std::string* note,
                                               std::string* caveat) {
  const hw::Topology& topology = *ctx.topology;
  const PlanOptions& options = ctx.options;
  const int64_t chips = topology.num_chips();
  std::vector<shard::Mesh> meshes;
  AZ_ASSIGN_OR_RETURN(shard::Mesh flat, shard::Mesh::Parse("a=" + std::to_string(chips)));
  meshes.push_back(flat);
  for (int64_t a = 2; a < chips; ++a) {
    if (chips % a != 0) continue;
    AZ_ASSIGN_OR_RETURN(shard::Mesh mesh,
                        shard::Mesh::Parse("a=" + std::to_string(a) + ",b=" + std::to_string(chips / a)));
    meshes.push_back(mesh);
  }
  const size_t count = meshes.size();
  AZ_ASSIGN_OR_RETURN(std::shared_ptr<const pir::Graph> graph, ctx.programs->Get(ctx.config, combo, options));
  AZ_ASSIGN_OR_RETURN(price::ComputeModel compute,
                      price::ComputeModel::Create(topology.chip, options.calibration.compute));
  const double hbm = static_cast<double>(topology.chip.hbm.value());
  double limit = hbm;
  // By mesh: the last solve's optimum, reused while it fits the limit, and a
  // lower bound on its objective under the current limit (-inf: none known).
  std::vector<std::optional<AlpaResult>> solved(count);
  std::vector<double> bound(count, -std::numeric_limits<double>::infinity());
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<std::string> cut_short(count);  // by mesh: why a solver limit left it without a solution
    std::vector<size_t> to_solve;
    for (size_t m = 0; m < count; ++m) {
      std::optional<AlpaResult>& kept = solved[m];
      if (kept && kept->optimal() && kept->memory_bytes <= limit) continue;  // still the optimum
      if (kept && kept->optimal()) bound[m] = kept->objective_s;             // over the limit now: a bound
      kept.reset();
      to_solve.push_back(m);
    }
    // Lowest bound first (ties in mesh order), so that the best found early
    // prunes the rest.
    std::stable_sort(to_solve.begin(), to_solve.end(), [&](size_t x, size_t y) { return bound[x] < bound[y]; });
    // The best so far over the meshes that have a solution: objective, mesh.
    auto best = [&]() -> std::pair<double, size_t> {
      std::pair<double, size_t> b = {std::numeric_limits<double>::infinity(), count};
      for (size_t m = 0; m < count; ++m) {
        if (solved[m] && solved[m]->objective_s < b.first) b = {solved[m]->objective_s, m};
      }
      return b;
    };
    for (size_t next = 0; next < to_solve.size();) {
      // The meshes with no bound together (the first try: all of them), then
      // one at a time, so that each solve can prune the next.
      std::vector<size_t> batch;
      const auto [best_objective, best_mesh] = best();
      for (; next < to_solve.size(); ++next) {
        const size_t m = to_solve[next];
        const bool unbounded = std::isinf(bound[m]);
        if (!batch.empty() && !(unbounded && std::isinf(bound[batch.back()]))) break;
        if (bound[m] == std::numeric_limits<double>::infinity() || bound[m] > best_objective ||
            (bound[m] == best_objective && m > best_mesh)) {
          continue;  // cannot win
        }
        batch.push_back(m);
      }
      std::vector<std::optional<StatusOr<AlpaResult>>> results(batch.size());
      std::vector<Status> setup(batch.size());
      ParallelFor(static_cast<int>(batch.size()), options.threads, [&](int i) {
        const shard::Mesh& mesh = meshes[batch[static_cast<size_t>(i)]];
        std::string method;
        StatusOr<net::Placement> placement = place::DefaultPlacementFor(topology, Shape(mesh), &method);
        if (!placement.ok()) {
          setup[static_cast<size_t>(i)] = placement.status();
          return;
        }
        AlpaOptions alpa_options;
        alpa_options.axis_costs = FitAxisCosts(mesh, *placement, topology, options.calibration.network);
        alpa_options.flop_rate = compute.peak().value() * options.calibration.compute.matmul_efficiency;
        alpa_options.memory_limit_bytes = static_cast<int64_t>(limit);
        results[static_cast<size_t>(i)] = SolveAlpa(*graph, mesh, alpa_options);
      });
      for (size_t i = 0; i < batch.size(); ++i) {
        AZ_RETURN_IF_ERROR(setup[i]);
        const size_t m = batch[i];
        const std::string text = meshes[m].ToString();
        StatusOr<AlpaResult>& result = *results[i];
        if (!result.ok()) {
          Say(ctx, "alpa: mesh " + text + ": " + result.status().message());
          if (note->empty()) *note = "mesh " + text + ": " + result.status().message();
          if (result.status().code() == StatusCode::kFailedPrecondition) {
            cut_short[m] = "mesh " + text + " unsolved: " + result.status().message();
          }
          // Its smallest footprint is over the limit: over any tighter one too.
          if (result.status().code() == StatusCode::kResourceExhausted) {
            bound[m] = std::numeric_limits<double>::infinity();
          }
          continue;
        }
        char line[320];
        std::snprintf(line, sizeof line,
                      "alpa: mesh %s: %d nodes, %d strategies; built in %.2f s, solved in %.2f s (%s)", text.c_str(),
                      result->nodes, result->strategies, result->build_time_s, result->solve_time_s,
                      result->solve_note.c_str());
        Say(ctx, line);
        solved[m] = std::move(*result);
      }
    }
    const auto [objective, picked_mesh] = best();
    if (picked_mesh == count) {
      if (note->empty()) *note = "the ILP found no feasible sharding";
      return std::optional<Evaluated>();
    }
    const AlpaResult& picked = *solved[picked_mesh];
    Candidate pick;
    pick.step = StepOf(ctx.config);
    pick.program = graph;
    pick.strategy.combo = combo;
    pick.mesh = meshes[picked_mesh];
    pick.strategy.seeds = picked.seeds;
    StatusOr<Compiled> compiled = Compile(pick, ctx.evaluate);
    if (!compiled.ok()) {
      *note = "the ILP's pick does not compile: " + compiled.status().message();
      return std::optional<Evaluated>();
    }
    double peak = static_cast<double>(compiled->evidence.peak_memory.value());
    if (peak > hbm) {
      *note = "the ILP's pick peaks at " + FormatBytes(compiled->evidence.peak_memory) + " once compiled, over " +
              FormatBytes(topology.chip.hbm) + " (after " + std::to_string(attempt + 1) + " tries)";
      limit *= 0.95 * hbm / peak;
      if (picked.optimal() && picked.memory_bytes <= limit) {
        Say(ctx, "alpa: the pick on mesh " + pick.mesh.ToString() + " still fits the tightened ILP limit of " +
                     FormatBytes(Bytes(static_cast<int64_t>(limit))) + ": no other try would change it");
        *note += "; a tighter ILP memory limit leaves it unchanged";
        break;
      }
      continue;
    }
    Evaluated e = Price(std::move(*compiled), topology, options.calibration, PlacementPolicy{});
    AZ_RETURN_IF_ERROR(e.status);
    note->clear();
    caveat->clear();
    if (!picked.optimal()) *caveat = picked.solve_note;
    for (const std::string& cut : cut_short) {
      if (!cut.empty()) *caveat += (caveat->empty() ? "" : "; ") + cut;
    }
    return std::optional<Evaluated>(std::move(e));
  }
  return std::optional<Evaluated>();
}

class Alpa : public Source {
 public:
  std::string label() const override { return "alpa"; }

  // On the inference forward, or on the training step with the cheapest remat
  // whose compiled pick fits (none, selected, offload, full; or the pinned one).
  StatusOr<Pick> Choose(const SearchContext& ctx) const override {
    Pick pick;
    if (!ctx.options.hlo_dir.empty()) {
      pick.note = "not run: --compiler xla prices the programs XLA compiled, and Alpa's are not among them";
      return pick;
    }
    if (!ctx.options.alpa || !ctx.options.pinned.empty()) {
      pick.note = ctx.options.alpa ? "not run: the sharding is pinned (--template)" : "not run (--no-alpa)";
      return pick;
    }
    Say(ctx, "alpa: solving the ILP on the 1D and 2D meshes");
    std::vector<std::optional<pir::RematPolicy>> remats = {std::nullopt};
    if (ctx.options.train) {
      remats.clear();
      if (ctx.options.train->remat) {
        remats.push_back(ctx.options.train->remat);
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
      pick.note.clear();
      std::string caveat;
      AZ_ASSIGN_OR_RETURN(pick.evaluated, RunAlpaOnce(ctx, combo, &pick.note, &caveat));
      if (pick.evaluated) {
        pick.sharding = "alpa";
        pick.description = "Alpa ILP on mesh " + pick.evaluated->compiled.candidate.mesh.ToString();
        if (!caveat.empty()) pick.description += " (" + caveat + ")";
        return pick;
      }
      if (remat) pick.note += " (remat " + std::string(pir::RematPolicyName(*remat)) + ")";
    }
    return pick;
  }
};

// An imported program priced under the shardings written in it (shard::
// AnnotatedSeeds) on the mesh it declares, with the default placement: the
// user's own plan, as a baseline. None, with the reason, when the program
// carries none or its mesh is not the slice's size.
class Annotated : public Source {
 public:
  std::string label() const override { return "annotated"; }

  StatusOr<Pick> Choose(const SearchContext& ctx) const override {
    Pick pick;
    if (!ctx.config.imported()) return pick;  // a zoo model: nothing written in it
    Say(ctx, "annotated: pricing the program's own shardings");
    const hw::Topology& topology = *ctx.topology;
    const pir::Graph& graph = *ctx.config.program;
    bool annotated = std::any_of(graph.values().begin(), graph.values().end(),
                                 [](const pir::Value& v) { return v.sharding.has_value(); });
    if (!annotated || graph.meshes().empty()) {
      pick.note = "the program carries no sharding";
      return pick;
    }
    const pir::Mesh& own = graph.meshes().front();
    Candidate c;
    c.step = StepOf(ctx.config);
    c.program = ctx.config.program;
    for (const auto& [name, size] : own.axes) c.mesh.axes.push_back({name, size});
    if (c.mesh.num_devices() != topology.num_chips()) {
      pick.note = "the program's mesh @" + own.name + " (" + c.mesh.ToString() + ") has " +
                  std::to_string(c.mesh.num_devices()) + " devices, the slice " + std::to_string(topology.num_chips());
      return pick;
    }
    auto seeds = shard::AnnotatedSeeds(graph, c.mesh);
    if (!seeds.ok()) {
      pick.note = seeds.status().message();
      return pick;
    }
    c.strategy.seeds = *seeds;
    pick.note = "the program's own shardings";
    if (auto sharded = shard::Propagate(graph, c.mesh, *seeds); !sharded.ok()) {
      // A constraint inside the program our rules cannot keep (XLA pads or
      // reshards where our factor rules refuse): the arguments' shardings,
      // then each inner constraint in program order that still propagates.
      shard::Seeds kept;
      std::vector<pir::ValueId> inner;
      for (const auto& [v, s] : seeds->values) {
        if (graph.value(v).role != pir::ValueRole::kActivation) {
          kept.values[v] = s;
        } else {
          inner.push_back(v);
        }
      }
      if (!shard::Propagate(graph, c.mesh, kept).ok()) {
        pick.note = "the program's shardings do not propagate: " + sharded.status().message();
        return pick;
      }
      int dropped = 0;
      for (pir::ValueId v : inner) {
        shard::Seeds trial = kept;
        trial.values[v] = seeds->values.at(v);
        if (!shard::Propagate(graph, c.mesh, trial).ok()) {
          ++dropped;
          continue;
        }
        kept = std::move(trial);
      }
      pick.note = "the program's own shardings, " + std::to_string(dropped) + " of its " +
                  std::to_string(inner.size()) + " inner constraints dropped (they do not propagate under our rules)";
      c.strategy.seeds = std::move(kept);
    }
    StatusOr<Compiled> compiled = Compile(c, EvaluateOptions{ctx.evaluate.calibration, ""});
    if (!compiled.ok()) {
      pick.note = "the program's shardings do not compile: " + compiled.status().message();
      return pick;
    }
    Evaluated e = Price(std::move(*compiled), topology, ctx.options.calibration, PlacementPolicy{});
    if (!e.status.ok()) {
      pick.note = e.status.message();
      return pick;
    }
    pick.sharding = "annotated";
    pick.description = pick.note + " on mesh " + c.mesh.ToString();
    pick.evaluated = std::move(e);
    return pick;
  }
};

}  // namespace

std::unique_ptr<Source> AlpaSource() { return std::make_unique<Alpa>(); }
std::unique_ptr<Source> AnnotatedSource() { return std::make_unique<Annotated>(); }

}  // namespace az::search
