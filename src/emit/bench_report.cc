#include "emit/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "emit/plan_format.h"

namespace az::emit {

namespace {

std::string Fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, value);
  return buf;
}

double Ratio(double slower, double faster) { return faster > 0 ? slower / faster : 0; }

// Seconds in the shortest form: "0.5", "20", "900".
std::string SecondsTick(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", seconds);
  return buf;
}

// The cells every table ends with: the expert, the repository's recipe
// (deployed), Alpa, the efficiency and the plan time.
std::string BaselineCells(const search::Plan& p) {
  std::string out;
  if (const search::Configuration* expert = p.Find("expert")) {
    out += expert->description + " | " + Fixed(expert->step_latency.value() * 1e3, 1) + " | " +
           Fixed(Ratio(expert->step_latency.value(), p.best.step_latency.value()), 3) + "x | ";
  } else {
    out += "none: " + p.NoteOf("expert") + " | | | ";
  }
  if (const search::Configuration* deployed = p.Find("deployed")) {
    out += Fixed(deployed->step_latency.value() * 1e3, 1) + " | " +
           Fixed(Ratio(deployed->step_latency.value(), p.best.step_latency.value()), 3) + "x | ";
  } else {
    out += "none | | ";
  }
  if (const search::Configuration* alpa = p.Find("alpa")) {
    out += Fixed(alpa->step_latency.value() * 1e3, 1) + " | " + Fixed(Ratio(alpa->step_latency.value(), p.best.step_latency.value()), 3) +
           "x | ";
  } else {
    out += "none | | ";
  }
  return out + Fixed(100 * p.efficiency, 1) + "% | " + Fixed(p.plan_time.value(), 2) + " s |\n";
}

// The baseline's step over the kernel time of AoiZora's pick (its step x the
// simulated compute share): what hiding every collective of the pick would
// give over the baseline. No configuration that runs the pick's kernels (the
// same FLOPs at the same efficiency: for a training step, the same remat)
// beats the baseline by more. 0 when the baseline or the breakdown is absent.
double CeilingOver(const search::Plan& p, const std::string& label) {
  const search::Configuration* baseline = p.Find(label);
  const price::SimResult& b = p.best.breakdown;
  if (!baseline || !(b.latency.value() > 0) || !(b.compute.value() > 0)) return 0;
  return baseline->step_latency.value() / (p.best.step_latency.value() * b.compute.value() / b.latency.value());
}

// The geometric mean of CeilingOver across `rows` that have one, "1.037x"; "none".
std::string GeomeanCeiling(const std::vector<const BenchRow*>& rows, const std::string& label) {
  double log_sum = 0;
  int count = 0;
  for (const BenchRow* r : rows) {
    const double c = CeilingOver(r->plan, label);
    if (c <= 0) continue;
    log_sum += std::log(c);
    ++count;
  }
  return count ? Fixed(std::exp(log_sum / count), 3) + "x" : "none";
}

// The geometric mean of AoiZora's speedup over `label` across `rows`, and
// how many rows had that baseline: "1.123x (6 of 6)", "none (0 of 6)".
std::string Geomean(const std::vector<const BenchRow*>& rows, const std::string& label) {
  double log_sum = 0;
  int count = 0;
  for (const BenchRow* r : rows) {
    const search::Configuration* c = r->plan.Find(label);
    if (!c) continue;
    const double ratio = Ratio(c->step_latency.value(), r->plan.best.step_latency.value());
    if (ratio <= 0) continue;
    log_sum += std::log(ratio);
    ++count;
  }
  const std::string of = " (" + std::to_string(count) + " of " + std::to_string(rows.size()) + ")";
  if (count == 0) return "none" + of;
  return Fixed(std::exp(log_sum / count), 3) + "x" + of;
}

}  // namespace

// Training rows: throughput, remat and memory beside the step, the
// MaxDiffusion expert under the default placement.
std::string BenchTrainTable(const std::vector<BenchRow>& rows) {
  std::string out =
      "| model | clips | micro-batch | slice | AoiZora | remat | ms/step | samples/s | peak | expert (MaxDiffusion, "
      "default order) | ms/step | vs expert | deployed ms/step | vs deployed | Alpa ms/step | vs Alpa | efficiency | "
      "plan time |\n"
      "|---|---|---:|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const BenchRow& r : rows) {
    out += "| " + r.model + " | " + r.resolution + " | " + (r.planned ? std::to_string(r.plan.batch) : "") + " | " +
           r.topology + " | ";
    if (!r.planned) {
      out += r.error + " | | | | | | | | | | | | | |\n";
      continue;
    }
    const search::Plan& p = r.plan;
    out += p.best.description + " | " + p.best.remat + " | " + Fixed(p.best.step_latency.value() * 1e3, 1) + " | " +
           Fixed(p.samples_per_second, 2) + " | " + FormatBytes(p.best.peak_memory.value()) + " | ";
    out += BaselineCells(p);
  }
  return out;
}

std::string BenchTrainMarkdown(const std::vector<BenchRow>& rows) {
  std::string out = BenchTrainTable(rows);
  // Per slice, the geometric means, beside the paper's figures over expert
  // training configurations (issue 26: 1.11x on 4 v5p chips, 1.21x on 8).
  std::vector<std::string> slices;
  for (const BenchRow& r : rows) {
    if (std::find(slices.begin(), slices.end(), r.topology) == slices.end()) slices.push_back(r.topology);
  }
  // The ceilings: CeilingOver, per row, geomean.
  out += "\n| slice | vs expert (geomean) | ceiling vs expert | paper, vs expert training configurations | vs "
         "deployed (geomean) | ceiling vs deployed | vs Alpa (geomean) |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const std::string& slice : slices) {
    std::vector<const BenchRow*> planned;
    for (const BenchRow& r : rows) {
      if (r.topology == slice && r.planned) planned.push_back(&r);
    }
    const std::string paper = slice == "v5p:2x2x1" ? "1.11x" : slice == "v5p:2x2x2" ? "1.21x" : "-";
    out += "| " + slice + " | " + Geomean(planned, "expert") + " | " + GeomeanCeiling(planned, "expert") + " | " +
           paper + " | " + Geomean(planned, "deployed") + " | " + GeomeanCeiling(planned, "deployed") + " | " +
           Geomean(planned, "alpa") + " |\n";
  }
  return out;
}

std::string BenchMarkdown(const std::vector<BenchRow>& rows) {
  if (!rows.empty() && rows.front().train) return BenchTrainMarkdown(rows);
  std::string out =
      "| model | video | slice | AoiZora | ms/step | video s (end to end) | expert (xDiT order) | ms/step | vs expert | "
      "deployed ms/step | vs deployed | Alpa ms/step | vs Alpa | efficiency | plan time |\n"
      "|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const BenchRow& r : rows) {
    out += "| " + r.model + " | " + r.resolution + " | " + r.topology + " | ";
    if (!r.planned) {
      out += r.error + " | | | | | | | | | | | |\n";
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

std::string BenchRowMarkdown(const BenchRow& row) {
  std::string table = row.train ? BenchTrainTable({row}) : BenchMarkdown({row});
  table.pop_back();
  return table.substr(table.rfind('\n') + 1);
}

std::string BenchSvg(const std::vector<BenchRow>& rows) {
  const double row_height = 42, label_width = 330, chart_width = 420, top = 50;
  double max_ratio = 1.0;
  for (const BenchRow& r : rows) {
    if (!r.planned) continue;
    if (const search::Configuration* expert = r.plan.Find("expert")) {
      max_ratio = std::max(max_ratio, Ratio(expert->step_latency.value(), r.plan.best.step_latency.value()));
    }
    if (const search::Configuration* alpa = r.plan.Find("alpa")) {
      max_ratio = std::max(max_ratio, Ratio(alpa->step_latency.value(), r.plan.best.step_latency.value()));
    }
    if (const search::Configuration* deployed = r.plan.Find("deployed")) {
      max_ratio = std::max(max_ratio, Ratio(deployed->step_latency.value(), r.plan.best.step_latency.value()));
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
  out += "<text x=\"10\" y=\"20\" font-size=\"15\">AoiZora speedup over the expert (blue), Alpa (orange) and the "
         "repository's recipe (green), same pricing</text>\n";
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
    if (const search::Configuration* c = r.plan.Find("deployed")) bar(Ratio(c->step_latency.value(), r.plan.best.step_latency.value()), 28, "#59a14f");
  }
  out += "</svg>\n";
  return out;
}

namespace {

// The paper's reported speedups per slice (issue 26): over existing
// deployments, and over its Alpa-style baseline.
struct PaperFigures {
  const char* slice;
  const char* over_deployments;
  const char* over_alpa;
};
constexpr PaperFigures kPaper[] = {
    {"v5e:2x2", "1.09x", "1.00-1.07x"},
    {"v5e:2x4", "1.12x", "1.06-1.18x"},
    {"v5e:4x4", "1.42x", "1.37x"},
};

// The speedup over the expert that AoiZora's pick would reach if its
// schedule hid every collective: the expert's step over the pick's kernel
// time (the step x the compute share of its simulated forward); 0 without an
// expert. A plan with the same kernels cannot beat it.

// Three cells: the description, ms/step and the speedup; or "none: why" and two empty ones.
std::string BaselineCell(const search::Plan& p, const std::string& label) {
  const search::Configuration* c = p.Find(label);
  if (!c) return "none: " + MarkdownCell(p.NoteOf(label)) + " | |";
  return MarkdownCell(c->description) + " | " + Fixed(c->step_latency.value() * 1e3, 1) + " | " +
         Fixed(Ratio(c->step_latency.value(), p.best.step_latency.value()), 3) + "x";
}

}  // namespace

std::string PaperMarkdown(const std::vector<BenchRow>& rows, const std::string& command) {
  std::string out = "# AoiZora on the paper's grid\n\n";
  out += "This page is written by `" + command +
         "`; regenerate it with that command rather than editing it.\n\n"
         "The grid: Wan 2.1 T2V-14B, one denoising step, 480p (832x480) and 720p (1280x720) at 21, 41 and 81 "
         "frames, on v5e:2x2, v5e:2x4 and v5e:4x4. Every number is a prediction of the same pricing (no run on "
         "a TPU): AoiZora's plan against three baselines, each under the default device order: *deployed*, the "
         "configuration the model's repository deploys (on TPUs MaxDiffusion's default: the sequence and the "
         "weights over every chip with flash attention, `context=N,fsdp=N`; `src/frontend/zoo/recipes.cc` cites "
         "it); *expert*, the fastest configuration of xDiT's Ulysses x Ring x CFG grid; *Alpa*, the ILP of "
         "`src/search/alpa.h`. Speedup = the baseline's step latency / AoiZora's; per slice, the geometric mean "
         "over the rows that have the baseline. The paper's figures are those issue 26 quotes: over existing "
         "deployments 1.09x / 1.12x / 1.42x, over its Alpa-style baseline 1.00-1.07x / 1.06-1.18x / 1.37x.\n\n";
  out += "*Ceiling* is the speedup over the expert grid AoiZora's pick would reach if its schedule hid every "
         "collective: the expert's step over the pick's kernel time. Where the pick is compute-bound it is close "
         "to 1, and no configuration with the same kernels (the same FLOPs at the same efficiency) does "
         "better.\n\n";
  out += "| slice | vs deployed | paper, vs existing deployments | vs expert grid | ceiling vs expert grid | vs Alpa | "
         "paper, vs Alpa-style |\n"
         "|---|---:|---:|---:|---:|---:|---:|\n";
  std::vector<std::string> slices;
  for (const BenchRow& r : rows) {
    if (std::find(slices.begin(), slices.end(), r.topology) == slices.end()) slices.push_back(r.topology);
  }
  for (const std::string& slice : slices) {
    std::vector<const BenchRow*> planned;
    for (const BenchRow& r : rows) {
      if (r.topology == slice && r.planned) planned.push_back(&r);
    }
    std::string paper_deployed = "-", paper_alpa = "-";
    for (const PaperFigures& f : kPaper) {
      if (slice == f.slice) {
        paper_deployed = f.over_deployments;
        paper_alpa = f.over_alpa;
      }
    }
    out += "| " + slice + " | " + Geomean(planned, "deployed") + " | " + paper_deployed + " | " +
           Geomean(planned, "expert") + " | " + GeomeanCeiling(planned, "expert") + " | " + Geomean(planned, "alpa") + " | " + paper_alpa +
           " |\n";
  }
  out += "\n## Every row\n\n";
  out += "| video | slice | AoiZora | ms/step | kernels | deployed | ms/step | vs deployed | expert | ms/step | vs "
         "expert | ceiling | Alpa | ms/step | vs Alpa |\n"
         "|---|---|---|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|\n";
  for (const BenchRow& r : rows) {
    out += "| " + r.resolution + " | " + r.topology + " | ";
    if (!r.planned) {
      out += "not planned: " + MarkdownCell(r.error) + " | | | | | | | | | | | | |\n";
      continue;
    }
    const search::Plan& p = r.plan;
    const price::SimResult& b = p.best.breakdown;
    const double kernels_ms =
        b.latency.value() > 0 ? p.best.step_latency.value() * b.compute.value() / b.latency.value() * 1e3 : 0;
    const double ceiling = CeilingOver(p, "expert");
    out += MarkdownCell(p.best.description) + " | " + Fixed(p.best.step_latency.value() * 1e3, 1) + " | " +
           Fixed(kernels_ms, 1) + " | " + BaselineCell(p, "deployed") + " | " + BaselineCell(p, "expert") + " | " +
           (ceiling > 0 ? Fixed(ceiling, 3) + "x" : std::string("-")) + " | " + BaselineCell(p, "alpa") + " |\n";
  }
  return out;
}

std::string ScaleFamily(const std::string& topology) {
  if (topology.find('*') != std::string::npos) return "multi-slice";
  return topology.substr(0, topology.find(':'));
}

std::string ScaleMarkdown(const std::vector<ScaleRow>& rows, const ScaleContext& context) {
  std::string out = "# Plan time and memory as the slice grows\n\n";
  out += "This page and `scale.svg` are written by `./build/aoizora bench --scale -o docs`; regenerate them "
         "with that command rather than editing them.\n\n";
  out += "Produced by `" + context.command + "`. Each row is one `aoizora plan --json -q --threads " +
         std::to_string(context.threads) +
         "` process with the default options otherwise (Alpa and the stages on), so its memory is its own. "
         "*Plan time* is that process's wall-clock time from start to exit, on the machine that ran it: " +
         std::to_string(context.nproc) + " CPUs (nproc), " +
         (context.cpu_model.empty() ? std::string("CPU model unknown") : context.cpu_model) +
         "; other work on the machine inflates it. *In planner* is the plan's own `plan_time_s` (the search "
         "alone, without building the model or writing the JSON). *Peak RSS* is the process's largest resident "
         "set (getrusage's ru_maxrss). A plan running longer than " +
         SecondsTick(context.timeout_s) + " s is killed and its row says so.\n\n";
  out += "![plan time against chips, log-log](scale.svg)\n\n";
  out += "| model | video | slice | chips | plan time | in planner | peak RSS | AoiZora | ms/step | vs expert |\n"
         "|---|---|---|---:|---:|---:|---:|---|---:|---:|\n";
  for (const ScaleRow& r : rows) {
    out += "| " + MarkdownCell(r.model) + " | " + MarkdownCell(r.resolution) + " | " + MarkdownCell(r.topology) + " | " +
           (r.chips > 0 ? std::to_string(r.chips) : std::string()) + " | ";
    // A failed plan still ran: its time and memory are measured too.
    out += (r.wall_s > 0 ? Fixed(r.wall_s, 2) + " s" : std::string()) + " | " +
           (r.plan_time_s > 0 ? Fixed(r.plan_time_s, 2) + " s" : std::string()) + " | " +
           (r.peak_rss_kib > 0 ? FormatBytes(r.peak_rss_kib * 1024) : std::string()) + " | ";
    if (!r.planned) {
      out += "not planned: " + MarkdownCell(r.error) + " | | |\n";
      continue;
    }
    out += MarkdownCell(r.pick) + " | " + Fixed(r.step_latency_s * 1e3, 1) + " | " +
           (r.speedup_over_expert > 0 ? Fixed(r.speedup_over_expert, 3) + "x" : std::string("none")) + " |\n";
  }
  return out;
}

namespace {

// The powers of `base` around [lo, hi]: base^floor(log lo) and base^ceil(log
// hi), one step apart at least. The small tolerance keeps an exact power (8,
// 0.1) its own bound despite rounding in log.
std::pair<double, double> PowerBounds(double lo, double hi, double base) {
  auto log_base = [base](double v) { return std::log(v) / std::log(base); };
  double lo_exp = std::floor(log_base(lo) + 1e-9), hi_exp = std::ceil(log_base(hi) - 1e-9);
  if (hi_exp <= lo_exp) hi_exp = lo_exp + 1;
  return {std::pow(base, lo_exp), std::pow(base, hi_exp)};
}

}  // namespace

std::string ScaleSvg(const std::vector<ScaleRow>& rows) {
  // Series in order of first appearance; each keeps its rows' (chips, seconds).
  struct Series {
    std::string model, family;
    std::vector<std::pair<int64_t, double>> points;
  };
  std::vector<Series> series;
  std::vector<std::string> models, families;
  int not_planned = 0;
  double chips_lo = 0, chips_hi = 0, time_lo = 0, time_hi = 0;
  for (const ScaleRow& r : rows) {
    if (!r.planned || r.chips <= 0 || r.wall_s <= 0) {
      ++not_planned;
      continue;
    }
    std::string model = r.model + " " + r.resolution, family = ScaleFamily(r.topology);
    auto it = std::find_if(series.begin(), series.end(),
                           [&](const Series& s) { return s.model == model && s.family == family; });
    if (it == series.end()) it = series.insert(series.end(), Series{model, family, {}});
    it->points.emplace_back(r.chips, r.wall_s);
    if (std::find(models.begin(), models.end(), model) == models.end()) models.push_back(model);
    if (std::find(families.begin(), families.end(), family) == families.end()) families.push_back(family);
    double chips = static_cast<double>(r.chips);
    chips_lo = chips_lo == 0 ? chips : std::min(chips_lo, chips);
    chips_hi = std::max(chips_hi, chips);
    time_lo = time_lo == 0 ? r.wall_s : std::min(time_lo, r.wall_s);
    time_hi = std::max(time_hi, r.wall_s);
  }
  const double left = kScalePlotLeft, top = kScalePlotTop, plot_w = kScalePlotWidth, plot_h = kScalePlotHeight;
  const double legend_line = 18;
  const double legend_top = top + plot_h + 55;
  const double height = legend_top + legend_line * static_cast<double>(series.size() + (not_planned > 0 ? 1 : 0)) + 20;
  const double width = left + plot_w + 40;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    Fixed(width, 0) + "\" height=\"" + Fixed(height, 0) + "\" viewBox=\"0 0 " + Fixed(width, 0) + " " +
                    Fixed(height, 0) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += "<text x=\"10\" y=\"20\" font-size=\"15\">AoiZora plan time (wall clock) against chips, log-log</text>\n";
  out += "<rect x=\"" + Fixed(left, 1) + "\" y=\"" + Fixed(top, 1) + "\" width=\"" + Fixed(plot_w, 1) + "\" height=\"" +
         Fixed(plot_h, 1) + "\" fill=\"none\" stroke=\"#333\"/>\n";
  if (series.empty()) {
    out += "<text x=\"" + Fixed(left + plot_w / 2, 1) + "\" y=\"" + Fixed(top + plot_h / 2, 1) +
           "\" text-anchor=\"middle\" fill=\"#999\">no row planned</text>\n";
  } else {
    // Plain variables, not structured bindings: clang before 16 cannot
    // capture a binding in a lambda.
    const std::pair<double, double> x_bounds = PowerBounds(chips_lo, chips_hi, 2);
    const std::pair<double, double> y_bounds = PowerBounds(time_lo, time_hi, 10);
    const double x_lo = x_bounds.first, x_hi = x_bounds.second;
    const double y_lo = y_bounds.first, y_hi = y_bounds.second;
    auto x_of = [&](double chips) { return left + plot_w * std::log2(chips / x_lo) / std::log2(x_hi / x_lo); };
    auto y_of = [&](double s) { return top + plot_h * (1 - std::log10(s / y_lo) / std::log10(y_hi / y_lo)); };
    const double bottom = top + plot_h;
    // Ticks and grid: every power of 2 chips; 1, 2, 5 per decade of seconds.
    for (double chips = x_lo; chips <= x_hi * (1 + 1e-9); chips *= 2) {
      double x = x_of(chips);
      out += "<line x1=\"" + Fixed(x, 1) + "\" y1=\"" + Fixed(top, 1) + "\" x2=\"" + Fixed(x, 1) + "\" y2=\"" +
             Fixed(bottom + 5, 1) + "\" stroke=\"#ddd\"/>\n";
      out += "<text x=\"" + Fixed(x, 1) + "\" y=\"" + Fixed(bottom + 18, 1) + "\" text-anchor=\"middle\">" +
             Fixed(chips, 0) + "</text>\n";
    }
    for (double decade = y_lo; decade < y_hi * (1 - 1e-9); decade *= 10) {
      for (double step : {1.0, 2.0, 5.0, 10.0}) {
        double s = decade * step;
        // 10 x this decade is the next decade's 1: drawn once, as the top's.
        if (step == 10.0 && decade * 10 < y_hi * (1 - 1e-9)) continue;
        double y = y_of(s);
        out += "<line x1=\"" + Fixed(left - 5, 1) + "\" y1=\"" + Fixed(y, 1) + "\" x2=\"" + Fixed(left + plot_w, 1) +
               "\" y2=\"" + Fixed(y, 1) + "\" stroke=\"#ddd\"/>\n";
        out += "<text x=\"" + Fixed(left - 8, 1) + "\" y=\"" + Fixed(y + 4, 1) + "\" text-anchor=\"end\">" +
               SecondsTick(s) + "</text>\n";
      }
    }
    out += "<text x=\"" + Fixed(left + plot_w / 2, 1) + "\" y=\"" + Fixed(bottom + 38, 1) +
           "\" text-anchor=\"middle\">chips</text>\n";
    out += "<text x=\"20\" y=\"" + Fixed(top + plot_h / 2, 1) + "\" text-anchor=\"middle\" transform=\"rotate(-90 20 " +
           Fixed(top + plot_h / 2, 1) + ")\">plan time (s)</text>\n";
    // Colour by family, marker and dash by model.
    static const char* const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2"};
    static const char* const kDashes[] = {"", "6 3", "2 3", "8 3 2 3"};
    auto color_of = [&](const std::string& family) {
      size_t i = std::find(families.begin(), families.end(), family) - families.begin();
      return kColors[i % std::size(kColors)];
    };
    auto model_index = [&](const std::string& model) {
      return static_cast<size_t>(std::find(models.begin(), models.end(), model) - models.begin());
    };
    auto marker = [&](double x, double y, size_t shape, const char* color) {
      switch (shape % 3) {
        case 0:
          return "<circle cx=\"" + Fixed(x, 1) + "\" cy=\"" + Fixed(y, 1) + "\" r=\"4\" fill=\"" + color + "\"/>\n";
        case 1:
          return "<rect x=\"" + Fixed(x - 4, 1) + "\" y=\"" + Fixed(y - 4, 1) + "\" width=\"8\" height=\"8\" fill=\"" +
                 color + "\"/>\n";
        default:
          return "<polygon points=\"" + Fixed(x, 1) + "," + Fixed(y - 5, 1) + " " + Fixed(x + 5, 1) + "," +
                 Fixed(y + 4, 1) + " " + Fixed(x - 5, 1) + "," + Fixed(y + 4, 1) + "\" fill=\"" + color + "\"/>\n";
      }
    };
    for (Series& s : series) {
      std::stable_sort(s.points.begin(), s.points.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      const char* color = color_of(s.family);
      size_t model = model_index(s.model);
      std::string dash = kDashes[model % std::size(kDashes)];
      out += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\"" +
             (dash.empty() ? std::string() : " stroke-dasharray=\"" + dash + "\"") + " points=\"";
      for (size_t i = 0; i < s.points.size(); ++i) {
        out += (i ? " " : "") + Fixed(x_of(static_cast<double>(s.points[i].first)), 1) + "," +
               Fixed(y_of(s.points[i].second), 1);
      }
      out += "\"/>\n";
      for (const auto& [chips, seconds] : s.points) out += marker(x_of(static_cast<double>(chips)), y_of(seconds), model, color);
    }
    for (size_t i = 0; i < series.size(); ++i) {
      const Series& s = series[i];
      double y = legend_top + legend_line * static_cast<double>(i);
      const char* color = color_of(s.family);
      size_t model = model_index(s.model);
      std::string dash = kDashes[model % std::size(kDashes)];
      out += "<line x1=\"" + Fixed(left, 1) + "\" y1=\"" + Fixed(y, 1) + "\" x2=\"" + Fixed(left + 30, 1) + "\" y2=\"" +
             Fixed(y, 1) + "\" stroke=\"" + color + "\" stroke-width=\"2\"" +
             (dash.empty() ? std::string() : " stroke-dasharray=\"" + dash + "\"") + "/>\n";
      out += marker(left + 15, y, model, color);
      out += "<text x=\"" + Fixed(left + 40, 1) + "\" y=\"" + Fixed(y + 4, 1) + "\">" + XmlText(s.model + " on " + s.family) +
             "</text>\n";
    }
  }
  if (not_planned > 0) {
    double y = legend_top + legend_line * static_cast<double>(series.size());
    out += "<text x=\"" + Fixed(left, 1) + "\" y=\"" + Fixed(y + 4, 1) + "\" fill=\"#999\">" +
           std::to_string(not_planned) + (not_planned == 1 ? " row" : " rows") +
           " not planned (scale.md says why)</text>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace az::emit
