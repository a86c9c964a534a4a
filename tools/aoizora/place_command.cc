// `aoizora price` (one placement) and `aoizora place` (placement search) of a
// compiled program's evidence on a topology; `aoizora price --hlo` takes the
// program XLA compiled instead, searches its device assignment and reports it
// next to the identity and default orders.
#include <fmt/core.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "compile/xla/hlo_import.h"
#include "emit/placement_svg.h"
#include "emit/trace.h"
#include "evidence/evidence.h"
#include "place/search.h"
#include "price/calibration.h"
#include "price/simulator.h"
#include "shard/sharding.h"
#include "tools/aoizora/cli.h"

namespace az::cli {

namespace {

using nlohmann::ordered_json;

struct PricingArgs {
  std::string evidence;
  std::string hlo;
  int hlo_module = -1;
  std::string topology;
  std::vector<std::string> fail_links, fail_chips;
  std::string calibration;
  std::string trace, svg;
  bool json = false;

  void Add(CLI::App* cmd) {
    cmd->add_option("--evidence,-e", evidence, "Evidence JSON (aoizora compile --evidence FILE)");
    cmd->add_option("--hlo", hlo,
                    "XLA HLO text of a compiled (SPMD-partitioned) program instead of evidence: "
                    "XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text, or jax.jit(f).lower(...).compile().as_text()");
    cmd->add_option("--hlo-module", hlo_module,
                    "Which module of an HLO file split by '// -----' (0-based; default: the file must hold one)")
        ->check(CLI::Range(0, 1 << 20));
    cmd->add_option("--topology,-t", topology, "A named system (v5e:2x4, h100:8, ...) or a topology JSON file")
        ->required();
    cmd->add_option("--fail-link", fail_links, "A failed link A-B (chip ids or names); repeatable");
    cmd->add_option("--fail-chip", fail_chips, "A failed chip; repeatable");
    cmd->add_option("--calibration,-c", calibration,
                    "Calibration JSON (network keys, and an optional \"compute\" object); default: the chip's");
    cmd->add_option("--trace", trace, "Write a Perfetto / Chrome trace of the simulated step");
    cmd->add_option("--svg", svg, "Write the placement drawn on the topology with its link loads");
    cmd->add_flag("--json", json, "Machine-readable output on stdout");
  }
};

// What both commands load: the evidence, the topology with failures, the
// calibration, and the simulator over them.
struct Loaded {
  evidence::Evidence evidence;
  hw::Topology topology;
  std::vector<int64_t> mesh_shape;
  std::vector<std::string> axis_names;
  std::optional<compile::xla::ImportStats> imported;  // --hlo
};

StatusOr<Loaded> Load(const PricingArgs& args) {
  Loaded l;
  if (args.evidence.empty() == args.hlo.empty()) {
    return InvalidArgument("give exactly one of --evidence FILE and --hlo FILE");
  }
  if (!args.hlo.empty()) {
    AZ_ASSIGN_OR_RETURN(std::string text, ReadFile(args.hlo));
    compile::xla::ImportOptions options;
    options.module = args.hlo_module;
    AZ_ASSIGN_OR_RETURN(compile::xla::ImportResult imported, compile::xla::ImportHloText(text, args.hlo, options));
    for (const Diagnostic& w : imported.warnings) {
      fmt::print(stderr, "{}\n", RenderDiagnostic(w, imported.source.get()));
    }
    l.evidence = evidence::Extract(imported.program, "xla");
    l.imported = std::move(imported.stats);
  } else {
    AZ_ASSIGN_OR_RETURN(std::string text, ReadFile(args.evidence));
    AZ_ASSIGN_OR_RETURN(l.evidence, evidence::FromJson(text, args.evidence));
  }
  AZ_ASSIGN_OR_RETURN(l.topology, LoadTopology(args.topology));
  AZ_RETURN_IF_ERROR(hw::ApplyFailures(l.topology, args.fail_links, args.fail_chips));
  const std::string& source = args.hlo.empty() ? args.evidence : args.hlo;
  if (l.evidence.mesh.empty()) {
    l.mesh_shape = {l.evidence.num_devices};
    l.axis_names = {"d"};
  } else {
    auto mesh = shard::Mesh::Parse(l.evidence.mesh);
    if (!mesh.ok()) return ParseError(source + ": mesh: " + mesh.status().message());
    int64_t product = 1;
    for (int a = 0; a < mesh->num_axes(); ++a) {
      l.mesh_shape.push_back(mesh->axis_size(a));
      l.axis_names.push_back(mesh->axis_name(a));
      product *= mesh->axis_size(a);
    }
    if (product != l.evidence.num_devices) {
      return ParseError(source + ": mesh '" + l.evidence.mesh + "' has " + std::to_string(product) +
                        " devices, the program " + std::to_string(l.evidence.num_devices));
    }
  }
  return l;
}

StatusOr<price::Simulator> MakeSimulator(const PricingArgs& args, const Loaded& l) {
  AZ_ASSIGN_OR_RETURN(price::PriceCalibration calibration, LoadPriceCalibration(args.calibration, l.topology));
  return price::Simulator::Create(l.evidence, l.topology, calibration.network, calibration.compute);
}

std::string PlacementText(const net::Placement& p) {
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) out += (i ? "," : "") + std::to_string(p[i]);
  return out;
}

ordered_json Breakdown(const price::SimResult& r) {
  ordered_json classes = ordered_json::array();
  for (const price::ClassCost& c : r.classes) {
    classes.push_back({{"kind", c.kind},
                       {"bytes", c.bytes.value()},
                       {"groups", c.groups},
                       {"count", c.count},
                       {"time_s", c.time.value()},
                       {"exposed_s", c.exposed.value()},
                       {"algorithm", c.algorithm}});
  }
  ordered_json links = ordered_json::array();
  for (const price::LinkLoad& l : r.links) {
    links.push_back({{"channel", l.channel}, {"name", l.name}, {"bytes", l.bytes}, {"busy_s", l.busy.value()}});
  }
  return {{"latency_s", r.latency.value()},
          {"compute_s", r.compute.value()},
          {"communication_s", r.communication.value()},
          {"exposed_communication_s", r.exposed_communication.value()},
          {"kernels", r.kernels},
          {"collectives", r.collectives},
          {"classes", classes},
          {"links", links}};
}

void PrintBreakdown(const price::SimResult& r) {
  fmt::print("  compute        {:>12}  ({} kernels)\n", FormatSeconds(r.compute), r.kernels);
  fmt::print("  communication  {:>12}  ({} collectives, {} exposed)\n", FormatSeconds(r.communication),
             r.collectives, FormatSeconds(r.exposed_communication));
  if (!r.classes.empty()) {
    fmt::print("  collectives (one line per distinct kind, size and groups)\n");
    for (const price::ClassCost& c : r.classes) {
      fmt::print("    {:<18} {:>11} x{:<4} {:>11} each  exposed {:>11}  {}  {}\n", c.kind, FormatBytes(c.bytes),
                 c.count, FormatSeconds(Seconds(c.time)), FormatSeconds(Seconds(c.exposed)), c.groups, c.algorithm);
    }
  }
  if (!r.links.empty()) {
    std::vector<price::LinkLoad> links = r.links;
    std::stable_sort(links.begin(), links.end(),
                     [](const price::LinkLoad& a, const price::LinkLoad& b) { return a.busy > b.busy; });
    fmt::print("  busiest links\n");
    for (size_t i = 0; i < links.size() && i < 5; ++i) {
      fmt::print("    {:<28} {:>11}  busy {}\n", links[i].name, FormatBytes(Bytes(static_cast<int64_t>(links[i].bytes))),
                 FormatSeconds(Seconds(links[i].busy)));
    }
  }
}

// --trace and --svg for the placement the command reports.
Status WriteOutputs(const PricingArgs& args, const Loaded& l, const net::Placement& placement,
                    const price::SimResult& r) {
  std::string title = l.evidence.program + " on " + l.topology.name;
  if (!args.trace.empty()) {
    emit::TraceOptions options;
    options.title = title;
    std::ofstream out(args.trace);
    out << emit::StepTrace(r, options);
    if (!out) return InvalidArgument("cannot write '" + args.trace + "'");
  }
  if (!args.svg.empty()) {
    std::ofstream out(args.svg);
    out << emit::PlacementSvg(l.topology, placement, r.links, title);
    if (!out) return InvalidArgument("cannot write '" + args.svg + "'");
  }
  return Status::Ok();
}

struct PriceArgs : PricingArgs {
  std::string placement;  // empty: "default", or a search with --hlo
  bool explain = false;
};

int RunHloPrice(const PriceArgs& args, const Loaded& l, price::Simulator& sim);

int RunPrice(const PriceArgs& args) {
  auto l = Load(args);
  if (!l.ok()) return Fail(l.status());
  auto sim = MakeSimulator(args, *l);
  if (!sim.ok()) return Fail(sim.status());
  if (!args.hlo.empty() && args.placement.empty()) return RunHloPrice(args, *l, *sim);
  net::Placement placement;
  std::string method = "given";
  if (args.placement.empty() || args.placement == "default") {
    auto p = place::DefaultPlacementFor(l->topology, l->mesh_shape, &method);
    if (!p.ok()) return Fail(p.status());
    placement = *p;
  } else {
    auto p = net::ParsePlacement(args.placement, l->topology.num_chips());
    if (!p.ok()) return Fail(p.status());
    placement = *p;
  }
  auto r = sim->Simulate(placement, !args.trace.empty());
  if (!r.ok()) return Fail(r.status());
  if (Status s = WriteOutputs(args, *l, placement, *r); !s.ok()) return Fail(s);
  if (args.json) {
    ordered_json j = {{"evidence", evidence::HashOf(l->evidence)},
                      {"program", l->evidence.program},
                      {"topology", l->topology.name},
                      {"placement", placement},
                      {"placement_method", method},
                      {"latency_s", r->latency.value()},
                      {"breakdown", Breakdown(*r)}};
    fmt::print("{}\n", j.dump(1));
    return 0;
  }
  fmt::print("{} on {}: {} per run of the program\n", l->evidence.program, l->topology.name,
             FormatSeconds(r->latency));
  fmt::print("  placement      {} ({})\n", PlacementText(placement), method);
  PrintBreakdown(*r);
  return 0;
}

struct PlaceArgs : PricingArgs {
  uint64_t seed = 1;
  int restarts = 4;
  int64_t moves = 0;
  int exhaustive_max = 8;
};

int RunPlace(const PlaceArgs& args) {
  auto l = Load(args);
  if (!l.ok()) return Fail(l.status());
  auto sim = MakeSimulator(args, *l);
  if (!sim.ok()) return Fail(sim.status());
  place::PlaceOptions options;
  options.seed = args.seed;
  options.restarts = args.restarts;
  options.moves = args.moves;
  options.exhaustive_max_chips = args.exhaustive_max;
  auto begin = std::chrono::steady_clock::now();
  auto result = place::SearchPlacement(*sim, l->mesh_shape, l->axis_names, options);
  if (!result.ok()) return Fail(result.status());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  auto r = sim->Simulate(result->best, !args.trace.empty());
  if (!r.ok()) return Fail(r.status());
  if (Status s = WriteOutputs(args, *l, result->best, *r); !s.ok()) return Fail(s);
  double speedup = result->best_latency > 0 ? result->default_latency / result->best_latency : 1.0;
  if (args.json) {
    ordered_json search = {{"exhaustive", result->exhaustive},
                           {"maps_total", result->maps_total},
                           {"maps_priced", result->maps_priced},
                           {"symmetry_group", result->symmetry_group},
                           {"structured_candidates", result->structured.size()},
                           {"evaluations", result->evaluations},
                           {"seed", args.seed}};
    ordered_json j = {{"evidence", evidence::HashOf(l->evidence)},
                      {"program", l->evidence.program},
                      {"topology", l->topology.name},
                      {"best", {{"latency_s", result->best_latency},
                                {"placement", result->best},
                                {"method", result->best_method}}},
                      {"default", {{"latency_s", result->default_latency},
                                   {"placement", result->default_placement},
                                   {"method", result->default_method}}},
                      {"worst", {{"latency_s", result->worst_latency}, {"placement", result->worst}}},
                      {"speedup_over_default", speedup},
                      {"search", search},
                      {"breakdown", Breakdown(*r)}};
    fmt::print("{}\n", j.dump(1));
    return 0;
  }
  fmt::print("{} on {} ({} devices, mesh {})\n", l->evidence.program, l->topology.name, l->evidence.num_devices,
             l->evidence.mesh.empty() ? "d=" + std::to_string(l->evidence.num_devices) : l->evidence.mesh);
  if (result->exhaustive) {
    fmt::print("search   exhaustive: {} maps, {} priced after symmetry ({} automorphisms); {} structured "
               "candidates; {:.2f} s\n",
               FormatCount(result->maps_total), FormatCount(result->maps_priced), result->symmetry_group,
               result->structured.size(), seconds);
  } else {
    fmt::print("search   {} structured candidates, annealing {} restarts; {} evaluations; {:.2f} s\n",
               result->structured.size(), args.restarts, FormatCount(result->evaluations), seconds);
  }
  fmt::print("best     {:>12}  {}\n         placement {}\n", FormatSeconds(Seconds(result->best_latency)),
             result->best_method, PlacementText(result->best));
  fmt::print("default  {:>12}  {} ({:.1f}% slower than best)\n         placement {}\n",
             FormatSeconds(Seconds(result->default_latency)), result->default_method, 100 * (speedup - 1),
             PlacementText(result->default_placement));
  fmt::print("worst    {:>12}  {}\n         placement {}\n", FormatSeconds(Seconds(result->worst_latency)),
             result->exhaustive ? "the true worst" : "the worst seen", PlacementText(result->worst));
  fmt::print("breakdown of the best\n");
  PrintBreakdown(*r);
  return 0;
}

// --hlo without --placement: the best device assignment for XLA's program,
// against the identity order (logical id i on chip i, what a launch with the
// devices in id order runs) and the default (JAX's create_device_mesh).
int RunHloPrice(const PriceArgs& args, const Loaded& l, price::Simulator& sim) {
  place::PlaceOptions options;
  // Big programs on big slices: the structured candidates and one short
  // annealing run (each evaluation prices every collective class on up to
  // thousands of routed links); `aoizora place --hlo` searches longer.
  if (l.evidence.num_devices > 16) {
    options.restarts = 1;
    options.moves = 1000;
  }
  auto begin = std::chrono::steady_clock::now();
  auto result = place::SearchPlacement(sim, l.mesh_shape, l.axis_names, options);
  if (!result.ok()) return Fail(result.status());
  net::Placement identity(static_cast<size_t>(l.evidence.num_devices));
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int>(i);
  const double identity_latency = sim.Latency(identity);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  // The search never reports worse than a placement it was given: the
  // identity order is one more candidate.
  net::Placement best = result->best;
  double best_latency = result->best_latency;
  std::string best_method = result->best_method;
  if (identity_latency < best_latency) {
    best = identity;
    best_latency = identity_latency;
    best_method = "identity";
  }
  auto r = sim.Simulate(best, !args.trace.empty());
  if (!r.ok()) return Fail(r.status());
  if (Status s = WriteOutputs(args, l, best, *r); !s.ok()) return Fail(s);
  // XLA's device_assignment is replicas x partitions; flattened id = replica x
  // num_partitions + partition.
  int64_t partitions = l.imported ? l.imported->num_partitions : l.evidence.num_devices;
  if (partitions <= 0 || l.evidence.num_devices % partitions != 0) partitions = l.evidence.num_devices;
  std::vector<std::vector<int>> assignment;
  for (int64_t flat = 0; flat < l.evidence.num_devices; ++flat) {
    if (flat % partitions == 0) assignment.emplace_back();
    assignment.back().push_back(best[flat]);
  }
  double vs_identity = best_latency > 0 ? identity_latency / best_latency : 1.0;
  double vs_default = best_latency > 0 ? result->default_latency / best_latency : 1.0;
  if (args.json) {
    ordered_json j = {{"hlo", args.hlo},
                      {"program", l.evidence.program},
                      {"devices", l.evidence.num_devices},
                      {"mesh", l.evidence.mesh},
                      {"topology", l.topology.name},
                      {"best", {{"latency_s", best_latency}, {"placement", best}, {"method", best_method}}},
                      {"identity", {{"latency_s", identity_latency}, {"placement", identity}}},
                      {"default", {{"latency_s", result->default_latency},
                                   {"placement", result->default_placement},
                                   {"method", result->default_method}}},
                      {"speedup_over_identity", vs_identity},
                      {"speedup_over_default", vs_default},
                      {"device_assignment", assignment},
                      {"jax_device_order", best},
                      {"search_s", seconds},
                      {"breakdown", Breakdown(*r)}};
    fmt::print("{}\n", j.dump(1));
    return 0;
  }
  fmt::print("{} ({}) on {}: {} devices, mesh {}\n", l.evidence.program, args.hlo, l.topology.name,
             l.evidence.num_devices, l.evidence.mesh);
  fmt::print("best      {:>12}  {}\n", FormatSeconds(Seconds(best_latency)), best_method);
  fmt::print("identity  {:>12}  {:.3f}x the best\n", FormatSeconds(Seconds(identity_latency)), vs_identity);
  fmt::print("default   {:>12}  {:.3f}x the best ({})\n", FormatSeconds(Seconds(result->default_latency)), vs_default,
             result->default_method);
  fmt::print("searched in {:.2f} s ({} evaluations)\n", seconds, FormatCount(result->evaluations));
  std::string rows;
  for (size_t i = 0; i < assignment.size(); ++i) {
    std::string row;
    for (size_t k = 0; k < assignment[i].size(); ++k) row += (k ? "," : "") + std::to_string(assignment[i][k]);
    rows += (i ? "," : "") + std::string("{") + row + "}";
  }
  fmt::print("XLA device_assignment (replica x partition -> device id): {{{}}}\n", rows);
  fmt::print("JAX device order: devices = [jax.devices()[i] for i in [{}]]\n", PlacementText(best));
  if (args.explain) {
    fmt::print("breakdown of the best\n");
    PrintBreakdown(*r);
  }
  return 0;
}

}  // namespace

void RegisterPrice(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<PriceArgs>();
  CLI::App* cmd = app.add_subcommand("price", "Simulate one step of compiled evidence under one placement");
  args->Add(cmd);
  cmd->add_option("--placement,-p", args->placement,
                  "logical id -> chip id as a comma list (\"3,1,0,2\"), or \"default\" (JAX's create_device_mesh "
                  "order; the default with --evidence; with --hlo the default is a placement search)");
  cmd->add_flag("--explain", args->explain,
                "With --hlo: the breakdown of the best placement (collective classes, busiest links)");
  cmd->callback([args, &ctx] { ctx.exit_code = RunPrice(*args); });
}

void RegisterPlace(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<PlaceArgs>();
  CLI::App* cmd = app.add_subcommand(
      "place", "Search the placement (logical rank -> chip) of compiled evidence: best, default and worst");
  args->Add(cmd);
  cmd->add_option("--seed", args->seed, "Seed of the local search (same seed, same result)");
  cmd->add_option("--restarts", args->restarts, "Annealing restarts")->check(CLI::Range(1, 1000));
  cmd->add_option("--moves", args->moves, "Annealing moves per restart (0: automatic)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  cmd->add_option("--exhaustive-max", args->exhaustive_max, "Exhaustive search up to this many chips (0: never)")
      ->check(CLI::Range(0, 10));
  cmd->callback([args, &ctx] { ctx.exit_code = RunPlace(*args); });
}

}  // namespace az::cli
