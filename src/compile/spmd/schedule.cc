#include "compile/spmd/schedule.h"

#include <algorithm>
#include <vector>

namespace az::compile {

namespace {

// Readers of every buffer, and whether it is a program output.
std::vector<int> ReaderCounts(const cir::Program& p) {
  std::vector<int> readers(p.buffers.size(), 0);
  for (const cir::Instruction& in : p.instructions) {
    for (int b : in.operands) ++readers[static_cast<size_t>(b)];
  }
  for (int b : p.outputs) readers[static_cast<size_t>(b)] += 1 << 20;  // never fused away
  return readers;
}

}  // namespace

bool FuseElementwise(cir::Program& program) {
  std::vector<int> readers = ReaderCounts(program);
  std::vector<cir::Instruction> out;
  out.reserve(program.instructions.size());
  bool changed = false;
  for (cir::Instruction& in : program.instructions) {
    bool fused = false;
    if (in.kind == cir::InstrKind::kKernel && in.kernel == cir::KernelKind::kElementwise && !out.empty() &&
        out.back().kind == cir::InstrKind::kKernel) {
      cir::Instruction& producer = out.back();
      // The one operand the producer wrote, read by nobody else.
      int shared = -1, count = 0;
      for (int b : in.operands) {
        if (std::find(producer.results.begin(), producer.results.end(), b) != producer.results.end()) {
          shared = b;
          ++count;
        }
      }
      if (count == 1 && readers[static_cast<size_t>(shared)] == 1 && producer.results.size() == 1) {
        Bytes intermediate = program.buffers[static_cast<size_t>(shared)].bytes();
        producer.flops += in.flops;
        // The intermediate never reaches memory: neither written nor read back.
        producer.bytes_written = producer.bytes_written - intermediate + in.bytes_written;
        producer.bytes_read = producer.bytes_read + in.bytes_read - intermediate;
        for (int b : in.operands) {
          if (b != shared) producer.operands.push_back(b);
        }
        producer.results = in.results;
        producer.origin += "+" + in.origin;
        fused = changed = true;
      }
    }
    if (!fused) out.push_back(std::move(in));
  }
  program.instructions = std::move(out);
  return changed;
}

bool CombineCollectives(cir::Program& program, Bytes threshold) {
  std::vector<cir::Instruction> out;
  out.reserve(program.instructions.size());
  bool changed = false;
  for (cir::Instruction& in : program.instructions) {
    // XLA combines all-reduce, all-gather and reduce-scatter; all-to-alls and
    // permutes stay separate.
    bool combinable = in.kind == cir::InstrKind::kCollective &&
                      (in.collective == cir::CollectiveKind::kAllReduce ||
                       in.collective == cir::CollectiveKind::kAllGather ||
                       in.collective == cir::CollectiveKind::kReduceScatter) &&
                      in.collective_bytes <= threshold;
    if (combinable && !out.empty()) {
      cir::Instruction& prev = out.back();
      if (prev.kind == cir::InstrKind::kCollective && prev.collective == in.collective && prev.groups == in.groups &&
          prev.collective_bytes + in.collective_bytes <= threshold) {
        prev.collective_bytes += in.collective_bytes;
        prev.operands.insert(prev.operands.end(), in.operands.begin(), in.operands.end());
        prev.results.insert(prev.results.end(), in.results.begin(), in.results.end());
        prev.origin += "+" + in.origin;
        changed = true;
        continue;
      }
    }
    out.push_back(std::move(in));
  }
  program.instructions = std::move(out);
  return changed;
}

bool ScheduleAsync(cir::Program& program) {
  std::vector<cir::Instruction>& ins = program.instructions;
  // Where each buffer was last written so far, as we rebuild the schedule.
  std::vector<cir::Instruction> out;
  std::vector<int> writer(program.buffers.size(), -1);
  int fence = -1;  // the previous collective's done: no start goes above it
  bool changed = false;
  for (cir::Instruction& in : ins) {
    if (in.kind != cir::InstrKind::kCollective) {
      for (int b : in.results) writer[static_cast<size_t>(b)] = static_cast<int>(out.size());
      if (in.kind == cir::InstrKind::kCollectiveDone) fence = static_cast<int>(out.size());
      out.push_back(std::move(in));
      continue;
    }
    int ready = fence;
    for (int b : in.operands) ready = std::max(ready, writer[static_cast<size_t>(b)]);
    int position = ready + 1;  // right after the operand's writer
    cir::Instruction start = in;
    start.kind = cir::InstrKind::kCollectiveStart;
    cir::Instruction done;
    done.kind = cir::InstrKind::kCollectiveDone;
    done.name = in.name + ".done";
    done.origin = in.origin;
    done.collective = in.collective;
    out.insert(out.begin() + position, std::move(start));
    // Indices at or after `position` moved by one.
    for (int& w : writer) {
      if (w >= position) ++w;
    }
    if (fence >= position) ++fence;
    done.start = position;
    // Starts already recorded by later dones shift too.
    for (size_t i = static_cast<size_t>(position) + 1; i < out.size(); ++i) {
      if (out[i].kind == cir::InstrKind::kCollectiveDone && out[i].start >= position) ++out[i].start;
    }
    for (int b : in.results) writer[static_cast<size_t>(b)] = static_cast<int>(out.size());
    fence = static_cast<int>(out.size());
    out.push_back(std::move(done));
    changed = true;
  }
  ins = std::move(out);
  return changed;
}

}  // namespace az::compile
