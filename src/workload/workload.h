// A workload: what the planner plans, as the frontend hands it over. It is
// all search/ sees of a model (the layering check keeps search/ out of the
// zoo and the importers):
//
//   sizes      the model's name, the video (width, height, frames; 0 for an
//              imported program), steps, batch, dtype;
//   guidance   the CFG mode (how a step runs its conditional and
//              unconditional forwards);
//   noise experts  Wan 2.2's denoising experts: how many and the step the
//              second takes over at;
//   depth      block units built (0: all) and the full count, for pricing a
//              truncated model and extrapolating;
//   graphs     the forward, the denoising step, the training step, the
//              pipeline stages around the DiT and a tiled decoder's parts;
//   deployment the rules of the code the model is deployed with (the xDiT /
//              official-repository degrees and sequence splits, its
//              attention library), which bound the expert baseline.
//
// Sizes, guidance, noise experts and depth are plain fields that the search
// adjusts (a training step's batch, a combination's CFG mode, a truncated
// depth) before asking for a graph; the graphs and the rules come from the
// frontend that built the workload (WorkloadBuilder), which reads the fields
// of the workload it is asked about. Two frontends implement it: the zoo
// (frontend/models.h: ZooWorkload) and imported programs
// (frontend/import/program_load.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pir/grad/adamw.h"
#include "pir/ir/graph.h"
#include "support/status.h"

namespace az::workload {

// How a denoising step runs classifier-free guidance: `two-pass` runs the
// conditional and the unconditional forward one after the other on the same
// weights (the official Wan code); `batch2` runs one forward on the
// concatenated batch (MaxDiffusion); `none` runs one forward.
enum class CfgMode { kTwoPass, kBatch2, kNone };
std::string_view CfgModeName(CfgMode mode);
StatusOr<CfgMode> ParseCfgMode(std::string_view name);

// What a user asks of a zoo model; unset fields take the model's defaults.
// Every field has an initializer, so designated initializers may name any
// subset: ModelOptions{.width = 256, .height = 256, .frames = 5}.
struct ModelOptions {
  std::optional<int64_t> width{}, height{}, frames{}, steps{};
  int64_t batch = 1;
  std::optional<CfgMode> cfg{};
  pir::DType dtype = pir::DType::kBF16;
};

// Tokens of one sample: video (patch grid) and text (what the DiT attends to).
struct TokenCounts {
  int64_t video = 0;
  int64_t text = 0;
};

// A training step (zoo/train.cc documents the graph): the forward at
// micro_batch (CFG does not apply: the workload's cfg and batch are ignored),
// the flow-matching loss, the backward with per-block rematerialization, and
// AdamW with fp32 master weights and moments.
//
// Gradient accumulation (`accumulate` = k > 1, k dividing micro_batch): the
// step runs k micro-steps of micro_batch / k samples one after the other,
// each its forward, loss and backward (same remat), summing their gradients,
// then one AdamW update on the sum. The 1/k is folded into each micro-step's
// loss (torch's `(loss / k).backward()`), so the sum is the gradient of the
// whole batch's mean loss, as with k = 1 (frontend/zoo/train.cc).
struct TrainOptions {
  int64_t micro_batch = 1;
  pir::RematPolicy remat = pir::RematPolicy::kNone;
  pir::AdamWOptions adamw;
  int64_t accumulate = 1;
};

// The degrees the deployed code offers besides Ulysses x Ring: xDiT's CFG
// parallelism (--use_cfg_parallel), and tensor parallelism where the model's
// own code runs it (Step-Video: tp_degree x ulysses_degree, no CFG degree;
// models.md §4.6). Imported programs: the default.
struct DeployedDegrees {
  bool cfg = true;
  bool tp = false;
  // xDiT's PipeFusion (--pipefusion_parallel_degree): xDiT runs it only in its
  // own pipeline wrappers (PixArt, SD3, Flux, HunyuanDiT); its Wan examples
  // (examples/wan_example.py, wan_pipeline_example.py) assert a degree of 1.
  // No zoo model built as patches (workload.h: pipeline_patches) runs it.
  bool pipefusion = false;
};

// The attention library the model's deployed code calls on GPUs (a name of
// price/stack.h), and where the README or code says so. `hopper` is the
// library on Hopper GPUs when the deployment says it differs there. TPUs run
// MaxDiffusion's JAX flash kernel for every model (the planner's TPU default).
// Imported programs and models whose deployment names no library: fa2, the
// library the shipped fits were made with (hw/chip.cc: fitted_compute).
struct DeployedAttention {
  std::string_view gpu = "fa2";
  std::string_view hopper = "fa2";
  std::string_view source = "no deployment source names another library: fa2, the library the shipped fits saw";
};

// The configuration the model's own repository deploys on `chips` chips
// (the `deployed` baseline, search/sources.h), in the planner's degrees:
// ulysses x ring x tp x context = chips, the weights sharded over every chip
// or not. On GPUs it is the launch command of the model's repository (Wan's
// generate.py, HunyuanVideo's sample_video.py, Step-Video's run_parallel.py);
// on TPUs MaxDiffusion's default mesh and attention. CFG is never split:
// those recipes run the passes one after the other or as one batch.
//
// A training recipe (WorkloadBuilder::DeployedTrainRecipeOn) also splits the
// batch over `dp` data-parallel replicas and pins its remat policy.
struct DeployedRecipe {
  int64_t ulysses = 1, ring = 1, tp = 1, context = 1;
  int64_t dp = 1;
  // The weights sharded over every chip of a data-parallel replica (every
  // chip when dp = 1), or not sharded.
  bool fsdp = false;
  std::optional<pir::RematPolicy> remat;  // training recipes only
  std::string command;  // the flags as the recipe writes them: "--ulysses_size 8 --dit_fsdp"
  std::string source;   // where the recipe is written (file and commit)
};

// ------------------------------------------------- the stages around the DiT
enum class StageKind { kTextEncoder, kImageEncoder, kVaeEncoder, kVaeDecoder };
std::string_view StageKindName(StageKind kind);  // "text-encoder", ...

struct StageInfo {
  std::string name;  // "umt5-xxl"
  StageKind kind = StageKind::kTextEncoder;
  pir::DType dtype = pir::DType::kBF16;  // what the pipeline runs it in
  // Invocations per video: a text encoder runs on the prompt and, with CFG,
  // on the negative prompt; the image encoder and the VAEs once per video
  // (the graph of a Wan VAE is one video; HunyuanVideo's the whole batch).
  int64_t invocations = 1;
  std::string description;  // one line
};

// One run of a decoder the pipeline runs in tiles (zoo/stages.h documents
// the runs and the blend graph).
struct DecoderTileRun {
  std::string name;  // its op scope in the stage's graph: "ttile_1.tile_2_3"; "" for an untiled decode
  pir::Shape latent;                       // [B, C, f, h, w]: the latent slice it decodes
  int64_t frame = 0, row = 0, column = 0;  // where the slice starts in the latent
  pir::Shape decoded;                      // its output: [B, 3, 1 + 4 (f - 1), 8 h, 8 w]
};

struct Workload;

// What a frontend implements. Every graph is built for the workload it is
// given (its sizes, guidance, noise experts and depth as the search set
// them). The defaults are an imported program's: no denoising step, no
// training step, no stages, and no deployment rule beyond the defaults.
class WorkloadBuilder {
 public:
  virtual ~WorkloadBuilder() = default;
  // The block units of the full model (Workload::depth_units).
  virtual int64_t DepthUnits() const = 0;
  virtual TokenCounts Tokens(const Workload& workload) const = 0;
  // One forward at the batch it runs with (2 x batch under batch2).
  virtual StatusOr<pir::Graph> Forward(const Workload& workload) const = 0;
  // One denoising step: the forwards the CFG mode runs, the guidance combine
  // and the flow-matching update.
  virtual StatusOr<pir::Graph> Step(const Workload& workload) const;
  virtual StatusOr<pir::Graph> TrainStep(const Workload& workload, const TrainOptions& options) const;
  // Whether the deployed code runs sequence parallelism of degree
  // sp = ulysses x ring here: Ok, or the rule of that code that refuses it.
  // It bounds the expert baseline, not AoiZora's own plans (whose compiled
  // programs split the flattened tokens and pad).
  virtual Status DeployedSequenceSplit(const Workload& workload, int64_t sp) const;
  virtual DeployedDegrees DeployedParallelism() const { return {}; }
  // Whether Forward() builds Workload::pipeline_patches > 1. Default: no.
  virtual bool BuildsPipelinePatches() const { return false; }
  virtual DeployedAttention DeployedAttentionLibrary() const { return {}; }
  // The recipe the model's repository deploys on `chips` chips (TPU or GPU;
  // `per_node` of them on one machine), or why there is none (NotFound: none
  // published; FailedPrecondition: the recipe's own rule refuses this chip
  // count). Default: none published.
  virtual StatusOr<DeployedRecipe> DeployedRecipeOn(const Workload& workload, int64_t chips, int64_t per_node,
                                                    bool tpu) const;
  // The training recipe the model's deployment publishes for a step of
  // `micro_batch` samples on `chips` chips, or why there is none (as
  // DeployedRecipeOn). Default: none published.
  virtual StatusOr<DeployedRecipe> DeployedTrainRecipeOn(const Workload& workload, int64_t chips, int64_t micro_batch,
                                                         bool tpu) const;
  // The stages the pipeline runs besides the DiT, in pipeline order.
  virtual std::vector<StageInfo> Stages(const Workload&) const { return {}; }
  virtual StatusOr<pir::Graph> Stage(const Workload& workload, std::string_view stage) const;
  virtual StatusOr<std::vector<DecoderTileRun>> StageTileRuns(const Workload& workload, std::string_view stage) const;
  virtual StatusOr<pir::Graph> StageTile(const Workload& workload, std::string_view stage,
                                         const pir::Shape& latent) const;
  virtual StatusOr<pir::Graph> StageBlend(const Workload& workload, std::string_view stage) const;
};

struct Workload {
  std::string model;  // the zoo model, or the imported program's file
  int64_t width = 0, height = 0, frames = 0;  // the video; 0 for an imported program
  int64_t steps = 1, batch = 1;
  CfgMode cfg = CfgMode::kNone;
  pir::DType dtype = pir::DType::kBF16;
  // Denoising experts (Wan 2.2 A14B: 2, a high-noise and a low-noise one) of
  // identical structure, exactly one active per step: the first runs steps
  // [0, noise_switch_step), the second the rest. The graphs build one expert
  // (its parameters, one step's FLOPs); the weights of all of them exist, and
  // the planner holds them all or swaps them (search/noise_experts.h).
  int64_t noise_experts = 1;
  int64_t noise_switch_step = 0;  // the zoo sets it (with one expert: steps)
  // Depth: 0 builds every block; k > 0 only the first k block units, a unit
  // being the model's smallest repeating group of blocks (Wan: one block;
  // HunyuanVideo: one dual-stream and two single-stream blocks). The planner
  // prices truncated models and extrapolates linearly in units.
  int64_t depth_units = 0;
  // PipeFusion (search/pipefusion.h): M > 1 asks Forward() for one patch of
  // the latent's token rows cut in M, as a pipeline stage runs it (its K and V
  // span the whole sequence: the other patches' are inputs, the stale K/V of
  // the previous step; the hidden state the blocks leave is the first output).
  // Builders that cannot build patches refuse it (BuildsPipelinePatches).
  int64_t pipeline_patches = 1;
  // An imported program's graph as imported (its own shardings and mesh, for
  // the annotated baseline); null for a zoo model.
  std::shared_ptr<const pir::Graph> program;
  std::shared_ptr<const WorkloadBuilder> builder;

  bool imported() const { return program != nullptr; }
  int64_t forward_batch() const { return cfg == CfgMode::kBatch2 ? 2 * batch : batch; }
  int64_t forwards_per_step() const { return cfg == CfgMode::kTwoPass ? 2 : 1; }

  // The builder's answers for this workload (WorkloadBuilder).
  int64_t DepthUnits() const { return builder->DepthUnits(); }
  TokenCounts Tokens() const { return builder->Tokens(*this); }
  StatusOr<pir::Graph> Forward() const { return builder->Forward(*this); }
  StatusOr<pir::Graph> Step() const { return builder->Step(*this); }
  StatusOr<pir::Graph> TrainStep(const TrainOptions& options) const { return builder->TrainStep(*this, options); }
  Status DeployedSequenceSplit(int64_t sp) const { return builder->DeployedSequenceSplit(*this, sp); }
  DeployedDegrees DeployedParallelism() const { return builder->DeployedParallelism(); }
  bool BuildsPipelinePatches() const { return builder->BuildsPipelinePatches(); }
  DeployedAttention DeployedAttentionLibrary() const { return builder->DeployedAttentionLibrary(); }
  StatusOr<DeployedRecipe> DeployedRecipeOn(int64_t chips, int64_t per_node, bool tpu) const {
    return builder->DeployedRecipeOn(*this, chips, per_node, tpu);
  }
  StatusOr<DeployedRecipe> DeployedTrainRecipeOn(int64_t chips, int64_t micro_batch, bool tpu) const {
    return builder->DeployedTrainRecipeOn(*this, chips, micro_batch, tpu);
  }
  std::vector<StageInfo> Stages() const { return builder->Stages(*this); }
  StatusOr<pir::Graph> Stage(std::string_view stage) const { return builder->Stage(*this, stage); }
  StatusOr<std::vector<DecoderTileRun>> StageTileRuns(std::string_view stage) const {
    return builder->StageTileRuns(*this, stage);
  }
  StatusOr<pir::Graph> StageTile(std::string_view stage, const pir::Shape& latent) const {
    return builder->StageTile(*this, stage, latent);
  }
  StatusOr<pir::Graph> StageBlend(std::string_view stage) const { return builder->StageBlend(*this, stage); }
};

}  // namespace az::workload
