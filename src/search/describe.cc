#include "search/describe.h"

#include <algorithm>

#include "compile/spmd/spmd_compiler.h"
#include "pir/ir/op_kind.h"

namespace az::search {

namespace {

// Every leaf and activation; of a training step the leaves and the forward's
// activations (an accumulated step: its first micro-step's; the backward's
// and the optimizer's, tens of thousands, are the compiler's business, not a
// user's).
std::vector<TensorSpec> TensorSpecs(const pir::Graph& graph, const shard::ShardingPlan& plan, bool train) {
  std::vector<TensorSpec> out;
  const int64_t forward_end = graph.attrs().GetInt("backward_start").value_or(graph.num_ops());
  const bool accumulated = graph.attrs().GetInt("accumulate").value_or(1) > 1;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role == pir::ValueRole::kConstant) continue;
    if (train && v.role == pir::ValueRole::kActivation && v.producer >= forward_end) continue;
    TensorSpec spec;
    // Leaves by their own names (checkpoint FQNs, what plan_torch.py and
    // plan_jax.py key on); activations, often unnamed, by their label.
    spec.name = v.name.empty() ? pir::ValueLabel(graph, id) : v.name;
    // An accumulated step's forward is micro-step 0's (frontend/zoo/train.cc:
    // scoped "micro0"), named as the step without accumulation names it; the
    // scope may sit inside a label ("value %4 (result of 'micro0.latent.micro')").
    if (accumulated) {
      for (size_t at = spec.name.find("micro0."); at != std::string::npos; at = spec.name.find("micro0.")) {
        spec.name.erase(at, 7);
      }
    }
    spec.role = v.role == pir::ValueRole::kParameter        ? "parameter"
                : v.role == pir::ValueRole::kInput          ? "input"
                : v.role == pir::ValueRole::kOptimizerState ? "optimizer_state"
                                                            : "activation";
    spec.shape = v.type.shape;
    for (const auto& dim : plan.values[static_cast<size_t>(id)].dims) {
      std::vector<std::string> axes;
      for (int a : dim) axes.push_back(plan.mesh.axis_name(a));
      spec.spec.push_back(std::move(axes));
    }
    for (int a : plan.values[static_cast<size_t>(id)].partial) spec.partial.push_back(plan.mesh.axis_name(a));
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace

StatusOr<Configuration> Describe(const std::string& label, const Pick& pick, const workload::Workload& config,
                                 const hw::Topology& topology, const PlanOptions& options, bool best) {
  const Evaluated& p = *pick.evaluated;
  const Candidate& candidate = p.compiled.candidate;
  const Combo& combo = candidate.strategy.combo;
  const evidence::Evidence& evidence = p.compiled.evidence;
  Configuration c;
  c.label = label;
  c.description = pick.description;
  for (int a = 0; a < candidate.mesh.num_axes(); ++a) {
    c.mesh.push_back({candidate.mesh.axis_name(a), candidate.mesh.axis_size(a)});
  }
  c.sharding = pick.sharding.empty() ? combo.Template() : pick.sharding;
  c.seeded = !pick.sharding.empty();
  c.placement = pick.searched_placement ? p.best_placement : p.default_placement;
  c.default_order = c.placement == p.default_placement;
  c.placement_method = pick.searched_placement ? p.best_method : p.default_method;
  c.step_latency = Seconds(pick.searched_placement ? p.best_latency : p.default_latency);
  c.peak_memory = evidence.peak_memory;
  c.parameter_memory = evidence.parameter_bytes;
  c.memory = evidence.memory;
  if (p.noise_experts.mode != NoiseExpertMode::kSingle) {
    c.noise_experts_mode = std::string(NoiseExpertModeName(p.noise_experts.mode));
    c.noise_experts = static_cast<int>(p.noise_experts.experts);
    c.noise_expert_memory = c.parameter_memory;
    c.peak_memory = Bytes(static_cast<int64_t>(p.noise_experts.resident_peak));
    if (p.noise_experts.mode == NoiseExpertMode::kHoldBoth) c.parameter_memory = c.parameter_memory * p.noise_experts.experts;
    c.noise_swap_per_video = Seconds(p.noise_experts.swap_per_video_s);
    c.noise_swap_per_step = Seconds(p.noise_experts.swap_per_step_s);
    c.host_link = p.noise_experts.host_bandwidth;
    c.noise_experts_reason = p.noise_experts.reason;
  }
  c.evidence_hash = evidence::HashOf(evidence);
  c.forwards_per_step = static_cast<int>(p.forwards);
  if (pick.sharding.empty()) {
    // The xDiT degrees of the combination (a sharding of seeds has none).
    c.ulysses = static_cast<int>(combo.ulysses);
    c.ring = static_cast<int>(combo.ring);
    c.cfg = static_cast<int>(combo.cfg);
    c.tp = static_cast<int>(combo.tp);
    c.dp = static_cast<int>(combo.dp);
    c.fsdp = static_cast<int>(combo.fsdp);
    c.prefetch = combo.prefetch;
    c.accumulate = static_cast<int>(combo.accumulate);
    c.pipefusion = static_cast<int>(combo.pipefusion);
    c.pipeline_patches = static_cast<int>(candidate.step.pipeline.patches);
    c.pipeline_warmup_steps = static_cast<int>(candidate.step.pipeline.warmup_steps);
    // xDiT has no context attention (K and V gathered): MaxDiffusion's, on TPUs.
    // Nor per-part strategies: xDiT runs one strategy over the whole block.
    // Nor head-chunked Ulysses (MaxDiffusion's ulysses_attention_chunks).
    c.expressible_in_xdit = combo.context == 1 && !combo.remat && !combo.IsHybrid() &&
                            combo.ulysses_chunks == 1;  // and it runs inference
    if (combo.ulysses_chunks > 1) {
      c.ulysses_chunks = static_cast<int>(combo.ulysses_chunks);
      // The heads one device holds before the all-to-all: the video
      // attention's (the widest the program has) over tp.
      int64_t heads = 0;
      for (const pir::Op& op : candidate.program->ops()) {
        if (op.kind != pir::OpKind::kAttention) continue;
        heads = std::max(heads, candidate.program->type(op.operands[0]).shape[2]);
      }
      c.ulysses_head_chunks = compile::UlyssesHeadChunks(heads / combo.tp, combo.ulysses, combo.ulysses_chunks);
    }
    c.axis_roles = combo.AxisRoles();
    if (combo.IsHybrid()) {
      Combo scoped;
      scoped.tp_on = combo.tp_on;
      scoped.tp_parts = combo.tp_parts;
      c.per_part = scoped.ToString();
    }
  }
  if (combo.remat) c.remat = std::string(pir::RematPolicyName(*combo.remat));
  AZ_ASSIGN_OR_RETURN(c.breakdown, Breakdown(p.compiled, topology, options.calibration, c.placement, best));
  if (best) c.tensors = TensorSpecs(*candidate.program, p.compiled.sharding, options.train.has_value());
  if (c.expressible_in_xdit) {
    // The xDiT form may still be one the model's deployed code refuses
    // (AoiZora's compiled program pads where that code would not).
    Status split = config.DeployedSequenceSplit(int64_t{c.ulysses} * c.ring);
    if (!split.ok()) c.xdit_refused = split.message();
  }
  return c;
}

}  // namespace az::search
