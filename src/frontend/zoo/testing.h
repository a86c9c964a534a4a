// Helpers the zoo's per-family tests share: a resolved configuration, its
// forward graph or one of its stages (verified), parameter counts by name
// prefix, and the matmul + attention FLOPs the tests derive by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "frontend/zoo/stages.h"
#include "frontend/zoo/zoo.h"
#include "pir/rules/cost.h"
#include "pir/verify/verifier.h"

namespace az::zoo::zoo_test {

// The PIR names the zoo's tests use; the tests live in this namespace.
using pir::DType;
using pir::Graph;
using pir::ValueRole;

inline ModelConfig Resolve(const std::string& model, const ModelOptions& options = {}) {
  auto config = ResolveConfig(model, options);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return *config;
}

// Options that set any of a CFG mode, frames, width and height; unset: the
// model's defaults.
inline ModelOptions Options(std::optional<CfgMode> cfg, std::optional<int64_t> frames = std::nullopt,
                            std::optional<int64_t> width = std::nullopt, std::optional<int64_t> height = std::nullopt) {
  ModelOptions options;
  options.cfg = cfg;
  options.frames = frames;
  options.width = width;
  options.height = height;
  return options;
}

// ResolveConfig refuses the options as a user error whose message contains
// every one of `parts`.
inline void ExpectRejected(const std::string& model, const ModelOptions& options,
                           std::initializer_list<std::string> parts) {
  auto config = ResolveConfig(model, options);
  ASSERT_FALSE(config.ok()) << model;
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  for (const std::string& part : parts) {
    EXPECT_NE(config.status().message().find(part), std::string::npos) << config.status().message();
  }
}

// The graph's inputs by name.
inline std::map<std::string, pir::TensorType> Inputs(const pir::Graph& graph) {
  std::map<std::string, pir::TensorType> inputs;
  for (const pir::Value& v : graph.values()) {
    if (v.role == pir::ValueRole::kInput) inputs[v.name] = v.type;
  }
  return inputs;
}

// BuildStage, verified.
inline pir::Graph Stage(const ModelConfig& config, const std::string& stage) {
  auto graph = BuildStage(config, stage);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_TRUE(pir::VerifyGraph(*graph).ok()) << stage;
  return std::move(graph).value();
}

inline pir::Graph Forward(const ModelConfig& config) {
  auto graph = BuildForward(config);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return std::move(graph).value();
}

// Sum of NumElements over parameters whose name starts with `prefix`.
inline int64_t ParamCount(const pir::Graph& graph, const std::string& prefix = "") {
  int64_t total = 0;
  for (const pir::Value& v : graph.values()) {
    if (v.role == pir::ValueRole::kParameter && v.name.starts_with(prefix)) total += v.type.NumElements();
  }
  return total;
}

inline int64_t MatmulAndAttentionFlops(const pir::Graph& graph) {
  pir::OpCost cost = pir::ComputeGraphCost(graph);
  return cost.matmul.value() + cost.attention.value();
}

}  // namespace az::zoo::zoo_test
