// VerifyProgram: the invariants of program.h, checked in one pass over the
// schedule plus linear passes over buffers, names and outputs.
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "cir/program.h"

namespace az::cir {

namespace {

// Past this many errors the rest are counted, not rendered: a broken generator
// can produce one error per instruction, and nobody reads a million of them.
constexpr int kMaxReportedErrors = 100;

std::string Ref(int id) { return "%" + std::to_string(id); }

// "an all-reduce-start", "a broadcast-start".
std::string WithArticle(const std::string& word) {
  bool vowel = !word.empty() && std::string_view("aeiou").find(word[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + word;
}

class Verifier {
 public:
  Verifier(const Program& program, const SourceBuffer* source) : p_(program), diag_(Wrap(source)) {}

  Status Run() {
    CheckHeader();
    CheckBuffers();
    CheckNames();
    CheckSchedule();
    CheckOutputs();
    if (suppressed_ > 0) {
      diag_.Error({}, "... and " + std::to_string(suppressed_) + " more error(s)");
    }
    return diag_.ToStatus(StatusCode::kInvalidArgument);
  }

 private:
  static std::shared_ptr<const SourceBuffer> Wrap(const SourceBuffer* source) {
    if (source == nullptr) return nullptr;
    // Non-owning view: the caller keeps `source` alive for the verifier's run.
    return std::shared_ptr<const SourceBuffer>(source, [](const SourceBuffer*) {});
  }

  void Error(SourceLocation loc, std::string message) {
    if (diag_.error_count() >= kMaxReportedErrors) {
      ++suppressed_;
      return;
    }
    diag_.Error(std::move(loc), std::move(message));
  }

  int num_buffers() const { return static_cast<int>(p_.buffers.size()); }
  int num_instructions() const { return static_cast<int>(p_.instructions.size()); }
  bool IsBuffer(int id) const { return id >= 0 && id < num_buffers(); }
  bool devices_ok() const { return p_.num_devices >= 1 && p_.num_devices <= kMaxProgramDevices; }

  SourceLocation InstrLoc(int index) const {
    const Instruction& instruction = p_.instructions[index];
    if (instruction.loc.known()) return instruction.loc;
    return SourceLocation::Op(instruction.name.empty() ? "#" + std::to_string(index) : instruction.name);
  }
  // "%2 'latent'": how messages name a buffer.
  std::string BufferRef(int id) const { return Ref(id) + " '" + p_.buffers[id].name + "'"; }

  void CheckHeader() {
    if (!devices_ok()) {
      Error({}, "the program has " + std::to_string(p_.num_devices) + " devices; expected 1 to 2^20");
    }
    if (p_.buffers.size() > static_cast<size_t>(kMaxProgramBuffers)) {
      Error({}, "the program has more than " + std::to_string(kMaxProgramBuffers) + " buffers");
    }
    if (p_.instructions.size() > static_cast<size_t>(kMaxProgramInstructions)) {
      Error({}, "the program has more than " + std::to_string(kMaxProgramInstructions) + " instructions");
    }
  }

  void CheckBuffers() {
    for (int id = 0; id < num_buffers(); ++id) {
      const Buffer& buffer = p_.buffers[id];
      SourceLocation loc = buffer.loc;
      std::string what = "buffer " + BufferRef(id);
      if (static_cast<int64_t>(buffer.shape.size()) > kMaxBufferRank) {
        Error(loc, what + " has rank " + std::to_string(buffer.shape.size()) + ", over the limit of 64");
        continue;
      }
      int64_t elements = 1;
      for (int64_t dim : buffer.shape) {
        if (dim < 0) {
          Error(loc, what + " has a negative dimension (" + std::to_string(dim) + ")");
          elements = -1;
          break;
        }
        if (dim != 0 && elements > kMaxBufferElements / dim) {
          Error(loc, what + " has more than 2^62 elements");
          elements = -1;
          break;
        }
        elements *= dim;
      }
      if (elements >= 0 && elements > kMaxBufferBytes / pir::DTypeBytes(buffer.dtype)) {
        Error(loc, what + " has more than 2^62 bytes");
      }
    }
  }

  void CheckNames() {
    std::unordered_map<std::string_view, int> first_use;
    first_use.reserve(p_.instructions.size());
    for (int index = 0; index < num_instructions(); ++index) {
      const std::string& name = p_.instructions[index].name;
      if (name.empty()) {
        Error(InstrLoc(index), OpcodeName(p_.instructions[index]) + " #" + std::to_string(index) + " has no name");
        continue;
      }
      auto [it, inserted] = first_use.emplace(name, index);
      if (!inserted) {
        Error(InstrLoc(index), "instruction name '" + name + "' is already used by instruction #" +
                                   std::to_string(it->second));
      }
    }
  }

  // Reads and writes in schedule order, async pairing, and each instruction's
  // own fields.
  void CheckSchedule() {
    written_.assign(static_cast<size_t>(num_buffers()), 0);
    in_flight_.assign(static_cast<size_t>(num_buffers()), -1);
    done_of_.assign(static_cast<size_t>(num_instructions()), -1);
    for (int index = 0; index < num_instructions(); ++index) {
      const Instruction& instruction = p_.instructions[index];
      CheckAccesses(index);
      switch (instruction.kind) {
        case InstrKind::kKernel: CheckKernel(index); break;
        case InstrKind::kCollective:
        case InstrKind::kCollectiveStart: CheckCollective(index); break;
        case InstrKind::kCollectiveDone: CheckDone(index); break;
      }
    }
    for (int index = 0; index < num_instructions(); ++index) {
      const Instruction& instruction = p_.instructions[index];
      if (instruction.kind == InstrKind::kCollectiveStart && done_of_[index] < 0) {
        Error(InstrLoc(index), OpcodeName(instruction) + " '" + instruction.name + "' has no matching done");
      }
    }
  }

  void CheckAccesses(int index) {
    const Instruction& instruction = p_.instructions[index];
    const std::string opcode = OpcodeName(instruction);
    for (size_t i = 0; i < instruction.operands.size(); ++i) {
      int id = instruction.operands[i];
      if (!IsBuffer(id)) {
        Error(InstrLoc(index), opcode + " operand " + std::to_string(i) + " (" + Ref(id) + ") is not a buffer");
        continue;
      }
      if (!written_[id] && !IsReadOnlyKind(p_.buffers[id].kind)) {
        Error(InstrLoc(index), opcode + " reads buffer " + BufferRef(id) + " before any instruction writes it");
      }
      ReportInFlight(index, id, "reads");
    }
    for (size_t i = 0; i < instruction.results.size(); ++i) {
      int id = instruction.results[i];
      if (!IsBuffer(id)) {
        Error(InstrLoc(index), opcode + " result " + std::to_string(i) + " (" + Ref(id) + ") is not a buffer");
        continue;
      }
      ReportInFlight(index, id, "writes");
      written_[id] = 1;
      if (instruction.kind == InstrKind::kCollectiveStart) in_flight_[id] = index;
    }
  }

  static bool IsReadOnlyKind(BufferKind kind) {
    return kind == BufferKind::kParameter || kind == BufferKind::kInput || kind == BufferKind::kConstant ||
           kind == BufferKind::kOptimizerState;
  }

  void ReportInFlight(int index, int id, const char* access) {
    int start = in_flight_[id];
    if (start < 0 || start == index) return;
    // The done may name the transfer's buffers: it is the instruction that waits for them.
    const Instruction& accessor = p_.instructions[index];
    if (accessor.kind == InstrKind::kCollectiveDone && accessor.start == start) return;
    const Instruction& s = p_.instructions[start];
    Error(InstrLoc(index), OpcodeName(p_.instructions[index]) + " " + access + " buffer " + BufferRef(id) +
                               " while " + OpcodeName(s) + " '" + s.name + "' is in flight (before its done)");
  }

  void CheckKernel(int index) {
    const Instruction& k = p_.instructions[index];
    NonNegative(index, "flops", k.flops.value());
    NonNegative(index, "bytes read", k.bytes_read.value());
    NonNegative(index, "bytes written", k.bytes_written.value());
    if (k.dims.size() > kMaxKernelDims) {
      Error(InstrLoc(index), "kernel has " + std::to_string(k.dims.size()) + " dims (at most " +
                                 std::to_string(kMaxKernelDims) + ")");
    }
    for (int64_t d : k.dims) {
      if (d < 0 || d > kMaxKernelDim) {
        Error(InstrLoc(index), "kernel dim " + std::to_string(d) + " is out of range [0, 2^40]");
        break;
      }
    }
  }

  void NonNegative(int index, const char* what, int64_t value) {
    if (value >= 0) return;
    Error(InstrLoc(index),
          OpcodeName(p_.instructions[index]) + " has negative " + what + " (" + std::to_string(value) + ")");
  }

  void CheckCollective(int index) {
    const Instruction& c = p_.instructions[index];
    NonNegative(index, "bytes", c.collective_bytes.value());
    const std::string opcode = OpcodeName(c);
    if (c.collective == CollectiveKind::kCollectivePermute) {
      if (!c.groups.groups.empty()) Error(InstrLoc(index), opcode + " has replica groups; it takes pairs");
      if (c.pairs.empty()) Error(InstrLoc(index), opcode + " has no source-target pairs");
      CheckPairs(index);
      return;
    }
    if (!c.pairs.empty()) Error(InstrLoc(index), opcode + " has source-target pairs; it takes replica groups");
    if (c.groups.groups.empty()) Error(InstrLoc(index), opcode + " has no replica groups");
    CheckGroups(index);
  }

  // Reports the first id out of [0, num_devices), or false when there is none.
  bool OutOfRange(int index, int id, const char* where) {
    if (id >= 0 && id < p_.num_devices) return false;
    Error(InstrLoc(index), OpcodeName(p_.instructions[index]) + " names device " + std::to_string(id) + " in its " +
                               where + ", outside [0, " + std::to_string(p_.num_devices) + ")");
    return true;
  }

  // One bit per device, set while one instruction's ids are checked and
  // cleared after, so that each check is linear in its ids; 2^20 devices take
  // 128 KiB, which stays in cache however the ids jump.
  void EnsureSeenBits() {
    if (!seen_a_.empty()) return;
    size_t words = static_cast<size_t>((p_.num_devices + 63) / 64);
    seen_a_.assign(words, 0);
    seen_b_.assign(words, 0);
  }
  static bool TestAndSet(std::vector<uint64_t>& bits, int id) {
    uint64_t mask = uint64_t{1} << (id & 63);
    uint64_t& word = bits[static_cast<size_t>(id) >> 6];
    bool was_set = (word & mask) != 0;
    word |= mask;
    return was_set;
  }
  void Clear(std::vector<uint64_t>& bits, int id) {
    if (id >= 0 && id < p_.num_devices) bits[static_cast<size_t>(id) >> 6] = 0;
  }

  void CheckGroups(int index) {
    if (!devices_ok()) return;
    EnsureSeenBits();
    ReportGroupProblem(index);
    for (const std::vector<int>& group : p_.instructions[index].groups.groups) {
      for (int id : group) Clear(seen_a_, id);
    }
  }
  // The first problem of the groups, if any.
  void ReportGroupProblem(int index) {
    const Instruction& c = p_.instructions[index];
    for (size_t g = 0; g < c.groups.groups.size(); ++g) {
      const std::vector<int>& group = c.groups.groups[g];
      if (group.empty()) {
        Error(InstrLoc(index), OpcodeName(c) + " replica group " + std::to_string(g) + " is empty");
        return;
      }
      for (int id : group) {
        if (OutOfRange(index, id, "replica groups")) return;
        if (TestAndSet(seen_a_, id)) {
          Error(InstrLoc(index), OpcodeName(c) + " names device " + std::to_string(id) + " in two replica groups");
          return;
        }
      }
    }
  }

  void CheckPairs(int index) {
    if (!devices_ok()) return;
    EnsureSeenBits();
    ReportPairProblem(index);
    for (auto [source, target] : p_.instructions[index].pairs) {
      Clear(seen_a_, source);
      Clear(seen_b_, target);
    }
  }
  void ReportPairProblem(int index) {
    const Instruction& c = p_.instructions[index];
    for (auto [source, target] : c.pairs) {
      if (OutOfRange(index, source, "pairs") || OutOfRange(index, target, "pairs")) return;
      if (TestAndSet(seen_a_, source)) {
        Error(InstrLoc(index), OpcodeName(c) + " has device " + std::to_string(source) + " send twice");
        return;
      }
      if (TestAndSet(seen_b_, target)) {
        Error(InstrLoc(index), OpcodeName(c) + " has device " + std::to_string(target) + " receive twice");
        return;
      }
    }
  }

  void CheckDone(int index) {
    const Instruction& done = p_.instructions[index];
    const std::string opcode = OpcodeName(done);
    int start = done.start;
    if (start < 0 || start >= num_instructions()) {
      Error(InstrLoc(index), opcode + " has no start");
      return;
    }
    const Instruction& s = p_.instructions[start];
    if (s.kind != InstrKind::kCollectiveStart || s.collective != done.collective) {
      Error(InstrLoc(index), opcode + " names " + OpcodeName(s) + " '" + s.name + "', not " +
                                 WithArticle(std::string(CollectiveKindName(done.collective)) + "-start"));
      return;
    }
    if (start >= index) {
      Error(InstrLoc(index), opcode + " comes before its start '" + s.name + "'");
      return;
    }
    if (done_of_[start] >= 0) {
      Error(InstrLoc(index), opcode + " names start '" + s.name + "', which '" +
                                 p_.instructions[done_of_[start]].name + "' already completes");
      return;
    }
    done_of_[start] = index;
    // The transfer has landed: its results may be read again.
    for (int id : s.results) {
      if (IsBuffer(id) && in_flight_[id] == start) in_flight_[id] = -1;
    }
  }

  void CheckOutputs() {
    for (int id : p_.outputs) {
      if (!IsBuffer(id)) {
        Error({}, "program output " + Ref(id) + " is not a buffer");
        continue;
      }
      if (!written_[id] && !IsReadOnlyKind(p_.buffers[id].kind)) {
        Error(p_.buffers[id].loc, "program output " + BufferRef(id) + " is never written");
      }
      if (in_flight_[id] >= 0) {
        const Instruction& s = p_.instructions[in_flight_[id]];
        Error(p_.buffers[id].loc, "program output " + BufferRef(id) + " is still in flight in " + OpcodeName(s) +
                                      " '" + s.name + "'");
      }
    }
  }

  const Program& p_;
  DiagnosticEngine diag_;
  int suppressed_ = 0;
  std::vector<char> written_;      // per buffer: some instruction so far wrote it
  std::vector<int> in_flight_;     // per buffer: the start whose transfer writes it, or -1
  std::vector<int> done_of_;       // per start: its done, or -1
  std::vector<uint64_t> seen_a_, seen_b_;  // per device, see EnsureSeenBits
};

}  // namespace

Status VerifyProgram(const Program& program, const SourceBuffer* source) {
  return Verifier(program, source).Run();
}

}  // namespace az::cir
