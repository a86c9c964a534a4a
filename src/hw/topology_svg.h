// A picture of a topology as a standalone SVG document (a pure function of the
// topology: no files, no clock, so tests can read it).
//
// Tori: chips as boxes on their (x, y) grid, one panel per z-plane side by side;
// neighbour links as straight lines, wraparound links as arcs. GPU systems: each
// node's GPUs in a ring around its switch, rail switches in a row below.
// Anything else (custom JSON): chips on a circle, switches in a row below.
// Failed links and chips are dashed red.
//
// Elements carry classes tests and stylesheets can select: "chip", "switch",
// "link", "wrap" (wraparound arcs), "failed".
#pragma once

#include <string>

#include "hw/topology.h"

namespace az::hw {

std::string TopologySvg(const Topology& topology);

}  // namespace az::hw
