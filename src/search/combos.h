// Parallelism combinations in the vocabulary users know from xDiT and the Wan
// repo: degrees of CFG parallelism, Ulysses and Ring sequence parallelism,
// tensor parallelism and data parallelism whose product is the chip count,
// plus FSDP of the weights over F of the devices.
//
// A combination maps onto one mesh with one axis per degree > 1, in xDiT's
// rank order (slowest first: dp, cfg, ring, ulysses, tp; so tp varies fastest,
// then Ulysses, as xDiT's "tp-sp-pp-cfg-dp" with Ring outside Ulysses), and
// onto one template of shard/templates.h binding each strategy to its axis by
// name ("cfg=cfg,ring=ring,ulysses=ulysses,fsdp=ring+ulysses"). Every mesh
// factorization of the chip count into 1 to 4 named axes with a strategy per
// axis is one combination, so enumerating combinations enumerates meshes and
// the factor classes (batch/CFG -> cfg, dp; sequence -> ring, ulysses;
// heads / FFN / hidden -> tp, ulysses inside attention; weights -> fsdp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "workload/workload.h"
#include "pir/grad/backward.h"
#include "support/status.h"

namespace az::search {

struct Combo {
  int64_t dp = 1, cfg = 1, ring = 1, ulysses = 1, tp = 1;
  // MaxDiffusion's context parallelism (shard/templates.h: context=N): the
  // sequence split like ring, K and V all-gathered for attention. Never with
  // ring or ulysses; on the mesh it sits where ring would.
  int64_t context = 1;
  int64_t fsdp = 0;  // devices the weights are sharded over (0: none)
  // A per-part hybrid (shard/templates.h: "ring=r,tp=r@cross_attn+ffn"):
  // Megatron TP inside the block parts `tp_parts` (sorted) on the axis of the
  // sequence strategy `tp_on` ("ulysses", "ring" or "context"), which holds the
  // rest of the model; the parts gather the sequence at their entry and
  // reduce-scatter it at their exit. tp stays 1 (no axis of its own).
  // Empty: none (search/hybrid.h enumerates them).
  std::string tp_on;
  std::vector<std::string> tp_parts;
  // xDiT's PipeFusion (--pipefusion_parallel_degree, search/pipefusion.h):
  // the blocks cut into this many stages, one per position on its mesh axis,
  // the latent's patches pipelined through them. Its axis sits between cfg
  // and ring (xDiT's "tp-sp-pp-cfg-dp" order); no strategy of the template
  // binds to it (every stage runs its own blocks, sharded like the others).
  // Combines with Ulysses, Ring and CFG, as xDiT's hybrid parallelism does.
  int64_t pipefusion = 1;
  // MaxDiffusion's ulysses_attention_chunks: each Ulysses attention runs as
  // this many head chunks, each its own all-to-alls in, attention and
  // all-to-all out, so one chunk's all-to-alls overlap another's attention
  // (compile/spmd/spmd_compiler.h; UlyssesHeadChunks for the ranges). Needs
  // ulysses > 1; at most the head groups (heads / (ulysses x tp)). Not a
  // sharding: Template() leaves it out, ToString() and Id() name it
  // ("ulysses=4,ring=2,ulysses_chunks=2"). xDiT has no such chunking, so a
  // combination with chunks > 1 is never an expert's (ExpertDegrees).
  int64_t ulysses_chunks = 1;
  // Training steps only: the per-block rematerialization of the step
  // (pir/grad/backward.h); unset for inference. Not a sharding: Template()
  // leaves it out, ToString() and Id() name it ("dp=8,fsdp=8,remat=full").
  std::optional<pir::RematPolicy> remat;
  // FSDP prefetch depth (compile/spmd/schedule.h ScheduleAsync): 1, the
  // runtimes' default, or d > 1: the weight gathers of the next d - 1 layers
  // start with the current layer's. Only with fsdp; not a sharding either:
  // ToString() and Id() name it when > 1 ("ulysses=4,fsdp=16,prefetch=2").
  // The grid's survivors choose it (search/prefetch.h); the expert's and the
  // deployed configurations keep 1, as their code runs.
  int prefetch = 1;
  // Training steps only: gradient accumulation over this many micro-steps of
  // micro_batch / accumulate samples, one optimizer update on the summed
  // gradients (workload.h: TrainOptions::accumulate). Not a sharding either:
  // ToString() and Id() name it when > 1 ("ulysses=4,fsdp=4,accumulate=2,
  // remat=none"); the data-parallel degrees split the micro-step's batch.
  // The grid's survivors choose it (search/accumulate.h); the expert's and
  // the deployed configurations keep 1 (MaxDiffusion's Wan trainer runs one
  // micro-step per update).
  int64_t accumulate = 1;

  int64_t devices() const { return dp * cfg * pipefusion * ring * context * ulysses * tp; }
  // "ulysses=4,ring=2,cfg=2,fsdp=16" (xDiT's flags order: pipefusion, ulysses, ring, cfg, tp, dp, fsdp, with
  // context after ring; degrees of 1 left out;
  // "replicated" when every degree is 1).
  std::string ToString() const;
  // The candidate id in file names ("ulysses4-ring2-fsdp8", "replicated"):
  // `plan --emit-candidates` writes it, `plan --compiler xla --hlo-dir`
  // looks for <id>.hlo.
  std::string Id() const;
  // The mesh text ("cfg=2,ring=2,ulysses=4"; "d=1" for one device) and the template.
  std::string MeshText() const;
  std::string Template() const;
  // Per mesh axis, the strategy on it ("cfg", "ring", ...).
  std::vector<std::string> AxisRoles() const;
  // Expert style: xDiT / the Wan repo run Ulysses x Ring x CFG (with FSDP),
  // no tensor or data parallelism. The model-aware test is RunsAsExpert.
  bool IsExpert() const { return tp == 1 && dp == 1 && context == 1 && ulysses_chunks == 1 && !IsHybrid(); }
  bool IsHybrid() const { return !tp_parts.empty(); }
  bool operator==(const Combo&) const = default;
};

// Whether the model's deployed code offers the combination's degrees
// (Workload::DeployedParallelism: xDiT's Ulysses x Ring x CFG, Step-Video's TP x
// Ulysses; never dp), and whether it also accepts its sequence split
// (Workload::DeployedSequenceSplit): an expert configuration the planner prices.
bool ExpertDegrees(const workload::Workload& config, const Combo& combo);
bool RunsAsExpert(const workload::Workload& config, const Combo& combo);

// "ulysses=2,ring=2,cfg=2", "ulysses=8,fsdp=8", "tp=4,cfg=2"; a training
// step's may name its remat ("dp=4,fsdp=4,remat=selected"); a per-part
// hybrid names the sequence strategy whose axis its tp takes and the parts
// ("ring=4,cfg=2,tp=ring@cross_attn+ffn", Combo::tp_on); PipeFusion its
// stages ("pipefusion=2,ulysses=4"). Errors: an
// unknown strategy, a repeated one, a degree below 1, a product of the
// compute degrees that is not `chips`, fsdp above `chips` or not a product of
// the combination's degrees, context with ring or ulysses; a per-part tp
// beside a tp degree, on a strategy that is not a sequence one of the
// combination (or on ring when ulysses is there too), with no parts or
// a part twice; pipefusion with tp, dp, context or fsdp (pipefusion.h:
// CheckPipeFusion checks it against the model); ulysses_chunks above 1
// without ulysses, or with pipefusion or remat (a training step's backward
// is not chunked), CheckUlyssesChunks checks it against the heads;
// prefetch below 1, above compile::kMaxPrefetchDepth, repeated, or above 1
// without fsdp; accumulate below 1, repeated, or above 1 with pipefusion or
// ulysses_chunks (inference) or with remat offload. Whether the step is a
// training step and accumulate divides its micro-batch is the planner's
// check (it knows the step).
StatusOr<Combo> ParseCombo(std::string_view text, int64_t chips);
// Whether --template text names a prefetch depth ("ulysses=4,fsdp=16,prefetch=1"):
// the planner then keeps it instead of choosing one (prefetch.h).
bool PinsPrefetch(std::string_view text);

// Whether the combination's ulysses_chunks fits the model's `heads`: at most
// the head groups heads / (ulysses x tp) (MaxDiffusion caps the chunks there;
// every chunk holds whole groups).
Status CheckUlyssesChunks(const Combo& combo, int64_t heads);

// The Ulysses chunk variants the plan's grid adds for a combination with
// Ulysses (2 and 4 chunks, capped by the head groups; none without Ulysses,
// for PipeFusion or a training step). The grid prices them for its survivors
// whose compiled program has an all-to-all (planner.cc).
std::vector<Combo> UlyssesChunkVariants(const Combo& combo, int64_t heads);

// Every combination for `chips` devices the model admits: CFG parallelism of
// 2 only for models with a CFG pass, Ulysses x TP dividing the head count of
// every attention, data parallelism only over a batch it divides; FSDP none or
// over all devices. Every combination whose sequence split is ring alone also
// comes as context (the same degree, K and V gathered instead of rotated).
// Then PipeFusion's (pipefusion.h: AppendPipeFusionCombos) where the model is
// built as patches. Deterministic order.
std::vector<Combo> EnumerateCombos(const workload::Workload& config, int64_t chips, int64_t heads);

// Every combination for a training step of `micro_batch` samples on `chips`
// devices: no CFG (a training step runs one forward), data parallelism over a
// batch it divides, sequence and tensor parallelism as for inference; FSDP
// (ZeRO-3: weights, gradients and optimizer states sharded) none, over the
// data-parallel axis alone, over every device, or (HSDP) over the other axes
// inside each data-parallel replica, where its degree differs from dp's.
// remat is left unset (the planner picks it per combination). Context
// variants as for inference.
std::vector<Combo> EnumerateTrainCombos(int64_t chips, int64_t heads, int64_t micro_batch);

// The training expert's combinations (MaxDiffusion's Wan training recipes,
// reference/models.md §4.4): FSDP over every chip with the batch over them
// (mesh fsdp), and FSDP x context parallelism (the batch over a data axis, the
// sequence over the context axis, the weights over both: MaxDiffusion shards
// embed over context x fsdp), or over the context axis alone (its training
// README's data x fsdp mesh at maxdiffusion @f5f212f2, whose fsdp axis
// carries the sequence and the weights: dp x context, fsdp = context). Its
// context attention is its default, `attention: flash`
// (configs/base_wan_14b.yml), which gathers K and V over
// the axis (Combo::context), not a ring; ring, ulysses and ulysses_ring are
// opt-in kernels, so they are not the baseline. No tensor parallelism (its
// default tensor degree is 1).
bool TrainExpert(const Combo& combo, int64_t chips);

// The divisors of n >= 1, ascending.
std::vector<int64_t> Divisors(int64_t n);

// The model's attention head count (Wan 12 / 40, HunyuanVideo 24); 0 for an
// imported program without attention (EnumerateCombos then splits only the batch).
StatusOr<int64_t> AttentionHeads(const workload::Workload& config);

// The model configuration a combination runs: a CFG-parallel combination
// needs the batch-2 forward (the two passes as one batch); others keep the
// model's CFG mode.
workload::Workload ConfigFor(const workload::Workload& config, const Combo& combo);

}  // namespace az::search
