// One StableHLO op -> PIR (importer.h). `targets` are the result types to
// produce: the declared ones, or in a manual body imported at global shapes
// the global ones (manual.cc), which is why shape attributes (broadcast and
// reshape shapes, slice limits, constant shapes) are read from `targets`.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "frontend/stablehlo/importer.h"
#include "pir/rules/rule.h"

namespace az::frontend::shlo {

namespace {

using pir::OpKind;

struct KindName {
  const char* name;
  OpKind kind;
};
constexpr KindName kElementwise[] = {
    {"add", OpKind::kAdd},     {"subtract", OpKind::kSub}, {"multiply", OpKind::kMul}, {"divide", OpKind::kDiv},
    {"maximum", OpKind::kMax}, {"minimum", OpKind::kMin},  {"power", OpKind::kPow},    {"exponential", OpKind::kExp},
    {"rsqrt", OpKind::kRsqrt}, {"sqrt", OpKind::kSqrt},    {"tanh", OpKind::kTanh},    {"logistic", OpKind::kSigmoid},
    {"negate", OpKind::kNeg},  {"log", OpKind::kLog},      {"sine", OpKind::kSin},     {"cosine", OpKind::kCos},
    {"abs", OpKind::kAbs},     {"erf", OpKind::kErf},      {"select", OpKind::kWhere},
};

std::string ShortName(const std::string& name) {
  for (const char* prefix : {"stablehlo.", "chlo.", "mhlo.", "sdy.", "func."}) {
    std::string_view p(prefix);
    if (name.compare(0, p.size(), p) == 0) return name.substr(p.size());
  }
  return name;
}

std::string CallTarget(const Operation& op) {
  if (auto attr = OpAttr(op, "call_target_name"); attr && !attr->empty()) return (*attr)[0].text;
  for (const Tree& tree : op.body) {
    if (tree.kind == TokenKind::kSymbol) return tree.text;
  }
  return "";
}

bool IsCollective(const std::string& s) {
  return s == "all_gather" || s == "all_reduce" || s == "reduce_scatter" || s == "all_to_all" ||
         s == "collective_permute" || s == "collective_broadcast";
}

// A logical reducer: or (PyTorch's any, as torch-xla writes it: or, then
// select(or, true, false)) -> "or"; and -> "and"; else "". The reduce
// handler maps them to max and min on booleans (exact there).
std::string LogicalReducer(const Block& block, std::vector<std::string> args) {
  std::string kind, combined;
  std::map<std::string, double> constants;
  for (const Operation& body : block.ops) {
    const std::string name = ShortName(body.name);
    std::vector<std::string> in = body.generic ? body.operands : PrettyOperands(body);
    if (name == "constant") {
      auto value = SplatOf(body.body.empty() ? OpAttr(body, "value").value_or(Trees{}) : body.body, pir::DType::kBool);
      if (value && body.results.size() == 1) constants[body.results[0].name] = *value;
      continue;
    }
    if ((name == "or" || name == "and") && kind.empty() && body.results.size() == 1) {
      std::sort(in.begin(), in.end());
      std::sort(args.begin(), args.end());
      if (in != args) return "";
      kind = name;
      combined = body.results[0].name;
    } else if (name == "select" && !kind.empty() && in.size() == 3 && in[0] == combined && body.results.size() == 1 &&
               constants.count(in[1]) && constants[in[1]] != 0 && constants.count(in[2]) && constants[in[2]] == 0) {
      combined = body.results[0].name;  // select(c, true, false) is c
    } else if (name == "return" && !kind.empty() && in.size() == 1 && in[0] == combined) {
      return kind;
    } else {
      return "";
    }
  }
  return "";
}

// The reducer of a reduce: "sum", "max", or "" when it is something else.
std::string ReduceKind(const Operation& op) {
  for (size_t i = 0; i + 1 < op.body.size(); ++i) {
    if (op.body[i].IsIdent("applies")) {
      const std::string& name = op.body[i + 1].text;
      return name == "stablehlo.add" ? "sum" : name == "stablehlo.maximum" ? "max" : "";
    }
  }
  if (op.regions.size() != 1 || op.regions[0].blocks.size() != 1) return "";
  const Block& block = op.regions[0].blocks[0];
  std::vector<std::string> args;
  for (const BlockArg& arg : block.args) args.push_back(arg.name);
  if (args.empty() && !op.arg_lists.empty()) {
    for (const BlockArg& arg : op.arg_lists.back()) args.push_back(arg.name);
  }
  if (std::string logical = LogicalReducer(block, args); !logical.empty()) return logical;
  if (block.ops.size() != 2 || args.size() != 2 || block.ops[0].results.size() != 1) return "";
  const Operation& body = block.ops[0];
  std::vector<std::string> in = body.generic ? body.operands : PrettyOperands(body);
  std::vector<std::string> out = block.ops[1].generic ? block.ops[1].operands : PrettyOperands(block.ops[1]);
  std::sort(in.begin(), in.end());
  std::sort(args.begin(), args.end());
  if (in != args || out.size() != 1 || out[0] != body.results[0].name) return "";
  if (body.name == "stablehlo.add") return "sum";
  if (body.name == "stablehlo.maximum") return "max";
  return "";
}

bool IsIdentity(const std::string& kind, std::optional<double> value, pir::DType dtype) {
  if (!value) return false;
  if (kind == "sum") return *value == 0.0;
  if (std::isinf(*value) && *value < 0) return true;
  double lowest = dtype == pir::DType::kF16 ? -65504.0 : dtype == pir::DType::kF64 ? -1.7976931348623157e308 : -3.38e38;
  if (!pir::IsFloat(dtype)) lowest = dtype == pir::DType::kI32 ? -2147483648.0 : -9.2e18;
  return *value <= lowest;
}

// Conv dim_numbers: three lists of 'b'/'f'/'i'/'o' or spatial indices (-1..).
struct ConvLayout {
  std::vector<int64_t> lhs, rhs, out;  // -1 b/o, -2 f/i, k >= 0 spatial k
};
std::optional<ConvLayout> ParseConvLayout(const Operation& op) {
  auto value = OpAttr(op, "dim_numbers");
  if (!value) value = OpAttr(op, "dimension_numbers");
  if (!value) return std::nullopt;
  const Trees* trees = &*value;
  for (const Tree& tree : *value) {
    if (tree.kind == TokenKind::kLAngle) trees = &tree.children;
  }
  std::vector<std::vector<int64_t>> lists;
  for (const Tree& tree : *trees) {
    if (tree.kind != TokenKind::kLBracket) continue;
    std::vector<int64_t> list;
    for (const Tree& item : tree.children) {
      if (item.kind == TokenKind::kComma) continue;
      if (item.IsIdent("b") || item.IsIdent("o")) {
        list.push_back(-1);
      } else if (item.IsIdent("f") || item.IsIdent("i")) {
        list.push_back(-2);
      } else if (auto v = IntOf({item}); v && *v >= 0 && *v < 64) {
        list.push_back(*v);
      } else {
        return std::nullopt;
      }
    }
    lists.push_back(std::move(list));
  }
  if (lists.size() != 3) return std::nullopt;
  // Each list names b/o, f/i and every spatial dim 0..n-1 exactly once.
  for (const std::vector<int64_t>& list : lists) {
    std::vector<int64_t> sorted = list;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (sorted[i] != static_cast<int64_t>(i) - 2) return std::nullopt;
    }
  }
  return ConvLayout{lists[0], lists[1], lists[2]};
}

// a + sign * b as index arithmetic (IotaForm), where each side is index
// arithmetic or a splat constant; nullopt when it is not expressible (an
// iota minus itself, two dims on one side).
std::optional<IotaForm> CombineIota(const Binding& a, const Binding& b, double sign) {
  auto form = [](const Binding& x) -> std::optional<IotaForm> {
    if (x.iota) return x.iota;
    if (x.splat) return IotaForm{-1, -1, *x.splat};
    return std::nullopt;
  };
  std::optional<IotaForm> fa = form(a), fb = form(b);
  if (!fa || !fb || (!a.iota && !b.iota)) return std::nullopt;
  if (sign < 0) {
    std::swap(fb->pos, fb->neg);
    fb->offset = -fb->offset;
  }
  IotaForm out{fa->pos, fa->neg, fa->offset + fb->offset};
  for (int64_t d : {fb->pos}) {
    if (d < 0) continue;
    if (out.neg == d) out.neg = -1;
    else if (out.pos < 0) out.pos = d;
    else return std::nullopt;
  }
  for (int64_t d : {fb->neg}) {
    if (d < 0) continue;
    if (out.pos == d) out.pos = -1;
    else if (out.neg < 0) out.neg = d;
    else return std::nullopt;
  }
  if (out.pos < 0 && out.neg < 0) return std::nullopt;
  return out;
}

// Position of `code` in `layout`, or -1.
int64_t PositionOf(const std::vector<int64_t>& layout, int64_t code) {
  auto it = std::find(layout.begin(), layout.end(), code);
  return it == layout.end() ? -1 : it - layout.begin();
}

}  // namespace

static std::vector<pir::ValueId> EmitCustomMulti(pir::Graph& graph, const std::string& name, const std::string& target,
                                                 std::vector<pir::ValueId> operands,
                                                 const std::vector<pir::TensorType>& types, int64_t flops,
                                                 const SourceLocation& loc) {
  pir::Attributes attrs;
  attrs.Set("target", target);
  if (flops > 0) attrs.Set("flops", flops);
  pir::OpId id = graph.AddOp(OpKind::kCustom, name, std::move(operands), types, attrs, loc);
  return graph.op(id).results;
}

pir::ValueId Importer::EmitCustom(const std::string& target, const Operation& op, std::vector<pir::ValueId> operands,
                                  const pir::TensorType& type, int64_t flops, const std::string& warning) {
  if (!warning.empty()) Warn(op.line, op.col, warning);
  return EmitCustomMulti(program_.graph, OpName(op), target, std::move(operands), {type}, flops,
                         Loc(op.line, op.col))[0];
}

pir::ValueId Importer::Emit(OpKind kind, const Operation& op, std::vector<pir::ValueId> operands, pir::Attributes attrs,
                            const pir::TensorType& target, const std::string& why_custom) {
  std::vector<pir::TensorType> types;
  for (pir::ValueId v : operands) types.push_back(program_.graph.type(v));
  std::string reason = why_custom;
  if (reason.empty()) {
    auto inferred = pir::InferResultTypes(kind, types, attrs, {target});
    if (!inferred.ok()) {
      reason = inferred.status().message();
    } else if (inferred->size() != 1 || (*inferred)[0] != target) {
      reason = "PIR infers " + (inferred->empty() ? std::string("nothing") : (*inferred)[0].ToString()) +
               ", the op declares " + target.ToString();
    }
  }
  if (!reason.empty()) {
    return EmitCustom(ShortName(op.name), op, std::move(operands), target, 0,
                      "'" + op.name + "' cannot be PIR '" + std::string(pir::OpKindName(kind)) + "' (" + reason +
                          "): imported as custom");
  }
  pir::OpId id =
      program_.graph.AddOp(kind, OpName(op), std::move(operands), {target}, std::move(attrs), Loc(op.line, op.col));
  return program_.graph.op(id).results[0];
}

Status Importer::LowerOp(const Operation& op, const std::vector<Binding>& operands,
                         const std::vector<pir::TensorType>& targets, std::vector<Binding>* results) {
  const std::string name = ShortName(op.name);
  std::vector<pir::ValueId> ids;
  for (const Binding& b : operands) ids.push_back(b.id);
  auto push = [&](pir::ValueId id, const pir::TensorType& type) {
    Binding b;
    b.id = id;
    b.type = type;
    results->push_back(std::move(b));
  };
  auto custom_all = [&](const std::string& target, int64_t flops, const std::string& warning) {
    if (targets.empty()) {
      Warn(op.line, op.col, "'" + op.name + "' has no results: dropped");
      return;
    }
    if (!warning.empty()) Warn(op.line, op.col, warning);
    auto values = EmitCustomMulti(program_.graph, OpName(op), target, ids, targets, flops, Loc(op.line, op.col));
    for (size_t i = 0; i < values.size(); ++i) push(values[i], targets[i]);
  };
  const pir::TensorType* target = targets.size() == 1 ? &targets[0] : nullptr;

  if (name == "optimization_barrier" || name == "propagation_barrier" || name == "sharding_constraint" ||
      name == "reshard") {
    if (operands.size() != targets.size())
      return Error(op.line, op.col, "'" + op.name + "' needs one result per operand");
    for (size_t i = 0; i < operands.size(); ++i) {
      Binding b = operands[i];
      b.type = operands[i].type;
      results->push_back(std::move(b));
    }
    if ((name == "sharding_constraint" || name == "reshard") && !ids.empty()) {
      Trees trees = op.body;
      if (auto attr = OpAttr(op, "sharding")) trees = *attr;
      std::vector<std::string> notes;
      if (auto s = ShardyFromTrees(trees, &notes); s.ok()) {
        Pin(ids[0], *s, op.line, op.col);
        (*results)[0].constraint = *s;
      } else {
        Warn(op.line, op.col, "sharding constraint ignored: " + s.status().message());
      }
      for (const std::string& note : notes) Warn(op.line, op.col, note);
    }
    return Status::Ok();
  }
  if (name == "sharding_group") return Status::Ok();

  if (name == "custom_call") {
    std::string call = CallTarget(op);
    if (call == "Sharding" && operands.size() == 1 && target) {
      Binding b = operands[0];
      b.type = *target;
      if (auto s = ReadSharding(op.attrs, target->rank(), op.line, op.col)) {
        Pin(b.id, *s, op.line, op.col);
        b.constraint = *s;
      }
      results->push_back(std::move(b));
      return Status::Ok();
    }
    if ((call == "SPMDFullToShardShape" || call == "xla.sdy.GlobalToLocalShape") && operands.size() == 1 && target &&
        mode_ == Mode::kNormal) {
      Binding b = operands[0];
      b.type = *target;
      b.pending_local = true;
      results->push_back(std::move(b));
      return Status::Ok();
    }
    if ((call == "SPMDShardToFullShape" || call == "xla.sdy.LocalToGlobalShape") && operands.size() == 1 && target &&
        program_.graph.type(ids[0]) == *target) {
      push(ids[0], *target);
      if (auto s = ReadSharding(op.attrs, target->rank(), op.line, op.col)) Pin(ids[0], *s, op.line, op.col);
      return Status::Ok();
    }
    custom_all(call.empty() ? "custom_call" : call, 0, "custom call @" + call + " imported as custom");
    return Status::Ok();
  }

  if (IsCollective(name)) {
    if (mode_ == Mode::kEmitGlobal && ids.size() == 1 && target && program_.graph.type(ids[0]) == *target) {
      push(ids[0], *target);  // at global shapes a collective is the identity
      return Status::Ok();
    }
    custom_all(name, 0,
               "collective '" + op.name + "' outside a manual computation imported as custom at its local shape");
    return Status::Ok();
  }

  if ((name == "constant" || name == "iota") && target) {
    pir::ValueId leaf = program_.graph.AddLeaf(pir::ValueRole::kConstant, OpName(op), *target, Loc(op.line, op.col));
    push(leaf, *target);
    if (name == "constant") {
      results->back().splat = SplatOf(op.body.empty() ? OpAttr(op, "value").value_or(Trees{}) : op.body, target->dtype);
      if (results->back().splat) program_.splats[leaf] = *results->back().splat;
    }
    if (name == "iota") {
      auto dim = IntOf(OpAttr(op, "iota_dimension").value_or(OpAttr(op, "dim").value_or(Trees{})));
      if (dim && *dim >= 0 && *dim < target->rank()) results->back().iota = IotaForm{*dim, -1, 0};
    }
    return Status::Ok();
  }
  // Booleans: not(x) is x == false, and/or are min/max (exact on i1). The
  // attribute `logical` keeps the source op for the attention fold.
  if ((name == "not" || name == "and" || name == "or") && target && target->dtype == pir::DType::kBool &&
      ids.size() == (name == "not" ? 1u : 2u)) {
    pir::Attributes attrs;
    attrs.Set("logical", name);
    if (name == "not") {
      pir::ValueId no = program_.graph.AddLeaf(pir::ValueRole::kConstant, OpName(op) + ".false",
                                               pir::TensorType{pir::DType::kBool, {}}, Loc(op.line, op.col));
      program_.splats[no] = 0;
      attrs.Set("direction", std::string("EQ"));
      push(Emit(OpKind::kCompare, op, {ids[0], no}, attrs, *target), *target);
    } else {
      push(Emit(name == "and" ? OpKind::kMin : OpKind::kMax, op, ids, attrs, *target), *target);
    }
    return Status::Ok();
  }

  if (!target) {
    custom_all(name, 0, "unsupported op '" + op.name + "' imported as custom");
    return Status::Ok();
  }

  for (const KindName& entry : kElementwise) {
    if (name != entry.name) continue;
    size_t arity = entry.kind == OpKind::kWhere ? 3 : pir::GetOpKindInfo(entry.kind).max_operands;
    if (ids.size() != arity) break;
    push(Emit(entry.kind, op, ids, {}, *target), *target);
    if (entry.kind == OpKind::kAdd || entry.kind == OpKind::kSub) {
      results->back().iota = CombineIota(operands[0], operands[1], entry.kind == OpKind::kSub ? -1.0 : 1.0);
    }
    return Status::Ok();
  }
  if (name == "square" && ids.size() == 1) {  // chlo.square: x * x
    push(Emit(OpKind::kMul, op, {ids[0], ids[0]}, {}, *target), *target);
    return Status::Ok();
  }
  if (name == "convert" && ids.size() == 1) {
    pir::Attributes attrs;
    attrs.Set("dtype", std::string(pir::DTypeName(target->dtype)));
    push(Emit(OpKind::kConvert, op, ids, attrs, *target), *target);
    results->back().iota = operands[0].iota;
    return Status::Ok();
  }
  if (name == "compare" && ids.size() == 2) {
    auto dir = FindWord(op.body, {"EQ", "NE", "LT", "LE", "GT", "GE"});
    if (!dir)
      dir = FindWord(OpAttr(op, "comparison_direction").value_or(Trees{}), {"EQ", "NE", "LT", "LE", "GT", "GE"});
    pir::Attributes attrs;
    attrs.Set("direction", dir.value_or(""));
    // lhs - rhs = iota(pos) - iota(neg) + offset, both dims present: a band
    // of the index difference (a causal or sliding-window mask).
    if (std::optional<IotaForm> diff = CombineIota(operands[0], operands[1], -1.0);
        diff && diff->pos >= 0 && diff->neg >= 0 && diff->offset == std::floor(diff->offset)) {
      attrs.Set("iota_pos", diff->pos);
      attrs.Set("iota_neg", diff->neg);
      attrs.Set("iota_offset", static_cast<int64_t>(diff->offset));
    }
    push(Emit(OpKind::kCompare, op, ids, attrs, *target, dir ? "" : "no comparison direction"), *target);
    return Status::Ok();
  }
  if (name == "broadcast_in_dim" && ids.size() == 1) {
    auto dims = IntsOf(OpAttr(op, "dims").value_or(OpAttr(op, "broadcast_dimensions").value_or(Trees{})));
    pir::ValueId x = ids[0];
    std::string why = dims ? "" : "no broadcast dimensions";
    if (dims && !std::is_sorted(dims->begin(), dims->end()) &&
        dims->size() == static_cast<size_t>(operands[0].type.rank())) {
      // PIR wants increasing dims: transpose the operand first.
      std::vector<int64_t> perm(dims->size());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
      std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return (*dims)[a] < (*dims)[b]; });
      pir::TensorType t = program_.graph.type(x);
      pir::TensorType moved = t;
      for (size_t i = 0; i < perm.size(); ++i) moved.shape[i] = t.shape[perm[i]];
      pir::Attributes attrs;
      attrs.Set("perm", perm);
      x = Emit(OpKind::kTranspose, op, {x}, attrs, moved);
      std::sort(dims->begin(), dims->end());
    }
    pir::Attributes attrs;
    attrs.Set("shape", target->shape);
    attrs.Set("dims", dims.value_or(std::vector<int64_t>{}));
    push(Emit(OpKind::kBroadcast, op, {x}, attrs, *target, why), *target);
    results->back().splat = operands[0].splat;  // a broadcast splat is a splat
    // Index arithmetic keeps its meaning on the broadcast dims (in the source's
    // order: the dims list as written, before any sort above).
    if (operands[0].iota && x == ids[0] && dims) {
      IotaForm form = *operands[0].iota;
      auto remap = [&](int64_t d) { return d < 0 || d >= static_cast<int64_t>(dims->size()) ? int64_t{-1} : (*dims)[static_cast<size_t>(d)]; };
      const bool pos_ok = form.pos < 0 || remap(form.pos) >= 0, neg_ok = form.neg < 0 || remap(form.neg) >= 0;
      if (pos_ok && neg_ok) {
        if (form.pos >= 0) form.pos = remap(form.pos);
        if (form.neg >= 0) form.neg = remap(form.neg);
        results->back().iota = form;
      }
    }
    return Status::Ok();
  }
  if (name == "reshape" && ids.size() == 1) {
    pir::Attributes attrs;
    attrs.Set("shape", target->shape);
    push(Emit(OpKind::kReshape, op, ids, attrs, *target), *target);
    return Status::Ok();
  }
  if (name == "transpose" && ids.size() == 1) {
    auto perm = IntsOf(OpAttr(op, "dims").value_or(OpAttr(op, "permutation").value_or(Trees{})));
    pir::Attributes attrs;
    attrs.Set("perm", perm.value_or(std::vector<int64_t>{}));
    push(Emit(OpKind::kTranspose, op, ids, attrs, *target, perm ? "" : "no permutation"), *target);
    return Status::Ok();
  }
  if (name == "concatenate" && !ids.empty()) {
    auto dim = IntOf(OpAttr(op, "dim").value_or(OpAttr(op, "dimension").value_or(Trees{})));
    pir::Attributes attrs;
    attrs.Set("axis", dim.value_or(0));
    push(Emit(OpKind::kConcat, op, ids, attrs, *target, dim ? "" : "no concat dimension"), *target);
    return Status::Ok();
  }
  if (name == "slice" && ids.size() == 1) {
    std::vector<int64_t> start, limit, stride;
    if (auto s = IntsOf(OpAttr(op, "start_indices").value_or(Trees{}))) {
      start = *s;
      limit = IntsOf(OpAttr(op, "limit_indices").value_or(Trees{})).value_or(std::vector<int64_t>{});
      stride = IntsOf(OpAttr(op, "strides").value_or(Trees{})).value_or(std::vector<int64_t>(start.size(), 1));
    } else {
      for (const Tree& tree : op.body) {
        if (tree.kind != TokenKind::kLBracket) continue;
        std::vector<int64_t> parts;
        for (const Tree& item : tree.children) {
          if (item.kind == TokenKind::kComma || item.kind == TokenKind::kColon) {
            if (item.kind == TokenKind::kComma) {
              start.push_back(parts.size() > 0 ? parts[0] : 0);
              limit.push_back(parts.size() > 1 ? parts[1] : 0);
              stride.push_back(parts.size() > 2 ? parts[2] : 1);
              parts.clear();
            }
            continue;
          }
          parts.push_back(IntOf({item}).value_or(-1));
        }
        if (!parts.empty()) {
          start.push_back(parts[0]);
          limit.push_back(parts.size() > 1 ? parts[1] : 0);
          stride.push_back(parts.size() > 2 ? parts[2] : 1);
        }
      }
    }
    if (start.size() != limit.size() || stride.size() != limit.size()) {
      custom_all(name, 0, "slice with mismatched start/limit/stride lists imported as custom");
      return Status::Ok();
    }
    // At global shapes a whole dim (start 0, limit = local size) stays whole.
    const pir::TensorType& in = program_.graph.type(ids[0]);
    for (size_t d = 0; d < limit.size() && d < static_cast<size_t>(in.rank()); ++d) {
      if (d < static_cast<size_t>(operands[0].type.rank()) && start[d] == 0 && stride[d] == 1 &&
          limit[d] == operands[0].type.shape[d]) {
        limit[d] = in.shape[d];
      }
    }
    pir::Attributes attrs;
    attrs.Set("start", start);
    attrs.Set("limit", limit);
    attrs.Set("stride", stride);
    push(Emit(OpKind::kSlice, op, ids, attrs, *target), *target);
    return Status::Ok();
  }
  if (name == "reduce") {
    std::string kind = ReduceKind(op);
    if (kind == "or" || kind == "and") {
      // On booleans any is max and all is min; on integers they are bitwise.
      kind = operands.empty() || operands[0].type.dtype != pir::DType::kBool ? "" : kind == "or" ? "max" : "min";
    }
    auto dims = IntsOf(OpAttr(op, "dimensions").value_or(Trees{}));
    if (kind.empty() || ids.size() != 2 || !dims) {
      custom_all(name, 0, "reduce with an unsupported reducer or several operands imported as custom");
      return Status::Ok();
    }
    if (operands[1].type.dtype != pir::DType::kBool && !IsIdentity(kind, operands[1].splat, operands[1].type.dtype)) {
      Warn(op.line, op.col, "reduce's init value is not the identity of its reducer: dropped");
    }
    std::sort(dims->begin(), dims->end());
    pir::Attributes attrs;
    attrs.Set("dims", *dims);
    attrs.Set("kind", kind);
    push(Emit(OpKind::kReduce, op, {ids[0]}, attrs, *target), *target);
    return Status::Ok();
  }
  if (name == "dot_general" && ids.size() == 2) {
    std::vector<int64_t> lb, rb, lc, rc;
    DotDimsOf(op, &lb, &rb, &lc, &rc);
    const int64_t lr = operands[0].type.rank(), rr = operands[1].type.rank();
    std::string lhs(static_cast<size_t>(lr), '\0'), rhs(static_cast<size_t>(rr), '\0'), out;
    char next = 'a';
    auto fresh = [&]() -> char {
      char c = next;
      next = next == 'z' ? 'A' : next == 'Z' ? '\0' : static_cast<char>(next + 1);
      return c;
    };
    bool ok = lb.size() == rb.size() && lc.size() == rc.size() && lr + rr <= 52;
    auto set = [&](std::string& s, int64_t d, char c) {
      if (d < 0 || d >= static_cast<int64_t>(s.size()) || s[d] != '\0') ok = false;
      if (ok) s[d] = c;
    };
    for (size_t k = 0; ok && k < lb.size(); ++k) {
      char c = fresh();
      set(lhs, lb[k], c);
      set(rhs, rb[k], c);
      out += c;
    }
    for (size_t k = 0; ok && k < lc.size(); ++k) {
      char c = fresh();
      set(lhs, lc[k], c);
      set(rhs, rc[k], c);
    }
    for (std::string* s : {&lhs, &rhs}) {
      for (char& c : *s) {
        if (ok && c == '\0') out += (c = fresh());
      }
    }
    pir::Attributes attrs;
    attrs.Set("eq", ok ? lhs + "," + rhs + "->" + out : std::string());
    pir::TensorType promoted{pir::PromoteTypes(operands[0].type.dtype, operands[1].type.dtype), target->shape};
    pir::ValueId v = Emit(OpKind::kEinsum, op, ids, attrs, promoted, ok ? "" : "malformed dimension numbers");
    if (promoted.dtype != target->dtype) {
      pir::Attributes convert;
      convert.Set("dtype", std::string(pir::DTypeName(target->dtype)));
      v = Emit(OpKind::kConvert, op, {v}, convert, *target);
    }
    push(v, *target);
    return Status::Ok();
  }
  if (name == "convolution" && ids.size() == 2) {
    auto layout = ParseConvLayout(op);
    const pir::TensorType& w = operands[1].type;
    int64_t groups = IntOf(OpAttr(op, "feature_group_count").value_or(Trees{})).value_or(1);
    int64_t batch_groups = IntOf(OpAttr(op, "batch_group_count").value_or(Trees{})).value_or(1);
    std::optional<Trees> window = OpAttr(op, "window");
    Trees window_body = window && !window->empty() ? (*window)[0].children : Trees{};
    auto stride = IntsOf(BodyValue(window_body, "stride").value_or(OpAttr(op, "window_strides").value_or(Trees{})));
    auto pad = Ints2DOf(BodyValue(window_body, "pad").value_or(OpAttr(op, "padding").value_or(Trees{})));
    auto lhs_dilate =
        IntsOf(BodyValue(window_body, "lhs_dilate").value_or(OpAttr(op, "lhs_dilation").value_or(Trees{})));
    auto rhs_dilate =
        IntsOf(BodyValue(window_body, "rhs_dilate").value_or(OpAttr(op, "rhs_dilation").value_or(Trees{})));
    auto all_ones = [](const std::optional<std::vector<int64_t>>& v) {
      return !v || std::all_of(v->begin(), v->end(), [](int64_t x) { return x == 1; });
    };
    int64_t window_size = 1, in_features = 1;
    bool layout_ok = layout && static_cast<int64_t>(layout->rhs.size()) == w.rank();
    if (layout_ok) {
      for (size_t d = 0; d < layout->rhs.size(); ++d) {
        if (layout->rhs[d] >= 0) window_size *= w.shape[d];
        if (layout->rhs[d] == -2) in_features = w.shape[d];
      }
    }
    int64_t spatial = layout_ok ? static_cast<int64_t>(layout->rhs.size()) - 2 : 0;
    bool as_conv3d = layout_ok && spatial == 3 && groups == 1 && batch_groups == 1 && all_ones(lhs_dilate) &&
                     all_ones(rhs_dilate) && layout->lhs.size() == 5 && layout->out.size() == 5;
    std::vector<int64_t> padding(6, 0), strides = stride.value_or(std::vector<int64_t>(3, 1));
    if (as_conv3d && pad) {
      if (pad->size() != 3) as_conv3d = false;
      for (size_t k = 0; as_conv3d && k < 3; ++k) {
        if ((*pad)[k].size() != 2 || (*pad)[k][0] < 0 || (*pad)[k][1] < 0) as_conv3d = false;
        if (as_conv3d) padding[2 * k] = (*pad)[k][0], padding[2 * k + 1] = (*pad)[k][1];
      }
    }
    if (strides.size() != 3) as_conv3d = false;
    if (!as_conv3d) {
      // 2 x output elements x kernel window x input features per group.
      double flops = 2.0 * static_cast<double>(target->NumElements()) * static_cast<double>(window_size) *
                     static_cast<double>(in_features);
      custom_all("convolution", flops > 9e18 ? 0 : static_cast<int64_t>(flops),
                 "convolution that is not a 3-D, ungrouped, undilated conv imported as custom");
      return Status::Ok();
    }
    // PIR conv3d wants x [B, C, T, H, W], w [O, C, kt, kh, kw] and yields [B, O, T, H, W].
    auto move_to = [&](pir::ValueId v, const std::vector<int64_t>& layout_codes, int64_t first, int64_t second) {
      std::vector<int64_t> perm{PositionOf(layout_codes, first), PositionOf(layout_codes, second)};
      for (int64_t k = 0; k < 3; ++k) perm.push_back(PositionOf(layout_codes, k));
      bool identity = true;
      for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
      if (identity || std::count(perm.begin(), perm.end(), -1) > 0) return v;
      pir::TensorType t = program_.graph.type(v), moved = t;
      for (size_t i = 0; i < perm.size(); ++i) moved.shape[i] = t.shape[perm[i]];
      pir::Attributes attrs;
      attrs.Set("perm", perm);
      return Emit(OpKind::kTranspose, op, {v}, attrs, moved);
    };
    pir::ValueId x = move_to(ids[0], layout->lhs, -1, -2);
    pir::ValueId k = move_to(ids[1], layout->rhs, -1, -2);  // o is coded like b, i like f
    std::vector<int64_t> out_perm;                          // result dim i = PIR dim out_perm[i]
    for (int64_t code : layout->out) out_perm.push_back(code == -1 ? 0 : code == -2 ? 1 : 2 + code);
    pir::TensorType pir_type = *target;
    for (size_t i = 0; i < out_perm.size(); ++i) pir_type.shape[out_perm[i]] = target->shape[i];
    pir::Attributes attrs;
    attrs.Set("stride", strides);
    attrs.Set("padding", padding);
    pir::ValueId y = Emit(OpKind::kConv3d, op, {x, k}, attrs, pir_type);
    bool identity = true;
    for (size_t i = 0; i < out_perm.size(); ++i) identity = identity && out_perm[i] == static_cast<int64_t>(i);
    if (!identity) {
      pir::Attributes perm;
      perm.Set("perm", out_perm);
      y = Emit(OpKind::kTranspose, op, {y}, perm, *target);
    }
    push(y, *target);
    return Status::Ok();
  }
  custom_all(name, 0, "unsupported op '" + op.name + "' imported as custom");
  return Status::Ok();
}

}  // namespace az::frontend::shlo
