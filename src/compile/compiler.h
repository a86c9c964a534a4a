// The compiler interface: a PIR graph plus a sharding plan in, the per-device
// program (CIR) with its real collectives out. The built-in SPMD partitioner
// (spmd/) implements it; an importer of XLA's compiled HLO implements the same
// contract for programs XLA partitioned, so search, pricing and placement treat
// both sources alike.
#pragma once

#include <string>

#include "cir/program.h"
#include "pir/ir/graph.h"
#include "shard/sharding.h"
#include "support/status.h"

namespace az::compile {

struct CompileOptions {
  bool fuse_elementwise = true;  // fold element-wise chains into their producers
  bool async_collectives = true;  // -start/-done pairs overlapping independent compute
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual std::string name() const = 0;
  virtual StatusOr<cir::Program> Compile(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                         const CompileOptions& options) = 0;
};

}  // namespace az::compile
