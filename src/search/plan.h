// A plan: what the planner decided, as plain data the emitters (emit/) turn
// into files. Everything a user needs to run the configuration and everything
// the report states is here; nothing refers back to the planner's internals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "evidence/evidence.h"
#include "net/collective.h"
#include "price/simulator.h"
#include "search/stages.h"

namespace az::search {

// How one tensor is laid out: its PartitionSpec (per dimension, the mesh axes
// sharding it, major to minor; empty = replicated along that dimension).
struct TensorSpec {
  std::string name;                          // PIR value label: "blocks.0.self_attn.q.weight"
  std::string role;                          // "parameter", "input", "activation"
  std::vector<int64_t> shape;                // global shape
  std::vector<std::vector<std::string>> spec;  // per dim: axis names
  // Axes over which the value is a partial sum (a row-parallel linear's
  // result before its all-reduce or reduce-scatter): `spec` is then the
  // layout of each device's addend, not of the value.
  std::vector<std::string> partial = {};
};

// One priced configuration: a mesh, a sharding, a placement.
struct Configuration {
  std::string label;                     // "aoizora", or the baseline's ("expert", "alpa", "annotated")
  std::string description;               // "usp:ulysses=y,ring=x" / "xDiT ulysses=4,ring=2" / "Alpa ILP"
  std::vector<std::pair<std::string, int64_t>> mesh;  // axis name, size (row-major: the last axis fastest)
  std::string sharding;                  // the template spec, or "alpa" (seeds of the ILP)
  // The sharding is a set of per-tensor seeds (Alpa's ILP, an imported
  // program's annotations), not a template: no mesh-axis vocabulary.
  bool seeded = false;
  net::Placement placement;              // logical rank (row-major mesh position) -> chip id
  std::string placement_method;          // "exhaustive", "jax create_device_mesh", ...
  // The placement is the default device order (place/default_placement.h:
  // JAX's create_device_mesh on TPUs), whether or not a search ran.
  bool default_order = true;
  Seconds step_latency;
  Bytes peak_memory;                     // per device
  Bytes parameter_memory;                // per device (hold-both: every resident noise expert's)
  // What is live at the peak, per device, by kind (evidence.h): parameters,
  // gradients, optimizer states, activations (for a training step: what the
  // backward keeps under the remat choice, plus working buffers),
  // communication buffers, inputs, constants. All zero for evidence without it.
  evidence::MemoryBreakdown memory;
  // Noise experts (denoising experts, search/noise_experts.h), when the model
  // has more than one: noise_experts_mode "hold-both" (all resident;
  // peak_memory counts them) or "swap" (one resident, the next loaded from
  // host memory at the switch; step_latency includes noise_swap_per_step).
  // Empty with one expert. plan.json keeps its keys ("experts_mode", ...).
  std::string noise_experts_mode;
  int noise_experts = 1;
  Bytes noise_expert_memory;             // one expert's parameters per device
  Seconds noise_swap_per_video;
  Seconds noise_swap_per_step;
  Bandwidth host_link;                   // the host link swapping uses
  std::string noise_experts_reason;
  std::string evidence_hash;
  // Training steps: the per-block rematerialization ("none", "selected",
  // "full"; pir/grad/backward.h); empty for inference.
  std::string remat;
  // FSDP prefetch depth (search/combos.h Combo::prefetch): 1, the runtimes'
  // default, or d > 1: the weight gathers of the next d - 1 layers start
  // with the current layer's. plan.json writes it when > 1.
  int prefetch = 1;
  // Training steps: gradient accumulation (search/combos.h Combo::accumulate):
  // the step's micro-batch runs as this many micro-steps, one AdamW update on
  // their summed gradients. plan.json writes it when > 1.
  int accumulate = 1;
  // Of one forward pass under the placement (timeline included for the best);
  // the step runs `forwards_per_step` of them (two-pass CFG: 2).
  price::SimResult breakdown;
  int forwards_per_step = 1;
  std::vector<TensorSpec> tensors;       // every parameter and activation
  // The xDiT / Wan-repo degrees when the sharding is expressible that way
  // (ulysses, ring, cfg, tp, dp, fsdp; absent ones are 1 / 0).
  int ulysses = 1, ring = 1, cfg = 1, tp = 1, dp = 1, fsdp = 0;
  // PipeFusion (search/pipefusion.h): its stages (xDiT's
  // --pipefusion_parallel_degree), patches and synchronous warm-up steps;
  // with stages > 1 `breakdown` is one slot (one patch through one stage and
  // its send) and step_latency the pipeline's (search/pipeline_schedule.h).
  int pipefusion = 1, pipeline_patches = 1, pipeline_warmup_steps = 0;
  // Ulysses attention in head chunks (search/combos.h Combo::ulysses_chunks;
  // MaxDiffusion's ulysses_attention_chunks), 1: whole. The ranges are
  // MaxDiffusion's (compile/spmd/spmd_compiler.h UlyssesHeadChunks) over the
  // heads one device holds before the all-to-all (the model's heads / tp),
  // each a multiple of the Ulysses degree; empty when 1.
  int ulysses_chunks = 1;
  std::vector<std::pair<int64_t, int64_t>> ulysses_head_chunks;
  bool expressible_in_xdit = false;
  // Why the model's deployed code (xDiT, the official repository) would refuse
  // these degrees (workload.h: WorkloadBuilder::DeployedSequenceSplit); empty when it runs them.
  std::string xdit_refused;
  // Per mesh axis (the order of `mesh`), the strategy bound to it: "ulysses",
  // "ring", "cfg", "tp", "dp" or "fsdp"; "" for an axis nothing binds. xDiT
  // fixes its own rank order (tp fastest, then ulysses, ring, cfg, dp), so the
  // emitters need this binding to tell which GPU each xDiT rank must run on
  // (emit/codegen_torch.h). Empty when unknown: the emitters then assume the
  // mesh's row-major order already is xDiT's and say so.
  std::vector<std::string> axis_roles;
  // A per-part hybrid's scoped strategy (search/hybrid.h: "tp=ring@cross_attn+ffn":
  // Megatron TP in those block parts on the axis whose role is "ring"); empty
  // for a whole-model strategy. The torch runtime does not run it (emit/torch_parallelize.h).
  std::string per_part;
};

// A baseline (search/sources.h): its configuration, or why it has none.
struct Baseline {
  std::string label;  // "expert", "alpa", "annotated"
  std::optional<Configuration> configuration;
  std::string note;
};

// A chip as the emitters need it.
struct ChipInfo {
  int id = 0;                 // device id (JAX device id = our chip id)
  std::string name;           // "(1,0,0)" or "node0/gpu3"
  std::vector<int> coords;
};

struct Plan {
  // Inputs.
  std::string model;          // "wan2.1-t2v-14b", or the imported program's file
  std::string program_format; // "onnx" / "stablehlo" for an imported program, else empty
  int64_t width = 0, height = 0, frames = 0, steps = 0, batch = 1;
  // With noise experts (Configuration::noise_experts > 1): the step the second
  // takes over at (workload.h: Workload::noise_switch_step); else 0.
  int64_t noise_switch_step = 0;
  std::string cfg_mode;       // "two-pass", "batch2", "none"
  // A training step (search/planner.h: TrainPlanOptions) instead of a
  // denoising step: `batch` is then the micro-batch (samples per step), steps
  // and cfg_mode do not apply, and video_latency is 0.
  bool train = false;
  std::string topology;       // "v5e:2x4"
  std::string chip;           // "v5e"
  bool tpu = false;
  Bytes hbm;                  // per chip
  std::vector<ChipInfo> chips;
  uint64_t seed = 1;
  std::string target = "any";  // search/targets.h
  // The software stack every configuration was priced with (price/stack.h:
  // StackName), why it was chosen, and the attention efficiency it gave.
  std::string stack;
  std::string stack_reason;
  double attention_efficiency = 0;
  // Results. The fastest configuration of every source (search/sources.h),
  // baselines included: the plan is never slower than a baseline.
  Configuration best;
  // Every baseline source's configuration, in the sources' order ("expert",
  // "alpa", "annotated"): priced under the default placement, or absent with
  // the reason in `note` (for "annotated" also which shardings it kept).
  std::vector<Baseline> baselines;
  // The baseline of that label when it was priced, else null.
  const Configuration* Find(std::string_view label) const;
  // Its note ("" when there is no such baseline).
  std::string NoteOf(std::string_view label) const;
  // The pipeline's other stages (search/stages.h: text and image encoders,
  // the VAE), planned on the same chips with the best configuration's
  // weights resident; empty for training, imported programs, models whose
  // stages are not built, and with PlanOptions::stages off. Every
  // configuration's video latency adds the same stages.
  std::vector<StagePlan> stages;
  Seconds stages_latency;           // the sum of stages[].latency
  // End to end (inference): stages_latency + steps x best step latency.
  Seconds video_latency;
  double samples_per_second = 0;    // training: batch / best step latency
  Seconds roofline_bound;           // per step: max(FLOPs / (chips * peak), HBM bytes / (chips * HBM bw))
  double efficiency = 0;            // roofline_bound / best.step_latency
  Seconds plan_time;
  int meshes_considered = 0, candidates_considered = 0, candidates_compiled = 0;
};

}  // namespace az::search
