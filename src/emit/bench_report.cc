#include "emit/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "emit/plan_format.h"

namespace az::emit {

namespace {

std::string Fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, value);
  return buf;
}

double Ratio(double slower, double faster) { return faster > 0 ? slower / faster : 0; }

// The cells every table ends with: the expert, Alpa, the efficiency and the plan time.
std::string BaselineCells(const search::Plan& p) {
  std::string out;
  if (const search::Configuration* expert = p.Find("expert")) {
    out += expert->description + " | " + Fixed(expert->step_latency.value() * 1e3, 1) + " | " +
           Fixed(Ratio(expert->step_latency.value(), p.best.step_latency.value()), 3) + "x | ";
  } else {
    out += "none: " + p.NoteOf("expert") + " | | | ";
  }
  if (const search::Configuration* alpa = p.Find("alpa")) {
    out += Fixed(alpa->step_latency.value() * 1e3, 1) + " | " + Fixed(Ratio(alpa->step_latency.value(), p.best.step_latency.value()), 3) +
           "x | ";
  } else {
    out += "none | | ";
  }
  return out + Fixed(100 * p.efficiency, 1) + "% | " + Fixed(p.plan_time.value(), 2) + " s |\n";
}

}  // namespace

// Training rows: throughput, remat and memory beside the step, the
// MaxDiffusion expert under the default placement.
std::string BenchTrainMarkdown(const std::vector<BenchRow>& rows) {
  std::string out =
      "| model | clips | micro-batch | slice | AoiZora | remat | ms/step | samples/s | peak | expert (MaxDiffusion, "
      "default order) | ms/step | vs expert | Alpa ms/step | vs Alpa | efficiency | plan time |\n"
      "|---|---|---:|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n";
  for (const BenchRow& r : rows) {
    out += "| " + r.model + " | " + r.resolution + " | " + (r.planned ? std::to_string(r.plan.batch) : "") + " | " +
           r.topology + " | ";
    if (!r.planned) {
      out += r.error + " | | | | | | | | | | | |\n";
      continue;
    }
    const search::Plan& p = r.plan;
    out += p.best.description + " | " + p.best.remat + " | " + Fixed(p.best.step_latency.value() * 1e3, 1) + " | " +
           Fixed(p.samples_per_second, 2) + " | " + FormatBytes(p.best.peak_memory.value()) + " | ";
    out += BaselineCells(p);
  }
  return out;
}

std::string BenchMarkdown(const std::vector<BenchRow>& rows) {
  if (!rows.empty() && rows.front().train) return BenchTrainMarkdown(rows);
  std::string out =
      "| model | video | slice | AoiZora | ms/step | video s (end to end) | expert (xDiT order) | ms/step | vs expert | "
      "Alpa ms/step | vs Alpa | efficiency | plan time |\n"
      "|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n";
  for (const BenchRow& r : rows) {
    out += "| " + r.model + " | " + r.resolution + " | " + r.topology + " | ";
    if (!r.planned) {
      out += r.error + " | | | | | | | | | |\n";
      continue;
    }
    const search::Plan& p = r.plan;
    // The whole video: the encoders and the VAE (search/stages.h) around the steps.
    out += p.best.description + " | " + Fixed(p.best.step_latency.value() * 1e3, 1) + " | " + Fixed(p.video_latency.value(), 1) +
           " | ";
    out += BaselineCells(p);
  }
  return out;
}

std::string BenchSvg(const std::vector<BenchRow>& rows) {
  const double row_height = 30, label_width = 330, chart_width = 420, top = 50;
  double max_ratio = 1.0;
  for (const BenchRow& r : rows) {
    if (!r.planned) continue;
    if (const search::Configuration* expert = r.plan.Find("expert")) {
      max_ratio = std::max(max_ratio, Ratio(expert->step_latency.value(), r.plan.best.step_latency.value()));
    }
    if (const search::Configuration* alpa = r.plan.Find("alpa")) {
      max_ratio = std::max(max_ratio, Ratio(alpa->step_latency.value(), r.plan.best.step_latency.value()));
    }
  }
  max_ratio = std::ceil(max_ratio * 10) / 10;
  const double height = top + row_height * static_cast<double>(rows.size()) + 40;
  const double width = label_width + chart_width + 80;
  auto x_of = [&](double ratio) { return label_width + chart_width * ratio / max_ratio; };
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    Fixed(width, 0) + "\" height=\"" + Fixed(height, 0) + "\" viewBox=\"0 0 " + Fixed(width, 0) + " " +
                    Fixed(height, 0) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += "<text x=\"10\" y=\"20\" font-size=\"15\">AoiZora speedup over the expert (blue) and Alpa (orange), same "
         "pricing</text>\n";
  out += "<line x1=\"" + Fixed(x_of(1), 1) + "\" y1=\"" + Fixed(top - 10, 0) + "\" x2=\"" + Fixed(x_of(1), 1) +
         "\" y2=\"" + Fixed(height - 30, 0) + "\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n";
  out += "<text x=\"" + Fixed(x_of(1), 1) + "\" y=\"" + Fixed(height - 15, 0) + "\" text-anchor=\"middle\">1.0x</text>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    double y = top + row_height * static_cast<double>(i);
    out += "<text x=\"10\" y=\"" + Fixed(y + 16, 1) + "\">" +
           XmlText(r.model + " " + r.resolution + " on " + r.topology) + "</text>\n";
    if (!r.planned) {
      out += "<text x=\"" + Fixed(label_width, 0) + "\" y=\"" + Fixed(y + 16, 1) + "\" fill=\"#999\">" +
             XmlText("not planned: " + r.error.substr(0, 60)) + "</text>\n";
      continue;
    }
    auto bar = [&](double ratio, double dy, const char* color) {
      double x = x_of(std::min(ratio, max_ratio));
      out += "<rect x=\"" + Fixed(label_width, 1) + "\" y=\"" + Fixed(y + dy, 1) + "\" width=\"" +
             Fixed(std::max(0.0, x - label_width), 1) + "\" height=\"10\" fill=\"" + color + "\"/>\n";
      out += "<text x=\"" + Fixed(x + 4, 1) + "\" y=\"" + Fixed(y + dy + 9, 1) + "\" font-size=\"10\">" +
             Fixed(ratio, 2) + "x</text>\n";
    };
    if (const search::Configuration* c = r.plan.Find("expert")) bar(Ratio(c->step_latency.value(), r.plan.best.step_latency.value()), 4, "#4e79a7");
    if (const search::Configuration* c = r.plan.Find("alpa")) bar(Ratio(c->step_latency.value(), r.plan.best.step_latency.value()), 16, "#f28e2b");
  }
  out += "</svg>\n";
  return out;
}

}  // namespace az::emit
