// What an imported program holds that the planner does not know: every op
// imported as `custom`, grouped by its source op, with how it is priced, and
// softmaxes between two einsums the attention fold left alone.
//
// A custom op is priced as an unfused kernel (pir/rules/cost.h): its bytes
// are its operands read and its results written, always; its FLOPs are the
// importer's rule where it has one (the `flops` attribute: ONNX's
// InstanceNormalization, ...), else 0, and the op is "unpriced": its compute
// is missing from every latency. FinishImport adds a warning when unpriced
// ops move more than 1% of the program's bytes (the sum of every op's bytes
// read and written), so a plan says when its latencies leave out work.
#pragma once

#include <string>
#include <vector>

#include "pir/ir/graph.h"
#include "support/units.h"

namespace az::frontend {

struct CustomOpGroup {
  std::string target;               // the source op ("fft", "custom_call @foo")
  int count = 0;
  std::vector<std::string> shapes;  // the distinct signatures "(f32[8,16]) -> f32[8,16]", first 4
  bool priced = false;              // FLOPs from the importer's rule (every instance)
  Flops flops;                      // all instances
  Bytes bytes;                      // read + written, all instances
  std::string pricing;              // how it is priced, in words
};

struct UnknownOps {
  std::vector<CustomOpGroup> custom;  // by target name
  Bytes program_bytes;                // every op's bytes read + written
  Bytes unpriced_bytes;               // those of custom ops without FLOPs
  // softmax ops whose input comes from an einsum and whose output reaches
  // one (through casts and element-wise ops): attention the fold did not
  // recognize, priced as its parts
  std::vector<std::string> unfolded_attention;
  double unpriced_fraction() const;
};

UnknownOps FindUnknownOps(const pir::Graph& graph);

// The `plan` warning, or "" below 1% of the program's bytes.
std::string UnpricedWarning(const UnknownOps& unknown);

}  // namespace az::frontend
