// FormatIotaReplicaGroups skips candidates that cannot match (collective.cc);
// this checks it against the exhaustive search it replaced, on every iota and
// transposed-iota layout up to 64 devices and on shuffled groups.
#include "cir/collective.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace az::cir {
namespace {

// Every 2-D transpose tried, each expanded by ParseReplicaGroups.
std::string ExhaustiveIota(const ReplicaGroups& groups) {
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

TEST(CirCollective, FastIotaSearchMatchesExhaustiveSearch) {
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
        EXPECT_EQ(iota, ExhaustiveIota(*parsed));
        found += !iota.empty();
        // A shuffle usually has no iota form; both searches must agree.
        ReplicaGroups shuffled = *parsed;
        for (auto& g : shuffled.groups) std::shuffle(g.begin(), g.end(), rng);
        EXPECT_EQ(FormatIotaReplicaGroups(shuffled), ExhaustiveIota(shuffled));
      }
    }
  }
  EXPECT_GT(found, 500);
  ReplicaGroups odd{{{3}, {1}, {2}}};
  EXPECT_EQ(FormatIotaReplicaGroups(odd), ExhaustiveIota(odd));
  ReplicaGroups negative{{{0, -1}, {2, 3}}};
  EXPECT_EQ(FormatIotaReplicaGroups(negative), "");
}

}  // namespace
}  // namespace az::cir
