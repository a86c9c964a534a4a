// Manual computations at global shapes (import.h, "Manual computations").
// Size (630 lines): the two walks below share one union-find and one op
// dispatch, so they stay together.
//
// Two walks over the body. The analysis walk (Mode::kAnalyze) gives every
// dim of every body value a union-find variable; the in_shardings bind the
// arguments' variables to their manual axes, each op relates its operands'
// and results' variables (element-wise ops and reshapes unify them, a
// broadcast's new dims stay free until a user binds them, collectives move
// axes: all_gather over a group's axes G turns a dim split by [A.., G..] into
// one split by [A..]), and a conflict fails the reconstruction. Unbound
// variables end replicated. A value's global shape is its local shape with
// each dim multiplied by the sizes of its variable's axes. The emit walk
// (Mode::kEmitGlobal) then imports the body with the global operands, taking
// each op's result types from the analysis, and drops the collectives.
//
// Worked example (e2e_fsdp_tp_shardy, mesh x=2, y=4): the weight
// %arg14: 98x128 enters split [{"y","x"}, {}] (784 = 98 * 4 * 2);
// all_gather over x ([[0,4],[1,5],...] vary x) -> 196x128 split [{"y"}, {}];
// the dot with %arg26: 16x196 split [{"x"}, {"y"}] contracts dims both split
// by y -> 16x128 split [{"x"}, {}], partial over y; reduce_scatter over y on
// dim 1 -> 16x32 split [{"x"}, {"y"}] (global 32x128), no longer partial.
#include <algorithm>
#include <functional>

#include "frontend/stablehlo/importer.h"

namespace az::frontend::shlo {

// ---------------------------------------------------------------- ManualState

int ManualState::NewVar() {
  parent.push_back(static_cast<int>(parent.size()));
  bound.emplace_back();
  return parent.back();
}

int ManualState::Find(int var) {
  while (parent[var] != var) {
    parent[var] = parent[parent[var]];
    var = parent[var];
  }
  return var;
}

void ManualState::Fail(const std::string& message) {
  if (!failed) why = message;
  failed = true;
}

void ManualState::Bind(int var, const std::vector<std::string>& axes, const std::string& context) {
  int root = Find(var);
  if (!bound[root]) {
    bound[root] = axes;
  } else if (*bound[root] != axes) {
    Fail(context + ": a dim is split by two different axis lists");
  }
}

void ManualState::Unify(int a, int b, const std::string& context) {
  int ra = Find(a), rb = Find(b);
  if (ra == rb) return;
  if (bound[ra] && bound[rb] && *bound[ra] != *bound[rb]) {
    Fail(context + ": operands are split differently");
    return;
  }
  if (!bound[rb]) bound[rb] = bound[ra];
  parent[ra] = rb;
}

std::vector<std::string> ManualState::Axes(int var) {
  int root = Find(var);
  return bound[root].value_or(std::vector<std::string>{});
}

uint64_t ManualState::Mask(const std::vector<std::string>& axes) const {
  uint64_t mask = 0;
  for (const std::string& axis : axes) {
    for (size_t i = 0; mesh && i < mesh->axes.size() && i < 64; ++i) {
      if (mesh->axes[i].first == axis) mask |= uint64_t{1} << i;
    }
  }
  return mask;
}

std::optional<pir::TensorType> ManualState::GlobalType(int value) {
  if (value < 0 || value >= static_cast<int>(values.size()) || !mesh) return std::nullopt;
  const ManualValue& v = values[value];
  pir::TensorType type = v.local;
  int64_t elements = 1;
  for (size_t d = 0; d < v.vars.size(); ++d) {
    for (const std::string& axis : Axes(v.vars[d])) {
      int64_t size = mesh->AxisSize(axis).value_or(1);
      if (type.shape[d] > (int64_t{1} << 50) / size) return std::nullopt;
      type.shape[d] *= size;
    }
    if (type.shape[d] != 0 && elements > (int64_t{1} << 50) / type.shape[d]) return std::nullopt;
    elements *= type.shape[d];
  }
  return type;
}

// ---------------------------------------------------------------- analysis

namespace {

// a * b == c without overflow.
bool ProductIs(int64_t a, int64_t b, int64_t c) {
  int64_t product = 0;
  return !__builtin_mul_overflow(a, b, &product) && product == c;
}

bool EndsWith(const std::vector<std::string>& axes, const std::vector<std::string>& tail) {
  return axes.size() >= tail.size() &&
         std::equal(tail.begin(), tail.end(), axes.end() - static_cast<long>(tail.size()));
}

}  // namespace

void Importer::AnalyzeOp(const Operation& op, const std::vector<Binding>& operands, int first) {
  ManualState& st = *manual_;
  const std::string context = op.name + " at " + std::to_string(op.line) + ":" + std::to_string(op.col);
  std::string name = op.name.substr(op.name.find('.') == std::string::npos ? 0 : op.name.find('.') + 1);
  const int n = static_cast<int>(op.NumResults());
  auto operand = [&](size_t i) -> ManualValue* {
    if (i >= operands.size()) return nullptr;
    int m = operands[i].manual;
    return m >= 0 && m < static_cast<int>(st.values.size()) ? &st.values[m] : nullptr;
  };
  auto result = [&](int k) -> ManualValue& { return st.values[static_cast<size_t>(first + k)]; };
  for (const Binding& b : operands) {
    if (b.manual < 0 || b.manual >= static_cast<int>(st.arg_gathers.size())) continue;
    if (name == "all_gather" && operands.size() == 1 && n == 1) {
      st.arg_gathers[static_cast<size_t>(b.manual)].push_back(first);
    } else {
      st.arg_other_use[static_cast<size_t>(b.manual)] = true;
    }
  }
  uint64_t partial = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (ManualValue* v = operand(i)) partial |= v->partial;
  }
  for (int k = 0; k < n; ++k) result(k).partial = partial;
  auto same_dims = [&](const ManualValue& a, const ManualValue& b) {
    if (a.local.shape != b.local.shape) return false;
    for (size_t d = 0; d < a.vars.size(); ++d) st.Unify(a.vars[d], b.vars[d], context);
    return true;
  };
  auto group_axes = [&]() -> std::optional<std::vector<std::string>> {
    auto groups = Ints2DOf(OpAttr(op, "replica_groups").value_or(Trees{}));
    if (!groups || !st.mesh) return std::nullopt;
    auto axes = GroupAxes(*st.mesh, *groups);
    if (!axes.ok()) return std::nullopt;
    for (const std::string& axis : *axes) {
      if (!st.manual_axes.count(axis)) return std::nullopt;
    }
    return *axes;
  };
  ManualValue* x = operand(0);
  if (n == 0) return;
  ManualValue& r = result(0);

  if (name == "all_gather" || name == "reduce_scatter" || name == "all_reduce" || name == "all_to_all" ||
      name == "collective_permute" || name == "collective_broadcast") {
    std::optional<std::vector<std::string>> g =
        name == "collective_permute" || name == "collective_broadcast" ? std::vector<std::string>{} : group_axes();
    if (!g || !x || x->local.rank() != r.local.rank() || n != 1)
      return st.Fail(context + ": replica groups are not mesh axes");
    int64_t gsize = 1;
    for (const std::string& axis : *g) gsize *= st.mesh->AxisSize(axis).value_or(1);
    auto dim_of = [&](const char* key) {
      int64_t d = IntOf(OpAttr(op, key).value_or(Trees{})).value_or(-1);
      return d >= 0 && d < r.local.rank() ? d : -1;
    };
    int64_t gather = -1, scatter = -1;
    if (name == "all_gather") gather = dim_of("all_gather_dim");
    if (name == "reduce_scatter") scatter = dim_of("scatter_dimension");
    if (name == "all_to_all") scatter = dim_of("split_dimension"), gather = dim_of("concat_dimension");
    if ((name == "all_gather" && gather < 0) || ((name == "reduce_scatter" || name == "all_to_all") && scatter < 0)) {
      return st.Fail(context + ": collective dimension missing");
    }
    if (name == "all_to_all" && gather == scatter) gather = scatter = -1;
    for (int64_t d = 0; d < r.local.rank(); ++d) {
      if (d == gather) {
        if (!st.bound[st.Find(x->vars[d])]) st.Bind(x->vars[d], *g, context);
        std::vector<std::string> axes = st.Axes(x->vars[d]);
        if (!EndsWith(axes, *g) || !ProductIs(x->local.shape[d], gsize, r.local.shape[d])) {
          return st.Fail(context + ": the gathered dim is not split by the group's axes");
        }
        axes.resize(axes.size() - g->size());
        st.Bind(r.vars[d], axes, context);
      } else if (d == scatter) {
        std::vector<std::string> axes = st.Axes(x->vars[d]);
        st.Bind(x->vars[d], axes, context);
        axes.insert(axes.end(), g->begin(), g->end());
        if (!ProductIs(r.local.shape[d], gsize, x->local.shape[d]))
          return st.Fail(context + ": scatter sizes do not match");
        st.Bind(r.vars[d], axes, context);
      } else {
        if (x->local.shape[d] != r.local.shape[d]) return st.Fail(context + ": collective changes a dim it should not");
        st.Unify(x->vars[d], r.vars[d], context);
      }
    }
    if (name == "all_reduce" || name == "reduce_scatter") r.partial &= ~st.Mask(*g);
    return;
  }
  if (name == "broadcast_in_dim" && x) {
    auto dims = IntsOf(OpAttr(op, "dims").value_or(OpAttr(op, "broadcast_dimensions").value_or(Trees{})));
    if (!dims || static_cast<int64_t>(dims->size()) != x->local.rank()) return st.Fail(context + ": bad dims");
    for (size_t i = 0; i < dims->size(); ++i) {
      int64_t d = (*dims)[i];
      if (d < 0 || d >= r.local.rank()) return st.Fail(context + ": bad dims");
      if (x->local.shape[i] == r.local.shape[d]) {
        st.Unify(x->vars[i], r.vars[d], context);
      } else {
        st.Bind(x->vars[i], {}, context);
      }
    }
    return;
  }
  if (name == "transpose" && x) {
    auto perm = IntsOf(OpAttr(op, "dims").value_or(OpAttr(op, "permutation").value_or(Trees{})));
    if (!perm || static_cast<int64_t>(perm->size()) != r.local.rank() || x->local.rank() != r.local.rank()) {
      return st.Fail(context + ": bad permutation");
    }
    for (size_t d = 0; d < perm->size(); ++d) {
      if ((*perm)[d] < 0 || (*perm)[d] >= x->local.rank()) return st.Fail(context + ": bad permutation");
      st.Unify(x->vars[(*perm)[d]], r.vars[d], context);
    }
    return;
  }
  if (name == "reshape" && x) {
    // Groups of dims with equal products; only a group's first non-1 dims keep axes.
    const pir::Shape& in = x->local.shape;
    const pir::Shape& out = r.local.shape;
    size_t i = 0, j = 0;
    while (i < in.size() || j < out.size()) {
      while (i < in.size() && in[i] == 1) st.Bind(x->vars[i++], {}, context);
      while (j < out.size() && out[j] == 1) st.Bind(r.vars[j++], {}, context);
      if (i >= in.size() || j >= out.size()) break;
      st.Unify(x->vars[i], r.vars[j], context);
      int64_t pi = in[i++], pj = out[j++];
      while (pi != pj && (i < in.size() || j < out.size())) {
        if (pi < pj && i < in.size()) {
          st.Bind(x->vars[i], {}, context);
          pi *= in[i++];
        } else if (j < out.size()) {
          st.Bind(r.vars[j], {}, context);
          pj *= out[j++];
        } else {
          break;
        }
      }
      if (pi != pj) return st.Fail(context + ": reshape sizes do not match");
    }
    for (; i < in.size(); ++i) st.Bind(x->vars[i], {}, context);
    for (; j < out.size(); ++j) st.Bind(r.vars[j], {}, context);
    return;
  }
  if (name == "dot_general" && x && operand(1)) {
    ManualValue* y = operand(1);
    std::vector<int64_t> lb, rb, lc, rc;
    if (!DotDimsOf(op, &lb, &rb, &lc, &rc) || lb.size() != rb.size() || lc.size() != rc.size()) {
      return st.Fail(context + ": bad dimension numbers");
    }
    auto in_range = [](const std::vector<int64_t>& dims, int64_t rank) {
      return std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d >= 0 && d < rank; });
    };
    if (!in_range(lb, x->local.rank()) || !in_range(lc, x->local.rank()) || !in_range(rb, y->local.rank()) ||
        !in_range(rc, y->local.rank())) {
      return st.Fail(context + ": bad dimension numbers");
    }
    size_t out = 0;
    for (size_t k = 0; k < lb.size() && out < r.vars.size(); ++k, ++out) {
      st.Unify(x->vars[lb[k]], y->vars[rb[k]], context);
      st.Unify(x->vars[lb[k]], r.vars[out], context);
    }
    for (size_t k = 0; k < lc.size(); ++k) {
      st.Unify(x->vars[lc[k]], y->vars[rc[k]], context);
      r.partial |= st.Mask(st.Axes(x->vars[lc[k]]));
    }
    for (ManualValue* side : {x, y}) {
      const std::vector<int64_t>& batch = side == x ? lb : rb;
      const std::vector<int64_t>& contract = side == x ? lc : rc;
      for (int64_t d = 0; d < side->local.rank(); ++d) {
        if (std::count(batch.begin(), batch.end(), d) || std::count(contract.begin(), contract.end(), d)) continue;
        if (out >= r.vars.size()) return st.Fail(context + ": result rank does not match");
        st.Unify(side->vars[d], r.vars[out++], context);
      }
    }
    return;
  }
  if (name == "reduce" && x && operands.size() == 2) {
    auto dims = IntsOf(OpAttr(op, "dimensions").value_or(Trees{}));
    if (!dims) return st.Fail(context + ": bad dimensions");
    size_t out = 0;
    for (int64_t d = 0; d < x->local.rank(); ++d) {
      if (std::count(dims->begin(), dims->end(), d)) {
        r.partial |= st.Mask(st.Axes(x->vars[d]));
      } else if (out < r.vars.size()) {
        st.Unify(x->vars[d], r.vars[out++], context);
      }
    }
    return;
  }
  if (name == "concatenate") {
    int64_t axis = IntOf(OpAttr(op, "dim").value_or(OpAttr(op, "dimension").value_or(Trees{}))).value_or(-1);
    for (size_t i = 0; i < operands.size(); ++i) {
      ManualValue* v = operand(i);
      if (!v || v->local.rank() != r.local.rank()) return st.Fail(context + ": operand ranks differ");
      for (int64_t d = 0; d < r.local.rank(); ++d) {
        if (d == axis) {
          st.Bind(v->vars[d], {}, context);
          st.Bind(r.vars[d], {}, context);
        } else {
          st.Unify(v->vars[d], r.vars[d], context);
        }
      }
    }
    return;
  }
  if (name == "slice" && x && x->local.rank() == r.local.rank()) {
    for (int64_t d = 0; d < r.local.rank(); ++d) {
      if (x->local.shape[d] == r.local.shape[d]) {
        st.Unify(x->vars[d], r.vars[d], context);
      } else {
        st.Bind(x->vars[d], {}, context);
        st.Bind(r.vars[d], {}, context);
      }
    }
    return;
  }
  if (name == "constant" || name == "iota") return;
  bool pass_through = name == "optimization_barrier" || name == "propagation_barrier" ||
                      name == "sharding_constraint" || name == "reshard" ||
                      (name == "custom_call" && std::any_of(op.body.begin(), op.body.end(), [](const Tree& t) {
                         return t.kind == TokenKind::kSymbol && t.text == "Sharding";
                       }));
  if (pass_through && static_cast<int>(operands.size()) == n) {
    for (int k = 0; k < n; ++k) {
      ManualValue* v = operand(static_cast<size_t>(k));
      if (!v || !same_dims(*v, result(k))) return st.Fail(context + ": pass-through changes a type");
    }
    return;
  }
  // Element-wise: every operand of the result's shape shares its dims.
  bool elementwise = n == 1 && !operands.empty();
  for (size_t i = 0; elementwise && i < operands.size(); ++i) {
    ManualValue* v = operand(i);
    elementwise = v && (v->local.shape == r.local.shape || v->local.rank() == 0);
  }
  if (elementwise) {
    for (size_t i = 0; i < operands.size(); ++i) {
      if (operand(i)->local.rank() > 0) same_dims(*operand(i), r);
    }
    return;
  }
  // Anything else: its operands must be whole, its results are.
  for (size_t i = 0; i < operands.size(); ++i) {
    if (ManualValue* v = operand(i)) {
      for (int var : v->vars) {
        if (!st.Axes(var).empty()) return st.Fail(context + ": an op PIR cannot partition reads a split value");
        st.Bind(var, {}, context);
      }
    }
  }
  for (int k = 0; k < n; ++k) {
    for (int var : result(k).vars) st.Bind(var, {}, context);
  }
}

// ---------------------------------------------------------------- import

// How a body argument that only all_gathers read is used: its in_sharding
// without the axes the gathers remove (the same for every gather, else none).
std::optional<pir::TensorSharding> Importer::GatheredUse(ManualState& state, size_t arg,
                                                         const pir::TensorSharding& stored) {
  if (state.arg_other_use[arg] || state.arg_gathers[arg].empty()) return std::nullopt;
  const ManualValue& in = state.values[arg];
  std::optional<pir::TensorSharding> used;
  for (int gathered : state.arg_gathers[arg]) {
    const ManualValue& out = state.values[static_cast<size_t>(gathered)];
    if (out.vars.size() != in.vars.size() || stored.dim_axes.size() != in.vars.size()) return std::nullopt;
    pir::TensorSharding s = stored;
    for (size_t d = 0; d < in.vars.size(); ++d) {
      std::vector<std::string> kept = state.Axes(out.vars[d]), had = state.Axes(in.vars[d]);
      std::vector<std::string>& axes = s.dim_axes[d];
      axes.erase(std::remove_if(axes.begin(), axes.end(),
                                [&](const std::string& a) {
                                  return std::count(had.begin(), had.end(), a) &&
                                         !std::count(kept.begin(), kept.end(), a);
                                }),
                 axes.end());
    }
    if (used && used->dim_axes != s.dim_axes) return std::nullopt;
    used = std::move(s);
  }
  return used;
}

Status Importer::ImportManual(const Operation& op, const Block& body, const std::vector<BlockArg>& args,
                              std::vector<Binding> operands, const std::vector<pir::TensorSharding>& in_shardings,
                              const std::vector<pir::TensorSharding>& out_shardings,
                              const std::set<std::string>& manual_axes,
                              const std::vector<pir::TensorType>& global_results, std::vector<Binding>* results) {
  if (args.size() != operands.size() || in_shardings.size() != operands.size()) {
    return Error(op.line, op.col,
                 "manual computation: " + std::to_string(operands.size()) + " operands, " +
                     std::to_string(args.size()) + " body arguments, " + std::to_string(in_shardings.size()) +
                     " in_shardings");
  }
  if (++depth_ > 16) {
    --depth_;
    return Error(op.line, op.col, "manual computations nest more than 16 deep");
  }
  const pir::Mesh* mesh = nullptr;
  for (const pir::TensorSharding& s : in_shardings) {
    if (!mesh && !s.mesh.empty()) mesh = program_.graph.FindMesh(s.mesh);
  }
  for (const pir::TensorSharding& s : out_shardings) {
    if (!mesh && !s.mesh.empty()) mesh = program_.graph.FindMesh(s.mesh);
  }
  if (!mesh && !program_.graph.meshes().empty()) mesh = &program_.graph.meshes()[0];
  const Mode saved_mode = mode_;
  ManualState* saved_manual = manual_;
  const int saved_seq = manual_seq_;
  auto restore = [&] {
    mode_ = saved_mode;
    manual_ = saved_manual;
    manual_seq_ = saved_seq;
  };

  // Walk 1: analysis.
  ManualState state;
  state.mesh = mesh;
  if (!mesh) state.Fail("no mesh");
  for (const std::string& axis : manual_axes) {
    if (mesh && mesh->AxisSize(axis)) state.manual_axes.insert(axis);
  }
  if (mesh && mesh->axes.size() > 64) state.Fail("the mesh has more than 64 axes");
  mode_ = Mode::kAnalyze;
  manual_ = &state;
  manual_seq_ = 0;
  state.arg_gathers.resize(args.size());
  state.arg_other_use.assign(args.size(), false);
  Scope scope;
  for (size_t i = 0; i < args.size(); ++i) {
    ManualValue value;
    value.local = args[i].type;
    for (int64_t d = 0; d < value.local.rank(); ++d) value.vars.push_back(state.NewVar());
    const pir::TensorSharding& s = in_shardings[i];
    if (!s.mesh.empty() && s.dim_axes.size() != value.vars.size()) state.Fail("an in_sharding has the wrong rank");
    for (size_t d = 0; d < value.vars.size() && d < s.dim_axes.size(); ++d) {
      std::vector<std::string> axes;
      for (const std::string& axis : s.dim_axes[d]) {
        if (state.manual_axes.count(axis)) axes.push_back(axis);
      }
      state.Bind(value.vars[d], axes, "argument " + std::to_string(i));
    }
    state.values.push_back(std::move(value));
    Binding b;
    b.type = args[i].type;
    b.manual = static_cast<int>(i);
    scope[args[i].name] = b;
  }
  manual_seq_ = static_cast<int>(args.size());
  std::vector<Binding> returned;
  Status status = WalkBlock(body, scope, &returned);
  if (!status.ok()) {
    restore();
    --depth_;
    return status;
  }
  if (!global_results.empty() && returned.size() != global_results.size()) {
    restore();
    --depth_;
    return Error(op.line, op.col,
                 "manual computation returns " + std::to_string(returned.size()) + " values for " +
                     std::to_string(global_results.size()) + " results");
  }
  for (size_t i = 0; i < returned.size() && i < out_shardings.size(); ++i) {
    int m = returned[i].manual;
    if (m < 0) continue;
    const std::vector<int>& vars = state.values[m].vars;
    for (size_t d = 0; d < vars.size() && d < out_shardings[i].dim_axes.size(); ++d) {
      std::vector<std::string> axes;
      for (const std::string& axis : out_shardings[i].dim_axes[d]) {
        if (state.manual_axes.count(axis)) axes.push_back(axis);
      }
      state.Bind(vars[d], axes, "result " + std::to_string(i));
    }
  }
  for (size_t i = 0; i < args.size() && !state.failed; ++i) {
    auto global = state.GlobalType(static_cast<int>(i));
    const pir::TensorType& operand = program_.graph.type(operands[i].id);
    if (!global || *global != operand) {
      state.Fail("argument " + std::to_string(i) + " (" + args[i].type.ToString() + ") does not scale to its operand " +
                 operand.ToString());
    }
  }
  std::vector<pir::TensorType> result_types;
  for (size_t i = 0; i < returned.size() && !state.failed; ++i) {
    auto global = state.GlobalType(returned[i].manual);
    if (!global) {
      state.Fail("a result's global shape is unknown");
      break;
    }
    if (!global_results.empty() && *global != global_results[i]) {
      state.Fail("result " + std::to_string(i) + " scales to " + global->ToString() + ", the op declares " +
                 global_results[i].ToString());
    }
    result_types.push_back(*global);
  }

  if (!state.failed) {
    for (const Binding& r : returned) {
      if (r.manual >= 0 && r.manual < static_cast<int>(args.size())) state.arg_other_use[static_cast<size_t>(r.manual)] = true;
    }
    // Walk 2: import at global shapes.
    mode_ = Mode::kEmitGlobal;
    manual_seq_ = 0;
    Scope global_scope;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!in_shardings[i].mesh.empty()) Pin(operands[i].id, in_shardings[i], op.line, op.col);
      if (!in_shardings[i].mesh.empty()) {
        if (auto used = GatheredUse(state, i, in_shardings[i])) program_.gathered.emplace(operands[i].id, *used);
      }
      Binding b;
      b.id = operands[i].id;
      b.type = args[i].type;
      b.manual = static_cast<int>(i);
      global_scope[args[i].name] = b;
    }
    manual_seq_ = static_cast<int>(args.size());
    std::vector<Binding> emitted;
    status = WalkBlock(body, global_scope, &emitted);
    restore();
    --depth_;
    AZ_RETURN_IF_ERROR(status);
    for (size_t i = 0; i < emitted.size(); ++i) {
      // The source sees the op's declared type (local for a GSPMD body call); the value is global.
      Binding b;
      b.id = emitted[i].id;
      b.type = i < op.result_types.size() ? op.result_types[i] : result_types[i];
      if (program_.graph.type(b.id) != result_types[i]) {
        b.id = EmitCustom("SPMDShardToFullShape", op, {b.id}, result_types[i], 0,
                          "manual result does not match its global type");
      }
      if (i < out_shardings.size() && !out_shardings[i].mesh.empty()) Pin(b.id, out_shardings[i], op.line, op.col);
      results->push_back(std::move(b));
    }
    return Status::Ok();
  }

  // Fallback: the body at local shapes, between custom conversions.
  Warn(op.line, op.col, "manual computation imported at local shapes: " + state.why);
  mode_ = Mode::kNormal;
  manual_ = nullptr;
  Scope local_scope;
  for (size_t i = 0; i < args.size(); ++i) {
    Binding b;
    b.id = EmitCustom("SPMDFullToShardShape", op, {operands[i].id}, args[i].type, 0, "");
    b.type = args[i].type;
    local_scope[args[i].name] = b;
  }
  std::vector<Binding> local;
  status = WalkBlock(body, local_scope, &local);
  restore();
  --depth_;
  AZ_RETURN_IF_ERROR(status);
  for (size_t i = 0; i < local.size(); ++i) {
    AZ_RETURN_IF_ERROR(Materialize(local[i], op.line, op.col));
    if (global_results.empty()) {
      results->push_back(local[i]);
      continue;
    }
    Binding b;
    b.type = global_results[i];
    b.id = EmitCustom("SPMDShardToFullShape", op, {local[i].id}, b.type, 0, "");
    results->push_back(std::move(b));
  }
  return Status::Ok();
}

Status Importer::ImportSdyManual(const Operation& op, const std::vector<Binding>& operands,
                                 std::vector<Binding>* results) {
  std::vector<std::string> notes;
  auto read_list = [&](const char* key, std::vector<pir::TensorSharding>* out) -> Status {
    auto value = OpAttr(op, key);
    if (!value) return Error(op.line, op.col, std::string("manual computation without ") + key);
    if (!value->empty() && value->front().kind == TokenKind::kHashIdent) {
      auto all = ShardyPerValueFromTrees(*value, &notes);
      if (!all.ok()) return Error(op.line, op.col, all.status().message());
      *out = std::move(*all);
      return Status::Ok();
    }
    if (value->empty() || value->front().kind != TokenKind::kLBracket) {
      return Error(op.line, op.col, std::string("malformed ") + key);
    }
    for (const Tree& tree : value->front().children) {
      if (tree.kind == TokenKind::kComma) continue;
      auto s = ShardyFromTrees({tree}, &notes);
      if (!s.ok()) return Error(tree.line, tree.col, s.status().message());
      out->push_back(std::move(*s));
    }
    return Status::Ok();
  };
  std::vector<pir::TensorSharding> in, out;
  AZ_RETURN_IF_ERROR(read_list("in_shardings", &in));
  AZ_RETURN_IF_ERROR(read_list("out_shardings", &out));
  for (const std::string& note : notes) Warn(op.line, op.col, note);
  std::set<std::string> axes;
  std::function<void(const Trees&, int)> collect = [&](const Trees& trees, int depth) {
    for (const Tree& tree : trees) {
      if (tree.kind == TokenKind::kString) axes.insert(tree.text);
      if (depth < 8) collect(tree.children, depth + 1);
    }
  };
  Trees manual = OpAttr(op, "manual_axes").value_or(Trees{});
  if (!manual.empty() && manual.front().kind == TokenKind::kLBrace) manual.resize(1);
  collect(manual, 0);
  if (op.regions.size() != 1 || op.regions[0].blocks.size() != 1) {
    return Error(op.line, op.col, "a manual computation needs one region with one block");
  }
  const Block& body = op.regions[0].blocks[0];
  const std::vector<BlockArg>& args = !body.args.empty() || op.arg_lists.empty() ? body.args : op.arg_lists.back();
  for (pir::TensorSharding& s : out) {
    if (s.dim_axes.empty()) s.mesh.clear();  // <@mesh, []>: a scalar
  }
  if (out.size() != op.result_types.size()) out.clear();
  return ImportManual(op, body, args, operands, in, out, axes, op.result_types, results);
}

}  // namespace az::frontend::shlo
