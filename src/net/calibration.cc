#include "net/calibration.h"

#include <iterator>

#include <nlohmann/json.hpp>

namespace az::net {

namespace {

const std::map<std::string, AlgorithmParams>& DefaultAlgorithms() {
  // NCCL tuning.cc constants (reference/hardware.md §4.5): base latency per
  // algorithm/protocol and the NVLink hardware latency per step.
  static const std::map<std::string, AlgorithmParams> kDefaults = {
      {"ring-ll", {Seconds(6.6e-6), Seconds(0.6e-6), 0.5}},
      {"ring-ll128", {Seconds(14.0e-6), Seconds(1.9e-6), 0.92}},
      {"ring-simple", {Seconds(8.4e-6), Seconds(3.4e-6), 1.0}},
      {"nvls", {Seconds(25e-6), Seconds(0), 0.85}},
      // Multi-node (tuning.cc, Hopper): rings over the rails use the Ring
      // constants; Tree has its own (base 6.8 / 14 / 8.4 us, NVLink hw
      // latency 0.6 / 1.25 / 4.0 us; LL halves the bandwidth, LL128 keeps
      // 120/128 of it across nodes, Simple tree all-reduce is capped at 0.92);
      // NVLSTree: base 0, NVLink hw latency 25 us (counted once), nvlsEfficiency.
      {"rail-ring-ll", {Seconds(6.6e-6), Seconds(0.6e-6), 0.5}},
      {"rail-ring-ll128", {Seconds(14.0e-6), Seconds(1.9e-6), 0.92}},
      {"rail-ring-simple", {Seconds(8.4e-6), Seconds(3.4e-6), 1.0}},
      {"tree-ll", {Seconds(6.8e-6), Seconds(0.6e-6), 0.5}},
      {"tree-ll128", {Seconds(14.0e-6), Seconds(1.25e-6), 120.0 / 128.0}},
      {"tree-simple", {Seconds(8.4e-6), Seconds(4.0e-6), 0.92}},
      {"nvls-tree", {Seconds(25e-6), Seconds(0), 0.85}},
  };
  return kDefaults;
}

}  // namespace

const std::vector<std::string>& GpuAlgorithmsBySize() {
  // NCCL's progression as messages grow: low-latency protocols, then LL128,
  // then Simple and the NVLink SHARP forms.
  static const std::vector<std::string> kOrder = {
      "ring-ll",     "tree-ll",     "rail-ring-ll",     "ring-ll128", "tree-ll128", "rail-ring-ll128",
      "ring-simple", "tree-simple", "rail-ring-simple", "nvls",       "nvls-tree"};
  return kOrder;
}

AlgorithmParams Calibration::Algorithm(const std::string& name) const {
  auto it = algorithms.find(name);
  if (it != algorithms.end()) return it->second;
  auto d = DefaultAlgorithms().find(name);
  if (d != DefaultAlgorithms().end()) return d->second;
  return other;  // TPU ICI algorithms, routed permutes and all-to-alls
}

Calibration DefaultCalibration(const hw::Topology& topology) {
  Calibration c;
  c.name = "default:" + topology.name;
  if (!topology.dims.empty()) {
    // TPU ICI, derived from the four measured points of the scaling book
    // (data/measurements/tpu_ici_points.csv): a v5e all-gather on a 4-chip
    // line (34 MB: 680 us; 131 kB: 8 us), a v5e 16-ring all-gather reaching
    // 95% of link peak at 10 MB, a v5p all-reduce on a wrapped 4-ring at
    // 1.09e11 B/s. Two unknowns, the link efficiency e and a fixed cost a per
    // collective, enter every point as t = a + hops * 1 us + X / e (X the
    // bandwidth term at the book's link rates): least squares on the relative
    // error over all four rows gives a = 2.55 us, e = 0.905 (every point within
    // 8.3%; net/tpu_points_test.cc). The per-hop latency stays the book's 1 us.
    c.source = "ICI: the scaling book's link rates and 1 us per hop; efficiency and fixed cost from its measured points";
    c.link_efficiency[static_cast<size_t>(hw::LinkClass::kIci)] = 0.905;
    c.other = {Seconds(2.55e-6), Seconds(0), 1.0};
  }
  // NCCL all-reduce on the chip's 8-GPU NVSwitch nodes, fitted by `aoizora
  // calibrate -t <gpu>:8 -m <file>` to the public sweeps in data/measurements
  // (docs/calibration.md); the catalog holds the figures (hw/chip.cc:
  // FittedFabric), the multi-node forms joining on multi-node systems where
  // the chip has them.
  const hw::FittedFabric& fit = topology.chip.fitted_fabric;
  auto add = [&c](const std::vector<hw::FittedCollective>& fitted) {
    for (const hw::FittedCollective& a : fitted) {
      c.algorithms[a.algorithm] = {a.base_latency, a.step_latency, a.efficiency};
    }
  };
  if (topology.gpu_nodes > 0 && !fit.node.empty()) {
    c.source = fit.source;
    add(fit.node);
    if (topology.gpu_nodes > 1 && !fit.multi_node.empty()) {
      c.source = fit.multi_node_source;
      add(fit.multi_node);
    }
  }
  return c;
}

std::string CalibrationToJson(const Calibration& c) {
  nlohmann::ordered_json j;
  j["name"] = c.name;
  j["source"] = c.source;
  j["link_efficiency"] = {{"ici", c.link_efficiency[0]},
                          {"nvlink", c.link_efficiency[1]},
                          {"pcie", c.link_efficiency[2]},
                          {"network", c.link_efficiency[3]},
                          {"socket", c.link_efficiency[4]},
                          {"dcn", c.link_efficiency[5]}};
  nlohmann::ordered_json algs = nlohmann::ordered_json::object();
  for (const auto& [name, p] : c.algorithms) {
    algs[name] = {{"base_latency_us", p.base_latency.value() * 1e6},
                  {"step_latency_us", p.step_latency.value() * 1e6},
                  {"efficiency", p.efficiency}};
  }
  j["algorithms"] = algs;
  j["other_algorithms"] = {{"base_latency_us", c.other.base_latency.value() * 1e6},
                           {"step_latency_us", c.other.step_latency.value() * 1e6},
                           {"efficiency", c.other.efficiency}};
  return j.dump(2) + "\n";
}

StatusOr<Calibration> CalibrationFromJson(std::string_view text, std::string_view file_name) {
  std::string where(file_name);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return ParseError(where + ": not valid JSON");
  if (!j.is_object()) return ParseError(where + ": a calibration is a JSON object");
  Calibration c;
  auto number = [&](const nlohmann::json& v, const std::string& path, double lo, double hi) -> StatusOr<double> {
    if (!v.is_number()) return ParseError(where + ": " + path + " must be a number");
    double d = v.get<double>();
    if (!(d >= lo && d <= hi)) {
      return ParseError(where + ": " + path + " = " + std::to_string(d) + " is outside [" + std::to_string(lo) +
                        ", " + std::to_string(hi) + "]");
    }
    return d;
  };
  if (j.contains("name")) {
    if (!j["name"].is_string()) return ParseError(where + ": name must be a string");
    c.name = j["name"].get<std::string>();
  }
  if (j.contains("source") && j["source"].is_string()) c.source = j["source"].get<std::string>();
  if (j.contains("link_efficiency")) {
    const auto& le = j["link_efficiency"];
    if (!le.is_object()) return ParseError(where + ": link_efficiency must be an object");
    const char* names[] = {"ici", "nvlink", "pcie", "network", "socket", "dcn"};
    constexpr size_t kClasses = std::size(names);
    for (const auto& [key, value] : le.items()) {
      size_t index = kClasses;
      for (size_t i = 0; i < kClasses; ++i) {
        if (key == names[i]) index = i;
      }
      if (index == kClasses) return ParseError(where + ": link_efficiency." + key + " is not a link class");
      AZ_ASSIGN_OR_RETURN(c.link_efficiency[index], number(value, "link_efficiency." + key, 1e-3, 1.0));
    }
  }
  auto read_params = [&](const nlohmann::json& value, const std::string& path, AlgorithmParams& p) -> Status {
    if (!value.is_object()) return ParseError(where + ": " + path + " must be an object");
    for (const auto& [key, v] : value.items()) {
      if (key == "base_latency_us") {
        // Fitted bases may be negative (see DefaultCalibration).
        AZ_ASSIGN_OR_RETURN(double us, number(v, path + "." + key, -1e6, 1e6));
        p.base_latency = Seconds(us * 1e-6);
      } else if (key == "step_latency_us") {
        AZ_ASSIGN_OR_RETURN(double us, number(v, path + "." + key, 0, 1e6));
        p.step_latency = Seconds(us * 1e-6);
      } else if (key == "efficiency") {
        AZ_ASSIGN_OR_RETURN(p.efficiency, number(v, path + "." + key, 1e-3, 10.0));
      } else {
        return ParseError(where + ": " + path + "." + key + " is not a parameter");
      }
    }
    return Status::Ok();
  };
  if (j.contains("other_algorithms")) AZ_RETURN_IF_ERROR(read_params(j["other_algorithms"], "other_algorithms", c.other));
  if (j.contains("algorithms")) {
    const auto& algs = j["algorithms"];
    if (!algs.is_object()) return ParseError(where + ": algorithms must be an object");
    for (const auto& [name, value] : algs.items()) {
      std::string path = "algorithms." + name;
      AlgorithmParams p = c.Algorithm(name);
      AZ_RETURN_IF_ERROR(read_params(value, path, p));
      c.algorithms[name] = p;
    }
  }
  return c;
}

}  // namespace az::net
