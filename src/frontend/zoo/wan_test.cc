// Wan 2.1: exact parameter counts, tokens and FLOPs against reference/models.md §1.
#include <gtest/gtest.h>

#include "frontend/zoo/zoo.h"
#include "pir/analysis/summary.h"
#include "pir/verify/verifier.h"

namespace az::zoo {
namespace {

pir::Graph Forward(const std::string& model, ModelOptions options = {}) {
  auto config = ResolveConfig(model, options);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  auto graph = BuildForward(*config);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return std::move(graph).value();
}

int64_t ParamsWithPrefix(const pir::Graph& g, const std::string& prefix) {
  int64_t n = 0;
  for (const pir::Value& v : g.values()) {
    if (v.role == pir::ValueRole::kParameter && v.name.rfind(prefix, 0) == 0) n += v.type.NumElements();
  }
  return n;
}

ModelOptions Size(int64_t w, int64_t h, int64_t f = 81) {
  ModelOptions o;
  o.width = w;
  o.height = h;
  o.frames = f;
  return o;
}

// FLOPs outside the N_L blocks that reference/models.md §1.5 leaves out of
// F_fwd ("embeddings and head add < 0.01%"), batch 1, L video tokens:
//   patch embedding  2 * L * d * (4 * C_in)       (kernel 1x2x2 over C_in channels)
//   head             2 * L * d * 64
//   text MLP         2 * 512 * 4096 * d + 2 * 512 * d * d
//   time MLP         2 * 256 * d + 2 * d * d ; time projection 2 * d * 6d
//   I2V img_emb      2 * 257 * 1280 * 1280 + 2 * 257 * 1280 * d
int64_t OutsideBlocks(int64_t L, int64_t d, int64_t c_in, bool i2v) {
  int64_t f = 2 * L * d * 4 * c_in + 2 * L * d * 64 + 2 * 512 * 4096 * d + 2 * 512 * d * d + 2 * 256 * d +
              2 * d * d + 2 * d * 6 * d;
  if (i2v) f += 2 * 257 * 1280 * 1280 + 2 * 257 * 1280 * d;
  return f;
}

TEST(WanZoo, ParameterCountsMatchReference) {
  // §1.3 closed form, T2V: N_L(8d^2 + 2df + f + 21d) + 8d^2 + (4 C_in + 4429) d + 64
  //   1.3B (d 1536, f 8960, N_L 30, C_in 16): 1,418,996,800
  //   14B  (d 5120, f 13824, N_L 40, C_in 16): 14,288,491,584
  // I2V: N_L(10d^2 + 2df + f + 24d) + 8d^2 + (4 C_in + 5712) d + 1,642,304 (C_in 36): 16,394,878,784
  EXPECT_EQ(pir::SummarizeGraph(Forward("wan2.1-t2v-1.3b")).num_params, 1'418'996'800);
  EXPECT_EQ(pir::SummarizeGraph(Forward("wan2.1-t2v-14b")).num_params, 14'288'491'584);
  EXPECT_EQ(pir::SummarizeGraph(Forward("wan2.1-i2v-14b")).num_params, 16'394'878'784);
}

TEST(WanZoo, PartCountsMatchReference) {
  pir::Graph t2v = Forward("wan2.1-t2v-14b");
  // §1.3 table, T2V-14B column.
  EXPECT_EQ(ParamsWithPrefix(t2v, "patch_embedding."), 332'800);        // 4*16*5120 + 5120
  EXPECT_EQ(ParamsWithPrefix(t2v, "text_embedding."), 47'196'160);      // d^2 + 4098d
  EXPECT_EQ(ParamsWithPrefix(t2v, "time_embedding."), 27'535'360);      // d^2 + 258d
  EXPECT_EQ(ParamsWithPrefix(t2v, "time_projection."), 157'317'120);    // 6d^2 + 6d
  EXPECT_EQ(ParamsWithPrefix(t2v, "blocks.0."), 351'394'304);           // 8d^2 + 2df + f + 21d
  EXPECT_EQ(ParamsWithPrefix(t2v, "blocks.0.self_attn."), 104'888'320);  // 4(d^2+d) q,k,v,o + 2d norms
  EXPECT_EQ(ParamsWithPrefix(t2v, "head."), 337'984);                   // 66d + 64
  pir::Graph i2v = Forward("wan2.1-i2v-14b");
  EXPECT_EQ(ParamsWithPrefix(i2v, "blocks.0."), 403'838'464);           // 10d^2 + 2df + f + 24d
  EXPECT_EQ(ParamsWithPrefix(i2v, "img_emb."), 8'211'200);              // 1283d + 1,642,240
  EXPECT_EQ(ParamsWithPrefix(i2v, "patch_embedding."), 742'400);        // 4*36*5120 + 5120
}

TEST(WanZoo, ParameterBytesAreBf16) {
  pir::GraphSummary s = pir::SummarizeGraph(Forward("wan2.1-t2v-14b"));
  EXPECT_EQ(s.param_bytes.value(), 2 * 14'288'491'584);
}

TEST(WanZoo, VideoTokens) {
  // §1.4: L = ((F-1)/4 + 1) * (H/16) * (W/16).
  auto t720 = ResolveConfig("wan2.1-t2v-14b", {});  // 1280x720, 81 f: 21 * 45 * 80
  ASSERT_TRUE(t720.ok());
  EXPECT_EQ(CountTokens(*t720).video, 75'600);
  EXPECT_EQ(CountTokens(*t720).text, 512);
  auto t480 = ResolveConfig("wan2.1-t2v-14b", Size(832, 480));  // 21 * 30 * 52
  ASSERT_TRUE(t480.ok());
  EXPECT_EQ(CountTokens(*t480).video, 32'760);
  auto i2v = ResolveConfig("wan2.1-i2v-14b", {});
  ASSERT_TRUE(i2v.ok());
  EXPECT_EQ(CountTokens(*i2v).text, 257 + 512);
  auto image = ResolveConfig("wan2.1-t2v-14b", Size(1024, 1024, 1));  // t2i: 1 * 64 * 64
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(CountTokens(*image).video, 4'096);
}

// §1.5: F_fwd = N_L * (12 L d^2 + 4 T d^2 + 4 L^2 d + 4 L T d + 4 L d f), T = 512;
// I2V adds 4*257*d^2 + 4*257*L*d per block. The graph's matmul + attention FLOPs
// are exactly that plus the parts outside the blocks.
TEST(WanZoo, FlopsMatchReferenceExactly) {
  struct Case {
    std::string model;
    int64_t w, h, L, d, c_in;
    bool i2v;
    int64_t f_fwd;  // §1.5 table, exact column
  };
  const Case cases[] = {
      {"wan2.1-t2v-14b", 1280, 720, 75'600, 5120, 16, false, 6'523'288'813'568'000},
      {"wan2.1-t2v-14b", 832, 480, 32'760, 5120, 16, false, 1'678'278'656'000'000},
      {"wan2.1-t2v-1.3b", 832, 480, 32'760, 1536, 16, false, 282'980'013'834'240},
      {"wan2.1-i2v-14b", 1280, 720, 75'600, 5120, 36, true, 6'540'283'150'336'000},
      {"wan2.1-i2v-14b", 832, 480, 32'760, 5120, 36, true, 1'686'253'699'072'000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.model + " " + std::to_string(c.w) + "x" + std::to_string(c.h));
    pir::GraphSummary s = pir::SummarizeGraph(Forward(c.model, Size(c.w, c.h)));
    EXPECT_EQ(s.model_flops().value(), c.f_fwd + OutsideBlocks(c.L, c.d, c.c_in, c.i2v));
    // And the acceptance: within 1% of the rounded PFLOP figures.
    EXPECT_NEAR(static_cast<double>(s.model_flops().value()) / static_cast<double>(c.f_fwd), 1.0, 0.01);
  }
}

TEST(WanZoo, AttentionShare) {
  // §1.5: self-attention QK^T/PV is 71.8% of the 14B 720p forward. Our attention
  // class also holds the cross-attention (4 L T d per block): 4*75600*512*5120*40
  // = 3.17e13 FLOPs, +0.49 points.
  pir::GraphSummary s = pir::SummarizeGraph(Forward("wan2.1-t2v-14b"));
  double share = static_cast<double>(s.cost.attention.value()) / static_cast<double>(s.model_flops().value());
  EXPECT_NEAR(share, 0.718 + 0.0049, 0.001);
}

TEST(WanZoo, StepFlopsFollowCfgMode) {
  for (CfgMode mode : {CfgMode::kTwoPass, CfgMode::kBatch2, CfgMode::kNone}) {
    ModelOptions o = Size(832, 480);
    o.cfg = mode;
    auto config = ResolveConfig("wan2.1-t2v-1.3b", o);
    ASSERT_TRUE(config.ok());
    auto step = BuildStep(*config);
    ASSERT_TRUE(step.ok());
    ModelOptions single = Size(832, 480);
    single.cfg = CfgMode::kNone;
    pir::GraphSummary one = pir::SummarizeGraph(Forward("wan2.1-t2v-1.3b", single));
    pir::GraphSummary s = pir::SummarizeGraph(*step);
    // Every matmul is linear in the batch, so batch2 costs exactly two batch-1 passes.
    int64_t passes = mode == CfgMode::kNone ? 1 : 2;
    EXPECT_EQ(s.model_flops().value(), passes * one.model_flops().value()) << CfgModeName(mode);
    // Weights are shared by the passes.
    EXPECT_EQ(s.num_params, 1'418'996'800);
    EXPECT_TRUE(pir::VerifyGraph(*step).ok()) << pir::VerifyGraph(*step).ToString();
    ASSERT_EQ(step->outputs().size(), 1u);
    EXPECT_EQ(step->type(step->outputs()[0]).shape, (pir::Shape{1, 16, 21, 60, 104}));
  }
}

TEST(WanZoo, GraphsVerify) {
  for (const char* model : {"wan2.1-t2v-1.3b", "wan2.1-t2v-14b", "wan2.1-i2v-14b"}) {
    pir::Graph g = Forward(model, Size(832, 480));
    Status s = pir::VerifyGraph(g);
    EXPECT_TRUE(s.ok()) << model << ": " << s.ToString();
    ASSERT_EQ(g.outputs().size(), 1u);
    EXPECT_EQ(g.type(g.outputs()[0]), (pir::TensorType{pir::DType::kF32, {1, 16, 21, 60, 104}}));
    EXPECT_EQ(g.attrs().GetInt("video_tokens"), 32'760);
  }
}

TEST(WanZoo, OpInventoryOfOneBlock) {
  // Per T2V block: 8 linears in the attentions + 2 FFN = 10 einsums; 2 attentions;
  // 4 RMS norms (q, k in each attention); 2 RoPE.
  pir::Graph g = Forward("wan2.1-t2v-1.3b", Size(832, 480));
  int einsum = 0, attention = 0, rms = 0, rope = 0;
  for (const pir::Op& op : g.ops()) {
    if (op.name.rfind("blocks.7.", 0) != 0) continue;
    einsum += op.kind == pir::OpKind::kEinsum;
    attention += op.kind == pir::OpKind::kAttention;
    rms += op.kind == pir::OpKind::kRmsNorm;
    rope += op.kind == pir::OpKind::kRope;
  }
  EXPECT_EQ(einsum, 10);
  EXPECT_EQ(attention, 2);
  EXPECT_EQ(rms, 4);
  EXPECT_EQ(rope, 2);
}

TEST(WanZoo, InvalidConfigurationsAreClearErrors) {
  auto frames = ResolveConfig("wan2.1-t2v-14b", Size(1280, 720, 80));
  ASSERT_FALSE(frames.ok());
  EXPECT_NE(frames.status().message().find("4n+1"), std::string::npos) << frames.status().message();
  auto width = ResolveConfig("wan2.1-t2v-14b", Size(1000, 720));
  ASSERT_FALSE(width.ok());
  EXPECT_NE(width.status().message().find("multiples of 16"), std::string::npos);
  auto zero = ResolveConfig("wan2.1-t2v-14b", Size(0, 720));
  EXPECT_FALSE(zero.ok());
  auto huge = ResolveConfig("wan2.1-t2v-14b", Size(1 << 20, 720));
  EXPECT_FALSE(huge.ok());
  auto unknown = ResolveConfig("wan3-t2v", {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("wan2.1-t2v-14b"), std::string::npos);  // lists known models
  ModelOptions batch;
  batch.batch = 0;
  EXPECT_FALSE(ResolveConfig("wan2.1-t2v-14b", batch).ok());
  EXPECT_FALSE(ParseCfgMode("cfg-parallel").ok());
}

TEST(WanZoo, DefaultsFollowOfficialCode) {
  // §1.6: T2V 50 steps, I2V 40; official CFG = two sequential batch-1 passes.
  auto t2v = ResolveConfig("wan2.1-t2v-14b", {});
  ASSERT_TRUE(t2v.ok());
  EXPECT_EQ(t2v->steps, 50);
  EXPECT_EQ(t2v->cfg, CfgMode::kTwoPass);
  EXPECT_EQ(t2v->frames, 81);
  auto i2v = ResolveConfig("wan2.1-i2v-14b", {});
  ASSERT_TRUE(i2v.ok());
  EXPECT_EQ(i2v->steps, 40);
  auto small = ResolveConfig("wan2.1-t2v-1.3b", {});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->width, 832);
  EXPECT_EQ(small->height, 480);
}

// ---------------------------------------------------------------- Wan 2.2
// reference/models.md §3 (the Wan 2.2 rows and the notes under the table),
// checked against [Wan2.2 42bf4cfa: wan/configs/wan_t2v_A14B.py,
// wan_i2v_A14B.py, wan_ti2v_5B.py, wan/modules/model.py].

// Wan 2.2 runs the time MLP and projection on every token (model.py expands t
// to [B, seq_len]), so outside the blocks, batch 1, L tokens:
//   patch embedding  2 * L * d * (4 * C_in)
//   head             2 * L * d * (4 * C_out)
//   text MLP         2 * 512 * 4096 * d + 2 * 512 * d * d
//   time MLP         2 * L * 256 * d + 2 * L * d * d ; time projection 2 * L * d * 6d
int64_t OutsideBlocks22(int64_t L, int64_t d, int64_t c_in, int64_t c_out) {
  return 2 * L * d * 4 * c_in + 2 * L * d * 4 * c_out + 2 * 512 * 4096 * d + 2 * 512 * d * d + 2 * L * 256 * d +
         2 * L * d * d + 2 * L * d * 6 * d;
}

TEST(Wan22Zoo, ParameterCountsMatchReference) {
  // One A14B expert is the Wan 2.1 14B shape (d 5120, f 13824, 40 blocks):
  //   T2V: §1.3 T2V closed form with C_in 16 = 14,288,491,584 (the T2V-14B count);
  //   I2V: the same plus 4 * (36 - 16) * 5120 = 409,600 patch weights (no CLIP
  //        branch, no k_img / v_img) = 14,288,901,184.
  // TI2V-5B (d 3072, f 14336, 30 blocks, C_in = C_out = 48):
  //   blocks  30 * (8d^2 + 2df + f + 21d) = 30 * 163,656,704 = 4,909,701,120
  //   patch   4 * 48 * d + d = 592,896;  text d^2 + 4098d = 22,026,240
  //   time    d^2 + 258d = 10,229,760;   projection 6d^2 + 6d = 56,641,536
  //   head    Linear(d, 4 * 48) + modulation 2d = 192d + 192 + 2d = 596,160
  //   total   4,999,787,712 (the §3 note's computed size).
  EXPECT_EQ(pir::SummarizeGraph(Forward("wan2.2-t2v-a14b")).num_params, 14'288'491'584);
  EXPECT_EQ(pir::SummarizeGraph(Forward("wan2.2-i2v-a14b")).num_params, 14'288'901'184);
  EXPECT_EQ(pir::SummarizeGraph(Forward("wan2.2-ti2v-5b")).num_params, 4'999'787'712);
  pir::Graph ti2v = Forward("wan2.2-ti2v-5b");
  EXPECT_EQ(ParamsWithPrefix(ti2v, "blocks.0."), 163'656'704);
  EXPECT_EQ(ParamsWithPrefix(ti2v, "patch_embedding."), 592'896);
  EXPECT_EQ(ParamsWithPrefix(ti2v, "head."), 596'160);
  pir::Graph i2v = Forward("wan2.2-i2v-a14b");
  EXPECT_EQ(ParamsWithPrefix(i2v, "img_emb."), 0);
  EXPECT_EQ(ParamsWithPrefix(i2v, "blocks.0."), 351'394'304);  // the T2V block: 8d^2 + 2df + f + 21d
}

TEST(Wan22Zoo, Ti2vLatentAndTokens) {
  // VAE stride (4, 16, 16), z_dim 48: 1280x704, 121 frames -> latent
  // 48 x ((121-1)/4 + 1) x 704/16 x 1280/16 = 48 x 31 x 44 x 80; patch (1,2,2)
  // -> 31 x 22 x 40 = 27,280 tokens.
  auto config = ResolveConfig("wan2.2-ti2v-5b", {});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->width, 1280);
  EXPECT_EQ(config->height, 704);
  EXPECT_EQ(config->frames, 121);
  EXPECT_EQ(config->steps, 50);
  EXPECT_EQ(config->vae_stride, 16);
  EXPECT_EQ(CountTokens(*config).video, 27'280);
  EXPECT_EQ(CountTokens(*config).text, 512);
  auto step = BuildStep(*config);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_TRUE(pir::VerifyGraph(*step).ok()) << pir::VerifyGraph(*step).ToString();
  EXPECT_EQ(step->type(step->outputs()[0]), (pir::TensorType{pir::DType::kF32, {1, 48, 31, 44, 80}}));
  // The Wan 2.1 models keep stride 8: 1280x720, 81 f -> 16 x 21 x 90 x 160.
  pir::Graph wan21 = Forward("wan2.1-t2v-14b");
  EXPECT_EQ(wan21.type(wan21.outputs()[0]).shape, (pir::Shape{1, 16, 21, 90, 160}));
  // 720 / 16 = 45 latent rows cannot be split by the 2x2 patch: a clear error.
  auto odd = ResolveConfig("wan2.2-ti2v-5b", Size(1280, 720, 121));
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("multiples of 32"), std::string::npos) << odd.status().message();
}

TEST(Wan22Zoo, I2vConcatenatesYWithoutClip) {
  // wan/image2video.py (Wan 2.2): y = 4 mask channels + 16 latent channels,
  // concatenated onto the 16-channel noise: 36 in; model.py has no img_emb.
  pir::Graph g = Forward("wan2.2-i2v-a14b", Size(832, 480));
  bool has_y = false, has_clip = false;
  for (const pir::Value& v : g.values()) {
    if (v.role != pir::ValueRole::kInput) continue;
    if (v.name == "y") {
      has_y = true;
      EXPECT_EQ(v.type.shape, (pir::Shape{1, 20, 21, 60, 104}));
    }
    has_clip |= v.name == "clip_fea";
  }
  EXPECT_TRUE(has_y);
  EXPECT_FALSE(has_clip);
  EXPECT_EQ(CountTokens(*ResolveConfig("wan2.2-i2v-a14b", {})).text, 512);
}

// §1.5's F_fwd with T = 512 (the A14B block is the Wan 2.1 T2V block, the I2V
// expert included: no image cross-attention), plus OutsideBlocks22.
TEST(Wan22Zoo, FlopsMatchHandDerivation) {
  struct Case {
    std::string model;
    int64_t w, h, frames, L, d, c_in, c_out;
    int64_t f_fwd;
  };
  const Case cases[] = {
      // 40 * F_block(L 75,600, d 5120, f 13824): the §1.5 T2V-14B 720P figure.
      {"wan2.2-t2v-a14b", 1280, 720, 81, 75'600, 5120, 16, 16, 6'523'288'813'568'000},
      {"wan2.2-i2v-a14b", 1280, 720, 81, 75'600, 5120, 36, 16, 6'523'288'813'568'000},
      // 30 * (12 L d^2 + 4*512 d^2 + 4 L^2 d + 4*512 L d + 4 L d f), L 27,280,
      // d 3072, f 14336: 30 * 17,230,690,516,992 = 516,920,715,509,760 (0.517 PF).
      {"wan2.2-ti2v-5b", 1280, 704, 121, 27'280, 3072, 48, 48, 516'920'715'509'760},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.model);
    pir::GraphSummary s = pir::SummarizeGraph(Forward(c.model, Size(c.w, c.h, c.frames)));
    EXPECT_EQ(s.model_flops().value(), c.f_fwd + OutsideBlocks22(c.L, c.d, c.c_in, c.c_out));
    // The per-token time MLP keeps the outside share under 1% (A14B 0.43%, TI2V 0.72%).
    EXPECT_NEAR(static_cast<double>(s.model_flops().value()) / static_cast<double>(c.f_fwd), 1.0, 0.01);
  }
}

TEST(Wan22Zoo, ExpertsSwitchAtTheBoundary) {
  // Step i's timestep: int(1000 * shift * s / (1 + (shift - 1) * s)),
  // s = 0.999 * (1 - i / steps). T2V (shift 12, boundary 875), 40 steps:
  // step 25 -> 877 (high), step 26 -> 865 (low): 26 high-noise steps.
  // I2V (shift 5, boundary 900): step 14 -> 902, step 15 -> 892: 15.
  auto t2v = ResolveConfig("wan2.2-t2v-a14b", {});
  ASSERT_TRUE(t2v.ok());
  EXPECT_EQ(t2v->experts, 2);
  EXPECT_EQ(t2v->steps, 40);
  EXPECT_EQ(t2v->cfg, CfgMode::kTwoPass);
  EXPECT_EQ(t2v->expert_switch_step, 26);
  auto i2v = ResolveConfig("wan2.2-i2v-a14b", {});
  ASSERT_TRUE(i2v.ok());
  EXPECT_EQ(i2v->expert_switch_step, 15);
  // 50 steps: T2V step 31 -> 880, 32 -> 870; I2V step 17 -> 906, 18 -> 898.
  ModelOptions fifty;
  fifty.steps = 50;
  EXPECT_EQ(ResolveConfig("wan2.2-t2v-a14b", fifty)->expert_switch_step, 32);
  EXPECT_EQ(ResolveConfig("wan2.2-i2v-a14b", fifty)->expert_switch_step, 18);
  // One step: t = 999, high noise only, no switch.
  ModelOptions one;
  one.steps = 1;
  EXPECT_EQ(ResolveConfig("wan2.2-t2v-a14b", one)->expert_switch_step, 1);
  // Single-expert models.
  EXPECT_EQ(ResolveConfig("wan2.2-ti2v-5b", {})->experts, 1);
  EXPECT_EQ(ResolveConfig("wan2.1-t2v-14b", {})->experts, 1);
  // The step graph is one expert: its parameters once, and it says how many exist.
  auto step = BuildStep(*ResolveConfig("wan2.2-t2v-a14b", Size(832, 480)));
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(pir::SummarizeGraph(*step).num_params, 14'288'491'584);
  EXPECT_EQ(step->attrs().GetInt("experts"), 2);
  EXPECT_EQ(step->attrs().GetInt("expert_switch_step"), 26);
}

TEST(Wan22Zoo, TimeEmbeddingIsPerToken) {
  // model.py: e0 = time_projection(e).unflatten(2, (6, dim)) -> [B, L, 6, d] in f32.
  pir::Graph g = Forward("wan2.2-ti2v-5b", Size(256, 256, 5));  // 2 x 8 x 8 = 128 tokens
  bool found = false;
  for (const pir::Op& op : g.ops()) {
    if (op.name != "time_projection.unflatten") continue;
    found = true;
    EXPECT_EQ(g.type(op.results[0]), (pir::TensorType{pir::DType::kF32, {1, 128, 6, 3072}}));
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace az::zoo
