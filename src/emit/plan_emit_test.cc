// The plan emitters on a hand-made plan: plan.json keys and values, the
// generated Python (compiled by python3, imported against stand-in jax /
// numpy / torch modules, and its device order parsed back here), the xDiT rank
// order, the report, the comparison SVG and the output directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "emit/codegen_jax.h"
#include "emit/codegen_torch.h"
#include "emit/compare_svg.h"
#include "emit/output.h"
#include "emit/plan_format.h"
#include "emit/plan_json.h"
#include "emit/report.h"
#include "hw/topology.h"
#include "net/collective.h"

namespace az::emit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using search::Configuration;
using search::Plan;

// A name that needs every kind of escaping a Python literal has.
const std::string kWeirdName = "blocks.0.we\"ird\\name'q";
const std::string kLineBreakName = "act\nline\tbreak";
const std::string kUnicodeName = "blocks.0.norm_\xc3\xa9";  // "norm_é"
const net::Placement kPlacement = {0, 1, 3, 2, 7, 6, 5, 4};

std::vector<search::TensorSpec> Tensors() {
  return {
      {"blocks.0.self_attn.q.weight", "parameter", {5120, 5120}, {{}, {"y"}}},
      {"blocks.0.ffn.0.bias", "parameter", {13824}, {{"x", "y"}}},
      {kWeirdName, "parameter", {4, 8}, {{"x"}, {}}},
      {kUnicodeName, "parameter", {5120}, {{}}},
      {"hidden", "activation", {1, 75600, 5120}, {{}, {"x", "y"}, {}}},
      {kLineBreakName, "activation", {2, 8}, {{"y"}, {"x"}}},
      {"latent", "input", {1, 16, 21, 90, 160}, {{}, {}, {}, {}, {}}},
  };
}

// 123.4 ms per step: 100 ms compute, 23.4 ms exposed of 50 ms communication.
price::SimResult Breakdown(const hw::Topology& topology) {
  price::SimResult result;
  result.latency = Seconds(0.1234);
  result.compute = Seconds(0.1);
  result.communication = Seconds(0.05);
  result.exposed_communication = Seconds(0.0234);
  result.kernels = 120;
  result.collectives = 120;
  price::ClassCost all_to_all;
  all_to_all.kind = "all-to-all";
  all_to_all.bytes = Bytes(64 << 20);
  all_to_all.groups = "{{0,1,2,3},{4,5,6,7}}";
  all_to_all.algorithm = "pairwise";
  all_to_all.count = 80;
  all_to_all.time = Seconds(0.0004);  // 32 ms in all
  all_to_all.exposed = Seconds(0.015);
  price::ClassCost permute;
  permute.kind = "collective-permute";
  permute.bytes = Bytes(16 << 20);
  permute.groups = "{0,4},{4,0}";
  permute.algorithm = "direct";
  permute.count = 40;
  permute.time = Seconds(0.00045);  // 18 ms in all
  permute.exposed = Seconds(0.0084);
  result.classes = {all_to_all, permute};
  result.links = {{0, topology.ChannelName(0), 3e9, Seconds(0.02)}, {1, topology.ChannelName(1), 1e9, Seconds(0.01)}};
  price::Slice kernel;
  kernel.name = "fusion.1";
  kernel.kind = "matmul";
  kernel.duration = Seconds(0.1);
  price::Slice collective;
  collective.engine = price::Slice::kCommunication;
  collective.name = "all-to-all.2";
  collective.kind = "all-to-all";
  collective.start = Seconds(0.1);
  collective.duration = Seconds(0.0234);
  collective.exposed = Seconds(0.0234);
  result.slices = {kernel, collective};
  return result;
}

Configuration Best(const hw::Topology& topology) {
  Configuration config;
  config.label = "aoizora";
  config.description = "usp:ulysses=y,ring=x";
  config.mesh = {{"x", 2}, {"y", 4}};
  config.sharding = "usp:ulysses=y,ring=x";
  config.placement = kPlacement;
  config.placement_method = "exhaustive";
  config.step_latency = Seconds(0.1234);
  config.peak_memory = Bytes(int64_t{30} << 30);
  config.parameter_memory = Bytes(int64_t{28} << 30);
  config.evidence_hash = "0123abcd";
  config.breakdown = Breakdown(topology);
  config.tensors = Tensors();
  config.ulysses = 4;
  config.ring = 2;
  config.expressible_in_xdit = true;
  config.axis_roles = {"ring", "ulysses"};
  return config;
}

Configuration Expert() {
  Configuration config;
  config.label = "expert";
  config.description = "xDiT ulysses=8";
  config.mesh = {{"sp", 8}};
  config.sharding = "ulysses=sp";
  config.placement = net::IdentityPlacement(8);
  config.placement_method = "default";
  config.step_latency = Seconds(0.2);
  config.peak_memory = Bytes(int64_t{31} << 30);
  config.breakdown.latency = Seconds(0.2);
  config.breakdown.compute = Seconds(0.1);
  config.breakdown.exposed_communication = Seconds(0.1);
  config.tensors = {{"blocks.0.self_attn.q.weight", "parameter", {5120, 5120}, {{}, {}}}};
  config.ulysses = 8;
  config.expressible_in_xdit = true;
  config.axis_roles = {"ulysses"};
  return config;
}

Configuration Alpa() {
  Configuration config;
  config.label = "alpa";
  config.description = "Alpa ILP";
  config.mesh = {{"x", 2}, {"y", 4}};
  config.sharding = "alpa";
  config.placement = net::IdentityPlacement(8);
  config.placement_method = "jax create_device_mesh";
  config.step_latency = Seconds(0.15);
  config.peak_memory = Bytes(int64_t{20} << 30);
  return config;
}

std::vector<search::ChipInfo> Chips(const hw::Topology& topology) {
  std::vector<search::ChipInfo> chips;
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    const hw::Node& node = topology.nodes[static_cast<size_t>(chip)];
    chips.push_back({chip, node.name, node.coords});
  }
  return chips;
}

const hw::Topology& Gpus() {
  static const hw::Topology* topology = [] {
    auto made = hw::MakeTopology("h100:8");
    AZ_CHECK_MSG(made.ok(), made.status().ToString());
    return new hw::Topology(std::move(*made));
  }();
  return *topology;
}

const hw::Topology& Tpus() {
  static const hw::Topology* topology = [] {
    auto made = hw::MakeTopology("v5e:2x4");
    AZ_CHECK_MSG(made.ok(), made.status().ToString());
    return new hw::Topology(std::move(*made));
  }();
  return *topology;
}

Plan MakePlan(bool tpu) {
  const hw::Topology& topology = tpu ? Tpus() : Gpus();
  Plan plan;
  plan.model = "wan2.1-t2v-14b";
  plan.width = 1280;
  plan.height = 720;
  plan.frames = 81;
  plan.steps = 50;
  plan.cfg_mode = "two-pass";
  plan.topology = tpu ? "v5e:2x4" : "h100:8";
  plan.chip = tpu ? "v5e" : "h100";
  plan.tpu = tpu;
  plan.hbm = Bytes(tpu ? int64_t{16} << 30 : int64_t{80} << 30);
  plan.chips = Chips(topology);
  plan.seed = 7;
  plan.stack = tpu ? "jax-flash" : "fa3";
  plan.stack_reason = "the test's";
  plan.attention_efficiency = 0.6019;
  plan.best = Best(topology);
  plan.baselines = {{"expert", Expert(), ""}, {"alpa", Alpa(), ""}};
  plan.video_latency = Seconds(50 * 0.1234);
  plan.roofline_bound = Seconds(0.08);
  plan.efficiency = 0.08 / 0.1234;
  plan.plan_time = Seconds(12.5);
  plan.meshes_considered = 5;
  plan.candidates_considered = 40;
  plan.candidates_compiled = 8;
  return plan;
}

// ---- Helpers. ----

// A fresh directory under the test temp dir, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::path(::testing::TempDir()) / ("az_plan_emit_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  ASSERT_TRUE(file.good()) << path;
}

std::string ReadText(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

// The integers of `NAME = [a, b, ...]` in generated Python.
std::vector<int> ParseIntList(const std::string& text, const std::string& name) {
  std::string key = "\n" + name + " = [";
  size_t start = text.find(key);
  EXPECT_NE(start, std::string::npos) << name;
  if (start == std::string::npos) return {};
  start += key.size();
  size_t end = text.find(']', start);
  std::vector<int> values;
  std::stringstream items(text.substr(start, end - start));
  std::string item;
  while (std::getline(items, item, ',')) values.push_back(std::stoi(item));
  return values;
}

// python3 on PATH; otherwise the test is skipped, except in CI, where the
// Python checks must run.
bool HavePython() { return std::system("python3 --version > /dev/null 2>&1") == 0; }
bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

#define REQUIRE_PYTHON()                                                    \
  do {                                                                      \
    if (!HavePython()) {                                                    \
      if (InCi()) FAIL() << "python3 is not on PATH (CI=true requires it)"; \
      GTEST_SKIP() << "python3 is not on PATH: the Python checks need it";  \
    }                                                                       \
  } while (0)

int RunPython(const std::string& args) { return std::system(("python3 -B " + args + " 2>&1").c_str()); }

// Imports plan_jax.py / plan_torch.py with stand-in jax, numpy and torch
// modules (so it runs where neither is installed) and checks, in Python, what
// the C++ side cannot: that the literals evaluate to the plan's names, specs
// and device order, and that the functions build what they should.
constexpr const char* kCheckScript = R"PY(
import json, sys, types

directory, expected_path = sys.argv[1], sys.argv[2]
with open(expected_path, encoding="utf-8") as f:
    expected = json.load(f)
sys.path.insert(0, directory)


class Array:
    def __init__(self, items, shape=None):
        self.items = list(items)
        self.shape = shape if shape is not None else (len(self.items),)

    def reshape(self, shape):
        count = 1
        for size in shape:
            count *= size
        assert count == len(self.items), (shape, len(self.items))
        return Array(self.items, tuple(shape))

    @property
    def flat(self):
        return iter(self.items)


class Device:
    def __init__(self, id):
        self.id = id


numpy = types.ModuleType("numpy")
numpy.array = lambda items, dtype=None: Array(items)
jax = types.ModuleType("jax")
sharding = types.ModuleType("jax.sharding")
lax = types.ModuleType("jax.lax")


class Mesh:
    def __init__(self, devices, axis_names):
        self.devices, self.axis_names = devices, tuple(axis_names)


class PartitionSpec(tuple):
    def __new__(cls, *entries):
        return tuple.__new__(cls, entries)


class NamedSharding:
    def __init__(self, mesh, spec):
        self.mesh, self.spec = mesh, spec


sharding.Mesh, sharding.PartitionSpec, sharding.NamedSharding = Mesh, PartitionSpec, NamedSharding
lax.with_sharding_constraint = lambda x, s: (x, s)
jax.sharding, jax.lax = sharding, lax
jax.device_put = lambda value, s: (value, s)
count = len(expected["device_order"])
jax.devices = lambda: [Device(i) for i in reversed(range(count))]

torch = types.ModuleType("torch")
distributed = types.ModuleType("torch.distributed")
device_mesh = types.ModuleType("torch.distributed.device_mesh")
tensor = types.ModuleType("torch.distributed.tensor")
torch.int = "int"
torch.tensor = lambda data, dtype=None: Array(data)
distributed.is_initialized = lambda: False


class DeviceMesh:
    def __init__(self, device_type, mesh, mesh_dim_names=None):
        self.device_type, self.mesh, self.mesh_dim_names = device_type, mesh, mesh_dim_names


class Shard:
    def __init__(self, dim):
        self.dim = dim

    def __eq__(self, other):
        return isinstance(other, Shard) and other.dim == self.dim


class Replicate:
    def __eq__(self, other):
        return isinstance(other, Replicate)


device_mesh.DeviceMesh = DeviceMesh
tensor.Shard, tensor.Replicate = Shard, Replicate
tensor.distribute_tensor = lambda t, mesh, placements: (t, placements)
torch.distributed, distributed.device_mesh, distributed.tensor = distributed, device_mesh, tensor
sys.modules.update({
    "numpy": numpy, "jax": jax, "jax.sharding": sharding, "jax.lax": lax, "torch": torch,
    "torch.distributed": distributed, "torch.distributed.device_mesh": device_mesh,
    "torch.distributed.tensor": tensor,
})


def spec_tuple(spec):
    return tuple(None if s is None else (s if isinstance(s, str) else tuple(s)) for s in spec)


axes, shape = tuple(expected["axes"]), tuple(expected["shape"])

import plan_jax

assert plan_jax.MESH_AXES == axes, plan_jax.MESH_AXES
assert plan_jax.MESH_SHAPE == shape, plan_jax.MESH_SHAPE
assert plan_jax.DEVICE_ORDER == expected["device_order"], plan_jax.DEVICE_ORDER
mesh = plan_jax.make_mesh()
assert [d.id for d in mesh.devices.flat] == expected["device_order"]
assert mesh.devices.shape == shape and mesh.axis_names == axes
try:
    plan_jax.make_mesh([Device(0)])
    raise AssertionError("make_mesh accepted the wrong device count")
except ValueError:
    pass
params = {t["name"]: t for t in expected["tensors"] if t["role"] == "parameter"}
activations = {t["name"]: t for t in expected["tensors"] if t["role"] != "parameter"}
assert set(plan_jax.PARAM_SPECS) == set(params), sorted(plan_jax.PARAM_SPECS)
assert set(plan_jax.ACTIVATION_SPECS) == set(activations), sorted(plan_jax.ACTIVATION_SPECS)
for name, t in params.items():
    assert plan_jax.PARAM_SPECS[name] == spec_tuple(t["spec"]), (name, plan_jax.PARAM_SPECS[name])
    assert tuple(plan_jax.param_sharding(mesh, name).spec) == spec_tuple(t["spec"])
placed = plan_jax.shard_params(mesh, {name: name for name in params})
assert all(tuple(placed[name][1].spec) == spec_tuple(t["spec"]) for name, t in params.items())
try:
    plan_jax.shard_params(mesh, {"not a parameter": 0})
    raise AssertionError("shard_params accepted an unknown name")
except KeyError:
    pass
for name, t in activations.items():
    value, constraint = plan_jax.constrain("x", name, mesh)
    assert tuple(constraint.spec) == spec_tuple(t["spec"]), (name, constraint.spec)

if expected["torch"]:
    import plan_torch

    assert plan_torch.MESH_DIM_NAMES == axes and plan_torch.MESH_SHAPE == shape
    assert plan_torch.RANK_LAYOUT == expected["rank_layout"], plan_torch.RANK_LAYOUT
    device_mesh = plan_torch.make_device_mesh()
    assert device_mesh.device_type == "cuda" and device_mesh.mesh_dim_names == axes
    assert list(device_mesh.mesh.flat) == expected["rank_layout"] and device_mesh.mesh.shape == shape
    for name, t in params.items():
        want = []
        for axis in axes:
            dims = [d for d, s in enumerate(t["spec"]) if s == axis or (isinstance(s, list) and axis in s)]
            want.append(Shard(dims[0]) if dims else Replicate())
        assert plan_torch.dtensor_placements(name) == want, name
    for name in activations:
        assert len(plan_torch.activation_placements(name)) == len(axes)
    assert set(plan_torch.distribute_params(None, {name: 0 for name in params})) == set(params)
    if expected["xdit"]:
        assert isinstance(plan_torch.XDIT_COMMAND, str) and "torchrun" in plan_torch.XDIT_COMMAND
print("python checks passed")
)PY";

// Writes the expected values the Python check compares against.
void WriteExpected(const Plan& plan, bool torch, const fs::path& path) {
  Json expected;
  expected["device_order"] = plan.best.placement;
  expected["rank_layout"] = plan.best.placement;
  Json axes = Json::array(), shape = Json::array();
  for (const auto& [axis, size] : plan.best.mesh) {
    axes.push_back(axis);
    shape.push_back(size);
  }
  expected["axes"] = axes;
  expected["shape"] = shape;
  expected["torch"] = torch;
  expected["xdit"] = torch && !plan.tpu && plan.best.expressible_in_xdit;
  Json tensors = Json::array();
  for (const search::TensorSpec& tensor : plan.best.tensors) {
    Json spec = Json::array();
    for (const auto& axes_of_dim : tensor.spec) {
      if (axes_of_dim.empty()) {
        spec.push_back(nullptr);
      } else if (axes_of_dim.size() == 1) {
        spec.push_back(axes_of_dim[0]);
      } else {
        spec.push_back(axes_of_dim);
      }
    }
    tensors.push_back(Json{{"name", tensor.name}, {"role", tensor.role}, {"spec", spec}});
  }
  expected["tensors"] = tensors;
  WriteText(path, expected.dump());
}

// Tags balance: every <a> closed by </a> in order, <a/> alone; one root.
// Returns "" or what is wrong.
std::string CheckTagBalance(const std::string& text) {
  std::vector<std::string> open;
  int roots = 0;
  for (size_t pos = text.find('<'); pos != std::string::npos; pos = text.find('<', pos + 1)) {
    size_t end = text.find('>', pos);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(pos);
    std::string tag = text.substr(pos + 1, end - pos - 1);
    if (tag.empty()) return "empty tag at " + std::to_string(pos);
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(pos);
    if (tag[0] == '/') {
      std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return "unbalanced </" + name + "> at " + std::to_string(pos);
      open.pop_back();
      continue;
    }
    std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
    if (open.empty()) ++roots;
    if (tag.back() != '/') open.push_back(name);
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  // Every & starts an entity.
  for (size_t pos = text.find('&'); pos != std::string::npos; pos = text.find('&', pos + 1)) {
    size_t semicolon = text.find(';', pos);
    if (semicolon == std::string::npos || semicolon - pos > 6) return "bare & at " + std::to_string(pos);
  }
  return "";
}

// ---- Formatting. ----

TEST(PlanFormat, PythonStringsEscapeEverything) {
  EXPECT_EQ(PyString("a\"b\\c'd"), "\"a\\\"b\\\\c'd\"");
  EXPECT_EQ(PyString("x\ny\t\x01"), "\"x\\ny\\t\\x01\"");
  EXPECT_EQ(PyString("\xc3\xa9"), "\"\\u00e9\"");              // é
  EXPECT_EQ(PyString("\xf0\x9f\x99\x82"), "\"\\U0001f642\"");  // an emoji past the BMP
  EXPECT_EQ(PyString("\xff"), "\"\\udcff\"");                  // not UTF-8: surrogateescape
  EXPECT_EQ(PySpecTuple({{}, {"x"}, {"x", "y"}}), "(None, \"x\", (\"x\", \"y\"))");
  EXPECT_EQ(PySpecTuple({{"x"}}), "(\"x\",)");
  EXPECT_EQ(PySpecTuple({}), "()");
  EXPECT_EQ(PyFloat(2), "2.0");
  EXPECT_EQ(PyFloat(0.1), "0.1");
}

TEST(PlanFormat, UnitsAndQuoting) {
  EXPECT_EQ(FormatDuration(0.1234), "123 ms");
  EXPECT_EQ(FormatDuration(6.17), "6.17 s");
  EXPECT_EQ(FormatDuration(2.5e-5), "25.0 us");
  EXPECT_EQ(FormatMs(0.1234), "123.4 ms");
  EXPECT_EQ(FormatBytes(int64_t{30} << 30), "30.0 GiB");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatRatio(0.2 / 0.1234), "1.62x");
  EXPECT_EQ(FormatRatio(Speedup(0, 1)), "-");
  EXPECT_EQ(ShellWord("1280*720"), "'1280*720'");
  EXPECT_EQ(ShellWord("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellWord("--ring_degree"), "--ring_degree");
  EXPECT_EQ(MarkdownCell("a|b\nc"), "a\\|b c");
  EXPECT_EQ(XmlText("<a & 'b'>"), "&lt;a &amp; &apos;b&apos;&gt;");
}

// ---- plan.json. ----

TEST(PlanJson, HasTheRequiredKeysAndValues) {
  Plan plan = MakePlan(/*tpu=*/false);
  std::string text = PlanJson(plan);
  EXPECT_EQ(text, PlanJson(plan)) << "not deterministic";
  Json doc = Json::parse(text);

  EXPECT_EQ(doc["format"], kPlanJsonFormat);
  const Json& inputs = doc["inputs"];
  EXPECT_EQ(inputs["model"], "wan2.1-t2v-14b");
  EXPECT_EQ(inputs["resolution"], "1280x720");
  EXPECT_EQ(inputs["frames"], 81);
  EXPECT_EQ(inputs["steps"], 50);
  EXPECT_EQ(inputs["cfg"], "two-pass");
  EXPECT_EQ(inputs["topology"], "h100:8");
  EXPECT_EQ(inputs["chip"], "h100");
  EXPECT_EQ(inputs["seed"], 7);
  // Which software stack priced the plan (price/stack.h), in plan.json, the report and the summary.
  EXPECT_EQ(inputs["stack"]["name"], "fa3");
  EXPECT_EQ(inputs["stack"]["reason"], "the test's");
  EXPECT_DOUBLE_EQ(inputs["stack"]["attention_efficiency"].get<double>(), 0.6019);
  EXPECT_NE(PlanReport(plan).find("Priced with the software stack fa3 (attention efficiency 0.6019): the test's."),
            std::string::npos);
  EXPECT_NE(PlanSummary(plan).find("on h100:8, stack fa3\n"), std::string::npos);

  const Json& best = doc["best"];
  EXPECT_DOUBLE_EQ(best["step_latency_s"].get<double>(), 0.1234);
  EXPECT_EQ(best["mesh"]["axes"], Json({"x", "y"}));
  EXPECT_EQ(best["mesh"]["shape"], Json({2, 4}));
  EXPECT_EQ(best["sharding"], "usp:ulysses=y,ring=x");
  EXPECT_EQ(best["peak_memory_bytes"], int64_t{30} << 30);
  EXPECT_EQ(best["placement"]["method"], "exhaustive");
  EXPECT_EQ(best["placement"]["device_order"], Json(kPlacement));
  EXPECT_EQ(best["placement"]["xla_device_assignment"], Json::array({Json(kPlacement)}));
  // Logical 2 = mesh (0, 2) runs on chip 3 = node 0, GPU 3.
  const Json& rank2 = best["placement"]["assignment"][2];
  EXPECT_EQ(rank2["logical_id"], 2);
  EXPECT_EQ(rank2["mesh_position"], Json({0, 2}));
  EXPECT_EQ(rank2["device_id"], 3);
  EXPECT_EQ(rank2["name"], "gpu3");
  EXPECT_EQ(rank2["coords"], Json({0, 3}));
  EXPECT_EQ(best["memory"]["parameter_bytes"], int64_t{28} << 30);
  EXPECT_EQ(best["memory"]["fits"], true);

  const Json& breakdown = best["breakdown"];
  EXPECT_DOUBLE_EQ(breakdown["compute_s"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(breakdown["exposed_communication_s"].get<double>(), 0.0234);
  ASSERT_EQ(breakdown["classes"].size(), 2u);
  EXPECT_EQ(breakdown["classes"][0]["kind"], "all-to-all");
  EXPECT_DOUBLE_EQ(breakdown["classes"][0]["total_s"].get<double>(), 80 * 0.0004);
  // By kind, largest total first: all-to-all 32 ms before the permutes' 18 ms.
  EXPECT_EQ(breakdown["by_kind"][0]["kind"], "all-to-all");
  EXPECT_EQ(breakdown["by_kind"][1]["kind"], "collective-permute");
  EXPECT_EQ(breakdown["busiest_links"][0]["channel"], 0);

  // Every tensor with its PartitionSpec; the odd name survives as is.
  const Json& tensors = best["tensors"];
  ASSERT_EQ(tensors.size(), plan.best.tensors.size());
  EXPECT_EQ(tensors[1]["spec"], Json::array({Json({"x", "y"})}));
  EXPECT_EQ(tensors[2]["name"], kWeirdName);
  EXPECT_EQ(tensors[2]["spec"], Json::array({"x", nullptr}));
  EXPECT_EQ(tensors[3]["name"], kUnicodeName);

  EXPECT_DOUBLE_EQ(doc["baselines"]["expert"]["step_latency_s"].get<double>(), 0.2);
  EXPECT_EQ(doc["baselines"]["expert"]["mesh"]["axes"], Json({"sp"}));
  EXPECT_DOUBLE_EQ(doc["baselines"]["alpa"]["step_latency_s"].get<double>(), 0.15);
  EXPECT_DOUBLE_EQ(doc["speedups"]["over_expert"].get<double>(), 0.2 / 0.1234);
  EXPECT_DOUBLE_EQ(doc["speedups"]["over_alpa"].get<double>(), 0.15 / 0.1234);
  EXPECT_DOUBLE_EQ(doc["video_latency_s"].get<double>(), 50 * 0.1234);
  EXPECT_DOUBLE_EQ(doc["plan_time_s"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(doc["roofline_bound_s"].get<double>(), 0.08);
  EXPECT_DOUBLE_EQ(doc["efficiency"].get<double>(), 0.08 / 0.1234);
  EXPECT_EQ(doc["search"]["candidates_compiled"], 8);

  const Json& xdit = best["xdit"];
  EXPECT_EQ(xdit["expressible"], true);
  ASSERT_TRUE(xdit["command"].is_array());
  EXPECT_NE(xdit["command"][0].get<std::string>().find("--ulysses_degree 4 --ring_degree 2"), std::string::npos);
}

TEST(PlanJson, MissingAlpaIsNullWithItsNote) {
  Plan plan = MakePlan(/*tpu=*/true);
  plan.baselines[1] = {"alpa", std::nullopt, "ILP infeasible: no sharding fits in 16 GiB"};
  Json doc = Json::parse(PlanJson(plan));
  const Json& alpa = doc["baselines"]["alpa"];
  EXPECT_TRUE(alpa["step_latency_s"].is_null());
  EXPECT_EQ(alpa["note"], plan.NoteOf("alpa"));
  EXPECT_TRUE(doc["speedups"]["over_deployed"].is_null());  // no deployed baseline in this plan
  EXPECT_TRUE(doc["speedups"]["over_alpa"].is_null());
  EXPECT_EQ(doc["inputs"]["platform"], "tpu");
  // A TPU plan has no xDiT command.
  EXPECT_TRUE(doc["best"]["xdit"]["command"].is_null());
}

// No expert configuration runs (search/plan.h: Plan::baselines): every output says
// so with the note instead of showing a latency; a best whose xDiT form the
// deployed code refuses gets no command line, with the reason.
TEST(PlanJson, MissingExpertIsNullWithItsNoteEverywhere) {
  Plan plan = MakePlan(/*tpu=*/false);
  plan.baselines[0] = {"expert", std::nullopt, "xDiT splits every frame's rows | refused"};
  plan.best.xdit_refused = "60 latent rows are not a multiple of 2 x 8";
  Json doc = Json::parse(PlanJson(plan));
  const Json& expert = doc["baselines"]["expert"];
  EXPECT_TRUE(expert["step_latency_s"].is_null());
  EXPECT_EQ(expert["note"], plan.NoteOf("expert"));
  EXPECT_TRUE(doc["speedups"]["over_expert"].is_null());
  EXPECT_TRUE(doc["best"]["xdit"]["command"].is_null());
  XditLaunch launch = PlanXditLaunch(plan, plan.best);
  EXPECT_TRUE(launch.xdit_commands.empty());
  ASSERT_FALSE(launch.notes.empty());
  EXPECT_NE(launch.notes.back().find("not a multiple of 2 x 8, so it would refuse to run"), std::string::npos);

  std::string report = PlanReport(plan);
  EXPECT_NE(report.find("| expert | - | no plan: xDiT splits every frame's rows \\| refused |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("No expert configuration runs here; aoizora is 1.22x as fast as Alpa's"), std::string::npos);
  std::string summary = PlanSummary(plan);
  EXPECT_NE(summary.find("  expert  no plan: xDiT splits"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("(aoizora 1.62x)"), std::string::npos);
  std::string svg = CompareSvg(plan);
  EXPECT_EQ(CheckTagBalance(svg), "") << svg;
  EXPECT_NE(svg.find("no plan: xDiT splits"), std::string::npos);
  EXPECT_EQ(svg.find("200.0 ms"), std::string::npos);
}

// ---- Generated Python. ----

TEST(CodegenJax, DeviceOrderIsThePlacement) {
  Plan plan = MakePlan(/*tpu=*/true);
  std::string text = PlanJax(plan, plan.best);
  EXPECT_EQ(text, PlanJax(plan, plan.best)) << "not deterministic";
  std::vector<int> order = ParseIntList(text, "DEVICE_ORDER");
  EXPECT_EQ(order, std::vector<int>(kPlacement.begin(), kPlacement.end()));
  EXPECT_NE(text.find("\nMESH_AXES = (\"x\", \"y\")\n"), std::string::npos);
  EXPECT_NE(text.find("\nMESH_SHAPE = (2, 4)\n"), std::string::npos);
  EXPECT_NE(text.find("def make_mesh(devices=None):"), std::string::npos);
  EXPECT_NE(text.find("by_id = {d.id: d for d in devices}"), std::string::npos);
  EXPECT_NE(text.find("jax.lax.with_sharding_constraint"), std::string::npos);
  EXPECT_NE(text.find("    \"blocks.0.ffn.0.bias\": ((\"x\", \"y\"),),\n"), std::string::npos);
  EXPECT_NE(text.find(PyString(kWeirdName) + ": (\"x\", None),"), std::string::npos);
  // The docstring says what the file is.
  EXPECT_NE(text.find("wan2.1-t2v-14b"), std::string::npos);
  EXPECT_NE(text.find("v5e:2x4"), std::string::npos);
  EXPECT_NE(text.find("123 ms per step"), std::string::npos);
  // jax is imported inside the functions only.
  EXPECT_EQ(text.find("\nimport jax"), std::string::npos);
}

TEST(CodegenTorch, RankLayoutIsThePlacementAndXditCommand) {
  Plan plan = MakePlan(/*tpu=*/false);
  std::string text = PlanTorch(plan, plan.best);
  EXPECT_EQ(text, PlanTorch(plan, plan.best)) << "not deterministic";
  EXPECT_EQ(ParseIntList(text, "RANK_LAYOUT"), std::vector<int>(kPlacement.begin(), kPlacement.end()));
  EXPECT_NE(text.find("\nMESH_DIM_NAMES = (\"x\", \"y\")\n"), std::string::npos);
  EXPECT_NE(text.find("DeviceMesh(\"cuda\", layout, mesh_dim_names=MESH_DIM_NAMES)"), std::string::npos);
  // q.weight: (None, y) -> replicate on x, shard dim 1 on y.
  EXPECT_NE(text.find("\"blocks.0.self_attn.q.weight\": [(\"replicate\",), (\"shard\", 1)],"), std::string::npos);
  // ulysses=y (fastest in xDiT's order), ring=x: xDiT rank q is logical rank
  // q, so CUDA_VISIBLE_DEVICES lists the placement itself.
  EXPECT_NE(text.find("CUDA_VISIBLE_DEVICES=0,1,3,2,7,6,5,4 torchrun --nproc_per_node=8 examples/wan_example.py "
                      "--task t2v --model Wan-AI/Wan2.1-T2V-14B-Diffusers --height 720 --width 1280 --num_frames 81 "
                      "--num_inference_steps 50 --ulysses_degree 4 --ring_degree 2 --seed 7"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("generate.py --task t2v-14B --size '1280*720' --frame_num 81 --sample_steps 50"),
            std::string::npos);
  EXPECT_NE(text.find("--ulysses_size 4 --ring_size 2"), std::string::npos);
  EXPECT_NE(text.find("tp-sp-pp-cfg-dp"), std::string::npos);
}

TEST(CodegenTorch, TpuPlanSaysItTargetsGpus) {
  Plan plan = MakePlan(/*tpu=*/true);
  std::string text = PlanTorch(plan, plan.best);
  EXPECT_NE(text.find("targets GPUs"), std::string::npos);
  EXPECT_NE(text.find("XDIT_COMMAND = None"), std::string::npos);
}

TEST(CodegenPython, FilesCompileAndImport) {
  REQUIRE_PYTHON();
  for (bool tpu : {false, true}) {
    SCOPED_TRACE(tpu ? "tpu" : "gpu");
    TempDir dir(tpu ? "python_tpu" : "python_gpu");
    Plan plan = MakePlan(tpu);
    WriteText(dir.path() / "plan_jax.py", PlanJax(plan, plan.best));
    WriteText(dir.path() / "plan_torch.py", PlanTorch(plan, plan.best));
    for (const char* file : {"plan_jax.py", "plan_torch.py"}) {
      EXPECT_EQ(RunPython("-m py_compile " + ShellWord((dir.path() / file).string())), 0) << file;
    }
    WriteText(dir.path() / "check.py", kCheckScript);
    WriteExpected(plan, /*torch=*/true, dir.path() / "expected.json");
    EXPECT_EQ(RunPython(ShellWord((dir.path() / "check.py").string()) + " " + ShellWord(dir.path().string()) + " " +
                        ShellWord((dir.path() / "expected.json").string())),
              0);
  }
}

// ---- FSDP prefetch depth (compile/spmd/schedule.h). ----

// A script that loads plan_torch.py and runs set_fsdp_prefetch on stand-in
// blocks recording what they are told to prefetch (no torch needed: the
// function only calls the FSDPModule methods).
constexpr const char* kPrefetchScript = R"PY(
import importlib.util, sys
spec = importlib.util.spec_from_file_location("plan_torch", sys.argv[1])
plan = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plan)

class Block:
    def __init__(self, i):
        self.i, self.forward, self.backward = i, None, None
    def set_modules_to_forward_prefetch(self, modules):
        self.forward = [m.i for m in modules]
    def set_modules_to_backward_prefetch(self, modules):
        self.backward = [m.i for m in modules]

blocks = plan.set_fsdp_prefetch([Block(i) for i in range(5)], backward=True)
# Depth 3: block i prefetches the next two blocks forward, the previous two backward.
assert [b.forward for b in blocks] == [[1, 2], [2, 3], [3, 4], [4], None], [b.forward for b in blocks]
assert [b.backward for b in blocks] == [None, [0], [1, 0], [2, 1], [3, 2]], [b.backward for b in blocks]
assert plan.FSDP_PREFETCH_DEPTH == 3
)PY";

TEST(CodegenPrefetch, DepthIsEmittedWhereTheTargetRunsIt) {
  Plan gpu = MakePlan(/*tpu=*/false), tpu = MakePlan(/*tpu=*/true);
  // Depth 1, the runtimes' default: nothing is written (every existing plan's files unchanged).
  EXPECT_EQ(PlanTorch(gpu, gpu.best).find("FSDP_PREFETCH_DEPTH"), std::string::npos);
  EXPECT_EQ(PlanJax(tpu, tpu.best).find("FSDP_PREFETCH_DEPTH"), std::string::npos);
  EXPECT_FALSE(Json::parse(PlanJson(gpu, false))["best"].contains("fsdp_prefetch"));
  gpu.best.fsdp = tpu.best.fsdp = 8;
  gpu.best.prefetch = tpu.best.prefetch = 3;
  // FSDP2 runs it: plan_torch.py sets the forward prefetch (and the backward's for training).
  const std::string torch = PlanTorch(gpu, gpu.best);
  EXPECT_NE(torch.find("\nFSDP_PREFETCH_DEPTH = 3\n"), std::string::npos) << torch;
  EXPECT_NE(torch.find("def set_fsdp_prefetch(blocks, depth=FSDP_PREFETCH_DEPTH, backward=False):"),
            std::string::npos);
  EXPECT_NE(torch.find("block.set_modules_to_forward_prefetch(ahead)"), std::string::npos);
  gpu.train = true;
  EXPECT_NE(PlanTorch(gpu, gpu.best).find("backward=True):"), std::string::npos);
  gpu.train = false;
  // XLA has no setting for it: plan_jax.py states the depth and why it is not applied.
  const std::string jax = PlanJax(tpu, tpu.best);
  EXPECT_NE(jax.find("\nFSDP_PREFETCH_DEPTH = 3\n"), std::string::npos);
  EXPECT_NE(jax.find("all_gather_overlap_limit = 1"), std::string::npos);
  EXPECT_EQ(Json::parse(PlanJson(gpu, false))["best"]["fsdp_prefetch"], 3);
  REQUIRE_PYTHON();
  TempDir dir("prefetch");
  WriteText(dir.path() / "plan_torch.py", PlanTorch(gpu, gpu.best));
  WriteText(dir.path() / "check.py", kPrefetchScript);
  EXPECT_EQ(RunPython(ShellWord((dir.path() / "check.py").string()) + " " +
                      ShellWord((dir.path() / "plan_torch.py").string())),
            0);
}

// ---- Gradient accumulation (search/combos.h Combo::accumulate). ----

// Loads plan_torch.py and runs micro_batch and train_step on stand-in arrays,
// model, optimizer and loss (no torch or numpy needed: they only reshape,
// index [:, i], call backward, step and zero_grad).
constexpr const char* kAccumulateScript = R"PY(
import importlib.util, sys
spec = importlib.util.spec_from_file_location("plan_torch", sys.argv[1])
plan = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plan)

class Array:
    """Row-major values of a shape; reshape and [:, i] as numpy and torch do."""
    def __init__(self, data, shape):
        self.data, self.shape = list(data), tuple(shape)
    def reshape(self, shape):
        return Array(self.data, shape)
    def __getitem__(self, key):
        everything, index = key
        assert everything == slice(None)
        rows, count = self.shape[:2]
        inner = len(self.data) // (rows * count)
        out = []
        for r in range(rows):
            start = (r * count + index) * inner
            out += self.data[start:start + inner]
        return Array(out, (rows,) + self.shape[2:])

assert plan.ACCUMULATE == 2
# 4 samples of 3 values: micro-step 0 takes samples 0 and 2, micro-step 1 samples 1 and 3.
batch = {"latent": Array(range(12), (4, 3)), "timestep": Array([10, 11, 12, 13], (4,))}
first, second = plan.micro_batch(batch, 0), plan.micro_batch(batch, 1)
assert first["latent"].shape == (2, 3) and first["latent"].data == [0, 1, 2, 6, 7, 8], first["latent"].data
assert second["latent"].data == [3, 4, 5, 9, 10, 11], second["latent"].data
assert first["timestep"].data == [10, 12] and second["timestep"].data == [11, 13]
try:
    plan.micro_batch({"latent": Array(range(3), (3,))}, 0)
    raise AssertionError("3 samples split into 2 micro-steps")
except ValueError as error:
    assert "3 samples do not split into 2 micro-steps" in str(error), error

calls = []
class Loss:
    def __init__(self, value):
        self.value = value
    def __truediv__(self, count):
        return Loss(self.value / count)
    def backward(self):
        calls.append(("backward", self.value))
    def detach(self):
        return self.value
class Optimizer:
    def zero_grad(self, set_to_none):
        calls.append(("zero_grad", set_to_none))
    def step(self):
        calls.append(("step",))
def loss_fn(model, micro):
    return Loss(float(sum(micro["timestep"].data)))  # 22, then 24
total = plan.train_step(None, Optimizer(), loss_fn, batch)
# One zero_grad, a backward of loss / 2 per micro-step, one step: the mean of (22 + 24) / 2.
assert calls == [("zero_grad", True), ("backward", 11.0), ("backward", 12.0), ("step",)], calls
assert total == 23.0, total
)PY";

TEST(CodegenAccumulate, StepIsEmittedForJaxAndTorch) {
  Plan gpu = MakePlan(/*tpu=*/false), tpu = MakePlan(/*tpu=*/true);
  gpu.train = tpu.train = true;
  // No accumulation: nothing written (every existing plan's files unchanged).
  EXPECT_EQ(PlanTorch(gpu, gpu.best).find("ACCUMULATE"), std::string::npos);
  EXPECT_EQ(PlanJax(tpu, tpu.best).find("ACCUMULATE"), std::string::npos);
  EXPECT_FALSE(Json::parse(PlanJson(gpu, false))["best"].contains("accumulate"));
  gpu.best.accumulate = tpu.best.accumulate = 2;
  EXPECT_EQ(Json::parse(PlanJson(gpu, false))["best"]["accumulate"], 2);
  const std::string torch = PlanTorch(gpu, gpu.best);
  EXPECT_NE(torch.find("\nACCUMULATE = 2\n"), std::string::npos);
  EXPECT_NE(torch.find("def train_step(model, optimizer, loss_fn, batch, count=ACCUMULATE):"), std::string::npos);
  const std::string jax = PlanJax(tpu, tpu.best);
  EXPECT_NE(jax.find("\nACCUMULATE = 2\n"), std::string::npos);
  EXPECT_NE(jax.find("def accumulate_gradients(loss_fn, params, batch, mesh, count=ACCUMULATE):"), std::string::npos);
  EXPECT_NE(jax.find("jax.lax.scan(body"), std::string::npos);
  EXPECT_NE(jax.find("param_sharding(mesh, name)"), std::string::npos);
  REQUIRE_PYTHON();
  TempDir dir("accumulate");
  WriteText(dir.path() / "plan_torch.py", PlanTorch(gpu, gpu.best));
  WriteText(dir.path() / "plan_jax.py", jax);
  WriteText(dir.path() / "check.py", kAccumulateScript);
  EXPECT_EQ(RunPython(ShellWord((dir.path() / "check.py").string()) + " " +
                      ShellWord((dir.path() / "plan_torch.py").string())),
            0);
  // plan_jax.py's helpers are valid Python (jax is imported inside them only).
  EXPECT_EQ(RunPython("-c " + ShellWord("import ast, sys; ast.parse(open(sys.argv[1]).read())") + " " +
                      ShellWord((dir.path() / "plan_jax.py").string())),
            0);
}

// ---- xDiT rank order. ----

TEST(CodegenXdit, RanksFollowTheAxisRoles) {
  Plan plan = MakePlan(/*tpu=*/false);
  // ulysses on x (2), ring on y (4): xDiT rank q has ulysses digit q % 2 (x)
  // and ring digit q / 2 (y), so it plays logical rank (q % 2) * 4 + q / 2.
  plan.best.ulysses = 2;
  plan.best.ring = 4;
  plan.best.axis_roles = {"ulysses", "ring"};
  XditLaunch launch = PlanXditLaunch(plan, plan.best);
  ASSERT_TRUE(launch.expressible);
  std::vector<int> expected;
  for (int q = 0; q < 8; ++q) expected.push_back(kPlacement[static_cast<size_t>((q % 2) * 4 + q / 2)]);
  EXPECT_EQ(launch.device_of_rank, expected);  // {0, 7, 1, 6, 3, 5, 2, 4}
  EXPECT_EQ(launch.nodes, 1);
  ASSERT_EQ(launch.cuda_visible_devices.size(), 1u);
  EXPECT_EQ(launch.cuda_visible_devices[0], "0,7,1,6,3,5,2,4");
  ASSERT_EQ(launch.xdit_commands.size(), 1u);
  EXPECT_EQ(launch.xdit_commands[0].rfind("CUDA_VISIBLE_DEVICES=0,7,1,6,3,5,2,4 torchrun --nproc_per_node=8 ", 0), 0u);

  // The identity needs no CUDA_VISIBLE_DEVICES.
  plan.best.placement = net::IdentityPlacement(8);
  plan.best.axis_roles = {"ring", "ulysses"};
  plan.best.ulysses = 4;
  plan.best.ring = 2;
  launch = PlanXditLaunch(plan, plan.best);
  EXPECT_EQ(launch.cuda_visible_devices, std::vector<std::string>{""});
  EXPECT_EQ(launch.xdit_commands[0].rfind("torchrun --nproc_per_node=8 ", 0), 0u);
}

TEST(CodegenXdit, CfgAndDegreesThatDoNotFit) {
  Plan plan = MakePlan(/*tpu=*/false);
  plan.best.mesh = {{"c", 2}, {"u", 4}};
  plan.best.axis_roles = {"cfg", "ulysses"};
  plan.best.cfg = 2;
  plan.best.ring = 1;
  plan.best.tensors.clear();
  XditLaunch launch = PlanXditLaunch(plan, plan.best);
  ASSERT_TRUE(launch.expressible);
  EXPECT_NE(launch.xdit_commands[0].find("--ulysses_degree 4 --ring_degree 1 --use_cfg_parallel"), std::string::npos);
  // The Wan repository has no CFG parallelism.
  EXPECT_TRUE(launch.repo_commands.empty());

  plan.best.ulysses = 8;  // 8 x 2 != 8 devices
  launch = PlanXditLaunch(plan, plan.best);
  EXPECT_FALSE(launch.expressible);
  ASSERT_FALSE(launch.notes.empty());
  EXPECT_NE(launch.notes[0].find("multiply to 16"), std::string::npos);

  plan.best.expressible_in_xdit = false;
  EXPECT_TRUE(PlanXditLaunch(plan, plan.best).xdit_commands.empty());
}

// PipeFusion's stages sit between sp and cfg in xDiT's rank order
// ("tp-sp-pp-cfg-dp"). The mesh (u=2, p=2, c=2) row-major against xDiT's
// rank q = u + 2 p + 4 c: logical rank 4 u + 2 p + c, so with the identity
// placement q -> 4 (q % 2) + 2 ((q / 2) % 2) + q / 4 = 0, 4, 2, 6, 1, 5, 3, 7.
TEST(CodegenXdit, PipeFusionDegreeAndRankOrder) {
  Plan plan = MakePlan(/*tpu=*/false);
  Configuration& best = plan.best;
  best.mesh = {{"u", 2}, {"p", 2}, {"c", 2}};
  best.axis_roles = {"ulysses", "pipefusion", "cfg"};
  best.ulysses = 2;
  best.ring = 1;
  best.cfg = 2;
  best.pipefusion = 2;
  best.pipeline_patches = 2;
  best.pipeline_warmup_steps = 1;
  best.placement = net::IdentityPlacement(8);
  best.tensors.clear();
  XditLaunch launch = PlanXditLaunch(plan, best);
  ASSERT_TRUE(launch.expressible);
  EXPECT_EQ(launch.device_of_rank, (std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7}));
  ASSERT_EQ(launch.xdit_commands.size(), 1u);
  EXPECT_NE(launch.xdit_commands[0].find("--ulysses_degree 2 --ring_degree 1 --pipefusion_parallel_degree 2 "
                                         "--num_pipeline_patch 2 --warmup_steps 1 --use_cfg_parallel"),
            std::string::npos)
      << launch.xdit_commands[0];
  // Wan's repository runs no pipeline; xDiT's Wan example refuses PipeFusion, which a note says.
  EXPECT_TRUE(launch.repo_commands.empty());
  bool noted = false;
  for (const std::string& note : launch.notes) {
    noted |= note.find("asserts pipefusion_parallel_degree == 1") != std::string::npos;
  }
  EXPECT_TRUE(noted);
  // plan.json names the degrees.
  Json xdit = Json::parse(PlanJson(plan))["best"]["xdit"];
  EXPECT_EQ(xdit["pipefusion"], 2);
  EXPECT_EQ(xdit["pipeline_patches"], 2);
  EXPECT_EQ(xdit["pipeline_warmup_steps"], 1);
}

TEST(CodegenXdit, TwoNodes) {
  auto topology = hw::MakeTopology("h100:2x8");
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  Plan plan = MakePlan(/*tpu=*/false);
  plan.topology = "h100:2x8";
  plan.chips = Chips(*topology);
  Configuration& best = plan.best;
  best.mesh = {{"r", 2}, {"u", 8}};
  best.axis_roles = {"ring", "ulysses"};
  best.ulysses = 8;
  best.ring = 2;
  best.tensors.clear();
  // The nodes swapped: xDiT ranks 0-7 belong on node 1.
  best.placement.clear();
  for (int rank = 0; rank < 16; ++rank) best.placement.push_back((rank + 8) % 16);
  XditLaunch launch = PlanXditLaunch(plan, best);
  ASSERT_TRUE(launch.expressible);
  EXPECT_TRUE(launch.placement_expressible);
  EXPECT_EQ(launch.nodes, 2);
  EXPECT_EQ(launch.procs_per_node, 8);
  EXPECT_EQ(launch.node_of_node_rank, (std::vector<int>{1, 0}));
  EXPECT_EQ(launch.cuda_visible_devices, (std::vector<std::string>{"", ""}));
  ASSERT_EQ(launch.xdit_commands.size(), 2u);
  EXPECT_NE(launch.xdit_commands[1].find("--nnodes=2 --node_rank=1 "), std::string::npos);

  // Ranks of one node_rank spread over both nodes: not expressible.
  best.placement.clear();
  for (int rank = 0; rank < 16; ++rank) best.placement.push_back((rank % 2) * 8 + rank / 2);
  launch = PlanXditLaunch(plan, best);
  EXPECT_FALSE(launch.placement_expressible);
  EXPECT_FALSE(launch.notes.empty());

  // DeviceMesh ranks are chip ids when every GPU of both nodes is used.
  std::string text = PlanTorch(plan, best);
  EXPECT_EQ(ParseIntList(text, "RANK_LAYOUT"), std::vector<int>(best.placement.begin(), best.placement.end()));
}

// ---- Report. ----

TEST(Report, ComparesTheThreeConfigurations) {
  Plan plan = MakePlan(/*tpu=*/false);
  std::string report = PlanReport(plan);
  EXPECT_EQ(report, PlanReport(plan)) << "not deterministic";
  for (const char* text :
       {"| **aoizora** | x=2,y=4 | usp:ulysses=y,ring=x | exhaustive | 123.4 ms | 6.17 s | "
        "30.0 GiB | 1.00x |",
        "| expert | sp=8 | ulysses=sp | default | 200.0 ms | 10.0 s | 31.0 GiB | 1.62x |",
        "| alpa | x=2,y=4 | alpa | jax create_device_mesh | 150.0 ms | 7.50 s | 20.0 GiB | 1.22x |", "efficiency 64.8%",
        "## Device assignment", "| 2 | (0, 2) | 3 | gpu3 | (0, 3) |", "all-to-all", "collective-permute", "plan_jax.py",
        "plan_torch.py", "--ulysses_degree 4 --ring_degree 2", "generate.py"}) {
    EXPECT_NE(report.find(text), std::string::npos) << text << "\n" << report;
  }
}

TEST(Report, MissingAlpaAndTpu) {
  Plan plan = MakePlan(/*tpu=*/true);
  plan.baselines[1] = {"alpa", std::nullopt, "ILP infeasible | memory"};
  std::string report = PlanReport(plan);
  EXPECT_NE(report.find("| alpa | - | no plan: ILP infeasible \\| memory |"), std::string::npos) << report;
  EXPECT_NE(report.find("not written for a TPU plan"), std::string::npos);
  EXPECT_EQ(report.find("torchrun"), std::string::npos);
}

TEST(Report, SummaryIsAFewLines) {
  Plan plan = MakePlan(/*tpu=*/false);
  std::string summary = PlanSummary(plan);
  EXPECT_LE(std::count(summary.begin(), summary.end(), '\n'), 6);
  for (const char* text : {"wan2.1-t2v-14b", "h100:8", "aoizora", "expert", "alpa", "123.4 ms/step", "(aoizora 1.62x)",
                           "(aoizora 1.22x)", "efficiency 64.8%"}) {
    EXPECT_NE(summary.find(text), std::string::npos) << text << "\n" << summary;
  }
}

// ---- compare.svg. ----

TEST(CompareSvg, WellFormedBarsWithLabels) {
  Plan plan = MakePlan(/*tpu=*/false);
  std::string svg = CompareSvg(plan);
  EXPECT_EQ(svg, CompareSvg(plan)) << "not deterministic";
  EXPECT_EQ(CheckTagBalance(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  for (const char* text : {"123.4 ms", "200.0 ms", "150.0 ms", "(aoizora 1.62x)", "(aoizora 1.22x)", "stroke-dasharray",
                           "roofline 80.0 ms", "exposed communication"}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
}

TEST(CompareSvg, MissingAlpaIsANoteAndEscaped) {
  Plan plan = MakePlan(/*tpu=*/false);
  plan.baselines[1] = {"alpa", std::nullopt, "<script>alert('x')</script> & more"};
  plan.model = "m<&>";
  std::string svg = CompareSvg(plan);
  EXPECT_EQ(CheckTagBalance(svg), "") << svg;
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("no plan: &lt;script&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("150.0 ms"), std::string::npos);
}

// ---- The output directory. ----

TEST(PlanOutput, WritesEveryFile) {
  for (bool tpu : {false, true}) {
    SCOPED_TRACE(tpu ? "tpu" : "gpu");
    TempDir dir(tpu ? "out_tpu" : "out_gpu");
    Plan plan = MakePlan(tpu);
    fs::path out = dir.path() / "nested" / "plan";
    Status status = WritePlanFiles(plan, tpu ? Tpus() : Gpus(), out.string());
    ASSERT_TRUE(status.ok()) << status.ToString();
    for (const std::string& name : PlanFileNames(tpu)) {
      EXPECT_TRUE(fs::is_regular_file(out / name)) << name;
      EXPECT_GT(fs::file_size(out / name), 0u) << name;
    }
    EXPECT_EQ(fs::exists(out / "plan_torch.py"), !tpu);
    // The file leaves the wall time out: same input and seed, same bytes.
    EXPECT_EQ(ReadText(out / "plan.json"), PlanJson(plan, /*timing=*/false));
    EXPECT_FALSE(Json::parse(ReadText(out / "plan.json")).contains("plan_time_s"));
    EXPECT_EQ(CheckTagBalance(ReadText(out / "placement.svg")), "");
    Json trace = Json::parse(ReadText(out / "step.trace.json"));
    EXPECT_TRUE(trace.contains("traceEvents"));
  }
}

TEST(PlanOutput, ErrorsNameThePath) {
  TempDir dir("out_errors");
  fs::path blocker = dir.path() / "blocker";
  WriteText(blocker, "a regular file");
  std::string bad = (blocker / "sub").string();
  Status status = WritePlanFiles(MakePlan(false), Gpus(), bad);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(bad), std::string::npos) << status.message();

  // A plan for another topology is refused, not drawn.
  Plan plan = MakePlan(/*tpu=*/false);
  plan.best.placement[0] = 9;
  status = WritePlanFiles(plan, Tpus(), (dir.path() / "ok").string());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("chip 9"), std::string::npos) << status.message();

  // So is an inconsistent configuration, before any file is written.
  plan = MakePlan(/*tpu=*/false);
  plan.best.tensors[0].spec = {{"z"}, {}};
  status = WritePlanFiles(plan, Gpus(), (dir.path() / "bad").string());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("names axis 'z'"), std::string::npos) << status.message();
  EXPECT_FALSE(fs::exists(dir.path() / "bad"));
}

// A model with two experts (search/noise_experts.h): the JSON's memory block and
// the report name the mode and its figures; one expert adds nothing.
TEST(PlanJson, ExpertsSayHoldOrSwap) {
  Plan plan = MakePlan(/*tpu=*/true);
  EXPECT_FALSE(Json::parse(PlanJson(plan))["best"]["memory"].contains("experts"));
  EXPECT_EQ(PlanReport(plan).find("Experts:"), std::string::npos);
  plan.best.noise_experts_mode = "swap";
  plan.best.noise_experts = 2;
  plan.best.noise_expert_memory = Bytes(int64_t{7} << 30);
  // 2 x 7 GiB / 1.6e10 B/s = 0.9395 s per video; / 50 steps = 18.8 ms.
  plan.best.noise_swap_per_video = Seconds(2.0 * 7 * 1073741824 / 1.6e10);
  plan.best.noise_swap_per_step = Seconds(plan.best.noise_swap_per_video.value() / 50);
  plan.best.host_link = Bandwidth(1.6e10);
  plan.best.noise_experts_reason = "holding both experts needs more than the HBM";
  const Json experts = Json::parse(PlanJson(plan))["best"]["memory"]["experts"];
  EXPECT_EQ(experts["mode"], "swap");
  EXPECT_EQ(experts["count"], 2);
  EXPECT_EQ(experts["expert_bytes"], int64_t{7} << 30);
  EXPECT_NEAR(experts["swap_s_per_video"].get<double>(), 0.9395, 1e-4);
  EXPECT_NEAR(experts["swap_s_per_step"].get<double>(), 0.01879, 1e-5);
  EXPECT_DOUBLE_EQ(experts["host_link_bytes_per_s"].get<double>(), 1.6e10);
  std::string report = PlanReport(plan);
  EXPECT_NE(report.find("Experts: swap (2 experts of 7.00 GiB per device"), std::string::npos) << report;
  EXPECT_NE(PlanSummary(plan).find("experts swap: holding both"), std::string::npos);
}

// The generated files hold or swap the experts as the plan says: run
// expert_of_step and the placing function with the single-expert placer
// replaced by a marker (no JAX or PyTorch needed). Wan 2.2 T2V-A14B switches
// at step 20 of 40 in this plan.
TEST(CodegenPython, ExpertsAreHeldOrSwappedAsPlanned) {
  REQUIRE_PYTHON();
  Plan plan = MakePlan(/*tpu=*/false);
  plan.noise_switch_step = 20;
  plan.best.noise_experts = 2;
  EXPECT_EQ(PlanJax(plan, plan.best).find("EXPERTS"), std::string::npos) << "experts mode unset: one expert";
  plan.best.noise_experts = 1;
  EXPECT_EQ(PlanJax(plan, plan.best).find("EXPERTS"), std::string::npos);
  EXPECT_EQ(Json::parse(PlanJson(plan))["best"]["memory"].contains("experts"), false);
  plan.best.noise_experts = 2;
  for (const char* mode : {"swap", "hold-both"}) {
    SCOPED_TRACE(mode);
    plan.best.noise_experts_mode = mode;
    EXPECT_EQ(Json::parse(PlanJson(plan))["best"]["memory"]["experts"]["switch_step"], 20);
    TempDir dir(std::string("experts_") + mode);
    WriteText(dir.path() / "plan_jax.py", PlanJax(plan, plan.best));
    WriteText(dir.path() / "plan_torch.py", PlanTorch(plan, plan.best));
    const bool swap = std::string(mode) == "swap";
    // Under swap only the step's expert is placed: step 0 -> expert 0, step 25 -> expert 1.
    const std::string expected = swap ? "[['placed', 'a'], 'b'] ['a', ['placed', 'b']]"
                                      : "[['placed', 'a'], ['placed', 'b']] [['placed', 'a'], ['placed', 'b']]";
    for (const auto& [file, place] : {std::pair<std::string, std::string>{"plan_jax", "shard"},
                                      std::pair<std::string, std::string>{"plan_torch", "distribute"}}) {
      std::string script = "import sys; sys.path.insert(0, " + PyString(dir.path().string()) + ")\n" +
                           "import " + file + " as p\n" +
                           "p." + place + "_params = lambda mesh, params, strict: ['placed', params]\n"
                           "assert [p.expert_of_step(s) for s in (0, 19, 20, 39)] == [0, 0, 1, 1]\n"
                           "got = '%s %s' % (p." + place + "_experts(None, ['a', 'b'], 0), p." + place +
                           "_experts(None, ['a', 'b'], 25))\n"
                           "assert got == " + PyString(expected) + ", got\n"
                           "try:\n    p." + place + "_experts(None, ['a'])\n    raise SystemExit(1)\n"
                           "except ValueError:\n    pass\n";
      WriteText(dir.path() / "check_experts.py", script);
      EXPECT_EQ(RunPython(ShellWord((dir.path() / "check_experts.py").string())), 0) << file;
    }
  }
}

}  // namespace
}  // namespace az::emit
