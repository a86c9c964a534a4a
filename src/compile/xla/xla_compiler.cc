#include "compile/xla/xla_compiler.h"

#include <fstream>
#include <sstream>

#include "compile/xla/hlo_import.h"

namespace az::compile {

StatusOr<cir::Program> XlaDumpCompiler::Compile(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                                const CompileOptions& options) {
  (void)graph;
  if (options.candidate_id.empty()) {
    return InvalidArgument("the XLA compiler reads dumps by candidate id, and none was given");
  }
  std::string path = DumpPath(options.candidate_id);
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  AZ_ASSIGN_OR_RETURN(xla::ImportResult imported, xla::ImportHloText(text.str(), path));
  if (imported.program.num_devices != plan.mesh.num_devices()) {
    return InvalidArgument(path + ": the program runs on " + std::to_string(imported.program.num_devices) +
                           " devices, candidate " + options.candidate_id + " on " +
                           std::to_string(plan.mesh.num_devices()) + " (mesh " + plan.mesh.ToString() + ")");
  }
  imported.program.mesh = plan.mesh.ToString();
  return std::move(imported.program);
}

}  // namespace az::compile
