// Internal to the zoo: what one model family provides. zoo.cc owns the
// registry, option validation common to all models, and the denoising-step
// wrapper; a family builds one forward pass.
#pragma once

#include <string>
#include <vector>

#include "frontend/zoo/blocks.h"
#include "frontend/zoo/zoo.h"
#include "frontend/zoo/pir_names.h"
#include "pir/build/graph_builder.h"

namespace az::zoo {

// zoo.cc: aborts unless x is the latent of `config` at some batch B,
// [B, channels, latent frames, latent rows, latent columns] (what BuildForward,
// BuildStep and the training step hand DitFamily::Forward); returns B.
int64_t CheckLatent(const GraphBuilder& b, ValueId x, const ModelConfig& config, int64_t channels);

class DitFamily {
 public:
  virtual ~DitFamily() = default;
  // Model-specific validation (e.g. HunyuanVideo's latent split rule is not
  // checked here: it belongs to sharding). Common checks already passed.
  virtual Status Validate(const ModelConfig& config) const = 0;
  virtual TokenCounts Tokens(const ModelConfig& config) const = 0;
  // Latent channels: of the noise the step updates, and of the DiT output.
  virtual int64_t latent_channels() const = 0;
  // Block units of the full model (zoo.h: ModelConfig::depth_units).
  virtual int64_t depth_units() const = 0;
  // The VAE's spatial stride (zoo.h: ModelConfig::vae_stride).
  virtual int64_t vae_stride() const { return 8; }
  // Latent frames are padded up to a multiple of this (zoo.h: ModelConfig::latent_frames).
  virtual int64_t latent_frame_multiple() const { return 1; }
  // The VAE's temporal rule (zoo.h: VaeTime; default 4n+1 -> n+1) and the
  // DiT's spatial patch (zoo.h: ModelConfig::patch).
  virtual VaeTime vae_time() const { return {}; }
  virtual int64_t patch() const { return 2; }
  // Whether BuildForward builds ModelConfig::pipeline_patches > 1 (one patch
  // with stale K/V inputs, the hidden state as the first output).
  virtual bool builds_pipeline_patches() const { return false; }
  // Denoising experts and the step the second takes over at, for `steps`
  // steps (zoo.h: ModelConfig::experts).
  virtual int64_t experts() const { return 1; }
  virtual int64_t ExpertSwitchStep(int64_t steps) const { return steps; }
  // Whether the model's deployed parallel code (xDiT, or the official
  // repository) runs sequence parallelism of degree sp = ulysses x ring on
  // this configuration, else why not (zoo.h: DeployedSequenceSplit). The
  // default: that code pads the sequence, so every degree runs (Wan).
  virtual Status DeployedSequenceSplit(const ModelConfig&, int64_t) const { return Status::Ok(); }
  // The degrees that code offers besides Ulysses and Ring (zoo.h:
  // DeployedDegrees); default xDiT's: CFG parallelism, no tensor parallelism.
  virtual DeployedDegrees deployed_degrees() const { return {}; }
  // The recipe the model's own repository deploys on `chips` chips (zoo.h:
  // DeployedRecipeOf; recipes.cc cites each). Default: none published.
  virtual StatusOr<DeployedRecipe> Recipe(const ModelConfig& config, const RecipeChips& on) const;
  // The training recipe it publishes for a step of `micro_batch` samples
  // (zoo.h: DeployedTrainRecipeOf). Default: none published.
  virtual StatusOr<DeployedRecipe> TrainRecipe(const ModelConfig& config, const RecipeChips& on,
                                               int64_t micro_batch) const;
  // Declares the conditioning inputs of one pass (`pass` is "cond" or "uncond"):
  // inputs shared by both passes use the same name and come back as the same value.
  // The default declares the family's text_inputs(), in order.
  virtual std::vector<pir::ValueId> DeclareConditioning(pir::GraphBuilder& b, const ModelConfig& config,
                                                        int64_t batch, const std::string& pass) const;
  // One forward. x: latent [batch, C, T, H/8, W/8] (f32, checked against the
  // configuration and latent_channels()); t: timestep [batch] (f32);
  // `conditioning`: what DeclareConditioning declared. Returns the predicted
  // velocity, same shape as x, f32.
  pir::ValueId Forward(pir::GraphBuilder& b, const ModelConfig& config, pir::ValueId x, pir::ValueId t,
                       const std::vector<pir::ValueId>& conditioning) const {
    const int64_t batch = CheckLatent(b, x, config, latent_channels());
    AZ_CHECK_MSG(text_inputs().empty() || conditioning.size() == text_inputs().size(),
                 config.model + ": a forward takes the conditioning its family declares");
    return BuildForward(b, config, batch, x, t, conditioning);
  }

 protected:
  // A prompt's encoding the DiT reads, declared per CFG pass as `name` +
  // PassSuffix: [batch, tokens, dim] in the model dtype.
  struct TextInput {
    const char* name;
    int64_t tokens, dim;
  };
  // The text inputs the default DeclareConditioning declares: none unless
  // the family names them.
  virtual std::vector<TextInput> text_inputs() const { return {}; }
  static pir::ValueId DeclareText(pir::GraphBuilder& b, const ModelConfig& config, int64_t batch,
                                  const std::string& pass, const TextInput& input);

  // Forward's body, on a checked latent of batch `batch`.
  virtual pir::ValueId BuildForward(pir::GraphBuilder& b, const ModelConfig& config, int64_t batch, pir::ValueId x,
                                    pir::ValueId t, const std::vector<pir::ValueId>& conditioning) const = 0;

  // The block units a forward builds: the configuration's, or all of them
  // (depth_units()) when it asks for 0.
  int64_t Depth(const ModelConfig& config) const {
    return config.depth_units > 0 ? config.depth_units : depth_units();
  }
  // One sample's latent in tokens: `patch_t` latent frames by patch() x
  // patch() latent pixels each.
  blocks::PatchGrid LatentPatches(const ModelConfig& config, int64_t patch_t = 1) const {
    return {config.latent_frames() / patch_t, config.latent_height() / patch(), config.latent_width() / patch()};
  }
};

// The suffix of a conditioning input that differs between the CFG passes (a
// prompt's encoding): "" in the conditional pass, ".uncond" in the
// unconditional one (DitFamily::DeclareConditioning).
inline std::string PassSuffix(const std::string& pass) { return pass == "uncond" ? ".uncond" : ""; }

// recipes.cc: the recipes the families' repositories publish (recipes.cc
// cites the files): Wan's generate.py (or, on TPUs, MaxDiffusion's
// `maxdiffusion_config`; null: none), HunyuanVideo's sample_video.py,
// Step-Video's run_parallel.py.
StatusOr<DeployedRecipe> WanRecipe(const ModelConfig& config, int64_t heads, const RecipeChips& on, bool dit_fsdp,
                                   const char* maxdiffusion_config);
// MaxDiffusion's Wan 2.1 training README (recipes.cc), on TPUs.
StatusOr<DeployedRecipe> WanTrainRecipe(const ModelConfig& config, const RecipeChips& on, int64_t micro_batch);
StatusOr<DeployedRecipe> HunyuanVideoRecipe(const ModelConfig& config, int64_t heads, const RecipeChips& on);
StatusOr<DeployedRecipe> StepVideoRecipe(const ModelConfig& config, int64_t heads, const RecipeChips& on);

// zoo.cc: the family that builds `model`, looked up in the registry (the one
// table of models, zoo.cc), and the configuration attributes every zoo graph
// carries (zoo.h). train.cc builds on them. `model` is a registered name
// (ResolveConfig checked it): any other name is a bug, and aborts with the
// list of known models.
const DitFamily& FamilyOf(std::string_view model);
void SetConfigAttrs(pir::Graph& graph, const ModelConfig& config);

// One family object per model, defined in the family's file; the registry
// names them.
const DitFamily& Wan21T2V1_3B();  // wan.cc
const DitFamily& Wan21T2V14B();
const DitFamily& Wan21I2V14B();
const DitFamily& Wan22T2VA14B();
const DitFamily& Wan22I2VA14B();
const DitFamily& Wan22TI2V5B();
const DitFamily& HunyuanVideo13B();  // hunyuan_video.cc
const DitFamily& CogVideoX2B();      // cogvideox.cc
const DitFamily& CogVideoX5B();
const DitFamily& CogVideoX15_5B();
const DitFamily& StepVideoT2V();  // step_video.cc
const DitFamily& LtxVideo2B();    // ltx_video.cc
const DitFamily& LtxVideo13B();
const DitFamily& Mochi1();      // mochi.cc
const DitFamily& OpenSora20();  // open_sora.cc

}  // namespace az::zoo
