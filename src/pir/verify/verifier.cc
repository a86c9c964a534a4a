#include "pir/verify/verifier.h"

#include <algorithm>
#include <set>

#include "pir/rules/rule.h"

namespace az::pir {

namespace {

class Verifier {
 public:
  Verifier(const Graph& graph, const SourceBuffer* source) : g_(graph), diag_(Wrap(source)) {}

  Status Run() {
    CheckMeshes();
    CheckValues();
    for (OpId id = 0; id < g_.num_ops(); ++id) CheckOp(id);
    for (ValueId v : g_.outputs()) {
      if (!g_.IsValidValue(v)) diag_.Error({}, "graph output %" + std::to_string(v) + " is not a value");
    }
    return diag_.ToStatus(StatusCode::kInvalidArgument);
  }

 private:
  static std::shared_ptr<const SourceBuffer> Wrap(const SourceBuffer* source) {
    if (source == nullptr) return nullptr;
    // Non-owning view: the caller keeps `source` alive for the verifier's run.
    return std::shared_ptr<const SourceBuffer>(source, [](const SourceBuffer*) {});
  }

  SourceLocation ValueLocation(ValueId id) const {
    const Value& v = g_.value(id);
    if (v.loc.known()) return v.loc;
    if (v.producer != kNoOp && v.producer < g_.num_ops()) return g_.op(v.producer).Location();
    return SourceLocation::Op(v.name.empty() ? "%" + std::to_string(id) : v.name);
  }

  void CheckMeshes() {
    std::set<std::string> names;
    for (const Mesh& mesh : g_.meshes()) {
      if (!names.insert(mesh.name).second) diag_.Error({}, "mesh @" + mesh.name + " is declared twice");
      std::set<std::string> axes;
      for (const auto& [axis, size] : mesh.axes) {
        if (!axes.insert(axis).second) diag_.Error({}, "mesh @" + mesh.name + " repeats axis '" + axis + "'");
        if (size < 1) diag_.Error({}, "mesh @" + mesh.name + " axis '" + axis + "' has size " + std::to_string(size));
      }
    }
  }

  void CheckValues() {
    for (ValueId id = 0; id < g_.num_values(); ++id) {
      const Value& v = g_.value(id);
      const TensorType& t = v.type;
      if (t.rank() > kMaxRank) {
        diag_.Error(ValueLocation(id), "rank " + std::to_string(t.rank()) + " exceeds the limit of " +
                                           std::to_string(kMaxRank));
      }
      int64_t elements = 1;
      for (int64_t d : t.shape) {
        if (d < 0) {
          diag_.Error(ValueLocation(id), "negative dimension in " + t.ToString());
          break;
        }
        if (d != 0 && elements > kMaxElements / d) {
          diag_.Error(ValueLocation(id), "tensor " + t.ToString() + " has more than 2^50 elements");
          break;
        }
        elements *= d;
      }
      bool is_leaf = v.role != ValueRole::kActivation;
      if (is_leaf && v.producer != kNoOp) {
        diag_.Error(ValueLocation(id), "leaf value '" + v.name + "' has a producer");
      }
      if (!is_leaf) {
        if (v.producer == kNoOp || v.producer >= g_.num_ops()) {
          diag_.Error(ValueLocation(id), "activation %" + std::to_string(id) + " has no producing op");
        } else {
          const auto& results = g_.op(v.producer).results;
          if (std::find(results.begin(), results.end(), id) == results.end()) {
            diag_.Error(ValueLocation(id), "activation %" + std::to_string(id) + " is not a result of its producer");
          }
        }
      }
      if (v.sharding) CheckSharding(id, *v.sharding);
    }
  }

  void CheckSharding(ValueId id, const TensorSharding& s) {
    const Mesh* mesh = g_.FindMesh(s.mesh);
    SourceLocation loc = ValueLocation(id);
    if (mesh == nullptr) {
      diag_.Error(loc, "sharding names undeclared mesh @" + s.mesh);
      return;
    }
    if (static_cast<int64_t>(s.dim_axes.size()) != g_.type(id).rank()) {
      diag_.Error(loc, "sharding has " + std::to_string(s.dim_axes.size()) + " dimensions but the value has rank " +
                           std::to_string(g_.type(id).rank()));
    }
    std::set<std::string> used;
    auto use = [&](const std::string& axis) {
      if (!mesh->AxisSize(axis)) diag_.Error(loc, "sharding uses axis '" + axis + "', which mesh @" + s.mesh + " lacks");
      if (!used.insert(axis).second) diag_.Error(loc, "sharding uses axis '" + axis + "' twice");
    };
    for (const auto& dim : s.dim_axes) {
      for (const std::string& axis : dim) use(axis);
    }
    for (const std::string& axis : s.replicated) use(axis);
  }

  void CheckOp(OpId id) {
    const Op& op = g_.op(id);
    SourceLocation loc = op.Location();
    bool operands_ok = true;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      ValueId v = op.operands[i];
      if (!g_.IsValidValue(v)) {
        diag_.Error(loc, "operand " + std::to_string(i) + " is not a value");
        operands_ok = false;
        continue;
      }
      OpId producer = g_.value(v).producer;
      if (producer != kNoOp && producer >= id) {
        diag_.Error(loc, "operand " + std::to_string(i) + " is defined by a later op: the op order is not topological");
        operands_ok = false;
      }
    }
    for (ValueId r : op.results) {
      if (!g_.IsValidValue(r) || g_.value(r).producer != id) {
        diag_.Error(loc, "result is not owned by this op");
        operands_ok = false;
      }
    }
    if (!operands_ok) return;

    std::vector<TensorType> operand_types = OperandTypes(g_, op);
    std::vector<TensorType> result_types = ResultTypes(g_, op);
    std::string kind(OpKindName(op.kind));
    auto inferred = InferResultTypes(op.kind, operand_types, op.attrs, result_types);
    if (!inferred.ok()) {
      diag_.Error(loc, kind + ": " + inferred.status().message());
      return;
    }
    if (inferred->size() != result_types.size()) {
      diag_.Error(loc, kind + " produces " + std::to_string(inferred->size()) + " results, the op declares " +
                           std::to_string(result_types.size()));
      return;
    }
    for (size_t i = 0; i < result_types.size(); ++i) {
      if ((*inferred)[i] != result_types[i]) {
        diag_.Error(loc, kind + " result " + std::to_string(i) + " is declared " + result_types[i].ToString() +
                             " but the operands give " + (*inferred)[i].ToString());
        return;
      }
    }
    auto rule = BuildFactorRule(op.kind, operand_types, result_types, op.attrs);
    if (!rule.ok()) {
      diag_.Error(loc, kind + " factor rule: " + rule.status().message());
      return;
    }
    CheckRule(loc, kind, *rule, operand_types, result_types);
  }

  void CheckRule(const SourceLocation& loc, const std::string& kind, const FactorRule& rule,
                 const std::vector<TensorType>& operands, const std::vector<TensorType>& results) {
    if (rule.operands.size() != operands.size() || rule.results.size() != results.size()) {
      diag_.Error(loc, kind + " factor rule covers the wrong number of tensors");
      return;
    }
    auto check_tensor = [&](const TensorFactors& dims, const TensorType& t, const std::string& what) {
      if (static_cast<int64_t>(dims.size()) != t.rank()) {
        diag_.Error(loc, kind + " factor rule gives " + what + " " + std::to_string(dims.size()) +
                             " dimensions, the tensor has " + std::to_string(t.rank()));
        return;
      }
      for (size_t d = 0; d < dims.size(); ++d) {
        for (int f : dims[d]) {
          if (f < 0 || f >= static_cast<int>(rule.factors.size())) {
            diag_.Error(loc, kind + " factor rule names factor " + std::to_string(f) + " that does not exist");
            return;
          }
        }
        if (!rule.DimFits(dims[d], t.shape[d])) {
          diag_.Error(loc, kind + " factor rule: " + what + " dim " + std::to_string(d) + " has size " +
                               std::to_string(t.shape[d]) + " but its factors multiply to " +
                               std::to_string(rule.DimSize(dims[d])) + " (" + rule.ToString() + ")");
        }
      }
    };
    for (size_t i = 0; i < operands.size(); ++i) check_tensor(rule.operands[i], operands[i], "operand " + std::to_string(i));
    for (size_t i = 0; i < results.size(); ++i) check_tensor(rule.results[i], results[i], "result " + std::to_string(i));
    // A reduction factor is summed over for at least one result (rule.h); a
    // fused backward kernel may keep it in its other results.
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind != FactorKind::kReduction || results.empty()) continue;
      bool in_every_result = true;
      for (const TensorFactors& result : rule.results) {
        bool has = false;
        for (const auto& dim : result) has |= std::find(dim.begin(), dim.end(), static_cast<int>(f)) != dim.end();
        in_every_result &= has;
      }
      if (in_every_result) {
        diag_.Error(loc, kind + " factor rule: reduction factor '" + rule.factors[f].name + "' appears in every result");
      }
    }
  }

  const Graph& g_;
  DiagnosticEngine diag_;
};

}  // namespace

Status VerifyGraph(const Graph& graph, const SourceBuffer* source) { return Verifier(graph, source).Run(); }

}  // namespace az::pir
