// Which stages each pipeline runs (stages.h) and the dispatch to their builders.
#include "frontend/zoo/stages.h"

#include "frontend/zoo/stage_builders.h"

namespace az::zoo {

namespace {

bool IsWan21Vae(const std::string& model) {
  // Wan 2.1 and Wan 2.2 A14B decode with Wan2.1_VAE.pth; TI2V-5B has its own
  // 4x16x16 VAE (not built).
  return model.starts_with("wan2.1-") || model == "wan2.2-t2v-a14b" || model == "wan2.2-i2v-a14b";
}

}  // namespace

std::vector<StageInfo> StagesOf(const ModelConfig& config) {
  const std::string& m = config.model;
  // The negative prompt is encoded too whenever CFG runs.
  const int64_t prompts = config.cfg == CfgMode::kNone ? 1 : 2;
  std::vector<StageInfo> stages;
  if (m.starts_with("wan2.")) {
    stages.push_back({"umt5-xxl", StageKind::kTextEncoder, DType::kBF16, prompts,
                      "umT5-XXL encoder: 512 tokens, 24 layers, d 4096 (wan/modules/t5.py)"});
    if (m == "wan2.1-i2v-14b") {
      stages.push_back({"clip-vit-h-14", StageKind::kImageEncoder, DType::kF16, 1,
                        "CLIP ViT-H/14 on the first frame: 257 tokens, 31 of 32 blocks (wan/modules/clip.py)"});
    }
    // Both I2V pipelines encode the first frame and F - 1 zero frames.
    if (m == "wan2.1-i2v-14b" || m == "wan2.2-i2v-a14b") {
      stages.push_back({"wan-vae-encoder", StageKind::kVaeEncoder, DType::kF32, config.batch,
                        "Wan 2.1 VAE encoder on the first frame + F - 1 zero frames, chunks 1, 4, 4, ... (wan/modules/vae.py)"});
    }
    if (IsWan21Vae(m)) {
      stages.push_back({"wan-vae-decoder", StageKind::kVaeDecoder, DType::kF32, config.batch,
                        "Wan 2.1 VAE decoder, one latent frame per chunk with the causal cache (wan/modules/vae.py)"});
    }
  } else if (m == "hunyuanvideo-13b") {
    stages.push_back({"llava-llama-3-8b", StageKind::kTextEncoder, DType::kF16, prompts,
                      "Llama-3-8B decoder on 351 tokens, states of layer 30 of 32 (hyvideo/text_encoder)"});
    stages.push_back({"clip-l-text", StageKind::kTextEncoder, DType::kF16, prompts,
                      "CLIP-L text tower on 77 tokens, pooled EOS state (hyvideo/text_encoder)"});
    stages.push_back({"hunyuan-vae-decoder", StageKind::kVaeDecoder, DType::kF16, 1,
                      "884-16c causal VAE decoder, tiled 17 latent frames x 32 x 32, blended (hyvideo/vae)"});
  }
  return stages;
}

namespace {

StatusOr<StageInfo> FindStage(const ModelConfig& config, std::string_view stage) {
  std::string names;
  for (const StageInfo& s : StagesOf(config)) {
    if (s.name == stage) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  return InvalidArgument(config.model + " has no stage '" + std::string(stage) + "' (its stages: " +
                         (names.empty() ? std::string("none built") : names) + ")");
}

std::string ShapeText(const pir::Shape& shape) {
  std::string out;
  for (int64_t d : shape) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

// The stages built as tiled decoders (stages.h, DecoderTileRun).
bool IsTiledDecoder(const StageInfo& info) { return info.name == "hunyuan-vae-decoder"; }

Status CheckTiledDecoder(const ModelConfig& config, const StageInfo& info) {
  if (IsTiledDecoder(info)) return Status::Ok();
  return InvalidArgument("stage '" + info.name + "' of " + config.model + " is not a tiled decoder");
}

void SetStageAttrs(const ModelConfig& config, const StageInfo& info, pir::Graph& graph) {
  graph.attrs().Set("model", config.model);
  graph.attrs().Set("stage", info.name);
  graph.attrs().Set("kind", std::string(StageKindName(info.kind)));
  graph.attrs().Set("invocations", info.invocations);
}

}  // namespace

StatusOr<pir::Graph> BuildStage(const ModelConfig& config, std::string_view stage) {
  AZ_ASSIGN_OR_RETURN(const StageInfo found, FindStage(config, stage));
  const StageInfo* info = &found;
  pir::Graph graph;
  const int64_t b = config.batch;
  if (info->name == "umt5-xxl") {
    graph = BuildUmt5XxlEncoder(b);
  } else if (info->name == "clip-vit-h-14") {
    graph = BuildClipVitH14(b);
  } else if (info->name == "llava-llama-3-8b") {
    graph = BuildLlavaLlama3Encoder(b);
  } else if (info->name == "clip-l-text") {
    graph = BuildClipLTextEncoder(b);
  } else if (info->name == "wan-vae-encoder") {
    // WanVAE.encode encodes each video of the batch on its own.
    graph = BuildWanVaeEncoder(1, config.frames, config.height, config.width);
    graph.attrs().Set("frames", config.frames);
    graph.attrs().Set("height", config.height);
    graph.attrs().Set("width", config.width);
  } else if (info->name == "hunyuan-vae-decoder") {
    // vae.decode takes the whole batch (use_slicing is off).
    graph = BuildHunyuanVaeDecoder(b, config.latent_frames(), config.latent_height(), config.latent_width());
    const pir::Shape& video = graph.type(graph.outputs()[0]).shape;
    graph.attrs().Set("frames", video[2]);
    graph.attrs().Set("height", video[3]);
    graph.attrs().Set("width", video[4]);
  } else {
    // WanVAE.decode decodes each video of the batch on its own.
    graph = BuildWanVaeDecoder(1, config.latent_frames(), config.latent_height(), config.latent_width());
    graph.attrs().Set("frames", int64_t{1 + 4 * (config.latent_frames() - 1)});
    graph.attrs().Set("height", config.latent_height() * 8);
    graph.attrs().Set("width", config.latent_width() * 8);
  }
  SetStageAttrs(config, *info, graph);
  return graph;
}

StatusOr<std::vector<DecoderTileRun>> StageTileRuns(const ModelConfig& config, std::string_view stage) {
  AZ_ASSIGN_OR_RETURN(const StageInfo info, FindStage(config, stage));
  std::vector<DecoderTileRun> runs;
  if (!IsTiledDecoder(info)) return runs;
  BuildHunyuanVaeBlend(config.batch, config.latent_frames(), config.latent_height(), config.latent_width(), &runs);
  return runs;
}

StatusOr<pir::Graph> BuildStageTile(const ModelConfig& config, std::string_view stage, const pir::Shape& latent) {
  AZ_ASSIGN_OR_RETURN(const StageInfo info, FindStage(config, stage));
  AZ_RETURN_IF_ERROR(CheckTiledDecoder(config, info));
  const int64_t channels = kHunyuanLatentChannels;
  if (latent.size() != 5 || latent[0] != config.batch || latent[1] != channels || latent[2] < 1 || latent[3] < 1 ||
      latent[4] < 1) {
    return InvalidArgument("a tile of '" + info.name + "' is a latent [" + std::to_string(config.batch) + ", " +
                           std::to_string(channels) + ", f, h, w] with f, h, w >= 1, not [" + ShapeText(latent) + "]");
  }
  pir::Graph graph = BuildHunyuanVaeTile(latent);
  SetStageAttrs(config, info, graph);
  return graph;
}

StatusOr<pir::Graph> BuildStageBlend(const ModelConfig& config, std::string_view stage) {
  AZ_ASSIGN_OR_RETURN(const StageInfo info, FindStage(config, stage));
  AZ_RETURN_IF_ERROR(CheckTiledDecoder(config, info));
  std::vector<DecoderTileRun> runs;
  pir::Graph graph =
      BuildHunyuanVaeBlend(config.batch, config.latent_frames(), config.latent_height(), config.latent_width(), &runs);
  SetStageAttrs(config, info, graph);
  return graph;
}

}  // namespace az::zoo
