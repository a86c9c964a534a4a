#include "fidelity/scaling.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "frontend/zoo/zoo.h"
#include "hw/topology.h"
#include "net/model.h"
#include "place/search.h"
#include "price/calibration.h"
#include "price/simulator.h"
#include "search/combos.h"
#include "search/evaluate.h"
#include "support/golden_section.h"

namespace az::fidelity {

namespace {

Status RowError(std::string_view file, int line, const std::string& message) {
  return InvalidArgument(std::string(file) + ":" + std::to_string(line) + ": error: " + message);
}

std::string Lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The model's attention heads (search/combos.h), which Ulysses splits.
StatusOr<int64_t> Heads(const fidelity::DitLatency& row) {
  zoo::ModelOptions options;
  options.width = row.width;
  options.height = row.height;
  options.frames = row.frames;
  options.cfg = zoo::CfgMode::kNone;
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, zoo::ResolveConfig(row.model, options));
  return search::AttentionHeads(zoo::WorkloadOf(config));
}

}  // namespace

StatusOr<DeployedRecipe> RecipeOf(const fidelity::DitLatency& row, std::string_view file_name) {
  auto fail = [&](const std::string& message) { return RowError(file_name, row.line, message); };
  const bool wan = StartsWith(row.model, "wan2.1-");
  const bool hunyuan = row.model == "hunyuanvideo-13b";
  if (!wan && !hunyuan) {
    return fail("no deployed multi-GPU recipe is known for " + row.model +
                " (known: Wan 2.1's generate.py, HunyuanVideo's official repo)");
  }
  const std::string n = std::to_string(row.gpus);
  DeployedRecipe recipe;
  std::string text = Lower(row.parallel);
  recipe.inferred = text.find('?') != std::string::npos;
  text.erase(std::remove(text.begin(), text.end(), '?'), text.end());
  bool fsdp = false;
  if (size_t plus = text.find("+fsdp"); plus != std::string::npos) {
    if (plus + 5 != text.size()) return fail("parallel '" + row.parallel + "': expected '+fsdp' at its end");
    fsdp = true;
    text.resize(plus);
  }
  std::string strategy;
  if (text.empty()) {
    // Not spelled out: the reference command for this model (header).
    AZ_ASSIGN_OR_RETURN(int64_t heads, Heads(row));
    strategy = heads % row.gpus == 0 ? "ulysses" : "ring";
    fsdp = wan;
  } else {
    for (const char* known : {"ulysses", "ring"}) {
      if (!StartsWith(text, known)) continue;
      std::string degree = text.substr(std::string(known).size());
      if (degree != n) {
        return fail("parallel '" + row.parallel + "': the degree is not the row's " + n + " GPUs");
      }
      strategy = known;
    }
    if (strategy.empty()) {
      return fail("parallel '" + row.parallel + "' is not ulyssesN or ringN (optionally +fsdp, '?' when inferred)");
    }
  }
  if (row.gpus == 1) return fail("a multi-GPU row needs gpus >= 2");
  recipe.combo = strategy + "=" + n + (fsdp ? ",fsdp=" + n : "");
  if (wan) {
    // The README's command; the 1.3B runs ring where its 12 heads do not split.
    recipe.text_encoder_fsdp = fsdp;
    recipe.command = "torchrun --nproc_per_node=" + n + " generate.py" + (fsdp ? " --dit_fsdp --t5_fsdp" : "") + " --" +
                     strategy + "_size " + n;
  } else {
    recipe.command = "torchrun --nproc_per_node=" + n + " sample_video.py --" + strategy + "-degree " + n;
  }
  return recipe;
}

StatusOr<const search::Compiled*> ScalingCache::Forward(const fidelity::DitLatency& row, const std::string& combo_text) {
  auto key = std::make_tuple(row.model, row.width, row.height, row.frames, combo_text);
  if (auto it = forwards_.find(key); it != forwards_.end()) return &it->second;
  zoo::ModelOptions options;
  options.width = row.width;
  options.height = row.height;
  options.frames = row.frames;
  options.batch = 1;
  options.cfg = zoo::CfgMode::kNone;  // one forward; the row says how many a step runs
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, zoo::ResolveConfig(row.model, options));
  AZ_ASSIGN_OR_RETURN(search::Combo combo, search::ParseCombo(combo_text, row.gpus));
  // The planner's evaluator compiles it (search/evaluate.h), one forward.
  search::Candidate candidate;
  AZ_ASSIGN_OR_RETURN(candidate.mesh, shard::Mesh::Parse(combo.MeshText()));
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, zoo::BuildForward(config));
  candidate.program = std::make_shared<const pir::Graph>(std::move(graph));
  candidate.strategy.combo = combo;
  AZ_ASSIGN_OR_RETURN(search::Compiled compiled, search::Compile(candidate, search::EvaluateOptions()));
  ++compiled_;
  return &forwards_.emplace(key, std::move(compiled)).first->second;
}

StatusOr<ScalingPrediction> PredictScalingRow(const fidelity::DitLatency& row, std::string_view file_name,
                                              ScalingCache& cache, const fidelity::StartCalibration& compute) {
  ScalingPrediction p;
  AZ_ASSIGN_OR_RETURN(p.recipe, RecipeOf(row, file_name));
  AZ_ASSIGN_OR_RETURN(hw::Topology topology, hw::MakeTopology(row.chip + ":" + std::to_string(row.gpus)));
  price::ComputeCalibration compute_calibration = compute(topology.chip);
  net::Calibration network = price::DefaultPriceCalibration(topology).network;

  AZ_ASSIGN_OR_RETURN(const search::Compiled* forward, cache.Forward(row, p.recipe.combo));
  std::string method;
  AZ_ASSIGN_OR_RETURN(net::Placement placement,
                      place::DefaultPlacementFor(topology, {static_cast<int64_t>(row.gpus)}, &method));
  price::PriceCalibration calibration;
  calibration.network = network;
  calibration.compute = compute_calibration;
  AZ_ASSIGN_OR_RETURN(price::SimResult result,
                      search::Breakdown(*forward, topology, calibration, placement, /*timeline=*/false));
  p.forward = Seconds(result.latency);
  p.forward_compute = Seconds(result.compute);
  p.forward_exposed = Seconds(result.exposed_communication);
  p.kernels = result.kernels;
  p.collectives = result.collectives;
  p.denoising = p.forward * static_cast<double>(row.steps * row.cfg_passes);

  // The stages on one device each, as video_fit.h prices them.
  AZ_ASSIGN_OR_RETURN(const fidelity::VideoPipeline* pipeline, cache.pipelines().Get(row));
  AZ_ASSIGN_OR_RETURN(price::ComputeModel model, price::ComputeModel::Create(topology.chip, compute_calibration));
  double stages = 0;
  net::CollectiveModel collectives(topology, network);
  for (const fidelity::VideoPipeline::Stage& stage : pipeline->stages) {
    Seconds time = fidelity::MixTime(model, stage.kernels) * static_cast<double>(stage.invocations);
    p.stages.push_back({stage.name, time});
    stages += time.value();
    if (stage.kind != zoo::StageKind::kTextEncoder || !p.recipe.text_encoder_fsdp) continue;
    // FSDP: every invocation gathers the whole encoder over the N ranks.
    net::Collective gather;
    gather.kind = cir::CollectiveKind::kAllGather;
    gather.bytes = Bytes(stage.kernels.parameter_bytes);
    std::vector<int> all(static_cast<size_t>(row.gpus));
    std::iota(all.begin(), all.end(), 0);
    gather.groups.groups = {all};
    AZ_ASSIGN_OR_RETURN(net::CollectiveResult priced, collectives.Price(gather, placement));
    p.text_encoder_gathers += priced.time * static_cast<double>(stage.invocations);
  }
  p.total = p.denoising + Seconds(stages) + p.text_encoder_gathers;
  return p;
}

namespace {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The multi-GPU rows priced with each GPU's calibration from `chips` (a
// single-GPU fit's), or with `fallback` where `chips` is null.
StatusOr<std::vector<ScalingRowFit>> PriceMulti(const std::vector<fidelity::DitLatency>& multi,
                                                std::string_view multi_file, ScalingCache& cache,
                                                const std::vector<fidelity::DitChipFit>* chips,
                                                const fidelity::StartCalibration& fallback) {
  std::vector<ScalingRowFit> out;
  for (const fidelity::DitLatency& row : multi) {
    fidelity::StartCalibration calibration = fallback;
    if (chips) {
      auto fit = std::find_if(chips->begin(), chips->end(),
                              [&](const fidelity::DitChipFit& f) { return f.chip == row.chip; });
      if (fit == chips->end()) {
        return InvalidArgument(std::string(multi_file) + ":" + std::to_string(row.line) + ": error: no single-GPU row of " +
                               row.gpu + " to fit its kernels on");
      }
      price::ComputeCalibration fitted = fit->calibration;
      calibration = [fitted](const hw::ChipSpec&) { return fitted; };
    }
    AZ_ASSIGN_OR_RETURN(ScalingPrediction prediction, PredictScalingRow(row, multi_file, cache, calibration));
    double error = (prediction.total.value() - row.measured.value()) / row.measured.value();
    out.push_back({row, std::move(prediction), error});
  }
  return out;
}

double MedianAbsError(const std::vector<ScalingRowFit>& rows) {
  std::vector<double> errors;
  for (const ScalingRowFit& r : rows) errors.push_back(std::abs(r.relative_error));
  return Median(errors);
}

}  // namespace

fidelity::StartCalibration ConvolutionRatioStart(double ratio) {
  return [ratio](const hw::ChipSpec& chip) {
    price::ComputeCalibration c = price::UnfittedComputeCalibration(chip);
    c.convolution_efficiency *= ratio;
    return c;
  };
}

StatusOr<ScalingReport> FitScaling(const std::vector<fidelity::DitLatency>& single,
                                   const std::vector<fidelity::DitLatency>& multi, std::string_view multi_file,
                                   ScalingCache& cache) {
  // Failures inside the objective end the search; the first is returned.
  Status failure = Status::Ok();
  auto objective = [&](double log_ratio) {
    if (!failure.ok()) return 0.0;
    auto fit = fidelity::FitDitLatencies(single, cache.pipelines(), ConvolutionRatioStart(std::exp(log_ratio)));
    if (!fit.ok()) {
      failure = fit.status();
      return 0.0;
    }
    auto rows = PriceMulti(multi, multi_file, cache, &fit->chips, nullptr);
    if (!rows.ok()) {
      failure = rows.status();
      return 0.0;
    }
    double sum = 0;
    for (const ScalingRowFit& r : *rows) sum += std::pow(std::log1p(r.relative_error), 2);
    return sum;
  };
  // 30 steps leave 0.618^30 = 5.5e-7 of the range of log rho (3.9): rho to
  // 2e-6 relative, far below what 28 rows determine and the 4 digits shipped.
  double log_ratio = GoldenSection(objective, std::log(0.02), 0.0, 30);
  AZ_RETURN_IF_ERROR(failure);
  ScalingReport report;
  report.convolution_ratio = std::exp(log_ratio);
  AZ_ASSIGN_OR_RETURN(report.single,
                      fidelity::FitDitLatencies(single, cache.pipelines(), ConvolutionRatioStart(report.convolution_ratio)));
  AZ_ASSIGN_OR_RETURN(report.rows, PriceMulti(multi, multi_file, cache, &report.single.chips, nullptr));
  report.median_abs_error = MedianAbsError(report.rows);
  return report;
}

StatusOr<CrossValidation> CrossValidate(const std::vector<fidelity::DitLatency>& single,
                                        const std::vector<fidelity::DitLatency>& multi, std::string_view multi_file,
                                        ScalingCache& cache, Split split) {
  auto key_of = [split](const fidelity::DitLatency& row) {
    return split == Split::kGpu ? row.chip : row.model.substr(0, row.model.find_first_of("-."));
  };
  CrossValidation out;
  out.split = split == Split::kGpu ? "leave one GPU out" : "leave one model family out";
  std::vector<std::string> keys;
  for (const fidelity::DitLatency& row : multi) {
    if (std::find(keys.begin(), keys.end(), key_of(row)) == keys.end()) keys.push_back(key_of(row));
  }
  std::vector<ScalingRowFit> all;
  for (const std::string& key : keys) {
    std::vector<fidelity::DitLatency> train, test;
    for (const fidelity::DitLatency& row : multi) (key_of(row) == key ? test : train).push_back(row);
    if (train.empty()) continue;
    AZ_ASSIGN_OR_RETURN(ScalingReport fitted, FitScaling(single, train, multi_file, cache));
    HeldOutGroup group;
    group.key = key;
    group.convolution_ratio = fitted.convolution_ratio;
    AZ_ASSIGN_OR_RETURN(group.rows, PriceMulti(test, multi_file, cache, &fitted.single.chips, nullptr));
    group.median_abs_error = MedianAbsError(group.rows);
    all.insert(all.end(), group.rows.begin(), group.rows.end());
    out.groups.push_back(std::move(group));
  }
  out.median_abs_error = MedianAbsError(all);
  return out;
}

StatusOr<ScalingReport> PredictScaling(const std::vector<fidelity::DitLatency>& single,
                                       const std::vector<fidelity::DitLatency>& multi, std::string_view multi_file,
                                       ScalingCache& cache, const fidelity::StartCalibration& calibration) {
  ScalingReport report;
  report.convolution_ratio = 0;  // not fitted: the calibration's own convolution efficiencies
  AZ_ASSIGN_OR_RETURN(report.single, fidelity::PredictDitLatencies(single, cache.pipelines(), calibration));
  AZ_ASSIGN_OR_RETURN(report.rows, PriceMulti(multi, multi_file, cache, nullptr, calibration));
  report.median_abs_error = MedianAbsError(report.rows);
  return report;
}

}  // namespace az::fidelity
