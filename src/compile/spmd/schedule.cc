#include "compile/spmd/schedule.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
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

// A blocking all-reduce or reduce-scatter whose results are gradients.
bool IsGradientReduction(const cir::Program& p, const cir::Instruction& in) {
  if (in.kind != cir::InstrKind::kCollective || in.results.empty() ||
      (in.collective != cir::CollectiveKind::kAllReduce && in.collective != cir::CollectiveKind::kReduceScatter)) {
    return false;
  }
  return std::all_of(in.results.begin(), in.results.end(), [&](int b) {
    return p.buffers[static_cast<size_t>(b)].kind == cir::BufferKind::kGradient;
  });
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
                      in.collective_bytes <= threshold && !IsGradientReduction(program, in);
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

bool IsWeightGather(const cir::Program& program, const cir::Instruction& in) {
  if (in.kind != cir::InstrKind::kCollective || in.collective != cir::CollectiveKind::kAllGather ||
      in.operands.empty()) {
    return false;
  }
  return std::all_of(in.operands.begin(), in.operands.end(), [&](int b) {
    return program.buffers[static_cast<size_t>(b)].kind == cir::BufferKind::kParameter;
  });
}

std::string_view WeightUnitKey(std::string_view parameter) {
  size_t begin = 0;
  while (begin <= parameter.size()) {
    size_t dot = parameter.find('.', begin);
    const size_t end = dot == std::string_view::npos ? parameter.size() : dot;
    std::string_view component = parameter.substr(begin, end - begin);
    const bool numeric = !component.empty() && std::all_of(component.begin(), component.end(),
                                                           [](char ch) { return ch >= '0' && ch <= '9'; });
    if (numeric) return parameter.substr(0, end);
    if (dot == std::string_view::npos) break;
    begin = dot + 1;
  }
  return parameter.substr(0, parameter.find('.'));
}

bool ScheduleAsync(cir::Program& program, int prefetch_depth) {
  AZ_CHECK(prefetch_depth >= 1);
  // One pass, linear in the program. A new start goes right after its
  // anchor: the later of the previous collective's done and the last writer
  // of its operands (a weight gather under prefetch_depth > 1: see the
  // header). Anchors are instructions kept in order, so a start is recorded
  // against its anchor and placed when the program is rebuilt; starts that
  // share an anchor keep their program order (under depth 1 none share one:
  // each anchors at or after the previous collective's done, which follows
  // the previous start).
  std::vector<cir::Instruction>& ins = program.instructions;
  std::vector<cir::Instruction> kept;                   // every instruction but the new starts, in order
  std::vector<std::vector<cir::Instruction>> after;     // per kept instruction, the starts placed after it
  std::vector<cir::Instruction> first;                  // starts above every instruction
  std::vector<int> kept_of_input(ins.size(), -1);       // an input index -> its kept index
  // Per kept instruction that this pass made a done: its start's anchor
  // (-1: above every instruction) and position among the anchor's starts.
  std::vector<std::pair<int, int>> new_done;
  kept.reserve(ins.size() * 2);
  std::vector<int> writer(program.buffers.size(), -1);  // kept index of each buffer's last writer
  int fence = -1;  // the previous collective's done
  // Weight gathers: the key of the current unit and, per unit in program
  // order, the anchor each of its gathers has under depth 1.
  std::string_view unit_key;
  std::vector<std::vector<int>> unit_anchors;
  bool changed = false;
  for (size_t j = 0; j < ins.size(); ++j) {
    cir::Instruction& in = ins[j];
    const int id = static_cast<int>(kept.size());
    if (in.kind != cir::InstrKind::kCollective || IsGradientReduction(program, in)) {
      for (int b : in.results) writer[static_cast<size_t>(b)] = id;
      if (in.kind == cir::InstrKind::kCollectiveDone) fence = id;
      kept_of_input[j] = id;
      kept.push_back(std::move(in));
      after.emplace_back();
      new_done.emplace_back(-2, -1);
      continue;
    }
    int written = -1;
    for (int b : in.operands) written = std::max(written, writer[static_cast<size_t>(b)]);
    int ready = std::max(fence, written);
    if (IsWeightGather(program, in)) {
      std::string_view key = WeightUnitKey(program.buffers[static_cast<size_t>(in.operands.front())].name);
      if (unit_anchors.empty() || key != unit_key) {
        unit_key = key;
        unit_anchors.emplace_back();
      }
      unit_anchors.back().push_back(ready);
      if (prefetch_depth > 1) {
        // The same position in the unit d - 1 before (its last gather when
        // it has fewer).
        const int unit = static_cast<int>(unit_anchors.size()) - 1;
        const std::vector<int>& earlier = unit_anchors[static_cast<size_t>(std::max(0, unit - prefetch_depth + 1))];
        const size_t position = std::min(unit_anchors.back().size(), earlier.size()) - 1;
        ready = std::max(written, earlier[position]);
      }
    }
    cir::Instruction done;
    done.kind = cir::InstrKind::kCollectiveDone;
    done.name = in.name + ".done";
    done.origin = in.origin;
    done.collective = in.collective;
    cir::Instruction start = std::move(in);
    start.kind = cir::InstrKind::kCollectiveStart;
    for (int b : start.results) writer[static_cast<size_t>(b)] = id;
    std::vector<cir::Instruction>& slot = ready < 0 ? first : after[static_cast<size_t>(ready)];
    new_done.emplace_back(ready, static_cast<int>(slot.size()));
    slot.push_back(std::move(start));
    fence = id;
    kept.push_back(std::move(done));
    after.emplace_back();
    changed = true;
  }
  // Final indices: the starts above everything, then each kept instruction
  // followed by the starts anchored at it.
  std::vector<int> final_of_kept(kept.size()), first_start_after(kept.size(), -1);
  int n = static_cast<int>(first.size());
  for (size_t k = 0; k < kept.size(); ++k) {
    final_of_kept[k] = n++;
    first_start_after[k] = n;
    n += static_cast<int>(after[k].size());
  }
  std::vector<cir::Instruction> out(static_cast<size_t>(n));
  for (size_t s = 0; s < first.size(); ++s) out[s] = std::move(first[s]);
  for (size_t k = 0; k < kept.size(); ++k) {
    cir::Instruction& in = kept[k];
    if (in.kind == cir::InstrKind::kCollectiveDone) {
      const auto [anchor, position] = new_done[k];
      if (anchor >= -1) {
        in.start = (anchor < 0 ? 0 : first_start_after[static_cast<size_t>(anchor)]) + position;
      } else {
        in.start = final_of_kept[static_cast<size_t>(kept_of_input[static_cast<size_t>(in.start)])];
      }
    }
    out[static_cast<size_t>(final_of_kept[k])] = std::move(in);
    for (size_t s = 0; s < after[k].size(); ++s) {
      out[static_cast<size_t>(first_start_after[k]) + s] = std::move(after[k][s]);
    }
  }
  ins = std::move(out);
  return changed;
}

bool OverlapGradientReductions(cir::Program& program, Bytes bucket) {
  const std::vector<cir::Instruction>& ins = program.instructions;
  const int n = static_cast<int>(ins.size());
  struct Reduction {
    int index;       // in the program
    int ready = -1;  // the last instruction before it that completes a write of its operands
    int needed = 0;  // the first instruction after it that reads one of its results
  };
  std::vector<Reduction> reductions;
  std::vector<int> completed(program.buffers.size(), -1);  // where each buffer's last write completed
  std::vector<int> reduction_of(program.buffers.size(), -1);
  for (int i = 0; i < n; ++i) {
    const cir::Instruction& in = ins[static_cast<size_t>(i)];
    for (int b : in.operands) {
      int r = reduction_of[static_cast<size_t>(b)];
      if (r >= 0 && reductions[static_cast<size_t>(r)].needed == n) reductions[static_cast<size_t>(r)].needed = i;
    }
    if (IsGradientReduction(program, in)) {
      Reduction r{i, -1, n};
      for (int b : in.operands) r.ready = std::max(r.ready, completed[static_cast<size_t>(b)]);
      for (int b : in.results) reduction_of[static_cast<size_t>(b)] = static_cast<int>(reductions.size());
      reductions.push_back(r);
    }
    // An async transfer's results are complete at its done.
    if (in.kind == cir::InstrKind::kCollectiveDone) {
      for (int b : ins[static_cast<size_t>(in.start)].results) completed[static_cast<size_t>(b)] = i;
    } else if (in.kind != cir::InstrKind::kCollectiveStart) {
      for (int b : in.results) completed[static_cast<size_t>(b)] = i;
    }
  }
  if (reductions.empty()) return false;
  std::stable_sort(reductions.begin(), reductions.end(),
                   [](const Reduction& a, const Reduction& b) { return a.ready < b.ready; });
  // Buckets of consecutive reductions (in the order they are ready).
  struct Bucket {
    std::vector<int> members;  // program indices
    int ready = -1, needed = 0;
    Bytes bytes;
  };
  std::vector<Bucket> buckets;
  for (const Reduction& r : reductions) {
    const cir::Instruction& in = ins[static_cast<size_t>(r.index)];
    if (!buckets.empty()) {
      Bucket& last = buckets.back();
      const cir::Instruction& first = ins[static_cast<size_t>(last.members.front())];
      if (first.collective == in.collective && first.groups == in.groups &&
          last.bytes + in.collective_bytes <= bucket && std::max(last.ready, r.ready) < std::min(last.needed, r.needed)) {
        last.members.push_back(r.index);
        last.ready = std::max(last.ready, r.ready);
        last.needed = std::min(last.needed, r.needed);
        last.bytes += in.collective_bytes;
        continue;
      }
    }
    buckets.push_back({{r.index}, r.ready, r.needed, in.collective_bytes});
  }
  // Slot s is the gap before old instruction s; in each, dones come first,
  // then starts (and blocking buckets), in bucket order.
  const int num_buckets = static_cast<int>(buckets.size());
  std::vector<int> start_slot(static_cast<size_t>(num_buckets)), done_slot(static_cast<size_t>(num_buckets));
  for (int k = 0; k < num_buckets; ++k) start_slot[static_cast<size_t>(k)] = buckets[static_cast<size_t>(k)].ready + 1;
  for (int k = 0; k < num_buckets; ++k) {
    int slot = buckets[static_cast<size_t>(k)].needed;
    if (k + kGradientBucketsInFlight < num_buckets) {
      slot = std::min(slot, start_slot[static_cast<size_t>(k + kGradientBucketsInFlight)]);
    }
    done_slot[static_cast<size_t>(k)] = slot;
  }
  std::vector<std::vector<int>> starts_at(static_cast<size_t>(n) + 1), dones_at(static_cast<size_t>(n) + 1);
  for (int k = 0; k < num_buckets; ++k) {
    starts_at[static_cast<size_t>(start_slot[static_cast<size_t>(k)])].push_back(k);
    if (done_slot[static_cast<size_t>(k)] > start_slot[static_cast<size_t>(k)]) {
      dones_at[static_cast<size_t>(done_slot[static_cast<size_t>(k)])].push_back(k);
    }
  }
  std::vector<bool> removed(static_cast<size_t>(n), false);
  for (const Bucket& b : buckets) {
    for (int m : b.members) removed[static_cast<size_t>(m)] = true;
  }
  std::vector<cir::Instruction> out;
  out.reserve(ins.size() + buckets.size());
  std::vector<int> new_index(static_cast<size_t>(n), -1), bucket_start(static_cast<size_t>(num_buckets), -1);
  for (int slot = 0; slot <= n; ++slot) {
    for (int k : dones_at[static_cast<size_t>(slot)]) {
      const cir::Instruction& start = out[static_cast<size_t>(bucket_start[static_cast<size_t>(k)])];
      cir::Instruction done;
      done.kind = cir::InstrKind::kCollectiveDone;
      done.name = start.name + ".done";
      done.origin = start.origin;
      done.collective = start.collective;
      done.start = bucket_start[static_cast<size_t>(k)];
      out.push_back(std::move(done));
    }
    for (int k : starts_at[static_cast<size_t>(slot)]) {
      const Bucket& b = buckets[static_cast<size_t>(k)];
      cir::Instruction combined = ins[static_cast<size_t>(b.members.front())];
      for (size_t m = 1; m < b.members.size(); ++m) {
        const cir::Instruction& member = ins[static_cast<size_t>(b.members[m])];
        combined.collective_bytes += member.collective_bytes;
        combined.operands.insert(combined.operands.end(), member.operands.begin(), member.operands.end());
        combined.results.insert(combined.results.end(), member.results.begin(), member.results.end());
        combined.origin += "+" + member.origin;
      }
      const bool async = done_slot[static_cast<size_t>(k)] > start_slot[static_cast<size_t>(k)];
      if (async) combined.kind = cir::InstrKind::kCollectiveStart;
      bucket_start[static_cast<size_t>(k)] = static_cast<int>(out.size());
      out.push_back(std::move(combined));
    }
    if (slot == n) break;
    if (removed[static_cast<size_t>(slot)]) continue;
    new_index[static_cast<size_t>(slot)] = static_cast<int>(out.size());
    out.push_back(ins[static_cast<size_t>(slot)]);
    cir::Instruction& copied = out.back();
    if (copied.kind == cir::InstrKind::kCollectiveDone) copied.start = new_index[static_cast<size_t>(copied.start)];
  }
  program.instructions = std::move(out);
  return true;
}

}  // namespace az::compile
