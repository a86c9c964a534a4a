// A picture of a topology as a standalone SVG document (a pure function of the
// topology and the overlay: no files, no clock, so tests can read it).
//
// Tori: chips as boxes on their (x, y) grid, one panel per z-plane side by side;
// neighbour links as straight lines, wraparound links as arcs. GPU systems: each
// node's GPUs in a row below its switch, rail switches in a row under all nodes.
// Anything else (custom JSON): chips on a circle, switches in a row below.
// Failed links and chips are dashed red.
//
// The overlay (emit/placement_svg.h fills it from a placement and a simulated
// step) adds, all optional:
//   title          a first line above the topology's own description;
//   chip_labels    a second line inside a chip's box ("r3"); a labelled chip is
//                  filled darker (class "placed");
//   channel_loads  per directed channel a load in [0, 1]. A link with load on
//                  either channel is drawn as two lanes, one per direction,
//                  each on the right-hand side of its direction of travel (as
//                  traffic drives on the right), its width 2 + 6 * load px and
//                  its colour from yellow (light) to red (1 = the busiest); an
//                  idle lane of a loaded link is a thin grey line, and links
//                  idle both ways keep their plain look. A legend explains it;
//   caption        lines of text under the drawing.
// An empty overlay gives exactly the plain picture.
//
// Elements carry classes tests and stylesheets can select: "chip", "switch",
// "link", "wrap" (wraparound arcs), "failed", and with an overlay "placed",
// "rank" (a chip label), "lane" (one channel's load; attribute data-channel),
// "idle", "legend", "caption". With channel loads, links drawn whole carry
// data-link and every link or lane element an explicit stroke-width.
#pragma once

#include <string>
#include <vector>

#include "hw/topology.h"

namespace az::hw {

struct SvgOverlay {
  std::string title;
  std::vector<std::string> chip_labels;  // empty, or one per chip ("" = none)
  std::vector<double> channel_loads;     // empty, or one per channel; clamped to [0, 1]
  std::vector<std::string> caption;
};

std::string TopologySvg(const Topology& topology);
// The sizes of chip_labels and channel_loads must be 0 or num_chips() and
// num_channels() (a caller's bug otherwise: checked).
std::string TopologySvg(const Topology& topology, const SvgOverlay& overlay);

}  // namespace az::hw
