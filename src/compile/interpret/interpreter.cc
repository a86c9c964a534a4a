// The reference interpreter (interpreter.h): the whole-graph run, then the
// per-device simulation of a sharding plan. The kernels are in kernels.cc.
#include "compile/interpret/interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <set>

#include "cir/program.h"
#include "compile/spmd/reshard.h"
#include "compile/interpret/kernels.h"
#include "compile/interpret/windows.h"
#include "compile/spmd/halo.h"
#include "pir/rules/rule.h"

namespace az::compile {

namespace {

using pir::Shape;
using shard::Mesh;
using shard::TensorSharding;
using interpret::Attention;
using interpret::CheckLeaves;
using interpret::Execute;
using interpret::KernelContext;
using interpret::Next;
using interpret::OpLabel;
using interpret::Strides;
using interpret::Unimplemented;
using interpret::Zeros;

}  // namespace

StatusOr<std::vector<Tensor>> RunReference(const pir::Graph& graph, const std::map<pir::ValueId, Tensor>& leaves) {
  AZ_RETURN_IF_ERROR(CheckLeaves(graph, leaves));
  std::vector<Tensor> values(static_cast<size_t>(graph.num_values()));
  for (const auto& [id, tensor] : leaves) {
    if (graph.IsValidValue(id)) values[static_cast<size_t>(id)] = tensor;
  }
  for (const pir::Op& op : graph.ops()) {
    std::vector<const Tensor*> operands;
    KernelContext ctx;
    for (pir::ValueId v : op.operands) {
      operands.push_back(&values[static_cast<size_t>(v)]);
      ctx.global_operand_shapes.push_back(graph.type(v).shape);
    }
    for (pir::ValueId r : op.results) ctx.result_shapes.push_back(graph.type(r).shape);
    auto results = Execute(op, operands, ctx);
    if (!results.ok()) return Status(results.status().code(), OpLabel(op) + ": " + results.status().message());
    for (size_t r = 0; r < op.results.size(); ++r) {
      AZ_CHECK_MSG(results->at(r).shape == graph.type(op.results[r]).shape, OpLabel(op) + ": result shape");
      values[static_cast<size_t>(op.results[r])] = std::move(results->at(r));
    }
  }
  std::vector<Tensor> outputs;
  for (pir::ValueId v : graph.outputs()) outputs.push_back(values[static_cast<size_t>(v)]);
  return outputs;
}

// ---------------------------------------------------------------- devices

namespace {

// A value as the devices hold it: one block per device, in `sharding`.
struct Held {
  TensorSharding sharding;
  std::vector<Tensor> blocks;  // by logical device id
};

int64_t DeviceOf(const Mesh& mesh, const std::vector<int64_t>& coords) {
  int64_t id = 0;
  for (int a = 0; a < mesh.num_axes(); ++a) id = id * mesh.axis_size(a) + coords[static_cast<size_t>(a)];
  return id;
}

std::vector<int64_t> CoordsOf(const Mesh& mesh, int64_t device) {
  std::vector<int64_t> coords;
  for (int a = 0; a < mesh.num_axes(); ++a) coords.push_back(mesh.Coordinate(device, a));
  return coords;
}

// Global index of the first element of `device`'s block, per dim.
std::vector<int64_t> BlockStart(const Mesh& mesh, const TensorSharding& s, const Shape& shape, int64_t device) {
  Shape local = s.LocalShape(mesh, shape);
  std::vector<int64_t> start(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t index = 0;
    for (int axis : s.dims[d]) index = index * mesh.axis_size(axis) + mesh.Coordinate(device, axis);
    start[d] = index * local[d];
  }
  return start;
}

// The devices that differ from `device` only on `axes` (itself first).
std::vector<int64_t> Peers(const Mesh& mesh, int64_t device, const std::vector<int>& axes) {
  std::vector<int64_t> peers{device};
  std::vector<int64_t> coords = CoordsOf(mesh, device);
  for (int64_t other = 0; other < mesh.num_devices(); ++other) {
    if (other == device) continue;
    bool same = true;
    for (int a = 0; a < mesh.num_axes(); ++a) {
      bool in_group = std::find(axes.begin(), axes.end(), a) != axes.end();
      if (!in_group && mesh.Coordinate(other, a) != coords[static_cast<size_t>(a)]) same = false;
    }
    if (same) peers.push_back(other);
  }
  return peers;
}

// Cuts a whole tensor into every device's block (zeros past the end).
Held Cut(const Mesh& mesh, const Tensor& global, const TensorSharding& s) {
  Held held{s, {}};
  Shape local = s.LocalShape(mesh, global.shape);
  std::vector<int64_t> st = Strides(global.shape);
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    Tensor block = Zeros(local);
    std::vector<int64_t> start = BlockStart(mesh, s, global.shape, device), index(local.size(), 0);
    for (int64_t flat = 0; flat < block.NumElements(); ++flat, Next(index, local)) {
      int64_t at = 0;
      bool inside = true;
      for (size_t d = 0; d < index.size(); ++d) {
        int64_t g = start[d] + index[d];
        inside &= g < global.shape[d];
        at += g * st[d];
      }
      if (inside) block.data[static_cast<size_t>(flat)] = global.data[static_cast<size_t>(at)];
    }
    held.blocks.push_back(std::move(block));
  }
  return held;
}

// The whole tensor: blocks placed, partial axes summed; replicas must agree.
StatusOr<Tensor> Assemble(const Mesh& mesh, const Held& held, const Shape& shape, const std::string& what) {
  Tensor global = Zeros(shape);
  std::vector<int> replica_axes;
  for (int a = 0; a < mesh.num_axes(); ++a) {
    bool used = std::count(held.sharding.partial.begin(), held.sharding.partial.end(), a) > 0;
    for (const auto& dim : held.sharding.dims) used |= std::count(dim.begin(), dim.end(), a) > 0;
    if (!used) replica_axes.push_back(a);
  }
  std::vector<int64_t> st = Strides(shape);
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    const Tensor& block = held.blocks[static_cast<size_t>(device)];
    std::vector<int64_t> coords = CoordsOf(mesh, device);
    bool canonical = true;
    for (int a : replica_axes) {
      canonical &= coords[static_cast<size_t>(a)] == 0;
      coords[static_cast<size_t>(a)] = 0;
    }
    if (!canonical) {
      const Tensor& first = held.blocks[static_cast<size_t>(DeviceOf(mesh, coords))];
      for (size_t i = 0; i < block.data.size(); ++i) {
        double a = block.data[i], b = first.data[i];
        if (std::abs(a - b) > 1e-12 * std::max({1.0, std::abs(a), std::abs(b)})) {
          return InternalError(what + ": device " + std::to_string(device) + "'s replica differs from device " +
                               std::to_string(DeviceOf(mesh, coords)) + "'s");
        }
      }
      continue;
    }
    std::vector<int64_t> start = BlockStart(mesh, held.sharding, shape, device), index(block.shape.size(), 0);
    for (int64_t flat = 0; flat < block.NumElements(); ++flat, Next(index, block.shape)) {
      int64_t at = 0;
      bool inside = true;
      for (size_t d = 0; d < index.size(); ++d) {
        int64_t g = start[d] + index[d];
        inside &= g < shape[d];
        at += g * st[d];
      }
      if (inside) global.data[static_cast<size_t>(at)] += block.data[static_cast<size_t>(flat)];
    }
  }
  return global;
}

// ---------------------------------------------------------------- resharding

// One step of reshard.cc's plan; `next` is the sharding after it.
struct Step {
  enum Kind { kAllReduce, kReduceScatter, kAllToAll, kAllGather, kSlice } kind;
  std::vector<int> axes;
  TensorSharding next;
};

bool Extends(const std::vector<int>& have, const std::vector<int>& want, int axis) {
  return have.size() < want.size() && std::equal(have.begin(), have.end(), want.begin()) && want[have.size()] == axis;
}

// The same steps, in the same order, as EmitReshard (reshard.h).
std::vector<Step> PlanReshard(const TensorSharding& from, const TensorSharding& to) {
  std::vector<Step> steps;
  TensorSharding cur = from;
  const size_t rank = from.dims.size();
  std::vector<int> reduce_axes;
  for (int axis : from.partial) {
    if (std::count(to.partial.begin(), to.partial.end(), axis)) continue;
    int scatter_dim = -1;
    for (size_t d = 0; d < rank; ++d) {
      if (Extends(cur.dims[d], to.dims[d], axis)) scatter_dim = static_cast<int>(d);
    }
    if (scatter_dim < 0) {
      reduce_axes.push_back(axis);
      continue;
    }
    TensorSharding next = cur;
    next.partial.erase(std::find(next.partial.begin(), next.partial.end(), axis));
    next.dims[static_cast<size_t>(scatter_dim)].push_back(axis);
    steps.push_back({Step::kReduceScatter, {axis}, next});
    cur = next;
  }
  if (!reduce_axes.empty()) {
    TensorSharding next = cur;
    for (int axis : reduce_axes) next.partial.erase(std::find(next.partial.begin(), next.partial.end(), axis));
    steps.push_back({Step::kAllReduce, reduce_axes, next});
    cur = next;
  }
  for (size_t src = 0; src < rank; ++src) {
    while (!cur.dims[src].empty()) {
      int axis = cur.dims[src].back();
      if (cur.dims[src].size() <= to.dims[src].size() &&
          std::equal(cur.dims[src].begin(), cur.dims[src].end(), to.dims[src].begin())) {
        break;
      }
      int dst = -1;
      for (size_t d = 0; d < rank; ++d) {
        if (d != src && Extends(cur.dims[d], to.dims[d], axis)) dst = static_cast<int>(d);
      }
      if (dst < 0) break;
      TensorSharding next = cur;
      next.dims[src].pop_back();
      next.dims[static_cast<size_t>(dst)].push_back(axis);
      steps.push_back({Step::kAllToAll, {axis}, next});
      cur = next;
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    const auto& have = cur.dims[d];
    const auto& want = to.dims[d];
    size_t common = 0;
    while (common < have.size() && common < want.size() && have[common] == want[common]) ++common;
    if (common == have.size()) continue;
    TensorSharding next = cur;
    next.dims[d].resize(common);
    steps.push_back({Step::kAllGather, std::vector<int>(have.begin() + static_cast<long>(common), have.end()), next});
    cur = next;
  }
  if (cur.dims != to.dims) {
    TensorSharding next = cur;
    next.dims = to.dims;
    steps.push_back({Step::kSlice, {}, next});
  }
  return steps;
}

// Checks the planned steps against what EmitReshard emits.
Status CheckAgainstEmitReshard(const Mesh& mesh, const pir::TensorType& type, const TensorSharding& from,
                               const TensorSharding& to, const std::vector<Step>& steps, const std::string& what) {
  cir::Program program;
  cir::Buffer source;
  source.name = "source";
  source.dtype = type.dtype;
  source.shape = from.LocalShape(mesh, type.shape);
  int buffer = program.AddBuffer(std::move(source));
  EmitReshard(mesh, type, buffer, from, to, "reshard", "reshard", program);
  auto mismatch = [&](const std::string& detail) {
    return InternalError(what + ": the simulated resharding " + from.ToString(mesh) + " -> " + to.ToString(mesh) +
                         " differs from reshard.cc's: " + detail);
  };
  if (program.instructions.size() != steps.size()) {
    return mismatch(std::to_string(steps.size()) + " steps, reshard.cc emits " +
                    std::to_string(program.instructions.size()));
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const cir::Instruction& in = program.instructions[i];
    const Step& step = steps[i];
    bool kind_ok = false;
    if (step.kind == Step::kSlice) {
      kind_ok = in.kind == cir::InstrKind::kKernel;
    } else {
      static constexpr cir::CollectiveKind kKinds[] = {cir::CollectiveKind::kAllReduce,
                                                       cir::CollectiveKind::kReduceScatter,
                                                       cir::CollectiveKind::kAllToAll, cir::CollectiveKind::kAllGather};
      kind_ok = in.kind == cir::InstrKind::kCollective && in.collective == kKinds[step.kind] &&
                in.groups == GroupsOverAxes(mesh, step.axes);
    }
    if (!kind_ok) return mismatch("step " + std::to_string(i) + " is '" + in.name + "'");
    const Shape& shape = program.buffers[static_cast<size_t>(in.results.at(0))].shape;
    if (shape != step.next.LocalShape(mesh, type.shape)) {
      return mismatch("step " + std::to_string(i) + " leaves local shape " + pir::ShapeString(shape) + ", expected " +
                      pir::ShapeString(step.next.LocalShape(mesh, type.shape)));
    }
  }
  return Status::Ok();
}

// Every device's block in `next`, read only from the blocks its peers over
// `group_axes` hold in `held` (itself for a local slice).
StatusOr<Held> FromGroup(const Mesh& mesh, const Held& held, const Shape& shape, const TensorSharding& next,
                         const std::vector<int>& group_axes, const std::string& what) {
  Held out{next, {}};
  Shape local = next.LocalShape(mesh, shape);
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    Tensor block = Zeros(local);
    std::vector<int64_t> peers = Peers(mesh, device, group_axes);
    std::vector<std::vector<int64_t>> peer_start;
    for (int64_t peer : peers) peer_start.push_back(BlockStart(mesh, held.sharding, shape, peer));
    std::vector<int64_t> start = BlockStart(mesh, next, shape, device), index(local.size(), 0), g(local.size());
    for (int64_t flat = 0; flat < block.NumElements(); ++flat, Next(index, local)) {
      bool padding = false;
      for (size_t d = 0; d < local.size(); ++d) {
        g[d] = start[d] + index[d];
        padding |= g[d] >= shape[d];
      }
      if (padding) continue;
      bool found = false;
      for (size_t p = 0; p < peers.size() && !found; ++p) {
        const Tensor& source = held.blocks[static_cast<size_t>(peers[p])];
        std::vector<int64_t> st = Strides(source.shape);
        int64_t at = 0;
        bool inside = true;
        for (size_t d = 0; d < local.size() && inside; ++d) {
          int64_t offset = g[d] - peer_start[p][d];
          inside = offset >= 0 && offset < source.shape[d];
          at += offset * st[d];
        }
        if (!inside) continue;
        block.data[static_cast<size_t>(flat)] = source.data[static_cast<size_t>(at)];
        found = true;
      }
      if (!found) {
        return InternalError(what + ": device " + std::to_string(device) + " needs data no device of its group holds");
      }
    }
    out.blocks.push_back(std::move(block));
  }
  return out;
}

StatusOr<Held> Reshard(const Mesh& mesh, const pir::TensorType& type, const Held& held, const TensorSharding& to,
                       const std::string& what) {
  if (held.sharding == to) return held;
  std::vector<Step> steps = PlanReshard(held.sharding, to);
  AZ_RETURN_IF_ERROR(CheckAgainstEmitReshard(mesh, type, held.sharding, to, steps, what));
  Held cur = held;
  for (const Step& step : steps) {
    if (step.kind == Step::kAllReduce || step.kind == Step::kReduceScatter) {
      Held summed{cur.sharding, {}};
      summed.sharding.partial = step.next.partial;
      for (int64_t device = 0; device < mesh.num_devices(); ++device) {
        Tensor sum = Zeros(cur.blocks[static_cast<size_t>(device)].shape);
        for (int64_t peer : Peers(mesh, device, step.axes)) {
          const Tensor& block = cur.blocks[static_cast<size_t>(peer)];
          for (size_t i = 0; i < sum.data.size(); ++i) sum.data[i] += block.data[i];
        }
        summed.blocks.push_back(std::move(sum));
      }
      cur = std::move(summed);
      if (step.kind == Step::kAllReduce) continue;
      AZ_ASSIGN_OR_RETURN(cur, FromGroup(mesh, cur, type.shape, step.next, {}, what));
      continue;
    }
    AZ_ASSIGN_OR_RETURN(cur, FromGroup(mesh, cur, type.shape, step.next, step.axes, what));
  }
  AZ_CHECK(cur.sharding == to);
  return cur;
}

class Simulation {
 public:
  Simulation(const pir::Graph& graph, const shard::ShardingPlan& plan, const PartitionedOptions& options)
      : graph_(graph), plan_(plan), mesh_(plan.mesh), options_(options) {}

  StatusOr<std::vector<Tensor>> Run(const std::map<pir::ValueId, Tensor>& leaves) {
    if (static_cast<int>(plan_.values.size()) != graph_.num_values() ||
        static_cast<int>(plan_.ops.size()) != graph_.num_ops() ||
        static_cast<int>(plan_.rules.size()) != graph_.num_ops()) {
      return InvalidArgument("the plan does not cover the graph's values and ops");
    }
    held_.resize(static_cast<size_t>(graph_.num_values()));
    for (const auto& [id, tensor] : leaves) {
      if (!graph_.IsValidValue(id) || graph_.value(id).role == pir::ValueRole::kActivation) continue;
      const TensorSharding& s = plan_.values[static_cast<size_t>(id)];
      if (!s.partial.empty() || s.dims.size() != tensor.shape.size()) {
        return InvalidArgument("leaf '" + graph_.value(id).name + "' has an unusable sharding " + s.ToString(mesh_));
      }
      held_[static_cast<size_t>(id)] = Cut(mesh_, tensor, s);
    }
    for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
      Status status = RunOp(id);
      if (!status.ok()) return Status(status.code(), OpLabel(graph_.op(id)) + ": " + status.message());
    }
    std::vector<Tensor> outputs;
    for (pir::ValueId v : graph_.outputs()) {
      if (extended_.count(v)) return Unimplemented("output %" + std::to_string(v) + " is a split pad's extended shards");
      AZ_ASSIGN_OR_RETURN(Tensor t, Assemble(mesh_, held_[static_cast<size_t>(v)], graph_.type(v).shape,
                                             "output %" + std::to_string(v)));
      outputs.push_back(std::move(t));
    }
    return outputs;
  }

 private:
  Status RunOp(pir::OpId id) {
    const pir::Op& op = graph_.op(id);
    const pir::FactorRule& rule = plan_.rules[static_cast<size_t>(id)];
    AZ_RETURN_IF_ERROR(shard::CheckOpSharding(rule, plan_.ops[static_cast<size_t>(id)], mesh_));
    // A sharded normalized dim: all-reducing the row statistics gives each
    // device what the whole dim gives, so the op runs on the dim gathered and
    // each device keeps its own slice of the result.
    shard::OpSharding sharding = plan_.ops[static_cast<size_t>(id)];
    bool normalized_sharded = false;
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind != pir::FactorKind::kNormalized || sharding.factor_axes[f].empty()) continue;
      // Padded shards too: the gathered dim has no padding, as the kernel
      // counts only its valid rows (the statistics of a padded shard masked).
      sharding.factor_axes[f].clear();
      normalized_sharded = true;
    }
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind == pir::FactorKind::kPermutation && !sharding.factor_axes[f].empty()) {
        return Unimplemented("factor '" + rule.factors[f].name +
                             "' (a concat or slice dim, or a convolution window that does not tile its input) is "
                             "sharded");
      }
    }
    std::vector<Held> operands;
    Extension extension;  // operand 0's, when it is a split pad's result
    for (size_t i = 0; i < op.operands.size(); ++i) {
      pir::ValueId v = op.operands[i];
      TensorSharding required = shard::RequiredOperandSharding(rule, sharding, static_cast<int>(i));
      if (auto it = extended_.find(v); it != extended_.end()) {
        // Extended shards are read as held (spmd_compiler.cc does the same).
        if (i != 0 || held_[static_cast<size_t>(v)].sharding != required || op.kind != pir::OpKind::kConv3d) {
          return Unimplemented("reads a split pad's extended shards other than as the input of a convolution "
                               "over the padded dim");
        }
        extension = it->second;
        operands.push_back(held_[static_cast<size_t>(v)]);
        continue;
      }
      AZ_ASSIGN_OR_RETURN(Held h, Reshard(mesh_, graph_.type(v), held_[static_cast<size_t>(v)], required,
                                          "operand " + std::to_string(i)));
      operands.push_back(std::move(h));
    }
    // A split windowed dim: PlanHalo's plan (the compiler's), the extended
    // shards built from the neighbours' blocks, the op run on them.
    std::optional<HaloPlan> halo;
    pir::Op local_op = op;
    if (op.kind == pir::OpKind::kConv3d || op.kind == pir::OpKind::kPad) {
      AZ_ASSIGN_OR_RETURN(halo, PlanHalo(mesh_, op, rule, sharding, pir::OperandTypes(graph_, op),
                                         pir::ResultTypes(graph_, op), extension));
    }
    if (halo) {
      local_op.attrs = LocalAttributes(op, *halo);
      if (halo->kind == HaloPlan::Kind::kExchange) {
        AZ_ASSIGN_OR_RETURN(operands[0].blocks, interpret::ExtendedBlocks(mesh_, *halo, operands[0].sharding,
                                                                          graph_.type(op.operands[0]).shape,
                                                                          operands[0].blocks));
      }
    }
    if (op.kind == pir::OpKind::kUpsample) {
      AZ_RETURN_IF_ERROR(CheckUpsampleBlocks(mesh_, op, rule, sharding, graph_.type(op.operands[0])));
    }
    std::vector<int> ring_axes;
    if (op.kind == pir::OpKind::kAttention || op.kind == pir::OpKind::kAttentionGrad) {
      AZ_ASSIGN_OR_RETURN(ring_axes, RingAxes(rule, sharding, operands));
    }
    const TensorSharding produced = shard::ProducedResultSharding(rule, sharding, 0);
    if (op.kind == pir::OpKind::kReduce && op.attrs.GetString("kind").value_or("sum") == "max" &&
        !produced.partial.empty()) {
      return Unimplemented("a max over a sharded dim leaves partial maxima, which no sum completes");
    }
    std::vector<std::vector<Tensor>> results(op.results.size());
    for (int64_t device = 0; device < mesh_.num_devices(); ++device) {
      KernelContext ctx;
      std::vector<const Tensor*> in;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        in.push_back(&operands[i].blocks[static_cast<size_t>(device)]);
        ctx.global_operand_shapes.push_back(graph_.type(op.operands[i]).shape);
      }
      for (size_t r = 0; r < op.results.size(); ++r) {
        ctx.result_shapes.push_back(ResultSharding(rule, sharding, op, r, normalized_sharded)
                                        .LocalShape(mesh_, graph_.type(op.results[r]).shape));
      }
      if (halo && op.kind == pir::OpKind::kPad) {
        ctx.result_shapes[0][static_cast<size_t>(halo->window.dim)] = halo->block_out;
      }
      for (int axis : produced.partial) ctx.add_bias &= !options_.bias_once_per_partial_group || mesh_.Coordinate(device, axis) == 0;
      std::vector<Tensor> out;
      if (!ring_axes.empty() && op.kind == pir::OpKind::kAttentionGrad) {
        out = RingAttentionGrad(operands, device, ring_axes);
      } else if (!ring_axes.empty()) {
        if (op.operands.size() > 3 || op.attrs.GetString("mask").value_or("none") != "none" ||
            graph_.type(op.operands[0]).shape[2] != graph_.type(op.operands[1]).shape[2]) {
          return Unimplemented("the interpreter's ring attention is unmasked, with equal query and key/value heads");
        }
        std::vector<std::pair<const Tensor*, const Tensor*>> blocks;
        for (int64_t peer : Peers(mesh_, device, ring_axes)) {
          blocks.push_back({&operands[1].blocks[static_cast<size_t>(peer)], &operands[2].blocks[static_cast<size_t>(peer)]});
        }
        out = interpret::AttentionResults(*in[0], blocks, op.results.size() > 1);
      } else {
        AZ_ASSIGN_OR_RETURN(out, Execute(local_op, in, ctx));
      }
      for (size_t r = 0; r < op.results.size(); ++r) {
        if (out[r].shape != ctx.result_shapes[r]) {
          return InternalError("device " + std::to_string(device) + " computes a block of " + pir::ShapeString(out[r].shape) +
                               " for result " + std::to_string(r) + ", its sharding " +
                               ResultSharding(rule, sharding, op, r, normalized_sharded).ToString(mesh_) +
                               " holds " + pir::ShapeString(ctx.result_shapes[r]));
        }
        results[r].push_back(std::move(out[r]));
      }
    }
    for (size_t r = 0; r < op.results.size(); ++r) {
      pir::ValueId v = op.results[r];
      Held held{ResultSharding(rule, sharding, op, r, normalized_sharded), std::move(results[r])};
      if (normalized_sharded) {
        // Each device's own slice (a local slice: no communication).
        AZ_ASSIGN_OR_RETURN(held, Reshard(mesh_, graph_.type(v), held, plan_.values[static_cast<size_t>(v)],
                                          "the slice of result " + std::to_string(r)));
      }
      held_[static_cast<size_t>(v)] = std::move(held);
    }
    if (halo && op.kind == pir::OpKind::kPad) extended_[op.results[0]] = {halo->window.dim, halo->before, halo->after};
    return Status::Ok();
  }

  // A result as the op produces it: as the plan holds it, or, with its
  // normalized dims gathered, as the op run on the gathered dims produces it.
  TensorSharding ResultSharding(const pir::FactorRule& rule, const shard::OpSharding& sharding, const pir::Op& op,
                                size_t r, bool normalized_sharded) const {
    if (!normalized_sharded) return plan_.values[static_cast<size_t>(op.results[r])];
    return shard::ProducedResultSharding(rule, sharding, static_cast<int>(r));
  }

  // Ring attention's backward on `device`: its dQ sums the contributions of
  // every kv block of its ring to its query block; its dK and dV sum those of
  // its kv block to every query block of the ring (what the rotating
  // accumulators of spmd_compiler.cc gather). Exact: each block's
  // P = exp(S - lse) uses the whole row's log-sum-exp.
  std::vector<Tensor> RingAttentionGrad(const std::vector<Held>& operands, int64_t device,
                                        const std::vector<int>& ring_axes) const {
    auto block = [&](size_t operand, int64_t at) -> const Tensor& {
      return operands[operand].blocks[static_cast<size_t>(at)];
    };
    auto add = [](Tensor& into, const Tensor& term) {
      for (size_t i = 0; i < into.data.size(); ++i) into.data[i] += term.data[i];
    };
    std::vector<Tensor> out{interpret::Zeros(block(0, device).shape), interpret::Zeros(block(1, device).shape),
                            interpret::Zeros(block(2, device).shape)};
    for (int64_t peer : Peers(mesh_, device, ring_axes)) {
      std::vector<Tensor> mine = interpret::AttentionGrad(block(0, device), block(1, peer), block(2, peer),
                                                          block(3, device), block(4, device), block(5, device));
      add(out[0], mine[0]);
      std::vector<Tensor> theirs = interpret::AttentionGrad(block(0, peer), block(1, device), block(2, device),
                                                            block(3, peer), block(4, peer), block(5, peer));
      add(out[1], theirs[1]);
      add(out[2], theirs[2]);
    }
    return out;
  }

  // The ring of a ring attention (its kv axes, all of them q axes); empty when
  // kv is unsharded. kv on an axis q is not on would leave per-block softmaxes
  // that no sum completes.
  StatusOr<std::vector<int>> RingAxes(const pir::FactorRule& rule, const shard::OpSharding& sharding,
                                      const std::vector<Held>& operands) const {
    const auto& kv = sharding.factor_axes[static_cast<size_t>(rule.FindFactor("kv"))];
    const auto& q = sharding.factor_axes[static_cast<size_t>(rule.FindFactor("q"))];
    for (int axis : kv) {
      if (std::find(q.begin(), q.end(), axis) == q.end()) {
        return Unimplemented("attention's key sequence is sharded on \"" + mesh_.axis_name(axis) +
                             "\", its queries are not: per-block softmaxes are no partial sum");
      }
    }
    if (!kv.empty() && operands[1].blocks[0].shape[1] * mesh_.AxesSize(kv) != rule.factors[static_cast<size_t>(
                                                                                      rule.FindFactor("kv"))].size) {
      return Unimplemented("ring attention over padded key blocks (padding would need masking)");
    }
    return kv;
  }

  const pir::Graph& graph_;
  const shard::ShardingPlan& plan_;
  const Mesh& mesh_;
  const PartitionedOptions& options_;
  std::vector<Held> held_;
  std::map<pir::ValueId, Extension> extended_;  // split pads' results (compile/spmd/halo.h)
};

}  // namespace

StatusOr<std::vector<Tensor>> RunPartitioned(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                             const std::map<pir::ValueId, Tensor>& leaves,
                                             const PartitionedOptions& options) {
  AZ_RETURN_IF_ERROR(CheckLeaves(graph, leaves));
  return Simulation(graph, plan, options).Run(leaves);
}

}  // namespace az::compile
