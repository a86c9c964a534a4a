#include "cir/text/printer.h"

namespace az::cir {

namespace {

using pir::QuoteString;

class Printer {
 public:
  explicit Printer(const Program& program) : p_(program) {}

  std::string Print() {
    out_ += "program " + QuoteString(p_.name) + " devices = " + std::to_string(p_.num_devices);
    if (!p_.mesh.empty()) out_ += " mesh = " + QuoteString(p_.mesh);
    out_ += " {\n";
    for (size_t id = 0; id < p_.buffers.size(); ++id) PrintBuffer(static_cast<int>(id));
    for (const Instruction& instruction : p_.instructions) PrintInstruction(instruction);
    out_ += "  outputs ";
    PrintRefs(p_.outputs);
    out_ += "\n}\n";
    return std::move(out_);
  }

 private:
  void PrintRef(int id) {
    if (id >= 0 && static_cast<size_t>(id) < p_.buffers.size()) {
      out_ += '%' + std::to_string(id);
    } else {
      out_ += "%?" + std::to_string(id);
    }
  }
  void PrintRefs(const std::vector<int>& ids) {
    out_ += '(';
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) out_ += ", ";
      PrintRef(ids[i]);
    }
    out_ += ')';
  }
  void PrintLists(const Instruction& instruction) {
    out_ += ' ';
    PrintRefs(instruction.operands);
    out_ += " -> ";
    PrintRefs(instruction.results);
  }

  void PrintBuffer(int id) {
    const Buffer& buffer = p_.buffers[id];
    out_ += "  buffer %" + std::to_string(id) + ' ' + QuoteString(buffer.name) + ' ';
    out_ += BufferKindName(buffer.kind);
    out_ += ' ' + pir::TensorType{buffer.dtype, buffer.shape}.ToString() + '\n';
  }

  void PrintInstruction(const Instruction& instruction) {
    out_ += "  " + OpcodeName(instruction) + ' ' + QuoteString(instruction.name);
    switch (instruction.kind) {
      case InstrKind::kKernel:
        out_ += ' ';
        out_ += KernelKindName(instruction.kernel);
        PrintLists(instruction);
        out_ += " {flops = " + std::to_string(instruction.flops.value()) +
                ", read = " + std::to_string(instruction.bytes_read.value()) +
                ", written = " + std::to_string(instruction.bytes_written.value());
        if (!instruction.dims.empty()) {
          out_ += ", dims = [";
          for (size_t d = 0; d < instruction.dims.size(); ++d) {
            out_ += (d ? "," : "") + std::to_string(instruction.dims[d]);
          }
          out_ += ']';
        }
        if (instruction.precision != pir::DType::kBF16) {
          out_ += ", precision = " + std::string(pir::DTypeName(instruction.precision));
        }
        PrintOrigin(instruction);
        out_ += '}';
        break;
      case InstrKind::kCollective:
      case InstrKind::kCollectiveStart:
        PrintLists(instruction);
        out_ += " {bytes = " + std::to_string(instruction.collective_bytes.value());
        if (instruction.collective == CollectiveKind::kCollectivePermute) {
          out_ += ", pairs = " + FormatPairs(instruction.pairs);
        } else {
          std::string iota = FormatIotaReplicaGroups(instruction.groups);
          out_ += ", groups = " + (iota.empty() ? FormatReplicaGroups(instruction.groups) : iota);
        }
        PrintOrigin(instruction);
        out_ += '}';
        break;
      case InstrKind::kCollectiveDone:
        if (!instruction.operands.empty() || !instruction.results.empty()) PrintLists(instruction);
        out_ += " start = ";
        if (instruction.start >= 0 && static_cast<size_t>(instruction.start) < p_.instructions.size()) {
          out_ += QuoteString(p_.instructions[instruction.start].name);
        } else {
          out_ += '?' + std::to_string(instruction.start);
        }
        if (!instruction.origin.empty()) out_ += " {origin = " + QuoteString(instruction.origin) + '}';
        break;
    }
    out_ += '\n';
  }

  void PrintOrigin(const Instruction& instruction) {
    if (!instruction.origin.empty()) out_ += ", origin = " + QuoteString(instruction.origin);
  }

  static std::string FormatPairs(const std::vector<std::pair<int, int>>& pairs) {
    std::string out = "{";
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (i) out += ',';
      out += '{' + std::to_string(pairs[i].first) + ',' + std::to_string(pairs[i].second) + '}';
    }
    return out + '}';
  }

  const Program& p_;
  std::string out_;
};

}  // namespace

std::string PrintProgram(const Program& program) { return Printer(program).Print(); }

}  // namespace az::cir
