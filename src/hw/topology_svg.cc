// TopologySvg: node positions per layout (torus grid, GPU nodes and rails, or a
// circle), then one pass drawing links under nodes, then the overlay's legend
// and caption. Coordinates are whole pixels and widths one decimal, so the
// output is stable text.
#include "hw/topology_svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "support/status.h"

namespace az::hw {
namespace {

struct Point {
  double x = 0, y = 0;
};

constexpr double kPi = std::numbers::pi;
constexpr double kMargin = 40;
constexpr double kTitle = 30;
constexpr double kCell = 60;      // torus grid pitch
constexpr double kBox = 36;       // chip box side
constexpr double kSwitchW = 80;   // switch box
constexpr double kSwitchH = 28;

std::string Num(double v) { return std::to_string(static_cast<long long>(std::lround(v))); }

std::string Escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

struct Layout {
  std::vector<Point> pos;  // per node
  double width = 0, height = 0;
};

// Tori: z-planes side by side; multi-slice systems put the slices' planes side
// by side too, each slice's hosts in a row under it and the DCN switch under all.
Layout TorusLayout(const Topology& t) {
  Layout layout;
  int columns = t.dims[0];
  int rows = t.dims.size() > 1 ? t.dims[1] : 1;
  int planes = t.dims.size() > 2 ? t.dims[2] : 1;
  const size_t rank = t.dims.size();
  double panel = columns * kCell + kCell;  // one spare cell between z-planes
  for (int id = 0; id < t.num_chips(); ++id) {
    const Node& node = t.nodes[static_cast<size_t>(id)];
    int x = node.coords.size() > 0 ? node.coords[0] : 0;
    int y = node.coords.size() > 1 && rank > 1 ? node.coords[1] : 0;
    int z = node.coords.size() > 2 && rank > 2 ? node.coords[2] : 0;
    int column = t.SliceOf(id) * planes + z;
    layout.pos.push_back({kMargin + column * panel + x * kCell + kCell / 2, kMargin + kTitle + y * kCell + kCell / 2});
  }
  const int slices = std::max(t.slices, 1);
  layout.width = 2 * kMargin + slices * planes * panel - kCell;
  layout.height = 2 * kMargin + kTitle + rows * kCell;
  const int switches = t.num_nodes() - t.num_chips();
  if (switches == 0) return layout;
  // Hosts ("sS/hostH") under their slice, the DCN switch last, centred.
  const double host_y = layout.height + kSwitchH / 2, dcn_y = host_y + 2 * kSwitchH + 20;
  const int hosts = switches - 1, per_slice = std::max(hosts / slices, 1);
  const double slice_width = planes * panel;
  for (int h = 0; h < hosts; ++h) {
    int slice = h / per_slice, index = h % per_slice;
    double step = slice_width / per_slice;
    layout.pos.push_back({kMargin + slice * slice_width + step * (index + 0.5), host_y});
  }
  layout.pos.push_back({layout.width / 2, dcn_y});
  layout.width = std::max(layout.width, 2 * kMargin + hosts * (kSwitchW + 10.0));
  layout.height = dcn_y + kSwitchH / 2 + kMargin;
  return layout;
}

// Each node a panel: its switch on top, its GPUs in a row below it (so NVLink
// lines fan out without crossing), and the rails in one row under all panels.
Layout GpuLayout(const Topology& t) {
  Layout layout;
  layout.pos.resize(t.nodes.size());
  const double pitch = kBox + 10;
  const double panel = t.gpus_per_node * pitch + 40;
  const double switch_y = kMargin + kTitle + kSwitchH / 2, gpu_y = switch_y + 90, rail_y = gpu_y + 130;
  for (int chip = 0; chip < t.num_chips(); ++chip) {
    int node = chip / t.gpus_per_node, gpu = chip % t.gpus_per_node;
    layout.pos[static_cast<size_t>(chip)] = {kMargin + node * panel + 20 + (gpu + 0.5) * pitch, gpu_y};
  }
  // Switches: the node switches first (as the catalog builds them), then rails.
  int node_switch = 0;
  std::vector<int> rails;
  for (int id = t.num_chips(); id < t.num_nodes(); ++id) {
    if (node_switch < t.gpu_nodes) {
      layout.pos[static_cast<size_t>(id)] = {kMargin + node_switch * panel + panel / 2, switch_y};
      ++node_switch;
    } else {
      rails.push_back(id);
    }
  }
  layout.width = std::max(2 * kMargin + t.gpu_nodes * panel, 2 * kMargin + rails.size() * (kSwitchW + 10));
  for (size_t r = 0; r < rails.size(); ++r) {
    double step = (layout.width - 2 * kMargin) / static_cast<double>(rails.size());
    layout.pos[static_cast<size_t>(rails[r])] = {kMargin + step * (static_cast<double>(r) + 0.5), rail_y};
  }
  layout.height = (rails.empty() ? gpu_y + kBox / 2 : rail_y + kSwitchH / 2) + kMargin;
  return layout;
}

Layout CircleLayout(const Topology& t) {
  Layout layout;
  layout.pos.resize(t.nodes.size());
  int chips = t.num_chips();
  double radius = std::max(100.0, chips * (kBox + 12) / (2 * kPi));
  Point center{kMargin + radius + kBox, kMargin + kTitle + radius + kBox};
  for (int chip = 0; chip < chips; ++chip) {
    double angle = 2 * kPi * chip / chips - kPi / 2;
    layout.pos[static_cast<size_t>(chip)] = {center.x + radius * std::cos(angle), center.y + radius * std::sin(angle)};
  }
  layout.width = 2 * (center.x);
  int switches = t.num_nodes() - chips;
  double row_y = center.y + radius + kBox + 60;
  for (int s = 0; s < switches; ++s) {
    layout.pos[static_cast<size_t>(chips + s)] = {kMargin + kSwitchW / 2 + s * (kSwitchW + 20), row_y};
  }
  layout.width = std::max(layout.width, 2 * kMargin + switches * (kSwitchW + 20));
  layout.height = (switches ? row_y + kSwitchH : center.y + radius + kBox) + kMargin;
  return layout;
}

// A curve's four control points: the two ends and the two handles.
using Curve = std::array<Point, 4>;

std::string CubicPath(const Curve& c) {
  return "M" + Num(c[0].x) + "," + Num(c[0].y) + " C" + Num(c[1].x) + "," + Num(c[1].y) + " " + Num(c[2].x) + "," +
         Num(c[2].y) + " " + Num(c[3].x) + "," + Num(c[3].y);
}

// Torus links that a straight line would draw across other chips, as curves
// (none: a straight line will do). A wrap leaves its last chip outward, runs in
// the gap beside its row (x: above; y: left) and enters chip 0 from outside. A
// z link joins two panels through the gap below its row, at a depth that varies
// with x so that the links of one row stay apart.
std::optional<Curve> TorusCurve(const Topology& t, const Link& link, Point a, Point b) {
  if (link.axis == 2) {
    int x = t.nodes[static_cast<size_t>(link.a)].coords.empty() ? 0 : t.nodes[static_cast<size_t>(link.a)].coords[0];
    double depth = (24 + 4 * (x % 5) + (link.wraparound ? 2 : 0)) * 4.0 / 3.0;  // a cubic peaks at 3/4 of it
    double out = link.wraparound ? kCell : kCell / 2;
    return Curve{a, Point{a.x + out, a.y + depth}, Point{b.x - out, b.y + depth}, b};
  }
  if (!link.wraparound) return std::nullopt;
  const double side = 40;  // peaks 30 px off the row: mid-gap between boxes 60 apart
  if (link.axis == 0) return Curve{a, Point{a.x + kCell, a.y - side}, Point{b.x - kCell, b.y - side}, b};
  if (link.axis == 1) return Curve{a, Point{a.x - side, a.y + kCell}, Point{b.x - side, b.y - kCell}, b};
  return std::nullopt;
}

// Overlay drawing constants: lane geometry and the heat scale.
constexpr double kLaneOffset = 5;    // px from the link's centre line: lanes of width 8 keep a gap
constexpr double kIdleWidth = 1.5;   // the plain link's width
constexpr double kLaneMinWidth = 2;  // a lane with any load is wider than idle
constexpr double kLaneGain = 6;      // px of width at load 1
constexpr double kHeader = 18;       // a second title line
constexpr double kLegend = 28;
constexpr double kCaptionLine = 14;
constexpr double kCharWidth = 5.5;  // rough width of a 10 px sans-serif glyph
constexpr double kTitleCharWidth = 8;

std::string Fixed1(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", v);
  return buffer;
}

double Clamp01(double load) { return std::isfinite(load) ? std::clamp(load, 0.0, 1.0) : 0.0; }

double LaneWidth(double load) { return kLaneMinWidth + kLaneGain * load; }

// A share as a whole percentage; a load that rounds to 0% but is drawn as a
// lane says "<1%" rather than contradict the picture.
std::string Percent(double load) {
  long rounded = std::lround(100 * load);
  return load > 0 && rounded == 0 ? "<1%" : std::to_string(rounded) + "%";
}

// Yellow (#f2c14e) at no load to red (#b0281a) at 1, linear in RGB.
std::string HeatColour(double load) {
  auto channel = [&](int from, int to) { return static_cast<int>(std::lround(from + (to - from) * load)); };
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "#%02x%02x%02x", channel(0xf2, 0xb0), channel(0xc1, 0x28),
                channel(0x4e, 0x1a));
  return buffer;
}

// A lane's stroke attributes (presentation attributes: the lane classes set no
// stroke in the stylesheet, so these apply); an idle lane is thin and grey.
std::string LanePaint(double load) {
  if (load <= 0) return "stroke=\"#bbb\" stroke-width=\"1.0\"";
  return "stroke=\"" + HeatColour(load) + "\" stroke-width=\"" + Fixed1(LaneWidth(load)) + "\"";
}

Point Shift(Point p, Point normal, double by) { return {p.x + normal.x * by, p.y + normal.y * by}; }

// The right-hand normal of travel from a to b in screen coordinates (y grows
// downwards, so heading +x the right-hand side is +y); zero when a == b.
Point RightNormal(Point a, Point b) {
  double dx = b.x - a.x, dy = b.y - a.y, length = std::hypot(dx, dy);
  if (length == 0) return {0, 0};
  return {-dy / length, dx / length};
}

// One channel of a loaded link: its lane beside the centre line, on the right
// of its direction of travel (channel 2l runs a->b, 2l+1 back).
std::string Lane(const Topology& t, int channel, double load, const std::optional<Curve>& curve, Point a, Point b,
                 bool failed) {
  bool forward = channel % 2 == 0;
  Point normal = forward ? RightNormal(a, b) : RightNormal(b, a);
  std::string cls = std::string(load > 0 ? "lane" : "lane idle") + (failed ? " failed" : "");
  std::string paint = LanePaint(load);
  std::string out;
  if (curve) {
    Curve shifted;
    for (size_t i = 0; i < shifted.size(); ++i) shifted[i] = Shift((*curve)[i], normal, kLaneOffset);
    out = "<path class=\"" + cls + "\" data-channel=\"" + std::to_string(channel) + "\" " + paint + " d=\"" +
          CubicPath(shifted) + "\">";
  } else {
    Point from = Shift(a, normal, kLaneOffset), to = Shift(b, normal, kLaneOffset);
    out = "<line class=\"" + cls + "\" data-channel=\"" + std::to_string(channel) + "\" " + paint + " x1=\"" +
          Num(from.x) + "\" y1=\"" + Num(from.y) + "\" x2=\"" + Num(to.x) + "\" y2=\"" + Num(to.y) + "\">";
  }
  out += "<title>" + Escape(t.ChannelName(channel)) + ": " + Escape(Percent(load)) + " of the busiest</title>";
  out += curve ? "</path>\n" : "</line>\n";
  return out;
}

// A sample lane and its label, for the legend.
std::string LegendSample(double x, double y, double load, const std::string& label) {
  std::string paint = LanePaint(load);
  return "<line class=\"legend\" " + paint + " x1=\"" + Num(x) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(x + 28) +
         "\" y2=\"" + Num(y) + "\"/>\n<text class=\"legend\" x=\"" + Num(x + 32) + "\" y=\"" + Num(y) + "\">" + label +
         "</text>\n";
}

}  // namespace

std::string TopologySvg(const Topology& t) { return TopologySvg(t, SvgOverlay{}); }

std::string TopologySvg(const Topology& t, const SvgOverlay& overlay) {
  AZ_CHECK(overlay.chip_labels.empty() || static_cast<int>(overlay.chip_labels.size()) == t.num_chips());
  AZ_CHECK(overlay.channel_loads.empty() || static_cast<int>(overlay.channel_loads.size()) == t.num_channels());
  bool torus = !t.dims.empty();
  bool gpu = !torus && t.gpu_nodes > 0 && t.gpus_per_node > 0 && t.num_chips() == t.gpu_nodes * t.gpus_per_node;
  Layout layout = torus ? TorusLayout(t) : gpu ? GpuLayout(t) : CircleLayout(t);
  const bool loads = !overlay.channel_loads.empty();
  const double header = overlay.title.empty() ? 0 : kHeader;

  std::string description = Escape(t.name) + ": " + Escape(t.chip.long_name) + ", " + std::to_string(t.num_chips()) +
                            " chips, " + std::to_string(t.links.size()) + " links";
  // The title's second line pushes the drawing down by `header`; the legend and
  // caption go under it, starting in its bottom margin, and widen the canvas
  // as their text needs.
  double width = layout.width, height = layout.height + header;
  double legend_y = header + layout.height - kMargin + 30;
  double caption_y = legend_y + (loads ? kLegend : 0);
  if (loads || !overlay.caption.empty()) height = caption_y + overlay.caption.size() * kCaptionLine + kMargin / 2;
  if (loads) width = std::max(width, 2 * kMargin + 440);
  for (const std::string& line : overlay.caption) width = std::max(width, 2 * kMargin + kCharWidth * line.size());
  width = std::max(width, 2 * kMargin + kTitleCharWidth * overlay.title.size());

  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(width) + "\" height=\"" + Num(height) +
         "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) + "\">\n";
  out +=
      "<style>\n"
      "  .chip { fill: #dbe8f8; stroke: #2b5797; stroke-width: 1.5; }\n"
      "  .switch { fill: #f3e2c7; stroke: #8a5a00; stroke-width: 1.5; }\n"
      "  .link { stroke: #555; stroke-width: 1.5; fill: none; }\n"
      "  .wrap { stroke: #2a8f4a; stroke-width: 1.5; fill: none; }\n"
      "  .network { stroke: #7a3fb0; }\n"
      "  .failed { stroke: #d00; stroke-dasharray: 5,4; }\n"
      "  text { font-family: sans-serif; font-size: 9px; text-anchor: middle; dominant-baseline: middle; }\n"
      "  .title { font-size: 14px; text-anchor: start; }\n";
  if (header > 0 || !overlay.chip_labels.empty() || loads || !overlay.caption.empty()) {
    out +=
        "  .subtitle, .legend, .caption { font-size: 10px; text-anchor: start; }\n"
        "  .placed { fill: #9cc3ee; }\n"
        "  .rank { font-weight: bold; }\n"
        "  .lane { fill: none; stroke-linecap: round; }\n";
  }
  out += "</style>\n";
  if (header > 0) {
    out += "<text class=\"title\" x=\"" + Num(kMargin) + "\" y=\"" + Num(kMargin / 2 + 4) + "\">" +
           Escape(overlay.title) + "</text>\n";
    out += "<text class=\"subtitle\" x=\"" + Num(kMargin) + "\" y=\"" + Num(kMargin / 2 + 4 + header) + "\">" +
           description + "</text>\n";
    out += "<g transform=\"translate(0," + Num(header) + ")\">\n";
  } else {
    out += "<text class=\"title\" x=\"" + Num(kMargin) + "\" y=\"" + Num(kMargin / 2 + 4) + "\">" + description +
           "</text>\n";
  }

  for (int l = 0; l < static_cast<int>(t.links.size()); ++l) {
    const Link& link = t.links[static_cast<size_t>(l)];
    const Point& a = layout.pos[static_cast<size_t>(link.a)];
    const Point& b = layout.pos[static_cast<size_t>(link.b)];
    bool failed = !t.LinkAlive(l);
    std::optional<Curve> curve = torus ? TorusCurve(t, link, a, b) : std::nullopt;
    if (loads) {
      double forward = Clamp01(overlay.channel_loads[static_cast<size_t>(2 * l)]);
      double backward = Clamp01(overlay.channel_loads[static_cast<size_t>(2 * l + 1)]);
      if (forward > 0 || backward > 0) {
        out += Lane(t, 2 * l, forward, curve, a, b, failed);
        out += Lane(t, 2 * l + 1, backward, curve, a, b, failed);
        continue;
      }
    }
    // With loads, an idle link says which it is and how wide it is drawn, so
    // that readers (and tests) compare it with the lanes.
    std::string extra = loads ? " data-link=\"" + std::to_string(l) + "\" stroke-width=\"" + Fixed1(kIdleWidth) + "\""
                              : "";
    std::string failed_class = failed ? " failed" : "";
    if (curve) {
      out += "<path class=\"" + std::string(link.wraparound ? "wrap" : "link") + failed_class + "\"" + extra +
             " d=\"" + CubicPath(*curve) + "\"/>\n";
      continue;
    }
    std::string cls = link.cls == LinkClass::kNetwork || link.cls == LinkClass::kDcn ? "link network" : "link";
    out += "<line class=\"" + cls + failed_class + "\"" + extra + " x1=\"" + Num(a.x) + "\" y1=\"" + Num(a.y) +
           "\" x2=\"" + Num(b.x) + "\" y2=\"" + Num(b.y) + "\"/>\n";
  }
  for (int id = 0; id < t.num_nodes(); ++id) {
    const Node& node = t.nodes[static_cast<size_t>(id)];
    const Point& p = layout.pos[static_cast<size_t>(id)];
    bool chip = node.kind == NodeKind::kChip;
    std::string label = chip && !overlay.chip_labels.empty() ? overlay.chip_labels[static_cast<size_t>(id)] : "";
    double w = chip ? kBox : kSwitchW, h = chip ? kBox : kSwitchH;
    std::string cls = std::string(chip ? "chip" : "switch") + (label.empty() ? "" : " placed") +
                      (node.failed ? " failed" : "");
    std::string tooltip = Escape(node.name) + (label.empty() ? "" : ": " + Escape(label));
    out += "<rect class=\"" + cls + "\" x=\"" + Num(p.x - w / 2) + "\" y=\"" + Num(p.y - h / 2) + "\" width=\"" +
           Num(w) + "\" height=\"" + Num(h) + "\" rx=\"4\"><title>" + tooltip + "</title></rect>\n";
    // Chip names drop the node prefix ("node1/gpu3" -> "gpu3") to fit the box;
    // a label takes the lower half of the box.
    std::string name = node.name.substr(chip ? node.name.rfind('/') + 1 : 0);
    double name_y = label.empty() ? p.y : p.y - 7;
    out += "<text x=\"" + Num(p.x) + "\" y=\"" + Num(name_y) + "\">" + Escape(name) + "</text>\n";
    if (!label.empty()) {
      out += "<text class=\"rank\" x=\"" + Num(p.x) + "\" y=\"" + Num(p.y + 8) + "\">" + Escape(label) + "</text>\n";
    }
  }
  if (header > 0) out += "</g>\n";

  if (loads) {
    double x = kMargin;
    out += "<text class=\"legend\" x=\"" + Num(x) + "\" y=\"" + Num(legend_y - 10) +
           "\">link load, per direction (each on its right-hand side), as a share of the busiest:</text>\n";
    out += LegendSample(x, legend_y + 6, 0, "idle");
    x += 70;
    for (int quarter = 1; quarter <= 4; ++quarter) {
      out += LegendSample(x, legend_y + 6, quarter / 4.0, std::to_string(25 * quarter) + "%");
      x += 80;
    }
  }
  for (size_t i = 0; i < overlay.caption.size(); ++i) {
    out += "<text class=\"caption\" x=\"" + Num(kMargin) + "\" y=\"" + Num(caption_y + 4 + i * kCaptionLine) +
           "\">" + Escape(overlay.caption[i]) + "</text>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace az::hw
