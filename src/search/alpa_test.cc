// The Alpa baseline: hand-derived optima on a tiny MLP, the memory
// constraint, the ILP against brute force, and the zoo's DiTs solved,
// propagated and compiled.
#include "search/alpa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <random>

#include "compile/spmd/spmd_compiler.h"
#include "frontend/models.h"
#include "pir/build/graph_builder.h"
#include "pir/grad/backward.h"
#include "search/alpa_build.h"

namespace az::search {
namespace {

// x f32[1, 1024] -> fc1 [1024, 4096] -> gelu_tanh -> fc2 [4096, 1024]; no
// biases, batch 1 (a batch factor would make data parallelism free and win).
// Linear's einsum is "az,zy->ay": factors a (size 1), y (output), z (contracted).
pir::Graph TinyMlp() {
  pir::GraphBuilder b("mlp");
  pir::ValueId x = b.Input("x", pir::DType::kF32, {1, 1024});
  pir::ValueId h = b.Linear("fc1", x, 4096, /*bias=*/false);
  pir::ValueId g = b.Unary(pir::OpKind::kGeluTanh, "act", h);
  b.Output(b.Linear("fc2", g, 1024, /*bias=*/false));
  return b.Finish();
}

shard::Mesh ParseMesh(const std::string& text) {
  auto mesh = shard::Mesh::Parse(text);
  AZ_CHECK(mesh.ok());
  return *mesh;
}

// The axes the seeds give factor `factor` of the op named `name`.
std::vector<int> FactorAxes(const pir::Graph& graph, const AlpaResult& result, const std::string& name,
                            const std::string& factor) {
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    if (graph.op(id).name != name) continue;
    auto op = result.seeds.op_factors.find(id);
    if (op == result.seeds.op_factors.end()) return {-1};
    auto f = op->second.find(factor);
    return f == op->second.end() ? std::vector<int>{-1} : f->second;
  }
  return {-2};
}

// The plan the seeds make, compiled by the built-in compiler.
StatusOr<cir::Program> PropagateAndCompile(const pir::Graph& graph, const shard::Mesh& mesh, const AlpaResult& result) {
  AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(graph, mesh, result.seeds));
  compile::SpmdCompiler compiler;
  return compiler.Compile(graph, plan, {});
}

// FLOPs of the MLP (cost.h): fc1 and fc2 2 * 1 * 1024 * 4096 = 8,388,608 each,
// gelu_tanh 8 per element * 4096 = 32,768; halved where the op is split in two.
constexpr double kFc = 8'388'608, kGelu = 32'768;
constexpr double kFlopRate = 1e12;

// Cheap communication (alpha 0, beta 1e-12 s/B), compute dominant: Megatron.
//   column fc1 (y on x), gelu local, row fc2 (z on x): (kFc + kGelu + kFc) / 2
//   = 8,404,992 FLOPs = 8.404992 us, plus the all-reduce of the f32[1,1024]
//   output (4,096 B): 2 (n-1)/n * 4096 * 1e-12 = 4.096 ns; total 8.409088 us.
// Runner-up: column fc1 and column fc2 (all-gather of the f32[1,4096] hidden:
// 1/2 * 16,384 * 1e-12 = 8.192 ns), 8.413184 us; fc1 replicated and fc2
// column (no communication) 12.61568 us; replicated 16.809984 us.
TEST(Alpa, TinyMlpCheapCommunicationIsMegatron) {
  pir::Graph graph = TinyMlp();
  shard::Mesh mesh = ParseMesh("x=2");
  AlpaOptions options;
  options.axis_costs = {{0.0, 1e-12}};
  options.flop_rate = kFlopRate;
  auto result = SolveAlpa(graph, mesh, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(FactorAxes(graph, *result, "fc1", "y"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph, *result, "fc1", "z"), std::vector<int>{});
  EXPECT_EQ(FactorAxes(graph, *result, "act", "d1"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph, *result, "fc2", "z"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph, *result, "fc2", "y"), std::vector<int>{});
  EXPECT_NEAR(result->objective_s, (kFc + kGelu + kFc) / 2 / kFlopRate + 4096 * 1e-12, 1e-15);
  EXPECT_TRUE(result->optimal());
  EXPECT_EQ(result->nodes, 2);  // fc1 (with the gelu following it) and fc2
  EXPECT_EQ(result->followers, 1);
  auto program = PropagateAndCompile(graph, mesh, *result);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  // What the ILP priced is what the compiler emits: one all-reduce of 4,096 B.
  auto summary = cir::Summarize(*program);
  ASSERT_EQ(summary.collectives.size(), 1u);
  EXPECT_EQ(std::get<0>(summary.collectives[0]), cir::CollectiveKind::kAllReduce);
  EXPECT_EQ(std::get<1>(summary.collectives[0]), 1);
  EXPECT_EQ(std::get<2>(summary.collectives[0]), Bytes(4096));
}

// Expensive collectives (alpha 100 us): no communication at all. The cheapest
// plan without a collective keeps fc1 (and gelu) replicated and runs fc2
// column-parallel (its output stays sharded; the compiler does not gather
// outputs): kFc + kGelu + kFc / 2 = 12,615,680 FLOPs = 12.61568 us. Megatron
// would add 100 us for its all-reduce.
TEST(Alpa, TinyMlpExpensiveCommunicationAvoidsCollectives) {
  pir::Graph graph = TinyMlp();
  shard::Mesh mesh = ParseMesh("x=2");
  AlpaOptions options;
  options.axis_costs = {{1e-4, 1e-12}};
  options.flop_rate = kFlopRate;
  auto result = SolveAlpa(graph, mesh, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(FactorAxes(graph, *result, "fc1", "y"), std::vector<int>{});
  EXPECT_EQ(FactorAxes(graph, *result, "fc1", "z"), std::vector<int>{});
  EXPECT_EQ(FactorAxes(graph, *result, "fc2", "y"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph, *result, "fc2", "z"), std::vector<int>{});
  EXPECT_NEAR(result->objective_s, (kFc + kGelu + kFc / 2) / kFlopRate, 1e-15);
  auto program = PropagateAndCompile(graph, mesh, *result);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  for (const cir::Instruction& in : program->instructions) EXPECT_NE(in.kind, cir::InstrKind::kCollective) << in.name;
}

// Memory. The weights are f32[1024,4096] and f32[4096,1024], 16 MiB each: 32
// MiB replicated; the plan above stores fc1 whole and fc2 halved, 24 MiB.
// Under 20 MiB both must be halved (16 MiB + 4 KiB of x + activations of a
// few KiB), which needs one collective; the cheapest is Megatron's output
// all-reduce: 100 us + 4.096 ns + 8.404992 us (the column-column all-gather
// moves twice the bytes).
TEST(Alpa, MemoryLimitForcesShardedWeights) {
  pir::Graph graph = TinyMlp();
  shard::Mesh mesh = ParseMesh("x=2");
  AlpaOptions options;
  options.axis_costs = {{1e-4, 1e-12}};
  options.flop_rate = kFlopRate;
  options.memory_limit_bytes = MiB(20).value();
  auto result = SolveAlpa(graph, mesh, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(FactorAxes(graph, *result, "fc1", "y"), std::vector<int>{0});
  EXPECT_EQ(FactorAxes(graph, *result, "fc2", "z"), std::vector<int>{0});
  EXPECT_NEAR(result->objective_s, 1e-4 + 4096 * 1e-12 + (kFc + kGelu + kFc) / 2 / kFlopRate, 1e-15);
  EXPECT_LE(result->memory_bytes, static_cast<double>(MiB(20).value()));
  EXPECT_GE(result->memory_bytes, static_cast<double>(MiB(16).value()));
  auto program = PropagateAndCompile(graph, mesh, *result);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  // The compiled weights: halves of 16 MiB each.
  EXPECT_EQ(cir::Summarize(*program).parameter_bytes, MiB(16));
}

// A 1 MiB limit has no solution. The smallest footprint: both weights halved
// (16 MiB), x halved (2 KiB) and the largest smallest working set, the gelu's
// halved f32[1,4096] operand and result (8 + 8 KiB): 16 MiB + 18 KiB = 16.02 MiB.
TEST(Alpa, ImpossibleMemoryLimitIsAnError) {
  pir::Graph graph = TinyMlp();
  AlpaOptions options;
  options.axis_costs = {{1e-4, 1e-12}};
  options.flop_rate = kFlopRate;
  options.memory_limit_bytes = MiB(1).value();
  auto result = SolveAlpa(graph, ParseMesh("x=2"), options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(result.status().message().find("memory limit of " + FormatBytes(MiB(1))), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("at least " + FormatBytes(MiB(16) + KiB(18))), std::string::npos)
      << result.status().message();
}

TEST(Alpa, BadOptionsAreErrors) {
  pir::Graph graph = TinyMlp();
  AlpaOptions options;  // no axis costs
  auto result = SolveAlpa(graph, ParseMesh("x=2"), options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("one axis cost per mesh axis"), std::string::npos);
  options.axis_costs = {{-1.0, 0.0}};
  EXPECT_FALSE(SolveAlpa(graph, ParseMesh("x=2"), options).ok());
  options.axis_costs = {{0.0, 0.0}};
  options.time_limit_s = 0;
  EXPECT_FALSE(SolveAlpa(graph, ParseMesh("x=2"), options).ok());
  options.time_limit_s = 10;
  options.node_budget = -1;
  auto negative = SolveAlpa(graph, ParseMesh("x=2"), options);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("node budget"), std::string::npos);
}

// The ILP agrees with brute force on every choice of a small problem: the MLP
// on a 2 x 2 mesh (every strategy of fc1 and fc2).
TEST(Alpa, IlpMatchesBruteForce) {
  pir::Graph graph = TinyMlp();
  shard::Mesh mesh = ParseMesh("x=2,y=2");
  AlpaOptions options;
  options.axis_costs = {{2e-6, 1e-10}, {1e-6, 4e-11}};
  options.flop_rate = kFlopRate;
  auto model = alpa_internal::BuildAlpaModel(graph, mesh, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const AlpaProblem& problem = model->problem;
  ASSERT_EQ(problem.nodes.size(), 2u);
  double best = 1e300;
  std::vector<int> choice(problem.nodes.size(), 0);
  std::function<void(size_t)> search = [&](size_t node) {
    if (node == problem.nodes.size()) {
      best = std::min(best, EvaluateAlpa(problem, choice));
      return;
    }
    for (int s = 0; s < problem.nodes[node].num_strategies(); ++s) {
      choice[node] = s;
      search(node + 1);
    }
  };
  search(0);
  auto solution = SolveAlpaProblem(problem, {});
  ASSERT_TRUE(solution.ok()) << solution.status().ToString();
  EXPECT_TRUE(solution->optimal());
  EXPECT_NEAR(solution->objective_s, best, 1e-12 * best);
}

// Random small problems with memory rows: GLPK's and CBC's optima are brute force's.
TEST(Alpa, IlpMatchesBruteForceOnRandomProblems) {
  std::mt19937 random(20240607);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int binding = 0;
  for (int trial = 0; trial < 40; ++trial) {
    AlpaProblem problem;
    const int num_nodes = 2 + trial % 4;
    for (int v = 0; v < num_nodes; ++v) {
      AlpaNode node;
      node.name = "n" + std::to_string(v);
      const int strategies = 1 + static_cast<int>(unit(random) * 4);
      for (int s = 0; s < strategies; ++s) {
        node.cost_s.push_back(unit(random));
        node.stored_bytes.push_back(std::floor(unit(random) * 100));
        node.activation_bytes.push_back(std::floor(unit(random) * 50));
      }
      problem.nodes.push_back(std::move(node));
    }
    for (int from = 0; from < num_nodes; ++from) {
      for (int to = from + 1; to < num_nodes; ++to) {
        if (unit(random) < 0.4) continue;
        AlpaEdge edge{from, to, {}};
        for (int k = 0; k < problem.nodes[from].num_strategies() * problem.nodes[to].num_strategies(); ++k) {
          edge.cost_s.push_back(unit(random) * 2);
        }
        problem.edges.push_back(std::move(edge));
      }
    }
    if (trial % 2 == 1) problem.memory_limit_bytes = 40.0 * num_nodes + 25;
    double best = 1e300, unconstrained = 1e300;
    std::vector<int> choice(problem.nodes.size(), 0);
    std::function<void(size_t)> search = [&](size_t node) {
      if (node == problem.nodes.size()) {
        const double objective = EvaluateAlpa(problem, choice);
        unconstrained = std::min(unconstrained, objective);
        bool fits = problem.memory_limit_bytes == 0 || AlpaMemoryBytes(problem, choice) <= problem.memory_limit_bytes;
        if (fits) best = std::min(best, objective);
        return;
      }
      for (int s = 0; s < problem.nodes[node].num_strategies(); ++s) {
        choice[node] = s;
        search(node + 1);
      }
    };
    search(0);
    for (AlpaSolver solver : {AlpaSolver::kGlpk, AlpaSolver::kCbc}) {
      const std::string name = AlpaSolverName(solver);
      auto solution = SolveAlpaProblem(problem, AlpaSolveLimits{0, 300, solver});
      if (best == 1e300) {
        ASSERT_FALSE(solution.ok()) << name << " trial " << trial;
        EXPECT_EQ(solution.status().code(), StatusCode::kResourceExhausted);
        continue;
      }
      ASSERT_TRUE(solution.ok()) << name << " trial " << trial << ": " << solution.status().ToString();
      EXPECT_TRUE(solution->optimal());
      EXPECT_NEAR(solution->objective_s, best, 1e-9) << name << " trial " << trial;
      if (problem.memory_limit_bytes > 0) {
        EXPECT_LE(AlpaMemoryBytes(problem, solution->choice), problem.memory_limit_bytes);
        binding += solver == AlpaSolver::kGlpk && best > unconstrained + 1e-12;
      }
    }
  }
  EXPECT_GT(binding, 0);  // the memory rows changed some optimum
}

// Three strategies per node on K5 (every pair of the 5 nodes an edge), an
// edge costing 1 us when both ends pick the same strategy: a 3-colouring of
// K5, which has none, so the fewest monochromatic pairs is 2 (classes of
// sizes 2, 2, 1). Node v's strategy s costs (3v + s) ns, so among those the
// cheapest puts strategies 0 and 1 on two nodes each and 2 on one:
//   2 us + sum_v 3v ns + (0 + 0 + 1 + 1 + 2) ns = 2 us + 30 ns + 4 ns = 2.034 us.
// The LP relaxation does not see it: x = (1/2, 1/2, 0) at every node meets
// every edge's marginals with nothing on the diagonal (x_u[s] + x_v[s] <= 1),
// a bound of 30 + 5 * 1/2 = 32.5 ns, so the solver must branch (or cut).
AlpaProblem ColouringOfK5() {
  AlpaProblem problem;
  constexpr int kNodes = 5, kStrategies = 3;
  for (int v = 0; v < kNodes; ++v) {
    AlpaNode node;
    node.name = "k" + std::to_string(v);
    for (int s = 0; s < kStrategies; ++s) {
      node.cost_s.push_back((3 * v + s) * 1e-9);
      node.stored_bytes.push_back(0);
      node.activation_bytes.push_back(0);
    }
    problem.nodes.push_back(std::move(node));
  }
  for (int from = 0; from < kNodes; ++from) {
    for (int to = from + 1; to < kNodes; ++to) {
      AlpaEdge edge{from, to, {}};
      for (int s = 0; s < kStrategies; ++s) {
        for (int t = 0; t < kStrategies; ++t) edge.cost_s.push_back(s == t ? 1e-6 : 0.0);
      }
      problem.edges.push_back(std::move(edge));
    }
  }
  return problem;
}

// The default budget proves the optimum (after branching); a small budget
// stops short of proving it and says so, with the gap, never claiming
// optimality. The small budget per solver, measured (neither runs primal
// heuristics as configured): GLPK finds its first incumbent at its 5th node
// and proves the optimum at its 26th, so five; CBC at its 4th and 14th, so four.
TEST(Alpa, NodeBudgetStopsTheSearchAndIsReported) {
  const AlpaProblem problem = ColouringOfK5();
  for (auto [solver, small] : {std::pair<AlpaSolver, int64_t>{AlpaSolver::kGlpk, 5}, {AlpaSolver::kCbc, 4}}) {
    const std::string name = AlpaSolverName(solver);
    auto full = SolveAlpaProblem(problem, AlpaSolveLimits{0, 300, solver});
    ASSERT_TRUE(full.ok()) << name << ": " << full.status().ToString();
    EXPECT_EQ(full->solver, solver);
    EXPECT_TRUE(full->optimal()) << name;
    EXPECT_NEAR(full->objective_s, 2.034e-6, 1e-15) << name;
    EXPECT_EQ(AlpaSolveNote(*full, 300), "optimal, " + name);

    auto cut = SolveAlpaProblem(problem, AlpaSolveLimits{small, 300, solver});
    ASSERT_TRUE(cut.ok()) << name << ": " << cut.status().ToString();
    EXPECT_EQ(cut->stop, AlpaStop::kNodeBudget) << name;
    EXPECT_FALSE(cut->optimal()) << name;
    EXPECT_EQ(cut->node_budget, small) << name;
    EXPECT_LE(cut->nodes, small) << name;
    EXPECT_GT(cut->gap, 0) << name;
    EXPECT_LE(cut->gap, 1) << name;
    EXPECT_GE(cut->objective_s, full->objective_s - 1e-15) << name;  // feasible, no better than the optimum
    EXPECT_DOUBLE_EQ(cut->objective_s, EvaluateAlpa(problem, cut->choice)) << name;
    const std::string note = AlpaSolveNote(*cut, 300);
    EXPECT_TRUE(note.starts_with("best found: " + name + " stopped at the node budget of " + std::to_string(small) +
                                 " nodes, gap "))
        << note;
  }
  // Stopped before a first incumbent: an error naming the budget.
  for (AlpaSolver solver : {AlpaSolver::kGlpk, AlpaSolver::kCbc}) {
    auto none = SolveAlpaProblem(problem, AlpaSolveLimits{1, 300, solver});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(none.status().message(),
              std::string(AlpaSolverName(solver)) + " found no feasible sharding within the node budget of 1 nodes");
  }
}

// Determinism: the budget counts nodes, not seconds, so the same problem and
// budget give the same outcome every time (the wall-clock limit this
// replaces stopped GLPK at a load-dependent incumbent).
TEST(Alpa, BudgetedSolveIsDeterministic) {
  const AlpaProblem problem = ColouringOfK5();
  for (AlpaSolver solver : {AlpaSolver::kGlpk, AlpaSolver::kCbc}) {
    for (int64_t budget : {1, 5, 20}) {
      auto first = SolveAlpaProblem(problem, AlpaSolveLimits{budget, 300, solver});
      auto second = SolveAlpaProblem(problem, AlpaSolveLimits{budget, 300, solver});
      ASSERT_EQ(first.ok(), second.ok()) << budget;
      if (!first.ok()) {
        EXPECT_EQ(first.status().message(), second.status().message());
        continue;
      }
      EXPECT_EQ(first->choice, second->choice) << budget;
      EXPECT_EQ(first->nodes, second->nodes) << budget;
      EXPECT_EQ(first->stop, second->stop) << budget;
      EXPECT_EQ(first->gap, second->gap) << budget;
      EXPECT_EQ(first->objective_s, second->objective_s) << budget;
    }
  }
}

// The derived budget: 2e6 / (columns + rows), clamped to [5, 100,000].
TEST(Alpa, NodeBudgetFallsWithTheProblemSize) {
  EXPECT_EQ(AlpaNodeBudget(10, 5), 100'000);       // 2e6 / 15 is over the cap
  EXPECT_EQ(AlpaNodeBudget(8'000, 2'000), 200);    // 2e6 / 10,000
  EXPECT_EQ(AlpaNodeBudget(40'000, 10'000), 40);   // 2e6 / 50,000
  EXPECT_EQ(AlpaNodeBudget(60'000, 10'000), 28);   // 2e6 / 70,000 = 28.6
  EXPECT_EQ(AlpaNodeBudget(300'000, 33'000), 6);   // 2e6 / 333,000 = 6.006
  EXPECT_EQ(AlpaNodeBudget(2'000'000, 0), 5);      // 1 is under the floor
}

TEST(Alpa, BlockPattern) {
  EXPECT_EQ(alpa_internal::BlockPattern("blocks.7.ffn.0"), "blocks.#.ffn.0");
  EXPECT_EQ(alpa_internal::BlockPattern("double_blocks.12.img_mod.linear"), "double_blocks.#.img_mod.linear");
  EXPECT_EQ(alpa_internal::BlockPattern("head.head"), "head.head");
  EXPECT_EQ(alpa_internal::BlockPattern("time_embedding.0"), "time_embedding.#");
}

// ---------------------------------------------------------------- the zoo

// Per-axis costs of an 8-chip slice: x the slower axis (10 us, 25 GB/s), the
// others faster (5 us, 100 GB/s); 200 TFLOP/s per chip.
AlpaOptions ZooOptions(const shard::Mesh& mesh) {
  AlpaOptions options;
  for (int axis = 0; axis < mesh.num_axes(); ++axis) {
    options.axis_costs.push_back(axis == 0 && mesh.num_axes() > 1 ? AxisCost{1e-5, 1 / 25e9}
                                                                  : AxisCost{5e-6, 1 / 100e9});
  }
  options.flop_rate = 200e12;
  options.memory_limit_bytes = GiB(80).value();
  return options;
}

pir::Graph ZooGraph(const std::string& model, workload::ModelOptions options) {
  auto config = frontend::ZooWorkload(model, options);
  AZ_CHECK(config.ok());
  auto graph = config->Forward();
  AZ_CHECK(graph.ok());
  return std::move(graph).value();
}

// The compiled program in the ILP's own world: kernels' FLOPs / flop_rate and
// every collective priced by the same alpha-beta formulas (its axes read off
// its groups or permute pairs). It differs from the ILP's objective where the
// compiler shares one resharding among consumers (the ILP charges each edge).
double PriceProgram(const cir::Program& program, const shard::Mesh& mesh, const AlpaOptions& options) {
  alpa_internal::CostModel costs(mesh, options);
  auto differing_axes = [&](int a, int b, std::vector<bool>& axes) {
    for (int axis = 0; axis < mesh.num_axes(); ++axis) {
      if (mesh.Coordinate(a, axis) != mesh.Coordinate(b, axis)) axes[static_cast<size_t>(axis)] = true;
    }
  };
  double total = 0;
  for (const cir::Instruction& in : program.instructions) {
    if (in.kind == cir::InstrKind::kKernel) {
      total += costs.Compute(in.flops);
      continue;
    }
    if (in.kind == cir::InstrKind::kCollectiveDone) continue;
    std::vector<bool> on(static_cast<size_t>(mesh.num_axes()), false);
    for (int member : in.groups.groups.empty() ? std::vector<int>{} : in.groups.groups.front()) {
      differing_axes(member, in.groups.groups.front().front(), on);
    }
    for (auto [source, target] : in.pairs) differing_axes(source, target, on);
    std::vector<int> axes;
    for (int axis = 0; axis < mesh.num_axes(); ++axis) {
      if (on[static_cast<size_t>(axis)]) axes.push_back(axis);
    }
    total += costs.Collective(in.collective, axes, static_cast<double>(in.collective_bytes.value()));
  }
  return total;
}

// Solves, prints what it chose, propagates and compiles; returns the compiled parameter bytes per device.
Bytes SolveAndCompile(const std::string& label, const pir::Graph& graph, const std::string& mesh_text,
                      bool check_deterministic, int64_t memory_limit = GiB(80).value()) {
  shard::Mesh mesh = ParseMesh(mesh_text);
  AlpaOptions options = ZooOptions(mesh);
  options.memory_limit_bytes = memory_limit;
  auto result = SolveAlpa(graph, mesh, options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok()) return Bytes(0);
  std::cout << label << " on " << mesh_text << ": " << result->ops << " ops (" << result->followers << " followers), "
            << result->nodes << " nodes, " << result->strategies << " strategies, " << result->variables
            << " variables, " << result->constraints << " constraints; build " << result->build_time_s << " s, solve "
            << result->solve_time_s << " s, " << (result->solve_note) << ", objective "
            << result->objective_s << " s, memory " << FormatBytes(Bytes(static_cast<int64_t>(result->memory_bytes)))
            << "\n"
            << result->summary;
  EXPECT_TRUE(result->optimal());
  EXPECT_LE(result->memory_bytes, static_cast<double>(memory_limit));
  auto program = PropagateAndCompile(graph, mesh, *result);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  if (!program.ok()) return Bytes(0);
  const Bytes parameters = cir::Summarize(*program).parameter_bytes;
  // The compiler emits what the ILP priced, or less where consumers share a
  // resharding or small collectives are combined.
  const double compiled_s = PriceProgram(*program, mesh, options);
  EXPECT_LE(compiled_s, result->objective_s * (1 + 1e-9));
  std::cout << "compiled program in the same cost model: " << compiled_s << " s, parameters " << FormatBytes(parameters)
            << "\n";
  if (!check_deterministic) return parameters;
  auto again = SolveAlpa(graph, mesh, options);
  EXPECT_TRUE(again.ok());
  if (!again.ok()) return parameters;
  EXPECT_EQ(again->seeds.op_factors, result->seeds.op_factors);
  EXPECT_EQ(again->seeds.values, result->seeds.values);
  EXPECT_EQ(again->objective_s, result->objective_s);
  return parameters;
}

TEST(AlpaZoo, Wan13bSmallCompiles) {
  workload::ModelOptions options;
  options.width = 256;
  options.height = 256;
  options.frames = 5;
  SolveAndCompile("wan2.1-t2v-1.3b 256x256x5", ZooGraph("wan2.1-t2v-1.3b", options), "x=2,y=4", false);
}

TEST(AlpaZoo, Wan14b720pSolvesCompilesDeterministically) {
  pir::Graph graph = ZooGraph("wan2.1-t2v-14b", {});
  SolveAndCompile("wan2.1-t2v-14b 720p", graph, "x=2,y=4", true);
  SolveAndCompile("wan2.1-t2v-14b 720p", graph, "sp=8", false);
  SolveAndCompile("wan2.1-t2v-14b 720p", graph, "x=4,y=4", false);
}

// 26.6 GiB of weights do not fit 16 GiB: the weights must be split.
TEST(AlpaZoo, Wan14bMemoryLimitShardsWeights) {
  pir::Graph graph = ZooGraph("wan2.1-t2v-14b", {});
  Bytes parameters = SolveAndCompile("wan2.1-t2v-14b 720p, 16 GiB", graph, "x=2,y=4", false, GiB(16).value());
  EXPECT_GT(parameters, Bytes(0));
  EXPECT_LT(parameters, GiB(16));
}

TEST(AlpaZoo, HunyuanVideo720pSolvesAndCompiles) {
  SolveAndCompile("hunyuanvideo-13b 720p", ZooGraph("hunyuanvideo-13b", {}), "x=2,y=4", false);
}

// The per-mesh-axis decomposition gives a feasible point of the joint ILP,
// never below its optimum; one axis has nothing to decompose.
TEST(AlpaZoo, DecompositionIsFeasibleAndNoBetterThanTheOptimum) {
  workload::ModelOptions model_options;
  model_options.width = 256;
  model_options.height = 256;
  model_options.frames = 5;
  const pir::Graph graph = ZooGraph("wan2.1-t2v-1.3b", model_options);
  for (const char* text : {"x=2,y=4", "x=4,y=2", "x=2,y=2,z=2"}) {
    const shard::Mesh mesh = ParseMesh(text);
    auto model = alpa_internal::BuildAlpaModel(graph, mesh, ZooOptions(mesh));
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    std::optional<std::vector<int>> choice = DecomposeByMeshAxis(model->problem);
    ASSERT_TRUE(choice.has_value()) << text;
    ASSERT_EQ(choice->size(), model->problem.nodes.size());
    auto optimum = SolveAlpaProblem(model->problem, {});
    ASSERT_TRUE(optimum.ok()) << optimum.status().ToString();
    ASSERT_TRUE(optimum->optimal());
    const double decomposed = EvaluateAlpa(model->problem, *choice);
    EXPECT_GE(decomposed, optimum->objective_s * (1 - 1e-12)) << text;
    EXPECT_LE(AlpaMemoryBytes(model->problem, *choice), model->problem.memory_limit_bytes) << text;
    std::cout << text << ": decomposition " << decomposed << " s, joint optimum " << optimum->objective_s << " s\n";
  }
  const shard::Mesh line = ParseMesh("sp=8");
  auto model = alpa_internal::BuildAlpaModel(graph, line, ZooOptions(line));
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(DecomposeByMeshAxis(model->problem).has_value());
}

// A training step on a 2D mesh is the large ILP (over 50,000 columns): CBC,
// started from the decomposition, proves it optimal.
TEST(AlpaZoo, TrainingStepOn2dMeshIsCbcFromTheDecomposition) {
  workload::ModelOptions model_options;
  model_options.width = 256;
  model_options.height = 256;
  model_options.frames = 9;
  auto config = frontend::ZooWorkload("wan2.1-t2v-1.3b", model_options);
  ASSERT_TRUE(config.ok());
  workload::TrainOptions train;
  train.micro_batch = 4;
  train.remat = pir::RematPolicy::kSelected;
  auto graph = config->TrainStep(train);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  const shard::Mesh mesh = ParseMesh("x=2,y=2");
  auto model = alpa_internal::BuildAlpaModel(*graph, mesh, ZooOptions(mesh));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto solution = SolveAlpaProblem(model->problem, {});
  ASSERT_TRUE(solution.ok()) << solution.status().ToString();
  EXPECT_GE(solution->variables, 50'000);
  EXPECT_EQ(solution->solver, AlpaSolver::kCbc);
  EXPECT_TRUE(solution->decomposition_start);
  EXPECT_TRUE(solution->optimal()) << AlpaSolveNote(*solution, 300);
  std::optional<std::vector<int>> start = DecomposeByMeshAxis(model->problem);
  ASSERT_TRUE(start.has_value());
  EXPECT_LE(solution->objective_s, EvaluateAlpa(model->problem, *start) * (1 + 1e-12));
}

// A training step of the tiny MLP, loss = sum(fc2's output): the backward
// keeps fc1's result h (gelu's derivative reads it) and gelu's result g (fc2's
// weight gradient g^T dy reads it), both f32[1, 4096] = 16,384 B; it reads x
// and the weights too, but those are leaves, stored anyway, and the sum's
// backward needs no forward value. gelu follows fc1, so fc1's node holds both:
// 32,768 B more under the replicated strategy, 16,384 B where fc1's output
// factor y is split over the 2 devices; no other node holds any.
TEST(Alpa, TrainingStepStoresWhatTheBackwardKeeps) {
  pir::GraphBuilder b("mlp_step");
  pir::ValueId x = b.Input("x", pir::DType::kF32, {1, 1024});
  pir::ValueId h = b.Linear("fc1", x, 4096, /*bias=*/false);
  pir::ValueId g = b.Unary(pir::OpKind::kGeluTanh, "act", h);
  pir::ValueId y = b.Linear("fc2", g, 1024, /*bias=*/false);
  pir::ValueId loss = b.Reduce("loss", y, {0, 1}, "sum");
  const pir::OpId backward_start = b.graph().num_ops();
  std::vector<pir::ValueId> params;
  for (pir::ValueId v = 0; v < b.graph().num_values(); ++v) {
    if (b.graph().value(v).producer == pir::kNoOp && v != x) params.push_back(v);
  }
  ASSERT_EQ(params.size(), 2u);
  auto backward = pir::AppendBackward(b, loss, params);
  ASSERT_TRUE(backward.ok()) << backward.status().ToString();
  b.Output(loss);
  pir::Graph inference_like = b.Finish();
  pir::Graph step = inference_like;
  step.attrs().Set("backward_start", static_cast<int64_t>(backward_start));
  const shard::Mesh mesh = ParseMesh("x=2");
  auto without = alpa_internal::BuildAlpaModel(inference_like, mesh, ZooOptions(mesh));
  auto with = alpa_internal::BuildAlpaModel(step, mesh, ZooOptions(mesh));
  ASSERT_TRUE(without.ok() && with.ok());
  pir::OpId fc1 = pir::kNoOp;
  for (pir::OpId id = 0; id < step.num_ops(); ++id) {
    if (step.op(id).name == "fc1") fc1 = id;
  }
  ASSERT_NE(fc1, pir::kNoOp);
  const int node = with->node_of_op[static_cast<size_t>(fc1)];
  const alpa_internal::Pattern& pattern = with->patterns[static_cast<size_t>(with->pattern_of_op[static_cast<size_t>(fc1)])];
  const int factor_y = with->rules[static_cast<size_t>(fc1)].FindFactor("y");
  ASSERT_GE(factor_y, 0);
  int split = 0;
  for (size_t v = 0; v < with->problem.nodes.size(); ++v) {
    const AlpaNode& kept = with->problem.nodes[v];
    const AlpaNode& plain = without->problem.nodes[v];
    ASSERT_EQ(kept.stored_bytes.size(), plain.stored_bytes.size());
    for (size_t s = 0; s < kept.stored_bytes.size(); ++s) {
      const double extra = kept.stored_bytes[s] - plain.stored_bytes[s];
      if (static_cast<int>(v) != node) {
        EXPECT_EQ(extra, 0) << kept.name << " strategy " << s;
        continue;
      }
      const bool y_split = !pattern.strategies[s].factor_axes[static_cast<size_t>(factor_y)].empty();
      split += y_split;
      EXPECT_EQ(extra, y_split ? 16'384 : 32'768) << kept.name << " strategy " << s;
    }
  }
  EXPECT_GT(split, 0);
}

}  // namespace
}  // namespace az::search
