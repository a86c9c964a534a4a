// Pricing one collective under a placement: the inner loop of placement search.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>

#include "net/model.h"

namespace {

using az::net::Collective;
using az::net::CollectiveKind;

// Warm: the same few placements again and again (the search revisits them).
void BM_CollectiveTimeWarm(benchmark::State& state, const char* topology, const char* groups, CollectiveKind kind) {
  auto t = az::hw::MakeTopology(topology);
  if (!t.ok()) std::abort();
  az::net::CollectiveModel model(*t, az::net::DefaultCalibration(*t));
  Collective c;
  c.kind = kind;
  c.bytes = az::Bytes(64 << 20);
  c.groups = *az::net::ParseReplicaGroups(groups, t->num_chips());
  std::vector<az::net::Placement> placements;
  std::mt19937 rng(7);
  for (int i = 0; i < 16; ++i) {
    az::net::Placement p = az::net::IdentityPlacement(t->num_chips());
    std::shuffle(p.begin(), p.end(), rng);
    placements.push_back(p);
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.Time(c, placements[i++ % placements.size()]));
  }
}
BENCHMARK_CAPTURE(BM_CollectiveTimeWarm, v5e_2x4_allgather, "v5e:2x4", "[2,4]<=[8]", CollectiveKind::kAllGather);
BENCHMARK_CAPTURE(BM_CollectiveTimeWarm, v5e_4x4_allreduce, "v5e:4x4", "[4,4]<=[16]", CollectiveKind::kAllReduce);
BENCHMARK_CAPTURE(BM_CollectiveTimeWarm, h100_8_alltoall, "h100:8", "[1,8]<=[8]", CollectiveKind::kAllToAll);

// Cold: a new placement every time through Price (validation, no cache): the
// cost of the model itself.
void BM_CollectivePriceCold(benchmark::State& state, const char* topology, const char* groups, CollectiveKind kind) {
  auto t = az::hw::MakeTopology(topology);
  if (!t.ok()) std::abort();
  Collective c;
  c.kind = kind;
  c.bytes = az::Bytes(64 << 20);
  c.groups = *az::net::ParseReplicaGroups(groups, t->num_chips());
  az::net::CollectiveModel model(*t, az::net::DefaultCalibration(*t));
  az::net::Placement p = az::net::IdentityPlacement(t->num_chips());
  std::mt19937 rng(7);
  for (auto _ : state) {
    std::shuffle(p.begin(), p.end(), rng);
    benchmark::DoNotOptimize(model.Price(c, p));
  }
}
BENCHMARK_CAPTURE(BM_CollectivePriceCold, v5e_2x4_allgather, "v5e:2x4", "[2,4]<=[8]", CollectiveKind::kAllGather);
BENCHMARK_CAPTURE(BM_CollectivePriceCold, v5e_4x4_allreduce, "v5e:4x4", "[4,4]<=[16]", CollectiveKind::kAllReduce);

}  // namespace
