// LoadProgram (program_load.h).
#include "frontend/import/program_load.h"

#include <charconv>
#include <memory>

#include "frontend/onnx/import.h"
#include "frontend/stablehlo/import.h"

namespace az::frontend {

StatusOr<std::pair<std::string, int64_t>> ParseDimBinding(std::string_view text) {
  size_t eq = text.find('=');
  int64_t size = 0;
  const char* end = text.data() + text.size();
  if (eq == std::string_view::npos || eq == 0 || std::from_chars(text.data() + eq + 1, end, size).ptr != end ||
      size <= 0) {
    return InvalidArgument("'" + std::string(text) +
                           "': expected NAME=SIZE with a positive size (e.g. video_tokens=75600)");
  }
  return std::pair<std::string, int64_t>(std::string(text.substr(0, eq)), size);
}

StatusOr<LoadedProgram> LoadProgram(const ProgramRequest& request) {
  ImportOptions options;
  options.latent = request.latent;
  for (const std::string& dim : request.dims) {
    AZ_ASSIGN_OR_RETURN(auto binding, ParseDimBinding(dim));
    options.dims[binding.first] = binding.second;
  }
  const bool stablehlo = request.format == ProgramRequest::Format::kStableHlo;
  LoadedProgram out;
  if (request.contents) {
    if (stablehlo) {
      AZ_ASSIGN_OR_RETURN(out.program, ImportStableHlo(*request.contents, request.file, options));
    } else {
      AZ_ASSIGN_OR_RETURN(out.program, ImportOnnx(*request.contents, request.file, options));
    }
  } else if (stablehlo) {
    AZ_ASSIGN_OR_RETURN(out.program, ImportStableHloFile(request.file, options));
  } else {
    AZ_ASSIGN_OR_RETURN(out.program, ImportOnnxFile(request.file, options));
  }
  const pir::Graph& graph = out.program.graph;
  zoo::ModelConfig& c = out.config;
  c.model = request.file;
  c.batch = graph.attrs().GetInt("batch").value_or(1);
  c.steps = request.steps.value_or(1);
  c.cfg = zoo::CfgMode::kNone;
  // The dtype the program's matmuls run in (the first einsum's), for reports.
  for (const pir::Op& op : graph.ops()) {
    if (op.kind == pir::OpKind::kEinsum) {
      c.dtype = graph.type(op.operands[0]).dtype;
      break;
    }
  }
  c.program = std::make_shared<const pir::Graph>(graph);
  return out;
}

}  // namespace az::frontend
