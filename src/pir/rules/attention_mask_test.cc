// Attention's masks and grouped-query K/V: the kept-score counts, the
// verifier's errors, the factor rule and the FLOPs (attention_mask.h, cost.h).
#include "pir/rules/attention_mask.h"

#include <gtest/gtest.h>

#include "pir/rules/cost.h"
#include "pir/rules/rule.h"

namespace az::pir {
namespace {

TensorType Bf16(Shape s) { return {DType::kBF16, std::move(s)}; }

Attributes Mask(const std::string& kind, int64_t window = 0) {
  Attributes a;
  a.Set("mask", kind);
  if (window > 0) a.Set("window", window);
  return a;
}

TEST(AttentionMask, KeptScores) {
  // Causal over 4 tokens: query i keeps keys 0..i: 1 + 2 + 3 + 4 = 10.
  EXPECT_EQ(KeptScores({MaskKind::kCausal, 0}, 4, 4), 10);
  // A window of 2 over 4 tokens: 1 + 2 + 2 + 2 = 7 (= 2 * 3 / 2 + (4 - 2) * 2).
  EXPECT_EQ(KeptScores({MaskKind::kWindow, 2}, 4, 4), 7);
  // A window at least the sequence is causal.
  EXPECT_EQ(KeptScores({MaskKind::kWindow, 9}, 4, 4), 10);
  // A mask tensor computes every score.
  EXPECT_EQ(KeptScores({MaskKind::kTensor, 0}, 4, 6), 24);
  // A sequence shard of a causal attention (Lq != Lk: context parallelism),
  // load balanced: half of its block.
  EXPECT_EQ(KeptScores({MaskKind::kCausal, 0}, 128, 1024), 128 * 1024 / 2);
}

TEST(AttentionMask, ReadErrors) {
  EXPECT_FALSE(ReadAttentionMask(Mask("diagonal")).ok());
  EXPECT_FALSE(ReadAttentionMask(Mask("window")).ok());  // no window
  Attributes stray = Mask("causal");
  stray.Set("window", int64_t{4});
  EXPECT_FALSE(ReadAttentionMask(stray).ok());
  auto window = ReadAttentionMask(Mask("window", 128));
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(window->kind, MaskKind::kWindow);
  EXPECT_EQ(window->window, 128);
}

TEST(AttentionMask, InferChecksShapesAndMasks) {
  const TensorType q = Bf16({1, 16, 8, 64}), kv = Bf16({1, 16, 2, 64});
  // Grouped-query: 8 query heads over 2 K/V heads.
  auto ok = InferResultTypes(OpKind::kAttention, {q, kv, kv}, Mask("causal"), {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0], Bf16({1, 16, 8, 64}));
  // 8 query heads are no multiple of 3 K/V heads.
  auto three = InferResultTypes(OpKind::kAttention, {q, Bf16({1, 16, 3, 64}), Bf16({1, 16, 3, 64})}, {}, {});
  EXPECT_FALSE(three.ok());
  // Causal needs Lq = Lk.
  Attributes cross = Mask("causal");
  cross.Set("mode", std::string("cross"));
  EXPECT_FALSE(InferResultTypes(OpKind::kAttention, {q, Bf16({1, 32, 2, 64}), Bf16({1, 32, 2, 64})}, cross, {}).ok());
  // A tensor mask is the 4th operand, broadcastable to [B, H, Lq, Lk].
  EXPECT_FALSE(InferResultTypes(OpKind::kAttention, {q, kv, kv}, Mask("tensor"), {}).ok());
  EXPECT_FALSE(InferResultTypes(OpKind::kAttention, {q, kv, kv, Bf16({1, 1, 16, 16})}, {}, {}).ok());
  EXPECT_TRUE(InferResultTypes(OpKind::kAttention, {q, kv, kv, Bf16({1, 1, 16, 16})}, Mask("tensor"), {}).ok());
  EXPECT_TRUE(InferResultTypes(OpKind::kAttention, {q, kv, kv, Bf16({1, 8, 1, 16})}, Mask("tensor"), {}).ok());
  EXPECT_FALSE(InferResultTypes(OpKind::kAttention, {q, kv, kv, Bf16({1, 2, 16, 16})}, Mask("tensor"), {}).ok());
}

TEST(AttentionMask, GroupedQueryRuleShardsTheKvHeads) {
  const std::vector<TensorType> operands = {Bf16({2, 16, 8, 64}), Bf16({2, 16, 2, 64}), Bf16({2, 16, 2, 64}),
                                            Bf16({1, 1, 16, 16})};
  auto results = InferResultTypes(OpKind::kAttention, operands, Mask("tensor"), {});
  ASSERT_TRUE(results.ok());
  auto rule = BuildFactorRule(OpKind::kAttention, operands, *results, Mask("tensor"));
  ASSERT_TRUE(rule.ok()) << rule.status().ToString();
  // The query heads are [h, g]: h the 2 K/V heads, g the 4 query heads each
  // serves; the mask shares q (its heads and batch dims are 1) and keeps its
  // keys whole (mask_kv), so ring attention, q and kv on one axis, may split it.
  EXPECT_EQ(rule->ToString(),
            "([b, q, h*g, d], [b, kv, h, d], [b, kv, h, v], [1, 1, q, mask_kv])->([b, q, h*g, v]) "
            "{b=2, q=16, h=2, g=4, v=64, kv=16, d=64, mask_kv=16} reduction={kv} need_replication={d, mask_kv}");
}

TEST(AttentionMask, CausalAndWindowFlops) {
  // B = 1, L = 512, H = 16, D = 64.
  const std::vector<TensorType> operands = {Bf16({1, 512, 16, 64}), Bf16({1, 512, 8, 64}), Bf16({1, 512, 8, 64})};
  const std::vector<TensorType> out = {Bf16({1, 512, 16, 64})};
  // Unmasked: 4 * B * H * L^2 * D = 4 * 16 * 262,144 * 64 = 1,073,741,824.
  EXPECT_EQ(ComputeOpCost(OpKind::kAttention, operands, out, {}).attention.value(), 1073741824);
  // Causal: L (L + 1) / 2 = 131,328 scores per head: 4 * 16 * 131,328 * 64 = 537,919,488.
  EXPECT_EQ(ComputeOpCost(OpKind::kAttention, operands, out, Mask("causal")).attention.value(), 537919488);
  // Window 128: 128 * 129 / 2 + 384 * 128 = 57,408 per head: 4 * 16 * 57,408 * 64 = 235,143,168.
  EXPECT_EQ(ComputeOpCost(OpKind::kAttention, operands, out, Mask("window", 128)).attention.value(), 235143168);
  // Grouped-query K/V read half the bytes of full K/V, not fewer FLOPs.
  const std::vector<TensorType> full = {Bf16({1, 512, 16, 64}), Bf16({1, 512, 16, 64}), Bf16({1, 512, 16, 64})};
  EXPECT_EQ(ComputeOpCost(OpKind::kAttention, full, out, {}).attention.value(), 1073741824);
  EXPECT_EQ(ComputeOpCost(OpKind::kAttention, full, out, {}).bytes_read.value() -
                ComputeOpCost(OpKind::kAttention, operands, out, {}).bytes_read.value(),
            2 * 512 * 8 * 64 * 2);  // K and V: 8 more heads of 512 x 64 bf16 each
}

}  // namespace
}  // namespace az::pir
