// The bench tables (bench_report.h): the end-to-end video column of an
// inference row and the training columns of a `bench --train` row; the
// `bench --scale` page and its log-log plot.
#include "emit/bench_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace az::emit {
namespace {

search::Plan BasePlan() {
  search::Plan plan;
  plan.best.description = "ring=4,cfg=2";
  plan.best.step_latency = Seconds(0.25);
  search::Configuration expert = plan.best;
  expert.description = "xDiT ring=4,cfg=2";
  expert.step_latency = Seconds(0.5);
  plan.baselines = {{"expert", expert, ""}, {"alpa", std::nullopt, "not run (--no-alpa)"}};
  plan.efficiency = 0.5;
  plan.plan_time = Seconds(1.5);
  return plan;
}

BenchRow Row(const std::string& topology, bool train) {
  BenchRow row;
  row.model = "wan2.1-t2v-1.3b";
  row.resolution = "832x480x81";
  row.topology = topology;
  row.train = train;
  row.planned = true;
  row.plan = BasePlan();
  return row;
}

TEST(BenchMarkdown, InferenceRowsCarryTheWholeVideo) {
  BenchRow row = Row("h100:8", false);
  // 50 steps of 0.25 s and 3.5 s of encoders and VAE: 16.0 s.
  row.plan.steps = 50;
  row.plan.stages_latency = Seconds(3.5);
  row.plan.video_latency = Seconds(3.5 + 50 * 0.25);
  std::string table = BenchMarkdown({row});
  EXPECT_NE(table.find("video s (end to end)"), std::string::npos) << table;
  EXPECT_NE(table.find("| ring=4,cfg=2 | 250.0 | 16.0 | xDiT ring=4,cfg=2 | 500.0 | 2.000x |"), std::string::npos)
      << table;
}

TEST(BenchMarkdown, TrainingRowsCarryThroughputAndRemat) {
  BenchRow row = Row("v5p:2x2x1", true);
  row.plan.train = true;
  row.plan.batch = 4;
  row.plan.best.remat = "selected";
  row.plan.best.peak_memory = Bytes(int64_t{3} << 30);
  row.plan.samples_per_second = 4 / 0.25;  // 16 samples/s
  row.plan.baselines[0].configuration->description = "MaxDiffusion dp=4,fsdp=4,remat=full";
  std::string table = BenchMarkdown({row});
  EXPECT_NE(table.find("| micro-batch |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 4 | v5p:2x2x1 | ring=4,cfg=2 | selected | 250.0 | 16.00 | 3.00 GiB | "
                       "MaxDiffusion dp=4,fsdp=4,remat=full | 500.0 | 2.000x |"),
            std::string::npos)
      << table;
  BenchRow failed = Row("v5p:2x2x1", true);
  failed.planned = false;
  failed.error = "does not fit v5p:2x2x1";
  EXPECT_NE(BenchMarkdown({failed}).find("does not fit v5p:2x2x1"), std::string::npos);
}

// The training summary's ceilings: the pick's 0.25 s step spends 0.2 s in
// kernels (breakdown 0.2 of 0.25), so the expert's 0.5 s step over 0.2 s is
// 2.500x and the deployed recipe's 0.3 s over 0.2 s 1.500x, beside the
// speedups 0.5 / 0.25 = 2.000x and 0.3 / 0.25 = 1.200x; a row without the
// breakdown has no ceiling (h100:8: none).
TEST(BenchMarkdown, TrainingSummaryCarriesTheCeilings) {
  BenchRow row = Row("v5p:2x2x1", true);
  row.plan.train = true;
  row.plan.best.breakdown.latency = Seconds(0.25);
  row.plan.best.breakdown.compute = Seconds(0.2);
  search::Configuration deployed = row.plan.best;
  deployed.description = "MaxDiffusion's README";
  deployed.step_latency = Seconds(0.3);
  row.plan.baselines.push_back({"deployed", deployed, ""});
  BenchRow gpu = Row("h100:8", true);
  gpu.plan.train = true;
  const std::string page = BenchMarkdown({row, gpu});
  EXPECT_NE(page.find("| slice | vs expert (geomean) | ceiling vs expert |"), std::string::npos) << page;
  EXPECT_NE(page.find("| v5p:2x2x1 | 2.000x (1 of 1) | 2.500x | 1.11x | 1.200x (1 of 1) | 1.500x | none (0 of 1) |"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("| h100:8 | 2.000x (1 of 1) | none | - | none (0 of 1) | none | none (0 of 1) |"),
            std::string::npos)
      << page;
}

ScaleRow Scaled(const std::string& model, const std::string& topology, int64_t chips, double wall_s) {
  ScaleRow row;
  row.model = model;
  row.resolution = model == "hunyuanvideo-13b" ? "1280x720x129" : "1280x720x81";
  row.topology = topology;
  row.chips = chips;
  row.planned = true;
  row.wall_s = wall_s;
  row.plan_time_s = wall_s * 0.8;
  row.peak_rss_kib = int64_t{2} << 20;  // 2 GiB
  row.pick = "ulysses=4,ring=2";
  row.step_latency_s = 0.125;
  row.speedup_over_expert = 1.25;
  return row;
}

// Wan on v5e at 8 and 64 chips and on v5p at 1024, HunyuanVideo on h100:8,
// and a multi-slice spec the catalog refused.
std::vector<ScaleRow> ScaleRows() {
  ScaleRow refused;
  refused.model = "wan2.1-t2v-14b";
  refused.resolution = "1280x720x81";
  refused.topology = "v5e:16x16*2";
  refused.error = "'v5e:16x16*2': bad shape | try 16x16";
  return {Scaled("wan2.1-t2v-14b", "v5e:2x4", 8, 1), Scaled("wan2.1-t2v-14b", "v5e:8x8", 64, 10),
          Scaled("wan2.1-t2v-14b", "v5p:8x8x16", 1024, 100), Scaled("hunyuanvideo-13b", "h100:8", 8, 2), refused};
}

TEST(ScaleFamily, ChipOrMultiSlice) {
  EXPECT_EQ(ScaleFamily("v5e:8x8"), "v5e");
  EXPECT_EQ(ScaleFamily("h100:2x8:efa"), "h100");
  EXPECT_EQ(ScaleFamily("v5e:16x16*2"), "multi-slice");
}

TEST(ScaleMarkdown, RowsHeaderAndErrors) {
  ScaleContext context{"aoizora bench --scale -o docs", 2, 16, "AMD EPYC 7B13", 900};
  std::string page = ScaleMarkdown(ScaleRows(), context);
  EXPECT_NE(page.find("`./build/aoizora bench --scale -o docs`"), std::string::npos) << page;
  EXPECT_NE(page.find("Produced by `aoizora bench --scale -o docs`"), std::string::npos) << page;
  EXPECT_NE(page.find("--threads 2"), std::string::npos) << page;
  EXPECT_NE(page.find("16 CPUs (nproc), AMD EPYC 7B13"), std::string::npos) << page;
  EXPECT_NE(page.find("longer than 900 s"), std::string::npos) << page;
  // 64 chips: 10 s wall, 0.8 x 10 = 8 s in the planner, 2 << 20 KiB = 2 GiB,
  // 0.125 s = 125.0 ms a step, 1.25x the expert.
  EXPECT_NE(page.find("| wan2.1-t2v-14b | 1280x720x81 | v5e:8x8 | 64 | 10.00 s | 8.00 s | 2.00 GiB | "
                      "ulysses=4,ring=2 | 125.0 | 1.250x |"),
            std::string::npos)
      << page;
  // The refusal: no chips, no process, the error's '|' escaped.
  EXPECT_NE(page.find("| v5e:16x16*2 |  |  |  |  | not planned: 'v5e:16x16*2': bad shape \\| try 16x16 | | |"),
            std::string::npos)
      << page;
  // Header + separator + 5 rows.
  size_t table_lines = 0;
  for (size_t at = page.find("\n| "); at != std::string::npos; at = page.find("\n| ", at + 1)) ++table_lines;
  EXPECT_EQ(table_lines, 1u + 5u) << page;  // the separator starts "|---"
}

// Whether every element opened is closed, in order (<?xml ...?> and
// self-closing tags aside): enough to catch a dropped </text> or </svg>.
bool BalancedTags(const std::string& svg) {
  std::vector<std::string> open;
  for (size_t at = svg.find('<'); at != std::string::npos; at = svg.find('<', at + 1)) {
    size_t end = svg.find('>', at);
    if (end == std::string::npos) return false;
    std::string tag = svg.substr(at + 1, end - at - 1);
    if (tag.empty() || tag[0] == '?' || tag.back() == '/') continue;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
      continue;
    }
    open.push_back(tag.substr(0, tag.find(' ')));
  }
  return open.empty();
}

TEST(ScaleSvg, LogLogPositions) {
  std::string svg = ScaleSvg(ScaleRows());
  EXPECT_TRUE(BalancedTags(svg)) << svg;
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
  // x: chips 8 to 1024 are powers of 2, so x_lo = 8, x_hi = 1024, log2(1024 / 8) = 7
  // doublings over kScalePlotWidth = 560 px: 80 px each from kScalePlotLeft = 80.
  //   8 chips -> 80; 64 chips: log2(64 / 8) = 3 doublings -> 80 + 3/7 x 560 = 320; 1024 -> 640.
  // y: 1 s to 100 s are powers of 10, so y_lo = 1, y_hi = 100: two decades over
  // kScalePlotHeight = 300 px, 150 px each, from the bottom 50 + 300 = 350:
  //   1 s -> 350; 10 s -> 200; 100 s -> 50 (kScalePlotTop); 2 s: log10(2) = 0.30103 decades
  //   -> 350 - 150 x 0.30103 = 304.8455 -> "304.8".
  EXPECT_NE(svg.find("points=\"80.0,350.0 320.0,200.0\""), std::string::npos) << svg;  // Wan on v5e
  EXPECT_NE(svg.find("points=\"640.0,50.0\""), std::string::npos) << svg;              // Wan on v5p
  EXPECT_NE(svg.find("points=\"80.0,304.8\""), std::string::npos) << svg;              // HunyuanVideo on h100
  // Wan's markers are circles (the first model), HunyuanVideo's squares (4 px around the point).
  EXPECT_NE(svg.find("<circle cx=\"320.0\" cy=\"200.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<rect x=\"76.0\" y=\"300.8\" width=\"8\" height=\"8\""), std::string::npos) << svg;
  // Ticks: every power of 2 from 8 to 1024 (8 ticks), 1 2 5 10 20 50 100 s (7 ticks).
  for (const char* chips : {">8<", ">16<", ">32<", ">64<", ">128<", ">256<", ">512<", ">1024<"}) {
    EXPECT_NE(svg.find(chips), std::string::npos) << chips;
  }
  // The 1 s tick sits on the bottom edge (y 350, label 4 px lower), the 20 s tick
  // 1.30103 decades up: 350 - 150 x 1.30103 = 154.8455, label at 158.8.
  EXPECT_NE(svg.find("y=\"354.0\" text-anchor=\"end\">1</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("y=\"158.8\" text-anchor=\"end\">20</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">100</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">200</text>"), std::string::npos) << svg;  // no tick past the top decade
  // One polyline per (model, family); the legend names each; the refusal is counted.
  size_t polylines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++polylines;
  EXPECT_EQ(polylines, 3u);
  EXPECT_NE(svg.find(">wan2.1-t2v-14b 1280x720x81 on v5e</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">wan2.1-t2v-14b 1280x720x81 on v5p</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">hunyuanvideo-13b 1280x720x129 on h100</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("1 row not planned"), std::string::npos) << svg;
}

TEST(ScaleSvg, NothingPlanned) {
  ScaleRow refused;
  refused.topology = "v5e:16x16*2";
  refused.error = "refused";
  std::string svg = ScaleSvg({refused});
  EXPECT_TRUE(BalancedTags(svg)) << svg;
  EXPECT_NE(svg.find("no row planned"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<polyline"), std::string::npos) << svg;
}

// The repository's recipe (the `deployed` baseline) has its two cells after
// the expert's: 0.75 s against AoiZora's 0.25 s is 3.000x; without one,
// "none" and an empty cell.
TEST(BenchMarkdown, DeployedCells) {
  BenchRow row = Row("h100:8", false);
  search::Configuration deployed = row.plan.best;
  deployed.description = "the repository's --ulysses_size 8 --dit_fsdp (ulysses=8,fsdp=8)";
  deployed.step_latency = Seconds(0.75);
  row.plan.baselines.insert(row.plan.baselines.begin() + 1, {"deployed", deployed, ""});
  std::string table = BenchMarkdown({row});
  EXPECT_NE(table.find("| vs expert | deployed ms/step | vs deployed | Alpa ms/step |"), std::string::npos) << table;
  EXPECT_NE(table.find("| xDiT ring=4,cfg=2 | 500.0 | 2.000x | 750.0 | 3.000x | none | |"), std::string::npos) << table;
  BenchRow none = Row("h100:8", false);
  EXPECT_NE(BenchMarkdown({none}).find("| 2.000x | none | | none | |"), std::string::npos) << BenchMarkdown({none});
  EXPECT_NE(BenchSvg({row}).find("#59a14f"), std::string::npos);
}

// Per slice, the geometric mean over the rows that have the baseline: on
// v5e:2x2 the deployed recipe at 2x and 8x AoiZora's step is sqrt(2 x 8) =
// 4.000x; the expert (2x on both) 2.000x; Alpa absent from both. The
// paper's figures stand beside them; a row without the baseline says why.
// The ceiling: the pick's simulated forward spends 0.2 of its 0.25 s in
// kernels, so its 0.25 s step holds 200 ms of them, and the expert's 0.5 s
// over 0.2 s is 2.500x (both v5e:2x2 rows, geomean 2.500x); the v5e:4x4 row
// has no simulated breakdown: none.
TEST(PaperMarkdown, GeomeanPerSliceBesideThePaper) {
  std::vector<BenchRow> rows;
  for (double deployed_s : {0.5, 2.0}) {
    BenchRow row = Row("v5e:2x2", false);
    row.resolution = "832x480x21";
    row.plan.best.breakdown.latency = Seconds(0.25);
    row.plan.best.breakdown.compute = Seconds(0.2);
    search::Configuration deployed = row.plan.best;
    deployed.description = "the repository's ctx";
    deployed.step_latency = Seconds(deployed_s);
    row.plan.baselines.push_back({"deployed", deployed, ""});
    rows.push_back(row);
  }
  BenchRow other = Row("v5e:4x4", false);
  other.plan.baselines.push_back({"deployed", std::nullopt, "does not fit: 17.00 GiB"});
  rows.push_back(other);
  const std::string page = PaperMarkdown(rows, "./build/aoizora bench --paper -o docs");
  EXPECT_NE(page.find("| v5e:2x2 | 4.000x (2 of 2) | 1.09x | 2.000x (2 of 2) | 2.500x | none (0 of 2) | 1.00-1.07x |"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("| v5e:4x4 | none (0 of 1) | 1.42x | 2.000x (1 of 1) | none | none (0 of 1) | 1.37x |"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("| none: does not fit: 17.00 GiB | | | xDiT ring=4,cfg=2 | 500.0 | 2.000x | - |"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("| 250.0 | 200.0 | the repository's ctx | 500.0 | 2.000x | xDiT ring=4,cfg=2 | 500.0 | 2.000x | "
                      "2.500x |"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("`./build/aoizora bench --paper -o docs`"), std::string::npos);
}

}  // namespace
}  // namespace az::emit
