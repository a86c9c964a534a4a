// aoizora._core: the C++ library as a Python extension (pybind11). Thin, like
// the CLI: it turns Python arguments into the library's requests, calls the
// planner, the pricing and the emitters, and hands back their outputs. The
// Python package (python/aoizora) builds the user-facing API on top.
//
// Errors: every Status the library returns becomes aoizora.Error (a
// ValueError) whose message is the Status message, the located diagnostic
// included ("file:line:col: error: ..." with the source line and a caret).
//
// Threads and the GIL: plan() releases the GIL for the whole search, so other
// Python threads run meanwhile. The planner calls the progress callback from
// whichever thread reaches a stage; each call takes the GIL (PyGILState, so
// any thread may), runs the Python callable and lets go. An exception the
// callable raises (KeyboardInterrupt included) is kept, later calls are
// skipped, and it is raised again once the planner returns.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "emit/codegen_jax.h"
#include "emit/codegen_torch.h"
#include "emit/plan_json.h"
#include "emit/report.h"
#include "evidence/evidence.h"
#include "frontend/import/program_load.h"
#include "frontend/models.h"
#include "frontend/zoo/zoo.h"
#include "hw/topology.h"
#include "pir/analysis/summary.h"
#include "place/search.h"
#include "price/calibration.h"
#include "price/stack.h"
#include "price/simulator.h"
#include "search/planner.h"
#include "shard/sharding.h"

namespace py = pybind11;

namespace az::python {
namespace {

// The C++ side of aoizora.Error.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void Raise(const Status& status) { throw Error(status.message()); }

template <typename T>
T Take(StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return std::move(value).value();
}

// A named system ("v5e:2x4"), or the text of a topology JSON file (the
// Python side reads the file; `spec` is then its path, for diagnostics).
hw::Topology LoadTopology(const std::string& spec, const std::optional<std::string>& json_text) {
  if (json_text) return Take(hw::LoadTopologyJson(*json_text, spec));
  return Take(hw::MakeTopology(spec));
}

price::PriceCalibration LoadCalibration(const std::optional<std::string>& text, const std::string& name,
                                        const hw::Topology& topology) {
  if (!text) return price::DefaultPriceCalibration(topology);
  return Take(price::LoadPriceCalibration(*text, name, topology));
}

// A finished plan and what the emitters need besides it.
struct PlanResult {
  search::Plan plan;
  std::vector<std::string> warnings;  // the importer's, for an imported program
  // An imported program's arguments and results in the function's order:
  // (name in the plan's tensors, name in the file); the plan name is empty
  // when the importer dropped the value (nothing depends on it).
  std::vector<std::pair<std::string, std::string>> arguments, results;
};

std::string ValueName(const pir::Graph& graph, pir::ValueId value, const std::string& source) {
  if (value < 0) return "";
  const std::string& name = graph.value(value).name;
  return name.empty() ? source : name;
}

// Where a label names a configuration of the plan: best, expert, deployed, alpa, annotated.
const search::Configuration& FindConfiguration(const search::Plan& plan, const std::string& label) {
  if (label == "best") return plan.best;
  if (const search::Configuration* c = plan.Find(label)) return *c;
  std::string known = "best";
  for (const search::Baseline& b : plan.baselines) {
    if (b.configuration) known += ", " + b.label;
  }
  Raise(NotFound("the plan has no configuration '" + label + "' (" + known + ")"));
}

struct PlanRequest {
  // The model: a zoo name, or a program (format "stablehlo" / "onnx").
  std::string model;
  std::string program_format;
  std::string program_file;
  std::optional<std::string> program_contents;  // Python bytes (or str)
  std::string latent;
  std::vector<std::string> dims;
  std::optional<int64_t> width, height, frames, steps;
  int64_t batch = 1;
  std::string cfg, dtype = "bf16";
  // The slice and the search.
  std::string topology;
  std::optional<std::string> topology_json;
  std::optional<std::string> calibration_json;
  std::string calibration_name;
  std::string stack;  // empty: the model's deployed library (the CLI's --stack)
  std::string target = "any";  // the CLI's --target (search/targets.h)
  std::string templ;
  bool search_placement = true;
  int threads = 2;
  uint64_t seed = 1;
  int top_k = 6;
  bool alpa = true;
  bool stages = true;  // false: the CLI's --no-stages
  // A training step (search/planner.h: TrainPlanOptions).
  bool train = false;
  int64_t micro_batch = 0;  // 0: one sample per chip
  std::string remat;        // empty: chosen per candidate
};

workload::Workload ResolveModel(const PlanRequest& r, PlanResult& result) {
  if (!r.program_format.empty()) {
    frontend::ProgramRequest request;
    request.format = r.program_format == "onnx" ? frontend::ProgramRequest::Format::kOnnx
                                                : frontend::ProgramRequest::Format::kStableHlo;
    request.file = r.program_file;
    request.contents = r.program_contents;
    request.latent = r.latent;
    request.dims = r.dims;
    request.steps = r.steps;
    frontend::LoadedProgram loaded = Take(frontend::LoadProgram(request));
    result.warnings = loaded.program.warnings;
    const pir::Graph& graph = loaded.program.graph;
    for (const frontend::ImportedArgument& a : loaded.program.arguments) {
      result.arguments.emplace_back(ValueName(graph, a.value, a.source_name), a.source_name);
    }
    for (const frontend::ImportedResult& res : loaded.program.results) {
      result.results.emplace_back(ValueName(graph, res.value, res.source_name), res.source_name);
    }
    return loaded.workload;
  }
  zoo::ModelOptions options;
  options.width = r.width;
  options.height = r.height;
  options.frames = r.frames;
  options.steps = r.steps;
  options.batch = r.batch;
  if (!r.cfg.empty()) options.cfg = Take(zoo::ParseCfgMode(r.cfg));
  std::optional<pir::DType> dtype = pir::ParseDType(r.dtype);
  if (!dtype) Raise(InvalidArgument("unknown dtype '" + r.dtype + "' (expected bf16, f16 or f32)"));
  options.dtype = *dtype;
  return Take(frontend::ZooWorkload(r.model, options));
}

PlanResult Plan(const PlanRequest& request, const py::object& progress) {
  const PlanRequest r = request;  // a copy: no Python thread can change it while the GIL is free
  std::optional<py::error_already_set> failure;  // touched with the GIL held only
  search::PlanOptions options;
  options.pinned = r.templ;
  options.search_placement = r.search_placement;
  options.threads = r.threads;
  options.seed = r.seed;
  options.top_k = r.top_k;
  options.alpa = r.alpa;
  options.stages = r.stages;
  if (!r.stack.empty()) options.stack = Take(price::ParseSoftwareStack(r.stack, "stack="));
  options.target = Take(search::ParseTarget(r.target));
  if (r.train) {
    search::TrainPlanOptions train;
    train.micro_batch = r.micro_batch;
    if (!r.remat.empty()) train.remat = Take(pir::ParseRematPolicy(r.remat));
    options.train = train;
  } else if (r.micro_batch != 0 || !r.remat.empty()) {
    Raise(InvalidArgument("micro_batch= and remat= describe a training step: add train=True"));
  }
  const auto start = std::chrono::steady_clock::now();
  if (!progress.is_none()) {
    options.progress = [&](const std::string& line) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      py::gil_scoped_acquire gil;
      if (failure) return;
      try {
        progress(line, seconds);
      } catch (py::error_already_set& e) {
        failure = std::move(e);
      }
    };
  }
  PlanResult result;
  Status error;
  {
    // Everything from here reads only C++ values: the import and the search
    // run without the GIL.
    py::gil_scoped_release release;
    workload::Workload config = ResolveModel(r, result);
    hw::Topology topology = LoadTopology(r.topology, r.topology_json);
    options.calibration = LoadCalibration(r.calibration_json, r.calibration_name, topology);
    StatusOr<search::Plan> plan = search::MakePlan(config, topology, options);
    if (plan.ok()) {
      result.plan = std::move(plan).value();
    } else {
      error = plan.status();
    }
  }
  if (failure) throw std::move(*failure);  // the callback's exception first
  if (!error.ok()) Raise(error);
  return result;
}

// What `aoizora models --json` lists, from the same library calls.
std::string ModelsJson() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const zoo::ModelEntry& m : zoo::ListModels()) {
    zoo::ModelConfig config = Take(zoo::ResolveConfig(m.name, {}));
    pir::Graph graph = Take(zoo::BuildForward(config));
    list.push_back({{"model", m.name},
                    {"params", pir::SummarizeGraph(graph).num_params},
                    {"description", m.description},
                    {"default_width", m.default_width},
                    {"default_height", m.default_height},
                    {"default_frames", m.default_frames},
                    {"default_steps", m.default_steps},
                    {"default_cfg", std::string(zoo::CfgModeName(m.default_cfg))}});
    if (config.experts > 1) list.back()["experts"] = config.experts;  // params: of one expert
  }
  return list.dump(2);
}

// One run of compiled evidence under one placement (what `aoizora price
// --evidence FILE --json` reports): `placement` empty = the default one.
std::string PriceJson(const std::string& evidence_text, const std::string& evidence_name, const std::string& spec,
                      const std::optional<std::string>& topology_json, const std::vector<int>& given_placement,
                      const std::optional<std::string>& calibration_json, const std::string& calibration_name) {
  evidence::Evidence evidence = Take(evidence::FromJson(evidence_text, evidence_name));
  hw::Topology topology = LoadTopology(spec, topology_json);
  price::PriceCalibration calibration = LoadCalibration(calibration_json, calibration_name, topology);
  price::Simulator sim =
      Take(price::Simulator::Create(evidence, topology, calibration.network, calibration.compute));
  net::Placement placement = given_placement;
  std::string method = "given";
  if (placement.empty()) {
    std::vector<int64_t> mesh_shape = {evidence.num_devices};
    if (!evidence.mesh.empty()) {
      StatusOr<shard::Mesh> mesh = shard::Mesh::Parse(evidence.mesh);
      if (!mesh.ok()) Raise(ParseError(evidence_name + ": mesh: " + mesh.status().message()));
      mesh_shape.clear();
      for (int a = 0; a < mesh->num_axes(); ++a) mesh_shape.push_back(mesh->axis_size(a));
    }
    placement = Take(place::DefaultPlacementFor(topology, mesh_shape, &method));
  } else if (Status s = sim.CheckPlacement(placement); !s.ok()) {
    Raise(s);
  }
  price::SimResult r = Take(sim.Simulate(placement, false));
  nlohmann::ordered_json classes = nlohmann::ordered_json::array();
  for (const price::ClassCost& c : r.classes) {
    classes.push_back({{"kind", c.kind},
                       {"bytes", c.bytes.value()},
                       {"groups", c.groups},
                       {"count", c.count},
                       {"time_s", c.time.value()},
                       {"exposed_s", c.exposed.value()},
                       {"algorithm", c.algorithm}});
  }
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const price::LinkLoad& l : r.links) {
    links.push_back({{"channel", l.channel}, {"name", l.name}, {"bytes", l.bytes}, {"busy_s", l.busy.value()}});
  }
  nlohmann::ordered_json j = {{"evidence", evidence::HashOf(evidence)},
                              {"program", evidence.program},
                              {"topology", topology.name},
                              {"placement", placement},
                              {"placement_method", method},
                              {"latency_s", r.latency.value()},
                              {"breakdown",
                               {{"latency_s", r.latency.value()},
                                {"compute_s", r.compute.value()},
                                {"communication_s", r.communication.value()},
                                {"exposed_communication_s", r.exposed_communication.value()},
                                {"kernels", r.kernels},
                                {"collectives", r.collectives},
                                {"classes", classes},
                                {"links", links}}}};
  return j.dump(1);
}

}  // namespace
}  // namespace az::python

PYBIND11_MODULE(_core, m) {
  using az::python::PlanRequest;
  using az::python::PlanResult;
  m.doc() = "AoiZora's C++ planner (use the aoizora package, not this module)";
  py::register_exception<az::python::Error>(m, "Error", PyExc_ValueError);

  m.def("models_json", &az::python::ModelsJson);
  m.def("topologies", &az::hw::ListTopologies);

  py::class_<PlanRequest>(m, "PlanRequest")
      .def(py::init<>())
      .def_readwrite("model", &PlanRequest::model)
      .def_readwrite("program_format", &PlanRequest::program_format)
      .def_readwrite("program_file", &PlanRequest::program_file)
      .def_readwrite("program_contents", &PlanRequest::program_contents)
      .def_readwrite("latent", &PlanRequest::latent)
      .def_readwrite("dims", &PlanRequest::dims)
      .def_readwrite("width", &PlanRequest::width)
      .def_readwrite("height", &PlanRequest::height)
      .def_readwrite("frames", &PlanRequest::frames)
      .def_readwrite("steps", &PlanRequest::steps)
      .def_readwrite("batch", &PlanRequest::batch)
      .def_readwrite("cfg", &PlanRequest::cfg)
      .def_readwrite("dtype", &PlanRequest::dtype)
      .def_readwrite("topology", &PlanRequest::topology)
      .def_readwrite("topology_json", &PlanRequest::topology_json)
      .def_readwrite("calibration_json", &PlanRequest::calibration_json)
      .def_readwrite("calibration_name", &PlanRequest::calibration_name)
      .def_readwrite("stack", &PlanRequest::stack)
      .def_readwrite("target", &PlanRequest::target)
      .def_readwrite("template", &PlanRequest::templ)
      .def_readwrite("search_placement", &PlanRequest::search_placement)
      .def_readwrite("threads", &PlanRequest::threads)
      .def_readwrite("seed", &PlanRequest::seed)
      .def_readwrite("top_k", &PlanRequest::top_k)
      .def_readwrite("alpa", &PlanRequest::alpa)
      .def_readwrite("stages", &PlanRequest::stages)
      .def_readwrite("train", &PlanRequest::train)
      .def_readwrite("micro_batch", &PlanRequest::micro_batch)
      .def_readwrite("remat", &PlanRequest::remat);

  py::class_<PlanResult>(m, "PlanResult")
      .def(
          "to_json", [](const PlanResult& r, bool timing) { return az::emit::PlanJson(r.plan, timing); },
          py::arg("timing") = false)
      .def("summary", [](const PlanResult& r) { return az::emit::PlanSummary(r.plan); })
      .def("report", [](const PlanResult& r) { return az::emit::PlanReport(r.plan); })
      .def(
          "jax_code",
          [](const PlanResult& r, const std::string& label) {
            return az::emit::PlanJax(r.plan, az::python::FindConfiguration(r.plan, label));
          },
          py::arg("configuration") = "best")
      .def(
          "torch_code",
          [](const PlanResult& r, const std::string& label) {
            return az::emit::PlanTorch(r.plan, az::python::FindConfiguration(r.plan, label));
          },
          py::arg("configuration") = "best")
      .def_readonly("warnings", &PlanResult::warnings)
      .def_readonly("arguments", &PlanResult::arguments)
      .def_readonly("results", &PlanResult::results);

  m.def("plan", &az::python::Plan, py::arg("request"), py::arg("progress") = py::none());
  m.def("price_json", &az::python::PriceJson, py::arg("evidence_text"), py::arg("evidence_name"),
        py::arg("topology"), py::arg("topology_json"), py::arg("placement"), py::arg("calibration_json"),
        py::arg("calibration_name"));
}
