// Helpers the planner and stage-planner tests share: a zoo model's workload at
// a size, a named topology, and planning and stage-planning options.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "frontend/models.h"
#include "hw/topology.h"
#include "price/calibration.h"
#include "search/planner.h"
#include "search/stages.h"

namespace az::search::search_test {

inline workload::Workload Config(const std::string& model, int64_t width, int64_t height, int64_t frames) {
  workload::ModelOptions options;
  options.width = width;
  options.height = height;
  options.frames = frames;
  auto config = frontend::ZooWorkload(model, options);
  EXPECT_TRUE(config.ok()) << config.status().message();
  return *config;
}

inline hw::Topology Topo(const std::string& spec) {
  auto t = hw::MakeTopology(spec);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return *t;
}

// The planner's options on `t` with the default calibration.
inline PlanOptions Options(const hw::Topology& t) {
  PlanOptions o;
  o.calibration = price::DefaultPriceCalibration(t);
  return o;
}

// Options for tests about the DiT's configurations: no encoders or VAE.
inline PlanOptions DitOptions(const hw::Topology& t) {
  PlanOptions o = Options(t);
  o.stages = false;
  return o;
}

// The stage planner's options on `t` with the default calibration.
inline StagePlanOptions StageOptions(const hw::Topology& t, int64_t resident = 0, int threads = 2) {
  StagePlanOptions o;
  o.calibration = price::DefaultPriceCalibration(t);
  o.resident_bytes_per_chip = resident;
  o.threads = threads;
  return o;
}

}  // namespace az::search::search_test
