// VAE decoders, built as the pipelines run them (stages.h).
//
// Wan 2.1's VAE [Wan2.1: wan/modules/vae.py; _video_vae: dim 96, z_dim 16,
// dim_mult [1, 2, 4, 4], num_res_blocks 2, attn_scales [], temperal_downsample
// [False, True, True], so the decoder upsamples in time at its first two
// stages]. WanVAE runs in f32 (WanVAE(dtype=torch.float)).
//
// WanVAE_.decode: z / (1 / std) + mean, conv2 (1x1x1) on all latent frames,
// then Decoder3d once per latent frame (a chunk), with a feature cache:
//  * every CausalConv3d with a 3-frame kernel sees its input concatenated
//    after the cache (the last <= 2 input frames of that conv in the
//    previous chunk) and zero-padded in front up to 2 extra frames: each
//    conv of a chunk reads (its frames + 2) frames, so the result is the
//    causal convolution of the whole video, one chunk at a time;
//  * Resample 'upsample3d' skips its time conv in the first chunk (the 'Rep'
//    mark), so chunk 0 decodes 1 frame and every later chunk 4: 1 latent
//    frame -> 2 -> 4 frames; a video of 1 + 4 (T - 1) frames.
// The graph is that sequence of chunks sharing one set of weights (chunk
// scopes do not name parameters), then the concatenation along time and the
// clamp to [-1, 1] (WanVAE.decode).
//
// WanVAE_.encode, as the I2V pipelines run it [Wan2.1 wan/image2video.py and
// Wan2.2 wan/image2video.py, the same call]: the conditioning image resized to
// the video's h x w (bicubic, from a size the graph does not know, so left
// out), then F - 1 zero frames, all F frames encoded: Encoder3d once per chunk
// of 1, 4, 4, ... frames with the same causal cache, so a video of 1 + 4 (T - 1)
// frames gives T latent frames. Resample 'downsample3d' caches its first
// chunk's frame instead of running time_conv (stride 2, no padding); a later
// chunk's time_conv reads the cached last frame and its own (4 -> 2, 2 -> 1
// frames). Then conv1 (1x1x1) on all latent frames, mu = its first 16
// channels, normalized (mu - mean) * (1 / std).
#include <map>

#include "frontend/zoo/stage_builders.h"

namespace az::zoo {

namespace {

constexpr int64_t kZDim = 16;
constexpr int64_t kCacheFrames = 2;  // CACHE_T
constexpr double kNormEps = 1e-12;   // F.normalize's eps

// Latent normalization of WanVAE (its `mean` and `std` lists, 16 each).
constexpr int64_t kLatentChannels = kZDim;

// The blocks encoder and decoder share, with one chunk cache per pass.
class WanVae {
 public:
  explicit WanVae(GraphBuilder& b) : b_(b) {}

  ValueId Decode(ValueId z);
  ValueId Encode(ValueId video);

 private:
  // CausalConv3d(cin, cout, kernel (kt, k, k)), padding (kt - 1) / 2 in time
  // (all of it, doubled, in front) and (k - 1) / 2 in space; `cached` takes
  // part in the chunk cache (every 3-frame conv but the shortcut's 1x1x1).
  ValueId CausalConv(const std::string& name, ValueId x, int64_t cout, int64_t kt, int64_t k) {
    GraphBuilder::Scope scope(b_, name);
    const Shape s = b_.type(x).shape;
    ValueId w = b_.Param("weight", DType::kF32, {cout, s[1], kt, k, k});
    ValueId bias = b_.Param("bias", DType::kF32, {cout});
    int64_t front = kt - 1;  // 2 * padding[0]
    ValueId input = x;
    if (kt > 1) {
      const std::string key = b_.QualifiedName("", /*for_param=*/true);
      auto it = cache_.find(key);
      if (it != cache_.end()) {
        input = b_.Concat("cache_cat", {it->second, x}, 2);
        front -= b_.type(it->second).shape[2];
      }
      // The next chunk's cache: the last <= 2 frames of what this one read.
      const int64_t frames = b_.type(input).shape[2];
      const int64_t keep = std::min(frames, kCacheFrames);
      cache_[key] = keep == frames ? input : b_.SliceAxis("cache", input, 2, frames - keep, frames);
    }
    pir::Attributes attrs;
    attrs.Set("stride", std::vector<int64_t>{1, 1, 1});
    const int64_t p = (k - 1) / 2;
    attrs.Set("padding", std::vector<int64_t>{front, 0, p, p, p, p});
    return b_.AddOp1(OpKind::kConv3d, "conv", {input, w, bias}, attrs);
  }
  // nn.Conv2d(cin, cout, k, padding (k - 1) / 2) on every frame; `stride` 2
  // is the downsampler's: ZeroPad2d((0, 1, 0, 1)) and no padding of its own.
  ValueId FrameConv(const std::string& name, ValueId x, int64_t cout, int64_t k, int64_t stride = 1) {
    GraphBuilder::Scope scope(b_, name);
    const Shape s = b_.type(x).shape;
    ValueId w = b_.Param("weight", DType::kF32, {cout, s[1], 1, k, k});
    ValueId bias = b_.Param("bias", DType::kF32, {cout});
    pir::Attributes attrs;
    attrs.Set("stride", std::vector<int64_t>{1, stride, stride});
    const int64_t p = (k - 1) / 2;
    attrs.Set("padding", stride == 1 ? std::vector<int64_t>{0, 0, p, p, p, p} : std::vector<int64_t>{0, 0, 0, 1, 0, 1});
    return b_.AddOp1(OpKind::kConv3d, "conv", {x, w, bias}, attrs);
  }
  // RMS_norm: F.normalize over the channels * sqrt(C) * gamma (no bias).
  ValueId Norm(const std::string& name, ValueId x) {
    GraphBuilder::Scope scope(b_, name);
    pir::Attributes attrs;
    attrs.Set("axis", int64_t{1});
    attrs.Set("eps", kNormEps);
    ValueId gamma = b_.Param("gamma", DType::kF32, {b_.type(x).shape[1]});
    return b_.AddOp1(OpKind::kRmsNorm, "normalize", {x, gamma}, attrs);
  }
  ValueId Residual(const std::string& name, ValueId x, int64_t out) {
    GraphBuilder::Scope scope(b_, name);
    const int64_t in = b_.type(x).shape[1];
    ValueId shortcut = in == out ? x : CausalConv("shortcut", x, out, 1, 1);
    ValueId h = CausalConv("residual.2", b_.Unary(OpKind::kSilu, "residual.1", Norm("residual.0", x)), out, 3, 3);
    h = CausalConv("residual.6", b_.Unary(OpKind::kSilu, "residual.4", Norm("residual.3", h)), out, 3, 3);
    return b_.Binary(OpKind::kAdd, "add", h, shortcut);
  }
  // Single-head self-attention over each frame's h * w positions.
  ValueId Attention(const std::string& name, ValueId x) {
    GraphBuilder::Scope scope(b_, name);
    const Shape s = b_.type(x).shape;  // [B, C, T, H, W]
    const int64_t c = s[1], frames = s[0] * s[2], positions = s[3] * s[4];
    ValueId qkv = FrameConv("to_qkv", Norm("norm", x), 3 * c, 1);
    ValueId rows = b_.Reshape("rows", b_.Transpose("channels_last", qkv, {0, 2, 3, 4, 1}), {frames, positions, 3, c});
    auto part = [&](const char* leaf, int64_t index) { return b_.SliceAxis(leaf, rows, 2, index, index + 1); };
    // Last argument first, as GCC built the nested call (graph_builder.h, Op order).
    ValueId v = part("v", 2);
    ValueId k = part("k", 1);
    ValueId q = part("q", 0);
    ValueId out = b_.Attention("sdpa", q, k, v, "self");
    ValueId back = b_.Transpose("channels_first", b_.Reshape("unrows", out, {s[0], s[2], s[3], s[4], c}), {0, 4, 1, 2, 3});
    return b_.Binary(OpKind::kAdd, "add", FrameConv("proj", back, c, 1), x);
  }
  // Resample 'upsample3d' (time_conv in every chunk after the first) or
  // 'upsample2d': nearest 2x in space, then Conv2d(dim, dim / 2, 3).
  ValueId Upsample(const std::string& name, ValueId x, bool in_time) {
    GraphBuilder::Scope scope(b_, name);
    const int64_t c = b_.type(x).shape[1];
    if (in_time && !first_chunk_) {
      ValueId doubled = CausalConv("time_conv", x, 2 * c, 3, 1);
      const Shape s = b_.type(x).shape;
      // reshape(b, 2, c, t, h, w), stack((x[:, 0], x[:, 1]), 3), reshape(b, c, 2t, h, w).
      ValueId split = b_.Reshape("split", doubled, {s[0], 2, c, s[2], s[3], s[4]});
      ValueId interleaved = b_.Transpose("stack", split, {0, 2, 3, 1, 4, 5});
      x = b_.Reshape("interleave", interleaved, {s[0], c, 2 * s[2], s[3], s[4]});
    }
    pir::Attributes scale;
    scale.Set("scale", std::vector<int64_t>{1, 1, 1, 2, 2});
    ValueId up = b_.AddOp1(OpKind::kUpsample, "resample.0", {x}, scale);
    return FrameConv("resample.1", up, c / 2, 3);
  }
  // Resample 'downsample2d' / 'downsample3d': Conv2d(dim, dim, 3, stride 2)
  // after a zero pad of one row and column after; then, in time, the cached
  // last frame of the previous chunk and this chunk's frames through
  // time_conv (kernel 3, stride 2, unpadded), not in the first chunk.
  ValueId Downsample(const std::string& name, ValueId x, bool in_time) {
    GraphBuilder::Scope scope(b_, name);
    const int64_t c = b_.type(x).shape[1];
    x = FrameConv("resample.1", x, c, 3, /*stride=*/2);
    if (!in_time) return x;
    const std::string key = b_.QualifiedName("time_conv", /*for_param=*/true);
    const int64_t frames = b_.type(x).shape[2];
    ValueId last = b_.SliceAxis("cache", x, 2, frames - 1, frames);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      cache_[key] = last;
      return x;
    }
    ValueId input = b_.Concat("cache_cat", {it->second, x}, 2);
    cache_[key] = last;
    GraphBuilder::Scope conv(b_, "time_conv");
    ValueId w = b_.Param("weight", DType::kF32, {c, c, 3, 1, 1});
    ValueId bias = b_.Param("bias", DType::kF32, {c});
    pir::Attributes attrs;
    attrs.Set("stride", std::vector<int64_t>{2, 1, 1});
    attrs.Set("padding", std::vector<int64_t>{0, 0, 0, 0, 0, 0});
    return b_.AddOp1(OpKind::kConv3d, "conv", {input, w, bias}, attrs);
  }
  ValueId DecoderChunk(ValueId x);
  ValueId EncoderChunk(ValueId x);
  ValueId Middle(ValueId x) {
    const int64_t c = b_.type(x).shape[1];
    x = Residual("middle.0", x, c);
    x = Attention("middle.1", x);
    return Residual("middle.2", x, c);
  }

  GraphBuilder& b_;
  std::map<std::string, ValueId> cache_;  // by conv (parameter path): feat_cache
  bool first_chunk_ = true;
};

// Encoder3d: dims [96, 96, 192, 384, 384]; stage i: 2 residual blocks, then a
// downsample (2d, 3d, 3d) except after the last; middle; head to 2 * z_dim.
ValueId WanVae::EncoderChunk(ValueId x) {
  GraphBuilder::Scope scope(b_, "encoder");
  x = CausalConv("conv1", x, 96, 3, 3);
  const int64_t out_dims[] = {96, 192, 384, 384};
  const bool in_time[] = {false, true, true};
  int module = 0;
  for (int stage = 0; stage < 4; ++stage) {
    for (int r = 0; r < 2; ++r) x = Residual("downsamples." + std::to_string(module++), x, out_dims[stage]);
    if (stage < 3) x = Downsample("downsamples." + std::to_string(module++), x, in_time[stage]);
  }
  x = Middle(x);
  x = b_.Unary(OpKind::kSilu, "head.1", Norm("head.0", x));
  return CausalConv("head.2", x, 2 * kZDim, 3, 3);
}

ValueId WanVae::Encode(ValueId video) {
  // iter_ = 1 + (t - 1) // 4 chunks: frames [0, 1), then [1 + 4 (i - 1), 1 + 4 i).
  const int64_t chunks = 1 + (b_.type(video).shape[2] - 1) / 4;
  std::vector<ValueId> latents;
  for (int64_t i = 0; i < chunks; ++i) {
    GraphBuilder::Scope chunk(b_, "chunk" + std::to_string(i), /*names_params=*/false);
    const int64_t start = i == 0 ? 0 : 1 + 4 * (i - 1), limit = i == 0 ? 1 : 1 + 4 * i;
    latents.push_back(EncoderChunk(b_.SliceAxis("frames", video, 2, start, limit)));
  }
  ValueId out = latents.size() == 1 ? latents[0] : b_.Concat("cat", latents, 2);
  // conv1, then mu = the first z_dim channels, (mu - mean) * (1 / std).
  ValueId mu = b_.SliceAxis("mu", CausalConv("conv1", out, 2 * kZDim, 1, 1), 1, 0, kZDim);
  ValueId mean = b_.Constant("scale.mean", DType::kF32, {1, kLatentChannels, 1, 1, 1});
  ValueId inv_std = b_.Constant("scale.inv_std", DType::kF32, {1, kLatentChannels, 1, 1, 1});
  return b_.Binary(OpKind::kMul, "normalize.mul", b_.Binary(OpKind::kSub, "normalize.sub", mu, mean), inv_std);
}

// Decoder3d: dims [384, 384, 384, 192, 96].
ValueId WanVae::DecoderChunk(ValueId x) {
  GraphBuilder::Scope scope(b_, "decoder");
  x = Middle(CausalConv("conv1", x, 384, 3, 3));
  // Stage i: 3 residual blocks at out_dim, then a resample (none after the last).
  const int64_t out_dims[] = {384, 384, 192, 96};
  const bool in_time[] = {true, true, false};
  int module = 0;
  for (int stage = 0; stage < 4; ++stage) {
    for (int r = 0; r < 3; ++r) x = Residual("upsamples." + std::to_string(module++), x, out_dims[stage]);
    if (stage < 3) x = Upsample("upsamples." + std::to_string(module++), x, in_time[stage]);
  }
  x = b_.Unary(OpKind::kSilu, "head.1", Norm("head.0", x));
  return CausalConv("head.2", x, 3, 3, 3);
}

ValueId WanVae::Decode(ValueId z) {
  const Shape s = b_.type(z).shape;
  // z / scale[1] + scale[0], with scale = [mean, 1 / std].
  ValueId inv_std = b_.Constant("scale.inv_std", DType::kF32, {1, kLatentChannels, 1, 1, 1});
  ValueId mean = b_.Constant("scale.mean", DType::kF32, {1, kLatentChannels, 1, 1, 1});
  ValueId x = b_.Binary(OpKind::kAdd, "unscale.add", b_.Binary(OpKind::kDiv, "unscale.div", z, inv_std), mean);
  x = CausalConv("conv2", x, kZDim, 1, 1);
  std::vector<ValueId> frames;
  for (int64_t i = 0; i < s[2]; ++i) {
    GraphBuilder::Scope chunk(b_, "chunk" + std::to_string(i), /*names_params=*/false);
    frames.push_back(DecoderChunk(b_.SliceAxis("latent", x, 2, i, i + 1)));
    first_chunk_ = false;
  }
  ValueId video = frames.size() == 1 ? frames[0] : b_.Concat("cat", frames, 2);
  // .clamp_(-1, 1)
  ValueId low = b_.Binary(OpKind::kMax, "clamp.min", video, b_.Full("clamp.lo", DType::kF32, {}, -1.0));
  return b_.Binary(OpKind::kMin, "clamp.max", low, b_.Full("clamp.hi", DType::kF32, {}, 1.0));
}

}  // namespace

pir::Graph BuildWanVaeDecoder(int64_t batch, int64_t latent_frames, int64_t latent_height, int64_t latent_width) {
  GraphBuilder b("wan-vae-decoder");
  ValueId z = b.Input("z", DType::kF32, {batch, kZDim, latent_frames, latent_height, latent_width});
  WanVae vae(b);
  b.Output(vae.Decode(z));
  return b.Finish();
}

pir::Graph BuildWanVaeEncoder(int64_t batch, int64_t frames, int64_t height, int64_t width) {
  GraphBuilder b("wan-vae-encoder");
  // The I2V input: the first frame, then F - 1 zero frames.
  ValueId image = b.Input("first_frame", DType::kF32, {batch, 3, 1, height, width});
  ValueId video = image;
  if (frames > 1) {
    video = b.Concat("video", {image, b.Full("zero_frames", DType::kF32, {batch, 3, frames - 1, height, width}, 0.0)}, 2);
  }
  WanVae vae(b);
  b.Output(vae.Encode(video));
  return b.Finish();
}

}  // namespace az::zoo
