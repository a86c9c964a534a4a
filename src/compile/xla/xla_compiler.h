// XLA as a `Compiler` (compile/compiler.h): the program for a candidate is the
// one XLA compiled for it, read from a folder of HLO dumps named by candidate
// id (`<dir>/<CompileOptions::candidate_id>.hlo`, what the JAX loop writes:
// docs/jax-loop.md) and imported by hlo_import.h. The graph and the sharding
// plan are the ones the dump was compiled from; the compiler checks that the
// dump runs on the plan's device count and gives the program the plan's mesh,
// whose row-major positions are the partition ids of a JAX mesh built from
// the same axes. So the planner, pricing and placement drive XLA exactly as
// they drive the built-in SPMD compiler.
#pragma once

#include <string>

#include "compile/compiler.h"

namespace az::compile {

class XlaDumpCompiler : public Compiler {
 public:
  explicit XlaDumpCompiler(std::string dir) : dir_(std::move(dir)) {}
  std::string name() const override { return "xla"; }
  StatusOr<cir::Program> Compile(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                 const CompileOptions& options) override;
  // The dump a candidate's program is read from.
  std::string DumpPath(const std::string& candidate_id) const { return dir_ + "/" + candidate_id + ".hlo"; }

 private:
  std::string dir_;
};

}  // namespace az::compile
