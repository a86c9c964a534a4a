// A placement and its traffic, drawn on the topology: which logical rank runs on
// which chip, and how loaded each link direction was in a simulated step.
//
// Built on hw::TopologySvg's overlay (hw/topology_svg.h says how it is drawn):
//   labels   each chip shows the logical rank(s) placed on it, "r3" (several,
//            in increasing order, "r3,r11", should a placement ever share a
//            chip); chips no rank uses stay unlabelled;
//   loads    per directed channel, busy / max busy over the step's LinkLoads
//            (price::SimResult::links): the busiest channel is 1, channels
//            without traffic 0. Busy time rather than bytes, so a slow link
//            with fewer bytes can still be the bottleneck it is;
//   caption  the busiest channels (up to kBusiestLinks, by busy time, ties in
//            channel order) with busy time, share of the busiest and bytes, and
//            how many chips the placement uses; "no link traffic" when none.
// A pure function: the same inputs give the same text.
#pragma once

#include <string>
#include <vector>

#include "hw/topology.h"
#include "net/collective.h"
#include "price/simulator.h"

namespace az::emit {

inline constexpr int kBusiestLinks = 3;

// `placement` maps logical rank -> chip (each a chip of `topology`); `loads`
// name channels of `topology`. Both are checked (a caller's bug otherwise).
std::string PlacementSvg(const hw::Topology& topology, const net::Placement& placement,
                         const std::vector<price::LinkLoad>& loads, const std::string& title);

}  // namespace az::emit
