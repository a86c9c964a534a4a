// Helpers the training-step tests share (compile/train_*_test.cc,
// price/train_overlap_test.cc): a small Wan 2.1 training step and its
// compilation under a template.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"

namespace az::compile::train_test {

// A training step of `model` at width x height x frames with `depth` blocks.
// The tests' default, 256x256x9 (latent 3x32x32, 2x2 patches: 768 video
// tokens), keeps the video tokens apart from the 512 text tokens, which the
// templates tell activations by (templates.h).
struct TinyStep {
  std::string model = "wan2.1-t2v-1.3b";
  int64_t width = 256, height = 256, frames = 9;
  int64_t depth = 1;
  int64_t micro_batch = 2;
  pir::RematPolicy remat = pir::RematPolicy::kNone;
  int64_t accumulate = 1;  // gradient accumulation's micro-steps
};

inline pir::Graph BuildTinyStep(const TinyStep& step) {
  zoo::ModelOptions small;
  small.width = step.width;
  small.height = step.height;
  small.frames = step.frames;
  auto config = zoo::ResolveConfig(step.model, small);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  if (!config.ok()) return pir::Graph();
  config->depth_units = step.depth;
  zoo::TrainOptions options;
  options.micro_batch = step.micro_batch;
  options.remat = step.remat;
  options.accumulate = step.accumulate;
  auto graph = zoo::BuildTrainStep(*config, options);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return graph.ok() ? std::move(graph).value() : pir::Graph();
}

// `graph` under template `templ` on mesh `mesh_text`, by the built-in compiler.
inline StatusOr<cir::Program> CompileStep(const pir::Graph& graph, const std::string& mesh_text,
                                          const std::string& templ, const CompileOptions& options = {}) {
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(mesh_text));
  SpmdCompiler compiler;
  return CompileTemplate(compiler, graph, mesh, templ, options);
}

}  // namespace az::compile::train_test
