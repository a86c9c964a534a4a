// The PIR verifier: checks a graph's invariants (see pir/ir/graph.h), separate
// from the builder and the parser.
//
// Checks, in order: meshes (unique names and axes, positive sizes); leaves and
// activations (roles, producers, shapes within limits); every op (operand ids
// defined earlier: topological order; arity; result types equal to the inferred
// ones; a factor rule that matches the shapes: one factor list per dimension,
// factor sizes multiplying to the dimension, each reduction factor absent from
// at least one result); sharding annotations (declared mesh, known axes, one list per
// dimension, no axis twice); outputs.
//
// Every problem is reported (not only the first), each with the op's location:
// file:line:col for parsed graphs (rendered with the source line when `source`
// is given), the op's name for built ones.
#pragma once

#include "pir/ir/graph.h"
#include "support/diagnostic.h"

namespace az::pir {

// Limits that keep every count inside int64 and every allocation bounded.
constexpr int64_t kMaxRank = 64;
constexpr int64_t kMaxElements = int64_t{1} << 50;  // 1 Pi-elements per tensor

Status VerifyGraph(const Graph& graph, const SourceBuffer* source = nullptr);

}  // namespace az::pir
