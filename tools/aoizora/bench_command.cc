// `aoizora bench`: the table of record. Plans a grid of models and slices and
// reports AoiZora against the expert, deployed and Alpa baselines
// (emit/bench_report.h). `bench --paper`: the paper's grid as results.md.
// `bench --scale`: the planner's own cost as the slice grows, each row a
// `plan` in its own process (tools/aoizora/child_process.h).
#include <fmt/core.h>
#include <sched.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "emit/bench_report.h"
#include "emit/plan_format.h"
#include "fidelity/published_train.h"
#include "price/calibration.h"
#include "search/planner.h"
#include "tools/aoizora/child_process.h"
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
  bool scale = false;
  bool paper = false;       // the paper's grid, written as results.md
  double timeout_s = 900;   // --scale: a plan running longer is killed
};

struct ModelCase {
  std::string model;
  int64_t width, height, frames;
  int64_t steps = 0;  // 0: the model's default
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

// The zoo's configuration for a case (its video, or the model's default one).
StatusOr<zoo::ModelConfig> ResolveCase(const ModelCase& m) {
  zoo::ModelOptions options;
  if (m.width > 0) {
    options.width = m.width;
    options.height = m.height;
    options.frames = m.frames;
  }
  if (m.steps > 0) options.steps = m.steps;
  return zoo::ResolveConfig(m.model, options);
}

// bench --scale's slices, in the order the table lists them. Multi-slice
// specs join this list as they land in the catalog ("v5e:16x16*2"); a spec
// LoadTopology refuses becomes a row that says why.
const std::vector<std::string> kScaleTopologies = {
    "v5e:2x4",    "v5e:4x4",    "v5e:4x8",      "v5e:8x8",      "v5e:8x16",     "v5e:16x16",  // 8 to 256 chips
    "v5p:4x4x4",  "v5p:4x4x8",  "v5p:4x8x8",    "v5p:8x8x8",    "v5p:8x8x16",                 // 64 to 1024
    "h100:8",     "h100:2x8:efa", "h100:4x8:efa", "h100:8x8:efa",                             // 8 to 64
    "v5e:8x8*2",  "v5e:16x16*2",                                                              // multi-slice: 128, 512
};

// The CPUs this process may run on, as `nproc` counts them.
int OnlineCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

// /proc/cpuinfo's first "model name"; empty when there is none (not Linux, ARM).
std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? "" : line.substr(begin);
  }
  return "";
}

// The last non-empty line of a failed plan's stderr, without the "aoizora: "
// that Fail puts in front.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\n\r \t");
  if (end == std::string::npos) return "";
  size_t newline = text.rfind('\n', end);
  size_t begin = newline == std::string::npos ? 0 : newline + 1;
  std::string line = text.substr(begin, end + 1 - begin);
  const std::string prefix = "aoizora: ";
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

// Plans one row in a child process and reads what it printed.
void PlanScaleRow(const std::string& self, const ModelCase& model, const std::string& spec, const BenchArgs& args,
                  emit::ScaleRow& row) {
  std::vector<std::string> argv = {self, "plan", "--model", model.model, "--topology", spec, "--json", "-q",
                                   "--threads", std::to_string(args.threads)};
  if (model.width > 0) {
    for (const std::string& flag : {"--width=" + std::to_string(model.width), "--height=" + std::to_string(model.height),
                                    "--frames=" + std::to_string(model.frames)}) {
      argv.push_back(flag);
    }
  }
  auto run = RunChild(argv, args.timeout_s);
  if (!run.ok()) {
    row.error = run.status().message();
    return;
  }
  row.wall_s = run->wall_s;
  row.peak_rss_kib = run->peak_rss_kib;
  if (run->timed_out) {
    row.error = fmt::format("timed out after {:g} s", args.timeout_s);
    return;
  }
  if (run->signal != 0) {
    row.error = fmt::format("killed by signal {} ({})", run->signal, strsignal(run->signal));
    return;
  }
  if (run->exit_code != 0) {
    std::string last = LastLine(run->err);
    row.error = last.empty() ? fmt::format("plan exited with status {}", run->exit_code) : last;
    return;
  }
  nlohmann::json plan = nlohmann::json::parse(run->out, nullptr, /*allow_exceptions=*/false);
  // A number of the plan JSON, 0 when absent or null (no expert, a NaN).
  auto number = [](const nlohmann::json& doc, const char* outer, const char* inner) {
    auto at = doc.find(outer);
    if (at == doc.end()) return 0.0;
    if (inner != nullptr) {
      if (!at->is_object() || !at->contains(inner)) return 0.0;
      at = at->find(inner);
    }
    return at->is_number() ? at->get<double>() : 0.0;
  };
  if (!plan.is_object() || !plan.contains("best") || !plan["best"].is_object()) {
    row.error = "plan exited 0 without a plan on stdout";
    return;
  }
  row.planned = true;
  const nlohmann::json& description = plan["best"]["description"];
  row.pick = description.is_string() ? description.get<std::string>() : "";
  row.step_latency_s = number(plan, "best", "step_latency_s");
  row.speedup_over_expert = number(plan, "speedups", "over_expert");
  row.plan_time_s = number(plan, "plan_time_s", nullptr);
}

int RunScale(const BenchArgs& args, const std::vector<ModelCase>& models) {
  auto self = SelfExecutable();
  if (!self.ok()) return Fail(self.status());
  const std::vector<std::string>& topologies = args.topologies.empty() ? kScaleTopologies : args.topologies;
  emit::ScaleContext context;
  context.command = "aoizora bench --scale";
  for (const std::string& m : args.models) context.command += " -m " + emit::ShellWord(m);
  for (const std::string& t : args.topologies) context.command += " -t " + emit::ShellWord(t);
  context.command += fmt::format(" --threads {} --timeout {:g}", args.threads, args.timeout_s);
  if (!args.out.empty()) context.command += " -o " + emit::ShellWord(args.out);
  context.threads = args.threads;
  context.nproc = OnlineCpus();
  context.cpu_model = CpuModel();
  context.timeout_s = args.timeout_s;
  std::vector<emit::ScaleRow> rows;
  for (const ModelCase& m : models) {
    // A misspelt model fails the bench at once; a slice is a row's business.
    auto config = ResolveCase(m);
    if (!config.ok()) return Fail(config.status());
    for (const std::string& spec : topologies) {
      emit::ScaleRow row;
      row.model = config->model;
      row.resolution = std::to_string(config->width) + "x" + std::to_string(config->height) + "x" +
                       std::to_string(config->frames);
      row.topology = spec;
      auto topology = LoadTopology(spec);
      if (!topology.ok()) {
        row.error = topology.status().message();
      } else {
        row.chips = topology->num_chips();
        if (!args.quiet) fmt::print(stderr, "bench --scale: {} {} on {} ({} chips)\n", row.model, row.resolution, spec, row.chips);
        PlanScaleRow(*self, m, spec, args, row);
      }
      if (!args.quiet) {
        // Each row as it lands, so that a long run cut short keeps what it measured.
        std::string table = emit::ScaleMarkdown({row}, context);
        table.pop_back();
        fmt::print(stderr, "bench --scale: {}\n", table.substr(table.rfind('\n') + 1));
      }
      rows.push_back(std::move(row));
    }
  }
  std::string markdown = emit::ScaleMarkdown(rows, context);
  fmt::print("{}", markdown);
  if (args.out.empty()) return 0;
  std::error_code ec;
  std::filesystem::create_directories(args.out, ec);
  if (ec) return Fail(InvalidArgument("cannot create '" + args.out + "': " + ec.message()));
  for (auto [name, text] : {std::pair<std::string, std::string>{"scale.md", markdown},
                            std::pair<std::string, std::string>{"scale.svg", emit::ScaleSvg(rows)}}) {
    std::ofstream file(args.out + "/" + name);
    file << text;
    if (!file) return Fail(InvalidArgument("cannot write '" + args.out + "/" + name + "'"));
  }
  return 0;
}

int RunBench(const BenchArgs& args) {
  std::vector<ModelCase> models;
  if (args.paper) {
    // The paper's grid (issue 26): Wan 2.1 T2V-14B, one denoising step, 480p
    // and 720p at 21, 41 and 81 frames.
    for (auto [width, height] : {std::pair<int64_t, int64_t>{832, 480}, std::pair<int64_t, int64_t>{1280, 720}}) {
      for (int64_t frames : {21, 41, 81}) models.push_back({"wan2.1-t2v-14b", width, height, frames, 1});
    }
  } else if (args.models.empty() && args.scale) {
    // Issue 28's cases: the two large models at 720p.
    models = {{"wan2.1-t2v-14b", 1280, 720, 81}, {"hunyuanvideo-13b", 1280, 720, 129}};
  } else if (args.models.empty() && args.train) {
    // Issue 9's cases: Wan 2.1 14B and 1.3B and HunyuanVideo at training
    // clips of 480p (Wan's 832x480x81; HunyuanVideo 960x544 at 61 frames);
    // issue 26's: Wan 2.1 14B at the 720x1280x81 clips of MaxDiffusion's
    // training README.
    models = {{"wan2.1-t2v-14b", 832, 480, 81},
              {"wan2.1-t2v-1.3b", 832, 480, 81},
              {"hunyuanvideo-13b", 960, 544, 61},
              {"wan2.1-t2v-14b", 720, 1280, 81}};
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
  if (args.scale) return RunScale(args, models);
  std::vector<std::string> topologies = args.topologies;
  if (args.paper) topologies = {"v5e:2x2", "v5e:2x4", "v5e:4x4"};
  if (topologies.empty() && args.train) topologies = {"v5p:2x2x1", "v5p:2x2x2", "h100:8"};
  if (topologies.empty()) topologies = {"v5e:2x2", "v5e:2x4", "v5e:4x4", "h100:8"};
  std::vector<emit::BenchRow> rows;
  for (const ModelCase& m : models) {
    auto config = ResolveCase(m);
    if (!config.ok()) return Fail(config.status());
    for (const std::string& spec : topologies) {
      auto topology = LoadTopology(spec);
      if (!topology.ok()) return Fail(topology.status());
      // Training: the micro-batch asked for; else a quarter of a sample per
      // chip where 4 divides the chips (MaxDiffusion's README trains at
      // per_device_batch_size 0.25) and one per chip.
      std::vector<int64_t> batches = {args.micro_batch};
      const int64_t chips = topology->num_chips();
      if (args.train && args.micro_batch == 0) {
        batches = {chips};
        if (chips % 4 == 0) batches.insert(batches.begin(), chips / 4);
      }
      for (int64_t micro_batch : batches) {
        emit::BenchRow row;
        row.model = config->model;
        row.resolution = std::to_string(config->width) + "x" + std::to_string(config->height) + "x" +
                         std::to_string(config->frames);
        row.topology = topology->name;
        row.train = args.train;
        search::PlanOptions plan_options;
        if (args.train) {
          search::TrainPlanOptions train;
          train.micro_batch = micro_batch;
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
          fmt::print(stderr, "bench: {}\n", emit::BenchRowMarkdown(row));
        }
        rows.push_back(std::move(row));
      }
    }
  }
  if (args.paper) {
    const std::string page = emit::PaperMarkdown(rows, "./build/aoizora bench --paper -o " + args.out);
    fmt::print("{}", page);
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    if (ec) return Fail(InvalidArgument("cannot create '" + args.out + "': " + ec.message()));
    std::ofstream file(args.out + "/results.md");
    file << page;
    if (!file) return Fail(InvalidArgument("cannot write '" + args.out + "/results.md'"));
    return 0;
  }
  std::string markdown = emit::BenchMarkdown(rows);
  if (args.train && args.models.empty() && args.topologies.empty() && args.micro_batch == 0) {
    // The cases of record: also the published training steps.
    if (!args.quiet) fmt::print(stderr, "bench: the published training steps\n");
    markdown += "\n" + fidelity::PublishedTrainMarkdown(fidelity::CheckPublishedTrainSteps(args.threads));
  }
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
                  "Write bench.md and bench.svg (with --train: bench-train.md and bench-train.svg; with --scale: "
                  "scale.md and scale.svg) into this folder");
  cmd->add_option("--model,-m", args->models,
                  "MODEL or MODEL@WIDTHxHEIGHTxFRAMES, repeatable (default: the cases of record)");
  cmd->add_option("--topology,-t", args->topologies,
                  "Repeatable (default: v5e:2x2, v5e:2x4, v5e:4x4, h100:8; with --scale its own list)");
  cmd->add_option("--threads", args->threads, "Worker threads")->check(CLI::Range(1, 256));
  cmd->add_flag("--quiet,-q", args->quiet, "No progress lines on stderr");
  CLI::Option* train = cmd->add_flag("--train", args->train,
                "Training steps (default cases: Wan 2.1 14B and 1.3B at 832x480x81, HunyuanVideo at 960x544x61 and "
                "Wan 2.1 14B at 720x1280x81 on v5p:2x2x1, v5p:2x2x2 and h100:8, each at a quarter and one sample per "
                "chip, then the published training steps)");
  CLI::Option* micro_batch =
      cmd->add_option("--micro-batch", args->micro_batch, "With --train: samples per step (default: a quarter per chip, MaxDiffusion's README, and one per chip)")
          ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  CLI::Option* scale = cmd->add_flag(
      "--scale", args->scale,
      "Plan time and peak memory as the slice grows, each row a plan in its own process (default cases: Wan 2.1 "
      "T2V-14B 1280x720x81 and HunyuanVideo 1280x720x129 on v5e 8 to 256 chips, v5p 64 to 1024, h100 8 to 64)");
  scale->excludes(train)->excludes(micro_batch);
  CLI::Option* paper = cmd->add_flag(
      "--paper", args->paper,
      "The paper's grid (Wan 2.1 T2V-14B, one step, 832x480 and 1280x720 at 21, 41 and 81 frames, on v5e:2x2, 2x4 "
      "and 4x4): speedup per slice over the repository's recipe, the expert grid and Alpa beside the paper's "
      "figures, written to results.md in --out (default: docs)");
  paper->excludes(train)->excludes(micro_batch)->excludes(scale);
  cmd->add_option("--timeout", args->timeout_s, "With --scale: seconds before a row's plan is killed (default 900)")
      ->check(CLI::Range(0.01, 86400.0))
      ->needs(scale);
  cmd->callback([args, &ctx] {
    if (args->paper && !args->models.empty()) {
      ctx.exit_code = Fail(InvalidArgument("bench --paper runs the paper's grid: it takes no --model"));
      return;
    }
    if (args->paper && !args->topologies.empty()) {
      ctx.exit_code = Fail(InvalidArgument("bench --paper runs the paper's grid: it takes no --topology"));
      return;
    }
    if (args->paper && args->out.empty()) args->out = "docs";
    ctx.exit_code = RunBench(*args);
  });
}

}  // namespace az::cli
