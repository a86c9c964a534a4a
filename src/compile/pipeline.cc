#include "compile/pipeline.h"

#include "shard/propagation.h"
#include "shard/templates.h"

namespace az::compile {

StatusOr<cir::Program> CompileTemplate(Compiler& compiler, const pir::Graph& graph, const shard::Mesh& mesh,
                                       std::string_view templ, const CompileOptions& options) {
  shard::Seeds seeds;
  if (templ != "replicated") {
    AZ_ASSIGN_OR_RETURN(seeds, shard::TemplateSeeds(graph, mesh, templ));
  }
  AZ_ASSIGN_OR_RETURN(shard::ShardingPlan plan, shard::Propagate(graph, mesh, seeds));
  return compiler.Compile(graph, plan, options);
}

}  // namespace az::compile
