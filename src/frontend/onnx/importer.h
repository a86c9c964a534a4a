// Internal to frontend/onnx: the state of one import, shared by import.cc (the
// driver: leaves, names, functions, outputs) and import_ops.cc (one converter
// per ONNX op type). Not a public header.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/import/imported.h"
#include "frontend/onnx/onnx_model.h"
#include "frontend/onnx/shape_fold.h"
#include "pir/ir/graph.h"
#include "pir/rules/rule.h"

namespace az::frontend::onnx {

// One ONNX value. Either materialized (`id` >= 0: a PIR value) or pending: a
// folded constant (`data`) or a leaf not yet created (an initializer or a
// parameter input, created on first use so that it can take its consumer's
// module scope as its name).
struct Slot {
  pir::ValueId id = -1;
  pir::TensorType type;
  std::optional<TensorData> data;
  bool pending_leaf = false;  // a leaf to create on first use
  pir::ValueRole leaf_role = pir::ValueRole::kConstant;
  std::string leaf_name;  // the ONNX name of the pending leaf
  // What is known of a pending constant leaf's values without `data` (too
  // large to fold): one value everywhere, or a band mask (constant_band.h).
  // Recorded for the fold when the leaf is created (ImportedProgram).
  std::optional<double> splat;
  std::optional<ConstantBand> band;
  bool is_parameter() const { return leaf_role == pir::ValueRole::kParameter && (pending_leaf || id >= 0); }
};

// A node's inputs and outputs by size_t index, as the converters count them.
inline size_t NumInputs(const ox::NodeProto& node) { return static_cast<size_t>(node.input_size()); }
inline size_t NumOutputs(const ox::NodeProto& node) { return static_cast<size_t>(node.output_size()); }
inline const std::string& InputName(const ox::NodeProto& node, size_t i) { return node.input(static_cast<int>(i)); }
inline const std::string& OutputName(const ox::NodeProto& node, size_t i) { return node.output(static_cast<int>(i)); }

// The node being converted, with its rendered location and PIR op name.
struct NodeContext {
  const ox::NodeProto* node = nullptr;
  int index = 0;        // GraphProto.node[index] (of the caller, for inlined function bodies)
  std::string where;    // "model.onnx: node 17 '/blocks.0/q/MatMul' (MatMul)"
  std::string op_name;  // "blocks.0.self_attn.q"
  std::string scope;    // "blocks.0.self_attn.q" (module scope, may be empty)
  int64_t opset = 1;
};

class Importer {
 public:
  Importer(const OnnxModel& model, std::string file, const ImportOptions& options);
  StatusOr<ImportedProgram> Run();

  // ---- used by the op converters (import_ops.cc)
  const OnnxModel& model() const { return model_; }
  const pir::TensorType& TypeOf(pir::ValueId v) const { return program_.graph.type(v); }
  const pir::Graph& graph() const { return program_.graph; }
  bool HasInput(const NodeContext& ctx, size_t i) const;
  // The slot of input i; an error when it is missing or undefined.
  StatusOr<Slot*> Input(const NodeContext& ctx, size_t i);
  // The PIR value of a slot, creating its leaf or constant on first use.
  StatusOr<pir::ValueId> Materialize(const NodeContext& ctx, Slot& slot);
  StatusOr<pir::ValueId> InputValue(const NodeContext& ctx, size_t i);
  // A scalar constant leaf (a Relu's 0, a Gemm's alpha); its value is recorded.
  pir::ValueId ScalarConstant(const NodeContext& ctx, pir::DType dtype, double value);
  // A constant leaf of `type` whose values the fold reads as index
  // arithmetic (a Trilu's row and column indices): records nothing.
  pir::ValueId IndexConstant(const NodeContext& ctx, const pir::TensorType& type, const std::string& suffix);
  // Adds a PIR op with inferred result types (declared ones for custom);
  // an inference failure is a located error. Returns the first result.
  StatusOr<pir::ValueId> Emit(const NodeContext& ctx, pir::OpKind kind, std::vector<pir::ValueId> operands,
                              pir::Attributes attrs = {}, std::vector<pir::TensorType> declared = {},
                              const std::string& suffix = "");
  // Binds output i of the node to a PIR value / a folded constant.
  Status DefineValue(const NodeContext& ctx, size_t i, pir::ValueId value);
  Status DefineConstant(const NodeContext& ctx, size_t i, pir::TensorType type, TensorData data);
  Status DefineSlot(const NodeContext& ctx, size_t i, Slot slot);
  // The declared type of a value from value_info/outputs, if complete.
  std::optional<pir::TensorType> DeclaredType(const std::string& name) const;
  // Imports the node as `custom` (target "onnx.<op_type>") with a warning.
  Status EmitCustom(const NodeContext& ctx, const std::string& why, int64_t flops = 0,
                    std::vector<pir::TensorType> result_types = {});
  Status Error(const NodeContext& ctx, const std::string& message) const;
  void Warn(const NodeContext& ctx, const std::string& message);

 private:
  Status DeclareInputs();
  Status ConvertNodes(const google::protobuf::RepeatedPtrField<ox::NodeProto>& nodes, int caller_index, int depth,
                      const std::map<std::string, std::string>* rename, const std::string& name_prefix,
                      const ox::NodeProto* caller);
  Status ConvertOne(const ox::NodeProto& node, int index, const std::string& display_name);
  std::string UniqueLeafName(const std::string& wanted);
  // Records what `slot` knows of its values for the new constant leaf `leaf`.
  void RecordConstantValues(pir::ValueId leaf, const Slot& slot);
  std::string ParameterName(const NodeContext& ctx, const Slot& slot);

  const OnnxModel& model_;
  std::string file_;
  const ImportOptions& options_;
  ImportedProgram program_;
  std::map<std::string, Slot> values_;
  std::map<std::string, const ox::ValueInfoProto*> declared_;
  std::set<std::string> used_leaf_names_;
  std::set<std::string> listed_parameters_;  // metadata aoizora.parameters
  bool has_parameter_list_ = false;
  std::vector<std::pair<std::string, pir::ValueId>> parameter_order_;
  int64_t ops_emitted_ = 0;
  int64_t nodes_converted_ = 0;  // nodes converted, inlined function bodies included
  int64_t inlined_calls_ = 0;
};

// import_ops.cc: converts one node (the dispatch table of ONNX op types).
Status ConvertNode(Importer& importer, const NodeContext& ctx);
// The PIR element type of an ONNX one; nullopt for types PIR lacks (string, complex).
std::optional<pir::DType> PirDType(int32_t onnx_type);
// "/blocks.0/ffn/ffn.0/MatMul" -> {"blocks.0.ffn.0", "MatMul"}; name_scopes metadata wins.
std::pair<std::string, std::string> ModuleScope(const ox::NodeProto& node);

}  // namespace az::frontend::onnx
