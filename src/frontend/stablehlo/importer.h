// Internal to frontend/stablehlo: the importer's state, shared by import.cc
// (module, functions, calls, arguments, parameters), import_ops.cc (one
// StableHLO op -> PIR) and manual.cc (manual computations at global shapes).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/stablehlo/import.h"
#include "frontend/stablehlo/mlir_parser.h"
#include "frontend/stablehlo/shardings.h"
#include "pir/ir/graph.h"

namespace az::frontend::shlo {

// ---- attribute readers over token trees (attrs.cc)
std::optional<int64_t> IntOf(const Trees& trees);
std::optional<double> FloatOf(const Tree& tree);
std::optional<std::vector<int64_t>> IntsOf(const Trees& trees);  // [1, 2], array<i64: 1, 2>, dense<[1, 2]>
std::optional<std::vector<std::vector<int64_t>>> Ints2DOf(const Trees& trees);  // dense<[[0, 1], [2, 3]]>
std::optional<std::string> StringOf(const Trees& trees);
// The trees after `key =` in a pretty body, up to the next top-level comma.
std::optional<Trees> BodyValue(const Trees& body, std::string_view key);
// An op's attribute from its properties, its attribute dict or its pretty body.
std::optional<Trees> OpAttr(const Operation& op, std::string_view key);
// The first identifier among `words` anywhere in the trees (depth-limited).
std::optional<std::string> FindWord(const Trees& trees, std::initializer_list<std::string_view> words);
// The splat value of `dense<x>` (floats, ints, booleans, hex bit patterns of `dtype`).
std::optional<double> SplatOf(const Trees& trees, pir::DType dtype);
// dot_general's batching and contracting dims (pretty or generic form).
bool DotDimsOf(const Operation& op, std::vector<int64_t>* lhs_batch, std::vector<int64_t>* rhs_batch,
               std::vector<int64_t>* lhs_contract, std::vector<int64_t>* rhs_contract);
// Collects the value references a pretty op uses as operands.
std::vector<std::string> PrettyOperands(const Operation& op);

// Per-manual-body analysis (manual.cc): each body value's dims carry a
// union-find variable whose binding is the list of manual axes splitting it.
struct ManualValue {
  pir::TensorType local;
  std::vector<int> vars;
  uint64_t partial = 0;  // bit i: a partial sum over mesh axis i
};

struct ManualState {
  const pir::Mesh* mesh = nullptr;
  // Per body argument: the all_gathers that read it (their result's value
  // index), and whether anything else does.
  std::vector<std::vector<int>> arg_gathers;
  std::vector<bool> arg_other_use;
  std::set<std::string> manual_axes;
  std::vector<int> parent;
  std::vector<std::optional<std::vector<std::string>>> bound;
  std::vector<ManualValue> values;
  bool failed = false;
  std::string why;

  int NewVar();
  int Find(int var);
  void Bind(int var, const std::vector<std::string>& axes, const std::string& context);
  void Unify(int a, int b, const std::string& context);
  void Fail(const std::string& message);
  std::vector<std::string> Axes(int var);  // unbound: {}
  uint64_t Mask(const std::vector<std::string>& axes) const;
  // The value's global type (local dims times their axes' sizes); nullopt when too large.
  std::optional<pir::TensorType> GlobalType(int value);
};

enum class Mode { kNormal, kAnalyze, kEmitGlobal };

// A value of index arithmetic: iota(pos) - iota(neg) + offset, with pos and
// neg result dims (-1: absent). How a causal or sliding-window mask is
// written (iota, broadcast, subtract, compare); the compare records it for
// the attention fold (frontend/import/fold.h).
struct IotaForm {
  int64_t pos = -1, neg = -1;
  double offset = 0;
};

struct Binding {
  pir::ValueId id = -1;                           // the PIR value (global in manual bodies); -1 while analyzing
  pir::TensorType type;                           // the type the source program sees (local in manual bodies)
  int manual = -1;                                // index into ManualState::values
  std::optional<double> splat;                    // a splat constant's value
  std::optional<IotaForm> iota;                   // index arithmetic (above)
  std::optional<pir::TensorSharding> constraint;  // set by @Sharding: the sharding it was pinned to
  bool pending_local = false;                     // a FullToShard result not materialized yet: `id` is the global value
};

using Scope = std::unordered_map<std::string, Binding>;

class Importer {
 public:
  Importer(const Module& module, std::string file, const SourceBuffer* source, const ImportOptions& options);
  StatusOr<ImportedProgram> Run();

  // Shared with ListManualCollectives: the file's meshes (sdy, then GSPMD).
  Status CollectMeshes();
  const std::vector<pir::Mesh>& meshes() const { return meshes_; }
  std::vector<std::string>& warnings() { return program_.warnings; }

 private:
  friend class OpLowering;
  // import.cc
  SourceLocation Loc(int line, int col) const { return SourceLocation::Text(file_, line, col); }
  Status Error(int line, int col, const std::string& message, StatusCode code = StatusCode::kInvalidArgument) const;
  void Warn(int line, int col, const std::string& message);
  std::string LocName(const LocRef& loc) const;
  std::string OpName(const Operation& op);
  std::optional<pir::TensorSharding> ReadSharding(const AttrDict& attrs, int64_t rank, int line, int col);
  bool ValidSharding(const pir::TensorSharding& sharding, int64_t rank, std::string* why) const;
  void Pin(pir::ValueId value, const pir::TensorSharding& sharding, int line, int col);
  Status ImportEntry(const Func& func);
  Status WalkBlock(const Block& block, Scope& scope, std::vector<Binding>* returned);
  Status Lookup(const Scope& scope, const std::string& name, int line, int col, Binding* out) const;
  Status ImportOp(const Operation& op, Scope& scope);
  Status InlineCall(const Operation& op, const std::string& callee, std::vector<Binding> operands,
                    std::vector<Binding>* results);
  Status Materialize(Binding& binding, int line, int col);
  void ClassifyParameters();

  // import_ops.cc
  Status LowerOp(const Operation& op, const std::vector<Binding>& operands, const std::vector<pir::TensorType>& targets,
                 std::vector<Binding>* results);
  pir::ValueId Emit(pir::OpKind kind, const Operation& op, std::vector<pir::ValueId> operands, pir::Attributes attrs,
                    const pir::TensorType& target, const std::string& why_custom = "");
  pir::ValueId EmitCustom(const std::string& target, const Operation& op, std::vector<pir::ValueId> operands,
                          const pir::TensorType& type, int64_t flops, const std::string& warning);

  // manual.cc
  std::optional<pir::TensorSharding> GatheredUse(ManualState& state, size_t arg, const pir::TensorSharding& stored);
  Status ImportManual(const Operation& op, const Block& body, const std::vector<BlockArg>& args,
                      std::vector<Binding> operands, const std::vector<pir::TensorSharding>& in_shardings,
                      const std::vector<pir::TensorSharding>& out_shardings, const std::set<std::string>& manual_axes,
                      const std::vector<pir::TensorType>& global_results, std::vector<Binding>* results);
  Status ImportSdyManual(const Operation& op, const std::vector<Binding>& operands, std::vector<Binding>* results);
  void AnalyzeOp(const Operation& op, const std::vector<Binding>& operands, int first_result);

  const Module& module_;
  std::string file_;
  const SourceBuffer* source_;
  ImportOptions options_;
  ImportedProgram program_;
  std::vector<pir::Mesh> meshes_;
  GspmdMeshes gspmd_;
  std::map<std::string, const Func*> funcs_;
  std::vector<std::string> call_stack_;
  std::map<std::string, int> name_counts_;
  int64_t op_budget_used_ = 0;
  int op_counter_ = 0;
  Mode mode_ = Mode::kNormal;
  ManualState* manual_ = nullptr;
  int manual_seq_ = 0;
  int depth_ = 0;
};

}  // namespace az::frontend::shlo
