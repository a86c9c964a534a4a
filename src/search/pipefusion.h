// PipeFusion: xDiT's patch-level pipeline parallelism
// (--pipefusion_parallel_degree P; Fang et al., "PipeFusion: Patch-level
// Pipeline Parallelism for Diffusion Transformers", arXiv 2405.14430), priced
// from a compiled program like every other strategy.
//
// What xDiT runs (xfuser/config/config.py, xfuser/model_executor/pipelines):
// the DiT's blocks cut into P stages of equal depth, one per position on the
// `pipefusion` mesh axis, each chip holding its stage's weights; the latent's
// token rows cut into M patches (num_pipeline_patch, default P), which flow
// through the stages one after the other; each stage attends a patch's
// queries over the whole sequence's K and V, the other patches' taken from
// the previous step (stale by one step, kept in a buffer of the stage's
// layers over the full sequence); a patch's hidden state is sent point to
// point to the next stage. The first warmup_steps (default 1) run
// synchronously, without patches. Ulysses, Ring and CFG split each stage's
// work on the other axes (xDiT: world = dp x cfg x pipefusion x sp; its rank
// order "tp-sp-pp-cfg-dp" puts the pipeline axis between CFG and the
// sequence-parallel axes).
//
// How it is priced. The candidate's program is one slot: the workload's
// forward at the stage's depth (its block units / P) on one patch
// (Workload::pipeline_patches = M), whose self-attentions read K and V over
// the full sequence (the stale part an input per layer, so the peak memory
// holds the stage's K/V buffer) and which outputs the hidden state its
// blocks leave. It is compiled on the combination's mesh like any other
// (the template shards each stage over Ulysses, Ring and CFG; the pipeline
// axis binds nothing, every position running its own blocks), then
// AppendStageSend adds the send: a collective-permute of that hidden state
// from each stage to the next over the pipeline axis, which the network
// model prices under the placement like any collective. The simulator prices
// the slot; pipeline_schedule.h composes the step from it (evaluate.h:
// StepLatency). Each stage's program is the same shape, so one SPMD program
// stands for all of them; it carries the patch embedding and the head, which
// only the first and the last stage run (a slot is the slowest stage's).
#pragma once

#include "cir/program.h"
#include "search/evaluate.h"
#include "search/planner.h"

namespace az::search {

// The mesh axis of the stages (Combo::MeshText).
inline constexpr const char* kPipeFusionAxis = "pipefusion";

// Ok, or why the model cannot run `combo`'s PipeFusion: a training step; a
// builder that does not build patches (only Wan's, today); a degree that
// does not divide the block units (every stage holds the same number of
// blocks); more patches than the latent has token rows.
Status CheckPipeFusion(const workload::Workload& config, const Combo& combo, bool train);

// The patches xDiT cuts the latent into: num_pipeline_patch's default, P.
int64_t PipeFusionPatches(const Combo& combo);

// Block units of one stage: the model's / P (the model's, without PipeFusion).
int64_t StageUnits(const workload::Workload& config, const Combo& combo);

// The candidate of a PipeFusion combination: one stage's program at
// `depth_units` block units (0: the stage's, StageUnits) on one patch, on the
// combination's mesh, with its pipeline (P stages, M patches, xDiT's warm-up
// steps) in the step shape.
StatusOr<Candidate> PipeFusionCandidate(const workload::Workload& config, const Combo& combo, int64_t depth_units,
                                        const PlanOptions& options);

// The PipeFusion combinations of `chips` devices, appended to `out` in a fixed
// order: P > 1 dividing the block units, with CFG (2 where the model has a
// CFG pass) and Ulysses x Ring (Ulysses dividing the heads) on the rest; no
// TP, DP or FSDP; at most 4 mesh axes. None when the builder does not build
// patches.
void AppendPipeFusionCombos(const workload::Workload& config, int64_t chips, int64_t heads, std::vector<Combo>& out);

// Appends the stage's send to a compiled stage program on `mesh`: a blocking
// collective-permute of program output 0 (the hidden state) from every
// device to the one at the next position of the pipeline axis, its other
// coordinates the same. The last stage sends nothing: its patch leaves as
// the latent's update to the first stage for the next step, left out: per
// token 16 channels x 2 x 2 f32 values against the hidden state's 5,120 f32
// (Wan 14B), 1/80 of its bytes.
Status AppendStageSend(const shard::Mesh& mesh, cir::Program& program);

}  // namespace az::search
