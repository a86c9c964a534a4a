// The model zoo: exact, parameterized PIR graphs of real video DiTs.
//
// Each model is built op by op as its reference implementation runs it
// (reference/models.md cites the files): every projection, norm, modulation,
// RoPE, attention, FFN, embedding and head. Sizes are validated here and
// reported as user errors; a builder bug aborts.
//
// Two graphs per configuration:
//   BuildForward  one DiT forward at the batch it runs with (2*batch for CFG
//                 mode batch2, else batch);
//   BuildStep     one denoising step: the forward(s) the CFG mode needs, the
//                 guidance combine and the flow-matching update
//                 x' = x + dt * v. `two-pass` runs the conditional and the
//                 unconditional forward one after the other on the same
//                 weights (the official Wan code); `batch2` runs one forward
//                 on the concatenated batch (MaxDiffusion); `none` runs one.
//
// Graph attributes record the configuration: model, width, height, frames,
// batch, cfg, steps, video_tokens, text_tokens, forwards_per_step.
#pragma once

#include <string>
#include <vector>

#include "workload/workload.h"
#include "pir/ir/graph.h"
#include "support/status.h"

namespace az::zoo {

// The types the zoo shares with every frontend (workload/workload.h).
using workload::CfgMode;
using workload::CfgModeName;
using workload::DeployedAttention;
using workload::DeployedDegrees;
using workload::DeployedRecipe;
using workload::ModelOptions;
using workload::ParseCfgMode;
using workload::TokenCounts;
using workload::TrainOptions;

// The VAE's temporal compression. A causal VAE encodes the first frame alone
// and every `frames_per_group` frames after it into `latents_per_group` latent
// frames: frames = 4n+1 -> n+1 (Wan, HunyuanVideo, CogVideoX), 8n+1 -> n+1
// (LTX-Video). Step-Video's VAE encodes whole groups of 17 frames into 3
// latent frames: frames = 17n -> 3n (stepvideo/diffusion/video_pipeline.py).
struct VaeTime {
  int64_t frames_per_group = 4;
  int64_t latents_per_group = 1;
  bool causal_first_frame = true;
};

// A validated configuration: every field set.
struct ModelConfig {
  std::string model;
  int64_t width = 0, height = 0, frames = 0, steps = 0, batch = 1;
  CfgMode cfg = CfgMode::kNone;
  pir::DType dtype = pir::DType::kBF16;

  // Latent frames: the VAE's temporal rule (VaeTime), padded up to a multiple
  // of latent_frame_multiple (CogVideoX1.5 patches 2 latent frames at once; its
  // pipeline pads 81 frames' 21 latent frames to 22).
  VaeTime vae_time;
  int64_t latent_frame_multiple = 1;
  int64_t latent_frames() const {
    const int64_t first = vae_time.causal_first_frame ? 1 : 0;
    const int64_t latent = (frames - first) / vae_time.frames_per_group * vae_time.latents_per_group + first;
    return (latent + latent_frame_multiple - 1) / latent_frame_multiple * latent_frame_multiple;
  }
  // The VAE's spatial stride (8; Wan 2.2 TI2V-5B's VAE: 16): latent rows and columns.
  int64_t vae_stride = 8;
  int64_t latent_height() const { return height / vae_stride; }
  int64_t latent_width() const { return width / vae_stride; }
  // The DiT's spatial patch: latent rows (columns) per token row (column); 2,
  // LTX-Video and Step-Video 1.
  int64_t patch = 2;
  // Denoising experts (Wan 2.2 A14B: 2, a high-noise and a low-noise one) of
  // identical structure, exactly one active per step: the first runs steps
  // [0, expert_switch_step), the second the rest. BuildForward and BuildStep
  // build one expert (its parameters, one step's FLOPs); the weights of all
  // `experts` exist, and the planner holds them all or swaps them (search/noise_experts.h).
  int64_t experts = 1;
  int64_t expert_switch_step = 0;  // with one expert: steps
  // Batch of one forward pass (batch2 doubles it).
  int64_t forward_batch() const { return cfg == CfgMode::kBatch2 ? 2 * batch : batch; }
  int64_t forwards_per_step() const { return cfg == CfgMode::kTwoPass ? 2 : 1; }
  // Depth: 0 builds every block. k > 0 builds only the first k *block units*,
  // a unit being the model's smallest repeating group of blocks (Wan: one
  // block; HunyuanVideo: one dual-stream and two single-stream blocks, since
  // 20:40). The planner prices truncated models and extrapolates linearly in
  // units (DepthUnits gives the full count); parameter counts and FLOPs of a
  // truncated model are not the model's.
  int64_t depth_units = 0;
  // PipeFusion's patch (search/pipefusion.h): 1 builds the whole latent; M > 1
  // builds one patch of it through the blocks, as a pipeline stage runs it:
  // the latent's token rows cut in M (the first ceil(rows / M) rows, the
  // largest patch), every self-attention's K and V the patch's own
  // concatenated with the other patches' from the previous step (an input per
  // attention, "blocks.<i>.self_attn.stale_k" / "stale_v": xDiT's stale K/V
  // buffer), and the hidden state the last block leaves as the forward's first
  // output (what a stage sends to the next; the velocity is the second). Only
  // families that build patches accept it (DitFamily::builds_pipeline_patches).
  int64_t pipeline_patches = 1;
  // The latent rows the DiT sees: all of them, or one patch's.
  int64_t dit_latent_height() const {
    if (pipeline_patches <= 1) return latent_height();
    const int64_t token_rows = latent_height() / patch;
    return (token_rows + pipeline_patches - 1) / pipeline_patches * patch;
  }
};

// The number of block units of the full model (see ModelConfig::depth_units).
int64_t DepthUnits(const ModelConfig& config);

struct ModelEntry {
  std::string name;         // "wan2.1-t2v-14b"
  std::string description;  // one line
  int64_t default_width, default_height, default_frames, default_steps;
  CfgMode default_cfg;
  int64_t published_params;  // the exact count derived in reference/models.md (of one expert)
};

// The zoo, in a fixed order.
const std::vector<ModelEntry>& ListModels();
StatusOr<const ModelEntry*> FindModel(std::string_view name);

// Validates options against the model (frames 4n+1 or the VAE's rule, sizes multiples of 16, ...).
StatusOr<ModelConfig> ResolveConfig(std::string_view model, const ModelOptions& options);

// Tokens of one sample: video (patch grid) and text (what the DiT attends to).
TokenCounts CountTokens(const ModelConfig& config);

StatusOr<pir::Graph> BuildForward(const ModelConfig& config);
StatusOr<pir::Graph> BuildStep(const ModelConfig& config);

// A training step (train.cc documents the graph; workload.h: TrainOptions).
StatusOr<pir::Graph> BuildTrainStep(const ModelConfig& config, const TrainOptions& options);

// The rules of the code people deploy the model with (workload.h:
// WorkloadBuilder). DeployedSequenceSplit: whether it runs sequence
// parallelism of degree sp = ulysses x ring at this configuration. Wan's code
// pads the sequence (any sp); HunyuanVideo's splits the latent along patch
// rows or columns (models.md §4.2); xDiT's CogVideoX runner splits every
// frame's latent rows (xfuser/core/distributed/runtime_state.py).
Status DeployedSequenceSplit(const ModelConfig& config, int64_t sp);
DeployedDegrees DeployedParallelism(const ModelConfig& config);
DeployedAttention DeployedAttentionLibrary(const ModelConfig& config);
// The configuration the model's own repository deploys on `chips` chips
// (workload.h: DeployedRecipe; the `deployed` baseline), or why there is
// none. recipes.cc cites every recipe (file and commit):
//   Wan 2.1 / 2.2 (GPUs)  generate.py --ulysses_size U --ring_size R
//                         --dit_fsdp: Ulysses over the chips when the heads
//                         divide by their count, else Ulysses over each
//                         machine's GPUs and Ring over the machines when the
//                         heads divide by those, else Ring over the chips
//                         (TI2V-5B without --dit_fsdp);
//   Wan T2V (TPUs)        MaxDiffusion's base_wan_*.yml defaults: sequence
//                         and weights over every chip, flash attention
//                         (context=N,fsdp=N);
//   HunyuanVideo (GPUs)   --ulysses-degree U --ring-degree R, the same rule;
//   Step-Video (GPUs)     --tensor_parallel_degree 2 --ulysses_degree N/2;
//   the others            none published.
struct RecipeChips {
  int64_t chips = 1;
  int64_t per_node = 1;  // of them in one machine (a TPU slice, a GPU node)
  bool tpu = false;
};
StatusOr<DeployedRecipe> DeployedRecipeOf(const ModelConfig& config, const RecipeChips& on);
// The training recipe the model's deployment publishes for a step of
// `micro_batch` samples (recipes.cc cites it): Wan 2.1 T2V-14B on TPUs,
// MaxDiffusion's training README. Every other model and GPUs: none published.
StatusOr<DeployedRecipe> DeployedTrainRecipeOf(const ModelConfig& config, const RecipeChips& on, int64_t micro_batch);

// The workload of a configuration: what the planner sees of it
// (workload/workload.h); its graphs are this file's builders.
workload::Workload WorkloadOf(const ModelConfig& config);

}  // namespace az::zoo
