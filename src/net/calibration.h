// The calibration parameters of the collective model, with documented defaults.
//
// Time of one algorithm instance (see model.h):
//   t = base_latency[alg] + steps * (step_latency[alg] + route latency of a step)
//       + max over channels (bytes on the channel / (link bandwidth * efficiency[link class]))
//         / efficiency[alg]
// where a step's route latency is the sum of the per-traversal latencies of the
// links on the longest route a step uses (the topology's link latencies).
//
// Defaults (docs/calibration.md gives the sources):
//   ICI      efficiency 1.0: the scaling book's per-link figures are already
//            effective rates; no per-collective overhead (SB).
//   NVLink   efficiency 0.82: NCCL reaches ~370 of 450 GB/s (nccl-tests #212);
//   PCIe     efficiency 0.75: NCCL models Gen4 x16 at 24 of 32 GB/s (topo.cc);
//   network  efficiency 0.95: 46-48 GB/s of 50 per NDR NIC (nccl-tests #290).
//   NCCL algorithms on GPU systems (tuning.cc, Hopper, 1 node):
//     ring-ll      base 6.6 us, 0.6 us per step, efficiency 0.5 (LL halves bandwidth)
//     ring-ll128   base 14 us, 1.9 us per step, efficiency 0.92
//     ring-simple  base 8.4 us, 3.4 us per step, efficiency 1.0
//     nvls         base 25 us, efficiency 0.85 (nvlsEfficiency)
//   `aoizora calibrate` fits base latency and efficiency per algorithm to
//   measurements and writes them as JSON.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "hw/topology.h"
#include "support/status.h"

namespace az::net {

struct AlgorithmParams {
  Seconds base_latency;
  Seconds step_latency;
  double efficiency = 1.0;
};

struct Calibration {
  std::string name = "default";
  std::string source = "documented defaults (docs/calibration.md)";
  // By hw::LinkClass: ici, nvlink, pcie, network, socket (NCCL's socket figures
  // are already effective rates: 1.0), dcn (a TPU host's NIC: no measured
  // efficiency is published, so its line rate, 1.0, until calibrated).
  std::array<double, 6> link_efficiency{1.0, 0.82, 0.75, 0.95, 1.0, 1.0};
  std::map<std::string, AlgorithmParams> algorithms;
  // Algorithms without an entry here or among the NCCL defaults (the TPU ICI
  // rings and lines, routed permutes and all-to-alls): on TPU slices the
  // per-collective fixed cost (DefaultCalibration), elsewhere nothing.
  AlgorithmParams other;

  double LinkEfficiency(hw::LinkClass c) const { return link_efficiency[static_cast<size_t>(c)]; }
  // The algorithm's parameters (its defaults when the calibration has none).
  AlgorithmParams Algorithm(const std::string& name) const;
};

// The GPU algorithms the model prices (model.h), in the order NCCL moves
// through them as messages grow (what the fit's size ranges follow).
const std::vector<std::string>& GpuAlgorithmsBySize();

// Defaults for a topology: NCCL's constants, the fitted GPU nodes and
// clusters, and on TPU tori (dims) the ICI figures derived from the scaling
// book's measured points (calibration.cc, docs/calibration.md).
Calibration DefaultCalibration(const hw::Topology& topology);

std::string CalibrationToJson(const Calibration& c);
StatusOr<Calibration> CalibrationFromJson(std::string_view text, std::string_view file_name);

}  // namespace az::net
