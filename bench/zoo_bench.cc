// Benchmarks of the foundation: building zoo graphs, verifying them, summarizing
// them (what `aoizora inspect` does), and the PIR text round trip.
// Run: make bench   (figures are recorded in README.md).
#include <benchmark/benchmark.h>

#include "frontend/zoo/zoo.h"
#include "pir/analysis/summary.h"
#include "pir/text/parser.h"
#include "pir/text/printer.h"
#include "pir/verify/verifier.h"

namespace {

az::zoo::ModelConfig Config(const char* model) {
  auto config = az::zoo::ResolveConfig(model, {});
  if (!config.ok()) std::abort();
  return *config;
}

void BM_BuildForward(benchmark::State& state, const char* model) {
  az::zoo::ModelConfig config = Config(model);
  for (auto _ : state) {
    auto graph = az::zoo::BuildForward(config);
    benchmark::DoNotOptimize(graph);
  }
}
BENCHMARK_CAPTURE(BM_BuildForward, wan14b_720p, "wan2.1-t2v-14b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildForward, hunyuan_720p, "hunyuanvideo-13b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildForward, wan22_a14b_720p, "wan2.2-t2v-a14b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildForward, cogvideox5b_480p, "cogvideox-5b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildForward, stepvideo_544p, "step-video-t2v")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildForward, mochi_480p, "mochi-1")->Unit(benchmark::kMillisecond);

// Everything `aoizora inspect --model wan2.1-t2v-14b` computes: both graphs and their summaries.
void BM_Inspect(benchmark::State& state, const char* model) {
  az::zoo::ModelConfig config = Config(model);
  for (auto _ : state) {
    auto forward = az::zoo::BuildForward(config);
    auto step = az::zoo::BuildStep(config);
    benchmark::DoNotOptimize(az::pir::SummarizeGraph(*forward));
    benchmark::DoNotOptimize(az::pir::SummarizeGraph(*step));
  }
}
BENCHMARK_CAPTURE(BM_Inspect, wan14b_720p, "wan2.1-t2v-14b")->Unit(benchmark::kMillisecond);

void BM_Verify(benchmark::State& state) {
  auto graph = az::zoo::BuildForward(Config("wan2.1-t2v-14b"));
  for (auto _ : state) benchmark::DoNotOptimize(az::pir::VerifyGraph(*graph));
}
BENCHMARK(BM_Verify)->Unit(benchmark::kMillisecond);

void BM_PrintParse(benchmark::State& state) {
  auto graph = az::zoo::BuildForward(Config("wan2.1-t2v-14b"));
  std::string text = az::pir::PrintGraph(*graph);
  for (auto _ : state) {
    auto parsed = az::pir::ParseGraph(az::pir::PrintGraph(*graph), "bench.pir");
    benchmark::DoNotOptimize(parsed);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_PrintParse)->Unit(benchmark::kMillisecond);

}  // namespace
