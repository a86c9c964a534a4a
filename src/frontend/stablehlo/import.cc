// The StableHLO importer's driver (import.h): module, entry function, calls,
// argument naming and shardings, parameter classification.
#include "frontend/stablehlo/import.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "frontend/stablehlo/importer.h"

namespace az::frontend {

using shlo::Binding;
using shlo::Importer;

namespace shlo {

namespace {
constexpr int kMaxCallDepth = 64;

bool IsTerminator(const std::string& name) {
  return name == "return" || name == "func.return" || name == "stablehlo.return" || name == "sdy.return" ||
         name == "mhlo.return";
}

// Every attribute dict of the module (args, results, ops), for the GSPMD prescan.
void VisitDicts(const Region& region, const std::function<void(const AttrDict&)>& visit, int depth) {
  if (depth > kMaxNesting) return;
  for (const Block& block : region.blocks) {
    for (const Operation& op : block.ops) {
      visit(op.attrs);
      visit(op.properties);
      for (const Region& inner : op.regions) VisitDicts(inner, visit, depth + 1);
    }
  }
}
}  // namespace

// A string entry of an op's or argument's mhlo.frontend_attributes.
static std::optional<std::string> FrontendAttr(const AttrDict& attrs, std::string_view key) {
  const NamedAttr* fe = FindAttr(attrs, "mhlo.frontend_attributes");
  if (!fe || fe->value.empty() || fe->value[0].kind != TokenKind::kLBrace) return std::nullopt;
  auto value = BodyValue(fe->value[0].children, key);
  if (!value) return std::nullopt;
  return StringOf(*value);
}

Importer::Importer(const Module& module, std::string file, const SourceBuffer* source, const ImportOptions& options)
    : module_(module), file_(std::move(file)), source_(source), options_(options) {
  program_.format = "stablehlo";
  program_.file = file_;
  program_.graph.set_name(module.name.empty() ? "stablehlo" : module.name);
  for (const Func& func : module_.funcs) funcs_.emplace(func.name, &func);
}

Status Importer::Error(int line, int col, const std::string& message, StatusCode code) const {
  return LocatedError(code, Loc(line, col), message, source_);
}

void Importer::Warn(int line, int col, const std::string& message) {
  if (program_.warnings.size() >= 1000) return;
  Diagnostic d{Severity::kWarning, Loc(line, col), message};
  program_.warnings.push_back(RenderDiagnostic(d, nullptr));
}

Status Importer::CollectMeshes() {
  std::vector<std::string> notes;
  // The Shardy round-trip form: mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[...]>}"}.
  if (auto text = FrontendAttr(module_.attrs, "xla.sdy.meshes")) {
    auto trees = ParseTrees(*text, file_);
    if (trees.ok() && trees->size() == 1 && (*trees)[0].kind == TokenKind::kLBrace) {
      const Trees& items = (*trees)[0].children;
      for (size_t i = 0; i + 2 < items.size(); ++i) {
        if (items[i + 1].kind != TokenKind::kEqual ||
            (items[i].kind != TokenKind::kIdent && items[i].kind != TokenKind::kString)) {
          continue;
        }
        Trees value;
        for (size_t j = i + 2; j < items.size() && items[j].kind != TokenKind::kComma; ++j) value.push_back(items[j]);
        auto mesh = MeshFromTrees(items[i].text, value, &notes);
        if (mesh.ok() && !program_.graph.FindMesh(mesh->name)) {
          bool seen = false;
          for (const pir::Mesh& m : meshes_) seen = seen || m.name == mesh->name;
          if (!seen) meshes_.push_back(std::move(*mesh));
        }
      }
    }
  }
  for (const MeshDecl& decl : module_.meshes) {
    auto mesh = MeshFromTrees(decl.name, decl.value, &notes);
    if (!mesh.ok()) return Error(decl.line, decl.col, mesh.status().message());
    for (const pir::Mesh& existing : meshes_) {
      if (existing.name == decl.name) return Error(decl.line, decl.col, "mesh @" + decl.name + " is declared twice");
    }
    meshes_.push_back(std::move(*mesh));
    for (const std::string& note : notes) Warn(decl.line, decl.col, note);
    notes.clear();
  }
  auto visit = [&](const AttrDict& dict) {
    const NamedAttr* attr = FindAttr(dict, "mhlo.sharding");
    if (!attr) return;
    auto text = StringOf(attr->value);
    if (!text) return;
    auto parsed = ParseGspmd(*text);
    if (!parsed.ok()) return;
    for (const GspmdSharding& s : *parsed) gspmd_.Add(s);
  };
  for (const Func& func : module_.funcs) {
    for (const BlockArg& arg : func.args) visit(arg.attrs);
    for (const FuncResult& result : func.results) visit(result.attrs);
    VisitDicts(func.body, visit, 0);
  }
  for (const pir::Mesh& mesh : gspmd_.Meshes()) meshes_.push_back(mesh);
  return Status::Ok();
}

std::string Importer::LocName(const LocRef& loc) const {
  const Trees* trees = &loc.inline_loc;
  std::string alias = loc.alias;
  for (int hop = 0; hop < 8 && !alias.empty(); ++hop) {
    auto it = module_.loc_aliases.find(alias);
    if (it == module_.loc_aliases.end()) return "";
    trees = &it->second;
    alias.clear();
    if (trees->size() == 1 && (*trees)[0].kind == TokenKind::kHashIdent) alias = (*trees)[0].text;
  }
  if (trees->empty() || (*trees)[0].kind != TokenKind::kString) return "";
  if (trees->size() > 1 && (*trees)[1].kind == TokenKind::kColon) return "";  // "file.py":12:3
  const std::string& name = (*trees)[0].text;
  if (name.empty() || name == "unknown" || name.size() > 200) return "";
  return name;
}

std::string Importer::OpName(const Operation& op) {
  std::string name = LocName(op.loc);
  if (name.empty()) {
    std::string kind = op.name.substr(op.name.rfind('.') == std::string::npos ? 0 : op.name.rfind('.') + 1);
    name = kind + "." + std::to_string(op_counter_);
  }
  ++op_counter_;
  int& count = name_counts_[name];
  if (count++ > 0) name += "." + std::to_string(count - 1);
  return name;
}

bool Importer::ValidSharding(const pir::TensorSharding& sharding, int64_t rank, std::string* why) const {
  const pir::Mesh* mesh = program_.graph.FindMesh(sharding.mesh);
  if (!mesh) {
    *why = "names an undeclared mesh @" + sharding.mesh;
    return false;
  }
  if (static_cast<int64_t>(sharding.dim_axes.size()) != rank) {
    *why = "has " + std::to_string(sharding.dim_axes.size()) + " dims for a rank-" + std::to_string(rank) + " value";
    return false;
  }
  std::set<std::string> used;
  for (const auto& axes : sharding.dim_axes) {
    for (const std::string& axis : axes) {
      if (!mesh->AxisSize(axis) || !used.insert(axis).second) {
        *why = "uses axis '" + axis + "' twice or that the mesh lacks";
        return false;
      }
    }
  }
  for (const std::string& axis : sharding.replicated) {
    if (!mesh->AxisSize(axis) || !used.insert(axis).second) {
      *why = "replicates axis '" + axis + "' twice or that the mesh lacks";
      return false;
    }
  }
  return true;
}

std::optional<pir::TensorSharding> Importer::ReadSharding(const AttrDict& attrs, int64_t rank, int line, int col) {
  std::vector<std::string> notes;
  std::optional<pir::TensorSharding> out;
  std::string error;
  if (const NamedAttr* attr = FindAttr(attrs, "sdy.sharding")) {
    bool per_value = !attr->value.empty() && attr->value[0].text == "sdy.sharding_per_value";
    if (per_value) {
      auto all = ShardyPerValueFromTrees(attr->value, &notes);
      if (all.ok() && !all->empty()) out = (*all)[0];
      if (!all.ok()) error = all.status().message();
    } else {
      auto one = ShardyFromTrees(attr->value, &notes);
      if (one.ok()) out = *one;
      if (!one.ok()) error = one.status().message();
    }
  } else if (auto round_trip = FrontendAttr(attrs, "xla.sdy.sharding")) {
    // The Shardy round-trip form keeps the attribute as a string.
    auto trees = ParseTrees(*round_trip, file_);
    if (!trees.ok() || trees->empty()) {
      error = "malformed xla.sdy.sharding";
    } else if ((*trees)[0].text == "sdy.sharding_per_value") {
      auto all = ShardyPerValueFromTrees(*trees, &notes);
      if (all.ok() && !all->empty()) out = (*all)[0];
      if (!all.ok()) error = all.status().message();
    } else {
      auto one = ShardyFromTrees(*trees, &notes);
      if (one.ok()) out = *one;
      if (!one.ok()) error = one.status().message();
    }
  } else if (const NamedAttr* gspmd = FindAttr(attrs, "mhlo.sharding")) {
    auto text = StringOf(gspmd->value);
    auto parsed = text ? ParseGspmd(*text) : StatusOr<std::vector<GspmdSharding>>(InvalidArgument("not a string"));
    if (parsed.ok() && !parsed->empty()) {
      const GspmdSharding& s = (*parsed)[0];
      if (s.kind == GspmdSharding::Kind::kManual) return std::nullopt;
      if (s.explicit_device_order) notes.push_back("explicit device order approximated by iota order");
      auto converted = gspmd_.Convert(s, rank);
      if (converted.ok() && !converted->mesh.empty()) out = *converted;
      if (!converted.ok()) error = converted.status().message();
    } else if (!parsed.ok()) {
      error = parsed.status().message();
    }
  }
  for (const std::string& note : notes) Warn(line, col, note);
  if (!error.empty()) {
    Warn(line, col, "sharding ignored: " + error);
    return std::nullopt;
  }
  if (!out) return std::nullopt;
  std::string why;
  if (!ValidSharding(*out, rank, &why)) {
    Warn(line, col, "sharding ignored: it " + why);
    return std::nullopt;
  }
  return out;
}

void Importer::Pin(pir::ValueId value, const pir::TensorSharding& sharding, int line, int col) {
  std::string why;
  if (!ValidSharding(sharding, program_.graph.type(value).rank(), &why)) {
    Warn(line, col, "sharding constraint ignored: it " + why);
    return;
  }
  auto [it, inserted] = program_.pinned.emplace(value, sharding);
  if (!inserted && it->second != sharding)
    Warn(line, col, "a value is pinned to two different shardings; the first wins");
}

Status Importer::Lookup(const Scope& scope, const std::string& name, int line, int col, Binding* out) const {
  auto it = scope.find(name);
  if (it == scope.end()) return Error(line, col, "unknown value '%" + name + "'");
  *out = it->second;
  return Status::Ok();
}

Status Importer::Materialize(Binding& binding, int line, int col) {
  if (!binding.pending_local) return Status::Ok();
  Operation at;
  at.name = "stablehlo.custom_call";
  at.line = line;
  at.col = col;
  binding.id = EmitCustom("SPMDFullToShardShape", at, {binding.id}, binding.type, 0,
                          "a manual (shard_map) value used outside a manual call: imported at its local shape");
  binding.pending_local = false;
  return Status::Ok();
}

Status Importer::WalkBlock(const Block& block, Scope& scope, std::vector<Binding>* returned) {
  for (const Operation& op : block.ops) {
    if (!IsTerminator(op.name)) {
      AZ_RETURN_IF_ERROR(ImportOp(op, scope));
      continue;
    }
    std::vector<std::string> names = op.generic ? op.operands : PrettyOperands(op);
    for (const std::string& name : names) {
      Binding b;
      AZ_RETURN_IF_ERROR(Lookup(scope, name, op.line, op.col, &b));
      returned->push_back(std::move(b));
    }
    return Status::Ok();
  }
  return Status::Ok();
}

Status Importer::InlineCall(const Operation& op, const std::string& callee, std::vector<Binding> operands,
                            std::vector<Binding>* results) {
  if (call_stack_.size() >= kMaxCallDepth) {
    return Error(op.line, op.col, "calls nest deeper than " + std::to_string(kMaxCallDepth) + " levels");
  }
  if (std::find(call_stack_.begin(), call_stack_.end(), callee) != call_stack_.end()) {
    return Error(op.line, op.col, "recursive call to @" + callee + " (cyclic calls cannot be inlined)");
  }
  auto it = funcs_.find(callee);
  if (it == funcs_.end()) return Error(op.line, op.col, "call to unknown function @" + callee);
  const Func& func = *it->second;
  if (!func.has_body || func.body.blocks.size() != 1) {
    return Error(op.line, op.col, "@" + callee + " has no body or more than one block");
  }
  if (func.args.size() != operands.size()) {
    return Error(op.line, op.col,
                 "@" + callee + " takes " + std::to_string(func.args.size()) + " arguments, the call passes " +
                     std::to_string(operands.size()));
  }
  Scope inner;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].type != func.args[i].type) {
      return Error(op.line, op.col,
                   "type mismatch: argument " + std::to_string(i) + " of @" + callee + " is " +
                       func.args[i].type.ToString() + ", the call passes " + operands[i].type.ToString());
    }
    inner[func.args[i].name] = std::move(operands[i]);
  }
  call_stack_.push_back(callee);
  Status status = WalkBlock(func.body.blocks[0], inner, results);
  call_stack_.pop_back();
  AZ_RETURN_IF_ERROR(status);
  if (static_cast<int64_t>(results->size()) != op.NumResults()) {
    return Error(op.line, op.col,
                 "@" + callee + " returns " + std::to_string(results->size()) + " values, the call expects " +
                     std::to_string(op.NumResults()));
  }
  return Status::Ok();
}

Status Importer::ImportOp(const Operation& op, Scope& scope) {
  if (++op_budget_used_ > options_.max_ops) {
    return Error(op.line, op.col,
                 "the program has more than " + std::to_string(options_.max_ops) + " ops (after inlining)",
                 StatusCode::kResourceExhausted);
  }
  std::vector<std::string> names = op.generic ? op.operands : PrettyOperands(op);
  std::vector<Binding> operands(names.size());
  for (size_t i = 0; i < names.size(); ++i) AZ_RETURN_IF_ERROR(Lookup(scope, names[i], op.line, op.col, &operands[i]));
  if (op.functional_type) {
    if (op.input_types.size() != operands.size()) {
      return Error(op.line, op.col,
                   "'" + op.name + "' has " + std::to_string(operands.size()) + " operands, its type lists " +
                       std::to_string(op.input_types.size()));
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      if (operands[i].type != op.input_types[i]) {
        return Error(op.line, op.col,
                     "type mismatch: operand " + std::to_string(i) + " of '" + op.name + "' is " +
                         operands[i].type.ToString() + ", its type says " + op.input_types[i].ToString());
      }
    }
  }
  int64_t n = op.NumResults();
  std::vector<pir::TensorType> declared = op.result_types;
  if (!op.functional_type && n == 1 && !declared.empty()) declared = {declared.back()};
  if (static_cast<int64_t>(declared.size()) != n) {
    return Error(op.line, op.col,
                 "'" + op.name + "' defines " + std::to_string(n) + " results, its type lists " +
                     std::to_string(declared.size()));
  }
  std::vector<Binding> results;
  if (op.name == "func.call" || op.name == "call") {
    std::string callee;
    if (auto attr = OpAttr(op, "callee"); attr && !attr->empty()) callee = (*attr)[0].text;
    for (const Tree& tree : op.body) {
      if (tree.kind == TokenKind::kSymbol && callee.empty()) callee = tree.text;
    }
    bool manual = std::any_of(operands.begin(), operands.end(), [](const Binding& b) { return b.pending_local; });
    auto it = funcs_.find(callee);
    if (manual && mode_ == Mode::kNormal && it != funcs_.end() && it->second->has_body &&
        it->second->body.blocks.size() == 1 && it->second->args.size() == operands.size()) {
      std::vector<pir::TensorSharding> in;
      std::set<std::string> axes;
      for (const Binding& b : operands) {
        pir::TensorSharding s = b.constraint.value_or(pir::TensorSharding{});
        if (!b.pending_local || s.mesh.empty()) {
          s.mesh = "";
          s.dim_axes.assign(static_cast<size_t>(b.type.rank()), {});
        }
        if (const pir::Mesh* mesh = program_.graph.FindMesh(s.mesh)) {
          for (const auto& [axis, size] : mesh->axes) axes.insert(axis);
        }
        in.push_back(std::move(s));
      }
      if (std::find(call_stack_.begin(), call_stack_.end(), callee) != call_stack_.end()) {
        return Error(op.line, op.col, "recursive call to @" + callee + " (cyclic calls cannot be inlined)");
      }
      call_stack_.push_back(callee);
      Status status =
          ImportManual(op, it->second->body.blocks[0], it->second->args, operands, in, {}, axes, {}, &results);
      call_stack_.pop_back();
      AZ_RETURN_IF_ERROR(status);
    } else {
      for (Binding& b : operands) AZ_RETURN_IF_ERROR(Materialize(b, op.line, op.col));
      AZ_RETURN_IF_ERROR(InlineCall(op, callee, operands, &results));
    }
  } else if (op.name == "sdy.manual_computation") {
    for (Binding& b : operands) AZ_RETURN_IF_ERROR(Materialize(b, op.line, op.col));
    if (mode_ != Mode::kNormal) {
      if (manual_) manual_->Fail("nested manual computation");
      return Error(op.line, op.col, "nested manual computations are not supported");
    }
    AZ_RETURN_IF_ERROR(ImportSdyManual(op, operands, &results));
  } else {
    bool is_shard_to_full = false;
    if (op.name == "stablehlo.custom_call") {
      std::string target =
          OpAttr(op, "call_target_name").value_or(Trees{}).empty() ? "" : OpAttr(op, "call_target_name")->front().text;
      for (const Tree& tree : op.body) {
        if (tree.kind == TokenKind::kSymbol && target.empty()) target = tree.text;
      }
      is_shard_to_full = target == "Sharding" || target == "SPMDShardToFullShape" || target == "SPMDFullToShardShape" ||
                         target == "xla.sdy.GlobalToLocalShape" || target == "xla.sdy.LocalToGlobalShape";
    }
    if (!is_shard_to_full) {
      for (Binding& b : operands) AZ_RETURN_IF_ERROR(Materialize(b, op.line, op.col));
    }
    int first = manual_seq_;
    if (mode_ != Mode::kNormal) manual_seq_ += static_cast<int>(n);
    if (mode_ == Mode::kAnalyze) {
      for (int64_t k = 0; k < n; ++k) {
        ManualValue value;
        value.local = declared[static_cast<size_t>(k)];
        for (int64_t d = 0; d < value.local.rank(); ++d) value.vars.push_back(manual_->NewVar());
        manual_->values.push_back(std::move(value));
        Binding b;
        b.type = declared[static_cast<size_t>(k)];
        b.manual = first + static_cast<int>(k);
        results.push_back(std::move(b));
      }
      AnalyzeOp(op, operands, first);
      if (op.name == "stablehlo.constant" || op.name == "sdy.constant") {
        if (const std::optional<double> splat =
                SplatOf(op.body.empty() ? OpAttr(op, "value").value_or(Trees{}) : op.body,
                        declared.empty() ? pir::DType::kF32 : declared[0].dtype);
            splat && !results.empty()) {
          results[0].splat = splat;
        }
      }
    } else {
      std::vector<pir::TensorType> targets = declared;
      if (mode_ == Mode::kEmitGlobal) {
        for (int64_t k = 0; k < n; ++k) {
          if (auto global = manual_->GlobalType(first + static_cast<int>(k))) targets[static_cast<size_t>(k)] = *global;
        }
      }
      AZ_RETURN_IF_ERROR(LowerOp(op, operands, targets, &results));
      for (int64_t k = 0; k < n && mode_ == Mode::kEmitGlobal && k < static_cast<int64_t>(results.size()); ++k) {
        results[static_cast<size_t>(k)].manual = first + static_cast<int>(k);
        results[static_cast<size_t>(k)].type = declared[static_cast<size_t>(k)];
      }
    }
  }
  if (static_cast<int64_t>(results.size()) != n) {
    return Error(op.line, op.col,
                 "'" + op.name + "' produced " + std::to_string(results.size()) + " values for " + std::to_string(n) +
                     " results");
  }
  size_t k = 0;
  for (const ResultGroup& group : op.results) {
    if (group.count == 1) {
      scope[group.name] = results[k++];
      continue;
    }
    for (int64_t i = 0; i < group.count; ++i) scope[group.name + "#" + std::to_string(i)] = results[k++];
  }
  return Status::Ok();
}

Status Importer::ImportEntry(const Func& func) {
  if (!func.has_body || func.body.blocks.size() != 1) {
    return Error(func.line, func.col, "the entry function has no body or more than one block");
  }
  Scope scope;
  for (size_t i = 0; i < func.args.size(); ++i) {
    const BlockArg& arg = func.args[i];
    std::string name = "%" + arg.name;
    if (auto info = FindAttr(arg.attrs, "jax.arg_info"); info && StringOf(info->value)) {
      name = *StringOf(info->value);
    } else if (auto info_fe = FrontendAttr(arg.attrs, "jax.arg_info"); info_fe && !info_fe->empty()) {
      name = *info_fe;
    } else if (auto name_fe = FrontendAttr(arg.attrs, "name"); name_fe && !name_fe->empty()) {
      name = *name_fe;
    } else if (std::string loc = LocName(arg.loc); !loc.empty()) {
      name = loc;
    }
    pir::ValueId leaf = program_.graph.AddLeaf(pir::ValueRole::kInput, name, arg.type, Loc(arg.line, arg.col));
    if (auto sharding = ReadSharding(arg.attrs, arg.type.rank(), arg.line, arg.col)) {
      program_.graph.mutable_value(leaf).sharding = *sharding;
    }
    Binding b;
    b.id = leaf;
    b.type = arg.type;
    scope[arg.name] = b;
    program_.arguments.push_back({name, leaf});
  }
  std::vector<Binding> returned;
  call_stack_.push_back(func.name);
  AZ_RETURN_IF_ERROR(WalkBlock(func.body.blocks[0], scope, &returned));
  call_stack_.pop_back();
  if (returned.size() != func.results.size()) {
    return Error(func.line, func.col,
                 "@" + func.name + " returns " + std::to_string(returned.size()) + " values, its type lists " +
                     std::to_string(func.results.size()));
  }
  for (size_t i = 0; i < returned.size(); ++i) {
    Binding& b = returned[i];
    AZ_RETURN_IF_ERROR(Materialize(b, func.line, func.col));
    const FuncResult& result = func.results[i];
    if (program_.graph.type(b.id) != result.type) {
      return Error(func.line, func.col,
                   "type mismatch: result " + std::to_string(i) + " is " + program_.graph.type(b.id).ToString() +
                       ", @" + func.name + " declares " + result.type.ToString());
    }
    program_.graph.AddOutput(b.id);
    std::string name = "%result" + std::to_string(i);
    if (auto info = FindAttr(result.attrs, "jax.result_info");
        info && StringOf(info->value) && !StringOf(info->value)->empty()) {
      name = *StringOf(info->value);
    }
    if (auto sharding = ReadSharding(result.attrs, result.type.rank(), func.line, func.col)) {
      if (!program_.graph.value(b.id).sharding) program_.graph.mutable_value(b.id).sharding = *sharding;
    }
    program_.results.push_back({name, b.id});
  }
  return Status::Ok();
}

StatusOr<ImportedProgram> Importer::Run() {
  AZ_RETURN_IF_ERROR(CollectMeshes());
  for (const pir::Mesh& mesh : meshes_) program_.graph.AddMesh(mesh);
  const Func* entry = nullptr;
  for (const Func& func : module_.funcs) {
    if (func.name == "main") entry = &func;
  }
  for (const Func& func : module_.funcs) {
    if (!entry && func.visibility != "private" && func.has_body) entry = &func;
  }
  if (!entry) return Error(1, 1, "the file has no entry function (@main or a public func.func)");
  if (const NamedAttr* parts = FindAttr(module_.attrs, "mhlo.num_partitions")) {
    if (auto n = IntOf(parts->value)) program_.graph.attrs().Set("num_partitions", *n);
  }
  AZ_RETURN_IF_ERROR(ImportEntry(*entry));
  ClassifyParameters();
  AZ_RETURN_IF_ERROR(FinishImport(program_, options_));
  return std::move(program_);
}

}  // namespace shlo

StatusOr<ImportedProgram> ImportStableHlo(std::string_view text, std::string file_name, const ImportOptions& options) {
  AZ_ASSIGN_OR_RETURN(shlo::Module module, shlo::ParseMlir(text, file_name));
  SourceBuffer source(file_name, std::string(text));
  Importer importer(module, file_name, &source, options);
  return importer.Run();
}

StatusOr<ImportedProgram> ImportStableHloFile(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return NotFound("cannot open '" + path + "'");
  std::streamoff size = in.tellg();
  if (size > (std::streamoff{1} << 30)) {
    return ResourceExhausted("'" + path + "' is larger than 1 GiB (" + std::to_string(size) + " bytes)");
  }
  in.seekg(0);
  std::string text(static_cast<size_t>(std::max<std::streamoff>(size, 0)), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return ImportStableHlo(text, path, options);
}

StatusOr<std::vector<ManualCollective>> ListManualCollectives(std::string_view text, std::string file_name) {
  AZ_ASSIGN_OR_RETURN(shlo::Module module, shlo::ParseMlir(text, file_name));
  SourceBuffer source(file_name, std::string(text));
  Importer importer(module, file_name, &source, ImportOptions{});
  AZ_RETURN_IF_ERROR(importer.CollectMeshes());
  const pir::Mesh* mesh = importer.meshes().empty() ? nullptr : &importer.meshes()[0];
  std::vector<ManualCollective> out;
  std::function<void(const shlo::Region&, int)> walk = [&](const shlo::Region& region, int depth) {
    if (depth > shlo::kMaxNesting) return;
    for (const shlo::Block& block : region.blocks) {
      for (const shlo::Operation& op : block.ops) {
        static const char* kKinds[] = {"all_gather", "all_reduce", "reduce_scatter", "all_to_all",
                                       "collective_permute"};
        for (const char* kind : kKinds) {
          if (op.name != std::string("stablehlo.") + kind) continue;
          ManualCollective c;
          c.kind = kind;
          c.loc = SourceLocation::Text(file_name, op.line, op.col);
          if (!op.input_types.empty()) c.bytes = op.input_types[0].NumBytes();
          if (mesh) {
            c.mesh = mesh->name;
            auto groups = shlo::Ints2DOf(shlo::OpAttr(op, "replica_groups").value_or(shlo::Trees{}));
            if (!groups) groups = shlo::Ints2DOf(shlo::OpAttr(op, "source_target_pairs").value_or(shlo::Trees{}));
            if (groups && c.kind != "collective_permute") {
              if (auto axes = shlo::GroupAxes(*mesh, *groups); axes.ok()) c.axes = *axes;
            }
          }
          out.push_back(std::move(c));
        }
        for (const shlo::Region& inner : op.regions) walk(inner, depth + 1);
      }
    }
  };
  for (const shlo::Func& func : module.funcs) walk(func.body, 0);
  return out;
}

}  // namespace az::frontend
