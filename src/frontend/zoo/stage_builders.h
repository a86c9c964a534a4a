// Internal to the zoo: the stage builders behind stages.h, one file per stage
// family. Each builds one invocation at `batch`; sizes are the models' own
// and were validated with the configuration.
#pragma once

#include "frontend/zoo/stages.h"
#include "frontend/zoo/pir_names.h"
#include "pir/build/graph_builder.h"

namespace az::zoo {

// text_encoders.cc
pir::Graph BuildUmt5XxlEncoder(int64_t batch);
pir::Graph BuildLlavaLlama3Encoder(int64_t batch);
pir::Graph BuildClipLTextEncoder(int64_t batch);

// image_encoders.cc
pir::Graph BuildClipVitH14(int64_t batch);

// vae.cc: the decoder of latents [batch, 16, latent_frames, height / 8, width / 8].
pir::Graph BuildWanVaeDecoder(int64_t batch, int64_t latent_frames, int64_t latent_height, int64_t latent_width);
// vae.cc: the I2V encoder of the first frame [batch, 3, 1, height, width] and
// frames - 1 zero frames.
pir::Graph BuildWanVaeEncoder(int64_t batch, int64_t frames, int64_t height, int64_t width);

// hunyuan_vae.cc: the tiled decoder of latents [batch, 16, latent_frames, height / 8, width / 8].
pir::Graph BuildHunyuanVaeDecoder(int64_t batch, int64_t latent_frames, int64_t latent_height, int64_t latent_width);
// hunyuan_vae.cc, the same decode in parts (stages.h, DecoderTileRun): one
// tile run on an unscaled latent tile [B, 16, f, h, w]; the blend graph of
// the whole latent, filling `runs` in the pipeline's order; the shape a run
// decodes to.
constexpr int64_t kHunyuanLatentChannels = 16;
pir::Graph BuildHunyuanVaeTile(const pir::Shape& latent);
pir::Graph BuildHunyuanVaeBlend(int64_t batch, int64_t latent_frames, int64_t latent_height, int64_t latent_width,
                                std::vector<DecoderTileRun>* runs);
pir::Shape HunyuanDecodedShape(const pir::Shape& latent);

}  // namespace az::zoo
