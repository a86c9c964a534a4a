// The non-DiT stage planner (stages.h): candidates, seeds, memory with the
// DiT resident, offload, transfers, determinism.
#include "search/stages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "compile/spmd/spmd_compiler.h"
#include "frontend/import/program_load.h"
#include "net/model.h"
#include "pir/rules/cost.h"
#include "search/stage_candidates.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::Config;
using search_test::StageOptions;
using search_test::Topo;

std::vector<StagePlan> Plan(const workload::Workload& config, const hw::Topology& t, const StagePlanOptions& o) {
  auto plans = PlanStages(config, t, o);
  EXPECT_TRUE(plans.ok()) << plans.status().message();
  return plans.ok() ? *plans : std::vector<StagePlan>();
}

const StageCandidateCost& Candidate(const StagePlan& plan, const std::string& sharding) {
  for (const StageCandidateCost& c : plan.candidates) {
    if (c.sharding == sharding) return c;
  }
  ADD_FAILURE() << plan.name << " has no candidate " << sharding;
  return plan.candidates.front();
}

std::vector<std::string> Names(const std::vector<StageCandidate>& candidates) {
  std::vector<std::string> names;
  for (const StageCandidate& c : candidates) names.push_back(c.Name());
  return names;
}

// 8 chips, 2 invocations (CFG's two prompts): G in {2, 4, 8} (the divisors of
// 8 above 1), each fsdp and tp; R in {1, 2} (the divisors of 2) while R x G <= 8,
// so G = 8 has no dp=2: 2 (single, dp=2) + 2 x 2 (G=2) + 2 x 2 (G=4) + 2 (G=8) = 12.
// Without tp and with one invocation (the VAE): single, fsdp=2, 4, 8; with
// the VAE's spatial split, spatial=G after fsdp=G.
TEST(StageCandidates, EnumerationDerivedByHand) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Names(EnumerateStageCandidates(8, 2, true)),
            (V{"single device", "dp=2", "fsdp=2", "fsdp=2,dp=2", "tp=2", "tp=2,dp=2", "fsdp=4", "fsdp=4,dp=2", "tp=4",
               "tp=4,dp=2", "fsdp=8", "tp=8"}));
  EXPECT_EQ(Names(EnumerateStageCandidates(8, 1, false)), (V{"single device", "fsdp=2", "fsdp=4", "fsdp=8"}));
  EXPECT_EQ(Names(EnumerateStageCandidates(8, 1, false, true)),
            (V{"single device", "fsdp=2", "spatial=2", "fsdp=4", "spatial=4", "fsdp=8", "spatial=8"}));
  EXPECT_EQ(Names(EnumerateStageCandidates(1, 2, true)), (V{"single device"}));
}

// Column linears: umT5 has q, k, v (after norm1) and gate.0, fc1 (after
// norm2) in each of 24 blocks: 120. CLIP ViT-H/14 runs 31 blocks; its to_qkv
// is viewed [B, L, 3, 16, 80] (two more dims: fused, left whole), so only the
// MLP's first linear counts: 31. The VAE decoder has no einsum linears: 0.
TEST(StageCandidates, ColumnLinearsOfEachStage) {
  workload::Workload i2v = Config("wan2.1-i2v-14b", 1280, 720, 81);
  auto t5 = i2v.Stage("umt5-xxl");
  auto clip = i2v.Stage("clip-vit-h-14");
  auto vae = i2v.Stage("wan-vae-decoder");
  ASSERT_TRUE(t5.ok() && clip.ok() && vae.ok());
  EXPECT_EQ(ColumnLinears(*t5).size(), 120u);
  EXPECT_EQ(ColumnLinears(*clip).size(), 31u);
  EXPECT_TRUE(ColumnLinears(*vae).empty());
  EXPECT_FALSE(StageTpSeeds(*vae, 0, 2).ok());
}

// CLIP-L's 12 heads do not split 8 ways: the error names the attention.
TEST(StageCandidates, TpDegreeMustDivideTheHeads) {
  auto clip = Config("hunyuanvideo-13b", 1280, 720, 129).Stage("clip-l-text");
  ASSERT_TRUE(clip.ok());
  EXPECT_TRUE(StageTpSeeds(*clip, 0, 4).ok());
  auto seeds = StageTpSeeds(*clip, 0, 8);
  ASSERT_FALSE(seeds.ok());
  EXPECT_NE(seeds.status().message().find("the 12 heads of 'encoder.layers.0.self_attn.attention'"),
            std::string::npos)
      << seeds.status().message();
}

// Every stage planned, in StagesOf's order; its latency positive and at least
// its FLOPs at the peak of every chip together (invocations x FLOPs / (chips x
// peak), the fastest a perfectly split stage could run: no candidate splits
// the work more than over all chips); the pick the fastest candidate that
// fits (within the 0.1% tie), and rounds x invocation + offload + transfer.
void CheckPlans(const workload::Workload& config, const hw::Topology& t) {
  std::vector<StagePlan> plans = Plan(config, t, StageOptions(t));
  std::vector<workload::StageInfo> stages = config.Stages();
  ASSERT_EQ(plans.size(), stages.size());
  const double peak = std::max({t.chip.bf16.value(), t.chip.fp16.value(), t.chip.fp32.value()});
  for (size_t i = 0; i < plans.size(); ++i) {
    const StagePlan& p = plans[i];
    SCOPED_TRACE(p.name + " on " + t.name);
    EXPECT_EQ(p.name, stages[i].name);
    EXPECT_TRUE(p.fits);
    EXPECT_FALSE(p.offloaded);
    EXPECT_GT(p.latency.value(), 0);
    EXPECT_GT(p.flops, 0);
    EXPECT_GE(p.latency.value(), static_cast<double>(p.invocations) * p.flops / (t.num_chips() * peak));
    EXPECT_DOUBLE_EQ(p.latency.value(), static_cast<double>(p.rounds) * p.invocation.value() + p.offload.value() + p.transfer_time.value());
    EXPECT_GT(p.transfer_time.value(), 0);  // 8 chips: the encoder output or the latent moves
    for (const StageCandidateCost& c : p.candidates) {
      if (c.ok && c.fits) {
        EXPECT_LE(p.latency.value() - p.transfer_time.value(), c.latency.value() * 1.001) << c.sharding;
      }
    }
    EXPECT_FALSE(p.placement.empty());
    int64_t devices = 1;
    for (const auto& [axis, size] : p.mesh) devices *= size;
    EXPECT_EQ(static_cast<int64_t>(p.placement.size()), devices);
  }
}

TEST(PlanStages, Wan14BAt720pOnH100x8) { CheckPlans(Config("wan2.1-t2v-14b", 1280, 720, 81), Topo("h100:8")); }
TEST(PlanStages, Wan14BAt720pOnV5e2x4) { CheckPlans(Config("wan2.1-t2v-14b", 1280, 720, 81), Topo("v5e:2x4")); }

// The umT5 output (bf16 [1, 512, 4096] = 512 x 4096 x 2 = 4 MiB) of both
// prompts broadcast to the 8 chips: two of the collective model's broadcasts,
// each from the first chip of the replica that encoded it.
// The VAE's latent: f32 [1, 16, 21, 90, 160] = 19,353,600 bytes, all-gathered.
TEST(PlanStages, TransfersArePricedWithTheCollectiveModel) {
  hw::Topology t = Topo("h100:8");
  std::vector<StagePlan> plans = Plan(Config("wan2.1-t2v-14b", 1280, 720, 81), t, StageOptions(t));
  ASSERT_EQ(plans.size(), 2u);
  net::CollectiveModel model(t, price::DefaultPriceCalibration(t).network);
  net::Collective c;
  c.groups.groups = {{0, 1, 2, 3, 4, 5, 6, 7}};
  c.kind = net::CollectiveKind::kBroadcast;
  c.bytes = Bytes(512 * 4096 * 2);
  const net::Placement identity = net::IdentityPlacement(8);
  // Invocation i is computed by replica i mod R and broadcast from its first chip.
  const StagePlan& t5 = plans[0];
  const int64_t replicas = t5.mesh.size() == 2 ? t5.mesh[0].second : 1;
  const size_t group = t5.placement.size() / static_cast<size_t>(replicas);
  double broadcast = 0;
  for (int64_t i = 0; i < 2; ++i) {
    c.root = t5.placement[static_cast<size_t>(i % replicas) * group];
    broadcast += model.Time(c, identity).value();
  }
  EXPECT_DOUBLE_EQ(plans[0].transfer_time.value(), broadcast);
  c.kind = net::CollectiveKind::kAllGather;
  c.bytes = Bytes(int64_t{16} * 21 * 90 * 160 * 4);
  EXPECT_DOUBLE_EQ(plans[1].transfer_time.value(), model.Time(c, identity).value());
  // One chip: nothing moves.
  hw::Topology one = Topo("h100:1");
  for (const StagePlan& p : Plan(Config("wan2.1-t2v-14b", 1280, 720, 81), one, StageOptions(one))) {
    EXPECT_EQ(p.transfer_time.value(), 0) << p.name;
    EXPECT_EQ(p.sharding, "single device");
  }
}

// umT5 on h100:8 with the DiT resident. First with nothing resident, to read
// what each candidate needs; then resident = HBM - single.peak + 1 MiB, so the
// single device (and dp=2, the same program) is over the HBM by 1 MiB while
// fsdp=8 (weights / 8 stored) needs less than the single device by far more
// than 1 MiB: FSDP fits where a single device does not.
TEST(PlanStages, ShardedUmt5FitsWhereASingleDeviceDoesNot) {
  hw::Topology t = Topo("h100:8");
  workload::Workload config = Config("wan2.1-t2v-14b", 1280, 720, 81);
  const StagePlan free = Plan(config, t, StageOptions(t)).at(0);
  ASSERT_EQ(free.name, "umt5-xxl");
  const int64_t single = Candidate(free, "single device").peak_memory.value();
  ASSERT_LT(Candidate(free, "fsdp=8").peak_memory.value() + MiB(1).value(), single);
  const int64_t resident = t.chip.hbm.value() - single + MiB(1).value();
  const StagePlan tight = Plan(config, t, StageOptions(t, resident)).at(0);
  EXPECT_FALSE(Candidate(tight, "single device").fits);
  EXPECT_FALSE(Candidate(tight, "dp=2").fits);
  EXPECT_TRUE(Candidate(tight, "fsdp=8").fits);
  EXPECT_TRUE(tight.fits);
  EXPECT_FALSE(tight.offloaded);
  EXPECT_LE(tight.peak_memory.value() + resident, t.chip.hbm.value());
  EXPECT_NE(tight.sharding, "single device");
  EXPECT_NE(tight.sharding, "dp=2");
}

// resident = HBM - (the smallest candidate peak) + 1 MiB: nothing fits
// resident, so the stage is offloaded. Offloaded, fsdp=8 needs peak -
// parameters + 2 x its largest shard (the 256384 x 4096 bf16 embedding / 8 =
// 262 MB), well under its peak (the 1.4 GB of stored weights leave), so some
// candidate fits. Its offload is rounds x parameter bytes / 64 GB/s (H100's
// host link, experts.h).
TEST(PlanStages, OffloadIsPricedWhenNothingFits) {
  hw::Topology t = Topo("h100:8");
  workload::Workload config = Config("wan2.1-t2v-14b", 1280, 720, 81);
  const StagePlan free = Plan(config, t, StageOptions(t)).at(0);
  int64_t smallest = free.candidates.front().peak_memory.value();
  for (const StageCandidateCost& c : free.candidates) {
    if (c.ok) smallest = std::min(smallest, c.peak_memory.value());
  }
  const int64_t resident = t.chip.hbm.value() - smallest + MiB(1).value();
  const StagePlan p = Plan(config, t, StageOptions(t, resident)).at(0);
  for (const StageCandidateCost& c : p.candidates) EXPECT_FALSE(c.fits) << c.sharding;
  EXPECT_TRUE(p.offloaded);
  EXPECT_TRUE(p.fits);
  EXPECT_LE(p.peak_memory.value() + resident, t.chip.hbm.value());
  const StageCandidateCost& chosen = Candidate(p, p.sharding);
  EXPECT_TRUE(chosen.fits_offloaded);
  EXPECT_EQ(p.peak_memory.value(),
            chosen.peak_memory.value() - chosen.parameter_memory.value() + 2 * chosen.largest_parameter.value());
  EXPECT_DOUBLE_EQ(p.offload.value(), static_cast<double>(p.rounds) * static_cast<double>(p.parameter_memory.value()) / 64e9);
  EXPECT_GT(p.offload.value(), 0);
  EXPECT_NE(p.note.find("streamed from host memory"), std::string::npos) << p.note;

  // The whole HBM resident: nothing fits even offloaded; said, not hidden.
  const StagePlan full = Plan(config, t, StageOptions(t, t.chip.hbm.value())).at(0);
  EXPECT_FALSE(full.fits);
  EXPECT_NE(full.note.find("nothing fits, even offloaded"), std::string::npos) << full.note;
}

// Wan's VAE on v5e:2x4 (16 GiB per chip): resident = HBM - (the smallest
// offloaded need) + 1 MiB, so no candidate fits, resident or with its own
// weights streamed. Declaring all of the resident bytes DiT weights lets the
// planner evict them: every candidate then needs its peak alone (the single
// device 14.8 GB at 720p, under 16 GiB), the reload is the same whoever runs
// (resident / 1.6e10 B/s, v5e's host link, experts.h), so the fastest wins:
// spatial=8.
TEST(PlanStages, TheDitIsEvictedWhenTheStageCannotFitBesideIt) {
  hw::Topology t = Topo("v5e:2x4");
  workload::Workload config = Config("wan2.1-t2v-14b", 1280, 720, 81);
  const StagePlan free = Plan(config, t, StageOptions(t)).at(1);
  ASSERT_EQ(free.name, "wan-vae-decoder");
  int64_t smallest = INT64_MAX;
  for (const StageCandidateCost& c : free.candidates) {
    if (c.ok) smallest = std::min(smallest, c.peak_memory.value() - c.parameter_memory.value() + 2 * c.largest_parameter.value());
  }
  const int64_t resident = t.chip.hbm.value() - smallest + MiB(1).value();
  StagePlanOptions o = StageOptions(t, resident);
  const StagePlan stuck = Plan(config, t, o).at(1);
  EXPECT_FALSE(stuck.fits);
  EXPECT_FALSE(stuck.dit_evicted);
  o.dit_parameter_bytes_per_chip = resident;
  const StagePlan p = Plan(config, t, o).at(1);
  EXPECT_TRUE(p.fits);
  EXPECT_TRUE(p.offloaded);
  EXPECT_TRUE(p.dit_evicted);
  EXPECT_TRUE(Candidate(p, "single device").fits_evicted);
  EXPECT_EQ(p.sharding, "spatial=8");
  EXPECT_DOUBLE_EQ(p.offload.value(), static_cast<double>(resident) / 1.6e10);
  EXPECT_LE(p.peak_memory.value(), t.chip.hbm.value());
  EXPECT_NE(p.note.find("evicted"), std::string::npos) << p.note;
}

// The same plans twice, on one thread and on two.
TEST(PlanStages, Deterministic) {
  hw::Topology t = Topo("v5e:2x4");
  workload::Workload config = Config("wan2.1-i2v-14b", 832, 480, 33);
  std::vector<StagePlan> a = Plan(config, t, StageOptions(t, 0, 1));
  std::vector<StagePlan> b = Plan(config, t, StageOptions(t, 0, 2));
  std::vector<StagePlan> c = Plan(config, t, StageOptions(t, 0, 2));
  ASSERT_EQ(a.size(), 4u);  // umT5, CLIP ViT-H, the VAE encoder of the first frame, the VAE decoder
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(b.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) {
    for (const std::vector<StagePlan>* other : {&b, &c}) {
      const StagePlan& o = (*other)[i];
      EXPECT_EQ(a[i].sharding, o.sharding);
      EXPECT_EQ(a[i].placement, o.placement);
      EXPECT_EQ(a[i].latency.value(), o.latency.value());
      EXPECT_EQ(a[i].peak_memory.value(), o.peak_memory.value());
      EXPECT_EQ(a[i].note, o.note);
      ASSERT_EQ(a[i].candidates.size(), o.candidates.size());
      for (size_t k = 0; k < a[i].candidates.size(); ++k) {
        EXPECT_EQ(a[i].candidates[k].latency.value(), o.candidates[k].latency.value());
        EXPECT_EQ(a[i].candidates[k].peak_memory.value(), o.candidates[k].peak_memory.value());
      }
    }
  }
}

// A model whose stages are not built, and an imported program's name: no
// stages, no error.
TEST(PlanStages, ModelsWithoutBuiltStagesGiveAnEmptyList) {
  hw::Topology t = Topo("h100:8");
  auto none = PlanStages(Config("cogvideox-5b", 720, 480, 49), t, StageOptions(t));
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->empty());
  // An imported program (here the zoo's one-block forward as a program) is
  // one graph: no stages around it.
  workload::Workload block = Config("wan2.1-t2v-1.3b", 832, 480, 17);
  block.depth_units = 1;
  auto graph = block.Forward();
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  const workload::Workload imported = frontend::ProgramWorkload("model.stablehlo", *graph, 1);
  auto empty = PlanStages(imported, t, StageOptions(t));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_TRUE(empty->empty());
}

// The dim spatial=G splits (stages.h): Wan's latent at 720p is 90 rows x 160
// columns (1280 x 720 / 8); 2 and 3 divide the rows, 4 and 8 only the
// columns, 7 neither. The I2V encoder reads 720 x 1280 and writes the same
// latent: its smallest extents are the latent's too.
TEST(StageCandidates, SpatialSplitsTheRowsElseTheColumns) {
  workload::Workload i2v = Config("wan2.1-i2v-14b", 1280, 720, 81);
  for (const char* stage : {"wan-vae-decoder", "wan-vae-encoder"}) {
    SCOPED_TRACE(stage);
    auto vae = i2v.Stage(stage);
    ASSERT_TRUE(vae.ok());
    for (const auto& [n, dim] : std::vector<std::pair<int64_t, int>>{{2, 3}, {3, 3}, {4, 4}, {8, 4}}) {
      auto got = SpatialSplitDim(*vae, n);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(*got, dim) << n;
    }
    auto seven = SpatialSplitDim(*vae, 7);
    ASSERT_FALSE(seven.ok());
    EXPECT_NE(seven.status().message().find("7 divides neither the 90 rows nor the 160 columns"), std::string::npos)
        << seven.status().message();
  }
  auto t5 = i2v.Stage("umt5-xxl");
  ASSERT_TRUE(t5.ok());
  EXPECT_FALSE(SpatialSplitDim(*t5, 2).ok());  // tokens, not a video
}

// The halo traffic of Wan 2.1's VAE decoder at 720p (81 frames: 21 latent
// frames, one chunk each, wan/modules/vae.py) split in 8 bands, by hand.
// 8 does not divide the 90 latent rows, so the bands are columns (160 / 8 =
// 20 latent columns each). Every convolution with a 3x3 spatial kernel (one
// column of zeros each side) sends one column each way: 2 permutes of
//     H rows x C_in channels x T_in frames x 4 B (f32; batch 1),
// the 1x1 convolutions (to_qkv, proj, shortcuts, the upsamplers' time_conv)
// none. Per chunk, 33 such convolutions (Decoder3d, dims 384, 384, 384, 192,
// 96; each level's rows H = 90, 180, 360, 720):
//   conv1 (C_in 16) and the middle's 2 x 2 and stage 0's 3 x 2 residual
//     convolutions (C_in 384), H = 90;
//   stage 0's resample conv (384), H = 180; stage 1: 6 (the first 192, the
//     rest 384), H = 180; its resample conv (384), H = 360;
//   stage 2: 6 (192), H = 360; its resample conv (192), H = 720;
//   stage 3: 6 (96) and the head (96), H = 720.
// T_in: a causal 3-frame conv reads its chunk's frames after the cached last
// <= 2 frames it read in the chunk before (the resample convs, 2-D, cache
// nothing). Chunk 0 has 1 frame everywhere (its upsamplers skip time_conv)
// and caches 1; chunk 1 has 1, 2 and 4 frames at stages 0, 1 and 2-3, so its
// causal convs read 1 + 1, 1 + 2 and 1 + 4; later chunks 2 + 1, 2 + 2, 2 + 4;
// the resample convs read the upsampled frames: 1 in chunk 0, then 2 after
// stage 0 and 4 after stages 1 and 2.
int64_t WanDecoderHaloBytes(int64_t chunks, int64_t split_dim_rows_per_latent_row) {
  int64_t bytes = 0;
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const int64_t cache = chunk == 0 ? 0 : chunk == 1 ? 1 : 2;
    const int64_t f0 = 1, f1 = chunk == 0 ? 1 : 2, f2 = chunk == 0 ? 1 : 4;  // frames at each stage
    struct Conv {
      int64_t count, c_in, level, frames;
    };
    const Conv convs[] = {
        {1, 16, 1, cache + f0},   {10, 384, 1, cache + f0},  // conv1; middle and stage 0
        {1, 384, 2, f1},                                      // stage 0's resample
        {1, 192, 2, cache + f1},  {5, 384, 2, cache + f1},   // stage 1
        {1, 384, 4, f2},                                      // stage 1's resample
        {6, 192, 4, cache + f2},  {1, 192, 8, f2},           // stage 2 and its resample
        {7, 96, 8, cache + f2},                               // stage 3 and the head
    };
    for (const Conv& c : convs) bytes += c.count * 2 * split_dim_rows_per_latent_row * c.level * c.c_in * c.frames * 4;
  }
  return bytes;
}

StatusOr<cir::Program> CompileSpatial(const pir::Graph& graph, int64_t n) {
  AZ_ASSIGN_OR_RETURN(int dim, SpatialSplitDim(graph, n));
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(std::string(dim == 3 ? "height" : "width") + "=" +
                                                           std::to_string(n)));
  AZ_ASSIGN_OR_RETURN(shard::Seeds seeds, StageSpatialSeeds(graph, 0, dim));
  AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(graph, mesh, seeds));
  AZ_RETURN_IF_ERROR(CheckSpatialPlan(graph, plan));
  return compile::SpmdCompiler().Compile(graph, plan, compile::CompileOptions());
}

TEST(PlanStages, WanVaeDecoderHaloTrafficByHand) {
  workload::Workload config = Config("wan2.1-t2v-14b", 1280, 720, 81);
  auto vae = config.Stage("wan-vae-decoder");
  ASSERT_TRUE(vae.ok());
  // 8 bands of columns: a column is H rows tall (90 at the latent).
  auto eight = CompileSpatial(*vae, 8);
  ASSERT_TRUE(eight.ok()) << eight.status().message();
  cir::ProgramSummary s = cir::Summarize(*eight);
  int permutes = 0;
  Bytes permuted;
  for (const auto& [kind, count, bytes] : s.collectives) {
    if (kind != cir::CollectiveKind::kCollectivePermute) continue;
    permutes = count;
    permuted = bytes;
  }
  EXPECT_EQ(permutes, 21 * 33 * 2);
  EXPECT_EQ(permuted, Bytes(WanDecoderHaloBytes(21, 90)));  // 1,474,329,600 B
  // 2 bands of rows: a row is W columns wide (160 at the latent).
  auto two = CompileSpatial(*vae, 2);
  ASSERT_TRUE(two.ok()) << two.status().message();
  for (const auto& [kind, count, bytes] : cir::Summarize(*two).collectives) {
    if (kind != cir::CollectiveKind::kCollectivePermute) continue;
    EXPECT_EQ(count, 21 * 33 * 2);
    EXPECT_EQ(bytes, Bytes(WanDecoderHaloBytes(21, 160)));
  }
}

// What the pricing says on h100:8: the decoder's work splits 8 ways at the
// price of the halos (the permutes above, each a few microseconds on
// NVLink), the halo concatenation copies and a middle attention replicated
// on every band (its 90 x 160 positions cannot stay split by columns): the
// spatial=8 invocation is faster than the single device's, but not faster
// than a perfect 8-way split of it. spatial=8 is picked.
TEST(PlanStages, WanVaeDecoderSplitsOnH100x8) {
  hw::Topology t = Topo("h100:8");
  const StagePlan vae = Plan(Config("wan2.1-t2v-14b", 1280, 720, 81), t, StageOptions(t)).at(1);
  ASSERT_EQ(vae.name, "wan-vae-decoder");
  const StageCandidateCost& single = Candidate(vae, "single device");
  const StageCandidateCost& eight = Candidate(vae, "spatial=8");
  ASSERT_TRUE(eight.ok) << eight.error;
  EXPECT_LT(eight.invocation.value(), single.invocation.value());
  EXPECT_GT(eight.invocation.value(), single.invocation.value() / 8);
  EXPECT_LT(Candidate(vae, "spatial=8").invocation, Candidate(vae, "spatial=4").invocation);
  EXPECT_LT(Candidate(vae, "spatial=4").invocation, Candidate(vae, "spatial=2").invocation);
  EXPECT_EQ(vae.sharding, "spatial=8");
  EXPECT_EQ(vae.mesh, (std::vector<std::pair<std::string, int64_t>>{{"width", 8}}));
  EXPECT_NE(vae.note.find("the width split in 8 bands"), std::string::npos) << vae.note;
  // Each band holds 1/8 of the activations: far below the single device.
  EXPECT_LT(eight.peak_memory.value(), single.peak_memory.value() / 4);
}

// v5e:2x4 with resident = HBM - the single device's peak + 1 MiB: the single
// device (and FSDP, which stores its weights split but holds the same
// activations) no longer fits beside the DiT; the bands do, resident.
TEST(PlanStages, SpatialFitsWhereASingleDeviceDoesNot) {
  hw::Topology t = Topo("v5e:2x4");
  workload::Workload config = Config("wan2.1-t2v-14b", 1280, 720, 81);
  const StagePlan free = Plan(config, t, StageOptions(t)).at(1);
  const int64_t resident = t.chip.hbm.value() - Candidate(free, "single device").peak_memory.value() + MiB(1).value();
  const StagePlan tight = Plan(config, t, StageOptions(t, resident)).at(1);
  EXPECT_FALSE(Candidate(tight, "single device").fits);
  EXPECT_TRUE(Candidate(tight, "spatial=8").fits);
  EXPECT_FALSE(tight.offloaded);
  EXPECT_EQ(tight.sharding, "spatial=8");
}

// HunyuanVideo's decoder at 256 x 256, 5 frames: 32 x 32 latents, one tile
// (no tiling). Its mid-block attention runs over frames x rows x columns
// tokens, frames major: with 2 latent frames the split rows cannot stay split
// through that reshape, so the attention runs gathered; seeded at the output
// too, every op after it is split again (seeded at the input alone, they
// would all run whole on every device).
TEST(StageCandidates, SpatialSeedsSplitBothSidesOfAGatheredAttention) {
  auto vae = Config("hunyuanvideo-13b", 256, 256, 5).Stage("hunyuan-vae-decoder");
  ASSERT_TRUE(vae.ok());
  auto seeds = StageSpatialSeeds(*vae, 0, 3);
  ASSERT_TRUE(seeds.ok());
  auto mesh = shard::Mesh::Parse("height=4");
  ASSERT_TRUE(mesh.ok());
  auto plan = shard::Propagate(*vae, *mesh, *seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_TRUE(CheckSpatialPlan(*vae, *plan).ok());
  auto split = [&](const std::string& op) {
    for (pir::OpId id = 0; id < vae->num_ops(); ++id) {
      if (vae->op(id).name != op) continue;
      const shard::TensorSharding& s = plan->values[static_cast<size_t>(vae->op(id).results[0])];
      for (const auto& dim : s.dims) {
        if (!dim.empty()) return true;
      }
      return false;
    }
    ADD_FAILURE() << "no op " << op;
    return false;
  };
  EXPECT_TRUE(split("decoder.conv_in.conv"));
  EXPECT_FALSE(split("decoder.mid_block.attentions.0.sdpa"));
  EXPECT_TRUE(split("decoder.mid_block.resnets.1.conv1.conv"));
  EXPECT_TRUE(split("decoder.conv_out.conv"));
  auto program = compile::SpmdCompiler().Compile(*vae, *plan, compile::CompileOptions());
  EXPECT_TRUE(program.ok()) << program.status().message();
}

// HunyuanVideo's decoder at 720p runs in tiles of 32 x 32 latents cut by
// slices of the latent: a split of its rows or columns reaches those slices,
// which the compiler cannot partition; the candidate fails with the reason
// (its runs are spread over the chips instead: tiles=G, stage_tiles_test.cc).
TEST(PlanStages, HunyuanTiledDecoderIsNotSplitSpatially) {
  hw::Topology t = Topo("h100:8");
  const StagePlan vae = Plan(Config("hunyuanvideo-13b", 1280, 720, 129), t, StageOptions(t)).back();
  ASSERT_EQ(vae.name, "hunyuan-vae-decoder");
  const StageCandidateCost& two = Candidate(vae, "spatial=2");
  EXPECT_FALSE(two.ok);
  EXPECT_NE(two.error.find("the split reaches 'ttile_0.tile_0_0.latent_rows' (slice of the split dim)"),
            std::string::npos)
      << two.error;
  EXPECT_EQ(vae.sharding.rfind("spatial", 0), std::string::npos);
  EXPECT_NE(vae.note.find("; spatial: the split reaches"), std::string::npos) << vae.note;
}

}  // namespace
}  // namespace az::search
