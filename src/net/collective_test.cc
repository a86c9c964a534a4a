#include "net/collective.h"

#include <gtest/gtest.h>

namespace az::net {
namespace {

// `text` parsed as the replica groups of `n` devices, printed back by `format`;
// the error message when it does not parse.
template <typename Format>
std::string Reformat(const char* text, int n, Format format) {
  auto groups = ParseReplicaGroups(text, n);
  return groups.ok() ? format(*groups) : groups.status().ToString();
}

std::string Explicit(const char* text, int n) { return Reformat(text, n, FormatReplicaGroups); }
std::string Iota(const char* text, int n) { return Reformat(text, n, FormatIotaReplicaGroups); }

TEST(ReplicaGroups, IotaFormExpandsLikeXla) {
  // reference/formats.md §3.5: mesh x=2, y=4, device = 4x + y.
  // [4,2]<=[2,4]T(1,0): iota(8) as 2x4, transposed, cut in 4 groups of 2: groups vary x.
  EXPECT_EQ(Explicit("[4,2]<=[2,4]T(1,0)", 8), "{{0,4},{1,5},{2,6},{3,7}}");
  // [2,4]<=[8]: groups vary y.
  EXPECT_EQ(Explicit("[2,4]<=[8]", 8), "{{0,1,2,3},{4,5,6,7}}");
  // Three dims: [2,2,2] transposed (2,1,0): id = x + 2y + 4z read z fastest.
  EXPECT_EQ(Explicit("[1,8]<=[2,2,2]T(2,1,0)", 8), "{{0,4,2,6,1,5,3,7}}");
}

TEST(ReplicaGroups, FormatsBackToIota) {
  EXPECT_EQ(Iota("{{0,4},{1,5},{2,6},{3,7}}", 8), "[4,2]<=[2,4]T(1,0)");
  EXPECT_EQ(Iota("0,1;2,3", 4), "[2,2]<=[4]");
  EXPECT_EQ(Iota("{{0},{1,2,3}}", 4), "");  // ragged: no iota form
}

TEST(ReplicaGroups, BadInputIsAClearError) {
  auto expect_error = [](const char* text, int n, const char* fragment) {
    auto g = ParseReplicaGroups(text, n);
    ASSERT_FALSE(g.ok()) << text;
    EXPECT_NE(g.status().message().find(fragment), std::string::npos) << g.status().message();
  };
  expect_error("{{0,1},{1,2}}", 3, "device 1 is in two groups");
  expect_error("{{0,1},{2,9}}", 4, "device 9 is out of range");
  expect_error("{{0,1}}", 4, "cover 2 of the 4");
  expect_error("{{0,1},{2,3}", 4, "expected");
  expect_error("[4,2]<=[2,4]T(1,1)", 8, "not a permutation");
  expect_error("[3,2]<=[8]", 8, "does not hold 8");
  expect_error("{{}}", 2, "empty group");
  expect_error("{{0,-1}}", 2, "non-negative");
  expect_error("[2,2]<=[4] junk", 4, "unexpected text");
  EXPECT_TRUE(ParseReplicaGroups("{{0,1}}", 4, /*allow_partial=*/true).ok());
}

TEST(Permute, PairsAndErrors) {
  auto p = ParsePermutePairs("0->1,1->2,2->3,3->0", 4);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->size(), 4u);
  auto braces = ParsePermutePairs("{{0,1},{1,0}}", 2);
  ASSERT_TRUE(braces.ok());
  EXPECT_EQ((*braces)[1], std::make_pair(1, 0));
  EXPECT_FALSE(ParsePermutePairs("0->1,0->2", 4).ok());  // a device sends twice
  EXPECT_FALSE(ParsePermutePairs("0->7", 4).ok());
  EXPECT_FALSE(ParsePermutePairs("", 4).ok());
}

TEST(Placement, MustBeAPermutationOfChips) {
  EXPECT_TRUE(ParsePlacement("3,1,0,2", 4).ok());
  auto dup = ParsePlacement("0,0,1,2", 4);
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("not a permutation"), std::string::npos);
  auto range = ParsePlacement("0,1,9", 4);
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.status().message().find("chip 9"), std::string::npos);
  EXPECT_FALSE(ParsePlacement("0,x", 4).ok());
  EXPECT_EQ(IdentityPlacement(3), (Placement{0, 1, 2}));
}

TEST(CollectiveKind, Names) {
  EXPECT_EQ(*ParseCollectiveKind("all-to-all"), CollectiveKind::kAllToAll);
  EXPECT_EQ(CollectiveKindName(CollectiveKind::kCollectivePermute), "collective-permute");
  EXPECT_FALSE(ParseCollectiveKind("allreduce").ok());
}

}  // namespace
}  // namespace az::net
