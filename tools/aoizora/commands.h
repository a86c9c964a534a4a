// The subcommands of `aoizora`. Each returns the process exit code:
// 0 success, 1 a user error (message on stderr), 2 a usage error.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace az::cli {

struct ModelsArgs {
  bool json = false;
};
int RunModels(const ModelsArgs& args);

// The zoo model flags shared by inspect, compile and later plan.
struct ModelFlags {
  std::string model;
  // An imported program in place of --model (frontend/import).
  std::string stablehlo, onnx;
  std::string latent;               // --latent: the input carrying the token stream
  std::vector<std::string> dims;    // --dim NAME=SIZE: symbolic dims of an ONNX file
  std::optional<int64_t> width, height, frames, steps;
  int64_t batch = 1;
  std::string cfg;  // empty: the model's default
  std::string dtype = "bf16";
};

struct InspectArgs : ModelFlags {
  std::string pir_file;  // inspect a PIR text file instead of a zoo model
  bool json = false;
  bool print_pir = false;
  std::string graph = "forward";  // which graph --print-pir prints: forward or step
  std::string stage;  // a non-DiT stage of the model (zoo/stages.h), or "list"
};
int RunInspect(const InspectArgs& args);

}  // namespace az::cli
