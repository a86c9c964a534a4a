// The candidates of a non-DiT stage and their propagation seeds (stages.h).
#include "search/stage_candidates.h"

#include <algorithm>

#include "pir/rules/rule.h"

namespace az::search {

std::string StageCandidate::Name() const {
  std::string base;
  switch (strategy) {
    case StageStrategy::kSingle: base = replicas > 1 ? "" : "single device"; break;
    case StageStrategy::kFsdp: base = "fsdp=" + std::to_string(group); break;
    case StageStrategy::kTp: base = "tp=" + std::to_string(group); break;
    case StageStrategy::kSpatial: base = "spatial=" + std::to_string(group); break;
    case StageStrategy::kTiles: base = "tiles=" + std::to_string(group); break;
  }
  if (replicas == 1) return base;
  return base + (base.empty() ? "" : ",") + "dp=" + std::to_string(replicas);
}

std::string StageCandidate::AxisName() const {
  switch (strategy) {
    case StageStrategy::kSingle: return "device";
    case StageStrategy::kFsdp: return "fsdp";
    case StageStrategy::kTp: return "tp";
    case StageStrategy::kSpatial: return spatial_dim == 4 ? "width" : "height";
    case StageStrategy::kTiles: return "tiles";
  }
  return "device";
}

std::vector<StageCandidate> EnumerateStageCandidates(int64_t chips, int64_t invocations, bool tensor_parallel,
                                                     bool spatial, bool tiles) {
  std::vector<StageCandidate> out;
  auto with_replicas = [&](StageStrategy strategy, int64_t group) {
    for (int64_t r = 1; r <= invocations && r * group <= chips; ++r) {
      if (invocations % r == 0) out.push_back({strategy, group, r, -1});
    }
  };
  with_replicas(StageStrategy::kSingle, 1);
  for (int64_t g = 2; g <= chips; ++g) {
    if (chips % g != 0) continue;
    with_replicas(StageStrategy::kFsdp, g);
    if (tensor_parallel) with_replicas(StageStrategy::kTp, g);
    if (spatial) with_replicas(StageStrategy::kSpatial, g);
    if (tiles) with_replicas(StageStrategy::kTiles, g);
  }
  return out;
}

// As shard/templates.cc seeds fsdp: the largest dim n divides, ties to the
// first; else the largest dim, padded.
StatusOr<shard::Seeds> StageFsdpSeeds(const pir::Graph& graph, int axis, int64_t n) {
  shard::Seeds seeds;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role != pir::ValueRole::kParameter || v.type.rank() < 2) continue;
    const pir::Shape& shape = v.type.shape;
    size_t best = shape.size(), largest = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] > shape[largest]) largest = d;
      if (shape[d] % n == 0 && (best == shape.size() || shape[d] > shape[best])) best = d;
    }
    shard::TensorSharding s = shard::TensorSharding::Replicated(static_cast<int>(shape.size()));
    s.dims[best < shape.size() ? best : largest] = {axis};
    seeds.values[id] = std::move(s);
    seeds.storage_only.insert(id);
  }
  if (seeds.storage_only.empty()) {
    return InvalidArgument("fsdp does not apply: '" + graph.name() + "' has no weight of rank >= 2");
  }
  return seeds;
}

namespace {

bool IsNorm(pir::OpKind kind) { return kind == pir::OpKind::kRmsNorm || kind == pir::OpKind::kLayerNorm; }

// The weight factor a column split shards: the one the result keeps (not reduced).
std::string OutputFactor(const pir::FactorRule& rule) {
  for (const auto& dim : rule.operands.at(1)) {
    if (dim.size() != 1) continue;
    const pir::Factor& factor = rule.factors[static_cast<size_t>(dim[0])];
    if (factor.kind != pir::FactorKind::kReduction) return factor.name;
  }
  return "";
}

}  // namespace

std::vector<pir::OpId> ColumnLinears(const pir::Graph& graph) {
  // A result viewed with two more dims (to_qkv's [B, L, 3 H D] -> [B, L, 3, H, D])
  // puts the (q, k, v) factor major: a column split there is not a head split.
  std::vector<bool> fused(static_cast<size_t>(graph.num_values()), false);
  for (const pir::Op& op : graph.ops()) {
    if (op.kind != pir::OpKind::kReshape || op.operands.empty() || op.results.empty()) continue;
    if (graph.type(op.results[0]).rank() >= graph.type(op.operands[0]).rank() + 2) {
      fused[static_cast<size_t>(op.operands[0])] = true;
    }
  }
  std::vector<pir::OpId> out;
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::Op& op = graph.op(id);
    if (op.kind != pir::OpKind::kEinsum || op.operands.size() < 2 || op.results.size() != 1) continue;
    const pir::Value& weight = graph.value(op.operands[1]);
    if (weight.role != pir::ValueRole::kParameter || weight.type.rank() != 2) continue;
    const pir::OpId producer = graph.value(op.operands[0]).producer;
    if (producer == pir::kNoOp || !IsNorm(graph.op(producer).kind)) continue;
    if (fused[static_cast<size_t>(op.results[0])]) continue;
    out.push_back(id);
  }
  return out;
}

StatusOr<shard::Seeds> StageTpSeeds(const pir::Graph& graph, int axis, int64_t n) {
  std::vector<pir::OpId> columns = ColumnLinears(graph);
  if (columns.empty()) {
    return InvalidArgument("tp does not apply: '" + graph.name() + "' has no linear after a norm");
  }
  for (const pir::Op& op : graph.ops()) {
    if (op.kind != pir::OpKind::kAttention) continue;
    const int64_t heads = graph.type(op.operands[0]).shape[2];
    if (heads % n != 0) {
      return InvalidArgument("tp=" + std::to_string(n) + ": the " + std::to_string(heads) + " heads of '" + op.name +
                             "' do not split " + std::to_string(n) + " ways");
    }
  }
  shard::Seeds seeds;
  for (pir::OpId id : columns) {
    const pir::Op& op = graph.op(id);
    const int64_t features = graph.type(op.results[0]).shape.back();
    if (features % n != 0) {
      return InvalidArgument("tp=" + std::to_string(n) + ": the " + std::to_string(features) +
                             " output features of '" + op.name + "' do not split " + std::to_string(n) + " ways");
    }
    AZ_ASSIGN_OR_RETURN(pir::FactorRule rule, pir::BuildFactorRule(graph, op));
    const std::string factor = OutputFactor(rule);
    if (factor.empty()) continue;
    seeds.op_factors[id][factor] = {axis};
  }
  return seeds;
}

namespace {

// The [B, C, T, H, W] video a VAE reads (its input) and writes (its output).
StatusOr<std::pair<pir::Shape, pir::Shape>> VideoShapes(const pir::Graph& graph) {
  pir::ValueId input = -1;
  for (pir::ValueId id = 0; id < graph.num_values() && input < 0; ++id) {
    if (graph.value(id).role == pir::ValueRole::kInput) input = id;
  }
  if (input < 0 || graph.type(input).rank() != 5 || graph.outputs().empty() ||
      graph.type(graph.outputs()[0]).rank() != 5) {
    return InvalidArgument("spatial does not apply: '" + graph.name() + "' does not read and write [B, C, T, H, W]");
  }
  return std::make_pair(graph.type(input).shape, graph.type(graph.outputs()[0]).shape);
}

}  // namespace

StatusOr<int> SpatialSplitDim(const pir::Graph& graph, int64_t n) {
  AZ_ASSIGN_OR_RETURN(auto shapes, VideoShapes(graph));
  const int64_t height = std::min(shapes.first[3], shapes.second[3]);
  const int64_t width = std::min(shapes.first[4], shapes.second[4]);
  if (height % n == 0) return 3;
  if (width % n == 0) return 4;
  return InvalidArgument("spatial=" + std::to_string(n) + ": " + std::to_string(n) + " divides neither the " +
                         std::to_string(height) + " rows nor the " + std::to_string(width) +
                         " columns of the latent (uneven bands would not stay aligned through the 2x upsamplers)");
}

StatusOr<shard::Seeds> StageSpatialSeeds(const pir::Graph& graph, int axis, int dim) {
  AZ_RETURN_IF_ERROR(VideoShapes(graph).status());
  if (dim != 3 && dim != 4) return InvalidArgument("spatial splits the height (3) or the width (4), not dim " +
                                                   std::to_string(dim));
  shard::TensorSharding split = shard::TensorSharding::Replicated(5);
  split.dims[static_cast<size_t>(dim)] = {axis};
  shard::Seeds seeds;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    if (graph.value(id).role != pir::ValueRole::kInput) continue;
    seeds.values[id] = split;
    break;
  }
  // The output too: propagation only grows from seeds, and a reshape that
  // cannot keep the split (HunyuanVideo's mid-block attention over frames x
  // rows x columns tokens, the frames major) would otherwise leave every op
  // after it whole on every device; seeded at both ends, only the ops the
  // split cannot pass run gathered.
  seeds.values[graph.outputs()[0]] = split;
  return seeds;
}

Status CheckSpatialPlan(const pir::Graph& graph, const shard::ShardingPlan& plan) {
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::FactorRule& rule = plan.rules[static_cast<size_t>(id)];
    for (const pir::TensorFactors& operand : rule.operands) {
      for (const std::vector<int>& dim : operand) {
        for (int f : dim) {
          if (rule.factors[static_cast<size_t>(f)].kind != pir::FactorKind::kPermutation ||
              plan.ops[static_cast<size_t>(id)].factor_axes[static_cast<size_t>(f)].empty()) {
            continue;
          }
          return Status(StatusCode::kUnimplemented,
                        "the split reaches '" + graph.op(id).name + "' (" +
                            std::string(pir::GetOpKindInfo(graph.op(id).kind).name) +
                            " of the split dim), which moves rows between devices: the built-in compiler has no "
                            "exchange for it");
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace az::search
