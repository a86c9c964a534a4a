// LoadProgram (program_load.h).
#include "frontend/import/program_load.h"

#include <charconv>
#include <memory>

#include "frontend/onnx/import.h"
#include "frontend/stablehlo/import.h"

namespace az::frontend {

namespace {

class ImportedBuilder final : public workload::WorkloadBuilder {
 public:
  explicit ImportedBuilder(std::shared_ptr<const pir::Graph> program) : program_(std::move(program)) {}
  int64_t DepthUnits() const override { return 1; }
  workload::TokenCounts Tokens(const workload::Workload&) const override {
    return {program_->attrs().GetInt("video_tokens").value_or(0), program_->attrs().GetInt("text_tokens").value_or(0)};
  }
  StatusOr<pir::Graph> Forward(const workload::Workload&) const override { return *program_; }

 private:
  std::shared_ptr<const pir::Graph> program_;
};

}  // namespace

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
  out.workload = ProgramWorkload(request.file, out.program.graph, request.steps.value_or(1));
  return out;
}

workload::Workload ProgramWorkload(std::string name, pir::Graph graph, int64_t steps) {
  workload::Workload w;
  w.model = std::move(name);
  w.batch = graph.attrs().GetInt("batch").value_or(1);
  w.steps = steps;
  w.cfg = workload::CfgMode::kNone;
  // The dtype the program's matmuls run in (the first einsum's), for reports.
  for (const pir::Op& op : graph.ops()) {
    if (op.kind == pir::OpKind::kEinsum) {
      w.dtype = graph.type(op.operands[0]).dtype;
      break;
    }
  }
  w.program = std::make_shared<const pir::Graph>(std::move(graph));
  w.builder = std::make_shared<const ImportedBuilder>(w.program);
  return w;
}

}  // namespace az::frontend
