// How subcommands plug into `aoizora`: each command file registers its
// subcommand (flags and help) on the app; when the user picks it, its callback
// runs the command and stores the exit code: 0 success, 1 a user error (message
// on stderr), 2 a usage error. Commands stay thin: they parse what the user
// gave, call the library and print.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "frontend/import/imported.h"
#include "frontend/zoo/zoo.h"
#include "pir/rules/cost.h"
#include "hw/topology.h"
#include "price/calibration.h"
#include "tools/aoizora/commands.h"

namespace az::cli {

struct CommandContext {
  int exit_code = 0;
};

// Prints "aoizora: <message>" on stderr; returns the user-error exit code 1.
int Fail(const Status& status);
// Input files larger than this are refused (kResourceExhausted).
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{1} << 30;
StatusOr<std::string> ReadFile(const std::string& path);
// A named system ("v5e:2x4", "h100:8") or, ending in .json, a topology file.
StatusOr<hw::Topology> LoadTopology(const std::string& spec);
// --calibration: the file (network keys and a "compute" object), or the
// topology's defaults when `path` is empty.
StatusOr<price::PriceCalibration> LoadPriceCalibration(const std::string& path, const hw::Topology& topology);

// --model and the video flags, and their resolution against the zoo.
CLI::Option* AddModelFlags(CLI::App* cmd, ModelFlags* flags);
// The workload the flags name: the zoo model, or with --stablehlo or --onnx
// the imported program (workload/workload.h).
StatusOr<workload::Workload> ResolveModelFlags(const ModelFlags& flags);
// The zoo model the flags name (no program flags).
StatusOr<zoo::ModelConfig> ResolveZooFlags(const ModelFlags& flags);

// --stablehlo / --onnx (program_flags.cc).
struct ImportedModel {
  frontend::ImportedProgram program;
  az::workload::Workload workload;  // workload.program is the program's graph
};
bool HasProgram(const ModelFlags& flags);
// Imports the file; warnings go to stderr.
StatusOr<ImportedModel> ResolveProgram(const ModelFlags& flags);
int InspectProgram(const InspectArgs& args);

// Formatting shared by the commands (commands.cc).
std::string WithCommas(int64_t n);
std::string Percent(Flops part, Flops whole);
nlohmann::ordered_json CostJson(const pir::OpCost& c);

// calibrate's fidelity modes (fidelity_command.cc).
int RunCalibrateScaling(const std::string& single_file, const std::string& multi_file, bool shipped);
int RunCalibrateReport(const std::string& data, const std::string& out);

void RegisterModels(CLI::App& app, CommandContext& ctx);
void RegisterCompile(CLI::App& app, CommandContext& ctx);
void RegisterInspect(CLI::App& app, CommandContext& ctx);
void RegisterTopo(CLI::App& app, CommandContext& ctx);
void RegisterCollective(CLI::App& app, CommandContext& ctx);
void RegisterCalibrate(CLI::App& app, CommandContext& ctx);
void RegisterPrice(CLI::App& app, CommandContext& ctx);
void RegisterPlace(CLI::App& app, CommandContext& ctx);
void RegisterPlan(CLI::App& app, CommandContext& ctx);
void RegisterBench(CLI::App& app, CommandContext& ctx);

}  // namespace az::cli
