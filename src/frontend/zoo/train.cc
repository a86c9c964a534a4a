// Training steps of the zoo's models (zoo.h: BuildTrainStep), the way
// flow-matching DiTs are trained (Wan, HunyuanVideo, Open-Sora): the noisy
// latent x_t = (1 - s) x0 + s noise at a sampled noise level s enters the DiT,
// whose output v_pred is regressed onto the velocity noise - x0.
//
// The graph, in op order (graph attributes name the ranges):
//   forward    [0, backward_start): the DiT forward at batch micro_batch, its
//              attention ops returning their log-sum-exp (lse) for the
//              backward, then the loss
//                loss = mean((v_pred - target_velocity)^2)        f32[]
//   backward   [backward_start, optimizer_start): pir::AppendBackward with
//              respect to every parameter; with remat full, selected or offload every
//              transformer block ("blocks.N", "double_blocks.N",
//              "single_blocks.N", "transformer_blocks.N", ...: an op-name
//              component ending in "blocks" and its index) is a remat segment
//              (pir/grad/backward.h), its recomputed ops attributed remat
//   optimizer  [optimizer_start, end): AdamW (pir/grad/adamw.h); the
//              parameters are the working copy (bf16 for a bf16 model), the
//              fp32 master weights and moments are opt_state leaves
// Inputs: the forward's (latent = x_t, timestep, conditioning), then
// target_velocity (f32, the latent's shape), optimizer.lr and optimizer.step
// (f32 scalars). Outputs: the loss, then per parameter (in leaf order) its new
// value, new master weight (non-f32 models), new exp_avg and new exp_avg_sq.
// A parameter the loss does not depend on gets no gradient and no update (as
// torch.optim skips a parameter whose .grad is None).
// Attributes: the zoo's (zoo.h) with batch = micro_batch and cfg = none, and
// graph = "train_step", micro_batch, remat, backward_start, optimizer_start,
// adamw_beta1, adamw_beta2, adamw_eps, adamw_weight_decay; for the compilers'
// memory model, value ids: gradients (each updated parameter's gradient, the
// value AdamW reads, in leaf order) and updated_leaves / updated_values (the
// leaf -- parameter, master weight, moment -- each output replaces, in output
// order: a compiler may update it in place, as a training loop donates its
// state to the step); under remat offload, offloaded (the forward values kept
// in host memory for the backward, pir::BackwardResult::offloaded).
#include <cctype>

#include "frontend/zoo/family.h"

namespace az::zoo {

namespace {

// "blocks.3" of "blocks.3.self_attn.q", "double_blocks.12" of
// "double_blocks.12.img_attn"; "" for an op outside every block.
std::string BlockOf(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::string prefix;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (i ? "." : "") + parts[i];
    const std::string& index = parts[i + 1];
    bool numeric = !index.empty();
    for (char c : index) numeric &= std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (parts[i].ends_with("blocks") && numeric) return prefix + "." + index;
  }
  return "";
}

// One segment per maximal run of forward ops in the same block.
std::vector<pir::RematSegment> BlockSegments(const pir::Graph& graph, pir::OpId end, pir::RematPolicy policy) {
  std::vector<pir::RematSegment> segments;
  if (policy == pir::RematPolicy::kNone) return segments;
  std::string current;
  for (pir::OpId id = 0; id < end; ++id) {
    std::string block = BlockOf(graph.op(id).name);
    if (!block.empty() && block == current) {
      segments.back().end = id + 1;
      continue;
    }
    current = block;
    if (!block.empty()) segments.push_back({id, id + 1, policy});
  }
  return segments;
}

}  // namespace

StatusOr<pir::Graph> BuildTrainStep(const ModelConfig& config, const TrainOptions& options) {
  constexpr int64_t kMaxMicroBatch = 1024;
  if (options.micro_batch < 1 || options.micro_batch > kMaxMicroBatch) {
    return InvalidArgument("micro-batch must be in 1.." + std::to_string(kMaxMicroBatch) + ", got " +
                           std::to_string(options.micro_batch));
  }
  const pir::AdamWOptions& adamw = options.adamw;
  if (!(adamw.beta1 >= 0 && adamw.beta1 < 1 && adamw.beta2 >= 0 && adamw.beta2 < 1 && adamw.eps > 0 &&
        adamw.weight_decay >= 0)) {
    return InvalidArgument("AdamW needs 0 <= beta1, beta2 < 1, eps > 0 and weight decay >= 0");
  }
  const DitFamily& family = FamilyOf(config.model);
  AZ_RETURN_IF_ERROR(family.Validate(config));
  if (config.depth_units < 0 || config.depth_units > family.depth_units()) {
    return InvalidArgument("depth units must be in 0.." + std::to_string(family.depth_units()) + ", got " +
                           std::to_string(config.depth_units));
  }
  ModelConfig train = config;
  train.batch = options.micro_batch;
  train.cfg = CfgMode::kNone;
  const int64_t batch = options.micro_batch;
  const pir::Shape latent_shape{batch, family.latent_channels(), train.latent_frames(), train.latent_height(),
                                train.latent_width()};

  GraphBuilder b(config.model + ".train");
  b.set_attention_lse(true);
  ValueId x = b.Input("latent", DType::kF32, latent_shape);
  ValueId t = b.Input("timestep", DType::kF32, {batch});
  std::vector<ValueId> cond = family.DeclareConditioning(b, train, batch, "cond");
  ValueId velocity = family.Forward(b, train, x, t, cond);
  const pir::OpId model_end = b.graph().num_ops();
  ValueId target = b.Input("target_velocity", DType::kF32, latent_shape);
  ValueId loss;
  {
    GraphBuilder::Scope scope(b, "loss");
    ValueId error = b.Binary(OpKind::kSub, "error", velocity, target);
    ValueId squared = b.Binary(OpKind::kMul, "squared", error, error);
    std::vector<int64_t> all(latent_shape.size());
    for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
    loss = b.Reduce("mean", squared, all, "mean");
  }
  std::vector<ValueId> params;
  for (ValueId id = 0; id < b.graph().num_values(); ++id) {
    if (b.graph().value(id).role == pir::ValueRole::kParameter) params.push_back(id);
  }
  const pir::OpId backward_start = b.graph().num_ops();
  pir::BackwardOptions backward_options;
  backward_options.remat = BlockSegments(b.graph(), model_end, options.remat);
  AZ_ASSIGN_OR_RETURN(pir::BackwardResult backward, pir::AppendBackward(b, loss, params, backward_options));

  const pir::OpId optimizer_start = b.graph().num_ops();
  ValueId lr = b.Input("optimizer.lr", DType::kF32, {});
  ValueId step = b.Input("optimizer.step", DType::kF32, {});
  pir::AdamWScalars scalars = pir::AppendAdamWScalars(b, lr, step, adamw);
  b.Output(loss);
  std::vector<int64_t> gradients, updated_leaves, updated_values;
  for (size_t i = 0; i < params.size(); ++i) {
    if (backward.grads[i] == pir::kNoValue) continue;
    gradients.push_back(backward.grads[i]);
    pir::AdamWState state = pir::DeclareAdamWState(b, params[i]);
    pir::AdamWState next = pir::AppendAdamWUpdate(b, state, backward.grads[i], scalars);
    const ValueId leaves[] = {state.param, state.master, state.exp_avg, state.exp_avg_sq};
    const ValueId values[] = {next.param, next.master, next.exp_avg, next.exp_avg_sq};
    for (size_t k = 0; k < 4; ++k) {
      if (values[k] == pir::kNoValue) continue;
      b.Output(values[k]);
      updated_leaves.push_back(leaves[k]);
      updated_values.push_back(values[k]);
    }
  }

  pir::Graph g = b.Finish();
  SetConfigAttrs(g, train);
  g.attrs().Set("graph", std::string("train_step"));
  g.attrs().Set("micro_batch", batch);
  g.attrs().Set("remat", std::string(pir::RematPolicyName(options.remat)));
  g.attrs().Set("backward_start", static_cast<int64_t>(backward_start));
  g.attrs().Set("optimizer_start", static_cast<int64_t>(optimizer_start));
  g.attrs().Set("adamw_beta1", adamw.beta1);
  g.attrs().Set("adamw_beta2", adamw.beta2);
  g.attrs().Set("adamw_eps", adamw.eps);
  g.attrs().Set("adamw_weight_decay", adamw.weight_decay);
  g.attrs().Set("gradients", std::move(gradients));
  g.attrs().Set("updated_leaves", std::move(updated_leaves));
  g.attrs().Set("updated_values", std::move(updated_values));
  // Remat offload: the forward values the backward reads from host memory.
  if (!backward.offloaded.empty()) {
    g.attrs().Set("offloaded", std::vector<int64_t>(backward.offloaded.begin(), backward.offloaded.end()));
  }
  return g;
}

}  // namespace az::zoo
