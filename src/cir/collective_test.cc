// FormatIotaReplicaGroups recovers the iota form directly (collective.cc):
// checked against an exhaustive search over 2-D forms, and on random N-D
// transposed iotas, whose form it must find and print back compactly.
#include "cir/collective.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace az::cir {
namespace {

// Plain iota, then every 2-D transpose, each expanded by ParseReplicaGroups.
std::string Exhaustive2dIota(const ReplicaGroups& groups) {
  if (groups.groups.empty()) return "";
  size_t size = groups.groups[0].size();
  int total = 0;
  for (const auto& g : groups.groups) {
    if (g.size() != size) return "";
    total += static_cast<int>(g.size());
  }
  std::string shape = "[" + std::to_string(groups.groups.size()) + "," + std::to_string(size) + "]<=";
  auto matches = [&](const std::string& text) {
    auto parsed = ParseReplicaGroups(text, total);
    return parsed.ok() && *parsed == groups;
  };
  std::string plain = shape + "[" + std::to_string(total) + "]";
  if (matches(plain)) return plain;
  for (int a = 2; a < total; ++a) {
    if (total % a) continue;
    std::string t = shape + "[" + std::to_string(a) + "," + std::to_string(total / a) + "]T(1,0)";
    if (matches(t)) return t;
  }
  return "";
}

// The form found parses back to the same groups and is a fixed point.
void ExpectFaithful(const ReplicaGroups& groups, const std::string& iota) {
  if (iota.empty()) return;
  int total = 0;
  for (const auto& g : groups.groups) total += static_cast<int>(g.size());
  StatusOr<ReplicaGroups> parsed = ParseReplicaGroups(iota, total);
  ASSERT_TRUE(parsed.ok()) << iota << ": " << parsed.status().message();
  EXPECT_EQ(*parsed, groups) << iota;
  EXPECT_EQ(FormatIotaReplicaGroups(*parsed), iota);
}

TEST(CirCollective, IotaSearchAgreesWithExhaustive2dSearch) {
  std::mt19937 rng(5);
  int found = 0;
  for (int total = 1; total <= 64; ++total) {
    for (int groups = 1; groups <= total; ++groups) {
      if (total % groups) continue;
      std::string shape = "[" + std::to_string(groups) + "," + std::to_string(total / groups) + "]<=";
      std::vector<std::string> layouts = {shape + "[" + std::to_string(total) + "]"};
      for (int a = 1; a <= total; ++a) {
        if (total % a) continue;
        layouts.push_back(shape + "[" + std::to_string(a) + "," + std::to_string(total / a) + "]T(1,0)");
      }
      for (const std::string& layout : layouts) {
        SCOPED_TRACE(layout);
        StatusOr<ReplicaGroups> parsed = ParseReplicaGroups(layout, total);
        ASSERT_TRUE(parsed.ok()) << parsed.status().message();
        std::string iota = FormatIotaReplicaGroups(*parsed);
        EXPECT_EQ(iota, Exhaustive2dIota(*parsed));
        found += !iota.empty();
        // A shuffle usually has no 2-D form, and may have an N-D one.
        ReplicaGroups shuffled = *parsed;
        for (auto& g : shuffled.groups) std::shuffle(g.begin(), g.end(), rng);
        std::string shuffled_iota = FormatIotaReplicaGroups(shuffled);
        std::string exhaustive = Exhaustive2dIota(shuffled);
        if (!exhaustive.empty()) {
          EXPECT_EQ(shuffled_iota, exhaustive);
        }
        ExpectFaithful(shuffled, shuffled_iota);
      }
    }
  }
  EXPECT_GT(found, 500);
  EXPECT_EQ(FormatIotaReplicaGroups(ReplicaGroups{{{0}}}), "[1,1]<=[1]");
  EXPECT_EQ(FormatIotaReplicaGroups(ReplicaGroups{{{3}, {1}, {2}}}), "");
  EXPECT_EQ(FormatIotaReplicaGroups(ReplicaGroups{{{0, -1}, {2, 3}}}), "");
  EXPECT_EQ(FormatIotaReplicaGroups(ReplicaGroups{{{0, 1}, {1, 0}}}), "");
  EXPECT_EQ(FormatIotaReplicaGroups(ReplicaGroups{{{0, 1}, {2}}}), "");
  EXPECT_EQ(FormatIotaReplicaGroups(ReplicaGroups{{}}), "");
}

TEST(CirCollective, FindsTransposedIotaOfAnyRank) {
  EXPECT_EQ(FormatIotaReplicaGroups(*ParseReplicaGroups("[1,8]<=[2,2,2]T(2,1,0)", 8)), "[1,8]<=[2,2,2]T(2,1,0)");
  EXPECT_EQ(FormatIotaReplicaGroups(*ParseReplicaGroups("[6,10]<=[3,4,5]T(0,2,1)", 60)), "[6,10]<=[3,4,5]T(0,2,1)");
  // Dims adjacent in both orders merge: the form has the fewest dims.
  EXPECT_EQ(FormatIotaReplicaGroups(*ParseReplicaGroups("[2,4]<=[2,4]", 8)), "[2,4]<=[8]");
  EXPECT_EQ(FormatIotaReplicaGroups(*ParseReplicaGroups("[4,6]<=[2,3,4]T(2,0,1)", 24)), "[4,6]<=[6,4]T(1,0)");
  EXPECT_EQ(FormatIotaReplicaGroups(*ParseReplicaGroups("[4,6]<=[2,3,4]T(1,2,0)", 24)), "[4,6]<=[2,12]T(1,0)");
  EXPECT_EQ(FormatIotaReplicaGroups(*ParseReplicaGroups("[4,6]<=[2,3,4]T(2,1,0)", 24)), "[4,6]<=[2,3,4]T(2,1,0)");

  std::mt19937 rng(9);
  for (int trial = 0; trial < 2000; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 6);
    std::vector<int> dims(rank);
    int total = 1;
    for (int& d : dims) {
      d = 1 + static_cast<int>(rng() % 5);
      total *= d;
    }
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int> divisors;
    for (int g = 1; g <= total; ++g) {
      if (total % g == 0) divisors.push_back(g);
    }
    int groups = divisors[rng() % divisors.size()];
    std::string text = "[" + std::to_string(groups) + "," + std::to_string(total / groups) + "]<=[";
    for (int i = 0; i < rank; ++i) text += (i ? "," : "") + std::to_string(dims[i]);
    text += "]T(";
    for (int i = 0; i < rank; ++i) text += (i ? "," : "") + std::to_string(perm[i]);
    text += ")";
    SCOPED_TRACE(text);
    StatusOr<ReplicaGroups> parsed = ParseReplicaGroups(text, total);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    std::string iota = FormatIotaReplicaGroups(*parsed);
    ASSERT_FALSE(iota.empty());
    ExpectFaithful(*parsed, iota);
    // Never more dims than the input's dims of size > 1 (at least one).
    auto above_one = [](int d) { return d > 1; };
    int input_rank = std::max(1, static_cast<int>(std::count_if(dims.begin(), dims.end(), above_one)));
    size_t dims_begin = iota.find("<=[") + 3;
    size_t dims_end = iota.find(']', dims_begin);
    int output_rank = 1 + static_cast<int>(std::count(iota.begin() + dims_begin, iota.begin() + dims_end, ','));
    EXPECT_LE(output_rank, input_rank);
  }
}

}  // namespace
}  // namespace az::cir
