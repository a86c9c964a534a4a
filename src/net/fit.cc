#include "net/fit.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "support/csv.h"

namespace az::net {

namespace {

std::vector<std::string> SplitCsv(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string_view cell = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t' || cell.back() == '\r')) cell.remove_suffix(1);
    out.emplace_back(cell);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

using support::ParseNumber;

StatusOr<CollectiveKind> KindFromNccl(const std::string& name) {
  std::string dashed = name;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  if (dashed == "alltoall") dashed = "all-to-all";
  return ParseCollectiveKind(dashed);
}

// nccl-tests busbw / algbw factor (doc/PERFORMANCE.md).
double BusFactor(CollectiveKind kind, int n) {
  double ranks = static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::kAllReduce: return 2 * (ranks - 1) / ranks;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return (ranks - 1) / ranks;
    default: return 1.0;
  }
}

std::string AlgorithmFromNccl(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "nvls") return "nvls";
  if (lower == "ring") return "ring-simple";
  return lower;
}

}  // namespace

StatusOr<std::vector<Measurement>> ReadMeasurements(std::string_view text, std::string_view file_name,
                                                    CollectiveKind default_kind, int ranks) {
  std::string file(file_name);
  std::vector<std::string> header;
  std::map<std::string, size_t> column;
  std::vector<Measurement> out;
  int line_number = 0;
  size_t pos = 0;
  constexpr size_t kMaxRows = 1'000'000;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() + 1 : end + 1;
    ++line_number;
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) trimmed.remove_prefix(1);
    if (trimmed.empty() || trimmed == "\r" || trimmed.front() == '#') continue;
    auto where = [&](const std::string& msg) {
      return InvalidArgument(file + ":" + std::to_string(line_number) + ": error: " + msg);
    };
    std::vector<std::string> cells = SplitCsv(trimmed);
    if (header.empty()) {
      header = cells;
      for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
      if (!column.count("bytes")) return where("the header has no 'bytes' column");
      if (!column.count("time_us") && !column.count("busbw_GBps") && !column.count("algbw_GBps")) {
        return where("the header needs time_us, algbw_GBps or busbw_GBps");
      }
      continue;
    }
    if (cells.size() != header.size()) {
      return where("expected " + std::to_string(header.size()) + " columns, found " + std::to_string(cells.size()));
    }
    if (out.size() >= kMaxRows) return where("more than a million rows");
    Measurement m;
    m.line = line_number;
    m.kind = default_kind;
    if (column.count("collective")) {
      auto kind = KindFromNccl(cells[column["collective"]]);
      if (!kind.ok()) return where(kind.status().message());
      m.kind = *kind;
    }
    if (column.count("algorithm")) m.algorithm = AlgorithmFromNccl(cells[column["algorithm"]]);
    auto bytes = ParseNumber(cells[column["bytes"]]);
    if (!bytes || *bytes <= 0 || *bytes > 1e15) return where("bytes '" + cells[column["bytes"]] + "' is not a positive size");
    m.bytes = Bytes(static_cast<int64_t>(*bytes));
    auto number = [&](const char* name) -> std::optional<double> {
      if (!column.count(name)) return std::nullopt;
      return ParseNumber(cells[column[name]]);
    };
    if (auto t = number("time_us"); t && *t > 0) {
      m.time = Seconds(*t * 1e-6);
    } else if (auto alg = number("algbw_GBps"); alg && *alg > 0) {
      m.time = Seconds(*bytes / (*alg * 1e9));
    } else if (auto bus = number("busbw_GBps"); bus && *bus > 0) {
      m.time = Seconds(*bytes / (*bus * 1e9 / BusFactor(m.kind, ranks)));
    } else {
      return where("no positive time_us, algbw_GBps or busbw_GBps");
    }
    out.push_back(m);
  }
  if (out.empty()) return InvalidArgument(file + ": no measurements");
  return out;
}

StatusOr<FitReport> FitCalibration(const hw::Topology& topology, const std::vector<Measurement>& measurements,
                                   const Calibration& start_in) {
  // The fit starts every algorithm it can fit from NCCL's constants, not from
  // the values `start` carries (a shipped or earlier fit): an algorithm left
  // without a range keeps NCCL's figures, so fitting a file twice gives the
  // same calibration. The rest of `start` (link efficiencies, other) stays.
  Calibration start = start_in;
  for (const std::string& name : GpuAlgorithmsBySize()) start.algorithms.erase(name);
  // Per point and algorithm: the latency L and the bandwidth term X at
  // efficiency 1 and no base latency.
  Calibration unit = start;
  unit.algorithms.clear();
  std::vector<std::string> names;
  struct Term {
    double latency = 0, bandwidth = 0;
  };
  std::vector<std::map<std::string, Term>> terms(measurements.size());
  {
    // Zero base, efficiency 1, the start's step latencies.
    for (const std::string& name : GpuAlgorithmsBySize()) {
      AlgorithmParams p = start.Algorithm(name);
      unit.algorithms[name] = {Seconds(0), p.step_latency, 1.0};
    }
    CollectiveModel model(topology, unit);
    Collective c;
    c.groups.groups.push_back({});
    for (int i = 0; i < topology.num_chips(); ++i) c.groups.groups[0].push_back(i);
    for (size_t i = 0; i < measurements.size(); ++i) {
      c.kind = measurements[i].kind;
      c.bytes = measurements[i].bytes;
      AZ_ASSIGN_OR_RETURN(auto candidates, model.PriceCandidates(c, IdentityPlacement(topology.num_chips())));
      for (const CollectiveResult& r : candidates) {
        terms[i][r.algorithm] = {r.latency_time.value(), r.bandwidth_time.value()};
        if (std::find(names.begin(), names.end(), r.algorithm) == names.end()) names.push_back(r.algorithm);
      }
    }
  }
  FitReport report;
  report.calibration = start;
  const size_t n = measurements.size();
  // Points in size order: NCCL switches algorithm at size thresholds, so each
  // algorithm owns a contiguous range of sizes.
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return measurements[a].bytes < measurements[b].bytes;
  });

  // Least squares of y = t - L on x = X with weights 1/t^2 (relative error):
  // y = a + b x; base latency = a, efficiency = 1/b. Returns false when the
  // points cannot determine a positive slope.
  auto fit_line = [&](const std::vector<size_t>& points, const std::string& alg, AlgorithmParams* p) {
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i : points) {
      double t = measurements[i].time.value();
      double w = 1.0 / (t * t);
      double x = terms[i].at(alg).bandwidth;
      double y = t - terms[i].at(alg).latency;
      sw += w;
      sx += w * x;
      sy += w * y;
      sxx += w * x * x;
      sxy += w * x * y;
    }
    double det = sw * sxx - sx * sx;
    if (points.size() < 2 || det <= 1e-300 * sw * sxx) return false;
    double b = (sw * sxy - sx * sy) / det;
    // An algorithm cannot beat its links: efficiency in (0, 1].
    if (b < 1.0 || b > 1e3) return false;
    double a = (sy - b * sx) / sw;
    p->efficiency = 1.0 / b;
    p->base_latency = Seconds(a);  // may be negative: the intercept is a + L
    return true;
  };
  // Error of a calibration with the model's own choice (the cheapest algorithm).
  auto total_error = [&](const Calibration& cal) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      double best = std::numeric_limits<double>::infinity();
      for (const auto& [alg, term] : terms[i]) {
        if (!measurements[i].algorithm.empty() && terms[i].count(measurements[i].algorithm) &&
            alg != measurements[i].algorithm) {
          continue;
        }
        AlgorithmParams p = cal.Algorithm(alg);
        best = std::min(best, std::max(0.0, p.base_latency.value() + term.latency) + term.bandwidth / p.efficiency);
      }
      double e = (best - measurements[i].time.value()) / measurements[i].time.value();
      sum += e * e;
    }
    return sum;
  };

  // Search: split the sorted points into up to three contiguous ranges, give
  // each range its own algorithm, fit each by least squares, keep the split
  // whose fitted model (picking the cheapest algorithm per point) errs least.
  // Pinned points only ever fit their pinned algorithm.
  std::vector<size_t> free_points, pinned_points;
  for (size_t i : order) (measurements[i].algorithm.empty() ? free_points : pinned_points).push_back(i);
  Calibration best = start;
  double best_error = std::numeric_limits<double>::infinity();
  int evaluated = 0;
  auto try_split = [&](const std::vector<std::pair<std::vector<size_t>, std::string>>& ranges) {
    Calibration cal = start;
    std::map<std::string, std::vector<size_t>> by_alg;
    for (const auto& [points, alg] : ranges) by_alg[alg].insert(by_alg[alg].end(), points.begin(), points.end());
    for (size_t i : pinned_points) by_alg[measurements[i].algorithm].push_back(i);
    for (const auto& [alg, points] : by_alg) {
      AlgorithmParams p = start.Algorithm(alg);
      bool ok = true;
      for (size_t i : points) ok = ok && terms[i].count(alg);
      if (!ok) return;
      if (points.size() == 1) {
        // One point: keep the base latency, put the line through it.
        size_t i = points[0];
        double y = measurements[i].time.value() - terms[i].at(alg).latency - p.base_latency.value();
        if (y <= 0) return;
        p.efficiency = std::min(1.0, terms[i].at(alg).bandwidth / y);
      } else if (!fit_line(points, alg, &p)) {
        return;
      }
      cal.algorithms[alg] = p;
    }
    ++evaluated;
    double error = total_error(cal);
    if (error < best_error) {
      best_error = error;
      best = cal;
    }
  };
  const size_t m = free_points.size();
  auto slice = [&](size_t from, size_t to) {
    return std::vector<size_t>(free_points.begin() + static_cast<long>(from), free_points.begin() + static_cast<long>(to));
  };
  // Ranges follow NCCL's progression as messages grow: low-latency protocols
  // first, then bandwidth-bound ones (LL < LL128 < Simple < NVLS).
  const std::vector<std::string>& kSizeOrder = GpuAlgorithmsBySize();
  auto rank = [&](const std::string& alg) {
    auto it = std::find(kSizeOrder.begin(), kSizeOrder.end(), alg);
    return it == kSizeOrder.end() ? static_cast<long>(kSizeOrder.size()) : it - kSizeOrder.begin();
  };
  try_split({});
  for (const std::string& a1 : names) {
    if (m > 0) try_split({{slice(0, m), a1}});
    for (const std::string& a2 : names) {
      if (rank(a2) <= rank(a1)) continue;
      for (size_t i = 2; i + 2 <= m; ++i) {
        try_split({{slice(0, i), a1}, {slice(i, m), a2}});
        for (const std::string& a3 : names) {
          if (rank(a3) <= rank(a2)) continue;
          for (size_t j = i + 2; j + 2 <= m; ++j) try_split({{slice(0, i), a1}, {slice(i, j), a2}, {slice(j, m), a3}});
        }
      }
    }
  }
  report.calibration = best;
  report.iterations = evaluated;
  auto predict = [&](size_t i, const std::string& alg) {
    auto it = terms[i].find(alg);
    if (it == terms[i].end()) return std::numeric_limits<double>::infinity();
    AlgorithmParams p = report.calibration.Algorithm(alg);
    return std::max(0.0, p.base_latency.value() + it->second.latency) + it->second.bandwidth / p.efficiency;
  };
  auto pick = [&](size_t i) {
    if (!measurements[i].algorithm.empty() && terms[i].count(measurements[i].algorithm)) {
      return measurements[i].algorithm;
    }
    std::string choice;
    double best_t = std::numeric_limits<double>::infinity();
    for (const auto& [alg, term] : terms[i]) {
      double t = predict(i, alg);
      if (t < best_t) {
        best_t = t;
        choice = alg;
      }
    }
    return choice;
  };
  std::vector<double> big_errors, all_errors;
  for (size_t i = 0; i < measurements.size(); ++i) {
    FitPoint fp;
    fp.measurement = measurements[i];
    fp.algorithm = pick(i);
    fp.predicted = Seconds(predict(i, fp.algorithm));
    fp.relative_error = (fp.predicted.value() - measurements[i].time.value()) / measurements[i].time.value();
    all_errors.push_back(std::fabs(fp.relative_error));
    if (measurements[i].bytes.value() >= (int64_t{1} << 20)) big_errors.push_back(std::fabs(fp.relative_error));
    report.points.push_back(fp);
  }
  std::vector<double>& errors = big_errors.empty() ? all_errors : big_errors;
  std::sort(errors.begin(), errors.end());
  size_t count = errors.size();
  report.median_abs_error_1mib =
      count % 2 ? errors[count / 2] : (errors[count / 2 - 1] + errors[count / 2]) / 2;
  report.calibration.source = "fitted to measurements";
  return report;
}

}  // namespace az::net
