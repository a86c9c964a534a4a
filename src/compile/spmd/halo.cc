// Halo exchange of split windowed dims (halo.h states the cases).
#include "compile/spmd/halo.h"

#include <algorithm>

#include "compile/spmd/reshard.h"
#include "compile/spmd/spmd_compiler.h"
#include "pir/rules/cost.h"

namespace az::compile {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Status Refuse(const pir::Op& op, const std::string& message) {
  return LocatedError(StatusCode::kUnimplemented, op.Location(), message);
}

// The window of `op` on tensor dim `dim`.
Window WindowOf(const pir::Op& op, const std::vector<pir::TensorType>& operands,
                const std::vector<pir::TensorType>& results, int dim) {
  Window w;
  w.dim = dim;
  w.in = operands[0].shape[static_cast<size_t>(dim)];
  w.out = results[0].shape[static_cast<size_t>(dim)];
  if (op.kind == pir::OpKind::kPad) {
    w.low = op.attrs.GetInts("low").value_or(std::vector<int64_t>{}).at(static_cast<size_t>(dim));
    w.high = op.attrs.GetInts("high").value_or(std::vector<int64_t>{}).at(static_cast<size_t>(dim));
    w.replicate = true;
    return w;
  }
  const size_t spatial = static_cast<size_t>(dim - 2);
  w.kernel = operands[1].shape[static_cast<size_t>(dim)];
  w.stride = op.attrs.GetInts("stride").value_or(std::vector<int64_t>{1, 1, 1}).at(spatial);
  const std::vector<int64_t> padding = op.attrs.GetInts("padding").value_or(std::vector<int64_t>(6, 0));
  w.low = padding.at(2 * spatial);
  w.high = padding.at(2 * spatial + 1);
  return w;
}

std::string Rows(int64_t n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); }

}  // namespace

StatusOr<std::optional<HaloPlan>> PlanHalo(const shard::Mesh& mesh, const pir::Op& op, const pir::FactorRule& rule,
                                           const shard::OpSharding& sharding,
                                           const std::vector<pir::TensorType>& operands,
                                           const std::vector<pir::TensorType>& results, const Extension& operand) {
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].kind == pir::FactorKind::kPermutation && !sharding.factor_axes[f].empty()) {
      return Refuse(op, "splits '" + rule.factors[f].name + "', a convolution window that does not tile its input "
                        "(a stride that does not divide it): no halo exchange fits, gather the dim first");
    }
  }
  std::optional<HaloPlan> found;
  const pir::TensorFactors& result = rule.results.at(0);
  for (size_t d = 0; d < result.size(); ++d) {
    if (result[d].size() != 1) continue;
    const size_t f = static_cast<size_t>(result[d][0]);
    if (rule.factors[f].kind != pir::FactorKind::kHalo || sharding.factor_axes[f].empty()) continue;
    if (found) {
      return Refuse(op, "two windowed dims (" + std::to_string(found->window.dim) + " and " + std::to_string(d) +
                            ") are split at once; a halo exchange splits one (the corners would need a second)");
    }
    HaloPlan plan;
    plan.window = WindowOf(op, operands, results, static_cast<int>(d));
    plan.axes = sharding.factor_axes[f];
    found = std::move(plan);
  }
  if (operand.dim >= 0 && (!found || found->window.dim != operand.dim)) {
    return Refuse(op, "reads a split pad's extended shards on dim " + std::to_string(operand.dim) +
                          "; only a convolution over that dim, narrowing it by the pad's rows, can");
  }
  if (!found) return found;
  HaloPlan& plan = *found;
  const Window& w = plan.window;
  const int64_t n = mesh.AxesSize(plan.axes);
  plan.devices = n;
  plan.block_in = CeilDiv(w.in, n);
  plan.block_out = CeilDiv(w.out, n);
  const std::string where = "dim " + std::to_string(w.dim) + " split " + std::to_string(n) + " ways";
  if (operand.dim >= 0) {
    // A narrowing convolution over a pad's extended shards.
    if (op.kind != pir::OpKind::kConv3d || w.stride != 1 || w.low != 0 || w.high != 0 ||
        operand.low + operand.high != w.kernel - 1 || w.in != w.out + w.kernel - 1) {
      return Refuse(op, "reads a pad's extended shards (" + Rows(operand.low) + " before, " + Rows(operand.high) +
                            " after) on " + where + " but is not an unpadded stride-1 convolution with a kernel of " +
                            std::to_string(operand.low + operand.high + 1));
    }
    plan.kind = HaloPlan::Kind::kExtended;
    plan.block_in = plan.block_out;  // the pad's operand has the result's rows
    plan.extended_rows = plan.block_out + w.kernel - 1;
    return found;
  }
  if (op.kind == pir::OpKind::kConv3d && w.in != w.stride * w.out) {
    return Refuse(op, "narrows " + where + " from " + std::to_string(w.in) + " to " + std::to_string(w.out) +
                          " rows without padding; only a replicate pad's extended shards over that dim can feed it");
  }
  if (op.kind == pir::OpKind::kConv3d && plan.block_in != w.stride * plan.block_out) {
    return Refuse(op, "stride " + std::to_string(w.stride) + " over " + where + ": the input's blocks of " +
                          Rows(plan.block_in) + " are not " + std::to_string(w.stride) + " x the output's " +
                          std::to_string(plan.block_out) + " (uneven blocks do not align)");
  }
  plan.before = w.low;
  plan.after = op.kind == pir::OpKind::kPad ? w.high : std::max<int64_t>(0, w.kernel - w.stride - w.low);
  if (plan.before > plan.block_in || plan.after > plan.block_in) {
    return Refuse(op, "the window needs " + Rows(plan.before) + " before and " + Rows(plan.after) +
                          " after each block of " + Rows(plan.block_in) + " (" + where +
                          "): wider than a shard, it would reach past the neighbours");
  }
  plan.extended_rows = plan.block_in + plan.before + plan.after;
  if (op.kind == pir::OpKind::kPad) plan.block_out = plan.extended_rows;
  for (const std::vector<int>& group : GroupsOverAxes(mesh, plan.axes).groups) {
    for (size_t i = 0; i + 1 < group.size(); ++i) {
      if (plan.before > 0) plan.before_pairs.push_back({group[i], group[i + 1]});
      if (plan.after > 0) plan.after_pairs.push_back({group[i + 1], group[i]});
    }
  }
  std::sort(plan.before_pairs.begin(), plan.before_pairs.end());
  std::sort(plan.after_pairs.begin(), plan.after_pairs.end());
  return found;
}

Status CheckUpsampleBlocks(const shard::Mesh& mesh, const pir::Op& op, const pir::FactorRule& rule,
                           const shard::OpSharding& sharding, const pir::TensorType& operand) {
  const std::vector<int64_t> scale = op.attrs.GetInts("scale").value_or(std::vector<int64_t>{});
  const pir::TensorFactors& dims = rule.operands.at(0);
  for (size_t d = 0; d < dims.size() && d < scale.size(); ++d) {
    if (dims[d].size() != 1 || scale[d] == 1) continue;
    const std::vector<int>& axes = sharding.factor_axes[static_cast<size_t>(dims[d][0])];
    if (axes.empty()) continue;
    const int64_t n = mesh.AxesSize(axes), rows = operand.shape[d];
    if (CeilDiv(rows * scale[d], n) == scale[d] * CeilDiv(rows, n)) continue;
    return Refuse(op, "upsamples dim " + std::to_string(d) + " (" + std::to_string(rows) + " rows split " +
                          std::to_string(n) + " ways, blocks of " + std::to_string(CeilDiv(rows, n)) + ") by " +
                          std::to_string(scale[d]) + ": the result's blocks of " +
                          std::to_string(CeilDiv(rows * scale[d], n)) + " rows are not " + std::to_string(scale[d]) +
                          " x the operand's; split a dim the devices divide");
  }
  return Status::Ok();
}

pir::Attributes LocalAttributes(const pir::Op& op, const HaloPlan& plan) {
  pir::Attributes attrs = op.attrs;
  const size_t dim = static_cast<size_t>(plan.window.dim);
  if (op.kind == pir::OpKind::kPad) {
    for (const char* key : {"low", "high"}) {
      std::vector<int64_t> v = attrs.GetInts(key).value_or(std::vector<int64_t>{});
      v.at(dim) = 0;
      attrs.Set(key, v);
    }
    return attrs;
  }
  std::vector<int64_t> padding = attrs.GetInts("padding").value_or(std::vector<int64_t>(6, 0));
  padding.at(2 * (dim - 2)) = 0;
  padding.at(2 * (dim - 2) + 1) = 0;
  attrs.Set("padding", padding);
  return attrs;
}

pir::TensorType ExtendedType(const pir::TensorType& local, const HaloPlan& plan) {
  pir::TensorType t = local;
  t.shape.at(static_cast<size_t>(plan.window.dim)) = plan.extended_rows;
  return t;
}

std::pair<int, int> EmitHaloPermutes(const HaloPlan& plan, const pir::TensorType& local, int buffer,
                                     const std::pair<std::string, std::string>& names, const std::string& origin,
                                     cir::Program& program) {
  const int64_t rows = local.shape.at(static_cast<size_t>(plan.window.dim));
  const int64_t row_elements = rows > 0 ? local.NumElements() / rows : 0;
  auto permute = [&](int64_t count, const std::vector<std::pair<int, int>>& pairs, const std::string& name) {
    if (count == 0 || pairs.empty()) return -1;
    cir::Buffer b;
    b.name = name;
    b.kind = cir::BufferKind::kCommunication;
    b.dtype = local.dtype;
    b.shape = local.shape;
    b.shape[static_cast<size_t>(plan.window.dim)] = count;
    const int received = program.AddBuffer(std::move(b));
    cir::Instruction in;
    in.kind = cir::InstrKind::kCollective;
    in.collective = cir::CollectiveKind::kCollectivePermute;
    in.collective_bytes = Bytes(pir::TensorType{local.dtype, {count * row_elements}}.NumBytes());
    in.pairs = pairs;
    in.name = name;
    in.origin = origin;
    in.operands = {buffer};
    in.results = {received};
    program.AddInstruction(std::move(in));
    return received;
  };
  const int before = permute(plan.before, plan.before_pairs, names.first);
  const int after = permute(plan.after, plan.after_pairs, names.second);
  return {before, after};
}

int EmitWindowed(const pir::Op& op, const HaloPlan& plan, const std::vector<int>& operands,
                 std::vector<pir::TensorType> local_operands, const pir::TensorType& local_result,
                 const WindowedNames& names, cir::Program& program) {
  const pir::Attributes attrs = LocalAttributes(op, plan);
  std::vector<int> inputs{operands[0]};
  if (plan.kind == HaloPlan::Kind::kExchange) {
    const pir::TensorType block = local_operands[0];
    auto [before, after] = EmitHaloPermutes(plan, block, operands[0], {names.before, names.after}, op.name, program);
    local_operands[0] = ExtendedType(block, plan);
    inputs.clear();
    if (before >= 0) inputs.push_back(before);
    inputs.push_back(operands[0]);
    if (after >= 0) inputs.push_back(after);
    if (op.kind == pir::OpKind::kConv3d && inputs.size() > 1) {
      cir::Instruction concat;
      concat.kind = cir::InstrKind::kKernel;
      concat.kernel = cir::KernelKind::kCopy;
      concat.name = names.concat;
      concat.origin = op.name;
      concat.operands = inputs;
      concat.bytes_read = Bytes(local_operands[0].NumBytes());
      concat.bytes_written = Bytes(local_operands[0].NumBytes());
      cir::Buffer extended;
      extended.name = names.concat;
      extended.kind = cir::BufferKind::kActivation;
      extended.dtype = local_operands[0].dtype;
      extended.shape = local_operands[0].shape;
      concat.results = {program.AddBuffer(std::move(extended))};
      inputs = concat.results;
      program.AddInstruction(std::move(concat));
    }
  }
  const pir::TensorType result = op.kind == pir::OpKind::kPad ? ExtendedType(local_result, plan) : local_result;
  const pir::OpCost cost = pir::ComputeOpCost(op.kind, local_operands, {result}, attrs);
  cir::Instruction k;
  k.kind = cir::InstrKind::kKernel;
  k.kernel = op.kind == pir::OpKind::kPad ? cir::KernelKind::kCopy : cir::KernelKind::kConvolution;
  k.name = names.kernel;
  k.origin = op.name;
  k.flops = cost.total_flops();
  k.bytes_read = cost.bytes_read;
  k.bytes_written = cost.bytes_written;
  k.dims = pir::ProblemDims(op.kind, local_operands, {result}, attrs);
  k.precision = MatrixPrecision(k.kernel, local_operands);
  k.operands = inputs;
  k.operands.insert(k.operands.end(), operands.begin() + 1, operands.end());
  cir::Buffer out;
  out.name = op.name;
  out.kind = cir::BufferKind::kActivation;
  out.dtype = result.dtype;
  out.shape = result.shape;
  k.results = {program.AddBuffer(std::move(out))};
  const int buffer = k.results[0];
  program.AddInstruction(std::move(k));
  return buffer;
}

}  // namespace az::compile
