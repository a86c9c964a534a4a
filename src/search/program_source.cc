// The program source (program_source.h).
#include "search/program_source.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "pir/rules/rule.h"
#include "support/parallel.h"

namespace az::search {

namespace {

void Say(const SearchContext& ctx, const std::string& line) {
  if (ctx.options.progress) ctx.options.progress(line);
}

// A linear: an einsum with one rank-2 operand laid out from a parameter (the
// weight); returns the weight's operand index, or -1.
int WeightIndex(const pir::Graph& graph, const pir::Op& op) {
  if (op.kind != pir::OpKind::kEinsum || op.operands.size() < 2) return -1;
  // A parameter, through the reshapes, transposes and converts that lay it out.
  auto from_parameter = [&](pir::ValueId v) {
    for (int hops = 0; hops < 8; ++hops) {
      const pir::Value& value = graph.value(v);
      if (value.role == pir::ValueRole::kParameter) return true;
      if (value.producer == pir::kNoOp) return false;
      const pir::Op& p = graph.op(value.producer);
      if (p.kind != pir::OpKind::kReshape && p.kind != pir::OpKind::kTranspose && p.kind != pir::OpKind::kConvert) {
        return false;
      }
      v = p.operands[0];
    }
    return false;
  };
  int found = -1;
  for (int i = 0; i < 2; ++i) {
    const pir::ValueId v = op.operands[static_cast<size_t>(i)];
    if (graph.type(v).rank() == 2 && from_parameter(v)) {
      if (found >= 0) return -1;
      found = i;
    }
  }
  return found;
}

// Megatron's split of every linear: +1 column, -1 row, 0 not a linear.
std::vector<int> MegatronRoles(const pir::Graph& graph) {
  std::vector<int> role(static_cast<size_t>(graph.num_ops()), 0);
  // Per value: whether it descends from a column-parallel linear's output
  // through ops that are not linears.
  std::vector<char> from_column(static_cast<size_t>(graph.num_values()), 0);
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::Op& op = graph.op(id);
    const int w = WeightIndex(graph, op);
    bool tainted = false;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (static_cast<int>(i) != w) tainted |= from_column[static_cast<size_t>(op.operands[i])] != 0;
    }
    if (w >= 0) {
      role[static_cast<size_t>(id)] = tainted ? -1 : 1;
      tainted = !tainted;  // a column output is split; a row output is whole again
    }
    for (pir::ValueId r : op.results) from_column[static_cast<size_t>(r)] = tainted ? 1 : 0;
  }
  return role;
}

// The factor of a linear's weight that Megatron shards: the output factor
// (column) or the contracted one (row); "" when the rule has no such factor.
std::string LinearFactor(const pir::FactorRule& rule, int weight, bool column) {
  for (const auto& dim : rule.operands.at(static_cast<size_t>(weight))) {
    if (dim.size() != 1) continue;
    const pir::Factor& f = rule.factors[static_cast<size_t>(dim[0])];
    if ((f.kind == pir::FactorKind::kReduction) != column) return f.name;
  }
  return "";
}

// The largest activation input (ties: the first): what data parallelism splits.
pir::ValueId DataInput(const pir::Graph& graph) {
  pir::ValueId best = -1;
  for (pir::ValueId v = 0; v < graph.num_values(); ++v) {
    const pir::Value& value = graph.value(v);
    if (value.role != pir::ValueRole::kInput || value.type.rank() < 1) continue;
    if (best < 0 || value.type.NumElements() > graph.type(best).NumElements()) best = v;
  }
  return best;
}

void SeedData(const pir::Graph& graph, pir::ValueId input, int dim, int axis, shard::Seeds& seeds) {
  shard::TensorSharding s = shard::TensorSharding::Replicated(static_cast<int>(graph.type(input).rank()));
  s.dims[static_cast<size_t>(dim)] = {axis};
  seeds.values[input] = s;
}

// Every rank >= 2 parameter not already seeded, stored split over `axis` on
// its largest dim the axis divides; false when none could be.
bool SeedFsdp(const pir::Graph& graph, const shard::Mesh& mesh, int axis, shard::Seeds& seeds) {
  const int64_t n = mesh.axis_size(axis);
  bool any = false;
  for (pir::ValueId v = 0; v < graph.num_values(); ++v) {
    const pir::Value& value = graph.value(v);
    if (value.role != pir::ValueRole::kParameter || value.type.rank() < 2 || seeds.values.count(v)) continue;
    int best = -1;
    for (int d = 0; d < value.type.rank(); ++d) {
      const int64_t size = value.type.shape[static_cast<size_t>(d)];
      if (size % n == 0 && (best < 0 || size > value.type.shape[static_cast<size_t>(best)])) best = d;
    }
    if (best < 0) continue;
    shard::TensorSharding s = shard::TensorSharding::Replicated(static_cast<int>(value.type.rank()));
    s.dims[static_cast<size_t>(best)] = {axis};
    seeds.values[v] = s;
    seeds.storage_only.insert(v);
    any = true;
  }
  return any;
}

// Megatron's seeds on `axis`; false when the program has no linear the axis divides.
StatusOr<bool> SeedMegatron(const pir::Graph& graph, const shard::Mesh& mesh, int axis, shard::Seeds& seeds) {
  const std::vector<int> roles = MegatronRoles(graph);
  bool any = false;
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    if (roles[static_cast<size_t>(id)] == 0) continue;
    const pir::Op& op = graph.op(id);
    AZ_ASSIGN_OR_RETURN(pir::FactorRule rule, pir::BuildFactorRule(graph, op));
    const std::string factor = LinearFactor(rule, WeightIndex(graph, op), roles[static_cast<size_t>(id)] > 0);
    const int f = factor.empty() ? -1 : rule.FindFactor(factor);
    if (f < 0 || rule.factors[static_cast<size_t>(f)].size % mesh.axis_size(axis) != 0) continue;
    seeds.op_factors[id][factor] = {axis};
    any = true;
  }
  return any;
}

}  // namespace

StatusOr<std::vector<ProgramCandidate>> ProgramCandidates(const workload::Workload& config, int64_t chips) {
  std::vector<ProgramCandidate> out;
  if (!config.program) return out;
  AZ_ASSIGN_OR_RETURN(pir::Graph built, config.Forward());
  auto graph = std::make_shared<const pir::Graph>(std::move(built));
  const pir::ValueId input = DataInput(*graph);
  auto add = [&](std::string name, shard::Mesh mesh, shard::Seeds seeds) {
    Candidate c;
    c.program = graph;
    c.mesh = std::move(mesh);
    c.strategy.seeds = std::move(seeds);
    c.step = StepOf(config);
    out.push_back({std::move(name), std::move(c)});
  };
  const std::string n = std::to_string(chips);
  if (chips == 1) {
    AZ_ASSIGN_OR_RETURN(shard::Mesh one, shard::Mesh::Parse("d=1"));
    add("replicated", one, shard::Seeds{});
    return out;
  }
  // Data parallelism (and FSDP) over each dim of the data input the chips divide.
  std::vector<int> data_dims;
  if (input >= 0) {
    for (int d = 0; d < graph->type(input).rank(); ++d) {
      if (chips > 1 && graph->type(input).shape[static_cast<size_t>(d)] % chips == 0) data_dims.push_back(d);
    }
  }
  AZ_ASSIGN_OR_RETURN(shard::Mesh dp_mesh, shard::Mesh::Parse("dp=" + n));
  for (int d : data_dims) {
    shard::Seeds seeds;
    SeedData(*graph, input, d, 0, seeds);
    add("dp(d" + std::to_string(d) + ")=" + n, dp_mesh, seeds);
    if (SeedFsdp(*graph, dp_mesh, 0, seeds)) add("fsdp(d" + std::to_string(d) + ")=" + n, dp_mesh, seeds);
  }
  // Megatron, alone and with FSDP of the weights it leaves whole.
  AZ_ASSIGN_OR_RETURN(shard::Mesh tp_mesh, shard::Mesh::Parse("tp=" + n));
  {
    shard::Seeds seeds;
    AZ_ASSIGN_OR_RETURN(bool any, SeedMegatron(*graph, tp_mesh, 0, seeds));
    if (any) {
      add("tp=" + n, tp_mesh, seeds);
      if (SeedFsdp(*graph, tp_mesh, 0, seeds)) add("tp=" + n + ",fsdp", tp_mesh, seeds);
    }
  }
  // Data x Megatron on the 2-D meshes.
  for (int64_t a = 2; a < chips; ++a) {
    if (chips % a != 0) continue;
    const int64_t b = chips / a;
    AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse("dp=" + std::to_string(a) + ",tp=" + std::to_string(b)));
    for (int d = 0; input >= 0 && d < graph->type(input).rank(); ++d) {
      if (graph->type(input).shape[static_cast<size_t>(d)] % a != 0) continue;
      shard::Seeds seeds;
      SeedData(*graph, input, d, 0, seeds);
      AZ_ASSIGN_OR_RETURN(bool any, SeedMegatron(*graph, mesh, 1, seeds));
      if (!any) break;
      add("dp(d" + std::to_string(d) + ")=" + std::to_string(a) + ",tp=" + std::to_string(b), mesh, seeds);
    }
  }
  return out;
}

namespace {

class Program : public Source {
 public:
  std::string label() const override { return "aoizora"; }

  StatusOr<Pick> Choose(const SearchContext& ctx) const override {
    const hw::Topology& topology = *ctx.topology;
    AZ_ASSIGN_OR_RETURN(std::vector<ProgramCandidate> candidates,
                        ProgramCandidates(ctx.config, topology.num_chips()));
    Say(ctx, "program: the program has no attention; compiling and placing " + std::to_string(candidates.size()) +
                 " candidates (data parallel, FSDP, Megatron over its linears)");
    PlacementPolicy quick{ctx.options.search_placement ? PlacementKind::kSearch : PlacementKind::kDefault, {}, {}};
    quick.search.seed = ctx.options.seed;
    quick.search.restarts = 1;
    quick.search.moves = 4000;
    quick.search.max_structured = kQuickStructured;
    std::vector<Evaluated> evaluated(candidates.size());
    ParallelFor(static_cast<int>(candidates.size()), ctx.options.threads, [&](int k) {
      evaluated[static_cast<size_t>(k)] =
          Evaluate(candidates[static_cast<size_t>(k)].candidate, topology, ctx.evaluate, quick);
    });
    int best = -1;
    double frugal = std::numeric_limits<double>::infinity();
    std::string frugal_name;
    Status first_error = Status::Ok();
    for (size_t k = 0; k < evaluated.size(); ++k) {
      const Evaluated& e = evaluated[k];
      if (!e.status.ok()) {
        Say(ctx, "program: " + candidates[k].name + ": " + e.status.message());
        if (first_error.ok()) first_error = e.status;
        continue;
      }
      const double peak = static_cast<double>(e.compiled.evidence.peak_memory.value());
      if (peak < frugal) {
        frugal = peak;
        frugal_name = candidates[k].name;
      }
      if (!e.fits) continue;
      // Faster wins; ties keep the earlier candidate (a deterministic order).
      if (best < 0 || e.best_latency < evaluated[static_cast<size_t>(best)].best_latency) best = static_cast<int>(k);
    }
    if (best < 0) {
      if (!std::isfinite(frugal)) {
        if (!first_error.ok()) return first_error;
        return FailedPrecondition(ctx.config.model + ": no data-parallel, FSDP or Megatron candidate applies on " +
                                  std::to_string(topology.num_chips()) + " chips");
      }
      return ResourceExhausted(ctx.config.model + " does not fit " + topology.name + ": the most frugal candidate (" +
                               frugal_name + ") peaks at " + FormatBytes(Bytes(static_cast<int64_t>(frugal))) +
                               " per chip, the chip has " + FormatBytes(topology.chip.hbm) + "; " +
                               std::to_string(candidates.size()) + " candidates priced");
    }
    Pick pick;
    pick.evaluated = std::move(evaluated[static_cast<size_t>(best)]);
    pick.sharding = candidates[static_cast<size_t>(best)].name;
    pick.description = pick.sharding + " on mesh " + pick.evaluated->compiled.candidate.mesh.ToString();
    pick.searched_placement = true;
    if (ctx.options.search_placement && !pick.evaluated->exhaustive) {
      Say(ctx, "placement: longer search for " + pick.description);
      PlacementPolicy full{PlacementKind::kSearch, {}, {}};
      full.search.seed = ctx.options.seed;
      full.search.restarts = 3;
      full.search.moves = ctx.options.placement_moves > 0 ? ctx.options.placement_moves
                                                          : LongerSearchMoves(topology.num_chips());
      Evaluated longer = Price(pick.evaluated->compiled, topology, ctx.options.calibration, full);
      AZ_RETURN_IF_ERROR(longer.status);
      if (longer.best_latency <= pick.evaluated->best_latency) pick.evaluated = std::move(longer);
    }
    return pick;
  }
};

}  // namespace

std::unique_ptr<Source> ProgramSource() { return std::make_unique<Program>(); }

}  // namespace az::search
