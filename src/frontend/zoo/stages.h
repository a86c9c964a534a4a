// The non-DiT stages of a video pipeline: text encoders, image encoders, VAE
// encoders and VAE decoders, built as the models' reference code runs them.
//
// A user waits for prompt encoding, the denoising steps and VAE decoding; the
// DiT graphs (zoo.h) cover only the steps. Each stage here is one exact PIR
// graph of one invocation at the configuration's resolution and frames:
//   umt5-xxl        Wan's umT5-XXL encoder (wan/modules/t5.py): 512 tokens,
//                   24 blocks with their own relative-position buckets,
//                   unscaled attention with an explicit bias, gated GELU FFN.
//   clip-vit-h-14   Wan I2V's image encoder (wan/modules/clip.py): ViT-H/14
//                   at 224 px, 257 tokens, run through block 31 of 32.
//   llava-llama-3-8b  HunyuanVideo's text encoder 1 (hyvideo/text_encoder):
//                   Llama-3-8B's decoder (no LM head) on 256 + 95 template
//                   tokens; the states two layers before the last are used,
//                   but the model runs every layer (output_hidden_states).
//   clip-l-text     HunyuanVideo's text encoder 2: CLIP ViT-L/14's text
//                   tower on 77 tokens, its pooled (EOS) state.
//   wan-vae-encoder Wan 2.1's VAE encoder as both I2V pipelines run it
//                   (wan/image2video.py): the first frame and F - 1 zero
//                   frames, chunks of 1, 4, 4, ... frames with the causal
//                   cache (WanVAE_.encode); Wan 2.1 I2V-14B, Wan 2.2 I2V-A14B.
//   wan-vae-decoder Wan 2.1's VAE decoder (wan/modules/vae.py): one latent
//                   frame per chunk with the causal feature cache, as
//                   WanVAE_.decode runs it.
//   hunyuan-vae-decoder  HunyuanVideo's 884-16c VAE decoder (hyvideo/vae)
//                   with the pipeline's default tiling: temporal tiles of 17
//                   latent frames every 12, spatial tiles of 32 x 32 latents
//                   every 24, every tile a whole decoder run, blended; the
//                   replicate-padded causal convs (pad op) and the mid-block
//                   attention over the tile's frames (its frame-causal mask
//                   is not represented: SDPA with a dense mask computes the
//                   full square, which is what the FLOPs count).
// Left out (not built exactly here yet): the I2V first frame's bicubic resize
// (its source size is unknown), Wan 2.2 TI2V-5B's VAE (z 48, 4x16x16), and the
// T5-XXL / VAEs of CogVideoX, Mochi, LTX-Video, Step-Video and Open-Sora.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/zoo/zoo.h"

namespace az::zoo {

using workload::StageInfo;
using workload::StageKind;
using workload::StageKindName;

// The stages a model's pipeline runs besides the DiT, in pipeline order;
// empty for models whose stages are not built (stages.h's header lists them).
std::vector<StageInfo> StagesOf(const ModelConfig& config);

// One invocation of `stage` at the configuration (its batch; the VAE at its
// frames and resolution). Graph attributes: model, stage, kind, and per kind
// tokens (text and image encoders) or frames / height / width (the video a
// VAE decoder outputs or a VAE encoder reads).
// An unknown stage is a user error that lists the model's stages.
StatusOr<pir::Graph> BuildStage(const ModelConfig& config, std::string_view stage);

// ------------------------------------------------------------ tiled decoders
// A decoder the pipeline runs in tiles (hunyuan-vae-decoder): independent
// decoder runs on slices of the latent, weights shared, then the blends of
// neighbouring tiles and the assembly of the video. BuildStage's graph is the
// whole of it; the same work in parts, so that each run can be compiled and
// placed on its own (search/stages.h, tiles=G):
//   runs   StageTileRuns, in the pipeline's order; run k's graph is
//          BuildStageTile(run.latent): post_quant_conv + the whole decoder on
//          an (unscaled) latent tile, its decoded tile the output;
//   blend  BuildStageBlend: everything else of BuildStage's graph, the same
//          ops in the same order: the unscale of the whole latent (its second
//          output: what the runs slice), and the blends, cuts and
//          concatenations of the decoded tiles (its inputs after the latent,
//          one per run in run order, named "<run>.decoded") into the video,
//          scaled to [0, 1] (its first output).
// So BuildStage's cost is the blend graph's plus every run's, exactly (the
// latent's slices are layout ops: no FLOPs). A run whose decoded tile the
// tiler drops (a one-frame temporal tile after the first) still runs: its
// input is left unread.
using workload::DecoderTileRun;

// The runs of `stage`; empty for a stage that is not a tiled decoder. An
// untiled decode (a latent within one tile) is one run. Error: an unknown
// stage (as BuildStage).
StatusOr<std::vector<DecoderTileRun>> StageTileRuns(const ModelConfig& config, std::string_view stage);
// One run of `stage` on a latent tile of that shape. Errors: a stage that is
// not a tiled decoder; a shape that is not [batch, latent channels, f, h, w]
// with f, h, w >= 1.
StatusOr<pir::Graph> BuildStageTile(const ModelConfig& config, std::string_view stage, const pir::Shape& latent);
// The blend graph of `stage` (above). Error: a stage that is not a tiled decoder.
StatusOr<pir::Graph> BuildStageBlend(const ModelConfig& config, std::string_view stage);

}  // namespace az::zoo
