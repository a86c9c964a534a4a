// `aoizora topo`: the chip catalog and the named topologies (`topo list`), and
// one topology in detail (`topo show T`), where T is a name such as v5e:2x4 or
// h100:2x8, or a JSON file (docs/topology-json.md). Thin: the library builds,
// fails and draws; this file parses flags and prints.
#include <fmt/core.h>

#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hw/chip.h"
#include "hw/topology.h"
#include "hw/topology_svg.h"
#include "tools/aoizora/cli.h"

namespace az::cli {
namespace {

struct TopoShowArgs {
  std::string topology;
  std::string svg_path;
  bool json = false;
  std::vector<std::string> fail_links;
  std::vector<std::string> fail_chips;
};

struct TopoListArgs {
  bool json = false;
};

constexpr int kAdjacencyMaxChips = 64;

std::string FormatRate(FlopRate rate) {
  return rate.value() == 0 ? "not sourced" : fmt::format("{:g} TFLOP/s", rate.value() / 1e12);
}

// Memory as its source states it: "16 GB" (1e9) or "95 GiB" (2^30).
std::string FormatMemory(Bytes bytes) {
  int64_t b = bytes.value();
  if (b == 0) return "not sourced";
  if (b % (int64_t{1} << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b % 1'000'000'000 == 0) return fmt::format("{} GB", b / 1'000'000'000);
  return FormatBytes(bytes);
}

std::string AxisName(size_t axis) { return axis < 3 ? std::string(1, "xyz"[axis]) : "axis" + std::to_string(axis); }

void PrintShow(const hw::Topology& t) {
  const hw::ChipSpec& c = t.chip;
  fmt::print("topology   {}\n", t.name);
  fmt::print("chip       {} ({}): bf16 {}, memory {}, memory bw {}\n", c.long_name, c.name, FormatRate(c.bf16),
             FormatMemory(c.hbm),
             c.hbm_bw.value() ? FormatBandwidth(c.hbm_bw) : "not sourced");
  if (!t.dims.empty()) {
    std::string shape, wraps;
    for (size_t axis = 0; axis < t.dims.size(); ++axis) {
      shape += (axis ? "x" : "") + std::to_string(t.dims[axis]);
      wraps += fmt::format("{}{} {}", axis ? ", " : "", AxisName(axis), t.wrap[axis] ? "wraps" : "no wrap");
    }
    fmt::print("shape      {} torus ({}){}\n", shape, wraps,
               t.slices > 1 ? fmt::format(", {} slices joined by DCN", t.slices) : std::string());
  } else if (t.gpu_nodes > 0) {
    fmt::print("shape      {} node{} x {} GPUs\n", t.gpu_nodes, t.gpu_nodes > 1 ? "s" : "", t.gpus_per_node);
  }
  int failed_chips = 0;
  for (int id = 0; id < t.num_chips(); ++id) failed_chips += t.nodes[static_cast<size_t>(id)].failed;
  fmt::print("chips      {}{}, switches {}\n", t.num_chips(),
             failed_chips ? fmt::format(" ({} failed)", failed_chips) : "", t.num_nodes() - t.num_chips());

  // Links by class, with their per-direction bandwidth (a range when they differ).
  struct ClassStats {
    int count = 0, failed = 0, wraps = 0;
    double min_bw = 0, max_bw = 0, latency = 0;
  };
  std::map<std::string, ClassStats> by_class;
  for (int l = 0; l < static_cast<int>(t.links.size()); ++l) {
    const hw::Link& link = t.links[static_cast<size_t>(l)];
    ClassStats& s = by_class[std::string(hw::LinkClassName(link.cls))];
    double bw = link.bw.value();
    s.min_bw = s.count ? std::min(s.min_bw, bw) : bw;
    s.max_bw = s.count ? std::max(s.max_bw, bw) : bw;
    s.latency = link.latency.value();
    ++s.count;
    s.failed += !t.LinkAlive(l);
    s.wraps += link.wraparound;
  }
  fmt::print("links      {}\n", t.links.size());
  for (const auto& [cls, s] : by_class) {
    std::string bw = s.min_bw == s.max_bw ? FormatBandwidth(Bandwidth(s.min_bw))
                                          : FormatBandwidth(Bandwidth(s.min_bw)) + " to " +
                                                FormatBandwidth(Bandwidth(s.max_bw));
    std::string extra;
    if (s.wraps) extra += fmt::format(", {} wraparound", s.wraps);
    if (s.failed) extra += fmt::format(", {} down", s.failed);
    fmt::print("  {:<8} {:>6} x {} per direction, {} per traversal{}\n", cls, s.count, bw,
               FormatSeconds(Seconds(s.latency)), extra);
  }
  if (t.num_chips() > kAdjacencyMaxChips) return;
  fmt::print("adjacency  (in link order)\n");
  std::vector<std::vector<std::string>> neighbours(t.nodes.size());
  for (int l = 0; l < static_cast<int>(t.links.size()); ++l) {
    const hw::Link& link = t.links[static_cast<size_t>(l)];
    std::string mark = t.LinkAlive(l) ? "" : "[down]";
    neighbours[static_cast<size_t>(link.a)].push_back(t.nodes[static_cast<size_t>(link.b)].name + mark);
    neighbours[static_cast<size_t>(link.b)].push_back(t.nodes[static_cast<size_t>(link.a)].name + mark);
  }
  for (int id = 0; id < t.num_nodes(); ++id) {
    const hw::Node& node = t.nodes[static_cast<size_t>(id)];
    std::string list;
    for (const std::string& n : neighbours[static_cast<size_t>(id)]) list += " " + n;
    fmt::print("  {}{}:{}\n", node.name, node.failed ? " [failed]" : "", list);
  }
}

int RunTopoShow(const TopoShowArgs& args) {
  auto topology = LoadTopology(args.topology);
  if (!topology.ok()) return Fail(topology.status());
  if (!args.fail_links.empty() || !args.fail_chips.empty()) {
    if (Status s = hw::ApplyFailures(*topology, args.fail_links, args.fail_chips); !s.ok()) return Fail(s);
  }
  if (!args.svg_path.empty()) {
    std::ofstream out(args.svg_path, std::ios::binary);
    out << hw::TopologySvg(*topology);
    if (!out) return Fail(InvalidArgument("cannot write '" + args.svg_path + "'"));
  }
  if (args.json) {
    fmt::print("{}", hw::TopologyToJson(*topology));
    return 0;
  }
  PrintShow(*topology);
  if (!args.svg_path.empty()) fmt::print("wrote      {}\n", args.svg_path);
  return 0;
}

int RunTopoList(const TopoListArgs& args) {
  const std::vector<std::string> topologies = hw::ListTopologies();
  if (args.json) {
    nlohmann::ordered_json chips = nlohmann::ordered_json::array();
    for (const hw::ChipSpec& c : hw::ChipCatalog()) {
      chips.push_back({{"name", c.name},
                       {"long_name", c.long_name},
                       {"family", c.family == hw::ChipFamily::kTpu ? "tpu" : "gpu"},
                       {"bf16_flops", c.bf16.value()},
                       {"memory_bytes", c.hbm.value()},
                       {"memory_bandwidth", c.hbm_bw.value()},
                       {"link_bandwidth", c.link_bw.value()},
                       {"links_per_chip", c.links_per_chip},
                       {"source", c.source}});
    }
    nlohmann::ordered_json j = {{"chips", chips}, {"topologies", topologies}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{:<8} {:<36} {:>14} {:>11} {:>12}  {}\n", "chip", "", "bf16", "memory", "link/dir", "sources");
  for (const hw::ChipSpec& c : hw::ChipCatalog()) {
    fmt::print("{:<8} {:<36} {:>14} {:>11} {:>12}  {}\n", c.name, c.long_name, FormatRate(c.bf16),
               FormatMemory(c.hbm), FormatBandwidth(c.link_bw), c.source);
  }
  fmt::print("\nnamed topologies (TPU slices CHIP:AxB[xC], GPU systems CHIP:N or CHIP:MxN; or a .json file):\n");
  std::string line, chip;
  for (const std::string& spec : topologies) {
    std::string this_chip = spec.substr(0, spec.find(':'));
    if (this_chip != chip && !line.empty()) {
      fmt::print("  {}\n", line);
      line.clear();
    }
    chip = this_chip;
    line += (line.empty() ? "" : " ") + spec;
  }
  if (!line.empty()) fmt::print("  {}\n", line);
  return 0;
}

}  // namespace

void RegisterTopo(CLI::App& app, CommandContext& ctx) {
  CLI::App* topo = app.add_subcommand("topo", "Chips and topologies: list them, or show one");
  topo->require_subcommand(1);

  auto list_args = std::make_shared<TopoListArgs>();
  CLI::App* list = topo->add_subcommand("list", "The chip catalog and the named topologies");
  list->add_flag("--json", list_args->json, "Machine-readable output on stdout");
  list->callback([list_args, &ctx] { ctx.exit_code = RunTopoList(*list_args); });

  auto show_args = std::make_shared<TopoShowArgs>();
  CLI::App* show = topo->add_subcommand("show", "A topology: shape, wraps, links by class, adjacency, drawing");
  show->add_option("topology", show_args->topology, "A named topology (v5e:2x4, h100:2x8, ...) or a .json file")
      ->required();
  show->add_option("--svg", show_args->svg_path, "Also draw it as SVG into this file");
  show->add_flag("--json", show_args->json, "Print the topology as JSON (docs/topology-json.md)");
  show->add_option("--fail-link", show_args->fail_links, "Fail the link A-B (chip ids or node names); repeatable")
      ->allow_extra_args(false);
  show->add_option("--fail-chip", show_args->fail_chips, "Fail chip C (an id or a node name); repeatable")
      ->allow_extra_args(false);
  show->callback([show_args, &ctx] { ctx.exit_code = RunTopoShow(*show_args); });
}

}  // namespace az::cli
