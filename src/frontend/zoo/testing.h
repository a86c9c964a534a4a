// Helpers the zoo's per-family tests share: a resolved configuration and the
// checks every family makes of it (defaults, deployed sequence splits), its
// forward graph or one of its stages (verified) and the checks of a forward
// (interface, constants, attentions), parameter counts by name prefix, and the
// matmul + attention FLOPs the tests derive by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// The resolved defaults a family's test checks first.
struct Defaults {
  int64_t width = 0, height = 0, frames = 0, steps = 0;
  CfgMode cfg = CfgMode::kNone;
};

inline void ExpectDefaults(const ModelConfig& config, const Defaults& want) {
  EXPECT_EQ(config.width, want.width) << config.model;
  EXPECT_EQ(config.height, want.height) << config.model;
  EXPECT_EQ(config.frames, want.frames) << config.model;
  EXPECT_EQ(config.steps, want.steps) << config.model;
  EXPECT_EQ(config.cfg, want.cfg) << config.model;
}

// DeployedSequenceSplit accepts every degree of `accepted` and refuses every
// one of `refused` with a message that contains `reason`.
inline void ExpectSequenceSplits(const ModelConfig& config, std::initializer_list<int64_t> accepted,
                                 std::initializer_list<int64_t> refused, const std::string& reason) {
  for (int64_t sp : accepted) EXPECT_TRUE(DeployedSequenceSplit(config, sp).ok()) << sp;
  for (int64_t sp : refused) {
    Status status = DeployedSequenceSplit(config, sp);
    ASSERT_FALSE(status.ok()) << sp;
    EXPECT_NE(status.message().find(reason), std::string::npos) << status.message();
  }
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

// A forward's interface: one output of type `output`, and these inputs by name.
inline void ExpectInterface(const pir::Graph& graph, const pir::TensorType& output,
                            const std::map<std::string, pir::TensorType>& inputs) {
  ASSERT_EQ(graph.outputs().size(), 1u);
  EXPECT_EQ(graph.type(graph.outputs()[0]), output);
  EXPECT_EQ(Inputs(graph), inputs);
}

// The token counts a forward records for the templates.
inline void ExpectTokens(const pir::Graph& graph, int64_t video, int64_t text) {
  EXPECT_EQ(graph.attrs().GetInt("video_tokens"), video);
  EXPECT_EQ(graph.attrs().GetInt("text_tokens"), text);
}

// The graph holds a value `name` that is a constant (a buffer such as the RoPE
// table, not a parameter) of type `type`.
inline void ExpectConstant(const pir::Graph& graph, const std::string& name, const pir::TensorType& type) {
  bool found = false;
  for (const pir::Value& v : graph.values()) {
    if (v.name != name) continue;
    found = true;
    EXPECT_EQ(v.role, ValueRole::kConstant) << name;
    EXPECT_EQ(v.type, type) << name;
  }
  EXPECT_TRUE(found) << name;
}

// The ops of `kind`, in graph order.
inline std::vector<const pir::Op*> OpsOfKind(const pir::Graph& graph, pir::OpKind kind) {
  std::vector<const pir::Op*> ops;
  for (const pir::Op& op : graph.ops()) {
    if (op.kind == kind) ops.push_back(&op);
  }
  return ops;
}

// Every attention is a joint one (text and video rows in one sequence) whose
// query has type `query`; returns how many there are.
inline size_t CountJointAttentions(const pir::Graph& graph, const pir::TensorType& query) {
  std::vector<const pir::Op*> attentions = OpsOfKind(graph, pir::OpKind::kAttention);
  for (const pir::Op* op : attentions) {
    EXPECT_EQ(op->attrs.GetString("mode").value_or(""), "joint");
    EXPECT_EQ(graph.type(op->operands[0]), query);
  }
  return attentions.size();
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

// A stage's (first) output has shape `output`, and its matmuls and attentions
// do `flops` (MatmulAndAttentionFlops).
inline void ExpectStageOutput(const pir::Graph& graph, const pir::Shape& output, int64_t flops) {
  EXPECT_EQ(graph.type(graph.outputs()[0]).shape, output);
  EXPECT_EQ(MatmulAndAttentionFlops(graph), flops);
}

}  // namespace az::zoo::zoo_test
