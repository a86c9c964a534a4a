// Text encoders, built as the pipelines run them (stages.h):
//   umT5-XXL encoder  [Wan2.1: wan/modules/t5.py, umt5_xxl() and T5Encoder]
//   Llama-3-8B        [HunyuanVideo: hyvideo/text_encoder/__init__.py loads
//                     AutoModel (LlamaModel, no LM head) of
//                     llava-llama-3-8b-text-encoder-tokenizer; Llama-3-8B's
//                     config.json: 32 layers, d 4096, 32 heads, 8 KV heads,
//                     FFN 14336, vocab 128256, RMS eps 1e-5, RoPE]
//   CLIP-L text       [HunyuanVideo text_encoder_2 = clipL: CLIPTextModel of
//                     openai/clip-vit-large-patch14: 12 layers, d 768, 12 heads,
//                     FFN 3072 quick-GELU, vocab 49408, 77 positions; pooler_output]
// Every matmul and attention is what the code runs at full length: the padded
// prompt (the masks zero padded keys but the kernels still compute them).
#include <cmath>

#include "frontend/zoo/stage_builders.h"

namespace az::zoo {

namespace {

// [B, L, H * D] -> [B, L, H, D].
ValueId SplitHeads(GraphBuilder& b, const std::string& name, ValueId x, int64_t heads) {
  const Shape& s = b.type(x).shape;
  return b.Reshape(name, x, {s[0], s[1], heads, s[2] / heads});
}
ValueId MergeHeads(GraphBuilder& b, const std::string& name, ValueId x) {
  const Shape& s = b.type(x).shape;
  return b.Reshape(name, x, {s[0], s[1], s[2] * s[3]});
}

// ---------------------------------------------------------------- umT5-XXL

constexpr int64_t kT5Tokens = 512;  // T5EncoderModel(text_len=512): padded to max_length
constexpr int64_t kT5Dim = 4096, kT5Ffn = 10240, kT5Heads = 64, kT5Layers = 24, kT5Vocab = 256384;
constexpr int64_t kT5Buckets = 32;  // num_buckets; shared_pos=False: one table per block

}  // namespace

pir::Graph BuildUmt5XxlEncoder(int64_t batch) {
  GraphBuilder b("umt5-xxl");
  const DType dt = DType::kBF16;  // t5_dtype (shared_config.py)
  b.set_param_dtype(dt);
  const int64_t L = kT5Tokens;
  ValueId ids = b.Input("ids", DType::kI64, {batch, L});
  // masked_fill(mask == 0, finfo.min), as an additive [B, 1, 1, L] row.
  ValueId mask_bias = b.Input("mask_bias", dt, {batch, 1, 1, L});
  // _relative_position_bucket(arange(Lk) - arange(Lq)): a constant [L, L] index table.
  ValueId buckets = b.Constant("relative_buckets", DType::kI64, {L, L});
  ValueId table = b.Param("token_embedding.weight", dt, {kT5Vocab, kT5Dim});
  ValueId x = b.AddOp1(OpKind::kGather, "token_embedding", {table, ids});
  for (int64_t layer = 0; layer < kT5Layers; ++layer) {
    GraphBuilder::Scope block(b, "blocks." + std::to_string(layer));
    // Position bias: embedding [32, 64] gathered to [L, L, 64] -> [1, 64, L, L],
    // plus the mask: attn_bias [B, 64, L, L].
    ValueId bias;
    {
      GraphBuilder::Scope scope(b, "pos_embedding");
      ValueId rel = b.Param("embedding.weight", dt, {kT5Buckets, kT5Heads});
      ValueId gathered = b.AddOp1(OpKind::kGather, "embedding", {rel, buckets});
      ValueId heads_first = b.Transpose("permute", gathered, {2, 0, 1});
      ValueId pos = b.Reshape("unsqueeze", heads_first, {1, kT5Heads, L, L});
      bias = b.Binary(OpKind::kAdd, "mask", pos, mask_bias);
    }
    ValueId h = b.RmsNorm("norm1", x, /*affine=*/true, 1e-6);  // T5LayerNorm
    {
      GraphBuilder::Scope scope(b, "attn");
      ValueId q = SplitHeads(b, "q.heads", b.Linear("q", h, kT5Dim, false), kT5Heads);
      ValueId k = SplitHeads(b, "k.heads", b.Linear("k", h, kT5Dim, false), kT5Heads);
      ValueId v = SplitHeads(b, "v.heads", b.Linear("v", h, kT5Dim, false), kT5Heads);
      // T5 does not scale the scores; the explicit einsum / softmax / einsum
      // is what T5Attention runs (no fused kernel), softmax in f32.
      ValueId scores = b.Einsum("scores", "binc,bjnc->bnij", q, k);
      ValueId biased = b.Binary(OpKind::kAdd, "bias", scores, bias);
      pir::Attributes axis;
      axis.Set("axis", int64_t{-1});
      ValueId probs = b.AddOp1(OpKind::kSoftmax, "softmax", {b.Convert("float", biased, DType::kF32)}, axis);
      ValueId out = b.Einsum("values", "bnij,bjnc->binc", b.Convert("type_as", probs, dt), v);
      h = b.Linear("o", MergeHeads(b, "merge", out), kT5Dim, false);
    }
    x = b.Binary(OpKind::kAdd, "residual1", x, h);
    h = b.RmsNorm("norm2", x, /*affine=*/true, 1e-6);
    {
      GraphBuilder::Scope scope(b, "ffn");
      // x = fc1(x) * GELU_tanh(gate(x)); fc2.
      ValueId gate = b.Unary(OpKind::kGeluTanh, "gate.1", b.Linear("gate.0", h, kT5Ffn, false));
      ValueId up = b.Linear("fc1", h, kT5Ffn, false);
      h = b.Linear("fc2", b.Binary(OpKind::kMul, "gated", up, gate), kT5Dim, false);
    }
    x = b.Binary(OpKind::kAdd, "residual2", x, h);
  }
  b.Output(b.RmsNorm("norm", x, /*affine=*/true, 1e-6));
  return b.Finish();
}

// ---------------------------------------------------------------- Llama-3-8B

namespace {
constexpr int64_t kLlamaTokens = 256 + 95;  // text_len + the video template's crop_start
constexpr int64_t kLlamaDim = 4096, kLlamaFfn = 14336, kLlamaHeads = 32, kLlamaKvHeads = 8, kLlamaLayers = 32;
constexpr int64_t kLlamaVocab = 128256, kLlamaHeadDim = 128;
constexpr int64_t kHiddenStateSkipLayer = 2;  // --hidden-state-skip-layer 2

// transformers' repeat_kv: [B, L, 8, D] -> [B, L, 32, D], each KV head 4 times.
ValueId RepeatKv(GraphBuilder& b, const std::string& name, ValueId x) {
  const Shape s = b.type(x).shape;
  const int64_t groups = kLlamaHeads / kLlamaKvHeads;
  ValueId one = b.Reshape(name + ".unsqueeze", x, {s[0], s[1], s[2], 1, s[3]});
  ValueId wide = b.Broadcast(name + ".expand", one, {s[0], s[1], s[2], groups, s[3]}, {0, 1, 2, 3, 4});
  return b.Reshape(name + ".flatten", wide, {s[0], s[1], s[2] * groups, s[3]});
}
}  // namespace

pir::Graph BuildLlavaLlama3Encoder(int64_t batch) {
  GraphBuilder b("llava-llama-3-8b");
  const DType dt = DType::kF16;  // --text-encoder-precision fp16
  b.set_param_dtype(dt);
  const int64_t L = kLlamaTokens;
  ValueId ids = b.Input("input_ids", DType::kI64, {batch, L});
  ValueId rope = b.Constant("rotary_emb", DType::kF32, {L, kLlamaHeadDim});
  ValueId table = b.Param("embed_tokens.weight", dt, {kLlamaVocab, kLlamaDim});
  ValueId x = b.AddOp1(OpKind::kGather, "embed_tokens", {table, ids});
  ValueId used = x;
  for (int64_t layer = 0; layer < kLlamaLayers; ++layer) {
    GraphBuilder::Scope scope_layer(b, "layers." + std::to_string(layer));
    ValueId h = b.RmsNorm("input_layernorm", x, /*affine=*/true, 1e-5);
    {
      GraphBuilder::Scope scope(b, "self_attn");
      ValueId q = SplitHeads(b, "q.heads", b.Linear("q_proj", h, kLlamaHeads * kLlamaHeadDim, false), kLlamaHeads);
      ValueId k = SplitHeads(b, "k.heads", b.Linear("k_proj", h, kLlamaKvHeads * kLlamaHeadDim, false), kLlamaKvHeads);
      ValueId v = SplitHeads(b, "v.heads", b.Linear("v_proj", h, kLlamaKvHeads * kLlamaHeadDim, false), kLlamaKvHeads);
      q = b.Rope("rope_q", q, rope, {kLlamaHeadDim});
      k = b.Rope("rope_k", k, rope, {kLlamaHeadDim});
      // SDPA with the 4-D causal + padding mask: the kernel computes every
      // (query, key) pair, so the FLOPs are the full square.
      // Last argument first, as GCC built the nested call (graph_builder.h, Op order).
      ValueId repeated_v = RepeatKv(b, "repeat_v", v);
      ValueId repeated_k = RepeatKv(b, "repeat_k", k);
      ValueId out = b.Attention("sdpa", q, repeated_k, repeated_v, "self");
      h = b.Linear("o_proj", MergeHeads(b, "merge", out), kLlamaDim, false);
    }
    x = b.Binary(OpKind::kAdd, "residual1", x, h);
    h = b.RmsNorm("post_attention_layernorm", x, /*affine=*/true, 1e-5);
    {
      GraphBuilder::Scope scope(b, "mlp");
      ValueId gate = b.Unary(OpKind::kSilu, "act", b.Linear("gate_proj", h, kLlamaFfn, false));
      ValueId up = b.Linear("up_proj", h, kLlamaFfn, false);
      h = b.Linear("down_proj", b.Binary(OpKind::kMul, "gated", gate, up), kLlamaDim, false);
    }
    x = b.Binary(OpKind::kAdd, "residual2", x, h);
    // hidden_states[-(skip + 1)]: the output of layer 32 - skip (1-based).
    if (layer + 1 == kLlamaLayers - kHiddenStateSkipLayer) used = x;
  }
  b.Output(used);
  // The model still finishes: the remaining layers and the final norm
  // (last_hidden_state), which HunyuanVideo does not read.
  b.Output(b.RmsNorm("norm", x, /*affine=*/true, 1e-5));
  return b.Finish();
}

// ---------------------------------------------------------------- CLIP-L text

namespace {
constexpr int64_t kClipTextTokens = 77, kClipTextDim = 768, kClipTextHeads = 12, kClipTextFfn = 3072;
constexpr int64_t kClipTextLayers = 12, kClipTextVocab = 49408;
}  // namespace

pir::Graph BuildClipLTextEncoder(int64_t batch) {
  GraphBuilder b("clip-l-text");
  const DType dt = DType::kF16;  // --text-encoder-precision-2 fp16
  b.set_param_dtype(dt);
  const int64_t L = kClipTextTokens;
  ValueId ids = b.Input("input_ids", DType::kI64, {batch, L});
  // The flat index b * 77 + argmax(ids) of each prompt's EOS token.
  ValueId eos = b.Input("eos_index", DType::kI64, {batch});
  ValueId x;
  {
    GraphBuilder::Scope scope(b, "embeddings");
    ValueId tokens = b.AddOp1(OpKind::kGather, "token_embedding",
                              {b.Param("token_embedding.weight", dt, {kClipTextVocab, kClipTextDim}), ids});
    ValueId pos = b.Param("position_embedding.weight", dt, {L, kClipTextDim});
    x = b.Binary(OpKind::kAdd, "position", tokens, pos);
  }
  for (int64_t layer = 0; layer < kClipTextLayers; ++layer) {
    GraphBuilder::Scope scope_layer(b, "encoder.layers." + std::to_string(layer));
    ValueId h = b.LayerNorm("layer_norm1", x, /*affine=*/true, 1e-5);
    {
      GraphBuilder::Scope scope(b, "self_attn");
      ValueId q = SplitHeads(b, "q.heads", b.Linear("q_proj", h, kClipTextDim), kClipTextHeads);
      ValueId k = SplitHeads(b, "k.heads", b.Linear("k_proj", h, kClipTextDim), kClipTextHeads);
      ValueId v = SplitHeads(b, "v.heads", b.Linear("v_proj", h, kClipTextDim), kClipTextHeads);
      // The causal mask is applied inside; the kernel computes the full square.
      ValueId out = b.Attention("attention", q, k, v, "self");
      h = b.Linear("out_proj", MergeHeads(b, "merge", out), kClipTextDim);
    }
    x = b.Binary(OpKind::kAdd, "residual1", x, h);
    h = b.LayerNorm("layer_norm2", x, /*affine=*/true, 1e-5);
    {
      GraphBuilder::Scope scope(b, "mlp");
      ValueId up = b.Linear("fc1", h, kClipTextFfn);
      // quick_gelu: x * sigmoid(1.702 x).
      ValueId scaled = b.Binary(OpKind::kMul, "act.scale", up, b.Full("act.1702", dt, {}, 1.702));
      ValueId act = b.Binary(OpKind::kMul, "act", up, b.Unary(OpKind::kSigmoid, "act.sigmoid", scaled));
      h = b.Linear("fc2", act, kClipTextDim);
    }
    x = b.Binary(OpKind::kAdd, "residual2", x, h);
  }
  x = b.LayerNorm("final_layer_norm", x, /*affine=*/true, 1e-5);
  b.Output(x);
  // pooler_output: the final state at each prompt's EOS token.
  ValueId rows = b.Reshape("flatten", x, {batch * L, kClipTextDim});
  b.Output(b.AddOp1(OpKind::kGather, "pooler", {rows, eos}));
  return b.Finish();
}

}  // namespace az::zoo
