// `aoizora collective` and `aoizora calibrate`: the network model from the
// command line.
#include <fmt/core.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/topology.h"
#include "net/fit.h"
#include "net/model.h"
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
  std::string out;
  bool json = false;
};

int RunCalibrate(const CalibrateArgs& args) {
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
  CLI::App* cmd = app.add_subcommand("calibrate", "Fit the collective model to measured times (nccl-tests CSV)");
  args->topo.Add(cmd);
  cmd->add_option("--measurements,-m", args->measurements, "CSV of bytes and time_us / algbw / busbw")->required();
  cmd->add_option("--kind,-k", args->kind, "Collective of rows without a 'collective' column")->capture_default_str();
  cmd->add_option("--calibration", args->topo.calibration, "Start from this calibration JSON");
  cmd->add_option("--out,-o", args->out, "Write the fitted calibration JSON here");
  cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
  cmd->callback([args, &ctx] { ctx.exit_code = RunCalibrate(*args); });
}

}  // namespace az::cli
