// Image encoders, built as the pipelines run them (stages.h):
//   CLIP ViT-H/14 [Wan2.1: wan/modules/clip.py, clip_xlm_roberta_vit_h_14():
//                 VisionTransformer(image_size 224, patch 14, dim 1280, mlp
//                 ratio 4, 16 heads, 32 layers, pool 'token', pre_norm,
//                 activation 'gelu'); CLIPModel.visual runs it in fp16 with
//                 use_31_block=True: transformer[:-1], no post_norm, no head]
#include "frontend/zoo/stage_builders.h"

namespace az::zoo {

namespace {
constexpr int64_t kImageSize = 224, kPatch = 14, kVisionDim = 1280, kVisionHeads = 16, kVisionLayers = 32;
constexpr int64_t kVisionMlp = 4 * kVisionDim;
constexpr int64_t kGrid = kImageSize / kPatch;        // 16
constexpr int64_t kTokens = kGrid * kGrid + 1;         // 257: the patches and the class token
constexpr int64_t kLayersRun = kVisionLayers - 1;      // use_31_block
}  // namespace

pir::Graph BuildClipVitH14(int64_t batch) {
  GraphBuilder b("clip-vit-h-14");
  const DType dt = DType::kF16;  // CLIPModel(dtype=torch.float16) in image2video.py
  b.set_param_dtype(dt);
  const int64_t head_dim = kVisionDim / kVisionHeads;
  // The first frame, resized (bicubic) to 224 x 224 and normalized.
  ValueId image = b.Input("image", dt, {batch, 3, 1, kImageSize, kImageSize});
  ValueId x;
  {
    // Conv2d(3, 1280, 14, stride 14, bias=False since pre_norm) as a one-frame conv3d.
    GraphBuilder::Scope scope(b, "patch_embedding");
    ValueId w = b.Param("weight", dt, {kVisionDim, 3, 1, kPatch, kPatch});
    pir::Attributes attrs;
    attrs.Set("stride", std::vector<int64_t>{1, kPatch, kPatch});
    ValueId conv = b.AddOp1(OpKind::kConv3d, "conv", {image, w}, attrs);
    ValueId flat = b.Reshape("flatten", conv, {batch, kVisionDim, kGrid * kGrid});
    x = b.Transpose("permute", flat, {0, 2, 1});
  }
  ValueId cls = b.Param("cls_embedding", dt, {1, 1, kVisionDim});
  ValueId cls_rows = b.Broadcast("cls_embedding.expand", cls, {batch, 1, kVisionDim}, {0, 1, 2});
  x = b.Concat("cat_cls", {cls_rows, x}, 1);
  x = b.Binary(OpKind::kAdd, "pos_embedding.add", x, b.Param("pos_embedding", dt, {1, kTokens, kVisionDim}));
  x = b.LayerNorm("pre_norm", x, /*affine=*/true, 1e-5);
  for (int64_t layer = 0; layer < kLayersRun; ++layer) {
    GraphBuilder::Scope scope_layer(b, "transformer." + std::to_string(layer));
    ValueId h = b.LayerNorm("norm1", x, /*affine=*/true, 1e-5);
    {
      GraphBuilder::Scope scope(b, "attn");
      // to_qkv(x).view(b, s, 3, n, d).unbind(2)
      ValueId qkv = b.Reshape("view", b.Linear("to_qkv", h, 3 * kVisionDim), {batch, kTokens, 3, kVisionHeads, head_dim});
      auto part = [&](const char* name, int64_t index) {
        ValueId slice = b.SliceAxis(name, qkv, 2, index, index + 1);
        return b.Reshape(std::string(name) + ".squeeze", slice, {batch, kTokens, kVisionHeads, head_dim});
      };
      // Last argument first, as GCC built the nested call (graph_builder.h, Op order).
      ValueId v = part("v", 2);
      ValueId k = part("k", 1);
      ValueId q = part("q", 0);
      ValueId out = b.Attention("flash_attention", q, k, v, "self");
      h = b.Linear("proj", b.Reshape("merge", out, {batch, kTokens, kVisionDim}), kVisionDim);
    }
    x = b.Binary(OpKind::kAdd, "residual1", x, h);
    h = b.LayerNorm("norm2", x, /*affine=*/true, 1e-5);
    {
      GraphBuilder::Scope scope(b, "mlp");
      ValueId up = b.Unary(OpKind::kGelu, "1", b.Linear("0", h, kVisionMlp));
      h = b.Linear("2", up, kVisionDim);
    }
    x = b.Binary(OpKind::kAdd, "residual2", x, h);
  }
  b.Output(x);
  return b.Finish();
}

}  // namespace az::zoo
