// The zoo registry, common validation, and the denoising-step wrapper.
#include "frontend/zoo/zoo.h"

#include "frontend/zoo/family.h"

namespace az::zoo {

namespace {

// The attention libraries the deployed code calls (zoo.h: DeployedAttention).
// Both reference repositories of Wan 2.1 and HunyuanVideo import flash_attn
// (FA2, in their requirements.txt); Wan 2.1's wan/modules/attention.py takes
// FA3 only when its separate Hopper build is installed, which its README does
// not ask for.
constexpr DeployedAttention kFlashAttn2 = {"fa2", "fa2",
                                           "reference code calls flash_attn (FlashAttention 2, requirements.txt)"};
// Wan2.2 README, "Computational Efficiency on Different GPUs", note (2): "The
// distributed testing utilizes the built-in FSDP and Ulysses implementations,
// with FlashAttention3 deployed on Hopper architecture GPUs".
constexpr DeployedAttention kWan22Attention = {
    "fa2", "fa3",
    "Wan2.2 README: \"with FlashAttention3 deployed on Hopper architecture GPUs\"; flash_attn (FA2) elsewhere"};

// One row per model: what `aoizora models` lists, the family object that
// builds it, and the attention library its deployment runs.
struct Registration {
  ModelEntry entry;
  const DitFamily& (*family)();
  DeployedAttention attention;
};

const std::vector<Registration>& Registry() {
  // Defaults from reference/models.md §1.6 and §2.5 (official repositories).
  // Published parameter counts: §1.3 and §2.3.
  static const std::vector<Registration> kRegistry = {
      {{"wan2.1-t2v-1.3b", "Wan 2.1 text-to-video 1.3B (d 1536, 30 blocks, 12 heads)", 832, 480, 81, 50,
        CfgMode::kTwoPass, 1'418'996'800},
       Wan21T2V1_3B, kFlashAttn2},
      {{"wan2.1-t2v-14b", "Wan 2.1 text-to-video 14B (d 5120, 40 blocks, 40 heads)", 1280, 720, 81, 50,
        CfgMode::kTwoPass, 14'288'491'584},
       Wan21T2V14B, kFlashAttn2},
      {{"wan2.1-i2v-14b", "Wan 2.1 image-to-video 14B (T2V-14B + CLIP image branch, 36 input channels)", 1280, 720,
        81, 40, CfgMode::kTwoPass, 16'394'878'784},
       Wan21I2V14B, kFlashAttn2},
      {{"hunyuanvideo-13b", "HunyuanVideo 13B cfg-distilled (20 dual-stream + 40 single-stream blocks, d 3072)",
        1280, 720, 129, 50, CfgMode::kNone, 12'821'012'544},
       HunyuanVideo13B, kFlashAttn2},
      // Wan 2.2 (§3 and the notes under its table; wan.cc derives the counts).
      // A14B: parameters of one of its two experts.
      {{"wan2.2-t2v-a14b", "Wan 2.2 text-to-video A14B (two 14B experts, high-noise then low-noise, one per step)",
        1280, 720, 81, 40, CfgMode::kTwoPass, 14'288'491'584},
       Wan22T2VA14B, kWan22Attention},
      {{"wan2.2-i2v-a14b", "Wan 2.2 image-to-video A14B (two 14B experts, 36 input channels, no CLIP branch)",
        1280, 720, 81, 40, CfgMode::kTwoPass, 14'288'901'184},
       Wan22I2VA14B, kWan22Attention},
      {{"wan2.2-ti2v-5b", "Wan 2.2 text/image-to-video 5B (d 3072, 30 blocks; VAE 4x16x16, 48 channels)", 1280,
        704, 121, 50, CfgMode::kTwoPass, 4'999'787'712},
       Wan22TI2V5B, kWan22Attention},
      // CogVideoX (§3; cogvideox.cc derives the counts from the diffusers
      // configs): diffusers' pipeline runs CFG as one batch-2 forward.
      {{"cogvideox-2b", "CogVideoX 2B (d 1920, 30 blocks, 30 heads; expert adaLN, joint text+video attention)",
        720, 480, 49, 50, CfgMode::kBatch2, 1'693'783'872},
       CogVideoX2B, {}},
      {{"cogvideox-5b", "CogVideoX 5B (d 3072, 42 blocks, 48 heads; 3D RoPE)", 720, 480, 49, 50, CfgMode::kBatch2,
        5'570'283'072},
       CogVideoX5B, {}},
      {{"cogvideox1.5-5b", "CogVideoX1.5 5B (CogVideoX-5B with temporal patch 2; frames 16n+1)", 1360, 768, 81, 50,
        CfgMode::kBatch2, 5'570'676'352},
       CogVideoX15_5B, {}},
      // Step-Video-T2V (§3; step_video.cc derives the count): stepvideo/config.py
      // 992x544, 204 frames, 50 steps, CFG 9.0 as one batch-2 forward.
      {{"step-video-t2v", "Step-Video-T2V 30B (d 6144, 48 blocks, 48 heads; VAE 8x16x16, frames 17n)", 992, 544,
        204, 50, CfgMode::kBatch2, 29'342'478'400},
       StepVideoT2V, {}},
      // LTX-Video (§3; ltx_video.cc derives the counts). 2B: diffusers'
      // LTXPipeline, 704x512, 161 frames, 50 steps, CFG 3.0 as one batch-2
      // forward. 13B: Lightricks' inference.py, 1216x704, 121 frames; the
      // distilled checkpoint's 8 steps without CFG (README).
      {{"ltx-video-2b", "LTX-Video 2B (d 2048, 28 blocks, 32 heads; VAE 8x32x32, 128 channels, patch 1)", 704, 512,
        161, 50, CfgMode::kBatch2, 1'923'385'472},
       LtxVideo2B, {}},
      {{"ltx-video-13b", "LTX-Video 13B (d 4096, 48 blocks, 32 heads of 128; distilled defaults: 8 steps, no CFG)",
        1216, 704, 121, 8, CfgMode::kNone, 13'042'569'344},
       LtxVideo13B, {}},
      // Mochi 1 (§3; mochi.cc derives the count): diffusers' MochiPipeline at
      // genmo's 848x480, 163 frames (6n+1), 64 steps, CFG as one batch-2 forward.
      {{"mochi-1", "Mochi 1 10B (asymmetric: visual d 3072, text 1536, 48 blocks, 24 heads; VAE 6x8x8, 12 channels)",
        848, 480, 163, 64, CfgMode::kBatch2, 10'027'677'744},
       Mochi1, {}},
      // Open-Sora 2.0 (§3; open_sora.cc derives the count): 768px at 16:9,
      // 129 frames, 50 steps. Its sampler runs one batch-3 forward (text and
      // image guidance); the zoo's nearest mode is batch2 (open_sora.cc).
      {{"open-sora-2.0", "Open-Sora 2.0 11B (Flux-style: 19 double + 38 single blocks, d 3072; 2x2 packed latent)",
        1024, 576, 129, 50, CfgMode::kBatch2, 11'891'390'528},
       OpenSora20, {}},
  };
  return kRegistry;
}

const Registration* FindRegistration(std::string_view name) {
  for (const Registration& r : Registry()) {
    if (r.entry.name == name) return &r;
  }
  return nullptr;
}

std::string KnownModels() {
  std::string known;
  for (const Registration& r : Registry()) known += (known.empty() ? "" : ", ") + r.entry.name;
  return known;
}

// The registered model of a resolved configuration.
const Registration& RegistrationOf(std::string_view model) {
  const Registration* found = FindRegistration(model);
  AZ_CHECK_MSG(found != nullptr, "unknown model '" + std::string(model) + "' (known: " + KnownModels() + ")");
  return *found;
}

}  // namespace

const std::vector<ModelEntry>& ListModels() {
  static const std::vector<ModelEntry> kModels = [] {
    std::vector<ModelEntry> models;
    for (const Registration& r : Registry()) models.push_back(r.entry);
    return models;
  }();
  return kModels;
}

StatusOr<const ModelEntry*> FindModel(std::string_view name) {
  for (const ModelEntry& m : ListModels()) {
    if (m.name == name) return &m;
  }
  return NotFound("unknown model '" + std::string(name) + "' (known: " + KnownModels() + ")");
}

const DitFamily& FamilyOf(std::string_view model) { return RegistrationOf(model).family(); }

int64_t CheckLatent(const GraphBuilder& b, ValueId x, const ModelConfig& config, int64_t channels) {
  const pir::Shape& shape = b.type(x).shape;
  AZ_CHECK_MSG(shape.size() == 5 && shape[1] == channels && shape[2] == config.latent_frames() &&
                   shape[3] == config.dit_latent_height() && shape[4] == config.latent_width(),
               "latent " + b.type(x).ToString() + " does not match the configuration");
  return shape[0];
}

ValueId DitFamily::DeclareText(GraphBuilder& b, const ModelConfig& config, int64_t batch, const std::string& pass,
                               const TextInput& input) {
  return b.Input(input.name + PassSuffix(pass), config.dtype, {batch, input.tokens, input.dim});
}

std::vector<ValueId> DitFamily::DeclareConditioning(GraphBuilder& b, const ModelConfig& config, int64_t batch,
                                                    const std::string& pass) const {
  std::vector<ValueId> conditioning;
  for (const TextInput& input : text_inputs()) conditioning.push_back(DeclareText(b, config, batch, pass, input));
  return conditioning;
}

StatusOr<ModelConfig> ResolveConfig(std::string_view model, const ModelOptions& options) {
  AZ_ASSIGN_OR_RETURN(const ModelEntry* entry, FindModel(model));
  ModelConfig c;
  c.model = entry->name;
  c.width = options.width.value_or(entry->default_width);
  c.height = options.height.value_or(entry->default_height);
  c.frames = options.frames.value_or(entry->default_frames);
  c.steps = options.steps.value_or(entry->default_steps);
  c.batch = options.batch;
  c.cfg = options.cfg.value_or(entry->default_cfg);
  c.dtype = options.dtype;
  const DitFamily& family = FamilyOf(c.model);
  c.vae_stride = family.vae_stride();
  c.latent_frame_multiple = family.latent_frame_multiple();
  c.vae_time = family.vae_time();
  c.patch = family.patch();
  // Limits keep every count far inside int64 (a 16K x 16K, 4097-frame video is
  // already 10^10 tokens; nobody serves that).
  constexpr int64_t kMaxSide = 16384, kMaxFrames = 4097, kMaxBatch = 1024, kMaxSteps = 100000;
  if (c.width <= 0 || c.height <= 0 || c.width > kMaxSide || c.height > kMaxSide) {
    return InvalidArgument("width and height must be in 16.." + std::to_string(kMaxSide) + ", got " +
                           std::to_string(c.width) + "x" + std::to_string(c.height));
  }
  if (c.width % 16 != 0 || c.height % 16 != 0) {
    const std::string why = c.vae_stride * c.patch == 16 ? " (VAE stride " + std::to_string(c.vae_stride) +
                                                              " x patch " + std::to_string(c.patch) + ")"
                                                        : "";
    return InvalidArgument("width and height must be multiples of 16" + why + ", got " +
                           std::to_string(c.width) + "x" + std::to_string(c.height));
  }
  // 4n+1 (a causal VAE of temporal stride 4: the first frame alone, then 4 per
  // latent frame) or the family's rule (zoo.h: VaeTime).
  const VaeTime& time = c.vae_time;
  const int64_t first = time.causal_first_frame ? 1 : 0;
  if (c.frames < 1 || c.frames > kMaxFrames || (c.frames - first) % time.frames_per_group != 0) {
    const std::string group = std::to_string(time.frames_per_group);
    const std::string rule =
        time.causal_first_frame
            ? group + "n+1 (VAE temporal stride " + group + ")"
            : group + "n, n >= 1 (the VAE encodes every " + group + " frames into " +
                  std::to_string(time.latents_per_group) + " latent frames)";
    return InvalidArgument("frames must be " + rule + " and at most " + std::to_string(kMaxFrames) + ", got " +
                           std::to_string(c.frames));
  }
  if (c.batch < 1 || c.batch > kMaxBatch) {
    return InvalidArgument("batch must be in 1.." + std::to_string(kMaxBatch) + ", got " + std::to_string(c.batch));
  }
  if (c.steps < 1 || c.steps > kMaxSteps) return InvalidArgument("steps must be in 1.." + std::to_string(kMaxSteps));
  if (c.dtype != DType::kBF16 && c.dtype != DType::kF16 && c.dtype != DType::kF32) {
    return InvalidArgument("dtype must be bf16, f16 or f32, got " + std::string(pir::DTypeName(c.dtype)));
  }
  c.experts = family.experts();
  c.expert_switch_step = family.ExpertSwitchStep(c.steps);
  AZ_RETURN_IF_ERROR(family.Validate(c));
  return c;
}

TokenCounts CountTokens(const ModelConfig& config) {
  return FamilyOf(config.model).Tokens(config);
}

Status DeployedSequenceSplit(const ModelConfig& config, int64_t sp) {
  if (sp <= 1) return Status::Ok();
  return FamilyOf(config.model).DeployedSequenceSplit(config, sp);
}

DeployedDegrees DeployedParallelism(const ModelConfig& config) {
  return FamilyOf(config.model).deployed_degrees();
}

DeployedAttention DeployedAttentionLibrary(const ModelConfig& config) {
  return RegistrationOf(config.model).attention;
}

int64_t DepthUnits(const ModelConfig& config) { return FamilyOf(config.model).depth_units(); }

void SetConfigAttrs(pir::Graph& g, const ModelConfig& c) {
  TokenCounts tokens = CountTokens(c);
  g.attrs().Set("model", c.model);
  g.attrs().Set("width", c.width);
  g.attrs().Set("height", c.height);
  g.attrs().Set("frames", c.frames);
  g.attrs().Set("batch", c.batch);
  g.attrs().Set("cfg", std::string(CfgModeName(c.cfg)));
  g.attrs().Set("steps", c.steps);
  g.attrs().Set("dtype", std::string(pir::DTypeName(c.dtype)));
  g.attrs().Set("video_tokens", tokens.video);
  g.attrs().Set("text_tokens", tokens.text);
  g.attrs().Set("forwards_per_step", c.forwards_per_step());
  if (c.depth_units > 0) g.attrs().Set("depth_units", c.depth_units);
  if (c.experts > 1) {
    g.attrs().Set("experts", c.experts);
    g.attrs().Set("expert_switch_step", c.expert_switch_step);
  }
}

// PipeFusion's patches (ModelConfig::pipeline_patches): a family that builds
// them, at most one patch per token row.
static Status CheckPipelinePatches(const DitFamily& family, const ModelConfig& c) {
  if (c.pipeline_patches == 1) return Status::Ok();
  if (c.pipeline_patches < 1) {
    return InvalidArgument("pipeline patches must be at least 1, got " + std::to_string(c.pipeline_patches));
  }
  if (!family.builds_pipeline_patches()) {
    return InvalidArgument(c.model + " is not built as PipeFusion patches (its blocks have no stale K/V input)");
  }
  const int64_t rows = c.latent_height() / c.patch;
  if (c.pipeline_patches > rows) {
    return InvalidArgument(std::to_string(c.pipeline_patches) + " PipeFusion patches of " + c.model + " at " +
                           std::to_string(c.width) + "x" + std::to_string(c.height) + ": the latent has " +
                           std::to_string(rows) + " token rows, at least one per patch");
  }
  return Status::Ok();
}

static pir::Shape LatentShape(const ModelConfig& c, int64_t batch, int64_t channels) {
  return {batch, channels, c.latent_frames(), c.dit_latent_height(), c.latent_width()};
}

StatusOr<pir::Graph> BuildForward(const ModelConfig& config) {
  const DitFamily& family = FamilyOf(config.model);
  AZ_RETURN_IF_ERROR(family.Validate(config));
  if (config.depth_units < 0 || config.depth_units > family.depth_units()) {
    return InvalidArgument("depth units must be in 0.." + std::to_string(family.depth_units()) + ", got " +
                           std::to_string(config.depth_units));
  }
  AZ_RETURN_IF_ERROR(CheckPipelinePatches(family, config));
  int64_t batch = config.forward_batch();
  GraphBuilder b(config.model + ".forward");
  ValueId x = b.Input("latent", DType::kF32, LatentShape(config, batch, family.latent_channels()));
  ValueId t = b.Input("timestep", DType::kF32, {batch});
  std::vector<ValueId> cond = family.DeclareConditioning(b, config, batch, "cond");
  ValueId v = family.Forward(b, config, x, t, cond);
  b.Output(v);
  pir::Graph g = b.Finish();
  SetConfigAttrs(g, config);
  g.attrs().Set("graph", std::string("forward"));
  if (config.pipeline_patches > 1) {
    // The video tokens the blocks run on (the templates' video attention):
    // the patch's rows of the latent's.
    const int64_t rows = config.latent_height() / config.patch, patch_rows = config.dit_latent_height() / config.patch;
    g.attrs().Set("video_tokens", CountTokens(config).video / rows * patch_rows);
    g.attrs().Set("pipeline_patches", config.pipeline_patches);
  }
  return g;
}

// One denoising step. With guidance g and step size dt (scalar inputs):
//   v   = v_uncond + g * (v_cond - v_uncond)   (two-pass, batch2)
//   x'  = x + dt * v                          (flow matching Euler step)
StatusOr<pir::Graph> BuildStep(const ModelConfig& config) {
  const DitFamily& family = FamilyOf(config.model);
  AZ_RETURN_IF_ERROR(family.Validate(config));
  if (config.pipeline_patches != 1) {
    return InvalidArgument("a denoising step is built on the whole latent; PipeFusion patches are forwards");
  }
  GraphBuilder b(config.model + ".step");
  int64_t channels = family.latent_channels();
  ValueId x = b.Input("latent", DType::kF32, LatentShape(config, config.batch, channels));
  ValueId t = b.Input("timestep", DType::kF32, {config.batch});
  ValueId dt = b.Input("dt", DType::kF32, {});
  ValueId velocity = -1;
  if (config.cfg == CfgMode::kNone) {
    GraphBuilder::Scope scope(b, "dit", /*names_params=*/false);
    velocity = family.Forward(b, config, x, t, family.DeclareConditioning(b, config, config.batch, "cond"));
  } else {
    ValueId guidance = b.Input("guidance_scale", DType::kF32, {});
    ValueId v_cond = -1, v_uncond = -1;
    if (config.cfg == CfgMode::kTwoPass) {
      {
        GraphBuilder::Scope scope(b, "cond", /*names_params=*/false);
        v_cond = family.Forward(b, config, x, t, family.DeclareConditioning(b, config, config.batch, "cond"));
      }
      GraphBuilder::Scope scope(b, "uncond", /*names_params=*/false);
      v_uncond = family.Forward(b, config, x, t, family.DeclareConditioning(b, config, config.batch, "uncond"));
    } else {
      // batch2: one forward on [cond; uncond] along the batch.
      int64_t batch = config.forward_batch();
      ValueId x2 = b.Concat("cfg.latent_x2", {x, x}, 0);
      ValueId t2 = b.Concat("cfg.timestep_x2", {t, t}, 0);
      ValueId v2;
      {
        GraphBuilder::Scope scope(b, "dit", /*names_params=*/false);
        v2 = family.Forward(b, config, x2, t2, family.DeclareConditioning(b, config, batch, "cfg"));
      }
      v_cond = b.SliceAxis("cfg.split_cond", v2, 0, 0, config.batch);
      v_uncond = b.SliceAxis("cfg.split_uncond", v2, 0, config.batch, batch);
    }
    ValueId diff = b.Binary(OpKind::kSub, "cfg.diff", v_cond, v_uncond);
    ValueId scaled = b.Binary(OpKind::kMul, "cfg.scale", diff, guidance);
    velocity = b.Binary(OpKind::kAdd, "cfg.combine", v_uncond, scaled);
  }
  ValueId delta = b.Binary(OpKind::kMul, "scheduler.delta", velocity, dt);
  ValueId next = b.Binary(OpKind::kAdd, "scheduler.update", x, delta);
  b.Output(next);
  pir::Graph g = b.Finish();
  SetConfigAttrs(g, config);
  g.attrs().Set("graph", std::string("step"));
  return g;
}

}  // namespace az::zoo
