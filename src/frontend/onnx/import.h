// The ONNX importer: a model file written by torch.onnx.export (the legacy
// TorchScript exporter or the torch.export-based one) into PIR.
//
// Pipeline: onnx_model.h reads the bytes with ONNX's generated classes and
// onnx_check.h runs ONNX's checker and shape inference on them; the importer
// walks the (topologically ordered) nodes and emits one PIR op per node, folding shape plumbing (shape_fold.h) so that it leaves no
// op behind; FinishImport (frontend/import/imported.h) then folds the
// decompositions (attention, norms, GELU) and verifies.
//
// Values.
//   - Graph inputs become PIR inputs, with every dim_param bound by
//     ImportOptions::dims (an unbound one is an error naming it).
//   - Initializers: floating, rank >= 1 -> parameters, named by the
//     initializer name; integer or scalar ones -> constants (kept for folding).
//     A generated name ("onnx::MatMul_123", the legacy exporter's pre-transposed
//     Linear weights; "val_72", the dynamo exporter's) takes the module scope
//     of its first consumer:
//     "blocks.0.self_attn.q.weight". A tied weight is one initializer used
//     twice: one parameter. Values the importer never uses create no leaf.
//   - Weights as graph inputs (export_params=False): when the model's
//     metadata_props has `aoizora.parameters` (a JSON list of names), exactly
//     those inputs are parameters. Otherwise an input is a parameter when it is
//     not the first input, is floating with rank >= 1, and its name is either
//     generated ("onnx::...", "val_N") or a module path whose last atom is a parameter
//     name (weight, bias, scale, gamma, beta, embedding, or ending in _weight
//     / _bias).
//   - Identity from a parameter to a named value (the legacy exporter merges
//     initializers of equal value, such as two fresh LayerNorm weights, and
//     writes `Identity(blocks.0.norm.weight) -> blocks.1.norm.weight`) makes
//     the output a parameter of its own: the module has two parameters.
//
// Names. An op is named by its module scope: the node name
// "/blocks.0/self_attn/q/MatMul" (legacy exporter) or the node's
// `pkg.torch.onnx.name_scopes` metadata (torch.export-based exporter) gives
// "blocks.0.self_attn.q". A node whose leaf name is its op type ("MatMul",
// "Add") takes the scope alone; others append the leaf
// ("blocks.0.self_attn.Reshape_1"); nodes outside any module keep their name.
//
// Locations. ONNX has no source lines. A diagnostic names the node by its
// index in GraphProto.node, its name and its op type:
//   "model.onnx: node 17 '/blocks.0/q/MatMul' (MatMul): warning: ..."
// and a PIR op's `loc` is Text(file, index + 1, 1): its "line" is the 1-based
// node number, so a verifier message "model.onnx:18:1" means node 17.
// Parse errors name the byte offset and the message path (onnx_model.h);
// the checker's name the node.
//
// Ops. Element-wise: Add Sub Mul Div Pow Max Min Sum Where Equal Less Greater
// LessOrEqual GreaterOrEqual (compare), Sqrt Erf Exp Tanh Sigmoid Sin Cos Neg
// Reciprocal Abs Log, Relu (max with 0), Cast (convert). MatMul and Gemm ->
// einsum (NumPy batch broadcasting; MatMul(x, Transpose(W)) reads the [out, in]
// parameter W directly; Gemm's bias is the einsum's third operand when alpha =
// beta = 1); Einsum -> einsum when PIR's grammar takes it. Softmax, Gelu,
// LayerNormalization / RMSNormalization over the last axis -> softmax, gelu /
// gelu_tanh, layer_norm / rms_norm. ReduceMean/Sum/Max -> reduce (+ reshape for
// keepdims). Layout: Reshape Flatten Unsqueeze Squeeze -> reshape; Transpose;
// Slice and Split -> slice (negative steps: custom); Concat; Gather -> folded,
// a slice for a constant index, gather for an embedding lookup on axis 0;
// Expand -> broadcast. Shape plumbing folds: Constant Shape Size
// ConstantOfShape Range Identity Dropout, and every op above on constants.
// Conv: 3-D with group 1 and no dilation -> conv3d (any stride and padding:
// PIR's rule handles overlapping windows); others -> custom with FLOPs
// 2 * numel(result) * kernel volume * C_in / group. Model-local functions are
// inlined; If/Loop/Scan (subgraphs) import as custom.
//
// Unsupported ops (and ops of other domains) import as `custom`
// (target "onnx.<OpType>") with a warning; their result types come from
// value_info (the file's and what ONNX's shape inference added) when it has
// them, else they are assumed equal to the first input's (the warning says so).
#pragma once

#include <string>
#include <string_view>

#include "frontend/import/imported.h"
#include "support/status.h"

namespace az::frontend {

// Largest file ImportOnnxFile reads: protobuf itself caps messages at 2 GiB;
// bigger models keep their weights in external data files.
constexpr int64_t kMaxOnnxFileBytes = int64_t{2} << 30;

StatusOr<ImportedProgram> ImportOnnx(std::string_view bytes, std::string file_name, const ImportOptions& options);
// Reads `path` (kNotFound when it cannot; kResourceExhausted over 2 GiB) and imports it.
StatusOr<ImportedProgram> ImportOnnxFile(const std::string& path, const ImportOptions& options);

}  // namespace az::frontend
