// Helpers the interpreter's tests share (interpreter_test, grad_check_test,
// windows_test): seeded random leaves and the relative error between runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "compile/interpret/interpreter.h"

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
