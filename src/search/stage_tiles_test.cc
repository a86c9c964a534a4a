// The tile-parallel decode of a tiled VAE decoder (stage_tiles.h, stages.h's
// tiles=G): the assignment, the gather, a small decode by hand, HunyuanVideo
// at 720p on h100:8 and v5e:2x4, determinism.
#include "search/stage_tiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "frontend/models.h"
#include "net/model.h"
#include "search/planner.h"
#include "search/stage_candidates.h"
#include "search/stages.h"
#include "search/testing.h"

namespace az::search {
namespace {

using search_test::StageOptions;
using search_test::Topo;

workload::Workload Config(int64_t width, int64_t height, int64_t frames) {
  return search_test::Config("hunyuanvideo-13b", width, height, frames);
}

StagePlan VaePlan(const workload::Workload& config, const hw::Topology& t, const StagePlanOptions& o) {
  auto plans = PlanStages(config, t, o);
  EXPECT_TRUE(plans.ok()) << plans.status().message();
  if (!plans.ok() || plans->empty()) return StagePlan();
  EXPECT_EQ(plans->back().name, "hunyuan-vae-decoder");
  return plans->back();
}

const StageCandidateCost& Candidate(const StagePlan& plan, const std::string& sharding) {
  for (const StageCandidateCost& c : plan.candidates) {
    if (c.sharding == sharding) return c;
  }
  ADD_FAILURE() << plan.name << " has no candidate " << sharding;
  static const StageCandidateCost kNone;
  return kNone;
}

std::vector<std::string> Names(const std::vector<StageCandidate>& candidates) {
  std::vector<std::string> names;
  for (const StageCandidate& c : candidates) names.push_back(c.Name());
  return names;
}

// tiles=G after spatial=G for each G; one invocation: no dp.
TEST(StageTiles, Enumeration) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Names(EnumerateStageCandidates(8, 1, false, true, true)),
            (V{"single device", "fsdp=2", "spatial=2", "tiles=2", "fsdp=4", "spatial=4", "tiles=4", "fsdp=8",
               "spatial=8", "tiles=8"}));
  // Two videos (invocations): tiles=2 with two replicas on 4 chips.
  EXPECT_EQ(Names(EnumerateStageCandidates(4, 2, false, false, true)),
            (V{"single device", "dp=2", "fsdp=2", "fsdp=2,dp=2", "tiles=2", "tiles=2,dp=2", "fsdp=4", "tiles=4"}));
}

// Longest first, by hand. Runs 5, 4, 3, 3, 2 s on 2 chips: 5 -> chip 0 (5, 0);
// 4 -> chip 1 (5, 4); run 2 (3) -> chip 1 (5, 7); run 3 (3) -> chip 0 (8, 7);
// 2 -> chip 1 (8, 9): makespan 9, the optimum (17 s in all: at least 9).
// Runs 2, 3, 2, 3, 2 on 2 chips: run 1 (3) -> chip 0 (loads tie: the lower
// chip), run 3 (3) -> chip 1, then the 2s in run order: run 0 -> chip 0
// (5, 3), run 2 -> chip 1 (5, 5), run 4 -> chip 0 (7, 5): makespan 7, where
// 3 + 3 | 2 + 2 + 2 takes 6: LPT's known gap (at most 4/3 - 1/(3 chips)).
// Equal runs go in run order; more chips than runs leave chips idle.
TEST(StageTiles, LongestFirstAssignmentByHand) {
  TileAssignment a = AssignTileRuns({5, 4, 3, 3, 2}, 2);
  EXPECT_EQ(a.chip_of_run, (std::vector<int>{0, 1, 1, 0, 1}));
  EXPECT_EQ(a.load_s, (std::vector<double>{8, 9}));
  EXPECT_EQ(a.makespan_s, 9);
  TileAssignment b = AssignTileRuns({2, 3, 2, 3, 2}, 2);
  EXPECT_EQ(b.chip_of_run, (std::vector<int>{0, 0, 1, 1, 0}));
  EXPECT_EQ(b.makespan_s, 7);
  TileAssignment c = AssignTileRuns({1, 1}, 4);
  EXPECT_EQ(c.chip_of_run, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.load_s, (std::vector<double>{1, 1, 0, 0}));
  EXPECT_EQ(c.makespan_s, 1);
}

// The gather by hand on h100:8. Shares (decoded bytes per logical chip) 5, 3,
// 7, 3 MB: chip 0 keeps its 5; the others send 3 + 7 + 3 = 13 MB. Levels of
// the senders' shares: 3 MB from chips 1, 2, 3 at once, then the 4 MB chip 2
// has left, alone: two routed permutes into chip 0, one after the other.
TEST(StageTiles, GatherInLevelsByHand) {
  hw::Topology t = Topo("h100:8");
  const net::Calibration network = price::DefaultPriceCalibration(t).network;
  const net::Placement placement{4, 5, 6, 7};  // logical 0 on chip 4
  auto gather = PriceTileGather({5'000'000, 3'000'000, 7'000'000, 3'000'000}, placement, t, network);
  ASSERT_TRUE(gather.ok()) << gather.status().message();
  EXPECT_EQ(gather->bytes, 13'000'000);
  net::CollectiveModel model(t, network);
  net::Collective all;
  all.kind = net::CollectiveKind::kCollectivePermute;
  all.bytes = Bytes(3'000'000);
  all.pairs = {{1, 0}, {2, 0}, {3, 0}};
  net::Collective rest = all;
  rest.bytes = Bytes(4'000'000);
  rest.pairs = {{2, 0}};
  EXPECT_DOUBLE_EQ(gather->time_s, model.Time(all, placement).value() + model.Time(rest, placement).value());
  // Three senders into one NVSwitch port: the first level takes longer than
  // one 3 MB transfer alone (they share chip 4's link).
  net::Collective one = all;
  one.pairs = {{1, 0}};
  EXPECT_GT(model.Time(all, placement).value(), model.Time(one, placement).value());
  // Nothing to send: no time. Too many shares: an error.
  auto alone = PriceTileGather({5'000'000}, placement, t, network);
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->time_s, 0);
  EXPECT_FALSE(PriceTileGather(std::vector<int64_t>(5, 1), placement, t, network).ok());
}

// A small decode by hand: 320 x 256, 33 frames is 9 latent frames of 32 x 40
// (zoo/vae_test.cc, HunyuanDecoderTilingEdges): 4 runs, the latent tiles
// 32 x 32, 32 x 16, 8 x 32, 8 x 16 (rows x columns), each decoding 1 + 4 x 8 =
// 33 frames at 8x: [1, 3, 33, 256, 256], [.., 256, 128], [.., 64, 256],
// [.., 64, 128], in f16: 3 x 33 x 2 = 198 B per pixel of a tile, so 12,976,128,
// 6,488,064, 3,244,032 and 1,622,016 B. Each shape is its own program.
TEST(StageTiles, SmallDecodeByHand) {
  const workload::Workload config = Config(320, 256, 33);
  hw::Topology t = Topo("h100:8");
  const price::PriceCalibration calibration = price::DefaultPriceCalibration(t);
  auto decode = PriceTiledDecode(config, "hunyuan-vae-decoder", t, calibration, 2);
  ASSERT_TRUE(decode.ok()) << decode.status().message();
  ASSERT_EQ(decode->runs.size(), 4u);
  ASSERT_EQ(decode->programs.size(), 4u);
  EXPECT_EQ(decode->program_of_run, (std::vector<int>{0, 1, 2, 3}));
  const std::vector<int64_t> decoded{198 * 256 * 256, 198 * 256 * 128, 198 * 64 * 256, 198 * 64 * 128};
  std::vector<double> run(4);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(decode->programs[i].decoded_bytes, decoded[i]);
    EXPECT_EQ(decode->programs[i].parameter_bytes, 146'136'339 * 2);  // the decoder's weights, f16
    run[i] = decode->programs[i].run_s;
  }
  // The latent: [1, 16, 9, 32, 40] f16.
  EXPECT_EQ(decode->latent_bytes, 16 * 9 * 32 * 40 * 2);
  // The simulated runs order as their sizes (1024, 512, 256, 128 latents),
  // and the largest takes longer than the next two together (its mid-block
  // attention over 9 x 32 x 32 = 9,216 tokens grows as their square), read
  // from the programs, as the assignment below needs:
  ASSERT_GT(run[0], run[1]);
  ASSERT_GT(run[1], run[2]);
  ASSERT_GT(run[2], run[3]);
  ASSERT_GT(run[0], run[1] + run[2]);
  // tiles=2, longest first: run 0 -> chip 0, run 1 -> chip 1, run 2 -> chip 1
  // (run[1] < run[0]), run 3 -> chip 1 (run[1] + run[2] < run[0]). Chip 1
  // sends runs 1, 2 and 3: 6,488,064 + 3,244,032 + 1,622,016 = 11,354,112 B.
  const net::Placement two{0, 1};
  StageCandidateCost cost;
  ASSERT_TRUE(PriceTilesReplica(*decode, 2, two, t, calibration.network, cost).ok());
  EXPECT_EQ(cost.tile_runs, 4);
  EXPECT_DOUBLE_EQ(cost.makespan.value(), std::max(run[0], run[1] + run[2] + run[3]));
  EXPECT_EQ(cost.gathered.value(), 11'354'112);
  auto gather = PriceTileGather({decoded[0], decoded[1] + decoded[2] + decoded[3]}, two, t, calibration.network);
  ASSERT_TRUE(gather.ok());
  EXPECT_DOUBLE_EQ(cost.gather.value(), gather->time_s);
  EXPECT_DOUBLE_EQ(cost.invocation.value(), cost.makespan.value() + cost.gather.value() + decode->blend_s);
  // Memory: chip 0 holds the latent while it decodes run 0, then blends;
  // chip 1 holds the latent and the tiles it has decoded while it decodes
  // runs 1, 2, 3 in run order.
  const TileProgram* p = decode->programs.data();
  const int64_t chip0 = std::max(decode->latent_bytes + p[0].peak_memory_bytes,
                                 decode->blend_peak_memory_bytes + p[0].parameter_bytes);
  const int64_t chip1 = decode->latent_bytes + std::max({p[1].peak_memory_bytes, decoded[1] + p[2].peak_memory_bytes,
                                                         decoded[1] + decoded[2] + p[3].peak_memory_bytes});
  EXPECT_EQ(cost.peak_memory.value(), std::max(chip0, chip1));
  EXPECT_EQ(cost.parameter_memory.value(), p[0].parameter_bytes);
  // tiles=4: a run per chip; the makespan is the largest run, as on 2 chips;
  // chips 1-3 send the same 11,354,112 B (now at once).
  StageCandidateCost four;
  ASSERT_TRUE(PriceTilesReplica(*decode, 4, {0, 1, 2, 3}, t, calibration.network, four).ok());
  EXPECT_EQ(four.makespan.value(), run[0]);
  EXPECT_EQ(four.gathered.value(), 11'354'112);
  // tiles=8: more chips than runs.
  StageCandidateCost eight;
  Status refused = PriceTilesReplica(*decode, 8, {0, 1, 2, 3, 4, 5, 6, 7}, t, calibration.network, eight);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("tiles=8: the decoder runs 4 tiles, fewer than the chips"), std::string::npos)
      << refused.message();
}

// HunyuanVideo at 1280 x 720, 129 frames on h100:8: 84 runs (zoo/vae_test.cc).
// Their decoded tiles, whole, are per temporal tile 65, 65, 33 frames by rows
// 3 x 256 + 144 = 912 by columns 6 x 256 + 128 = 1664, in f16:
//   3 x 2 x 163 x 912 x 1664 = 1,484,181,504 B,
// 2.08 x the video's 3 x 129 x 720 x 1280 x 2 = 713,318,400 B: the tiles
// overlap by a quarter each way (and a quarter of the frames), and the blends
// read the overlaps. All of it but the first chip's own share is sent.
TEST(StageTiles, HunyuanVideo720pOnH100x8) {
  hw::Topology t = Topo("h100:8");
  const workload::Workload config = Config(1280, 720, 129);
  const StagePlan vae = VaePlan(config, t, StageOptions(t));
  const StageCandidateCost& single = Candidate(vae, "single device");
  const StageCandidateCost& two = Candidate(vae, "tiles=2");
  const StageCandidateCost& four = Candidate(vae, "tiles=4");
  const StageCandidateCost& eight = Candidate(vae, "tiles=8");
  ASSERT_TRUE(eight.ok) << eight.error;
  EXPECT_EQ(vae.sharding, "tiles=8");
  EXPECT_EQ(vae.mesh, (std::vector<std::pair<std::string, int64_t>>{{"tiles", 8}}));
  EXPECT_EQ(eight.tile_runs, 84);
  // More chips, faster; never faster than the single device's work split
  // perfectly 8 ways.
  EXPECT_LT(eight.invocation.value(), four.invocation.value());
  EXPECT_LT(four.invocation.value(), two.invocation.value());
  EXPECT_LT(two.invocation.value(), single.invocation.value());
  EXPECT_GT(eight.invocation.value(), single.invocation.value() / 8);
  EXPECT_DOUBLE_EQ(eight.invocation.value(), eight.makespan.value() + eight.gather.value() + eight.blend.value());
  EXPECT_DOUBLE_EQ(vae.latency.value(), eight.latency.value() + vae.transfer_time.value());
  EXPECT_NE(vae.note.find("; the 84 tile runs spread over 8 chips longest first"), std::string::npos) << vae.note;

  auto decode = PriceTiledDecode(config, "hunyuan-vae-decoder", t, price::DefaultPriceCalibration(t), 2);
  ASSERT_TRUE(decode.ok()) << decode.status().message();
  std::vector<double> run_s;
  int64_t decoded = 0;
  for (size_t k = 0; k < decode->runs.size(); ++k) {
    const TileProgram& p = decode->programs[static_cast<size_t>(decode->program_of_run[k])];
    run_s.push_back(p.run_s);
    decoded += p.decoded_bytes;
  }
  EXPECT_EQ(decode->programs.size(), 8u);  // 17 or 9 frames x 32 or 18 rows x 32 or 16 columns
  EXPECT_EQ(decoded, 1'484'181'504);
  // The parts price as the whole: the runs one after another and the blend
  // are the single device's program but for fusion across the cuts (the
  // latent's slices), within 0.5%.
  const double total = std::accumulate(run_s.begin(), run_s.end(), 0.0);
  EXPECT_NEAR(total + decode->blend_s, single.invocation.value(), single.invocation.value() * 0.005);
  // The makespan: at least the runs' mean per chip, at most that plus the
  // longest run (list scheduling).
  EXPECT_GE(eight.makespan.value(), total / 8);
  EXPECT_LE(eight.makespan.value(), total / 8 + *std::max_element(run_s.begin(), run_s.end()));
  // The first chip keeps its share; the 7 others send the rest.
  const TileAssignment assignment = AssignTileRuns(run_s, 8);
  int64_t kept = 0;
  for (size_t k = 0; k < decode->runs.size(); ++k) {
    const TileProgram& p = decode->programs[static_cast<size_t>(decode->program_of_run[k])];
    if (assignment.chip_of_run[k] == 0) kept += p.decoded_bytes;
  }
  EXPECT_EQ(eight.gathered.value(), decoded - kept);
  EXPECT_GT(eight.gather.value(), 0);
  // The blends are a small part of the decode: under 1% of the single device.
  EXPECT_LT(eight.blend.value(), single.invocation.value() / 100);
}

// v5e:2x4 beside the DiT, as the CLI plans it (the DiT's weights resident,
// MakePlan): tiles=8 fits, resident. Then with resident = HBM - its peak +
// 1 MiB nothing fits resident (every tiles=G and the single device hold more),
// and the planner says so and streams the weights (stages.h's offload rule).
TEST(StageTiles, HunyuanVideo720pBesideTheDitOnV5e2x4) {
  hw::Topology t = Topo("v5e:2x4");
  const workload::Workload config = Config(1280, 720, 129);
  PlanOptions options;
  options.calibration = price::DefaultPriceCalibration(t);
  options.alpa = false;
  auto plan = MakePlan(config, t, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const StagePlan& vae = plan->stages.back();
  ASSERT_EQ(vae.name, "hunyuan-vae-decoder");
  EXPECT_EQ(vae.sharding, "tiles=8");
  EXPECT_TRUE(vae.fits);
  EXPECT_FALSE(vae.offloaded);
  EXPECT_LE(vae.peak_memory.value() + plan->best.parameter_memory.value(), t.chip.hbm.value());
  EXPECT_LT(vae.latency.value(), Candidate(vae, "single device").latency.value());

  const int64_t resident = t.chip.hbm.value() - Candidate(vae, "tiles=8").peak_memory.value() + MiB(1).value();
  const StagePlan tight = VaePlan(config, t, StageOptions(t, resident));
  for (const StageCandidateCost& c : tight.candidates) {
    if (c.ok) {
      EXPECT_FALSE(c.fits) << c.sharding;
    }
  }
  EXPECT_TRUE(tight.offloaded);
  EXPECT_NE(tight.note.find("no candidate fits resident"), std::string::npos) << tight.note;
}

// The same plans on 1, 2 and 8 threads (the runs and the blend are compiled on
// the threads, into per-shape slots). 4 runs on v5e:2x4: tiles=2 and 4
// priced, tiles=8 refused with the reason.
TEST(StageTiles, DeterministicAcrossThreads) {
  hw::Topology t = Topo("v5e:2x4");
  const workload::Workload config = Config(320, 256, 33);
  const StagePlan a = VaePlan(config, t, StageOptions(t, 0, 1));
  EXPECT_TRUE(Candidate(a, "tiles=2").ok);
  EXPECT_TRUE(Candidate(a, "tiles=4").ok);
  EXPECT_FALSE(Candidate(a, "tiles=8").ok);
  EXPECT_NE(Candidate(a, "tiles=8").error.find("fewer than the chips"), std::string::npos);
  for (int threads : {2, 8}) {
    const StagePlan b = VaePlan(config, t, StageOptions(t, 0, threads));
    EXPECT_EQ(a.sharding, b.sharding);
    EXPECT_EQ(a.placement, b.placement);
    EXPECT_EQ(a.latency.value(), b.latency.value());
    EXPECT_EQ(a.peak_memory.value(), b.peak_memory.value());
    EXPECT_EQ(a.note, b.note);
    ASSERT_EQ(a.candidates.size(), b.candidates.size());
    for (size_t k = 0; k < a.candidates.size(); ++k) {
      EXPECT_EQ(a.candidates[k].latency.value(), b.candidates[k].latency.value());
      EXPECT_EQ(a.candidates[k].makespan.value(), b.candidates[k].makespan.value());
      EXPECT_EQ(a.candidates[k].gathered.value(), b.candidates[k].gathered.value());
      EXPECT_EQ(a.candidates[k].peak_memory.value(), b.candidates[k].peak_memory.value());
      EXPECT_EQ(a.candidates[k].error, b.candidates[k].error);
    }
  }
}

// The planner offers tiles=G only for a decode in >= 2 runs: not for Wan's
// decoder (not tiled), nor for HunyuanVideo's latent within one tile
// (256 x 256: 32 x 32 latents, one untiled run).
TEST(StageTiles, OfferedOnlyForADecodeInTiles) {
  hw::Topology t = Topo("h100:8");
  const StagePlan one = VaePlan(Config(256, 256, 5), t, StageOptions(t));
  for (const StageCandidateCost& c : one.candidates) EXPECT_EQ(c.sharding.find("tiles"), std::string::npos);
  auto wan = PlanStages(*frontend::ZooWorkload("wan2.1-t2v-1.3b", {}), t, StageOptions(t));
  ASSERT_TRUE(wan.ok());
  for (const StageCandidateCost& c : wan->back().candidates) EXPECT_EQ(c.sharding.find("tiles"), std::string::npos);
}

}  // namespace
}  // namespace az::search
