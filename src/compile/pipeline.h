// The front half of the pipeline in one call: a graph, a mesh and a parallelism
// template (shard/templates.h) -> seeds -> propagation -> the compiler -> CIR.
// What the CLI's `compile`, the planner and tests share, so the steps are
// written once.
#pragma once

#include <string_view>

#include "compile/compiler.h"

namespace az::compile {

// `templ` is a template spec ("ulysses=y", "usp:ulysses=2,ring=4", ...) or
// "replicated" (no seeds: every device runs the whole model).
StatusOr<cir::Program> CompileTemplate(Compiler& compiler, const pir::Graph& graph, const shard::Mesh& mesh,
                                       std::string_view templ, const CompileOptions& options);

}  // namespace az::compile
