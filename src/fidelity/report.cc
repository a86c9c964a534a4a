#include "fidelity/report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "fidelity/published_train.h"
#include "fidelity/scaling.h"
#include "fidelity/video_fit.h"
#include "hw/topology.h"
#include "net/fit.h"
#include "net/model.h"
#include "net/tpu_points.h"
#include "price/compute_fit.h"

namespace az::fidelity {

namespace {

StatusOr<std::string> ReadWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read '" + path.string() + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

FileFidelity Summarize(std::string file, std::string what, const std::vector<double>& errors) {
  FileFidelity f;
  f.file = std::move(file);
  f.what = std::move(what);
  f.rows = static_cast<int>(errors.size());
  std::vector<double> magnitudes;
  for (double e : errors) magnitudes.push_back(std::abs(e));
  f.median_abs_error = Median(magnitudes);
  f.max_abs_error = magnitudes.empty() ? 0 : *std::max_element(magnitudes.begin(), magnitudes.end());
  return f;
}

std::string Percent(double e) { return fmt::format("{:+.1f}%", 100 * e); }

std::string Size(const fidelity::DitLatency& r) { return fmt::format("{}x{}x{}", r.width, r.height, r.frames); }

// The collective files: the system each was measured on and its collective
// (the files' headers say both).
struct KnownCollectiveFile {
  const char* file;
  const char* topology;
};
constexpr KnownCollectiveFile kCollectiveFiles[] = {
    {"nccl_allreduce_1x8_h100_sxm.csv", "h100:8"},
    {"nccl_allreduce_1x8_h200.csv", "h200:8"},
    {"nccl_16GiB_1x8_h200_by_collective.csv", "h200:8"},
    {"nccl_allreduce_2x8_h100_efa.csv", "h100:2x8:efa"},
};

// ---------------------------------------------------------------- DiT files

Status DitSections(const std::string& dir, std::vector<FileFidelity>& files, std::string& md) {
  const std::string single_name = "dit_single_gpu_latency.csv", multi_name = "dit_multi_gpu_latency.csv";
  const std::filesystem::path single_path = std::filesystem::path(dir) / single_name,
                              multi_path = std::filesystem::path(dir) / multi_name;
  if (!std::filesystem::exists(single_path)) return Status::Ok();
  AZ_ASSIGN_OR_RETURN(std::string single_text, ReadWhole(single_path));
  AZ_ASSIGN_OR_RETURN(std::vector<fidelity::DitLatency> single, fidelity::ReadDitLatencies(single_text, single_name));
  std::vector<fidelity::DitLatency> multi;
  if (std::filesystem::exists(multi_path)) {
    AZ_ASSIGN_OR_RETURN(std::string multi_text, ReadWhole(multi_path));
    AZ_ASSIGN_OR_RETURN(multi, fidelity::ReadDitLatencies(multi_text, multi_name));
  }
  ScalingCache cache;
  AZ_ASSIGN_OR_RETURN(ScalingReport shipped,
                      PredictScaling(single, multi, multi_name, cache, price::DefaultComputeCalibration));

  md += "\n## " + single_name + "\n\nEach video predicted end to end on one GPU (fidelity/video_fit.h).\n\n";
  md += "| line | model | GPU | size | published | predicted | error |\n|---:|---|---|---|---:|---:|---:|\n";
  std::vector<double> errors;
  for (const fidelity::DitFitRow& r : shipped.single.rows) {
    md += fmt::format("| {} | {} | {} | {} | {:.1f} s | {:.1f} s | {} |\n", r.row.line, r.row.model, r.row.gpu,
                      Size(r.row), r.row.measured.value(), r.predicted.value(), Percent(r.relative_error));
    errors.push_back(r.relative_error);
  }
  files.push_back(Summarize(single_name, "single-GPU DiT videos", errors));
  if (!shipped.single.skipped.empty()) files.back().note = std::to_string(shipped.single.skipped.size()) + " rows skipped";
  if (multi.empty()) return Status::Ok();

  md += "\n## " + multi_name + "\n\nEach video predicted on N GPUs as its reference code deploys it "
        "(fidelity/scaling.h): the deployed combination compiled and simulated on `chip:N`, the other stages "
        "on one device.\n\n";
  md += "| line | model | GPU | size | GPUs | priced as | published | predicted | error |\n"
        "|---:|---|---|---|---:|---|---:|---:|---:|\n";
  errors.clear();
  std::map<int64_t, std::vector<double>> by_count;
  std::map<std::string, const ScalingRowFit*> largest;  // series -> its row with the most GPUs
  for (const ScalingRowFit& r : shipped.rows) {
    md += fmt::format("| {} | {} | {} | {} | {} | {}{} | {:.1f} s | {:.1f} s | {} |\n", r.row.line, r.row.model,
                      r.row.gpu, Size(r.row), r.row.gpus, r.prediction.recipe.combo,
                      r.prediction.recipe.inferred ? " (inferred)" : "", r.row.measured.value(),
                      r.prediction.total.value(), Percent(r.relative_error));
    errors.push_back(r.relative_error);
    by_count[r.row.gpus].push_back(r.relative_error);
    std::string series = r.row.model + " " + r.row.gpu + " " + Size(r.row);
    if (!largest.count(series) || largest[series]->row.gpus < r.row.gpus) largest[series] = &r;
  }
  md += "\nMean signed error by GPU count:\n\n| GPUs | rows | mean signed error |\n|---:|---:|---:|\n";
  for (const auto& [count, list] : by_count) {
    double sum = 0;
    for (double e : list) sum += e;
    md += fmt::format("| {} | {} | {} |\n", count, list.size(), Percent(sum / static_cast<double>(list.size())));
  }
  double largest_sum = 0;
  md += "\nAt each series' largest GPU count:\n\n| series | GPUs | error |\n|---|---:|---:|\n";
  for (const auto& [series, row] : largest) {
    md += fmt::format("| {} | {} | {} |\n", series, row->row.gpus, Percent(row->relative_error));
    largest_sum += row->relative_error;
  }
  md += fmt::format("\nMean signed error at the largest counts: {} over {} series.\n",
                    Percent(largest_sum / static_cast<double>(largest.size())), largest.size());
  FileFidelity multi_summary = Summarize(multi_name, "multi-GPU DiT videos", errors);

  md += "\n### Out of sample\n\nThe joint fit (fidelity/scaling.h) re-run without each group's multi-GPU rows, "
        "which are then predicted; every GPU keeps the scale of its own single-GPU rows.\n\n";
  md += "| split | held out | rho fitted without it | held-out errors | median |\n|---|---|---:|---|---:|\n";
  for (Split split : {Split::kGpu, Split::kModelFamily}) {
    AZ_ASSIGN_OR_RETURN(CrossValidation cv, CrossValidate(single, multi, multi_name, cache, split));
    for (const HeldOutGroup& g : cv.groups) {
      std::string list;
      for (const ScalingRowFit& r : g.rows) list += (list.empty() ? "" : ", ") + Percent(r.relative_error);
      md += fmt::format("| {} | {} | {:.4f} | {} | {:.1f}% |\n", cv.split, g.key, g.convolution_ratio, list,
                        100 * g.median_abs_error);
    }
    md += fmt::format("| {} | all | | | **{:.1f}%** |\n", cv.split, 100 * cv.median_abs_error);
  }
  files.push_back(std::move(multi_summary));
  return Status::Ok();
}

// ---------------------------------------------------------------- collective files

Status CollectiveSection(const std::string& dir, const KnownCollectiveFile& known, std::vector<FileFidelity>& files,
                         std::string& md) {
  const std::filesystem::path path = std::filesystem::path(dir) / known.file;
  if (!std::filesystem::exists(path)) return Status::Ok();
  AZ_ASSIGN_OR_RETURN(std::string text, ReadWhole(path));
  AZ_ASSIGN_OR_RETURN(hw::Topology topology, hw::MakeTopology(known.topology));
  AZ_ASSIGN_OR_RETURN(std::vector<net::Measurement> rows,
                      net::ReadMeasurements(text, known.file, net::CollectiveKind::kAllReduce, topology.num_chips()));
  net::CollectiveModel model(topology, net::DefaultCalibration(topology));
  net::Collective c;
  c.groups.groups.push_back({});
  for (int i = 0; i < topology.num_chips(); ++i) c.groups.groups[0].push_back(i);
  const net::Placement identity = net::IdentityPlacement(topology.num_chips());
  md += fmt::format("\n## {}\n\nOn `{}`, every chip, with the shipped calibration ({}).\n\n", known.file, known.topology,
                    model.calibration().source);
  md += "| line | collective | bytes | published | predicted | error | algorithm |\n|---:|---|---:|---:|---:|---:|---|\n";
  std::vector<double> errors;
  for (const net::Measurement& m : rows) {
    c.kind = m.kind;
    c.bytes = m.bytes;
    AZ_ASSIGN_OR_RETURN(std::vector<net::CollectiveResult> candidates, model.PriceCandidates(c, identity));
    const net::CollectiveResult* pick = nullptr;
    for (const net::CollectiveResult& r : candidates) {
      bool named = m.algorithm.empty() || r.algorithm == m.algorithm;
      if (named && (!pick || r.time < pick->time)) pick = &r;
    }
    if (!pick) return InvalidArgument(std::string(known.file) + ":" + std::to_string(m.line) +
                                      ": error: the model has no algorithm '" + m.algorithm + "' on " + known.topology);
    double error = (pick->time.value() - m.time.value()) / m.time.value();
    md += fmt::format("| {} | {} | {} | {:.1f} us | {:.1f} us | {} | {} |\n", m.line,
                      cir::CollectiveKindName(m.kind), m.bytes.value(), m.time.value() * 1e6,
                      pick->time.value() * 1e6, Percent(error), pick->algorithm);
    if (m.bytes.value() >= (int64_t{1} << 20)) errors.push_back(error);
  }
  files.push_back(Summarize(known.file, fmt::format("collectives on {} (sizes >= 1 MiB)", known.topology), errors));
  return Status::Ok();
}

// ---------------------------------------------------------------- TPU points

Status TpuSection(const std::string& dir, std::vector<FileFidelity>& files, std::string& md) {
  const std::string name = "tpu_ici_points.csv";
  const std::filesystem::path path = std::filesystem::path(dir) / name;
  if (!std::filesystem::exists(path)) return Status::Ok();
  AZ_ASSIGN_OR_RETURN(std::string text, ReadWhole(path));
  AZ_ASSIGN_OR_RETURN(std::vector<net::TpuPoint> points, net::ReadTpuPoints(text, name));
  md += "\n## " + name + "\n\nEach point on its slice and chips (net/tpu_points.h), with the shipped calibration.\n\n";
  md += "| line | collective | slice | group | bytes | published | predicted | error |\n"
        "|---:|---|---|---|---:|---:|---:|---:|\n";
  std::vector<double> errors;
  for (const net::TpuPoint& p : points) {
    AZ_ASSIGN_OR_RETURN(Seconds measured, net::MeasuredTime(p));
    AZ_ASSIGN_OR_RETURN(Seconds predicted, net::PredictTpuPoint(p));
    double error = (predicted.value() - measured.value()) / measured.value();
    md += fmt::format("| {} | {} | {} | {} | {:.0f} | {:.1f} us | {:.1f} us | {} |\n", p.line, p.kind, p.topology,
                      p.group, p.bytes, measured.value() * 1e6, predicted.value() * 1e6, Percent(error));
    errors.push_back(error);
  }
  files.push_back(Summarize(name, "TPU ICI collectives (scaling book)", errors));
  return Status::Ok();
}

}  // namespace

StatusOr<FidelityReport> MakeFidelityReport(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) return NotFound("measurement folder '" + dir + "' is not a directory");
  FidelityReport report;
  std::string body;
  AZ_RETURN_IF_ERROR(DitSections(dir, report.files, body));
  for (const KnownCollectiveFile& known : kCollectiveFiles) {
    AZ_RETURN_IF_ERROR(CollectiveSection(dir, known, report.files, body));
  }
  AZ_RETURN_IF_ERROR(TpuSection(dir, report.files, body));
  // Files the report does not know, in name order.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".csv") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    bool known = std::any_of(report.files.begin(), report.files.end(),
                             [&](const FileFidelity& f) { return f.file == name; });
    if (known) continue;
    FileFidelity f;
    f.file = name;
    f.note = "not predicted: the report has no predictor for this file";
    report.files.push_back(std::move(f));
  }
  std::string& md = report.markdown;
  md = "# Fidelity: predictions against published measurements\n\n"
       "Generated by `aoizora calibrate --report` (do not edit by hand): every file of the measurement folder "
       "predicted with the shipped defaults. Error = (predicted - published) / published.\n\n";
  md += "| file | what | rows | median abs. error | max abs. error | note |\n|---|---|---:|---:|---:|---|\n";
  for (const FileFidelity& f : report.files) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", f.file, f.what, f.rows,
                      f.rows ? fmt::format("{:.1f}%", 100 * f.median_abs_error) : "",
                      f.rows ? fmt::format("{:.1f}%", 100 * f.max_abs_error) : "", f.note);
  }
  // Besides the folder: the training steps frameworks publish (built in,
  // published_train.h), so that the training predictions' error is on this
  // page too.
  const std::vector<TrainStepCheck> train = CheckPublishedTrainSteps(2);
  std::vector<double> train_errors;
  for (const TrainStepCheck& c : train) {
    if (c.status.ok()) train_errors.push_back(std::fabs(c.error));
  }
  std::sort(train_errors.begin(), train_errors.end());
  if (!train_errors.empty()) {
    const double median = train_errors.size() % 2 ? train_errors[train_errors.size() / 2]
                                                  : (train_errors[train_errors.size() / 2 - 1] +
                                                     train_errors[train_errors.size() / 2]) / 2;
    md += fmt::format("| (built in) src/fidelity/published_train.h | training steps frameworks publish | {} | {:.1f}% | "
                      "{:.1f}% | validation only, below |\n",
                      train_errors.size(), 100 * median, 100 * train_errors.back());
  }
  md += body;
  md += "\n" + PublishedTrainMarkdown(train);
  return report;
}

}  // namespace az::fidelity
