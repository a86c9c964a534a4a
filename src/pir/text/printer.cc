#include "pir/text/printer.h"

#include <vector>

#include "pir/text/lexer.h"

namespace az::pir {

namespace {

constexpr int64_t kUnnumbered = -1;

std::string Name(std::string_view name) { return IsIdentifier(name) ? std::string(name) : QuoteString(name); }

// {"x", "y"}
std::string AxisSetText(const std::vector<std::string>& axes) {
  std::string out = "{";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) out += ", ";
    out += QuoteString(axes[i]);
  }
  return out + '}';
}

class Printer {
 public:
  explicit Printer(const Graph& graph) : graph_(graph), numbers_(static_cast<size_t>(graph.num_values()), kUnnumbered) {
    // Leaves first, then results in op order: the order the text defines them.
    int64_t next = 0;
    for (ValueId id = 0; id < graph.num_values(); ++id) {
      if (graph.value(id).role != ValueRole::kActivation) numbers_[static_cast<size_t>(id)] = next++;
    }
    for (const Op& op : graph.ops()) {
      for (ValueId result : op.results) {
        if (graph.IsValidValue(result) && numbers_[static_cast<size_t>(result)] == kUnnumbered) {
          numbers_[static_cast<size_t>(result)] = next++;
        }
      }
    }
  }

  std::string Print() {
    out_ += "graph " + QuoteString(graph_.name());
    if (!graph_.attrs().empty()) {
      out_ += " attributes ";
      PrintAttrs(graph_.attrs());
    }
    out_ += " {\n";
    for (const Mesh& mesh : graph_.meshes()) PrintMesh(mesh);
    for (ValueId id = 0; id < graph_.num_values(); ++id) {
      if (graph_.value(id).role != ValueRole::kActivation) PrintLeaf(id);
    }
    for (const Op& op : graph_.ops()) PrintOp(op);
    out_ += "  return";
    PrintRefs(graph_.outputs(), " ");
    out_ += "\n}\n";
    return std::move(out_);
  }

 private:
  void PrintRef(ValueId id) {
    if (graph_.IsValidValue(id) && numbers_[static_cast<size_t>(id)] != kUnnumbered) {
      out_ += '%' + std::to_string(numbers_[static_cast<size_t>(id)]);
    } else {
      out_ += "%?" + std::to_string(id);
    }
  }
  void PrintRefs(const std::vector<ValueId>& ids, const char* prefix) {
    for (size_t i = 0; i < ids.size(); ++i) {
      out_ += i == 0 ? prefix : ", ";
      PrintRef(ids[i]);
    }
  }

  void PrintAttrs(const Attributes& attrs) {
    out_ += '{';
    bool first = true;
    for (const auto& [key, value] : attrs.entries()) {
      if (!first) out_ += ", ";
      first = false;
      out_ += Name(key) + " = " + AttrValueToString(value);
    }
    out_ += '}';
  }

  // Type and, when present, sharding of one value.
  void PrintTypeOf(ValueId id) {
    const Value& value = graph_.value(id);
    out_ += value.type.ToString();
    if (!value.sharding) return;
    out_ += " sharding" + PrintSharding(*value.sharding);
  }

  void PrintMesh(const Mesh& mesh) { out_ += "  mesh " + pir::PrintMesh(mesh) + "\n"; }


  void PrintLeaf(ValueId id) {
    const Value& value = graph_.value(id);
    out_ += "  ";
    out_ += ValueRoleName(value.role);
    out_ += ' ';
    PrintRef(id);
    out_ += ' ' + QuoteString(value.name) + " : ";
    PrintTypeOf(id);
    out_ += '\n';
  }

  void PrintOp(const Op& op) {
    out_ += "  ";
    if (!op.results.empty()) {
      PrintRefs(op.results, "");
      out_ += " = ";
    }
    out_ += OpKindName(op.kind);
    out_ += ' ' + QuoteString(op.name) + " (";
    PrintRefs(op.operands, "");
    out_ += ')';
    if (!op.attrs.empty()) {
      out_ += ' ';
      PrintAttrs(op.attrs);
    }
    for (size_t i = 0; i < op.results.size(); ++i) {
      out_ += i == 0 ? " : " : ", ";
      if (graph_.IsValidValue(op.results[i])) {
        PrintTypeOf(op.results[i]);
      } else {
        out_ += "?";
      }
    }
    out_ += '\n';
  }

  const Graph& graph_;
  std::vector<int64_t> numbers_;  // ValueId -> printed number, or kUnnumbered
  std::string out_;
};

}  // namespace

std::string PrintGraph(const Graph& graph) { return Printer(graph).Print(); }

std::string PrintSharding(const TensorSharding& sharding) {
  std::string out = "<@" + Name(sharding.mesh) + ", [";
  for (size_t i = 0; i < sharding.dim_axes.size(); ++i) {
    if (i) out += ", ";
    out += AxisSetText(sharding.dim_axes[i]);
  }
  out += ']';
  if (!sharding.replicated.empty()) out += ", replicated=" + AxisSetText(sharding.replicated);
  return out + '>';
}

std::string PrintMesh(const Mesh& mesh) {
  std::string out = "@" + Name(mesh.name) + " = [";
  for (size_t i = 0; i < mesh.axes.size(); ++i) {
    if (i) out += ", ";
    out += QuoteString(mesh.axes[i].first) + '=' + std::to_string(mesh.axes[i].second);
  }
  return out + "]";
}

}  // namespace az::pir
