// Factor rules against Shardy's registry examples (reference/formats.md §3.5)
// and the attention/conv rules this project defines.
#include "pir/rules/rule.h"

#include <gtest/gtest.h>

#include "pir/build/graph_builder.h"
#include "pir/rules/cost.h"

namespace az::pir {
namespace {

std::string RuleText(OpKind kind, std::vector<TensorType> operands, Attributes attrs) {
  auto results = InferResultTypes(kind, operands, attrs, {});
  EXPECT_TRUE(results.ok()) << results.status().ToString();
  auto rule = BuildFactorRule(kind, operands, *results, attrs);
  EXPECT_TRUE(rule.ok()) << rule.status().ToString();
  return rule->ToString();
}

TensorType F32(Shape s) { return {DType::kF32, std::move(s)}; }

TEST(FactorRule, Matmul) {
  Attributes a;
  a.Set("eq", std::string("ik,kj->ij"));
  // Shardy: ([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}
  EXPECT_EQ(RuleText(OpKind::kEinsum, {F32({8, 32}), F32({32, 16})}, a),
            "([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}");
}

TEST(FactorRule, BatchedLinearWithBias) {
  Attributes a;
  a.Set("eq", std::string("blz,zy->bly"));
  EXPECT_EQ(RuleText(OpKind::kEinsum, {F32({2, 8, 16}), F32({16, 32}), F32({32})}, a),
            "([b, l, z], [z, y], [y])->([b, l, y]) {b=2, l=8, y=32, z=16} reduction={z}");
}

TEST(FactorRule, ReshapeMergeAndSplit) {
  Attributes merge;
  merge.Set("shape", std::vector<int64_t>{8, 32});
  // Shardy: ([i, j, k])->([ij, k]) {i=2, j=4, k=32}
  EXPECT_EQ(RuleText(OpKind::kReshape, {F32({2, 4, 32})}, merge), "([r0, r1, r2])->([r0*r1, r2]) {r0=2, r1=4, r2=32}");
  Attributes split;
  split.Set("shape", std::vector<int64_t>{2, 16});
  // Shardy: 8x4 -> 2x16 is ([ij, k])->([i, jk]) {i=2, j=4, k=4}
  EXPECT_EQ(RuleText(OpKind::kReshape, {F32({8, 4})}, split), "([r0*r1, r2])->([r0, r1*r2]) {r0=2, r1=4, r2=4}");
  // Heads split: [B, L, H*D] -> [B, L, H, D] keeps B and L and splits the last dim.
  Attributes heads;
  heads.Set("shape", std::vector<int64_t>{1, 6, 4, 8});
  EXPECT_EQ(RuleText(OpKind::kReshape, {F32({1, 6, 32})}, heads), "([1, r0, r1*r2])->([1, r0, r1, r2]) {r0=6, r1=4, r2=8}");
}

TEST(FactorRule, ReshapeThatSharesNothingIsConservative) {
  // 3x2 -> 2x3: Shardy's ([i, l])->([j, k]): no factor is shared. (Diverged
  // factors are named as the walk meets them: the smaller running product first.)
  Attributes a;
  a.Set("shape", std::vector<int64_t>{2, 3});
  EXPECT_EQ(RuleText(OpKind::kReshape, {F32({3, 2})}, a), "([r0, r3])->([r1, r2]) {r0=3, r1=2, r2=3, r3=2}");
  // 6x4 -> 4x6: the major 2 is shared (both dims start with the same 12-element blocks).
  a.Set("shape", std::vector<int64_t>{4, 6});
  EXPECT_EQ(RuleText(OpKind::kReshape, {F32({6, 4})}, a),
            "([r0*r1, r4])->([r0*r2, r3]) {r0=2, r1=3, r2=2, r3=6, r4=4}");
}

TEST(FactorRule, Transpose) {
  Attributes a;
  a.Set("perm", std::vector<int64_t>{3, 1, 0, 2});
  // Shardy: ([k, j, l, i])->([i, j, k, l]) {i=100, j=32, k=256, l=64}: factors in result order.
  EXPECT_EQ(RuleText(OpKind::kTranspose, {F32({256, 32, 64, 100})}, a),
            "([d2, d1, d3, d0])->([d0, d1, d2, d3]) {d0=100, d1=32, d2=256, d3=64}");
}

TEST(FactorRule, ReduceAndBroadcast) {
  Attributes r;
  r.Set("dims", std::vector<int64_t>{1});
  EXPECT_EQ(RuleText(OpKind::kReduce, {F32({2, 64, 13})}, r),
            "([d0, d1, d2])->([d0, d2]) {d0=2, d1=64, d2=13} reduction={d1}");
  Attributes b;
  b.Set("shape", std::vector<int64_t>{2, 64, 13, 1});
  b.Set("dims", std::vector<int64_t>{0, 2, 3});
  EXPECT_EQ(RuleText(OpKind::kBroadcast, {F32({2, 13, 1})}, b),
            "([d0, d2, 1])->([d0, d1, d2, 1]) {d0=2, d1=64, d2=13, d3=1}");
}

TEST(FactorRule, Attention) {
  // Heads pass through (Ulysses), the query sequence passes through, the key
  // sequence is a reduction (ring attention), the head dim must stay whole.
  Attributes a;
  a.Set("mode", std::string("cross"));
  EXPECT_EQ(RuleText(OpKind::kAttention, {F32({2, 100, 8, 64}), F32({2, 30, 8, 64}), F32({2, 30, 8, 64})}, a),
            "([b, q, h, d], [b, kv, h, d], [b, kv, h, v])->([b, q, h, v]) {b=2, q=100, h=8, v=64, kv=30, d=64} "
            "reduction={kv} need_replication={d}");
}

TEST(FactorRule, PatchifyConvShardsWindowsWithoutHalo) {
  Attributes a;
  a.Set("stride", std::vector<int64_t>{1, 2, 2});
  // x [1, 16, 21, 90, 160], w [5120, 16, 1, 2, 2]: output [1, 5120, 21, 45, 80].
  EXPECT_EQ(RuleText(OpKind::kConv3d, {F32({1, 16, 21, 90, 160}), F32({5120, 16, 1, 2, 2})}, a),
            "([1, c, t, y*ky, x*kx], [o, c, 1, ky, kx])->([1, o, t, y, x]) "
            "{b=1, o=5120, c=16, t=21, kt=1, y=45, ky=2, x=80, kx=2} reduction={c, kt, ky, kx}");
}

// The normalized axis may be sharded at the price of the statistics'
// all-reduces (rule.h: StatisticsOf).
TEST(FactorRule, NormAndSoftmaxNormalizeTheirAxis) {
  Attributes eps;
  eps.Set("eps", 1e-6);
  EXPECT_EQ(RuleText(OpKind::kRmsNorm, {F32({4, 32}), F32({32})}, eps),
            "([d0, n], [n])->([d0, n]) {d0=4, n=32} normalized={n}");
  Attributes axis;
  axis.Set("axis", int64_t{-1});
  EXPECT_EQ(RuleText(OpKind::kSoftmax, {F32({4, 32})}, axis),
            "([d0, d1])->([d0, d1]) {d0=4, d1=32} normalized={d1}");
  // Layer norm all-reduces the sum and the sum of squares in one round, RMS
  // norm the sum of squares, softmax the max and then the sum.
  EXPECT_EQ(StatisticsOf(OpKind::kLayerNorm).rounds, 1);
  EXPECT_EQ(StatisticsOf(OpKind::kLayerNorm).values, 2);
  EXPECT_EQ(StatisticsOf(OpKind::kRmsNorm).values, 1);
  EXPECT_EQ(StatisticsOf(OpKind::kSoftmax).rounds, 2);
  EXPECT_EQ(StatisticsOf(OpKind::kAdd).rounds, 0);
}

// VAE ops. Wan's RMS_norm normalizes channel-first activations over the
// channels (axis 1): the other dims pass through. Group norm splits C into
// groups (pass-through) x channels per group, and normalizes the channels of
// a group together with every spatial dim: sharding a frame or row dim costs
// the per-(sample, group) sums' all-reduce, like a norm's normalized dim.
TEST(FactorRule, ChannelNormAndGroupNorm) {
  Attributes axis;
  axis.Set("axis", int64_t{1});
  EXPECT_EQ(RuleText(OpKind::kRmsNorm, {F32({1, 32, 2, 4, 4}), F32({32})}, axis),
            "([1, n, d2, d3, d4], [n])->([1, n, d2, d3, d4]) {d0=1, n=32, d2=2, d3=4, d4=4} normalized={n}");
  Attributes groups;
  groups.Set("groups", int64_t{8});
  // 32 channels = 8 groups x 4 channels per group.
  EXPECT_EQ(RuleText(OpKind::kGroupNorm, {F32({2, 32, 3, 4, 4}), F32({32}), F32({32})}, groups),
            "([b, g*c, s0, s1, s2], [g*c], [g*c])->([b, g*c, s0, s1, s2]) "
            "{b=2, g=8, c=4, s0=3, s1=4, s2=4} normalized={c, s0, s1, s2}");
  EXPECT_EQ(StatisticsOf(OpKind::kGroupNorm).rounds, 1);
  EXPECT_EQ(StatisticsOf(OpKind::kGroupNorm).values, 2);  // the sum and the sum of squares
  // User errors: groups that do not divide C, a missing groups, an axis out of range.
  groups.Set("groups", int64_t{5});
  EXPECT_FALSE(InferResultTypes(OpKind::kGroupNorm, {F32({2, 32, 3})}, groups, {}).ok());
  EXPECT_FALSE(InferResultTypes(OpKind::kGroupNorm, {F32({2, 32, 3})}, {}, {}).ok());
  axis.Set("axis", int64_t{5});
  EXPECT_FALSE(InferResultTypes(OpKind::kRmsNorm, {F32({2, 32, 3})}, axis, {}).ok());
  // The weight follows the normalized axis.
  axis.Set("axis", int64_t{1});
  EXPECT_FALSE(InferResultTypes(OpKind::kRmsNorm, {F32({2, 32, 3}), F32({3})}, axis, {}).ok());
}

// Nearest upsampling: an upsampled dim n*s is [n, s]; the copies factor s is
// in the result only (like a broadcast dim), so sharding the rows n needs no halo.
TEST(FactorRule, UpsampleSplitsEachScaledDimIntoRowsAndCopies) {
  Attributes scale;
  scale.Set("scale", std::vector<int64_t>{1, 1, 2, 2, 2});
  EXPECT_EQ(RuleText(OpKind::kUpsample, {F32({1, 8, 2, 3, 3})}, scale),
            "([1, d1, d2, d3, d4])->([1, d1, d2*s2, d3*s3, d4*s4]) {d0=1, d1=8, d2=2, s2=2, d3=3, s3=2, d4=3, s4=2}");
  auto types = InferResultTypes(OpKind::kUpsample, {F32({1, 8, 2, 3, 3})}, scale, {});
  ASSERT_TRUE(types.ok());
  EXPECT_EQ((*types)[0].shape, (Shape{1, 8, 4, 6, 6}));
  scale.Set("scale", std::vector<int64_t>{1, 2});
  EXPECT_FALSE(InferResultTypes(OpKind::kUpsample, {F32({1, 8, 2})}, scale, {}).ok());  // one entry per dim
  scale.Set("scale", std::vector<int64_t>{1, 0, 2});
  EXPECT_FALSE(InferResultTypes(OpKind::kUpsample, {F32({1, 8, 2})}, scale, {}).ok());
}

// Replicate padding (HunyuanVideo's CausalConv3d pads 2 frames before, 1 row
// and column each side): an unpadded dim passes through, a padded dim n ->
// n + low + high is one halo factor of size n in the operand and the result
// (rule.h kHalo: the result's dim exceeds it by the padding).
TEST(FactorRule, PadPassesUnpaddedDimsAndSharesAHaloFactorForPaddedOnes) {
  Attributes pad;
  pad.Set("low", std::vector<int64_t>{0, 0, 2, 1, 1});
  pad.Set("high", std::vector<int64_t>{0, 0, 0, 1, 1});
  pad.Set("mode", std::string("replicate"));
  EXPECT_EQ(RuleText(OpKind::kPad, {F32({1, 8, 2, 3, 4})}, pad),
            "([1, d1, p2, p3, p4])->([1, d1, p2, p3, p4]) {d0=1, d1=8, p2=2, p3=3, p4=4} halo={p2, p3, p4}");
  auto rule = BuildFactorRule(OpKind::kPad, {F32({1, 8, 2, 3, 4})}, {F32({1, 8, 4, 5, 6})}, pad);
  ASSERT_TRUE(rule.ok());
  EXPECT_TRUE(rule->DimFits(rule->results[0][3], 5));   // 3 rows + 2 of padding
  EXPECT_FALSE(rule->DimFits(rule->results[0][3], 2));  // never smaller than the factor
  EXPECT_FALSE(rule->DimFits(rule->results[0][1], 9));  // a pass-through dim is exact
  auto types = InferResultTypes(OpKind::kPad, {F32({1, 8, 2, 3, 4})}, pad, {});
  ASSERT_TRUE(types.ok());
  // 2 + 2 frames, 3 + 2 rows, 4 + 2 columns.
  EXPECT_EQ((*types)[0].shape, (Shape{1, 8, 4, 5, 6}));
  Attributes bad = pad;
  bad.Set("mode", std::string("reflect"));
  EXPECT_FALSE(InferResultTypes(OpKind::kPad, {F32({1, 8, 2, 3, 4})}, bad, {}).ok());
  bad = pad;
  bad.Set("low", std::vector<int64_t>{0, 0, -1, 1, 1});
  EXPECT_FALSE(InferResultTypes(OpKind::kPad, {F32({1, 8, 2, 3, 4})}, bad, {}).ok());
  bad = pad;
  bad.Set("high", std::vector<int64_t>{0, 1});  // one entry per dim
  EXPECT_FALSE(InferResultTypes(OpKind::kPad, {F32({1, 8, 2, 3, 4})}, bad, {}).ok());
  // An empty dim has no edge to replicate.
  EXPECT_FALSE(InferResultTypes(OpKind::kPad, {F32({1, 8, 0, 3, 4})}, pad, {}).ok());
}

// Causal convolution: all temporal padding before (Wan's CausalConv3d pads
// 2 frames before and none after for a 3-frame kernel), so T frames stay T.
TEST(FactorRule, CausalConvPadsBeforeOnly) {
  Attributes a;
  a.Set("stride", std::vector<int64_t>{1, 1, 1});
  a.Set("padding", std::vector<int64_t>{2, 0, 1, 1, 1, 1});
  auto types = InferResultTypes(OpKind::kConv3d, {F32({1, 16, 5, 6, 6}), F32({32, 16, 3, 3, 3})}, a, {});
  ASSERT_TRUE(types.ok());
  EXPECT_EQ((*types)[0].shape, (Shape{1, 32, 5, 6, 6}));
}

// Convolution windows (rule.h kHalo): Wan's 3x3 same-padded conv and a
// 1-frame kernel share one halo factor per spatial dim between x and the
// result; HunyuanVideo's unpadded conv after its pad narrows each dim by 2
// (the factor has the result's size); Wan's encoder downsampler (stride 2,
// one row of zeros after) tiles 2 input rows per output row: the phase "sy"
// is need-replication, minor to "y"; a stride that does not tile stays a
// permutation pair.
TEST(FactorRule, ConvWindowsShareHaloFactors) {
  Attributes same;
  same.Set("stride", std::vector<int64_t>{1, 1, 1});
  same.Set("padding", std::vector<int64_t>{2, 0, 1, 1, 1, 1});
  EXPECT_EQ(RuleText(OpKind::kConv3d, {F32({1, 16, 3, 6, 8}), F32({32, 16, 3, 3, 3})}, same),
            "([1, c, t, y, x], [o, c, kt, ky, kx])->([1, o, t, y, x]) "
            "{b=1, o=32, c=16, t=3, kt=3, y=6, ky=3, x=8, kx=3} reduction={c} need_replication={kt, ky, kx} "
            "halo={t, y, x}");
  Attributes valid;
  valid.Set("stride", std::vector<int64_t>{1, 1, 1});
  valid.Set("padding", std::vector<int64_t>{0, 0, 0, 0, 0, 0});
  EXPECT_EQ(RuleText(OpKind::kConv3d, {F32({1, 16, 5, 8, 10}), F32({32, 16, 3, 3, 3})}, valid),
            "([1, c, t, y, x], [o, c, kt, ky, kx])->([1, o, t, y, x]) "
            "{b=1, o=32, c=16, t=3, kt=3, y=6, ky=3, x=8, kx=3} reduction={c} need_replication={kt, ky, kx} "
            "halo={t, y, x}");
  Attributes down;
  down.Set("stride", std::vector<int64_t>{1, 2, 2});
  down.Set("padding", std::vector<int64_t>{0, 0, 0, 1, 0, 1});
  EXPECT_EQ(RuleText(OpKind::kConv3d, {F32({1, 16, 1, 8, 12}), F32({16, 16, 1, 3, 3})}, down),
            "([1, c, 1, y*sy, x*sx], [o, c, 1, ky, kx])->([1, o, 1, y, x]) "
            "{b=1, o=16, c=16, t=1, kt=1, y=4, sy=2, ky=3, x=6, sx=2, kx=3} reduction={c} "
            "need_replication={kt, sy, ky, sx, kx} halo={t, y, x}");
  // 5 frames, kernel 3, stride 2, unpadded: 2 outputs from 5 inputs.
  Attributes irregular;
  irregular.Set("stride", std::vector<int64_t>{2, 1, 1});
  irregular.Set("padding", std::vector<int64_t>{0, 0, 0, 0, 0, 0});
  EXPECT_EQ(RuleText(OpKind::kConv3d, {F32({1, 16, 5, 1, 1}), F32({16, 16, 3, 1, 1})}, irregular),
            "([1, c, it, 1, 1], [o, c, kt, 1, 1])->([1, o, t, 1, 1]) "
            "{b=1, o=16, c=16, it=5, kt=3, t=2, y=1, ky=1, x=1, kx=1} reduction={c} "
            "need_replication={kt, ky, kx} permutation={it, t} halo={y, x}");
}

TEST(FactorRule, ElementwiseBroadcastsFromOne) {
  EXPECT_EQ(RuleText(OpKind::kMul, {F32({2, 8, 16}), F32({2, 1, 16})}, {}),
            "([d0, d1, d2], [d0, 1, d2])->([d0, d1, d2]) {d0=2, d1=8, d2=16}");
}

TEST(FactorRule, ConcatAndSliceMoveData) {
  Attributes c;
  c.Set("axis", int64_t{1});
  EXPECT_EQ(RuleText(OpKind::kConcat, {F32({2, 5, 4}), F32({2, 3, 4})}, c),
            "([d0, c0, d2], [d0, c1, d2])->([d0, cout, d2]) {d0=2, d2=4, c0=5, c1=3, cout=8} "
            "permutation={c0, c1, cout}");
  Attributes s;
  s.Set("start", std::vector<int64_t>{0, 2});
  s.Set("limit", std::vector<int64_t>{4, 6});
  EXPECT_EQ(RuleText(OpKind::kSlice, {F32({4, 8})}, s), "([d0, s1])->([d0, t1]) {d0=4, s1=8, t1=4} permutation={s1, t1}");
}

TEST(InferTypes, ErrorsNameTheProblem) {
  Attributes a;
  a.Set("eq", std::string("ik,kj->ij"));
  auto r = InferResultTypes(OpKind::kEinsum, {F32({8, 32}), F32({31, 16})}, a, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "einsum dimension 'k' is 32 in one operand and 31 in another");
  auto arity = InferResultTypes(OpKind::kAdd, {F32({1})}, {}, {});
  ASSERT_FALSE(arity.ok());
  EXPECT_EQ(arity.status().message(), "'add' takes 2 operands, got 1");
  auto bcast = InferResultTypes(OpKind::kAdd, {F32({3}), F32({4})}, {}, {});
  EXPECT_FALSE(bcast.ok());
  Attributes bad;
  bad.Set("eq", std::string("ii,ij->j"));
  EXPECT_FALSE(InferResultTypes(OpKind::kEinsum, {F32({2, 2}), F32({2, 3})}, bad, {}).ok());
  Attributes reshape;
  reshape.Set("shape", std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_FALSE(InferResultTypes(OpKind::kReshape, {F32({4})}, reshape, {}).ok());
}

TEST(Cost, FormulasOnSmallOps) {
  GraphBuilder b("cost");
  ValueId x = b.Input("x", DType::kBF16, {2, 10, 64});
  ValueId y = b.Linear("proj", x, 32);  // 2 * (2*10) * 64 * 32 = 81,920 FLOPs; bias adds 2*10*32 = 640
  ValueId q = b.Reshape("q", y, {2, 10, 4, 8});
  ValueId o = b.Attention("attn", q, q, q, "self");  // 4 * B H Lq Lk D = 4*2*4*10*10*8 = 25,600
  b.Output(o);
  Graph g = b.Finish();
  OpCost linear = ComputeOpCost(g, g.op(0));
  EXPECT_EQ(linear.matmul.value(), 81'920);
  EXPECT_EQ(linear.other.value(), 640);
  // Reads x (2*10*64*2 B) + W (64*32*2 B) + b (32*2 B); writes 2*10*32*2 B.
  EXPECT_EQ(linear.bytes_read.value(), 2560 + 4096 + 64);
  EXPECT_EQ(linear.bytes_written.value(), 1280);
  OpCost attention = ComputeOpCost(g, g.op(2));
  EXPECT_EQ(attention.attention.value(), 25'600);
  EXPECT_EQ(attention.other.value(), 5 * 2 * 4 * 10 * 10);
  EXPECT_EQ(ComputeOpCost(g, g.op(1)).total_flops().value(), 0);  // reshape
}

}  // namespace
}  // namespace az::pir
