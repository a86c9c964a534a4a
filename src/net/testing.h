// Test helpers for the collective model (header-only; tests only).
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "net/model.h"

namespace az::net_test {

// A collective of `kind` and `bytes` over replica groups written as text
// ("[2,4]<=[8]", "{{0,1},{2,3}}") on `devices` logical devices.
inline net::Collective Make(net::CollectiveKind kind, int64_t bytes, const char* groups, int devices) {
  net::Collective c;
  c.kind = kind;
  c.bytes = Bytes(bytes);
  auto g = net::ParseReplicaGroups(groups, devices);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (g.ok()) c.groups = *g;
  return c;
}

// Price with the explanation (algorithm notes, channel loads); an error is a
// test failure.
inline net::CollectiveResult Price(net::CollectiveModel& m, const net::Collective& c, const net::Placement& p) {
  auto r = m.Price(c, p, /*explain=*/true);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : net::CollectiveResult();
}

}  // namespace az::net_test
