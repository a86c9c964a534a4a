// `aoizora bench`: the table of record. Plans a grid of models and slices and
// reports AoiZora against the expert and Alpa baselines (emit/bench_report.h).
#include <fmt/core.h>

#include <filesystem>
#include <fstream>

#include "emit/bench_report.h"
#include "price/calibration.h"
#include "search/planner.h"
#include "tools/aoizora/cli.h"

namespace az::cli {

namespace {

struct BenchArgs {
  std::string out;
  std::vector<std::string> models;      // "wan2.1-t2v-14b@1280x720x81"
  std::vector<std::string> topologies;  // "v5e:2x4"
  int threads = 2;
  bool quiet = false;
  bool train = false;
  int64_t micro_batch = 0;  // 0: one sample per chip
};

struct ModelCase {
  std::string model;
  int64_t width, height, frames;
};

StatusOr<ModelCase> ParseModelCase(const std::string& text) {
  size_t at = text.find('@');
  ModelCase c{text.substr(0, at), 0, 0, 0};
  if (at == std::string::npos) return c;
  if (std::sscanf(text.c_str() + at + 1, "%ldx%ldx%ld", &c.width, &c.height, &c.frames) != 3) {
    return InvalidArgument("--model '" + text + "': write MODEL or MODEL@WIDTHxHEIGHTxFRAMES");
  }
  return c;
}

int RunBench(const BenchArgs& args) {
  std::vector<ModelCase> models;
  if (args.models.empty() && args.train) {
    // Issue 9's cases: Wan 2.1 14B and 1.3B and HunyuanVideo at training
    // clips of 480p (Wan's 832x480x81; HunyuanVideo 960x544 at 61 frames).
    models = {{"wan2.1-t2v-14b", 832, 480, 81}, {"wan2.1-t2v-1.3b", 832, 480, 81}, {"hunyuanvideo-13b", 960, 544, 61}};
  } else if (args.models.empty()) {
    models = {{"wan2.1-t2v-14b", 832, 480, 81},   {"wan2.1-t2v-14b", 1280, 720, 81},
              {"wan2.1-t2v-1.3b", 832, 480, 81},  {"hunyuanvideo-13b", 1280, 720, 129},
              {"hunyuanvideo-13b", 960, 544, 129},
              {"wan2.2-t2v-a14b", 1280, 720, 81},  // two experts: the plan holds or swaps them
              {"cogvideox-5b", 720, 480, 49},
              // One model of each other family, at its default video.
              {"step-video-t2v", 992, 544, 204},  {"ltx-video-2b", 704, 512, 161},
              {"mochi-1", 848, 480, 163},         {"open-sora-2.0", 1024, 576, 129}};
  } else {
    for (const std::string& text : args.models) {
      auto c = ParseModelCase(text);
      if (!c.ok()) return Fail(c.status());
      models.push_back(*c);
    }
  }
  std::vector<std::string> topologies = args.topologies;
  if (topologies.empty() && args.train) topologies = {"v5p:2x2x1", "v5p:2x2x2", "h100:8"};
  if (topologies.empty()) topologies = {"v5e:2x2", "v5e:2x4", "v5e:4x4", "h100:8"};
  std::vector<emit::BenchRow> rows;
  for (const ModelCase& m : models) {
    zoo::ModelOptions options;
    if (m.width > 0) {
      options.width = m.width;
      options.height = m.height;
      options.frames = m.frames;
    }
    auto config = zoo::ResolveConfig(m.model, options);
    if (!config.ok()) return Fail(config.status());
    for (const std::string& spec : topologies) {
      auto topology = LoadTopology(spec);
      if (!topology.ok()) return Fail(topology.status());
      emit::BenchRow row;
      row.model = config->model;
      row.resolution = std::to_string(config->width) + "x" + std::to_string(config->height) + "x" +
                       std::to_string(config->frames);
      row.topology = topology->name;
      row.train = args.train;
      search::PlanOptions plan_options;
      if (args.train) {
        search::TrainPlanOptions train;
        train.micro_batch = args.micro_batch;
        plan_options.train = train;
      }
      plan_options.threads = args.threads;
      plan_options.calibration = price::DefaultPriceCalibration(*topology);
      if (!args.quiet) fmt::print(stderr, "bench: {} {} on {}\n", row.model, row.resolution, row.topology);
      auto plan = search::MakePlan(zoo::WorkloadOf(*config), *topology, plan_options);
      if (plan.ok()) {
        row.planned = true;
        row.plan = std::move(*plan);
      } else {
        row.error = plan.status().message();
      }
      if (!args.quiet) {
        // Each row as it lands, so that a long bench cut short keeps what it measured.
        std::string table = emit::BenchMarkdown({row});
        table.pop_back();
        fmt::print(stderr, "bench: {}\n", table.substr(table.rfind('\n') + 1));
      }
      rows.push_back(std::move(row));
    }
  }
  std::string markdown = emit::BenchMarkdown(rows);
  fmt::print("{}", markdown);
  if (!args.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    if (ec) return Fail(InvalidArgument("cannot create '" + args.out + "': " + ec.message()));
    // Training rows go to their own files, beside the inference table of record.
    const std::string stem = args.train ? "bench-train" : "bench";
    for (auto [name, text] : {std::pair<std::string, std::string>{stem + ".md", markdown},
                              std::pair<std::string, std::string>{stem + ".svg", emit::BenchSvg(rows)}}) {
      std::ofstream file(args.out + "/" + name);
      file << text;
      if (!file) return Fail(InvalidArgument("cannot write '" + args.out + "/" + name + "'"));
    }
  }
  return 0;
}

}  // namespace

void RegisterBench(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "The table of record: AoiZora vs expert vs Alpa over models and slices (Markdown and SVG)");
  cmd->add_option("--out,-o", args->out,
                  "Write bench.md and bench.svg (with --train: bench-train.md and bench-train.svg) into this folder");
  cmd->add_option("--model,-m", args->models,
                  "MODEL or MODEL@WIDTHxHEIGHTxFRAMES, repeatable (default: the cases of record)");
  cmd->add_option("--topology,-t", args->topologies,
                  "Repeatable (default: v5e:2x2, v5e:2x4, v5e:4x4, h100:8)");
  cmd->add_option("--threads", args->threads, "Worker threads")->check(CLI::Range(1, 256));
  cmd->add_flag("--quiet,-q", args->quiet, "No progress lines on stderr");
  cmd->add_flag("--train", args->train,
                "Training steps (default cases: Wan 2.1 14B and 1.3B at 832x480x81, HunyuanVideo at 960x544x61 on "
                "v5p:2x2x1, v5p:2x2x2 and h100:8)");
  cmd->add_option("--micro-batch", args->micro_batch, "With --train: samples per step (default: one per chip)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  cmd->callback([args, &ctx] { ctx.exit_code = RunBench(*args); });
}

}  // namespace az::cli
