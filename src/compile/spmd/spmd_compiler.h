// The built-in SPMD partitioner: PIR + a sharding plan -> the CIR program every
// device runs. The lowering reads top to bottom in spmd_compiler.cc:
//   1. leaves become buffers in their planned sharding (local, padded shapes);
//   2. per op, in graph order: each operand is resharded to the sharding the
//      op's factor assignment requires (reshard.h; one resharding per value and
//      target, shared by its consumers), then the op becomes a kernel priced on
//      its local shapes (pir/rules/cost.h) — so uneven shards show their padded
//      FLOPs. Reshapes are free (a bitcast of the local buffer). Attention with
//      its query and key sequences on the same axes is ring attention: n block
//      kernels with n-1 kv-block permutes between them; attention_grad so
//      sharded is its backward: n block kernels, n-1 kv-block permutes and n
//      permutes of the f32 (dK, dV) accumulators. A convolution or replicate
//      pad over a split windowed dim (a VAE split over its rows) exchanges
//      its halo rows with its neighbours, two collective-permutes, and runs
//      on the extended shard (halo.h); an upsample of an unevenly split dim
//      whose blocks would not align is refused;
//      A Ulysses attention (its queries resharded from a sequence split to a
//      heads split by all-to-alls) under CompileOptions::ulysses_chunks = C
//      > 1 is lowered as MaxDiffusion's chunked Ulysses attention
//      (attention_flax.py: _run_chunked_ulysses_attention) over the head
//      ranges of UlyssesHeadChunks: per chunk, the all-to-alls of its q, k
//      and v slices, then its attention kernel (its own ring when the kv
//      sequence is a ring too), each priced on the chunk's local shapes;
//      then, per chunk, the all-to-all of its output slice back to the
//      sequence split its one reader needs, every chunk writing its heads
//      of one buffer (the concatenation). Emitted in that order (every
//      chunk's inputs and kernel, then the outputs), ScheduleAsync starts
//      chunk i+1's first all-to-all before chunk i's kernel and chunk 0's
//      output all-to-all before the last kernel. Operands whose resharding
//      is not all-to-alls alone are resharded whole; an attention with a
//      mask, grouped-query heads or an lse result, or whose queries need no
//      all-to-all, is lowered whole. A program with a backward refuses
//      C > 1 (its attention_grad reads the forward's resharded q, k, v);
//      A training step's value kept in host memory (remat offload, the graph
//      attribute "offloaded") is brought back by a copy kernel
//      "<origin>.host-reload" before the backward first reads it. A
//      training step's parameter is gathered anew for each micro-step's
//      forward and backward (graph attribute "micro_steps": gradient
//      accumulation); each micro-step's gradient is reduced into the running
//      sum ("micro<i>.grad_sum.<param>", sharded like the parameter), whose
//      add kernel updates it in place: one accumulator per parameter, a gradient
//      buffer, the micro-step's gradient transient;
//   3. graph outputs with pending partial sums are all-reduced;
//   4. passes over the program (schedule.h): element-wise fusion, combining
//      of small collectives, then asynchronous collectives.
#pragma once

#include <utility>
#include <vector>

#include "compile/compiler.h"

namespace az::compile {

class SpmdCompiler final : public Compiler {
 public:
  std::string name() const override { return "builtin-spmd"; }
  StatusOr<cir::Program> Compile(const pir::Graph& graph, const shard::ShardingPlan& plan,
                                 const CompileOptions& options) override;
};

// MaxDiffusion's _ulysses_head_chunk_ranges: half-open ranges over `heads`
// heads, each a multiple of `shards` (the heads factor's devices): the
// heads / shards groups cut into min(chunks, groups) chunks of
// floor(groups / chunks) groups, the last carrying the remainder (40 heads,
// 4 shards, 4 chunks: 8, 8, 8, 16 heads). chunks <= 1, or heads not a
// multiple of shards: one range, the whole.
std::vector<std::pair<int64_t, int64_t>> UlyssesHeadChunks(int64_t heads, int64_t shards, int64_t chunks);

// cir::Instruction::precision of a kernel of `kind` reading `operands` (its
// local operand types): what the matrix units read, the promoted type of the
// first two (an einsum's, a convolution's input and weight, attention's q and
// k); bf16 for kernels that are not matmul, attention or convolution.
pir::DType MatrixPrecision(cir::KernelKind kind, const std::vector<pir::TensorType>& operands);

}  // namespace az::compile
