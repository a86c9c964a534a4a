// compare.svg (compare_svg.h describes the picture).
#include "emit/compare_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "emit/plan_format.h"

namespace az::emit {
namespace {

using search::Configuration;
using search::Plan;

constexpr double kWidth = 760;
constexpr double kLabelWidth = 110;  // configuration names, left of the bars
constexpr double kChartX = 120;
constexpr double kChartWidth = 440;  // the rest holds the value labels
constexpr double kTop = 86;          // below title, subtitle, the stages line and the roofline label
constexpr double kRowHeight = 40;
constexpr double kBarHeight = 24;
constexpr const char* kComputeColor = "#4e79a7";
constexpr const char* kExposedColor = "#e15759";
constexpr const char* kUnsplitColor = "#9d9d9d";
constexpr const char* kFont = "font-family=\"sans-serif\"";

std::string Num(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", value);
  return buf;
}

double Finite(double value) { return std::isfinite(value) && value > 0 ? value : 0; }

// The smallest 1/2/5 x 10^k step that covers `max` in at most five ticks.
double TickStep(double max) {
  double magnitude = std::pow(10.0, std::floor(std::log10(max)));
  for (double factor : {0.2, 0.5, 1.0, 2.0, 5.0, 10.0}) {
    double step = factor * magnitude;
    if (max / step <= 5) return step;
  }
  return 10 * magnitude;
}

std::string TickLabel(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g ms", seconds * 1e3);
  return buf;
}

struct Bar {
  std::string name;
  const Configuration* config = nullptr;  // nullptr: no plan
  std::string note;
};

}  // namespace

std::string CompareSvg(const Plan& plan) {
  std::vector<Bar> bars = {{"aoizora", &plan.best, ""}};
  for (const search::Baseline& b : plan.baselines) {
    if (b.configuration || !b.note.empty()) {
      bars.push_back({b.label, b.configuration ? &*b.configuration : nullptr, b.configuration ? "" : b.note});
    }
  }

  double longest = Finite(plan.roofline_bound.value());
  for (const Bar& bar : bars) {
    if (bar.config != nullptr) longest = std::max(longest, Finite(bar.config->step_latency.value()));
  }
  double step = longest > 0 ? TickStep(longest) : 1e-3;
  double axis_max = longest > 0 ? std::ceil(longest / step - 1e-9) * step : 5 * step;
  double scale = kChartWidth / axis_max;  // px per second

  double chart_bottom = kTop + kRowHeight * static_cast<double>(bars.size());
  double height = chart_bottom + 70;
  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + Num(kWidth) + "\" height=\"" +
         Num(height) + "\" viewBox=\"0 0 " + Num(kWidth) + " " + Num(height) + "\">\n";
  std::string title = "Step latency: " + plan.model + " on " + plan.topology;
  out += "<title>" + XmlText(title) + "</title>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"" + Num(kWidth) + "\" height=\"" + Num(height) + "\" fill=\"#ffffff\"/>\n";
  out += "<text x=\"10\" y=\"22\" " + std::string(kFont) + " font-size=\"15\" font-weight=\"bold\">" + XmlText(title) +
         "</text>\n";
  out += "<text x=\"10\" y=\"40\" " + std::string(kFont) + " font-size=\"11\" fill=\"#555555\">" +
         XmlText(WorkloadText(plan) + ", " + StepsText(plan, plan.best) + "; bars: compute + exposed communication") +
         "</text>\n";
  if (!plan.stages.empty()) {
    // The whole video of the best configuration, stage by stage (search/stages.h).
    out += "<text x=\"10\" y=\"56\" " + std::string(kFont) + " font-size=\"11\" fill=\"#555555\">" +
           XmlText("video " + FormatDuration(plan.video_latency) + " = " + StagesText(plan, plan.best)) + "</text>\n";
  }

  // Grid and ticks.
  int ticks = static_cast<int>(std::lround(axis_max / step));
  for (int k = 0; k <= ticks; ++k) {
    double tick = k * step;
    std::string x = Num(kChartX + tick * scale);
    out += "<line x1=\"" + x + "\" y1=\"" + Num(kTop - 6) + "\" x2=\"" + x + "\" y2=\"" + Num(chart_bottom) +
           "\" stroke=\"#e0e0e0\" stroke-width=\"1\"/>\n";
    out += "<text x=\"" + x + "\" y=\"" + Num(chart_bottom + 14) + "\" " + kFont +
           " font-size=\"10\" text-anchor=\"middle\" fill=\"#555555\">" + XmlText(TickLabel(tick)) + "</text>\n";
  }
  out += "<line x1=\"" + Num(kChartX) + "\" y1=\"" + Num(chart_bottom) + "\" x2=\"" + Num(kChartX + kChartWidth) +
         "\" y2=\"" + Num(chart_bottom) + "\" stroke=\"#333333\" stroke-width=\"1\"/>\n";

  for (size_t row = 0; row < bars.size(); ++row) {
    const Bar& bar = bars[row];
    double y = kTop + kRowHeight * static_cast<double>(row);
    double text_y = y + kBarHeight / 2 + 4;
    out += "<text x=\"" + Num(kLabelWidth) + "\" y=\"" + Num(text_y) + "\" " + kFont +
           " font-size=\"12\" text-anchor=\"end\"" + (row == 0 ? " font-weight=\"bold\"" : "") + ">" +
           XmlText(bar.name) + "</text>\n";
    if (bar.config == nullptr) {
      out += "<text x=\"" + Num(kChartX + 4) + "\" y=\"" + Num(text_y) + "\" " + kFont +
             " font-size=\"11\" font-style=\"italic\" fill=\"#777777\">" + XmlText("no plan: " + bar.note) +
             "</text>\n";
      continue;
    }
    const Configuration& config = *bar.config;
    double latency = Finite(config.step_latency.value());
    double width = latency * scale;
    const price::SimResult& breakdown = config.breakdown;
    auto rect = [&](double x, double w, const char* color, const std::string& tip) {
      out += "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(w) + "\" height=\"" + Num(kBarHeight) +
             "\" fill=\"" + color + "\"><title>" + XmlText(tip) + "</title></rect>\n";
    };
    if (breakdown.latency.value() > 0) {
      double compute_share = std::clamp(breakdown.compute / breakdown.latency, 0.0, 1.0);
      double compute_width = width * compute_share;
      rect(kChartX, compute_width, kComputeColor, "compute " + FormatDuration(latency * compute_share));
      rect(kChartX + compute_width, width - compute_width, kExposedColor,
           "exposed communication " + FormatDuration(latency * (1 - compute_share)));
    } else {
      rect(kChartX, width, kUnsplitColor, "step " + FormatDuration(latency));
    }
    std::string label = FormatMs(config.step_latency.value());
    if (row > 0) label += "  (aoizora " + FormatRatio(Speedup(config.step_latency.value(), plan.best.step_latency.value())) + ")";
    out += "<text x=\"" + Num(kChartX + width + 6) + "\" y=\"" + Num(text_y) + "\" " + kFont + " font-size=\"11\">" +
           XmlText(label) + "</text>\n";
  }

  if (Finite(plan.roofline_bound.value()) > 0) {
    std::string x = Num(kChartX + plan.roofline_bound.value() * scale);
    out += "<line x1=\"" + x + "\" y1=\"" + Num(kTop - 8) + "\" x2=\"" + x + "\" y2=\"" + Num(chart_bottom) +
           "\" stroke=\"#333333\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n";
    out += "<text x=\"" + x + "\" y=\"" + Num(kTop - 11) + "\" " + kFont + " font-size=\"10\" text-anchor=\"middle\">" +
           XmlText("roofline " + FormatMs(plan.roofline_bound.value())) + "</text>\n";
  }

  // Legend.
  double legend_y = chart_bottom + 32;
  auto swatch = [&](double x, const char* color, const std::string& text) {
    out +=
        "<rect x=\"" + Num(x) + "\" y=\"" + Num(legend_y) + "\" width=\"12\" height=\"12\" fill=\"" + color + "\"/>\n";
    out += "<text x=\"" + Num(x + 16) + "\" y=\"" + Num(legend_y + 10) + "\" " + kFont + " font-size=\"11\">" +
           XmlText(text) + "</text>\n";
  };
  swatch(kChartX, kComputeColor, "compute");
  swatch(kChartX + 90, kExposedColor, "exposed communication");
  out += "<line x1=\"" + Num(kChartX + 260) + "\" y1=\"" + Num(legend_y + 6) + "\" x2=\"" + Num(kChartX + 284) +
         "\" y2=\"" + Num(legend_y + 6) + "\" stroke=\"#333333\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n";
  out += "<text x=\"" + Num(kChartX + 290) + "\" y=\"" + Num(legend_y + 10) + "\" " + kFont +
         " font-size=\"11\">roofline bound</text>\n";
  out += "</svg>\n";
  return out;
}

}  // namespace az::emit
