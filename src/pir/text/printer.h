// Prints a PIR graph in its canonical text form (parser.h has the grammar).
//
// Canonical means: meshes in graph order, then every leaf (input, param, const)
// in ValueId order, then the ops in op order, then `return`; values are
// renumbered %0, %1, ... in that order of definition, whatever their ValueIds;
// attributes are sorted by key; floats print in their shortest round-trip form;
// locations and activation names are not printed. Hence, for every graph g,
//   PrintGraph(ParseGraph(PrintGraph(g))) == PrintGraph(g).
//
// Names print bare where the grammar allows an identifier and they are one
// (attribute keys, mesh names), quoted otherwise, so that any name round-trips.
//
// The printer never fails: a graph that breaks the IR invariants (an operand
// with no printed definition, say) still prints, with `%?<id>` for a reference
// to a value that has no number; such text does not parse back.
#pragma once

#include <string>

#include "pir/ir/graph.h"

namespace az::pir {

std::string PrintGraph(const Graph& graph);
// The text forms the graph printer uses: `<@m, [{"x"}, {}], replicated={"y"}>`
// and `@m = ["x"=2, "y"=4]`.
std::string PrintSharding(const TensorSharding& sharding);
std::string PrintMesh(const Mesh& mesh);

}  // namespace az::pir
