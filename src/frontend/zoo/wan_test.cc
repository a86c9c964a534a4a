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

}  // namespace
}  // namespace az::zoo
