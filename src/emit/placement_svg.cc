// PlacementSvg: the overlay from the placement (labels) and the step's link
// loads (normalized lanes and a caption), then hw::TopologySvg.
#include "emit/placement_svg.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hw/topology_svg.h"
#include "support/status.h"
#include "support/units.h"

namespace az::emit {
namespace {

// Whole percent; a share of traffic that rounds to 0% is "<1%", not "0%".
std::string Percent(double share) {
  long rounded = std::lround(100 * share);
  return share > 0 && rounded == 0 ? "<1%" : std::to_string(rounded) + "%";
}

// Bytes of a LinkLoad are a double (summed over collectives); whole bytes are
// what they count.
std::string LoadBytes(double bytes) { return FormatBytes(Bytes(static_cast<int64_t>(std::llround(bytes)))); }

}  // namespace

std::string PlacementSvg(const hw::Topology& topology, const net::Placement& placement,
                         const std::vector<price::LinkLoad>& loads, const std::string& title) {
  hw::SvgOverlay overlay;
  overlay.title = title;

  overlay.chip_labels.assign(static_cast<size_t>(topology.num_chips()), "");
  int used = 0;
  for (size_t rank = 0; rank < placement.size(); ++rank) {
    int chip = placement[rank];
    AZ_CHECK_MSG(chip >= 0 && chip < topology.num_chips(), "placement names chip " + std::to_string(chip));
    std::string& label = overlay.chip_labels[static_cast<size_t>(chip)];
    used += label.empty();
    label += (label.empty() ? "r" : ",r") + std::to_string(rank);
  }

  double max_busy = 0;
  for (const price::LinkLoad& load : loads) {
    AZ_CHECK_MSG(load.channel >= 0 && load.channel < topology.num_channels(),
                 "link load names channel " + std::to_string(load.channel));
    max_busy = std::max(max_busy, load.busy.value());
  }
  overlay.channel_loads.assign(static_cast<size_t>(topology.num_channels()), 0.0);
  if (max_busy > 0) {
    for (const price::LinkLoad& load : loads) {
      overlay.channel_loads[static_cast<size_t>(load.channel)] = load.busy.value() / max_busy;
    }
  }

  overlay.caption.push_back(std::to_string(placement.size()) + " logical ranks on " + std::to_string(used) + " of " +
                            std::to_string(topology.num_chips()) + " chips");
  std::vector<const price::LinkLoad*> busiest;
  for (const price::LinkLoad& load : loads) {
    if (load.busy.value() > 0) busiest.push_back(&load);
  }
  std::stable_sort(busiest.begin(), busiest.end(), [](const price::LinkLoad* x, const price::LinkLoad* y) {
    if (x->busy != y->busy) return x->busy > y->busy;
    return x->channel < y->channel;
  });
  if (busiest.size() > static_cast<size_t>(kBusiestLinks)) busiest.resize(static_cast<size_t>(kBusiestLinks));
  if (busiest.empty()) {
    overlay.caption.push_back("no link traffic");
  } else {
    overlay.caption.push_back("busiest links (busy time, share of the busiest, bytes):");
  }
  for (const price::LinkLoad* load : busiest) {
    std::string name = load->name.empty() ? topology.ChannelName(load->channel) : load->name;
    overlay.caption.push_back(name + ": " + FormatSeconds(load->busy) + ", " +
                              Percent(load->busy.value() / max_busy) + ", " + LoadBytes(load->bytes));
  }
  return hw::TopologySvg(topology, overlay);
}

}  // namespace az::emit
