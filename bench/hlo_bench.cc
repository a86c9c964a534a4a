// XLA's compiled programs (compile/xla): parsing and importing the real dumps
// of ../shared/data/hlo, and pricing the Llama 3.1 70B train step (128
// devices) under changing placements on v5p:4x4x8, what `price --hlo` does.
// Skipped (with a message) when ../shared/data is not beside the checkout.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "compile/xla/hlo.h"
#include "compile/xla/hlo_import.h"
#include "evidence/evidence.h"
#include "hw/topology.h"
#include "price/calibration.h"
#include "price/simulator.h"

namespace {

std::string SharedHlo(const std::string& name) {
  for (const char* root : {"../shared/data/hlo/", "../../shared/data/hlo/"}) {
    std::ifstream in(root + name, std::ios::binary);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    }
  }
  return {};
}

void BM_ParseHlo(benchmark::State& state, const char* name) {
  std::string text = SharedHlo(name);
  if (text.empty()) {
    state.SkipWithError("../shared/data/hlo is not beside the checkout");
    return;
  }
  for (auto _ : state) {
    auto file = az::compile::xla::ParseHlo(text, name);
    if (!file.ok()) std::abort();
    benchmark::DoNotOptimize(file->modules.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK_CAPTURE(BM_ParseHlo, llama70b, "hlo_llama31_70b_bf16_16x8.hlo")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ParseHlo, mixtral, "hlo_mixtral_8x7b_bf16_1x8.hlo")->Unit(benchmark::kMillisecond);

void BM_ImportHlo(benchmark::State& state, const char* name) {
  std::string text = SharedHlo(name);
  if (text.empty()) {
    state.SkipWithError("../shared/data/hlo is not beside the checkout");
    return;
  }
  auto file = az::compile::xla::ParseHlo(text, name);
  if (!file.ok()) std::abort();
  for (auto _ : state) {
    auto imported = az::compile::xla::ImportHlo(*file);
    if (!imported.ok()) std::abort();
    benchmark::DoNotOptimize(imported->program.instructions.size());
  }
}
BENCHMARK_CAPTURE(BM_ImportHlo, llama70b, "hlo_llama31_70b_bf16_16x8.hlo")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ImportHlo, mixtral, "hlo_mixtral_8x7b_bf16_1x8.hlo")->Unit(benchmark::kMillisecond);

// One latency evaluation of the 70B step under a random placement: arg 0
// cycles 64 permutations (after the first pass the collective model's cache,
// keyed by physical groups, answers them: a search revisiting maps); arg 1
// draws a fresh permutation every time (every class priced anew on the
// routed links: the cost of a structured candidate or an annealing move
// that lands somewhere new).
void BM_PriceHlo70bOnV5p128(benchmark::State& state) {
  std::string text = SharedHlo("hlo_llama31_70b_bf16_16x8.hlo");
  if (text.empty()) {
    state.SkipWithError("../shared/data/hlo is not beside the checkout");
    return;
  }
  auto imported = az::compile::xla::ImportHloText(text, "70b.hlo");
  auto topology = az::hw::MakeTopology("v5p:4x4x8");
  if (!imported.ok() || !topology.ok()) std::abort();
  az::evidence::Evidence e = az::evidence::Extract(imported->program, "xla");
  auto calibration = az::price::DefaultPriceCalibration(*topology);
  auto sim = az::price::Simulator::Create(e, *topology, calibration.network, calibration.compute);
  if (!sim.ok()) std::abort();
  std::vector<az::net::Placement> placements(64, az::net::Placement(128));
  std::mt19937_64 rng(7);
  for (auto& p : placements) {
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
  }
  size_t i = 0;
  const bool fresh = state.range(0) == 1;
  az::net::Placement p = placements[0];
  for (auto _ : state) {
    if (fresh) {
      std::shuffle(p.begin(), p.end(), rng);
      benchmark::DoNotOptimize(sim->Latency(p));
    } else {
      benchmark::DoNotOptimize(sim->Latency(placements[i++ % placements.size()]));
    }
  }
}
BENCHMARK(BM_PriceHlo70bOnV5p128)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
