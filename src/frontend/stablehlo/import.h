// The StableHLO importer: MLIR text as JAX (`jax.jit(f).lower(...).as_text()`)
// and torch-xla print it -> PIR (frontend/import/imported.h).
//
// What it reads (formats.md §3): `module`, `sdy.mesh`, `func.func` with the
// entry `@main` (else the first public function), `func.call`/`call` (inlined;
// recursion and call depth > 64 are located errors), pretty and generic op
// forms, multi-results, regions, `loc(...)`, `dense<...>` constants.
//
// Ops. dot_general -> einsum (letters: batch, lhs free, rhs free; contracted
// letters dropped), 3-D convolution -> conv3d (others -> custom with their
// FLOPs), element-wise ops -> their PIR kinds, broadcast_in_dim / reshape /
// transpose / concatenate / slice / reduce (add -> sum, maximum -> max; the
// init must be the identity) -> their PIR kinds, select -> where, iota and
// constant -> constant leaves. Anything else becomes `custom` with a warning
// naming the op and its file:line:col; never an error.
//
// Shardings. Shardy meshes keep their names; GSPMD strings get a synthesized
// mesh "gspmd" with axes "d0", "d1", ... (shardings.h). Argument and result
// annotations become Value::sharding (seeds); `@Sharding` custom calls,
// `sdy.sharding_constraint` and `sdy.reshard` pass their operand through and
// pin it (`program.pinned`).
//
// Manual computations (`sdy.manual_computation`, or GSPMD's
// `@SPMDFullToShardShape` -> `call @body` -> `@SPMDShardToFullShape`) are
// imported at global shapes: the body's arguments are the global operands,
// pinned to the in_shardings; every body value's sharding over the manual
// axes is derived (all_gather removes its group's axes from the gathered dim,
// reduce_scatter and all_to_all move them, a dot_general or reduce over a
// sharded dim leaves a partial sum that all_reduce / reduce_scatter clear;
// broadcast dims take the sharding their users need), and each local shape is
// scaled to its global one. The collectives are then identities and are
// dropped; ListManualCollectives reports what the file holds. Where the
// reconstruction fails (conflicting shardings, shapes that do not scale back),
// the body is imported at local shapes between `custom` conversions, with a
// warning.
//
// Parameters vs inputs. JAX passes weights as arguments. An argument is a
// *parameter* when it is floating point, of rank >= 1, and every path from it,
// through convert / reshape / transpose / broadcast / slice only, ends in a
// weight position: an operand of an einsum or conv3d, or an operand of a
// binary element-wise op whose result has a larger rank (biases, norm scales,
// RoPE tables), whose other operand depends on an input. An element-wise
// partner computed from constants and parameters alone makes it an input
// (t * freqs); an operand of the result's own rank is data (labels, a mask;
// also a modulation table [1, 6, d] added to a [B, 6, d] embedding). When
// both operands of a matmul come straight from undecided arguments, the lhs
// is taken as the input (JAX and torch-xla print x @ W). Everything else is an
// input. Arguments are named by `jax.arg_info`, `mhlo.frontend_attributes`
// {`jax.arg_info`, `name`} or their loc name, else "%argN"; results by
// `jax.result_info`, else "%resultN".
//
// Limits: ImportOptions::max_ops bounds the ops visited after inlining (a
// manual body is walked twice: analysis, then import); calls nest at most 64
// deep, manual computations 16; brackets and regions 256 (mlir_parser.h).
//
// Ops are named by their loc name when it is a string ("dot.22",
// "jit(f)/dot_general"; made unique with a ".N" suffix), else "<op>.<n>"
// ("dot_general.3"). Every op and leaf carries its file:line:col.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/import/imported.h"
#include "support/diagnostic.h"
#include "support/status.h"

namespace az::frontend {

StatusOr<ImportedProgram> ImportStableHlo(std::string_view text, std::string file_name, const ImportOptions& options);
// Reads the file (refusing files over 1 GiB with kResourceExhausted) and imports it.
StatusOr<ImportedProgram> ImportStableHloFile(const std::string& path, const ImportOptions& options);

// A collective the file itself holds (a partitioned / shard_map program).
struct ManualCollective {
  std::string kind;               // "all_gather", "all_reduce", "reduce_scatter", "all_to_all", "collective_permute"
  std::string mesh;               // the mesh its groups were read against ("" when the file has none)
  std::vector<std::string> axes;  // the mesh axes its groups vary, in mesh order; empty when not nameable
  int64_t bytes = 0;              // its operand's (per-device) size
  SourceLocation loc;
};

// Every collective op of every function of the file, in text order (static
// counts: a function called twice counts once).
StatusOr<std::vector<ManualCollective>> ListManualCollectives(std::string_view text, std::string file_name);

}  // namespace az::frontend
