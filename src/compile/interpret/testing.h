// Helpers the compiler's tests share (interpreter_test, grad_check_test,
// windows_test, spmd/halo_test): the PIR names they build graphs with, the
// decoders' convolution, seeded random leaves, the relative error between
// runs and the check of a refused split.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compile/interpret/interpreter.h"
#include "pir/build/graph_builder.h"

// Every test here builds small graphs; one declaration of the names they use
// (as frontend/zoo/pir_names.h does for the zoo's builders).
namespace az::compile {
using pir::DType;
using pir::GraphBuilder;
using pir::OpKind;
using pir::ValueId;
}  // namespace az::compile

namespace az::compile::interpret_test {

// Uniform in [-1, 1] for every leaf (input, parameter, constant), seeded.
inline std::map<pir::ValueId, Tensor> RandomLeaves(const pir::Graph& graph, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::map<pir::ValueId, Tensor> leaves;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role == pir::ValueRole::kActivation) continue;
    Tensor t{v.type.shape, {}};
    for (int64_t i = 0; i < v.type.NumElements(); ++i) t.data.push_back(uniform(rng));
    leaves[id] = std::move(t);
  }
  return leaves;
}

// A convolution as the VAE decoders have it: weight [out, in, kernel...] and
// bias [out] parameters named after the op; `padding` is (before, after) for
// frames, rows and columns.
inline ValueId Conv3d(GraphBuilder& b, const std::string& name, ValueId x, int64_t out, std::vector<int64_t> kernel,
                      std::vector<int64_t> padding, std::vector<int64_t> stride = {1, 1, 1}) {
  const int64_t in = b.type(x).shape[1];
  ValueId w = b.Param(name + ".weight", DType::kF32, {out, in, kernel[0], kernel[1], kernel[2]});
  ValueId bias = b.Param(name + ".bias", DType::kF32, {out});
  pir::Attributes attrs;
  attrs.Set("stride", std::move(stride));
  attrs.Set("padding", std::move(padding));
  return b.AddOp1(OpKind::kConv3d, name, {x, w, bias}, attrs);
}

// A graph `graph_name` of one such convolution `name` of the f32 input "x" of
// shape `input`: the halo and window tests' single-op cases.
inline pir::Graph ConvGraph(const std::string& graph_name, const std::string& name, pir::Shape input, int64_t out,
                            std::vector<int64_t> kernel, std::vector<int64_t> padding,
                            std::vector<int64_t> stride = {1, 1, 1}) {
  GraphBuilder b(graph_name);
  ValueId x = b.Input("x", DType::kF32, std::move(input));
  b.Output(Conv3d(b, name, x, out, std::move(kernel), std::move(padding), std::move(stride)));
  return b.Finish();
}

// `result` is a refusal: a kUnimplemented error whose message holds `reason`
// (what the compiler and the interpreter answer for a split they cannot run).
template <typename T>
void ExpectUnimplemented(const StatusOr<T>& result, const std::string& reason) {
  ASSERT_FALSE(result.ok()) << reason;
  EXPECT_EQ(result.status().code(), StatusCode::kUnimplemented) << result.status().ToString();
  EXPECT_NE(result.status().message().find(reason), std::string::npos) << result.status().message();
}

// max |got - want| / max |want| over all outputs; infinity on a shape mismatch.
inline double RelativeError(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0, scale = 0;
  for (size_t t = 0; t < got.size(); ++t) {
    if (got[t].shape != want[t].shape || got[t].data.size() != want[t].data.size()) return INFINITY;
    for (size_t i = 0; i < got[t].data.size(); ++i) {
      diff = std::max(diff, std::abs(got[t].data[i] - want[t].data[i]));
      scale = std::max(scale, std::abs(want[t].data[i]));
    }
  }
  return diff / std::max(scale, 1e-300);
}

}  // namespace az::compile::interpret_test
