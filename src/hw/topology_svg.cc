// TopologySvg: node positions per layout (torus grid, GPU nodes and rails, or a
// circle), then one pass drawing links under nodes. Coordinates are whole
// pixels so the output is stable text.
#include "hw/topology_svg.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

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

Layout TorusLayout(const Topology& t) {
  Layout layout;
  int columns = t.dims[0];
  int rows = t.dims.size() > 1 ? t.dims[1] : 1;
  int planes = t.dims.size() > 2 ? t.dims[2] : 1;
  double panel = columns * kCell + kCell;  // one spare cell between z-planes
  for (const Node& node : t.nodes) {
    int x = node.coords.size() > 0 ? node.coords[0] : 0;
    int y = node.coords.size() > 1 ? node.coords[1] : 0;
    int z = node.coords.size() > 2 ? node.coords[2] : 0;
    layout.pos.push_back({kMargin + z * panel + x * kCell + kCell / 2, kMargin + kTitle + y * kCell + kCell / 2});
  }
  layout.width = 2 * kMargin + planes * panel - kCell;
  layout.height = 2 * kMargin + kTitle + rows * kCell;
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

std::string Cubic(Point a, Point c1, Point c2, Point b) {
  return "M" + Num(a.x) + "," + Num(a.y) + " C" + Num(c1.x) + "," + Num(c1.y) + " " + Num(c2.x) + "," + Num(c2.y) +
         " " + Num(b.x) + "," + Num(b.y);
}

// Torus links that a straight line would draw across other chips, as curves
// (empty: a straight line will do). A wrap leaves its last chip outward, runs in
// the gap beside its row (x: above; y: left) and enters chip 0 from outside. A
// z link joins two panels through the gap below its row, at a depth that varies
// with x so that the links of one row stay apart.
std::string TorusCurve(const Topology& t, const Link& link, Point a, Point b) {
  if (link.axis == 2) {
    int x = t.nodes[static_cast<size_t>(link.a)].coords.empty() ? 0 : t.nodes[static_cast<size_t>(link.a)].coords[0];
    double depth = (24 + 4 * (x % 5) + (link.wraparound ? 2 : 0)) * 4.0 / 3.0;  // a cubic peaks at 3/4 of it
    double out = link.wraparound ? kCell : kCell / 2;
    return Cubic(a, {a.x + out, a.y + depth}, {b.x - out, b.y + depth}, b);
  }
  if (!link.wraparound) return "";
  const double side = 40;  // peaks 30 px off the row: mid-gap between boxes 60 apart
  if (link.axis == 0) return Cubic(a, {a.x + kCell, a.y - side}, {b.x - kCell, b.y - side}, b);
  if (link.axis == 1) return Cubic(a, {a.x - side, a.y + kCell}, {b.x - side, b.y - kCell}, b);
  return "";
}

}  // namespace

std::string TopologySvg(const Topology& t) {
  bool torus = !t.dims.empty();
  bool gpu = !torus && t.gpu_nodes > 0 && t.gpus_per_node > 0 && t.num_chips() == t.gpu_nodes * t.gpus_per_node;
  Layout layout = torus ? TorusLayout(t) : gpu ? GpuLayout(t) : CircleLayout(t);

  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(layout.width) + "\" height=\"" +
         Num(layout.height) + "\" viewBox=\"0 0 " + Num(layout.width) + " " + Num(layout.height) + "\">\n";
  out +=
      "<style>\n"
      "  .chip { fill: #dbe8f8; stroke: #2b5797; stroke-width: 1.5; }\n"
      "  .switch { fill: #f3e2c7; stroke: #8a5a00; stroke-width: 1.5; }\n"
      "  .link { stroke: #555; stroke-width: 1.5; fill: none; }\n"
      "  .wrap { stroke: #2a8f4a; stroke-width: 1.5; fill: none; }\n"
      "  .network { stroke: #7a3fb0; }\n"
      "  .failed { stroke: #d00; stroke-dasharray: 5,4; }\n"
      "  text { font-family: sans-serif; font-size: 9px; text-anchor: middle; dominant-baseline: middle; }\n"
      "  .title { font-size: 14px; text-anchor: start; }\n"
      "</style>\n";
  out += "<text class=\"title\" x=\"" + Num(kMargin) + "\" y=\"" + Num(kMargin / 2 + 4) + "\">" + Escape(t.name) +
         ": " + Escape(t.chip.long_name) + ", " + std::to_string(t.num_chips()) + " chips, " +
         std::to_string(t.links.size()) + " links</text>\n";

  for (int l = 0; l < static_cast<int>(t.links.size()); ++l) {
    const Link& link = t.links[static_cast<size_t>(l)];
    const Point& a = layout.pos[static_cast<size_t>(link.a)];
    const Point& b = layout.pos[static_cast<size_t>(link.b)];
    std::string failed = t.LinkAlive(l) ? "" : " failed";
    std::string curve = torus ? TorusCurve(t, link, a, b) : "";
    if (!curve.empty()) {
      out += "<path class=\"" + std::string(link.wraparound ? "wrap" : "link") + failed + "\" d=\"" + curve + "\"/>\n";
      continue;
    }
    std::string cls = link.cls == LinkClass::kNetwork ? "link network" : "link";
    out += "<line class=\"" + cls + failed + "\" x1=\"" + Num(a.x) + "\" y1=\"" + Num(a.y) + "\" x2=\"" + Num(b.x) +
           "\" y2=\"" + Num(b.y) + "\"/>\n";
  }
  for (int id = 0; id < t.num_nodes(); ++id) {
    const Node& node = t.nodes[static_cast<size_t>(id)];
    const Point& p = layout.pos[static_cast<size_t>(id)];
    bool chip = node.kind == NodeKind::kChip;
    double w = chip ? kBox : kSwitchW, h = chip ? kBox : kSwitchH;
    std::string cls = std::string(chip ? "chip" : "switch") + (node.failed ? " failed" : "");
    out += "<rect class=\"" + cls + "\" x=\"" + Num(p.x - w / 2) + "\" y=\"" + Num(p.y - h / 2) + "\" width=\"" +
           Num(w) + "\" height=\"" + Num(h) + "\" rx=\"4\"><title>" + Escape(node.name) + "</title></rect>\n";
    // Chip labels drop the node prefix ("node1/gpu3" -> "gpu3") to fit the box.
    std::string label = node.name.substr(chip ? node.name.rfind('/') + 1 : 0);
    out += "<text x=\"" + Num(p.x) + "\" y=\"" + Num(p.y) + "\">" + Escape(label) + "</text>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace az::hw
