// ONNX's own checker and shape inference (Debian's libonnx 1.12) on a parsed
// model, before the importer reads it.
//
// What runs. `onnx::checker::check_model` (the graph is SSA and topologically
// sorted, every node matches its operator schema: input and output counts,
// attribute names and types, initializers hold the data their dims declare)
// then `onnx::shape_inference::InferShapes` in strict mode with data
// propagation (every value's element type and shape the reference
// implementation infers, symbolic dims included, written to value_info; a
// shape that contradicts the file's is an error). The importer takes the
// result types of ops it imports as `custom` from that value_info.
//
// Opsets newer than ONNX 1.12. Its schemas stop at ai.onnx opset 17 and IR
// version 8, and for a newer opset N its registry silently answers with the
// newest schema it has: right for an op that did not change in opsets
// 18..N, wrong for one that did (ReduceMean took its axes as an input in 18,
// Gelu is new in 20). So for 17 < N <= kNewestTabledOpset, the nodes (in the
// main graph, subgraphs and function bodies) of ops with a new version in
// 18..N (kOpsChangedSince17, taken from onnx/defs/operator_sets.h) are set
// aside for the duration of the checks: the checker and shape inference skip
// them, values computed from them get no inferred shape, and every other node
// is checked against the schema that is also its schema at opset N. A model
// of IR version 9 or 10 is checked as IR 8: the fields those versions added
// are unknown to ONNX 1.12 and not checked. Past kNewestTabledOpset neither
// step runs. After the first node set aside, ONNX's shape inference reports
// no node-level errors (its rule for graphs with ops it does not know);
// contradictions with the file's shapes still are errors.
//
// External data. Initializers whose values live in external files are
// checked as graph inputs of their type and shape: the importer never reads
// their values, and a plan needs no weights (the checker would otherwise
// require the files next to the model). The model comes back with its nodes and IR version as read;
// OnnxChecks says which steps ran and what was skipped, and why.
//
// Model-local functions that call each other in a cycle, or nest deeper than
// kMaxFunctionNesting, are refused before ONNX's inference (which would
// recurse without end).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "support/status.h"

namespace ONNX_NAMESPACE {
class ModelProto;
}

namespace az::frontend::onnx {

// The newest ai.onnx opset whose changed ops kOpsChangedSince17 lists.
constexpr int64_t kNewestTabledOpset = 27;
// Deepest chain of model-local function calls (the importer inlines them).
constexpr int kMaxFunctionNesting = 8;

struct OnnxChecks {
  int64_t opset = 0;       // the model's ai.onnx opset
  int64_t ir_version = 0;  // as read
  bool checked = false;    // the checker ran
  bool inferred = false;   // shape inference ran
  int64_t nodes_set_aside = 0;             // in all graphs and function bodies
  std::map<std::string, int64_t> set_aside_ops;  // op type -> nodes
  std::string why_not;                     // when neither step ran

  // One line for `inspect`'s notes.
  std::string Summary() const;
};

// The ops of the standard domain with a new version in opsets 18..`opset`
// (empty up to 17).
bool OpChangedAfter17(std::string_view op_type, int64_t opset);

// Runs the checks on `model` (value_info gains what inference adds). Errors
// name the file and, for a node the checker rejects, the node.
StatusOr<OnnxChecks> CheckOnnxModel(::ONNX_NAMESPACE::ModelProto& model, const std::string& file);

}  // namespace az::frontend::onnx
