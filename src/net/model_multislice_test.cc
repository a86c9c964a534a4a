// Collectives on multi-slice TPU systems (model_multislice.cc): groups inside
// one slice price as on the slice alone; groups spanning slices cross DCN
// through their hosts' NICs. Every expected time is derived in its comment
// from the catalog (hw/catalog.cc, hw/chip.cc) and the calibration defaults
// (net/calibration.h).
#include <gtest/gtest.h>

#include "hw/testing.h"
#include "net/testing.h"
#include "net/model.h"

namespace az::net {
namespace {

using hw_test::Topo;

using net_test::Make;
using net_test::Price;

Placement Shifted(int n, int first) {
  Placement p(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) p[static_cast<size_t>(i)] = first + i;
  return p;
}

// Figures of a route between slices on v5e (catalog.cc, chip.cc):
//   chip -> host: PCIe host link 1.6e10 B/s x link efficiency 0.75 (pcie) = 1.2e10 B/s, 0.5 us;
//   host -> DCN -> host: the NIC, 2 x 100 Gbps = 2.5e10 B/s (dcn efficiency 1.0), 125 us per link;
//   so a route crosses 0.5 + 125 + 125 + 0.5 = 251 us.
constexpr double kPcie = 1.6e10 * 0.75;
constexpr double kNic = 2.5e10;
constexpr double kRouteLatency = 251e-6;

// A group inside one slice prices exactly as on that slice alone, in either
// slice: the multi-slice branch returns nothing and the torus algorithm runs
// on the same links, latencies and calibration.
TEST(MultiSlice, SingleSliceGroupsPriceAsOnOneSlice) {
  hw::Topology one = Topo("v5e:2x4");
  hw::Topology two = Topo("v5e:2x4*2");
  CollectiveModel single(one, DefaultCalibration(one));
  CollectiveModel multi(two, DefaultCalibration(two));
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                              CollectiveKind::kAllToAll}) {
    for (const char* groups : {"[1,8]<=[8]", "[2,4]<=[8]", "[4,2]<=[2,4]T(1,0)"}) {
      Collective c = Make(kind, 48'000'000, groups, 8);
      CollectiveResult expected = Price(single, c, IdentityPlacement(8));
      EXPECT_EQ(Price(multi, c, IdentityPlacement(8)).time.value(), expected.time.value()) << groups;
      EXPECT_EQ(Price(multi, c, Shifted(8, 8)).time.value(), expected.time.value()) << groups << " in slice 1";
      EXPECT_EQ(Price(multi, c, IdentityPlacement(8)).algorithm, expected.algorithm);
    }
  }
}

// Two chips in different slices of v5e:2x2*2 (each slice one 4-chip host)
// all-reduce V = 12 MB, under the default TPU calibration (base 2.55 us per
// collective, no per-step latency). One member per slice, so no ICI stage: a
// DCN ring of two, a reduce-scatter phase then an all-gather phase, each
// member sending V/2 = 6e6 B per phase to the other. Per phase the PCIe host
// link is the bottleneck: 6e6 / 1.2e10 = 500 us (the NIC: 6e6 / 2.5e10 =
// 240 us); one step of the 251 us route. Total 2.55 + 2 x (251 + 500) = 1504.55 us.
TEST(MultiSlice, DcnAllReduceOfTwoChipsByHand) {
  hw::Topology t = Topo("v5e:2x2*2");
  CollectiveModel m(t, DefaultCalibration(t));
  Collective ar = Make(CollectiveKind::kAllReduce, 12'000'000, "{{0,1}}", 2);
  CollectiveResult r = Price(m, ar, Placement{0, 4});
  EXPECT_NEAR(r.time.value(), 2.55e-6 + 2 * (kRouteLatency + 6e6 / kPcie), 1e-12);
  EXPECT_NEAR(r.time.value(), 1504.55e-6, 1e-12);
  EXPECT_EQ(r.algorithm, "hierarchical: ici + dcn ring");
  EXPECT_EQ(hw::LinkClassName(t.channel_link(r.bottleneck_channel).cls), "pcie");
}

// The same all-reduce in four pairs at once ({0,4}, {1,5}, {2,6}, {3,7}): the
// four chips of each host share its NIC. Per phase the NIC carries 4 x 6e6 =
// 2.4e7 B: 2.4e7 / 2.5e10 = 960 us, over each chip's PCIe 500 us: the NIC
// bounds it. Total 2.55 + 2 x (251 + 960) = 2424.55 us.
TEST(MultiSlice, HostNicIsShared) {
  hw::Topology t = Topo("v5e:2x2*2");
  CollectiveModel m(t, DefaultCalibration(t));
  Collective ar = Make(CollectiveKind::kAllReduce, 12'000'000, "{{0,4},{1,5},{2,6},{3,7}}", 8);
  CollectiveResult r = Price(m, ar, IdentityPlacement(8));
  EXPECT_NEAR(r.time.value(), 2.55e-6 + 2 * (kRouteLatency + 4 * 6e6 / kNic), 1e-12);
  EXPECT_NEAR(r.time.value(), 2424.55e-6, 1e-12);
  EXPECT_EQ(hw::LinkClassName(t.channel_link(r.bottleneck_channel).cls), "dcn");
}

// All eight chips of v5e:2x2*2 all-reduce V = 1e8 B hierarchically: each
// slice's reduce-scatter and all-gather are its torus algorithm (priced here on
// v5e:2x2 alone), and between them the counterparts {0,4}, {1,5}, {2,6},
// {3,7} all-reduce V/4 over DCN: a ring of two, each member sending V/8 =
// 1.25e7 B per phase; a host's NIC carries 4 x 1.25e7 = 5e7 B per phase:
// 5e7 / 2.5e10 = 2 ms (PCIe: 1.25e7 / 1.2e10 = 1.04 ms). With the base cost
// counted once: T = T_rs(slice) + T_ag(slice) - base + 2 x (251 us + 2 ms).
// The hierarchical form beats the ring over the slices, whose edge between
// the slices carries 7/8 V per phase.
TEST(MultiSlice, HierarchicalAllReduceIsSliceStagesPlusDcn) {
  hw::Topology t = Topo("v5e:2x2*2");
  hw::Topology slice = Topo("v5e:2x2");
  CollectiveModel m(t, DefaultCalibration(t));
  CollectiveModel one(slice, DefaultCalibration(slice));
  const int64_t v = 100'000'000;
  CollectiveResult r = Price(m, Make(CollectiveKind::kAllReduce, v, "[1,8]<=[8]", 8), IdentityPlacement(8));
  double rs = Price(one, Make(CollectiveKind::kReduceScatter, v, "[1,4]<=[4]", 4), IdentityPlacement(4)).time.value();
  double ag = Price(one, Make(CollectiveKind::kAllGather, v, "[1,4]<=[4]", 4), IdentityPlacement(4)).time.value();
  const double base = 2.55e-6;
  EXPECT_NEAR(r.time.value(), rs + ag - base + 2 * (kRouteLatency + 4 * (v / 8.0) / kNic), 1e-9);
  EXPECT_EQ(r.algorithm, "hierarchical: ici + dcn ring");
  // All-to-all between slices is routed over DCN: each of the 8 members sends
  // V/8 to each of the 4 members of the other slice, so a host's NIC carries
  // 4 x 4 x V/64 = V/4 out (the busiest link: 2.5e7 / 2.5e10 = 1 ms).
  CollectiveResult a2a = Price(m, Make(CollectiveKind::kAllToAll, v / 8, "[1,8]<=[8]", 8), IdentityPlacement(8));
  EXPECT_EQ(hw::LinkClassName(t.channel_link(a2a.bottleneck_channel).cls), "dcn");
  EXPECT_NEAR(a2a.max_channel_bytes, 4.0 * 4.0 * (v / 8.0) / 8.0, 1e-3);
}

// The placement search's hot path (Time, memoized) prices what Price does, for
// groups spanning slices and groups inside one, in any member order.
TEST(MultiSlice, TimeAgreesWithPrice) {
  hw::Topology t = Topo("v5e:2x2*2");
  CollectiveModel m(t, DefaultCalibration(t));
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                              CollectiveKind::kAllToAll}) {
    for (const char* groups : {"[1,8]<=[8]", "[2,4]<=[8]", "[4,2]<=[2,4]T(1,0)", "{{0,5},{1,4},{2,7},{3,6}}"}) {
      for (const Placement& p : {IdentityPlacement(8), Placement{7, 2, 5, 0, 3, 6, 1, 4}}) {
        Collective c = Make(kind, 24'000'000, groups, 8);
        EXPECT_EQ(m.Time(c, p).value(), Price(m, c, p).time.value()) << groups;
        EXPECT_EQ(m.Time(c, p).value(), Price(m, c, p).time.value()) << groups << " (memoized)";
      }
    }
  }
}

// Groups that hold different numbers of members in each slice cannot run the
// hierarchical form: the ring over the slices prices them.
TEST(MultiSlice, UnevenGroupsRingOverSlices) {
  hw::Topology t = Topo("v5e:2x2*2");
  CollectiveModel m(t, DefaultCalibration(t));
  CollectiveResult r = Price(m, Make(CollectiveKind::kAllGather, 3'000'000, "{{0,1,2}}", 3), Placement{0, 1, 4});
  EXPECT_EQ(r.algorithm, "ring over slices (ici + dcn)");
}

}  // namespace
}  // namespace az::net
