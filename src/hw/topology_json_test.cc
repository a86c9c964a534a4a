// The JSON loader and writer (docs/topology-json.md) and the SVG drawing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/testing.h"
#include "hw/topology.h"
#include "hw/topology_svg.h"

namespace az::hw {
namespace {

using hw_test::Topo;

// The example of docs/topology-json.md.
constexpr const char* kDocExample = R"({
  "name": "four-h100",
  "chip": "h100",
  "chips": [
    {"name": "gpu0", "coords": [0, 0]},
    {"name": "gpu1", "coords": [0, 1]},
    {"name": "gpu2", "coords": [0, 2]},
    {"name": "gpu3", "coords": [0, 3]}
  ],
  "switches": [{"name": "sw"}],
  "links": [
    {"a": "gpu0", "b": "sw", "bandwidth_GBps": 450, "latency_us": 0.3, "class": "nvlink"},
    {"a": "gpu1", "b": "sw", "bandwidth_GBps": 450, "latency_us": 0.3, "class": "nvlink"},
    {"a": "gpu2", "b": "sw", "bandwidth_GBps": 450, "latency_us": 0.3, "class": "nvlink"},
    {"a": "gpu3", "b": "sw", "bandwidth_GBps": 450, "latency_us": 0.3, "class": "nvlink"}
  ]
})";

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(TopologyJson, DocExampleLoads) {
  auto t = LoadTopologyJson(kDocExample, "four.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->name, "four-h100");
  EXPECT_EQ(t->chip.name, "h100");
  EXPECT_EQ(t->num_chips(), 4);
  EXPECT_EQ(t->num_nodes(), 5);
  ASSERT_EQ(t->links.size(), 4u);
  EXPECT_DOUBLE_EQ(t->links[2].bw.value(), 450e9);
  EXPECT_DOUBLE_EQ(t->links[2].latency.value(), 0.3e-6);
  EXPECT_EQ(t->links[2].cls, LinkClass::kNvlink);
  EXPECT_EQ(t->nodes[3].coords, (std::vector<int>{0, 3}));
  // No structure given: the route is breadth-first, gpu1 -> sw -> gpu3.
  auto route = t->Route(1, 3);
  ASSERT_TRUE(route.ok());
  ASSERT_EQ(route->size(), 2u);
  EXPECT_EQ(t->ChannelName((*route)[0]), "gpu1->sw");
  EXPECT_EQ(t->ChannelName((*route)[1]), "sw->gpu3");
}

// Writing then loading gives the same nodes, links and routes.
void ExpectRoundTrip(const Topology& t) {
  std::string text = TopologyToJson(t);
  auto back = LoadTopologyJson(text, "round-trip.json");
  ASSERT_TRUE(back.ok()) << t.name << ": " << back.status().ToString();
  EXPECT_EQ(back->name, t.name);
  EXPECT_EQ(back->chip.name, t.chip.name);
  EXPECT_EQ(back->dims, t.dims);
  EXPECT_EQ(back->wrap, t.wrap);
  EXPECT_EQ(back->gpu_nodes, t.gpu_nodes);
  EXPECT_EQ(back->gpus_per_node, t.gpus_per_node);
  EXPECT_EQ(back->fabric, t.fabric);
  EXPECT_EQ(back->peer_to_peer, t.peer_to_peer);
  ASSERT_EQ(back->num_chips(), t.num_chips());
  ASSERT_EQ(back->num_nodes(), t.num_nodes());
  for (int id = 0; id < t.num_nodes(); ++id) {
    EXPECT_EQ(back->nodes[id].name, t.nodes[id].name);
    EXPECT_EQ(back->nodes[id].kind, t.nodes[id].kind);
    EXPECT_EQ(back->nodes[id].coords, t.nodes[id].coords);
    EXPECT_EQ(back->nodes[id].failed, t.nodes[id].failed);
    EXPECT_EQ(back->nodes[id].host, t.nodes[id].host);
  }
  ASSERT_EQ(back->links.size(), t.links.size());
  for (size_t l = 0; l < t.links.size(); ++l) {
    const Link &x = back->links[l], &y = t.links[l];
    EXPECT_EQ(std::make_tuple(x.a, x.b, x.cls, x.axis, x.wraparound, x.failed),
              std::make_tuple(y.a, y.b, y.cls, y.axis, y.wraparound, y.failed));
    EXPECT_DOUBLE_EQ(x.bw.value(), y.bw.value());
    EXPECT_DOUBLE_EQ(x.latency.value(), y.latency.value());
  }
  for (int src = 0; src < t.num_chips(); ++src) {
    for (int dst = 0; dst < t.num_chips(); ++dst) {
      auto a = t.Route(src, dst), b = back->Route(src, dst);
      ASSERT_EQ(a.ok(), b.ok());
      if (a.ok()) {
        ASSERT_EQ(*a, *b) << t.name << " " << src << "->" << dst;
      }
    }
  }
  EXPECT_EQ(TopologyToJson(*back), text);
}

TEST(TopologyJson, CatalogTopologiesRoundTrip) {
  for (const char* spec : {"v5e:2x4", "v5e:8x16", "v5p:2x2x4", "v5p:4x4x4", "h100:8", "h100:2x8", "h100:2x8:efa",
                           "l40s:8", "rtx4090:4", "l20:3", "l40s:2x4"}) {
    Topology t = Topo(spec);
    ExpectRoundTrip(t);
  }
  Topology degraded = Topo("h100:2x8");
  ASSERT_TRUE(ApplyFailures(degraded, {"node0/gpu1-rail1"}, {"node1/gpu3"}).ok());
  ExpectRoundTrip(degraded);
}

// Each malformed input is an error that names the problem (and its JSON path).
TEST(TopologyJson, MalformedInputsAreClearErrors) {
  const std::string chips2 = R"("chips": [{"name": "a"}, {"name": "b"}])";
  const std::string link_ab = R"({"a": "a", "b": "b", "bandwidth_GBps": 45, "latency_us": 1, "class": "ici"})";
  struct Case {
    std::string text;
    std::string message;
  };
  std::vector<Case> cases = {
      {"{\n  \"chip\": \"v5e\",\n  \"chips\": [}", "bad.json:3:13: error: syntax error"},
      {"[1, 2]", "(top level): expected an object, got array"},
      {"{" + chips2 + ", \"links\": []}", "chip: missing"},
      {R"({"chip": "tpu9", )" + chips2 + R"(, "links": []})", "chip: unknown chip 'tpu9'"},
      {R"({"chip": "v5e", "chips": {}, "links": []})", "chips: expected an array, got object"},
      {R"({"chip": "v5e", "chips": [], "links": []})", "chips: a topology needs at least one chip"},
      {R"({"chip": "v5e", "chips": [{"name": "a"}, {"name": "a"}], "links": []})",
       "chips[1].name: duplicate node name 'a' (first at chips[0])"},
      {R"({"chip": "v5e", "chips": [{"name": 7}], "links": []})", "chips[0].name: expected a string, got number"},
      {R"({"chip": "v5e", "chips": [{"name": "a", "coords": [0, 1.5]}], "links": []})",
       "chips[0].coords[1]: expected an integer in 0..2147483647, got number"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [)" + link_ab +
           R"(, {"a": "a", "b": "q", "bandwidth_GBps": 1, "latency_us": 1, "class": "ici"}]})",
       "links[1].b: unknown node 'q'"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [{"a": "a", "b": "a", "bandwidth_GBps": 1, "latency_us": 1, "class": "ici"}]})",
       "links[0].b: a link joins 'a' to itself"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [{"a": "a", "b": "b", "bandwidth_GBps": -4, "latency_us": 1, "class": "ici"}]})",
       "links[0].bandwidth_GBps: must be a finite number > 0"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [{"a": "a", "b": "b", "bandwidth_GBps": 1, "latency_us": "1", "class": "ici"}]})",
       "links[0].latency_us: expected a number, got string"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [{"a": "a", "b": "b", "bandwidth_GBps": 1, "latency_us": 1, "class": "infiniband"}]})",
       "links[0].class: unknown link class 'infiniband'"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [{"a": "a", "b": "b", "bandwith_GBps": 1, "latency_us": 1, "class": "ici"}]})",
       "links[0].bandwith_GBps: unknown key"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [{"b": "b", "bandwidth_GBps": 1, "latency_us": 1, "class": "ici"}]})",
       "links[0].a: missing"},
      {R"({"chip": "v5e", )" + chips2 + R"(})", "links: missing"},
      {R"({"chip": "v5e", "dims": [2, 2], )" + chips2 + R"(, "links": []})",
       "dims: the shape holds 4 chips but chips lists 2"},
      {R"({"chip": "v5e", "dims": [2], "chips": [{"name": "a", "coords": [0]}, {"name": "b", "coords": [0]}], "links": []})",
       "chips[1].coords: with dims, chip 1 must have coords [1]"},
      {R"({"chip": "v5e", "wrap": [true], )" + chips2 + R"(, "links": []})", "wrap: given without dims"},
      {R"({"chip": "v5e", "dims": [2], "wrap": [true, false], "chips": [{"name": "a", "coords": [0]}, {"name": "b", "coords": [1]}], "links": []})",
       "wrap: expected an array of 1 booleans"},
      {R"({"chip": "h100", "gpu_nodes": 1, )" + chips2 + R"(, "links": []})", "gpus_per_node: missing"},
      {R"({"chip": "h100", "gpu_nodes": 3, "gpus_per_node": 1, )" + chips2 + R"(, "links": []})",
       "gpu_nodes: 3 x 1 GPUs but chips lists 2"},
      {R"({"chip": "v5e", "switchez": [], )" + chips2 + R"(, "links": []})", "switchez: unknown key"},
      {R"({"chip": "v5e", )" + chips2 + R"(, "links": [)" + link_ab + R"(, 3]})",
       "links[1]: expected an object, got number"},
      {" \n", "bad.json: empty input"},
      {R"({"chip": "l40s", "peer_to_peer": "no", )" + chips2 + R"(, "links": []})",
       "bad.json: peer_to_peer: expected true or false, got string"},
      {R"({"chip": "l40s", "switches": [{"name": "cpu0", "host": 1}], )" + chips2 + R"(, "links": []})",
       "bad.json: switches[0].host: expected true or false, got number"},
      {R"({"chip": "l40s", "chips": [{"name": "a", "host": true}], "links": []})", "chips[0].host: unknown key"},
      {R"({"chip": "l40s", )" + chips2 + R"(, "links": [{"a": "a", "b": "b", "bandwidth_GBps": 22, "latency_us": 0.5, "class": "upi"}]})",
       "links[0].class: unknown link class 'upi' (ici, nvlink, pcie, network, socket or dcn)"},
      {R"({"chip": "h100", "gpu_nodes": 1, "gpus_per_node": 2, "fabric": "roce", )" + chips2 + R"(, "links": []})",
       "fabric: expected \"ib\" or \"efa\", got \"roce\""},
      {R"({"chip": "h100", "fabric": "efa", )" + chips2 + R"(, "links": []})", "fabric: needs gpu_nodes"},
  };
  for (const Case& c : cases) {
    auto t = LoadTopologyJson(c.text, "bad.json");
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_NE(t.status().message().find(c.message), std::string::npos)
        << "input: " << c.text << "\ngave: " << t.status().message() << "\nwanted: " << c.message;
  }
}

TEST(TopologyJson, LimitsAndHostileInputs) {
  // 65,537 chips: over the documented limit.
  std::string many = R"({"chip": "v5e", "links": [], "chips": [)";
  for (int i = 0; i <= 65536; ++i) many += (i ? ",{\"name\":\"c" : "{\"name\":\"c") + std::to_string(i) + "\"}";
  many += "]}";
  auto t = LoadTopologyJson(many, "many.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(t.status().message().find("over the limit of 65536"), std::string::npos);
  // Deep nesting, huge numbers, truncation: errors, never crashes.
  EXPECT_FALSE(LoadTopologyJson(std::string(100000, '[') + std::string(100000, ']'), "deep.json").ok());
  EXPECT_FALSE(LoadTopologyJson(R"({"chip": "v5e", "chips": [{"name": "a", "coords": [1e400]}], "links": []})", "f").ok());
  EXPECT_FALSE(LoadTopologyJson(R"({"chip": "v5e", "chips": [{"name": "a", "coords": [99999999999999999999]}], "links": []})", "f").ok());
  std::string doc = kDocExample;
  for (size_t cut = 0; cut < doc.size(); cut += 7) EXPECT_FALSE(LoadTopologyJson(doc.substr(0, cut), "cut.json").ok());
}

TEST(TopologySvg, TorusGridsAndWrapArcs) {
  Topology small = Topo("v5e:2x4");
  std::string svg = TopologySvg(small);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(Count(svg, "<rect class=\"chip\""), 8);
  EXPECT_EQ(Count(svg, "<line class=\"link\""), 10);
  EXPECT_EQ(Count(svg, "class=\"wrap"), 0);

  Topology pod = Topo("v5e:16x16");
  svg = TopologySvg(pod);
  EXPECT_EQ(Count(svg, "<rect class=\"chip\""), 256);
  EXPECT_EQ(Count(svg, "<path class=\"wrap\""), 32);  // 16 rings per axis, 2 axes

  Topology cube = Topo("v5p:4x4x4");  // z-planes side by side, z wraps drawn as arcs too
  svg = TopologySvg(cube);
  EXPECT_EQ(Count(svg, "<rect class=\"chip\""), 64);
  EXPECT_EQ(Count(svg, "<path class=\"wrap\""), 48);
}

TEST(TopologySvg, FailuresAndGpuSystems) {
  Topology t = Topo("v5e:2x4");
  ASSERT_TRUE(ApplyFailures(t, {"(0,0)-(1,0)"}, {"7"}).ok());
  std::string svg = TopologySvg(t);
  // The failed link, and the 2 links of failed chip (1,3), are dashed.
  EXPECT_EQ(Count(svg, "<line class=\"link failed\""), 3);
  EXPECT_EQ(Count(svg, "<rect class=\"chip failed\""), 1);

  Topology cluster = Topo("h100:2x8");
  svg = TopologySvg(cluster);
  EXPECT_EQ(Count(svg, "<rect class=\"chip\""), 16);
  EXPECT_EQ(Count(svg, "<rect class=\"switch\""), 10);  // 2 NVSwitch nodes + 8 rails
  EXPECT_EQ(Count(svg, "<line class=\"link network\""), 16);

  auto custom = LoadTopologyJson(R"({"name": "a<b&c", "chip": "h100", "chips": [{"name": "x"}], "links": []})", "f");
  ASSERT_TRUE(custom.ok()) << custom.status().ToString();
  svg = TopologySvg(*custom);
  EXPECT_NE(svg.find("a&lt;b&amp;c"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
}

TEST(TopologySvg, OverlayLabelsLanesAndCaption) {
  Topology t = Topo("v5e:4x4");
  // An empty overlay is the plain picture, byte for byte.
  EXPECT_EQ(TopologySvg(t, SvgOverlay{}), TopologySvg(t));

  SvgOverlay overlay;
  overlay.title = "ranks <& loads>";
  overlay.chip_labels.assign(16, "");
  overlay.chip_labels[5] = "r0";
  overlay.channel_loads.assign(static_cast<size_t>(t.num_channels()), 0.0);
  overlay.channel_loads[0] = 1.0;   // a neighbour link: two straight lanes
  overlay.channel_loads[1] = 0.25;
  overlay.caption = {"busiest: a->b"};
  std::string svg = TopologySvg(t, overlay);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_NE(svg.find(">ranks &lt;&amp; loads&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">busiest: a-&gt;b</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<rect class=\"chip placed\""), 1);
  EXPECT_EQ(Count(svg, "class=\"rank\""), 1);
  EXPECT_EQ(Count(svg, "<line class=\"lane\" data-channel=\"0\" stroke=\"#b0281a\" stroke-width=\"8.0\""), 1);
  EXPECT_EQ(Count(svg, "<line class=\"lane\" data-channel=\"1\""), 1);
  EXPECT_EQ(Count(svg, "data-link="), static_cast<int>(t.links.size()) - 1);
  EXPECT_EQ(Count(svg, "<line class=\"legend\""), 5);  // idle and four quarters
  EXPECT_EQ(Count(svg, "<g transform="), 1);           // the drawing moved under the title

  // Loads on a wraparound arc (v5e:16x16 wraps both axes): the lanes are arcs.
  Topology pod = Topo("v5e:16x16");
  int wrap = -1;
  for (int l = 0; l < static_cast<int>(pod.links.size()) && wrap < 0; ++l) {
    if (pod.links[static_cast<size_t>(l)].wraparound) wrap = l;
  }
  ASSERT_GE(wrap, 0);
  SvgOverlay arcs;
  arcs.channel_loads.assign(static_cast<size_t>(pod.num_channels()), 0.0);
  arcs.channel_loads[static_cast<size_t>(2 * wrap + 1)] = 2.0;  // clamped to 1
  svg = TopologySvg(pod, arcs);
  std::string busy_lane = "<path class=\"lane\" data-channel=\"" + std::to_string(2 * wrap + 1) + "\"";
  EXPECT_EQ(Count(svg, busy_lane + " stroke=\"#b0281a\" stroke-width=\"8.0\""), 1);
  EXPECT_EQ(Count(svg, "<path class=\"lane idle\" data-channel=\"" + std::to_string(2 * wrap) + "\""), 1);
  EXPECT_EQ(Count(svg, "<path class=\"wrap\""), 31);

  // GPU systems: labels and lanes on NVLink and rail links alike.
  Topology cluster = Topo("h100:2x8");
  SvgOverlay gpus;
  gpus.chip_labels.assign(16, "");
  for (int chip = 0; chip < 16; ++chip) gpus.chip_labels[static_cast<size_t>(chip)] = "r" + std::to_string(chip);
  gpus.channel_loads.assign(static_cast<size_t>(cluster.num_channels()), 0.5);
  svg = TopologySvg(cluster, gpus);
  EXPECT_EQ(Count(svg, "class=\"rank\""), 16);
  EXPECT_EQ(Count(svg, "class=\"lane\""), cluster.num_channels());
  EXPECT_EQ(Count(svg, "stroke-width=\"5.0\""), cluster.num_channels() + 1);  // and the legend's 50%
}

}  // namespace
}  // namespace az::hw
