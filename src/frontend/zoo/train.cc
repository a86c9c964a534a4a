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
//
// Gradient accumulation (TrainOptions::accumulate = K > 1): the inputs are
// the whole batch's (latent, timestep, conditioning, target_velocity at
// micro_batch), declared first; then K micro-steps one after the other, ops
// scoped "micro<i>" (the parameters shared), each
//   its slice of every input: samples i, i + K, ... of each device's block
//     ([B, ...] reshaped to [B/K, K, ...], column i taken, reshaped to
//     [B/K, ...]), so a data-parallel split of B/K moves no data;
//   the forward at B/K samples and its loss, scaled by 1/K ("loss.scaled":
//     torch's (loss / K).backward(); the micro-steps' losses sum to the
//     batch's mean, the step's first output, "loss.sum");
//   its backward under the same per-block remat;
//   from micro-step 1 on, per updated parameter the running sum
//     "micro<i>.grad_sum.<param>" = previous sum + this micro-step's gradient
//     (micro-step 0's gradient starts it);
// then AdamW once, on the sums. With K = 1 the graph is the one above, byte
// for byte. Attributes as above with batch = micro_batch / K (what one
// forward runs), backward_start = micro-step 0's backward and gradients =
// the sums, plus accumulate = K, micro_steps (per micro-step its first op and
// its backward's first op: [start_0, backward_0, start_1, ...]; micro-step i
// runs until start_{i+1}, the last until optimizer_start) and gradient_sums
// (the other gradients: each micro-step's and the running sums), which the
// compiler reads to regather weights per micro-step and to add in place
// (compile/spmd/spmd_compiler.cc). Not with remat offload: the simulator
// prices the host link against one forward and one backward.
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
std::vector<pir::RematSegment> BlockSegments(const pir::Graph& graph, pir::OpId begin, pir::OpId end,
                                             pir::RematPolicy policy) {
  std::vector<pir::RematSegment> segments;
  if (policy == pir::RematPolicy::kNone) return segments;
  std::string current;
  for (pir::OpId id = begin; id < end; ++id) {
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

// The flow-matching loss mean((v_pred - target)^2), times `scale` when it is
// not 1 (a micro-step's share of an accumulated step).
ValueId FlowMatchingLoss(GraphBuilder& b, ValueId velocity, ValueId target, double scale) {
  GraphBuilder::Scope scope(b, "loss");
  ValueId error = b.Binary(OpKind::kSub, "error", velocity, target);
  ValueId squared = b.Binary(OpKind::kMul, "squared", error, error);
  std::vector<int64_t> all(static_cast<size_t>(b.graph().type(velocity).rank()));
  for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
  ValueId loss = b.Reduce("mean", squared, all, "mean");
  if (scale == 1) return loss;
  return b.Binary(OpKind::kMul, "scaled", loss, b.Full("scale", DType::kF32, {}, scale));
}

// Micro-step `index` of `count` of a batched input [B, ...]: its samples
// index, index + count, ... of each device's block, as a training loop's
// reshape (B/count, count, ...) and slice along the second dim reads them, so
// a batch split over d devices (d dividing B/count) stays split with no data
// moved: [B, ...] -> [B/count, count, ...] -> [B/count, 1, ...] -> [B/count, ...].
ValueId MicroSlice(GraphBuilder& b, ValueId value, int64_t index, int64_t count) {
  const pir::Shape& shape = b.graph().type(value).shape;
  const int64_t micro = shape[0] / count;
  pir::Shape split{micro, count}, sliced{micro};
  split.insert(split.end(), shape.begin() + 1, shape.end());
  sliced.insert(sliced.end(), shape.begin() + 1, shape.end());
  const std::string name = b.graph().value(value).name;
  ValueId grouped = b.Reshape(name + ".micro_groups", value, split);
  ValueId one = b.SliceAxis(name + ".micro_slice", grouped, 1, index, index + 1);
  return b.Reshape(name + ".micro", one, sliced);
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
  const int64_t accumulate = options.accumulate;
  if (accumulate < 1 || options.micro_batch % accumulate != 0) {
    return InvalidArgument("gradient accumulation over " + std::to_string(accumulate) +
                           " micro-steps needs a count >= 1 dividing the micro-batch of " +
                           std::to_string(options.micro_batch) + " samples");
  }
  if (accumulate > 1 && options.remat == pir::RematPolicy::kOffload) {
    // The simulator prices the host link against one forward and one
    // backward (price/simulator.h: the compute before the first reload).
    return Status(StatusCode::kUnimplemented,
                  "remat offload with gradient accumulation: the host transfers are priced for one forward and "
                  "one backward per step (use remat none, selected or full with accumulate)");
  }
  const DitFamily& family = FamilyOf(config.model);
  AZ_RETURN_IF_ERROR(family.Validate(config));
  if (config.depth_units < 0 || config.depth_units > family.depth_units()) {
    return InvalidArgument("depth units must be in 0.." + std::to_string(family.depth_units()) + ", got " +
                           std::to_string(config.depth_units));
  }
  ModelConfig train = config;
  train.batch = options.micro_batch / accumulate;  // one micro-step's samples
  train.cfg = CfgMode::kNone;
  const int64_t batch = options.micro_batch;
  const pir::Shape latent_shape{batch, family.latent_channels(), train.latent_frames(), train.latent_height(),
                                train.latent_width()};

  GraphBuilder b(config.model + ".train");
  b.set_attention_lse(true);
  ValueId loss = pir::kNoValue;
  std::vector<ValueId> params;
  pir::BackwardResult backward;
  pir::OpId backward_start = 0;
  // Accumulated steps: per micro-step its first op and its backward's, and
  // every gradient besides the sums AdamW reads (each micro-step's and the
  // running sums).
  std::vector<int64_t> micro_steps, gradient_sums;
  auto collect_params = [&] {
    for (ValueId id = 0; id < b.graph().num_values(); ++id) {
      if (b.graph().value(id).role == pir::ValueRole::kParameter) params.push_back(id);
    }
  };
  if (accumulate == 1) {
    ValueId x = b.Input("latent", DType::kF32, latent_shape);
    ValueId t = b.Input("timestep", DType::kF32, {batch});
    std::vector<ValueId> cond = family.DeclareConditioning(b, train, batch, "cond");
    ValueId velocity = family.Forward(b, train, x, t, cond);
    const pir::OpId model_end = b.graph().num_ops();
    ValueId target = b.Input("target_velocity", DType::kF32, latent_shape);
    loss = FlowMatchingLoss(b, velocity, target, 1);
    collect_params();
    backward_start = b.graph().num_ops();
    pir::BackwardOptions backward_options;
    backward_options.remat = BlockSegments(b.graph(), 0, model_end, options.remat);
    AZ_ASSIGN_OR_RETURN(backward, pir::AppendBackward(b, loss, params, backward_options));
  } else {
    // The whole batch's inputs, each micro-step reading its slice; the
    // micro-steps' ops are scoped "micro<i>" (the parameters are shared).
    ModelConfig whole = train;
    whole.batch = batch;
    ValueId x_all = b.Input("latent", DType::kF32, latent_shape);
    ValueId t_all = b.Input("timestep", DType::kF32, {batch});
    std::vector<ValueId> cond_all = family.DeclareConditioning(b, whole, batch, "cond");
    ValueId target_all = b.Input("target_velocity", DType::kF32, latent_shape);
    for (ValueId c : cond_all) {
      if (b.graph().type(c).rank() == 0 || b.graph().type(c).shape[0] != batch) {
        return Status(StatusCode::kUnimplemented, config.model + ": conditioning input '" +
                                                      b.graph().value(c).name +
                                                      "' is not batched, so gradient accumulation cannot slice it");
      }
    }
    for (int64_t i = 0; i < accumulate; ++i) {
      const pir::OpId start = b.graph().num_ops();
      ValueId velocity, target;
      {
        GraphBuilder::Scope scope(b, "micro" + std::to_string(i), /*names_params=*/false);
        ValueId x = MicroSlice(b, x_all, i, accumulate);
        ValueId t = MicroSlice(b, t_all, i, accumulate);
        std::vector<ValueId> cond;
        for (ValueId c : cond_all) cond.push_back(MicroSlice(b, c, i, accumulate));
        velocity = family.Forward(b, train, x, t, cond);
      }
      const pir::OpId model_end = b.graph().num_ops();
      ValueId micro_loss;
      {
        GraphBuilder::Scope scope(b, "micro" + std::to_string(i), /*names_params=*/false);
        target = MicroSlice(b, target_all, i, accumulate);
        micro_loss = FlowMatchingLoss(b, velocity, target, 1.0 / static_cast<double>(accumulate));
        loss = i == 0 ? micro_loss : b.Binary(OpKind::kAdd, "loss.sum", loss, micro_loss);
      }
      if (i == 0) collect_params();
      const pir::OpId micro_backward = b.graph().num_ops();
      if (i == 0) backward_start = micro_backward;
      micro_steps.push_back(start);
      micro_steps.push_back(micro_backward);
      pir::BackwardOptions backward_options;
      backward_options.remat = BlockSegments(b.graph(), start, model_end, options.remat);
      AZ_ASSIGN_OR_RETURN(pir::BackwardResult micro, pir::AppendBackward(b, micro_loss, params, backward_options));
      if (i == 0) {
        backward = std::move(micro);
        continue;
      }
      // The running sum, per parameter as this micro-step's backward
      // leaves it (a JAX scan's carry += grads; torch's .grad +=).
      GraphBuilder::Scope scope(b, "micro" + std::to_string(i), /*names_params=*/false);
      for (size_t p = 0; p < params.size(); ++p) {
        if (backward.grads[p] == pir::kNoValue) continue;
        AZ_CHECK(micro.grads[p] != pir::kNoValue);  // every micro-step runs the same forward
        gradient_sums.push_back(backward.grads[p]);
        gradient_sums.push_back(micro.grads[p]);
        backward.grads[p] = b.Binary(OpKind::kAdd, "grad_sum." + b.graph().value(params[p]).name, backward.grads[p],
                                     micro.grads[p]);
      }
    }
  }
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
  if (accumulate > 1) {
    g.attrs().Set("accumulate", accumulate);
    g.attrs().Set("micro_steps", std::move(micro_steps));
    g.attrs().Set("gradient_sums", std::move(gradient_sums));
  }
  g.attrs().Set("updated_leaves", std::move(updated_leaves));
  g.attrs().Set("updated_values", std::move(updated_values));
  // Remat offload: the forward values the backward reads from host memory.
  if (!backward.offloaded.empty()) {
    g.attrs().Set("offloaded", std::vector<int64_t>(backward.offloaded.begin(), backward.offloaded.end()));
  }
  return g;
}

}  // namespace az::zoo
