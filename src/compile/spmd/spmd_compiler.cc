#include "compile/spmd/spmd_compiler.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "compile/spmd/halo.h"
#include "compile/spmd/reshard.h"
#include "compile/spmd/schedule.h"
#include "pir/rules/cost.h"

namespace az::compile {

using pir::OpFamily;
using shard::TensorSharding;

namespace {

cir::KernelKind KernelKindOf(const pir::Op& op, const pir::OpCost& cost) {
  switch (pir::GetOpKindInfo(op.kind).family) {
    case OpFamily::kEinsum: return cost.matmul.value() > 0 ? cir::KernelKind::kMatmul : cir::KernelKind::kElementwise;
    case OpFamily::kAttention:
    case OpFamily::kAttentionGrad: return cir::KernelKind::kAttention;
    case OpFamily::kConv: return cir::KernelKind::kConvolution;
    case OpFamily::kNorm:
    case OpFamily::kNormGrad:
    case OpFamily::kSoftmax: return cir::KernelKind::kNorm;
    case OpFamily::kReduce: return cir::KernelKind::kReduce;
    case OpFamily::kTranspose:
    case OpFamily::kConcat:
    case OpFamily::kSlice:
    case OpFamily::kGather:
    case OpFamily::kResize:
    case OpFamily::kReshape: return cir::KernelKind::kCopy;
    case OpFamily::kCustom: return cir::KernelKind::kCustom;
    default: return cir::KernelKind::kElementwise;
  }
}

cir::BufferKind BufferKindOf(pir::ValueRole role) {
  switch (role) {
    case pir::ValueRole::kParameter: return cir::BufferKind::kParameter;
    case pir::ValueRole::kInput: return cir::BufferKind::kInput;
    case pir::ValueRole::kConstant: return cir::BufferKind::kConstant;
    case pir::ValueRole::kOptimizerState: return cir::BufferKind::kOptimizerState;
    case pir::ValueRole::kActivation: return cir::BufferKind::kActivation;
  }
  return cir::BufferKind::kActivation;
}

class Lowering {
 public:
  Lowering(const pir::Graph& graph, const shard::ShardingPlan& plan, int64_t ulysses_chunks)
      : graph_(graph), plan_(plan), mesh_(plan.mesh), ulysses_chunks_(ulysses_chunks) {
    // A training step (frontend/zoo/train.cc) names its gradients and the
    // leaves its outputs replace; any other graph has neither.
    for (int64_t v : graph_.attrs().GetInts("gradients").value_or(std::vector<int64_t>{})) {
      gradients_.insert(static_cast<pir::ValueId>(v));
    }
    auto leaves = graph_.attrs().GetInts("updated_leaves").value_or(std::vector<int64_t>{});
    auto values = graph_.attrs().GetInts("updated_values").value_or(std::vector<int64_t>{});
    for (size_t i = 0; i < leaves.size() && i < values.size(); ++i) {
      updates_[static_cast<pir::ValueId>(values[i])] = static_cast<pir::ValueId>(leaves[i]);
    }
    backward_start_ = graph_.attrs().GetInt("backward_start").value_or(-1);
    for (int64_t v : graph_.attrs().GetInts("offloaded").value_or(std::vector<int64_t>{})) {
      offloaded_.insert(static_cast<pir::ValueId>(v));
    }
    optimizer_start_ = graph_.attrs().GetInt("optimizer_start").value_or(-1);
    // An accumulated step (train.cc: accumulate > 1): its micro-steps' first
    // ops and backward starts; their gradients and running sums are
    // gradients too. A step without them is one micro-step.
    auto micro = graph_.attrs().GetInts("micro_steps").value_or(std::vector<int64_t>{});
    for (size_t i = 0; i + 1 < micro.size(); i += 2) micro_steps_.push_back({micro[i], micro[i + 1]});
    for (int64_t v : graph_.attrs().GetInts("gradient_sums").value_or(std::vector<int64_t>{})) {
      gradients_.insert(static_cast<pir::ValueId>(v));
    }
  }

  StatusOr<cir::Program> Run() {
    program_.name = graph_.name();
    program_.num_devices = mesh_.num_devices();
    program_.mesh = mesh_.ToString();
    if (ulysses_chunks_ > 1 && backward_start_ >= 0) {
      return Status(StatusCode::kUnimplemented,
                    "ulysses_chunks=" + std::to_string(ulysses_chunks_) + " on " + graph_.name() +
                        ": chunked Ulysses attention is lowered for inference; a training step's attention_grad "
                        "reads the forward's resharded q, k and v whole");
    }
    placed_.resize(static_cast<size_t>(graph_.num_values()));
    // 1. Leaves.
    for (pir::ValueId v = 0; v < graph_.num_values(); ++v) {
      const pir::Value& value = graph_.value(v);
      if (value.role == pir::ValueRole::kActivation) continue;
      placed_[v] = {NewBuffer(value.name, BufferKindOf(value.role), value.type, plan_.values[v]), plan_.values[v]};
    }
    // 2. Ops.
    for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
      for (size_t step = 1; step < micro_steps_.size(); ++step) {
        if (micro_steps_[step].first == id) ReduceAtMicroStepEnd(step - 1);
      }
      AZ_RETURN_IF_ERROR(LowerOp(id));
    }
    // 3. Outputs: finish pending sums.
    for (pir::ValueId v : graph_.outputs()) {
      Placed p = placed_[v];
      if (ExtensionOf(v).dim >= 0) {
        return LocatedError(StatusCode::kUnimplemented, graph_.op(graph_.value(v).producer).Location(),
                            "a split pad's extended shards are a graph output; only a convolution can read them "
                            "(compile/spmd/halo.h)");
      }
      if (!p.sharding.partial.empty()) {
        TensorSharding done = p.sharding;
        done.partial.clear();
        std::string origin = Origin(v);
        p.buffer = EmitReshard(mesh_, graph_.value(v).type, p.buffer, p.sharding, done, UniqueName(origin + ".output"),
                               origin, program_)
                       .buffer;
      }
      program_.outputs.push_back(p.buffer);
    }
    AccumulateInPlace();
    DonateUpdatedLeaves();
    return std::move(program_);
  }

  // An accumulated step's micro-step gradients as reduced for their sum:
  // gradient buffers while the schedule passes run (their reductions
  // overlap the backward like any gradient's, schedule.h), transient after
  // (SpmdCompiler::Compile makes them activations, live from their
  // reduction to their add).
  const std::vector<int>& transient_gradients() const { return transient_gradients_; }
  const std::vector<int>& accumulators() const { return accumulators_; }

 private:
  struct Placed {
    int buffer = -1;
    TensorSharding sharding;
  };

  // A split pad's result is held as extended shards (halo.h); other values
  // are plain blocks.
  Extension ExtensionOf(pir::ValueId v) const {
    auto it = extended_.find(v);
    return it == extended_.end() ? Extension{} : it->second;
  }

  int NewBuffer(const std::string& name, cir::BufferKind kind, const pir::TensorType& type, const TensorSharding& s) {
    cir::Buffer b;
    b.name = name;
    b.kind = kind;
    b.dtype = type.dtype;
    b.shape = s.LocalShape(mesh_, type.shape);
    return program_.AddBuffer(std::move(b));
  }

  // The op (or leaf) a value comes from, for names and reports.
  std::string Origin(pir::ValueId v) const {
    const pir::Value& value = graph_.value(v);
    return value.producer != pir::kNoOp ? graph_.op(value.producer).name : value.name;
  }

  std::string UniqueName(const std::string& base) {
    std::string name = base.empty() ? "op" : base;
    for (int k = 2; !names_.insert(name).second; ++k) name = base + "#" + std::to_string(k);
    return name;
  }

  // An accumulated step: the gradients of micro-step `step` that a later
  // micro-step's sum reads (micro-step 0's, which starts each sum) are
  // resharded as that sum reads them -- reduced over the data devices --
  // where `step` ends, as FSDP reduce-scatters in its post-backward, not
  // where the sum reads them a whole micro-step later: the unreduced
  // gradient dies with its micro-step. The sum finds the reduced buffer in
  // the reshard cache.
  void ReduceAtMicroStepEnd(size_t step) {
    const int64_t begin = micro_steps_[step].first, end = micro_steps_[step + 1].first;
    for (pir::OpId id = static_cast<pir::OpId>(end); id < graph_.num_ops(); ++id) {
      const pir::Op& op = graph_.op(id);
      if (op.kind != pir::OpKind::kAdd || op.name.find(".grad_sum.") == std::string::npos) continue;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        const pir::OpId producer = graph_.value(op.operands[i]).producer;
        if (producer == pir::kNoOp || producer < begin || producer >= end) continue;
        if (ExtensionOf(op.operands[i]).dim >= 0) continue;
        Operand(op.operands[i], shard::RequiredOperandSharding(plan_.rules[id], plan_.ops[id], static_cast<int>(i)),
                id);
      }
    }
  }

  // Per buffer of the program so far: how many instructions write it, the
  // last one that does and the last one that reads it (-1: none).
  struct BufferUses {
    std::vector<int> writes, writer, last_read;
  };
  BufferUses IndexBufferUses() const {
    const size_t n = program_.buffers.size();
    BufferUses uses{std::vector<int>(n, 0), std::vector<int>(n, -1), std::vector<int>(n, -1)};
    for (size_t i = 0; i < program_.instructions.size(); ++i) {
      const cir::Instruction& in = program_.instructions[i];
      for (int b : in.operands) uses.last_read[static_cast<size_t>(b)] = static_cast<int>(i);
      for (int b : in.results) {
        ++uses.writes[static_cast<size_t>(b)];
        uses.writer[static_cast<size_t>(b)] = static_cast<int>(i);
      }
    }
    return uses;
  }

  // An accumulated step's gradient sums ("micro<i>.grad_sum.<param>", train.cc)
  // add in place, as torch's .grad += and a JAX scan's donated carry do: the
  // kernel writes the running sum's buffer (micro-step 0's gradient, reduced)
  // instead of a fresh one, so the step holds one accumulator per parameter,
  // a gradient buffer; the micro-step's gradient it adds is transient. Done
  // when the two have one local type, one instruction writes the sum, and
  // the kernel is the running sum's last reader.
  void AccumulateInPlace() {
    if (micro_steps_.empty()) return;
    const size_t n = program_.buffers.size();
    const BufferUses uses = IndexBufferUses();
    const std::vector<int>& writes = uses.writes;
    const std::vector<int>& writer = uses.writer;
    const std::vector<int>& last_read = uses.last_read;
    std::vector<int> renamed(n, -1);
    auto resolve = [&](int b) {
      while (renamed[static_cast<size_t>(b)] >= 0) b = renamed[static_cast<size_t>(b)];
      return b;
    };
    bool any = false;
    for (const pir::Op& op : graph_.ops()) {  // in program order: a chain's sums in turn
      if (op.kind != pir::OpKind::kAdd || op.name.find(".grad_sum.") == std::string::npos) continue;
      const int sum = placed_[op.results[0]].buffer;
      const int k = writer[static_cast<size_t>(sum)];
      if (k < 0 || writes[static_cast<size_t>(sum)] != 1) continue;
      const cir::Instruction& add = program_.instructions[static_cast<size_t>(k)];
      if (add.kind != cir::InstrKind::kKernel || add.operands.size() != 2) continue;
      const int running = resolve(add.operands[0]);
      const cir::Buffer& a = program_.buffers[static_cast<size_t>(sum)];
      const cir::Buffer& b = program_.buffers[static_cast<size_t>(running)];
      if (a.dtype != b.dtype || a.shape != b.shape || last_read[static_cast<size_t>(add.operands[0])] != k ||
          b.kind == cir::BufferKind::kParameter || b.kind == cir::BufferKind::kInput) {
        continue;
      }
      renamed[static_cast<size_t>(sum)] = running;
      // The sum's own buffer is read and written by none now: not live.
      program_.buffers[static_cast<size_t>(sum)].kind = cir::BufferKind::kActivation;
      program_.buffers[static_cast<size_t>(running)].kind = cir::BufferKind::kGradient;
      if (std::find(accumulators_.begin(), accumulators_.end(), running) == accumulators_.end()) {
        accumulators_.push_back(running);
      }
      transient_gradients_.push_back(add.operands[1]);
      any = true;
    }
    if (!any) return;
    auto rename = [&](int& b) { b = resolve(b); };
    for (cir::Instruction& in : program_.instructions) {
      std::for_each(in.results.begin(), in.results.end(), rename);
      std::for_each(in.operands.begin(), in.operands.end(), rename);
    }
    std::for_each(program_.outputs.begin(), program_.outputs.end(), rename);
    for (pir::ValueId v = 0; v < graph_.num_values(); ++v) {
      if (placed_[v].buffer >= 0) placed_[v].buffer = resolve(placed_[v].buffer);
    }
  }

  // A training step's state is donated to it (jax.jit's donate_argnums, what
  // an optimizer step in place is): an output that replaces a leaf (a new
  // parameter, master weight or moment) is written into the leaf's buffer,
  // so the step holds one copy of its state, not two. Done when the two
  // buffers have one local type, one instruction writes the output, and no
  // instruction after it reads the leaf.
  void DonateUpdatedLeaves() {
    BufferUses uses = IndexBufferUses();
    const std::vector<int>& writes = uses.writes;
    const std::vector<int>& writer = uses.writer;
    std::vector<int>& last_read = uses.last_read;  // a donated leaf is read by none after
    const std::vector<pir::ValueId>& outputs = graph_.outputs();
    // Each donated output's buffer -> its leaf's, renamed in one pass at the
    // end (an output is written once, so no instruction before its writer
    // names it; a leaf is never an output's buffer: it is written by none).
    std::vector<int> renamed(program_.buffers.size(), -1);
    bool any = false;
    for (size_t o = 0; o < outputs.size(); ++o) {
      auto it = updates_.find(outputs[o]);
      if (it == updates_.end()) continue;
      const int out = program_.outputs[o], leaf = placed_[it->second].buffer;
      const cir::Buffer& a = program_.buffers[static_cast<size_t>(out)];
      const cir::Buffer& b = program_.buffers[static_cast<size_t>(leaf)];
      const size_t w = static_cast<size_t>(out);
      if (a.dtype != b.dtype || a.shape != b.shape || writes[w] != 1 ||
          last_read[static_cast<size_t>(leaf)] > writer[w] ||
          std::count(program_.outputs.begin(), program_.outputs.end(), out) != 1) {
        continue;
      }
      renamed[w] = leaf;
      any = true;
      program_.outputs[o] = leaf;
      last_read[static_cast<size_t>(leaf)] = static_cast<int>(program_.instructions.size());  // donated once
    }
    if (!any) return;
    auto rename = [&](int& b) {
      if (renamed[static_cast<size_t>(b)] >= 0) b = renamed[static_cast<size_t>(b)];
    };
    for (cir::Instruction& in : program_.instructions) {
      std::for_each(in.results.begin(), in.results.end(), rename);
      std::for_each(in.operands.begin(), in.operands.end(), rename);
    }
  }

  // The operand's buffer in the sharding the op needs (resharded once per
  // target). A training step's parameter is gathered anew in the backward
  // (FSDP / ZeRO-3 frees the gathered weight after its forward use and
  // gathers it again for the backward); a gradient's resharded form, the one
  // its reader uses, is a gradient buffer.
  //
  // An accumulated step gathers a parameter anew in every micro-step's
  // forward and backward (each its own FSDP unshard), and reduces each
  // micro-step's gradient into the running sum it is added to.
  int Operand(pir::ValueId v, const TensorSharding& required, pir::OpId reader) {
    const Phase phase = PhaseOf(reader);
    if (phase.backward && offloaded_.count(v) && !reloaded_.count(v)) Reload(v);
    const Placed& p = placed_[v];
    if (p.sharding == required) return p.buffer;
    std::string key = std::to_string(v) + "@" + required.ToString(mesh_);
    if (reloaded_.count(v)) key += "@reloaded";  // not the forward's resharded copy
    if (graph_.value(v).role == pir::ValueRole::kParameter) {
      if (phase.backward) key += "@backward";
      if (phase.micro_step > 0) key += "@micro" + std::to_string(phase.micro_step);
    }
    auto it = reshard_cache_.find(key);
    if (it != reshard_cache_.end()) return it->second;
    std::string origin = Origin(v);
    int buffer =
        EmitReshard(mesh_, graph_.value(v).type, p.buffer, p.sharding, required, UniqueName(origin), origin, program_)
            .buffer;
    if (gradients_.count(v)) {
      // The optimizer reads the reduced form; the unreduced sum is a working buffer.
      if (program_.buffers[static_cast<size_t>(p.buffer)].kind == cir::BufferKind::kGradient) {
        program_.buffers[static_cast<size_t>(p.buffer)].kind = cir::BufferKind::kActivation;
      }
      program_.buffers[static_cast<size_t>(buffer)].kind = cir::BufferKind::kGradient;
    }
    reshard_cache_[key] = buffer;
    return buffer;
  }

  // Where op `id` runs in a training step: its micro-step (0 for a step
  // without accumulation) and whether it is in that micro-step's backward
  // (a gradient sum after it counts as backward; the optimizer does not).
  struct Phase {
    int micro_step = 0;
    bool backward = false;
  };
  Phase PhaseOf(pir::OpId id) const {
    if (micro_steps_.empty()) return {0, id >= backward_start_ && id < optimizer_start_};
    if (id >= optimizer_start_) return {};
    Phase phase;
    for (size_t i = 0; i < micro_steps_.size() && id >= micro_steps_[i].first; ++i) {
      phase.micro_step = static_cast<int>(i);
      phase.backward = id >= micro_steps_[i].second;
    }
    return phase;
  }

  // Remat offload (pir/grad/backward.h): a value the forward leaves in host
  // memory comes back before the backward's first read, as a copy kernel
  // named "<origin>.host-reload" that writes a fresh buffer (the DMA from
  // host into HBM). The backward reads that buffer, so the forward's buffer
  // dies at its last forward read: device memory no longer holds the value
  // in between. Its trips over the host link are priced by the simulator
  // (price/simulator.h), which finds these kernels by name.
  void Reload(pir::ValueId v) {
    const Placed p = placed_[v];
    const std::string origin = Origin(v);
    const cir::Buffer& held = program_.buffers[static_cast<size_t>(p.buffer)];
    cir::Buffer copy = held;
    copy.name = UniqueName(origin + ".host-reload");
    copy.kind = cir::BufferKind::kActivation;
    const Bytes bytes = copy.bytes();
    cir::Instruction k;
    k.kind = cir::InstrKind::kKernel;
    k.kernel = cir::KernelKind::kCopy;
    k.name = copy.name;
    k.origin = origin;
    k.results = {program_.AddBuffer(std::move(copy))};
    k.bytes_written = bytes;
    program_.AddInstruction(std::move(k));
    placed_[v] = {program_.instructions.back().results[0], p.sharding};
    reloaded_.insert(v);
  }

  // The kernel `name` of `op` of kind `kind`, priced by `cost` on the local
  // shapes; the caller adds operands and results.
  static cir::Instruction OpKernel(const pir::Op& op, cir::KernelKind kind, const std::string& name,
                                   const pir::OpCost& cost, const std::vector<pir::TensorType>& local_operands,
                                   const std::vector<pir::TensorType>& local_results) {
    cir::Instruction k;
    k.kind = cir::InstrKind::kKernel;
    k.kernel = kind;
    k.name = name;
    k.origin = op.name;
    k.flops = cost.total_flops();
    k.bytes_read = cost.bytes_read;
    k.bytes_written = cost.bytes_written;
    k.dims = pir::ProblemDims(op.kind, local_operands, local_results, op.attrs);
    k.precision = MatrixPrecision(k.kernel, local_operands);
    return k;
  }

  Status LowerOp(pir::OpId id) {
    const pir::Op& op = graph_.op(id);
    const pir::FactorRule& rule = plan_.rules[id];
    const shard::OpSharding& sharding = plan_.ops[id];
    if (ulysses_chunks_ > 1 && op.kind == pir::OpKind::kAttention) {
      AZ_ASSIGN_OR_RETURN(bool chunked, LowerChunkedUlysses(id));
      if (chunked) return Status::Ok();
    }
    std::vector<int> operands;
    std::vector<pir::TensorType> local_operands;
    Extension extension;  // operand 0's, when it is a split pad's result
    for (size_t i = 0; i < op.operands.size(); ++i) {
      TensorSharding required = shard::RequiredOperandSharding(rule, sharding, static_cast<int>(i));
      const Placed& held = placed_[op.operands[i]];
      const pir::TensorType& t = graph_.type(op.operands[i]);
      if (ExtensionOf(op.operands[i]).dim >= 0) {
        // Extended shards are read as held: no resharding knows their rows.
        if (i != 0 || held.sharding != required) {
          return LocatedError(StatusCode::kUnimplemented, op.Location(),
                              "reads a split pad's extended shards other than as the input of a convolution over "
                              "the padded dim (compile/spmd/halo.h)");
        }
        extension = ExtensionOf(op.operands[i]);
        operands.push_back(held.buffer);
        local_operands.push_back({t.dtype, program_.buffers[static_cast<size_t>(held.buffer)].shape});
        continue;
      }
      operands.push_back(Operand(op.operands[i], required, id));
      local_operands.push_back({t.dtype, required.LocalShape(mesh_, t.shape)});
    }
    std::vector<TensorSharding> produced;
    std::vector<pir::TensorType> local_results;
    for (size_t r = 0; r < op.results.size(); ++r) {
      produced.push_back(shard::ProducedResultSharding(rule, sharding, static_cast<int>(r)));
      const pir::TensorType& t = graph_.type(op.results[r]);
      local_results.push_back({t.dtype, produced.back().LocalShape(mesh_, t.shape)});
    }
    // A split windowed dim: the halo exchange (halo.h).
    if (op.kind == pir::OpKind::kConv3d || op.kind == pir::OpKind::kPad) {
      AZ_ASSIGN_OR_RETURN(std::optional<HaloPlan> halo,
                          PlanHalo(mesh_, op, rule, sharding, pir::OperandTypes(graph_, op),
                                   pir::ResultTypes(graph_, op), extension));
      if (halo) return LowerWindowed(op, *halo, operands, local_operands, local_results, produced);
    } else if (extension.dim >= 0) {
      return LocatedError(StatusCode::kUnimplemented, op.Location(),
                          "reads a split pad's extended shards; only a convolution over the padded dim can "
                          "(compile/spmd/halo.h)");
    }
    if (op.kind == pir::OpKind::kUpsample) {
      AZ_RETURN_IF_ERROR(CheckUpsampleBlocks(mesh_, op, rule, sharding, graph_.type(op.operands[0])));
    }
    // Reshape: a bitcast of the local buffer (the factor rule keeps the
    // sharding across it); the buffer keeps the shape it was written with.
    if (op.kind == pir::OpKind::kReshape) {
      placed_[op.results[0]] = {operands[0], produced[0]};
      return Status::Ok();
    }
    if (op.kind == pir::OpKind::kAttention) {
      int kv = rule.FindFactor("kv"), q = rule.FindFactor("q");
      const auto& kv_axes = sharding.factor_axes[static_cast<size_t>(kv)];
      const auto& q_axes = sharding.factor_axes[static_cast<size_t>(q)];
      bool ring = !kv_axes.empty() && std::all_of(kv_axes.begin(), kv_axes.end(), [&](int a) {
        return std::find(q_axes.begin(), q_axes.end(), a) != q_axes.end();
      });
      if (ring) return LowerRingAttention(op, operands, local_operands, local_results, produced, kv_axes);
      if (!kv_axes.empty()) {
        // Softmax normalizes each kv block on its own: the blocks' outputs are
        // not partial sums, they need a log-sum-exp merge this compiler only
        // emits inside ring attention.
        return LocatedError(StatusCode::kUnimplemented, op.Location(),
                            "attention with its key sequence sharded on axes its queries do not share: shard the "
                            "query sequence on the same axes (ring attention) or gather the keys");
      }
    }
    if (op.kind == pir::OpKind::kAttentionGrad) {
      std::vector<int> ring_axes = RingAxesOf(rule, sharding);
      if (!ring_axes.empty()) {
        return LowerRingAttentionGrad(op, operands, local_operands, local_results, produced, ring_axes);
      }
    }
    pir::OpCost cost = pir::ComputeOpCost(op.kind, local_operands, local_results, op.attrs);
    // A sharded normalized dim: the row statistics are all-reduced before the
    // kernel finishes (the kernel's cost is the whole local op).
    // A row is one position of every dim that is not normalized: group norm
    // normalizes several factors at once (a group's channels and every spatial
    // dim), and its statistics are all-reduced once over all their axes.
    std::vector<int> statistics;
    std::vector<int> normalized_axes;
    int64_t row_length = 1;
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind != pir::FactorKind::kNormalized) continue;
      const std::vector<int>& axes = sharding.factor_axes[f];
      int64_t n = mesh_.AxesSize(axes);
      row_length *= (rule.factors[f].size + n - 1) / n;
      normalized_axes.insert(normalized_axes.end(), axes.begin(), axes.end());
    }
    if (!normalized_axes.empty()) {
      const std::vector<int>& axes = normalized_axes;
      int64_t rows = local_results[0].NumElements() / row_length;
      pir::Statistics stats = pir::StatisticsOf(op.kind);
      int source = operands[0];
      for (int round = 0; round < stats.rounds; ++round) {
        cir::Instruction reduce;
        reduce.kind = cir::InstrKind::kCollective;
        reduce.collective = cir::CollectiveKind::kAllReduce;
        reduce.collective_bytes = Bytes(rows * stats.values * 4);
        reduce.groups = GroupsOverAxes(mesh_, axes);
        reduce.name = UniqueName(op.name + ".statistics");
        reduce.origin = op.name;
        reduce.operands = {source};
        cir::Buffer buffer;
        buffer.name = reduce.name;
        buffer.kind = cir::BufferKind::kCommunication;
        buffer.dtype = pir::DType::kF32;
        buffer.shape = {rows * stats.values};
        source = program_.AddBuffer(std::move(buffer));
        reduce.results = {source};
        program_.AddInstruction(std::move(reduce));
      }
      statistics.push_back(source);
    }
    cir::Instruction k = OpKernel(op, KernelKindOf(op, cost), UniqueName(op.name), cost, local_operands, local_results);
    k.operands = operands;
    k.operands.insert(k.operands.end(), statistics.begin(), statistics.end());
    for (size_t r = 0; r < op.results.size(); ++r) {
      const cir::BufferKind kind =
          gradients_.count(op.results[r]) ? cir::BufferKind::kGradient : cir::BufferKind::kActivation;
      int buffer = NewBuffer(op.name, kind, graph_.type(op.results[r]), produced[r]);
      k.results.push_back(buffer);
      placed_[op.results[r]] = {buffer, produced[r]};
    }
    program_.AddInstruction(std::move(k));
    return Status::Ok();
  }

  // A convolution or pad over a split windowed dim (halo.h: EmitWindowed);
  // a pad's result is held as extended shards for the convolution that reads it.
  Status LowerWindowed(const pir::Op& op, const HaloPlan& halo, const std::vector<int>& operands,
                       const std::vector<pir::TensorType>& local_operands,
                       const std::vector<pir::TensorType>& local_results, const std::vector<TensorSharding>& produced) {
    const WindowedNames names{UniqueName(op.name + ".halo-before"), UniqueName(op.name + ".halo-after"),
                              UniqueName(op.name + ".halo-concat"), UniqueName(op.name)};
    const int result = EmitWindowed(op, halo, operands, local_operands, local_results[0], names, program_);
    placed_[op.results[0]] = {result, produced[0]};
    if (op.kind == pir::OpKind::kPad) extended_[op.results[0]] = {halo.window.dim, halo.before, halo.after};
    return Status::Ok();
  }

  // The kv axes of an attention(-grad) when every one is also a q axis (a
  // ring), else empty.
  static std::vector<int> RingAxesOf(const pir::FactorRule& rule, const shard::OpSharding& sharding) {
    const auto& kv_axes = sharding.factor_axes[static_cast<size_t>(rule.FindFactor("kv"))];
    const auto& q_axes = sharding.factor_axes[static_cast<size_t>(rule.FindFactor("q"))];
    bool ring = !kv_axes.empty() && std::all_of(kv_axes.begin(), kv_axes.end(), [&](int a) {
      return std::find(q_axes.begin(), q_axes.end(), a) != q_axes.end();
    });
    return ring ? kv_axes : std::vector<int>{};
  }

  // The ring's collective-permute pairs over `axes`: each device sends to its
  // successor in its group.
  std::vector<std::pair<int, int>> RingPairs(const std::vector<int>& axes) const {
    cir::ReplicaGroups rings = GroupsOverAxes(mesh_, axes);
    std::vector<std::pair<int, int>> pairs;
    for (const auto& ring : rings.groups) {
      for (size_t i = 0; i < ring.size(); ++i) pairs.push_back({ring[i], ring[(i + 1) % ring.size()]});
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

  // `name` must be unique (UniqueName).
  int Permute(const std::string& name, const std::string& origin, const std::vector<int>& operands,
              const std::vector<int>& results, Bytes bytes, const std::vector<std::pair<int, int>>& pairs) {
    cir::Instruction permute;
    permute.kind = cir::InstrKind::kCollective;
    permute.collective = cir::CollectiveKind::kCollectivePermute;
    permute.collective_bytes = bytes;
    permute.pairs = pairs;
    permute.name = name;
    permute.origin = origin;
    permute.operands = operands;
    permute.results = results;
    return program_.AddInstruction(std::move(permute));
  }

  int FlatBuffer(const std::string& name, cir::BufferKind kind, pir::DType dtype, int64_t elements) {
    cir::Buffer b;
    b.name = name;
    b.kind = kind;
    b.dtype = dtype;
    b.shape = {elements};
    return program_.AddBuffer(std::move(b));
  }

  // The LSE merge inside a ring completes the sum over its kv blocks: no
  // result stays partial over the ring's axes.
  static void DropRingPartials(std::vector<TensorSharding>& produced, const std::vector<int>& axes) {
    for (TensorSharding& result : produced) {
      auto& partial = result.partial;
      for (int a : axes) partial.erase(std::remove(partial.begin(), partial.end(), a), partial.end());
    }
  }

  // Ring attention's backward over `axes` (n devices per ring), as
  // ring-flash-attention runs it: each device keeps its query block (q, o,
  // dO, lse) and its dQ; the (k, v) blocks rotate as in the forward (n - 1
  // permutes), each travelling with an f32 accumulator of its (dK, dV), which
  // every device adds its block's contribution to and passes on. After the
  // n-th block kernel an accumulator sits one step past its owner, so it moves
  // once more: n permutes of (dK, dV), the last one delivering dK and dV home.
  // Each block kernel is the flash-attention backward of one (q block, kv
  // block) pair: the op's cost on the local shapes.
  Status LowerRingAttentionGrad(const pir::Op& op, const std::vector<int>& operands,
                                const std::vector<pir::TensorType>& local_operands,
                                const std::vector<pir::TensorType>& local_results,
                                std::vector<TensorSharding> produced, const std::vector<int>& axes) {
    const int64_t n = mesh_.AxesSize(axes);
    DropRingPartials(produced, axes);
    pir::OpCost block = pir::ComputeOpCost(op.kind, local_operands, local_results, op.attrs);
    const int64_t kv_elements = local_operands[1].NumElements() + local_operands[2].NumElements();
    const Bytes kv_bytes = Bytes(local_operands[1].NumBytes() + local_operands[2].NumBytes());
    const Bytes accumulator_bytes = Bytes(kv_elements * 4);
    std::vector<int> outs;
    for (size_t r = 0; r < op.results.size(); ++r) {
      outs.push_back(NewBuffer(op.name, cir::BufferKind::kActivation, graph_.type(op.results[r]), produced[r]));
    }
    const std::vector<std::pair<int, int>> pairs = RingPairs(axes);
    std::vector<int> kv = {operands[1], operands[2]};
    int accumulator = -1;  // the (dK, dV) accumulator received from the ring predecessor
    for (int64_t step = 0; step < n; ++step) {
      const std::string suffix = std::to_string(step);
      // The op's cost on one (q block, kv block) pair.
      const std::string kernel = UniqueName(op.name + ".ring" + std::to_string(step));
      cir::Instruction k = OpKernel(op, cir::KernelKind::kAttention, kernel, block, local_operands, local_results);
      k.operands = {operands[0]};
      k.operands.insert(k.operands.end(), kv.begin(), kv.end());
      k.operands.insert(k.operands.end(), operands.begin() + 3, operands.end());
      if (accumulator >= 0) k.operands.push_back(accumulator);
      const int sum = FlatBuffer(k.name + ".dkv", cir::BufferKind::kActivation, pir::DType::kF32, kv_elements);
      k.results = {outs[0], sum};
      program_.AddInstruction(std::move(k));
      if (step + 1 == n) {
        Permute(UniqueName(op.name + ".dkv-permute" + suffix), op.name, {sum}, {outs[1], outs[2]}, accumulator_bytes,
                pairs);
        break;
      }
      const std::string kv_name = UniqueName(op.name + ".kv-permute" + suffix);
      const int next_kv = FlatBuffer(kv_name, cir::BufferKind::kCommunication, local_operands[1].dtype, kv_elements);
      Permute(kv_name, op.name, kv, {next_kv}, kv_bytes, pairs);
      kv = {next_kv};
      const std::string dkv_name = UniqueName(op.name + ".dkv-permute" + suffix);
      accumulator = FlatBuffer(dkv_name, cir::BufferKind::kCommunication, pir::DType::kF32, kv_elements);
      Permute(dkv_name, op.name, {sum}, {accumulator}, accumulator_bytes, pairs);
    }
    for (size_t r = 0; r < op.results.size(); ++r) placed_[op.results[r]] = {outs[r], produced[r]};
    return Status::Ok();
  }

  // Ring attention over `axes` (n devices in each ring): each device keeps its
  // query block and sees every kv block once: n block kernels, with a
  // collective-permute of the (k, v) block to the ring neighbour between them.
  Status LowerRingAttention(const pir::Op& op, const std::vector<int>& operands,
                            const std::vector<pir::TensorType>& local_operands,
                            const std::vector<pir::TensorType>& local_results, std::vector<TensorSharding> produced,
                            const std::vector<int>& axes) {
    // The LSE merge inside the ring completes the sum over kv blocks (of the
    // output and, in a training forward, of the log-sum-exp rows).
    DropRingPartials(produced, axes);
    std::vector<int> outs;
    for (size_t r = 0; r < op.results.size(); ++r) {
      outs.push_back(NewBuffer(op.name, cir::BufferKind::kActivation, graph_.type(op.results[r]), produced[r]));
    }
    RingAttentionSteps(op, operands, local_operands, local_results, outs, axes, op.name);
    for (size_t r = 0; r < op.results.size(); ++r) placed_[op.results[r]] = {outs[r], produced[r]};
    return Status::Ok();
  }

  // The ring's kernels and kv permutes writing `outs` (names from `base`:
  // "<base>.ring<i>", "<base>.kv-permute<i>").
  void RingAttentionSteps(const pir::Op& op, const std::vector<int>& operands,
                          const std::vector<pir::TensorType>& local_operands,
                          const std::vector<pir::TensorType>& local_results, const std::vector<int>& outs,
                          const std::vector<int>& axes, const std::string& base) {
    const int64_t n = mesh_.AxesSize(axes);
    pir::OpCost block = pir::ComputeOpCost(op.kind, local_operands, local_results, op.attrs);
    const int64_t kv_elements = local_operands[1].NumElements() + local_operands[2].NumElements();
    const Bytes kv_bytes = Bytes(local_operands[1].NumBytes() + local_operands[2].NumBytes());
    const std::vector<std::pair<int, int>> pairs = RingPairs(axes);
    std::vector<int> kv = {operands[1], operands[2]};
    for (int64_t step = 0; step < n; ++step) {
      // The op's cost on one (q block, kv block) pair.
      const std::string kernel = UniqueName(base + ".ring" + std::to_string(step));
      cir::Instruction k = OpKernel(op, cir::KernelKind::kAttention, kernel, block, local_operands, local_results);
      k.operands = {operands[0]};
      k.operands.insert(k.operands.end(), kv.begin(), kv.end());
      // A mask tensor stays: each device holds its query rows over every key (RuleAttention).
      if (operands.size() == 4) k.operands.push_back(operands[3]);
      k.results = outs;
      program_.AddInstruction(std::move(k));
      if (step + 1 == n) break;
      const std::string kv_name = UniqueName(base + ".kv-permute" + std::to_string(step));
      const int next_kv = FlatBuffer(kv_name, cir::BufferKind::kCommunication, local_operands[1].dtype, kv_elements);
      Permute(kv_name, op.name, kv, {next_kv}, kv_bytes, pairs);
      kv = {next_kv};
    }
  }

  // Whether resharding a `type` from `from` to `to` is all-to-alls alone (at
  // least one): EmitReshard tried on a scratch program.
  bool AllToAllsOnly(const pir::TensorType& type, const TensorSharding& from, const TensorSharding& to) const {
    if (from == to || !from.partial.empty()) return false;
    cir::Program scratch;
    scratch.num_devices = program_.num_devices;
    cir::Buffer held;
    held.name = "held";
    held.kind = cir::BufferKind::kActivation;
    held.dtype = type.dtype;
    held.shape = from.LocalShape(mesh_, type.shape);
    const int buffer = scratch.AddBuffer(std::move(held));
    EmitReshard(mesh_, type, buffer, from, to, "scratch", "scratch", scratch);
    return !scratch.instructions.empty() &&
           std::all_of(scratch.instructions.begin(), scratch.instructions.end(), [](const cir::Instruction& in) {
             return in.kind == cir::InstrKind::kCollective && in.collective == cir::CollectiveKind::kAllToAll;
           });
  }

  // How often a value is read, and by which op and operand (the last read):
  // indexed once, on the first chunked attention, for the whole graph.
  struct Use {
    int count = 0;
    pir::OpId reader = pir::kNoOp;
    int index = -1;
  };
  const Use& UseOf(pir::ValueId v) {
    if (uses_.empty()) {
      uses_.resize(static_cast<size_t>(graph_.num_values()));
      for (pir::OpId j = 0; j < graph_.num_ops(); ++j) {
        const std::vector<pir::ValueId>& reads = graph_.op(j).operands;
        for (size_t k = 0; k < reads.size(); ++k) {
          Use& u = uses_[static_cast<size_t>(reads[k])];
          ++u.count;
          u.reader = j;
          u.index = static_cast<int>(k);
        }
      }
    }
    return uses_[static_cast<size_t>(v)];
  }

  // [batch, sequence, heads, dim] with `heads` heads.
  static pir::TensorType WithHeads(pir::TensorType type, int64_t heads) {
    type.shape[2] = heads;
    return type;
  }

  // Chunked Ulysses attention (spmd_compiler.h): false when the op is not
  // one (the caller lowers it whole).
  StatusOr<bool> LowerChunkedUlysses(pir::OpId id) {
    const pir::Op& op = graph_.op(id);
    const pir::FactorRule& rule = plan_.rules[id];
    const shard::OpSharding& sharding = plan_.ops[id];
    if (op.operands.size() != 3 || op.results.size() != 1) return false;  // a mask, or a training forward's lse
    const int h = rule.FindFactor("h");
    if (h < 0 || rule.FindFactor("g") >= 0) return false;  // grouped-query heads
    const int64_t shards = mesh_.AxesSize(sharding.factor_axes[static_cast<size_t>(h)]);
    const int64_t heads = graph_.type(op.operands[0]).shape[2];
    const std::vector<std::pair<int64_t, int64_t>> ranges = UlyssesHeadChunks(heads, shards, ulysses_chunks_);
    if (shards <= 1 || ranges.size() <= 1) return false;
    const std::vector<int>& kv_axes = sharding.factor_axes[static_cast<size_t>(rule.FindFactor("kv"))];
    const std::vector<int> ring_axes = RingAxesOf(rule, sharding);
    if (!kv_axes.empty() && ring_axes.empty()) return false;  // the whole lowering says why it cannot
    std::vector<TensorSharding> required(3);
    std::vector<bool> chunked(3);
    for (int i = 0; i < 3; ++i) {
      const pir::ValueId v = op.operands[static_cast<size_t>(i)];
      if (ExtensionOf(v).dim >= 0) return false;
      required[static_cast<size_t>(i)] = shard::RequiredOperandSharding(rule, sharding, i);
      chunked[static_cast<size_t>(i)] =
          AllToAllsOnly(graph_.type(v), placed_[v].sharding, required[static_cast<size_t>(i)]);
    }
    if (!chunked[0]) return false;  // the queries need no all-to-all: no Ulysses here
    std::vector<TensorSharding> produced = {shard::ProducedResultSharding(rule, sharding, 0)};
    if (!ring_axes.empty()) DropRingPartials(produced, ring_axes);
    // The output's one reader, when its sharding is all-to-alls away: each
    // chunk's output goes there on its own.
    const pir::ValueId result = op.results[0];
    const pir::TensorType& result_type = graph_.type(result);
    std::optional<TensorSharding> reader_needs;
    if (std::find(graph_.outputs().begin(), graph_.outputs().end(), result) == graph_.outputs().end()) {
      const Use& use = UseOf(result);
      if (use.count == 1) {
        TensorSharding to = shard::RequiredOperandSharding(plan_.rules[use.reader], plan_.ops[use.reader], use.index);
        if (AllToAllsOnly(result_type, produced[0], to)) reader_needs = std::move(to);
      }
    }
    // Operands resharded otherwise than by all-to-alls are resharded whole.
    std::vector<int> whole(3, -1);
    for (int i = 0; i < 3; ++i) {
      if (!chunked[static_cast<size_t>(i)]) {
        whole[static_cast<size_t>(i)] =
            Operand(op.operands[static_cast<size_t>(i)], required[static_cast<size_t>(i)], id);
      }
    }
    // Without a chunked reader every chunk's kernel writes its heads of one buffer.
    const int held_result =
        reader_needs ? -1 : NewBuffer(op.name, cir::BufferKind::kActivation, result_type, produced[0]);
    std::vector<int> chunk_results;
    for (size_t c = 0; c < ranges.size(); ++c) {
      const int64_t chunk_heads = ranges[c].second - ranges[c].first;
      const std::string tag = ".ulysses-chunk" + std::to_string(c);
      std::vector<int> operands(3);
      std::vector<pir::TensorType> local_operands(3);
      for (size_t i = 0; i < 3; ++i) {
        const pir::ValueId v = op.operands[i];
        const pir::TensorType type = WithHeads(graph_.type(v), chunk_heads);
        local_operands[i] = {type.dtype, required[i].LocalShape(mesh_, type.shape)};
        if (!chunked[i]) {
          operands[i] = whole[i];
          continue;
        }
        const std::string origin = Origin(v);
        operands[i] = EmitReshard(mesh_, type, placed_[v].buffer, placed_[v].sharding, required[i],
                                  UniqueName(origin + tag), origin, program_)
                          .buffer;
      }
      const pir::TensorType out_type = WithHeads(result_type, chunk_heads);
      const std::vector<pir::TensorType> local_results = {
          {out_type.dtype, produced[0].LocalShape(mesh_, out_type.shape)}};
      const int out = held_result >= 0
                          ? held_result
                          : NewBuffer(op.name + tag, cir::BufferKind::kActivation, out_type, produced[0]);
      if (ring_axes.empty()) {
        const pir::OpCost cost = pir::ComputeOpCost(op.kind, local_operands, local_results, op.attrs);
        cir::Instruction k =
            OpKernel(op, cir::KernelKind::kAttention, UniqueName(op.name + tag), cost, local_operands, local_results);
        k.operands = operands;
        k.results = {out};
        program_.AddInstruction(std::move(k));
      } else {
        RingAttentionSteps(op, operands, local_operands, local_results, {out}, ring_axes, op.name + tag);
      }
      chunk_results.push_back(out);
    }
    if (!reader_needs) {
      placed_[result] = {held_result, produced[0]};
      return true;
    }
    // Each chunk's output all-to-all writes its heads of the buffer the reader reads.
    const int assembled = NewBuffer(op.name, cir::BufferKind::kActivation, result_type, *reader_needs);
    for (size_t c = 0; c < ranges.size(); ++c) {
      const pir::TensorType out_type = WithHeads(result_type, ranges[c].second - ranges[c].first);
      const std::string name = UniqueName(op.name + ".ulysses-chunk" + std::to_string(c) + ".output");
      const int chunk_out =
          EmitReshard(mesh_, out_type, chunk_results[c], produced[0], *reader_needs, name, op.name, program_).buffer;
      if (chunk_out == static_cast<int>(program_.buffers.size()) - 1) program_.buffers.pop_back();
      program_.instructions.back().results = {assembled};
    }
    placed_[result] = {assembled, *reader_needs};
    return true;
  }

  const pir::Graph& graph_;
  const shard::ShardingPlan& plan_;
  const shard::Mesh& mesh_;
  cir::Program program_;
  std::vector<Placed> placed_;
  std::map<pir::ValueId, Extension> extended_;
  std::map<std::string, int> reshard_cache_;
  std::set<std::string> names_;
  std::set<pir::ValueId> gradients_;
  std::set<pir::ValueId> offloaded_, reloaded_;  // remat offload: host-kept values, and those brought back
  std::map<pir::ValueId, pir::ValueId> updates_;  // output value -> the leaf it replaces
  int64_t backward_start_ = -1, optimizer_start_ = -1;
  std::vector<std::pair<int64_t, int64_t>> micro_steps_;  // accumulated steps: (first op, backward start)
  std::vector<int> transient_gradients_;                   // AccumulateInPlace: the added micro-step gradients
  std::vector<int> accumulators_;                          // AccumulateInPlace: the running sums' buffers
  const int64_t ulysses_chunks_;
  std::vector<Use> uses_;  // UseOf's index, built on first use
};


// An accumulated step's in-place gradient sums (kernels that read and
// write an accumulator buffer, fused or not) move up to just after the
// instruction that completes the last of their operands (its writer, or the
// -done of the reduction writing it), as FSDP adds each reduce-scattered
// gradient into .grad when it lands: the micro-step's reduced gradient is
// then live only from its reduction to its add, not to the end of the
// backward. Every other instruction keeps its order; the sums wait for
// nothing the schedule did not already wait for.
void HoistGradientSums(cir::Program& program, const std::vector<int>& accumulators) {
  if (accumulators.empty()) return;
  std::vector<char> accumulator(program.buffers.size(), 0);
  for (int b : accumulators) accumulator[static_cast<size_t>(b)] = 1;
  auto is_accumulator = [&](int b) { return accumulator[static_cast<size_t>(b)] != 0; };
  std::vector<int> complete(program.buffers.size(), -1);  // per buffer: its last completing instruction so far
  // Per instruction: (the instruction it follows, 1), or (itself, 0) where it stays.
  std::vector<std::pair<int, int>> key(program.instructions.size());
  bool moved = false;
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const cir::Instruction& in = program.instructions[i];
    key[i] = {static_cast<int>(i), 0};
    const bool sum = in.kind == cir::InstrKind::kKernel && !in.results.empty() &&
                     std::all_of(in.results.begin(), in.results.end(), is_accumulator) &&
                     std::any_of(in.operands.begin(), in.operands.end(), is_accumulator);
    if (sum) {
      int after = -1;
      for (int b : in.operands) after = std::max(after, complete[static_cast<size_t>(b)]);
      if (after >= 0 && after + 1 < static_cast<int>(i)) {
        key[i] = {after, 1};
        moved = true;
      }
    }
    if (in.kind == cir::InstrKind::kCollectiveStart) continue;  // its results complete at its done
    const std::vector<int>& written =
        in.kind == cir::InstrKind::kCollectiveDone ? program.instructions[static_cast<size_t>(in.start)].results
                                                   : in.results;
    for (int b : written) complete[static_cast<size_t>(b)] = static_cast<int>(i);
  }
  if (!moved) return;
  std::vector<int> order(program.instructions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)]; });
  std::vector<int> position(order.size());
  for (size_t i = 0; i < order.size(); ++i) position[static_cast<size_t>(order[i])] = static_cast<int>(i);
  std::vector<cir::Instruction> reordered;
  reordered.reserve(order.size());
  for (int i : order) reordered.push_back(std::move(program.instructions[static_cast<size_t>(i)]));
  for (cir::Instruction& in : reordered) {
    if (in.kind == cir::InstrKind::kCollectiveDone) in.start = position[static_cast<size_t>(in.start)];
  }
  program.instructions = std::move(reordered);
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> UlyssesHeadChunks(int64_t heads, int64_t shards, int64_t chunks) {
  if (chunks <= 1 || shards < 1 || heads % shards != 0) return {{0, heads}};
  const int64_t groups = heads / shards;
  chunks = std::min(chunks, groups);
  const int64_t per_chunk = std::max<int64_t>(1, groups / chunks);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  int64_t start = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t end = c == chunks - 1 ? groups : std::min(start + per_chunk, groups);
    if (start >= end) break;
    ranges.push_back({start * shards, end * shards});
    start = end;
  }
  return ranges;
}

pir::DType MatrixPrecision(cir::KernelKind kind, const std::vector<pir::TensorType>& operands) {
  if (kind != cir::KernelKind::kMatmul && kind != cir::KernelKind::kAttention &&
      kind != cir::KernelKind::kConvolution) {
    return pir::DType::kBF16;
  }
  std::optional<pir::DType> precision;
  for (size_t i = 0; i < std::min<size_t>(2, operands.size()); ++i) {
    if (!pir::IsFloat(operands[i].dtype)) continue;
    precision = precision ? pir::PromoteTypes(*precision, operands[i].dtype) : operands[i].dtype;
  }
  return precision.value_or(pir::DType::kBF16);
}

StatusOr<cir::Program> SpmdCompiler::Compile(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                             const CompileOptions& options) {
  AZ_RETURN_IF_ERROR(shard::VerifyPlan(graph, plan));
  Lowering lowering(graph, plan, options.ulysses_chunks);
  AZ_ASSIGN_OR_RETURN(cir::Program program, lowering.Run());
  if (options.fuse_elementwise) FuseElementwise(program);
  if (options.combine_threshold.value() > 0) CombineCollectives(program, options.combine_threshold);
  if (options.async_collectives) {
    ScheduleAsync(program, options.prefetch_depth);
    OverlapGradientReductions(program, options.gradient_bucket);
  }
  HoistGradientSums(program, lowering.accumulators());
  for (int b : lowering.transient_gradients()) {
    cir::Buffer& buffer = program.buffers[static_cast<size_t>(b)];
    if (buffer.kind == cir::BufferKind::kGradient) buffer.kind = cir::BufferKind::kActivation;
  }
  AZ_RETURN_IF_ERROR(cir::VerifyProgram(program));
  return program;
}

}  // namespace az::compile
