// Test graphs that the tests of more than one library build (header-only;
// tests only).
#pragma once

#include "pir/build/graph_builder.h"

namespace az::pir_test {

// The two-layer MLP the compiler and evidence tests shard Megatron-style:
// x bf16 [2, 128, 256] -> fc1 (256 -> 1024, no bias) -> gelu_tanh "act" ->
// fc2 (1024 -> 256, no bias), the one output.
inline pir::Graph MlpGraph() {
  pir::GraphBuilder b("mlp");
  pir::ValueId x = b.Input("x", pir::DType::kBF16, {2, 128, 256});
  pir::ValueId h = b.Linear("fc1", x, 1024, /*bias=*/false);
  pir::ValueId g = b.Unary(pir::OpKind::kGeluTanh, "act", h);
  b.Output(b.Linear("fc2", g, 256, /*bias=*/false));
  return b.Finish();
}

}  // namespace az::pir_test
