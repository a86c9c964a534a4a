// `aoizora collective` and `aoizora calibrate`: the network model (and, in
// calibrate, the compute-model fits) from the command line.
#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fidelity/video_fit.h"
#include "hw/topology.h"
#include "net/fit.h"
#include "net/model.h"
#include "price/compute.h"
#include "price/compute_fit.h"
#include "tools/aoizora/cli.h"

namespace az::cli {

namespace {

using nlohmann::ordered_json;

struct TopologyArgs {
  std::string topology;
  std::vector<std::string> fail_links, fail_chips;
  std::string calibration;

  void Add(CLI::App* cmd) {
    cmd->add_option("--topology,-t", topology, "A named system (v5e:2x4, h100:8, ...) or a topology JSON file")
        ->required();
    cmd->add_option("--fail-link", fail_links, "A failed link A-B (chip ids or names); repeatable");
    cmd->add_option("--fail-chip", fail_chips, "A failed chip; repeatable");
  }
  StatusOr<hw::Topology> Load() const {
    StatusOr<hw::Topology> t = LoadTopology(topology);
    if (!t.ok()) return t.status();
    AZ_RETURN_IF_ERROR(hw::ApplyFailures(*t, fail_links, fail_chips));
    return t;
  }
  StatusOr<net::Calibration> LoadCalibration(const hw::Topology& t) const {
    if (calibration.empty()) return net::DefaultCalibration(t);
    AZ_ASSIGN_OR_RETURN(std::string text, ReadFile(calibration));
    return net::CalibrationFromJson(text, calibration);
  }
};

struct CollectiveArgs {
  TopologyArgs topo;
  std::string kind;
  std::string bytes;
  std::string groups;
  std::string pairs;
  std::string placement;
  int root = 0;
  bool json = false;
  bool explain = false;
};

StatusOr<int64_t> ParseBytes(const std::string& text) {
  // "1048576", "64MiB", "34MB", "1GiB", "4KiB"
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return InvalidArgument("--bytes '" + text + "' is not a size (e.g. 1048576, 64MiB, 34MB)");
  double number = 0;
  try {
    number = std::stod(text.substr(0, i));
  } catch (...) {
    return InvalidArgument("--bytes '" + text + "' is not a size");
  }
  std::string unit = text.substr(i);
  double scale = 1;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "KB") scale = 1e3;
  else if (unit == "MB") scale = 1e6;
  else if (unit == "GB") scale = 1e9;
  else if (unit == "KiB") scale = 1024.0;
  else if (unit == "MiB") scale = 1024.0 * 1024;
  else if (unit == "GiB") scale = 1024.0 * 1024 * 1024;
  else return InvalidArgument("--bytes '" + text + "': unknown unit '" + unit + "' (B, KB, MB, GB, KiB, MiB, GiB)");
  double bytes = number * scale;
  if (!(bytes >= 0) || bytes > 1e15) return InvalidArgument("--bytes '" + text + "' is out of range");
  return static_cast<int64_t>(bytes);
}

int RunCollective(const CollectiveArgs& args) {
  auto topology = args.topo.Load();
  if (!topology.ok()) return Fail(topology.status());
  auto calibration = args.topo.LoadCalibration(*topology);
  if (!calibration.ok()) return Fail(calibration.status());
  net::Collective c;
  auto kind = net::ParseCollectiveKind(args.kind);
  if (!kind.ok()) return Fail(kind.status());
  c.kind = *kind;
  auto bytes = ParseBytes(args.bytes);
  if (!bytes.ok()) return Fail(bytes.status());
  c.bytes = Bytes(*bytes);
  c.root = args.root;
  int n = topology->num_chips();
  net::Placement placement = net::IdentityPlacement(n);
  if (!args.placement.empty()) {
    auto p = net::ParsePlacement(args.placement, n);
    if (!p.ok()) return Fail(p.status());
    placement = *p;
  }
  int devices = static_cast<int>(placement.size());
  if (c.kind == net::CollectiveKind::kCollectivePermute) {
    if (args.pairs.empty()) return Fail(InvalidArgument("collective-permute needs --pairs (e.g. 0->1,1->2)"));
    auto pairs = net::ParsePermutePairs(args.pairs, devices);
    if (!pairs.ok()) return Fail(pairs.status());
    c.pairs = *pairs;
  } else {
    if (args.groups.empty()) return Fail(InvalidArgument("--groups is required (e.g. {{0,1},{2,3}} or [2,4]<=[8])"));
    auto groups = net::ParseReplicaGroups(args.groups, devices);
    if (!groups.ok()) return Fail(groups.status());
    c.groups = *groups;
  }
  net::CollectiveModel model(*topology, *calibration);
  auto r = model.Price(c, placement, args.explain);
  if (!r.ok()) return Fail(r.status());
  std::string bottleneck = r->bottleneck_channel >= 0 ? topology->ChannelName(r->bottleneck_channel) : "";
  if (args.json) {
    ordered_json j = {{"topology", topology->name},
                      {"kind", std::string(net::CollectiveKindName(c.kind))},
                      {"bytes", c.bytes.value()},
                      {"time_s", r->time.value()},
                      {"algorithm", r->algorithm},
                      {"latency_s", r->latency_time.value()},
                      {"bandwidth_s", r->bandwidth_time.value()},
                      {"max_link_load_bytes", r->max_channel_bytes},
                      {"bottleneck_link", bottleneck}};
    if (args.explain) {
      ordered_json loads = ordered_json::array();
      for (auto [ch, b] : r->channel_bytes) loads.push_back({{"link", topology->ChannelName(ch)}, {"bytes", b}});
      j["link_loads"] = loads;
      j["notes"] = r->notes;
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{} of {} on {}: {}\n", net::CollectiveKindName(c.kind), FormatBytes(c.bytes), topology->name,
             FormatSeconds(r->time));
  fmt::print("  algorithm   {}\n", r->algorithm);
  fmt::print("  latency     {} ({} steps)\n", FormatSeconds(r->latency_time), r->steps);
  fmt::print("  bandwidth   {}\n", FormatSeconds(r->bandwidth_time));
  fmt::print("  bottleneck  {} carrying {}\n", bottleneck.empty() ? "-" : bottleneck,
             FormatBytes(Bytes(static_cast<int64_t>(r->max_channel_bytes))));
  if (args.explain) {
    fmt::print("  link loads (bytes over the whole collective):\n");
    for (auto [ch, b] : r->channel_bytes) {
      const hw::Link& link = topology->channel_link(ch);
      fmt::print("    {:<28} {:>12}  {}{}\n", topology->ChannelName(ch), FormatBytes(Bytes(static_cast<int64_t>(b))),
                 hw::LinkClassName(link.cls), link.wraparound ? " (wraparound)" : "");
    }
    for (const std::string& note : r->notes) fmt::print("  note: {}\n", note);
  }
  return 0;
}

struct CalibrateArgs {
  TopologyArgs topo;
  std::string measurements;
  std::string kind = "all-reduce";
  std::string dit;
  std::string multi;  // --multi: multi-GPU DiT latencies, fitted jointly with --dit
  std::string data = "../shared/data/measurements";  // --report
  std::string kernels;
  std::string chip;
  std::string out;
  bool json = false;
  bool shipped = false;  // --dit: price with the shipped defaults, no fit
  bool report = false;   // --report: every measurement file predicted
};

// Which flags the user gave, so that calibrations of different kinds are not
// mixed in one invocation.
struct CalibrateGiven {
  bool topology = false, measurements = false, kind = false, failures = false, calibration = false;
  bool dit = false, kernels = false, chip = false, shipped = false, out = false;
  bool multi = false, report = false, data = false;
};

Status CheckCalibrateFlags(const CalibrateGiven& given) {
  if (given.multi && !given.dit) {
    return InvalidArgument("--multi goes with --dit (the single-GPU rows fit each GPU's kernels)");
  }
  bool collective = given.topology || given.measurements || given.kind || given.failures;
  std::vector<std::string> modes;
  if (collective) modes.push_back("-t/-m (collective measurements)");
  if (given.dit) modes.push_back("--dit (DiT latencies)");
  if (given.report) modes.push_back("--report (the fidelity report)");
  if (given.kernels) modes.push_back("--kernels (kernel timings)");
  if (modes.empty()) {
    return InvalidArgument(
        "calibrate needs one of: -t TOPOLOGY -m FILE (nccl-tests measurements), --dit FILE [--multi FILE] (DiT "
        "latencies), --kernels FILE --chip NAME (kernel timings) or --report (every measurement file predicted)");
  }
  if (modes.size() > 1) {
    std::string list;
    for (size_t i = 0; i < modes.size(); ++i) list += (i == 0 ? "" : i + 1 == modes.size() ? " and " : ", ") + modes[i];
    return InvalidArgument(list + " are different calibrations; give one per invocation");
  }
  if (given.multi && given.out) {
    return InvalidArgument("--multi writes no calibration file: the joint fit's values are the shipped defaults "
                           "(hw/chip.cc: fitted_compute)");
  }
  if (given.data && !given.report) return InvalidArgument("--data goes with --report");
  if (given.report && given.shipped) return InvalidArgument("--report always prices with the shipped defaults");
  if (given.chip && !given.kernels) {
    return InvalidArgument(collective ? "--chip goes with --kernels; the collective fit takes its chips from -t"
                                      : "--chip goes with --kernels; --dit fits every GPU the file names");
  }
  if (collective && !given.topology) {
    return InvalidArgument("-m needs -t (the topology the measurements were taken on)");
  }
  if (collective && !given.measurements) return InvalidArgument("-t needs -m (the measurements CSV)");
  if (given.dit && given.calibration) {
    return InvalidArgument("--calibration does not apply to --dit: the fit scales the documented defaults "
                           "(docs/compute-model.md)");
  }
  if (given.kernels && !given.chip) return InvalidArgument("--kernels needs --chip NAME (the chip the kernels ran on)");
  if (given.shipped && !given.dit) return InvalidArgument("--shipped goes with --dit (it prices the rows, no fit)");
  if (given.shipped && given.out) {
    return InvalidArgument("--shipped fits nothing, so there is no calibration to write (-o)");
  }
  return Status::Ok();
}

int RunCalibrateCollective(const CalibrateArgs& args) {
  auto topology = args.topo.Load();
  if (!topology.ok()) return Fail(topology.status());
  auto start = args.topo.LoadCalibration(*topology);
  if (!start.ok()) return Fail(start.status());
  auto kind = net::ParseCollectiveKind(args.kind);
  if (!kind.ok()) return Fail(kind.status());
  auto text = ReadFile(args.measurements);
  if (!text.ok()) return Fail(text.status());
  auto rows = net::ReadMeasurements(*text, args.measurements, *kind, topology->num_chips());
  if (!rows.ok()) return Fail(rows.status());
  auto report = net::FitCalibration(*topology, *rows, *start);
  if (!report.ok()) return Fail(report.status());
  report->calibration.name = "fitted:" + topology->name;
  report->calibration.source = "aoizora calibrate --measurements " + args.measurements;
  if (!args.out.empty()) {
    std::ofstream out(args.out);
    out << net::CalibrationToJson(report->calibration);
    if (!out) return Fail(InvalidArgument("cannot write '" + args.out + "'"));
  }
  if (args.json) {
    ordered_json points = ordered_json::array();
    for (const auto& p : report->points) {
      points.push_back({{"bytes", p.measurement.bytes.value()},
                        {"measured_s", p.measurement.time.value()},
                        {"predicted_s", p.predicted.value()},
                        {"algorithm", p.algorithm},
                        {"relative_error", p.relative_error}});
    }
    ordered_json j = {{"topology", topology->name},
                      {"median_abs_error_from_1MiB", report->median_abs_error_1mib},
                      {"calibration", ordered_json::parse(net::CalibrationToJson(report->calibration))},
                      {"points", points}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{:>14} {:>12} {:>12} {:>8}  {}\n", "bytes", "measured", "predicted", "error", "algorithm");
  for (const auto& p : report->points) {
    fmt::print("{:>14} {:>12} {:>12} {:>7.1f}%  {}\n", p.measurement.bytes.value(), FormatSeconds(p.measurement.time),
               FormatSeconds(p.predicted), 100 * p.relative_error, p.algorithm);
  }
  fmt::print("median |error| over sizes >= 1 MiB: {:.1f}% ({} iterations)\n", 100 * report->median_abs_error_1mib,
             report->iterations);
  for (const auto& [name, p] : report->calibration.algorithms) {
    fmt::print("  {:<12} base {:>9}  step {:>9}  efficiency {:.3f}\n", name, FormatSeconds(p.base_latency),
               FormatSeconds(p.step_latency), p.efficiency);
  }
  if (!args.out.empty()) fmt::print("wrote {}\n", args.out);
  return 0;
}


// "50x2 fwd 1812.3 s + umt5-xxl 0.1 s + wan-vae-decoder 9.8 s + host 0.8 s".
std::string DitBreakdown(const fidelity::DitPrediction& p, int64_t steps, int64_t passes) {
  std::string out = fmt::format("{}x{} forwards {:.1f} s", steps, passes, p.denoising.value());
  for (const auto& [name, time] : p.stages) out += fmt::format(" + {} {:.2f} s", name, time.value());
  if (p.host_transfers.value() > 0) out += fmt::format(" + host transfers {:.2f} s", p.host_transfers.value());
  for (const std::string& what : p.not_priced) out += "; not priced: " + what;
  return out;
}

int RunCalibrateDit(const CalibrateArgs& args) {
  auto text = ReadFile(args.dit);
  if (!text.ok()) return Fail(text.status());
  auto rows = fidelity::ReadDitLatencies(*text, args.dit);
  if (!rows.ok()) return Fail(rows.status());
  fidelity::PipelineCache cache;
  auto report = args.shipped ? fidelity::PredictDitLatencies(*rows, cache, price::DefaultComputeCalibration)
                             : fidelity::FitDitLatencies(*rows, cache);
  if (!report.ok()) return Fail(report.status());
  for (fidelity::DitChipFit& fit : report->chips) {
    fit.calibration.source = "aoizora calibrate --dit " + args.dit + ": " + fit.calibration.source;
  }
  if (!args.out.empty()) {
    ordered_json list = ordered_json::array();
    for (const fidelity::DitChipFit& fit : report->chips) {
      list.push_back(ordered_json::parse(price::ComputeCalibrationToJson(fit.calibration)));
    }
    std::ofstream out(args.out);
    out << list.dump(1) << "\n";
    if (!out) return Fail(InvalidArgument("cannot write '" + args.out + "'"));
  }
  auto size = [](const fidelity::DitLatency& r) { return fmt::format("{}x{}x{}", r.width, r.height, r.frames); };
  if (args.json) {
    ordered_json rows_json = ordered_json::array(), skipped = ordered_json::array(), chips = ordered_json::array();
    for (const fidelity::DitFitRow& r : report->rows) {
      ordered_json stages = ordered_json::array();
      for (const auto& [name, time] : r.prediction.stages) stages.push_back({{"name", name}, {"seconds", time.value()}});
      rows_json.push_back({{"line", r.row.line}, {"model", r.row.model}, {"gpu", r.row.gpu}, {"chip", r.row.chip},
                           {"width", r.row.width}, {"height", r.row.height}, {"frames", r.row.frames},
                           {"steps", r.row.steps}, {"cfg_passes_per_step", r.row.cfg_passes},
                           {"offload_model", r.row.offload_model}, {"text_encoder_on_cpu", r.row.text_encoder_on_cpu},
                           {"measured_s", r.row.measured.value()}, {"predicted_s", r.predicted.value()},
                           {"relative_error", r.relative_error}, {"forward_s", r.prediction.forward.value()},
                           {"denoising_s", r.prediction.denoising.value()}, {"stages", stages},
                           {"host_transfers_s", r.prediction.host_transfers.value()},
                           {"not_priced", r.prediction.not_priced}});
    }
    for (const fidelity::DitSkippedRow& r : report->skipped) {
      skipped.push_back({{"line", r.row.line}, {"model", r.row.model}, {"gpu", r.row.gpu}, {"chip", r.row.chip},
                         {"reason", r.reason}});
    }
    for (const fidelity::DitChipFit& fit : report->chips) {
      chips.push_back({{"chip", fit.chip}, {"rows", fit.rows}, {"scale", fit.scale},
                       {"rms_log_error", fit.rms_log_error}, {"one_workload", fit.one_workload},
                       {"absorbs_unpriced", fit.absorbs_unpriced}, {"note", fit.note}, {"warning", fit.warning},
                       {"calibration", ordered_json::parse(price::ComputeCalibrationToJson(fit.calibration))}});
    }
    ordered_json j = {{"calibration", args.shipped ? "shipped defaults" : "fitted"},
                      {"median_abs_error", report->median_abs_error},
                      {"rows", rows_json},
                      {"skipped", skipped},
                      {"chips", chips}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{} ({})\n", args.shipped ? "predicted with the shipped default calibrations" : "fitted per GPU",
             "each row end to end: the DiT forwards, the pipeline's other stages, the recipe's host transfers");
  fmt::print("{:<18} {:<8} {:<13} {:>11} {:>11} {:>8}  {}\n", "model", "gpu", "size", "measured", "predicted", "error",
             "breakdown");
  for (const fidelity::DitFitRow& r : report->rows) {
    fmt::print("{:<18} {:<8} {:<13} {:>9.1f} s {:>9.1f} s {:>7.1f}%  {}\n", r.row.model, r.row.gpu, size(r.row),
               r.row.measured.value(), r.predicted.value(), 100 * r.relative_error,
               DitBreakdown(r.prediction, r.row.steps, r.row.cfg_passes));
  }
  if (!report->skipped.empty()) fmt::print("skipped (the compute model cannot price the chip):\n");
  for (const fidelity::DitSkippedRow& r : report->skipped) {
    fmt::print("  {}:{} {} on {}: {}\n", args.dit, r.row.line, r.row.model, r.row.gpu, r.reason);
  }
  fmt::print("median |error| over {} priced rows: {:.1f}%\n", report->rows.size(), 100 * report->median_abs_error);
  if (!report->chips.empty()) fmt::print("fitted tensor-core efficiencies:\n");
  for (const fidelity::DitChipFit& fit : report->chips) {
    const price::ComputeCalibration& c = fit.calibration;
    fmt::print("  {:<7} {} rows  scale {:.4f}  matmul {:.4f}  attention {:.4f}  convolution {:.4f}  "
               "rms log error {:.3f}\n",
               fit.chip, fit.rows, fit.scale, c.matmul_efficiency, c.attention_efficiency, c.convolution_efficiency,
               fit.rms_log_error);
    if (!fit.note.empty()) fmt::print("          note: {}\n", fit.note);
    if (!fit.warning.empty()) fmt::print("          warning: {}\n", fit.warning);
  }
  if (!args.out.empty()) fmt::print("wrote {}\n", args.out);
  return 0;
}

int RunCalibrateKernels(const CalibrateArgs& args) {
  auto chip = hw::FindChip(args.chip);
  if (!chip.ok()) return Fail(chip.status());
  price::ComputeCalibration start = price::DefaultComputeCalibration(**chip);
  if (!args.topo.calibration.empty()) {
    auto text = ReadFile(args.topo.calibration);
    if (!text.ok()) return Fail(text.status());
    auto read = price::ComputeCalibrationFromJson(*text, args.topo.calibration, start);
    if (!read.ok()) return Fail(read.status());
    start = *read;
  }
  auto text = ReadFile(args.kernels);
  if (!text.ok()) return Fail(text.status());
  auto rows = price::ReadKernelTimings(*text, args.kernels);
  if (!rows.ok()) return Fail(rows.status());
  auto report = price::FitKernelTimings(**chip, *rows, start);
  if (!report.ok()) return Fail(report.status());
  report->calibration.source = "aoizora calibrate --kernels " + args.kernels + " --chip " + args.chip;
  if (!args.out.empty()) {
    std::ofstream out(args.out);
    out << price::ComputeCalibrationToJson(report->calibration) << "\n";
    if (!out) return Fail(InvalidArgument("cannot write '" + args.out + "'"));
  }
  if (args.json) {
    ordered_json points = ordered_json::array();
    for (const price::KernelFitPoint& p : report->points) {
      points.push_back({{"line", p.timing.line}, {"kind", std::string(cir::KernelKindName(p.timing.kind))},
                        {"flops", p.timing.flops.value()}, {"bytes", p.timing.bytes.value()},
                        {"measured_s", p.timing.time.value()}, {"predicted_s", p.predicted.value()},
                        {"relative_error", p.relative_error}, {"memory_bound", p.memory_bound}});
    }
    ordered_json j = {{"chip", args.chip}, {"median_abs_error", report->median_abs_error},
                      {"iterations", report->iterations}, {"fitted", report->fitted},
                      {"calibration", ordered_json::parse(price::ComputeCalibrationToJson(report->calibration))},
                      {"points", points}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{:>6} {:<12} {:>12} {:>12} {:>11} {:>11} {:>8}  {}\n", "line", "kind", "flops", "bytes", "measured",
             "predicted", "error", "bound by");
  for (const price::KernelFitPoint& p : report->points) {
    fmt::print("{:>6} {:<12} {:>12.4g} {:>12.4g} {:>11} {:>11} {:>7.2f}%  {}\n", p.timing.line,
               cir::KernelKindName(p.timing.kind), static_cast<double>(p.timing.flops.value()),
               static_cast<double>(p.timing.bytes.value()), FormatSeconds(p.timing.time), FormatSeconds(p.predicted),
               100 * p.relative_error, p.memory_bound ? "memory" : "compute");
  }
  fmt::print("median |error|: {:.2f}% ({} iterations)\n", 100 * report->median_abs_error, report->iterations);
  const price::ComputeCalibration& c = report->calibration;
  auto mark = [&](const char* name) {
    return std::find(report->fitted.begin(), report->fitted.end(), name) != report->fitted.end() ? "fitted" : "kept";
  };
  fmt::print("  matmul_efficiency       {:.4f}  ({})\n", c.matmul_efficiency, mark("matmul_efficiency"));
  fmt::print("  attention_efficiency    {:.4f}  ({})\n", c.attention_efficiency, mark("attention_efficiency"));
  fmt::print("  convolution_efficiency  {:.4f}  ({})\n", c.convolution_efficiency, mark("convolution_efficiency"));
  fmt::print("  vector_fraction         {:.4f}  ({})\n", c.vector_fraction, mark("vector_fraction"));
  fmt::print("  memory_efficiency       {:.4f}  ({})\n", c.memory_efficiency, mark("memory_efficiency"));
  fmt::print("  kernel_overhead         {}  ({})\n", FormatSeconds(c.kernel_overhead), mark("kernel_overhead"));
  if (!args.out.empty()) fmt::print("wrote {}\n", args.out);
  return 0;
}

int RunCalibrate(const CalibrateArgs& args, const CalibrateGiven& given) {
  if (Status s = CheckCalibrateFlags(given); !s.ok()) return Fail(s);
  if (given.report) return RunCalibrateReport(args.data, args.out);
  if (given.multi) return RunCalibrateScaling(args.dit, args.multi, args.shipped);
  if (given.dit) return RunCalibrateDit(args);
  if (given.kernels) return RunCalibrateKernels(args);
  return RunCalibrateCollective(args);
}

}  // namespace

void RegisterCollective(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* cmd = app.add_subcommand("collective", "Price one collective on a topology under a placement");
  args->topo.Add(cmd);
  cmd->add_option("--kind,-k", args->kind, "all-reduce, all-gather, reduce-scatter, all-to-all, "
                                           "collective-permute or broadcast")->required();
  cmd->add_option("--bytes,-b", args->bytes, "Per-device buffer: 1048576, 64MiB, 34MB ...")->required();
  cmd->add_option("--groups,-g", args->groups, "Replica groups of logical ids: {{0,1},{2,3}} or [2,4]<=[8]");
  cmd->add_option("--pairs", args->pairs, "collective-permute source->target pairs: 0->1,1->2");
  cmd->add_option("--placement,-p", args->placement, "Logical id -> chip id, e.g. 0,1,4,5,2,3,6,7 (default: identity)");
  cmd->add_option("--root", args->root, "broadcast: the root's position in each group");
  cmd->add_option("--calibration", args->topo.calibration, "Calibration JSON (from aoizora calibrate)");
  cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
  cmd->add_flag("--explain", args->explain, "Per-link loads and why the algorithm was picked");
  cmd->callback([args, &ctx] { ctx.exit_code = RunCollective(*args); });
}

void RegisterCalibrate(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Fit a model to measurements: the collective model to nccl-tests times (-t/-m), the compute model to "
      "DiT latencies (--dit) or to kernel timings (--kernels --chip)");
  // The topology flags of TopologyArgs::Add, optional here: -t is one of the modes.
  cmd->add_option("--topology,-t", args->topo.topology,
                  "Collective fit: a named system (v5e:2x4, h100:8, ...) or a topology JSON file");
  cmd->add_option("--fail-link", args->topo.fail_links, "Collective fit: a failed link A-B; repeatable");
  cmd->add_option("--fail-chip", args->topo.fail_chips, "Collective fit: a failed chip; repeatable");
  cmd->add_option("--measurements,-m", args->measurements, "Collective fit: CSV of bytes and time_us / algbw / busbw");
  cmd->add_option("--kind,-k", args->kind, "Collective fit: collective of rows without a 'collective' column")
      ->capture_default_str();
  cmd->add_option("--dit", args->dit,
                  "Compute fit: CSV of single-GPU DiT latencies (model, variant, gpu, width, height, frames, steps, "
                  "cfg_passes_per_step, seconds)");
  cmd->add_option("--multi", args->multi,
                  "With --dit: CSV of multi-GPU DiT latencies (the columns of --dit plus gpus, parallel), fitted "
                  "jointly (docs/fidelity.md)");
  cmd->add_flag("--report", args->report,
                "Predict every measurement file of --data with the shipped defaults; markdown to -o or stdout");
  cmd->add_option("--data", args->data, "--report: the measurement folder")->capture_default_str();
  cmd->add_option("--kernels", args->kernels, "Compute fit: CSV of kernel timings (kind, flops, bytes, time_us, dims)");
  cmd->add_option("--chip", args->chip, "Compute fit of --kernels: the chip the kernels ran on (h100, ...)");
  cmd->add_option("--calibration", args->topo.calibration,
                  "Start from this calibration JSON (collective; with --kernels a compute calibration)");
  cmd->add_option("--out,-o", args->out,
                  "Write the fitted calibration JSON here (--dit: an array, one compute calibration per GPU)");
  cmd->add_flag("--shipped", args->shipped,
               "--dit: price every row with the shipped default calibrations instead of fitting them");
  cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
  cmd->callback([args, cmd, &ctx] {
    CalibrateGiven given;
    given.topology = cmd->count("--topology") > 0;
    given.measurements = cmd->count("--measurements") > 0;
    given.kind = cmd->count("--kind") > 0;
    given.failures = cmd->count("--fail-link") + cmd->count("--fail-chip") > 0;
    given.calibration = cmd->count("--calibration") > 0;
    given.dit = cmd->count("--dit") > 0;
    given.kernels = cmd->count("--kernels") > 0;
    given.chip = cmd->count("--chip") > 0;
    given.shipped = cmd->count("--shipped") > 0;
    given.out = cmd->count("--out") > 0;
    given.multi = cmd->count("--multi") > 0;
    given.report = cmd->count("--report") > 0;
    given.data = cmd->count("--data") > 0;
    ctx.exit_code = RunCalibrate(*args, given);
  });
}

}  // namespace az::cli
