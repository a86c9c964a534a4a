// Pricing throughput: step-latency evaluations of a compiled Wan 2.1 T2V-14B
// 720p forward under placements that change every call (what placement search
// does), and the annealing move rate with incremental pricing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "evidence/evidence.h"
#include "frontend/zoo/zoo.h"
#include "place/search.h"
#include "price/calibration.h"
#include "price/simulator.h"

namespace {

az::evidence::Evidence WanEvidence(const char* mesh_text, const char* templ) {
  az::zoo::ModelOptions options;  // 1280x720, 81 frames, two-pass CFG
  auto config = az::zoo::ResolveConfig("wan2.1-t2v-14b", options);
  auto graph = az::zoo::BuildForward(*config);
  auto mesh = az::shard::Mesh::Parse(mesh_text);
  if (!graph.ok() || !mesh.ok()) std::abort();
  az::compile::SpmdCompiler compiler;
  auto program = az::compile::CompileTemplate(compiler, *graph, *mesh, templ, {});
  if (!program.ok()) std::abort();
  return az::evidence::Extract(*program, compiler.name());
}

az::price::Simulator MakeSim(const az::evidence::Evidence& e, const az::hw::Topology& t) {
  auto c = az::price::DefaultPriceCalibration(t);
  auto sim = az::price::Simulator::Create(e, t, c.network, c.compute);
  if (!sim.ok()) std::abort();
  return std::move(*sim);
}

// A new placement every evaluation, cycling through 4,096 random permutations.
// After the first pass the collective model's cache (keyed by the physical
// groups) holds their group sets, as it does during a search, which revisits
// group sets all the time; so this measures the steady state of a search.
void BM_PriceStep(benchmark::State& state, const char* topology, const char* mesh_text, const char* templ) {
  auto t = az::hw::MakeTopology(topology);
  if (!t.ok()) std::abort();
  az::evidence::Evidence e = WanEvidence(mesh_text, templ);
  az::price::Simulator sim = MakeSim(e, *t);
  std::mt19937_64 random(1);
  std::vector<az::net::Placement> placements(4096);
  for (auto& p : placements) {
    p.resize(static_cast<size_t>(t->num_chips()));
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), random);
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim.Latency(placements[i++ & 4095]));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["collectives"] = static_cast<double>(e.collectives.size());
  state.counters["classes"] = sim.num_classes();
  state.counters["ops"] = sim.num_ops();
}
BENCHMARK_CAPTURE(BM_PriceStep, v5e_2x4_ulysses8, "v5e:2x4", "sp=8", "ulysses=sp");
BENCHMARK_CAPTURE(BM_PriceStep, v5e_2x4_usp2x4, "v5e:2x4", "x=2,y=4", "usp:ulysses=x,ring=y");
BENCHMARK_CAPTURE(BM_PriceStep, v5e_2x4_fsdp_ulysses, "v5e:2x4", "x=2,y=4", "fsdp=x,ulysses=y");
BENCHMARK_CAPTURE(BM_PriceStep, h100_8_ulysses8, "h100:8", "sp=8", "ulysses=sp");

// Annealing moves per second (each move re-prices the touched classes and
// replays the step) on a 16-chip slice.
void BM_AnnealMoves(benchmark::State& state) {
  auto t = az::hw::MakeTopology("v5e:4x4");
  if (!t.ok()) std::abort();
  az::evidence::Evidence e = WanEvidence("x=4,y=4", "usp:ulysses=y,ring=x");
  az::price::Simulator sim = MakeSim(e, *t);
  const int64_t moves = 20000;
  uint64_t seed = 1;
  for (auto _ : state) {
    int64_t evaluations = 0;
    benchmark::DoNotOptimize(az::place::Anneal(sim, az::net::IdentityPlacement(16), seed++, moves, 0.05, &evaluations));
  }
  state.SetItemsProcessed(state.iterations() * moves);
}
BENCHMARK(BM_AnnealMoves)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// The v5e:4x4 convergence figure of record: the default placement search
// against the best of ten independent 100,000-move annealing runs (counters:
// default search / reference latency, and both latencies).
void BM_ConvergenceV5e4x4(benchmark::State& state) {
  auto t = az::hw::MakeTopology("v5e:4x4");
  if (!t.ok()) std::abort();
  az::evidence::Evidence e = WanEvidence("x=4,y=4", "usp:ulysses=y,ring=x");
  az::price::Simulator sim = MakeSim(e, *t);
  double reference = 0, found = 0;
  for (auto _ : state) {
    reference = std::numeric_limits<double>::infinity();
    for (uint64_t run = 0; run < 10; ++run) {
      az::net::Placement start = az::net::IdentityPlacement(16);
      std::rotate(start.begin(), start.begin() + static_cast<long>(run), start.end());
      reference = std::min(reference, az::place::Anneal(sim, start, 1000 + run, 100000, 0.01, nullptr).second);
    }
    auto r = az::place::SearchPlacement(sim, {4, 4}, {"x", "y"}, az::place::PlaceOptions());
    if (!r.ok()) std::abort();
    found = r->best_latency;
  }
  state.counters["ratio"] = found / reference;
  state.counters["search_s"] = found;
  state.counters["reference_s"] = reference;
}
BENCHMARK(BM_ConvergenceV5e4x4)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
