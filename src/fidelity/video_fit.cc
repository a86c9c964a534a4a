#include "fidelity/video_fit.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"
#include "support/csv.h"
#include "support/golden_section.h"

namespace az::fidelity {

using price::ComputeCalibration;
using price::ComputeModel;
using price::DefaultComputeCalibration;
using price::KernelTime;
using price::ScaleTensorEfficiencies;
using price::UnfittedComputeCalibration;

namespace {

using support::CsvRow;
using support::CsvTable;
using support::LineError;
using support::ReadCsv;

using support::ParseInteger;
using support::ParseNumber;

std::string Lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

// ---------------------------------------------------------------- DiT latencies

StatusOr<std::string> ZooModelName(std::string_view model, std::string_view variant) {
  // The published name of the one HunyuanVideo checkpoint the zoo builds.
  std::string name = Lower(model) == "hunyuanvideo" && Lower(variant) == "t2v-13b"
                         ? "hunyuanvideo-13b"
                         : Lower(model) + "-" + Lower(variant);
  if (zoo::FindModel(name).ok()) return name;
  std::string known;
  for (const zoo::ModelEntry& entry : zoo::ListModels()) known += (known.empty() ? "" : ", ") + entry.name;
  return NotFound("model '" + std::string(model) + "' variant '" + std::string(variant) +
                  "' is not in the zoo (known: " + known + ")");
}

StatusOr<std::string> CatalogChipName(std::string_view gpu) {
  // The files spell GPUs as vendors do ("H800", "RTX4090"); the catalog's keys are lower case.
  AZ_ASSIGN_OR_RETURN(const hw::ChipSpec* chip, hw::FindChip(Lower(gpu)));
  return chip->name;
}

StatusOr<std::vector<DitLatency>> ReadDitLatencies(std::string_view text, std::string_view file_name) {
  AZ_ASSIGN_OR_RETURN(CsvTable table, ReadCsv(text, file_name,
                                              {"model", "variant", "gpu", "width", "height", "frames", "steps",
                                               "cfg_passes_per_step", "seconds"}));
  std::vector<DitLatency> out;
  for (const CsvRow& csv : table.rows) {
    auto cell = [&](const char* name) -> const std::string& { return csv.cells[table.column.at(name)]; };
    auto fail = [&](const std::string& message) { return LineError(file_name, csv.line, message); };
    DitLatency row;
    row.line = csv.line;
    auto model = ZooModelName(cell("model"), cell("variant"));
    if (!model.ok()) return fail(model.status().message());
    row.model = *model;
    row.gpu = cell("gpu");
    auto chip = CatalogChipName(row.gpu);
    if (!chip.ok()) return fail(chip.status().message());
    row.chip = *chip;
    struct IntField {
      const char* name;
      int64_t* field;
      int64_t max;
    };
    for (const IntField& f : {IntField{"width", &row.width, 16384}, IntField{"height", &row.height, 16384},
                              IntField{"frames", &row.frames, 4097}, IntField{"steps", &row.steps, 10000},
                              IntField{"cfg_passes_per_step", &row.cfg_passes, 8}}) {
      auto value = ParseInteger(cell(f.name));
      if (!value || *value < 1 || *value > f.max) {
        return fail(std::string(f.name) + " '" + cell(f.name) + "' is not an integer in [1, " + std::to_string(f.max) +
                    "]");
      }
      *f.field = *value;
    }
    auto seconds = ParseNumber(cell("seconds"));
    if (!seconds || *seconds <= 0 || *seconds > 1e9) {
      return fail("seconds '" + cell("seconds") + "' is not a positive time");
    }
    row.measured = Seconds(*seconds);
    if (table.column.count("peak_mem_GB") && !cell("peak_mem_GB").empty()) {
      auto memory = ParseNumber(cell("peak_mem_GB"));
      if (!memory || *memory <= 0) return fail("peak_mem_GB '" + cell("peak_mem_GB") + "' is not a positive size");
    }
    if (table.column.count("notes")) row.notes = cell("notes");
    if (table.column.count("gpus")) {
      auto gpus = ParseInteger(cell("gpus"));
      if (!gpus || *gpus < 1 || *gpus > 64) return fail("gpus '" + cell("gpus") + "' is not an integer in [1, 64]");
      row.gpus = *gpus;
    }
    if (table.column.count("parallel")) row.parallel = cell("parallel");
    row.offload_model = row.notes.find("--offload_model True") != std::string::npos;
    row.text_encoder_on_cpu = row.notes.find("--t5_cpu") != std::string::npos;
    zoo::ModelOptions options;
    options.width = row.width;
    options.height = row.height;
    options.frames = row.frames;
    options.steps = row.steps;
    options.cfg = zoo::CfgMode::kNone;
    auto config = zoo::ResolveConfig(row.model, options);
    if (!config.ok()) return fail(config.status().message());
    out.push_back(std::move(row));
  }
  return out;
}

namespace {

// `graph` compiled for one device (x=1, replicated), its kernels grouped.
StatusOr<KernelMix> CompileForOneDevice(const pir::Graph& graph) {
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse("x=1"));
  compile::SpmdCompiler compiler;
  AZ_ASSIGN_OR_RETURN(cir::Program program, compile::CompileTemplate(compiler, graph, mesh, "replicated", {}));
  evidence::Evidence evidence = evidence::Extract(program, compiler.name());
  KernelMix mix;
  mix.parameter_bytes = evidence.parameter_bytes.value();
  std::map<std::tuple<cir::KernelKind, int64_t, int64_t, std::vector<int64_t>, pir::DType>, size_t> index;
  for (const evidence::ComputeSegment& segment : evidence.segments) {
    auto [it, inserted] = index.emplace(std::make_tuple(segment.kind, segment.flops.value(), segment.bytes.value(),
                                                        segment.dims, segment.precision),
                                        mix.distinct.size());
    if (inserted) mix.distinct.push_back({segment, 0});
    ++mix.distinct[it->second].second;
  }
  return mix;
}

}  // namespace

StatusOr<const VideoPipeline*> PipelineCache::Get(const std::string& model, int64_t width, int64_t height,
                                                  int64_t frames, int64_t cfg_passes) {
  auto key = std::make_tuple(model, width, height, frames, cfg_passes);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return &it->second;
  zoo::ModelOptions options;
  options.width = width;
  options.height = height;
  options.frames = frames;
  options.batch = 1;
  // One forward is compiled; the row says how many a step runs. The stages
  // see the CFG mode: two passes encode the negative prompt too.
  options.cfg = zoo::CfgMode::kNone;
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig forward_config, zoo::ResolveConfig(model, options));
  AZ_ASSIGN_OR_RETURN(pir::Graph forward, zoo::BuildForward(forward_config));
  VideoPipeline pipeline;
  AZ_ASSIGN_OR_RETURN(pipeline.forward, CompileForOneDevice(forward));
  ++compiled_;
  options.cfg = cfg_passes >= 2 ? zoo::CfgMode::kTwoPass : zoo::CfgMode::kNone;
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, zoo::ResolveConfig(model, options));
  for (const zoo::StageInfo& info : zoo::StagesOf(config)) {
    AZ_ASSIGN_OR_RETURN(pir::Graph graph, zoo::BuildStage(config, info.name));
    VideoPipeline::Stage stage;
    stage.name = info.name;
    stage.kind = info.kind;
    stage.invocations = info.invocations;
    AZ_ASSIGN_OR_RETURN(stage.kernels, CompileForOneDevice(graph));
    ++compiled_;
    pipeline.stages.push_back(std::move(stage));
  }
  return &pipelines_.emplace(key, std::move(pipeline)).first->second;
}

Seconds MixTime(const ComputeModel& model, const KernelMix& mix) {
  double total = 0;
  for (const auto& [segment, count] : mix.distinct) {
    total += model.Time(segment).time.value() * static_cast<double>(count);
  }
  return Seconds(total);
}

DitPrediction PredictDitRow(const ComputeModel& model, const DitLatency& row, const VideoPipeline& pipeline) {
  DitPrediction p;
  p.forward = MixTime(model, pipeline.forward);
  p.denoising = p.forward * static_cast<double>(row.steps * row.cfg_passes);
  // The recipe's weight moves (video_fit.h), in bytes over the host link.
  double moved = 0;
  if (row.offload_model) {
    // The DiT to the host before the VAE decodes; I2V builds it on the host
    // (init_on_cpu) and moves it in before the first step.
    const bool image_to_video = std::any_of(pipeline.stages.begin(), pipeline.stages.end(),
                                            [](const VideoPipeline::Stage& s) {
                                              return s.kind == zoo::StageKind::kImageEncoder ||
                                                     s.kind == zoo::StageKind::kVaeEncoder;
                                            });
    moved += static_cast<double>(pipeline.forward.parameter_bytes) * (image_to_video ? 2 : 1);
  }
  double stages = 0;
  for (const VideoPipeline::Stage& stage : pipeline.stages) {
    if (stage.kind == zoo::StageKind::kTextEncoder && row.text_encoder_on_cpu) {
      p.not_priced.push_back(stage.name + " on the host CPU (--t5_cpu)");
      continue;
    }
    Seconds time = MixTime(model, stage.kernels) * static_cast<double>(stage.invocations);
    p.stages.push_back({stage.name, time});
    stages += time.value();
    if (!row.offload_model) continue;
    // Built on the host and moved in and out (the text encoder), or built on
    // the GPU and moved out after its call (the CLIP image encoder).
    if (stage.kind == zoo::StageKind::kTextEncoder) moved += 2.0 * static_cast<double>(stage.kernels.parameter_bytes);
    if (stage.kind == zoo::StageKind::kImageEncoder) moved += static_cast<double>(stage.kernels.parameter_bytes);
  }
  auto chip = hw::FindChip(row.chip);
  AZ_CHECK(chip.ok());  // ReadDitLatencies names catalog chips only
  p.host_transfers = Seconds(moved / hw::HostLinkBandwidth(**chip).value());
  p.total = p.denoising + Seconds(stages) + p.host_transfers;
  return p;
}


namespace {

// One GPU's rows fitted (video_fit.h); the rows' predictions go to `out`.
StatusOr<DitChipFit> FitChip(const hw::ChipSpec& chip, const ComputeCalibration& base,
                             const std::vector<const DitLatency*>& rows,
                             const std::vector<const VideoPipeline*>& pipelines, std::vector<DitFitRow>& out) {
  auto model_at = [&](double log_scale) {
    auto model = ComputeModel::Create(chip, ScaleTensorEfficiencies(base, std::exp(log_scale)));
    AZ_CHECK(model.ok());  // scaled efficiencies stay in (0, 1]
    return std::move(model).value();
  };
  auto objective = [&](double log_scale) {
    ComputeModel model = model_at(log_scale);
    double sum = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      double error = std::log(PredictDitRow(model, *rows[r], *pipelines[r]).total / rows[r]->measured);
      sum += error * error;
    }
    return sum;
  };
  // From a hundredth of the start up to where every tensor-core efficiency is
  // capped at 1 (beyond it the objective is flat).
  double smallest = std::min({base.matmul_efficiency, base.attention_efficiency, base.convolution_efficiency});
  const double lowest = std::log(0.01), highest = std::log(1 / smallest);
  double log_scale = GoldenSection(objective, lowest, highest);
  ComputeModel model = model_at(log_scale);
  DitChipFit fit;
  fit.chip = chip.name;
  fit.scale = std::exp(log_scale);
  fit.rows = static_cast<int>(rows.size());
  fit.rms_log_error = std::sqrt(objective(log_scale) / static_cast<double>(rows.size()));
  fit.calibration = model.calibration();
  if (log_scale > highest - 1e-6) {
    fit.warning = "every tensor-core efficiency is capped at 1 and the rows are still faster than predicted: "
                  "the measurements do not fit this chip's peak";
  } else if (log_scale < lowest + 1e-6) {
    fit.warning = "the scale hit its lower limit (0.01 of the documented efficiencies): the rows are far "
                  "slower than any kernel efficiency explains";
  }
  // One workload: one model whose forward does the same work (HunyuanVideo's
  // 1280x720 and 960x960 both have 3,600 patches a latent frame).
  auto forward_flops = [](const VideoPipeline& p) {
    double flops = 0;
    for (const auto& [segment, count] : p.forward.distinct) {
      flops += static_cast<double>(segment.flops.value()) * static_cast<double>(count);
    }
    return flops;
  };
  fit.one_workload = true;
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r]->model != rows[0]->model || forward_flops(*pipelines[r]) != forward_flops(*pipelines[0])) {
      fit.one_workload = false;
    }
  }
  std::vector<std::string> models;
  for (const DitLatency* row : rows) {
    if (std::find(models.begin(), models.end(), row->model) == models.end()) models.push_back(row->model);
  }
  std::string list;
  for (const std::string& m : models) list += (list.empty() ? "" : ", ") + m;
  fit.calibration.source = "fit to " + std::to_string(rows.size()) + " single-GPU video latencies (" + list +
                           "), each predicted end to end: one scale on the tensor-core efficiencies, least "
                           "squares on log error";
  for (size_t r = 0; r < rows.size(); ++r) {
    DitFitRow row{*rows[r], PredictDitRow(model, *rows[r], *pipelines[r]), Seconds(0), 0};
    row.predicted = row.prediction.total;
    row.relative_error = (row.predicted.value() - row.row.measured.value()) / row.row.measured.value();
    if (!row.prediction.not_priced.empty()) fit.absorbs_unpriced = true;
    out.push_back(std::move(row));
  }
  if (fit.one_workload) {
    fit.note = rows.size() == 1 ? "one row: the fit reproduces it by construction and checks nothing"
                                : "every row is one workload: the fit reproduces their mean and checks nothing";
  }
  if (fit.absorbs_unpriced) {
    fit.note += std::string(fit.note.empty() ? "" : "; ") +
                "a row runs a stage the model cannot price (the text encoder on the host CPU), whose time the "
                "fit charges to the GPU: conservative (low) efficiencies";
  }
  if (!fit.note.empty()) fit.calibration.source += "; " + fit.note;
  return fit;
}

// Both entry points: every row priced per GPU, with its chip's fit or with
// `start` as it is.
StatusOr<DitFitReport> PriceDitRows(const std::vector<DitLatency>& rows, PipelineCache& cache,
                                    const StartCalibration& start, bool fit) {
  std::vector<std::string> chips;
  std::map<std::string, std::vector<size_t>> rows_of;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows_of.count(rows[i].chip)) chips.push_back(rows[i].chip);
    rows_of[rows[i].chip].push_back(i);
  }
  DitFitReport report;
  std::vector<std::optional<DitFitRow>> priced(rows.size());
  std::vector<std::optional<std::string>> skipped(rows.size());
  for (const std::string& name : chips) {
    const std::vector<size_t>& mine = rows_of[name];
    AZ_ASSIGN_OR_RETURN(const hw::ChipSpec* chip, hw::FindChip(name));
    ComputeCalibration base = start(*chip);
    auto model = ComputeModel::Create(*chip, base);
    if (!model.ok()) {
      for (size_t i : mine) skipped[i] = model.status().message();
      continue;
    }
    std::vector<const DitLatency*> chip_rows;
    std::vector<const VideoPipeline*> pipelines;
    for (size_t i : mine) {
      chip_rows.push_back(&rows[i]);
      AZ_ASSIGN_OR_RETURN(const VideoPipeline* pipeline, cache.Get(rows[i]));
      pipelines.push_back(pipeline);
    }
    std::vector<DitFitRow> out;
    if (fit) {
      AZ_ASSIGN_OR_RETURN(DitChipFit chip_fit, FitChip(*chip, base, chip_rows, pipelines, out));
      report.chips.push_back(std::move(chip_fit));
    } else {
      for (size_t r = 0; r < mine.size(); ++r) {
        DitFitRow row{rows[mine[r]], PredictDitRow(*model, rows[mine[r]], *pipelines[r]), Seconds(0), 0};
        row.predicted = row.prediction.total;
        row.relative_error = (row.predicted.value() - row.row.measured.value()) / row.row.measured.value();
        out.push_back(std::move(row));
      }
    }
    for (size_t r = 0; r < mine.size(); ++r) priced[mine[r]] = std::move(out[r]);
  }
  std::vector<double> errors;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (priced[i]) {
      errors.push_back(std::abs(priced[i]->relative_error));
      report.rows.push_back(std::move(*priced[i]));
    }
    if (skipped[i]) report.skipped.push_back({rows[i], *skipped[i]});
  }
  if (report.rows.empty()) {
    return InvalidArgument("no row can be priced: " +
                           (report.skipped.empty() ? std::string("no rows") : report.skipped.front().reason));
  }
  report.median_abs_error = Median(errors);
  return report;
}

}  // namespace

StatusOr<DitFitReport> FitDitLatencies(const std::vector<DitLatency>& rows, PipelineCache& cache,
                                       const StartCalibration& start) {
  return PriceDitRows(rows, cache, start, /*fit=*/true);
}

StatusOr<DitFitReport> PredictDitLatencies(const std::vector<DitLatency>& rows, PipelineCache& cache,
                                           const StartCalibration& calibration) {
  return PriceDitRows(rows, cache, calibration, /*fit=*/false);
}

}  // namespace az::fidelity
