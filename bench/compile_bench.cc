// Compiling the full Wan 2.1 T2V-14B 720p forward under a template: seeds,
// propagation, the SPMD lowering with fusion and async scheduling, evidence.
#include <benchmark/benchmark.h>

#include "compile/spmd/spmd_compiler.h"
#include "evidence/evidence.h"
#include "frontend/zoo/zoo.h"
#include "shard/templates.h"

namespace {

void BM_CompileWan14B720p(benchmark::State& state, const char* mesh_text, const char* spec) {
  az::zoo::ModelOptions options;
  options.cfg = az::zoo::CfgMode::kNone;
  auto config = az::zoo::ResolveConfig("wan2.1-t2v-14b", options);
  auto graph = az::zoo::BuildForward(*config);
  auto mesh = az::shard::Mesh::Parse(mesh_text);
  if (!graph.ok() || !mesh.ok()) std::abort();
  az::compile::SpmdCompiler compiler;
  for (auto _ : state) {
    auto seeds = az::shard::TemplateSeeds(*graph, *mesh, spec);
    auto plan = az::shard::Propagate(*graph, *mesh, *seeds);
    auto program = compiler.Compile(*graph, *plan, {});
    if (!program.ok()) std::abort();
    benchmark::DoNotOptimize(az::evidence::Extract(*program, compiler.name()));
  }
}
BENCHMARK_CAPTURE(BM_CompileWan14B720p, ulysses8, "sp=8", "ulysses=sp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileWan14B720p, ring4, "sp=4", "ring=sp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileWan14B720p, fsdp8, "f=8", "fsdp=f")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileWan14B720p, usp2x4, "u=2,r=4", "usp:ulysses=u,ring=r")
    ->Unit(benchmark::kMillisecond);

}  // namespace
