// The step trace (Chrome Trace Event Format) and the placement picture, on a
// hand-made step with exact numbers and on a real simulated Wan step; the
// parallelize_module plan of plan_torch.py on hand-made configurations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/spmd/spmd_compiler.h"
#include "emit/codegen_jax.h"
#include "emit/codegen_torch.h"
#include "emit/placement_svg.h"
#include "emit/torch_parallelize.h"
#include "emit/trace.h"
#include "evidence/evidence.h"
#include "frontend/zoo/zoo.h"
#include "hw/topology.h"
#include "net/calibration.h"
#include "price/compute.h"
#include "price/simulator.h"
#include "shard/templates.h"

namespace az::emit {
namespace {

using Json = nlohmann::json;

// ---- A real step: Wan 2.1 1.3B under ring attention on 8 chips of v5e. ----

// 256 x 256 x 5 frames: 2 latent frames x 16 x 16 patches = 512 tokens, 64 per
// device; the block structure (hence every kind of collective) does not
// depend on the size. Ring attention: its kv blocks rotate by
// collective-permutes, asynchronous over the attention kernels, so the step
// has overlapped and exposed communication both.
struct RealStep {
  hw::Topology topology;
  price::SimResult result;
};

const RealStep& WanStep() {
  static const RealStep* step = [] {
    zoo::ModelOptions options;
    options.width = 256;
    options.height = 256;
    options.frames = 5;
    options.cfg = zoo::CfgMode::kNone;
    auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", options);
    AZ_CHECK_MSG(config.ok(), config.status().ToString());
    auto graph = zoo::BuildForward(*config);
    AZ_CHECK_MSG(graph.ok(), graph.status().ToString());
    auto mesh = shard::Mesh::Parse("sp=8");
    AZ_CHECK_MSG(mesh.ok(), mesh.status().ToString());
    auto seeds = shard::TemplateSeeds(*graph, *mesh, "ring=sp");
    AZ_CHECK_MSG(seeds.ok(), seeds.status().ToString());
    auto plan = shard::Propagate(*graph, *mesh, *seeds);
    AZ_CHECK_MSG(plan.ok(), plan.status().ToString());
    compile::SpmdCompiler compiler;
    auto program = compiler.Compile(*graph, *plan, {});
    AZ_CHECK_MSG(program.ok(), program.status().ToString());
    evidence::Evidence evidence = evidence::Extract(*program, compiler.name());

    auto topology = hw::MakeTopology("v5e:2x4");
    AZ_CHECK_MSG(topology.ok(), topology.status().ToString());
    auto* out = new RealStep{std::move(*topology), {}};
    auto sim = price::Simulator::Create(evidence, out->topology, net::DefaultCalibration(out->topology),
                                        price::DefaultComputeCalibration(out->topology.chip));
    AZ_CHECK_MSG(sim.ok(), sim.status().ToString());
    auto result = sim->Simulate(net::IdentityPlacement(8), /*timeline=*/true);
    AZ_CHECK_MSG(result.ok(), result.status().ToString());
    out->result = std::move(*result);
    return out;
  }();
  return *step;
}

// ---- Trace checks shared by both steps. ----

struct Parsed {
  Json doc;
  std::vector<Json> complete;  // the "X" events
  std::vector<Json> counter;   // the "C" events
  std::map<int, std::string> thread_names;
  std::string process_name;
};

Parsed ParseTrace(const std::string& text) {
  Parsed p;
  p.doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (p.doc.is_discarded()) return p;
  for (const Json& event : p.doc["traceEvents"]) {
    std::string ph = event.value("ph", "");
    if (ph == "X") p.complete.push_back(event);
    if (ph == "C") p.counter.push_back(event);
    if (ph == "M" && event["name"] == "thread_name") p.thread_names[event["tid"].get<int>()] = event["args"]["name"];
    if (ph == "M" && event["name"] == "process_name") p.process_name = event["args"]["name"];
  }
  return p;
}

TEST(StepTrace, HandMadeStepHasExactTimes) {
  // A kernel of 1/1024 s from 0, and a collective issued at 1/2048 s that runs
  // 1/1024 s; the compute engine waits for it from the kernel's end (2/2048 s)
  // to its end (3/2048 s). Powers of two so seconds x 1e6 is exact:
  // 1/1024 s = 976.5625 us, 1/2048 s = 488.28125 us, 3/2048 s = 1464.84375 us.
  price::SimResult result;
  result.latency = Seconds(3.0 / 2048);
  result.compute = Seconds(1.0 / 1024);
  result.communication = Seconds(1.0 / 1024);
  result.exposed_communication = Seconds(1.0 / 2048);
  result.kernels = 1;
  result.collectives = 1;
  price::Slice kernel;
  kernel.engine = price::Slice::kCompute;
  kernel.name = "dot.1";
  kernel.kind = "matmul";
  kernel.start = Seconds(0);
  kernel.duration = Seconds(1.0 / 1024);
  kernel.flops = Flops(1'000'000);
  kernel.bytes = Bytes(4096);
  price::Slice collective;
  collective.engine = price::Slice::kCommunication;
  collective.name = "all-to-all.2";
  collective.kind = "all-to-all";
  collective.start = Seconds(1.0 / 2048);
  collective.duration = Seconds(1.0 / 1024);
  collective.bytes = Bytes(65536);
  collective.groups = "{{0,1}}";
  collective.algorithm = "direct";
  collective.exposed = Seconds(1.0 / 2048);
  result.slices = {kernel, collective};

  std::string text = StepTrace(result, {"tiny on v5e:2x4", true});
  Parsed p = ParseTrace(text);
  ASSERT_FALSE(p.doc.is_discarded()) << text;
  EXPECT_EQ(p.doc["displayTimeUnit"], "ns");
  EXPECT_EQ(p.process_name, "tiny on v5e:2x4");
  EXPECT_EQ(p.thread_names[kComputeTid], "compute");
  EXPECT_EQ(p.thread_names[kCommunicationTid], "communication");
  ASSERT_EQ(p.complete.size(), 2u);
  const Json& k = p.complete[0];
  EXPECT_EQ(k["tid"], kComputeTid);
  EXPECT_EQ(k["cat"], "matmul");
  EXPECT_EQ(k["ts"].get<double>(), 0.0);
  EXPECT_EQ(k["dur"].get<double>(), 976.5625);
  EXPECT_EQ(k["args"]["flops"], 1'000'000);
  EXPECT_EQ(k["args"]["bytes"], 4096);
  const Json& c = p.complete[1];
  EXPECT_EQ(c["tid"], kCommunicationTid);
  EXPECT_EQ(c["cat"], "all-to-all");
  EXPECT_EQ(c["ts"].get<double>(), 488.28125);
  EXPECT_EQ(c["dur"].get<double>(), 976.5625);
  EXPECT_EQ(c["args"]["groups"], "{{0,1}}");
  EXPECT_EQ(c["args"]["algorithm"], "direct");
  EXPECT_EQ(c["args"]["exposed_us"].get<double>(), 488.28125);
  // The exact line, so the format (key order, one event per line) is pinned.
  EXPECT_NE(text.find("{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"all-to-all.2\",\"cat\":\"all-to-all\","
                      "\"ts\":488.28125,\"dur\":976.5625,\"args\":{\"bytes\":65536,\"groups\":\"{{0,1}}\","
                      "\"algorithm\":\"direct\",\"exposed_us\":488.28125}},\n"),
            std::string::npos)
      << text;
  // Counter: 0 at the start, the wait's total where the collective ends.
  ASSERT_EQ(p.counter.size(), 2u);
  EXPECT_EQ(p.counter[0]["ts"].get<double>(), 0.0);
  EXPECT_EQ(p.counter[0]["args"]["us"].get<double>(), 0.0);
  EXPECT_EQ(p.counter[1]["ts"].get<double>(), 1464.84375);
  EXPECT_EQ(p.counter[1]["args"]["us"].get<double>(), 488.28125);
  const Json& summary = p.doc["otherData"];
  EXPECT_EQ(summary["latency_us"].get<double>(), 1464.84375);
  EXPECT_EQ(summary["compute_us"].get<double>(), 976.5625);
  EXPECT_EQ(summary["communication_us"].get<double>(), 976.5625);
  EXPECT_EQ(summary["exposed_communication_us"].get<double>(), 488.28125);
  EXPECT_EQ(summary["kernels"], 1);
  EXPECT_EQ(summary["collectives"], 1);

  // Deterministic, and the counter is optional.
  EXPECT_EQ(StepTrace(result, {"tiny on v5e:2x4", true}), text);
  EXPECT_TRUE(ParseTrace(StepTrace(result, {"tiny", false})).counter.empty());
}

TEST(StepTrace, WithoutTimelineHasSummaryOnly) {
  price::SimResult result;
  result.latency = Seconds(0.5);
  result.kernels = 3;
  Parsed p = ParseTrace(StepTrace(result, {}));
  ASSERT_FALSE(p.doc.is_discarded());
  EXPECT_TRUE(p.complete.empty());
  EXPECT_TRUE(p.counter.empty());
  EXPECT_EQ(p.thread_names.size(), 2u);
  EXPECT_EQ(p.doc["otherData"]["latency_us"].get<double>(), 500000.0);
}

TEST(StepTrace, WanStepOnTwoEngineTracks) {
  const price::SimResult& result = WanStep().result;
  ASSERT_GT(result.kernels, 0);
  ASSERT_GT(result.collectives, 0);
  std::string text = StepTrace(result, {"wan2.1-t2v-1.3b ring=8 on v5e:2x4", true});
  Parsed p = ParseTrace(text);
  ASSERT_FALSE(p.doc.is_discarded());
  ASSERT_TRUE(p.doc["traceEvents"].is_array());
  EXPECT_EQ(p.doc["displayTimeUnit"], "ns");
  EXPECT_EQ(p.thread_names[kComputeTid], "compute");
  EXPECT_EQ(p.thread_names[kCommunicationTid], "communication");
  EXPECT_EQ(p.complete.size(), static_cast<size_t>(result.kernels + result.collectives));

  std::map<int, std::vector<std::pair<double, double>>> tracks;  // tid -> (ts, dur)
  double last_end = 0;
  int collectives = 0;
  for (const Json& event : p.complete) {
    ASSERT_TRUE(event["ts"].is_number() && event["dur"].is_number()) << event.dump();
    ASSERT_TRUE(event["pid"].is_number_integer() && event["tid"].is_number_integer()) << event.dump();
    ASSERT_TRUE(event["name"].is_string() && event["cat"].is_string()) << event.dump();
    double ts = event["ts"].get<double>(), dur = event["dur"].get<double>();
    EXPECT_GE(ts, 0) << event.dump();
    EXPECT_GE(dur, 0) << event.dump();
    int tid = event["tid"].get<int>();
    ASSERT_TRUE(tid == kComputeTid || tid == kCommunicationTid) << event.dump();
    if (tid == kCommunicationTid) {
      ++collectives;
      EXPECT_TRUE(event["args"].contains("groups") && event["args"].contains("algorithm") &&
                  event["args"]["exposed_us"].is_number())
          << event.dump();
    } else {
      EXPECT_TRUE(event["args"]["flops"].is_number_integer()) << event.dump();
    }
    tracks[tid].push_back({ts, dur});
    last_end = std::max(last_end, ts + dur);
  }
  EXPECT_EQ(collectives, result.collectives);
  // Each engine is serial: sorted by start, every slice starts at or after the
  // previous one's end.
  for (auto& [tid, slices] : tracks) {
    std::stable_sort(slices.begin(), slices.end());
    for (size_t i = 1; i < slices.size(); ++i) {
      EXPECT_GE(slices[i].first, slices[i - 1].first + slices[i - 1].second - 1e-6) << "track " << tid << " #" << i;
    }
  }
  double latency_us = result.latency.value() * 1e6;
  EXPECT_NEAR(last_end, latency_us, 1e-6);
  EXPECT_NEAR(p.doc["otherData"]["latency_us"].get<double>(), latency_us, 1e-9);
  // The counter never decreases, in time or value, and ends at the exposed time.
  ASSERT_FALSE(p.counter.empty());
  for (size_t i = 1; i < p.counter.size(); ++i) {
    EXPECT_GE(p.counter[i]["ts"].get<double>(), p.counter[i - 1]["ts"].get<double>());
    EXPECT_GE(p.counter[i]["args"]["us"].get<double>(), p.counter[i - 1]["args"]["us"].get<double>());
  }
  EXPECT_NEAR(p.counter.back()["args"]["us"].get<double>(), result.exposed_communication.value() * 1e6,
              1e-6 * std::max(1.0, latency_us));
}

// ---- SVG checks. ----

// Well-formedness of the subset of XML the pictures use: one root element,
// every start tag closed in order (or self-closed), attribute values quoted,
// and no raw '<' or stray '&' in text or attributes. Returns "" or the error.
std::string CheckXml(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  size_t i = 0;
  auto entity_ok = [&](size_t at) {
    for (const char* e : {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"}) {
      if (xml.compare(at, std::char_traits<char>::length(e), e) == 0) return true;
    }
    return false;
  };
  while (i < xml.size()) {
    if (xml[i] != '<') {
      if (xml[i] == '&' && !entity_ok(i)) return "stray & at " + std::to_string(i);
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) return "text outside the root";
      ++i;
      continue;
    }
    size_t end = xml.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
      open.pop_back();
      continue;
    }
    bool self_closing = tag.back() == '/';
    if (self_closing) tag.pop_back();
    size_t name_end = tag.find_first_of(" \t\n");
    std::string name = tag.substr(0, name_end);
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return "bad tag name '" + name + "'";
    // Attributes: name="value" pairs.
    size_t at = name_end;
    while (at != std::string::npos && at < tag.size()) {
      at = tag.find_first_not_of(" \t\n", at);
      if (at == std::string::npos) break;
      size_t eq = tag.find('=', at);
      if (eq == std::string::npos || eq + 1 >= tag.size() || tag[eq + 1] != '"') {
        return "unquoted attribute in <" + name;
      }
      size_t close = tag.find('"', eq + 2);
      if (close == std::string::npos) return "unterminated attribute in <" + name;
      std::string value = tag.substr(eq + 2, close - eq - 2);
      if (value.find('<') != std::string::npos) return "'<' in an attribute of <" + name;
      at = close + 1;
    }
    if (open.empty()) ++roots;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

// Text as the SVG writes it: channel names' "->" becomes "-&gt;".
std::string Escaped(std::string text) {
  for (size_t at = text.find('>'); at != std::string::npos; at = text.find('>', at)) text.replace(at, 1, "&gt;");
  return text;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The value of `attribute` in the first element that contains `marker`; -1 when absent.
double AttributeOf(const std::string& svg, const std::string& marker, const std::string& attribute) {
  size_t at = svg.find(marker);
  if (at == std::string::npos) return -1;
  size_t start = svg.rfind('<', at), end = svg.find('>', at);
  std::string element = svg.substr(start, end - start);
  size_t value = element.find(" " + attribute + "=\"");
  if (value == std::string::npos) return -1;
  return std::atof(element.c_str() + value + attribute.size() + 3);
}

TEST(CheckXml, CatchesBrokenDocuments) {
  EXPECT_EQ(CheckXml("<svg><g><line x=\"1\"/></g></svg>\n"), "");
  EXPECT_NE(CheckXml("<svg><g></svg>"), "");
  EXPECT_NE(CheckXml("<svg><line x=1/></svg>"), "");
  EXPECT_NE(CheckXml("<svg>a & b</svg>"), "");
  EXPECT_NE(CheckXml("<svg></svg><svg></svg>"), "");
}

TEST(PlacementSvg, WanStepShowsRanksAndLoads) {
  const RealStep& step = WanStep();
  const hw::Topology& t = step.topology;
  const std::vector<price::LinkLoad>& loads = step.result.links;
  ASSERT_FALSE(loads.empty());
  std::string svg = PlacementSvg(t, net::IdentityPlacement(8), loads, "wan2.1-t2v-1.3b, ring=8");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_EQ(Count(svg, "class=\"rank\""), 8);
  for (int rank = 0; rank < 8; ++rank) EXPECT_NE(svg.find(">r" + std::to_string(rank) + "</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<rect class=\"chip placed\""), 8);

  // The busiest channel is drawn at full width, every channel at 2 + 6 x its
  // share of the busiest, so the least busy one thinner. (Under this placement
  // every link carries some traffic; HandMadeLoadsAndUnusedChips has idle ones.)
  const price::LinkLoad* busiest = &loads[0];
  const price::LinkLoad* quietest = &loads[0];
  for (const price::LinkLoad& load : loads) {
    if (load.busy > busiest->busy) busiest = &load;
    if (load.busy < quietest->busy) quietest = &load;
  }
  ASSERT_LT(quietest->busy, busiest->busy);
  double full = AttributeOf(svg, "data-channel=\"" + std::to_string(busiest->channel) + "\"", "stroke-width");
  double thin = AttributeOf(svg, "data-channel=\"" + std::to_string(quietest->channel) + "\"", "stroke-width");
  EXPECT_DOUBLE_EQ(full, 8.0);  // 2 + 6 x 1
  EXPECT_GT(full, thin);
  EXPECT_NE(svg.find(Escaped(busiest->name) + ": "), std::string::npos);  // named in the caption
  for (const price::LinkLoad& load : loads) {
    double width = AttributeOf(svg, "data-channel=\"" + std::to_string(load.channel) + "\"", "stroke-width");
    EXPECT_NEAR(width, 2 + 6 * load.busy.value() / busiest->busy.value(), 0.051) << load.name;
  }
  // Every channel without traffic (none here, but the code path is the same)
  // is either an idle lane or part of a link drawn whole at the plain width.
  for (int channel = 0; channel < t.num_channels(); ++channel) {
    auto on_channel = [&](const price::LinkLoad& load) { return load.channel == channel; };
    bool loaded = std::any_of(loads.begin(), loads.end(), on_channel);
    if (loaded) continue;
    double width = AttributeOf(svg, "data-channel=\"" + std::to_string(channel) + "\"", "stroke-width");
    if (width < 0) width = AttributeOf(svg, "data-link=\"" + std::to_string(channel / 2) + "\"", "stroke-width");
    EXPECT_LT(width, 2.0) << channel;
    EXPECT_GE(width, 0.0) << channel;
  }

  // A placement that reverses the chips moves the labels with it.
  net::Placement reversed(8);
  for (int rank = 0; rank < 8; ++rank) reversed[static_cast<size_t>(rank)] = 7 - rank;
  std::string moved = PlacementSvg(t, reversed, loads, "reversed");
  EXPECT_EQ(CheckXml(moved), "");
  EXPECT_NE(moved.find("<title>" + t.nodes[7].name + ": r0</title>"), std::string::npos);
  EXPECT_NE(moved.find("<title>" + t.nodes[0].name + ": r7</title>"), std::string::npos);
}

TEST(PlacementSvg, HandMadeLoadsAndUnusedChips) {
  auto t = hw::MakeTopology("v5e:2x4");
  ASSERT_TRUE(t.ok());
  // Four ranks on four of the eight chips; two loaded channels, one busy half
  // as long as the other.
  net::Placement placement = {5, 2, 0, 7};
  std::vector<price::LinkLoad> loads = {{0, t->ChannelName(0), 4e6, Seconds(2e-3)}, {3, t->ChannelName(3), 1e6, Seconds(1e-3)}};
  std::string svg = PlacementSvg(*t, placement, loads, "four ranks & two loads");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_NE(svg.find("four ranks &amp; two loads"), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"rank\""), 4);
  EXPECT_EQ(Count(svg, "<rect class=\"chip placed\""), 4);
  EXPECT_EQ(Count(svg, "<rect class=\"chip\""), 4);  // unused chips keep the plain look
  EXPECT_NE(svg.find("<title>" + t->nodes[5].name + ": r0</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>" + t->nodes[0].name + ": r2</title>"), std::string::npos);

  // Channel 0 is the busiest (width 2 + 6 = 8), channel 3 half of it (2 + 3 = 5);
  // their partners 1 and 2 are idle lanes of loaded links; the other 8 links
  // are drawn whole at the plain width.
  EXPECT_DOUBLE_EQ(AttributeOf(svg, "data-channel=\"0\"", "stroke-width"), 8.0);
  EXPECT_DOUBLE_EQ(AttributeOf(svg, "data-channel=\"3\"", "stroke-width"), 5.0);
  EXPECT_DOUBLE_EQ(AttributeOf(svg, "data-channel=\"1\"", "stroke-width"), 1.0);
  EXPECT_NE(svg.find("class=\"lane idle\" data-channel=\"2\""), std::string::npos);
  EXPECT_EQ(Count(svg, "data-link=\""), 8);
  EXPECT_DOUBLE_EQ(AttributeOf(svg, "data-link=\"2\"", "stroke-width"), 1.5);
  // The caption: ranks and chips, then the busiest first.
  EXPECT_NE(svg.find("4 logical ranks on 4 of 8 chips"), std::string::npos);
  size_t first = svg.find(Escaped(t->ChannelName(0)) + ": 2.000 ms, 100%, ");
  size_t second = svg.find(Escaped(t->ChannelName(3)) + ": 1.000 ms, 50%, ");
  EXPECT_NE(first, std::string::npos) << svg;
  EXPECT_NE(second, std::string::npos) << svg;
  EXPECT_LT(first, second);

  // No traffic: every link whole, and the caption says so.
  std::string quiet = PlacementSvg(*t, placement, {}, "quiet");
  EXPECT_EQ(CheckXml(quiet), "");
  EXPECT_EQ(Count(quiet, "data-channel="), 0);
  EXPECT_NE(quiet.find("no link traffic"), std::string::npos);
  EXPECT_EQ(PlacementSvg(*t, placement, loads, "four ranks & two loads"), svg);  // deterministic
}

// ---- plan_torch.py's parallelize_module plan. ----

// dp=2 x tp=4 (roles dp, tp), the zoo's [in, out] Linear layout.
search::Configuration DpTpConfig() {
  search::Configuration config;
  config.mesh = {{"dp", 2}, {"tp", 4}};
  config.axis_roles = {"dp", "tp"};
  config.placement = net::IdentityPlacement(8);
  config.tensors = {
      {"blocks.0.ffn.0.weight", "parameter", {8, 16}, {{}, {"tp"}}},
      {"blocks.0.ffn.0.bias", "parameter", {16}, {{"tp"}}},
      {"blocks.0.ffn.2.weight", "parameter", {16, 8}, {{"tp"}, {}}},
      {"blocks.0.ffn.2.bias", "parameter", {8}, {{}}},
      {"blocks.0.self_attn.q.weight", "parameter", {8, 8}, {{"dp"}, {"tp"}}},
      {"blocks.0.modulation", "parameter", {1, 6, 8}, {{}, {}, {}}},
      {"blocks.0.norm3.weight", "parameter", {8}, {{"dp"}}},
      {"blocks.0.norm3.bias", "parameter", {8}, {{}}},
      {"x", "input", {1, 4, 8}, {{}, {"tp"}, {}}},
      {"head.weight", "parameter", {8, 64}, {{}, {}}},
      {"head.bias", "parameter", {64}, {{}}},
  };
  return config;
}

TEST(ParallelizePlan, MegatronLinearsAndExplicitPlacements) {
  search::Configuration config = DpTpConfig();
  // Three Linears with a bias and a non-square weight; each bias matches the
  // weight's second dim (ffn.0 [8, 16] + [16], ffn.2 [16, 8] + [8], head
  // [8, 64] + [64]): the [in, out] layout, 3 votes to 0.
  EXPECT_EQ(DetectLinearLayout(config), LinearLayout::kInOut);
  std::string text = ParallelizePython(config);
  // Derivation, in PyTorch's [out, in] layout (dims of rank-2 Linear weights swapped):
  //   ffn.0: weight out dim (ours 1 -> 0) and bias on tp, nothing on dp   -> colwise
  //   ffn.2: weight in dim (ours 0 -> 1) on tp, bias whole                -> rowwise
  //   self_attn.q (no bias): ours dim 0 on dp -> 1, dim 1 on tp -> 0: dp splits it too -> explicit
  //   modulation (leaf of "blocks.0"), norm3 (rank-1 weight): not Linears -> explicit, unswapped
  //   head: a Linear split nowhere -> explicit Replicate; the input "x" is no parameter.
  const std::string want =
      "TP_MESH_DIM = \"tp\"\n"
      "PARALLELIZE_PLAN = {\n"
      "    \"blocks.0.ffn.0\": \"colwise\",\n"
      "    \"blocks.0.ffn.2\": \"rowwise\",\n"
      "    \"blocks.0.self_attn.q\": {\"weight\": [(\"shard\", 1), (\"shard\", 0)]},\n"
      "    \"blocks.0\": {\"modulation\": [(\"replicate\",), (\"replicate\",)]},\n"
      "    \"blocks.0.norm3\": {\"weight\": [(\"shard\", 0), (\"replicate\",)], \"bias\": [(\"replicate\",), "
      "(\"replicate\",)]},\n"
      "    \"head\": {\"weight\": [(\"replicate\",), (\"replicate\",)], \"bias\": [(\"replicate\",), "
      "(\"replicate\",)]},\n"
      "}\n";
  EXPECT_NE(text.find(want), std::string::npos) << text;
  EXPECT_NE(text.find("# stores Linear weights [in, out], so their dims are swapped from PARAM_PLACEMENTS."),
            std::string::npos);
  for (const char* function : {"def module_placements(names, strict=False):", "def parallelize_plan():",
                               "def apply_plan(module, mesh, strict=False):"}) {
    EXPECT_NE(text.find(function), std::string::npos) << function;
  }
  EXPECT_EQ(ParallelizePython(config), text) << "not deterministic";

  // In plan_torch.py, after the existing placement tables and before the xDiT part.
  search::Plan plan;
  plan.model = "tiny";
  std::string file = PlanTorch(plan, config);
  size_t at = file.find(want);
  ASSERT_NE(at, std::string::npos) << file;
  EXPECT_LT(file.find("PARAM_PLACEMENTS = {"), at);
  EXPECT_GT(file.find("XDIT_COMMAND = "), at);
  // PARAM_PLACEMENTS keeps the plan's own layout: ffn.0's weight split on its dim 1.
  EXPECT_NE(file.find("    \"blocks.0.ffn.0.weight\": [(\"replicate\",), (\"shard\", 1)],\n"), std::string::npos);
}

TEST(RuntimePlan, RolesSpecsAndPricedCollectives) {
  // What python/aoizora_torch/runtime.py reads: the role of each mesh dim, the
  // specs that split a dim over several mesh dims (here the tokens over ring
  // then ulysses; "w" splits no dim twice, so it is left out), and the priced
  // classes as the simulator lists them.
  search::Configuration config;
  config.mesh = {{"cfg", 2}, {"ring", 2}, {"ulysses", 2}};
  config.axis_roles = {"cfg", "ring", "ulysses"};
  config.placement = net::IdentityPlacement(8);
  config.tensors = {
      {"w", "parameter", {4, 4}, {{}, {"ulysses"}}},
      {"value %8 (result of 'to_tokens')", "activation", {2, 64, 8}, {{"cfg"}, {"ring", "ulysses"}, {}}},
  };
  price::ClassCost permute;
  permute.kind = "collective-permute";
  permute.bytes = Bytes(786432);
  permute.groups = "{{0,2},{2,0}}";
  permute.count = 30;
  config.breakdown.classes = {permute};
  const std::string text = RuntimePython(config);
  const std::string want =
      "AXIS_ROLES = (\"cfg\", \"ring\", \"ulysses\")\n"
      "# The PartitionSpec (mesh dims per tensor dim, major first) of every tensor that splits a dim over\n"
      "# several mesh dims, where placements alone do not say which is major.\n"
      "MULTI_AXIS_SPECS = {\n"
      "    \"value %8 (result of 'to_tokens')\": (\"cfg\", (\"ring\", \"ulysses\"), None),\n"
      "}\n";
  EXPECT_NE(text.find(want), std::string::npos) << text;
  EXPECT_NE(text.find("PRICED_COLLECTIVES = [\n    (\"collective-permute\", 786432, \"{{0,2},{2,0}}\", 30),\n]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    return runtime.parallelize(module, globals(), rank=rank, dry_run=dry_run, strict=strict)\n"),
            std::string::npos);
  // Without roles (a seeded plan), every dim's role is "", which the runtime refuses by name.
  config.axis_roles.clear();
  EXPECT_NE(RuntimePython(config).find("AXIS_ROLES = (\"\", \"\", \"\")\n"), std::string::npos);
  // In plan_torch.py, after the parallelize_module plan.
  search::Plan plan;
  plan.model = "tiny";
  const std::string file = PlanTorch(plan, config);
  EXPECT_LT(file.find("def apply_plan("), file.find("def parallelize_runtime("));
}

TEST(RuntimePlan, PerPartHybridIsRefusedByItsRole) {
  // A per-part hybrid (search/hybrid.h) runs tp in some block parts on the
  // ring dim: AXIS_ROLES says so, which runtime.Mesh refuses by name (it runs
  // one strategy per mesh dim); the placements stay exact.
  search::Configuration config;
  config.mesh = {{"cfg", 2}, {"ring", 4}};
  config.axis_roles = {"cfg", "ring"};
  config.per_part = "tp=ring@cross_attn+ffn";
  config.placement = net::IdentityPlacement(8);
  const std::string text = RuntimePython(config);
  EXPECT_NE(text.find("AXIS_ROLES = (\"cfg\", \"ring+tp@cross_attn+ffn\")\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# Per-part hybrid (tp=ring@cross_attn+ffn): Megatron TP inside those block parts on the ring"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("parallelize_runtime() refuses this plan"), std::string::npos);
}

// Ulysses head chunks: plan_torch.py names them for the runtime (which runs
// them with async all-to-alls), xDiT's launch says it has no such chunks,
// and plan_jax.py gives the ranges the attention must loop over and the XLA
// flags (GSPMD does not chunk by itself).
TEST(RuntimePlan, UlyssesChunksAreNamedRefusedOrExplained) {
  search::Configuration config;
  config.mesh = {{"ulysses", 4}};
  config.axis_roles = {"ulysses"};
  config.placement = net::IdentityPlacement(4);
  config.ulysses = 4;
  config.ulysses_chunks = 3;
  config.ulysses_head_chunks = {{0, 4}, {4, 8}, {8, 12}};
  config.sharding = "ulysses=ulysses";
  const std::string text = RuntimePython(config);
  EXPECT_NE(text.find("\nULYSSES_ATTENTION_CHUNKS = 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("aoizora_torch.runtime issues them async"), std::string::npos);
  search::Plan plan;
  plan.model = "wan2.1-t2v-1.3b";
  plan.topology = "h100:4";
  const XditLaunch launch = PlanXditLaunch(plan, config);
  EXPECT_FALSE(launch.expressible);
  ASSERT_EQ(launch.notes.size(), 1u);
  EXPECT_NE(launch.notes[0].find("xDiT's Ulysses runs one all-to-all per tensor: it has no head chunks"),
            std::string::npos);
  plan.chips = {{0, "gpu0", {}}, {1, "gpu1", {}}, {2, "gpu2", {}}, {3, "gpu3", {}}};
  const std::string jax = PlanJax(plan, config);
  EXPECT_NE(jax.find("\nULYSSES_ATTENTION_CHUNKS = 3\nULYSSES_HEAD_CHUNKS = ((0, 4), (4, 8), (8, 12))\n"),
            std::string::npos)
      << jax;
  EXPECT_NE(jax.find("--xla_tpu_enable_async_all_to_all=true --xla_tpu_overlap_compute_collective_tc=true"),
            std::string::npos);
  // Unchunked: none of it.
  config.ulysses_chunks = 1;
  config.ulysses_head_chunks.clear();
  EXPECT_EQ(RuntimePython(config).find("ULYSSES_ATTENTION_CHUNKS"), std::string::npos);
  EXPECT_EQ(PlanJax(plan, config).find("ULYSSES"), std::string::npos);
}

TEST(JaxPlan, PartialSumsAreMarkedUnconstrained) {
  // A row-parallel linear's result (a partial sum over "ulysses") is listed
  // with its addends' spec and a note not to constrain it: XLA then
  // reduce-scatters it where its consumer wants the sequence split, as priced.
  search::Plan plan;
  plan.model = "tiny";
  plan.topology = "v5e:2x2";
  plan.tpu = true;
  search::Configuration config;
  config.mesh = {{"ulysses", 4}};
  config.axis_roles = {"ulysses"};
  config.placement = net::IdentityPlacement(4);
  search::TensorSpec row{"value %9 (result of 'blocks.0.ffn.2')", "activation", {1, 64, 8}, {{}, {}, {}}, {"ulysses"}};
  search::TensorSpec gate{"value %10 (result of 'blocks.0.ffn.gate')", "activation", {1, 64, 8}, {{}, {"ulysses"}, {}}};
  config.tensors = {row, gate};
  plan.chips = {{0, "(0,0,0)", {0, 0, 0}}, {1, "(1,0,0)", {1, 0, 0}}, {2, "(0,1,0)", {0, 1, 0}}, {3, "(1,1,0)", {1, 1, 0}}};
  const std::string file = PlanJax(plan, config);
  EXPECT_NE(file.find("    \"value %9 (result of 'blocks.0.ffn.2')\": (None, None, None),  # partial sum over "
                      "(\"ulysses\",): leave unconstrained\n"),
            std::string::npos)
      << file;
  EXPECT_NE(file.find("    \"value %10 (result of 'blocks.0.ffn.gate')\": (None, \"ulysses\", None),\n"),
            std::string::npos);
}

TEST(ParallelizePlan, PyTorchLayoutIsKept) {
  // An ONNX import may keep nn.Linear's [out, in]: proj [16, 8] with bias [16]
  // votes kOutIn, so its dims are not swapped: Shard(0) on tp with the bias is
  // colwise; out's weight [8, 16] split on dim 1 with a whole bias is rowwise.
  search::Configuration config;
  config.mesh = {{"tp", 2}};
  config.placement = net::IdentityPlacement(2);
  config.tensors = {
      {"proj.weight", "parameter", {16, 8}, {{"tp"}, {}}},
      {"proj.bias", "parameter", {16}, {{"tp"}}},
      {"out.weight", "parameter", {8, 16}, {{}, {"tp"}}},
      {"out.bias", "parameter", {8}, {{}}},
  };
  // proj votes kOutIn (16 == rows), out votes kOutIn too (8 == rows).
  EXPECT_EQ(DetectLinearLayout(config), LinearLayout::kOutIn);
  std::string text = ParallelizePython(config);
  // No axis roles: the mesh axis named "tp" is the tensor-parallel one.
  EXPECT_NE(text.find("TP_MESH_DIM = \"tp\"\nPARALLELIZE_PLAN = {\n    \"proj\": \"colwise\",\n    \"out\": "
                      "\"rowwise\",\n}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# stores them [out, in] too, as PARAM_PLACEMENTS does."), std::string::npos);

  // The same split on an axis whose role is not tp (sequence parallel here)
  // is no Megatron layer: explicit placements, and no TP mesh dim.
  config.axis_roles = {"ulysses"};
  text = ParallelizePython(config);
  EXPECT_NE(text.find("TP_MESH_DIM = None\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    \"proj\": {\"weight\": [(\"shard\", 0)], \"bias\": [(\"shard\", 0)]},\n"), std::string::npos)
      << text;
}

TEST(ParallelizePlan, SquareLinearsAloneDefaultToTheZooLayout) {
  // Only square weights: no vote, so [in, out] (the zoo's), and a bias that
  // is neither dim does not vote either.
  search::Configuration config;
  config.mesh = {{"tp", 2}};
  config.placement = net::IdentityPlacement(2);
  config.tensors = {{"q.weight", "parameter", {8, 8}, {{}, {"tp"}}},
                    {"q.bias", "parameter", {8}, {{"tp"}}},
                    {"odd.weight", "parameter", {4, 8}, {{}, {}}},
                    {"odd.bias", "parameter", {3}, {{}}}};
  EXPECT_EQ(DetectLinearLayout(config), LinearLayout::kInOut);
  // q's output dim (ours 1) is PyTorch's dim 0: colwise.
  EXPECT_NE(ParallelizePython(config).find("    \"q\": \"colwise\",\n"), std::string::npos);
}

}  // namespace
}  // namespace az::emit
