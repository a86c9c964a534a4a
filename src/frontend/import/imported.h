// What a program importer (frontend/stablehlo, frontend/onnx) returns, and the
// passes every importer shares.
//
// An importer turns a framework's program into plain PIR: one PIR op per
// source op where PIR has the kind (einsum, add, exp, reduce, ...), `custom`
// with a warning naming the op and its location where it has none. It then
// runs FinishImport, which
//   1. folds the decompositions frameworks emit back into PIR's fused kinds
//      (fold.h: softmax, attention, layer/RMS norm, GELU, SiLU), so that the
//      partitioner sees an attention op, not two matmuls around a softmax;
//   2. drops ops no output depends on, and verifies the graph;
//   3. reads the DiT facts the parallelism templates need (dit.h): which input
//      is the latent token stream, how many video tokens the self-attention
//      runs over, which linears are column or row parallel.
//
// Naming. Parameters carry the framework's names (ONNX initializer names,
// PyTorch FQNs "blocks.0.self_attn.q.weight"; JAX argument paths where the
// export records them, else "%arg3"). Ops are named by the module scope they
// came from where the format records one ("blocks.0.self_attn.q"), else by
// the source op ("dot_general.12"); every op carries its file:line:col.
//
// Shardings written in the program (Shardy, GSPMD, or none for ONNX) land on
// the PIR values as `Value::sharding` over the meshes the file declares
// (`Graph::meshes()`): arguments and results as seeds, sharding constraints
// as pinned values (`pinned`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/import/constant_band.h"
#include "pir/ir/graph.h"
#include "support/diagnostic.h"
#include "support/status.h"

namespace az::frontend {

struct ImportedArgument {
  std::string source_name;  // "%arg0", "x", "blocks.0.self_attn.q.weight"
  pir::ValueId value = -1;  // its PIR leaf (an input or a parameter)
};

struct ImportedResult {
  std::string source_name;  // "%0" / jax.result_info / ONNX output name
  pir::ValueId value = -1;
};

struct ImportedProgram {
  pir::Graph graph;        // verified PIR
  std::string format;      // "stablehlo" or "onnx"
  std::string file;        // as given
  std::vector<ImportedArgument> arguments;  // in the function's order
  std::vector<ImportedResult> results;      // in the function's order
  // Values whose sharding a constraint in the program fixes (sdy.sharding_constraint,
  // @Sharding custom calls): the planner keeps them, never overrides them.
  std::map<pir::ValueId, pir::TensorSharding> pinned;
  // Values a manual computation (shard_map) all-gathers before every use
  // (FSDP inside the body: a weight stored split on ("y", "x") and gathered
  // over "x"): how the body uses them. `pinned` holds how they are stored;
  // shard/propagation.h's Seeds::used takes both.
  std::map<pir::ValueId, pir::TensorSharding> gathered;
  // Rendered warnings ("file:line:col: warning: unsupported op 'stablehlo.fft'
  // imported as custom"), in source order.
  std::vector<std::string> warnings;
  // The values of splat constants (leaves) where the importer read them: the
  // folds read a mask's fill and polarity from them (PIR constants carry no value).
  std::map<pir::ValueId, double> splats;
  // The constant leaves whose values are a band mask (constant_band.h): a causal
  // or window mask the program stores as a tensor, read from its values.
  std::map<pir::ValueId, ConstantBand> bands;
  // What FinishImport decided (folds, the latent input, joint attention), for `inspect`.
  std::vector<std::string> notes;
};

// Import-time options shared by the importers.
struct ImportOptions {
  // Symbolic dims (ONNX dim_param, "batch") bound by the user: name -> size.
  std::map<std::string, int64_t> dims;
  // The input that carries the video token stream ([B, L, C], or the latent
  // [B, C, T, H, W]); empty: found by dit.h's rule.
  std::string latent;
  // Refuse to import more than this many ops (a hostile file).
  int64_t max_ops = 2'000'000;
};

// Steps 1-3 above, in place. Warnings are appended to `program.warnings`.
Status FinishImport(ImportedProgram& program, const ImportOptions& options);

}  // namespace az::frontend
